use ad_runtime::forward;

#[forward]
fn f((a, b): (f64, f64)) -> f64 {
    a * b
}

fn main() {}
