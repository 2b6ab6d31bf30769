use ad_runtime::reverse;

fn lookup(x: f64) -> Option<f64> {
    if x > 0.0 {
        Some(x)
    } else {
        None
    }
}

#[reverse]
fn option_from_call(x: f64) -> f64 {
    let o: Option<f64> = lookup(x);
    o.unwrap_or(1.0) * x
}

fn main() {}
