use ad_runtime::reverse;

#[reverse]
fn f(x: &[f64]) -> f64 {
    x.iter().filter(|v| **v > 0.0).sum()
}

fn main() {}
