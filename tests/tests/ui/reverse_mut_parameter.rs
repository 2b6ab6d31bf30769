// A differentiated function that writes values carrying derivatives through a `&mut` argument
// is not followed yet in reverse mode: one message, at the call (the callee alone is taken).
use ad_runtime::reverse;

#[reverse]
fn square_into(x: f64, y: &mut f64) {
    *y = x * x;
}

#[reverse]
fn via_out(x: f64) -> f64 {
    let mut y = 0.0;
    square_into(x, &mut y);
    y
}

fn main() {
    let (mut y, mut d_y) = (0.0, 1.0);
    let _: f64 = square_into_vjp(3.0, &mut y, &mut d_y);
    let _ = via_out_grad(3.0);
}
