use ad_runtime::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let pair = x.sin_cos();
    pair.0 * pair.1
}

fn main() {}
