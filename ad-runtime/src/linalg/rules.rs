//! The operators and methods of vectors and matrices.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix};

use nalgebra::{Dyn, U1, U3};

use super::kernels::{
    dot, product, product_transpose, scaled, shaped, transpose_product, transposed, zip_with,
};
use crate::__private::linalg::{LinalgCross, LinalgMethods, LinalgMul, LinalgSquare};
use crate::adjoint::{Adjoint, Diff, NoAdjoint};
use crate::Scalar;

impl<S: Scalar, R: Dim, C: Dim> LinalgMethods<S> for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>
        + Allocator<C, R>
        + Allocator<R, U1>
        + Allocator<U1, C>
        + Allocator<R, Dyn>
        + Allocator<Dyn, C>,
{
    type Transposed = OMatrix<S, C, R>;
    type Column = OMatrix<S, R, U1>;
    type Row = OMatrix<S, U1, C>;
    type Columns = OMatrix<S, R, Dyn>;
    type Rows = OMatrix<S, Dyn, C>;

    // A part: its elements' cotangents go back to where they were, zeros elsewhere.
    fn __ad_reverse_column(
        &self,
        j: usize,
    ) -> (
        OMatrix<S, R, U1>,
        impl FnOnce(OMatrix<S, R, U1>) -> (Self, ()) + use<S, R, C>,
    ) {
        let zero = self.zero_like();
        (self.__ad_forward_column(j), move |c: OMatrix<S, R, U1>| {
            (
                shaped(&zero, |r, k| if k == j { c[r] } else { S::zero() }),
                (),
            )
        })
    }
    fn __ad_forward_column(&self, j: usize) -> OMatrix<S, R, U1> {
        assert!(j < self.ncols(), "Matrix slicing out of bounds.");
        OMatrix::from_fn_generic(self.shape_generic().0, U1, |i, _| self[(i, j)])
    }
    fn __ad_reverse_row(
        &self,
        i: usize,
    ) -> (
        OMatrix<S, U1, C>,
        impl FnOnce(OMatrix<S, U1, C>) -> (Self, ()) + use<S, R, C>,
    ) {
        let zero = self.zero_like();
        (self.__ad_forward_row(i), move |c: OMatrix<S, U1, C>| {
            (
                shaped(&zero, |r, k| if r == i { c[k] } else { S::zero() }),
                (),
            )
        })
    }
    fn __ad_forward_row(&self, i: usize) -> OMatrix<S, U1, C> {
        assert!(i < self.nrows(), "Matrix slicing out of bounds.");
        OMatrix::from_fn_generic(U1, self.shape_generic().1, |_, j| self[(i, j)])
    }
    fn __ad_reverse_columns(
        &self,
        j: usize,
        n: usize,
    ) -> (
        OMatrix<S, R, Dyn>,
        impl FnOnce(OMatrix<S, R, Dyn>) -> (Self, (), ()) + use<S, R, C>,
    ) {
        let zero = self.zero_like();
        (
            self.__ad_forward_columns(j, n),
            move |c: OMatrix<S, R, Dyn>| {
                let back = shaped(&zero, |r, k| match (j..j + n).contains(&k) {
                    true => c[(r, k - j)],
                    false => S::zero(),
                });
                (back, (), ())
            },
        )
    }
    fn __ad_forward_columns(&self, j: usize, n: usize) -> OMatrix<S, R, Dyn> {
        assert!(j + n <= self.ncols(), "Matrix slicing out of bounds.");
        OMatrix::from_fn_generic(self.shape_generic().0, Dyn(n), |i, k| self[(i, j + k)])
    }
    fn __ad_reverse_rows(
        &self,
        i: usize,
        n: usize,
    ) -> (
        OMatrix<S, Dyn, C>,
        impl FnOnce(OMatrix<S, Dyn, C>) -> (Self, (), ()) + use<S, R, C>,
    ) {
        let zero = self.zero_like();
        (
            self.__ad_forward_rows(i, n),
            move |c: OMatrix<S, Dyn, C>| {
                let back = shaped(&zero, |r, k| match (i..i + n).contains(&r) {
                    true => c[(r - i, k)],
                    false => S::zero(),
                });
                (back, (), ())
            },
        )
    }
    fn __ad_forward_rows(&self, i: usize, n: usize) -> OMatrix<S, Dyn, C> {
        assert!(i + n <= self.nrows(), "Matrix slicing out of bounds.");
        OMatrix::from_fn_generic(Dyn(n), self.shape_generic().1, |r, k| self[(i + r, k)])
    }
    fn __ad_reverse_as_slice(&self) -> (&[S], impl FnOnce(Vec<S>) -> (Self,) + use<S, R, C>) {
        let zero = self.zero_like();
        (self.as_slice(), move |c: Vec<S>| {
            let mut back = zero;
            for (adjoint, part) in back.as_mut_slice().iter_mut().zip(c) {
                *adjoint = part;
            }
            (back,)
        })
    }
    fn __ad_forward_as_slice(&self) -> &[S] {
        self.as_slice()
    }
    fn __ad_reverse_into_owned(&self) -> (Self, impl FnOnce(Self) -> (Self,) + use<S, R, C>) {
        (self.clone(), |c: Self| (c,))
    }
    fn __ad_forward_into_owned(&self) -> Self {
        self.clone()
    }
    fn __ad_reverse_clone_owned(&self) -> (Self, impl FnOnce(Self) -> (Self,) + use<S, R, C>) {
        (self.clone(), |c: Self| (c,))
    }
    fn __ad_forward_clone_owned(&self) -> Self {
        self.clone()
    }

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

    fn __ad_reverse_magnitude(&self) -> (S, impl FnOnce(S) -> (Self,) + use<S, R, C>) {
        self.__ad_reverse_norm()
    }
    fn __ad_forward_magnitude(&self) -> S {
        self.__ad_forward_norm()
    }
    fn __ad_reverse_magnitude_squared(&self) -> (S, impl FnOnce(S) -> (Self,) + use<S, R, C>) {
        self.__ad_reverse_norm_squared()
    }
    fn __ad_forward_magnitude_squared(&self) -> S {
        self.__ad_forward_norm_squared()
    }

    // Σ aᵢⱼ: āᵢⱼ = c̄.
    fn __ad_reverse_sum(&self) -> (S, impl FnOnce(S) -> (Self,) + use<S, R, C>) {
        let shape = self.shape_generic();
        let sum = self.as_slice().iter().fold(S::zero(), |sum, x| sum + *x);
        (sum, move |c| {
            (OMatrix::from_fn_generic(shape.0, shape.1, |_, _| c),)
        })
    }
    fn __ad_forward_sum(&self) -> S {
        self.as_slice().iter().fold(S::zero(), |sum, x| sum + *x)
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
        let trace = self.__ad_forward_trace();
        (trace, move |c| {
            let identity = OMatrix::from_fn_generic(shape.0, shape.1, |i, j| match i == j {
                true => c,
                false => S::zero(),
            });
            (identity,)
        })
    }
    fn __ad_forward_trace(&self) -> S {
        assert!(
            self.is_square(),
            "Cannot compute the trace of non-square matrix."
        );
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
pub(super) fn determinant<S: Scalar, D: Dim>(a: &OMatrix<S, D, D>) -> S
where
    DefaultAllocator: Allocator<D, D>,
{
    assert!(
        a.is_square(),
        "Unable to compute the determinant of a non-square matrix."
    );
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
    assert!(a.is_square(), "Unable to invert a non-square matrix.");
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
