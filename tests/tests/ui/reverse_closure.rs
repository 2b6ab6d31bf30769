use ad_runtime::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let scale = move |t: f64| t * 2.0;
    let shift = |t, u: f64| t + u;
    let early = |t: f64| {
        if t > 0.0 {
            return t;
        }
        -t
    };
    scale(x) + shift(x, x) + early(x)
}

fn main() {}

#[reverse]
fn g(x: f64) -> f64 {
    (|t: f64| t * t)(x)
}
