//! Numerical code as people write it, annotated as written: integrators with closures,
//! statistics over iterator chains, a small network, Horner, Newton, Cholesky by hand, an
//! n-body simulation over a derived `Vec3` with operators, methods stepping a state in place,
//! generic helpers, `&mut` right-hand sides, `let ... else`, pairs of optional elements, an
//! option price through a normal CDF, a Kalman filter's likelihood over fixed-size arrays,
//! bilinear interpolation, the shoelace area, indices sorted by the values they pick, a network
//! of derived layers holding `Vec<Vec<f64>>`, an FIR filter, Simpson's rule, interpolation by
//! `partition_point`, Adam steps, a matrix product called from another function, nalgebra
//! least squares and torques, an ODE system's method called on a data parameter (`sys.rhs(&y,
//! &mut dy)` of a `#[forward] #[reverse] impl System for Decay`), recursion, a tuple struct
//! with `Add`, `AddAssign` and `Mul` (`p += step * k`), `scan` and `take_while`, a `loop`
//! breaking with its value, `?` on options, LU with row swaps, labeled loops, a struct
//! update (`Params { a: e, ..p.clone() }`), `Result`s with `?`, `rev().enumerate()`,
//! `total_cmp`, `skip_while`, `chunks_exact_mut`, `retain`. Each
//! function is checked three ways at random points (`common::check_gradient`: the value bit for
//! bit, reverse mode against forward mode along every basis direction, forward mode against
//! central differences, and the dot-product identity); functions of user types against central
//! differences float by float.

// Written as their authors write them: index loops, explicit folds, `return` at the end of a
// branch.
#![allow(
    clippy::needless_range_loop,
    clippy::manual_memcpy,
    clippy::needless_return,
    clippy::unnecessary_fold,
    clippy::redundant_closure,
    clippy::let_and_return,
    clippy::iter_cloned_collect
)]

mod common;

use ad_runtime::{forward, reverse};
use common::check_gradient as check;

const GRAVITY: f64 = 9.81;

// 1. RK4 with a closure capturing parameters, tuple returns.
#[forward]
#[reverse]
fn rk4_pendulum(p: &[f64], steps: usize) -> f64 {
    let (g, l, dt) = (p[0].abs() + 1.0, p[1].abs() + 0.5, 0.01);
    let f = |th: f64, om: f64| (om, -(g / l) * th.sin());
    let (mut th, mut om) = (p[2], p[3]);
    for _ in 0..steps {
        let (k1a, k1b) = f(th, om);
        let (k2a, k2b) = f(th + 0.5 * dt * k1a, om + 0.5 * dt * k1b);
        let (k3a, k3b) = f(th + 0.5 * dt * k2a, om + 0.5 * dt * k2b);
        let (k4a, k4b) = f(th + dt * k3a, om + dt * k3b);
        th += dt / 6.0 * (k1a + 2.0 * k2a + 2.0 * k3a + k4a);
        om += dt / 6.0 * (k1b + 2.0 * k2b + 2.0 * k3b + k4b);
    }
    th
}

// 2. Logistic regression NLL with iterator chains over rows.
#[forward]
#[reverse]
fn logistic_nll(w: &[f64], #[no_grad] xs: &[Vec<f64>], #[no_grad] ys: &[f64]) -> f64 {
    xs.iter()
        .zip(ys)
        .map(|(x, &y)| {
            let z: f64 = w.iter().zip(x).map(|(wi, xi)| wi * xi).sum();
            let p = 1.0 / (1.0 + (-z).exp());
            -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
        })
        .sum::<f64>()
        / ys.len() as f64
}

// 3. Softmax cross-entropy with max subtraction.
#[forward]
#[reverse]
fn softmax_xent(logits: &[f64], label: usize) -> f64 {
    let m = logits.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let lse = logits.iter().map(|&z| (z - m).exp()).sum::<f64>().ln() + m;
    lse - logits[label]
}

// 4. Small MLP with nested Vec weights.
#[forward]
#[reverse]
fn mlp(p: &[f64], #[no_grad] x: &[f64]) -> f64 {
    let hidden = 3;
    let n = x.len();
    let mut h = vec![0.0; hidden];
    for j in 0..hidden {
        let mut acc = p[j * (n + 1) + n];
        for i in 0..n {
            acc += p[j * (n + 1) + i] * x[i];
        }
        h[j] = acc.tanh();
    }
    let off = hidden * (n + 1);
    let mut out = p[off + hidden];
    for j in 0..hidden {
        out += p[off + j] * h[j];
    }
    out
}

// 6. Horner by rev().fold.
#[forward]
#[reverse]
fn horner(c: &[f64], #[no_grad] x: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &ci| acc * x + ci)
}

// 7. Newton iteration for sqrt with a cap.
#[forward]
#[reverse]
fn newton_sqrt(a: f64) -> f64 {
    let a = a.abs() + 1.0;
    let mut x = a;
    let mut k = 0;
    while (x * x - a).abs() > 1e-14 * a && k < 50 {
        x = 0.5 * (x + a / x);
        k += 1;
    }
    x
}

// 8. Mean and sample variance.
#[forward]
#[reverse]
fn sample_variance(x: &[f64]) -> f64 {
    let n = x.len();
    let mean = x.iter().sum::<f64>() / n as f64;
    x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64
}

// 10. Early return and loop-break-value.
#[forward]
#[reverse]
fn first_crossing(x: &[f64], #[no_grad] level: f64) -> f64 {
    let mut acc = 0.0;
    for (i, &v) in x.iter().enumerate() {
        acc += v * v;
        if acc > level {
            return acc / (i + 1) as f64;
        }
    }
    let r = loop {
        acc *= 0.5;
        if acc < 1.0 {
            break acc + 1.0;
        }
    };
    r
}

// 11. Gaussian log-likelihood with consts.
#[forward]
#[reverse]
fn gauss_ll(p: &[f64], #[no_grad] data: &[f64]) -> f64 {
    let mu = p[0];
    let sigma = p[1].abs().max(1e-6) + 0.1;
    let n = data.len() as f64;
    let ss: f64 = data.iter().map(|&d| (d - mu) * (d - mu)).sum();
    -0.5 * n * (2.0 * std::f64::consts::PI).ln() - n * sigma.ln() - ss / (2.0 * sigma * sigma)
}

// 12. Cross product with arrays.
#[forward]
#[reverse]
fn cross_norm(a: [f64; 3], b: [f64; 3]) -> f64 {
    let mut c = [0.0; 3];
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
    (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt()
}

// 14. windows and chunks.
#[forward]
#[reverse]
fn total_variation(x: &[f64]) -> f64 {
    let tv: f64 = x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum();
    let pairs: f64 = x.chunks(2).map(|c| c.iter().product::<f64>()).sum();
    tv + 0.1 * pairs
}

// 16. Vec built by push, consts, casts.
#[forward]
#[reverse]
fn projectile(p: &[f64], n: usize) -> f64 {
    let (v0, angle) = (p[0], p[1]);
    let h = 0.1;
    let mut heights = Vec::with_capacity(n);
    for i in 0..n {
        let t = i as f64 * h;
        heights.push(v0 * angle.sin() * t - 0.5 * GRAVITY * t * t);
    }
    heights.iter().map(|y| y * y).sum::<f64>().sqrt()
}

// 20. Trapezoid integration of a closure.
#[forward]
#[reverse]
fn trapezoid(p: &[f64], n: usize) -> f64 {
    let (a, b) = (p[0], p[1]);
    let f = |t: f64| (a * t).sin() * (-b * t * t).exp();
    let h = 1.0 / n as f64;
    let mut s = 0.5 * (f(0.0) + f(1.0));
    for i in 1..n {
        s += f(i as f64 * h);
    }
    s * h
}

#[test]
fn integrators_statistics_and_networks() {
    check(
        4,
        |p| rk4_pendulum(p, 20),
        |p, d| rk4_pendulum_jvp(p, 20, d),
        |p, c| rk4_pendulum_vjp(p, 20, c),
    );
    let xs = vec![
        vec![1.0, 0.5, -0.2],
        vec![0.3, -1.0, 0.8],
        vec![-0.7, 0.2, 0.1],
    ];
    let ys = [1.0, 0.0, 1.0];
    check(
        3,
        |w| logistic_nll(w, &xs, &ys),
        |w, d| logistic_nll_jvp(w, &xs, &ys, d),
        |w, c| logistic_nll_vjp(w, &xs, &ys, c),
    );
    check(
        4,
        |z| softmax_xent(z, 2),
        |z, d| softmax_xent_jvp(z, 2, d),
        |z, c| softmax_xent_vjp(z, 2, c),
    );
    let x = [0.3, -0.8];
    check(
        13,
        |p| mlp(p, &x),
        |p, d| mlp_jvp(p, &x, d),
        |p, c| mlp_vjp(p, &x, c),
    );
    check(
        4,
        |c| horner(c, 0.7),
        |c, d| horner_jvp(c, 0.7, d),
        |c, ct| horner_vjp(c, 0.7, ct),
    );
    check(
        1,
        |a| newton_sqrt(a[0]),
        |a, d| newton_sqrt_jvp(a[0], d[0]),
        |a, c| {
            let (v, g) = newton_sqrt_vjp(a[0], c);
            (v, vec![g])
        },
    );
    check(
        5,
        |x| sample_variance(x),
        |x, d| sample_variance_jvp(x, d),
        |x, c| sample_variance_vjp(x, c),
    );
    check(
        5,
        |x| first_crossing(x, 3.0),
        |x, d| first_crossing_jvp(x, 3.0, d),
        |x, c| first_crossing_vjp(x, 3.0, c),
    );
    let data = [0.1, 0.5, -0.3, 1.2];
    check(
        2,
        |p| gauss_ll(p, &data),
        |p, d| gauss_ll_jvp(p, &data, d),
        |p, c| gauss_ll_vjp(p, &data, c),
    );
    check(
        6,
        |v| cross_norm([v[0], v[1], v[2]], [v[3], v[4], v[5]]),
        |v, d| {
            cross_norm_jvp(
                [v[0], v[1], v[2]],
                [v[3], v[4], v[5]],
                [d[0], d[1], d[2]],
                [d[3], d[4], d[5]],
            )
        },
        |v, c| {
            let (r, (ga, gb)) = cross_norm_vjp([v[0], v[1], v[2]], [v[3], v[4], v[5]], c);
            (r, [ga, gb].concat())
        },
    );
    check(
        5,
        |x| total_variation(x),
        |x, d| total_variation_jvp(x, d),
        |x, c| total_variation_vjp(x, c),
    );
    check(
        2,
        |p| projectile(p, 7),
        |p, d| projectile_jvp(p, 7, d),
        |p, c| projectile_vjp(p, 7, c),
    );
    check(
        2,
        |p| trapezoid(p, 9),
        |p, d| trapezoid_jvp(p, 9, d),
        |p, c| trapezoid_vjp(p, 9, c),
    );
}

use ad_runtime::Differentiable;
use num_traits::{Float, FromPrimitive};

#[derive(Clone, Debug, Differentiable)]
struct Oscillator {
    k: f64,
    c: f64,
    x: f64,
    v: f64,
}

#[forward]
#[reverse]
impl Oscillator {
    fn step(&mut self, dt: f64) {
        let a = -self.k * self.x - self.c * self.v;
        self.v += dt * a;
        self.x += dt * self.v;
    }
    fn energy(&self) -> f64 {
        0.5 * self.v * self.v + 0.5 * self.k * self.x * self.x
    }
}

#[forward]
#[reverse]
fn simulate_osc(#[grad] o: &Oscillator, n: usize) -> f64 {
    let mut s = o.clone();
    for _ in 0..n {
        s.step(0.01);
    }
    s.energy()
}

#[forward]
#[reverse]
fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

#[forward]
#[reverse]
fn two_layer(p: &[f64], #[no_grad] x: &[f64]) -> f64 {
    let h: Vec<f64> = x.iter().zip(p).map(|(xi, pi)| sigmoid(xi * pi)).collect();
    let m = h.iter().map(|v| v.abs()).fold(0.0, f64::max);
    h.iter().sum::<f64>() * m
}

#[forward]
#[reverse]
fn generic_norm<T: Float + FromPrimitive + std::iter::Sum>(x: &[T]) -> T {
    let n = T::from_usize(x.len()).unwrap();
    (x.iter().map(|&v| v * v).sum::<T>() / n).sqrt()
}

#[forward]
#[reverse]
fn rhs(y: &[f64], p: &[f64], dydt: &mut [f64]) {
    dydt[0] = p[0] * y[0] - p[1] * y[0] * y[1];
    dydt[1] = -p[2] * y[1] + p[3] * y[0] * y[1];
}

#[forward]
#[reverse]
fn lotka(p: &[f64], n: usize) -> f64 {
    let mut y = vec![1.0, 0.5];
    let mut dydt = vec![0.0; 2];
    let dt = 0.01;
    for _ in 0..n {
        rhs(&y, p, &mut dydt);
        for i in 0..2 {
            y[i] += dt * dydt[i];
        }
    }
    y[0] + y[1]
}

#[forward]
#[reverse]
fn misc_iters(x: &[f64]) -> f64 {
    let a: f64 = x.iter().skip(1).step_by(2).sum();
    let mut b = 0.0;
    for i in (0..x.len()).rev() {
        b = b * 0.5 + x[i];
    }
    let c: f64 = x
        .iter()
        .zip(x.iter().skip(1))
        .zip(x.iter().skip(2))
        .map(|((u, v), w)| u * v - w)
        .sum();
    let d = if let Some(last) = x.last() {
        last.hypot(x[0])
    } else {
        0.0
    };
    let e = x[0].atan2(x[1]) + x[2].abs().powf(1.5);
    a + b + c + d + e
}

#[forward]
#[reverse]
fn median_abs(x: &[f64]) -> f64 {
    let mut v: Vec<f64> = x.iter().map(|a| a * a + 0.1 * a).collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// The oscillator's four floats as a slice, for `check`.
fn oscillator(p: &[f64]) -> Oscillator {
    Oscillator {
        k: p[0].abs() + 1.0,
        c: p[1],
        x: p[2],
        v: p[3],
    }
}

#[test]
fn methods_generics_and_mutable_outputs() {
    // A copy of a `#[grad]` value stepped in place by a `&mut self` method.
    let sign = |p: &[f64]| p[0].signum();
    check(
        4,
        |p| simulate_osc(&oscillator(p), 30),
        |p, d| {
            let tangent = Oscillator {
                k: d[0] * sign(p),
                c: d[1],
                x: d[2],
                v: d[3],
            };
            simulate_osc_jvp(&oscillator(p), 30, &tangent)
        },
        |p, c| {
            let (value, g) = simulate_osc_vjp(&oscillator(p), 30, c);
            (value, vec![g.k * sign(p), g.c, g.x, g.v])
        },
    );
    let x = [0.3, -0.8, 1.1];
    check(
        3,
        |p| two_layer(p, &x),
        |p, d| two_layer_jvp(p, &x, d),
        |p, c| two_layer_vjp(p, &x, c),
    );
    check(
        4,
        |x| generic_norm(x),
        |x, d| generic_norm_jvp(x, d),
        |x, c| generic_norm_vjp(x, c),
    );
    check(
        4,
        |p| lotka(p, 25),
        |p, d| lotka_jvp(p, 25, d),
        |p, c| lotka_vjp(p, 25, c),
    );
    check(
        5,
        |x| misc_iters(x),
        |x, d| misc_iters_jvp(x, d),
        |x, c| misc_iters_vjp(x, c),
    );
    check(
        5,
        |x| median_abs(x),
        |x, d| median_abs_jvp(x, d),
        |x, c| median_abs_vjp(x, c),
    );
}

#[derive(Clone, Debug)]
struct Config {
    scale: f64,
    order: usize,
}

struct Model {
    data: Vec<f64>,
    lambda: f64,
}

impl Model {
    #[forward]
    #[reverse]
    fn loss(&self, p: &[f64]) -> f64 {
        let mut total = 0.0;
        for (i, &d) in self.data.iter().enumerate() {
            let t = i as f64 / self.data.len() as f64;
            let pred = p[0] + p[1] * t + p[2] * t * t;
            total += (pred - d).powi(2);
        }
        total + self.lambda * p.iter().map(|v| v * v).sum::<f64>()
    }
}

#[derive(Clone, Copy, Debug)]
enum Kernel {
    Rbf(f64),
    Linear,
}

#[forward]
#[reverse]
fn kernel_sum(x: &[f64], kernel: Kernel, cfg: &Config) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..x.len() {
            let k = match kernel {
                Kernel::Rbf(ell) => (-(x[i] - x[j]).powi(2) / (2.0 * ell * ell)).exp(),
                Kernel::Linear => x[i] * x[j],
            };
            s += k;
        }
    }
    s * cfg.scale + cfg.order as f64
}

#[forward]
#[reverse]
fn shapes(x: &[f64]) -> (f64, f64) {
    if x.is_empty() {
        return (0.0, 0.0);
    }
    let [a, b, c] = [x[0], x[1], x[2]];
    let hi = x.iter().copied().fold(f64::MIN, f64::max);
    let lo = x.iter().copied().reduce(f64::min).unwrap();
    let m = f64::max(a, b).min(c + 1.0).clamp(-5.0, 5.0);
    let e = 2.0_f64.powf(a) + b.exp2() + 10f64.powi(-3) * c;
    let weighted: f64 = x
        .iter()
        .enumerate()
        .map(|(i, &v)| v * (i as f64 + 1.0))
        .sum();
    (hi - lo + m + e, weighted / x.len() as f64)
}

#[forward]
#[reverse]
fn buffers(x: &[f64]) -> f64 {
    let n = x.len();
    let mut out = vec![0.0; n];
    for (o, &v) in out.iter_mut().zip(x) {
        *o = v * 2.0 + 1.0;
    }
    let (left, right) = out.split_at(n / 2);
    let l: f64 = left.iter().sum();
    let r: f64 = right.iter().map(|v| v.sin()).sum();
    let mut a = l;
    let mut b = r;
    std::mem::swap(&mut a, &mut b);
    let g = |t: f64| t * a;
    let h = |t: f64| g(t) * 2.0 + b;
    let best = out
        .iter()
        .cloned()
        .max_by(|p, q| p.partial_cmp(q).unwrap())
        .unwrap();
    h(best) + (0..n).map(|i| x[i] * out[n - 1 - i]).sum::<f64>()
}

#[forward]
#[reverse]
fn generic_helper<T: Float>(x: T, y: T) -> T {
    let two = T::one() + T::one();
    (x * x + y * y).sqrt() / two + x.max(y)
}

#[forward]
#[reverse]
fn uses_generic(p: &[f64]) -> f64 {
    let mut acc = 0.0;
    for w in p.windows(2) {
        acc += generic_helper(w[0], w[1]);
    }
    acc
}

#[test]
fn methods_of_data_enums_tuples_and_buffers() {
    let m = Model {
        data: vec![0.1, 0.4, 0.2, 0.9],
        lambda: 0.01,
    };
    check(
        3,
        |p| m.loss(p),
        |p, d| m.loss_jvp(p, d),
        |p, c| m.loss_vjp(p, c),
    );
    let cfg = Config {
        scale: 0.5,
        order: 2,
    };
    for kernel in [Kernel::Rbf(0.7), Kernel::Linear] {
        check(
            4,
            |x| kernel_sum(x, kernel, &cfg),
            |x, d| kernel_sum_jvp(x, kernel, &cfg, d),
            |x, c| kernel_sum_vjp(x, kernel, &cfg, c),
        );
    }
    check(
        4,
        |x| shapes(x).0 + 0.3 * shapes(x).1,
        |x, d| {
            let (v, t) = shapes_jvp(x, d);
            (v.0 + 0.3 * v.1, t.0 + 0.3 * t.1)
        },
        |x, c| {
            let (v, g) = shapes_vjp(x, (c, 0.3 * c));
            (v.0 + 0.3 * v.1, g)
        },
    );
    check(
        5,
        |x| buffers(x),
        |x, d| buffers_jvp(x, d),
        |x, c| buffers_vjp(x, c),
    );
    check(
        4,
        |x| uses_generic(x),
        |x, d| uses_generic_jvp(x, d),
        |x, c| uses_generic_vjp(x, c),
    );
}

mod nbody {
    use ad_runtime::{forward, reverse, Differentiable};
    use approx::assert_relative_eq;
    use std::ops::{Add, Mul, Sub};

    #[derive(Clone, Copy, Debug, PartialEq, Differentiable)]
    pub struct Vec3 {
        pub x: f64,
        pub y: f64,
        pub z: f64,
    }

    #[forward]
    #[reverse]
    impl Vec3 {
        pub fn new(x: f64, y: f64, z: f64) -> Vec3 {
            Vec3 { x, y, z }
        }
        pub fn dot(&self, o: &Vec3) -> f64 {
            self.x * o.x + self.y * o.y + self.z * o.z
        }
        pub fn norm(&self) -> f64 {
            self.dot(self).sqrt()
        }
    }

    #[forward]
    #[reverse]
    impl Add for Vec3 {
        type Output = Vec3;
        fn add(self, o: Vec3) -> Vec3 {
            Vec3::new(self.x + o.x, self.y + o.y, self.z + o.z)
        }
    }

    #[forward]
    #[reverse]
    impl Sub for Vec3 {
        type Output = Vec3;
        fn sub(self, o: Vec3) -> Vec3 {
            Vec3::new(self.x - o.x, self.y - o.y, self.z - o.z)
        }
    }

    #[forward]
    #[reverse]
    impl Mul<f64> for Vec3 {
        type Output = Vec3;
        fn mul(self, k: f64) -> Vec3 {
            Vec3::new(self.x * k, self.y * k, self.z * k)
        }
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Body {
        pub pos: Vec3,
        pub vel: Vec3,
        pub mass: f64,
    }

    #[forward]
    #[reverse]
    pub fn energy(#[grad] bodies: &[Body]) -> f64 {
        let mut e = 0.0;
        for (i, b) in bodies.iter().enumerate() {
            e += 0.5 * b.mass * b.vel.dot(&b.vel);
            for other in &bodies[i + 1..] {
                let d = b.pos - other.pos;
                e -= b.mass * other.mass / d.norm();
            }
        }
        e
    }

    #[forward]
    #[reverse]
    pub fn advance(#[grad] bodies: &[Body], steps: usize) -> f64 {
        let mut state = bodies.to_vec();
        let dt = 0.01;
        for _ in 0..steps {
            let n = state.len();
            for i in 0..n {
                for j in 0..n {
                    if i != j {
                        let d = state[j].pos - state[i].pos;
                        let r = d.norm();
                        let a = d * (state[j].mass / (r * r * r));
                        state[i].vel = state[i].vel + a * dt;
                    }
                }
            }
            for b in state.iter_mut() {
                b.pos = b.pos + b.vel * dt;
            }
        }
        energy(&state)
    }

    fn bodies_from(p: &[f64]) -> Vec<Body> {
        p.chunks(7)
            .map(|c| Body {
                pos: Vec3::new(c[0], c[1], c[2]),
                vel: Vec3::new(c[3], c[4], c[5]),
                mass: c[6].abs() + 0.5,
            })
            .collect()
    }
    fn flat(g: &[Body]) -> Vec<f64> {
        g.iter()
            .flat_map(|b| [b.pos.x, b.pos.y, b.pos.z, b.vel.x, b.vel.y, b.vel.z, b.mass])
            .collect()
    }

    #[test]
    fn an_n_body_simulation_over_a_copied_container() {
        let p = [
            0.0, 0.0, 0.0, 0.1, 0.0, 0.0, 1.0, 1.0, 0.2, 0.1, 0.0, 0.5, 0.0, 0.3, -0.4, 1.1, 0.3,
            0.2, -0.3, 0.1, 0.2,
        ];
        let bodies = bodies_from(&p);
        let (e, g) = advance_grad(&bodies, 5);
        assert_eq!(e, advance(&bodies, 5));
        let g = flat(&g);
        for k in 0..p.len() {
            let h = 1e-6;
            let mut a = p;
            a[k] += h;
            let mut b = p;
            b[k] -= h;
            let fd = (advance(&bodies_from(&a), 5) - advance(&bodies_from(&b), 5)) / (2.0 * h);
            let scale = if k % 7 == 6 { p[k].signum() } else { 1.0 };
            assert_relative_eq!(g[k] * scale, fd, epsilon = 1e-6, max_relative = 1e-5);
        }
    }
}

mod containers {
    use super::check;
    use ad_runtime::{forward, reverse, Differentiable};
    use approx::assert_relative_eq;

    #[derive(Clone, Debug, Differentiable)]
    pub struct Poly {
        pub coeffs: Vec<f64>,
        pub shift: f64,
    }

    #[forward]
    #[reverse]
    impl Poly {
        pub fn eval(&self, x: f64) -> f64 {
            let mut acc = 0.0;
            for c in self.coeffs.iter().rev() {
                acc = acc * (x - self.shift) + c;
            }
            acc
        }
    }

    #[forward]
    #[reverse]
    pub fn poly_loss(#[grad] p: &Poly, #[no_grad] xs: &[f64], #[no_grad] ys: &[f64]) -> f64 {
        xs.iter()
            .zip(ys)
            .map(|(&x, &y)| (p.eval(x) - y).powi(2))
            .sum::<f64>()
            .sqrt()
    }

    #[forward]
    #[reverse]
    pub fn cholesky_logdet(a: &[Vec<f64>]) -> f64 {
        let n = a.len();
        let mut l = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..=i {
                let mut s = a[i][j];
                for k in 0..j {
                    s -= l[i][k] * l[j][k];
                }
                if i == j {
                    l[i][j] = s.sqrt();
                } else {
                    l[i][j] = s / l[j][j];
                }
            }
        }
        let mut logdet = 0.0;
        for i in 0..n {
            logdet += 2.0 * l[i][i].ln();
        }
        logdet
    }

    #[forward]
    #[reverse]
    pub fn moments(x: &[f64]) -> f64 {
        let (s, ss) = x.iter().fold((0.0, 0.0), |(s, ss), &v| (s + v, ss + v * v));
        let n = x.len() as f64;
        (ss / n - (s / n).powi(2)).sqrt()
    }

    #[forward]
    #[reverse]
    pub fn stack_walk(x: &[f64]) -> f64 {
        let mut stack: Vec<f64> = x.to_vec();
        let mut acc = 0.0;
        while let Some(v) = stack.pop() {
            acc = acc * 0.9 + v.sin();
        }
        acc
    }

    #[test]
    fn user_types_holding_vecs_cholesky_folds_and_stacks() {
        let xs = [0.0, 0.5, 1.0, 1.5];
        let ys = [1.0, 0.2, -0.3, 0.8];
        let p = Poly {
            coeffs: vec![0.5, -0.2, 0.1],
            shift: 0.3,
        };
        let (v, g) = poly_loss_grad(&p, &xs, &ys);
        assert_eq!(v, poly_loss(&p, &xs, &ys));
        let h = 1e-6;
        for k in 0..3 {
            let mut a = p.clone();
            a.coeffs[k] += h;
            let mut b = p.clone();
            b.coeffs[k] -= h;
            assert_relative_eq!(
                g.coeffs[k],
                (poly_loss(&a, &xs, &ys) - poly_loss(&b, &xs, &ys)) / (2.0 * h),
                max_relative = 1e-6
            );
        }
        let mut a = p.clone();
        a.shift += h;
        let mut b = p.clone();
        b.shift -= h;
        assert_relative_eq!(
            g.shift,
            (poly_loss(&a, &xs, &ys) - poly_loss(&b, &xs, &ys)) / (2.0 * h),
            max_relative = 1e-6
        );
        let spd = |m: &[f64]| -> Vec<Vec<f64>> {
            let n = 3;
            (0..n)
                .map(|i| {
                    (0..n)
                        .map(|j| {
                            (0..n).map(|k| m[i * n + k] * m[j * n + k]).sum::<f64>()
                                + if i == j { 1.0 } else { 0.0 }
                        })
                        .collect()
                })
                .collect()
        };
        let m = [0.3, 0.1, -0.2, 0.5, 0.9, 0.1, -0.4, 0.2, 0.7];
        let a = spd(&m);
        let (value, g) = cholesky_logdet_grad(&a);
        assert_eq!(value, cholesky_logdet(&a));
        let (_, t) = cholesky_logdet_jvp(
            &a,
            &[
                vec![1.0, 0.0, 0.0],
                vec![0.0, 0.0, 0.0],
                vec![0.0, 0.0, 0.0],
            ],
        );
        assert_relative_eq!(g[0][0], t, max_relative = 1e-10);
        let mut ap = a.clone();
        ap[0][0] += h;
        let mut am = a.clone();
        am[0][0] -= h;
        assert_relative_eq!(
            t,
            (cholesky_logdet(&ap) - cholesky_logdet(&am)) / (2.0 * h),
            max_relative = 1e-6
        );
        check(
            4,
            |x| moments(x),
            |x, d| moments_jvp(x, d),
            |x, c| moments_vjp(x, c),
        );
        check(
            4,
            |x| stack_walk(x),
            |x, d| stack_walk_jvp(x, d),
            |x, c| stack_walk_vjp(x, c),
        );
    }
}

/// `let ... else` with the type written on the pattern.
#[forward]
#[reverse]
fn typed_let_else(x: &[f64]) -> f64 {
    let Some(first): Option<f64> = x.first().copied() else {
        return 0.0;
    };
    let Some(&last): Option<&f64> = x.last() else {
        return 1.0;
    };
    first * 2.0 + last.sin()
}

/// Pairs and triples of optional elements matched at once.
#[forward]
#[reverse]
fn neighbours(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        if let (Some(a), Some(b)) = (x.get(i), x.get(i + 1)) {
            total += a * b;
        } else {
            total += 0.5 * x[i];
        }
        total += match (x.get(i), x.get(i + 2), x.first()) {
            (Some(&a), Some(&c), Some(&f)) => a * c - f,
            _ => x[i].powi(2),
        };
    }
    total
}

#[test]
fn typed_let_else_and_matched_element_pairs() {
    check(3, typed_let_else, typed_let_else_jvp, typed_let_else_vjp);
    check(4, neighbours, neighbours_jvp, neighbours_vjp);
    assert_eq!(typed_let_else_grad(&[]), (0.0, vec![]));
}

mod finance_filters_geometry {
    use super::check;
    use ad_runtime::{forward, reverse, Differentiable};

    #[forward]
    #[reverse]
    fn norm_cdf(x: f64) -> f64 {
        let t = 1.0 / (1.0 + 0.2316419 * x.abs());
        let poly = t
            * (0.319381530
                + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
        let pdf = (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt();
        let upper = pdf * poly;
        if x >= 0.0 {
            1.0 - upper
        } else {
            upper
        }
    }

    #[forward]
    #[reverse]
    fn black_scholes(p: &[f64]) -> f64 {
        let (s, k, r, sigma, t) = (
            p[0].abs() + 50.0,
            100.0,
            0.01 + p[1] * 0.01,
            0.2 + 0.1 * p[2].abs(),
            1.0,
        );
        let d1 = ((s / k).ln() + (r + 0.5 * sigma * sigma) * t) / (sigma * t.sqrt());
        let d2 = d1 - sigma * t.sqrt();
        s * norm_cdf(d1) - k * (-r * t).exp() * norm_cdf(d2)
    }

    #[forward]
    #[reverse]
    fn huber_total(r: &[f64], #[no_grad] delta: f64) -> f64 {
        let mut total = 0.0;
        for &ri in r {
            total += if ri.abs() <= delta {
                0.5 * ri * ri
            } else {
                delta * (ri.abs() - 0.5 * delta)
            };
        }
        total
    }

    #[forward]
    #[reverse]
    fn inner_descent(a: f64) -> f64 {
        let mut x = 0.0;
        for _ in 0..10 {
            let g = 2.0 * (x - a) + 0.1 * x.powi(3);
            x -= 0.1 * g;
        }
        x
    }

    #[forward]
    #[reverse]
    fn bilinear(p: &[f64], #[no_grad] grid: &[Vec<f64>]) -> f64 {
        let (x, y) = (p[0].abs().min(1.9), p[1].abs().min(1.9));
        let (i, j) = (x.floor() as usize, y.floor() as usize);
        let (fx, fy) = (x.fract(), y.fract());
        let top = grid[i][j] * (1.0 - fx) + grid[i + 1][j] * fx;
        let bottom = grid[i][j + 1] * (1.0 - fx) + grid[i + 1][j + 1] * fx;
        top * (1.0 - fy) + bottom * fy
    }

    #[derive(Clone, Debug, Differentiable)]
    struct Linear {
        w: [f64; 3],
        b: f64,
    }

    #[forward]
    #[reverse]
    impl Linear {
        fn new(w: [f64; 3], b: f64) -> Linear {
            Linear { w, b }
        }
        fn predict(&self, x: &[f64]) -> f64 {
            self.w.iter().zip(x).map(|(w, x)| w * x).sum::<f64>() + self.b
        }
    }

    #[forward]
    #[reverse]
    fn linear_loss(p: &[f64], #[no_grad] xs: &[[f64; 3]], #[no_grad] ys: &[f64]) -> f64 {
        let model = Linear::new([p[0], p[1], p[2]], p[3]);
        let mut loss = 0.0;
        for (x, y) in xs.iter().zip(ys) {
            let e = model.predict(x) - y;
            loss += e * e;
        }
        loss / xs.len() as f64
    }

    #[forward]
    #[reverse]
    fn shoelace(pts: &[[f64; 2]]) -> f64 {
        let n = pts.len();
        let mut area = 0.0;
        for i in 0..n {
            let j = (i + 1) % n;
            area += pts[i][0] * pts[j][1] - pts[j][0] * pts[i][1];
        }
        0.5 * area.abs()
    }

    #[forward]
    #[reverse]
    fn misc_two(a: &[f64], b: &[f64]) -> f64 {
        let d = a
            .iter()
            .zip(b.iter())
            .map(|(x, y)| (x - y).powi(2))
            .sum::<f64>()
            .sqrt();
        let logs: f64 = a
            .iter()
            .map(|v| (v * v + 0.1).ln())
            .filter(|v| v.is_finite())
            .sum();
        let tri: f64 = b.chunks_exact(3).map(|c| c[0] * c[1] + c[2]).sum();
        let mut idx: Vec<usize> = (0..a.len()).collect();
        idx.sort_by(|&i, &j| a[i].partial_cmp(&a[j]).unwrap());
        let smallest = a[idx[0]];
        let e = std::f64::consts::E;
        d + logs + tri + smallest * e + ((a[0] * 10.0).round() as i32) as f64
    }

    #[forward]
    #[reverse]
    fn kalman(p: &[f64], #[no_grad] zs: &[f64]) -> f64 {
        let (q, r) = (p[0] * p[0] + 0.01, p[1] * p[1] + 0.01);
        let mut x = [0.0, 0.0];
        let mut pm = [[1.0, 0.0], [0.0, 1.0]];
        let dt = 0.1;
        let mut nll = 0.0;
        for &z in zs {
            // predict
            x = [x[0] + dt * x[1], x[1]];
            pm = [
                [
                    pm[0][0] + dt * (pm[1][0] + pm[0][1]) + dt * dt * pm[1][1] + q,
                    pm[0][1] + dt * pm[1][1],
                ],
                [pm[1][0] + dt * pm[1][1], pm[1][1] + q],
            ];
            // update
            let s = pm[0][0] + r;
            let k = [pm[0][0] / s, pm[1][0] / s];
            let innov = z - x[0];
            nll += 0.5 * (s.ln() + innov * innov / s);
            x = [x[0] + k[0] * innov, x[1] + k[1] * innov];
            pm = [
                [(1.0 - k[0]) * pm[0][0], (1.0 - k[0]) * pm[0][1]],
                [pm[1][0] - k[1] * pm[0][0], pm[1][1] - k[1] * pm[0][1]],
            ];
        }
        nll
    }

    #[test]
    fn finance_filters_geometry_and_argsort() {
        check(3, black_scholes, black_scholes_jvp, black_scholes_vjp);
        check(
            4,
            |r| huber_total(r, 0.7),
            |r, d| huber_total_jvp(r, 0.7, d),
            |r, c| huber_total_vjp(r, 0.7, c),
        );
        check(
            1,
            |a| inner_descent(a[0]),
            |a, d| inner_descent_jvp(a[0], d[0]),
            |a, c| {
                let (v, g) = inner_descent_vjp(a[0], c);
                (v, vec![g])
            },
        );
        let grid = vec![
            vec![0.0, 1.0, 0.5],
            vec![0.3, -0.2, 0.8],
            vec![1.1, 0.4, -0.6],
        ];
        check(
            2,
            |p| bilinear(p, &grid),
            |p, d| bilinear_jvp(p, &grid, d),
            |p, c| bilinear_vjp(p, &grid, c),
        );
        let xs = [[1.0, 0.5, -0.2], [0.3, -1.0, 0.8], [-0.7, 0.2, 0.1]];
        let ys = [0.4, -0.1, 0.9];
        check(
            4,
            |p| linear_loss(p, &xs, &ys),
            |p, d| linear_loss_jvp(p, &xs, &ys, d),
            |p, c| linear_loss_vjp(p, &xs, &ys, c),
        );
        let to_pts = |v: &[f64]| v.chunks(2).map(|c| [c[0], c[1]]).collect::<Vec<_>>();
        check(
            8,
            |v| shoelace(&to_pts(v)),
            |v, d| shoelace_jvp(&to_pts(v), &to_pts(d)),
            |v, c| {
                let (r, g) = shoelace_vjp(&to_pts(v), c);
                (r, g.concat())
            },
        );
        check(
            6,
            |v| misc_two(&v[..3], &v[3..]),
            |v, d| misc_two_jvp(&v[..3], &v[3..], &d[..3], &d[3..]),
            |v, c| {
                let (r, (ga, gb)) = misc_two_vjp(&v[..3], &v[3..], c);
                (r, [ga, gb].concat())
            },
        );
        let zs = [0.1, 0.3, 0.2, 0.5, 0.4];
        check(
            2,
            |p| kalman(p, &zs),
            |p, d| kalman_jvp(p, &zs, d),
            |p, c| kalman_vjp(p, &zs, c),
        );
    }
}

mod networks_and_signals {
    use super::check;
    use ad_runtime::{forward, reverse, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Layer {
        pub weights: Vec<Vec<f64>>,
        pub biases: Vec<f64>,
    }

    #[forward]
    #[reverse]
    impl Layer {
        pub fn forward(&self, input: &[f64]) -> Vec<f64> {
            self.weights
                .iter()
                .zip(&self.biases)
                .map(|(row, b)| {
                    let z: f64 = row.iter().zip(input).map(|(w, x)| w * x).sum::<f64>() + b;
                    z.max(0.0) + 0.01 * z.min(0.0)
                })
                .collect()
        }
    }

    #[forward]
    #[reverse]
    pub fn network_loss(
        #[grad] layers: &[Layer],
        #[no_grad] input: &[f64],
        #[no_grad] target: f64,
    ) -> f64 {
        let mut activation = input.to_vec();
        for layer in layers {
            activation = layer.forward(&activation);
        }
        let out: f64 = activation.iter().sum();
        (out - target).powi(2)
    }

    #[forward]
    #[reverse]
    fn fir(h: &[f64], #[no_grad] x: &[f64]) -> f64 {
        let mut y = vec![0.0; x.len()];
        for n in 0..x.len() {
            for k in 0..h.len() {
                if n >= k {
                    y[n] += h[k] * x[n - k];
                }
            }
        }
        y.iter().map(|v| v * v).sum()
    }

    #[forward]
    #[reverse]
    fn simpson(p: &[f64]) -> f64 {
        let f = |t: f64| (p[0] * t).cos() / (1.0 + p[1] * t * t);
        let n = 10;
        let h = 1.0 / n as f64;
        let mut s = f(0.0) + f(1.0);
        for i in 1..n {
            let w = if i % 2 == 1 { 4.0 } else { 2.0 };
            s += w * f(i as f64 * h);
        }
        s * h / 3.0
    }

    #[forward]
    #[reverse]
    fn interp(ys: &[f64], #[no_grad] xs: &[f64], #[no_grad] x: f64) -> f64 {
        let i = xs.partition_point(|&v| v < x).clamp(1, xs.len() - 1);
        let t = (x - xs[i - 1]) / (xs[i] - xs[i - 1]);
        ys[i - 1] * (1.0 - t) + ys[i] * t
    }

    #[forward]
    #[reverse]
    fn pearson(a: &[f64], b: &[f64]) -> f64 {
        assert_eq!(a.len(), b.len(), "lengths differ");
        let n = a.len() as f64;
        let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
        let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
        let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
        let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
        cov / (va * vb).sqrt()
    }

    #[forward]
    #[reverse]
    fn adam_inner(a: &[f64]) -> f64 {
        let (b1, b2, lr, eps) = (0.9, 0.999, 0.05, 1e-8);
        let mut x = [0.0; 2];
        let mut m = [0.0; 2];
        let mut v = [0.0; 2];
        for t in 1..=20 {
            let g = [
                2.0 * (x[0] - a[0]) + a[1] * x[1],
                2.0 * (x[1] - a[1]) + a[1] * x[0],
            ];
            for i in 0..2 {
                m[i] = b1 * m[i] + (1.0 - b1) * g[i];
                v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
                let mh = m[i] / (1.0 - f64::powi(b1, t));
                let vh = v[i] / (1.0 - f64::powi(b2, t));
                x[i] -= lr * mh / (vh.sqrt() + eps);
            }
        }
        x[0] * x[0] + x[1]
    }

    const N: usize = 3;

    #[forward]
    #[reverse]
    pub fn matmul(a: &[Vec<f64>], b: &[Vec<f64>]) -> Vec<Vec<f64>> {
        let mut c = vec![vec![0.0; b[0].len()]; a.len()];
        for i in 0..a.len() {
            for j in 0..b[0].len() {
                for k in 0..b.len() {
                    c[i][j] += a[i][k] * b[k][j];
                }
            }
        }
        c
    }

    #[forward]
    #[reverse]
    fn trace_of_square(p: &[f64]) -> f64 {
        let m: Vec<Vec<f64>> = (0..N)
            .map(|i| (0..N).map(|j| p[i * N + j]).collect())
            .collect();
        let sq = matmul(&m, &m);
        let mut tr = 0.0;
        for i in 0..N {
            tr += sq[i][i];
        }
        tr
    }

    #[test]
    fn networks_filters_quadrature_and_inner_optimizers() {
        let input = [0.5, -0.3];
        let make = |p: &[f64]| {
            vec![
                Layer {
                    weights: vec![vec![p[0], p[1]], vec![p[2], p[3]]],
                    biases: vec![p[4], p[5]],
                },
                Layer {
                    weights: vec![vec![p[6], p[7]]],
                    biases: vec![p[8]],
                },
            ]
        };
        let flat = |ls: &[Layer]| {
            ls.iter()
                .flat_map(|l| {
                    l.weights
                        .iter()
                        .flatten()
                        .copied()
                        .chain(l.biases.iter().copied())
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<f64>>()
        };
        check(
            9,
            |p| network_loss(&make(p), &input, 0.7),
            |p, d| network_loss_jvp(&make(p), &input, 0.7, &make(d)),
            |p, c| {
                let (v, g) = network_loss_vjp(&make(p), &input, 0.7, c);
                (v, flat(&g))
            },
        );
        let x = [1.0, 0.5, -0.3, 0.8, 0.2];
        check(
            3,
            |h| fir(h, &x),
            |h, d| fir_jvp(h, &x, d),
            |h, c| fir_vjp(h, &x, c),
        );
        check(2, simpson, simpson_jvp, simpson_vjp);
        let xs = [0.0, 0.5, 1.5, 2.0];
        for xq in [0.2, 0.9, 1.9] {
            check(
                4,
                |ys| interp(ys, &xs, xq),
                |ys, d| interp_jvp(ys, &xs, xq, d),
                |ys, c| interp_vjp(ys, &xs, xq, c),
            );
        }
        check(
            6,
            |v| pearson(&v[..3], &v[3..]),
            |v, d| pearson_jvp(&v[..3], &v[3..], &d[..3], &d[3..]),
            |v, c| {
                let (r, (ga, gb)) = pearson_vjp(&v[..3], &v[3..], c);
                (r, [ga, gb].concat())
            },
        );
        check(2, adam_inner, adam_inner_jvp, adam_inner_vjp);
        check(9, trace_of_square, trace_of_square_jvp, trace_of_square_vjp);
    }
}

mod nalgebra_and_traits {
    use super::check;
    use ad_runtime::{forward, reverse};
    use nalgebra::{DMatrix, DVector, Vector3};

    #[forward]
    #[reverse]
    fn least_squares(
        p: &DVector<f64>,
        #[no_grad] a: &DMatrix<f64>,
        #[no_grad] b: &DVector<f64>,
    ) -> f64 {
        let r = a * p - b;
        r.norm_squared() + 0.1 * p.dot(p)
    }

    #[forward]
    #[reverse]
    fn torque(r: Vector3<f64>, f: Vector3<f64>) -> f64 {
        let t = r.cross(&f);
        t.norm() + r.dot(&f) * 0.5
    }

    trait System {
        fn rhs(&self, y: &[f64], dy: &mut [f64]);
    }

    struct Decay {
        k: f64,
    }

    #[forward]
    #[reverse]
    impl System for Decay {
        fn rhs(&self, y: &[f64], dy: &mut [f64]) {
            for i in 0..y.len() {
                dy[i] = -self.k * y[i] + 0.1 * y[(i + 1) % y.len()].sin();
            }
        }
    }

    #[forward]
    #[reverse]
    fn integrate_decay(y0: &[f64], #[no_grad] sys: &Decay) -> f64 {
        let mut y = y0.to_vec();
        let mut dy = vec![0.0; y.len()];
        for _ in 0..10 {
            sys.rhs(&y, &mut dy);
            for (yi, di) in y.iter_mut().zip(&dy) {
                *yi += 0.05 * di;
            }
        }
        y.iter().sum()
    }

    #[forward]
    #[reverse]
    fn returns_vec(x: &[f64]) -> Vec<f64> {
        x.iter().map(|v| v.exp() / (1.0 + v * v)).collect()
    }

    #[forward]
    #[reverse]
    fn consumes_vec(x: &[f64]) -> f64 {
        let v = returns_vec(x);
        let w: Vec<f64> = v.iter().rev().cloned().collect();
        v.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>()
    }

    #[test]
    fn nalgebra_trait_systems_and_returned_vecs() {
        let a = DMatrix::from_row_slice(3, 2, &[1.0, 0.5, -0.3, 0.8, 0.2, 0.1]);
        let b = DVector::from_vec(vec![0.3, -0.1, 0.7]);
        check(
            2,
            |p| least_squares(&DVector::from_column_slice(p), &a, &b),
            |p, d| {
                least_squares_jvp(
                    &DVector::from_column_slice(p),
                    &a,
                    &b,
                    &DVector::from_column_slice(d),
                )
            },
            |p, c| {
                let (v, g) = least_squares_vjp(&DVector::from_column_slice(p), &a, &b, c);
                (v, g.as_slice().to_vec())
            },
        );
        check(
            6,
            |v| {
                torque(
                    Vector3::new(v[0], v[1], v[2]),
                    Vector3::new(v[3], v[4], v[5]),
                )
            },
            |v, d| {
                torque_jvp(
                    Vector3::new(v[0], v[1], v[2]),
                    Vector3::new(v[3], v[4], v[5]),
                    Vector3::new(d[0], d[1], d[2]),
                    Vector3::new(d[3], d[4], d[5]),
                )
            },
            |v, c| {
                let (r, (gr, gf)) = torque_vjp(
                    Vector3::new(v[0], v[1], v[2]),
                    Vector3::new(v[3], v[4], v[5]),
                    c,
                );
                (r, gr.iter().chain(gf.iter()).copied().collect())
            },
        );
        let sys = Decay { k: 0.7 };
        check(
            3,
            |y| integrate_decay(y, &sys),
            |y, d| integrate_decay_jvp(y, &sys, d),
            |y, c| integrate_decay_vjp(y, &sys, c),
        );
        check(4, consumes_vec, consumes_vec_jvp, consumes_vec_vjp);
    }
}

mod recursion_and_tuple_structs {
    use super::check;
    use ad_runtime::{forward, reverse, Differentiable};
    use std::ops::{Add, AddAssign, Mul};

    #[forward]
    #[reverse]
    fn continued_fraction(x: f64, depth: usize) -> f64 {
        if depth == 0 {
            1.0
        } else {
            1.0 + x / continued_fraction(x, depth - 1)
        }
    }

    #[derive(Clone, Copy, Debug, Differentiable)]
    pub struct P2(pub f64, pub f64);

    #[forward]
    #[reverse]
    impl Add for P2 {
        type Output = P2;
        fn add(self, o: P2) -> P2 {
            P2(self.0 + o.0, self.1 + o.1)
        }
    }

    #[forward]
    #[reverse]
    impl AddAssign for P2 {
        fn add_assign(&mut self, o: P2) {
            self.0 += o.0;
            self.1 += o.1;
        }
    }

    #[forward]
    #[reverse]
    impl Mul<f64> for P2 {
        type Output = P2;
        fn mul(self, k: f64) -> P2 {
            P2(self.0 * k, self.1 * k)
        }
    }

    #[forward]
    #[reverse]
    fn walk(#[grad] start: P2, #[grad] step: P2, n: usize) -> f64 {
        let mut p = start;
        for i in 0..n {
            p += step * (1.0 / (i + 1) as f64);
        }
        let q = p + start;
        q.0 * q.1
    }

    #[forward]
    #[reverse]
    fn scans(x: &[f64]) -> f64 {
        let running: Vec<f64> = x
            .iter()
            .scan(0.0, |acc, &v| {
                *acc += v;
                Some(*acc)
            })
            .collect();
        let head: f64 = x.iter().take_while(|v| **v > -10.0).map(|v| v * 2.0).sum();
        let pairs: f64 = x.iter().map(|v| v * 1.0 + v * v).sum();
        let w3: f64 = x.windows(3).map(|w| w[0] * w[2] - w[1]).sum();
        running.iter().sum::<f64>() + head + pairs + w3
    }

    #[forward]
    #[reverse]
    fn converge(a: f64) -> f64 {
        let a = a.abs() + 0.5;
        let mut x = 1.0;
        let mut it = 0;
        loop {
            let next = (x + a / x) / 2.0;
            it += 1;
            if (next - x).abs() < f64::EPSILON * 4.0 || it > 100 {
                break next;
            }
            x = next;
        }
    }

    #[forward]
    #[reverse]
    fn first_ratio(x: &[f64]) -> Option<f64> {
        let a = x.first().copied()?;
        let b = x.get(1).copied()?;
        if b.abs() < f64::EPSILON {
            return None;
        }
        Some(a / b)
    }

    #[forward]
    #[reverse]
    fn dereferenced_ratio(x: &[f64]) -> Option<f64> {
        let a = *x.first()?;
        let b = *x.get(1)?;
        Some(a * b.sin())
    }

    #[forward]
    #[reverse]
    fn uses_option(x: &[f64]) -> f64 {
        first_ratio(x).unwrap_or(0.0)
            + first_ratio(&x[1..]).map(|r| r * r).unwrap_or(1.0)
            + dereferenced_ratio(x).unwrap_or(0.5)
    }

    #[test]
    fn recursion_tuple_structs_adapters_and_early_exits() {
        check(
            1,
            |x| continued_fraction(x[0], 6),
            |x, d| continued_fraction_jvp(x[0], 6, d[0]),
            |x, c| {
                let (v, g) = continued_fraction_vjp(x[0], 6, c);
                (v, vec![g])
            },
        );
        check(
            4,
            |v| walk(P2(v[0], v[1]), P2(v[2], v[3]), 5),
            |v, d| {
                walk_jvp(
                    P2(v[0], v[1]),
                    P2(v[2], v[3]),
                    5,
                    P2(d[0], d[1]),
                    P2(d[2], d[3]),
                )
            },
            |v, c| {
                let (r, (a, b)) = walk_vjp(P2(v[0], v[1]), P2(v[2], v[3]), 5, c);
                (r, vec![a.0, a.1, b.0, b.1])
            },
        );
        check(5, scans, scans_jvp, scans_vjp);
        check(
            1,
            |x| converge(x[0]),
            |x, d| converge_jvp(x[0], d[0]),
            |x, c| {
                let (v, g) = converge_vjp(x[0], c);
                (v, vec![g])
            },
        );
        check(3, uses_option, uses_option_jvp, uses_option_vjp);
    }
}

/// Review cases: a pattern's name that the else branch or a later accessor also names, `None`
/// and `mut` in the patterns, elements borrowed mutably in pairs, a comparator reading an
/// index, a `Vec` and a borrowed item.
mod review_cases {
    use super::check;
    use ad_runtime::{forward, reverse};

    #[forward]
    #[reverse]
    fn shadowing_pairs(x: &[f64]) -> f64 {
        let mut total = 0.0;
        for i in 0..x.len() {
            let a = 2.0 * x[0];
            if let (Some(&a), Some(&b)) = (x.get(i), x.get(i + 1)) {
                total += a * b
            } else {
                total += a
            }
        }
        total
    }

    #[forward]
    #[reverse]
    fn index_from_pattern(x: &[f64], #[no_grad] idx: &[f64]) -> f64 {
        let mut total = 0.0;
        for k in 0..x.len() {
            let i = k;
            if let (Some(&i), Some(&w)) = (idx.get(k), x.get(i)) {
                total += w * w * i
            } else {
                total += 1.0
            }
        }
        total
    }

    #[forward]
    #[reverse]
    fn comparator_with_ints(x: &[f64]) -> f64 {
        let n = 2;
        let mut idx: Vec<usize> = (0..x.len()).collect();
        let v: Vec<f64> = x.iter().map(|a| a * a).collect();
        idx.sort_by(|&i, &j| (i < n).cmp(&(j < n)).then(v[i].partial_cmp(&v[j]).unwrap()));
        x[idx[0]] * 3.0 + x[idx[x.len() - 1]]
    }

    #[test]
    fn element_pairs_whose_patterns_shadow_and_comparators_reading_indices() {
        check(4, shadowing_pairs, shadowing_pairs_jvp, shadowing_pairs_vjp);
        let idx = [0.5, 2.0, 1.5, 3.0];
        check(
            4,
            |x| index_from_pattern(x, &idx),
            |x, d| index_from_pattern_jvp(x, &idx, d),
            |x, c| index_from_pattern_vjp(x, &idx, c),
        );
        check(
            4,
            comparator_with_ints,
            comparator_with_ints_jvp,
            comparator_with_ints_vjp,
        );
        check(4, with_none, with_none_jvp, with_none_vjp);
    }

    #[forward]
    #[reverse]
    fn with_none(x: &[f64]) -> f64 {
        let mut total = 0.0;
        for i in 0..x.len() {
            match (x.get(i), x.get(i + 1)) {
                (Some(&a), None) => total += a * 10.0,
                _ => total += x[i],
            }
            if let (Some(mut a), Some(b)) = (x.get(i).copied(), x.get(i + 2)) {
                a *= 2.0;
                total += a * b;
            }
        }
        total
    }
    #[forward]
    #[reverse]
    fn mutable_pairs(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        let mut w: Vec<f64> = x.iter().map(|a| a * 2.0).collect();
        for i in 0..v.len() {
            if let (Some(a), Some(b)) = (v.get_mut(i), w.get_mut(i)) {
                *a += 1.0;
                *b *= *a;
            }
        }
        v.iter().zip(&w).map(|(a, b)| a * b).sum()
    }

    #[forward]
    #[reverse]
    fn nearest_first(x: &[f64], #[no_grad] centers: &[f64]) -> f64 {
        let mut total = 0.0;
        for c in centers.iter() {
            let mut idx: Vec<usize> = (0..x.len()).collect();
            idx.sort_by(|&i, &j| (x[i] - c).abs().partial_cmp(&(x[j] - c).abs()).unwrap());
            total += x[idx[0]] * c;
        }
        total
    }

    #[test]
    fn mutable_element_pairs_and_borrowed_captures() {
        check(3, mutable_pairs, mutable_pairs_jvp, mutable_pairs_vjp);
        let centers = [0.1, -0.5];
        check(
            3,
            |x| nearest_first(x, &centers),
            |x, d| nearest_first_jvp(x, &centers, d),
            |x, c| nearest_first_vjp(x, &centers, c),
        );
    }
}

mod pivoting_and_orbits {
    use super::check;
    use ad_runtime::{forward, reverse, Differentiable};
    use std::f64::consts::PI;

    #[forward]
    #[reverse]
    fn lu_logdet(a: &[Vec<f64>]) -> f64 {
        let n = a.len();
        let mut m: Vec<Vec<f64>> = a.to_vec();
        let mut logdet = 0.0;
        for k in 0..n {
            let mut p = k;
            for i in k + 1..n {
                if m[i][k].abs() > m[p][k].abs() {
                    p = i;
                }
            }
            if p != k {
                m.swap(p, k);
            }
            let pivot = m[k][k];
            logdet += pivot.abs().ln();
            for i in k + 1..n {
                let f = m[i][k] / pivot;
                for j in k..n {
                    m[i][j] -= f * m[k][j];
                }
            }
        }
        logdet
    }

    #[forward]
    #[reverse]
    fn signal(p: &[f64], #[no_grad] ts: &[f64]) -> f64 {
        let (amp, freq, phase) = (p[0], p[1], p[2]);
        ts.iter()
            .map(|&t| (amp * (2.0 * PI * freq * t + phase).sin()).powi(2))
            .sum::<f64>()
            / ts.len() as f64
    }

    #[forward]
    #[reverse]
    fn even_chunks(x: &[f64]) -> f64 {
        let evens: f64 = x
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, v)| v * v)
            .sum();
        let best = x
            .chunks(3)
            .map(|c| c.iter().sum::<f64>())
            .fold(f64::NEG_INFINITY, f64::max);
        evens + best
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Orbit {
        pub r: f64,
        pub theta: f64,
    }

    #[forward]
    #[reverse]
    impl Orbit {
        pub fn cartesian(&self) -> (f64, f64) {
            (self.r * self.theta.cos(), self.r * self.theta.sin())
        }
        pub fn advance(&mut self, dt: f64, omega: f64) {
            self.theta += omega * dt / (self.r * self.r);
        }
    }

    #[forward]
    #[reverse]
    fn orbit_end(#[grad] o: &Orbit, omega: f64) -> f64 {
        let mut s = o.clone();
        let mut path = 0.0;
        let (mut px, mut py) = s.cartesian();
        for _ in 0..8 {
            s.advance(0.1, omega);
            let (x, y) = s.cartesian();
            path += ((x - px).powi(2) + (y - py).powi(2)).sqrt();
            px = x;
            py = y;
        }
        path
    }

    #[test]
    fn pivoting_signals_chunks_and_orbits() {
        let spd = |m: &[f64]| -> Vec<Vec<f64>> {
            (0..3)
                .map(|i| {
                    (0..3)
                        .map(|j| m[i * 3 + j] + if i == j { 3.0 } else { 0.0 })
                        .collect()
                })
                .collect()
        };
        let to = |v: &[f64]| -> Vec<Vec<f64>> { v.chunks(3).map(|c| c.to_vec()).collect() };
        check(
            9,
            |m| lu_logdet(&spd(m)),
            |m, d| lu_logdet_jvp(&spd(m), &to(d)),
            |m, c| {
                let (v, g) = lu_logdet_vjp(&spd(m), c);
                (v, g.concat())
            },
        );
        let ts = [0.0, 0.1, 0.25, 0.4];
        check(
            3,
            |p| signal(p, &ts),
            |p, d| signal_jvp(p, &ts, d),
            |p, c| signal_vjp(p, &ts, c),
        );
        check(7, even_chunks, even_chunks_jvp, even_chunks_vjp);
        let mk = |v: &[f64]| Orbit {
            r: v[0].abs() + 1.0,
            theta: v[1],
        };
        let sign = |v: &[f64]| v[0].signum();
        check(
            3,
            |v| orbit_end(&mk(v), v[2]),
            |v, d| {
                orbit_end_jvp(
                    &mk(v),
                    v[2],
                    &Orbit {
                        r: d[0] * sign(v),
                        theta: d[1],
                    },
                    d[2],
                )
            },
            |v, c| {
                let (r, (g, w)) = orbit_end_vjp(&mk(v), v[2], c);
                (r, vec![g.r * sign(v), g.theta, w])
            },
        );
    }
}

mod labels_and_counters {
    use super::check;
    use ad_runtime::{forward, reverse};

    #[forward]
    #[reverse]
    fn control_flow(x: &[f64], #[no_grad] kinds: &[usize]) -> f64 {
        let mut total = 0.0;
        'outer: for (i, &v) in x.iter().enumerate() {
            if v.abs() < 1e-3 {
                continue;
            }
            let w = match kinds[i] {
                0 => v * v,
                1..=3 => v.sin(),
                k if k > 10 => break 'outer,
                _ => match v {
                    y if y > 0.0 => y.sqrt(),
                    y => -y,
                },
            };
            for j in 0..i {
                if j == 3 {
                    continue 'outer;
                }
                total += w * x[j];
            }
            total += w;
        }
        total
    }

    fn count_calls(n: &mut usize) {
        *n += 1;
    }

    #[forward]
    #[reverse]
    fn with_counter(x: &[f64]) -> f64 {
        let mut calls = 0usize;
        let mut acc = 0.0;
        let mut add = |v: f64| {
            acc += v * v;
        };
        for &v in x {
            add(v);
            count_calls(&mut calls);
        }
        acc / calls as f64
    }

    #[test]
    fn labels_ranges_guards_and_counters() {
        let kinds = [0, 2, 5, 1, 0, 7];
        check(
            6,
            |x| control_flow(x, &kinds),
            |x, d| control_flow_jvp(x, &kinds, d),
            |x, c| control_flow_vjp(x, &kinds, c),
        );
        check(4, with_counter, with_counter_jvp, with_counter_vjp);
    }
}

mod updates_and_results {
    use super::check;
    use ad_runtime::{forward, reverse, Differentiable};

    #[derive(Clone, Debug, Default, Differentiable)]
    pub struct Params {
        pub a: f64,
        pub b: f64,
        pub c: f64,
    }

    #[forward]
    #[reverse]
    fn with_update(#[grad] p: &Params, x: f64) -> f64 {
        let q = Params {
            a: p.a * x,
            ..p.clone()
        };
        q.a + q.b * q.c
    }

    /// A documented function with attributes of its own.
    #[inline]
    #[must_use]
    #[forward]
    #[reverse]
    pub fn documented(x: f64, y: f64) -> f64 {
        x.hypot(y) * (x - y).tanh()
    }

    #[forward]
    #[reverse]
    fn fallible(x: &[f64]) -> Result<f64, String> {
        if x.is_empty() {
            return Err(format!("empty input of length {}", x.len()));
        }
        let s: f64 = x.iter().map(|v| v.exp()).sum();
        if !s.is_finite() {
            return Err("overflow".to_string());
        }
        Ok(s.ln())
    }

    #[forward]
    #[reverse]
    fn uses_fallible(x: &[f64]) -> Result<f64, String> {
        let lse = fallible(x)?;
        Ok(lse * 2.0)
    }

    #[test]
    fn struct_updates_attributes_and_results() {
        let p = Params {
            a: 1.5,
            b: -0.5,
            c: 2.0,
        };
        let (v, (g, gx)) = with_update_grad(&p, 0.7);
        assert_eq!(v, with_update(&p, 0.7));
        // d/da (a x + b c) = x; d/db = c; d/dc = b; d/dx = a.
        assert_eq!((g.a, g.b, g.c, gx), (0.7, 2.0, -0.5, 1.5));
        let (_, t) = with_update_jvp(
            &p,
            0.7,
            &Params {
                a: 1.0,
                b: 0.0,
                c: 0.0,
            },
            0.0,
        );
        assert_eq!(t, 0.7);
        check(
            2,
            |v| documented(v[0], v[1]),
            |v, d| documented_jvp(v[0], v[1], d[0], d[1]),
            |v, c| {
                let (r, (a, b)) = documented_vjp(v[0], v[1], c);
                (r, vec![a, b])
            },
        );
        check(
            3,
            |x| uses_fallible(x).unwrap(),
            |x, d| uses_fallible_jvp(x, d).unwrap(),
            |x, c| uses_fallible_vjp(x, c).unwrap(),
        );
    }
}

mod adapters_and_retain {
    use super::check;
    use ad_runtime::{forward, reverse};

    #[forward]
    #[reverse]
    fn adapters(x: &[f64]) -> f64 {
        let a: f64 = x
            .iter()
            .rev()
            .enumerate()
            .map(|(i, v)| v * (i as f64 + 1.0))
            .sum();
        let b = x.iter().copied().min_by(|p, q| p.total_cmp(q)).unwrap();
        let c: Vec<f64> = x.iter().copied().collect::<Vec<_>>();
        let d: f64 = c
            .into_iter()
            .skip_while(|v| *v < -5.0)
            .map(|v| v * 0.5)
            .sum();
        let e = x.iter().step_by(2).copied().fold(0.0, |_, v| v);
        let (first, rest) = (&x[0], &x[1..]);
        let f: f64 = rest.iter().map(|r| r * first).sum();
        let g = x[2..].to_vec();
        a + b + d + e + f + g.iter().sum::<f64>()
    }

    #[forward]
    #[reverse]
    fn mutating(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        v.retain(|a| a.is_finite());
        let limit = x[0] + 1.0;
        v.retain(|a| *a < limit);
        for c in v.chunks_exact_mut(2) {
            c[0] *= c[1];
        }
        let drained: f64 = v[..1].iter().sum();
        v.iter().sum::<f64>() + drained
    }

    #[forward]
    #[reverse]
    fn retain_local(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        let limit = -0.5;
        v.retain(|a| *a > limit);
        let mut idx: Vec<usize> = (0..x.len()).collect();
        let center = 0.25;
        idx.sort_by(|&i, &j| {
            (x[i] - center)
                .abs()
                .partial_cmp(&(x[j] - center).abs())
                .unwrap()
        });
        v.iter().sum::<f64>() + x[idx[0]]
    }

    #[forward]
    #[reverse]
    fn splits(x: &[f64]) -> f64 {
        let (first, rest) = x.split_first().unwrap();
        let (last, init) = x.split_last().expect("not empty");
        let a: f64 = rest.iter().map(|r| r * first).sum();
        let b: f64 = init.iter().map(|v| v * last).sum();
        a + b * first
    }

    #[test]
    fn adapters_and_retained_elements() {
        check(4, splits, splits_jvp, splits_vjp);
        check(5, retain_local, retain_local_jvp, retain_local_vjp);
        check(5, adapters, adapters_jvp, adapters_vjp);
        check(5, mutating, mutating_jvp, mutating_vjp);
    }
}

/// Review cases: struct updates from places, `retain` of a set, a data container sorted by a
/// comparator with float literals.
mod updates_of_places {
    use ad_runtime::{forward, reverse, Differentiable};
    use std::collections::HashSet;

    #[derive(Clone, Debug, Differentiable)]
    pub struct Params {
        pub a: f64,
        pub b: f64,
    }

    pub struct Cfg {
        pub w: Vec<f64>,
    }

    #[forward]
    #[reverse]
    fn updates_and_data(x: &[f64], #[no_grad] cfg: &mut Cfg, seen: &mut HashSet<usize>) -> f64 {
        let p = Params { a: x[0], b: x[1] };
        let q = Params { a: 2.0 * p.a, ..p };
        let r = Params {
            b: q.b * 3.0,
            ..q.clone()
        };
        seen.retain(|&i| i < 10);
        cfg.w
            .sort_by(|a, b| (a - 0.5).abs().partial_cmp(&(b - 0.5).abs()).unwrap());
        p.b + q.a * r.b + cfg.w[0] * x[0]
    }

    #[test]
    fn updates_of_places_and_data_containers_ordered() {
        let mut cfg = Cfg {
            w: vec![0.1, 0.9, 0.45],
        };
        let mut seen: HashSet<usize> = [1, 20].into_iter().collect();
        let mut c2 = Cfg { w: cfg.w.clone() };
        let mut s2 = seen.clone();
        let v = updates_and_data(&[0.3, 0.7], &mut c2, &mut s2);
        let (v2, g) = updates_and_data_grad(&[0.3, 0.7], &mut cfg, &mut seen);
        assert_eq!(v, v2);
        assert_eq!(seen.len(), 1);
        // d/dx0 = 2 * 3 * x1 + w0; d/dx1 = 1 + 2 x0 * 3.
        assert!((g[0] - (6.0 * 0.7 + 0.45)).abs() < 1e-12);
        assert!((g[1] - (1.0 + 6.0 * 0.3)).abs() < 1e-12);
    }
}

/// Rows of contiguous slices walked by iterator chains, as the performance-minded write them
/// (ADBench's GMM and LSTM written this way are in `ad-bench/src/adbench/idiomatic.rs`): a
/// sub-slice of a collected local zipped with `iter_mut`, a triangle walked by
/// `transformed[i + 1..].iter_mut()`, `chunks_exact` rows, `split_at` and `split_at_mut`,
/// `copy_from_slice`.
mod rows_and_sub_slices {
    use super::check;
    use ad_runtime::{forward, reverse};

    #[forward]
    #[reverse]
    fn scaled_rows(x: &[f64], d: usize) -> f64 {
        let squares: Vec<f64> = x.iter().map(|v| v * v).collect();
        let mut t = vec![0.0; d];
        let mut total = 0.0;
        for (row, chunk) in x.chunks_exact(d).enumerate() {
            let q = &squares[row * d..(row + 1) * d];
            for ((ti, qj), cj) in t.iter_mut().zip(q).zip(chunk) {
                *ti = qj * cj;
            }
            let mut next = 0;
            for (i, ti) in chunk.iter().enumerate() {
                for tj in t[i + 1..].iter_mut() {
                    *tj += x[next] * ti;
                    next += 1;
                }
            }
            total += t.iter().map(|v| v.sin()).sum::<f64>();
        }
        total
    }

    #[forward]
    #[reverse]
    fn split_state(x: &[f64], b: usize) -> f64 {
        let (weights, biases) = x.split_at(b);
        let mut s = vec![0.5; 2 * b];
        let mut out = vec![0.0; b];
        for _ in 0..2 {
            let (hidden, cell) = s.split_at_mut(b);
            for i in 0..b {
                cell[i] = cell[i] * (hidden[i] * weights[i]).tanh() + biases[i];
                hidden[i] = cell[i].sin();
            }
            out.copy_from_slice(hidden);
        }
        out.iter().zip(biases).map(|(o, c)| o * c).sum()
    }

    #[test]
    fn rows_walked_by_iterator_chains() {
        check(
            6,
            |x| scaled_rows(x, 3),
            |x, d| scaled_rows_jvp(x, 3, d),
            |x, c| scaled_rows_vjp(x, 3, c),
        );
        check(
            6,
            |x| split_state(x, 3),
            |x, d| split_state_jvp(x, 3, d),
            |x, c| split_state_vjp(x, 3, c),
        );
    }
}

/// The `macro_rules!` helpers of the file in a differentiated body, expanded for the derivative
/// as rustc expands them: an expression argument is one operand (`sq!(x[1] - 1.0)`), a macro may
/// call another the body does not call, a call may stand as a statement, and one that binds a
/// name the caller passes (`doubled!(y, ..)`) binds it for the statements after it.
mod crate_macros {
    use super::check;
    use ad_runtime::{forward, reverse};

    macro_rules! sq {
        ($e:expr) => {
            $e * $e
        };
    }

    macro_rules! idx {
        ($i:expr, $j:expr, $n:expr) => {
            $i * $n + $j
        };
    }

    macro_rules! shifted {
        ($e:expr) => {{
            let t = 2.0;
            $e * t
        }};
    }

    macro_rules! norm2 {
        ($a:expr, $b:expr) => {
            (sq!($a) + sq!($b)).sqrt()
        };
    }

    macro_rules! accumulate {
        ($sum:ident, $e:expr) => {
            $sum += $e;
        };
    }

    macro_rules! doubled {
        ($name:ident, $e:expr) => {
            let $name = $e * 2.0;
        };
    }

    #[forward]
    #[reverse]
    fn with_macros(x: &[f64]) -> f64 {
        let mut s = 0.0;
        let k = 3.0;
        for v in x {
            s += v.sin().powi(2);
        }
        accumulate!(s, norm2!(x[0], x[1] - 1.0));
        doubled!(y, x[1] * x[1]);
        s + x[idx!(0, 1, 1)] * (x[0] + 1.0).powi(2) + shifted!(k * x[0]) + y
    }

    #[test]
    fn macros_of_the_crate_expanded_as_rustc_expands_them() {
        let x = [0.3, 0.7];
        let expected = 0.3f64.sin().powi(2)
            + 0.7f64.sin().powi(2)
            + (0.09f64 + 0.09).sqrt()
            + 0.7 * 1.3 * 1.3
            + 3.0 * 0.3 * 2.0
            + 0.49 * 2.0;
        assert!((with_macros(&x) - expected).abs() < 1e-12);
        check(2, with_macros, with_macros_jvp, with_macros_vjp);
    }
}

/// A tuple with a constant part taken apart by a pattern (the constant's adjoint slot takes
/// its type from where it goes); a macro's `tt` fragment that is a compound operator and a
/// negative `literal`.
mod constant_parts_and_macro_fragments {
    use super::check;
    use ad_runtime::{forward, reverse};

    #[forward]
    #[reverse]
    #[allow(clippy::match_single_binding)]
    fn extract_const(x: &[f64]) -> f64 {
        let p = (x[0] * 2.0, 1.0);
        match p {
            (a, b) => a * b + x[1],
        }
    }

    macro_rules! apply {
        ($a:ident $op:tt $b:expr) => {{
            let mut acc = $a;
            acc $op $b;
            acc
        }};
    }

    macro_rules! scaled {
        ($l:literal, $e:expr) => {
            $l * $e
        };
    }

    #[forward]
    #[reverse]
    fn fragments(x: &[f64]) -> f64 {
        let y = x[0];
        apply!(y += x[1] * 2.0) + scaled!(-1.5, x[0] * x[1])
    }

    #[test]
    fn constant_parts_and_fragments() {
        check(2, extract_const, extract_const_jvp, extract_const_vjp);
        assert!((fragments(&[0.5, 0.25]) - (0.5 + 0.5 - 1.5 * 0.125)).abs() < 1e-12);
        check(2, fragments, fragments_jvp, fragments_vjp);
    }
}

/// Statistics and folds as they are usually spelled: a sample's standard deviation, its largest
/// deviation by `fold(0.0, f64::max)` and largest element by `cloned().fold(NEG_INFINITY, ..)`;
/// the median of successive differences (`windows(2)`, `sort_by` on `partial_cmp`); Horner's
/// rule as a `rev().fold`; rows of a `&[Vec<f64>]` walked by nested `enumerate`s, `position`,
/// and a sum over `(0..n).map(..)`.
mod folds_and_statistics {
    use super::check;
    use ad_runtime::{forward, reverse};

    #[forward]
    #[reverse]
    fn spread(x: &[f64]) -> f64 {
        let n = x.len() as f64;
        let mean = x.iter().sum::<f64>() / n;
        let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let largest_deviation = x.iter().map(|v| (v - mean).abs()).fold(0.0, f64::max);
        let top = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        var.sqrt() + largest_deviation + top
    }

    #[forward]
    #[reverse]
    fn median_step(x: &[f64]) -> f64 {
        let steps: Vec<f64> = x.windows(2).map(|w| w[1] - w[0]).collect();
        let mut sorted = steps.clone();
        sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let median = sorted[sorted.len() / 2];
        let horner = x.iter().rev().fold(0.0, |acc, c| acc * 0.5 + c);
        median * horner
    }

    #[forward]
    #[reverse]
    fn weighted_rows(#[no_grad] m: &[Vec<f64>], w: &[f64]) -> f64 {
        let mut s = 0.0;
        for (i, row) in m.iter().enumerate() {
            for (j, v) in row.iter().enumerate() {
                s += v * w[(i + j) % w.len()];
            }
        }
        let k = w.iter().position(|&v| v > 0.5).unwrap_or(0);
        s * w[k] + (0..w.len()).map(|i| w[i] * w[i]).sum::<f64>()
    }

    #[test]
    fn folds_sorts_and_rows() {
        check(4, spread, spread_jvp, spread_vjp);
        check(5, median_step, median_step_jvp, median_step_vjp);
        let m = vec![vec![0.1, 0.2], vec![0.3, 0.4, 0.5]];
        check(
            3,
            |w| weighted_rows(&m, w),
            |w, d| weighted_rows_jvp(&m, w, d),
            |w, c| weighted_rows_vjp(&m, w, c),
        );
    }
}
