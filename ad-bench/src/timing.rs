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
pub fn seconds_per_call(budget: Budget, f: impl FnMut()) -> f64 {
    let [seconds] = interleaved(budget, [&mut repeated(f)]);
    seconds
}

/// `f` as a batch: called with `n`, it runs `f` `n` times (the loop is compiled with `f`, so
/// only the batch is called through a pointer).
pub fn repeated(mut f: impl FnMut()) -> impl FnMut(u64) {
    move |calls| {
        for _ in 0..calls {
            f();
        }
    }
}

/// Seconds per call of each function, each the minimum over batches of the mean time per
/// call in the batch, with the functions' batches taken in turn: round `k` times one batch of
/// each. A machine slower for a few seconds then slows a batch of each function rather than
/// all batches of one, so the ratios between them, which are what the tables report, hold.
pub fn interleaved<const N: usize>(
    budget: Budget,
    mut batches: [&mut dyn FnMut(u64); N],
) -> [f64; N] {
    let calls: [u64; N] = core::array::from_fn(|index| {
        let batch = &mut batches[index];
        batch(1);
        let mut calls = 1u64;
        loop {
            let start = Instant::now();
            batch(calls);
            if start.elapsed() >= budget.min_batch {
                break calls;
            }
            calls *= 2;
        }
    });
    let mut best = [f64::INFINITY; N];
    for _ in 0..budget.batches {
        for (index, batch) in batches.iter_mut().enumerate() {
            let start = Instant::now();
            batch(calls[index]);
            let seconds = start.elapsed().as_secs_f64() / calls[index] as f64;
            best[index] = best[index].min(seconds);
        }
    }
    best
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
