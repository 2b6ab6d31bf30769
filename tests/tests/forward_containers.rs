//! Slices, `Vec`s, arrays and tuples of floats in forward mode: as parameters (the tangent has
//! the parameter's type), as results, and in the body (indexing, writes, `len`, `vec!`, `push`,
//! `to_vec`, loops over references, iterator adapters). Each function is checked against its
//! plain value and against central differences along random tangent directions.

// The functions spell out common ways of writing the same thing on purpose.
#![allow(clippy::needless_range_loop, clippy::manual_memcpy)]

mod common;

use ad_runtime::forward;
use approx::assert_relative_eq;
use common::{random_vector, slice_forward_checked, Rng};

/// `jvp(x, t)` against `d/dh plain(x + h t)` for random `x` and `t`.
fn check_slice_function(
    n: usize,
    plain: impl Fn(&[f64]) -> f64,
    jvp: impl Fn(&[f64], &[f64]) -> (f64, f64),
) {
    let mut rng = Rng::new(n as u64 + 1);
    for _ in 0..10 {
        let x = random_vector(&mut rng, n);
        let t = random_vector(&mut rng, n);
        slice_forward_checked(&plain, &jvp, &x, &t);
    }
}

#[forward]
fn adapters(x: &[f64]) -> f64 {
    let squares: Vec<f64> = x.iter().map(|v| v * v).collect();
    let total: f64 = squares.iter().sum();
    let positive: f64 = x.iter().copied().filter(|v| *v > 0.0).sum();
    let largest = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let product: f64 = x.iter().map(|v| 1.0 + v * 0.1).product();
    let dot: f64 = x.iter().zip(squares.iter()).map(|(a, b)| a * b).sum();
    total + positive + largest + product + dot
}

#[test]
fn slices_indexing_and_loops() {
    check_slice_function(6, adapters, adapters_jvp);
}

#[forward]
fn matrix_vector(a: &[Vec<f64>], x: &[f64]) -> Vec<f64> {
    a.iter()
        .map(|row| row.iter().zip(x).map(|(r, v)| r * v).sum())
        .collect()
}

#[test]
fn nested_vectors_and_vector_results() {
    let a = vec![vec![1.0, 2.0, 0.5], vec![-1.0, 0.3, 4.0]];
    let da = vec![vec![0.1, 0.0, 0.2], vec![0.0, 1.0, 0.0]];
    let x = [0.7, -0.2, 1.1];
    let dx = [1.0, 0.5, -0.3];
    let (value, tangent) = matrix_vector_jvp(&a, &x, &da, &dx);
    assert_eq!(value, matrix_vector(&a, &x));
    for row in 0..2 {
        let expected: f64 = (0..3).map(|j| da[row][j] * x[j] + a[row][j] * dx[j]).sum();
        assert_relative_eq!(tangent[row], expected, max_relative = 1e-14);
    }
}

#[forward]
fn points(p: &[[f64; 3]]) -> f64 {
    let mut s = 0.0;
    for q in p {
        s += (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt();
    }
    s
}

#[forward]
fn owned(v: Vec<f64>, a: [f64; 2], pair: (f64, f64)) -> [f64; 2] {
    let s: f64 = v.iter().sum();
    [s * a[0] + pair.0, a[1] * pair.1]
}

#[forward]
fn weighted(x: &[f64], #[no_grad] weights: &[f64]) -> f64 {
    x.iter().zip(weights).map(|(v, w)| v * w).sum()
}

#[test]
fn arrays_tuples_owned_vectors_and_constant_containers() {
    let p = [[1.0, 2.0, 2.0], [0.0, 3.0, 4.0]];
    let dp = [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    let (value, tangent) = points_jvp(&p, &dp);
    assert_eq!(value, 8.0);
    assert_relative_eq!(tangent, 1.0 / 3.0 + 4.0 / 5.0, max_relative = 1e-14);

    let (value, tangent) = owned_jvp(
        vec![1.0, 2.0],
        [3.0, 4.0],
        (5.0, 6.0),
        vec![1.0, 0.0],
        [0.0, 1.0],
        (1.0, 0.0),
    );
    assert_eq!(value, owned(vec![1.0, 2.0], [3.0, 4.0], (5.0, 6.0)));
    assert_eq!(tangent, [3.0 + 1.0, 6.0]);

    let (value, tangent) = weighted_jvp(&[1.0, 2.0], &[0.5, -1.0], &[1.0, 1.0]);
    assert_eq!(value, -1.5);
    assert_eq!(tangent, -0.5);
}

#[test]
#[should_panic(expected = "lengths 2 and 3 differ")]
fn a_tangent_of_the_wrong_length_is_refused() {
    let _ = adapters_jvp(&[1.0, 2.0], &[1.0, 0.0, 0.0]);
}
