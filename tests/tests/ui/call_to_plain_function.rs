use ad_runtime::forward;

fn square(x: f64) -> f64 {
    x * x
}

#[forward]
fn f(x: f64) -> f64 {
    square(x) + 1.0
}

fn main() {}
