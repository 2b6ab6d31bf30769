//! The LSTM objective of ADBench (`src/cpp/shared/lstm.h` upstream): `l` layers of LSTM cells
//! of `b` units run over a sequence of `c` one-hot characters; the loss is the mean negative
//! log-likelihood of each next character. Differentiated with respect to the main parameters
//! (for each layer: 4b weights, then 4b biases, gates in the order forget, input, output,
//! change) and the extra parameters (input weights, output weights, output biases).

// The loops index like the reference C++ code, which keeps the two easy to compare (reverse mode
// does not take `copy_from_slice` yet).
#![allow(clippy::needless_range_loop, clippy::manual_memcpy)]

use std::path::Path;

use ad_runtime::{forward, reverse};

use super::read::Numbers;

/// One LSTM instance.
#[derive(Clone, Debug)]
pub struct Lstm {
    pub l: usize,
    pub c: usize,
    pub b: usize,
    pub main_params: Vec<f64>,
    pub extra_params: Vec<f64>,
    pub state: Vec<f64>,
    pub sequence: Vec<f64>,
}

impl Lstm {
    pub fn read(path: &Path) -> std::io::Result<Lstm> {
        let mut numbers = Numbers::open(path)?;
        let (l, c, b) = (numbers.count(), numbers.count(), numbers.count());
        Ok(Lstm {
            l,
            c,
            b,
            main_params: numbers.take(8 * l * b),
            extra_params: numbers.take(3 * b),
            state: numbers.take(2 * l * b),
            sequence: numbers.take(c * b),
        })
    }

    pub fn objective(&self) -> f64 {
        lstm_objective(
            &self.main_params,
            &self.extra_params,
            &self.state,
            &self.sequence,
            self.l,
            self.c,
            self.b,
        )
    }

    /// The gradient with respect to the main and extra parameters, concatenated.
    pub fn gradient(&self) -> (f64, Vec<f64>) {
        let (value, (main, extra)) = lstm_objective_grad(
            &self.main_params,
            &self.extra_params,
            &self.state,
            &self.sequence,
            self.l,
            self.c,
            self.b,
        );
        (value, [main, extra].concat())
    }
}

/// ADBench's LSTM normalizer, as upstream writes it: `ln(2 + sum exp(v))`, without a shift.
#[forward]
#[reverse]
pub fn lstm_logsumexp(v: &[f64]) -> f64 {
    let mut sum = 0.0;
    for e in v {
        sum += e.exp();
    }
    (sum + 2.0).ln()
}

#[forward]
#[reverse]
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The loss.
#[forward]
#[reverse]
pub fn lstm_objective(
    main_params: &[f64],
    extra_params: &[f64],
    #[no_grad] state: &[f64],
    #[no_grad] sequence: &[f64],
    l: usize,
    c: usize,
    b: usize,
) -> f64 {
    let mut s = state.to_vec();
    let mut gates = vec![0.0; 4 * b];
    let mut prediction = vec![0.0; b];
    let mut total = 0.0;
    let mut count = 0;
    for t in 0..(c - 1) {
        // The input of the first layer is the current character, scaled.
        let mut x = vec![0.0; b];
        for i in 0..b {
            x[i] = sequence[t * b + i] * extra_params[i];
        }
        for layer in 0..l {
            let weight = 8 * b * layer;
            let bias = weight + 4 * b;
            let hidden = 2 * b * layer;
            let cell = hidden + b;
            for i in 0..b {
                gates[i] = sigmoid(x[i] * main_params[weight + i] + main_params[bias + i]);
                gates[b + i] = sigmoid(
                    s[hidden + i] * main_params[weight + b + i] + main_params[bias + b + i],
                );
                gates[2 * b + i] =
                    sigmoid(x[i] * main_params[weight + 2 * b + i] + main_params[bias + 2 * b + i]);
                gates[3 * b + i] = (s[hidden + i] * main_params[weight + 3 * b + i]
                    + main_params[bias + 3 * b + i])
                    .tanh();
            }
            for i in 0..b {
                s[cell + i] = s[cell + i] * gates[i] + gates[b + i] * gates[3 * b + i];
            }
            for i in 0..b {
                s[hidden + i] = gates[2 * b + i] * s[cell + i].tanh();
            }
            // The next layer's input is this layer's hidden state.
            for i in 0..b {
                x[i] = s[hidden + i];
            }
        }
        for i in 0..b {
            prediction[i] = x[i] * extra_params[b + i] + extra_params[2 * b + i];
        }
        let lse = lstm_logsumexp(&prediction);
        for i in 0..b {
            total += (prediction[i] - lse) * sequence[(t + 1) * b + i];
        }
        count += b;
    }
    -total / count as f64
}
