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

fn main() {}
