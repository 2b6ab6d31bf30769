use ad_runtime::checkpoint;
use num_traits::Float;

#[checkpoint]
fn step<T: Float>(x: T, h: T) -> T {
    x + h * x.sin()
}

fn main() {}
