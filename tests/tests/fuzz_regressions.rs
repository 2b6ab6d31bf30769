//! Bugs the differential fuzzer (`ad-fuzz`) found, each reduced to a small function and
//! checked three ways: values bit for bit, forward against central differences, reverse
//! against forward (every adjoint, and the dot-product identity).

mod common;

use ad_runtime::{forward, reverse};
use common::check_slice_function_at_random_points;

/// `ad-fuzz` seed 7, `fz61`: a float method with literal arguments on an untyped closure
/// parameter (`|t| t.clamp(-1.0, 1.0)`) was taken for a method of data, and its arguments were
/// left plain floats: a compile error inside generated code in both modes.
#[forward]
#[reverse]
fn clamped_squares(x: &[f64]) -> f64 {
    let clamped: Vec<f64> = x.iter().map(|t| (*t).clamp(-1.0, 1.0)).collect();
    let capped: f64 = x.iter().map(|t| t.max(-0.5) * t).sum();
    clamped.iter().map(|c| c * c).sum::<f64>() + capped
}

#[test]
fn float_methods_of_untyped_closure_parameters() {
    check_slice_function_at_random_points(
        clamped_squares,
        clamped_squares_jvp,
        clamped_squares_vjp,
        4,
        61,
    );
}

/// `ad-fuzz` seed 7: `let (a, b): (f64, f64) = (..)` (a tuple pattern with its type) was
/// refused by reverse mode, which took the same pattern without the type.
#[forward]
#[reverse]
fn typed_tuple_patterns(x: &[f64]) -> f64 {
    let (a, b): (f64, f64) = (x[0] * x[1], x[2].sin());
    let (mut c, mut d): (f64, f64) = (a + 1.0, b * x[0]);
    (c, d) = (d, c * a);
    c * d + a - b
}

#[test]
fn typed_tuple_destructuring() {
    check_slice_function_at_random_points(
        typed_tuple_patterns,
        typed_tuple_patterns_jvp,
        typed_tuple_patterns_vjp,
        3,
        7,
    );
}
