//! Peak memory of one computation, measured as the maximum resident set size of a separate
//! process (this binary, re-run with `measure-peak-memory <what> <n>`), so that nothing else the benchmark
//! allocated is counted.

use std::hint::black_box;
use std::process::Command;

use crate::taylor;

/// How the benchmark re-runs itself to measure one computation.
pub const CHILD_COMMAND: &str = "measure-peak-memory";

/// Runs one computation in this process and prints its peak resident set size in KiB.
pub fn child(what: &str, iters: usize) {
    let x = black_box(0.5);
    let result = match what {
        "primal" => taylor::taylor_recip(x, iters),
        "reverse" => taylor::taylor_recip_grad(x, iters).1,
        "binomial" => taylor::taylor_recip_binomial_grad(x, iters).1,
        "every-1000" => taylor::taylor_recip_every_grad(x, iters).1,
        "adjoint-by-hand" => taylor::taylor_recip_adjoint_by_hand(x, iters).1,
        other => panic!("unknown computation {other}"),
    };
    black_box(result);
    println!("{}", peak_resident_kib());
}

fn peak_resident_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Peak RSS in KiB of `what` at `iters`, from a separate process.
pub fn measure(what: &str, iters: usize) -> Option<u64> {
    let exe = std::env::current_exe().ok()?;
    let output = Command::new(exe)
        .args([CHILD_COMMAND, what, &iters.to_string()])
        .output()
        .ok()?;
    String::from_utf8(output.stdout).ok()?.trim().parse().ok()
}

pub fn run(quick: bool) {
    let sizes: &[usize] = if quick {
        &[100_000]
    } else {
        &[1_000_000, 10_000_000]
    };
    println!("## Peak memory (max RSS of a separate process), Taylor series");
    println!();
    println!("| n | primal | reverse | adjoint by hand | reverse − primal | by hand − primal | ratio of the increments |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for &n in sizes {
        let (Some(primal), Some(reverse), Some(by_hand)) = (
            measure("primal", n),
            measure("reverse", n),
            measure("adjoint-by-hand", n),
        ) else {
            println!("| {n} | (not measured: /proc/self/status unavailable) | | | | | |");
            continue;
        };
        let extra_reverse = reverse.saturating_sub(primal);
        let extra_hand = by_hand.saturating_sub(primal);
        println!(
            "| {n} | {:.1} MiB | {:.1} MiB | {:.1} MiB | {:.1} MiB | {:.1} MiB | {:.2} |",
            primal as f64 / 1024.0,
            reverse as f64 / 1024.0,
            by_hand as f64 / 1024.0,
            extra_reverse as f64 / 1024.0,
            extra_hand as f64 / 1024.0,
            extra_reverse as f64 / extra_hand.max(1) as f64,
        );
    }
    println!();
    println!("## Peak memory of checkpointed gradients (max RSS of a separate process)");
    println!();
    println!("| n | primal | unchecked reverse | binomial s = 32 | every 1000 | unchecked / binomial peak |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: |");
    for &n in sizes {
        let (Some(primal), Some(unchecked), Some(binomial), Some(every)) = (
            measure("primal", n),
            measure("reverse", n),
            measure("binomial", n),
            measure("every-1000", n),
        ) else {
            continue;
        };
        println!(
            "| {n} | {:.1} MiB | {:.1} MiB | {:.1} MiB | {:.1} MiB | {:.0} |",
            primal as f64 / 1024.0,
            unchecked as f64 / 1024.0,
            binomial as f64 / 1024.0,
            every as f64 / 1024.0,
            unchecked as f64 / binomial.max(1) as f64,
        );
    }
    println!();
}
