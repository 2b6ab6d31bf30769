//! nalgebra's vectors and matrices in reverse mode (feature `nalgebra`).
//!
//! A `#[reverse]` function takes and builds owned vectors and matrices of floats (`SVector`,
//! `SMatrix`, `Vector3`, `Matrix3`, `DVector`, `DMatrix`, ...): their adjoint is a matrix of the
//! same shape, and each operation the body calls on them has a rule here, its value and its
//! transpose (the pullback) side by side. The values are computed with the scalar type's own
//! arithmetic, so that the same rules run at `f64` (gradients) and at dual numbers (forward
//! over reverse, for Hessians).
//!
//! ```
//! use ad_runtime::reverse;
//! use nalgebra::{Matrix2, Vector2};
//!
//! /// `½ xᵀ A x − bᵀ x`.
//! #[reverse]
//! fn quadratic(a: &Matrix2<f64>, b: &Vector2<f64>, x: &Vector2<f64>) -> f64 {
//!     let ax = a * x;
//!     x.dot(&ax) * 0.5 - b.dot(x)
//! }
//!
//! let a = Matrix2::new(2.0, 1.0, 1.0, 3.0);
//! let (b, x) = (Vector2::new(1.0, -1.0), Vector2::new(0.5, 2.0));
//! let (value, (_, _, dx)) = quadratic_grad(&a, &b, &x);
//! assert_eq!(value, quadratic(&a, &b, &x));
//! // The gradient in x of a symmetric quadratic form is `A x − b`.
//! assert!((dx - (a * x - b)).norm() < 1e-12);
//! ```

// Each signature is a value and its pullback, whose type says what it gives back.
#![allow(clippy::type_complexity)]

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix, U1, U3};

use crate::__private::ir::{take_shaped, FlatAdjoint, ReverseLength, SlotAt, TakeWritten};
use crate::__private::linalg::{
    LinalgCholesky, LinalgConstruct, LinalgCross, LinalgFactor, LinalgMethods, LinalgMul,
    LinalgSolve, LinalgSquare,
};
use crate::__private::Seed;
use crate::adjoint::{Adjoint, Diff, NoAdjoint, ValueOf};
use crate::{Dual, Scalar};

/// The matrix of `f` at every position, shaped as `like`.
#[inline]
fn shaped<S: Scalar, R: Dim, C: Dim>(
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
fn zip_with<S: Scalar, R: Dim, C: Dim>(
    a: &OMatrix<S, R, C>,
    b: &OMatrix<S, R, C>,
    mut f: impl FnMut(S, S) -> S,
) -> OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    assert_eq!(a.shape(), b.shape(), "the matrices' shapes differ");
    shaped(a, |i, j| f(a[(i, j)], b[(i, j)]))
}

#[inline]
fn scaled<S: Scalar, R: Dim, C: Dim>(a: &OMatrix<S, R, C>, k: S) -> OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    shaped(a, |i, j| a[(i, j)] * k)
}

#[inline]
fn dot<S: Scalar, R: Dim, C: Dim>(a: &OMatrix<S, R, C>, b: &OMatrix<S, R, C>) -> S
where
    DefaultAllocator: Allocator<R, C>,
{
    assert_eq!(a.shape(), b.shape(), "the matrices' shapes differ");
    let mut sum = S::zero();
    for (x, y) in a.iter().zip(b.iter()) {
        sum += *x * *y;
    }
    sum
}

#[inline]
fn transposed<S: Scalar, R: Dim, C: Dim>(a: &OMatrix<S, R, C>) -> OMatrix<S, C, R>
where
    DefaultAllocator: Allocator<R, C> + Allocator<C, R>,
{
    let (rows, columns) = a.shape_generic();
    OMatrix::from_fn_generic(columns, rows, |i, j| a[(j, i)])
}

/// `a * b`, the matrix product.
fn product<S: Scalar, R: Dim, K: Dim, C: Dim>(
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
    let (rows, _) = a.shape_generic();
    let (_, columns) = b.shape_generic();
    OMatrix::from_fn_generic(rows, columns, |i, j| {
        let mut sum = S::zero();
        for k in 0..a.ncols() {
            sum += a[(i, k)] * b[(k, j)];
        }
        sum
    })
}

/// `aᵀ * b` without forming `aᵀ`.
fn transpose_product<S: Scalar, K: Dim, R: Dim, C: Dim>(
    a: &OMatrix<S, K, R>,
    b: &OMatrix<S, K, C>,
) -> OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<K, R> + Allocator<K, C> + Allocator<R, C>,
{
    let (_, rows) = a.shape_generic();
    let (_, columns) = b.shape_generic();
    OMatrix::from_fn_generic(rows, columns, |i, j| {
        let mut sum = S::zero();
        for k in 0..a.nrows() {
            sum += a[(k, i)] * b[(k, j)];
        }
        sum
    })
}

/// `a * bᵀ` without forming `bᵀ`.
fn product_transpose<S: Scalar, R: Dim, K: Dim, C: Dim>(
    a: &OMatrix<S, R, C>,
    b: &OMatrix<S, K, C>,
) -> OMatrix<S, R, K>
where
    DefaultAllocator: Allocator<R, C> + Allocator<K, C> + Allocator<R, K>,
{
    let (rows, _) = a.shape_generic();
    let (columns, _) = b.shape_generic();
    OMatrix::from_fn_generic(rows, columns, |i, j| {
        let mut sum = S::zero();
        for k in 0..a.ncols() {
            sum += a[(i, k)] * b[(j, k)];
        }
        sum
    })
}

/// A matrix's adjoint is a matrix of its shape. A dynamically sized one starts empty (a
/// symbolic zero, as a `Vec`'s does) and takes the shape of what reaches it.
impl<S: Scalar, R: Dim, C: Dim> Diff for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Adjoint = OMatrix<S, R, C>;
    fn zero_like(&self) -> Self {
        shaped(self, |_, _| S::zero())
    }
    // Shaped where a `Vec`'s would start empty: a matrix's adjoint cannot grow to where its
    // elements are reached (`m[(i, j)]`).
    fn argument_zero(&self) -> Self {
        self.zero_like()
    }
}

impl<S: Scalar, R: Dim, C: Dim> Adjoint for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    fn zero() -> Self {
        let rows = R::from_usize(R::try_to_usize().unwrap_or(0));
        let columns = C::from_usize(C::try_to_usize().unwrap_or(0));
        OMatrix::from_fn_generic(rows, columns, |_, _| S::zero())
    }

    fn accumulate(&mut self, contribution: Self) {
        if contribution.is_empty() {
            return;
        }
        if self.is_empty() {
            *self = contribution;
            return;
        }
        if self.shape() != contribution.shape() {
            // One grew only as far as its elements were reached (`grow_to`).
            let rows = self.nrows().max(contribution.nrows());
            let columns = self.ncols().max(contribution.ncols());
            grow_to(self, rows, columns);
            for j in 0..contribution.ncols() {
                for i in 0..contribution.nrows() {
                    self[(i, j)] += contribution[(i, j)];
                }
            }
            return;
        }
        for (adjoint, part) in self.iter_mut().zip(contribution.iter()) {
            *adjoint += *part;
        }
    }

    fn negate(mut self) -> Self {
        for adjoint in self.iter_mut() {
            *adjoint = -*adjoint;
        }
        self
    }

    fn same_shape(&self, other: &Self) -> bool {
        other.is_empty() || self.shape() == other.shape()
    }
}

impl<S: Scalar, R: Dim, C: Dim> ValueOf for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Value = Self;
    #[inline(always)]
    fn value_of(self) -> Self {
        self
    }
}

/// A matrix's adjoint as a callee gives or takes it flat (column-major).
impl<S: Scalar, R: Dim, C: Dim> FlatAdjoint<S> for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    fn flatten_into(&self, out: &mut Vec<S>) {
        out.extend(self.iter().copied());
    }
    fn add_flat(&mut self, flat: &mut dyn Iterator<Item = S>) {
        for adjoint in self.iter_mut() {
            match flat.next() {
                Some(part) => *adjoint += part,
                None => crate::__private::shapes_differ("the adjoint's floats and the value's"),
            }
        }
    }
}

/// What a method leaves in a receiver lent mutably, its cotangent flat (no method of a matrix
/// here writes its receiver, so none reads it).
impl<S: Scalar, R: Dim, C: Dim> TakeWritten<Vec<S>> for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    fn take_written(&mut self, shaped: Self) -> Vec<S> {
        take_shaped(self, shaped)
    }
}

/// `len` and `is_empty`, data.
impl<S: Scalar, R: Dim, C: Dim> ReverseLength for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    fn __ad_reverse_len(&self) -> (usize, fn(NoAdjoint) -> ((),)) {
        (self.len(), |_| ((),))
    }
    fn __ad_reverse_is_empty(&self) -> (bool, fn(NoAdjoint) -> ((),)) {
        (self.is_empty(), |_| ((),))
    }
    fn __ad_forward_len(&self) -> usize {
        self.len()
    }
    fn __ad_forward_is_empty(&self) -> bool {
        self.is_empty()
    }
}

/// A dynamically sized adjoint that starts empty (a symbolic zero, as a `Vec`'s) grows with
/// zeros to where its elements are reached, and to the shape of what is added to it.
#[cold]
#[inline(never)]
fn grow_to<S: Scalar, R: Dim, C: Dim>(adjoint: &mut OMatrix<S, R, C>, rows: usize, columns: usize)
where
    DefaultAllocator: Allocator<R, C>,
{
    let rows = R::try_to_usize().unwrap_or(rows.max(adjoint.nrows()));
    let columns = C::try_to_usize().unwrap_or(columns.max(adjoint.ncols()));
    let grown =
        OMatrix::from_fn_generic(R::from_usize(rows), C::from_usize(columns), |i, j| {
            match i < adjoint.nrows() && j < adjoint.ncols() {
                true => adjoint[(i, j)],
                false => S::zero(),
            }
        });
    *adjoint = grown;
}

/// The adjoint of `m[i]` (column-major, as nalgebra indexes) is `dm[i]`.
impl<S: Scalar, R: Dim, C: Dim> SlotAt<usize> for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Element = S;
    #[inline(always)]
    fn slot_at(&mut self, index: usize) -> &mut S {
        if index >= self.len() {
            // A symbolic zero: of a vector, grown along its length; of a matrix both of whose
            // dimensions are dynamic, a position says no shape to grow to.
            match (R::try_to_usize(), C::try_to_usize()) {
                (_, Some(1)) => grow_to(self, index + 1, 1),
                (Some(1), _) => grow_to(self, 1, index + 1),
                _ => panic!(
                    "reverse mode reads an element of a dynamically sized matrix by its \
                     position before the matrix's shape is known: index it by \
                     `(row, column)`"
                ),
            }
        }
        &mut self[index]
    }
}

/// The adjoint of `m[(i, j)]` is `dm[(i, j)]`.
impl<S: Scalar, R: Dim, C: Dim> SlotAt<(usize, usize)> for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Element = S;
    #[inline(always)]
    fn slot_at(&mut self, (i, j): (usize, usize)) -> &mut S {
        if i >= self.nrows() || j >= self.ncols() {
            grow_to(self, i + 1, j + 1);
        }
        &mut self[(i, j)]
    }
}

impl<S: Scalar, R: Dim, C: Dim> LinalgMethods<S> for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C> + Allocator<C, R>,
{
    type Transposed = OMatrix<S, C, R>;

    // ⟨a, b⟩: ā = c̄ b, b̄ = c̄ a.
    fn __ad_reverse_dot(&self, rhs: &Self) -> (S, impl FnOnce(S) -> (Self, Self) + use<S, R, C>) {
        let (a, b) = (self.clone(), rhs.clone());
        (dot(&a, &b), move |c| (scaled(&b, c), scaled(&a, c)))
    }
    fn __ad_forward_dot(&self, rhs: &Self) -> S {
        dot(self, rhs)
    }

    // ‖a‖²: ā = 2 c̄ a.
    fn __ad_reverse_norm_squared(&self) -> (S, impl FnOnce(S) -> (Self,) + use<S, R, C>) {
        let a = self.clone();
        (dot(&a, &a), move |c| (scaled(&a, c + c),))
    }
    fn __ad_forward_norm_squared(&self) -> S {
        dot(self, self)
    }

    // ‖a‖: ā = c̄ a / ‖a‖ (not finite at 0, as the square root's derivative).
    fn __ad_reverse_norm(&self) -> (S, impl FnOnce(S) -> (Self,) + use<S, R, C>) {
        let a = self.clone();
        let norm = dot(&a, &a).sqrt();
        (norm, move |c| (scaled(&a, c / norm),))
    }
    fn __ad_forward_norm(&self) -> S {
        dot(self, self).sqrt()
    }

    // Σ aᵢⱼ: āᵢⱼ = c̄.
    fn __ad_reverse_sum(&self) -> (S, impl FnOnce(S) -> (Self,) + use<S, R, C>) {
        let shape = self.shape_generic();
        let sum = self.iter().fold(S::zero(), |sum, x| sum + *x);
        (sum, move |c| {
            (OMatrix::from_fn_generic(shape.0, shape.1, |_, _| c),)
        })
    }
    fn __ad_forward_sum(&self) -> S {
        self.iter().fold(S::zero(), |sum, x| sum + *x)
    }

    // aᵀ: ā = c̄ᵀ.
    fn __ad_reverse_transpose(
        &self,
    ) -> (
        OMatrix<S, C, R>,
        impl FnOnce(OMatrix<S, C, R>) -> (Self,) + use<S, R, C>,
    ) {
        (transposed(self), |c: OMatrix<S, C, R>| (transposed(&c),))
    }
    fn __ad_forward_transpose(&self) -> OMatrix<S, C, R> {
        transposed(self)
    }

    // a ⊙ b: ā = c̄ ⊙ b, b̄ = c̄ ⊙ a.
    fn __ad_reverse_component_mul(
        &self,
        rhs: &Self,
    ) -> (Self, impl FnOnce(Self) -> (Self, Self) + use<S, R, C>) {
        let (a, b) = (self.clone(), rhs.clone());
        (zip_with(&a, &b, |x, y| x * y), move |c: Self| {
            (
                zip_with(&c, &b, |c, y| c * y),
                zip_with(&c, &a, |c, x| c * x),
            )
        })
    }
    fn __ad_forward_component_mul(&self, rhs: &Self) -> Self {
        zip_with(self, rhs, |x, y| x * y)
    }

    // a ⊘ b: ā = c̄ ⊘ b, b̄ = −c̄ ⊙ a ⊘ b².
    fn __ad_reverse_component_div(
        &self,
        rhs: &Self,
    ) -> (Self, impl FnOnce(Self) -> (Self, Self) + use<S, R, C>) {
        let b = rhs.clone();
        let value = zip_with(self, &b, |x, y| x / y);
        let quotient = value.clone();
        (value, move |c: Self| {
            let da = zip_with(&c, &b, |c, y| c / y);
            let db = zip_with(&da, &quotient, |d, q| -(d * q));
            (da, db)
        })
    }
    fn __ad_forward_component_div(&self, rhs: &Self) -> Self {
        zip_with(self, rhs, |x, y| x / y)
    }

    // k a: ā = k c̄, k̄ = ⟨c̄, a⟩.
    fn __ad_reverse_scale(&self, k: S) -> (Self, impl FnOnce(Self) -> (Self, S) + use<S, R, C>) {
        let a = self.clone();
        (scaled(&a, k), move |c: Self| (scaled(&c, k), dot(&c, &a)))
    }
    fn __ad_forward_scale(&self, k: S) -> Self {
        scaled(self, k)
    }

    // a + b: ā = c̄, b̄ = c̄.
    fn __ad_reverse_add(
        &self,
        rhs: Self,
    ) -> (Self, impl FnOnce(Self) -> (Self, Self) + use<S, R, C>) {
        (zip_with(self, &rhs, |x, y| x + y), |c: Self| (c.clone(), c))
    }
    fn __ad_forward_add(&self, rhs: Self) -> Self {
        zip_with(self, &rhs, |x, y| x + y)
    }

    // a − b: ā = c̄, b̄ = −c̄.
    fn __ad_reverse_sub(
        &self,
        rhs: Self,
    ) -> (Self, impl FnOnce(Self) -> (Self, Self) + use<S, R, C>) {
        (zip_with(self, &rhs, |x, y| x - y), |c: Self| {
            (c.clone(), c.negate())
        })
    }
    fn __ad_forward_sub(&self, rhs: Self) -> Self {
        zip_with(self, &rhs, |x, y| x - y)
    }

    // −a: ā = −c̄.
    fn __ad_reverse_neg(&self) -> (Self, impl FnOnce(Self) -> (Self,) + use<S, R, C>) {
        (self.clone().negate(), |c: Self| (c.negate(),))
    }
    fn __ad_forward_neg(&self) -> Self {
        self.clone().negate()
    }

    // k a, as a k.
    fn __ad_reverse_rmul(&self, k: S) -> (Self, impl FnOnce(Self) -> (Self, S) + use<S, R, C>) {
        self.__ad_reverse_scale(k)
    }
    fn __ad_forward_rmul(&self, k: S) -> Self {
        scaled(self, k)
    }

    fn __ad_reverse_nrows(&self) -> (usize, fn(NoAdjoint) -> ((),)) {
        (self.nrows(), |_| ((),))
    }
    fn __ad_forward_nrows(&self) -> usize {
        self.nrows()
    }
    fn __ad_reverse_ncols(&self) -> (usize, fn(NoAdjoint) -> ((),)) {
        (self.ncols(), |_| ((),))
    }
    fn __ad_forward_ncols(&self) -> usize {
        self.ncols()
    }
    fn __ad_reverse_shape(&self) -> ((usize, usize), fn(NoAdjoint) -> ((),)) {
        (self.shape(), |_| ((),))
    }
    fn __ad_forward_shape(&self) -> (usize, usize) {
        self.shape()
    }

    // a / k: ā = c̄ / k, k̄ = −⟨c̄, a⟩ / k².
    fn __ad_reverse_div(&self, k: S) -> (Self, impl FnOnce(Self) -> (Self, S) + use<S, R, C>) {
        let a = self.clone();
        (shaped(&a, |i, j| a[(i, j)] / k), move |c: Self| {
            let da = shaped(&c, |i, j| c[(i, j)] / k);
            let dk = -(dot(&c, &a) / (k * k));
            (da, dk)
        })
    }
    fn __ad_forward_div(&self, k: S) -> Self {
        shaped(self, |i, j| self[(i, j)] / k)
    }
}

// a k for a float k: ā = k c̄, k̄ = ⟨c̄, a⟩.
impl<S: Scalar, R: Dim, C: Dim> LinalgMul<S, S> for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Output = Self;
    type RhsAdjoint = S;
    fn __ad_reverse_mul(&self, k: S) -> (Self, impl FnOnce(Self) -> (Self, S) + use<S, R, C>) {
        let a = self.clone();
        (scaled(&a, k), move |c: Self| (scaled(&c, k), dot(&c, &a)))
    }
    fn __ad_forward_mul(&self, k: S) -> Self {
        scaled(self, k)
    }
}

// a b (R×K times K×C): ā = c̄ bᵀ, b̄ = aᵀ c̄.
impl<S: Scalar, R: Dim, K: Dim, C: Dim> LinalgMul<OMatrix<S, K, C>, S> for OMatrix<S, R, K>
where
    DefaultAllocator: Allocator<R, K> + Allocator<K, C> + Allocator<R, C>,
{
    type Output = OMatrix<S, R, C>;
    type RhsAdjoint = OMatrix<S, K, C>;
    fn __ad_reverse_mul(
        &self,
        b: OMatrix<S, K, C>,
    ) -> (
        OMatrix<S, R, C>,
        impl FnOnce(OMatrix<S, R, C>) -> (Self, OMatrix<S, K, C>) + use<S, R, K, C>,
    ) {
        let a = self.clone();
        (product(&a, &b), move |c: OMatrix<S, R, C>| {
            (product_transpose(&c, &b), transpose_product(&a, &c))
        })
    }
    fn __ad_forward_mul(&self, b: OMatrix<S, K, C>) -> OMatrix<S, R, C> {
        product(self, &b)
    }
}

// a × b: ā = b × c̄, b̄ = c̄ × a.
impl<S: Scalar> LinalgCross<S> for OMatrix<S, U3, U1> {
    fn __ad_reverse_cross(&self, rhs: &Self) -> (Self, impl FnOnce(Self) -> (Self, Self) + use<S>) {
        let (a, b) = (*self, *rhs);
        (cross(&a, &b), move |c: Self| (cross(&b, &c), cross(&c, &a)))
    }
    fn __ad_forward_cross(&self, rhs: &Self) -> Self {
        cross(self, rhs)
    }
}

fn cross<S: Scalar>(a: &OMatrix<S, U3, U1>, b: &OMatrix<S, U3, U1>) -> OMatrix<S, U3, U1> {
    OMatrix::<S, U3, U1>::new(
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    )
}

impl<S: Scalar, D: Dim> LinalgSquare<S> for OMatrix<S, D, D>
where
    DefaultAllocator: Allocator<D, D>,
{
    // det a: ā = c̄ cof(a) (the cofactor matrix, det a · a⁻ᵀ where a is invertible).
    fn __ad_reverse_determinant(&self) -> (S, impl FnOnce(S) -> (Self,) + use<S, D>) {
        let a = self.clone();
        (determinant(&a), move |c| {
            let cofactors = cofactors(&a);
            (scaled(&cofactors, c),)
        })
    }
    fn __ad_forward_determinant(&self) -> S {
        determinant(self)
    }

    // tr a: ā = c̄ I.
    fn __ad_reverse_trace(&self) -> (S, impl FnOnce(S) -> (Self,) + use<S, D>) {
        let shape = self.shape_generic();
        let trace = (0..self.nrows()).fold(S::zero(), |sum, i| sum + self[(i, i)]);
        (trace, move |c| {
            let identity = OMatrix::from_fn_generic(shape.0, shape.1, |i, j| match i == j {
                true => c,
                false => S::zero(),
            });
            (identity,)
        })
    }
    fn __ad_forward_trace(&self) -> S {
        (0..self.nrows()).fold(S::zero(), |sum, i| sum + self[(i, i)])
    }

    // a⁻¹: ā = −a⁻ᵀ c̄ a⁻ᵀ.
    fn __ad_reverse_try_inverse(
        &self,
    ) -> (
        Option<Self>,
        impl FnOnce(Option<Self>) -> (Self,) + use<S, D>,
    ) {
        let inverse = inverse(self);
        let kept = inverse.clone();
        let zero = self.zero_like();
        (inverse, move |c: Option<Self>| match (kept, c) {
            (Some(inverse), Some(c)) if !c.is_empty() => {
                let left = transpose_product(&inverse, &c);
                (product_transpose(&left, &inverse).negate(),)
            }
            _ => (zero,),
        })
    }
    fn __ad_forward_try_inverse(&self) -> Option<Self> {
        inverse(self)
    }
}

/// The determinant by elimination with partial pivoting (the pivots chosen by the values).
fn determinant<S: Scalar, D: Dim>(a: &OMatrix<S, D, D>) -> S
where
    DefaultAllocator: Allocator<D, D>,
{
    let n = a.nrows();
    match n {
        0 => return S::one(),
        1 => return a[(0, 0)],
        2 => return a[(0, 0)] * a[(1, 1)] - a[(0, 1)] * a[(1, 0)],
        3 => {
            return a[(0, 0)] * (a[(1, 1)] * a[(2, 2)] - a[(1, 2)] * a[(2, 1)])
                - a[(0, 1)] * (a[(1, 0)] * a[(2, 2)] - a[(1, 2)] * a[(2, 0)])
                + a[(0, 2)] * (a[(1, 0)] * a[(2, 1)] - a[(1, 1)] * a[(2, 0)])
        }
        _ => {}
    }
    let mut rows: Vec<Vec<S>> = (0..n)
        .map(|i| (0..n).map(|j| a[(i, j)]).collect())
        .collect();
    let mut det = S::one();
    for k in 0..n {
        let pivot = (k..n)
            .max_by(|&i, &j| {
                rows[i][k]
                    .to_f64()
                    .abs()
                    .total_cmp(&rows[j][k].to_f64().abs())
            })
            .expect("k < n");
        if rows[pivot][k].to_f64() == 0.0 {
            // Singular: the value is zero, but not its derivative (at dual numbers), which
            // the expansion along the first row keeps.
            return laplace_expansion(a);
        }
        if pivot != k {
            rows.swap(pivot, k);
            det = -det;
        }
        det *= rows[k][k];
        let (above, below) = rows.split_at_mut(k + 1);
        let pivot_row = &above[k];
        for row in below {
            let factor = row[k] / pivot_row[k];
            for (element, pivot_element) in row[k..].iter_mut().zip(&pivot_row[k..]) {
                *element -= factor * *pivot_element;
            }
        }
    }
    det
}

/// The determinant expanded along the first row.
fn laplace_expansion<S: Scalar, D: Dim>(a: &OMatrix<S, D, D>) -> S
where
    DefaultAllocator: Allocator<D, D>,
{
    let n = a.nrows();
    let mut det = S::zero();
    for j in 0..n {
        let minor = nalgebra::DMatrix::from_fn(n - 1, n - 1, |r, c| {
            a[(r + 1, if c < j { c } else { c + 1 })]
        });
        let term = a[(0, j)] * determinant::<S, nalgebra::Dyn>(&minor);
        det = match j % 2 {
            0 => det + term,
            _ => det - term,
        };
    }
    det
}

/// The cofactor matrix: `∂ det a / ∂ aᵢⱼ`, also where `a` is singular.
fn cofactors<S: Scalar, D: Dim>(a: &OMatrix<S, D, D>) -> OMatrix<S, D, D>
where
    DefaultAllocator: Allocator<D, D>,
{
    let n = a.nrows();
    if n == 1 {
        return shaped(a, |_, _| S::one());
    }
    shaped(a, |i, j| {
        let minor: Vec<S> = (0..n)
            .filter(|&r| r != i)
            .flat_map(|r| (0..n).filter(move |&c| c != j).map(move |c| (r, c)))
            .map(|(r, c)| a[(r, c)])
            .collect();
        let minor = nalgebra::DMatrix::from_row_slice(n - 1, n - 1, &minor);
        let sign = match (i + j) % 2 {
            0 => S::one(),
            _ => -S::one(),
        };
        sign * determinant::<S, nalgebra::Dyn>(&minor)
    })
}

/// The inverse by Gauss–Jordan elimination with partial pivoting, `None` for a matrix with
/// a zero pivot (singular).
fn inverse<S: Scalar, D: Dim>(a: &OMatrix<S, D, D>) -> Option<OMatrix<S, D, D>>
where
    DefaultAllocator: Allocator<D, D>,
{
    let n = a.nrows();
    let mut left: Vec<Vec<S>> = (0..n)
        .map(|i| (0..n).map(|j| a[(i, j)]).collect())
        .collect();
    let mut right: Vec<Vec<S>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| if i == j { S::one() } else { S::zero() })
                .collect()
        })
        .collect();
    for k in 0..n {
        let pivot = (k..n).max_by(|&i, &j| {
            left[i][k]
                .to_f64()
                .abs()
                .total_cmp(&left[j][k].to_f64().abs())
        })?;
        if left[pivot][k].to_f64() == 0.0 {
            return None;
        }
        left.swap(pivot, k);
        right.swap(pivot, k);
        let scale = S::one() / left[k][k];
        for j in 0..n {
            left[k][j] *= scale;
            right[k][j] *= scale;
        }
        for i in 0..n {
            if i != k {
                let factor = left[i][k];
                for j in 0..n {
                    let (l, r) = (factor * left[k][j], factor * right[k][j]);
                    left[i][j] -= l;
                    right[i][j] -= r;
                }
            }
        }
    }
    Some(shaped(a, |i, j| right[i][j]))
}

/// The Cholesky factorization `A = L Lᵀ` of a symmetric positive-definite matrix, as
/// `m.cholesky()` gives it in derivative code (nalgebra's own factorization asks more of the
/// scalar type than the rules' arithmetic). As nalgebra's, it reads the lower triangle of
/// `A` only; its adjoint is that of the symmetric matrix the lower triangle defines, and goes
/// back to the lower triangle's elements.
#[derive(Clone, Debug)]
pub struct Cholesky<S: Scalar, D: Dim>
where
    DefaultAllocator: Allocator<D, D>,
{
    l: OMatrix<S, D, D>,
}

impl<S: Scalar, D: Dim> Cholesky<S, D>
where
    DefaultAllocator: Allocator<D, D>,
{
    /// The factorization, `None` where a pivot is not positive.
    fn new(a: &OMatrix<S, D, D>) -> Option<Self> {
        let n = a.nrows();
        let mut l = shaped(a, |_, _| S::zero());
        for j in 0..n {
            let mut diagonal = a[(j, j)];
            for k in 0..j {
                diagonal -= l[(j, k)] * l[(j, k)];
            }
            if diagonal.to_f64() <= 0.0 || diagonal.is_nan() {
                return None;
            }
            let pivot = diagonal.sqrt();
            l[(j, j)] = pivot;
            for i in j + 1..n {
                let mut sum = a[(i, j)];
                for k in 0..j {
                    sum -= l[(i, k)] * l[(j, k)];
                }
                l[(i, j)] = sum / pivot;
            }
        }
        Some(Cholesky { l })
    }

    /// `A⁻¹ b`: `L y = b`, then `Lᵀ x = y`.
    fn solve<C: Dim>(&self, b: &OMatrix<S, D, C>) -> OMatrix<S, D, C>
    where
        DefaultAllocator: Allocator<D, C>,
    {
        let (l, n) = (&self.l, self.l.nrows());
        assert_eq!(
            b.nrows(),
            n,
            "the right-hand side's rows differ from the matrix's"
        );
        let mut x = b.clone();
        for column in 0..x.ncols() {
            for i in 0..n {
                let mut sum = x[(i, column)];
                for k in 0..i {
                    sum -= l[(i, k)] * x[(k, column)];
                }
                x[(i, column)] = sum / l[(i, i)];
            }
            for i in (0..n).rev() {
                let mut sum = x[(i, column)];
                for k in i + 1..n {
                    sum -= l[(k, i)] * x[(k, column)];
                }
                x[(i, column)] = sum / l[(i, i)];
            }
        }
        x
    }

    /// `A⁻¹`.
    fn inverse(&self) -> OMatrix<S, D, D> {
        let identity = shaped(&self.l, |i, j| if i == j { S::one() } else { S::zero() });
        self.solve(&identity)
    }
}

/// The adjoint of the symmetric matrix, as the elements of its lower triangle: an element
/// below the diagonal stands for two of the matrix.
fn onto_lower_triangle<S: Scalar, D: Dim>(g: &OMatrix<S, D, D>) -> OMatrix<S, D, D>
where
    DefaultAllocator: Allocator<D, D>,
{
    shaped(g, |i, j| match i.cmp(&j) {
        core::cmp::Ordering::Greater => g[(i, j)] + g[(j, i)],
        core::cmp::Ordering::Equal => g[(i, i)],
        core::cmp::Ordering::Less => S::zero(),
    })
}

impl<S: Scalar, D: Dim> Diff for Cholesky<S, D>
where
    DefaultAllocator: Allocator<D, D>,
{
    type Adjoint = OMatrix<S, D, D>;
    fn zero_like(&self) -> OMatrix<S, D, D> {
        self.l.zero_like()
    }
    fn argument_zero(&self) -> OMatrix<S, D, D> {
        self.l.zero_like()
    }
}

impl<S: Scalar, D: Dim> LinalgCholesky<S> for OMatrix<S, D, D>
where
    DefaultAllocator: Allocator<D, D>,
{
    type Factor = Cholesky<S, D>;

    // Ā = the lower triangle's share of the symmetric matrix's adjoint.
    fn __ad_reverse_cholesky(
        &self,
    ) -> (
        Option<Cholesky<S, D>>,
        impl FnOnce(Option<Self>) -> (Self,) + use<S, D>,
    ) {
        let zero = self.zero_like();
        (Cholesky::new(self), move |c: Option<Self>| match c {
            Some(c) if !c.is_empty() => (onto_lower_triangle(&c),),
            _ => (zero,),
        })
    }
    fn __ad_forward_cholesky(&self) -> Option<Cholesky<S, D>> {
        Cholesky::new(self)
    }
}

impl<S: Scalar, D: Dim> LinalgFactor<S> for Cholesky<S, D>
where
    DefaultAllocator: Allocator<D, D>,
{
    type Lower = OMatrix<S, D, D>;

    // L: Ā = sym(L⁻ᵀ Φ(Lᵀ L̄) L⁻¹), Φ the lower triangle with its diagonal halved (Murray,
    // "Differentiation of the Cholesky decomposition", 2016).
    fn __ad_reverse_l(
        &self,
    ) -> (
        OMatrix<S, D, D>,
        impl FnOnce(OMatrix<S, D, D>) -> (OMatrix<S, D, D>,) + use<S, D>,
    ) {
        let l = self.l.clone();
        (self.l.clone(), move |c: OMatrix<S, D, D>| {
            let p = transpose_product(&l, &c);
            let half = S::from_f64(0.5);
            let phi = shaped(&p, |i, j| match i.cmp(&j) {
                core::cmp::Ordering::Greater => p[(i, j)],
                core::cmp::Ordering::Equal => p[(i, i)] * half,
                core::cmp::Ordering::Less => S::zero(),
            });
            // L⁻ᵀ Φ L⁻¹, by two triangular solves.
            let s = lower_transpose_solve(&l, &phi);
            let s = transposed(&lower_transpose_solve(&l, &transposed(&s)));
            (shaped(&s, |i, j| (s[(i, j)] + s[(j, i)]) * half),)
        })
    }
    fn __ad_forward_l(&self) -> OMatrix<S, D, D> {
        self.l.clone()
    }

    // det A = Π Lⱼⱼ²: Ā = c̄ det A · A⁻¹ (symmetric).
    fn __ad_reverse_determinant(&self) -> (S, impl FnOnce(S) -> (OMatrix<S, D, D>,) + use<S, D>) {
        let det = self.__ad_forward_determinant();
        let factor = self.clone();
        (det, move |c: S| (scaled(&factor.inverse(), c * det),))
    }
    fn __ad_forward_determinant(&self) -> S {
        let product = (0..self.l.nrows()).fold(S::one(), |product, i| product * self.l[(i, i)]);
        product * product
    }
}

/// `L⁻ᵀ x` for a lower-triangular `L`: `Lᵀ y = x`, by back substitution.
fn lower_transpose_solve<S: Scalar, D: Dim>(
    l: &OMatrix<S, D, D>,
    x: &OMatrix<S, D, D>,
) -> OMatrix<S, D, D>
where
    DefaultAllocator: Allocator<D, D>,
{
    let n = l.nrows();
    let mut y = x.clone();
    for column in 0..n {
        for i in (0..n).rev() {
            let mut sum = y[(i, column)];
            for k in i + 1..n {
                sum -= l[(k, i)] * y[(k, column)];
            }
            y[(i, column)] = sum / l[(i, i)];
        }
    }
    y
}

// x = A⁻¹ b: b̄ = A⁻¹ x̄ (A symmetric), Ā = −b̄ xᵀ.
impl<S: Scalar, D: Dim, C: Dim> LinalgSolve<OMatrix<S, D, C>> for Cholesky<S, D>
where
    DefaultAllocator: Allocator<D, D> + Allocator<D, C>,
{
    fn __ad_reverse_solve(
        &self,
        b: &OMatrix<S, D, C>,
    ) -> (
        OMatrix<S, D, C>,
        impl FnOnce(OMatrix<S, D, C>) -> (OMatrix<S, D, D>, OMatrix<S, D, C>) + use<S, D, C>,
    ) {
        let x = self.solve(b);
        let (factor, kept) = (self.clone(), x.clone());
        (x, move |c: OMatrix<S, D, C>| {
            let db = factor.solve(&c);
            let da = product_transpose(&db, &kept).negate();
            (da, db)
        })
    }
    fn __ad_forward_solve(&self, b: &OMatrix<S, D, C>) -> OMatrix<S, D, C> {
        self.solve(b)
    }
}

/// The shape of a matrix of `length` elements, from its type's static dimensions.
fn shape_of_length<R: Dim, C: Dim>(length: usize) -> (R, C) {
    let (rows, columns) = match (R::try_to_usize(), C::try_to_usize()) {
        (Some(rows), Some(columns)) => (rows, columns),
        (Some(rows), None) => (rows, length / rows.max(1)),
        (None, Some(columns)) => (length / columns.max(1), columns),
        (None, None) => panic!("a dynamically sized matrix needs its number of rows and columns"),
    };
    assert_eq!(
        rows * columns,
        length,
        "the number of elements does not match the matrix's shape"
    );
    (R::from_usize(rows), C::from_usize(columns))
}

/// `m`'s elements in column-major order (nalgebra's storage order).
fn column_major<S: Scalar, R: Dim, C: Dim>(m: &OMatrix<S, R, C>) -> Vec<S>
where
    DefaultAllocator: Allocator<R, C>,
{
    m.iter().copied().collect()
}

/// `m`'s elements row by row.
fn row_major<S: Scalar, R: Dim, C: Dim>(m: &OMatrix<S, R, C>) -> Vec<S>
where
    DefaultAllocator: Allocator<R, C>,
{
    (0..m.nrows())
        .flat_map(|i| (0..m.ncols()).map(move |j| (i, j)))
        .map(|index| m[index])
        .collect()
}

fn from_row_major<S: Scalar, R: Dim, C: Dim>(
    rows: R,
    columns: C,
    elements: &[S],
) -> OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    let width = columns.value();
    assert_eq!(
        rows.value() * width,
        elements.len(),
        "the number of elements does not match the matrix's shape"
    );
    OMatrix::from_fn_generic(rows, columns, |i, j| elements[i * width + j])
}

fn from_column_major<S: Scalar, R: Dim, C: Dim>(
    rows: R,
    columns: C,
    elements: &[S],
) -> OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    let height = rows.value();
    assert_eq!(
        height * columns.value(),
        elements.len(),
        "the number of elements does not match the matrix's shape"
    );
    OMatrix::from_fn_generic(rows, columns, |i, j| elements[j * height + i])
}

fn sum_of<S: Scalar, R: Dim, C: Dim>(m: &OMatrix<S, R, C>) -> S
where
    DefaultAllocator: Allocator<R, C>,
{
    m.iter().fold(S::zero(), |sum, x| sum + *x)
}

// Each constructor's pullback gives the cotangent's elements back in the order they came.
impl<S: Scalar, R: Dim, C: Dim> LinalgConstruct<S> for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    fn __ad_reverse_new_1<const N: usize>(
        elements: [S; N],
    ) -> (Self, impl FnOnce(Self) -> ([S; N],) + use<S, R, C, N>) {
        (Self::__ad_forward_new_1(elements), |c: Self| {
            let elements = row_major(&c);
            (core::array::from_fn(|i| elements[i]),)
        })
    }
    fn __ad_forward_new_1<const N: usize>(elements: [S; N]) -> Self {
        let (rows, columns) = shape_of_length::<R, C>(N);
        from_row_major(rows, columns, &elements)
    }

    fn __ad_reverse_from_vec_1(
        elements: Vec<S>,
    ) -> (Self, impl FnOnce(Self) -> (Vec<S>,) + use<S, R, C>) {
        (Self::__ad_forward_from_vec_1(elements), |c: Self| {
            (column_major(&c),)
        })
    }
    fn __ad_forward_from_vec_1(elements: Vec<S>) -> Self {
        let (rows, columns) = shape_of_length::<R, C>(elements.len());
        from_column_major(rows, columns, &elements)
    }
    fn __ad_reverse_from_vec_3(
        rows: usize,
        columns: usize,
        elements: Vec<S>,
    ) -> (Self, impl FnOnce(Self) -> ((), (), Vec<S>) + use<S, R, C>) {
        (
            Self::__ad_forward_from_vec_3(rows, columns, elements),
            |c: Self| ((), (), column_major(&c)),
        )
    }
    fn __ad_forward_from_vec_3(rows: usize, columns: usize, elements: Vec<S>) -> Self {
        from_column_major(R::from_usize(rows), C::from_usize(columns), &elements)
    }

    fn __ad_reverse_from_column_slice_1(
        elements: &[S],
    ) -> (Self, impl FnOnce(Self) -> (Vec<S>,) + use<S, R, C>) {
        (
            Self::__ad_forward_from_column_slice_1(elements),
            |c: Self| (column_major(&c),),
        )
    }
    fn __ad_forward_from_column_slice_1(elements: &[S]) -> Self {
        let (rows, columns) = shape_of_length::<R, C>(elements.len());
        from_column_major(rows, columns, elements)
    }
    fn __ad_reverse_from_column_slice_3(
        rows: usize,
        columns: usize,
        elements: &[S],
    ) -> (Self, impl FnOnce(Self) -> ((), (), Vec<S>) + use<S, R, C>) {
        let value = Self::__ad_forward_from_column_slice_3(rows, columns, elements);
        (value, |c: Self| ((), (), column_major(&c)))
    }
    fn __ad_forward_from_column_slice_3(rows: usize, columns: usize, elements: &[S]) -> Self {
        from_column_major(R::from_usize(rows), C::from_usize(columns), elements)
    }

    fn __ad_reverse_from_row_slice_1(
        elements: &[S],
    ) -> (Self, impl FnOnce(Self) -> (Vec<S>,) + use<S, R, C>) {
        (Self::__ad_forward_from_row_slice_1(elements), |c: Self| {
            (row_major(&c),)
        })
    }
    fn __ad_forward_from_row_slice_1(elements: &[S]) -> Self {
        let (rows, columns) = shape_of_length::<R, C>(elements.len());
        from_row_major(rows, columns, elements)
    }
    fn __ad_reverse_from_row_slice_3(
        rows: usize,
        columns: usize,
        elements: &[S],
    ) -> (Self, impl FnOnce(Self) -> ((), (), Vec<S>) + use<S, R, C>) {
        let value = Self::__ad_forward_from_row_slice_3(rows, columns, elements);
        (value, |c: Self| ((), (), row_major(&c)))
    }
    fn __ad_forward_from_row_slice_3(rows: usize, columns: usize, elements: &[S]) -> Self {
        from_row_major(R::from_usize(rows), C::from_usize(columns), elements)
    }

    fn __ad_reverse_from_element_1(element: S) -> (Self, impl FnOnce(Self) -> (S,) + use<S, R, C>) {
        (Self::__ad_forward_from_element_1(element), |c: Self| {
            (sum_of(&c),)
        })
    }
    fn __ad_forward_from_element_1(element: S) -> Self {
        let rows = R::try_to_usize().unwrap_or(0);
        let columns = C::try_to_usize().unwrap_or(0);
        let (rows, columns) = shape_of_length::<R, C>(rows * columns);
        OMatrix::from_fn_generic(rows, columns, |_, _| element)
    }
    fn __ad_reverse_from_element_2(
        length: usize,
        element: S,
    ) -> (Self, impl FnOnce(Self) -> ((), S) + use<S, R, C>) {
        (
            Self::__ad_forward_from_element_2(length, element),
            |c: Self| ((), sum_of(&c)),
        )
    }
    fn __ad_forward_from_element_2(length: usize, element: S) -> Self {
        let (rows, columns) = shape_of_length::<R, C>(length);
        OMatrix::from_fn_generic(rows, columns, |_, _| element)
    }
    fn __ad_reverse_from_element_3(
        rows: usize,
        columns: usize,
        element: S,
    ) -> (Self, impl FnOnce(Self) -> ((), (), S) + use<S, R, C>) {
        let value = Self::__ad_forward_from_element_3(rows, columns, element);
        (value, |c: Self| ((), (), sum_of(&c)))
    }
    fn __ad_forward_from_element_3(rows: usize, columns: usize, element: S) -> Self {
        OMatrix::from_fn_generic(R::from_usize(rows), C::from_usize(columns), |_, _| element)
    }

    fn __ad_reverse_zeros_0() -> (Self, fn(Self) -> ()) {
        (Self::__ad_forward_zeros_0(), |_| ())
    }
    fn __ad_reverse_zeros_1(length: usize) -> (Self, fn(Self) -> ((),)) {
        (Self::__ad_forward_zeros_1(length), |_| ((),))
    }
    fn __ad_reverse_zeros_2(rows: usize, columns: usize) -> (Self, fn(Self) -> ((), ())) {
        (Self::__ad_forward_zeros_2(rows, columns), |_| ((), ()))
    }
    fn __ad_reverse_identity_0() -> (Self, fn(Self) -> ()) {
        (Self::__ad_forward_identity_0(), |_| ())
    }
    fn __ad_reverse_identity_2(rows: usize, columns: usize) -> (Self, fn(Self) -> ((), ())) {
        (Self::__ad_forward_identity_2(rows, columns), |_| ((), ()))
    }
    fn __ad_forward_zeros_0() -> Self {
        Self::__ad_forward_from_element_1(S::zero())
    }
    fn __ad_forward_zeros_1(length: usize) -> Self {
        Self::__ad_forward_from_element_2(length, S::zero())
    }
    fn __ad_forward_zeros_2(rows: usize, columns: usize) -> Self {
        Self::__ad_forward_from_element_3(rows, columns, S::zero())
    }
    fn __ad_forward_identity_0() -> Self {
        let ones = Self::__ad_forward_zeros_0();
        shaped(&ones, |i, j| if i == j { S::one() } else { S::zero() })
    }
    fn __ad_forward_identity_2(rows: usize, columns: usize) -> Self {
        let ones = Self::__ad_forward_zeros_2(rows, columns);
        shaped(&ones, |i, j| if i == j { S::one() } else { S::zero() })
    }
}

/// A `_jvp` function's vector or matrix parameter and its tangent, paired into dual numbers.
impl<S: Scalar, R: Dim, C: Dim> Seed for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Dual = OMatrix<Dual<S>, R, C>;
    fn seed(self, tangent: Self) -> Self::Dual {
        (&self).seed(&tangent)
    }
    fn constant(self) -> Self::Dual {
        (&self).constant()
    }
}

impl<S: Scalar, R: Dim, C: Dim> Seed for &OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Dual = OMatrix<Dual<S>, R, C>;
    fn seed(self, tangent: Self) -> Self::Dual {
        assert_eq!(
            self.shape(),
            tangent.shape(),
            "a tangent must have the shape of its value"
        );
        let (rows, columns) = self.shape_generic();
        OMatrix::from_fn_generic(rows, columns, |i, j| {
            Dual::new(self[(i, j)], tangent[(i, j)])
        })
    }
    fn constant(self) -> Self::Dual {
        let (rows, columns) = self.shape_generic();
        OMatrix::from_fn_generic(rows, columns, |i, j| Dual::constant(self[(i, j)]))
    }
}

/// Each rule against its own value at dual numbers: the pullback is the transpose of the
/// derivative the dual numbers carry, `⟨c̄, J ẋ⟩ = ⟨Jᵀ c̄, ẋ⟩` (the dot-product test).
#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, DVector, Matrix2x3, Matrix3, Matrix3x2, Matrix4, Vector3};

    type D = Dual<f64>;

    /// A fixed, irregular sequence of numbers in [-1, 1].
    fn numbers(seed: u64) -> impl FnMut() -> f64 {
        let mut state = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        }
    }

    fn random<R: Dim, C: Dim>(like: &OMatrix<f64, R, C>, seed: u64) -> OMatrix<f64, R, C>
    where
        DefaultAllocator: Allocator<R, C>,
    {
        let mut next = numbers(seed);
        shaped(like, |_, _| next())
    }

    fn seeded<R: Dim, C: Dim>(x: &OMatrix<f64, R, C>, dx: &OMatrix<f64, R, C>) -> OMatrix<D, R, C>
    where
        DefaultAllocator: Allocator<R, C>,
    {
        x.seed(dx)
    }

    fn tangent<R: Dim, C: Dim>(y: &OMatrix<D, R, C>) -> OMatrix<f64, R, C>
    where
        DefaultAllocator: Allocator<R, C>,
    {
        let (rows, columns) = y.shape_generic();
        OMatrix::from_fn_generic(rows, columns, |i, j| y[(i, j)].tangent)
    }

    fn close(a: f64, b: f64) {
        assert!(
            (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs())),
            "the dot-product test fails: {a} and {b}"
        );
    }

    /// A unary rule to a float: `ẏ = J ẋ` from the duals, `x̄ = Jᵀ ȳ` from the pullback.
    fn unary_to_float<R: Dim, C: Dim, P: FnOnce(f64) -> (OMatrix<f64, R, C>,)>(
        x: OMatrix<f64, R, C>,
        at_duals: impl Fn(&OMatrix<D, R, C>) -> D,
        reverse: impl Fn(&OMatrix<f64, R, C>) -> (f64, P),
    ) where
        DefaultAllocator: Allocator<R, C>,
    {
        let dx = random(&x, 7);
        let y = at_duals(&seeded(&x, &dx));
        let (value, pullback) = reverse(&x);
        assert_eq!(value, y.value);
        let cotangent = 0.7;
        let (dx_bar,) = pullback(cotangent);
        close(cotangent * y.tangent, dot(&dx_bar, &dx));
    }

    #[test]
    fn reductions_to_a_float() {
        let x = random(&DMatrix::<f64>::zeros(3, 4), 1);
        let v = random(&Vector3::<f64>::zeros(), 2);
        let m = random(&Matrix3::<f64>::zeros(), 3);
        let m4 = random(&Matrix4::<f64>::zeros(), 4);
        unary_to_float(
            x.clone(),
            |x| x.__ad_forward_norm(),
            |x| x.__ad_reverse_norm(),
        );
        unary_to_float(
            x.clone(),
            |x| x.__ad_forward_norm_squared(),
            |x| x.__ad_reverse_norm_squared(),
        );
        unary_to_float(
            x.clone(),
            |x| x.__ad_forward_sum(),
            |x| x.__ad_reverse_sum(),
        );
        unary_to_float(v, |x| x.__ad_forward_norm(), |x| x.__ad_reverse_norm());
        let other = random(&x, 5);
        unary_to_float(
            x.clone(),
            |x| x.__ad_forward_dot(&other.map(D::constant)),
            |x| {
                let (value, pullback) = x.__ad_reverse_dot(&other);
                (value, move |c| (pullback(c).0,))
            },
        );
        for m in [m, m * m, m.transpose() * m] {
            unary_to_float(
                m,
                |m| m.__ad_forward_determinant(),
                |m| m.__ad_reverse_determinant(),
            );
            unary_to_float(m, |m| m.__ad_forward_trace(), |m| m.__ad_reverse_trace());
        }
        unary_to_float(
            m4,
            |m| m.__ad_forward_determinant(),
            |m| m.__ad_reverse_determinant(),
        );
        // A singular matrix: the cofactors still give the derivative.
        let singular = Matrix3::new(1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 0.5, -1.0, 2.0);
        unary_to_float(
            singular,
            |m| m.__ad_forward_determinant(),
            |m| m.__ad_reverse_determinant(),
        );
        let singular = Matrix4::new(
            1.0, 2.0, 0.0, 1.0, 0.0, 1.0, 3.0, 2.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 1.0,
        );
        assert_eq!(determinant(&singular), 0.0);
        unary_to_float(
            singular,
            |m| m.__ad_forward_determinant(),
            |m| m.__ad_reverse_determinant(),
        );
    }

    /// A rule from matrices to a matrix, its inputs seeded along `tangents`.
    fn matrix_rule<R: Dim, C: Dim>(
        y: &OMatrix<D, R, C>,
        value: &OMatrix<f64, R, C>,
        adjoints_dot_tangents: impl FnOnce(&OMatrix<f64, R, C>) -> f64,
    ) where
        DefaultAllocator: Allocator<R, C>,
    {
        let primal = shaped(value, |i, j| y[(i, j)].value);
        assert_eq!(&primal, value);
        let cotangent = random(value, 11);
        close(
            dot(&cotangent, &tangent(y)),
            adjoints_dot_tangents(&cotangent),
        );
    }

    #[test]
    fn element_wise_and_linear_rules() {
        let a = random(&DMatrix::<f64>::zeros(2, 3), 1);
        let b = random(&a, 2);
        let (da, db) = (random(&a, 3), random(&a, 4));
        let (ad, bd) = (seeded(&a, &da), seeded(&b, &db));
        let (k, dk) = (0.8, -0.3);
        let kd = Dual::new(k, dk);

        let (value, pullback) = a.__ad_reverse_add(b.clone());
        matrix_rule(&ad.__ad_forward_add(bd.clone()), &value, |c| {
            let (x, y) = pullback(c.clone());
            dot(&x, &da) + dot(&y, &db)
        });
        let (value, pullback) = a.__ad_reverse_sub(b.clone());
        matrix_rule(&ad.__ad_forward_sub(bd.clone()), &value, |c| {
            let (x, y) = pullback(c.clone());
            dot(&x, &da) + dot(&y, &db)
        });
        let (value, pullback) = a.__ad_reverse_neg();
        matrix_rule(&ad.__ad_forward_neg(), &value, |c| {
            dot(&pullback(c.clone()).0, &da)
        });
        let (value, pullback) = a.__ad_reverse_component_mul(&b);
        matrix_rule(&ad.__ad_forward_component_mul(&bd), &value, |c| {
            let (x, y) = pullback(c.clone());
            dot(&x, &da) + dot(&y, &db)
        });
        let (value, pullback) = a.__ad_reverse_component_div(&b);
        matrix_rule(&ad.__ad_forward_component_div(&bd), &value, |c| {
            let (x, y) = pullback(c.clone());
            dot(&x, &da) + dot(&y, &db)
        });
        let (value, pullback) = a.__ad_reverse_scale(k);
        matrix_rule(&ad.__ad_forward_scale(kd), &value, |c| {
            let (x, y) = pullback(c.clone());
            dot(&x, &da) + y * dk
        });
        let (value, pullback) = LinalgMul::__ad_reverse_mul(&a, k);
        matrix_rule(&LinalgMul::__ad_forward_mul(&ad, kd), &value, |c| {
            let (x, y) = pullback(c.clone());
            dot(&x, &da) + y * dk
        });
        let (value, pullback) = a.__ad_reverse_div(k);
        matrix_rule(&ad.__ad_forward_div(kd), &value, |c| {
            let (x, y) = pullback(c.clone());
            dot(&x, &da) + y * dk
        });
        // The transpose has the other shape.
        let (value, pullback) = a.__ad_reverse_transpose();
        let cotangent = random(&value, 12);
        close(
            dot(&cotangent, &tangent(&ad.__ad_forward_transpose())),
            dot(&pullback(cotangent).0, &da),
        );
    }

    #[test]
    fn products_cross_and_inverse() {
        // 3×2 times 2×3, static shapes; dynamic ones of the same sizes.
        let a = random(&Matrix3x2::<f64>::zeros(), 1);
        let b = random(&Matrix2x3::<f64>::zeros(), 2);
        let (da, db) = (random(&a, 3), random(&b, 4));
        let (value, pullback) = LinalgMul::__ad_reverse_mul(&a, b);
        let y = LinalgMul::__ad_forward_mul(&seeded(&a, &da), seeded(&b, &db));
        matrix_rule(&y, &value, |c| {
            let (x, z) = pullback(*c);
            dot(&x, &da) + dot(&z, &db)
        });
        let (ad, bd) = (
            DMatrix::from_column_slice(3, 2, a.as_slice()),
            DMatrix::from_column_slice(2, 3, b.as_slice()),
        );
        let (dad, dbd) = (
            DMatrix::from_column_slice(3, 2, da.as_slice()),
            DMatrix::from_column_slice(2, 3, db.as_slice()),
        );
        let (value_d, pullback) = LinalgMul::__ad_reverse_mul(&ad, bd.clone());
        assert_eq!(value_d.as_slice(), value.as_slice());
        let y = LinalgMul::__ad_forward_mul(&seeded(&ad, &dad), seeded(&bd, &dbd));
        matrix_rule(&y, &value_d, |c| {
            let (x, z) = pullback(c.clone());
            dot(&x, &dad) + dot(&z, &dbd)
        });
        // A matrix times a vector.
        let v = DVector::from_vec(vec![0.3, -1.2]);
        let dv = DVector::from_vec(vec![0.5, 0.25]);
        let (value, pullback) = LinalgMul::__ad_reverse_mul(&ad, v.clone());
        let y = LinalgMul::__ad_forward_mul(&seeded(&ad, &dad), seeded(&v, &dv));
        matrix_rule(&y, &value, |c| {
            let (x, z) = pullback(c.clone());
            dot(&x, &dad) + dot(&z, &dv)
        });

        let (u, w) = (
            random(&Vector3::<f64>::zeros(), 5),
            random(&Vector3::<f64>::zeros(), 6),
        );
        let (du, dw) = (random(&u, 7), random(&w, 8));
        let (value, pullback) = u.__ad_reverse_cross(&w);
        let y = seeded(&u, &du).__ad_forward_cross(&seeded(&w, &dw));
        matrix_rule(&y, &value, |c| {
            let (x, z) = pullback(*c);
            dot(&x, &du) + dot(&z, &dw)
        });

        for m in [
            random(&DMatrix::<f64>::zeros(2, 2), 9) + DMatrix::identity(2, 2) * 2.0,
            random(&DMatrix::<f64>::zeros(3, 3), 10) + DMatrix::identity(3, 3) * 2.0,
            random(&DMatrix::<f64>::zeros(5, 5), 11) + DMatrix::identity(5, 5) * 2.0,
        ] {
            let dm = random(&m, 12);
            let (value, pullback) = m.__ad_reverse_try_inverse();
            let value = value.expect("invertible");
            let expected = m.clone().try_inverse().expect("invertible");
            assert!((&value - expected).norm() < 1e-12);
            let y = seeded(&m, &dm)
                .__ad_forward_try_inverse()
                .expect("invertible");
            matrix_rule(&y, &value, |c| dot(&pullback(Some(c.clone())).0, &dm));
        }
        let singular = Matrix3::new(1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 0.5, -1.0, 2.0);
        assert!(singular.__ad_forward_try_inverse().is_none());
    }

    /// The Cholesky rules through the factorization's own pullback: a perturbation of the
    /// lower triangle (what the factorization reads) against the adjoint it gives back.
    #[test]
    fn cholesky_solve_factor_and_determinant() {
        let root = random(&DMatrix::<f64>::zeros(4, 4), 21);
        let a = &root * root.transpose() + DMatrix::identity(4, 4) * 4.0;
        let lower = |m: DMatrix<f64>| shaped(&m, |i, j| if i >= j { m[(i, j)] } else { 0.0 });
        let da = lower(random(&a, 22));
        let factor_at_duals = seeded(&a, &da)
            .__ad_forward_cholesky()
            .expect("positive definite");
        let factor = |a: &DMatrix<f64>| {
            let (factor, pullback) = a.__ad_reverse_cholesky();
            (factor.expect("positive definite"), pullback)
        };

        let b = random(&DMatrix::<f64>::zeros(4, 2), 23);
        let db = random(&b, 24);
        let (cholesky, pullback) = factor(&a);
        let (x, solve_pullback) = cholesky.__ad_reverse_solve(&b);
        let expected = a.clone().cholesky().expect("positive definite").solve(&b);
        assert!((&x - expected).norm() < 1e-12);
        let y = factor_at_duals.__ad_forward_solve(&seeded(&b, &db));
        matrix_rule(&y, &x, |c| {
            let (g, b_bar) = solve_pullback(c.clone());
            let (a_bar,) = pullback(Some(g));
            dot(&a_bar, &da) + dot(&b_bar, &db)
        });

        let (cholesky, pullback) = factor(&a);
        let (l, l_pullback) = cholesky.__ad_reverse_l();
        let expected = a.clone().cholesky().expect("positive definite").l();
        assert!((&l - expected).norm() < 1e-12);
        matrix_rule(&factor_at_duals.__ad_forward_l(), &l, |c| {
            let (g,) = l_pullback(c.clone());
            dot(&pullback(Some(g)).0, &da)
        });

        let (cholesky, pullback) = factor(&a);
        let (det, det_pullback) = cholesky.__ad_reverse_determinant();
        let at_duals = factor_at_duals.__ad_forward_determinant();
        assert!((det - a.determinant()).abs() < 1e-9 * det.abs());
        let (g,) = det_pullback(0.7);
        close(0.7 * at_duals.tangent, dot(&pullback(Some(g)).0, &da));

        let not_positive = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 1.0]);
        assert!(not_positive.__ad_forward_cholesky().is_none());
    }
}
