use ad_runtime::reverse;

#[reverse]
fn weighted(x: &[f64], idx: &[usize]) -> f64 {
    let mut counts = vec![0usize; 2];
    counts[0] = idx.iter().sum();
    x[0] * counts[0] as f64
}

fn main() {}
