//! Benchmark programs. Every figure is a ratio of times measured in this one process.
//!
//! ```text
//! cargo run --release -p ad-bench -- taylor          # full run
//! cargo run --release -p ad-bench -- taylor --quick  # seconds; what CI runs
//! ```

mod taylor;
mod timing;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
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
}
