//! Filters in the forms of DSP crates (`biquad`'s `DirectForm2Transposed` with a `&mut self`
//! `run`, FIR by `windows`), exponential smoothing over `f32`, a DFT bin by a tuple `fold`.

use crate::harness::{narrow, one, wide, Case};
use ad_runtime::{forward, reverse, Differentiable};
use std::f64::consts::PI;

/// The `biquad` crate's transposed direct form II state and coefficients.
#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Biquad {
    pub b0: f64,
    pub b1: f64,
    pub b2: f64,
    pub a1: f64,
    pub a2: f64,
    pub z1: f64,
    pub z2: f64,
}

impl Biquad {
    // Form of `biquad`'s `DirectForm2Transposed::run(&mut self, input)`: `process_jvp` takes
    // the tangent of `self` as a `&mut Biquad`, `process_vjp` the cotangent of its final state
    // (leaving there the adjoint of the initial one).
    #[forward]
    #[reverse]
    pub fn process(&mut self, x: f64) -> f64 {
        let y = self.b0 * x + self.z1;
        self.z1 = self.b1 * x - self.a1 * y + self.z2;
        self.z2 = self.b2 * x - self.a2 * y;
        y
    }
}

// A driver filtering a signal through `process`, a local filter lent to it at each sample.
#[forward]
#[reverse]
pub fn biquad_filter(coeffs: &[f64; 5], input: &[f64]) -> Vec<f64> {
    let mut filter = Biquad {
        b0: coeffs[0],
        b1: coeffs[1],
        b2: coeffs[2],
        a1: coeffs[3],
        a2: coeffs[4],
        z1: 0.0,
        z2: 0.0,
    };
    let mut output = Vec::with_capacity(input.len());
    for &x in input {
        output.push(filter.process(x));
    }
    output
}

// Form of an FIR filter: `windows(taps.len())`, taps reversed, `zip`, `sum`, `collect`.
#[forward]
#[reverse]
pub fn fir(taps: &[f64], signal: &[f64]) -> Vec<f64> {
    signal
        .windows(taps.len())
        .map(|w| w.iter().zip(taps.iter().rev()).map(|(a, b)| a * b).sum())
        .collect()
}

// Form of exponential smoothing over `f32` by `fold`, seeded with the first sample.
#[forward]
#[reverse]
pub fn ema(alpha: f32, xs: &[f32]) -> f32 {
    xs.iter()
        .fold(xs[0], |acc, &x| alpha * x + (1.0 - alpha) * acc)
}

// Form of a single DFT bin's power: a tuple accumulator in `enumerate().fold`.
#[forward]
#[reverse]
pub fn dft_power(signal: &[f64], k: usize) -> f64 {
    let n = signal.len() as f64;
    let (re, im) = signal
        .iter()
        .enumerate()
        .fold((0.0, 0.0), |(re, im), (j, &x)| {
            let angle = -2.0 * PI * k as f64 * j as f64 / n;
            (re + x * angle.cos(), im + x * angle.sin())
        });
    re * re + im * im
}

fn biquad(x: &[f64]) -> Biquad {
    Biquad {
        b0: x[0],
        b1: x[1],
        b2: x[2],
        a1: x[3],
        a2: x[4],
        z1: x[5],
        z2: x[6],
    }
}

/// The output followed by the filter's fields after the step.
fn stepped(y: f64, f: &Biquad) -> Vec<f64> {
    vec![y, f.b0, f.b1, f.b2, f.a1, f.a2, f.z1, f.z2]
}

#[test]
fn biquad_mut_self_process() {
    Case::new("Biquad::process", 8, |x| {
        let mut f = biquad(x);
        let y = f.process(x[7]);
        stepped(y, &f)
    })
    .forward(|x, t| {
        let (mut f, mut df) = (biquad(x), biquad(t));
        let (y, dy) = f.process_jvp(x[7], &mut df, t[7]);
        (stepped(y, &f), stepped(dy, &df))
    })
    .reverse(|x, w| {
        // `w` is the cotangent of the output and of the filter's final state.
        let (mut f, mut d_f) = (biquad(x), biquad(&w[1..]));
        let (y, d_x) = f.process_vjp(x[7], &mut d_f, w[0]);
        let adjoint = stepped(0.0, &d_f)[1..].to_vec();
        (stepped(y, &f), [adjoint, vec![d_x]].concat())
    })
    .check(50);
    Case::new("biquad_filter", 8, |x| {
        biquad_filter(&[x[0], x[1], x[2], x[3], x[4]], &x[5..])
    })
    .within(&[
        (0.1, 0.3),
        (0.1, 0.3),
        (0.1, 0.3),
        (-0.5, 0.5),
        (0.0, 0.3),
        (-1.0, 1.0),
    ])
    .forward(|x, t| {
        biquad_filter_jvp(
            &[x[0], x[1], x[2], x[3], x[4]],
            &x[5..],
            &[t[0], t[1], t[2], t[3], t[4]],
            &t[5..],
        )
    })
    .reverse(|x, w| {
        let (v, (d_coeffs, d_input)) =
            biquad_filter_vjp(&[x[0], x[1], x[2], x[3], x[4]], &x[5..], w.to_vec());
        (v, [d_coeffs.to_vec(), d_input].concat())
    })
    .check(51);
}

#[test]
fn fir_windows() {
    Case::new("fir", 9, |x| fir(&x[..3], &x[3..]))
        .forward(|x, t| fir_jvp(&x[..3], &x[3..], &t[..3], &t[3..]))
        .reverse(|x, w| {
            let (v, (taps, signal)) = fir_vjp(&x[..3], &x[3..], w.to_vec());
            let mut all = taps;
            all.extend(signal);
            (v, all)
        })
        .check(52);
}

#[test]
fn ema_f32_fold() {
    Case::new("ema", 6, |x| one(ema(x[0] as f32, &narrow(&x[1..])).into()))
        .single_precision()
        .within(&[(0.1, 0.9), (-1.0, 1.0)])
        .forward(|x, t| {
            let (v, d) = ema_jvp(x[0] as f32, &narrow(&x[1..]), t[0] as f32, &narrow(&t[1..]));
            (one(v.into()), one(d.into()))
        })
        .reverse(|x, w| {
            let (v, (a, b)) = ema_vjp(x[0] as f32, &narrow(&x[1..]), w[0] as f32);
            let mut all = vec![f64::from(a)];
            all.extend(wide(&b));
            (one(v.into()), all)
        })
        .check(53);
}

#[test]
fn dft_power_tuple_fold() {
    Case::new("dft_power", 8, |x| one(dft_power(x, 2)))
        .forward(|x, t| {
            let (v, d) = dft_power_jvp(x, 2, t);
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, g) = dft_power_vjp(x, 2, w[0]);
            (one(v), g.to_vec())
        })
        .check(54);
}
