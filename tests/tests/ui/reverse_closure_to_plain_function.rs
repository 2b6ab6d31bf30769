use ad_runtime::reverse;

fn trapezoid<F: Fn(f64) -> f64>(f: F, a: f64, b: f64) -> f64 {
    0.5 * (f(a) + f(b)) * (b - a)
}

#[reverse]
fn energy(k: f64) -> f64 {
    trapezoid(|t| (k * t).sin(), 0.0, 1.0)
}

fn main() {}
