use ad_runtime::forward;
use num_traits::Float;

#[forward]
fn shifted<T: Float>(x: T, shift: Option<T>) -> T {
    x + shift.unwrap_or(T::zero())
}

fn main() {}
