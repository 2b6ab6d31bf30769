use ad_runtime::{forward, Differentiable};

#[derive(Clone, Differentiable)]
pub struct Point {
    pub x: f64,
}

#[forward]
fn on_a_float(#[grad] x: f64) -> f64 {
    x * x
}

#[forward]
fn both_marks(#[grad] #[no_grad] p: &Point, y: f64) -> f64 {
    p.x * y
}

#[forward]
fn marked_twice_with_arguments(#[grad(all)] p: &Point, y: f64) -> f64 {
    p.x * y
}

pub struct Config {
    pub scale: f64,
}

#[forward]
fn without_the_derive(#[grad] c: &Config, y: f64) -> f64 {
    c.scale * y
}

fn main() {}
