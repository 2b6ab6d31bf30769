use ad_runtime::reverse;

#[reverse]
fn swapped(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.swap(0, 1);
    v[0] * 2.0
}

#[reverse]
fn rows_reversed(x: &[f64]) -> f64 {
    let mut m = vec![vec![x[0]; 2], vec![x[1]; 2]];
    m.reverse();
    m[0][0]
}

fn main() {}
