//! Operators with a float on the left and a value of a derived type on the right (`2.0 * v`,
//! `dt * v`, `k - v`): `#[forward]`/`#[reverse]` on `impl Mul<V3> for f64` give the type a
//! hidden method of the same body, which the derivative code of `k * v` calls
//! (`ad-macros/src/left_operators.rs`). Each function against forward mode, central
//! differences and the dot-product identity (`common::check_gradient`).

// `k * &d` on purpose: the operator by reference is tested.
#![allow(clippy::op_ref)]

mod common;

use ad_runtime::{forward, reverse, Differentiable};
use common::check_gradient;
use std::ops::{Add, Div, Mul, Sub};

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
impl Mul<V3> for f64 {
    type Output = V3;
    fn mul(self, v: V3) -> V3 {
        V3 {
            x: self * v.x,
            y: self * v.y,
            z: self * v.z,
        }
    }
}

/// Not `v - k` turned around: the order matters; `Self::Output` and `Self` mean what they mean
/// in the operator's block, and `self` may be `mut`.
#[forward]
#[reverse]
impl Sub<V3> for f64 {
    type Output = V3;
    fn sub(mut self, v: V3) -> Self::Output {
        self -= 0.25 * v.z;
        let k: Self = self;
        V3 {
            x: k - v.x,
            y: k - 2.0 * v.y,
            z: k - v.z * v.z,
        }
    }
}

/// By reference, with a closure reading the float.
#[forward]
#[reverse]
impl Div<&V3> for f64 {
    type Output = V3;
    fn div(self, v: &V3) -> V3 {
        let over = |c: f64| self / c;
        V3 {
            x: over(v.x),
            y: over(v.y),
            z: over(v.z),
        }
    }
}

/// The same operator by reference beside it by value.
#[forward]
#[reverse]
impl Mul<&V3> for f64 {
    type Output = V3;
    fn mul(self, v: &V3) -> V3 {
        V3 {
            x: self * v.x,
            y: self * v.y,
            z: self * v.z,
        }
    }
}

#[forward]
#[reverse]
impl Sub for V3 {
    type Output = V3;
    fn sub(self, o: V3) -> V3 {
        V3 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}

#[forward]
#[reverse]
impl V3 {
    pub fn dot(&self, o: &V3) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
}

/// A literal, a parameter, a product of floats, a method of a float, a negated float, a cast
/// and a local given one on the left; the results used by other operators and methods.
#[forward]
#[reverse]
fn scaled(x: &[f64]) -> f64 {
    let k = x[0];
    let v = V3 {
        x: x[1],
        y: x[2] * x[1],
        z: 1.5,
    };
    let dt = 0.1;
    let w = 2.0 * v + v * 0.5;
    let u = 0.5 * dt * w + dt.sqrt() * v;
    let r = -2.0 * u;
    let t = 3.0 * v;
    let n = x.len() as f64;
    let mean = (1.0 / n) * (v + w) + (x.len() as f64) * u;
    (r.dot(&w) + t.x + mean.y) * k
}

/// A float parameter on the left, and the other operators.
#[forward]
#[reverse]
fn other_operators(k: f64, a: f64, b: f64) -> f64 {
    let v = V3 {
        x: a,
        y: b,
        z: a * b + 1.0,
    };
    let s = k - v;
    let d = k / &v;
    let m = k * v;
    s.dot(&d) + m.y * s.z
}

fn other_operators_of(x: &[f64]) -> f64 {
    other_operators(x[0], x[1], x[2])
}

fn other_operators_jvp_of(x: &[f64], dx: &[f64]) -> (f64, f64) {
    other_operators_jvp(x[0], x[1], x[2], dx[0], dx[1], dx[2])
}

fn other_operators_vjp_of(x: &[f64], cotangent: f64) -> (f64, Vec<f64>) {
    let (value, (dk, da, db)) = other_operators_vjp(x[0], x[1], x[2], cotangent);
    (value, vec![dk, da, db])
}

/// A `#[grad]` parameter of the type on the right; values of the type on both sides of an
/// operator the file also has with a float on the left (`(p + q) - q` is the type's `sub`);
/// a value by reference.
#[forward]
#[reverse]
fn of_a_parameter(#[grad] p: V3, k: f64) -> f64 {
    let q = k * p;
    let r = 0.5 - p;
    let d = (p + q) - q;
    let e = k * &d;
    q.dot(&r) + e.z * d.y
}

fn of_a_parameter_of(x: &[f64]) -> f64 {
    of_a_parameter(
        V3 {
            x: x[0],
            y: x[1],
            z: x[2],
        },
        x[3],
    )
}

fn of_a_parameter_jvp_of(x: &[f64], dx: &[f64]) -> (f64, f64) {
    let p = V3 {
        x: x[0],
        y: x[1],
        z: x[2],
    };
    let dp = V3 {
        x: dx[0],
        y: dx[1],
        z: dx[2],
    };
    of_a_parameter_jvp(p, x[3], dp, dx[3])
}

fn of_a_parameter_vjp_of(x: &[f64], cotangent: f64) -> (f64, Vec<f64>) {
    let p = V3 {
        x: x[0],
        y: x[1],
        z: x[2],
    };
    let (value, (dp, dk)) = of_a_parameter_vjp(p, x[3], cotangent);
    (value, vec![dp.x, dp.y, dp.z, dk])
}

#[test]
fn a_float_times_a_derived_value() {
    check_gradient(3, scaled, scaled_jvp, scaled_vjp);
}

#[test]
fn floats_on_the_left_of_each_operator() {
    check_gradient(
        3,
        other_operators_of,
        other_operators_jvp_of,
        other_operators_vjp_of,
    );
    // The operators as written still run for plain floats.
    let v = V3 {
        x: 1.0,
        y: 2.0,
        z: 4.0,
    };
    assert_eq!(
        3.0 - v,
        V3 {
            x: 1.0,
            y: -2.0,
            z: -14.0
        }
    );
    assert_eq!(
        8.0 / &v,
        V3 {
            x: 8.0,
            y: 4.0,
            z: 2.0
        }
    );
}

#[test]
fn a_derived_parameter_on_the_right() {
    check_gradient(
        4,
        of_a_parameter_of,
        of_a_parameter_jvp_of,
        of_a_parameter_vjp_of,
    );
}

/// A particle whose momentum is its mass, a float field, times its velocity.
#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Particle {
    pub mass: f64,
    pub vel: V3,
}

#[forward]
#[reverse]
impl Particle {
    pub fn momentum(&self) -> V3 {
        self.mass * self.vel
    }
}

/// A float element of a slice, a float field and a sum of them on the left.
#[forward]
#[reverse]
fn elements_and_fields(x: &[f64]) -> f64 {
    let v = V3 {
        x: x[1],
        y: x[2],
        z: 0.5,
    };
    let p = Particle {
        mass: x[3] * x[3] + 1.0,
        vel: v,
    };
    let a = x[0] * v;
    let b = p.mass * v + p.momentum();
    let c = (x[0] + p.mass) * &v;
    a.dot(&b) + c.z
}

#[test]
fn float_elements_and_fields_on_the_left() {
    check_gradient(
        4,
        elements_and_fields,
        elements_and_fields_jvp,
        elements_and_fields_vjp,
    );
}
