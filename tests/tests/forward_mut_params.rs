//! `&mut` parameters in forward mode: `f_jvp` takes each one with its tangent as `&mut` too.
//! On entry the tangent holds the tangent of the initial contents; on return the primal holds
//! the final contents and the tangent their tangent. A function that returns nothing has a
//! `_jvp` that returns nothing.
//!
//! Each function is seen as a map from its inputs and the initial contents of its `&mut`
//! parameters to their final contents (and its result): the values are checked bit for bit
//! against the function itself, the tangents against central differences along random
//! directions (inputs and initial contents perturbed together), at several random points.

// The integrators spell out the usual ways of writing them on purpose.
#![allow(clippy::needless_range_loop, clippy::manual_memcpy)]

mod common;

use ad_runtime::forward;
use approx::assert_relative_eq;
use common::{central_difference, random_vector, Rng};

/// `jvp(x, t)` against `plain`: every output bit for bit, every output's tangent against a
/// central difference of `plain` along `t`, at `points` random points `x` from `sample`.
fn check(
    seed: u64,
    points: usize,
    sample: impl Fn(&mut Rng) -> Vec<f64>,
    plain: impl Fn(&[f64]) -> Vec<f64>,
    jvp: impl Fn(&[f64], &[f64]) -> (Vec<f64>, Vec<f64>),
) {
    let mut rng = Rng::new(seed);
    for _ in 0..points {
        let x = sample(&mut rng);
        let t = random_vector(&mut rng, x.len());
        let (value, tangent) = jvp(&x, &t);
        let expected = plain(&x);
        assert_eq!(value.len(), expected.len(), "outputs at {x:?}");
        for (v, e) in value.iter().zip(&expected) {
            assert_eq!(
                v.to_bits(),
                e.to_bits(),
                "value at {x:?}: {value:?} {expected:?}"
            );
        }
        assert_eq!(tangent.len(), expected.len(), "tangents at {x:?}");
        for (k, dk) in tangent.iter().enumerate() {
            let along = |h: f64| {
                let moved: Vec<f64> = x.iter().zip(&t).map(|(a, b)| a + h * b).collect();
                plain(&moved)[k]
            };
            let difference = central_difference(along, 0.0, 1e-4);
            assert_relative_eq!(*dk, difference, epsilon = 1e-7, max_relative = 1e-6);
        }
    }
}

fn uniform(rng: &mut Rng, ranges: &[(f64, f64)]) -> Vec<f64> {
    ranges.iter().map(|&(lo, hi)| rng.uniform(lo, hi)).collect()
}

// ----- right-hand sides -----

/// Lorenz: `p = [sigma, rho, beta]`.
#[forward]
fn lorenz(y: &[f64], p: &[f64], dydt: &mut [f64]) {
    dydt[0] = p[0] * (y[1] - y[0]);
    dydt[1] = y[0] * (p[1] - y[2]) - y[1];
    dydt[2] = y[0] * y[1] - p[2] * y[2];
}

/// Lorenz over arrays, its parameters as scalars.
#[forward]
fn lorenz_array(y: &[f64; 3], sigma: f64, rho: f64, beta: f64, dydt: &mut [f64; 3]) {
    let [x, v, z] = *y;
    dydt[0] = sigma * (v - x);
    dydt[1] = x * (rho - z) - v;
    dydt[2] = x * v - beta * z;
}

/// A damped oscillator `x'' = -k x - c x'`, written by `fill` and `+=`/`-=` on elements.
#[forward]
fn oscillator(y: &[f64], k: f64, c: f64, dydt: &mut [f64]) {
    dydt.fill(0.0);
    dydt[0] += y[1];
    dydt[1] -= k * y[0] + c * y[1];
}

/// Every element times `s`.
#[forward]
fn scale_by(v: &mut [f64], s: f64) {
    for x in v.iter_mut() {
        *x *= s;
    }
}

/// Lotka-Volterra, `p = [alpha, beta, delta, gamma, time scale]`: the rates are written, then
/// passed on to `scale_by`.
#[forward]
fn predator_prey(y: &[f64], p: &[f64], dydt: &mut [f64]) {
    let (prey, predator) = (y[0], y[1]);
    dydt[0] = p[0] * prey - p[1] * prey * predator;
    dydt[1] = p[2] * prey * predator - p[3] * predator;
    scale_by(dydt, p[4]);
}

// ----- integrators -----

/// Explicit Euler over `lorenz`; returns nothing.
#[forward]
fn euler_lorenz(y: &mut [f64], p: &[f64], dt: f64, steps: usize) {
    let mut k = vec![0.0; y.len()];
    for _ in 0..steps {
        lorenz(y, p, &mut k);
        for i in 0..y.len() {
            y[i] += dt * k[i];
        }
    }
}

/// Classic RK4 over the oscillator, `Vec` locals `k1..k4`; returns the final energy.
#[forward]
fn rk4_oscillator(y: &mut [f64], k: f64, c: f64, dt: f64, steps: usize) -> f64 {
    let n = y.len();
    let mut k1 = vec![0.0; n];
    let mut k2 = vec![0.0; n];
    let mut k3 = vec![0.0; n];
    let mut k4 = vec![0.0; n];
    let mut tmp = vec![0.0; n];
    for _ in 0..steps {
        oscillator(y, k, c, &mut k1);
        for i in 0..n {
            tmp[i] = y[i] + 0.5 * dt * k1[i];
        }
        oscillator(&tmp, k, c, &mut k2);
        for i in 0..n {
            tmp[i] = y[i] + 0.5 * dt * k2[i];
        }
        oscillator(&tmp, k, c, &mut k3);
        for i in 0..n {
            tmp[i] = y[i] + dt * k3[i];
        }
        oscillator(&tmp, k, c, &mut k4);
        for i in 0..n {
            y[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    0.5 * k * y[0] * y[0] + 0.5 * y[1] * y[1]
}

/// RK4 over `lorenz_array`: array locals `k1..k4`, the state a `&mut [f64; 3]`.
#[forward]
fn rk4_lorenz(y: &mut [f64; 3], sigma: f64, rho: f64, beta: f64, dt: f64, steps: usize) {
    let mut k1 = [0.0; 3];
    let mut k2 = [0.0; 3];
    let mut k3 = [0.0; 3];
    let mut k4 = [0.0; 3];
    for _ in 0..steps {
        lorenz_array(y, sigma, rho, beta, &mut k1);
        let mut tmp = *y;
        for i in 0..3 {
            tmp[i] += 0.5 * dt * k1[i];
        }
        lorenz_array(&tmp, sigma, rho, beta, &mut k2);
        let mut tmp = *y;
        for i in 0..3 {
            tmp[i] += 0.5 * dt * k2[i];
        }
        lorenz_array(&tmp, sigma, rho, beta, &mut k3);
        let mut tmp = *y;
        for i in 0..3 {
            tmp[i] += dt * k3[i];
        }
        lorenz_array(&tmp, sigma, rho, beta, &mut k4);
        for (i, v) in y.iter_mut().enumerate() {
            *v += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
}

/// RK4 over `predator_prey`: the stage state made by `copy_from_slice`, updated through
/// `iter_mut().zip(..)`; returns the final total population. The state is a `&mut Vec` on
/// purpose (passed on as a slice).
#[forward]
#[allow(clippy::ptr_arg)]
fn rk4_predator_prey(y: &mut Vec<f64>, p: &[f64], dt: f64, steps: usize) -> f64 {
    let mut k1 = vec![0.0; 2];
    let mut k2 = vec![0.0; 2];
    let mut k3 = vec![0.0; 2];
    let mut k4 = vec![0.0; 2];
    let mut stage = vec![0.0; 2];
    for _ in 0..steps {
        predator_prey(y, p, &mut k1);
        stage.copy_from_slice(y);
        for (s, k) in stage.iter_mut().zip(&k1) {
            *s += 0.5 * dt * k;
        }
        predator_prey(&stage, p, &mut k2);
        stage.copy_from_slice(y);
        for (s, k) in stage.iter_mut().zip(&k2) {
            *s += 0.5 * dt * k;
        }
        predator_prey(&stage, p, &mut k3);
        stage.copy_from_slice(y);
        for (s, k) in stage.iter_mut().zip(&k3) {
            *s += dt * k;
        }
        predator_prey(&stage, p, &mut k4);
        for i in 0..2 {
            y[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    y[0] + y[1]
}

// ----- other writes -----

/// An in-place step of a nonlinear map, then a `swap`.
#[forward]
fn step(x: &mut [f64], dt: f64) {
    let n = x.len();
    let old = x.to_vec();
    for i in 0..n {
        let left = if i == 0 { old[n - 1] } else { old[i - 1] };
        x[i] += dt * (left - old[i].sin());
    }
    x.swap(0, n - 1);
}

#[forward]
fn accumulate(total: &mut f64, x: f64) {
    *total += x * x;
}

/// `&mut f64`: passed on, and a local passed by `&mut`; a result beside it.
#[forward]
fn sums_of_squares(x: &[f64], total: &mut f64) -> f64 {
    for v in x {
        accumulate(total, *v);
    }
    let mut local = 0.0;
    for v in x {
        accumulate(&mut local, v.sin());
    }
    *total * local
}

/// `&mut Vec<f64>`: read, pushed, rewritten through `iter_mut`; a result beside it.
#[forward]
fn grow(history: &mut Vec<f64>, x: &[f64], rate: f64) -> f64 {
    let last = history[history.len() - 1];
    history.push(last * rate + x[0]);
    history.push(x[1].exp());
    for h in history.iter_mut() {
        *h = h.tanh() * rate;
    }
    history.iter().sum()
}

/// A `&mut` output beside a result: the norm returned, the normalized vector written.
#[forward]
fn normalize(v: &[f64], out: &mut [f64]) -> f64 {
    let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
    out.copy_from_slice(v);
    for o in out.iter_mut() {
        *o /= norm;
    }
    norm
}

// ----- tests -----

const LORENZ_STATE: [(f64, f64); 3] = [(-2.0, 2.0), (-2.0, 2.0), (10.0, 20.0)];
const LORENZ_PARAMS: [(f64, f64); 3] = [(8.0, 12.0), (20.0, 30.0), (2.0, 3.0)];

#[test]
fn lorenz_right_hand_side() {
    // x = y (3), p (3), initial contents of dydt (3): they are overwritten, so their tangent
    // does not reach the result.
    let ranges = [&LORENZ_STATE[..], &LORENZ_PARAMS, &[(-1.0, 1.0); 3]].concat();
    check(
        1,
        8,
        |rng| uniform(rng, &ranges),
        |x| {
            let mut dydt = x[6..9].to_vec();
            lorenz(&x[0..3], &x[3..6], &mut dydt);
            dydt
        },
        |x, t| {
            let (mut dydt, mut d_dydt) = (x[6..9].to_vec(), t[6..9].to_vec());
            lorenz_jvp(
                &x[0..3],
                &x[3..6],
                &mut dydt,
                &t[0..3],
                &t[3..6],
                &mut d_dydt,
            );
            (dydt, d_dydt)
        },
    );
}

#[test]
fn lorenz_over_arrays() {
    let ranges = [&LORENZ_STATE[..], &LORENZ_PARAMS].concat();
    check(
        2,
        8,
        |rng| uniform(rng, &ranges),
        |x| {
            let mut dydt = [7.0; 3];
            lorenz_array(&[x[0], x[1], x[2]], x[3], x[4], x[5], &mut dydt);
            dydt.to_vec()
        },
        |x, t| {
            let (mut dydt, mut d_dydt) = ([7.0; 3], [-1.0; 3]);
            #[allow(clippy::let_unit_value)]
            let returned: () = lorenz_array_jvp(
                &[x[0], x[1], x[2]],
                x[3],
                x[4],
                x[5],
                &mut dydt,
                &[t[0], t[1], t[2]],
                t[3],
                t[4],
                t[5],
                &mut d_dydt,
            );
            assert_eq!(returned, ());
            (dydt.to_vec(), d_dydt.to_vec())
        },
    );
}

#[test]
fn oscillator_and_predator_prey_right_hand_sides() {
    check(
        3,
        8,
        |rng| {
            uniform(
                rng,
                &[
                    (-1.0, 1.0),
                    (-1.0, 1.0),
                    (0.5, 4.0),
                    (0.0, 0.5),
                    (-1.0, 1.0),
                    (-1.0, 1.0),
                ],
            )
        },
        |x| {
            let mut dydt = x[4..6].to_vec();
            oscillator(&x[0..2], x[2], x[3], &mut dydt);
            dydt
        },
        |x, t| {
            let (mut dydt, mut d_dydt) = (x[4..6].to_vec(), t[4..6].to_vec());
            oscillator_jvp(
                &x[0..2],
                x[2],
                x[3],
                &mut dydt,
                &t[0..2],
                t[2],
                t[3],
                &mut d_dydt,
            );
            (dydt, d_dydt)
        },
    );
    let ranges = [
        (0.5, 2.0),
        (0.5, 2.0),
        (0.5, 1.5),
        (0.2, 1.0),
        (0.5, 1.5),
        (0.2, 1.0),
        (0.5, 2.0),
    ];
    check(
        4,
        8,
        |rng| uniform(rng, &ranges),
        |x| {
            let mut dydt = vec![0.0; 2];
            predator_prey(&x[0..2], &x[2..7], &mut dydt);
            dydt
        },
        |x, t| {
            let (mut dydt, mut d_dydt) = (vec![0.0; 2], vec![0.0; 2]);
            predator_prey_jvp(
                &x[0..2],
                &x[2..7],
                &mut dydt,
                &t[0..2],
                &t[2..7],
                &mut d_dydt,
            );
            (dydt, d_dydt)
        },
    );
}

#[test]
fn scale_in_place() {
    // The tangent of the initial contents comes in: d(s v) = ds v + s dv.
    let (mut v, mut dv) = (vec![1.0, -2.0, 3.0], vec![0.5, 0.0, -1.0]);
    scale_by_jvp(&mut v, 2.0, &mut dv, 0.25);
    assert_eq!(v, [2.0, -4.0, 6.0]);
    assert_eq!(dv, [0.25 + 1.0, -0.5, 0.75 - 2.0]);
    check(
        5,
        6,
        |rng| random_vector(rng, 5),
        |x| {
            let mut v = x[0..4].to_vec();
            scale_by(&mut v, x[4]);
            v
        },
        |x, t| {
            let (mut v, mut dv) = (x[0..4].to_vec(), t[0..4].to_vec());
            scale_by_jvp(&mut v, x[4], &mut dv, t[4]);
            (v, dv)
        },
    );
}

#[test]
fn euler_integrator_returning_nothing() {
    // The step is `0.01 x[6]`, so that a perturbation along a direction of length one stays
    // small beside it.
    let ranges = [&LORENZ_STATE[..], &LORENZ_PARAMS, &[(0.2, 0.6)]].concat();
    check(
        6,
        6,
        |rng| uniform(rng, &ranges),
        |x| {
            let mut y = x[0..3].to_vec();
            euler_lorenz(&mut y, &x[3..6], 0.01 * x[6], 40);
            y
        },
        |x, t| {
            let (mut y, mut dy) = (x[0..3].to_vec(), t[0..3].to_vec());
            #[allow(clippy::let_unit_value)]
            let nothing = euler_lorenz_jvp(
                &mut y,
                &x[3..6],
                0.01 * x[6],
                40,
                &mut dy,
                &t[3..6],
                0.01 * t[6],
            );
            assert_eq!(nothing, ());
            (y, dy)
        },
    );
}

#[test]
fn rk4_integrators() {
    // The oscillator: final state and energy. The steps are `0.01 x[..]` (see the Euler test).
    check(
        7,
        6,
        |rng| {
            uniform(
                rng,
                &[(-1.0, 1.0), (-1.0, 1.0), (0.5, 4.0), (0.0, 0.5), (1.0, 5.0)],
            )
        },
        |x| {
            let mut y = x[0..2].to_vec();
            let energy = rk4_oscillator(&mut y, x[2], x[3], 0.01 * x[4], 50);
            vec![y[0], y[1], energy]
        },
        |x, t| {
            let (mut y, mut dy) = (x[0..2].to_vec(), t[0..2].to_vec());
            let (energy, d_energy) = rk4_oscillator_jvp(
                &mut y,
                x[2],
                x[3],
                0.01 * x[4],
                50,
                &mut dy,
                t[2],
                t[3],
                0.01 * t[4],
            );
            (vec![y[0], y[1], energy], vec![dy[0], dy[1], d_energy])
        },
    );
    // Lorenz over arrays.
    let ranges = [&LORENZ_STATE[..], &LORENZ_PARAMS, &[(0.2, 0.6)]].concat();
    check(
        8,
        6,
        |rng| uniform(rng, &ranges),
        |x| {
            let mut y = [x[0], x[1], x[2]];
            rk4_lorenz(&mut y, x[3], x[4], x[5], 0.01 * x[6], 30);
            y.to_vec()
        },
        |x, t| {
            let (mut y, mut dy) = ([x[0], x[1], x[2]], [t[0], t[1], t[2]]);
            rk4_lorenz_jvp(
                &mut y,
                x[3],
                x[4],
                x[5],
                0.01 * x[6],
                30,
                &mut dy,
                t[3],
                t[4],
                t[5],
                0.01 * t[6],
            );
            (y.to_vec(), dy.to_vec())
        },
    );
    // Predator-prey over a `&mut Vec<f64>`.
    let ranges = [
        (0.5, 2.0),
        (0.5, 2.0),
        (0.5, 1.5),
        (0.2, 1.0),
        (0.5, 1.5),
        (0.2, 1.0),
        (0.5, 2.0),
        (1.0, 5.0),
    ];
    check(
        9,
        6,
        |rng| uniform(rng, &ranges),
        |x| {
            let mut y = x[0..2].to_vec();
            let total = rk4_predator_prey(&mut y, &x[2..7], 0.01 * x[7], 40);
            vec![y[0], y[1], total]
        },
        |x, t| {
            let (mut y, mut dy) = (x[0..2].to_vec(), t[0..2].to_vec());
            let (total, d_total) = rk4_predator_prey_jvp(
                &mut y,
                &x[2..7],
                0.01 * x[7],
                40,
                &mut dy,
                &t[2..7],
                0.01 * t[7],
            );
            (vec![y[0], y[1], total], vec![dy[0], dy[1], d_total])
        },
    );
}

#[test]
fn in_place_step() {
    check(
        10,
        8,
        |rng| {
            let mut x = random_vector(rng, 6);
            x[5] = rng.uniform(0.05, 0.5);
            x
        },
        |x| {
            let mut state = x[0..5].to_vec();
            step(&mut state, x[5]);
            state
        },
        |x, t| {
            let (mut state, mut d_state) = (x[0..5].to_vec(), t[0..5].to_vec());
            step_jvp(&mut state, x[5], &mut d_state, t[5]);
            (state, d_state)
        },
    );
}

#[test]
fn scalar_accumulation() {
    let (mut total, mut d_total) = (1.0, 0.5);
    accumulate_jvp(&mut total, 3.0, &mut d_total, 1.0);
    assert_eq!((total, d_total), (10.0, 6.5));
    check(
        11,
        8,
        |rng| random_vector(rng, 5),
        |x| {
            let mut total = x[4];
            let product = sums_of_squares(&x[0..4], &mut total);
            vec![total, product]
        },
        |x, t| {
            let (mut total, mut d_total) = (x[4], t[4]);
            let (product, d_product) =
                sums_of_squares_jvp(&x[0..4], &mut total, &t[0..4], &mut d_total);
            (vec![total, product], vec![d_total, d_product])
        },
    );
}

#[test]
fn vec_that_grows() {
    // The `Vec` grows by two: its tangent grows with it.
    let (mut history, mut d_history) = (vec![0.1, 0.2], vec![1.0, 0.0]);
    grow_jvp(
        &mut history,
        &[0.3, 0.4],
        0.9,
        &mut d_history,
        &[0.0, 0.0],
        0.0,
    );
    assert_eq!(history.len(), 4);
    assert_eq!(d_history.len(), 4);
    check(
        12,
        8,
        |rng| {
            let mut x = random_vector(rng, 6);
            x[5] = rng.uniform(0.5, 1.5);
            x
        },
        |x| {
            let mut history = x[0..3].to_vec();
            let sum = grow(&mut history, &x[3..5], x[5]);
            history.push(sum);
            history
        },
        |x, t| {
            let (mut history, mut d_history) = (x[0..3].to_vec(), t[0..3].to_vec());
            let (sum, d_sum) =
                grow_jvp(&mut history, &x[3..5], x[5], &mut d_history, &t[3..5], t[5]);
            history.push(sum);
            d_history.push(d_sum);
            (history, d_history)
        },
    );
}

#[test]
fn output_beside_a_result() {
    check(
        13,
        8,
        |rng| random_vector(rng, 8),
        |x| {
            let mut out = x[4..8].to_vec();
            let norm = normalize(&x[0..4], &mut out);
            out.push(norm);
            out
        },
        |x, t| {
            let (mut out, mut d_out) = (x[4..8].to_vec(), t[4..8].to_vec());
            let (norm, d_norm) = normalize_jvp(&x[0..4], &mut out, &t[0..4], &mut d_out);
            out.push(norm);
            d_out.push(d_norm);
            (out, d_out)
        },
    );
}

// ----- nesting -----

/// The derivative of the oscillator's final position along its initial position, by its
/// `_jvp` with `&mut` state and tangent inside a `#[forward]` function: differentiated again,
/// a second derivative.
#[forward]
fn position_sensitivity(x0: f64, k: f64) -> f64 {
    let mut y = vec![x0, 0.0];
    let mut dy = vec![1.0, 0.0];
    let _energy = rk4_oscillator_jvp(&mut y, k, 0.1, 0.02, 50, &mut dy, 0.0, 0.0, 0.0);
    dy[0]
}

fn final_position(x0: f64, k: f64) -> f64 {
    let mut y = vec![x0, 0.0];
    rk4_oscillator(&mut y, k, 0.1, 0.02, 50);
    y[0]
}

#[test]
fn forward_over_forward() {
    let mut rng = Rng::new(14);
    for _ in 0..6 {
        let (x0, k) = (rng.uniform(-1.0, 1.0), rng.uniform(0.5, 4.0));
        // First derivatives: the inner `_jvp` against central differences.
        let first = position_sensitivity(x0, k);
        let difference = central_difference(|x0| final_position(x0, k), x0, 1e-3);
        assert_relative_eq!(first, difference, epsilon = 1e-8, max_relative = 1e-7);
        // Second derivatives: along k, d/dk (d y / d x0), against central differences of the
        // first derivative.
        let (value, along_k) = position_sensitivity_jvp(x0, k, 0.0, 1.0);
        assert_eq!(value.to_bits(), first.to_bits());
        let difference = central_difference(|k| position_sensitivity(x0, k), k, 1e-3);
        assert_relative_eq!(along_k, difference, epsilon = 1e-8, max_relative = 1e-7);
        // The system is linear in the state: d/dx0 (d y / d x0) = 0.
        let (_, along_x0) = position_sensitivity_jvp(x0, k, 1.0, 0.0);
        assert_relative_eq!(along_x0, 0.0, epsilon = 1e-12);
    }
}

/// `-> ()` written out: the same as returning nothing.
#[forward]
#[allow(clippy::unused_unit)]
fn reset_to(v: &mut [f64], x: f64) -> () {
    for (i, e) in v.iter_mut().enumerate() {
        *e = x.powi(i as i32 + 1);
    }
}

#[test]
fn unit_written_out() {
    let (mut v, mut dv) = (vec![5.0; 3], vec![9.0; 3]);
    #[allow(clippy::let_unit_value)]
    let nothing = reset_to_jvp(&mut v, 2.0, &mut dv, 1.0);
    assert_eq!(nothing, ());
    // Overwritten: the tangent of the initial contents is gone.
    assert_eq!(v, [2.0, 4.0, 8.0]);
    assert_eq!(dv, [1.0, 4.0, 12.0]);
}

/// The mean subtracted in place, the length read as a float; the variance returned.
#[forward]
fn center(v: &mut [f64]) -> f64 {
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    v.iter_mut().for_each(|e| *e -= mean);
    let n = v.len();
    v.iter().map(|e| e * e).sum::<f64>() / n as f64
}

/// Rows and pairs behind `&mut`: `&mut [[f64; 2]]`, `&mut (f64, f64)`, `&mut Vec<Vec<f64>>`.
#[forward]
fn rotate_rows(rows: &mut [[f64; 2]], angle: &mut (f64, f64), grid: &mut Vec<Vec<f64>>) {
    let (c, s) = (angle.0.cos(), angle.0.sin());
    for row in rows.iter_mut() {
        let [x, y] = *row;
        row[0] = c * x - s * y;
        row[1] = s * x + c * y;
    }
    angle.0 += angle.1;
    angle.1 *= rows[0][0];
    grid[0][1] = grid[1][0] * c;
    grid.push(vec![s, angle.1]);
}

#[test]
fn lengths_read_as_floats() {
    check(
        15,
        8,
        |rng| random_vector(rng, 5),
        |x| {
            let mut v = x.to_vec();
            let variance = center(&mut v);
            v.push(variance);
            v
        },
        |x, t| {
            let (mut v, mut dv) = (x.to_vec(), t.to_vec());
            let (variance, d_variance) = center_jvp(&mut v, &mut dv);
            v.push(variance);
            dv.push(d_variance);
            (v, dv)
        },
    );
}

#[test]
fn rows_pairs_and_nested_vecs() {
    let flatten = |rows: &[[f64; 2]], angle: (f64, f64), grid: &[Vec<f64>]| {
        let mut out: Vec<f64> = rows.iter().flatten().copied().collect();
        out.extend([angle.0, angle.1]);
        out.extend(grid.iter().flatten());
        out
    };
    check(
        16,
        8,
        |rng| random_vector(rng, 10),
        |x| {
            let mut rows = [[x[0], x[1]], [x[2], x[3]]];
            let mut angle = (x[4], x[5]);
            let mut grid = vec![vec![x[6], x[7]], vec![x[8], x[9]]];
            rotate_rows(&mut rows, &mut angle, &mut grid);
            flatten(&rows, angle, &grid)
        },
        |x, t| {
            let mut rows = [[x[0], x[1]], [x[2], x[3]]];
            let mut angle = (x[4], x[5]);
            let mut grid = vec![vec![x[6], x[7]], vec![x[8], x[9]]];
            let mut d_rows = [[t[0], t[1]], [t[2], t[3]]];
            let mut d_angle = (t[4], t[5]);
            let mut d_grid = vec![vec![t[6], t[7]], vec![t[8], t[9]]];
            rotate_rows_jvp(
                &mut rows,
                &mut angle,
                &mut grid,
                &mut d_rows,
                &mut d_angle,
                &mut d_grid,
            );
            (
                flatten(&rows, angle, &grid),
                flatten(&d_rows, d_angle, &d_grid),
            )
        },
    );
}

// ----- more idioms -----

/// Data that a `&mut` argument makes a float: `s` starts from a data field.
struct Start {
    value: f64,
}

#[forward]
fn from_data(x: f64, start: &Start) -> f64 {
    let mut s = start.value;
    accumulate(&mut s, x);
    s
}

/// A `&mut usize` of data beside a `&mut f64`.
#[forward]
fn tally(count: &mut usize, total: &mut f64, x: f64) {
    *count += 1;
    *total += x;
}

#[forward]
fn mean(x: &[f64]) -> f64 {
    let mut count = 0;
    let mut total = 0.0;
    for v in x {
        tally(&mut count, &mut total, *v);
    }
    total / count as f64
}

/// A closure writing through the parameter; sub-slices, `split_at_mut`, `std::mem::swap`.
#[forward]
fn shuffle(x: &[f64], out: &mut [f64]) {
    let mut put = |i: usize, v: f64| out[i] += v * v;
    for i in 0..x.len() {
        put(i, x[i]);
    }
    out[..2].copy_from_slice(&x[1..3]);
    let (head, tail) = out.split_at_mut(1);
    head[0] *= tail[0];
    std::mem::swap(&mut head[0], &mut tail[1]);
}

/// Recursion passing the parameter on.
#[forward]
fn iterate_map(x: &mut [f64], n: usize) {
    if n == 0 {
        return;
    }
    x[0] = x[0].sin() + x[1];
    x[1] *= 0.9;
    iterate_map(x, n - 1);
}

/// A `Vec` cleared, extended, resized and truncated by the callee, from `Vec::new()`.
#[forward]
fn refill(k: &mut Vec<f64>, x: &[f64]) {
    k.clear();
    k.extend_from_slice(x);
    k.extend(x.iter().map(|v| v * v));
    k.resize(x.len() * 2 + 2, 1.5);
    k.truncate(x.len() * 2 + 1);
}

#[forward]
fn refilled_sum(x: &[f64]) -> f64 {
    let mut k = Vec::new();
    refill(&mut k, x);
    k.iter().map(|v| v.sin()).sum()
}

#[forward]
fn scale_f32(x: &mut [f32], s: f32) {
    for v in x.iter_mut() {
        *v *= s.exp();
    }
}

#[test]
fn data_made_float_and_counters() {
    let start = Start { value: 0.5 };
    let (s, ds) = from_data_jvp(3.0, &start, 1.0);
    assert_eq!((s, ds), (9.5, 6.0));
    check(
        17,
        6,
        |rng| random_vector(rng, 4),
        |x| vec![mean(x)],
        |x, t| {
            let (m, dm) = mean_jvp(x, t);
            (vec![m], vec![dm])
        },
    );
}

#[test]
fn closures_sub_slices_recursion_and_resizing() {
    check(
        18,
        8,
        |rng| random_vector(rng, 7),
        |x| {
            let mut out = x[3..7].to_vec();
            shuffle(&x[0..3], &mut out);
            out
        },
        |x, t| {
            let (mut out, mut d_out) = (x[3..7].to_vec(), t[3..7].to_vec());
            shuffle_jvp(&x[0..3], &mut out, &t[0..3], &mut d_out);
            (out, d_out)
        },
    );
    check(
        19,
        8,
        |rng| random_vector(rng, 2),
        |x| {
            let mut state = x.to_vec();
            iterate_map(&mut state, 6);
            state
        },
        |x, t| {
            let (mut state, mut d_state) = (x.to_vec(), t.to_vec());
            iterate_map_jvp(&mut state, 6, &mut d_state);
            (state, d_state)
        },
    );
    check(
        20,
        8,
        |rng| random_vector(rng, 3),
        |x| vec![refilled_sum(x)],
        |x, t| {
            let (v, dv) = refilled_sum_jvp(x, t);
            (vec![v], vec![dv])
        },
    );
    // The callee's `Vec` grows from two elements to seven: so does its tangent.
    let (mut k, mut dk) = (vec![9.0, 9.0], vec![1.0, 1.0]);
    refill_jvp(&mut k, &[1.0, 2.0, 3.0], &mut dk, &[1.0, 0.0, -1.0]);
    assert_eq!(k, [1.0, 2.0, 3.0, 1.0, 4.0, 9.0, 1.5]);
    assert_eq!(dk, [1.0, 0.0, -1.0, 2.0, 0.0, -6.0, 0.0]);
    // And shrinks from nine.
    let (mut k, mut dk) = (vec![9.0; 9], vec![1.0; 9]);
    refill_jvp(&mut k, &[1.0, 2.0, 3.0], &mut dk, &[1.0, 0.0, -1.0]);
    assert_eq!(k, [1.0, 2.0, 3.0, 1.0, 4.0, 9.0, 1.5]);
    assert_eq!(dk, [1.0, 0.0, -1.0, 2.0, 0.0, -6.0, 0.0]);
}

#[test]
fn single_precision() {
    let (mut x, mut dx) = (vec![1.0_f32, -2.0], vec![0.5_f32, 0.0]);
    scale_f32_jvp(&mut x, 0.0, &mut dx, 1.0);
    // d(x e^s) = dx e^s + x e^s ds at s = 0.
    assert_eq!(x, [1.0, -2.0]);
    assert_eq!(dx, [1.5, -2.0]);
}

/// A pendulum that advances itself (`&mut self`), one step calling another on `self`.
#[derive(Clone, Debug, PartialEq, ad_runtime::Differentiable)]
pub struct Pendulum {
    pub theta: f64,
    pub omega: f64,
}

impl Pendulum {
    #[forward]
    fn kick(&mut self, dt: f64, g_over_l: f64) {
        self.omega -= dt * g_over_l * self.theta.sin();
    }

    #[forward]
    pub fn step(&mut self, dt: f64, g_over_l: f64) {
        self.kick(dt, g_over_l);
        self.theta += dt * self.omega;
    }

    /// Changes `self` and returns a value.
    #[forward]
    pub fn energy_after(&mut self, dt: f64, g_over_l: f64) -> f64 {
        self.step(dt, g_over_l);
        0.5 * self.omega * self.omega - g_over_l * self.theta.cos()
    }
}

/// A driver building the pendulum and stepping it in a loop.
#[forward]
fn pendulum_angle(theta0: f64, omega0: f64, g_over_l: f64) -> f64 {
    let mut p = Pendulum {
        theta: theta0,
        omega: omega0,
    };
    for _ in 0..50 {
        p.step(0.02, g_over_l);
    }
    p.theta
}

#[test]
fn mut_self_methods_and_a_driver_stepping_a_local() {
    check(
        41,
        5,
        |rng| {
            vec![
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
                rng.uniform(5.0, 12.0),
            ]
        },
        |x| {
            let mut p = Pendulum {
                theta: x[0],
                omega: x[1],
            };
            let energy = p.energy_after(0.05, x[2]);
            vec![energy, p.theta, p.omega, pendulum_angle(x[0], x[1], x[2])]
        },
        |x, t| {
            let mut p = Pendulum {
                theta: x[0],
                omega: x[1],
            };
            let mut dp = Pendulum {
                theta: t[0],
                omega: t[1],
            };
            let (energy, d_energy) = p.energy_after_jvp(0.05, x[2], &mut dp, 0.0, t[2]);
            let (angle, d_angle) = pendulum_angle_jvp(x[0], x[1], x[2], t[0], t[1], t[2]);
            (
                vec![energy, p.theta, p.omega, angle],
                vec![d_energy, dp.theta, dp.omega, d_angle],
            )
        },
    );
}
