use ad_runtime::{forward, reverse};
use num_traits::Float;

#[forward]
fn rhs(y: &[f64], k: f64, dy: &mut [f64]) {
    dy[0] = -k * y[0];
    dy[1] = k * y[0] - y[1];
}

#[reverse]
fn through_forward_only(y0: &[f64], k: f64) -> f64 {
    let mut dy = vec![0.0; 2];
    rhs(y0, k, &mut dy);
    dy[0] * dy[1]
}

pub struct Lcg(pub u64);

fn jitter<T: Float>(mu: T, rng: &mut Lcg) -> T {
    rng.0 = rng.0.wrapping_add(1);
    mu + T::from(rng.0 as f64 * 1e-3).unwrap()
}

#[reverse]
fn through_a_generic_helper(x: f64, rng: &mut Lcg) -> f64 {
    jitter(x, rng) * x
}

fn main() {}
