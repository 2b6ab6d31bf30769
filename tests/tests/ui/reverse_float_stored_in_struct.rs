use ad_runtime::reverse;

struct Point {
    x: f64,
}

#[reverse]
fn f(x: f64) -> f64 {
    let p = Point { x };
    p.x * 2.0
}

fn main() {}
