//! The Jacobian and Hessian helpers (`f_jacfwd`, `f_jacrev`, `f_hessian`, `f_hvp`), checked
//! against central differences and against each other: `jacfwd` = `jacrev`, the Hessian
//! symmetric and equal to central differences of `_grad`, `hvp` equal to the Hessian times
//! the direction.

// Index loops over matrices, as the checks read.
#![allow(clippy::needless_range_loop)]

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;

/// A map from a scalar, a slice and an array (with data between them) to a `Vec`.
#[forward]
#[reverse]
fn mixed_map(a: f64, n: usize, x: &[f64], w: [f64; 2]) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..n {
        out.push(a * x[i].sin() + w[i % 2] * x[(i + 1) % n].powi(2));
    }
    out.push(a.exp() * w[0] / (1.0 + w[1] * w[1]));
    out
}

/// The floats of `(a, x, w)` in declared order, and the function over them.
fn mixed_flat(inputs: &[f64], n: usize) -> Vec<f64> {
    mixed_map(
        inputs[0],
        n,
        &inputs[1..1 + n],
        [inputs[1 + n], inputs[2 + n]],
    )
}

fn central_jacobian(f: impl Fn(&[f64]) -> Vec<f64>, at: &[f64]) -> Vec<Vec<f64>> {
    let h = 1e-6;
    let columns: Vec<Vec<f64>> = (0..at.len())
        .map(|j| {
            let mut plus = at.to_vec();
            let mut minus = at.to_vec();
            plus[j] += h;
            minus[j] -= h;
            f(&plus)
                .iter()
                .zip(f(&minus))
                .map(|(p, m)| (p - m) / (2.0 * h))
                .collect()
        })
        .collect();
    (0..columns[0].len())
        .map(|i| columns.iter().map(|column| column[i]).collect())
        .collect()
}

fn assert_matrices_close(actual: &[Vec<f64>], expected: &[Vec<f64>], tolerance: f64) {
    assert_eq!(actual.len(), expected.len(), "rows");
    for (a, e) in actual.iter().zip(expected) {
        assert_eq!(a.len(), e.len(), "columns");
        for (a, e) in a.iter().zip(e) {
            assert!((a - e).abs() <= tolerance * (1.0 + e.abs()), "{a} vs {e}");
        }
    }
}

#[test]
fn jacobians_by_both_modes_agree_with_central_differences() {
    // 12 inputs: two passes of the vector forward mode (chunks of 8).
    let n = 9;
    let x: Vec<f64> = (0..n).map(|i| 0.3 + 0.17 * i as f64).collect();
    let (a, w) = (0.4, [0.7, -1.2]);
    let (value, forward) = mixed_map_jacfwd(a, n, &x, w);
    let (value_rev, reverse) = mixed_map_jacrev(a, n, &x, w);
    assert_eq!(value, mixed_map(a, n, &x, w));
    assert_eq!(value_rev, value);
    assert_eq!(forward.len(), n + 1);
    assert_eq!(forward[0].len(), 1 + n + 2);
    assert_matrices_close(&forward, &reverse, 1e-13);
    let flat: Vec<f64> = [vec![a], x.clone(), w.to_vec()].concat();
    let central = central_jacobian(|inputs| mixed_flat(inputs, n), &flat);
    assert_matrices_close(&forward, &central, 1e-7);
}

#[forward]
#[reverse]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() - 1 {
        total += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    total
}

#[test]
fn hessian_is_symmetric_and_matches_differences_of_the_gradient() {
    for n in [2, 8, 11, 20] {
        let x: Vec<f64> = (0..n).map(|i| 0.5 - 0.09 * i as f64).collect();
        let (value, gradient, hessian) = rosenbrock_hessian(&x);
        let (value_grad, gradient_grad) = rosenbrock_grad(&x);
        assert_eq!(value, value_grad);
        for (g, e) in gradient.iter().zip(&gradient_grad) {
            assert_relative_eq!(*g, *e, max_relative = 1e-14);
        }
        for i in 0..n {
            for j in 0..n {
                assert_relative_eq!(hessian[i][j], hessian[j][i], max_relative = 1e-14);
            }
        }
        let central = central_jacobian(|at| rosenbrock_grad(at).1, &x);
        assert_matrices_close(&hessian, &central, 1e-6);
        // The gradient's Jacobian by forward mode and by reverse mode are the Hessian too.
        let (_, jacobian) = rosenbrock_jacfwd(&x);
        assert_matrices_close(&jacobian, std::slice::from_ref(&gradient), 1e-14);
    }
}

#[test]
fn hessian_vector_product_is_the_hessian_times_the_direction() {
    let x = [0.3, -0.4, 1.1, 0.8];
    let v = [1.0, 0.5, -0.25, 2.0];
    let (value, hv) = rosenbrock_hvp(&x, &v);
    let (_, _, hessian) = rosenbrock_hessian(&x);
    assert_eq!(value, rosenbrock(&x));
    for i in 0..x.len() {
        let expected: f64 = (0..x.len()).map(|j| hessian[i][j] * v[j]).sum();
        assert_relative_eq!(hv[i], expected, max_relative = 1e-13);
    }
}

/// Several parameters, one of them data, one `#[no_grad]`: the Hessian is over the floats of
/// the differentiable ones, in declared order, and the product takes one direction per
/// parameter, giving a tuple shaped as the gradient.
#[reverse]
fn energy(p: [f64; 2], k: usize, #[no_grad] stiffness: f64, q: f64) -> f64 {
    let r = (p[0] * p[0] + p[1] * p[1]).sqrt();
    stiffness * (r - 1.0).powi(2) * k as f64 + (q * p[0]).sin()
}

#[test]
fn hessian_over_several_parameters() {
    let (p, q) = ([0.6, 0.9], 0.4);
    let (_, gradient, hessian) = energy_hessian(p, 3, 2.5, q);
    assert_eq!(gradient.len(), 3);
    let flat = |at: &[f64]| {
        let (_, (dp, dq)) = energy_grad([at[0], at[1]], 3, 2.5, at[2]);
        vec![dp[0], dp[1], dq]
    };
    let central = central_jacobian(flat, &[p[0], p[1], q]);
    assert_matrices_close(&hessian, &central, 1e-6);
    let (_, (hv_p, hv_q)) = energy_hvp(p, 3, 2.5, q, [1.0, 0.0], 0.0);
    assert_relative_eq!(hv_p[0], hessian[0][0], max_relative = 1e-13);
    assert_relative_eq!(hv_p[1], hessian[1][0], max_relative = 1e-13);
    assert_relative_eq!(hv_q, hessian[2][0], max_relative = 1e-13);
}

/// A scalar function's Jacobian is one row: the gradient.
#[forward]
fn scalar_of_scalars(x: f64, y: f64) -> f64 {
    x * y.exp()
}

#[test]
fn jacobian_of_a_scalar_function_is_its_gradient_row() {
    let (value, jacobian) = scalar_of_scalars_jacfwd(2.0, 0.5);
    assert_eq!(value, 2.0 * 0.5_f64.exp());
    assert_eq!(jacobian, vec![vec![0.5_f64.exp(), 2.0 * 0.5_f64.exp()]]);
}

/// No differentiable parameter: the function has `_grad` and no helpers (which would have
/// nothing to differentiate).
#[reverse]
fn all_data(#[no_grad] c: f64, n: usize) -> f64 {
    c * n as f64
}

#[test]
fn a_function_without_differentiable_parameters_keeps_its_gradient() {
    let (value, ()) = all_data_grad(1.5, 2);
    assert_eq!(value, 3.0);
}

/// argmin's test functions define `f_hessian` (and `f_derivative`) beside `f`: the user's
/// function stays, and the helper of that name is not generated.
mod user_defines_a_helper_name {
    use ad_runtime::{forward, reverse};

    #[forward]
    #[reverse]
    pub fn beale(x: &[f64]) -> f64 {
        (1.5 - x[0] + x[0] * x[1]).powi(2)
            + (2.25 - x[0] + x[0] * x[1].powi(2)).powi(2)
            + (2.625 - x[0] + x[0] * x[1].powi(3)).powi(2)
    }

    /// The hand-written Hessian, as argmin-testfunctions writes it.
    pub fn beale_hessian(x: &[f64]) -> Vec<Vec<f64>> {
        let (a, b) = (x[0], x[1]);
        let (t1, t2, t3) = (
            1.5 - a + a * b,
            2.25 - a + a * b * b,
            2.625 - a + a * b.powi(3),
        );
        let (u1, u2, u3) = (b - 1.0, b * b - 1.0, b.powi(3) - 1.0);
        let (v1, v2, v3) = (a, 2.0 * a * b, 3.0 * a * b * b);
        let aa = 2.0 * (u1 * u1 + u2 * u2 + u3 * u3);
        let ab = 2.0 * (v1 * u1 + t1 + v2 * u2 + t2 * 2.0 * b + v3 * u3 + t3 * 3.0 * b * b);
        let bb = 2.0 * (v1 * v1 + v2 * v2 + t2 * 2.0 * a + v3 * v3 + t3 * 6.0 * a * b);
        vec![vec![aa, ab], vec![ab, bb]]
    }

    #[test]
    fn the_users_hessian_stays_and_agrees_with_the_other_helpers() {
        let x = [0.3, -0.7];
        let by_hand = beale_hessian(&x);
        let v = [0.25, 1.5];
        let (_, hv) = beale_hvp(&x, &v);
        for i in 0..2 {
            let expected = by_hand[i][0] * v[0] + by_hand[i][1] * v[1];
            approx::assert_relative_eq!(hv[i], expected, max_relative = 1e-12);
        }
    }
}

/// A least-squares loss over `#[no_grad]` rows of data given as nested containers: the
/// helpers pass them as constants on every pass (they were not generated before).
#[forward]
#[reverse]
fn fit_rows(p: &[f64], #[no_grad] rows: &[[f64; 2]], #[no_grad] weights: &[Vec<f64>]) -> f64 {
    let mut loss = 0.0;
    for (k, row) in rows.iter().enumerate() {
        let residual = p[0] * row[0].sin() + p[1] * p[1] * row[1] - weights[k][0];
        loss += weights[k][1] * residual * residual;
    }
    loss
}

#[test]
fn helpers_take_nested_containers_of_constants() {
    let rows = [[0.5, 1.0], [1.5, -0.5], [-1.0, 2.0]];
    let weights = vec![vec![0.2, 1.0], vec![-0.3, 0.5], vec![0.1, 2.0]];
    let p = [0.7, -0.4];
    let (value, gradient, hessian) = fit_rows_hessian(&p, &rows, &weights);
    assert_eq!(value, fit_rows(&p, &rows, &weights));
    assert_eq!(gradient, fit_rows_grad(&p, &rows, &weights).1);
    let (_, jacobian) = fit_rows_jacfwd(&p, &rows, &weights);
    let (_, jacobian_reverse) = fit_rows_jacrev(&p, &rows, &weights);
    for k in 0..2 {
        assert_relative_eq!(jacobian[0][k], gradient[k], max_relative = 1e-14);
        assert_relative_eq!(jacobian_reverse[0][k], gradient[k], max_relative = 1e-14);
    }
    // Central differences of the gradient.
    let h = 1e-6;
    for j in 0..2 {
        let (mut plus, mut minus) = (p, p);
        plus[j] += h;
        minus[j] -= h;
        let (g_plus, g_minus) = (
            fit_rows_grad(&plus, &rows, &weights).1,
            fit_rows_grad(&minus, &rows, &weights).1,
        );
        for i in 0..2 {
            let difference = (g_plus[i] - g_minus[i]) / (2.0 * h);
            assert_relative_eq!(
                hessian[i][j],
                difference,
                epsilon = 1e-7,
                max_relative = 1e-6
            );
        }
    }
    let (_, product) = fit_rows_hvp(&p, &rows, &weights, &[1.0, 0.5]);
    for i in 0..2 {
        let expected = hessian[i][0] + 0.5 * hessian[i][1];
        assert_relative_eq!(product[i], expected, max_relative = 1e-12);
    }
}

/// A square root and a quotient whose derivatives are infinite at the point taken: the
/// vector forward mode tests for an infinite factor once per operation, and keeps every
/// direction not along the singular input exactly zero (no `0 * inf`).
#[forward]
#[reverse]
fn singular_at_zero(x: &[f64]) -> Vec<f64> {
    vec![
        x[0].sqrt() * 2.0 + x[1] * x[2],
        x[1] / x[0] + x[2],
        x[3].sqrt() * x[2],
    ]
}

#[test]
fn infinite_derivatives_stay_in_their_own_columns() {
    let x = [0.0, 2.0, 3.0, 4.0];
    let (_, jacobian) = singular_at_zero_jacfwd(&x);
    assert_eq!(jacobian[0][0], f64::INFINITY);
    assert_eq!(&jacobian[0][1..], &[3.0, 2.0, 0.0]);
    assert_eq!(jacobian[1][0], f64::NEG_INFINITY);
    assert_eq!(jacobian[1][1], f64::INFINITY);
    assert_eq!(&jacobian[1][2..], &[1.0, 0.0]);
    assert_eq!(&jacobian[2][..3], &[0.0, 0.0, 2.0]);
    assert_relative_eq!(jacobian[2][3], 0.75, max_relative = 1e-15);
    // Away from zero the unguarded path gives what reverse mode gives.
    let x = [0.3, 2.0, 3.0, 4.0];
    let (_, forward) = singular_at_zero_jacfwd(&x);
    let (_, reverse) = singular_at_zero_jacrev(&x);
    assert_matrices_close(&forward, &reverse, 1e-14);
}
