// An operator with a value of a derived type on its right only (`k * v`, the float's
// `impl Mul<Vec3> for f64`, which no derivative code comes with as it carries no attribute):
// reverse mode says to put one on it, or to write the derived value on the left.
use ad_runtime::{reverse, Differentiable};
use std::ops::Mul;

#[derive(Clone, Copy, Differentiable)]
pub struct Vec3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

#[reverse]
impl Mul<f64> for Vec3 {
    type Output = Vec3;
    fn mul(self, k: f64) -> Vec3 {
        Vec3 { x: self.x * k, y: self.y * k, z: self.z * k }
    }
}

impl Mul<Vec3> for f64 {
    type Output = Vec3;
    fn mul(self, v: Vec3) -> Vec3 {
        v * self
    }
}

#[reverse]
fn scaled_x(#[grad] v: Vec3, k: f64) -> f64 {
    let w = k * v;
    w.x
}

fn main() {
    let _ = scaled_x(Vec3 { x: 1.0, y: 0.0, z: 0.0 }, 2.0);
}
