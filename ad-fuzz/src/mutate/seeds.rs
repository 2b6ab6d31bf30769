//! The valid functions the mutations start from, and the prelude they share.
//!
//! Together the seeds cover the constructs the guide's "What is supported" table lists, in
//! both modes and under `#[checkpoint]`, so a mutation lands near every path of the macros.
//! Every seed compiles unmutated (the campaign checks this before mutating).

/// Items the seeds use: derived types, annotated helpers they call, a data-only function and a
/// constant. Shared by every mutant of a batch and never mutated, so an error in it would be
/// nobody's.
pub const PRELUDE: &str = r#"use ad_runtime::{checkpoint, forward, reverse, Differentiable};

#[derive(Clone, Copy, Debug, Differentiable)]
struct Vec2 {
    x: f64,
    y: f64,
}

#[derive(Clone, Copy, Debug, Differentiable)]
struct Body {
    position: Vec2,
    mass: f64,
    #[no_grad]
    drag: f64,
    steps: usize,
}

#[derive(Clone, Debug, Differentiable)]
enum Shape {
    Circle(f64),
    Rect { w: f64, h: f64 },
}

#[derive(Clone, Debug, Differentiable)]
enum List {
    Nil,
    Cons(f64, Box<List>),
}

impl Vec2 {
    #[forward]
    #[reverse]
    fn norm(&self) -> f64 {
        (self.x * self.x + self.y * self.y).sqrt()
    }
}

const RATE: f64 = 0.25;

#[forward]
#[reverse]
fn square(x: f64) -> f64 {
    x * x
}

#[forward]
#[reverse]
fn norm2(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum()
}

#[checkpoint]
fn step(x: f64, y: f64) -> f64 {
    (x * y).sin() + x
}

fn doubled(n: usize) -> usize {
    2 * n
}
"#;

/// The seed functions, one item each.
pub const SEEDS: &[&str] = &[
    r#"#[forward]
#[reverse]
fn arithmetic(x: f64, y: f64) -> f64 {
    (x * y + x / (1.0 + y * y) - 3.0 * x) % 7.0 + -y
}"#,
    r#"#[forward]
#[reverse]
fn methods(x: f64, y: f64) -> f64 {
    x.sin() * y.cos() + x.exp().ln_1p() + (x * x + 1.0).sqrt() + x.powi(3) + y.abs().powf(2.5)
        + x.atan2(y) + x.hypot(y) + f64::tanh(x) + x.max(y).min(2.0) + x.mul_add(y, 1.0)
}"#,
    r#"#[forward]
fn shadowing(x: f64) -> f64 {
    let a = x * 2.0;
    let a = a + 1.0;
    let mut b: f64 = a;
    b *= a;
    b -= x;
    b /= 3.0;
    b += 1.0;
    b %= 5.0;
    let c: f64 = b;
    c
}"#,
    r#"#[reverse]
fn branches(x: f64, y: f64) -> f64 {
    let z = if x > y { x * y } else if x < 0.0 { -x } else { y.sin() };
    if z > 1.0 {
        return z.ln();
    }
    z * z
}"#,
    r#"#[forward]
#[reverse]
fn by_case(x: f64, k: i32) -> f64 {
    match k {
        0 => x,
        1 | 2 => x * x,
        3..=5 => x.sin(),
        n if n < 0 => -x,
        _ => x.exp(),
    }
}"#,
    r#"#[forward]
#[reverse]
fn position(k: f64, c: f64, steps: usize) -> f64 {
    let dt = 0.01;
    let (mut x, mut v) = (1.0, 0.0);
    for _ in 0..steps {
        let a = -k * x - c * v;
        v += a * dt;
        x += v * dt;
    }
    x
}"#,
    r#"#[reverse]
fn halving(x: f64, n: usize) -> f64 {
    let mut v = x;
    let mut i = 0;
    while i < n {
        v = v * 0.5 + x.sin();
        i += 1;
    }
    v
}"#,
    r#"#[forward]
#[reverse]
fn until(x: f64) -> f64 {
    let mut v = x;
    let mut k = 0;
    let r = loop {
        v = v.cos();
        k += 1;
        if k >= 10 {
            break v * x;
        }
    };
    r
}"#,
    r#"#[forward]
#[reverse]
fn labels(x: f64, n: usize) -> f64 {
    let mut total = 0.0;
    'outer: for i in 0..n {
        for j in (0..n).rev() {
            if j > i {
                continue 'outer;
            }
            if i + j > 7 {
                break 'outer;
            }
            total += x * (i as f64) - (j as f64);
        }
    }
    total
}"#,
    r#"#[reverse]
fn first_big(x: f64, n: usize) -> f64 {
    let mut acc = x;
    for i in (0..n).step_by(2) {
        acc = acc * 1.5 + i as f64;
        if acc > 100.0 {
            return acc.sqrt();
        }
    }
    acc
}"#,
    r#"#[forward]
#[reverse]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}"#,
    r#"#[forward]
#[reverse]
fn building(x: &[f64], n: usize) -> f64 {
    let mut v = vec![0.0; n];
    let mut w = Vec::new();
    for i in 0..n {
        v[i] = x[i % x.len()] * (i + 1) as f64;
        w.push(v[i].exp());
    }
    let listed = vec![x[0], 2.0 * x[1], 1.0];
    let copy = x.to_vec();
    v[0] += copy[0] * 3.0;
    v[1] = v[1] * v[1] + v[0];
    w[0] + listed[1] * listed[0] + v[n - 1]
}"#,
    r#"#[forward]
#[reverse]
fn owned(v: Vec<f64>, x: f64) -> f64 {
    let mut s = 0.0;
    for e in &v {
        s += *e * x;
    }
    for (i, e) in v.iter().enumerate() {
        s -= e.sin() * i as f64;
    }
    for &e in v.iter() {
        if e > 0.0 {
            s += e.exp();
        }
    }
    s
}"#,
    r#"#[forward]
#[reverse]
fn chains(a: &[f64], b: &[f64]) -> f64 {
    let s: f64 = a.iter().zip(b.iter()).map(|(p, q)| p * q).sum();
    let m = a.iter().fold(0.0, |acc, v| acc + v * v);
    let top = a.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let kept: f64 = b.iter().filter(|v| **v > 0.0).map(|v| v.sqrt()).sum();
    s + m + top + kept
}"#,
    r#"#[reverse]
fn collected(a: &[f64], x: f64) -> f64 {
    let scaled: Vec<f64> = a.iter().map(|v| v * x).collect();
    let p: f64 = scaled.iter().product();
    p + scaled[0]
}"#,
    r#"#[forward]
#[reverse]
fn closures(x: f64, y: f64, k: i32) -> f64 {
    let scale = |t: f64| t * y;
    let shift = |t: f64, u: f64| t + u * x;
    let power = |t: f64| t.powi(k);
    let a = x * 2.0;
    let late = move |t: f64| t + a * x;
    scale(x) + shift(y, 2.0) + power(x) + late(y)
}"#,
    r#"#[forward]
#[reverse]
fn tuples(x: f64, y: f64, p: (f64, f64)) -> f64 {
    let mut t = (x * y, x + y);
    t.1 *= y;
    let (a, b) = t;
    let (s, c) = x.sin_cos();
    a * b + t.0 + p.0 * p.1 + s * c
}"#,
    r#"#[reverse]
fn polar(r: f64, theta: f64) -> (f64, f64) {
    (r * theta.cos(), r * theta.sin())
}"#,
    r#"#[forward]
#[reverse]
fn squares(x: &[f64]) -> Vec<f64> {
    x.iter().map(|v| v * v).collect()
}"#,
    r#"#[forward]
#[reverse]
fn fixed(p: [f64; 3], x: f64) -> [f64; 2] {
    let a = [p[0] * x, p[1] + p[2]];
    let mut b = [0.0; 2];
    b[0] = a[1] * x;
    b[1] = a[0] - b[0];
    b
}"#,
    r#"#[forward]
#[reverse]
fn running_best(x: f64, y: f64, n: usize) -> f64 {
    let mut best: Option<f64> = None;
    for i in 0..n {
        let c = (x * i as f64).sin() + y * x;
        best = match best {
            Some(b) if b >= c => Some(b),
            _ => Some(c),
        };
    }
    let m = if x > 0.0 { Some(x * x) } else { None };
    let extra = if let Some(v) = m { v.sin() } else { y };
    best.unwrap_or(y) + m.unwrap_or_default() + extra
}"#,
    r#"#[forward]
#[reverse]
fn energy(#[grad] b: &Body, k: f64) -> f64 {
    let mut x = b.position.x;
    let mut v = b.position.y;
    for _ in 0..b.steps {
        v -= 0.1 * k * x / b.mass + b.drag * v;
        x += 0.1 * v;
    }
    0.5 * b.mass * v * v + k * x * x
}"#,
    r#"#[forward]
#[reverse]
fn rotate(#[grad] p: &Vec2, angle: f64) -> f64 {
    let (s, c) = angle.sin_cos();
    let q = Vec2 {
        x: c * p.x - s * p.y,
        y: s * p.x + c * p.y,
    };
    q.x * q.y + p.norm()
}"#,
    r#"#[forward]
#[reverse]
fn area(#[grad] s: &Shape, k: f64) -> f64 {
    match s {
        Shape::Circle(r) => 3.14 * r * r * k,
        Shape::Rect { w, h } if *w > 0.0 => w * h + k,
        Shape::Rect { w, .. } => w * k,
    }
}"#,
    r#"#[forward]
#[reverse]
fn list_product(#[grad] l: &List, x: f64) -> f64 {
    match l {
        List::Nil => x,
        List::Cons(head, tail) => *head * list_product(tail, x),
    }
}"#,
    r#"#[forward]
#[reverse]
fn calls(x: f64, v: &[f64], n: usize) -> f64 {
    let m = doubled(n) as f64;
    square(x) + norm2(v) * step(x, 2.0) + m * RATE
}"#,
    r#"#[forward]
#[reverse]
fn power(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * power(x, n - 1)
    }
}"#,
    r#"#[reverse]
fn regions(x: f64, y: f64) -> f64 {
    #[checkpoint]
    let a = x.sin() * y;
    let b = #[checkpoint]
    {
        let t = a * x;
        t.exp() + y
    };
    let mut c = a + b;
    #[checkpoint]
    {
        c = c * c + x;
    }
    #[checkpoint]
    for i in 0..3 {
        c = c.sin() + i as f64 * y;
    }
    c
}"#,
    r#"#[reverse]
fn taylor_every(x: f64, n: usize) -> f64 {
    let mut prev = 1.0;
    let mut acc = 1.0;
    #[checkpoint(every = 4)]
    for _ in 0..n {
        prev = prev * -(x - 1.0);
        acc = prev + acc;
    }
    acc
}"#,
    r#"#[forward]
#[reverse]
fn simulate(x0: f64, rate: f64, n: usize) -> f64 {
    let mut x = x0;
    #[checkpoint(binomial, snapshots = 8)]
    for _ in 0..n {
        x = step(x, rate);
    }
    let mut k = 0;
    #[checkpoint(every = 3)]
    while k < n {
        x = x * 0.5 + rate;
        k += 1;
    }
    x
}"#,
    r#"#[checkpoint]
fn cell(x: f64, y: f64) -> f64 {
    let t = x * y;
    t.sin() + x
}"#,
    r#"#[checkpoint]
fn descend(x: f64, n: usize) -> f64 {
    if n == 0 {
        x
    } else {
        descend(x.sin(), n - 1) * 1.1
    }
}"#,
    r#"#[forward]
#[reverse]
fn scaled(x: f64, #[no_grad] scale: f64, n: i32) -> f64 {
    scale * x.powi(n)
}"#,
    r#"#[forward]
fn springs(x: &[f64], #[no_grad] k: &[f64]) -> f64 {
    x.windows(2)
        .zip(k)
        .map(|(pair, k)| 0.5 * k * (pair[1] - pair[0]).powi(2))
        .sum()
}"#,
    r#"#[reverse]
fn gram(x: &[f64]) -> f64 {
    let n = x.len();
    let mut a = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            a[i][j] = x[i] * x[j];
        }
        a[i][i] += n as f64;
    }
    let mut total = 0.0;
    for i in 0..n {
        total += a[i][i].ln();
    }
    total
}"#,
    r#"#[forward]
#[reverse]
fn row_sums(m: &[Vec<f64>], w: f64) -> f64 {
    let mut s = 0.0;
    for row in m {
        for v in row {
            s += v * w;
        }
    }
    s + m[0][0]
}"#,
    r#"#[forward]
#[reverse]
fn single(x: f32, y: f32) -> f32 {
    (x * y).sin() + x.sqrt() * 2.0 + std::f32::consts::PI * y
}"#,
    r#"#[forward]
#[reverse]
fn constants(x: f64, n: usize) -> f64 {
    let k = n as f64;
    let i = x as i64;
    x * std::f64::consts::PI + k * f64::EPSILON + RATE * x + f64::from(3u8) + i as f64
}"#,
    r#"#[forward]
#[reverse]
fn with_items(x: f64) -> f64 {
    const K: f64 = 2.0;
    fn helper(n: usize) -> usize {
        n + 1
    }
    assert!(x.is_finite() || x.is_nan(), "x = {}", x);
    let m = helper(3) as f64;
    let _text = format!("{x}");
    x * K + m
}"#,
    r#"#[forward]
fn slope(x: f64) -> f64 {
    square_jvp(x, 1.0).1 + norm2_grad(&[x, 1.0]).1[0]
}"#,
];
