use ad_runtime::forward;

#[forward]
fn f<T: Copy>(x: f64, _tag: T) -> f64 {
    x * x
}

fn main() {}
