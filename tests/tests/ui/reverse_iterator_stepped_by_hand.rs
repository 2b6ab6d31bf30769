use ad_runtime::reverse;

#[reverse]
fn total(x: &[f64]) -> f64 {
    let mut items = x.iter();
    let first = *items.next().unwrap();
    let mut sum = first;
    for v in items {
        sum += v * first;
    }
    sum
}

fn main() {}
