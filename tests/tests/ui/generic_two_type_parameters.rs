use ad_runtime::forward;
use num_traits::Float;

#[forward]
fn scaled<T: Float, I: Iterator<Item = usize>>(x: T, indices: I) -> T {
    x * T::from(indices.count()).unwrap()
}

fn main() {}
