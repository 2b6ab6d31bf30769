use ad_runtime::reverse;

#[reverse]
fn option_pair_matched(x: f64, y: f64) -> f64 {
    let a = if x > 0.0 { Some(x * y) } else { None };
    let b = if y > 0.0 { Some(y * y) } else { None };
    match (a, b) {
        (Some(u), Some(v)) => u * v,
        _ => x,
    }
}

fn main() {}
