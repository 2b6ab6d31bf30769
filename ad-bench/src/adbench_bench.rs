//! ADBench GMM: the objective and its reverse-mode gradient, ADBench's ratio J/F (gradient
//! time over objective time, same process, batches of at least 0.5 s, minimum over batches).

use std::hint::black_box;

use ad_bench::adbench::{data_dir, gmm::Gmm, lstm::Lstm};

use crate::timing::{seconds_per_call, Budget};

fn table_header(problem: &str) {
    println!("## ADBench {problem}: J/F (reverse-mode gradient time / objective time)");
    println!();
    println!("| instance | objective | gradient | J/F |");
    println!("| --- | ---: | ---: | ---: |");
}

/// One row: the objective and the gradient timed in this process.
fn table_row(name: &str, budget: Budget, mut objective: impl FnMut(), mut gradient: impl FnMut()) {
    let objective = seconds_per_call(budget, &mut objective);
    let gradient = seconds_per_call(budget, &mut gradient);
    println!(
        "| {name} | {:.3} ms | {:.3} ms | {:.1} |",
        objective * 1e3,
        gradient * 1e3,
        gradient / objective
    );
}

pub fn run(quick: bool) {
    let budget = if quick { Budget::QUICK } else { Budget::FULL };
    let instances: &[&str] = if quick {
        &["1k/gmm_d2_K5"]
    } else {
        &["1k/gmm_d2_K5", "1k/gmm_d10_K25"]
    };
    table_header("GMM");
    for name in instances {
        let path = data_dir().join(format!("gmm/{name}.txt"));
        let Ok(gmm) = Gmm::read(&path) else {
            println!("| {name} | (data not found at {}) | | |", path.display());
            continue;
        };
        table_row(
            name,
            budget,
            || {
                black_box(black_box(&gmm).objective());
            },
            || {
                black_box(black_box(&gmm).gradient());
            },
        );
    }
    println!();
}

pub fn run_lstm(quick: bool) {
    let budget = if quick { Budget::QUICK } else { Budget::FULL };
    table_header("LSTM");
    let path = data_dir().join("lstm/lstm_l2_c1024.txt");
    let Ok(lstm) = Lstm::read(&path) else {
        println!("| l2 c1024 | (data not found at {}) | | |", path.display());
        return;
    };
    table_row(
        "l2 c1024",
        budget,
        || {
            black_box(black_box(&lstm).objective());
        },
        || {
            black_box(black_box(&lstm).gradient());
        },
    );
    println!();
}
