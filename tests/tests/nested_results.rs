//! Results of floats nested in owned containers and tuples (`[[f64; 2]; 2]`, `(f64, Vec<f64>)`,
//! `Vec<Vec<Vec<f64>>>`): `f_vjp` takes a cotangent of the result's type. Checked by the
//! dot-product identity against forward mode (`<J t, c> = <t, J^T c>`) and against central
//! differences of `<f(x + h t), c>`, at random points.

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

/// A caller binding such results (`let rows: [[f64; 2]; 2] = grid(..)`, `let (n, d) = ..`) and
/// a local tuple holding a container.
#[forward]
#[reverse]
fn reads_nested_results(x: &[f64]) -> f64 {
    let rows: [[f64; 2]; 2] = rotation_and_scale(x);
    let (norm, direction) = norm_and_direction(x);
    let pair = (x[0] * 2.0, vec![x[1], x[2]]);
    rows[0][1] + rows[1][0] * norm + direction[1] + pair.1[1] * pair.0
}

#[test]
fn callers_of_nested_results_three_ways() {
    common::check_slice_function_at_random_points(
        reads_nested_results,
        reads_nested_results_jvp,
        reads_nested_results_vjp,
        3,
        84,
    );
}

/// Parameters of floats nested three deep, or a tuple holding a `Vec`: adjoints of their types.
#[forward]
#[reverse]
fn deep_parameter(m: &[Vec<Vec<f64>>], k: f64) -> f64 {
    let mut total = 0.0;
    for block in m {
        for row in block {
            for value in row {
                total += value * value * k;
            }
        }
    }
    total + m[0][0][1] * k
}

#[forward]
#[reverse]
fn tuple_parameter(p: &(f64, Vec<f64>)) -> f64 {
    p.0 * p.1[1] + p.1[0].sin()
}

#[test]
fn nested_parameters_against_central_differences() {
    let m = vec![vec![vec![0.3, -1.2], vec![2.0]], vec![vec![0.5]]];
    let (value, (dm, dk)) = deep_parameter_grad(&m, 1.5);
    assert_eq!(value, deep_parameter(&m, 1.5));
    let positions = [(0, 0, 0), (0, 0, 1), (0, 1, 0), (1, 0, 0)];
    for (i, j, l) in positions {
        let moved = |h: f64| {
            let mut n = m.clone();
            n[i][j][l] += h;
            deep_parameter(&n, 1.5)
        };
        assert_relative_eq!(
            dm[i][j][l],
            central_difference(moved, 0.0, 1e-5),
            max_relative = 1e-8
        );
        let mut e = vec![vec![vec![0.0, 0.0], vec![0.0]], vec![vec![0.0]]];
        e[i][j][l] = 1.0;
        assert_relative_eq!(
            dm[i][j][l],
            deep_parameter_jvp(&m, 1.5, &e, 0.0).1,
            max_relative = 1e-14
        );
    }
    assert_relative_eq!(
        dk,
        central_difference(|k| deep_parameter(&m, k), 1.5, 1e-5),
        max_relative = 1e-8
    );
    let p = (1.5, vec![0.2, 0.7]);
    let (_, (d0, d1)) = tuple_parameter_grad(&p);
    assert_relative_eq!(d0, 0.7, max_relative = 1e-15);
    assert_relative_eq!(d1[0], 0.2_f64.cos(), max_relative = 1e-15);
    assert_relative_eq!(d1[1], 1.5, max_relative = 1e-15);
    let (_, along) = tuple_parameter_jvp(&p, &(0.5, vec![-1.0, 2.0]));
    assert_relative_eq!(along, 0.5 * d0 - d1[0] + 2.0 * d1[1], max_relative = 1e-14);
}
