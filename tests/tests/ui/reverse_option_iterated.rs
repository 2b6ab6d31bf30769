use ad_runtime::reverse;

#[reverse]
fn option_iterated(x: f64) -> f64 {
    let o = Some(x * x);
    let mut s = 0.0;
    for v in o {
        s += v;
    }
    s
}

fn main() {}
