use ad_runtime::reverse;

// A tuple mixing an integer and floats (Welford's aggregate): forward mode takes it, reverse
// mode says so at the type.
#[reverse]
fn variance(aggregate: (usize, f64, f64)) -> f64 {
    let (count, _, m2) = aggregate;
    m2 / (count - 1) as f64
}

fn main() {}
