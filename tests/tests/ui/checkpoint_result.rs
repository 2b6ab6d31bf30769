use ad_runtime::checkpoint;

#[checkpoint]
fn step(x: &[f64]) -> Result<f64, String> {
    if x.is_empty() {
        return Err("empty".into());
    }
    Ok(x[0].sin())
}

fn main() {}
