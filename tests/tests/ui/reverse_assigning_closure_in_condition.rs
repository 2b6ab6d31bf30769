use ad_runtime::reverse;

#[reverse]
fn f(x: f64, y: f64) -> f64 {
    let mut s = x;
    let mut bump = |v: f64| {
        s += v;
        s
    };
    if bump(y) > 0.0 {
        s *= 2.0;
    }
    s
}

fn main() {}
