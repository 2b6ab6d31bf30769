use ad_runtime::reverse;

#[reverse]
fn f(x: f64, y: f64) -> f64 {
    x.copysign(y)
}

fn main() {}
