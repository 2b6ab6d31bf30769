use ad_runtime::reverse;

#[reverse]
fn f(x: f64, n: usize) -> f64 {
    let enough = |k: usize| k > n;
    let mut total = x;
    for k in 0..4 {
        let done = enough(k);
        if done {
            total *= x;
        }
    }
    total
}

fn main() {}
