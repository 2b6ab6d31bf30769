// Patterns in parameters are taken apart in the body (`(a, b): (f64, f64)` works); a `ref`
// binding, which would borrow the argument, is refused at the pattern.
use ad_runtime::forward;

#[forward]
fn f(ref a: f64, (b, c): (f64, f64)) -> f64 {
    a * b * c
}

fn main() {}
