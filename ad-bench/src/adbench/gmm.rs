//! The Gaussian mixture model objective of ADBench (`src/cpp/shared/gmm.h` upstream): the
//! negative log-likelihood of `n` points under `k` Gaussians in `d` dimensions with a Wishart
//! prior, each covariance given by the Cholesky-like factor of its inverse: a lower-triangular
//! matrix with diagonal `exp(q)` and strictly lower part `l` (the `icf` parameters).

// The loops index like the reference C++ code, which keeps the two easy to compare (and
// reverse mode does not take `iter_mut` yet).
#![allow(clippy::needless_range_loop)]

use std::path::Path;

use ad_runtime::{forward, reverse};

use super::read::Numbers;

/// One GMM instance.
#[derive(Clone, Debug)]
pub struct Gmm {
    pub d: usize,
    pub k: usize,
    pub n: usize,
    /// `k` mixture weights (log-space, unnormalized).
    pub alphas: Vec<f64>,
    /// `k` rows of `d` means.
    pub means: Vec<f64>,
    /// `k` rows of `d (d + 1) / 2`: `d` log-diagonal values, then the strictly lower part
    /// column by column.
    pub icf: Vec<f64>,
    /// `n` rows of `d` points.
    pub x: Vec<f64>,
    /// The Wishart prior's `gamma` and `m`.
    pub gamma: f64,
    pub m: usize,
}

impl Gmm {
    pub fn read(path: &Path) -> std::io::Result<Gmm> {
        let mut numbers = Numbers::open(path)?;
        let (d, k, n) = (numbers.count(), numbers.count(), numbers.count());
        let alphas = numbers.take(k);
        let means = numbers.take(k * d);
        let icf = numbers.take(k * d * (d + 1) / 2);
        let x = numbers.take(n * d);
        let gamma = numbers.number();
        let m = numbers.count();
        Ok(Gmm {
            d,
            k,
            n,
            alphas,
            means,
            icf,
            x,
            gamma,
            m,
        })
    }

    /// The terms of the objective that do not depend on the parameters.
    pub fn constant(&self) -> f64 {
        let (d, k, n) = (self.d as f64, self.k as f64, self.n as f64);
        let data = -n * d * 0.5 * (2.0 * std::f64::consts::PI).ln();
        data - k * wishart_constant(self.d, self.gamma, self.m)
    }

    pub fn objective(&self) -> f64 {
        gmm_objective(
            &self.alphas,
            &self.means,
            &self.icf,
            &self.x,
            self.d,
            self.k,
            self.n,
            self.gamma,
            self.m,
            self.constant(),
        )
    }

    /// The objective as ADBench's C++ computes it (`gmm_objective_precomputed`).
    pub fn objective_precomputed(&self) -> f64 {
        gmm_objective_precomputed(
            &self.alphas,
            &self.means,
            &self.icf,
            &self.x,
            self.d,
            self.k,
            self.n,
            self.gamma,
            self.m,
            self.constant(),
        )
    }

    /// The gradient of `objective_precomputed`, in ADBench's order.
    pub fn gradient_precomputed(&self) -> (f64, Vec<f64>) {
        let (value, (alphas, means, icf)) = gmm_objective_precomputed_grad(
            &self.alphas,
            &self.means,
            &self.icf,
            &self.x,
            self.d,
            self.k,
            self.n,
            self.gamma,
            self.m,
            self.constant(),
        );
        (value, [alphas, means, icf].concat())
    }

    /// The gradient with respect to alphas, means and icf, concatenated in ADBench's order.
    pub fn gradient(&self) -> (f64, Vec<f64>) {
        let (value, (alphas, means, icf)) = gmm_objective_grad(
            &self.alphas,
            &self.means,
            &self.icf,
            &self.x,
            self.d,
            self.k,
            self.n,
            self.gamma,
            self.m,
            self.constant(),
        );
        (value, [alphas, means, icf].concat())
    }
}

/// `log sum exp(v)`, shifted by the largest element for stability.
#[forward]
#[reverse]
pub fn logsumexp(v: &[f64]) -> f64 {
    let mut largest = v[0];
    for e in v {
        if *e > largest {
            largest = *e;
        }
    }
    let mut sum = 0.0;
    for e in v {
        sum += (e - largest).exp();
    }
    largest + sum.ln()
}

/// The objective. `constant` holds the terms without derivative (`Gmm::constant`).
#[forward]
#[reverse]
#[allow(clippy::too_many_arguments)]
pub fn gmm_objective(
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    #[no_grad] x: &[f64],
    d: usize,
    k: usize,
    n: usize,
    #[no_grad] gamma: f64,
    m: usize,
    #[no_grad] constant: f64,
) -> f64 {
    let icf_size = d * (d + 1) / 2;
    let mut sum_qs = vec![0.0; k];
    for ik in 0..k {
        let mut s = 0.0;
        for j in 0..d {
            s += icf[ik * icf_size + j];
        }
        sum_qs[ik] = s;
    }
    let mut main_term = vec![0.0; k];
    let mut centered = vec![0.0; d];
    let mut transformed = vec![0.0; d];
    let mut slse = 0.0;
    for ix in 0..n {
        for ik in 0..k {
            for j in 0..d {
                centered[j] = x[ix * d + j] - means[ik * d + j];
            }
            for j in 0..d {
                transformed[j] = icf[ik * icf_size + j].exp() * centered[j];
            }
            let mut l = ik * icf_size + d;
            for i in 0..d {
                for j in (i + 1)..d {
                    transformed[j] += icf[l] * centered[i];
                    l += 1;
                }
            }
            let mut sqnorm = 0.0;
            for j in 0..d {
                sqnorm += transformed[j] * transformed[j];
            }
            main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm;
        }
        slse += logsumexp(&main_term);
    }
    let lse_alphas = logsumexp(alphas);
    let mut prior = 0.0;
    for ik in 0..k {
        let mut frobenius = 0.0;
        for j in 0..d {
            let q = icf[ik * icf_size + j].exp();
            frobenius += q * q;
        }
        for j in d..icf_size {
            let v = icf[ik * icf_size + j];
            frobenius += v * v;
        }
        prior += 0.5 * gamma * gamma * frobenius - m as f64 * sum_qs[ik];
    }
    constant + slse - n as f64 * lse_alphas + prior
}

/// The objective as ADBench's C++ (`gmm_objective` of `src/cpp/shared/gmm.h`) computes it: the
/// diagonal factors `exp(q)` and their sums once per component before the point loop, rather
/// than inside it as `gmm_objective` does. The same function, a cheaper objective: its J/F is
/// the one to compare with the suite's figures.
#[forward]
#[reverse]
#[allow(clippy::too_many_arguments)]
pub fn gmm_objective_precomputed(
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    #[no_grad] x: &[f64],
    d: usize,
    k: usize,
    n: usize,
    #[no_grad] gamma: f64,
    m: usize,
    #[no_grad] constant: f64,
) -> f64 {
    let icf_size = d * (d + 1) / 2;
    let mut sum_qs = vec![0.0; k];
    let mut q_diagonals = vec![0.0; k * d];
    for ik in 0..k {
        let mut s = 0.0;
        for j in 0..d {
            s += icf[ik * icf_size + j];
            q_diagonals[ik * d + j] = icf[ik * icf_size + j].exp();
        }
        sum_qs[ik] = s;
    }
    let mut main_term = vec![0.0; k];
    let mut centered = vec![0.0; d];
    let mut transformed = vec![0.0; d];
    let mut slse = 0.0;
    for ix in 0..n {
        for ik in 0..k {
            for j in 0..d {
                centered[j] = x[ix * d + j] - means[ik * d + j];
            }
            for j in 0..d {
                transformed[j] = q_diagonals[ik * d + j] * centered[j];
            }
            let mut l = ik * icf_size + d;
            for i in 0..d {
                for j in (i + 1)..d {
                    transformed[j] += icf[l] * centered[i];
                    l += 1;
                }
            }
            let mut sqnorm = 0.0;
            for j in 0..d {
                sqnorm += transformed[j] * transformed[j];
            }
            main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm;
        }
        slse += logsumexp(&main_term);
    }
    let lse_alphas = logsumexp(alphas);
    let mut prior = 0.0;
    for ik in 0..k {
        let mut frobenius = 0.0;
        for j in 0..d {
            let q = q_diagonals[ik * d + j];
            frobenius += q * q;
        }
        for j in d..icf_size {
            let v = icf[ik * icf_size + j];
            frobenius += v * v;
        }
        prior += 0.5 * gamma * gamma * frobenius - m as f64 * sum_qs[ik];
    }
    constant + slse - n as f64 * lse_alphas + prior
}

/// The Wishart prior's normalizing constant `C` (ADBench's `log_wishart_prior`).
fn wishart_constant(p: usize, gamma: f64, m: usize) -> f64 {
    let n = (p + m + 1) as f64;
    n * p as f64 * (gamma.ln() - 0.5 * 2.0_f64.ln()) - log_gamma_distribution(0.5 * n, p)
}

/// The log of the multivariate gamma function.
fn log_gamma_distribution(a: f64, p: usize) -> f64 {
    let mut value = 0.25 * (p * (p - 1)) as f64 * std::f64::consts::PI.ln();
    for j in 1..=p {
        value += libm::lgamma(a + 0.5 * (1.0 - j as f64));
    }
    value
}
