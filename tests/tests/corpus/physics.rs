//! Physics in the forms of molecular-dynamics and simulation code: Lennard-Jones potentials
//! and pair forces over `&[[f64; 3]]` (returning `Vec<[f64; 3]>`), the benchmarks game's
//! n-body energy over `&[Body; 5]` with `for bj in &bodies[i + 1..]`, Kepler's equation by
//! Newton iterations, and an `Option`-returning pair helper.

use crate::common::Rng;
use crate::harness::{one, Case};
use ad_runtime::{forward, reverse, Differentiable};
use std::f64::consts::PI;

// Form of a Lennard-Jones pair potential.
#[forward]
#[reverse]
pub fn lj_potential(r: f64, epsilon: f64, sigma: f64) -> f64 {
    let sr6 = (sigma / r).powi(6);
    4.0 * epsilon * (sr6 * sr6 - sr6)
}

// Form of an MD force loop: pairs `i < j`, a local `d` array, `vec![[0.0; 3]; n]` result.
#[forward]
#[reverse]
pub fn lj_forces(positions: &[[f64; 3]], epsilon: f64, sigma: f64) -> Vec<[f64; 3]> {
    let n = positions.len();
    let mut forces = vec![[0.0; 3]; n];
    for i in 0..n {
        for j in (i + 1)..n {
            let d = [
                positions[i][0] - positions[j][0],
                positions[i][1] - positions[j][1],
                positions[i][2] - positions[j][2],
            ];
            let r2 = d.iter().map(|x| x * x).sum::<f64>();
            let sr2 = sigma * sigma / r2;
            let sr6 = sr2 * sr2 * sr2;
            let f = 24.0 * epsilon * (2.0 * sr6 * sr6 - sr6) / r2;
            for k in 0..3 {
                forces[i][k] += f * d[k];
                forces[j][k] -= f * d[k];
            }
        }
    }
    forces
}

/// A body of the benchmarks game's n-body problem.
#[derive(Clone, Copy, Debug, PartialEq, Differentiable)]
pub struct Body {
    pub position: [f64; 3],
    pub velocity: [f64; 3],
    pub mass: f64,
}

// Form of the benchmarks game's `energy(bodies: &[Body; N_BODIES])`, with `Body` deriving
// `Differentiable` and `bodies` marked `#[grad]`: `_jvp` takes a `&[Body; 5]` tangent, `_vjp`
// and `_grad` give a `[Body; 5]` adjoint.
#[forward]
#[reverse]
pub fn energy(#[grad] bodies: &[Body; 5]) -> f64 {
    let mut e = 0.0;
    for (i, bi) in bodies.iter().enumerate() {
        e += 0.5 * bi.mass * bi.velocity.iter().map(|v| v * v).sum::<f64>();
        for bj in &bodies[i + 1..] {
            let dx = bi.position[0] - bj.position[0];
            let dy = bi.position[1] - bj.position[1];
            let dz = bi.position[2] - bj.position[2];
            e -= bi.mass * bj.mass / (dx * dx + dy * dy + dz * dz).sqrt();
        }
    }
    e
}

// Form of Kepler's equation solved by a fixed number of Newton steps (astronomy crates).
#[forward]
#[reverse]
pub fn eccentric_anomaly(mean_anomaly: f64, e: f64) -> f64 {
    let mut ea = if e < 0.8 { mean_anomaly } else { PI };
    for _ in 0..30 {
        let f = ea - e * ea.sin() - mean_anomaly;
        let fp = 1.0 - e * ea.cos();
        ea -= f / fp;
    }
    ea
}

// Form of an `Option`-returning pair helper (`None` for coincident points): `_jvp` gives the
// value and tangent as options, `_vjp` takes the cotangent as one.
#[forward]
#[reverse]
pub fn inverse_distance(a: &[f64; 3], b: &[f64; 3]) -> Option<f64> {
    let r = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
    if r > 1e-9 {
        Some(1.0 / r)
    } else {
        None
    }
}

// Form of a Coulomb energy using it with `unwrap_or(0.0)`.
#[forward]
#[reverse]
pub fn coulomb_energy(charges: &[f64], positions: &[[f64; 3]]) -> f64 {
    let mut e = 0.0;
    for i in 0..charges.len() {
        for j in (i + 1)..charges.len() {
            e += charges[i]
                * charges[j]
                * inverse_distance(&positions[i], &positions[j]).unwrap_or(0.0);
        }
    }
    e
}

/// Four points near the corners of a tetrahedron of side about 1.5, flat.
fn cluster(rng: &mut Rng) -> Vec<f64> {
    let corners = [
        [0.0, 0.0, 0.0],
        [1.5, 0.0, 0.0],
        [0.75, 1.3, 0.0],
        [0.75, 0.43, 1.22],
    ];
    corners
        .iter()
        .flatten()
        .map(|c| c + rng.uniform(-0.1, 0.1))
        .collect()
}

fn rows(x: &[f64]) -> Vec<[f64; 3]> {
    x.chunks(3).map(|c| [c[0], c[1], c[2]]).collect()
}

fn flat(rows: &[[f64; 3]]) -> Vec<f64> {
    rows.iter().flatten().copied().collect()
}

#[test]
fn lennard_jones_potential_and_forces() {
    Case::new("lj_potential", 3, |x| one(lj_potential(x[0], x[1], x[2])))
        .within(&[(0.9, 2.0), (0.5, 1.5), (0.8, 1.2)])
        .forward(|x, t| {
            let (v, d) = lj_potential_jvp(x[0], x[1], x[2], t[0], t[1], t[2]);
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, (a, b, c)) = lj_potential_vjp(x[0], x[1], x[2], w[0]);
            (one(v), vec![a, b, c])
        })
        .check(71);
    Case::new("lj_forces", 12, |x| flat(&lj_forces(&rows(x), 1.0, 1.0)))
        .points(cluster)
        .forward(|x, t| {
            let (f, df) = lj_forces_jvp(&rows(x), 1.0, 1.0, &rows(t), 0.0, 0.0);
            (flat(&f), flat(&df))
        })
        .reverse(|x, w| {
            let (f, (dp, _, _)) = lj_forces_vjp(&rows(x), 1.0, 1.0, rows(w));
            (flat(&f), flat(&dp))
        })
        .check(72);
}

fn bodies(x: &[f64]) -> [Body; 5] {
    let body = |k: usize| {
        let b = &x[7 * k..7 * k + 7];
        Body {
            position: [b[0] + 3.0 * k as f64, b[1], b[2]],
            velocity: [b[3], b[4], b[5]],
            mass: 1.0 + 0.2 * b[6],
        }
    };
    [body(0), body(1), body(2), body(3), body(4)]
}

/// The tangent (or adjoint) of `bodies(x)` along `t`: the same map without its offsets.
fn bodies_tangent(t: &[f64]) -> [Body; 5] {
    let body = |k: usize| {
        let b = &t[7 * k..7 * k + 7];
        Body {
            position: [b[0], b[1], b[2]],
            velocity: [b[3], b[4], b[5]],
            mass: 0.2 * b[6],
        }
    };
    [body(0), body(1), body(2), body(3), body(4)]
}

/// The adjoint of `x` from that of `bodies(x)`: the transpose of `bodies_tangent`.
fn bodies_adjoint(adjoint: &[Body; 5]) -> Vec<f64> {
    adjoint
        .iter()
        .flat_map(|b| {
            let (p, v) = (b.position, b.velocity);
            [p[0], p[1], p[2], v[0], v[1], v[2], 0.2 * b.mass]
        })
        .collect()
}

#[test]
fn n_body_energy() {
    Case::new("energy", 35, |x| one(energy(&bodies(x))))
        .forward(|x, t| {
            let (v, d) = energy_jvp(&bodies(x), &bodies_tangent(t));
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, adjoint) = energy_vjp(&bodies(x), w[0]);
            (one(v), bodies_adjoint(&adjoint))
        })
        .grad(|x| {
            let (v, adjoint) = energy_grad(&bodies(x));
            (v, bodies_adjoint(&adjoint))
        })
        .check(73);
}

#[test]
fn kepler_newton_iterations() {
    Case::new("eccentric_anomaly", 2, |x| {
        one(eccentric_anomaly(x[0], x[1]))
    })
    .within(&[(0.1, 3.0), (0.0, 0.7)])
    .forward(|x, t| {
        let (v, d) = eccentric_anomaly_jvp(x[0], x[1], t[0], t[1]);
        (one(v), one(d))
    })
    .reverse(|x, w| {
        let (v, (a, b)) = eccentric_anomaly_vjp(x[0], x[1], w[0]);
        (one(v), vec![a, b])
    })
    .check(74);
}

#[test]
fn coulomb_through_option_helper() {
    Case::new("coulomb_energy", 16, |x| {
        one(coulomb_energy(&x[12..], &rows(&x[..12])))
    })
    .points(|rng| {
        let mut x = cluster(rng);
        x.extend((0..4).map(|_| rng.uniform(-1.0, 1.0)));
        x
    })
    .forward(|x, t| {
        let (v, d) = coulomb_energy_jvp(&x[12..], &rows(&x[..12]), &t[12..], &rows(&t[..12]));
        (one(v), one(d))
    })
    .reverse(|x, w| {
        let (v, (dq, dp)) = coulomb_energy_vjp(&x[12..], &rows(&x[..12]), w[0]);
        let mut all = flat(&dp);
        all.extend(dq);
        (one(v), all)
    })
    .grad(|x| {
        let (v, (dq, dp)) = coulomb_energy_grad(&x[12..], &rows(&x[..12]));
        let mut all = flat(&dp);
        all.extend(dq);
        (v, all)
    })
    .check(75);
    let pair = |x: &[f64]| ([x[0], x[1], x[2]], [x[3], x[4], x[5]]);
    Case::new("inverse_distance", 6, move |x| {
        let (a, b) = pair(x);
        one(inverse_distance(&a, &b).unwrap())
    })
    .points(|rng| cluster(rng)[..6].to_vec())
    .forward(move |x, t| {
        let ((a, b), (da, db)) = (pair(x), pair(t));
        let (v, d) = inverse_distance_jvp(&a, &b, &da, &db);
        (one(v.unwrap()), one(d.unwrap()))
    })
    .reverse(move |x, w| {
        let (a, b) = pair(x);
        let (v, (da, db)) = inverse_distance_vjp(&a, &b, Some(w[0]));
        (one(v.unwrap()), [da, db].concat())
    })
    .check(76);
}
