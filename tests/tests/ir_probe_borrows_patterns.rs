//! A helper's probe of the IR engine's new constructs (commit fc34e5f): patterns of derived
//! types learned from the values they take apart (methods matching `self`, fields of `#[grad]`
//! parameters), `..` in struct and variant patterns of derived types, borrows as place aliases
//! (`let r = &mut v[i]; *r += ..`, `let ref mut`, an arm's `ref mut`), and `&mut` of data passed
//! to plain functions and to `std::mem::swap`/`replace`/`take`; each with loops (`break`,
//! `continue`, `while`), branches, early `return`, nested borrows, checkpointed regions, nested
//! and recursive derived types. Every probe is checked in both modes: reverse against forward
//! along random directions (and basis directions for slices), forward against central
//! differences, values bit for bit.

#![allow(
    clippy::assign_op_pattern,
    clippy::needless_range_loop,
    clippy::needless_borrow,
    clippy::toplevel_ref_arg,
    clippy::match_single_binding,
    clippy::clone_on_copy,
    clippy::ptr_arg,
    clippy::redundant_closure,
    clippy::explicit_auto_deref,
    clippy::manual_swap,
    clippy::mem_replace_with_default,
    clippy::mem_replace_option_with_some,
    clippy::deref_addrof,
    clippy::unnecessary_mut_passed,
    clippy::op_ref,
    clippy::explicit_counter_loop,
    clippy::while_let_loop,
    clippy::useless_vec,
    unused_mut
)]

mod common;

use ad_runtime::{checkpoint, forward, reverse, Differentiable};
use common::{check_slice_function_at_random_points as check_slice, check_user_type, Rng};

/// The IR engine took these functions (the previous engine otherwise).
macro_rules! on_ir {
    ($($function:ident),*) => {$(
        assert_eq!($function::__AD_ENGINE, "ir", stringify!($function));
    )*};
}

// ===== data helpers (plain functions) =====

fn bump(k: &mut usize) {
    *k += 1;
}

fn advance(k: &mut usize) -> usize {
    *k += 2;
    *k
}

fn bump_mod(k: &mut usize, n: usize) {
    *k = (*k + 3) % n;
}

fn reverse_all(p: &mut [usize]) {
    p.reverse();
}

fn flip(b: &mut bool) {
    *b = !*b;
}

// ===== derived types =====

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub enum Shape {
    Rect { w: f64, h: f64, d: f64 },
    Tube(f64, f64, usize),
    Dot,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct P2 {
    pub x: f64,
    pub y: f64,
    pub tag: usize,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct V3(pub f64, pub f64, pub f64);

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Mid {
    pub shape: Shape,
    pub k: f64,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Outer {
    pub mid: Mid,
    pub s: f64,
    pub corner: P2,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Scene {
    pub shapes: Vec<Shape>,
    pub gain: f64,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub enum Curve {
    Spline { knots: Vec<f64>, tension: f64 },
    Line(f64, f64),
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Poly {
    pub coeffs: Vec<f64>,
    pub scale: f64,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub enum Ex {
    Num(f64),
    Var,
    Add(Box<Ex>, Box<Ex>),
    Mul(Box<Ex>, Box<Ex>),
    Sin(Box<Ex>),
}

fn shapes() -> Vec<Shape> {
    vec![
        Shape::Rect {
            w: 0.7,
            h: -0.4,
            d: 1.1,
        },
        Shape::Rect {
            w: 1.3,
            h: 0.9,
            d: -0.6,
        },
        Shape::Tube(0.8, -1.2, 2),
        Shape::Tube(-0.3, 0.5, 0),
        Shape::Dot,
    ]
}

fn scene() -> Scene {
    Scene {
        shapes: vec![
            Shape::Tube(0.8, -1.2, 2),
            Shape::Rect {
                w: 0.7,
                h: -0.4,
                d: 1.1,
            },
            Shape::Dot,
            Shape::Tube(-1.3, 0.5, 0),
            Shape::Rect {
                w: 1.3,
                h: 0.9,
                d: -0.6,
            },
            Shape::Rect {
                w: 0.2,
                h: 1.5,
                d: 0.3,
            },
            Shape::Tube(0.4, 0.6, 1),
        ],
        gain: 0.9,
    }
}

fn outers() -> Vec<Outer> {
    shapes()
        .into_iter()
        .enumerate()
        .map(|(i, shape)| Outer {
            mid: Mid {
                shape,
                k: 0.3 + 0.2 * i as f64,
            },
            s: -0.8 + 0.1 * i as f64,
            corner: P2 {
                x: 0.4,
                y: -0.9 + 0.3 * i as f64,
                tag: i,
            },
        })
        .collect()
}

fn ex_tree() -> Ex {
    use Ex::*;
    Add(
        Box::new(Mul(Box::new(Num(1.3)), Box::new(Sin(Box::new(Var))))),
        Box::new(Mul(
            Box::new(Add(Box::new(Var), Box::new(Num(-0.4)))),
            Box::new(Sin(Box::new(Mul(Box::new(Var), Box::new(Num(0.7)))))),
        )),
    )
}

// ===== 1. patterns whose type is learned from the value they take apart =====

impl Shape {
    /// `match self`, `..` in both kinds of variant, a unit variant.
    #[forward]
    #[reverse]
    pub fn area(&self, x: f64) -> f64 {
        match self {
            Shape::Rect { w, h, .. } => w * h * x,
            Shape::Tube(r, l, ..) => r * l * x.sin(),
            Shape::Dot => x,
        }
    }

    /// `match self` inside a loop, with `break`, `continue` and an early `return` in arms.
    #[forward]
    #[reverse]
    pub fn swept(&self, x: f64) -> f64 {
        let mut total = 0.0;
        for i in 0..4 {
            match self {
                Shape::Rect { w, .. } => {
                    if *w * (i as f64) > 2.0 {
                        return total + w;
                    }
                    total += w * x;
                }
                Shape::Tube(r, _, n) => {
                    if i >= *n {
                        break;
                    }
                    total += r * x * x;
                }
                Shape::Dot => continue,
            }
            total *= 0.9;
        }
        total
    }

    /// A borrow into a local `Vec` inside an arm of `match self`.
    #[forward]
    #[reverse]
    pub fn binned(&self, x: f64) -> f64 {
        let mut bins = vec![0.0; 3];
        for i in 0..5 {
            match self {
                Shape::Rect { w, h, .. } => {
                    let r = &mut bins[i % 3];
                    *r += w * x + h;
                }
                Shape::Tube(r, l, _) => {
                    let b = &mut bins[(i + 1) % 3];
                    *b = *b * r + l * x;
                }
                Shape::Dot => bins[0] += x,
            }
        }
        bins[0] * bins[1] + bins[2]
    }
}

/// Tubes read with a `while` loop over a `Vec` field of derived enums, `if let` with `..`.
#[forward]
#[reverse]
fn scene_tubes(#[grad] sc: &Scene, x: f64) -> f64 {
    let mut i = 0;
    let mut s = x;
    while i < sc.shapes.len() {
        if let Shape::Tube(r, l, ..) = &sc.shapes[i] {
            s = s * r + l;
        } else {
            s += sc.gain;
        }
        i += 1;
    }
    s
}

impl Scene {
    /// `match &self.shapes[i]` (a field's elements, their type learned) with `break` and
    /// `continue` in the arms.
    #[forward]
    #[reverse]
    pub fn load(&self, x: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..self.shapes.len() {
            match &self.shapes[i] {
                Shape::Rect { w, h, .. } => {
                    if *h > 1.2 {
                        break;
                    }
                    s += w * h * self.gain;
                }
                Shape::Tube(r, ..) => {
                    if *r < -1.0 {
                        continue;
                    }
                    s += r * x;
                }
                Shape::Dot => s *= x,
            }
        }
        s
    }

    /// Indices swapped by `std::mem::swap` pick the shapes matched.
    #[forward]
    #[reverse]
    pub fn swapped(&self, x: f64) -> f64 {
        let (mut a, mut b) = (0, self.shapes.len() - 1);
        let mut s = x;
        for _ in 0..4 {
            s = match &self.shapes[a] {
                Shape::Rect { d, .. } => s * d + x,
                Shape::Tube(r, ..) => s + r * r,
                Shape::Dot => s * self.gain,
            };
            std::mem::swap(&mut a, &mut b);
            b = (b + 1) % self.shapes.len();
        }
        s
    }
}

/// Fields two levels down (`o.mid.shape`), and a struct pattern with `..` on a field.
#[forward]
#[reverse]
fn nested_fields(#[grad] o: &Outer, x: f64) -> f64 {
    let Mid { k, .. } = &o.mid;
    let inner = match &o.mid.shape {
        Shape::Rect { d, .. } => d * k,
        Shape::Tube(r, ..) => r * x,
        Shape::Dot => o.s,
    };
    inner * x + k * o.corner.y
}

/// One nested pattern over the whole value: a variant inside a struct inside a struct.
#[forward]
#[reverse]
fn nested_pattern(#[grad] o: &Outer, x: f64) -> f64 {
    match o {
        Outer {
            mid:
                Mid {
                    shape: Shape::Rect { w, h, .. },
                    k,
                },
            corner: P2 { y, .. },
            ..
        } => w * h * k + y * x,
        Outer {
            mid: Mid {
                shape: Shape::Tube(r, ..),
                ..
            },
            s,
            ..
        } => r * s * x,
        Outer { s, .. } => s * x,
    }
}

impl Outer {
    /// A method matching its field's field.
    #[forward]
    #[reverse]
    pub fn reach(&self, x: f64) -> f64 {
        let base = match &self.mid.shape {
            Shape::Rect { w, .. } => w * self.mid.k,
            Shape::Tube(r, l, ..) => r * l,
            Shape::Dot => self.s,
        };
        base * x + self.corner.x
    }
}

impl Curve {
    /// A variant holding a `Vec`, iterated in the arm.
    #[forward]
    #[reverse]
    pub fn energy(&self, x: f64) -> f64 {
        match self {
            Curve::Spline { knots, tension } => {
                let mut e = 0.0;
                for k in knots {
                    e += (k - x).powi(2);
                }
                e * tension
            }
            Curve::Line(a, b) => a * x + b,
        }
    }
}

/// `..` leaving out a `Vec` field of a variant, then a float one.
#[forward]
#[reverse]
fn curve_parts(#[grad] c: &Curve, x: f64) -> f64 {
    let t = match c {
        Curve::Spline { tension, .. } => tension * x,
        Curve::Line(a, ..) => a * x,
    };
    let u = match c {
        Curve::Spline { knots, .. } => knots[0] * knots[knots.len() - 1],
        Curve::Line(_, b) => b * b,
    };
    t * u
}

impl Ex {
    /// A recursive enum through `Box`: `match self`, recursion by path.
    #[forward]
    #[reverse]
    pub fn eval(&self, x: f64) -> f64 {
        match self {
            Ex::Num(c) => *c,
            Ex::Var => x,
            Ex::Add(a, b) => Ex::eval(a, x) + Ex::eval(b, x),
            Ex::Mul(a, b) => Ex::eval(a, x) * Ex::eval(b, x),
            Ex::Sin(a) => Ex::eval(a, x).sin(),
        }
    }

    /// `..` leaving out a `Box` in recursive variants.
    #[forward]
    #[reverse]
    pub fn left_spine(&self, x: f64) -> f64 {
        match self {
            Ex::Num(c) => c * x,
            Ex::Var => x,
            Ex::Add(a, ..) => 1.0 + Ex::left_spine(a, x),
            Ex::Mul(a, ..) => 2.0 * Ex::left_spine(a, x),
            Ex::Sin(a) => Ex::left_spine(a, x).sin(),
        }
    }
}

// ===== 2. `..` in patterns of derived types =====

/// `..` in a tuple struct pattern, in `let`.
#[forward]
#[reverse]
fn tuple_struct_rest(#[grad] v: &V3, x: f64) -> f64 {
    let V3(a, ..) = v;
    let V3(p, q, ..) = v;
    a * x + p * q
}

/// `..` first in a tuple struct pattern (the bound field last).
// FINDING (`..`, before this change too, both modes): `..` before the last field of a tuple
// struct pattern (`V3(.., c)`, `V3(a, .., c)`) does not compile: E0532 expected tuple struct or
// tuple variant, found type alias `__ad_twin0_V3`. Disabled.
#[cfg(any())]
#[forward]
#[reverse]
fn tuple_struct_rest_first(#[grad] v: &V3, x: f64) -> f64 {
    let V3(.., c) = v;
    c * x + v.0
}

/// `..` in the middle of a variant's fields.
#[forward]
#[reverse]
fn variant_rest_middle(#[grad] s: &Shape, x: f64) -> f64 {
    match s {
        Shape::Tube(r, .., n) => r * x * (*n as f64 + 1.0),
        Shape::Rect { w, .. } => w * x,
        Shape::Dot => x,
    }
}

/// `..` leaving out a `Vec` field of a struct.
#[forward]
#[reverse]
fn struct_rest_vec(#[grad] p: &Poly, x: f64) -> f64 {
    let Poly { scale, .. } = p;
    let mut s = 0.0;
    for i in 0..p.coeffs.len() {
        s = s * x + p.coeffs[i];
    }
    s * scale
}

/// Only the left-out `Vec` is read elsewhere; the float bound.
#[forward]
#[reverse]
fn struct_rest_vec_only(#[grad] p: &Poly, x: f64) -> f64 {
    let Poly { scale, .. } = p;
    scale * x
}

/// Nested `..`: a struct in a struct, with a variant inside.
#[forward]
#[reverse]
fn nested_rests(#[grad] o: &Outer, x: f64) -> f64 {
    let Outer {
        mid: Mid { k, .. },
        corner: P2 { y, .. },
        ..
    } = o;
    k * y * x
}

/// A guard, a renamed field, `..`.
#[forward]
#[reverse]
fn rest_guard_renamed(#[grad] s: &Shape, x: f64) -> f64 {
    match s {
        Shape::Rect { w: width, .. } if *width > 1.0 => width * x,
        Shape::Rect { h: height, d, .. } => height * d * x,
        Shape::Tube(r, ..) if *r > 0.0 => r.sqrt() * x,
        Shape::Tube(_, l, ..) => l * x,
        Shape::Dot => 0.5 * x,
    }
}

/// `mut` bindings with `..` on a value matched by dereference.
#[forward]
#[reverse]
fn rest_mut_binding(#[grad] s: &Shape, x: f64) -> f64 {
    match *s {
        Shape::Rect { mut w, .. } => {
            w *= x;
            w + 1.0
        }
        Shape::Tube(mut r, ..) => {
            r += x;
            r * r
        }
        Shape::Dot => x,
    }
}

/// Structs and enums built in the body, taken apart with `..`.
#[forward]
#[reverse]
fn built_then_rest(a: f64, b: f64) -> f64 {
    let q = P2 {
        x: a * b,
        y: a - b,
        tag: 3,
    };
    let P2 { y, .. } = q;
    let s = Shape::Rect {
        w: a * b,
        h: a,
        d: b.sin(),
    };
    let t = match s {
        Shape::Rect { w, d, .. } => w * d,
        _ => 0.0,
    };
    let u = Shape::Tube(a + b, a * a, 2);
    let v = match u {
        Shape::Tube(r, ..) => r * b,
        _ => 1.0,
    };
    y * t + v
}

/// `if let` with `..` in a loop over a derived `Vec` field, leaving at the first dot.
#[forward]
#[reverse]
fn rest_in_loop_break(#[grad] sc: &Scene, x: f64) -> f64 {
    let mut s = 0.0;
    for shape in &sc.shapes {
        if let Shape::Rect { w, d, .. } = shape {
            s += w * d * x;
            continue;
        }
        if let Shape::Dot = shape {
            break;
        }
        s *= sc.gain;
    }
    s
}

// ===== 3. borrows as place aliases =====

/// The index of the borrowed element changes after the borrow.
#[forward]
#[reverse]
fn b_index_changes_later(x: &[f64]) -> f64 {
    let n = x.len();
    let mut acc = vec![0.0; n];
    let mut k = 0;
    for i in 0..n {
        let r = &mut acc[k];
        k = (k + 2) % n;
        *r += x[i] * x[k];
    }
    let mut s = 0.0;
    for i in 0..n {
        s += acc[i] * acc[i] * (i as f64 + 1.0);
    }
    s
}

/// A borrow held across a loop.
#[forward]
#[reverse]
fn b_across_loop(x: &[f64]) -> f64 {
    let mut total = 0.5;
    let r = &mut total;
    for i in 0..x.len() {
        *r = *r * x[i].cos() + x[i];
    }
    total * x[0]
}

/// A borrow of an element held across a `while` loop with `break` and `continue`.
#[forward]
#[reverse]
fn b_across_loop_break(x: &[f64]) -> f64 {
    let n = x.len();
    let mut acc = vec![1.0; 3];
    acc[2] = x[0];
    let r = &mut acc[1];
    let mut i = 0;
    while i < n {
        i += 1;
        if x[i - 1] > 1.0 {
            break;
        }
        if i % 2 == 0 {
            continue;
        }
        *r *= x[i - 1] + 2.0;
    }
    acc[0] * x[1] + acc[1] + acc[2]
}

/// A borrow per iteration, the value written through it read back.
#[forward]
#[reverse]
fn b_overwrite_needed(x: &[f64]) -> f64 {
    let n = x.len();
    let mut acc = vec![0.3, -0.2];
    let mut i = 0;
    while i < n {
        let r = &mut acc[i % 2];
        *r = (*r * x[i]).sin() + *r * *r;
        i += 1;
    }
    acc[0] * acc[1]
}

/// Borrows of borrows: of the whole `Vec`, of an element through it, and a reborrow.
#[forward]
#[reverse]
fn b_nested(x: &[f64]) -> f64 {
    let n = x.len();
    let mut m = vec![0.1; n];
    for i in 0..n {
        let r = &mut m;
        let s = &mut r[(i + 1) % n];
        let t = &mut *s;
        *t += x[i] * x[i];
        *s *= 1.5 + x[0];
    }
    m[0] * m[n - 1] + m[1]
}

/// A borrow of the whole `Vec`, indexed through it.
#[forward]
#[reverse]
fn b_whole_vec(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let r = &mut v;
    for i in 1..x.len() {
        r[i] = r[i] * r[i - 1] + x[i];
    }
    v[x.len() - 1] + v[0]
}

/// `let ref mut` of a float, written through.
#[forward]
#[reverse]
fn b_let_ref_mut(x: &[f64]) -> f64 {
    let mut total = x[0];
    for i in 1..x.len() {
        let ref mut s = total;
        *s = (*s).sin() * x[i] + *s;
    }
    total
}

/// An arm's `ref mut` on a float with a guard.
#[forward]
#[reverse]
fn b_match_ref_mut_guard(x: &[f64]) -> f64 {
    let mut total = 0.2;
    for i in 0..x.len() {
        match total {
            ref mut s if *s > 0.0 => *s *= x[i],
            ref mut s => *s -= x[i] * x[i],
        }
    }
    total
}

/// An arm's `ref mut` on an element.
#[forward]
#[reverse]
fn b_match_element_ref_mut(x: &[f64]) -> f64 {
    let n = x.len();
    let mut acc = x.to_vec();
    for i in 0..n {
        match acc[(i + 2) % n] {
            ref mut e => *e = *e * x[i] + 1.0,
        }
    }
    acc[0] + acc[1] * acc[2]
}

/// A borrow of data passed on twice as `&mut`.
#[forward]
#[reverse]
fn b_passed_on(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut s = 0.0;
    for i in 0..n {
        let r = &mut k;
        bump(r);
        bump_mod(r, n);
        s += x[i] * x[k];
    }
    s
}

/// A borrow held across a loop that returns early.
#[forward]
#[reverse]
fn b_early_return(x: &[f64]) -> f64 {
    let mut total = 0.0;
    let r = &mut total;
    for i in 0..x.len() {
        *r += x[i] * x[i];
        if *r > 2.0 {
            return *r * x[0];
        }
    }
    total * x[1]
}

/// A borrow of a tuple's field.
#[forward]
#[reverse]
fn b_tuple_field(x: &[f64]) -> f64 {
    let mut t = (x[0], x[1]);
    for i in 0..x.len() {
        let r = &mut t.1;
        *r = *r * x[i] + t.0;
        let q = &mut t.0;
        *q *= 0.5;
    }
    t.0 * t.1
}

/// A borrow of an element of a row.
#[forward]
#[reverse]
fn b_matrix_element(x: &[f64]) -> f64 {
    let n = x.len();
    let mut m = vec![vec![0.0; n]; 2];
    for i in 0..n {
        let r = &mut m[i % 2][i];
        *r += x[i] * x[(i + 1) % n];
        let c = &mut m[1][0];
        *c += x[i];
    }
    m[0][0] * m[1][0] + m[1][1] + m[0][2]
}

/// A borrow of a field of a derived struct built in the body.
#[forward]
#[reverse]
fn b_built_struct_field(a: f64, b: f64) -> f64 {
    let mut q = P2 {
        x: a * b,
        y: a + b,
        tag: 1,
    };
    let r = &mut q.x;
    *r *= b;
    let s = &mut q.y;
    *s = *s * a + 1.0;
    q.x * q.y
}

/// `*r *= *r`: the value written is the one read.
#[forward]
#[reverse]
fn b_square_through(x: &[f64]) -> f64 {
    let mut acc = x.to_vec();
    for i in 0..x.len() {
        let r = &mut acc[i];
        *r *= *r;
        *r += x[0];
    }
    acc[0] + acc[x.len() - 1] * acc[1]
}

/// A borrow with its type written.
// Refused, spanned (not a finding): a borrow with its type written (`let r: &mut f64 = ..`);
// the IR engine says "writes through a parameter or an immutable binding", the previous
// engine "reverse mode can only assign floats to plain variables yet". Disabled.
#[cfg(any())]
#[forward]
#[reverse]
fn b_annotated(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        let r: &mut f64 = &mut total;
        *r += x[i].sin();
    }
    total * x[0]
}

/// `let ref` (shared) of a float read as a value.
#[forward]
#[reverse]
fn b_ref_shared(x: &[f64]) -> f64 {
    let ref s = x[0];
    let mut t = x[1] * 2.0;
    t += x[2];
    *s * 2.0 + t * *s
}

/// `let ref mut` of a temporary (refused by the IR engine: `ref` bindings).
// Refused, spanned (not a finding): `let ref mut` of a temporary (IR: "`ref` bindings"; the
// previous engine refuses it too). Disabled.
#[cfg(any())]
#[forward]
#[reverse]
fn b_ref_mut_temporary(x: &[f64]) -> f64 {
    let ref mut t = x[1] * 2.0;
    *t += x[2];
    *t * x[0]
}

/// `let ref mut` and an arm's `ref mut` on integers.
#[forward]
#[reverse]
fn b_data_ref_mut(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut s = 0.0;
    for i in 0..n {
        let ref mut j = k;
        *j = (*j + 2) % n;
        match k {
            0 => s += x[i],
            ref mut m if *m > 2 => *m = 1,
            ref mut m => *m += 1,
        }
        s += x[k] * x[i];
    }
    s
}

/// A `Vec` parameter taken by value, borrowed and written.
#[forward]
#[reverse]
fn b_vec_by_value(mut v: Vec<f64>) -> f64 {
    let n = v.len();
    for i in 0..n {
        let r = &mut v[(i + 1) % n];
        *r = *r * 0.5 + (i as f64);
        let q = &mut v[i];
        *q *= *q;
    }
    v[0] * v[n - 1]
}

fn b_vec_by_value_plain(x: &[f64]) -> f64 {
    b_vec_by_value(x.to_vec())
}
fn b_vec_by_value_jvp_slices(x: &[f64], t: &[f64]) -> (f64, f64) {
    b_vec_by_value_jvp(x.to_vec(), t.to_vec())
}
fn b_vec_by_value_vjp_slices(x: &[f64], c: f64) -> (f64, Vec<f64>) {
    b_vec_by_value_vjp(x.to_vec(), c)
}

/// A closure reading through a borrow.
#[forward]
#[reverse]
fn b_closure_reads_borrow(x: &[f64]) -> f64 {
    let mut acc = vec![x[0], x[1]];
    let r = &mut acc[1];
    *r += x[2];
    let h = |t: f64| t * *r;
    let v = h(x[3]);
    v + acc[0] * acc[1]
}

/// A `move` closure taking a borrow.
// FINDING (borrows; the previous engine fails the same way): a `move` closure capturing a
// borrow copied the borrowed *root* (`acc`, a `Vec`) instead of the element, and `*r` then
// dereferenced the copy: E0277 the size for values of type `[__S]` cannot be known at
// compilation time. Fixed: a borrow moved in still borrows its place.
#[forward]
#[reverse]
fn b_move_closure(x: &[f64]) -> f64 {
    let mut acc = vec![x[0], x[1]];
    let r = &mut acc[1];
    *r *= x[2];
    let h = move |t: f64| t * *r;
    h(x[3]) + acc[0]
}

/// A `Vec` borrowed whole and iterated through the borrow.
#[forward]
#[reverse]
fn b_iterate_through_borrow(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let r = &mut v;
    r[0] = x[1] * x[2];
    let mut s = 0.0;
    for e in r.iter() {
        s += e * x[0];
    }
    s
}

/// The length of a `Vec` read through a borrow.
#[forward]
#[reverse]
fn b_len_through_borrow(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let r = &mut v;
    let n = r.len();
    r[n - 1] *= x[0];
    v[n - 1] + v[0]
}

/// `std::mem::swap` on floats carrying derivatives (the previous engine's).
// Refused, spanned (not a finding): `std::mem::swap` of floats carrying derivatives (IR:
// "`&mut` references to values carrying derivatives"; the previous engine refuses). Disabled.
#[cfg(any())]
#[forward]
#[reverse]
fn b_swap_floats(x: &[f64]) -> f64 {
    let mut a = x[0];
    let mut b = x[1];
    for i in 0..x.len() {
        a = a * x[i] + b;
        std::mem::swap(&mut a, &mut b);
    }
    a * b
}

// ===== 4. `&mut` of data passed to plain functions, `std::mem` on data =====

/// `bump(&mut k)` in a loop, `k` indexing floats.
#[forward]
#[reverse]
fn d_bump_index(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut s = 0.0;
    for i in 0..n {
        s += x[i] * x[k % n];
        bump(&mut k);
        s = s.sin() + x[k % n];
    }
    s
}

/// `while advance(&mut k) < n`.
#[forward]
#[reverse]
fn d_while_advance(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut s = x[0];
    while advance(&mut k) < n {
        s = s * x[k] + x[k - 1];
    }
    s + x[k % n]
}

/// Indices swapped every iteration, both reading floats.
#[forward]
#[reverse]
fn d_swap_indices(x: &[f64]) -> f64 {
    let n = x.len();
    let (mut i, mut j) = (0, n - 1);
    let mut s = 0.0;
    for t in 0..2 * n {
        s += x[i] * x[j] * (t as f64 + 1.0);
        std::mem::swap(&mut i, &mut j);
        j = (j + 1) % n;
        if s > 3.0 {
            continue;
        }
        s = s.tanh();
    }
    s
}

/// `replace` and `take` on indices.
#[forward]
#[reverse]
fn d_replace_take(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 1;
    let mut s = 0.0;
    for i in 0..n {
        let old = std::mem::replace(&mut k, (i * 3 + 1) % n);
        s += x[old] * x[k];
        if i % 2 == 0 {
            let taken = std::mem::take(&mut k);
            s += x[taken] * 0.5 + x[k];
        }
    }
    s
}

/// A data `Vec` passed as `&mut` and swapped with another.
#[forward]
#[reverse]
fn d_index_vecs(x: &[f64]) -> f64 {
    let n = x.len();
    let mut perm: Vec<usize> = (0..n).collect();
    let mut other: Vec<usize> = vec![0; n];
    let mut s = 0.0;
    for i in 0..n {
        reverse_all(&mut perm);
        s += x[perm[i]] * x[i];
        std::mem::swap(&mut perm, &mut other);
        other[i] = i;
    }
    s
}

/// `mem::swap` through a `use`, and `core::mem::replace`.
#[forward]
#[reverse]
fn d_paths(x: &[f64]) -> f64 {
    use std::mem;
    let n = x.len();
    let (mut a, mut b) = (0, 1);
    let mut s = 0.0;
    for _ in 0..n {
        mem::swap(&mut a, &mut b);
        let c = core::mem::replace(&mut b, (a + 2) % n);
        s += x[a] * x[b] - x[c];
    }
    s
}

/// `continue` on what a call writing through `&mut` returns.
#[forward]
#[reverse]
fn d_continue_on_call(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut s = 0.0;
    for i in 0..n {
        if advance(&mut k).is_multiple_of(3) {
            continue;
        }
        s += x[i] * x[k % n];
    }
    s
}

/// `&mut k` in a branch on a float.
#[forward]
#[reverse]
fn d_branch_on_float(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut s = 0.0;
    for i in 0..n {
        if x[i] * s > 0.1 {
            bump(&mut k);
        }
        s += x[i] * x[k % n] + 0.3;
    }
    s
}

/// A flag flipped through `&mut`, then a branch on it.
#[forward]
#[reverse]
fn d_bool_flag(x: &[f64]) -> f64 {
    let mut on = false;
    let mut s = 0.0;
    for i in 0..x.len() {
        flip(&mut on);
        if on {
            s += x[i] * x[i];
        } else {
            s *= x[i];
        }
    }
    s
}

/// `replace` on an `Option<usize>`, `take` on a `Vec<usize>`.
#[forward]
#[reverse]
fn d_option_and_vec(x: &[f64]) -> f64 {
    let n = x.len();
    let mut best: Option<usize> = None;
    let mut seen: Vec<usize> = Vec::new();
    let mut s = 0.0;
    for i in 0..n {
        let before = std::mem::replace(&mut best, Some(i));
        if let Some(j) = before {
            s += x[j] * x[i];
        }
        seen.push(i);
        if i == 2 {
            let all = std::mem::take(&mut seen);
            s += x[all.len()];
        }
    }
    s + x[seen.len()]
}

/// A tuple of indices swapped field by field.
#[forward]
#[reverse]
fn d_tuple_swap(x: &[f64]) -> f64 {
    let n = x.len();
    let mut t = (0, 2);
    let mut s = 0.0;
    for _ in 0..n {
        std::mem::swap(&mut t.0, &mut t.1);
        t.1 = (t.1 + 1) % n;
        s += x[t.0] * x[t.1];
    }
    s
}

/// A read of `x[k]` before and after `bump(&mut k)` (the reads must not be reused).
#[forward]
#[reverse]
fn d_reads_around_call(x: &[f64]) -> f64 {
    let mut k = 0;
    let a = x[k];
    bump(&mut k);
    let b = x[k];
    bump(&mut k);
    a * b + x[k] * a
}

/// A counter stepped by `+= 1` and written through `&mut` as well.
#[forward]
#[reverse]
fn d_counter_and_call(x: &[f64]) -> f64 {
    let n = x.len();
    let mut l = 0;
    let mut s = 0.0;
    for i in 0..n {
        s += x[l % n] * x[i];
        l += 1;
        if i == 1 {
            bump(&mut l);
        }
    }
    s
}

/// A counter stepped through a borrow held across the loop.
#[forward]
#[reverse]
fn d_counter_through_borrow(x: &[f64]) -> f64 {
    let n = x.len();
    let mut l = 0;
    let j = &mut l;
    let mut s = 0.0;
    for i in 0..n {
        *j += 1;
        s = s * x[*j % n] + x[i];
    }
    s
}

// ===== checkpointed regions =====

/// A borrow held across a scheduled loop.
#[forward]
#[reverse]
fn c_borrow_across_scheduled(x: &[f64]) -> f64 {
    let xs = x.to_vec();
    let mut total = 0.3;
    let r = &mut total;
    #[checkpoint(every = 2)]
    for i in 0..xs.len() {
        *r = (*r * xs[i]).sin() + xs[i];
    }
    total * xs[0]
}

/// A borrow inside a checkpointed block.
#[forward]
#[reverse]
fn c_borrow_in_region(x: &[f64]) -> f64 {
    let xs = x.to_vec();
    let n = xs.len();
    let mut acc = vec![0.0; n];
    let mut k = 1;
    for i in 0..n {
        #[checkpoint]
        {
            let r = &mut acc[k];
            *r += (xs[i] * xs[k]).sin();
            k = (k + 2) % n;
        }
    }
    acc[0] * acc[1] + acc[2]
}

/// `bump(&mut k)` inside a scheduled loop, `k` indexing floats.
#[forward]
#[reverse]
fn c_bump_in_scheduled(x: &[f64]) -> f64 {
    let xs = x.to_vec();
    let n = xs.len();
    let mut k = 0;
    let mut s = 0.5;
    #[checkpoint(every = 2)]
    for i in 0..n {
        bump_mod(&mut k, n);
        s = (s * xs[k]).sin() + xs[i];
    }
    s
}

/// Indices swapped inside a binomially scheduled loop.
#[forward]
#[reverse]
fn c_swap_in_binomial(x: &[f64]) -> f64 {
    let xs = x.to_vec();
    let n = xs.len();
    let (mut a, mut b) = (0, n - 1);
    let mut s = 0.5;
    #[checkpoint(binomial, snapshots = 2)]
    for _ in 0..2 * n {
        std::mem::swap(&mut a, &mut b);
        b = (b + 1) % n;
        s = (s * xs[a]).cos() + xs[b];
    }
    s
}

/// An arm's `ref mut` on an integer in a checkpointed region.
#[forward]
#[reverse]
fn c_ref_mut_arm_in_region(x: &[f64]) -> f64 {
    let xs = x.to_vec();
    let n = xs.len();
    let mut k = 0;
    let mut s = 0.1;
    for i in 0..n {
        #[checkpoint]
        {
            match k {
                ref mut j => *j = (*j + 3) % n,
            }
            s = s * xs[k] + xs[i];
        }
    }
    s
}

// ===== more: data values of learned types, private fields, glob-imported variants =====

impl Shape {
    /// `match self` (learns `Shape`) beside a match on a data parameter of the same type.
    // FINDING (patterns; before this change too, both modes): a data parameter of the type
    // `match self` takes apart (`other: &Shape`) matched in the same body: its patterns are
    // pointed at the twin, E0308 expected `Shape`, found `__AdOver_Shape<__S>`. Disabled.
    #[cfg(any())]
    #[forward]
    #[reverse]
    pub fn against(&self, other: &Shape, x: f64) -> f64 {
        let o = match other {
            Shape::Rect { w, .. } => *w,
            Shape::Tube(r, ..) => *r,
            Shape::Dot => 1.0,
        };
        match self {
            Shape::Rect { w, h, .. } => w * h * x * o,
            Shape::Tube(r, ..) => r * x + o,
            Shape::Dot => x * o,
        }
    }
}

/// A field's type learned (`o.mid.shape`), and a data parameter of that type matched too.
// FINDING (patterns; before this change too, both modes): as `Shape::against`, with the type
// learned from a field (`o.mid.shape`). Disabled.
#[cfg(any())]
#[forward]
#[reverse]
fn learned_and_data(#[grad] o: &Outer, other: &Shape, x: f64) -> f64 {
    let w = match other {
        Shape::Rect { w, .. } => *w,
        _ => 0.5,
    };
    let v = match &o.mid.shape {
        Shape::Rect { h, .. } => h * x,
        Shape::Tube(r, ..) => r * x,
        Shape::Dot => o.s,
    };
    v * w
}

/// Both parameters of the same type, one `#[grad]`, the other data (the type is known).
// FINDING (before this change too, both modes): as `Shape::against`, the type known from a
// `#[grad]` parameter. Disabled.
#[cfg(any())]
#[forward]
#[reverse]
fn grad_and_data(#[grad] s: &Shape, other: &Shape, x: f64) -> f64 {
    let w = match other {
        Shape::Rect { w, .. } => *w,
        _ => 0.5,
    };
    let v = match s {
        Shape::Rect { h, .. } => h * x,
        Shape::Tube(r, ..) => r * x,
        Shape::Dot => x,
    };
    v * w
}

pub mod geo {
    use ad_runtime::Differentiable;

    /// A struct with a private float field.
    #[derive(Clone, Debug, PartialEq, Differentiable)]
    pub struct Frame {
        pub a: f64,
        b: f64,
    }

    impl Frame {
        pub fn new(a: f64, b: f64) -> Frame {
            Frame { a, b }
        }
    }
}

/// `..` over a private field of a struct from another module.
#[forward]
#[reverse]
fn private_rest(#[grad] f: &geo::Frame, x: f64) -> f64 {
    let geo::Frame { a, .. } = f;
    a * x * x
}

// FINDING (patterns; before this change too, both modes): variants named through a glob
// import (`use Shape::*; match s { Rect { w, .. } => .., Tube(r, ..) => .., Dot => .. }`):
// E0573 expected type, found variant `Rect` (the single segment taken for a type), and the
// unit variant `Dot` stays the user's type, E0308. Disabled.
#[cfg(any())]
pub mod globbed {
    use super::Shape::{self, *};
    use ad_runtime::{forward, reverse};

    /// Variants named through a glob import.
    #[forward]
    #[reverse]
    pub fn glob_area(#[grad] s: &Shape, x: f64) -> f64 {
        match s {
            Rect { w, h, .. } => w * h * x,
            Tube(r, ..) => r * x,
            Dot => x,
        }
    }
}

/// A float method called on a borrow of a field of a struct built in the body.
// FINDING (borrows; the previous engine fails the same way): a float method called on a borrow
// of a field of a derived value (`let r = &mut q.x; r.sin()`, also `let ref s = p.x; s.sin()`
// of a `#[grad]` value) was taken for a method of the derived type: E0599 no associated item
// named `__ad_reverse_sin` found for struct `P2`. Fixed: a method on a borrow is called on the
// place it borrows.
#[forward]
#[reverse]
fn b_method_on_borrowed_field(a: f64, b: f64) -> f64 {
    let mut q = P2 {
        x: a * b,
        y: a + b,
        tag: 1,
    };
    let r = &mut q.x;
    *r = r.sin() * b;
    q.x + q.y
}

/// A float method called on a borrow of an element.
// Refused, spanned (not a finding): a float method on a borrow of an element (`r.sin()`; IR:
// "`&mut` references to values carrying derivatives", the previous engine refuses). Disabled.
#[forward]
#[reverse]
fn b_method_on_borrowed_element(x: &[f64]) -> f64 {
    let mut acc = x.to_vec();
    for i in 0..x.len() {
        let r = &mut acc[i];
        *r = r.sin() + x[0];
    }
    acc[0] * acc[1]
}

/// A borrow written in both branches of an `if` on a float.
#[forward]
#[reverse]
fn b_branches(x: &[f64]) -> f64 {
    let mut acc = vec![0.5, x[0]];
    for i in 0..x.len() {
        let r = &mut acc[i % 2];
        if x[i] > 0.0 {
            *r += x[i] * x[(i + 1) % x.len()];
        } else {
            *r = *r * x[i] - 1.0;
        }
    }
    acc[0] * acc[1]
}

/// Borrow names shadowed, a borrow of a part of a tuple pattern.
#[forward]
#[reverse]
fn b_shadowed(x: &[f64]) -> f64 {
    let (mut a, mut b) = (x[0], x[1]);
    let r = &mut a;
    *r *= x[2];
    let r = &mut b;
    *r += x[3] * x[3];
    {
        let r = &mut a;
        *r = *r + b;
    }
    a * b
}

/// An arm's `ref mut` on an element, whose index changes inside the arm.
#[forward]
#[reverse]
fn b_arm_index_changes(x: &[f64]) -> f64 {
    let n = x.len();
    let mut acc = x.to_vec();
    let mut k = 0;
    for i in 0..n {
        match acc[k] {
            ref mut e => {
                k = (k + 3) % n;
                *e = *e * x[k] + x[i];
            }
        }
    }
    acc[0] + acc[1] * acc[3]
}

/// An arm's `ref mut` on a tuple field, and on a field of a struct built in the body.
#[forward]
#[reverse]
fn b_ref_mut_fields(a: f64, b: f64) -> f64 {
    let mut t = (a, b);
    match t.0 {
        ref mut e => *e *= b,
    }
    let mut q = P2 { x: a, y: b, tag: 0 };
    match q.y {
        ref mut e => *e = *e * a + t.0,
    }
    t.0 * q.y + q.x
}

/// A borrow in a `loop` with `break` on a float condition and `continue`.
#[forward]
#[reverse]
fn b_in_loop_break_continue(x: &[f64]) -> f64 {
    let n = x.len();
    let mut acc = vec![0.0; 2];
    let mut i = 0;
    loop {
        if i == n {
            break;
        }
        let r = &mut acc[i % 2];
        i += 1;
        if x[i - 1] < -1.0 {
            continue;
        }
        *r += x[i - 1] * x[i - 1];
        if *r > 2.5 {
            break;
        }
    }
    acc[0] - acc[1] * x[0]
}

/// An early `return` of a value read through a borrow, from inside a `match` arm's `ref mut`.
#[forward]
#[reverse]
fn b_return_from_arm(x: &[f64]) -> f64 {
    let mut total = 0.1;
    for i in 0..x.len() {
        match total {
            ref mut s => {
                *s += x[i] * x[i];
                if *s > 1.5 {
                    return *s * x[0];
                }
            }
        }
    }
    total
}

/// A borrow in a method of a derived type, per arm of `match &self.shapes[i]`.
impl Scene {
    #[forward]
    #[reverse]
    pub fn bins(&self, x: f64) -> f64 {
        let mut acc = vec![0.0; 2];
        for i in 0..self.shapes.len() {
            let r = &mut acc[i % 2];
            match &self.shapes[i] {
                Shape::Rect { w, .. } => *r += w * x,
                Shape::Tube(a, b, ..) => *r = *r * a + b,
                Shape::Dot => continue,
            }
        }
        acc[0] * acc[1] + self.gain
    }
}

// ===== batch 3 =====

impl Shape {
    /// `match self` binding only data (`n`) from a value carrying derivatives.
    #[forward]
    #[reverse]
    pub fn count_like(&self, x: f64) -> f64 {
        match self {
            Shape::Tube(_, _, n) => x * (*n as f64 + 1.0),
            _ => x * x,
        }
    }

    /// `match self` binding nothing: the variants only tested.
    // FINDING (patterns; before this change too, reverse mode only): `match self` whose arms only
    // test variants (`Shape::Rect { .. }`, `Shape::Tube(..)`), binding nothing, learns no type,
    // and the tested patterns stayed the user's type against the twin: E0308 expected
    // `__AdOver_Shape<__S>`, found `Shape`. Fixed: tested patterns teach types too.
    #[forward]
    #[reverse]
    pub fn tested_only(&self, x: f64) -> f64 {
        match self {
            Shape::Rect { .. } => 2.0 * x,
            Shape::Tube(..) => x * x,
            Shape::Dot => x,
        }
    }

    /// `match *self`: floats copied out of the value.
    #[forward]
    #[reverse]
    pub fn deref_self(&self, x: f64) -> f64 {
        match *self {
            Shape::Rect { w, d, .. } => w * d * x,
            Shape::Tube(r, ..) => r * x,
            Shape::Dot => x,
        }
    }

    /// `self` by value, `..`.
    #[forward]
    #[reverse]
    pub fn by_value(self, x: f64) -> f64 {
        match self {
            Shape::Rect { w, d, .. } => w.powi(2) * d + x,
            Shape::Tube(r, ..) => r.exp() * x,
            Shape::Dot => x * x,
        }
    }
}

/// A field's variants only tested, nothing bound.
// FINDING (patterns; before this change too, reverse mode only): as `Shape::tested_only`, on a
// field of a `#[grad]` value (`match &o.mid.shape { Shape::Rect { .. } => .. }`). Fixed.
#[forward]
#[reverse]
fn field_tested_only(#[grad] o: &Outer, x: f64) -> f64 {
    let f = match &o.mid.shape {
        Shape::Rect { .. } => 2.0,
        _ => 3.0,
    };
    f * x * o.s
}

impl Outer {
    /// Two rounds of learning: `Mid` from `self.mid`, then `Shape` from its part.
    #[forward]
    #[reverse]
    pub fn deep(&self, x: f64) -> f64 {
        match &self.mid {
            Mid { shape: s, k } => match s {
                Shape::Rect { w, .. } => w * k * x,
                Shape::Tube(r, ..) => r * x + k,
                Shape::Dot => *k,
            },
        }
    }

    /// A part of a learned pattern passed to a method of its type.
    #[forward]
    #[reverse]
    pub fn via(&self, x: f64) -> f64 {
        let Mid { shape, k } = &self.mid;
        Shape::area(shape, x) * k
    }
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Holder {
    pub maybe: Option<Shape>,
    pub mids: Vec<Mid>,
    pub expr: Ex,
}

/// A variant inside `Some`, elements of a `Vec` of derived structs with a variant inside,
/// a recursive field passed on.
#[forward]
#[reverse]
fn holder_walk(#[grad] h: &Holder, x: f64) -> f64 {
    let a = match &h.maybe {
        Some(Shape::Rect { w, .. }) => w * x,
        Some(Shape::Tube(r, ..)) => r * r,
        _ => x,
    };
    let mut b = 0.0;
    for i in 0..h.mids.len() {
        if let Mid {
            shape: Shape::Tube(r, ..),
            k,
        } = &h.mids[i]
        {
            b += r * k;
            continue;
        }
        let Mid { k, .. } = &h.mids[i];
        b *= k;
    }
    let c = match &h.expr {
        Ex::Add(l, ..) => Ex::eval(l, x),
        Ex::Mul(_, r) => Ex::eval(r, x) * 2.0,
        e => Ex::eval(e, x),
    };
    a + b + c
}

impl Curve {
    /// `..` leaving out a variant's `Vec`, in a method.
    #[forward]
    #[reverse]
    pub fn tension(&self, x: f64) -> f64 {
        match self {
            Curve::Spline { tension, .. } => tension * x,
            Curve::Line(a, ..) => a * x,
        }
    }
}

/// `..` over a private field of a struct from another module, in a `match` in a loop.
// FINDING (`..`; the previous engine fails the same way): `..` leaving out a private field of
// a struct from another module, in a `match` (the `let` form above compiles): the adjoint is
// built by a struct update, E0451 field `b` of struct `__AdAdjoint_Frame` is private. Fixed:
// the struct's zero gets the bound fields in place.
#[forward]
#[reverse]
fn private_rest_match(#[grad] f: &geo::Frame, x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        s += match f {
            geo::Frame { a, .. } => a * x * (i as f64),
        };
    }
    s
}

/// `ref` (shared) bindings read as values: arithmetic and a method on the reference.
#[forward]
#[reverse]
fn b_shared_ref_values(x: &[f64]) -> f64 {
    let ref s = x[0];
    let t = s * 2.0 + s.sin();
    let u = match x[1] {
        ref v => v * t,
    };
    u + s
}

/// A borrow of a row iterated through.
#[forward]
#[reverse]
fn b_row_iterated(x: &[f64]) -> f64 {
    let n = x.len();
    let mut m = vec![vec![0.0; n]; 2];
    for i in 0..n {
        m[1][i] = x[i] * x[0];
    }
    let r = &mut m[1];
    let mut s = 0.0;
    for e in r.iter() {
        s += e * x[1];
    }
    s
}

/// A borrow of an element declared before a checkpointed region that writes through it.
#[forward]
#[reverse]
fn c_element_borrow_into_region(x: &[f64]) -> f64 {
    let xs = x.to_vec();
    let n = xs.len();
    let mut acc = vec![0.5; n];
    let mut k = 2;
    let r = &mut acc[k];
    k = 0;
    for i in 0..n {
        #[checkpoint]
        {
            *r = (*r * xs[i]).sin() + xs[k];
        }
    }
    acc[2] * acc[0] + xs[k]
}

/// A data `Vec` reversed through `&mut` inside a checkpointed region, indexing floats.
#[forward]
#[reverse]
fn c_perm_in_region(x: &[f64]) -> f64 {
    let xs = x.to_vec();
    let n = xs.len();
    let mut perm: Vec<usize> = (0..n).collect();
    let mut s = 0.3;
    #[checkpoint(every = 2)]
    for i in 0..n {
        reverse_all(&mut perm);
        bump_mod(&mut perm[0], n);
        s = (s * xs[perm[i]]).sin() + xs[perm[0]];
    }
    s
}

/// An element of a data `Vec` changed through `&mut` after it indexed a float.
#[forward]
#[reverse]
fn d_element_changed_after_read(x: &[f64]) -> f64 {
    let n = x.len();
    let mut idx = vec![0; 3];
    let mut s = 0.0;
    for i in 0..n {
        let j = idx[i % 3];
        s += x[j] * x[i];
        bump_mod(&mut idx[i % 3], n);
    }
    s + x[idx[0]]
}

/// A float from a plain function writing through `&mut` (a constant; called once).
fn next_weight(k: &mut usize) -> f64 {
    *k += 1;
    1.0 / *k as f64
}

#[forward]
#[reverse]
fn d_float_from_data_call(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut s = 0.0;
    for i in 0..n {
        s += next_weight(&mut k) * x[i] * x[k % n];
    }
    s
}

/// `&mut` of an integer field of a tuple holding floats.
// Refused, spanned (not a finding): `&mut t.1` of the integer of a tuple holding a float
// (IR: "`&mut` references to values carrying derivatives"; the previous engine refuses with
// float messages). Disabled.
#[cfg(any())]
#[forward]
#[reverse]
fn d_field_of_mixed_tuple(x: &[f64]) -> f64 {
    let n = x.len();
    let mut t = (x[0], 0usize);
    for i in 0..n {
        bump_mod(&mut t.1, n);
        t.0 = t.0 * x[t.1] + x[i];
    }
    t.0
}

/// Borrows of data swapped.
#[forward]
#[reverse]
fn d_swap_through_borrows(x: &[f64]) -> f64 {
    let n = x.len();
    let (mut a, mut b) = (0, 1);
    let mut s = 0.0;
    for i in 0..n {
        let ra = &mut a;
        std::mem::swap(ra, &mut b);
        let ref mut rb = b;
        *rb = (*rb + i) % n;
        s += x[a] * x[b];
    }
    s
}

/// A borrow of an element of a `Vec` field of a struct built in the body.
#[forward]
#[reverse]
fn b_built_vec_field(a: f64, b: f64) -> f64 {
    let mut poly = Poly {
        coeffs: vec![a, b, a * b],
        scale: a,
    };
    let r = &mut poly.coeffs[1];
    *r *= b;
    let q = &mut poly.scale;
    *q += poly.coeffs.len() as f64;
    poly.coeffs[1] * poly.scale
}

/// A borrow of an array local.
#[forward]
#[reverse]
fn b_array_local(x: &[f64]) -> f64 {
    let mut a = [0.0; 3];
    for i in 0..x.len() {
        let r = &mut a[i % 3];
        *r = *r * 0.5 + x[i];
    }
    a[0] * a[1] * a[2]
}

// ===== batch 4 =====

/// A borrowed row: its length, indexed writes through it.
#[forward]
#[reverse]
fn b_row_len(x: &[f64]) -> f64 {
    let n = x.len();
    let mut m = vec![vec![0.5; n]; 2];
    let row = &mut m[1];
    for j in 0..row.len() {
        row[j] += x[j] * x[0];
    }
    let mut s = 0.0;
    for j in 0..n {
        s += m[1][j] * m[0][j] * (j as f64 + 1.0);
    }
    s
}

/// A borrowed row pushed onto.
#[forward]
#[reverse]
fn b_row_push(x: &[f64]) -> f64 {
    let n = x.len();
    let mut m = vec![vec![0.5; n]; 2];
    let row = &mut m[1];
    row.push(x[0] * x[1]);
    m[1][n] * x[2] + m[0][0]
}

/// A `Vec` borrowed whole, pushed onto and replaced through the borrow.
#[forward]
#[reverse]
fn b_whole_push(x: &[f64]) -> f64 {
    let mut v = vec![x[0]];
    let r = &mut v;
    for i in 1..x.len() {
        r.push(x[i] * r[i - 1]);
    }
    let last = v[v.len() - 1];
    last + v[1]
}

/// A tuple borrowed whole, its fields written through it.
#[forward]
#[reverse]
fn b_whole_tuple(x: &[f64]) -> f64 {
    let mut t = (x[0], x[1]);
    let r = &mut t;
    for i in 0..x.len() {
        r.0 += x[i] * r.1;
        *r = (r.1, r.0);
    }
    t.0 * t.1
}

/// A mutable float parameter borrowed.
#[forward]
#[reverse]
fn b_mut_param(mut a: f64, b: f64) -> f64 {
    let r = &mut a;
    *r *= b;
    match a {
        ref mut s => *s += b * b,
    }
    a + b
}

/// A `ref` to a field of a `#[grad]` value read as a value.
#[forward]
#[reverse]
fn b_ref_to_grad_field(#[grad] p: &P2, x: f64) -> f64 {
    let ref s = p.x;
    let t = s * x + *s * p.y;
    t + (*s).sin()
}

/// `&mut` of data in a `match` scrutinee and in a scheduled loop's `break` condition.
#[forward]
#[reverse]
fn d_call_in_scrutinee_and_break(x: &[f64]) -> f64 {
    let xs = x.to_vec();
    let n = xs.len();
    let mut k = 0;
    let mut s = 0.2;
    #[checkpoint(binomial, snapshots = 2)]
    for i in 0..2 * n {
        s = match advance(&mut k) % 3 {
            0 => s * xs[k % n],
            1 => s + xs[i % n],
            _ => (s * xs[(k + 1) % n]).sin(),
        };
        if advance(&mut k) > 4 * n {
            break;
        }
    }
    s
}

/// Indices swapped, indexing a matrix, with a borrow of an element taken before the swap.
#[forward]
#[reverse]
fn d_swap_2d(x: &[f64]) -> f64 {
    let n = x.len();
    let mut m = vec![vec![0.0; n]; n];
    let (mut i, mut j) = (0, 1);
    for t in 0..n {
        let r = &mut m[i][j];
        std::mem::swap(&mut i, &mut j);
        j = (j + t + 1) % n;
        *r += x[i] * x[j];
        m[j][i] += x[t];
    }
    let mut s = 0.0;
    for a in 0..n {
        for b in 0..n {
            s += m[a][b] * m[b][a] + m[a][b];
        }
    }
    s
}

impl Shape {
    /// An or-pattern binding the same name in two variants, with `..`.
    #[forward]
    #[reverse]
    pub fn either(&self, x: f64) -> f64 {
        match self {
            Shape::Rect { w: a, .. } | Shape::Tube(a, ..) => a * x,
            Shape::Dot => x,
        }
    }

    /// A tuple variant's fields named with braces, `..`.
    #[forward]
    #[reverse]
    pub fn braced_tuple(&self, x: f64) -> f64 {
        match self {
            Shape::Tube { 1: l, .. } => l * x,
            Shape::Rect { d, .. } => d * x,
            Shape::Dot => x,
        }
    }

    /// `let ... else` with `..`.
    // Refused, spanned (not a finding): "reverse mode matches a #[grad] value with `match`, not
    // `let .. else`". Disabled.
    #[cfg(any())]
    #[forward]
    #[reverse]
    pub fn let_else(&self, x: f64) -> f64 {
        let Shape::Rect { w, h, .. } = self else {
            return x;
        };
        w * h * x
    }

    /// A tuple scrutinee holding the value.
    #[forward]
    #[reverse]
    pub fn with_index(&self, n: usize, x: f64) -> f64 {
        match (self, n) {
            (Shape::Rect { w, .. }, 0) => w * x,
            (Shape::Tube(r, ..), _) => r * x,
            _ => x,
        }
    }

    /// The whole bound by `@` beside a variant pattern with `..`.
    #[forward]
    #[reverse]
    pub fn at_binding(&self, x: f64) -> f64 {
        match self {
            whole @ Shape::Rect { .. } => Shape::area(whole, x) * 2.0,
            Shape::Tube(r, ..) => r * x,
            Shape::Dot => x,
        }
    }
}

/// The same, in a free function.
#[forward]
#[reverse]
fn free_either(#[grad] s: &Shape, x: f64) -> f64 {
    match s {
        Shape::Rect { w: a, .. } | Shape::Tube(a, ..) => a * x,
        Shape::Dot => x,
    }
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub enum Group {
    Many { items: Vec<Shape>, w: f64 },
    One(Shape, f64),
}

/// `..` leaving out a `Vec` of derived values and a nested derived value.
#[forward]
#[reverse]
fn group_rest(#[grad] g: &Group, x: f64) -> f64 {
    match g {
        Group::Many { w, .. } => w * x,
        Group::One(s, ..) => Shape::area(s, x),
    }
}

impl Group {
    /// A method walking its variant's `Vec` of derived values by index, learned types
    /// two deep.
    #[forward]
    #[reverse]
    pub fn total(&self, x: f64) -> f64 {
        match self {
            Group::Many { items, w } => {
                let mut s = 0.0;
                for i in 0..items.len() {
                    s += match &items[i] {
                        Shape::Rect { h, .. } => h * w,
                        Shape::Tube(r, ..) => r * x,
                        Shape::Dot => {
                            if s > 1.0 {
                                break;
                            }
                            *w
                        }
                    };
                }
                s
            }
            Group::One(s, f) => Shape::area(s, x) * f,
        }
    }
}

// ===== batch 5 =====

impl Shape {
    /// Patterns naming the type by a `crate::` path.
    #[forward]
    #[reverse]
    pub fn crate_paths(&self, x: f64) -> f64 {
        match self {
            crate::Shape::Rect { w, .. } => w * x,
            crate::Shape::Tube(r, l, ..) => r * l * x,
            crate::Shape::Dot => x,
        }
    }
}

impl P2 {
    /// A struct's own method taking itself apart with `..`.
    #[forward]
    #[reverse]
    pub fn spread(&self, t: f64) -> f64 {
        let P2 { x, y, .. } = self;
        let P2 { tag, .. } = self;
        x * y * t + *tag as f64 * x
    }
}

impl V3 {
    /// A tuple struct's own method matching itself with `..`.
    #[forward]
    #[reverse]
    pub fn head(&self, t: f64) -> f64 {
        match self {
            V3(a, b, ..) => a * b * t,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Wrapper {
    pub boxed: Box<Shape>,
    pub w: f64,
}

impl Wrapper {
    /// A `Box` field dereferenced and matched.
    #[forward]
    #[reverse]
    pub fn unboxed(&self, x: f64) -> f64 {
        let a = match &*self.boxed {
            Shape::Rect { w, .. } => w * x,
            Shape::Tube(r, ..) => r * x,
            Shape::Dot => self.w,
        };
        let b = match self.boxed.as_ref() {
            Shape::Tube(_, l, ..) => *l,
            _ => 1.0,
        };
        a * b
    }
}

/// An arm's `ref mut` binding a whole struct built in the body, written through.
#[forward]
#[reverse]
fn b_ref_mut_whole_struct(a: f64, b: f64) -> f64 {
    let mut q = P2 {
        x: a * b,
        y: a - b,
        tag: 0,
    };
    match q {
        ref mut whole => {
            whole.x *= b;
            whole.y += whole.x;
        }
    }
    q.x * q.y
}

/// `break` with a value read through a borrow.
#[forward]
#[reverse]
fn b_break_value(x: &[f64]) -> f64 {
    let n = x.len();
    let mut acc = vec![0.0; n];
    let mut i = 0;
    let v = loop {
        let r = &mut acc[i % n];
        *r += x[i % n] * x[(i + 1) % n] + 0.2;
        if *r > 1.0 || i > 3 * n {
            break *r * x[0];
        }
        i += 1;
    };
    v + acc[1]
}

/// A borrow held across nested loops with `break` and `continue` inside.
#[forward]
#[reverse]
fn b_nested_loops(x: &[f64]) -> f64 {
    let n = x.len();
    let mut total = 0.1;
    let r = &mut total;
    for i in 0..n {
        for j in 0..n {
            if j == i {
                continue;
            }
            if x[j] > 1.2 {
                break;
            }
            *r = *r * 0.9 + x[i] * x[j];
        }
    }
    total
}

/// A closure writing through a borrow it makes.
#[forward]
#[reverse]
fn b_in_closure(x: &[f64]) -> f64 {
    let n = x.len();
    let mut acc = vec![0.0; 2];
    let mut add = |i: usize, v: f64| {
        let r = &mut acc[i];
        *r += v * v;
    };
    for i in 0..n {
        add(i % 2, x[i]);
    }
    acc[0] * acc[1]
}

/// A closure calling a plain function with `&mut` of data it captures.
#[forward]
#[reverse]
fn d_in_closure(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    let mut s = 0.0;
    for i in 0..n {
        let mut step = || bump_mod(&mut k, n);
        step();
        s += x[i] * x[k];
    }
    s
}

/// Integer and float parts of one tuple pattern; `&mut` of the integer.
// FINDING (`&mut` of data; before this change too, in the forward companion that `#[forward]`
// and `#[reverse]` both emit): `&mut k` of an integer bound by a tuple pattern with a float
// (`let (mut k, mut s) = (0, 0.0);`) is taken for a float argument: `bump_mod::__ad_forward(&mut
// k)`, E0433 cannot find module or crate `bump_mod` (function is not a crate or module).
// Disabled.
#[cfg(any())]
#[forward]
#[reverse]
fn d_tuple_parts(x: &[f64]) -> f64 {
    let n = x.len();
    let (mut k, mut s) = (0, 0.0);
    for i in 0..n {
        bump_mod(&mut k, n);
        s = s * x[k] + x[i];
    }
    s
}

impl Curve {
    /// A borrow into a scratch `Vec` sized by a variant's `Vec` field.
    #[forward]
    #[reverse]
    pub fn smoothed(&self, x: f64) -> f64 {
        match self {
            Curve::Spline { knots, tension } => {
                let n = knots.len();
                let mut acc = vec![0.0; n];
                for i in 0..n {
                    let r = &mut acc[(i + 1) % n];
                    *r += knots[i] * tension + x;
                }
                acc[0] * acc[n - 1]
            }
            Curve::Line(a, ..) => a * x,
        }
    }
}

// ===== batch 6 =====

impl Shape {
    /// A tuple result from `match self` with `..`.
    #[forward]
    #[reverse]
    pub fn pair(&self, x: f64) -> (f64, f64) {
        match self {
            Shape::Rect { w, h, .. } => (w * x, h * x * x),
            Shape::Tube(r, ..) => (r.sin(), r * x),
            Shape::Dot => (x, 1.0),
        }
    }
}

impl Ex {
    /// Recursion with a data parameter, `..` and an early `return` in a loop.
    #[forward]
    #[reverse]
    pub fn weighted(&self, x: f64, depth: usize) -> f64 {
        let mut s = 0.0;
        for k in 0..3 {
            match self {
                Ex::Num(c) => return c * (depth as f64 + 1.0) + s,
                Ex::Var => s += x * (k as f64),
                Ex::Add(a, ..) => s += Ex::weighted(a, x, depth + 1),
                Ex::Mul(a, b) => {
                    s += Ex::weighted(a, x, depth + 1) * Ex::weighted(b, x, depth + 1);
                    if depth > 1 {
                        break;
                    }
                }
                Ex::Sin(a) => s = Ex::weighted(a, x, depth + 1).sin() + s,
            }
        }
        s
    }
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub enum Sf {
    A(f32),
    B { u: f32, v: f32, n: usize },
}

impl Sf {
    /// `f32` fields, `..`, `match self`.
    #[forward]
    #[reverse]
    pub fn value(&self, x: f32) -> f32 {
        match self {
            Sf::A(a) => a * x,
            Sf::B { u, .. } => u * x * x,
        }
    }
}

pub type Pt = P2;

/// A parameter typed by an alias, patterns naming the type itself, and the alias.
#[forward]
#[reverse]
fn alias_patterns(#[grad] p: &Pt, t: f64) -> f64 {
    let P2 { x, .. } = p;
    let Pt { y, .. } = p;
    x * y * t
}

/// A counter stepped through an arm's `ref mut`, and a borrow held across a scheduled loop
/// that breaks.
#[forward]
#[reverse]
fn c_counter_arm_scheduled_break(x: &[f64]) -> f64 {
    let xs = x.to_vec();
    let n = xs.len();
    let mut l = 0;
    let mut total = 0.3;
    let r = &mut total;
    #[checkpoint(every = 2)]
    for i in 0..3 * n {
        match l {
            ref mut c => *c += 1,
        }
        *r = (*r * xs[l % n]).sin() + xs[i % n];
        if *r > 1.2 {
            break;
        }
    }
    total + xs[l % n]
}

impl Scene {
    /// A `while` loop in a method, a borrow per iteration, a swap of indices.
    #[forward]
    #[reverse]
    pub fn walk(&self, x: f64) -> f64 {
        let n = self.shapes.len();
        let mut acc = vec![0.0; 3];
        let (mut a, mut b) = (0, n - 1);
        let mut i = 0;
        while i < n {
            let r = &mut acc[i % 3];
            match &self.shapes[a] {
                Shape::Rect { w, .. } => *r += w * x,
                Shape::Tube(p, q, ..) => *r = *r * p + q,
                Shape::Dot => {
                    i += 1;
                    std::mem::swap(&mut a, &mut b);
                    continue;
                }
            }
            std::mem::swap(&mut a, &mut b);
            b = (b + 1) % n;
            i += 1;
        }
        acc[0] * acc[1] + acc[2] * self.gain
    }
}

// ===== batch 7 =====

/// `while advance(&mut k) < n` as a scheduled loop.
#[forward]
#[reverse]
fn c_while_advance_scheduled(x: &[f64]) -> f64 {
    let xs = x.to_vec();
    let n = xs.len();
    let mut k = 0;
    let mut s = xs[0];
    #[checkpoint(every = 2)]
    while advance(&mut k) < 3 * n {
        if k % 4 == 0 {
            continue;
        }
        s = (s * xs[k % n]).sin() + xs[(k + 1) % n];
    }
    s
}

/// `&mut` of data inside a checkpointed `let`, and `take`/`replace` in an index.
#[forward]
#[reverse]
fn c_let_region_and_index_calls(x: &[f64]) -> f64 {
    let xs = x.to_vec();
    let n = xs.len();
    let mut k = 1;
    let mut s = 0.5;
    for i in 0..n {
        #[checkpoint]
        let t = {
            bump_mod(&mut k, n);
            (xs[k] * s).cos()
        };
        s = t + xs[std::mem::take(&mut k)] * xs[std::mem::replace(&mut k, (i + 2) % n)];
    }
    s
}

/// Indices swapped on a float condition in a binomially scheduled loop that breaks.
#[forward]
#[reverse]
fn c_swap_on_float_break(x: &[f64]) -> f64 {
    let xs = x.to_vec();
    let n = xs.len();
    let (mut a, mut b) = (0, n - 1);
    let mut s = 0.4;
    #[checkpoint(binomial, snapshots = 2)]
    for i in 0..4 * n {
        if s * xs[i % n] > 0.0 {
            std::mem::swap(&mut a, &mut b);
        }
        s = (s + xs[a]).tanh() * xs[b] + 0.3;
        if s > 1.1 {
            break;
        }
        b = (b + 1) % n;
    }
    s
}

// ===== batch 8 =====

/// A checkpointed function with borrows and `&mut` of data (scalar parameters: a
/// checkpointed function taking a slice does not compile, E0521, before this change too).
#[forward]
#[checkpoint]
fn ck_borrows(a: f64, b: f64, n: usize) -> f64 {
    let x = vec![a, b, a * b, a - b, 0.5];
    let mut acc = vec![0.0; n];
    let mut k = 0;
    for i in 0..n {
        bump_mod(&mut k, n);
        let r = &mut acc[k];
        *r += x[i % 5] * x[k % 5];
        match acc[i] {
            ref mut e => *e = *e * 0.5 + x[i % 5],
        }
    }
    acc[0] * acc[n - 1] + acc[1]
}

/// A caller of the checkpointed function, in a loop with swapped indices.
#[forward]
#[reverse]
fn ck_caller(x: &[f64]) -> f64 {
    let (mut a, mut b) = (0, 1);
    let mut s = 0.0;
    for _ in 0..3 {
        s += ck_borrows(x[a], x[b], 4) * x[a];
        std::mem::swap(&mut a, &mut b);
    }
    s
}

#[forward]
#[reverse]
fn total_of(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for e in v {
        s += e * e;
    }
    s
}

/// A borrowed `Vec` passed on shared, by reborrow.
#[forward]
#[reverse]
fn b_reborrow_shared(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let r = &mut v;
    r[0] *= x[1];
    let t = total_of(&*r);
    t + v[0]
}

// ===== batch 9 =====

/// A borrow of a `mut` binding taken out of a derived value with `..`.
#[forward]
#[reverse]
fn borrow_of_pattern_part(#[grad] s: &Shape, x: f64) -> f64 {
    match *s {
        Shape::Rect { mut w, h, .. } => {
            let r = &mut w;
            *r *= x + h;
            match w {
                ref mut v => *v += h * h,
            }
            w * x
        }
        Shape::Tube(mut r, ..) => {
            let ref mut q = r;
            *q = q.clone() * x;
            r + x
        }
        Shape::Dot => x,
    }
}

/// `if let` with `ref mut` on a local, and a borrow of an `Option`'s float.
#[forward]
#[reverse]
fn b_option_payload(x: &[f64]) -> f64 {
    let mut best: Option<f64> = None;
    let mut total = 0.0;
    for i in 0..x.len() {
        if let Some(b) = best {
            let r = &mut total;
            *r += b * x[i];
        }
        best = Some(x[i] * x[i]);
    }
    total + best.unwrap_or(0.0)
}

// ===== batch 10 =====

/// `&mut` of an option's integer payload bound `mut`.
#[forward]
#[reverse]
fn d_mut_option_part(x: &[f64]) -> f64 {
    let mut best: Option<usize> = None;
    let mut total = x[0];
    for i in 0..x.len() {
        if let Some(mut j) = best {
            bump(&mut j);
            total += x[i] * x[j % x.len()];
        }
        best = Some(i);
    }
    total
}

/// `&mut` of a variant's integer bound `mut` beside a float of the same pattern (refused by
/// both engines: the IR engine takes the part for a value carrying derivatives).
#[cfg(any())]
#[forward]
#[reverse]
fn d_mut_variant_part(#[grad] s: &Shape, x: f64) -> f64 {
    match *s {
        Shape::Tube(r, _, mut n) => {
            bump(&mut n);
            r * x * (n as f64)
        }
        _ => x,
    }
}

/// Integers taken from a tuple of integers with `mut`, then `&mut` of them.
#[forward]
#[reverse]
fn d_mut_tuple_parts(x: &[f64]) -> f64 {
    let n = x.len();
    let pairs = vec![(0usize, 1usize), (2, 3), (4, 0)];
    let mut s = 0.0;
    for p in 0..pairs.len() {
        let (mut a, mut b) = pairs[p];
        std::mem::swap(&mut a, &mut b);
        bump_mod(&mut a, n);
        s += x[a % n] * x[b % n];
    }
    s
}

// ===== batch 11 =====

/// A borrow at the outer loop's index (reversed, stepped) written in the inner loop.
#[forward]
#[reverse]
fn b_outer_index_inner_writes(x: &[f64]) -> f64 {
    let n = x.len();
    let mut acc = vec![0.1; n];
    for i in (0..n).rev() {
        let r = &mut acc[i];
        for j in (0..n).step_by(2) {
            *r = *r * 0.7 + x[i] * x[j];
        }
    }
    for i in (1..n).step_by(2) {
        let r = &mut acc[i - 1];
        let mut k = i;
        while k < n {
            *r += (x[k] * *r).sin();
            k += 2;
        }
    }
    acc[0] * acc[n - 1] + acc[1] * acc[2]
}

/// Swapped indices feeding a borrow, then a swap back before the write through it.
#[forward]
#[reverse]
fn b_swap_then_write(x: &[f64]) -> f64 {
    let n = x.len();
    let mut acc = vec![0.0; n];
    let (mut i, mut j) = (0, n - 1);
    for t in 0..2 * n {
        std::mem::swap(&mut i, &mut j);
        let r = &mut acc[i];
        std::mem::swap(&mut i, &mut j);
        *r += x[i] * x[j] + (t as f64) * 0.1;
        j = (j + 1) % n;
    }
    let mut s = 0.0;
    for k in 0..n {
        s += acc[k] * acc[k] * x[k];
    }
    s
}

// ===== tests =====

#[test]
fn engines() {
    for (name, engine) in [
        ("scene_tubes", scene_tubes::__AD_ENGINE),
        ("nested_fields", nested_fields::__AD_ENGINE),
        ("nested_pattern", nested_pattern::__AD_ENGINE),
        ("curve_parts", curve_parts::__AD_ENGINE),
        ("tuple_struct_rest", tuple_struct_rest::__AD_ENGINE),
        ("variant_rest_middle", variant_rest_middle::__AD_ENGINE),
        ("struct_rest_vec", struct_rest_vec::__AD_ENGINE),
        ("struct_rest_vec_only", struct_rest_vec_only::__AD_ENGINE),
        ("nested_rests", nested_rests::__AD_ENGINE),
        ("rest_guard_renamed", rest_guard_renamed::__AD_ENGINE),
        ("rest_mut_binding", rest_mut_binding::__AD_ENGINE),
        ("built_then_rest", built_then_rest::__AD_ENGINE),
        ("rest_in_loop_break", rest_in_loop_break::__AD_ENGINE),
        ("b_index_changes_later", b_index_changes_later::__AD_ENGINE),
        ("b_across_loop", b_across_loop::__AD_ENGINE),
        ("b_across_loop_break", b_across_loop_break::__AD_ENGINE),
        ("b_overwrite_needed", b_overwrite_needed::__AD_ENGINE),
        ("b_nested", b_nested::__AD_ENGINE),
        ("b_whole_vec", b_whole_vec::__AD_ENGINE),
        ("b_let_ref_mut", b_let_ref_mut::__AD_ENGINE),
        ("b_match_ref_mut_guard", b_match_ref_mut_guard::__AD_ENGINE),
        (
            "b_match_element_ref_mut",
            b_match_element_ref_mut::__AD_ENGINE,
        ),
        ("b_passed_on", b_passed_on::__AD_ENGINE),
        ("b_early_return", b_early_return::__AD_ENGINE),
        ("b_tuple_field", b_tuple_field::__AD_ENGINE),
        ("b_matrix_element", b_matrix_element::__AD_ENGINE),
        ("b_built_struct_field", b_built_struct_field::__AD_ENGINE),
        ("b_square_through", b_square_through::__AD_ENGINE),
        ("b_ref_shared", b_ref_shared::__AD_ENGINE),
        ("b_data_ref_mut", b_data_ref_mut::__AD_ENGINE),
        ("b_vec_by_value", b_vec_by_value::__AD_ENGINE),
        (
            "b_closure_reads_borrow",
            b_closure_reads_borrow::__AD_ENGINE,
        ),
        (
            "b_iterate_through_borrow",
            b_iterate_through_borrow::__AD_ENGINE,
        ),
        ("b_len_through_borrow", b_len_through_borrow::__AD_ENGINE),
        ("d_bump_index", d_bump_index::__AD_ENGINE),
        ("d_while_advance", d_while_advance::__AD_ENGINE),
        ("d_swap_indices", d_swap_indices::__AD_ENGINE),
        ("d_replace_take", d_replace_take::__AD_ENGINE),
        ("d_index_vecs", d_index_vecs::__AD_ENGINE),
        ("d_paths", d_paths::__AD_ENGINE),
        ("d_continue_on_call", d_continue_on_call::__AD_ENGINE),
        ("d_branch_on_float", d_branch_on_float::__AD_ENGINE),
        ("d_bool_flag", d_bool_flag::__AD_ENGINE),
        ("d_option_and_vec", d_option_and_vec::__AD_ENGINE),
        ("d_tuple_swap", d_tuple_swap::__AD_ENGINE),
        ("d_reads_around_call", d_reads_around_call::__AD_ENGINE),
        ("d_counter_and_call", d_counter_and_call::__AD_ENGINE),
        (
            "d_counter_through_borrow",
            d_counter_through_borrow::__AD_ENGINE,
        ),
        (
            "c_borrow_across_scheduled",
            c_borrow_across_scheduled::__AD_ENGINE,
        ),
        ("c_borrow_in_region", c_borrow_in_region::__AD_ENGINE),
        ("c_bump_in_scheduled", c_bump_in_scheduled::__AD_ENGINE),
        ("c_swap_in_binomial", c_swap_in_binomial::__AD_ENGINE),
        (
            "c_ref_mut_arm_in_region",
            c_ref_mut_arm_in_region::__AD_ENGINE,
        ),
        ("private_rest", private_rest::__AD_ENGINE),
        ("b_branches", b_branches::__AD_ENGINE),
        ("b_shadowed", b_shadowed::__AD_ENGINE),
        ("b_arm_index_changes", b_arm_index_changes::__AD_ENGINE),
        ("b_ref_mut_fields", b_ref_mut_fields::__AD_ENGINE),
        (
            "b_in_loop_break_continue",
            b_in_loop_break_continue::__AD_ENGINE,
        ),
        ("b_return_from_arm", b_return_from_arm::__AD_ENGINE),
    ] {
        println!("ENGINE {name}: {engine}");
    }
}

#[test]
fn learned_patterns_in_methods() {
    let mut rng = Rng::new(101);
    for s in shapes() {
        for x in [0.7, -1.1] {
            check_user_type(
                |s: &Shape, x| s.area(x),
                |s: &Shape, x, ds: &Shape, dx| Shape::area_jvp(s, x, ds, dx),
                |s: &Shape, x, ct| Shape::area_vjp(s, x, ct),
                &s,
                x,
                &mut rng,
            );
            check_user_type(
                |s: &Shape, x| s.swept(x),
                |s: &Shape, x, ds: &Shape, dx| Shape::swept_jvp(s, x, ds, dx),
                |s: &Shape, x, ct| Shape::swept_vjp(s, x, ct),
                &s,
                x,
                &mut rng,
            );
            check_user_type(
                |s: &Shape, x| s.binned(x),
                |s: &Shape, x, ds: &Shape, dx| Shape::binned_jvp(s, x, ds, dx),
                |s: &Shape, x, ct| Shape::binned_vjp(s, x, ct),
                &s,
                x,
                &mut rng,
            );
        }
    }
}

#[test]
fn learned_patterns_of_fields() {
    on_ir!(scene_tubes, nested_fields, nested_pattern);
    let mut rng = Rng::new(102);
    let sc = scene();
    for x in [0.6, -0.9] {
        check_user_type(
            scene_tubes,
            scene_tubes_jvp,
            scene_tubes_vjp,
            &sc,
            x,
            &mut rng,
        );
        check_user_type(
            |s: &Scene, x| s.load(x),
            |s: &Scene, x, ds: &Scene, dx| Scene::load_jvp(s, x, ds, dx),
            |s: &Scene, x, ct| Scene::load_vjp(s, x, ct),
            &sc,
            x,
            &mut rng,
        );
        check_user_type(
            |s: &Scene, x| s.swapped(x),
            |s: &Scene, x, ds: &Scene, dx| Scene::swapped_jvp(s, x, ds, dx),
            |s: &Scene, x, ct| Scene::swapped_vjp(s, x, ct),
            &sc,
            x,
            &mut rng,
        );
        for o in outers() {
            check_user_type(
                nested_fields,
                nested_fields_jvp,
                nested_fields_vjp,
                &o,
                x,
                &mut rng,
            );
            check_user_type(
                nested_pattern,
                nested_pattern_jvp,
                nested_pattern_vjp,
                &o,
                x,
                &mut rng,
            );
            check_user_type(
                |o: &Outer, x| o.reach(x),
                |o: &Outer, x, d: &Outer, dx| Outer::reach_jvp(o, x, d, dx),
                |o: &Outer, x, ct| Outer::reach_vjp(o, x, ct),
                &o,
                x,
                &mut rng,
            );
            check_user_type(
                nested_rests,
                nested_rests_jvp,
                nested_rests_vjp,
                &o,
                x,
                &mut rng,
            );
        }
    }
}

#[test]
fn vec_and_box_fields() {
    on_ir!(curve_parts);
    let mut rng = Rng::new(103);
    for c in [
        Curve::Spline {
            knots: vec![0.3, -0.7, 1.2],
            tension: 0.8,
        },
        Curve::Line(0.4, -1.1),
    ] {
        check_user_type(
            |c: &Curve, x| c.energy(x),
            |c: &Curve, x, dc: &Curve, dx| Curve::energy_jvp(c, x, dc, dx),
            |c: &Curve, x, ct| Curve::energy_vjp(c, x, ct),
            &c,
            0.5,
            &mut rng,
        );
        check_user_type(
            curve_parts,
            curve_parts_jvp,
            curve_parts_vjp,
            &c,
            0.5,
            &mut rng,
        );
    }
    let e = ex_tree();
    for x in [0.4, -1.3] {
        check_user_type(
            |e: &Ex, x| e.eval(x),
            |e: &Ex, x, de: &Ex, dx| Ex::eval_jvp(e, x, de, dx),
            |e: &Ex, x, ct| Ex::eval_vjp(e, x, ct),
            &e,
            x,
            &mut rng,
        );
        check_user_type(
            |e: &Ex, x| e.left_spine(x),
            |e: &Ex, x, de: &Ex, dx| Ex::left_spine_jvp(e, x, de, dx),
            |e: &Ex, x, ct| Ex::left_spine_vjp(e, x, ct),
            &e,
            x,
            &mut rng,
        );
    }
}

#[test]
fn rest_patterns() {
    on_ir!(
        tuple_struct_rest,
        variant_rest_middle,
        struct_rest_vec,
        struct_rest_vec_only,
        nested_rests,
        rest_guard_renamed,
        built_then_rest,
        rest_in_loop_break
    );
    let mut rng = Rng::new(104);
    let v = V3(0.3, -0.8, 1.4);
    check_user_type(
        tuple_struct_rest,
        tuple_struct_rest_jvp,
        tuple_struct_rest_vjp,
        &v,
        0.7,
        &mut rng,
    );
    for s in shapes() {
        check_user_type(
            variant_rest_middle,
            variant_rest_middle_jvp,
            variant_rest_middle_vjp,
            &s,
            0.6,
            &mut rng,
        );
        check_user_type(
            rest_guard_renamed,
            rest_guard_renamed_jvp,
            rest_guard_renamed_vjp,
            &s,
            0.6,
            &mut rng,
        );
        check_user_type(
            rest_mut_binding,
            rest_mut_binding_jvp,
            rest_mut_binding_vjp,
            &s,
            0.6,
            &mut rng,
        );
    }
    let p = Poly {
        coeffs: vec![0.5, -1.0, 0.25, 0.8],
        scale: 1.3,
    };
    check_user_type(
        struct_rest_vec,
        struct_rest_vec_jvp,
        struct_rest_vec_vjp,
        &p,
        0.9,
        &mut rng,
    );
    check_user_type(
        struct_rest_vec_only,
        struct_rest_vec_only_jvp,
        struct_rest_vec_only_vjp,
        &p,
        0.9,
        &mut rng,
    );
    let sc = scene();
    check_user_type(
        rest_in_loop_break,
        rest_in_loop_break_jvp,
        rest_in_loop_break_vjp,
        &sc,
        0.8,
        &mut rng,
    );
    for (a, b) in [(0.3, 1.1), (-0.7, 0.4)] {
        common::forward_checked2(built_then_rest, built_then_rest_jvp, a, b);
        let (value, (ga, gb)) = built_then_rest_grad(a, b);
        assert_eq!(value.to_bits(), built_then_rest(a, b).to_bits());
        approx::assert_relative_eq!(
            ga,
            built_then_rest_jvp(a, b, 1.0, 0.0).1,
            max_relative = 1e-12
        );
        approx::assert_relative_eq!(
            gb,
            built_then_rest_jvp(a, b, 0.0, 1.0).1,
            max_relative = 1e-12
        );
    }
}

#[test]
fn borrows_as_place_aliases() {
    on_ir!(
        b_index_changes_later,
        b_across_loop,
        b_across_loop_break,
        b_overwrite_needed,
        b_nested,
        b_whole_vec,
        b_let_ref_mut,
        b_match_ref_mut_guard,
        b_match_element_ref_mut,
        b_passed_on,
        b_early_return,
        b_tuple_field,
        b_matrix_element,
        b_square_through,
        b_data_ref_mut
    );
    check_slice(
        b_index_changes_later,
        b_index_changes_later_jvp,
        b_index_changes_later_vjp,
        5,
        1,
    );
    check_slice(b_across_loop, b_across_loop_jvp, b_across_loop_vjp, 5, 2);
    check_slice(
        b_across_loop_break,
        b_across_loop_break_jvp,
        b_across_loop_break_vjp,
        6,
        3,
    );
    check_slice(
        b_overwrite_needed,
        b_overwrite_needed_jvp,
        b_overwrite_needed_vjp,
        5,
        4,
    );
    check_slice(b_nested, b_nested_jvp, b_nested_vjp, 5, 5);
    check_slice(b_whole_vec, b_whole_vec_jvp, b_whole_vec_vjp, 5, 6);
    check_slice(b_let_ref_mut, b_let_ref_mut_jvp, b_let_ref_mut_vjp, 5, 7);
    check_slice(
        b_match_ref_mut_guard,
        b_match_ref_mut_guard_jvp,
        b_match_ref_mut_guard_vjp,
        5,
        8,
    );
    check_slice(
        b_match_element_ref_mut,
        b_match_element_ref_mut_jvp,
        b_match_element_ref_mut_vjp,
        5,
        9,
    );
    check_slice(b_passed_on, b_passed_on_jvp, b_passed_on_vjp, 5, 10);
    check_slice(
        b_early_return,
        b_early_return_jvp,
        b_early_return_vjp,
        5,
        11,
    );
    check_slice(b_tuple_field, b_tuple_field_jvp, b_tuple_field_vjp, 5, 12);
    check_slice(
        b_matrix_element,
        b_matrix_element_jvp,
        b_matrix_element_vjp,
        5,
        13,
    );
    check_slice(
        b_square_through,
        b_square_through_jvp,
        b_square_through_vjp,
        5,
        14,
    );
    check_slice(b_ref_shared, b_ref_shared_jvp, b_ref_shared_vjp, 5, 16);
    check_slice(
        b_data_ref_mut,
        b_data_ref_mut_jvp,
        b_data_ref_mut_vjp,
        5,
        17,
    );
    check_slice(
        b_vec_by_value_plain,
        b_vec_by_value_jvp_slices,
        b_vec_by_value_vjp_slices,
        5,
        18,
    );
    check_slice(
        b_closure_reads_borrow,
        b_closure_reads_borrow_jvp,
        b_closure_reads_borrow_vjp,
        5,
        19,
    );
    check_slice(
        b_iterate_through_borrow,
        b_iterate_through_borrow_jvp,
        b_iterate_through_borrow_vjp,
        5,
        21,
    );
    check_slice(
        b_len_through_borrow,
        b_len_through_borrow_jvp,
        b_len_through_borrow_vjp,
        5,
        22,
    );
    for (a, b) in [(0.3, 1.1), (-0.7, 0.4)] {
        common::forward_checked2(b_built_struct_field, b_built_struct_field_jvp, a, b);
        let (value, (ga, gb)) = b_built_struct_field_grad(a, b);
        assert_eq!(value.to_bits(), b_built_struct_field(a, b).to_bits());
        approx::assert_relative_eq!(
            ga,
            b_built_struct_field_jvp(a, b, 1.0, 0.0).1,
            max_relative = 1e-12
        );
        approx::assert_relative_eq!(
            gb,
            b_built_struct_field_jvp(a, b, 0.0, 1.0).1,
            max_relative = 1e-12
        );
    }
}

#[test]
fn mutable_references_to_data() {
    on_ir!(
        d_bump_index,
        d_while_advance,
        d_swap_indices,
        d_replace_take,
        d_index_vecs,
        d_paths,
        d_continue_on_call,
        d_branch_on_float,
        d_bool_flag,
        d_option_and_vec,
        d_tuple_swap,
        d_reads_around_call,
        d_counter_and_call,
        d_counter_through_borrow
    );
    check_slice(d_bump_index, d_bump_index_jvp, d_bump_index_vjp, 5, 31);
    check_slice(
        d_while_advance,
        d_while_advance_jvp,
        d_while_advance_vjp,
        7,
        32,
    );
    check_slice(
        d_swap_indices,
        d_swap_indices_jvp,
        d_swap_indices_vjp,
        5,
        33,
    );
    check_slice(
        d_replace_take,
        d_replace_take_jvp,
        d_replace_take_vjp,
        5,
        34,
    );
    check_slice(d_index_vecs, d_index_vecs_jvp, d_index_vecs_vjp, 5, 35);
    check_slice(d_paths, d_paths_jvp, d_paths_vjp, 5, 36);
    check_slice(
        d_continue_on_call,
        d_continue_on_call_jvp,
        d_continue_on_call_vjp,
        6,
        37,
    );
    check_slice(
        d_branch_on_float,
        d_branch_on_float_jvp,
        d_branch_on_float_vjp,
        5,
        38,
    );
    check_slice(d_bool_flag, d_bool_flag_jvp, d_bool_flag_vjp, 5, 39);
    check_slice(
        d_option_and_vec,
        d_option_and_vec_jvp,
        d_option_and_vec_vjp,
        5,
        40,
    );
    check_slice(d_tuple_swap, d_tuple_swap_jvp, d_tuple_swap_vjp, 5, 41);
    check_slice(
        d_reads_around_call,
        d_reads_around_call_jvp,
        d_reads_around_call_vjp,
        5,
        42,
    );
    check_slice(
        d_counter_and_call,
        d_counter_and_call_jvp,
        d_counter_and_call_vjp,
        5,
        43,
    );
    check_slice(
        d_counter_through_borrow,
        d_counter_through_borrow_jvp,
        d_counter_through_borrow_vjp,
        5,
        44,
    );
}

#[test]
fn in_checkpointed_regions() {
    on_ir!(
        c_borrow_across_scheduled,
        c_borrow_in_region,
        c_bump_in_scheduled,
        c_swap_in_binomial,
        c_ref_mut_arm_in_region
    );
    check_slice(
        c_borrow_across_scheduled,
        c_borrow_across_scheduled_jvp,
        c_borrow_across_scheduled_vjp,
        7,
        51,
    );
    check_slice(
        c_borrow_in_region,
        c_borrow_in_region_jvp,
        c_borrow_in_region_vjp,
        5,
        52,
    );
    check_slice(
        c_bump_in_scheduled,
        c_bump_in_scheduled_jvp,
        c_bump_in_scheduled_vjp,
        7,
        53,
    );
    check_slice(
        c_swap_in_binomial,
        c_swap_in_binomial_jvp,
        c_swap_in_binomial_vjp,
        5,
        54,
    );
    check_slice(
        c_ref_mut_arm_in_region,
        c_ref_mut_arm_in_region_jvp,
        c_ref_mut_arm_in_region_vjp,
        5,
        55,
    );
}

/// `f(a, b)` in both modes: forward against central differences, reverse against forward.
fn check_two(
    plain: fn(f64, f64) -> f64,
    jvp: fn(f64, f64, f64, f64) -> (f64, f64),
    grad: fn(f64, f64) -> (f64, (f64, f64)),
) {
    for (a, b) in [(0.3, 1.1), (-0.7, 0.4), (1.3, -0.2)] {
        common::forward_checked2(plain, jvp, a, b);
        let (value, (ga, gb)) = grad(a, b);
        assert_eq!(value.to_bits(), plain(a, b).to_bits());
        approx::assert_relative_eq!(
            ga,
            jvp(a, b, 1.0, 0.0).1,
            epsilon = 1e-13,
            max_relative = 1e-12
        );
        approx::assert_relative_eq!(
            gb,
            jvp(a, b, 0.0, 1.0).1,
            epsilon = 1e-13,
            max_relative = 1e-12
        );
    }
}

#[test]
fn private_fields() {
    let mut rng = Rng::new(105);
    let f = geo::Frame::new(0.6, -1.2);
    check_user_type(
        private_rest,
        private_rest_jvp,
        private_rest_vjp,
        &f,
        0.8,
        &mut rng,
    );
}

#[test]
fn more_borrows() {
    check_two(
        b_ref_mut_fields,
        b_ref_mut_fields_jvp,
        b_ref_mut_fields_grad,
    );
    check_slice(b_branches, b_branches_jvp, b_branches_vjp, 5, 62);
    check_slice(b_shadowed, b_shadowed_jvp, b_shadowed_vjp, 5, 63);
    check_slice(
        b_arm_index_changes,
        b_arm_index_changes_jvp,
        b_arm_index_changes_vjp,
        5,
        64,
    );
    check_slice(
        b_in_loop_break_continue,
        b_in_loop_break_continue_jvp,
        b_in_loop_break_continue_vjp,
        6,
        65,
    );
    check_slice(
        b_return_from_arm,
        b_return_from_arm_jvp,
        b_return_from_arm_vjp,
        5,
        66,
    );
    let mut rng = Rng::new(106);
    let sc = scene();
    check_user_type(
        |s: &Scene, x| s.bins(x),
        |s: &Scene, x, ds: &Scene, dx| Scene::bins_jvp(s, x, ds, dx),
        |s: &Scene, x, ct| Scene::bins_vjp(s, x, ct),
        &sc,
        0.6,
        &mut rng,
    );
}

fn holder() -> Holder {
    Holder {
        maybe: Some(Shape::Rect {
            w: 0.6,
            h: -0.2,
            d: 1.4,
        }),
        mids: outers().into_iter().map(|o| o.mid).collect(),
        expr: ex_tree(),
    }
}

#[test]
fn batch_three_patterns() {
    on_ir!(holder_walk);
    let mut rng = Rng::new(107);
    for s in shapes() {
        check_user_type(
            |s: &Shape, x| s.count_like(x),
            |s: &Shape, x, ds: &Shape, dx| Shape::count_like_jvp(s, x, ds, dx),
            |s: &Shape, x, ct| Shape::count_like_vjp(s, x, ct),
            &s,
            0.7,
            &mut rng,
        );
        check_user_type(
            |s: &Shape, x| s.deref_self(x),
            |s: &Shape, x, ds: &Shape, dx| Shape::deref_self_jvp(s, x, ds, dx),
            |s: &Shape, x, ct| Shape::deref_self_vjp(s, x, ct),
            &s,
            0.7,
            &mut rng,
        );
        check_user_type(
            |s: &Shape, x| s.clone().by_value(x),
            |s: &Shape, x, ds: &Shape, dx| Shape::by_value_jvp(s.clone(), x, ds.clone(), dx),
            |s: &Shape, x, ct| Shape::by_value_vjp(s.clone(), x, ct),
            &s,
            0.7,
            &mut rng,
        );
    }
    for o in outers() {
        check_user_type(
            |o: &Outer, x| o.deep(x),
            |o: &Outer, x, d: &Outer, dx| Outer::deep_jvp(o, x, d, dx),
            |o: &Outer, x, ct| Outer::deep_vjp(o, x, ct),
            &o,
            0.4,
            &mut rng,
        );
        check_user_type(
            |o: &Outer, x| o.via(x),
            |o: &Outer, x, d: &Outer, dx| Outer::via_jvp(o, x, d, dx),
            |o: &Outer, x, ct| Outer::via_vjp(o, x, ct),
            &o,
            0.4,
            &mut rng,
        );
    }
    let mut h = holder();
    check_user_type(
        holder_walk,
        holder_walk_jvp,
        holder_walk_vjp,
        &h,
        0.4,
        &mut rng,
    );
    h.maybe = Some(Shape::Tube(0.3, 0.2, 1));
    h.expr = Ex::Mul(Box::new(Ex::Var), Box::new(Ex::Sin(Box::new(Ex::Num(0.4)))));
    check_user_type(
        holder_walk,
        holder_walk_jvp,
        holder_walk_vjp,
        &h,
        -0.7,
        &mut rng,
    );
    h.maybe = None;
    h.expr = Ex::Sin(Box::new(Ex::Var));
    check_user_type(
        holder_walk,
        holder_walk_jvp,
        holder_walk_vjp,
        &h,
        1.1,
        &mut rng,
    );
    for c in [
        Curve::Spline {
            knots: vec![0.3, -0.7, 1.2],
            tension: 0.8,
        },
        Curve::Line(0.4, -1.1),
    ] {
        check_user_type(
            |c: &Curve, x| c.tension(x),
            |c: &Curve, x, dc: &Curve, dx| Curve::tension_jvp(c, x, dc, dx),
            |c: &Curve, x, ct| Curve::tension_vjp(c, x, ct),
            &c,
            0.5,
            &mut rng,
        );
    }
}

#[test]
fn batch_three_borrows_and_data() {
    on_ir!(
        b_shared_ref_values,
        b_row_iterated,
        c_element_borrow_into_region,
        c_perm_in_region,
        d_element_changed_after_read,
        d_float_from_data_call,
        d_swap_through_borrows,
        b_built_vec_field,
        b_array_local
    );
    check_slice(
        b_shared_ref_values,
        b_shared_ref_values_jvp,
        b_shared_ref_values_vjp,
        4,
        71,
    );
    check_slice(
        b_row_iterated,
        b_row_iterated_jvp,
        b_row_iterated_vjp,
        4,
        72,
    );
    check_slice(
        c_element_borrow_into_region,
        c_element_borrow_into_region_jvp,
        c_element_borrow_into_region_vjp,
        5,
        73,
    );
    check_slice(
        c_perm_in_region,
        c_perm_in_region_jvp,
        c_perm_in_region_vjp,
        5,
        74,
    );
    check_slice(
        d_element_changed_after_read,
        d_element_changed_after_read_jvp,
        d_element_changed_after_read_vjp,
        5,
        75,
    );
    check_slice(
        d_float_from_data_call,
        d_float_from_data_call_jvp,
        d_float_from_data_call_vjp,
        5,
        76,
    );
    check_slice(
        d_swap_through_borrows,
        d_swap_through_borrows_jvp,
        d_swap_through_borrows_vjp,
        5,
        78,
    );
    check_two(
        b_built_vec_field,
        b_built_vec_field_jvp,
        b_built_vec_field_grad,
    );
    check_slice(b_array_local, b_array_local_jvp, b_array_local_vjp, 5, 79);
}

fn groups() -> Vec<Group> {
    vec![
        Group::Many {
            items: shapes(),
            w: 0.7,
        },
        Group::Many {
            items: vec![
                Shape::Tube(0.8, 0.1, 0),
                Shape::Dot,
                Shape::Tube(2.0, 0.1, 0),
            ],
            w: 0.3,
        },
        Group::One(Shape::Tube(0.4, -0.9, 1), 1.3),
        Group::One(
            Shape::Rect {
                w: 0.2,
                h: 0.5,
                d: -0.4,
            },
            -0.6,
        ),
    ]
}

#[test]
fn batch_four() {
    on_ir!(
        b_row_len,
        b_row_push,
        b_whole_push,
        b_whole_tuple,
        b_mut_param,
        b_ref_to_grad_field,
        d_call_in_scrutinee_and_break,
        d_swap_2d,
        free_either,
        group_rest
    );
    check_slice(b_row_len, b_row_len_jvp, b_row_len_vjp, 4, 81);
    check_slice(b_row_push, b_row_push_jvp, b_row_push_vjp, 4, 82);
    check_slice(b_whole_push, b_whole_push_jvp, b_whole_push_vjp, 4, 83);
    check_slice(b_whole_tuple, b_whole_tuple_jvp, b_whole_tuple_vjp, 4, 84);
    check_two(b_mut_param, b_mut_param_jvp, b_mut_param_grad);
    check_slice(
        d_call_in_scrutinee_and_break,
        d_call_in_scrutinee_and_break_jvp,
        d_call_in_scrutinee_and_break_vjp,
        5,
        85,
    );
    check_slice(d_swap_2d, d_swap_2d_jvp, d_swap_2d_vjp, 4, 86);
    let mut rng = Rng::new(108);
    check_user_type(
        b_ref_to_grad_field,
        b_ref_to_grad_field_jvp,
        b_ref_to_grad_field_vjp,
        &P2 {
            x: 0.4,
            y: -0.8,
            tag: 2,
        },
        0.9,
        &mut rng,
    );
    for s in shapes() {
        check_user_type(
            |s: &Shape, x| s.either(x),
            |s: &Shape, x, ds: &Shape, dx| Shape::either_jvp(s, x, ds, dx),
            |s: &Shape, x, ct| Shape::either_vjp(s, x, ct),
            &s,
            0.7,
            &mut rng,
        );
        check_user_type(
            free_either,
            free_either_jvp,
            free_either_vjp,
            &s,
            0.7,
            &mut rng,
        );
        check_user_type(
            |s: &Shape, x| s.braced_tuple(x),
            |s: &Shape, x, ds: &Shape, dx| Shape::braced_tuple_jvp(s, x, ds, dx),
            |s: &Shape, x, ct| Shape::braced_tuple_vjp(s, x, ct),
            &s,
            0.7,
            &mut rng,
        );
        for n in [0, 1] {
            check_user_type(
                |s: &Shape, x| s.with_index(n, x),
                |s: &Shape, x, ds: &Shape, dx| Shape::with_index_jvp(s, n, x, ds, dx),
                |s: &Shape, x, ct| Shape::with_index_vjp(s, n, x, ct),
                &s,
                0.7,
                &mut rng,
            );
        }
        check_user_type(
            |s: &Shape, x| s.at_binding(x),
            |s: &Shape, x, ds: &Shape, dx| Shape::at_binding_jvp(s, x, ds, dx),
            |s: &Shape, x, ct| Shape::at_binding_vjp(s, x, ct),
            &s,
            0.7,
            &mut rng,
        );
    }
    for g in groups() {
        check_user_type(
            group_rest,
            group_rest_jvp,
            group_rest_vjp,
            &g,
            0.6,
            &mut rng,
        );
        check_user_type(
            |g: &Group, x| g.total(x),
            |g: &Group, x, dg: &Group, dx| Group::total_jvp(g, x, dg, dx),
            |g: &Group, x, ct| Group::total_vjp(g, x, ct),
            &g,
            0.6,
            &mut rng,
        );
    }
}

#[test]
fn batch_five() {
    on_ir!(
        b_ref_mut_whole_struct,
        b_break_value,
        b_nested_loops,
        b_in_closure,
        d_in_closure
    );
    let mut rng = Rng::new(109);
    for s in shapes() {
        check_user_type(
            |s: &Shape, x| s.crate_paths(x),
            |s: &Shape, x, ds: &Shape, dx| Shape::crate_paths_jvp(s, x, ds, dx),
            |s: &Shape, x, ct| Shape::crate_paths_vjp(s, x, ct),
            &s,
            0.7,
            &mut rng,
        );
        let w = Wrapper {
            boxed: Box::new(s.clone()),
            w: 0.4,
        };
        check_user_type(
            |w: &Wrapper, x| w.unboxed(x),
            |w: &Wrapper, x, dw: &Wrapper, dx| Wrapper::unboxed_jvp(w, x, dw, dx),
            |w: &Wrapper, x, ct| Wrapper::unboxed_vjp(w, x, ct),
            &w,
            0.7,
            &mut rng,
        );
    }
    check_user_type(
        |p: &P2, t| p.spread(t),
        |p: &P2, t, dp: &P2, dt| P2::spread_jvp(p, t, dp, dt),
        |p: &P2, t, ct| P2::spread_vjp(p, t, ct),
        &P2 {
            x: 0.3,
            y: -1.1,
            tag: 3,
        },
        0.8,
        &mut rng,
    );
    check_user_type(
        |v: &V3, t| v.head(t),
        |v: &V3, t, dv: &V3, dt| V3::head_jvp(v, t, dv, dt),
        |v: &V3, t, ct| V3::head_vjp(v, t, ct),
        &V3(0.3, -0.8, 1.4),
        0.8,
        &mut rng,
    );
    for c in [
        Curve::Spline {
            knots: vec![0.3, -0.7, 1.2],
            tension: 0.8,
        },
        Curve::Line(0.4, -1.1),
    ] {
        check_user_type(
            |c: &Curve, x| c.smoothed(x),
            |c: &Curve, x, dc: &Curve, dx| Curve::smoothed_jvp(c, x, dc, dx),
            |c: &Curve, x, ct| Curve::smoothed_vjp(c, x, ct),
            &c,
            0.5,
            &mut rng,
        );
    }
    check_two(
        b_ref_mut_whole_struct,
        b_ref_mut_whole_struct_jvp,
        b_ref_mut_whole_struct_grad,
    );
    check_slice(b_break_value, b_break_value_jvp, b_break_value_vjp, 4, 91);
    check_slice(
        b_nested_loops,
        b_nested_loops_jvp,
        b_nested_loops_vjp,
        5,
        92,
    );
    check_slice(b_in_closure, b_in_closure_jvp, b_in_closure_vjp, 5, 93);
    check_slice(d_in_closure, d_in_closure_jvp, d_in_closure_vjp, 5, 94);
}

#[test]
fn batch_six() {
    on_ir!(alias_patterns, c_counter_arm_scheduled_break);
    let mut rng = Rng::new(110);
    for s in shapes() {
        // Both components of the tuple: reverse along (1, 0) and (0, 1) against forward.
        for x in [0.6, -1.3] {
            let (value, _) = Shape::pair_jvp(&s, x, &s, 0.0);
            assert_eq!(value, s.pair(x));
            let (_, (_, dx0)) = Shape::pair_vjp(&s, x, (1.0, 0.0));
            let (_, (_, dx1)) = Shape::pair_vjp(&s, x, (0.0, 1.0));
            let (_, along_x) = Shape::pair_jvp(&s, x, &common::axpy(&s, -1.0, &s), 1.0);
            approx::assert_relative_eq!(dx0, along_x.0, epsilon = 1e-12);
            approx::assert_relative_eq!(dx1, along_x.1, epsilon = 1e-12);
            let dir = common::random_like(&s, &mut rng);
            let (_, along) = Shape::pair_jvp(&s, x, &dir, 0.0);
            let (_, (ds0, _)) = Shape::pair_vjp(&s, x, (1.0, 0.0));
            let (_, (ds1, _)) = Shape::pair_vjp(&s, x, (0.0, 1.0));
            approx::assert_relative_eq!(common::dot(&ds0, &dir), along.0, epsilon = 1e-12);
            approx::assert_relative_eq!(common::dot(&ds1, &dir), along.1, epsilon = 1e-12);
        }
    }
    let e = ex_tree();
    for depth in [0, 2] {
        check_user_type(
            |e: &Ex, x| e.weighted(x, depth),
            |e: &Ex, x, de: &Ex, dx| Ex::weighted_jvp(e, x, depth, de, dx),
            |e: &Ex, x, ct| Ex::weighted_vjp(e, x, depth, ct),
            &e,
            0.7,
            &mut rng,
        );
    }
    for sf in [
        Sf::A(0.5),
        Sf::B {
            u: -0.7,
            v: 0.3,
            n: 2,
        },
    ] {
        let x = 0.8f32;
        let (value, (dsf, dx)) = Sf::value_vjp(&sf, x, 1.0);
        assert_eq!(value, sf.value(x));
        let (_, along_x) = Sf::value_jvp(
            &sf,
            x,
            &Sf::from_over(Sf::map(&sf.to_over(), &mut |_| 0.0f32)),
            1.0,
        );
        approx::assert_relative_eq!(dx, along_x, max_relative = 1e-5);
        let unit = Sf::from_over(Sf::map(&sf.to_over(), &mut |_| 1.0f32));
        let (_, along_fields) = Sf::value_jvp(&sf, x, &unit, 0.0);
        let mut sum = 0.0f32;
        Sf::for_each(&dsf.to_over(), &mut |g| sum += *g);
        approx::assert_relative_eq!(sum, along_fields, max_relative = 1e-5);
    }
    check_user_type(
        alias_patterns,
        alias_patterns_jvp,
        alias_patterns_vjp,
        &P2 {
            x: 0.3,
            y: -1.1,
            tag: 3,
        },
        0.8,
        &mut rng,
    );
    check_slice(
        c_counter_arm_scheduled_break,
        c_counter_arm_scheduled_break_jvp,
        c_counter_arm_scheduled_break_vjp,
        5,
        101,
    );
    let sc = scene();
    check_user_type(
        |s: &Scene, x| s.walk(x),
        |s: &Scene, x, ds: &Scene, dx| Scene::walk_jvp(s, x, ds, dx),
        |s: &Scene, x, ct| Scene::walk_vjp(s, x, ct),
        &sc,
        0.6,
        &mut rng,
    );
}

#[test]
fn batch_seven() {
    on_ir!(
        c_while_advance_scheduled,
        c_let_region_and_index_calls,
        c_swap_on_float_break
    );
    check_slice(
        c_while_advance_scheduled,
        c_while_advance_scheduled_jvp,
        c_while_advance_scheduled_vjp,
        5,
        111,
    );
    check_slice(
        c_let_region_and_index_calls,
        c_let_region_and_index_calls_jvp,
        c_let_region_and_index_calls_vjp,
        5,
        112,
    );
    check_slice(
        c_swap_on_float_break,
        c_swap_on_float_break_jvp,
        c_swap_on_float_break_vjp,
        5,
        113,
    );
}

#[test]
fn batch_eight() {
    on_ir!(ck_borrows, ck_caller, b_reborrow_shared);
    for (a, b) in [(0.3f64, 1.1f64), (-0.7, 0.4)] {
        let (value, (ga, gb)) = ck_borrows_grad(a, b, 5);
        assert_eq!(value.to_bits(), ck_borrows(a, b, 5).to_bits());
        let fa = common::central_difference(|a| ck_borrows(a, b, 5), a, 1e-4);
        let fb = common::central_difference(|b| ck_borrows(a, b, 5), b, 1e-4);
        approx::assert_relative_eq!(
            ga,
            ck_borrows_jvp(a, b, 5, 1.0, 0.0).1,
            max_relative = 1e-12
        );
        approx::assert_relative_eq!(
            gb,
            ck_borrows_jvp(a, b, 5, 0.0, 1.0).1,
            max_relative = 1e-12
        );
        approx::assert_relative_eq!(ga, fa, max_relative = 1e-7);
        approx::assert_relative_eq!(gb, fb, max_relative = 1e-7);
    }
    check_slice(ck_caller, ck_caller_jvp, ck_caller_vjp, 5, 122);
    check_slice(
        b_reborrow_shared,
        b_reborrow_shared_jvp,
        b_reborrow_shared_vjp,
        4,
        123,
    );
}

#[test]
fn batch_nine() {
    on_ir!(borrow_of_pattern_part, b_option_payload);
    let mut rng = Rng::new(131);
    for s in shapes() {
        check_user_type(
            borrow_of_pattern_part,
            borrow_of_pattern_part_jvp,
            borrow_of_pattern_part_vjp,
            &s,
            0.7,
            &mut rng,
        );
    }
    check_slice(
        b_option_payload,
        b_option_payload_jvp,
        b_option_payload_vjp,
        5,
        132,
    );
}

#[test]
fn batch_ten() {
    on_ir!(d_mut_option_part, d_mut_tuple_parts);
    check_slice(
        d_mut_option_part,
        d_mut_option_part_jvp,
        d_mut_option_part_vjp,
        5,
        141,
    );
    check_slice(
        d_mut_tuple_parts,
        d_mut_tuple_parts_jvp,
        d_mut_tuple_parts_vjp,
        5,
        142,
    );
}

#[test]
fn batch_eleven() {
    on_ir!(b_outer_index_inner_writes, b_swap_then_write);
    check_slice(
        b_outer_index_inner_writes,
        b_outer_index_inner_writes_jvp,
        b_outer_index_inner_writes_vjp,
        5,
        151,
    );
    check_slice(
        b_swap_then_write,
        b_swap_then_write_jvp,
        b_swap_then_write_vjp,
        5,
        152,
    );
}

/// The findings fixed after the review: a `move` closure capturing a borrow, float methods on
/// borrows, variants only tested, `..` over a private field in a `match`.
#[test]
fn fixed_findings() {
    on_ir!(
        b_move_closure,
        b_method_on_borrowed_field,
        b_method_on_borrowed_element,
        field_tested_only,
        private_rest_match
    );
    check_slice(
        b_move_closure,
        b_move_closure_jvp,
        b_move_closure_vjp,
        5,
        71,
    );
    check_slice(
        b_method_on_borrowed_element,
        b_method_on_borrowed_element_jvp,
        b_method_on_borrowed_element_vjp,
        4,
        72,
    );
    check_two(
        b_method_on_borrowed_field,
        b_method_on_borrowed_field_jvp,
        b_method_on_borrowed_field_grad,
    );
    let mut rng = Rng::new(73);
    for s in shapes() {
        check_user_type(
            |s: &Shape, x| s.tested_only(x),
            |s: &Shape, x, ds: &Shape, dx| Shape::tested_only_jvp(s, x, ds, dx),
            |s: &Shape, x, ct| Shape::tested_only_vjp(s, x, ct),
            &s,
            0.7,
            &mut rng,
        );
    }
    for o in outers() {
        check_user_type(
            field_tested_only,
            field_tested_only_jvp,
            field_tested_only_vjp,
            &o,
            -0.4,
            &mut rng,
        );
    }
    let f = geo::Frame::new(0.6, -1.2);
    check_user_type(
        private_rest_match,
        private_rest_match_jvp,
        private_rest_match_vjp,
        &f,
        0.8,
        &mut rng,
    );
}
