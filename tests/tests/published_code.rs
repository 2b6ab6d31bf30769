//! Published numerical Rust, copied as written (only the attributes added), checked three ways
//! at random points: reverse against forward, against central differences, and by the
//! dot-product identity. Each function names its source.
// The sources' constants and loops, as written.
#![allow(
    clippy::excessive_precision,
    clippy::approx_constant,
    clippy::manual_is_multiple_of,
    clippy::needless_range_loop
)]

mod common;
#[path = "published/statrs_erf.rs"]
mod statrs_erf;

// Numerical code imports `Float` for its generic functions; the dual numbers' methods stay
// unambiguous beside it.
use ad_runtime::num_traits::{Float, FromPrimitive};
use ad_runtime::{forward, reverse};
use common::check_gradient;
// llama2.rs calls the operators' methods (`.div(n).add(1e-5)`).
use std::iter::Sum;
use std::ops::{Add, Div};

// statrs (statrs-dev/statrs), src/consts.rs and src/function/gamma.rs: the Lanczos
// approximation over a `const` table of type `&[f64]`, folded with its first entry as seed.
mod consts {
    pub const LN_PI: f64 = 1.1447298858494001741434273513530587116472948129153;
    pub const LN_2_SQRT_E_OVER_PI: f64 = 0.6207822376352452223455184457816472122518527279025978;
    pub const TWO_SQRT_E_OVER_PI: f64 = 1.8603827342052657173362492472666631120594218414085755;
}
use core::f64::consts as f64_consts;

const GAMMA_R: f64 = 10.900511;
const GAMMA_DK: &[f64] = &[
    2.48574089138753565546e-5,
    1.05142378581721974210,
    -3.45687097222016235469,
    4.51227709466894823700,
    -2.98285225323576655721,
    1.05639711577126713077,
    -1.95428773191645869583e-1,
    1.70970543404441224307e-2,
    -5.71926117404305781283e-4,
    4.63399473359905636708e-6,
    -2.71994908488607703910e-9,
];

#[forward]
#[reverse]
pub fn ln_gamma(x: f64) -> f64 {
    if x < 0.5 {
        let s = GAMMA_DK
            .iter()
            .enumerate()
            .skip(1)
            .fold(GAMMA_DK[0], |s, t| s + t.1 / (t.0 as f64 - x));

        consts::LN_PI
            - (f64_consts::PI * x).sin().ln()
            - s.ln()
            - consts::LN_2_SQRT_E_OVER_PI
            - (0.5 - x) * ((0.5 - x + GAMMA_R) / f64_consts::E).ln()
    } else {
        let s = GAMMA_DK
            .iter()
            .enumerate()
            .skip(1)
            .fold(GAMMA_DK[0], |s, t| s + t.1 / (x + t.0 as f64 - 1.0));

        s.ln()
            + consts::LN_2_SQRT_E_OVER_PI
            + (x - 0.5) * ((x - 0.5 + GAMMA_R) / f64_consts::E).ln()
    }
}

#[forward]
#[reverse]
pub fn gamma(x: f64) -> f64 {
    if x < 0.5 {
        let s = GAMMA_DK
            .iter()
            .enumerate()
            .skip(1)
            .fold(GAMMA_DK[0], |s, t| s + t.1 / (t.0 as f64 - x));

        f64_consts::PI
            / ((f64_consts::PI * x).sin()
                * s
                * consts::TWO_SQRT_E_OVER_PI
                * ((0.5 - x + GAMMA_R) / f64_consts::E).powf(0.5 - x))
    } else {
        let s = GAMMA_DK
            .iter()
            .enumerate()
            .skip(1)
            .fold(GAMMA_DK[0], |s, t| s + t.1 / (x + t.0 as f64 - 1.0));

        s * consts::TWO_SQRT_E_OVER_PI * ((x - 0.5 + GAMMA_R) / f64_consts::E).powf(x - 0.5)
    }
}

#[test]
fn statrs_gamma_and_ln_gamma() {
    // Points away from the poles (x = 0, -1, ..), on both branches (x < 0.5 and above).
    let shifted = |x: &[f64]| x[0] * 2.0 + 2.6;
    check_gradient(
        1,
        |x| ln_gamma(shifted(x)),
        |x, t| ln_gamma_jvp(shifted(x), 2.0 * t[0]),
        |x, c| {
            let (value, g) = ln_gamma_vjp(shifted(x), c);
            (value, vec![2.0 * g])
        },
    );
    for x in [0.3, -1.3, 1.7, 4.2] {
        let (value, d) = gamma_jvp(x, 1.0);
        let (value_reverse, g) = gamma_grad(x);
        assert_eq!(value.to_bits(), value_reverse.to_bits());
        approx::assert_relative_eq!(d, g, max_relative = 1e-12);
        let central = common::central_difference(gamma, x, 1e-4);
        approx::assert_relative_eq!(d, central, max_relative = 1e-7);
        // Γ'(x) = Γ(x) ψ(x), and ψ(x) = d ln Γ(x) / dx (for Γ(x) > 0).
        if value > 0.0 {
            let (_, digamma) = ln_gamma_grad(x);
            approx::assert_relative_eq!(d, value * digamma, max_relative = 1e-10);
        }
    }
}

// TheAlgorithms/Rust, src/math/simpsons_integration.rs and src/math/trapezoidal_integration.rs:
// integrators taking the integrand as a closure type parameter, called with closures that
// capture the caller's floats.
#[forward]
#[reverse]
pub fn simpsons_integration<F>(f: F, a: f64, b: f64, n: usize) -> f64
where
    F: Fn(f64) -> f64,
{
    let h = (b - a) / n as f64;
    (0..n)
        .map(|i| {
            let x0 = a + i as f64 * h;
            let x1 = x0 + h / 2.0;
            let x2 = x0 + h;
            (h / 6.0) * (f(x0) + 4.0 * f(x1) + f(x2))
        })
        .sum()
}

#[forward]
#[reverse]
pub fn trapezoidal_integral<F>(a: f64, b: f64, f: F, precision: u32) -> f64
where
    F: Fn(f64) -> f64,
{
    let delta = (b - a) / precision as f64;

    (0..precision)
        .map(|trapezoid| {
            let left_side = a + (delta * trapezoid as f64);
            let right_side = left_side + delta;

            0.5 * (f(left_side) + f(right_side)) * delta
        })
        .sum()
}

#[forward]
#[reverse]
fn integrals_of_parameters(x: &[f64]) -> f64 {
    let (k, b) = (x[0], x[1]);
    simpsons_integration(|t| (k * t).sin() * t, 0.0, b, 20)
        + trapezoidal_integral(0.0, b, |t| (-k * t * t).exp(), 50)
}

#[test]
fn integrators_over_capturing_closures() {
    check_gradient(
        2,
        integrals_of_parameters,
        integrals_of_parameters_jvp,
        integrals_of_parameters_vjp,
    );
    // The closure's own derivative against the integral's: d/db of the integral is f(b).
    let (k, b) = (0.7, 1.3);
    let (_, (_, d_b)) = {
        let (value, gradient) = integrals_of_parameters_grad(&[k, b]);
        (value, (gradient[0], gradient[1]))
    };
    let integrand = |t: f64| (k * t).sin() * t + (-k * t * t).exp();
    approx::assert_relative_eq!(d_b, integrand(b), max_relative = 1e-3);
}

// A llama2.rs port (f32, written into `&mut` outputs, as in the source): RMS normalization
// (`.sum::<f32>().div(n).add(1e-5)` and `for` over `iter_mut().zip(..)`, or `std::iter::zip`
// with `for_each`), a softmax whose `map` closure writes each item before the sum, and a
// matrix-vector product.
#[forward]
#[reverse]
pub(crate) fn rmsnorm(o: &mut [f32], x: &[f32], weight: &[f32]) {
    let ss = rmsnorm_reduce(x);
    for ((o, &w), &x) in o.iter_mut().zip(x).zip(weight) {
        *o = w * (ss * x);
    }
}

#[inline]
#[forward]
#[reverse]
fn rmsnorm_reduce(x: &[f32]) -> f32 {
    // (Σx^2 / n + δ)^(-1/2)
    x.iter()
        .map(|x| x * x)
        .sum::<f32>()
        .div(x.len() as f32)
        .add(1e-5)
        .sqrt()
        .recip()
}

#[forward]
#[reverse]
pub(crate) fn rmsnorm_zip(o: &mut [f32], x: &[f32], weight: &[f32]) {
    let ss = rmsnorm_reduce(x);
    std::iter::zip(o, std::iter::zip(x, weight)).for_each(|(o, (x, w))| *o = w * (ss * x));
}

#[forward]
#[reverse]
pub(crate) fn softmax(x: &mut [f32]) {
    let max = *x.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
    let sum = x
        .iter_mut()
        .map(|x| {
            *x = (*x - max).exp();
            *x
        })
        .sum::<f32>();
    x.iter_mut().for_each(|x| *x /= sum);
}

#[forward]
#[reverse]
pub(crate) fn matmul(xout: &mut [f32], x: &[f32], w: &[f32]) {
    let n = x.len();
    xout.iter_mut().enumerate().for_each(|(i, y)| {
        *y = w[i * n..].iter().zip(x).map(|(&w, &x)| w * x).sum::<f32>();
    });
}

/// The layer `o = f(input)` as a map of the flat input (`x`, then the weights): its value, its
/// JVP along `t`, and its VJP of `c` (the `&mut` output's cotangent in, the inputs' out).
struct Layer {
    value: fn(&[f32]) -> Vec<f32>,
    jvp: fn(&[f32], &[f32]) -> Vec<f32>,
    vjp: fn(&[f32], &[f32]) -> Vec<f32>,
}

/// The dot-product identity `<J t, c> = <t, J^T c>`, and `J t` against fourth-order central
/// differences (in f32, whose rounding bounds the agreement).
fn check_f32_layer(layer: Layer, inputs: usize, seed: u64) {
    let mut rng = common::Rng::new(seed);
    let mut random =
        |n: usize| -> Vec<f32> { (0..n).map(|_| rng.uniform(-1.5, 1.5) as f32).collect() };
    for _ in 0..3 {
        let (x, t) = (random(inputs), random(inputs));
        let outputs = (layer.value)(&x).len();
        let c = random(outputs);
        let jt = (layer.jvp)(&x, &t);
        let jtc = (layer.vjp)(&x, &c);
        let dot = |a: &[f32], b: &[f32]| -> f64 {
            a.iter().zip(b).map(|(a, b)| *a as f64 * *b as f64).sum()
        };
        approx::assert_relative_eq!(
            dot(&jt, &c),
            dot(&t, &jtc),
            epsilon = 1e-5,
            max_relative = 1e-5
        );
        let h = 1e-2_f32;
        let at = |k: f32| -> Vec<f32> {
            let shifted: Vec<f32> = x.iter().zip(&t).map(|(x, t)| x + k * h * t).collect();
            (layer.value)(&shifted)
        };
        let (m2, m1, p1, p2) = (at(-2.0), at(-1.0), at(1.0), at(2.0));
        for i in 0..outputs {
            let central = (m2[i] - 8.0 * m1[i] + 8.0 * p1[i] - p2[i]) / (12.0 * h);
            approx::assert_relative_eq!(jt[i], central, epsilon = 2e-3, max_relative = 2e-3);
        }
    }
}

/// `o = rms(x) * w` for `n` floats of `x` then `n` of `w`, through `rmsnorm` or `rmsnorm_zip`.
macro_rules! rms_layer {
    ($f:ident, $jvp:ident, $vjp:ident) => {
        Layer {
            value: |xw| {
                let (x, w) = xw.split_at(xw.len() / 2);
                let mut o = vec![0.0; x.len()];
                $f(&mut o, x, w);
                o
            },
            jvp: |xw, t| {
                let (x, w) = xw.split_at(xw.len() / 2);
                let (tx, tw) = t.split_at(t.len() / 2);
                let (mut o, mut d_o) = (vec![0.0; x.len()], vec![0.0; x.len()]);
                $jvp(&mut o, x, w, &mut d_o, tx, tw);
                d_o
            },
            vjp: |xw, c| {
                let (x, w) = xw.split_at(xw.len() / 2);
                let mut o = vec![0.0; x.len()];
                let mut c = c.to_vec();
                let (dx, dw) = $vjp(&mut o, x, w, &mut c);
                [dx, dw].concat()
            },
        }
    };
}

#[test]
fn llama2_layers_in_f32() {
    check_f32_layer(rms_layer!(rmsnorm, rmsnorm_jvp, rmsnorm_vjp), 8, 1);
    check_f32_layer(
        rms_layer!(rmsnorm_zip, rmsnorm_zip_jvp, rmsnorm_zip_vjp),
        8,
        2,
    );
    let softmax_layer = Layer {
        value: |x| {
            let mut v = x.to_vec();
            softmax(&mut v);
            v
        },
        jvp: |x, t| {
            let (mut v, mut dv) = (x.to_vec(), t.to_vec());
            softmax_jvp(&mut v, &mut dv);
            dv
        },
        vjp: |x, c| {
            let (mut v, mut cv) = (x.to_vec(), c.to_vec());
            softmax_vjp(&mut v, &mut cv);
            cv
        },
    };
    check_f32_layer(softmax_layer, 5, 3);
    // xout (3) = W (3 x 4) x (4): the flat input is x, then W's rows.
    let matmul_layer = Layer {
        value: |xw| {
            let mut out = vec![0.0; 3];
            matmul(&mut out, &xw[..4], &xw[4..]);
            out
        },
        jvp: |xw, t| {
            let (mut out, mut d_out) = (vec![0.0; 3], vec![0.0; 3]);
            matmul_jvp(&mut out, &xw[..4], &xw[4..], &mut d_out, &t[..4], &t[4..]);
            d_out
        },
        vjp: |xw, c| {
            let mut out = vec![0.0; 3];
            let mut c = c.to_vec();
            let (dx, dw) = matmul_vjp(&mut out, &xw[..4], &xw[4..], &mut c);
            [dx, dw].concat()
        },
    };
    check_f32_layer(matmul_layer, 16, 4);
}

// TheAlgorithms/Rust, src/machine_learning/loss_function/negative_log_likelihood.rs: a `Result`
// with the crate's error enum, and a plain validation function (its result a `bool`) called
// with the floats that carry derivatives, which runs at their values.
#[forward]
#[reverse]
pub fn neg_log_likelihood(
    y_true: &[f64],
    y_pred: &[f64],
) -> Result<f64, NegativeLogLikelihoodLossError> {
    // Checks if the inputs are empty
    if y_true.len() != y_pred.len() {
        return Err(NegativeLogLikelihoodLossError::InputsHaveDifferentLength);
    }
    // Checks if the length of the actual and predicted values are equal
    if y_pred.is_empty() {
        return Err(NegativeLogLikelihoodLossError::EmptyInputs);
    }
    // Checks values are between 0 and 1
    if !are_all_values_in_range(y_true) || !are_all_values_in_range(y_pred) {
        return Err(NegativeLogLikelihoodLossError::InvalidValues);
    }

    let mut total_loss: f64 = 0.0;
    for (p, a) in y_pred.iter().zip(y_true.iter()) {
        let loss: f64 = -a * p.ln() - (1.0 - a) * (1.0 - p).ln();
        total_loss += loss;
    }
    Ok(total_loss / (y_pred.len() as f64))
}

#[derive(Debug, PartialEq, Eq)]
pub enum NegativeLogLikelihoodLossError {
    InputsHaveDifferentLength,
    EmptyInputs,
    InvalidValues,
}

fn are_all_values_in_range(values: &[f64]) -> bool {
    values.iter().all(|&x| (0.0..=1.0).contains(&x))
}
#[test]
fn negative_log_likelihood_with_a_plain_check() {
    let (y_true, y_pred) = ([1.0, 0.0, 1.0], [0.7, 0.2, 0.6]);
    check_gradient(
        3,
        |p| neg_log_likelihood(&y_true, &shifted_into_range(p)).unwrap(),
        |p, t| {
            neg_log_likelihood_jvp(&y_true, &shifted_into_range(p), &[0.0; 3], &scaled(t)).unwrap()
        },
        |p, c| {
            let (value, (_, gradient)) =
                neg_log_likelihood_vjp(&y_true, &shifted_into_range(p), c).unwrap();
            (value, scaled(&gradient))
        },
    );
    assert_eq!(
        neg_log_likelihood_grad(&y_true, &[1.5, 0.2, 0.6]).err(),
        Some(NegativeLogLikelihoodLossError::InvalidValues)
    );
    assert!(neg_log_likelihood_grad(&y_true, &y_pred).is_ok());
}

/// Random points in `[-2, 2]` moved into `(0, 1)`: `0.5 + p / 5`, whose derivative is `1 / 5`.
fn shifted_into_range(p: &[f64]) -> Vec<f64> {
    p.iter().map(|p| 0.5 + p / 5.0).collect()
}

fn scaled(t: &[f64]) -> Vec<f64> {
    t.iter().map(|t| t / 5.0).collect()
}

// argmin-testfunctions, src/picheny.rs: generic over `T: Float`, the point mapped with the
// array method `map`.
#[forward]
#[reverse]
pub fn picheny<T>(param: &[T; 2]) -> T
where
    T: Float + FromPrimitive,
{
    let n1 = T::from_f64(1.0).unwrap();
    let n2 = T::from_f64(2.0).unwrap();
    let n3 = T::from_f64(3.0).unwrap();
    let n4 = T::from_f64(4.0).unwrap();
    let n6 = T::from_f64(6.0).unwrap();
    let n12 = T::from_f64(12.0).unwrap();
    let n14 = T::from_f64(14.0).unwrap();
    let n18 = T::from_f64(18.0).unwrap();
    let n19 = T::from_f64(19.0).unwrap();
    let n27 = T::from_f64(27.0).unwrap();
    let n30 = T::from_f64(30.0).unwrap();
    let n32 = T::from_f64(32.0).unwrap();
    let n36 = T::from_f64(36.0).unwrap();
    let n48 = T::from_f64(48.0).unwrap();

    let [x1, x2] = param.map(|x| n4 * x - n2);

    T::from_f64(1.0 / 2.427).unwrap()
        * (((n1
            + (x1 + x2 + n1).powi(2)
                * (n19 - n14 * (x1 + x2) + n3 * (x1.powi(2) + x2.powi(2)) + n6 * x1 * x2))
            * (n30
                + (n2 * x1 - n3 * x2).powi(2)
                    * (n18 - n32 * x1 + n12 * x1.powi(2) + n48 * x2 - n36 * x1 * x2
                        + n27 * x2.powi(2))))
        .log10()
            - T::from_f64(8.693).unwrap())
}

#[forward]
#[reverse]
fn picheny_at(x: &[f64]) -> f64 {
    picheny(&[x[0], x[1]])
}

#[test]
fn argmin_picheny() {
    // Near the domain's middle, where the objective is smooth and of moderate size.
    let shrunk = |x: &[f64]| vec![0.5 + x[0] / 10.0, 0.5 + x[1] / 10.0];
    check_gradient(
        2,
        |x| picheny_at(&shrunk(x)),
        |x, t| picheny_at_jvp(&shrunk(x), &[t[0] / 10.0, t[1] / 10.0]),
        |x, c| {
            let (value, gradient) = picheny_at_vjp(&shrunk(x), c);
            (value, gradient.iter().map(|g| g / 10.0).collect())
        },
    );
    let (_, direct) = picheny_grad(&[0.3, 0.6]);
    let (_, through_caller) = picheny_at_grad(&[0.3, 0.6]);
    approx::assert_relative_eq!(direct[0], through_caller[0], max_relative = 1e-12);
    approx::assert_relative_eq!(direct[1], through_caller[1], max_relative = 1e-12);
}

// statrs, src/function/logistic.rs: an argument check written as a range's `contains`.
#[forward]
#[reverse]
pub fn logit(p: f64) -> f64 {
    checked_logit(p).unwrap()
}

#[forward]
#[reverse]
pub fn checked_logit(p: f64) -> Option<f64> {
    if (0.0..=1.0).contains(&p) {
        Some((p / (1.0 - p)).ln())
    } else {
        None
    }
}

#[test]
fn statrs_logit() {
    let into_range = |x: &[f64]| 0.5 + x[0] / 5.0;
    check_gradient(
        1,
        |x| logit(into_range(x)),
        |x, t| logit_jvp(into_range(x), t[0] / 5.0),
        |x, c| {
            let (value, g) = logit_vjp(into_range(x), c);
            (value, vec![g / 5.0])
        },
    );
    // d logit(p) / dp = 1 / (p (1 - p)).
    let (_, derivative) = logit_grad(0.2);
    approx::assert_relative_eq!(derivative, 1.0 / (0.2 * 0.8), max_relative = 1e-12);
    assert_eq!(checked_logit_jvp(1.5, 1.0), (None, None));
}

// TheAlgorithms/Rust, src/math/interpolation.rs and src/math/area_under_curve.rs: points
// iterated as `for (x, y) in defined_points` over `&Vec<(f64, f64)>` (references by Rust's
// binding mode), a function-pointer parameter, and the bounds swapped by a tuple-valued `if`.
#[forward]
#[reverse]
pub fn lagrange_polynomial_interpolation(x: f64, defined_points: &Vec<(f64, f64)>) -> f64 {
    let mut defined_x_values: Vec<f64> = Vec::new();
    let mut defined_y_values: Vec<f64> = Vec::new();

    for (x, y) in defined_points {
        defined_x_values.push(*x);
        defined_y_values.push(*y);
    }

    let mut sum = 0.0;

    for y_index in 0..defined_y_values.len() {
        let mut numerator = 1.0;
        let mut denominator = 1.0;
        for x_index in 0..defined_x_values.len() {
            if y_index == x_index {
                continue;
            }
            denominator *= defined_x_values[y_index] - defined_x_values[x_index];
            numerator *= x - defined_x_values[x_index];
        }

        sum += numerator / denominator * defined_y_values[y_index];
    }
    sum
}

#[forward]
#[reverse]
pub fn area_under_curve(start: f64, end: f64, func: fn(f64) -> f64, step_count: usize) -> f64 {
    assert!(step_count > 0);

    let (start, end) = if start > end {
        (end, start)
    } else {
        (start, end)
    }; //swap if bounds reversed

    let step_length: f64 = (end - start) / step_count as f64;
    let mut area = 0f64;
    let mut fx1 = func(start);
    let mut fx2: f64;

    for eval_point in (1..=step_count).map(|x| (x as f64 * step_length) + start) {
        fx2 = func(eval_point);
        area += (fx2 + fx1).abs() * step_length * 0.5;
        fx1 = fx2;
    }

    area
}

fn bump(x: f64) -> f64 {
    x.sin() + 2.0
}

fn as_points(flat: &[f64]) -> Vec<(f64, f64)> {
    flat.chunks(2).map(|pair| (pair[0], pair[1])).collect()
}

fn flattened(points: &[(f64, f64)]) -> Vec<f64> {
    points.iter().flat_map(|&(x, y)| [x, y]).collect()
}

#[test]
fn algorithms_interpolation_and_area() {
    // x, then three points whose abscissas stay apart.
    let spread = |x: &[f64]| -> (f64, Vec<f64>) {
        let mut flat = x[1..].to_vec();
        for (k, abscissa) in flat.iter_mut().step_by(2).enumerate() {
            *abscissa = *abscissa / 4.0 + 2.0 * k as f64;
        }
        (x[0], flat)
    };
    let scale = |t: &[f64]| -> Vec<f64> {
        let mut scaled = t[1..].to_vec();
        for abscissa in scaled.iter_mut().step_by(2) {
            *abscissa /= 4.0;
        }
        scaled
    };
    check_gradient(
        7,
        |x| {
            let (at, flat) = spread(x);
            lagrange_polynomial_interpolation(at, &as_points(&flat))
        },
        |x, t| {
            let (at, flat) = spread(x);
            lagrange_polynomial_interpolation_jvp(
                at,
                &as_points(&flat),
                t[0],
                &as_points(&scale(t)),
            )
        },
        |x, c| {
            let (at, flat) = spread(x);
            let (value, (d_at, d_points)) =
                lagrange_polynomial_interpolation_vjp(at, &as_points(&flat), c);
            let mut gradient = vec![d_at];
            let d_points = flattened(&d_points);
            for (k, d) in d_points.iter().enumerate() {
                gradient.push(if k % 2 == 0 { d / 4.0 } else { *d });
            }
            (value, gradient)
        },
    );
    check_gradient(
        2,
        |x| area_under_curve(x[0], x[1], bump, 40),
        |x, t| area_under_curve_jvp(x[0], x[1], |v| v.sin() + 2.0, 40, t[0], t[1]),
        |x, c| {
            let (value, (d_start, d_end)) =
                area_under_curve_vjp(x[0], x[1], |v| v.sin() + 2.0, 40, c);
            (value, vec![d_start, d_end])
        },
    );
}

#[test]
fn statrs_erf_over_constant_tables() {
    use statrs_erf::erf::{erf, erf_grad, erf_inv_grad, erf_jvp, erfc_grad};
    // Points in each of erf_impl's ranges (the tables change at 0.5, 0.75, 1.25, 2.25, 3.5).
    for x in [-1.7, -0.3, 1e-3, 0.2, 0.6, 1.0, 1.8, 3.0, 4.2] {
        let exact = 2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp();
        let (value, derivative) = erf_grad(x);
        assert_eq!(value.to_bits(), erf(x).to_bits());
        approx::assert_relative_eq!(derivative, exact, max_relative = 1e-12);
        approx::assert_relative_eq!(erf_jvp(x, 1.0).1, derivative, max_relative = 1e-14);
        approx::assert_relative_eq!(erfc_grad(x).1, -exact, max_relative = 1e-12);
        approx::assert_relative_eq!(
            common::central_difference(erf, x, 1e-4),
            derivative,
            epsilon = 1e-10,
            max_relative = 1e-7
        );
    }
    // The inverse's derivative is the reciprocal of erf's at the inverse.
    for p in [-0.9, -0.2, 0.1, 0.5, 0.95] {
        let (x, derivative) = erf_inv_grad(p);
        let slope = 2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp();
        approx::assert_relative_eq!(derivative * slope, 1.0, max_relative = 1e-9);
    }
}

// statrs, src/distribution/normal.rs (its log-density): a data struct's fields (`self.mean`,
// no derive) passed to a differentiated function.
pub struct Normal {
    mean: f64,
    std_dev: f64,
}

impl Normal {
    #[forward]
    #[reverse]
    pub fn ln_pdf(&self, x: f64) -> f64 {
        ln_pdf_unchecked(x, self.mean, self.std_dev)
    }
}

#[forward]
#[reverse]
pub fn ln_pdf_unchecked(x: f64, mean: f64, std_dev: f64) -> f64 {
    let d = (x - mean) / std_dev;
    (-0.5 * d * d) - LN_SQRT_2PI - std_dev.ln()
}

const LN_SQRT_2PI: f64 = 0.91893853320467274178032973640561763986139747363778;

#[test]
fn statrs_normal_log_density_of_data_parameters() {
    let normal = Normal {
        mean: 0.4,
        std_dev: 1.7,
    };
    check_gradient(
        1,
        |x| normal.ln_pdf(x[0]),
        |x, t| normal.ln_pdf_jvp(x[0], t[0]),
        |x, c| {
            let (value, g) = normal.ln_pdf_vjp(x[0], c);
            (value, vec![g])
        },
    );
    let (_, derivative) = normal.ln_pdf_grad(1.1);
    approx::assert_relative_eq!(derivative, -(1.1 - 0.4) / (1.7 * 1.7), max_relative = 1e-14);
}

// TheAlgorithms/Rust, src/math/newton_raphson.rs: function pointers passed on in a loop.
#[forward]
#[reverse]
pub fn find_root(f: fn(f64) -> f64, fd: fn(f64) -> f64, guess: f64, iterations: i32) -> f64 {
    let mut result = guess;
    for _ in 0..iterations {
        result = iteration(f, fd, result);
    }
    result
}

#[forward]
#[reverse]
pub fn iteration(f: fn(f64) -> f64, fd: fn(f64) -> f64, guess: f64) -> f64 {
    guess - f(guess) / fd(guess)
}

fn cubic(t: f64) -> f64 {
    t * t * t - 5.0
}

fn cubic_slope(t: f64) -> f64 {
    3.0 * t * t
}

#[test]
fn newton_raphson_through_function_pointers() {
    // Three steps from the guess, not yet converged: the result depends on the guess.
    check_gradient(
        1,
        |x| find_root(cubic, cubic_slope, 2.0 + x[0] / 4.0, 3),
        |x, t| {
            find_root_jvp(
                |t| t * t * t - 5.0,
                |t| 3.0 * t * t,
                2.0 + x[0] / 4.0,
                3,
                t[0] / 4.0,
            )
        },
        |x, c| {
            let (value, d_guess) =
                find_root_vjp(|t| t * t * t - 5.0, |t| 3.0 * t * t, 2.0 + x[0] / 4.0, 3, c);
            (value, vec![d_guess / 4.0])
        },
    );
    let (root, _) = find_root_grad(|t| t * t * t - 5.0, |t| 3.0 * t * t, 1.5, 40);
    approx::assert_relative_eq!(root, 5f64.cbrt(), max_relative = 1e-12);
}

// TheAlgorithms/Rust, src/math/gaussian_elimination.rs (f32, the augmented matrix written in
// place): a `&mut` parameter passed on by name to the helpers that write it, and a lint
// attribute on a loop.
#[forward]
#[reverse]
pub fn gaussian_elimination(matrix: &mut [Vec<f32>]) -> Vec<f32> {
    let size = matrix.len();
    assert_eq!(size, matrix[0].len() - 1);

    for i in 0..size - 1 {
        for j in i..size - 1 {
            echelon(matrix, i, j);
        }
    }

    for i in (1..size).rev() {
        eliminate(matrix, i);
    }

    #[allow(clippy::needless_range_loop)]
    for i in 0..size {
        if matrix[i][i] == 0f32 {
            println!("Infinitely many solutions");
        }
    }

    let mut result: Vec<f32> = vec![0f32; size];
    for i in 0..size {
        result[i] = matrix[i][size] / matrix[i][i];
    }
    result
}

#[forward]
#[reverse]
fn echelon(matrix: &mut [Vec<f32>], i: usize, j: usize) {
    let size = matrix.len();
    if matrix[i][i] == 0f32 {
    } else {
        let factor = matrix[j + 1][i] / matrix[i][i];
        (i..=size).for_each(|k| {
            matrix[j + 1][k] -= factor * matrix[i][k];
        });
    }
}

#[forward]
#[reverse]
fn eliminate(matrix: &mut [Vec<f32>], i: usize) {
    let size = matrix.len();
    if matrix[i][i] == 0f32 {
    } else {
        for j in (1..=i).rev() {
            let factor = matrix[j - 1][i] / matrix[i][i];
            for k in (0..=size).rev() {
                matrix[j - 1][k] -= factor * matrix[i][k];
            }
        }
    }
}

/// Three equations: a diagonally dominant matrix moved by `x / 8`, its right side `x`.
fn augmented(x: &[f32]) -> Vec<Vec<f32>> {
    (0..3)
        .map(|i| {
            (0..4)
                .map(|j| {
                    let base = if i == j { 4.0 } else { 0.0 };
                    base + if j < 3 {
                        x[4 * i + j] / 8.0
                    } else {
                        x[4 * i + j]
                    }
                })
                .collect()
        })
        .collect()
}

fn augmented_tangent(t: &[f32]) -> Vec<Vec<f32>> {
    (0..3)
        .map(|i| {
            (0..4)
                .map(|j| {
                    if j < 3 {
                        t[4 * i + j] / 8.0
                    } else {
                        t[4 * i + j]
                    }
                })
                .collect()
        })
        .collect()
}

#[test]
fn gaussian_elimination_in_f32() {
    let layer = Layer {
        value: |x| gaussian_elimination(&mut augmented(x)),
        jvp: |x, t| {
            let (mut m, mut dm) = (augmented(x), augmented_tangent(t));
            gaussian_elimination_jvp(&mut m, &mut dm).1
        },
        vjp: |x, c| {
            let mut m = augmented(x);
            let mut adjoint = vec![vec![0.0; 4]; 3];
            gaussian_elimination_vjp(&mut m, &mut adjoint, c.to_vec());
            // Through `augmented`: the matrix entries were scaled by 1 / 8.
            adjoint
                .iter()
                .flat_map(|row| {
                    row.iter()
                        .enumerate()
                        .map(|(j, a)| if j < 3 { a / 8.0 } else { *a })
                })
                .collect()
        },
    };
    check_f32_layer(layer, 12, 5);
}

// TheAlgorithms/Rust, src/math/interquartile_range.rs: the median of a sorted copy, the mean
// of the middle two by `f64::midpoint` (Rust 1.85; the workspace's minimum is older, the tests
// run on stable).
#[allow(clippy::incompatible_msrv)]
#[forward]
#[reverse]
pub fn find_median(numbers: &[f64]) -> f64 {
    let mut numbers = numbers.to_vec();
    numbers.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));

    let length = numbers.len();
    let mid = length / 2;
    if length % 2 == 0 {
        f64::midpoint(numbers[mid - 1], numbers[mid])
    } else {
        numbers[mid]
    }
}

#[test]
fn median_by_midpoint() {
    for n in [5, 6] {
        check_gradient(n, find_median, find_median_jvp, find_median_vjp);
    }
    let (median, gradient) = find_median_grad(&[4.0, 1.0, 3.0, 2.0]);
    assert_eq!(median, 2.5);
    assert_eq!(gradient, vec![0.0, 0.0, 0.5, 0.5]);
}

// The benchmarks game's n-body (the plain port with x, y, z fields), `Body` given the derive.
mod nbody {
    use ad_runtime::{forward, reverse, Differentiable};
    const PI: f64 = 3.141592653589793;
    pub const SOLAR_MASS: f64 = 4.0 * PI * PI;
    pub const DAYS_PER_YEAR: f64 = 365.24;
    const N_BODIES: usize = 5;

    #[derive(Clone, Copy, Debug, PartialEq, Differentiable)]
    pub struct Body {
        pub x: f64,
        pub y: f64,
        pub z: f64,
        pub vx: f64,
        pub vy: f64,
        pub vz: f64,
        pub mass: f64,
    }

    #[forward]
    pub fn offset_momentum(#[grad] bodies: &mut [Body; N_BODIES]) {
        let mut px = 0.0;
        let mut py = 0.0;
        let mut pz = 0.0;
        for i in 0..N_BODIES {
            px += bodies[i].vx * bodies[i].mass;
            py += bodies[i].vy * bodies[i].mass;
            pz += bodies[i].vz * bodies[i].mass;
        }
        bodies[0].vx = -px / SOLAR_MASS;
        bodies[0].vy = -py / SOLAR_MASS;
        bodies[0].vz = -pz / SOLAR_MASS;
    }

    #[forward]
    pub fn advance(#[grad] bodies: &mut [Body; N_BODIES], dt: f64) {
        for i in 0..N_BODIES {
            for j in i + 1..N_BODIES {
                let dx = bodies[i].x - bodies[j].x;
                let dy = bodies[i].y - bodies[j].y;
                let dz = bodies[i].z - bodies[j].z;
                let d2 = dx * dx + dy * dy + dz * dz;
                let mag = dt / (d2 * f64::sqrt(d2));
                let mi = bodies[i].mass;
                let mj = bodies[j].mass;
                bodies[i].vx -= dx * mj * mag;
                bodies[i].vy -= dy * mj * mag;
                bodies[i].vz -= dz * mj * mag;
                bodies[j].vx += dx * mi * mag;
                bodies[j].vy += dy * mi * mag;
                bodies[j].vz += dz * mi * mag;
            }
        }
        for i in 0..N_BODIES {
            bodies[i].x += dt * bodies[i].vx;
            bodies[i].y += dt * bodies[i].vy;
            bodies[i].z += dt * bodies[i].vz;
        }
    }

    #[forward]
    #[reverse]
    pub fn energy(#[grad] bodies: &[Body; N_BODIES]) -> f64 {
        let mut e = 0.0;
        for i in 0..N_BODIES {
            e += 0.5
                * bodies[i].mass
                * (bodies[i].vx * bodies[i].vx
                    + bodies[i].vy * bodies[i].vy
                    + bodies[i].vz * bodies[i].vz);
            for j in i + 1..N_BODIES {
                let dx = bodies[i].x - bodies[j].x;
                let dy = bodies[i].y - bodies[j].y;
                let dz = bodies[i].z - bodies[j].z;
                e -= bodies[i].mass * bodies[j].mass / f64::sqrt(dx * dx + dy * dy + dz * dz);
            }
        }
        e
    }
}

/// The benchmark's five bodies (positions in AU, velocities in AU per year).
fn solar_system() -> [nbody::Body; 5] {
    let body = |x: f64, y: f64, z: f64, vx: f64, vy: f64, vz: f64, mass: f64| nbody::Body {
        x,
        y,
        z,
        vx: vx * nbody::DAYS_PER_YEAR,
        vy: vy * nbody::DAYS_PER_YEAR,
        vz: vz * nbody::DAYS_PER_YEAR,
        mass: mass * nbody::SOLAR_MASS,
    };
    [
        body(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0),
        body(
            4.841431442464721,
            -1.1603200440274284,
            -0.10362204447112311,
            0.001660076642744037,
            0.007699011184197404,
            -6.90460016972063e-5,
            0.0009547919384243266,
        ),
        body(
            8.34336671824458,
            4.124798564124305,
            -0.4035234171143214,
            -0.002767425107268624,
            0.004998528012349172,
            2.3041729757376393e-5,
            0.0002858859806661308,
        ),
        body(
            12.894369562139131,
            -15.111151401698631,
            -0.22330757889265573,
            0.002964601375647616,
            0.0023784717395948095,
            -2.9658956854023756e-5,
            4.366244043351563e-5,
        ),
        body(
            15.379697114850917,
            -25.919314609987964,
            0.17925877295037118,
            0.0026806777249038932,
            0.001628241700382423,
            -9.515922545197159e-5,
            5.1513890204661145e-5,
        ),
    ]
}

/// The n-body program's state after `steps` steps, its energy.
#[forward]
fn energy_after(#[grad] start: &[nbody::Body; 5], dt: f64, steps: usize) -> f64 {
    let mut bodies = *start;
    nbody::offset_momentum(&mut bodies);
    for _ in 0..steps {
        nbody::advance(&mut bodies, dt);
    }
    nbody::energy(&bodies)
}

#[test]
fn nbody_stepped_in_place_in_forward_mode() {
    let start = solar_system();
    let mut rng = common::Rng::new(11);
    let mut direction = start;
    for body in direction.iter_mut() {
        for float in [
            &mut body.x,
            &mut body.y,
            &mut body.z,
            &mut body.vx,
            &mut body.vy,
            &mut body.vz,
            &mut body.mass,
        ] {
            *float = rng.uniform(-1e-2, 1e-2) * float.abs().max(1e-3);
        }
    }
    let (value, tangent) = energy_after_jvp(&start, 0.01, 50, &direction, 0.0);
    assert_eq!(value.to_bits(), energy_after(&start, 0.01, 50).to_bits());
    let along = |h: f64| {
        let mut moved = start;
        for (body, step) in moved.iter_mut().zip(&direction) {
            body.x += h * step.x;
            body.y += h * step.y;
            body.z += h * step.z;
            body.vx += h * step.vx;
            body.vy += h * step.vy;
            body.vz += h * step.vz;
            body.mass += h * step.mass;
        }
        energy_after(&moved, 0.01, 50)
    };
    approx::assert_relative_eq!(
        tangent,
        common::central_difference(along, 0.0, 1e-3),
        max_relative = 1e-6
    );
    // The step written in place: its tangents against the states of the moved start.
    let (mut bodies, mut tangents) = (start, direction);
    nbody::advance_jvp(&mut bodies, 0.01, &mut tangents, 0.0);
    let mut plain = start;
    nbody::advance(&mut plain, 0.01);
    assert_eq!(bodies, plain);
    let stepped = |h: f64| {
        let mut moved = start;
        for (body, step) in moved.iter_mut().zip(&direction) {
            body.x += h * step.x;
            body.vx += h * step.vx;
            body.mass += h * step.mass;
            body.y += h * step.y;
            body.vy += h * step.vy;
            body.z += h * step.z;
            body.vz += h * step.vz;
        }
        nbody::advance(&mut moved, 0.01);
        moved[1].x
    };
    approx::assert_relative_eq!(
        tangents[1].x,
        common::central_difference(stepped, 0.0, 1e-3),
        max_relative = 1e-8
    );
}

// argmin-testfunctions, src/styblinskitang.rs: the gradient written into an
// array by a `map` closure whose items are drained by `count()`, generic over `T: Float`.
#[forward]
#[reverse]
pub fn styblinski_tang_derivative_const<const N: usize, T>(param: &[T; N]) -> [T; N]
where
    T: Float + FromPrimitive + Sum,
{
    let n0 = T::from_f64(0.0).unwrap();
    let n2 = T::from_f64(2.0).unwrap();
    let n2_5 = T::from_f64(2.5).unwrap();
    let n16 = T::from_f64(16.0).unwrap();

    let mut out = [n0; N];

    param
        .iter()
        .zip(out.iter_mut())
        .map(|(x, o)| *o = n2 * x.powi(3) - n16 * *x + n2_5)
        .count();

    out
}

#[test]
fn argmin_derivative_written_through_count() {
    let as_array = |x: &[f64]| [x[0], x[1], x[2]];
    let mut rng = common::Rng::new(9);
    for _ in 0..3 {
        let x: Vec<f64> = (0..3).map(|_| rng.uniform(-2.0, 2.0)).collect();
        let t: Vec<f64> = (0..3).map(|_| rng.uniform(-1.0, 1.0)).collect();
        let c: Vec<f64> = (0..3).map(|_| rng.uniform(-1.0, 1.0)).collect();
        let (y, jt) = styblinski_tang_derivative_const_jvp(&as_array(&x), &as_array(&t));
        assert_eq!(y, styblinski_tang_derivative_const(&as_array(&x)));
        let (_, jtc) = styblinski_tang_derivative_const_vjp(&as_array(&x), as_array(&c));
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a * b).sum::<f64>();
        approx::assert_relative_eq!(dot(&jt, &c), dot(&t, &jtc), max_relative = 1e-12);
        // The Hessian of the Styblinski-Tang function is diagonal: 6 x^2 - 16.
        for k in 0..3 {
            approx::assert_relative_eq!(jt[k], (6.0 * x[k] * x[k] - 16.0) * t[k], epsilon = 1e-12);
        }
    }
}

// An ODE stepper of a small published numerics collection: the right-hand side a function
// pointer, passed by its name by the caller.
#[forward]
#[reverse]
pub fn euler(mut x0: f64, x: f64, mut y: f64, n: i64, deriv: fn(f64, f64) -> f64) -> f64 {
    let h = (x - x0) / n as f64;
    for _ in 0..n {
        y += h * deriv(x0, y);
        x0 += h;
    }
    y
}

#[forward]
#[reverse]
fn logistic_rhs(t: f64, y: f64) -> f64 {
    y * (1.0 - y) + 0.1 * t
}

#[forward]
#[reverse]
fn logistic_at(x: &[f64]) -> f64 {
    euler(0.0, 1.0 + x[1] / 4.0, 0.5 + x[0] / 10.0, 30, logistic_rhs)
}

#[test]
fn euler_given_a_function_by_name() {
    check_gradient(2, logistic_at, logistic_at_jvp, logistic_at_vjp);
}
