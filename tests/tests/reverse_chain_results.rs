//! Iterator chains whose result is the function's (its tail, a `return`, a `let` returned) in
//! reverse mode: a `sum` with no turbofish inside a `map` closure has the type rustc infers
//! for it, from the `Vec` collected, the function's result or the closure's written result;
//! `windows` and `rev` sources. Each is checked at a point worked by hand, then against
//! forward mode and central differences at random points (its `Vec` result weighted to one
//! float).

mod common;

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;
use common::check_slice_function_at_random_points;

/// The corpus's FIR filter, as written.
#[forward]
#[reverse]
fn fir(taps: &[f64], signal: &[f64]) -> Vec<f64> {
    signal
        .windows(taps.len())
        .map(|w| w.iter().zip(taps.iter().rev()).map(|(a, b)| a * b).sum())
        .collect()
}

/// Finite-difference slopes, by `windows(2)`.
#[forward]
#[reverse]
fn slopes(x: &[f64], dt: f64) -> Vec<f64> {
    x.windows(2).map(|w| (w[1] - w[0]) / dt).collect()
}

/// The elements in reverse order, scaled.
#[forward]
#[reverse]
fn mirrored(x: &[f64], k: f64) -> Vec<f64> {
    x.iter().rev().map(|v| k * v * v).collect()
}

/// One output of a convolution: one slice against the other reversed, the `sum` typed by the
/// function's result.
#[forward]
#[reverse]
fn flipped_dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y.iter().rev()).map(|(a, b)| a * b).sum()
}

/// A moving average, collected into a `let` with its type and then returned.
#[forward]
#[reverse]
fn moving_average(x: &[f64]) -> Vec<f64> {
    let averages: Vec<f64> = x
        .windows(3)
        .map(|w| w.iter().map(|v| v / 3.0).sum())
        .collect();
    averages
}

/// A chain returned early, its `sum` typed by the function's result; and a closure that
/// writes its result type.
#[forward]
#[reverse]
fn energy(x: &[f64], k: f64) -> f64 {
    if k < 0.0 {
        return x.iter().map(|v| k * v * v).sum();
    }
    let pair_sums = |w: &[f64]| -> f64 { w.iter().sum() };
    x.windows(2)
        .map(|w| pair_sums(w) * k)
        .fold(0.0, |a, s| a + s * s)
}

/// The energy of the last window, by a `fold` whose closure ends in a `sum` typed by the
/// fold's (the function's result).
#[forward]
#[reverse]
fn last_window_energy(x: &[f64]) -> f64 {
    x.windows(2).fold(0.0, |_, w| w.iter().map(|v| v * v).sum())
}

/// Chains in the branches of an `if` and a `match`, typed by a `let`'s type and by the
/// function's result.
#[forward]
#[reverse]
fn by_norm(x: &[f64], norm: usize) -> f64 {
    let scale: f64 = if norm == 0 {
        1.0
    } else {
        x.iter().map(|v| v.abs()).sum()
    };
    match norm {
        0 | 1 => x.iter().map(|v| v * scale).sum(),
        _ => x.windows(2).map(|w| w[0] * w[1]).sum::<f64>() / scale,
    }
}

const WEIGHTS: [f64; 8] = [0.7, -1.3, 0.4, 1.1, -0.6, 0.9, 1.5, -0.2];

/// A `Vec` result as one float, for the checks of a function of one slice.
fn weighted(values: &[f64]) -> f64 {
    values.iter().zip(WEIGHTS).map(|(v, w)| v * w).sum()
}

/// The cotangent of a `Vec` result that `weighted` makes of it, times `c`.
fn cotangent(len: usize, c: f64) -> Vec<f64> {
    WEIGHTS[..len].iter().map(|w| w * c).collect()
}

fn joined(a: Vec<f64>, b: Vec<f64>) -> Vec<f64> {
    a.into_iter().chain(b).collect()
}

#[test]
fn taken_by_the_ir_engine() {
    for engine in [
        fir::__AD_ENGINE,
        slopes::__AD_ENGINE,
        mirrored::__AD_ENGINE,
        flipped_dot::__AD_ENGINE,
        moving_average::__AD_ENGINE,
        energy::__AD_ENGINE,
        last_window_energy::__AD_ENGINE,
        by_norm::__AD_ENGINE,
    ] {
        assert_eq!(engine, "ir");
    }
}

#[test]
fn fir_as_written() {
    let (value, (d_taps, d_signal)) =
        fir_vjp(&[0.5, -1.0, 2.0], &[1.0, 2.0, 3.0, 4.0], vec![1.0, -2.0]);
    assert_relative_eq!(value[..], [1.5, 3.0][..], max_relative = 1e-15);
    assert_relative_eq!(d_taps[..], [-5.0, -4.0, -3.0][..], max_relative = 1e-15);
    assert_relative_eq!(
        d_signal[..],
        [2.0, -5.0, 2.5, -1.0][..],
        max_relative = 1e-15
    );
    check_slice_function_at_random_points(
        |x| weighted(&fir(&x[..3], &x[3..])),
        |x, t| {
            let (value, tangent) = fir_jvp(&x[..3], &x[3..], &t[..3], &t[3..]);
            (weighted(&value), weighted(&tangent))
        },
        |x, c| {
            let (value, (d_taps, d_signal)) = fir_vjp(&x[..3], &x[3..], cotangent(4, c));
            (weighted(&value), joined(d_taps, d_signal))
        },
        9,
        1,
    );
}

#[test]
fn windows_of_two() {
    let (value, (dx, d_dt)) = slopes_vjp(&[1.0, 4.0, 9.0], 0.5, vec![1.0, 1.0]);
    assert_relative_eq!(value[..], [6.0, 10.0][..], max_relative = 1e-15);
    assert_relative_eq!(dx[..], [-2.0, 0.0, 2.0][..], max_relative = 1e-15);
    assert_relative_eq!(d_dt, -32.0, max_relative = 1e-15);
    check_slice_function_at_random_points(
        |x| weighted(&slopes(&x[1..], x[0] + 2.0)),
        |x, t| {
            let (value, tangent) = slopes_jvp(&x[1..], x[0] + 2.0, &t[1..], t[0]);
            (weighted(&value), weighted(&tangent))
        },
        |x, c| {
            let (value, (dx, d_dt)) = slopes_vjp(&x[1..], x[0] + 2.0, cotangent(4, c));
            (weighted(&value), joined(vec![d_dt], dx))
        },
        6,
        2,
    );
}

#[test]
fn reversed_chains() {
    let (value, (dx, dk)) = mirrored_vjp(&[1.0, 2.0, 3.0], 2.0, vec![1.0, 0.0, -1.0]);
    assert_relative_eq!(value[..], [18.0, 8.0, 2.0][..], max_relative = 1e-15);
    assert_relative_eq!(dx[..], [-4.0, 0.0, 12.0][..], max_relative = 1e-15);
    assert_relative_eq!(dk, 8.0, max_relative = 1e-15);
    check_slice_function_at_random_points(
        |x| weighted(&mirrored(&x[1..], x[0])),
        |x, t| {
            let (value, tangent) = mirrored_jvp(&x[1..], x[0], &t[1..], t[0]);
            (weighted(&value), weighted(&tangent))
        },
        |x, c| {
            let (value, (dx, dk)) = mirrored_vjp(&x[1..], x[0], cotangent(5, c));
            (weighted(&value), joined(vec![dk], dx))
        },
        6,
        3,
    );

    let (value, (dx, dy)) = flipped_dot_vjp(&[1.0, 2.0, 3.0], &[0.5, -1.0, 2.0], 1.0);
    assert_relative_eq!(value, 2.0 - 2.0 + 1.5, max_relative = 1e-15);
    assert_relative_eq!(dx[..], [2.0, -1.0, 0.5][..], max_relative = 1e-15);
    assert_relative_eq!(dy[..], [3.0, 2.0, 1.0][..], max_relative = 1e-15);
    check_slice_function_at_random_points(
        |x| flipped_dot(&x[..3], &x[3..]),
        |x, t| flipped_dot_jvp(&x[..3], &x[3..], &t[..3], &t[3..]),
        |x, c| {
            let (value, (dx, dy)) = flipped_dot_vjp(&x[..3], &x[3..], c);
            (value, joined(dx, dy))
        },
        6,
        4,
    );
}

#[test]
fn collected_into_a_let_then_returned() {
    let (value, dx) = moving_average_vjp(&[3.0, 6.0, 9.0, 3.0], vec![3.0, -3.0]);
    assert_relative_eq!(value[..], [6.0, 6.0][..], max_relative = 1e-15);
    assert_relative_eq!(dx[..], [1.0, 0.0, 0.0, -1.0][..], epsilon = 1e-15);
    check_slice_function_at_random_points(
        |x| weighted(&moving_average(x)),
        |x, t| {
            let (value, tangent) = moving_average_jvp(x, t);
            (weighted(&value), weighted(&tangent))
        },
        |x, c| {
            let (value, dx) = moving_average_vjp(x, cotangent(5, c));
            (weighted(&value), dx)
        },
        7,
        5,
    );
}

#[test]
fn returned_early_and_closure_result_types() {
    let (value, (dx, dk)) = energy_grad(&[1.0, 2.0, 3.0], -2.0);
    assert_relative_eq!(value, -28.0, max_relative = 1e-15);
    assert_relative_eq!(dx[..], [-4.0, -8.0, -12.0][..], max_relative = 1e-15);
    assert_relative_eq!(dk, 14.0, max_relative = 1e-15);
    // (k (1 + 2))^2 + (k (2 + 3))^2 at k = 0.5.
    let (value, (dx, dk)) = energy_grad(&[1.0, 2.0, 3.0], 0.5);
    assert_relative_eq!(value, 8.5, max_relative = 1e-15);
    assert_relative_eq!(dx[..], [1.5, 4.0, 2.5][..], max_relative = 1e-15);
    assert_relative_eq!(dk, 34.0, max_relative = 1e-15);
    // With k = -1 - x0², the early return; with k = 1 + x0², the rest.
    check_slice_function_at_random_points(
        |x| energy(&x[1..], -1.0 - x[0] * x[0]),
        |x, t| energy_jvp(&x[1..], -1.0 - x[0] * x[0], &t[1..], -2.0 * x[0] * t[0]),
        |x, c| {
            let (value, (dx, dk)) = energy_vjp(&x[1..], -1.0 - x[0] * x[0], c);
            (value, joined(vec![-2.0 * x[0] * dk], dx))
        },
        5,
        6,
    );
    check_slice_function_at_random_points(
        |x| energy(&x[1..], 1.0 + x[0] * x[0]),
        |x, t| energy_jvp(&x[1..], 1.0 + x[0] * x[0], &t[1..], 2.0 * x[0] * t[0]),
        |x, c| {
            let (value, (dx, dk)) = energy_vjp(&x[1..], 1.0 + x[0] * x[0], c);
            (value, joined(vec![2.0 * x[0] * dk], dx))
        },
        5,
        7,
    );
}

#[test]
fn branches_typed_by_what_they_give() {
    let x = [1.0, -2.0, 3.0];
    let (value, dx) = by_norm_grad(&x, 0);
    assert_relative_eq!(value, 2.0, max_relative = 1e-15);
    assert_relative_eq!(dx[..], [1.0, 1.0, 1.0][..], max_relative = 1e-15);
    let (value, dx) = by_norm_grad(&x, 1);
    assert_relative_eq!(value, 12.0, max_relative = 1e-15);
    assert_relative_eq!(dx[..], [8.0, 4.0, 8.0][..], max_relative = 1e-15);
    let (value, dx) = by_norm_grad(&x, 2);
    assert_relative_eq!(value, -4.0 / 3.0, max_relative = 1e-15);
    assert_relative_eq!(
        dx[..],
        [-1.0 / 9.0, 4.0 / 9.0, -1.0 / 9.0][..],
        max_relative = 1e-14
    );
    check_slice_function_at_random_points(
        |x| by_norm(x, 1),
        |x, t| by_norm_jvp(x, 1, t),
        |x, c| by_norm_vjp(x, 1, c),
        4,
        8,
    );
    check_slice_function_at_random_points(
        |x| by_norm(x, 2),
        |x, t| by_norm_jvp(x, 2, t),
        |x, c| by_norm_vjp(x, 2, c),
        4,
        9,
    );
}

#[test]
fn fold_closures_typed_by_the_fold() {
    let (value, dx) = last_window_energy_grad(&[1.0, 2.0, 3.0]);
    assert_relative_eq!(value, 13.0, max_relative = 1e-15);
    assert_relative_eq!(dx[..], [0.0, 4.0, 6.0][..], max_relative = 1e-15);
    check_slice_function_at_random_points(
        last_window_energy,
        last_window_energy_jvp,
        last_window_energy_vjp,
        5,
        10,
    );
}
