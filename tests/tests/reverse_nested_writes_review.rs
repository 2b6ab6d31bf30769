//! Adversarial review of reverse-mode writes into containers of containers and of container
//! results of differentiated calls. Every function carries both `#[forward]` and `#[reverse]`.
// The functions spell out index loops, `a = b * a` and `vec!`s on purpose: the macro must
// handle each.
#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::useless_vec,
    unused_mut,
    unused_variables,
    unused_assignments,
    clippy::let_and_return,
    clippy::self_assignment,
    clippy::vec_init_then_push,
    clippy::type_complexity
)]

mod common;

use ad_runtime::{forward, reverse, Differentiable, Dual};
use approx::assert_relative_eq;
use common::{
    central_difference, check_hessian_vector_product,
    check_slice_function_at_random_points as check_at_random_points, random_vector, Rng,
};

macro_rules! case {
    ($test:ident, $f:ident, $jvp:ident, $vjp:ident, $n:expr) => {
        #[test]
        fn $test() {
            check_at_random_points($f, $jvp, $vjp, $n, 11);
        }
    };
}

// ----- helpers called from differentiated code -----

#[forward]
#[reverse]
fn frob(m: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for row in m {
        for v in row {
            s += v * v * v;
        }
    }
    s
}

#[forward]
#[reverse]
fn weighted(a: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += (i as f64 + 1.0) * a[i] * a[i];
    }
    s
}

#[forward]
#[reverse]
fn squares(a: &[f64]) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..a.len() {
        out.push(a[i] * a[i] + 0.5 * i as f64);
    }
    out
}

#[forward]
#[reverse]
fn row_sums(m: &[Vec<f64>]) -> Vec<f64> {
    let mut out = Vec::new();
    for row in m {
        let mut s = 0.0;
        for v in row {
            s += v.sin();
        }
        out.push(s);
    }
    out
}

#[forward]
#[reverse]
fn rot(t: f64, r: f64) -> [f64; 2] {
    [r * t.cos(), r * t.sin()]
}

#[forward]
#[reverse]
fn prefix(a: &[f64], k: usize) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..k {
        out.push(a[i % a.len()] * (i as f64 + 0.5));
    }
    out
}

#[forward]
#[reverse]
fn scalar_of(a: &[f64]) -> f64 {
    a[0] * a[1]
}

fn data_vec(n: usize) -> Vec<f64> {
    (0..n).map(|i| 0.3 * i as f64 + 0.1).collect()
}

// ----- feature 1: aliasing -----

#[forward]
#[reverse]
fn alias_same(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0], x[1]], vec![x[2], x[0] * x[1]]];
    for i in 0..2 {
        for j in 0..2 {
            m[i][j] = m[i][j] * m[j][i];
        }
    }
    m[0][0] += m[0][0];
    m[1][1] *= m[1][1];
    m[0][1] -= m[0][1] * 0.5;
    m[1][0] /= m[1][0] + 3.0;
    m[0][0] = m[0][0];
    m[0][0] * m[0][1] + m[1][0] * m[1][1]
}
case!(t_alias_same, alias_same, alias_same_jvp, alias_same_vjp, 3);

#[forward]
#[reverse]
fn side_effect_index(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0], x[1]], vec![x[2], 1.0]];
    let mut k = 0;
    m[k][1] = {
        k += 1;
        m[k][0] * x[1]
    };
    let mut j = 0;
    m[{
        j += 1;
        j
    }][1] += m[j][0] * m[0][1];
    m[0][0] * m[1][1] + m[0][1] + m[1][0] * (k + j) as f64
}
case!(
    t_side_effect_index,
    side_effect_index,
    side_effect_index_jvp,
    side_effect_index_vjp,
    3
);

#[forward]
#[reverse]
fn rhs_writes_same(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0]; 2]; 2];
    m[0][0] *= {
        m[0][0] = 2.0 * x[1];
        3.0
    };
    m[1][1] += {
        m[1][1] = m[1][1] * x[2];
        m[1][1]
    };
    m[0][0] * m[1][1] + m[0][1]
}
case!(
    t_rhs_writes_same,
    rhs_writes_same,
    rhs_writes_same_jvp,
    rhs_writes_same_vjp,
    3
);

// ----- loops, branches, early return -----

#[forward]
#[reverse]
fn loops_write(x: &[f64]) -> f64 {
    let n = x.len();
    let mut m = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            m[i][j] = x[i] - x[j] * 0.5;
        }
    }
    let mut k = 0;
    while k < n {
        m[k][(k + 1) % n] *= m[(k + 1) % n][k];
        k += 1;
    }
    let mut s = 0.0;
    let mut i = 0;
    loop {
        if i >= n {
            break;
        }
        m[i % 2][i] += m[i][i % 2].sin();
        s += m[i % 2][i];
        i += 1;
    }
    for i in (0..n).rev() {
        m[i][i] = m[i][i] * m[(i + 2) % n][i] + s;
    }
    frob(&m) + s
}
case!(
    t_loops_write,
    loops_write,
    loops_write_jvp,
    loops_write_vjp,
    3
);

#[forward]
#[reverse]
fn early_return(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0], x[1]], vec![x[2], x[0]]];
    for i in 0..2 {
        m[i][0] *= m[1 - i][1];
        if m[i][0] > 0.3 {
            m[1][1] += m[i][0];
            return m[0][0] * m[1][1] + m[1][0];
        }
    }
    if x[1] < 0.0 {
        m[0][1] = m[1][0].exp();
    } else {
        m[1][0] = m[0][1].cos();
    }
    m[0][0] + m[0][1] * m[1][0] + m[1][1]
}
case!(
    t_early_return,
    early_return,
    early_return_jvp,
    early_return_vjp,
    3
);

#[forward]
#[reverse]
fn loop_break_value(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0]; 3]; 2];
    let mut i = 0;
    let r = loop {
        m[i % 2][i % 3] = m[(i + 1) % 2][(i + 2) % 3] * x[i % x.len()];
        i += 1;
        if i > 4 {
            break m[0][1] * m[1][2];
        }
    };
    r + m[1][0]
}
case!(
    t_loop_break_value,
    loop_break_value,
    loop_break_value_jvp,
    loop_break_value_vjp,
    3
);

#[forward]
#[reverse]
fn fresh_sizes(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for it in 0..3 {
        let mut m = vec![vec![x[it % x.len()]; it + 1]; it + 2];
        for i in 0..m.len() {
            for j in 0..m[i].len() {
                m[i][j] *= (i + 1) as f64 + x[j % x.len()];
            }
        }
        m[it + 1][it] += total;
        total += frob(&m) * 0.1 + m[0][0] * m[it + 1][it];
    }
    total
}
case!(
    t_fresh_sizes,
    fresh_sizes,
    fresh_sizes_jvp,
    fresh_sizes_vjp,
    3
);

// ----- rows pushed -----

#[forward]
#[reverse]
fn ragged(x: &[f64]) -> f64 {
    let mut rows = Vec::new();
    for i in 0..4 {
        let mut row = Vec::new();
        for j in 0..i {
            row.push(x[j % x.len()] * (i as f64));
        }
        rows.push(row);
    }
    let empty: Vec<f64> = Vec::new();
    rows.push(empty);
    rows.push(vec![x[2]]);
    rows[3][2] *= rows[2][1] + rows[5][0];
    rows[1][0] = rows[3][0] * rows[3][1];
    let mut s = 0.0;
    for row in &rows {
        for v in row {
            s += v * v;
        }
        s += row.len() as f64;
    }
    s + frob(&rows)
}
case!(t_ragged, ragged, ragged_jvp, ragged_vjp, 3);

#[forward]
#[reverse]
fn push_after_reads(x: &[f64]) -> f64 {
    let mut rows: Vec<Vec<f64>> = Vec::new();
    rows.push(vec![x[0], x[1]]);
    for i in 1..4 {
        let a = rows[i - 1][0] * x[i % 3];
        let b = rows[i - 1][1] + a;
        rows.push(vec![b, a]);
        rows[i][0] *= rows[i - 1][1];
        rows[i - 1][1] = 0.5 * rows[i][1];
    }
    let mut s = 0.0;
    for i in 0..rows.len() {
        s += rows[i][0] * rows[i][1];
    }
    s
}
case!(
    t_push_after_reads,
    push_after_reads,
    push_after_reads_jvp,
    push_after_reads_vjp,
    3
);

#[forward]
#[reverse]
fn push_kinds(x: &[f64]) -> f64 {
    let mut rows = Vec::new();
    rows.push(x.to_vec());
    let r = vec![x[1] * x[2]; 2];
    rows.push(r);
    let mut t: Vec<[f64; 2]> = Vec::new();
    let a = [x[0], x[1]];
    t.push(a);
    t.push(a);
    t[0][0] *= x[2];
    let c = rows[0].clone();
    rows.push(c);
    rows[2][0] = rows[1][1] * t[1][0];
    rows[0][0] *= 3.0;
    rows[1][0] = a[1] * rows[2][2];
    rows[0][2] * rows[2][0] + rows[1][0] + rows[0][0] + t[0][0] * t[1][1] + a[0]
}
case!(t_push_kinds, push_kinds, push_kinds_jvp, push_kinds_vjp, 3);

#[forward]
#[reverse]
fn clone_then_write(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0], x[1]], vec![x[2], 2.0]];
    let r = m[0].clone();
    m[0][0] = m[1][0] * 5.0;
    m[0][1] *= m[0][0];
    let r2 = m[1].to_vec();
    m[1][0] = 0.0;
    r[0] * r[1] + m[0][0] + m[0][1] + r2[0] * r2[1] + m[1][0]
}
case!(
    t_clone_then_write,
    clone_then_write,
    clone_then_write_jvp,
    clone_then_write_vjp,
    3
);

#[forward]
#[reverse]
fn row_ref_then_write(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0], x[1]], vec![x[2], 2.0]];
    let r = &m[0];
    let a = r[0] * r[1];
    m[0][0] = a * x[2];
    let s = weighted(&m[0]) + weighted(&m[1]);
    m[1][1] *= s;
    let mut t = 0.0;
    for v in &m[1] {
        t += v * a;
    }
    t + m[1][1]
}
case!(
    t_row_ref_then_write,
    row_ref_then_write,
    row_ref_then_write_jvp,
    row_ref_then_write_vjp,
    3
);

#[forward]
#[reverse]
fn shadowing(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0]; 2]; 2];
    m[0][1] *= x[1];
    let keep = m[0][1];
    let mut m = vec![vec![x[2], x[1], x[0]]];
    m[0][2] += keep;
    {
        let mut m = vec![vec![x[1]; 1]; 1];
        m[0][0] *= 7.0;
    }
    let m = m[0][2] * m[0][0];
    m + keep
}
case!(t_shadowing, shadowing, shadowing_jvp, shadowing_vjp, 3);

#[forward]
#[reverse]
fn callee_then_write(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0], x[1]], vec![x[2], x[0]]];
    let a = frob(&m);
    m[0][0] = frob(&m);
    m[1][1] += frob(&m) * x[1];
    m[0][1] = weighted(&m[1]);
    a + frob(&m) + weighted(&m[0])
}
case!(
    t_callee_then_write,
    callee_then_write,
    callee_then_write_jvp,
    callee_then_write_vjp,
    3
);

#[forward]
#[reverse]
fn arrays_of_arrays(x: &[f64]) -> f64 {
    let mut a = [[0.0; 2]; 2];
    a[0][0] = x[0];
    a[1][1] = x[1] * a[0][0];
    a[0][1] += a[1][1].sin();
    let mut b = [[x[0], x[1]], [x[2], 1.0]];
    b[1][1] *= b[0][0] + a[0][1];
    let mut c = vec![[x[0], x[1], x[2]]; 3];
    c[2][1] = c[0][2] * c[1][0];
    c[1][1] -= c[2][1];
    let mut d = vec![vec![x[0], x[1]], vec![x[2]; 2]];
    d[1][0] %= 0.3;
    d[1][1] = d[0][0] * d[1][0];
    a[0][1] * a[1][1] + b[1][1] + c[2][1] + c[1][1] + d[1][1] + d[0][1]
}
case!(
    t_arrays_of_arrays,
    arrays_of_arrays,
    arrays_of_arrays_jvp,
    arrays_of_arrays_vjp,
    3
);

#[forward]
#[reverse]
fn copies_of_local(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0], x[1]], vec![x[2], 1.0]];
    let c = m.clone();
    let d = m.to_vec();
    m[0][0] = x[1] * 4.0;
    m[1][0] *= m[0][0];
    c[0][0] * m[0][0] + d[1][0] * m[1][0] + c[1][1] + frob(&c)
}
case!(
    t_copies_of_local,
    copies_of_local,
    copies_of_local_jvp,
    copies_of_local_vjp,
    3
);

#[forward]
#[reverse]
fn iterate_forms(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0], x[1]], vec![x[2], x[0] * x[2]]];
    m[1][0] *= 2.0;
    let mut s = 0.0;
    for (i, row) in m.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            s += v * (i + 2 * j + 1) as f64;
        }
    }
    m[0][1] = s;
    for row in m.iter() {
        s += row[0] * row[1];
    }
    let mut t = 0.0;
    for row in &m {
        t += row.iter().map(|v| v * v).sum::<f64>();
    }
    s + t
}
case!(
    t_iterate_forms,
    iterate_forms,
    iterate_forms_jvp,
    iterate_forms_vjp,
    3
);

#[forward]
#[reverse]
fn recursion_helper(m: &[Vec<f64>], k: usize) -> f64 {
    if k == 0 {
        return frob(m);
    }
    let mut c = m.to_vec();
    c[k % 2][0] *= c[(k + 1) % 2][1];
    c[0][1] += c[1][0].sin();
    recursion_helper(&c, k - 1) + c[0][0]
}

#[forward]
#[reverse]
fn recursion(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0], x[1]], vec![x[2], 0.5]];
    m[1][1] *= x[0];
    recursion_helper(&m, 3)
}
case!(t_recursion, recursion, recursion_jvp, recursion_vjp, 3);

#[forward]
#[reverse]
fn by_value(mut z: Vec<Vec<f64>>, t: f64) -> f64 {
    z[0][0] *= t;
    let a = frob(&z);
    z[1][0] = z[0][0] * a;
    z[0][1] += weighted(&z[1]);
    let mut s = 0.0;
    for row in &z {
        s += row[0] * row[1];
    }
    s
}

#[test]
fn t_by_value() {
    let mut rng = Rng::new(3);
    for _ in 0..4 {
        let z = vec![random_vector(&mut rng, 2), random_vector(&mut rng, 2)];
        let t = rng.uniform(0.5, 1.5);
        let (value, (gz, gt)) = by_value_grad(z.clone(), t);
        assert_eq!(value.to_bits(), by_value(z.clone(), t).to_bits());
        let zero = vec![vec![0.0; 2]; 2];
        for i in 0..2 {
            for j in 0..2 {
                let mut d = zero.clone();
                d[i][j] = 1.0;
                let (_, along) = by_value_jvp(z.clone(), t, d, 0.0);
                assert_relative_eq!(gz[i][j], along, epsilon = 1e-12, max_relative = 1e-10);
            }
        }
        let (_, along) = by_value_jvp(z.clone(), t, zero.clone(), 1.0);
        assert_relative_eq!(gt, along, epsilon = 1e-12, max_relative = 1e-10);
        assert_relative_eq!(
            along,
            central_difference(|t| by_value(z.clone(), t), t, 1e-4),
            epsilon = 1e-7,
            max_relative = 1e-6
        );
    }
}

#[forward]
#[reverse]
fn param_copy(m: &[Vec<f64>], t: f64) -> f64 {
    let mut c = m.to_vec();
    c[0][0] = c[0][0] * c[1][1] * t;
    c[1][1] = m[1][1] * c[0][0];
    c[0][1] += m[0][0];
    frob(&c) + c[0][1] * m[0][1]
}

#[test]
fn t_param_copy() {
    let mut rng = Rng::new(4);
    for _ in 0..4 {
        let m = vec![random_vector(&mut rng, 2), random_vector(&mut rng, 2)];
        let t = rng.uniform(0.5, 1.5);
        let (value, (gm, gt)) = param_copy_grad(&m, t);
        assert_eq!(value.to_bits(), param_copy(&m, t).to_bits());
        let zero = vec![vec![0.0; 2]; 2];
        for i in 0..2 {
            for j in 0..2 {
                let mut d = zero.clone();
                d[i][j] = 1.0;
                let (_, along) = param_copy_jvp(&m, t, &d, 0.0);
                assert_relative_eq!(gm[i][j], along, epsilon = 1e-12, max_relative = 1e-10);
            }
        }
        let (_, along) = param_copy_jvp(&m, t, &zero, 1.0);
        assert_relative_eq!(gt, along, epsilon = 1e-12, max_relative = 1e-10);
    }
}

#[test]
fn f32_arrays_rows() {
    #[forward]
    #[reverse]
    fn small(x: f32, y: f32) -> f32 {
        let mut t: Vec<[f32; 2]> = Vec::new();
        t.push([x, y]);
        t.push([y * y, x]);
        t[1][0] *= t[0][0];
        let mut a = [[x; 2]; 2];
        a[0][1] = a[1][0] * y;
        t[0][1] * t[1][0] + a[0][1] * a[1][1]
    }
    let (x, y) = (0.7f32, -0.4f32);
    let (value, (gx, gy)) = small_grad(x, y);
    assert_eq!(value.to_bits(), small(x, y).to_bits());
    let (_, dx) = small_jvp(x, y, 1.0, 0.0);
    let (_, dy) = small_jvp(x, y, 0.0, 1.0);
    assert_relative_eq!(gx, dx, max_relative = 1e-5);
    assert_relative_eq!(gy, dy, max_relative = 1e-5);
}

#[test]
fn hvp_nested() {
    check_hessian_vector_product(loops_write::grad, loops_write_grad);
}

// ----- feature 2: container results of differentiated calls -----

#[forward]
#[reverse]
fn result_after_args_overwritten(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let y = squares(&v);
    v[0] = 3.0 * v[1];
    v[1] *= y[2];
    let mut m = vec![vec![x[0], x[1]], vec![x[2], 1.0]];
    let r = row_sums(&m);
    m[0][0] = r[1] * 2.0;
    m[1][0] *= r[0];
    y[0] * v[0] + y[1] * v[1] + frob(&m) + r[0]
}
case!(
    t_result_after_args_overwritten,
    result_after_args_overwritten,
    result_after_args_overwritten_jvp,
    result_after_args_overwritten_vjp,
    3
);

#[forward]
#[reverse]
fn results_in_loops(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let mut s = 0.0;
    for i in 0..3 {
        let y = squares(&v);
        v[i] = y[i] * y[(i + 1) % 3] * 0.3;
        let p = prefix(&v, i + 1);
        s += p[i] + p.len() as f64;
    }
    s + v[0] + v[1] * v[2]
}
case!(
    t_results_in_loops,
    results_in_loops,
    results_in_loops_jvp,
    results_in_loops_vjp,
    3
);

#[forward]
#[reverse]
fn nested_calls(x: &[f64]) -> f64 {
    let a = squares(x);
    let b = squares(&a);
    // An untyped `let inner = squares(x);` only passed on (`squares(&inner)`) is refused with
    // "reverse mode passes references to whole containers only; pass the float itself".
    let inner: Vec<f64> = squares(x);
    let c: Vec<f64> = squares(&inner);
    let p: [f64; 2] = rot(b[0], a[1]);
    let q = rot(p[0], p[1]);
    b[1] + c[2] * q[0] + q[1] + weighted(&b) + weighted(&a)
}
case!(
    t_nested_calls,
    nested_calls,
    nested_calls_jvp,
    nested_calls_vjp,
    3
);

#[forward]
#[reverse]
fn written_results(x: &[f64]) -> f64 {
    let mut y = squares(x);
    y[0] *= y[1];
    y[1] = y[2] * x[0];
    y[2] += y[0];
    let mut p: [f64; 2] = rot(x[0], x[1]);
    p[0] = p[1] * p[0];
    weighted(&y) + p[0] + y.len() as f64
}
case!(
    t_written_results,
    written_results,
    written_results_jvp,
    written_results_vjp,
    3
);

#[forward]
#[reverse]
fn shadowed_results(x: &[f64]) -> f64 {
    let y = squares(x);
    let s = y[0] + y[2];
    let y = 2.0 * s;
    let z = scalar_of(x);
    let w = z * y;
    w
}
case!(
    t_shadowed_results,
    shadowed_results,
    shadowed_results_jvp,
    shadowed_results_vjp,
    3
);

// FIXED (was failing): compile errors inside generated code (E0599 no method `len` on `__S`, E0308
// `add_vector` expected `&[__S]`, E0277 `__S: Row<__S>`): `used_as_container` looks at the
// name in the whole body, so the scalar `y` is taken for a container result.
#[forward]
#[reverse]
fn scalar_named_like_container(x: &[f64]) -> f64 {
    let y = scalar_of(x);
    let a = y * 3.0;
    let y = squares(x);
    a + y[1]
}
case!(
    t_scalar_named_like_container,
    scalar_named_like_container,
    scalar_named_like_container_jvp,
    scalar_named_like_container_vjp,
    3
);

#[forward]
#[reverse]
fn result_iterated(x: &[f64]) -> f64 {
    let y = squares(x);
    let mut s = 0.0;
    for v in &y {
        s += v * v;
    }
    for (i, v) in y.iter().enumerate() {
        s += v * i as f64;
    }
    let t: f64 = y.iter().map(|v| v.sin()).sum();
    s + t
}
case!(
    t_result_iterated,
    result_iterated,
    result_iterated_jvp,
    result_iterated_vjp,
    3
);

#[forward]
#[reverse]
fn result_only_passed(x: &[f64]) -> f64 {
    let y: Vec<f64> = squares(x);
    weighted(&y) + weighted(&y)
}
case!(
    t_result_only_passed,
    result_only_passed,
    result_only_passed_jvp,
    result_only_passed_vjp,
    3
);

#[forward]
#[reverse]
fn data_results(x: &[f64]) -> f64 {
    let d: Vec<f64> = data_vec(x.len());
    let e = data_vec(3);
    let mut s = 0.0;
    for i in 0..x.len() {
        s += d[i] * x[i] + e[i] * x[i] * x[i];
    }
    let f: Vec<f64> = data_vec(3);
    s + f[0] * f[1] + weighted(&f)
}
case!(
    t_data_results,
    data_results,
    data_results_jvp,
    data_results_vjp,
    3
);

#[test]
fn hvp_results() {
    let x = [0.4, -0.3, 0.9];
    let v = [0.2, 1.0, -0.5];
    let duals: Vec<Dual<f64>> = x.iter().zip(&v).map(|(&x, &v)| Dual::new(x, v)).collect();
    let (_, gradient) = nested_calls::grad(&duals);
    let h = 1e-5;
    let gradient_at = |s: f64| {
        let moved: Vec<f64> = x.iter().zip(&v).map(|(x, v)| x + s * v).collect();
        nested_calls_grad(&moved).1
    };
    let (plus, minus) = (gradient_at(h), gradient_at(-h));
    for k in 0..3 {
        assert_relative_eq!(
            gradient[k].tangent,
            (plus[k] - minus[k]) / (2.0 * h),
            epsilon = 1e-6,
            max_relative = 1e-5
        );
    }
}

// ----- batch 2 -----

// REFUSED (misleading message): "bind this value to a name first (`let y = g(x);`, then `y[i]`)" at `z[0]`, though it is bound.
// #[forward]
// #[reverse]
// fn result_moved(x: &[f64]) -> f64 {
//     let y = squares(x);
//     let z = y;
//     z[0] * z[1]
// }
// case!(t_result_moved, result_moved, result_moved_jvp, result_moved_vjp, 3);

// REFUSED: "does not take `.clone(..)` over floats here yet".
// #[forward]
// #[reverse]
// fn result_cloned(x: &[f64]) -> f64 {
//     let y = squares(x);
//     let z = y.clone();
//     z[0] * z[2]
// }
// case!(t_result_cloned, result_cloned, result_cloned_jvp, result_cloned_vjp, 3);

#[forward]
#[reverse]
fn result_in_closure(x: &[f64]) -> f64 {
    let y = squares(x);
    let f = |i: usize| y[i] * 2.0;
    f(0) + f(2) * f(1)
}
case!(
    t_result_in_closure,
    result_in_closure,
    result_in_closure_jvp,
    result_in_closure_vjp,
    3
);

// REFUSED (misleading message) at `rows.push(t)` with untyped `let t = squares(x);`: suggests annotating
// the container `let mut v: Vec<f64> = Vec::new();`.
// #[forward]
// #[reverse]
// fn result_pushed(x: &[f64]) -> f64 {
//     let mut rows: Vec<Vec<f64>> = Vec::new();
//     let s: Vec<f64> = squares(x);
//     rows.push(s);
//     let t = squares(x);
//     rows.push(t);
//     rows[0][1] *= rows[1][2];
//     frob(&rows)
// }
// case!(t_result_pushed, result_pushed, result_pushed_jvp, result_pushed_vjp, 3);

// REFUSED (misleading message) at `rows.push(squares(x))`: same message as above.
// #[forward]
// #[reverse]
// fn result_pushed_direct(x: &[f64]) -> f64 {
//     let mut rows: Vec<Vec<f64>> = Vec::new();
//     rows.push(squares(x));
//     rows.push(x.to_vec());
//     rows[0][1] *= rows[1][2];
//     frob(&rows)
// }
// case!(t_result_pushed_direct, result_pushed_direct, result_pushed_direct_jvp, result_pushed_direct_vjp, 3);

// REFUSED (misleading messages) at the writes: "can only update floats held in plain variables yet",
// "cannot follow an assignment to a float inside an expression; make it a statement of its own"
// (it is a statement), "cannot follow `x` here".
// #[forward]
// #[reverse]
// fn repeat_of_copy(x: &[f64]) -> f64 {
//     let mut m = vec![x.to_vec(); 2];
//     m[1][0] *= 2.0 * x[1];
//     m[0][2] = m[1][0] + m[0][1];
//     frob(&m)
// }
// case!(t_repeat_of_copy, repeat_of_copy, repeat_of_copy_jvp, repeat_of_copy_vjp, 3);

// REFUSED (misleading messages), as repeat_of_copy.
// #[forward]
// #[reverse]
// fn repeat_of_local(x: &[f64]) -> f64 {
//     let v = vec![x[0], x[1] * x[2]];
//     let mut m = vec![v; 2];
//     m[1][0] *= 2.0 * x[1];
//     frob(&m)
// }
// case!(t_repeat_of_local, repeat_of_local, repeat_of_local_jvp, repeat_of_local_vjp, 3);

// REFUSED (misleading messages), as repeat_of_copy.
// #[forward]
// #[reverse]
// fn list_of_copies(x: &[f64]) -> f64 {
//     let mut m = vec![x.to_vec(), x.to_vec()];
//     m[1][0] *= 2.0 * x[1];
//     frob(&m)
// }
// case!(t_list_of_copies, list_of_copies, list_of_copies_jvp, list_of_copies_vjp, 3);

// REFUSED: `.collect(..)` message, then the misleading messages of repeat_of_copy.
// #[forward]
// #[reverse]
// fn collected_matrix(x: &[f64]) -> f64 {
//     let mut m: Vec<Vec<f64>> = (0..2).map(|_| x.to_vec()).collect();
//     m[1][0] *= 2.0 * x[1];
//     frob(&m)
// }
// case!(t_collected_matrix, collected_matrix, collected_matrix_jvp, collected_matrix_vjp, 3);

#[forward]
#[reverse]
fn activity_late(x: &[f64]) -> f64 {
    let mut a = vec![vec![0.0; 2]; 2];
    let mut b = vec![vec![0.0; 2]; 2];
    for it in 0..2 {
        b[0][0] = a[1][1] * 2.0;
        a[1][1] = x[it];
    }
    b[0][0] + a[1][1]
}
case!(
    t_activity_late,
    activity_late,
    activity_late_jvp,
    activity_late_vjp,
    3
);

#[forward]
#[reverse]
fn activity_by_call(x: &[f64]) -> f64 {
    let mut a = vec![vec![0.0; 2]; 2];
    a[0][1] = scalar_of(x);
    a[1][0] += weighted(x);
    a[0][1] * a[1][0]
}
case!(
    t_activity_by_call,
    activity_by_call,
    activity_by_call_jvp,
    activity_by_call_vjp,
    3
);

#[forward]
#[reverse]
fn constant_rows_then_floats(x: &[f64]) -> f64 {
    let mut rows = Vec::new();
    rows.push(vec![0.0, 1.0]);
    rows.push(vec![2.0, 3.0]);
    rows[0][0] = x[0];
    rows[1][1] *= x[1];
    frob(&rows)
}
case!(
    t_constant_rows_then_floats,
    constant_rows_then_floats,
    constant_rows_then_floats_jvp,
    constant_rows_then_floats_vjp,
    3
);

#[forward]
#[reverse]
fn push_onto_literal(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0], x[1]]; 2];
    m.push(vec![x[2], x[0]]);
    let mut n = vec![vec![x[0]; 2]; 2];
    n.push(vec![x[2]; 2]);
    let mut k = vec![vec![x[0], x[1]], vec![x[2]; 2]];
    k.push(vec![x[1], x[1]]);
    m[2][0] *= m[0][0];
    n[2][1] += n[1][1];
    k[2][1] *= k[1][0];
    frob(&m) + frob(&n) + frob(&k)
}
case!(
    t_push_onto_literal,
    push_onto_literal,
    push_onto_literal_jvp,
    push_onto_literal_vjp,
    3
);

#[forward]
#[reverse]
fn shadow_reads_old(x: &[f64]) -> f64 {
    let m = vec![vec![x[0], x[1]], vec![x[2], 1.0]];
    let mut m = vec![vec![m[0][1], m[1][0]], vec![m[1][1] * m[0][0]; 2]];
    m[1][0] *= m[0][0];
    let mut m = m.clone();
    m[0][1] = m[1][1] * 3.0;
    frob(&m)
}
case!(
    t_shadow_reads_old,
    shadow_reads_old,
    shadow_reads_old_jvp,
    shadow_reads_old_vjp,
    3
);

#[forward]
#[reverse]
fn float_index(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0], x[1]], vec![x[2], 1.0]];
    let i = (m[0][0] > 0.0) as usize;
    m[i][1 - i] *= m[1 - i][i];
    let last = m.len() - 1;
    m[last][0] += m[0].len() as f64 * x[1];
    frob(&m)
}
case!(
    t_float_index,
    float_index,
    float_index_jvp,
    float_index_vjp,
    3
);

#[forward]
#[reverse]
fn match_and_continue(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0], x[1]], vec![x[2], 1.0]];
    for i in 0..4 {
        match i % 3 {
            0 => m[0][0] *= m[1][1] + 0.5,
            1 => {
                m[1][1] = m[0][1] * m[1][0];
                continue;
            }
            _ => m[0][1] -= m[0][0],
        }
        m[1][0] += 0.25 * m[0][0];
    }
    frob(&m)
}
case!(
    t_match_and_continue,
    match_and_continue,
    match_and_continue_jvp,
    match_and_continue_vjp,
    3
);

// REFUSED (misleading message): "bind this value to a name first" at `y[0]`.
// #[forward]
// #[reverse]
// fn results_branch(x: &[f64]) -> f64 {
//     let v = vec![x[1], x[2], x[0]];
//     let y = if x[0] > 0.0 { squares(x) } else { squares(&v) };
//     y[0] * y[1]
// }
// case!(t_results_branch, results_branch, results_branch_jvp, results_branch_vjp, 3);

#[forward]
#[reverse]
fn results_accumulated(x: &[f64]) -> f64 {
    let mut acc = squares(x);
    for _ in 0..2 {
        let n = squares(&acc);
        for i in 0..3 {
            acc[i] = n[i] * 0.5 + acc[(i + 1) % 3];
        }
    }
    acc[0] + acc[1] * acc[2]
}
case!(
    t_results_accumulated,
    results_accumulated,
    results_accumulated_jvp,
    results_accumulated_vjp,
    3
);

#[forward]
#[reverse]
fn result_arrays_iter(x: &[f64]) -> f64 {
    let p = rot(x[0], x[1]);
    let mut s = 0.0;
    for v in p {
        s += v * v * x[2];
    }
    for v in &p {
        s += v.sin();
    }
    s + p.len() as f64
}
case!(
    t_result_arrays_iter,
    result_arrays_iter,
    result_arrays_iter_jvp,
    result_arrays_iter_vjp,
    3
);

#[forward]
#[reverse]
fn scalar_outer_container_inner(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..2 {
        let y = squares(x);
        s += y[i];
    }
    let z = s * 2.0;
    z
}
case!(
    t_scalar_outer_container_inner,
    scalar_outer_container_inner,
    scalar_outer_container_inner_jvp,
    scalar_outer_container_inner_vjp,
    3
);

#[forward]
#[reverse]
fn nested_result_rows(m: &[Vec<f64>]) -> f64 {
    let mut c = m.to_vec();
    let r = row_sums(&c);
    c[0][0] = r[1];
    let r2 = row_sums(&c);
    c[1][1] *= r2[0];
    let r3: Vec<f64> = squares(&c[1]);
    r3[0] + r3[1] + frob(&c)
}

#[test]
fn t_nested_result_rows() {
    let mut rng = Rng::new(9);
    for _ in 0..4 {
        let m = vec![random_vector(&mut rng, 2), random_vector(&mut rng, 2)];
        let (value, gm) = nested_result_rows_grad(&m);
        assert_eq!(value.to_bits(), nested_result_rows(&m).to_bits());
        let zero = vec![vec![0.0; 2]; 2];
        for i in 0..2 {
            for j in 0..2 {
                let mut d = zero.clone();
                d[i][j] = 1.0;
                let (_, along) = nested_result_rows_jvp(&m, &d);
                assert_relative_eq!(gm[i][j], along, epsilon = 1e-12, max_relative = 1e-10);
                let moved = |h: f64| {
                    let mut mm = m.clone();
                    mm[i][j] += h;
                    nested_result_rows(&mm)
                };
                assert_relative_eq!(
                    along,
                    central_difference(moved, 0.0, 1e-4),
                    epsilon = 1e-7,
                    max_relative = 1e-6
                );
            }
        }
    }
}

// Read-only matrices built from copies and results (not written): must not be data.
// FIXED (was failing): compile errors inside generated code (E0308 at #[reverse]: `add_vector` expected `&[__S]`,
// found `&Vec<Vec<__S>>`; and expected `&[__S]`, found `&__S`). With `m[1][0]` read, refused with
// the misleading "bind this value to a name first".
#[forward]
#[reverse]
fn readonly_repeat_of_copy(x: &[f64]) -> f64 {
    let m = vec![x.to_vec(); 2];
    frob(&m)
}
case!(
    t_readonly_repeat_of_copy,
    readonly_repeat_of_copy,
    readonly_repeat_of_copy_jvp,
    readonly_repeat_of_copy_vjp,
    3
);

// FIXED (was failing): compile errors inside generated code, as readonly_repeat_of_copy.
#[forward]
#[reverse]
fn readonly_list_of_copies(x: &[f64]) -> f64 {
    let v = vec![x[0], x[1] * x[2]];
    let m = vec![x.to_vec(), x.to_vec()];
    let n = vec![v.clone(), v];
    frob(&m) + frob(&n)
}
case!(
    t_readonly_list_of_copies,
    readonly_list_of_copies,
    readonly_list_of_copies_jvp,
    readonly_list_of_copies_vjp,
    3
);

// FIXED (was failing): compile errors inside generated code, as readonly_repeat_of_copy.
#[forward]
#[reverse]
fn readonly_results_matrix(x: &[f64]) -> f64 {
    let a: Vec<f64> = squares(x);
    let m = vec![a.clone(), x.to_vec()];
    frob(&m)
}
case!(
    t_readonly_results_matrix,
    readonly_results_matrix,
    readonly_results_matrix_jvp,
    readonly_results_matrix_vjp,
    3
);

// REFUSED: `.collect(..)` message (clear).
// #[forward]
// #[reverse]
// fn readonly_collected(x: &[f64]) -> f64 {
//     let m: Vec<Vec<f64>> = (0..2).map(|_| x.to_vec()).collect();
//     frob(&m)
// }
// case!(t_readonly_collected, readonly_collected, readonly_collected_jvp, readonly_collected_vjp, 3);

// ----- batch 3 -----

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Seg {
    pub a: f64,
    pub b: f64,
}

impl Seg {
    /// A float-valued method named `len`.
    #[forward]
    #[reverse]
    pub fn len(&self) -> f64 {
        (self.a * self.a + self.b * self.b).sqrt()
    }

    #[forward]
    #[reverse]
    pub fn coords(&self, k: f64) -> Vec<f64> {
        vec![self.a * k, self.b * self.a, k]
    }
}

#[forward]
#[reverse]
fn seg_len(#[grad] s: &Seg, t: f64) -> f64 {
    let l = s.len();
    l * t + s.a
}

// FIXED (was failing): silently wrong reverse derivative. `let l = s.len();` with `len` a differentiated
// method returning f64: `retype.rs::is_data_constant` replaces every `.len()` by `0usize`, so
// `s.len()` is taken for data and its derivative is dropped. At a = 0.6, b = -0.8, t = 1.5:
// reverse (da, db, dt) = (1.0, 0.0, 1.0); forward and differences (1.9, -1.2, 1.0).
#[test]
fn t_seg_len() {
    let mut rng = Rng::new(12);
    for _ in 0..4 {
        let s = Seg {
            a: rng.uniform(-1.5, 1.5),
            b: rng.uniform(-1.5, 1.5),
        };
        let t = rng.uniform(-1.5, 1.5);
        common::check_user_type(seg_len, seg_len_jvp, seg_len_vjp, &s, t, &mut rng);
    }
}

#[forward]
#[reverse]
fn seg_coords(#[grad] s: &Seg, t: f64) -> f64 {
    let c = s.coords(t);
    let d: Vec<f64> = s.coords(c[0]);
    c[0] * c[1] + d[1] * d[2] + c.len() as f64
}

#[test]
fn t_seg_coords() {
    let mut rng = Rng::new(13);
    for _ in 0..4 {
        let s = Seg {
            a: rng.uniform(-1.5, 1.5),
            b: rng.uniform(-1.5, 1.5),
        };
        let t = rng.uniform(-1.5, 1.5);
        common::check_user_type(seg_coords, seg_coords_jvp, seg_coords_vjp, &s, t, &mut rng);
    }
}

#[forward]
#[reverse]
fn push_row_of_self(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0], x[1]], vec![x[2] * x[0], 1.0]];
    m.push(m[0].clone());
    m[2][0] *= x[2];
    m[0][0] = m[0][1] * x[0];
    m.push(m[2].to_vec());
    m[3][1] += m[2][0];
    frob(&m)
}
case!(
    t_push_row_of_self,
    push_row_of_self,
    push_row_of_self_jvp,
    push_row_of_self_vjp,
    3
);

#[forward]
#[reverse]
fn result_grown(x: &[f64]) -> f64 {
    let mut y = squares(x);
    y.push(x[0] * x[1]);
    y[3] *= y[0];
    y[0] = y[3] + y[1];
    let mut p: Vec<f64> = prefix(x, 2);
    p.push(y[2]);
    weighted(&y) + weighted(&p) + y[3]
}
case!(
    t_result_grown,
    result_grown,
    result_grown_jvp,
    result_grown_vjp,
    3
);

#[forward]
#[reverse]
fn result_into_matrix(x: &[f64]) -> f64 {
    let y: Vec<f64> = squares(x);
    let mut rows: Vec<Vec<f64>> = Vec::new();
    rows.push(y.clone());
    rows.push(y);
    rows[1][0] *= x[1];
    let z = squares(x);
    let mut m = vec![vec![0.0; 3]; 2];
    for j in 0..3 {
        m[0][j] = z[j] * rows[0][j];
        m[1][j] += z[(j + 1) % 3];
    }
    frob(&m) + frob(&rows)
}
case!(
    t_result_into_matrix,
    result_into_matrix,
    result_into_matrix_jvp,
    result_into_matrix_vjp,
    3
);

#[forward]
#[reverse]
fn result_empty_and_lengths(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..4 {
        let p = prefix(x, k);
        if p.is_empty() {
            s += x[0];
            continue;
        }
        s += p[p.len() - 1] * p[0];
    }
    s
}
case!(
    t_result_empty_and_lengths,
    result_empty_and_lengths,
    result_empty_and_lengths_jvp,
    result_empty_and_lengths_vjp,
    3
);

#[forward]
#[reverse]
fn result_same_name_loop(x: &[f64]) -> f64 {
    let mut y = squares(x);
    for _ in 0..3 {
        let y2 = squares(&y);
        let y3 = rot(y2[0], y2[1]);
        y[0] = y3[0];
        y[1] = y3[1] * 0.5;
        y[2] = y2[2].sin();
    }
    y[0] + y[1] + y[2]
}
case!(
    t_result_same_name_loop,
    result_same_name_loop,
    result_same_name_loop_jvp,
    result_same_name_loop_vjp,
    3
);

#[forward]
#[reverse]
fn result_shadow_block(x: &[f64]) -> f64 {
    let y = squares(x);
    let mut s = y[0];
    {
        let y = rot(x[0], s);
        s += y[1];
    }
    let y = y[2] * s;
    y
}
case!(
    t_result_shadow_block,
    result_shadow_block,
    result_shadow_block_jvp,
    result_shadow_block_vjp,
    3
);

#[forward]
#[reverse]
fn nested_row_from_result_loop(x: &[f64]) -> f64 {
    let mut rows = Vec::new();
    for i in 0..3 {
        let r: Vec<f64> = prefix(x, i + 1);
        rows.push(r);
    }
    for i in 0..3 {
        rows[i][i] *= rows[2][0];
    }
    frob(&rows)
}
case!(
    t_nested_row_from_result_loop,
    nested_row_from_result_loop,
    nested_row_from_result_loop_jvp,
    nested_row_from_result_loop_vjp,
    3
);

#[forward]
#[reverse]
fn len_as_data(x: &[f64]) -> f64 {
    let y = squares(x);
    let n = y.len() as f64 + x.len() as f64;
    let k = (y.len() * 2) as f64;
    n * y[0] + k * x[1]
}
case!(
    t_len_as_data,
    len_as_data,
    len_as_data_jvp,
    len_as_data_vjp,
    3
);

impl Seg {
    #[forward]
    #[reverse]
    pub fn length(&self) -> f64 {
        (self.a * self.a + self.b * self.b).sqrt()
    }
}

/// The same as `seg_len` with the method named `length`: passes.
#[forward]
#[reverse]
fn seg_length(#[grad] s: &Seg, t: f64) -> f64 {
    let l = s.length();
    l * t + s.a
}

#[test]
fn t_seg_length() {
    let mut rng = Rng::new(12);
    for _ in 0..4 {
        let s = Seg {
            a: rng.uniform(-1.5, 1.5),
            b: rng.uniform(-1.5, 1.5),
        };
        let t = rng.uniform(-1.5, 1.5);
        common::check_user_type(seg_length, seg_length_jvp, seg_length_vjp, &s, t, &mut rng);
    }
}

// FIXED (was failing): compile error inside generated types, in both modes (E0599 "no method named `len`
// found for reference `&__AdOver_Seg<__S>`") at `s.len()` in a larger expression.
// /// `len` of a user type inside a larger expression, and `is_empty`.
#[forward]
#[reverse]
fn seg_len_expr(#[grad] s: &Seg, t: f64) -> f64 {
    let l = 2.0 * s.len() + 1.0;
    let m = t * s.len();
    l * t + m
}

#[test]
fn t_seg_len_expr() {
    let mut rng = Rng::new(14);
    for _ in 0..4 {
        let s = Seg {
            a: rng.uniform(-1.5, 1.5),
            b: rng.uniform(-1.5, 1.5),
        };
        let t = rng.uniform(-1.5, 1.5);
        common::check_user_type(
            seg_len_expr,
            seg_len_expr_jvp,
            seg_len_expr_vjp,
            &s,
            t,
            &mut rng,
        );
    }
}

// ----- batch 4 -----

/// A `Vec`-returning function returning a container result.
// REFUSED (misleading message and span): "reverse mode does not support float containers yet;
// bind a scalar `f64`", pointing at the return type `Vec<f64>`, not at the untyped `let y`.
// #[forward]
// #[reverse]
// fn wrap_plain(x: &[f64]) -> Vec<f64> {
//     let y = squares(x);
//     y
// }

#[forward]
#[reverse]
fn wrap_written(x: &[f64]) -> Vec<f64> {
    let mut y = squares(x);
    y[0] *= y[1];
    y
}

#[forward]
#[reverse]
fn wrap_typed(x: &[f64]) -> Vec<f64> {
    let y: Vec<f64> = squares(x);
    y
}

#[forward]
#[reverse]
fn wrap_array(t: f64, r: f64) -> [f64; 2] {
    let p = rot(t, r);
    let mut q = rot(p[1], p[0]);
    q[1] *= p[0];
    q
}

/// `_vjp` of a function of one slice returning a `Vec`: each row of the Jacobian against
/// forward mode.
fn check_vec_valued(
    plain: fn(&[f64]) -> Vec<f64>,
    jvp: fn(&[f64], &[f64]) -> (Vec<f64>, Vec<f64>),
    vjp: fn(&[f64], Vec<f64>) -> (Vec<f64>, Vec<f64>),
) {
    let mut rng = Rng::new(31);
    for _ in 0..3 {
        let x = random_vector(&mut rng, 3);
        let value = plain(&x);
        let cot = random_vector(&mut rng, value.len());
        let (rv, g) = vjp(&x, cot.clone());
        assert_eq!(rv, value);
        for k in 0..3 {
            let mut basis = vec![0.0; 3];
            basis[k] = 1.0;
            let (fv, along) = jvp(&x, &basis);
            assert_eq!(fv, value);
            let expected: f64 = along.iter().zip(&cot).map(|(a, c)| a * c).sum();
            assert_relative_eq!(g[k], expected, epsilon = 1e-12, max_relative = 1e-10);
        }
    }
}

#[test]
fn t_wrappers() {
    check_vec_valued(wrap_written, wrap_written_jvp, wrap_written_vjp);
    check_vec_valued(wrap_typed, wrap_typed_jvp, wrap_typed_vjp);
    let (t, r) = (0.3, 1.2);
    let (v, (gt, gr)) = wrap_array_vjp(t, r, [0.7, -1.1]);
    assert_eq!(v, wrap_array(t, r));
    let (_, dt) = wrap_array_jvp(t, r, 1.0, 0.0);
    let (_, dr) = wrap_array_jvp(t, r, 0.0, 1.0);
    assert_relative_eq!(gt, 0.7 * dt[0] - 1.1 * dt[1], epsilon = 1e-12);
    assert_relative_eq!(gr, 0.7 * dr[0] - 1.1 * dr[1], epsilon = 1e-12);
}

#[forward]
#[reverse]
fn shadow_param_by_result(x: &[f64]) -> f64 {
    let x = squares(x);
    let m = vec![vec![x[0], x[1]], vec![x[2]; 2]];
    let m = squares(&m[1]);
    x[0] * x[1] + m[0] * m[1]
}
case!(
    t_shadow_param_by_result,
    shadow_param_by_result,
    shadow_param_by_result_jvp,
    shadow_param_by_result_vjp,
    3
);

#[forward]
#[reverse]
fn result_feeds_matrix_activity(x: &[f64]) -> f64 {
    let y = squares(x);
    let mut a = vec![vec![0.0; 2]; 2];
    a[0][0] = y[1];
    a[1][1] += y[2] * a[0][0];
    let d: Vec<f64> = data_vec(2);
    a[0][1] = d[1] * y[0];
    let e = data_vec(x.len());
    a[1][0] -= e[2] * x[2];
    frob(&a)
}
case!(
    t_result_feeds_matrix_activity,
    result_feeds_matrix_activity,
    result_feeds_matrix_activity_jvp,
    result_feeds_matrix_activity_vjp,
    3
);

#[forward]
#[reverse]
fn rows_while_break(x: &[f64]) -> f64 {
    let mut rows: Vec<Vec<f64>> = Vec::new();
    let mut i = 0;
    let mut acc = x[0];
    while i < 10 {
        if i % 2 == 0 {
            rows.push(vec![acc, x[1] * acc]);
        } else {
            rows.push(vec![x[2]; 3]);
        }
        let last = rows.len() - 1;
        rows[last][1] *= acc;
        acc = rows[last][0] * 0.5 + rows[last][1];
        if acc.abs() > 3.0 || i == 4 {
            break;
        }
        i += 1;
    }
    frob(&rows) + acc
}
case!(
    t_rows_while_break,
    rows_while_break,
    rows_while_break_jvp,
    rows_while_break_vjp,
    3
);

#[forward]
#[reverse]
fn array_rows_repeat(x: &[f64]) -> f64 {
    let n = x.len();
    let mut p = vec![[0.0; 3]; n];
    for i in (0..n).rev() {
        for j in 0..3 {
            p[i][j] = x[(i + j) % n] * (j as f64 + 1.0);
        }
        p[i][i % 3] *= p[(i + 1) % n][0];
    }
    let mut b = vec![vec![0.0; 3]; n];
    for i in 0..n {
        for j in 0..3 {
            b[i][j] = p[i][j];
            p[i][j] = 0.0;
        }
    }
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..3 {
            s += b[i][j] * b[i][j] + p[i][j];
        }
    }
    s
}
case!(
    t_array_rows_repeat,
    array_rows_repeat,
    array_rows_repeat_jvp,
    array_rows_repeat_vjp,
    3
);

#[forward]
#[reverse]
fn rec_by_value(mut z: Vec<Vec<f64>>, k: usize) -> f64 {
    if k == 0 {
        return frob(&z);
    }
    z[0][0] *= z[1][1];
    z[1][0] += z[0][1].sin();
    rec_by_value(z, k - 1)
}

#[forward]
#[reverse]
fn calls_rec_by_value(x: &[f64]) -> f64 {
    let mut z = vec![vec![x[0], x[1]], vec![x[2], x[0]]];
    z[1][1] *= 0.5;
    rec_by_value(z, 3)
}
case!(
    t_calls_rec_by_value,
    calls_rec_by_value,
    calls_rec_by_value_jvp,
    calls_rec_by_value_vjp,
    3
);

#[forward]
#[reverse]
fn results_aliasing(x: &[f64]) -> f64 {
    let mut y = squares(x);
    let z = squares(&y);
    y[0] = z[0] * 0.1;
    let w = squares(&y);
    y[1] += w[1] * z[2];
    let p: [f64; 2] = rot(y[0], y[1]);
    weighted(&p) + w[0] + y[1]
}
case!(
    t_results_aliasing,
    results_aliasing,
    results_aliasing_jvp,
    results_aliasing_vjp,
    3
);

#[forward]
#[reverse]
fn matrix_rows_to_outer(x: &[f64]) -> f64 {
    let mut rows: Vec<Vec<f64>> = Vec::new();
    for k in 0..3 {
        let mut m = vec![vec![x[k], x[(k + 1) % 3]]; 2];
        m[1][0] *= m[0][1];
        rows.push(m[1].clone());
        rows.push(m[0].to_vec());
        m[0][0] = 0.0;
        rows[2 * k][1] -= m[0][0] + m[1][0];
    }
    frob(&rows)
}
case!(
    t_matrix_rows_to_outer,
    matrix_rows_to_outer,
    matrix_rows_to_outer_jvp,
    matrix_rows_to_outer_vjp,
    3
);

#[forward]
#[reverse]
fn param_arrays_copy(p: &[[f64; 2]], t: f64) -> f64 {
    let mut c = p.to_vec();
    c[0][1] *= t;
    c[1][0] = c[0][1] * c[1][1];
    let mut s = 0.0;
    for row in &c {
        s += row[0] * row[1];
    }
    s + weighted(&c[1])
}

#[test]
fn t_param_arrays_copy() {
    let p: Vec<[f64; 2]> = vec![[0.3, -0.7], [1.1, 0.4]];
    let t: f64 = 0.8;
    let (v, (gp, gt)) = param_arrays_copy_grad(&p, t);
    assert_eq!(v.to_bits(), param_arrays_copy(&p, t).to_bits());
    for i in 0..2 {
        for j in 0..2 {
            let mut d = vec![[0.0; 2]; 2];
            d[i][j] = 1.0;
            let (_, along) = param_arrays_copy_jvp(&p, t, &d, 0.0);
            assert_relative_eq!(gp[i][j], along, epsilon = 1e-12, max_relative = 1e-10);
        }
    }
    let (_, along) = param_arrays_copy_jvp(&p, t, &[[0.0; 2]; 2], 1.0);
    assert_relative_eq!(gt, along, epsilon = 1e-12, max_relative = 1e-10);
}

#[forward]
#[reverse]
fn branch_results(x: &[f64]) -> f64 {
    let mut s = 0.0;
    if x[0] > 0.0 {
        let y: Vec<f64> = squares(x);
        s += y[0] * y[2];
    } else {
        let y = prefix(x, 4);
        s += y[3];
    }
    for i in 0..2 {
        let y = squares(x);
        if y[i] > 0.5 {
            s += y[i];
            continue;
        }
        s -= y[2] * 0.5;
    }
    s
}
case!(
    t_branch_results,
    branch_results,
    branch_results_jvp,
    branch_results_vjp,
    3
);

// ----- batch 5: typed containers whose initializers are data (the `is_data_constant` change) -----

#[forward]
#[reverse]
fn typed_zeros_len(x: &[f64]) -> f64 {
    let mut d: Vec<f64> = vec![0.0; x.len()];
    for i in 0..x.len() {
        d[i] = x[i] * x[(i + 1) % x.len()];
    }
    d[0] *= x[2];
    let mut e: Vec<f64> = Vec::with_capacity(x.len());
    e.push(x[1] * 3.0);
    e.push(d[1]);
    let mut f: Vec<f64> = vec![1.0; x.len() + 1];
    f[3] *= x[0];
    f[1] += d[2];
    let mut g: [f64; 3] = [0.0; 3];
    g[2] = x[1].sin();
    let mut m: Vec<Vec<f64>> = vec![vec![0.0; x.len()]; x.len()];
    m[1][2] = x[0] * g[2];
    weighted(&d) + weighted(&e) + weighted(&f) + weighted(&g) + frob(&m)
}
case!(
    t_typed_zeros_len,
    typed_zeros_len,
    typed_zeros_len_jvp,
    typed_zeros_len_vjp,
    3
);

#[forward]
#[reverse]
fn jacobi(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0], x[1], x[2]], vec![x[2], x[0], x[1]]];
    for it in 0..3 {
        let c = m.clone();
        let r = m[it % 2].clone();
        for i in 0..2 {
            for j in 0..3 {
                m[i][j] = 0.5 * c[1 - i][(j + 1) % 3] * x[j] + 0.1 * r[j];
            }
        }
        let d = m.to_vec();
        m[0][0] += d[1][2] * c[0][0];
    }
    frob(&m)
}
case!(t_jacobi, jacobi, jacobi_jvp, jacobi_vjp, 3);

// FIXED (was failing): compile errors inside generated code (E0308 expected `Vec<__S>`, found `Vec<f64>`, one
// spanned at `#[reverse]`) at `rows.push(d)` with `let d: Vec<f64> = data_vec(3);` (reverse only; forward
// compiles) and at `rows.push(data_vec(2))` (both modes).
#[forward]
#[reverse]
fn data_rows_pushed(x: &[f64]) -> f64 {
    let mut rows: Vec<Vec<f64>> = Vec::new();
    let d: Vec<f64> = data_vec(3);
    rows.push(d);
    rows.push(x.to_vec());
    // `rows.push(data_vec(2))` directly is refused by rustc in forward mode (a `Vec<f64>` where
    // a `Vec` of the scalar type is expected, at the argument): bound with its type, it is lifted.
    let e: Vec<f64> = data_vec(2);
    rows.push(e);
    rows[0][0] = x[0] * rows[1][1];
    rows[2][1] *= x[2];
    frob(&rows)
}
case!(
    t_data_rows_pushed,
    data_rows_pushed,
    data_rows_pushed_jvp,
    data_rows_pushed_vjp,
    3
);

#[forward]
#[reverse]
fn ragged_param(m: &[Vec<f64>], mut z: Vec<Vec<f64>>, t: f64) -> f64 {
    let mut c = m.to_vec();
    for i in 0..c.len() {
        for j in 0..c[i].len() {
            c[i][j] *= t + z[i % z.len()][0];
        }
    }
    let last = c.len() - 1;
    c[last][1] += c[0][0];
    z[2][0] = c[2][2] * z[0][0];
    let mut s = frob(&c);
    for row in &z {
        for v in row {
            s += v * t;
        }
    }
    for row in &c {
        s += row.len() as f64 * t;
    }
    s
}

#[test]
fn t_ragged_param() {
    let mut rng = Rng::new(41);
    let lens = [1usize, 0, 3, 2];
    let zlens = [2usize, 0, 1];
    for _ in 0..3 {
        let m: Vec<Vec<f64>> = lens.iter().map(|&n| random_vector(&mut rng, n)).collect();
        let z: Vec<Vec<f64>> = zlens.iter().map(|&n| random_vector(&mut rng, n)).collect();
        let t: f64 = rng.uniform(0.5, 1.5);
        let (v, (gm, gz, gt)) = ragged_param_grad(&m, z.clone(), t);
        assert_eq!(v.to_bits(), ragged_param(&m, z.clone(), t).to_bits());
        let zm: Vec<Vec<f64>> = lens.iter().map(|&n| vec![0.0; n]).collect();
        let zz: Vec<Vec<f64>> = zlens.iter().map(|&n| vec![0.0; n]).collect();
        for i in 0..m.len() {
            for j in 0..m[i].len() {
                let mut d = zm.clone();
                d[i][j] = 1.0;
                let (_, along) = ragged_param_jvp(&m, z.clone(), t, &d, zz.clone(), 0.0);
                assert_relative_eq!(gm[i][j], along, epsilon = 1e-12, max_relative = 1e-10);
            }
        }
        for i in 0..z.len() {
            for j in 0..z[i].len() {
                let mut d = zz.clone();
                d[i][j] = 1.0;
                let (_, along) = ragged_param_jvp(&m, z.clone(), t, &zm, d, 0.0);
                assert_relative_eq!(gz[i][j], along, epsilon = 1e-12, max_relative = 1e-10);
            }
        }
        let (_, along) = ragged_param_jvp(&m, z.clone(), t, &zm, zz.clone(), 1.0);
        assert_relative_eq!(gt, along, epsilon = 1e-12, max_relative = 1e-10);
        assert_relative_eq!(
            along,
            central_difference(|t| ragged_param(&m, z.clone(), t), t, 1e-4),
            epsilon = 1e-7,
            max_relative = 1e-6
        );
    }
}

// ----- batch 6 -----

// REFUSED (misleading message) at `let mut n = m;`: "reads a container of containers element by element,
// as `x[i][j]` ... write the loop over indices".
// #[forward]
// #[reverse]
// fn moved_matrix(x: &[f64]) -> f64 {
//     let mut m = vec![vec![x[0], x[1]]; 2];
//     m[0][0] *= x[2];
//     let mut n = m;
//     n[1][1] += x[0];
//     frob(&n) + n[0][0]
// }
// case!(t_moved_matrix, moved_matrix, moved_matrix_jvp, moved_matrix_vjp, 3);

// REFUSED (misleading message): "reverse mode inlines `f` where it is called in float arithmetic
// or as a statement" at `f(0, 1) + f(1, 0)`, which is float arithmetic; the same closure over a flat
// container result passes (result_in_closure).
// #[forward]
// #[reverse]
// fn closure_reads_matrix(x: &[f64]) -> f64 {
//     let mut m = vec![vec![x[0], x[1]], vec![x[2], x[0] * x[1]]];
//     let f = |i: usize, j: usize| m[i][j] * 2.0;
//     let a = f(0, 1) + f(1, 0);
//     m[0][1] = a * m[1][1];
//     a + m[0][1]
// }
// case!(t_closure_reads_matrix, closure_reads_matrix, closure_reads_matrix_jvp, closure_reads_matrix_vjp, 3);

#[forward]
#[reverse]
fn chains_over_rows(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0], x[1]], vec![x[2], x[0] * x[1]]];
    m[0][0] *= x[2];
    let a = m[0].iter().map(|v| v * v).sum::<f64>();
    let mut b = 0.0;
    // `for (p, q) in m[0].iter().zip(m[1].iter())` is refused: "cannot iterate over floats yet".
    for j in 0..2 {
        b += m[0][j] * m[1][j];
    }
    m[1][0] = a + b;
    let c: f64 = m[1].iter().sum();
    a * b + c
}
case!(
    t_chains_over_rows,
    chains_over_rows,
    chains_over_rows_jvp,
    chains_over_rows_vjp,
    3
);

#[forward]
#[reverse]
fn control_flow_rhs(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0], x[1]], vec![x[2], x[0] * x[1]]];
    m[0][0] = if m[0][1] > 0.0 {
        m[1][0] * m[0][0]
    } else {
        m[1][1] * 2.0
    };
    for k in 0..3 {
        m[1][1] += match k {
            0 => m[1][0] * m[0][0],
            1 => x[1].cos(),
            _ => m[1][1],
        };
    }
    m[0][1] /= m[0][1];
    m[1][0] -= m[1][0];
    frob(&m)
}
case!(
    t_control_flow_rhs,
    control_flow_rhs,
    control_flow_rhs_jvp,
    control_flow_rhs_vjp,
    3
);

#[forward]
#[reverse]
fn data_matrices(x: &[f64]) -> f64 {
    let idx = vec![vec![0usize, 1], vec![1, 0]];
    let mut cnt = vec![vec![0; 2]; 2];
    let mut flags = vec![vec![false; 2]; 2];
    let w = vec![vec![1.0, 2.0], vec![3.0, 4.0]];
    let mut m = vec![vec![x[0]; 2]; 2];
    m[idx[0][1]][idx[1][1]] = x[1] * w[1][0];
    cnt[0][1] += 1;
    flags[1][1] = m[0][1] > 0.0;
    if flags[1][1] {
        m[1][1] *= x[2];
    }
    m[idx[1][0]][1] += (cnt[0][1] as f64) * w[0][1];
    frob(&m)
}
case!(
    t_data_matrices,
    data_matrices,
    data_matrices_jvp,
    data_matrices_vjp,
    3
);

#[forward]
#[reverse]
fn shadow_in_loop(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0]; 2]; 2];
    let mut s = 0.0;
    for i in 0..2 {
        let m = squares(x);
        s += m[i];
    }
    {
        let m = 2.0 * s;
        s += m;
    }
    m[0][1] *= s;
    frob(&m)
}
case!(
    t_shadow_in_loop,
    shadow_in_loop,
    shadow_in_loop_jvp,
    shadow_in_loop_vjp,
    3
);

// REFUSED: `.collect(..)` over a row (clear).
// #[forward]
// #[reverse]
// fn row_collected(x: &[f64]) -> f64 {
//     let mut m = vec![vec![x[0], x[1]], vec![x[2], 1.0]];
//     let r: Vec<f64> = m[0].iter().map(|v| v * 2.0).collect();
//     m[0][0] = r[1] * m[1][0];
//     let o = m[1].to_owned();
//     m[1][0] = 0.0;
//     frob(&m) + r[0] + o[0]
// }
// case!(t_row_collected, row_collected, row_collected_jvp, row_collected_vjp, 3);

// ----- batch 7 -----

// An associated function without `self` returning a `Vec` (`Seg::make(t)`) is refused at its
// definition: "struct is not supported in `trait`s or `impl`s" (not part of this review).

fn data_arr() -> [f64; 3] {
    [0.5, -0.25, 2.0]
}

#[forward]
#[reverse]
fn assoc_and_data(x: &[f64]) -> f64 {
    let s = Seg { a: 0.5, b: 0.25 };
    let d: [f64; 3] = data_arr();
    let e: Vec<f64> = data_vec(3);
    // Calls on data alone that borrow values the derivative code lifted (`e: Vec<f64>`):
    // the plain functions, given the floats unlifted.
    let z: Vec<f64> = squares(&e);
    let w = weighted(&e);
    let e3 = data_vec(3);
    let w4 = weighted(&e3) + e3[1];
    let e2 = data_vec(x.len());
    let w2 = weighted(&e2);
    let w3 = e2[0] + e2[1];
    d[2] * x[1] + w * x[0] + w2 * x[2] + w3 * x[1] + z[2] * x[0] + w4 * x[2]
}
case!(
    t_assoc_and_data,
    assoc_and_data,
    assoc_and_data_jvp,
    assoc_and_data_vjp,
    3
);

#[forward]
#[reverse]
fn len_of_call(x: &[f64]) -> f64 {
    let n = squares(x).len();
    let mut s = 0.0;
    for i in 0..prefix(x, 2).len() {
        s += x[i] * n as f64;
    }
    s
}
case!(
    t_len_of_call,
    len_of_call,
    len_of_call_jvp,
    len_of_call_vjp,
    3
);

// ----- batch 8: elements read in loops (hoisting, reading again) -----

#[forward]
#[reverse]
fn hoist_written_later(x: &[f64]) -> f64 {
    let mut y = squares(x);
    let mut s = 0.0;
    for i in 0..3 {
        s += y[0] * x[i];
        if i == 1 {
            y[0] = s;
        }
    }
    let mut k = 0;
    for i in 0..3 {
        s += y[k] * x[i];
        k = (k + 1) % 3;
        for j in 0..1 {
            y[j + 1] *= 0.5 + x[i];
        }
    }
    for i in 0..3 {
        s += y[2] * x[i];
        y.push(s);
    }
    s + y[5]
}
case!(
    t_hoist_written_later,
    hoist_written_later,
    hoist_written_later_jvp,
    hoist_written_later_vjp,
    3
);

#[forward]
#[reverse]
fn hoist_rebuilt_outer(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let mut s = 0.0;
    for it in 0..3 {
        let y = squares(&v);
        let p: [f64; 2] = rot(v[0], v[1]);
        for i in 0..3 {
            s += y[0] * v[i] + p[1] * 0.1;
        }
        v[it] = s * 0.1;
        v[0] *= 0.9;
    }
    s
}
case!(
    t_hoist_rebuilt_outer,
    hoist_rebuilt_outer,
    hoist_rebuilt_outer_jvp,
    hoist_rebuilt_outer_vjp,
    3
);

#[forward]
#[reverse]
fn hoist_nested(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0], x[1]], vec![x[2], x[0]]];
    let mut s = 0.0;
    for i in 0..3 {
        s += m[0][1] * x[i] + m[1][i % 2];
        if i == 0 {
            m[0][1] = s * x[1];
        }
        let r = &m[1];
        s += r[0] * 0.5;
    }
    for i in 0..2 {
        s += m[i][i] * m[0][0];
        m[0][0] += 0.1 * s;
    }
    s
}
case!(
    t_hoist_nested,
    hoist_nested,
    hoist_nested_jvp,
    hoist_nested_vjp,
    3
);

#[forward]
#[reverse]
fn param_rows_in_loops(m: &[Vec<f64>], t: f64) -> f64 {
    let mut c = m.to_vec();
    let mut s = 0.0;
    for i in 0..2 {
        for j in 0..2 {
            s += m[0][j] * c[i][j] * t;
            c[i][j] = s * 0.25;
        }
    }
    let mut z = c.clone();
    for i in 0..2 {
        z[i][0] += m[1][1] * c[i][1];
    }
    s + frob(&z)
}

#[test]
fn t_param_rows_in_loops() {
    let mut rng = Rng::new(51);
    for _ in 0..4 {
        let m = vec![random_vector(&mut rng, 2), random_vector(&mut rng, 2)];
        let t: f64 = rng.uniform(0.5, 1.5);
        let (v, (gm, gt)) = param_rows_in_loops_grad(&m, t);
        assert_eq!(v.to_bits(), param_rows_in_loops(&m, t).to_bits());
        let zero = vec![vec![0.0; 2]; 2];
        for i in 0..2 {
            for j in 0..2 {
                let mut d = zero.clone();
                d[i][j] = 1.0;
                let (_, along) = param_rows_in_loops_jvp(&m, t, &d, 0.0);
                assert_relative_eq!(gm[i][j], along, epsilon = 1e-12, max_relative = 1e-10);
            }
        }
        let (_, along) = param_rows_in_loops_jvp(&m, t, &zero, 1.0);
        assert_relative_eq!(gt, along, epsilon = 1e-12, max_relative = 1e-10);
    }
}

// ----- batch 9: rows that are `Copy` (arrays), copied by `let r = a[i];` then written -----
// REFUSED (safe; message could say "copy the row with `.to_vec()`"): `let r = a[0];` on a local
// `[[f64; 2]; 2]`, on a `Vec<[f64; 2]>` built by pushes, and on a copy of a `&[[f64; 2]]` parameter:
// "reverse mode reads a container of containers element by element, as `x[i][j]` ... write the
// loop over indices".
// FIXED (was failing) (compile error spanned at `#[reverse]`, not at the parameter): a by-value parameter
// `mut a: [[f64; 2]; 2]` gives E0277 "`[__S; 2]` is not a differentiable scalar" at `#[reverse]`.
//
#[forward]
#[reverse]
fn copy_row_then_write(x: &[f64]) -> f64 {
    let mut a = [[x[0], x[1]], [x[2], 1.0]];
    let r = a[0];
    a[0][0] = 5.0 * x[1];
    r[0] * a[0][0] + r[1]
}
case!(
    t_copy_row_then_write,
    copy_row_then_write,
    copy_row_then_write_jvp,
    copy_row_then_write_vjp,
    3
);

#[forward]
#[reverse]
fn copy_row_then_write_vec(x: &[f64]) -> f64 {
    let mut t: Vec<[f64; 2]> = Vec::new();
    t.push([x[0], x[1]]);
    t.push([x[2], x[0]]);
    let r = t[1];
    t[1][0] *= x[1];
    t[1][1] = 0.0;
    r[0] * t[1][0] + r[1] * 3.0
}
case!(
    t_copy_row_then_write_vec,
    copy_row_then_write_vec,
    copy_row_then_write_vec_jvp,
    copy_row_then_write_vec_vjp,
    3
);

#[forward]
#[reverse]
fn copy_param_row_then_write(p: &[[f64; 2]], t: f64) -> f64 {
    let mut c = p.to_vec();
    let r = c[0];
    c[0][0] = t * c[0][1];
    c[0][1] = 2.0;
    r[0] * c[0][0] + r[1] * t + c[0][1]
}

#[test]
fn t_copy_param_row_then_write() {
    let p: Vec<[f64; 2]> = vec![[0.3, -0.7], [1.1, 0.4]];
    let t: f64 = 0.8;
    let (v, (gp, gt)) = copy_param_row_then_write_grad(&p, t);
    assert_eq!(v.to_bits(), copy_param_row_then_write(&p, t).to_bits());
    for i in 0..2 {
        for j in 0..2 {
            let mut d = vec![[0.0; 2]; 2];
            d[i][j] = 1.0;
            let (_, along) = copy_param_row_then_write_jvp(&p, t, &d, 0.0);
            assert_relative_eq!(gp[i][j], along, epsilon = 1e-12, max_relative = 1e-10);
        }
    }
    let (_, along) = copy_param_row_then_write_jvp(&p, t, &[[0.0; 2]; 2], 1.0);
    assert_relative_eq!(gt, along, epsilon = 1e-12, max_relative = 1e-10);
}

#[forward]
#[reverse]
fn array_param_by_value(mut a: [[f64; 2]; 2], t: f64) -> f64 {
    a[0][1] *= t;
    a[1][0] = a[0][1] * a[1][1];
    a[0][0] * a[1][0] + a[0][1]
}

#[test]
fn t_array_param_by_value() {
    let a = [[0.3, -0.7], [1.1, 0.4]];
    let t: f64 = 0.8;
    let (v, (ga, gt)) = array_param_by_value_grad(a, t);
    assert_eq!(v.to_bits(), array_param_by_value(a, t).to_bits());
    for i in 0..2 {
        for j in 0..2 {
            let mut d = [[0.0; 2]; 2];
            d[i][j] = 1.0;
            let (_, along) = array_param_by_value_jvp(a, t, d, 0.0);
            assert_relative_eq!(ga[i][j], along, epsilon = 1e-12, max_relative = 1e-10);
        }
    }
    let (_, along) = array_param_by_value_jvp(a, t, [[0.0; 2]; 2], 1.0);
    assert_relative_eq!(gt, along, epsilon = 1e-12, max_relative = 1e-10);
    assert_relative_eq!(
        along,
        central_difference(|t| array_param_by_value(a, t), t, 1e-4),
        epsilon = 1e-8,
        max_relative = 1e-7
    );
    for i in 0..2 {
        for j in 0..2 {
            let moved = |h: f64| {
                let mut b = a;
                b[i][j] += h;
                array_param_by_value(b, t)
            };
            assert_relative_eq!(
                ga[i][j],
                central_difference(moved, 0.0, 1e-4),
                epsilon = 1e-8,
                max_relative = 1e-7
            );
        }
    }
}

// ----- Hessian-vector products through several of the functions above -----

#[test]
fn hvp_more() {
    check_hessian_vector_product(data_results::grad, data_results_grad);
    check_hessian_vector_product(written_results::grad, written_results_grad);
    check_hessian_vector_product(assoc_and_data::grad, assoc_and_data_grad);
    check_hessian_vector_product(push_kinds::grad, push_kinds_grad);
    // arrays_of_arrays is left out: `d[1][0] %= 0.3` at x[2] = 0.9 sits on a jump of `%`.
    check_hessian_vector_product(typed_zeros_len::grad, typed_zeros_len_grad);
    check_hessian_vector_product(jacobi::grad, jacobi_grad);
    check_hessian_vector_product(results_accumulated::grad, results_accumulated_grad);
    check_hessian_vector_product(calls_rec_by_value::grad, calls_rec_by_value_grad);
    check_hessian_vector_product(hoist_written_later::grad, hoist_written_later_grad);
}

// ----- batch 10: rows that live on after being pushed -----

#[forward]
#[reverse]
fn row_pushed_twice(x: &[f64]) -> f64 {
    let mut rows: Vec<Vec<f64>> = Vec::new();
    let mut row = vec![x[0], x[1]];
    rows.push(row.clone());
    row[0] *= x[2];
    rows.push(row.clone());
    row[1] = row[0] * 3.0;
    rows.push(row);
    rows[0][0] *= rows[1][0];
    frob(&rows) + rows[2][1]
}
case!(
    t_row_pushed_twice,
    row_pushed_twice,
    row_pushed_twice_jvp,
    row_pushed_twice_vjp,
    3
);

#[forward]
#[reverse]
fn pushed_params(v: Vec<f64>, p: [f64; 2], t: f64) -> f64 {
    // Untyped `let mut rows = Vec::new();` with a parameter pushed is refused, with a clear
    // message asking for the annotation.
    let mut rows: Vec<Vec<f64>> = Vec::new();
    rows.push(v);
    rows[0][1] *= t;
    let mut arrays: Vec<[f64; 2]> = Vec::new();
    arrays.push(p);
    arrays.push(p);
    arrays[1][0] *= t * p[1];
    frob(&rows) + arrays[0][0] * arrays[1][0] + arrays[1][1] + p[0]
}

#[test]
fn t_pushed_params() {
    let v = vec![0.3, -0.6, 1.2];
    let p = [0.7, -0.2];
    let t: f64 = 1.3;
    let (val, (gv, gp, gt)) = pushed_params_grad(v.clone(), p, t);
    assert_eq!(val.to_bits(), pushed_params(v.clone(), p, t).to_bits());
    for k in 0..3 {
        let mut d = vec![0.0; 3];
        d[k] = 1.0;
        let (_, along) = pushed_params_jvp(v.clone(), p, t, d, [0.0; 2], 0.0);
        assert_relative_eq!(gv[k], along, epsilon = 1e-12, max_relative = 1e-10);
    }
    for k in 0..2 {
        let mut d = [0.0; 2];
        d[k] = 1.0;
        let (_, along) = pushed_params_jvp(v.clone(), p, t, vec![0.0; 3], d, 0.0);
        assert_relative_eq!(gp[k], along, epsilon = 1e-12, max_relative = 1e-10);
    }
    let (_, along) = pushed_params_jvp(v.clone(), p, t, vec![0.0; 3], [0.0; 2], 1.0);
    assert_relative_eq!(gt, along, epsilon = 1e-12, max_relative = 1e-10);
    assert_relative_eq!(
        along,
        central_difference(|t| pushed_params(v.clone(), p, t), t, 1e-4),
        epsilon = 1e-7,
        max_relative = 1e-6
    );
}

#[forward]
#[reverse]
fn row_reassigned_in_loop(x: &[f64]) -> f64 {
    let mut rows: Vec<Vec<f64>> = Vec::new();
    let mut row: Vec<f64> = vec![0.0; 2];
    for i in 0..3 {
        row[0] = x[i];
        row[1] = x[i] * row[0];
        rows.push(row.clone());
    }
    frob(&rows)
}
case!(
    t_row_reassigned_in_loop,
    row_reassigned_in_loop,
    row_reassigned_in_loop_jvp,
    row_reassigned_in_loop_vjp,
    3
);

// ----- batch 11: f32 results and data, arrays pushed then written -----

#[forward]
#[reverse]
fn squares32(a: &[f32]) -> Vec<f32> {
    let mut out = Vec::new();
    for i in 0..a.len() {
        out.push(a[i] * a[i] + 0.5);
    }
    out
}

fn data32(n: usize) -> Vec<f32> {
    (0..n).map(|i| 0.25 * i as f32 + 0.5).collect()
}

#[forward]
#[reverse]
fn mixed32(x: f32, y: f32) -> f32 {
    let v = vec![x, y, x * y];
    let s = squares32(&v);
    let mut t: Vec<f32> = squares32(&s);
    t[0] *= s[1];
    let d: Vec<f32> = data32(3);
    let mut m = vec![vec![0.0f32; 2]; 2];
    m[0][1] = t[0] * d[2];
    m[1][0] += s[2] * y;
    let mut a = [x, y];
    let mut rows: Vec<[f32; 2]> = Vec::new();
    rows.push(a);
    a[0] = 3.0 * y;
    rows.push(a);
    rows[1][1] *= x;
    m[0][1] * m[1][0] + t[2] * d[1] + rows[0][0] * rows[1][0] + rows[1][1] + a[0]
}

#[test]
fn t_mixed32() {
    for (x, y) in [(0.3f32, -0.6f32), (0.9, 0.4), (-0.5, 0.2)] {
        let (value, (gx, gy)) = mixed32_grad(x, y);
        assert_eq!(value.to_bits(), mixed32(x, y).to_bits());
        let (_, dx) = mixed32_jvp(x, y, 1.0, 0.0);
        let (_, dy) = mixed32_jvp(x, y, 0.0, 1.0);
        assert_relative_eq!(gx, dx, epsilon = 1e-5, max_relative = 1e-4);
        assert_relative_eq!(gy, dy, epsilon = 1e-5, max_relative = 1e-4);
        let fx = (mixed32(x + 1e-2, y) - mixed32(x - 1e-2, y)) / 2e-2;
        assert_relative_eq!(dx, fx, epsilon = 2e-2, max_relative = 2e-2);
    }
}

// ----- batch 12: labeled breaks, returns after pushes, recursion returning `Vec`s -----

#[forward]
#[reverse]
fn labeled_and_return(x: &[f64]) -> f64 {
    let mut rows: Vec<Vec<f64>> = Vec::new();
    let mut m = vec![vec![x[0], x[1]], vec![x[2], 0.5]];
    'outer: for i in 0..3 {
        for j in 0..2 {
            m[j][i % 2] *= 1.0 + 0.5 * x[(i + j) % 3];
            if m[j][i % 2] > 2.0 {
                break 'outer;
            }
            if j == 1 && i == 1 {
                continue 'outer;
            }
            rows.push(vec![m[j][0], m[j][1] * x[j]]);
        }
    }
    for k in 0..rows.len() {
        rows[k][0] -= m[1][1];
        if rows[k][0] < -1.0 {
            return frob(&rows) * m[0][0];
        }
    }
    frob(&rows) + frob(&m)
}
case!(
    t_labeled_and_return,
    labeled_and_return,
    labeled_and_return_jvp,
    labeled_and_return_vjp,
    3
);

#[forward]
#[reverse]
fn rec_vec(x: &[f64], k: usize) -> Vec<f64> {
    if k == 0 {
        return x.to_vec();
    }
    let y = rec_vec(x, k - 1);
    let n = y.len();
    let mut m = vec![vec![0.0; n]; 2];
    for j in 0..n {
        m[0][j] = y[j] * 0.5;
        m[1][j] = y[(j + 1) % n].sin();
    }
    m[0][0] += m[1][n - 1];
    let mut out = Vec::new();
    for j in 0..n {
        out.push(m[0][j] + m[1][j] * y[j]);
    }
    out
}

#[forward]
#[reverse]
fn uses_rec_vec(x: &[f64]) -> f64 {
    let y = rec_vec(x, 3);
    let z: Vec<f64> = rec_vec(&y, 1);
    weighted(&z) + y[0]
}
case!(
    t_uses_rec_vec,
    uses_rec_vec,
    uses_rec_vec_jvp,
    uses_rec_vec_vjp,
    3
);

// ----- batch 13: forward mode alone on written data containers (central differences) -----

#[forward]
fn fwd_written_data(x: &[f64]) -> f64 {
    let mut f: Vec<f64> = data_vec(3);
    f[0] = x[0] * x[1];
    f[1] *= x[2];
    f.push(x[1].sin());
    let mut g: [f64; 3] = data_arr();
    g[2] += x[0];
    let e = data_vec(x.len());
    f[2] += e[1] * x[0];
    weighted(&f) + weighted(&g) + f[3] * g[2]
}

#[test]
fn t_fwd_written_data() {
    let mut rng = Rng::new(61);
    for _ in 0..4 {
        let x = random_vector(&mut rng, 3);
        let t = random_vector(&mut rng, 3);
        common::slice_forward_checked(fwd_written_data, fwd_written_data_jvp, &x, &t);
    }
}

// ----- batch 14: names reused by closures and loop patterns -----

#[forward]
#[reverse]
fn closure_param_named_like_result(x: &[f64]) -> f64 {
    let y = squares(x);
    let f = |y: f64| y * 2.0 + 1.0;
    let a = f(y[0]) * y[1];
    let mut m = vec![vec![x[0], x[1]], vec![x[2], 0.5]];
    for m in 0..2 {
        let _ = m;
    }
    m[0][0] *= a;
    let s: f64 = y.iter().zip(x.iter()).map(|(p, q)| p * q).sum();
    frob(&m) + s
}
case!(
    t_closure_param_named_like_result,
    closure_param_named_like_result,
    closure_param_named_like_result_jvp,
    closure_param_named_like_result_vjp,
    3
);

// ----- batch 15: checkpointed regions over written matrices -----
// REFUSED, safely: checkpointed regions reading flat containers (`x[i]`, a container result
// `y[i]`) get the macro's "a checkpointed region cannot read the container `x` yet"; regions
// reading or writing a local matrix `m` get a type error instead, spanned at `m` but naming a
// generated type: E0277 "`Vec<Vec<__S>>` cannot be kept by `#[checkpoint]`" (trait `Snapshot`).
//
// #[forward]
// #[reverse]
// fn checkpointed_loop_every(x: &[f64]) -> f64 {
//     let mut m = vec![vec![x[0], x[1]], vec![x[2], 0.5]];
//     let (a, b) = (x[0], x[1]);
//     #[checkpoint(every = 2)]
//     for i in 0..5 {
//         m[i % 2][0] = m[1 - i % 2][1] * a + 0.1 * b;
//         m[1][1] += 0.3 * m[0][0];
//     }
//     frob(&m)
// }
// case!(t_checkpointed_loop_every, checkpointed_loop_every, checkpointed_loop_every_jvp, checkpointed_loop_every_vjp, 3);
//
// #[forward]
// #[reverse]
// fn checkpointed_loop_binomial(x: &[f64]) -> f64 {
//     let mut m = vec![vec![x[0], x[1]], vec![x[2], 0.5]];
//     let a = x[2];
//     #[checkpoint(binomial, snapshots = 2)]
//     for i in 0..4 {
//         m[0][1] = m[0][1] * 0.5 + m[1][0] * a * (i as f64);
//     }
//     frob(&m)
// }
// case!(t_checkpointed_loop_binomial, checkpointed_loop_binomial, checkpointed_loop_binomial_jvp, checkpointed_loop_binomial_vjp, 3);
//
// #[forward]
// #[reverse]
// fn checkpointed_block(x: &[f64]) -> f64 {
//     let mut m = vec![vec![x[0], x[1]], vec![x[2], 0.5]];
//     let z = #[checkpoint]
//     {
//         let t = m[0][0] * m[1][1] + m[0][1];
//         t * t
//     };
//     m[0][0] = z * m[1][0];
//     frob(&m) + z
// }
// case!(t_checkpointed_block, checkpointed_block, checkpointed_block_jvp, checkpointed_block_vjp, 3);
