//! Constructs only `#[forward]` supports so far (closures, local tuples and arrays, `vec!` of
//! floats, tuple results, calls through `use` imports of forward-only functions, random
//! directions of many parameters), each checked against the plain function's value (bit for
//! bit) and against central differences. Constructs both modes support are checked in
//! `constructs.rs`, against each other as well.

// The functions spell out constructs on purpose, because the macro must handle each spelling.
#![allow(clippy::useless_vec)]

mod common;

use ad_runtime::forward;
use approx::assert_relative_eq;
use common::{central_difference, forward_checked1, forward_checked2, Rng};

fn check1(plain: impl Fn(f64) -> f64, jvp: impl Fn(f64, f64) -> (f64, f64), points: &[f64]) {
    for &x in points {
        forward_checked1(&plain, &jvp, x);
    }
}

fn check2(
    plain: impl Fn(f64, f64) -> f64,
    jvp: impl Fn(f64, f64, f64, f64) -> (f64, f64),
    points: &[(f64, f64)],
) {
    for &(x, y) in points {
        forward_checked2(&plain, &jvp, x, y);
    }
}

#[forward]
fn closures(x: f64, y: f64) -> f64 {
    let scale = |t: f64| t * y;
    let shift = move |t| t + x;
    shift(scale(x.sin()))
}

#[test]
fn closures_capturing_floats() {
    check2(closures, closures_jvp, &[(0.5, 1.0), (-1.0, 0.3)]);
}

#[forward]
fn tuples_and_arrays(x: f64, y: f64) -> f64 {
    let pair = (x * y, x - y);
    let (a, b) = pair;
    let weights = [1.0, 2.0, 3.0];
    let mut s = pair.0 + a * b;
    for (i, w) in weights.iter().enumerate() {
        s += *w * x.powi(i as i32);
    }
    s
}

#[test]
fn local_tuples_and_arrays() {
    check2(
        tuples_and_arrays,
        tuples_and_arrays_jvp,
        &[(0.5, 1.0), (-1.0, 0.3)],
    );
}

#[forward]
fn with_macros(x: f64) -> f64 {
    assert!(x.is_finite(), "x must be finite, got {}", x);
    debug_assert!(x > -100.0);
    assert_ne!(x, 1e300, "x must not be {}", 1e300);
    let v = vec![x, x * 2.0, 3.0];
    let w = vec![0.5; 3];
    v[1] * w[0] + v[2]
}

#[test]
fn supported_macros() {
    check1(with_macros, with_macros_jvp, &[-1.7, -0.4, 0.3, 0.9, 2.2]);
}

#[forward]
fn nested_item(x: f64) -> f64 {
    fn helper(n: usize) -> usize {
        n * 2
    }
    x * helper(3) as f64
}

#[test]
fn items_nested_in_the_body() {
    check1(nested_item, nested_item_jvp, &[-1.7, 0.3, 2.2]);
}

#[forward]
fn pair_result(x: f64, y: f64) -> (f64, f64) {
    (x * y, x.sin() + y)
}

#[test]
fn tuple_results() {
    let ((a, b), (da, db)) = pair_result_jvp(0.5, 2.0, 1.0, 0.0);
    assert_eq!((a, b), pair_result(0.5, 2.0));
    assert_relative_eq!(da, 2.0);
    assert_relative_eq!(db, 0.5_f64.cos());
}

#[forward]
fn mixed(x: f32, n: usize) -> f32 {
    let mut y = x;
    for _ in 0..n {
        y = y * 0.5 + x.sin();
    }
    y
}

#[test]
fn f32_functions() {
    for x in [-1.0_f32, 0.25, 2.0] {
        let (value, tangent) = mixed_jvp(x, 4, 1.0);
        assert_eq!(value, mixed(x, 4));
        let h = 1e-3;
        let fd = (mixed(x + h, 4) as f64 - mixed(x - h, 4) as f64) / (2.0 * h as f64);
        assert_relative_eq!(tangent as f64, fd, max_relative = 1e-2);
    }
}

#[forward]
fn no_differentiated_parameters(#[no_grad] c: f64, n: i32) -> f64 {
    c.powi(n)
}

#[test]
fn all_parameters_constant() {
    assert_eq!(no_differentiated_parameters_jvp(2.0, 3), (8.0, 0.0));
}

#[forward]
fn many_parameters(a: f64, b: f64, c: f64, d: f64) -> f64 {
    a * b.sin() + c / d
}

/// The JVP is linear in the tangent, and its directional derivatives match central differences
/// along random directions.
#[test]
fn random_directions() {
    let mut rng = Rng::new(11);
    for _ in 0..50 {
        let p: Vec<f64> = (0..4).map(|_| rng.uniform(0.5, 2.0)).collect();
        let t: Vec<f64> = (0..4).map(|_| rng.uniform(-1.0, 1.0)).collect();
        let (_, along) = many_parameters_jvp(p[0], p[1], p[2], p[3], t[0], t[1], t[2], t[3]);
        let f = |h: f64| {
            many_parameters(
                p[0] + h * t[0],
                p[1] + h * t[1],
                p[2] + h * t[2],
                p[3] + h * t[3],
            )
        };
        assert_relative_eq!(along, central_difference(f, 0.0, 1e-4), epsilon = 1e-8);
    }
}

mod inner {
    use ad_runtime::forward;

    #[forward]
    pub fn cube(x: f64) -> f64 {
        x * x * x
    }
}

mod imported {
    use super::inner::cube;
    use ad_runtime::forward;

    #[forward]
    pub fn uses_import(x: f64) -> f64 {
        cube(x) + 1.0
    }
}

#[test]
fn calls_through_use_imports() {
    check1(
        imported::uses_import,
        imported::uses_import_jvp,
        &[-1.7, 0.3, 2.2],
    );
}
