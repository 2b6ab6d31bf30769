// A method returning a value of a type that derives `Differentiable` (an operator impl on a
// vector type): one message at the result type per function, nothing inside generated code.
use ad_runtime::{forward, reverse, Differentiable};
use std::ops::Sub;

#[derive(Clone, Copy, Differentiable)]
pub struct Vec3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

#[forward]
#[reverse]
impl Sub for Vec3 {
    type Output = Vec3;
    fn sub(self, #[grad] o: Vec3) -> Vec3 {
        Vec3 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}

fn main() {
    let a = Vec3 { x: 1.0, y: 0.0, z: 0.0 };
    let _ = a - a;
}
