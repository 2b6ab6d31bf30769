use ad_runtime::reverse;

#[reverse]
fn option_parameter_grad(#[grad] o: Option<f64>, x: f64) -> f64 {
    o.unwrap_or(1.0) * x
}

fn main() {}
