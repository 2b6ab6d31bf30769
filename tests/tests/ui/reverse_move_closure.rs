use ad_runtime::reverse;

#[reverse]
fn counts(x: f64) -> f64 {
    let mut total = 0.0;
    let mut add = move |t: f64| {
        total += t;
        total
    };
    add(x) + add(x)
}

#[reverse]
fn captures_a_vector(x: &[f64]) -> f64 {
    let v = x.to_vec();
    let first = move |t: f64| t * v[0];
    first(x[1])
}

fn main() {}
