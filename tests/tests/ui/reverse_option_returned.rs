use ad_runtime::reverse;

#[reverse]
fn option_returned(x: f64) -> Option<f64> {
    if x > 0.0 {
        Some(x * x)
    } else {
        None
    }
}

fn main() {}
