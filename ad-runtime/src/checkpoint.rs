//! Checkpointing: trading recomputation for memory in reverse mode (seed `004`, section 5.2).
//!
//! A checkpointed region runs primal-only when first reached, keeping only its inputs; when
//! the backward sweep reaches it, it is run again from those inputs, this time recording what
//! its backward sweep needs. Loops take a schedule:
//!
//! * `#[checkpoint(every = k)]` keeps the loop's state every `k` iterations; the backward sweep
//!   re-runs one segment of `k` iterations at a time. Memory: `n / k` states and `k`
//!   iterations' records; time: one extra forward run of the loop.
//! * `#[checkpoint(binomial, snapshots = s)]` is Griewank's revolve: at most `s` states are kept
//!   at any time, and the loop of `n` iterations is reversed with the fewest forward
//!   recomputations, [`binomial_recomputations`]`(n, s)`. Memory: `s` states and one
//!   iteration's record; time: about `r` extra forward runs, where `r` is the smallest number
//!   with `C(s + r, s) >= n` (for `s = 32`, `r = 7` up to `n = 1.5 * 10^7`).
//!
//! The counts of re-run iterations are observable per thread ([`counts`]), for tests and
//! benchmarks.
//!
//! ```
//! use ad_runtime::checkpoint::binomial_recomputations;
//!
//! // With one snapshot, reversing n steps re-advances n(n-1)/2 steps.
//! assert_eq!(binomial_recomputations(10, 1), 45);
//! // With 32 snapshots, a million steps cost 5.5 forward runs:
//! // r = 6 since C(38, 32) >= 10^6 > C(37, 32), and 6 * 10^6 - C(38, 33) steps.
//! assert_eq!(binomial_recomputations(1_000_000, 32), 5_498_058);
//! ```

use std::cell::Cell;

/// How a checkpointed loop keeps its state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// A state every `k` iterations.
    Every(usize),
    /// Griewank's binomial schedule (revolve) with this many states at most.
    Binomial(usize),
}

/// Iterations re-run by the backward sweeps of checkpointed loops on this thread since the
/// last [`reset_counts`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Iterations run primal-only again, to move a state forward.
    pub advanced: u64,
    /// Iterations run again while recording, to be reversed.
    pub recorded: u64,
}

thread_local! {
    static COUNTS: Cell<Counts> = const { Cell::new(Counts { advanced: 0, recorded: 0 }) };
}

/// The counts of this thread.
///
/// ```
/// use ad_runtime::checkpoint::{counts, reset_counts, Counts};
/// reset_counts();
/// assert_eq!(counts(), Counts::default());
/// ```
pub fn counts() -> Counts {
    COUNTS.with(Cell::get)
}

/// Sets this thread's counts to zero.
pub fn reset_counts() {
    COUNTS.with(|counts| counts.set(Counts::default()));
}

fn add_counts(advanced: usize, recorded: usize) {
    COUNTS.with(|counts| {
        let mut value = counts.get();
        value.advanced += advanced as u64;
        value.recorded += recorded as u64;
        counts.set(value);
    });
}

/// `C(c + r, c)`: the most steps `c` snapshots reverse with each step advanced at most `r`
/// times (Griewank and Walther, "Algorithm 799: revolve"). Saturates at `u128::MAX`.
pub fn beta(c: usize, r: usize) -> u128 {
    let (small, total) = (c.min(r) as u128, (c + r) as u128);
    let mut value: u128 = 1;
    for i in 0..small {
        value = match value.checked_mul(total - i) {
            Some(product) => product / (i + 1),
            None => return u128::MAX,
        };
    }
    value
}

/// The smallest `r` with `C(s + r, s) >= n`: how many times, at most, a binomial schedule with
/// `s` snapshots runs each of `n` iterations forward again.
///
/// ```
/// use ad_runtime::checkpoint::repetitions;
/// assert_eq!(repetitions(10_000_000, 32), 7);
/// ```
pub fn repetitions(n: usize, snapshots: usize) -> usize {
    let mut r = 0;
    while beta(snapshots, r) < n as u128 {
        r += 1;
    }
    r
}

/// The fewest forward steps that reverse `n` steps with `snapshots` states (the first of them
/// the initial state): `r n - C(s + r, s + 1)` with `r = repetitions(n, s)`.
pub fn binomial_recomputations(n: usize, snapshots: usize) -> u64 {
    if n <= 1 {
        return 0;
    }
    let snapshots = snapshots.max(1);
    if snapshots == 1 {
        return (n as u64) * (n as u64 - 1) / 2;
    }
    let r = repetitions(n, snapshots);
    let total = (r as u128) * (n as u128) - beta(snapshots + 1, r - 1);
    total as u64
}

/// `C(c + r, c)` for every `c <= snapshots` and `r <= repetitions`, saturating, built once per
/// reversal by Pascal's rule `beta(c, r) = beta(c, r - 1) + beta(c - 1, r)`: the schedule asks
/// for these at every one of its O(n) decisions.
struct Binomials {
    columns: usize,
    values: Vec<u64>,
}

impl Binomials {
    fn new(snapshots: usize, repetitions: usize) -> Self {
        let columns = repetitions + 2;
        let mut values = vec![1u64; (snapshots + 1) * columns];
        for c in 1..=snapshots {
            for r in 1..columns {
                values[c * columns + r] =
                    values[c * columns + r - 1].saturating_add(values[(c - 1) * columns + r]);
            }
        }
        Binomials { columns, values }
    }

    fn beta(&self, c: usize, r: usize) -> u64 {
        self.values[c * self.columns + r.min(self.columns - 1)]
    }

    fn repetitions(&self, len: usize, snapshots: usize) -> usize {
        (0..self.columns)
            .find(|&r| self.beta(snapshots, r) >= len as u64)
            .unwrap_or(self.columns - 1)
    }

    /// Where to place the next state when reversing `len` steps with `snapshots` states: the
    /// number of steps to advance first.
    ///
    /// The total cost of advancing `a` steps, `a + t(len - a, s - 1) + t(a, s)`, is convex in
    /// `a`, with forward difference `1 + r(a + 1, s) - r(len - a, s - 1)` (`r` the repetition
    /// number). The optimum is the first `a` where that difference is not negative; for each
    /// possible `rho = r(a + 1, s)` the admissible `a` form an interval, so the first one is
    /// found in `O(r)` table lookups.
    fn split(&self, len: usize, snapshots: usize) -> usize {
        let r = self.repetitions(len, snapshots);
        let clamp = |value: u64| value.min(len as u64) as usize;
        (1..=r)
            .filter_map(|rho| {
                let low = 1
                    .max(clamp(self.beta(snapshots, rho - 1)))
                    .max(len.saturating_sub(clamp(self.beta(snapshots - 1, rho + 1))));
                let high = (len - 1).min(clamp(self.beta(snapshots, rho)).saturating_sub(1));
                (low <= high).then_some(low)
            })
            .min()
            .unwrap_or(len - 1)
    }
}

/// The states a checkpointed loop keeps during its primal run, with the schedule that decides
/// which. Made and used by generated code.
#[derive(Debug)]
pub struct Checkpoints<State> {
    schedule: Schedule,
    states: Vec<(usize, State)>,
    iterations: usize,
}

impl<State: Clone> Checkpoints<State> {
    /// No state yet.
    pub fn new(schedule: Schedule) -> Self {
        Checkpoints {
            schedule,
            states: Vec::new(),
            iterations: 0,
        }
    }

    /// Called before iteration `index` runs; keeps the state when the schedule says so.
    #[inline]
    pub fn before_iteration(&mut self, index: usize, state: impl FnOnce() -> State) {
        let keep = match self.schedule {
            Schedule::Every(k) => index.is_multiple_of(k.max(1)),
            Schedule::Binomial(_) => index == 0,
        };
        if keep {
            self.states.push((index, state()));
        }
    }

    /// Called after the loop: how many iterations ran.
    pub fn finish(&mut self, iterations: usize) {
        self.iterations = iterations;
    }

    /// The backward sweep of the loop. `advance(state, k)` runs `k` iterations primal-only and
    /// returns the state after them; `reverse(state, k)` runs `k` iterations while recording
    /// and back-propagates through them (from the adjoints of the state after them to those of
    /// `state`).
    pub fn reverse(
        self,
        mut advance: impl FnMut(State, usize) -> State,
        mut reverse: impl FnMut(State, usize),
    ) {
        let n = self.iterations;
        match self.schedule {
            Schedule::Every(k) => {
                for (start, state) in self.states.into_iter().rev() {
                    let len = k.max(1).min(n.saturating_sub(start));
                    if len > 0 {
                        add_counts(0, len);
                        reverse(state, len);
                    }
                }
            }
            Schedule::Binomial(snapshots) => {
                if let Some((_, initial)) = self.states.into_iter().next() {
                    let snapshots = snapshots.max(1);
                    let table = Binomials::new(snapshots, repetitions(n, snapshots) + 1);
                    revolve(&table, initial, n, snapshots, &mut advance, &mut reverse);
                }
            }
        }
    }
}

/// Reverses `len` steps from `state` with `snapshots` states (`state` is the first of them).
fn revolve<State: Clone>(
    table: &Binomials,
    state: State,
    len: usize,
    snapshots: usize,
    advance: &mut dyn FnMut(State, usize) -> State,
    reverse: &mut dyn FnMut(State, usize),
) {
    match len {
        0 => {}
        1 => {
            add_counts(0, 1);
            reverse(state, 1);
        }
        _ if snapshots == 1 => {
            for last in (0..len).rev() {
                add_counts(last, 1);
                let moved = advance(state.clone(), last);
                reverse(moved, 1);
            }
        }
        _ => {
            let steps = table.split(len, snapshots);
            add_counts(steps, 0);
            let middle = advance(state.clone(), steps);
            revolve(table, middle, len - steps, snapshots - 1, advance, reverse);
            revolve(table, state, steps, snapshots, advance, reverse);
        }
    }
}

/// What a checkpoint keeps must be copied out and live on its own.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be kept by `#[checkpoint]`",
    label = "a checkpointed region reads this value, which is not `Copy + 'static`",
    note = "a checkpoint saves the region's inputs to run it again later; it can save numbers, \
            bools and other `Copy` values that borrow nothing"
)]
pub trait Snapshot: Copy + 'static {}

impl<T: Copy + 'static> Snapshot for T {}

/// Saves a value for a checkpoint.
#[doc(hidden)]
#[inline(always)]
pub fn snapshot<T: Snapshot>(value: T) -> T {
    value
}

/// What a `#[checkpoint] fn` keeps of a parameter passed by shared reference: an owned copy
/// (a slice's `Vec`, a `Clone` struct's clone), which the recomputation borrows again.
///
/// ```
/// use ad_runtime::checkpoint::KeptBorrowed;
///
/// let kept: Vec<f64> = [1.0_f64, 2.0][..].kept();
/// assert_eq!(kept, [1.0, 2.0]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`#[checkpoint]` cannot keep a copy of `{Self}`",
    label = "a #[checkpoint] function keeps a copy of each argument, to run again later",
    note = "it copies floats, containers of floats and other `Clone` values that borrow \
            nothing: implement `Clone` for this type, or write #[reverse] instead of #[checkpoint]"
)]
pub trait KeptBorrowed {
    /// The copy kept.
    type Owned: 'static;
    /// Copies the value.
    fn kept(&self) -> Self::Owned;
}

impl<T: ?Sized + ToOwned> KeptBorrowed for T
where
    T::Owned: 'static,
{
    type Owned = T::Owned;
    fn kept(&self) -> T::Owned {
        self.to_owned()
    }
}

/// Copies a parameter passed by reference for a `#[checkpoint] fn`.
#[doc(hidden)]
#[inline(always)]
pub fn snapshot_borrowed<T: ?Sized + KeptBorrowed>(value: &T) -> T::Owned {
    value.kept()
}

/// What a checkpointed region of reverse mode on the AD-IR keeps of the values and variables
/// it reads from the code before it: a copy, which must borrow nothing.
///
/// ```
/// use ad_runtime::checkpoint::Kept;
///
/// fn keeps<T: Kept>(_: &T) {}
/// keeps(&vec![1.0_f64, 2.0]); // a container of numbers is copied
/// keeps(&(3_usize, 0.5_f64));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be kept by `#[checkpoint]`",
    label = "a checkpointed region reads this value, which is not `Clone + 'static`",
    note = "a checkpoint keeps copies of the values its region reads from before it, to run it \
            again later; it can copy numbers, containers of numbers and other `Clone` values \
            that borrow nothing: copy borrowed data into a local before the region"
)]
pub trait Kept: Clone + 'static {}

impl<T: Clone + 'static> Kept for T {}

/// Copies a value for a checkpoint.
#[doc(hidden)]
#[inline(always)]
pub fn snapshot_of<T: Kept>(value: &T) -> T {
    value.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The optimal cost by dynamic programming over every split, for small cases.
    fn optimal(
        len: usize,
        snapshots: usize,
        memo: &mut std::collections::HashMap<(usize, usize), u64>,
    ) -> u64 {
        if len <= 1 {
            return 0;
        }
        if snapshots == 1 {
            return (len * (len - 1) / 2) as u64;
        }
        if let Some(&cost) = memo.get(&(len, snapshots)) {
            return cost;
        }
        let cost = (1..len)
            .map(|advance| {
                advance as u64
                    + optimal(len - advance, snapshots - 1, memo)
                    + optimal(advance, snapshots, memo)
            })
            .min()
            .expect("len >= 2");
        memo.insert((len, snapshots), cost);
        cost
    }

    #[test]
    fn the_formula_is_the_optimum() {
        let mut memo = std::collections::HashMap::new();
        for snapshots in 1..6 {
            for len in 0..120 {
                assert_eq!(
                    binomial_recomputations(len, snapshots),
                    optimal(len, snapshots, &mut memo),
                    "len {len}, snapshots {snapshots}"
                );
            }
        }
    }

    #[test]
    fn revolve_reverses_every_step_once_in_order_at_the_optimal_cost() {
        for snapshots in 1..7 {
            for len in 0..200 {
                reset_counts();
                let mut reversed = Vec::new();
                let mut checkpoints = Checkpoints::new(Schedule::Binomial(snapshots));
                checkpoints.before_iteration(0, || 0usize);
                checkpoints.finish(len);
                checkpoints.reverse(
                    |state, k| state + k,
                    |state, k| {
                        assert_eq!(k, 1);
                        reversed.push(state);
                    },
                );
                assert_eq!(reversed, (0..len).rev().collect::<Vec<_>>());
                let counts = counts();
                assert_eq!(counts.recorded, len as u64);
                assert_eq!(
                    counts.advanced,
                    binomial_recomputations(len, snapshots),
                    "len {len}, s {snapshots}"
                );
            }
        }
    }

    #[test]
    fn every_k_reverses_segments_from_the_last() {
        for k in 1..6 {
            for len in 0..30 {
                reset_counts();
                let mut checkpoints = Checkpoints::new(Schedule::Every(k));
                for i in 0..len {
                    checkpoints.before_iteration(i, || i);
                }
                checkpoints.finish(len);
                let mut reversed = Vec::new();
                checkpoints.reverse(
                    |_, _| unreachable!("every-k never advances"),
                    |start, n| {
                        reversed.extend((start..start + n).rev());
                    },
                );
                assert_eq!(reversed, (0..len).rev().collect::<Vec<_>>());
                assert_eq!(
                    counts(),
                    Counts {
                        advanced: 0,
                        recorded: len as u64
                    }
                );
            }
        }
    }
}
