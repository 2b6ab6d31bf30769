use ad_runtime::reverse;

#[reverse]
fn total(x: &[f64]) -> f64 {
    x.iter().sum()
}

fn main() {
    // The cotangent of a float result is a float.
    let _ = total_vjp(&[1.0, 2.0], vec![1.0, 0.0]);
}
