use ad_runtime::reverse;

#[reverse]
fn option_while_let(x: f64) -> f64 {
    let mut o = Some(x);
    let mut s = 0.0;
    while let Some(v) = o {
        s += v;
        o = if v > 10.0 { None } else { Some(v * 2.0) };
    }
    s
}

fn main() {}
