use ad_runtime::forward;
use num_traits::Float;

#[forward]
fn positive<T: Float>(x: T) -> bool {
    x > T::zero()
}

fn main() {}
