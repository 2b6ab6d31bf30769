use ad_runtime::reverse;

fn use_count(n: usize) -> usize {
    n
}

#[reverse]
fn f(x: f64) -> f64 {
    let mut s = x;
    let n = use_count({
        s *= 2.0;
        3
    });
    s * n as f64
}

fn main() {}
