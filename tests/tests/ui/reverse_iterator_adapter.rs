use ad_runtime::reverse;

#[reverse]
fn f(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum()
}

fn main() {}
