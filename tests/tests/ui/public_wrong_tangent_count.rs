use ad_runtime::forward;

#[forward]
fn area(width: f64, height: f64) -> f64 {
    width * height
}

fn main() {
    // One tangent per float parameter: two are needed.
    let _ = area_jvp(2.0, 3.0, 1.0);
}
