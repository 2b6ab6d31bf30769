use ad_runtime::rule;

fn d_dx(x: f64, _: f64) -> f64 {
    x
}

// One partial derivative for two parameters.
#[rule(derivative = d_dx)]
fn two(x: f64, y: f64) -> f64 {
    x * y
}

// A parameter that is not a float of the result's type.
#[rule(derivative = d_dx)]
fn counted(x: f64, n: usize) -> f64 {
    x * n as f64
}

fn main() {}
