//! Iterators as people chain them, in reverse mode: `rev`, `skip`, `take`, `step_by` of
//! container iterators, `windows`, `chunks`, `chunks_exact`, sub-slices (`&x[1..]`,
//! `split_at`), in `for` loops and in reductions. Each function is checked against forward
//! mode, against central differences and by the dot-product identity, at random points of
//! several lengths (also lengths where a window or a chunk does not fit).

mod common;

use ad_runtime::{forward, reverse};
use common::check_slice_function_at_random_points;

#[forward]
#[reverse]
fn reversed_weights(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in x.iter().rev().enumerate() {
        s += (i as f64 + 1.0) * v * v;
    }
    s
}

#[forward]
#[reverse]
fn horner_backwards(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for &c in x.iter().rev() {
        s = s * 0.7 + c.sin();
    }
    s
}

#[forward]
#[reverse]
fn squared_steps(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(2) {
        s += (w[1] - w[0]).powi(2);
    }
    s
}

#[forward]
#[reverse]
fn squared_steps_chained(x: &[f64]) -> f64 {
    x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum()
}

#[forward]
#[reverse]
fn second_differences(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, w) in x.windows(3).enumerate() {
        let d = w[0] - 2.0 * w[1] + w[2];
        s += (i as f64 + 1.0) * d * d;
    }
    s
}

#[forward]
#[reverse]
fn chunk_norms(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for c in x.chunks(2) {
        s += c.iter().map(|v| v * v).sum::<f64>().sqrt();
    }
    s
}

#[forward]
#[reverse]
fn exact_chunk_products(x: &[f64]) -> f64 {
    x.chunks_exact(3).map(|c| c[0] * c[1] + c[2]).sum()
}

#[forward]
#[reverse]
fn tail_sines(x: &[f64]) -> f64 {
    x.iter().skip(1).map(|v| v.sin()).sum()
}

#[forward]
#[reverse]
fn head_sines(x: &[f64]) -> f64 {
    x.iter().take(2).map(|v| v.sin()).sum()
}

#[forward]
#[reverse]
fn every_other(x: &[f64]) -> f64 {
    x.iter().step_by(2).map(|v| v.sin() * v).sum::<f64>()
        + x.iter().skip(1).step_by(2).copied().product::<f64>()
}

#[forward]
#[reverse]
fn lagged_products(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in x.iter().enumerate().skip(1) {
        s += v * x[i - 1];
    }
    s
}

#[forward]
#[reverse]
fn shifted_zip(x: &[f64]) -> f64 {
    x.iter()
        .zip(x.iter().skip(1))
        .map(|(a, b)| (b - a).exp())
        .sum()
}

#[forward]
#[reverse]
fn sub_slices(x: &[f64]) -> f64 {
    let a = &x[1..];
    let b = &x[..x.len() - 1];
    a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>() + x[1..].iter().sum::<f64>()
}

#[forward]
#[reverse]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b.iter()).map(|(x, y)| x * y).sum()
}

#[forward]
#[reverse]
fn halves_dot(x: &[f64]) -> f64 {
    let half = x.len() / 2;
    dot(&x[..half], &x[half..2 * half]) + x[half..].iter().map(|v| v.cos()).sum::<f64>()
}

#[forward]
#[reverse]
fn local_buffer_windows(x: &[f64]) -> f64 {
    let y: Vec<f64> = x.iter().map(|v| v.tanh()).collect();
    let mut s = 0.0;
    for w in y.windows(2).rev() {
        s = 0.5 * s + w[0] * w[1];
    }
    s + dot(&y[1..], &y[..y.len() - 1])
}

/// Each function at five random points of each length.
macro_rules! checked {
    ($($name:ident => $jvp:ident, $vjp:ident;)*) => {$(
        #[test]
        fn $name() {
            for n in [1, 2, 3, 5, 7, 8] {
                check_slice_function_at_random_points(super::$name, super::$jvp, super::$vjp, n, n as u64 * 31 + 7);
            }
        }
    )*};
}

mod against_forward_mode_and_central_differences {
    use super::check_slice_function_at_random_points;

    checked! {
        reversed_weights => reversed_weights_jvp, reversed_weights_vjp;
        horner_backwards => horner_backwards_jvp, horner_backwards_vjp;
        squared_steps => squared_steps_jvp, squared_steps_vjp;
        squared_steps_chained => squared_steps_chained_jvp, squared_steps_chained_vjp;
        second_differences => second_differences_jvp, second_differences_vjp;
        chunk_norms => chunk_norms_jvp, chunk_norms_vjp;
        exact_chunk_products => exact_chunk_products_jvp, exact_chunk_products_vjp;
        tail_sines => tail_sines_jvp, tail_sines_vjp;
        head_sines => head_sines_jvp, head_sines_vjp;
        every_other => every_other_jvp, every_other_vjp;
        lagged_products => lagged_products_jvp, lagged_products_vjp;
        shifted_zip => shifted_zip_jvp, shifted_zip_vjp;
        sub_slices => sub_slices_jvp, sub_slices_vjp;
        halves_dot => halves_dot_jvp, halves_dot_vjp;
        local_buffer_windows => local_buffer_windows_jvp, local_buffer_windows_vjp;
        normalized_in_place => normalized_in_place_jvp, normalized_in_place_vjp;
        split_halves => split_halves_jvp, split_halves_vjp;
    }
}

#[forward]
#[reverse]
fn normalized_in_place(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let norm = v.iter().map(|e| e * e).sum::<f64>().sqrt();
    for e in v.iter_mut() {
        *e /= norm + 1.0;
    }
    for (e, w) in v.iter_mut().zip(x.iter().rev()) {
        *e = e.sin() * w;
    }
    for e in &mut v {
        *e += 0.5;
    }
    v.iter().map(|e| e * e).sum()
}

#[forward]
#[reverse]
fn ends(x: &[f64]) -> f64 {
    let first = *x.first().unwrap();
    let last = x.last().copied().expect("not empty");
    let y: Vec<f64> = x.iter().map(|v| v * 2.0).collect();
    first * last + x.last().unwrap() * y.first().unwrap() + x.get(x.len() / 2).unwrap().sin()
}

/// Functions that need an element: lengths from 1.
#[test]
fn selections_against_forward_mode_and_central_differences() {
    for n in [1, 2, 5] {
        check_slice_function_at_random_points(ends, ends_jvp, ends_vjp, n, n as u64 + 3);
        check_slice_function_at_random_points(
            log_sum_exp,
            log_sum_exp_jvp,
            log_sum_exp_vjp,
            n,
            n as u64 + 5,
        );
        check_slice_function_at_random_points(spread, spread_jvp, spread_vjp, n, n as u64 + 9);
        check_slice_function_at_random_points(clipped, clipped_jvp, clipped_vjp, n, n as u64);
        check_slice_function_at_random_points(
            loops_over_untyped_locals,
            loops_over_untyped_locals_jvp,
            loops_over_untyped_locals_vjp,
            n,
            n as u64 + 11,
        );
    }
}

#[forward]
#[reverse]
fn split_halves(x: &[f64]) -> f64 {
    let (head, tail) = x.split_at(x.len() / 2);
    let (_, last_two) = tail.split_at(tail.len().saturating_sub(2));
    head.iter().map(|v| v.exp()).sum::<f64>() * tail.iter().sum::<f64>()
        + last_two.iter().product::<f64>()
}

// Formerly compile-fail tests (the engine refused them): sub-slices passed to calls, `skip`
// before `collect` and a sum, and a `Vec` named like the parameter it is built from.

#[forward]
#[reverse]
fn inner_sum(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x {
        s += v * v;
    }
    s
}

#[forward]
#[reverse]
fn tail(x: &[f64]) -> f64 {
    inner_sum(&x[1..]) * x[0]
}

#[forward]
#[reverse]
fn middle(x: &[f64], #[no_grad] data: &[f64], burn_in: usize) -> f64 {
    let kept = &data[burn_in..];
    x[0] * kept[0] + inner_sum(&x[1..x.len() - 1])
}

#[forward]
#[reverse]
fn skipped(x: &[f64]) -> f64 {
    let rest: Vec<f64> = x.iter().skip(1).copied().collect();
    rest[0] * x.iter().skip(1).sum::<f64>()
}

#[forward]
#[reverse]
fn renamed(x: &[f64]) -> f64 {
    let x: Vec<f64> = x.iter().map(|v| v * 2.0).collect();
    x[0] * x[1]
}

const DATA: [f64; 4] = [0.5, -1.25, 2.0, 3.5];

#[test]
fn formerly_refused_against_forward_mode_and_central_differences() {
    for n in [2, 3, 6] {
        check_slice_function_at_random_points(tail, tail_jvp, tail_vjp, n, n as u64);
        check_slice_function_at_random_points(skipped, skipped_jvp, skipped_vjp, n, n as u64);
        check_slice_function_at_random_points(renamed, renamed_jvp, renamed_vjp, n, n as u64);
        check_slice_function_at_random_points(
            |x| middle(x, &DATA, 2),
            |x, t| middle_jvp(x, &DATA, 2, t),
            |x, c| middle_vjp(x, &DATA, 2, c),
            n,
            n as u64 + 1,
        );
    }
}

/// Log-sum-exp shifted by the greatest element, as numerically careful code writes it.
#[forward]
#[reverse]
fn log_sum_exp(x: &[f64]) -> f64 {
    let m = *x.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
    m + x.iter().map(|v| (v - m).exp()).sum::<f64>().ln()
}

#[forward]
#[reverse]
fn spread(x: &[f64]) -> f64 {
    let low = x.iter().copied().min_by(|a, b| a.total_cmp(b)).unwrap();
    let high = x
        .iter()
        .max_by(|a, b| a.partial_cmp(b).expect("no NaN"))
        .copied()
        .unwrap();
    let (at, _) = x
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.partial_cmp(b.1).unwrap())
        .unwrap();
    (high - low) * x[at].sin()
}

/// Tests of the items that give data: `any`, `all`, `position`, `count`.
#[forward]
#[reverse]
fn clipped(x: &[f64]) -> f64 {
    let large = x.iter().any(|v| v.abs() > 1.0);
    let positive = x.iter().all(|&v| v > 0.0);
    let first_negative = x.iter().position(|v| *v < 0.0).unwrap_or(0);
    let kept = x.iter().filter(|v| v.abs() < 1.2).count();
    let scale = if large { 0.5 } else { 2.0 };
    let shift = if positive { 1.0 } else { -1.0 };
    scale * x[first_negative].powi(2) + shift * x[0] + kept as f64 * x.iter().sum::<f64>()
}

#[forward]
#[reverse]
fn rotated(a: f64, b: f64) -> [f64; 2] {
    let (s, c) = (0.3f64.sin(), 0.3f64.cos());
    [c * a - s * b, s * a + c * b]
}

/// `for` over locals whose type the code does not write: an array a call returned (items by
/// value), a `Vec` built in the body, a borrow of one.
#[forward]
#[reverse]
fn loops_over_untyped_locals(x: &[f64]) -> f64 {
    let p = rotated(x[0], x[x.len() - 1]);
    let mut s = 0.0;
    for v in p {
        if v > 0.0 {
            s += v * v;
        } else {
            s -= v;
        }
    }
    let q: Vec<f64> = x.iter().map(|v| v * 3.0).collect();
    for v in q.clone() {
        s += v.sin();
    }
    let r = &q;
    for v in r {
        s += *v * 0.5;
    }
    for (v, w) in q.iter().zip(p) {
        s += v * w;
    }
    s
}

// Tables the code reads: `const` and `static` arrays (also of rows) indexed and iterated, and a
// float literal written with an integer's digits (`4f64`), in both modes.

const RK4_A: [[f64; 4]; 4] = [
    [0.0; 4],
    [0.5, 0.0, 0.0, 0.0],
    [0.0, 0.5, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
];
const RK4_B: [f64; 4] = [1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0];
static LANCZOS: [f64; 3] = [0.99, 57.1, -59.5];
#[forward]
#[reverse]
fn rk4_table(x: &[f64]) -> f64 {
    let h = 0.1;
    let mut y = x[0];
    for _ in 0..3 {
        let mut k = [0.0; 4];
        for s in 0..4 {
            let mut ys = y;
            for j in 0..s {
                ys += h * RK4_A[s][j] * k[j];
            }
            k[s] = -ys * x[1] + ys.sin();
        }
        for s in 0..4 {
            y += h * RK4_B[s] * k[s];
        }
    }
    let mut t = 0.0;
    for (i, c) in LANCZOS.iter().enumerate().skip(1) {
        t += c / (x[0] * x[0] + i as f64);
    }
    let w: f64 = RK4_B.iter().zip(x).map(|(b, v)| b * v).sum();
    for row in RK4_A.iter() {
        for (j, a) in row.iter().enumerate() {
            t += a * x[j % x.len()];
        }
    }
    let c = 4f64;
    y + t + w / (c - 1.0)
}

#[test]
fn tables_against_forward_mode_and_central_differences() {
    for n in [2, 3, 5] {
        check_slice_function_at_random_points(rk4_table, rk4_table_jvp, rk4_table_vjp, n, n as u64);
    }
}

/// `max_by`/`min_by` of a container's items matched rather than unwrapped (`match .. {
/// Some(m) => .., None => .. }`, `if let Some(&m) = ..`): the selection where the container
/// is not empty, the other arm where it is.
#[forward]
#[reverse]
fn matched_selections(x: &[f64]) -> f64 {
    let top = match x.iter().max_by(|a, b| a.partial_cmp(b).unwrap()) {
        Some(m) => m * m,
        None => 0.0,
    };
    let low = if let Some(&m) = x.iter().min_by(|a, b| a.total_cmp(b)) {
        m.sin()
    } else {
        1.0
    };
    let last = match x.iter().copied().max_by(|a, b| a.total_cmp(b)) {
        Some(v) => v.cos(),
        _ => 0.0,
    };
    top + low * last
}

#[test]
fn selections_matched_as_options() {
    check_slice_function_at_random_points(
        matched_selections,
        matched_selections_jvp,
        matched_selections_vjp,
        4,
        83,
    );
    let (value, gradient) = matched_selections_grad(&[]);
    assert_eq!((value, gradient), (0.0, Vec::new()));
}

/// `chunks_exact(n).remainder()`: the sub-slice after the last whole chunk (it sent the whole
/// function to the previous engine, whose messages then blamed every chain in it).
#[forward]
#[reverse]
fn pairs_and_remainder(x: &[f64]) -> f64 {
    let mut s: f64 = x.chunks_exact(2).map(|c| c[0] * c[1]).sum();
    let rest = x.chunks_exact(2).remainder();
    for r in rest {
        s += r.exp();
    }
    s + x.windows(2).map(|w| w[1] - w[0]).sum::<f64>()
}

#[test]
fn chunk_remainders() {
    for n in [4, 5] {
        check_slice_function_at_random_points(
            pairs_and_remainder,
            pairs_and_remainder_jvp,
            pairs_and_remainder_vjp,
            n,
            89,
        );
    }
}

/// `max_by`/`min_by` after `map` (a k-means assignment), unwrapped: the loop `std` runs, the
/// last greatest and the first least kept at ties.
#[forward]
#[reverse]
fn nearest_and_farthest(x: &[f64]) -> f64 {
    let centroids = [0.5, -1.0, 2.0];
    let nearest = centroids
        .iter()
        .map(|c| (x[0] - c) * (x[0] - c) + x[1])
        .min_by(|a, b| a.partial_cmp(b).unwrap())
        .unwrap();
    let farthest = x
        .chunks(2)
        .map(|c| c[0] * c[1])
        .max_by(|a, b| a.total_cmp(b))
        .unwrap();
    nearest * x[1] + farthest
}

#[forward]
#[reverse]
fn selections_at_ties(x: &[f64]) -> f64 {
    let largest = x
        .iter()
        .map(|v| v.abs())
        .max_by(|a, b| a.total_cmp(b))
        .unwrap();
    let smallest = x
        .iter()
        .map(|v| v * v)
        .min_by(|a, b| a.total_cmp(b))
        .unwrap();
    largest + 3.0 * smallest
}

#[test]
fn selections_after_map() {
    check_slice_function_at_random_points(
        nearest_and_farthest,
        nearest_and_farthest_jvp,
        nearest_and_farthest_vjp,
        4,
        97,
    );
    // |-2| = |2|: the last greatest; 1 * 1 = (-1) * (-1): the first least.
    let (_, gradient) = selections_at_ties_grad(&[-2.0, 1.0, 2.0, -1.0]);
    assert_eq!(gradient, vec![0.0, 6.0, 1.0, 0.0]);
    let (_, along) = selections_at_ties_jvp(&[-2.0, 1.0, 2.0, -1.0], &[1.0, 1.0, 1.0, 1.0]);
    assert_eq!(along, 7.0);
}

/// An iterator stepped by hand: the first item taken by `next()`, the rest by a `for` loop.
#[forward]
#[reverse]
fn first_then_rest(x: &[f64]) -> f64 {
    let mut it = x.iter();
    let first = *it.next().unwrap();
    let mut s = first;
    for v in it {
        s = s * v + 0.1;
    }
    s
}

/// Items taken two at a time by `next()` in a `while let` (a `let ... else` for the second),
/// what is left summed by an adapter chain.
#[forward]
#[reverse]
fn pairs_by_next(x: &[f64]) -> f64 {
    let mut items = x.iter().copied();
    let mut total = 0.0;
    while let Some(a) = items.next() {
        let Some(b) = items.next() else {
            total += a.sin();
            break;
        };
        total += a * b;
        if total > 10.0 {
            break;
        }
    }
    total + items.map(|v| v * v).sum::<f64>()
}

#[test]
fn iterators_stepped_by_hand_three_ways() {
    for n in [1, 2, 3, 5, 8] {
        check_slice_function_at_random_points(
            first_then_rest,
            first_then_rest_jvp,
            first_then_rest_vjp,
            n,
            60 + n as u64,
        );
        check_slice_function_at_random_points(
            pairs_by_next,
            pairs_by_next_jvp,
            pairs_by_next_vjp,
            n,
            70 + n as u64,
        );
    }
    // The rest after an early `break`: the items not stepped are summed squared.
    let x = [3.0, 4.0, 0.5, 2.0];
    let (value, gradient) = pairs_by_next_grad(&x);
    assert_eq!(value, 12.0 + 0.25 + 4.0);
    assert_eq!(gradient, vec![4.0, 3.0, 1.0, 4.0]);
}

/// Arrays written where they are iterated (`[a, b, a * b].iter()`, `[x; 3].iter()`), and an
/// array's `map` iterated directly: each a temporary the chain reads.
#[forward]
#[reverse]
fn arrays_iterated_where_written(x: &[f64]) -> f64 {
    let (a, b) = (x[0], x[x.len() - 1]);
    let norm = [a, b, a * b].iter().map(|v| v * v).sum::<f64>().sqrt();
    let repeated: f64 = [b.sin(); 3].iter().sum();
    let pair = [a, 2.0 * b];
    norm + repeated + pair.map(|v| v.exp()).iter().product::<f64>()
}

#[test]
fn arrays_iterated_where_written_three_ways() {
    for n in [1, 2, 4] {
        check_slice_function_at_random_points(
            arrays_iterated_where_written,
            arrays_iterated_where_written_jvp,
            arrays_iterated_where_written_vjp,
            n,
            90 + n as u64,
        );
    }
}

/// Sums whose type rustc infers from where they go (`out[i] = row.iter()..sum();`, a call's
/// argument): taken for sums of the function's floats.
#[forward]
#[reverse]
fn matrix_vector(m: &[Vec<f64>], v: &[f64]) -> f64 {
    let mut out = vec![0.0; m.len()];
    for (i, row) in m.iter().enumerate() {
        out[i] = row.iter().zip(v).map(|(a, b)| a * b).sum();
    }
    squashed(out.iter().map(|o| o.tanh()).sum())
}

#[forward]
#[reverse]
fn squashed(s: f64) -> f64 {
    s / (1.0 + s * s).sqrt()
}

#[test]
fn sums_typed_by_where_they_go() {
    let m = vec![vec![0.5, 1.0, -0.2], vec![-0.3, 0.2, 0.9]];
    let v = [0.4, -0.6, 0.3];
    let (value, (dm, dv)) = matrix_vector_grad(&m, &v);
    assert_eq!(value.to_bits(), matrix_vector(&m, &v).to_bits());
    let h = 1e-6;
    for (i, row) in m.iter().enumerate() {
        for j in 0..row.len() {
            let moved = |step: f64| {
                let mut m = m.clone();
                m[i][j] += step;
                matrix_vector(&m, &v)
            };
            let central = (moved(h) - moved(-h)) / (2.0 * h);
            approx::assert_relative_eq!(dm[i][j], central, epsilon = 1e-8, max_relative = 1e-6);
        }
    }
    for j in 0..v.len() {
        let mut t = [0.0; 3];
        t[j] = 1.0;
        let zero = vec![vec![0.0; 3]; 2];
        let (_, along) = matrix_vector_jvp(&m, &v, &zero, &t);
        approx::assert_relative_eq!(dv[j], along, epsilon = 1e-12, max_relative = 1e-12);
    }
}
