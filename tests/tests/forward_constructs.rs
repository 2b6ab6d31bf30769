//! Every construct `#[forward]` supports, each in a small function checked against the plain
//! function's value (bit for bit: the primal computation is unchanged) and against central
//! differences, at several points and for every float parameter.

// The functions spell out constructs on purpose (`t = t + s`, `x as f64`, `vec!`), because the
// macro must handle each spelling.
#![allow(
    clippy::assign_op_pattern,
    clippy::unnecessary_cast,
    clippy::eq_op,
    clippy::useless_vec
)]

mod common;

use ad_runtime::forward;
use approx::assert_relative_eq;
use common::{central_difference, Rng};

fn check1(plain: impl Fn(f64) -> f64, jvp: impl Fn(f64, f64) -> (f64, f64), points: &[f64]) {
    for &x in points {
        let (value, tangent) = jvp(x, 1.0);
        assert_eq!(value.to_bits(), plain(x).to_bits(), "value at {x}");
        let expected = central_difference(&plain, x, 1e-4);
        assert_relative_eq!(tangent, expected, epsilon = 1e-8, max_relative = 1e-7);
    }
}

fn check2(
    plain: impl Fn(f64, f64) -> f64,
    jvp: impl Fn(f64, f64, f64, f64) -> (f64, f64),
    points: &[(f64, f64)],
) {
    for &(x, y) in points {
        let (value, along_x) = jvp(x, y, 1.0, 0.0);
        let (_, along_y) = jvp(x, y, 0.0, 1.0);
        assert_eq!(
            value.to_bits(),
            plain(x, y).to_bits(),
            "value at ({x}, {y})"
        );
        let dx = central_difference(|x| plain(x, y), x, 1e-4);
        let dy = central_difference(|y| plain(x, y), y, 1e-4);
        assert_relative_eq!(along_x, dx, epsilon = 1e-8, max_relative = 1e-7);
        assert_relative_eq!(along_y, dy, epsilon = 1e-8, max_relative = 1e-7);
    }
}

const POINTS: &[f64] = &[-1.7, -0.4, 0.3, 0.9, 2.2];

#[forward]
fn straight_line(x: f64) -> f64 {
    let a = x * x;
    let b = a.sin() + 3.0;
    let c = b / (1.0 + a);
    c - x
}

#[test]
fn let_bindings() {
    check1(straight_line, straight_line_jvp, POINTS);
}

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
        &[(0.5, 1.0), (-1.0, 0.3), (2.0, -0.7)],
    );
}

#[forward]
fn shadowing(x: f64) -> f64 {
    let x = x * 2.0;
    let x = x.sin();
    let y: f64 = x + 1.0;
    y
}

#[test]
fn shadowed_and_annotated_bindings() {
    check1(shadowing, shadowing_jvp, POINTS);
}

#[forward]
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
        &[(2.0, 0.5), (0.5, 0.5), (-0.5, 1.5)],
    );
}

#[forward]
fn if_without_else(x: f64, flag: bool) -> f64 {
    let mut y = x;
    if flag {
        y = y * y;
    }
    y
}

#[test]
fn if_without_else_and_bool_parameter() {
    check1(
        |x| if_without_else(x, true),
        |x, dx| if_without_else_jvp(x, true, dx),
        POINTS,
    );
    check1(
        |x| if_without_else(x, false),
        |x, dx| if_without_else_jvp(x, false, dx),
        POINTS,
    );
}

#[forward]
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
            POINTS,
        );
    }
}

#[forward]
fn match_bool(x: f64, b: bool) -> f64 {
    match b {
        true => x.cos(),
        false => x.sin(),
    }
}

#[test]
fn match_on_bools() {
    for b in [true, false] {
        check1(
            |x| match_bool(x, b),
            |x, dx| match_bool_jvp(x, b, dx),
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
            POINTS,
        );
    }
}

#[forward]
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
        check1(|x| for_loops(x, n), |x, dx| for_loops_jvp(x, n, dx), POINTS);
    }
}

#[forward]
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
    check1(while_loop, while_loop_jvp, &[-1.7, 0.3, 2.2]);
}

#[forward]
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
    check1(loop_with_break_value, loop_with_break_value_jvp, POINTS);
}

#[forward]
fn labeled_loops(x: f64, n: usize) -> f64 {
    let mut s = 0.0;
    'outer: for i in 0..n {
        for j in 0..n {
            if j > i {
                continue 'outer;
            }
            if i + j > 6 {
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
        POINTS,
    );
}

#[forward]
fn early_return(x: f64, y: f64) -> f64 {
    if x < 0.0 {
        return x * y;
    }
    for i in 0..10 {
        if x * i as f64 > 3.0 {
            return y / (i as f64 + x);
        }
    }
    x + y
}

#[test]
fn early_returns() {
    check2(
        early_return,
        early_return_jvp,
        &[(-1.0, 2.0), (0.55, 2.0), (1e-3, 0.5)],
    );
}

#[forward]
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
    check1(block_expressions, block_expressions_jvp, POINTS);
}

#[forward]
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
        &[0.33, 1.71, 2.22],
    );
}

const SCALE: f64 = 2.5;
const COUNT: usize = 3;

#[forward]
fn constants(x: f64) -> f64 {
    use std::f64::consts::E;
    let pi = std::f64::consts::PI;
    x * pi + E * x.powi(2) + f64::EPSILON + core::f64::consts::LN_2 + SCALE * x * COUNT as f64
}

#[test]
fn float_literals_and_constants() {
    check1(constants, constants_jvp, POINTS);
}

#[forward]
fn square(x: f64) -> f64 {
    x * x
}

#[forward]
fn calls_other(x: f64, y: f64) -> f64 {
    square(x.sin()) + self::square(y) * inner::cube(x)
}

mod inner {
    use ad_runtime::forward;

    #[forward]
    pub fn cube(x: f64) -> f64 {
        x * x * x
    }
}

#[test]
fn calls_to_other_forward_functions() {
    check2(calls_other, calls_other_jvp, &[(0.5, 1.0), (-1.0, 0.3)]);
}

mod imported {
    use super::inner::cube;
    use ad_runtime::forward;

    #[forward]
    pub fn uses_import(x: f64) -> f64 {
        cube(x) + 1.0
    }
}

#[test]
fn calls_through_use_imports() {
    check1(imported::uses_import, imported::uses_import_jvp, POINTS);
}

#[forward]
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
        check1(|x| power(x, n), |x, dx| power_jvp(x, n, dx), POINTS);
    }
}

#[forward]
fn even_terms(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        1.0 + x * odd_terms(x, n - 1)
    }
}

#[forward]
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
fn calls_data_helpers(x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..4 {
        s += weight(i) * x.powi(index_of(i, 1) as i32);
    }
    s
}

#[test]
fn calls_to_functions_of_data_only() {
    check1(
        calls_data_helpers,
        calls_data_helpers_jvp,
        &[-0.9, 0.3, 0.8],
    );
}

#[forward]
fn with_constant(x: f64, #[no_grad] c: f64) -> f64 {
    (x * c).sin() + c
}

#[test]
fn no_grad_parameters_are_constants() {
    check1(
        |x| with_constant(x, 0.7),
        |x, dx| with_constant_jvp(x, 0.7, dx),
        POINTS,
    );
}

#[forward]
fn closures(x: f64, y: f64) -> f64 {
    let scale = |t: f64| t * y;
    let shift = move |t| t + x;
    shift(scale(x.sin()))
}

#[test]
fn closures_capturing_floats() {
    check2(closures, closures_jvp, &[(0.5, 1.0), (-1.0, 0.3)]);
}

#[forward]
fn tuples_and_arrays(x: f64, y: f64) -> f64 {
    let pair = (x * y, x - y);
    let (a, b) = pair;
    let weights = [1.0, 2.0, 3.0];
    let mut s = pair.0 + a * b;
    for (i, w) in weights.iter().enumerate() {
        s += *w * x.powi(i as i32);
    }
    s
}

#[test]
fn local_tuples_and_arrays() {
    check2(
        tuples_and_arrays,
        tuples_and_arrays_jvp,
        &[(0.5, 1.0), (-1.0, 0.3)],
    );
}

#[forward]
fn with_macros(x: f64) -> f64 {
    assert!(x.is_finite(), "x must be finite, got {}", x);
    debug_assert!(x > -100.0);
    assert_eq!(2 + 2, 4);
    let v = vec![x, x * 2.0, 3.0];
    let w = vec![0.5; 3];
    v[1] * w[0] + v[2]
}

#[test]
fn supported_macros() {
    check1(with_macros, with_macros_jvp, POINTS);
}

#[forward]
fn nested_item(x: f64) -> f64 {
    fn helper(n: usize) -> usize {
        n * 2
    }
    x * helper(3) as f64
}

#[test]
fn items_nested_in_the_body() {
    check1(nested_item, nested_item_jvp, POINTS);
}

#[forward]
fn pair_result(x: f64, y: f64) -> (f64, f64) {
    (x * y, x.sin() + y)
}

#[test]
fn tuple_results() {
    let ((a, b), (da, db)) = pair_result_jvp(0.5, 2.0, 1.0, 0.0);
    assert_eq!((a, b), pair_result(0.5, 2.0));
    assert_relative_eq!(da, 2.0);
    assert_relative_eq!(db, 0.5_f64.cos());
}

#[forward]
fn mixed(x: f32, n: usize) -> f32 {
    let mut y = x;
    for _ in 0..n {
        y = y * 0.5 + x.sin();
    }
    y
}

#[test]
fn f32_functions() {
    for x in [-1.0_f32, 0.25, 2.0] {
        let (value, tangent) = mixed_jvp(x, 4, 1.0);
        assert_eq!(value, mixed(x, 4));
        let h = 1e-3;
        let fd = (mixed(x + h, 4) as f64 - mixed(x - h, 4) as f64) / (2.0 * h as f64);
        assert_relative_eq!(tangent as f64, fd, max_relative = 1e-2);
    }
}

#[forward]
fn no_differentiated_parameters(#[no_grad] c: f64, n: i32) -> f64 {
    c.powi(n)
}

#[test]
fn all_parameters_constant() {
    assert_eq!(no_differentiated_parameters_jvp(2.0, 3), (8.0, 0.0));
}

#[forward]
fn many_parameters(a: f64, b: f64, c: f64, d: f64) -> f64 {
    a * b.sin() + c / d
}

/// The JVP is linear in the tangent, and its directional derivatives match central differences
/// along random directions.
#[test]
fn random_directions() {
    let mut rng = Rng::new(11);
    for _ in 0..50 {
        let p: Vec<f64> = (0..4).map(|_| rng.uniform(0.5, 2.0)).collect();
        let t: Vec<f64> = (0..4).map(|_| rng.uniform(-1.0, 1.0)).collect();
        let (_, along) = many_parameters_jvp(p[0], p[1], p[2], p[3], t[0], t[1], t[2], t[3]);
        let f = |h: f64| {
            many_parameters(
                p[0] + h * t[0],
                p[1] + h * t[1],
                p[2] + h * t[2],
                p[3] + h * t[3],
            )
        };
        assert_relative_eq!(along, central_difference(f, 0.0, 1e-4), epsilon = 1e-8);
    }
}
