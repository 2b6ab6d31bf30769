// A `let` whose value leaves early on some paths holds a stand-in on those paths, which a
// derived type has none of: one message on the `let`.
use ad_runtime::{reverse, Differentiable};

#[derive(Clone, Copy, Differentiable)]
pub struct P {
    pub x: f64,
    pub y: f64,
}

#[reverse]
fn f(#[grad] q: &P, a: f64) -> f64 {
    let p: P = match a > 0.0 {
        true => {
            if a > 1.0 {
                return a;
            }
            P { x: a * q.x, y: 2.0 * a }
        }
        false => *q,
    };
    p.x * p.y
}

fn main() {}
