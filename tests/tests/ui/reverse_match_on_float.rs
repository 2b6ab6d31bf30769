use ad_runtime::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    match x * 2.0 {
        y => y.sin(),
    }
}

fn main() {}
