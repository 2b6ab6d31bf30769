//! A small neural network trained with gradients from reverse mode: 2 inputs, a hidden layer
//! of 8 `tanh` units and one linear output, fitted to a synthetic regression problem by
//! mini-batch gradient descent. The loss is an ordinary Rust function over a flat parameter
//! slice, annotated `#[forward]` and `#[reverse]`; `loss_grad` gives its gradient.
//!
//! Before training, the gradient is checked against central differences for every parameter,
//! and a directional derivative from forward mode (`loss_jvp`) against the gradient dotted with
//! the same direction. Training prints the loss every 200 epochs and checks that it fell.
//!
//! ```text
//! cargo run --release --example neural_network
//! ```

use ad_runtime::{forward, reverse};

const INPUTS: usize = 2;
const HIDDEN: usize = 8;
/// Parameters, in order: hidden weights (`HIDDEN` rows of `INPUTS`), hidden biases, output
/// weights, output bias.
const PARAMETERS: usize = HIDDEN * INPUTS + HIDDEN + HIDDEN + 1;

/// The network's output for one input point.
#[forward]
#[reverse]
fn predict(params: &[f64], #[no_grad] x: &[f64]) -> f64 {
    let (w1, rest) = params.split_at(HIDDEN * INPUTS);
    let (b1, rest) = rest.split_at(HIDDEN);
    let (w2, b2) = rest.split_at(HIDDEN);
    let mut output = b2[0];
    for j in 0..HIDDEN {
        let mut z = b1[j];
        for i in 0..INPUTS {
            z += w1[j * INPUTS + i] * x[i];
        }
        output += w2[j] * z.tanh();
    }
    output
}

/// The mean squared error over a batch of points `xs` with targets `ys`.
#[forward]
#[reverse]
fn loss(params: &[f64], #[no_grad] xs: &[[f64; 2]], #[no_grad] ys: &[f64]) -> f64 {
    let mut total = 0.0;
    for (x, y) in xs.iter().zip(ys) {
        let error = predict(params, x) - y;
        total += error * error;
    }
    total / xs.len() as f64
}

/// A tiny deterministic random-number generator (xorshift64*), so the example needs no crate.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `[lo, hi)`.
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let unit = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * unit
    }
}

/// The function the network learns.
fn target(x: &[f64; 2]) -> f64 {
    (1.5 * x[0]).sin() * (0.8 * x[1]).cos() + 0.3 * x[0] * x[1]
}

fn main() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);

    // 128 points on [-2, 2]^2 with a little noise on the targets.
    let xs: Vec<[f64; 2]> = (0..128)
        .map(|_| [rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0)])
        .collect();
    let ys: Vec<f64> = xs
        .iter()
        .map(|x| target(x) + 0.02 * rng.uniform(-1.0, 1.0))
        .collect();

    // Initial weights scaled by 1 / sqrt(fan-in).
    let mut params: Vec<f64> = (0..PARAMETERS)
        .map(|k| {
            let fan_in = if k < HIDDEN * INPUTS + HIDDEN {
                INPUTS
            } else {
                HIDDEN
            };
            rng.uniform(-1.0, 1.0) / (fan_in as f64).sqrt()
        })
        .collect();

    // The gradient against central differences, parameter by parameter.
    let (initial_loss, gradient) = loss_grad(&params, &xs, &ys);
    assert_eq!(gradient.len(), PARAMETERS);
    let h = 1e-6;
    let mut worst = 0.0_f64;
    for k in 0..PARAMETERS {
        let mut plus = params.clone();
        plus[k] += h;
        let mut minus = params.clone();
        minus[k] -= h;
        let difference = (loss(&plus, &xs, &ys) - loss(&minus, &xs, &ys)) / (2.0 * h);
        let error =
            (gradient[k] - difference).abs() / (gradient[k].abs().max(difference.abs()) + 1e-8);
        assert!(
            error < 1e-5,
            "parameter {k}: gradient {} vs central difference {difference}",
            gradient[k]
        );
        worst = worst.max(error);
    }
    println!("initial loss {initial_loss:.6}");
    println!("gradient vs central differences, {PARAMETERS} parameters: largest relative error {worst:.2e}");

    // Forward mode along a random direction against the gradient dotted with it.
    let direction: Vec<f64> = (0..PARAMETERS).map(|_| rng.uniform(-1.0, 1.0)).collect();
    let (value, directional) = loss_jvp(&params, &xs, &ys, &direction);
    let dotted: f64 = gradient.iter().zip(&direction).map(|(g, d)| g * d).sum();
    let error = (directional - dotted).abs() / dotted.abs();
    println!("directional derivative: forward {directional:.12}, reverse {dotted:.12}, relative error {error:.2e}");
    assert_eq!(value, initial_loss);
    assert!(error < 1e-12);

    // Mini-batch gradient descent: batches of 16 consecutive points (the points are random).
    let learning_rate = 0.05;
    let epochs = 2000;
    for epoch in 1..=epochs {
        for (batch_x, batch_y) in xs.chunks(16).zip(ys.chunks(16)) {
            let (_, gradient) = loss_grad(&params, batch_x, batch_y);
            for (p, g) in params.iter_mut().zip(&gradient) {
                *p -= learning_rate * g;
            }
        }
        if epoch % 200 == 0 {
            println!("epoch {epoch:>5}: loss {:.6}", loss(&params, &xs, &ys));
        }
    }
    let final_loss = loss(&params, &xs, &ys);
    println!("loss {initial_loss:.6} -> {final_loss:.6}");
    assert!(
        final_loss < 0.05 * initial_loss,
        "the loss did not fall enough"
    );
}
