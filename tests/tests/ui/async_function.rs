use ad_runtime::forward;

#[forward]
async fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
