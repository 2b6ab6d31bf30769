use ad_runtime::reverse;
use num_traits::Float;

#[reverse]
fn norm<T: Float>(x: &[T]) -> T {
    x.iter().fold(T::zero(), |s, &v| s + v * v).sqrt()
}

fn main() {
    // The stubs keep the generated names defined: no second error here.
    let _ = norm_grad(&[1.0, 2.0]);
}
