use ad_runtime::reverse;

#[reverse]
fn option_taken(x: f64) -> f64 {
    let mut o = Some(x * x);
    let p = o.take();
    p.unwrap_or(x) + o.unwrap_or(x)
}

fn main() {}
