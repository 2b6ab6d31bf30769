use ad_runtime::forward;
use nalgebra::DVector;

/// Forward mode runs a function of concrete nalgebra types through the same rules as reverse
/// mode: a method without one gets the same message.
#[forward]
fn spread(v: &DVector<f64>) -> f64 {
    v.variance()
}

fn main() {}
