use ad_runtime::forward;

macro_rules! total {
    ($($e:expr),*) => {
        0.0 $(+ $e)*
    };
}

#[forward]
fn f(x: f64) -> f64 {
    total!(x, 2.0 * x)
}

#[forward]
fn g(x: f64) -> f64 {
    dbg!(x)
}

fn main() {}
