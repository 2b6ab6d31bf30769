use ad_runtime::forward;

macro_rules! double {
    ($e:expr) => {
        2.0 * $e
    };
}

#[forward]
fn f(x: f64) -> f64 {
    double!(x)
}

fn main() {}
