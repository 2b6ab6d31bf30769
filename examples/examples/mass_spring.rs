//! Differentiable physics: a chain of point masses joined by springs, hanging from a fixed
//! anchor, released in a horizontal line and swinging down under gravity with a little
//! damping. The chain is integrated with semi-implicit (symplectic) Euler for a few hundred
//! steps, and the loss is the squared distance of the last mass to a target point at the final
//! time. `#[reverse]` differentiates the whole simulation (a force function returning a `Vec`,
//! a stepper writing `&mut` slices, the driver loop): `loss_grad` gives the gradient of the
//! loss with respect to the springs' rest lengths (through their logarithms, which keep them
//! positive) and the initial velocity of the last mass. The gradient is checked against
//! central differences, then gradient descent moves the last mass onto the target.
//!
//! Run with `cargo run --release --example mass_spring`.

use ad_runtime::reverse;

/// Number of point masses (mass 0 is the fixed anchor).
const MASSES: usize = 6;
const MASS: f64 = 0.2;
const GRAVITY: f64 = 9.81;
const DAMPING: f64 = 0.3;
const STIFFNESS: f64 = 60.0;
const DT: f64 = 0.005;
const STEPS: usize = 300;

/// A spring between masses `a` and `b` (data: not differentiated).
#[derive(Clone, Copy, Debug)]
struct Spring {
    a: usize,
    b: usize,
    stiffness: f64,
}

/// The forces on every mass: gravity plus Hooke's law along each spring.
#[reverse]
fn forces(pos: &[[f64; 2]], rest: &[f64], springs: &[Spring]) -> Vec<[f64; 2]> {
    let mut f = vec![[0.0, -MASS * GRAVITY]; pos.len()];
    for (k, s) in springs.iter().enumerate() {
        let l0 = rest[k];
        let dx = pos[s.b][0] - pos[s.a][0];
        let dy = pos[s.b][1] - pos[s.a][1];
        let len = (dx * dx + dy * dy).sqrt();
        let tension = s.stiffness * (len - l0) / len;
        f[s.a][0] += tension * dx;
        f[s.a][1] += tension * dy;
        f[s.b][0] -= tension * dx;
        f[s.b][1] -= tension * dy;
    }
    f
}

/// One semi-implicit Euler step: velocities from the forces, then positions from the new
/// velocities. Mass 0 is pinned.
#[reverse]
fn step(pos: &mut [[f64; 2]], vel: &mut [[f64; 2]], rest: &[f64], springs: &[Spring]) {
    let f = forces(pos, rest, springs);
    for i in 1..pos.len() {
        for d in 0..2 {
            vel[i][d] += DT * (f[i][d] / MASS - DAMPING * vel[i][d]);
            pos[i][d] += DT * vel[i][d];
        }
    }
}

/// Simulates the chain and returns where the last mass ends up.
#[reverse]
fn simulate(rest: &[f64], v0: [f64; 2], springs: &[Spring]) -> [f64; 2] {
    let mut pos = Vec::new();
    for i in 0..MASSES {
        pos.push([0.3 * i as f64, 0.0]);
    }
    let mut vel = vec![[0.0; 2]; MASSES];
    vel[MASSES - 1] = v0;
    for _ in 0..STEPS {
        step(&mut pos, &mut vel, rest, springs);
    }
    pos[MASSES - 1]
}

/// The rest lengths from the controls: `0.3 e^t`, so they stay positive.
#[reverse]
fn rest_lengths(log_rest: &[f64]) -> Vec<f64> {
    log_rest.iter().map(|t| 0.3 * t.exp()).collect()
}

/// Squared distance of the last mass to the target at the final time, plus a small pull of
/// the rest lengths towards 0.3.
#[reverse]
fn loss(log_rest: &[f64], v0: [f64; 2], springs: &[Spring], #[no_grad] target: [f64; 2]) -> f64 {
    let rest = rest_lengths(log_rest);
    let end = simulate(&rest, v0, springs);
    let miss = (end[0] - target[0]).powi(2) + (end[1] - target[1]).powi(2);
    let pull: f64 = log_rest.iter().map(|t| t * t).sum();
    miss + 1e-4 * pull
}

/// The largest relative difference between the gradient and central differences.
fn check_gradient(log_rest: &[f64], v0: [f64; 2], springs: &[Spring], target: [f64; 2]) -> f64 {
    let (_, (d_log_rest, d_v0)) = loss_grad(log_rest, v0, springs, target);
    let exact: Vec<f64> = d_log_rest.iter().chain(&d_v0).copied().collect();
    let h = 1e-6;
    let mut worst: f64 = 0.0;
    for (k, exact) in exact.iter().enumerate() {
        let (mut plus, mut minus) = ((log_rest.to_vec(), v0), (log_rest.to_vec(), v0));
        if k < log_rest.len() {
            plus.0[k] += h;
            minus.0[k] -= h;
        } else {
            plus.1[k - log_rest.len()] += h;
            minus.1[k - log_rest.len()] -= h;
        }
        let numeric = (loss(&plus.0, plus.1, springs, target)
            - loss(&minus.0, minus.1, springs, target))
            / (2.0 * h);
        worst = worst.max((exact - numeric).abs() / exact.abs().max(1e-6));
    }
    worst
}

fn main() {
    let springs: Vec<Spring> = (0..MASSES - 1)
        .map(|i| Spring {
            a: i,
            b: i + 1,
            stiffness: STIFFNESS,
        })
        .collect();
    let target = [-0.3, -1.2];
    let mut log_rest = vec![0.0; MASSES - 1];
    let mut v0 = [0.0, 0.0];

    let end = simulate(&rest_lengths(&log_rest), v0, &springs);
    println!(
        "{MASSES} masses, {STEPS} steps of {DT} s: the last mass ends at ({:.4}, {:.4}), \
         target ({}, {}), loss {:.4e}",
        end[0],
        end[1],
        target[0],
        target[1],
        loss(&log_rest, v0, &springs, target)
    );
    let worst = check_gradient(&log_rest, v0, &springs, target);
    println!("gradient vs central differences: largest relative error {worst:.2e}");
    assert!(worst < 1e-6, "gradient mismatch: {worst}");

    // Gradient descent, the step size grown after each success and halved until the loss
    // decreases.
    let initial = loss(&log_rest, v0, &springs, target);
    let mut value = initial;
    let mut rate = 0.05;
    for iteration in 1..=200 {
        let (_, (d_log_rest, d_v0)) = loss_grad(&log_rest, v0, &springs, target);
        loop {
            let trial: Vec<f64> = log_rest
                .iter()
                .zip(&d_log_rest)
                .map(|(t, g)| t - rate * g)
                .collect();
            let trial_v0 = [v0[0] - rate * d_v0[0], v0[1] - rate * d_v0[1]];
            let trial_value = loss(&trial, trial_v0, &springs, target);
            if trial_value < value {
                (log_rest, v0, value) = (trial, trial_v0, trial_value);
                rate *= 1.5;
                break;
            }
            rate *= 0.5;
            assert!(rate > 1e-12, "no descent at iteration {iteration}");
        }
        if iteration % 20 == 0 {
            let end = simulate(&rest_lengths(&log_rest), v0, &springs);
            println!(
                "iteration {iteration:3}: loss {value:.4e}, last mass at ({:.4}, {:.4})",
                end[0], end[1]
            );
        }
    }
    println!(
        "rest lengths {:.4?}, initial velocity of the last mass {v0:.4?}",
        rest_lengths(&log_rest)
    );
    let end = simulate(&rest_lengths(&log_rest), v0, &springs);
    let miss = ((end[0] - target[0]).powi(2) + (end[1] - target[1]).powi(2)).sqrt();
    println!(
        "loss {initial:.4e} -> {value:.4e} (a factor {:.0}); the last mass misses the target by {miss:.1e}",
        initial / value
    );
    assert!(value < initial / 1000.0);
}
