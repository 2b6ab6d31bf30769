use ad_runtime::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let mut values = Vec::new();
    values.push(x);
    values[0] * 2.0
}

fn main() {}
