fn straight_line(x: f64, y: f64) -> f64 {
    let z = x * y;
    z.sin() + x / y
}
