//! ADBench GMM: the objective and its reverse-mode gradient, ADBench's ratio J/F (gradient
//! time over objective time, same process, batches of at least 0.5 s, minimum over batches).

use std::hint::black_box;

use ad_bench::adbench::{data_dir, gmm::Gmm, lstm::Lstm};

use crate::timing::{seconds_per_call, Budget};

pub fn run(quick: bool) {
    let budget = if quick { Budget::QUICK } else { Budget::FULL };
    let instances: &[&str] = if quick {
        &["1k/gmm_d2_K5"]
    } else {
        &["1k/gmm_d2_K5", "1k/gmm_d10_K25"]
    };
    println!("## ADBench GMM: J/F (reverse-mode gradient time / objective time)");
    println!();
    println!("| instance | objective | gradient | J/F |");
    println!("| --- | ---: | ---: | ---: |");
    for name in instances {
        let path = data_dir().join(format!("gmm/{name}.txt"));
        let Ok(gmm) = Gmm::read(&path) else {
            println!("| {name} | (data not found at {}) | | |", path.display());
            continue;
        };
        let objective = seconds_per_call(budget, || {
            black_box(black_box(&gmm).objective());
        });
        let gradient = seconds_per_call(budget, || {
            black_box(black_box(&gmm).gradient());
        });
        println!(
            "| {name} | {:.3} ms | {:.3} ms | {:.1} |",
            objective * 1e3,
            gradient * 1e3,
            gradient / objective
        );
    }
    println!();
}

pub fn run_lstm(quick: bool) {
    let budget = if quick { Budget::QUICK } else { Budget::FULL };
    println!("## ADBench LSTM: J/F (reverse-mode gradient time / objective time)");
    println!();
    println!("| instance | objective | gradient | J/F |");
    println!("| --- | ---: | ---: | ---: |");
    let path = data_dir().join("lstm/lstm_l2_c1024.txt");
    let Ok(lstm) = Lstm::read(&path) else {
        println!("| l2 c1024 | (data not found at {}) | | |", path.display());
        return;
    };
    let objective = seconds_per_call(budget, || {
        black_box(black_box(&lstm).objective());
    });
    let gradient = seconds_per_call(budget, || {
        black_box(black_box(&lstm).gradient());
    });
    println!(
        "| l2 c1024 | {:.3} ms | {:.3} ms | {:.1} |",
        objective * 1e3,
        gradient * 1e3,
        gradient / objective
    );
    println!();
}
