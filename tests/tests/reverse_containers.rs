//! Slices and `Vec`s of floats in reverse mode, against forward mode (itself checked against
//! central differences along a random direction) and the dot-product identity.

// The functions spell out forms on purpose (`vec!` of a few elements, `x = 2.0 * x`, copies
// passed on): the macro must handle each.
#![allow(
    clippy::needless_range_loop,
    clippy::useless_vec,
    clippy::assign_op_pattern,
    clippy::unnecessary_to_owned
)]

mod common;

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;
use common::{central_difference, check_gradient, random_vector, Rng};

/// Forward mode along every basis direction at `x` against central differences (for points
/// away from the function's branch thresholds).
fn forward_against_differences(
    x: &[f64],
    plain: impl Fn(&[f64]) -> f64,
    jvp: impl Fn(&[f64], &[f64]) -> f64,
) {
    for i in 0..x.len() {
        let mut e = vec![0.0; x.len()];
        e[i] = 1.0;
        let along = |h: f64| {
            let moved: Vec<f64> = x.iter().zip(&e).map(|(x, e)| x + h * e).collect();
            plain(&moved)
        };
        assert_relative_eq!(
            jvp(x, &e),
            central_difference(along, 0.0, 1e-4),
            epsilon = 1e-8,
            max_relative = 1e-7
        );
    }
}

#[forward]
#[reverse]
fn indexing(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[(i + 1) % x.len()];
    }
    s
}

#[forward]
#[reverse]
fn references(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x {
        s += v * v;
    }
    for v in x.iter() {
        s -= *v * 0.5;
    }
    for (i, v) in x.iter().enumerate() {
        s += v.sin() * i as f64;
    }
    for &v in x.iter() {
        if v > 0.0 {
            s += v.exp();
        }
    }
    s
}

#[forward]
#[reverse]
fn building_vectors(x: &[f64], n: usize) -> f64 {
    let mut v = vec![0.0; n];
    let mut w = Vec::with_capacity(n);
    let mut u = Vec::new();
    for i in 0..n {
        v[i] = x[i % x.len()] * (i + 1) as f64;
        w.push(v[i].exp());
        u.push(v[i] + w[i]);
    }
    let copy = x.to_vec();
    v[0] += copy[0] * 3.0;
    // Overwrite an element whose old value is still used.
    v[1] = v[1] * v[1] + v[0];
    let listed = vec![x[0], 2.0 * x[1], 1.0];
    let mut s = 0.0;
    for e in &v {
        s += *e;
    }
    s + u[n - 1] + w[0] + listed[1] * listed[0]
}

#[forward]
#[reverse]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, y) in a.iter().zip(b.iter()) {
        s += x * y;
    }
    s
}

#[forward]
#[reverse]
fn uses_dot(x: &[f64], #[no_grad] weights: &[f64]) -> f64 {
    let squared = dot(x, x);
    let weighted = dot(x, weights);
    let mut shifted = x.to_vec();
    for i in 0..shifted.len() {
        shifted[i] += 1.0;
    }
    squared.sqrt() + weighted * dot(&shifted, x)
}

#[forward]
#[reverse]
fn repeated(x: &[f64], #[no_grad] scale: f64) -> f64 {
    let seed = x[0] * scale;
    let copies = vec![seed; 4];
    let mut s = 0.0;
    for (i, c) in copies.iter().enumerate() {
        s += c * (i + 1) as f64 * x[i % x.len()];
    }
    s
}

#[test]
fn slices_in_reverse_mode() {
    check_gradient(5, indexing, indexing_jvp, indexing_vjp);
    check_gradient(5, references, references_jvp, references_vjp);
    check_gradient(
        3,
        |x| building_vectors(x, 6),
        |x, t| building_vectors_jvp(x, 6, t),
        |x, c| building_vectors_vjp(x, 6, c),
    );
    let w = [0.5, -1.0, 2.0, 0.25];
    check_gradient(
        4,
        |x| uses_dot(x, &w),
        |x, t| uses_dot_jvp(x, &w, t),
        |x, c| uses_dot_vjp(x, &w, c),
    );
    check_gradient(
        3,
        |x| repeated(x, 1.5),
        |x, t| repeated_jvp(x, 1.5, t),
        |x, c| repeated_vjp(x, 1.5, c),
    );
}

#[test]
fn two_slices_and_a_scalar() {
    let a = [1.0, 2.0, 3.0];
    let b = [0.5, -1.0, 4.0];
    let (value, (ga, gb)) = dot_grad(&a, &b);
    assert_eq!(value, 10.5);
    assert_eq!(ga, b.to_vec());
    assert_eq!(gb, a.to_vec());
}

#[forward]
#[reverse]
fn owned_vector(v: Vec<f64>, x: f64) -> f64 {
    let mut s = x;
    for e in &v {
        s = s * e + 1.0;
    }
    s
}

#[test]
fn owned_vectors() {
    let v = vec![0.5, 1.5, -2.0];
    let (value, (gv, gx)) = owned_vector_grad(v.clone(), 0.7);
    assert_eq!(value, owned_vector(v.clone(), 0.7));
    let (_, along_x) = owned_vector_jvp(v.clone(), 0.7, vec![0.0; 3], 1.0);
    assert_relative_eq!(gx, along_x, max_relative = 1e-13);
    for i in 0..3 {
        let mut e = vec![0.0; 3];
        e[i] = 1.0;
        let (_, along) = owned_vector_jvp(v.clone(), 0.7, e, 0.0);
        assert_relative_eq!(gv[i], along, max_relative = 1e-13);
    }
}

// Regressions found by review.

#[forward]
#[reverse]
fn compound_operand_before_an_assignment(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let y = v[0].sin() * {
        v[0] = 2.0 * v[0];
        v[0]
    };
    let mut a = x[1];
    let z = (a * 3.0) * {
        a = a * a;
        a
    };
    let w = dot(&v, x) * {
        v[1] = 2.0 * v[1];
        v[1]
    };
    y + z + w + v[0] + a
}

#[forward]
#[reverse]
fn index_changed_by_the_right_side(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let mut k = 0;
    v[k] += {
        k += 1;
        x[k] * x[0]
    };
    let mut a = x[0];
    a += {
        a = 2.0 * a;
        a
    };
    v[0] * 3.0 + v[1] + a
}

#[forward]
#[reverse]
fn iteration_forms(x: Vec<f64>, y: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut w = Vec::<f64>::new();
    for v in x {
        if v > 0.0 {
            s += v * v;
        }
        w.push(v);
    }
    for (w, b) in y.iter().zip(w.iter()) {
        s += w * b;
    }
    s
}

#[test]
fn regressions_of_operand_order_and_iteration_forms() {
    check_gradient(
        3,
        compound_operand_before_an_assignment,
        compound_operand_before_an_assignment_jvp,
        compound_operand_before_an_assignment_vjp,
    );
    check_gradient(
        2,
        index_changed_by_the_right_side,
        index_changed_by_the_right_side_jvp,
        index_changed_by_the_right_side_vjp,
    );
    let plain = |x: &[f64]| iteration_forms(x.to_vec(), &[0.5, -1.0, 2.0]);
    check_gradient(
        3,
        plain,
        |x, t| iteration_forms_jvp(x.to_vec(), &[0.5, -1.0, 2.0], t.to_vec(), &[0.0; 3]),
        |x, c| {
            let (value, (gx, _)) = iteration_forms_vjp(x.to_vec(), &[0.5, -1.0, 2.0], c);
            (value, gx)
        },
    );
}

#[forward]
#[reverse]
fn copies_passed_on(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v[0] = 3.0 * v[0];
    dot(&v, &x.to_vec()) + dot(&v.clone(), x)
}

#[test]
fn copies_passed_as_arguments() {
    check_gradient(
        3,
        copies_passed_on,
        copies_passed_on_jvp,
        copies_passed_on_vjp,
    );
}

#[forward]
#[reverse]
fn reductions(x: &[f64], y: &[f64]) -> f64 {
    let total: f64 = x.iter().sum();
    let squares: f64 = x.iter().map(|v| v * v).sum();
    let scaled: f64 = x.iter().copied().map(|v| (v * 0.5).exp()).sum();
    let product: f64 = x.iter().map(|v| 1.0 + v * 0.1).product();
    let largest = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let weighted = x.iter().fold(0.0, |acc, v| acc * 0.5 + v * v);
    let by_value = x.iter().copied().fold(1.0, |acc, v| acc + v.sin());
    let mapped = x.iter().map(|v| v.cos()).fold(0.0, |acc, c| acc + c * c);
    let dot: f64 = x.iter().zip(y.iter()).map(|(a, b)| a * b).sum();
    total + squares + scaled + product + largest + weighted + by_value + mapped + dot
}

#[test]
fn iterator_reductions_in_reverse_mode() {
    let y = [0.3, -1.2, 2.0, 0.7];
    check_gradient(
        4,
        |x| reductions(x, &y),
        |x, t| reductions_jvp(x, &y, t, &[0.0; 4]),
        |x, c| {
            let (value, (gx, _)) = reductions_vjp(x, &y, c);
            (value, gx)
        },
    );
    let x = [0.5, -0.25, 1.5, 0.1];
    let (_, (_, gy)) = reductions_grad(&x, &y);
    assert_eq!(gy, x.to_vec());
}

#[forward]
#[reverse]
fn filtered_reductions(x: &[f64], t: f64) -> f64 {
    let positive: f64 = x.iter().filter(|v| **v > 0.0).sum();
    let large: f64 = x.iter().filter(|&&v| v.abs() > t).map(|v| v * v).sum();
    let small: f64 = x.iter().copied().filter(|v| *v < t).map(|v| v.exp()).sum();
    let mapped: f64 = x
        .iter()
        .filter(|v| v.is_sign_negative())
        .map(|&v| v * t)
        .product();
    let folded = x
        .iter()
        .copied()
        .filter(|&v| v != 0.5)
        .fold(0.0, |acc, v| acc * t + v);
    let v = 0.25;
    let outer: f64 = x.iter().filter(|w| **w > v).map(|w| w * v).sum();
    positive + large + small + mapped + folded + outer
}

#[test]
fn filtered_reductions_in_reverse_mode() {
    for t in [0.3, 1.0] {
        check_gradient(
            5,
            |x| filtered_reductions(x, t),
            |x, dx| filtered_reductions_jvp(x, t, dx, 0.0),
            |x, c| {
                let (value, (gx, _)) = filtered_reductions_vjp(x, t, c);
                (value, gx)
            },
        );
    }
    // Away from every filter's threshold, forward mode against central differences too.
    let x = [0.7, -0.25, 1.5, -0.8, 0.1];
    forward_against_differences(
        &x,
        |x| filtered_reductions(x, 0.3),
        |x, e| filtered_reductions_jvp(x, 0.3, e, 0.0).1,
    );
    let (_, (_, gt)) = filtered_reductions_grad(&x, 0.3);
    let (_, along) = filtered_reductions_jvp(&x, 0.3, &[0.0; 5], 1.0);
    approx::assert_relative_eq!(gt, along, max_relative = 1e-12);
}

#[forward]
#[reverse]
fn collected(x: &[f64], t: f64) -> f64 {
    let squares: Vec<f64> = x.iter().map(|v| v * v * t).collect();
    #[allow(clippy::iter_cloned_collect)]
    let copies = x.iter().copied().collect::<Vec<_>>();
    let large: Vec<f64> = x.iter().filter(|v| v.abs() > t).map(|&v| v.sin()).collect();
    let scaled = squares
        .iter()
        .zip(copies.iter())
        .map(|(a, b)| a * b)
        .collect::<Vec<f64>>();
    let mut total = 0.0;
    for (i, s) in scaled.iter().enumerate() {
        total += s * (i as f64 + 1.0) + copies[i];
    }
    for l in &large {
        total += l * t;
    }
    total * large.len() as f64 + squares[0]
}

#[test]
fn collect_in_reverse_mode() {
    for t in [0.3, 1.1] {
        check_gradient(
            5,
            |x| collected(x, t),
            |x, dx| collected_jvp(x, t, dx, 0.0),
            |x, c| {
                let (value, (gx, _)) = collected_vjp(x, t, c);
                (value, gx)
            },
        );
    }
    // The scalar parameter: reverse against forward, forward against central differences.
    let x = [0.7, -0.25, 1.5, -0.8, 0.1];
    let (_, (_, gt)) = collected_grad(&x, 0.3);
    let (_, along) = collected_jvp(&x, 0.3, &[0.0; 5], 1.0);
    assert_relative_eq!(gt, along, epsilon = 1e-12, max_relative = 1e-12);
    assert_relative_eq!(
        along,
        central_difference(|t| collected(&x, t), 0.3, 1e-4),
        epsilon = 1e-8,
        max_relative = 1e-7
    );
    forward_against_differences(
        &x,
        |x| collected(x, 0.3),
        |x, e| collected_jvp(x, 0.3, e, 0.0).1,
    );
}

#[forward]
#[reverse]
fn arrays(p: [f64; 3], q: &[f64; 2], s: f64) -> f64 {
    let mut centered = [0.0; 3];
    for i in 0..3 {
        centered[i] = p[i] - q[i % 2] * s;
    }
    let weights = [1.0, s, s * s];
    let mut total = 0.0;
    for (c, w) in centered.iter().zip(weights.iter()) {
        total += c * c * w;
    }
    for v in p {
        total += v.sin();
    }
    total + q.iter().map(|v| v.exp()).sum::<f64>()
}

#[test]
fn arrays_in_reverse_mode() {
    let (p, q, s) = ([0.3, -0.8, 1.2], [0.5, 2.0], 0.7);
    let (value, (gp, gq, gs)) = arrays_grad(p, &q, s);
    assert_eq!(value, arrays(p, &q, s));
    for i in 0..3 {
        let mut t = [0.0; 3];
        t[i] = 1.0;
        let (_, along) = arrays_jvp(p, &q, s, t, &[0.0; 2], 0.0);
        approx::assert_relative_eq!(gp[i], along, max_relative = 1e-12);
    }
    for i in 0..2 {
        let mut t = [0.0; 2];
        t[i] = 1.0;
        let (_, along) = arrays_jvp(p, &q, s, [0.0; 3], &t, 0.0);
        approx::assert_relative_eq!(gq[i], along, max_relative = 1e-12);
    }
    let (_, along) = arrays_jvp(p, &q, s, [0.0; 3], &[0.0; 2], 1.0);
    approx::assert_relative_eq!(gs, along, max_relative = 1e-12);
}

#[forward]
#[reverse]
fn nested_reads(rows: &[Vec<f64>], points: &[[f64; 3]], owned: Vec<Vec<f64>>, t: f64) -> f64 {
    let mut total = 0.0;
    for i in 0..rows.len() {
        for j in 0..rows[i].len() {
            total += rows[i][j] * rows[i][j] * (j as f64 + t);
        }
    }
    for k in 0..points.len() {
        let p = points[k][0] * points[k][1] - points[k][2].sin();
        total += p * t + owned[k % owned.len()][0];
    }
    total * owned[1][1]
}

#[test]
fn nested_containers_in_reverse_mode() {
    let mut rng = Rng::new(11);
    for _ in 0..4 {
        let rows: Vec<Vec<f64>> = [3, 0, 2]
            .iter()
            .map(|&n| random_vector(&mut rng, n))
            .collect();
        let points: Vec<[f64; 3]> = (0..2)
            .map(|_| {
                [
                    rng.uniform(-1.0, 1.0),
                    rng.uniform(-1.0, 1.0),
                    rng.uniform(-1.0, 1.0),
                ]
            })
            .collect();
        let owned: Vec<Vec<f64>> = (0..2).map(|_| random_vector(&mut rng, 2)).collect();
        let t = rng.uniform(-1.0, 1.0);
        let (value, (g_rows, g_points, g_owned, g_t)) =
            nested_reads_grad(&rows, &points, owned.clone(), t);
        assert_eq!(
            value.to_bits(),
            nested_reads(&rows, &points, owned.clone(), t).to_bits()
        );
        assert_eq!(
            g_rows.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![3, 0, 2]
        );
        assert_eq!((g_points.len(), g_owned.len()), (2, 2));
        // Every element against forward mode along its basis direction.
        let zero_rows: Vec<Vec<f64>> = rows.iter().map(|r| vec![0.0; r.len()]).collect();
        let zero_points = vec![[0.0; 3]; 2];
        let zero_owned = vec![vec![0.0; 2]; 2];
        let forward = |d_rows: &[Vec<f64>], d_points: &[[f64; 3]], d_owned: Vec<Vec<f64>>, dt| {
            nested_reads_jvp(
                &rows,
                &points,
                owned.clone(),
                t,
                d_rows,
                d_points,
                d_owned,
                dt,
            )
            .1
        };
        for i in 0..rows.len() {
            for j in 0..rows[i].len() {
                let mut d = zero_rows.clone();
                d[i][j] = 1.0;
                let along = forward(&d, &zero_points, zero_owned.clone(), 0.0);
                assert_relative_eq!(g_rows[i][j], along, epsilon = 1e-12, max_relative = 1e-12);
            }
        }
        for k in 0..2 {
            for c in 0..3 {
                let mut d = zero_points.clone();
                d[k][c] = 1.0;
                let along = forward(&zero_rows, &d, zero_owned.clone(), 0.0);
                assert_relative_eq!(g_points[k][c], along, epsilon = 1e-12, max_relative = 1e-12);
            }
            for c in 0..2 {
                let mut d = zero_owned.clone();
                d[k][c] = 1.0;
                let along = forward(&zero_rows, &zero_points, d, 0.0);
                assert_relative_eq!(g_owned[k][c], along, epsilon = 1e-12, max_relative = 1e-12);
            }
        }
        // Forward mode along a random direction of every container against differences.
        let d_rows: Vec<Vec<f64>> = rows
            .iter()
            .map(|r| random_vector(&mut rng, r.len()))
            .collect();
        let d_points: Vec<[f64; 3]> = (0..2)
            .map(|_| {
                [
                    rng.uniform(-1.0, 1.0),
                    rng.uniform(-1.0, 1.0),
                    rng.uniform(-1.0, 1.0),
                ]
            })
            .collect();
        let d_owned: Vec<Vec<f64>> = (0..2).map(|_| random_vector(&mut rng, 2)).collect();
        let moved = |h: f64| {
            let step = |a: &[f64], d: &[f64]| -> Vec<f64> {
                a.iter().zip(d).map(|(a, d)| a + h * d).collect()
            };
            let r: Vec<Vec<f64>> = rows.iter().zip(&d_rows).map(|(a, d)| step(a, d)).collect();
            let p: Vec<[f64; 3]> = points
                .iter()
                .zip(&d_points)
                .map(|(a, d)| step(a, d).try_into().expect("three"))
                .collect();
            let o: Vec<Vec<f64>> = owned
                .iter()
                .zip(&d_owned)
                .map(|(a, d)| step(a, d))
                .collect();
            nested_reads(&r, &p, o, t)
        };
        assert_relative_eq!(
            forward(&d_rows, &d_points, d_owned.clone(), 0.0),
            central_difference(moved, 0.0, 1e-4),
            epsilon = 1e-8,
            max_relative = 1e-7
        );
        let along_t = forward(&zero_rows, &zero_points, zero_owned.clone(), 1.0);
        assert_relative_eq!(g_t, along_t, epsilon = 1e-12, max_relative = 1e-12);
        assert_relative_eq!(
            along_t,
            central_difference(|t| nested_reads(&rows, &points, owned.clone(), t), t, 1e-4),
            epsilon = 1e-8,
            max_relative = 1e-7
        );
    }
}

// ----- rows of a container of containers -----

#[forward]
#[reverse]
fn row_sum(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for e in v {
        s += e * e;
    }
    s
}

#[forward]
#[reverse]
/// Rows bound by `for row in x` (also enumerated), by `let r = &x[1]`, their elements by
/// `for v in row`, `for &v in row.iter()`, `&row[0]`; rows passed on whole to a function.
fn rows(x: &[Vec<f64>], w: f64) -> f64 {
    let mut total = 0.0;
    for row in x {
        for v in row {
            total += v * w;
        }
    }
    for (i, row) in x.iter().enumerate() {
        let first = &row[0];
        total += row_sum(row) * (i as f64) + *first;
        for &v in row.iter() {
            total -= v * v * w;
        }
    }
    let r = &x[1];
    let e = x[0][1];
    let g = &x[1][0];
    let mut t = x[0][0];
    t *= w;
    // A copy of the whole container, read by rows and elements.
    let owned = x.to_vec();
    for row in &owned {
        total += row[0] * w;
    }
    total += owned[1][1] * owned[0][0];
    // Copies of rows, changed.
    let mut copy = x[1].to_vec();
    copy[0] *= w;
    let again = r.clone();
    total += copy[0] * again[1];
    // Reductions over rows.
    let first_row: f64 = x[0].iter().map(|v| v * w).sum();
    let last = &x[x.len() - 1];
    let squares: f64 = last.iter().map(|v| v * v).sum();
    total += first_row * squares + r.iter().copied().fold(0.0, f64::max);
    total + r[1] * row_sum(&x[0]) + nested_reads(x, &[], vec![vec![0.5, 1.5]; 2], w) + e * *g * t
}

#[test]
fn rows_of_nested_containers() {
    let mut rng = Rng::new(23);
    for lengths in [[2, 3, 1], [3, 2, 4]] {
        let x: Vec<Vec<f64>> = lengths
            .iter()
            .map(|&n| random_vector(&mut rng, n))
            .collect();
        common::check_user_type(
            |x: &Vec<Vec<f64>>, w| rows(x, w),
            |x: &Vec<Vec<f64>>, w, dx: &Vec<Vec<f64>>, dw| rows_jvp(x, w, dx, dw),
            |x: &Vec<Vec<f64>>, w, ct| rows_vjp(x, w, ct),
            &x,
            0.7,
            &mut rng,
        );
    }
}
