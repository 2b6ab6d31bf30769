use ad_runtime::reverse;

#[reverse]
fn sum(cubes: &[Vec<Vec<f64>>]) -> f64 {
    cubes[0][0][0]
}

fn main() {}
