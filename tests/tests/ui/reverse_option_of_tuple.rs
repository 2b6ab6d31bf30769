use ad_runtime::reverse;

#[reverse]
fn option_of_tuple(x: f64) -> f64 {
    let t = (x, x * x);
    let o = Some(t);
    match o {
        Some((a, b)) => a * b,
        None => x,
    }
}

fn main() {}
