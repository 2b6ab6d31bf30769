use ad_runtime::reverse;

#[reverse]
fn accumulate(x: f64, total: &mut f64) -> f64 {
    *total += x * x;
    x
}

fn main() {}
