//! Optimization test functions in the forms of `argmin-testfunctions` (argmin-rs): generic
//! over `T: Float + FromPrimitive`, parameters as `&[T]` or `&[T; 2]`, constants as
//! `T::from_f64(..).unwrap()`, iterator chains with `zip`, `skip`, `map`, `fold` and `sum`.

use crate::harness::{one, Case};
use ad_runtime::num_traits::{Float, FloatConst, FromPrimitive};
use ad_runtime::{forward, reverse};
use std::iter::Sum;

// Form of argmin-testfunctions `rosenbrock`: `where` bounds, zip with a skipped copy, `sum`.
#[forward]
#[reverse]
pub fn rosenbrock<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    let a = T::one();
    let b = T::from_f64(100.0).unwrap();
    param
        .iter()
        .zip(param.iter().skip(1))
        .map(|(&xi, &xi1)| (a - xi).powi(2) + b * (xi1 - xi.powi(2)).powi(2))
        .sum()
}

// Form of argmin-testfunctions `beale`: a `&[T; 2]` taken apart by `let [x1, x2] = *param`.
#[forward]
#[reverse]
pub fn beale<T>(param: &[T; 2]) -> T
where
    T: Float + FromPrimitive,
{
    let [x1, x2] = *param;
    let n1_5 = T::from_f64(1.5).unwrap();
    let n2_25 = T::from_f64(2.25).unwrap();
    let n2_625 = T::from_f64(2.625).unwrap();
    (n1_5 - x1 + x1 * x2).powi(2)
        + (n2_25 - x1 + x1 * x2.powi(2)).powi(2)
        + (n2_625 - x1 + x1 * x2.powi(3)).powi(2)
}

// Form of argmin-testfunctions `himmelblau`.
#[forward]
#[reverse]
pub fn himmelblau<T>(param: &[T; 2]) -> T
where
    T: Float + FromPrimitive,
{
    let [x1, x2] = *param;
    let n7 = T::from_f64(7.0).unwrap();
    let n11 = T::from_f64(11.0).unwrap();
    (x1.powi(2) + x2 - n11).powi(2) + (x1 + x2.powi(2) - n7).powi(2)
}

// Form of argmin-testfunctions `rastrigin_a`: `T::PI()` (FloatConst), `T::from_usize`, `fold`.
#[forward]
#[reverse]
pub fn rastrigin_a<T>(param: &[T], a: T) -> T
where
    T: Float + FromPrimitive + FloatConst,
{
    let n2 = T::from_f64(2.0).unwrap();
    a * T::from_usize(param.len()).unwrap()
        + param.iter().fold(T::zero(), |acc, &x| {
            acc + x.powi(2) - a * (n2 * T::PI() * x).cos()
        })
}

// Form of argmin-testfunctions `ackley_abc`: `sum::<T>()` turbofish inside an expression.
#[forward]
#[reverse]
pub fn ackley_abc<T>(param: &[T], a: T, b: T, c: T) -> T
where
    T: Float + FromPrimitive + Sum,
{
    let num1 = T::from_f64(1.0).unwrap();
    let n = T::from_usize(param.len()).unwrap();
    -a * (-b * (param.iter().map(|&x| x.powi(2)).sum::<T>() / n).sqrt()).exp()
        - (param.iter().map(|&x| (c * x).cos()).sum::<T>() / n).exp()
        + a
        + num1.exp()
}

// Form of argmin-testfunctions `styblinski_tang`, written over `f64` as application code
// does: `map` then `sum::<f64>()`.
#[forward]
#[reverse]
pub fn styblinski_tang(param: &[f64]) -> f64 {
    0.5 * param
        .iter()
        .map(|x| x.powi(4) - 16.0 * x.powi(2) + 5.0 * x)
        .sum::<f64>()
}

// Form of argmin-testfunctions `goldsteinprice`, over `f64`: an array by value, destructured.
#[forward]
#[reverse]
pub fn goldstein_price(param: [f64; 2]) -> f64 {
    let [x1, x2] = param;
    let a = 1.0
        + (x1 + x2 + 1.0).powi(2)
            * (19.0 - 14.0 * x1 + 3.0 * x1.powi(2) - 14.0 * x2 + 6.0 * x1 * x2 + 3.0 * x2.powi(2));
    let b = 30.0
        + (2.0 * x1 - 3.0 * x2).powi(2)
            * (18.0 - 32.0 * x1 + 12.0 * x1.powi(2) + 48.0 * x2 - 36.0 * x1 * x2
                + 27.0 * x2.powi(2));
    a * b
}

#[test]
fn rosenbrock_generic_slice() {
    Case::new("rosenbrock", 4, |x| one(rosenbrock(x)))
        .forward(|x, t| {
            let (v, d) = rosenbrock_jvp(x, t);
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, g) = rosenbrock_vjp(x, w[0]);
            (one(v), g.to_vec())
        })
        .grad(|x| {
            let (v, g) = rosenbrock_grad(x);
            (v, g.to_vec())
        })
        .check(1);
}

fn pair(x: &[f64]) -> [f64; 2] {
    [x[0], x[1]]
}

#[test]
fn beale_generic_array() {
    Case::new("beale", 2, |x| one(beale(&pair(x))))
        .forward(|x, t| {
            let (v, d) = beale_jvp(&pair(x), &pair(t));
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, g) = beale_vjp(&pair(x), w[0]);
            (one(v), g.to_vec())
        })
        .check(2);
}

#[test]
fn himmelblau_generic_array() {
    Case::new("himmelblau", 2, |x| one(himmelblau(&pair(x))))
        .forward(|x, t| {
            let (v, d) = himmelblau_jvp(&pair(x), &pair(t));
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, g) = himmelblau_vjp(&pair(x), w[0]);
            (one(v), g.to_vec())
        })
        .check(3);
}

#[test]
fn rastrigin_generic_with_pi() {
    Case::new("rastrigin_a", 4, |x| one(rastrigin_a(&x[..3], x[3])))
        .forward(|x, t| {
            let (v, d) = rastrigin_a_jvp(&x[..3], x[3], &t[..3], t[3]);
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, (g, ga)) = rastrigin_a_vjp(&x[..3], x[3], w[0]);
            let mut all = g.to_vec();
            all.push(ga);
            (one(v), all)
        })
        .check(4);
}

#[test]
fn ackley_generic_with_sum_turbofish() {
    Case::new("ackley_abc", 6, |x| {
        one(ackley_abc(&x[..3], x[3], x[4], x[5]))
    })
    .within(&[
        (-1.5, 1.5),
        (-1.5, 1.5),
        (-1.5, 1.5),
        (10.0, 20.0),
        (0.1, 0.3),
        (4.0, 7.0),
    ])
    .forward(|x, t| {
        let (v, d) = ackley_abc_jvp(&x[..3], x[3], x[4], x[5], &t[..3], t[3], t[4], t[5]);
        (one(v), one(d))
    })
    .reverse(|x, w| {
        let (v, (g, ga, gb, gc)) = ackley_abc_vjp(&x[..3], x[3], x[4], x[5], w[0]);
        let mut all = g.to_vec();
        all.extend([ga, gb, gc]);
        (one(v), all)
    })
    .check(5);
}

#[test]
fn styblinski_tang_f64() {
    Case::new("styblinski_tang", 5, |x| one(styblinski_tang(x)))
        .forward(|x, t| {
            let (v, d) = styblinski_tang_jvp(x, t);
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, g) = styblinski_tang_vjp(x, w[0]);
            (one(v), g.to_vec())
        })
        .grad(|x| {
            let (v, g) = styblinski_tang_grad(x);
            (v, g.to_vec())
        })
        .check(6);
}

#[test]
fn goldstein_price_array_by_value() {
    Case::new("goldstein_price", 2, |x| one(goldstein_price(pair(x))))
        .within(&[(-1.0, 1.0)])
        .forward(|x, t| {
            let (v, d) = goldstein_price_jvp(pair(x), pair(t));
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, g) = goldstein_price_vjp(pair(x), w[0]);
            (one(v), g.to_vec())
        })
        .check(7);
}
