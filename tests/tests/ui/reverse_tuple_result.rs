use ad_runtime::reverse;

#[reverse]
fn f(x: f64) -> (f64, f64) {
    (x, x * x)
}

fn main() {}
