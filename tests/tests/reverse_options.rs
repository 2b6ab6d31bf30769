//! `Option`s of floats built in the body, in reverse mode: `Some(e)`, `None`, `if`/`match`
//! giving them, assignments in loops and branches; read by `match` (with guards), `if let`,
//! `unwrap_or`, `unwrap`, `expect`, `is_some`, `is_none`. Each function is checked at points
//! that take each path: the value against the plain function (bit for bit), forward mode
//! against central differences, reverse mode against forward mode along every basis
//! direction.

// The functions spell out forms on purpose (`match` where `unwrap_or` would do, `x = x * y`,
// `o == None`, swaps by hand, loops over indices): the macro must handle each.
#![allow(
    clippy::manual_unwrap_or,
    clippy::manual_unwrap_or_default,
    clippy::assign_op_pattern,
    clippy::redundant_pattern_matching,
    clippy::match_like_matches_macro,
    clippy::single_match,
    clippy::needless_late_init,
    clippy::collapsible_else_if,
    clippy::unnecessary_literal_unwrap,
    clippy::question_mark,
    clippy::shadow_unrelated,
    clippy::manual_map,
    clippy::option_map_unit_fn,
    clippy::unnecessary_unwrap,
    clippy::manual_swap,
    clippy::partialeq_to_none,
    clippy::needless_range_loop
)]

mod common;

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;
use common::forward_checked2;

/// `f(x, y)` at a point: forward against central differences and the plain function, reverse
/// against forward along both directions (to 1e-12), and `_vjp` linear in its cotangent.
fn check2(
    plain: impl Fn(f64, f64) -> f64,
    jvp: impl Fn(f64, f64, f64, f64) -> (f64, f64),
    vjp: impl Fn(f64, f64, f64) -> (f64, (f64, f64)),
    x: f64,
    y: f64,
) {
    let (value, along_x, along_y) = forward_checked2(&plain, &jvp, x, y);
    let (reverse_value, (dx, dy)) = vjp(x, y, 1.0);
    assert_eq!(
        reverse_value.to_bits(),
        value.to_bits(),
        "reverse value at ({x}, {y})"
    );
    assert_relative_eq!(dx, along_x, epsilon = 1e-12, max_relative = 1e-12);
    assert_relative_eq!(dy, along_y, epsilon = 1e-12, max_relative = 1e-12);
    let (_, (scaled_x, scaled_y)) = vjp(x, y, -2.5);
    assert_relative_eq!(scaled_x, -2.5 * dx, epsilon = 1e-12, max_relative = 1e-12);
    assert_relative_eq!(scaled_y, -2.5 * dy, epsilon = 1e-12, max_relative = 1e-12);
}

macro_rules! check2 {
    ($f:ident, $jvp:ident, $vjp:ident, $grad:ident, $points:expr) => {
        for (x, y) in $points {
            check2($f, $jvp, $vjp, x, y);
            let (value, grads) = $grad(x, y);
            let (reverse_value, reverse_grads) = $vjp(x, y, 1.0);
            assert_eq!(value.to_bits(), reverse_value.to_bits());
            assert_eq!(grads, reverse_grads);
        }
    };
}

#[forward]
#[reverse]
fn everything(x: f64, y: f64) -> f64 {
    let m = if x > 0.0 { Some(x * x) } else { None };
    let a = m.unwrap_or(y);
    let mut best: Option<f64> = None;
    for i in 0..3 {
        let c = x * i as f64 - y;
        best = match best {
            Some(b) if b > c => Some(b),
            _ => Some(c),
        };
    }
    let b = match best {
        Some(v) => v * 2.0,
        None => 0.0,
    };
    let c = if let Some(v) = m { v.sin() } else { y };
    let d = if m.is_some() { 1.0 } else { 0.0 };
    let e = if m.is_none() { y * y } else { m.unwrap() };
    a + b + c + d * x + e
}

#[test]
fn everything_on_each_path() {
    // x > 0 (Some) and x < 0 (None); the running optimum's guard both ways (x > 0: each
    // iteration's candidate is larger; x < 0: the first stays best).
    check2!(
        everything,
        everything_jvp,
        everything_vjp,
        everything_grad,
        [(0.7, 0.3), (1.9, -1.2), (-0.8, 0.4), (-1.3, -2.1)]
    );
}

#[forward]
#[reverse]
fn unwraps(x: f64, y: f64) -> f64 {
    let o = Some(x * y);
    let p = if y > 0.0 { Some(y.exp()) } else { Some(x - y) };
    let q: Option<f64> = Some(3.0);
    let n = if x > 0.5 { Some(x.exp()) } else { None };
    o.unwrap() * p.expect("p is set on both paths")
        + o.unwrap()
        + q.unwrap() * x
        + n.unwrap_or_default() * y
        + o.unwrap_or_default()
}

#[test]
fn unwrap_and_expect() {
    check2!(
        unwraps,
        unwraps_jvp,
        unwraps_vjp,
        unwraps_grad,
        [(0.7, 0.3), (-1.1, -0.6), (0.2, 0.4)]
    );
}

#[forward]
#[reverse]
fn running_best(x: f64, y: f64, n: usize) -> f64 {
    let mut best: Option<f64> = None;
    for i in 0..n {
        let c = (x * i as f64).sin() + y * x;
        best = match best {
            Some(b) if b >= c => Some(b),
            _ => Some(c),
        };
    }
    best.unwrap_or(x * y)
}

#[test]
fn running_best_over_zero_one_and_many_iterations() {
    for n in [0, 1, 2, 5] {
        for (x, y) in [(0.7, 0.3), (-1.2, 0.5), (2.3, -0.4)] {
            check2(
                |x, y| running_best(x, y, n),
                |x, y, dx, dy| running_best_jvp(x, y, n, dx, dy),
                |x, y, ct| running_best_vjp(x, y, n, ct),
                x,
                y,
            );
        }
    }
}

#[forward]
#[reverse]
fn assigned_in_branches(x: f64, y: f64) -> f64 {
    let mut o = None;
    if x > y {
        o = Some(x - y);
    } else if x < 0.0 {
        o = Some(y * 2.0);
    }
    let p;
    if y > 0.0 {
        p = Some(y.sqrt() * x);
    } else {
        p = None;
    }
    o.unwrap_or(x) * 3.0 + p.unwrap_or(x * x)
}

#[test]
fn assignments_in_branches() {
    check2!(
        assigned_in_branches,
        assigned_in_branches_jvp,
        assigned_in_branches_vjp,
        assigned_in_branches_grad,
        [(0.9, 0.3), (-0.5, 0.4), (0.2, 0.6), (0.4, -0.3)]
    );
}

#[forward]
#[reverse]
fn shadowed(x: f64, y: f64) -> f64 {
    let o = Some(x);
    let o = o.unwrap_or(y) * 2.0;
    let o = if o > 1.0 { Some(o * y) } else { None };
    let o = match o {
        Some(o) => Some(o + x),
        None => o,
    };
    o.unwrap_or(x - y)
}

#[test]
fn shadowing_an_option() {
    check2!(
        shadowed,
        shadowed_jvp,
        shadowed_vjp,
        shadowed_grad,
        [(0.9, 0.3), (0.2, 0.6), (-0.7, 1.1)]
    );
}

#[forward]
#[reverse]
fn payload_shadows(x: f64, y: f64) -> f64 {
    let v = x * 3.0;
    let o = if y > 0.0 { Some(y * y) } else { None };
    let r = match o {
        Some(v) => v + 1.0,
        None => v,
    };
    let s = if let Some(v) = o { v * v } else { v * y };
    r + v + s
}

#[test]
fn a_payload_name_shadows_an_outer_float() {
    check2!(
        payload_shadows,
        payload_shadows_jvp,
        payload_shadows_vjp,
        payload_shadows_grad,
        [(0.9, 0.3), (0.4, -0.6)]
    );
}

#[forward]
#[reverse]
fn mutable_payload(x: f64, y: f64) -> f64 {
    let o = if x > 0.0 { Some(x * y) } else { None };
    let r = match o {
        Some(mut v) => {
            v *= x;
            v += y;
            v = v * v;
            v
        }
        None => y,
    };
    // The option itself is unchanged by the arm's copy.
    r + o.unwrap_or(0.5) * 2.0
}

#[test]
fn a_mutable_payload_is_a_copy() {
    check2!(
        mutable_payload,
        mutable_payload_jvp,
        mutable_payload_vjp,
        mutable_payload_grad,
        [(0.9, 0.3), (-0.4, 0.6)]
    );
}

#[forward]
#[reverse]
fn catch_all(x: f64, y: f64) -> f64 {
    let o = if x > y { Some(x.exp()) } else { None };
    let a = match o {
        None => y,
        p => p.unwrap() * x,
    };
    let b = match o {
        Some(_) => 1.0,
        None => 2.0,
    };
    let c = match o {
        Some(v) if v > 2.0 => v * y,
        Some(v) => v - y,
        None => x,
    };
    a * b + c
}

#[test]
fn catch_all_arms_and_guards_both_ways() {
    // o = None; o = Some(e^x) with e^x > 2 and e^x < 2.
    check2!(
        catch_all,
        catch_all_jvp,
        catch_all_vjp,
        catch_all_grad,
        [(0.2, 0.6), (0.9, 0.3), (0.5, 0.1)]
    );
}

#[forward]
#[reverse]
fn nested_loops(x: f64, y: f64, n: usize, m: usize) -> f64 {
    let mut acc = 0.0;
    let mut outer: Option<f64> = None;
    for i in 0..n {
        let mut inner: Option<f64> = None;
        for j in 0..m {
            if (i + j) % 2 == 0 {
                inner = Some(inner.unwrap_or(x) * y + j as f64);
            }
        }
        acc += inner.unwrap_or(1.0);
        if let Some(v) = inner {
            outer = match outer {
                Some(w) if w > v => Some(w),
                _ => Some(v * x),
            };
        }
    }
    acc + outer.unwrap_or(y)
}

#[test]
fn options_in_nested_loops() {
    for (n, m) in [(0, 0), (1, 0), (1, 1), (3, 2), (4, 5)] {
        for (x, y) in [(0.7, 0.3), (-1.2, 0.5), (1.3, -0.9)] {
            check2(
                |x, y| nested_loops(x, y, n, m),
                |x, y, dx, dy| nested_loops_jvp(x, y, n, m, dx, dy),
                |x, y, ct| nested_loops_vjp(x, y, n, m, ct),
                x,
                y,
            );
        }
    }
}

#[forward]
#[reverse]
fn early_returns(x: f64, y: f64, n: usize) -> f64 {
    let o = if y > 0.0 { Some(y * x) } else { None };
    if x > 1.0 {
        return o.unwrap_or(y);
    }
    let mut best: Option<f64> = None;
    for i in 0..n {
        let c = x * i as f64 + y;
        if c > 2.0 {
            return best.unwrap_or(c) * 2.0;
        }
        best = Some(best.unwrap_or(0.0) + c * c);
    }
    match best {
        Some(b) => b + o.unwrap_or(x),
        None => o.unwrap_or(x) * y,
    }
}

#[test]
fn early_return_of_an_option() {
    for n in [0, 1, 3, 8] {
        for (x, y) in [
            (1.5, 0.3),
            (1.4, -0.3),
            (0.4, 0.3),
            (0.45, -0.2),
            (-0.3, 0.2),
        ] {
            check2(
                |x, y| early_returns(x, y, n),
                |x, y, dx, dy| early_returns_jvp(x, y, n, dx, dy),
                |x, y, ct| early_returns_vjp(x, y, n, ct),
                x,
                y,
            );
        }
    }
}

#[forward]
#[reverse]
fn reassigned_in_loop(x: f64, y: f64, n: usize) -> f64 {
    let mut o: Option<f64> = None;
    let mut k = 0;
    while k < n {
        o = Some(o.unwrap_or(x) * y + x);
        if k % 3 == 2 {
            o = None;
        }
        k += 1;
    }
    let mut p = Some(x);
    loop {
        p = match p {
            Some(v) if v < 3.0 => Some(v * 1.5 + y * y),
            other => other,
        };
        if p.unwrap_or(0.0) >= 3.0 || y < 0.0 {
            break;
        }
    }
    o.unwrap_or(y) + p.unwrap()
}

#[test]
fn reassigned_inside_loops() {
    for n in [0, 1, 2, 3, 4, 7] {
        for (x, y) in [(0.7, 0.3), (1.1, 0.9), (-0.2, -0.5)] {
            check2(
                |x, y| reassigned_in_loop(x, y, n),
                |x, y, dx, dy| reassigned_in_loop_jvp(x, y, n, dx, dy),
                |x, y, ct| reassigned_in_loop_vjp(x, y, n, ct),
                x,
                y,
            );
        }
    }
}

#[forward]
#[reverse]
fn if_let_chains(x: f64, y: f64) -> f64 {
    let a = if x > 0.5 { Some(x.ln()) } else { None };
    let b = if y > 0.0 { Some(y.cos()) } else { None };
    let r = if let Some(u) = a {
        u * y
    } else if let Some(w) = b {
        w * x
    } else {
        x + y
    };
    let mut s = 0.0;
    if let Some(w) = b {
        s += w * w;
    }
    if let None = a {
        s += x;
    }
    r + s
}

#[test]
fn if_let_and_else_if_let() {
    check2!(
        if_let_chains,
        if_let_chains_jvp,
        if_let_chains_vjp,
        if_let_chains_grad,
        [(0.9, 0.3), (0.2, 0.6), (0.3, -0.4), (1.7, -0.2)]
    );
}

#[forward]
#[reverse]
fn scrutinees(x: f64, y: f64) -> f64 {
    let a = match Some(x * y) {
        Some(v) => v * v,
        None => 0.0,
    };
    #[allow(unused_parens)]
    let b = match (if x > y { Some(x.sin()) } else { None }) {
        Some(v) => v,
        None => y,
    };
    let c = (if y > 0.0 { Some(y * 3.0) } else { None }).unwrap_or(x);
    let none: Option<f64> = None;
    let d = Some(x).unwrap_or(y) * none.unwrap_or(y);
    a + b + c + d
}

#[test]
fn options_that_are_not_held_in_a_variable() {
    check2!(
        scrutinees,
        scrutinees_jvp,
        scrutinees_vjp,
        scrutinees_grad,
        [(0.9, 0.3), (0.2, 0.6), (0.3, -0.4)]
    );
}

#[forward]
#[reverse]
fn callee(a: f64, b: f64) -> f64 {
    a * b.sin()
}

#[reverse]
fn with_calls_and_closures(x: f64, y: f64) -> f64 {
    let o = if x > 0.0 { Some(x * y) } else { None };
    let f = |t: f64| o.unwrap_or(t) * t;
    let g = move |t: f64| o.unwrap_or(y) + t;
    callee(o.unwrap_or(y), x) + f(x) + g(y)
}

#[forward]
fn with_calls_and_closures_forward(x: f64, y: f64) -> f64 {
    let o = if x > 0.0 { Some(x * y) } else { None };
    let f = |t: f64| o.unwrap_or(t) * t;
    let g = move |t: f64| o.unwrap_or(y) + t;
    callee(o.unwrap_or(y), x) + f(x) + g(y)
}

#[test]
fn unwrapped_values_passed_to_calls_and_closures() {
    for (x, y) in [(0.9, 0.3), (-0.2, 0.6)] {
        check2(
            with_calls_and_closures_forward,
            with_calls_and_closures_forward_jvp,
            with_calls_and_closures_vjp,
            x,
            y,
        );
        assert_eq!(
            with_calls_and_closures(x, y).to_bits(),
            with_calls_and_closures_forward(x, y).to_bits()
        );
    }
}

#[forward]
#[reverse]
fn with_data_option(x: f64, y: f64, shift: Option<f64>) -> f64 {
    let o = if x > 0.0 { Some(x * y) } else { None };
    let p = match shift {
        Some(s) => Some(s * x),
        None => None,
    };
    let mut z: Option<f64> = shift;
    if y > 0.5 {
        z = Some(y * x);
    }
    o.unwrap_or(y) + p.unwrap_or(y * y) + shift.unwrap_or(1.0) * x + z.unwrap_or(x) * y
}

#[test]
fn data_options_mixed_in() {
    for shift in [Some(0.25), None] {
        for (x, y) in [(0.9, 0.3), (-0.2, 0.6), (0.4, 0.7)] {
            check2(
                |x, y| with_data_option(x, y, shift),
                |x, y, dx, dy| with_data_option_jvp(x, y, shift, dx, dy),
                |x, y, ct| with_data_option_vjp(x, y, shift, ct),
                x,
                y,
            );
        }
    }
}

#[forward]
#[reverse]
fn checkpointed_option(x: f64, y: f64) -> f64 {
    #[checkpoint]
    let o = if x > 0.0 { Some(x.exp() * y) } else { None };
    o.unwrap_or(y) * x
}

#[test]
fn a_checkpointed_option() {
    check2!(
        checkpointed_option,
        checkpointed_option_jvp,
        checkpointed_option_vjp,
        checkpointed_option_grad,
        [(0.9, 0.3), (-0.2, 0.6)]
    );
}

#[forward]
#[reverse]
fn single(x: f32, y: f32) -> f32 {
    let mut best: Option<f32> = None;
    for i in 0..4 {
        let c = (x * i as f32).cos() * y;
        best = match best {
            Some(b) if b > c => Some(b),
            _ => Some(c),
        };
    }
    let m = if x > 0.0 { Some(x * x) } else { None };
    let q: Option<f32> = Some(0.5);
    best.unwrap_or(y) + m.unwrap_or(y) + if let Some(v) = m { v.sqrt() } else { 0.0 }
        - q.unwrap() * x
}

#[test]
fn f32_options() {
    for (x, y) in [(0.7f32, 0.3f32), (-0.6, 0.9), (1.3, -0.4)] {
        let (value, (gx, gy)) = single_grad(x, y);
        assert_eq!(value.to_bits(), single(x, y).to_bits());
        let (forward_value, tx) = single_jvp(x, y, 1.0, 0.0);
        let (_, ty) = single_jvp(x, y, 0.0, 1.0);
        assert_eq!(forward_value.to_bits(), value.to_bits());
        assert_relative_eq!(gx, tx, epsilon = 1e-5, max_relative = 1e-5);
        assert_relative_eq!(gy, ty, epsilon = 1e-5, max_relative = 1e-5);
        // Against the f64 version of the same function.
        let wide = |x: f64, y: f64| {
            let mut best: Option<f64> = None;
            for i in 0..4 {
                let c = (x * i as f64).cos() * y;
                best = match best {
                    Some(b) if b > c => Some(b),
                    _ => Some(c),
                };
            }
            let m = if x > 0.0 { Some(x * x) } else { None };
            best.unwrap_or(y) + m.unwrap_or(y) + if let Some(v) = m { v.sqrt() } else { 0.0 }
                - 0.5 * x
        };
        let h = 1e-4;
        let (x64, y64) = (f64::from(x), f64::from(y));
        let dx = (wide(x64 + h, y64) - wide(x64 - h, y64)) / (2.0 * h);
        let dy = (wide(x64, y64 + h) - wide(x64, y64 - h)) / (2.0 * h);
        assert_relative_eq!(f64::from(gx), dx, epsilon = 1e-3, max_relative = 1e-3);
        assert_relative_eq!(f64::from(gy), dy, epsilon = 1e-3, max_relative = 1e-3);
    }
}

#[forward]
#[reverse]
fn exits_in_arms(x: f64, y: f64, n: usize) -> f64 {
    let mut s = 0.0;
    let mut carried: Option<f64> = None;
    for i in 0..n {
        let o = if i % 2 == 0 { Some(x * i as f64) } else { None };
        match o {
            Some(v) if v > 2.0 => break,
            Some(v) => {
                s += v * y;
                carried = Some(v + carried.unwrap_or(y));
            }
            None => continue,
        }
        s += carried.unwrap_or(0.0) * x;
    }
    let found = loop {
        if s > 1.0 {
            break Some(s * y);
        }
        if s < -1.0 {
            break None;
        }
        s += 0.75 + x * x;
    };
    let k: usize = match carried {
        Some(c) if c > 1.0 => 2,
        Some(_) => 1,
        None => 0,
    };
    found.unwrap_or(x) + k as f64 * carried.unwrap_or(y)
}

#[test]
fn break_and_continue_in_arms_and_options_from_loops() {
    for n in [0, 1, 2, 3, 6, 9] {
        for (x, y) in [(0.7, 0.3), (1.2, -0.5), (-0.4, 0.8)] {
            check2(
                |x, y| exits_in_arms(x, y, n),
                |x, y, dx, dy| exits_in_arms_jvp(x, y, n, dx, dy),
                |x, y, ct| exits_in_arms_vjp(x, y, n, ct),
                x,
                y,
            );
        }
    }
}

#[forward]
#[reverse]
fn checkpointed_loop(x: f64, y: f64, n: usize) -> f64 {
    let mut best: Option<f64> = None;
    #[checkpoint(every = 2)]
    for i in 0..n {
        let c = (x + i as f64).sin() * y;
        best = match best {
            Some(b) if b > c => Some(b),
            _ => Some(c),
        };
    }
    best.unwrap_or(x)
}

#[test]
fn options_through_a_checkpointed_loop() {
    for n in [0, 1, 4, 7] {
        for (x, y) in [(0.7, 0.3), (1.2, -0.5)] {
            check2(
                |x, y| checkpointed_loop(x, y, n),
                |x, y, dx, dy| checkpointed_loop_jvp(x, y, n, dx, dy),
                |x, y, ct| checkpointed_loop_vjp(x, y, n, ct),
                x,
                y,
            );
        }
    }
}

#[forward]
#[reverse]
fn inner_loops_of_options_only(x: f64, y: f64, n: usize, m: usize) -> f64 {
    let mut o: Option<f64> = None;
    let mut s = 0.0;
    for i in 0..n {
        for _ in 0..m {
            o = Some(o.unwrap_or(x) * 0.5 + y);
        }
        for _ in 0..i {
            o = None;
        }
        s += o.unwrap_or(x * y);
    }
    s + o.unwrap_or(y)
}

#[test]
fn inner_loops_that_only_change_an_option() {
    for (n, m) in [(0, 0), (1, 0), (1, 1), (2, 3), (4, 2)] {
        for (x, y) in [(0.7, 0.3), (-1.2, 0.5)] {
            check2(
                |x, y| inner_loops_of_options_only(x, y, n, m),
                |x, y, dx, dy| inner_loops_of_options_only_jvp(x, y, n, m, dx, dy),
                |x, y, ct| inner_loops_of_options_only_vjp(x, y, n, m, ct),
                x,
                y,
            );
        }
    }
}

#[forward]
#[reverse]
fn swapped(x: f64, y: f64) -> f64 {
    let mut a = Some(x * 2.0);
    let mut b: Option<f64> = if y > 0.0 { Some(y) } else { None };
    let t = a;
    a = b;
    b = t;
    let c = a;
    a = Some(a.unwrap_or(x) * b.unwrap());
    a.unwrap_or(0.0) + b.unwrap_or(0.0) * y + c.unwrap_or(x * x)
}

#[test]
fn copies_and_swaps_of_options() {
    check2!(
        swapped,
        swapped_jvp,
        swapped_vjp,
        swapped_grad,
        [(0.7, 0.3), (-1.2, -0.5)]
    );
}

#[forward]
#[reverse]
fn conditions_and_comparisons(x: f64, y: f64) -> f64 {
    let o = if x > 0.0 { Some(x * y) } else { None };
    let mut s = 0.0;
    if o.is_some() && o.unwrap() > 0.1 {
        s += x;
    }
    if o == None || o != Some(0.5) {
        s += y * y;
    }
    assert!(o.is_some() || o.is_none());
    let _shown = format!("{o:?}");
    let k = match x.floor() as i32 {
        0 => None,
        1 => Some(x * x),
        _ => Some(y - x),
    };
    let called = Some(callee(x, y));
    let unreached = match called {
        Some(v) => v,
        None => unreachable!("built with Some"),
    };
    s + k.unwrap_or(y) + unreached + o.unwrap_or(o.unwrap_or(y) * 2.0)
}

#[test]
fn options_in_conditions_comparisons_and_printing() {
    check2!(
        conditions_and_comparisons,
        conditions_and_comparisons_jvp,
        conditions_and_comparisons_vjp,
        conditions_and_comparisons_grad,
        [
            (0.7, 0.3),
            (1.4, 0.5),
            (2.3, -0.4),
            (-0.6, 0.8),
            (0.05, 0.2)
        ]
    );
}

#[forward]
#[reverse]
fn fallback_assigns_the_option(x: f64, y: f64) -> f64 {
    let mut o = if x > 0.0 { Some(x * 3.0) } else { None };
    let a = o.unwrap_or({
        o = Some(y * y);
        y
    });
    let b = o.unwrap_or(x);
    a * b
}

#[test]
fn a_fallback_that_assigns_the_option() {
    check2!(
        fallback_assigns_the_option,
        fallback_assigns_the_option_jvp,
        fallback_assigns_the_option_vjp,
        fallback_assigns_the_option_grad,
        [(0.7, 0.3), (-0.6, 0.8)]
    );
}

/// d/dx of `everything` by reverse mode, differentiated again by forward mode.
#[forward]
fn everything_dx(x: f64, y: f64) -> f64 {
    everything_grad(x, y).1 .0
}

#[test]
fn forward_over_reverse_through_options() {
    for (x, y) in [(0.7, 0.3), (1.9, -1.2), (-0.8, 0.4), (-1.3, -2.1)] {
        let (value, along_x) = everything_dx_jvp(x, y, 1.0, 0.0);
        let (_, along_y) = everything_dx_jvp(x, y, 0.0, 1.0);
        assert_eq!(value, everything_grad(x, y).1 .0);
        let h = 1e-5;
        let dxx = (everything_grad(x + h, y).1 .0 - everything_grad(x - h, y).1 .0) / (2.0 * h);
        let dxy = (everything_grad(x, y + h).1 .0 - everything_grad(x, y - h).1 .0) / (2.0 * h);
        assert_relative_eq!(along_x, dxx, epsilon = 1e-6, max_relative = 1e-6);
        assert_relative_eq!(along_y, dxy, epsilon = 1e-6, max_relative = 1e-6);
    }
}

#[forward]
#[reverse]
fn options_of_data(x: f64, y: f64, v: &[f64], n: usize) -> f64 {
    // Options of integers built in the body are data, as before.
    let first = if n > 0 { Some(n - 1) } else { None };
    let mut found = None;
    for i in 0..v.len() {
        if v[i] > 0.0 {
            found = Some(i);
        }
    }
    let mut s = match first {
        Some(i) => v[i % v.len()] * x,
        None => y,
    };
    if let Some(i) = found {
        s += v[i] * y;
    }
    let k = found.unwrap_or(0) + first.unwrap_or(0);
    let best = if k > 1 { Some(x * k as f64) } else { None };
    s + best.unwrap_or(y)
}

#[test]
fn options_of_integers_stay_data() {
    let v = [0.5, -1.0, 2.0];
    for n in [0, 1, 3] {
        for (x, y) in [(0.7, 0.3), (-1.2, 0.5)] {
            check2(
                |x, y| options_of_data(x, y, &v, n),
                |x, y, dx, dy| options_of_data_jvp(x, y, &v, n, dx, dy, &[0.0; 3]),
                |x, y, ct| {
                    let (value, (dx, dy, _)) = options_of_data_vjp(x, y, &v, n, ct);
                    (value, (dx, dy))
                },
                x,
                y,
            );
            let (_, (_, _, dv)) = options_of_data_vjp(x, y, &v, n, 1.0);
            for i in 0..v.len() {
                let mut e = [0.0; 3];
                e[i] = 1.0;
                let (_, along) = options_of_data_jvp(x, y, &v, n, 0.0, 0.0, &e);
                assert_relative_eq!(dv[i], along, epsilon = 1e-12, max_relative = 1e-12);
            }
        }
    }
}

/// The largest element and its neighbour's product, by a running `Option`.
#[forward]
#[reverse]
fn running_max_of_slice(v: &[f64], y: f64) -> f64 {
    let mut best: Option<f64> = None;
    for &e in v.iter() {
        best = match best {
            Some(b) if b > e => Some(b),
            _ => Some(e * y),
        };
    }
    let mut second = None;
    for i in 0..v.len() {
        if v[i] < 0.0 {
            second = Some(v[i]);
        }
    }
    let picked = if y > 0.0 {
        Some(v[0] * v[v.len() - 1])
    } else {
        None
    };
    best.unwrap_or(y) + second.unwrap_or(0.0) * y + picked.unwrap_or(v[1])
}

#[test]
fn options_of_elements() {
    for (v, y) in [
        (vec![0.5, -1.0, 2.0, 0.25], 0.7),
        (vec![3.0, 1.0, -0.5, 0.1], -0.4),
        (vec![0.3, 0.6], 1.3),
    ] {
        let (value, (dv, dy)): (f64, (Vec<f64>, f64)) = running_max_of_slice_grad(&v, y);
        assert_eq!(value.to_bits(), running_max_of_slice(&v, y).to_bits());
        let (_, along_y) = running_max_of_slice_jvp(&v, y, &vec![0.0; v.len()], 1.0);
        assert_relative_eq!(dy, along_y, epsilon = 1e-12, max_relative = 1e-12);
        let h = 1e-6;
        let fd_y = (running_max_of_slice(&v, y + h) - running_max_of_slice(&v, y - h)) / (2.0 * h);
        assert_relative_eq!(along_y, fd_y, epsilon = 1e-6, max_relative = 1e-6);
        for i in 0..v.len() {
            let mut e = vec![0.0; v.len()];
            e[i] = 1.0;
            let (_, along) = running_max_of_slice_jvp(&v, y, &e, 0.0);
            assert_relative_eq!(dv[i], along, epsilon = 1e-12, max_relative = 1e-12);
            let moved = |h: f64| {
                let mut w = v.clone();
                w[i] += h;
                running_max_of_slice(&w, y)
            };
            let fd = (moved(h) - moved(-h)) / (2.0 * h);
            assert_relative_eq!(along, fd, epsilon = 1e-6, max_relative = 1e-6);
        }
    }
}

#[forward]
#[reverse]
fn closures_over_options(x: f64, y: f64) -> f64 {
    let o = if x > 0.0 { Some(x * y) } else { None };
    let f = |t: f64| match o {
        Some(v) => v * t,
        None => t * t,
    };
    let g = |t: f64| {
        if let Some(v) = o {
            v + t
        } else {
            t
        }
    };
    let h = |t: f64| {
        let inner = if t > 0.5 { Some(t * t) } else { None };
        match inner {
            Some(o) => {
                let o = o * 2.0;
                o + t
            }
            None => t,
        }
    };
    f(x) + g(y) * f(y) + h(x) * h(y)
}

#[test]
fn options_read_in_inlined_closures() {
    check2!(
        closures_over_options,
        closures_over_options_jvp,
        closures_over_options_vjp,
        closures_over_options_grad,
        [(0.7, 0.3), (-0.6, 0.8), (0.4, 0.9)]
    );
}

#[forward]
#[reverse]
fn labeled_exits(x: f64, y: f64, n: usize) -> f64 {
    let mut found: Option<f64> = None;
    'outer: for i in 0..n {
        for j in 0..n {
            let c = x * i as f64 + y * j as f64;
            if c > 1.5 {
                found = Some(c * c);
                break 'outer;
            }
            if c < -1.0 {
                found = match found {
                    Some(f) => Some(f + c),
                    None => Some(c),
                };
                continue 'outer;
            }
        }
    }
    found.unwrap_or(x - y)
}

#[test]
fn options_assigned_before_labeled_exits() {
    for n in [0, 1, 2, 4] {
        for (x, y) in [
            (0.7, 0.3),
            (-0.65, 0.85),
            (0.45, -0.35),
            (1.1, 1.3),
            (-0.3, -0.45),
        ] {
            check2(
                |x, y| labeled_exits(x, y, n),
                |x, y, dx, dy| labeled_exits_jvp(x, y, n, dx, dy),
                |x, y, ct| labeled_exits_vjp(x, y, n, ct),
                x,
                y,
            );
        }
    }
}

#[forward]
#[reverse]
fn name_of_an_option_elsewhere(x: f64, y: f64) -> f64 {
    let r;
    {
        let r = if x > 0.0 { Some(x * y) } else { None };
        if let Some(v) = r {
            return v + 1.0;
        }
    }
    r = x * 2.0 + y;
    let mut best = None;
    if y > 0.0 {
        best = Some(y * 3.0);
    }
    r * best.unwrap_or(x)
}

#[test]
fn a_float_declared_first_named_like_an_option() {
    check2!(
        name_of_an_option_elsewhere,
        name_of_an_option_elsewhere_jvp,
        name_of_an_option_elsewhere_vjp,
        name_of_an_option_elsewhere_grad,
        [(0.7, 0.3), (-0.6, 0.8), (-0.4, -0.9)]
    );
}

#[forward]
#[reverse]
fn recursive(x: f64, n: usize) -> f64 {
    let o = if n > 0 {
        Some(recursive(x * 0.5, n - 1))
    } else {
        None
    };
    match o {
        Some(v) if v > 0.0 => v * x + o.unwrap(),
        Some(v) => v - x,
        None => x.sin(),
    }
}

#[test]
fn options_in_a_recursive_function() {
    for n in [0, 1, 2, 5] {
        for x in [0.7, -0.4, 1.9] {
            let derivative =
                common::forward_checked1(|x| recursive(x, n), |x, dx| recursive_jvp(x, n, dx), x);
            let (value, gradient) = recursive_grad(x, n);
            assert_eq!(value.to_bits(), recursive(x, n).to_bits());
            assert_relative_eq!(gradient, derivative, epsilon = 1e-12, max_relative = 1e-12);
        }
    }
}

#[derive(Clone, Debug, PartialEq, ad_runtime::Differentiable)]
struct Point {
    x: f64,
    y: f64,
}

#[forward]
#[reverse]
fn options_of_parts(#[grad] p: &Point, s: f64) -> f64 {
    let o = if p.x > 0.0 { Some(p.x * s) } else { None };
    let q = Some(p.y);
    match o {
        Some(v) => v + q.unwrap() * p.x,
        None => q.unwrap_or(s) * s,
    }
}

#[test]
fn options_of_parts_of_grad_values() {
    let mut rng = common::Rng::new(7);
    for (x, y, s) in [(0.7, 0.3, 1.1), (-0.6, 0.8, -0.5)] {
        let p = Point { x, y };
        common::check_user_type(
            options_of_parts,
            options_of_parts_jvp,
            options_of_parts_vjp,
            &p,
            s,
            &mut rng,
        );
    }
}

#[forward]
#[reverse]
fn options_in_loop_conditions(x: f64, y: f64) -> f64 {
    let mut o: Option<f64> = None;
    let mut count = 0;
    while o.unwrap_or(0.0) < 3.0 && count < 20 {
        o = Some(o.unwrap_or(x.abs() + 0.25) * 1.5 + y * y);
        count += 1;
    }
    let mut p = if y > 0.0 { Some(y) } else { None };
    while p.is_some() {
        let v = p.unwrap();
        p = if v < 4.0 { Some(v * 2.0 + x) } else { None };
        count += 1;
    }
    o.unwrap() + count as f64 * x
}

#[test]
fn options_read_in_loop_conditions() {
    check2!(
        options_in_loop_conditions,
        options_in_loop_conditions_jvp,
        options_in_loop_conditions_vjp,
        options_in_loop_conditions_grad,
        [(0.7, 0.3), (-0.6, 0.8), (0.35, -0.45)]
    );
}

/// `Option::Some(..)` written as a path (found by review: it was taken for a user type's
/// variant).
#[forward]
#[reverse]
fn option_by_its_path(x: f64, y: f64) -> f64 {
    let o = Option::Some(x * y);
    let p = if x > 0.0 {
        std::option::Option::Some(y)
    } else {
        None
    };
    o.unwrap_or(y) + p.unwrap_or(x)
}

#[test]
fn options_written_by_their_path() {
    for (x, y) in [(0.7, -0.4), (-1.3, 2.1)] {
        let (value, along_x, along_y) =
            forward_checked2(option_by_its_path, option_by_its_path_jvp, x, y);
        let (reverse_value, (gx, gy)) = option_by_its_path_grad(x, y);
        assert_eq!(reverse_value.to_bits(), value.to_bits());
        assert_relative_eq!(gx, along_x, max_relative = 1e-12);
        assert_relative_eq!(gy, along_y, max_relative = 1e-12);
    }
}
