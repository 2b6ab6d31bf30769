//! Functions the previous engine refused (their messages were pinned in `tests/ui`), which
//! the IR engine, now the default, takes: each derivative against central differences and,
//! where forward mode takes the function too, against forward mode.

#![allow(
    clippy::match_single_binding,
    clippy::vec_init_then_push,
    clippy::let_and_return,
    clippy::useless_vec,
    clippy::needless_range_loop
)]

mod common;

use ad_runtime::{forward, reverse, Differentiable};
use approx::assert_relative_eq;
use common::{central_difference, check_slice_function_at_random_points};

macro_rules! on_ir_engine {
    ($($function:ident),*) => {$(
        assert_eq!($function::__AD_ENGINE, "ir", stringify!($function));
    )*};
}

/// `grad(x)` of a function of one float against central differences of `plain`, at `points`.
fn check1(plain: impl Fn(f64) -> f64, grad: impl Fn(f64) -> (f64, f64), points: &[f64]) {
    for &x in points {
        let (value, dx) = grad(x);
        assert_eq!(value.to_bits(), plain(x).to_bits(), "value at {x}");
        assert_relative_eq!(
            dx,
            central_difference(&plain, x, 1e-5),
            epsilon = 1e-7,
            max_relative = 1e-6
        );
    }
}

/// `grad(x, y)` against central differences along each parameter.
fn check2(
    plain: impl Fn(f64, f64) -> f64,
    grad: impl Fn(f64, f64) -> (f64, (f64, f64)),
    points: &[(f64, f64)],
) {
    for &(x, y) in points {
        let (value, (dx, dy)) = grad(x, y);
        assert_eq!(
            value.to_bits(),
            plain(x, y).to_bits(),
            "value at ({x}, {y})"
        );
        let along_x = central_difference(|x| plain(x, y), x, 1e-5);
        let along_y = central_difference(|y| plain(x, y), y, 1e-5);
        assert_relative_eq!(dx, along_x, epsilon = 1e-7, max_relative = 1e-6);
        assert_relative_eq!(dy, along_y, epsilon = 1e-7, max_relative = 1e-6);
    }
}

const POINTS: &[f64] = &[-1.3, -0.4, 0.35, 0.8, 1.7];
const PAIRS: &[(f64, f64)] = &[(0.7, 1.3), (1.9, -0.4), (-0.2, 2.5), (-1.1, -1.05)];

#[reverse]
fn checkpointed_loop_keeping_a_vec(x: f64, n: usize) -> f64 {
    let mut y = x;
    let mut seen = Vec::new();
    #[checkpoint(every = 4)]
    for i in 0..n {
        seen.push(i);
        y = y * 1.5 + (i as f64) * y.sin();
    }
    y + seen.len() as f64
}

#[test]
fn checkpointed_loop_whose_state_is_not_copy() {
    on_ir_engine!(checkpointed_loop_keeping_a_vec);
    for n in [0, 3, 9] {
        check1(
            |x| checkpointed_loop_keeping_a_vec(x, n),
            |x| checkpointed_loop_keeping_a_vec_grad(x, n),
            POINTS,
        );
    }
}

#[reverse]
fn closure_assigning_in_a_condition(x: f64, y: f64) -> f64 {
    let mut s = x;
    let mut bump = |v: f64| {
        s += v * v;
        s
    };
    if bump(y) > 1.0 {
        s *= x;
    }
    s
}

#[test]
fn closure_that_assigns_called_in_a_condition() {
    on_ir_engine!(closure_assigning_in_a_condition);
    check2(
        closure_assigning_in_a_condition,
        closure_assigning_in_a_condition_grad,
        PAIRS,
    );
}

fn use_count(n: usize) -> usize {
    n
}

#[forward]
#[reverse]
fn assignment_in_an_argument(x: f64) -> f64 {
    let mut s = x;
    let n = use_count({
        s *= x.sin();
        3
    });
    s * n as f64
}

#[forward]
#[reverse]
fn closure_reading_a_shadowed_name(x: f64, y: f64) -> f64 {
    let pair = |t: f64| {
        let w = vec![y, t];
        w[0] * w[1]
    };
    let y = 10.0 * x;
    pair(x) + y * y
}

#[forward]
#[reverse]
fn closure_result_as_data(x: f64, n: usize) -> f64 {
    let enough = |k: usize| k > n;
    let mut total = x;
    for k in 0..4 {
        let done = enough(k);
        if done {
            total *= x;
        }
    }
    total
}

#[test]
fn assignments_and_closures() {
    on_ir_engine!(
        assignment_in_an_argument,
        closure_reading_a_shadowed_name,
        closure_result_as_data
    );
    check1(
        assignment_in_an_argument,
        assignment_in_an_argument_grad,
        POINTS,
    );
    check2(
        closure_reading_a_shadowed_name,
        closure_reading_a_shadowed_name_grad,
        PAIRS,
    );
    for n in [0, 1, 5] {
        check1(
            |x| closure_result_as_data(x, n),
            |x| closure_result_as_data_grad(x, n),
            POINTS,
        );
    }
    for &x in POINTS {
        let (_, forward) = assignment_in_an_argument_jvp(x, 1.0);
        assert_relative_eq!(
            assignment_in_an_argument_grad(x).1,
            forward,
            epsilon = 1e-12
        );
    }
}

#[forward]
#[reverse]
fn slice_alias(x: &[f64]) -> f64 {
    let y = x;
    y[0] * 2.0 + y[1] * y[2]
}

#[forward]
#[reverse]
fn filter_reading_the_element_name(x: &[f64]) -> f64 {
    let v = 0.25;
    x.iter().filter(|w| **w > v).map(|v| v * v * 2.0).sum()
}

#[forward]
#[reverse]
fn collected_into_a_shadowing_name(x: &[f64]) -> f64 {
    let x: Vec<f64> = x.iter().map(|v| v * 2.0).collect();
    x[0] * x[1]
}

#[forward]
#[reverse]
fn moved_closure_capturing_a_vector(x: &[f64]) -> f64 {
    let v = x.to_vec();
    let first = move |t: f64| t * v[0];
    first(x[1])
}

#[test]
fn slices_aliased_filtered_collected_and_captured() {
    on_ir_engine!(
        slice_alias,
        filter_reading_the_element_name,
        collected_into_a_shadowing_name,
        moved_closure_capturing_a_vector
    );
    check_slice_function_at_random_points(slice_alias, slice_alias_jvp, slice_alias_vjp, 3, 5);
    check_slice_function_at_random_points(
        filter_reading_the_element_name,
        filter_reading_the_element_name_jvp,
        filter_reading_the_element_name_vjp,
        6,
        6,
    );
    check_slice_function_at_random_points(
        collected_into_a_shadowing_name,
        collected_into_a_shadowing_name_jvp,
        collected_into_a_shadowing_name_vjp,
        3,
        7,
    );
    check_slice_function_at_random_points(
        moved_closure_capturing_a_vector,
        moved_closure_capturing_a_vector_jvp,
        moved_closure_capturing_a_vector_vjp,
        3,
        8,
    );
}

#[reverse]
fn match_on_a_float(x: f64) -> f64 {
    match x * 2.0 {
        y => y.sin(),
    }
}

#[reverse]
fn sin_cos_as_a_value(x: f64) -> f64 {
    let pair = x.sin_cos();
    pair.0 * pair.1
}

#[reverse]
fn tuple_pattern_of_an_if(x: f64, y: f64) -> f64 {
    let (a, b) = if x > y { (x, y) } else { (y, x) };
    a * b * b
}

#[reverse]
fn tuple_from_a_method(x: f64) -> (f64, f64) {
    x.sin_cos()
}

#[test]
fn floats_matched_paired_and_returned_as_tuples() {
    on_ir_engine!(
        match_on_a_float,
        sin_cos_as_a_value,
        tuple_pattern_of_an_if,
        tuple_from_a_method
    );
    check1(match_on_a_float, match_on_a_float_grad, POINTS);
    check1(sin_cos_as_a_value, sin_cos_as_a_value_grad, POINTS);
    check2(tuple_pattern_of_an_if, tuple_pattern_of_an_if_grad, PAIRS);
    for &x in POINTS {
        for (c0, c1) in [(1.0, 0.0), (0.0, 1.0), (0.5, -2.0)] {
            let (value, dx) = tuple_from_a_method_vjp(x, (c0, c1));
            assert_eq!(value, x.sin_cos());
            let combined = |x: f64| {
                let (s, c) = tuple_from_a_method(x);
                c0 * s + c1 * c
            };
            assert_relative_eq!(
                dx,
                central_difference(combined, x, 1e-5),
                epsilon = 1e-7,
                max_relative = 1e-6
            );
        }
    }
}

#[reverse]
fn option_from_a_closure(x: f64) -> f64 {
    let f = |t: f64| if t > 0.0 { Some(t * t) } else { None };
    f(x).unwrap_or(x)
}

#[reverse]
fn option_matched_by_reference(x: f64) -> f64 {
    let o = Some(x * x);
    match &o {
        Some(v) => v * x,
        None => x,
    }
}

#[reverse]
fn option_of_a_tuple(x: f64) -> f64 {
    let t = (x, x * x);
    let o = Some(t);
    match o {
        Some((a, b)) => a * b,
        None => x,
    }
}

#[reverse]
fn option_pair_matched(x: f64, y: f64) -> f64 {
    let a = if x > 0.0 { Some(x * y) } else { None };
    let b = if y > 0.0 { Some(y * y) } else { None };
    match (a, b) {
        (Some(u), Some(v)) => u * v,
        _ => x,
    }
}

#[reverse]
fn option_pushed(x: f64) -> f64 {
    let o = Some(x * x);
    let mut v = Vec::new();
    v.push(o);
    v[0].unwrap_or(x)
}

#[test]
fn options_from_closures_in_tuples_pairs_and_containers() {
    on_ir_engine!(
        option_from_a_closure,
        option_matched_by_reference,
        option_of_a_tuple,
        option_pair_matched,
        option_pushed
    );
    check1(option_from_a_closure, option_from_a_closure_grad, POINTS);
    check1(
        option_matched_by_reference,
        option_matched_by_reference_grad,
        POINTS,
    );
    check1(option_of_a_tuple, option_of_a_tuple_grad, POINTS);
    check2(option_pair_matched, option_pair_matched_grad, PAIRS);
    check1(option_pushed, option_pushed_grad, POINTS);
}

#[reverse]
fn row_replaced(rows: &[Vec<f64>], x: f64) -> f64 {
    let mut owned = rows.to_vec();
    owned[0] = vec![x, x * x];
    owned[0][1] * owned[1][0]
}

#[reverse]
fn row_pushed_onto_a_copy(rows: &[Vec<f64>], x: f64) -> f64 {
    let mut owned = rows.to_vec();
    owned.push(vec![x]);
    owned[0][0] * owned[2][0]
}

#[reverse]
fn container_pushed_as_a_row(x: f64, v: Vec<f64>) -> f64 {
    let mut rows = Vec::new();
    rows.push(v);
    rows.len() as f64 * x + rows[0][1] * x
}

#[reverse]
fn matrix_moved(x: f64) -> f64 {
    let m = vec![vec![x; 2]; 2];
    let n = m;
    n[0][0] * n[1][1]
}

#[test]
fn containers_of_containers_replaced_pushed_and_moved() {
    on_ir_engine!(
        row_replaced,
        row_pushed_onto_a_copy,
        container_pushed_as_a_row,
        matrix_moved
    );
    let rows = vec![vec![0.5, -1.25], vec![2.0, 0.75]];
    for &x in POINTS {
        let (value, (d_rows, dx)) = row_replaced_grad(&rows, x);
        assert_eq!(value, row_replaced(&rows, x));
        assert_relative_eq!(dx, 2.0 * x * rows[1][0], epsilon = 1e-12);
        assert_eq!(d_rows, vec![vec![0.0, 0.0], vec![x * x, 0.0]]);

        let (value, (d_rows, dx)) = row_pushed_onto_a_copy_grad(&rows, x);
        assert_eq!(value, row_pushed_onto_a_copy(&rows, x));
        assert_relative_eq!(dx, rows[0][0], epsilon = 1e-12);
        assert_eq!(d_rows, vec![vec![x, 0.0], vec![0.0, 0.0]]);

        let v = vec![0.3, -0.9];
        let (value, (dx, dv)) = container_pushed_as_a_row_grad(x, v.clone());
        assert_eq!(value, container_pushed_as_a_row(x, v.clone()));
        assert_relative_eq!(dx, 1.0 + v[1], epsilon = 1e-12);
        assert_eq!(dv, vec![0.0, x]);

        check1(matrix_moved, matrix_moved_grad, &[x]);
    }
}

#[derive(Clone, Copy, Differentiable)]
pub struct P2 {
    pub x: f64,
    pub y: f64,
}

#[derive(Clone, Differentiable)]
pub struct Weights {
    pub w: Vec<f64>,
}

#[derive(Clone, Differentiable)]
pub struct Body {
    pub pos: P2,
    pub m: f64,
}

#[reverse]
fn struct_with_a_container_field(x: f64) -> f64 {
    let v = vec![x, 2.0 * x];
    let c = Weights { w: v };
    c.w[1] * x
}

#[reverse]
fn struct_with_a_struct_field(x: f64) -> f64 {
    let inner = P2 { x, y: 2.0 * x };
    let b = Body { pos: inner, m: x };
    b.m * b.pos.x + b.pos.y.sin()
}

#[test]
fn structs_built_with_container_and_struct_fields() {
    on_ir_engine!(struct_with_a_container_field, struct_with_a_struct_field);
    check1(
        struct_with_a_container_field,
        struct_with_a_container_field_grad,
        POINTS,
    );
    check1(
        struct_with_a_struct_field,
        struct_with_a_struct_field_grad,
        POINTS,
    );
}

#[reverse]
fn with_offset(x: f64, offset: Option<f64>) -> f64 {
    x * x + offset.unwrap_or(0.0)
}

#[reverse]
fn passes_option_through(x: f64, offset: Option<f64>) -> f64 {
    let copied = offset;
    with_offset(x, offset) * x + with_offset(x, copied)
}

/// An `Option` data parameter passed on to a call: the callee's data parameter keeps its
/// declared type, so the parameter is passed as it is, unlifted.
#[test]
fn option_parameter_passed_on_to_a_call() {
    on_ir_engine!(passes_option_through);
    for offset in [None, Some(0.75)] {
        check1(
            |x| passes_option_through(x, offset),
            |x| passes_option_through_grad(x, offset),
            POINTS,
        );
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Differentiable)]
pub struct Vec3(pub f64, pub f64, pub f64);

#[forward]
#[reverse]
fn torque_norm(#[grad] r: &Vec3, #[grad] f: &Vec3) -> f64 {
    let t = Vec3(
        r.1 * f.2 - r.2 * f.1,
        r.2 * f.0 - r.0 * f.2,
        r.0 * f.1 - r.1 * f.0,
    );
    let Vec3(a, b, c) = t;
    (a * a + b * b + c * t.2).sqrt()
}

/// A tuple struct built and taken apart in the body: its twin's alias cannot be called or
/// matched as a tuple struct, so both modes name its fields by number (found by a helper's
/// probe: both modes failed to compile it).
#[test]
fn tuple_struct_built_and_matched() {
    on_ir_engine!(torque_norm);
    let (r, f) = (Vec3(0.3, -1.2, 0.8), Vec3(1.1, 0.4, -0.6));
    let (value, (dr, df)) = torque_norm_grad(&r, &f);
    assert_eq!(value, torque_norm(&r, &f));
    let plain = |p: [f64; 6]| torque_norm(&Vec3(p[0], p[1], p[2]), &Vec3(p[3], p[4], p[5]));
    let point = [r.0, r.1, r.2, f.0, f.1, f.2];
    let reverse = [dr.0, dr.1, dr.2, df.0, df.1, df.2];
    for k in 0..6 {
        let moved = |h: f64| {
            let mut p = point;
            p[k] += h;
            plain(p)
        };
        assert_relative_eq!(
            reverse[k],
            central_difference(moved, 0.0, 1e-5),
            epsilon = 1e-7,
            max_relative = 1e-6
        );
        let mut tangent = [0.0; 6];
        tangent[k] = 1.0;
        let (_, along) = torque_norm_jvp(
            &r,
            &f,
            &Vec3(tangent[0], tangent[1], tangent[2]),
            &Vec3(tangent[3], tangent[4], tangent[5]),
        );
        assert_relative_eq!(reverse[k], along, epsilon = 1e-12, max_relative = 1e-12);
    }
}

#[forward]
fn first_two(#[grad] v: &Vec3) -> f64 {
    let Vec3(a, b, ..) = *v;
    a * b * v.2
}

#[test]
fn tuple_struct_patterns_with_a_rest_in_forward_mode() {
    let v = Vec3(0.5, -1.5, 2.0);
    let (value, along) = first_two_jvp(&v, &Vec3(1.0, 0.0, 0.0));
    assert_eq!(value, first_two(&v));
    assert_relative_eq!(along, v.1 * v.2, epsilon = 1e-15);
}

const GRAVITY: f64 = 9.81;
static DRAG: f64 = 0.47;

#[forward]
#[reverse]
fn constants_bound_by_let(v0: f64, t: f64) -> f64 {
    let k = DRAG;
    let g = GRAVITY;
    (v0 + g / k) * t + v0 * k * t.sin()
}

#[derive(Clone, Copy, Debug, Differentiable)]
pub struct Complex {
    pub re: f64,
    pub im: f64,
}

impl Complex {
    #[forward]
    #[reverse]
    pub fn abs2(self) -> f64 {
        self.re * self.re + self.im * self.im
    }

    #[forward]
    #[reverse]
    pub fn arg_like(&self) -> f64 {
        self.im.atan2(self.re)
    }
}

#[forward]
#[reverse]
fn by_value_method_of_a_built_value(re: f64, im: f64) -> f64 {
    let w = Complex { re: re * 2.0, im };
    w.abs2() + w.arg_like() * w.abs2()
}

pub struct Prior {
    pub means: Vec<f64>,
}

impl Prior {
    pub fn mean(&self, i: usize) -> f64 {
        self.means[i]
    }
}

#[forward]
#[reverse]
fn element_minus_data_method(theta: &[f64], prior: &Prior) -> f64 {
    let mut lp = 0.0;
    for (i, t) in theta.iter().enumerate() {
        let m = prior.mean(i);
        lp += (t - m).powi(2) * (i as f64 + 1.0);
    }
    lp
}

/// Found by a helper's probe, both modes failing to compile: a constant bound by `let` and
/// divided into (`GRAVITY / k`), a `self` method called on a value built in the body, an
/// enumerated element minus a data method's result.
#[test]
fn constants_by_value_receivers_and_enumerated_elements() {
    on_ir_engine!(
        constants_bound_by_let,
        by_value_method_of_a_built_value,
        element_minus_data_method
    );
    check2(constants_bound_by_let, constants_bound_by_let_grad, PAIRS);
    check2(
        by_value_method_of_a_built_value,
        by_value_method_of_a_built_value_grad,
        PAIRS,
    );
    for &(x, y) in PAIRS {
        let (_, (dx, dy)) = constants_bound_by_let_grad(x, y);
        assert_relative_eq!(
            dx,
            constants_bound_by_let_jvp(x, y, 1.0, 0.0).1,
            epsilon = 1e-12
        );
        assert_relative_eq!(
            dy,
            constants_bound_by_let_jvp(x, y, 0.0, 1.0).1,
            epsilon = 1e-12
        );
        let (_, (dx, dy)) = by_value_method_of_a_built_value_grad(x, y);
        let along_x = by_value_method_of_a_built_value_jvp(x, y, 1.0, 0.0).1;
        let along_y = by_value_method_of_a_built_value_jvp(x, y, 0.0, 1.0).1;
        assert_relative_eq!(dx, along_x, epsilon = 1e-12, max_relative = 1e-12);
        assert_relative_eq!(dy, along_y, epsilon = 1e-12, max_relative = 1e-12);
    }
    let prior = Prior {
        means: vec![0.5, -0.25, 1.5, 0.0],
    };
    let theta = [0.3, 0.9, -1.2, 2.0];
    let (value, gradient) = element_minus_data_method_grad(&theta, &prior);
    assert_eq!(value, element_minus_data_method(&theta, &prior));
    for i in 0..4 {
        let expected = 2.0 * (theta[i] - prior.means[i]) * (i as f64 + 1.0);
        assert_relative_eq!(gradient[i], expected, epsilon = 1e-12);
        let mut tangent = [0.0; 4];
        tangent[i] = 1.0;
        let (_, along) = element_minus_data_method_jvp(&theta, &prior, &tangent);
        assert_relative_eq!(along, expected, epsilon = 1e-12);
    }
}

// A `continue` as an arm's or a branch's value in an expression computed as data: the previous
// engine ran it as written and gave a wrong derivative (the skipped iteration's rest ran back);
// both engines refused it since. The IR engine takes the arm that leaves as giving no value
// (its exit's flag keeps the rest of the iteration from running, forward and backward).
#[forward]
#[reverse]
fn skip_second_step(x: &[f64]) -> f64 {
    let mut e = 0.0;
    let mut last = x[0];
    let mut k: i32;
    for i in 1..x.len() {
        let d = x[i] - last;
        last = x[i];
        k = match i {
            2 => continue,
            _ => 1,
        };
        e += d * d * k as f64;
    }
    e
}

#[forward]
#[reverse]
fn skip_second_step_if(x: &[f64]) -> f64 {
    let mut e = 0.0;
    let mut last = x[0];
    let mut k: i32;
    for i in 1..x.len() {
        let d = x[i] - last;
        last = x[i];
        k = if i == 2 { continue } else { 1 };
        e += d * d * k as f64;
    }
    e
}

#[test]
fn a_jump_as_the_value_of_an_arm_computed_as_data() {
    on_ir_engine!(skip_second_step, skip_second_step_if);
    check_slice_function_at_random_points(
        skip_second_step,
        skip_second_step_jvp,
        skip_second_step_vjp,
        5,
        31,
    );
    check_slice_function_at_random_points(
        skip_second_step_if,
        skip_second_step_if_jvp,
        skip_second_step_if_vjp,
        5,
        32,
    );
    // The second step is skipped: x[2] - x[1] does not count.
    let (_, gradient) = skip_second_step_grad(&[0.0, 1.0, 3.0, 6.0]);
    assert_eq!(gradient, [-2.0, 2.0, -6.0, 6.0]);
}
