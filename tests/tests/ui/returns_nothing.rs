use ad_runtime::forward;

#[forward]
fn show(x: f64) {
    println!("{x}");
}

fn main() {}
