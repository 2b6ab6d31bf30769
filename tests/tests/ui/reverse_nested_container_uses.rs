use ad_runtime::reverse;

#[reverse]
fn copied(rows: &[Vec<f64>]) -> f64 {
    let owned = rows.to_vec();
    owned[0][0]
}

fn main() {}
