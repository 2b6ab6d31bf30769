//! The Taylor-series benchmark of seed `004`, section 6.1: approximate 1/x around 1 by
//! `a_0 = 1, a_n = -(x - 1) a_{n-1}`, summing `n` terms; five float operations per iteration, so
//! time must grow linearly in `n` for every mode, and the slope ratio is the mode's overhead.

use std::hint::black_box;

use ad_runtime::checkpoint::{binomial_recomputations, counts, reset_counts};

pub use ad_bench::taylor_series::*;

use crate::timing::{interleaved, linear_fit, repeated, seconds_per_call, Budget};

pub struct Row {
    pub iters: usize,
    pub primal: f64,
    pub forward: f64,
    pub tangent_by_hand: f64,
    pub reverse: f64,
    pub adjoint_by_hand: f64,
}

pub fn measure(iters: usize, budget: Budget) -> Row {
    let x = 0.5;
    let [primal, forward, tangent_by_hand, reverse, adjoint_by_hand] = interleaved(
        budget,
        [
            &mut repeated(|| {
                black_box(taylor_recip(black_box(x), black_box(iters)));
            }),
            &mut repeated(|| {
                black_box(taylor_recip_jvp(
                    black_box(x),
                    black_box(iters),
                    black_box(1.0),
                ));
            }),
            &mut repeated(|| {
                black_box(taylor_recip_tangent_by_hand(
                    black_box(x),
                    black_box(1.0),
                    black_box(iters),
                ));
            }),
            &mut repeated(|| {
                black_box(taylor_recip_grad(black_box(x), black_box(iters)));
            }),
            &mut repeated(|| {
                black_box(taylor_recip_adjoint_by_hand(black_box(x), black_box(iters)));
            }),
        ],
    );
    Row {
        iters,
        primal,
        forward,
        tangent_by_hand,
        reverse,
        adjoint_by_hand,
    }
}

pub fn check_correctness() {
    let (x, iters) = (0.5, 1000);
    // Called without naming the scalar type, in a crate that links nalgebra and ndarray
    // (through ad_trait): this compiling is the check that rustc's trait solver does not
    // overflow on the generated functions' bounds there.
    let (value, tangent) = taylor_recip_jvp(x, iters, 1.0);
    let (hand_value, hand_tangent) = taylor_recip_tangent_by_hand(x, 1.0, iters);
    assert_eq!(value, taylor_recip(x, iters));
    assert!((value - hand_value).abs() <= 1e-12 * value.abs());
    assert!((tangent - hand_tangent).abs() <= 1e-12 * tangent.abs());
    // The series converges to 1/x, whose derivative is -1/x^2.
    assert!((tangent + 1.0 / (x * x)).abs() < 1e-9);
    let (reverse_value, gradient) = taylor_recip_grad(x, iters);
    let (_, hand_gradient) = taylor_recip_adjoint_by_hand(x, iters);
    assert_eq!(reverse_value, value);
    assert!((gradient - tangent).abs() <= 1e-12 * tangent.abs());
    assert!((gradient - hand_gradient).abs() <= 1e-12 * tangent.abs());
}

pub fn run(quick: bool) -> Vec<Row> {
    check_correctness();
    let budget = if quick { Budget::QUICK } else { Budget::FULL };
    let sizes: &[usize] = if quick {
        &[1_000, 10_000, 100_000]
    } else {
        &[1_000, 10_000, 100_000, 1_000_000, 10_000_000]
    };
    println!("## Taylor series (seed 004, 6.1): 1/x around 1, x = 0.5");
    println!();
    println!(
        "| n | primal | forward | reverse | forward / primal | forward / tangent by hand | \
         reverse / primal | reverse / adjoint by hand |"
    );
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let rows: Vec<Row> = sizes.iter().map(|&n| measure(n, budget)).collect();
    for row in &rows {
        println!(
            "| {} | {:.3} ms | {:.3} ms | {:.3} ms | {:.2} | {:.2} | {:.2} | {:.2} |",
            row.iters,
            row.primal * 1e3,
            row.forward * 1e3,
            row.reverse * 1e3,
            row.forward / row.primal,
            row.forward / row.tangent_by_hand,
            row.reverse / row.primal,
            row.reverse / row.adjoint_by_hand,
        );
    }
    println!();
    let fit = |select: fn(&Row) -> f64| {
        let points: Vec<(f64, f64)> = rows.iter().map(|r| (r.iters as f64, select(r))).collect();
        linear_fit(&points)
    };
    let (primal_slope, primal_r2) = fit(|r| r.primal);
    let (forward_slope, forward_r2) = fit(|r| r.forward);
    let (hand_slope, hand_r2) = fit(|r| r.tangent_by_hand);
    let (reverse_slope, reverse_r2) = fit(|r| r.reverse);
    let (adjoint_slope, adjoint_r2) = fit(|r| r.adjoint_by_hand);
    println!("| mode | slope (ns / iteration) | R^2 | slope / primal slope |");
    println!("| --- | ---: | ---: | ---: |");
    for (name, slope, r2) in [
        ("primal", primal_slope, primal_r2),
        ("forward", forward_slope, forward_r2),
        ("tangent by hand", hand_slope, hand_r2),
        ("reverse", reverse_slope, reverse_r2),
        ("adjoint by hand", adjoint_slope, adjoint_r2),
    ] {
        println!(
            "| {name} | {:.3} | {:.5} | {:.2} |",
            slope * 1e9,
            r2,
            slope / primal_slope
        );
    }
    println!();
    crate::findings::note(format!(
        "Taylor series: time grows linearly in n in every mode (R^2 of the line: forward \
         {forward_r2:.4}, reverse {reverse_r2:.4}); per iteration forward mode costs {:.2} primal \
         iterations ({:.2} by hand), reverse mode {:.2} ({:.2} by hand), so our reverse mode \
         is {:.2} times the hand-written adjoint.",
        forward_slope / primal_slope,
        hand_slope / primal_slope,
        reverse_slope / primal_slope,
        adjoint_slope / primal_slope,
        reverse_slope / adjoint_slope,
    ));
    rows
}

/// Checkpointed gradients against the unchecked one: time, and the number of iterations the
/// binomial schedule runs again, against the formula. Returns (n, binomial time, every-1000
/// time) for the plot.
pub fn run_checkpoints(quick: bool) -> Vec<(usize, f64, f64)> {
    let mut times = Vec::new();
    let budget = if quick { Budget::QUICK } else { Budget::FULL };
    let sizes: &[usize] = if quick {
        &[1_000, 100_000]
    } else {
        &[1_000, 10_000, 100_000, 1_000_000, 10_000_000]
    };
    let x = 0.5;
    println!("## Checkpointed Taylor series: binomial (s = 32) and every 1000 iterations");
    println!();
    println!(
        "| n | binomial / unchecked time | every-1000 / unchecked time | re-advanced iterations | \
         formula r n - C(s+r, s+1) | r |"
    );
    println!("| ---: | ---: | ---: | ---: | ---: | ---: |");
    for &n in sizes {
        let unchecked = seconds_per_call(budget, || {
            black_box(taylor_recip_grad(black_box(x), black_box(n)));
        });
        let binomial = seconds_per_call(budget, || {
            black_box(taylor_recip_binomial_grad(black_box(x), black_box(n)));
        });
        let every = seconds_per_call(budget, || {
            black_box(taylor_recip_every_grad(black_box(x), black_box(n)));
        });
        reset_counts();
        let (_, gradient) = taylor_recip_binomial_grad(x, n);
        let advanced = counts().advanced;
        assert_eq!(
            gradient,
            taylor_recip_grad(x, n).1,
            "checkpointing changed the gradient"
        );
        let formula = binomial_recomputations(n, 32);
        assert_eq!(advanced, formula, "the schedule is not the optimal one");
        println!(
            "| {n} | {:.2} | {:.2} | {advanced} | {formula} | {} |",
            binomial / unchecked,
            every / unchecked,
            ad_runtime::checkpoint::repetitions(n, 32),
        );
        times.push((n, binomial, every));
    }
    println!();
    times
}

/// The log-log plot of time against n for every mode (seed `004`, Figure 6.5).
pub fn plot(rows: &[Row], checkpointed: &[(usize, f64, f64)]) -> String {
    use crate::plot::{log_log_svg, Series};
    let line = |label: &str, select: fn(&Row) -> f64| Series {
        label: label.to_string(),
        points: rows.iter().map(|r| (r.iters as f64, select(r))).collect(),
    };
    let series = vec![
        line("primal", |r| r.primal),
        line("forward", |r| r.forward),
        line("tangent by hand", |r| r.tangent_by_hand),
        line("reverse", |r| r.reverse),
        line("adjoint by hand", |r| r.adjoint_by_hand),
        Series {
            label: "binomial (s = 32)".to_string(),
            points: checkpointed.iter().map(|c| (c.0 as f64, c.1)).collect(),
        },
        Series {
            label: "every 1000".to_string(),
            points: checkpointed.iter().map(|c| (c.0 as f64, c.2)).collect(),
        },
    ];
    log_log_svg(
        "Taylor series of 1/x: time against iterations",
        "iterations n",
        "seconds per call",
        &series,
    )
}
