use ad_runtime::reverse;

#[reverse]
fn first_or_zero(x: &[f64]) -> f64 {
    let Some(first): Option<&f64> = x.first() else {
        return 0.0;
    };
    first * 2.0
}

fn main() {}
