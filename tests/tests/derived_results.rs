//! Results of derived types, and the methods and operators of derived types called on values
//! the body builds (`(b - a).cross(&c).norm()`): `#[forward]`/`#[reverse]` on the type's
//! `impl` blocks gives the twin the block's methods and operators, so the derivative code
//! calls them whatever the body shows of the values' types. Each function is checked against
//! central differences, reverse against forward, and each result of a derived type by the
//! dot-product identity `<w, J v> = <J^T w, v>`.
// The previous engine does not take results of derived types.
// Elements called by index are what some cases check.
#![allow(clippy::needless_range_loop)]

use ad_runtime::{forward, reverse, Differentiable};
use approx::assert_relative_eq;
use std::ops::{Add, Mul, Neg, Sub};

#[derive(Clone, Copy, Debug, PartialEq, Differentiable)]
pub struct V3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

#[forward]
#[reverse]
impl Add for V3 {
    type Output = V3;
    fn add(self, o: V3) -> V3 {
        V3 {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
}

#[forward]
#[reverse]
impl Sub for V3 {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        V3 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}

#[forward]
#[reverse]
impl Mul<f64> for V3 {
    type Output = V3;
    fn mul(self, k: f64) -> V3 {
        V3 {
            x: self.x * k,
            y: self.y * k,
            z: self.z * k,
        }
    }
}

#[forward]
#[reverse]
impl Neg for V3 {
    type Output = V3;
    fn neg(self) -> V3 {
        V3 {
            x: -self.x,
            y: -self.y,
            z: -self.z,
        }
    }
}

#[forward]
#[reverse]
impl V3 {
    pub fn dot(&self, o: &V3) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    pub fn cross(&self, o: &V3) -> V3 {
        V3 {
            x: self.y * o.z - self.z * o.y,
            y: self.z * o.x - self.x * o.z,
            z: self.x * o.y - self.y * o.x,
        }
    }

    pub fn norm(&self) -> f64 {
        self.dot(self).sqrt()
    }

    /// By value, built from the type's own operators.
    pub fn normalized(self) -> V3 {
        let n = self.norm();
        self * (1.0 / n)
    }

    pub fn lerp(&self, o: &V3, t: f64) -> V3 {
        *self + (*o - *self) * t
    }
}

/// A segment of two points: a method of it calls methods of its nested values.
#[derive(Clone, Copy, Debug, PartialEq, Differentiable)]
pub struct Segment {
    pub from: V3,
    pub to: V3,
}

#[forward]
#[reverse]
impl Segment {
    pub fn length(&self) -> f64 {
        (self.to - self.from).norm()
    }

    pub fn direction(&self) -> V3 {
        (self.to - self.from).normalized()
    }

    /// Methods of the nested values called on the fields themselves.
    pub fn spread(&self) -> f64 {
        self.from.norm() * self.to.dot(&self.from) + self.to.cross(&self.from).norm()
    }
}

#[forward]
#[reverse]
fn triangle_normal(#[grad] a: V3, #[grad] b: V3, #[grad] c: V3) -> V3 {
    (b - a).cross(&(c - a)).normalized()
}

#[forward]
#[reverse]
fn reflected_height(#[grad] d: &V3, #[grad] n: &V3, h: f64) -> f64 {
    let unit = n.normalized();
    let r = *d - unit * (2.0 * d.dot(&unit));
    let r = -r;
    r.lerp(d, h).z + r.norm()
}

#[forward]
#[reverse]
fn segment_energy(#[grad] s: &Segment, k: f64) -> f64 {
    let d = s.direction();
    k * s.length().powi(2) + d.x * d.y
}

fn v3(x: &[f64]) -> V3 {
    V3 {
        x: x[0],
        y: x[1],
        z: x[2],
    }
}

fn flat(v: V3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

/// Central differences of `f` at `x` along `v`.
fn directional(f: impl Fn(&[f64]) -> Vec<f64>, x: &[f64], v: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    let at = |s: f64| -> Vec<f64> {
        let moved: Vec<f64> = x.iter().zip(v).map(|(x, v)| x + s * v).collect();
        f(&moved)
    };
    let (plus, minus) = (at(h), at(-h));
    plus.iter()
        .zip(&minus)
        .map(|(p, m)| (p - m) / (2.0 * h))
        .collect()
}

const POINTS: [[f64; 9]; 3] = [
    [0.1, 0.2, 0.3, 1.1, 0.4, -0.3, 0.5, 1.2, 0.7],
    [-0.4, 0.9, 0.2, 0.3, -0.8, 1.1, 1.3, 0.6, -0.5],
    [2.0, -1.0, 0.5, -0.7, 0.25, 0.9, 0.4, 1.7, -1.2],
];
const DIRECTION: [f64; 9] = [0.3, -0.2, 0.5, 0.1, 0.7, -0.4, -0.6, 0.2, 0.35];
const WEIGHT: [f64; 3] = [0.8, -0.3, 0.45];

#[test]
fn a_result_of_a_derived_type_through_operators_and_methods() {
    for x in POINTS {
        let (a, b, c) = (v3(&x), v3(&x[3..]), v3(&x[6..]));
        let (da, db, dc) = (v3(&DIRECTION), v3(&DIRECTION[3..]), v3(&DIRECTION[6..]));
        let (value, tangent) = triangle_normal_jvp(a, b, c, da, db, dc);
        assert_eq!(value, triangle_normal(a, b, c));
        let differences = directional(
            |x| flat(triangle_normal(v3(x), v3(&x[3..]), v3(&x[6..]))).to_vec(),
            &x,
            &DIRECTION,
        );
        for (t, d) in flat(tangent).iter().zip(&differences) {
            assert_relative_eq!(t, d, epsilon = 1e-7, max_relative = 1e-6);
        }
        let (value_r, (wa, wb, wc)) = triangle_normal_vjp(a, b, c, v3(&WEIGHT));
        assert_eq!(value_r, value);
        // <w, J v> = <J^T w, v>
        let lhs: f64 = flat(tangent).iter().zip(WEIGHT).map(|(t, w)| t * w).sum();
        let rhs: f64 = [flat(wa), flat(wb), flat(wc)]
            .concat()
            .iter()
            .zip(DIRECTION)
            .map(|(g, v)| g * v)
            .sum();
        assert_relative_eq!(lhs, rhs, epsilon = 1e-12, max_relative = 1e-10);
    }
}

#[test]
fn methods_of_a_derived_type_returning_it() {
    for x in POINTS {
        let (p, q) = (v3(&x), v3(&x[3..]));
        let (dp, dq) = (v3(&DIRECTION), v3(&DIRECTION[3..]));
        let t = x[6];
        let (value, tangent) = p.lerp_jvp(&q, t, &dp, &dq, DIRECTION[6]);
        assert_eq!(value, p.lerp(&q, t));
        let differences = directional(
            |x| flat(v3(x).lerp(&v3(&x[3..]), x[6])).to_vec(),
            &x[..7],
            &DIRECTION[..7],
        );
        for (t, d) in flat(tangent).iter().zip(&differences) {
            assert_relative_eq!(t, d, epsilon = 1e-7, max_relative = 1e-6);
        }
        let (_, (wp, wq, wt)) = p.lerp_vjp(&q, t, v3(&WEIGHT));
        let lhs: f64 = flat(tangent).iter().zip(WEIGHT).map(|(t, w)| t * w).sum();
        let rhs: f64 = [flat(wp).to_vec(), flat(wq).to_vec(), vec![wt]]
            .concat()
            .iter()
            .zip(DIRECTION)
            .map(|(g, v)| g * v)
            .sum();
        assert_relative_eq!(lhs, rhs, epsilon = 1e-12, max_relative = 1e-10);

        // By value, through the type's own `Mul<f64>`.
        let (unit, d_unit) = p.normalized_jvp(dp);
        let (_, w_unit) = p.normalized_vjp(v3(&WEIGHT));
        let lhs: f64 = flat(d_unit).iter().zip(WEIGHT).map(|(t, w)| t * w).sum();
        assert_relative_eq!(lhs, w_unit.dot(&dp), epsilon = 1e-12, max_relative = 1e-10);
        assert_relative_eq!(unit.norm(), 1.0, epsilon = 1e-15);
    }
}

#[test]
fn operators_with_floats_and_negation() {
    for x in POINTS {
        let (d, n, h) = (v3(&x), v3(&x[3..]), x[6]);
        let (value, tangent) = reflected_height_jvp(
            &d,
            &n,
            h,
            &v3(&DIRECTION),
            &v3(&DIRECTION[3..]),
            DIRECTION[6],
        );
        assert_eq!(value, reflected_height(&d, &n, h));
        let differences = directional(
            |x| vec![reflected_height(&v3(x), &v3(&x[3..]), x[6])],
            &x[..7],
            &DIRECTION[..7],
        );
        assert_relative_eq!(tangent, differences[0], epsilon = 1e-7, max_relative = 1e-6);
        let (value_r, (wd, wn, wh)) = reflected_height_grad(&d, &n, h);
        assert_eq!(value_r, value);
        let along = wd.dot(&v3(&DIRECTION)) + wn.dot(&v3(&DIRECTION[3..])) + wh * DIRECTION[6];
        assert_relative_eq!(along, tangent, epsilon = 1e-12, max_relative = 1e-10);
    }
}

#[test]
fn a_method_calling_methods_of_nested_values() {
    for x in POINTS {
        let s = Segment {
            from: v3(&x),
            to: v3(&x[3..]),
        };
        let ds = Segment {
            from: v3(&DIRECTION),
            to: v3(&DIRECTION[3..]),
        };
        let k = x[6];
        let (value, tangent) = segment_energy_jvp(&s, k, &ds, DIRECTION[6]);
        assert_eq!(value, segment_energy(&s, k));
        let at = |x: &[f64]| {
            let s = Segment {
                from: v3(x),
                to: v3(&x[3..]),
            };
            vec![segment_energy(&s, x[6])]
        };
        let differences = directional(at, &x[..7], &DIRECTION[..7]);
        assert_relative_eq!(tangent, differences[0], epsilon = 1e-7, max_relative = 1e-6);
        let (value_r, (ws, wk)) = segment_energy_grad(&s, k);
        assert_eq!(value_r, value);
        let along = ws.from.dot(&ds.from) + ws.to.dot(&ds.to) + wk * DIRECTION[6];
        assert_relative_eq!(along, tangent, epsilon = 1e-12, max_relative = 1e-10);
        let (spread, d_spread) = s.spread_jvp(&ds);
        assert_eq!(spread, s.spread());
        let (_, w_spread) = s.spread_grad();
        let along = w_spread.from.dot(&ds.from) + w_spread.to.dot(&ds.to);
        assert_relative_eq!(along, d_spread, epsilon = 1e-12, max_relative = 1e-10);
        let h = 1e-6;
        let moved = |t: f64| Segment {
            from: s.from + ds.from * t,
            to: s.to + ds.to * t,
        };
        let difference = (moved(h).spread() - moved(-h).spread()) / (2.0 * h);
        assert_relative_eq!(d_spread, difference, epsilon = 1e-7, max_relative = 1e-6);
        // A method of the outer type returning a value of the inner one.
        let (direction, d_direction) = s.direction_jvp(&ds);
        assert_eq!(direction, s.direction());
        let (_, w_direction) = s.direction_vjp(v3(&WEIGHT));
        let lhs = d_direction.dot(&v3(&WEIGHT));
        let rhs = w_direction.from.dot(&ds.from) + w_direction.to.dot(&ds.to);
        assert_relative_eq!(lhs, rhs, epsilon = 1e-12, max_relative = 1e-10);
    }
}

/// A type whose `impl` blocks carry `#[reverse]` alone: its twin gets the forward methods the
/// functions' forward companions call too.
#[derive(Clone, Copy, Debug, PartialEq, Differentiable)]
pub struct P2 {
    pub x: f64,
    pub y: f64,
}

#[reverse]
impl Add for P2 {
    type Output = P2;
    fn add(self, o: P2) -> P2 {
        P2 {
            x: self.x + o.x,
            y: self.y + o.y,
        }
    }
}

#[reverse]
impl P2 {
    pub fn scaled(self, k: f64) -> P2 {
        P2 {
            x: self.x * k,
            y: self.y * k.sin(),
        }
    }

    pub fn len(&self) -> f64 {
        self.x.hypot(self.y)
    }
}

#[reverse]
fn through_reverse_only(#[grad] a: P2, #[grad] b: P2, k: f64) -> f64 {
    let s = (a + b).scaled(k);
    s.len() * s.x + (a.scaled(2.0) + s).len()
}

#[test]
fn a_type_with_reverse_alone() {
    for x in POINTS {
        let (a, b, k) = (P2 { x: x[0], y: x[1] }, P2 { x: x[2], y: x[3] }, x[4]);
        let (value, (wa, wb, wk)) = through_reverse_only_grad(a, b, k);
        assert_eq!(value, through_reverse_only(a, b, k));
        let at = |x: &[f64]| {
            vec![through_reverse_only(
                P2 { x: x[0], y: x[1] },
                P2 { x: x[2], y: x[3] },
                x[4],
            )]
        };
        let differences = directional(at, &x[..5], &DIRECTION[..5]);
        let along = wa.x * DIRECTION[0]
            + wa.y * DIRECTION[1]
            + wb.x * DIRECTION[2]
            + wb.y * DIRECTION[3]
            + wk * DIRECTION[4];
        assert_relative_eq!(along, differences[0], epsilon = 1e-7, max_relative = 1e-6);
    }
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Body {
    pub mass: f64,
    pub v: f64,
}

/// Fields of what a method returns (`bodies.last().unwrap().mass`).
#[reverse]
fn fields_of_results(#[grad] bodies: &[Body], k: f64) -> f64 {
    bodies.first().unwrap().mass * bodies[1].v + bodies.last().unwrap().mass.sin() * k
}

#[test]
fn fields_of_what_methods_return() {
    let bodies = vec![Body { mass: 2.0, v: 0.5 }, Body { mass: 3.0, v: 0.25 }];
    let (value, (adjoints, dk)) = fields_of_results_grad(&bodies, 1.5);
    assert_eq!(value, fields_of_results(&bodies, 1.5));
    assert_relative_eq!(adjoints[0].mass, 0.25, max_relative = 1e-15);
    assert_relative_eq!(adjoints[1].v, 2.0, max_relative = 1e-15);
    assert_relative_eq!(adjoints[1].mass, 1.5 * 3.0_f64.cos(), max_relative = 1e-15);
    assert_eq!((adjoints[0].v, dk), (0.0, 3.0_f64.sin()));
}

/// A log-probability whose `+` is log-sum-exp: a derived type's operator that is not the sum
/// of its parts.
#[derive(Clone, Copy, Debug, PartialEq, Differentiable)]
pub struct LogP(pub f64);

#[forward]
#[reverse]
impl Add for LogP {
    type Output = LogP;
    fn add(self, o: LogP) -> LogP {
        let m = self.0.max(o.0);
        LogP(m + ((self.0 - m).exp() + (o.0 - m).exp()).ln())
    }
}

#[forward]
#[reverse]
fn log_total(#[grad] xs: &[LogP]) -> f64 {
    let mut acc: LogP = xs[0] + xs[1];
    for x in &xs[2..] {
        acc = acc + *x;
    }
    acc.0
}

#[forward]
#[reverse]
impl V3 {
    /// In place, on a value a method returned.
    pub fn normalize(&mut self) {
        let n = self.norm();
        self.x /= n;
        self.y /= n;
        self.z /= n;
    }
}

#[forward]
#[reverse]
fn normalized_cross_x(#[grad] a: &V3, #[grad] b: &V3) -> f64 {
    let mut c = a.cross(b);
    c.normalize();
    c.x + 2.0 * c.z
}

#[test]
fn an_operator_that_is_not_the_sum_of_its_parts() {
    let xs = [LogP(-1.0), LogP(0.5), LogP(-0.25), LogP(1.5)];
    let total = (xs.iter().map(|x| x.0.exp()).sum::<f64>()).ln();
    let (value, adjoints) = log_total_grad(&xs);
    assert_relative_eq!(value, total, max_relative = 1e-14);
    // d/dx_i log sum exp = softmax_i
    for (x, adjoint) in xs.iter().zip(&adjoints) {
        assert_relative_eq!(adjoint.0, (x.0 - total).exp(), max_relative = 1e-12);
    }
    let tangents = [LogP(0.3), LogP(-0.2), LogP(0.1), LogP(0.7)];
    let (_, tangent) = log_total_jvp(&xs, &tangents);
    let along: f64 = adjoints.iter().zip(&tangents).map(|(a, t)| a.0 * t.0).sum();
    assert_relative_eq!(tangent, along, max_relative = 1e-12);
}

#[test]
fn a_mut_self_method_on_a_value_a_method_returned() {
    for x in POINTS {
        let (a, b) = (v3(&x), v3(&x[3..]));
        let (da, db) = (v3(&DIRECTION), v3(&DIRECTION[3..]));
        let (value, tangent) = normalized_cross_x_jvp(&a, &b, &da, &db);
        assert_eq!(value, normalized_cross_x(&a, &b));
        let differences = directional(
            |x| vec![normalized_cross_x(&v3(x), &v3(&x[3..]))],
            &x[..6],
            &DIRECTION[..6],
        );
        assert_relative_eq!(tangent, differences[0], epsilon = 1e-7, max_relative = 1e-6);
        let (_, (wa, wb)) = normalized_cross_x_grad(&a, &b);
        assert_relative_eq!(
            wa.dot(&da) + wb.dot(&db),
            tangent,
            epsilon = 1e-12,
            max_relative = 1e-10
        );
    }
}

/// A derived type with a method named as a container's (`len`): on its values, wherever they
/// come from, the type's own.
#[derive(Clone, Copy, Debug, PartialEq, Differentiable)]
pub struct Arrow {
    pub x: f64,
    pub y: f64,
}

#[forward]
#[reverse]
impl Arrow {
    pub fn len(&self) -> f64 {
        self.x.hypot(self.y)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Differentiable)]
pub struct Pair {
    pub a: Arrow,
    pub b: Arrow,
}

#[reverse]
fn lengths(#[grad] s: Pair, #[grad] arrows: &[Arrow]) -> f64 {
    let mut e = s.a.len();
    for p in arrows {
        e += p.len();
    }
    let first = arrows[0];
    e += first.len() * 2.0;
    for i in 0..arrows.len() {
        e += arrows[i].len() * s.b.len();
    }
    e
}

#[test]
fn a_method_named_len_on_parts_items_and_elements() {
    let s = Pair {
        a: Arrow { x: 3.0, y: 4.0 },
        b: Arrow { x: 1.0, y: 1.0 },
    };
    let arrows = [Arrow { x: 0.6, y: 0.8 }, Arrow { x: -1.0, y: 2.0 }];
    let (value, (ws, wa)) = lengths_grad(s, &arrows);
    assert_relative_eq!(value, lengths(s, &arrows), max_relative = 1e-15);
    let unit = |v: Arrow| (v.x / v.len(), v.y / v.len());
    let b = s.b.len();
    assert_relative_eq!(ws.a.x, unit(s.a).0, max_relative = 1e-14);
    let total: f64 = arrows.iter().map(Arrow::len).sum();
    assert_relative_eq!(ws.b.y, total * unit(s.b).1, max_relative = 1e-14);
    // Each arrow: once in the `for`, `b` times by index, the first twice more.
    assert_relative_eq!(wa[0].x, (3.0 + b) * unit(arrows[0]).0, max_relative = 1e-14);
    assert_relative_eq!(wa[1].y, (1.0 + b) * unit(arrows[1]).1, max_relative = 1e-14);
}

/// Attributes on a method alone (no twin methods): a method called with a dot on an element
/// of a `#[grad]` container, or on a loop's item, goes to the type's companion by its path.
#[derive(Clone, Copy, Debug, PartialEq, Differentiable)]
pub struct Mass {
    pub m: f64,
    pub h: f64,
}

impl Mass {
    #[forward]
    #[reverse]
    pub fn weight(&self, g: f64) -> f64 {
        g * self.m * self.h.sin()
    }
}

#[forward]
#[reverse]
fn weights(#[grad] masses: &[Mass], g: f64) -> f64 {
    let mut w = 0.0;
    for i in 0..masses.len() {
        w += masses[i].weight(g) * masses[i].m;
    }
    w + items_weight(masses, g * 2.0)
}

/// On a loop's items (`weights_jvp` runs its forward companion).
#[reverse]
fn items_weight(#[grad] masses: &[Mass], g: f64) -> f64 {
    let mut w = 0.0;
    for mass in masses {
        w += mass.weight(g);
    }
    w
}

#[test]
fn a_method_called_with_a_dot_on_elements() {
    let masses = [Mass { m: 2.0, h: 0.3 }, Mass { m: 0.5, h: -1.2 }];
    let tangents = [Mass { m: 0.1, h: -0.4 }, Mass { m: 0.7, h: 0.2 }];
    let g = 9.81;
    let (value, tangent) = weights_jvp(&masses, g, &tangents, 0.3);
    assert_eq!(value, weights(&masses, g));
    let (value_r, (adjoints, wg)) = weights_grad(&masses, g);
    assert_eq!(value_r, value);
    let along: f64 = adjoints
        .iter()
        .zip(&tangents)
        .map(|(a, t)| a.m * t.m + a.h * t.h)
        .sum::<f64>()
        + wg * 0.3;
    assert_relative_eq!(along, tangent, max_relative = 1e-12);
    let h = 1e-6;
    let moved = |s: f64| {
        let masses: Vec<Mass> = masses
            .iter()
            .zip(&tangents)
            .map(|(m, t)| Mass {
                m: m.m + s * t.m,
                h: m.h + s * t.h,
            })
            .collect();
        weights(&masses, g + s * 0.3)
    };
    assert_relative_eq!(
        tangent,
        (moved(h) - moved(-h)) / (2.0 * h),
        max_relative = 1e-7
    );
}

/// Every operator on a float a method returned (`ir::ReverseOperators`: the left operand's
/// type is not one the body shows), in both modes.
#[forward]
#[reverse]
fn operators_on_returned_floats(#[grad] a: &V3, #[grad] b: &V3, k: f64) -> f64 {
    let n = a.norm();
    let d = a.dot(b);
    let sum = n + k;
    let difference = d - k * 0.5;
    let product = n * d;
    let quotient = a.cross(b).norm() / (k * k + 1.0);
    let remainder = d % 0.75;
    let negated = -b.norm();
    sum * difference + product + quotient + remainder + negated
}

#[test]
fn operators_on_floats_methods_return() {
    for x in POINTS {
        let (a, b, k) = (v3(&x), v3(&x[3..]), x[6]);
        let (da, db, dk) = (v3(&DIRECTION), v3(&DIRECTION[3..]), DIRECTION[6]);
        let (value, tangent) = operators_on_returned_floats_jvp(&a, &b, k, &da, &db, dk);
        assert_eq!(value, operators_on_returned_floats(&a, &b, k));
        let differences = directional(
            |x| vec![operators_on_returned_floats(&v3(x), &v3(&x[3..]), x[6])],
            &x[..7],
            &DIRECTION[..7],
        );
        assert_relative_eq!(tangent, differences[0], epsilon = 1e-7, max_relative = 1e-6);
        let (value_r, (wa, wb, wk)) = operators_on_returned_floats_grad(&a, &b, k);
        assert_eq!(value_r, value);
        let along = wa.dot(&da) + wb.dot(&db) + wk * dk;
        assert_relative_eq!(along, tangent, epsilon = 1e-12, max_relative = 1e-10);
    }
}
