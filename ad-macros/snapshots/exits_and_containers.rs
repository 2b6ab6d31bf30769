fn first_large(x: &[f64], limit: f64) -> f64 {
    let mut kept = Vec::new();
    for i in 0..x.len() {
        if x[i] < 0.0 {
            continue;
        }
        kept.push(x[i] * limit);
        if x[i] > limit {
            break;
        }
    }
    let mut total = 0.0;
    let mut k = 0;
    while k < kept.len() {
        total += kept[k].sqrt();
        k += 1;
    }
    total
}
