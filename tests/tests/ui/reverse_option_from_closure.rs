use ad_runtime::reverse;

#[reverse]
fn option_from_closure(x: f64) -> f64 {
    let f = |t: f64| if t > 0.0 { Some(t * t) } else { None };
    f(x).unwrap_or(x)
}

fn main() {}
