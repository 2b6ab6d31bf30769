//! An adversarial review of reverse-mode results that are tuples, `Vec`s and arrays of floats,
//! tuple results taken apart (`let (a, b) = g(x)`), local tuples of floats, floats computed
//! from data alone, methods of derived types, and float sums. Every function carries
//! `#[forward]` and `#[reverse]` and is checked as a map from R^n to R^m: values bit for bit
//! against the plain function, forward along random directions against central differences,
//! reverse against forward by the dot-product identity <c, J t> = <J^T c, t>.

// The functions spell out what users write.
#![allow(
    clippy::unnecessary_cast,
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::vec_init_then_push,
    clippy::needless_return,
    clippy::let_and_return
)]

mod common;

use ad_runtime::{forward, reverse, Differentiable};
use approx::assert_relative_eq;
use common::{central_difference, random_vector, Rng};

// ===== the checker =====

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn inner(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(a, b)| a * b).sum()
}

/// A map from R^n to R^m in both modes at each point, along random directions.
fn check(
    plain: impl Fn(&[f64]) -> Vec<f64>,
    jvp: impl Fn(&[f64], &[f64]) -> (Vec<f64>, Vec<f64>),
    vjp: impl Fn(&[f64], &[f64]) -> (Vec<f64>, Vec<f64>),
    points: &[Vec<f64>],
) {
    let mut rng = Rng::new(2024);
    for x in points {
        let value = plain(x);
        for _ in 0..3 {
            let t = random_vector(&mut rng, x.len());
            let (forward_value, tangent) = jvp(x, &t);
            assert_eq!(bits(&forward_value), bits(&value), "forward value at {x:?}");
            assert_eq!(tangent.len(), value.len());
            for (k, &tk) in tangent.iter().enumerate() {
                let along = |h: f64| {
                    let moved: Vec<f64> = x.iter().zip(&t).map(|(a, b)| a + h * b).collect();
                    plain(&moved)[k]
                };
                let difference = central_difference(along, 0.0, 1e-4);
                assert_relative_eq!(tk, difference, epsilon = 1e-7, max_relative = 1e-7);
            }
            let c = random_vector(&mut rng, value.len());
            let (reverse_value, adjoint) = vjp(x, &c);
            assert_eq!(bits(&reverse_value), bits(&value), "reverse value at {x:?}");
            assert_relative_eq!(
                inner(&c, &tangent),
                inner(&adjoint, &t),
                epsilon = 1e-12,
                max_relative = 1e-12
            );
        }
    }
}

fn pts2() -> Vec<Vec<f64>> {
    vec![
        vec![0.7, -0.4],
        vec![1.3, 2.1],
        vec![-0.9, 0.3],
        vec![2.5, 0.6],
        vec![0.2, -1.7],
    ]
}

// ===== 1. tuple, Vec and array results =====

#[forward]
#[reverse]
fn tuple_early(x: f64, y: f64) -> (f64, f64) {
    if x > 2.0 {
        return (x * y, y);
    }
    let mut a = x.sin();
    for i in 0..4 {
        a += y * i as f64;
        if a > 3.0 {
            return (a, x);
        }
        if a < -2.0 {
            break;
        }
    }
    (a, a * x)
}

#[test]
fn tuple_results_with_early_returns() {
    check(
        |v| {
            let r = tuple_early(v[0], v[1]);
            vec![r.0, r.1]
        },
        |v, t| {
            let (r, d) = tuple_early_jvp(v[0], v[1], t[0], t[1]);
            (vec![r.0, r.1], vec![d.0, d.1])
        },
        |v, c| {
            let (r, (a, b)) = tuple_early_vjp(v[0], v[1], (c[0], c[1]));
            (vec![r.0, r.1], vec![a, b])
        },
        &pts2(),
    );
}

/// The same variable twice, a parameter as is, a constant element, three elements.
#[forward]
#[reverse]
fn tuple_aliases(x: f64, y: f64) -> (f64, f64, f64) {
    let a = x * y;
    if y > 1.0 {
        return (a, a, x);
    }
    (y, 2.0, a)
}

#[test]
fn tuple_results_repeating_a_variable() {
    check(
        |v| {
            let r = tuple_aliases(v[0], v[1]);
            vec![r.0, r.1, r.2]
        },
        |v, t| {
            let (r, d) = tuple_aliases_jvp(v[0], v[1], t[0], t[1]);
            (vec![r.0, r.1, r.2], vec![d.0, d.1, d.2])
        },
        |v, c| {
            let (r, (a, b)) = tuple_aliases_vjp(v[0], v[1], (c[0], c[1], c[2]));
            (vec![r.0, r.1, r.2], vec![a, b])
        },
        &pts2(),
    );
}

#[forward]
#[reverse]
fn vec_results(x: f64, y: f64, n: usize) -> Vec<f64> {
    if x > 2.0 {
        return vec![x, x * y, y];
    }
    let mut out = Vec::new();
    out.push(x);
    for i in 0..n {
        let last = out[i];
        out.push(last * y + x);
    }
    if y < -1.0 {
        return out;
    }
    out[0] = y.exp();
    out
}

#[test]
fn vec_results_built_by_pushes_and_vec() {
    for n in [0, 1, 3] {
        check(
            |v| vec_results(v[0], v[1], n),
            |v, t| vec_results_jvp(v[0], v[1], n, t[0], t[1]),
            |v, c| {
                let (r, (a, b)) = vec_results_vjp(v[0], v[1], n, c.to_vec());
                (r, vec![a, b])
            },
            &pts2(),
        );
    }
}

#[forward]
#[reverse]
fn vec_of_collect(x: &[f64], k: f64) -> Vec<f64> {
    let v: Vec<f64> = x.iter().map(|a| a * k).collect();
    if k > 2.0 {
        return v;
    }
    let w: Vec<f64> = v.iter().zip(x.iter()).map(|(a, b)| a * b + k).collect();
    w
}

#[test]
fn vec_results_from_collect() {
    let pts: Vec<Vec<f64>> = vec![vec![0.3, -0.5, 1.2, 2.5], vec![1.0, 2.0, 3.0, -0.4]];
    check(
        |v| vec_of_collect(&v[..3], v[3]),
        |v, t| vec_of_collect_jvp(&v[..3], v[3], &t[..3], t[3]),
        |v, c| {
            let (r, (a, b)) = vec_of_collect_vjp(&v[..3], v[3], c.to_vec());
            let mut g = a;
            g.push(b);
            (r, g)
        },
        &pts,
    );
}

#[forward]
#[reverse]
fn array_results(p: [f64; 3], s: f64) -> [f64; 3] {
    if s > 2.0 {
        return p;
    }
    let mut out = [0.0; 3];
    for i in 0..3 {
        out[i] = p[i] * s;
        if i == 1 {
            out[i] += out[0];
        }
    }
    if s < -1.0 {
        return [s, p[0], out[2]];
    }
    out
}

#[test]
fn array_results_with_early_returns() {
    let pts: Vec<Vec<f64>> = vec![
        vec![0.3, -0.5, 1.2, 0.5],
        vec![1.0, 2.0, 3.0, 2.5],
        vec![1.0, 2.0, 3.0, -1.5],
    ];
    check(
        |v| array_results([v[0], v[1], v[2]], v[3]).to_vec(),
        |v, t| {
            let (r, d) = array_results_jvp([v[0], v[1], v[2]], v[3], [t[0], t[1], t[2]], t[3]);
            (r.to_vec(), d.to_vec())
        },
        |v, c| {
            let (r, (a, b)) = array_results_vjp([v[0], v[1], v[2]], v[3], [c[0], c[1], c[2]]);
            let mut g = a.to_vec();
            g.push(b);
            (r.to_vec(), g)
        },
        &pts,
    );
}

/// A tuple held in a variable, changed in a loop, returned whole.
#[forward]
#[reverse]
fn tuple_in_loop(x: f64, y: f64, n: usize) -> (f64, f64) {
    let mut t = (x, y);
    for i in 0..n {
        if i == 3 {
            continue;
        }
        let first = t.0;
        t.0 = t.0 * y + t.1;
        t.1 = first;
        if t.0 > 50.0 {
            return t;
        }
    }
    t
}

#[test]
fn tuples_in_variables_through_loops() {
    for n in [0, 2, 6] {
        check(
            |v| {
                let r = tuple_in_loop(v[0], v[1], n);
                vec![r.0, r.1]
            },
            |v, t| {
                let (r, d) = tuple_in_loop_jvp(v[0], v[1], n, t[0], t[1]);
                (vec![r.0, r.1], vec![d.0, d.1])
            },
            |v, c| {
                let (r, (a, b)) = tuple_in_loop_vjp(v[0], v[1], n, (c[0], c[1]));
                (vec![r.0, r.1], vec![a, b])
            },
            &pts2(),
        );
    }
}

// ===== batch 2 =====

#[forward]
#[reverse]
fn tuple_from_sin_cos(x: f64) -> (f64, f64) {
    let (s, c) = x.sin_cos();
    (s, c)
}

#[forward]
#[reverse]
fn tuple_from_if(x: f64, y: f64) -> (f64, f64) {
    if x > y {
        return (x * y, y);
    }
    let a = x.exp();
    (a, a * y)
}

#[forward]
#[reverse]
fn tuple_from_match(x: f64, y: f64, k: u8) -> (f64, f64) {
    match k {
        0 => return (x, y),
        1 => return (y, x),
        _ => {}
    }
    let s = x + y;
    (s, s * s)
}

#[forward]
#[reverse]
fn tuple_from_loop_break(x: f64, y: f64) -> (f64, f64) {
    let mut a = x;
    for _ in 0..100 {
        a = a * 0.5 + y;
        if a.abs() < 4.0 {
            return (a, a * x);
        }
    }
    (x, y)
}

#[forward]
#[reverse]
fn tuple_param_returned(p: (f64, f64), s: f64) -> (f64, f64) {
    if s > 1.0 {
        return p;
    }
    (p.1 * s, p.0)
}

#[forward]
#[reverse]
fn tuple_from_call(x: f64, y: f64) -> (f64, f64) {
    let (a, b) = tuple_from_if(y, x);
    (b, a)
}

#[forward]
#[reverse]
fn tuple_recursive(x: f64, n: u32) -> (f64, f64) {
    if n == 0 {
        return (x, 1.0);
    }
    let (a, b) = tuple_recursive(x, n - 1);
    (a * x + b, a)
}

fn pair(p: (f64, f64)) -> Vec<f64> {
    vec![p.0, p.1]
}

#[test]
fn tuple_results_of_many_forms() {
    check(
        |v| pair(tuple_from_sin_cos(v[0])),
        |v, t| {
            let (r, d) = tuple_from_sin_cos_jvp(v[0], t[0]);
            (pair(r), pair(d))
        },
        |v, c| {
            let (r, a) = tuple_from_sin_cos_vjp(v[0], (c[0], c[1]));
            (pair(r), vec![a])
        },
        &[vec![0.3], vec![-2.0]],
    );
    check(
        |v| pair(tuple_from_if(v[0], v[1])),
        |v, t| {
            let (r, d) = tuple_from_if_jvp(v[0], v[1], t[0], t[1]);
            (pair(r), pair(d))
        },
        |v, c| {
            let (r, a) = tuple_from_if_vjp(v[0], v[1], (c[0], c[1]));
            (pair(r), pair(a))
        },
        &pts2(),
    );
    for k in 0..3 {
        check(
            |v| pair(tuple_from_match(v[0], v[1], k)),
            |v, t| {
                let (r, d) = tuple_from_match_jvp(v[0], v[1], k, t[0], t[1]);
                (pair(r), pair(d))
            },
            |v, c| {
                let (r, a) = tuple_from_match_vjp(v[0], v[1], k, (c[0], c[1]));
                (pair(r), pair(a))
            },
            &pts2(),
        );
    }
    check(
        |v| pair(tuple_from_loop_break(v[0], v[1])),
        |v, t| {
            let (r, d) = tuple_from_loop_break_jvp(v[0], v[1], t[0], t[1]);
            (pair(r), pair(d))
        },
        |v, c| {
            let (r, a) = tuple_from_loop_break_vjp(v[0], v[1], (c[0], c[1]));
            (pair(r), pair(a))
        },
        &[vec![0.7, -0.4], vec![10.3, 1.1], vec![-9.0, 0.3]],
    );
    check(
        |v| pair(tuple_param_returned((v[0], v[1]), v[2])),
        |v, t| {
            let (r, d) = tuple_param_returned_jvp((v[0], v[1]), v[2], (t[0], t[1]), t[2]);
            (pair(r), pair(d))
        },
        |v, c| {
            let (r, (p, s)) = tuple_param_returned_vjp((v[0], v[1]), v[2], (c[0], c[1]));
            (pair(r), vec![p.0, p.1, s])
        },
        &[vec![0.7, -0.4, 0.5], vec![1.3, 2.1, 1.5]],
    );
    check(
        |v| pair(tuple_from_call(v[0], v[1])),
        |v, t| {
            let (r, d) = tuple_from_call_jvp(v[0], v[1], t[0], t[1]);
            (pair(r), pair(d))
        },
        |v, c| {
            let (r, a) = tuple_from_call_vjp(v[0], v[1], (c[0], c[1]));
            (pair(r), pair(a))
        },
        &pts2(),
    );
    for n in [0, 1, 4] {
        check(
            |v| pair(tuple_recursive(v[0], n)),
            |v, t| {
                let (r, d) = tuple_recursive_jvp(v[0], n, t[0]);
                (pair(r), pair(d))
            },
            |v, c| {
                let (r, a) = tuple_recursive_vjp(v[0], n, (c[0], c[1]));
                (pair(r), vec![a])
            },
            &[vec![0.7], vec![-1.3]],
        );
    }
}

#[forward]
#[reverse]
fn vec_from_param(x: &[f64], v: Vec<f64>, s: f64) -> Vec<f64> {
    if s > 1.0 {
        return v;
    }
    let mut w = x.to_vec();
    w[0] *= s;
    let keep = w[1];
    w[1] = s * s;
    w.push(keep);
    if s < -1.0 {
        return x.to_vec();
    }
    w
}

#[forward]
#[reverse]
fn vec_from_if(x: f64, y: f64) -> Vec<f64> {
    if x > y {
        return vec![x; 3];
    }
    vec![y, x * y]
}

#[forward]
#[reverse]
fn array_from_param(p: [f64; 2], s: f64) -> [f64; 2] {
    let mut q = [p[0], p[1]];
    q[0] *= s;
    if s > 1.0 {
        return q;
    }
    q[1] = p[0] + q[0];
    q
}

#[test]
fn container_results_of_many_forms() {
    for s in [0.5, 1.5, -1.5] {
        check(
            |v| vec_from_param(&v[..2], v[2..].to_vec(), s),
            |v, t| vec_from_param_jvp(&v[..2], v[2..].to_vec(), s, &t[..2], t[2..].to_vec(), 0.0),
            |v, c| {
                let (r, (a, b, _)) = vec_from_param_vjp(&v[..2], v[2..].to_vec(), s, c.to_vec());
                let mut g = a;
                g.extend(b);
                (r, g)
            },
            &[vec![0.7, -0.4, 0.5, 0.1], vec![1.3, 2.1, 1.5, -0.3]],
        );
    }
    check(
        |v| vec_from_if(v[0], v[1]),
        |v, t| vec_from_if_jvp(v[0], v[1], t[0], t[1]),
        |v, c| {
            let (r, a) = vec_from_if_vjp(v[0], v[1], c.to_vec());
            (r, pair(a))
        },
        &pts2(),
    );
    check(
        |v| array_from_param([v[0], v[1]], v[2]).to_vec(),
        |v, t| {
            let (r, d) = array_from_param_jvp([v[0], v[1]], v[2], [t[0], t[1]], t[2]);
            (r.to_vec(), d.to_vec())
        },
        |v, c| {
            let (r, (a, b)) = array_from_param_vjp([v[0], v[1]], v[2], [c[0], c[1]]);
            (r.to_vec(), vec![a[0], a[1], b])
        },
        &[vec![0.7, -0.4, 0.5], vec![1.3, 2.1, 1.5]],
    );
}

// ===== 4. floats computed from data alone =====

/// A plain struct without the derive: data.
pub struct Cfg {
    pub lo: f64,
    pub hi: f64,
    pub w: Vec<f64>,
    pub n: usize,
    pub a: f64,
    pub b: f64,
}

impl Cfg {
    pub fn mid(&self) -> f64 {
        0.5 * (self.lo + self.hi)
    }

    pub fn scale(&self, t: f64) -> f64 {
        t * self.a
    }
}

fn cfg() -> Cfg {
    Cfg {
        lo: 0.3,
        hi: 1.7,
        w: vec![0.25, -1.5, 2.0],
        n: 3,
        a: 1.1,
        b: -0.6,
    }
}

#[forward]
#[reverse]
fn data_floats(x: f64, y: f64, cfg: &Cfg, n: usize, #[no_grad] c: f64, shift: Option<f64>) -> f64 {
    let mut s = 0.0;
    s += cfg.a * cfg.b;
    let k = cfg.lo;
    let m = cfg.mid();
    for i in 0..n {
        if x * cfg.w[i % 2] > cfg.hi {
            s += (cfg.lo + cfg.hi) * x;
            continue;
        }
        s += f64::sin(cfg.lo) * x + i as f64 * y;
        s -= cfg.scale(2.0) * k;
        if cfg.w[0] * c * s > 10.0 {
            break;
        }
        s *= shift.unwrap_or(1.0);
        s += m * c * x;
    }
    let f = |t: f64| t * cfg.lo + c;
    s + f(x) + n as f64 * y + cfg.n as f64 + cfg.lo.cos() * x.sin() + x * cfg.w[1]
}

#[test]
fn floats_from_data_in_loops_branches_and_closures() {
    let cfg = cfg();
    for shift in [None, Some(-0.7)] {
        for n in [0, 1, 4] {
            for c in [0.4, 30.0] {
                check(
                    |v| vec![data_floats(v[0], v[1], &cfg, n, c, shift)],
                    |v, t| {
                        let (r, d) = data_floats_jvp(v[0], v[1], &cfg, n, c, shift, t[0], t[1]);
                        (vec![r], vec![d])
                    },
                    |v, ct| {
                        let (r, (a, b)) = data_floats_vjp(v[0], v[1], &cfg, n, c, shift, ct[0]);
                        (vec![r], vec![a, b])
                    },
                    &pts2(),
                );
            }
        }
    }
}

/// A data float's local bound by a call, updated with data, then used with floats.
#[forward]
#[reverse]
fn data_locals_updated(x: f64, cfg: &Cfg, shift: Option<f64>) -> f64 {
    let mut k = cfg.mid();
    k = k * 2.0 + cfg.lo;
    let mut j = shift.unwrap_or(0.5);
    j = j - cfg.hi;
    let mut acc = 0.0;
    for _ in 0..3 {
        acc += k * x;
        k = acc;
    }
    acc + j * x
}

#[test]
fn data_locals_that_become_floats() {
    let cfg = cfg();
    for shift in [None, Some(2.0)] {
        check(
            |v| vec![data_locals_updated(v[0], &cfg, shift)],
            |v, t| {
                let (r, d) = data_locals_updated_jvp(v[0], &cfg, shift, t[0]);
                (vec![r], vec![d])
            },
            |v, ct| {
                let (r, a) = data_locals_updated_vjp(v[0], &cfg, shift, ct[0]);
                (vec![r], vec![a])
            },
            &[vec![0.4], vec![-1.3], vec![2.2]],
        );
    }
}

// ===== 5. methods of derived types =====

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct V2 {
    pub x: f64,
    pub y: f64,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Body {
    pub pos: V2,
    pub vel: V2,
    pub m: f64,
    pub n: usize,
    pub w: Vec<f64>,
}

impl V2 {
    #[forward]
    #[reverse]
    pub fn norm(&self) -> f64 {
        (self.x * self.x + self.y * self.y).sqrt()
    }

    #[forward]
    #[reverse]
    pub fn dot(&self, #[grad] o: &V2) -> f64 {
        self.x * o.x + self.y * o.y
    }

    #[forward]
    #[reverse]
    pub fn pow_norm(&self, k: f64, n: usize) -> f64 {
        let mut s = 0.0;
        for i in 0..n {
            if i == 2 {
                continue;
            }
            s += self.norm() * k + self.dot(self);
            if s > 100.0 {
                return s;
            }
        }
        s
    }

    #[forward]
    #[reverse]
    pub fn by_value(self, k: f64) -> f64 {
        self.x * k - self.y
    }

    #[forward]
    #[reverse]
    pub fn pair(&self, k: f64) -> (f64, f64) {
        (self.x * k, self.y / k)
    }
}

impl Body {
    #[forward]
    #[reverse]
    pub fn energy(&self, g: f64) -> f64 {
        let mut e = 0.5 * self.m * V2::dot(&self.vel, &self.vel) + g * self.pos.y * self.m;
        for i in 0..self.w.len() {
            e += self.w[i] * V2::norm(&self.pos);
        }
        e + V2::norm(&self.pos) * self.n as f64
    }

    #[forward]
    #[reverse]
    pub fn total(&self, g: f64) -> f64 {
        let e = self.energy(g);
        let (a, b) = V2::pair(&self.pos, g);
        e * a + b + V2::pow_norm(&self.vel, g, 3)
    }
}

#[forward]
#[reverse]
pub fn free(#[grad] b: &Body, #[grad] v: &V2, g: f64) -> f64 {
    let s = b.total(g) + v.dot(&b.pos) + V2::norm(v) + V2::dot(&b.vel, v);
    let t = V2::norm(&b.pos);
    s * t
}

fn random_body(rng: &mut Rng) -> Body {
    Body {
        pos: V2 {
            x: rng.uniform(-1.5, 1.5),
            y: rng.uniform(-1.5, 1.5),
        },
        vel: V2 {
            x: rng.uniform(-1.5, 1.5),
            y: rng.uniform(-1.5, 1.5),
        },
        m: rng.uniform(0.5, 2.0),
        n: 2,
        w: random_vector(rng, 3),
    }
}

#[test]
fn methods_calling_methods_and_free_functions_calling_methods() {
    let mut rng = Rng::new(5);
    for _ in 0..5 {
        let b = random_body(&mut rng);
        let v = V2 {
            x: rng.uniform(-1.5, 1.5),
            y: rng.uniform(-1.5, 1.5),
        };
        let g = rng.uniform(0.5, 1.5);
        let value = free(&b, &v, g);
        let (reverse_value, (gb, gv, gg)) = free_vjp(&b, &v, g, 1.0);
        assert_eq!(reverse_value.to_bits(), value.to_bits());
        for _ in 0..3 {
            let db = common::random_like(&b, &mut rng);
            let dv = common::random_like(&v, &mut rng);
            let dg = rng.uniform(-1.0, 1.0);
            let (forward_value, tangent) = free_jvp(&b, &v, g, &db, &dv, dg);
            assert_eq!(forward_value.to_bits(), value.to_bits());
            let along = |h: f64| {
                free(
                    &common::axpy(&b, h, &db),
                    &common::axpy(&v, h, &dv),
                    g + h * dg,
                )
            };
            let difference = central_difference(along, 0.0, 1e-4);
            assert_relative_eq!(tangent, difference, epsilon = 1e-7, max_relative = 1e-7);
            let adjoint = common::dot(&gb, &db) + common::dot(&gv, &dv) + gg * dg;
            assert_relative_eq!(adjoint, tangent, epsilon = 1e-12, max_relative = 1e-12);
        }
        // Methods through the public method forms.
        let (value, (gb, gg)) = b.total_vjp(g, 1.0);
        assert_eq!(value.to_bits(), b.total(g).to_bits());
        let db = common::random_like(&b, &mut rng);
        let (forward_value, tangent) = b.total_jvp(g, &db, 0.5);
        assert_eq!(forward_value.to_bits(), value.to_bits());
        assert_relative_eq!(
            common::dot(&gb, &db) + 0.5 * gg,
            tangent,
            epsilon = 1e-12,
            max_relative = 1e-12
        );
        let (value, (gp, gk)) = v.pair_vjp(g, (0.3, -0.8));
        assert_eq!(value, v.pair(g));
        let (_, tangent) = v.pair_jvp(g, &V2 { x: 1.0, y: -1.0 }, 0.25);
        assert_relative_eq!(
            gp.x - gp.y + 0.25 * gk,
            0.3 * tangent.0 - 0.8 * tangent.1,
            epsilon = 1e-12,
            max_relative = 1e-12
        );
        let (value, (gs, gk)) = v.clone().by_value_grad(g);
        assert_eq!(value.to_bits(), v.clone().by_value(g).to_bits());
        assert_eq!((gs.x, gs.y, gk), (g, -1.0, v.x));
    }
}

// ===== 6. float sums, bit for bit =====

#[forward]
#[reverse]
fn sums(x: &[f64], k: f64) -> (f64, f64, f64, f64) {
    let a: f64 = x.iter().sum();
    let b = x.iter().map(|v| v * k).sum::<f64>();
    let c: f64 = x.iter().filter(|v| **v > 100.0).sum();
    let d = x.iter().fold(0.0, |acc, v| acc + v * k);
    (a, b, c, d)
}

#[forward]
#[reverse]
fn products(x: &[f64], k: f64) -> f64 {
    let p: f64 = x.iter().map(|v| v * k).product();
    p
}

fn plain_sums(x: &[f64], k: f64) -> [f64; 5] {
    let a: f64 = x.iter().sum();
    let b = x.iter().map(|v| v * k).sum::<f64>();
    let c: f64 = x.iter().filter(|v| **v > 100.0).sum();
    let d = x.iter().fold(0.0, |acc, v| acc + v * k);
    let p: f64 = x.iter().map(|v| v * k).product();
    [a, b, c, d, p]
}

#[test]
fn sums_equal_std_bit_for_bit() {
    let cases: Vec<Vec<f64>> = vec![
        vec![],
        vec![-0.0],
        vec![-0.0, -0.0],
        vec![0.0],
        vec![1e308, 1e308, -1e308],
        vec![0.1, 0.2, 0.3],
    ];
    for x in &cases {
        for k in [-0.0, 0.0, 2.0, -1.0] {
            let expected = plain_sums(x, k);
            let value = sums(x, k);
            assert_eq!(value.0.to_bits(), expected[0].to_bits(), "{x:?}");
            let tuple = |v: (f64, f64, f64, f64)| [v.0, v.1, v.2, v.3];
            let (forward, _) = sums_jvp(x, k, &vec![1.0; x.len()], 1.0);
            let (reverse, _) = sums_vjp(x, k, (1.0, 1.0, 1.0, 1.0));
            assert_eq!(bits(&tuple(value)), bits(&expected[..4]), "{x:?} {k}");
            assert_eq!(bits(&tuple(forward)), bits(&expected[..4]), "{x:?} {k}");
            assert_eq!(bits(&tuple(reverse)), bits(&expected[..4]), "{x:?} {k}");
            let (forward, _) = products_jvp(x, k, &vec![1.0; x.len()], 1.0);
            let (reverse, _) = products_grad(x, k);
            assert_eq!(forward.to_bits(), expected[4].to_bits(), "{x:?} {k}");
            assert_eq!(reverse.to_bits(), expected[4].to_bits(), "{x:?} {k}");
        }
    }
    let x = [0.3, -1.2, 0.7];
    let (_, (gx, gk)) = sums_vjp(&x, 1.5, (1.0, 0.0, 0.0, 0.0));
    assert_eq!((gx, gk), (vec![1.0; 3], 0.0));
    let (_, (gx, gk)) = sums_vjp(&x, 1.5, (0.0, 1.0, 0.0, 2.0));
    assert_eq!(gx, vec![4.5; 3]);
    assert_relative_eq!(gk, 3.0 * (0.3 - 1.2 + 0.7), max_relative = 1e-14);
}

// ===== 3. local tuples of floats, with loops, exits, calls and shadowing =====

#[forward]
#[reverse]
fn takes(mut p: (f64, f64)) -> f64 {
    p.0 *= p.1;
    p.1 = p.0 + 1.0;
    p.0 * p.1
}

#[forward]
#[reverse]
fn rec(p: (f64, f64), n: u32) -> f64 {
    if n == 0 {
        return p.0 * p.1;
    }
    {
        let q = (p.1, p.0 * 2.0);
        rec(q, n - 1) + p.0
    }
}

#[forward]
#[reverse]
fn h1(x: f64, y: f64, n: usize) -> (f64, f64) {
    let x = (x, y);
    let mut t = (x.1, x.0);
    let (a, b) = t;
    for i in 0..n {
        t.0 = t.0 * t.1 + t.0;
        t.1 *= t.1;
        if i == 1 {
            continue;
        }
        t.0 = takes(t);
        if t.0 > 1e6 {
            break;
        }
    }
    t.1 += a * b + rec(t, 2);
    t
}

#[forward]
#[reverse]
fn h2(x: f64, y: f64, n: usize) -> Vec<f64> {
    let mut out = Vec::new();
    let mut a = x;
    for i in 0..n {
        out.push(a);
        a *= y;
        out.push(a);
        if i == 2 {
            return out;
        }
    }
    out.push(n as f64);
    out
}

#[forward]
#[reverse]
fn h3(x: f64, #[no_grad] w: &[f64]) -> Vec<f64> {
    if x > 0.0 {
        return w.to_vec();
    }
    let mut out = vec![0.0; w.len()];
    for i in 0..w.len() {
        out[i] += w[i] * x;
        let o = out[i];
        out[i] *= o;
    }
    out
}

#[forward]
#[reverse]
fn h4(x: f32, y: f32) -> (f32, f32) {
    let t = (x * y, y.sin());
    t
}

#[forward]
#[reverse]
fn h5(x: f32, y: &[f32]) -> Vec<f32> {
    y.iter().map(|v| v * x).collect()
}

#[forward]
#[reverse]
fn h6(x: f64, n: usize) -> (f64, f64) {
    (n as f64, x)
}

#[test]
fn local_tuples_in_loops_passed_on_whole() {
    for n in [0, 1, 2, 5] {
        check(
            |v| pair(h1(v[0], v[1], n)),
            |v, t| {
                let (r, d) = h1_jvp(v[0], v[1], n, t[0], t[1]);
                (pair(r), pair(d))
            },
            |v, c| {
                let (r, a) = h1_vjp(v[0], v[1], n, (c[0], c[1]));
                (pair(r), pair(a))
            },
            &[vec![0.7, -0.4], vec![0.3, 0.9], vec![-0.9, 0.3]],
        );
    }
    check(
        |v| vec![rec((v[0], v[1]), 3)],
        |v, t| {
            let (r, d) = rec_jvp((v[0], v[1]), 3, (t[0], t[1]));
            (vec![r], vec![d])
        },
        |v, c| {
            let (r, a) = rec_vjp((v[0], v[1]), 3, c[0]);
            (vec![r], pair(a))
        },
        &pts2(),
    );
}

#[test]
fn vec_results_returned_from_loops_and_data() {
    for n in [0, 1, 2, 5] {
        check(
            |v| h2(v[0], v[1], n),
            |v, t| h2_jvp(v[0], v[1], n, t[0], t[1]),
            |v, c| {
                let (r, a) = h2_vjp(v[0], v[1], n, c.to_vec());
                (r, pair(a))
            },
            &pts2(),
        );
    }
    let w = [0.5, -1.25, 2.0];
    check(
        |v| h3(v[0], &w),
        |v, t| h3_jvp(v[0], &w, t[0]),
        |v, c| {
            let (r, a) = h3_vjp(v[0], &w, c.to_vec());
            (r, vec![a])
        },
        &[vec![0.7], vec![-0.4]],
    );
    check(
        |v| pair(h6(v[0], 3)),
        |v, t| {
            let (r, d) = h6_jvp(v[0], 3, t[0]);
            (pair(r), pair(d))
        },
        |v, c| {
            let (r, a) = h6_vjp(v[0], 3, (c[0], c[1]));
            (pair(r), vec![a])
        },
        &[vec![0.7]],
    );
}

#[test]
fn f32_tuple_and_vec_results() {
    let (x, y) = (0.7_f32, -1.3_f32);
    let (value, (dx, dy)) = h4_vjp(x, y, (1.0, 0.0));
    assert_eq!(value, h4(x, y));
    assert_eq!((dx, dy), (y, x));
    let (value, (dx, dy)) = h4_vjp(x, y, (0.0, 2.0));
    assert_eq!(value, h4(x, y));
    assert_eq!((dx, dy), (0.0, 2.0 * y.cos()));
    let (value, tangent) = h4_jvp(x, y, 0.0, 1.0);
    assert_eq!(value, h4(x, y));
    assert_eq!(tangent, (x, y.cos()));
    let v = [1.5_f32, -2.0, 0.25];
    let (value, (dx, dv)) = h5_vjp(x, &v, vec![1.0, 2.0, 3.0]);
    assert_eq!(value, h5(x, &v));
    assert_eq!(dx, 1.5 - 4.0 + 0.75);
    assert_eq!(dv, vec![x, 2.0 * x, 3.0 * x]);
}

// ===== 4. data receivers, data with side effects, move closures over data =====

/// Float methods on data receivers with float arguments.
#[forward]
#[reverse]
fn data_receivers(x: f64, y: f64, cfg: &Cfg, #[no_grad] c: f64) -> f64 {
    cfg.lo.max(x)
        + cfg.lo.powf(x)
        + cfg.hi.atan2(y)
        + cfg.lo.hypot(x)
        + cfg.a.mul_add(x, y)
        + cfg.hi.min(y)
        + c.max(x)
        + c.powf(y)
        + f64::max(c, y)
}

/// A data parameter whose method changes it: each call of it must run once, in order.
pub struct Counter {
    pub c: std::cell::Cell<f64>,
}

impl Counter {
    pub fn next(&self) -> f64 {
        let v = self.c.get();
        self.c.set(v + 1.0);
        v
    }
}

fn counter() -> Counter {
    Counter {
        c: std::cell::Cell::new(0.5),
    }
}

#[forward]
#[reverse]
fn side_effects(x: f64, k: &Counter) -> f64 {
    let a = k.next() * x;
    let b = x * k.next();
    let mut s = a + b;
    for _ in 0..2 {
        s += k.next();
        s *= x;
    }
    s + k.next().sin() * x
}

/// A move closure copies the data it captures where it is defined.
#[forward]
#[reverse]
fn move_closure_over_data(x: f64, cfg: &Cfg) -> f64 {
    let mut k = cfg.n;
    let f = move |s: f64| s * k as f64;
    k += 3;
    f(x) + k as f64 * x
}

#[test]
fn data_receivers_side_effects_and_move_closures() {
    let cfg = cfg();
    for c in [0.5, 2.0] {
        check(
            |v| vec![data_receivers(v[0], v[1], &cfg, c)],
            |v, t| {
                let (r, d) = data_receivers_jvp(v[0], v[1], &cfg, c, t[0], t[1]);
                (vec![r], vec![d])
            },
            |v, ct| {
                let (r, (a, b)) = data_receivers_vjp(v[0], v[1], &cfg, c, ct[0]);
                (vec![r], vec![a, b])
            },
            &[vec![0.7, -0.4], vec![1.3, 2.1], vec![0.1, 0.3]],
        );
    }
    check(
        |v| vec![side_effects(v[0], &counter())],
        |v, t| {
            let (r, d) = side_effects_jvp(v[0], &counter(), t[0]);
            (vec![r], vec![d])
        },
        |v, ct| {
            let (r, a) = side_effects_vjp(v[0], &counter(), ct[0]);
            (vec![r], vec![a])
        },
        &[vec![0.7], vec![-1.3]],
    );
    let k = counter();
    side_effects_grad(0.3, &k);
    assert_eq!(
        k.c.get(),
        5.5,
        "the data method runs once per call in the body"
    );
    check(
        |v| vec![move_closure_over_data(v[0], &cfg)],
        |v, t| {
            let (r, d) = move_closure_over_data_jvp(v[0], &cfg, t[0]);
            (vec![r], vec![d])
        },
        |v, ct| {
            let (r, a) = move_closure_over_data_vjp(v[0], &cfg, ct[0]);
            (vec![r], vec![a])
        },
        &[vec![0.7], vec![-1.3]],
    );
}

// ===== 2. tuple results taken apart in loops, recursion, checkpoints; methods named like float methods =====

#[forward]
#[reverse]
fn g(x: f64, n: u32) -> (f64, f64) {
    if n == 0 {
        return (x, x * x);
    }
    let (a, b) = g(x * 0.9, n - 1);
    (a + b * x, b.sin())
}

#[forward]
#[reverse]
fn k1(x: f64, y: f64, n: usize) -> (f64, f64) {
    let mut a = x;
    let mut b = y;
    let t = (a, b * 2.0);
    a = 5.0 * y;
    b *= x;
    let mut s = 0.0;
    for i in 0..n {
        let (p, q) = g(a * 0.1 + i as f64 * 0.01, 2);
        if p > 100.0 {
            break;
        }
        if i == 1 {
            continue;
        }
        let (a, q) = (q, p);
        s += a * q + t.0;
    }
    #[checkpoint]
    let z = (s * b).sin();
    (t.0 * z + a, t.1 + s)
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct W {
    pub x: f64,
    pub y: f64,
}

impl W {
    #[forward]
    #[reverse]
    pub fn abs(&self) -> f64 {
        self.x.abs() + self.y.abs()
    }

    #[forward]
    #[reverse]
    pub fn max(&self, k: f64) -> f64 {
        self.x.max(k) * self.y
    }

    #[forward]
    #[reverse]
    pub fn g(&self, n: u32) -> f64 {
        let (a, b) = g(self.x, n);
        a * b + self.abs() + self.max(self.y)
    }
}

#[forward]
#[reverse]
fn k2(#[grad] w: &W, k: f64) -> f64 {
    w.abs() * k + w.max(k) + w.g(2) + W::abs(w)
}

#[test]
fn tuple_results_taken_apart_in_loops_and_recursion() {
    for n in [0, 1, 2, 4] {
        check(
            |v| pair(k1(v[0], v[1], n)),
            |v, t| {
                let (r, d) = k1_jvp(v[0], v[1], n, t[0], t[1]);
                (pair(r), pair(d))
            },
            |v, c| {
                let (r, a) = k1_vjp(v[0], v[1], n, (c[0], c[1]));
                (pair(r), pair(a))
            },
            &pts2(),
        );
    }
}

#[test]
fn methods_named_like_float_methods() {
    let mut rng = Rng::new(9);
    for _ in 0..4 {
        let w = W {
            x: rng.uniform(-1.5, 1.5),
            y: rng.uniform(-1.5, 1.5),
        };
        let k = rng.uniform(-1.5, 1.5);
        common::check_user_type(k2, k2_jvp, k2_vjp, &w, k, &mut rng);
    }
}

// ===== closures and chains over local tuples; methods of an enum =====

#[forward]
#[reverse]
fn sq(a: f64, b: f64) -> f64 {
    a * b + a
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub enum Sh {
    Circle(f64),
    Rect { w: f64, h: f64 },
    Empty,
}

impl Sh {
    #[forward]
    #[reverse]
    pub fn area(&self, k: f64) -> f64 {
        match self {
            Sh::Circle(r) => 3.0 * r * r * k,
            Sh::Rect { w, h } => sq(*w, *h) * k,
            Sh::Empty => k,
        }
    }

    #[forward]
    #[reverse]
    pub fn twice(&self, k: f64) -> f64 {
        Sh::area(self, k * 2.0) + self.area(k)
    }
}

#[forward]
#[reverse]
fn n1(x: &[f64], y: f64, #[no_grad] lo: f64) -> f64 {
    let mut t = (y, y * y);
    let s: f64 = x.iter().filter(|v| **v > lo).map(|v| v * t.1 + t.0).sum();
    let f = |u: f64| u * t.0 + t.1;
    let a = f(s);
    t.0 = a;
    let g = |u: f64| u * t.1;
    let b = g(y);
    t.1 = 3.0 * t.0;
    let w: Vec<f64> = x.iter().map(|e| e * t.1).collect();
    a + b + w[0] + t.0
}

#[test]
fn closures_and_chains_reading_local_tuples() {
    for lo in [-10.0, 0.0, 10.0] {
        check(
            |v| vec![n1(&v[..3], v[3], lo)],
            |v, t| {
                let (r, d) = n1_jvp(&v[..3], v[3], lo, &t[..3], t[3]);
                (vec![r], vec![d])
            },
            |v, c| {
                let (r, (a, b)) = n1_vjp(&v[..3], v[3], lo, c[0]);
                let mut g = a;
                g.push(b);
                (vec![r], g)
            },
            &[vec![0.3, -0.5, 1.2, 0.5], vec![1.0, 2.0, -3.0, -1.5]],
        );
    }
}

#[test]
fn methods_of_an_enum() {
    let mut rng = Rng::new(3);
    for shape in [Sh::Circle(0.7), Sh::Rect { w: 1.3, h: -0.4 }, Sh::Empty] {
        common::check_user_type(
            |s: &Sh, k| s.twice(k),
            |s: &Sh, k, ds: &Sh, dk| s.twice_jvp(k, ds, dk),
            |s: &Sh, k, ct| s.twice_vjp(k, ct),
            &shape,
            0.8,
            &mut rng,
        );
    }
}

#[forward]
#[reverse]
fn sum_forms(x: &[f64], v: Vec<f64>, k: f64) -> [f64; 6] {
    let a = x.iter().copied().sum::<f64>();
    let b: f64 = x.iter().cloned().map(|e| e * k).sum();
    let c: f64 = x.iter().zip(v.iter()).map(|(p, q)| p * q).sum();
    let mut local = Vec::new();
    for i in 0..x.len() {
        local.push(x[i] * k);
    }
    let d: f64 = local.iter().sum();
    let mut e = 0.0;
    for _ in 0..2 {
        e += x.iter().filter(|u| **u > 5.0).sum::<f64>();
    }
    let f: f64 = v.iter().sum();
    [a, b, c, d, e, f]
}

#[forward]
#[reverse]
fn sum_f32(x: &[f32], k: f32) -> (f32, f32) {
    let a: f32 = x.iter().sum();
    let b: f32 = x.iter().map(|e| e * k).sum();
    (a, b)
}

#[test]
fn sum_forms_equal_std_bit_for_bit() {
    for x in [
        vec![],
        vec![-0.0],
        vec![-0.0, -0.0, -0.0],
        vec![0.5, -0.25, 1.0],
    ] {
        for k in [-0.0, 1.0] {
            let v: Vec<f64> = x.iter().map(|e| -e).collect();
            let expected = sum_forms(&x, v.clone(), k);
            let plain = [
                x.iter().sum::<f64>(),
                x.iter().map(|e| e * k).sum(),
                x.iter().zip(&v).map(|(p, q)| p * q).sum(),
                x.iter().map(|e| e * k).sum(),
                0.0 + x.iter().filter(|u| **u > 5.0).sum::<f64>()
                    + x.iter().filter(|u| **u > 5.0).sum::<f64>(),
                v.iter().sum(),
            ];
            assert_eq!(bits(&expected), bits(&plain), "{x:?} {k}");
            let t = vec![1.0; x.len()];
            let (forward, _) = sum_forms_jvp(&x, v.clone(), k, &t, t.clone(), 1.0);
            let (reverse, _) = sum_forms_vjp(&x, v.clone(), k, [1.0; 6]);
            assert_eq!(bits(&forward), bits(&plain), "{x:?} {k}");
            assert_eq!(bits(&reverse), bits(&plain), "{x:?} {k}");
            let xf: Vec<f32> = x.iter().map(|e| *e as f32).collect();
            let kf = k as f32;
            let plain_f32 = (
                xf.iter().sum::<f32>(),
                xf.iter().map(|e| e * kf).sum::<f32>(),
            );
            let (forward, _) = sum_f32_jvp(&xf, kf, &vec![1.0; xf.len()], 1.0);
            let (reverse, _) = sum_f32_vjp(&xf, kf, (1.0, 1.0));
            for got in [sum_f32(&xf, kf), forward, reverse] {
                assert_eq!(got.0.to_bits(), plain_f32.0.to_bits());
                assert_eq!(got.1.to_bits(), plain_f32.1.to_bits());
            }
        }
    }
    let x = [0.5, -0.25, 1.0];
    let v = [2.0, 3.0, -1.0];
    check(
        |w| sum_forms(&w[..3], w[3..6].to_vec(), w[6]).to_vec(),
        |w, t| {
            let (r, d) = sum_forms_jvp(
                &w[..3],
                w[3..6].to_vec(),
                w[6],
                &t[..3],
                t[3..6].to_vec(),
                t[6],
            );
            (r.to_vec(), d.to_vec())
        },
        |w, c| {
            let cot = [c[0], c[1], c[2], c[3], c[4], c[5]];
            let (r, (a, b, k)) = sum_forms_vjp(&w[..3], w[3..6].to_vec(), w[6], cot);
            let mut g = a;
            g.extend(b);
            g.push(k);
            (r.to_vec(), g)
        },
        &[[&x[..], &v[..], &[1.5]].concat()],
    );
}

// ===== local tuples as the state of checkpointed loops =====

#[forward]
#[reverse]
fn step(p: (f64, f64), k: f64) -> f64 {
    p.0 * k - p.1.sin()
}

#[forward]
#[reverse]
fn cp1(x: f64, y: f64, n: usize) -> (f64, f64) {
    let mut t = (x, y);
    #[checkpoint(every = 3)]
    for i in 0..n {
        let first = t.0;
        t.0 = (step(t, y) * 0.5 + t.1).tanh();
        t.1 = first * 0.9 + i as f64 * 0.01;
    }
    t
}

#[forward]
#[reverse]
fn cp2(x: f64, y: f64, n: usize) -> (f64, f64) {
    let mut t = (x, y);
    let mut i = 0;
    #[checkpoint(binomial, snapshots = 2)]
    while i < n {
        let first = t.0;
        t.0 = (t.0 * y).sin() + t.1 * 0.5;
        t.1 = first;
        i += 1;
    }
    let (a, b) = cp1(t.0, t.1, 4);
    #[checkpoint]
    let z = a * b;
    (z, t.1)
}

#[test]
fn local_tuples_in_checkpointed_loops() {
    for n in [0, 1, 5, 11] {
        for (plain, jvp, vjp) in [
            (
                cp1 as fn(f64, f64, usize) -> (f64, f64),
                cp1_jvp as fn(f64, f64, usize, f64, f64) -> ((f64, f64), (f64, f64)),
                cp1_vjp as fn(f64, f64, usize, (f64, f64)) -> ((f64, f64), (f64, f64)),
            ),
            (cp2, cp2_jvp, cp2_vjp),
        ] {
            check(
                |v| pair(plain(v[0], v[1], n)),
                |v, t| {
                    let (r, d) = jvp(v[0], v[1], n, t[0], t[1]);
                    (pair(r), pair(d))
                },
                |v, c| {
                    let (r, a) = vjp(v[0], v[1], n, (c[0], c[1]));
                    (pair(r), pair(a))
                },
                &pts2(),
            );
        }
    }
}

// ===== methods through aliases and parts (by the type's path) =====

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct W3 {
    pub x: f64,
    pub y: f64,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Cloud {
    pub items: Vec<W3>,
    pub scale: f64,
    pub arr: [W3; 2],
}

impl W3 {
    #[forward]
    #[reverse]
    pub fn norm(&self) -> f64 {
        (self.x * self.x + self.y * self.y).sqrt()
    }

    #[forward]
    #[reverse]
    pub fn via_free(&self, k: f64) -> f64 {
        helper(self, k) * self.x
    }
}

#[forward]
#[reverse]
fn helper(#[grad] w: &W3, k: f64) -> f64 {
    w.norm() * k + w.y
}

#[forward]
#[reverse]
fn q1(#[grad] w: &W3, k: f64) -> f64 {
    let q = w;
    W3::norm(q) * k
}

#[forward]
#[reverse]
fn q2(#[grad] c: &Cloud, k: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..c.items.len() {
        if i == 1 {
            continue;
        }
        s += W3::norm(&c.items[i]) * c.scale + W3::via_free(&c.items[i], k);
        if s > 100.0 {
            break;
        }
    }
    s + W3::norm(&c.arr[1]) * k + helper(&c.arr[0], k)
}

fn random_w3(rng: &mut Rng) -> W3 {
    W3 {
        x: rng.uniform(-1.5, 1.5),
        y: rng.uniform(-1.5, 1.5),
    }
}

#[test]
fn methods_by_path_on_parts_and_aliases() {
    let mut rng = Rng::new(21);
    for len in [0, 1, 3] {
        let cloud = Cloud {
            items: (0..len).map(|_| random_w3(&mut rng)).collect(),
            scale: rng.uniform(0.5, 1.5),
            arr: [random_w3(&mut rng), random_w3(&mut rng)],
        };
        common::check_user_type(q2, q2_jvp, q2_vjp, &cloud, 0.7, &mut rng);
        let w = random_w3(&mut rng);
        common::check_user_type(q1, q1_jvp, q1_vjp, &w, -1.2, &mut rng);
        common::check_user_type(
            |w: &W3, k| w.via_free(k),
            |w: &W3, k, dw: &W3, dk| w.via_free_jvp(k, dw, dk),
            |w: &W3, k, ct| w.via_free_vjp(k, ct),
            &w,
            0.4,
            &mut rng,
        );
    }
}

// ===== shadowing of tuples; a move closure over a float changed later =====

#[forward]
#[reverse]
fn s1(p: (f64, f64), k: f64) -> (f64, f64) {
    let p = (p.1, p.0 * k);
    let mut acc = 0.0;
    {
        let p = p.0 * 3.0;
        acc += p;
    }
    let t = (acc, p.1);
    let x = t.0 as i32;
    let acc = x as f64 * k + acc;
    if acc > 1.0 {
        let p = (p.0, acc);
        return p;
    }
    (p.0 + t.1, p.1 * acc)
}

#[forward]
#[reverse]
fn s2(x: f64, y: f64) -> f64 {
    let mut a = x;
    let f = move |s: f64| s * a;
    a *= 2.0;
    f(y) + a
}

#[test]
fn shadowed_tuples_and_move_closures() {
    check(
        |v| pair(s1((v[0], v[1]), v[2])),
        |v, t| {
            let (r, d) = s1_jvp((v[0], v[1]), v[2], (t[0], t[1]), t[2]);
            (pair(r), pair(d))
        },
        |v, c| {
            let (r, (p, k)) = s1_vjp((v[0], v[1]), v[2], (c[0], c[1]));
            (pair(r), vec![p.0, p.1, k])
        },
        &[
            vec![0.7, -0.4, 0.5],
            vec![0.05, 0.1, 0.2],
            vec![-0.3, 0.9, -1.3],
        ],
    );
    check(
        |v| vec![s2(v[0], v[1])],
        |v, t| {
            let (r, d) = s2_jvp(v[0], v[1], t[0], t[1]);
            (vec![r], vec![d])
        },
        |v, c| {
            let (r, (a, b)) = s2_vjp(v[0], v[1], c[0]);
            (vec![r], vec![a, b])
        },
        &pts2(),
    );
    let (_, (dx, dy)) = s2_grad(0.5, 3.0);
    assert_eq!((dx, dy), (5.0, 0.5));
}
