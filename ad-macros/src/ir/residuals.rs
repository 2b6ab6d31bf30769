//! What the backward sweep reads of the forward sweep's values, and how it gets each one
//! back: a value of the function's top level is captured once; one defined inside a loop or a
//! branch is kept on a stack per run of its definition, unless it is cheap to compute again
//! from what the backward sweep has anyway (the store-or-recompute choice Tapenade and Enzyme
//! make). `-(x - 1.0)` inside a loop over a parameter `x` is recomputed at each backward
//! iteration instead of pushed and popped; so are the bindings of loops over ranges (the
//! backward loop counts down from the forward loop's trip count) and index arithmetic on them.

use std::collections::{HashMap, HashSet};

use super::induction::{Induction, Inductions, RowEntry};
use super::restore::Source;
use super::*;

/// The number of the function's own block, the first visited.
const TOP_BLOCK: usize = 1;

/// The optimizations of reverse mode's residuals, each of which can be switched off: the
/// derivatives must not change.
#[derive(Clone, Copy)]
pub struct Passes {
    /// Recompute cheap values inside loops and branches instead of keeping them: arithmetic,
    /// copies, loop counters (`ir::induction`), elements of local containers (`ir::restore`).
    pub recompute: bool,
    /// Reserve the stacks of a loop over a range once, for its trip count.
    pub reserve: bool,
    /// Read a place once while nothing writes to it (`ir::reads`).
    pub reuse_reads: bool,
    /// Keep the linear map a float method's rule gives (`exp`'s is its value) rather than its
    /// operands, from which the backward sweep would compute the rule again.
    pub keep_linear_maps: bool,
    /// Sum the adjoint of an element a loop reads at an invariant place in a local
    /// (`expand::reverse_ir::accumulators`).
    pub local_sums: bool,
    /// Give a local container whose length never changes its shadow at its full length when
    /// it is declared, so the backward sweep indexes it instead of growing it where reached
    /// (`ir::fixed_length_vars`).
    pub sized_shadows: bool,
    /// Assign a temporary adjoint its first contribution instead of adding it to zero, where
    /// that contribution is the first to run (`0.0 + x` is not `x` when `x` is `-0.0`, so the
    /// compiler keeps the addition).
    pub assign_first: bool,
    /// Add a callee's adjoint of an argument `&place` straight into the place's shadow, rather
    /// than into a zero of the argument's shape first (`ir::aliased_arguments`).
    pub alias_arguments: bool,
    /// Keep a value or pullback of a branch outside every loop in one slot (`ir::Slot`)
    /// instead of a stack, which allocates its first chunk on the first push.
    pub single_slots: bool,
    /// Pass the adjoint of a place through an increment `place += e` unchanged, rather than
    /// take it and add it back (`ir::increments`).
    pub increments: bool,
    /// Run the backward code of each iteration of a loop that only adds to one float right
    /// after its forward code, with a unit cotangent, and scale what it gives in the backward
    /// sweep (`ir::eager_sums`).
    pub eager_sums: bool,
    /// Run adjacent loops over the same range as one where each iteration touches only its
    /// own elements of what they write (`ir::loop_fusion`).
    pub fuse_loops: bool,
}

impl Passes {
    /// All on, unless the environment variable `AD_IR_PASSES` is `off` when the macro runs
    /// (to check that a pass changes no derivative).
    pub fn from_environment() -> Passes {
        let on = std::env::var("AD_IR_PASSES").map_or(true, |value| value != "off");
        Passes {
            recompute: on,
            reserve: on,
            reuse_reads: on,
            keep_linear_maps: on,
            local_sums: on,
            sized_shadows: on,
            assign_first: on,
            alias_arguments: on,
            single_slots: on,
            increments: on,
            eager_sums: on,
            fuse_loops: on,
        }
    }
}

#[derive(Clone, Copy)]
pub struct RangeBounds<'b> {
    pub start: &'b Operand,
    pub end: &'b Operand,
    pub inclusive: bool,
}

pub struct Residuals<'b> {
    passes: Passes,
    /// The blocks each value is defined in, outermost first, by number (the function's block
    /// is 1, so a value of the top level has one block, and one more per loop or branch
    /// around it): a value kept on a stack is popped where its block's backward code starts,
    /// before the backward code of anything defined after it in that block or in the blocks
    /// nested there.
    scope: HashMap<Value, Vec<usize>>,
    /// The blocks being visited, and how many have been.
    open_blocks: Vec<usize>,
    /// The blocks that are branches of an `if` (run at most once, maybe never).
    branches: HashSet<usize>,
    blocks_seen: usize,
    /// The operation that defines each value defined by a `Let`.
    definitions: HashMap<Value, &'b Rvalue>,
    /// The parameters held by reference that the pullback may borrow (in the borrowed
    /// companion): their elements are read again rather than kept.
    borrowable: HashSet<Value>,
    /// The binding of each `for` over a range `start..end` (or `start..=end`), and its bounds:
    /// the `k`-th iteration binds `start + k`, of the type of `end`.
    range_bounds: HashMap<Value, RangeBounds<'b>>,
    /// Elements of local containers the backward sweep may read again (`ir::restore`).
    container_reads: HashMap<Value, Source>,
    /// Reads of loop counters, computed from the loop's iteration number, and counters'
    /// entries into rows, computed row by row (`ir::induction`).
    inductions: Inductions,
    /// The bindings of loops run again in segments by a checkpoint schedule: the backward
    /// sweep's iteration numbers count from a segment's start, not the range's.
    scheduled_bindings: HashSet<Value>,
}

impl<'b> Residuals<'b> {
    pub fn new(
        body: &'b Body,
        passes: Passes,
        borrowable: HashSet<Value>,
        inductions: Inductions,
    ) -> Self {
        let mut residuals = Residuals {
            passes,
            borrowable,
            scope: HashMap::new(),
            open_blocks: Vec::new(),
            branches: HashSet::new(),
            blocks_seen: 0,
            definitions: definitions(&body.block),
            range_bounds: HashMap::new(),
            inductions,
            scheduled_bindings: scheduled_bindings(&body.block),
            container_reads: match passes.recompute {
                true => super::restore::sources(body),
                false => HashMap::new(),
            },
        };
        for root in &body.params {
            if let Root::Value(value) = root {
                residuals.scope.insert(*value, vec![TOP_BLOCK]);
            }
        }
        residuals.visit(&body.block);
        residuals
    }

    pub fn passes(&self) -> Passes {
        self.passes
    }

    fn visit(&mut self, block: &'b Block) {
        self.blocks_seen += 1;
        self.open_blocks.push(self.blocks_seen);
        for stmt in &block.stmts {
            if let Some(value) = defined_value(stmt) {
                self.scope.insert(value, self.open_blocks.clone());
            }
            match stmt {
                Stmt::If {
                    then_branch,
                    else_branch,
                    ..
                } => {
                    self.branches.insert(self.blocks_seen + 1);
                    self.visit(then_branch);
                    self.branches.insert(self.blocks_seen + 1);
                    self.visit(else_branch);
                }
                Stmt::For {
                    binding,
                    range,
                    body,
                    ..
                } => {
                    // Bound in the body's block, the next one visited.
                    self.scope
                        .entry(*binding)
                        .or_default()
                        .push(self.blocks_seen + 1);
                    self.note_range_bounds(*binding, range);
                    self.visit(body);
                }
                Stmt::Loop { body, .. } | Stmt::Checkpoint { body, .. } => self.visit(body),
                Stmt::Let(_)
                | Stmt::DeclareVar { .. }
                | Stmt::Assign { .. }
                | Stmt::Push { .. } => {}
            }
        }
        self.open_blocks.pop();
    }

    /// Notes the bounds of a `for` over a range whose binding the backward sweep may compute.
    fn note_range_bounds(&mut self, binding: Value, range: &'b Operand) {
        if self.scheduled_bindings.contains(&binding) {
            return;
        }
        let Operand::Value(range) = range else {
            return;
        };
        if let Some(Rvalue::Range {
            start: Some(start),
            end: Some(end),
            inclusive,
        }) = self.definitions.get(range)
        {
            // A bound that is a value gives the backward sweep the binding's type; literals
            // alone would be typed afresh there.
            if matches!(start, Operand::Value(_)) || matches!(end, Operand::Value(_)) {
                let bounds = RangeBounds {
                    start,
                    end,
                    inclusive: *inclusive,
                };
                self.range_bounds.insert(binding, bounds);
            }
        }
    }

    /// Whether `value` is defined at the function's top level (a parameter included): the
    /// pullback captures it.
    fn at_top_level(&self, value: Value) -> bool {
        self.scope.get(&value).is_some_and(|scope| scope.len() == 1)
    }

    /// Whether the backward sweep computes `value` again where it would take it back: it is
    /// defined inside a loop or a branch by cheap arithmetic whose operands are constants,
    /// values of the top level (captured anyway) or values recomputed themselves.
    pub fn recomputes(&self, value: Value) -> bool {
        if !self.passes.recompute || !self.scope.contains_key(&value) {
            return false;
        }
        if self.at_top_level(value) {
            return self.recomputes_at_top_level(value);
        }
        if let Some(bounds) = self.range_bounds.get(&value) {
            return self.has_bounds(bounds, value);
        }
        if let Some(row) = self.inductions.rows.get(&value) {
            let exit = Operand::Value(row.exit);
            return self.available(&exit) || self.defined_around(&exit, value, true);
        }
        // The entry is read once per run of the loop, however many iterations read the counter.
        if let Some(induction) = self.inductions.reads.get(&value) {
            let entry = Operand::Value(induction.entry);
            return self.available(&entry) || self.defined_around(&entry, value, true);
        }
        let Some(rvalue) = self.definitions.get(&value) else {
            return false;
        };
        if matches!(rvalue, Rvalue::Use(Operand::Place(_)))
            && !self.reads_parameter(value)
            && !self.container_reads.contains_key(&value)
        {
            return false;
        }
        // A copy, a cast, a negation or an element of a parameter reads no more than it would
        // keep: it may read a value kept for it (`t[j] * t[j]` keeps `t[j]` once; `x[l]` keeps
        // the index `l`, which the adjoint `dx[l]` reads anyway; `k as f64` in a loop inside
        // the loop over `k` keeps `k` once per run of the inner loop).
        let reads_kept = matches!(rvalue, Rvalue::Use(_) | Rvalue::Cast(..) | Rvalue::Neg(_));
        match operands_read_again(rvalue) {
            Some(operands) => operands.into_iter().all(|operand| {
                self.available(operand)
                    || (reads_kept && self.defined_around(operand, value, false))
            }),
            None => false,
        }
    }

    /// A value of the top level is captured once: computing it again instead trades one
    /// capture for another at worst, so only an operation on one value and constants
    /// (`1.0 + e`, `-x`), which saves a capture where that value is captured anyway (a callee
    /// called per iteration keeps one float less per call).
    fn recomputes_at_top_level(&self, value: Value) -> bool {
        let Some(rvalue) = self.definitions.get(&value) else {
            return false;
        };
        if matches!(rvalue, Rvalue::Use(Operand::Place(_))) {
            return false;
        }
        let Some(operands) = operands_read_again(rvalue) else {
            return false;
        };
        let values: Vec<&Value> = operands
            .iter()
            .filter_map(|operand| match operand {
                Operand::Value(operand) => Some(operand),
                _ => None,
            })
            .collect();
        operands
            .iter()
            .all(|operand| matches!(operand, Operand::Constant(_) | Operand::Value(_)))
            && values.len() <= 1
            && values
                .iter()
                .all(|operand| self.at_top_level(**operand) && !self.recomputes(**operand))
    }

    /// What the backward sweep reads to compute `value` again (it `recomputes` it): a loop
    /// counter's entry, a loop binding's bounds, or the operands of its operation.
    pub fn recomputed_from(&self, value: Value) -> Vec<Operand> {
        if let Some(induction) = self.inductions.reads.get(&value) {
            return vec![Operand::Value(induction.entry)];
        }
        if let Some(row) = self.inductions.rows.get(&value) {
            return vec![Operand::Value(row.exit)];
        }
        if let Some(bounds) = self.range_bounds.get(&value) {
            return vec![bounds.start.clone(), bounds.end.clone()];
        }
        let definition = self.definitions.get(&value).copied();
        definition
            .and_then(operands_read_again)
            .unwrap_or_default()
            .into_iter()
            .cloned()
            .collect()
    }

    /// How the backward sweep computes a read of a loop counter.
    pub fn induction(&self, value: Value) -> Option<&Induction> {
        self.inductions.reads.get(&value)
    }

    /// How the backward sweep computes a counter's entry into a row of an outer loop.
    pub fn row_entry(&self, value: Value) -> Option<&RowEntry> {
        self.inductions.rows.get(&value)
    }

    /// The counters' entries into the rows of the outer loop `outer_loop`, by number, in the
    /// order of their values.
    pub fn row_entries_of(&self, outer_loop: usize) -> Vec<(Value, &RowEntry)> {
        let mut entries: Vec<_> = self
            .inductions
            .rows
            .iter()
            .filter(|(_, row)| row.outer_loop == outer_loop)
            .map(|(entry, row)| (*entry, row))
            .collect();
        entries.sort_by_key(|(entry, _)| entry.0);
        entries
    }

    /// Forgets the row entries of the loops `outer_loop` takes: their backward code does not
    /// visit the rows last first (an eager loop's runs with each iteration's forward code).
    pub fn forget_rows_of(&mut self, outer_loop: impl Fn(usize) -> bool) {
        self.inductions
            .rows
            .retain(|_, row| !outer_loop(row.outer_loop));
    }

    /// Whether `operand` is a value defined in `user`'s block or a block around it: one the
    /// backward sweep has taken back from its stack where it computes `user` again. Across a
    /// branch only if `across_branches` (a branch may run less often than the block around
    /// it, so a value kept around it may cost more than the one kept inside).
    fn defined_around(&self, operand: &Operand, user: Value, across_branches: bool) -> bool {
        let Operand::Value(kept) = operand else {
            return false;
        };
        match (self.scope.get(kept), self.scope.get(&user)) {
            (Some(kept), Some(user)) => {
                user.starts_with(kept)
                    && (across_branches
                        || !user[kept.len()..]
                            .iter()
                            .any(|block| self.branches.contains(block)))
            }
            _ => false,
        }
    }

    /// Whether the backward sweep has `operand` without keeping it: a constant, a value of
    /// the top level (captured), or one it computes again.
    fn available(&self, operand: &Operand) -> bool {
        match operand {
            Operand::Constant(_) => true,
            Operand::Value(value) => self.at_top_level(*value) || self.recomputes(*value),
            Operand::Place(_) => false,
        }
    }

    /// The bounds of the range a recomputed loop binding runs over.
    pub fn range_bounds(&self, binding: Value) -> Option<RangeBounds<'b>> {
        self.range_bounds.get(&binding).copied()
    }

    /// The bounds to compute the trip count of a `for` over a range from, when the backward
    /// sweep has them and the loop cannot be left early: its count is the range's length,
    /// and need not be kept.
    pub fn count_bounds(&self, stmt: &Stmt) -> Option<RangeBounds<'b>> {
        let Stmt::For {
            binding,
            flags: None,
            ..
        } = stmt
        else {
            return None;
        };
        let bounds = self.range_bounds(*binding)?;
        (self.passes.recompute && self.has_bounds(&bounds, *binding)).then_some(bounds)
    }

    /// Whether the backward sweep has the bounds of the range `binding` runs over where the
    /// loop's backward code starts: each is available, or defined around the loop and then
    /// kept once per run of the loop (`for j in 0..v.len().min(w.len())` inside another loop,
    /// as `zip` runs), however many iterations the loop has.
    fn has_bounds(&self, bounds: &RangeBounds<'b>, binding: Value) -> bool {
        [bounds.start, bounds.end]
            .into_iter()
            .all(|bound| self.available(bound) || self.defined_around(bound, binding, true))
    }

    /// Where the backward sweep reads `value` again from, when it is an element of a local
    /// container.
    pub fn container_read(&self, value: Value) -> Option<Source> {
        self.container_reads.get(&value).copied()
    }

    /// Whether `value` is read from a parameter the pullback may borrow.
    pub fn reads_parameter(&self, value: Value) -> bool {
        matches!(
            self.definitions.get(&value),
            Some(Rvalue::Use(Operand::Place(Place { root: Root::Value(root), .. })))
                if self.borrowable.contains(root)
        )
    }

    /// The operation that defines `value`, for the backward sweep to compute it again.
    pub fn definition(&self, value: Value) -> Option<&'b Rvalue> {
        self.definitions.get(&value).copied()
    }
}

/// The bindings of the `for` loops that checkpoint schedules run in segments.
fn scheduled_bindings(block: &Block) -> HashSet<Value> {
    let mut bindings = HashSet::new();
    for_each_stmt(block, &mut |stmt| {
        if let Stmt::Checkpoint {
            body,
            schedule: Some(_),
            ..
        } = stmt
        {
            if let Some(Stmt::For { binding, .. }) = body.stmts.first() {
                bindings.insert(*binding);
            }
        }
    });
    bindings
}

/// What the backward sweep reads to compute an operation again, for the operations it may
/// compute again: cheap arithmetic, a copy, and an element of a parameter (its indices; the
/// borrowed companion's pullback borrows the parameter itself). `None` for any other.
fn operands_read_again(rvalue: &Rvalue) -> Option<Vec<&Operand>> {
    match rvalue {
        Rvalue::Use(Operand::Place(place)) => Some(
            place
                .projections
                .iter()
                .flat_map(Projection::operands)
                .collect(),
        ),
        Rvalue::Use(operand) | Rvalue::Neg(operand) | Rvalue::Cast(operand, _) => {
            Some(vec![operand])
        }
        Rvalue::Binary(BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul, left, right) => {
            Some(vec![left, right])
        }
        _ => None,
    }
}
