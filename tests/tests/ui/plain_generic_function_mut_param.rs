use ad_runtime::forward;
use num_traits::Float;

fn scale_in_place<T: Float>(v: &mut [T], k: T) {
    for x in v.iter_mut() {
        *x = *x * k;
    }
}

#[forward]
fn f(x: f64) -> f64 {
    let mut v = vec![x, 2.0 * x];
    scale_in_place(&mut v, x);
    v[0] + v[1]
}

fn main() {}
