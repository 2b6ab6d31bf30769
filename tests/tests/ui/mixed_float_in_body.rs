use ad_runtime::forward;

#[forward]
fn f(x: f64) -> f64 {
    let y: f32 = 2.0;
    x * y as f64
}

fn main() {}
