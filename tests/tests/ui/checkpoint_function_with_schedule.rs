use ad_runtime::checkpoint;

#[checkpoint(every = 4)]
fn f(x: f64) -> f64 {
    x.sin()
}

fn main() {}
