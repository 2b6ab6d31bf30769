//! Adjoint types, chosen by the type of the value: reverse mode's code names no adjoint type
//! itself, so whatever rustc decides a value is, its adjoint follows.
//!
//! | value | adjoint |
//! | --- | --- |
//! | a scalar (`f64`, `f32`, a dual number) | the same scalar |
//! | an integer, `bool`, `char`, `()` | [`NoAdjoint`] (zero-sized: integer code costs nothing) |
//! | a `Vec` or a slice of values | a `Vec` of their adjoints (zero: empty, grown as reached) |
//! | an array `[T; N]` | `[T::Adjoint; N]` |
//! | a reference `&T` | `T`'s adjoint |
//! | a tuple | the tuple of its elements' adjoints |
//! | an `Option<T>` | `Option<T::Adjoint>` (zero: `None`) |
//! | a `Box<T>` | [`BoxAdjoint`]`<T::Adjoint>` |
//! | a type deriving `Differentiable` | a generated type of the same shape: each float field's adjoint, [`NoAdjoint`] for data (an enum's has one more variant, its zero) |
//!
//! [`Diff`] names the adjoint type of a value type; [`Adjoint`] is what an adjoint can do.
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

/// The adjoint type of a value type: what reverse mode accumulates for a value of it.
///
/// ```
/// use ad_runtime::adjoint::{Diff, NoAdjoint};
///
/// let rows = vec![vec![1.0_f64, 2.0], vec![3.0]];
/// assert_eq!(rows.zero_like(), vec![vec![0.0, 0.0], vec![0.0]]);
/// assert_eq!((2.5_f64, 7_usize).zero_like(), (0.0, NoAdjoint));
/// assert_eq!([1.0_f32; 3].zero_like(), [0.0; 3]);
/// ```
#[diagnostic::on_unimplemented(
    message = "reverse mode does not know how to differentiate through a value of type `{Self}`",
    label = "this value carries a derivative, but `{Self}` has no adjoint type",
    note = "floats, integers, bools, `Vec`s, slices, arrays and references to them have one; \
            mark data parameters `#[no_grad]`, or derive `Differentiable` for your type"
)]
pub trait Diff {
    /// The adjoint of a value of this type.
    type Adjoint: Adjoint;

    /// The zero adjoint shaped as this value (a `Vec`'s as long as it).
    fn zero_like(&self) -> Self::Adjoint;

    /// Whether an adjoint of this type must be shaped as its value before a callee's flat
    /// adjoint is added to it: a derived type's (its fields' floats come back in one list),
    /// and containers of one. A float's or a `Vec` of floats' need not be.
    const SHAPED: bool = false;

    /// The zero adjoint of a value passed to a call: shaped as the value where the type is
    /// [`SHAPED`](Diff::SHAPED), the type's zero otherwise (no allocation for a `Vec` of
    /// floats).
    fn argument_zero(&self) -> Self::Adjoint {
        Self::Adjoint::zero()
    }
}

macro_rules! data {
    ($($t:ty)*) => {$(
        impl Diff for $t {
            type Adjoint = NoAdjoint;
            fn zero_like(&self) -> NoAdjoint {
                NoAdjoint
            }
        }
    )*};
}

data!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize bool char);

impl Diff for () {
    type Adjoint = NoAdjoint;
    fn zero_like(&self) -> NoAdjoint {
        NoAdjoint
    }
}

impl<T> Diff for core::ops::Range<T> {
    type Adjoint = NoAdjoint;
    fn zero_like(&self) -> NoAdjoint {
        NoAdjoint
    }
}

impl<T> Diff for core::ops::RangeInclusive<T> {
    type Adjoint = NoAdjoint;
    fn zero_like(&self) -> NoAdjoint {
        NoAdjoint
    }
}

impl<T: Diff> Diff for Vec<T> {
    type Adjoint = Vec<T::Adjoint>;
    fn zero_like(&self) -> Self::Adjoint {
        self.iter().map(T::zero_like).collect()
    }
    const SHAPED: bool = T::SHAPED;
    fn argument_zero(&self) -> Self::Adjoint {
        self.as_slice().argument_zero()
    }
}

impl<T: Diff> Diff for [T] {
    type Adjoint = Vec<T::Adjoint>;
    fn zero_like(&self) -> Self::Adjoint {
        self.iter().map(T::zero_like).collect()
    }
    const SHAPED: bool = T::SHAPED;
    fn argument_zero(&self) -> Self::Adjoint {
        if T::SHAPED {
            self.iter().map(T::argument_zero).collect()
        } else {
            Vec::new()
        }
    }
}

impl<T: Diff, const N: usize> Diff for [T; N] {
    type Adjoint = [T::Adjoint; N];
    fn zero_like(&self) -> Self::Adjoint {
        core::array::from_fn(|index| self[index].zero_like())
    }
    const SHAPED: bool = T::SHAPED;
    fn argument_zero(&self) -> Self::Adjoint {
        core::array::from_fn(|index| self[index].argument_zero())
    }
}

/// A reference's adjoint is its referent's (a `&mut` passed to a differentiated function
/// that writes through it included).
macro_rules! referent_adjoint {
    ($($reference:ty),*) => {$(
        impl<T: Diff + ?Sized> Diff for $reference {
            type Adjoint = T::Adjoint;
            fn zero_like(&self) -> Self::Adjoint {
                (**self).zero_like()
            }
            const SHAPED: bool = T::SHAPED;
            fn argument_zero(&self) -> Self::Adjoint {
                (**self).argument_zero()
            }
        }
    )*};
}

referent_adjoint!(&T, &mut T);

/// A box's adjoint is a [`BoxAdjoint`] of its content's (a recursive derived type holds its
/// own type in a box).
impl<T: Diff + ?Sized> Diff for Box<T> {
    type Adjoint = BoxAdjoint<T::Adjoint>;
    fn zero_like(&self) -> Self::Adjoint {
        BoxAdjoint(Box::new((**self).zero_like()))
    }
    const SHAPED: bool = T::SHAPED;
    fn argument_zero(&self) -> Self::Adjoint {
        BoxAdjoint(Box::new((**self).argument_zero()))
    }
}

/// The adjoint of a `Box<T>`: a box of `T`'s adjoint. (Its own type rather than `Box`, which
/// is fundamental: an adjoint impl for it would overlap with the one for every scalar.)
#[derive(Clone, Debug, PartialEq)]
pub struct BoxAdjoint<A>(pub Box<A>);

impl<A> core::ops::Deref for BoxAdjoint<A> {
    type Target = A;
    fn deref(&self) -> &A {
        &self.0
    }
}

impl<A> core::ops::DerefMut for BoxAdjoint<A> {
    fn deref_mut(&mut self) -> &mut A {
        &mut self.0
    }
}

impl<A: Adjoint> Adjoint for BoxAdjoint<A> {
    fn zero() -> Self {
        BoxAdjoint(Box::new(A::zero()))
    }

    fn accumulate(&mut self, contribution: Self) {
        self.0.accumulate(*contribution.0);
    }

    fn negate(self) -> Self {
        BoxAdjoint(Box::new((*self.0).negate()))
    }

    fn same_shape(&self, other: &Self) -> bool {
        self.0.same_shape(&other.0)
    }
}

/// An option's adjoint is an option of its content's: `None` is the zero (nothing has reached
/// it yet, or the value was `None`).
///
/// ```
/// use ad_runtime::adjoint::{Adjoint, Diff};
///
/// assert_eq!(Some(2.0_f64).zero_like(), Some(0.0));
/// let mut d: Option<f64> = Adjoint::zero();
/// d.accumulate(Some(1.5));
/// d.accumulate(None);
/// d.accumulate(Some(0.5));
/// assert_eq!(d, Some(2.0));
/// ```
impl<T: Diff> Diff for Option<T> {
    type Adjoint = Option<T::Adjoint>;
    fn zero_like(&self) -> Self::Adjoint {
        self.as_ref().map(T::zero_like)
    }
    const SHAPED: bool = T::SHAPED;
    fn argument_zero(&self) -> Self::Adjoint {
        if T::SHAPED {
            self.as_ref().map(T::argument_zero)
        } else {
            None
        }
    }
}

/// A fallible result's adjoint is its `Ok` value's, as an option: `None` is the zero (nothing
/// has reached it yet, or the result was an error, which is data).
///
/// ```
/// use ad_runtime::adjoint::Diff;
///
/// let ok: Result<f64, String> = Ok(2.0);
/// assert_eq!(ok.zero_like(), Some(0.0));
/// let failed: Result<f64, String> = Err("no".to_string());
/// assert_eq!(failed.zero_like(), None);
/// ```
impl<T: Diff, E> Diff for Result<T, E> {
    type Adjoint = Option<T::Adjoint>;
    fn zero_like(&self) -> Self::Adjoint {
        self.as_ref().ok().map(T::zero_like)
    }
    const SHAPED: bool = T::SHAPED;
    fn argument_zero(&self) -> Self::Adjoint {
        if T::SHAPED {
            self.as_ref().ok().map(T::argument_zero)
        } else {
            None
        }
    }
}

/// A cotangent: it has a zero, and contributions to it add up.
pub trait Adjoint: Sized + Clone {
    /// The adjoint no contribution has reached yet.
    fn zero() -> Self;
    /// Adds a contribution (`self += contribution`).
    fn accumulate(&mut self, contribution: Self);
    /// The adjoint of `-x` given that of `x`.
    fn negate(self) -> Self;
    /// Whether `other` has this adjoint's shape (the lengths of the `Vec`s in it).
    fn same_shape(&self, other: &Self) -> bool {
        let _ = other;
        true
    }
    /// A zero that leaves what is added to it unchanged bit for bit: a float's is `-0.0`
    /// (`0.0 + -0.0` is `0.0`, so the compiler keeps an addition to `0.0`, and drops one to
    /// `-0.0`).
    fn exact_zero() -> Self {
        Self::zero()
    }
    /// Whether a zero of this type may depend on the value it is the adjoint of (a `Vec`'s has
    /// its length). When not, every zero is [`Adjoint::zero`], and the backward sweep makes it
    /// instead of keeping it.
    const VALUE_SHAPED_ZERO: bool = true;
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

    #[inline(always)]
    fn exact_zero() -> Self {
        -S::zero()
    }

    const VALUE_SHAPED_ZERO: bool = false;
}

/// The adjoint of data (integers, `bool`, `char`, `()`): nothing to add up.
///
/// ```
/// use ad_runtime::adjoint::{Adjoint, Diff, NoAdjoint};
///
/// let mut d = 3_usize.zero_like();
/// d.accumulate(NoAdjoint);
/// assert_eq!(d, NoAdjoint);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoAdjoint;

impl Adjoint for NoAdjoint {
    const VALUE_SHAPED_ZERO: bool = false;

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

    fn same_shape(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.same_shape(b))
    }
}

impl<T: Adjoint, const N: usize> Adjoint for [T; N] {
    const VALUE_SHAPED_ZERO: bool = T::VALUE_SHAPED_ZERO;

    fn zero() -> Self {
        core::array::from_fn(|_| T::zero())
    }

    fn accumulate(&mut self, contribution: Self) {
        for (adjoint, part) in self.iter_mut().zip(contribution) {
            adjoint.accumulate(part);
        }
    }

    fn negate(self) -> Self {
        self.map(T::negate)
    }

    fn same_shape(&self, other: &Self) -> bool {
        self.iter().zip(other).all(|(a, b)| a.same_shape(b))
    }
}

impl<T: Adjoint> Adjoint for Option<T> {
    #[inline(always)]
    fn zero() -> Self {
        None
    }

    #[inline(always)]
    fn accumulate(&mut self, contribution: Self) {
        match (self.as_mut(), contribution) {
            (Some(adjoint), Some(part)) => adjoint.accumulate(part),
            (None, part) => *self = part,
            (Some(_), None) => {}
        }
    }

    #[inline(always)]
    fn negate(self) -> Self {
        self.map(T::negate)
    }

    /// `None` (a zero) fits any option; a `Some` needs one, shaped alike.
    fn same_shape(&self, other: &Self) -> bool {
        match (self, other) {
            (Some(this), Some(other)) => this.same_shape(other),
            (None, Some(_)) => false,
            (_, None) => true,
        }
    }
}

macro_rules! tuples {
    ($(($($name:ident $index:tt),+))*) => {$(
        impl<$($name: Diff),+> Diff for ($($name,)+) {
            type Adjoint = ($($name::Adjoint,)+);
            fn zero_like(&self) -> Self::Adjoint {
                ($(self.$index.zero_like(),)+)
            }
            const SHAPED: bool = false $(|| $name::SHAPED)+;
            fn argument_zero(&self) -> Self::Adjoint {
                ($(self.$index.argument_zero(),)+)
            }
        }

        impl<$($name: Adjoint),+> Adjoint for ($($name,)+) {
            const VALUE_SHAPED_ZERO: bool = false $(|| $name::VALUE_SHAPED_ZERO)+;

            fn zero() -> Self {
                ($($name::zero(),)+)
            }

            fn accumulate(&mut self, contribution: Self) {
                $(self.$index.accumulate(contribution.$index);)+
            }

            fn negate(self) -> Self {
                ($(self.$index.negate(),)+)
            }

            fn same_shape(&self, other: &Self) -> bool {
                true $(&& self.$index.same_shape(&other.$index))+
            }
        }
    )*};
}

for_each_tuple!(tuples);

/// The value behind a reference, or the value itself: what a rule reads of an operand that
/// the code holds by reference (`for x in v.iter()` binds `&f64`).
///
/// ```
/// use ad_runtime::adjoint::ValueOf;
///
/// let v = [1.5_f64, 2.0];
/// assert_eq!((&v[0]).value_of(), 1.5);
/// assert_eq!(2.0_f64.value_of(), 2.0);
/// ```
pub trait ValueOf {
    /// The value.
    type Value;
    /// Copies the value out.
    fn value_of(self) -> Self::Value;
}

macro_rules! value_of_itself {
    ($($t:ty)*) => {$(
        impl ValueOf for $t {
            type Value = $t;
            #[inline(always)]
            fn value_of(self) -> $t {
                self
            }
        }
    )*};
}

value_of_itself!(f32 f64 i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize bool);

/// A matrix's `(row, column)` index.
impl ValueOf for (usize, usize) {
    type Value = (usize, usize);
    #[inline(always)]
    fn value_of(self) -> (usize, usize) {
        self
    }
}

impl<S: Scalar> ValueOf for crate::Dual<S> {
    type Value = crate::Dual<S>;
    #[inline(always)]
    fn value_of(self) -> Self {
        self
    }
}

impl<T: ValueOf + Clone> ValueOf for &T {
    type Value = T::Value;
    #[inline(always)]
    fn value_of(self) -> T::Value {
        self.clone().value_of()
    }
}
