use ad_runtime::reverse;

enum Fit {
    Good(f64),
    Poor,
}

#[reverse]
fn enum_built_in_body(x: f64) -> f64 {
    let r = if x > 0.0 { Fit::Good(x * x) } else { Fit::Poor };
    match r {
        Fit::Good(v) => v,
        Fit::Poor => x,
    }
}

fn main() {}
