use ad_runtime::checkpoint;

pub struct Model {
    pub rate: f64,
}

#[checkpoint]
fn step(y: f64, model: &Model) -> f64 {
    (model.rate * y).sin()
}

fn main() {
    let _ = step_grad(1.0, &Model { rate: 0.5 });
}
