//! Floats read from data (a plain struct's fields, a data slice's elements) where they meet
//! floats that carry derivatives in one type: the elements of an array or a `vec!`, the
//! branches of an `if` or a `match`, a value assigned to a float place. Forward mode's retyped
//! body lifts the data value there. Each is checked at random points against central
//! differences, reverse against forward, and by the dot-product identity.
// The shapes under test: a value named before it is the branch's, a `vec!` of floats.
#![allow(clippy::let_and_return, clippy::useless_vec)]

mod common;

use ad_runtime::{forward, reverse};
use common::check_gradient;

#[derive(Clone, Copy)]
pub struct Params {
    pub a: f64,
    pub b: f64,
}

const P: Params = Params { a: 1.5, b: -0.75 };

#[forward]
#[reverse]
fn array_of_data_and_constants(p: &Params, x: &[f64]) -> f64 {
    let w = [p.a, p.b * 0.01];
    let u = [1.0, p.b];
    let v = [p.a, x[1]];
    w[0] * x[0] + w[1] * x[0] * x[1] + u[0] * u[1] * x[1] + v[0] * v[1]
}

#[forward]
#[reverse]
fn vec_of_data_and_constants(p: &Params, x: &[f64]) -> f64 {
    let w = vec![p.a, 2.0 * p.b, x[0]];
    w.iter().zip(x).map(|(w, x)| w * x).sum()
}

#[forward]
#[reverse]
fn branches_of_data_and_constants(p: &Params, x: &[f64], k: usize) -> f64 {
    let c = if x[0] > 0.0 { p.a } else { 0.5 };
    let d = match k {
        0 => p.a,
        1 => 2.0,
        _ => p.b * 3.0,
    };
    let e = if k == 0 {
        p.b
    } else if k == 1 {
        let t = p.a;
        t
    } else {
        x[1]
    };
    c * x[0] + d * x[1] + e * x[0]
}

#[forward]
#[reverse]
fn assigned_into_float_places(p: &Params, table: &Table, x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    if k > 0 {
        s = p.a;
    }
    let mut v = [0.0; 3];
    v[0] = p.b;
    v[1] = table.w[k];
    v[2] = x[1];
    s * x[0] + v[0] * x[1] + v[1] * v[2]
}

/// Data: no float of it carries a derivative.
pub struct Table {
    pub w: [f64; 3],
}

pub struct Model {
    pub scale: f64,
    pub offset: f64,
}

impl Model {
    #[forward]
    #[reverse]
    pub fn predict(&self, x: &[f64]) -> f64 {
        let w = [self.scale, self.offset * 0.01];
        let c = if x[0] > 0.0 { self.scale } else { 0.5 };
        w[0] * x[0] + w[1] * x[0] * x[1] + c * x[1]
    }
}

#[test]
fn arrays_of_data_and_constants() {
    check_gradient(
        2,
        |x| array_of_data_and_constants(&P, x),
        |x, t| array_of_data_and_constants_jvp(&P, x, t),
        |x, c| array_of_data_and_constants_vjp(&P, x, c),
    );
    check_gradient(
        3,
        |x| vec_of_data_and_constants(&P, x),
        |x, t| vec_of_data_and_constants_jvp(&P, x, t),
        |x, c| vec_of_data_and_constants_vjp(&P, x, c),
    );
}

#[test]
fn branches_of_data_and_constants_all_ways() {
    for k in 0..3 {
        check_gradient(
            2,
            |x| branches_of_data_and_constants(&P, x, k),
            |x, t| branches_of_data_and_constants_jvp(&P, x, k, t),
            |x, c| branches_of_data_and_constants_vjp(&P, x, k, c),
        );
    }
}

#[test]
fn data_assigned_into_float_places() {
    let table = Table {
        w: [0.3, -1.2, 2.5],
    };
    for k in 0..3 {
        check_gradient(
            2,
            |x| assigned_into_float_places(&P, &table, x, k),
            |x, t| assigned_into_float_places_jvp(&P, &table, x, k, t),
            |x, c| assigned_into_float_places_vjp(&P, &table, x, k, c),
        );
    }
}

#[test]
fn fields_of_self_beside_constants() {
    let model = Model {
        scale: 0.8,
        offset: -2.0,
    };
    check_gradient(
        2,
        |x| model.predict(x),
        |x, t| model.predict_jvp(x, t),
        |x, c| model.predict_vjp(x, c),
    );
}

// Floats of data zipped with floats carrying derivatives, as the helpers writing the HMC and
// mass-spring examples first wrote them (forward mode lifts the zipped data, and a data item
// beside a float in a zip pattern stays data).

pub struct Observations {
    pub x: Vec<f64>,
    pub rows: Vec<Vec<f64>>,
}

pub struct Spring {
    pub k: f64,
}

fn observations() -> Observations {
    Observations {
        x: vec![0.5, -1.0, 2.0],
        rows: vec![vec![1.0, 2.0, 3.0], vec![-1.0, 0.5, 0.0]],
    }
}

#[forward]
#[reverse]
fn zipped_with_a_field(w: &[f64], data: &Observations) -> f64 {
    let direct: f64 = w.iter().zip(&data.x).map(|(wi, xi)| wi * xi).sum();
    let mut looped = 0.0;
    for (wi, &xi) in w.iter().zip(data.x.iter()) {
        looped += wi.sin() * xi;
    }
    direct * looped
}

#[forward]
#[reverse]
fn zipped_with_rows_of_data(w: &[f64], data: &Observations) -> f64 {
    let mut total = 0.0;
    for row in &data.rows {
        let z: f64 = w.iter().zip(row).map(|(a, b)| a * b).sum();
        total += z.tanh();
    }
    total
}

#[forward]
#[reverse]
fn data_items_zipped_with_floats(x: &[f64], springs: &[Spring]) -> f64 {
    let mut total = 0.0;
    for (s, v) in springs.iter().zip(x) {
        let k = s.k;
        total += s.k * v * v + k * v;
    }
    total
}

#[forward]
#[reverse]
fn collected_rows_of_data(x: &[f64]) -> f64 {
    let points: Vec<[f64; 2]> = (0..3).map(|i| [i as f64, 0.5 * i as f64]).collect();
    let table: Vec<Vec<f64>> = (0..2).map(|i| vec![i as f64; 3]).collect();
    x[0] * points[2][0] + x[1] * points[1][1] + x[2] * table[1][2]
}

#[test]
fn data_zipped_with_floats_all_ways() {
    let data = observations();
    check_gradient(
        3,
        |w| zipped_with_a_field(w, &data),
        |w, t| zipped_with_a_field_jvp(w, &data, t),
        |w, c| zipped_with_a_field_vjp(w, &data, c),
    );
    check_gradient(
        3,
        |w| zipped_with_rows_of_data(w, &data),
        |w, t| zipped_with_rows_of_data_jvp(w, &data, t),
        |w, c| zipped_with_rows_of_data_vjp(w, &data, c),
    );
    let springs = [Spring { k: 2.0 }, Spring { k: -0.5 }, Spring { k: 1.5 }];
    check_gradient(
        3,
        |x| data_items_zipped_with_floats(x, &springs),
        |x, t| data_items_zipped_with_floats_jvp(x, &springs, t),
        |x, c| data_items_zipped_with_floats_vjp(x, &springs, c),
    );
    check_gradient(
        3,
        collected_rows_of_data,
        collected_rows_of_data_jvp,
        collected_rows_of_data_vjp,
    );
}

// Floats read from a constant table or from a method of data, bound by `let` without a type
// (or with `f64` written), then used with float literals: the local stays data, lifted where
// it meets floats (E0277/E0034 in generated code before).

const WEIGHTS: [f64; 2] = [1.0, 0.25];

pub struct Uniform(u64);

impl Uniform {
    pub fn draw(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[forward]
#[reverse]
fn constant_table_read_into_locals(w: &[f64]) -> f64 {
    let y = WEIGHTS[0];
    let mut total = (1.0 - y) * w[0] + 2.0 * y * w[1];
    for weight in WEIGHTS.iter() {
        let c: f64 = *weight;
        total += c * w[1] * 0.5;
    }
    total
}

#[forward]
#[reverse]
fn noise_from_a_generator(x: &[f64], rng: &mut Uniform) -> f64 {
    let noise = rng.draw();
    0.1 * noise * x[0] + (x[1] + noise).sin()
}

#[test]
fn locals_read_from_constants_and_data_methods() {
    check_gradient(
        2,
        constant_table_read_into_locals,
        constant_table_read_into_locals_jvp,
        constant_table_read_into_locals_vjp,
    );
    check_gradient(
        2,
        |x| noise_from_a_generator(x, &mut Uniform(3)),
        |x, t| noise_from_a_generator_jvp(x, &mut Uniform(3), t),
        |x, c| noise_from_a_generator_vjp(x, &mut Uniform(3), c),
    );
}
