use ad_runtime::reverse;
use num_traits::{Float, FromPrimitive};

// Reverse mode takes a function generic over its float type at `f64`, but not yet one with a
// parameter of another float type (data in the generic function).
#[reverse]
fn huber<T: Float + FromPrimitive>(x: &[T], delta: f64) -> T {
    let d = T::from_f64(delta).unwrap();
    x.iter().fold(T::zero(), |s, &v| s + if v.abs() < d { v * v } else { d * v.abs() })
}

fn main() {
    // The stubs keep the generated names defined: no second error here.
    let _ = huber_grad(&[1.0, 2.0], 0.5);
}
