use ad_runtime::reverse;

#[reverse]
fn runs_of_increase(x: &[f64]) -> f64 {
    let mut items = x.iter().peekable();
    let mut sum = 0.0;
    while let Some(v) = items.next() {
        if let Some(&&next) = items.peek() {
            sum += (next - v).max(0.0);
        }
    }
    sum
}

// The iterator walks the first `x` to its end; a position read from `x` after `x` names another
// slice would not.
#[reverse]
fn shadowed_container(x: &[f64], y: &[f64]) -> f64 {
    let mut it = x.iter();
    let a = *it.next().unwrap();
    let x = y;
    let b = *it.next().unwrap();
    a * b * x[0]
}

fn main() {}
