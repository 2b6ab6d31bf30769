// A function returning a value of a type that does not derive `Differentiable`: one message
// at the result type, saying to add the derive, nothing inside generated code.
use ad_runtime::{forward, reverse};

#[derive(Clone, Copy)]
pub struct Vec3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

#[forward]
#[reverse]
fn scaled(k: f64) -> Vec3 {
    Vec3 { x: k, y: 2.0 * k, z: 3.0 * k }
}

fn main() {
    let _ = scaled(1.0);
}
