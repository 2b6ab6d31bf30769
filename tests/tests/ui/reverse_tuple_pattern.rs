use ad_runtime::reverse;

#[reverse]
fn f(x: f64, y: f64) -> f64 {
    let (a, b) = (x * y, x - y);
    a * b
}

fn main() {}
