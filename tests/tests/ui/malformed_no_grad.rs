use ad_runtime::forward;

#[forward]
fn f(x: f64, #[no_grad(always)] c: f64) -> f64 {
    x * c
}

fn main() {}
