//! Higher-order functions (seed `004` section 5.3): a `#[forward]` function takes a closure
//! (`f: impl Fn(f64) -> f64`, `&dyn Fn`), and differentiated code in either mode calls it with
//! closures that capture floats carrying derivatives. Forward mode passes the closure over dual
//! numbers; reverse mode runs the callee's forward code at dual numbers, the closure written
//! over them with its captured floats seeded, and takes the call's local Jacobian. Each caller
//! is checked against central differences, reverse against forward mode, and the dot-product
//! identity.
#![cfg(not(feature = "previous-engine"))]

mod common;

use ad_runtime::{forward, reverse, Dual, Scalar};
use approx::assert_relative_eq;
use common::check_slice_function_at_random_points;

/// The midpoint rule on `[a, b]`.
#[forward]
fn integrate(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    let n = 16;
    let h = (b - a) / n as f64;
    let mut total = 0.0;
    for i in 0..n {
        total += f(a + h * (i as f64 + 0.5));
    }
    total * h
}

/// Explicit Euler steps of `dy/dt = f(y)`, the right-hand side borrowed as `&dyn Fn`.
#[forward]
fn euler(rhs: &dyn Fn(f64) -> f64, y0: f64, dt: f64, steps: usize) -> f64 {
    let mut y = y0;
    for _ in 0..steps {
        y += dt * rhs(y);
    }
    y
}

#[forward]
#[reverse]
fn decay(rate: f64, y: f64) -> f64 {
    -rate * y
}

/// Closures capturing a float, a slice and data, calling a differentiated function, and a
/// typed parameter; two higher-order calls.
#[forward]
#[reverse]
fn calls_with_closures(x: &[f64]) -> f64 {
    let k = x[0];
    let scale = 3usize;
    let area = integrate(|t| (k * t).sin() * x[1] + t * x[2] * scale as f64, 0.0, k);
    let y = euler(
        &|y: f64| decay(x[1] * x[1] + 0.5, y) + 0.1 * k,
        x[2],
        0.05,
        20,
    );
    area * y + integrate(|t| t * t, x[0], x[1])
}

#[test]
fn closures_passed_to_functions_three_ways() {
    check_slice_function_at_random_points(
        calls_with_closures,
        calls_with_closures_jvp,
        calls_with_closures_vjp,
        3,
        61,
    );
}

#[test]
fn the_public_jvp_takes_the_closure_over_dual_numbers() {
    // d/db ∫_0^b sin(t) dt by the midpoint rule is the rule's derivative, close to sin(b).
    let (value, tangent) = integrate_jvp(|t: Dual<f64>| t.sin(), 0.0, 1.2, 0.0, 1.0);
    assert_relative_eq!(value, 1.0 - 1.2_f64.cos(), max_relative = 1e-3);
    assert_relative_eq!(tangent, 1.2_f64.sin(), max_relative = 1e-2);
}

/// The trapezoidal rule, generic over its closure's type as Rust code usually writes it.
#[forward]
fn trapezoid<F: Fn(f64) -> f64>(f: F, a: f64, b: f64, n: usize) -> f64 {
    let h = (b - a) / n as f64;
    let mut s = 0.5 * (f(a) + f(b));
    for i in 1..n {
        s += f(a + i as f64 * h);
    }
    s * h
}

/// A fixed-point iteration, its closure bounded in a `where` clause and lent.
#[forward]
fn fixed_point<G>(g: &G, start: f64, steps: usize) -> f64
where
    G: Fn(f64) -> f64 + Copy,
{
    let mut y = start;
    for _ in 0..steps {
        y = g(y);
    }
    y
}

#[forward]
#[reverse]
fn calls_with_generic_closure_parameters(x: &[f64]) -> f64 {
    let k = x[0];
    let area = trapezoid(|t| (k * t).cos() * x[1], 0.0, x[2], 16);
    let root = fixed_point(&|y| 0.5 * (y + x[1] * x[1] / y), 1.0 + x[2] * x[2], 6);
    area * root
}

#[test]
fn closure_type_parameters_in_both_modes() {
    check_slice_function_at_random_points(
        calls_with_generic_closure_parameters,
        calls_with_generic_closure_parameters_jvp,
        calls_with_generic_closure_parameters_vjp,
        3,
        67,
    );
    // The function as written is still generic over its closure's type.
    let (value, tangent) = trapezoid_jvp(|t: Dual<f64>| t * t, 0.0, 1.5, 64, 0.0, 1.0);
    assert_relative_eq!(value, trapezoid(|t| t * t, 0.0, 1.5, 64));
    assert_relative_eq!(tangent, 1.5 * 1.5, max_relative = 1e-3);
}
