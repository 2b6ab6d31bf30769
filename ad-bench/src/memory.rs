//! Peak memory of one computation, measured as the maximum resident set size of a separate
//! process (this binary, re-run with `measure-peak-memory <what> <n>`), so that nothing else the benchmark
//! allocated is counted.

use std::hint::black_box;
use std::process::Command;

use ad_bench::adbench::ba_whole::BaProblem;
use ad_bench::adbench::{data_dir, gmm::Gmm, lstm::Lstm, manual};
use ad_bench::rosenbrock::{rosenbrock, rosenbrock_grad, rosenbrock_gradient_by_hand};

use crate::taylor;

/// How the benchmark re-runs itself to measure one computation.
pub const CHILD_COMMAND: &str = "measure-peak-memory";

/// Runs one computation in this process and prints its peak resident set size in KiB.
pub fn child(what: &str, iters: usize) {
    if what.contains(':') {
        return child_problem(what, iters);
    }
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

/// The ADBench problems, Rosenbrock and its peers: `problem:variant`.
fn child_problem(what: &str, n: usize) {
    let (problem, variant) = what.split_once(':').expect("problem:variant");
    let dir = data_dir();
    let value: f64 = match problem {
        "gmm-d2K5" | "gmm-d10K25" => {
            let file = if problem == "gmm-d2K5" {
                "gmm_d2_K5"
            } else {
                "gmm_d10_K25"
            };
            let gmm = Gmm::read(&dir.join(format!("gmm/1k/{file}.txt"))).expect("GMM data");
            match variant {
                "primal" => gmm.objective(),
                "ours" => gmm.gradient().1[0],
                "manual" => manual::gmm_gradient(&gmm).1[0],
                other => panic!("unknown variant {other}"),
            }
        }
        "lstm" => {
            let lstm = Lstm::read(&dir.join("lstm/lstm_l2_c1024.txt")).expect("LSTM data");
            match variant {
                "primal" => lstm.objective(),
                "ours" => lstm.gradient().1[0],
                "manual" => manual::lstm_gradient(&lstm).1[0],
                other => panic!("unknown variant {other}"),
            }
        }
        "ba" => {
            let problem =
                BaProblem::read(&dir.join("ba/ba1_n49_m7776_p31843.txt")).expect("BA data");
            // The Jacobian's own storage is part of every variant's peak, as the objective's
            // output is part of the primal's.
            match variant {
                "primal" => problem.objective().0[0],
                "ours" => problem.jacobian_reverse().blocks[0][0],
                "manual" => problem.jacobian_manual().blocks[0][0],
                other => panic!("unknown variant {other}"),
            }
        }
        "rosenbrock" => {
            let x = crate::peers_bench::point(n);
            match variant {
                "primal" => rosenbrock(&x),
                "ours" => rosenbrock_grad(&x).1[0],
                "manual" => rosenbrock_gradient_by_hand(&x).1[0],
                "ad_trait" => {
                    let function = crate::peers::AdTraitRosenbrock { n };
                    crate::peers::ad_trait_reverse_gradient(&function, &x).1[0]
                }
                "reverse" => crate::peers::reverse_rosenbrock_gradient(&x).1[0],
                other => panic!("unknown variant {other}"),
            }
        }
        other => panic!("unknown problem {other}"),
    };
    black_box(value);
    println!("{}", peak_resident_kib());
}

/// Peak memory of every reverse-mode gradient next to the hand-written adjoint's.
pub fn run_gradients(quick: bool) {
    println!("## Peak memory of reverse-mode gradients against the hand-written adjoint");
    println!();
    println!(
        "Maximum resident set size of a separate process (this binary re-run with \
         `{CHILD_COMMAND} problem:variant`) that reads the data and computes one gradient; the \
         increments are over the same process computing only the objective. Taylor and \
         Rosenbrock are the sizes given; BA is the whole ba1 Jacobian (its 7.3 MiB of blocks \
         are counted in both)."
    );
    println!();
    println!("| problem | objective | ours | Manual | ours − objective | Manual − objective | ours / Manual (increments) |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    let taylor_n = if quick { 100_000 } else { 1_000_000 };
    let rosenbrock_n = if quick { 10_000 } else { 1_000_000 };
    let mut problems: Vec<(String, String, usize)> = vec![
        (format!("Taylor, n = {taylor_n}"), String::new(), taylor_n),
        (
            format!("Rosenbrock, n = {rosenbrock_n}"),
            "rosenbrock".into(),
            rosenbrock_n,
        ),
        ("GMM d2 K5".into(), "gmm-d2K5".into(), 0),
    ];
    if !quick {
        problems.push(("GMM d10 K25".into(), "gmm-d10K25".into(), 0));
    }
    problems.push(("LSTM l2 c1024".into(), "lstm".into(), 0));
    problems.push(("BA ba1, whole Jacobian".into(), "ba".into(), 0));
    let mib = |kib: u64| kib as f64 / 1024.0;
    let mut ratios = Vec::new();
    for (label, key, n) in &problems {
        let measured = if key.is_empty() {
            (
                measure("primal", *n),
                measure("reverse", *n),
                measure("adjoint-by-hand", *n),
            )
        } else {
            (
                measure(&format!("{key}:primal"), *n),
                measure(&format!("{key}:ours"), *n),
                measure(&format!("{key}:manual"), *n),
            )
        };
        let (Some(primal), Some(ours), Some(by_hand)) = measured else {
            println!("| {label} | (not measured) | | | | | |");
            continue;
        };
        let (extra_ours, extra_hand) =
            (ours.saturating_sub(primal), by_hand.saturating_sub(primal));
        // Below half a MiB the hand-written adjoint's increment is page-granular noise, and a
        // ratio to it would mean nothing.
        let ratio = if extra_hand >= 512 {
            format!("{:.1}", extra_ours as f64 / extra_hand as f64)
        } else {
            format!("Manual adds < 0.5 MiB; ours {:.1} MiB", mib(extra_ours))
        };
        println!(
            "| {label} | {:.1} MiB | {:.1} MiB | {:.1} MiB | {:.1} MiB | {:.1} MiB | {ratio} |",
            mib(primal),
            mib(ours),
            mib(by_hand),
            mib(extra_ours),
            mib(extra_hand),
        );
        ratios.push(format!("{label} {ratio}"));
    }
    println!();
    println!("Peers, Rosenbrock n = {rosenbrock_n}, same measure:");
    println!();
    println!("| gradient | peak | − objective | / ours (increments) |");
    println!("| --- | ---: | ---: | ---: |");
    let primal = measure("rosenbrock:primal", rosenbrock_n).unwrap_or(0);
    let ours = measure("rosenbrock:ours", rosenbrock_n)
        .unwrap_or(0)
        .saturating_sub(primal);
    let mut peer_ratios = Vec::new();
    for (label, variant) in [
        ("ours (`_grad`)", "ours"),
        ("by hand", "manual"),
        ("ad_trait 0.3 (`adr`)", "ad_trait"),
        ("reverse 0.2 (tape)", "reverse"),
    ] {
        let Some(peak) = measure(&format!("rosenbrock:{variant}"), rosenbrock_n) else {
            continue;
        };
        let extra = peak.saturating_sub(primal);
        println!(
            "| {label} | {:.1} MiB | {:.1} MiB | {:.2} |",
            mib(peak),
            mib(extra),
            extra as f64 / ours.max(1) as f64
        );
        if variant == "ad_trait" || variant == "reverse" {
            peer_ratios.push(format!("{label} {:.1}", extra as f64 / ours.max(1) as f64));
        }
    }
    println!();
    crate::findings::note(format!(
        "Peak memory (extra resident memory of the gradient over the objective), ours / Manual: {}. \
         The peers' tapes against ours on Rosenbrock, theirs / ours: {}.",
        ratios.join("; "),
        peer_ratios.join("; ")
    ));
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
