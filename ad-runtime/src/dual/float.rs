//! The num-traits traits for dual numbers, so that numerical code written generic over
//! `num_traits::Float` (`fn f<T: Float + FromPrimitive>(x: &[T]) -> T`) runs on `Dual<S>` as
//! written: that is how `#[forward]` differentiates a generic function.
//!
//! Every method with a derivative goes through its rule in [`rules`](crate::rules) (by way of
//! the [`Scalar`] methods, which apply them), so no derivative is written here. Constants
//! (`T::from_f64(2.5)`, `T::PI()`, `T::epsilon()`) have tangent zero; predicates and
//! classifications look at the value, as comparisons do.
//!
//! Each impl asks of the float at the bottom of the tower (`S::Base`, `f64` or `f32`) the
//! trait it implements, for the constants and conversions only.

use core::num::FpCategory;

use num_traits::{
    Bounded, Float, FloatConst, FromPrimitive, Num, NumCast, One, Signed, ToPrimitive, Zero,
};

use super::{Dual, DualVec};
use crate::{rules, Scalar};

macro_rules! to_primitive {
    ($($method:ident -> $ty:ty),*) => {$(
        #[inline(always)]
        fn $method(&self) -> Option<$ty> {
            ToPrimitive::$method(&Scalar::primal(*self))
        }
    )*};
}

macro_rules! from_primitive {
    ($($method:ident($ty:ty)),*) => {$(
        #[inline(always)]
        fn $method(value: $ty) -> Option<Self> {
            <S::Base as FromPrimitive>::$method(value).map(Self::lifted_constant)
        }
    )*};
}

macro_rules! float_constants {
    ($($constant:ident)*) => {$(
        #[inline(always)]
        fn $constant() -> Self {
            Self::lifted_constant(<S::Base as Float>::$constant())
        }
    )*};
}

macro_rules! through_scalar {
    (predicates: $($p:ident)*; unary: $($u:ident)*; binary: $($b:ident)*;) => {
        $(#[inline(always)] fn $p(self) -> bool { <Self as Scalar>::$p(self) })*
        $(#[inline(always)] fn $u(self) -> Self { <Self as Scalar>::$u(self) })*
        $(#[inline(always)] fn $b(self, other: Self) -> Self { <Self as Scalar>::$b(self, other) })*
    };
}

macro_rules! float_const {
    ($($constant:ident)*) => {$(
        #[inline(always)]
        fn $constant() -> Self {
            Self::lifted_constant(<S::Base as FloatConst>::$constant())
        }
    )*};
}

/// The num-traits impls of one dual type (`Dual<S>`, `DualVec<S, N>`): both have `constant`,
/// `binary` and the [`Scalar`] methods, so one text serves both.
macro_rules! num_traits_for {
    ([$($g:tt)*] $ty:ty) => {
        impl<$($g)*> $ty {
            /// A constant of the dual type from a value of the base float.
            #[inline(always)]
            pub(super) fn lifted_constant(value: S::Base) -> Self {
                <$ty>::constant(S::from_base(value))
            }
        }

    /// `zero()` is the constant `0`; `is_zero` looks at the value only, as `==` does, so that
    /// generic code branching on it takes the path the plain code takes.
    impl<$($g)*> Zero for $ty {
        #[inline(always)]
        fn zero() -> Self {
            <$ty>::constant(<S as Scalar>::zero())
        }
        #[inline(always)]
        fn is_zero(&self) -> bool {
            self.value == <S as Scalar>::zero()
        }
    }

    impl<$($g)*> One for $ty {
        #[inline(always)]
        fn one() -> Self {
            <$ty>::constant(<S as Scalar>::one())
        }
    }

    /// Parses the base float: a constant.
    impl<$($g)*> Num for $ty
    {
        type FromStrRadixErr = <S::Base as Num>::FromStrRadixErr;
        fn from_str_radix(text: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
            <S::Base as Num>::from_str_radix(text, radix).map(Self::lifted_constant)
        }
    }

    /// The value, converted as the base float converts (every derivative dropped).
    impl<$($g)*> ToPrimitive for $ty
    {
        to_primitive!(
            to_i64 -> i64, to_u64 -> u64, to_isize -> isize, to_i8 -> i8, to_i16 -> i16,
            to_i32 -> i32, to_i128 -> i128, to_usize -> usize, to_u8 -> u8, to_u16 -> u16,
            to_u32 -> u32, to_u128 -> u128, to_f32 -> f32, to_f64 -> f64
        );
    }

    /// A constant, converted as the base float converts (`T::from_f64(2.625).unwrap()`).
    impl<$($g)*> FromPrimitive for $ty
    {
        from_primitive!(
            from_i64(i64),
            from_u64(u64),
            from_isize(isize),
            from_i8(i8),
            from_i16(i16),
            from_i32(i32),
            from_i128(i128),
            from_usize(usize),
            from_u8(u8),
            from_u16(u16),
            from_u32(u32),
            from_u128(u128),
            from_f32(f32),
            from_f64(f64)
        );
    }

    /// A constant, converted as the base float converts (`T::from(0.5).unwrap()`).
    impl<$($g)*> NumCast for $ty
    {
        #[inline(always)]
        fn from<P: ToPrimitive>(value: P) -> Option<Self> {
            <S::Base as NumCast>::from(value).map(Self::lifted_constant)
        }
    }

    impl<$($g)*> Bounded for $ty
    {
        #[inline(always)]
        fn min_value() -> Self {
            Self::lifted_constant(<S::Base as Bounded>::min_value())
        }
        #[inline(always)]
        fn max_value() -> Self {
            Self::lifted_constant(<S::Base as Bounded>::max_value())
        }
    }

    /// `abs` and `signum` through their rules, `abs_sub` through `rules::abs_sub`; the sign
    /// predicates look at the value.
    impl<$($g)*> Signed for $ty
    {
        #[inline(always)]
        fn abs(&self) -> Self {
            <Self as Scalar>::abs(*self)
        }
        #[inline(always)]
        fn abs_sub(&self, other: &Self) -> Self {
            self.binary(*other, rules::abs_sub)
        }
        #[inline(always)]
        fn signum(&self) -> Self {
            <Self as Scalar>::signum(*self)
        }
        #[inline(always)]
        fn is_positive(&self) -> bool {
            Signed::is_positive(&Scalar::primal(*self))
        }
        #[inline(always)]
        fn is_negative(&self) -> bool {
            Signed::is_negative(&Scalar::primal(*self))
        }
    }

    /// Every method through the rule of [`rules`](crate::rules) of the same name; `floor`, `ceil`,
    /// `round`, `trunc` and `signum` have derivative zero, `max`/`min` give the derivative of the
    /// argument they return (half each at a tie), `clamp` that of `self` or of the active bound.
    /// `classify`, `integer_decode` and the predicates look at the value; the constants (`nan()`,
    /// `epsilon()`, `max_value()`, ...) are the base float's, with tangent zero.
    ///
    /// ```
    /// use ad_runtime::Dual;
    /// use num_traits::{Float, FromPrimitive};
    ///
    /// fn half_cube<T: Float + FromPrimitive>(x: T) -> T {
    ///     x.powi(3) * T::from_f64(0.5).unwrap()
    /// }
    /// let y = half_cube(Dual::new(2.0_f64, 1.0)); // seed dx = 1
    /// assert_eq!((y.value, y.tangent), (4.0, 6.0));
    /// ```
    impl<$($g)*> Float for $ty
    {
        float_constants!(
            nan infinity neg_infinity neg_zero min_value min_positive_value epsilon max_value
        );

        through_scalar! {
            predicates: is_nan is_infinite is_finite is_normal is_sign_positive is_sign_negative;
            unary: floor ceil round trunc fract abs signum recip sqrt exp exp2 ln log2 log10 cbrt
                   sin cos tan asin acos atan exp_m1 ln_1p sinh cosh tanh asinh acosh atanh
                   to_degrees to_radians;
            binary: powf log max min hypot atan2;
        }

        #[inline(always)]
        fn is_subnormal(self) -> bool {
            Float::is_subnormal(Scalar::primal(self))
        }
        #[inline(always)]
        fn classify(self) -> FpCategory {
            Float::classify(Scalar::primal(self))
        }
        #[inline(always)]
        fn integer_decode(self) -> (u64, i16, i8) {
            Float::integer_decode(Scalar::primal(self))
        }
        #[inline(always)]
        fn mul_add(self, a: Self, b: Self) -> Self {
            <Self as Scalar>::mul_add(self, a, b)
        }
        #[inline(always)]
        fn powi(self, n: i32) -> Self {
            <Self as Scalar>::powi(self, n)
        }
        #[inline(always)]
        fn sin_cos(self) -> (Self, Self) {
            <Self as Scalar>::sin_cos(self)
        }
        #[inline(always)]
        fn clamp(self, min: Self, max: Self) -> Self {
            <Self as Scalar>::clamp(self, min, max)
        }
        #[inline(always)]
        fn abs_sub(self, other: Self) -> Self {
            self.binary(other, rules::abs_sub)
        }
        #[inline(always)]
        fn copysign(self, sign: Self) -> Self {
            self.binary(sign, rules::copysign)
        }
    }

    /// The base float's constants (`T::PI()`), with tangent zero.
    impl<$($g)*> FloatConst for $ty
    {
        float_const!(
            E FRAC_1_PI FRAC_1_SQRT_2 FRAC_2_PI FRAC_2_SQRT_PI FRAC_PI_2 FRAC_PI_3 FRAC_PI_4
            FRAC_PI_6 FRAC_PI_8 LN_10 LN_2 LOG10_E LOG2_E PI SQRT_2 TAU LOG10_2 LOG2_10
        );
    }
    };
}

num_traits_for!([S: Scalar] Dual<S>);
num_traits_for!([S: Scalar, const N: usize] DualVec<S, N>);

#[cfg(test)]
mod tests {
    use approx::assert_relative_eq;
    use num_traits::{Float, FloatConst, FromPrimitive, NumCast, Signed, ToPrimitive};

    use crate::{Dual, DualVec};

    type D = Dual<f64>;

    /// The tangent of `f` at `x` (seeded 1) against a central difference of the same generic
    /// function over `f64`.
    fn check_unary(name: &str, f: impl Fn(D) -> D, g: impl Fn(f64) -> f64, x: f64) {
        let result = f(Dual::new(x, 1.0));
        assert_eq!(result.value.to_bits(), g(x).to_bits(), "{name}({x}): value");
        let h = 1e-6 * x.abs().max(1.0);
        let difference = (g(x + h) - g(x - h)) / (2.0 * h);
        assert_relative_eq!(
            result.tangent,
            difference,
            epsilon = 1e-7,
            max_relative = 1e-6
        );
    }

    macro_rules! unary {
        ($($method:ident at $($x:expr),+;)*) => {$($(
            check_unary(stringify!($method), |v: D| Float::$method(v), |v: f64| Float::$method(v), $x);
        )+)*};
    }

    #[test]
    fn every_unary_method_has_its_rules_derivative() {
        unary! {
            sin at 0.3, -2.0; cos at 0.3, 2.5; tan at 0.4, -1.2; asin at 0.3, -0.7;
            acos at 0.3, -0.7; atan at 0.5, -3.0; sinh at 0.5, -1.5; cosh at 0.5, -1.5;
            tanh at 0.5, -1.5; asinh at 0.5, -2.0; acosh at 1.5, 3.0; atanh at 0.5, -0.3;
            exp at 0.5, -2.0; exp2 at 0.5, 3.0; exp_m1 at 1e-3, 0.7; ln at 0.5, 4.0;
            log2 at 0.5, 4.0; log10 at 0.5, 40.0; ln_1p at 1e-3, 0.7; sqrt at 0.5, 9.0;
            cbrt at 0.5, -8.0; abs at 0.5, -1.5; recip at 0.5, -2.0; to_degrees at 0.5;
            to_radians at 30.0; fract at 2.25, -1.75;
            floor at 2.5, -1.5; ceil at 2.5; round at 2.3; trunc at -2.7; signum at -2.0, 3.0;
        }
    }

    #[test]
    fn binary_and_ternary_methods_have_their_rules_derivatives() {
        type Binary = (&'static str, fn(D, D) -> D, fn(f64, f64) -> f64, f64, f64);
        let cases: [Binary; 10] = [
            ("powf", Float::powf, Float::powf, 1.7, 2.3),
            ("log", Float::log, Float::log, 5.0, 3.0),
            ("hypot", Float::hypot, Float::hypot, 3.0, -4.0),
            ("atan2", Float::atan2, Float::atan2, 0.5, -2.0),
            ("max", Float::max, Float::max, 0.5, -2.0),
            ("min", Float::min, Float::min, 0.5, -2.0),
            ("abs_sub", Float::abs_sub, Float::abs_sub, 0.5, -2.0),
            ("abs_sub below", Float::abs_sub, Float::abs_sub, -3.0, -2.0),
            ("copysign", Float::copysign, Float::copysign, 0.5, -2.0),
            (
                "copysign same",
                Float::copysign,
                Float::copysign,
                -0.5,
                -2.0,
            ),
        ];
        for (name, f, g, x, y) in cases {
            // Along x, then along y.
            check_unary(name, |v| f(v, Dual::constant(y)), |v| g(v, y), x);
            check_unary(name, |v| f(Dual::constant(x), v), |v| g(x, v), y);
        }
        check_unary("powi", |v| Float::powi(v, 3), |v| Float::powi(v, 3), -1.3);
        check_unary(
            "mul_add",
            |v| Float::mul_add(v, Dual::constant(2.0), v),
            |v| Float::mul_add(v, 2.0, v),
            0.7,
        );
        check_unary(
            "clamp",
            |v| Float::clamp(Dual::constant(0.5), v, Dual::constant(2.0)),
            |v| Float::clamp(0.5, v, 2.0),
            0.8,
        );
        let (s, c) = Float::sin_cos(Dual::new(0.4_f64, 1.0));
        assert_eq!((s.tangent, c.tangent), (0.4_f64.cos(), -0.4_f64.sin()));
        assert_eq!(
            Signed::abs_sub(&D::new(3.0, 1.0), &D::new(1.0, 1.0)).tangent,
            0.0
        );
        assert_eq!(Signed::abs(&D::new(-3.0, 1.0)).tangent, -1.0);
    }

    #[test]
    fn constants_and_conversions_have_tangent_zero() {
        let constants: [D; 8] = [
            Float::epsilon(),
            Float::max_value(),
            Float::min_positive_value(),
            FloatConst::PI(),
            FloatConst::TAU(),
            D::from_f64(2.625).unwrap(),
            <D as NumCast>::from(0.5_f32).unwrap(),
            D::from_i32(-3).unwrap(),
        ];
        let values = [
            f64::EPSILON,
            f64::MAX,
            f64::MIN_POSITIVE,
            core::f64::consts::PI,
            core::f64::consts::TAU,
            2.625,
            0.5,
            -3.0,
        ];
        for (constant, value) in constants.iter().zip(values) {
            assert_eq!((constant.value, constant.tangent), (value, 0.0));
        }
        // Over f32 the constants are f32's.
        let epsilon: Dual<f32> = Float::epsilon();
        assert_eq!(epsilon.value, f32::EPSILON);
        assert!(Float::is_nan(<D as Float>::nan()));
        assert_eq!(D::new(2.7, 1.0).to_i32(), Some(2));
        assert_eq!(
            Float::classify(D::new(0.0, 1.0)),
            core::num::FpCategory::Zero
        );
        assert!(num_traits::Zero::is_zero(&D::new(0.0, 1.0)));
    }

    #[test]
    fn nested_duals_are_floats_without_perturbation_confusion() {
        // d/dx (x * d/dy (x + y)) at x = 1 is 1: the inner derivative is a constant 1.
        fn inner<T: Float>(x: T, y: T) -> T {
            x + y
        }
        let x = Dual::new(1.0_f64, 1.0); // the outer perturbation
        let y = Dual::new(Dual::constant(1.0), Dual::constant(1.0)); // the inner one
        let d_dy = inner(Dual::constant(x), y).tangent;
        let outer = x * d_dy;
        assert_eq!((outer.value, outer.tangent), (1.0, 1.0));
        // Second derivative of exp(sin x) through generic code at Dual<Dual<f64>>.
        fn f<T: Float>(x: T) -> T {
            x.sin().exp()
        }
        let x0 = 0.7_f64;
        let second = f(Dual::new(Dual::new(x0, 1.0), Dual::new(1.0, 0.0)))
            .tangent
            .tangent;
        let exact = (x0.cos().powi(2) - x0.sin()) * x0.sin().exp();
        assert_relative_eq!(second, exact, max_relative = 1e-14);
    }

    #[test]
    fn vector_duals_are_floats_too() {
        // Both partials of a generic function in one pass over DualVec<f64, 2>.
        fn f<T: Float + FloatConst + FromPrimitive>(x: T, y: T) -> T {
            (x * y).sin() + x.hypot(y) * T::PI() - T::from_f64(0.5).unwrap() * y.powi(3)
        }
        let (x0, y0) = (0.7_f64, -1.3_f64);
        let result = f(DualVec::new(x0, [1.0, 0.0]), DualVec::new(y0, [0.0, 1.0]));
        assert_eq!(result.value, f(x0, y0));
        let h = 1e-6;
        let along_x = (f(x0 + h, y0) - f(x0 - h, y0)) / (2.0 * h);
        let along_y = (f(x0, y0 + h) - f(x0, y0 - h)) / (2.0 * h);
        assert_relative_eq!(result.tangents[0], along_x, max_relative = 1e-8);
        assert_relative_eq!(result.tangents[1], along_y, max_relative = 1e-8);
        let epsilon: DualVec<f64, 3> = Float::epsilon();
        assert_eq!((epsilon.value, epsilon.tangents), (f64::EPSILON, [0.0; 3]));
    }
}
