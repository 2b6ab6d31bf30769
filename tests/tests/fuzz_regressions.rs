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

/// `ad-fuzz` seed 7, `fz65`, reduced: the pair of a `sin_cos` of constants stayed a pair of
/// plain floats and met the scalar type in a float method's argument, a compile error inside
/// generated code in both modes. Tuples of float constants are now lifted as floats are.
#[forward]
#[reverse]
fn constant_pair_in_a_method_argument(x: &[f64]) -> f64 {
    let scaled = x[0] * 2.0 + 3.0;
    let (s, c) = (2.0_f64).sin_cos();
    scaled.powf(s.sin()) * c + x[1] * s
}

#[test]
fn tuples_of_constants_are_lifted() {
    check_slice_function_at_random_points(
        constant_pair_in_a_method_argument,
        constant_pair_in_a_method_argument_jvp,
        constant_pair_in_a_method_argument_vjp,
        2,
        65,
    );
}

/// `ad-fuzz` CI seed 2026, `fz55`: an `if let` over an `Option` of floats nested in another
/// `if`'s condition was taken for a `let` of that condition's chain and refused by reverse
/// mode. Only the chain's own `let`s bind names for the branch: the outer `y` below is still the
/// parameter's float in the branch, not the nested pattern's.
#[forward]
#[reverse]
#[allow(clippy::manual_unwrap_or)] // the form under test
fn nested_if_let_in_a_condition(x: &[f64]) -> f64 {
    let (a, y) = (x[0], x[1]);
    let o: Option<f64> = if a > 0.0 { Some(a * 0.5) } else { None };
    let scaled = if ((if let Some(v) = o { v.sin() } else { 3.0 }) * y) <= 0.5 {
        a * a
    } else {
        y * a
    };
    if (if let Some(y) = o { y } else { 0.0 }) < 10.0 {
        y * y * a + scaled
    } else {
        a
    }
}

#[test]
fn if_let_nested_in_a_condition() {
    check_slice_function_at_random_points(
        nested_if_let_in_a_condition,
        nested_if_let_in_a_condition_jvp,
        nested_if_let_in_a_condition_vjp,
        2,
        55,
    );
}

/// `ad-fuzz` seed 12, `fz63`: a labeled loop inside a checkpointed loop, left by `break` to its
/// own label, was refused as a `break` out of the checkpointed region.
#[forward]
#[reverse]
fn labeled_exits_inside_a_checkpoint(x: &[f64]) -> f64 {
    let (mut s, rate) = (x[0], x[1]);
    #[checkpoint(every = 3)]
    for i in 0..5 {
        'inner: for j in 0..4 {
            if s * (j as f64) > 2.0 {
                break 'inner;
            }
            if j == 1 {
                continue 'inner;
            }
            s = s * 0.9 + rate * (i + j) as f64 * 0.1;
        }
        s = s.sin() + rate;
    }
    s
}

#[test]
fn labeled_exits_inside_checkpointed_loops() {
    check_slice_function_at_random_points(
        labeled_exits_inside_a_checkpoint,
        labeled_exits_inside_a_checkpoint_jvp,
        labeled_exits_inside_a_checkpoint_vjp,
        2,
        63,
    );
}

#[forward]
#[reverse]
fn scaled_product(b: f64, n: usize, a: f64) -> f64 {
    a * b.sin() + n as f64
}

/// `ad-fuzz` seed 11, `fz19`, reduced: a differentiated function called in an iterator
/// closure with the closure's untyped parameter (`|t| g(*t, 3, *t)`) was taken for a call with
/// data only, and called with scalar-typed arguments: a compile error inside generated code in
/// both modes.
#[forward]
#[reverse]
fn calls_in_iterator_closures(x: &[f64]) -> f64 {
    let mapped: f64 = x.iter().map(|t| scaled_product(*t, 3, *t)).sum();
    let folded = x
        .iter()
        .fold(0.0, |acc, t| acc + scaled_product(x[0], 2, *t));
    mapped * folded
}

#[test]
fn differentiated_calls_with_untyped_closure_parameters() {
    check_slice_function_at_random_points(
        calls_in_iterator_closures,
        calls_in_iterator_closures_jvp,
        calls_in_iterator_closures_vjp,
        3,
        19,
    );
}

/// `ad-fuzz mutations`: an attribute on a closure parameter (`|#[allow(unused)] t: f64| ..`)
/// made reverse mode panic (the parameter was bound by a `let` with the attribute in front).
#[forward]
#[reverse]
fn attributes_on_closure_parameters(x: &[f64]) -> f64 {
    let scale = |#[allow(unused)] t: f64| t * x[0];
    let sum = x.iter().fold(0.0, |acc, #[allow(unused)] t| acc + t * t);
    scale(x[1]) + sum
}

#[test]
fn closure_parameters_with_attributes() {
    check_slice_function_at_random_points(
        attributes_on_closure_parameters,
        attributes_on_closure_parameters_jvp,
        attributes_on_closure_parameters_vjp,
        2,
        5,
    );
}
