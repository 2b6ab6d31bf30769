// Stacked the other way round: reverse mode refuses the function that passes its `&mut`
// parameter on, with one message at the call; the forward part is emitted (main compiles
// against it), and `rhs`, which reverse mode takes, has its `_vjp`.
use ad_runtime::{forward, reverse};

#[reverse]
#[forward]
fn rhs(y: &[f64], k: f64, dydt: &mut [f64]) {
    dydt[0] = y[1];
    dydt[1] = -k * y[0];
}

#[reverse]
#[forward]
fn euler(y: &mut [f64], k: f64, dt: f64) {
    let mut slope = vec![0.0; 2];
    rhs(y, k, &mut slope);
    for i in 0..2 {
        y[i] += dt * slope[i];
    }
}

fn main() {
    let (mut dydt, mut d_dydt) = ([0.0; 2], [0.0; 2]);
    rhs_jvp(&[1.0, 0.0], 4.0, &mut dydt, &[1.0, 0.0], 0.0, &mut d_dydt);
    let (mut y, mut dy) = (vec![1.0, 0.0], vec![1.0, 0.0]);
    euler_jvp(&mut y, 4.0, 0.1, &mut dy, 0.0, 0.0);
    let (dy, dk) = rhs_vjp(&[1.0, 0.0], 4.0, &mut dydt, &mut d_dydt);
    let _: (Vec<f64>, f64) = (dy, dk);
}
