//! The main example: differentiate ordinary Rust (loops, branches, a user struct) in forward
//! and reverse mode, print values and derivatives, and check them against central differences.
//!
//! ```text
//! cargo run --release --example quickstart
//! ```

use ad_runtime::{forward, reverse, Differentiable};

/// A damped oscillator's position after `steps` explicit Euler steps: a loop, branches and
/// mutable state, differentiated with respect to the stiffness `k` and damping `c`.
#[forward]
fn position(k: f64, c: f64, steps: usize) -> f64 {
    let dt = 0.01;
    let (mut x, mut v) = (1.0, 0.0);
    for _ in 0..steps {
        let a = -k * x - c * v;
        v += a * dt;
        x += v * dt;
        if x.abs() < 1e-12 {
            break;
        }
    }
    x
}

/// A smooth scalar function of two variables.
#[forward]
fn bump(x: f64, y: f64) -> f64 {
    (-(x * x + y * y)).exp() * (3.0 * x).sin() + x.hypot(y).ln_1p()
}

/// Its derivative along x, as a function that can itself be differentiated.
#[forward]
fn bump_dx(x: f64, y: f64) -> f64 {
    bump_jvp(x, y, 1.0, 0.0).1
}

/// A particle: a user type whose floats are differentiated (the derive gives it a twin over
/// any scalar type); `steps` is data.
#[derive(Clone, Debug, Differentiable)]
struct Particle {
    position: [f64; 2],
    velocity: [f64; 2],
    mass: f64,
    steps: usize,
}

/// Energy after a few steps in a central field: reverse mode gives the gradient with respect
/// to every float of the particle at once, as a `Particle`.
#[forward]
#[reverse]
fn energy(#[grad] p: &Particle, strength: f64) -> f64 {
    let [mut x, mut y] = p.position;
    let [mut vx, mut vy] = p.velocity;
    let dt = 0.05;
    for _ in 0..p.steps {
        let r3 = (x * x + y * y).sqrt().powi(3);
        vx -= dt * strength * x / (p.mass * r3);
        vy -= dt * strength * y / (p.mass * r3);
        x += dt * vx;
        y += dt * vy;
    }
    0.5 * p.mass * (vx * vx + vy * vy) - strength * p.mass / (x * x + y * y).sqrt()
}

fn central_difference(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-5;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

fn check(label: &str, exact: f64, reference: f64, tolerance: f64) {
    let error = (exact - reference).abs() / reference.abs().max(1.0);
    let verdict = if error <= tolerance { "ok" } else { "MISMATCH" };
    println!("  {label:<44} {exact:>+.10e}  (reference {reference:>+.10e}, {verdict})");
    assert!(error <= tolerance, "{label}: {exact} vs {reference}");
}

fn main() {
    let (k, c, steps) = (4.0, 0.3, 500);
    let (x, dx_dk) = position_jvp(k, c, steps, 1.0, 0.0);
    let (_, dx_dc) = position_jvp(k, c, steps, 0.0, 1.0);
    println!("position(k = {k}, c = {c}, {steps} steps) = {x:.10}");
    check(
        "d position / dk",
        dx_dk,
        central_difference(|k| position(k, c, steps), k),
        1e-6,
    );
    check(
        "d position / dc",
        dx_dc,
        central_difference(|c| position(k, c, steps), c),
        1e-6,
    );

    let (x, y) = (0.4, -0.7);
    let (value, along_x) = bump_jvp(x, y, 1.0, 0.0);
    println!("bump({x}, {y}) = {value:.10}");
    check(
        "d bump / dx",
        along_x,
        central_difference(|x| bump(x, y), x),
        1e-8,
    );
    // Forward over forward: the second derivative by nesting.
    let (_, second) = bump_dx_jvp(x, y, 1.0, 0.0);
    check(
        "d² bump / dx² (nested)",
        second,
        central_difference(|x| bump_dx(x, y), x),
        1e-6,
    );
    let (_, mixed) = bump_dx_jvp(x, y, 0.0, 1.0);
    check(
        "d² bump / dx dy (nested)",
        mixed,
        central_difference(|y| bump_dx(x, y), y),
        1e-6,
    );

    // Reverse mode over a user type: one gradient, checked float by float against differences.
    let particle = Particle {
        position: [1.0, 0.2],
        velocity: [0.1, 0.9],
        mass: 1.5,
        steps: 20,
    };
    let strength = 0.8;
    let (e, (gradient, d_strength)) = energy_grad(&particle, strength);
    println!("energy(particle, strength = {strength}) = {e:.10}");
    let moved = |update: fn(&mut Particle, f64)| {
        let particle = &particle;
        move |h: f64| {
            let mut q = particle.clone();
            update(&mut q, h);
            energy(&q, strength)
        }
    };
    check(
        "d energy / d position.x (reverse)",
        gradient.position[0],
        central_difference(moved(|q, h| q.position[0] += h), 0.0),
        1e-6,
    );
    check(
        "d energy / d velocity.y (reverse)",
        gradient.velocity[1],
        central_difference(moved(|q, h| q.velocity[1] += h), 0.0),
        1e-6,
    );
    check(
        "d energy / d mass (reverse)",
        gradient.mass,
        central_difference(moved(|q, h| q.mass += h), 0.0),
        1e-6,
    );
    check(
        "d energy / d strength (reverse)",
        d_strength,
        central_difference(|s| energy(&particle, s), strength),
        1e-6,
    );
    // Forward mode along a direction given as a `Particle`.
    let direction = Particle {
        position: [1.0, 0.0],
        velocity: [0.0, 0.0],
        mass: 0.0,
        steps: 20,
    };
    let (_, along) = energy_jvp(&particle, strength, &direction, 0.0);
    check(
        "d energy along position.x (forward)",
        along,
        gradient.position[0],
        1e-12,
    );
    println!("all derivatives agree");
}
