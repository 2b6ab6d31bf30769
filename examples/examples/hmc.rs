//! Hamiltonian Monte Carlo on a Bayesian logistic regression, the gradient of the log
//! posterior by reverse mode. Synthetic data (an intercept and two features, labels drawn from
//! the model with known coefficients) come from a small deterministic random-number generator
//! written here; the log posterior (a Gaussian prior and the Bernoulli likelihood) is
//! `#[reverse]`, and the sampler's leapfrog steps call the generated `log_posterior_grad`. The
//! gradient is checked against central differences first; the posterior means are then
//! compared with the coefficients that generated the data.
//!
//! Run with `cargo run --release --example hmc`.

use ad_runtime::reverse;

/// SplitMix64: a tiny deterministic generator, enough for an example.
struct Rng {
    state: u64,
}

impl Rng {
    fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in (0, 1).
    fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Standard normal by Box-Muller.
    fn normal(&mut self) -> f64 {
        let (u1, u2) = (self.uniform(), self.uniform());
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

/// The observations: one row of features per label (data, not differentiated).
struct Dataset {
    features: Vec<[f64; 3]>,
    labels: Vec<bool>,
}

/// Standard deviation of the Gaussian prior on every coefficient.
const PRIOR_SCALE: f64 = 2.0;

/// `ln(1 + e^z)`, without overflow for large `z`.
#[reverse]
fn softplus(z: f64) -> f64 {
    z.max(0.0) + (-z.abs()).exp().ln_1p()
}

/// The log posterior density of the coefficients, up to a constant.
#[reverse]
fn log_posterior(w: &[f64], data: &Dataset) -> f64 {
    let prior: f64 = w.iter().map(|wi| -0.5 * (wi / PRIOR_SCALE).powi(2)).sum();
    let mut likelihood = 0.0;
    for (x, &y) in data.features.iter().zip(&data.labels) {
        let z: f64 = w.iter().enumerate().map(|(j, wj)| wj * x[j]).sum();
        // ln σ(z) = -softplus(-z), ln(1 - σ(z)) = -softplus(z)
        likelihood -= if y { softplus(-z) } else { softplus(z) };
    }
    prior + likelihood
}

fn synthetic_data(true_w: &[f64; 3], n: usize, rng: &mut Rng) -> Dataset {
    let mut data = Dataset {
        features: Vec::with_capacity(n),
        labels: Vec::with_capacity(n),
    };
    for _ in 0..n {
        let x = [1.0, rng.normal(), rng.normal()];
        let z: f64 = true_w.iter().zip(&x).map(|(w, x)| w * x).sum();
        let p = 1.0 / (1.0 + (-z).exp());
        data.features.push(x);
        data.labels.push(rng.uniform() < p);
    }
    data
}

/// The largest relative difference between `log_posterior_grad` and central differences.
fn check_gradient(w: &[f64], data: &Dataset) -> f64 {
    let (_, gradient) = log_posterior_grad(w, data);
    let h = 1e-5;
    let mut worst: f64 = 0.0;
    for (i, exact) in gradient.iter().enumerate() {
        let (mut plus, mut minus) = (w.to_vec(), w.to_vec());
        plus[i] += h;
        minus[i] -= h;
        let numeric = (log_posterior(&plus, data) - log_posterior(&minus, data)) / (2.0 * h);
        worst = worst.max((exact - numeric).abs() / exact.abs().max(1e-6));
    }
    worst
}

/// One HMC transition from `w`: fresh momenta, `steps` leapfrog steps of size `epsilon`, then
/// Metropolis acceptance on the change of the Hamiltonian. Returns the new state and whether
/// the proposal was accepted.
fn hmc_transition(
    w: &[f64],
    data: &Dataset,
    epsilon: f64,
    steps: usize,
    rng: &mut Rng,
) -> (Vec<f64>, bool) {
    let momentum: Vec<f64> = w.iter().map(|_| rng.normal()).collect();
    let kinetic = |p: &[f64]| 0.5 * p.iter().map(|v| v * v).sum::<f64>();

    let (log_p0, mut gradient) = log_posterior_grad(w, data);
    let (mut q, mut p) = (w.to_vec(), momentum.clone());
    let mut log_p = log_p0;
    for _ in 0..steps {
        // Leapfrog: half kick, drift, half kick (the potential energy is -log_posterior).
        for (pi, gi) in p.iter_mut().zip(&gradient) {
            *pi += 0.5 * epsilon * gi;
        }
        for (qi, pi) in q.iter_mut().zip(&p) {
            *qi += epsilon * pi;
        }
        (log_p, gradient) = log_posterior_grad(&q, data);
        for (pi, gi) in p.iter_mut().zip(&gradient) {
            *pi += 0.5 * epsilon * gi;
        }
    }
    let current = -log_p0 + kinetic(&momentum);
    let proposed = -log_p + kinetic(&p);
    if rng.uniform().ln() < current - proposed {
        (q, true)
    } else {
        (w.to_vec(), false)
    }
}

fn main() {
    let true_w = [-0.5, 1.5, -1.0];
    let mut rng = Rng::new(2024);
    let data = synthetic_data(&true_w, 500, &mut rng);
    let positives = data.labels.iter().filter(|&&y| y).count();
    println!(
        "{} observations ({positives} positive), true coefficients {true_w:?}",
        data.labels.len()
    );

    let worst = [[0.0, 0.0, 0.0], [0.3, -0.7, 1.1], true_w]
        .iter()
        .map(|w| check_gradient(w, &data))
        .fold(0.0, f64::max);
    println!("gradient vs central differences: largest relative error {worst:.2e}");
    assert!(worst < 1e-6, "gradient mismatch: {worst}");

    let (iterations, burn_in, steps, epsilon) = (2000, 500, 10, 0.05);
    let mut w = vec![0.0; 3];
    let mut accepted = 0;
    let (mut sums, mut squares) = ([0.0; 3], [0.0; 3]);
    for iteration in 1..=iterations {
        // A jittered step size avoids periodic trajectories.
        let jittered = epsilon * (0.8 + 0.4 * rng.uniform());
        let (next, ok) = hmc_transition(&w, &data, jittered, steps, &mut rng);
        w = next;
        accepted += ok as usize;
        if iteration > burn_in {
            for i in 0..3 {
                sums[i] += w[i];
                squares[i] += w[i] * w[i];
            }
        }
        if iteration % 250 == 0 {
            println!(
                "iteration {iteration:4}: acceptance {:.3}, w = [{:.3}, {:.3}, {:.3}], log posterior {:.3}",
                accepted as f64 / iteration as f64,
                w[0],
                w[1],
                w[2],
                log_posterior(&w, &data)
            );
        }
    }
    let acceptance = accepted as f64 / iterations as f64;
    let kept = (iterations - burn_in) as f64;
    let means: Vec<f64> = sums.iter().map(|s| s / kept).collect();
    let deviations: Vec<f64> = squares
        .iter()
        .zip(&means)
        .map(|(s, m)| (s / kept - m * m).sqrt())
        .collect();
    println!("posterior means {means:.3?}, standard deviations {deviations:.3?}");
    println!("true coefficients {true_w:?}, acceptance rate {acceptance:.3}");
    for (m, t) in means.iter().zip(&true_w) {
        assert!((m - t).abs() < 0.4, "posterior mean {m} far from {t}");
    }
    assert!(acceptance > 0.5);
}
