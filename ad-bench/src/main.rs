//! Benchmark programs. Every figure is a ratio of times measured in this one process.
//!
//! ```text
//! cargo run --release -p ad-bench -- taylor          # full run
//! cargo run --release -p ad-bench -- taylor --quick  # seconds; what CI runs
//! cargo run --release -p ad-bench -- checkpoint      # checkpointed gradients: time, recomputations
//! cargo run --release -p ad-bench -- memory          # peak memory, one process per figure
//! cargo run --release -p ad-bench -- gmm             # ADBench GMM, J/F
//! cargo run --release -p ad-bench -- lstm            # ADBench LSTM, J/F
//! cargo run --release -p ad-bench -- ba              # ADBench BA: one block and the whole ba1
//! cargo run --release -p ad-bench -- nalgebra        # nalgebra in reverse mode / hand-written adjoint
//! cargo run --release -p ad-bench -- peers           # num-dual, ad_trait, reverse: Rosenbrock, GMM
//! cargo run --release -p ad-bench -- jax             # JAX's jit-compiled GMM and LSTM gradients (pip install "jax[cpu]")
//! cargo run --release -p ad-bench -- compile         # compile time: plain crate / annotated crate
//! cargo run --release -p ad-bench -- all             # everything
//! cargo run --release -p ad-bench -- all --write BENCHMARKS.md   # regenerate BENCHMARKS.md
//! ```

mod adbench_bench;
mod compile_time;
mod findings;
mod jax;
mod linalg_bench;
mod memory;
mod peers;
mod peers_bench;
mod plot;
mod taylor;
mod timing;

/// Where the plots go, relative to the Markdown report that links them.
const PLOT_DIR: &str = "bench-plots";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(position) = args.iter().position(|a| a == "--write") {
        let Some(path) = args.get(position + 1) else {
            eprintln!("--write takes the path of the Markdown file to write");
            std::process::exit(2);
        };
        let mut rest = args.clone();
        rest.drain(position..position + 2);
        return write_report(path, &rest);
    }
    if args.first().map(String::as_str) == Some(memory::CHILD_COMMAND) {
        let what = args.get(1).map(String::as_str).unwrap_or("primal");
        let iters = args
            .get(2)
            .and_then(|n| n.parse().ok())
            .unwrap_or(1_000_000);
        return memory::child(what, iters);
    }
    let quick = args.iter().any(|a| a == "--quick");
    // `--plots DIR`: write the plots there (only `--write` passes it, so a quick run never
    // overwrites the committed plots).
    let plots = args
        .iter()
        .position(|a| a == "--plots")
        .and_then(|i| args.get(i + 1))
        .map(std::path::PathBuf::from);
    let benches: Vec<&str> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || args[i - 1] != "--plots"))
        .map(|(_, a)| a.as_str())
        .collect();
    let all = benches.is_empty() || benches.contains(&"all");
    println!(
        "Machine: {} cores; build: release. Times are the minimum over batches of at least {} ms.",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        if quick { 10 } else { 500 }
    );
    println!();
    let taylor_rows = (all || benches.contains(&"taylor")).then(|| taylor::run(quick));
    let checkpointed =
        (all || benches.contains(&"checkpoint")).then(|| taylor::run_checkpoints(quick));
    if let (Some(rows), Some(checkpointed), Some(dir)) = (&taylor_rows, &checkpointed, &plots) {
        std::fs::create_dir_all(dir).expect("the plot directory is created");
        let path = dir.join("taylor.svg");
        std::fs::write(&path, taylor::plot(rows, checkpointed)).expect("the plot is written");
        println!("## Plot: Taylor series, time against n (seed 004, Figure 6.5)");
        println!();
        println!("![time against n for every mode, log-log]({PLOT_DIR}/taylor.svg)");
        println!();
        println!(
            "Every mode is a straight line of slope 1 on the log-log plot: time linear in n. \
             The vertical distance between two lines is the log of their time ratio."
        );
        println!();
    }
    if all || benches.contains(&"gmm") {
        adbench_bench::run(quick);
    }
    if all || benches.contains(&"lstm") {
        adbench_bench::run_lstm(quick);
    }
    if all || benches.contains(&"ba") {
        adbench_bench::run_ba(quick);
    }
    if all || benches.contains(&"nalgebra") {
        linalg_bench::run(quick);
    }
    if all || benches.contains(&"jax") {
        jax::run(quick);
    }
    if all || benches.contains(&"peers") {
        peers_bench::run_rosenbrock(quick);
        peers_bench::run_gmm(quick);
    }
    if all || benches.contains(&"memory") {
        memory::run(quick);
        memory::run_gradients(quick);
    }
    if all || benches.contains(&"compile") {
        compile_time::run(quick);
    }
    findings::print();
}

/// Runs the benchmarks in a child process and writes their tables, with the machine and the
/// method, to a Markdown file: `cargo run --release -p ad-bench -- all --write BENCHMARKS.md`.
fn write_report(path: &str, args: &[String]) {
    let exe = std::env::current_exe().expect("the benchmark's own path");
    let plot_dir = std::path::Path::new(path)
        .parent()
        .unwrap_or(std::path::Path::new("."))
        .join(PLOT_DIR);
    let output = std::process::Command::new(exe)
        .args(args)
        .arg("--plots")
        .arg(&plot_dir)
        .output()
        .expect("the benchmark runs");
    if !output.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&output.stderr));
        std::process::exit(1);
    }
    let tables = String::from_utf8_lossy(&output.stdout);
    let rustc = std::process::Command::new("rustc")
        .arg("--version")
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .unwrap_or_else(|_| "rustc (unknown version)".to_string());
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines().find_map(|line| {
                line.strip_prefix("model name")
                    .map(|rest| rest.trim_start_matches([' ', '\t', ':']).to_string())
            })
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    let report = format!(
        "# Benchmarks\n\n\
         Generated by `cargo run --release -p ad-bench -- {args} --write BENCHMARKS.md`; every \
         figure below comes from that one run. Do not edit by hand: run the command again.\n\n\
         Machine: {cpu}, {cores} cores; {rustc}; release build.\n\n\
         Method: every time is the minimum over batches of at least 0.5 s of the mean time per \
         call in the batch (ADBench's method); ratios are taken between times measured in this \
         one process, and the functions a table compares take their batches in turn (one batch \
         of each, five rounds), so that a slower spell of the machine slows one batch of each \
         rather than every batch of one. Peak memory is the maximum resident set size (`VmHWM`) of a separate \
         process (this binary re-run) that runs one computation, compared with the same process \
         computing only the objective; no counting allocator is used.\n\n\
         Correctness: every timed derivative is tested (`cargo test -p ad-bench`) before it is \
         timed: the hand-written (Manual) derivatives and ours against ADBench's reference \
         outputs under ADBench's measure |x - y| / max(1, |x| + |y|) <= 1e-8 \
         (`ad-bench/tests/manual.rs`), every peer's gradient and Hessian against ours to 1e-10 \
         (`ad-bench/src/peers.rs`).\n\n\
         Peers (crates.io): num-dual 0.13 (needs Rust 1.87; the benchmark crate declares it, the \
         library crates keep 1.82), ad_trait 0.3 (only with its default `bevy` feature: without \
         it, 0.3.0 and 0.3.1 do not compile, an unconditional `#[reflect(ignore)]`), \
         reverse 0.2. The peers live in the benchmark binary, not in the `ad_bench` library the \
         workspace tests use, so that the tests do not build ad_trait's dependencies; the binary \
         calls our generated functions without naming the scalar type, next to ad_trait's \
         nalgebra and ndarray (the regression check for rustc's trait-solver overflow, E0275, \
         that this once caused).\n\n{tables}",
        args = args.join(" "),
        cores = std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    std::fs::write(path, report).expect("the report file is written");
    println!("wrote {path}");
}
