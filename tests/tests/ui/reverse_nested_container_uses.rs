use ad_runtime::reverse;

#[reverse]
fn written_element_by_element(rows: &[Vec<f64>], x: f64) -> f64 {
    let mut owned = rows.to_vec();
    owned[0][0] = x;
    owned[0][0] * owned[1][0]
}

fn main() {}
