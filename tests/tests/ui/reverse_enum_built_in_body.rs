use ad_runtime::reverse;

#[reverse]
fn enum_built_in_body(x: f64) -> f64 {
    let r = if x > 0.0 { Ok(x * x) } else { Err(()) };
    match r {
        Ok(v) => v,
        Err(()) => x,
    }
}

fn main() {}
