//! Derivatives the user gives for functions the macros cannot see into (a special function
//! from `libm`, a call into C, a solver): written once with [`#[rule]`](crate::rule), as the
//! runtime's own [`rules`](crate::rules) are, and used by both modes.
//!
//! ```
//! use ad_runtime::{forward, reverse, rule};
//!
//! /// The derivative of `softplus`, itself differentiable (so second derivatives work too).
//! #[forward]
//! fn logistic(x: f64) -> f64 {
//!     1.0 / (1.0 + (-x).exp())
//! }
//!
//! /// `ln(1 + e^x)` computed as a library would, with its derivative given.
//! #[rule(derivative = logistic)]
//! fn softplus(x: f64) -> f64 {
//!     if x > 30.0 { x } else { x.exp().ln_1p() }
//! }
//!
//! #[forward]
//! #[reverse]
//! fn loss(w: f64, x: f64) -> f64 {
//!     softplus(w * x) - 0.5 * w
//! }
//!
//! let (_, dw) = loss_grad(0.3, 2.0);
//! let (_, tangent) = loss_jvp(0.3, 2.0, 1.0, 0.0);
//! assert!((dw.0 - (2.0 * logistic(0.6) - 0.5)).abs() < 1e-15);
//! assert!((tangent - dw.0).abs() < 1e-15);
//! ```

use crate::Scalar;

/// A function of `N` floats of type `F` with its partial derivatives: what `#[rule]`
/// implements for the hidden type named like the function.
pub trait Rule<F, const N: usize> {
    /// The function at the base float.
    fn value(args: [F; N]) -> F;
    /// Its partial derivatives at `args`, at any scalar type (a dual number's value, for the
    /// derivatives of a derivative).
    fn partials<S: Scalar<Base = F>>(args: [S; N]) -> [S; N];
}

/// A partial derivative given as a plain function of the base float, which has no derivative
/// of its own: taken at the base float only. At a dual number (a second derivative through the
/// rule) it panics, saying which rule needs a differentiable derivative.
#[inline(always)]
pub fn first_order<S: Scalar>(rule: &str, partial: S::Base) -> S {
    if core::any::TypeId::of::<S>() != core::any::TypeId::of::<S::Base>() {
        panic!(
            "the rule of `{rule}` gives its derivative as a plain function, which has no \
             derivative itself: a second derivative through `{rule}` needs the derivative to be \
             annotated (`#[forward]`), generic over its float type, or a `#[rule]` too"
        );
    }
    S::from_base(partial)
}
