//! Results of floats nested in owned containers and tuples (`[[f64; 2]; 2]`, `(f64, Vec<f64>)`,
//! `Vec<Vec<Vec<f64>>>`): `f_vjp` takes a cotangent of the result's type. Checked by the
//! dot-product identity against forward mode (`<J t, c> = <t, J^T c>`) and against central
//! differences of `<f(x + h t), c>`, at random points.
#![cfg(not(feature = "previous-engine"))]

mod common;

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;
use common::{central_difference, random_vector, Rng};

#[forward]
#[reverse]
fn rotation_and_scale(x: &[f64]) -> [[f64; 2]; 2] {
    let (c, s) = (x[0].cos(), x[0].sin());
    [[c * x[1], -s * x[1]], [s * x[2], c * x[2]]]
}

#[forward]
#[reverse]
fn norm_and_direction(x: &[f64]) -> (f64, Vec<f64>) {
    let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    (norm, x.iter().map(|v| v / norm).collect())
}

#[forward]
#[reverse]
fn ragged_three_deep(x: &[f64]) -> Vec<Vec<Vec<f64>>> {
    vec![
        vec![vec![x[0], x[0] * x[1]]],
        vec![vec![x[2].exp()], vec![2.0 * x[1], x[2] * x[0]]],
    ]
}

/// The floats of a nested result, in order.
trait Flatten {
    fn flat(&self) -> Vec<f64>;
}

impl Flatten for f64 {
    fn flat(&self) -> Vec<f64> {
        vec![*self]
    }
}

impl<T: Flatten> Flatten for Vec<T> {
    fn flat(&self) -> Vec<f64> {
        self.iter().flat_map(Flatten::flat).collect()
    }
}

impl<T: Flatten, const N: usize> Flatten for [T; N] {
    fn flat(&self) -> Vec<f64> {
        self.iter().flat_map(Flatten::flat).collect()
    }
}

impl<A: Flatten, B: Flatten> Flatten for (A, B) {
    fn flat(&self) -> Vec<f64> {
        let mut all = self.0.flat();
        all.extend(self.1.flat());
        all
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `<J t, c> = <t, J^T c>` and central differences of `<f(x + h t), c>`, with `cotangent`
/// building a random cotangent shaped as the result.
fn check<R: Flatten>(
    plain: fn(&[f64]) -> R,
    jvp: fn(&[f64], &[f64]) -> (R, R),
    vjp: fn(&[f64], R) -> (R, Vec<f64>),
    cotangent: fn(&mut Rng) -> R,
    seed: u64,
) {
    let mut rng = Rng::new(seed);
    for _ in 0..5 {
        let x = random_vector(&mut rng, 3);
        let t = random_vector(&mut rng, 3);
        let c = cotangent(&mut rng);
        let c_flat = c.flat();
        let (value, jt) = jvp(&x, &t);
        let (reverse_value, jtc) = vjp(&x, c);
        assert_eq!(value.flat(), reverse_value.flat());
        assert_eq!(value.flat(), plain(&x).flat());
        assert_relative_eq!(
            dot(&jt.flat(), &c_flat),
            dot(&t, &jtc),
            epsilon = 1e-12,
            max_relative = 1e-12
        );
        let along = |h: f64| {
            let moved: Vec<f64> = x.iter().zip(&t).map(|(a, b)| a + h * b).collect();
            dot(&plain(&moved).flat(), &c_flat)
        };
        assert_relative_eq!(
            dot(&t, &jtc),
            central_difference(along, 0.0, 1e-5),
            epsilon = 1e-7,
            max_relative = 1e-6
        );
    }
}

#[test]
fn nested_results_three_ways() {
    check(
        rotation_and_scale,
        rotation_and_scale_jvp,
        rotation_and_scale_vjp,
        |rng| {
            [
                [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)],
                [rng.uniform(-1.0, 1.0), 0.5],
            ]
        },
        81,
    );
    check(
        norm_and_direction,
        norm_and_direction_jvp,
        norm_and_direction_vjp,
        |rng| (rng.uniform(-1.0, 1.0), random_vector(rng, 3)),
        82,
    );
    check(
        ragged_three_deep,
        ragged_three_deep_jvp,
        ragged_three_deep_vjp,
        |rng| {
            vec![
                vec![random_vector(rng, 2)],
                vec![random_vector(rng, 1), random_vector(rng, 2)],
            ]
        },
        83,
    );
}
