use ad_runtime::reverse;
use std::collections::VecDeque;

// `extend` is rewritten into pushes only for a `Vec`: a `VecDeque`'s is refused at the call,
// not left to rustc as a missing `push`.
#[reverse]
fn windowed(x: &[f64]) -> f64 {
    let mut window: VecDeque<f64> = VecDeque::new();
    window.extend(x.iter().map(|v| v * 2.0));
    window.iter().sum()
}

fn main() {}
