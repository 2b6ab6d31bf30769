//! Everyday numerical shapes in both modes, as people write them: closures without typed
//! parameters, `reduce`, `max_by` with `total_cmp`, zips of zips, `Vec::with_capacity`,
//! `collect` inside an expression and iterated on, the float methods (`hypot`, `atan2`,
//! `mul_add`, `clamp`, `exp_m1`, `ln_1p`, `cbrt`, `recip`, `sinh`, `signum`), sample
//! statistics, `rev().enumerate()`, a sorted copy's median, a loop left by `return` on a
//! tolerance, tuple results destructured by the caller, a matrix-vector product, a softmax
//! cross-entropy, and the spellings of performance-minded code: `for_each`, `extend` with a
//! chain, `map(f64::exp)`, `std::iter::zip`, `collect::<Vec<_>>()`, iterators kept in
//! variables, `scan` (running sums, discounting). Each is checked at random points against
//! central differences, reverse against forward, and by the dot-product identity.
#![allow(clippy::needless_range_loop)] // written as numerical code writes it

mod common;

use ad_runtime::{forward, reverse};
use common::{check_gradient, check_slice_function_at_random_points};

#[forward]
#[reverse]
fn untyped_closures(x: &[f64]) -> f64 {
    let k = x[4] * 0.5;
    let sq = |v| v * v;
    let scale = |v: f64| v * k;
    sq(x[0]) + scale(x[1]) + sq(x[2] * x[3])
}

#[forward]
#[reverse]
fn reduce_max(x: &[f64]) -> f64 {
    let m = x.iter().copied().reduce(f64::max).unwrap();
    let s = x
        .iter()
        .map(|v| v.sin())
        .reduce(|a, b| a * 0.5 + b)
        .unwrap_or(0.0);
    m * x[0] + s
}

#[forward]
#[reverse]
fn total_cmp_max(x: &[f64]) -> f64 {
    let m = x.iter().max_by(|a, b| a.total_cmp(b)).unwrap();
    m * x[0]
}

#[forward]
#[reverse]
fn nested_zip(x: &[f64], y: &[f64], z: &[f64]) -> f64 {
    x.iter()
        .zip(y.iter())
        .zip(z.iter())
        .map(|((a, b), c)| a * b + c)
        .sum()
}

#[forward]
#[reverse]
fn with_capacity(x: &[f64]) -> f64 {
    let mut v = Vec::with_capacity(x.len());
    for a in x {
        v.push(a.sin());
    }
    v.iter().sum::<f64>() / v.len() as f64
}

#[forward]
#[reverse]
fn collect_expr(x: &[f64]) -> f64 {
    let n = x.len();
    let d: Vec<f64> = (0..n).map(|i| x[i] * 2.0).collect();
    x.iter()
        .map(|v| (v * v + 1.0).powf(1.5))
        .collect::<Vec<f64>>()
        .iter()
        .sum::<f64>()
        + d[0]
}

#[forward]
#[reverse]
fn math_fns(x: &[f64]) -> f64 {
    x[0].hypot(x[1])
        + x[0].atan2(x[1])
        + x[0].mul_add(x[1], x[2])
        + x[2].clamp(-1.0, 1.0)
        + x[1].exp_m1()
        + x[2].abs().ln_1p()
        + (x[0] + 3.0).cbrt()
        + (x[1] * x[1] + 0.5).recip()
        + x[0].sinh()
        + x[1].signum()
}

#[forward]
#[reverse]
fn sample_deviation(x: &[f64]) -> f64 {
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (x.len() - 1) as f64;
    var.sqrt()
}

#[forward]
#[reverse]
fn rev_enumerate(x: &[f64]) -> f64 {
    let mut acc = 0.0;
    for (i, v) in x.iter().rev().enumerate() {
        acc += v * (i as f64 + 1.0);
    }
    acc
}

#[forward]
#[reverse]
fn sorted_median(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

#[forward]
#[reverse]
fn positive_roots(x: &[f64]) -> f64 {
    let tol = 1e-12;
    let mut y = 1.0;
    for _ in 0..100 {
        let next = 0.5 * (y + (x[0] * x[0] + x[1].exp()) / y);
        if (next - y).abs() < tol {
            return next;
        }
        y = next;
    }
    y
}

#[forward]
#[reverse]
fn standardized_first(x: &[f64]) -> f64 {
    let (m, s) = stats(x);
    (x[0] - m) / s
}

#[forward]
#[reverse]
fn stats(x: &[f64]) -> (f64, f64) {
    let m = x.iter().sum::<f64>() / x.len() as f64;
    let s = (x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / x.len() as f64).sqrt();
    (m, s)
}

#[forward]
#[reverse]
fn matvec(a: &[Vec<f64>], x: &[f64]) -> Vec<f64> {
    a.iter()
        .map(|row| row.iter().zip(x).map(|(r, v)| r * v).sum())
        .collect()
}

#[forward]
#[reverse]
fn softmax_ce(logits: &[f64], target: usize) -> f64 {
    let m = logits.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let lse = m + logits.iter().map(|l| (l - m).exp()).sum::<f64>().ln();
    lse - logits[target]
}

#[forward]
#[reverse]
fn collect_infer(x: &[f64]) -> f64 {
    let e = x.iter().map(|v| v.exp()).collect::<Vec<_>>();
    e[0] + e[1]
}

#[forward]
#[reverse]
fn zip_fn(a: &[f64], b: &[f64]) -> f64 {
    std::iter::zip(a, b).map(|(x, y)| x * y).sum()
}

#[forward]
#[reverse]
fn extend_iter(x: &[f64]) -> f64 {
    let mut out = Vec::new();
    out.extend(x.iter().map(|v| v * 2.0));
    out[0] * out[1]
}

#[forward]
#[reverse]
fn for_each_mut(x: &[f64], k: f64) -> f64 {
    let mut out = vec![1.0; x.len()];
    out.iter_mut().zip(x).for_each(|(o, v)| *o += v * k);
    out.iter().product()
}

#[forward]
#[reverse]
fn map_path(x: &[f64]) -> f64 {
    x.iter().copied().map(f64::exp).sum()
}

#[forward]
#[reverse]
fn enumerate_filter(x: &[f64]) -> f64 {
    x.iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
        .map(|(_, v)| v * v)
        .sum::<f64>()
}

#[forward]
#[reverse]
fn normalize(x: &[f64]) -> Vec<f64> {
    let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    x.iter().map(|v| v / norm).collect()
}

#[forward]
#[reverse]
fn max_abs(x: &[f64]) -> f64 {
    x.iter().map(|v| v.abs()).fold(0.0, f64::max)
}

#[forward]
#[reverse]
fn sum_iter_map_on_range(x: &[f64], w: &[f64]) -> f64 {
    (0..x.len()).map(|i| x[i] * w[i]).sum::<f64>()
}

#[forward]
#[reverse]
fn running_total(x: &[f64]) -> f64 {
    let mut acc = Vec::with_capacity(x.len());
    let mut s = 0.0;
    for v in x {
        s += v;
        acc.push(s);
    }
    *acc.last().unwrap()
}

#[forward]
#[reverse]
fn top_two(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.sort_by(|a, b| b.partial_cmp(a).unwrap());
    v.truncate(2);
    v.iter().sum()
}

#[forward]
#[reverse]
fn finite_terms(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in x {
        if v.is_finite() && !v.is_nan() && v.abs() > f64::EPSILON {
            s += (v * v).ln_1p().powf(1.5);
        }
    }
    s
}

#[forward]
#[reverse]
fn iter_var(x: &[f64], y: &[f64]) -> f64 {
    let pairs = x.iter().zip(y.iter());
    let squares = pairs.map(|(a, b)| (a - b) * (a - b));
    squares.sum::<f64>().sqrt()
}

#[forward]
#[reverse]
fn iter_var_loop(x: &[f64]) -> f64 {
    let items = x.iter().enumerate().skip(1);
    let mut s = 0.0;
    for (i, v) in items {
        s += v * i as f64;
    }
    s
}

#[forward]
#[reverse]
fn cumulative(x: &[f64]) -> f64 {
    let c: Vec<f64> = x
        .iter()
        .scan(0.0, |acc, &v| {
            *acc += v;
            Some(*acc)
        })
        .collect();
    c.iter().map(|v| v * v).sum()
}

#[forward]
#[reverse]
fn discounted(x: &[f64], gamma: f64) -> f64 {
    x.iter()
        .scan(1.0, |w, v| {
            let term = *w * v;
            *w *= gamma;
            Some(term)
        })
        .sum::<f64>()
}

#[test]
fn functions_of_one_slice() {
    let cases: [(common::Plain, common::Jvp, common::Vjp); 21] = [
        (cumulative, cumulative_jvp, cumulative_vjp),
        (iter_var_loop, iter_var_loop_jvp, iter_var_loop_vjp),
        (collect_infer, collect_infer_jvp, collect_infer_vjp),
        (extend_iter, extend_iter_jvp, extend_iter_vjp),
        (map_path, map_path_jvp, map_path_vjp),
        (enumerate_filter, enumerate_filter_jvp, enumerate_filter_vjp),
        (max_abs, max_abs_jvp, max_abs_vjp),
        (running_total, running_total_jvp, running_total_vjp),
        (top_two, top_two_jvp, top_two_vjp),
        (finite_terms, finite_terms_jvp, finite_terms_vjp),
        (reduce_max, reduce_max_jvp, reduce_max_vjp),
        (total_cmp_max, total_cmp_max_jvp, total_cmp_max_vjp),
        (with_capacity, with_capacity_jvp, with_capacity_vjp),
        (collect_expr, collect_expr_jvp, collect_expr_vjp),
        (math_fns, math_fns_jvp, math_fns_vjp),
        (sample_deviation, sample_deviation_jvp, sample_deviation_vjp),
        (rev_enumerate, rev_enumerate_jvp, rev_enumerate_vjp),
        (sorted_median, sorted_median_jvp, sorted_median_vjp),
        (
            standardized_first,
            standardized_first_jvp,
            standardized_first_vjp,
        ),
        (positive_roots, positive_roots_jvp, positive_roots_vjp),
        (untyped_closures, untyped_closures_jvp, untyped_closures_vjp),
    ];
    for (seed, (plain, jvp, vjp)) in cases.into_iter().enumerate() {
        check_slice_function_at_random_points(plain, jvp, vjp, 5, seed as u64 + 1);
    }
}

#[test]
fn a_zip_of_zips() {
    check_gradient(
        9,
        |x| nested_zip(&x[..3], &x[3..6], &x[6..]),
        |x, t| nested_zip_jvp(&x[..3], &x[3..6], &x[6..], &t[..3], &t[3..6], &t[6..]),
        |x, c| {
            let (value, (a, b, d)) = nested_zip_vjp(&x[..3], &x[3..6], &x[6..], c);
            (value, [a, b, d].concat())
        },
    );
}

#[test]
fn a_cross_entropy_of_a_softmax() {
    for target in 0..4 {
        check_gradient(
            4,
            |x| softmax_ce(x, target),
            |x, t| softmax_ce_jvp(x, target, t),
            |x, c| softmax_ce_vjp(x, target, c),
        );
    }
}

#[test]
fn a_matrix_vector_product_by_the_dot_product_identity() {
    let weights = [0.3, -1.2, 2.0];
    // <c, J t> of the product, as a function of the matrix and the vector flattened.
    let rows = |x: &[f64]| vec![x[0..3].to_vec(), x[3..6].to_vec()];
    check_gradient(
        9,
        |x| {
            let y = matvec(&rows(x), &x[6..]);
            y[0] * weights[0] + y[1] * weights[1]
        },
        |x, t| {
            let (y, dy) = matvec_jvp(&rows(x), &x[6..], &rows(t), &t[6..]);
            (
                y[0] * weights[0] + y[1] * weights[1],
                dy[0] * weights[0] + dy[1] * weights[1],
            )
        },
        |x, c| {
            let cotangent = vec![c * weights[0], c * weights[1]];
            let (y, (da, dx)) = matvec_vjp(&rows(x), &x[6..], cotangent);
            let mut adjoint = da.concat();
            adjoint.extend(dx);
            (y[0] * weights[0] + y[1] * weights[1], adjoint)
        },
    );
}

#[test]
fn iterator_spellings_over_two_slices() {
    check_gradient(
        6,
        |x| zip_fn(&x[..3], &x[3..]),
        |x, t| zip_fn_jvp(&x[..3], &x[3..], &t[..3], &t[3..]),
        |x, c| {
            let (value, (a, b)) = zip_fn_vjp(&x[..3], &x[3..], c);
            (value, [a, b].concat())
        },
    );
    check_gradient(
        4,
        |x| discounted(&x[..3], x[3]),
        |x, t| discounted_jvp(&x[..3], x[3], &t[..3], t[3]),
        |x, c| {
            let (value, (dx, dgamma)) = discounted_vjp(&x[..3], x[3], c);
            let mut adjoint = dx;
            adjoint.push(dgamma);
            (value, adjoint)
        },
    );
    check_gradient(
        6,
        |x| iter_var(&x[..3], &x[3..]),
        |x, t| iter_var_jvp(&x[..3], &x[3..], &t[..3], &t[3..]),
        |x, c| {
            let (value, (a, b)) = iter_var_vjp(&x[..3], &x[3..], c);
            (value, [a, b].concat())
        },
    );
    check_gradient(
        6,
        |x| sum_iter_map_on_range(&x[..3], &x[3..]),
        |x, t| sum_iter_map_on_range_jvp(&x[..3], &x[3..], &t[..3], &t[3..]),
        |x, c| {
            let (value, (a, b)) = sum_iter_map_on_range_vjp(&x[..3], &x[3..], c);
            (value, [a, b].concat())
        },
    );
    check_gradient(
        4,
        |x| for_each_mut(&x[..3], x[3]),
        |x, t| for_each_mut_jvp(&x[..3], x[3], &t[..3], t[3]),
        |x, c| {
            let (value, (dx, dk)) = for_each_mut_vjp(&x[..3], x[3], c);
            let mut adjoint = dx;
            adjoint.push(dk);
            (value, adjoint)
        },
    );
    // <w, normalize(x)>.
    let w = [0.5, -1.5, 2.0];
    let weigh = |y: &[f64]| y.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>();
    check_gradient(
        3,
        |x| weigh(&normalize(x)),
        |x, t| {
            let (y, dy) = normalize_jvp(x, t);
            (weigh(&y), weigh(&dy))
        },
        |x, c| {
            let (y, dx) = normalize_vjp(x, w.iter().map(|w| w * c).collect());
            (weigh(&y), dx)
        },
    );
}

/// A variable declared without a value and assigned on every path, after an early `return`
/// (puruspe's `invbetai` writes its first guess so).
#[forward]
#[reverse]
fn declared_then_assigned(x: &[f64]) -> f64 {
    let mut guess: f64;
    let steps: usize;
    if x[0] <= -1.5 {
        return x[1];
    } else if x[1] >= 0.0 {
        guess = x[0] * x[1];
        steps = 2;
    } else {
        guess = x[0].exp();
        steps = 3;
    }
    for _ in 0..steps {
        guess = 0.5 * (guess + x[2] * x[2] / (1.0 + guess.abs()));
    }
    guess * x[2]
}

#[test]
fn declared_then_assigned_after_an_early_return() {
    check_gradient(
        3,
        declared_then_assigned,
        declared_then_assigned_jvp,
        declared_then_assigned_vjp,
    );
    assert_eq!(
        declared_then_assigned_grad(&[-2.0, 0.5, 1.0]).1,
        vec![0.0, 1.0, 0.0]
    );
}

/// `copysign` (puruspe's `gamma` returns `f64::INFINITY.copysign(z)` at the poles): `±1` in
/// the magnitude, `0` in the sign.
#[forward]
#[reverse]
fn signed_magnitudes(x: &[f64]) -> f64 {
    let m = x[0].copysign(x[1]);
    let unit = 1.0f64.copysign(x[2]);
    m * x[2] + unit * x[1] + f64::copysign(x[1] * x[1], x[0])
}

#[test]
fn copysign_three_ways() {
    check_gradient(
        3,
        signed_magnitudes,
        signed_magnitudes_jvp,
        signed_magnitudes_vjp,
    );
}

/// A closure parameter named as the slice it iterates (`w.iter().map(|w| w * w)`): the outer
/// `w` carries derivatives, so the sum does too (forward mode took it for data once).
#[forward]
#[reverse]
fn closure_parameter_shadows_its_slice(w: &[f64]) -> f64 {
    let penalty: f64 = w.iter().map(|w| w * w).sum();
    let waves: f64 = w.iter().map(|w| w.sin()).sum();
    penalty * waves
}

#[test]
fn a_closure_parameter_may_shadow_the_slice_it_maps() {
    check_slice_function_at_random_points(
        closure_parameter_shadows_its_slice,
        closure_parameter_shadows_its_slice_jvp,
        closure_parameter_shadows_its_slice_vjp,
        4,
        61,
    );
    let (_, gradient, hessian) = closure_parameter_shadows_its_slice_hessian(&[0.3, -0.5]);
    let (_, again) = closure_parameter_shadows_its_slice_grad(&[0.3, -0.5]);
    assert_eq!(gradient, again);
    // d²/dw0² of (w0² + w1²)(sin w0 + sin w1) at (0.3, -0.5).
    let (w0, w1) = (0.3_f64, -0.5_f64);
    let exact = 2.0 * (w0.sin() + w1.sin()) + 4.0 * w0 * w0.cos() - (w0 * w0 + w1 * w1) * w0.sin();
    approx::assert_relative_eq!(hessian[0][0], exact, max_relative = 1e-12);
}
