use ad_runtime::reverse;

#[reverse]
fn count_calls(mut f: impl FnMut(f64) -> f64, a: f64) -> f64 {
    f(a) + f(2.0 * a)
}

fn main() {}
