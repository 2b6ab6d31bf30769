//! Gaussian-process regression: the hyperparameters (length scale, signal and noise
//! amplitudes) fitted by gradient ascent on the log marginal likelihood, written with
//! nalgebra as one would write it: the kernel matrix by `DMatrix::from_fn`, its Cholesky
//! factorization, `solve` and `determinant`. `#[reverse]` differentiates through all of it
//! (nalgebra's values in reverse mode, feature `nalgebra` of `ad-runtime`), and the gradient
//! is checked against central differences before the ascent starts. The data are noisy samples
//! of a sine; the fitted length scale and noise level are printed with the likelihood as the
//! ascent goes.
//!
//! Run with `cargo run --release --example gaussian_process`.

use ad_runtime::reverse;
use nalgebra::{DMatrix, DVector};

/// The log marginal likelihood of `targets` at `inputs` under a zero-mean Gaussian process
/// with a squared-exponential kernel, the hyperparameters given by their logarithms:
/// `−½ yᵀ K⁻¹ y − ½ ln det K − n/2 ln 2π`.
#[reverse]
fn log_marginal_likelihood(log_params: &[f64], inputs: &[f64], targets: &DVector<f64>) -> f64 {
    let length = log_params[0].exp();
    let signal = log_params[1].exp();
    let noise = log_params[2].exp();
    let n = inputs.len();
    let kernel = DMatrix::from_fn(n, n, |i, j| {
        let distance = (inputs[i] - inputs[j]) / length;
        let diagonal = if i == j { noise * noise } else { 0.0 };
        signal * signal * (-0.5 * distance * distance).exp() + diagonal
    });
    let cholesky = kernel.cholesky().unwrap();
    let alpha = cholesky.solve(targets);
    let log_det = cholesky.determinant().ln();
    -0.5 * targets.dot(&alpha) - 0.5 * log_det - 0.5 * n as f64 * (2.0 * std::f64::consts::PI).ln()
}

/// A small deterministic generator (SplitMix64), enough for an example's noise.
fn noise(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed;
    move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    }
}

fn main() {
    let mut next = noise(11);
    let inputs: Vec<f64> = (0..30).map(|i| i as f64 * 0.25).collect();
    let targets =
        DVector::from_iterator(inputs.len(), inputs.iter().map(|x| x.sin() + 0.2 * next()));

    // The gradient against central differences, at the starting point.
    let mut log_params = vec![0.0_f64, 0.0, -1.0];
    let (value, (gradient, _, _)) = log_marginal_likelihood_grad(&log_params, &inputs, &targets);
    let plain = log_marginal_likelihood(&log_params, &inputs, &targets);
    assert!(
        (value - plain).abs() <= 1e-12 * plain.abs(),
        "the value is the function's"
    );
    let h = 1e-6;
    let mut worst = 0.0_f64;
    for k in 0..3 {
        let mut plus = log_params.clone();
        let mut minus = log_params.clone();
        plus[k] += h;
        minus[k] -= h;
        let central = (log_marginal_likelihood(&plus, &inputs, &targets)
            - log_marginal_likelihood(&minus, &inputs, &targets))
            / (2.0 * h);
        let error = (gradient[k] - central).abs() / central.abs().max(1.0);
        worst = worst.max(error);
    }
    println!("gradient against central differences: largest relative difference {worst:.1e}");
    assert!(
        worst < 1e-6,
        "the gradient disagrees with central differences"
    );

    // Gradient ascent with a step that adapts: longer after a step that gains, shorter after
    // one that loses (and is undone).
    let mut step = 0.01;
    let mut current = value;
    for iteration in 0..=200 {
        let (value, (gradient, _, _)) =
            log_marginal_likelihood_grad(&log_params, &inputs, &targets);
        if iteration % 40 == 0 {
            println!(
                "iteration {iteration:3}: log likelihood {value:8.3}, length scale {:.3}, \
                 signal {:.3}, noise {:.3}",
                log_params[0].exp(),
                log_params[1].exp(),
                log_params[2].exp()
            );
        }
        let trial: Vec<f64> = log_params
            .iter()
            .zip(&gradient)
            .map(|(p, g)| p + step * g)
            .collect();
        let gained = log_marginal_likelihood(&trial, &inputs, &targets);
        if gained > current {
            log_params = trial;
            current = gained;
            step *= 1.2;
        } else {
            step *= 0.5;
        }
    }
    let noise_level = log_params[2].exp();
    println!("fitted noise level {noise_level:.3} (the data's noise has standard deviation 0.058)");
    assert!(
        (0.02..0.2).contains(&noise_level),
        "the fitted noise level is far from the data's"
    );
}
