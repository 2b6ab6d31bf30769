//! Token mutations of valid functions: whatever tokens the macros are given, they must answer
//! with a compile error on the user's tokens, never a panic and never an error inside the code
//! they generate.
//!
//! Each mutant is a seed function (`seeds.rs`, plus the random-program generator's functions
//! when it has some) with one to three operators of `operators.rs` applied. Only mutants that
//! parse as an item are kept: rustc's parser rejects the others before any macro runs. The
//! mutants are compiled with `cargo check` in batches, each in its own module (`mod m17 { use
//! super::*; .. }`), so that no two collide whatever names the mutations leave, and a seed
//! calling itself keeps working. Each error is traced to its mutant by its line.
//!
//! rustc skips later passes once a crate has errors (privacy, lints, sometimes type checking
//! after a fatal error), so silence about a mutant in a failing batch proves nothing: the
//! mutants without errors are compiled again on their own until a build succeeds, and each
//! batch carries a canary with a type error whose absence shows that rustc stopped early. An
//! error no line ties to a mutant splits the batch in halves until it is tied to one.
//!
//! A mutant's errors decide its class (`Class`): a macro panic; an error rustc reports inside
//! generated code (spanned there, or naming generated items such as `__S`); such errors that
//! only repeat, at the same place, an error rustc also reports on the function as written (an
//! echo: the generated copy of a body that does not type-check); errors on the user's tokens or
//! our own messages (a refusal spanned on the attribute, a trait's `on_unimplemented` message):
//! the expected answer; or no error at all. Only panics and compiler crashes fail a campaign;
//! the rest is reported, with a reproducer per finding under
//! `target/ad-fuzz/<scratch>/findings/` and, for each distinct finding, one shrunk by deleting
//! tokens.

mod operators;
mod seeds;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use proc_macro2::TokenStream;

use crate::args::MutationOptions;
use crate::program;
use crate::scratch::{Build, Diagnostic, Scratch, Source};
use operators::{Mutator, Node, Operator, TOKEN_OPERATORS};

/// Functions asked of the random-program generator, mixed in with the fixed seeds.
const GENERATED_SEEDS: usize = 24;

/// Of a hundred mutants, how many move the function onto or next to another kind of item.
const OTHER_ITEM_PERCENT: u8 = 5;

/// Distinct findings the campaign shrinks to a small reproducer, the time each may take, and
/// the time all may take.
const REDUCTIONS: usize = 100;
/// Campaigns of at least this many mutants also shrink errors inside generated code.
const REDUCE_INSIDE_FROM: usize = 1000;
const REDUCTION_BUDGET: Duration = Duration::from_secs(120);
const REDUCTION_TOTAL: Duration = Duration::from_secs(30 * 60);
/// Candidates compiled together in one round of the reducer.
const REDUCTION_CHUNK: usize = 100;

/// How often, and how long apart, a compile is tried again while the crates under test do not
/// build.
const DEPENDENCY_RETRIES: usize = 10;
const DEPENDENCY_WAIT: Duration = Duration::from_secs(30);

const CANARY: &str = "canary";

/// What compiling a mutant showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// A macro panicked.
    Panic,
    /// The compiler died (an internal error, a stack overflow) with the mutant alone.
    Crash,
    /// An error points inside generated code or names generated items.
    InsideGenerated,
    /// An error no line ties to the mutant, even compiled alone.
    Unattributed,
    /// Errors inside generated code, each at the place of an error rustc also reports on the
    /// function as written (a type error the generated copy repeats, naming `__S`).
    Echo,
    /// Errors on the user's tokens only, or our macros' own messages: the expected answer.
    Rejected,
    /// No error: the mutation left a valid function.
    Accepted,
}

impl Class {
    const ALL: [Class; 7] = [
        Class::Accepted,
        Class::Rejected,
        Class::Echo,
        Class::InsideGenerated,
        Class::Unattributed,
        Class::Panic,
        Class::Crash,
    ];

    fn label(self) -> &'static str {
        match self {
            Class::Panic => "panic",
            Class::Crash => "crash",
            Class::InsideGenerated => "inside generated code",
            Class::Unattributed => "unattributed",
            Class::Echo => "echoed in generated code",
            Class::Rejected => "rejected",
            Class::Accepted => "accepted",
        }
    }

    /// The classes worth a look at each mutant.
    fn is_finding(self) -> bool {
        matches!(
            self,
            Class::Panic | Class::Crash | Class::InsideGenerated | Class::Unattributed
        )
    }

    fn file_tag(self) -> &'static str {
        match self {
            Class::Panic => "panic",
            Class::Crash => "crash",
            Class::InsideGenerated => "inside",
            Class::Unattributed => "unattributed",
            Class::Echo => "echo",
            Class::Rejected => "rejected",
            Class::Accepted => "accepted",
        }
    }
}

/// How an error reads to the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reading {
    Panic,
    /// rustc's own error in code the macros generated.
    Generated,
    /// One of our messages: a refusal spanned on the attribute (no tokens of its own to point
    /// at) or a trait's designed message for a value the macros cannot differentiate.
    Designed,
    /// On the user's tokens.
    User,
}

/// rustc's errors that carry no code, which our refusals (also without code) must not be
/// taken for.
const RUSTC_CODELESS: &[&str] = &[
    "expected ",
    "unexpected ",
    "macro expansion ignores",
    "cannot find macro",
    "cannot find attribute",
    "`self` parameter is only allowed",
    "unclosed delimiter",
    "mismatched closing delimiter",
    "this file contains",
    "unknown start of token",
    "missing ",
    "invalid ",
    "found ",
    "no rules expected",
];

/// Whether rustc may stop before type checking after this error (a feature-gate error, a
/// macro's input that does not match, a parse error): with such an error in a batch the canary
/// goes missing.
fn may_stop_rustc(d: &Diagnostic) -> bool {
    d.code.as_deref() == Some("E0658")
        || (d.code.is_none()
            && RUSTC_CODELESS
                .iter()
                .any(|prefix| d.message.starts_with(prefix)))
}

/// The messages of `ad_runtime`'s `#[diagnostic::on_unimplemented]` traits.
const DESIGNED_MESSAGES: &[&str] = &[
    "is not differentiable",
    "is not a differentiable scalar",
    "cannot be kept by `#[checkpoint]`",
];

fn reading(d: &Diagnostic) -> Reading {
    if d.is_macro_panic() {
        return Reading::Panic;
    }
    if !d.points_inside_generated_code() {
        return Reading::User;
    }
    let ours = d.expansion.as_deref().is_some_and(|name| {
        ["#[forward]", "#[reverse]", "#[checkpoint]"]
            .iter()
            .any(|attribute| name.starts_with(attribute))
    });
    let refusal = d.code.is_none()
        && !RUSTC_CODELESS
            .iter()
            .any(|prefix| d.message.starts_with(prefix));
    let designed = DESIGNED_MESSAGES
        .iter()
        .any(|message| d.message.ends_with(message));
    if ours && !d.message.contains("__") && (refusal || designed) {
        Reading::Designed
    } else {
        Reading::Generated
    }
}

/// The line and column rustc shows for the error (its `-->` line).
fn location(d: &Diagnostic) -> Option<(usize, usize)> {
    let line = d
        .rendered
        .lines()
        .find(|line| line.trim_start().starts_with("-->"))?;
    let mut parts = line.rsplit(':');
    let column = parts.next()?.trim().parse().ok()?;
    let row = parts.next()?.trim().parse().ok()?;
    Some((row, column))
}

/// A function mutations start from.
struct Seed {
    name: String,
    nodes: Vec<Node>,
    rendered: String,
    /// From the random-program generator: lives in `mod generated`, beside its callees.
    generated: bool,
}

impl Seed {
    fn new(name: String, text: &str, generated: bool) -> Option<Seed> {
        let stream: TokenStream = text.parse().ok()?;
        let nodes = operators::to_nodes(stream);
        let rendered = operators::render(&nodes);
        Some(Seed {
            name,
            nodes,
            rendered,
            generated,
        })
    }
}

/// One mutant, reproducible from the campaign's seed and its index alone.
#[derive(Clone, Debug)]
pub struct Mutant {
    pub index: usize,
    pub seed: String,
    pub operators: Vec<Operator>,
    pub text: String,
    generated: bool,
}

impl Mutant {
    fn module(&self) -> String {
        format!("m{}", self.index)
    }
}

/// A mutant's class and the errors that decided it.
#[derive(Clone, Debug)]
struct Verdict {
    class: Class,
    errors: Vec<Diagnostic>,
    /// cargo's output when the compiler died.
    crash: Option<String>,
    /// Alone, the mutant kept rustc from type checking the crate (a fatal error).
    stopped_early: bool,
}

impl Verdict {
    fn from_errors(errors: Vec<Diagnostic>) -> Verdict {
        let mut verdict = Verdict {
            class: Class::Accepted,
            errors,
            crash: None,
            stopped_early: false,
        };
        let generated: Vec<&Diagnostic> = verdict
            .errors
            .iter()
            .filter(|d| reading(d) == Reading::Generated)
            .collect();
        verdict.class = if verdict.errors.iter().any(|d| reading(d) == Reading::Panic) {
            Class::Panic
        } else if generated.iter().any(|d| !verdict.echoed(d)) {
            Class::InsideGenerated
        } else if !generated.is_empty() {
            Class::Echo
        } else if verdict.errors.is_empty() {
            Class::Accepted
        } else {
            Class::Rejected
        };
        verdict
    }

    /// An error in generated code at the place of one on the user's tokens: the generated copy
    /// of the body repeating the user's mistake.
    fn echoed(&self, d: &Diagnostic) -> bool {
        location(d).is_some_and(|at| {
            self.errors
                .iter()
                .any(|other| reading(other) == Reading::User && location(other) == Some(at))
        })
    }

    /// Rejected by one of our messages rather than by rustc alone.
    fn refused(&self) -> bool {
        self.errors
            .iter()
            .any(|d| d.is_refusal() || reading(d) == Reading::Designed)
    }

    /// The errors that make this a finding (all of them for a crash or stray errors).
    fn relevant(&self) -> Vec<&Diagnostic> {
        let wanted = |d: &Diagnostic| match self.class {
            Class::Panic => reading(d) == Reading::Panic,
            Class::InsideGenerated => reading(d) == Reading::Generated && !self.echoed(d),
            Class::Echo => reading(d) == Reading::Generated,
            _ => true,
        };
        self.errors.iter().filter(|d| wanted(d)).collect()
    }

    /// What two mutants must share to be the same finding: the class and the first relevant
    /// message (a panic's own message, or rustc's code and words).
    fn key(&self) -> String {
        let first = self.relevant().into_iter().next();
        let detail = match (self.class, first) {
            (Class::Panic, Some(d)) => panic_message(d),
            (_, Some(d)) => format!("{} {}", d.code.as_deref().unwrap_or("-"), d.message),
            (_, None) => self
                .crash
                .as_deref()
                .and_then(|text| text.lines().find(|line| line.contains("error")))
                .unwrap_or("")
                .to_string(),
        };
        format!("{}: {}", self.class.label(), without_module_names(&detail))
    }

    fn messages(&self) -> String {
        let mut out = String::new();
        for d in self.relevant() {
            out.push_str(d.rendered.trim_end());
            out.push('\n');
        }
        if let Some(crash) = &self.crash {
            out.push_str(crash.trim_end());
            out.push('\n');
        }
        out
    }
}

/// `text` with the mutants' module names (`m17::f`) made alike, so that one finding in many
/// mutants has one key.
fn without_module_names(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('m') {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let digits = from[1..].len()
            - from[1..]
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .len();
        let word_start = !before.ends_with(|c: char| c.is_alphanumeric() || c == '_');
        if digits > 0 && word_start && from[1 + digits..].starts_with("::") {
            out.push_str("m_");
            rest = &from[1 + digits..];
        } else {
            out.push('m');
            rest = &from[1..];
        }
    }
    out.push_str(rest);
    out
}

/// The panic's own words, from the `message: ..` note rustc adds to "custom attribute
/// panicked".
fn panic_message(d: &Diagnostic) -> String {
    d.rendered
        .lines()
        .find_map(|line| line.split_once("message: ").map(|(_, rest)| rest.trim()))
        .unwrap_or(&d.message)
        .to_string()
}

/// A mutant worth a look, with its reproducer.
pub struct Finding {
    pub mutant: Mutant,
    pub class: Class,
    pub key: String,
    pub messages: String,
    pub file: Option<PathBuf>,
    /// The reproducer after the reducer deleted what it could, with the messages it gives.
    pub reduced: Option<(String, String)>,
}

#[derive(Default)]
pub struct Summary {
    pub counts: BTreeMap<Class, usize>,
    /// Rejected mutants with at least one of our macros' own messages among their errors.
    pub refused: usize,
    /// Echoes by their first message: how many mutants, and the first of them.
    pub echoes: BTreeMap<String, (usize, usize)>,
    /// Mutants that kept rustc from type checking their batch (each costs a bisection).
    pub stopped_early: Vec<(usize, String)>,
    /// Our messages spanned on the attribute rather than on the construct, and how often.
    pub at_attribute: BTreeMap<String, usize>,
    /// Mutants the syn parser rejected (thrown away and drawn again).
    pub discarded_unparsable: usize,
    /// Mutants equal to their seed (thrown away and drawn again).
    pub discarded_unchanged: usize,
    pub findings: Vec<Finding>,
    /// Seeds that do not compile unmutated: the campaign stops, it would test nothing.
    pub broken_seeds: Vec<String>,
    /// Why the campaign could not run.
    pub error: Option<String>,
    pub elapsed: Duration,
    pub compiles: usize,
    pub compile_time: Duration,
}

impl Summary {
    pub fn count(&self, class: Class) -> usize {
        self.counts.get(&class).copied().unwrap_or(0)
    }

    /// No macro panicked and no compiler died, every seed compiled and the campaign ran.
    pub fn is_clean(&self) -> bool {
        self.count(Class::Panic) == 0
            && self.count(Class::Crash) == 0
            && self.broken_seeds.is_empty()
            && self.error.is_none()
    }

    fn failed(error: String, started: Instant) -> Summary {
        eprintln!("mutations: {error}");
        Summary {
            error: Some(error),
            elapsed: started.elapsed(),
            ..Summary::default()
        }
    }
}

pub fn campaign(options: &MutationOptions) -> Summary {
    let started = Instant::now();
    let scratch = match Scratch::new(&options.scratch) {
        Ok(scratch) => scratch,
        Err(error) => return Summary::failed(format!("scratch crate: {error}"), started),
    };
    let mut runner = Runner {
        scratch,
        generated_block: None,
        compiles: 0,
        compile_time: Duration::ZERO,
    };
    let mut summary = Summary::default();

    let mut seeds: Vec<Seed> = seeds::SEEDS
        .iter()
        .enumerate()
        .filter_map(|(index, text)| Seed::new(seed_name(text, index), text, false))
        .collect();
    match runner.broken_seeds(&seeds) {
        Ok(broken) if broken.is_empty() => {}
        Ok(broken) => {
            for (name, messages) in &broken {
                eprintln!("mutations: seed `{name}` does not compile:\n{messages}");
            }
            summary.broken_seeds = broken.into_iter().map(|(name, _)| name).collect();
            summary.elapsed = started.elapsed();
            return summary;
        }
        Err(error) => return Summary::failed(format!("compiling the seeds: {error}"), started),
    }
    let first_compile = runner.compile_time;
    seeds.extend(runner.generated_seeds(options.seed));

    let mutants: Vec<Mutant> = (0..options.count)
        .map(|index| mutant(&seeds, options.seed, index, &mut summary))
        .collect();

    let progress =
        ProgressBar::with_draw_target(Some(mutants.len() as u64), ProgressDrawTarget::stderr())
            .with_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:40}] {pos}/{len} mutants {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
    let mut verdicts: BTreeMap<String, Verdict> = BTreeMap::new();
    for batch in mutants.chunks(options.batch.max(1)) {
        let pieces: Vec<Piece> = batch.iter().map(Piece::of).collect();
        if let Err(error) = runner.settle(&pieces, true, &mut verdicts) {
            progress.finish_and_clear();
            return Summary::failed(format!("compiling a batch: {error}"), started);
        }
        progress.inc(batch.len() as u64);
        let found = verdicts.values().filter(|v| v.class.is_finding()).count();
        progress.set_message(format!("({found} findings)"));
    }
    progress.finish_and_clear();

    let findings_dir = runner.scratch.dir().join("findings");
    let _ = std::fs::remove_dir_all(&findings_dir);
    let mut per_operator: BTreeMap<Operator, (usize, usize, usize)> = BTreeMap::new();
    for mutant in &mutants {
        let Some(verdict) = verdicts.get(&mutant.module()) else {
            continue;
        };
        *summary.counts.entry(verdict.class).or_default() += 1;
        if verdict.class == Class::Rejected && verdict.refused() {
            summary.refused += 1;
        }
        if verdict.stopped_early {
            let first = verdict.errors.first().map(|d| d.message.clone());
            summary.stopped_early.push((
                mutant.index,
                format!("{}\n    {}", mutant.text, first.unwrap_or_default()),
            ));
        }
        if verdict.class == Class::Echo {
            summary
                .echoes
                .entry(verdict.key())
                .or_insert((0, mutant.index))
                .0 += 1;
        }
        for d in &verdict.errors {
            if reading(d) == Reading::Designed && d.code.is_none() {
                *summary.at_attribute.entry(d.message.clone()).or_default() += 1;
            }
        }
        for operator in &mutant.operators {
            let entry = per_operator.entry(*operator).or_default();
            entry.0 += 1;
            entry.1 += usize::from(verdict.class == Class::Accepted);
            entry.2 += usize::from(verdict.class.is_finding());
        }
        if verdict.class.is_finding() {
            let file = runner.write_finding(&findings_dir, mutant, verdict);
            summary.findings.push(Finding {
                mutant: mutant.clone(),
                class: verdict.class,
                key: verdict.key(),
                messages: verdict.messages(),
                file,
                reduced: None,
            });
        }
    }
    // A small campaign (the CI's) shrinks only failures, whose reproducers it must show; the
    // errors inside generated code it reports as found.
    let inside_too = options.count >= REDUCE_INSIDE_FROM;
    runner.reduce_findings(&mut summary.findings, &findings_dir, inside_too);
    summary.compiles = runner.compiles;
    summary.compile_time = runner.compile_time;
    summary.elapsed = started.elapsed();
    print_summary(options, &seeds, &summary, &per_operator, first_compile);
    summary
}

/// The seed's function name, for messages and findings.
fn seed_name(text: &str, index: usize) -> String {
    syn::parse_str::<syn::ItemFn>(text)
        .map(|item| item.sig.ident.to_string())
        .unwrap_or_else(|_| format!("seed{index}"))
}

/// The mutant at `index`: its own random stream, so it does not depend on the count or the
/// batch size, and a finding can be drawn again from its index.
fn mutant(seeds: &[Seed], campaign_seed: u64, index: usize, summary: &mut Summary) -> Mutant {
    let mut rng = fastrand::Rng::with_seed(mix(campaign_seed, index as u64));
    loop {
        let seed = &seeds[rng.usize(..seeds.len())];
        let mut nodes = seed.nodes.clone();
        let mut applied = Vec::new();
        let mut mutator = Mutator { rng: &mut rng };
        let token_operators = if mutator.rng.u8(..100) < OTHER_ITEM_PERCENT {
            if mutator.apply(Operator::OtherItem, &mut nodes) {
                applied.push(Operator::OtherItem);
            }
            mutator.rng.usize(..=1)
        } else {
            mutator.rng.usize(1..=3)
        };
        for _ in 0..token_operators {
            let operator = TOKEN_OPERATORS[mutator.rng.usize(..TOKEN_OPERATORS.len())];
            if mutator.apply(operator, &mut nodes) {
                applied.push(operator);
            }
        }
        let text = operators::render(&nodes);
        if text == seed.rendered {
            summary.discarded_unchanged += 1;
        } else if syn::parse_str::<syn::Item>(&text).is_err() {
            summary.discarded_unparsable += 1;
        } else {
            return Mutant {
                index,
                seed: seed.name.clone(),
                operators: applied,
                text,
                generated: seed.generated,
            };
        }
    }
}

/// splitmix64 of the pair: nearby indices get unrelated streams.
fn mix(seed: u64, index: u64) -> u64 {
    let mut z = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(index)
        .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// An item compiled in a module of its own.
#[derive(Clone)]
struct Piece {
    name: String,
    text: String,
    generated: bool,
}

impl Piece {
    fn of(mutant: &Mutant) -> Piece {
        Piece {
            name: mutant.module(),
            text: mutant.text.clone(),
            generated: mutant.generated,
        }
    }

    fn module(&self) -> String {
        format!("mod {} {{\nuse super::*;\n{}\n}}\n", self.name, self.text)
    }
}

struct Runner {
    scratch: Scratch,
    /// The generator's functions, unmutated, shared by every batch when they compile.
    generated_block: Option<String>,
    compiles: usize,
    compile_time: Duration,
}

impl Runner {
    fn assemble(&self, pieces: &[Piece], canary: bool) -> Source {
        let mut source = Source::default();
        // Warnings would only slow the JSON down: every decision is on errors.
        source.push_shared("#![allow(warnings)]");
        source.push_shared(seeds::PRELUDE);
        if let Some(block) = &self.generated_block {
            source.push_shared("mod generated {");
            source.push_shared(program::PRELUDE);
            source.push_shared(block);
            for piece in pieces.iter().filter(|piece| piece.generated) {
                source.push_piece(&piece.name, &piece.module());
            }
            source.push_shared("}");
        }
        for piece in pieces
            .iter()
            .filter(|piece| !piece.generated || self.generated_block.is_none())
        {
            source.push_piece(&piece.name, &piece.module());
        }
        if canary {
            source.push_piece(CANARY, "fn canary() {\n    let _: () = 0u8;\n}");
        }
        source.push_shared("fn main() {}");
        source
    }

    /// Compiles `source`. The macro crate under test may be mid-edit and fail to build; that
    /// is no mutant's doing, so the compile waits and tries again rather than blaming one.
    fn compile(&mut self, source: &Source) -> std::io::Result<crate::scratch::Compiled> {
        let mut attempts = 0;
        loop {
            let compiled = self.scratch.compile(&source.text, Build::Check)?;
            self.compiles += 1;
            self.compile_time += compiled.elapsed;
            let broken = compiled.cargo_error.as_deref().filter(|error| {
                ["`ad-macros`", "`ad-runtime`"]
                    .iter()
                    .any(|name| error.contains(&format!("could not compile {name}")))
            });
            match broken {
                None => return Ok(compiled),
                Some(error) if attempts == DEPENDENCY_RETRIES => {
                    return Err(std::io::Error::other(format!(
                        "the crates under test do not build:\n{error}"
                    )))
                }
                Some(_) => {
                    attempts += 1;
                    eprintln!(
                        "mutations: ad-macros or ad-runtime does not build; trying again in {} s",
                        DEPENDENCY_WAIT.as_secs()
                    );
                    std::thread::sleep(DEPENDENCY_WAIT);
                }
            }
        }
    }

    /// The seeds that do not compile unmutated, with their errors. Also the first build of
    /// the scratch crate (ad-runtime and its dependencies).
    fn broken_seeds(&mut self, seeds: &[Seed]) -> std::io::Result<Vec<(String, String)>> {
        let pieces: Vec<Piece> = seeds
            .iter()
            .enumerate()
            .map(|(index, seed)| Piece {
                name: format!("seed{index}"),
                text: seed.rendered.clone(),
                generated: false,
            })
            .collect();
        let mut verdicts = BTreeMap::new();
        self.settle(&pieces, false, &mut verdicts)?;
        Ok(pieces
            .iter()
            .zip(seeds)
            .filter_map(|(piece, seed)| {
                let verdict = verdicts.get(&piece.name)?;
                (verdict.class != Class::Accepted).then(|| {
                    let mut messages = String::new();
                    for d in &verdict.errors {
                        messages.push_str(&d.rendered);
                    }
                    if let Some(crash) = &verdict.crash {
                        messages.push_str(crash);
                    }
                    (seed.name.clone(), messages)
                })
            })
            .collect())
    }

    /// The generator's functions as seeds, when it has some and they compile; they then stay
    /// in every batch, unmutated, since they may call one another.
    fn generated_seeds(&mut self, seed: u64) -> Vec<Seed> {
        let functions = program::generate_batch(seed, GENERATED_SEEDS);
        if functions.is_empty() {
            return Vec::new();
        }
        let mut block = String::new();
        let mut seeds = Vec::new();
        for function in &functions {
            let mut text = function.source().to_string();
            if !["#[forward]", "#[reverse]", "#[checkpoint]"]
                .iter()
                .any(|attribute| text.contains(attribute))
            {
                text = format!("#[forward]\n#[reverse]\n{text}");
            }
            block.push_str(&text);
            block.push('\n');
            if let Some(seed) = Seed::new(function.name.clone(), &text, true) {
                seeds.push(seed);
            }
        }
        self.generated_block = Some(block);
        let source = self.assemble(&[], false);
        match self.compile(&source) {
            Ok(compiled) if compiled.success => seeds,
            Ok(compiled) => {
                let first = compiled
                    .errors()
                    .next()
                    .map(|d| d.rendered.clone())
                    .or(compiled.cargo_error.clone())
                    .unwrap_or_default();
                eprintln!(
                    "mutations: the generated functions do not compile; mutating the fixed \
                     seeds only. First error:\n{first}"
                );
                self.generated_block = None;
                Vec::new()
            }
            Err(error) => {
                eprintln!("mutations: compiling the generated functions: {error}");
                self.generated_block = None;
                Vec::new()
            }
        }
    }

    /// Compiles `pieces` and gives each a verdict. With `canary`, the batch also holds a
    /// function with a type error, whose message shows that type checking ran over the whole
    /// crate.
    fn settle(
        &mut self,
        pieces: &[Piece],
        canary: bool,
        verdicts: &mut BTreeMap<String, Verdict>,
    ) -> std::io::Result<()> {
        if pieces.is_empty() {
            return Ok(());
        }
        let source = self.assemble(pieces, canary);
        let compiled = self.compile(&source)?;
        let mut errors: BTreeMap<String, Vec<Diagnostic>> = BTreeMap::new();
        let mut stray = Vec::new();
        let mut canary_seen = false;
        for d in compiled.errors() {
            match d.line.and_then(|line| source.piece_at(line)) {
                Some(CANARY) => canary_seen = true,
                Some(name) => errors.entry(name.to_string()).or_default().push(d.clone()),
                None => stray.push(d.clone()),
            }
        }
        // cargo drops rustc's closing "aborting due to" message, so the canary is what shows
        // that rustc went as far as type checking; a build without one must succeed to show
        // anything about its quiet mutants, and it is checked below.
        let trustworthy =
            stray.is_empty() && compiled.cargo_error.is_none() && (canary_seen || !canary);
        if !trustworthy {
            if let [piece] = pieces {
                let own = errors.remove(&piece.name).unwrap_or_default();
                let has_stray = !stray.is_empty();
                let mut verdict = Verdict::from_errors(own.into_iter().chain(stray).collect());
                verdict.stopped_early = canary && !canary_seen;
                if let Some(cargo_error) = compiled.cargo_error {
                    verdict.class = Class::Crash;
                    verdict.crash = Some(cargo_error);
                } else if has_stray && verdict.class == Class::Rejected {
                    verdict.class = Class::Unattributed;
                } else if verdict.class == Class::Accepted {
                    // The canary is missing and nothing was said: rustc stopped early in
                    // silence.
                    verdict.class = Class::Crash;
                    verdict.crash = Some("rustc stopped before type checking, silently".into());
                }
                verdicts.insert(piece.name.clone(), verdict);
                return Ok(());
            }
            // The likely culprits apart first: halving alone would cost two compiles per level
            // for each of them.
            let (suspects, others): (Vec<Piece>, Vec<Piece>) =
                pieces.iter().cloned().partition(|piece| {
                    errors
                        .get(&piece.name)
                        .is_some_and(|errors| errors.iter().any(may_stop_rustc))
                });
            if !suspects.is_empty() && !others.is_empty() {
                self.settle(&others, canary, verdicts)?;
                return self.settle(&suspects, canary, verdicts);
            }
            let (left, right) = pieces.split_at(pieces.len() / 2);
            self.settle(left, canary, verdicts)?;
            return self.settle(right, canary, verdicts);
        }
        let mut quiet = Vec::new();
        for piece in pieces {
            match errors.remove(&piece.name) {
                Some(own) => {
                    verdicts.insert(piece.name.clone(), Verdict::from_errors(own));
                }
                None => quiet.push(piece.clone()),
            }
        }
        if compiled.success {
            for piece in quiet {
                verdicts.insert(piece.name, Verdict::from_errors(Vec::new()));
            }
            return Ok(());
        }
        // Silence in a failing build proves nothing: the passes after the failing one (privacy,
        // lints) did not run. Only a build that succeeds accepts.
        self.settle(&quiet, false, verdicts)
    }

    fn reproducer(&self, piece: &Piece) -> String {
        self.assemble(std::slice::from_ref(piece), false).text
    }

    fn write_finding(&self, dir: &Path, mutant: &Mutant, verdict: &Verdict) -> Option<PathBuf> {
        std::fs::create_dir_all(dir).ok()?;
        let path = dir.join(format!(
            "{}-{}.rs",
            mutant.module(),
            verdict.class.file_tag()
        ));
        let piece = Piece {
            text: rustfmt(&mutant.text),
            ..Piece::of(mutant)
        };
        let text = format!(
            "// {}: mutant {} of seed `{}` by {:?}\n{}\n{}",
            verdict.class.label(),
            mutant.index,
            mutant.seed,
            mutant.operators,
            commented(&verdict.messages()),
            self.reproducer(&piece)
        );
        std::fs::write(&path, text).ok()?;
        Some(path)
    }

    /// Shrinks the smallest mutant of each distinct finding by deleting tokens and groups while
    /// the same finding remains: failures first, then the most frequent. Errors inside
    /// generated code are shrunk only when `inside_too`.
    fn reduce_findings(&mut self, findings: &mut [Finding], dir: &Path, inside_too: bool) {
        let mut chosen: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for (index, finding) in findings.iter().enumerate() {
            if finding.class == Class::InsideGenerated && !inside_too {
                continue;
            }
            let size = finding.mutant.text.len();
            let entry = chosen.entry(finding.key.clone()).or_insert((index, 0));
            entry.1 += 1;
            if size < findings[entry.0].mutant.text.len() {
                entry.0 = index;
            }
        }
        let mut order: Vec<(usize, usize)> = chosen.into_values().collect();
        order.sort_by_key(|&(index, count)| (findings[index].class, std::cmp::Reverse(count)));
        let order: Vec<usize> = order
            .into_iter()
            .map(|(index, _)| index)
            .take(REDUCTIONS)
            .collect();
        if order.is_empty() {
            return;
        }
        let progress =
            ProgressBar::with_draw_target(Some(order.len() as u64), ProgressDrawTarget::stderr())
                .with_style(
                    ProgressStyle::with_template(
                        "{elapsed_precise} reducing findings {pos}/{len} {msg}",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
        let started = Instant::now();
        for index in order {
            if started.elapsed() > REDUCTION_TOTAL {
                break;
            }
            let finding = &findings[index];
            let piece = Piece::of(&finding.mutant);
            match self.reduce(&piece, &finding.key, &progress) {
                Ok(Some((text, messages))) => {
                    let reduced = Piece {
                        text: rustfmt(&text),
                        ..piece
                    };
                    let path = dir.join(format!("{}-reduced.rs", finding.mutant.module()));
                    let file = format!(
                        "// {}\n{}\n{}",
                        finding.key,
                        commented(&messages),
                        self.reproducer(&reduced)
                    );
                    let _ = std::fs::write(path, file);
                    findings[index].reduced = Some((reduced.text, messages));
                }
                Ok(None) => {}
                Err(error) => eprintln!("mutations: reducing {}: {error}", finding.mutant.index),
            }
            progress.inc(1);
        }
        progress.finish_and_clear();
    }

    /// Greedy, a compile per round: each round tries the deletions of one node or of a group's
    /// contents that still parse, the largest first, and keeps the largest that gives the same
    /// finding. The deletions that all worked are tried together at the head of the next round,
    /// so a long mutant loses many statements in one round.
    fn reduce(
        &mut self,
        piece: &Piece,
        key: &str,
        progress: &ProgressBar,
    ) -> std::io::Result<Option<(String, String)>> {
        struct Candidate {
            nodes: Vec<Node>,
            text: String,
            deletion: Option<operators::Deletion>,
        }
        let started = Instant::now();
        let Ok(stream) = piece.text.parse::<TokenStream>() else {
            return Ok(None);
        };
        let mut current = operators::to_nodes(stream);
        let mut verdict = None;
        let mut combined: Option<Vec<Node>> = None;
        'rounds: while started.elapsed() < REDUCTION_BUDGET {
            progress.set_message(format!(
                "({}: {} tokens)",
                piece.name,
                operators::count_tokens(&current)
            ));
            let mut seen = std::collections::HashSet::new();
            let mut candidates: Vec<Candidate> = Vec::new();
            let singles = operators::deletions(&current).into_iter().map(|deletion| {
                let nodes = operators::apply_deletions(&current, std::slice::from_ref(&deletion));
                (nodes, Some(deletion))
            });
            for (nodes, deletion) in combined
                .take()
                .map(|nodes| (nodes, None))
                .into_iter()
                .chain(singles)
            {
                let text = operators::render(&nodes);
                if seen.insert(text.clone()) && syn::parse_str::<syn::Item>(&text).is_ok() {
                    candidates.push(Candidate {
                        nodes,
                        text,
                        deletion,
                    });
                }
            }
            for chunk in candidates.chunks(REDUCTION_CHUNK) {
                let pieces: Vec<Piece> = chunk
                    .iter()
                    .enumerate()
                    .map(|(index, candidate)| Piece {
                        name: format!("r{index}"),
                        text: candidate.text.clone(),
                        generated: piece.generated,
                    })
                    .collect();
                let mut verdicts = BTreeMap::new();
                self.settle(&pieces, true, &mut verdicts)?;
                let hits: Vec<(&Candidate, Verdict)> = pieces
                    .iter()
                    .zip(chunk)
                    .filter_map(|(piece, candidate)| {
                        let found = verdicts.remove(&piece.name)?;
                        (found.key() == key).then_some((candidate, found))
                    })
                    .collect();
                let Some((best, found)) = hits.first() else {
                    continue;
                };
                let worked: Vec<operators::Deletion> = hits
                    .iter()
                    .filter_map(|(candidate, _)| candidate.deletion.clone())
                    .collect();
                if worked.len() > 1 {
                    combined = Some(operators::apply_deletions(&current, &worked));
                }
                current = best.nodes.clone();
                verdict = Some(found.clone());
                continue 'rounds;
            }
            break;
        }
        let text = operators::render(&current);
        // The messages of the reproducer alone, as a user would see them.
        let alone = Piece {
            text: text.clone(),
            ..piece.clone()
        };
        let mut verdicts = BTreeMap::new();
        self.settle(std::slice::from_ref(&alone), false, &mut verdicts)?;
        let messages = verdicts
            .get(&alone.name)
            .or(verdict.as_ref())
            .map(Verdict::messages)
            .unwrap_or_default();
        Ok(Some((text, messages)))
    }
}

/// The text formatted by rustfmt when it can (a mutant is one line of tokens), else as is.
fn rustfmt(text: &str) -> String {
    let child = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return text.to_string();
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(text.as_bytes());
    }
    match child.wait_with_output() {
        Ok(output) if output.status.success() && !output.stdout.is_empty() => {
            String::from_utf8_lossy(&output.stdout)
                .trim_end()
                .to_string()
        }
        _ => text.to_string(),
    }
}

fn commented(text: &str) -> String {
    text.lines().fold(String::new(), |mut out, line| {
        let _ = writeln!(out, "// {line}");
        out
    })
}

/// Prints each finding, then the lists of distinct messages, then the table: the table comes
/// last so that it is what a long campaign leaves on the screen.
fn print_summary(
    options: &MutationOptions,
    seeds: &[Seed],
    summary: &Summary,
    per_operator: &BTreeMap<Operator, (usize, usize, usize)>,
    first_compile: Duration,
) {
    for finding in &summary.findings {
        println!(
            "\n== m{} ({}) from seed `{}` by {:?}{}",
            finding.mutant.index,
            finding.class.label(),
            finding.mutant.seed,
            finding.mutant.operators,
            finding
                .file
                .as_ref()
                .map(|file| format!(", {}", file.display()))
                .unwrap_or_default()
        );
        println!("{}", finding.mutant.text);
        println!("{}", finding.messages.trim_end());
        if let Some((text, messages)) = &finding.reduced {
            println!("-- reduced:\n{text}\n{}", messages.trim_end());
        }
    }
    if !summary.stopped_early.is_empty() {
        println!("\nmutants that stopped rustc before type checking, and their first error:");
        for (index, text) in &summary.stopped_early {
            println!("  m{index}: {text}");
        }
    }
    if !summary.at_attribute.is_empty() {
        println!("\nour messages spanned on the attribute, not on a token of the construct:");
        for (message, count) in &summary.at_attribute {
            println!("  {count:>6}  {message}");
        }
    }
    if !summary.echoes.is_empty() {
        println!("\nechoes (the user's error repeated in generated code), first mutant:");
        for (key, (count, first)) in &summary.echoes {
            println!("  {count:>6}  m{first:<6} {key}");
        }
    }
    let mut keys: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for finding in &summary.findings {
        keys.entry(&finding.key)
            .or_insert((0, finding.mutant.index))
            .0 += 1;
    }
    if !keys.is_empty() {
        println!("\ndistinct findings, first mutant:");
        for (key, (count, first)) in &keys {
            println!("  {count:>6}  m{first:<6} {key}");
        }
    }

    let generated = seeds.iter().filter(|seed| seed.generated).count();
    println!(
        "\nmutations: {} mutants of {} seeds ({} generated), seed {}, batches of {}",
        options.count,
        seeds.len(),
        generated,
        options.seed,
        options.batch
    );
    println!("  {:<34} {:>7}", "class", "mutants");
    for class in Class::ALL {
        println!("  {:<34} {:>7}", class.label(), summary.count(class));
        if class == Class::Rejected {
            println!(
                "  {:<34} {:>7}",
                "  of which refused by our macros", summary.refused
            );
        }
    }
    println!(
        "  {:<34} {:>7}",
        "discarded: did not parse", summary.discarded_unparsable
    );
    println!(
        "  {:<34} {:>7}",
        "discarded: unchanged", summary.discarded_unchanged
    );
    println!(
        "  {:<18} {:>8} {:>9} {:>9}",
        "operator", "mutants", "accepted", "findings"
    );
    for (operator, (mutants, accepted, findings)) in per_operator {
        println!(
            "  {:<18} {:>8} {:>9} {:>9}",
            format!("{operator:?}"),
            mutants,
            accepted,
            findings
        );
    }
    println!(
        "  time {:.1} s: {} compiles taking {:.1} s (the first, with the scratch crate's \
         dependencies, {:.1} s)",
        summary.elapsed.as_secs_f64(),
        summary.compiles,
        summary.compile_time.as_secs_f64(),
        first_compile.as_secs_f64()
    );
    if !summary.findings.is_empty() {
        let dir = summary
            .findings
            .iter()
            .find_map(|finding| finding.file.as_ref());
        if let Some(dir) = dir.and_then(|file| file.parent()) {
            println!("  reproducers: {}", dir.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_seeds() -> Vec<Seed> {
        seeds::SEEDS
            .iter()
            .enumerate()
            .map(|(index, text)| Seed::new(seed_name(text, index), text, false).expect("seeds lex"))
            .collect()
    }

    #[test]
    fn mutants_are_deterministic_and_parse() {
        let seeds = all_seeds();
        let mut first = Summary::default();
        let mut second = Summary::default();
        for index in 0..100 {
            let a = mutant(&seeds, 42, index, &mut first);
            let b = mutant(&seeds, 42, index, &mut second);
            assert_eq!(a.text, b.text);
            assert_eq!(a.operators, b.operators);
            assert!(syn::parse_str::<syn::Item>(&a.text).is_ok());
        }
        assert_eq!(first.discarded_unparsable, second.discarded_unparsable);
        let other = mutant(&seeds, 43, 0, &mut Summary::default());
        let same_index = mutant(&seeds, 42, 0, &mut Summary::default());
        assert_ne!(other.text, same_index.text);
    }

    #[test]
    fn every_operator_fires_in_a_campaign() {
        let seeds = all_seeds();
        let mut summary = Summary::default();
        let mut seen = BTreeMap::new();
        for index in 0..400 {
            for operator in mutant(&seeds, 1, index, &mut summary).operators {
                *seen.entry(operator).or_insert(0) += 1;
            }
        }
        for operator in TOKEN_OPERATORS.iter().chain([&Operator::OtherItem]) {
            assert!(seen.contains_key(operator), "{operator:?} never kept");
        }
    }

    #[test]
    fn every_seed_has_a_name_of_its_own() {
        let seeds = all_seeds();
        let mut names: Vec<&str> = seeds.iter().map(|seed| seed.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), seeds.len());
        assert!(seeds.len() >= 30);
    }

    #[test]
    fn pieces_are_traced_back_by_line() {
        let runner_source = {
            let mut source = Source::default();
            source.push_shared(seeds::PRELUDE);
            let piece = Piece {
                name: "m7".to_string(),
                text: "fn f() {}".to_string(),
                generated: false,
            };
            source.push_piece(&piece.name, &piece.module());
            source
        };
        let line = seeds::PRELUDE.lines().count() + 2;
        assert_eq!(runner_source.piece_at(line), Some("m7"));
        assert_eq!(runner_source.piece_at(1), None);
    }

    #[test]
    fn keys_ignore_module_names() {
        assert_eq!(
            without_module_names("`m636::list_product: T` and `fm1::x` in m2"),
            "`m_::list_product: T` and `fm1::x` in m2"
        );
    }

    #[test]
    fn verdicts_rank_panics_first() {
        let diagnostic = |message: &str, expansion: Option<&str>, code: Option<&str>| Diagnostic {
            level: "error".to_string(),
            code: code.map(str::to_string),
            message: message.to_string(),
            rendered: format!("error: {message}\n  = help: message: boom\n"),
            line: Some(1),
            expansion: expansion.map(str::to_string),
        };
        let refusal = diagnostic("unsupported", None, None);
        let inside = diagnostic("mismatched types", Some("reverse"), Some("E0308"));
        let panic = diagnostic("custom attribute panicked", None, None);
        assert_eq!(
            Verdict::from_errors(vec![refusal.clone()]).class,
            Class::Rejected
        );
        assert_eq!(
            Verdict::from_errors(vec![refusal.clone(), inside.clone()]).class,
            Class::InsideGenerated
        );
        let verdict = Verdict::from_errors(vec![inside, panic, refusal]);
        assert_eq!(verdict.class, Class::Panic);
        assert_eq!(verdict.key(), "panic: boom");
        assert_eq!(Verdict::from_errors(Vec::new()).class, Class::Accepted);
    }
}
