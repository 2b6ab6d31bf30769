use ad_runtime::reverse;

#[reverse]
fn option_map(x: f64) -> f64 {
    let o = if x > 0.0 { Some(x * x) } else { None };
    o.map(|v| v * 2.0).unwrap_or(x)
}

fn main() {}
