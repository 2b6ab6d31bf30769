use ad_runtime::{forward, reverse};
use num_traits::Float;

// Forward mode takes it; reverse mode refuses it, once.
#[forward]
#[reverse]
fn norm<T: Float>(x: &[T]) -> T {
    x.iter().fold(T::zero(), |s, &v| s + v * v).sqrt()
}

fn main() {
    let _ = norm_jvp(&[3.0, 4.0], &[1.0, 0.0]);
    let _ = norm_grad(&[3.0, 4.0]);
}
