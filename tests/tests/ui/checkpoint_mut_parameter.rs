use ad_runtime::{checkpoint, reverse};

#[checkpoint]
fn step(x: &mut [f64], dt: f64) {
    for v in x.iter_mut() {
        *v -= dt * v.sin();
    }
}

// A caller in reverse mode gets no second error: the refused function keeps its companions.
#[reverse]
fn integrate(x0: &[f64], dt: f64) -> f64 {
    let mut x = x0.to_vec();
    for _ in 0..10 {
        step(&mut x, dt);
    }
    x.iter().sum()
}

fn main() {}
