//! Everyday Rust in reverse mode: `std::mem::swap`, `replace` and `take` of values carrying
//! derivatives (double buffers swapped each step, as explicit PDE and ODE steppers write them),
//! the methods that rearrange a local container (`swap`, `reverse`, `fill`, `copy_from_slice`,
//! `extend_from_slice`, `pop` and `while let Some(v) = v.pop()`, `truncate`, `clear`, `sort_by`
//! with a float comparison, `insert`, `remove`, `swap_remove`, `resize`), `let ... else`, and
//! everyday functions as a new user writes them, checked against forward mode, central
//! differences and the dot-product identity.

mod common;

use ad_runtime::{forward, reverse};
use common::check_slice_function_at_random_points;

/// Explicit diffusion steps in two buffers swapped each step.
#[forward]
#[reverse]
fn diffusion(x: &[f64]) -> f64 {
    let n = x.len();
    let mut u = x.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..4 {
        for i in 0..n {
            let left = if i > 0 { u[i - 1] } else { u[i] };
            let right = if i + 1 < n { u[i + 1] } else { u[i] };
            next[i] = u[i] + 0.2 * (left - 2.0 * u[i] + right) + 0.01 * u[i].sin();
        }
        std::mem::swap(&mut u, &mut next);
    }
    let mut a = x[0];
    let mut b = 2.0 * x[n - 1];
    std::mem::swap(&mut a, &mut b);
    let old = std::mem::replace(&mut a, b * b);
    let taken = std::mem::take(&mut b);
    u.iter().map(|v| v * v).sum::<f64>() + a * old + taken.exp() + b
}

#[test]
fn swapped_buffers_against_forward_mode_and_central_differences() {
    for n in [1, 2, 3, 6] {
        check_slice_function_at_random_points(diffusion, diffusion_jvp, diffusion_vjp, n, n as u64);
    }
}

/// Formerly a compile-fail test: a float replaced inside a comparison.
#[forward]
#[reverse]
fn float_replaced_in_comparison(x: f64) -> f64 {
    let mut a = x * 2.0;
    if std::mem::replace(&mut a, x * x) > 1.0 {
        a += 1.0;
    }
    a * x
}

#[test]
fn replaced_in_a_comparison_against_forward_mode_and_central_differences() {
    for x in [-1.3, 0.2, 0.7, 1.9] {
        let along = common::forward_checked1(
            float_replaced_in_comparison,
            float_replaced_in_comparison_jvp,
            x,
        );
        let (value, gradient) = float_replaced_in_comparison_grad(x);
        assert_eq!(value.to_bits(), float_replaced_in_comparison(x).to_bits());
        approx::assert_relative_eq!(gradient, along, max_relative = 1e-12);
    }
}

// Methods that rearrange a local container.

#[forward]
#[reverse]
fn swapped_elements(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.swap(0, 1);
    v[0] * 2.0 + v[1]
}
#[forward]
#[reverse]
fn reversed_copy(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.reverse();
    v[0] * 2.0 + v[1]
}
#[forward]
#[reverse]
fn filled(x: &[f64]) -> f64 {
    let mut v = [0.0; 3];
    v.fill(x[0]);
    v[0] * v[1]
}
#[forward]
#[reverse]
fn copied_from_a_sub_slice(x: &[f64]) -> f64 {
    let mut v = [0.0; 2];
    v.copy_from_slice(&x[..2]);
    v[0] * v[1]
}
#[forward]
#[reverse]
fn extended(x: &[f64]) -> f64 {
    let mut v = vec![1.0];
    v.extend_from_slice(x);
    v.iter().map(|a| a * a).sum()
}
#[forward]
#[reverse]
fn popped(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let a = v.pop().unwrap();
    a * v[0]
}
#[forward]
#[reverse]
fn popped_until_empty(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let mut s = 0.0;
    while let Some(a) = v.pop() {
        s = s * 0.5 + a;
    }
    s
}
#[forward]
#[reverse]
fn truncated_then_pushed(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.truncate(1);
    v.push(3.0);
    v.iter().sum()
}
#[forward]
#[reverse]
fn sorted_extremes(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[0] * 3.0 + v[v.len() - 1]
}
#[forward]
#[reverse]
fn cleared_then_pushed(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.clear();
    v.push(x[0]);
    v[0]
}

#[test]
fn container_methods_against_forward_mode_and_central_differences() {
    for n in [2, 3, 6] {
        check_slice_function_at_random_points(
            swapped_elements,
            swapped_elements_jvp,
            swapped_elements_vjp,
            n,
            n as u64,
        );
        check_slice_function_at_random_points(
            reversed_copy,
            reversed_copy_jvp,
            reversed_copy_vjp,
            n,
            n as u64,
        );
        check_slice_function_at_random_points(filled, filled_jvp, filled_vjp, n, n as u64);
        check_slice_function_at_random_points(
            copied_from_a_sub_slice,
            copied_from_a_sub_slice_jvp,
            copied_from_a_sub_slice_vjp,
            n,
            n as u64,
        );
        check_slice_function_at_random_points(extended, extended_jvp, extended_vjp, n, n as u64);
        check_slice_function_at_random_points(popped, popped_jvp, popped_vjp, n, n as u64);
        check_slice_function_at_random_points(
            popped_until_empty,
            popped_until_empty_jvp,
            popped_until_empty_vjp,
            n,
            n as u64,
        );
        check_slice_function_at_random_points(
            truncated_then_pushed,
            truncated_then_pushed_jvp,
            truncated_then_pushed_vjp,
            n,
            n as u64,
        );
        check_slice_function_at_random_points(
            sorted_extremes,
            sorted_extremes_jvp,
            sorted_extremes_vjp,
            n,
            n as u64,
        );
        check_slice_function_at_random_points(
            cleared_then_pushed,
            cleared_then_pushed_jvp,
            cleared_then_pushed_vjp,
            n,
            n as u64,
        );
    }
}

/// Formerly a compile-fail test: `while let` over an `Option` the body assigns.
#[forward]
#[reverse]
fn option_while_let(x: f64) -> f64 {
    let mut o = Some(x);
    let mut s = 0.0;
    while let Some(v) = o {
        s += v;
        o = if v > 10.0 { None } else { Some(v * 2.0) };
    }
    s
}

/// Rows of a `Vec` of rows rearranged (each row moved whole, its adjoint with it).
#[forward]
#[reverse]
fn rows_rearranged(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0]; 2], vec![x[1], x[0] * x[1]], vec![x[1]; 2]];
    m.reverse();
    m.swap(0, 1);
    let last = m.pop().unwrap();
    m[0][0] * m[1][1] + last[0].sin() + m[0][1]
}

#[test]
fn while_let_and_rows_against_forward_mode_and_central_differences() {
    // Positive starts (the loop doubles until past 10).
    for x in [0.2, 0.7, 1.9, 12.0] {
        let along = common::forward_checked1(option_while_let, option_while_let_jvp, x);
        let (value, gradient) = option_while_let_grad(x);
        assert_eq!(value.to_bits(), option_while_let(x).to_bits());
        approx::assert_relative_eq!(gradient, along, max_relative = 1e-12);
    }
    for n in [2, 3] {
        check_slice_function_at_random_points(
            rows_rearranged,
            rows_rearranged_jvp,
            rows_rearranged_vjp,
            n,
            n as u64,
        );
    }
}

/// `insert`, `remove`, `swap_remove` and `resize`: elements moved, dropped and added, each
/// element's adjoint moving with it.
#[forward]
#[reverse]
fn inserted_removed_resized(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.insert(1, x[1] * 3.0);
    v.insert(v.len(), x[0].sin());
    let removed = v.remove(2);
    v.resize(v.len() + 2, x[0] * 0.5);
    let swapped = v.swap_remove(0);
    v.resize(3, 0.0);
    let mut s = 0.0;
    for (i, e) in v.iter().enumerate() {
        s += e * (i as f64 + 1.0);
    }
    s * removed + swapped * swapped
}

#[test]
fn insert_remove_and_resize_three_ways() {
    for n in 3..6 {
        check_slice_function_at_random_points(
            inserted_removed_resized,
            inserted_removed_resized_jvp,
            inserted_removed_resized_vjp,
            n,
            n as u64 + 40,
        );
    }
}

/// Sub-slices of a local written through the methods that keep their length (a natural
/// cubic spline's `m[1..n - 1].copy_from_slice(&inner)`): indexed through the sub-slice.
#[forward]
#[reverse]
#[allow(clippy::useless_vec)] // a local `Vec`, as the spline writes it
fn sub_slices_written_in_place(a: &[f64]) -> f64 {
    let mut m = vec![0.0; 5];
    m[1..3].copy_from_slice(&a[0..2]);
    m[3..].fill(a[2]);
    m[0..4].swap(0, 2);
    m[1..4].reverse();
    m[1] * m[2] + m[0].sin() * m[3] + m[4]
}

#[test]
fn sub_slices_take_copy_from_slice_fill_swap_and_reverse() {
    check_slice_function_at_random_points(
        sub_slices_written_in_place,
        sub_slices_written_in_place_jvp,
        sub_slices_written_in_place_vjp,
        3,
        71,
    );
}

/// Mutable chunks (an n-body drift over flat position and velocity slices): each chunk a
/// sub-slice lent mutably, what is written through it written to the container; `chunks_mut`'s
/// last chunk may be shorter.
#[forward]
#[reverse]
fn drift_by_mutable_chunks(x: &[f64]) -> f64 {
    let (pos, vel, dt) = (&x[0..6], &x[6..12], x[12]);
    let mut p = pos.to_vec();
    for (pi, vi) in p.chunks_exact_mut(3).zip(vel.chunks_exact(3)) {
        for k in 0..3 {
            pi[k] += dt * vi[k];
        }
    }
    for c in p.chunks_mut(4) {
        c[0] *= c[c.len() - 1];
    }
    p.chunks_exact(3)
        .map(|c| (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt())
        .sum()
}

#[test]
fn mutable_chunks_write_through_to_their_container() {
    check_slice_function_at_random_points(
        drift_by_mutable_chunks,
        drift_by_mutable_chunks_jvp,
        drift_by_mutable_chunks_vjp,
        13,
        73,
    );
}

/// `let ... else` (the rest of the block in the matching arm of a `match`): on a slice's
/// `first()`, with a `mut` binding, with `&` in the pattern, a tuple of options, inside a loop
/// whose `else` continues, and nested.
#[forward]
#[reverse]
fn let_else(x: &[f64]) -> f64 {
    let Some(&first) = x.first() else {
        return 0.0;
    };
    let Some(mut last) = x.last().copied() else {
        unreachable!()
    };
    last *= first;
    let mut total = 0.0;
    for (i, v) in x.iter().enumerate() {
        let Some(scale) = (if i % 2 == 0 { Some(v * 0.5) } else { None }) else {
            total += v.sin();
            continue;
        };
        let (Some(a), None) = (Some(scale * last), if i > 10 { Some(1.0) } else { None }) else {
            break;
        };
        total += a * v;
    }
    total + last
}

/// Arrays' `map` (unrolled at the array's length) after a `let ... else`, whose rest of the
/// block becomes a match arm, and next to a nested block's array of the same name and another
/// length, which does not reach past the block.
#[forward]
#[reverse]
fn let_else_before_array_maps(x: &[f64]) -> f64 {
    let w = x[0];
    let a = [w, 2.0 * w];
    let Some(s) = (if w > -10.0 { Some(3.0 * w) } else { None }) else {
        return 0.0;
    };
    let inner = {
        let a = [x[x.len() - 1], w, w, w];
        let sines = a.map(|v| v.sin());
        sines.iter().sum::<f64>()
    };
    let scaled = a.map(|v| v * s);
    scaled.iter().sum::<f64>() + inner
}

#[test]
fn let_else_against_forward_mode_and_central_differences() {
    for n in [1, 3] {
        check_slice_function_at_random_points(
            let_else_before_array_maps,
            let_else_before_array_maps_jvp,
            let_else_before_array_maps_vjp,
            n,
            50 + n as u64,
        );
    }
    // 3w² + 6w² + sin(w) + 3 sin(w) at x = [1]: the outer `a` has two elements.
    let (value, gradient) = let_else_before_array_maps_grad(&[1.0]);
    assert!((value - (9.0 + 4.0 * 1.0_f64.sin())).abs() < 1e-12);
    assert!((gradient[0] - (18.0 + 4.0 * 1.0_f64.cos())).abs() < 1e-12);
    for n in [1, 2, 3, 6] {
        check_slice_function_at_random_points(
            let_else,
            let_else_jvp,
            let_else_vjp,
            n,
            40 + n as u64,
        );
    }
    let (value, gradient) = let_else_grad(&[]);
    assert_eq!((value, gradient.len()), (0.0, 0));
}

// ----- everyday functions as a new user writes them: a closure adding to what it captures, a
// sort by `partial_cmp`, `chunks` and `windows` with a `fold(0.0, f64::max)`, a `while` loop with
// a counter (Newton's square root), `std::mem::swap`, `max_by`, `powi` over `enumerate`,
// `iter_mut` of a local array, a three-way `zip`, `last_mut` -----

#[forward]
#[reverse]
fn fn_mut_closure(x: &[f64]) -> f64 {
    let mut total = 0.0;
    let mut add = |v: f64| total += v * v;
    for v in x {
        add(*v);
    }
    total
}

#[forward]
#[reverse]
fn sort_then_ends(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[0] * 2.0 + v[v.len() - 1]
}

#[forward]
#[reverse]
fn chunks_sum(x: &[f64]) -> f64 {
    x.chunks(2).map(|c| c[0] * c[c.len() - 1]).sum()
}

#[forward]
#[reverse]
fn windows_max(x: &[f64]) -> f64 {
    x.windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(0.0, f64::max)
}

#[forward]
#[reverse]
fn newton_sqrt(x: &[f64]) -> f64 {
    let t = x[0] * x[0] + 1.0;
    let mut y = t;
    let mut k = 0;
    while k < 6 {
        y = y - (y * y - t) / (2.0 * y);
        k += 1;
    }
    y
}

#[forward]
#[reverse]
fn swapped(x: &[f64]) -> f64 {
    let mut a = x[0];
    let mut b = x[x.len() - 1] * 3.0;
    std::mem::swap(&mut a, &mut b);
    a - 2.0 * b
}

#[forward]
#[reverse]
fn max_by_partial(x: &[f64]) -> f64 {
    *x.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap()
}

#[forward]
#[reverse]
fn powi_sum(x: &[f64]) -> f64 {
    x.iter()
        .enumerate()
        .map(|(i, v)| v.powi(i as i32 + 1))
        .sum()
}

#[forward]
#[reverse]
fn array_iter_mut(x: &[f64]) -> f64 {
    let mut a = [0.0; 3];
    for (i, slot) in a.iter_mut().enumerate() {
        *slot = x[0] * (i as f64 + 1.0);
    }
    a.iter().map(|v| v.sin()).sum()
}

#[forward]
#[reverse]
fn zip3(x: &[f64]) -> f64 {
    let y: Vec<f64> = x.iter().map(|v| v * 2.0).collect();
    let z = x.to_vec();
    x.iter().zip(&y).zip(&z).map(|((a, b), c)| a * b * c).sum()
}

#[forward]
#[reverse]
fn last_mut_scaled(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    if let Some(l) = v.last_mut() {
        *l *= 3.0;
    }
    v.iter().map(|t| t * t).sum()
}

#[test]
fn everyday_functions_three_ways() {
    for n in [1, 2, 3, 5] {
        let seed = 80 + n as u64;
        check_slice_function_at_random_points(
            fn_mut_closure,
            fn_mut_closure_jvp,
            fn_mut_closure_vjp,
            n,
            seed,
        );
        check_slice_function_at_random_points(
            sort_then_ends,
            sort_then_ends_jvp,
            sort_then_ends_vjp,
            n,
            seed,
        );
        check_slice_function_at_random_points(chunks_sum, chunks_sum_jvp, chunks_sum_vjp, n, seed);
        check_slice_function_at_random_points(
            windows_max,
            windows_max_jvp,
            windows_max_vjp,
            n,
            seed,
        );
        check_slice_function_at_random_points(
            newton_sqrt,
            newton_sqrt_jvp,
            newton_sqrt_vjp,
            n,
            seed,
        );
        check_slice_function_at_random_points(swapped, swapped_jvp, swapped_vjp, n, seed);
        check_slice_function_at_random_points(
            max_by_partial,
            max_by_partial_jvp,
            max_by_partial_vjp,
            n,
            seed,
        );
        check_slice_function_at_random_points(powi_sum, powi_sum_jvp, powi_sum_vjp, n, seed);
        check_slice_function_at_random_points(
            array_iter_mut,
            array_iter_mut_jvp,
            array_iter_mut_vjp,
            n,
            seed,
        );
        check_slice_function_at_random_points(zip3, zip3_jvp, zip3_vjp, n, seed);
        check_slice_function_at_random_points(
            last_mut_scaled,
            last_mut_scaled_jvp,
            last_mut_scaled_vjp,
            n,
            seed,
        );
    }
}
