use ad_runtime::reverse;

#[reverse]
fn f(x: f64, y: f64) -> f64 {
    let (a, b) = if x > y { (x, y) } else { (y, x) };
    a * b
}

fn main() {}
