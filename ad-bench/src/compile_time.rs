//! What the macros cost at compile time: a crate of ten GMM-objective-size functions (and the
//! `logsumexp` they call), built once plain and once under `#[forward] #[reverse]`, each
//! build timed on its own crate only (the dependencies are built first), and the size of the
//! expanded source.
//!
//! The two crates are written under `target/compile-time/`, with the workspace's
//! `Cargo.lock`, so that they build offline against the same dependency versions.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::findings;

/// How many objective functions each crate holds (besides `logsumexp`).
const FUNCTIONS: usize = 10;

/// One build, as the user runs it.
struct Build {
    name: &'static str,
    args: &'static [&'static str],
}

const BUILDS: [Build; 3] = [
    Build {
        name: "`cargo check`",
        args: &["check", "--lib"],
    },
    Build {
        name: "`cargo build` (debug)",
        args: &["build", "--lib"],
    },
    Build {
        name: "`cargo build --release`",
        args: &["build", "--lib", "--release"],
    },
];

pub fn run(quick: bool) {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("ad-bench sits in the workspace")
        .to_path_buf();
    let root = workspace.join("target").join("compile-time");
    // A quick run only shows that the crates still build: two functions, `cargo check`.
    let (functions, builds, repeats) = if quick {
        (2, &BUILDS[..1], 1)
    } else {
        (FUNCTIONS, &BUILDS[..], 3)
    };
    let plain = write_crate(&workspace, &root, "plain", functions, false);
    let annotated = write_crate(&workspace, &root, "annotated", functions, true);
    let target = root.join("target");

    println!("## Compile time: {functions} GMM objectives and `logsumexp`, plain and annotated");
    println!();
    println!(
        "Each crate holds {} functions the size of ADBench's GMM objective \
         (`ad-bench/src/compile_time.rs` writes it). Every time is the crate's own build, its \
         dependencies (`ad-runtime`, `ad-macros`) built before; the minimum of {repeats} \
         builds after touching `src/lib.rs`.",
        functions + 1
    );
    println!();
    println!("| build | plain | `#[forward] #[reverse]` | annotated / plain |");
    println!("|---|---|---|---|");
    let mut ratios = Vec::new();
    for build in builds {
        // The first build of each crate compiles the dependencies; it is not timed.
        for krate in [&plain, &annotated] {
            cargo(krate, &target, build.args);
        }
        let mut plain_seconds = f64::INFINITY;
        let mut annotated_seconds = f64::INFINITY;
        for _ in 0..repeats {
            plain_seconds = plain_seconds.min(timed_rebuild(&plain, &target, build.args));
            annotated_seconds =
                annotated_seconds.min(timed_rebuild(&annotated, &target, build.args));
        }
        let ratio = annotated_seconds / plain_seconds;
        ratios.push((build.name, ratio));
        println!(
            "| {} | {plain_seconds:.2} s | {annotated_seconds:.2} s | {ratio:.1} |",
            build.name
        );
    }
    let plain_size = expanded_size(&plain, &target);
    let annotated_size = expanded_size(&annotated, &target);
    if let (Some(plain_size), Some(annotated_size)) = (plain_size, annotated_size) {
        let ratio = annotated_size as f64 / plain_size as f64;
        println!(
            "| expanded source (`-Zunpretty=expanded`) | {} | {} | {ratio:.1} |",
            kib(plain_size),
            kib(annotated_size)
        );
        ratios.push(("expanded source", ratio));
    } else {
        println!("| expanded source | not measured: rustc did not print it | | |");
    }
    println!();
    println!(
        "The expanded size is that of rustc's `-Zunpretty=expanded` output, which stable rustc \
         prints under `RUSTC_BOOTSTRAP=1`; only this measurement uses it, the library does not."
    );
    println!();
    if !quick {
        let reading: Vec<String> = ratios
            .iter()
            .map(|(name, ratio)| format!("{name} {ratio:.1}x"))
            .collect();
        findings::note(format!(
            "Compile time of the annotated crate over the plain one: {}.",
            reading.join(", ")
        ));
    }
}

/// Writes the crate (`Cargo.toml`, the workspace's `Cargo.lock`, `src/lib.rs`) and returns its
/// directory.
fn write_crate(
    workspace: &Path,
    root: &Path,
    name: &str,
    functions: usize,
    annotated: bool,
) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("src")).expect("the crate directory is created");
    let runtime = workspace.join("ad-runtime");
    let manifest = format!(
        "[package]\nname = \"compile-time-{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         publish = false\n\n[dependencies]\nad-runtime = {{ path = {runtime:?} }}\n\n\
         # Its own workspace: not a member of the library's.\n[workspace]\n"
    );
    write_if_changed(&dir.join("Cargo.toml"), &manifest);
    let lock = std::fs::read_to_string(workspace.join("Cargo.lock")).expect("Cargo.lock");
    write_if_changed(&dir.join("Cargo.lock"), &lock);
    write_if_changed(&dir.join("src/lib.rs"), &source(functions, annotated));
    dir
}

fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).expect("a file of the compile-time crate is written");
    }
}

/// The crate's source: `logsumexp` and `functions` copies of the GMM objective as
/// `ad-bench/src/adbench/gmm.rs` writes it, each under the attributes when `annotated`. The
/// text is this file's own, not read from `gmm.rs`: the crate measured stays the same from
/// run to run while the benchmark's objectives change.
fn source(functions: usize, annotated: bool) -> String {
    let attributes = if annotated {
        "#[ad_runtime::forward]\n#[ad_runtime::reverse]\n"
    } else {
        ""
    };
    let no_grad = if annotated { "#[no_grad] " } else { "" };
    let mut text = String::from(
        "#![allow(clippy::all, unused)]\n\n// Written by ad-bench's compile-time benchmark.\n\n",
    );
    text.push_str(attributes);
    text.push_str(LOGSUMEXP);
    for index in 0..functions {
        text.push('\n');
        text.push_str(attributes);
        text.push_str(
            &OBJECTIVE
                .replace("NAME", &format!("gmm_objective_{index}"))
                .replace("NO_GRAD ", no_grad),
        );
    }
    text
}

const LOGSUMEXP: &str = "pub fn logsumexp(v: &[f64]) -> f64 {
    let mut largest = v[0];
    for e in v {
        if *e > largest {
            largest = *e;
        }
    }
    let mut sum = 0.0;
    for e in v {
        sum += (e - largest).exp();
    }
    largest + sum.ln()
}
";

const OBJECTIVE: &str = "pub fn NAME(
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    NO_GRAD x: &[f64],
    d: usize,
    k: usize,
    n: usize,
    NO_GRAD gamma: f64,
    m: usize,
) -> f64 {
    let icf_size = d * (d + 1) / 2;
    let mut sum_qs = vec![0.0; k];
    for ik in 0..k {
        let mut s = 0.0;
        for j in 0..d {
            s += icf[ik * icf_size + j];
        }
        sum_qs[ik] = s;
    }
    let mut main_term = vec![0.0; k];
    let mut centered = vec![0.0; d];
    let mut transformed = vec![0.0; d];
    let mut slse = 0.0;
    for ix in 0..n {
        for ik in 0..k {
            for j in 0..d {
                centered[j] = x[ix * d + j] - means[ik * d + j];
            }
            for j in 0..d {
                transformed[j] = icf[ik * icf_size + j].exp() * centered[j];
            }
            let mut l = ik * icf_size + d;
            for i in 0..d {
                for j in (i + 1)..d {
                    transformed[j] += icf[l] * centered[i];
                    l += 1;
                }
            }
            let mut sqnorm = 0.0;
            for j in 0..d {
                sqnorm += transformed[j] * transformed[j];
            }
            main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm;
        }
        slse += logsumexp(&main_term);
    }
    let lse_alphas = logsumexp(alphas);
    let mut prior = 0.0;
    for ik in 0..k {
        let mut frobenius = 0.0;
        for j in 0..d {
            let q = icf[ik * icf_size + j].exp();
            frobenius += q * q;
        }
        for j in d..icf_size {
            let v = icf[ik * icf_size + j];
            frobenius += v * v;
        }
        prior += 0.5 * gamma * gamma * frobenius - m as f64 * sum_qs[ik];
    }
    slse - n as f64 * lse_alphas + prior
}
";

fn cargo(krate: &Path, target: &Path, args: &[&str]) -> std::process::Output {
    let output = Command::new(env!("CARGO"))
        .args(args)
        .arg("--quiet")
        .current_dir(krate)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    if !output.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&output.stderr));
        panic!("the compile-time crate {} does not build", krate.display());
    }
    output
}

/// Seconds for `cargo <args>` after the crate's source is touched.
fn timed_rebuild(krate: &Path, target: &Path, args: &[&str]) -> f64 {
    let lib = krate.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).expect("lib.rs");
    // Rewriting the file gives it a new modification time, so cargo rebuilds the crate.
    std::fs::write(&lib, text).expect("lib.rs is rewritten");
    let start = Instant::now();
    cargo(krate, target, args);
    start.elapsed().as_secs_f64()
}

/// Bytes of the crate's macro-expanded source, or `None` when rustc does not print it.
fn expanded_size(krate: &Path, target: &Path) -> Option<usize> {
    let output = Command::new(env!("CARGO"))
        .args(["rustc", "--lib", "--quiet", "--profile", "check", "--"])
        .arg("-Zunpretty=expanded")
        .current_dir(krate)
        .env("CARGO_TARGET_DIR", target)
        .env("RUSTC_BOOTSTRAP", "1")
        .output()
        .ok()?;
    output.status.success().then_some(output.stdout.len())
}

fn kib(bytes: usize) -> String {
    format!("{:.0} KiB", bytes as f64 / 1024.0)
}
