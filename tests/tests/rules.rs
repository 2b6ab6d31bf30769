//! Every primitive rule, through `#[forward]`, against fourth-order central differences at
//! several points including near the edges of its domain; in method form (`x.sin()`) and path
//! form (`f64::sin(x)`), for `f64` and for `f32` (whose derivative must match the `f64` one to
//! `f32` precision).

mod common;

use ad_runtime::forward;
use approx::assert_relative_eq;
use common::{central_difference, step_for};
use std::f64::consts::FRAC_PI_2;

type UnaryJvp<F> = fn(F, F) -> (F, F);
type BinaryJvp<F> = fn(F, F, F, F) -> (F, F);

/// Checks the `f64` derivative against central differences, and the `f32` one against the
/// `f64` one.
fn check_unary(
    name: &str,
    points: &[f64],
    plain: fn(f64) -> f64,
    jvps: [UnaryJvp<f64>; 2],
    jvps_f32: [UnaryJvp<f32>; 2],
) {
    for &x in points {
        let h = step_for(x).min(edge_step(x));
        let expected = central_difference(plain, x, h);
        let tolerance = difference_tolerance(plain(x), h);
        for jvp in jvps {
            let (value, tangent) = jvp(x, 1.0);
            assert_eq!(value.to_bits(), plain(x).to_bits(), "{name}({x}) value");
            assert_relative_eq!(tangent, expected, epsilon = tolerance, max_relative = 1e-7);
            let (_, scaled) = jvp(x, 2.5);
            assert_relative_eq!(scaled, 2.5 * tangent, max_relative = 1e-15);
        }
        // f32 is compared with f64 at the same (rounded) point: near an edge rounding the
        // point moves the derivative more than f32 arithmetic does.
        let x32 = x as f32;
        let expected32 = central_difference(plain, x32 as f64, h);
        for jvp in jvps_f32 {
            let (value, tangent) = jvp(x32, 1.0);
            assert_relative_eq!(
                value as f64,
                plain(x32 as f64),
                epsilon = 1e-6,
                max_relative = 1e-5
            );
            assert_relative_eq!(
                tangent as f64,
                expected32,
                epsilon = 1e-5,
                max_relative = 1e-4
            );
        }
    }
}

/// Near an edge of a domain (0, ±1, ±π/2 for the rules here) the step must be small against
/// the distance to it, or the higher derivatives swamp the difference quotient. (A point
/// exactly on one is a point where the rule is smooth, or it would not be tested there.)
fn edge_step(x: f64) -> f64 {
    let distance = [0.0, 1.0, -1.0, FRAC_PI_2, -FRAC_PI_2]
        .iter()
        .map(|edge| (x - edge).abs())
        .filter(|&distance| distance > 0.0)
        .fold(f64::INFINITY, f64::min);
    (distance / 100.0).max(1e-12)
}

/// What a central difference with step `h` can promise: its round-off is about `ε |f| / h`.
fn difference_tolerance(value: f64, h: f64) -> f64 {
    1e-9 + 50.0 * f64::EPSILON * value.abs() / h
}

macro_rules! unary_rules {
    ($($method:ident at [$($x:expr),* $(,)?];)*) => {$(
        mod $method {
            use super::*;

            #[forward]
            pub fn method_f64(x: f64) -> f64 { x.$method() }
            #[forward]
            pub fn path_f64(x: f64) -> f64 { f64::$method(x) }
            #[forward]
            pub fn method_f32(x: f32) -> f32 { x.$method() }
            #[forward]
            pub fn path_f32(x: f32) -> f32 { f32::$method(x) }

            #[test]
            fn matches_central_differences() {
                check_unary(
                    stringify!($method),
                    &[$($x),*],
                    f64::$method,
                    [method_f64_jvp, path_f64_jvp],
                    [method_f32_jvp, path_f32_jvp],
                );
            }
        }
    )*};
}

unary_rules! {
    sin at [-3.0, -0.5, 0.0, 0.7, 2.0, 10.0];
    cos at [-3.0, -0.5, 0.0, 0.7, 2.0, 10.0];
    tan at [-1.4, -0.5, 0.0, 0.7, 1.5];
    asin at [-0.99, -0.5, 0.0, 0.3, 0.9, 0.999];
    acos at [-0.999, -0.5, 0.0, 0.3, 0.9, 0.99];
    atan at [-50.0, -1.0, 0.0, 0.3, 2.0, 1e3];
    sinh at [-3.0, -0.5, 0.0, 0.7, 5.0];
    cosh at [-3.0, -0.5, 0.0, 0.7, 5.0];
    tanh at [-3.0, -0.5, 0.0, 0.7, 5.0];
    asinh at [-30.0, -0.5, 0.0, 0.7, 5.0];
    acosh at [1.001, 1.5, 3.0, 100.0];
    atanh at [-0.999, -0.5, 0.0, 0.7, 0.99];
    exp at [-20.0, -1.0, 0.0, 0.5, 3.0, 30.0];
    exp2 at [-20.0, -1.0, 0.0, 0.5, 3.0, 30.0];
    exp_m1 at [-20.0, -1.0, -1e-8, 0.0, 1e-8, 0.5, 3.0];
    ln at [1e-4, 0.1, 1.0, 2.5, 1e6];
    log2 at [1e-4, 0.1, 1.0, 2.5, 1e6];
    log10 at [1e-4, 0.1, 1.0, 2.5, 1e6];
    ln_1p at [-0.999, -0.5, -1e-9, 0.0, 1e-9, 0.7, 100.0];
    sqrt at [1e-6, 0.01, 1.0, 2.0, 1e8];
    cbrt at [-8.0, -1e-3, 1e-3, 1.0, 27.0, 1e9];
    abs at [-3.0, -1e-3, 1e-3, 2.0];
    signum at [-3.0, -1e-3, 1e-3, 2.0];
    recip at [-3.0, -1e-3, 1e-3, 2.0, 1e5];
    to_degrees at [-3.0, 0.0, 1.0, 7.0];
    to_radians at [-300.0, 0.0, 1.0, 700.0];
    floor at [-2.5, -0.5, 0.25, 3.75];
    ceil at [-2.5, -0.5, 0.25, 3.75];
    round at [-2.25, -0.25, 0.25, 3.75];
    trunc at [-2.5, -0.5, 0.25, 3.75];
    fract at [-2.5, -0.5, 0.25, 3.75];
}

/// Checks both partial derivatives of a binary rule.
fn check_binary(
    name: &str,
    points: &[(f64, f64)],
    plain: fn(f64, f64) -> f64,
    jvps: [BinaryJvp<f64>; 2],
    jvps_f32: [BinaryJvp<f32>; 2],
) {
    for &(x, y) in points {
        let (hx, hy) = (step_for(x).min(edge_step(x)), step_for(y).min(edge_step(y)));
        let dx = central_difference(|x| plain(x, y), x, hx);
        let dy = central_difference(|y| plain(x, y), y, hy);
        let (tolerance_x, tolerance_y) = (
            difference_tolerance(plain(x, y), hx),
            difference_tolerance(plain(x, y), hy),
        );
        for jvp in jvps {
            let (value, along_x) = jvp(x, y, 1.0, 0.0);
            let (_, along_y) = jvp(x, y, 0.0, 1.0);
            let (_, along_both) = jvp(x, y, 2.0, -3.0);
            assert_eq!(
                value.to_bits(),
                plain(x, y).to_bits(),
                "{name}({x}, {y}) value"
            );
            assert_relative_eq!(along_x, dx, epsilon = tolerance_x, max_relative = 1e-7);
            assert_relative_eq!(along_y, dy, epsilon = tolerance_y, max_relative = 1e-7);
            assert_relative_eq!(along_both, 2.0 * along_x - 3.0 * along_y, epsilon = 1e-12);
        }
        for jvp in jvps_f32 {
            let (_, along_x) = jvp(x as f32, y as f32, 1.0, 0.0);
            let (_, along_y) = jvp(x as f32, y as f32, 0.0, 1.0);
            let tolerance_f32 = 1e-5 + 1e-4 * (x / y).abs();
            assert_relative_eq!(
                along_x as f64,
                dx,
                epsilon = tolerance_f32,
                max_relative = 1e-4
            );
            assert_relative_eq!(
                along_y as f64,
                dy,
                epsilon = tolerance_f32,
                max_relative = 1e-4
            );
        }
    }
}

macro_rules! binary_method_rules {
    ($($method:ident at [$($p:expr),* $(,)?];)*) => {$(
        mod $method {
            use super::*;

            #[forward]
            pub fn method_f64(x: f64, y: f64) -> f64 { x.$method(y) }
            #[forward]
            pub fn path_f64(x: f64, y: f64) -> f64 { f64::$method(x, y) }
            #[forward]
            pub fn method_f32(x: f32, y: f32) -> f32 { x.$method(y) }
            #[forward]
            pub fn path_f32(x: f32, y: f32) -> f32 { f32::$method(x, y) }

            #[test]
            fn matches_central_differences() {
                check_binary(
                    stringify!($method),
                    &[$($p),*],
                    f64::$method,
                    [method_f64_jvp, path_f64_jvp],
                    [method_f32_jvp, path_f32_jvp],
                );
            }
        }
    )*};
}

binary_method_rules! {
    atan2 at [(1.0, 2.0), (-1.0, 0.5), (0.3, -4.0), (-2.0, -2.0), (1e-3, 1.0)];
    log at [(2.0, 10.0), (0.5, 2.0), (100.0, 0.3), (1e-3, 5.0)];
    powf at [(2.0, 3.0), (0.5, -1.5), (3.0, 0.5), (10.0, 0.0), (1e-3, 2.5)];
    hypot at [(3.0, 4.0), (-1.0, 0.5), (1e-3, -2.0), (1e5, 1.0)];
    min at [(1.0, 2.0), (3.0, -1.0), (-2.0, -2.5)];
    max at [(1.0, 2.0), (3.0, -1.0), (-2.0, -2.5)];
}

macro_rules! operator_rules {
    ($($name:ident: $op:tt, $op_assign:tt at [$($p:expr),* $(,)?];)*) => {$(
        mod $name {
            use super::*;

            #[forward]
            pub fn operator_f64(x: f64, y: f64) -> f64 { x $op y }
            #[forward]
            pub fn assign_f64(x: f64, y: f64) -> f64 { let mut z = x; z $op_assign y; z }
            #[forward]
            pub fn operator_f32(x: f32, y: f32) -> f32 { x $op y }
            #[forward]
            pub fn assign_f32(x: f32, y: f32) -> f32 { let mut z = x; z $op_assign y; z }

            #[test]
            fn matches_central_differences() {
                check_binary(
                    stringify!($name),
                    &[$($p),*],
                    |x, y| x $op y,
                    [operator_f64_jvp, assign_f64_jvp],
                    [operator_f32_jvp, assign_f32_jvp],
                );
            }
        }
    )*};
}

operator_rules! {
    add: +, += at [(1.0, 2.0), (-3.5, 0.25), (1e8, -1e-3)];
    sub: -, -= at [(1.0, 2.0), (-3.5, 0.25), (1e8, -1e-3)];
    mul: *, *= at [(1.0, 2.0), (-3.5, 0.25), (1e4, -1e-3)];
    div: /, /= at [(1.0, 2.0), (-3.5, 0.25), (1e4, -1e-3), (2.0, -7.0)];
    rem: %, %= at [(7.5, 2.0), (-3.5, 1.25), (10.0, 3.0)];
}

mod neg {
    use super::*;

    #[forward]
    fn negate(x: f64) -> f64 {
        -x
    }
    #[forward]
    fn negate_f32(x: f32) -> f32 {
        -x
    }

    #[test]
    fn matches_central_differences() {
        for x in [-2.0, 0.0, 3.5] {
            assert_eq!(negate_jvp(x, 1.0), (-x, -1.0));
            assert_eq!(negate_f32_jvp(x as f32, 1.0), (-x as f32, -1.0));
        }
    }
}

mod powi {
    use super::*;

    #[forward]
    fn method_f64(x: f64, n: i32) -> f64 {
        x.powi(n)
    }
    #[forward]
    fn path_f64(x: f64, n: i32) -> f64 {
        f64::powi(x, n)
    }
    #[forward]
    fn method_f32(x: f32, n: i32) -> f32 {
        x.powi(n)
    }

    #[test]
    fn matches_central_differences() {
        for n in [-3, -1, 0, 1, 2, 5] {
            for x in [-2.0, -0.5, 0.3, 1.0, 3.0] {
                let expected = central_difference(|x| x.powi(n), x, 1e-4);
                for jvp in [method_f64_jvp, path_f64_jvp] {
                    let (value, tangent) = jvp(x, n, 1.0);
                    assert_eq!(value, x.powi(n));
                    assert_relative_eq!(tangent, expected, epsilon = 1e-9, max_relative = 1e-7);
                }
                let (_, tangent) = method_f32_jvp(x as f32, n, 1.0);
                assert_relative_eq!(tangent as f64, expected, max_relative = 1e-4);
            }
        }
    }
}

mod mul_add {
    use super::*;

    #[forward]
    fn method_f64(x: f64, a: f64, b: f64) -> f64 {
        x.mul_add(a, b)
    }
    #[forward]
    fn path_f64(x: f64, a: f64, b: f64) -> f64 {
        f64::mul_add(x, a, b)
    }
    #[forward]
    fn method_f32(x: f32, a: f32, b: f32) -> f32 {
        x.mul_add(a, b)
    }

    #[test]
    fn matches_central_differences() {
        for (x, a, b) in [(1.5, -2.0, 0.25), (0.0, 3.0, 1.0), (-4.0, 0.5, -7.0)] {
            for jvp in [method_f64_jvp, path_f64_jvp] {
                let (value, _) = jvp(x, a, b, 0.0, 0.0, 0.0);
                assert_eq!(value, f64::mul_add(x, a, b));
                assert_relative_eq!(jvp(x, a, b, 1.0, 0.0, 0.0).1, a, max_relative = 1e-15);
                assert_relative_eq!(jvp(x, a, b, 0.0, 1.0, 0.0).1, x, max_relative = 1e-15);
                assert_relative_eq!(jvp(x, a, b, 0.0, 0.0, 1.0).1, 1.0);
                let fd = central_difference(|t| (x + t).mul_add(a + 2.0 * t, b - t), 0.0, 1e-3);
                assert_relative_eq!(jvp(x, a, b, 1.0, 2.0, -1.0).1, fd, epsilon = 1e-9);
            }
            let (_, tangent) = method_f32_jvp(x as f32, a as f32, b as f32, 1.0, 1.0, 1.0);
            assert_relative_eq!(tangent as f64, a + x + 1.0, epsilon = 1e-5);
        }
    }
}

mod clamp {
    use super::*;

    #[forward]
    fn method_f64(x: f64, lo: f64, hi: f64) -> f64 {
        x.clamp(lo, hi)
    }
    #[forward]
    fn path_f64(x: f64, lo: f64, hi: f64) -> f64 {
        f64::clamp(x, lo, hi)
    }
    #[forward]
    fn method_f32(x: f32, lo: f32, hi: f32) -> f32 {
        x.clamp(lo, hi)
    }

    #[test]
    fn matches_central_differences() {
        for x in [-3.0, -0.5, 0.5, 2.5] {
            let (lo, hi) = (-1.0, 1.0);
            for jvp in [method_f64_jvp, path_f64_jvp] {
                for (seed, plain) in [
                    (
                        (1.0, 0.0, 0.0),
                        &(|t: f64| (x + t).clamp(lo, hi)) as &dyn Fn(f64) -> f64,
                    ),
                    ((0.0, 1.0, 0.0), &|t: f64| x.clamp(lo + t, hi)),
                    ((0.0, 0.0, 1.0), &|t: f64| x.clamp(lo, hi + t)),
                ] {
                    let (value, tangent) = jvp(x, lo, hi, seed.0, seed.1, seed.2);
                    assert_eq!(value, x.clamp(lo, hi));
                    assert_relative_eq!(
                        tangent,
                        central_difference(plain, 0.0, 1e-3),
                        epsilon = 1e-9
                    );
                }
            }
            let (_, tangent) = method_f32_jvp(x as f32, -1.0, 1.0, 1.0, 1.0, 1.0);
            assert_eq!(tangent, 1.0);
        }
    }
}

mod sin_cos {
    use super::*;

    #[forward]
    fn both(x: f64) -> (f64, f64) {
        x.sin_cos()
    }

    #[test]
    fn matches_sin_and_cos() {
        for x in [-2.0_f64, 0.0, 0.5, 3.0] {
            let ((s, c), (ds, dc)) = both_jvp(x, 1.0);
            assert_eq!((s, c), x.sin_cos());
            assert_relative_eq!(ds, x.cos(), max_relative = 1e-15);
            assert_relative_eq!(dc, -x.sin(), max_relative = 1e-15);
        }
    }
}

/// The conventions of `ad_runtime::rules` where the derivative does not exist.
mod conventions {
    use super::*;

    #[forward]
    fn abs(x: f64) -> f64 {
        x.abs()
    }
    #[forward]
    fn max(x: f64, y: f64) -> f64 {
        x.max(y)
    }
    #[forward]
    fn min(x: f64, y: f64) -> f64 {
        x.min(y)
    }
    #[forward]
    fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
        x.clamp(lo, hi)
    }
    #[forward]
    fn hypot(x: f64, y: f64) -> f64 {
        x.hypot(y)
    }
    #[forward]
    fn sqrt_plus(x: f64, y: f64) -> f64 {
        x + y.sqrt()
    }
    #[forward]
    fn powi_zero(x: f64) -> f64 {
        x.powi(0)
    }
    #[forward]
    fn powf(x: f64, y: f64) -> f64 {
        x.powf(y)
    }
    #[forward]
    fn ln_plus(x: f64, y: f64) -> f64 {
        x + y.ln()
    }
    #[forward]
    fn asin_plus(x: f64, y: f64) -> f64 {
        x + y.asin()
    }
    #[forward]
    fn steps(x: f64) -> f64 {
        x.signum() + x.floor() + x.ceil() + x.round() + x.trunc()
    }

    #[test]
    fn abs_at_zero_has_derivative_zero() {
        assert_eq!(abs_jvp(0.0, 1.0), (0.0, 0.0));
        assert_eq!(abs_jvp(-0.0, 1.0).1, 0.0);
    }

    #[test]
    fn max_and_min_split_a_tie() {
        assert_eq!(max_jvp(2.0, 2.0, 1.0, 0.0), (2.0, 0.5));
        assert_eq!(max_jvp(2.0, 2.0, 0.0, 1.0), (2.0, 0.5));
        assert_eq!(min_jvp(2.0, 2.0, 1.0, 0.0), (2.0, 0.5));
        // Along the diagonal the derivative is right: max(t, t) = t.
        assert_eq!(max_jvp(2.0, 2.0, 1.0, 1.0).1, 1.0);
    }

    #[test]
    fn max_and_min_follow_the_non_nan_argument() {
        assert_eq!(max_jvp(f64::NAN, 3.0, 1.0, 2.0), (3.0, 2.0));
        assert_eq!(max_jvp(3.0, f64::NAN, 1.0, 2.0), (3.0, 1.0));
        assert_eq!(min_jvp(f64::NAN, 3.0, 1.0, 2.0), (3.0, 2.0));
    }

    #[test]
    fn clamp_bounds_get_derivative_only_when_strictly_active() {
        assert_eq!(clamp_jvp(-1.0, -1.0, 1.0, 1.0, 0.0, 0.0).1, 1.0);
        assert_eq!(clamp_jvp(-1.0, -1.0, 1.0, 0.0, 1.0, 0.0).1, 0.0);
        assert_eq!(clamp_jvp(1.0, -1.0, 1.0, 1.0, 0.0, 0.0).1, 1.0);
        assert_eq!(clamp_jvp(1.0, -1.0, 1.0, 0.0, 0.0, 1.0).1, 0.0);
        assert_eq!(clamp_jvp(5.0, -1.0, 1.0, 0.0, 0.0, 1.0).1, 1.0);
    }

    #[test]
    fn hypot_at_the_origin_has_derivative_zero() {
        assert_eq!(hypot_jvp(0.0, 0.0, 1.0, 1.0), (0.0, 0.0));
    }

    #[test]
    fn infinite_derivatives_do_not_poison_unperturbed_inputs() {
        // d/dx (x + sqrt(y)) at y = 0 is 1, not NaN (0 * inf).
        assert_eq!(sqrt_plus_jvp(1.0, 0.0, 1.0, 0.0), (1.0, 1.0));
        // ... while the derivative in y is the one-sided limit.
        assert_eq!(sqrt_plus_jvp(1.0, 0.0, 0.0, 1.0).1, f64::INFINITY);
        assert_eq!(ln_plus_jvp(1.0, 0.0, 1.0, 0.0).1, 1.0);
        assert_eq!(ln_plus_jvp(1.0, 0.0, 0.0, 1.0).1, f64::INFINITY);
        assert_eq!(asin_plus_jvp(1.0, 1.0, 1.0, 0.0).1, 1.0);
        assert_eq!(asin_plus_jvp(1.0, 1.0, 0.0, 1.0).1, f64::INFINITY);
    }

    #[test]
    fn powi_zero_is_constant_even_at_zero() {
        assert_eq!(powi_zero_jvp(0.0, 1.0), (1.0, 0.0));
    }

    #[test]
    fn powf_at_zero_base() {
        // d/dy 0^y = 0 for y > 0 (the limit of x^y ln x), and d/dx x^2 = 0 at 0.
        assert_eq!(powf_jvp(0.0, 2.0, 0.0, 1.0), (0.0, 0.0));
        assert_eq!(powf_jvp(0.0, 2.0, 1.0, 0.0), (0.0, 0.0));
        assert_eq!(powf_jvp(0.0, 1.0, 1.0, 0.0), (0.0, 1.0));
        // x^0 = 1 is constant in x.
        assert_eq!(powf_jvp(0.0, 0.0, 1.0, 0.0), (1.0, 0.0));
    }

    #[test]
    fn piecewise_constant_functions_have_derivative_zero_at_their_jumps() {
        for x in [-1.0, -0.5, 0.0, 0.5, 2.0] {
            assert_eq!(steps_jvp(x, 1.0).1, 0.0);
        }
    }
}
