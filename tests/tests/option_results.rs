//! Functions returning `Option<f64>` in both modes: `f_jvp` returns the value and its tangent
//! as options (`(None, None)` for `None`), `f_vjp` takes the cotangent as an option (`None` for
//! a `None` result). Callers unwrap them (`.unwrap()`, `.unwrap_or(..)`, `?`). Checked against
//! central differences, forward against reverse, at several random points.

mod common;

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;
use common::{random_vector, Rng};

/// statrs' `Statistics::mean`: `None` on empty data.
#[forward]
#[reverse]
fn mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        None
    } else {
        Some(xs.iter().sum::<f64>() / xs.len() as f64)
    }
}

/// An `Option`-returning helper unwrapped.
#[forward]
#[reverse]
fn sample_variance(xs: &[f64]) -> f64 {
    let m = mean(xs).unwrap();
    xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (xs.len() - 1) as f64
}

/// An early `return None`.
#[forward]
#[reverse]
fn inverse_distance(a: &[f64], b: &[f64]) -> Option<f64> {
    let d2: f64 = a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum();
    if d2 < 1e-12 {
        return None;
    }
    Some(1.0 / d2.sqrt())
}

/// `unwrap_or` of options returned by a call.
#[forward]
#[reverse]
fn coulomb(a: &[f64], b: &[f64], c: &[f64]) -> f64 {
    inverse_distance(a, b).unwrap_or(0.0) + 2.0 * inverse_distance(a, c).unwrap_or(0.0)
}

/// `?` on an option returned by a call.
#[forward]
#[reverse]
fn scaled_inverse(x: &[f64]) -> Option<f64> {
    let r = inverse_distance(x, &[0.0, 0.0])?;
    let m = mean(x)?;
    Some(r * m * x[0])
}

fn central(f: &dyn Fn(&[f64]) -> f64, x: &[f64], t: &[f64]) -> f64 {
    let h = 1e-6;
    let at = |s: f64| -> f64 {
        let moved: Vec<f64> = x.iter().zip(t).map(|(x, t)| x + s * h * t).collect();
        f(&moved)
    };
    (at(1.0) - at(-1.0)) / (2.0 * h)
}

/// Forward, reverse (with cotangent `w`) and central differences along `t` agree.
fn agree(forward: f64, reverse: f64, central: f64) {
    assert_relative_eq!(forward, reverse, max_relative = 1e-12, epsilon = 1e-14);
    assert_relative_eq!(forward, central, max_relative = 1e-6, epsilon = 1e-8);
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(a, b)| a * b).sum()
}

#[test]
fn option_results_and_their_callers() {
    let mut rng = Rng::new(17);
    for _ in 0..5 {
        let x = random_vector(&mut rng, 4);
        let t = random_vector(&mut rng, 4);
        let w = rng.uniform(-1.0, 1.0);

        let (value, tangent) = mean_jvp(&x, &t);
        let (reverse_value, adjoint) = mean_vjp(&x, Some(w));
        assert_eq!(value, mean(&x));
        assert_eq!(reverse_value, mean(&x));
        let central_mean = central(&|x| mean(x).unwrap(), &x, &t);
        agree(tangent.unwrap() * w, dot(&t, &adjoint), central_mean * w);

        let (value, tangent) = sample_variance_jvp(&x, &t);
        let (reverse_value, gradient) = sample_variance_grad(&x);
        assert_eq!(value.to_bits(), sample_variance(&x).to_bits());
        assert_eq!(reverse_value.to_bits(), value.to_bits());
        agree(
            tangent,
            dot(&t, &gradient),
            central(&|x| sample_variance(x), &x, &t),
        );

        let (a, b, c) = (&x[..2], &x[2..], [x[0] + 0.5, x[1] - 0.25]);
        let (ta, tb, tc) = (&t[..2], &t[2..], [t[1], t[0]]);
        let (value, tangent) = coulomb_jvp(a, b, &c, ta, tb, &tc);
        let (reverse_value, (ga, gb, gc)) = coulomb_grad(a, b, &c);
        assert_eq!(value.to_bits(), coulomb(a, b, &c).to_bits());
        assert_eq!(reverse_value.to_bits(), value.to_bits());
        let whole = |y: &[f64]| coulomb(&y[..2], &y[2..4], &y[4..]);
        let joined = [a, b, &c].concat();
        let joined_tangent = [ta, tb, &tc].concat();
        agree(
            tangent,
            dot(ta, &ga) + dot(tb, &gb) + dot(&tc, &gc),
            central(&whole, &joined, &joined_tangent),
        );

        let (value, tangent) = scaled_inverse_jvp(&x[..2], &t[..2]);
        let (reverse_value, adjoint) = scaled_inverse_vjp(&x[..2], Some(w));
        assert_eq!(value, scaled_inverse(&x[..2]));
        assert_eq!(reverse_value, value);
        let central_scaled = central(&|y| scaled_inverse(y).unwrap(), &x[..2], &t[..2]);
        agree(
            tangent.unwrap() * w,
            dot(&t[..2], &adjoint),
            central_scaled * w,
        );
    }
}

#[test]
fn none_results_have_no_derivative() {
    assert_eq!(mean_jvp(&[], &[]), (None, None));
    let (value, adjoint) = mean_vjp(&[], None);
    assert_eq!(value, None);
    assert!(adjoint.is_empty());
    let (value, tangent) = scaled_inverse_jvp(&[0.0, 0.0], &[1.0, 1.0]);
    assert_eq!((value, tangent), (None, None));
    let (value, adjoint) = scaled_inverse_vjp(&[0.0, 0.0], None);
    assert_eq!(value, None);
    assert_eq!(adjoint, [0.0, 0.0]);
    // The second charge on the first: its term is dropped, and so is its derivative.
    let (_, (ga, _, gc)) = coulomb_grad(&[1.0, 2.0], &[0.0, 0.5], &[1.0, 2.0]);
    assert_relative_eq!(ga[0], -1.0 / 3.25f64.powf(1.5), max_relative = 1e-12);
    assert_eq!(gc, [0.0, 0.0]);
}
