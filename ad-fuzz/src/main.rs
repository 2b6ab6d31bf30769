//! `ad-fuzz`: searches for wrong derivatives and macro failures by program.
//!
//! ```text
//! cargo run --release -p ad-fuzz -- programs  --count 10000 [--seed S] [--batch N]
//! cargo run --release -p ad-fuzz -- mutations --count 10000 [--seed S] [--batch N]
//! cargo run --release -p ad-fuzz -- ci          # small fixed-seed campaigns of both (.ci/run)
//! cargo run --release -p ad-fuzz -- show --seed S [--count N]   # print generated programs
//! ```
//!
//! `programs` writes random well-typed functions over the constructs the guide says both
//! modes support, compiles them in batches under `#[forward] #[reverse]`, and checks values,
//! forward against reverse (the dot-product identity) and both against central differences.
//! `mutations` mutates valid functions token by token and requires that the macros answer
//! with a compile error on the user's tokens, never a panic. Both exit non-zero when they find
//! a failure of a class that must not occur.

mod args;
mod checker;
mod harness;
#[cfg(test)]
mod harness_support;
mod mutate;
mod program;
mod reduce;
mod scratch;

use std::process::ExitCode;

fn main() -> ExitCode {
    let parsed = match args::Args::parse(std::env::args().skip(1)) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("ad-fuzz: {message}\n\n{}", args::USAGE);
            return ExitCode::from(2);
        }
    };
    let clean = match parsed.command {
        args::Command::Programs => checker::campaign(&parsed.programs()).is_clean(),
        args::Command::Mutations => mutate::campaign(&parsed.mutations()).is_clean(),
        args::Command::Ci => {
            let programs = checker::campaign(&args::ProgramOptions::ci()).is_clean();
            let mutations = mutate::campaign(&args::MutationOptions::ci()).is_clean();
            programs && mutations
        }
        args::Command::Show => {
            let options = parsed.programs();
            for function in program::generate_batch(options.seed, options.count) {
                println!("{}", function.source());
            }
            true
        }
    };
    if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
