use ad_runtime::reverse;

#[reverse(order = 2)]
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
