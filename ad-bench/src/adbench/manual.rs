//! Hand-written derivatives ("Manual" in ADBench): the physical limit our generated code is
//! measured against. Each follows the chain rule the way ADBench's `src/cpp/modules/manual`
//! does (GMM: posterior weights times the derivative of each component's log-density; LSTM:
//! one forward sweep keeping every gate, one backward sweep; BA: the 2 x 15 block from one
//! forward pass and one backward pass per residual), written from the formulas, not copied.
//! `ad-bench/tests/manual.rs` checks each against ADBench's reference outputs and against our
//! `#[reverse]` gradient.

// Index loops keep the code next to the formulas.
#![allow(clippy::needless_range_loop)]

use super::ba::CAMERA;
use super::gmm::Gmm;
use super::lstm::Lstm;

/// The GMM objective and its gradient (alphas, means, icf concatenated, ADBench's order), by
/// hand: for every point the posterior weights `w_k = exp(main_k - lse)` times the derivative
/// of each component's term, plus the closed-form derivatives of `-n lse(alphas)` and the prior.
///
/// ```
/// # use ad_bench::adbench::{data_dir, gmm::Gmm, manual};
/// let gmm = Gmm::read(&data_dir().join("gmm/test.txt")).unwrap();
/// let (value, gradient) = manual::gmm_gradient(&gmm);
/// assert!((value - gmm.objective()).abs() < 1e-9 * value.abs());
/// assert_eq!(gradient.len(), gmm.alphas.len() + gmm.means.len() + gmm.icf.len());
/// ```
pub fn gmm_gradient(gmm: &Gmm) -> (f64, Vec<f64>) {
    let (d, k, n) = (gmm.d, gmm.k, gmm.n);
    let icf_size = d * (d + 1) / 2;
    let (alphas, means, icf, x) = (&gmm.alphas, &gmm.means, &gmm.icf, &gmm.x);
    let mut d_alphas = vec![0.0; k];
    let mut d_means = vec![0.0; k * d];
    let mut d_icf = vec![0.0; k * icf_size];

    let mut sum_qs = vec![0.0; k];
    let mut diagonal = vec![0.0; k * d];
    for ik in 0..k {
        for j in 0..d {
            let q = icf[ik * icf_size + j];
            sum_qs[ik] += q;
            diagonal[ik * d + j] = q.exp();
        }
    }

    // Per point: every component's centred point and transformed vector, kept for the
    // backward part of the same point.
    let mut centered = vec![0.0; k * d];
    let mut transformed = vec![0.0; k * d];
    let mut main_term = vec![0.0; k];
    let mut slse = 0.0;
    for ix in 0..n {
        let point = &x[ix * d..(ix + 1) * d];
        for ik in 0..k {
            let c = &mut centered[ik * d..(ik + 1) * d];
            let t = &mut transformed[ik * d..(ik + 1) * d];
            for j in 0..d {
                c[j] = point[j] - means[ik * d + j];
                t[j] = diagonal[ik * d + j] * c[j];
            }
            let mut l = ik * icf_size + d;
            for i in 0..d {
                for j in (i + 1)..d {
                    t[j] += icf[l] * c[i];
                    l += 1;
                }
            }
            let sqnorm: f64 = t.iter().map(|v| v * v).sum();
            main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm;
        }
        let largest = main_term.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = main_term.iter().map(|v| (v - largest).exp()).sum();
        let lse = largest + sum.ln();
        slse += lse;
        for ik in 0..k {
            let weight = (main_term[ik] - lse).exp();
            d_alphas[ik] += weight;
            let c = &centered[ik * d..(ik + 1) * d];
            let t = &transformed[ik * d..(ik + 1) * d];
            let base = ik * icf_size;
            // d main / d q_j = 1 - t_j exp(q_j) c_j; d main / d mu = Q^T t.
            for j in 0..d {
                let scaled = diagonal[ik * d + j] * t[j];
                d_icf[base + j] += weight * (1.0 - scaled * c[j]);
                d_means[ik * d + j] += weight * scaled;
            }
            let mut l = base + d;
            for i in 0..d {
                for j in (i + 1)..d {
                    d_icf[l] -= weight * t[j] * c[i];
                    d_means[ik * d + i] += weight * icf[l] * t[j];
                    l += 1;
                }
            }
        }
    }

    let largest = alphas.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = alphas.iter().map(|a| (a - largest).exp()).sum();
    let lse_alphas = largest + sum.ln();
    let gamma2 = gmm.gamma * gmm.gamma;
    let m = gmm.m as f64;
    let mut prior = 0.0;
    for ik in 0..k {
        d_alphas[ik] -= n as f64 * (alphas[ik] - lse_alphas).exp();
        let base = ik * icf_size;
        let mut frobenius = 0.0;
        for j in 0..d {
            let q2 = diagonal[ik * d + j] * diagonal[ik * d + j];
            frobenius += q2;
            d_icf[base + j] += gamma2 * q2 - m;
        }
        for j in d..icf_size {
            let v = icf[base + j];
            frobenius += v * v;
            d_icf[base + j] += gamma2 * v;
        }
        prior += 0.5 * gamma2 * frobenius - m * sum_qs[ik];
    }
    let value = gmm.constant() + slse - n as f64 * lse_alphas + prior;
    (value, [d_alphas, d_means, d_icf].concat())
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The LSTM loss and its gradient (main parameters, then extra parameters), by hand: a
/// forward sweep that keeps each step's and layer's input, old state and gates, then a
/// backward sweep through time.
///
/// ```
/// # use ad_bench::adbench::{data_dir, lstm::Lstm, manual};
/// let lstm = Lstm::read(&data_dir().join("lstm/lstm_l2_c1024.txt")).unwrap();
/// let (value, gradient) = manual::lstm_gradient(&lstm);
/// assert!((value - lstm.objective()).abs() < 1e-12);
/// assert_eq!(gradient.len(), lstm.main_params.len() + lstm.extra_params.len());
/// ```
pub fn lstm_gradient(lstm: &Lstm) -> (f64, Vec<f64>) {
    let (layers, c, b) = (lstm.l, lstm.c, lstm.b);
    let (main, extra, sequence) = (&lstm.main_params, &lstm.extra_params, &lstm.sequence);
    let steps = c - 1;
    // Kept per (step, layer), b values each: the input, the old hidden and cell state, the
    // four gates, tanh of the new cell state.
    const KEPT: usize = 8;
    let slot = |t: usize, layer: usize, what: usize| ((t * layers + layer) * KEPT + what) * b;
    let mut kept = vec![0.0; steps * layers * KEPT * b];
    // Per step: the prediction's softmax numerators and their normalizer.
    let mut exps = vec![0.0; steps * b];
    let mut normalizers = vec![0.0; steps];
    let mut outputs = vec![0.0; steps * b];

    let mut state = lstm.state.clone();
    let mut x = vec![0.0; b];
    let mut total = 0.0;
    for t in 0..steps {
        for i in 0..b {
            x[i] = sequence[t * b + i] * extra[i];
        }
        for layer in 0..layers {
            let weight = 8 * b * layer;
            let bias = weight + 4 * b;
            let hidden = 2 * b * layer;
            let cell = hidden + b;
            let base = slot(t, layer, 0);
            for i in 0..b {
                let (h, s) = (state[hidden + i], state[cell + i]);
                let forget = sigmoid(x[i] * main[weight + i] + main[bias + i]);
                let input = sigmoid(h * main[weight + b + i] + main[bias + b + i]);
                let output = sigmoid(x[i] * main[weight + 2 * b + i] + main[bias + 2 * b + i]);
                let change = (h * main[weight + 3 * b + i] + main[bias + 3 * b + i]).tanh();
                let new_cell = s * forget + input * change;
                let tanh_cell = new_cell.tanh();
                let record = [x[i], h, s, forget, input, output, change, tanh_cell];
                for (what, value) in record.into_iter().enumerate() {
                    kept[base + what * b + i] = value;
                }
                state[cell + i] = new_cell;
                state[hidden + i] = output * tanh_cell;
            }
            x.copy_from_slice(&state[hidden..hidden + b]);
        }
        let mut sum = 0.0;
        for i in 0..b {
            let prediction = x[i] * extra[b + i] + extra[2 * b + i];
            let e = prediction.exp();
            exps[t * b + i] = e;
            outputs[t * b + i] = x[i];
            sum += e;
        }
        normalizers[t] = sum + 2.0;
        let lse = normalizers[t].ln();
        for i in 0..b {
            let prediction = x[i] * extra[b + i] + extra[2 * b + i];
            total += (prediction - lse) * sequence[(t + 1) * b + i];
        }
    }
    let count = (steps * b) as f64;
    let value = -total / count;

    let mut d_main = vec![0.0; main.len()];
    let mut d_extra = vec![0.0; extra.len()];
    let d_total = -1.0 / count;
    // Adjoints of the state carried back from the next step.
    let mut d_state = vec![0.0; 2 * layers * b];
    let mut dx = vec![0.0; b];
    for t in (0..steps).rev() {
        let targets = &sequence[(t + 1) * b..(t + 2) * b];
        let target_sum: f64 = targets.iter().sum();
        for i in 0..b {
            let softmax = exps[t * b + i] / normalizers[t];
            let d_prediction = d_total * (targets[i] - target_sum * softmax);
            d_extra[b + i] += d_prediction * outputs[t * b + i];
            d_extra[2 * b + i] += d_prediction;
            dx[i] = d_prediction * extra[b + i];
        }
        for layer in (0..layers).rev() {
            let weight = 8 * b * layer;
            let bias = weight + 4 * b;
            let hidden = 2 * b * layer;
            let cell = hidden + b;
            let base = slot(t, layer, 0);
            for i in 0..b {
                let at = |what: usize| kept[base + what * b + i];
                let (input_x, h, s) = (at(0), at(1), at(2));
                let (forget, input, output, change, tanh_cell) =
                    (at(3), at(4), at(5), at(6), at(7));
                // This layer's new hidden state is the next layer's input (dx) and the state
                // the next step reads.
                let d_hidden = dx[i] + d_state[hidden + i];
                let d_output = d_hidden * tanh_cell;
                let d_cell = d_state[cell + i] + d_hidden * output * (1.0 - tanh_cell * tanh_cell);
                let d_forget = d_cell * s;
                let d_input = d_cell * change;
                let d_change = d_cell * input;
                let z_forget = d_forget * forget * (1.0 - forget);
                let z_input = d_input * input * (1.0 - input);
                let z_output = d_output * output * (1.0 - output);
                let z_change = d_change * (1.0 - change * change);
                d_main[weight + i] += z_forget * input_x;
                d_main[bias + i] += z_forget;
                d_main[weight + b + i] += z_input * h;
                d_main[bias + b + i] += z_input;
                d_main[weight + 2 * b + i] += z_output * input_x;
                d_main[bias + 2 * b + i] += z_output;
                d_main[weight + 3 * b + i] += z_change * h;
                d_main[bias + 3 * b + i] += z_change;
                dx[i] = z_forget * main[weight + i] + z_output * main[weight + 2 * b + i];
                d_state[hidden + i] =
                    z_input * main[weight + b + i] + z_change * main[weight + 3 * b + i];
                d_state[cell + i] = d_cell * forget;
            }
        }
        for i in 0..b {
            d_extra[i] += dx[i] * sequence[t * b + i];
        }
    }
    d_main.extend(d_extra);
    (value, d_main)
}

/// One BA observation's residuals and derivatives, by hand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BaBlock {
    /// The two weighted reprojection errors.
    pub residuals: [f64; 2],
    /// Row r, column c at `jacobian[r][c]`; columns: camera (11), point (3), weight (1).
    pub jacobian: [[f64; 15]; 2],
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Both weighted reprojection errors of one observation, computed together (what ADBench's
/// objective does for each observation).
///
/// ```
/// # use ad_bench::adbench::{ba::{reprojection_error, Ba}, data_dir, manual};
/// let ba = Ba::read(&data_dir().join("ba/test.txt")).unwrap();
/// let both = manual::ba_residuals(&ba.camera, &ba.point, ba.weight, &ba.feature);
/// assert_eq!(both[1], reprojection_error(&ba.camera, &ba.point, ba.weight, &ba.feature, 1));
/// ```
pub fn ba_residuals(camera: &[f64], point: &[f64], weight: f64, feature: &[f64]) -> [f64; 2] {
    let forward = BaForward::new(camera, point, weight, feature);
    forward.residuals
}

/// The values the backward pass of one BA block reads.
struct BaForward {
    x: [f64; 3],
    rotation: [f64; 3],
    /// `None` for the zero rotation (first-order formula), else (angle, cos, sin, axis, w.x).
    rodrigues: Option<(f64, f64, f64, [f64; 3], f64)>,
    y: [f64; 3],
    projected: [f64; 2],
    squared_radius: f64,
    distortion: f64,
    unweighted: [f64; 2],
    residuals: [f64; 2],
}

impl BaForward {
    fn new(camera: &[f64], point: &[f64], weight: f64, feature: &[f64]) -> BaForward {
        let x = [
            point[0] - camera[3],
            point[1] - camera[4],
            point[2] - camera[5],
        ];
        let rotation = [camera[0], camera[1], camera[2]];
        let squared_angle = dot(rotation, rotation);
        let (y, rodrigues);
        if squared_angle != 0.0 {
            let angle = squared_angle.sqrt();
            let (cos, sin) = (angle.cos(), angle.sin());
            let axis = [
                rotation[0] / angle,
                rotation[1] / angle,
                rotation[2] / angle,
            ];
            let axis_x = dot(axis, x);
            let along = axis_x * (1.0 - cos);
            let turned = cross(axis, x);
            y = [0, 1, 2].map(|j| x[j] * cos + turned[j] * sin + axis[j] * along);
            rodrigues = Some((angle, cos, sin, axis, axis_x));
        } else {
            let turned = cross(rotation, x);
            y = [0, 1, 2].map(|j| x[j] + turned[j]);
            rodrigues = None;
        }
        let projected = [y[0] / y[2], y[1] / y[2]];
        let squared_radius = projected[0] * projected[0] + projected[1] * projected[1];
        let distortion =
            1.0 + camera[9] * squared_radius + camera[10] * squared_radius * squared_radius;
        let unweighted = [
            projected[0] * distortion * camera[6] + camera[7] - feature[0],
            projected[1] * distortion * camera[6] + camera[8] - feature[1],
        ];
        BaForward {
            x,
            rotation,
            rodrigues,
            y,
            projected,
            squared_radius,
            distortion,
            unweighted,
            residuals: [weight * unweighted[0], weight * unweighted[1]],
        }
    }

    /// One row of the Jacobian: the backward pass seeded with the residual `row`.
    fn row(&self, camera: &[f64], weight: f64, row: usize) -> [f64; 15] {
        let mut j = [0.0; 15];
        let focal = camera[6];
        j[14] = self.unweighted[row];
        // d residual / d (u0, v0) is the weight.
        j[7 + row] = weight;
        j[6] = weight * self.projected[row] * self.distortion;
        let d_distortion = weight * self.projected[row] * focal;
        let mut d_projected = [0.0; 2];
        d_projected[row] = weight * self.distortion * focal;
        j[9] = d_distortion * self.squared_radius;
        j[10] = d_distortion * self.squared_radius * self.squared_radius;
        let d_radius = d_distortion * (camera[9] + 2.0 * camera[10] * self.squared_radius);
        d_projected[0] += 2.0 * self.projected[0] * d_radius;
        d_projected[1] += 2.0 * self.projected[1] * d_radius;
        let y = self.y;
        let dy = [
            d_projected[0] / y[2],
            d_projected[1] / y[2],
            -(d_projected[0] * self.projected[0] + d_projected[1] * self.projected[1]) / y[2],
        ];
        let x = self.x;
        let (dx, d_rotation) = match self.rodrigues {
            Some((angle, cos, sin, axis, axis_x)) => {
                // y = x cos + (axis × x) sin + axis (axis·x)(1 - cos)
                let dy_x = cross(dy, axis);
                let x_dy = cross(x, dy);
                let d_along = dot(dy, axis);
                let d_axis_x = d_along * (1.0 - cos);
                let d_cos = dot(dy, x) - d_along * axis_x;
                let d_sin = dot(dy, cross(axis, x));
                let along = axis_x * (1.0 - cos);
                let dx = [0, 1, 2].map(|i| dy[i] * cos + dy_x[i] * sin + axis[i] * d_axis_x);
                let d_axis = [0, 1, 2].map(|i| x_dy[i] * sin + dy[i] * along + x[i] * d_axis_x);
                // axis = rotation / angle, angle = |rotation|
                let d_angle =
                    -d_cos * sin + d_sin * cos - dot(d_axis, self.rotation) / (angle * angle);
                let d_rotation =
                    [0, 1, 2].map(|i| d_axis[i] / angle + d_angle * self.rotation[i] / angle);
                (dx, d_rotation)
            }
            None => {
                // y = x + rotation × x
                let dy_r = cross(dy, self.rotation);
                let dx = [0, 1, 2].map(|i| dy[i] + dy_r[i]);
                (dx, cross(x, dy))
            }
        };
        j[..3].copy_from_slice(&d_rotation);
        for i in 0..3 {
            j[3 + i] = -dx[i];
            j[11 + i] = dx[i];
        }
        j
    }
}

/// One BA observation's two residuals and 2 x 15 Jacobian block, by hand: one forward pass,
/// then one backward pass per residual.
///
/// ```
/// # use ad_bench::adbench::{ba::{reprojection_error_vjp, Ba}, data_dir, manual};
/// let ba = Ba::read(&data_dir().join("ba/test.txt")).unwrap();
/// let block = manual::ba_block(&ba.camera, &ba.point, ba.weight, &ba.feature);
/// let (_, (d_camera, _, _)) =
///     reprojection_error_vjp(&ba.camera, &ba.point, ba.weight, &ba.feature, 0, 1.0);
/// assert!((block.jacobian[0][6] - d_camera[6]).abs() < 1e-9);
/// ```
pub fn ba_block(camera: &[f64], point: &[f64], weight: f64, feature: &[f64]) -> BaBlock {
    debug_assert_eq!(camera.len(), CAMERA);
    let forward = BaForward::new(camera, point, weight, feature);
    BaBlock {
        residuals: forward.residuals,
        jacobian: [
            forward.row(camera, weight, 0),
            forward.row(camera, weight, 1),
        ],
    }
}

/// The weight error `1 - w^2` and its derivative `-2 w`.
pub fn ba_weight_error(weight: f64) -> (f64, f64) {
    (1.0 - weight * weight, -2.0 * weight)
}
