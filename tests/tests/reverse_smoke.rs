use ad_runtime::reverse;

#[reverse]
fn straight(x: f64, y: f64) -> f64 {
    let a = x * y;
    let b = a.sin() + 3.0;
    b / (1.0 + x * x) - y
}

#[reverse]
fn taylor(x: f64, iters: usize) -> f64 {
    let mut prev = 1.0;
    let mut acc = 1.0;
    for _ in 0..iters {
        prev = prev * -(x - 1.0);
        acc = prev + acc;
    }
    acc
}

#[reverse]
fn branches(x: f64, y: f64) -> f64 {
    let mut s = x;
    if x > 1.0 {
        s *= y;
    } else if x > 0.0 {
        s = s.exp() - y;
    } else {
        s = -x * y * y;
    }
    let t = if s > 0.0 { s.sqrt() } else { s * 2.0 };
    t + s
}

#[reverse]
fn power(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * power(x, n - 1)
    }
}

#[reverse]
fn with_exits(x: f64) -> f64 {
    let mut y = x;
    let mut i = 0;
    let r = loop {
        i += 1;
        if i % 3 == 0 {
            continue;
        }
        y = y.sin() + x;
        if i > 10 {
            break y * 2.0;
        }
    };
    if r > 100.0 {
        return r;
    }
    r + 1.0
}

#[reverse]
fn matcher(x: f64, k: i32) -> f64 {
    match k {
        0 => x,
        1 | 2 => x * x,
        n if n < 0 => x.powi(-n),
        _ => 1.0 / x,
    }
}

fn fd(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

#[test]
fn smoke() {
    let (v, (gx, gy)) = straight_grad(0.5, 2.0);
    assert_eq!(v, straight(0.5, 2.0));
    assert!((gx - fd(|x| straight(x, 2.0), 0.5)).abs() < 1e-6, "{gx}");
    assert!((gy - fd(|y| straight(0.5, y), 2.0)).abs() < 1e-6, "{gy}");
    let (v, g) = taylor_grad(0.5, 100);
    assert_eq!(v, taylor(0.5, 100));
    assert!((g + 4.0).abs() < 1e-6, "{g}");
    for x in [2.0, 0.5, -0.5] {
        let (_, (gx, gy)) = branches_grad(x, 1.5);
        assert!((gx - fd(|x| branches(x, 1.5), x)).abs() < 1e-5, "{x} {gx}");
        assert!((gy - fd(|y| branches(x, y), 1.5)).abs() < 1e-5, "{x} {gy}");
    }
    let (_, g) = power_grad(1.3, 5);
    assert!((g - 5.0 * 1.3f64.powi(4)).abs() < 1e-9);
    let (_, g) = with_exits_grad(0.4);
    assert!((g - fd(with_exits, 0.4)).abs() < 1e-6, "{g}");
    for k in [-3, 0, 1, 2, 5] {
        let (_, g) = matcher_grad(0.7, k);
        assert!((g - fd(|x| matcher(x, k), 0.7)).abs() < 1e-6, "{k} {g}");
    }
}
