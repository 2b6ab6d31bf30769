use ad_runtime::forward;

#[forward]
fn scale(x: f64, #[no_grad] out: &mut [f64]) {
    for v in out.iter_mut() {
        *v *= x;
    }
}

fn main() {}
