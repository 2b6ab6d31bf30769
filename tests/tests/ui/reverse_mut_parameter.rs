// A `#[checkpoint]` function would keep copies of its arguments to run again: it does not take
// `&mut` parameters yet (`#[reverse]` does). One message, at the parameter.
use ad_runtime::checkpoint;

#[checkpoint]
fn square_into(x: f64, y: &mut f64) {
    *y = x * x;
}

fn main() {}
