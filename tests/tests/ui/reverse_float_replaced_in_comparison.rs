use ad_runtime::reverse;

#[reverse]
fn float_replaced_in_comparison(x: f64) -> f64 {
    let mut a = x * 2.0;
    if std::mem::replace(&mut a, x * x) > 1.0 {
        a += 1.0;
    }
    a * x
}

fn main() {}
