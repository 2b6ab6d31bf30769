use ad_runtime::reverse;

#[reverse]
fn option_pushed(x: f64) -> f64 {
    let o = Some(x * x);
    let mut v = Vec::new();
    v.push(o);
    v[0].unwrap_or(x)
}

fn main() {}
