//! The n-dimensional Rosenbrock function, ours: the function the peers are compared on
//! (`main`'s `peers` module writes the same function for each of them).

// Index loops, as a user would write the sum.
#![allow(clippy::needless_range_loop)]

use ad_runtime::{forward, reverse};

/// The n-dimensional Rosenbrock function `sum 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2`, ours:
/// `rosenbrock_jvp` and `rosenbrock_grad` are generated from it.
///
/// ```
/// # use ad_bench::rosenbrock::{rosenbrock, rosenbrock_grad};
/// assert_eq!(rosenbrock(&[1.0, 1.0, 1.0]), 0.0);
/// assert_eq!(rosenbrock_grad(&[1.0, 1.0]).1, vec![0.0, 0.0]);
/// ```
#[forward]
#[reverse]
pub fn rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = 1.0 - x[i];
        sum += 100.0 * a * a + b * b;
    }
    sum
}

/// The gradient of [`rosenbrock`] by our reverse mode, as a function our forward mode
/// differentiates: its JVP along `e_j` is column `j` of the Hessian (forward over reverse).
#[forward]
pub fn rosenbrock_gradient(x: &[f64]) -> Vec<f64> {
    rosenbrock_grad(x).1
}

/// Our Hessian of [`rosenbrock`], row-major: one forward pass over the reverse-mode gradient
/// per column.
pub fn our_rosenbrock_hessian(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut hessian = vec![0.0; n * n];
    let mut seed = vec![0.0; n];
    for j in 0..n {
        seed[j] = 1.0;
        let (_, column) = rosenbrock_gradient_jvp(x, &seed);
        seed[j] = 0.0;
        for i in 0..n {
            hessian[i * n + j] = column[i];
        }
    }
    hessian
}

/// Our gradient of [`rosenbrock`] by forward mode: one JVP per coordinate.
pub fn our_rosenbrock_forward_gradient(x: &[f64]) -> Vec<f64> {
    let mut seed = vec![0.0; x.len()];
    (0..x.len())
        .map(|j| {
            seed[j] = 1.0;
            let along = rosenbrock_jvp(x, &seed).1;
            seed[j] = 0.0;
            along
        })
        .collect()
}

/// The gradient of [`rosenbrock`] by hand: the adjoint of each term, accumulated in one
/// sweep. The physical limit for the Rosenbrock rows.
///
/// ```
/// # use ad_bench::rosenbrock::{rosenbrock_grad, rosenbrock_gradient_by_hand};
/// let x = [0.3, -1.2, 0.8, 2.0];
/// let (value, gradient) = rosenbrock_gradient_by_hand(&x);
/// let (ours_value, ours) = rosenbrock_grad(&x);
/// assert_eq!(value, ours_value);
/// for (a, b) in gradient.iter().zip(&ours) {
///     assert!((a - b).abs() <= 1e-12 * a.abs().max(1.0));
/// }
/// ```
pub fn rosenbrock_gradient_by_hand(x: &[f64]) -> (f64, Vec<f64>) {
    let mut gradient = vec![0.0; x.len()];
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = 1.0 - x[i];
        sum += 100.0 * a * a + b * b;
        let d_a = 200.0 * a;
        gradient[i + 1] += d_a;
        gradient[i] += -2.0 * x[i] * d_a - 2.0 * b;
    }
    (sum, gradient)
}
