//! A helper's probe of `#[reverse]` on functions generic over their float type (commit
//! 9a6633a): how much generic numerical Rust, written the way published crates write it,
//! reverse mode takes. argmin-testfunctions' shapes (`&[T]`, `&[T; 2]` taken apart with
//! `let [x1, x2] = *param;`, constants through `T::from_f64(..).unwrap()` and
//! `std::f64::consts::PI`), statistics generic over `T: Float` (log-sum-exp, softmax
//! normalizations, likelihoods, moments), physics and ODE energies and integrators, and the
//! idioms around them (`FloatConst`, `NumCast`, `Zero`/`One`, qualified paths, `Sum`/`Product`,
//! `AddAssign`, iterator adaptors, helpers). Every function carries `#[forward] #[reverse]` and
//! is checked at random points: the reverse gradient (`_vjp`, `_grad`) against forward mode
//! (`_jvp`) along random and basis directions (<w, J v> = <J^T w, v>), `_vjp` linear in its
//! cotangent, forward mode against central differences, values of both modes bit for bit
//! against the plain function at `f64`.
//!
//! Probes reverse mode refuses (or whose expansion does not compile) are kept in
//! `#[cfg(any())]` modules with the error they give, each followed by a variant that isolates
//! the cause where one helps (`levy_index`, `zakharov_for`, `gravity_index`, ...), and
//! `over_f64_twins` tells the generic path's refusals from the engine's (over `f64` the
//! previous engine takes what the IR engine refuses; a generic function has no fallback).
//!
//! Found (at 6df6e2d): of the 79 functions written as crates write them, reverse mode takes 51
//! (every one right: gradients against forward mode, forward against central differences,
//! values bit for bit, and 14 of them forward over reverse); it refuses 28: 12 for iterator
//! adaptors and places the engine does not take over `f64` either (`windows`, `chunks`,
//! `chunks_exact`, `rev`, `into_iter`, `iter_mut`, sub-slices, `max_by(..).unwrap()`,
//! `last().unwrap()`), 5 with errors inside the generated code that `f64` code gets too
//! (`Float::sqrt(x)`, `Zero::zero()`, `num_traits::cast`, unannotated and nested helpers), and
//! 11 for the generic path: `.sum()` inside an expression without a turbofish (2, and a caller
//! of such a function fails with E0599 in the generated code), `T::from_usize(i)` of an
//! `enumerate` index in a `fold` (an integer taken for a value carrying a derivative),
//! `<T as FloatConst>::PI()` and `<T as NumCast>::from(..)`, `x.to_f64()`, and the signatures
//! `<'a, T>`, `<T, const N: usize>`, a `where` bound on `&T`, `<T, F: Fn(T) -> T>`.
//! `#[no_grad]` on a generic function was lost (reverse mode returned an adjoint for it, forward
//! mode under `#[reverse]` took a tangent); fixed, checked in `no_grad_reverse_first`.
//!
//! Since the IR engine follows sub-slices, iterator adapters and selections (this session's
//! `loop_items`), 20 of the refused probes are taken and checked (argmin's `levy`, `horner` by
//! `rev().fold`, `chunks_exact`, `logistic_nll` by `chunks`, `mixture_nll` by `max_by`,
//! `gravity_2d` over `&points[i + 1..]`, `spring_chain` and `rosenbrock_for_windows` by
//! `windows`, `compound_assign` by `iter_mut`, `early_return` by `last()`, ..., and their
//! twins over `f64`).
#![allow(clippy::all, unused_mut, unused_imports, dead_code)]

use std::f64::consts::PI;
use std::iter::{Product, Sum};
use std::ops::{AddAssign, Mul, MulAssign};

use ad_runtime::{forward, reverse};
use num_traits::{Float, FloatConst, FromPrimitive, NumCast, One, Zero};

// ===== the harness =====

struct Rng(u64);

impl Rng {
    fn new(name: &str) -> Self {
        Rng(name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        }))
    }

    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        lo + (hi - lo) * ((z >> 11) as f64 / (1u64 << 53) as f64)
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(p, q)| p * q).sum()
}

type Out = Vec<f64>;

/// Checks a function of the flat input `x` (adapters split it into the function's
/// parameters and gather the adjoints back) at six points `center + U(-radius, radius)`.
fn check(
    name: &str,
    center: &[f64],
    radius: f64,
    plain: &dyn Fn(&[f64]) -> Out,
    jvp: &dyn Fn(&[f64], &[f64]) -> (Out, Out),
    vjp: &dyn Fn(&[f64], &[f64]) -> (Out, Out),
) {
    let mut rng = Rng::new(name);
    let n = center.len();
    let mut failures = Vec::new();
    for _ in 0..6 {
        let x: Vec<f64> = center
            .iter()
            .map(|c| c + rng.uniform(-radius, radius))
            .collect();
        let y = plain(&x);
        let w: Vec<f64> = y.iter().map(|_| rng.uniform(-1.5, 1.5)).collect();
        let (yr, g) = vjp(&x, &w);
        assert_eq!(g.len(), n, "{name}: gradient length");
        let bits = |v: &[f64]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
        if bits(&yr) != bits(&y) {
            failures.push(format!("reverse value at {x:?}: {yr:?}, plain {y:?}"));
        }
        let w2: Vec<f64> = w.iter().map(|a| -2.5 * a).collect();
        let (_, g2) = vjp(&x, &w2);
        for j in 0..n {
            if (g2[j] + 2.5 * g[j]).abs() > 1e-12 * (1.0 + g[j].abs()) {
                failures.push(format!(
                    "vjp not linear at {x:?}: {} vs -2.5 * {}",
                    g2[j], g[j]
                ));
            }
        }
        let mut directions: Vec<Vec<f64>> = (0..3)
            .map(|_| (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect())
            .collect();
        for k in 0..n {
            let mut e = vec![0.0; n];
            e[k] = 1.0;
            directions.push(e);
        }
        for v in directions {
            let (yf, t) = jvp(&x, &v);
            if bits(&yf) != bits(&y) {
                failures.push(format!("forward value at {x:?}: {yf:?}, plain {y:?}"));
            }
            let forward = dot(&w, &t);
            let reverse = dot(&g, &v);
            let scale: f64 = w.iter().zip(&t).map(|(a, b)| (a * b).abs()).sum::<f64>()
                + g.iter().zip(&v).map(|(a, b)| (a * b).abs()).sum::<f64>();
            if !((forward - reverse).abs() <= 1e-9 * scale + 1e-12) {
                failures.push(format!(
                    "reverse against forward at {x:?} along {v:?}: <w, Jv> = {forward}, \
                     <J^T w, v> = {reverse} (gradient {g:?}, tangent {t:?}, cotangent {w:?})"
                ));
            }
            let h = 1e-6;
            let moved = |s: f64| {
                let p: Vec<f64> = x.iter().zip(&v).map(|(a, b)| a + s * h * b).collect();
                plain(&p)
            };
            let (up, down) = (moved(1.0), moved(-1.0));
            for i in 0..y.len() {
                let central = (up[i] - down[i]) / (2.0 * h);
                if !((t[i] - central).abs() <= 1e-5 * (1.0 + t[i].abs()) + 1e-9 * y[i].abs()) {
                    failures.push(format!(
                        "forward against central differences at {x:?} along {v:?}, output \
                         {i}: {} vs {central}",
                        t[i]
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{name}:\n{}", failures.join("\n"));
}

/// `check` for a function with a float result, and `_grad` against `_vjp(.., 1.0)`.
fn scalar(
    name: &str,
    center: &[f64],
    radius: f64,
    plain: impl Fn(&[f64]) -> f64,
    jvp: impl Fn(&[f64], &[f64]) -> (f64, f64),
    vjp: impl Fn(&[f64], f64) -> (f64, Vec<f64>),
    grad: impl Fn(&[f64]) -> (f64, Vec<f64>),
) {
    check(
        name,
        center,
        radius,
        &|x| vec![plain(x)],
        &|x, v| {
            let (y, t) = jvp(x, v);
            (vec![y], vec![t])
        },
        &|x, w| {
            let (y, g) = vjp(x, w[0]);
            (vec![y], g)
        },
    );
    let x: Vec<f64> = center
        .iter()
        .enumerate()
        .map(|(i, c)| c + 0.01 * (i as f64 + 1.0))
        .collect();
    let (y, g) = grad(&x);
    let (yv, gv) = vjp(&x, 1.0);
    let bits = |v: &[f64]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
    assert_eq!(y.to_bits(), yv.to_bits(), "{name}: _grad value");
    assert_eq!(bits(&g), bits(&gv), "{name}: _grad against _vjp(.., 1.0)");
}

/// At points where the function has a kink or a tie (`max`, `abs`, `clamp`), where central
/// differences say nothing: the reverse gradient against forward mode along each basis
/// direction, and the values, bit for bit. Returns the mismatches.
fn kinks(
    points: &[&[f64]],
    plain: impl Fn(&[f64]) -> f64,
    jvp: impl Fn(&[f64], &[f64]) -> (f64, f64),
    vjp: impl Fn(&[f64], f64) -> (f64, Vec<f64>),
) -> Vec<String> {
    let mut mismatches = Vec::new();
    for x in points {
        let (y, g) = vjp(x, 1.0);
        if y.to_bits() != plain(x).to_bits() {
            mismatches.push(format!("reverse value at {x:?}: {y} vs {}", plain(x)));
        }
        for k in 0..x.len() {
            let mut e = vec![0.0; x.len()];
            e[k] = 1.0;
            let (yf, t) = jvp(x, &e);
            if yf.to_bits() != plain(x).to_bits() {
                mismatches.push(format!("forward value at {x:?}: {yf} vs {}", plain(x)));
            }
            if !(g[k] == t || (g[k] - t).abs() <= 1e-12 * (1.0 + t.abs())) {
                mismatches.push(format!("at {x:?}, d/dx{k}: reverse {} forward {t}", g[k]));
            }
        }
    }
    mismatches
}

fn a2(x: &[f64]) -> [f64; 2] {
    [x[0], x[1]]
}

fn a3(x: &[f64]) -> [f64; 3] {
    [x[0], x[1], x[2]]
}

fn a4(x: &[f64]) -> [f64; 4] {
    [x[0], x[1], x[2], x[3]]
}

/// `scalar` for `fn f<T>(x: &[T]) -> T`.
macro_rules! slice_probe {
    ($test:ident, $f:ident, $jvp:ident, $vjp:ident, $grad:ident, $center:expr, $radius:expr) => {
        #[test]
        fn $test() {
            assert_eq!($f::__AD_ENGINE, "ir");
            scalar(
                stringify!($f),
                &$center,
                $radius,
                |x| $f(x),
                |x, v| $jvp(x, v),
                |x, w| $vjp(x, w),
                |x| $grad(x),
            );
        }
    };
}

/// `scalar` for `fn f<T>(x: &[T; 2]) -> T`.
macro_rules! pair_probe {
    ($test:ident, $f:ident, $jvp:ident, $vjp:ident, $grad:ident, $center:expr, $radius:expr) => {
        #[test]
        fn $test() {
            assert_eq!($f::__AD_ENGINE, "ir");
            scalar(
                stringify!($f),
                &$center,
                $radius,
                |x| $f(&a2(x)),
                |x, v| $jvp(&a2(x), &a2(v)),
                |x, w| {
                    let (y, g) = $vjp(&a2(x), w);
                    (y, g.to_vec())
                },
                |x| {
                    let (y, g) = $grad(&a2(x));
                    (y, g.to_vec())
                },
            );
        }
    };
}

// ===== argmin-testfunctions' shapes =====

// Refused:
// reverse mode takes a function generic over its float type at `f64`, through its engine on the
// AD-IR, which does not take this method yet; write this function over `f64`, or differentiate it
// with #[forward]
// at `.sum()` of `param.windows(2).map(..)`: `windows` is not a source the IR engine's chains
// take (over `f64`: refused too, `windows_f64`).
#[cfg(any())]
mod rosenbrock {
    use super::*;

    /// `windows(2)`, `map`, `sum` with `T: Sum`.
    #[forward]
    #[reverse]
    pub fn rosenbrock<T>(param: &[T]) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        let n1 = T::from_f64(1.0).unwrap();
        let n100 = T::from_f64(100.0).unwrap();
        param
            .windows(2)
            .map(|w| n100 * (w[1] - w[0].powi(2)).powi(2) + (n1 - w[0]).powi(2))
            .sum()
    }

    slice_probe!(
        probe,
        rosenbrock,
        rosenbrock_jvp,
        rosenbrock_vjp,
        rosenbrock_grad,
        [0.0; 4],
        1.5
    );

    #[test]
    fn sum_of_nothing_is_negative_zero() {
        let (y, g) = rosenbrock_grad(&[0.5]);
        assert_eq!(y.to_bits(), rosenbrock(&[0.5]).to_bits());
        assert_eq!(g, vec![0.0]);
    }
}

mod rosenbrock_ab {
    use super::*;

    /// An index loop, `a` and `b` differentiated too.
    #[forward]
    #[reverse]
    pub fn rosenbrock_ab<T: Float + FromPrimitive + Copy>(param: &[T], a: T, b: T) -> T {
        let mut total = T::zero();
        for i in 0..param.len() - 1 {
            let xi = param[i];
            total = total + (a - xi).powi(2) + b * (param[i + 1] - xi * xi).powi(2);
        }
        total
    }

    #[test]
    fn probe() {
        assert_eq!(rosenbrock_ab::__AD_ENGINE, "ir");
        scalar(
            "rosenbrock_ab",
            &[0.0, 0.0, 0.0, 0.0, 1.0, 10.0],
            1.0,
            |x| rosenbrock_ab(&x[..4], x[4], x[5]),
            |x, v| rosenbrock_ab_jvp(&x[..4], x[4], x[5], &v[..4], v[4], v[5]),
            |x, w| {
                let (y, (gx, ga, gb)) = rosenbrock_ab_vjp(&x[..4], x[4], x[5], w);
                (y, [gx, vec![ga, gb]].concat())
            },
            |x| {
                let (y, (gx, ga, gb)) = rosenbrock_ab_grad(&x[..4], x[4], x[5]);
                (y, [gx, vec![ga, gb]].concat())
            },
        );
    }
}

mod ackley {
    use super::*;

    /// `T::from_usize(len)`, `sum::<T>()`, `T::from_f64(2.0 * PI)`.
    #[forward]
    #[reverse]
    pub fn ackley<T>(param: &[T]) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        let a = T::from_f64(20.0).unwrap();
        let b = T::from_f64(0.2).unwrap();
        let c = T::from_f64(2.0 * PI).unwrap();
        let n = T::from_usize(param.len()).unwrap();
        let sum1 = param.iter().map(|x| x.powi(2)).sum::<T>();
        let sum2 = param.iter().map(|x| (c * *x).cos()).sum::<T>();
        -a * (-b * (sum1 / n).sqrt()).exp() - (sum2 / n).exp()
            + a
            + T::from_f64(std::f64::consts::E).unwrap()
    }

    slice_probe!(
        probe,
        ackley,
        ackley_jvp,
        ackley_vjp,
        ackley_grad,
        [0.0; 3],
        2.0
    );
}

mod beale {
    use super::*;

    /// `&[T; 2]` taken apart by `let [x1, x2] = *param;`.
    #[forward]
    #[reverse]
    pub fn beale<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive,
    {
        let [x1, x2] = *param;
        (T::from_f64(1.5).unwrap() - x1 + x1 * x2).powi(2)
            + (T::from_f64(2.25).unwrap() - x1 + x1 * x2.powi(2)).powi(2)
            + (T::from_f64(2.625).unwrap() - x1 + x1 * x2.powi(3)).powi(2)
    }

    pair_probe!(
        probe,
        beale,
        beale_jvp,
        beale_vjp,
        beale_grad,
        [0.0, 0.0],
        2.0
    );
}

mod booth {
    use super::*;

    /// An array by value, indexed.
    #[forward]
    #[reverse]
    pub fn booth<T: Float + FromPrimitive>(param: [T; 2]) -> T {
        let (x1, x2) = (param[0], param[1]);
        let n2 = T::from_f64(2.0).unwrap();
        (x1 + n2 * x2 - T::from_f64(7.0).unwrap()).powi(2)
            + (n2 * x1 + x2 - T::from_f64(5.0).unwrap()).powi(2)
    }

    #[test]
    fn probe() {
        assert_eq!(booth::__AD_ENGINE, "ir");
        scalar(
            "booth",
            &[1.0, 3.0],
            3.0,
            |x| booth(a2(x)),
            |x, v| booth_jvp(a2(x), a2(v)),
            |x, w| {
                let (y, g) = booth_vjp(a2(x), w);
                (y, g.to_vec())
            },
            |x| {
                let (y, g) = booth_grad(a2(x));
                (y, g.to_vec())
            },
        );
    }
}

mod goldstein_price {
    use super::*;

    /// Thirteen named constants.
    #[forward]
    #[reverse]
    pub fn goldstein_price<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive,
    {
        let [x1, x2] = *param;
        let n1 = T::from_f64(1.0).unwrap();
        let n2 = T::from_f64(2.0).unwrap();
        let n3 = T::from_f64(3.0).unwrap();
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
        let first = n1
            + (x1 + x2 + n1).powi(2)
                * (n19 - n14 * x1 + n3 * x1.powi(2) - n14 * x2 + n6 * x1 * x2 + n3 * x2.powi(2));
        let second = n30
            + (n2 * x1 - n3 * x2).powi(2)
                * (n18 - n32 * x1 + n12 * x1.powi(2) + n48 * x2 - n36 * x1 * x2 + n27 * x2.powi(2));
        first * second
    }

    pair_probe!(
        probe,
        goldstein_price,
        goldstein_price_jvp,
        goldstein_price_vjp,
        goldstein_price_grad,
        [0.0, -1.0],
        1.0
    );
}

mod himmelblau {
    use super::*;

    /// Two scalar parameters.
    #[forward]
    #[reverse]
    pub fn himmelblau<T: Float + FromPrimitive>(x: T, y: T) -> T {
        let n7 = T::from_f64(7.0).unwrap();
        let n11 = T::from_f64(11.0).unwrap();
        (x.powi(2) + y - n11).powi(2) + (x + y.powi(2) - n7).powi(2)
    }

    #[test]
    fn probe() {
        assert_eq!(himmelblau::__AD_ENGINE, "ir");
        scalar(
            "himmelblau",
            &[0.0, 0.0],
            4.0,
            |x| himmelblau(x[0], x[1]),
            |x, v| himmelblau_jvp(x[0], x[1], v[0], v[1]),
            |x, w| {
                let (y, (gx, gy)) = himmelblau_vjp(x[0], x[1], w);
                (y, vec![gx, gy])
            },
            |x| {
                let (y, (gx, gy)) = himmelblau_grad(x[0], x[1]);
                (y, vec![gx, gy])
            },
        );
    }
}

// Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
// (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
mod levy {
    use super::*;

    /// `assert!`, a closure capturing constants, a sub-slice `param[1..(plen - 1)]`, two maps.
    #[forward]
    #[reverse]
    pub fn levy<T>(param: &[T]) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        let plen = param.len();
        assert!(plen >= 2);
        let n1 = T::from_f64(1.0).unwrap();
        let n2 = T::from_f64(2.0).unwrap();
        let n4 = T::from_f64(4.0).unwrap();
        let n10 = T::from_f64(10.0).unwrap();
        let pi = T::from_f64(PI).unwrap();
        let w = |x: T| n1 + (x - n1) / n4;
        (pi * w(param[0])).sin().powi(2)
            + param[1..(plen - 1)]
                .iter()
                .map(|x| w(*x))
                .map(|wi: T| (wi - n1).powi(2) * (n1 + n10 * (pi * wi + n1).sin().powi(2)))
                .sum()
            + (w(param[plen - 1]) - n1).powi(2)
                * (n1 + (n2 * pi * w(param[plen - 1])).sin().powi(2))
    }

    slice_probe!(probe, levy, levy_jvp, levy_vjp, levy_grad, [1.0; 4], 3.0);
}

mod levy_n13 {
    use super::*;

    #[forward]
    #[reverse]
    pub fn levy_n13<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        let [x1, x2] = *param;
        let n1 = T::from_f64(1.0).unwrap();
        let n2 = T::from_f64(2.0).unwrap();
        let n3 = T::from_f64(3.0).unwrap();
        let pi = T::from_f64(PI).unwrap();
        (n3 * pi * x1).sin().powi(2)
            + (x1 - n1).powi(2) * (n1 + (n3 * pi * x2).sin().powi(2))
            + (x2 - n1).powi(2) * (n1 + (n2 * pi * x2).sin().powi(2))
    }

    pair_probe!(
        probe,
        levy_n13,
        levy_n13_jvp,
        levy_n13_vjp,
        levy_n13_grad,
        [1.0, 1.0],
        2.0
    );
}

mod matyas {
    use super::*;

    /// `T::from(0.26).unwrap()` (`NumCast`).
    #[forward]
    #[reverse]
    pub fn matyas<T: Float>(param: &[T; 2]) -> T {
        let [x1, x2] = *param;
        T::from(0.26).unwrap() * (x1.powi(2) + x2.powi(2)) - T::from(0.48).unwrap() * x1 * x2
    }

    pair_probe!(
        probe,
        matyas,
        matyas_jvp,
        matyas_vjp,
        matyas_grad,
        [0.0, 0.0],
        5.0
    );
}

mod mccormick {
    use super::*;

    /// `let &[x1, x2] = param;`.
    #[forward]
    #[reverse]
    pub fn mccormick<T: Float + FromPrimitive>(param: &[T; 2]) -> T {
        let &[x1, x2] = param;
        (x1 + x2).sin() + (x1 - x2).powi(2) - T::from_f64(1.5).unwrap() * x1
            + T::from_f64(2.5).unwrap() * x2
            + T::one()
    }

    pair_probe!(
        probe,
        mccormick,
        mccormick_jvp,
        mccormick_vjp,
        mccormick_grad,
        [0.0, 0.0],
        2.0
    );
}

mod picheny {
    use super::*;

    /// The logarithm of the rescaled Goldstein-Price function.
    #[forward]
    #[reverse]
    pub fn picheny<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive,
    {
        let n1 = T::from_f64(1.0).unwrap();
        let n2 = T::from_f64(2.0).unwrap();
        let n4 = T::from_f64(4.0).unwrap();
        let x1 = n4 * param[0] - n2;
        let x2 = n4 * param[1] - n2;
        let a = n1
            + (x1 + x2 + n1).powi(2)
                * (T::from_f64(19.0).unwrap() - T::from_f64(14.0).unwrap() * x1
                    + T::from_f64(3.0).unwrap() * x1.powi(2)
                    - T::from_f64(14.0).unwrap() * x2
                    + T::from_f64(6.0).unwrap() * x1 * x2
                    + T::from_f64(3.0).unwrap() * x2.powi(2));
        let b = T::from_f64(30.0).unwrap()
            + (n2 * x1 - T::from_f64(3.0).unwrap() * x2).powi(2)
                * (T::from_f64(18.0).unwrap() - T::from_f64(32.0).unwrap() * x1
                    + T::from_f64(12.0).unwrap() * x1.powi(2)
                    + T::from_f64(48.0).unwrap() * x2
                    - T::from_f64(36.0).unwrap() * x1 * x2
                    + T::from_f64(27.0).unwrap() * x2.powi(2));
        n1 / T::from_f64(2.427).unwrap() * ((a * b).ln() - T::from_f64(8.693).unwrap())
    }

    pair_probe!(
        probe,
        picheny,
        picheny_jvp,
        picheny_vjp,
        picheny_grad,
        [0.5, 0.5],
        0.5
    );
}

// Refused:
// reverse mode takes a function generic over its float type at `f64`, through its engine on the
// AD-IR, which does not take a `sum` or `product` of a type not written as a number yet; write
// this function over `f64`, or differentiate it with #[forward]
// at `param.iter().map(..).sum()` in `rastrigin_a` (`a * n + chain.sum()`). Then its caller
// `rastrigin`, which the engine took, fails inside the generated code:
// error[E0599]: no associated item named `__ad_reverse` found for struct `rastrigin_a` in the
// current scope (at `rastrigin`'s `#[reverse]`)
// With `.sum::<T>()` both are taken (`rastrigin_turbofish`). Fixed: the instance over `f64`
// writes `.sum::<f64>()` where the code leaves the type to inference.
mod rastrigin {
    use super::*;

    /// A generic function calling another one, both in both modes (argmin's `rastrigin`
    /// calls `rastrigin_a`).
    #[forward]
    #[reverse]
    pub fn rastrigin<T>(param: &[T]) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        rastrigin_a(param, T::from_f64(10.0).unwrap())
    }

    #[forward]
    #[reverse]
    pub fn rastrigin_a<T>(param: &[T], a: T) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        a * T::from_usize(param.len()).unwrap()
            + param
                .iter()
                .map(|&x| x.powi(2) - a * (T::from_f64(2.0 * PI).unwrap() * x).cos())
                .sum()
    }

    slice_probe!(
        probe,
        rastrigin,
        rastrigin_jvp,
        rastrigin_vjp,
        rastrigin_grad,
        [0.0; 3],
        2.0
    );

    #[test]
    fn probe_a() {
        assert_eq!(rastrigin_a::__AD_ENGINE, "ir");
        scalar(
            "rastrigin_a",
            &[0.0, 0.0, 0.0, 10.0],
            2.0,
            |x| rastrigin_a(&x[..3], x[3]),
            |x, v| rastrigin_a_jvp(&x[..3], x[3], &v[..3], v[3]),
            |x, w| {
                let (y, (g, ga)) = rastrigin_a_vjp(&x[..3], x[3], w);
                (y, [g, vec![ga]].concat())
            },
            |x| {
                let (y, (g, ga)) = rastrigin_a_grad(&x[..3], x[3]);
                (y, [g, vec![ga]].concat())
            },
        );
    }
}

mod schaffer_n2 {
    use super::*;

    #[forward]
    #[reverse]
    pub fn schaffer_n2<T: Float + FromPrimitive>(param: &[T; 2]) -> T {
        let [x1, x2] = *param;
        let n05 = T::from_f64(0.5).unwrap();
        let n1 = T::one();
        let n0001 = T::from_f64(0.001).unwrap();
        n05 + ((x1.powi(2) - x2.powi(2)).sin().powi(2) - n05)
            / (n1 + n0001 * (x1.powi(2) + x2.powi(2))).powi(2)
    }

    pair_probe!(
        probe,
        schaffer_n2,
        schaffer_n2_jvp,
        schaffer_n2_vjp,
        schaffer_n2_grad,
        [0.0, 0.0],
        3.0
    );
}

mod schaffer_n4 {
    use super::*;

    /// `cos(sin(|x1^2 - x2^2|))`.
    #[forward]
    #[reverse]
    pub fn schaffer_n4<T: Float + FromPrimitive>(param: &[T; 2]) -> T {
        let [x1, x2] = *param;
        let n05 = T::from_f64(0.5).unwrap();
        let n1 = T::one();
        let n0001 = T::from_f64(0.001).unwrap();
        n05 + ((x1.powi(2) - x2.powi(2)).abs().sin().cos().powi(2) - n05)
            / (n1 + n0001 * (x1.powi(2) + x2.powi(2))).powi(2)
    }

    pair_probe!(
        probe,
        schaffer_n4,
        schaffer_n4_jvp,
        schaffer_n4_vjp,
        schaffer_n4_grad,
        [0.0, 0.0],
        3.0
    );
}

mod sphere {
    use super::*;

    /// Another name than `T`; `powi` called on a `&F` (auto-deref).
    #[forward]
    #[reverse]
    pub fn sphere<F: Float + Sum>(x: &[F]) -> F {
        x.iter().map(|xi| xi.powi(2)).sum()
    }

    slice_probe!(
        probe,
        sphere,
        sphere_jvp,
        sphere_vjp,
        sphere_grad,
        [0.0; 5],
        3.0
    );

    #[test]
    fn sum_of_nothing_is_negative_zero() {
        let empty: [f64; 0] = [];
        let (y, g) = sphere_grad(&empty);
        assert_eq!(y.to_bits(), sphere(&empty).to_bits());
        assert_eq!(y.to_bits(), (-0.0f64).to_bits());
        assert!(g.is_empty());
    }
}

mod styblinski_tang {
    use super::*;

    /// `fold` over `&x` patterns.
    #[forward]
    #[reverse]
    pub fn styblinski_tang<T>(param: &[T]) -> T
    where
        T: Float + FromPrimitive,
    {
        let n2 = T::from_f64(2.0).unwrap();
        let n5 = T::from_f64(5.0).unwrap();
        let n16 = T::from_f64(16.0).unwrap();
        param.iter().fold(T::zero(), |acc, &x| {
            acc + x.powi(4) - n16 * x.powi(2) + n5 * x
        }) / n2
    }

    slice_probe!(
        probe,
        styblinski_tang,
        styblinski_tang_jvp,
        styblinski_tang_vjp,
        styblinski_tang_grad,
        [0.0; 3],
        4.0
    );
}

mod three_hump_camel {
    use super::*;

    #[forward]
    #[reverse]
    pub fn three_hump_camel<T: Float + FromPrimitive>(param: &[T; 2]) -> T {
        let [x1, x2] = *param;
        T::from_f64(2.0).unwrap() * x1.powi(2) - T::from_f64(1.05).unwrap() * x1.powi(4)
            + x1.powi(6) / T::from_f64(6.0).unwrap()
            + x1 * x2
            + x2.powi(2)
    }

    pair_probe!(
        probe,
        three_hump_camel,
        three_hump_camel_jvp,
        three_hump_camel_vjp,
        three_hump_camel_grad,
        [0.0, 0.0],
        2.0
    );
}

mod easom {
    use super::*;

    /// `T::PI()` (`FloatConst`).
    #[forward]
    #[reverse]
    pub fn easom<T: Float + FloatConst>(param: &[T; 2]) -> T {
        let [x1, x2] = *param;
        let pi = T::PI();
        -x1.cos() * x2.cos() * (-((x1 - pi).powi(2) + (x2 - pi).powi(2))).exp()
    }

    pair_probe!(
        probe,
        easom,
        easom_jvp,
        easom_vjp,
        easom_grad,
        [3.0, 3.0],
        1.5
    );
}

mod cross_in_tray {
    use super::*;

    /// `powf` with a constant exponent, `abs` twice.
    #[forward]
    #[reverse]
    pub fn cross_in_tray<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive,
    {
        let [x1, x2] = *param;
        let pi = T::from_f64(PI).unwrap();
        let n100 = T::from_f64(100.0).unwrap();
        T::from_f64(-0.0001).unwrap()
            * ((x1.sin() * x2.sin() * (n100 - (x1.powi(2) + x2.powi(2)).sqrt() / pi).abs().exp())
                .abs()
                + T::one())
            .powf(T::from_f64(0.1).unwrap())
    }

    pair_probe!(
        probe,
        cross_in_tray,
        cross_in_tray_jvp,
        cross_in_tray_vjp,
        cross_in_tray_grad,
        [0.0, 0.0],
        3.0
    );
}

mod holder_table {
    use super::*;

    #[forward]
    #[reverse]
    pub fn holder_table<T>(param: &[T; 2]) -> T
    where
        T: Float + FromPrimitive,
    {
        let [x1, x2] = *param;
        let pi = T::from_f64(PI).unwrap();
        let n1 = T::from_f64(1.0).unwrap();
        -(x1.sin() * x2.cos() * (n1 - (x1.powi(2) + x2.powi(2)).sqrt() / pi).abs().exp()).abs()
    }

    pair_probe!(
        probe,
        holder_table,
        holder_table_jvp,
        holder_table_vjp,
        holder_table_grad,
        [5.0, 5.0],
        3.0
    );
}

// Refused:
// reverse mode takes a function generic over its float type at `f64`, through its engine on the
// AD-IR, which does not take `std::mem` functions, or `T::from` of a generic function, on values
// carrying derivatives yet; write this function over `f64`, or differentiate it with #[forward]
// at `T::from_usize(i + 1)`: `i` is the `enumerate` index, an integer, taken apart from the item
// tuple `(i, &x)` of a `fold` with a pair accumulator. In a `for` loop (`zakharov_for`) taken;
// over `f64` with `(i + 1) as f64` taken (`enumerate_fold_f64`).
#[cfg(any())]
mod zakharov {
    use super::*;

    /// `enumerate` and a `fold` with a tuple accumulator, `T::from_usize(i + 1)`.
    #[forward]
    #[reverse]
    pub fn zakharov<T>(param: &[T]) -> T
    where
        T: Float + FromPrimitive,
    {
        let half = T::from_f64(0.5).unwrap();
        let (sum1, sum2) =
            param
                .iter()
                .enumerate()
                .fold((T::zero(), T::zero()), |(s1, s2), (i, &x)| {
                    (
                        s1 + x.powi(2),
                        s2 + half * T::from_usize(i + 1).unwrap() * x,
                    )
                });
        sum1 + sum2.powi(2) + sum2.powi(4)
    }

    slice_probe!(
        probe,
        zakharov,
        zakharov_jvp,
        zakharov_vjp,
        zakharov_grad,
        [0.0; 4],
        1.0
    );
}

mod bukin_n6 {
    use super::*;

    #[forward]
    #[reverse]
    pub fn bukin_n6<T: Float + FromPrimitive>(param: &[T; 2]) -> T {
        let [x1, x2] = *param;
        let n001 = T::from_f64(0.01).unwrap();
        T::from_f64(100.0).unwrap() * (x2 - n001 * x1.powi(2)).abs().sqrt()
            + n001 * (x1 + T::from_f64(10.0).unwrap()).abs()
    }

    pair_probe!(
        probe,
        bukin_n6,
        bukin_n6_jvp,
        bukin_n6_vjp,
        bukin_n6_grad,
        [-10.0, 2.0],
        2.0
    );
}

mod eggholder {
    use super::*;

    #[forward]
    #[reverse]
    pub fn eggholder<T: Float + FromPrimitive>(param: &[T; 2]) -> T {
        let [x1, x2] = *param;
        let n47 = T::from_f64(47.0).unwrap();
        let n2 = T::from_f64(2.0).unwrap();
        -(x2 + n47) * (x2 + x1 / n2 + n47).abs().sqrt().sin()
            - x1 * (x1 - (x2 + n47)).abs().sqrt().sin()
    }

    pair_probe!(
        probe,
        eggholder,
        eggholder_jvp,
        eggholder_vjp,
        eggholder_grad,
        [100.0, 100.0],
        50.0
    );
}

// ===== statistics =====

mod logsumexp_fold_path {
    use super::*;

    /// The maximum by `fold(T::neg_infinity(), T::max)`: a path to a method as the closure.
    #[forward]
    #[reverse]
    pub fn logsumexp<T: Float + Sum>(x: &[T]) -> T {
        let m = x.iter().cloned().fold(T::neg_infinity(), T::max);
        m + x.iter().map(|&v| (v - m).exp()).sum::<T>().ln()
    }

    slice_probe!(
        probe,
        logsumexp,
        logsumexp_jvp,
        logsumexp_vjp,
        logsumexp_grad,
        [0.0; 4],
        3.0
    );
}

mod log_sum_exp_loops {
    use super::*;

    /// `for &v in x`, `if v > m { m = v; }`, `+=` under `T: AddAssign`.
    #[forward]
    #[reverse]
    pub fn log_sum_exp<T>(x: &[T]) -> T
    where
        T: Float + AddAssign,
    {
        let mut m = T::neg_infinity();
        for &v in x {
            if v > m {
                m = v;
            }
        }
        let mut s = T::zero();
        for &v in x {
            s += (v - m).exp();
        }
        m + s.ln()
    }

    slice_probe!(
        probe,
        log_sum_exp,
        log_sum_exp_jvp,
        log_sum_exp_vjp,
        log_sum_exp_grad,
        [0.0; 4],
        3.0
    );
}

mod softmax_mean {
    use super::*;

    /// Softmax weights collected into a `Vec<T>`, normalized, `zip` with the input.
    #[forward]
    #[reverse]
    pub fn softmax_mean<T: Float + Sum>(x: &[T]) -> T {
        let m = x.iter().copied().fold(T::neg_infinity(), |a, b| a.max(b));
        let e: Vec<T> = x.iter().map(|&v| (v - m).exp()).collect();
        let z: T = e.iter().copied().sum();
        e.iter().zip(x).map(|(&w, &v)| w / z * v).sum()
    }

    slice_probe!(
        probe,
        softmax_mean,
        softmax_mean_jvp,
        softmax_mean_vjp,
        softmax_mean_grad,
        [0.0; 4],
        2.0
    );
}

// Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
// (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
mod logistic_nll {
    use super::*;

    /// Rows by `chunks`, `#[no_grad]` data of type `&[T]`, a numerically stable softplus.
    #[forward]
    #[reverse]
    pub fn logistic_nll<T: Float>(
        w: &[T],
        #[no_grad] features: &[T],
        #[no_grad] labels: &[T],
    ) -> T {
        features
            .chunks(w.len())
            .zip(labels)
            .map(|(row, &y)| {
                let z = row.iter().zip(w).fold(T::zero(), |s, (&a, &b)| s + a * b);
                let softplus = if z > T::zero() {
                    z + (-z).exp().ln_1p()
                } else {
                    z.exp().ln_1p()
                };
                softplus - y * z
            })
            .fold(T::zero(), |a, b| a + b)
    }

    const FEATURES: [f64; 12] = [
        1.0, 0.5, -1.2, 1.0, -0.3, 0.8, 1.0, 2.0, 0.1, 1.0, -1.5, -0.7,
    ];
    const LABELS: [f64; 4] = [1.0, 0.0, 1.0, 0.0];

    #[test]
    fn probe() {
        assert_eq!(logistic_nll::__AD_ENGINE, "ir");
        scalar(
            "logistic_nll",
            &[0.0; 3],
            1.5,
            |x| logistic_nll(x, &FEATURES, &LABELS),
            |x, v| logistic_nll_jvp(x, &FEATURES, &LABELS, v),
            |x, w| logistic_nll_vjp(x, &FEATURES, &LABELS, w),
            |x| logistic_nll_grad(x, &FEATURES, &LABELS),
        );
    }
}

mod normal_log_likelihood {
    use super::*;

    /// `T::PI()`, `(two * T::PI()).sqrt().ln()`, the data and the parameters all `T`s.
    #[forward]
    #[reverse]
    pub fn normal_log_likelihood<T>(x: &[T], mu: T, sigma: T) -> T
    where
        T: Float + FloatConst + FromPrimitive,
    {
        let two = T::from_f64(2.0).unwrap();
        let n = T::from_usize(x.len()).unwrap();
        let ss = x
            .iter()
            .fold(T::zero(), |acc, &xi| acc + ((xi - mu) / sigma).powi(2));
        -n * (sigma.ln() + (two * T::PI()).sqrt().ln()) - ss / two
    }

    #[test]
    fn probe() {
        assert_eq!(normal_log_likelihood::__AD_ENGINE, "ir");
        scalar(
            "normal_log_likelihood",
            &[0.0, 0.0, 0.0, 0.3, 1.5],
            0.8,
            |x| normal_log_likelihood(&x[..3], x[3], x[4]),
            |x, v| normal_log_likelihood_jvp(&x[..3], x[3], x[4], &v[..3], v[3], v[4]),
            |x, w| {
                let (y, (g, gm, gs)) = normal_log_likelihood_vjp(&x[..3], x[3], x[4], w);
                (y, [g, vec![gm, gs]].concat())
            },
            |x| {
                let (y, (g, gm, gs)) = normal_log_likelihood_grad(&x[..3], x[3], x[4]);
                (y, [g, vec![gm, gs]].concat())
            },
        );
    }
}

mod sample_variance {
    use super::*;

    /// `T::from(n).unwrap()` and `T::from(n - 1).unwrap()` of lengths.
    #[forward]
    #[reverse]
    pub fn sample_variance<T: Float>(data: &[T]) -> T {
        let n = data.len();
        let mean = data.iter().fold(T::zero(), |a, &b| a + b) / T::from(n).unwrap();
        data.iter()
            .map(|&x| (x - mean) * (x - mean))
            .fold(T::zero(), |a, b| a + b)
            / T::from(n - 1).unwrap()
    }

    slice_probe!(
        probe,
        sample_variance,
        sample_variance_jvp,
        sample_variance_vjp,
        sample_variance_grad,
        [0.0; 5],
        2.0
    );
}

// Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
// (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
mod mixture_nll {
    use super::*;

    /// A mixture's negative log-likelihood: a `Vec<T>` per point, its maximum by
    /// `max_by(|a, b| a.partial_cmp(b).unwrap())`, `T::TAU()`.
    #[forward]
    #[reverse]
    pub fn mixture_nll<T>(means: &[T], log_sigmas: &[T], #[no_grad] data: &[T]) -> T
    where
        T: Float + FloatConst + FromPrimitive + Sum,
    {
        let k = T::from_usize(means.len()).unwrap();
        let half = T::from_f64(0.5).unwrap();
        let mut total = T::zero();
        for &x in data {
            let comps: Vec<T> = means
                .iter()
                .zip(log_sigmas.iter())
                .map(|(&mu, &ls)| {
                    let z = (x - mu) / ls.exp();
                    -half * z * z - ls - half * T::TAU().ln() - k.ln()
                })
                .collect();
            let m = *comps
                .iter()
                .max_by(|a, b| a.partial_cmp(b).unwrap())
                .unwrap();
            total = total - (m + comps.iter().map(|&c| (c - m).exp()).sum::<T>().ln());
        }
        total
    }

    const DATA: [f64; 5] = [-1.2, 0.3, 0.9, 2.2, -0.4];

    #[test]
    fn probe() {
        assert_eq!(mixture_nll::__AD_ENGINE, "ir");
        scalar(
            "mixture_nll",
            &[-1.0, 1.0, 0.0, 0.0],
            0.5,
            |x| mixture_nll(&x[..2], &x[2..], &DATA),
            |x, v| mixture_nll_jvp(&x[..2], &x[2..], &DATA, &v[..2], &v[2..]),
            |x, w| {
                let (y, (gm, gs)) = mixture_nll_vjp(&x[..2], &x[2..], &DATA, w);
                (y, [gm, gs].concat())
            },
            |x| {
                let (y, (gm, gs)) = mixture_nll_grad(&x[..2], &x[2..], &DATA);
                (y, [gm, gs].concat())
            },
        );
    }
}

mod kl_divergence {
    use super::*;

    /// Two slices zipped.
    #[forward]
    #[reverse]
    pub fn kl_divergence<T: Float + Sum>(p: &[T], q: &[T]) -> T {
        p.iter()
            .zip(q.iter())
            .map(|(&a, &b)| a * (a / b).ln() - a + b)
            .sum()
    }

    #[test]
    fn probe() {
        assert_eq!(kl_divergence::__AD_ENGINE, "ir");
        scalar(
            "kl_divergence",
            &[1.0; 6],
            0.5,
            |x| kl_divergence(&x[..3], &x[3..]),
            |x, v| kl_divergence_jvp(&x[..3], &x[3..], &v[..3], &v[3..]),
            |x, w| {
                let (y, (gp, gq)) = kl_divergence_vjp(&x[..3], &x[3..], w);
                (y, [gp, gq].concat())
            },
            |x| {
                let (y, (gp, gq)) = kl_divergence_grad(&x[..3], &x[3..]);
                (y, [gp, gq].concat())
            },
        );
    }
}

mod log_cosh {
    use super::*;

    /// `cosh().ln()`, a mean by `T::from_usize`.
    #[forward]
    #[reverse]
    pub fn log_cosh<T: Float + FromPrimitive + Sum>(pred: &[T], #[no_grad] target: &[T]) -> T {
        let n = T::from_usize(pred.len()).unwrap();
        pred.iter()
            .zip(target)
            .map(|(&p, &t)| (p - t).cosh().ln())
            .sum::<T>()
            / n
    }

    const TARGET: [f64; 3] = [0.5, -1.0, 2.0];

    #[test]
    fn probe() {
        assert_eq!(log_cosh::__AD_ENGINE, "ir");
        scalar(
            "log_cosh",
            &[0.0; 3],
            2.0,
            |x| log_cosh(x, &TARGET),
            |x, v| log_cosh_jvp(x, &TARGET, v),
            |x, w| {
                let (y, g) = log_cosh_vjp(x, &TARGET, w);
                (y, g)
            },
            |x| {
                let (y, g) = log_cosh_grad(x, &TARGET);
                (y, g)
            },
        );
    }
}

mod softplus_sum {
    use super::*;

    /// A stable softplus in a loop, branches on the sign, `ln_1p`.
    #[forward]
    #[reverse]
    pub fn softplus_sum<T: Float>(x: &[T]) -> T {
        let mut acc = T::zero();
        for i in 0..x.len() {
            let v = x[i];
            acc = acc
                + if v > T::zero() {
                    v + (-v).exp().ln_1p()
                } else {
                    v.exp().ln_1p()
                };
        }
        acc
    }

    slice_probe!(
        probe,
        softplus_sum,
        softplus_sum_jvp,
        softplus_sum_vjp,
        softplus_sum_grad,
        [0.0; 4],
        3.0
    );
}

mod student_t {
    use super::*;

    /// `powf` with a differentiated exponent (`nu` a parameter).
    #[forward]
    #[reverse]
    pub fn student_t_nll<T: Float + FromPrimitive>(r: &[T], nu: T) -> T {
        let two = T::from_f64(2.0).unwrap();
        r.iter().fold(T::zero(), |acc, &ri| {
            acc - (T::one() + ri * ri / nu).powf(-(nu + T::one()) / two).ln()
        })
    }

    #[test]
    fn probe() {
        assert_eq!(student_t_nll::__AD_ENGINE, "ir");
        scalar(
            "student_t_nll",
            &[0.0, 0.0, 0.0, 4.0],
            1.5,
            |x| student_t_nll(&x[..3], x[3]),
            |x, v| student_t_nll_jvp(&x[..3], x[3], &v[..3], v[3]),
            |x, w| {
                let (y, (g, gn)) = student_t_nll_vjp(&x[..3], x[3], w);
                (y, [g, vec![gn]].concat())
            },
            |x| {
                let (y, (g, gn)) = student_t_nll_grad(&x[..3], x[3]);
                (y, [g, vec![gn]].concat())
            },
        );
    }
}

// Refused:
// reverse mode takes a function generic over its float type at `f64`, through its engine on the
// AD-IR, which does not take method calls with a turbofish yet; write this function over `f64`,
// or differentiate it with #[forward]
// at `values.into_iter().zip(weights.into_iter()).map(..).sum::<T>()`: the cause is `into_iter`,
// the message names the turbofish (over `f64`: refused too, `into_iter_f64`).
#[cfg(any())]
mod weighted_mean {
    use super::*;

    /// `Vec<T>` parameters by value, consumed by `into_iter`.
    #[forward]
    #[reverse]
    pub fn weighted_mean<T: Float + Sum>(values: Vec<T>, weights: Vec<T>) -> T {
        let total: T = weights.iter().copied().sum();
        values
            .into_iter()
            .zip(weights.into_iter())
            .map(|(v, w)| v * w)
            .sum::<T>()
            / total
    }

    #[test]
    fn probe() {
        assert_eq!(weighted_mean::__AD_ENGINE, "ir");
        scalar(
            "weighted_mean",
            &[0.0, 0.0, 0.0, 1.0, 1.0, 1.0],
            0.5,
            |x| weighted_mean(x[..3].to_vec(), x[3..].to_vec()),
            |x, v| {
                weighted_mean_jvp(
                    x[..3].to_vec(),
                    x[3..].to_vec(),
                    v[..3].to_vec(),
                    v[3..].to_vec(),
                )
            },
            |x, w| {
                let (y, (gv, gw)) = weighted_mean_vjp(x[..3].to_vec(), x[3..].to_vec(), w);
                (y, [gv, gw].concat())
            },
            |x| {
                let (y, (gv, gw)) = weighted_mean_grad(x[..3].to_vec(), x[3..].to_vec());
                (y, [gv, gw].concat())
            },
        );
    }
}

mod binary_cross_entropy {
    use super::*;

    /// `recip`, a clamp by `max(T::epsilon())`.
    #[forward]
    #[reverse]
    pub fn binary_cross_entropy<T: Float>(logits: &[T], #[no_grad] labels: &[T]) -> T {
        let one = T::one();
        let mut loss = T::zero();
        for (&z, &y) in logits.iter().zip(labels.iter()) {
            let p = (one + (-z).exp()).recip();
            loss = loss
                - (y * p.max(T::epsilon()).ln() + (one - y) * (one - p).max(T::epsilon()).ln());
        }
        loss
    }

    const LABELS: [f64; 4] = [1.0, 0.0, 0.0, 1.0];

    #[test]
    fn probe() {
        assert_eq!(binary_cross_entropy::__AD_ENGINE, "ir");
        scalar(
            "binary_cross_entropy",
            &[0.0; 4],
            3.0,
            |x| binary_cross_entropy(x, &LABELS),
            |x, v| binary_cross_entropy_jvp(x, &LABELS, v),
            |x, w| {
                let (y, g) = binary_cross_entropy_vjp(x, &LABELS, w);
                (y, g)
            },
            |x| {
                let (y, g) = binary_cross_entropy_grad(x, &LABELS);
                (y, g)
            },
        );
    }
}

mod mean_and_std {
    use super::*;

    /// A pair result: `_vjp` takes a pair cotangent.
    #[forward]
    #[reverse]
    pub fn mean_and_std<T: Float + FromPrimitive + Sum>(x: &[T]) -> (T, T) {
        let n = T::from_usize(x.len()).unwrap();
        let mean = x.iter().copied().sum::<T>() / n;
        let var = x.iter().map(|&v| (v - mean).powi(2)).sum::<T>() / n;
        (mean, var.sqrt())
    }

    #[test]
    fn probe() {
        assert_eq!(mean_and_std::__AD_ENGINE, "ir");
        check(
            "mean_and_std",
            &[0.0; 4],
            2.0,
            &|x| {
                let (m, s) = mean_and_std(x);
                vec![m, s]
            },
            &|x, v| {
                let ((m, s), (dm, ds)) = mean_and_std_jvp(x, v);
                (vec![m, s], vec![dm, ds])
            },
            &|x, w| {
                let ((m, s), g) = mean_and_std_vjp(x, (w[0], w[1]));
                (vec![m, s], g)
            },
        );
    }
}

// ===== physics and ODEs =====

// Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
// (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
mod spring_chain {
    use super::*;

    /// Kinetic plus spring energy: `windows(2)`, three differentiated parameters.
    #[forward]
    #[reverse]
    pub fn spring_chain_energy<T>(q: &[T], p: &[T], k: T) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        let two = T::from_f64(2.0).unwrap();
        let kinetic = p.iter().map(|&pi| pi * pi).sum::<T>() / two;
        let potential = q
            .windows(2)
            .map(|w| (w[1] - w[0] - T::one()).powi(2))
            .sum::<T>();
        kinetic + k / two * potential
    }

    #[test]
    fn probe() {
        assert_eq!(spring_chain_energy::__AD_ENGINE, "ir");
        scalar(
            "spring_chain_energy",
            &[0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 3.0],
            0.5,
            |x| spring_chain_energy(&x[..3], &x[3..6], x[6]),
            |x, v| spring_chain_energy_jvp(&x[..3], &x[3..6], x[6], &v[..3], &v[3..6], v[6]),
            |x, w| {
                let (y, (gq, gp, gk)) = spring_chain_energy_vjp(&x[..3], &x[3..6], x[6], w);
                (y, [gq, gp, vec![gk]].concat())
            },
            |x| {
                let (y, (gq, gp, gk)) = spring_chain_energy_grad(&x[..3], &x[3..6], x[6]);
                (y, [gq, gp, vec![gk]].concat())
            },
        );
    }
}

mod pendulum_energy {
    use super::*;

    #[forward]
    #[reverse]
    pub fn pendulum_energy<T: Float + FromPrimitive>(theta: T, omega: T) -> T {
        let g = T::from_f64(9.81).unwrap();
        let l = T::from_f64(1.5).unwrap();
        let half = T::from_f64(0.5).unwrap();
        half * l * l * omega * omega + g * l * (T::one() - theta.cos())
    }

    #[test]
    fn probe() {
        assert_eq!(pendulum_energy::__AD_ENGINE, "ir");
        scalar(
            "pendulum_energy",
            &[0.0, 0.0],
            2.0,
            |x| pendulum_energy(x[0], x[1]),
            |x, v| pendulum_energy_jvp(x[0], x[1], v[0], v[1]),
            |x, w| {
                let (y, (a, b)) = pendulum_energy_vjp(x[0], x[1], w);
                (y, vec![a, b])
            },
            |x| {
                let (y, (a, b)) = pendulum_energy_grad(x[0], x[1]);
                (y, vec![a, b])
            },
        );
    }
}

// Refused:
// reverse mode takes a function generic over its float type at `f64`, through its engine on the
// AD-IR, which does not take this method yet; write this function over `f64`, or differentiate it
// with #[forward]
// at `.collect()` of `positions.chunks(3)` into a `Vec<&[T]>`.
#[cfg(any())]
mod lennard_jones {
    use super::*;

    /// Atoms by `chunks(3)` collected into a `Vec<&[T]>`, a double index loop.
    #[forward]
    #[reverse]
    pub fn lennard_jones<T>(positions: &[T]) -> T
    where
        T: Float + FromPrimitive,
    {
        let epsilon = T::from_f64(1.0).unwrap();
        let sigma = T::from_f64(1.0).unwrap();
        let four = T::from_f64(4.0).unwrap();
        let atoms: Vec<&[T]> = positions.chunks(3).collect();
        let mut energy = T::zero();
        for i in 0..atoms.len() {
            for j in (i + 1)..atoms.len() {
                let r2 = atoms[i]
                    .iter()
                    .zip(atoms[j].iter())
                    .fold(T::zero(), |s, (&a, &b)| s + (a - b) * (a - b));
                let sr6 = (sigma * sigma / r2).powi(3);
                energy = energy + four * epsilon * (sr6 * sr6 - sr6);
            }
        }
        energy
    }

    slice_probe!(
        probe,
        lennard_jones,
        lennard_jones_jvp,
        lennard_jones_vjp,
        lennard_jones_grad,
        [0.0, 0.0, 0.0, 1.2, 0.0, 0.0, 0.0, 1.2, 0.0],
        0.1
    );
}

// Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
// (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
mod gravity_2d {
    use super::*;

    /// Points as `&[[T; 2]]`, `hypot`.
    #[forward]
    #[reverse]
    pub fn gravitational_energy<T: Float>(points: &[[T; 2]]) -> T {
        let mut energy = T::zero();
        for (i, a) in points.iter().enumerate() {
            for b in &points[i + 1..] {
                energy = energy - T::one() / (a[0] - b[0]).hypot(a[1] - b[1]);
            }
        }
        energy
    }

    fn rows(x: &[f64]) -> Vec<[f64; 2]> {
        x.chunks(2).map(|c| [c[0], c[1]]).collect()
    }

    #[test]
    fn probe() {
        assert_eq!(gravitational_energy::__AD_ENGINE, "ir");
        scalar(
            "gravitational_energy",
            &[0.0, 0.0, 1.0, 0.0, 0.0, 1.0],
            0.3,
            |x| gravitational_energy(&rows(x)),
            |x, v| gravitational_energy_jvp(&rows(x), &rows(v)),
            |x, w| {
                let (y, g) = gravitational_energy_vjp(&rows(x), w);
                (y, g.concat())
            },
            |x| {
                let (y, g) = gravitational_energy_grad(&rows(x));
                (y, g.concat())
            },
        );
    }
}

mod euler_logistic {
    use super::*;

    /// Explicit Euler on logistic growth, a data step count, `T::from(0.01)`.
    #[forward]
    #[reverse]
    pub fn euler_logistic<T: Float>(y0: T, rate: T, steps: usize) -> T {
        let dt = T::from(0.01).unwrap();
        let mut y = y0;
        for _ in 0..steps {
            y = y + dt * rate * y * (T::one() - y);
        }
        y
    }

    #[test]
    fn probe() {
        assert_eq!(euler_logistic::__AD_ENGINE, "ir");
        scalar(
            "euler_logistic",
            &[0.3, 1.5],
            0.2,
            |x| euler_logistic(x[0], x[1], 200),
            |x, v| euler_logistic_jvp(x[0], x[1], 200, v[0], v[1]),
            |x, w| {
                let (y, (a, b)) = euler_logistic_vjp(x[0], x[1], 200, w);
                (y, vec![a, b])
            },
            |x| {
                let (y, (a, b)) = euler_logistic_grad(x[0], x[1], 200);
                (y, vec![a, b])
            },
        );
    }
}

mod rk4_pendulum {
    use super::*;

    /// RK4 with a closure returning a pair; an array state in and out.
    #[forward]
    #[reverse]
    pub fn rk4_pendulum<T: Float + FromPrimitive>(state: [T; 2], steps: usize) -> [T; 2] {
        let g = T::from_f64(9.81).unwrap();
        let dt = T::from_f64(0.01).unwrap();
        let two = T::from_f64(2.0).unwrap();
        let six = T::from_f64(6.0).unwrap();
        let f = |th: T, om: T| (om, -g * th.sin());
        let [mut th, mut om] = state;
        for _ in 0..steps {
            let (k1t, k1o) = f(th, om);
            let (k2t, k2o) = f(th + dt / two * k1t, om + dt / two * k1o);
            let (k3t, k3o) = f(th + dt / two * k2t, om + dt / two * k2o);
            let (k4t, k4o) = f(th + dt * k3t, om + dt * k3o);
            th = th + dt / six * (k1t + two * k2t + two * k3t + k4t);
            om = om + dt / six * (k1o + two * k2o + two * k3o + k4o);
        }
        [th, om]
    }

    #[test]
    fn probe() {
        assert_eq!(rk4_pendulum::__AD_ENGINE, "ir");
        check(
            "rk4_pendulum",
            &[0.5, 0.0],
            0.4,
            &|x| rk4_pendulum(a2(x), 50).to_vec(),
            &|x, v| {
                let (y, t) = rk4_pendulum_jvp(a2(x), 50, a2(v));
                (y.to_vec(), t.to_vec())
            },
            &|x, w| {
                let (y, g) = rk4_pendulum_vjp(a2(x), 50, a2(w));
                (y.to_vec(), g.to_vec())
            },
        );
    }
}

mod verlet {
    use super::*;

    /// Velocity Verlet, `let (mut q, mut p) = (q0, p0);`, the energy at the end.
    #[forward]
    #[reverse]
    pub fn verlet_energy<T: Float + FromPrimitive>(q0: T, p0: T, k: T, steps: usize) -> T {
        let dt = T::from_f64(0.05).unwrap();
        let half = T::from_f64(0.5).unwrap();
        let (mut q, mut p) = (q0, p0);
        for _ in 0..steps {
            let p_half = p - half * dt * k * q;
            q = q + dt * p_half;
            p = p_half - half * dt * k * q;
        }
        half * (p * p + k * q * q)
    }

    #[test]
    fn probe() {
        assert_eq!(verlet_energy::__AD_ENGINE, "ir");
        scalar(
            "verlet_energy",
            &[1.0, 0.0, 2.0],
            0.5,
            |x| verlet_energy(x[0], x[1], x[2], 40),
            |x, v| verlet_energy_jvp(x[0], x[1], x[2], 40, v[0], v[1], v[2]),
            |x, w| {
                let (y, (a, b, c)) = verlet_energy_vjp(x[0], x[1], x[2], 40, w);
                (y, vec![a, b, c])
            },
            |x| {
                let (y, (a, b, c)) = verlet_energy_grad(x[0], x[1], x[2], 40);
                (y, vec![a, b, c])
            },
        );
    }
}

mod kepler {
    use super::*;

    /// `let [qx, qy, px, py] = *state;`, `hypot`.
    #[forward]
    #[reverse]
    pub fn kepler_hamiltonian<T: Float + FromPrimitive>(state: &[T; 4]) -> T {
        let [qx, qy, px, py] = *state;
        (px * px + py * py) / T::from_f64(2.0).unwrap() - T::one() / qx.hypot(qy)
    }

    #[test]
    fn probe() {
        assert_eq!(kepler_hamiltonian::__AD_ENGINE, "ir");
        scalar(
            "kepler_hamiltonian",
            &[1.0, 0.5, 0.0, 1.0],
            0.4,
            |x| kepler_hamiltonian(&a4(x)),
            |x, v| kepler_hamiltonian_jvp(&a4(x), &a4(v)),
            |x, w| {
                let (y, g) = kepler_hamiltonian_vjp(&a4(x), w);
                (y, g.to_vec())
            },
            |x| {
                let (y, g) = kepler_hamiltonian_grad(&a4(x));
                (y, g.to_vec())
            },
        );
    }
}

mod morse {
    use super::*;

    #[forward]
    #[reverse]
    pub fn morse_potential<T: Float + Sum>(r: &[T], depth: T, a: T, r0: T) -> T {
        r.iter()
            .map(|&ri| depth * (T::one() - (-a * (ri - r0)).exp()).powi(2))
            .sum()
    }

    #[test]
    fn probe() {
        assert_eq!(morse_potential::__AD_ENGINE, "ir");
        scalar(
            "morse_potential",
            &[1.0, 1.5, 2.0, 2.0, 1.2, 1.4],
            0.3,
            |x| morse_potential(&x[..3], x[3], x[4], x[5]),
            |x, v| morse_potential_jvp(&x[..3], x[3], x[4], x[5], &v[..3], v[3], v[4], v[5]),
            |x, w| {
                let (y, (g, gd, ga, gr)) = morse_potential_vjp(&x[..3], x[3], x[4], x[5], w);
                (y, [g, vec![gd, ga, gr]].concat())
            },
            |x| {
                let (y, (g, gd, ga, gr)) = morse_potential_grad(&x[..3], x[3], x[4], x[5]);
                (y, [g, vec![gd, ga, gr]].concat())
            },
        );
    }
}

// ===== idioms =====

// `<T as FloatConst>::PI()`: at `f64`, `<f64 as FloatConst>::PI()`, a constant.
mod qualified_const {
    use super::*;

    /// `<T as FloatConst>::PI()`.
    #[forward]
    #[reverse]
    pub fn circle_area_sum<T: Float + FloatConst + Sum>(radii: &[T]) -> T {
        radii.iter().map(|&r| <T as FloatConst>::PI() * r * r).sum()
    }

    slice_probe!(
        probe,
        circle_area_sum,
        circle_area_sum_jvp,
        circle_area_sum_vjp,
        circle_area_sum_grad,
        [1.0; 3],
        0.5
    );
}

// Refused:
// error[E0782]: expected a type, found a trait (at `Float::powi(v, 2)` and at `Float::sqrt(s)`)
// inside the generated code; the same over `f64` (`ufcs_f64`).
#[cfg(any())]
mod ufcs_trait {
    use super::*;

    /// `Float::sqrt(x)`, `Float::powi(x, 2)`: the trait's path.
    #[forward]
    #[reverse]
    pub fn euclidean_norm<T: Float>(x: &[T]) -> T {
        let mut s = T::zero();
        for &v in x {
            s = s + Float::powi(v, 2);
        }
        Float::sqrt(s)
    }

    slice_probe!(
        probe,
        euclidean_norm,
        euclidean_norm_jvp,
        euclidean_norm_vjp,
        euclidean_norm_grad,
        [0.0; 3],
        2.0
    );
}

mod ufcs_type {
    use super::*;

    /// `T::max(a, b)`, `T::sqrt(s)`: the type parameter's path.
    #[forward]
    #[reverse]
    pub fn max_norm_blend<T: Float + FromPrimitive>(x: &[T]) -> T {
        let mut m = T::zero();
        let mut s = T::zero();
        for &v in x {
            m = T::max(m, v.abs());
            s = s + v * v;
        }
        T::from_f64(0.5).unwrap() * m + T::sqrt(s)
    }

    slice_probe!(
        probe,
        max_norm_blend,
        max_norm_blend_jvp,
        max_norm_blend_vjp,
        max_norm_blend_grad,
        [0.0; 3],
        2.0
    );
}

// Refused:
// reverse mode takes a function generic over its float type at `f64`, through its engine on the
// AD-IR, which does not take this method yet; write this function over `f64`, or differentiate it
// with #[forward]
// at `v.to_f64()` on a value carrying a derivative (forward mode drops the tangent there).
#[cfg(any())]
mod to_f64_branch {
    use super::*;

    /// A branch decided on `x.to_f64().unwrap()` (`ToPrimitive`).
    #[forward]
    #[reverse]
    pub fn smooth_abs_sum<T: Float + FromPrimitive>(x: &[T]) -> T {
        let mut s = T::zero();
        for &v in x {
            if v.to_f64().unwrap() < 0.0 {
                s = s - v;
            } else {
                s = s + v * v;
            }
        }
        s
    }

    slice_probe!(
        probe,
        smooth_abs_sum,
        smooth_abs_sum_jvp,
        smooth_abs_sum_vjp,
        smooth_abs_sum_grad,
        [0.0; 4],
        2.0
    );
}

// Refused:
// error[E0433]: cannot find module or crate `dot_product` in this scope (three times, at each
// call)
// inside the generated code: an unannotated helper called with floats that carry derivatives; the
// same over `f64` (`helper_f64`).
#[cfg(any())]
mod plain_helper {
    use super::*;

    /// A plain (unannotated) generic helper.
    pub fn dot_product<T: Float>(a: &[T], b: &[T]) -> T {
        a.iter().zip(b).fold(T::zero(), |s, (&x, &y)| s + x * y)
    }

    #[forward]
    #[reverse]
    pub fn cosine_similarity<T: Float>(a: &[T], b: &[T]) -> T {
        dot_product(a, b) / (dot_product(a, a).sqrt() * dot_product(b, b).sqrt())
    }

    #[test]
    fn probe() {
        assert_eq!(cosine_similarity::__AD_ENGINE, "ir");
        scalar(
            "cosine_similarity",
            &[1.0, 0.0, 0.5, 0.0, 1.0, 0.5],
            0.5,
            |x| cosine_similarity(&x[..3], &x[3..]),
            |x, v| cosine_similarity_jvp(&x[..3], &x[3..], &v[..3], &v[3..]),
            |x, w| {
                let (y, (ga, gb)) = cosine_similarity_vjp(&x[..3], &x[3..], w);
                (y, [ga, gb].concat())
            },
            |x| {
                let (y, (ga, gb)) = cosine_similarity_grad(&x[..3], &x[3..]);
                (y, [ga, gb].concat())
            },
        );
    }
}

// Refused:
// error[E0433]: cannot find module or crate `huber` in this scope
// inside the generated code: a helper `fn` declared in the body; the same over `f64`
// (`nested_f64`).
#[cfg(any())]
mod nested_helper {
    use super::*;

    /// A generic helper declared inside the body.
    #[forward]
    #[reverse]
    pub fn huber_sum<T: Float + FromPrimitive>(r: &[T]) -> T {
        fn huber<S: Float + FromPrimitive>(v: S, delta: S) -> S {
            if v.abs() <= delta {
                S::from_f64(0.5).unwrap() * v * v
            } else {
                delta * (v.abs() - S::from_f64(0.5).unwrap() * delta)
            }
        }
        let delta = T::from_f64(1.0).unwrap();
        r.iter().fold(T::zero(), |acc, &v| acc + huber(v, delta))
    }

    slice_probe!(
        probe,
        huber_sum,
        huber_sum_jvp,
        huber_sum_vjp,
        huber_sum_grad,
        [0.0; 4],
        3.0
    );
}

// Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
// (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
mod horner {
    use super::*;

    /// `rev().fold` over coefficients, a scalar point.
    #[forward]
    #[reverse]
    pub fn horner<T: Float>(coefficients: &[T], x: T) -> T {
        coefficients
            .iter()
            .rev()
            .fold(T::zero(), |acc, &c| acc * x + c)
    }

    #[test]
    fn probe() {
        assert_eq!(horner::__AD_ENGINE, "ir");
        scalar(
            "horner",
            &[1.0, -2.0, 0.5, 3.0, 0.7],
            0.5,
            |x| horner(&x[..4], x[4]),
            |x, v| horner_jvp(&x[..4], x[4], &v[..4], v[4]),
            |x, w| {
                let (y, (g, gx)) = horner_vjp(&x[..4], x[4], w);
                (y, [g, vec![gx]].concat())
            },
            |x| {
                let (y, (g, gx)) = horner_grad(&x[..4], x[4]);
                (y, [g, vec![gx]].concat())
            },
        );
    }
}

mod trig_misc {
    use super::*;

    /// `sin_cos()` into a pair, `atan2`, `mul_add`.
    #[forward]
    #[reverse]
    pub fn trig_misc<T: Float>(x: &[T; 3]) -> T {
        let (s, c) = x[0].sin_cos();
        s.mul_add(x[1], c) + x[1].atan2(x[2]) + (x[2] * c).tan()
    }

    #[test]
    fn probe() {
        assert_eq!(trig_misc::__AD_ENGINE, "ir");
        scalar(
            "trig_misc",
            &[0.3, 0.5, 1.0],
            0.4,
            |x| trig_misc(&a3(x)),
            |x, v| trig_misc_jvp(&a3(x), &a3(v)),
            |x, w| {
                let (y, g) = trig_misc_vjp(&a3(x), w);
                (y, g.to_vec())
            },
            |x| {
                let (y, g) = trig_misc_grad(&a3(x));
                (y, g.to_vec())
            },
        );
    }
}

mod unary_misc {
    use super::*;

    /// `tanh`, `exp_m1`, `cbrt`, `log10`, `log(base)`, `log2`, `asinh`, `signum`, `exp2`.
    #[forward]
    #[reverse]
    pub fn unary_misc<T: Float + FromPrimitive>(x: &[T]) -> T {
        let base = T::from_f64(3.0).unwrap();
        x[0].tanh()
            + x[1].exp_m1()
            + x[2].cbrt()
            + x[3].log10()
            + x[3].log(base)
            + x[2].log2()
            + x[0].asinh() * x[1].signum()
            + x[1].exp2()
    }

    slice_probe!(
        probe,
        unary_misc,
        unary_misc_jvp,
        unary_misc_vjp,
        unary_misc_grad,
        [0.5, 0.7, 2.0, 2.0],
        0.4
    );
}

mod geometric_mean {
    use super::*;

    /// `product::<T>()` under `T: Product`, `powf(T::one() / n)`.
    #[forward]
    #[reverse]
    pub fn geometric_mean<T: Float + FromPrimitive + Product>(x: &[T]) -> T {
        let n = T::from_usize(x.len()).unwrap();
        x.iter().copied().product::<T>().powf(T::one() / n)
    }

    slice_probe!(
        probe,
        geometric_mean,
        geometric_mean_jvp,
        geometric_mean_vjp,
        geometric_mean_grad,
        [1.0; 4],
        0.5
    );
}

// Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
// (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
mod chunks_exact {
    use super::*;

    /// `chunks_exact(2)` rows.
    #[forward]
    #[reverse]
    pub fn pair_products<T: Float + Sum>(x: &[T]) -> T {
        x.chunks_exact(2).map(|c| c[0] * c[1] + c[1].sin()).sum()
    }

    slice_probe!(
        probe,
        pair_products,
        pair_products_jvp,
        pair_products_vjp,
        pair_products_grad,
        [0.0; 6],
        1.5
    );
}

mod clamp_relu {
    use super::*;

    /// `Float::clamp` through the method, `max(T::zero())`.
    #[forward]
    #[reverse]
    pub fn clipped_relu_sum<T: Float + FromPrimitive>(x: &[T]) -> T {
        let lo = T::from_f64(-1.0).unwrap();
        let hi = T::from_f64(1.0).unwrap();
        let mut s = T::zero();
        for &v in x.iter() {
            s = s + v.clamp(lo, hi) * v + v.max(T::zero());
        }
        s
    }

    slice_probe!(
        probe,
        clipped_relu_sum,
        clipped_relu_sum_jvp,
        clipped_relu_sum_vjp,
        clipped_relu_sum_grad,
        [0.0; 4],
        2.0
    );
}

// Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
// (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
mod min_distance {
    use super::*;

    /// The smallest distance to a set of points, by `fold(T::infinity(), |m, d| m.min(d))`.
    #[forward]
    #[reverse]
    pub fn min_distance<T: Float>(x: &[T], #[no_grad] centers: &[T]) -> T {
        centers
            .chunks(2)
            .map(|c| ((x[0] - c[0]).powi(2) + (x[1] - c[1]).powi(2)).sqrt())
            .fold(T::infinity(), |m, d| m.min(d))
    }

    const CENTERS: [f64; 6] = [0.0, 0.0, 2.0, 0.5, -1.0, 1.5];

    #[test]
    fn probe() {
        assert_eq!(min_distance::__AD_ENGINE, "ir");
        scalar(
            "min_distance",
            &[0.5, 0.5],
            1.5,
            |x| min_distance(x, &CENTERS),
            |x, v| min_distance_jvp(x, &CENTERS, v),
            |x, w| min_distance_vjp(x, &CENTERS, w),
            |x| min_distance_grad(x, &CENTERS),
        );
    }
}

// Refused:
// reverse mode takes a function generic over its float type at `f64`, through its engine on the
// AD-IR, which does not take calls of closures and qualified paths yet; write this function over
// `f64`, or differentiate it with #[forward]
// at `<T as NumCast>::from(0.5)`.
#[cfg(any())]
mod numcast_qualified {
    use super::*;

    /// `<T as NumCast>::from(0.5).unwrap()`.
    #[forward]
    #[reverse]
    pub fn half_squares<T: Float + Sum>(x: &[T]) -> T {
        let half = <T as NumCast>::from(0.5).unwrap();
        x.iter().map(|&v| half * v * v).sum()
    }

    slice_probe!(
        probe,
        half_squares,
        half_squares_jvp,
        half_squares_vjp,
        half_squares_grad,
        [0.0; 3],
        2.0
    );
}

// Refused:
// error[E0283]: type annotations needed: cannot infer type of the type parameter `U` declared on
// the function `cast`
// error[E0283]: type annotations needed: multiple `impl`s satisfying
// `ad_runtime::__private::LiftProbe<Option<_>>: ad_runtime::__private::LiftOption`
// at `num_traits::cast(0.1).unwrap()`, inside the generated code; the same over `f64`
// (`cast_f64`).
#[cfg(any())]
mod cast_function {
    use super::*;

    /// `num_traits::cast(0.1).unwrap()`.
    #[forward]
    #[reverse]
    pub fn ridge_penalty<T: Float + Sum>(w: &[T]) -> T {
        let lambda: T = num_traits::cast(0.1).unwrap();
        lambda * w.iter().map(|&v| v * v).sum::<T>()
    }

    slice_probe!(
        probe,
        ridge_penalty,
        ridge_penalty_jvp,
        ridge_penalty_vjp,
        ridge_penalty_grad,
        [0.0; 3],
        2.0
    );
}

// Refused:
// error[E0034]: multiple applicable items in scope: multiple `__ad_lift` found (at `Zero::zero()`
// and at `One::one()`)
// error[E0277]: the trait bound `__S: num_traits::One` is not satisfied (at `One::one()`)
// inside the generated code; the same over `f64` (`zero_f64`).
#[cfg(any())]
mod zero_one_unqualified {
    use super::*;

    /// `Zero::zero()` and `One::one()` without the type parameter.
    #[forward]
    #[reverse]
    pub fn log_barrier<T: Float>(x: &[T]) -> T {
        let mut s: T = Zero::zero();
        let one: T = One::one();
        for &v in x {
            s = s - (one - v * v).ln();
        }
        s
    }

    slice_probe!(
        probe,
        log_barrier,
        log_barrier_jvp,
        log_barrier_vjp,
        log_barrier_grad,
        [0.0; 3],
        0.8
    );
}

mod sum_of_references {
    use super::*;

    /// `T: for<'a> Sum<&'a T>`, `x.iter().sum::<T>()`.
    #[forward]
    #[reverse]
    pub fn squared_total<T>(x: &[T]) -> T
    where
        T: Float + for<'a> Sum<&'a T>,
    {
        let s = x.iter().sum::<T>();
        s * s
    }

    slice_probe!(
        probe,
        squared_total,
        squared_total_jvp,
        squared_total_vjp,
        squared_total_grad,
        [0.0; 3],
        2.0
    );
}

// Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
// (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
mod compound_assign {
    use super::*;

    /// `+=` and `*=` under `T: AddAssign + MulAssign`, on elements of a `vec![T::zero(); n]`.
    #[forward]
    #[reverse]
    pub fn prefix_energy<T>(x: &[T]) -> T
    where
        T: Float + FromPrimitive + AddAssign + MulAssign,
    {
        let n = x.len();
        let mut prefix = vec![T::zero(); n];
        let mut running = T::zero();
        for i in 0..n {
            running += x[i];
            prefix[i] = running;
        }
        let mut total = T::zero();
        for p in prefix.iter_mut() {
            *p *= T::from_f64(0.5).unwrap();
            total += *p * *p;
        }
        total
    }

    slice_probe!(
        probe,
        prefix_energy,
        prefix_energy_jvp,
        prefix_energy_vjp,
        prefix_energy_grad,
        [0.0; 4],
        2.0
    );
}

// Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
// (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
mod early_return {
    use super::*;

    /// An early `return T::zero()`, `iter().rev().skip(1)`, `last()`.
    #[forward]
    #[reverse]
    pub fn tail_weighted<T: Float + FromPrimitive>(x: &[T]) -> T {
        if x.len() < 2 {
            return T::zero();
        }
        let last = *x.last().unwrap();
        let mut s = T::zero();
        let mut weight = T::one();
        for &v in x.iter().rev().skip(1) {
            weight = weight * T::from_f64(0.5).unwrap();
            s = s + weight * (v - last).powi(2);
        }
        s
    }

    slice_probe!(
        probe,
        tail_weighted,
        tail_weighted_jvp,
        tail_weighted_vjp,
        tail_weighted_grad,
        [0.0; 4],
        2.0
    );
}

mod matrix_rows {
    use super::*;

    /// `x^T A x` with `A: &[Vec<T>]`, both differentiated.
    #[forward]
    #[reverse]
    pub fn quadratic_form<T: Float + Sum>(a: &[Vec<T>], x: &[T]) -> T {
        a.iter()
            .zip(x)
            .map(|(row, &xi)| xi * row.iter().zip(x).map(|(&aij, &xj)| aij * xj).sum::<T>())
            .sum()
    }

    fn rows(x: &[f64]) -> Vec<Vec<f64>> {
        x.chunks(2).map(|c| c.to_vec()).collect()
    }

    #[test]
    fn probe() {
        assert_eq!(quadratic_form::__AD_ENGINE, "ir");
        scalar(
            "quadratic_form",
            &[2.0, 0.5, 0.5, 1.0, 0.3, -0.7],
            0.5,
            |x| quadratic_form(&rows(&x[..4]), &x[4..]),
            |x, v| quadratic_form_jvp(&rows(&x[..4]), &x[4..], &rows(&v[..4]), &v[4..]),
            |x, w| {
                let (y, (ga, gx)) = quadratic_form_vjp(&rows(&x[..4]), &x[4..], w);
                (y, [ga.concat(), gx].concat())
            },
            |x| {
                let (y, (ga, gx)) = quadratic_form_grad(&rows(&x[..4]), &x[4..]);
                (y, [ga.concat(), gx].concat())
            },
        );
    }
}

// Refused:
// #[reverse] does not take this generic function yet: reverse mode takes a function whose one
// generic parameter is its float type (`fn f<T: Float>(x: &[T]) -> T`, differentiated at `f64`),
// under #[reverse], not a method; differentiate this one with #[forward]
// (`squares_by_reference_jvp` runs it at the dual number type), or write a copy over `f64`
// at the generics: a `where` bound on `&T` (the README's forward column lists bounds on `&T`);
// the message names methods, not the cause.
#[cfg(any())]
mod where_on_references {
    use super::*;

    /// A `where` bound on `&T` (`for<'a> &'a T: Mul<&'a T, Output = T>`).
    #[forward]
    #[reverse]
    pub fn squares_by_reference<T>(x: &[T]) -> T
    where
        T: Float + Sum,
        for<'a> &'a T: Mul<&'a T, Output = T>,
    {
        x.iter().map(|v| v * v).sum()
    }

    slice_probe!(
        probe,
        squares_by_reference,
        squares_by_reference_jvp,
        squares_by_reference_vjp,
        squares_by_reference_grad,
        [0.0; 3],
        2.0
    );
}

// Refused:
// #[reverse] does not take this generic function yet: reverse mode takes a function whose one
// generic parameter is its float type (`fn f<T: Float>(x: &[T]) -> T`, differentiated at `f64`),
// under #[reverse], not a method; differentiate this one with #[forward] (`rastrigin_const_jvp`
// runs it at the dual number type), or write a copy over `f64`
// at the generics: `const N: usize` beside `T` (the README's row lists `const` parameters beside
// `T`, and reverse mode's 'not yet' names only methods and #[checkpoint]).
#[cfg(any())]
mod const_generic {
    use super::*;

    /// argmin's `_const` variants: `const N: usize` beside `T`.
    #[forward]
    #[reverse]
    pub fn rastrigin_const<T, const N: usize>(param: &[T; N]) -> T
    where
        T: Float + FromPrimitive,
    {
        let a = T::from_f64(10.0).unwrap();
        let mut s = a * T::from_usize(N).unwrap();
        for i in 0..N {
            s = s + param[i].powi(2) - a * (T::from_f64(2.0 * PI).unwrap() * param[i]).cos();
        }
        s
    }

    #[test]
    fn probe() {
        assert_eq!(rastrigin_const::__AD_ENGINE, "ir");
        scalar(
            "rastrigin_const",
            &[0.0; 3],
            2.0,
            |x| rastrigin_const(&a3(x)),
            |x, v| rastrigin_const_jvp(&a3(x), &a3(v)),
            |x, w| {
                let (y, g) = rastrigin_const_vjp(&a3(x), w);
                (y, g.to_vec())
            },
            |x| {
                let (y, g) = rastrigin_const_grad(&a3(x));
                (y, g.to_vec())
            },
        );
    }
}

// Refused:
// #[reverse] does not take this generic function yet: reverse mode takes a function whose one
// generic parameter is its float type (`fn f<T: Float>(x: &[T]) -> T`, differentiated at `f64`),
// under #[reverse], not a method; differentiate this one with #[forward] (`first_minus_rest_jvp`
// runs it at the dual number type), or write a copy over `f64`
// at the generics: a named lifetime `'a` beside `T` (same README row).
#[cfg(any())]
mod lifetime_parameter {
    use super::*;

    /// A named lifetime beside `T`.
    #[forward]
    #[reverse]
    pub fn first_minus_rest<'a, T: Float + Sum>(x: &'a [T]) -> T {
        let rest: T = x[1..].iter().map(|&v| v * v).sum();
        x[0] - rest
    }

    slice_probe!(
        probe,
        first_minus_rest,
        first_minus_rest_jvp,
        first_minus_rest_vjp,
        first_minus_rest_grad,
        [0.0; 3],
        2.0
    );
}

mod debug_bound {
    use super::*;

    /// `T: Debug` and a formatted assertion.
    #[forward]
    #[reverse]
    pub fn bounded_sum<T: Float + std::fmt::Debug + Sum>(x: &[T]) -> T {
        debug_assert!(!x.is_empty(), "empty input: {:?}", x);
        x.iter().map(|&v| v.sin() * v).sum()
    }

    slice_probe!(
        probe,
        bounded_sum,
        bounded_sum_jvp,
        bounded_sum_vjp,
        bounded_sum_grad,
        [0.0; 3],
        2.0
    );
}

// ===== variants that isolate a refusal's cause =====

// Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
// (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
mod rosenbrock_for_windows {
    use super::*;

    /// `for w in param.windows(2)`: the loop instead of the chain.
    #[forward]
    #[reverse]
    pub fn rosenbrock_for_windows<T: Float + FromPrimitive>(param: &[T]) -> T {
        let b = T::from_f64(100.0).unwrap();
        let mut s = T::zero();
        for w in param.windows(2) {
            s = s + b * (w[1] - w[0] * w[0]).powi(2) + (T::one() - w[0]).powi(2);
        }
        s
    }

    slice_probe!(
        probe,
        rosenbrock_for_windows,
        rosenbrock_for_windows_jvp,
        rosenbrock_for_windows_vjp,
        rosenbrock_for_windows_grad,
        [0.0; 4],
        1.5
    );
}

// Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
// (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
mod levy_turbofish {
    use super::*;

    /// `levy` with `.sum::<T>()` for `.sum()` inside the `+`.
    #[forward]
    #[reverse]
    pub fn levy_turbofish<T>(param: &[T]) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        let plen = param.len();
        assert!(plen >= 2);
        let n1 = T::from_f64(1.0).unwrap();
        let n2 = T::from_f64(2.0).unwrap();
        let n4 = T::from_f64(4.0).unwrap();
        let n10 = T::from_f64(10.0).unwrap();
        let pi = T::from_f64(PI).unwrap();
        let w = |x: T| n1 + (x - n1) / n4;
        (pi * w(param[0])).sin().powi(2)
            + param[1..(plen - 1)]
                .iter()
                .map(|x| w(*x))
                .map(|wi: T| (wi - n1).powi(2) * (n1 + n10 * (pi * wi + n1).sin().powi(2)))
                .sum::<T>()
            + (w(param[plen - 1]) - n1).powi(2)
                * (n1 + (n2 * pi * w(param[plen - 1])).sin().powi(2))
    }

    slice_probe!(
        probe,
        levy_turbofish,
        levy_turbofish_jvp,
        levy_turbofish_vjp,
        levy_turbofish_grad,
        [1.0; 4],
        3.0
    );
}

mod levy_index {
    use super::*;

    /// `levy` with an index loop for the sub-slice.
    #[forward]
    #[reverse]
    pub fn levy_index<T>(param: &[T]) -> T
    where
        T: Float + FromPrimitive,
    {
        let plen = param.len();
        let n1 = T::from_f64(1.0).unwrap();
        let n4 = T::from_f64(4.0).unwrap();
        let n10 = T::from_f64(10.0).unwrap();
        let pi = T::from_f64(PI).unwrap();
        let w = |x: T| n1 + (x - n1) / n4;
        let mut s = (pi * w(param[0])).sin().powi(2);
        for i in 1..(plen - 1) {
            let wi = w(param[i]);
            s = s + (wi - n1).powi(2) * (n1 + n10 * (pi * wi + n1).sin().powi(2));
        }
        let wd = w(param[plen - 1]);
        s + (wd - n1).powi(2) * (n1 + (T::from_f64(2.0).unwrap() * pi * wd).sin().powi(2))
    }

    slice_probe!(
        probe,
        levy_index,
        levy_index_jvp,
        levy_index_vjp,
        levy_index_grad,
        [1.0; 4],
        3.0
    );
}

mod rastrigin_turbofish {
    use super::*;

    /// A generic function calling another generic one (taken this time).
    #[forward]
    #[reverse]
    pub fn rastrigin_t<T>(param: &[T]) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        rastrigin_a_t(param, T::from_f64(10.0).unwrap())
    }

    #[forward]
    #[reverse]
    pub fn rastrigin_a_t<T>(param: &[T], a: T) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        a * T::from_usize(param.len()).unwrap()
            + param
                .iter()
                .map(|&x| x.powi(2) - a * (T::from_f64(2.0 * PI).unwrap() * x).cos())
                .sum::<T>()
    }

    slice_probe!(
        probe,
        rastrigin_t,
        rastrigin_t_jvp,
        rastrigin_t_vjp,
        rastrigin_t_grad,
        [0.0; 3],
        2.0
    );

    #[test]
    fn probe_a() {
        assert_eq!(rastrigin_a_t::__AD_ENGINE, "ir");
        scalar(
            "rastrigin_a_t",
            &[0.0, 0.0, 0.0, 10.0],
            2.0,
            |x| rastrigin_a_t(&x[..3], x[3]),
            |x, v| rastrigin_a_t_jvp(&x[..3], x[3], &v[..3], v[3]),
            |x, w| {
                let (y, (g, ga)) = rastrigin_a_t_vjp(&x[..3], x[3], w);
                (y, [g, vec![ga]].concat())
            },
            |x| {
                let (y, (g, ga)) = rastrigin_a_t_grad(&x[..3], x[3]);
                (y, [g, vec![ga]].concat())
            },
        );
    }
}

mod zakharov_for {
    use super::*;

    /// `T::from_usize(i + 1)` of an `enumerate` index in a `for` loop, `T::from(i)`.
    #[forward]
    #[reverse]
    pub fn zakharov_for<T: Float + FromPrimitive>(param: &[T]) -> T {
        let half = T::from_f64(0.5).unwrap();
        let mut sum1 = T::zero();
        let mut sum2 = T::zero();
        for (i, &x) in param.iter().enumerate() {
            sum1 = sum1 + x.powi(2);
            sum2 = sum2 + half * T::from_usize(i + 1).unwrap() * x;
        }
        sum1 + sum2.powi(2) + sum2.powi(4)
    }

    slice_probe!(
        probe,
        zakharov_for,
        zakharov_for_jvp,
        zakharov_for_vjp,
        zakharov_for_grad,
        [0.0; 4],
        1.0
    );
}

mod zakharov_range {
    use super::*;

    /// `T::from(i + 1)` of a range's index.
    #[forward]
    #[reverse]
    pub fn zakharov_range<T: Float>(param: &[T]) -> T {
        let half = T::from(0.5).unwrap();
        let mut sum1 = T::zero();
        let mut sum2 = T::zero();
        for i in 0..param.len() {
            sum1 = sum1 + param[i].powi(2);
            sum2 = sum2 + half * T::from(i + 1).unwrap() * param[i];
        }
        sum1 + sum2.powi(2) + sum2.powi(4)
    }

    slice_probe!(
        probe,
        zakharov_range,
        zakharov_range_jvp,
        zakharov_range_vjp,
        zakharov_range_grad,
        [0.0; 4],
        1.0
    );
}

mod fold_pair {
    use super::*;

    /// A `fold` with a pair accumulator, no conversion inside.
    #[forward]
    #[reverse]
    pub fn fold_pair<T: Float>(x: &[T]) -> T {
        let (s1, s2) = x
            .iter()
            .fold((T::zero(), T::zero()), |(a, b), &v| (a + v * v, b + v));
        s1 - s2 * s2
    }

    slice_probe!(
        probe,
        fold_pair,
        fold_pair_jvp,
        fold_pair_vjp,
        fold_pair_grad,
        [0.0; 4],
        1.0
    );
}

mod mixture_loop_max {
    use super::*;

    /// `mixture_nll` with the maximum by a loop.
    #[forward]
    #[reverse]
    pub fn mixture_loop_max<T>(means: &[T], log_sigmas: &[T], #[no_grad] data: &[T]) -> T
    where
        T: Float + FloatConst + FromPrimitive + Sum,
    {
        let k = T::from_usize(means.len()).unwrap();
        let half = T::from_f64(0.5).unwrap();
        let mut total = T::zero();
        for &x in data {
            let comps: Vec<T> = means
                .iter()
                .zip(log_sigmas.iter())
                .map(|(&mu, &ls)| {
                    let z = (x - mu) / ls.exp();
                    -half * z * z - ls - half * T::TAU().ln() - k.ln()
                })
                .collect();
            let mut m = T::neg_infinity();
            for &c in &comps {
                m = m.max(c);
            }
            total = total - (m + comps.iter().map(|&c| (c - m).exp()).sum::<T>().ln());
        }
        total
    }

    const DATA: [f64; 5] = [-1.2, 0.3, 0.9, 2.2, -0.4];

    #[test]
    fn probe() {
        assert_eq!(mixture_loop_max::__AD_ENGINE, "ir");
        scalar(
            "mixture_loop_max",
            &[-1.0, 1.0, 0.0, 0.0],
            0.5,
            |x| mixture_loop_max(&x[..2], &x[2..], &DATA),
            |x, v| mixture_loop_max_jvp(&x[..2], &x[2..], &DATA, &v[..2], &v[2..]),
            |x, w| {
                let (y, (gm, gs)) = mixture_loop_max_vjp(&x[..2], &x[2..], &DATA, w);
                (y, [gm, gs].concat())
            },
            |x| {
                let (y, (gm, gs)) = mixture_loop_max_grad(&x[..2], &x[2..], &DATA);
                (y, [gm, gs].concat())
            },
        );
    }
}

mod gravity_index {
    use super::*;

    /// `gravitational_energy` with `for j in (i + 1)..n`.
    #[forward]
    #[reverse]
    pub fn gravity_index<T: Float>(points: &[[T; 2]]) -> T {
        let mut energy = T::zero();
        for i in 0..points.len() {
            for j in (i + 1)..points.len() {
                let dx = points[i][0] - points[j][0];
                let dy = points[i][1] - points[j][1];
                energy = energy - T::one() / dx.hypot(dy);
            }
        }
        energy
    }

    fn rows(x: &[f64]) -> Vec<[f64; 2]> {
        x.chunks(2).map(|c| [c[0], c[1]]).collect()
    }

    #[test]
    fn probe() {
        assert_eq!(gravity_index::__AD_ENGINE, "ir");
        scalar(
            "gravity_index",
            &[0.0, 0.0, 1.0, 0.0, 0.0, 1.0],
            0.3,
            |x| gravity_index(&rows(x)),
            |x, v| gravity_index_jvp(&rows(x), &rows(v)),
            |x, w| {
                let (y, g) = gravity_index_vjp(&rows(x), w);
                (y, g.concat())
            },
            |x| {
                let (y, g) = gravity_index_grad(&rows(x));
                (y, g.concat())
            },
        );
    }
}

mod horner_index {
    use super::*;

    /// `horner` with `for i in (0..n).rev()`.
    #[forward]
    #[reverse]
    pub fn horner_index<T: Float>(coefficients: &[T], x: T) -> T {
        let mut acc = T::zero();
        for i in (0..coefficients.len()).rev() {
            acc = acc * x + coefficients[i];
        }
        acc
    }

    #[test]
    fn probe() {
        assert_eq!(horner_index::__AD_ENGINE, "ir");
        scalar(
            "horner_index",
            &[1.0, -2.0, 0.5, 3.0, 0.7],
            0.5,
            |x| horner_index(&x[..4], x[4]),
            |x, v| horner_index_jvp(&x[..4], x[4], &v[..4], v[4]),
            |x, w| {
                let (y, (g, gx)) = horner_index_vjp(&x[..4], x[4], w);
                (y, [g, vec![gx]].concat())
            },
            |x| {
                let (y, (g, gx)) = horner_index_grad(&x[..4], x[4]);
                (y, [g, vec![gx]].concat())
            },
        );
    }
}

mod f64_data_parameter {
    use super::*;

    /// A data parameter of type `f64` beside the `T`s (taken since 5760cc3), `.expect`.
    #[forward]
    #[reverse]
    pub fn pseudo_huber<T: Float + FromPrimitive>(r: &[T], delta: f64) -> T {
        let d = T::from_f64(delta).expect("delta is a float");
        let mut s = T::zero();
        for &v in r {
            s = s + d * d * ((T::one() + (v / d).powi(2)).sqrt() - T::one());
        }
        s
    }

    #[test]
    fn probe() {
        assert_eq!(pseudo_huber::__AD_ENGINE, "ir");
        scalar(
            "pseudo_huber",
            &[0.0; 3],
            2.0,
            |x| pseudo_huber(x, 0.7),
            |x, v| pseudo_huber_jvp(x, 0.7, v),
            |x, w| pseudo_huber_vjp(x, 0.7, w),
            |x| pseudo_huber_grad(x, 0.7),
        );
    }
}

mod tail_index {
    use super::*;

    /// `tail_weighted` with `x[x.len() - 1]` and a `for` over the reversed range.
    #[forward]
    #[reverse]
    pub fn tail_index<T: Float + FromPrimitive>(x: &[T]) -> T {
        if x.len() < 2 {
            return T::zero();
        }
        let last = x[x.len() - 1];
        let mut s = T::zero();
        let mut weight = T::one();
        for i in (0..x.len() - 1).rev() {
            weight = weight * T::from_f64(0.5).unwrap();
            s = s + weight * (x[i] - last).powi(2);
        }
        s
    }

    slice_probe!(
        probe,
        tail_index,
        tail_index_jvp,
        tail_index_vjp,
        tail_index_grad,
        [0.0; 4],
        2.0
    );
}

mod logistic_index {
    use super::*;

    /// `logistic_nll` with rows by index (`features[i * d + j]`).
    #[forward]
    #[reverse]
    pub fn logistic_index<T: Float>(
        w: &[T],
        #[no_grad] features: &[T],
        #[no_grad] labels: &[T],
    ) -> T {
        let d = w.len();
        let mut total = T::zero();
        for i in 0..labels.len() {
            let mut z = T::zero();
            for j in 0..d {
                z = z + features[i * d + j] * w[j];
            }
            let softplus = if z > T::zero() {
                z + (-z).exp().ln_1p()
            } else {
                z.exp().ln_1p()
            };
            total = total + softplus - labels[i] * z;
        }
        total
    }

    const FEATURES: [f64; 12] = [
        1.0, 0.5, -1.2, 1.0, -0.3, 0.8, 1.0, 2.0, 0.1, 1.0, -1.5, -0.7,
    ];
    const LABELS: [f64; 4] = [1.0, 0.0, 1.0, 0.0];

    #[test]
    fn probe() {
        assert_eq!(logistic_index::__AD_ENGINE, "ir");
        scalar(
            "logistic_index",
            &[0.0; 3],
            1.5,
            |x| logistic_index(x, &FEATURES, &LABELS),
            |x, v| logistic_index_jvp(x, &FEATURES, &LABELS, v),
            |x, w| {
                let (y, g) = logistic_index_vjp(x, &FEATURES, &LABELS, w);
                (y, g)
            },
            |x| {
                let (y, g) = logistic_index_grad(x, &FEATURES, &LABELS);
                (y, g)
            },
        );
    }
}

mod no_grad_reverse_first {
    use super::*;

    /// `#[no_grad]` on a generic function, stacked either way and alone: no adjoint from reverse
    /// mode, no tangent taken by forward mode, as over `f64`. (It was lost: the instance over
    /// `f64` was made from the function without its `#[no_grad]`s; fixed.)
    #[reverse]
    #[forward]
    pub fn scaled_squares<T: Float + Sum>(x: &[T], #[no_grad] scale: &[T]) -> T {
        x.iter().zip(scale).map(|(&v, &s)| s * v * v).sum()
    }

    #[reverse]
    pub fn scaled_squares_alone<T: Float + Sum>(x: &[T], #[no_grad] scale: T) -> T {
        x.iter().map(|&v| scale * v * v).sum()
    }

    #[reverse]
    pub fn scaled_squares_f64(x: &[f64], #[no_grad] scale: f64) -> f64 {
        x.iter().map(|&v| scale * v * v).sum()
    }

    #[forward]
    #[reverse]
    pub fn scaled_squares_f64_stacked(x: &[f64], #[no_grad] scale: f64) -> f64 {
        x.iter().map(|&v| scale * v * v).sum()
    }

    #[test]
    fn adjoints_of_no_grad_parameters() {
        let x = [0.5, -1.0, 2.0];
        let s = [1.0, 2.0, 3.0];
        // Forward mode takes no tangent for `scale`.
        let (_, t) = scaled_squares_jvp(&x, &s, &[1.0, 0.0, 0.0]);
        assert_eq!(t, 1.0);
        let (_, t) = scaled_squares_f64_stacked_jvp(&x, 2.0, &[1.0, 0.0, 0.0]);
        assert_eq!(t, 2.0);
        let (_, gx) = scaled_squares_f64_stacked_grad(&x, 2.0);
        assert_eq!(gx, vec![2.0, -4.0, 8.0]);
        // Reverse mode returns no adjoint for it, generic or not.
        let (_, gx) = scaled_squares_grad(&x, &s);
        assert_eq!(gx, vec![1.0, -4.0, 12.0]);
        let (_, gx) = scaled_squares_alone_grad(&x, 2.0);
        assert_eq!(gx, vec![2.0, -4.0, 8.0]);
        let (_, gx) = scaled_squares_f64_grad(&x, 2.0);
        assert_eq!(gx, vec![2.0, -4.0, 8.0]);
    }
}

// ===== kinks and ties =====

mod at_kinks_and_ties {
    use super::*;

    #[test]
    fn reverse_and_forward_agree_at_kinks() {
        let mut all = Vec::new();
        let mut report = |name: &str, found: Vec<String>| {
            all.extend(found.into_iter().map(|m| format!("{name}: {m}")));
        };
        let ties: [&[f64]; 3] = [
            &[1.0, 1.0, 0.0, 0.0],
            &[0.0, 0.0, 0.0, 0.0],
            &[2.0, -1.0, 2.0, 0.5],
        ];
        report(
            "logsumexp",
            kinks(
                &ties,
                |x| logsumexp_fold_path::logsumexp(x),
                |x, v| logsumexp_fold_path::logsumexp_jvp(x, v),
                |x, w| logsumexp_fold_path::logsumexp_vjp(x, w),
            ),
        );
        report(
            "log_sum_exp",
            kinks(
                &ties,
                |x| log_sum_exp_loops::log_sum_exp(x),
                |x, v| log_sum_exp_loops::log_sum_exp_jvp(x, v),
                |x, w| log_sum_exp_loops::log_sum_exp_vjp(x, w),
            ),
        );
        report(
            "softmax_mean",
            kinks(
                &ties,
                |x| softmax_mean::softmax_mean(x),
                |x, v| softmax_mean::softmax_mean_jvp(x, v),
                |x, w| softmax_mean::softmax_mean_vjp(x, w),
            ),
        );
        let clamp_points: [&[f64]; 3] = [
            &[1.0, -1.0, 0.0, 0.5],
            &[0.0, 0.0, 0.0, 0.0],
            &[-1.0, 1.0, 2.0, -2.0],
        ];
        report(
            "clipped_relu_sum",
            kinks(
                &clamp_points,
                |x| clamp_relu::clipped_relu_sum(x),
                |x, v| clamp_relu::clipped_relu_sum_jvp(x, v),
                |x, w| clamp_relu::clipped_relu_sum_vjp(x, w),
            ),
        );
        let max_points: [&[f64]; 3] = [&[0.0, 1.0, -1.0], &[0.5, 0.5, 0.3], &[0.0, 0.0, 0.0]];
        report(
            "max_norm_blend",
            kinks(
                &max_points,
                |x| ufcs_type::max_norm_blend(x),
                |x, v| ufcs_type::max_norm_blend_jvp(x, v),
                |x, w| ufcs_type::max_norm_blend_vjp(x, w),
            ),
        );
        let pairs: [&[f64]; 3] = [&[1.0, 1.0], &[1.0, -1.0], &[0.0, 0.0]];
        report(
            "schaffer_n4",
            kinks(
                &pairs,
                |x| schaffer_n4::schaffer_n4(&a2(x)),
                |x, v| schaffer_n4::schaffer_n4_jvp(&a2(x), &a2(v)),
                |x, w| {
                    let (y, g) = schaffer_n4::schaffer_n4_vjp(&a2(x), w);
                    (y, g.to_vec())
                },
            ),
        );
        let r = PI / 2f64.sqrt();
        let holder_points: [&[f64]; 2] = [&[0.0, 1.0], &[r, r]];
        report(
            "holder_table",
            kinks(
                &holder_points,
                |x| holder_table::holder_table(&a2(x)),
                |x, v| holder_table::holder_table_jvp(&a2(x), &a2(v)),
                |x, w| {
                    let (y, g) = holder_table::holder_table_vjp(&a2(x), w);
                    (y, g.to_vec())
                },
            ),
        );
        let tray_points: [&[f64]; 1] = [&[0.0, 1.0]];
        report(
            "cross_in_tray",
            kinks(
                &tray_points,
                |x| cross_in_tray::cross_in_tray(&a2(x)),
                |x, v| cross_in_tray::cross_in_tray_jvp(&a2(x), &a2(v)),
                |x, w| {
                    let (y, g) = cross_in_tray::cross_in_tray_vjp(&a2(x), w);
                    (y, g.to_vec())
                },
            ),
        );
        let zero: [&[f64]; 1] = [&[0.0, 0.0, 0.0]];
        report(
            "sphere",
            kinks(
                &zero,
                |x| sphere::sphere(x),
                |x, v| sphere::sphere_jvp(x, v),
                |x, w| sphere::sphere_vjp(x, w),
            ),
        );
        // `√s` at `s = 0`: forward mode's zero tangent stays zero (`SingularScale`), reverse
        // mode's adjoint `∞` times `2v = 0` is NaN. The same over `f64`
        // (`over_f64_twins::singular_sqrt_at_zero_over_f64_too`).
        let expected: Vec<String> = (0..3)
            .map(|k| format!("max_norm_blend: at [0.0, 0.0, 0.0], d/dx{k}: reverse NaN forward 0"))
            .collect();
        assert_eq!(all, expected, "{}", all.join("\n"));
    }
}

// ===== more idioms =====

mod real_bound {
    use super::*;
    use num_traits::real::Real;

    /// `T: Real` (num-traits' `real::Real`) instead of `Float`, `T::from(..)` through `NumCast`.
    #[forward]
    #[reverse]
    pub fn damped_sum<T: Real>(x: &[T]) -> T {
        let k = T::from(0.3).unwrap();
        x.iter()
            .fold(T::zero(), |s, &v| s + v.sin() * (-k * v * v).exp())
    }

    slice_probe!(
        probe,
        damped_sum,
        damped_sum_jvp,
        damped_sum_vjp,
        damped_sum_grad,
        [0.0; 3],
        2.0
    );
}

mod softmax_vec {
    use super::*;

    /// A `Vec<T>` result: softmax, by two collects.
    #[forward]
    #[reverse]
    pub fn softmax<T: Float + Sum>(x: &[T]) -> Vec<T> {
        let m = x.iter().cloned().fold(T::neg_infinity(), T::max);
        let e: Vec<T> = x.iter().map(|&v| (v - m).exp()).collect();
        let z: T = e.iter().cloned().sum();
        e.iter().map(|&v| v / z).collect()
    }

    #[test]
    fn probe() {
        assert_eq!(softmax::__AD_ENGINE, "ir");
        check(
            "softmax",
            &[0.0; 4],
            2.0,
            &|x| softmax(x),
            &|x, v| softmax_jvp(x, v),
            &|x, w| softmax_vjp(x, w.to_vec()),
        );
    }
}

mod inf_norm {
    use super::*;

    /// `fold(T::zero(), |m, &v| m.max(v.abs()))`, `T::max_value()` in a `min` fold.
    #[forward]
    #[reverse]
    pub fn range_and_norm<T: Float>(x: &[T]) -> T {
        let norm = x.iter().fold(T::zero(), |m, &v| m.max(v.abs()));
        let low = x.iter().fold(T::max_value(), |m, &v| m.min(v));
        norm + low * T::from(3).unwrap()
    }

    slice_probe!(
        probe,
        range_and_norm,
        range_and_norm_jvp,
        range_and_norm_vjp,
        range_and_norm_grad,
        [0.0; 4],
        2.0
    );
}

// Refused:
// error: #[forward] takes functions generic over one type, their float type `T`; the type
// parameter `F` is not supported yet (write the concrete type)
// #[reverse] does not take this generic function yet: reverse mode takes a function whose one
// generic parameter is its float type (`fn f<T: Float>(x: &[T]) -> T`, differentiated at `f64`),
// under #[reverse], not a method; differentiate this one with #[forward] (`trapezoid_jvp` runs it
// at the dual number type), or write a copy over `f64`
// (the reverse message sends to #[forward], which refuses it too).
#[cfg(any())]
mod closure_parameter {
    use super::*;

    /// A generic integrator taking the integrand: a second type parameter `F: Fn(T) -> T`.
    #[forward]
    #[reverse]
    pub fn trapezoid<T, F>(f: F, a: T, b: T, n: usize) -> T
    where
        T: Float + FromPrimitive,
        F: Fn(T) -> T,
    {
        let h = (b - a) / T::from_usize(n).unwrap();
        let mut s = (f(a) + f(b)) / T::from_f64(2.0).unwrap();
        for i in 1..n {
            s = s + f(a + T::from_usize(i).unwrap() * h);
        }
        s * h
    }

    #[test]
    fn probe() {
        let (y, (ga, gb)) = trapezoid_grad(|t: f64| t.sin(), 0.2, 1.3, 50);
        println!("{y} {ga} {gb}");
    }
}

mod kepler_newton {
    use super::*;

    /// Kepler's equation `E - e sin E = M` by Newton's method, stopping on `T::epsilon()`.
    #[forward]
    #[reverse]
    pub fn eccentric_anomaly<T: Float + FromPrimitive>(mean_anomaly: T, eccentricity: T) -> T {
        let mut e = mean_anomaly;
        for _ in 0..50 {
            let f = e - eccentricity * e.sin() - mean_anomaly;
            let step = f / (T::one() - eccentricity * e.cos());
            e = e - step;
            if step.abs() < T::epsilon() {
                break;
            }
        }
        e
    }

    #[test]
    fn probe() {
        assert_eq!(eccentric_anomaly::__AD_ENGINE, "ir");
        scalar(
            "eccentric_anomaly",
            &[1.0, 0.3],
            0.2,
            |x| eccentric_anomaly(x[0], x[1]),
            |x, v| eccentric_anomaly_jvp(x[0], x[1], v[0], v[1]),
            |x, w| {
                let (y, (a, b)) = eccentric_anomaly_vjp(x[0], x[1], w);
                (y, vec![a, b])
            },
            |x| {
                let (y, (a, b)) = eccentric_anomaly_grad(x[0], x[1]);
                (y, vec![a, b])
            },
        );
    }
}

mod integrate_until {
    use super::*;

    /// A `while` loop on `T` values: explicit Euler of `y' = -k y` until `t >= t_end`.
    #[forward]
    #[reverse]
    pub fn decay_until<T: Float + FromPrimitive>(y0: T, k: T, t_end: T) -> T {
        let dt = T::from_f64(0.01).unwrap();
        let mut t = T::zero();
        let mut y = y0;
        while t < t_end {
            y = y - dt * k * y;
            t = t + dt;
        }
        y
    }

    #[test]
    fn probe() {
        assert_eq!(decay_until::__AD_ENGINE, "ir");
        scalar(
            "decay_until",
            &[1.0, 0.8, 1.0047],
            0.002,
            |x| decay_until(x[0], x[1], x[2]),
            |x, v| decay_until_jvp(x[0], x[1], x[2], v[0], v[1], v[2]),
            |x, w| {
                let (y, (a, b, c)) = decay_until_vjp(x[0], x[1], x[2], w);
                (y, vec![a, b, c])
            },
            |x| {
                let (y, (a, b, c)) = decay_until_grad(x[0], x[1], x[2]);
                (y, vec![a, b, c])
            },
        );
    }
}

// ===== the same constructs over `f64`: whether an error is the generic path's =====

/// Over `f64`, a function the IR engine refuses goes to the previous engine; a generic one has no
/// such fallback. These twins tell the generic path's refusals from the engine's.
mod over_f64_twins {
    use super::*;

    pub fn dot_f64(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).fold(0.0, |s, (&x, &y)| s + x * y)
    }

    // Refused over `f64` too:
    // error[E0782]: expected a type, found a trait (at `Float::powi` and `Float::sqrt`)
    #[cfg(any())]
    #[reverse]
    pub fn ufcs_f64(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for &v in x {
            s = s + Float::powi(v, 2);
        }
        Float::sqrt(s)
    }

    // Refused over `f64` too:
    // error[E0034]: multiple applicable items in scope: multiple `__ad_lift` found
    #[cfg(any())]
    #[reverse]
    pub fn zero_f64(x: &[f64]) -> f64 {
        let mut s: f64 = Zero::zero();
        for &v in x {
            s = s + v * v;
        }
        s
    }

    // Refused over `f64` too:
    // error[E0283]: type annotations needed (twice, as in `cast_function`)
    #[cfg(any())]
    #[reverse]
    pub fn cast_f64(x: &[f64]) -> f64 {
        let lambda: f64 = num_traits::cast(0.1).unwrap();
        lambda * x.iter().map(|&v| v * v).sum::<f64>()
    }

    // Refused over `f64` too:
    // error[E0433]: cannot find module or crate `dot_f64` in this scope
    #[cfg(any())]
    #[reverse]
    pub fn helper_f64(a: &[f64], b: &[f64]) -> f64 {
        dot_f64(a, b) / dot_f64(a, a).sqrt()
    }

    // Refused over `f64` too:
    // error[E0433]: cannot find module or crate `sq` in this scope
    #[cfg(any())]
    #[reverse]
    pub fn nested_f64(r: &[f64]) -> f64 {
        fn sq(v: f64) -> f64 {
            v * v
        }
        r.iter().fold(0.0, |acc, &v| acc + sq(v))
    }

    #[forward]
    #[reverse]
    pub fn max_norm_blend_f64(x: &[f64]) -> f64 {
        let mut m = 0.0;
        let mut s = 0.0;
        for &v in x {
            m = f64::max(m, v.abs());
            s = s + v * v;
        }
        0.5 * m + f64::sqrt(s)
    }

    // Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
    // (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
    #[reverse]
    pub fn windows_f64(x: &[f64]) -> f64 {
        x.windows(2)
            .map(|w| 100.0 * (w[1] - w[0] * w[0]).powi(2) + (1.0 - w[0]).powi(2))
            .sum()
    }

    // Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
    // (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
    #[reverse]
    pub fn chunks_f64(x: &[f64]) -> f64 {
        x.chunks_exact(2).map(|c| c[0] * c[1] + c[1].sin()).sum()
    }

    // Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
    // (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
    #[reverse]
    pub fn rev_fold_f64(c: &[f64], x: f64) -> f64 {
        c.iter().rev().fold(0.0, |acc, &ci| acc * x + ci)
    }

    // Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
    // (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
    #[reverse]
    pub fn sub_slice_f64(x: &[f64]) -> f64 {
        x[1..].iter().map(|&v| v * v).sum::<f64>() + x[0]
    }

    // Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
    // (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
    #[reverse]
    pub fn max_by_f64(x: &[f64]) -> f64 {
        let m = *x.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
        m * m
    }

    // Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
    // (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
    #[reverse]
    pub fn last_f64(x: &[f64]) -> f64 {
        let last = *x.last().unwrap();
        x[0] * last
    }

    // Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
    // (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
    #[reverse]
    pub fn into_iter_f64(values: Vec<f64>, weights: Vec<f64>) -> f64 {
        values
            .into_iter()
            .zip(weights.into_iter())
            .map(|(v, w)| v * w)
            .sum::<f64>()
    }

    // Formerly refused; taken since the IR engine follows sub-slices, iterator adapters
    // (`windows`, `chunks`, `rev`, `iter_mut`, ...) and selections (`max_by`, `last`).
    #[reverse]
    pub fn iter_mut_f64(x: &[f64]) -> f64 {
        let mut p = x.to_vec();
        let mut total = 0.0;
        for v in p.iter_mut() {
            *v *= 0.5;
            total += *v * *v;
        }
        total
    }

    #[reverse]
    pub fn qualified_f64(r: &[f64]) -> f64 {
        r.iter().map(|&v| <f64 as FloatConst>::PI() * v * v).sum()
    }

    #[reverse]
    pub fn enumerate_fold_f64(x: &[f64]) -> f64 {
        let (a, b) = x.iter().enumerate().fold((0.0, 0.0), |(s1, s2), (i, &v)| {
            (s1 + v * v, s2 + 0.5 * (i + 1) as f64 * v)
        });
        a + b * b
    }

    #[reverse]
    pub fn sum_in_sum_f64(x: &[f64]) -> f64 {
        let a = 10.0;
        a * x.len() as f64 + x.iter().map(|&v| v * v - a * v.cos()).sum::<f64>()
    }

    #[test]
    fn engines() {
        let engines = [
            ("qualified_f64", qualified_f64::__AD_ENGINE),
            ("enumerate_fold_f64", enumerate_fold_f64::__AD_ENGINE),
            ("sum_in_sum_f64", sum_in_sum_f64::__AD_ENGINE),
        ];
        assert_eq!(
            engines,
            [
                ("qualified_f64", "ir"),
                ("enumerate_fold_f64", "ir"),
                ("sum_in_sum_f64", "ir"),
            ]
        );
    }

    #[test]
    fn singular_sqrt_at_zero_over_f64_too() {
        let zero = [0.0; 3];
        let (_, g) = max_norm_blend_f64_grad(&zero);
        let (_, t) = max_norm_blend_f64_jvp(&zero, &[1.0, 0.0, 0.0]);
        // The same as the generic `max_norm_blend` (`at_kinks_and_ties`): the engine's, not
        // the generic path's.
        assert!(g.iter().all(|d| d.is_nan()));
        assert_eq!(t, 0.0);
    }
}

// ===== forward over reverse: `_grad` of a generic function at dual numbers =====

mod forward_over_reverse {
    use super::*;
    use ad_runtime::Dual;

    /// The gradient at `x + eps v` in dual numbers: its values against `_grad` at `x`, bit for
    /// bit, its tangents (the Hessian times `v`) against central differences of `_grad`.
    fn hvp(
        name: &str,
        x: &[f64],
        v: &[f64],
        grad_dual: impl Fn(&[Dual<f64>]) -> Vec<Dual<f64>>,
        grad: impl Fn(&[f64]) -> Vec<f64>,
    ) -> Vec<String> {
        let duals: Vec<Dual<f64>> = x.iter().zip(v).map(|(&a, &b)| Dual::new(a, b)).collect();
        let at_duals = grad_dual(&duals);
        let plain = grad(x);
        let h = 1e-5;
        let moved = |s: f64| -> Vec<f64> {
            let p: Vec<f64> = x.iter().zip(v).map(|(a, b)| a + s * h * b).collect();
            grad(&p)
        };
        let (up, down) = (moved(1.0), moved(-1.0));
        let mut found = Vec::new();
        for k in 0..x.len() {
            if at_duals[k].value.to_bits() != plain[k].to_bits() {
                found.push(format!(
                    "{name}: gradient {k} at duals {} vs {}",
                    at_duals[k].value, plain[k]
                ));
            }
            let central = (up[k] - down[k]) / (2.0 * h);
            let t = at_duals[k].tangent;
            if !((t - central).abs() <= 1e-5 * (1.0 + t.abs())) {
                found.push(format!(
                    "{name}: (H v)[{k}] = {t}, central differences {central}"
                ));
            }
        }
        found
    }

    #[test]
    fn hessian_vector_products() {
        let x = [0.4, -0.3, 0.9];
        let v = [0.2, 1.0, -0.5];
        let mut all = Vec::new();
        all.extend(hvp(
            "sphere",
            &x,
            &v,
            |d| sphere::sphere::grad(d).1,
            |p| sphere::sphere::grad(p).1,
        ));
        all.extend(hvp(
            "ackley",
            &x,
            &v,
            |d| ackley::ackley::grad(d).1,
            |p| ackley::ackley::grad(p).1,
        ));
        all.extend(hvp(
            "styblinski_tang",
            &x,
            &v,
            |d| styblinski_tang::styblinski_tang::grad(d).1,
            |p| styblinski_tang::styblinski_tang::grad(p).1,
        ));
        all.extend(hvp(
            "log_sum_exp",
            &x,
            &v,
            |d| log_sum_exp_loops::log_sum_exp::grad(d).1,
            |p| log_sum_exp_loops::log_sum_exp::grad(p).1,
        ));
        all.extend(hvp(
            "logsumexp(fold T::max)",
            &x,
            &v,
            |d| logsumexp_fold_path::logsumexp::grad(d).1,
            |p| logsumexp_fold_path::logsumexp::grad(p).1,
        ));
        all.extend(hvp(
            "softmax_mean",
            &x,
            &v,
            |d| softmax_mean::softmax_mean::grad(d).1,
            |p| softmax_mean::softmax_mean::grad(p).1,
        ));
        all.extend(hvp(
            "sample_variance",
            &x,
            &v,
            |d| sample_variance::sample_variance::grad(d).1,
            |p| sample_variance::sample_variance::grad(p).1,
        ));
        all.extend(hvp(
            "rastrigin_t (calls rastrigin_a_t)",
            &x,
            &v,
            |d| rastrigin_turbofish::rastrigin_t::grad(d).1,
            |p| rastrigin_turbofish::rastrigin_t::grad(p).1,
        ));
        all.extend(hvp(
            "geometric_mean",
            &[1.2, 0.8, 1.5],
            &v,
            |d| geometric_mean::geometric_mean::grad(d).1,
            |p| geometric_mean::geometric_mean::grad(p).1,
        ));
        all.extend(hvp(
            "easom (T::PI())",
            &[3.0, 3.3],
            &[1.0, -0.4],
            |d| easom::easom::grad(&[d[0], d[1]]).1.to_vec(),
            |p| easom::easom::grad(&[p[0], p[1]]).1.to_vec(),
        ));
        all.extend(hvp(
            "goldstein_price",
            &[0.2, -0.7],
            &[1.0, -0.4],
            |d| {
                goldstein_price::goldstein_price::grad(&[d[0], d[1]])
                    .1
                    .to_vec()
            },
            |p| {
                goldstein_price::goldstein_price::grad(&[p[0], p[1]])
                    .1
                    .to_vec()
            },
        ));
        all.extend(hvp(
            "unary_misc",
            &[0.5, 0.7, 2.0, 2.0],
            &[1.0, -0.4, 0.3, 0.2],
            |d| unary_misc::unary_misc::grad(d).1,
            |p| unary_misc::unary_misc::grad(p).1,
        ));
        all.extend(hvp(
            "normal_log_likelihood",
            &[0.1, -0.2, 0.5, 0.3, 1.4],
            &[1.0, -0.4, 0.3, 0.2, -0.1],
            |d| {
                let (_, (g, gm, gs)) =
                    normal_log_likelihood::normal_log_likelihood::grad(&d[..3], d[3], d[4]);
                [g, vec![gm, gs]].concat()
            },
            |p| {
                let (_, (g, gm, gs)) =
                    normal_log_likelihood::normal_log_likelihood::grad(&p[..3], p[3], p[4]);
                [g, vec![gm, gs]].concat()
            },
        ));
        all.extend(hvp(
            "pseudo_huber (f64 data parameter)",
            &x,
            &v,
            |d| f64_data_parameter::pseudo_huber::grad(d, 0.7).1,
            |p| f64_data_parameter::pseudo_huber::grad(p, 0.7).1,
        ));
        assert!(all.is_empty(), "{}", all.join("\n"));
    }
}
