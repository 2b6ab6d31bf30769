//! An adversarial review of user types in both modes: many small functions over derived
//! structs and enums (and data types) written as users write them, each checked along random
//! directions: forward against central differences, reverse against forward (dot-product
//! identity), values bit for bit.

// The functions spell out what users write (`m.c as f64`, index loops, `clone` of arrays).
#![allow(
    clippy::unnecessary_cast,
    clippy::needless_range_loop,
    clippy::clone_on_copy,
    clippy::assign_op_pattern
)]

mod common;

use ad_runtime::{forward, reverse, Differentiable};
use approx::assert_relative_eq;
use common::{
    axpy, central_difference, check_user_type as check, check_user_type1 as check1,
    check_user_type_forward as forward_only, dot, random_like, Rng,
};

// ===== types =====

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct P2 {
    pub x: f64,
    pub y: f64,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Wrap(pub f64, pub P2, pub usize);

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub enum Shape {
    Empty,
    Circle(f64),
    Rect { w: f64, h: f64 },
    Scaled(f64, Box<Shape>),
    Tagged { id: usize, r: f64 },
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Mixed {
    pub a: f64,
    pub n: usize,
    pub flag: bool,
    #[no_grad]
    pub c: f64,
    pub v: Vec<f64>,
    pub arr: [f64; 3],
    pub opt: Option<f64>,
    pub child: Option<Box<Mixed>>,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub enum List {
    Nil,
    Cons(f64, Box<List>),
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub enum Tree {
    Leaf(f64),
    Node {
        value: f64,
        left: Box<Tree>,
        right: Box<Tree>,
    },
}

fn list_of(values: &[f64]) -> List {
    values
        .iter()
        .rev()
        .fold(List::Nil, |tail, &head| List::Cons(head, Box::new(tail)))
}

fn random_tree(depth: usize, rng: &mut Rng) -> Tree {
    if depth == 0 || rng.uniform(0.0, 1.0) < 0.2 {
        Tree::Leaf(rng.uniform(-1.0, 1.0))
    } else {
        Tree::Node {
            value: rng.uniform(-1.0, 1.0),
            left: Box::new(random_tree(depth - 1, rng)),
            right: Box::new(random_tree(depth - 1, rng)),
        }
    }
}

fn shapes(rng: &mut Rng) -> Vec<Shape> {
    vec![
        Shape::Empty,
        Shape::Circle(rng.uniform(0.5, 1.5)),
        Shape::Circle(rng.uniform(-1.5, -0.5)),
        Shape::Rect {
            w: rng.uniform(0.5, 1.5),
            h: rng.uniform(0.5, 1.5),
        },
        Shape::Scaled(
            rng.uniform(0.5, 1.5),
            Box::new(Shape::Rect {
                w: rng.uniform(0.5, 1.5),
                h: rng.uniform(0.5, 1.5),
            }),
        ),
        Shape::Scaled(
            rng.uniform(0.5, 1.5),
            Box::new(Shape::Scaled(
                rng.uniform(0.5, 1.5),
                Box::new(Shape::Circle(0.7)),
            )),
        ),
        Shape::Tagged {
            id: 0,
            r: rng.uniform(0.5, 1.5),
        },
        Shape::Tagged {
            id: 3,
            r: rng.uniform(0.5, 1.5),
        },
    ]
}

fn mixed(rng: &mut Rng, depth: usize) -> Mixed {
    Mixed {
        a: rng.uniform(-1.0, 1.0),
        n: 3,
        flag: depth.is_multiple_of(2),
        c: 0.75,
        v: (0..4).map(|_| rng.uniform(-1.0, 1.0)).collect(),
        arr: [
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
        ],
        opt: if depth == 1 {
            None
        } else {
            Some(rng.uniform(0.5, 1.5))
        },
        child: if depth == 0 {
            None
        } else {
            Some(Box::new(mixed(rng, depth - 1)))
        },
    }
}

// ===== batch 1 =====

/// Match with guards, struct variant, tuple variant, `..`, recursion through a Box payload.
#[forward]
#[reverse]
fn area(#[grad] s: &Shape, x: f64) -> f64 {
    match s {
        Shape::Empty => x,
        Shape::Circle(r) if *r > 0.0 => 3.0 * r * r * x,
        Shape::Circle(r) => -r * x.sin(),
        Shape::Rect { w, h } => w * h + x,
        Shape::Scaled(k, inner) => k * k * area(inner, x),
        Shape::Tagged { id: 0, r } => r.exp() * x,
        Shape::Tagged { r, .. } => r * r * r,
    }
}

#[test]
fn match_guards_variants_recursion() {
    let mut rng = Rng::new(1);
    for s in shapes(&mut rng) {
        check(area, area_jvp, area_vjp, &s, 0.8, &mut rng);
    }
}

/// Reading the same float twice, method on a part, tuple struct.
#[forward]
#[reverse]
fn twice(#[grad] w: &Wrap, x: f64) -> f64 {
    w.0 * w.0 + w.0.sin() * w.1.x + w.1.y * w.1.y * x + w.2 as f64
}

#[test]
fn tuple_struct_same_float_twice() {
    let mut rng = Rng::new(2);
    let w = Wrap(0.4, P2 { x: -0.3, y: 1.1 }, 2);
    check(twice, twice_jvp, twice_vjp, &w, 0.9, &mut rng);
}

/// Data fields, `#[no_grad]` field, Vec and array fields, Option<f64>, Option<Box<..>>.
#[forward]
#[reverse]
fn mixed_fn(#[grad] m: &Mixed, x: f64) -> f64 {
    let mut s = m.a * x;
    for i in 0..m.n {
        s += m.arr[i] * m.v[i];
    }
    if m.flag {
        s *= m.a;
    }
    s += (m.c as f64) * x;
    let o = match m.opt {
        Some(o) => o * x,
        None => x,
    };
    s += o;
    match &m.child {
        Some(child) => s * mixed_fn(child, x),
        None => s,
    }
}

#[test]
fn mixed_fields() {
    let mut rng = Rng::new(3);
    for depth in 0..3 {
        let m = mixed(&mut rng, depth);
        check(mixed_fn, mixed_fn_jvp, mixed_fn_vjp, &m, 0.6, &mut rng);
    }
}

/// `List::Cons(a, ref rest)`, `*head`, `head.sin()`.
#[forward]
#[reverse]
fn list_walk(#[grad] l: &List, x: f64) -> f64 {
    match *l {
        List::Nil => x,
        List::Cons(a, ref rest) => a.sin() * x + list_walk(rest, x * a),
    }
}

#[test]
fn list_ref_rest() {
    let mut rng = Rng::new(4);
    for n in [0, 1, 3] {
        let l = list_of(&(0..n).map(|_| rng.uniform(-1.0, 1.0)).collect::<Vec<_>>());
        check(list_walk, list_walk_jvp, list_walk_vjp, &l, 0.7, &mut rng);
    }
}

/// `Tree::Node { value: v, .. }`, leaves with payloads.
#[forward]
#[reverse]
fn tree_fn(#[grad] t: &Tree, x: f64) -> f64 {
    match t {
        Tree::Leaf(v) => v * x,
        Tree::Node {
            value: v,
            left,
            right,
        } => {
            let l = tree_fn(left, x);
            let r = tree_fn(right, *v);
            v * l + r * r
        }
    }
}

#[test]
fn tree_renamed_field() {
    let mut rng = Rng::new(5);
    for depth in [0, 1, 3, 4] {
        let t = random_tree(depth, &mut rng);
        check(tree_fn, tree_fn_jvp, tree_fn_vjp, &t, 0.7, &mut rng);
    }
}

/// By value.
#[forward]
#[reverse]
fn by_value(#[grad] s: Shape, x: f64) -> f64 {
    match s {
        Shape::Circle(r) => r * x,
        Shape::Rect { w, h } => w * h * x,
        _ => x * x,
    }
}

#[test]
fn enum_by_value() {
    let mut rng = Rng::new(6);
    for s in shapes(&mut rng) {
        check(
            |s: &Shape, x| by_value(s.clone(), x),
            |s: &Shape, x, ds: &Shape, dx| by_value_jvp(s.clone(), x, ds.clone(), dx),
            |s: &Shape, x, ct| by_value_vjp(s.clone(), x, ct),
            &s,
            0.3,
            &mut rng,
        );
    }
}

/// Field reads inside a loop and a closure.
#[forward]
#[reverse]
fn loop_closure(#[grad] p: &P2, x: f64) -> f64 {
    let f = |t: f64| t * p.x + p.y;
    let mut s = 0.0;
    for i in 0..4 {
        s += f(x + i as f64) * p.y;
    }
    s
}

#[test]
fn loops_and_closures() {
    let mut rng = Rng::new(7);
    let p = P2 { x: 0.3, y: -0.8 };
    check(
        loop_closure,
        loop_closure_jvp,
        loop_closure_vjp,
        &p,
        0.4,
        &mut rng,
    );
}

// ===== batch 2: parts passed to calls, alternatives, `@`, early return, closures =====

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Body {
    pub pos: P2,
    pub vel: P2,
    pub items: Vec<P2>,
    pub m: f64,
}

#[forward]
#[reverse]
fn norm(#[grad] q: &P2) -> f64 {
    (q.x * q.x + q.y * q.y).sqrt()
}

#[forward]
#[reverse]
fn norm_by_value(#[grad] q: P2) -> f64 {
    q.x * q.y
}

#[forward]
#[reverse]
fn square(a: f64) -> f64 {
    a * a
}

/// Parts by reference, by `.clone()`, a float part, parts indexed in a `Vec` field.
#[forward]
#[reverse]
fn parts(#[grad] b: &Body, x: f64) -> f64 {
    let mut s = norm(&b.pos) * x + norm_by_value(b.vel.clone()) + square(b.m);
    for i in 0..b.items.len() {
        s += norm(&b.items[i]) * b.items[i].x;
    }
    s
}

#[test]
fn parts_passed_to_calls() {
    let mut rng = Rng::new(21);
    let b = Body {
        pos: P2 { x: 0.3, y: 0.4 },
        vel: P2 { x: -0.5, y: 1.2 },
        items: vec![P2 { x: 1.0, y: 2.0 }, P2 { x: -0.3, y: 0.9 }],
        m: 1.5,
    };
    check(parts, parts_jvp, parts_vjp, &b, 0.7, &mut rng);
    check1(norm, norm_jvp, norm_vjp, &b.pos, &mut rng);
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub enum Sh {
    A(f64),
    B(f64),
    C { w: f64, h: f64 },
    D,
}

/// `|` alternatives binding the same name, `name @ pattern` passed on whole.
#[forward]
#[reverse]
fn alternatives(#[grad] s: &Sh, x: f64) -> f64 {
    match s {
        Sh::A(r) | Sh::B(r) => r * x,
        c @ Sh::C { .. } => alternatives_c(c, x),
        Sh::D => x,
    }
}

#[forward]
#[reverse]
fn alternatives_c(#[grad] s: &Sh, x: f64) -> f64 {
    match s {
        Sh::C { w, h: hh } => w * hh * x,
        _ => 0.0,
    }
}

#[test]
fn or_patterns_and_at_bindings() {
    let mut rng = Rng::new(22);
    for s in [Sh::A(0.3), Sh::B(0.7), Sh::C { w: 0.5, h: 1.5 }, Sh::D] {
        check(
            alternatives,
            alternatives_jvp,
            alternatives_vjp,
            &s,
            0.7,
            &mut rng,
        );
    }
}

/// Early `return` from a guarded arm, assignment in an arm, a unit arm.
#[forward]
#[reverse]
fn early(#[grad] l: &List, x: f64) -> f64 {
    let mut s = x;
    match l {
        List::Cons(h, _) if *h > 0.5 => return h * x,
        List::Cons(h, t) => s = s * h + early(t, x * 0.5),
        List::Nil => {}
    }
    s
}

/// A closure capturing a pattern-bound part.
#[forward]
#[reverse]
fn closure_part(#[grad] l: &List, x: f64) -> f64 {
    match l {
        List::Nil => x,
        List::Cons(h, t) => {
            let f = |z: f64| z * h;
            f(x) + closure_part(t, x)
        }
    }
}

/// Pattern names shadowing the parameters.
#[forward]
#[reverse]
fn shadowing(#[grad] l: &List, x: f64) -> f64 {
    match l {
        List::Nil => x,
        List::Cons(x, l) => x * shadowing(l, *x),
    }
}

#[test]
fn early_return_closures_shadowing() {
    let mut rng = Rng::new(23);
    for values in [&[][..], &[0.3], &[0.3, 0.9, 0.2], &[0.1, 0.2, 0.3, 0.4]] {
        let l = list_of(values);
        check(early, early_jvp, early_vjp, &l, 0.7, &mut rng);
        check(
            closure_part,
            closure_part_jvp,
            closure_part_vjp,
            &l,
            0.7,
            &mut rng,
        );
        check(shadowing, shadowing_jvp, shadowing_vjp, &l, 0.7, &mut rng);
    }
}

// ===== batch 3: several #[grad] parameters, slices, f32, containers of user types =====

#[forward]
#[reverse]
fn two(#[grad] a: &P2, #[grad] b: P2, x: f64, v: &[f64], n: usize, #[no_grad] c: f64) -> f64 {
    let mut s = a.x * b.y - a.y * b.x + x * c;
    for i in 0..n.min(v.len()) {
        s += v[i] * a.x + v[i] * v[i] * b.x;
    }
    s
}

#[test]
fn several_grad_parameters_with_slices() {
    let mut rng = Rng::new(31);
    let a = P2 { x: 0.4, y: 1.3 };
    let b = P2 { x: -0.4, y: 0.8 };
    let v = [0.3, -0.5, 0.9];
    let (value, (ga, gb, gx, gv)) = two_grad(&a, b.clone(), 0.7, &v, 2, 1.5);
    assert_eq!(
        value.to_bits(),
        two(&a, b.clone(), 0.7, &v, 2, 1.5).to_bits()
    );
    for _ in 0..3 {
        let da = random_like(&a, &mut rng);
        let db = random_like(&b, &mut rng);
        let dv: Vec<f64> = (0..3).map(|_| rng.uniform(-1.0, 1.0)).collect();
        let dx = rng.uniform(-1.0, 1.0);
        let (fv, tangent) = two_jvp(&a, b.clone(), 0.7, &v, 2, 1.5, &da, db.clone(), dx, &dv);
        assert_eq!(fv.to_bits(), value.to_bits());
        let along = |h: f64| {
            let moved: Vec<f64> = v.iter().zip(&dv).map(|(v, d)| v + h * d).collect();
            two(
                &axpy(&a, h, &da),
                axpy(&b, h, &db),
                0.7 + h * dx,
                &moved,
                2,
                1.5,
            )
        };
        let difference = central_difference(along, 0.0, 1e-4);
        assert_relative_eq!(tangent, difference, epsilon = 1e-7, max_relative = 1e-7);
        let adjoint = dot(&ga, &da)
            + dot(&gb, &db)
            + gx * dx
            + gv.iter().zip(&dv).map(|(g, d)| g * d).sum::<f64>();
        assert_relative_eq!(adjoint, tangent, epsilon = 1e-12, max_relative = 1e-12);
    }
}

#[forward]
#[reverse]
fn list_sum(#[grad] l: &List) -> f64 {
    match l {
        List::Nil => 0.0,
        List::Cons(h, t) => h + list_sum(t),
    }
}

/// Two `#[grad]` parameters of the same type, recursion on one of them.
#[forward]
#[reverse]
fn same_type_twice(#[grad] a: &List, #[grad] b: &List, x: f64) -> f64 {
    match a {
        List::Nil => x * list_sum(b),
        List::Cons(h, t) => h * same_type_twice(t, b, x) + list_sum(b) * h,
    }
}

#[test]
fn two_parameters_of_one_type() {
    let mut rng = Rng::new(32);
    let l1 = list_of(&[0.4, 1.3]);
    let l2 = list_of(&[-0.6, 0.9, 0.2]);
    let (value, (g1, g2, gx)) = same_type_twice_grad(&l1, &l2, 0.7);
    assert_eq!(value.to_bits(), same_type_twice(&l1, &l2, 0.7).to_bits());
    for _ in 0..3 {
        let d1 = random_like(&l1, &mut rng);
        let d2 = random_like(&l2, &mut rng);
        let (fv, tangent) = same_type_twice_jvp(&l1, &l2, 0.7, &d1, &d2, 0.5);
        assert_eq!(fv.to_bits(), value.to_bits());
        let difference = central_difference(
            |h| same_type_twice(&axpy(&l1, h, &d1), &axpy(&l2, h, &d2), 0.7 + 0.5 * h),
            0.0,
            1e-4,
        );
        assert_relative_eq!(tangent, difference, epsilon = 1e-7, max_relative = 1e-7);
        let adjoint = dot(&g1, &d1) + dot(&g2, &d2) + gx * 0.5;
        assert_relative_eq!(adjoint, tangent, epsilon = 1e-12, max_relative = 1e-12);
    }
    // The same list passed twice: adjoints of both.
    let (_, (g1, g2, _)) = same_type_twice_grad(&l1, &l1, 0.7);
    assert_ne!(g1, g2);
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Q32 {
    pub a: f32,
    pub v: Vec<f32>,
}

#[forward]
#[reverse]
fn single(#[grad] q: &Q32, x: f32) -> f32 {
    let mut s = q.a * x;
    for i in 0..q.v.len() {
        s += (q.v[i] * x).sin();
    }
    s
}

#[test]
fn f32_user_type() {
    let q = Q32 {
        a: 0.5,
        v: vec![0.1, 0.2, 0.3],
    };
    let (value, (gq, gx)) = single_grad(&q, 0.7);
    assert_eq!(value.to_bits(), single(&q, 0.7).to_bits());
    let dq = Q32 {
        a: 1.0,
        v: vec![0.0, 1.0, 0.0],
    };
    let (fv, tangent) = single_jvp(&q, 0.7, &dq, 0.5);
    assert_eq!(fv.to_bits(), value.to_bits());
    let expected = 0.7
        + 0.7 * (0.2f32 * 0.7).cos()
        + 0.5 * (0.5 + 0.1 * 0.07f32.cos() + 0.2 * 0.14f32.cos() + 0.3 * 0.21f32.cos());
    assert_relative_eq!(tangent, expected, max_relative = 1e-5);
    assert_relative_eq!(gq.a + gq.v[1] + 0.5 * gx, tangent, max_relative = 1e-5);
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Cloud {
    pub pts: [P2; 2],
    pub extra: Option<P2>,
    pub grid: Vec<Vec<f64>>,
    pub k: usize,
    pub ws: Vec<[f64; 2]>,
    pub v: Vec<f64>,
    pub arr: [f64; 3],
}

#[forward]
#[reverse]
fn slice_sum(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum()
}

#[forward]
#[reverse]
fn arr_fn(a: [f64; 3]) -> f64 {
    a[0] * a[1] + a[2]
}

/// Arrays of structs indexed by a data field, `Vec<Vec<f64>>`, `Vec<[f64; 2]>`,
/// `Option<P2>`, a `Vec` field passed as a slice, an array field passed by `.clone()`.
#[forward]
#[reverse]
fn cloud(#[grad] c: &Cloud, x: f64) -> f64 {
    let mut s = c.pts[0].x * c.pts[1].y + c.pts[c.k].x * x;
    for i in 0..c.grid.len() {
        for j in 0..c.grid[i].len() {
            s += c.grid[i][j] * (i + j) as f64 * x;
        }
    }
    for i in 0..c.ws.len() {
        s += c.ws[i][0] * c.ws[i][1];
    }
    s += slice_sum(&c.v) * x + slice_sum(&c.arr) + arr_fn(c.arr.clone()) * x;
    match &c.extra {
        Some(e) => s * e.x + e.y,
        None => s,
    }
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub enum Ev {
    Many {
        vals: Vec<f64>,
        scale: f64,
        n: usize,
    },
    One(P2),
    Nothing,
}

/// Struct variant holding a `Vec` and a data count; a variant holding a struct.
#[forward]
#[reverse]
fn ev(#[grad] e: &Ev, x: f64) -> f64 {
    match e {
        Ev::Many { vals, scale, n } => {
            let mut s = 0.0;
            for i in 0..*n {
                s += vals[i] * scale * x;
            }
            s + vals.len() as f64
        }
        Ev::One(p) => p.x * p.y * x,
        Ev::Nothing => x,
    }
}

#[test]
fn containers_of_user_types() {
    let mut rng = Rng::new(33);
    let c = Cloud {
        pts: [P2 { x: 0.2, y: 0.5 }, P2 { x: -0.2, y: 0.9 }],
        extra: Some(P2 { x: 0.7, y: 0.1 }),
        grid: vec![vec![0.1, 0.2], vec![], vec![0.3]],
        k: 1,
        ws: vec![[0.5, 0.6], [0.7, -0.8]],
        v: vec![1.0, 2.0, -0.5],
        arr: [0.5, 0.25, 2.0],
    };
    check(cloud, cloud_jvp, cloud_vjp, &c, 0.7, &mut rng);
    let c2 = Cloud {
        extra: None,
        k: 0,
        ..c.clone()
    };
    check(cloud, cloud_jvp, cloud_vjp, &c2, 0.7, &mut rng);
    for e in [
        Ev::Many {
            vals: vec![0.3, 0.4, 0.5],
            scale: 1.5,
            n: 2,
        },
        Ev::One(P2 { x: 0.3, y: 0.6 }),
        Ev::Nothing,
    ] {
        check(ev, ev_jvp, ev_vjp, &e, 0.7, &mut rng);
    }
}

// ===== batch 4: data types (no derive, or a derived type without #[grad]) =====

pub struct Cfg {
    pub lo: f64,
    pub hi: f64,
    pub n: usize,
}

pub enum Mode {
    Scale(f64),
    Shift { by: f64 },
    Id,
}

/// `x.max(cfg.lo)`, `clamp`, a comparison `cfg.lo < x`, `cfg.hi * x`.
#[forward]
#[reverse]
fn data_cfg(cfg: &Cfg, x: f64) -> f64 {
    x.max(cfg.lo) + x.clamp(cfg.lo, cfg.hi) + if cfg.lo < x { x } else { cfg.hi * x }
}

/// A method with the data float as receiver and a float argument, a cast, `powf`.
#[forward]
#[reverse]
fn data_cfg2(cfg: &Cfg, x: f64) -> f64 {
    cfg.lo.max(x) * (cfg.n as f64) + x.powf(cfg.hi)
}

/// A data enum with payloads read in guards and arithmetic, by reference and `*k`.
#[forward]
#[reverse]
fn data_mode(m: &Mode, x: f64) -> f64 {
    match m {
        Mode::Scale(k) if *k > x => k * x,
        Mode::Scale(k) => x * *k + k,
        Mode::Shift { by } => x + by,
        Mode::Id => x,
    }
}

/// A derived type marked `#[no_grad]` is data.
#[forward]
#[reverse]
fn derived_as_data(#[no_grad] p: &P2, x: f64) -> f64 {
    p.x * x + x * p.y * p.y
}

/// Without a mark, a type the file derives `Differentiable` for is differentiated, as the
/// contract says (`#[grad]` is implied).
#[forward]
#[reverse]
fn derived_unmarked(p: &P2, x: f64) -> f64 {
    p.x * x + x * p.y * p.y
}

#[test]
fn a_derived_parameter_without_a_mark_is_differentiated() {
    let p = P2 { x: 0.4, y: 1.3 };
    let x = 0.7;
    let (value, (dp, dx)) = derived_unmarked_grad(&p, x);
    assert_eq!(value.to_bits(), derived_unmarked(&p, x).to_bits());
    assert_relative_eq!(dp.x, x, max_relative = 1e-15);
    assert_relative_eq!(dp.y, 2.0 * x * p.y, max_relative = 1e-15);
    assert_relative_eq!(dx, p.x + p.y * p.y, max_relative = 1e-15);
    let direction = P2 { x: -0.3, y: 0.8 };
    let (_, tangent) = derived_unmarked_jvp(&p, x, &direction, 0.5);
    let expected = dp.x * direction.x + dp.y * direction.y + dx * 0.5;
    assert_relative_eq!(tangent, expected, max_relative = 1e-14);
}

fn check_scalar(
    plain: impl Fn(f64) -> f64,
    jvp: impl Fn(f64, f64) -> (f64, f64),
    grad: impl Fn(f64) -> (f64, f64),
    x: f64,
) {
    let (value, tangent) = jvp(x, 1.0);
    assert_eq!(value.to_bits(), plain(x).to_bits());
    let difference = central_difference(&plain, x, 1e-4);
    assert_relative_eq!(tangent, difference, epsilon = 1e-7, max_relative = 1e-7);
    let (value, gradient) = grad(x);
    assert_eq!(value.to_bits(), plain(x).to_bits());
    assert_relative_eq!(gradient, tangent, max_relative = 1e-12);
}

#[test]
fn data_types_in_arithmetic() {
    let cfg = Cfg {
        lo: 0.5,
        hi: 2.0,
        n: 3,
    };
    for x in [-0.3, 0.7, 1.3, 2.5] {
        check_scalar(
            |x| data_cfg(&cfg, x),
            |x, dx| data_cfg_jvp(&cfg, x, dx),
            |x| data_cfg_grad(&cfg, x),
            x,
        );
        check_scalar(
            |x| data_cfg2(&cfg, x),
            |x, dx| data_cfg2_jvp(&cfg, x, dx),
            |x| data_cfg2_grad(&cfg, x),
            x,
        );
        for m in [
            Mode::Scale(2.0),
            Mode::Scale(0.5),
            Mode::Shift { by: 1.0 },
            Mode::Id,
        ] {
            check_scalar(
                |x| data_mode(&m, x),
                |x, dx| data_mode_jvp(&m, x, dx),
                |x| data_mode_grad(&m, x),
                x,
            );
        }
        let p = P2 { x: 0.4, y: 1.3 };
        check_scalar(
            |x| derived_as_data(&p, x),
            |x, dx| derived_as_data_jvp(&p, x, dx),
            |x| derived_as_data_grad(&p, x),
            x,
        );
    }
}

// ===== batch 5: matches inside loops, over indexed parts, with break/continue =====

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Scene {
    pub shapes: Vec<Sh>,
    pub lights: Vec<P2>,
    pub gain: f64,
    pub limit: usize,
}

/// A nested derived enum can be matched only through a function taking it as `#[grad]` (see
/// the report): `shade` does the match, `scene` loops over the parts.
#[forward]
#[reverse]
fn shade(#[grad] s: &Sh, light: f64, x: f64) -> f64 {
    match s {
        Sh::A(r) if *r < 0.0 => 0.0,
        Sh::A(r) => r * light,
        Sh::B(r) => -r * r * x,
        Sh::C { w, h } => alternatives_c(s, x) * w * (1.0 + 0.1 * h),
        Sh::D => light * x,
    }
}

#[forward]
#[reverse]
fn scene(#[grad] sc: &Scene, x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..sc.shapes.len() {
        if i >= sc.limit {
            break;
        }
        if i == 4 {
            continue;
        }
        s += shade(&sc.shapes[i], sc.lights[i % sc.lights.len()].x, x) * sc.gain;
    }
    let mut k = 0;
    while k < sc.lights.len() {
        s += (sc.lights[k].y * x).tanh() * sc.gain;
        k += 1;
    }
    s
}

#[test]
fn matches_inside_loops_over_indexed_parts() {
    let mut rng = Rng::new(51);
    for limit in [0, 2, 5, 10] {
        let sc = Scene {
            shapes: vec![
                Sh::A(0.4),
                Sh::C { w: 0.5, h: -0.3 },
                Sh::A(-0.2),
                Sh::B(0.8),
                Sh::D,
                Sh::C { w: 1.1, h: 0.6 },
            ],
            lights: vec![P2 { x: 0.3, y: -0.6 }, P2 { x: 0.9, y: 0.2 }],
            gain: 1.3,
            limit,
        };
        check(scene, scene_jvp, scene_vjp, &sc, 0.7, &mut rng);
    }
}

// ===== forward only: constructs reverse mode refuses (or gets wrong, see the report) =====

#[forward]
fn fwd_if_let(#[grad] l: &List, x: f64) -> f64 {
    if let List::Cons(h, t) = l {
        h * fwd_if_let(t, x)
    } else {
        x
    }
}

#[forward]
fn fwd_deref_box(#[grad] l: &List, x: f64) -> f64 {
    match l {
        List::Nil => x,
        List::Cons(h, t) => match &**t {
            List::Nil => *h * x,
            List::Cons(h2, _) => h * h2 + fwd_deref_box(t, x),
        },
    }
}

#[forward]
fn fwd_while_let(#[grad] l: &List, x: f64) -> f64 {
    let mut cur = l;
    let mut s = x;
    while let List::Cons(h, rest) = cur {
        s = s * h + 0.1;
        cur = rest;
    }
    s
}

#[forward]
fn fwd_alias(#[grad] b: &Body, x: f64) -> f64 {
    let q = &b.pos;
    q.x * x + q.y * b.m
}

#[forward]
fn fwd_mutate(#[grad] mut b: Body, x: f64) -> f64 {
    b.pos.x *= x;
    b.m = b.pos.x + b.m;
    b.m * b.pos.y
}

#[test]
fn forward_mode_takes_more() {
    let mut rng = Rng::new(61);
    for values in [&[][..], &[0.4], &[0.4, 1.3, -0.7]] {
        let l = list_of(values);
        forward_only(fwd_if_let, fwd_if_let_jvp, &l, 0.5, &mut rng);
        forward_only(fwd_deref_box, fwd_deref_box_jvp, &l, 0.5, &mut rng);
        forward_only(fwd_while_let, fwd_while_let_jvp, &l, 0.5, &mut rng);
    }
    let b = Body {
        pos: P2 { x: 0.3, y: 0.2 },
        vel: P2 { x: 0.0, y: 0.0 },
        items: vec![],
        m: 1.5,
    };
    forward_only(fwd_alias, fwd_alias_jvp, &b, 0.5, &mut rng);
    forward_only(
        |b: &Body, x| fwd_mutate(b.clone(), x),
        |b: &Body, x, db: &Body, dx| fwd_mutate_jvp(b.clone(), x, db.clone(), dx),
        &b,
        0.5,
        &mut rng,
    );
}

// ===== batch 6: `let` of a match value, nested matches over parts, tuple locals =====

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Inner {
    pub a: f64,
    pub opt: Option<f64>,
    pub n: usize,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub enum Outer {
    One(Inner),
    Two(Inner, Inner),
    Zero,
}

#[forward]
#[reverse]
fn let_match(#[grad] ob: &Outer, x: f64) -> f64 {
    let r = match ob {
        Outer::One(i) => i.a * x,
        Outer::Two(i, j) => match &j.opt {
            Some(v) if *v > 0.0 => i.a * v,
            Some(v) => v * x + (j.n as f64) * i.a,
            None => match &i.opt {
                Some(w) => w * j.a,
                None => x,
            },
        },
        Outer::Zero => 0.0,
    };
    r * r + x
}

#[forward]
#[reverse]
fn tuple_local(#[grad] b: &Body, x: f64) -> f64 {
    let (px, py) = (b.pos.x, b.pos.y);
    let mut s = px * x;
    s += py * py;
    s
}

#[test]
fn nested_matches_and_locals() {
    let mut rng = Rng::new(71);
    let i1 = Inner {
        a: 0.3,
        opt: Some(0.8),
        n: 2,
    };
    let i2 = Inner {
        a: -0.6,
        opt: Some(-0.5),
        n: 3,
    };
    let i3 = Inner {
        a: 0.9,
        opt: None,
        n: 1,
    };
    for ob in [
        Outer::One(i1.clone()),
        Outer::Two(i1.clone(), i1.clone()),
        Outer::Two(i1.clone(), i2.clone()),
        Outer::Two(i1.clone(), i3.clone()),
        Outer::Two(i3.clone(), i3.clone()),
        Outer::Zero,
    ] {
        check(let_match, let_match_jvp, let_match_vjp, &ob, 0.7, &mut rng);
    }
    let b = Body {
        pos: P2 { x: 0.3, y: 0.2 },
        vel: P2 { x: 0.0, y: 0.0 },
        items: vec![0.5, 0.6].into_iter().map(|x| P2 { x, y: x }).collect(),
        m: 1.5,
    };
    check(
        tuple_local,
        tuple_local_jvp,
        tuple_local_vjp,
        &b,
        0.5,
        &mut rng,
    );
}

// ===== batch 7: regressions of bugs found in the review (silent zero through `if let`, and
// constructs that failed to compile in reverse mode), fixed at 57c6050 plus the work after it =====

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Chained {
    pub w: f64,
    pub next: Option<Box<Chained>>,
}

/// An optional child passed to a recursive call from an `if let`: reverse mode used to drop the
/// child's whole gradient (silently zero).
#[forward]
#[reverse]
fn chained(#[grad] layer: &Chained, x: f64) -> f64 {
    let s = layer.w * x;
    if let Some(next) = &layer.next {
        s * chained(next, x)
    } else {
        s
    }
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub enum Sh3 {
    A(f64),
    B(f64, f64),
    C,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Pair {
    pub s: Sh3,
    pub t: Option<f64>,
    pub u: Vec<f64>,
}

/// `if let .. else if let ..`.
#[forward]
#[reverse]
fn if_let_chain(#[grad] s: &Sh3, x: f64) -> f64 {
    if let Sh3::A(r) = s {
        r * x
    } else if let Sh3::B(a, b) = s {
        a * b * x
    } else {
        x
    }
}

/// Nested `if let`s, a loop over a `Vec` field, destructuring `let`.
#[forward]
#[reverse]
fn if_let_nested(#[grad] p: &Pair, x: f64) -> f64 {
    let mut acc = x;
    if let Some(t) = p.t {
        acc = acc * t;
        if let Sh3::B(a, _) = &p.s {
            acc += a * t;
        }
    }
    for v in &p.u {
        acc += v * x;
    }
    let Pair { s: _, t: _, u } = p;
    acc + u.len() as f64
}

/// Looking one node ahead through `&**t`.
#[forward]
#[reverse]
fn look_ahead(#[grad] l: &List, x: f64) -> f64 {
    match l {
        List::Nil => x,
        List::Cons(h, t) => match &**t {
            List::Nil => *h * x,
            List::Cons(h2, _) => h * h2 + look_ahead(t, x),
        },
    }
}

/// Matching Copy places by value: bindings are values (an integer range bound, a float
/// argument, a guard comparing the float).
#[forward]
#[reverse]
fn by_value_bindings(#[grad] m: &Mixed, x: f64) -> f64 {
    let a = match m.n {
        0 => x,
        k => {
            let mut s = m.a;
            for _ in 0..k {
                s *= x;
            }
            s
        }
    };
    let b = match m.opt {
        Some(o) => square(o) * x,
        None => x,
    };
    let c = match m.opt {
        Some(v) if v > 1.0 => m.a * v,
        _ => x,
    };
    a + b + c
}

#[test]
fn regressions_if_let_and_by_value_matches() {
    let mut rng = Rng::new(81);
    let l = Chained {
        w: 0.5,
        next: Some(Box::new(Chained {
            w: 1.5,
            next: Some(Box::new(Chained {
                w: -0.7,
                next: None,
            })),
        })),
    };
    check(chained, chained_jvp, chained_vjp, &l, 2.0, &mut rng);
    let (_, (adjoint, _)) = chained_grad(
        &Chained {
            w: 0.5,
            next: Some(Box::new(Chained { w: 1.5, next: None })),
        },
        2.0,
    );
    assert_eq!(
        adjoint,
        Chained {
            w: 6.0,
            next: Some(Box::new(Chained { w: 2.0, next: None }))
        }
    );
    for s in [Sh3::A(0.4), Sh3::B(0.3, -0.7), Sh3::C] {
        check(
            if_let_chain,
            if_let_chain_jvp,
            if_let_chain_vjp,
            &s,
            0.6,
            &mut rng,
        );
        for t in [Some(0.8), None] {
            let p = Pair {
                s: s.clone(),
                t,
                u: vec![0.2, -0.4],
            };
            check(
                if_let_nested,
                if_let_nested_jvp,
                if_let_nested_vjp,
                &p,
                0.6,
                &mut rng,
            );
        }
    }
    for values in [&[][..], &[0.4], &[0.4, 1.3, -0.7]] {
        let l = list_of(values);
        check(
            look_ahead,
            look_ahead_jvp,
            look_ahead_vjp,
            &l,
            0.5,
            &mut rng,
        );
    }
    for depth in 0..3 {
        let mut m = mixed(&mut rng, depth);
        for opt in [Some(1.4), Some(0.6), None] {
            m.opt = opt;
            check(
                by_value_bindings,
                by_value_bindings_jvp,
                by_value_bindings_vjp,
                &m,
                0.6,
                &mut rng,
            );
        }
    }
}
