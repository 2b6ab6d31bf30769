use ad_runtime::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    #[checkpoint(every = 10)]
    let y = x.sin();
    y * x
}

fn main() {}
