//! The arithmetic of the rules over the scalar type: element-wise maps, products.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix};

use crate::Scalar;

/// The matrix of `f` at every position, shaped as `like`.
#[inline]
pub(super) fn shaped<S: Scalar, R: Dim, C: Dim>(
    like: &OMatrix<S, R, C>,
    f: impl FnMut(usize, usize) -> S,
) -> OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    let (rows, columns) = like.shape_generic();
    OMatrix::from_fn_generic(rows, columns, f)
}

/// `f` of the two matrices, element by element.
#[inline]
pub(super) fn zip_with<S: Scalar, R: Dim, C: Dim>(
    a: &OMatrix<S, R, C>,
    b: &OMatrix<S, R, C>,
    mut f: impl FnMut(S, S) -> S,
) -> OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    assert_eq!(a.shape(), b.shape(), "the matrices' shapes differ");
    if all_static::<R, C, C>() {
        return shaped(a, |i, j| f(a[(i, j)], b[(i, j)]));
    }
    let mut out = a.clone();
    for (x, y) in out.as_mut_slice().iter_mut().zip(b.as_slice()) {
        *x = f(*x, *y);
    }
    out
}

#[inline]
pub(super) fn scaled<S: Scalar, R: Dim, C: Dim>(a: &OMatrix<S, R, C>, k: S) -> OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    if all_static::<R, C, C>() {
        return shaped(a, |i, j| a[(i, j)] * k);
    }
    let mut out = a.clone();
    for x in out.as_mut_slice() {
        *x *= k;
    }
    out
}

#[inline]
pub(super) fn dot<S: Scalar, R: Dim, C: Dim>(a: &OMatrix<S, R, C>, b: &OMatrix<S, R, C>) -> S
where
    DefaultAllocator: Allocator<R, C>,
{
    assert_eq!(a.shape(), b.shape(), "the matrices' shapes differ");
    if all_static::<R, C, C>() {
        // Small and fixed: a sum the compiler unrolls.
        let mut sum = S::zero();
        for (x, y) in a.as_slice().iter().zip(b.as_slice()) {
            sum += *x * *y;
        }
        return sum;
    }
    slice_dot(a.as_slice(), b.as_slice())
}

/// With eight partial sums, which the compiler keeps in vector registers (nalgebra's `dot`
/// sums the same way).
#[inline]
fn slice_dot<S: Scalar>(a: &[S], b: &[S]) -> S {
    let mut sums = [S::zero(); 8];
    let (a_chunks, b_chunks) = (a.chunks_exact(8), b.chunks_exact(8));
    let (a_rest, b_rest) = (a_chunks.remainder(), b_chunks.remainder());
    for (x, y) in a_chunks.zip(b_chunks) {
        for k in 0..8 {
            sums[k] += x[k] * y[k];
        }
    }
    let mut sum = S::zero();
    for k in 0..4 {
        sum += sums[k] + sums[k + 4];
    }
    for (x, y) in a_rest.iter().zip(b_rest) {
        sum += *x * *y;
    }
    sum
}

/// `out += a k`, over slices of equal length.
#[inline]
fn add_scaled<S: Scalar>(out: &mut [S], a: &[S], k: S) {
    for (o, x) in out.iter_mut().zip(a) {
        *o += *x * k;
    }
}

#[inline]
pub(super) fn transposed<S: Scalar, R: Dim, C: Dim>(a: &OMatrix<S, R, C>) -> OMatrix<S, C, R>
where
    DefaultAllocator: Allocator<R, C> + Allocator<C, R>,
{
    let (rows, columns) = a.shape_generic();
    OMatrix::from_fn_generic(columns, rows, |i, j| a[(j, i)])
}

/// `a * b`, the matrix product.
pub(super) fn product<S: Scalar, R: Dim, K: Dim, C: Dim>(
    a: &OMatrix<S, R, K>,
    b: &OMatrix<S, K, C>,
) -> OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, K> + Allocator<K, C> + Allocator<R, C>,
{
    assert_eq!(
        a.ncols(),
        b.nrows(),
        "Matrix multiplication dimensions mismatch."
    );
    combinations_of_columns::<S, R, K, C>(a, b.shape_generic().1, |column, k| b[(k, column)])
}

/// The matrix whose column `j` is `Σₖ a[:, k] · coefficient(j, k)`: a product with `a` on the
/// left, the right factor given by its elements. Each column of the result is a combination
/// of `a`'s columns, contiguous in nalgebra's column-major storage; small fixed sizes are
/// loops the compiler unrolls.
fn combinations_of_columns<S: Scalar, R: Dim, K: Dim, C: Dim>(
    a: &OMatrix<S, R, K>,
    columns: C,
    coefficient: impl Fn(usize, usize) -> S,
) -> OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, K> + Allocator<R, C>,
{
    let (rows, inner) = (a.nrows(), a.ncols());
    if all_static::<R, K, C>() {
        return OMatrix::from_fn_generic(a.shape_generic().0, columns, |i, j| {
            let mut sum = S::zero();
            for k in 0..inner {
                sum += a[(i, k)] * coefficient(j, k);
            }
            sum
        });
    }
    let mut out = OMatrix::from_element_generic(a.shape_generic().0, columns, S::zero());
    let a = a.as_slice();
    for (column, out) in out.as_mut_slice().chunks_exact_mut(rows.max(1)).enumerate() {
        for k in 0..inner {
            add_scaled(out, &a[k * rows..(k + 1) * rows], coefficient(column, k));
        }
    }
    out
}

/// Whether the three dimensions are known at compile time (fixed-size matrices).
#[inline(always)]
pub(super) fn all_static<A: Dim, B: Dim, C: Dim>() -> bool {
    A::try_to_usize().is_some() && B::try_to_usize().is_some() && C::try_to_usize().is_some()
}

/// `aᵀ * b` without forming `aᵀ`: dot products of columns.
pub(super) fn transpose_product<S: Scalar, K: Dim, R: Dim, C: Dim>(
    a: &OMatrix<S, K, R>,
    b: &OMatrix<S, K, C>,
) -> OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<K, R> + Allocator<K, C> + Allocator<R, C>,
{
    assert_eq!(
        a.nrows(),
        b.nrows(),
        "Matrix multiplication dimensions mismatch."
    );
    let inner = a.nrows();
    if all_static::<K, R, C>() {
        return OMatrix::from_fn_generic(a.shape_generic().1, b.shape_generic().1, |i, j| {
            let mut sum = S::zero();
            for k in 0..inner {
                sum += a[(k, i)] * b[(k, j)];
            }
            sum
        });
    }
    let (columns_a, columns_b) = (a.as_slice(), b.as_slice());
    OMatrix::from_fn_generic(a.shape_generic().1, b.shape_generic().1, |i, j| {
        slice_dot(
            &columns_a[i * inner..(i + 1) * inner],
            &columns_b[j * inner..(j + 1) * inner],
        )
    })
}

/// `a * bᵀ` without forming `bᵀ`.
pub(super) fn product_transpose<S: Scalar, R: Dim, K: Dim, C: Dim>(
    a: &OMatrix<S, R, C>,
    b: &OMatrix<S, K, C>,
) -> OMatrix<S, R, K>
where
    DefaultAllocator: Allocator<R, C> + Allocator<K, C> + Allocator<R, K>,
{
    assert_eq!(
        a.ncols(),
        b.ncols(),
        "Matrix multiplication dimensions mismatch."
    );
    combinations_of_columns::<S, R, C, K>(a, b.shape_generic().0, |column, j| b[(column, j)])
}
