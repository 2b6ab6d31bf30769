// Sub-slices (`&x[a..b]`) of floats: the IR engine leaves them to the previous engine, whose
// message says what to write instead (the IR engine's code once failed to compile here, found
// by a helper's probe).
use ad_runtime::reverse;

#[reverse]
fn inner_sum(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x {
        s += v * v;
    }
    s
}

#[reverse]
fn tail(x: &[f64]) -> f64 {
    inner_sum(&x[1..]) * x[0]
}

#[reverse]
fn middle(x: &[f64], #[no_grad] data: &[f64], burn_in: usize) -> f64 {
    let kept = &data[burn_in..];
    x[0] * kept[0] + inner_sum(&x[1..x.len() - 1])
}

fn main() {}
