use ad_runtime::forward;

#[forward]
fn f(x: f64) -> f64 {
    unsafe { x }
}

fn main() {
    // Only the error above is reported: f_jvp still exists with its real signature.
    let (_value, _tangent): (f64, f64) = f_jvp(1.0, 1.0);
}
