use ad_runtime::reverse;

#[reverse]
fn grid(x: f64) -> [[f64; 2]; 2] {
    [[x, x], [x, x]]
}

#[reverse]
fn tuple_from_a_method(x: f64) -> (f64, f64) {
    x.sin_cos()
}

fn main() {}

#[reverse]
fn doubled(x: &[f64]) -> Vec<f64> {
    x.iter().map(|v| 2.0 * v).collect()
}

#[reverse]
fn rows_from_a_call(x: &[f64]) -> f64 {
    let rows: [[f64; 2]; 2] = grid(x[0]);
    rows[0][0] + doubled(x)[0]
}
