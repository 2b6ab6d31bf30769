use ad_runtime::{forward, reverse};

#[forward]
fn g(x: f64) -> f64 {
    x * x
}

#[reverse]
fn f(x: f64) -> f64 {
    g_jvp(x, 1.0).1
}

fn main() {}
