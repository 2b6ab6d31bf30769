use ad_runtime::forward;

#[forward]
fn f(x: f64, n: i32) -> f64 {
    let mut y = 1.0;
    for _ in 0..n {
        y *= x.sin();
    }
    y + std::f64::consts::PI * x + g(x, 2) + (n as f64) * helper(n) + (x as usize) as f64
}

#[forward]
fn g(x: f64, k: usize) -> f64 {
    if k == 0 {
        x
    } else {
        x * g(x, k - 1)
    }
}

fn helper(n: i32) -> f64 {
    n as f64 * 0.5
}

#[test]
fn smoke() {
    let (y, dy) = f_jvp(0.5, 3, 1.0);
    assert_eq!(y, f(0.5, 3));
    let h = 1e-6;
    let fd = (f(0.5 + h, 3) - f(0.5 - h, 3)) / (2.0 * h);
    assert!((dy - fd).abs() < 1e-6, "{dy} {fd}");
}
