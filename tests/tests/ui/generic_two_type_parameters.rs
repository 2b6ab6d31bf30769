use ad_runtime::forward;
use num_traits::Float;

#[forward]
fn scaled<T: Float, F: Fn(usize) -> usize>(x: T, index: F) -> T {
    x * T::from(index(2)).unwrap()
}

fn main() {}
