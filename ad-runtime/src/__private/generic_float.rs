//! What a function generic over its float type (`fn f<T: Float + FromPrimitive>(x: &[T]) -> T`)
//! asks of the type parameter by path, `T::from_f64(2.5)`, `T::one()`, `T::PI()`, for reverse
//! mode, which differentiates its instance over `f64`: the macro writes these calls as
//! `generic_float::from_f64::<f64>(2.5)`, and each gives the value num-traits gives, a constant
//! of the scalar type (its derivative zero).

use crate::Scalar;

/// A number a constructor takes: a primitive integer or float, or a float of the scalar type
/// (a literal lifted by forward mode's retyping), of which the value is taken.
pub trait Number {
    /// The number as an `f64`.
    fn value(self) -> f64;
}

impl<S: Scalar> Number for S {
    #[inline(always)]
    fn value(self) -> f64 {
        self.to_f64()
    }
}

macro_rules! integers {
    ($($integer:ty),*) => {$(
        impl Number for $integer {
            #[inline(always)]
            fn value(self) -> f64 {
                self as f64
            }
        }
    )*};
}

integers!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// `FromPrimitive::from_f64` and its kin: always `Some` for the floats of this crate.
macro_rules! from_primitive {
    ($($name:ident),* $(,)?) => {$(
        #[inline(always)]
        pub fn $name<F: Scalar>(value: impl Number) -> Option<F> {
            Some(F::from_f64(value.value()))
        }
    )*};
}

from_primitive!(
    from_f64, from_f32, from_i8, from_i16, from_i32, from_i64, from_i128, from_isize, from_u8,
    from_u16, from_u32, from_u64, from_u128, from_usize,
);

/// `NumCast::from`: `Some` for numbers.
#[inline(always)]
pub fn from<F: Scalar>(value: impl Number) -> Option<F> {
    Some(F::from_f64(value.value()))
}

/// The constants of `Zero`, `One`, `Float` and `FloatConst`, by their function's name.
macro_rules! constants {
    ($($name:ident = $value:expr),* $(,)?) => {$(
        #[inline(always)]
        #[allow(non_snake_case)]
        pub fn $name<F: Scalar>() -> F {
            F::from_f64($value)
        }
    )*};
}

constants!(
    zero = 0.0,
    one = 1.0,
    epsilon = f64::EPSILON,
    infinity = f64::INFINITY,
    neg_infinity = f64::NEG_INFINITY,
    nan = f64::NAN,
    neg_zero = -0.0,
    max_value = f64::MAX,
    min_value = f64::MIN,
    min_positive_value = f64::MIN_POSITIVE,
    E = core::f64::consts::E,
    FRAC_1_PI = core::f64::consts::FRAC_1_PI,
    FRAC_1_SQRT_2 = core::f64::consts::FRAC_1_SQRT_2,
    FRAC_2_PI = core::f64::consts::FRAC_2_PI,
    FRAC_2_SQRT_PI = core::f64::consts::FRAC_2_SQRT_PI,
    FRAC_PI_2 = core::f64::consts::FRAC_PI_2,
    FRAC_PI_3 = core::f64::consts::FRAC_PI_3,
    FRAC_PI_4 = core::f64::consts::FRAC_PI_4,
    FRAC_PI_6 = core::f64::consts::FRAC_PI_6,
    FRAC_PI_8 = core::f64::consts::FRAC_PI_8,
    LN_10 = core::f64::consts::LN_10,
    LN_2 = core::f64::consts::LN_2,
    LOG10_E = core::f64::consts::LOG10_E,
    LOG2_E = core::f64::consts::LOG2_E,
    PI = core::f64::consts::PI,
    SQRT_2 = core::f64::consts::SQRT_2,
    TAU = core::f64::consts::TAU,
    LOG10_2 = core::f64::consts::LOG10_2,
    LOG2_10 = core::f64::consts::LOG2_10,
);

#[cfg(test)]
mod tests {
    use num_traits::{Float, FloatConst, FromPrimitive, NumCast};

    #[test]
    fn the_values_num_traits_gives() {
        assert_eq!(super::from_f64::<f64>(2.5), f64::from_f64(2.5));
        assert_eq!(super::from_usize::<f64>(7), f64::from_usize(7));
        assert_eq!(super::from::<f64>(3_i32), <f64 as NumCast>::from(3_i32));
        assert_eq!(super::epsilon::<f64>(), <f64 as Float>::epsilon());
        assert_eq!(super::PI::<f64>(), <f64 as FloatConst>::PI());
        assert_eq!(super::max_value::<f64>(), <f64 as Float>::max_value());
        assert_eq!(super::one::<f64>(), 1.0);
    }
}
