use ad_runtime::reverse;

#[reverse]
fn option_changed_in_expression(x: f64) -> f64 {
    let mut o = Some(x);
    if o.replace(x * x).is_some() {
        return o.unwrap_or(0.0);
    }
    x
}

fn main() {}
