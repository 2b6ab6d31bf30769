// `Option<f64>` results are taken; an option of a container is not yet in reverse mode.
use ad_runtime::reverse;

#[reverse]
fn option_returned(x: f64) -> Option<Vec<f64>> {
    if x > 0.0 {
        Some(vec![x * x])
    } else {
        None
    }
}

fn main() {}
