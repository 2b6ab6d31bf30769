//! User types whose floats are differentiated: structs and enums with
//! `#[derive(Differentiable)]`.
//!
//! The derive gives the type a *twin*: the same type with every float replaced by a type
//! parameter (`Point { x: f64, y: f64 }` has `Over<S> = { x: S, y: S }`). Generated code runs
//! the function over the twin at the scalar type it needs (dual numbers, or the reverse
//! sweep's values); tangents and adjoints are the user's type itself, so they have the shape
//! of the value.
//!
//! A parameter of such a type is differentiated when it is marked `#[grad]`; without the mark
//! it is data, like a parameter of any other type (a procedural macro cannot see which types
//! derive the trait, so the choice is written where it matters).
//!
//! ```
//! use ad_runtime::{forward, reverse, Differentiable};
//!
//! #[derive(Clone, Debug, PartialEq, Differentiable)]
//! struct Point {
//!     x: f64,
//!     y: f64,
//! }
//!
//! #[forward]
//! #[reverse]
//! fn norm2(#[grad] p: &Point) -> f64 {
//!     p.x * p.x + p.y * p.y
//! }
//!
//! let p = Point { x: 3.0, y: 4.0 };
//! // Tangent: a `Point` (the direction); adjoint: a `Point` (the gradient).
//! assert_eq!(norm2_jvp(&p, &Point { x: 1.0, y: 0.0 }), (25.0, 6.0));
//! assert_eq!(norm2_grad(&p), (25.0, Point { x: 6.0, y: 8.0 }));
//! ```

use crate::Scalar;

/// A type whose floats can be differentiated. Derive it (`#[derive(Differentiable)]`) on a
/// struct or enum whose fields are floats, other `Differentiable` types, `Box`es, `Vec`s,
/// `Option`s and arrays of them; integer, `bool` and `char` fields, and fields marked
/// `#[no_grad]`, are data (copied, never differentiated).
///
/// ```
/// use ad_runtime::Differentiable;
///
/// #[derive(Clone, Differentiable)]
/// enum List {
///     Nil,
///     Cons(f64, Box<List>),
/// }
///
/// let list = List::Cons(2.0, Box::new(List::Cons(3.0, Box::new(List::Nil))));
/// // The twin over `usize`: each float replaced by a number.
/// let mut next = 0;
/// let numbered = List::map(&list.to_over(), &mut |_| {
///     next += 1;
///     next
/// });
/// let mut seen = Vec::new();
/// List::for_each(&numbered, &mut |n: &usize| seen.push(*n));
/// assert_eq!(seen, [1, 2]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not differentiable",
    label = "`{Self}` does not derive `Differentiable`",
    note = "add `#[derive(ad_runtime::Differentiable)]` to its definition: only such a type \
            holds floats whose derivatives are followed (as a `#[grad]` parameter, a value built \
            from floats, or a part of one); without `#[grad]` a parameter of it is data, and so is \
            a method's `self` marked `#[no_grad]`"
)]
pub trait Differentiable: Sized {
    /// The float type of the value's floats (`f64` or `f32`).
    type Float: Scalar;
    /// The same shape with every float replaced by `S`.
    type Over<S>;
    /// The value as its twin over its own float type.
    fn to_over(&self) -> Self::Over<Self::Float>;
    /// The value back from its twin over its own float type.
    fn from_over(over: Self::Over<Self::Float>) -> Self;
    /// The twin with every float mapped by `f`, in a fixed order (fields in declaration
    /// order, depth first).
    fn map<A, B>(over: &Self::Over<A>, f: &mut impl FnMut(&A) -> B) -> Self::Over<B>;
    /// Two twins of the same shape combined float by float.
    ///
    /// # Panics
    ///
    /// If the shapes differ (enum variants, `Vec` lengths, `Option`s): a tangent or adjoint
    /// must have the shape of its value.
    fn zip<A, B, C>(
        a: &Self::Over<A>,
        b: &Self::Over<B>,
        f: &mut impl FnMut(&A, &B) -> C,
    ) -> Self::Over<C>;
    /// Visits the floats in the order of [`Differentiable::map`].
    fn for_each<A>(over: &Self::Over<A>, f: &mut impl FnMut(&A));
    /// The first float in that order, found without visiting the rest.
    fn first<A>(over: &Self::Over<A>) -> Option<&A>;
}

/// The message of a shape mismatch between a value and its tangent or adjoint.
#[doc(hidden)]
#[track_caller]
pub fn shapes_differ(what: &str) -> ! {
    panic!("a tangent or adjoint must have the shape of its value: {what} differ")
}

macro_rules! float_leaf {
    ($float:ty) => {
        impl Differentiable for $float {
            type Float = $float;
            type Over<S> = S;
            #[inline(always)]
            fn to_over(&self) -> $float {
                *self
            }
            #[inline(always)]
            fn from_over(over: $float) -> Self {
                over
            }
            #[inline(always)]
            fn map<A, B>(over: &A, f: &mut impl FnMut(&A) -> B) -> B {
                f(over)
            }
            #[inline(always)]
            fn zip<A, B, C>(a: &A, b: &B, f: &mut impl FnMut(&A, &B) -> C) -> C {
                f(a, b)
            }
            #[inline(always)]
            fn for_each<A>(over: &A, f: &mut impl FnMut(&A)) {
                f(over)
            }
            #[inline(always)]
            fn first<A>(over: &A) -> Option<&A> {
                Some(over)
            }
        }
    };
}

float_leaf!(f64);
float_leaf!(f32);

impl<T: Differentiable> Differentiable for Box<T> {
    type Float = T::Float;
    type Over<S> = Box<T::Over<S>>;
    fn to_over(&self) -> Self::Over<T::Float> {
        Box::new(T::to_over(self))
    }
    fn from_over(over: Self::Over<T::Float>) -> Self {
        Box::new(T::from_over(*over))
    }
    fn map<A, B>(over: &Self::Over<A>, f: &mut impl FnMut(&A) -> B) -> Self::Over<B> {
        Box::new(T::map(over, f))
    }
    fn zip<A, B, C>(
        a: &Self::Over<A>,
        b: &Self::Over<B>,
        f: &mut impl FnMut(&A, &B) -> C,
    ) -> Self::Over<C> {
        Box::new(T::zip(a, b, f))
    }
    fn for_each<A>(over: &Self::Over<A>, f: &mut impl FnMut(&A)) {
        T::for_each(over, f)
    }
    fn first<A>(over: &Self::Over<A>) -> Option<&A> {
        T::first(over)
    }
}

impl<T: Differentiable> Differentiable for Option<T> {
    type Float = T::Float;
    type Over<S> = Option<T::Over<S>>;
    fn to_over(&self) -> Self::Over<T::Float> {
        self.as_ref().map(T::to_over)
    }
    fn from_over(over: Self::Over<T::Float>) -> Self {
        over.map(T::from_over)
    }
    fn map<A, B>(over: &Self::Over<A>, f: &mut impl FnMut(&A) -> B) -> Self::Over<B> {
        over.as_ref().map(|inner| T::map(inner, f))
    }
    fn zip<A, B, C>(
        a: &Self::Over<A>,
        b: &Self::Over<B>,
        f: &mut impl FnMut(&A, &B) -> C,
    ) -> Self::Over<C> {
        match (a, b) {
            (Some(a), Some(b)) => Some(T::zip(a, b, f)),
            (None, None) => None,
            _ => shapes_differ("`Some` and `None`"),
        }
    }
    fn for_each<A>(over: &Self::Over<A>, f: &mut impl FnMut(&A)) {
        if let Some(inner) = over {
            T::for_each(inner, f)
        }
    }
    fn first<A>(over: &Self::Over<A>) -> Option<&A> {
        over.as_ref().and_then(T::first)
    }
}

impl<T: Differentiable> Differentiable for Vec<T> {
    type Float = T::Float;
    type Over<S> = Vec<T::Over<S>>;
    fn to_over(&self) -> Self::Over<T::Float> {
        self.iter().map(T::to_over).collect()
    }
    fn from_over(over: Self::Over<T::Float>) -> Self {
        over.into_iter().map(T::from_over).collect()
    }
    fn map<A, B>(over: &Self::Over<A>, f: &mut impl FnMut(&A) -> B) -> Self::Over<B> {
        over.iter().map(|inner| T::map(inner, f)).collect()
    }
    fn zip<A, B, C>(
        a: &Self::Over<A>,
        b: &Self::Over<B>,
        f: &mut impl FnMut(&A, &B) -> C,
    ) -> Self::Over<C> {
        if a.len() != b.len() {
            shapes_differ("`Vec` lengths");
        }
        a.iter().zip(b).map(|(a, b)| T::zip(a, b, f)).collect()
    }
    fn for_each<A>(over: &Self::Over<A>, f: &mut impl FnMut(&A)) {
        for inner in over {
            T::for_each(inner, f)
        }
    }
    fn first<A>(over: &Self::Over<A>) -> Option<&A> {
        over.iter().find_map(T::first)
    }
}

impl<T: Differentiable, const N: usize> Differentiable for [T; N] {
    type Float = T::Float;
    type Over<S> = [T::Over<S>; N];
    fn to_over(&self) -> Self::Over<T::Float> {
        core::array::from_fn(|i| T::to_over(&self[i]))
    }
    fn from_over(over: Self::Over<T::Float>) -> Self {
        over.map(T::from_over)
    }
    fn map<A, B>(over: &Self::Over<A>, f: &mut impl FnMut(&A) -> B) -> Self::Over<B> {
        core::array::from_fn(|i| T::map(&over[i], f))
    }
    fn zip<A, B, C>(
        a: &Self::Over<A>,
        b: &Self::Over<B>,
        f: &mut impl FnMut(&A, &B) -> C,
    ) -> Self::Over<C> {
        core::array::from_fn(|i| T::zip(&a[i], &b[i], f))
    }
    fn for_each<A>(over: &Self::Over<A>, f: &mut impl FnMut(&A)) {
        for inner in over {
            T::for_each(inner, f)
        }
    }
    fn first<A>(over: &Self::Over<A>) -> Option<&A> {
        over.iter().find_map(T::first)
    }
}

macro_rules! tuple_impl {
    ($first:ident 0 $(, $name:ident $index:tt)*) => {
        /// A tuple's floats must share one float type.
        impl<$first: Differentiable $(, $name: Differentiable<Float = $first::Float>)*>
            Differentiable for ($first, $($name,)*)
        {
            type Float = $first::Float;
            type Over<S> = ($first::Over<S>, $($name::Over<S>,)*);
            fn to_over(&self) -> Self::Over<Self::Float> {
                ($first::to_over(&self.0), $($name::to_over(&self.$index),)*)
            }
            fn from_over(over: Self::Over<Self::Float>) -> Self {
                ($first::from_over(over.0), $($name::from_over(over.$index),)*)
            }
            fn map<A, B>(over: &Self::Over<A>, f: &mut impl FnMut(&A) -> B) -> Self::Over<B> {
                ($first::map(&over.0, f), $($name::map(&over.$index, f),)*)
            }
            fn zip<A, B, C>(
                a: &Self::Over<A>,
                b: &Self::Over<B>,
                f: &mut impl FnMut(&A, &B) -> C,
            ) -> Self::Over<C> {
                ($first::zip(&a.0, &b.0, f), $($name::zip(&a.$index, &b.$index, f),)*)
            }
            fn for_each<A>(over: &Self::Over<A>, f: &mut impl FnMut(&A)) {
                $first::for_each(&over.0, f);
                $($name::for_each(&over.$index, f);)*
            }
            fn first<A>(over: &Self::Over<A>) -> Option<&A> {
                $first::first(&over.0)$(.or_else(|| $name::first(&over.$index)))*
            }
        }
    };
}

tuple_impl!(T0 0, T1 1);
tuple_impl!(T0 0, T1 1, T2 2);
tuple_impl!(T0 0, T1 1, T2 2, T3 3);
