//! Adjoint types, chosen by the type of the value: reverse mode's code names no adjoint type
//! itself, so whatever rustc decides a value is, its adjoint follows.
//!
//! | value | adjoint |
//! | --- | --- |
//! | a scalar (`f64`, `f32`, a dual number) | the same scalar |
//! | an integer, `bool`, `char`, `()` | [`NoAdjoint`] (zero-sized: integer code costs nothing) |
//! | a `Vec` or a slice of values | a `Vec` of their adjoints (zero: empty, grown as reached) |
//!
//! ```
//! use ad_runtime::adjoint::{Adjoint, NoAdjoint};
//!
//! let mut d = <f64 as Adjoint>::zero();
//! d.accumulate(2.0);
//! d.accumulate(0.5);
//! assert_eq!(d, 2.5);
//! assert_eq!(core::mem::size_of::<NoAdjoint>(), 0);
//! ```

use crate::Scalar;

/// A cotangent: it has a zero, and contributions to it add up.
pub trait Adjoint: Sized + Clone {
    /// The adjoint no contribution has reached yet.
    fn zero() -> Self;
    /// Adds a contribution (`self += contribution`).
    fn accumulate(&mut self, contribution: Self);
    /// The adjoint of `-x` given that of `x`.
    fn negate(self) -> Self;
}

impl<S: Scalar> Adjoint for S {
    #[inline(always)]
    fn zero() -> Self {
        S::zero()
    }

    #[inline(always)]
    fn accumulate(&mut self, contribution: Self) {
        *self += contribution;
    }

    #[inline(always)]
    fn negate(self) -> Self {
        -self
    }
}

/// The adjoint of data (integers, `bool`, `char`, `()`): nothing to add up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoAdjoint;

impl Adjoint for NoAdjoint {
    #[inline(always)]
    fn zero() -> Self {
        NoAdjoint
    }

    #[inline(always)]
    fn accumulate(&mut self, _: Self) {}

    #[inline(always)]
    fn negate(self) -> Self {
        NoAdjoint
    }
}

/// A container's adjoint starts empty (a symbolic zero) and grows to the length of what
/// reaches it.
impl<T: Adjoint> Adjoint for Vec<T> {
    fn zero() -> Self {
        Vec::new()
    }

    fn accumulate(&mut self, contribution: Self) {
        if self.len() < contribution.len() {
            self.resize(contribution.len(), T::zero());
        }
        for (adjoint, part) in self.iter_mut().zip(contribution) {
            adjoint.accumulate(part);
        }
    }

    fn negate(self) -> Self {
        self.into_iter().map(T::negate).collect()
    }
}
