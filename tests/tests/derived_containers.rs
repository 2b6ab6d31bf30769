//! Slices, `Vec`s and arrays of derived structs as `#[grad]` parameters, in both modes: the
//! benchmarks game's n-body `energy` over `&[Body; 5]` as written there, and the same kind of
//! code over `&[Body]`, `&Vec<Body>`, `Vec<Body>` and `[Body; N]` by value, iterated with
//! `iter()`, `iter().enumerate()`, `for b in &bodies[i + 1..]`, indexed (`bodies[i].mass`,
//! `bi.position[0]`), taken apart by patterns and passed to other differentiated functions
//! (an element, a sub-slice, the whole container). A tangent has the parameter's type; an
//! adjoint is owned (`[Body; 5]` for `&[Body; 5]`, `Vec<Body>` for a slice or a `Vec`). Each
//! function is checked along random directions: forward against central differences, reverse
//! against forward (the dot-product identity), values bit for bit.

// Reverse mode takes these parameters through its engine on the AD-IR only.
// The functions spell out what users write (index loops over the bodies).
#![allow(clippy::needless_range_loop)]

mod common;

use ad_runtime::{checkpoint, forward, reverse, Differentiable};
use approx::assert_relative_eq;
use common::{check_user_type as check, Rng};

/// A body of the benchmarks game's n-body problem.
#[derive(Clone, Copy, Debug, PartialEq, Differentiable)]
pub struct Body {
    pub position: [f64; 3],
    pub velocity: [f64; 3],
    pub mass: f64,
}

impl Body {
    #[forward]
    #[reverse]
    pub fn kinetic(&self) -> f64 {
        let v = self.velocity;
        0.5 * self.mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    }
}

fn random_bodies(rng: &mut Rng, n: usize) -> Vec<Body> {
    (0..n)
        .map(|i| Body {
            // Apart along x, so that no two bodies come close.
            position: [
                2.0 * i as f64 + rng.uniform(-0.3, 0.3),
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
            ],
            velocity: [
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
            ],
            mass: rng.uniform(0.5, 2.0),
        })
        .collect()
}

fn five(rng: &mut Rng) -> [Body; 5] {
    random_bodies(rng, 5)
        .try_into()
        .expect("five bodies were made")
}

// ----- the benchmarks game's energy, as written there -----

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

#[test]
fn n_body_energy_over_an_array() {
    let mut rng = Rng::new(1);
    for _ in 0..3 {
        let bodies = five(&mut rng);
        check(
            |b: &[Body; 5], _| energy(b),
            |b, _, db, _| energy_jvp(b, db),
            |b, _, ct| {
                let (value, adjoint) = energy_vjp(b, ct);
                (value, (adjoint, 0.0))
            },
            &bodies,
            0.0,
            &mut rng,
        );
    }
    // Two bodies at rest, 2 apart: e = -m0 m1 / 2; the velocities' adjoints are zero.
    let mut bodies = [Body {
        position: [0.0; 3],
        velocity: [0.0; 3],
        mass: 0.0,
    }; 5];
    bodies[0].mass = 1.0;
    bodies[1].mass = 3.0;
    bodies[1].position = [2.0, 0.0, 0.0];
    for (k, body) in bodies.iter_mut().enumerate().skip(2) {
        body.position = [0.0, 10.0 * k as f64, 0.0];
    }
    let (value, adjoint): (f64, [Body; 5]) = energy_grad(&bodies);
    assert_eq!(value, energy(&bodies));
    assert_relative_eq!(adjoint[0].mass, -1.5, max_relative = 1e-12);
    assert_relative_eq!(adjoint[1].mass, -0.5, max_relative = 1e-12);
    // d/dx1 of -3 / |x1 - x0| at x1 - x0 = 2: 3 / 4.
    assert_relative_eq!(adjoint[1].position[0], 0.75, max_relative = 1e-12);
    assert_eq!(adjoint[0].velocity, [0.0; 3]);
    assert_eq!(energy::__AD_ENGINE, "ir");
}

// ----- slices, `Vec`s and arrays, by reference and by value -----

/// Kinetic energy over a slice, by index.
#[forward]
#[reverse]
pub fn kinetic_slice(#[grad] bodies: &[Body], scale: f64) -> f64 {
    let mut e = 0.0;
    for i in 0..bodies.len() {
        let v = bodies[i].velocity;
        e += scale * bodies[i].mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    }
    e
}

/// Over `&Vec<Body>`, with an iterator chain.
#[allow(clippy::ptr_arg)]
#[forward]
#[reverse]
pub fn moment(#[grad] bodies: &Vec<Body>, x: f64) -> f64 {
    bodies.iter().map(|b| b.mass * b.position[1]).sum::<f64>() * x
}

/// A `Vec` by value, consumed by its loop.
#[forward]
#[reverse]
pub fn consumed(#[grad] bodies: Vec<Body>, x: f64) -> f64 {
    let mut s = 0.0;
    for b in bodies {
        s += b.mass.sin() * b.velocity[2] * x;
    }
    s
}

/// An array by value, taken apart and indexed (the twin of a `Copy` body is `Copy`).
#[forward]
#[reverse]
pub fn pair(#[grad] bodies: [Body; 2], k: f64) -> f64 {
    let [a, b] = bodies;
    k * a.mass * b.mass + bodies[0].position[0] * bodies[1].velocity[1]
}

#[test]
fn slices_vecs_and_arrays() {
    let mut rng = Rng::new(2);
    for n in [1, 2, 4] {
        let bodies = random_bodies(&mut rng, n);
        check(
            |b: &Vec<Body>, x| kinetic_slice(b, x),
            |b, x, db, dx| kinetic_slice_jvp(b, x, db, dx),
            |b, x, ct| kinetic_slice_vjp(b, x, ct),
            &bodies,
            0.7,
            &mut rng,
        );
        check(moment, moment_jvp, moment_vjp, &bodies, -1.3, &mut rng);
        check(
            |b: &Vec<Body>, x| consumed(b.clone(), x),
            |b, x, db, dx| consumed_jvp(b.clone(), x, db.clone(), dx),
            |b, x, ct| consumed_vjp(b.clone(), x, ct),
            &bodies,
            0.4,
            &mut rng,
        );
    }
    let bodies: [Body; 2] = random_bodies(&mut rng, 2).try_into().expect("two");
    check(
        |b: &[Body; 2], k| pair(*b, k),
        |b, k, db, dk| pair_jvp(*b, k, *db, dk),
        |b, k, ct| pair_vjp(*b, k, ct),
        &bodies,
        0.9,
        &mut rng,
    );
    // The kinetic energy's gradient, exactly: m v per velocity, |v|^2 / 2 per mass.
    let bodies = random_bodies(&mut rng, 3);
    let (_, (adjoint, _)): (f64, (Vec<Body>, f64)) = kinetic_slice_grad(&bodies, 0.5);
    for (body, gradient) in bodies.iter().zip(&adjoint) {
        let v = body.velocity;
        assert_eq!(gradient.position, [0.0; 3]);
        assert_relative_eq!(
            gradient.mass,
            0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]),
            max_relative = 1e-12
        );
        for k in 0..3 {
            assert_relative_eq!(gradient.velocity[k], body.mass * v[k], max_relative = 1e-12);
        }
    }
    let engines = [
        kinetic_slice::__AD_ENGINE,
        moment::__AD_ENGINE,
        consumed::__AD_ENGINE,
        pair::__AD_ENGINE,
    ];
    assert!(engines.iter().all(|engine| *engine == "ir"), "{engines:?}");
}

// ----- calls: an element, a sub-slice, the whole container -----

#[forward]
#[reverse]
pub fn one(#[grad] b: &Body) -> f64 {
    b.mass * b.position[0] * b.position[0]
}

/// Passes each element, a sub-slice, a copy as a `Vec`, and the elements to a method by path.
#[forward]
#[reverse]
pub fn calls(#[grad] bodies: &[Body], x: f64) -> f64 {
    let mut s = Body::kinetic(&bodies[0]);
    for b in bodies {
        s += one(b) * x + Body::kinetic(b);
    }
    s + one(&bodies[0]) + kinetic_slice(&bodies[1..], x) + moment(&bodies.to_vec(), 2.0)
}

/// Passes the whole array on.
#[forward]
#[reverse]
pub fn scaled_energy(#[grad] bodies: &[Body; 5], x: f64) -> f64 {
    energy(bodies) * x + bodies[2].velocity[1]
}

#[test]
fn calls_with_elements_sub_slices_and_the_whole() {
    let mut rng = Rng::new(3);
    for n in [1, 3] {
        let bodies = random_bodies(&mut rng, n);
        check(
            |b: &Vec<Body>, x| calls(b, x),
            |b, x, db, dx| calls_jvp(b, x, db, dx),
            |b, x, ct| calls_vjp(b, x, ct),
            &bodies,
            0.7,
            &mut rng,
        );
    }
    let bodies = five(&mut rng);
    check(
        scaled_energy,
        scaled_energy_jvp,
        scaled_energy_vjp,
        &bodies,
        0.3,
        &mut rng,
    );
    assert_eq!(calls::__AD_ENGINE, "ir");
    assert_eq!(scaled_energy::__AD_ENGINE, "ir");
}

// ----- patterns, built bodies, and floats beside the bodies -----

#[forward]
#[reverse]
pub fn patterns(#[grad] bodies: &[Body], x: f64) -> f64 {
    let mut s = 0.0;
    for &Body { mass, velocity, .. } in bodies {
        s += mass * velocity[0] * x;
    }
    let Body { position, .. } = bodies[1];
    let built = Body {
        position,
        velocity: [x, x, x],
        mass: bodies[0].mass * 2.0,
    };
    s + built.mass * built.position[2] + one(&built)
}

#[forward]
#[reverse]
pub fn weighted(#[grad] bodies: &[Body], weights: &[f64]) -> f64 {
    let mut s = 0.0;
    for (b, w) in bodies.iter().zip(weights) {
        s += b.mass * w * b.position[0];
    }
    s
}

#[test]
fn patterns_built_bodies_and_floats_beside() {
    let mut rng = Rng::new(4);
    let bodies = random_bodies(&mut rng, 3);
    check(
        |b: &Vec<Body>, x| patterns(b, x),
        |b, x, db, dx| patterns_jvp(b, x, db, dx),
        |b, x, ct| patterns_vjp(b, x, ct),
        &bodies,
        0.7,
        &mut rng,
    );
    let weights = [0.5, -1.0, 2.0];
    let (value, (adjoint, dw)) = weighted_grad(&bodies, &weights);
    assert_eq!(value, weighted(&bodies, &weights));
    for k in 0..3 {
        assert_eq!(dw[k], bodies[k].mass * bodies[k].position[0]);
        assert_eq!(adjoint[k].mass, weights[k] * bodies[k].position[0]);
        assert_eq!(adjoint[k].velocity, [0.0; 3]);
    }
    let tangent: Vec<Body> = bodies.iter().map(|b| Body { mass: 1.0, ..*b }).collect();
    let (_, along_masses) = weighted_jvp(&bodies, &weights, &tangent, &[0.0; 3]);
    let expected: f64 = (0..3)
        .map(|k| weights[k] * (bodies[k].position[0] + bodies[k].mass * tangent[k].position[0]))
        .sum();
    assert_relative_eq!(along_masses, expected, max_relative = 1e-12);
}

// ----- checkpoints -----

/// A `#[checkpoint]` function keeps copies of its arguments: an array of `Copy` bodies by value.
#[checkpoint]
pub fn checkpointed(#[grad] bodies: [Body; 3], x: f64) -> f64 {
    bodies
        .iter()
        .map(|b| b.mass * b.velocity[0] * x)
        .sum::<f64>()
}

#[forward]
#[reverse]
pub fn calls_checkpointed(#[grad] bodies: &[Body], x: f64) -> f64 {
    let mut s = 0.0;
    for b in bodies {
        s += b.mass * b.position[1] * x;
    }
    s * checkpointed([bodies[0], bodies[1], bodies[2]], x)
}

#[test]
fn checkpointed_calls() {
    let mut rng = Rng::new(5);
    let bodies = random_bodies(&mut rng, 3);
    check(
        |b: &Vec<Body>, x| calls_checkpointed(b, x),
        |b, x, db, dx| calls_checkpointed_jvp(b, x, db, dx),
        |b, x, ct| calls_checkpointed_vjp(b, x, ct),
        &bodies,
        0.7,
        &mut rng,
    );
    let array = [bodies[0], bodies[1], bodies[2]];
    let (value, (adjoint, dx)) = checkpointed_grad(array, 0.7);
    assert_eq!(value, checkpointed(array, 0.7));
    assert_relative_eq!(
        adjoint[1].mass,
        bodies[1].velocity[0] * 0.7,
        max_relative = 1e-12
    );
    assert_relative_eq!(value, 0.7 * dx, max_relative = 1e-12);
}
