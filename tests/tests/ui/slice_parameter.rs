use ad_runtime::reverse;

#[reverse]
fn sum(rows: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for row in rows {
        s += row[0];
    }
    s
}

fn main() {}
