use ad_runtime::reverse;

#[reverse]
#[reverse]
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
