//! `ad_runtime::argmin::Problem` (feature `argmin`): a function and its generated `_grad` (and
//! `_hessian`) handed to argmin's solvers in one line. L-BFGS on a 10-dimensional Rosenbrock
//! and on a logistic regression, Newton's method over `DVector`/`DMatrix` with the generated
//! Hessian, and a trust region over `Vec`s; each minimum is checked against the known one (or
//! a zero gradient), and the problem's gradient and Hessian against the generated functions.

use ad_runtime::argmin::Problem;
use ad_runtime::reverse;
use approx::assert_relative_eq;
use argmin::core::{CostFunction, Executor, Gradient, Hessian, State};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::newton::Newton;
use argmin::solver::quasinewton::LBFGS;
use argmin::solver::trustregion::{Steihaug, TrustRegion};
use nalgebra::DVector;

#[reverse]
fn rosenbrock(x: &[f64]) -> f64 {
    x.windows(2)
        .map(|w| (1.0 - w[0]).powi(2) + 100.0 * (w[1] - w[0] * w[0]).powi(2))
        .sum()
}

fn start(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| if i % 2 == 0 { -1.2 } else { 1.0 })
        .collect()
}

#[test]
fn lbfgs_minimizes_a_ten_dimensional_rosenbrock() {
    let problem = Problem::new(rosenbrock, rosenbrock_grad);
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7)
        .with_tolerance_grad(1e-10)
        .unwrap();
    let result = Executor::new(problem, solver)
        .configure(|state| state.param(start(10)).max_iters(500))
        .run()
        .unwrap();
    let best = result.state().get_best_param().unwrap();
    for x in best {
        assert_relative_eq!(*x, 1.0, epsilon = 1e-6);
    }
    assert!(result.state().get_best_cost() < 1e-12);
}

/// The mean negative log-likelihood of a logistic regression with an L2 penalty.
#[reverse]
fn logistic_loss(w: &[f64], #[no_grad] features: &[Vec<f64>], #[no_grad] labels: &[f64]) -> f64 {
    let mut loss = 0.0;
    for (row, y) in features.iter().zip(labels) {
        let z: f64 = row.iter().zip(w).map(|(x, w)| x * w).sum();
        // log(1 + e^z) - y z, stable for large |z|.
        loss += z.max(0.0) + (-z.abs()).exp().ln_1p() - y * z;
    }
    let penalty: f64 = w.iter().map(|w| w * w).sum();
    loss / labels.len() as f64 + 1e-3 * penalty
}

fn logistic_data() -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut state = 7u64;
    let mut uniform = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let truth = [0.5, -1.5, 2.0, 1.0];
    let mut features = Vec::new();
    let mut labels = Vec::new();
    for _ in 0..200 {
        let row = vec![1.0, uniform(), uniform(), uniform()];
        let z: f64 = row.iter().zip(&truth).map(|(x, w)| x * w).sum();
        labels.push(if uniform() * 0.5 + 0.5 < 1.0 / (1.0 + (-z).exp()) {
            1.0
        } else {
            0.0
        });
        features.push(row);
    }
    (features, labels)
}

#[test]
fn lbfgs_fits_a_logistic_regression() {
    let (features, labels) = logistic_data();
    let problem = Problem::new(
        |w: &[f64]| logistic_loss(w, &features, &labels),
        |w: &[f64]| logistic_loss_grad(w, &features, &labels),
    );
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 5);
    let result = Executor::new(problem, solver)
        .configure(|state| state.param(vec![0.0; 4]).max_iters(100))
        .run()
        .unwrap();
    let best = result.state().get_best_param().unwrap();
    let (_, gradient) = logistic_loss_grad(best, &features, &labels);
    assert!(gradient.iter().all(|g| g.abs() < 1e-6), "{gradient:?}");
    // The fitted signs are the truth's.
    assert!(best[1] < 0.0 && best[2] > 0.0 && best[3] > 0.0, "{best:?}");
}

#[test]
fn newton_over_nalgebra_vectors_takes_the_generated_hessian() {
    let problem = Problem::new(rosenbrock, rosenbrock_grad)
        .with_hessian(rosenbrock_hessian)
        .with_param::<DVector<f64>>();
    let result = Executor::new(problem, Newton::<f64>::new())
        .configure(|state| state.param(DVector::from_vec(start(2))).max_iters(50))
        .run()
        .unwrap();
    let best = result.state().get_best_param().unwrap();
    for x in best.iter() {
        assert_relative_eq!(*x, 1.0, epsilon = 1e-8);
    }
}

#[test]
fn trust_region_over_vecs() {
    let problem = Problem::new(rosenbrock, rosenbrock_grad).with_hessian(rosenbrock_hessian);
    let solver = TrustRegion::new(Steihaug::new().with_max_iters(20));
    let result = Executor::new(problem, solver)
        // From four dimensions on, Rosenbrock has a second local minimum near (-1, 1, ..).
        .configure(|state| state.param(start(3)).max_iters(200))
        .run()
        .unwrap();
    let best = result.state().get_best_param().unwrap();
    for x in best {
        assert_relative_eq!(*x, 1.0, epsilon = 1e-6);
    }
}

#[test]
fn the_problem_answers_what_the_generated_functions_answer() {
    let x = start(5);
    let problem = Problem::new(rosenbrock, rosenbrock_grad).with_hessian(rosenbrock_hessian);
    let (value, gradient, hessian) = rosenbrock_hessian(&x);
    assert_eq!(problem.cost(&x).unwrap(), value);
    assert_eq!(problem.gradient(&x).unwrap(), gradient);
    assert_eq!(problem.hessian(&x).unwrap(), hessian);
    let over_nalgebra = problem.with_param::<DVector<f64>>();
    let matrix = over_nalgebra
        .hessian(&DVector::from_vec(x.clone()))
        .unwrap();
    for (i, row) in hessian.iter().enumerate() {
        for (j, entry) in row.iter().enumerate() {
            assert_eq!(matrix[(i, j)], *entry);
        }
    }
}
