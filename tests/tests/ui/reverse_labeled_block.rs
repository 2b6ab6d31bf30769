use ad_runtime::reverse;

#[reverse]
fn f(x: f64) -> f64 {
    let y = 'done: {
        if x > 1.0 {
            break 'done x;
        }
        x * x
    };
    y
}

fn main() {}
