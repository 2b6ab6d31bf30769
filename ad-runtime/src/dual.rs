//! Dual numbers: a value with its tangent, the numbers forward mode computes with.

use core::fmt;

mod float;
#[cfg(feature = "nalgebra")]
mod nalgebra;

use crate::linear::{LinearMap, SingularScale};
use crate::rules;
use crate::Scalar;

/// A value together with its tangent (directional derivative).
///
/// Every operation takes the rule of [`rules`](crate::rules) for its primitive and applies
/// the derivative to the tangents. `Dual<S>` is itself a [`Scalar`], so duals nest:
/// `Dual<Dual<f64>>` carries second derivatives, and each level is a distinct type, which rules
/// out perturbation confusion.
///
/// Comparisons (`==`, `<`, ...) look at the values only, so branches in differentiated code
/// take the same path as in the plain code. The arithmetic operators also take a constant of
/// the base float on either side (`x * 2.0`, `1.0 - x`), and the float methods are inherent,
/// so they stay unambiguous beside `num_traits::Float`.
///
/// ```
/// use ad_runtime::{Dual, Scalar};
///
/// let x = Dual::new(2.0_f64, 1.0); // seed dx = 1
/// let y = x * x.sin();
/// assert_eq!(y.value, 2.0 * 2.0_f64.sin());
/// assert_eq!(y.tangent, 2.0_f64.sin() + 2.0 * 2.0_f64.cos());
/// let z = 3.0 * x + 1.0;
/// assert_eq!((z.value, z.tangent), (7.0, 3.0));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Dual<S> {
    /// The value.
    pub value: S,
    /// The tangent: the derivative of the value along the seed direction.
    pub tangent: S,
}

impl<S: Scalar> Dual<S> {
    /// A value with the given tangent.
    #[inline(always)]
    pub fn new(value: S, tangent: S) -> Self {
        Dual { value, tangent }
    }

    /// A constant: tangent zero.
    #[inline(always)]
    pub fn constant(value: S) -> Self {
        Dual {
            value,
            tangent: S::zero(),
        }
    }

    #[inline(always)]
    fn unary<M: LinearMap<Domain = S, Codomain = S>>(self, rule: fn(S) -> (S, M)) -> Self {
        let (value, derivative) = rule(self.value);
        Dual {
            value,
            tangent: derivative.apply(self.tangent),
        }
    }

    #[inline(always)]
    fn binary<M: LinearMap<Domain = (S, S), Codomain = S>>(
        self,
        other: Self,
        rule: fn(S, S) -> (S, M),
    ) -> Self {
        let (value, derivative) = rule(self.value, other.value);
        Dual {
            value,
            tangent: derivative.apply((self.tangent, other.tangent)),
        }
    }

    #[inline(always)]
    fn ternary<M: LinearMap<Domain = (S, (S, S)), Codomain = S>>(
        self,
        a: Self,
        b: Self,
        rule: fn(S, S, S) -> (S, M),
    ) -> Self {
        let (value, derivative) = rule(self.value, a.value, b.value);
        Dual {
            value,
            tangent: derivative.apply((self.tangent, (a.tangent, b.tangent))),
        }
    }
}

/// A dual number prints as its value, with the formatter's options, as the float it stands
/// for: derivative code formats what the function formats (`format!("residual {r:.3}")` in an
/// error message). `{:?}` shows the tangent too.
///
/// ```
/// use ad_runtime::Dual;
///
/// assert_eq!(format!("{:.2}", Dual::new(1.5_f64, 1.0)), "1.50");
/// ```
/// The float methods of [`Scalar`] as inherent methods of a dual number type. A concrete dual
/// number implements both `Scalar` and `num_traits::Float`, which share these names: with both
/// traits in scope (generated code imports `Scalar`, numerical code imports `Float`), `x.sin()`
/// would be ambiguous. Inherent methods come first, and compute the same.
macro_rules! inherent_float_methods {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {
        $(
            #[doc = concat!("[`Scalar::", stringify!($name), "`], the value with its derivatives.")]
            #[inline(always)]
            pub fn $name(self, $($arg: $ty),*) -> $out {
                <Self as Scalar>::$name(self, $($arg),*)
            }
        )*
    };
}

/// The list for [`inherent_float_methods`].
macro_rules! all_inherent_float_methods {
    () => {
        inherent_float_methods! {
            is_nan() -> bool; is_finite() -> bool; is_infinite() -> bool; is_normal() -> bool;
            is_sign_positive() -> bool; is_sign_negative() -> bool;
            sin() -> Self; cos() -> Self; sin_cos() -> (Self, Self); tan() -> Self;
            asin() -> Self; acos() -> Self; atan() -> Self; atan2(other: Self) -> Self;
            sinh() -> Self; cosh() -> Self; tanh() -> Self;
            asinh() -> Self; acosh() -> Self; atanh() -> Self;
            exp() -> Self; exp2() -> Self; exp_m1() -> Self; ln() -> Self; log(base: Self) -> Self;
            log2() -> Self; log10() -> Self; ln_1p() -> Self; sqrt() -> Self; cbrt() -> Self;
            powi(n: i32) -> Self; powf(exponent: Self) -> Self; hypot(other: Self) -> Self;
            midpoint(other: Self) -> Self; copysign(sign: Self) -> Self;
            abs() -> Self; signum() -> Self; recip() -> Self; mul_add(a: Self, b: Self) -> Self;
            min(other: Self) -> Self; max(other: Self) -> Self; clamp(min: Self, max: Self) -> Self;
            to_degrees() -> Self; to_radians() -> Self;
            floor() -> Self; ceil() -> Self; round() -> Self; trunc() -> Self; fract() -> Self;
        }
    };
}
pub(crate) use all_inherent_float_methods;

impl<S: Scalar> Dual<S> {
    all_inherent_float_methods!();
}

impl<S: Scalar + fmt::Display> fmt::Display for Dual<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.value, f)
    }
}

/// The operations every dual type shares, each through the type's `unary`/`binary`, which
/// apply the primitive's rule to the tangent(s): comparisons by value, the arithmetic
/// operators by value and by reference, negation, `Sum` and `Product`, and the `delegate!`
/// macro for the `Scalar` methods with one rule each.
macro_rules! dual_operations {
    ([$($g:tt)*] $ty:ty) => {
        impl<$($g)*> PartialEq for $ty {
            fn eq(&self, other: &Self) -> bool {
                self.value == other.value
            }
        }

        impl<$($g)*> PartialOrd for $ty {
            fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
                self.value.partial_cmp(&other.value)
            }
        }

        dual_operations!(@binary [$($g)*] $ty; Add add add, AddAssign add_assign);
        dual_operations!(@binary [$($g)*] $ty; Sub sub sub, SubAssign sub_assign);
        dual_operations!(@binary [$($g)*] $ty; Mul mul mul, MulAssign mul_assign);
        dual_operations!(@binary [$($g)*] $ty; Div div div, DivAssign div_assign);
        dual_operations!(@binary [$($g)*] $ty; Rem rem rem, RemAssign rem_assign);

        impl<$($g)*> core::ops::Neg for $ty {
            type Output = Self;
            #[inline(always)]
            fn neg(self) -> Self {
                self.unary(crate::rules::neg)
            }
        }

        impl<$($g)*> core::ops::Neg for &$ty {
            type Output = $ty;
            #[inline(always)]
            fn neg(self) -> $ty {
                -*self
            }
        }

        /// Starts from `-0.0`, as `std`'s float sums do: the sum of nothing is `-0.0`, and
        /// adding `-0.0` changes no other sum.
        impl<$($g)*> core::iter::Sum for $ty {
            fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
                iter.fold(-<Self as crate::Scalar>::zero(), |acc, x| acc + x)
            }
        }

        impl<'a, $($g)*> core::iter::Sum<&'a $ty> for $ty {
            fn sum<I: Iterator<Item = &'a $ty>>(iter: I) -> Self {
                iter.fold(-<Self as crate::Scalar>::zero(), |acc, x| acc + *x)
            }
        }

        impl<$($g)*> core::iter::Product for $ty {
            fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
                iter.fold(<Self as crate::Scalar>::one(), |acc, x| acc * x)
            }
        }

        impl<'a, $($g)*> core::iter::Product<&'a $ty> for $ty {
            fn product<I: Iterator<Item = &'a $ty>>(iter: I) -> Self {
                iter.fold(<Self as crate::Scalar>::one(), |acc, x| acc * *x)
            }
        }
    };
    (@binary [$($g:tt)*] $ty:ty;
     $Trait:ident $method:ident $rule:ident, $AssignTrait:ident $assign:ident) => {
        impl<$($g)*> core::ops::$Trait for $ty {
            type Output = Self;
            #[inline(always)]
            fn $method(self, other: Self) -> Self {
                self.binary(other, crate::rules::$rule)
            }
        }
        impl<'a, $($g)*> core::ops::$Trait<&'a $ty> for $ty {
            type Output = $ty;
            #[inline(always)]
            fn $method(self, other: &'a $ty) -> $ty {
                self.binary(*other, crate::rules::$rule)
            }
        }
        impl<'a, $($g)*> core::ops::$Trait<$ty> for &'a $ty {
            type Output = $ty;
            #[inline(always)]
            fn $method(self, other: $ty) -> $ty {
                self.binary(other, crate::rules::$rule)
            }
        }
        impl<'a, 'b, $($g)*> core::ops::$Trait<&'b $ty> for &'a $ty {
            type Output = $ty;
            #[inline(always)]
            fn $method(self, other: &'b $ty) -> $ty {
                self.binary(*other, crate::rules::$rule)
            }
        }
        impl<$($g)*> core::ops::$AssignTrait for $ty {
            #[inline(always)]
            fn $assign(&mut self, other: Self) {
                *self = self.binary(other, crate::rules::$rule);
            }
        }
        impl<'a, $($g)*> core::ops::$AssignTrait<&'a $ty> for $ty {
            #[inline(always)]
            fn $assign(&mut self, other: &'a $ty) {
                *self = self.binary(*other, crate::rules::$rule);
            }
        }
        dual_operations!(@constant [$($g)*] $ty; f64; $Trait $method $rule, $AssignTrait $assign);
        dual_operations!(@constant [$($g)*] $ty; f32; $Trait $method $rule, $AssignTrait $assign);
    };
    // With a constant of the base float on either side (`t.sin() + 2.0` in a closure a user
    // gives to a `_jvp`), as num-dual's numbers take them.
    (@constant [$($g:tt)*] $ty:ty; $float:ty;
     $Trait:ident $method:ident $rule:ident, $AssignTrait:ident $assign:ident) => {
        impl<$($g)*> core::ops::$Trait<$float> for $ty
        where
            S: Scalar<Base = $float>,
        {
            type Output = $ty;
            #[inline(always)]
            fn $method(self, other: $float) -> $ty {
                self.binary(<$ty as Scalar>::from_base(other), crate::rules::$rule)
            }
        }
        impl<$($g)*> core::ops::$Trait<$ty> for $float
        where
            S: Scalar<Base = $float>,
        {
            type Output = $ty;
            #[inline(always)]
            fn $method(self, other: $ty) -> $ty {
                <$ty as Scalar>::from_base(self).binary(other, crate::rules::$rule)
            }
        }
        impl<$($g)*> core::ops::$AssignTrait<$float> for $ty
        where
            S: Scalar<Base = $float>,
        {
            #[inline(always)]
            fn $assign(&mut self, other: $float) {
                *self = self.binary(<$ty as Scalar>::from_base(other), crate::rules::$rule);
            }
        }
    };
}

dual_operations!([S: Scalar] Dual<S>);

/// The `Scalar` methods with one rule each (`Dual` and `DualVec` alike).
macro_rules! delegate {
    (predicates: $($p:ident)*; unary: $($u:ident)*; binary: $($b:ident)*;) => {
        $(#[inline(always)] fn $p(self) -> bool { self.value.$p() })*
        $(#[inline(always)] fn $u(self) -> Self { self.unary(crate::rules::$u) })*
        $(#[inline(always)] fn $b(self, other: Self) -> Self { self.binary(other, crate::rules::$b) })*
    };
}

// After the macros, which it uses too.
mod vector;

pub use vector::{DualChunk, DualVec};

impl<S: Scalar> crate::adjoint::Diff for Dual<S> {
    type Adjoint = Dual<S>;
    fn zero_like(&self) -> Dual<S> {
        <Dual<S> as Scalar>::zero()
    }
}

impl<S: Scalar> Scalar for Dual<S> {
    type Base = S::Base;

    #[inline(always)]
    fn from_f64(value: f64) -> Self {
        Dual::constant(S::from_f64(value))
    }
    #[inline(always)]
    fn from_f32(value: f32) -> Self {
        Dual::constant(S::from_f32(value))
    }
    #[inline(always)]
    fn from_base(value: S::Base) -> Self {
        Dual::constant(S::from_base(value))
    }
    #[inline(always)]
    fn primal(self) -> S::Base {
        self.value.primal()
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self.value.to_f64()
    }
    #[inline(always)]
    fn is_zero(self) -> bool {
        self.value.is_zero() && self.tangent.is_zero()
    }
    #[inline(always)]
    fn is_finite_everywhere(self) -> bool {
        self.value.is_finite_everywhere() && self.tangent.is_finite_everywhere()
    }
    #[inline(always)]
    fn mul_constant(self, c: S::Base) -> Self {
        Dual::new(self.value.mul_constant(c), self.tangent.mul_constant(c))
    }
    #[inline(always)]
    fn add_constant(self, c: S::Base) -> Self {
        Dual::new(self.value.add_constant(c), self.tangent)
    }
    #[inline(always)]
    fn constant_sub(self, c: S::Base) -> Self {
        Dual::new(self.value.constant_sub(c), -self.tangent)
    }
    #[inline(always)]
    fn div_constant(self, c: S::Base) -> Self {
        Dual::new(self.value.div_constant(c), self.tangent.div_constant(c))
    }

    delegate! {
        predicates: is_nan is_finite is_infinite is_normal is_sign_positive is_sign_negative;
        unary: sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh exp exp2 exp_m1
               ln log2 log10 ln_1p sqrt cbrt abs signum recip to_degrees to_radians
               floor ceil round trunc fract;
        binary: atan2 log powf hypot min max midpoint copysign;
    }

    #[inline(always)]
    fn sin_cos(self) -> (Self, Self) {
        let ((sin, cos), derivative) = rules::sin_cos(self.value);
        let (d_sin, d_cos) = derivative.apply(self.tangent);
        (Dual::new(sin, d_sin), Dual::new(cos, d_cos))
    }

    #[inline(always)]
    fn powi(self, n: i32) -> Self {
        let (value, derivative) = rules::powi(self.value, n);
        Dual::new(value, derivative.apply(self.tangent))
    }

    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        self.ternary(a, b, rules::mul_add)
    }

    #[inline(always)]
    fn clamp(self, min: Self, max: Self) -> Self {
        self.ternary(min, max, rules::clamp)
    }
    #[inline(always)]
    fn through_rule<R: crate::custom_rule::Rule<S::Base, N>, const N: usize>(
        args: [Self; N],
    ) -> Self {
        let values = args.map(|arg| arg.value);
        let value = S::through_rule::<R, N>(values);
        // Without a tangent the partials are not needed (nor, for a rule whose partials hold
        // at the base float only, available).
        if args.iter().all(|arg| arg.tangent.is_zero()) {
            return Dual::constant(value);
        }
        let partials = R::partials(values);
        let mut tangent = S::zero();
        for (partial, arg) in partials.iter().zip(&args) {
            // A zero tangent stays zero under an infinite partial, as through the built-in
            // rules.
            tangent += SingularScale(*partial).apply(arg.tangent);
        }
        Dual { value, tangent }
    }
}
