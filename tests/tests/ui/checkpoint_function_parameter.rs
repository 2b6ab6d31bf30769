use ad_runtime::checkpoint;

#[checkpoint]
fn integrate(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    (f(a) + f(b)) * 0.5 * (b - a)
}

fn main() {}
