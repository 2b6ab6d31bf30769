use ad_runtime::forward;

#[forward]
fn f(x: f64) -> f64 {
    let _future = async { 1 };
    x
}

fn main() {}
