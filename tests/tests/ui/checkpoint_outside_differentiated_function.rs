fn f(x: f64) -> f64 {
    #[ad_runtime::checkpoint]
    let y = x.sin();
    y
}

fn main() {}
