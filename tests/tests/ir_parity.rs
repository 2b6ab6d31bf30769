//! Constructs that only the previous engine took, until the IR engine took them too: each
//! function runs on the IR engine (`__AD_ENGINE`), its gradient checked against central
//! differences and forward mode.

#![allow(clippy::needless_range_loop)]

mod common;

use ad_runtime::{forward, reverse, Differentiable};
use approx::assert_relative_eq;
use common::central_difference;
use num_traits::{Float, FloatConst};

macro_rules! on_ir_engine {
    ($($function:ident),*) => {$(
        assert_eq!($function::__AD_ENGINE, "ir", stringify!($function));
    )*};
}

/// `grad(x, y)` against forward mode and central differences along each parameter.
fn check2(
    plain: impl Fn(f64, f64) -> f64,
    grad: impl Fn(f64, f64) -> (f64, (f64, f64)),
    tangent: impl Fn(f64, f64, f64, f64) -> f64,
    points: &[(f64, f64)],
) {
    for &(x, y) in points {
        let (value, (dx, dy)) = grad(x, y);
        assert_eq!(
            value.to_bits(),
            plain(x, y).to_bits(),
            "value at ({x}, {y})"
        );
        assert_relative_eq!(
            dx,
            tangent(x, y, 1.0, 0.0),
            epsilon = 1e-12,
            max_relative = 1e-12
        );
        assert_relative_eq!(
            dy,
            tangent(x, y, 0.0, 1.0),
            epsilon = 1e-12,
            max_relative = 1e-12
        );
        let along_x = central_difference(|x| plain(x, y), x, 1e-5);
        let along_y = central_difference(|y| plain(x, y), y, 1e-5);
        assert_relative_eq!(dx, along_x, epsilon = 1e-7, max_relative = 1e-6);
        assert_relative_eq!(dy, along_y, epsilon = 1e-7, max_relative = 1e-6);
    }
}

const POINTS: &[(f64, f64)] = &[
    (-1.3, 0.4),
    (-0.4, -0.9),
    (0.35, 1.2),
    (0.8, 0.0),
    (1.7, -2.1),
];

/// A tuple declared without a value, assigned in both branches (ADBench BA's rotation).
#[forward]
#[reverse]
fn tuple_declared_later(x: f64, y: f64) -> f64 {
    let (a, b);
    let c: f64;
    if x > 0.0 {
        a = x * y;
        b = y.sin();
        c = x.exp();
    } else {
        a = x - y;
        b = y * y;
        c = 1.0;
    }
    let (p, q): (f64, f64);
    p = a * b;
    q = b + c * x;
    p / (1.0 + q * q)
}

#[test]
fn tuples_declared_without_a_value() {
    on_ir_engine!(tuple_declared_later);
    check2(
        tuple_declared_later,
        tuple_declared_later_grad,
        |x, y, tx, ty| tuple_declared_later_jvp(x, y, tx, ty).1,
        POINTS,
    );
}

/// Qualified paths to the float type's functions, and constants made by calls.
#[forward]
#[reverse]
fn qualified_paths(x: f64, y: f64) -> f64 {
    let pi = <f64 as FloatConst>::PI();
    <f64>::exp(x * 0.5) * <f64 as Float>::sin(y)
        + pi * <f64 as Float>::epsilon().sqrt() * x
        + f64::max(x, y) * <f64>::max_value().recip()
        + <f64 as Float>::powi(x, 3) * <f64 as Float>::hypot(x, y)
}

#[test]
fn qualified_paths_to_float_functions() {
    on_ir_engine!(qualified_paths);
    check2(
        qualified_paths,
        qualified_paths_grad,
        |x, y, tx, ty| qualified_paths_jvp(x, y, tx, ty).1,
        POINTS,
    );
}

/// `ref` names inside a pattern borrow parts of the place matched, which is not moved.
#[forward]
#[reverse]
fn ref_bindings(x: f64, y: f64) -> f64 {
    let pair = (x * y, Some(y.sin()), vec![x, y]);
    let first = match pair {
        (ref p, Some(ref q), ref v) => p * q + *p * v[1],
        (ref p, None, _) => *p,
    };
    first + pair.0 * pair.2[0]
}

#[test]
fn ref_names_in_patterns() {
    on_ir_engine!(ref_bindings);
    check2(
        ref_bindings,
        ref_bindings_grad,
        |x, y, tx, ty| ref_bindings_jvp(x, y, tx, ty).1,
        POINTS,
    );
}

#[derive(Clone, Copy, Debug, PartialEq, Differentiable)]
pub struct Two {
    pub a: f64,
    pub b: f64,
}

/// A destructuring assignment to a struct pattern, in a loop.
#[forward]
#[reverse]
fn struct_assignment(#[grad] start: &Two, x: f64) -> f64 {
    let (mut p, mut q) = (start.a, start.b);
    let mut n = 0;
    for _ in 0..3 {
        Two { a: p, b: q } = Two { a: q, b: p * x };
        (n, _) = (n + 1, 0);
    }
    p * q + n as f64
}

#[test]
fn destructuring_assignment_to_a_struct() {
    on_ir_engine!(struct_assignment);
    let start = Two { a: 0.7, b: -1.3 };
    for &x in &[-1.1, 0.4, 1.6] {
        let (value, (d_start, dx)) = struct_assignment_grad(&start, x);
        assert_eq!(value, struct_assignment(&start, x));
        let along_x = central_difference(|x| struct_assignment(&start, x), x, 1e-5);
        assert_relative_eq!(dx, along_x, epsilon = 1e-7, max_relative = 1e-6);
        let along_a = central_difference(|a| struct_assignment(&Two { a, ..start }, x), 0.7, 1e-5);
        let along_b = central_difference(|b| struct_assignment(&Two { b, ..start }, x), -1.3, 1e-5);
        assert_relative_eq!(d_start.a, along_a, epsilon = 1e-7, max_relative = 1e-6);
        assert_relative_eq!(d_start.b, along_b, epsilon = 1e-7, max_relative = 1e-6);
        let tangent = struct_assignment_jvp(&start, x, &Two { a: 1.0, b: 0.0 }, 0.0).1;
        assert_relative_eq!(d_start.a, tangent, epsilon = 1e-12, max_relative = 1e-12);
    }
}

/// A compound assignment whose value leaves the loop on some paths.
#[forward]
#[reverse]
fn compound_with_exit(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += match i % 3 {
            0 => x[i] * x[i],
            1 => {
                if s > 2.0 {
                    break;
                }
                x[i].sin()
            }
            _ => {
                if x[i] < 0.0 {
                    continue;
                }
                x[i] * s
            }
        };
        s *= 0.9;
    }
    s
}

#[test]
fn compound_assignment_of_a_value_after_an_exit() {
    on_ir_engine!(compound_with_exit);
    for n in [1, 4, 9] {
        common::check_slice_function_at_random_points(
            compound_with_exit,
            compound_with_exit_jvp,
            compound_with_exit_vjp,
            n,
            n as u64 + 5,
        );
    }
}

#[allow(non_upper_case_globals)]
mod shifts {
    use ad_runtime::{forward, reverse};

    pub const SHIFT: usize = 1;
    pub const k: usize = 2;

    #[forward]
    #[reverse]
    pub fn scaled(v: f64) -> f64 {
        2.0 * v
    }
}

/// Glob imports in blocks: of a module inline in the file (its lowercase constant shadowing a
/// `let` around the loop) and of `std::f64::consts`.
#[forward]
#[reverse]
fn glob_imports(x: &[f64]) -> f64 {
    let n = x.len();
    let k = 1;
    let mut s = 0.0;
    for i in 0..n {
        use shifts::*;
        s += x[(i + k) % n] * x[(i + SHIFT) % n] + scaled(x[i]);
    }
    let tau = {
        use std::f64::consts::*;
        TAU + PI
    };
    s * tau + k as f64
}

#[test]
fn glob_imports_in_blocks() {
    on_ir_engine!(glob_imports);
    for n in [1, 3, 5] {
        common::check_slice_function_at_random_points(
            glob_imports,
            glob_imports_jvp,
            glob_imports_vjp,
            n,
            n as u64 + 11,
        );
    }
}

#[forward]
#[reverse]
fn doubled(x: &[f64]) -> Vec<f64> {
    x.iter().map(|v| 2.0 * v).collect()
}

/// Elements of values computed where they are indexed (`doubled(x)[0]`, `vec![..][1]`).
#[forward]
#[reverse]
fn elements_of_computed_values(x: f64, y: f64) -> f64 {
    doubled(&[x, y])[0] * y + vec![x, y][1] * doubled(&[y, x])[1]
}

#[test]
fn indexing_computed_values() {
    on_ir_engine!(elements_of_computed_values);
    check2(
        elements_of_computed_values,
        elements_of_computed_values_grad,
        |x, y, tx, ty| elements_of_computed_values_jvp(x, y, tx, ty).1,
        POINTS,
    );
}

/// `Some(ref v)` of an option built in the body (formerly refused: `tests/ui`).
#[forward]
#[reverse]
fn option_ref_pattern(x: f64) -> f64 {
    let o = if x > 0.0 { Some(x * x) } else { None };
    match o {
        Some(ref v) => *v * x,
        None => x,
    }
}

#[forward]
#[reverse]
fn grid(x: f64) -> [[f64; 2]; 2] {
    [[x, x * x], [x.sin(), 2.0 * x]]
}

/// A result of rows from a call, and an element of a computed `Vec` (formerly refused).
#[forward]
#[reverse]
fn rows_from_a_call(x: f64, y: f64) -> f64 {
    let rows: [[f64; 2]; 2] = grid(x);
    rows[0][1] * y + rows[1][0] + doubled(&[x, y])[1] * rows[1][1]
}

#[test]
fn options_and_rows_formerly_refused() {
    on_ir_engine!(option_ref_pattern, rows_from_a_call);
    for &x in &[-1.3, -0.2, 0.4, 1.1] {
        let (value, dx) = option_ref_pattern_grad(x);
        assert_eq!(value, option_ref_pattern(x));
        assert_relative_eq!(dx, option_ref_pattern_jvp(x, 1.0).1, max_relative = 1e-12);
        assert_relative_eq!(
            dx,
            central_difference(option_ref_pattern, x, 1e-5),
            epsilon = 1e-7,
            max_relative = 1e-6
        );
    }
    check2(
        rows_from_a_call,
        rows_from_a_call_grad,
        |x, y, tx, ty| rows_from_a_call_jvp(x, y, tx, ty).1,
        POINTS,
    );
}

/// A `let` whose value leaves the function on some paths (found by the fuzzer once the
/// previous engine was gone).
#[forward]
#[reverse]
fn let_leaving_early(b: f64, a: f64) -> f64 {
    let mut total = 0.0;
    for i1 in 0..2 {
        for i2 in 0..4 {
            let v3: f64 = match i2 % 3 {
                0 => {
                    if a > 1.0 && i1 == 1 {
                        return a * b + total;
                    }
                    (0.75_f64).cosh() * b
                }
                1 => {
                    if b < -1.0 {
                        break;
                    }
                    a.sin() * b
                }
                _ => (a * b) - (b * 0.75),
            };
            total += v3 * v3;
        }
    }
    total
}

#[test]
fn a_let_whose_value_leaves_early() {
    on_ir_engine!(let_leaving_early);
    check2(
        let_leaving_early,
        let_leaving_early_grad,
        |x, y, tx, ty| let_leaving_early_jvp(x, y, tx, ty).1,
        &[
            (-1.3, 0.4),
            (-0.4, -0.9),
            (0.35, 1.2),
            (0.8, 0.1),
            (1.7, -2.1),
            (-1.5, 1.4),
        ],
    );
}

// ----- found by a review of the constructs above -----

/// Nested `let`s of one name whose values leave early: each its own variable.
#[forward]
#[reverse]
fn nested_lets_leaving_early(x: f64, y: f64) -> f64 {
    let v: f64 = match y > 0.0 {
        true => {
            let v: f64 = if x > 1.0 {
                if x > 100.0 {
                    return x;
                }
                x * 2.0
            } else {
                x * y
            };
            v + 1.0
        }
        false => x,
    };
    v * 3.0
}

trait Soft {
    fn sqrt(self) -> Self;
}

impl Soft for f64 {
    fn sqrt(self) -> f64 {
        (self * self + 1.0).sqrt()
    }
}

const TABLE: &[f64] = &[1.0, 0.5, 0.25];

fn horner<T: num_traits::Float>(c: &[f64], x: T) -> T {
    c.iter()
        .rev()
        .fold(T::zero(), |a, &k| a * x + T::from(k).unwrap())
}

/// A constant table given to a plain generic function, and `len` of chunks of a local `Vec`.
#[forward]
#[reverse]
fn plain_calls_on_borrowed_data(x: f64, y: f64) -> f64 {
    let mut v = vec![x, y];
    v.push(1.0);
    let chunks = v.chunks(2).len() as f64;
    horner(TABLE, x) * y + chunks * x * v[1]
}

#[test]
fn review_findings() {
    on_ir_engine!(nested_lets_leaving_early, plain_calls_on_borrowed_data);
    check2(
        nested_lets_leaving_early,
        nested_lets_leaving_early_grad,
        |x, y, tx, ty| nested_lets_leaving_early_jvp(x, y, tx, ty).1,
        &[
            (-1.3, 0.4),
            (1.4, 0.9),
            (0.35, -1.2),
            (2.5, 0.1),
            (150.0, 1.0),
        ],
    );
    check2(
        plain_calls_on_borrowed_data,
        plain_calls_on_borrowed_data_grad,
        |x, y, tx, ty| plain_calls_on_borrowed_data_jvp(x, y, tx, ty).1,
        POINTS,
    );
    // A user trait's method of a float method's name, by its qualified path, is refused
    // (`tests/ui/reverse_qualified_user_trait.rs`); the trait is used here as Rust reads it.
    assert_eq!(<f64 as Soft>::sqrt(0.0), 1.0);
}
