use ad_runtime::reverse;

#[reverse]
fn f(x: f64, n: usize) -> f64 {
    let mut y = x;
    #[checkpoint(every = 4)]
    for _ in 0..n {
        if y > 10.0 {
            return y;
        }
        y = y * 2.0;
    }
    y
}

fn main() {}
