//! ADBench's GMM and LSTM objectives as a performance-minded Rust user writes them: rows of
//! contiguous slices (`chunks_exact`), iterator chains (`zip`, `map`, `sum`, `collect`),
//! sub-slices and `split_at`, `copy_from_slice`; no index arithmetic a compiler would have to
//! see through. Differentiated as written: the gradients are tested against ADBench's reference
//! outputs (`ad-bench/tests/manual.rs`) and timed next to the ADBench-shaped functions and JAX.

use ad_runtime::{forward, reverse};

use super::gmm::Gmm;
use super::lstm::{sigmoid, Lstm};

/// `log sum exp(v)`, shifted by the largest element.
#[forward]
#[reverse]
pub fn logsumexp(v: &[f64]) -> f64 {
    let largest = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = v.iter().map(|e| (e - largest).exp()).sum();
    largest + sum.ln()
}

/// The GMM objective: `k` components (rows of `means` and `icf`), points the rows of `x`.
/// `constant` holds the terms without derivative (`Gmm::constant`).
#[forward]
#[reverse]
#[allow(clippy::too_many_arguments)]
pub fn gmm_objective(
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    #[no_grad] x: &[f64],
    d: usize,
    #[no_grad] gamma: f64,
    m: usize,
    #[no_grad] constant: f64,
) -> f64 {
    let k = alphas.len();
    let icf_size = d * (d + 1) / 2;
    let n = x.len() / d;
    let sum_qs: Vec<f64> = icf
        .chunks_exact(icf_size)
        .map(|q| q[..d].iter().sum())
        .collect();
    let diagonals: Vec<f64> = icf
        .chunks_exact(icf_size)
        .flat_map(|q| q[..d].iter().map(|v| v.exp()))
        .collect();
    let mut main_term = vec![0.0; k];
    let mut centered = vec![0.0; d];
    let mut transformed = vec![0.0; d];
    let mut slse = 0.0;
    for point in x.chunks_exact(d) {
        for (ik, mean) in means.chunks_exact(d).enumerate() {
            for ((c, xj), mj) in centered.iter_mut().zip(point).zip(mean) {
                *c = xj - mj;
            }
            let q = &diagonals[ik * d..(ik + 1) * d];
            for ((t, qj), cj) in transformed.iter_mut().zip(q).zip(&centered) {
                *t = qj * cj;
            }
            let lower = &icf[ik * icf_size + d..(ik + 1) * icf_size];
            let mut next = 0;
            for (i, ci) in centered.iter().enumerate() {
                for tj in transformed[i + 1..].iter_mut() {
                    *tj += lower[next] * ci;
                    next += 1;
                }
            }
            let sqnorm: f64 = transformed.iter().map(|t| t * t).sum();
            main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm;
        }
        slse += logsumexp(&main_term);
    }
    let frobenius = diagonals.iter().map(|q| q * q).sum::<f64>()
        + icf
            .chunks_exact(icf_size)
            .map(|row| row[d..].iter().map(|v| v * v).sum::<f64>())
            .sum::<f64>();
    let prior = 0.5 * gamma * gamma * frobenius - m as f64 * sum_qs.iter().sum::<f64>();
    constant + slse - n as f64 * logsumexp(alphas) + prior
}

/// The LSTM loss: layers of `b` units (each `8 b` main parameters: four gates' weights, then
/// their biases; gates forget, input, output, change), run over the rows of `sequence`.
#[forward]
#[reverse]
pub fn lstm_objective(
    main_params: &[f64],
    extra_params: &[f64],
    #[no_grad] state: &[f64],
    #[no_grad] sequence: &[f64],
    b: usize,
) -> f64 {
    let (in_weight, rest) = extra_params.split_at(b);
    let (out_weight, out_bias) = rest.split_at(b);
    let mut s = state.to_vec();
    let mut x = vec![0.0; b];
    let mut total = 0.0;
    let mut count = 0;
    for (current, next) in sequence
        .chunks_exact(b)
        .zip(sequence.chunks_exact(b).skip(1))
    {
        for ((xi, ci), wi) in x.iter_mut().zip(current).zip(in_weight) {
            *xi = ci * wi;
        }
        for (layer, params) in main_params.chunks_exact(8 * b).enumerate() {
            let (weights, biases) = params.split_at(4 * b);
            let (hidden, cell) = s[2 * b * layer..2 * b * (layer + 1)].split_at_mut(b);
            for i in 0..b {
                let forget = sigmoid(x[i] * weights[i] + biases[i]);
                let input = sigmoid(hidden[i] * weights[b + i] + biases[b + i]);
                let output = sigmoid(x[i] * weights[2 * b + i] + biases[2 * b + i]);
                let change = (hidden[i] * weights[3 * b + i] + biases[3 * b + i]).tanh();
                cell[i] = cell[i] * forget + input * change;
                hidden[i] = output * cell[i].tanh();
            }
            x.copy_from_slice(hidden);
        }
        let prediction: Vec<f64> = x
            .iter()
            .zip(out_weight)
            .zip(out_bias)
            .map(|((xi, w), bias)| xi * w + bias)
            .collect();
        let normalizer = (prediction.iter().map(|p| p.exp()).sum::<f64>() + 2.0).ln();
        total += prediction
            .iter()
            .zip(next)
            .map(|(p, n)| (p - normalizer) * n)
            .sum::<f64>();
        count += b;
    }
    -total / count as f64
}

impl Gmm {
    /// The objective as a Rust user writes it (`idiomatic::gmm_objective`).
    pub fn objective_idiomatic(&self) -> f64 {
        gmm_objective(
            &self.alphas,
            &self.means,
            &self.icf,
            &self.x,
            self.d,
            self.gamma,
            self.m,
            self.constant(),
        )
    }

    /// Its gradient, in ADBench's order.
    pub fn gradient_idiomatic(&self) -> (f64, Vec<f64>) {
        let (value, (alphas, means, icf)) = gmm_objective_grad(
            &self.alphas,
            &self.means,
            &self.icf,
            &self.x,
            self.d,
            self.gamma,
            self.m,
            self.constant(),
        );
        (value, [alphas, means, icf].concat())
    }
}

impl Lstm {
    /// The loss as a Rust user writes it (`idiomatic::lstm_objective`).
    pub fn objective_idiomatic(&self) -> f64 {
        lstm_objective(
            &self.main_params,
            &self.extra_params,
            &self.state,
            &self.sequence,
            self.b,
        )
    }

    /// Its gradient, main parameters then extra ones.
    pub fn gradient_idiomatic(&self) -> (f64, Vec<f64>) {
        let (value, (main, extra)) = lstm_objective_grad(
            &self.main_params,
            &self.extra_params,
            &self.state,
            &self.sequence,
            self.b,
        );
        (value, [main, extra].concat())
    }
}
