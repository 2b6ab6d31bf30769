//! Curve fitting with the `levenberg-marquardt` crate, the Jacobian of the residuals from
//! `#[forward]`'s `residuals_jacfwd` (vector forward mode, all four columns in one pass).
//! The model is a damped oscillation plus an offset, `a e^{-b t} cos(w t) + c`, fitted to
//! noisy samples; the Jacobian is checked against central differences before the fit, and
//! the fitted parameters against the ones the data was drawn from.
//!
//! Run with `cargo run --release --example curve_fitting`.

use ad_runtime::forward;
use levenberg_marquardt::{LeastSquaresProblem, LevenbergMarquardt};
use nalgebra::{DMatrix, DVector, Dyn, Owned};

/// The residuals of the model with parameters `p = [a, b, w, c]` at the samples `(t, y)`.
#[forward]
fn residuals(p: &[f64], #[no_grad] t: &[f64], #[no_grad] y: &[f64]) -> Vec<f64> {
    let mut r = Vec::with_capacity(t.len());
    for (ti, yi) in t.iter().zip(y) {
        let model = p[0] * (-p[1] * ti).exp() * (p[2] * ti).cos() + p[3];
        r.push(model - yi);
    }
    r
}

/// The problem as the crate asks for it: parameters, residuals and their Jacobian.
struct DampedOscillation {
    params: DVector<f64>,
    t: Vec<f64>,
    y: Vec<f64>,
}

impl LeastSquaresProblem<f64, Dyn, Dyn> for DampedOscillation {
    type ResidualStorage = Owned<f64, Dyn>;
    type JacobianStorage = Owned<f64, Dyn, Dyn>;
    type ParameterStorage = Owned<f64, Dyn>;

    fn set_params(&mut self, params: &DVector<f64>) {
        self.params.copy_from(params);
    }

    fn params(&self) -> DVector<f64> {
        self.params.clone()
    }

    fn residuals(&self) -> Option<DVector<f64>> {
        Some(DVector::from_vec(residuals(
            self.params.as_slice(),
            &self.t,
            &self.y,
        )))
    }

    fn jacobian(&self) -> Option<DMatrix<f64>> {
        let (_, rows) = residuals_jacfwd(self.params.as_slice(), &self.t, &self.y);
        Some(DMatrix::from_fn(rows.len(), 4, |i, j| rows[i][j]))
    }
}

/// A linear congruential generator: the same noise on every run, without a crate.
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
    let truth = [2.0, 0.3, 1.7, 0.5];
    let mut rng = Lcg(11);
    let t: Vec<f64> = (0..60).map(|i| i as f64 * 0.1).collect();
    let y: Vec<f64> = t
        .iter()
        .map(|&ti| {
            let clean = truth[0] * (-truth[1] * ti).exp() * (truth[2] * ti).cos() + truth[3];
            clean + 0.02 * (rng.uniform() - 0.5)
        })
        .collect();

    // The Jacobian against central differences at the starting point.
    let start = [1.5, 0.5, 1.5, 0.0];
    let (_, jacobian) = residuals_jacfwd(&start, &t, &y);
    let mut worst: f64 = 0.0;
    for j in 0..4 {
        let h = 1e-6;
        let (mut plus, mut minus) = (start, start);
        plus[j] += h;
        minus[j] -= h;
        let (r_plus, r_minus) = (residuals(&plus, &t, &y), residuals(&minus, &t, &y));
        for i in 0..t.len() {
            let difference = (r_plus[i] - r_minus[i]) / (2.0 * h);
            worst = worst.max((jacobian[i][j] - difference).abs() / difference.abs().max(1.0));
        }
    }
    println!(
        "jacobian ({} x 4) vs central differences: worst relative error {worst:.1e}",
        t.len()
    );
    assert!(worst < 1e-7);

    let problem = DampedOscillation {
        params: DVector::from_column_slice(&start),
        t,
        y,
    };
    let (fitted, report) = LevenbergMarquardt::new().minimize(problem);
    assert!(
        report.termination.was_successful(),
        "{:?}",
        report.termination
    );
    let p = fitted.params;
    println!(
        "levenberg-marquardt: {:?} after {} evaluations, objective {:.3e}",
        report.termination, report.number_of_evaluations, report.objective_function
    );
    println!(
        "fitted a = {:.4}, b = {:.4}, w = {:.4}, c = {:.4} (drawn from {truth:?})",
        p[0], p[1], p[2], p[3]
    );
    for (fitted, true_value) in p.iter().zip(truth) {
        assert!((fitted - true_value).abs() < 0.02);
    }
}
