//! Benchmark programs. Every figure is a ratio of times measured in this one process.
//!
//! ```text
//! cargo run --release -p ad-bench -- taylor          # full run
//! cargo run --release -p ad-bench -- taylor --quick  # seconds; what CI runs
//! cargo run --release -p ad-bench -- checkpoint      # checkpointed gradients: time, recomputations
//! cargo run --release -p ad-bench -- memory          # peak memory, one process per figure
//! cargo run --release -p ad-bench -- gmm             # ADBench GMM, J/F
//! cargo run --release -p ad-bench -- lstm            # ADBench LSTM, J/F
//! cargo run --release -p ad-bench -- all             # everything
//! ```

mod adbench_bench;
mod memory;
mod taylor;
mod timing;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some(memory::CHILD_COMMAND) {
        let what = args.get(1).map(String::as_str).unwrap_or("primal");
        let iters = args
            .get(2)
            .and_then(|n| n.parse().ok())
            .unwrap_or(1_000_000);
        return memory::child(what, iters);
    }
    let quick = args.iter().any(|a| a == "--quick");
    let benches: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let all = benches.is_empty() || benches.contains(&"all");
    println!(
        "Machine: {} cores; build: release. Times are the minimum over batches of at least {} ms.",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        if quick { 10 } else { 500 }
    );
    println!();
    if all || benches.contains(&"taylor") {
        taylor::run(quick);
    }
    if all || benches.contains(&"checkpoint") {
        taylor::run_checkpoints(quick);
    }
    if all || benches.contains(&"gmm") {
        adbench_bench::run(quick);
    }
    if all || benches.contains(&"lstm") {
        adbench_bench::run_lstm(quick);
    }
    if all || benches.contains(&"memory") {
        memory::run(quick);
    }
}
