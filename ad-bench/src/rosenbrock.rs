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

/// Our Hessian of [`rosenbrock`], row-major: `rosenbrock_hessian`, the vector forward mode
/// over the reverse-mode gradient (one pass per 8 columns).
pub fn our_rosenbrock_hessian(x: &[f64]) -> Vec<f64> {
    let (_, _, hessian) = rosenbrock_hessian(x);
    hessian.concat()
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
