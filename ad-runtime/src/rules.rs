//! The primitive rules: each differentiable primitive written once, as its value together with
//! its derivative at that point as a [`LinearMap`].
//!
//! Forward mode calls [`LinearMap::apply`] on the tangents of the arguments; reverse mode calls
//! [`LinearMap::reverse_apply`] on the cotangent of the result. Both come from the one
//! definition below, so the modes cannot drift apart (seed `002`, Figure 2).
//!
//! # Conventions where the derivative does not exist
//!
//! | primitive | point | derivative used | why |
//! | --- | --- | --- | --- |
//! | `abs` | `x = 0` | `0` | the subgradient of least norm, as JAX and PyTorch |
//! | `max`, `min` | tie `x = y` | `1/2` to each argument | the only choice that is right along the diagonal (`max(t, t) = t`) |
//! | `max`, `min` | one argument NaN | all to the other argument | that is the one `std` returns |
//! | `clamp` | `x = min` or `x = max` | `1` to `x` | the bounds get derivative only when strictly active |
//! | `hypot` | `(0, 0)` | `(0, 0)` | as `abs`, of which it is the 2-d case |
//! | `signum`, `floor`, `ceil`, `round`, `trunc` | jumps | `0` | piecewise constant |
//! | `abs_sub` | `x = y` | `(0, 0)` | the value is `0` there, as on the whole side `x < y` |
//! | `copysign` | any point | `0` in `sign` | only the sign of `sign` is read |
//! | `powi(x, 0)` | any `x` | `0` | `x^0 = 1` is constant (no `0 * inf` at `x = 0`) |
//! | `powf(x, y)` | `x = 0`, `y > 0` | `d/dy = 0` | the limit of `x^y ln x` |
//! | `sqrt`, `cbrt` | `x = 0` | `+inf` | the one-sided limit |
//! | `ln`, `log2`, `log10`, `log` | `x = 0` | `+inf` | the one-sided limit |
//! | `asin`, `acos`, `atanh` | `x = ±1` | `±inf` | the one-sided limit |
//! | `acosh` | `x = 1` | `+inf` | the one-sided limit |
//! | `atan2` | `(0, 0)` | NaN | no limit exists |
//!
//! Wherever a derivative may be infinite or NaN the rule uses [`SingularScale`], so a zero
//! tangent stays zero: `x + sqrt(y)` at `y = 0` has derivative `1` in `x`, not NaN.
//!
//! ```
//! use ad_runtime::linear::LinearMap;
//! use ad_runtime::rules;
//!
//! let (value, derivative) = rules::sin(0.0_f64);
//! assert_eq!(value, 0.0);
//! assert_eq!(derivative.apply(1.0), 1.0); // forward: cos(0) * 1
//! assert_eq!(derivative.reverse_apply(2.0), 2.0); // reverse: cos(0) * 2
//! ```

use crate::linear::{HCat, Identity, LinearMap, Negate, Scale, SingularScale, VCat, Zero};
use crate::Scalar;

/// The derivative of a binary primitive: `(dx, dy) -> a dx + b dy`.
pub type Binary<A, B> = HCat<A, B>;
/// The derivative of a ternary primitive: `(dx, (dy, dz)) -> a dx + b dy + c dz`.
pub type Ternary<A, B, C> = HCat<A, HCat<B, C>>;
/// A ternary derivative whose three parts are scalings.
pub type ScaleTernary<S> = Ternary<Scale<S>, Scale<S>, Scale<S>>;
/// The derivative of `mul_add`: two scalings and the identity on the addend.
pub type MulAddDerivative<S> = Ternary<Scale<S>, Scale<S>, Identity<S>>;

fn constant<S: Scalar>(value: f64) -> S {
    S::from_f64(value)
}

fn zero_map<S: Scalar>() -> Zero<S, S> {
    Zero::new(S::zero(), S::zero())
}

/// `x + y`.
#[inline(always)]
pub fn add<S: Scalar>(x: S, y: S) -> (S, Binary<Identity<S>, Identity<S>>) {
    (x + y, HCat(Identity::new(), Identity::new()))
}

/// `x - y`.
#[inline(always)]
pub fn sub<S: Scalar>(x: S, y: S) -> (S, Binary<Identity<S>, Negate<S>>) {
    (x - y, HCat(Identity::new(), Negate::new()))
}

/// `x * y`.
#[inline(always)]
pub fn mul<S: Scalar>(x: S, y: S) -> (S, Binary<Scale<S>, Scale<S>>) {
    (x * y, HCat(factor_partial(y), factor_partial(x)))
}

/// A product's partial in one factor: the other factor. Reverse mode takes it alone where the
/// other factor has no adjoint (`0.5 * s`).
#[doc(hidden)]
#[inline(always)]
pub fn factor_partial<S: Scalar>(other: S) -> Scale<S> {
    Scale(other)
}

/// `x / y`. At `y = 0` the derivatives are infinite.
#[inline(always)]
pub fn div<S: Scalar>(x: S, y: S) -> (S, Binary<SingularScale<S>, SingularScale<S>>) {
    let quotient = x / y;
    let inverse = y.recip();
    (
        quotient,
        HCat(numerator_partial(y), SingularScale(-quotient * inverse)),
    )
}

/// A quotient's partial in its numerator: `1 / y`. Reverse mode takes it alone where the
/// denominator has no adjoint (`x / 3.0`).
#[doc(hidden)]
#[inline(always)]
pub fn numerator_partial<S: Scalar>(y: S) -> SingularScale<S> {
    SingularScale(y.recip())
}

/// `x % y`, which is `x - trunc(x / y) * y`; the jumps of `trunc` have derivative 0.
#[inline(always)]
pub fn rem<S: Scalar>(x: S, y: S) -> (S, Binary<Identity<S>, Scale<S>>) {
    (x % y, HCat(Identity::new(), Scale(-(x / y).trunc())))
}

/// `-x`.
#[inline(always)]
pub fn neg<S: Scalar>(x: S) -> (S, Negate<S>) {
    (-x, Negate::new())
}

/// `sin x`.
#[inline(always)]
pub fn sin<S: Scalar>(x: S) -> (S, Scale<S>) {
    let (sin, cos) = x.sin_cos();
    (sin, Scale(cos))
}

/// `cos x`.
#[inline(always)]
pub fn cos<S: Scalar>(x: S) -> (S, Scale<S>) {
    let (sin, cos) = x.sin_cos();
    (cos, Scale(-sin))
}

/// `(sin x, cos x)`: one input, two outputs, so the derivative is a vertical concatenation.
#[inline(always)]
pub fn sin_cos<S: Scalar>(x: S) -> ((S, S), VCat<Scale<S>, Scale<S>>) {
    let (sin, cos) = x.sin_cos();
    ((sin, cos), VCat(Scale(cos), Scale(-sin)))
}

/// `tan x`; the derivative is `1 + tan² x`.
#[inline(always)]
pub fn tan<S: Scalar>(x: S) -> (S, Scale<S>) {
    let tan = x.tan();
    (tan, Scale(S::one() + tan * tan))
}

/// `asin x`; infinite derivative at `x = ±1`.
#[inline(always)]
pub fn asin<S: Scalar>(x: S) -> (S, SingularScale<S>) {
    (x.asin(), SingularScale((S::one() - x * x).sqrt().recip()))
}

/// `acos x`; infinite derivative at `x = ±1`.
#[inline(always)]
pub fn acos<S: Scalar>(x: S) -> (S, SingularScale<S>) {
    (x.acos(), SingularScale(-(S::one() - x * x).sqrt().recip()))
}

/// `atan x`.
#[inline(always)]
pub fn atan<S: Scalar>(x: S) -> (S, Scale<S>) {
    (x.atan(), Scale((S::one() + x * x).recip()))
}

/// `atan2(y, x)`, the angle of the point `(x, y)`; NaN derivative at the origin.
#[inline(always)]
pub fn atan2<S: Scalar>(y: S, x: S) -> (S, Binary<SingularScale<S>, SingularScale<S>>) {
    let inverse_norm2 = (x * x + y * y).recip();
    (
        y.atan2(x),
        HCat(
            SingularScale(x * inverse_norm2),
            SingularScale(-y * inverse_norm2),
        ),
    )
}

/// `sinh x`.
#[inline(always)]
pub fn sinh<S: Scalar>(x: S) -> (S, Scale<S>) {
    (x.sinh(), Scale(x.cosh()))
}

/// `cosh x`.
#[inline(always)]
pub fn cosh<S: Scalar>(x: S) -> (S, Scale<S>) {
    (x.cosh(), Scale(x.sinh()))
}

/// `tanh x`; the derivative is `1 - tanh² x`.
#[inline(always)]
pub fn tanh<S: Scalar>(x: S) -> (S, Scale<S>) {
    let tanh = x.tanh();
    (tanh, tanh_from_value(tanh))
}

/// `tanh`'s linear map from its value: reverse mode keeps the value, not both.
#[doc(hidden)]
#[inline(always)]
pub fn tanh_from_value<S: Scalar>(tanh: S) -> Scale<S> {
    Scale(S::one() - tanh * tanh)
}

/// `asinh x`.
#[inline(always)]
pub fn asinh<S: Scalar>(x: S) -> (S, Scale<S>) {
    (x.asinh(), Scale((x * x + S::one()).sqrt().recip()))
}

/// `acosh x`; infinite derivative at `x = 1`.
#[inline(always)]
pub fn acosh<S: Scalar>(x: S) -> (S, SingularScale<S>) {
    (x.acosh(), SingularScale((x * x - S::one()).sqrt().recip()))
}

/// `atanh x`; infinite derivative at `x = ±1`.
#[inline(always)]
pub fn atanh<S: Scalar>(x: S) -> (S, SingularScale<S>) {
    (x.atanh(), SingularScale((S::one() - x * x).recip()))
}

/// `e^x`.
#[inline(always)]
pub fn exp<S: Scalar>(x: S) -> (S, Scale<S>) {
    let exp = x.exp();
    (exp, exp_from_value(exp))
}

/// `exp`'s linear map from its value: reverse mode keeps the value, not both.
#[doc(hidden)]
#[inline(always)]
pub fn exp_from_value<S: Scalar>(exp: S) -> Scale<S> {
    Scale(exp)
}

/// `2^x`.
#[inline(always)]
pub fn exp2<S: Scalar>(x: S) -> (S, Scale<S>) {
    let exp2 = x.exp2();
    (exp2, Scale(exp2 * constant::<S>(core::f64::consts::LN_2)))
}

/// `e^x - 1`, accurate near 0.
#[inline(always)]
pub fn exp_m1<S: Scalar>(x: S) -> (S, Scale<S>) {
    (x.exp_m1(), Scale(x.exp()))
}

/// `ln x`; infinite derivative at `x = 0`.
#[inline(always)]
pub fn ln<S: Scalar>(x: S) -> (S, SingularScale<S>) {
    (x.ln(), SingularScale(x.recip()))
}

/// `log_base x = ln x / ln base`.
#[inline(always)]
pub fn log<S: Scalar>(x: S, base: S) -> (S, Binary<SingularScale<S>, SingularScale<S>>) {
    let ln_base = base.ln();
    let value = x.log(base);
    (
        value,
        HCat(
            SingularScale((x * ln_base).recip()),
            SingularScale(-value / (base * ln_base)),
        ),
    )
}

/// `log2 x`; infinite derivative at `x = 0`.
#[inline(always)]
pub fn log2<S: Scalar>(x: S) -> (S, SingularScale<S>) {
    (
        x.log2(),
        SingularScale((x * constant::<S>(core::f64::consts::LN_2)).recip()),
    )
}

/// `log10 x`; infinite derivative at `x = 0`.
#[inline(always)]
pub fn log10<S: Scalar>(x: S) -> (S, SingularScale<S>) {
    (
        x.log10(),
        SingularScale((x * constant::<S>(core::f64::consts::LN_10)).recip()),
    )
}

/// `ln(1 + x)`, accurate near 0; infinite derivative at `x = -1`.
#[inline(always)]
pub fn ln_1p<S: Scalar>(x: S) -> (S, SingularScale<S>) {
    (x.ln_1p(), SingularScale((S::one() + x).recip()))
}

/// `√x`; infinite derivative at `x = 0`.
#[inline(always)]
pub fn sqrt<S: Scalar>(x: S) -> (S, SingularScale<S>) {
    let sqrt = x.sqrt();
    (sqrt, sqrt_from_value(sqrt))
}

/// `√`'s linear map from its value: reverse mode keeps the value, not both.
#[doc(hidden)]
#[inline(always)]
pub fn sqrt_from_value<S: Scalar>(sqrt: S) -> SingularScale<S> {
    SingularScale((sqrt + sqrt).recip())
}

/// `∛x`; infinite derivative at `x = 0`.
#[inline(always)]
pub fn cbrt<S: Scalar>(x: S) -> (S, SingularScale<S>) {
    let cbrt = x.cbrt();
    (
        cbrt,
        SingularScale((constant::<S>(3.0) * cbrt * cbrt).recip()),
    )
}

/// `x^n` for an integer `n`; the derivative is `n x^(n-1)`, and `0` for `n = 0`.
#[inline(always)]
pub fn powi<S: Scalar>(x: S, n: i32) -> (S, SingularScale<S>) {
    let derivative = match n {
        0 => S::zero(),
        1 => S::one(),
        _ => S::from_f64(f64::from(n)) * x.powi(n - 1),
    };
    (x.powi(n), SingularScale(derivative))
}

/// `x^y`; `d/dx = y x^(y-1)`, `d/dy = x^y ln x` (taken as `0` at `x = 0`, `y > 0`).
#[inline(always)]
pub fn powf<S: Scalar>(x: S, y: S) -> (S, Binary<SingularScale<S>, SingularScale<S>>) {
    let value = x.powf(y);
    let d_base = if y.is_zero() {
        S::zero()
    } else {
        y * x.powf(y - S::one())
    };
    let d_exponent = if x.is_zero() && y > S::zero() {
        S::zero()
    } else {
        value * x.ln()
    };
    (
        value,
        HCat(SingularScale(d_base), SingularScale(d_exponent)),
    )
}

/// `√(x² + y²)`; derivative `(0, 0)` at the origin.
#[inline(always)]
pub fn hypot<S: Scalar>(x: S, y: S) -> (S, Binary<Scale<S>, Scale<S>>) {
    let value = x.hypot(y);
    if value.is_zero() {
        return (value, HCat(Scale(S::zero()), Scale(S::zero())));
    }
    let inverse = value.recip();
    (value, HCat(Scale(x * inverse), Scale(y * inverse)))
}

/// The midpoint `(x + y) / 2` (`f64::midpoint`); derivative `(1/2, 1/2)` everywhere, also
/// where the value is computed by halving first.
#[inline(always)]
pub fn midpoint<S: Scalar>(x: S, y: S) -> (S, Binary<Scale<S>, Scale<S>>) {
    let half = S::one() / (S::one() + S::one());
    (x.midpoint(y), HCat(Scale(half), Scale(half)))
}

/// `|x|`; derivative `0` at `x = 0`.
#[inline(always)]
pub fn abs<S: Scalar>(x: S) -> (S, Scale<S>) {
    let slope = if x > S::zero() {
        S::one()
    } else if x < S::zero() {
        -S::one()
    } else {
        S::zero()
    };
    (x.abs(), Scale(slope))
}

/// `signum x`: piecewise constant, derivative `0`.
#[inline(always)]
pub fn signum<S: Scalar>(x: S) -> (S, Zero<S, S>) {
    (x.signum(), zero_map())
}

/// The positive difference (`Float::abs_sub` of num-traits): `x - y` where `x > y`, else `0`
/// with derivative `0` (also at the kink `x = y`, where the value is `0`).
#[inline(always)]
pub fn abs_sub<S: Scalar>(x: S, y: S) -> (S, Binary<Scale<S>, Scale<S>>) {
    if x <= y {
        (S::zero(), HCat(Scale(S::zero()), Scale(S::zero())))
    } else {
        (x - y, HCat(Scale(S::one()), Scale(-S::one())))
    }
}

/// `x` with the sign of `sign` (`copysign`): `x` or `-x`, so the derivative is `±1` in `x`
/// and `0` in `sign`, whose magnitude is not read.
#[inline(always)]
pub fn copysign<S: Scalar>(x: S, sign: S) -> (S, Binary<Scale<S>, Zero<S, S>>) {
    if x.is_sign_negative() == sign.is_sign_negative() {
        (x, HCat(Scale(S::one()), zero_map()))
    } else {
        (-x, HCat(Scale(-S::one()), zero_map()))
    }
}

/// `1 / x`; infinite derivative at `x = 0`.
#[inline(always)]
pub fn recip<S: Scalar>(x: S) -> (S, SingularScale<S>) {
    let recip = x.recip();
    (recip, SingularScale(-recip * recip))
}

/// `x * a + b` with one rounding.
#[inline(always)]
pub fn mul_add<S: Scalar>(x: S, a: S, b: S) -> (S, MulAddDerivative<S>) {
    (
        x.mul_add(a, b),
        HCat(Scale(a), HCat(Scale(x), Identity::new())),
    )
}

/// The weights `(w_x, w_y)` that `max`/`min` give their arguments: all to the one returned,
/// half each at a tie, all to the non-NaN one when the other is NaN.
#[inline(always)]
fn selection_weights<S: Scalar>(x: S, y: S, x_wins: bool) -> (S, S) {
    if x.is_nan() {
        (S::zero(), S::one())
    } else if y.is_nan() || x_wins {
        (S::one(), S::zero())
    } else if x == y {
        let half = constant::<S>(0.5);
        (half, half)
    } else {
        (S::zero(), S::one())
    }
}

/// `max(x, y)`; at a tie each argument gets half the derivative.
#[inline(always)]
pub fn max<S: Scalar>(x: S, y: S) -> (S, Binary<Scale<S>, Scale<S>>) {
    let (wx, wy) = selection_weights(x, y, x > y);
    (x.max(y), HCat(Scale(wx), Scale(wy)))
}

/// `min(x, y)`; at a tie each argument gets half the derivative.
#[inline(always)]
pub fn min<S: Scalar>(x: S, y: S) -> (S, Binary<Scale<S>, Scale<S>>) {
    let (wx, wy) = selection_weights(x, y, x < y);
    (x.min(y), HCat(Scale(wx), Scale(wy)))
}

/// `clamp(x, lo, hi)`; a bound gets the derivative only when `x` is strictly beyond it.
#[inline(always)]
pub fn clamp<S: Scalar>(x: S, lo: S, hi: S) -> (S, ScaleTernary<S>) {
    let (wx, wlo, whi) = if x < lo {
        (S::zero(), S::one(), S::zero())
    } else if x > hi {
        (S::zero(), S::zero(), S::one())
    } else {
        (S::one(), S::zero(), S::zero())
    };
    (
        x.clamp(lo, hi),
        HCat(Scale(wx), HCat(Scale(wlo), Scale(whi))),
    )
}

/// Radians to degrees: a constant factor.
#[inline(always)]
pub fn to_degrees<S: Scalar>(x: S) -> (S, Scale<S>) {
    (
        x.to_degrees(),
        Scale(constant(180.0 / core::f64::consts::PI)),
    )
}

/// Degrees to radians: a constant factor.
#[inline(always)]
pub fn to_radians<S: Scalar>(x: S) -> (S, Scale<S>) {
    (
        x.to_radians(),
        Scale(constant(core::f64::consts::PI / 180.0)),
    )
}

/// `floor x`: piecewise constant, derivative `0`.
#[inline(always)]
pub fn floor<S: Scalar>(x: S) -> (S, Zero<S, S>) {
    (x.floor(), zero_map())
}

/// `ceil x`: piecewise constant, derivative `0`.
#[inline(always)]
pub fn ceil<S: Scalar>(x: S) -> (S, Zero<S, S>) {
    (x.ceil(), zero_map())
}

/// `round x`: piecewise constant, derivative `0`.
#[inline(always)]
pub fn round<S: Scalar>(x: S) -> (S, Zero<S, S>) {
    (x.round(), zero_map())
}

/// `trunc x`: piecewise constant, derivative `0`.
#[inline(always)]
pub fn trunc<S: Scalar>(x: S) -> (S, Zero<S, S>) {
    (x.trunc(), zero_map())
}

/// `fract x = x - trunc x`: derivative `1` between the jumps.
#[inline(always)]
pub fn fract<S: Scalar>(x: S) -> (S, Identity<S>) {
    (x.fract(), Identity::new())
}

/// Applies a rule's derivative in forward mode: the tangent of the result.
///
/// ```
/// use ad_runtime::rules::{self, push_forward};
/// assert_eq!(push_forward(rules::exp(0.0_f64), 3.0), (1.0, 3.0));
/// ```
#[inline(always)]
pub fn push_forward<S, M: LinearMap>(rule: (S, M), tangent: M::Domain) -> (S, M::Codomain) {
    (rule.0, rule.1.apply(tangent))
}
