//! Dual numbers with `N` tangents: the vector forward mode that Jacobians and Hessians are
//! computed with (`f_jacfwd`, `f_hessian`), `N` directional derivatives per pass.

use core::fmt;

use crate::linear::{LinearMap, SingularScale};
use crate::rules;
use crate::Scalar;

/// The vector dual number the generated functions run many directions at with: `f_jacfwd`,
/// `f_hessian`, and `f_vjp`/`f_grad` of a `#[reverse]` function taking a closure, which take
/// that closure over it (write the closure with untyped parameters, `|t| t.sin()`, or generic
/// over [`Scalar`]).
///
/// ```
/// use ad_runtime::{DualChunk, Scalar};
///
/// let square = |t: DualChunk<f64>| t * t;
/// assert_eq!(square(DualChunk::constant(3.0)).value, 9.0);
/// ```
pub type DualChunk<S> = DualVec<S, { crate::__private::jacobian::CHUNK }>;

/// A value together with `N` tangents, the derivatives along `N` directions at once.
///
/// Each operation takes the rule of [`rules`](crate::rules) for its primitive once and applies
/// its derivative to every tangent, so a pass over `DualVec<f64, N>` computes `N` columns of a
/// Jacobian. Like [`Dual`](crate::Dual), it is a [`Scalar`], and comparisons look at the
/// value only.
///
/// ```
/// use ad_runtime::{DualVec, Scalar};
///
/// // The two partial derivatives of x * y at (2, 3) in one pass.
/// let x = DualVec::new(2.0_f64, [1.0, 0.0]);
/// let y = DualVec::new(3.0_f64, [0.0, 1.0]);
/// let z = x * y + x.sin();
/// assert_eq!(z.tangents, [3.0 + 2.0_f64.cos(), 2.0]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct DualVec<S, const N: usize> {
    /// The value.
    pub value: S,
    /// The tangents: the derivatives of the value along each seed direction.
    pub tangents: [S; N],
}

impl<S: Scalar, const N: usize> Default for DualVec<S, N> {
    fn default() -> Self {
        DualVec::constant(S::default())
    }
}

impl<S: Scalar, const N: usize> DualVec<S, N> {
    /// A value with the given tangents.
    #[inline(always)]
    pub fn new(value: S, tangents: [S; N]) -> Self {
        DualVec { value, tangents }
    }

    /// A constant: every tangent zero.
    #[inline(always)]
    pub fn constant(value: S) -> Self {
        DualVec {
            value,
            tangents: [S::zero(); N],
        }
    }

    #[inline(always)]
    fn unary<M: LinearMap<Domain = S, Codomain = S>>(self, rule: fn(S) -> (S, M)) -> Self {
        self.unary_with(rule(self.value))
    }

    /// The value and derivative a rule gave at this value, the derivative applied to every
    /// direction.
    #[inline(always)]
    fn unary_with<M: LinearMap<Domain = S, Codomain = S>>(
        self,
        (value, derivative): (S, M),
    ) -> Self {
        let mut tangents = self.tangents;
        if derivative.needs_guards() {
            for t in &mut tangents {
                *t = derivative.apply(*t);
            }
        } else {
            for t in &mut tangents {
                *t = derivative.apply_unguarded(*t);
            }
        }
        DualVec { value, tangents }
    }

    #[inline(always)]
    pub(super) fn binary<M: LinearMap<Domain = (S, S), Codomain = S>>(
        self,
        other: Self,
        rule: fn(S, S) -> (S, M),
    ) -> Self {
        let (value, derivative) = rule(self.value, other.value);
        let mut tangents = self.tangents;
        if derivative.needs_guards() {
            for (t, o) in tangents.iter_mut().zip(&other.tangents) {
                *t = derivative.apply((*t, *o));
            }
        } else {
            for (t, o) in tangents.iter_mut().zip(&other.tangents) {
                *t = derivative.apply_unguarded((*t, *o));
            }
        }
        DualVec { value, tangents }
    }

    #[inline(always)]
    fn ternary<M: LinearMap<Domain = (S, (S, S)), Codomain = S>>(
        self,
        a: Self,
        b: Self,
        rule: fn(S, S, S) -> (S, M),
    ) -> Self {
        let (value, derivative) = rule(self.value, a.value, b.value);
        let mut tangents = self.tangents;
        if derivative.needs_guards() {
            for (k, t) in tangents.iter_mut().enumerate() {
                *t = derivative.apply((*t, (a.tangents[k], b.tangents[k])));
            }
        } else {
            for (k, t) in tangents.iter_mut().enumerate() {
                *t = derivative.apply_unguarded((*t, (a.tangents[k], b.tangents[k])));
            }
        }
        DualVec { value, tangents }
    }
}

impl<S: Scalar, const N: usize> DualVec<S, N> {
    super::all_inherent_float_methods!();
}

impl<S: Scalar, const N: usize> fmt::Display for DualVec<S, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.value)?;
        for (k, tangent) in self.tangents.iter().enumerate() {
            write!(f, " + {tangent}ε{k}")?;
        }
        Ok(())
    }
}

dual_operations!([S: Scalar, const N: usize] DualVec<S, N>);

impl<S: Scalar, const N: usize> crate::adjoint::Diff for DualVec<S, N> {
    type Adjoint = DualVec<S, N>;
    fn zero_like(&self) -> DualVec<S, N> {
        <DualVec<S, N> as Scalar>::zero()
    }
}

impl<S: Scalar, const N: usize> crate::adjoint::ValueOf for DualVec<S, N> {
    type Value = DualVec<S, N>;
    #[inline(always)]
    fn value_of(self) -> Self {
        self
    }
}

impl<S: Scalar, const N: usize> crate::ScalarRef<DualVec<S, N>> for &DualVec<S, N> {}

impl<S: Scalar, const N: usize> Scalar for DualVec<S, N> {
    type Base = S::Base;

    #[inline(always)]
    fn from_f64(value: f64) -> Self {
        DualVec::constant(S::from_f64(value))
    }
    #[inline(always)]
    fn from_f32(value: f32) -> Self {
        DualVec::constant(S::from_f32(value))
    }
    #[inline(always)]
    fn from_base(value: S::Base) -> Self {
        DualVec::constant(S::from_base(value))
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
        self.value.is_zero() && self.tangents.iter().all(|t| t.is_zero())
    }
    #[inline(always)]
    fn is_finite_everywhere(self) -> bool {
        self.value.is_finite_everywhere() && self.tangents.iter().all(|t| t.is_finite_everywhere())
    }
    #[inline(always)]
    fn mul_constant(self, c: S::Base) -> Self {
        let mut tangents = self.tangents;
        for t in &mut tangents {
            *t = t.mul_constant(c);
        }
        DualVec::new(self.value.mul_constant(c), tangents)
    }
    #[inline(always)]
    fn add_constant(self, c: S::Base) -> Self {
        DualVec::new(self.value.add_constant(c), self.tangents)
    }
    #[inline(always)]
    fn constant_sub(self, c: S::Base) -> Self {
        let mut tangents = self.tangents;
        for t in &mut tangents {
            *t = -*t;
        }
        DualVec::new(self.value.constant_sub(c), tangents)
    }
    #[inline(always)]
    fn div_constant(self, c: S::Base) -> Self {
        let mut tangents = self.tangents;
        for t in &mut tangents {
            *t = t.div_constant(c);
        }
        DualVec::new(self.value.div_constant(c), tangents)
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
        let mut d_sin = [S::zero(); N];
        let mut d_cos = [S::zero(); N];
        for (k, t) in self.tangents.iter().enumerate() {
            (d_sin[k], d_cos[k]) = derivative.apply(*t);
        }
        (DualVec::new(sin, d_sin), DualVec::new(cos, d_cos))
    }

    #[inline(always)]
    fn powi(self, n: i32) -> Self {
        self.unary_with(rules::powi(self.value, n))
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
    fn through_rule<R: crate::custom_rule::Rule<S::Base, M>, const M: usize>(
        args: [Self; M],
    ) -> Self {
        let values = args.map(|arg| arg.value);
        let value = S::through_rule::<R, M>(values);
        if args
            .iter()
            .all(|arg| arg.tangents.iter().all(|tangent| tangent.is_zero()))
        {
            return DualVec::constant(value);
        }
        let partials = R::partials(values);
        let mut tangents = [S::zero(); N];
        for (partial, arg) in partials.iter().zip(&args) {
            // A zero tangent stays zero under an infinite partial, as through the built-in
            // rules.
            let partial = SingularScale(*partial);
            for (tangent, along) in tangents.iter_mut().zip(&arg.tangents) {
                *tangent += partial.apply(*along);
            }
        }
        DualVec::new(value, tangents)
    }
}
