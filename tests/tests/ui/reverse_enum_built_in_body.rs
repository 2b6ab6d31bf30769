use ad_runtime::reverse;

#[reverse]
fn enum_built_in_body(x: f64) -> f64 {
    let r: Result<f64, ()> = Ok(x * x);
    match r {
        Ok(v) => v,
        Err(()) => x,
    }
}

fn main() {}
