use ad_runtime::reverse;

#[reverse]
fn f(x: f64, y: f64) -> f64 {
    x.rem_euclid(y)
}

fn main() {}
