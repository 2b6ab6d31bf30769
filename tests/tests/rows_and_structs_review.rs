//! An adversarial review of rows of containers of containers in reverse mode, and of structs
//! of derived types built in the body, in both modes: each function carries `#[forward]` and
//! `#[reverse]` and is checked along random directions (values bit for bit, forward against
//! central differences, reverse against forward by the dot-product identity).

#![allow(
    clippy::needless_range_loop,
    clippy::clone_on_copy,
    clippy::assign_op_pattern
)]

mod common;

use ad_runtime::{forward, reverse, Differentiable};
use approx::assert_relative_eq;
use common::{
    axpy, central_difference, check_user_type as check, check_user_type_forward as forward_only,
    random_vector, Rng,
};

fn ragged(rng: &mut Rng, lengths: &[usize]) -> Vec<Vec<f64>> {
    lengths.iter().map(|&n| random_vector(rng, n)).collect()
}

fn check_rows(
    plain: impl Fn(&[Vec<f64>], f64) -> f64,
    jvp: impl Fn(&[Vec<f64>], f64, &[Vec<f64>], f64) -> (f64, f64),
    vjp: impl Fn(&[Vec<f64>], f64, f64) -> (f64, (Vec<Vec<f64>>, f64)),
    shapes: &[&[usize]],
    seed: u64,
) {
    let mut rng = Rng::new(seed);
    for lengths in shapes {
        for w in [0.7, -0.4] {
            let x = ragged(&mut rng, lengths);
            check(
                |x: &Vec<Vec<f64>>, w| plain(x, w),
                |x: &Vec<Vec<f64>>, w, dx: &Vec<Vec<f64>>, dw| jvp(x, w, dx, dw),
                |x: &Vec<Vec<f64>>, w, ct| vjp(x, w, ct),
                &x,
                w,
                &mut rng,
            );
            let (_, (g, _)) = vjp(&x, w, 1.0);
            assert_eq!(g.iter().map(Vec::len).collect::<Vec<_>>(), lengths.to_vec());
        }
    }
}

// ===== rows =====

#[forward]
#[reverse]
fn row_sq(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for e in v {
        s += e * e;
    }
    s
}

#[forward]
#[reverse]
fn row_weighted(v: &[f64], w: f64) -> f64 {
    let mut s = 0.0;
    for (i, e) in v.iter().enumerate() {
        s += (e * w).sin() * (i as f64 + 1.0);
    }
    s
}

#[forward]
#[reverse]
fn all_rows(x: &[Vec<f64>], w: f64) -> f64 {
    let mut s = 0.0;
    for row in x {
        s += row_weighted(row, w);
    }
    s
}

/// Ragged and empty rows, break and continue.
#[forward]
#[reverse]
fn rows_break_continue(x: &[Vec<f64>], w: f64) -> f64 {
    let mut s = 0.0;
    for (i, row) in x.iter().enumerate() {
        if row.is_empty() {
            continue;
        }
        for v in row {
            if *v > 1.2 {
                break;
            }
            if *v < -1.2 {
                continue;
            }
            s += v * w + (i as f64) * v * v;
        }
        if i == 3 {
            break;
        }
    }
    s
}

/// A row bound in a loop body and read after inner loops.
#[forward]
#[reverse]
fn row_after_inner(x: &[Vec<f64>], w: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let r = &x[i];
        let mut t = w;
        for j in 0..r.len() {
            t = t * 0.5 + r[j];
        }
        for v in r {
            t += v * t;
        }
        if !r.is_empty() {
            s += r[0] * t + r[r.len() - 1];
        }
    }
    s
}

/// Rows read in branches.
#[forward]
#[reverse]
fn rows_in_branches(x: &[Vec<f64>], w: f64) -> f64 {
    let r = &x[0];
    let q = &x[1];
    let s = if w > 0.0 { r[0] * w } else { q[0] * w };
    let t = match x.len() {
        0 | 1 => 0.0,
        2 => r[1] * q[0],
        _ => {
            let z = &x[2];
            z[0] * s
        }
    };
    s + t
}

/// `for &v in r.iter()`, `let e = &r[j]` then `*e`.
#[forward]
#[reverse]
fn row_refs(x: &[Vec<f64>], w: f64) -> f64 {
    let mut s = 0.0;
    for row in x.iter() {
        for &v in row.iter() {
            s += v * w;
        }
        for j in 0..row.len() {
            let e = &row[j];
            s += *e * *e;
        }
    }
    s
}

/// Rows passed whole, and the whole container passed on.
#[forward]
#[reverse]
fn rows_to_calls(x: &[Vec<f64>], w: f64) -> f64 {
    let mut s = all_rows(x, w);
    for row in x {
        s += row_sq(row) * w;
    }
    let r = &x[1];
    s + row_weighted(r, s) + row_sq(&x[0])
}

/// Recursion over the rows.
#[forward]
#[reverse]
fn rows_rec(x: &[Vec<f64>], k: usize, w: f64) -> f64 {
    if k == x.len() {
        return w;
    }
    let r = &x[k];
    let mut s = 0.0;
    for v in r {
        s += v;
    }
    (s * w).tanh() + rows_rec(x, k + 1, w * 0.9 + s)
}

#[test]
fn rows_basic() {
    let shapes: &[&[usize]] = &[&[2, 3, 1], &[3, 0, 2, 4], &[1, 1, 5, 0, 2]];
    check_rows(all_rows, all_rows_jvp, all_rows_vjp, shapes, 1);
    check_rows(
        rows_break_continue,
        rows_break_continue_jvp,
        rows_break_continue_vjp,
        shapes,
        2,
    );
    check_rows(
        row_after_inner,
        row_after_inner_jvp,
        row_after_inner_vjp,
        shapes,
        3,
    );
    check_rows(
        rows_in_branches,
        rows_in_branches_jvp,
        rows_in_branches_vjp,
        &[&[2, 1], &[3, 2, 4]],
        4,
    );
    check_rows(row_refs, row_refs_jvp, row_refs_vjp, shapes, 5);
    check_rows(
        rows_to_calls,
        rows_to_calls_jvp,
        rows_to_calls_vjp,
        shapes,
        6,
    );
    check_rows(
        |x, w| rows_rec(x, 0, w),
        |x, w, dx, dw| rows_rec_jvp(x, 0, w, dx, dw),
        |x, w, c| rows_rec_vjp(x, 0, w, c),
        shapes,
        7,
    );
}

// ===== rows: aliases and names =====

/// The index of a row alias changes after the alias is bound.
#[forward]
#[reverse]
fn alias_index_changes(x: &[Vec<f64>], w: f64) -> f64 {
    let mut i = 0;
    let r = &x[i];
    i += 1;
    let mut j = 0;
    let e = &r[j];
    j += 1;
    r[0] * w + x[i][0] + *e * r[j]
}

/// A row alias shadowed by another.
#[forward]
#[reverse]
fn alias_rebound(x: &[Vec<f64>], w: f64) -> f64 {
    let r = &x[0];
    let a = r[0] * w;
    let r = &x[1];
    let b = r[0] * w;
    let r = &x[2];
    a * b + r[0] * 3.0
}

/// Names of the parameter and the rows shadowed inside the loops.
#[forward]
#[reverse]
fn shadowed_names(x: &[Vec<f64>], w: f64) -> f64 {
    let mut s = 0.0;
    for row in x {
        let row = row_sq(row);
        s += row * w;
    }
    for r in x {
        for x in r {
            s += x * w;
        }
        let x = s * 0.5;
        s += x;
    }
    s
}

/// A row read as a whole and by element in one expression, with `x[i]` beside `row`.
#[forward]
#[reverse]
fn whole_and_elements(x: &[Vec<f64>], w: f64) -> f64 {
    let mut s = 0.0;
    for (i, row) in x.iter().enumerate() {
        if row.len() < 2 {
            continue;
        }
        s += row_sq(row) * row[0] + row_weighted(&x[i], w) * x[i][1] + row_sq(&x[0]);
    }
    s
}

/// Labeled break out of the outer loop, and a `while` loop over rows.
#[forward]
#[reverse]
fn labeled(x: &[Vec<f64>], w: f64) -> f64 {
    let mut s = 0.0;
    'outer: for row in x {
        for v in row {
            s += v * w;
            if s > 2.0 {
                break 'outer;
            }
        }
    }
    let mut k = 0;
    while k < x.len() {
        let r = &x[k];
        if r.len() > 1 {
            s += r[1] * s;
        }
        k += 1;
    }
    s
}

#[test]
fn rows_aliases_and_names() {
    let shapes: &[&[usize]] = &[&[2, 3, 1], &[3, 2, 4]];
    check_rows(
        alias_index_changes,
        alias_index_changes_jvp,
        alias_index_changes_vjp,
        shapes,
        11,
    );
    check_rows(
        alias_rebound,
        alias_rebound_jvp,
        alias_rebound_vjp,
        shapes,
        12,
    );
    let shapes: &[&[usize]] = &[&[2, 3, 1], &[3, 0, 2, 4], &[1, 1, 5, 0, 2]];
    check_rows(
        shadowed_names,
        shadowed_names_jvp,
        shadowed_names_vjp,
        shapes,
        13,
    );
    check_rows(
        whole_and_elements,
        whole_and_elements_jvp,
        whole_and_elements_vjp,
        shapes,
        14,
    );
    check_rows(labeled, labeled_jvp, labeled_vjp, shapes, 15);
}

// ===== rows of arrays, owned rows =====

#[forward]
#[reverse]
fn triple(p: &[f64; 3], w: f64) -> f64 {
    p[0] * p[1] * w - p[2].sin()
}

#[forward]
#[reverse]
fn points(x: &[[f64; 3]], w: f64) -> f64 {
    let mut s = 0.0;
    for p in x {
        s += triple(p, w) + row_sq(p);
    }
    for (i, p) in x.iter().enumerate() {
        let e = &p[2];
        s += *e * (i as f64) + p[0] * w;
        for &v in p.iter() {
            s += v * v * w;
        }
    }
    let q = &x[0];
    s + q[1] * triple(&x[1], s)
}

#[forward]
#[reverse]
fn owned_rows(x: Vec<Vec<f64>>, w: f64) -> f64 {
    let mut s = 0.0;
    for row in &x {
        s += row_weighted(row, w);
    }
    for i in 0..x.len() {
        let r = &x[i];
        for v in r {
            s += v * s * 0.1;
        }
    }
    s + all_rows(&x, w) + x[0][0]
}

#[test]
fn rows_of_arrays_and_owned_rows() {
    let mut rng = Rng::new(21);
    for n in [2, 4] {
        let x: Vec<[f64; 3]> = (0..n)
            .map(|_| {
                [
                    rng.uniform(-1.0, 1.0),
                    rng.uniform(-1.0, 1.0),
                    rng.uniform(-1.0, 1.0),
                ]
            })
            .collect();
        check(
            |x: &Vec<[f64; 3]>, w| points(x, w),
            |x: &Vec<[f64; 3]>, w, dx: &Vec<[f64; 3]>, dw| points_jvp(x, w, dx, dw),
            |x: &Vec<[f64; 3]>, w, ct| points_vjp(x, w, ct),
            &x,
            0.6,
            &mut rng,
        );
    }
    for lengths in [&[2, 0, 3][..], &[1, 4]] {
        let x = ragged(&mut rng, lengths);
        check(
            |x: &Vec<Vec<f64>>, w| owned_rows(x.clone(), w),
            |x: &Vec<Vec<f64>>, w, dx: &Vec<Vec<f64>>, dw| {
                owned_rows_jvp(x.clone(), w, dx.clone(), dw)
            },
            |x: &Vec<Vec<f64>>, w, ct| owned_rows_vjp(x.clone(), w, ct),
            &x,
            0.6,
            &mut rng,
        );
    }
}

// ===== structs of derived types built in the body =====

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct P2 {
    pub x: f64,
    pub y: f64,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Body {
    pub pos: P2,
    pub m: f64,
    pub id: usize,
}

impl P2 {
    #[forward]
    #[reverse]
    pub fn norm2(&self) -> f64 {
        self.x * self.x + self.y * self.y
    }

    #[forward]
    #[reverse]
    pub fn dotted(&self, k: f64) -> f64 {
        self.x * k + self.y.sin() * self.norm2()
    }
}

#[forward]
#[reverse]
fn p_energy(#[grad] p: &P2, k: f64) -> f64 {
    (p.x * k).sin() + p.y * p.y * k
}

#[forward]
#[reverse]
fn p_by_value(#[grad] p: P2, k: f64) -> f64 {
    p.x * p.y + k * p.x
}

#[forward]
#[reverse]
fn body_energy(#[grad] b: &Body, k: f64) -> f64 {
    b.m * p_energy(&b.pos, k) + b.id as f64 * b.pos.x
}

/// Fields in another order than declared; reading, destructuring, matching.
#[forward]
#[reverse]
fn literal_reads(#[grad] p: &P2, k: f64) -> f64 {
    let q = P2 {
        y: p.x * k,
        x: p.y + k,
    };
    let P2 { x, y } = &q;
    let a = x * y;
    let P2 { x: qx, y: qy } = q.clone();
    let b = match &q {
        P2 { x, .. } if *x > 0.0 => x * qy,
        P2 { y, .. } => y * qx,
    };
    a + b + q.x * 2.0 - q.y
}

/// Passing `&q`, `q.clone()` and `q` to functions, and calling methods on it.
#[forward]
#[reverse]
fn passed_on(#[grad] p: &P2, k: f64) -> f64 {
    let q = P2 {
        x: p.x * p.y,
        y: k.cos(),
    };
    let a = p_energy(&q, k) + p_by_value(q.clone(), q.x);
    let b = q.norm2() * q.dotted(k);
    let c = P2::norm2(&q);
    a + b + c + p_by_value(q, k)
}

/// A new struct in every iteration, built from the previous state; shadowing.
#[forward]
#[reverse]
fn in_loops(#[grad] p: &P2, k: f64) -> f64 {
    let mut s = p.x;
    let mut t = p.y;
    for i in 0..4 {
        let q = P2 {
            x: s * k + t,
            y: (i as f64) * s,
        };
        let q = P2 { x: q.y, y: q.x };
        s = q.x * 0.5 + p_energy(&q, k);
        t = q.y.tanh();
    }
    s + t
}

/// Nested derived structs as fields, built in place and moved in, and data fields in the
/// literal (forward mode only: reverse mode refuses a struct field in a literal).
#[forward]
fn nested_literal(#[grad] p: &P2, k: f64) -> f64 {
    let n = 3;
    let b = Body {
        m: k * k,
        id: n,
        pos: P2 { x: p.y, y: p.x * k },
    };
    let inner = P2 { y: b.pos.x, x: b.m };
    let c = Body {
        pos: inner,
        m: b.m + p.x,
        id: b.id + 1,
    };
    let d = Body {
        pos: c.pos.clone(),
        m: 1.0,
        id: 0,
    };
    body_energy(&b, k) + body_energy(&c, b.pos.y) + b.pos.x * c.m + body_energy(&d, k)
}

/// Built from a `#[grad]` parameter's parts.
#[forward]
#[reverse]
fn from_parts(#[grad] b: &Body, k: f64) -> f64 {
    let q = P2 {
        x: b.pos.y,
        y: b.pos.x,
    };
    let r = P2 {
        x: b.pos.x * b.m,
        y: q.x,
    };
    body_energy(b, k) * p_energy(&q, b.m) + q.norm2() * r.dotted(k)
}

fn random_p2(rng: &mut Rng) -> P2 {
    P2 {
        x: rng.uniform(-1.0, 1.0),
        y: rng.uniform(-1.0, 1.0),
    }
}

#[test]
fn structs_built_in_the_body() {
    let mut rng = Rng::new(31);
    for _ in 0..3 {
        let p = random_p2(&mut rng);
        let k = rng.uniform(0.2, 1.2);
        check(
            literal_reads,
            literal_reads_jvp,
            literal_reads_vjp,
            &p,
            k,
            &mut rng,
        );
        check(passed_on, passed_on_jvp, passed_on_vjp, &p, k, &mut rng);
        check(in_loops, in_loops_jvp, in_loops_vjp, &p, k, &mut rng);
        forward_only(nested_literal, nested_literal_jvp, &p, k, &mut rng);
        let b = Body {
            pos: random_p2(&mut rng),
            m: rng.uniform(0.5, 1.5),
            id: 2,
        };
        check(from_parts, from_parts_jvp, from_parts_vjp, &b, k, &mut rng);
    }
}

// ===== structs: values that change after the literal =====

/// The locals a struct was built from change afterwards; the struct keeps the old values.
#[forward]
#[reverse]
fn sources_overwritten(#[grad] p: &P2, k: f64) -> f64 {
    let mut a = p.x * k;
    let mut s = p.y;
    let q = P2 { x: a, y: s };
    a = a * a + 1.0;
    s *= 3.0;
    let r = P2 { x: s, y: s };
    s = s.sin();
    q.x * a + q.y * s + r.norm2() + q.dotted(a)
}

/// A struct chosen by an `if`, one built in a block (forward mode only: reverse mode takes
/// literals bound by `let` directly).
#[forward]
fn branches_and_blocks(#[grad] p: &P2, k: f64) -> f64 {
    let q = if k > 0.5 {
        P2 { x: p.x * k, y: p.y }
    } else {
        P2 { x: p.y, y: p.x * k }
    };
    let r = {
        let t = q.x * q.y;
        P2 { x: t, y: t + k }
    };
    P2::norm2(&r) + p_energy(&q, k) + q.x
}

/// The same float in two fields, a field from a method of another local struct, recursion.
#[forward]
#[reverse]
fn same_float_and_recursion(#[grad] p: &P2, n: usize) -> f64 {
    if n == 0 {
        return p.norm2();
    }
    let s = p.x * p.y;
    let q = P2 { x: s, y: s };
    let r = P2 {
        x: q.norm2(),
        y: p.dotted(s),
    };
    q.x + same_float_and_recursion(&r, n - 1) * 0.5
}

#[test]
fn struct_sources_change() {
    let mut rng = Rng::new(41);
    for _ in 0..3 {
        let p = random_p2(&mut rng);
        for k in [0.3, 0.8] {
            check(
                sources_overwritten,
                sources_overwritten_jvp,
                sources_overwritten_vjp,
                &p,
                k,
                &mut rng,
            );
            forward_only(
                branches_and_blocks,
                branches_and_blocks_jvp,
                &p,
                k,
                &mut rng,
            );
        }
        for n in [0, 1, 3] {
            let p = P2 {
                x: p.x * 0.5,
                y: p.y * 0.5,
            };
            check(
                |p: &P2, _| same_float_and_recursion(p, n),
                |p: &P2, _, dp: &P2, _| same_float_and_recursion_jvp(p, n, dp),
                |p: &P2, _, c| {
                    let (v, g) = same_float_and_recursion_vjp(p, n, c);
                    (v, (g, 0.0))
                },
                &p,
                0.0,
                &mut rng,
            );
        }
    }
}

// ===== structs built from rows and slice elements =====

/// Structs built from rows' elements, from loop variables over rows, passed to calls.
#[forward]
#[reverse]
fn structs_from_rows(x: &[Vec<f64>], w: f64) -> f64 {
    let mut s = 0.0;
    for row in x {
        for &v in row.iter() {
            let q = P2 { x: v, y: v * w };
            s += p_energy(&q, w);
        }
        if row.len() > 1 {
            let q = P2 {
                y: row[0],
                x: row[1] * s,
            };
            s += q.norm2() + q.y;
        }
    }
    let r = &x[0];
    let e = &r[0];
    let q = P2 { x: *e, y: x[1][0] };
    let P2 { x: a, y: b } = q;
    s + a * b + p_by_value(q.clone(), w)
}

#[test]
fn structs_built_from_rows() {
    let shapes: &[&[usize]] = &[&[2, 3, 1], &[3, 1, 0, 4]];
    check_rows(
        structs_from_rows,
        structs_from_rows_jvp,
        structs_from_rows_vjp,
        shapes,
        51,
    );
}

// ===== rows: more forms =====

#[forward]
#[reverse]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[forward]
#[reverse]
fn gram(a: &[Vec<f64>], b: &[Vec<f64>], w: f64) -> f64 {
    let mut s = w;
    for i in 0..a.len() {
        s += dot(&a[i], &b[i]) * s;
    }
    s
}

/// One row, or one container, passed for two parameters at once.
#[forward]
#[reverse]
fn aliased_arguments(x: &[Vec<f64>], w: f64) -> f64 {
    let r = &x[0];
    let mut s = dot(r, r) + dot(&x[0], &x[0]) + gram(x, x, w);
    for row in x {
        s += dot(row, r) + dot(row, row);
    }
    for (i, row) in x.iter().enumerate() {
        s += dot(row, &x[i]) * w;
    }
    s
}

/// An element alias read after the inner loop, `for x in x`, the parameter shadowed by a row.
#[forward]
#[reverse]
fn element_aliases_and_shadowing(x: &[Vec<f64>], w: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let r = &x[i];
        let mut last = w;
        for j in 0..r.len() {
            let e = &r[j];
            last = *e * last;
        }
        s += last;
    }
    s += x[1][0] * w;
    for (i, row) in x.iter().enumerate() {
        s += row[0] * x[(i + 1) % x.len()][0];
    }
    let n = x.len();
    for x in x {
        s += x[0] * n as f64 + row_sq(x);
    }
    let x = &x[2];
    s + x[1] * row_sq(x)
}

/// A `while` loop binding a row before advancing its index, an inner `loop` with breaks, the
/// next row read ahead.
#[forward]
#[reverse]
fn while_and_loop(x: &[Vec<f64>], w: f64) -> f64 {
    let mut s = w;
    let mut k = 0;
    while k < x.len() {
        let r = &x[k];
        k += 1;
        if r.is_empty() {
            continue;
        }
        let mut j = 0;
        loop {
            if j >= r.len() {
                break;
            }
            let e = &r[j];
            j += 1;
            s = s * 0.9 + *e * w;
            if s > 1.0 {
                break;
            }
        }
        s += r[j - 1] * row_sq(r) + r[0];
        if k < x.len() {
            let next = &x[k];
            if !next.is_empty() {
                s += next[0] * r[0];
            }
        }
    }
    s
}

/// A `Vec` result built from rows.
#[forward]
#[reverse]
fn row_sums(x: &[Vec<f64>], w: f64) -> Vec<f64> {
    let mut out = Vec::new();
    for row in x {
        let mut s = 0.0;
        for v in row {
            s += v * w;
        }
        out.push(s + row_sq(row));
    }
    out
}

#[test]
fn rows_more_forms() {
    check_rows(
        aliased_arguments,
        aliased_arguments_jvp,
        aliased_arguments_vjp,
        &[&[3, 3, 3], &[2, 2]],
        61,
    );
    check_rows(
        element_aliases_and_shadowing,
        element_aliases_and_shadowing_jvp,
        element_aliases_and_shadowing_vjp,
        &[&[2, 3, 2], &[1, 4, 3, 2]],
        62,
    );
    check_rows(
        while_and_loop,
        while_and_loop_jvp,
        while_and_loop_vjp,
        &[&[2, 3, 0, 4, 1], &[5, 0, 0, 2]],
        63,
    );
    let mut rng = Rng::new(64);
    for lengths in [&[2, 0, 3][..], &[4, 1]] {
        let x = ragged(&mut rng, lengths);
        let dx = ragged(&mut rng, lengths);
        let c = random_vector(&mut rng, lengths.len());
        let (w, dw) = (0.8, -0.6);
        let (value, tangent) = row_sums_jvp(&x, w, &dx, dw);
        assert_eq!(value, row_sums(&x, w));
        for (k, t) in tangent.iter().enumerate() {
            let along = |h: f64| row_sums(&axpy(&x, h, &dx), w + h * dw)[k];
            assert_relative_eq!(*t, central_difference(along, 0.0, 1e-4), epsilon = 1e-8);
        }
        let (value, (g, gw)) = row_sums_vjp(&x, w, c.clone());
        assert_eq!(value, row_sums(&x, w));
        let left: f64 = c.iter().zip(&tangent).map(|(a, b)| a * b).sum();
        assert_relative_eq!(left, dot_user(&g, &dx) + gw * dw, max_relative = 1e-12);
    }
}

fn dot_user<T: Differentiable<Float = f64>>(a: &T, b: &T) -> f64 {
    common::dot(a, b)
}

// ===== structs: more forms =====

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Q {
    pub a: f64,
    pub n: usize,
    pub b: f64,
}

#[forward]
#[reverse]
fn use_q(#[grad] q: &Q, k: f64) -> f64 {
    let mut s = q.a;
    for _ in 0..q.n {
        s = s * q.b + k;
    }
    s
}

/// A data field from a local that changes afterwards, structs per iteration read after inner
/// loops, an early return, a closure capturing structs, a match on a struct with a data field.
#[forward]
#[reverse]
fn data_fields_and_closures(#[grad] p: &P2, k: f64) -> f64 {
    let mut n = 2;
    let q = Q {
        n,
        b: p.y,
        a: p.x * k,
    };
    n += 1;
    let mut s = n as f64;
    for i in 0..q.n {
        let r = Q {
            a: s + q.a,
            n: i,
            b: q.b * k,
        };
        for _ in 0..2 {
            s += 0.1 * s;
        }
        s += use_q(&r, k) + r.a * r.b;
        if s > 50.0 {
            return s + q.b;
        }
        let g = |t: f64| r.a * t + q.b;
        s += g(k);
    }
    let Q { a, b, .. } = &q;
    match &q {
        Q { n: 0, .. } => s,
        Q { a: aa, n, b: bb } => s * aa + *n as f64 * bb + a * b,
    }
}

impl P2 {
    #[forward]
    #[reverse]
    pub fn dist(&self, #[grad] o: &P2) -> f64 {
        ((self.x - o.x).powi(2) + (self.y - o.y).powi(2)).sqrt()
    }
}

#[forward]
#[reverse]
fn two(#[grad] a: &P2, #[grad] b: &P2) -> f64 {
    a.x * b.y - a.y * b.x + a.x * b.x
}

/// The `#[grad]` parameter shadowed by structs built from it; one struct passed for two
/// parameters; a method taking another struct.
#[forward]
#[reverse]
fn shadowing_the_parameter(#[grad] p: &P2, k: f64) -> f64 {
    let p = P2 { x: p.y * k, y: p.x };
    let q = P2 {
        x: p.x + 1.0,
        y: p.y - 2.0,
    };
    let p = P2 {
        x: q.x * p.x,
        y: p.y,
    };
    p.dist(&q) + two(&p, &q) + two(&q, &q) + p.x * q.y
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub enum Sh {
    Circle(f64),
    Rect { w: f64, h: f64 },
}

/// Structs built from payloads in match arms.
#[forward]
#[reverse]
fn in_match_arms(#[grad] s: &Sh, k: f64) -> f64 {
    match s {
        Sh::Circle(r) => {
            let q = P2 { x: *r, y: k * r };
            q.norm2() + two(&q, &q)
        }
        Sh::Rect { w, h } => {
            let q = P2 { x: *w, y: *h };
            let o = P2 { x: k, y: *w };
            q.dist(&o) + two(&o, &q)
        }
    }
}

/// Field initialisers that assign, in another order than declared: evaluated as written.
#[forward]
#[reverse]
fn evaluation_order(#[grad] p: &P2, k: f64) -> f64 {
    let mut s = p.x;
    let q = P2 {
        y: {
            s = s * k + p.y;
            s
        },
        x: s * s,
    };
    let mut t = p.y;
    let r = P2 {
        y: t,
        x: {
            t *= 3.0;
            t
        },
    };
    q.x * 10.0 + q.y + r.x * 100.0 + r.y * 1000.0 + s
}

/// Structs built in checkpointed regions.
#[forward]
#[reverse]
fn checkpointed(#[grad] p: &P2, k: f64) -> f64 {
    let mut s = p.x;
    #[checkpoint]
    let t = {
        let q = P2 { x: s * k, y: k };
        q.x * q.y
    };
    s += t;
    #[checkpoint(every = 2)]
    for _ in 0..5 {
        let q = P2 { x: s, y: k };
        s = p_energy(&q, k);
    }
    s + p.y
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Q32 {
    pub a: f32,
    pub b: f32,
}

#[forward]
#[reverse]
fn q32_product(#[grad] q: &Q32, k: f32) -> f32 {
    q.a * q.b * k
}

#[forward]
#[reverse]
fn q32_built(#[grad] q: &Q32, k: f32) -> f32 {
    let r = Q32 { b: q.a * k, a: q.b };
    q32_product(&r, k) + r.a
}

#[test]
fn structs_more_forms() {
    let mut rng = Rng::new(71);
    for _ in 0..3 {
        let p = random_p2(&mut rng);
        let k = rng.uniform(0.2, 1.2);
        check(
            data_fields_and_closures,
            data_fields_and_closures_jvp,
            data_fields_and_closures_vjp,
            &p,
            k,
            &mut rng,
        );
        check(
            shadowing_the_parameter,
            shadowing_the_parameter_jvp,
            shadowing_the_parameter_vjp,
            &p,
            k,
            &mut rng,
        );
        check(
            evaluation_order,
            evaluation_order_jvp,
            evaluation_order_vjp,
            &p,
            k,
            &mut rng,
        );
        check(
            checkpointed,
            checkpointed_jvp,
            checkpointed_vjp,
            &p,
            k,
            &mut rng,
        );
        for s in [
            Sh::Circle(rng.uniform(-1.0, 1.0)),
            Sh::Rect {
                w: rng.uniform(-1.0, 1.0),
                h: rng.uniform(-1.0, 1.0),
            },
        ] {
            check(
                in_match_arms,
                in_match_arms_jvp,
                in_match_arms_vjp,
                &s,
                k,
                &mut rng,
            );
        }
    }
    // f32: d/dq (q.b * q.a k * k + q.b) at q = (0.5, -1.5), k = 2.
    let q = Q32 { a: 0.5, b: -1.5 };
    let (value, (dq, dk)) = q32_built_grad(&q, 2.0);
    assert_eq!(value, q32_built(&q, 2.0));
    assert_eq!((dq, dk), (Q32 { a: -6.0, b: 3.0 }, -3.0));
    assert_eq!(
        q32_built_jvp(&q, 2.0, &Q32 { a: 1.0, b: 0.0 }, 0.0),
        (-4.5, -6.0)
    );
}
