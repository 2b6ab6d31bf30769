use ad_runtime::reverse;

#[reverse]
fn nested(x: f64) -> Vec<Vec<f64>> {
    vec![vec![x]]
}

#[reverse]
fn tuple_not_written_out(x: f64) -> (f64, f64) {
    let pair = (x, x * x);
    pair
}

#[reverse]
fn container_not_in_a_variable(x: f64) -> Vec<f64> {
    vec![x, 2.0 * x]
}

fn main() {}
