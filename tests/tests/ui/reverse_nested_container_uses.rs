use ad_runtime::reverse;

#[reverse]
fn row_reduced(rows: &[Vec<f64>]) -> f64 {
    rows[0].iter().map(|v| v * v).sum::<f64>()
}

#[reverse]
fn copied(rows: &[Vec<f64>]) -> f64 {
    let owned = rows.to_vec();
    owned[0][0]
}

fn main() {}
