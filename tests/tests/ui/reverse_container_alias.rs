use ad_runtime::reverse;

#[reverse]
fn f(x: &[f64]) -> f64 {
    let y = x;
    y[0] * 2.0
}

fn main() {}
