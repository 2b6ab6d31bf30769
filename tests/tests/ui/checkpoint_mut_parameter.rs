use ad_runtime::checkpoint;

#[checkpoint]
fn step(x: &mut [f64], dt: f64) {
    for v in x.iter_mut() {
        *v -= dt * v.sin();
    }
}

fn main() {}
