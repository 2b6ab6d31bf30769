//! The campaign of random programs: batches compiled together, failures attributed to their
//! functions (by the lines of their diagnostics, else by bisection), run, classified,
//! reduced and written down.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::args::ProgramOptions;
use crate::harness::{self, Role, UnderTest};
use crate::program::{self, GeneratedFunction};
use crate::scratch::{Build, Compiled, Scratch, Source};

/// What happened to one function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Every check held.
    Passed,
    /// The derivative disagreed with the other mode or with central differences.
    WrongDerivative,
    /// `_jvp`, `_vjp` or `_grad` returned a value other than the primal's.
    WrongValue,
    /// A compile error in the code the macros generated.
    InsideGenerated,
    /// A macro panicked.
    MacroPanic,
    /// A macro refused a construct the guide says it supports.
    Refusal,
    /// The derivative code panicked where the primal did not.
    RuntimePanic,
    /// The run did not finish in time.
    Timeout,
    /// The generator wrote an invalid program (its plain twin fails to compile or panics).
    GeneratorError,
    /// Not checked: a function it calls failed.
    CalleeFailed,
    /// Not checked: the primal was not finite at every point.
    NothingToCompare,
}

impl Class {
    pub const ALL: [Class; 11] = [
        Class::Passed,
        Class::WrongDerivative,
        Class::WrongValue,
        Class::InsideGenerated,
        Class::MacroPanic,
        Class::Refusal,
        Class::RuntimePanic,
        Class::Timeout,
        Class::GeneratorError,
        Class::CalleeFailed,
        Class::NothingToCompare,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Class::Passed => "passed",
            Class::WrongDerivative => "wrong derivative",
            Class::WrongValue => "wrong value",
            Class::InsideGenerated => "compile error inside generated code",
            Class::MacroPanic => "macro panic",
            Class::Refusal => "refusal of a supported construct",
            Class::RuntimePanic => "run-time panic in derivative code",
            Class::Timeout => "timeout",
            Class::GeneratorError => "generator error (invalid program)",
            Class::CalleeFailed => "not run: a callee failed",
            Class::NothingToCompare => "not compared: primal never finite",
        }
    }

    /// A class that must never occur: each is a bug of the macros (or of the generator). A
    /// refusal is reported (the guide claims more than the engine takes, or the generator
    /// does) but is a clear message at the construct, not a wrong result.
    pub fn is_bug(self) -> bool {
        !matches!(
            self,
            Class::Passed | Class::CalleeFailed | Class::NothingToCompare | Class::Refusal
        )
    }

    fn slug(self) -> String {
        self.label()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|word| !word.is_empty())
            .take(3)
            .collect::<Vec<_>>()
            .join("-")
    }
}

/// One function's outcome.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub class: Class,
    pub detail: String,
    pub points: usize,
    pub skipped: usize,
    pub against_differences: usize,
    /// Whether the IR engine differentiated the function in reverse mode.
    pub ir_engine: Option<bool>,
}

impl Outcome {
    fn new(class: Class, detail: impl Into<String>) -> Outcome {
        Outcome {
            class,
            detail: detail.into(),
            points: 0,
            skipped: 0,
            against_differences: 0,
            ir_engine: None,
        }
    }
}

/// A bug found: the function, what went wrong, and a reduced reproducer.
pub struct Finding {
    pub name: String,
    pub class: Class,
    pub detail: String,
    pub original: String,
    pub reduced: Option<String>,
    pub file: Option<PathBuf>,
}

#[derive(Default)]
pub struct Summary {
    pub programs: usize,
    pub counts: BTreeMap<Class, usize>,
    pub features: BTreeMap<&'static str, usize>,
    pub points: usize,
    pub skipped_points: usize,
    pub against_differences: usize,
    pub findings: Vec<Finding>,
    pub elapsed: Duration,
    /// Functions run whose reverse mode the IR engine made.
    pub ir_engine: usize,
}

impl Summary {
    pub fn is_clean(&self) -> bool {
        self.counts
            .iter()
            .all(|(class, count)| !class.is_bug() || *count == 0)
    }

    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "\nrandom programs: {} in {:.0} s",
            self.programs,
            self.elapsed.as_secs_f64()
        );
        let _ = writeln!(out, "| outcome | functions |\n| --- | ---: |");
        for class in Class::ALL {
            let count = self.counts.get(&class).copied().unwrap_or(0);
            let _ = writeln!(out, "| {} | {count} |", class.label());
        }
        let _ = writeln!(
            out,
            "\npoints checked: {} ({} skipped: primal or derivative not finite), {} also against \
             central differences",
            self.points, self.skipped_points, self.against_differences
        );
        if self.ir_engine > 0 {
            let _ = writeln!(
                out,
                "reverse mode by the IR engine: {} functions",
                self.ir_engine
            );
        }
        let _ = writeln!(out, "\n| construct | functions using it |\n| --- | ---: |");
        let mut features: Vec<_> = self.features.iter().collect();
        features.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (feature, count) in features {
            let _ = writeln!(out, "| {feature} | {count} |");
        }
        for finding in &self.findings {
            let _ = writeln!(
                out,
                "\n{} in {}: {}",
                finding.class.label(),
                finding.name,
                finding.detail
            );
            if let Some(file) = &finding.file {
                let _ = writeln!(out, "  reproducer: {}", file.display());
            }
            let _ = writeln!(
                out,
                "{}",
                finding.reduced.as_deref().unwrap_or(&finding.original)
            );
        }
        out
    }
}

/// Findings of one class reduced per campaign.
const REDUCED_PER_CLASS: usize = 3;

pub fn campaign(options: &ProgramOptions) -> Summary {
    let started = Instant::now();
    let scratch = match Scratch::new(&options.scratch) {
        Ok(scratch) => scratch,
        Err(error) => {
            eprintln!("ad-fuzz: cannot make the scratch crate: {error}");
            let mut summary = Summary::default();
            summary.counts.insert(Class::GeneratorError, 1);
            return summary;
        }
    };
    let findings_dir = scratch.dir().join("findings");
    let _ = std::fs::remove_dir_all(&findings_dir);
    let progress = ProgressBar::new(options.count as u64);
    progress.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} programs  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let mut summary = Summary::default();
    let mut reduced_per_class: BTreeMap<Class, usize> = BTreeMap::new();
    // Batches are independent programs: each has its own seed, so a function can call only
    // functions of its own batch.
    let mut first = 0;
    let mut batch_number = 0u64;
    while first < options.count {
        let size = options.batch.min(options.count - first);
        let batch_seed = options
            .seed
            .wrapping_mul(1_000_003)
            .wrapping_add(batch_number);
        let functions = program::generate_batch(batch_seed, size);
        for function in &functions {
            for feature in &function.features {
                *summary.features.entry(feature).or_default() += 1;
            }
        }
        let outcomes = check_functions(&scratch, &functions);
        for function in &functions {
            let outcome = outcomes
                .get(&function.name)
                .cloned()
                .unwrap_or_else(|| Outcome::new(Class::Timeout, "no result"));
            *summary.counts.entry(outcome.class).or_default() += 1;
            summary.points += outcome.points;
            summary.skipped_points += outcome.skipped;
            summary.against_differences += outcome.against_differences;
            summary.ir_engine += usize::from(outcome.ir_engine == Some(true));
            if outcome.class.is_bug() || outcome.class == Class::Refusal {
                progress.suspend(|| {
                    eprintln!(
                        "found: {} in {} (batch seed {batch_seed}): {}",
                        outcome.class.label(),
                        function.name,
                        outcome.detail.lines().next().unwrap_or_default()
                    );
                });
                // Reducing costs minutes; the first few of each class say what it is.
                let reductions = reduced_per_class.entry(outcome.class).or_insert(0usize);
                let reduced = if options.reduce
                    && outcome.class.is_bug()
                    && outcome.class != Class::GeneratorError
                    && *reductions < REDUCED_PER_CLASS
                {
                    *reductions += 1;
                    let reducer = crate::reduce::Reducer::new(&scratch, &functions);
                    reducer.reduce(function, outcome.class)
                } else {
                    None
                };
                let mut finding = Finding {
                    name: function.name.clone(),
                    class: outcome.class,
                    detail: outcome.detail.clone(),
                    original: with_callees(function, &functions),
                    reduced,
                    file: None,
                };
                finding.file = write_finding(&findings_dir, batch_seed, &finding);
                summary.findings.push(finding);
            }
        }
        progress.inc(size as u64);
        progress.set_message(status(&summary));
        if progress.is_hidden() {
            // No terminal (a log, CI): a line per batch instead of the bar.
            eprintln!(
                "{}/{} programs, {:.0} s, {}",
                first + size,
                options.count,
                started.elapsed().as_secs_f64(),
                status(&summary)
            );
        }
        first += size;
        batch_number += 1;
    }
    progress.finish_and_clear();
    summary.programs = options.count;
    summary.elapsed = started.elapsed();
    println!("{}", summary.table());
    summary
}

fn status(summary: &Summary) -> String {
    let bugs: usize = summary
        .counts
        .iter()
        .filter(|(class, _)| class.is_bug())
        .map(|(_, count)| count)
        .sum();
    format!(
        "passed {}  bugs {}",
        summary.counts.get(&Class::Passed).copied().unwrap_or(0),
        bugs
    )
}

/// The function and every function of its batch it calls, callees first.
pub fn with_callees(function: &GeneratedFunction, batch: &[GeneratedFunction]) -> String {
    let mut needed = Vec::new();
    collect_callees(&function.name, batch, &mut needed);
    let mut text = String::new();
    for other in batch {
        if needed.contains(&other.name) && other.name != function.name {
            text.push_str(&other.text);
            text.push('\n');
        }
    }
    text.push_str(&function.text);
    text
}

fn collect_callees(name: &str, batch: &[GeneratedFunction], needed: &mut Vec<String>) {
    if needed.iter().any(|known| known == name) {
        return;
    }
    needed.push(name.to_string());
    if let Some(function) = batch.iter().find(|function| function.name == name) {
        for callee in &function.callees {
            collect_callees(callee, batch, needed);
        }
    }
}

fn write_finding(dir: &std::path::Path, seed: u64, finding: &Finding) -> Option<PathBuf> {
    std::fs::create_dir_all(dir).ok()?;
    let file = dir.join(format!(
        "{}-seed{seed}-{}.rs",
        finding.class.slug(),
        finding.name
    ));
    let mut text = format!(
        "// {}: {}\n// batch seed {seed}; the checker's prelude:\n{}\n",
        finding.class.label(),
        finding.detail.replace('\n', " "),
        program::PRELUDE
            .lines()
            .map(|line| format!("// {line}"))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    if let Some(reduced) = &finding.reduced {
        text.push_str("\n// reduced:\n");
        text.push_str(reduced);
        text.push_str("\n// as generated:\n");
        text.push_str(
            &finding
                .original
                .lines()
                .map(|line| format!("// {line}"))
                .collect::<Vec<_>>()
                .join("\n"),
        );
    } else {
        text.push_str(&finding.original);
    }
    text.push('\n');
    std::fs::write(&file, text).ok()?;
    Some(file)
}

/// Compiles, runs and classifies `functions` (callees included), returning each one's outcome.
pub fn check_functions(
    scratch: &Scratch,
    functions: &[GeneratedFunction],
) -> BTreeMap<String, Outcome> {
    let mut outcomes = BTreeMap::new();
    let under_test: Vec<UnderTest> = functions
        .iter()
        .map(|function| UnderTest {
            name: function.name.clone(),
            text: function.text.clone(),
        })
        .collect();
    let callees: BTreeMap<String, Vec<String>> = functions
        .iter()
        .map(|function| (function.name.clone(), function.callees.clone()))
        .collect();
    check_set(scratch, &under_test, &callees, &mut outcomes, 0);
    outcomes
}

fn check_set(
    scratch: &Scratch,
    functions: &[UnderTest],
    callees: &BTreeMap<String, Vec<String>>,
    outcomes: &mut BTreeMap<String, Outcome>,
    depth: usize,
) {
    for _round in 0..8 {
        let live: Vec<UnderTest> = functions
            .iter()
            .filter(|function| !outcomes.contains_key(&function.name))
            .cloned()
            .collect();
        if live.is_empty() {
            return;
        }
        let names: Vec<String> = live.iter().map(|function| function.name.clone()).collect();
        // Callees already checked stay in the crate, unchecked.
        let mut needed = Vec::new();
        for name in &names {
            collect_needed(name, callees, &mut needed);
        }
        let included: Vec<UnderTest> = functions
            .iter()
            .filter(|function| needed.contains(&function.name))
            .cloned()
            .collect();
        let source = harness::source(&included, &names);
        let compiled = match scratch.compile(&source.text, Build::Build) {
            Ok(compiled) => compiled,
            Err(error) => {
                for name in &names {
                    outcomes.insert(
                        name.clone(),
                        Outcome::new(Class::GeneratorError, format!("cargo: {error}")),
                    );
                }
                return;
            }
        };
        if compiled.success {
            run(scratch, &names, outcomes);
            return;
        }
        let failed = attribute(&compiled, &source);
        if failed.is_empty() {
            // Errors no line leads back to: halve the set until they can be placed.
            if live.len() == 1 || depth > 12 {
                let detail = compiled
                    .errors()
                    .next()
                    .map(|d| d.rendered.clone())
                    .or(compiled.cargo_error.clone())
                    .unwrap_or_default();
                for name in names {
                    outcomes.insert(name, Outcome::new(Class::InsideGenerated, detail.clone()));
                }
                return;
            }
            let (left, right) = live.split_at(live.len() / 2);
            let with_needed = |part: &[UnderTest]| -> Vec<UnderTest> {
                let mut needed = Vec::new();
                for function in part {
                    collect_needed(&function.name, callees, &mut needed);
                }
                functions
                    .iter()
                    .filter(|function| needed.contains(&function.name))
                    .cloned()
                    .collect()
            };
            let left_set = with_needed(left);
            let right_set = with_needed(right);
            check_set(scratch, &left_set, callees, outcomes, depth + 1);
            check_set(scratch, &right_set, callees, outcomes, depth + 1);
            return;
        }
        for (name, outcome) in failed {
            outcomes.entry(name).or_insert(outcome);
        }
        mark_callers_of_failures(&live, callees, outcomes);
    }
}

fn collect_needed(name: &str, callees: &BTreeMap<String, Vec<String>>, needed: &mut Vec<String>) {
    if needed.iter().any(|known| known == name) {
        return;
    }
    needed.push(name.to_string());
    for callee in callees.get(name).into_iter().flatten() {
        collect_needed(callee, callees, needed);
    }
}

/// A function whose callee failed cannot be checked.
fn mark_callers_of_failures(
    live: &[UnderTest],
    callees: &BTreeMap<String, Vec<String>>,
    outcomes: &mut BTreeMap<String, Outcome>,
) {
    loop {
        let mut changed = false;
        for function in live {
            if outcomes.contains_key(&function.name) {
                continue;
            }
            let mut needed = Vec::new();
            collect_needed(&function.name, callees, &mut needed);
            if let Some(failed) = needed.iter().find(|callee| {
                outcomes
                    .get(*callee)
                    .is_some_and(|outcome| outcome.class != Class::Passed)
            }) {
                outcomes.insert(
                    function.name.clone(),
                    Outcome::new(Class::CalleeFailed, format!("calls {failed}")),
                );
                changed = true;
            }
        }
        if !changed {
            return;
        }
    }
}

/// Each function with an error on its lines, and the class of the worst one.
fn attribute(compiled: &Compiled, source: &Source) -> BTreeMap<String, Outcome> {
    let mut failed: BTreeMap<String, Outcome> = BTreeMap::new();
    for diagnostic in compiled.errors() {
        let Some(piece) = diagnostic.line.and_then(|line| source.piece_at(line)) else {
            continue;
        };
        let (name, role) = harness::owner(piece);
        let class = match role {
            Role::Plain => Class::GeneratorError,
            _ if diagnostic.is_macro_panic() => Class::MacroPanic,
            Role::Annotated if diagnostic.is_refusal() => Class::Refusal,
            _ => Class::InsideGenerated,
        };
        let rank = |class: Class| match class {
            Class::GeneratorError => 0,
            Class::MacroPanic => 1,
            Class::InsideGenerated => 2,
            _ => 3,
        };
        let entry = failed
            .entry(name.to_string())
            .or_insert_with(|| Outcome::new(class, diagnostic.rendered.clone()));
        if rank(class) < rank(entry.class) {
            *entry = Outcome::new(class, diagnostic.rendered.clone());
        }
    }
    failed
}

/// Runs the built binary; a function whose line is missing (the binary crashed or hung) is
/// run again alone.
fn run(scratch: &Scratch, names: &[String], outcomes: &mut BTreeMap<String, Outcome>) {
    let all = scratch.run(&[], Duration::from_secs(120));
    if let Ok(output) = &all {
        parse_results(&output.stdout, outcomes);
    }
    for name in names {
        if outcomes.contains_key(name) {
            continue;
        }
        match scratch.run(std::slice::from_ref(name), Duration::from_secs(30)) {
            Ok(output) => {
                parse_results(&output.stdout, outcomes);
                if !outcomes.contains_key(name) {
                    let class = if output.timed_out {
                        Class::Timeout
                    } else {
                        Class::RuntimePanic
                    };
                    let tail: String = output
                        .stderr
                        .lines()
                        .rev()
                        .take(5)
                        .collect::<Vec<_>>()
                        .join(" | ");
                    outcomes.insert(
                        name.clone(),
                        Outcome::new(
                            class,
                            format!("the process ended: {:?} {tail}", output.status),
                        ),
                    );
                }
            }
            Err(error) => {
                outcomes.insert(
                    name.clone(),
                    Outcome::new(Class::GeneratorError, format!("cannot run: {error}")),
                );
            }
        }
    }
}

fn parse_results(stdout: &str, outcomes: &mut BTreeMap<String, Outcome>) {
    let mut engines = BTreeMap::new();
    for line in stdout.lines() {
        if let Some((name, engine)) = line
            .strip_prefix("ENGINE ")
            .and_then(|rest| rest.split_once(' '))
        {
            engines.insert(name.to_string(), engine == "ir");
        }
    }
    for line in stdout.lines() {
        if let Some(rest) = line.strip_prefix("OK ") {
            let fields: Vec<&str> = rest.split_whitespace().collect();
            if let [name, points, skipped, against] = fields[..] {
                let number = |text: &str| text.parse().unwrap_or(0);
                let points = number(points);
                let skipped = number(skipped);
                let class = if skipped == points {
                    Class::NothingToCompare
                } else {
                    Class::Passed
                };
                outcomes.insert(
                    name.to_string(),
                    Outcome {
                        class,
                        detail: String::new(),
                        points,
                        skipped,
                        against_differences: number(against),
                        ir_engine: None,
                    },
                );
            }
        } else if let Some(rest) = line.strip_prefix("FAIL ") {
            let (head, detail) = rest.split_once('\t').unwrap_or((rest, ""));
            let (name, class) = head.split_once(' ').unwrap_or((head, ""));
            let class = match class {
                "wrong value" => Class::WrongValue,
                "wrong derivative" => Class::WrongDerivative,
                "primal panic" => Class::GeneratorError,
                "timeout" => Class::Timeout,
                _ => Class::RuntimePanic,
            };
            outcomes.insert(name.to_string(), Outcome::new(class, detail));
        }
    }
    for (name, ir) in engines {
        if let Some(outcome) = outcomes.get_mut(&name) {
            outcome.ir_engine = Some(ir);
        }
    }
}
