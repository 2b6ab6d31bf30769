use ad_runtime::reverse;

#[reverse]
fn f(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    #[checkpoint(every = 4)]
    for i in 0..n {
        s += x[i % x.len()];
    }
    s
}

fn main() {}
