//! Everyday Rust in reverse mode: `std::mem::swap`, `replace` and `take` of values carrying
//! derivatives (double buffers swapped each step, as explicit PDE and ODE steppers write them),
//! checked against forward mode, central differences and the dot-product identity.
#![cfg(not(feature = "previous-engine"))]

mod common;

use ad_runtime::{forward, reverse};
use common::check_slice_function_at_random_points;

/// Explicit diffusion steps in two buffers swapped each step.
#[forward]
#[reverse]
fn diffusion(x: &[f64]) -> f64 {
    let n = x.len();
    let mut u = x.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..4 {
        for i in 0..n {
            let left = if i > 0 { u[i - 1] } else { u[i] };
            let right = if i + 1 < n { u[i + 1] } else { u[i] };
            next[i] = u[i] + 0.2 * (left - 2.0 * u[i] + right) + 0.01 * u[i].sin();
        }
        std::mem::swap(&mut u, &mut next);
    }
    let mut a = x[0];
    let mut b = 2.0 * x[n - 1];
    std::mem::swap(&mut a, &mut b);
    let old = std::mem::replace(&mut a, b * b);
    let taken = std::mem::take(&mut b);
    u.iter().map(|v| v * v).sum::<f64>() + a * old + taken.exp() + b
}

#[test]
fn swapped_buffers_against_forward_mode_and_central_differences() {
    for n in [1, 2, 3, 6] {
        check_slice_function_at_random_points(diffusion, diffusion_jvp, diffusion_vjp, n, n as u64);
    }
}

/// Formerly a compile-fail test: a float replaced inside a comparison.
#[forward]
#[reverse]
fn float_replaced_in_comparison(x: f64) -> f64 {
    let mut a = x * 2.0;
    if std::mem::replace(&mut a, x * x) > 1.0 {
        a += 1.0;
    }
    a * x
}

#[test]
fn replaced_in_a_comparison_against_forward_mode_and_central_differences() {
    for x in [-1.3, 0.2, 0.7, 1.9] {
        let along = common::forward_checked1(
            float_replaced_in_comparison,
            float_replaced_in_comparison_jvp,
            x,
        );
        let (value, gradient) = float_replaced_in_comparison_grad(x);
        assert_eq!(value.to_bits(), float_replaced_in_comparison(x).to_bits());
        approx::assert_relative_eq!(gradient, along, max_relative = 1e-12);
    }
}
