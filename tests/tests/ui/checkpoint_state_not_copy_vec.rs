use ad_runtime::reverse;

#[reverse]
fn f(x: f64, n: usize) -> f64 {
    let mut y = x;
    let mut seen = Vec::new();
    #[checkpoint(every = 4)]
    for i in 0..n {
        seen.push(i);
        y = y * 1.5;
    }
    y + seen.len() as f64
}

fn main() {}
