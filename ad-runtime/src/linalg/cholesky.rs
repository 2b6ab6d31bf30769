//! The Cholesky factorization and its methods.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix};

use super::kernels::{product_transpose, scaled, shaped, transpose_product, transposed};
use crate::__private::linalg::{LinalgCholesky, LinalgFactor, LinalgSolve};
use crate::adjoint::{Adjoint, Diff};
use crate::Scalar;

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
        assert!(a.is_square(), "The input matrix must be square.");
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
