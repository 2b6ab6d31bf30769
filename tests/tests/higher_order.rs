//! Higher-order functions (seed `004` section 5.3): a `#[forward]` function takes a closure
//! (`f: impl Fn(f64) -> f64`, `&dyn Fn`, `f: F` with `F: Fn(f64) -> f64`), and differentiated
//! code in either mode calls it with closures that capture floats carrying derivatives. Forward
//! mode passes the closure over dual numbers; reverse mode runs the callee's forward code at
//! dual numbers, the closure written over them with its captured floats seeded, and takes the
//! call's local Jacobian. A `#[reverse]` function taking a closure has `_vjp` and `_grad` by
//! the vector forward mode through its forward code, the closure given over `DualChunk<f64>`.
//! Each is checked against central differences, reverse against forward mode, and the
//! dot-product identity.

mod common;

use ad_runtime::{forward, reverse, Dual, DualChunk, Scalar};
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

/// A quadrature rule under both attributes: `_vjp`/`_grad` take the closure over `DualChunk`.
#[forward]
#[reverse]
fn simpson(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    let n = 32;
    let h = (b - a) / n as f64;
    let mut s = f(a) + f(b);
    for i in 1..n {
        let weight = if i % 2 == 1 { 4.0 } else { 2.0 };
        s += weight * f(a + i as f64 * h);
    }
    s * h / 3.0
}

/// An explicit Euler integrator of a system, its right-hand side a closure type parameter;
/// a state, a step and a vector result.
#[reverse]
#[forward]
fn euler_system<F: Fn(f64, &[f64]) -> Vec<f64>>(
    rhs: F,
    y0: &[f64],
    dt: f64,
    steps: usize,
) -> Vec<f64> {
    let mut y = y0.to_vec();
    for k in 0..steps {
        let slope = rhs(k as f64 * dt, &y);
        for i in 0..y.len() {
            y[i] += dt * slope[i];
        }
    }
    y
}

/// A damped oscillator, written once over any scalar: passed as it is to the function, to its
/// `_jvp` (over `Dual`) and to its `_vjp` (over `DualChunk`).
fn oscillator<S: Scalar>(t: S, y: &[S]) -> Vec<S> {
    vec![
        y[1],
        -y[0] - y[1] * S::from_f64(0.3) + (t * S::from_f64(0.5)).sin(),
    ]
}

#[test]
fn a_reverse_function_taking_a_closure() {
    let k = 1.7;
    for (a, b) in [(0.0, 1.0), (-0.5, 0.8), (0.3, 2.1)] {
        let (value, (da, db)) = simpson_grad(|t| wave(t, k), a, b);
        assert_eq!(value, simpson(|t| wave(t, k), a, b));
        let along = |ta: f64, tb: f64| simpson_jvp(|t| wave(t, k), a, b, ta, tb).1;
        assert_relative_eq!(da, along(1.0, 0.0), epsilon = 1e-12, max_relative = 1e-12);
        assert_relative_eq!(db, along(0.0, 1.0), epsilon = 1e-12, max_relative = 1e-12);
        let moved = |h: f64| simpson(|t| wave(t, k), a, b + h);
        assert_relative_eq!(
            db,
            common::central_difference(moved, 0.0, 1e-5),
            epsilon = 1e-8,
            max_relative = 1e-6
        );
    }
    let (_, (dy, ddt)) = euler_system_vjp(oscillator, &[1.0, 0.5], 0.1, 12, vec![0.7, -1.3]);
    let (value, tangent) = euler_system_jvp(oscillator, &[1.0, 0.5], 0.1, 12, &[0.2, 0.9], 0.4);
    assert_eq!(value, euler_system(oscillator, &[1.0, 0.5], 0.1, 12));
    // <c, J t> = <J^T c, t>.
    let forward = 0.7 * tangent[0] - 1.3 * tangent[1];
    let transposed = dy[0] * 0.2 + dy[1] * 0.9 + ddt * 0.4;
    assert_relative_eq!(forward, transposed, epsilon = 1e-12, max_relative = 1e-12);
    let moved = |h: f64| {
        let y = euler_system(
            oscillator,
            &[1.0 + 0.2 * h, 0.5 + 0.9 * h],
            0.1 + 0.4 * h,
            12,
        );
        0.7 * y[0] - 1.3 * y[1]
    };
    assert_relative_eq!(
        forward,
        common::central_difference(moved, 0.0, 1e-5),
        epsilon = 1e-8,
        max_relative = 1e-6
    );
    // The closure over `DualChunk`, written out: the first component's sensitivity to the
    // initial state.
    let rhs = |t: DualChunk<f64>, y: &[DualChunk<f64>]| oscillator(t, y);
    let (_, (dy0, _)) = euler_system_vjp(rhs, &[1.0, 0.5], 0.1, 12, vec![1.0, 0.0]);
    for (i, direction) in [[1.0, 0.0], [0.0, 1.0]].iter().enumerate() {
        let (_, tangent) = euler_system_jvp(oscillator, &[1.0, 0.5], 0.1, 12, direction, 0.0);
        assert_relative_eq!(dy0[i], tangent[0], epsilon = 1e-12, max_relative = 1e-12);
    }
}

/// `sin(k t) t` over any scalar.
fn wave<S: Scalar>(t: S, k: f64) -> S {
    (t * S::from_f64(k)).sin() * t
}

/// A closure taken by reference as `&impl Fn` (a recursive adaptive Simpson writes it so): the
/// derivative code no longer names the function alone, whose `impl` type has no instance
/// there (E0283 in generated code before).
#[forward]
#[reverse]
fn scaled_by_a_borrowed_closure(f: &impl Fn(f64) -> f64, a: f64) -> f64 {
    f(a) * a
}

#[forward]
#[reverse]
fn calls_with_a_borrowed_closure(k: f64, a: f64) -> f64 {
    scaled_by_a_borrowed_closure(&|t| (k * t).sin(), a)
}

#[test]
fn a_closure_borrowed_as_impl_fn() {
    for (k, a) in [(0.7, 1.3), (-1.1, 0.4)] {
        let (value, along_k) = calls_with_a_borrowed_closure_jvp(k, a, 1.0, 0.0);
        let (same, (dk, da)) = calls_with_a_borrowed_closure_grad(k, a);
        assert_eq!(value, same);
        assert_relative_eq!(along_k, dk, max_relative = 1e-14);
        let h = 1e-6;
        let along_a = (calls_with_a_borrowed_closure(k, a + h)
            - calls_with_a_borrowed_closure(k, a - h))
            / (2.0 * h);
        assert_relative_eq!(da, along_a, epsilon = 1e-8, max_relative = 1e-7);
        assert_relative_eq!(dk, a * a * (k * a).cos(), max_relative = 1e-14);
    }
}

#[forward]
fn simpson_by_reference<F: Fn(f64) -> f64>(f: &F, a: f64, b: f64, n: usize) -> f64 {
    let h = (b - a) / n as f64;
    let mut s = f(a) + f(b);
    for i in 1..n {
        let x = a + i as f64 * h;
        s += if i % 2 == 1 { 4.0 } else { 2.0 } * f(x);
    }
    s * h / 3.0
}

#[forward]
fn trapezoid_by_value(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    0.5 * (f(a) + f(b)) * (b - a)
}

/// Closures bound by `let` and passed by name (`simpson(&f, ..)`, `trapezoid(g, ..)`), also
/// called directly: reverse mode takes each call as if the closure were written there.
#[forward]
#[reverse]
fn integrals_of_named_closures(p: &[f64]) -> f64 {
    let (k, b) = (p[0], p[1]);
    let f = |x: f64| (k * x).sin() * (-x).exp();
    let g = |x: f64| x * k;
    simpson_by_reference(&f, 0.0, b, 8) + trapezoid_by_value(g, 0.0, b) + f(0.3)
}

#[test]
fn closures_bound_by_let_passed_by_name() {
    check_slice_function_at_random_points(
        integrals_of_named_closures,
        integrals_of_named_closures_jvp,
        integrals_of_named_closures_vjp,
        2,
        79,
    );
}
