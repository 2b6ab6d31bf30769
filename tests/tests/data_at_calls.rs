//! Data passed where a differentiated function takes floats: rows of a data struct, constant
//! tables, floats read from data, in both modes. The derivative code lifts them by their type
//! (`call_args`), and data floats beside values with derivatives (`s - y`, `y` a `&f64`) are
//! lifted as Rust's own `f64 - &f64` reads.
#![cfg(not(feature = "previous-engine"))]

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;

pub struct Dataset {
    pub rows: Vec<Vec<f64>>,
    pub targets: Vec<f64>,
    pub scale: f64,
    pub table: Vec<[f64; 2]>,
}

#[forward]
#[reverse]
fn predict(w: &[f64], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * x[i];
    }
    s.tanh()
}

#[forward]
#[reverse]
fn scaled(v: f64, k: f64) -> f64 {
    v * k + k.sin()
}

#[forward]
#[reverse]
fn bilinear(a: &[f64], rows: &[Vec<f64>], pair: [f64; 2]) -> f64 {
    let mut total = 0.0;
    for row in rows {
        total += a[0] * row[0] + a[1] * row[1] * pair[0] - pair[1];
    }
    total
}

#[forward]
#[reverse]
fn corners(a: &[f64], table: &[[f64; 2]]) -> f64 {
    table.iter().map(|c| a[0] * c[0] - a[1] * c[1]).sum()
}

const WEIGHTS: [f64; 2] = [0.25, -1.5];

#[forward]
#[reverse]
fn loss(w: &[f64], data: &Dataset) -> f64 {
    let mut total = 0.0;
    for (row, y) in data.rows.iter().zip(&data.targets) {
        let e =
            (predict(w, row) - y) * y / (y + 2.0) + y * predict(w, row) - y / (1.0 + w[0] * w[0]);
        total += e * e;
    }
    total += scaled(w[1], data.scale) + predict(w, &WEIGHTS);
    let pair = [data.scale, data.targets[0]];
    total += bilinear(w, &data.rows, pair);
    total + corners(w, &data.table)
}

fn dataset() -> Dataset {
    Dataset {
        rows: vec![vec![1.0, 2.0], vec![0.5, -1.0], vec![-0.3, 0.8]],
        targets: vec![0.3, -0.2, 0.7],
        scale: 1.7,
        table: vec![[1.0, 0.5], [-2.0, 0.25]],
    }
}

#[test]
fn data_rows_tables_and_floats_passed_to_differentiated_functions() {
    let data = dataset();
    let w = [0.1, 0.2];
    let (value, gradient) = loss_grad(&w, &data);
    assert_relative_eq!(value, loss(&w, &data), max_relative = 1e-14);
    let h = 1e-6;
    for k in 0..2 {
        let mut direction = [0.0; 2];
        direction[k] = 1.0;
        let (tangent_value, tangent) = loss_jvp(&w, &data, &direction);
        assert_relative_eq!(tangent_value, value, max_relative = 1e-14);
        assert_relative_eq!(tangent, gradient[k], max_relative = 1e-12);
        let (mut plus, mut minus) = (w, w);
        plus[k] += h;
        minus[k] -= h;
        let central = (loss(&plus, &data) - loss(&minus, &data)) / (2.0 * h);
        assert_relative_eq!(gradient[k], central, max_relative = 1e-7);
    }
    // The dot-product identity: <J v, u> = <v, J^T u>.
    let (_, along) = loss_jvp(&w, &data, &[0.6, -0.8]);
    let (_, adjoint) = loss_vjp(&w, &data, 1.5);
    assert_relative_eq!(
        along * 1.5,
        0.6 * adjoint[0] - 0.8 * adjoint[1],
        max_relative = 1e-12
    );
}
