//! An adversarial review of what reverse mode keeps less of since 8a101c0, ac3204e, dcb6cd7
//! and their follow-ups: derivatives of `x * y` and `exp` built by the backward code from the
//! operands' values, container parameters read again by the borrowed companion behind `_vjp`,
//! `x * x` read once, elements read once before range loops (hoisting) and their cotangents
//! summed, `+=`/`-=` leaving the place's adjoint in place, loop counts recomputed from the range
//! ends, and the runtime's pools and adjoint vectors. Each function carries `#[forward]` and
//! `#[reverse]` and is checked by `common::check_gradient` (reverse against forward mode,
//! forward against central differences, the dot-product identity), or by hand against `_jvp`.
//!
//! The cases at the end gave silently wrong gradients (an item declared in a loop body:
//! `const`, `static`, a glob import) or a compile error in generated code (an inner range with
//! large literal ends) before 85560ba and 1aac763, which fixed them; they are regression tests
//! here. No case fails at 1aac763.

// The loops index on purpose, and the functions spell out what users write.
#![allow(
    clippy::needless_range_loop,
    clippy::explicit_counter_loop,
    clippy::identity_op,
    clippy::assign_op_pattern,
    clippy::reversed_empty_ranges,
    clippy::ptr_arg,
    clippy::never_loop,
    clippy::useless_vec,
    non_upper_case_globals,
    unused_assignments
)]

mod common;

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;
use common::check_gradient;

// ===== lazy derivatives of products and exp =====

/// An operand of a product assigned later in the same expression.
#[forward]
#[reverse]
fn operand_assigned_in_same_expression(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        let mut a = x[i];
        s +=
            a * {
                a = 2.0 * a * x[(i + 1) % n];
                a
            } * a;
    }
    s
}

/// A local element read by a product, then overwritten in the same iteration, and read again.
#[forward]
#[reverse]
fn element_overwritten_after_product(x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = x.to_vec();
    let mut s = 0.0;
    for i in 0..n {
        let j = (i + 1) % n;
        let p = v[i] * v[j];
        v[i] = 3.0 * v[j] * p;
        v[j] = v[i] * v[i];
        s += p * v[i] + v[j] * v[i];
    }
    s
}

/// Products in branches and matches inside loops, operands assigned in the branches.
#[forward]
#[reverse]
fn products_in_branches(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    let mut a = 1.0;
    for i in 0..n {
        if x[i] > 0.0 {
            let p = a * x[i];
            a = p * x[(i + 1) % n];
            s += p * a;
        } else {
            a = a * x[i] * x[i];
        }
        match i % 3 {
            0 => s += a * x[i],
            1 => {
                let q = x[i] * s;
                s = q * a;
            }
            _ => a = a * s,
        }
        s = s.sin();
    }
    s + a
}

/// `exp` values reused by later products and sums.
#[forward]
#[reverse]
fn exp_reused(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        let e = x[i].exp();
        s += e * e + e;
        let f = (x[i] * x[(i + 2) % n]).exp() * x[i].exp();
        s += f * e;
        let g = e.exp();
        s -= g * 0.01;
    }
    let e = s.exp();
    e * e
}

/// A float variable read by a product and then changed by a compound assignment whose right
/// side reads it again.
#[forward]
#[reverse]
fn product_then_compound(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.5;
    let mut t = 0.0;
    for i in 0..n {
        let p = s * x[i];
        s += s * p;
        s -= x[i] * s * 0.3;
        t += p * s;
        s *= 0.9;
    }
    s + t
}

#[test]
fn lazy_products() {
    check_gradient(
        4,
        operand_assigned_in_same_expression,
        operand_assigned_in_same_expression_jvp,
        operand_assigned_in_same_expression_vjp,
    );
    check_gradient(
        4,
        element_overwritten_after_product,
        element_overwritten_after_product_jvp,
        element_overwritten_after_product_vjp,
    );
    check_gradient(
        6,
        products_in_branches,
        products_in_branches_jvp,
        products_in_branches_vjp,
    );
    check_gradient(4, exp_reused, exp_reused_jvp, exp_reused_vjp);
    check_gradient(
        5,
        product_then_compound,
        product_then_compound_jvp,
        product_then_compound_vjp,
    );
}

// ===== x * x read once =====

/// `x * x` of variables, elements and container elements, with the variable changed between.
#[forward]
#[reverse]
fn squares(x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = x.to_vec();
    let mut s = 0.0;
    for i in 0..n {
        let mut a = x[i];
        s += a * a;
        a = a * a * 0.5 + x[(i + 1) % n];
        s += a * a;
        v[i] = v[i] * v[i];
        s += v[i] * v[i] + (v[(i + 1) % n]) * (v[(i + 1) % n]);
        v[(i + 1) % n] = s * 0.1;
    }
    for a in v.iter() {
        s += a * a;
    }
    s
}

/// `x * x` where the place is changed between operands by an inlined closure.
#[forward]
#[reverse]
fn square_through_closure(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        let mut a = x[i];
        let twice = |t: f64| 2.0 * t;
        s += a * twice(a);
        a = twice(a) * a;
        s += a * a;
    }
    s
}

#[test]
fn squares_read_once() {
    check_gradient(4, squares, squares_jvp, squares_vjp);
    check_gradient(
        4,
        square_through_closure,
        square_through_closure_jvp,
        square_through_closure_vjp,
    );
}

// ===== elements read once before a loop =====

/// A local element read in an inner loop, the container changed by the outer loop between
/// runs of the inner loop, and by a function taking `&mut`.
#[forward]
#[reverse]
fn hoisted_local_changed_between(x: &[f64]) -> f64 {
    let n = x.len();
    let mut c = vec![1.0; n];
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            s += c[i] * x[j] * c[(i + 1) % n];
        }
        c[(i + 1) % n] = s.cos();
        for j in 0..n {
            s += c[(i + 1) % n] * c[(i + 1) % n] * x[j];
        }
    }
    s
}

/// An index name changed in a loop nested in the loop that reads the element.
#[forward]
#[reverse]
fn index_changed_by_nested_loop(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut s = 0.0;
    for j in 0..n {
        s += x[k] * x[j];
        for _ in 0..2 {
            k = (k + 1) % n;
        }
        s += x[k] * x[j];
    }
    s
}

/// Loops that do not run: empty, reversed, negative `i32` ends; the hoisted element would be
/// out of bounds.
#[forward]
#[reverse]
fn hoisting_in_loops_that_do_not_run(x: &[f64]) -> f64 {
    let n = x.len();
    let far = 10 * n;
    let mut s = 0.0;
    for j in n..n {
        s += x[far] * x[j];
    }
    for j in 5..2 {
        s += x[far] * x[j];
    }
    let m = n as i32;
    for j in (-m)..(-m - 1) {
        s += x[far] * x[j as usize];
    }
    for j in 3..=2 {
        s += x[far] * x[j];
    }
    for i in 0..n {
        for j in (i + 1)..i {
            s += x[far + i] * x[j];
        }
        for j in i..=n {
            if j < n {
                s += x[(i + 2) % n] * x[j];
            }
        }
        s += x[i] * x[i];
    }
    s
}

/// The counter shadows the name the index reads; the index name is shadowed later in the body.
#[forward]
#[reverse]
fn counter_shadows_index_name(x: &[f64]) -> f64 {
    let n = x.len();
    let k = 1;
    let mut s = 0.0;
    for k in 0..n {
        s += x[k] * x[(k + 1) % n];
    }
    for j in 0..n {
        s += x[k] * x[j];
        let k = j;
        s += x[k] * 0.5 * x[j];
    }
    s
}

/// A hoisted element in a loop inside a loop with `break`.
#[forward]
#[reverse]
fn hoisted_inside_exiting_loop(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            s += x[i] * x[j];
        }
        if s > 3.0 {
            break;
        }
    }
    s
}

/// Hoisted elements of loops over containers (enumerate, zip), the container a local.
#[forward]
#[reverse]
fn hoisted_in_container_loops(x: &[f64]) -> f64 {
    let n = x.len();
    let w: Vec<f64> = x.iter().map(|a| a * 2.0).collect();
    let mut s = 0.0;
    for i in 0..n {
        for (j, a) in x.iter().enumerate() {
            s += a * w[i] * x[(i + j) % n];
        }
        for (a, b) in x.iter().zip(w.iter()) {
            s += a * b * w[(i + 1) % n];
        }
    }
    s
}

/// Inner ranges that are empty in some outer iterations, with an element that is out of
/// bounds exactly then; half-open and inclusive.
#[forward]
#[reverse]
fn empty_inner_ranges_out_of_bounds(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in (i + 1)..n {
            s += x[i + 1] * x[j];
        }
        for j in (i + 1)..=(n - 1) {
            s += x[i + 1] * x[j] * 0.5;
        }
        for j in 0..(n - 1 - i) {
            s += x[n - 1 - j] * x[i + j + 1];
        }
    }
    s
}

/// Hoisting in a loop in a match arm inside a loop, in a loop used as a value, in a `for`
/// inside a `while`, and the same element hoisted at two levels.
#[forward]
#[reverse]
fn hoisted_in_various_places(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        match i % 2 {
            0 => {
                for j in 0..n {
                    s += x[i] * x[j];
                }
            }
            _ => s += x[i],
        }
        s += x[0] * x[i];
        for j in 0..n {
            s += x[0] * x[j] * 0.1;
        }
    }
    let mut k = 0;
    while k < n {
        for j in k..n {
            s += x[k] * x[j] * 0.2;
        }
        k += 2;
    }
    let r = loop {
        let mut t = 0.0;
        for j in 0..n {
            t += x[1] * x[j];
        }
        break t;
    };
    s + r
}

/// A function whose loops hoist elements of its parameter, called from another (the internal
/// companion, not the borrowed one).
#[forward]
#[reverse]
fn inner_hoisting(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..x.len() {
            s += x[k] * x[j] * x[i];
        }
        s += x[k] * x[i];
    }
    s
}

#[forward]
#[reverse]
fn calls_inner_hoisting(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for k in 0..n {
        s += inner_hoisting(x, k) * x[k];
    }
    let v: Vec<f64> = x.iter().map(|a| a.sin()).collect();
    s + inner_hoisting(&v, 1)
}

fn inner_hoisting_flat(x: &[f64]) -> f64 {
    inner_hoisting(x, 2)
}

fn inner_hoisting_flat_jvp(x: &[f64], t: &[f64]) -> (f64, f64) {
    inner_hoisting_jvp(x, 2, t)
}

fn inner_hoisting_flat_vjp(x: &[f64], c: f64) -> (f64, Vec<f64>) {
    inner_hoisting_vjp(x, 2, c)
}

/// A local copy of the parameter, grown by `push`, read at an index past the parameter's end
/// in loops.
#[forward]
#[reverse]
fn copy_grown_past_parameter(x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = x.to_vec();
    v.push(x[0] * x[1]);
    v.push(x[1].exp());
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            s += v[n + 1] * v[j] * x[i];
        }
        s += v[n] * x[i];
    }
    s
}

/// Reductions (desugared to loops) reading an element at the outer counter, mapped, folded
/// and filtered.
#[forward]
#[reverse]
fn reductions_with_invariant_elements(x: &[f64]) -> f64 {
    let n = x.len();
    let c: Vec<f64> = x.iter().map(|a| a.cos()).collect();
    let mut s = 0.0;
    for k in 0..n {
        s += x.iter().map(|a| a * c[k]).sum::<f64>();
        s += x.iter().fold(0.0, |acc, a| acc + a * x[k] * c[k]);
        s += x
            .iter()
            .filter(|a| **a > 0.0)
            .map(|a| a * c[(k + 1) % n])
            .sum::<f64>();
        s += c.iter().map(|a| a * x[k]).product::<f64>();
    }
    s
}

/// Fourteen elements read once before one loop.
#[forward]
#[reverse]
fn many_hoisted(x: &[f64]) -> f64 {
    let c: Vec<f64> = x.iter().map(|a| a * 0.5 + 0.1).collect();
    let mut s = 0.0;
    for j in 0..x.len() {
        s += x[j]
            * (c[0]
                + c[1] * c[2]
                + c[3] * c[4]
                + c[5] * c[6]
                + c[7] * c[8]
                + c[9] * c[10]
                + c[11] * c[12]
                + c[13] * c[0]);
    }
    s
}

/// Hoisted elements of a local in an `f32` function.
#[forward]
#[reverse]
fn hoisted_f32(x: &[f32]) -> f32 {
    let c: Vec<f32> = x.iter().map(|a| a * 2.0).collect();
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..x.len() {
            s += c[i] * x[j] * c[0];
        }
    }
    s
}

/// Four loops deep, each hoisting an element indexed by the counters around it.
#[forward]
#[reverse]
fn four_deep(x: &[f64]) -> f64 {
    let n = x.len();
    let v: Vec<f64> = x.iter().map(|a| a.sin()).collect();
    let mut s = 0.0;
    for a in 0..n {
        for b in 0..2 {
            for c in 0..2 {
                for d in 0..n {
                    s += v[a] * v[(a + b) % n] * v[(a + b + c) % n] * x[d] * 0.1;
                }
                s += v[(a + c) % n] * x[b];
            }
        }
    }
    s
}

/// Hoisted elements in `vec!`, `push`, tuple assignments and operands pinned by a later
/// operand's assignment.
#[forward]
#[reverse]
fn hoisted_in_other_statements(x: &[f64]) -> f64 {
    let n = x.len();
    let c: Vec<f64> = x.iter().map(|a| a * 0.5).collect();
    let mut out = Vec::new();
    let mut s = 0.0;
    let mut a = 0.0;
    let mut b = 0.0;
    for j in 0..n {
        let w = vec![c[1], x[j] * c[2]];
        let r = vec![c[0]; 2];
        out.push(c[3] * x[j]);
        (a, b) = (c[1] * b + x[j], a * c[2]);
        s += c[0] * {
            a = a * 0.5;
            a
        } + w[0] * w[1]
            + r[1];
    }
    for v in out.iter() {
        s += v * v;
    }
    s + a * b
}

/// Inner loops in a block directly in the outer body and after an `if` in it.
#[forward]
#[reverse]
fn inner_loops_in_blocks(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        {
            for j in 0..n {
                s += x[i] * x[j];
            }
        }
        if x[i] > 0.0 {
            for j in i..n {
                s += x[i] * x[j] * 0.5;
            }
        }
        for j in 0..i {
            s += x[i] * x[j] * 0.25;
        }
    }
    s
}

/// A loop with `continue` between two pooled loops; a labeled `continue` to the outermost
/// loop from the innermost.
#[forward]
#[reverse]
fn mixed_exits(x: &[f64]) -> f64 {
    let n = x.len();
    let v: Vec<f64> = x.iter().map(|a| a * 0.7).collect();
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            if (i + j) % 3 == 1 {
                continue;
            }
            for k in j..n {
                s += v[i] * x[k] * x[j] + x[i] * v[j];
            }
            s += v[j] * x[i];
        }
        s += v[i] * x[i];
    }
    'outer: for i in 0..n {
        for j in 0..n {
            for k in 0..2 {
                s += x[i] * v[j] * x[k];
                if s > 4.0 + i as f64 {
                    continue 'outer;
                }
            }
        }
    }
    s
}

/// Containers declared in the outer loop's body (a collect, a `vec!` of a value), read once
/// before the inner loop.
#[forward]
#[reverse]
fn hoisted_from_containers_of_the_body(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        let c: Vec<f64> = x.iter().map(|a| a * x[i]).collect();
        let r = vec![x[i].exp(); 3];
        for j in 0..n {
            s += c[i] * c[(i + 1) % n] * x[j] + r[1] * x[j];
        }
        s += c[0] * r[2];
    }
    s
}

#[test]
fn hoisted_elements() {
    check_gradient(
        4,
        hoisted_local_changed_between,
        hoisted_local_changed_between_jvp,
        hoisted_local_changed_between_vjp,
    );
    check_gradient(
        5,
        index_changed_by_nested_loop,
        index_changed_by_nested_loop_jvp,
        index_changed_by_nested_loop_vjp,
    );
    check_gradient(
        4,
        counter_shadows_index_name,
        counter_shadows_index_name_jvp,
        counter_shadows_index_name_vjp,
    );
    check_gradient(
        5,
        hoisted_inside_exiting_loop,
        hoisted_inside_exiting_loop_jvp,
        hoisted_inside_exiting_loop_vjp,
    );
    check_gradient(
        4,
        hoisted_in_container_loops,
        hoisted_in_container_loops_jvp,
        hoisted_in_container_loops_vjp,
    );
    check_gradient(
        5,
        hoisted_in_various_places,
        hoisted_in_various_places_jvp,
        hoisted_in_various_places_vjp,
    );
    check_gradient(
        4,
        copy_grown_past_parameter,
        copy_grown_past_parameter_jvp,
        copy_grown_past_parameter_vjp,
    );
    check_gradient(
        5,
        hoisted_in_other_statements,
        hoisted_in_other_statements_jvp,
        hoisted_in_other_statements_vjp,
    );
    check_gradient(
        4,
        hoisted_from_containers_of_the_body,
        hoisted_from_containers_of_the_body_jvp,
        hoisted_from_containers_of_the_body_vjp,
    );
    check_gradient(
        5,
        inner_loops_in_blocks,
        inner_loops_in_blocks_jvp,
        inner_loops_in_blocks_vjp,
    );
    check_gradient(5, mixed_exits, mixed_exits_jvp, mixed_exits_vjp);
}

#[test]
fn hoisted_elements_of_loops_that_do_not_run() {
    check_gradient(
        4,
        hoisting_in_loops_that_do_not_run,
        hoisting_in_loops_that_do_not_run_jvp,
        hoisting_in_loops_that_do_not_run_vjp,
    );
    check_gradient(
        5,
        empty_inner_ranges_out_of_bounds,
        empty_inner_ranges_out_of_bounds_jvp,
        empty_inner_ranges_out_of_bounds_vjp,
    );
}

#[test]
fn hoisted_elements_in_reductions_many_and_deep() {
    check_gradient(
        4,
        reductions_with_invariant_elements,
        reductions_with_invariant_elements_jvp,
        reductions_with_invariant_elements_vjp,
    );
    check_gradient(14, many_hoisted, many_hoisted_jvp, many_hoisted_vjp);
    check_gradient(4, four_deep, four_deep_jvp, four_deep_vjp);
    let x32 = [0.4f32, -0.2, 1.1];
    let (value, dx) = hoisted_f32_vjp(&x32[..], 1.0);
    assert_eq!(value.to_bits(), hoisted_f32(&x32).to_bits());
    for i in 0..3 {
        let mut e = [0.0f32; 3];
        e[i] = 1.0;
        assert_relative_eq!(
            dx[i],
            hoisted_f32_jvp(&x32[..], &e[..]).1,
            max_relative = 1e-5
        );
    }
}

#[test]
fn hoisted_elements_of_a_function_called_by_another() {
    check_gradient(
        4,
        inner_hoisting_flat,
        inner_hoisting_flat_jvp,
        inner_hoisting_flat_vjp,
    );
    check_gradient(
        4,
        calls_inner_hoisting,
        calls_inner_hoisting_jvp,
        calls_inner_hoisting_vjp,
    );
}

// ===== counts recomputed from range ends, pools =====

/// Negative `i32` ranges that run, reading a hoisted element at a cast index.
#[forward]
#[reverse]
fn negative_ranges(x: &[f64]) -> f64 {
    let n = x.len() as i32;
    let mut s = 0.0;
    let k = 2;
    for i in -n..0 {
        for j in (i - 2)..i {
            s += x[k] * x[(j + 2 * n) as usize % x.len()];
        }
        for j in i..=(i + 1) {
            s += x[(j + n) as usize % x.len()] * x[k + 1];
        }
    }
    s
}

/// Counters of `u8` up to 255 and of `i8` from -128, in inner loops whose counts are
/// recomputed from their ends.
#[forward]
#[reverse]
fn counts_at_type_limits(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..2 {
        for c in 0u8..=255 {
            s += x[(c as usize + i) % n] * 0.001 * x[i];
        }
        for c in -128i8..=127 {
            s += x[(c as i32 + 128) as usize % n] * 0.001 * x[i + 1];
        }
        for c in 250u8..255 {
            s += x[c as usize % n] * x[i];
        }
    }
    s
}

/// Three levels of triangular `i32` loops with inclusive ranges: counts recomputed from ends
/// that are counters of the loops around, negative ones included.
#[forward]
#[reverse]
fn triangular_three_levels(x: &[f64]) -> f64 {
    let n = x.len() as i32;
    let mut s = 0.0;
    for i in -2..3 {
        for j in (i - 1)..=(i + 1) {
            for k in j..(i + 2) {
                s += x[((k + 2 * n) % n) as usize] * x[((i + j + 3 * n) % n) as usize];
            }
            for k in (j + 1)..=i {
                s += x[((k + n) % n) as usize] * 0.5;
            }
        }
        for j in (i + 3)..i {
            s += x[j as usize] * 100.0;
        }
    }
    s
}

/// The outer counter shadowed before the inner loop's range reads it; a running index read by
/// inner ranges before and after it advances.
#[forward]
#[reverse]
fn shadowed_counter_and_running_ends(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    let mut l = 0;
    for i in 0..n {
        let i = (i * 3) % n;
        for j in 0..i {
            s += x[j] * x[i];
        }
        for j in l..(l + 2) {
            s += x[j % n] * x[i] * 0.5;
        }
        l += 1;
        for j in (l - 1)..=l {
            s += x[j % n] * x[(i + 1) % n];
        }
    }
    s
}

/// `while` loops advancing a running index, reading a parameter again at it.
#[forward]
#[reverse]
fn while_running_reads(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    let mut i = 0;
    while i < n {
        s += x[i] * x[i] * x[(i + 1) % n];
        i += 1;
        s += x[i % n] * 0.5;
    }
    let mut k = 0;
    while k + 1 < n {
        for j in k..(k + 2) {
            s += x[j] * x[k];
        }
        k += 1;
    }
    s
}

/// Many iterations of nested loops: the pools fill several chunks.
#[forward]
#[reverse]
fn many_iterations(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..40 {
        for j in 0..40 {
            for k in 0..20 {
                let a = x[(i + j + k) % n];
                s += a * x[k % n] * 0.0001 + (a * 0.001).exp() * 0.0001;
            }
        }
    }
    s
}

/// Iteration pullbacks that keep nothing (sizes of zero in the pools), many of them.
#[forward]
#[reverse]
fn pullbacks_keeping_nothing(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for _ in 0..300 {
        for j in 0..n {
            s += x[j];
        }
    }
    s
}

/// Inner loops of thousands of iterations per run of the outer loop (pools of several chunks,
/// run back chunk by chunk), with elements read once before them, counts recomputed from the
/// ends, and counters recomputed from the iteration number.
#[forward]
#[reverse]
fn long_inner_loops(x: &[f64]) -> f64 {
    let n = x.len();
    let c: Vec<f64> = x.iter().map(|a| a.cos()).collect();
    let mut s = 0.0;
    for i in 0..3 {
        for j in (i * 1000)..(i * 1000 + 3000) {
            let a = x[(j * 7 + i) % n];
            s += c[i] * a * x[(j + 1) % n] * 0.0001 + c[(i + 1) % n] * (a * 0.01).exp() * 0.0001;
        }
        for j in 0..=(2000 + i) {
            for k in 0..2 {
                s += c[(i + k) % n] * x[(j + k) % n] * 0.0001;
            }
        }
    }
    s
}

#[test]
fn counts_recomputed_from_range_ends() {
    check_gradient(5, negative_ranges, negative_ranges_jvp, negative_ranges_vjp);
    check_gradient(
        5,
        counts_at_type_limits,
        counts_at_type_limits_jvp,
        counts_at_type_limits_vjp,
    );
    check_gradient(
        4,
        triangular_three_levels,
        triangular_three_levels_jvp,
        triangular_three_levels_vjp,
    );
    check_gradient(
        5,
        shadowed_counter_and_running_ends,
        shadowed_counter_and_running_ends_jvp,
        shadowed_counter_and_running_ends_vjp,
    );
    check_gradient(
        5,
        while_running_reads,
        while_running_reads_jvp,
        while_running_reads_vjp,
    );
}

#[test]
fn pools_of_many_chunks_and_of_empty_pullbacks() {
    check_gradient(5, many_iterations, many_iterations_jvp, many_iterations_vjp);
    check_gradient(
        4,
        pullbacks_keeping_nothing,
        pullbacks_keeping_nothing_jvp,
        pullbacks_keeping_nothing_vjp,
    );
    check_gradient(
        5,
        long_inner_loops,
        long_inner_loops_jvp,
        long_inner_loops_vjp,
    );
}

// ===== += and -= leaving the place's adjoint in place =====

/// `-=` and `+=` on elements at indices that are sometimes the same.
#[forward]
#[reverse]
fn aliasing_compound_elements(x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = x.to_vec();
    for i in 0..n {
        for j in 0..n {
            let k = (i * j) % n;
            v[i] -= v[j] * x[k] * 0.3;
            v[j] += v[i] * v[k] * 0.2;
        }
    }
    let mut s = 0.0;
    for i in 0..n {
        s += v[i] * x[i];
    }
    s
}

/// `+=` whose right side calls a differentiated function that reads the whole container.
#[forward]
#[reverse]
fn sum_of_squares(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for a in v.iter() {
        s += a * a;
    }
    s
}

#[forward]
#[reverse]
fn compound_calls_reading_the_place(x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = x.to_vec();
    let mut s = 0.0;
    for i in 0..n {
        v[i] += sum_of_squares(&v) * 0.1;
        s += sum_of_squares(&v) * s * 0.01 + v[i];
        s -= s * 0.5;
    }
    s
}

/// `s -= s`, `v[i] -= v[i]`, `v[i] += v[i]`.
#[forward]
#[reverse]
fn compound_of_itself(x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = x.to_vec();
    let mut s = x[0];
    let mut t = x[1];
    for i in 0..n {
        v[i] += v[i];
        t += t;
        if i == 1 {
            v[i] -= v[i];
            s -= s;
        }
        s += v[i] * t;
    }
    s
}

#[test]
fn compound_assignments() {
    check_gradient(
        4,
        aliasing_compound_elements,
        aliasing_compound_elements_jvp,
        aliasing_compound_elements_vjp,
    );
    check_gradient(
        4,
        compound_calls_reading_the_place,
        compound_calls_reading_the_place_jvp,
        compound_calls_reading_the_place_vjp,
    );
    check_gradient(
        4,
        compound_of_itself,
        compound_of_itself_jvp,
        compound_of_itself_vjp,
    );
}

// ===== parameters read again by the borrowed companion =====

const SHIFT: usize = 1;

/// A constant defined in the body of the loop that reads `x[SHIFT]`, shadowing one defined
/// outside: the element read before the loop must be the body's `x[2]`.
#[forward]
#[reverse]
fn const_shadowed_in_loop_body(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for j in 0..n {
        const SHIFT: usize = 2;
        s += x[SHIFT] * x[j];
    }
    s + x[SHIFT]
}

/// Two slice parameters, one passed to another differentiated function inside the loop.
#[forward]
#[reverse]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[forward]
#[reverse]
fn two_params(x: &[f64], w: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            s += x[i] * w[j] * x[j];
        }
        s += dot(x, w) * w[i];
        s += dot(w, w) * x[i].exp();
    }
    s
}

fn check_two_params(
    f: impl Fn(&[f64], &[f64]) -> f64,
    jvp: impl Fn(&[f64], &[f64], &[f64], &[f64]) -> (f64, f64),
    vjp: impl Fn(&[f64], &[f64], f64) -> (f64, (Vec<f64>, Vec<f64>)),
    n: usize,
) {
    let mut rng = common::Rng::new(77);
    for _ in 0..4 {
        let x = common::random_vector(&mut rng, n);
        let w = common::random_vector(&mut rng, n);
        let (value, (gx, gw)) = vjp(&x, &w, 1.0);
        assert_eq!(value.to_bits(), f(&x, &w).to_bits());
        for i in 0..n {
            let mut e = vec![0.0; n];
            e[i] = 1.0;
            let z = vec![0.0; n];
            assert_relative_eq!(
                gx[i],
                jvp(&x, &w, &e, &z).1,
                epsilon = 1e-12,
                max_relative = 1e-11
            );
            assert_relative_eq!(
                gw[i],
                jvp(&x, &w, &z, &e).1,
                epsilon = 1e-12,
                max_relative = 1e-11
            );
        }
    }
}

/// The same parameter read again in the loop and called on recursively.
#[forward]
#[reverse]
fn recursive_reads(x: &[f64], k: usize) -> f64 {
    if k == 0 {
        return x[0];
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[(i + k) % x.len()];
    }
    s * 0.3 + recursive_reads(x, k - 1) * x[k % x.len()]
}

fn recursive_reads_flat(x: &[f64]) -> f64 {
    recursive_reads(x, 3)
}

fn recursive_reads_flat_jvp(x: &[f64], t: &[f64]) -> (f64, f64) {
    recursive_reads_jvp(x, 3, t)
}

fn recursive_reads_flat_vjp(x: &[f64], c: f64) -> (f64, Vec<f64>) {
    recursive_reads_vjp(x, 3, c)
}

/// Elements of a parameter read again in loops of a recursive function whose result feeds
/// products in the caller's loop.
#[forward]
#[reverse]
fn recursive_sum(x: &[f64], depth: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..depth {
            s += x[i] * x[(i + j) % x.len()];
        }
    }
    if depth == 0 {
        s
    } else {
        s * 0.5 + recursive_sum(x, depth - 1).sin()
    }
}

#[forward]
#[reverse]
fn calls_recursive_in_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for d in 0..3 {
        s += recursive_sum(x, d) * x[d];
    }
    s
}

/// A `&Vec<f64>` parameter read again, and an array reference.
#[forward]
#[reverse]
fn vec_reference(x: &Vec<f64>, w: &[f64; 3]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..3 {
            s += x[i] * w[j] * x[(i + j) % x.len()];
        }
    }
    s
}

/// A data slice of indices beside the float slice.
#[forward]
#[reverse]
fn gathered(x: &[f64], idx: &[usize]) -> f64 {
    let mut s = 0.0;
    for i in 0..idx.len() {
        for j in 0..idx.len() {
            s += x[idx[i]] * x[idx[j]] * x[i];
        }
    }
    s
}

fn gathered_flat(x: &[f64]) -> f64 {
    gathered(x, &[2, 0, 3, 3, 1])
}

fn gathered_flat_jvp(x: &[f64], t: &[f64]) -> (f64, f64) {
    gathered_jvp(x, &[2, 0, 3, 3, 1], t)
}

fn gathered_flat_vjp(x: &[f64], c: f64) -> (f64, Vec<f64>) {
    gathered_vjp(x, &[2, 0, 3, 3, 1], c)
}

/// Containers of containers read in nested loops.
#[forward]
#[reverse]
fn nested_param(x: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..x[i].len() {
            s += x[i][j] * x[(i + 1) % x.len()][j] * x[0][0];
        }
    }
    s
}

fn nested_param_flat(x: &[f64]) -> f64 {
    let rows: Vec<Vec<f64>> = x.chunks(3).map(<[f64]>::to_vec).collect();
    nested_param(&rows)
}

fn nested_param_flat_jvp(x: &[f64], t: &[f64]) -> (f64, f64) {
    let rows: Vec<Vec<f64>> = x.chunks(3).map(<[f64]>::to_vec).collect();
    let trows: Vec<Vec<f64>> = t.chunks(3).map(<[f64]>::to_vec).collect();
    nested_param_jvp(&rows, &trows)
}

fn nested_param_flat_vjp(x: &[f64], c: f64) -> (f64, Vec<f64>) {
    let rows: Vec<Vec<f64>> = x.chunks(3).map(<[f64]>::to_vec).collect();
    let (value, g) = nested_param_vjp(&rows, c);
    (value, g.concat())
}

/// Products of a parameter read again and a hoisted element of another parameter.
#[forward]
#[reverse]
fn read_again_times_hoisted(x: &[f64], w: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            s += x[i] * w[j] + w[i] * x[j] * x[j];
            s += (w[i] * x[j]).exp() * 0.1;
        }
    }
    s
}

#[derive(Clone, Debug, PartialEq, ad_runtime::Differentiable)]
pub struct Gains {
    pub a: f64,
    pub b: f64,
}

impl Gains {
    /// A method with a slice parameter: the borrowed companion beside `&self`.
    #[forward]
    #[reverse]
    pub fn apply(&self, x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            for j in 0..x.len() {
                s += self.a * x[i] * x[j] + self.b * x[j];
            }
        }
        s
    }
}

/// An anonymous lifetime, a `'static` data reference and a data slice beside the float slice.
#[forward]
#[reverse]
fn with_lifetimes(x: &'_ [f64], w: &[usize], name: &'static str) -> f64 {
    let mut s = name.len() as f64 * 0.0;
    for i in 0..x.len() {
        for j in 0..w.len() {
            s += x[i] * x[w[j] % x.len()];
        }
    }
    s
}

fn with_lifetimes_flat(x: &[f64]) -> f64 {
    with_lifetimes(x, &[1, 3, 0], "abc")
}

fn with_lifetimes_flat_jvp(x: &[f64], t: &[f64]) -> (f64, f64) {
    with_lifetimes_jvp(x, &[1, 3, 0], "abc", t)
}

fn with_lifetimes_flat_vjp(x: &[f64], c: f64) -> (f64, Vec<f64>) {
    with_lifetimes_vjp(x, &[1, 3, 0], "abc", c)
}

/// An `f32` function with loops that read its parameter again.
#[forward]
#[reverse]
fn single_precision(x: &[f32]) -> f32 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..x.len() {
            s += x[i] * x[j] * x[0];
        }
        s += x[i].exp() * x[i].exp();
    }
    s
}

/// Raw identifiers as parameter and local names.
#[forward]
#[reverse]
fn raw_names(r#in: &[f64]) -> f64 {
    let r#loop = r#in.len();
    let mut r#s = 0.0;
    for i in 0..r#loop {
        for j in 0..r#loop {
            r#s += r#in[i] * r#in[j];
        }
    }
    r#s
}

#[test]
fn parameters_read_again() {
    check_two_params(two_params, two_params_jvp, two_params_vjp, 4);
    check_two_params(dot, dot_jvp, dot_vjp, 3);
    check_two_params(
        read_again_times_hoisted,
        read_again_times_hoisted_jvp,
        read_again_times_hoisted_vjp,
        4,
    );
    check_gradient(
        5,
        recursive_reads_flat,
        recursive_reads_flat_jvp,
        recursive_reads_flat_vjp,
    );
    check_gradient(
        4,
        calls_recursive_in_loop,
        calls_recursive_in_loop_jvp,
        calls_recursive_in_loop_vjp,
    );
    check_gradient(5, gathered_flat, gathered_flat_jvp, gathered_flat_vjp);
    check_gradient(
        9,
        nested_param_flat,
        nested_param_flat_jvp,
        nested_param_flat_vjp,
    );
    check_gradient(3, raw_names, raw_names_jvp, raw_names_vjp);
    // Read again at the position the loop environment recomputes with the body's constant.
    check_gradient(
        4,
        const_shadowed_in_loop_body,
        const_shadowed_in_loop_body_jvp,
        const_shadowed_in_loop_body_vjp,
    );
    // `_grad` is `_vjp` with a cotangent of one.
    let x: [f64; 4] = [0.3, -0.4, 0.9, 1.2];
    let (value, gradient) = two_params_grad(&x[..], &x[..]);
    let (value_vjp, (gx, gw)) = two_params_vjp(&x[..], &x[..], 1.0);
    assert_eq!(value.to_bits(), value_vjp.to_bits());
    assert_eq!(gradient, (gx, gw));
}

#[test]
fn borrowed_companion_signatures() {
    let x: Vec<f64> = vec![0.3, -0.8, 1.1, 0.5];
    let w: [f64; 3] = [0.2, -1.0, 0.7];
    let (value, (gx, gw)) = vec_reference_vjp(&x, &w, 1.0);
    assert_eq!(value.to_bits(), vec_reference(&x, &w).to_bits());
    for i in 0..4 {
        let mut e = vec![0.0; 4];
        e[i] = 1.0;
        assert_relative_eq!(
            gx[i],
            vec_reference_jvp(&x, &w, &e, &[0.0; 3]).1,
            max_relative = 1e-12
        );
    }
    for j in 0..3 {
        let mut e = [0.0; 3];
        e[j] = 1.0;
        assert_relative_eq!(
            gw[j],
            vec_reference_jvp(&x, &w, &[0.0; 4].to_vec(), &e).1,
            max_relative = 1e-12
        );
    }
    check_gradient(
        4,
        with_lifetimes_flat,
        with_lifetimes_flat_jvp,
        with_lifetimes_flat_vjp,
    );
    let g = Gains { a: 0.7, b: -1.3 };
    let x = [0.4, -0.2, 1.1];
    let (value, (dg, dx)) = g.apply_vjp(&x[..], 1.0);
    assert_eq!(value.to_bits(), g.apply(&x).to_bits());
    let zero = Gains { a: 0.0, b: 0.0 };
    for i in 0..3 {
        let mut e = [0.0; 3];
        e[i] = 1.0;
        assert_relative_eq!(
            dx[i],
            g.apply_jvp(&x[..], &zero, &e[..]).1,
            max_relative = 1e-12
        );
    }
    let da = g
        .apply_jvp(&x[..], &Gains { a: 1.0, b: 0.0 }, &[0.0; 3][..])
        .1;
    let db = g
        .apply_jvp(&x[..], &Gains { a: 0.0, b: 1.0 }, &[0.0; 3][..])
        .1;
    assert_relative_eq!(dg.a, da, max_relative = 1e-12);
    assert_relative_eq!(dg.b, db, max_relative = 1e-12);
    let x32 = [0.4f32, -0.2, 1.1];
    let (value, dx) = single_precision_vjp(&x32[..], 1.0);
    assert_eq!(value.to_bits(), single_precision(&x32).to_bits());
    for i in 0..3 {
        let mut e = [0.0f32; 3];
        e[i] = 1.0;
        assert_relative_eq!(
            dx[i],
            single_precision_jvp(&x32[..], &e[..]).1,
            max_relative = 1e-5
        );
    }
}

// ===== second derivatives (forward over reverse) through the lazy rules =====

/// Second derivatives: the gradient evaluated at dual numbers (forward over reverse) carries
/// the Hessian-vector product; checked against central differences of the gradient.
fn check_hessian_vector(
    name: &str,
    vjp: impl Fn(&[f64], f64) -> (f64, Vec<f64>),
    vjp_dual: impl Fn(&[ad_runtime::Dual<f64>]) -> Vec<ad_runtime::Dual<f64>>,
    n: usize,
) {
    let mut rng = common::Rng::new(5);
    for _ in 0..3 {
        let x = common::random_vector(&mut rng, n);
        let v = common::random_vector(&mut rng, n);
        let xd: Vec<ad_runtime::Dual<f64>> = x
            .iter()
            .zip(&v)
            .map(|(a, b)| ad_runtime::Dual::new(*a, *b))
            .collect();
        let g = vjp_dual(&xd);
        for i in 0..n {
            let along = |h: f64| {
                let moved: Vec<f64> = x.iter().zip(&v).map(|(a, b)| a + h * b).collect();
                vjp(&moved, 1.0).1[i]
            };
            let hv = common::central_difference(along, 0.0, 1e-4);
            assert_relative_eq!(g[i].value, vjp(&x, 1.0).1[i], max_relative = 1e-12);
            assert!(
                (g[i].tangent - hv).abs() <= 1e-6 * (1.0 + hv.abs()),
                "{name}: Hessian-vector product {i}: {} against differences {hv}",
                g[i].tangent
            );
        }
    }
}

#[test]
fn second_derivatives_through_lazy_rules() {
    use ad_runtime::Dual;
    let one = Dual::new(1.0, 0.0);
    check_hessian_vector(
        "exp_reused",
        exp_reused_vjp,
        |x: &[Dual<f64>]| exp_reused::vjp(x, one).1,
        4,
    );
    check_hessian_vector(
        "squares",
        squares_vjp,
        |x: &[Dual<f64>]| squares::vjp(x, one).1,
        4,
    );
    check_hessian_vector(
        "hoisted_local_changed_between",
        hoisted_local_changed_between_vjp,
        |x: &[Dual<f64>]| hoisted_local_changed_between::vjp(x, one).1,
        4,
    );
    check_hessian_vector(
        "four_deep",
        four_deep_vjp,
        |x: &[Dual<f64>]| four_deep::vjp(x, one).1,
        4,
    );
    check_hessian_vector(
        "element_overwritten_after_product",
        element_overwritten_after_product_vjp,
        |x: &[Dual<f64>]| element_overwritten_after_product::vjp(x, one).1,
        4,
    );
    check_hessian_vector(
        "aliasing_compound_elements",
        aliasing_compound_elements_vjp,
        |x: &[Dual<f64>]| aliasing_compound_elements::vjp(x, one).1,
        4,
    );
    check_hessian_vector(
        "calls_inner_hoisting",
        calls_inner_hoisting_vjp,
        |x: &[Dual<f64>]| calls_inner_hoisting::vjp(x, one).1,
        4,
    );
}

// ===== items declared in loop bodies =====
//
// Wrong before 85560ba (found by this review): the scope tracking saw `let` bindings only,
// while Rust resolves a name in a loop body to a `const` or `static` declared in that body
// (which may shadow an outer constant, or even a `let` from around the loop). The read of a
// hoisted element before the loop, a position recomputed from the loop environment and an
// inner loop's count recomputed from its range ends then read another value than the body:
// silently wrong gradients (right values), a panic ("the backward sweep pops what the forward
// sweep pushed") when the recomputed count is larger, and `cannot find value` (E0425) for a
// constant declared only in the body and indexing a hoisted element.

/// `const_shadowed_in_loop_body` called from another differentiated function: its internal
/// companion hoists `x[SHIFT]` (the borrowed one behind `_vjp` reads it again instead).
#[forward]
#[reverse]
fn calls_const_shadowed(x: &[f64]) -> f64 {
    const_shadowed_in_loop_body(x) * 2.0
}

/// The same with a local (non-parameter) container.
#[forward]
#[reverse]
fn const_shadowed_local_container(x: &[f64]) -> f64 {
    let n = x.len();
    let v: Vec<f64> = x.iter().map(|a| a * 1.5).collect();
    let mut s = 0.0;
    for j in 0..n {
        const SHIFT: usize = 2;
        s += v[SHIFT] * x[j];
    }
    s
}

/// A `static` in the loop body shadowing a constant from outside.
#[forward]
#[reverse]
fn static_shadowed_in_loop_body(x: &[f64]) -> f64 {
    let n = x.len();
    let v: Vec<f64> = x.iter().map(|a| a.sin()).collect();
    let mut s = 0.0;
    for j in 0..n {
        static SHIFT: usize = 3;
        s += v[SHIFT] * x[j];
    }
    s
}

/// A lower-case constant in the loop body shadows a `let` from around the loop (Rust resolves
/// `k` in the body to the constant, 2).
#[forward]
#[reverse]
fn lowercase_const_shadows_let(x: &[f64]) -> f64 {
    let n = x.len();
    let k = 1;
    let v: Vec<f64> = x.iter().map(|a| a * 1.5).collect();
    let mut s = 0.0;
    for j in 0..n {
        const k: usize = 2;
        s += v[k] * x[j];
    }
    s + v[k]
}

/// The same, the constant indexing a parameter read again at a position recomputed from the
/// loop environment.
#[forward]
#[reverse]
fn lowercase_const_shadows_let_in_index(x: &[f64]) -> f64 {
    let n = x.len();
    let k = 1;
    let mut s = 0.0;
    for j in 0..n {
        const k: usize = 2;
        s += x[(j + k) % n] * x[j];
    }
    s + x[k]
}

/// The same constant as the end of an inner range: the loop around must recompute the inner
/// loop's count from the constant (3), not from the `let` (1).
#[forward]
#[reverse]
fn lowercase_const_as_inner_end(x: &[f64]) -> f64 {
    let n = x.len();
    let m = 1;
    let mut s = 0.0;
    for i in 0..n {
        const m: usize = 3;
        for j in 0..m {
            s += x[j] * x[i] * (j + 1) as f64;
        }
    }
    s + m as f64
}

/// The same with the `let` larger than the constant (a count recomputed from the `let` pops
/// more iteration pullbacks than the forward sweep pushed).
#[forward]
#[reverse]
fn lowercase_const_as_smaller_inner_end(x: &[f64]) -> f64 {
    let n = x.len();
    let m = 3;
    let mut s = 0.0;
    for i in 0..n {
        const m: usize = 1;
        for j in 0..m {
            s += x[j] * x[i];
        }
    }
    s + m as f64
}

#[test]
fn items_declared_in_loop_bodies() {
    check_gradient(
        4,
        calls_const_shadowed,
        calls_const_shadowed_jvp,
        calls_const_shadowed_vjp,
    );
    check_gradient(
        4,
        const_shadowed_local_container,
        const_shadowed_local_container_jvp,
        const_shadowed_local_container_vjp,
    );
    check_gradient(
        5,
        static_shadowed_in_loop_body,
        static_shadowed_in_loop_body_jvp,
        static_shadowed_in_loop_body_vjp,
    );
    check_gradient(
        4,
        lowercase_const_shadows_let,
        lowercase_const_shadows_let_jvp,
        lowercase_const_shadows_let_vjp,
    );
    check_gradient(
        4,
        lowercase_const_shadows_let_in_index,
        lowercase_const_shadows_let_in_index_jvp,
        lowercase_const_shadows_let_in_index_vjp,
    );
    check_gradient(
        4,
        lowercase_const_as_inner_end,
        lowercase_const_as_inner_end_jvp,
        lowercase_const_as_inner_end_vjp,
    );
    check_gradient(
        4,
        lowercase_const_as_smaller_inner_end,
        lowercase_const_as_smaller_inner_end_jvp,
        lowercase_const_as_smaller_inner_end_vjp,
    );
}

/// A constant declared only in the loop body, indexing an element the loop reads once before
/// it (was a compile error, E0425, in the generated code).
#[forward]
#[reverse]
fn const_only_in_loop_body(x: &[f64]) -> f64 {
    let n = x.len();
    let v: Vec<f64> = x.iter().map(|a| a * 1.5).collect();
    let mut s = 0.0;
    for j in 0..n {
        const PICK: usize = 2;
        s += v[PICK] * x[j];
    }
    s
}

#[test]
fn constants_declared_only_in_loop_bodies() {
    check_gradient(
        4,
        const_only_in_loop_body,
        const_only_in_loop_body_jvp,
        const_only_in_loop_body_vjp,
    );
}

// ===== glob imports in loop bodies, literal range ends =====
//
// Wrong before 1aac763 (found by this review, after 85560ba had fixed `const`, `static` and
// `use a::b`): a glob import in a loop body (`use shifts::*;`) brings in constants that
// shadow an outer constant, or a `let` from around the loop, as an explicit `const` does;
// the element read once before the loop and the names read from the loop environment took
// the outer values. At x = [0.3, -0.7, 1.1, 0.5], `glob_import_in_loop_body` gave reverse
// [-1.05, 0.75, -1.05, -1.05] against forward [1.65, 1.65, 3.45, 1.65], and
// `glob_import_shadows_let` reverse [0.55, 1.55, -0.05, 1.55] against forward
// [2.6, 1.4, 0.4, -1.6] (values right).

mod shifts {
    pub const SHIFT: usize = 2;
    pub const k: usize = 2;
}

/// A glob import in the loop body brings in a constant that shadows the outer `SHIFT`.
#[forward]
#[reverse]
fn glob_import_in_loop_body(x: &[f64]) -> f64 {
    let n = x.len();
    let v: Vec<f64> = x.iter().map(|a| a * 1.5).collect();
    let mut s = 0.0;
    for j in 0..n {
        use shifts::*;
        s += v[SHIFT] * x[j];
    }
    s
}

/// A glob import in the loop body brings in a constant `k` that shadows `let k` from around
/// the loop, in a recomputed index and an inner range's end.
#[forward]
#[reverse]
fn glob_import_shadows_let(x: &[f64]) -> f64 {
    let n = x.len();
    let k = 1;
    let mut s = 0.0;
    for i in 0..n {
        use shifts::*;
        s += x[(i + k) % n] * x[i];
        for j in 0..k {
            s += x[j] * x[i] * 0.5;
        }
    }
    s + k as f64
}

#[test]
fn glob_imports_in_loop_bodies() {
    check_gradient(
        4,
        glob_import_in_loop_body,
        glob_import_in_loop_body_jvp,
        glob_import_in_loop_body_vjp,
    );
}

#[test]
fn glob_imports_shadowing_lets() {
    check_gradient(
        4,
        glob_import_shadows_let,
        glob_import_shadows_let_jvp,
        glob_import_shadows_let_vjp,
    );
}

// Was a compile error in generated code before 1aac763: an inner range whose ends are both
// integer literals larger than `i32::MAX`. In the recomputed count
// `Counter::count_to(4_999_999_998, 5_000_000_000)` nothing fixed the integer type, it fell
// back to `i32`, and `overflowing_literals` (deny by default) rejected both literals; the
// plain function infers `usize` from `x[j % 3]`.
#[forward]
#[reverse]
fn big_literal_range_ends(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        for j in 4_999_999_998..5_000_000_000 {
            s += x[j % 3] * x[i];
        }
    }
    s
}

#[test]
fn inner_ranges_with_large_literal_ends() {
    let x: [f64; 3] = [0.3, -0.7, 1.1];
    let (value, gradient) = big_literal_range_ends_vjp(&x, 2, 1.0);
    assert_eq!(value.to_bits(), big_literal_range_ends(&x, 2).to_bits());
    for i in 0..3 {
        let mut e = [0.0; 3];
        e[i] = 1.0;
        assert_relative_eq!(
            gradient[i],
            big_literal_range_ends_jvp(&x, 2, &e).1,
            max_relative = 1e-12
        );
    }
}
