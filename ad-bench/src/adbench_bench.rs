//! ADBench GMM, LSTM and BA: the objective, our gradient and the hand-written ("Manual")
//! gradient, all timed in this process by ADBench's method (batches of at least 0.5 s,
//! minimum over batches). J/F is gradient time over objective time.

use std::hint::black_box;

use ad_bench::adbench::ba::{reprojection_error_vjp, weight_error_grad, Ba};
use ad_bench::adbench::ba_whole::BaProblem;
use ad_bench::adbench::{data_dir, gmm::Gmm, lstm::Lstm, manual};

use crate::findings::note;
use crate::timing::{format_time, interleaved, repeated, Budget};

/// One row's measurements.
pub struct Row {
    pub objective: f64,
    pub ours: f64,
    pub manual: f64,
}

impl Row {
    pub fn ours_jf(&self) -> f64 {
        self.ours / self.objective
    }
    pub fn manual_jf(&self) -> f64 {
        self.manual / self.objective
    }
}

fn table_header(problem: &str) {
    println!("## ADBench {problem}: J/F, ours and hand-written (Manual)");
    println!();
    println!(
        "| instance | objective F | our gradient J | Manual J | J/F ours | J/F Manual | ours / Manual |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
}

fn measure_row(
    name: &str,
    budget: Budget,
    objective: impl FnMut(),
    ours: impl FnMut(),
    manual: impl FnMut(),
) -> Row {
    let [objective, ours, manual] = interleaved(
        budget,
        [
            &mut repeated(objective),
            &mut repeated(ours),
            &mut repeated(manual),
        ],
    );
    let row = Row {
        objective,
        ours,
        manual,
    };
    println!(
        "| {name} | {} | {} | {} | {:.1} | {:.1} | {:.2} |",
        format_time(row.objective),
        format_time(row.ours),
        format_time(row.manual),
        row.ours_jf(),
        row.manual_jf(),
        row.ours / row.manual,
    );
    row
}

fn budget(quick: bool) -> Budget {
    if quick {
        Budget::QUICK
    } else {
        Budget::FULL
    }
}

pub fn run(quick: bool) {
    let instances: &[&str] = if quick {
        &["1k/gmm_d2_K5"]
    } else {
        &["1k/gmm_d2_K5", "1k/gmm_d10_K25"]
    };
    table_header("GMM");
    let mut rows = Vec::new();
    for name in instances {
        let path = data_dir().join(format!("gmm/{name}.txt"));
        let Ok(gmm) = Gmm::read(&path) else {
            println!(
                "| {name} | (data not found at {}) | | | | | |",
                path.display()
            );
            continue;
        };
        // Ours as written, and ADBench's own formulation: a cheaper objective, the same gradient.
        type Objective = fn(&Gmm) -> f64;
        type Gradient = fn(&Gmm) -> (f64, Vec<f64>);
        let formulations: [(String, Objective, Gradient); 3] = [
            (name.to_string(), Gmm::objective, Gmm::gradient),
            (
                format!("{name}, exp once per component (ADBench's formulation)"),
                Gmm::objective_precomputed,
                Gmm::gradient_precomputed,
            ),
            (
                format!("{name}, as a Rust user writes it (`idiomatic.rs`)"),
                Gmm::objective_idiomatic,
                Gmm::gradient_idiomatic,
            ),
        ];
        for (label, objective, gradient) in formulations {
            let row = measure_row(
                &label,
                budget(quick),
                || {
                    black_box(objective(black_box(&gmm)));
                },
                || {
                    black_box(gradient(black_box(&gmm)));
                },
                || {
                    black_box(manual::gmm_gradient(black_box(&gmm)));
                },
            );
            rows.push((label, row));
        }
    }
    println!();
    for (name, row) in rows {
        let verdict = if row.ours_jf() > 2.0 * row.manual_jf() {
            "we are behind: our reverse mode is the slow part here"
        } else {
            "we are close to the hand-written code"
        };
        note(format!(
            "GMM {name}: our gradient costs {:.1} objectives (J/F), the hand-written adjoint {:.1}; \
             ours is {:.1} times slower than Manual, so {verdict}. The cheap-gradient bound is about 4-5.",
            row.ours_jf(),
            row.manual_jf(),
            row.ours / row.manual,
        ));
    }
}

pub fn run_lstm(quick: bool) {
    table_header("LSTM");
    let path = data_dir().join("lstm/lstm_l2_c1024.txt");
    let Ok(lstm) = Lstm::read(&path) else {
        println!(
            "| l2 c1024 | (data not found at {}) | | | | | |",
            path.display()
        );
        println!();
        return;
    };
    type Objective = fn(&Lstm) -> f64;
    type Gradient = fn(&Lstm) -> (f64, Vec<f64>);
    let formulations: [(&str, Objective, Gradient); 2] = [
        ("l2 c1024", Lstm::objective, Lstm::gradient),
        (
            "l2 c1024, as a Rust user writes it (`idiomatic.rs`)",
            Lstm::objective_idiomatic,
            Lstm::gradient_idiomatic,
        ),
    ];
    let mut rows = Vec::new();
    for (label, objective, gradient) in formulations {
        let row = measure_row(
            label,
            budget(quick),
            || {
                black_box(objective(black_box(&lstm)));
            },
            || {
                black_box(gradient(black_box(&lstm)));
            },
            || {
                black_box(manual::lstm_gradient(black_box(&lstm)));
            },
        );
        rows.push((label, row));
    }
    println!();
    for (label, row) in rows {
        note(format!(
            "LSTM {label}: J/F {:.1} for ours against {:.1} by hand ({:.1} times Manual's time).",
            row.ours_jf(),
            row.manual_jf(),
            row.ours / row.manual,
        ));
    }
}

pub fn run_ba(quick: bool) {
    let path = data_dir().join("ba/ba1_n49_m7776_p31843.txt");
    let (Ok(block), Ok(problem)) = (Ba::read(&path), BaProblem::read(&path)) else {
        println!("BA data not found at {}", path.display());
        return;
    };
    println!(
        "## ADBench BA (ba1, n = 49, m = 7776, p = 31843): J/F, ours and hand-written (Manual)"
    );
    println!();
    println!(
        "One block: F is both reprojection errors and the weight error of one observation; J is \
         its 2 x 15 block (camera 11, point 3, weight 1) and d(1 - w^2)/dw. Ours: one \
         `reprojection_error_vjp` per residual. Whole ba1: F is all 2p residuals and p weight \
         errors; J is every block of the sparse Jacobian."
    );
    println!();
    println!(
        "| what | objective F | our gradient J | Manual J | J/F ours | J/F Manual | ours / Manual |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    let (camera, point, weight, feature) =
        (&block.camera, &block.point, block.weight, &block.feature);
    let block_row = measure_row(
        "one block, reverse",
        budget(quick),
        || {
            black_box(manual::ba_residuals(
                black_box(camera),
                black_box(point),
                black_box(weight),
                black_box(feature),
            ));
            black_box(1.0 - black_box(weight) * weight);
        },
        || {
            for row in 0..2 {
                black_box(reprojection_error_vjp(
                    black_box(camera),
                    black_box(point),
                    black_box(weight),
                    black_box(feature),
                    row,
                    1.0,
                ));
            }
            black_box(weight_error_grad(black_box(weight)));
        },
        || {
            black_box(manual::ba_block(
                black_box(camera),
                black_box(point),
                black_box(weight),
                black_box(feature),
            ));
            black_box(manual::ba_weight_error(black_box(weight)));
        },
    );
    let budget = budget(quick);
    let mut residuals = vec![0.0; 2 * problem.p];
    let mut weight_errors = vec![0.0; problem.p];
    let mut jacobians = [(); 3].map(|_| problem.empty_jacobian());
    let [reverse_jacobian, forward_jacobian, manual_jacobian] = &mut jacobians;
    let [objective, reverse, forward, by_hand] = interleaved(
        budget,
        [
            &mut repeated(|| {
                problem.objective_into(black_box(&mut residuals), black_box(&mut weight_errors));
            }),
            &mut repeated(|| problem.jacobian_reverse_into(black_box(reverse_jacobian))),
            &mut repeated(|| problem.jacobian_forward_into(black_box(forward_jacobian))),
            &mut repeated(|| problem.jacobian_manual_into(black_box(manual_jacobian))),
        ],
    );
    for (what, ours) in [
        ("whole ba1, reverse", reverse),
        ("whole ba1, forward (`_jacfwd` per block)", forward),
    ] {
        println!(
            "| {what} | {} | {} | {} | {:.1} | {:.1} | {:.2} |",
            format_time(objective),
            format_time(ours),
            format_time(by_hand),
            ours / objective,
            by_hand / objective,
            ours / by_hand,
        );
    }
    println!();
    note(format!(
        "BA: one 2 x 15 block costs {:.1} objectives by our reverse mode (two VJPs) and {:.1} by \
         hand; over the whole ba1 instance J/F is {:.1} for our reverse mode, {:.1} for our \
         forward mode (`_jacfwd`, vector forward mode) and {:.1} by hand ({:.1} times Manual for reverse).",
        block_row.ours_jf(),
        block_row.manual_jf(),
        reverse / objective,
        forward / objective,
        by_hand / objective,
        reverse / by_hand,
    ));
}
