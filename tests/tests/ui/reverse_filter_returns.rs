use ad_runtime::reverse;

#[reverse]
fn f(x: &[f64], t: f64) -> f64 {
    x.iter()
        .filter(|w| {
            if **w > 1.0 {
                return false;
            }
            **w > t
        })
        .map(|v| v * t)
        .sum()
}

fn main() {}
