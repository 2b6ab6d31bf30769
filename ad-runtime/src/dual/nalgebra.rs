//! nalgebra's scalar traits for the dual numbers (feature `nalgebra`), so that code generic over
//! `T: RealField` (`Vector3<T>`, `DMatrix<T>`, `norm`, `cross`, `try_inverse`, `cholesky`, ...)
//! runs on `Dual<S>` and `DualVec<S, N>` as written, and a `#[forward]` function generic over
//! `RealField` differentiates through it.
//!
//! As with num-traits, every method with a derivative goes through the [`Scalar`] method of
//! the same name and so through its rule in [`rules`](crate::rules); comparisons (`PartialOrd`,
//! approx's `relative_eq`, `is_sign_positive`) look at the value only, so generic code takes
//! the branches the plain code takes. A dual number is one SIMD lane (`LANES = 1`), as `f64` is.

use approx::{AbsDiffEq, RelativeEq, UlpsEq};
use num_traits::{Float, FloatConst};
use simba::scalar::{ComplexField, Field, RealField, SubsetOf};
use simba::simd::SimdValue;

use super::{Dual, DualVec};
use crate::Scalar;

macro_rules! through_scalar {
    ($($method:ident($($arg:ident),*))*) => {$(
        #[inline(always)]
        fn $method(self $(, $arg: Self)*) -> Self {
            <Self as Scalar>::$method(self $(, $arg)*)
        }
    )*};
}

macro_rules! constants {
    ($($method:ident = $constant:ident)*) => {$(
        #[inline(always)]
        fn $method() -> Self {
            Self::lifted_constant(<S::Base as FloatConst>::$constant())
        }
    )*};
}

/// The nalgebra impls of one dual type; `Dual<S>` and `DualVec<S, N>` share the text.
macro_rules! nalgebra_for {
    ([$($g:tt)*] $ty:ty) => {
        /// One lane, as for `f64`. The trait declares the `_unchecked` methods `unsafe`; their
        /// bodies here are safe.
        #[allow(unsafe_code)]
        impl<$($g)*> SimdValue for $ty {
            const LANES: usize = 1;
            type Element = Self;
            type SimdBool = bool;

            #[inline(always)]
            fn splat(value: Self) -> Self {
                value
            }
            #[inline(always)]
            fn extract(&self, _: usize) -> Self {
                *self
            }
            #[inline(always)]
            unsafe fn extract_unchecked(&self, _: usize) -> Self {
                *self
            }
            #[inline(always)]
            fn replace(&mut self, _: usize, value: Self) {
                *self = value
            }
            #[inline(always)]
            unsafe fn replace_unchecked(&mut self, _: usize, value: Self) {
                *self = value
            }
            #[inline(always)]
            fn select(self, condition: bool, other: Self) -> Self {
                if condition {
                    self
                } else {
                    other
                }
            }
        }

        impl<$($g)*> SubsetOf<$ty> for $ty {
            #[inline(always)]
            fn to_superset(&self) -> Self {
                *self
            }
            #[inline(always)]
            fn from_superset_unchecked(element: &Self) -> Self {
                *element
            }
            #[inline(always)]
            fn is_in_subset(_: &Self) -> bool {
                true
            }
        }

        /// A plain float is a constant dual number; converting back keeps the value.
        impl<$($g)*> SubsetOf<$ty> for f64 {
            #[inline(always)]
            fn to_superset(&self) -> $ty {
                <$ty as Scalar>::from_f64(*self)
            }
            #[inline(always)]
            fn from_superset_unchecked(element: &$ty) -> f64 {
                Scalar::to_f64(*element)
            }
            #[inline(always)]
            fn is_in_subset(_: &$ty) -> bool {
                true
            }
        }

        impl<$($g)*> SubsetOf<$ty> for f32 {
            #[inline(always)]
            fn to_superset(&self) -> $ty {
                <$ty as Scalar>::from_f32(*self)
            }
            #[inline(always)]
            fn from_superset_unchecked(element: &$ty) -> f32 {
                Scalar::to_f64(*element) as f32
            }
            #[inline(always)]
            fn is_in_subset(_: &$ty) -> bool {
                true
            }
        }

        /// On the values, as `PartialEq` compares.
        impl<$($g)*> AbsDiffEq for $ty
        where
            S: AbsDiffEq<Epsilon = S>,
        {
            type Epsilon = Self;
            #[inline]
            fn default_epsilon() -> Self {
                Self::constant(S::default_epsilon())
            }
            #[inline]
            fn abs_diff_eq(&self, other: &Self, epsilon: Self) -> bool {
                self.value.abs_diff_eq(&other.value, epsilon.value)
            }
        }

        impl<$($g)*> RelativeEq for $ty
        where
            S: RelativeEq<Epsilon = S>,
        {
            #[inline]
            fn default_max_relative() -> Self {
                Self::constant(S::default_max_relative())
            }
            #[inline]
            fn relative_eq(&self, other: &Self, epsilon: Self, max_relative: Self) -> bool {
                self.value
                    .relative_eq(&other.value, epsilon.value, max_relative.value)
            }
        }

        impl<$($g)*> UlpsEq for $ty
        where
            S: UlpsEq<Epsilon = S>,
        {
            #[inline]
            fn default_max_ulps() -> u32 {
                S::default_max_ulps()
            }
            #[inline]
            fn ulps_eq(&self, other: &Self, epsilon: Self, max_ulps: u32) -> bool {
                self.value.ulps_eq(&other.value, epsilon.value, max_ulps)
            }
        }

        impl<$($g)*> Field for $ty {}

        /// A real number's complex field: the imaginary part is zero, the modulus is `abs`.
        impl<$($g)*> ComplexField for $ty
        where
            S: RealField,
        {
            type RealField = Self;

            #[inline(always)]
            fn from_real(re: Self) -> Self {
                re
            }
            #[inline(always)]
            fn real(self) -> Self {
                self
            }
            #[inline(always)]
            fn imaginary(self) -> Self {
                <Self as Scalar>::zero()
            }
            #[inline(always)]
            fn modulus(self) -> Self {
                <Self as Scalar>::abs(self)
            }
            #[inline(always)]
            fn modulus_squared(self) -> Self {
                self * self
            }
            /// `0` or `π`, a constant, as for `f64`.
            #[inline(always)]
            fn argument(self) -> Self {
                if self.value >= <S as Scalar>::zero() {
                    <Self as Scalar>::zero()
                } else {
                    Self::lifted_constant(<S::Base as FloatConst>::PI())
                }
            }
            #[inline(always)]
            fn norm1(self) -> Self {
                <Self as Scalar>::abs(self)
            }
            #[inline(always)]
            fn scale(self, factor: Self) -> Self {
                self * factor
            }
            #[inline(always)]
            fn unscale(self, factor: Self) -> Self {
                self / factor
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <Self as Scalar>::abs(self)
            }
            #[inline(always)]
            fn conjugate(self) -> Self {
                self
            }
            #[inline(always)]
            fn sin_cos(self) -> (Self, Self) {
                <Self as Scalar>::sin_cos(self)
            }
            #[inline(always)]
            fn powi(self, n: i32) -> Self {
                <Self as Scalar>::powi(self, n)
            }
            #[inline(always)]
            fn powc(self, n: Self) -> Self {
                <Self as Scalar>::powf(self, n)
            }
            #[inline(always)]
            fn is_finite(&self) -> bool {
                <Self as Scalar>::is_finite(*self)
            }
            /// `None` below zero, as for `f64`.
            #[inline(always)]
            fn try_sqrt(self) -> Option<Self> {
                (self.value >= <S as Scalar>::zero()).then(|| <Self as Scalar>::sqrt(self))
            }

            through_scalar! {
                floor() ceil() round() trunc() fract() signum() recip() sin() cos() tan()
                asin() acos() atan() sinh() cosh() tanh() asinh() acosh() atanh() log2()
                log10() ln() ln_1p() sqrt() exp() exp2() exp_m1() cbrt()
                mul_add(a, b) hypot(other) log(base) powf(n)
            }
        }

        impl<$($g)*> RealField for $ty
        where
            S: RealField,
        {
            #[inline(always)]
            fn is_sign_positive(&self) -> bool {
                <Self as Scalar>::is_sign_positive(*self)
            }
            #[inline(always)]
            fn is_sign_negative(&self) -> bool {
                <Self as Scalar>::is_sign_negative(*self)
            }
            #[inline(always)]
            fn min_value() -> Option<Self> {
                Some(Self::lifted_constant(<S::Base as Float>::min_value()))
            }
            #[inline(always)]
            fn max_value() -> Option<Self> {
                Some(Self::lifted_constant(<S::Base as Float>::max_value()))
            }

            through_scalar! {
                copysign(sign) max(other) min(other) clamp(min, max) atan2(other)
            }

            constants! {
                pi = PI two_pi = TAU frac_pi_2 = FRAC_PI_2 frac_pi_3 = FRAC_PI_3
                frac_pi_4 = FRAC_PI_4 frac_pi_6 = FRAC_PI_6 frac_pi_8 = FRAC_PI_8
                frac_1_pi = FRAC_1_PI frac_2_pi = FRAC_2_PI frac_2_sqrt_pi = FRAC_2_SQRT_PI
                e = E log2_e = LOG2_E log10_e = LOG10_E ln_2 = LN_2 ln_10 = LN_10
            }
        }
    };
}

nalgebra_for!([S: Scalar] Dual<S>);
nalgebra_for!([S: Scalar, const N: usize] DualVec<S, N>);

#[cfg(test)]
mod tests {
    use approx::assert_relative_eq;
    use nalgebra::{DMatrix, DVector, Matrix3, RealField, Vector3};

    use crate::{Dual, DualVec};

    /// Linear algebra a generic library function does: products, `norm`, `cross`, `dot`,
    /// `try_inverse`, `determinant`, `cholesky` and its `solve`, over `Vector3`/`Matrix3` and
    /// `DMatrix`/`DVector`.
    fn linear_algebra<T: RealField + Copy>(x: T, y: T, z: T) -> T {
        let v = Vector3::new(x, y, z);
        let w = Vector3::new(y * z, T::one(), x.sin());
        let a = Matrix3::new(
            T::from_f64(4.0).unwrap() + x * x,
            y,
            T::one(),
            y,
            T::from_f64(3.0).unwrap() + z * z,
            x,
            T::one(),
            x,
            T::from_f64(5.0).unwrap(),
        );
        let inverse = a.try_inverse().unwrap();
        let cholesky = a.cholesky().unwrap();
        let solved = cholesky.solve(&v);
        let dynamic = DMatrix::from_fn(2, 3, |i, j| {
            T::from_usize(i + j).unwrap() * x + T::from_usize(i * j + 1).unwrap() * y
        });
        let applied = &dynamic * DVector::from_column_slice(&[x, y, z]);
        v.norm()
            + v.cross(&w).dot(&w.map(|c| c.exp()))
            + (inverse * v).norm_squared()
            + a.determinant().ln()
            + solved.sum()
            + applied.norm()
            + RealField::atan2(x, y) * T::pi()
    }

    fn central_difference(f: impl Fn(f64, f64, f64) -> f64, at: [f64; 3], along: usize) -> f64 {
        let h = 1e-6;
        let mut plus = at;
        let mut minus = at;
        plus[along] += h;
        minus[along] -= h;
        (f(plus[0], plus[1], plus[2]) - f(minus[0], minus[1], minus[2])) / (2.0 * h)
    }

    #[test]
    fn generic_linear_algebra_at_duals_matches_central_differences() {
        let at = [0.4, -0.7, 1.1];
        for along in 0..3 {
            let seeded = |k: usize| Dual::new(at[k], if k == along { 1.0 } else { 0.0 });
            let result = linear_algebra(seeded(0), seeded(1), seeded(2));
            assert_eq!(result.value, linear_algebra(at[0], at[1], at[2]));
            let difference = central_difference(linear_algebra, at, along);
            assert_relative_eq!(result.tangent, difference, max_relative = 1e-7);
        }
    }

    #[test]
    fn generic_linear_algebra_at_vector_duals_gives_the_gradient_in_one_pass() {
        let at = [0.4, -0.7, 1.1];
        let seeded = |k: usize| {
            let mut tangents = [0.0; 3];
            tangents[k] = 1.0;
            DualVec::new(at[k], tangents)
        };
        let result = linear_algebra(seeded(0), seeded(1), seeded(2));
        for along in 0..3 {
            let difference = central_difference(linear_algebra, at, along);
            assert_relative_eq!(result.tangents[along], difference, max_relative = 1e-7);
        }
    }

    #[test]
    fn second_derivatives_through_nested_duals() {
        // d²/dx² of |(x, 2, 3)| = (4 + 9) / |v|³.
        fn norm<T: RealField + Copy>(x: T) -> T {
            Vector3::new(x, T::from_f64(2.0).unwrap(), T::from_f64(3.0).unwrap()).norm()
        }
        let x0 = 1.5_f64;
        let second = norm(Dual::new(Dual::new(x0, 1.0), Dual::new(1.0, 0.0)))
            .tangent
            .tangent;
        let length = (x0 * x0 + 13.0_f64).sqrt();
        assert_relative_eq!(second, 13.0 / length.powi(3), max_relative = 1e-14);
    }

    #[test]
    fn comparisons_and_conversions_look_at_the_value() {
        use approx::{AbsDiffEq, RelativeEq};
        use nalgebra::ComplexField;
        use simba::scalar::SupersetOf;
        let a = Dual::new(1.0_f64, 5.0);
        let b = Dual::new(1.0_f64 + 1e-12, -3.0);
        assert!(a.abs_diff_eq(&b, Dual::constant(1e-9)));
        assert!(a.relative_eq(&b, Dual::constant(1e-9), Dual::constant(1e-9)));
        let converted: Dual<f64> = SupersetOf::<f64>::from_subset(&2.5);
        assert_eq!((converted.value, converted.tangent), (2.5, 0.0));
        assert_eq!(ComplexField::try_sqrt(Dual::new(-1.0_f64, 1.0)), None);
        let modulus = ComplexField::modulus(Dual::new(-2.0_f64, 1.0));
        assert_eq!((modulus.value, modulus.tangent), (2.0, -1.0));
        let pi: Dual<f64> = RealField::pi();
        assert_eq!((pi.value, pi.tangent), (core::f64::consts::PI, 0.0));
    }
}
