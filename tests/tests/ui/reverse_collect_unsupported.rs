use ad_runtime::reverse;

#[reverse]
fn skipped(x: &[f64]) -> f64 {
    let rest: Vec<f64> = x.iter().skip(1).copied().collect();
    rest[0]
}

#[reverse]
fn renamed(x: &[f64]) -> f64 {
    let x: Vec<f64> = x.iter().map(|v| v * 2.0).collect();
    x[0]
}

fn main() {}
