fn power(x: f64, n: usize) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * power(x, n - 1)
    }
}
