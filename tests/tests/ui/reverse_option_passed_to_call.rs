use ad_runtime::reverse;

#[reverse]
fn scale(o: Option<f64>, x: f64) -> f64 {
    o.unwrap_or(1.0) * x
}

#[reverse]
fn option_passed_to_call(x: f64) -> f64 {
    let o = if x > 0.0 { Some(x * x) } else { None };
    scale(o, x)
}

fn main() {}
