//! The constructs the reverse-mode engine on the AD-IR takes. Each test first requires that
//! the engine differentiated its functions (`f::__AD_ENGINE`).

// The functions are written the way the constructs under test are spelled, not as clippy
// would have them.
#![allow(
    clippy::assign_op_pattern,
    clippy::needless_range_loop,
    clippy::needless_borrow,
    clippy::type_complexity,
    clippy::useless_vec,
    clippy::unnecessary_unwrap,
    clippy::unnecessary_literal_unwrap,
    clippy::clone_on_copy,
    clippy::vec_init_then_push,
    clippy::needless_late_init,
    clippy::toplevel_ref_arg,
    clippy::match_single_binding
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

#[forward]
#[reverse]
fn containers(x: &[f64]) -> f64 {
    let n = x.len();
    let mut squares = vec![0.0; n];
    let mut running = Vec::new();
    let mut sum = 0.0;
    for i in 0..n {
        squares[i] = x[i] * x[i];
        sum += x[i];
        running.push(sum * x[0]);
    }
    // Overwrite values the backward sweep still needs, and accumulate into elements.
    for i in 1..n {
        squares[i] += squares[i - 1].sin();
        squares[i - 1] = running[i] * 2.0;
    }
    let pair = vec![squares[n - 1], running[0]];
    let mut grid = vec![vec![x[1]; 2]; 3];
    grid[2][1] *= pair[0];
    grid[0][0] -= pair[1].exp();
    let mut total = 0.0;
    for i in 0..n {
        total += squares[i] * running[i];
    }
    total + grid[2][1] * grid[0][0] + grid[1][0]
}

#[forward]
#[reverse]
fn exits(x: &[f64]) -> f64 {
    let n = x.len();
    let mut total = 0.0;
    'rows: for i in 0..n {
        if x[i] < -1.0 {
            continue;
        }
        let mut k = 0;
        while k < n {
            k += 1;
            if x[k - 1] > 1.2 {
                continue 'rows;
            }
            if k > i + 2 {
                break;
            }
            total += x[i] * x[k - 1];
        }
        if total > 2.5 {
            break 'rows;
        }
        total = total.sin() + x[i];
    }
    let mut step = 0;
    let found = loop {
        step += 1;
        if step >= n {
            break total;
        }
        if x[step] > x[0] {
            break x[step] * total;
        }
    };
    found + total
}

#[forward]
#[reverse]
fn early_return(x: f64, y: f64) -> f64 {
    if x > 1.0 {
        return x * y;
    }
    let mut s = x;
    for k in 0..5 {
        s = s * y + 0.1;
        if s > 3.0 {
            return s.sqrt() + k as f64;
        }
    }
    s - y
}

#[forward]
#[reverse]
fn evaluation_order(x: &[f64]) -> f64 {
    // Rust evaluates the right operand of `=` and of `op=` on floats before the place.
    let mut v = vec![x[0], x[1], x[2]];
    let mut j = 0;
    v[j] = {
        j += 1;
        v[j] * x[2]
    };
    v[{
        j += 1;
        j
    }] += v[j] * v[0];
    v[0] * v[1] + v[2] * j as f64
}

#[forward]
#[reverse]
fn polar(r: f64, theta: f64) -> (f64, f64) {
    let pair = (r * theta.cos(), r * theta.sin());
    let (mut a, b) = pair;
    a += b * 0.5;
    (a, pair.1)
}

#[forward]
#[reverse]
fn squares_of(x: &[f64]) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..x.len() {
        out.push(x[i] * x[i] + 0.5);
    }
    out
}

#[forward]
#[reverse]
fn tuples_and_results(x: &[f64]) -> f64 {
    let (u, v) = polar(x[0], x[1]);
    let s = squares_of(x);
    let t = (u * v, s[2]);
    t.0 + t.1 * s[0]
}

#[forward]
#[reverse]
fn iterated(w: &[f64], x: &[f64], #[no_grad] ys: &[f64]) -> f64 {
    let mut total = 0.0;
    for v in w {
        total += v * v.sin();
    }
    for &v in x.iter() {
        total -= v.exp() * 0.1;
    }
    for (i, v) in w.iter().enumerate() {
        total += (i as f64 + 1.0) * *v * x[i];
    }
    for (a, &b) in w.iter().zip(x.iter()) {
        total += a * b;
    }
    for (&a, &y) in x.iter().zip(ys.iter()) {
        total += (a - y).powi(2);
    }
    let squares = vec![w[0] * w[0], w[1] * x[1]];
    for s in &squares {
        total *= 1.0 + 0.1 * s;
    }
    total
}

#[forward]
#[reverse]
fn scaled(#[no_grad] k: f64, a: f64) -> f64 {
    k * k * a + a.sin()
}

/// Passes a value carrying a derivative to a `#[no_grad]` parameter: the callee's pullback
/// must still give its adjoint (found by `ad-fuzz` on the IR engine: the IR engine gave zero).
#[forward]
#[reverse]
fn through_no_grad(b: f64, a: f64) -> f64 {
    let v = b * 2.0;
    scaled(v, a) + scaled(a, v)
}

const LIMIT: usize = 3;

#[forward]
#[reverse]
fn matched(x: f64, y: f64, n: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..n {
        let step = match i % 4 {
            0 => x * y,
            1 | 2 if x > y => x.sin(),
            1 | 2 => y.cos() * x,
            LIMIT => {
                total *= 0.5;
                y
            }
            m => m as f64 * x,
        };
        total += step;
        match i {
            0..=1 => total -= 0.1 * y,
            k if k == n - 1 => total += k as f64 * x * 0.01,
            _ => {}
        }
    }
    total
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

#[forward]
#[reverse]
fn optional(x: f64, y: f64, n: usize) -> f64 {
    let m = if x > 0.0 { Some(x * x) } else { None };
    let mut best: Option<f64> = None;
    for i in 0..n {
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
    let e = if m.is_none() { y * y } else { m.unwrap() };
    m.unwrap_or(y) + b + c + e + best.unwrap_or_default() * x + Some(x).expect("set") * y
}

#[forward]
#[reverse]
fn copies(w: &[f64], #[no_grad] shift: Option<f64>) -> f64 {
    let mut v = w.to_vec();
    v[0] = v[0] * v[1];
    let u = v.clone();
    let first = u[0];
    let mut total = first + shift.unwrap_or(0.5) * w[1];
    for i in 0..u.len() {
        total += u[i] * v[i];
    }
    total
}

fn plain_weight(i: usize) -> f64 {
    1.0 / (i as f64 + 2.0)
}

#[forward]
#[reverse]
fn everyday(x: f64, y: f64) -> f64 {
    const SCALE: f64 = 0.5;
    let (s, c) = (x * y).sin_cos();
    let mut pair = (s, c * x);
    pair.1 *= y;
    pair.0 = pair.0 + SCALE * pair.1;
    let (mut p, mut q) = (x, y);
    for i in 0..3 {
        (p, q) = (q * plain_weight(i), p + SCALE);
    }
    let total;
    if x > y {
        total = pair.0 * p;
    } else {
        total = pair.1 * q;
    }
    total + p * q + plain_weight(7) * x
}

#[derive(Clone, Debug, PartialEq, ad_runtime::Differentiable)]
pub struct Joint {
    pub angle: f64,
    pub lengths: Vec<f64>,
    pub offset: (f64, f64),
    #[no_grad]
    pub stiffness: f64,
    pub count: usize,
    pub next: Option<Box<Joint>>,
}

#[derive(Clone, Debug, PartialEq, ad_runtime::Differentiable)]
pub enum Part {
    Rod(f64),
    Plate { w: f64, h: f64 },
}

/// Matches the enum: taken by the previous engine, called from `arm` on the IR engine.
#[forward]
#[reverse]
fn part_area(#[grad] p: &Part, x: f64) -> f64 {
    match p {
        Part::Rod(r) => r * x,
        Part::Plate { w, h } => w * h * x,
    }
}

/// A derived struct (nested in itself through `Option<Box<..>>`, a `Vec`, a tuple, a data
/// field and a `#[no_grad]` float) and an enum, as `#[grad]` parameters: fields read, the
/// values passed on whole to other differentiated functions.
#[forward]
#[reverse]
fn arm(#[grad] j: &Joint, #[grad] p: &Part, x: f64) -> f64 {
    let mut reach = j.offset.0 * x + j.offset.1 * j.stiffness;
    for i in 0..j.lengths.len() {
        reach += j.lengths[i] * (j.angle * (i + 1) as f64).cos();
    }
    let tail = match &j.next {
        Some(next) => arm(next, p, x * 0.5),
        None => part_area(p, x),
    };
    reach * j.count as f64 + tail
}

impl Part {
    #[forward]
    #[reverse]
    pub fn size(&self, x: f64) -> f64 {
        match self {
            Part::Rod(r) => r.abs() * x,
            Part::Plate { w, h } => (w * h).abs() * x,
        }
    }
}

/// Values of a derived enum built in the body (struct and tuple variants), taken apart by
/// patterns of the type, and passed on; a method of the type called on a parameter.
#[forward]
#[reverse]
fn reshaped(#[grad] p: &Part, x: f64) -> f64 {
    let wider = match p {
        Part::Rod(r) => Part::Plate { w: r * x, h: *r },
        Part::Plate { w, h: height } => Part::Rod(w * height + x),
    };
    let again = if let Part::Plate { w, h: _ } = &wider {
        Part::Rod(w * 2.0)
    } else {
        Part::Plate { w: x, h: x * x }
    };
    part_area(&wider, x) + part_area(&again, 0.5) * x + p.size(x * x)
}

/// Values of a derived type built from floats where no parameter has the type, their methods
/// called (also by path).
#[forward]
#[reverse]
fn built_from_floats(x: f64, y: f64) -> f64 {
    let plate = Part::Plate { w: x, h: y * x };
    let rod = Part::Rod(x - y);
    let picked = match &rod {
        Part::Rod(r) => r * 2.0,
        Part::Plate { w, h } => w + h,
    };
    part_area(&plate, y) + part_area(&rod, x) * picked + plate.size(x) + Part::size(&rod, y)
}

/// That the IR engine differentiated the function.
macro_rules! on_ir_engine {
    ($($function:ident),*) => {$(
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
        // Forward mode against central differences, then reverse against forward.
        let (_, along_x, along_y) = forward_checked2(
            |x, y| with_data(&bounds, x, y),
            |x, y, tx, ty| with_data_jvp(&bounds, x, y, tx, ty),
            x,
            y,
        );
        assert_eq!(value.to_bits(), with_data(&bounds, x, y).to_bits());
        approx::assert_relative_eq!(dx, along_x, epsilon = 1e-12, max_relative = 1e-12);
        approx::assert_relative_eq!(dy, along_y, epsilon = 1e-12, max_relative = 1e-12);
    }
}

#[test]
fn calls_of_differentiated_functions_recursion_and_float_paths() {
    on_ir_engine!(calls, square_sum, power);
    check_slice_function_at_random_points(calls, calls_jvp, calls_vjp, 4, 23);
}

#[test]
fn containers_built_written_and_pushed_in_the_body() {
    on_ir_engine!(containers);
    check_slice_function_at_random_points(containers, containers_jvp, containers_vjp, 5, 31);
}

#[test]
fn break_continue_labels_while_loop_values() {
    on_ir_engine!(exits);
    check_slice_function_at_random_points(exits, exits_jvp, exits_vjp, 6, 37);
    check_slice_function_at_random_points(exits, exits_jvp, exits_vjp, 3, 41);
}

#[test]
fn early_returns_from_branches_and_loops() {
    on_ir_engine!(early_return);
    check2(
        early_return,
        early_return_jvp,
        early_return_vjp,
        &[(1.5, 0.7), (0.5, 0.9), (0.9, 2.5), (0.2, 1.6)],
    );
}

#[test]
fn evaluation_order_of_assignments() {
    on_ir_engine!(evaluation_order);
    check_slice_function_at_random_points(
        evaluation_order,
        evaluation_order_jvp,
        evaluation_order_vjp,
        3,
        43,
    );
}

/// Raw identifiers name the same locals as plain ones (`r#y` is `y`): a name read as the other
/// form must not lose its derivative.
#[forward]
#[reverse]
fn raw_names(x: f64, r#y: f64) -> f64 {
    let r#z = x * y;
    let w = r#x + z;
    w * r#y
}

#[test]
fn raw_identifiers_are_the_plain_names() {
    on_ir_engine!(raw_names);
    check2(
        raw_names,
        raw_names_jvp,
        raw_names_vjp,
        &[(0.5, 1.5), (-1.0, 0.25)],
    );
}

/// Closures bound by `let` and called by name, inlined: one that changes a variable it
/// borrows, one called from a loop, a `move` closure that copies a variable changed after it
/// is written, and one calling another.
#[forward]
#[reverse]
fn closures_called(x: f64, y: f64, n: usize) -> f64 {
    let mut s = 0.0;
    let mut add = |v: f64| s += v * v;
    add(x);
    add(y * x);
    let mut a = x * y;
    let copied = move |t: f64| t * a;
    a = a.sin();
    let twice = |t: f64| 2.0 * copied(t);
    let mut total = s + a;
    for i in 0..n {
        total = twice(total * 0.5) + i as f64 * y;
    }
    total + copied(a)
}

#[test]
fn closures_called_by_name() {
    on_ir_engine!(closures_called);
    for n in [0, 1, 3] {
        common::check_gradient(
            2,
            |v| closures_called(v[0], v[1], n),
            |v, t| closures_called_jvp(v[0], v[1], n, t[0], t[1]),
            |v, c| {
                let (value, (dx, dy)) = closures_called_vjp(v[0], v[1], n, c);
                (value, vec![dx, dy])
            },
        );
    }
}

/// Ranges with adapters, run as written: `.rev()`, `.step_by(..)`, and the two chained.
#[forward]
#[reverse]
fn stepped_ranges(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in (0..n).rev() {
        s = s * 0.5 + x[i];
    }
    for j in (1..n).step_by(2) {
        s += x[j] * x[j - 1];
    }
    for k in (0..n).rev().step_by(2) {
        s -= x[k] * s * 0.25;
    }
    s
}

#[test]
fn ranges_with_adapters() {
    on_ir_engine!(stepped_ranges);
    for n in [1, 2, 5] {
        common::check_gradient(n, stepped_ranges, stepped_ranges_jvp, stepped_ranges_vjp);
    }
}

/// A `move` closure with a macro in its body: what it captures is read from the macro's
/// tokens too (once, the IR engine read `k` as changed after the closure was written; found by
/// review).
#[forward]
#[reverse]
fn move_closure_with_a_macro(x: &[f64]) -> f64 {
    let mut k = x[0];
    let f = move |t: f64| {
        let v = vec![t * k; 2];
        v[0] + v[1]
    };
    k = k * 3.0 + x[2];
    f(x[1]) + k
}

/// Assertions, prints and `format!`: a failed assertion's message is evaluated only when it
/// fails (`x[n]` would index past the end), a `debug_` assertion only with debug assertions,
/// and a format string's inline names read the locals.
#[forward]
#[reverse]
fn checked_sum(x: &[f64], #[no_grad] scale: f64) -> f64 {
    let n = x.len();
    assert!(n < 10, "too long: {}", x[n]);
    debug_assert_eq!(scale * 2.0, scale + scale, "{scale:?}");
    let mut s = 0.0;
    for i in 0..n {
        assert_ne!(x[i], f64::INFINITY, "x[{i}] = {}", x[i]);
        s += x[i] * scale;
    }
    let label = format!("{s:.2} over {n:>width$}", width = 3);
    if label.len() > 100 {
        println!("{label}");
    }
    s * s + label.len() as f64
}

/// Products and quotients with one operand without derivative: the other's partial alone
/// (`0.5 * s`, `s * k`, `x / 3.0`, `x / n`), in a loop and at the top level.
#[forward]
#[reverse]
fn one_sided_products(x: f64, y: f64) -> f64 {
    let mut s = 0.0;
    for i in 1..4 {
        let k = i as f64;
        s += 0.5 * (x * y).sin() + (y * k) / 3.0 + x / k;
    }
    let t = s * 2.0;
    t / 7.0 + 1.5 / (x * x + 1.0)
}

#[test]
fn one_sided_products_and_quotients() {
    on_ir_engine!(one_sided_products);
    check2(
        one_sided_products,
        one_sided_products_jvp,
        one_sided_products_vjp,
        POINTS,
    );
}

/// Ranges skipped and taken, and `panic!`/`unreachable!` as a branch's value.
#[forward]
#[reverse]
fn skipped_and_taken(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (0..x.len()).skip(1).take(3) {
        let v = if x[i].is_finite() {
            x[i] * x[0]
        } else {
            panic!("x[{i}] is not finite")
        };
        s += v.sin();
    }
    match x.len() {
        0 => unreachable!("the test passes five numbers"),
        _ => s * x[x.len() - 1],
    }
}

#[test]
fn skipped_and_taken_ranges() {
    on_ir_engine!(skipped_and_taken);
    check_slice_function_at_random_points(
        skipped_and_taken,
        skipped_and_taken_jvp,
        skipped_and_taken_vjp,
        5,
        4,
    );
}

/// A `return` inside the block that gives the function's value: each branch returns its value
/// where it is made, so the path the `return` took needs none after it.
#[forward]
#[reverse]
fn return_inside_the_tail(x: f64, y: f64) -> f64 {
    if x > 0.0 {
        if y > 0.0 {
            return x * y;
        }
        let t = x + y;
        t * t
    } else {
        y.sin()
    }
}

/// A block's value after a `break`: where the loop was left, the assignment does not happen
/// (the assignment is made in the block, after the `break`'s branch).
#[forward]
#[reverse]
fn value_after_a_break(x: f64, n: usize) -> f64 {
    let mut s = 1.0;
    for i in 0..n {
        s = {
            if i == 3 {
                break;
            }
            s * x + 1.0
        };
    }
    s
}

#[test]
fn a_value_after_a_break() {
    on_ir_engine!(value_after_a_break);
    for n in [2, 5] {
        let (value, gradient) = value_after_a_break_grad(0.7, n);
        assert_eq!(value, value_after_a_break(0.7, n));
        let along = value_after_a_break_jvp(0.7, n, 1.0).1;
        approx::assert_relative_eq!(gradient, along, max_relative = 1e-12);
    }
}

#[test]
fn a_return_inside_the_tail() {
    on_ir_engine!(return_inside_the_tail);
    check2(
        return_inside_the_tail,
        return_inside_the_tail_jvp,
        return_inside_the_tail_vjp,
        &[(0.7, 1.3), (0.4, -0.9), (-1.2, 0.5)],
    );
}

#[test]
fn macros_read_values() {
    on_ir_engine!(checked_sum);
    let x = [0.5, -1.25, 2.0];
    let (value, gradient) = checked_sum_grad(&x, 1.5);
    assert_eq!(value, checked_sum(&x, 1.5));
    let s = 1.5 * (0.5 - 1.25 + 2.0);
    // "1.88 over   3"
    assert_eq!(value, s * s + 13.0);
    for g in gradient {
        approx::assert_relative_eq!(g, 2.0 * s * 1.5, max_relative = 1e-15);
    }
}

#[test]
fn move_closures_with_macros() {
    on_ir_engine!(move_closure_with_a_macro);
    approx::assert_relative_eq!(move_closure_with_a_macro(&[0.5, 2.0, 1.0]), 4.5);
    check_slice_function_at_random_points(
        move_closure_with_a_macro,
        move_closure_with_a_macro_jvp,
        move_closure_with_a_macro_vjp,
        3,
        5,
    );
}

const OFFSET: f64 = 0.5;

/// A `const` declared in a loop body, declared at the top of the derivative code.
#[forward]
#[reverse]
fn item_in_a_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        const WEIGHT: f64 = 1.5;
        s += x[i] * x[i] * WEIGHT;
    }
    s * OFFSET
}

/// A loop body's `const` named like the module's `OFFSET`, which the code after the loop
/// reads: declared at the top of the derivative code it would be what `OFFSET` means there
/// too, so it is renamed in its block first (`ir/lower/items.rs`).
#[forward]
#[reverse]
fn item_shadowing_in_a_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        const OFFSET: f64 = 2.0;
        s += x[i] * OFFSET;
    }
    s * OFFSET
}

#[test]
fn items_in_loop_bodies() {
    on_ir_engine!(item_in_a_loop, item_shadowing_in_a_loop);
    common::check_gradient(3, item_in_a_loop, item_in_a_loop_jvp, item_in_a_loop_vjp);
    common::check_gradient(
        3,
        item_shadowing_in_a_loop,
        item_shadowing_in_a_loop_jvp,
        item_shadowing_in_a_loop_vjp,
    );
    approx::assert_relative_eq!(item_shadowing_in_a_loop(&[1.0, 2.0]), 3.0);
}

/// Iterator chains that end in a reduction, lowered to the loops they run: `sum` of the
/// elements and of a `map`, a `filter` whose closure borrows, a `fold` over `enumerate`, a
/// `product`, `collect` of a `zip`, and a `sum` whose type comes from the `let`. (A chain over
/// a range, which the previous engine refuses, is in `beyond_the_previous_engine`.)
#[forward]
#[reverse]
fn iterator_chains(x: &[f64], k: f64) -> f64 {
    let a: f64 = x.iter().sum();
    let b = x.iter().map(|v| v * k).sum::<f64>();
    let c: f64 = x.iter().filter(|v| **v > 0.0).map(|&v| v.sin() * k).sum();
    let d = x
        .iter()
        .enumerate()
        .fold(1.0, |acc, (i, v)| acc * 0.5 + v * i as f64);
    let p: f64 = x.iter().map(|v| v * k + 1.5).product();
    let w: Vec<f64> = x.iter().zip(x.iter()).map(|(u, v)| u * v - k).collect();
    let e: f64 = w.iter().map(|t| t * t).sum();
    a * b + c + d * p + e
}

#[test]
fn iterator_chains_as_loops() {
    on_ir_engine!(iterator_chains);
    let mut rng = common::Rng::new(47);
    for n in [0, 1, 4] {
        let x = common::random_vector(&mut rng, n);
        let k = 0.7;
        // The value bit for bit as std computes it (a float sum starts from -0.0).
        assert_eq!(
            iterator_chains_vjp(&x, k, 1.0).0.to_bits(),
            iterator_chains(&x, k).to_bits()
        );
    }
    common::check_gradient(
        5,
        |v| iterator_chains(&v[..4], v[4]),
        |v, t| iterator_chains_jvp(&v[..4], v[4], &t[..4], t[4]),
        |v, c| {
            let (value, (dx, dk)) = iterator_chains_vjp(&v[..4], v[4], c);
            (value, [&dx[..], &[dk]].concat())
        },
    );
}

/// What the previous engine refuses (its compile errors are pinned in `tests/ui`) and the IR
/// engine differentiates: aliases and moves of containers, rows pushed and replaced.
mod beyond_the_previous_engine {
    use super::*;

    /// A `move` closure that names a captured variable only inside a format string (the
    /// previous engine formats the variable as changed after the closure was written).
    #[forward]
    #[reverse]
    fn move_closure_with_an_inline_format(x: &[f64]) -> f64 {
        let mut k = x[0];
        let f = move |t: f64| {
            let shown = format!("{k}");
            t * t + shown.len() as f64
        };
        k = k * 3.0 + x[2];
        f(x[1]) + k
    }

    #[test]
    fn a_move_closure_formats_what_it_captured() {
        on_ir_engine!(move_closure_with_an_inline_format);
        // `k` is 0.5 where the closure is written, 11.5 after: the closure formats "0.5".
        let x = [0.5, 2.0, 10.0];
        let (value, gradient) = move_closure_with_an_inline_format_grad(&x);
        assert_eq!(value, move_closure_with_an_inline_format(&x));
        assert_eq!(value, 2.0 * 2.0 + 3.0 + 11.5);
        assert_eq!(gradient, vec![3.0, 4.0, 1.0]);
    }

    /// Methods without a rule on locals (of the scalar type) and on data parameters (plain):
    /// their float arguments take the receiver's type.
    #[forward]
    #[reverse]
    fn methods_of_locals(x: &[f64], n: usize) -> f64 {
        let mut w = vec![0.0; 3];
        w.fill(2.0);
        let mut o: Option<f64> = Some(1.5);
        let old = o.replace(2.5 + n as f64);
        w[1] * x[0] + old.unwrap_or(0.0) * x[1] + o.unwrap_or(0.0)
    }

    #[test]
    fn methods_without_rules_on_locals() {
        on_ir_engine!(methods_of_locals);
        let x = [0.7, 1.3];
        let (value, gradient) = methods_of_locals_grad(&x, 1);
        assert_eq!(value, methods_of_locals(&x, 1));
        assert_eq!(gradient, vec![2.0, 1.5]);
    }

    /// A `Vec` read in a loop, then moved: the pullback cannot take it, so its elements read
    /// in the loop are kept, not read again from its final value (`ir::restore`).
    #[forward]
    #[reverse]
    fn moved_after_the_loop(x: &[f64]) -> f64 {
        let table = vec![x[0] * x[1], x[2]];
        let mut s = 0.0;
        for i in 0..x.len() {
            s += x[i] * table[i % 2];
        }
        let moved = table;
        s * moved[1]
    }

    #[test]
    fn a_container_moved_after_its_reads() {
        on_ir_engine!(moved_after_the_loop);
        let mut rng = common::Rng::new(41);
        for _ in 0..5 {
            let x = common::random_vector(&mut rng, 4);
            common::check_slice_function(
                moved_after_the_loop,
                moved_after_the_loop_jvp,
                moved_after_the_loop_vjp,
                &x,
                &mut rng,
            );
        }
    }

    /// `to_vec` of an array: its adjoint comes back as a `Vec` (found by the fuzzer).
    #[forward]
    #[reverse]
    fn array_copied(a: f64, b: f64) -> f64 {
        let pair: [f64; 2] = [a * b, b.sin()];
        let copied = pair.to_vec();
        copied[0] * copied[1] + pair[1]
    }

    /// Iterator chains over a range, with a `filter` on the index, of integers, and as the
    /// tail of the function (whose result type is the `sum`'s).
    #[forward]
    #[reverse]
    fn chains_over_ranges(x: &[f64], k: f64) -> f64 {
        let p: f64 = (0..x.len()).map(|i| x[i] * k + 1.5).product();
        let q = (1..x.len())
            .filter(|i| i % 2 == 1)
            .map(|i| x[i - 1] * x[i])
            .sum::<f64>();
        // A sum of integers starts from 0 (`ir::ReductionStart` for `usize`).
        let m = (0..x.len()).map(|i| i * 2).sum::<usize>();
        let w = [p, q * m as f64];
        w.iter().map(|v| v * v).sum()
    }

    #[test]
    fn iterator_chains_over_ranges() {
        on_ir_engine!(chains_over_ranges);
        common::check_gradient(
            5,
            |v| chains_over_ranges(&v[..4], v[4]),
            |v, t| chains_over_ranges_jvp(&v[..4], v[4], &t[..4], t[4]),
            |v, c| {
                let (value, (dx, dk)) = chains_over_ranges_vjp(&v[..4], v[4], c);
                (value, [&dx[..], &[dk]].concat())
            },
        );
    }

    /// Patterns in `let`: a tuple matched through a reference binds references to its parts, as
    /// in Rust (`*a`), `&(d, _)` reads through one, and `let _ = e;` evaluates `e`.
    #[forward]
    #[reverse]
    fn let_patterns(x: f64, y: f64) -> f64 {
        let pair = (x * y, y.sin());
        let (a, b) = &pair;
        let c = *a * *b + a * b;
        let _ = c * 2.0;
        let &(d, _) = &pair;
        c + d * *b
    }

    #[test]
    fn patterns_in_let() {
        on_ir_engine!(let_patterns);
        check2(let_patterns, let_patterns_jvp, let_patterns_vjp, POINTS);
    }

    /// A `filter` whose closure takes apart an `enumerate` or `zip` item through the
    /// reference it gets: its names bind references (`*i`, `**p`), as in Rust (was a compile
    /// error inside generated code; found by review).
    #[forward]
    #[reverse]
    fn filters_of_pairs(x: &[f64]) -> f64 {
        let even: f64 = x
            .iter()
            .enumerate()
            .filter(|(i, _)| *i % 2 == 0)
            .map(|(_, v)| v * v)
            .sum();
        let larger: f64 = x
            .iter()
            .zip(x.iter())
            .filter(|(p, q)| **p > **q * 0.5)
            .map(|(p, q)| p * q)
            .sum();
        even + larger
    }

    #[test]
    fn filters_taking_pairs_apart() {
        on_ir_engine!(filters_of_pairs);
        check_slice_function_at_random_points(
            filters_of_pairs,
            filters_of_pairs_jvp,
            filters_of_pairs_vjp,
            4,
            5,
        );
    }

    #[test]
    fn to_vec_of_an_array() {
        on_ir_engine!(array_copied);
        check2(
            array_copied,
            array_copied_jvp,
            array_copied_vjp,
            &[(0.7, 0.3), (-1.2, 0.8)],
        );
    }

    #[forward]
    #[reverse]
    fn taken_apart(x: f64, y: f64) -> f64 {
        let pairs = [(x, 1usize), (y, 2), (x * y, 0)];
        let mut total = 0.0;
        for pair in pairs.iter() {
            total += match pair {
                (v, 0) => v.exp(),
                &(v, k @ 1..=1) => v * k as f64,
                (v, k) => v.sin() * *k as f64,
            };
        }
        let nested = Some((x - y, Some(y.clone())));
        if let Some((a, Some(b))) = nested {
            total += a * b;
        }
        match (x > y, Some(x)) {
            (true, Some(mut v)) => {
                v *= 3.0;
                total += v;
            }
            _ => total -= y,
        }
        total
    }

    #[test]
    fn patterns_that_take_tuples_and_options_apart() {
        on_ir_engine!(taken_apart);
        check2(
            taken_apart,
            taken_apart_jvp,
            taken_apart_vjp,
            &[(0.7, 0.3), (0.2, 1.4), (-0.5, 0.9)],
        );
    }

    #[forward]
    #[reverse]
    fn alias(x: &[f64]) -> f64 {
        let y = x;
        y[0] * 2.0 + y[1] * y[0]
    }

    #[forward]
    #[reverse]
    fn rows(x: &[f64]) -> f64 {
        let m = vec![vec![x[0]; 2]; 2];
        let mut moved = m;
        moved[1][0] *= x[1];
        let mut pushed = Vec::new();
        pushed.push(vec![x[0], 2.0 * x[1]]);
        pushed.push(vec![x[0] * x[1]]);
        pushed[0] = vec![pushed[1][0], x[2]];
        moved[0][1] * moved[1][0] + pushed[0][0] * pushed[0][1] + pushed[1][0]
    }

    #[test]
    fn aliases_moves_and_rows() {
        on_ir_engine!(alias, rows);
        check_slice_function_at_random_points(alias, alias_jvp, alias_vjp, 2, 47);
        check_slice_function_at_random_points(rows, rows_jvp, rows_vjp, 3, 53);
    }
}

#[test]
fn tuples_and_container_results() {
    on_ir_engine!(polar, squares_of, tuples_and_results);
    check_slice_function_at_random_points(
        tuples_and_results,
        tuples_and_results_jvp,
        tuples_and_results_vjp,
        3,
        59,
    );
    let (r, theta) = (2.0_f64, 0.3_f64);
    let ((a, b), (dr, dtheta)) = polar_vjp(r, theta, (1.0, -0.5));
    let ((pa, pb), (ta, tb)) = polar_jvp(r, theta, 1.0, 0.0);
    let (_, (ua, ub)) = polar_jvp(r, theta, 0.0, 1.0);
    assert_eq!((a.to_bits(), b.to_bits()), (pa.to_bits(), pb.to_bits()));
    let component = |i: usize, r: f64, theta: f64| {
        let (a, b) = polar(r, theta);
        if i == 0 {
            a
        } else {
            b
        }
    };
    for (i, (along_r, along_theta)) in [(ta, ua), (tb, ub)].into_iter().enumerate() {
        let by_r = common::central_difference(|r| component(i, r, theta), r, 1e-4);
        let by_theta = common::central_difference(|t| component(i, r, t), theta, 1e-4);
        approx::assert_relative_eq!(along_r, by_r, epsilon = 1e-8, max_relative = 1e-7);
        approx::assert_relative_eq!(along_theta, by_theta, epsilon = 1e-8, max_relative = 1e-7);
    }
    approx::assert_relative_eq!(dr, ta - 0.5 * tb, epsilon = 1e-12);
    approx::assert_relative_eq!(dtheta, ua - 0.5 * ub, epsilon = 1e-12);
    let (values, dx) = squares_of_vjp(&[1.0, -2.0], vec![1.0, 3.0]);
    assert_eq!(values, vec![1.5, 4.5]);
    assert_eq!(dx, vec![2.0, -12.0]);
}

#[test]
fn for_over_containers_enumerate_and_zip() {
    on_ir_engine!(iterated);
    let mut rng = common::Rng::new(61);
    let ys = [0.3, -0.2, 0.9];
    for _ in 0..4 {
        let w = common::random_vector(&mut rng, 3);
        let x = common::random_vector(&mut rng, 3);
        let (value, (dw, dx)) = iterated_grad(&w, &x, &ys);
        assert_eq!(value.to_bits(), iterated(&w, &x, &ys).to_bits());
        for k in 0..3 {
            let mut e = vec![0.0; 3];
            e[k] = 1.0;
            let zero = vec![0.0; 3];
            let (_, along_w) = iterated_jvp(&w, &x, &ys, &e, &zero);
            let (_, along_x) = iterated_jvp(&w, &x, &ys, &zero, &e);
            let moved_w = |h: f64| {
                let mut moved = w.clone();
                moved[k] += h;
                iterated(&moved, &x, &ys)
            };
            let moved_x = |h: f64| {
                let mut moved = x.clone();
                moved[k] += h;
                iterated(&w, &moved, &ys)
            };
            let differences = (
                common::central_difference(moved_w, 0.0, 1e-4),
                common::central_difference(moved_x, 0.0, 1e-4),
            );
            approx::assert_relative_eq!(
                along_w,
                differences.0,
                epsilon = 1e-7,
                max_relative = 1e-6
            );
            approx::assert_relative_eq!(
                along_x,
                differences.1,
                epsilon = 1e-7,
                max_relative = 1e-6
            );
            approx::assert_relative_eq!(dw[k], along_w, epsilon = 1e-12, max_relative = 1e-12);
            approx::assert_relative_eq!(dx[k], along_x, epsilon = 1e-12, max_relative = 1e-12);
        }
    }
}

#[test]
fn values_passed_to_no_grad_parameters_keep_their_derivatives() {
    on_ir_engine!(scaled, through_no_grad);
    check2(
        through_no_grad,
        through_no_grad_jvp,
        through_no_grad_vjp,
        &[(0.3, 0.7), (-1.2, 0.4)],
    );
    let (_, da) = scaled_grad(0.3, 0.7);
    approx::assert_relative_eq!(da, 0.09 + 0.7_f64.cos(), epsilon = 1e-14);
}

#[test]
fn match_on_data_with_guards_ranges_and_bindings() {
    on_ir_engine!(matched);
    for (x, y) in [(0.7_f64, 0.2_f64), (0.2, 1.1), (-0.4, 0.3)] {
        for n in [0, 1, 5, 9] {
            let (value, (dx, dy)) = matched_grad(x, y, n);
            assert_eq!(value.to_bits(), matched(x, y, n).to_bits());
            // Forward mode against central differences, then reverse against forward.
            let (_, tx, ty) = forward_checked2(
                |x, y| matched(x, y, n),
                |x, y, tx, ty| matched_jvp(x, y, n, tx, ty),
                x,
                y,
            );
            approx::assert_relative_eq!(dx, tx, epsilon = 1e-12, max_relative = 1e-12);
            approx::assert_relative_eq!(dy, ty, epsilon = 1e-12, max_relative = 1e-12);
        }
    }
}

#[test]
fn options_built_matched_unwrapped() {
    on_ir_engine!(optional);
    for n in [0, 1, 4] {
        for (x, y) in [(0.7_f64, 0.3_f64), (1.9, -1.2), (-0.8, 0.4), (-1.3, -2.1)] {
            let (value, (dx, dy)) = optional_grad(x, y, n);
            assert_eq!(value.to_bits(), optional(x, y, n).to_bits());
            let (_, tx, ty) = forward_checked2(
                |x, y| optional(x, y, n),
                |x, y, tx, ty| optional_jvp(x, y, n, tx, ty),
                x,
                y,
            );
            approx::assert_relative_eq!(dx, tx, epsilon = 1e-12, max_relative = 1e-12);
            approx::assert_relative_eq!(dy, ty, epsilon = 1e-12, max_relative = 1e-12);
        }
    }
}

#[test]
fn copies_of_containers_and_data_options() {
    on_ir_engine!(copies);
    check_slice_function_at_random_points(
        |w| copies(w, None),
        |w, t| copies_jvp(w, None, t),
        |w, ct| copies_vjp(w, None, ct),
        3,
        17,
    );
    check_slice_function_at_random_points(
        |w| copies(w, Some(2.0)),
        |w, t| copies_jvp(w, Some(2.0), t),
        |w, ct| copies_vjp(w, Some(2.0), ct),
        5,
        18,
    );
}

#[test]
fn destructuring_assignments_tuple_fields_items_and_plain_calls() {
    on_ir_engine!(everyday);
    check2(
        everyday,
        everyday_jvp,
        everyday_vjp,
        &[(0.7, 0.3), (0.2, 1.4), (-0.5, 0.9), (1.2, -0.4)],
    );
}

#[test]
fn derived_types_as_grad_parameters() {
    on_ir_engine!(arm);
    let leaf = Joint {
        angle: 0.3,
        lengths: vec![0.5, 1.5],
        offset: (0.2, -0.4),
        stiffness: 2.0,
        count: 2,
        next: None,
    };
    let root = Joint {
        angle: -0.7,
        lengths: vec![1.0, 0.25, 0.75],
        offset: (1.1, 0.6),
        stiffness: 0.5,
        count: 3,
        next: Some(Box::new(leaf)),
    };
    let mut rng = common::Rng::new(29);
    for part in [Part::Rod(0.8), Part::Plate { w: 0.4, h: 1.3 }] {
        // Each float of the joint and the part, and x, against forward mode along random
        // directions (the dot-product identity), and the value against the plain function.
        for _ in 0..3 {
            let tj = common::random_like(&root, &mut rng);
            let tp = common::random_like(&part, &mut rng);
            let tx = rng.uniform(-1.0, 1.0);
            let (value, along) = arm_jvp(&root, &part, 0.9, &tj, &tp, tx);
            let (reverse_value, (dj, dp, dx)) = arm_grad(&root, &part, 0.9);
            assert_eq!(value.to_bits(), arm(&root, &part, 0.9).to_bits());
            assert_eq!(reverse_value.to_bits(), value.to_bits());
            let dot = common::dot(&dj, &tj) + common::dot(&dp, &tp) + dx * tx;
            approx::assert_relative_eq!(dot, along, epsilon = 1e-12, max_relative = 1e-12);
            // Forward mode against central differences along the same direction.
            let at = |h: f64| {
                arm(
                    &common::axpy(&root, h, &tj),
                    &common::axpy(&part, h, &tp),
                    0.9 + h * tx,
                )
            };
            let h = 1e-6;
            let central = (at(h) - at(-h)) / (2.0 * h);
            approx::assert_relative_eq!(along, central, epsilon = 1e-6, max_relative = 1e-6);
        }
    }
}

#[test]
fn derived_values_built_matched_and_passed_on() {
    on_ir_engine!(reshaped);
    let mut rng = common::Rng::new(31);
    for part in [Part::Rod(0.8), Part::Plate { w: 0.4, h: 1.3 }] {
        for _ in 0..3 {
            let tp = common::random_like(&part, &mut rng);
            let tx = rng.uniform(-1.0, 1.0);
            let (value, along) = reshaped_jvp(&part, 0.9, &tp, tx);
            let (reverse_value, (dp, dx)) = reshaped_grad(&part, 0.9);
            assert_eq!(value.to_bits(), reshaped(&part, 0.9).to_bits());
            assert_eq!(reverse_value.to_bits(), value.to_bits());
            let dot = common::dot(&dp, &tp) + dx * tx;
            approx::assert_relative_eq!(dot, along, epsilon = 1e-12, max_relative = 1e-12);
        }
        // Forward mode against central differences along a random direction.
        let tp = common::random_like(&part, &mut rng);
        let tx = rng.uniform(-1.0, 1.0);
        let (_, along) = reshaped_jvp(&part, 0.9, &tp, tx);
        let at = |h: f64| reshaped(&common::axpy(&part, h, &tp), 0.9 + h * tx);
        let h = 1e-6;
        let central = (at(h) - at(-h)) / (2.0 * h);
        approx::assert_relative_eq!(along, central, epsilon = 1e-6, max_relative = 1e-6);
    }
}

#[test]
fn derived_values_built_from_floats() {
    on_ir_engine!(built_from_floats);
    check2(
        built_from_floats,
        built_from_floats_jvp,
        built_from_floats_vjp,
        &[(0.7, 0.3), (1.4, -0.6), (-0.5, 0.9)],
    );
}

/// More of what the previous engine refuses: patterns of types learned from the values they
/// take apart, `..` in them, borrows, `&mut` of data, jumps inside assigned values.
mod beyond_the_previous_engine_too {
    use super::*;

    #[derive(Clone, Debug, PartialEq, ad_runtime::Differentiable)]
    pub enum Hull {
        Box3 { w: f64, h: f64, d: f64 },
        Tube(f64, f64, usize),
    }

    #[derive(Clone, Debug, PartialEq, ad_runtime::Differentiable)]
    pub struct Vessel {
        pub hull: Hull,
        pub scale: f64,
        pub tag: usize,
    }

    impl Hull {
        /// `match self` with patterns naming the type (not `Self`): the engine learns that `Hull`
        /// derives `Differentiable` from the value carrying derivatives it takes apart; `..` in a
        /// struct variant and after a tuple variant's fields.
        #[forward]
        #[reverse]
        pub fn volume(&self, x: f64) -> f64 {
            match self {
                Hull::Box3 { w, d, .. } => w * d * x,
                Hull::Tube(r, ..) => r * r * x,
            }
        }
    }

    /// A field of a derived type (`v.hull: Hull`) matched by its own type's patterns, and `..` in
    /// a struct pattern of the parameter's type, in `let` and in `if let`.
    #[forward]
    #[reverse]
    fn vessel_load(#[grad] v: &Vessel, x: f64) -> f64 {
        let Vessel { scale, .. } = v;
        let inner = match &v.hull {
            Hull::Box3 { h, .. } => h.sin(),
            Hull::Tube(_, l, n) => l * *n as f64,
        };
        let extra = if let Vessel {
            hull: Hull::Tube(r, ..),
            ..
        } = v
        {
            r * scale
        } else {
            x
        };
        scale * inner * x + Hull::volume(&v.hull, x) + extra * v.tag as f64
    }

    #[test]
    fn patterns_of_types_learned_from_values_and_rest_patterns() {
        on_ir_engine!(vessel_load);
        let mut rng = common::Rng::new(47);
        for hull in [
            Hull::Box3 {
                w: 0.7,
                h: -1.2,
                d: 0.4,
            },
            Hull::Tube(1.3, 0.6, 3),
        ] {
            let vessel = Vessel {
                hull: hull.clone(),
                scale: 0.8,
                tag: 2,
            };
            common::check_user_type(
                vessel_load,
                vessel_load_jvp,
                vessel_load_vjp,
                &vessel,
                0.9,
                &mut rng,
            );
            common::check_user_type(
                |h: &Hull, x| h.volume(x),
                |h: &Hull, x, dh: &Hull, dx| Hull::volume_jvp(h, x, dh, dx),
                |h: &Hull, x, ct| Hull::volume_vjp(h, x, ct),
                &hull,
                -0.6,
                &mut rng,
            );
        }
    }

    fn advance_by(step: usize, position: &mut usize) -> usize {
        *position += step;
        *position
    }

    /// Borrows: `let r = &mut acc[i]` and `*r += ..` on floats carrying derivatives (the write goes
    /// to the element and its shadow), `ref mut` in `let` and in a `match` arm, and
    /// `&mut` of integers passed to a plain function and to `std::mem::swap`/`replace`.
    #[forward]
    #[reverse]
    fn borrows(x: &[f64]) -> f64 {
        let n = x.len();
        let mut acc = vec![0.0; n];
        let (mut k, mut m) = (0, 1);
        let mut total = 0.0;
        for i in 0..n {
            let r = &mut acc[(i + k) % n];
            *r += x[i] * x[(i + m) % n];
            let ref mut s = total;
            *s += acc[i].sin();
            match k {
                ref mut j => *j += 1,
            }
            std::mem::swap(&mut k, &mut m);
            let before = std::mem::replace(&mut m, advance_by(1, &mut k) % n);
            total += x[before % n] * 0.5;
        }
        total + acc[0] * acc[n - 1]
    }

    #[test]
    fn borrowed_places_and_mutable_references_to_data() {
        on_ir_engine!(borrows);
        check_slice_function_at_random_points(borrows, borrows_jvp, borrows_vjp, 5, 53);
    }

    /// Jumps inside values assigned to data and to floats (`k = match i { 2 => continue, _ => 1 }`,
    /// the previous engine's wrong derivative, refused there): the assignment is made in each
    /// branch that gives a value, after the branch that jumps.
    #[forward]
    #[reverse]
    fn jumps_inside_assigned_values(x: &[f64]) -> f64 {
        let mut e = 0.0;
        let mut last = x[0];
        let mut k = 0;
        let mut w = 1.0;
        for i in 1..x.len() {
            let d = x[i] - last;
            last = x[i];
            k = match i {
                2 => continue,
                _ => k + 1,
            };
            w = if d > 0.5 {
                break;
            } else {
                w * 0.5 + d
            };
            e += d * d * k as f64 * w;
        }
        e + w
    }

    #[test]
    fn jumps_inside_values_assigned() {
        on_ir_engine!(jumps_inside_assigned_values);
        check_slice_function_at_random_points(
            jumps_inside_assigned_values,
            jumps_inside_assigned_values_jvp,
            jumps_inside_assigned_values_vjp,
            6,
            59,
        );
    }
}
