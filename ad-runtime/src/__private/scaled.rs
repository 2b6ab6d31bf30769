//! Adjoints added in scaled: `adjoint += factor * unit`.
//!
//! A loop that only adds to one float (`s += term(i)`) runs the backward code of each
//! iteration right after its forward code, with a unit cotangent for the sum, into adjoints of
//! its own (`ir::eager_sums` in the macro crate). The backward sweep then adds those, times
//! the sum's cotangent, into the real adjoints: every adjoint type is linear in the cotangent
//! that produced it, so the result is the one the iterations would have given run last first.

use crate::adjoint::{Adjoint, BoxAdjoint, NoAdjoint};
use crate::Scalar;

/// `self += factor * unit`, for an adjoint over the scalar type `S`.
///
/// Every adjoint type of the runtime has it, and `#[derive(Differentiable)]` gives it to the
/// adjoint of a derived type.
///
/// ```
/// use ad_runtime::__private::ir::ScaledAdjoint;
///
/// let mut adjoint = vec![1.0, 2.0];
/// adjoint.accumulate_scaled(&3.0, vec![1.0, 0.5, 2.0]);
/// assert_eq!(adjoint, vec![4.0, 3.5, 6.0]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an adjoint that `#[reverse]` can scale",
    label = "the adjoints of what a summing loop reads are added in scaled by the sum's cotangent",
    note = "derive `Differentiable` for your type, whose adjoint then has `ScaledAdjoint`"
)]
pub trait ScaledAdjoint<S>: Adjoint {
    fn accumulate_scaled(&mut self, factor: &S, unit: Self);
    /// `self *= factor`.
    fn scale(&mut self, factor: &S);
}

/// `adjoint += factor * unit`.
#[inline(always)]
pub fn accumulate_scaled<S, T: ScaledAdjoint<S>>(adjoint: &mut T, factor: &S, unit: T) {
    adjoint.accumulate_scaled(factor, unit);
}

/// `adjoint *= factor`: a unit adjoint that was the real one all along (nothing else had
/// reached it), scaled where it stands. Nothing to do for a factor of exactly one (a dual
/// number's derivatives included: forward over reverse scales by a factor whose value is one
/// and whose tangent is not).
#[inline(always)]
pub fn scale_adjoint<S: Scalar, T: ScaledAdjoint<S>>(adjoint: &mut T, factor: &S) {
    if !(*factor - S::one()).is_zero() {
        adjoint.scale(factor);
    }
}

impl<S: Scalar> ScaledAdjoint<S> for S {
    #[inline(always)]
    fn accumulate_scaled(&mut self, factor: &S, unit: S) {
        *self += *factor * unit;
    }

    #[inline(always)]
    fn scale(&mut self, factor: &S) {
        *self = *factor * *self;
    }
}

impl<S> ScaledAdjoint<S> for NoAdjoint {
    #[inline(always)]
    fn accumulate_scaled(&mut self, _: &S, _: NoAdjoint) {}

    #[inline(always)]
    fn scale(&mut self, _: &S) {}
}

/// An adjoint grown only as far as it was reached is as long as the longer of the two, as
/// `Adjoint::accumulate` makes it.
impl<S, T: ScaledAdjoint<S>> ScaledAdjoint<S> for Vec<T> {
    fn accumulate_scaled(&mut self, factor: &S, unit: Vec<T>) {
        if self.len() < unit.len() {
            self.resize(unit.len(), T::zero());
        }
        for (adjoint, part) in self.iter_mut().zip(unit) {
            adjoint.accumulate_scaled(factor, part);
        }
    }

    fn scale(&mut self, factor: &S) {
        for adjoint in self {
            adjoint.scale(factor);
        }
    }
}

impl<S, T: ScaledAdjoint<S>, const N: usize> ScaledAdjoint<S> for [T; N] {
    fn accumulate_scaled(&mut self, factor: &S, unit: [T; N]) {
        for (adjoint, part) in self.iter_mut().zip(unit) {
            adjoint.accumulate_scaled(factor, part);
        }
    }

    fn scale(&mut self, factor: &S) {
        for adjoint in self {
            adjoint.scale(factor);
        }
    }
}

impl<S, T: ScaledAdjoint<S>> ScaledAdjoint<S> for Option<T> {
    fn accumulate_scaled(&mut self, factor: &S, unit: Option<T>) {
        let Some(unit) = unit else {
            return;
        };
        match self {
            Some(adjoint) => adjoint.accumulate_scaled(factor, unit),
            None => {
                let mut adjoint = T::zero();
                adjoint.accumulate_scaled(factor, unit);
                *self = Some(adjoint);
            }
        }
    }

    fn scale(&mut self, factor: &S) {
        if let Some(adjoint) = self {
            adjoint.scale(factor);
        }
    }
}

impl<S, A: ScaledAdjoint<S>> ScaledAdjoint<S> for BoxAdjoint<A> {
    fn accumulate_scaled(&mut self, factor: &S, unit: BoxAdjoint<A>) {
        self.0.accumulate_scaled(factor, *unit.0);
    }

    fn scale(&mut self, factor: &S) {
        self.0.scale(factor);
    }
}

macro_rules! tuples {
    ($(($($name:ident $index:tt),+))*) => {$(
        impl<S, $($name: ScaledAdjoint<S>),+> ScaledAdjoint<S> for ($($name,)+) {
            fn accumulate_scaled(&mut self, factor: &S, unit: Self) {
                $(self.$index.accumulate_scaled(factor, unit.$index);)+
            }

            fn scale(&mut self, factor: &S) {
                $(self.$index.scale(factor);)+
            }
        }
    )*};
}

for_each_tuple!(tuples);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_sums_of_every_shape() {
        let mut float = 1.0;
        float.accumulate_scaled(&2.0, 3.0);
        assert_eq!(float, 7.0);
        let mut nested = vec![vec![1.0], vec![]];
        nested.accumulate_scaled(&-1.0, vec![vec![1.0, 2.0], vec![3.0], vec![4.0]]);
        assert_eq!(nested, vec![vec![0.0, -2.0], vec![-3.0], vec![-4.0]]);
        let mut array = [1.0, 1.0];
        array.accumulate_scaled(&0.5, [2.0, 4.0]);
        assert_eq!(array, [2.0, 3.0]);
        let mut option: Option<f64> = None;
        option.accumulate_scaled(&2.0, Some(1.5));
        assert_eq!(option, Some(3.0));
        option.accumulate_scaled(&2.0, None);
        assert_eq!(option, Some(3.0));
        let mut tuple = (1.0, NoAdjoint, vec![1.0]);
        tuple.accumulate_scaled(&10.0, (1.0, NoAdjoint, vec![1.0]));
        assert_eq!(tuple, (11.0, NoAdjoint, vec![11.0]));
        let mut boxed = BoxAdjoint(Box::new(1.0));
        boxed.accumulate_scaled(&3.0, BoxAdjoint(Box::new(1.0)));
        assert_eq!(*boxed.0, 4.0);
        let mut scaled = (vec![[1.0, -2.0]], Some(0.5), NoAdjoint);
        scale_adjoint(&mut scaled, &4.0);
        assert_eq!(scaled, (vec![[4.0, -8.0]], Some(2.0), NoAdjoint));
    }
}
