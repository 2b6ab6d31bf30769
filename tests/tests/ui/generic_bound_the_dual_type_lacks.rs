use ad_runtime::forward;
use num_traits::Float;

/// A trait of the user's, implemented for `f64` only: the dual type the function runs at does
/// not have it, and the message says so at the call.
trait Calibrated: Float {
    fn offset() -> Self;
}

impl Calibrated for f64 {
    fn offset() -> Self {
        0.5
    }
}

#[forward]
fn corrected<T: Calibrated>(x: T) -> T {
    x + T::offset()
}

fn main() {
    let _ = corrected_jvp(1.0, 1.0);
}
