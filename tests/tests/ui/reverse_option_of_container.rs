use ad_runtime::reverse;

#[reverse]
fn option_of_container(x: f64) -> f64 {
    let o: Option<Vec<f64>> = Some(vec![x, x * x]);
    o.map_or(0.0, |v| v[0])
}

fn main() {}
