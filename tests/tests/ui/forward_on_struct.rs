use ad_runtime::forward;

#[forward]
struct Point {
    x: f64,
}

fn main() {}
