//! Calls to generated functions inside `#[reverse]` bodies (nesting in every order): reverse
//! over reverse (`g_grad`, `g_vjp`), reverse over forward (`g_jvp`), with any destructuring
//! pattern. Reverse mode runs the callee's generic version (`g::grad`) at dual numbers and
//! takes its local Jacobian with forward mode. No perturbation confusion for any pair of modes
//! (d/dx (x · d/dy (x + y)) = 1, not 2); seed `003`'s saddle point (an inner gradient ascent
//! inside an outer gradient); each checked against forward mode, central differences and the
//! dot-product identity.

mod common;

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;
use common::{central_difference, check_slice_function_at_random_points};

#[forward]
#[reverse]
fn plus(x: f64, y: f64) -> f64 {
    x + y
}

/// x · d/dy (x + y) at y = 1, the inner derivative by each mode.
#[forward]
#[reverse]
fn times_reverse_derivative(x: f64) -> f64 {
    let (_, (_, dy)) = plus_grad(x, 1.0);
    x * dy
}

#[forward]
#[reverse]
fn times_forward_derivative(x: f64) -> f64 {
    x * plus_jvp(x, 1.0, 0.0, 1.0).1
}

#[forward]
#[reverse]
fn times_vjp_derivative(x: f64) -> f64 {
    let (_, adjoints) = plus_vjp(x, 1.0, 1.0);
    x * adjoints.1
}

#[test]
fn no_perturbation_confusion_in_any_pair_of_modes() {
    type Pair = (fn(f64) -> (f64, f64), fn(f64, f64) -> (f64, f64));
    let cases: [Pair; 3] = [
        (times_reverse_derivative_grad, times_reverse_derivative_jvp),
        (times_forward_derivative_grad, times_forward_derivative_jvp),
        (times_vjp_derivative_grad, times_vjp_derivative_jvp),
    ];
    for (grad, jvp) in cases {
        // Confusing the two perturbations gives 2.
        assert_eq!(grad(1.0), (1.0, 1.0));
        assert_eq!(jvp(1.0, 1.0), (1.0, 1.0));
    }
}

#[forward]
#[reverse]
fn curved(x: f64, y: f64) -> f64 {
    x * y * y + x.sin() * y.exp()
}

#[reverse]
fn weighted_squares(w: &[f64], k: f64) -> f64 {
    w.iter().map(|v| v * v * k).sum::<f64>() + w[0] * w[1]
}

/// Reverse over reverse and reverse over forward, through tuple and slice results.
#[forward]
#[reverse]
fn nested_orders(x: &[f64]) -> f64 {
    let (_, (gx, gy)) = curved_grad(x[0], x[1]);
    let (value, (gw, _)) = weighted_squares_grad(x, 2.0);
    let (_, (cw, ck)) = weighted_squares_vjp(x, x[0], 1.5);
    let (c, tangent) = curved_jvp(x[1], x[2], 1.0, x[0]);
    gx * gy + value * gw[1] + cw[2] * ck + c * tangent
}

#[test]
fn nested_orders_three_ways() {
    check_slice_function_at_random_points(
        nested_orders,
        nested_orders_jvp,
        nested_orders_vjp,
        3,
        31,
    );
}

/// The saddle `x² - y² + x y`.
#[forward]
#[reverse]
fn saddle(x: f64, y: f64) -> f64 {
    x * x - y * y + x * y
}

/// The value at the best response to `x`: `y` found by gradient ascent on the saddle, whose
/// steps are inner gradients (seed `003`).
#[forward]
#[reverse]
fn at_best_response(x: f64) -> f64 {
    let mut y = 0.0;
    for _ in 0..30 {
        let (_, (_, ascent)) = saddle_grad(x, y);
        y += 0.25 * ascent;
    }
    saddle(x, y)
}

#[test]
fn the_saddle_point_gradient_through_an_inner_ascent() {
    for x in [-1.3, 0.4, 2.0] {
        let (value, gradient) = at_best_response_grad(x);
        let (forward_value, tangent) = at_best_response_jvp(x, 1.0);
        assert_eq!(value, forward_value);
        assert_relative_eq!(gradient, tangent, max_relative = 1e-12);
        assert_relative_eq!(
            gradient,
            central_difference(at_best_response, x, 1e-5),
            max_relative = 1e-7
        );
        // The ascent converges to y = x / 2, where the value is 5 x² / 4.
        assert_relative_eq!(gradient, 2.5 * x, max_relative = 1e-6);
    }
}
