use ad_runtime::reverse;

#[reverse]
fn square(x: f64) -> f64 {
    x * x
}

#[reverse]
fn f(x: f64) -> f64 {
    let g = square;
    g(x) + 1.0
}

fn main() {}
