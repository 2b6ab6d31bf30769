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

fn main() {}
