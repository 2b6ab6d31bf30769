//! The constructs the reverse-mode engine on the AD-IR takes so far. Without the `ir-engine`
//! feature these run on the previous engine; `.ci/run` runs them again with
//! `--features ir-engine`, where each test first requires that the IR engine differentiated
//! its functions.

// The functions are written the way the constructs under test are spelled, not as clippy
// would have them.
#![allow(
    clippy::assign_op_pattern,
    clippy::needless_range_loop,
    clippy::needless_borrow,
    clippy::type_complexity
)]

mod common;

use ad_runtime::{forward, reverse};
use common::{check_slice_function_at_random_points, forward_checked2};

#[forward]
#[reverse]
fn straight_line(x: f64, y: f64) -> f64 {
    let z = x * y;
    let w = z.sin() + x / y - 2.0 * z.exp();
    -w * x.powi(3) + y.atan2(x) + (x - y).abs() + x.mul_add(y, 2.0) + x.clamp(-1.0, 0.5)
}

#[forward]
#[reverse]
fn mutated_scalar(x: f64, y: f64) -> f64 {
    let mut s = x;
    s *= y;
    s += s.sqrt() * x;
    s = s - y;
    s /= x + 3.0;
    s
}

#[forward]
#[reverse]
fn branches(x: f64, y: f64) -> f64 {
    let a = if x > y { x * x } else { y.tanh() };
    let mut b = a;
    if a < 0.5 && x > 0.0 {
        b = b * y;
    } else if y > 1.0 {
        b += x.ln_1p();
    } else {
        b -= 1.0;
    }
    a * b
}

#[forward]
#[reverse]
fn polynomial(x: f64, #[no_grad] c: f64, n: usize) -> f64 {
    let mut sum = 0.0;
    let mut power = 1.0;
    for k in 0..n {
        sum += (k as f64 + c) * power;
        power *= x;
    }
    sum
}

#[forward]
#[reverse]
fn weighted(w: &[f64]) -> f64 {
    let n = w.len();
    let mut total = 0.0;
    for i in 0..n {
        let v = w[i];
        if v > 0.0 {
            total += v * v.cos();
        } else {
            total -= (i as f64) * v;
        }
        for j in i + 1..n {
            total += 0.1 * w[i] * w[j];
        }
    }
    total / n as f64
}

#[forward]
#[reverse]
fn taylor(x: f64, n: usize) -> f64 {
    // 1 / x around 1, as seed 004, section 6.1.
    let mut term = 1.0;
    let mut sum = 0.0;
    for _ in 0..n {
        sum += term;
        term *= 1.0 - x;
    }
    sum
}

#[reverse]
fn square_sum(v: &[f64], scale: f64) -> f64 {
    let mut total = 0.0;
    for i in 0..v.len() {
        total += v[i] * v[i];
    }
    scale * total
}

#[reverse]
fn power(x: f64, n: usize) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * power(x, n - 1)
    }
}

#[forward]
#[reverse]
fn calls(w: &[f64]) -> f64 {
    let mut total = square_sum(&w, w[0]);
    for i in 0..w.len() {
        total += power(w[i], i + 1) * f64::sin(w[i]);
    }
    f64::max(total, -10.0) + power(total, 2)
}

/// Data: a struct without the derive.
pub struct Bounds {
    lo: f64,
    hi: f64,
    n: usize,
}

#[forward]
#[reverse]
fn with_data(b: &Bounds, x: f64, y: f64) -> f64 {
    let spread = b.hi - b.lo;
    x.max(b.lo) + y.clamp(b.lo, b.hi) * b.n as f64 + if b.lo < x { x * y } else { spread * y }
}

/// With the `ir-engine` feature, that the IR engine differentiated the function.
macro_rules! on_ir_engine {
    ($($function:ident),*) => {$(
        #[cfg(feature = "ir-engine")]
        assert_eq!($function::__AD_ENGINE, "ir", stringify!($function));
    )*};
}

fn check2(
    plain: fn(f64, f64) -> f64,
    jvp: fn(f64, f64, f64, f64) -> (f64, f64),
    vjp: fn(f64, f64, f64) -> (f64, (f64, f64)),
    points: &[(f64, f64)],
) {
    for &(x, y) in points {
        let (value, (dx, dy)) = vjp(x, y, 1.0);
        assert_eq!(value.to_bits(), plain(x, y).to_bits());
        let (_, along_x, along_y) = forward_checked2(plain, jvp, x, y);
        approx::assert_relative_eq!(dx, along_x, epsilon = 1e-12, max_relative = 1e-12);
        approx::assert_relative_eq!(dy, along_y, epsilon = 1e-12, max_relative = 1e-12);
        let (_, (sx, sy)) = vjp(x, y, -2.5);
        approx::assert_relative_eq!(sx, -2.5 * dx, epsilon = 1e-12, max_relative = 1e-12);
        approx::assert_relative_eq!(sy, -2.5 * dy, epsilon = 1e-12, max_relative = 1e-12);
    }
}

const POINTS: &[(f64, f64)] = &[(0.7, 1.3), (1.9, 0.4), (0.2, 2.5), (1.1, 1.05)];

#[test]
fn straight_line_code() {
    on_ir_engine!(straight_line);
    check2(straight_line, straight_line_jvp, straight_line_vjp, POINTS);
}

#[test]
fn variables_overwritten_and_compound_assignment() {
    on_ir_engine!(mutated_scalar);
    check2(
        mutated_scalar,
        mutated_scalar_jvp,
        mutated_scalar_vjp,
        POINTS,
    );
}

#[test]
fn if_as_a_value_else_if_and_short_circuit() {
    on_ir_engine!(branches);
    check2(branches, branches_jvp, branches_vjp, POINTS);
}

#[test]
fn range_loop_with_data_and_constant_parameters() {
    on_ir_engine!(polynomial);
    for x in [0.3_f64, 0.9, 1.4] {
        let (value, dx) = polynomial_grad(x, 0.5, 7);
        assert_eq!(value.to_bits(), polynomial(x, 0.5, 7).to_bits());
        let (_, along) = polynomial_jvp(x, 0.5, 7, 1.0);
        approx::assert_relative_eq!(dx, along, epsilon = 1e-12, max_relative = 1e-12);
        let expected: f64 = (1..7)
            .map(|k| (k as f64 + 0.5) * k as f64 * x.powi(k - 1))
            .sum();
        approx::assert_relative_eq!(dx, expected, epsilon = 1e-12, max_relative = 1e-12);
    }
}

#[test]
fn slice_reads_nested_loops_and_branches_in_loops() {
    on_ir_engine!(weighted);
    check_slice_function_at_random_points(weighted, weighted_jvp, weighted_vjp, 6, 17);
}

#[test]
fn taylor_series_loop() {
    on_ir_engine!(taylor);
    let x = 0.75;
    let (value, dx) = taylor_grad(x, 200);
    approx::assert_relative_eq!(value, 1.0 / x, max_relative = 1e-12);
    approx::assert_relative_eq!(dx, -1.0 / (x * x), max_relative = 1e-9);
    let (_, along) = taylor_jvp(x, 200, 1.0);
    approx::assert_relative_eq!(dx, along, epsilon = 1e-12, max_relative = 1e-12);
}

#[test]
fn floats_of_data_parameters_are_constants() {
    on_ir_engine!(with_data);
    let bounds = Bounds {
        lo: 0.5,
        hi: 1.5,
        n: 3,
    };
    for (x, y) in [(0.2_f64, 0.7_f64), (0.9, 2.0), (1.7, 1.0)] {
        let (value, (dx, dy)) = with_data_grad(&bounds, x, y);
        assert_eq!(value.to_bits(), with_data(&bounds, x, y).to_bits());
        let (_, along_x) = with_data_jvp(&bounds, x, y, 1.0, 0.0);
        let (_, along_y) = with_data_jvp(&bounds, x, y, 0.0, 1.0);
        approx::assert_relative_eq!(dx, along_x, epsilon = 1e-12, max_relative = 1e-12);
        approx::assert_relative_eq!(dy, along_y, epsilon = 1e-12, max_relative = 1e-12);
    }
}

#[test]
fn calls_of_differentiated_functions_recursion_and_float_paths() {
    on_ir_engine!(calls, square_sum, power);
    check_slice_function_at_random_points(calls, calls_jvp, calls_vjp, 4, 23);
}
