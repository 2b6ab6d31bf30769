use ad_runtime::reverse;
use num_traits::Float;

fn weighted<T: Float>(x: T, weight: f64) -> T {
    x * T::from(weight).unwrap()
}

#[reverse]
fn f(x: f64, w: f64) -> f64 {
    weighted(x, w * 2.0)
}

fn main() {}
