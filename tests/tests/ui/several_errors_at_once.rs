use ad_runtime::forward;

#[forward]
fn f(x: f64, xs: &[f64]) -> f64 {
    let y = unsafe { x };
    let z = my_macro!(y);
    match z {
        1.5 => 0.0,
        _ => z,
    }
}

fn main() {}
