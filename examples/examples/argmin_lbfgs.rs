//! argmin's L-BFGS on two problems in one line each (`ad_runtime::argmin::Problem`, features
//! `argmin` and `nalgebra` of `ad-runtime`): a 10-dimensional Rosenbrock function, and a
//! logistic regression with an L2 penalty on synthetic data. The gradients come from
//! `#[reverse]`; each is checked against central differences before the solver runs, and
//! Newton's method then polishes the Rosenbrock minimum with the generated Hessian over
//! nalgebra's `DVector`.
//!
//! Run with `cargo run --release --example argmin_lbfgs`.

use ad_runtime::argmin::Problem;
use ad_runtime::reverse;
use argmin::core::{Executor, State};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::newton::Newton;
use argmin::solver::quasinewton::LBFGS;
use nalgebra::DVector;

#[reverse]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        sum += (1.0 - x[i]).powi(2) + 100.0 * (x[i + 1] - x[i] * x[i]).powi(2);
    }
    sum
}

/// The mean negative log-likelihood of a logistic regression, plus `lambda |w|²`.
#[reverse]
fn logistic_loss(
    w: &[f64],
    #[no_grad] features: &[Vec<f64>],
    #[no_grad] labels: &[f64],
    lambda: f64,
) -> f64 {
    let mut loss = 0.0;
    for (row, y) in features.iter().zip(labels) {
        let z: f64 = row.iter().zip(w).map(|(x, w)| x * w).sum();
        // log(1 + e^z) - y z, written to stay finite for large |z|.
        loss += z.max(0.0) + (-z.abs()).exp().ln_1p() - y * z;
    }
    let penalty: f64 = w.iter().map(|w| w * w).sum();
    loss / labels.len() as f64 + lambda * penalty
}

/// The largest relative difference between `gradient` and central differences of `f`.
fn worst_against_differences(f: impl Fn(&[f64]) -> f64, x: &[f64], gradient: &[f64]) -> f64 {
    let mut worst: f64 = 0.0;
    for k in 0..x.len() {
        let h = 1e-6 * x[k].abs().max(1.0);
        let (mut plus, mut minus) = (x.to_vec(), x.to_vec());
        plus[k] += h;
        minus[k] -= h;
        let difference = (f(&plus) - f(&minus)) / (2.0 * h);
        worst = worst.max((gradient[k] - difference).abs() / difference.abs().max(1.0));
    }
    worst
}

/// A linear congruential generator: the same data on every run, without a crate.
struct Lcg(u64);

impl Lcg {
    fn uniform(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn main() {
    // Rosenbrock in 10 dimensions from the classic start.
    let start: Vec<f64> = (0..10)
        .map(|i| if i % 2 == 0 { -1.2 } else { 1.0 })
        .collect();
    let (_, gradient) = rosenbrock_grad(&start);
    let worst = worst_against_differences(rosenbrock, &start, &gradient);
    println!("rosenbrock: gradient vs central differences, worst relative error {worst:.1e}");
    assert!(worst < 1e-6);

    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7)
        .with_tolerance_grad(1e-10)
        .unwrap();
    let result = Executor::new(Problem::new(rosenbrock, rosenbrock_grad), solver)
        .configure(|state| state.param(start).max_iters(500))
        .run()
        .unwrap();
    let state = result.state();
    let best = state.get_best_param().unwrap().clone();
    println!(
        "rosenbrock: L-BFGS, {} iterations, cost {:.3e}, x = {:.6?}",
        state.get_iter(),
        state.get_best_cost(),
        best
    );
    assert!(best.iter().all(|x| (x - 1.0).abs() < 1e-6));

    // Newton's method with the generated Hessian, over nalgebra's vectors.
    let problem = Problem::new(rosenbrock, rosenbrock_grad)
        .with_hessian(rosenbrock_hessian)
        .with_param::<DVector<f64>>();
    let nudged = DVector::from_iterator(10, best.iter().map(|x| x + 0.01));
    let result = Executor::new(problem, Newton::<f64>::new())
        .configure(|state| state.param(nudged).max_iters(10))
        .run()
        .unwrap();
    // Newton's method evaluates no cost: the last iterate is its answer.
    let polished = result.state().get_param().unwrap();
    let cost = rosenbrock(polished.as_slice());
    println!(
        "rosenbrock: Newton from 0.01 away, {} iterations, cost {cost:.3e}",
        result.state().get_iter(),
    );
    assert!(cost < 1e-20);

    // Logistic regression on 500 points drawn from known weights.
    let truth = [0.5, -1.5, 2.0, 1.0];
    let mut rng = Lcg(7);
    let (mut features, mut labels) = (Vec::new(), Vec::new());
    for _ in 0..500 {
        let row: Vec<f64> = std::iter::once(1.0)
            .chain((0..3).map(|_| 2.0 * rng.uniform() - 1.0))
            .collect();
        let z: f64 = row.iter().zip(&truth).map(|(x, w)| x * w).sum();
        labels.push(if rng.uniform() < 1.0 / (1.0 + (-z).exp()) {
            1.0
        } else {
            0.0
        });
        features.push(row);
    }
    let lambda = 1e-3;
    let w0 = vec![0.1, 0.2, -0.3, 0.4];
    let (_, (gradient, _)) = logistic_loss_grad(&w0, &features, &labels, lambda);
    let worst = worst_against_differences(
        |w| logistic_loss(w, &features, &labels, lambda),
        &w0,
        &gradient,
    );
    println!("logistic: gradient vs central differences, worst relative error {worst:.1e}");
    assert!(worst < 1e-6);

    let problem = Problem::new(
        |w: &[f64]| logistic_loss(w, &features, &labels, lambda),
        |w: &[f64]| {
            let (value, (gradient, _)) = logistic_loss_grad(w, &features, &labels, lambda);
            (value, gradient)
        },
    );
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 5);
    let result = Executor::new(problem, solver)
        .configure(|state| state.param(vec![0.0; 4]).max_iters(100))
        .run()
        .unwrap();
    let state = result.state();
    let fitted = state.get_best_param().unwrap();
    println!(
        "logistic: L-BFGS, {} iterations, loss {:.6}, weights {:.3?} (drawn from {:?})",
        state.get_iter(),
        state.get_best_cost(),
        fitted,
        truth
    );
    let (_, (gradient, _)) = logistic_loss_grad(fitted, &features, &labels, lambda);
    assert!(gradient.iter().all(|g| g.abs() < 1e-6));
    assert!(fitted.iter().zip(&truth).all(|(w, t)| (w - t).abs() < 0.6));
}
