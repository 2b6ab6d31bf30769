use ad_runtime::reverse;

#[reverse]
fn option_pattern(x: f64) -> f64 {
    let o = if x > 0.0 { Some(x * x) } else { None };
    match o {
        Some(ref v) => *v * x,
        None => x,
    }
}

fn main() {}
