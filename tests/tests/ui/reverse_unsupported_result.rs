use ad_runtime::reverse;

#[reverse]
fn nested(x: f64) -> Vec<Vec<f64>> {
    vec![vec![x]]
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
    let rows: Vec<Vec<f64>> = nested(x[0]);
    rows[0][0] + doubled(x)[0]
}
