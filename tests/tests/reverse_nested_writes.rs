//! Containers of containers that reverse mode writes: matrices built in the body (literals,
//! `vec![vec![0.0; n]; m]`, rows pushed one by one), copies of nested parameters and nested
//! parameters taken by value, written by `m[i][j] = ..` and `m[i][j] op= ..`. Every function
//! carries both `#[forward]` and `#[reverse]` and is checked three ways: the value bit for bit
//! against the plain function, forward mode against central differences, and every reverse
//! adjoint against forward mode along its basis direction (with the dot-product identity
//! <J t, c> = <t, J^T c>).

// The functions spell out index loops, `a = b * a` and `vec!`s on purpose: the macro must
// handle each.
#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::useless_vec
)]

mod common;

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;
use common::{
    central_difference, check_hessian_vector_product,
    check_slice_function_at_random_points as check_at_random_points, random_vector, Rng,
};

// ----- matrices built in the body, written element by element -----

/// The log-determinant of `x x^T + n I` by an in-place Cholesky factorization: every element
/// of the lower triangle is overwritten by a value computed from elements overwritten before.
#[forward]
#[reverse]
fn cholesky_log_det(x: &[f64]) -> f64 {
    let n = x.len();
    let mut a = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            a[i][j] = x[i] * x[j];
        }
        a[i][i] += n as f64;
    }
    for j in 0..n {
        for k in 0..j {
            let l = a[j][k];
            a[j][j] -= l * l;
        }
        a[j][j] = a[j][j].sqrt();
        for i in j + 1..n {
            for k in 0..j {
                let product = a[i][k] * a[j][k];
                a[i][j] -= product;
            }
            a[i][j] /= a[j][j];
        }
    }
    let mut log_det = 0.0;
    for i in 0..n {
        log_det += 2.0 * a[i][i].ln();
    }
    log_det
}

#[test]
fn cholesky_in_place() {
    check_at_random_points(
        cholesky_log_det,
        cholesky_log_det_jvp,
        cholesky_log_det_vjp,
        4,
        1,
    );
    // log det(x x^T + n I) = (n - 1) ln n + ln(n + |x|^2), and its gradient 2 x / (n + |x|^2).
    let x = [0.3, -0.5, 1.1, 0.7];
    let norm: f64 = x.iter().map(|v| v * v).sum();
    let (value, gradient) = cholesky_log_det_grad(&x);
    assert_relative_eq!(value, 3.0 * 4f64.ln() + (4.0 + norm).ln(), epsilon = 1e-12);
    for k in 0..4 {
        assert_relative_eq!(gradient[k], 2.0 * x[k] / (4.0 + norm), epsilon = 1e-12);
    }
}

/// Two local matrices multiplied into a third by `c[i][j] += a[i][k] * b[k][j]`.
#[forward]
#[reverse]
fn matrix_product_trace(x: &[f64]) -> f64 {
    let n = 3;
    let mut a = vec![vec![0.0; n]; n];
    let mut b: Vec<Vec<f64>> = vec![vec![1.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            a[i][j] = x[(i + j) % x.len()].sin();
            b[i][j] *= x[(i * j) % x.len()] + 0.5 * j as f64;
        }
    }
    let mut c = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                c[i][j] += a[i][k] * b[k][j];
            }
        }
    }
    let mut trace = 0.0;
    for i in 0..n {
        trace += c[i][i] * c[i][(i + 1) % n];
    }
    trace
}

#[test]
fn product_of_local_matrices() {
    check_at_random_points(
        matrix_product_trace,
        matrix_product_trace_jvp,
        matrix_product_trace_vjp,
        3,
        2,
    );
}

/// Literals of every shape: arrays of arrays, `vec!` of `vec!`s, repeated rows of a list and
/// of a repeat, a row of constants; compound assignments of every operator.
#[forward]
#[reverse]
fn literals(x: &[f64]) -> f64 {
    let (p, q) = (x[0], x[1]);
    let a = [[p, q], [q * q, 2.0]];
    let b = vec![vec![p; 3], vec![q, p]];
    let c = vec![[p * q, q]; 2];
    let mut d: Vec<Vec<f64>> = vec![vec![p.exp(); 2]; 3];
    let mut e = vec![vec![1.0, 2.0], vec![3.0]];
    d[2][1] = d[1][1] * q;
    d[0][0] -= a[1][0];
    d[0][1] /= b[1][0] + 3.0;
    d[1][0] %= 0.7;
    e[1][0] *= c[1][0];
    e[0][1] += e[1][0] * b[0][2];
    a[0][0] * a[1][0] + b[0][2] * b[1][1] + c[1][0] * c[0][1] + d[2][1] + d[0][0] + d[0][1]
        - d[1][0]
        + a[0][1]
        + e[0][1]
        + e[0][0]
}

#[test]
fn literal_matrices() {
    check_at_random_points(literals, literals_jvp, literals_vjp, 2, 3);
}

/// Rows pushed one by one: a local row filled by `push`, `vec![..; n]`, a copy of the
/// parameter, arrays pushed onto a `Vec<[f64; 2]>`, a copy of a row; then written and read.
#[forward]
#[reverse]
fn rows_pushed(x: &[f64]) -> f64 {
    let n = x.len();
    let mut rows = Vec::new();
    for i in 0..n {
        let mut row = Vec::new();
        for j in 0..n {
            row.push(x[i] * x[j]);
        }
        rows.push(row);
    }
    rows.push(vec![x[0]; 3]);
    rows.push(x.to_vec());
    let mut typed: Vec<[f64; 2]> = Vec::with_capacity(2);
    typed.push([x[1], x[0] * x[2]]);
    let copy = rows[1].clone();
    typed.push([copy[0], copy[2]]);
    rows[0][1] *= typed[0][1];
    typed[1][0] = rows[n][2].cos();
    let mut s = 0.0;
    for row in &rows {
        for v in row {
            s += v * v;
        }
    }
    s + rows[n][2] * rows[n + 1][1] + typed[1][1] * typed[1][0]
}

#[test]
fn matrices_built_row_by_row() {
    check_at_random_points(rows_pushed, rows_pushed_jvp, rows_pushed_vjp, 3, 4);
}

/// `vec!`s of rows held in variables or copied: `vec![r0, r1]`, `vec![x.to_vec(); 3]`,
/// `vec![m[1].clone(), n[2].to_vec()]`.
#[forward]
#[reverse]
fn rows_from_containers(x: &[f64]) -> f64 {
    let mut r0 = x.to_vec();
    r0[1] *= x[0];
    let r1 = vec![x[0]; 2];
    let m = vec![r0, r1];
    let n = vec![x.to_vec(); 3];
    let mut o = vec![m[1].clone(), n[2].to_vec()];
    o[0][1] += n[1][2];
    m[1][0] * m[0][1] + n[2][1] * n[0][2] + o[0][1] * o[1][0]
}

#[test]
fn matrices_from_rows_held_in_variables() {
    check_at_random_points(
        rows_from_containers,
        rows_from_containers_jvp,
        rows_from_containers_vjp,
        3,
        8,
    );
}

/// A matrix made anew in every iteration of a loop, written in a branch and a `while` loop,
/// passed whole and by rows to other differentiated functions.
#[forward]
#[reverse]
fn frobenius(m: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for row in m {
        for v in row {
            s += v * v;
        }
    }
    s
}

#[forward]
#[reverse]
fn row_dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[forward]
#[reverse]
fn fresh_matrix_per_iteration(x: &[f64]) -> f64 {
    let mut total: f64 = 0.0;
    for step in 0..3 {
        let mut m = vec![vec![0.0; 2]; 2];
        m[0][0] = x[step % x.len()];
        m[1][1] = x[(step + 1) % x.len()] * total.tanh();
        if m[0][0] > 0.0 {
            m[0][1] = m[0][0] * m[1][1];
        } else {
            m[1][0] -= m[0][0].exp();
        }
        let mut k = 0;
        while k < 2 {
            m[k][k] *= 1.5;
            k += 1;
        }
        total += frobenius(&m) + row_dot(&m[0], &m[1]);
    }
    total
}

#[test]
fn matrices_in_loops_and_calls() {
    check_at_random_points(
        fresh_matrix_per_iteration,
        fresh_matrix_per_iteration_jvp,
        fresh_matrix_per_iteration_vjp,
        3,
        5,
    );
}

/// Overwriting elements whose old values are read later (swaps by a temporary, a rotation of
/// a row, an element updated from itself) and an index that its own right side moves.
#[forward]
#[reverse]
fn overwrites(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0], x[1], x[2]], vec![x[2] * x[1], x[0], 1.0]];
    let old = m[0][0];
    m[0][0] = m[1][1] * m[0][2];
    m[1][1] = old * m[0][0];
    let first = m[0][0];
    for j in 0..2 {
        m[0][j] = m[0][j + 1];
    }
    m[0][2] = first;
    m[1][0] = m[1][0] * m[1][0] + m[0][1];
    let mut k = 0;
    m[k][k] += {
        k += 1;
        m[1][2] * x[0]
    };
    m[0][0] * m[0][1] + m[0][2] * m[1][0] + m[1][1] + m[1][2] + k as f64
}

#[test]
fn overwriting_values_still_needed() {
    check_at_random_points(overwrites, overwrites_jvp, overwrites_vjp, 3, 6);
}

#[test]
fn f32_matrices() {
    #[forward]
    #[reverse]
    fn small(x: f32, y: f32) -> f32 {
        let mut m = vec![vec![x; 2]; 2];
        m[1][0] *= y;
        m[0][1] += m[1][0].sin();
        m[0][1] * m[1][1]
    }
    let (x, y) = (0.7f32, -0.4f32);
    let (value, (gx, gy)) = small_grad(x, y);
    assert_eq!(value.to_bits(), small(x, y).to_bits());
    let (_, dx) = small_jvp(x, y, 1.0, 0.0);
    let (_, dy) = small_jvp(x, y, 0.0, 1.0);
    assert_relative_eq!(gx, dx, max_relative = 1e-5);
    assert_relative_eq!(gy, dy, max_relative = 1e-5);
}

// ----- nested parameters: copies and by-value parameters, written -----

#[forward]
#[reverse]
fn written_parameters(
    rows: &[Vec<f64>],
    mut owned: Vec<Vec<f64>>,
    points: &[[f64; 2]],
    t: f64,
) -> f64 {
    let mut copy = rows.to_vec();
    copy[0][1] = copy[1][0] * t;
    copy[1][0] -= t * copy[0][0];
    owned[1][1] /= t;
    owned[0][0] = owned[1][1] * owned[0][0];
    let mut corners = points.to_vec();
    corners[1][0] += corners[0][1] * copy[0][1];
    let mut s = 0.0;
    for row in &copy {
        for v in row {
            s += v * v;
        }
    }
    for i in 0..owned.len() {
        for j in 0..owned[i].len() {
            s += owned[i][j] * (i + 2 * j) as f64;
        }
    }
    s + corners[1][0] * corners[1][1] + rows[0][1]
}

#[test]
fn written_copies_and_parameters() {
    let mut rng = Rng::new(7);
    for _ in 0..5 {
        let rows = vec![random_vector(&mut rng, 2), random_vector(&mut rng, 3)];
        let owned = vec![random_vector(&mut rng, 2), random_vector(&mut rng, 2)];
        let points = vec![[rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)]; 2];
        let t = rng.uniform(0.5, 1.5);
        let (value, (g_rows, g_owned, g_points, g_t)) =
            written_parameters_grad(&rows, owned.clone(), &points, t);
        assert_eq!(
            value.to_bits(),
            written_parameters(&rows, owned.clone(), &points, t).to_bits()
        );
        let zero_rows = vec![vec![0.0; 2], vec![0.0; 3]];
        let zero_owned = vec![vec![0.0; 2]; 2];
        let zero_points = vec![[0.0; 2]; 2];
        let forward = |d_rows: &[Vec<f64>], d_owned: Vec<Vec<f64>>, d_points: &[[f64; 2]], dt| {
            written_parameters_jvp(
                &rows,
                owned.clone(),
                &points,
                t,
                d_rows,
                d_owned,
                d_points,
                dt,
            )
            .1
        };
        for i in 0..2 {
            for j in 0..rows[i].len() {
                let mut d = zero_rows.clone();
                d[i][j] = 1.0;
                let along = forward(&d, zero_owned.clone(), &zero_points, 0.0);
                assert_relative_eq!(g_rows[i][j], along, epsilon = 1e-12, max_relative = 1e-12);
            }
            for j in 0..2 {
                let mut d = zero_owned.clone();
                d[i][j] = 1.0;
                let along = forward(&zero_rows, d, &zero_points, 0.0);
                assert_relative_eq!(g_owned[i][j], along, epsilon = 1e-12, max_relative = 1e-12);
                let mut d = zero_points.clone();
                d[i][j] = 1.0;
                let along = forward(&zero_rows, zero_owned.clone(), &d, 0.0);
                assert_relative_eq!(g_points[i][j], along, epsilon = 1e-12, max_relative = 1e-12);
            }
        }
        let along_t = forward(&zero_rows, zero_owned.clone(), &zero_points, 1.0);
        assert_relative_eq!(g_t, along_t, epsilon = 1e-12, max_relative = 1e-12);
        assert_relative_eq!(
            along_t,
            central_difference(
                |t| written_parameters(&rows, owned.clone(), &points, t),
                t,
                1e-4
            ),
            epsilon = 1e-7,
            max_relative = 1e-6
        );
    }
}

// ----- second order: forward over the reverse companion -----

#[test]
fn hessian_vector_products_through_written_matrices() {
    // The reverse companion is generic over the scalar: at dual inputs its gradient carries
    // the Hessian-vector product, checked against differences of the gradient.
    check_hessian_vector_product(cholesky_log_det::grad, cholesky_log_det_grad);
}
