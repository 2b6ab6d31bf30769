//! Parameters of the other float type are data (`f32` samples of an `f64` model), converted in
//! the body with `as`: no derivative is taken for them, and the generated functions take no
//! tangent or adjoint for them. Checked in both modes against central differences.

mod common;

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;
use common::central_difference;

/// A weighted least-squares loss of `f64` parameters over `f32` samples.
#[forward]
#[reverse]
fn loss(slope: f64, samples: &[f32], weight: f32) -> f64 {
    let mut total = 0.0;
    for (i, y) in samples.iter().enumerate() {
        let residual = slope * i as f64 - *y as f64;
        total += weight as f64 * residual * residual;
    }
    total
}

#[test]
fn f32_data_in_an_f64_function() {
    let samples = [0.5_f32, 1.25, 2.0, 3.5];
    for slope in [-0.5, 0.7, 1.3] {
        let (value, gradient) = loss_grad(slope, &samples, 2.0);
        let (forward_value, tangent) = loss_jvp(slope, &samples, 2.0, 1.0);
        assert_eq!(value, loss(slope, &samples, 2.0));
        assert_eq!(value, forward_value);
        assert_relative_eq!(gradient, tangent, max_relative = 1e-14);
        let numeric = central_difference(|s| loss(s, &samples, 2.0), slope, 1e-5);
        assert_relative_eq!(gradient, numeric, max_relative = 1e-8);
    }
}
