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

mod adjoint;
mod cholesky;
mod construct;
mod differentiable;
mod kernels;
mod rules;
#[cfg(test)]
mod tests;

pub use cholesky::Cholesky;
