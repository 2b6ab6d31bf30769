use ad_runtime::forward;

#[forward]
fn round_down(x: f64) -> i64 {
    x as i64
}

fn main() {}
