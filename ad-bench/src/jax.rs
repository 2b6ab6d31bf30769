//! JAX side by side: `ad-bench/jax/adbench_jax.py` times JAX's jit-compiled GMM and LSTM
//! objectives and gradients on one CPU thread; this process then times ours on the same data,
//! in the same run, and the table gives ours / JAX.
//!
//! The script runs under `$AD_BENCH_PYTHON` (default `python3`). Without JAX the table says
//! how to install it and the rest of the benchmark goes on.

use std::hint::black_box;
use std::process::Command;

use ad_bench::adbench::{data_dir, gmm::Gmm, lstm::Lstm, TOLERANCE};

use crate::findings::note;
use crate::timing::{format_time, interleaved, repeated, Budget};

/// JAX's times for one problem, as the script prints them.
struct JaxTimes {
    objective: f64,
    gradient: f64,
    max_error: f64,
}

pub fn run(quick: bool) {
    println!("## JAX side by side: GMM d10 K25 and LSTM l2 c1024, one CPU thread each");
    println!();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("jax/adbench_jax.py");
    let python = std::env::var("AD_BENCH_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let mut command = Command::new(&python);
    command.arg(&script).arg(data_dir());
    if quick {
        command.arg("--quick");
    }
    let output = match command.output() {
        Ok(output) => output,
        Err(error) => {
            println!("Not measured: `{python}` does not run ({error}).");
            println!();
            return;
        }
    };
    let printed = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        // The script's own message when JAX is missing, else the error it stopped at.
        let stderr = String::from_utf8_lossy(&output.stderr);
        let reason = [printed.lines().last(), stderr.lines().last()]
            .into_iter()
            .flatten()
            .map(str::trim)
            .find(|line| !line.is_empty())
            .unwrap_or("the script failed");
        println!(
            "Not measured: {reason}. `AD_BENCH_PYTHON` names the Python to run it with (default \
             `python3`)."
        );
        println!();
        return;
    }
    let version = printed
        .lines()
        .find_map(|line| line.strip_prefix("# "))
        .unwrap_or("jax")
        .to_string();
    let times = |problem: &str| -> Option<JaxTimes> {
        let line = printed.lines().find(|line| line.starts_with(problem))?;
        let field = |name: &str| -> Option<f64> {
            line.split_whitespace()
                .find_map(|word| word.strip_prefix(name)?.strip_prefix('='))?
                .parse()
                .ok()
        };
        Some(JaxTimes {
            objective: field("objective_s")?,
            gradient: field("gradient_s")?,
            max_error: field("max_error")?,
        })
    };
    println!(
        "JAX ({version}): `ad-bench/jax/adbench_jax.py`, the objectives as a JAX user writes them \
         (arrays and broadcasting, `lax.scan` over the sequence), float64, `jax.jit` of the \
         objective and of `jax.grad` with the data as arguments, compiled before timing, \
         Python's dispatch included; the process pinned to one core, Eigen's thread pool off. \
         Timed by the same method as every table here (the minimum over five batches of the \
         mean time per call), before ours. Its gradients are checked against ADBench's \
         reference outputs before they are timed (largest difference below). Ours: the \
         functions of the GMM and LSTM tables above, timed in this process after the script \
         ran."
    );
    println!();
    println!(
        "| problem | JAX objective | JAX gradient | JAX's largest difference from the reference | our objective | our gradient | our gradient / JAX's |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    let budget = if quick { Budget::QUICK } else { Budget::FULL };
    let dir = data_dir();
    let mut ratios = Vec::new();
    if let (Some(jax), Ok(gmm)) = (
        times("gmm-d10K25"),
        Gmm::read(&dir.join("gmm/1k/gmm_d10_K25.txt")),
    ) {
        let formulations: [Formulation<Gmm>; 3] = [
            ("GMM d10 K25", Gmm::objective, Gmm::gradient),
            (
                "GMM d10 K25, ADBench's formulation",
                Gmm::objective_precomputed,
                Gmm::gradient_precomputed,
            ),
            (
                "GMM d10 K25, as a Rust user writes it",
                Gmm::objective_idiomatic,
                Gmm::gradient_idiomatic,
            ),
        ];
        ratios.extend(rows(budget, &gmm, &jax, &formulations));
    }
    if let (Some(jax), Ok(lstm)) = (
        times("lstm-l2c1024"),
        Lstm::read(&dir.join("lstm/lstm_l2_c1024.txt")),
    ) {
        let formulations: [Formulation<Lstm>; 2] = [
            ("LSTM l2 c1024", Lstm::objective, Lstm::gradient),
            (
                "LSTM l2 c1024, as a Rust user writes it",
                Lstm::objective_idiomatic,
                Lstm::gradient_idiomatic,
            ),
        ];
        ratios.extend(rows(budget, &lstm, &jax, &formulations));
    }
    println!();
    if !quick && !ratios.is_empty() {
        let reading: Vec<String> = ratios
            .iter()
            .map(|(label, ratio)| format!("{label} {ratio:.2}"))
            .collect();
        note(format!(
            "Our gradient over JAX's jit-compiled gradient, one thread each: {} (below 1: ours \
             is faster).",
            reading.join(", ")
        ));
    }
}

/// One of our formulations of a problem: its label, objective and gradient.
type Formulation<P> = (&'static str, fn(&P) -> f64, fn(&P) -> (f64, Vec<f64>));

/// Times each formulation's objective and gradient on `problem` and prints its row; the
/// labels with our gradient's time over JAX's.
fn rows<P>(
    budget: Budget,
    problem: &P,
    jax: &JaxTimes,
    formulations: &[Formulation<P>],
) -> Vec<(&'static str, f64)> {
    let mut ratios = Vec::new();
    for (label, objective, gradient) in formulations {
        let [ours_objective, ours_gradient] = interleaved(
            budget,
            [
                &mut repeated(|| {
                    black_box(objective(black_box(problem)));
                }),
                &mut repeated(|| {
                    black_box(gradient(black_box(problem)));
                }),
            ],
        );
        row(label, jax, ours_objective, ours_gradient);
        ratios.push((*label, ours_gradient / jax.gradient));
    }
    ratios
}

fn row(label: &str, jax: &JaxTimes, ours_objective: f64, ours_gradient: f64) {
    let agreement = if jax.max_error <= TOLERANCE {
        format!("{:.1e}", jax.max_error)
    } else {
        format!(
            "{:.1e} (above ADBench's {TOLERANCE:.0e}: not comparable)",
            jax.max_error
        )
    };
    println!(
        "| {label} | {} | {} | {agreement} | {} | {} | {:.2} |",
        format_time(jax.objective),
        format_time(jax.gradient),
        format_time(ours_objective),
        format_time(ours_gradient),
        ours_gradient / jax.gradient,
    );
}
