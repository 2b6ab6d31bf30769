use ad_runtime::reverse;

fn square(x: f64) -> f64 {
    x * x
}

#[reverse]
fn f(x: f64) -> f64 {
    square(x) + 1.0
}

fn main() {}
