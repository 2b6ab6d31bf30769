//! Ours against the peers from crates.io on the same functions, timed in this process:
//! Rosenbrock's gradient (every mode each crate offers), its Hessian, and GMM's gradient.

use std::hint::black_box;

use ad_bench::adbench::{data_dir, gmm::Gmm, manual};
use ad_bench::rosenbrock::{
    our_rosenbrock_forward_gradient, our_rosenbrock_hessian, rosenbrock, rosenbrock_grad,
    rosenbrock_gradient_by_hand,
};

use crate::findings::note;
use crate::peers::*;
use crate::timing::{format_time, seconds_per_call, Budget};

/// The point every Rosenbrock figure is measured at (the one the peer tests check).
pub fn point(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| 0.5 + 0.7 * (i as f64 * 0.37).sin())
        .collect()
}

/// A row to time: crate, mode, the computation.
type Timed<'a> = (&'a str, &'a str, Box<dyn FnMut() + 'a>);

fn budget(quick: bool) -> Budget {
    if quick {
        Budget::QUICK
    } else {
        Budget::FULL
    }
}

pub fn run_rosenbrock(quick: bool) {
    let sizes: &[usize] = if quick { &[10, 100] } else { &[10, 100, 1000] };
    println!("## Rosenbrock, n-dimensional sum: ours against the peers (gradient)");
    println!();
    println!(
        "Time / primal is the gradient's time over the plain `f64` function's. \"ours / this\" \
         divides our time in the same mode (reverse for reverse, forward for forward) by this \
         row's; below 1 we are faster. \"our reverse / this\" compares with our best gradient."
    );
    println!();
    println!("| n | crate | mode | time | time / primal | ours (same mode) / this | our reverse / this |");
    println!("| ---: | --- | --- | ---: | ---: | ---: | ---: |");
    for &n in sizes {
        let x = point(n);
        let budget = budget(quick);
        let primal = seconds_per_call(budget, || {
            black_box(rosenbrock(black_box(&x)));
        });
        let ad_trait_function = AdTraitRosenbrock { n };
        let ours_reverse = seconds_per_call(budget, || {
            black_box(rosenbrock_grad(black_box(&x)));
        });
        let ours_forward = seconds_per_call(budget, || {
            black_box(our_rosenbrock_forward_gradient(black_box(&x)));
        });
        type Measured<'a> = (&'a str, &'a str, bool, Box<dyn FnMut() + 'a>);
        let rows: Vec<Measured> = vec![
            ("ours", "reverse (`_grad`)", true, Box::new(|| {})),
            ("ours", "forward (n JVPs)", false, Box::new(|| {})),
            (
                "by hand",
                "adjoint",
                true,
                Box::new(|| {
                    black_box(rosenbrock_gradient_by_hand(black_box(&x)));
                }),
            ),
            (
                "num-dual 0.13",
                "forward, `gradient` (`DualDVec64`, all n directions at once)",
                false,
                Box::new(|| {
                    black_box(num_dual_rosenbrock_gradient(black_box(&x)));
                }),
            ),
            (
                "num-dual 0.13",
                "forward, `Dual64` (n passes)",
                false,
                Box::new(|| {
                    black_box(num_dual_rosenbrock_dual64_gradient(black_box(&x)));
                }),
            ),
            (
                "ad_trait 0.3",
                "reverse (`ReverseAD`, `adr`)",
                true,
                Box::new(|| {
                    black_box(ad_trait_reverse_gradient(&ad_trait_function, black_box(&x)));
                }),
            ),
            (
                "ad_trait 0.3",
                "forward (`ForwardAD`, `adfn<1>`, n passes)",
                false,
                Box::new(|| {
                    black_box(ad_trait_forward_gradient(&ad_trait_function, black_box(&x)));
                }),
            ),
            (
                "reverse 0.2",
                "reverse (operation tape)",
                true,
                Box::new(|| {
                    black_box(reverse_rosenbrock_gradient(black_box(&x)));
                }),
            ),
        ];
        let mut reverse_peers = Vec::new();
        for (index, (krate, mode, is_reverse, mut f)) in rows.into_iter().enumerate() {
            let time = match index {
                0 => ours_reverse,
                1 => ours_forward,
                _ => seconds_per_call(budget, &mut f),
            };
            let ours_same = if is_reverse {
                ours_reverse
            } else {
                ours_forward
            };
            println!(
                "| {n} | {krate} | {mode} | {} | {:.1} | {:.2} | {:.2} |",
                format_time(time),
                time / primal,
                ours_same / time,
                ours_reverse / time,
            );
            if krate != "ours" {
                reverse_peers.push((krate, mode, ours_same / time));
            }
        }
        let summary: Vec<String> = reverse_peers
            .iter()
            .map(|(krate, mode, ratio)| {
                let short = mode.split(" (").next().unwrap_or(mode);
                format!("{krate} {short} {ratio:.2}")
            })
            .collect();
        note(format!(
            "Rosenbrock n = {n}: our reverse-mode gradient costs {:.1} primals, our forward mode \
             (n JVPs) {:.1}. Ours / theirs in the same mode: {}.",
            ours_reverse / primal,
            ours_forward / primal,
            summary.join("; "),
        ));
    }
    println!();

    let hessian_sizes: &[usize] = &[10, 100];
    println!("## Rosenbrock Hessian: ours (forward over reverse) against num-dual");
    println!();
    println!(
        "Ours: the generated `rosenbrock_hessian`, the vector forward mode over the \
         `#[reverse]` gradient (8 columns per pass). num-dual: `hessian` over `Dual2DVec64` (one pass, n + n^2 \
         derivative parts per number)."
    );
    println!();
    println!(
        "| n | ours | num-dual `hessian` | ours / primal | num-dual / primal | ours / num-dual |"
    );
    println!("| ---: | ---: | ---: | ---: | ---: | ---: |");
    for &n in hessian_sizes {
        let x = point(n);
        let budget = budget(quick);
        let primal = seconds_per_call(budget, || {
            black_box(rosenbrock(black_box(&x)));
        });
        let ours = seconds_per_call(budget, || {
            black_box(our_rosenbrock_hessian(black_box(&x)));
        });
        let theirs = seconds_per_call(budget, || {
            black_box(num_dual_rosenbrock_hessian(black_box(&x)));
        });
        println!(
            "| {n} | {} | {} | {:.0} | {:.0} | {:.2} |",
            format_time(ours),
            format_time(theirs),
            ours / primal,
            theirs / primal,
            ours / theirs,
        );
        note(format!(
            "Rosenbrock Hessian n = {n}: ours takes {:.2} times num-dual's time.",
            ours / theirs
        ));
    }
    println!();
}

pub fn run_gmm(quick: bool) {
    let instances: &[&str] = if quick {
        &["1k/gmm_d2_K5"]
    } else {
        &["1k/gmm_d2_K5", "1k/gmm_d10_K25"]
    };
    println!("## GMM gradient: ours against the peers and Manual");
    println!();
    println!(
        "Every peer differentiates the same objective written once, generic over its number type \
         (`peers::gmm_generic`). num-dual's forward mode carries all parameters in one vector \
         dual number (`DualSVec64<30>`), which fits d = 2, K = 5 (30 parameters); for d = 10, \
         K = 25 (1650 parameters) it would cost about 1650 objectives and is not run."
    );
    println!();
    println!("| instance | crate | mode | time | J/F | ours / this |");
    println!("| --- | --- | --- | ---: | ---: | ---: |");
    for name in instances {
        let path = data_dir().join(format!("gmm/{name}.txt"));
        let Ok(gmm) = Gmm::read(&path) else {
            println!(
                "| {name} | (data not found at {}) | | | | |",
                path.display()
            );
            continue;
        };
        let budget = budget(quick);
        let parameters = gmm_parameters(&gmm);
        let ad_trait_function = AdTraitGmm { gmm: &gmm };
        let objective = seconds_per_call(budget, || {
            black_box(black_box(&gmm).objective());
        });
        let ours = seconds_per_call(budget, || {
            black_box(black_box(&gmm).gradient());
        });
        let mut rows: Vec<Timed> = vec![
            (
                "Manual",
                "reverse, by hand",
                Box::new(|| {
                    black_box(manual::gmm_gradient(black_box(&gmm)));
                }),
            ),
            (
                "ad_trait 0.3",
                "reverse (`adr`)",
                Box::new(|| {
                    black_box(ad_trait_reverse_gradient(
                        &ad_trait_function,
                        black_box(&parameters),
                    ));
                }),
            ),
            (
                "reverse 0.2",
                "reverse (operation tape)",
                Box::new(|| {
                    black_box(reverse_gmm_gradient(black_box(&gmm)));
                }),
            ),
        ];
        if gmm.d == 2 && gmm.k == 5 {
            rows.push((
                "num-dual 0.13",
                "forward, `gradient` (`DualSVec64<30>`)",
                Box::new(|| {
                    black_box(num_dual_gmm_d2_k5_gradient(black_box(&gmm)));
                }),
            ));
        }
        println!(
            "| {name} | ours | reverse (`_grad`) | {} | {:.1} | 1.00 |",
            format_time(ours),
            ours / objective
        );
        let mut summary = Vec::new();
        for (krate, mode, mut f) in rows {
            let time = seconds_per_call(budget, &mut f);
            println!(
                "| {name} | {krate} | {mode} | {} | {:.1} | {:.2} |",
                format_time(time),
                time / objective,
                ours / time,
            );
            summary.push(format!("{krate} {:.2}", ours / time));
        }
        let ahead: Vec<&String> = summary
            .iter()
            .filter(|s| !s.starts_with("Manual"))
            .filter(|s| s.rsplit(' ').next().and_then(|r| r.parse::<f64>().ok()) > Some(1.0))
            .collect();
        let verdict = if ahead.is_empty() {
            "every peer is slower than ours here".to_string()
        } else {
            format!(
                "we are behind {} peer(s) here: {}",
                ahead.len(),
                ahead
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        note(format!(
            "GMM {name} against the peers, ours / theirs (above 1: they are faster): {}; {verdict}.",
            summary.join("; ")
        ));
    }
    println!();
}
