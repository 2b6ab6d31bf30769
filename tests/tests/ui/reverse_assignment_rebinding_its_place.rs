// A compound assignment whose value leaves early, written where each value is made: a name
// of the assigned place bound inside the value would be another variable there.
use ad_runtime::reverse;

#[reverse]
fn f(x: &[f64]) -> f64 {
    let mut acc = vec![0.0; 2];
    for k in 0..2 {
        acc[k] += match k {
            0 => {
                let k = 1;
                if x[k] > 100.0 {
                    break;
                }
                x[0] * x[k]
            }
            _ => x[1],
        };
    }
    acc[0] + 10.0 * acc[1]
}

fn main() {}
