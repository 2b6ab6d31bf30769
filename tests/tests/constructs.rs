//! Every construct both modes support, each in a small function carrying `#[forward]` and
//! `#[reverse]`, checked three ways: the value is the plain function's (bit for bit), the
//! forward derivative matches central differences, and every reverse adjoint matches the
//! forward derivative along that parameter. Functions of several parameters also pass the
//! dot-product test <J t, c> = <t, J^T c> on random vectors.

// The functions spell out constructs on purpose (`t = t + s`, `x as f64`).
#![allow(clippy::assign_op_pattern, clippy::unnecessary_cast)]

mod common;

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;
use common::{central_difference, forward_checked1, forward_checked2, Rng};

/// One float parameter: value, forward vs differences, reverse vs forward.
fn check1(
    plain: impl Fn(f64) -> f64,
    jvp: impl Fn(f64, f64) -> (f64, f64),
    vjp: impl Fn(f64, f64) -> (f64, f64),
    points: &[f64],
) {
    for &x in points {
        let tangent = forward_checked1(&plain, &jvp, x);
        let (reverse_value, adjoint) = vjp(x, 1.0);
        assert_eq!(
            reverse_value.to_bits(),
            plain(x).to_bits(),
            "reverse value at {x}"
        );
        assert_relative_eq!(adjoint, tangent, epsilon = 1e-13, max_relative = 1e-12);
        let (_, scaled) = vjp(x, -2.5);
        assert_relative_eq!(
            scaled,
            -2.5 * adjoint,
            epsilon = 1e-13,
            max_relative = 1e-12
        );
    }
}

/// Two float parameters: the same, and the dot-product test with random t and c.
fn check2(
    plain: impl Fn(f64, f64) -> f64,
    jvp: impl Fn(f64, f64, f64, f64) -> (f64, f64),
    vjp: impl Fn(f64, f64, f64) -> (f64, (f64, f64)),
    points: &[(f64, f64)],
) {
    let mut rng = Rng::new(7);
    for &(x, y) in points {
        let (value, along_x, along_y) = forward_checked2(&plain, &jvp, x, y);
        let (reverse_value, (adjoint_x, adjoint_y)) = vjp(x, y, 1.0);
        assert_eq!(reverse_value.to_bits(), value.to_bits());
        assert_relative_eq!(adjoint_x, along_x, epsilon = 1e-13, max_relative = 1e-12);
        assert_relative_eq!(adjoint_y, along_y, epsilon = 1e-13, max_relative = 1e-12);
        for _ in 0..5 {
            let (tx, ty, c) = (
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
            );
            let (_, jt) = jvp(x, y, tx, ty);
            let (_, (ax, ay)) = vjp(x, y, c);
            assert_relative_eq!(
                jt * c,
                tx * ax + ty * ay,
                epsilon = 1e-12,
                max_relative = 1e-12
            );
        }
    }
}

const POINTS: &[f64] = &[-1.7, -0.4, 0.3, 0.9, 2.2];

#[forward]
#[reverse]
fn straight_line(x: f64) -> f64 {
    let a = x * x;
    let b = a.sin() + 3.0;
    let c = b / (1.0 + a);
    c - x
}

#[test]
fn let_bindings() {
    check1(straight_line, straight_line_jvp, straight_line_vjp, POINTS);
}

#[reverse]
#[forward]
fn mutable_locals(x: f64, y: f64) -> f64 {
    let mut s = x;
    s += y;
    s *= x;
    s -= 2.0 * y;
    s /= 1.5 + y * y;
    s %= 7.0;
    let mut t;
    t = s.exp();
    t = t + s;
    t
}

#[test]
fn mutable_locals_and_compound_assignment() {
    check2(
        mutable_locals,
        mutable_locals_jvp,
        mutable_locals_vjp,
        &[(0.5, 1.0), (-1.0, 0.3), (2.0, -0.7)],
    );
}

#[forward]
#[reverse]
fn overwrites_its_operands(x: f64, y: f64) -> f64 {
    let mut a = x;
    a = a * a;
    a = a * y + a;
    let mut b = y;
    b = a / b;
    b = b - b * b;
    a + b
}

#[test]
fn variables_overwritten_while_the_backward_sweep_needs_them() {
    check2(
        overwrites_its_operands,
        overwrites_its_operands_jvp,
        overwrites_its_operands_vjp,
        &[(0.5, 1.0), (-1.0, 0.3)],
    );
}

#[forward]
#[reverse]
fn shadowing(x: f64) -> f64 {
    let y = x * 2.0;
    let x = x.sin();
    let x = x * y;
    let z: f64 = x + 1.0;
    z
}

#[test]
fn shadowed_and_annotated_bindings() {
    check1(shadowing, shadowing_jvp, shadowing_vjp, POINTS);
}

#[forward]
#[reverse]
fn branches(x: f64, y: f64) -> f64 {
    if x > 1.0 {
        x * y
    } else if x > 0.0 {
        x.exp() - y
    } else {
        -x * y * y
    }
}

#[test]
fn if_else_if_else() {
    check2(
        branches,
        branches_jvp,
        branches_vjp,
        &[(2.0, 0.5), (0.5, 0.5), (-0.5, 1.5)],
    );
}

#[forward]
#[reverse]
fn if_without_else(x: f64, flag: bool) -> f64 {
    let mut y = x;
    if flag {
        y = y * y;
    }
    let z = if y > 0.5 { y.ln() } else { y };
    z + y
}

#[test]
fn if_without_else_and_if_as_value() {
    for flag in [true, false] {
        check1(
            |x| if_without_else(x, flag),
            |x, dx| if_without_else_jvp(x, flag, dx),
            |x, c| if_without_else_vjp(x, flag, c),
            &[0.3, 0.9, 2.2],
        );
    }
}

#[forward]
#[reverse]
fn match_integer(x: f64, k: i32) -> f64 {
    match k {
        0 => x,
        1 | 2 => x * x,
        n if n < 0 => x.powi(-n),
        3..=5 => x.sin() * k as f64,
        _ => 1.0 / x,
    }
}

#[test]
fn match_on_integers_with_guards() {
    for k in [-3, 0, 1, 2, 4, 9] {
        check1(
            |x| match_integer(x, k),
            |x, dx| match_integer_jvp(x, k, dx),
            |x, c| match_integer_vjp(x, k, c),
            POINTS,
        );
    }
}

#[forward]
#[reverse]
fn match_bool(x: f64, b: bool) -> f64 {
    let y = match b {
        true => x.cos(),
        false => x.sin(),
    };
    y * x
}

#[test]
fn match_on_bools() {
    for b in [true, false] {
        check1(
            |x| match_bool(x, b),
            |x, dx| match_bool_jvp(x, b, dx),
            |x, c| match_bool_vjp(x, b, c),
            POINTS,
        );
    }
}

#[derive(Clone, Copy)]
pub enum Activation {
    Identity,
    Tanh,
    Leaky { slope: i32 },
}

#[forward]
#[reverse]
fn activate(x: f64, activation: Activation) -> f64 {
    match activation {
        Activation::Identity => x,
        Activation::Tanh => x.tanh(),
        Activation::Leaky { slope } if x < 0.0 => x / slope as f64,
        Activation::Leaky { .. } => x,
    }
}

#[test]
fn match_on_user_enums_that_are_data() {
    for activation in [
        Activation::Identity,
        Activation::Tanh,
        Activation::Leaky { slope: 10 },
    ] {
        check1(
            |x| activate(x, activation),
            |x, dx| activate_jvp(x, activation, dx),
            |x, c| activate_vjp(x, activation, c),
            POINTS,
        );
    }
}

#[forward]
#[reverse]
fn for_loops(x: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += x.powi(i as i32) / (i + 1) as f64;
    }
    for i in (1..=n).rev().step_by(2) {
        s -= x * i as f64;
    }
    s
}

#[test]
fn for_over_ranges() {
    for n in [0, 1, 5] {
        check1(
            |x| for_loops(x, n),
            |x, dx| for_loops_jvp(x, n, dx),
            |x, c| for_loops_vjp(x, n, c),
            POINTS,
        );
    }
}

#[forward]
#[reverse]
fn nested_loops(x: f64, y: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let mut row = x;
        for j in 0..i {
            row = row * y + j as f64;
            if row > 10.0 {
                row = row.sqrt();
            }
        }
        s += row;
    }
    s
}

#[test]
fn nested_loops_with_branches() {
    check2(
        |x, y| nested_loops(x, y, 6),
        |x, y, dx, dy| nested_loops_jvp(x, y, 6, dx, dy),
        |x, y, c| nested_loops_vjp(x, y, 6, c),
        &[(0.5, 1.3), (1.5, 0.7), (-0.3, 2.1)],
    );
}

/// Loops nested in loops keep their iterations' pullbacks in pools owned by the outermost
/// loop; loops with exits, loops inside branches and `while` loops mix with them here.
#[forward]
#[reverse]
fn loops_nested_three_deep(x: f64, y: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let mut row = x;
        for j in 0..i {
            for k in 0..j {
                row = row * y + (k as f64) * 0.01;
            }
            let mut m = 0;
            while m < j {
                row = (row * 0.9).sin() + x;
                m += 1;
            }
            if j % 2 == 0 {
                for k in 0..2 {
                    for _ in 0..k {
                        row += y * 0.1;
                    }
                }
            }
            for k in 0..3 {
                if k == j {
                    break;
                }
                for _ in 0..2 {
                    row = row * 0.5 + y;
                }
            }
        }
        s += row;
    }
    s
}

#[test]
fn loops_nested_in_loops() {
    for n in [0, 1, 2, 5] {
        check2(
            |x, y| loops_nested_three_deep(x, y, n),
            |x, y, dx, dy| loops_nested_three_deep_jvp(x, y, n, dx, dy),
            |x, y, c| loops_nested_three_deep_vjp(x, y, n, c),
            &[(0.5, 0.8), (1.5, -0.7), (-0.3, 1.1)],
        );
    }
}

#[forward]
#[reverse]
fn while_loop(x: f64) -> f64 {
    let mut y = x;
    let mut steps = 0;
    while y.abs() < 100.0 && steps < 50 {
        y = y * 1.7 + 0.1;
        steps += 1;
    }
    y
}

#[test]
fn while_loops() {
    check1(
        while_loop,
        while_loop_jvp,
        while_loop_vjp,
        &[-1.7, 0.3, 2.2],
    );
}

#[forward]
#[reverse]
fn loop_with_break_value(x: f64) -> f64 {
    let mut y = x;
    let mut i = 0;
    let result = loop {
        i += 1;
        if i % 3 == 0 {
            continue;
        }
        y = y.sin() + x;
        if i > 10 {
            break y * 2.0;
        }
    };
    result + 1.0
}

#[test]
fn loop_break_continue_and_break_value() {
    check1(
        loop_with_break_value,
        loop_with_break_value_jvp,
        loop_with_break_value_vjp,
        POINTS,
    );
}

#[forward]
#[reverse]
fn labeled_loops(x: f64, n: usize) -> f64 {
    let mut s = 0.0;
    'outer: for i in 0..n {
        let mut inner = 0.0;
        for j in 0..n {
            inner += x * j as f64;
            if j > i {
                s += inner;
                continue 'outer;
            }
            if i + j > 6 {
                s -= inner.sin();
                break 'outer;
            }
            s += x * (i * j) as f64 + x.sin();
        }
    }
    s
}

#[test]
fn labeled_break_and_continue() {
    check1(
        |x| labeled_loops(x, 6),
        |x, dx| labeled_loops_jvp(x, 6, dx),
        |x, c| labeled_loops_vjp(x, 6, c),
        POINTS,
    );
}

#[forward]
#[reverse]
fn early_return(x: f64, y: f64) -> f64 {
    let z = x * y;
    if x < 0.0 {
        return z * y;
    }
    let mut acc = z;
    for i in 0..10 {
        acc += x;
        if x * i as f64 > 3.0 {
            return acc * y / (i as f64 + x);
        }
    }
    acc + y
}

#[test]
fn early_returns() {
    check2(
        early_return,
        early_return_jvp,
        early_return_vjp,
        &[(-1.0, 2.0), (0.55, 2.0), (1e-3, 0.5)],
    );
}

#[forward]
#[reverse]
fn block_expressions(x: f64) -> f64 {
    let a = {
        let t = x * x;
        t + 1.0
    };
    let b = if a > 2.0 { a.ln() } else { a };
    a * b
}

#[test]
fn blocks_as_expressions() {
    check1(
        block_expressions,
        block_expressions_jvp,
        block_expressions_vjp,
        POINTS,
    );
}

#[forward]
#[reverse]
fn casts(x: f64, n: u32) -> f64 {
    let k = n as f64;
    let i = x as i64;
    let j = (x * 10.0) as usize;
    let same = x as f64;
    k * same + (i as f64) + f64::from(n) * x + (j % 3) as f64
}

#[test]
fn as_casts_and_from() {
    check1(
        |x| casts(x, 3),
        |x, dx| casts_jvp(x, 3, dx),
        |x, c| casts_vjp(x, 3, c),
        &[0.33, 1.71, 2.22],
    );
}

const SCALE: f64 = 2.5;
const COUNT: usize = 3;

#[forward]
#[reverse]
fn constants(x: f64) -> f64 {
    use std::f64::consts::E;
    let pi = std::f64::consts::PI;
    x * pi + E * x.powi(2) + f64::EPSILON + core::f64::consts::LN_2 + SCALE * x * COUNT as f64
}

#[test]
fn float_literals_and_constants() {
    check1(constants, constants_jvp, constants_vjp, POINTS);
}

#[forward]
#[reverse]
fn square(x: f64) -> f64 {
    x * x
}

#[forward]
#[reverse]
fn calls_other(x: f64, y: f64) -> f64 {
    square(x.sin()) + self::square(y) * inner::cube(x, 2)
}

mod inner {
    use ad_runtime::{forward, reverse};

    #[forward]
    #[reverse]
    pub fn cube(x: f64, unused: usize) -> f64 {
        let _ = unused;
        x * x * x
    }
}

#[test]
fn calls_to_other_differentiated_functions() {
    check2(
        calls_other,
        calls_other_jvp,
        calls_other_vjp,
        &[(0.5, 1.0), (-1.0, 0.3)],
    );
}

#[forward]
#[reverse]
fn calls_in_loops_and_branches(x: f64, n: usize) -> f64 {
    let mut s = x;
    for i in 0..n {
        if i % 2 == 0 {
            s = square(s) * 0.5;
        } else {
            s = s + inner::cube(x, i);
        }
    }
    s
}

#[test]
fn calls_inside_loops_and_branches() {
    check1(
        |x| calls_in_loops_and_branches(x, 5),
        |x, dx| calls_in_loops_and_branches_jvp(x, 5, dx),
        |x, c| calls_in_loops_and_branches_vjp(x, 5, c),
        &[-0.9, 0.3, 0.8],
    );
}

#[forward]
#[reverse]
fn power(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * power(x, n - 1)
    }
}

#[test]
fn direct_recursion() {
    for n in [0, 1, 4, 7] {
        check1(
            |x| power(x, n),
            |x, dx| power_jvp(x, n, dx),
            |x, c| power_vjp(x, n, c),
            POINTS,
        );
    }
}

#[forward]
#[reverse]
fn even_terms(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        1.0 + x * odd_terms(x, n - 1)
    }
}

#[forward]
#[reverse]
fn odd_terms(x: f64, n: u32) -> f64 {
    if n == 0 {
        0.0
    } else {
        x.cos() * even_terms(x, n - 1)
    }
}

#[test]
fn mutual_recursion() {
    check1(
        |x| even_terms(x, 9),
        |x, dx| even_terms_jvp(x, 9, dx),
        |x, c| even_terms_vjp(x, 9, c),
        POINTS,
    );
}

fn weight(i: usize) -> f64 {
    1.0 / (i as f64 + 1.0)
}

fn index_of(i: usize, j: usize) -> usize {
    i * 3 + j
}

#[forward]
#[reverse]
fn calls_data_helpers(x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..4 {
        let w = weight(i);
        s += w * x.powi(index_of(i, 1) as i32);
    }
    s
}

#[test]
fn calls_to_functions_of_data_only() {
    check1(
        calls_data_helpers,
        calls_data_helpers_jvp,
        calls_data_helpers_vjp,
        &[-0.9, 0.3, 0.8],
    );
}

#[forward]
#[reverse]
fn with_constant(x: f64, #[no_grad] c: f64, y: f64) -> f64 {
    (x * c).sin() + c * y
}

#[test]
fn no_grad_parameters_are_constants() {
    let (value, (gx, gy)) = with_constant_grad(0.3, 0.7, 2.0);
    assert_eq!(value, with_constant(0.3, 0.7, 2.0));
    assert_relative_eq!(gx, 0.7 * (0.3_f64 * 0.7).cos(), max_relative = 1e-14);
    assert_relative_eq!(gy, 0.7, max_relative = 1e-14);
}

#[forward]
#[reverse]
fn with_macros(x: f64) -> f64 {
    assert!(x.is_finite(), "x must be finite, got {}", x);
    debug_assert!(x > -100.0);
    if x.is_nan() {
        println!("never printed: {x}");
    }
    let n = x as usize;
    x * (n + 1) as f64
}

#[test]
fn supported_macros_and_value_only_uses() {
    check1(
        with_macros,
        with_macros_jvp,
        with_macros_vjp,
        &[0.3, 1.4, 2.2],
    );
}

#[forward]
#[reverse]
fn every_rule(x: f64, y: f64) -> f64 {
    let a = x.sin() + x.cos() + (x * 0.3).tan() + (x * 0.2).asin() + (x * 0.2).acos() + x.atan();
    let b = x.sinh() + x.cosh() + x.tanh() + x.asinh() + (y + 2.0).acosh() + (x * 0.2).atanh();
    let c = x.exp() + x.exp2() + x.exp_m1() + y.ln() + y.log(3.0) + y.log2() + y.log10();
    let d = y.ln_1p() + y.sqrt() + x.cbrt() + x.powi(3) + y.powf(x) + x.hypot(y) + x.abs();
    let e = x.signum() + y.recip() + x.mul_add(y, 2.0) + x.min(y) + x.max(y) + x.clamp(-1.0, 0.5);
    let f = x.to_degrees() + y.to_radians() + x.floor() + y.ceil() + x.round() + y.trunc();
    let g = y.fract() + x.atan2(y) + f64::sin(x) * f64::hypot(x, y) + x % y - -y;
    a + b + c + d + e + f + g
}

#[test]
fn every_rule_in_reverse_mode() {
    check2(
        every_rule,
        every_rule_jvp,
        every_rule_vjp,
        &[(0.7, 1.3), (-1.2, 2.5), (0.1, 0.45)],
    );
}

#[forward]
#[reverse]
fn single_precision(x: f32, y: f32) -> f32 {
    let mut s = x;
    for _ in 0..3 {
        s = s * y + x.sin();
    }
    s
}

#[test]
fn f32_functions() {
    let (x, y) = (0.4_f32, 1.3_f32);
    let (value, (gx, gy)) = single_precision_grad(x, y);
    assert_eq!(value, single_precision(x, y));
    assert_relative_eq!(
        gx,
        single_precision_jvp(x, y, 1.0, 0.0).1,
        max_relative = 1e-6
    );
    assert_relative_eq!(
        gy,
        single_precision_jvp(x, y, 0.0, 1.0).1,
        max_relative = 1e-6
    );
}

#[reverse]
fn many_parameters(a: f64, b: f64, k: usize, c: f64, d: f64) -> f64 {
    let mut s = a * b.sin();
    for _ in 0..k {
        s = s * c / d + a;
    }
    s
}

/// The dot-product test on random points and directions, four inputs.
#[test]
fn dot_product_identity_on_random_inputs() {
    let mut rng = Rng::new(11);
    for _ in 0..50 {
        let p: Vec<f64> = (0..4).map(|_| rng.uniform(0.5, 2.0)).collect();
        let t: Vec<f64> = (0..4).map(|_| rng.uniform(-1.0, 1.0)).collect();
        let c = rng.uniform(-2.0, 2.0);
        let f = |h: f64| {
            many_parameters(
                p[0] + h * t[0],
                p[1] + h * t[1],
                3,
                p[2] + h * t[2],
                p[3] + h * t[3],
            )
        };
        let jt = central_difference(f, 0.0, 1e-4);
        let (_, (ga, gb, gc, gd)) = many_parameters_vjp(p[0], p[1], 3, p[2], p[3], c);
        let jtc = ga * t[0] + gb * t[1] + gc * t[2] + gd * t[3];
        assert_relative_eq!(jt * c, jtc, epsilon = 1e-8, max_relative = 1e-7);
    }
}

#[forward]
#[reverse]
fn tuple_bindings(x: f64, y: f64, n: usize) -> f64 {
    let (mut a, b, count) = (x * y, x - y, n + 1);
    let (c, d) = (b, a);
    a = c * d.sin() + count as f64;
    let (mut p, mut q) = (a, b);
    for _ in 0..n {
        (p, q) = (q, p * 0.5);
    }
    a + b * p - q
}

#[test]
fn tuple_bindings_and_swaps() {
    check2(
        |x, y| tuple_bindings(x, y, 3),
        |x, y, dx, dy| tuple_bindings_jvp(x, y, 3, dx, dy),
        |x, y, c| tuple_bindings_vjp(x, y, 3, c),
        &[(0.5, 1.0), (-1.0, 0.3)],
    );
}

#[forward]
#[reverse]
fn block_values_with_their_own_bindings(x: f64, y: f64) -> f64 {
    let z = {
        let t = y * x;
        t.sqrt()
    };
    let w = if z > 0.5 {
        let u = z * z;
        u + x
    } else {
        let v = z - y;
        v * 2.0
    };
    z * w
}

#[test]
fn block_values_that_bind_floats_inside() {
    check2(
        block_values_with_their_own_bindings,
        block_values_with_their_own_bindings_jvp,
        block_values_with_their_own_bindings_vjp,
        &[(0.5, 1.0), (1.5, 0.7)],
    );
}

// Regressions found by review: each was a silently wrong reverse-mode result.

#[forward]
#[reverse]
fn swaps_with_operations(x: f64, y: f64) -> f64 {
    let (x, y) = (y * 2.0, x);
    let (x, y) = (y, x * y);
    x - y * y
}

#[forward]
#[reverse]
fn later_operand_assigns_an_earlier_one(x: f64, y: f64) -> f64 {
    let mut a = x;
    let b = a * {
        a = a * 3.0;
        a
    };
    let mut c = y;
    let d = c.max({
        c = c * x;
        c
    });
    let e = square_plus(a, {
        a = a * y;
        a
    });
    b + d + e
}

#[forward]
#[reverse]
fn square_plus(a: f64, b: f64) -> f64 {
    a * 10.0 + b * b
}

const FACTOR: f64 = 1.5;

fn data_value(n: usize) -> f64 {
    n as f64 * 0.25
}

#[forward]
#[reverse]
fn arguments_of_unknown_types(x: f64, n: usize) -> f64 {
    square_plus(FACTOR, x) + square_plus(data_value(n), x * x)
}

#[test]
fn regressions_of_evaluation_order_and_argument_pairing() {
    check2(
        swaps_with_operations,
        swaps_with_operations_jvp,
        swaps_with_operations_vjp,
        &[(0.5, 1.0), (-1.0, 0.3)],
    );
    check2(
        later_operand_assigns_an_earlier_one,
        later_operand_assigns_an_earlier_one_jvp,
        later_operand_assigns_an_earlier_one_vjp,
        &[(0.5, 1.2), (-1.0, 0.3)],
    );
    check1(
        |x| arguments_of_unknown_types(x, 3),
        |x, dx| arguments_of_unknown_types_jvp(x, 3, dx),
        |x, c| arguments_of_unknown_types_vjp(x, 3, c),
        &[0.5, -1.2],
    );
}

#[forward]
#[reverse]
fn review_compile_cases(x: f64, n: usize) -> f64 {
    let _ = x * 2.0;
    let mut s = FACTOR;
    s += x;
    let mut t = data_value(n);
    t *= x;
    let m = FACTOR.max(x);
    let mut j = 0;
    let k = loop {
        j += 1;
        if j > n {
            break j + 1;
        }
    };
    let mut u = 0.0;
    for _ in 0..k {
        u += s * t;
    }
    u + m
}

#[test]
fn constants_data_results_and_integer_loops_in_float_code() {
    check1(
        |x| review_compile_cases(x, 2),
        |x, dx| review_compile_cases_jvp(x, 2, dx),
        |x, c| review_compile_cases_vjp(x, 2, c),
        &[0.5, 2.5],
    );
}

#[forward]
#[reverse]
#[allow(non_snake_case)]
fn r#type(r#in: f64, r#as: f64) -> f64 {
    r#in * r#as
}

#[test]
fn raw_identifiers() {
    assert_eq!(type_grad(2.0, 3.0), (6.0, (3.0, 2.0)));
    assert_eq!(type_jvp(2.0, 3.0, 1.0, 0.0), (6.0, 3.0));
}

#[forward]
#[reverse]
fn tuple_parameter(p: (f64, f64), k: usize, q: (f64, f64, f64)) -> f64 {
    let (a, b) = p;
    let mut s = p.0 * q.2;
    for _ in 0..k {
        s = s * b + a.sin() * q.1;
    }
    s + q.0 * p.1
}

#[test]
fn tuples_of_scalars_as_parameters() {
    let (p, q) = ((0.4, -1.3), (0.2, 0.9, 1.7));
    let (value, (gp, gq)) = tuple_parameter_grad(p, 3, q);
    assert_eq!(value, tuple_parameter(p, 3, q));
    let along = |tp: (f64, f64), tq: (f64, f64, f64)| tuple_parameter_jvp(p, 3, q, tp, tq).1;
    assert_relative_eq!(
        gp.0,
        along((1.0, 0.0), (0.0, 0.0, 0.0)),
        max_relative = 1e-12
    );
    assert_relative_eq!(
        gp.1,
        along((0.0, 1.0), (0.0, 0.0, 0.0)),
        max_relative = 1e-12
    );
    assert_relative_eq!(
        gq.0,
        along((0.0, 0.0), (1.0, 0.0, 0.0)),
        max_relative = 1e-12
    );
    assert_relative_eq!(
        gq.1,
        along((0.0, 0.0), (0.0, 1.0, 0.0)),
        max_relative = 1e-12
    );
    assert_relative_eq!(
        gq.2,
        along((0.0, 0.0), (0.0, 0.0, 1.0)),
        max_relative = 1e-12
    );
}

#[forward]
#[reverse]
fn closures_inlined(x: f64, y: f64, n: usize) -> f64 {
    let scale = |t: f64| t * y;
    let shift = |t: f64, u: f64| t + u * x;
    let mut s = 0.0;
    let mut add = |v: f64| s += v * v;
    add(x);
    add(scale(y));
    let k = 2;
    let power = |t: f64| t.powi(k);
    let mut total = shift(scale(x.sin()), y) + s;
    for i in 0..n {
        total = shift(total * 0.5, power(i as f64 * 0.1));
    }
    if scale(x) > 0.0 {
        total += power(y);
    }
    total
}

#[test]
fn closures_defined_in_the_body() {
    check2(
        |x, y| closures_inlined(x, y, 3),
        |x, y, dx, dy| closures_inlined_jvp(x, y, 3, dx, dy),
        |x, y, c| closures_inlined_vjp(x, y, 3, c),
        &[(0.5, 1.2), (-1.0, 0.3)],
    );
}

/// `move` closures see the values their captured variables had where they were defined,
/// whatever happens to the variables afterwards.
#[forward]
#[reverse]
fn move_closures(x: f64, y: f64, n: usize) -> f64 {
    let mut a = x * y;
    let mut k = n;
    let scaled = move |t: f64| t * a + k as f64;
    a = a.sin() + y;
    k += 3;
    let mut total = scaled(x) + a * k as f64;
    for i in 0..n {
        let step = move |t: f64| t * a - (i as f64) * y;
        a *= 0.5;
        total += step(total.cos()) + scaled(a);
    }
    let late = move |t: f64| t + a * x;
    a = 0.0;
    total * late(y) + a
}

#[test]
fn move_closures_capture_values() {
    for n in [0, 1, 3] {
        check2(
            |x, y| move_closures(x, y, n),
            |x, y, dx, dy| move_closures_jvp(x, y, n, dx, dy),
            |x, y, c| move_closures_vjp(x, y, n, c),
            &[(0.5, 1.2), (-1.0, 0.3), (0.8, -0.6)],
        );
    }
}

#[forward]
#[reverse]
fn rotation_by_sin_cos(x: f64, y: f64) -> f64 {
    let angle = x * y;
    let (s, c) = angle.sin_cos();
    let (s2, c2): (f64, f64) = x.sin_cos();
    let (s3, c3) = (x - 0.5 * angle).sin_cos();
    let (s4, _) = f64::sin_cos(s3 * y);
    let (_, c4) = (x, y.cos());
    s * c2 - c * s2 + s * s + s3 * c3 * y + s4 * c4
}

#[test]
fn sin_cos_bound_to_a_pair() {
    check2(
        rotation_by_sin_cos,
        rotation_by_sin_cos_jvp,
        rotation_by_sin_cos_vjp,
        &[(0.5, 1.2), (-1.0, 0.3), (2.0, -0.7)],
    );
}

#[forward]
#[reverse]
fn closures_of_statements_and_raw_names(x: f64, y: f64) -> f64 {
    let mut s = 0.0;
    let mut add_positive = |v: f64| {
        if v > 0.0 {
            s += v * v;
        }
    };
    add_positive(x);
    add_positive(-x);
    add_positive(y);
    let mut repeat = |v: f64| {
        for _ in 0..2 {
            s += v * r#y;
        }
    };
    repeat(x);
    let product = |a: f64, b: f64| a * b + a;
    let a = r#y * x;
    s + product(a, x) + product(x, a)
}

#[test]
fn closures_of_statements_and_raw_identifiers() {
    check2(
        closures_of_statements_and_raw_names,
        closures_of_statements_and_raw_names_jvp,
        closures_of_statements_and_raw_names_vjp,
        &[(0.5, 1.2), (-1.0, 0.3), (2.0, -0.7)],
    );
}

#[forward]
#[reverse]
fn closure_changing_data_in_a_condition(x: f64, y: f64) -> f64 {
    let mut seen = Vec::new();
    let mut remember = |k: usize| {
        seen.insert(0, k);
        seen.len()
    };
    let mut total = x * y;
    for k in 0..4 {
        if remember(k) < 3 {
            total = total * x + y;
        }
    }
    total
}

#[test]
fn closures_changing_data_called_in_conditions() {
    check2(
        closure_changing_data_in_a_condition,
        closure_changing_data_in_a_condition_jvp,
        closure_changing_data_in_a_condition_vjp,
        &[(0.5, 1.2), (-1.0, 0.3)],
    );
}

// ----- local tuples of floats -----

#[forward]
#[reverse]
fn tuple_product(p: (f64, f64)) -> f64 {
    p.0 * p.1
}

/// A tuple built in the body, read by `.0`, updated in place, passed on whole.
#[forward]
#[reverse]
fn local_tuples(x: f64, y: f64) -> f64 {
    let t = (x * y, x.sin());
    let mut u: (f64, f64) = (t.1, 2.0);
    u.1 *= y;
    u.0 = u.0 + t.0;
    tuple_product(t) + t.0 * u.0 + tuple_product(u)
}

/// A tuple result held in a variable.
#[forward]
#[reverse]
fn swapped(x: f64, y: f64) -> (f64, f64) {
    let mut pair = (y * x, x.exp());
    if x > 10.0 {
        pair.0 = 0.0;
    }
    pair
}

#[test]
fn local_tuples_of_floats() {
    let (value, (ax, ay)) = swapped_vjp(0.5, 2.0, (1.0, -1.0));
    assert_eq!(value, swapped(0.5, 2.0));
    assert_relative_eq!(ax, 2.0 - 0.5_f64.exp(), max_relative = 1e-15);
    assert_relative_eq!(ay, 0.5, max_relative = 1e-15);
    check2(
        local_tuples,
        local_tuples_jvp,
        local_tuples_vjp,
        &[(0.7, 1.3), (-1.1, 0.4), (2.0, -0.6)],
    );
}

/// A name the analysis cannot type, because a closure gives it (`|f| f + 1` may hold a float),
/// cast to a float: an integer here, a constant (found by review: it failed inside generated
/// code).
#[forward]
#[reverse]
fn count_from_a_closure(x: f64, data: Option<usize>) -> f64 {
    let k = data.map_or(0, |f| f + 1);
    let y = x * 2.0;
    x * k as f64 + (y as f64) * y
}

#[test]
fn casts_of_names_the_analysis_cannot_type() {
    for data in [None, Some(2)] {
        let plain = |x: f64| count_from_a_closure(x, data);
        let along =
            common::forward_checked1(plain, |x, t| count_from_a_closure_jvp(x, data, t), 1.5);
        let (value, gradient) = count_from_a_closure_grad(1.5_f64, data);
        assert_eq!(value.to_bits(), plain(1.5).to_bits());
        assert_relative_eq!(gradient, along, max_relative = 1e-12);
    }
}

/// An integer reduction whose `let` writes its type (`let count: usize = ..sum();`): data,
/// not lifted to the scalar type (forward mode lifted it, and rustc could not tell which
/// lifting applies: E0034). The previous engine refuses it.
#[forward]
#[reverse]
fn counted_by_an_integer_sum(x: &[f64]) -> f64 {
    let count: usize = (0..x.len()).map(|_| 1).sum();
    let odd: bool = count % 2 == 1;
    x[0] * count as f64 + if odd { x[1] } else { 0.0 }
}

#[test]
fn integer_reductions_with_their_type_written() {
    common::check_gradient(
        3,
        counted_by_an_integer_sum,
        counted_by_an_integer_sum_jvp,
        counted_by_an_integer_sum_vjp,
    );
    assert_eq!(counted_by_an_integer_sum(&[2.0, 5.0, 1.0]), 11.0);
}
