//! Dual numbers: a value with its tangent, the numbers forward mode computes with.

use core::cmp::Ordering;
use core::fmt;
use core::iter::{Product, Sum};
use core::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

mod float;
mod vector;

pub use vector::DualVec;

use crate::linear::LinearMap;
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
/// take the same path as in the plain code.
///
/// ```
/// use ad_runtime::{Dual, Scalar};
///
/// let x = Dual::new(2.0_f64, 1.0); // seed dx = 1
/// let y = x * x.sin();
/// assert_eq!(y.value, 2.0 * 2.0_f64.sin());
/// assert_eq!(y.tangent, 2.0_f64.sin() + 2.0 * 2.0_f64.cos());
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

impl<S: Scalar> PartialEq for Dual<S> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<S: Scalar> PartialOrd for Dual<S> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.value.partial_cmp(&other.value)
    }
}

impl<S: Scalar> fmt::Display for Dual<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} + {}ε", self.value, self.tangent)
    }
}

macro_rules! binary_operator {
    ($Trait:ident $method:ident $rule:ident, $AssignTrait:ident $assign:ident) => {
        impl<S: Scalar> $Trait for Dual<S> {
            type Output = Self;
            #[inline(always)]
            fn $method(self, other: Self) -> Self {
                self.binary(other, rules::$rule)
            }
        }
        impl<'a, S: Scalar> $Trait<&'a Dual<S>> for Dual<S> {
            type Output = Dual<S>;
            #[inline(always)]
            fn $method(self, other: &'a Dual<S>) -> Dual<S> {
                self.binary(*other, rules::$rule)
            }
        }
        impl<'a, S: Scalar> $Trait<Dual<S>> for &'a Dual<S> {
            type Output = Dual<S>;
            #[inline(always)]
            fn $method(self, other: Dual<S>) -> Dual<S> {
                self.binary(other, rules::$rule)
            }
        }
        impl<'a, 'b, S: Scalar> $Trait<&'b Dual<S>> for &'a Dual<S> {
            type Output = Dual<S>;
            #[inline(always)]
            fn $method(self, other: &'b Dual<S>) -> Dual<S> {
                self.binary(*other, rules::$rule)
            }
        }
        impl<S: Scalar> $AssignTrait for Dual<S> {
            #[inline(always)]
            fn $assign(&mut self, other: Self) {
                *self = self.binary(other, rules::$rule);
            }
        }
        impl<'a, S: Scalar> $AssignTrait<&'a Dual<S>> for Dual<S> {
            #[inline(always)]
            fn $assign(&mut self, other: &'a Dual<S>) {
                *self = self.binary(*other, rules::$rule);
            }
        }
    };
}

binary_operator!(Add add add, AddAssign add_assign);
binary_operator!(Sub sub sub, SubAssign sub_assign);
binary_operator!(Mul mul mul, MulAssign mul_assign);
binary_operator!(Div div div, DivAssign div_assign);
binary_operator!(Rem rem rem, RemAssign rem_assign);

impl<S: Scalar> Neg for Dual<S> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        self.unary(rules::neg)
    }
}

impl<S: Scalar> Neg for &Dual<S> {
    type Output = Dual<S>;
    #[inline(always)]
    fn neg(self) -> Dual<S> {
        -*self
    }
}

/// Starts from `-0.0`, as `std`'s float sums do: the sum of nothing is `-0.0`, and adding
/// `-0.0` changes no other sum.
impl<S: Scalar> Sum for Dual<S> {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(-Self::zero(), |acc, x| acc + x)
    }
}

impl<'a, S: Scalar> Sum<&'a Dual<S>> for Dual<S> {
    fn sum<I: Iterator<Item = &'a Dual<S>>>(iter: I) -> Self {
        iter.fold(-Self::zero(), |acc, x| acc + *x)
    }
}

impl<S: Scalar> Product for Dual<S> {
    fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::one(), |acc, x| acc * x)
    }
}

impl<'a, S: Scalar> Product<&'a Dual<S>> for Dual<S> {
    fn product<I: Iterator<Item = &'a Dual<S>>>(iter: I) -> Self {
        iter.fold(Self::one(), |acc, x| acc * *x)
    }
}

macro_rules! delegate {
    (predicates: $($p:ident)*; unary: $($u:ident)*; binary: $($b:ident)*;) => {
        $(#[inline(always)] fn $p(self) -> bool { self.value.$p() })*
        $(#[inline(always)] fn $u(self) -> Self { self.unary(rules::$u) })*
        $(#[inline(always)] fn $b(self, other: Self) -> Self { self.binary(other, rules::$b) })*
    };
}

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
        binary: atan2 log powf hypot min max;
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
}
