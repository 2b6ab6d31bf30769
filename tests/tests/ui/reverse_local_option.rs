use ad_runtime::reverse;

#[reverse]
fn local_option(x: f64) -> f64 {
    let m = if x > 0.0 { Some(x * x) } else { None };
    m.unwrap_or(x)
}

fn main() {}
