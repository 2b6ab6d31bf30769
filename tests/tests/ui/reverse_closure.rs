use ad_runtime::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let scale = |t: f64| t * 2.0;
    scale(x)
}

fn main() {}
