use ad_runtime::forward;

#[forward]
fn f(x: f64) -> f64 {
    #[checkpoint]
    let y = x.sin();
    y * x
}

fn main() {}
