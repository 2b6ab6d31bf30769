use ad_runtime::reverse;

#[reverse]
fn option_matched_by_reference(x: f64) -> f64 {
    let o = Some(x * x);
    match &o {
        Some(v) => v * x,
        None => x,
    }
}

fn main() {}
