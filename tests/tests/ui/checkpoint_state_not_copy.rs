use ad_runtime::reverse;

#[reverse]
fn f(x: f64, weights: &[usize]) -> f64 {
    let mut y = x;
    #[checkpoint(every = 4)]
    for i in 0..weights.len() {
        y = y * weights[i] as f64;
    }
    y
}

fn main() {}
