//! Containers returned by calls inside differentiated code: `let y = layer(&w, &x);` (a `Vec`
//! or an array of floats, bound with or without its type) and containers of data returned by
//! plain functions (`let d: Vec<f64> = data(n);`). Every function carries both `#[forward]`
//! and `#[reverse]`: values bit for bit against the plain function, forward mode against
//! central differences, every reverse adjoint against forward mode along its basis direction.

#![allow(clippy::needless_range_loop, clippy::let_and_return)]

mod common;

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;
use common::{central_difference, random_vector, Rng};

/// One dense layer: `tanh(W x + b)` with `W` given row by row.
#[forward]
#[reverse]
fn dense(weights: &[Vec<f64>], bias: &[f64], input: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(bias.len());
    for i in 0..bias.len() {
        let mut z = bias[i];
        for j in 0..input.len() {
            z += weights[i][j] * input[j];
        }
        out.push(z.tanh());
    }
    out
}

#[forward]
#[reverse]
fn polar(angle: f64, radius: f64) -> [f64; 2] {
    [radius * angle.cos(), radius * angle.sin()]
}

fn plain_targets(n: usize) -> Vec<f64> {
    (0..n).map(|i| 0.25 * i as f64 - 0.3).collect()
}

/// A two-layer network's squared error: layers called on each other's results, one bound
/// with its type and written after, an array result, data targets from a plain function.
#[forward]
#[reverse]
fn network_loss(w1: &[Vec<f64>], b1: &[f64], w2: &[Vec<f64>], b2: &[f64], x: &[f64]) -> f64 {
    let hidden = dense(w1, b1, x);
    let mut output: Vec<f64> = dense(w2, b2, &hidden);
    output[0] *= hidden[1];
    let targets: Vec<f64> = plain_targets(output.len());
    let point = polar(output[1], hidden[0]);
    let mut loss = 0.0;
    for (o, t) in output.iter().zip(targets.iter()) {
        loss += (o - t) * (o - t);
    }
    for i in 0..hidden.len() {
        let again = dense(w2, b2, &hidden);
        loss += 0.1 * again[i % again.len()] * hidden[i];
    }
    loss + point[0] * point[1]
}

#[test]
fn layers_called_on_each_others_results() {
    let mut rng = Rng::new(21);
    for _ in 0..4 {
        let w1: Vec<Vec<f64>> = (0..3).map(|_| random_vector(&mut rng, 2)).collect();
        let b1 = random_vector(&mut rng, 3);
        let w2: Vec<Vec<f64>> = (0..2).map(|_| random_vector(&mut rng, 3)).collect();
        let b2 = random_vector(&mut rng, 2);
        let x = random_vector(&mut rng, 2);
        let (value, (g_w1, g_b1, g_w2, g_b2, g_x)) = network_loss_grad(&w1, &b1, &w2, &b2, &x);
        assert_eq!(
            value.to_bits(),
            network_loss(&w1, &b1, &w2, &b2, &x).to_bits()
        );
        // Flatten every parameter into one vector to walk the basis directions.
        let flat: Vec<f64> = w1
            .iter()
            .flatten()
            .chain(&b1)
            .chain(w2.iter().flatten())
            .chain(&b2)
            .chain(&x)
            .copied()
            .collect();
        let gradient: Vec<f64> = g_w1
            .iter()
            .flatten()
            .chain(&g_b1)
            .chain(g_w2.iter().flatten())
            .chain(&g_b2)
            .chain(&g_x)
            .copied()
            .collect();
        let unflatten = |v: &[f64]| {
            let w1: Vec<Vec<f64>> = v[0..6].chunks(2).map(<[f64]>::to_vec).collect();
            let b1 = v[6..9].to_vec();
            let w2: Vec<Vec<f64>> = v[9..15].chunks(3).map(<[f64]>::to_vec).collect();
            let b2 = v[15..17].to_vec();
            let x = v[17..19].to_vec();
            (w1, b1, w2, b2, x)
        };
        assert_eq!(flat.len(), 19);
        for k in 0..flat.len() {
            let mut basis = vec![0.0; flat.len()];
            basis[k] = 1.0;
            let (d_w1, d_b1, d_w2, d_b2, d_x) = unflatten(&basis);
            let (forward_value, along) =
                network_loss_jvp(&w1, &b1, &w2, &b2, &x, &d_w1, &d_b1, &d_w2, &d_b2, &d_x);
            assert_eq!(forward_value.to_bits(), value.to_bits());
            let moved = |h: f64| {
                let mut v = flat.clone();
                v[k] += h;
                let (w1, b1, w2, b2, x) = unflatten(&v);
                network_loss(&w1, &b1, &w2, &b2, &x)
            };
            assert_relative_eq!(
                along,
                central_difference(moved, 0.0, 1e-4),
                epsilon = 1e-7,
                max_relative = 1e-6
            );
            assert_relative_eq!(gradient[k], along, epsilon = 1e-12, max_relative = 1e-12);
        }
    }
}

#[test]
fn array_results_and_data_containers() {
    #[forward]
    #[reverse]
    fn spiral(t: f64, r: f64) -> f64 {
        let p = polar(t, r);
        let q: [f64; 2] = polar(p[0], p[1] * t);
        let weights: Vec<f64> = plain_targets(2);
        p[0] * q[1] + q[0] * weights[0] + p[1] * weights[1]
    }
    let mut rng = Rng::new(22);
    for _ in 0..6 {
        let (t, r) = (rng.uniform(-2.0, 2.0), rng.uniform(0.5, 1.5));
        let (value, along_t, along_r) = common::forward_checked2(spiral, spiral_jvp, t, r);
        let (reverse_value, (g_t, g_r)) = spiral_grad(t, r);
        assert_eq!(reverse_value.to_bits(), value.to_bits());
        assert_relative_eq!(g_t, along_t, epsilon = 1e-12, max_relative = 1e-12);
        assert_relative_eq!(g_r, along_r, epsilon = 1e-12, max_relative = 1e-12);
    }
}

// ----- containers of rows returned -----

/// The outer product of two vectors, row by row, plus a row of their sums.
#[forward]
#[reverse]
fn outer(a: &[f64], b: &[f64]) -> Vec<Vec<f64>> {
    let mut rows = Vec::new();
    for i in 0..a.len() {
        let mut row = Vec::new();
        for j in 0..b.len() {
            row.push(a[i] * b[j]);
        }
        rows.push(row);
    }
    rows.push(vec![a[0] + b[0]]);
    rows
}

#[forward]
#[reverse]
fn corners(t: f64) -> Vec<[f64; 2]> {
    let mut m = vec![[t, 2.0 * t], [t * t, t.sin()]];
    m[1][0] += m[0][1];
    m
}

#[forward]
#[reverse]
fn uses_rows(a: &[f64], b: &[f64]) -> f64 {
    let m = outer(a, b);
    let mut typed: Vec<Vec<f64>> = outer(b, a);
    typed[0][1] *= m[1][0];
    let c = corners(m[0][0]);
    let mut s = 0.0;
    for row in &typed {
        for v in row {
            s += v * v;
        }
    }
    s + m[0][1] * m[a.len()][0] + c[1][0] * c[0][1]
}

#[test]
fn rows_returned_by_functions() {
    let mut rng = Rng::new(23);
    for _ in 0..4 {
        let a = random_vector(&mut rng, 2);
        let b = random_vector(&mut rng, 3);
        // `_vjp` of a container of rows takes a cotangent of its shape.
        let cotangent = vec![
            random_vector(&mut rng, 3),
            random_vector(&mut rng, 3),
            random_vector(&mut rng, 1),
        ];
        let (value, (d_a, d_b)) = outer_vjp(&a, &b, cotangent.clone());
        assert_eq!(value, outer(&a, &b));
        // <J t, c> = <t, J^T c> along random tangents.
        let (ta, tb) = (random_vector(&mut rng, 2), random_vector(&mut rng, 3));
        let (_, along) = outer_jvp(&a, &b, &ta, &tb);
        let lhs: f64 = along
            .iter()
            .flatten()
            .zip(cotangent.iter().flatten())
            .map(|(j, c)| j * c)
            .sum();
        let rhs: f64 = ta.iter().zip(&d_a).map(|(t, g)| t * g).sum::<f64>()
            + tb.iter().zip(&d_b).map(|(t, g)| t * g).sum::<f64>();
        assert_relative_eq!(lhs, rhs, epsilon = 1e-12, max_relative = 1e-12);

        let t = rng.uniform(-1.0, 1.0);
        let c = vec![[rng.uniform(-1.0, 1.0), 1.0], [0.5, rng.uniform(-1.0, 1.0)]];
        let (_, d_t) = corners_vjp(t, c.clone());
        let (_, along) = corners_jvp(t, 1.0);
        let expected: f64 = along
            .iter()
            .flatten()
            .zip(c.iter().flatten())
            .map(|(j, c)| j * c)
            .sum();
        assert_relative_eq!(d_t, expected, epsilon = 1e-12, max_relative = 1e-12);

        let (value, (g_a, g_b)) = uses_rows_grad(&a, &b);
        assert_eq!(value.to_bits(), uses_rows(&a, &b).to_bits());
        for k in 0..5 {
            let mut basis = [0.0; 5];
            basis[k] = 1.0;
            let (_, along) = uses_rows_jvp(&a, &b, &basis[..2], &basis[2..]);
            let moved = |h: f64| {
                let mut v: Vec<f64> = a.iter().chain(&b).copied().collect();
                v[k] += h;
                uses_rows(&v[..2], &v[2..])
            };
            assert_relative_eq!(
                along,
                central_difference(moved, 0.0, 1e-4),
                epsilon = 1e-7,
                max_relative = 1e-6
            );
            let reverse = if k < 2 { g_a[k] } else { g_b[k - 2] };
            assert_relative_eq!(reverse, along, epsilon = 1e-12, max_relative = 1e-12);
        }
    }
}

#[test]
#[should_panic(expected = "must have the shape of the result")]
fn a_cotangent_of_the_wrong_shape_is_refused() {
    let _ = outer_vjp(
        &[1.0, 2.0],
        &[3.0],
        vec![vec![1.0], vec![1.0, 2.0], vec![1.0]],
    );
}

/// A call's result returned as it is (found by review: it was taken for a float).
#[forward]
#[reverse]
fn passed_through(a: &[f64], b: &[f64]) -> Vec<Vec<f64>> {
    let m = outer(a, b);
    m
}

#[test]
fn results_returned_as_they_are() {
    let (a, b) = ([0.5, -1.0], [2.0, 0.25, 3.0]);
    let cotangent = vec![vec![1.0, 0.5, -1.0], vec![0.25, 2.0, 1.0], vec![3.0]];
    let (value, (d_a, d_b)) = passed_through_vjp(&a, &b, cotangent.clone());
    let (direct, (e_a, e_b)) = outer_vjp(&a, &b, cotangent);
    assert_eq!(value, direct);
    assert_eq!((d_a, d_b), (e_a, e_b));
}
