//! Data passed where a differentiated function takes floats: rows of a data struct, constant
//! tables, floats read from data, in both modes. The derivative code lifts them by their type
//! (`call_args`), and data floats beside values with derivatives (`s - y`, `y` a `&f64`) are
//! lifted as Rust's own `f64 - &f64` reads.

use ad_runtime::num_traits::{Float, FromPrimitive};
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

pub struct Settings {
    pub dt: f64,
}

/// A function generic over its float type with a data `f64` parameter, called with data from
/// a non-generic function: its derivative code takes the data at any scalar type.
#[forward]
fn relax<T: Float + FromPrimitive>(x0: T, steps: usize, dt: f64) -> T {
    let mut x = x0;
    for _ in 0..steps {
        x = x - T::from_f64(dt).unwrap() * x * x;
    }
    x
}

#[forward]
fn relax_with(x: f64, settings: &Settings) -> f64 {
    relax(x, 3, settings.dt)
}

#[reverse]
fn shifted<T: Float + FromPrimitive>(x: &[T], delta: f64) -> T {
    x[0] * T::from_f64(delta).unwrap() + x[1] * x[0]
}

#[reverse]
fn shifted_with(x: &[f64], settings: &Settings) -> f64 {
    shifted(x, settings.dt)
}

/// Data computed from constants and data floats, in reverse mode.
#[reverse]
fn constants_and_data(x: &[f64], settings: &Settings) -> f64 {
    let d = 1.0 + settings.dt;
    let r = d * settings.dt;
    let t = settings.dt;
    let u = t * 2.0 + d;
    x[0] * r + u * x[1]
}

pub struct Counter {
    pub calls: usize,
}

#[forward]
#[reverse]
fn counted_step(x: f64, counter: &mut Counter) -> f64 {
    counter.calls += 1;
    x * 2.0 + x.sin()
}

/// A `&mut` data parameter passed on twice: reborrowed, not moved.
#[forward]
fn two_counted_steps(x: f64, counter: &mut Counter) -> f64 {
    let y = counted_step(x, counter);
    counted_step(y, counter)
}

#[test]
fn data_floats_passed_to_generic_functions_and_mutable_data_passed_twice() {
    let settings = Settings { dt: 0.1 };
    let h = 1e-6;
    let (_, derivative) = relax_with_jvp(0.5, &settings, 1.0);
    let central = (relax_with(0.5 + h, &settings) - relax_with(0.5 - h, &settings)) / (2.0 * h);
    assert_relative_eq!(derivative, central, max_relative = 1e-7);
    let (_, gradient) = shifted_with_grad(&[0.5, 2.0], &settings);
    assert_relative_eq!(gradient[0], 0.1 + 2.0, max_relative = 1e-14);
    assert_relative_eq!(gradient[1], 0.5, max_relative = 1e-14);
    let (_, gradient) = constants_and_data_grad(&[1.0, 2.0], &settings);
    assert_relative_eq!(gradient[0], 1.1 * 0.1, max_relative = 1e-14);
    assert_relative_eq!(gradient[1], 0.2 + 1.1, max_relative = 1e-14);
    let mut counter = Counter { calls: 0 };
    let (_, tangent) = two_counted_steps_jvp(0.3, &mut counter, 1.0);
    let y = 0.6 + 0.3_f64.sin();
    assert_relative_eq!(
        tangent,
        (2.0 + y.cos()) * (2.0 + 0.3_f64.cos()),
        max_relative = 1e-14
    );
    assert_eq!(counter.calls, 2);
}
