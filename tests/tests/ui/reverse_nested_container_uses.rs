use ad_runtime::reverse;

#[reverse]
fn row_replaced(rows: &[Vec<f64>], x: f64) -> f64 {
    let mut owned = rows.to_vec();
    owned[0] = vec![x, x];
    owned[0][0] * owned[1][0]
}

#[reverse]
fn row_pushed_onto_a_copy(rows: &[Vec<f64>], x: f64) -> f64 {
    let mut owned = rows.to_vec();
    owned.push(vec![x]);
    owned[0][0]
}

#[reverse]
fn row_written_through_a_shared_row(rows: &[Vec<f64>], x: f64) -> f64 {
    let row = &rows[0];
    row[0] = x;
    row[0]
}

#[reverse]
fn container_pushed_onto_a_flat_vec(x: f64, v: Vec<f64>) -> f64 {
    let mut rows = Vec::new();
    rows.push(v);
    rows.len() as f64 * x
}

fn main() {}

#[reverse]
fn matrix_moved(x: f64) -> f64 {
    let m = vec![vec![x; 2]; 2];
    let n = m;
    n[0][0]
}
