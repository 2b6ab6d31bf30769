//! The combinators of `Option` on options of floats built in the body (`map`, `and_then`,
//! `filter`, `unwrap_or_else`, `map_or`, `map_or_else`, `is_some_and`, `or`, `or_else`, `take`,
//! `replace`, `ok_or`, `ok_or_else`), in both modes: each caller checked against central differences, reverse mode
//! against forward mode along every basis direction, and the dot-product identity, at random
//! points on both sides of the branches the options take.

mod common;

use ad_runtime::{forward, reverse};
use common::check_slice_function_at_random_points;

#[forward]
#[reverse]
fn map_then_unwrap_or(x: &[f64]) -> f64 {
    let a = if x[0] > 0.0 { Some(x[0] * x[1]) } else { None };
    let b = a.map(|v| v * v);
    b.unwrap_or(x[1]) + x[0]
}

#[forward]
#[reverse]
fn and_then_unwrap_or_else(x: &[f64]) -> f64 {
    let a = if x[0] > -0.5 { Some(x[0] + 1.0) } else { None };
    a.and_then(|v| if v > 1.0 { Some(v.ln() * x[1]) } else { None })
        .unwrap_or_else(|| x[0] * x[1])
}

#[forward]
#[reverse]
fn filter_and_map_or(x: &[f64]) -> f64 {
    let a = Some(x[0] * 2.0);
    let f = a.filter(|v| *v > 0.3).map_or(x[1], |v| v * x[1]);
    let g = a.map_or_else(|| 2.0 * x[1], |v: f64| v.sin());
    f + g
}

#[forward]
#[reverse]
fn take_replace_or(x: &[f64]) -> f64 {
    let mut a = Some(x[0]);
    let taken = a.take();
    let h = a.or(Some(x[1] * 3.0)).unwrap_or(0.0);
    let was_set = a.replace(x[0] * x[1]).is_some_and(|v| v > 0.0);
    let m = a.or_else(|| Some(x[1])).map(f64::exp).unwrap();
    let flag = if was_set { 1.0 } else { 0.0 };
    h + m + flag + taken.unwrap_or(0.0) * x[2]
}

/// The option chosen in a loop, then mapped.
#[forward]
#[reverse]
fn best_in_a_loop_mapped(x: &[f64]) -> f64 {
    let mut best: Option<f64> = None;
    for i in 0..x.len() {
        let v = x[i] * x[i] - x[0];
        best = match best {
            Some(b) if b >= v => Some(b),
            _ => Some(v),
        };
    }
    best.map(|b| b.sqrt().exp()).unwrap_or(0.0)
}

/// `Option::take` and `map` share their names with iterator adapters, but run where they are
/// written: an option taken, then mapped with a closure (a regression: once moved to the
/// taken value's use as if it were a lazy iterator).
#[forward]
#[reverse]
fn taken_then_mapped(x: &[f64]) -> f64 {
    let mut a = Some(x[0]);
    let taken = a.take();
    let m = a.map(|t| t.exp()).unwrap_or(2.0);
    let b = Some(x[1]);
    let doubled = b.map(|t| t * 2.0);
    m + taken.unwrap_or(0.0) * x[2] + doubled.unwrap_or(0.0)
}

#[test]
fn option_combinators_three_ways() {
    check_slice_function_at_random_points(
        taken_then_mapped,
        taken_then_mapped_jvp,
        taken_then_mapped_vjp,
        3,
        7,
    );
    check_slice_function_at_random_points(
        map_then_unwrap_or,
        map_then_unwrap_or_jvp,
        map_then_unwrap_or_vjp,
        2,
        1,
    );
    check_slice_function_at_random_points(
        and_then_unwrap_or_else,
        and_then_unwrap_or_else_jvp,
        and_then_unwrap_or_else_vjp,
        2,
        2,
    );
    check_slice_function_at_random_points(
        filter_and_map_or,
        filter_and_map_or_jvp,
        filter_and_map_or_vjp,
        2,
        3,
    );
    check_slice_function_at_random_points(
        take_replace_or,
        take_replace_or_jvp,
        take_replace_or_vjp,
        3,
        4,
    );
    check_slice_function_at_random_points(
        best_in_a_loop_mapped,
        best_in_a_loop_mapped_jvp,
        best_in_a_loop_mapped_vjp,
        4,
        5,
    );
}

#[test]
fn each_branch_of_a_combinator_gives_its_own_derivative() {
    // x0 > 0: (x0 x1)^2 + x0; else x1 + x0.
    let (_, g) = map_then_unwrap_or_grad(&[0.5, 2.0]);
    assert_eq!(g, vec![2.0 * 0.5 * 4.0 + 1.0, 2.0 * 2.0 * 0.25]);
    let (_, g) = map_then_unwrap_or_grad(&[-0.5, 2.0]);
    assert_eq!(g, vec![1.0, 1.0]);
}

/// What were refusals: an option changed inside an expression, an option of a container.
#[forward]
#[reverse]
fn changed_in_an_expression(x: &[f64]) -> f64 {
    let mut o = Some(x[0]);
    if o.replace(x[0] * x[1]).is_some() {
        return o.unwrap_or(0.0) + x[1];
    }
    x[0]
}

#[forward]
#[reverse]
fn option_of_a_container(x: &[f64]) -> f64 {
    let o: Option<Vec<f64>> = Some(vec![x[0], x[0] * x[1]]);
    o.map_or(0.0, |v| v[0] * v[1])
}

#[test]
fn options_changed_in_expressions_and_of_containers_three_ways() {
    check_slice_function_at_random_points(
        changed_in_an_expression,
        changed_in_an_expression_jvp,
        changed_in_an_expression_vjp,
        2,
        6,
    );
    check_slice_function_at_random_points(
        option_of_a_container,
        option_of_a_container_jvp,
        option_of_a_container_vjp,
        2,
        7,
    );
}

/// `while let` over an option the loop changes.
#[forward]
#[reverse]
fn halved_while_some(x: &[f64]) -> f64 {
    let mut o = Some(x[0]);
    let mut s = 0.0;
    while let Some(v) = o {
        s += v * x[1];
        o = if v.abs() > 0.1 { Some(v * 0.5) } else { None };
    }
    s
}

#[test]
fn while_let_over_an_option_three_ways() {
    check_slice_function_at_random_points(
        halved_while_some,
        halved_while_some_jvp,
        halved_while_some_vjp,
        2,
        8,
    );
}

/// `ok_or` and `ok_or_else`: an option made a `Result`, then `?` or unwrapped.
#[derive(Debug, PartialEq)]
pub enum Missing {
    NoPositive,
}

#[allow(clippy::unnecessary_lazy_evaluations)] // `ok_or_else` is under test
#[forward]
#[reverse]
fn first_positive(x: &[f64]) -> Result<f64, Missing> {
    let found = x
        .iter()
        .copied()
        .find(|v| *v > 0.0)
        .ok_or(Missing::NoPositive)?;
    let large = x
        .iter()
        .copied()
        .find(|v| *v > 1.0)
        .ok_or_else(|| Missing::NoPositive)
        .unwrap_or(x[0]);
    Ok(found * found * large)
}

fn first_positive_or_zero(x: &[f64]) -> f64 {
    first_positive(x).unwrap_or(0.0)
}

#[forward]
#[reverse]
fn first_positive_or_zero_annotated(x: &[f64]) -> f64 {
    first_positive(x).unwrap_or(0.0)
}

#[test]
fn options_made_results() {
    check_slice_function_at_random_points(
        first_positive_or_zero_annotated,
        first_positive_or_zero_annotated_jvp,
        first_positive_or_zero_annotated_vjp,
        4,
        21,
    );
    assert_eq!(
        first_positive_or_zero_annotated(&[-1.0, 0.5, 3.0]),
        first_positive_or_zero(&[-1.0, 0.5, 3.0])
    );
    assert_eq!(
        first_positive_grad(&[-1.0, -2.0]).err(),
        Some(Missing::NoPositive)
    );
    let (value, gradient) = first_positive_grad(&[-1.0, 0.5, 3.0]).unwrap();
    assert_eq!(value, 0.75);
    assert_eq!(gradient, vec![0.0, 3.0, 0.25]);
}
