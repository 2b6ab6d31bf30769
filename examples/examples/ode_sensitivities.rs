//! Sensitivities of an ODE solution by reverse mode: a Lotka-Volterra predator-prey model
//! integrated by the classical Runge-Kutta method (RK4) for 400 steps, and a loss on the final
//! state (its squared distance to a target). `loss_grad` gives the derivatives with respect to
//! the four rate parameters and the two initial populations in one backward sweep.
//!
//! The same loss is differentiated three times: as written (reverse mode records every step),
//! and with `#[checkpoint]` on the time loop under the two schedules (`every = 20` keeps a
//! state every 20 steps, `binomial, snapshots = 8` at most 8 states at any time, re-running
//! steps in the backward sweep). The three gradients must agree bit for bit, and each entry
//! with a central difference; forward mode (`loss_jvp`) along one direction must agree with the
//! gradient dotted with it.
//!
//! ```text
//! cargo run --release --example ode_sensitivities
//! ```

use ad_runtime::checkpoint::{binomial_recomputations, counts, reset_counts};
use ad_runtime::{forward, reverse};

/// The right-hand side: prey `y[0]` and predators `y[1]`, with rates
/// `p = [alpha, beta, gamma, delta]`, written into `dydt`.
#[forward]
#[reverse]
fn lotka_volterra(y: &[f64], p: &[f64], dydt: &mut [f64]) {
    let (prey, predators) = (y[0], y[1]);
    dydt[0] = p[0] * prey - p[1] * prey * predators;
    dydt[1] = p[3] * prey * predators - p[2] * predators;
}

/// One classical Runge-Kutta step of size `dt`, in place.
#[forward]
#[reverse]
fn rk4_step(y: &mut [f64], p: &[f64], #[no_grad] dt: f64) {
    let n = y.len();
    let (mut k1, mut k2, mut k3, mut k4) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut stage = vec![0.0; n];
    lotka_volterra(y, p, &mut k1);
    for i in 0..n {
        stage[i] = y[i] + 0.5 * dt * k1[i];
    }
    lotka_volterra(&stage, p, &mut k2);
    for i in 0..n {
        stage[i] = y[i] + 0.5 * dt * k2[i];
    }
    lotka_volterra(&stage, p, &mut k3);
    for i in 0..n {
        stage[i] = y[i] + dt * k3[i];
    }
    lotka_volterra(&stage, p, &mut k4);
    for i in 0..n {
        y[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    }
}

/// The squared distance between the state after `steps` steps from `y0` and `target`.
#[forward]
#[reverse]
fn loss(y0: &[f64], p: &[f64], #[no_grad] dt: f64, steps: usize, #[no_grad] target: &[f64]) -> f64 {
    let mut y = y0.to_vec();
    for _ in 0..steps {
        rk4_step(&mut y, p, dt);
    }
    y.iter().zip(target).map(|(a, b)| (a - b).powi(2)).sum()
}

/// The same loss, the time loop checkpointed every 20 steps.
#[reverse]
fn loss_every(
    y0: &[f64],
    p: &[f64],
    #[no_grad] dt: f64,
    steps: usize,
    #[no_grad] target: &[f64],
) -> f64 {
    let mut y = y0.to_vec();
    #[checkpoint(every = 20)]
    for _ in 0..steps {
        rk4_step(&mut y, p, dt);
    }
    y.iter().zip(target).map(|(a, b)| (a - b).powi(2)).sum()
}

/// The same loss, the time loop checkpointed by the binomial schedule with 8 snapshots.
#[reverse]
fn loss_binomial(
    y0: &[f64],
    p: &[f64],
    #[no_grad] dt: f64,
    steps: usize,
    #[no_grad] target: &[f64],
) -> f64 {
    let mut y = y0.to_vec();
    #[checkpoint(binomial, snapshots = 8)]
    for _ in 0..steps {
        rk4_step(&mut y, p, dt);
    }
    y.iter().zip(target).map(|(a, b)| (a - b).powi(2)).sum()
}

/// The state after `steps` steps (the functions above are unchanged by the attributes).
fn final_state(y0: &[f64], p: &[f64], dt: f64, steps: usize) -> Vec<f64> {
    let mut y = y0.to_vec();
    for _ in 0..steps {
        rk4_step(&mut y, p, dt);
    }
    y
}

fn main() {
    let (dt, steps) = (0.025, 400);
    // The target is where the model with other rates and initial populations ends up.
    let target = final_state(&[1.0, 1.0], &[1.3, 0.9, 2.7, 1.1], dt, steps);
    let y0 = [1.2, 0.8];
    let p = [1.5, 1.0, 3.0, 1.0];
    println!(
        "Lotka-Volterra, {steps} RK4 steps of {dt}: final state {:.6?}, target {target:.6?}",
        final_state(&y0, &p, dt, steps)
    );

    let (value, (d_y0, d_p)) = loss_grad(&y0, &p, dt, steps, &target);
    assert_eq!(value, loss(&y0, &p, dt, steps, &target));
    println!("loss {value:.10}");

    reset_counts();
    let (value_every, (d_y0_every, d_p_every)) = loss_every_grad(&y0, &p, dt, steps, &target);
    let counts_every = counts();
    reset_counts();
    let (value_binomial, (d_y0_binomial, d_p_binomial)) =
        loss_binomial_grad(&y0, &p, dt, steps, &target);
    let counts_binomial = counts();
    // Checkpointing changes what is kept, not what is computed.
    assert_eq!((value_every, value_binomial), (value, value));
    assert_eq!((&d_y0_every, &d_p_every), (&d_y0, &d_p));
    assert_eq!((&d_y0_binomial, &d_p_binomial), (&d_y0, &d_p));
    assert_eq!(counts_every.recorded, steps as u64);
    assert_eq!(counts_binomial.recorded, steps as u64);
    assert_eq!(counts_binomial.advanced, binomial_recomputations(steps, 8));
    for (schedule, c) in [
        ("every = 20", counts_every),
        ("binomial, 8", counts_binomial),
    ] {
        println!(
            "{schedule}: the backward sweep re-ran {} steps to advance and {} to record",
            c.advanced, c.recorded
        );
    }

    // Every entry against a central difference.
    let names = ["prey(0)", "predators(0)", "alpha", "beta", "gamma", "delta"];
    let inputs: Vec<f64> = y0.iter().chain(&p).copied().collect();
    let gradients = [
        d_y0.iter().chain(&d_p).copied().collect::<Vec<f64>>(),
        d_y0_every.iter().chain(&d_p_every).copied().collect(),
        d_y0_binomial.iter().chain(&d_p_binomial).copied().collect(),
    ];
    let loss_at = |x: &[f64]| loss(&x[..2], &x[2..], dt, steps, &target);
    println!(
        "{:<14}{:>20}{:>20}{:>20}{:>20}{:>11}",
        "d loss / d", "no checkpoint", "every = 20", "binomial, 8", "central diff.", "rel. error"
    );
    let mut worst = 0.0_f64;
    for (k, name) in names.iter().enumerate() {
        let h = 1e-6 * inputs[k].abs().max(1.0);
        let (mut plus, mut minus) = (inputs.clone(), inputs.clone());
        plus[k] += h;
        minus[k] -= h;
        let difference = (loss_at(&plus) - loss_at(&minus)) / (2.0 * h);
        let mut error = 0.0_f64;
        for gradient in &gradients {
            error = error
                .max((gradient[k] - difference).abs() / gradient[k].abs().max(difference.abs()));
        }
        println!(
            "{name:<14}{:>20.12}{:>20.12}{:>20.12}{difference:>20.12}{error:>11.2e}",
            gradients[0][k], gradients[1][k], gradients[2][k]
        );
        assert!(
            error < 1e-6,
            "{name}: {} vs central difference {difference}",
            gradients[0][k]
        );
        worst = worst.max(error);
    }
    println!("largest relative error against central differences: {worst:.2e}");

    // Forward mode along one direction against the gradient dotted with it.
    let (dy0, dp) = ([0.3, -0.2], [1.0, -0.5, 0.25, 0.75]);
    let (_, tangent) = loss_jvp(&y0, &p, dt, steps, &target, &dy0, &dp);
    let dotted: f64 = d_y0
        .iter()
        .zip(&dy0)
        .chain(d_p.iter().zip(&dp))
        .map(|(g, d)| g * d)
        .sum();
    let error = (tangent - dotted).abs() / dotted.abs();
    println!("along {dy0:?}, {dp:?}: forward {tangent:.12}, gradient . direction {dotted:.12}, relative error {error:.2e}");
    assert!(error < 1e-12);
}
