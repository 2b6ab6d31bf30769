//! The Taylor series of seed `004`, section 6.1: approximate 1/x around 1 by
//! `a_0 = 1, a_n = -(x - 1) a_{n-1}`, summing `n` terms; five float operations per iteration.
//! Unchecked, under two checkpoint schedules, and with its tangent and adjoint written by hand
//! (the physical limits the generated code is measured against).
//!
//! ```
//! use ad_bench::taylor_series::{taylor_recip_adjoint_by_hand, taylor_recip_grad};
//!
//! let (value, gradient) = taylor_recip_grad(0.5, 1000);
//! let (value_by_hand, gradient_by_hand) = taylor_recip_adjoint_by_hand(0.5, 1000);
//! assert_eq!(value, value_by_hand);
//! assert!((gradient - gradient_by_hand).abs() <= 1e-12 * gradient.abs());
//! ```

use ad_runtime::{forward, reverse};

/// The program as in the thesis (`prev := !prev *. ...; acc := !prev +. !acc`).
#[forward]
#[reverse]
#[allow(clippy::assign_op_pattern)]
pub fn taylor_recip(x: f64, iters: usize) -> f64 {
    let mut prev = 1.0;
    let mut acc = 1.0;
    for _ in 0..iters {
        prev = prev * -(x - 1.0);
        acc = prev + acc;
    }
    acc
}

/// The same loop under Griewank's binomial schedule with 32 snapshots.
#[reverse]
#[allow(clippy::assign_op_pattern)]
pub fn taylor_recip_binomial(x: f64, iters: usize) -> f64 {
    let mut prev = 1.0;
    let mut acc = 1.0;
    #[checkpoint(binomial, snapshots = 32)]
    for _ in 0..iters {
        prev = prev * -(x - 1.0);
        acc = prev + acc;
    }
    acc
}

/// The same loop keeping its state every 1000 iterations.
#[reverse]
#[allow(clippy::assign_op_pattern)]
pub fn taylor_recip_every(x: f64, iters: usize) -> f64 {
    let mut prev = 1.0;
    let mut acc = 1.0;
    #[checkpoint(every = 1000)]
    for _ in 0..iters {
        prev = prev * -(x - 1.0);
        acc = prev + acc;
    }
    acc
}

/// The adjoint written by hand: the forward sweep keeps each `prev` in a `Vec`, the backward
/// sweep replays them. The physical limit of reverse mode.
pub fn taylor_recip_adjoint_by_hand(x: f64, iters: usize) -> (f64, f64) {
    let factor = -(x - 1.0);
    let mut prevs = Vec::with_capacity(iters);
    let (mut prev, mut acc) = (1.0, 1.0);
    for _ in 0..iters {
        prevs.push(prev);
        prev *= factor;
        acc += prev;
    }
    let (mut d_prev, d_acc) = (0.0, 1.0);
    let mut d_factor = 0.0;
    for &old in prevs.iter().rev() {
        d_prev += d_acc;
        d_factor += d_prev * old;
        d_prev *= factor;
    }
    (acc, -d_factor)
}

/// The tangent written by hand: the physical limit of forward mode.
pub fn taylor_recip_tangent_by_hand(x: f64, dx: f64, iters: usize) -> (f64, f64) {
    let (mut prev, mut d_prev) = (1.0, 0.0);
    let (mut acc, mut d_acc) = (1.0, 0.0);
    let factor = -(x - 1.0);
    let d_factor = -dx;
    for _ in 0..iters {
        let next = prev * factor;
        d_prev = d_prev * factor + prev * d_factor;
        prev = next;
        acc += prev;
        d_acc += d_prev;
    }
    (acc, d_acc)
}
