//! `&mut` parameters in reverse mode. `f_vjp` takes the cotangent of such a parameter's final
//! contents in a `&mut` of the parameter's own type, and leaves there the adjoint of its initial
//! contents; the pullback takes and gives them as adjoints (`Vec<S>` for `[S]`). These convert
//! between the two, checking the shape.

use crate::Scalar;

/// A parameter's contents over the scalar type, seen as its adjoint.
pub trait InOut {
    /// The adjoint the pullback takes and gives for it.
    type Adjoint;
    /// The contents, as an adjoint.
    fn to_adjoint(&self) -> Self::Adjoint;
    /// Overwrites the contents with the adjoint's floats (of the same shape, but for the length
    /// of a `Vec`, which a function may have changed: the adjoint is of the initial contents).
    fn set_from(&mut self, adjoint: Self::Adjoint);
    /// Contents made of the adjoint's floats.
    fn from_adjoint(adjoint: Self::Adjoint) -> Self
    where
        Self: Sized;
}

impl<S: Scalar> InOut for S {
    type Adjoint = S;
    #[inline]
    fn to_adjoint(&self) -> S {
        *self
    }
    #[inline]
    fn set_from(&mut self, adjoint: S) {
        *self = adjoint;
    }
    #[inline]
    fn from_adjoint(adjoint: S) -> S {
        adjoint
    }
}

impl<T: InOut> InOut for [T] {
    type Adjoint = Vec<T::Adjoint>;
    fn to_adjoint(&self) -> Self::Adjoint {
        self.iter().map(InOut::to_adjoint).collect()
    }
    fn set_from(&mut self, adjoint: Self::Adjoint) {
        if adjoint.len() != self.len() {
            crate::__private::shapes_differ("an adjoint and the contents of a `&mut` parameter");
        }
        for (element, adjoint) in self.iter_mut().zip(adjoint) {
            element.set_from(adjoint);
        }
    }
}

impl<T: InOut> InOut for Vec<T> {
    type Adjoint = Vec<T::Adjoint>;
    fn to_adjoint(&self) -> Self::Adjoint {
        self.as_slice().to_adjoint()
    }
    fn set_from(&mut self, adjoint: Self::Adjoint) {
        // A function that pushed or popped leaves the adjoint of the initial length.
        if adjoint.len() != self.len() {
            *self = Self::from_adjoint(adjoint);
            return;
        }
        self.as_mut_slice().set_from(adjoint);
    }
    fn from_adjoint(adjoint: Self::Adjoint) -> Self {
        adjoint.into_iter().map(T::from_adjoint).collect()
    }
}

impl<T: InOut, const N: usize> InOut for [T; N] {
    type Adjoint = [T::Adjoint; N];
    fn to_adjoint(&self) -> Self::Adjoint {
        core::array::from_fn(|index| self[index].to_adjoint())
    }
    fn set_from(&mut self, adjoint: Self::Adjoint) {
        for (element, adjoint) in self.iter_mut().zip(adjoint) {
            element.set_from(adjoint);
        }
    }
    fn from_adjoint(adjoint: Self::Adjoint) -> Self {
        adjoint.map(T::from_adjoint)
    }
}

macro_rules! in_out_tuples {
    ($(($($name:ident $index:tt),+))*) => {$(
        impl<$($name: InOut),+> InOut for ($($name,)+) {
            type Adjoint = ($($name::Adjoint,)+);
            fn to_adjoint(&self) -> Self::Adjoint {
                ($(self.$index.to_adjoint(),)+)
            }
            fn set_from(&mut self, adjoint: Self::Adjoint) {
                $(self.$index.set_from(adjoint.$index);)+
            }
            fn from_adjoint(adjoint: Self::Adjoint) -> Self {
                ($($name::from_adjoint(adjoint.$index),)+)
            }
        }
    )*};
}

in_out_tuples! {
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
}

/// The cotangent of a `&mut` parameter's final contents, given by the caller of `f_vjp` in
/// `cotangent`: it must be shaped as the contents.
pub fn cotangent_in<T>(contents: &T, cotangent: &T) -> <T as crate::adjoint::Diff>::Adjoint
where
    T: crate::adjoint::Diff + InOut<Adjoint = <T as crate::adjoint::Diff>::Adjoint> + ?Sized,
{
    use crate::adjoint::Adjoint as _;
    let adjoint = cotangent.to_adjoint();
    if !contents.zero_like().same_shape(&adjoint) {
        crate::__private::shapes_differ(
            "the cotangent of a `&mut` parameter and its contents (the lengths of the `Vec`s \
             and slices in it)",
        );
    }
    adjoint
}
