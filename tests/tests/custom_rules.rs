//! `#[rule]`: derivatives the user gives for functions the macros cannot see into, used by both
//! modes. Each rule's generated functions and each caller are checked against central
//! differences and against the other mode; second derivatives go through the rules' own rules,
//! and a rule whose derivative is a plain function of the base float says so when asked for a
//! second derivative.
#![allow(clippy::needless_range_loop)]

mod common;

use ad_runtime::{forward, reverse, rule};
use approx::assert_relative_eq;
use common::{central_difference, check_slice_function_at_random_points};
use num_traits::Float;

/// `erf` from `libm`; its derivative is differentiable code, so every order works.
#[rule(derivative = erf_derivative)]
fn erf(x: f64) -> f64 {
    libm::erf(x)
}

#[forward]
fn erf_derivative(x: f64) -> f64 {
    2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp()
}

/// `ln(1 + e^x)`, with a derivative generic over its float type.
#[rule(derivative = logistic)]
fn softplus(x: f64) -> f64 {
    match x > 30.0 {
        true => x,
        false => x.exp().ln_1p(),
    }
}

fn logistic<T: Float>(x: T) -> T {
    T::one() / (T::one() + (-x).exp())
}

/// `atan2` from `libm` with partials that are plain functions of `f64`s: first derivatives
/// only.
#[rule(partials = [atan2_dy, atan2_dx])]
fn angle(y: f64, x: f64) -> f64 {
    libm::atan2(y, x)
}

fn atan2_dy(y: f64, x: f64) -> f64 {
    x / (x * x + y * y)
}

fn atan2_dx(y: f64, x: f64) -> f64 {
    -y / (x * x + y * y)
}

/// A rule whose derivative is another rule: `∫ erf = x erf(x) + e^(-x²) / √π`.
#[rule(derivative = erf)]
fn erf_integral(x: f64) -> f64 {
    x * libm::erf(x) + (-x * x).exp() / std::f64::consts::PI.sqrt()
}

/// An `f32` rule.
#[rule(derivative = cube_derivative)]
fn cube(x: f32) -> f32 {
    x * x * x
}

fn cube_derivative(x: f32) -> f32 {
    3.0 * x * x
}

#[forward]
#[reverse]
fn through_rules(v: &[f64]) -> f64 {
    erf(v[0] * v[1]) * softplus(v[2]) + angle(v[1], v[2] + 3.0) * v[0] + erf_integral(0.3 * v[0])
}

#[test]
fn rules_in_both_modes_three_ways() {
    check_slice_function_at_random_points(
        through_rules,
        through_rules_jvp,
        through_rules_vjp,
        3,
        51,
    );
}

#[test]
fn the_generated_functions_of_a_rule() {
    for x in [-1.2, 0.1, 0.9] {
        let (value, derivative) = erf_grad(x);
        assert_eq!(value, libm::erf(x));
        assert_relative_eq!(
            derivative,
            central_difference(erf, x, 1e-5),
            max_relative = 1e-8
        );
        assert_eq!(erf_jvp(x, 2.0), (value, 2.0 * derivative));
        assert_eq!(erf_vjp(x, 3.0), (value, 3.0 * derivative));
        let (_, (dy, dx)) = angle_grad(x, 2.0);
        assert_relative_eq!(
            dy,
            central_difference(|y| angle(y, 2.0), x, 1e-5),
            max_relative = 1e-8
        );
        assert_relative_eq!(
            dx,
            central_difference(|t| angle(x, t), 2.0, 1e-5),
            max_relative = 1e-8
        );
        let (_, tangent) = angle_jvp(x, 2.0, 1.0, -1.0);
        assert_relative_eq!(tangent, dy - dx, max_relative = 1e-14);
        // A rule whose derivative is a rule: the derivative is exactly the other rule.
        assert_eq!(erf_integral_grad(x * 0.5).1, erf(x * 0.5));
        assert_eq!(
            cube_grad(x as f32),
            (cube(x as f32), 3.0 * (x as f32) * (x as f32))
        );
    }
}

#[reverse]
fn rule_hessian_case(v: &[f64]) -> f64 {
    erf(v[0] * v[1]) + softplus(v[0] - v[1]) * erf_integral(0.5 * v[1])
}

#[test]
fn second_derivatives_go_through_the_rules_of_the_rules() {
    let v = [0.4, -0.7];
    let (_, gradient, hessian) = rule_hessian_case_hessian(&v);
    for i in 0..2 {
        for j in 0..2 {
            let moved = |h: f64| {
                let mut w = v;
                w[j] += h;
                rule_hessian_case_grad(&w).1[i]
            };
            assert_relative_eq!(
                hessian[i][j],
                central_difference(moved, 0.0, 1e-5),
                epsilon = 1e-7,
                max_relative = 1e-6
            );
        }
    }
    assert_eq!(gradient, rule_hessian_case_grad(&v).1);
}

#[reverse]
fn through_a_first_order_rule(v: &[f64]) -> f64 {
    angle(v[0], v[1])
}

#[test]
#[should_panic(expected = "the rule of `angle` gives its derivative as a plain function")]
fn a_second_derivative_through_a_first_order_rule_says_so() {
    let _ = through_a_first_order_rule_hessian(&[0.3, 1.2]);
}

/// A rule whose partial is infinite at 0 (`√|x|`), as the built-in `sqrt`'s is.
#[rule(derivative = root_abs_derivative)]
fn root_abs(x: f64) -> f64 {
    x.abs().sqrt()
}

fn root_abs_derivative(x: f64) -> f64 {
    x.signum() * 0.5 / x.abs().sqrt()
}

#[forward]
#[reverse]
fn through_an_infinite_partial(v: &[f64]) -> f64 {
    root_abs(v[0]) + v[1] * v[2]
}

#[test]
fn an_infinite_partial_stays_in_its_own_column() {
    let v = [0.0, 2.0, 3.0];
    let (_, jacobian) = through_an_infinite_partial_jacfwd(&v);
    assert_eq!(&jacobian[0][1..], &[3.0, 2.0]);
    for (i, expected) in [3.0, 2.0].into_iter().enumerate() {
        let mut direction = [0.0; 3];
        direction[i + 1] = 1.0;
        assert_eq!(through_an_infinite_partial_jvp(&v, &direction).1, expected);
    }
    // Reverse mode: a zero cotangent through the rule gives a zero adjoint, not NaN.
    let (_, adjoint) = root_abs_vjp(0.0, 0.0);
    assert_eq!(adjoint, 0.0);
}
