//! ADBench's timing method: run the function in batches of at least a minimum duration, and
//! keep the fastest batch's time per call. Ratios are taken between measurements of one run.

use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Every batch lasts at least this long.
    pub min_batch: Duration,
    /// How many batches; the minimum over them is reported.
    pub batches: usize,
}

impl Budget {
    pub const FULL: Budget = Budget {
        min_batch: Duration::from_millis(500),
        batches: 5,
    };
    pub const QUICK: Budget = Budget {
        min_batch: Duration::from_millis(10),
        batches: 2,
    };
}

/// Seconds per call of `f`: the minimum over batches of the mean time per call in the batch.
pub fn seconds_per_call(budget: Budget, mut f: impl FnMut()) -> f64 {
    f();
    let mut calls_per_batch = 1u64;
    loop {
        let start = Instant::now();
        for _ in 0..calls_per_batch {
            f();
        }
        if start.elapsed() >= budget.min_batch {
            break;
        }
        calls_per_batch *= 2;
    }
    (0..budget.batches)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..calls_per_batch {
                f();
            }
            start.elapsed().as_secs_f64() / calls_per_batch as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// Least-squares line `t = a + b n`; returns (slope b, R^2).
pub fn linear_fit(points: &[(f64, f64)]) -> (f64, f64) {
    let n = points.len() as f64;
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    let syy: f64 = points.iter().map(|p| (p.1 - mean_y).powi(2)).sum();
    let slope = sxy / sxx;
    let r2 = if syy == 0.0 {
        1.0
    } else {
        sxy * sxy / (sxx * syy)
    };
    (slope, r2)
}

/// A time per call for a table: milliseconds, or microseconds below 0.01 ms.
pub fn format_time(seconds: f64) -> String {
    if seconds < 1e-5 {
        format!("{:.3} µs", seconds * 1e6)
    } else {
        format!("{:.3} ms", seconds * 1e3)
    }
}
