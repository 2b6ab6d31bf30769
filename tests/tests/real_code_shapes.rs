//! Numerical code written as crates write it, annotated as it stands: a two-layer perceptron whose
//! layers derive `Differentiable` (a method producing a `Vec`, `f64::max` as ReLU), a particle made
//! by `Particle::default()` and stepped by a `&mut self` method marked on its own, bodies made by
//! `Default::default()` in an array, a projectile made by a marked constructor, a normal
//! log-likelihood, a flat row-major matrix product, table interpolation by `partition_point`,
//! Horner's rule by `rev().fold`, a trait's objective, a backtracking line search over a closure,
//! and a Kalman covariance prediction over `[[f64; 2]; 2]`. Each is checked at random points
//! against central differences, reverse against forward, and by the dot-product identity.
#![allow(clippy::needless_range_loop, clippy::field_reassign_with_default)] // written as numerical code writes it

mod common;

use ad_runtime::{forward, reverse, Differentiable};
use approx::assert_relative_eq;
use common::{central_difference, check_gradient, random_vector, Rng};

#[derive(Clone, Debug, Differentiable)]
struct Layer {
    w: Vec<Vec<f64>>,
    b: Vec<f64>,
}

impl Layer {
    #[forward]
    #[reverse]
    fn apply(&self, x: &[f64]) -> Vec<f64> {
        self.w
            .iter()
            .zip(&self.b)
            .map(|(row, b)| {
                let z: f64 = row.iter().zip(x).map(|(w, x)| w * x).sum::<f64>() + b;
                f64::max(0.0, z) + 0.1 * z
            })
            .collect()
    }
}

#[forward]
#[reverse]
fn mlp_loss(#[grad] l1: &Layer, #[grad] l2: &Layer, x: &[f64], target: &[f64]) -> f64 {
    let h = l1.apply(x);
    let y = l2.apply(&h);
    y.iter()
        .zip(target)
        .map(|(a, b)| (a - b).powi(2))
        .sum::<f64>()
        / y.len() as f64
}

#[derive(Clone, Copy, Debug, Default, Differentiable)]
struct Particle {
    pos: [f64; 3],
    vel: [f64; 3],
}

impl Particle {
    #[forward]
    #[reverse]
    fn step(&mut self, dt: f64, drag: f64) {
        for k in 0..3 {
            let gravity = if k == 2 { 9.81 * dt } else { 0.0 };
            self.vel[k] -= gravity + drag * self.vel[k] * self.vel[k].abs() * dt;
            self.pos[k] += self.vel[k] * dt;
        }
    }
}

/// A constructor marked as the methods are: differentiated code calls it with floats carrying
/// derivatives and gets a value of the type.
#[derive(Clone, Copy, Debug, Differentiable)]
struct Projectile {
    pos: [f64; 2],
    vel: [f64; 2],
}

impl Projectile {
    #[forward]
    #[reverse]
    fn launched(speed: f64, angle: f64) -> Self {
        Projectile {
            pos: [0.0; 2],
            vel: [speed * angle.cos(), speed * angle.sin()],
        }
    }

    #[forward]
    #[reverse]
    fn advance(&mut self, dt: f64) {
        self.vel[1] -= 9.81 * dt;
        for k in 0..2 {
            self.pos[k] += self.vel[k] * dt;
        }
    }
}

#[forward]
#[reverse]
fn landing_distance(p: &[f64]) -> f64 {
    let mut shot = Projectile::launched(p[0], p[1]);
    for _ in 0..20 {
        shot.advance(0.02);
    }
    shot.pos[0] + shot.pos[1] * 0.5
}

#[forward]
#[reverse]
fn flight(v0: &[f64]) -> f64 {
    let mut p = Particle::default();
    p.vel = [v0[0], v0[1], v0[2]];
    for _ in 0..10 {
        p.step(0.05, v0[3]);
    }
    p.pos[0] + p.pos[2] * p.pos[1]
}

/// Bodies made by `Default::default()` in an array, their fields then written, stepped through
/// `iter_mut` as a spring system.
#[derive(Clone, Copy, Debug, Default, Differentiable)]
struct Body {
    x: f64,
    v: f64,
}

#[forward]
#[reverse]
fn springs(p: &[f64]) -> f64 {
    let k = p[2];
    let mut state = [Body::default(), Body::default()];
    state[0].x = p[0];
    state[1].x = p[1];
    for _ in 0..5 {
        for b in state.iter_mut() {
            b.v -= k * b.x * 0.1;
            b.x += b.v * 0.1;
        }
    }
    state[0].x * state[1].x + k * state[1].v
}

#[forward]
#[reverse]
fn normal_log_likelihood(data: &[f64], mu: f64, sigma: f64) -> f64 {
    let n = data.len() as f64;
    let ss: f64 = data.iter().map(|x| (x - mu).powi(2)).sum();
    -0.5 * n * (2.0 * std::f64::consts::PI).ln() - n * sigma.ln() - ss / (2.0 * sigma * sigma)
}

#[forward]
#[reverse]
fn matmul_flat(a: &[f64], b: &[f64], n: usize) -> Vec<f64> {
    let mut c = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let mut s = 0.0;
            for k in 0..n {
                s += a[i * n + k] * b[k * n + j];
            }
            c[i * n + j] = s;
        }
    }
    c
}

#[forward]
#[reverse]
fn interpolate(xs: &[f64], ys: &[f64], x: f64) -> f64 {
    let i = xs.partition_point(|&v| v < x).clamp(1, xs.len() - 1);
    let t = (x - xs[i - 1]) / (xs[i] - xs[i - 1]);
    ys[i - 1] * (1.0 - t) + ys[i] * t
}

#[forward]
#[reverse]
fn horner(coefficients: &[f64], x: f64) -> f64 {
    coefficients.iter().rev().fold(0.0, |acc, &c| acc * x + c)
}

trait Objective {
    fn value(&self, x: &[f64]) -> f64;
}

struct Rosenbrock {
    a: f64,
}

#[reverse]
#[forward]
impl Objective for Rosenbrock {
    fn value(&self, x: &[f64]) -> f64 {
        x.windows(2)
            .map(|w| (self.a - w[0]).powi(2) + 100.0 * (w[1] - w[0] * w[0]).powi(2))
            .sum()
    }
}

#[forward]
#[reverse]
fn line_search(x: &[f64]) -> f64 {
    let d = [-x[0], -2.0 * x[1], 0.5 - x[2]];
    let f = |t: f64| -> f64 { x.iter().zip(&d).map(|(a, b)| (a + t * b).powi(2)).sum() };
    let mut t = 1.0;
    let f0 = f(0.0);
    while f(t) > f0 && t > 1e-8 {
        t *= 0.5;
    }
    f(t)
}

#[forward]
#[reverse]
fn kalman_predict(p: [[f64; 2]; 2], dt: f64, q: f64) -> [[f64; 2]; 2] {
    let f = [[1.0, dt], [0.0, 1.0]];
    let mut fp = [[0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            for k in 0..2 {
                fp[i][j] += f[i][k] * p[k][j];
            }
        }
    }
    let mut out = [[0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            for k in 0..2 {
                out[i][j] += fp[i][k] * f[j][k];
            }
        }
        out[i][i] += q;
    }
    out
}

fn layer(values: &[f64], rows: usize, columns: usize) -> Layer {
    Layer {
        w: values[..rows * columns]
            .chunks(columns)
            .map(|row| row.to_vec())
            .collect(),
        b: values[rows * columns..rows * columns + rows].to_vec(),
    }
}

fn flatten(l: &Layer) -> Vec<f64> {
    let mut flat: Vec<f64> = l.w.concat();
    flat.extend(&l.b);
    flat
}

#[test]
fn a_two_layer_perceptron_of_derived_layers() {
    // l1: 3 x 2 plus 3 biases (9 floats), l2: 2 x 3 plus 2 (8 floats).
    let x = [0.4, -1.1];
    let target = [0.3, -0.2];
    check_gradient(
        17,
        |p| mlp_loss(&layer(&p[..9], 3, 2), &layer(&p[9..], 2, 3), &x, &target),
        |p, t| {
            mlp_loss_jvp(
                &layer(&p[..9], 3, 2),
                &layer(&p[9..], 2, 3),
                &x,
                &target,
                &layer(&t[..9], 3, 2),
                &layer(&t[9..], 2, 3),
                &[0.0; 2],
                &[0.0; 2],
            )
        },
        |p, c| {
            let (value, (d1, d2, _, _)) =
                mlp_loss_vjp(&layer(&p[..9], 3, 2), &layer(&p[9..], 2, 3), &x, &target, c);
            let mut adjoint = flatten(&d1);
            adjoint.extend(flatten(&d2));
            (value, adjoint)
        },
    );
}

#[test]
fn a_particle_made_by_default_and_stepped_in_place() {
    check_gradient(4, flight, flight_jvp, flight_vjp);
    check_gradient(3, springs, springs_jvp, springs_vjp);
    check_gradient(
        2,
        landing_distance,
        landing_distance_jvp,
        landing_distance_vjp,
    );
}

#[test]
fn statistics_linear_algebra_tables_and_polynomials() {
    check_gradient(
        6,
        |p| normal_log_likelihood(&p[..4], p[4], p[5].abs() + 0.5),
        |p, t| {
            let sigma = p[5].abs() + 0.5;
            let dsigma = t[5] * p[5].signum();
            normal_log_likelihood_jvp(&p[..4], p[4], sigma, &t[..4], t[4], dsigma)
        },
        |p, c| {
            let (value, (dd, dmu, dsigma)) =
                normal_log_likelihood_vjp(&p[..4], p[4], p[5].abs() + 0.5, c);
            let mut adjoint = dd;
            adjoint.extend([dmu, dsigma * p[5].signum()]);
            (value, adjoint)
        },
    );
    // <w, A B> as a function of both matrices.
    let w = [0.3, -1.0, 0.8, 2.0];
    let weigh = |c: &[f64]| c.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>();
    check_gradient(
        8,
        |p| weigh(&matmul_flat(&p[..4], &p[4..], 2)),
        |p, t| {
            let (c, dc) = matmul_flat_jvp(&p[..4], &p[4..], 2, &t[..4], &t[4..]);
            (weigh(&c), weigh(&dc))
        },
        |p, c| {
            let cotangent: Vec<f64> = w.iter().map(|w| w * c).collect();
            let (value, (da, db)) = matmul_flat_vjp(&p[..4], &p[4..], 2, cotangent);
            (weigh(&value), [da, db].concat())
        },
    );
    let xs = [-1.0, 0.0, 0.5, 1.5, 3.0];
    // The table's values and the point, three ways (inside and outside the table).
    check_gradient(
        6,
        |p| interpolate(&xs, &p[..5], p[5]),
        |p, t| interpolate_jvp(&xs, &p[..5], p[5], &[0.0; 5], &t[..5], t[5]),
        |p, c| {
            let (value, (_, dys, dx)) = interpolate_vjp(&xs, &p[..5], p[5], c);
            let mut adjoint = dys;
            adjoint.push(dx);
            (value, adjoint)
        },
    );
    let mut rng = Rng::new(3);
    for _ in 0..5 {
        let ys = random_vector(&mut rng, 5);
        let x = rng.uniform(-0.9, 2.9);
        let (value, (dxs, dys, dx)) = interpolate_grad(&xs, &ys, x);
        assert_eq!(value, interpolate(&xs, &ys, x));
        let (_, along) = interpolate_jvp(&xs, &ys, x, &[0.0; 5], &[0.0; 5], 1.0);
        assert_relative_eq!(dx, along, epsilon = 1e-12, max_relative = 1e-12);
        let moved = |h: f64| interpolate(&xs, &ys, x + h);
        assert_relative_eq!(
            dx,
            central_difference(moved, 0.0, 1e-6),
            max_relative = 1e-5
        );
        // Linear in the table's values: the weights of the two neighbours.
        assert_relative_eq!(dys.iter().sum::<f64>(), 1.0, epsilon = 1e-12);
        let _ = dxs;
    }
    check_gradient(
        5,
        |p| horner(&p[..4], p[4]),
        |p, t| horner_jvp(&p[..4], p[4], &t[..4], t[4]),
        |p, c| {
            let (value, (dc, dx)) = horner_vjp(&p[..4], p[4], c);
            let mut adjoint = dc;
            adjoint.push(dx);
            (value, adjoint)
        },
    );
}

#[test]
fn a_trait_objective_a_line_search_and_a_kalman_prediction() {
    let objective = Rosenbrock { a: 1.0 };
    check_gradient(
        4,
        |x| objective.value(x),
        |x, t| objective.value_jvp(x, t),
        |x, c| objective.value_vjp(x, c),
    );
    check_gradient(3, line_search, line_search_jvp, line_search_vjp);
    let weights = [[0.4, -1.0], [2.0, 0.7]];
    let weigh = |m: &[[f64; 2]; 2]| -> f64 {
        (0..2)
            .map(|i| (0..2).map(|j| m[i][j] * weights[i][j]).sum::<f64>())
            .sum()
    };
    let matrix = |p: &[f64]| [[p[0], p[1]], [p[2], p[3]]];
    check_gradient(
        6,
        |p| weigh(&kalman_predict(matrix(p), p[4], p[5])),
        |p, t| {
            let (value, tangent) = kalman_predict_jvp(matrix(p), p[4], p[5], matrix(t), t[4], t[5]);
            (weigh(&value), weigh(&tangent))
        },
        |p, c| {
            let cotangent = weights.map(|row| row.map(|w| w * c));
            let (value, (dp, ddt, dq)) = kalman_predict_vjp(matrix(p), p[4], p[5], cotangent);
            let mut adjoint: Vec<f64> = dp.concat();
            adjoint.extend([ddt, dq]);
            (weigh(&value), adjoint)
        },
    );
}
