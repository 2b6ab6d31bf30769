use ad_runtime::forward;

#[forward]
fn f(x: f64) -> f64 {
    x * const { 2.0 }
}

fn main() {}
