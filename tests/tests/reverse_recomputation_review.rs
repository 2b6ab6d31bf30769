//! An adversarial review of indices that reverse mode recomputes in the backward sweep from
//! the loop environment (counters of the loops around, names from around the nest that it does
//! not change, upper-case constants, running indices) instead of keeping them. Each function
//! carries `#[forward]` and `#[reverse]` and is checked by `common::check_gradient` (reverse
//! against forward mode, forward against central differences, the dot-product identity).
//!
//! The cases at the end gave silently wrong gradients in the first version: a name from around a
//! loop changed by the loop in a way `may_change` / `changes` did not see (destructuring
//! assignment, a `ref mut` binding, a `while` condition), or a running index recognized on a
//! `+=` that changes a shadow declared in the body.

// The loops index on purpose: indexing is what is tested.
#![allow(
    clippy::needless_range_loop,
    clippy::explicit_counter_loop,
    clippy::identity_op,
    clippy::needless_late_init,
    clippy::toplevel_ref_arg,
    clippy::match_single_binding,
    unused_labels
)]

mod common;

use ad_runtime::{forward, reverse};
use common::check_gradient;

const STRIDE: usize = 2;
const BIG: usize = usize::MAX - 3;

/// A closure defined in the loop that changes the name: seen by `may_change`.
#[forward]
#[reverse]
fn closure_changes(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut s = 0.0;
    for j in 0..n {
        s += x[(k + j) % n] * x[j];
        let mut step = |v: f64| {
            k += 2;
            v
        };
        s += step(x[j]);
    }
    s
}

/// `std::mem::swap` and `std::mem::replace` of names from around the loop.
#[forward]
#[reverse]
fn swapped(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut m = 3;
    let mut s = 0.0;
    for j in 0..n {
        s += x[(k + j) % n] * x[(m + j) % n];
        std::mem::swap(&mut k, &mut m);
        let next = (m + 1) % n;
        let _ = std::mem::replace(&mut m, next);
    }
    s
}

/// A name shadowed in a nested block, the outer one read after the block.
#[forward]
#[reverse]
fn shadowed_in_block(x: &[f64]) -> f64 {
    let n = x.len();
    let k = 1;
    let mut s = 0.0;
    for j in 0..n {
        {
            let k = j * 3;
            s += x[k % n] * x[j];
        }
        s += x[(k + j) % n].sin();
        let k = n - 1 - j;
        s += x[k] * 0.5;
    }
    s
}

/// A name declared outside the loop and initialized inside it (`let k;` is a binding of the
/// loop body).
#[forward]
#[reverse]
fn deferred_init(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for j in 0..n {
        let k;
        if x[j] > 0.0 {
            k = (j + 1) % n;
        } else {
            k = (j + 2) % n;
        }
        s += x[k] * x[j];
    }
    s
}

/// Inner loops whose counter has the name of the outer one, labeled loops.
#[forward]
#[reverse]
fn same_counter_names(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    'outer: for i in 0..n {
        s += x[i] * x[n - 1 - i];
        'inner: for i in 0..(i + 1) {
            s += x[i] * x[(i + 1) % n];
            for i in i..n {
                s += x[i] * 0.25;
            }
        }
        s += x[(i * 2) % n];
    }
    s
}

/// `while` loops holding `for` loops, with a counter advanced by hand.
#[forward]
#[reverse]
fn while_around_for(x: &[f64]) -> f64 {
    let n = x.len();
    let mut i = 0;
    let mut s = 0.0;
    while i < n {
        for j in i..n {
            s += x[j] * x[i];
        }
        for j in 0..i {
            s += x[(i + j) % n] * 0.5;
        }
        i += 1;
        s += x[i % n] * x[(i + 1) % n];
    }
    s
}

/// Loops inside `if` branches inside loops, reading the outer counters and names around.
#[forward]
#[reverse]
fn loops_in_branches(x: &[f64]) -> f64 {
    let n = x.len();
    let k = 2;
    let mut s = 0.0;
    for i in 0..n {
        if x[i] > 0.0 {
            for j in 0..n {
                s += x[(i + j + k) % n] * x[j];
            }
        } else {
            for j in i..n {
                s += x[(j * k) % n] * x[i];
            }
        }
    }
    s
}

/// Reversed and stepped ranges, and a range over a constant's neighbourhood of `usize::MAX`.
#[forward]
#[reverse]
fn reversed_and_stepped(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in (0..n).rev() {
        for j in (i..n).step_by(2) {
            s += x[j] * x[i];
        }
        for j in (0..=i).rev() {
            s += x[(i + j) % n] * 0.5;
        }
    }
    for j in BIG..=usize::MAX {
        s += x[j - BIG] * x[(j - BIG + 1) % n];
    }
    s
}

/// Counters of `u8` up to 255 and of `i64` going negative.
#[forward]
#[reverse]
fn small_and_signed_counters(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for c in 250u8..=255 {
        s += x[(c - 250) as usize % n] * x[(c as usize) % n];
    }
    for j in -3i64..3 {
        for m in j..(j + 2) {
            s += x[(m + 3) as usize % n] * x[(j + 3) as usize];
        }
    }
    s
}

/// Starts of inner ranges from a name the loop around changes, before and after the change.
#[forward]
#[reverse]
fn changing_starts(x: &[f64]) -> f64 {
    let n = x.len();
    let mut a = 0;
    let mut b = 1;
    let mut s = 0.0;
    for i in 0..n {
        for j in a..n {
            s += x[j] * x[i];
        }
        a += 1;
        for j in a..n {
            s += x[j] * x[(i + 1) % n];
        }
        b = (b * 3) % n;
        for j in b..n {
            s += x[j - b] * x[j];
        }
    }
    s
}

/// `continue` and `break` (boxed iterations), with names from around and counters.
#[forward]
#[reverse]
fn with_exits(x: &[f64]) -> f64 {
    let n = x.len();
    let k = 1;
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            if j == i {
                continue;
            }
            s += x[(j + k) % n] * x[i];
            if s > 3.0 {
                break;
            }
        }
        if i == n - 2 {
            break;
        }
        s += x[(i * k + 1) % n];
    }
    s
}

/// Element writes and compound writes of a local `Vec` at recomputed indices, old values read.
#[forward]
#[reverse]
fn element_writes(x: &[f64]) -> f64 {
    let n = x.len();
    let k = 2;
    let mut w = vec![1.0; n];
    let mut s = 0.0;
    for r in 0..3 {
        for j in 0..n {
            w[(j + k + r) % n] = w[(j + k + r) % n] * x[j] + w[(j + 1) % n].sin();
            w[(j * STRIDE) % n] += x[(j + r) % n] * w[j];
            w[j] *= 0.9 + 0.1 * x[(r + j) % n];
        }
        s += w[r] * w[(r + k) % n];
    }
    s + w.iter().sum::<f64>()
}

/// Reductions inside loops, reading counters of the loops around.
#[forward]
#[reverse]
fn reductions_in_loops(x: &[f64]) -> f64 {
    let n = x.len();
    let k = 1;
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            s += x.iter().map(|v| v * x[(i + j + k) % n]).sum::<f64>() * x[j];
        }
        let t: f64 = x.iter().map(|v| v * v * x[i]).sum();
        s += t;
    }
    s
}

/// Closures defined outside and inside loops, inlined where called, indexing with captured
/// counters and names from around.
#[forward]
#[reverse]
fn inlined_closures(x: &[f64]) -> f64 {
    let n = x.len();
    let k = 3;
    let at = |m: usize| x[(m + k) % n];
    let mut s = 0.0;
    for i in 0..n {
        let near = |m: usize| x[(m + i) % n] * x[i];
        for j in 0..n {
            s += near(j) * at(j + i);
            let g = |d: usize| x[(i * d + j) % n];
            s += g(2) * x[j];
        }
    }
    s
}

/// Elements of container loops (`for (i, a) in x.iter().enumerate()`, `zip`) read in loops
/// nested inside them and in branches.
#[forward]
#[reverse]
fn container_elements_inside(x: &[f64]) -> f64 {
    let n = x.len();
    let w: Vec<f64> = x.iter().map(|v| v * 2.0).collect();
    let mut s = 0.0;
    for (i, a) in x.iter().enumerate() {
        for (j, (b, c)) in w.iter().zip(x.iter()).enumerate() {
            for m in 0..2 {
                s += a * b * x[(i + j + m) % n];
                if *c > 0.0 {
                    s += a * c;
                }
            }
        }
        for v in &w {
            s += v * a;
        }
    }
    s
}

/// A constant defined in the loop body shadowing one defined outside.
#[forward]
#[reverse]
fn local_constants(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        const STRIDE: usize = 3;
        for j in 0..n {
            s += x[(i * STRIDE + j) % n] * x[j];
        }
    }
    for i in 0..n {
        s += x[(i * STRIDE) % n];
    }
    s
}

/// Four levels of nesting, with `/` and `%` and names from around.
#[forward]
#[reverse]
fn deep_nest(x: &[f64]) -> f64 {
    let n = x.len();
    let d = 2;
    let mut s = 0.0;
    for a in 0..2 {
        for b in 0..d {
            for c in b..3 {
                for e in 0..(c + 1) {
                    s += x[(a * d * 3 + b * 3 + c + e / 2) % n] * x[(e % d + a) % n];
                }
            }
        }
    }
    s
}

/// A loop in a closure called in a loop; a `move` closure copying a counter.
#[forward]
#[reverse]
fn loop_in_closure(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        let sweep = |off: usize| {
            let mut t = 0.0;
            for j in 0..n {
                t += x[(j + off + i) % n] * x[j];
            }
            t
        };
        s += sweep(1) * sweep(i);
    }
    s
}

/// A running index advanced before, after and between inner loops, and a running index of an
/// inner loop whose entry the loop around changes.
#[forward]
#[reverse]
fn running_mixed(x: &[f64]) -> f64 {
    let n = x.len();
    let mut l = 0;
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..2 {
            s += x[(l + j) % n] * x[i];
        }
        l += 2;
        for j in 0..2 {
            s += x[(l + j) % n] * x[i];
        }
        let mut m = i;
        for j in 0..3 {
            s += x[(m + j) % n];
            m += 1;
            s += x[m % n] * x[j];
        }
        s += x[m % n];
    }
    let mut q = 1;
    while q < n {
        s += x[q] * x[q - 1];
        q += 2;
    }
    s
}

/// Containers of containers: `x[i][j]` with counters and names from around, rows bound by
/// outer loops and read in inner loops.
#[forward]
#[reverse]
fn nested_rows(x: &[Vec<f64>], w: f64) -> f64 {
    let n = x.len();
    let k = 1;
    let mut s = 0.0;
    for i in 0..n {
        let m = x[i].len();
        for j in 0..m {
            s += x[i][j] * x[(i + k) % n][(j + k) % m] * w;
        }
        for (j, row) in x.iter().enumerate() {
            for c in 0..row.len() {
                s += row[c] * x[i][(c + j) % m];
            }
        }
    }
    s
}

const ROWS: usize = 3;

fn to_rows(x: &[f64]) -> (Vec<Vec<f64>>, f64) {
    let rows = x[..ROWS * ROWS].chunks(ROWS).map(<[f64]>::to_vec).collect();
    (rows, x[ROWS * ROWS])
}

fn nested_rows_flat(x: &[f64]) -> f64 {
    let (rows, w) = to_rows(x);
    nested_rows(&rows, w)
}

fn nested_rows_flat_jvp(x: &[f64], t: &[f64]) -> (f64, f64) {
    let (rows, w) = to_rows(x);
    let (drows, dw) = to_rows(t);
    nested_rows_jvp(&rows, w, &drows, dw)
}

fn nested_rows_flat_vjp(x: &[f64], c: f64) -> (f64, Vec<f64>) {
    let (rows, w) = to_rows(x);
    let (value, (grows, gw)) = nested_rows_vjp(&rows, w, c);
    let mut g: Vec<f64> = grows.concat();
    g.push(gw);
    (value, g)
}

/// `continue 'outer` from an inner loop, loops in `match` arms, starts with `/` and `%`,
/// an `enumerate` position shadowed in the body.
#[forward]
#[reverse]
fn labeled_and_matched(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    'outer: for i in 0..n {
        for j in (i / STRIDE)..n {
            if j == i + 2 {
                continue 'outer;
            }
            s += x[j] * x[(i % STRIDE + j) % n];
        }
    }
    for i in 0..n {
        match i % 3 {
            0 => {
                for j in (i % 2)..n {
                    s += x[(j + i) % n] * x[j];
                }
            }
            1 => s += x[i] * x[(i + STRIDE) % n],
            _ => {}
        }
        for j in (i * 2 / 3)..(n - i % 2) {
            s += x[j] * x[i] * 0.25;
        }
    }
    for (i, a) in x.iter().enumerate() {
        let i = (i + 1) % n;
        s += a * x[i];
        for j in i..n {
            s += a * x[j];
        }
    }
    s
}

// ===== tests =====

#[test]
fn names_changed_in_the_loop_by_closures_and_swaps_are_kept() {
    check_gradient(5, closure_changes, closure_changes_jvp, closure_changes_vjp);
    check_gradient(5, swapped, swapped_jvp, swapped_vjp);
}

#[test]
fn shadowed_and_late_initialized_names() {
    check_gradient(
        5,
        shadowed_in_block,
        shadowed_in_block_jvp,
        shadowed_in_block_vjp,
    );
    check_gradient(5, deferred_init, deferred_init_jvp, deferred_init_vjp);
    check_gradient(
        5,
        same_counter_names,
        same_counter_names_jvp,
        same_counter_names_vjp,
    );
}

#[test]
fn while_loops_branches_and_exits() {
    check_gradient(
        5,
        while_around_for,
        while_around_for_jvp,
        while_around_for_vjp,
    );
    check_gradient(
        6,
        loops_in_branches,
        loops_in_branches_jvp,
        loops_in_branches_vjp,
    );
    check_gradient(5, with_exits, with_exits_jvp, with_exits_vjp);
    check_gradient(
        6,
        labeled_and_matched,
        labeled_and_matched_jvp,
        labeled_and_matched_vjp,
    );
}

#[test]
fn ranges_reversed_stepped_at_type_limits_and_with_changing_starts() {
    check_gradient(
        5,
        reversed_and_stepped,
        reversed_and_stepped_jvp,
        reversed_and_stepped_vjp,
    );
    check_gradient(
        6,
        small_and_signed_counters,
        small_and_signed_counters_jvp,
        small_and_signed_counters_vjp,
    );
    check_gradient(5, changing_starts, changing_starts_jvp, changing_starts_vjp);
    check_gradient(7, deep_nest, deep_nest_jvp, deep_nest_vjp);
    check_gradient(5, local_constants, local_constants_jvp, local_constants_vjp);
}

#[test]
fn element_writes_at_recomputed_indices() {
    check_gradient(5, element_writes, element_writes_jvp, element_writes_vjp);
}

#[test]
fn reductions_closures_and_container_loops() {
    check_gradient(
        4,
        reductions_in_loops,
        reductions_in_loops_jvp,
        reductions_in_loops_vjp,
    );
    check_gradient(
        5,
        inlined_closures,
        inlined_closures_jvp,
        inlined_closures_vjp,
    );
    check_gradient(5, loop_in_closure, loop_in_closure_jvp, loop_in_closure_vjp);
    check_gradient(
        4,
        container_elements_inside,
        container_elements_inside_jvp,
        container_elements_inside_vjp,
    );
}

#[test]
fn running_indices_around_inner_loops() {
    check_gradient(5, running_mixed, running_mixed_jvp, running_mixed_vjp);
}

#[test]
fn containers_of_containers() {
    check_gradient(
        ROWS * ROWS + 1,
        nested_rows_flat,
        nested_rows_flat_jvp,
        nested_rows_flat_vjp,
    );
}

// ===== Formerly silently wrong (regressions of the first version of the loop environment) =====
//
// Each recomputed a name from around a loop, or took a name for a running index, although the
// loop changed it in a way the first version did not see.

struct Pair {
    a: usize,
    b: usize,
}

fn advance(k: &mut usize) -> usize {
    *k += 1;
    *k
}

/// Was silently wrong in the first version of the loop environment (`may_change` misses destructuring assignment): `k` is taken
/// for a name the nest does not change and recomputed as its value before the loop (0).
#[forward]
#[reverse]
fn destructured_around(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut m = 1;
    let mut s = 0.0;
    for j in 0..n {
        s += x[(k + j) % n] * x[j];
        (k, m) = (m, k + m);
    }
    s
}

#[test]
fn formerly_wrong_destructured_around() {
    check_gradient(
        5,
        destructured_around,
        destructured_around_jvp,
        destructured_around_vjp,
    );
}

/// Was silently wrong in the first version of the loop environment: the same with an array pattern `[k, m] = ...`.
#[forward]
#[reverse]
fn destructured_array(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut m = 3;
    let mut s = 0.0;
    for j in 0..n {
        for i in 0..2 {
            s += x[(k + i) % n] * x[j];
        }
        [k, m] = [m, k + 1];
    }
    s
}

#[test]
fn formerly_wrong_destructured_array() {
    check_gradient(
        5,
        destructured_array,
        destructured_array_jvp,
        destructured_array_vjp,
    );
}

/// Was silently wrong in the first version of the loop environment: the same with `(k, _) = ...`.
#[forward]
#[reverse]
fn destructured_wild(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 1;
    let mut s = 0.0;
    for j in 0..n {
        s += x[(k * j) % n].sin();
        (k, _) = (k + 2, 0);
    }
    s
}

#[test]
fn formerly_wrong_destructured_wild() {
    check_gradient(
        5,
        destructured_wild,
        destructured_wild_jvp,
        destructured_wild_vjp,
    );
}

/// Was silently wrong in the first version of the loop environment: the same with a struct pattern `Pair { a: k, b: m } = ...`.
#[forward]
#[reverse]
fn destructured_struct(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut m = 2;
    let mut s = 0.0;
    for j in 0..n {
        s += x[(k + j) % n] * x[j];
        Pair { a: k, b: m } = Pair { a: m, b: k + 1 };
    }
    s
}

#[test]
fn formerly_wrong_destructured_struct() {
    check_gradient(
        5,
        destructured_struct,
        destructured_struct_jvp,
        destructured_struct_vjp,
    );
}

/// Was silently wrong in the first version of the loop environment:, and at ac3204e through `hoist` as well (an element read at an
/// index the loop does not change is read once before the loop): `x[k]` with `k` changed by
/// destructuring assignment, read at the value `k` had before the loop (0).
#[forward]
#[reverse]
fn destructured_plain_index(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut m = 1;
    let mut s = 0.0;
    for j in 0..n {
        s += x[k] * x[j];
        (k, m) = (m, (k + 2) % n);
    }
    s
}

#[test]
fn formerly_wrong_destructured_plain_index() {
    check_gradient(
        5,
        destructured_plain_index,
        destructured_plain_index_jvp,
        destructured_plain_index_vjp,
    );
}

/// Was silently wrong in the first version of the loop environment (`may_change` misses `ref mut` bindings):
/// `let ref mut r = k; *r += 2;`.
#[forward]
#[reverse]
fn ref_mut_around(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut s = 0.0;
    for j in 0..n {
        s += x[(k + j) % n] * x[j];
        let ref mut r = k;
        *r += 2;
    }
    s
}

#[test]
fn formerly_wrong_ref_mut_around() {
    check_gradient(5, ref_mut_around, ref_mut_around_jvp, ref_mut_around_vjp);
}

/// Was silently wrong in the first version of the loop environment: the same through `match k { ref mut r => *r += 1 }`.
#[forward]
#[reverse]
fn ref_mut_match(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut s = 0.0;
    for j in 0..n {
        s += x[(k + j) % n] * x[j];
        match k {
            ref mut r => *r += 1,
        }
    }
    s
}

#[test]
fn formerly_wrong_ref_mut_match() {
    check_gradient(5, ref_mut_match, ref_mut_match_jvp, ref_mut_match_vjp);
}

/// Was silently wrong in the first version of the loop environment: the same through `if let ref mut r = k { *r += 1; }`.
#[forward]
#[reverse]
fn ref_mut_if_let(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut s = 0.0;
    for j in 0..n {
        s += x[(k + j) % n] * x[j];
        #[allow(irrefutable_let_patterns)]
        if let ref mut r = k {
            *r += 1;
        }
    }
    s
}

#[test]
fn formerly_wrong_ref_mut_if_let() {
    check_gradient(5, ref_mut_if_let, ref_mut_if_let_jvp, ref_mut_if_let_vjp);
}

/// Was silently wrong in the first version of the loop environment (`may_change` is given the body of a `while` loop, not its condition):
/// `k` changes in the condition only, is recomputed as its value before the loop (0).
#[forward]
#[reverse]
fn while_condition_changes(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut s = 0.0;
    while advance(&mut k) < n {
        s += x[k] * x[k / 2];
    }
    s
}

#[test]
fn formerly_wrong_while_condition_changes() {
    check_gradient(
        5,
        while_condition_changes,
        while_condition_changes_jvp,
        while_condition_changes_vjp,
    );
}

/// Was silently wrong in the first version of the loop environment: the same with the change in a block condition.
#[forward]
#[reverse]
fn while_block_condition(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut s = 0.0;
    while {
        k += 1;
        k < n
    } {
        s += x[k] * x[k / 2];
    }
    s
}

#[test]
fn formerly_wrong_while_block_condition() {
    check_gradient(
        5,
        while_block_condition,
        while_block_condition_jvp,
        while_block_condition_vjp,
    );
}

/// Was silently wrong in the first version of the loop environment (running indices): `l += 1` changes the shadow declared in the body,
/// yet the outer `l` (always 2) is taken for a running index and recomputed as 2 + t.
#[forward]
#[reverse]
fn running_shadowed(x: &[f64]) -> f64 {
    let n = x.len();
    let l = 2;
    let mut s = 0.0;
    for i in 0..n {
        s += x[(l + i) % n] * x[i];
        let mut l = l * i;
        l += 1;
        s += x[l % n];
    }
    s
}

#[test]
fn formerly_wrong_running_shadowed() {
    check_gradient(
        5,
        running_shadowed,
        running_shadowed_jvp,
        running_shadowed_vjp,
    );
}

/// Was silently wrong in the first version of the loop environment: the same, the outer `l` read in an inner loop.
#[forward]
#[reverse]
fn running_shadowed_inner_loop(x: &[f64]) -> f64 {
    let n = x.len();
    let l = 1;
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..2 {
            s += x[(l + j) % n] * x[i];
        }
        let mut l = i;
        l += 1;
        s += x[l % n];
    }
    s
}

#[test]
fn formerly_wrong_running_shadowed_inner_loop() {
    check_gradient(
        5,
        running_shadowed_inner_loop,
        running_shadowed_inner_loop_jvp,
        running_shadowed_inner_loop_vjp,
    );
}

/// Was silently wrong in the first version of the loop environment (`changes` misses destructuring assignment): `l` advances by `l += 1`
/// and by `(l, m) = ...`, taken for a running index of step 1.
#[forward]
#[reverse]
fn running_destructured(x: &[f64]) -> f64 {
    let n = x.len();
    let mut l = 0;
    let mut m = 0;
    let mut s = 0.0;
    for i in 0..n {
        s += x[l % n] * x[i];
        l += 1;
        (l, m) = (l + m % 2, m + 1);
    }
    s
}

#[test]
fn formerly_wrong_running_destructured() {
    check_gradient(
        5,
        running_destructured,
        running_destructured_jvp,
        running_destructured_vjp,
    );
}

/// Was silently wrong in the first version of the loop environment: the same with `let ref mut r = l; *r += 1;` (real step 2).
#[forward]
#[reverse]
fn running_ref_mut(x: &[f64]) -> f64 {
    let n = x.len();
    let mut l = 0;
    let mut s = 0.0;
    for i in 0..n {
        s += x[l % n] * x[i];
        l += 1;
        let ref mut r = l;
        *r += 1;
    }
    s
}

#[test]
fn formerly_wrong_running_ref_mut() {
    check_gradient(5, running_ref_mut, running_ref_mut_jvp, running_ref_mut_vjp);
}

/// Was silently wrong in the first version of the loop environment: `l` also advances in the `while` condition (real step 2), which
/// `changes` does not see: `l` is taken for a running index of step 1.
#[forward]
#[reverse]
fn running_in_while_condition(x: &[f64]) -> f64 {
    let n = x.len();
    let mut l = 0;
    let mut s = 0.0;
    while advance(&mut l) < 2 * n {
        s += x[l % n].sin();
        l += 1;
    }
    s
}

#[test]
fn formerly_wrong_running_in_while_condition() {
    check_gradient(
        5,
        running_in_while_condition,
        running_in_while_condition_jvp,
        running_in_while_condition_vjp,
    );
}
