use ad_runtime::reverse;

#[reverse]
fn rows_by_loop(rows: &[Vec<f64>]) -> f64 {
    let mut total = 0.0;
    for row in rows {
        total += row[0];
    }
    total
}

#[reverse]
fn row_by_name(rows: &[Vec<f64>]) -> f64 {
    let first = &rows[0];
    first[0] * 2.0
}


#[reverse]
fn inner(rows: &[Vec<f64>]) -> f64 {
    rows[0][0] * rows[1][0]
}

#[reverse]
fn passed_on_whole(rows: &[Vec<f64>]) -> f64 {
    inner(rows) * 2.0
}
fn main() {}
