use ad_runtime::{forward, Differentiable};

#[derive(Clone, Differentiable)]
struct Point {
    x: f64,
    y: f64,
}

#[forward]
fn shift(#[grad] points: &mut [Point], d: f64) -> f64 {
    points[0].x += d;
    points[0].x * points[0].y
}

fn main() {}
