//! What generated code needs at run time. Not a public interface: names here may change in any
//! release. Generated code reaches it as `::ad_runtime::__private`.

use core::cell::Cell;

use crate::differentiable::Differentiable;
use crate::{Dual, Scalar};

/// Holds a value whose type the macro cannot see (the result of a call to a function that is
/// not differentiated, a constant), so that method resolution can lift floats into the scalar
/// type of the derivative code while every other type passes through unchanged.
///
/// The by-value impls of [`LiftFloat`] win over the by-reference fallback of [`LiftOther`]
/// during method probing ("autoref specialization"), which works on stable Rust because the
/// probed type is concrete at the call site.
pub struct LiftProbe<T>(Cell<Option<T>>);

impl<T> LiftProbe<T> {
    #[inline(always)]
    pub fn new(value: T) -> Self {
        LiftProbe(Cell::new(Some(value)))
    }

    #[inline(always)]
    fn take(&self) -> T {
        match self.0.take() {
            Some(value) => value,
            None => unreachable!("a LiftProbe is read once"),
        }
    }
}

/// Lifts a float constant (derivative zero) into the derivative code's scalar type.
pub trait LiftFloat {
    fn __ad_lift<S: Scalar>(self) -> S;
}

impl LiftFloat for LiftProbe<f64> {
    #[inline(always)]
    fn __ad_lift<S: Scalar>(self) -> S {
        S::from_f64(self.take())
    }
}

impl LiftFloat for LiftProbe<f32> {
    #[inline(always)]
    fn __ad_lift<S: Scalar>(self) -> S {
        S::from_f32(self.take())
    }
}

/// A float bound by reference (`Cons(head, _)` matched on a `&List` of data binds `&f64`).
impl LiftFloat for LiftProbe<&f64> {
    #[inline(always)]
    fn __ad_lift<S: Scalar>(self) -> S {
        S::from_f64(*self.take())
    }
}

impl LiftFloat for LiftProbe<&f32> {
    #[inline(always)]
    fn __ad_lift<S: Scalar>(self) -> S {
        S::from_f32(*self.take())
    }
}

/// A container of plain floats (`Vec<f64>`, `[f32; N]`, `Vec<[f64; 2]>`) computed from data,
/// as constants of the scalar type: `let d: Vec<f64> = data(n);` in differentiated code.
pub trait LiftElements<S> {
    type Lifted;
    fn lift_elements(self) -> Self::Lifted;
}

impl<S: Scalar> LiftElements<S> for f64 {
    type Lifted = S;
    fn lift_elements(self) -> S {
        S::from_f64(self)
    }
}

impl<S: Scalar> LiftElements<S> for f32 {
    type Lifted = S;
    fn lift_elements(self) -> S {
        S::from_f32(self)
    }
}

/// Nested as deep as the container is (`Vec<[f64; 2]>`, `Vec<Vec<f64>>`).
impl<S: Scalar, T: LiftElements<S>> LiftElements<S> for Vec<T> {
    type Lifted = Vec<T::Lifted>;
    fn lift_elements(self) -> Vec<T::Lifted> {
        self.into_iter().map(T::lift_elements).collect()
    }
}

impl<S: Scalar, T: LiftElements<S>, const N: usize> LiftElements<S> for [T; N] {
    type Lifted = [T::Lifted; N];
    fn lift_elements(self) -> [T::Lifted; N] {
        self.map(T::lift_elements)
    }
}

/// See [`LiftElements`].
pub fn lift_elements<S, T: LiftElements<S>>(plain: T) -> T::Lifted {
    plain.lift_elements()
}

/// Lifts an `Option` of a float constant (`Some(3.0)`, an `Option<f64>` of data) into an
/// `Option` of the scalar type.
pub trait LiftOption {
    fn __ad_lift<S: Scalar>(self) -> Option<S>;
}

impl LiftOption for LiftProbe<Option<f64>> {
    #[inline(always)]
    fn __ad_lift<S: Scalar>(self) -> Option<S> {
        self.take().map(S::from_f64)
    }
}

impl LiftOption for LiftProbe<Option<f32>> {
    #[inline(always)]
    fn __ad_lift<S: Scalar>(self) -> Option<S> {
        self.take().map(S::from_f32)
    }
}

/// Lifts a tuple of float constants (`(2.0_f64).sin_cos()`, a pair returned by a function of
/// data) into a tuple of the scalar type.
pub trait LiftTuple {
    type Lifted<S: Scalar>;
    fn __ad_lift<S: Scalar>(self) -> Self::Lifted<S>;
}

macro_rules! lift_tuples {
    ($float:ty, $from:ident) => {
        impl LiftTuple for LiftProbe<($float, $float)> {
            type Lifted<S: Scalar> = (S, S);
            #[inline(always)]
            fn __ad_lift<S: Scalar>(self) -> (S, S) {
                let (a, b) = self.take();
                (S::$from(a), S::$from(b))
            }
        }

        impl LiftTuple for LiftProbe<($float, $float, $float)> {
            type Lifted<S: Scalar> = (S, S, S);
            #[inline(always)]
            fn __ad_lift<S: Scalar>(self) -> (S, S, S) {
                let (a, b, c) = self.take();
                (S::$from(a), S::$from(b), S::$from(c))
            }
        }
    };
}

lift_tuples!(f64, from_f64);
lift_tuples!(f32, from_f32);

/// An argument of a plain function called on data alone in reverse-mode code: a scalar that
/// carries no derivative (a constant of the scalar type) goes back to its float type; any other
/// value passes unchanged.
pub struct UnliftProbe<T>(Cell<Option<T>>);

impl<T> UnliftProbe<T> {
    #[inline(always)]
    pub fn new(value: T) -> Self {
        UnliftProbe(Cell::new(Some(value)))
    }

    #[inline(always)]
    fn take(&self) -> T {
        match self.0.take() {
            Some(value) => value,
            None => unreachable!("an UnliftProbe is read once"),
        }
    }
}

/// See [`UnliftProbe`]: a scalar to its float type.
pub trait UnliftScalar<S: Scalar> {
    fn __ad_plain(self) -> S::Base;
}

impl<S: Scalar> UnliftScalar<S> for UnliftProbe<S> {
    #[inline(always)]
    fn __ad_plain(self) -> S::Base {
        self.take().primal()
    }
}

/// See [`UnliftProbe`]: anything else, unchanged.
pub trait UnliftOther<T> {
    fn __ad_plain(&self) -> T;
}

impl<T> UnliftOther<T> for UnliftProbe<T> {
    #[inline(always)]
    fn __ad_plain(&self) -> T {
        self.take()
    }
}

/// See [`UnliftProbe`]: what a plain function called on data borrows (`&f` of `let f:
/// Vec<f64> = data(3)`, lifted), with its floats unlifted where they were lifted: an owned copy
/// of their float type, which the call borrows again (`&*`), as `&Vec<f64>` (coerced to
/// `&[f64]` where that is the parameter's type), `&[f64; N]` or `&f64`.
pub trait UnliftBorrowed {
    type Plain;
    fn __ad_plain_borrowed(self) -> Self::Plain;
}

/// See [`UnliftBorrowed`]: a borrow of anything else, passed on as it is.
pub trait UnliftBorrowedOther<T> {
    fn __ad_plain_borrowed(&self) -> T;
}

impl<T> UnliftBorrowedOther<T> for UnliftProbe<T> {
    #[inline(always)]
    fn __ad_plain_borrowed(&self) -> T {
        self.take()
    }
}

/// A value unlifted for a plain call ([`UnliftBorrowed`]), dereferencing to it.
pub struct Unlifted<T>(T);

impl<T> core::ops::Deref for Unlifted<T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<S: Scalar> UnliftBorrowed for UnliftProbe<&S> {
    type Plain = Unlifted<S::Base>;
    fn __ad_plain_borrowed(self) -> Self::Plain {
        Unlifted(self.take().primal())
    }
}

impl<S: Scalar> UnliftBorrowed for UnliftProbe<&Vec<S>> {
    type Plain = Unlifted<Vec<S::Base>>;
    fn __ad_plain_borrowed(self) -> Self::Plain {
        Unlifted(self.take().iter().map(|s| s.primal()).collect())
    }
}

impl<S: Scalar> UnliftBorrowed for UnliftProbe<&[S]> {
    type Plain = Unlifted<Vec<S::Base>>;
    fn __ad_plain_borrowed(self) -> Self::Plain {
        Unlifted(self.take().iter().map(|s| s.primal()).collect())
    }
}

impl<S: Scalar, const N: usize> UnliftBorrowed for UnliftProbe<&[S; N]> {
    type Plain = Unlifted<[S::Base; N]>;
    fn __ad_plain_borrowed(self) -> Self::Plain {
        Unlifted(self.take().map(|s| s.primal()))
    }
}

impl<S: Scalar> UnliftBorrowed for UnliftProbe<&Vec<Vec<S>>> {
    type Plain = Unlifted<Vec<Vec<S::Base>>>;
    fn __ad_plain_borrowed(self) -> Self::Plain {
        Unlifted(
            self.take()
                .iter()
                .map(|row| row.iter().map(|s| s.primal()).collect())
                .collect(),
        )
    }
}

/// Lifts a container of float constants (a `Vec<f64>` returned by a function of data) into
/// one of the scalar type.
pub trait LiftContainer {
    type Lifted<S: Scalar>;
    fn __ad_lift<S: Scalar>(self) -> Self::Lifted<S>;
}

macro_rules! lift_containers {
    ($float:ty) => {
        impl LiftContainer for LiftProbe<Vec<$float>> {
            type Lifted<S: Scalar> = Vec<S>;
            #[inline(always)]
            fn __ad_lift<S: Scalar>(self) -> Vec<S> {
                lift_elements(self.take())
            }
        }

        impl<const N: usize> LiftContainer for LiftProbe<[$float; N]> {
            type Lifted<S: Scalar> = [S; N];
            #[inline(always)]
            fn __ad_lift<S: Scalar>(self) -> [S; N] {
                lift_elements(self.take())
            }
        }

        /// A table of rows (`const RK4_A: [[f64; 4]; 4]`).
        impl<const N: usize, const M: usize> LiftContainer for LiftProbe<[[$float; N]; M]> {
            type Lifted<S: Scalar> = [[S; N]; M];
            #[inline(always)]
            fn __ad_lift<S: Scalar>(self) -> [[S; N]; M] {
                self.take().map(lift_elements)
            }
        }
    };
}

lift_containers!(f64);
lift_containers!(f32);

/// Lifts a constant the code names: a float (`const K: f64`), an array of floats or a table of
/// rows (`const RK4_A: [[f64; 4]; 4]`), so that its items are of the scalar type. A constant's
/// type is written, so this is a trait of its own, beside the lifting of literals (whose type
/// is still to be inferred, which a container impl would leave ambiguous).
pub trait LiftConstant {
    type Lifted<S: Scalar>;
    fn __ad_lift_constant<S: Scalar>(self) -> Self::Lifted<S>;
}

macro_rules! lift_constants {
    ($float:ty) => {
        impl LiftConstant for LiftProbe<$float> {
            type Lifted<S: Scalar> = S;
            #[inline(always)]
            fn __ad_lift_constant<S: Scalar>(self) -> S {
                LiftFloat::__ad_lift(self)
            }
        }

        impl<const N: usize> LiftConstant for LiftProbe<[$float; N]> {
            type Lifted<S: Scalar> = [S; N];
            #[inline(always)]
            fn __ad_lift_constant<S: Scalar>(self) -> [S; N] {
                LiftContainer::__ad_lift(self)
            }
        }

        impl<const N: usize, const M: usize> LiftConstant for LiftProbe<[[$float; N]; M]> {
            type Lifted<S: Scalar> = [[S; N]; M];
            #[inline(always)]
            fn __ad_lift_constant<S: Scalar>(self) -> [[S; N]; M] {
                LiftContainer::__ad_lift(self)
            }
        }
    };
}

lift_constants!(f64);
lift_constants!(f32);

/// A container of plain floats iterated in differentiated code beside values of the scalar
/// type (`self.w.iter()` of a `self` that is data): a copy of its elements as constants of the
/// scalar type, which the iteration borrows.
pub trait LiftBorrowed {
    fn __ad_lift_borrowed<S: Scalar>(self) -> Vec<S>;
}

macro_rules! lift_borrowed {
    ($float:ty, $from:ident) => {
        impl LiftBorrowed for LiftProbe<&Vec<$float>> {
            #[inline(always)]
            fn __ad_lift_borrowed<S: Scalar>(self) -> Vec<S> {
                self.take().iter().map(|x| S::$from(*x)).collect()
            }
        }

        impl LiftBorrowed for LiftProbe<&[$float]> {
            #[inline(always)]
            fn __ad_lift_borrowed<S: Scalar>(self) -> Vec<S> {
                self.take().iter().map(|x| S::$from(*x)).collect()
            }
        }

        impl<const N: usize> LiftBorrowed for LiftProbe<&[$float; N]> {
            #[inline(always)]
            fn __ad_lift_borrowed<S: Scalar>(self) -> Vec<S> {
                self.take().iter().map(|x| S::$from(*x)).collect()
            }
        }

        // A field that is itself a borrow (`struct Model<'a> { w: &'a [f64] }`).
        impl LiftBorrowed for LiftProbe<&&[$float]> {
            #[inline(always)]
            fn __ad_lift_borrowed<S: Scalar>(self) -> Vec<S> {
                self.take().iter().map(|x| S::$from(*x)).collect()
            }
        }

        impl LiftBorrowed for LiftProbe<&&Vec<$float>> {
            #[inline(always)]
            fn __ad_lift_borrowed<S: Scalar>(self) -> Vec<S> {
                self.take().iter().map(|x| S::$from(*x)).collect()
            }
        }

        impl<const N: usize> LiftBorrowed for LiftProbe<&&[$float; N]> {
            #[inline(always)]
            fn __ad_lift_borrowed<S: Scalar>(self) -> Vec<S> {
                self.take().iter().map(|x| S::$from(*x)).collect()
            }
        }
    };
}

lift_borrowed!(f64, from_f64);
lift_borrowed!(f32, from_f32);

/// A container of plain floats zipped with floats carrying derivatives (`w.iter().zip(&data.x)`,
/// `.zip(x)` of a row `x` of data): its items as constants of the scalar type. A borrowed
/// container yields references into the copy `slot` holds, as the original yields references,
/// so that patterns like `|(w, &x)|` still match; a container by value yields values.
pub trait LiftZipped<'a, S> {
    type Items: Iterator;
    fn __ad_lift_zipped(self, slot: &'a mut Vec<S>) -> Self::Items;
}

macro_rules! lift_zipped {
    ($float:ty, $from:ident) => {
        lift_zipped!(@borrowed $float, $from, &Vec<$float>, &[$float], &&Vec<$float>, &&[$float]);

        impl<'a, S: Scalar, const N: usize> LiftZipped<'a, S> for LiftProbe<&[$float; N]> {
            type Items = core::slice::Iter<'a, S>;
            #[inline(always)]
            fn __ad_lift_zipped(self, slot: &'a mut Vec<S>) -> Self::Items {
                slot.extend(self.take().iter().map(|x| S::$from(*x)));
                slot.iter()
            }
        }

        impl<'a, S: Scalar> LiftZipped<'a, S> for LiftProbe<Vec<$float>> {
            type Items = std::vec::IntoIter<S>;
            #[inline(always)]
            fn __ad_lift_zipped(self, _: &'a mut Vec<S>) -> Self::Items {
                let lifted: Vec<S> = self.take().into_iter().map(S::$from).collect();
                lifted.into_iter()
            }
        }

        impl<'a, S: Scalar, const N: usize> LiftZipped<'a, S> for LiftProbe<[$float; N]> {
            type Items = core::array::IntoIter<S, N>;
            #[inline(always)]
            fn __ad_lift_zipped(self, _: &'a mut Vec<S>) -> Self::Items {
                self.take().map(S::$from).into_iter()
            }
        }
    };
    (@borrowed $float:ty, $from:ident, $($container:ty),*) => {$(
        impl<'a, S: Scalar> LiftZipped<'a, S> for LiftProbe<$container> {
            type Items = core::slice::Iter<'a, S>;
            #[inline(always)]
            fn __ad_lift_zipped(self, slot: &'a mut Vec<S>) -> Self::Items {
                slot.extend(self.take().iter().map(|x| S::$from(*x)));
                slot.iter()
            }
        }
    )*};
}

lift_zipped!(f64, from_f64);
lift_zipped!(f32, from_f32);

/// Passes every other zipped value (an iterator, a container of data) through unchanged.
pub trait LiftZippedOther<T> {
    fn __ad_lift_zipped<S>(&self, slot: &mut Vec<S>) -> T;
}

impl<T> LiftZippedOther<T> for LiftProbe<T> {
    #[inline(always)]
    fn __ad_lift_zipped<S>(&self, _: &mut Vec<S>) -> T {
        self.take()
    }
}

/// Passes every other container through unchanged.
pub trait LiftBorrowedOther<T> {
    fn __ad_lift_borrowed<S>(&self) -> T;
}

impl<T> LiftBorrowedOther<T> for LiftProbe<T> {
    #[inline(always)]
    fn __ad_lift_borrowed<S>(&self) -> T {
        self.take()
    }
}

/// Passes every other constant through unchanged.
pub trait LiftConstantOther<T> {
    fn __ad_lift_constant<S>(&self) -> T;
}

impl<T> LiftConstantOther<T> for LiftProbe<T> {
    #[inline(always)]
    fn __ad_lift_constant<S>(&self) -> T {
        self.take()
    }
}

/// Marks a type that derives `Differentiable` (the derive implements it): a value of it made by
/// code that carries no derivatives is lifted to its twin (`LiftDerived`).
pub trait DerivedValue: crate::Differentiable {}

/// Lifts a value of a derived type made from data (`Particle::default()`, `Config::new(3)`)
/// into its twin over the scalar type, every float a constant.
pub trait LiftDerived<T: crate::Differentiable> {
    fn __ad_lift<S: Scalar>(self) -> T::Over<S>;
}

impl<T: DerivedValue> LiftDerived<T> for LiftProbe<T> {
    #[inline(always)]
    fn __ad_lift<S: Scalar>(self) -> T::Over<S> {
        T::map(&self.take().to_over(), &mut |x| S::from_f64(x.to_f64()))
    }
}

/// Passes every non-float value through unchanged.
pub trait LiftOther<T> {
    fn __ad_lift<S>(&self) -> T;
}

impl<T> LiftOther<T> for LiftProbe<T> {
    #[inline(always)]
    fn __ad_lift<S>(&self) -> T {
        self.take()
    }
}

/// The operand of an `as f64` (or `as f32`) cast in differentiated code: a primitive number
/// becomes a constant of the scalar type; a value already of the scalar type stays as it is
/// (the cast is the identity on it, derivative included).
pub struct CastProbe<T>(Cell<Option<T>>);

impl<T> CastProbe<T> {
    #[inline(always)]
    pub fn new(value: T) -> Self {
        CastProbe(Cell::new(Some(value)))
    }

    #[inline(always)]
    fn take(&self) -> T {
        match self.0.take() {
            Some(value) => value,
            None => unreachable!("a CastProbe is read once"),
        }
    }
}

/// Casts a primitive number to a constant of the scalar type.
pub trait CastPrimitive {
    fn __ad_cast<S: Scalar>(self) -> S;
}

macro_rules! cast_primitive {
    ($($t:ty)*) => {$(
        impl CastPrimitive for CastProbe<$t> {
            #[inline(always)]
            fn __ad_cast<S: Scalar>(self) -> S {
                S::from_f64(self.take() as f64)
            }
        }
    )*};
}

cast_primitive!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f64);

impl CastPrimitive for CastProbe<f32> {
    #[inline(always)]
    fn __ad_cast<S: Scalar>(self) -> S {
        S::from_f32(self.take())
    }
}

/// The identity cast of a value already of a scalar type.
pub trait CastScalar<T> {
    fn __ad_cast<S>(&self) -> T;
}

impl<T: Scalar> CastScalar<T> for CastProbe<T> {
    #[inline(always)]
    fn __ad_cast<S>(&self) -> T {
        self.take()
    }
}

/// `e as <integer>` where `e` may be a primitive number or a scalar of derivative code (whose
/// value, without derivative, is cast).
pub trait PrimitiveCast {
    fn __ad_as_i8(self) -> i8;
    fn __ad_as_i16(self) -> i16;
    fn __ad_as_i32(self) -> i32;
    fn __ad_as_i64(self) -> i64;
    fn __ad_as_i128(self) -> i128;
    fn __ad_as_isize(self) -> isize;
    fn __ad_as_u8(self) -> u8;
    fn __ad_as_u16(self) -> u16;
    fn __ad_as_u32(self) -> u32;
    fn __ad_as_u64(self) -> u64;
    fn __ad_as_u128(self) -> u128;
    fn __ad_as_usize(self) -> usize;
}

macro_rules! primitive_cast_methods {
    ($value:ident => $e:expr) => {
        #[inline(always)]
        fn __ad_as_i8(self) -> i8 { let $value = self; $e as i8 }
        #[inline(always)]
        fn __ad_as_i16(self) -> i16 { let $value = self; $e as i16 }
        #[inline(always)]
        fn __ad_as_i32(self) -> i32 { let $value = self; $e as i32 }
        #[inline(always)]
        fn __ad_as_i64(self) -> i64 { let $value = self; $e as i64 }
        #[inline(always)]
        fn __ad_as_i128(self) -> i128 { let $value = self; $e as i128 }
        #[inline(always)]
        fn __ad_as_isize(self) -> isize { let $value = self; $e as isize }
        #[inline(always)]
        fn __ad_as_u8(self) -> u8 { let $value = self; $e as u8 }
        #[inline(always)]
        fn __ad_as_u16(self) -> u16 { let $value = self; $e as u16 }
        #[inline(always)]
        fn __ad_as_u32(self) -> u32 { let $value = self; $e as u32 }
        #[inline(always)]
        fn __ad_as_u64(self) -> u64 { let $value = self; $e as u64 }
        #[inline(always)]
        fn __ad_as_u128(self) -> u128 { let $value = self; $e as u128 }
        #[inline(always)]
        fn __ad_as_usize(self) -> usize { let $value = self; $e as usize }
    };
}

impl<S: Scalar> PrimitiveCast for S {
    primitive_cast_methods!(value => value.to_f64());
}

macro_rules! primitive_cast_integers {
    ($($t:ty)*) => {$(
        impl PrimitiveCast for $t {
            primitive_cast_methods!(value => value);
        }
    )*};
}

primitive_cast_integers!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize bool char);

/// Splits what derivative code returns into the plain value and its tangent.
pub trait DualParts {
    type Primal;
    type Tangent;
    fn split(self) -> (Self::Primal, Self::Tangent);
}

impl<S: Scalar> DualParts for Dual<S> {
    type Primal = S;
    type Tangent = S;
    #[inline(always)]
    fn split(self) -> (S, S) {
        (self.value, self.tangent)
    }
}

macro_rules! dual_parts_tuple {
    ($($name:ident $index:tt),+) => {
        impl<$($name: DualParts),+> DualParts for ($($name,)+) {
            type Primal = ($($name::Primal,)+);
            type Tangent = ($($name::Tangent,)+);
            #[inline(always)]
            fn split(self) -> (Self::Primal, Self::Tangent) {
                let parts = ($(self.$index.split(),)+);
                (($(parts.$index.0,)+), ($(parts.$index.1,)+))
            }
        }
    };
}

for_each_parameter_tuple!(dual_parts_tuple);

impl<T: DualParts, const N: usize> DualParts for [T; N] {
    type Primal = [T::Primal; N];
    type Tangent = [T::Tangent; N];
    fn split(self) -> (Self::Primal, Self::Tangent) {
        let mut tangents: [Option<T::Tangent>; N] = core::array::from_fn(|_| None);
        let mut index = 0;
        let primals = self.map(|item| {
            let (primal, tangent) = item.split();
            tangents[index] = Some(tangent);
            index += 1;
            primal
        });
        (
            primals,
            tangents.map(|t| t.expect("every element was split")),
        )
    }
}

impl<T: DualParts> DualParts for Vec<T> {
    type Primal = Vec<T::Primal>;
    type Tangent = Vec<T::Tangent>;
    fn split(self) -> (Self::Primal, Self::Tangent) {
        self.into_iter().map(DualParts::split).unzip()
    }
}

/// `None` has no tangent: `(None, None)`; `Some(x)` gives `(Some(value), Some(tangent))`.
impl<T: DualParts> DualParts for Option<T> {
    type Primal = Option<T::Primal>;
    type Tangent = Option<T::Tangent>;
    #[inline]
    fn split(self) -> (Self::Primal, Self::Tangent) {
        match self {
            Some(item) => {
                let (primal, tangent) = item.split();
                (Some(primal), Some(tangent))
            }
            None => (None, None),
        }
    }
}

/// A fallible result over duals as `_jvp` returns it: `Ok` with the value and its tangent, or
/// the error.
#[inline]
pub fn split_result<T: DualParts, E>(result: Result<T, E>) -> Result<(T::Primal, T::Tangent), E> {
    result.map(DualParts::split)
}

/// Pairs a value with its tangent for the entry of a `_jvp` function.
#[inline(always)]
pub fn seed<S: Scalar>(value: S, tangent: S) -> Dual<S> {
    Dual::new(value, tangent)
}

/// A parameter that is not differentiated enters derivative code as a constant.
#[inline(always)]
pub fn constant<S: Scalar>(value: S) -> Dual<S> {
    Dual::constant(value)
}

/// The record of which branch of an `if` (or arm of a `match`, nested) ran, holding that
/// branch's pullback.
pub enum Branch<A, B> {
    First(A),
    Second(B),
}

/// Space left on the stack below which derivative code moves to a new segment, and the size of
/// each new segment. Checked once per call of a differentiated function (and of its pullback),
/// which keeps deep recursion off the guard page at a negligible cost.
const RED_ZONE: usize = 128 * 1024;
const SEGMENT: usize = 16 * 1024 * 1024;

#[inline(always)]
pub fn maybe_grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

/// Reads an adjoint and resets it to zero: the adjoint of a variable that is being overwritten
/// (or whose binding ends) has been fully accumulated at this point of the backward sweep.
#[inline(always)]
pub fn take<S: Scalar>(slot: &mut S) -> S {
    core::mem::replace(slot, S::zero())
}

/// The start of a sum: negative zero, to which adding any value gives that value exactly
/// (`-0 + -0` is `-0`; `+0 + -0` would be `+0`), so the compiler drops the first addition.
#[inline(always)]
pub fn sum_start<S: Scalar>() -> S {
    -S::zero()
}

/// The counter of a loop over a range at a given iteration: `first + steps`, which the forward
/// code did compute without overflow.
pub trait Counter: Copy {
    fn nth(self, steps: usize) -> Self;
    /// How many iterations `self..end` has.
    fn count_to(self, end: Self) -> usize;
    /// How many iterations `self..=end` has.
    fn count_through(self, end: Self) -> usize;
}

macro_rules! counters {
    ($($t:ty => $unsigned:ty),*) => {$(
        impl Counter for $t {
            #[inline(always)]
            fn nth(self, steps: usize) -> Self {
                self.wrapping_add(steps as $t)
            }

            // `end - self` fits the unsigned type of the same width when `end > self`.
            #[inline(always)]
            fn count_to(self, end: Self) -> usize {
                if end > self {
                    end.wrapping_sub(self) as $unsigned as usize
                } else {
                    0
                }
            }

            #[inline(always)]
            fn count_through(self, end: Self) -> usize {
                if end >= self {
                    end.wrapping_sub(self) as $unsigned as usize + 1
                } else {
                    0
                }
            }
        }
    )*};
}

counters!(
    i8 => u8, i16 => u16, i32 => u32, i64 => u64, i128 => u128, isize => usize,
    u8 => u8, u16 => u16, u32 => u32, u64 => u64, u128 => u128, usize => usize
);

#[cfg(test)]
mod counter_tests {
    use super::Counter;

    #[test]
    fn counts_match_the_ranges() {
        assert_eq!((-128i8).count_to(127), (-128i8..127).count());
        assert_eq!((-128i8).count_through(127), (-128i8..=127).count());
        assert_eq!(0u8.count_through(255), 256);
        assert_eq!(5usize.count_to(3), 0);
        assert_eq!(5usize.count_through(4), 0);
        assert_eq!(5usize.count_through(5), 1);
        assert_eq!((-3i64).count_to(4), 7);
        assert_eq!((-128i8).nth(255), 127);
        assert_eq!(250u8.nth(5), 255);
    }
}

/// A pullback of a differentiated function: the adjoints of its float parameters given the
/// cotangent of its result.
pub type Pullback<S, const P: usize> = Box<dyn FnOnce(S) -> [S; P]>;

/// Pairs a parameter with its tangent, element by element, for the entry of a `_jvp`
/// function: scalars, slices, `Vec`s, arrays and tuples of them, nested.
pub trait Seed<Tangent = Self> {
    type Dual;
    fn seed(self, tangent: Tangent) -> Self::Dual;
    /// The duals of a `#[no_grad]` parameter: tangents zero.
    fn constant(self) -> Self::Dual;
}

impl<S: Scalar> Seed for S {
    type Dual = Dual<S>;
    #[inline(always)]
    fn seed(self, tangent: S) -> Dual<S> {
        Dual::new(self, tangent)
    }
    #[inline(always)]
    fn constant(self) -> Dual<S> {
        Dual::constant(self)
    }
}

fn same_length(primal: usize, tangent: usize) {
    assert_eq!(
        primal, tangent,
        "a tangent must have the shape of its parameter: lengths {primal} and {tangent} differ"
    );
}

impl<'a, T: Seed + Clone> Seed for &'a [T] {
    type Dual = Vec<T::Dual>;
    fn seed(self, tangent: &'a [T]) -> Self::Dual {
        same_length(self.len(), tangent.len());
        self.iter()
            .zip(tangent)
            .map(|(p, t)| p.clone().seed(t.clone()))
            .collect()
    }
    fn constant(self) -> Self::Dual {
        self.iter().map(|p| p.clone().constant()).collect()
    }
}

impl<'a, T: Seed + Clone> Seed for &'a Vec<T> {
    type Dual = Vec<T::Dual>;
    fn seed(self, tangent: &'a Vec<T>) -> Self::Dual {
        self.as_slice().seed(tangent.as_slice())
    }
    fn constant(self) -> Self::Dual {
        self.as_slice().constant()
    }
}

impl<T: Seed> Seed for Vec<T> {
    type Dual = Vec<T::Dual>;
    fn seed(self, tangent: Vec<T>) -> Self::Dual {
        same_length(self.len(), tangent.len());
        self.into_iter()
            .zip(tangent)
            .map(|(p, t)| p.seed(t))
            .collect()
    }
    fn constant(self) -> Self::Dual {
        self.into_iter().map(Seed::constant).collect()
    }
}

impl<T: Seed, const N: usize> Seed for [T; N] {
    type Dual = [T::Dual; N];
    fn seed(self, tangent: [T; N]) -> Self::Dual {
        let mut tangents = tangent.into_iter();
        self.map(|p| match tangents.next() {
            Some(t) => p.seed(t),
            None => unreachable!("arrays of one length"),
        })
    }
    fn constant(self) -> Self::Dual {
        self.map(Seed::constant)
    }
}

impl<'a, T: Seed + Clone, const N: usize> Seed for &'a [T; N] {
    type Dual = [T::Dual; N];
    fn seed(self, tangent: &'a [T; N]) -> Self::Dual {
        self.clone().seed(tangent.clone())
    }
    fn constant(self) -> Self::Dual {
        self.clone().constant()
    }
}

/// A tuple lent (`p: &(f64, Vec<f64>)`): its duals, owned, lent to the derivative code.
impl<'a, A: Seed + Clone, B: Seed + Clone> Seed for &'a (A, B) {
    type Dual = (A::Dual, B::Dual);
    fn seed(self, tangent: &'a (A, B)) -> Self::Dual {
        self.clone().seed(tangent.clone())
    }
    fn constant(self) -> Self::Dual {
        self.clone().constant()
    }
}

impl<'a, A: Seed + Clone, B: Seed + Clone, C: Seed + Clone> Seed for &'a (A, B, C) {
    type Dual = (A::Dual, B::Dual, C::Dual);
    fn seed(self, tangent: &'a (A, B, C)) -> Self::Dual {
        self.clone().seed(tangent.clone())
    }
    fn constant(self) -> Self::Dual {
        self.clone().constant()
    }
}

impl<A: Seed, B: Seed> Seed for (A, B) {
    type Dual = (A::Dual, B::Dual);
    fn seed(self, tangent: (A, B)) -> Self::Dual {
        (self.0.seed(tangent.0), self.1.seed(tangent.1))
    }
    fn constant(self) -> Self::Dual {
        (self.0.constant(), self.1.constant())
    }
}

impl<A: Seed, B: Seed, C: Seed> Seed for (A, B, C) {
    type Dual = (A::Dual, B::Dual, C::Dual);
    fn seed(self, tangent: (A, B, C)) -> Self::Dual {
        (
            self.0.seed(tangent.0),
            self.1.seed(tangent.1),
            self.2.seed(tangent.2),
        )
    }
    fn constant(self) -> Self::Dual {
        (self.0.constant(), self.1.constant(), self.2.constant())
    }
}

/// An integer in a tuple of floats (a Welford aggregate `(usize, f64, f64)`): data, as it
/// is; the tangent given in its place is not read.
macro_rules! integer_seeds {
    ($($integer:ty),*) => {$(
        impl Seed for $integer {
            type Dual = $integer;
            #[inline(always)]
            fn seed(self, _tangent: $integer) -> $integer {
                self
            }
            #[inline(always)]
            fn constant(self) -> $integer {
                self
            }
        }
    )*};
}

integer_seeds!(usize, isize, u8, u16, u32, u64, i8, i16, i32, i64, bool);

/// A `&mut` parameter of a `_jvp` function: its initial contents and their tangent are paired
/// into duals on entry (the derivative code writes those), and the final duals are split back
/// into the two places on return. Scalars, slices, `Vec`s, arrays and tuples of them, nested.
pub trait SeedMut {
    type Dual;
    fn seed_mut(&self, tangent: &Self) -> Self::Dual;
    fn write_back(&mut self, tangent: &mut Self, dual: Self::Dual);
}

impl<S: Scalar> SeedMut for S {
    type Dual = Dual<S>;
    #[inline(always)]
    fn seed_mut(&self, tangent: &S) -> Dual<S> {
        Dual::new(*self, *tangent)
    }
    #[inline(always)]
    fn write_back(&mut self, tangent: &mut S, dual: Dual<S>) {
        *self = dual.value;
        *tangent = dual.tangent;
    }
}

impl<T: SeedMut> SeedMut for [T] {
    type Dual = Vec<T::Dual>;
    fn seed_mut(&self, tangent: &[T]) -> Self::Dual {
        same_length(self.len(), tangent.len());
        self.iter()
            .zip(tangent)
            .map(|(p, t)| p.seed_mut(t))
            .collect()
    }
    fn write_back(&mut self, tangent: &mut [T], dual: Self::Dual) {
        // The derivative code wrote through a slice of the same length.
        for ((p, t), d) in self.iter_mut().zip(tangent.iter_mut()).zip(dual) {
            p.write_back(t, d);
        }
    }
}

/// A `Vec` may have grown or shrunk (`push`, `truncate`): the new elements are split from
/// their duals.
impl<T: SeedMut> SeedMut for Vec<T>
where
    T::Dual: DualParts<Primal = T, Tangent = T>,
{
    type Dual = Vec<T::Dual>;
    fn seed_mut(&self, tangent: &Vec<T>) -> Self::Dual {
        self.as_slice().seed_mut(tangent.as_slice())
    }
    fn write_back(&mut self, tangent: &mut Vec<T>, dual: Self::Dual) {
        let kept = self.len().min(dual.len());
        self.truncate(kept);
        tangent.truncate(kept);
        let mut dual = dual.into_iter();
        for ((p, t), d) in self.iter_mut().zip(tangent.iter_mut()).zip(&mut dual) {
            p.write_back(t, d);
        }
        for d in dual {
            let (p, t) = d.split();
            self.push(p);
            tangent.push(t);
        }
    }
}

impl<T: SeedMut, const N: usize> SeedMut for [T; N] {
    type Dual = [T::Dual; N];
    fn seed_mut(&self, tangent: &[T; N]) -> Self::Dual {
        core::array::from_fn(|i| self[i].seed_mut(&tangent[i]))
    }
    fn write_back(&mut self, tangent: &mut [T; N], dual: Self::Dual) {
        for ((p, t), d) in self.iter_mut().zip(tangent.iter_mut()).zip(dual) {
            p.write_back(t, d);
        }
    }
}

impl<A: SeedMut, B: SeedMut> SeedMut for (A, B) {
    type Dual = (A::Dual, B::Dual);
    fn seed_mut(&self, tangent: &(A, B)) -> Self::Dual {
        (self.0.seed_mut(&tangent.0), self.1.seed_mut(&tangent.1))
    }
    fn write_back(&mut self, tangent: &mut (A, B), dual: Self::Dual) {
        self.0.write_back(&mut tangent.0, dual.0);
        self.1.write_back(&mut tangent.1, dual.1);
    }
}

impl<A: SeedMut, B: SeedMut, C: SeedMut> SeedMut for (A, B, C) {
    type Dual = (A::Dual, B::Dual, C::Dual);
    fn seed_mut(&self, tangent: &(A, B, C)) -> Self::Dual {
        (
            self.0.seed_mut(&tangent.0),
            self.1.seed_mut(&tangent.1),
            self.2.seed_mut(&tangent.2),
        )
    }
    fn write_back(&mut self, tangent: &mut (A, B, C), dual: Self::Dual) {
        self.0.write_back(&mut tangent.0, dual.0);
        self.1.write_back(&mut tangent.1, dual.1);
        self.2.write_back(&mut tangent.2, dual.2);
    }
}

/// The duals of a `&mut` parameter's initial contents, for the derivative code to write.
#[inline(always)]
pub fn seed_mut<T: SeedMut + ?Sized>(value: &T, tangent: &T) -> T::Dual {
    value.seed_mut(tangent)
}

/// The final duals of a `&mut` parameter, back into the caller's value and tangent.
#[inline(always)]
pub fn write_back<T: SeedMut + ?Sized>(value: &mut T, tangent: &mut T, dual: T::Dual) {
    value.write_back(tangent, dual)
}

pub use crate::differentiable::shapes_differ;

/// The duals of a `#[grad]` parameter of a user type: value and tangent float by float.
pub fn seed_twin<T: Differentiable>(value: &T, tangent: &T) -> T::Over<Dual<T::Float>> {
    T::zip(&value.to_over(), &tangent.to_over(), &mut |v, t| {
        Dual::new(*v, *t)
    })
}

/// A result of a derived type from its twin over duals: the value and its tangent.
pub fn split_twin<T: Differentiable>(over: T::Over<Dual<T::Float>>) -> (T, T) {
    let value = T::map(&over, &mut |dual: &Dual<T::Float>| dual.value);
    let tangent = T::map(&over, &mut |dual: &Dual<T::Float>| dual.tangent);
    (T::from_over(value), T::from_over(tangent))
}

/// The cotangent `cotangent` of a result of a derived type as the adjoint of its twin `value`
/// (the companion's result), which the pullback takes.
pub fn twin_cotangent<T: Differentiable>(
    value: &T::Over<T::Float>,
    cotangent: &T,
) -> <T::Over<T::Float> as crate::adjoint::Diff>::Adjoint
where
    T::Over<T::Float>: crate::adjoint::Diff,
    <T::Over<T::Float> as crate::adjoint::Diff>::Adjoint: ir::FlatAdjoint<T::Float>,
{
    // Laid out in the value's shape, which the cotangent must have (an enum's variant too).
    let shaped = T::zip(value, &cotangent.to_over(), &mut |_, part: &T::Float| *part);
    let mut flat = Vec::new();
    T::for_each(&shaped, &mut |part: &T::Float| flat.push(*part));
    let mut adjoint = ir::zero_like(value);
    ir::FlatAdjoint::add_flat(&mut adjoint, &mut flat.into_iter());
    adjoint
}

/// `seed_twin` for a `#[grad]` slice of a user type (`bodies: &[Body]`), which has no twin of
/// its own (`Differentiable` is for sized values): the twins in a `Vec`, passed on as a slice.
pub fn seed_twins<T: Differentiable>(values: &[T], tangents: &[T]) -> Vec<T::Over<Dual<T::Float>>> {
    if values.len() != tangents.len() {
        crate::differentiable::shapes_differ("slice lengths");
    }
    values
        .iter()
        .zip(tangents)
        .map(|(value, tangent)| seed_twin(value, tangent))
        .collect()
}

/// A slice, `Vec` or array of a derived type behind `&mut` (`#[grad] bodies: &mut [Body; 5]`):
/// its twins over duals, and the final ones written back into the caller's values and tangents
/// (a `Vec` takes their number).
pub trait SeedTwinsMut {
    type Duals;
    fn seed_twins_mut(&self, tangents: &Self) -> Self::Duals;
    fn write_back_twins(&mut self, tangents: &mut Self, duals: Self::Duals);
}

impl<T: Differentiable> SeedTwinsMut for [T] {
    type Duals = Vec<T::Over<Dual<T::Float>>>;
    fn seed_twins_mut(&self, tangents: &[T]) -> Self::Duals {
        seed_twins(self, tangents)
    }
    fn write_back_twins(&mut self, tangents: &mut [T], duals: Self::Duals) {
        // The derivative code wrote through a slice of the same length.
        for ((value, tangent), twin) in self.iter_mut().zip(tangents.iter_mut()).zip(duals) {
            write_back_twin(value, tangent, twin);
        }
    }
}

impl<T: Differentiable + Clone> SeedTwinsMut for Vec<T> {
    type Duals = Vec<T::Over<Dual<T::Float>>>;
    fn seed_twins_mut(&self, tangents: &Vec<T>) -> Self::Duals {
        seed_twins(self, tangents)
    }
    fn write_back_twins(&mut self, tangents: &mut Vec<T>, duals: Self::Duals) {
        let (values, tangents_back): (Vec<T>, Vec<T>) = duals
            .into_iter()
            .map(|twin| {
                let value = T::from_over(T::map(&twin, &mut |dual: &Dual<T::Float>| dual.value));
                let tangent =
                    T::from_over(T::map(&twin, &mut |dual: &Dual<T::Float>| dual.tangent));
                (value, tangent)
            })
            .unzip();
        *self = values;
        *tangents = tangents_back;
    }
}

impl<T: Differentiable, const N: usize> SeedTwinsMut for [T; N] {
    type Duals = [T::Over<Dual<T::Float>>; N];
    fn seed_twins_mut(&self, tangents: &[T; N]) -> Self::Duals {
        core::array::from_fn(|index| seed_twin(&self[index], &tangents[index]))
    }
    fn write_back_twins(&mut self, tangents: &mut [T; N], duals: Self::Duals) {
        for ((value, tangent), twin) in self.iter_mut().zip(tangents.iter_mut()).zip(duals) {
            write_back_twin(value, tangent, twin);
        }
    }
}

/// The final twin of a `&mut self` over duals, back into the caller's value and tangent.
pub fn write_back_twin<T: Differentiable>(
    value: &mut T,
    tangent: &mut T,
    twin: T::Over<Dual<T::Float>>,
) {
    *value = T::from_over(T::map(&twin, &mut |dual: &Dual<T::Float>| dual.value));
    *tangent = T::from_over(T::map(&twin, &mut |dual: &Dual<T::Float>| dual.tangent));
}

/// The value of a user type from the flat adjoints of its floats (in `for_each` order).
/// A value's floats in the order of `Differentiable::for_each` (the order of a flat adjoint).
pub fn flatten_twin<T: Differentiable>(value: &T) -> Vec<T::Float> {
    let mut flat = Vec::new();
    T::for_each(&value.to_over(), &mut |float: &T::Float| flat.push(*float));
    flat
}

pub fn unflatten_twin<T: Differentiable>(value: &T, flat: &[T::Float]) -> T {
    let mut next = 0;
    T::from_over(T::map(&value.to_over(), &mut |_| {
        next += 1;
        flat[next - 1]
    }))
}

/// `to_over` for a `#[grad]` slice of a user type: the twins in a `Vec`, lent as a slice.
pub fn twins_of<T: Differentiable>(values: &[T]) -> Vec<T::Over<T::Float>> {
    values.iter().map(T::to_over).collect()
}

/// `unflatten_twin` for a `#[grad]` slice of a user type: its adjoint is owned, a `Vec`.
pub fn unflatten_twins<T: Differentiable>(values: &[T], flat: &[T::Float]) -> Vec<T> {
    let mut next = 0;
    values
        .iter()
        .map(|value| {
            T::from_over(T::map(&value.to_over(), &mut |_| {
                next += 1;
                flat[next - 1]
            }))
        })
        .collect()
}

pub mod call_args;
#[allow(unsafe_code)]
mod chunk_pool;
pub mod in_out;
mod scaled;

/// `x op c` for a constant `c` in forward-mode code (`2.0 * x`, `x - 1.0`, `1.0 - x`,
/// `x / 2.0`), `x` a value of the scalar type or a reference to one: the `Scalar` methods that
/// skip the derivative of the constant.
pub mod constant_ops {
    use crate::adjoint::ValueOf;
    use crate::Scalar;

    type Base<V> = <<V as ValueOf>::Value as Scalar>::Base;

    #[inline(always)]
    pub fn mul<V: ValueOf>(x: V, c: Base<V>) -> V::Value
    where
        V::Value: Scalar,
    {
        x.value_of().mul_constant(c)
    }

    #[inline(always)]
    pub fn add<V: ValueOf>(x: V, c: Base<V>) -> V::Value
    where
        V::Value: Scalar,
    {
        x.value_of().add_constant(c)
    }

    #[inline(always)]
    pub fn sub_from<V: ValueOf>(x: V, c: Base<V>) -> V::Value
    where
        V::Value: Scalar,
    {
        x.value_of().constant_sub(c)
    }

    #[inline(always)]
    pub fn div<V: ValueOf>(x: V, c: Base<V>) -> V::Value
    where
        V::Value: Scalar,
    {
        x.value_of().div_constant(c)
    }
}
pub mod generic_call;
pub mod generic_float;
pub mod ir;
pub mod jacobian;
pub mod linalg;

pub use call_args::{Arg, LiftArgFloats, LiftArgOther, PlainFloat};

/// The receiver of a user type's method called in derivative code, from a reference to the
/// value: the reference itself for a `&self` method's companion, a copy for a `self` one
/// (`v.norm_squared()` on a `Copy` vector type). The companion's parameter type chooses.
pub trait Receiver<Target> {
    fn receiver(self) -> Target;
}

impl<'a, T> Receiver<&'a T> for &'a T {
    #[inline(always)]
    fn receiver(self) -> &'a T {
        self
    }
}

impl<T: Clone> Receiver<T> for &T {
    #[inline(always)]
    fn receiver(self) -> T {
        self.clone()
    }
}

/// A reference parameter (`p: &Point`) lent by reference: copied to a `self` one's.
impl<T: Clone> Receiver<T> for &&T {
    #[inline(always)]
    fn receiver(self) -> T {
        (*self).clone()
    }
}

/// A `mut` local lent to a method: mutably to a `&mut self` one's companion, shared to a
/// `&self` one's, copied to a `self` one's.
impl<'a, T> Receiver<&'a mut T> for &'a mut T {
    #[inline(always)]
    fn receiver(self) -> &'a mut T {
        self
    }
}

impl<'a, T> Receiver<&'a T> for &'a mut T {
    #[inline(always)]
    fn receiver(self) -> &'a T {
        self
    }
}

impl<T: Clone> Receiver<T> for &mut T {
    #[inline(always)]
    fn receiver(self) -> T {
        self.clone()
    }
}

/// [`Receiver::receiver`] as a function.
#[inline(always)]
pub fn receiver<R: Receiver<T>, T>(value: R) -> T {
    value.receiver()
}
