//! Derivatives given by the user for functions the macros cannot see into: `ln Γ` and `erf`
//! from `libm`, and the digamma function, each with its derivative given once by `#[rule]`.
//! Both modes then differentiate a gamma log-likelihood and a probit log-likelihood through
//! them, and its Hessian (forward over reverse) goes through the rules' rules.
//!
//! Run with `cargo run --release --example special_functions`.

use ad_runtime::{forward, reverse, rule};

/// `ln Γ(x)`, whose derivative is the digamma function.
#[rule(derivative = digamma)]
fn ln_gamma(x: f64) -> f64 {
    libm::lgamma(x)
}

/// The digamma function `ψ(x)` (recurrence up to 6, then the asymptotic series), whose
/// derivative is the trigamma function.
#[rule(derivative = trigamma)]
fn digamma(x: f64) -> f64 {
    let (mut x, mut shift) = (x, 0.0);
    while x < 6.0 {
        shift -= 1.0 / x;
        x += 1.0;
    }
    let inv2 = 1.0 / (x * x);
    shift + x.ln()
        - 0.5 / x
        - inv2 * (1.0 / 12.0 - inv2 * (1.0 / 120.0 - inv2 * (1.0 / 252.0 - inv2 / 240.0)))
}

/// The trigamma function `ψ'(x)`, a plain function: derivatives through `digamma` stop here
/// (a third derivative of `ln_gamma` would say so).
fn trigamma(x: f64) -> f64 {
    let (mut x, mut shift) = (x, 0.0);
    while x < 6.0 {
        shift += 1.0 / (x * x);
        x += 1.0;
    }
    let inv2 = 1.0 / (x * x);
    shift
        + 1.0 / x
        + 0.5 * inv2
        + inv2 / x * (1.0 / 6.0 - inv2 * (1.0 / 30.0 - inv2 * (1.0 / 42.0 - inv2 / 30.0)))
}

/// `erf(x)` from `libm`, whose derivative is differentiable code (so every order works).
#[rule(derivative = erf_derivative)]
fn erf(x: f64) -> f64 {
    libm::erf(x)
}

#[forward]
fn erf_derivative(x: f64) -> f64 {
    2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp()
}

/// The log-likelihood of observations `xs` under a gamma distribution of shape `k` and rate
/// `rate`.
#[forward]
#[reverse]
fn gamma_log_likelihood(k: f64, rate: f64, #[no_grad] xs: &[f64]) -> f64 {
    let mut total = 0.0;
    for x in xs {
        total += k * rate.ln() + (k - 1.0) * x.ln() - rate * x - ln_gamma(k);
    }
    total
}

/// A probit model's log-likelihood: `P(y = 1 | x) = Φ(w x + b)`, `Φ` through `erf`.
#[forward]
#[reverse]
fn probit_log_likelihood(w: f64, b: f64, #[no_grad] xs: &[f64], ys: &[bool]) -> f64 {
    let mut total = 0.0;
    for (x, y) in xs.iter().zip(ys) {
        let p = 0.5 * (1.0 + erf((w * x + b) / std::f64::consts::SQRT_2));
        total += if *y { p.ln() } else { (1.0 - p).ln() };
    }
    total
}

fn main() {
    let xs = [0.8, 1.9, 2.4, 0.6, 3.1, 1.2];
    let (value, (dk, drate)) = gamma_log_likelihood_grad(2.0, 1.5, &xs);
    let (_, tangent) = gamma_log_likelihood_jvp(2.0, 1.5, &xs, 1.0, 0.0);
    println!(
        "gamma log-likelihood {value:.6}: d/dk {dk:.6} (forward {tangent:.6}), d/drate {drate:.6}"
    );
    let (_, _, hessian) = gamma_log_likelihood_hessian(2.0, 1.5, &xs);
    println!("its Hessian (through digamma's rule): {hessian:?}");
    // The maximum-likelihood rate for a shape is k / mean(x): the gradient in `rate` is zero.
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    let (_, (_, at_optimum)) = gamma_log_likelihood_grad(2.0, 2.0 / mean, &xs);
    assert!(at_optimum.abs() < 1e-12);

    let ys = [false, true, true, false, true, false];
    let (value, (dw, db)) = probit_log_likelihood_grad(0.7, -0.9, &xs, &ys);
    println!("probit log-likelihood {value:.6}: d/dw {dw:.6}, d/db {db:.6}");
    let (_, _, hessian) = probit_log_likelihood_hessian(0.7, -0.9, &xs, &ys);
    println!("its Hessian (through erf's rule): {hessian:?}");
}
