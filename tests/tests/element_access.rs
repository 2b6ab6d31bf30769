//! Elements reached through an `Option` and writes through sub-slices, in reverse mode:
//! `first`/`last`/`get` and their `_mut` forms unwrapped, matched (`if let`, `match`) or
//! defaulted (`unwrap_or`, `map_or`), `iter().last()`, `iter().nth(i)`; `split_at_mut`'s
//! halves and `&mut v[a..]` written; a row of a matrix borrowed mutably. Each function is
//! checked against forward mode along every basis direction, central differences and the
//! dot-product identity at random points; those with a `&mut` parameter as maps from the
//! inputs and the parameter's initial contents to its final contents.
// The functions spell out the ways people write them on purpose.
#![allow(
    clippy::needless_range_loop,
    clippy::iter_nth,
    clippy::assign_op_pattern
)]

mod common;

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;
use common::{check_slice_function_at_random_points, random_vector, Rng};

/// `_mut` accessors: matched, unwrapped and dereferenced, bound; a shared one matched.
#[forward]
#[reverse]
fn mutable_accessors(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    if let Some(l) = v.last_mut() {
        *l *= x[0];
    }
    *v.first_mut().unwrap() += x[1] * x[2];
    let r = v.get_mut(1).unwrap();
    *r = r.sin() * 2.0;
    if let Some(missing) = v.get_mut(40) {
        *missing = 0.0;
    }
    match v.get(2) {
        Some(&t) => v[0] * t + v[v.len() - 1],
        None => 0.0,
    }
}

/// Shared accessors read through `Option` methods, also past the end.
#[forward]
#[reverse]
fn shared_accessors(x: &[f64]) -> f64 {
    let last = x.iter().last().copied().unwrap_or(0.0);
    let second = *x.iter().nth(1).unwrap();
    let third = x.get(2).copied().unwrap_or_default();
    let far = x.get(10).map_or(1.5, |v| v * 2.0);
    let first = x.first().map(|v| v.exp()).unwrap_or(0.0);
    let beyond = x.get(7).copied().unwrap_or(x[0]);
    let in_match = match x.last() {
        Some(v) => *v * 3.0,
        None => 1.0,
    };
    last * second + third * far + first + beyond * in_match
}

/// `split_at_mut`'s halves written, each reading the other, in a loop that overwrites what it
/// reads.
#[forward]
#[reverse]
fn split_halves(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for _ in 0..3 {
        let (a, b) = v.split_at_mut(2);
        a[0] += b[0] * 3.0;
        b[1] = a[1] * a[0].sin();
        a[1] *= b[1];
    }
    v.iter().map(|t| t * t).sum()
}

/// A sub-slice borrowed mutably and written; a row of a matrix borrowed by an annotated `let`.
#[forward]
#[reverse]
fn sub_slices_and_rows(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    {
        let tail = &mut v[1..];
        tail[0] = tail[1] * tail[0];
        tail[2] += x[0];
    }
    let n = x.len();
    let mut m = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            m[i][j] = v[i] * v[j];
        }
    }
    let row: &mut Vec<f64> = &mut m[0];
    row[1] += row[2].cos();
    let mut total = 0.0;
    for i in 0..n {
        for j in 0..n {
            total += m[i][j] * (1.0 + i as f64);
        }
    }
    total
}

/// Inclusive sub-slices (`x[a..=b]`, `x[..=k]`): read, iterated, written through `&mut`.
#[forward]
#[reverse]
fn inclusive_sub_slices(x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = x.to_vec();
    for t in &mut v[1..=n - 2] {
        *t *= 2.0;
    }
    let middle = &x[1..=2];
    let head: f64 = v[..=1].iter().map(|t| t * t).sum();
    head + middle[0] * middle[1] + x[..=n - 1].iter().sum::<f64>() * v[n - 1]
}

/// A map's `get` is no element access: its entry, read as data.
#[forward]
#[reverse]
fn map_lookups(x: &[f64], table: &std::collections::HashMap<usize, usize>) -> f64 {
    let i = *table.get(&0).unwrap_or(&1);
    let shifted = match table.get(&1) {
        Some(&j) => x[j] * 0.5,
        None => 0.0,
    };
    x[i] * x[0] + shifted
}

fn table() -> std::collections::HashMap<usize, usize> {
    [(0, 2), (1, 1)].into_iter().collect()
}
fn with_table(x: &[f64]) -> f64 {
    map_lookups(x, &table())
}
fn with_table_jvp(x: &[f64], t: &[f64]) -> (f64, f64) {
    map_lookups_jvp(x, &table(), t)
}
fn with_table_vjp(x: &[f64], c: f64) -> (f64, Vec<f64>) {
    map_lookups_vjp(x, &table(), c)
}

#[test]
fn accessors_and_sub_slices_three_ways() {
    check_slice_function_at_random_points(with_table, with_table_jvp, with_table_vjp, 3, 5);
    check_slice_function_at_random_points(
        mutable_accessors,
        mutable_accessors_jvp,
        mutable_accessors_vjp,
        4,
        1,
    );
    check_slice_function_at_random_points(
        shared_accessors,
        shared_accessors_jvp,
        shared_accessors_vjp,
        4,
        2,
    );
    check_slice_function_at_random_points(split_halves, split_halves_jvp, split_halves_vjp, 4, 3);
    for n in [3, 4, 6] {
        check_slice_function_at_random_points(
            inclusive_sub_slices,
            inclusive_sub_slices_jvp,
            inclusive_sub_slices_vjp,
            n,
            n as u64,
        );
    }
    check_slice_function_at_random_points(
        sub_slices_and_rows,
        sub_slices_and_rows_jvp,
        sub_slices_and_rows_vjp,
        4,
        4,
    );
}

/// A `&mut` parameter written through `iter_mut`, `get_mut` and `last_mut`.
#[forward]
#[reverse]
fn update_ends(x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x.iter()) {
        *yi = xi.exp() + *yi;
    }
    if let Some(v) = y.get_mut(0) {
        *v *= x[1];
    }
    if let Some(v) = y.last_mut() {
        *v = v.powi(2) + x[0];
    }
    let (head, tail) = y.split_at_mut(1);
    tail[0] += head[0] * x[2];
}

#[test]
fn a_mut_parameter_written_through_accessors() {
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a * b).sum::<f64>();
    // Inputs: x (3), then y's initial contents (3); outputs: y's final contents.
    let plain = |input: &[f64]| {
        let mut y = input[3..].to_vec();
        update_ends(&input[..3], &mut y);
        y
    };
    let mut rng = Rng::new(5);
    for _ in 0..5 {
        let input = random_vector(&mut rng, 6);
        let t = random_vector(&mut rng, 6);
        let w = random_vector(&mut rng, 3);
        let (mut y, mut dy) = (input[3..].to_vec(), t[3..].to_vec());
        update_ends_jvp(&input[..3], &mut y, &t[..3], &mut dy);
        assert_eq!(y, plain(&input));
        let (mut y, mut adjoint_y) = (input[3..].to_vec(), w.clone());
        let adjoint_x = update_ends_vjp(&input[..3], &mut y, &mut adjoint_y);
        assert_eq!(y, plain(&input));
        let forward = dot(&dy, &w);
        let reverse = dot(&adjoint_x, &t[..3]) + dot(&adjoint_y, &t[3..]);
        assert_relative_eq!(forward, reverse, max_relative = 1e-12, epsilon = 1e-12);
        let h = 1e-6;
        let moved = |sign: f64| -> Vec<f64> {
            let shifted: Vec<f64> = input
                .iter()
                .zip(&t)
                .map(|(x, t)| x + sign * h * t)
                .collect();
            plain(&shifted)
        };
        let central = (dot(&moved(1.0), &w) - dot(&moved(-1.0), &w)) / (2.0 * h);
        assert_relative_eq!(reverse, central, max_relative = 1e-6, epsilon = 1e-7);
    }
}
