use ad_runtime::reverse;

#[reverse]
fn f(x: f64, y: f64) -> f64 {
    let pair = |t: f64| {
        let w = vec![y, t];
        w[0] * w[1]
    };
    let y = 10.0 * x;
    pair(x) + y
}

fn main() {}
