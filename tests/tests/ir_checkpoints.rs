//! Inner `#[checkpoint]`s that the IR engine takes and the previous engine refused: regions and
//! scheduled loops whose state holds containers (a `Vec` stepped element by element, a tuple),
//! and regions reading local containers. Each against the same function without checkpoints,
//! bit for bit, and against forward mode, with the schedules' counts.

use ad_runtime::checkpoint::{binomial_recomputations, counts, reset_counts, Counts};
use ad_runtime::{checkpoint, forward, reverse};
use approx::assert_relative_eq;

/// Explicit steps of the heat equation on a rod, with a source term: the state is a `Vec`
/// written element by element.
macro_rules! heat {
    ($name:ident $(, #[$schedule:meta])?) => {
        #[forward]
        #[reverse]
        fn $name(u0: &[f64], kappa: f64, steps: usize) -> f64 {
            let n = u0.len();
            let mut u = u0.to_vec();
            let mut next = vec![0.0; n];
            $(#[$schedule])?
            for _ in 0..steps {
                for j in 1..n - 1 {
                    next[j] =
                        u[j] + kappa * (u[j - 1] - 2.0 * u[j] + u[j + 1]) + 0.01 * u[j].sin();
                }
                for j in 1..n - 1 {
                    u[j] = next[j];
                }
            }
            let mut energy = 0.0;
            for j in 0..n {
                energy += u[j] * u[j];
            }
            energy
        }
    };
}

heat!(heat_unchecked);
heat!(heat_every, #[checkpoint(every = 4)]);
heat!(heat_binomial, #[checkpoint(binomial, snapshots = 3)]);

#[test]
fn a_vec_state_stepped_in_place() {
    assert_eq!(heat_every::__AD_ENGINE, "ir");
    assert_eq!(heat_binomial::__AD_ENGINE, "ir");
    let u0 = [0.0, 0.3, 0.9, 1.0, 0.4, 0.0];
    for steps in [0, 1, 3, 4, 5, 13] {
        let expected = heat_unchecked_grad(&u0, 0.2, steps);
        reset_counts();
        assert_eq!(
            heat_every_grad(&u0, 0.2, steps),
            expected,
            "steps = {steps}"
        );
        assert_eq!(
            counts(),
            Counts {
                advanced: 0,
                recorded: steps as u64
            }
        );
        reset_counts();
        assert_eq!(
            heat_binomial_grad(&u0, 0.2, steps),
            expected,
            "steps = {steps}"
        );
        assert_eq!(
            counts(),
            Counts {
                advanced: binomial_recomputations(steps, 3),
                recorded: steps as u64
            }
        );
        // Against forward mode, along each component of the initial state.
        let (_, (du0, dkappa)) = expected;
        for (k, &gradient) in du0.iter().enumerate() {
            let mut direction = [0.0; 6];
            direction[k] = 1.0;
            let (_, along) = heat_every_jvp(&u0, 0.2, steps, &direction, 0.0);
            assert_relative_eq!(gradient, along, epsilon = 1e-13, max_relative = 1e-12);
        }
        let (_, along) = heat_every_jvp(&u0, 0.2, steps, &[0.0; 6], 1.0);
        assert_relative_eq!(dkappa, along, epsilon = 1e-13, max_relative = 1e-12);
    }
}

/// A region that reads a local `Vec`, nested in a scheduled loop over a tuple state that
/// leaves early.
macro_rules! damped {
    ($name:ident $(, #[$schedule:meta], #[$region:meta])?) => {
        #[forward]
        #[reverse]
        fn $name(x: f64, y: f64, n: usize) -> f64 {
            let weights = vec![0.5, 0.25, x];
            let mut s = (x, y);
            let mut total = 0.0;
            $(#[$schedule])?
            for i in 0..n {
                let t = $(#[$region])?
                {
                    let w = weights[i % 3];
                    (s.0 * w + s.1).tanh()
                };
                s = (s.1 * 0.9 + t, t * y);
                total += t;
                if total > 4.0 {
                    break;
                }
            }
            total + s.0
        }
    };
}

damped!(damped_unchecked);
damped!(damped_binomial, #[checkpoint(binomial, snapshots = 3)], #[checkpoint]);
damped!(damped_every, #[checkpoint(every = 2)], #[checkpoint]);

#[test]
fn a_tuple_state_and_a_region_reading_a_local_vec() {
    assert_eq!(damped_binomial::__AD_ENGINE, "ir");
    assert_eq!(damped_every::__AD_ENGINE, "ir");
    for n in [0, 1, 2, 7, 40] {
        for (x, y) in [(0.3, 0.8), (1.2, -0.4)] {
            let expected = damped_unchecked_grad(x, y, n);
            assert_eq!(damped_binomial_grad(x, y, n), expected, "n = {n}");
            assert_eq!(damped_every_grad(x, y, n), expected, "n = {n}");
            let (value, (gx, gy)) = expected;
            assert_eq!(value, damped_unchecked(x, y, n));
            assert_relative_eq!(
                gx,
                damped_every_jvp(x, y, n, 1.0, 0.0).1,
                max_relative = 1e-12
            );
            assert_relative_eq!(
                gy,
                damped_every_jvp(x, y, n, 0.0, 1.0).1,
                max_relative = 1e-12
            );
        }
    }
}

/// Checkpoints on statements of every kind: an assignment, a compound assignment, a `push`,
/// and a region that gives a variable declared without a value its value.
macro_rules! statements {
    ($name:ident $(, #[$region:meta])?) => {
        #[forward]
        #[reverse]
        #[allow(clippy::vec_init_then_push)]
        fn $name(x: f64, y: f64) -> f64 {
            let z: f64;
            $(#[$region])?
            {
                z = (x * y).sin();
            }
            let mut s = z * x + y;
            $(#[$region])?
            s = (s * y).sin();
            $(#[$region])?
            s += (x * s).cos();
            let mut v = Vec::new();
            $(#[$region])?
            v.push(s * z);
            v.push(x);
            v[0] * v[1] + s
        }
    };
}

statements!(statements_unchecked);
statements!(statements_checked, #[checkpoint]);

#[test]
fn checkpointed_statements_of_every_kind() {
    assert_eq!(statements_checked::__AD_ENGINE, "ir");
    for (x, y) in [(0.3, 0.8), (1.2, -0.4)] {
        let expected = statements_unchecked_grad(x, y);
        assert_eq!(statements_checked_grad(x, y), expected);
        let (_, (gx, gy)) = expected;
        assert_relative_eq!(
            gx,
            statements_checked_jvp(x, y, 1.0, 0.0).1,
            max_relative = 1e-12
        );
        assert_relative_eq!(
            gy,
            statements_checked_jvp(x, y, 0.0, 1.0).1,
            max_relative = 1e-12
        );
    }
}

/// An ODE's rates as a slice parameter, read inside a scheduled loop and a region: each is
/// kept as an owned copy, which the region borrows again (refused before; the ODE example
/// copied the slice into a local first).
#[forward]
#[reverse]
fn decay_with_borrowed_rates(y0: &[f64], rates: &[f64], n: usize) -> f64 {
    let mut y = y0.to_vec();
    #[checkpoint(every = 4)]
    for _ in 0..n {
        y[0] = (rates[0] * y[0]).sin() + rates[1] * y[1];
        y[1] -= 0.1 * rates[1] * y[0];
    }
    let total = #[checkpoint]
    {
        rates[0] * y[0] + rates[1].exp() * y[1]
    };
    total * rates[1]
}

#[reverse]
fn decay_with_borrowed_rates_unchecked(y0: &[f64], rates: &[f64], n: usize) -> f64 {
    let mut y = y0.to_vec();
    for _ in 0..n {
        y[0] = (rates[0] * y[0]).sin() + rates[1] * y[1];
        y[1] -= 0.1 * rates[1] * y[0];
    }
    (rates[0] * y[0] + rates[1].exp() * y[1]) * rates[1]
}

#[test]
fn regions_read_slice_parameters_through_copies() {
    let (y0, rates) = ([0.4, -0.2], [1.3, 0.7]);
    for n in [0, 1, 7, 20] {
        let (value, (dy0, drates)) = decay_with_borrowed_rates_grad(&y0, &rates, n);
        let (unchecked, (uy0, urates)) = decay_with_borrowed_rates_unchecked_grad(&y0, &rates, n);
        assert_eq!(value.to_bits(), unchecked.to_bits());
        assert_eq!((&dy0, &drates), (&uy0, &urates));
        let (_, along) = decay_with_borrowed_rates_jvp(&y0, &rates, n, &[0.0, 0.0], &[1.0, 0.0]);
        assert_relative_eq!(along, drates[0], epsilon = 1e-13, max_relative = 1e-12);
    }
}

// A `#[checkpoint] fn` with parameters by shared reference keeps owned copies of them (the
// rates of an ODE step as a slice, an array and a `Vec`): rustc's E0521 before.

#[checkpoint]
fn decay_step(y: f64, rates: &[f64]) -> f64 {
    (rates[0] * y).sin() + rates[1] * y
}

#[checkpoint]
#[allow(clippy::ptr_arg)] // a `&Vec` parameter is one of the shapes under test
fn coupled_step(y: [f64; 2], rates: &[f64; 2], forcing: &Vec<f64>) -> [f64; 2] {
    [
        y[0] * rates[0] + forcing[0],
        (y[1] * rates[1]).cos() * forcing[1],
    ]
}

#[reverse]
fn plain_decay_step(y: f64, rates: &[f64]) -> f64 {
    (rates[0] * y).sin() + rates[1] * y
}

#[reverse]
#[allow(clippy::ptr_arg)]
fn plain_coupled_step(y: [f64; 2], rates: &[f64; 2], forcing: &Vec<f64>) -> [f64; 2] {
    [
        y[0] * rates[0] + forcing[0],
        (y[1] * rates[1]).cos() * forcing[1],
    ]
}

#[reverse]
fn checkpointed_with_borrowed_rates(p: &[f64]) -> f64 {
    let mut y = 1.0;
    for _ in 0..3 {
        y = decay_step(y, p);
    }
    let forcing = vec![p[0], p[1] * 2.0];
    let z = coupled_step([y, p[0]], &[p[1], y], &forcing);
    z[0] * z[1]
}

#[reverse]
fn unchecked_with_borrowed_rates(p: &[f64]) -> f64 {
    let mut y = 1.0;
    for _ in 0..3 {
        y = plain_decay_step(y, p);
    }
    let forcing = vec![p[0], p[1] * 2.0];
    let z = plain_coupled_step([y, p[0]], &[p[1], y], &forcing);
    z[0] * z[1]
}

#[test]
fn checkpointed_functions_keep_copies_of_borrowed_parameters() {
    for p in [[0.3, -0.8], [1.2, 0.4], [-0.5, 1.5]] {
        let (value, gradient) = checkpointed_with_borrowed_rates_grad(&p);
        let (unchecked_value, unchecked) = unchecked_with_borrowed_rates_grad(&p);
        assert_eq!(value.to_bits(), unchecked_value.to_bits());
        assert_eq!(gradient, unchecked);
        for k in 0..2 {
            let h = 1e-6;
            let (mut plus, mut minus) = (p, p);
            plus[k] += h;
            minus[k] -= h;
            let difference = (checkpointed_with_borrowed_rates(&plus)
                - checkpointed_with_borrowed_rates(&minus))
                / (2.0 * h);
            assert_relative_eq!(gradient[k], difference, epsilon = 1e-8, max_relative = 1e-7);
        }
    }
}

#[derive(Clone, Copy, ad_runtime::Differentiable)]
pub struct Rates {
    pub growth: f64,
    pub decay: f64,
}

/// A `#[grad]` value by reference read inside a scheduled loop: kept as a copy as a slice
/// parameter is, its adjoint still the parameter's.
#[reverse]
fn grows_by_borrowed_rates(#[grad] rates: &Rates, x: f64, n: usize) -> f64 {
    let mut s = x;
    #[checkpoint(every = 2)]
    for _ in 0..n {
        s = s * rates.growth - rates.decay * s * s;
    }
    s
}

#[reverse]
fn grows_by_borrowed_rates_unchecked(#[grad] rates: &Rates, x: f64, n: usize) -> f64 {
    let mut s = x;
    for _ in 0..n {
        s = s * rates.growth - rates.decay * s * s;
    }
    s
}

#[test]
fn grad_values_read_in_regions_through_copies() {
    let rates = Rates {
        growth: 1.1,
        decay: 0.05,
    };
    for n in [0, 1, 5, 8] {
        let (value, (d_rates, dx)) = grows_by_borrowed_rates_grad(&rates, 0.7, n);
        let (same, (u_rates, udx)) = grows_by_borrowed_rates_unchecked_grad(&rates, 0.7, n);
        assert_eq!(value.to_bits(), same.to_bits());
        assert_eq!(
            (d_rates.growth, d_rates.decay, dx),
            (u_rates.growth, u_rates.decay, udx)
        );
    }
}

/// A data slice read in a scheduled loop (it was refused: "cannot be kept"), kept as a copy.
#[reverse]
#[allow(clippy::needless_range_loop)] // the refused shape, as it was written
fn scaled_by_data_weights(x: f64, weights: &[usize]) -> f64 {
    let mut y = x;
    #[checkpoint(every = 4)]
    for i in 0..weights.len() {
        y = (y * weights[i] as f64).sin();
    }
    y
}

#[test]
fn data_slices_read_in_scheduled_loops() {
    let weights = [1, 3, 2, 5, 1, 2, 4];
    let (value, gradient) = scaled_by_data_weights_grad(0.3, &weights);
    let mut expected = (0.3, 1.0);
    for w in weights {
        let w = w as f64;
        expected = (
            (expected.0 * w).sin(),
            expected.1 * w * (expected.0 * w).cos(),
        );
    }
    assert_eq!(value, expected.0);
    assert_relative_eq!(gradient, expected.1, max_relative = 1e-14);
}
