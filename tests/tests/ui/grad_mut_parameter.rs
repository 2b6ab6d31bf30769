use ad_runtime::{reverse, Differentiable};

#[derive(Clone, Differentiable)]
struct Point {
    x: f64,
    y: f64,
}

// Forward mode takes it (its twins written back); reverse mode has no shadows for them yet.
#[reverse]
fn shift(#[grad] points: &mut [Point], d: f64) -> f64 {
    points[0].x += d;
    points[0].x * points[0].y
}

fn main() {}
