use ad_runtime::reverse;

#[reverse]
fn every_other(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let mut n = 0;
    v.retain(|_| {
        n += 1;
        n % 2 == 0
    });
    v.iter().sum()
}

fn main() {}
