use ad_runtime::{forward, Differentiable};

#[derive(Clone, Differentiable)]
struct Point {
    x: f64,
    y: f64,
}

#[forward]
fn shift(#[grad] p: &mut Point, d: f64) -> f64 {
    p.x += d;
    p.x * p.y
}

fn main() {}
