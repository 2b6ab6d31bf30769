//! Functions returning `Result<T, E>` in both modes: the `Ok` value is differentiated, the
//! error is data. `f_jvp` returns `Ok((value, tangent))` or the error, `f_vjp` takes the
//! cotangent of the `Ok` value and returns `Ok((value, adjoints))` or the error, `f_grad` of a
//! scalar `Ok` value returns `Ok((value, gradient))`. `?` on results (of differentiated
//! functions and of plain ones on data, the error converted by `From`), early `return Err(..)`,
//! and callers over `f64` unwrapping them. Checked against central differences, forward
//! against reverse along every basis direction, and the dot-product identity, at random points.

mod common;

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;
use common::{check_slice_function_at_random_points, random_vector, Rng};

/// A norm scaled by the first entry, refusing empty and huge inputs.
#[forward]
#[reverse]
fn scaled_norm(x: &[f64]) -> Result<f64, String> {
    if x.is_empty() {
        return Err("empty".into());
    }
    let s: f64 = x.iter().map(|v| v * v).sum();
    if s > 1e6 {
        return Err(format!("too large: {s}"));
    }
    Ok(s.sqrt() * x[0])
}

/// A plain check on data, whose error converts from `&str`.
fn checked_len(n: usize) -> Result<usize, &'static str> {
    match n {
        0 => Err("no data"),
        n => Ok(n),
    }
}

/// `?` on a plain function's result and on a differentiated one's, in a loop.
#[forward]
#[reverse]
fn chained(x: &[f64]) -> Result<f64, String> {
    let n = checked_len(x.len())?;
    let mut total = 0.0;
    for i in 0..n - 1 {
        let part = scaled_norm(&x[i..i + 2])?;
        total += part * x[i + 1].sin();
    }
    Ok(total / n as f64)
}

/// A vector of values, or an error.
#[forward]
#[reverse]
fn softmax(x: &[f64]) -> Result<Vec<f64>, String> {
    let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    if !m.is_finite() {
        return Err("not finite".to_string());
    }
    let e: Vec<f64> = x.iter().map(|v| (v - m).exp()).collect();
    let total: f64 = e.iter().sum();
    Ok(e.iter().map(|v| v / total).collect())
}

/// A caller over `f64` unwrapping results.
#[forward]
#[reverse]
fn unwrapping(x: &[f64]) -> f64 {
    let a = chained(x).unwrap();
    let p = softmax(x).expect("finite inputs");
    let b = scaled_norm(&x[..0]).unwrap_or(0.5) + scaled_norm(&x[1..]).unwrap_or(0.0);
    a * p[0] + p[1] + b * x[2]
}

/// A `Result` built in the body and matched, over `f64`.
#[forward]
#[reverse]
fn local_result(x: &[f64]) -> f64 {
    let r: Result<f64, ()> = if x[0] > 0.0 { Ok(x[0] * x[1]) } else { Err(()) };
    let s = match r {
        Ok(v) => v.sin(),
        Err(()) => x[1],
    };
    let t = if let Ok(v) = r { v * x[2] } else { x[2] };
    s * x[2] + t
}

/// An argmin-style cost function: a method of a data type returning a `Result`.
struct Rosenbrock {
    a: f64,
}

impl Rosenbrock {
    #[forward]
    #[reverse]
    fn cost(&self, p: &[f64]) -> Result<f64, String> {
        if p.len() < 2 {
            return Err("need two parameters".into());
        }
        Ok((self.a - p[0]).powi(2) + 100.0 * (p[1] - p[0] * p[0]).powi(2))
    }
}

const ROSENBROCK: Rosenbrock = Rosenbrock { a: 1.0 };

/// A checkpointed loop inside a fallible function.
#[forward]
#[reverse]
fn checkpointed(x: &[f64]) -> Result<f64, String> {
    let mut s = x[0];
    let (k, c) = (x[1], x[2]);
    #[checkpoint]
    for _ in 0..4 {
        s = s.sin() * k + c;
    }
    if !s.is_finite() {
        return Err("not finite".into());
    }
    Ok(s)
}

fn ok<T, E: std::fmt::Debug>(result: Result<T, E>) -> T {
    result.expect("an Ok value")
}

fn chained_value(x: &[f64]) -> f64 {
    ok(chained(x))
}
fn chained_jvp_ok(x: &[f64], t: &[f64]) -> (f64, f64) {
    ok(chained_jvp(x, t))
}
fn chained_vjp_ok(x: &[f64], w: f64) -> (f64, Vec<f64>) {
    ok(chained_vjp(x, w))
}

#[test]
fn fallible_results_three_ways() {
    check_slice_function_at_random_points(chained_value, chained_jvp_ok, chained_vjp_ok, 4, 1);
    check_slice_function_at_random_points(unwrapping, unwrapping_jvp, unwrapping_vjp, 3, 2);
    check_slice_function_at_random_points(local_result, local_result_jvp, local_result_vjp, 3, 4);
    check_slice_function_at_random_points(
        |p| ok(ROSENBROCK.cost(p)),
        |p, t| ok(ROSENBROCK.cost_jvp(p, t)),
        |p, w| ok(ROSENBROCK.cost_vjp(p, w)),
        2,
        5,
    );
    check_slice_function_at_random_points(
        |x| ok(checkpointed(x)),
        |x, t| ok(checkpointed_jvp(x, t)),
        |x, w| ok(checkpointed_vjp(x, w)),
        3,
        6,
    );
    assert_eq!(
        ROSENBROCK.cost_grad(&[0.5]),
        Err("need two parameters".to_string())
    );
}

#[test]
fn a_vector_result_meets_the_dot_product_identity() {
    let mut rng = Rng::new(3);
    for _ in 0..5 {
        let x = random_vector(&mut rng, 4);
        let t = random_vector(&mut rng, 4);
        let w = random_vector(&mut rng, 4);
        let (value, tangent) = ok(softmax_jvp(&x, &t));
        let (reverse_value, adjoint) = ok(softmax_vjp(&x, w.clone()));
        assert_eq!(value, reverse_value);
        assert_eq!(value, ok(softmax(&x)));
        let forward: f64 = tangent.iter().zip(&w).map(|(a, b)| a * b).sum();
        let reverse: f64 = adjoint.iter().zip(&t).map(|(a, b)| a * b).sum();
        assert_relative_eq!(forward, reverse, max_relative = 1e-12, epsilon = 1e-14);
    }
}

#[test]
fn the_gradient_is_exact_and_errors_pass_through() {
    let x = [0.6, -0.8];
    let (value, gradient) = scaled_norm_grad(&x).unwrap();
    // x0 |x|: d/dx0 = |x| + x0^2/|x|, d/dx1 = x0 x1/|x| (|x| = 1).
    assert_relative_eq!(value, 0.6, max_relative = 1e-15);
    assert_relative_eq!(gradient[0], 1.0 + 0.36, max_relative = 1e-15);
    assert_relative_eq!(gradient[1], -0.48, max_relative = 1e-15);
    assert_eq!(scaled_norm_grad(&[]), Err("empty".to_string()));
    assert_eq!(scaled_norm_jvp(&[], &[]), Err("empty".to_string()));
    assert_eq!(
        scaled_norm_vjp(&[2e3, 0.0], 1.0),
        Err("too large: 4000000".to_string())
    );
    // The plain function's error, converted by `?`.
    assert_eq!(chained_grad(&[]), Err("no data".to_string()));
    assert_eq!(chained_jvp(&[], &[]), Err("no data".to_string()));
    assert_eq!(
        softmax_vjp(&[f64::INFINITY, 0.0], vec![1.0, 0.0]),
        Err("not finite".to_string())
    );
}

/// The combinators of `Result` on a differentiated call's result, as statrs writes
/// `checked_beta(a, b).map(|x| x.exp())`.
#[derive(Debug, PartialEq)]
pub enum DomainError {
    NotPositive,
}

#[forward]
#[reverse]
fn checked_ln(a: f64) -> Result<f64, DomainError> {
    if a <= 0.0 {
        return Err(DomainError::NotPositive);
    }
    Ok(a.ln())
}

#[forward]
#[reverse]
fn result_combinators(x: &[f64]) -> f64 {
    let mapped = checked_ln(x[0]).map(|l| l.exp() * x[1]);
    let chained = checked_ln(x[1]).and_then(|l| checked_ln(l * l + 2.0));
    let defaulted = checked_ln(x[2]).unwrap_or(x[0] * x[2]);
    let recovered = checked_ln(x[0] - 1.0).unwrap_or_else(|_| x[1].sin());
    let relabelled = checked_ln(x[2]).map_err(|_| "not positive").unwrap_or(0.5);
    let kept = checked_ln(x[1] + 3.0).ok().unwrap_or(0.0);
    mapped.unwrap_or(0.0) + chained.unwrap_or(1.0) + defaulted + recovered + relabelled + kept
}

#[test]
fn result_combinators_on_differentiated_calls() {
    // Both arms of each combinator: random points of either sign.
    check_slice_function_at_random_points(
        result_combinators,
        result_combinators_jvp,
        result_combinators_vjp,
        3,
        77,
    );
    let (value, gradient) = result_combinators_grad(&[2.0, 1.5, -1.0]);
    assert_eq!(value, result_combinators(&[2.0, 1.5, -1.0]));
    // d/dx0: mapped (x0 x1 -> x1), defaulted (x0 x2 -> x2), recovered (ln(x0 - 1) -> 1 / (x0 - 1)).
    assert_relative_eq!(gradient[0], 1.5 - 1.0 + 1.0, max_relative = 1e-14);
}
