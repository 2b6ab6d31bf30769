// A user trait's method named like a float method, called by its qualified path: not the
// float's own method, so reverse mode does not take it for one.
use ad_runtime::reverse;

trait Soft {
    fn sqrt(self) -> Self;
}

impl Soft for f64 {
    fn sqrt(self) -> f64 {
        (self * self + 1.0).sqrt()
    }
}

#[reverse]
fn f(x: f64) -> f64 {
    <f64 as Soft>::sqrt(x) * x
}

fn main() {}
