//! `#[checkpoint]`: every placement and schedule against the unchecked gradient.

use ad_runtime::checkpoint::{binomial_recomputations, counts, reset_counts, Counts};
use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;

#[reverse]
#[allow(clippy::assign_op_pattern)]
fn taylor(x: f64, n: usize) -> f64 {
    let mut prev = 1.0;
    let mut acc = 1.0;
    for _ in 0..n {
        prev = prev * -(x - 1.0);
        acc = prev + acc;
    }
    acc
}

#[reverse]
#[allow(clippy::assign_op_pattern)]
fn taylor_every(x: f64, n: usize) -> f64 {
    let mut prev = 1.0;
    let mut acc = 1.0;
    #[checkpoint(every = 4)]
    for _ in 0..n {
        prev = prev * -(x - 1.0);
        acc = prev + acc;
    }
    acc
}

#[reverse]
#[allow(clippy::assign_op_pattern)]
fn taylor_binomial(x: f64, n: usize) -> f64 {
    let mut prev = 1.0;
    let mut acc = 1.0;
    #[checkpoint(binomial, snapshots = 3)]
    for _ in 0..n {
        prev = prev * -(x - 1.0);
        acc = prev + acc;
    }
    acc
}

#[forward]
#[reverse]
fn regions(x: f64, y: f64) -> f64 {
    #[checkpoint]
    let a = x.sin() * y;
    let b = #[checkpoint]
    {
        let t = a * x;
        t.exp() + y
    };
    let mut c = a + b;
    #[checkpoint]
    {
        c = c * c + x;
    }
    #[checkpoint]
    for i in 0..3 {
        c = c.sin() + i as f64 * y;
    }
    c
}

#[test]
fn regions_match_the_unchecked_gradient() {
    for (x, y) in [(0.3, 0.7), (-1.1, 0.4)] {
        let (value, (gx, gy)) = regions_grad(x, y);
        assert_eq!(value, regions(x, y));
        assert_relative_eq!(gx, regions_jvp(x, y, 1.0, 0.0).1, max_relative = 1e-12);
        assert_relative_eq!(gy, regions_jvp(x, y, 0.0, 1.0).1, max_relative = 1e-12);
    }
}

#[test]
fn schedules_match_the_unchecked_gradient() {
    for n in [0, 1, 3, 4, 5, 17, 1000] {
        let expected = taylor_grad(0.5, n);
        reset_counts();
        assert_eq!(taylor_every_grad(0.5, n), expected, "every, n = {n}");
        assert_eq!(
            counts(),
            Counts {
                advanced: 0,
                recorded: n as u64
            }
        );
        reset_counts();
        assert_eq!(taylor_binomial_grad(0.5, n), expected, "binomial, n = {n}");
        assert_eq!(
            counts(),
            Counts {
                advanced: binomial_recomputations(n, 3),
                recorded: n as u64
            }
        );
    }
}
