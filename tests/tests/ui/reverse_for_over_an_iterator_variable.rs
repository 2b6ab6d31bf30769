use ad_runtime::reverse;

#[reverse]
fn total(x: &[f64]) -> f64 {
    let scaled = x.iter().map(|v| v * 2.0);
    let mut sum = 0.0;
    for v in scaled {
        sum += v;
    }
    sum
}

fn main() {}
