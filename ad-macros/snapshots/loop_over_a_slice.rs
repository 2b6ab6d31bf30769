fn weighted(w: &[f64], #[no_grad] scale: f64) -> f64 {
    let mut total = 0.0;
    for i in 0..w.len() {
        let v = w[i];
        if v > 0.0 {
            total += scale * v * v.cos();
        } else {
            total -= v;
        }
    }
    total
}
