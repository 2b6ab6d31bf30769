use ad_runtime::reverse;

#[reverse]
fn positive_sum(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.retain(|a| *a > 0.5);
    v.iter().sum()
}

fn main() {}
