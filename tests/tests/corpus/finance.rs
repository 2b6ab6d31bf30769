//! Pricing formulas in the forms of finance code in Rust (`RustQuant`-style free functions of
//! rates, times and prices): bond prices, Black-Scholes, forward rates with tuple-pattern
//! parameters, a duration returning `Option<f64>`, NPV by `.rev().fold`, annuities with consts.

use crate::harness::{one, Case};
use crate::statistics::special::erf;
use ad_runtime::{forward, reverse};
use std::f64::consts::SQRT_2;

// Form of a coupon bond's price: `(1..=periods).map(..).sum::<f64>()`.
#[forward]
#[reverse]
pub fn bond_price(face: f64, coupon_rate: f64, ytm: f64, periods: u32) -> f64 {
    let coupon = face * coupon_rate;
    let pv_coupons: f64 = (1..=periods)
        .map(|t| coupon / (1.0 + ytm).powi(t as i32))
        .sum();
    pv_coupons + face / (1.0 + ytm).powi(periods as i32)
}

// Form of a normal CDF through `erf` of another module.
#[forward]
#[reverse]
pub fn norm_cdf(x: f64) -> f64 {
    0.5 * (1.0 + erf(x / SQRT_2))
}

// Form of RustQuant-style `black_scholes` call price.
#[forward]
#[reverse]
pub fn black_scholes_call(spot: f64, strike: f64, rate: f64, vol: f64, expiry: f64) -> f64 {
    let sqrt_t = expiry.sqrt();
    let d1 = ((spot / strike).ln() + (rate + 0.5 * vol * vol) * expiry) / (vol * sqrt_t);
    let d2 = d1 - vol * sqrt_t;
    spot * norm_cdf(d1) - strike * (-rate * expiry).exp() * norm_cdf(d2)
}

// Form of a forward rate from two zero-rate points given as `(t, r)` tuple patterns. The
// generated functions name the parameters after their patterns (`t1_r1`, `t2_r2`).
#[forward]
#[reverse]
pub fn forward_rate((t1, r1): (f64, f64), (t2, r2): (f64, f64)) -> f64 {
    (r2 * t2 - r1 * t1) / (t2 - t1)
}

// Form of a Macaulay duration returning `Option<f64>` (`None` for a non-positive price), over
// `(time, amount)` tuples.
#[forward]
#[reverse]
pub fn macaulay_duration(cashflows: &[(f64, f64)], ytm: f64) -> Option<f64> {
    let (mut price, mut weighted) = (0.0, 0.0);
    for &(t, cf) in cashflows {
        let pv = cf / (1.0 + ytm).powf(t);
        price += pv;
        weighted += t * pv;
    }
    if price > 0.0 {
        Some(weighted / price)
    } else {
        None
    }
}

// Form of a net present value by Horner's rule from the last cash flow: `.rev().fold`.
#[forward]
#[reverse]
pub fn npv(rate: f64, flows: &[f64]) -> f64 {
    let discount = 1.0 / (1.0 + rate);
    flows.iter().rev().fold(0.0, |acc, &cf| acc * discount + cf)
}

const MONTHS_PER_YEAR: f64 = 12.0;

// Form of a mortgage payment with a module `const` and an integer exponent.
#[forward]
#[reverse]
pub fn monthly_payment(principal: f64, annual_rate: f64, years: u32) -> f64 {
    let r = annual_rate / MONTHS_PER_YEAR;
    let n = years as i32 * 12;
    principal * r / (1.0 - (1.0 + r).powi(-n))
}

// Form of a Vasicek zero-coupon bond price (short-rate model), `let` chains of named terms.
#[forward]
#[reverse]
pub fn vasicek_zcb(r0: f64, a: f64, b: f64, sigma: f64, t: f64) -> f64 {
    let bt = (1.0 - (-a * t).exp()) / a;
    let at = ((b - sigma * sigma / (2.0 * a * a)) * (bt - t)) - sigma * sigma * bt * bt / (4.0 * a);
    (at - bt * r0).exp()
}

#[test]
fn bond_price_sum_over_range() {
    Case::new("bond_price", 3, |x| one(bond_price(x[0], x[1], x[2], 10)))
        .within(&[(90.0, 110.0), (0.01, 0.08), (0.01, 0.1)])
        .forward(|x, t| {
            let (v, d) = bond_price_jvp(x[0], x[1], x[2], 10, t[0], t[1], t[2]);
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, (a, b, c)) = bond_price_vjp(x[0], x[1], x[2], 10, w[0]);
            (one(v), vec![a, b, c])
        })
        .check(41);
}

#[test]
fn black_scholes_through_erf() {
    Case::new("black_scholes_call", 5, |x| {
        one(black_scholes_call(x[0], x[1], x[2], x[3], x[4]))
    })
    .within(&[
        (80.0, 120.0),
        (90.0, 110.0),
        (0.0, 0.05),
        (0.1, 0.4),
        (0.25, 2.0),
    ])
    .forward(|x, t| {
        let (v, d) =
            black_scholes_call_jvp(x[0], x[1], x[2], x[3], x[4], t[0], t[1], t[2], t[3], t[4]);
        (one(v), one(d))
    })
    .reverse(|x, w| {
        let (v, (a, b, c, d, e)) = black_scholes_call_vjp(x[0], x[1], x[2], x[3], x[4], w[0]);
        (one(v), vec![a, b, c, d, e])
    })
    .check(42);
}

#[test]
fn forward_rate_tuple_patterns() {
    Case::new("forward_rate", 4, |x| {
        one(forward_rate((x[0], x[1]), (x[2], x[3])))
    })
    .within(&[(0.5, 1.0), (0.01, 0.05), (2.0, 5.0), (0.01, 0.05)])
    .forward(|x, t| {
        let (v, d) = forward_rate_jvp((x[0], x[1]), (x[2], x[3]), (t[0], t[1]), (t[2], t[3]));
        (one(v), one(d))
    })
    .reverse(|x, w| {
        let (v, ((a, b), (c, d))) = forward_rate_vjp((x[0], x[1]), (x[2], x[3]), w[0]);
        (one(v), vec![a, b, c, d])
    })
    .grad(|x| {
        let (v, ((a, b), (c, d))) = forward_rate_grad((x[0], x[1]), (x[2], x[3]));
        (v, vec![a, b, c, d])
    })
    .check(43);
}

const CASHFLOWS: [(f64, f64); 4] = [(1.0, 5.0), (2.0, 5.0), (3.0, 5.0), (4.0, 105.0)];

#[test]
fn macaulay_duration_option_result() {
    Case::new("macaulay_duration", 1, |x| {
        one(macaulay_duration(&CASHFLOWS, x[0]).unwrap())
    })
    .within(&[(0.01, 0.1)])
    .forward(|x, t| {
        let (v, d) = macaulay_duration_jvp(&CASHFLOWS, x[0], &[(0.0, 0.0); 4], t[0]);
        (one(v.unwrap()), one(d.unwrap()))
    })
    .reverse(|x, w| {
        let (v, (_, d_ytm)) = macaulay_duration_vjp(&CASHFLOWS, x[0], Some(w[0]));
        (one(v.unwrap()), one(d_ytm))
    })
    .check(44);
}

#[test]
fn npv_rev_fold() {
    Case::new("npv", 5, |x| one(npv(x[0], &x[1..])))
        .within(&[(0.01, 0.2), (-100.0, 100.0)])
        .forward(|x, t| {
            let (v, d) = npv_jvp(x[0], &x[1..], t[0], &t[1..]);
            (one(v), one(d))
        })
        .reverse(|x, w| {
            let (v, (a, b)) = npv_vjp(x[0], &x[1..], w[0]);
            let mut all = vec![a];
            all.extend(b);
            (one(v), all)
        })
        .check(45);
}

#[test]
fn monthly_payment_with_const() {
    Case::new("monthly_payment", 2, |x| {
        one(monthly_payment(x[0], x[1], 30))
    })
    .within(&[(1e5, 5e5), (0.01, 0.08)])
    .forward(|x, t| {
        let (v, d) = monthly_payment_jvp(x[0], x[1], 30, t[0], t[1]);
        (one(v), one(d))
    })
    .reverse(|x, w| {
        let (v, (a, b)) = monthly_payment_vjp(x[0], x[1], 30, w[0]);
        (one(v), vec![a, b])
    })
    .check(46);
}

#[test]
fn vasicek_zero_coupon_bond() {
    Case::new("vasicek_zcb", 5, |x| {
        one(vasicek_zcb(x[0], x[1], x[2], x[3], x[4]))
    })
    .within(&[
        (0.01, 0.05),
        (0.1, 1.0),
        (0.02, 0.06),
        (0.005, 0.02),
        (0.5, 10.0),
    ])
    .forward(|x, t| {
        let (v, d) = vasicek_zcb_jvp(x[0], x[1], x[2], x[3], x[4], t[0], t[1], t[2], t[3], t[4]);
        (one(v), one(d))
    })
    .reverse(|x, w| {
        let (v, (a, b, c, d, e)) = vasicek_zcb_vjp(x[0], x[1], x[2], x[3], x[4], w[0]);
        (one(v), vec![a, b, c, d, e])
    })
    .check(47);
}
