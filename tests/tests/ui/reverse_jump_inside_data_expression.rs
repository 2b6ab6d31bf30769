// A `continue` inside an expression computed as data (`k = match i { 2 => continue, _ => 1 };`)
// gave a wrong derivative: the previous engine ran the expression as written, and the backward
// sweep ran the skipped iteration's rest back as if it had run (found by a helper's probe).
// Neither engine takes it now.
use ad_runtime::reverse;

#[reverse]
fn skip_second_step(x: &[f64]) -> f64 {
    let mut e = 0.0;
    let mut last = x[0];
    let mut k: i32;
    for i in 1..x.len() {
        let d = x[i] - last;
        last = x[i];
        k = match i {
            2 => continue,
            _ => 1,
        };
        e += d * d * k as f64;
    }
    e
}

#[reverse]
fn skip_second_step_if(x: &[f64]) -> f64 {
    let mut e = 0.0;
    let mut last = x[0];
    let mut k: i32;
    for i in 1..x.len() {
        let d = x[i] - last;
        last = x[i];
        k = if i == 2 { continue } else { 1 };
        e += d * d * k as f64;
    }
    e
}

fn main() {}
