//! Calls from differentiated code to plain functions of the same file generic over their float
//! type (`fn smooth<T: Float>(x: T, k: &[T]) -> T`, not annotated): forward mode runs them at
//! the dual number, reverse mode takes their local Jacobian at the call with forward mode.
//! Each caller is checked three ways: reverse against forward mode along every basis
//! direction, forward mode against central differences, and the dot-product identity; and its
//! Hessian (forward over reverse, through the local Jacobian) against central differences.
// Index loops over matrices, as the checks read.
#![allow(clippy::needless_range_loop)]

mod common;
mod numerics_elsewhere;

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;
use common::{central_difference, check_slice_function_at_random_points, random_vector, Rng};
use num_traits::{Float, FloatConst, FromPrimitive};
use numerics_elsewhere::log_sum_exp;

/// Two floats, `sin`.
fn blend<T: Float>(a: T, b: T) -> T {
    a * b + a.sin()
}

/// A slice and data beside it (`scale: f64`, a length), `T::from`, a sum.
fn scaled_norm2<T: Float + std::iter::Sum>(v: &[T], scale: f64, skip: usize) -> T {
    v.iter().skip(skip).map(|x| *x * *x).sum::<T>() * T::from(scale).unwrap()
}

/// An array lent, a tuple of a float and a `Vec` returned.
fn spread<T: Float>(x: T, w: &[T; 2]) -> (T, Vec<T>) {
    (x * w[0], vec![x.exp(), w[1] * x])
}

/// A `Vec` taken by value, an array returned; `FloatConst`, `FromPrimitive`; calls another
/// plain generic function.
fn rotate<T: Float + FloatConst + FromPrimitive>(p: Vec<T>, turns: T) -> [T; 2] {
    let angle = turns * T::PI() * T::from_f64(2.0).unwrap();
    let (s, c) = angle.sin_cos();
    [blend(p[0], c) - p[1] * s, p[0] * s + p[1] * c]
}

/// Branches on the value, a loop.
fn soft_clip<T: Float>(x: T, limit: T) -> T {
    let mut y = x;
    for _ in 0..2 {
        y = if y.abs() > limit {
            limit * y.signum()
        } else {
            y - y.powi(3) / (limit * limit * T::from(3.0).unwrap())
        };
    }
    y
}

#[forward]
#[reverse]
fn calls_blend(x: &[f64]) -> f64 {
    blend(x[0], x[1]) * 2.0 + blend(x[1] * x[2], 0.5)
}

#[forward]
#[reverse]
fn calls_norm(x: &[f64]) -> f64 {
    let k = x[0];
    let v: Vec<f64> = x.iter().map(|t| t * k).collect();
    scaled_norm2(&v, 0.5, 1) + scaled_norm2(x, 2.0, 0) * k
}

#[forward]
#[reverse]
fn calls_spread(x: &[f64]) -> f64 {
    let w = [x[1], x[2] * x[0]];
    let (p, q) = spread(x[0], &w);
    p * q[0] + q[1]
}

#[forward]
#[reverse]
fn calls_rotate(x: &[f64]) -> f64 {
    let r = rotate(vec![x[0], x[1]], x[2] * 0.1);
    r[0] * r[0] + 3.0 * r[1]
}

/// In a loop, on the loop's running value; one argument data (a constant).
#[forward]
#[reverse]
fn calls_in_a_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += soft_clip(x[i] * 1.7 + s * 0.3, 1.5);
    }
    s
}

/// Called with data alone: a constant.
#[forward]
#[reverse]
fn calls_on_data(x: &[f64]) -> f64 {
    let c = blend(0.3, 2.0);
    x[0] * c + x[1]
}

/// Inside a checkpointed region, whose first run records nothing.
#[reverse]
#[forward]
fn calls_in_a_checkpoint(x: &[f64]) -> f64 {
    let (mut s, a, b) = (x[0], x[1], x[2]);
    #[checkpoint]
    for _ in 0..3 {
        s = blend(s, a) * 0.5 + b;
    }
    s * s + x[3]
}

/// Generic helpers of a module file: through its path, a nested module's path, an import, the
/// crate's root.
#[forward]
#[reverse]
fn calls_elsewhere(x: &[f64]) -> f64 {
    let m = numerics_elsewhere::mean(x);
    let k = numerics_elsewhere::kernels::gaussian(x[0], m, x[2] + 2.0);
    let through_root = crate::numerics_elsewhere::kernels::gaussian(x[1], x[0], 1.5)
        + self::numerics_elsewhere::mean(&x[1..]);
    log_sum_exp(&[x[1] * k, m, x[0]]) + k * m + through_root
}

#[test]
fn callers_of_plain_generic_functions_three_ways() {
    check_slice_function_at_random_points(
        calls_elsewhere,
        calls_elsewhere_jvp,
        calls_elsewhere_vjp,
        3,
        8,
    );
    check_slice_function_at_random_points(calls_blend, calls_blend_jvp, calls_blend_vjp, 3, 1);
    check_slice_function_at_random_points(calls_norm, calls_norm_jvp, calls_norm_vjp, 4, 2);
    check_slice_function_at_random_points(calls_spread, calls_spread_jvp, calls_spread_vjp, 3, 3);
    check_slice_function_at_random_points(calls_rotate, calls_rotate_jvp, calls_rotate_vjp, 3, 4);
    check_slice_function_at_random_points(
        calls_in_a_loop,
        calls_in_a_loop_jvp,
        calls_in_a_loop_vjp,
        5,
        5,
    );
    check_slice_function_at_random_points(
        calls_on_data,
        calls_on_data_jvp,
        calls_on_data_vjp,
        2,
        6,
    );
    check_slice_function_at_random_points(
        calls_in_a_checkpoint,
        calls_in_a_checkpoint_jvp,
        calls_in_a_checkpoint_vjp,
        4,
        7,
    );
}

#[test]
fn gradient_through_a_plain_generic_function_is_exact() {
    // d/dx0 and d/dx1 of 2 (x0 x1 + sin x0) + (x1 x2 · 0.5 + sin(x1 x2)).
    let x = [0.5, 2.0, -0.7];
    let (_, gradient) = calls_blend_grad(&x);
    let inner = x[1] * x[2];
    let outer = 0.5 + inner.cos();
    assert_relative_eq!(gradient[0], 2.0 * (x[1] + x[0].cos()), max_relative = 1e-15);
    assert_relative_eq!(gradient[1], 2.0 * x[0] + x[2] * outer, max_relative = 1e-15);
    assert_relative_eq!(gradient[2], x[1] * outer, max_relative = 1e-15);
}

#[test]
fn hessians_through_plain_generic_functions_match_central_differences() {
    let mut rng = Rng::new(11);
    let x = random_vector(&mut rng, 3);
    type Grad = fn(&[f64]) -> (f64, Vec<f64>);
    type Hessian = fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>);
    let cases: [(Grad, Hessian); 3] = [
        (calls_blend_grad, calls_blend_hessian),
        (calls_spread_grad, calls_spread_hessian),
        (calls_rotate_grad, calls_rotate_hessian),
    ];
    for (grad, hessian) in cases {
        let (_, gradient, matrix) = hessian(&x);
        assert_eq!(gradient, grad(&x).1);
        for i in 0..3 {
            for j in 0..3 {
                let moved = |h: f64| {
                    let mut y = x.clone();
                    y[j] += h;
                    grad(&y).1[i]
                };
                assert_relative_eq!(
                    matrix[i][j],
                    central_difference(moved, 0.0, 1e-5),
                    epsilon = 1e-6,
                    max_relative = 1e-6
                );
            }
        }
    }
}

/// A `Vec` result: its cotangent is a `Vec`; `<J t, c> = <t, J^T c>`.
#[forward]
#[reverse]
fn spread_all(x: &[f64]) -> Vec<f64> {
    let (p, q) = spread(x[0], &[x[1], x[2]]);
    vec![p, q[0] * x[1], q[1]]
}

#[test]
fn a_vector_valued_caller_meets_the_dot_product_identity() {
    let mut rng = Rng::new(21);
    for _ in 0..5 {
        let x = random_vector(&mut rng, 3);
        let t = random_vector(&mut rng, 3);
        let c = random_vector(&mut rng, 3);
        let (value, jt) = spread_all_jvp(&x, &t);
        let (reverse_value, jtc) = spread_all_vjp(&x, c.clone());
        assert_eq!(value, reverse_value);
        let left: f64 = jt.iter().zip(&c).map(|(a, b)| a * b).sum();
        let right: f64 = t.iter().zip(&jtc).map(|(a, b)| a * b).sum();
        assert_relative_eq!(left, right, epsilon = 1e-12, max_relative = 1e-12);
        for k in 0..3 {
            let moved = |h: f64| {
                let mut y = x.clone();
                y[k] += h;
                spread_all(&y).iter().zip(&c).map(|(a, b)| a * b).sum()
            };
            assert_relative_eq!(
                jtc[k],
                central_difference(moved, 0.0, 1e-5),
                epsilon = 1e-7,
                max_relative = 1e-6
            );
        }
    }
}

/// The guide's example.
fn blend_weights<T: Float>(a: T, w: &[T]) -> T {
    a.sin() * w[0] + w[1]
}

#[forward]
#[reverse]
fn guide_example(x: f64, y: f64) -> f64 {
    blend_weights(x, &[y, x * y])
}

#[test]
fn the_guide_example_gives_the_gradient_by_hand() {
    let (_, (dx, dy)) = guide_example_grad(0.5, 2.0);
    assert_relative_eq!(dx, 0.5_f64.cos() * 2.0 + 2.0, max_relative = 1e-15);
    assert_relative_eq!(dy, 0.5_f64.sin() + 0.5, max_relative = 1e-15);
    let (_, tangent) = guide_example_jvp(0.5, 2.0, 1.0, 0.0);
    assert_relative_eq!(tangent, dx, max_relative = 1e-15);
}

/// A function with `#[forward]` alone, called from reverse code: its local derivative at the
/// call comes from its forward code (one pass per float it is given), as a generic plain
/// function's does.
#[forward]
fn forward_only_square(x: f64) -> f64 {
    x * x
}

/// The same, over a slice and data.
#[forward]
fn forward_only_sines(x: &[f64], k: usize) -> f64 {
    x.iter().map(|v| v.sin()).sum::<f64>() * k as f64
}

#[forward]
#[reverse]
fn calls_forward_only(x: &[f64]) -> f64 {
    forward_only_square(x[0]) + 1.0 + forward_only_sines(&x[1..], 2) * x[0]
}

#[test]
fn forward_only_functions_called_from_reverse_code() {
    check_slice_function_at_random_points(
        calls_forward_only,
        calls_forward_only_jvp,
        calls_forward_only_vjp,
        4,
        31,
    );
}
