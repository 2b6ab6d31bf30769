//! What the backward sweep recomputes or reads again instead of keeping: indices from the loop
//! environment (counters of the loops around, integers from around the nest, running indices
//! advanced once per iteration), elements of container parameters (read again by the borrowed
//! companion behind `_vjp`), elements a loop reads at an index it does not change (read once
//! before it), derivatives of `x * y`, `x * x` and `exp` built from kept values; and the cases
//! where it must keep them. Each function against forward mode, central differences and the
//! dot-product identity (`common::check_gradient`).

// The loops index on purpose: indexing is what is tested.
#![allow(clippy::needless_range_loop, clippy::explicit_counter_loop)]

mod common;

use ad_runtime::{forward, reverse};
use common::check_gradient;

const OFFSET: usize = 1;

/// Counters of three nested loops, a name from around the nest and an upper-case constant,
/// with an element overwritten whose old value the backward sweep needs.
#[forward]
#[reverse]
fn nested_counters(x: &[f64]) -> f64 {
    let n = x.len() / 2;
    let mut work = vec![0.0; n];
    let mut total = 0.0;
    for round in 0..2 {
        for i in 0..n {
            for j in 0..(n - OFFSET) {
                work[j] = work[j] * x[i] + x[n + j + OFFSET] * x[(i + j + round) % n];
            }
            total += work[i] * work[i];
        }
    }
    total
}

/// Inner ranges that start at an outer counter (`i + 1..`) or at a value the nest computes,
/// and an inclusive range.
#[forward]
#[reverse]
fn triangular(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    let mut start = 0;
    for i in 0..n {
        for j in (i + 1)..n {
            s += x[i] * x[j] * x[j - i];
        }
        for j in start..=i {
            s += x[j] * x[i - j];
        }
        start = i / 2;
    }
    s
}

/// A name from around the loop that the loop changes, and a counter shadowed in the body:
/// both must be kept, not recomputed.
#[forward]
#[reverse]
fn changed_and_shadowed(x: &[f64]) -> f64 {
    let n = x.len();
    let mut base = 0;
    let mut s = 0.0;
    for j in 0..n {
        s += x[(base + j) % n] * x[j];
        base += 2;
        let j = n - 1 - j;
        s += x[j] * x[(j + base) % n];
    }
    s
}

/// A name changed through a method call (`wrapping_add_assign`-like) and through `&mut`.
#[forward]
#[reverse]
fn changed_by_reference(x: &[f64]) -> f64 {
    let n = x.len();
    let mut shift = 1;
    let mut s = 0.0;
    for j in 0..n {
        s += x[(j + shift) % n] * x[j].sin();
        bump(&mut shift);
    }
    s
}

fn bump(value: &mut usize) {
    *value += 3;
}

/// Positions from `enumerate`, elements of an outer loop over a container used in an inner
/// loop, and a `zip`.
#[forward]
#[reverse]
fn container_counters(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for (i, a) in x.iter().enumerate() {
        for j in 0..n {
            s += a * x[(i + j) % n] * x[j];
        }
        s += a * x[n - 1 - i];
    }
    for (a, b) in x.iter().zip(x.iter()) {
        s += a * b;
    }
    s
}

/// A running index advanced once per iteration of the inner loop (`l += 1`), read before and
/// after it advances, and in a loop nested further in.
#[forward]
#[reverse]
fn running_index(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    let mut l = 0;
    for i in 0..n {
        for j in 0..(n - i) {
            s += x[l % n] * x[j];
            l += 1;
            s += x[(l + i) % n] * x[i];
        }
    }
    let mut m = 1;
    for i in 0..n {
        for _ in 0..2 {
            s += x[m % n] * x[i];
        }
        m += 2;
    }
    s
}

/// A running index advanced inside a branch or twice per iteration: kept, not recomputed.
#[forward]
#[reverse]
fn irregular_running_index(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    let mut l = 0;
    let mut m = 0;
    for i in 0..n {
        s += x[l % n] * x[i] + x[m % n];
        if x[i] > 0.0 {
            l += 1;
        }
        m += 1;
        m += 1;
    }
    s
}

/// A counter that walks a packed triangle row by row (ADBench's GMM): the backward sweep
/// steps each row's entry back from the counter's value after the rows, by the row's trip
/// count. Rows that do not run, a step of 2, the counter read before and after its step and
/// after the rows, the triangle inside a loop that starts the counter again; an outer loop at
/// the top level whose product is not a sum.
#[forward]
#[reverse]
fn packed_rows(x: &[f64]) -> f64 {
    let n = x.len();
    let w = packed(x);
    let mut s = 0.0;
    let mut t = vec![0.0; n];
    for round in 0..3 {
        let mut l = round * n;
        for i in 0..n {
            for j in (i + round)..n {
                t[j] += w[l] * x[i];
                l += 2;
                s += x[(l + j) % n] * t[j];
            }
        }
        s += w[l] * t[round];
    }
    let mut product = 1.0;
    let mut k = 1;
    for i in 0..n {
        for j in 0..i {
            product *= 1.0 + 0.1 * w[k] * x[j];
            k += 1;
        }
    }
    s + product
}

/// `3 n^2` elements made of `x`, for the rows' counters to index.
#[forward]
#[reverse]
fn packed(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut w = vec![0.0; 3 * n * n];
    for k in 0..w.len() {
        w[k] = x[k % n] * (0.1 * k as f64).sin();
    }
    w
}

/// Rows walked by a counter that steps down, of another integer type; rows whose counter the
/// outer loop also changes, or that a `break` may leave early, keep their entries.
#[forward]
#[reverse]
fn irregular_rows(x: &[f64]) -> f64 {
    let w = packed(x);
    let n = x.len() as i64;
    let mut s = 0.0;
    let mut t = vec![0.0; x.len()];
    let mut l: i64 = 4 * n;
    for i in 0..n {
        for j in i..n {
            t[j as usize] = t[j as usize] * 0.5 + w[l as usize] * x[i as usize];
            l -= 1;
        }
    }
    let mut m = 0;
    for i in 0..x.len() {
        for j in i..x.len() {
            t[j] += w[m] * x[i].sin();
            m += 1;
        }
        m += 3;
    }
    let mut p = 0;
    for i in 0..x.len() {
        for j in 0..x.len() {
            t[i] += w[p] * x[j];
            p += 1;
        }
        if t[i] > 2.0 {
            break;
        }
    }
    for v in &t {
        s += v * v;
    }
    s
}

/// Counters of other integer types, converted with `as usize`.
#[forward]
#[reverse]
fn other_counter_types(x: &[f64]) -> f64 {
    let n = x.len() as i32;
    let mut s = 0.0;
    for i in 0..n {
        for j in (i - 1).max(0)..n {
            s += x[i as usize] * x[j as usize].cos();
        }
    }
    // Negative counters, and inner ranges whose ends the outer loop recomputes.
    for i in -2..(n - 2) {
        for j in (i - 1)..=(i + 1) {
            s += x[((j + 3) % n) as usize] * x[(i + 2) as usize];
        }
        for j in (i + 2)..(i + 4) {
            s += x[((j + 1) % n) as usize] * x[(i + 2) as usize];
        }
    }
    s
}

/// Elements read at an index the inner loop does not change, from containers it does not
/// change (a parameter and a local), feeding products; one of them changes between executions
/// of the inner loop.
#[forward]
#[reverse]
fn invariant_elements(x: &[f64]) -> f64 {
    let n = x.len();
    let mut work = vec![1.0; n];
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            s += x[i] * work[i] * x[j] * x[j];
        }
        work[(i + 1) % n] = s.sin();
        for j in (i + 1)..n {
            s += work[i] * x[j].exp() * x[j];
        }
    }
    s
}

/// An inner loop that does not run, whose invariant element is out of bounds: it must not be
/// read before the loop.
#[forward]
#[reverse]
fn invariant_element_of_a_loop_that_does_not_run(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        let far = n + 10 * i;
        for j in n..n {
            s += x[far] * x[j];
        }
        s += x[i] * x[i];
    }
    s
}

/// `+=` and `-=` whose right side reads the place itself, on an element and a variable.
#[forward]
#[reverse]
fn accumulations_reading_themselves(x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = x.to_vec();
    let mut s = 1.0;
    for i in 0..n {
        v[i] += v[i] * x[(i + 1) % n];
        v[(i + 1) % n] -= 0.5 * v[(i + 1) % n] * v[i];
        s += s * v[i] * 0.1;
        s -= x[i] * x[i] * s * 0.01;
    }
    s + v.iter().sum::<f64>()
}

/// A parameter read again by the borrowed companion while it is also passed to a function
/// whose pullback keeps its own copy.
#[reverse]
#[forward]
fn weighted_norm(x: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += w[i] * x[i] * x[i];
    }
    s
}

#[forward]
#[reverse]
fn passes_parameters_on(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for k in 0..2 {
        for i in 0..n {
            s += x[(i + k) % n] * x[i].cos();
        }
        s += weighted_norm(x, x);
    }
    s
}

/// A parameter copied in a block, both read, the copy's adjoints added back when the block
/// ends (in the backward sweep: before the parameter's own reads after the block).
#[forward]
#[reverse]
fn parameter_aliases(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    {
        let mut z = x.to_vec();
        for i in 0..n {
            s += z[i] * x[(i + 1) % n];
            z[i] *= x[i];
        }
        for i in 0..n {
            s += z[i] * z[i] * x[i];
        }
    }
    for i in 0..n {
        s += x[i] * x[i];
    }
    s
}

const SHIFT: usize = 1;

/// Constants declared in a loop's body shadow names from around it (an outer constant, even a
/// `let`): found by review, they were read before the loop or from the environment with the
/// outer meaning.
#[forward]
#[reverse]
#[allow(non_upper_case_globals)]
fn constants_declared_in_loop_bodies(x: &[f64]) -> f64 {
    let n = x.len();
    let k = 1;
    let v: Vec<f64> = x.iter().map(|a| a * 1.5).collect();
    let mut s = 0.0;
    for j in 0..n {
        const SHIFT: usize = 2;
        const k: usize = 3;
        s += x[SHIFT] * x[j] + v[k] * x[(j + k) % n];
    }
    s + x[SHIFT] * v[k]
}

#[allow(non_upper_case_globals)]
mod shifts {
    pub const SHIFT: usize = 2;
    pub const k: usize = 2;
}

/// A glob import in a loop body may shadow any name from around the loop.
#[forward]
#[reverse]
fn glob_import_in_loop_body(x: &[f64]) -> f64 {
    let n = x.len();
    let k = 1;
    let v: Vec<f64> = x.iter().map(|a| a * 1.5).collect();
    let mut s = 0.0;
    for i in 0..n {
        use shifts::*;
        s += v[SHIFT] * x[i] + x[(i + k) % n] * x[i];
        for j in 0..k {
            s += x[j] * x[i] * 0.5;
        }
    }
    s + k as f64
}

/// Inner ranges whose ends are literals beyond `i32`: the iteration count is kept, not
/// recomputed (the literals alone would be typed `i32`).
#[forward]
#[reverse]
fn big_literal_range_ends(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in 4_999_999_998..5_000_000_000 {
            s += x[j % n] * x[i];
        }
    }
    s
}

#[test]
fn glob_imports_and_literal_ranges() {
    check_gradient(
        4,
        glob_import_in_loop_body,
        glob_import_in_loop_body_jvp,
        glob_import_in_loop_body_vjp,
    );
    check_gradient(
        4,
        big_literal_range_ends,
        big_literal_range_ends_jvp,
        big_literal_range_ends_vjp,
    );
}

#[test]
fn constants_declared_in_loop_bodies_shadow() {
    check_gradient(
        5,
        constants_declared_in_loop_bodies,
        constants_declared_in_loop_bodies_jvp,
        constants_declared_in_loop_bodies_vjp,
    );
}

#[test]
fn parameters_bound_to_other_names() {
    check_gradient(
        5,
        parameter_aliases,
        parameter_aliases_jvp,
        parameter_aliases_vjp,
    );
}

#[test]
fn invariant_elements_are_read_once() {
    check_gradient(
        5,
        invariant_elements,
        invariant_elements_jvp,
        invariant_elements_vjp,
    );
    check_gradient(
        4,
        invariant_element_of_a_loop_that_does_not_run,
        invariant_element_of_a_loop_that_does_not_run_jvp,
        invariant_element_of_a_loop_that_does_not_run_vjp,
    );
}

#[test]
fn accumulations_that_read_the_place() {
    check_gradient(
        5,
        accumulations_reading_themselves,
        accumulations_reading_themselves_jvp,
        accumulations_reading_themselves_vjp,
    );
}

#[test]
fn parameters_read_again_and_passed_on() {
    check_gradient(
        6,
        passes_parameters_on,
        passes_parameters_on_jvp,
        passes_parameters_on_vjp,
    );
    // Two container parameters, both read again.
    let x = [0.3, -1.2, 0.7];
    let w = [2.0, 0.5, -1.0];
    let (value, (dx, dw)) = weighted_norm_vjp(&x[..], &w[..], 1.0);
    approx::assert_relative_eq!(value, weighted_norm(&x, &w), max_relative = 1e-15);
    for i in 0..3 {
        approx::assert_relative_eq!(dx[i], 2.0 * w[i] * x[i], max_relative = 1e-14);
        approx::assert_relative_eq!(dw[i], x[i] * x[i], max_relative = 1e-14);
    }
}

#[test]
fn counters_of_nested_loops() {
    check_gradient(6, nested_counters, nested_counters_jvp, nested_counters_vjp);
}

#[test]
fn ranges_starting_at_counters_and_computed_values() {
    check_gradient(7, triangular, triangular_jvp, triangular_vjp);
}

#[test]
fn changed_names_and_shadowed_counters_are_kept() {
    check_gradient(
        5,
        changed_and_shadowed,
        changed_and_shadowed_jvp,
        changed_and_shadowed_vjp,
    );
    check_gradient(
        5,
        changed_by_reference,
        changed_by_reference_jvp,
        changed_by_reference_vjp,
    );
}

#[test]
fn positions_and_elements_of_container_loops() {
    check_gradient(
        5,
        container_counters,
        container_counters_jvp,
        container_counters_vjp,
    );
}

#[test]
fn running_indices() {
    check_gradient(5, running_index, running_index_jvp, running_index_vjp);
    check_gradient(
        6,
        irregular_running_index,
        irregular_running_index_jvp,
        irregular_running_index_vjp,
    );
}

#[test]
fn counters_walking_rows() {
    check_gradient(5, packed_rows, packed_rows_jvp, packed_rows_vjp);
    check_gradient(6, irregular_rows, irregular_rows_jvp, irregular_rows_vjp);
}

#[test]
fn counters_of_other_integer_types() {
    check_gradient(
        5,
        other_counter_types,
        other_counter_types_jvp,
        other_counter_types_vjp,
    );
}
