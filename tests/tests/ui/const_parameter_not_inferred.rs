use ad_runtime::{forward, reverse};

#[forward]
#[reverse]
fn repeated<const N: usize>(x: f64) -> f64 {
    let v = [x; N];
    v.iter().map(|t| t * t).sum()
}

fn main() {}
