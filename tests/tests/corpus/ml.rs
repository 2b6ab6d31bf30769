//! Machine-learning kernels in the forms of ML code in Rust: `llama2.rs`-style in-place
//! softmax over `&mut [f32]`, activation functions over `f32`, logistic regression as
//! `linfa`-style iterator chains, a tiny MLP as a struct with a `predict` method, layer norm.

use crate::harness::{narrow, one, wide, Case};
use crate::statistics::log_sum_exp;
use ad_runtime::{forward, reverse, Differentiable};

// Form of the `sigmoid` found in ML crates over `f32`.
#[forward]
#[reverse]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

// Form of a softmax returning a new `Vec`: max by `fold(NEG_INFINITY, f64::max)`, `collect`.
#[forward]
#[reverse]
pub fn softmax(logits: &[f64]) -> Vec<f64> {
    let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exps: Vec<f64> = logits.iter().map(|&l| (l - max).exp()).collect();
    let total: f64 = exps.iter().sum();
    exps.iter().map(|e| e / total).collect()
}

// Form of llama2.rs' `softmax(x: &mut [f32])`: in place, `iter_mut`.
#[forward]
#[reverse]
pub fn softmax_in_place(x: &mut [f32]) {
    let max = x.iter().fold(x[0], |acc, &v| acc.max(v));
    let mut sum = 0.0;
    for v in x.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    for v in x.iter_mut() {
        *v /= sum;
    }
}

// Form of a logistic-regression loss as linfa-style code writes it: nested iterator chains.
#[forward]
#[reverse]
pub fn logistic_loss(
    weights: &[f64],
    bias: f64,
    #[no_grad] features: &[Vec<f64>],
    #[no_grad] labels: &[f64],
) -> f64 {
    let n = labels.len() as f64;
    features
        .iter()
        .zip(labels)
        .map(|(x, &y)| {
            let z = weights.iter().zip(x).map(|(w, xi)| w * xi).sum::<f64>() + bias;
            let p = 1.0 / (1.0 + (-z).exp());
            -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
        })
        .sum::<f64>()
        / n
}

/// A one-hidden-layer perceptron, its parameters as fields.
#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Mlp {
    pub w1: Vec<Vec<f64>>,
    pub b1: Vec<f64>,
    pub w2: Vec<f64>,
    pub b2: f64,
}

impl Mlp {
    // Form of a hand-written MLP's forward pass as a method: rows zipped with biases, `tanh`.
    #[forward]
    #[reverse]
    pub fn predict(&self, x: &[f64]) -> f64 {
        let hidden: Vec<f64> = self
            .w1
            .iter()
            .zip(&self.b1)
            .map(|(row, b)| (row.iter().zip(x).map(|(w, xi)| w * xi).sum::<f64>() + b).tanh())
            .collect();
        hidden.iter().zip(&self.w2).map(|(h, w)| h * w).sum::<f64>() + self.b2
    }
}

// Form of a cross-entropy through another module's `log_sum_exp`.
#[forward]
#[reverse]
pub fn cross_entropy(logits: &[f64], target: usize) -> f64 {
    log_sum_exp(logits) - logits[target]
}

// Form of a dense layer with ReLU over fixed-size arrays (`&[[f64; 3]; 2]`), `f64::max`.
#[forward]
#[reverse]
pub fn dense_relu(w: &[[f64; 3]; 2], b: &[f64; 2], x: &[f64; 3]) -> [f64; 2] {
    let mut out = [0.0; 2];
    for (o, (row, bi)) in out.iter_mut().zip(w.iter().zip(b)) {
        *o = f64::max(0.0, row.iter().zip(x).map(|(a, c)| a * c).sum::<f64>() + bi);
    }
    out
}

// Form of a mean squared error over `f32` slices.
#[forward]
#[reverse]
pub fn mse(pred: &[f32], #[no_grad] target: &[f32]) -> f32 {
    pred.iter()
        .zip(target)
        .map(|(p, t)| (p - t).powi(2))
        .sum::<f32>()
        / pred.len() as f32
}

// Form of a layer norm (candle-style, written out): a local `const`, nested `zip`s.
#[forward]
#[reverse]
pub fn layer_norm(x: &[f64], gamma: &[f64], beta: &[f64]) -> Vec<f64> {
    const EPS: f64 = 1e-5;
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    let inv = 1.0 / (var + EPS).sqrt();
    x.iter()
        .zip(gamma.iter().zip(beta))
        .map(|(v, (g, b))| (v - mean) * inv * g + b)
        .collect()
}

#[test]
fn sigmoid_f32() {
    Case::new("sigmoid", 1, |x| one(f64::from(sigmoid(x[0] as f32))))
        .single_precision()
        .forward(|x, t| {
            let (v, d) = sigmoid_jvp(x[0] as f32, t[0] as f32);
            (one(v.into()), one(d.into()))
        })
        .reverse(|x, w| {
            let (v, g) = sigmoid_vjp(x[0] as f32, w[0] as f32);
            (one(v.into()), one(g.into()))
        })
        .check(31);
}

#[test]
fn softmax_vec_result() {
    Case::new("softmax", 4, softmax)
        .forward(softmax_jvp)
        .reverse(|x, w| {
            let (v, g) = softmax_vjp(x, w.to_vec());
            (v, g.to_vec())
        })
        .check(32);
}

#[test]
fn softmax_in_place_f32() {
    Case::new("softmax_in_place", 4, |x| {
        let mut v = narrow(x);
        softmax_in_place(&mut v);
        wide(&v)
    })
    .single_precision()
    .forward(|x, t| {
        let (mut v, mut dv) = (narrow(x), narrow(t));
        softmax_in_place_jvp(&mut v, &mut dv);
        (wide(&v), wide(&dv))
    })
    .reverse(|x, w| {
        let (mut v, mut wv) = (narrow(x), narrow(w));
        softmax_in_place_vjp(&mut v, &mut wv);
        (wide(&v), wide(&wv))
    })
    .check(33);
}

fn dataset() -> (Vec<Vec<f64>>, Vec<f64>) {
    (
        vec![
            vec![0.5, -1.0, 2.0],
            vec![1.5, 0.3, -0.7],
            vec![-0.2, 0.8, 0.1],
            vec![0.9, -0.4, 1.1],
        ],
        vec![1.0, 0.0, 1.0, 0.0],
    )
}

#[test]
fn logistic_regression_loss() {
    let (features, labels) = dataset();
    let (f2, l2) = (features.clone(), labels.clone());
    let (f3, l3) = (features.clone(), labels.clone());
    Case::new("logistic_loss", 4, move |x| {
        one(logistic_loss(&x[..3], x[3], &features, &labels))
    })
    .forward(move |x, t| {
        let (v, d) = logistic_loss_jvp(&x[..3], x[3], &f2, &l2, &t[..3], t[3]);
        (one(v), one(d))
    })
    .reverse(move |x, w| {
        let (v, (g, gb)) = logistic_loss_vjp(&x[..3], x[3], &f3, &l3, w[0]);
        let mut all = g.to_vec();
        all.push(gb);
        (one(v), all)
    })
    .check(34);
}

fn mlp(x: &[f64]) -> Mlp {
    Mlp {
        w1: x[0..12].chunks(3).map(|r| r.to_vec()).collect(),
        b1: x[12..16].to_vec(),
        w2: x[16..20].to_vec(),
        b2: x[20],
    }
}

fn mlp_flat(m: &Mlp) -> Vec<f64> {
    let mut all: Vec<f64> = m.w1.iter().flatten().copied().collect();
    all.extend(&m.b1);
    all.extend(&m.w2);
    all.push(m.b2);
    all
}

#[test]
fn mlp_predict_method() {
    Case::new("Mlp::predict", 24, |x| one(mlp(x).predict(&x[21..])))
        .forward(|x, t| {
            let (v, d) = mlp(x).predict_jvp(&x[21..], &mlp(t), &t[21..]);
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, (dm, dx)) = mlp(x).predict_vjp(&x[21..], w[0]);
            let mut all = mlp_flat(&dm);
            all.extend(dx);
            (one(v), all)
        })
        .check(35);
}

#[test]
fn cross_entropy_through_other_module() {
    Case::new("cross_entropy", 5, |x| one(cross_entropy(x, 2)))
        .forward(|x, t| {
            let (v, d) = cross_entropy_jvp(x, 2, t);
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, g) = cross_entropy_vjp(x, 2, w[0]);
            (one(v), g.to_vec())
        })
        .check(36);
}

fn layer(x: &[f64]) -> ([[f64; 3]; 2], [f64; 2], [f64; 3]) {
    (
        [[x[0], x[1], x[2]], [x[3], x[4], x[5]]],
        [x[6], x[7]],
        [x[8], x[9], x[10]],
    )
}

#[test]
fn dense_relu_arrays() {
    Case::new("dense_relu", 11, |x| {
        let (w, b, v) = layer(x);
        dense_relu(&w, &b, &v).to_vec()
    })
    .forward(|x, t| {
        let (w, b, v) = layer(x);
        let (dw, db, dv) = layer(t);
        let (r, d) = dense_relu_jvp(&w, &b, &v, &dw, &db, &dv);
        (r.to_vec(), d.to_vec())
    })
    .reverse(|x, c| {
        let (w, b, v) = layer(x);
        let (r, (dw, db, dv)) = dense_relu_vjp(&w, &b, &v, [c[0], c[1]]);
        let mut all: Vec<f64> = dw.iter().flatten().copied().collect();
        all.extend(db);
        all.extend(dv);
        (r.to_vec(), all)
    })
    .check(37);
}

const TARGET: [f32; 4] = [0.5, -0.25, 1.0, 0.0];

#[test]
fn mse_f32() {
    Case::new("mse", 4, |x| one(mse(&narrow(x), &TARGET).into()))
        .single_precision()
        .forward(|x, t| {
            let (v, d) = mse_jvp(&narrow(x), &TARGET, &narrow(t));
            (one(v.into()), one(d.into()))
        })
        .reverse(|x, w| {
            let (v, g) = mse_vjp(&narrow(x), &TARGET, w[0] as f32);
            (one(v.into()), wide(&g))
        })
        .check(38);
}

#[test]
fn layer_norm_vec_result() {
    Case::new("layer_norm", 9, |x| layer_norm(&x[..3], &x[3..6], &x[6..]))
        .forward(|x, t| layer_norm_jvp(&x[..3], &x[3..6], &x[6..], &t[..3], &t[3..6], &t[6..]))
        .reverse(|x, w| {
            let (v, (a, b, c)) = layer_norm_vjp(&x[..3], &x[3..6], &x[6..], w.to_vec());
            let mut all = a.to_vec();
            all.extend(b);
            all.extend(c);
            (v, all)
        })
        .check(39);
}
