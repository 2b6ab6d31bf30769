//! Loops that only add to one float (`ad-macros/src/ir/eager_sums.rs`): each iteration's
//! backward code runs right after its forward code, into unit adjoints the backward sweep
//! scales by the sum's cotangent. Each function is checked against forward mode, central
//! differences and the dot-product identity at random cotangents (so the scaling is tested,
//! not only a cotangent of one). The functions the pass must leave alone (a sum read in the
//! loop, a scratch buffer read before it is written, or after the loop, two sums, an early
//! exit) are checked the same way: what matters is that every one is right.

// The loops index as numerical code does.
#![allow(clippy::needless_range_loop)]

mod common;

use ad_runtime::{forward, reverse, Differentiable};
use common::{check_slice_function_at_random_points as check, check_user_type1, Rng};
use nalgebra::{DVector, Vector2};

/// The simplest: a sum of terms of the parameters, then a function of the sum.
#[forward]
#[reverse]
fn sum_of_terms(p: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..p.len() {
        s += p[0] * p[i] * p[i] + p[1].sin();
    }
    (0.5 * s).exp()
}

/// ADBench's GMM in small: scratch buffers declared before the loop, written in full before
/// they are read in each iteration (`centered`, `transformed`, `main`), a triangular loop
/// with a counter, values and a float parameter from before the loop, a call whose pullback
/// runs in the iteration.
#[forward]
#[reverse]
fn mixture(p: &[f64]) -> f64 {
    let (d, k) = (2, 3);
    let n = p.len() - 8;
    let scale = p[0] * p[0] + 1.0;
    let mut diagonal = vec![0.0; d];
    for j in 0..d {
        diagonal[j] = p[1 + j].exp();
    }
    let mut centered = vec![0.0; d];
    let mut transformed = vec![0.0; d];
    let mut main = vec![0.0; k];
    let mut total = 0.0;
    for i in 0..n {
        for c in 0..k {
            for j in 0..d {
                centered[j] = p[8 + i] - p[3 + c + j];
            }
            for j in 0..d {
                transformed[j] = diagonal[j] * centered[j];
            }
            let mut l = 6;
            for a in 0..d {
                for b in (a + 1)..d {
                    transformed[b] += p[l] * centered[a];
                    l += 1;
                }
            }
            let mut norm = 0.0;
            for j in 0..d {
                norm += transformed[j] * transformed[j];
            }
            main[c] = p[7] - scale * norm;
        }
        total += log_sum_exp(&main);
    }
    total * 0.25
}

#[forward]
#[reverse]
fn log_sum_exp(v: &[f64]) -> f64 {
    let mut largest = v[0];
    for e in v {
        if *e > largest {
            largest = *e;
        }
    }
    let mut sum = 0.0;
    for e in v {
        sum += (e - largest).exp();
    }
    largest + sum.ln()
}

/// Two summing loops in a row, reading the same parameters (each has its own units), one of
/// them subtracting, and a scratch element written and read at one index.
#[forward]
#[reverse]
fn two_sums(p: &[f64]) -> f64 {
    let mut work = [0.0; 2];
    let mut first = 0.0;
    for i in 0..p.len() {
        work[1] = p[i] * p[0];
        first += work[1].cos();
    }
    let mut second: f64 = 1.0;
    for i in 1..p.len() {
        second -= p[i - 1] * p[i];
    }
    first * second
}

/// Units that are the real adjoints, scaled in place: the parameter is read before the loop
/// (whose contribution comes after the scaling, in the backward sweep) and in it, the sized
/// buffer only in it; the vector `q` is read after it, so it gets a unit of its own.
#[forward]
#[reverse]
fn in_place_units(p: &[f64], q: &[f64]) -> f64 {
    let before = p[0] * 3.0;
    let mut weights = vec![0.0; p.len()];
    for j in 0..p.len() {
        weights[j] = q[j].exp();
    }
    let mut s = 0.0;
    for i in 0..p.len() {
        s += weights[i] * p[i] * p[i] + q[0];
    }
    (s * before).sin() + q[1]
}

fn in_place_units_of_one(v: &[f64]) -> f64 {
    in_place_units(&v[..3], &v[3..])
}

fn in_place_units_jvp_of_one(v: &[f64], t: &[f64]) -> (f64, f64) {
    in_place_units_jvp(&v[..3], &v[3..], &t[..3], &t[3..])
}

fn in_place_units_vjp_of_one(v: &[f64], cotangent: f64) -> (f64, Vec<f64>) {
    let (value, (dp, dq)) = in_place_units_vjp(&v[..3], &v[3..], cotangent);
    (value, [dp, dq].concat())
}

/// Not for the pass: the sum is read in the loop (`s * 0.5`), so each iteration's cotangent
/// differs.
#[forward]
#[reverse]
fn sum_read_in_loop(p: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..p.len() {
        s = s * 0.5 + p[i] * p[i];
    }
    s
}

/// Not for the pass: the buffer carries a value from one iteration into the next (`c[0]` is
/// read before it is written).
#[forward]
#[reverse]
fn carried_buffer(p: &[f64]) -> f64 {
    let mut c = [1.0; 2];
    let mut s = 0.0;
    for i in 0..p.len() {
        s += c[0] * p[i];
        for j in 0..2 {
            c[j] = p[i] * (j as f64 + 1.0);
        }
    }
    s
}

/// Not for the pass: the element read (`c[j + 1]`) is not the one written, and the buffer is
/// read after the loop.
#[forward]
#[reverse]
fn shifted_and_read_after(p: &[f64]) -> f64 {
    let mut c = [0.5; 3];
    let mut s = 0.0;
    for i in 0..p.len() {
        for j in 0..2 {
            s += c[j + 1] * p[i];
            c[j] = p[i].sin();
        }
    }
    s + c[0]
}

/// Not for the pass: two sums, and a loop left early.
#[forward]
#[reverse]
fn two_totals_and_break(p: &[f64]) -> f64 {
    let (mut a, mut b) = (0.0, 0.0);
    for i in 0..p.len() {
        a += p[i];
        b += p[i] * p[i];
    }
    let mut c = 0.0;
    for i in 0..p.len() {
        if p[i] > 1.5 {
            break;
        }
        c += p[i].exp();
    }
    a * b + c
}

#[test]
fn summing_loops_run_their_backward_code_eagerly() {
    check(sum_of_terms, sum_of_terms_jvp, sum_of_terms_vjp, 6, 1);
    check(mixture, mixture_jvp, mixture_vjp, 12, 2);
    check(two_sums, two_sums_jvp, two_sums_vjp, 5, 3);
    check(
        in_place_units_of_one,
        in_place_units_jvp_of_one,
        in_place_units_vjp_of_one,
        6,
        9,
    );
}

#[test]
fn loops_the_pass_leaves_alone_are_right_too() {
    check(
        sum_read_in_loop,
        sum_read_in_loop_jvp,
        sum_read_in_loop_vjp,
        5,
        4,
    );
    check(carried_buffer, carried_buffer_jvp, carried_buffer_vjp, 5, 5);
    check(
        shifted_and_read_after,
        shifted_and_read_after_jvp,
        shifted_and_read_after_vjp,
        5,
        6,
    );
    check(
        two_totals_and_break,
        two_totals_and_break_jvp,
        two_totals_and_break_vjp,
        6,
        7,
    );
}

/// The Hessian through a summing loop (forward over the reverse companion, whose units and
/// factor are dual numbers), against central differences of the gradient.
#[test]
fn hessians_through_summing_loops() {
    let p = [
        0.3, -0.2, 0.7, 0.1, -0.4, 0.2, 0.5, -0.1, 0.6, -0.3, 0.8, 0.05,
    ];
    let (_, gradient, hessian) = mixture_hessian(&p);
    approx::assert_relative_eq!(
        gradient.as_slice(),
        mixture_grad(&p).1.as_slice(),
        max_relative = 1e-12
    );
    let h = 1e-5;
    for k in 0..p.len() {
        let moved = |s: f64| {
            let mut q = p;
            q[k] += s;
            mixture_grad(&q).1
        };
        let (plus, minus) = (moved(h), moved(-h));
        for j in 0..p.len() {
            approx::assert_relative_eq!(
                hessian[j][k],
                (plus[j] - minus[j]) / (2.0 * h),
                epsilon = 1e-6,
                max_relative = 1e-5
            );
        }
    }
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Line {
    pub slope: f64,
    pub offset: f64,
}

/// A derived type read in a summing loop: its unit adjoint is scaled through its flat form.
#[forward]
#[reverse]
fn squared_residuals(#[grad] line: &Line) -> f64 {
    let xs = [0.5, 1.0, 1.5, 2.0];
    let mut total = 0.0;
    for i in 0..xs.len() {
        let r = line.slope * xs[i] + line.offset - xs[i] * xs[i];
        total += r * r;
    }
    total.sqrt()
}

#[test]
fn derived_types_read_in_summing_loops() {
    let mut rng = Rng::new(8);
    for line in [
        Line {
            slope: 0.7,
            offset: -0.2,
        },
        Line {
            slope: -1.3,
            offset: 0.4,
        },
    ] {
        check_user_type1(
            squared_residuals,
            squared_residuals_jvp,
            squared_residuals_vjp,
            &line,
            &mut rng,
        );
    }
}

// ----- everyday code in summing loops: closures, iterators, nalgebra, calls, tuples -----

#[forward]
#[reverse]
fn with_closure(p: &[f64]) -> f64 {
    let k = p[0] * 2.0;
    let f = |x: f64| x * k;
    let mut s = 0.0;
    for i in 0..p.len() {
        s += f(p[i]).sin();
    }
    s
}

#[forward]
#[reverse]
fn enumerated(p: &[f64]) -> f64 {
    let w = p[1].cos();
    let mut s = 0.0;
    for (i, x) in p.iter().enumerate() {
        s += w * x * (i as f64 + 1.0);
    }
    s * s
}

#[forward]
#[reverse]
fn vectors(p: &[f64]) -> f64 {
    let a = Vector2::new(p[0], p[1]);
    let mut s = 0.0;
    for i in 0..p.len() {
        let b = Vector2::new(p[i], p[i] * p[i]);
        s += a.dot(&b);
    }
    s
}

#[forward]
#[reverse]
#[allow(clippy::ptr_arg)]
fn fill(buffer: &mut Vec<f64>, x: f64) {
    for j in 0..buffer.len() {
        buffer[j] = x * (j as f64 + 1.0);
    }
}

#[forward]
#[reverse]
fn buffer_filled_by_call(p: &[f64]) -> f64 {
    let mut b = vec![0.0; 3];
    let mut s = 0.0;
    for i in 0..p.len() {
        fill(&mut b, p[i]);
        s += b[2] * b[1];
    }
    s
}

#[forward]
#[reverse]
fn local_buffer_in_loop(p: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..p.len() {
        let mut b = vec![0.0; 3];
        fill(&mut b, p[i]);
        s += b[2] * b[1] + p[0];
    }
    s
}

#[forward]
#[reverse]
fn iterator_sum_in_loop(p: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        let t: f64 = p.iter().map(|x| x * p[i]).sum();
        s += t.tanh();
    }
    s
}

#[forward]
#[reverse]
fn tuple_and_option(p: &[f64]) -> f64 {
    let pair = (p[0], p[1] * 2.0);
    let maybe = if p[2] > 0.0 { Some(p[2]) } else { None };
    let mut s = 0.0;
    for i in 0..p.len() {
        s += pair.0 * p[i] + pair.1 + maybe.unwrap_or(1.0) * p[i];
    }
    s
}

/// A vector parameter read only in the summing loop: its adjoint is the loop's unit, scaled in
/// place (`ScaledAdjoint::scale` of a matrix) by the cotangent of `s`, here not one.
#[forward]
#[reverse]
fn vector_parameter_in_place(a: &DVector<f64>, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let v = DVector::from_vec(vec![x[i], x[i] * x[i]]);
        s += a.dot(&v);
    }
    (0.5 * s).sin()
}

fn vector_parameter_of_one(p: &[f64]) -> f64 {
    vector_parameter_in_place(&DVector::from_column_slice(&p[..2]), &p[2..])
}

fn vector_parameter_jvp_of_one(p: &[f64], t: &[f64]) -> (f64, f64) {
    vector_parameter_in_place_jvp(
        &DVector::from_column_slice(&p[..2]),
        &p[2..],
        &DVector::from_column_slice(&t[..2]),
        &t[2..],
    )
}

fn vector_parameter_vjp_of_one(p: &[f64], cotangent: f64) -> (f64, Vec<f64>) {
    let (value, (da, dx)) =
        vector_parameter_in_place_vjp(&DVector::from_column_slice(&p[..2]), &p[2..], cotangent);
    (value, [da.as_slice(), &dx].concat())
}

#[test]
fn everyday_code_in_summing_loops() {
    check(
        vector_parameter_of_one,
        vector_parameter_jvp_of_one,
        vector_parameter_vjp_of_one,
        5,
        18,
    );
    check(with_closure, with_closure_jvp, with_closure_vjp, 5, 11);
    check(enumerated, enumerated_jvp, enumerated_vjp, 5, 12);
    check(vectors, vectors_jvp, vectors_vjp, 5, 13);
    // A buffer from before the loop that a call fills: not for the pass (what the callee
    // writes is not known to cover what is read); one declared in the loop is its own.
    check(
        buffer_filled_by_call,
        buffer_filled_by_call_jvp,
        buffer_filled_by_call_vjp,
        5,
        14,
    );
    check(
        local_buffer_in_loop,
        local_buffer_in_loop_jvp,
        local_buffer_in_loop_vjp,
        5,
        15,
    );
    check(
        iterator_sum_in_loop,
        iterator_sum_in_loop_jvp,
        iterator_sum_in_loop_vjp,
        5,
        16,
    );
    check(
        tuple_and_option,
        tuple_and_option_jvp,
        tuple_and_option_vjp,
        5,
        17,
    );
}

// ----- found by review -----

#[forward]
#[reverse]
fn sum_of_squares(v: &[f64]) -> f64 {
    v[0] * v[0] + v[1] * v[1]
}

/// A reference to `q` taken before the loop and passed to a call after it: the call adds its
/// adjoint straight to `q`'s shadow, so `q`'s shadow is not the loop's unit.
#[forward]
#[reverse]
fn borrowed_before_read_after(x: &[f64]) -> f64 {
    let mut q = vec![0.0; 2];
    q[0] = x[0].exp();
    q[1] = x[1].exp();
    let r = &q;
    let mut s = 0.0;
    for i in 0..2 {
        s += q[i];
    }
    3.0 * s + sum_of_squares(r)
}

/// A scratch variable that carries a derivative which never reaches the result (`t` only
/// decides a branch): no unit adjoint for it.
#[forward]
#[reverse]
#[allow(unused_assignments)]
fn scratch_without_adjoint(p: &[f64]) -> f64 {
    let mut t = 0.0;
    let mut s = 0.0;
    for i in 0..p.len() {
        t = p[i] * 2.0;
        if t > 1.0 {
            s += p[i] * p[i];
        }
    }
    s
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Poly {
    pub c: Vec<f64>,
    pub s: f64,
}

/// A derived value built in the body and read in the loop: its unit grows where the loop
/// reaches it, while its real adjoint is still a zero without shape.
#[forward]
#[reverse]
fn derived_local(x: &[f64]) -> f64 {
    let poly = Poly {
        c: x.to_vec(),
        s: x[0] * 0.5,
    };
    let mut acc = 0.0;
    for i in 0..poly.c.len() {
        acc += poly.c[i] * poly.s;
    }
    acc
}

/// A reference in an eager iteration whose pullback reads it, then a write to what it
/// borrowed: the reference is kept where it is made, not read at the end of the iteration.
#[forward]
#[reverse]
fn reference_then_write(x: &[f64]) -> f64 {
    let w = x[0];
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut c = [x[i], w];
        let r = &c[0];
        s += r * w;
        c[0] = c[1] * x[i];
        s += c[0];
    }
    s
}

/// A field assigned, then moved out by `mem::take`: its read is not made a copy of the value
/// assigned (which the assignment moved).
#[forward]
#[reverse]
fn field_taken(x: &[f64]) -> f64 {
    let mut poly = Poly {
        c: vec![0.0; 2],
        s: x[0],
    };
    poly.c = x.to_vec();
    let c = std::mem::take(&mut poly.c);
    c[1] * poly.s + c[0]
}

#[test]
fn review_findings() {
    check(
        reference_then_write,
        reference_then_write_jvp,
        reference_then_write_vjp,
        4,
        24,
    );
    check(field_taken, field_taken_jvp, field_taken_vjp, 3, 25);
    check(
        borrowed_before_read_after,
        borrowed_before_read_after_jvp,
        borrowed_before_read_after_vjp,
        2,
        21,
    );
    check(
        scratch_without_adjoint,
        scratch_without_adjoint_jvp,
        scratch_without_adjoint_vjp,
        6,
        22,
    );
    check(derived_local, derived_local_jvp, derived_local_vjp, 4, 23);
}

#[forward]
#[reverse]
fn sum_times(w: &[f64], t: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * w[i];
    }
    s * t
}

/// Forward over reverse at `t = 1`: the factor that scales `w`'s adjoint in place has the
/// value one and a nonzero tangent, and must still be applied.
#[test]
fn a_factor_of_value_one_with_a_tangent_still_scales() {
    let w = [0.3, -0.7, 1.1];
    let (_, gradient, hessian) = sum_times_hessian(&w, 1.0);
    for i in 0..3 {
        approx::assert_relative_eq!(gradient[i], 2.0 * w[i], max_relative = 1e-12);
        approx::assert_relative_eq!(hessian[i][3], 2.0 * w[i], max_relative = 1e-12);
        approx::assert_relative_eq!(hessian[3][i], 2.0 * w[i], max_relative = 1e-12);
        approx::assert_relative_eq!(hessian[i][i], 2.0, max_relative = 1e-12);
    }
}
