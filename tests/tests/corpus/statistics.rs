//! Log-densities and special functions in the forms of `statrs`: a Lanczos `ln_gamma` over a
//! `const` coefficient table, distribution structs with `ln_pdf` methods calling each other and
//! free functions of another module, and `Statistics`-style reductions.

use crate::harness::{one, Case};
use ad_runtime::{forward, reverse, Differentiable};

/// Special functions, as statrs keeps them in `function::gamma` and `function::erf`.
pub mod special {
    use ad_runtime::{forward, reverse};
    use std::f64::consts::PI;

    /// ln(2 sqrt(e / pi)), as statrs writes its constants.
    pub const LN_2_SQRT_E_OVER_PI: f64 = 0.620_782_237_635_245_2;
    const LANCZOS_G: f64 = 7.0;
    /// Lanczos coefficients (g = 7, n = 9).
    const LANCZOS_COEF: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];

    // Form of statrs `gamma::ln_gamma`: reflection below 1/2, then the Lanczos sum as an
    // `enumerate().skip(1).fold` over the const table, seeded with its first entry.
    #[forward]
    #[reverse]
    pub fn ln_gamma(x: f64) -> f64 {
        if x < 0.5 {
            let s = LANCZOS_COEF
                .iter()
                .enumerate()
                .skip(1)
                .fold(LANCZOS_COEF[0], |s, t| s + t.1 / (t.0 as f64 - x));
            PI.ln()
                - (PI * x).sin().ln()
                - s.ln()
                - LN_2_SQRT_E_OVER_PI
                - (0.5 - x) * ((0.5 - x + LANCZOS_G) / std::f64::consts::E).ln()
        } else {
            let z = x - 1.0;
            let s = LANCZOS_COEF
                .iter()
                .enumerate()
                .skip(1)
                .fold(LANCZOS_COEF[0], |s, t| s + t.1 / (z + t.0 as f64));
            let t = z + LANCZOS_G + 0.5;
            0.5 * (2.0 * PI).ln() + (z + 0.5) * t.ln() - t + s.ln()
        }
    }

    const ERF_P: f64 = 0.327_591_1;
    /// Abramowitz and Stegun 7.1.26, lowest power first.
    const ERF_A: [f64; 5] = [
        0.254_829_592,
        -0.284_496_736,
        1.421_413_741,
        -1.453_152_027,
        1.061_405_429,
    ];

    // Form of a statrs-style `erf` evaluated by Horner's rule as `.iter().rev().fold`.
    #[forward]
    #[reverse]
    pub fn erf(x: f64) -> f64 {
        let sign = if x < 0.0 { -1.0 } else { 1.0 };
        let x = x.abs();
        let t = 1.0 / (1.0 + ERF_P * x);
        let poly = ERF_A.iter().rev().fold(0.0, |acc, &a| acc * t + a) * t;
        sign * (1.0 - poly * (-x * x).exp())
    }
}

use special::ln_gamma;

/// ln(sqrt(2 pi)).
const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

/// statrs `Normal`. Written as a plain struct, its annotated method was refused in both modes
/// ("`Normal` is not differentiable ... add `#[derive(ad_runtime::Differentiable)]`"); with
/// the derive the message asks for, its parameters are differentiated too.
#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Normal {
    mean: f64,
    std_dev: f64,
}

impl Normal {
    /// statrs returns a `Result`; an `Option` keeps this short.
    pub fn new(mean: f64, std_dev: f64) -> Option<Normal> {
        if std_dev > 0.0 {
            Some(Normal { mean, std_dev })
        } else {
            None
        }
    }

    // Form of statrs `Normal::ln_pdf` (a `Continuous` trait method upstream).
    #[forward]
    #[reverse]
    pub fn ln_pdf(&self, x: f64) -> f64 {
        let d = (x - self.mean) / self.std_dev;
        (-0.5 * d * d) - LN_SQRT_2PI - self.std_dev.ln()
    }
}

/// statrs `StudentsT`, derived so that its parameters are differentiated too.
#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct StudentsT {
    location: f64,
    scale: f64,
    freedom: f64,
}

impl StudentsT {
    // Form of statrs `StudentsT::ln_pdf`: calls `ln_gamma` of another module.
    #[forward]
    #[reverse]
    pub fn ln_pdf(&self, x: f64) -> f64 {
        let k = (x - self.location) / self.scale;
        ln_gamma((self.freedom + 1.0) / 2.0)
            - ln_gamma(self.freedom / 2.0)
            - 0.5 * (self.freedom * std::f64::consts::PI).ln()
            - self.scale.ln()
            - (self.freedom + 1.0) / 2.0 * (1.0 + k * k / self.freedom).ln()
    }

    // Form of statrs `pdf` written through `ln_pdf`: a method calling a method on `self`.
    #[forward]
    #[reverse]
    pub fn pdf(&self, x: f64) -> f64 {
        self.ln_pdf(x).exp()
    }
}

// Form of statrs `Gamma::ln_pdf` as a free function of the parameters.
#[forward]
#[reverse]
pub fn gamma_ln_pdf(shape: f64, rate: f64, x: f64) -> f64 {
    shape * rate.ln() + (shape - 1.0) * x.ln() - rate * x - special::ln_gamma(shape)
}

// Form of statrs `Beta::ln_pdf` with `beta::ln_beta` inlined as three `ln_gamma` calls.
#[forward]
#[reverse]
pub fn beta_ln_pdf(a: f64, b: f64, x: f64) -> f64 {
    let ln_beta = ln_gamma(a) + ln_gamma(b) - ln_gamma(a + b);
    (a - 1.0) * x.ln() + (b - 1.0) * (1.0 - x).ln() - ln_beta
}

// Form of a log-sum-exp (statrs/ML code): the maximum by `max_by(partial_cmp)`, then `sum`.
#[forward]
#[reverse]
pub fn log_sum_exp(xs: &[f64]) -> f64 {
    let max = *xs.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
    max + xs.iter().map(|x| (x - max).exp()).sum::<f64>().ln()
}

/// ln(k!) of data: a plain function, not annotated.
fn ln_factorial(k: u64) -> f64 {
    (1..=k).map(|i| (i as f64).ln()).sum()
}

// Form of statrs `Poisson::ln_pmf` summed over observed counts (a log-likelihood of `lambda`):
// a plain function called on the closure's integer `k`.
#[forward]
#[reverse]
pub fn poisson_log_likelihood(lambda: f64, counts: &[u64]) -> f64 {
    counts
        .iter()
        .map(|&k| k as f64 * lambda.ln() - lambda - ln_factorial(k))
        .sum()
}

// Form of statrs `Statistics::mean`: `None` on empty data (an `Option<f64>` result).
#[forward]
#[reverse]
pub fn mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        None
    } else {
        Some(xs.iter().sum::<f64>() / xs.len() as f64)
    }
}

// Form of statrs `Statistics::variance`: an `Option`-returning helper unwrapped.
#[forward]
#[reverse]
pub fn sample_variance(xs: &[f64]) -> f64 {
    let m = mean(xs).unwrap();
    xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len() - 1) as f64
}

#[test]
fn ln_gamma_const_table_fold() {
    Case::new("ln_gamma", 1, |x| one(ln_gamma(x[0])))
        .within(&[(0.1, 6.0)])
        .forward(|x, t| {
            let (v, d) = special::ln_gamma_jvp(x[0], t[0]);
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, g) = special::ln_gamma_vjp(x[0], w[0]);
            (one(v), one(g))
        })
        .check(11);
}

#[test]
fn erf_rev_fold_horner() {
    Case::new("erf", 1, |x| one(special::erf(x[0])))
        .within(&[(-2.0, 2.0)])
        .forward(|x, t| {
            let (v, d) = special::erf_jvp(x[0], t[0]);
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, g) = special::erf_vjp(x[0], w[0]);
            (one(v), one(g))
        })
        .check(12);
}

#[test]
fn normal_ln_pdf_method() {
    let normal = |x: &[f64]| Normal::new(x[0], x[1]).unwrap();
    Case::new("Normal::ln_pdf", 3, move |x| one(normal(x).ln_pdf(x[2])))
        .within(&[(-1.0, 1.0), (0.5, 2.0), (-2.0, 2.0)])
        .forward(move |x, t| {
            let dn = Normal {
                mean: t[0],
                std_dev: t[1],
            };
            let (v, d) = normal(x).ln_pdf_jvp(x[2], &dn, t[2]);
            (one(v), one(d))
        })
        .reverse(move |x, w| {
            let (v, (dn, dx)) = normal(x).ln_pdf_vjp(x[2], w[0]);
            (one(v), vec![dn.mean, dn.std_dev, dx])
        })
        .check(13);
}

fn students_t(x: &[f64]) -> StudentsT {
    StudentsT {
        location: x[0],
        scale: x[1],
        freedom: x[2],
    }
}

fn students_t_flat(d: &StudentsT, dx: f64) -> Vec<f64> {
    vec![d.location, d.scale, d.freedom, dx]
}

#[test]
fn students_t_pdf_methods_calling_methods_and_other_modules() {
    Case::new("StudentsT::pdf", 4, |x| one(students_t(x).pdf(x[3])))
        .within(&[(-1.0, 1.0), (0.5, 2.0), (1.5, 8.0), (-2.0, 2.0)])
        .forward(|x, t| {
            let (v, d) = students_t(x).pdf_jvp(x[3], &students_t(t), t[3]);
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, (ds, dx)) = students_t(x).pdf_vjp(x[3], w[0]);
            (one(v), students_t_flat(&ds, dx))
        })
        .check(14);
}

#[test]
fn gamma_and_beta_ln_pdf() {
    Case::new("gamma_ln_pdf", 3, |x| one(gamma_ln_pdf(x[0], x[1], x[2])))
        .within(&[(0.5, 5.0), (0.5, 3.0), (0.1, 4.0)])
        .forward(|x, t| {
            let (v, d) = gamma_ln_pdf_jvp(x[0], x[1], x[2], t[0], t[1], t[2]);
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, (a, b, c)) = gamma_ln_pdf_vjp(x[0], x[1], x[2], w[0]);
            (one(v), vec![a, b, c])
        })
        .check(15);
    Case::new("beta_ln_pdf", 3, |x| one(beta_ln_pdf(x[0], x[1], x[2])))
        .within(&[(0.6, 5.0), (0.6, 5.0), (0.1, 0.9)])
        .forward(|x, t| {
            let (v, d) = beta_ln_pdf_jvp(x[0], x[1], x[2], t[0], t[1], t[2]);
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, (a, b, c)) = beta_ln_pdf_vjp(x[0], x[1], x[2], w[0]);
            (one(v), vec![a, b, c])
        })
        .grad(|x| {
            let (v, (a, b, c)) = beta_ln_pdf_grad(x[0], x[1], x[2]);
            (v, vec![a, b, c])
        })
        .check(16);
}

#[test]
fn log_sum_exp_max_by_partial_cmp() {
    Case::new("log_sum_exp", 5, |x| one(log_sum_exp(x)))
        .forward(|x, t| {
            let (v, d) = log_sum_exp_jvp(x, t);
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, g) = log_sum_exp_vjp(x, w[0]);
            (one(v), g.to_vec())
        })
        .check(17);
}

const COUNTS: [u64; 6] = [3, 0, 5, 2, 7, 1];

#[test]
fn poisson_log_likelihood_of_counts() {
    Case::new("poisson_log_likelihood", 1, |x| {
        one(poisson_log_likelihood(x[0], &COUNTS))
    })
    .within(&[(0.5, 6.0)])
    .forward(|x, t| {
        let (v, d) = poisson_log_likelihood_jvp(x[0], &COUNTS, t[0]);
        (one(v), one(d))
    })
    .reverse(|x, w| {
        let (v, d) = poisson_log_likelihood_vjp(x[0], &COUNTS, w[0]);
        (one(v), one(d))
    })
    .check(18);
}

#[test]
fn sample_variance_through_option_helper() {
    Case::new("mean", 6, |x| one(mean(x).unwrap()))
        .forward(|x, t| {
            let (v, d) = mean_jvp(x, t);
            (one(v.unwrap()), one(d.unwrap()))
        })
        .reverse(|x, w| {
            let (v, g) = mean_vjp(x, Some(w[0]));
            (one(v.unwrap()), g)
        })
        .check(20);
    Case::new("sample_variance", 6, |x| one(sample_variance(x)))
        .forward(|x, t| {
            let (v, d) = sample_variance_jvp(x, t);
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, g) = sample_variance_vjp(x, w[0]);
            (one(v), g)
        })
        .grad(sample_variance_grad)
        .check(19);
}
