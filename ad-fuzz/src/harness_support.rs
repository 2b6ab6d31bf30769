//! Compiled into every scratch crate as `mod fuzz_support` (its text is included by
//! `harness.rs`), and into `ad-fuzz` itself so that it stays valid and tested.
//!
//! For one function at one point it compares: the values of the primal, `_jvp`, `_vjp` and
//! `_grad`; forward against reverse by the dot-product identity `<c, J t> = <J^T c, t>`; and
//! `J t` against central differences along `t` where two step sizes agree.

#![allow(dead_code)]

use std::cell::RefCell;

/// SplitMix64: the points and directions a check uses, reproducible from the function's name.
pub struct Rng(u64);

impl Rng {
    pub fn for_function(name: &str, seed: u64) -> Rng {
        let mut state = seed ^ 0x9E37_79B9_7F4A_7C15;
        for byte in name.bytes() {
            state = (state ^ byte as u64).wrapping_mul(0x0100_0000_01B3);
        }
        Rng(state)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn uniform(&mut self, low: f64, high: f64) -> f64 {
        let unit = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        low + (high - low) * unit
    }

    pub fn floats(&mut self, len: usize, low: f64, high: f64) -> Vec<f64> {
        (0..len).map(|_| self.uniform(low, high)).collect()
    }
}

/// Values, tangents, cotangents and adjoints as flat lists of floats.
pub trait Flat {
    fn flat(&self) -> Vec<f64>;
    /// A random value of the same shape (a cotangent for a result of this type).
    fn random_like(&self, rng: &mut Rng) -> Self;
}

impl Flat for f64 {
    fn flat(&self) -> Vec<f64> {
        vec![*self]
    }
    fn random_like(&self, rng: &mut Rng) -> Self {
        rng.uniform(-1.0, 1.0)
    }
}

impl Flat for (f64, f64) {
    fn flat(&self) -> Vec<f64> {
        vec![self.0, self.1]
    }
    fn random_like(&self, rng: &mut Rng) -> Self {
        (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0))
    }
}

impl Flat for Vec<f64> {
    fn flat(&self) -> Vec<f64> {
        self.clone()
    }
    fn random_like(&self, rng: &mut Rng) -> Self {
        rng.floats(self.len(), -1.0, 1.0)
    }
}

impl<const N: usize> Flat for [f64; N] {
    fn flat(&self) -> Vec<f64> {
        self.to_vec()
    }
    fn random_like(&self, rng: &mut Rng) -> Self {
        std::array::from_fn(|_| rng.uniform(-1.0, 1.0))
    }
}

pub fn dot(left: &[f64], right: &[f64]) -> f64 {
    left.iter().zip(right).map(|(l, r)| l * r).sum()
}

/// The sum of the absolute values of the products: the scale of `dot`'s rounding error.
pub fn dot_scale(left: &[f64], right: &[f64]) -> f64 {
    left.iter().zip(right).map(|(l, r)| (l * r).abs()).sum()
}

/// `x + h t`, elementwise.
pub fn shifted(x: &[f64], t: &[f64], h: f64) -> Vec<f64> {
    x.iter().zip(t).map(|(x, t)| x + h * t).collect()
}

/// Values and derivatives beyond this are compared no more (see `check`).
pub const LARGEST: f64 = 1e10;

/// Values and derivatives beyond this are not compared with central differences.
pub const STEEPEST: f64 = 1e6;

/// What one function's check found at every point.
#[derive(Default, Debug)]
pub struct Tally {
    pub points: usize,
    /// Points where the primal was not finite.
    pub skipped: usize,
    /// Points where central differences were reliable and compared.
    pub against_differences: usize,
}

/// A failed check: its class (as the checker names it) and what differed.
#[derive(Debug)]
pub struct Failure {
    pub class: &'static str,
    pub detail: String,
}

fn fail(class: &'static str, detail: String) -> Failure {
    Failure { class, detail }
}

fn same_values(left: &[f64], right: &[f64]) -> bool {
    left.len() == right.len()
        && left.iter().zip(right).all(|(l, r)| {
            l.to_bits() == r.to_bits()
                || (l.is_nan() && r.is_nan())
                || (l - r).abs() <= 1e-14 * (1.0 + l.abs().max(r.abs()))
        })
}

/// Everything measured at one point. `differences(h)` evaluates the primal at `x + h t`.
pub struct Point<'a> {
    pub index: usize,
    pub primal: Vec<f64>,
    pub forward_value: Vec<f64>,
    pub tangent: Vec<f64>,
    pub reverse_value: Vec<f64>,
    pub cotangent: Vec<f64>,
    /// `<J^T c, t>`: the `_vjp` adjoints against the tangents.
    pub adjoint_dot_tangent: f64,
    /// Its rounding scale.
    pub adjoint_dot_scale: f64,
    /// `_grad`'s value and `<gradient, t>` when the result is a float.
    pub grad: Option<(f64, f64)>,
    /// `None` where differences cannot be trusted (see `harness::has_staircases`).
    pub differences: Option<&'a dyn Fn(f64) -> Vec<f64>>,
}

pub fn check(point: Point<'_>, tally: &mut Tally) -> Result<(), Failure> {
    tally.points += 1;
    if point
        .primal
        .iter()
        .any(|v| !v.is_finite() || v.abs() > LARGEST)
    {
        tally.skipped += 1;
        return Ok(());
    }
    let at = point.index;
    if !same_values(&point.primal, &point.forward_value) {
        return Err(fail(
            "wrong value",
            format!(
                "point {at}: _jvp value {:?} != primal {:?}",
                point.forward_value, point.primal
            ),
        ));
    }
    if !same_values(&point.primal, &point.reverse_value) {
        return Err(fail(
            "wrong value",
            format!(
                "point {at}: _vjp value {:?} != primal {:?}",
                point.reverse_value, point.primal
            ),
        ));
    }
    if let Some((value, _)) = point.grad {
        if !same_values(&point.primal, &[value]) {
            return Err(fail(
                "wrong value",
                format!(
                    "point {at}: _grad value {value} != primal {:?}",
                    point.primal
                ),
            ));
        }
    }
    if point
        .tangent
        .iter()
        .any(|t| !t.is_finite() || t.abs() > LARGEST)
        || !point.adjoint_dot_tangent.is_finite()
        || point.adjoint_dot_scale > LARGEST
    {
        // Infinite derivatives at this point (sqrt at 0, ...): nothing to compare. Huge ones
        // come from partials that cancel (a polynomial composed with itself reaches 1e58 and
        // differentiates to 1e22): the two modes add them in different orders, and their
        // roundings differ by more than the result; nothing to compare either.
        tally.skipped += 1;
        return Ok(());
    }
    let forward = dot(&point.cotangent, &point.tangent);
    let scale = dot_scale(&point.cotangent, &point.tangent) + point.adjoint_dot_scale;
    let tolerance = 1e-9 * scale + 1e-12;
    if (forward - point.adjoint_dot_tangent).abs() > tolerance {
        return Err(fail(
            "wrong derivative",
            format!(
                "point {at}: <c, J t> = {forward:e} by forward mode, <J^T c, t> = {:e} by \
                 reverse mode (c = {:?}, J t = {:?})",
                point.adjoint_dot_tangent, point.cotangent, point.tangent
            ),
        ));
    }
    if let Some((_, grad_dot_tangent)) = point.grad {
        let forward = point.tangent[0];
        if (forward - grad_dot_tangent).abs()
            > 1e-9 * (forward.abs() + grad_dot_tangent.abs()) + 1e-12
        {
            return Err(fail(
                "wrong derivative",
                format!(
                    "point {at}: J t = {forward:e} by forward mode, <gradient, t> = \
                     {grad_dot_tangent:e} by _grad"
                ),
            ));
        }
    }
    // Central differences along t with two step sizes; compared only where they agree (no kink
    // or branch switch nearby).
    let Some(differences) = point.differences else {
        return Ok(());
    };
    // Steep functions: a step of 1e-4 moves inner values by hundreds (a `sin` of them turns
    // many times within it), and both step sizes can agree on an aliased slope.
    let steep = |v: &f64| v.abs() > STEEPEST;
    if point.tangent.iter().any(steep) || point.primal.iter().any(steep) {
        return Ok(());
    }
    let central = |h: f64| -> Vec<f64> {
        let plus = differences(h);
        let minus = differences(-h);
        plus.iter()
            .zip(&minus)
            .map(|(p, m)| (p - m) / (2.0 * h))
            .collect()
    };
    let coarse = central(1e-4);
    let fine = central(1e-5);
    if coarse.len() != point.tangent.len() {
        return Ok(());
    }
    let magnitude = point.primal.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let mut compared = false;
    for ((c, f), t) in coarse.iter().zip(&fine).zip(&point.tangent) {
        let scale = 1.0 + f.abs() + 1e-6 * magnitude;
        if !c.is_finite() || !f.is_finite() || (c - f).abs() > 1e-5 * scale {
            continue;
        }
        compared = true;
        if (t - f).abs() > 1e-4 * scale + 10.0 * (c - f).abs() {
            return Err(fail(
                "wrong derivative",
                format!(
                    "point {at}: J t = {t:e} by both modes, central differences give {f:e} \
                     (h = 1e-4: {c:e})"
                ),
            ));
        }
    }
    if compared {
        tally.against_differences += 1;
    }
    Ok(())
}

thread_local! {
    /// What the check was running when a panic came: the primal or derivative code.
    pub static STAGE: RefCell<&'static str> = const { RefCell::new("") };
    pub static PANIC: RefCell<String> = const { RefCell::new(String::new()) };
}

pub fn stage(name: &'static str) {
    STAGE.with(|stage| *stage.borrow_mut() = name);
}

/// Runs each named check, printing one line per function:
/// `OK <name> <points> <skipped> <against differences>` or `FAIL <name> <class>\t<detail>`.
/// Seconds a function's check may take.
pub const CHECK_SECONDS: u64 = 10;

/// One function's check, as the driver writes it.
pub type Check = fn(&str) -> Result<Tally, Failure>;

pub fn run_all(checks: &[(&str, Check)]) {
    std::panic::set_hook(Box::new(|info| {
        let message = match info.payload().downcast_ref::<&str>() {
            Some(text) => text.to_string(),
            None => match info.payload().downcast_ref::<String>() {
                Some(text) => text.clone(),
                None => "panic".to_string(),
            },
        };
        let location = info
            .location()
            .map(|l| format!(" at line {}", l.line()))
            .unwrap_or_default();
        PANIC.with(|panic| *panic.borrow_mut() = format!("{message}{location}"));
    }));
    let only: Vec<String> = std::env::args().skip(1).collect();
    for (name, check) in checks {
        if !only.is_empty() && !only.iter().any(|wanted| wanted == name) {
            continue;
        }
        // Each check on its own thread, so a hang (a loop the reducer made endless, a
        // derivative that never returns) costs one function its result, not the batch.
        let (sender, receiver) = std::sync::mpsc::channel();
        let owned_name = name.to_string();
        let check = *check;
        std::thread::spawn(move || {
            let outcome = std::panic::catch_unwind(|| check(&owned_name));
            let stage = STAGE.with(|stage| *stage.borrow());
            let message = PANIC.with(|panic| panic.borrow().clone());
            let _ = sender.send((outcome, stage, message));
        });
        let Ok((outcome, stage, message)) =
            receiver.recv_timeout(std::time::Duration::from_secs(CHECK_SECONDS))
        else {
            println!("FAIL {name} timeout\tno result in {CHECK_SECONDS} s");
            continue;
        };
        match outcome {
            Ok(Ok(tally)) => println!(
                "OK {name} {} {} {}",
                tally.points, tally.skipped, tally.against_differences
            ),
            Ok(Err(failure)) => println!(
                "FAIL {name} {}\t{}",
                failure.class,
                failure.detail.replace('\n', " ")
            ),
            Err(_) => {
                let class = if stage == "primal" {
                    "primal panic"
                } else {
                    "run-time panic"
                };
                println!(
                    "FAIL {name} {class}\tin {stage}: {}",
                    message.replace('\n', " ")
                );
            }
        }
    }
    // Threads of checks that timed out may still run: end the process without them.
    std::process::exit(0);
}
