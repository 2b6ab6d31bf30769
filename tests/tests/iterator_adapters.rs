//! `chain`, `flat_map`, `take_while` and `skip_while` in iterator chains ending in a reduction
//! (`sum`, `product`, `fold`, `collect`, `count`, `any`, `position`, `find`), in both modes:
//! reverse mode runs one loop per part of a `chain`, a loop inside the chain's for a
//! `flat_map`, and keeps whether `take_while`/`skip_while` still take (skip) items. Each function is checked against
//! central differences, reverse against forward mode along every basis direction, and the
//! dot-product identity, at random points.

mod common;

use ad_runtime::{forward, reverse};
use common::check_slice_function_at_random_points;

#[forward]
#[reverse]
fn chained_squares(x: &[f64]) -> f64 {
    let (a, b) = x.split_at(2);
    a.iter().chain(b.iter()).map(|v| v * v).sum::<f64>() + a.iter().chain(b).sum::<f64>()
}

#[forward]
#[reverse]
fn chains_of_three_and_filters(x: &[f64]) -> f64 {
    let head = &x[..2];
    let tail = &x[2..];
    let p = head
        .iter()
        .copied()
        .chain(tail.iter().copied())
        .chain(head.iter().copied())
        .fold(1.0, |acc, v| acc * (1.0 + 0.5 * v));
    let kept: Vec<f64> = tail
        .iter()
        .chain(head.iter())
        .filter(|v| **v > 0.0)
        .map(|v| v.exp())
        .collect();
    let first_negative = head.iter().chain(tail.iter()).position(|v| *v < 0.0);
    let shift = match first_negative {
        Some(i) => x[i],
        None => 0.0,
    };
    p + kept.iter().sum::<f64>() + shift * x[0]
}

#[forward]
#[reverse]
fn chained_ranges(x: &[f64]) -> f64 {
    (0..2)
        .chain(3..x.len())
        .map(|i| x[i] * (i as f64 + 1.0))
        .sum::<f64>()
        * x[2]
}

/// Rows of a matrix flattened.
fn rows_of(x: &[f64]) -> Vec<Vec<f64>> {
    vec![x[..2].to_vec(), x[2..].to_vec()]
}

#[forward]
#[reverse]
fn flat_mapped(m: &[Vec<f64>]) -> f64 {
    let squares: f64 = m.iter().flat_map(|row| row.iter()).map(|v| v * v).sum();
    let total: f64 = m.iter().flat_map(|row| row.iter()).sum();
    let positive = m
        .iter()
        .flat_map(|row| row.iter())
        .filter(|v| **v > 0.0)
        .count();
    let weighted: f64 = m
        .iter()
        .enumerate()
        .flat_map(|(i, row)| row.iter().map(move |v| v * (i as f64 + 1.0)))
        .sum();
    squares + total * positive as f64 + weighted.sin()
}

fn flat_mapped_of_slice(x: &[f64]) -> f64 {
    flat_mapped(&rows_of(x))
}

fn flat_mapped_of_slice_jvp(x: &[f64], t: &[f64]) -> (f64, f64) {
    flat_mapped_jvp(&rows_of(x), &rows_of(t))
}

fn flat_mapped_of_slice_vjp(x: &[f64], c: f64) -> (f64, Vec<f64>) {
    let (value, rows) = flat_mapped_vjp(&rows_of(x), c);
    (value, rows.concat())
}

#[test]
fn chain_and_flat_map_three_ways() {
    check_slice_function_at_random_points(
        chained_squares,
        chained_squares_jvp,
        chained_squares_vjp,
        5,
        1,
    );
    check_slice_function_at_random_points(
        chains_of_three_and_filters,
        chains_of_three_and_filters_jvp,
        chains_of_three_and_filters_vjp,
        5,
        2,
    );
    check_slice_function_at_random_points(
        chained_ranges,
        chained_ranges_jvp,
        chained_ranges_vjp,
        5,
        3,
    );
    check_slice_function_at_random_points(
        flat_mapped_of_slice,
        flat_mapped_of_slice_jvp,
        flat_mapped_of_slice_vjp,
        5,
        4,
    );
}

/// `find` (of items and of mapped values, then `copied`, `unwrap_or`, `match`), `take_while`,
/// `skip_while`.
#[forward]
#[reverse]
fn found_and_taken_while(x: &[f64]) -> f64 {
    let first_big = x.iter().copied().find(|v| *v > 0.5).unwrap_or(0.0);
    let first_negative_double = match x.iter().map(|v| v * 2.0).find(|v| *v < 0.0) {
        Some(v) => v * v,
        None => 1.0,
    };
    let borrowed = x.iter().find(|v| v.abs() > 1.0).copied().unwrap_or(x[0]);
    let head: f64 = x.iter().take_while(|v| **v < 1.0).map(|v| v * v).sum();
    let tail: f64 = x.iter().skip_while(|v| **v < 0.0).map(|v| v.exp()).sum();
    let middle: Vec<f64> = x
        .iter()
        .copied()
        .skip_while(|v| *v > 0.0)
        .take_while(|v| *v < 1.5)
        .collect();
    first_big * x[0]
        + first_negative_double * x[1]
        + borrowed * borrowed
        + head
        + tail * middle.iter().sum::<f64>()
}

#[test]
fn find_take_while_and_skip_while_three_ways() {
    for (n, seed) in [(3, 11), (4, 12), (6, 13)] {
        check_slice_function_at_random_points(
            found_and_taken_while,
            found_and_taken_while_jvp,
            found_and_taken_while_vjp,
            n,
            seed,
        );
    }
}

/// Copies after a stage (`filter(..).cloned()`, `map(..).copied()`), collected and summed.
#[forward]
#[reverse]
fn copied_after_stages(x: &[f64]) -> f64 {
    let positive: Vec<f64> = x.iter().filter(|&&a| a > -0.5).cloned().collect();
    let rows = [x.to_vec(), x.iter().map(|v| v * 2.0).collect::<Vec<f64>>()];
    let firsts: f64 = rows.iter().map(|row| &row[1]).copied().sum();
    positive.iter().map(|a| a * a).sum::<f64>() + firsts * x[0]
}

/// Data zipped with the input inside a chain: the data part stays data.
struct Weights {
    values: Vec<f64>,
}

#[forward]
#[reverse]
fn zipped_with_data(w: &Weights, x: &[f64]) -> f64 {
    let z: f64 = w.values.iter().zip(x).map(|(a, v)| a * v.sin()).sum();
    z * x[0]
}

fn zipped(x: &[f64]) -> f64 {
    zipped_with_data(&weights(), x)
}
fn zipped_jvp(x: &[f64], t: &[f64]) -> (f64, f64) {
    zipped_with_data_jvp(&weights(), x, t)
}
fn zipped_vjp(x: &[f64], c: f64) -> (f64, Vec<f64>) {
    zipped_with_data_vjp(&weights(), x, c)
}
fn weights() -> Weights {
    Weights {
        values: vec![0.5, -1.5, 2.0, 0.25],
    }
}

#[test]
fn copies_after_stages_and_data_zipped_three_ways() {
    check_slice_function_at_random_points(
        copied_after_stages,
        copied_after_stages_jvp,
        copied_after_stages_vjp,
        4,
        21,
    );
    check_slice_function_at_random_points(zipped, zipped_jvp, zipped_vjp, 4, 22);
}

/// `for` loops over chains with stages: the body runs as the chain's last stage.
// A counter beside the items, as people write it.
#[allow(clippy::explicit_counter_loop)]
#[forward]
#[reverse]
fn for_over_chains(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for v in x.iter().filter(|v| **v > -0.3) {
        total += v.sin();
    }
    for (i, v) in x.iter().enumerate().filter(|(i, _)| i % 2 == 0) {
        total += v * (i as f64 + 1.0);
    }
    for w in x.iter().map(|v| v * v) {
        total += w * total.cos();
    }
    let rows = [x.to_vec(), x.iter().map(|v| v * 0.5).collect::<Vec<f64>>()];
    let mut scaled = vec![0.0; 2 * x.len()];
    let mut k = 0;
    for v in rows.iter().flat_map(|row| row.iter()) {
        scaled[k] = v * x[0];
        k += 1;
    }
    for &v in x.iter().take_while(|v| **v < 1.2) {
        total += v.exp();
    }
    // Leaving the loop: `continue` and `break` in the body.
    for (i, v) in x.iter().enumerate().filter(|(_, v)| **v > -1.0) {
        if i == 1 {
            continue;
        }
        total += v * total.sin();
        if total > 3.0 {
            break;
        }
    }
    total + scaled.iter().sum::<f64>()
}

#[test]
fn for_loops_over_chains_three_ways() {
    check_slice_function_at_random_points(
        for_over_chains,
        for_over_chains_jvp,
        for_over_chains_vjp,
        4,
        23,
    );
}
