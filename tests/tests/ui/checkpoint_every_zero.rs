use ad_runtime::reverse;

#[reverse]
fn f(x: f64, n: usize) -> f64 {
    let mut y = x;
    #[checkpoint(every = 0)]
    for _ in 0..n {
        y = y.sin();
    }
    y
}

fn main() {}
