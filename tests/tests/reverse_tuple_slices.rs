//! Slices of tuples of floats (`&[(f64, f64)]`) as differentiated parameters in reverse mode:
//! their adjoint is what their type has (`Vec<(f64, f64)>`), read by index and tuple patterns
//! (`let (x, y) = v[i]`, `for &(t, c) in flows`). Checked against forward mode and central
//! differences at random points.

mod common;

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;
use common::{random_vector, Rng};

/// The shoelace formula (geo's `area`), by index.
#[forward]
#[reverse]
fn shoelace(vertices: &[(f64, f64)]) -> f64 {
    let n = vertices.len();
    let mut twice = 0.0;
    for i in 0..n {
        let (x0, y0) = vertices[i];
        let (x1, y1) = vertices[(i + 1) % n];
        twice += x0 * y1 - x1 * y0;
    }
    0.5 * twice
}

/// A Macaulay duration over `(time, amount)` cash flows, by a tuple pattern in the loop.
#[forward]
#[reverse]
fn duration(flows: &[(f64, f64)], y: f64) -> f64 {
    let mut pv = 0.0;
    let mut weighted = 0.0;
    for &(t, c) in flows {
        let d = c * (-y * t).exp();
        pv += d;
        weighted += t * d;
    }
    weighted / pv
}

fn pairs(x: &[f64]) -> Vec<(f64, f64)> {
    x.chunks(2).map(|c| (c[0], c[1])).collect()
}

fn flat(p: &[(f64, f64)]) -> Vec<f64> {
    p.iter().flat_map(|&(a, b)| [a, b]).collect()
}

#[test]
fn tuple_slices_in_both_modes() {
    let mut rng = Rng::new(5);
    let h = 1e-6;
    for _ in 0..5 {
        let x: Vec<f64> = (0..8).map(|_| rng.uniform(0.5, 2.0)).collect();
        let t = random_vector(&mut rng, 8);
        let y = rng.uniform(0.01, 0.2);

        let (value, gradient) = shoelace_grad(&pairs(&x));
        let (forward_value, tangent) = shoelace_jvp(&pairs(&x), &pairs(&t));
        assert_eq!(value.to_bits(), shoelace(&pairs(&x)).to_bits());
        assert_eq!(forward_value.to_bits(), value.to_bits());
        let along = |s: f64| -> f64 {
            let moved: Vec<f64> = x.iter().zip(&t).map(|(x, t)| x + s * h * t).collect();
            shoelace(&pairs(&moved))
        };
        let reverse: f64 = flat(&gradient).iter().zip(&t).map(|(g, t)| g * t).sum();
        assert_relative_eq!(reverse, tangent, max_relative = 1e-12, epsilon = 1e-14);
        assert_relative_eq!(
            reverse,
            (along(1.0) - along(-1.0)) / (2.0 * h),
            max_relative = 1e-6
        );

        let (value, (d_flows, d_y)) = duration_grad(&pairs(&x), y);
        let (forward_value, tangent) = duration_jvp(&pairs(&x), y, &pairs(&t), 0.5);
        assert_eq!(value.to_bits(), duration(&pairs(&x), y).to_bits());
        assert_eq!(forward_value.to_bits(), value.to_bits());
        let along = |s: f64| -> f64 {
            let moved: Vec<f64> = x.iter().zip(&t).map(|(x, t)| x + s * h * t).collect();
            duration(&pairs(&moved), y + s * h * 0.5)
        };
        let reverse: f64 = flat(&d_flows)
            .iter()
            .zip(&t)
            .map(|(g, t)| g * t)
            .sum::<f64>()
            + d_y * 0.5;
        assert_relative_eq!(reverse, tangent, max_relative = 1e-12, epsilon = 1e-14);
        assert_relative_eq!(
            reverse,
            (along(1.0) - along(-1.0)) / (2.0 * h),
            max_relative = 1e-6
        );
    }
}
