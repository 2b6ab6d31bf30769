use ad_runtime::reverse;

#[reverse]
fn sum(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for x in xs {
        s += *x;
    }
    s
}

fn main() {}
