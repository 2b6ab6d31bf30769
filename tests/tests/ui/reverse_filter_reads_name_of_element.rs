use ad_runtime::reverse;

#[reverse]
fn f(x: &[f64]) -> f64 {
    let v = 0.25;
    x.iter().filter(|w| **w > v).map(|v| v * 2.0).sum()
}

fn main() {}
