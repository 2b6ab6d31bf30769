//! Loops that only add to one float: `for ix in 0..n { ..; s += term; }`.
//!
//! Every iteration's backward code needs from after the loop only the cotangent of `s`, which
//! an increment passes through unchanged, so the same for every iteration. Each iteration's
//! backward code can then run right after its forward code, with a unit cotangent, into
//! adjoints of its own ("units") for what the loop reads from before it; the backward sweep
//! adds those in, times the cotangent of `s` (`ad_runtime::__private::ir::ScaledAdjoint`).
//! What the iteration keeps for its backward code is taken back at once, while it is in the
//! cache, and no state of a container outlives its iteration: the shape of ADBench's
//! hand-written GMM gradient, which differentiates each point where it is computed. Tapenade
//! calls the idea preaccumulation.
//!
//! Exact when, as found here:
//! * the loop is a `for` at the function's top level that runs to its end (no `break`,
//!   `continue` or `return` in it) and holds no checkpoint;
//! * one variable `s` from before the loop, declared with a float, is written in the loop only
//!   by increments (`ir::increments`) and read there only by them;
//! * every other variable from before the loop that the loop writes and that carries
//!   derivatives is scratch: written by assignments only, read nowhere after the loop, and
//!   read in an iteration only where that iteration wrote it first (`Coverage`). Its adjoint
//!   is then zero again at the end of each iteration's backward code, as each write takes it.
//!
//! Switched by `residuals::Passes::eager_sums`.

use std::collections::{HashMap, HashSet};

use super::activity::{operand_root, Activity};
use super::increments::Increment;
use super::*;

/// A loop whose iterations' backward code runs eagerly.
pub struct EagerSum {
    /// The loop's number, in preorder among the body's loops (as the emitter numbers them).
    pub loop_index: usize,
    /// The variable it adds to.
    pub sum: Var,
    /// What it reads from before it and adds adjoints to: each gets a unit adjoint, scaled
    /// into its own by the backward sweep.
    pub units: Vec<Root>,
    /// Variables from before it that it uses as scratch: their adjoints in the iterations'
    /// backward code are their own too, and zero after each.
    pub scratch: Vec<Var>,
    /// The units of what nothing after the loop reads or writes: nothing reaches their real
    /// adjoints before the loop's backward code would, so where the forward sweep already
    /// holds the real one (a parameter's, a sized shadow) it serves as the unit, scaled in
    /// place.
    pub in_place: Vec<Root>,
}

/// The loops of `body` whose iterations' backward code can run eagerly.
pub fn eager_sums(body: &Body, activity: &Activity, increments: &[Increment]) -> Vec<EagerSum> {
    let definitions = definitions(&body.block);
    let fixed_length = fixed_length_vars(body);
    let mut found = Vec::new();
    let mut loops_before = 0;
    for (position, stmt) in body.block.stmts.iter().enumerate() {
        let loop_index = loops_before;
        visit_nested(stmt, &mut |stmt| {
            if matches!(stmt, Stmt::For { .. } | Stmt::Loop { .. }) {
                loops_before += 1;
            }
        });
        let Stmt::For {
            body: loop_body,
            flags: None,
            ..
        } = stmt
        else {
            continue;
        };
        let candidate = Candidate {
            body,
            activity,
            increments,
            definitions: &definitions,
            fixed_length: &fixed_length,
            position,
            loop_body,
        };
        if let Some((sum, units, scratch)) = candidate.examine() {
            let in_place = units
                .iter()
                .copied()
                .filter(|root| !candidate.referenced_after_loop(*root))
                .collect();
            found.push(EagerSum {
                loop_index,
                sum,
                units,
                scratch,
                in_place,
            });
        }
    }
    found
}

struct Candidate<'a> {
    body: &'a Body,
    activity: &'a Activity,
    increments: &'a [Increment],
    definitions: &'a HashMap<Value, &'a Rvalue>,
    fixed_length: &'a HashSet<Var>,
    /// The loop's position among the top-level statements.
    position: usize,
    loop_body: &'a Block,
}

impl Candidate<'_> {
    fn examine(&self) -> Option<(Var, Vec<Root>, Vec<Var>)> {
        let mut inside = HashSet::new();
        let mut written = Vec::new();
        let mut checkpointed = false;
        for_each_stmt(self.loop_body, &mut |stmt| {
            match stmt {
                Stmt::DeclareVar { var, .. } => {
                    inside.insert(Root::Var(*var));
                }
                Stmt::For { binding, .. } => {
                    inside.insert(Root::Value(*binding));
                }
                Stmt::Checkpoint { .. } => checkpointed = true,
                _ => {}
            }
            if let Some(value) = defined_value(stmt) {
                inside.insert(Root::Value(value));
            }
            if let Some(root) = written_root(stmt) {
                written.push((root, stmt));
            }
        });
        if checkpointed {
            return None;
        }
        let carries = |root: &Root| self.activity.active.contains(root);
        // The writes from inside to what the loop does not declare, that carry derivatives.
        let outer_writes: Vec<(Root, &Stmt)> = written
            .into_iter()
            .filter(|(root, _)| !inside.contains(root) && carries(root))
            .collect();
        let increment_sums: HashMap<Value, &Increment> = self
            .increments
            .iter()
            .map(|increment| (increment.sum, increment))
            .collect();
        let is_increment = |root: Root, stmt: &Stmt| {
            matches!(stmt, Stmt::Assign { place, operand: Operand::Value(sum), .. }
                if place.projections.is_empty()
                    && increment_sums.get(sum).is_some_and(|increment| increment.root == root))
        };
        let mut roots: Vec<Root> = outer_writes.iter().map(|(root, _)| *root).collect();
        roots.sort();
        roots.dedup();
        let (sums, scratch): (Vec<Root>, Vec<Root>) = roots.into_iter().partition(|root| {
            outer_writes
                .iter()
                .filter(|(written, _)| written == root)
                .all(|(_, stmt)| is_increment(*root, stmt))
        });
        let [Root::Var(sum)] = sums[..] else {
            return None;
        };
        if !self.activity.useful.contains(&Root::Var(sum))
            || !self.declared_with_float(sum)
            || !self.read_only_by_increments(sum, &increment_sums)
        {
            return None;
        }
        let mut scratch_vars = Vec::new();
        for root in scratch {
            let Root::Var(var) = root else {
                return None;
            };
            let assigned_only = outer_writes
                .iter()
                .filter(|(written, _)| *written == root)
                .all(|(_, stmt)| matches!(stmt, Stmt::Assign { .. }));
            if !assigned_only || self.is_param(root) || self.read_after_loop(root) {
                return None;
            }
            scratch_vars.push(var);
        }
        let mut coverage = Coverage {
            candidate: self,
            scratch: &scratch_vars,
            loops: Vec::new(),
        };
        if !coverage.block(self.loop_body, &mut Facts::new()) {
            return None;
        }
        // What the loop reads from before it and adds adjoints to.
        let mut units = Vec::new();
        let mut note = |root: Root| {
            if !inside.contains(&root)
                && root != Root::Var(sum)
                && !matches!(root, Root::Var(var) if scratch_vars.contains(&var))
                && self.activity.useful.contains(&root)
                && !units.contains(&root)
            {
                units.push(root);
            }
        };
        for_each_stmt(self.loop_body, &mut |stmt| {
            for root in stmt_reads(stmt).into_iter().filter_map(operand_root) {
                note(root);
            }
        });
        if let Some(root) = self.loop_body.result.as_ref().and_then(operand_root) {
            note(root);
        }
        if units.iter().any(|root| self.is_in_out(*root)) {
            return None;
        }
        Some((sum, units, scratch_vars))
    }

    fn is_param(&self, root: Root) -> bool {
        self.body.params.contains(&root)
    }

    /// A `mut` parameter's variable: its adjoint starts with a cotangent of its own.
    fn is_in_out(&self, root: Root) -> bool {
        matches!(root, Root::Var(_)) && self.is_param(root)
    }

    /// `let mut s = 0.0;` or `let mut s: f64 = ..;` before the loop: its adjoint is the scalar
    /// type, by which the units are scaled.
    fn declared_with_float(&self, sum: Var) -> bool {
        if self.is_param(Root::Var(sum)) {
            return false;
        }
        let typed = self
            .body
            .var_info(sum)
            .ty
            .as_ref()
            .is_some_and(crate::ast::is_float_type);
        let declared = self.body.block.stmts[..self.position]
            .iter()
            .find_map(|stmt| match stmt {
                Stmt::DeclareVar { var, init } if *var == sum => Some(init),
                _ => None,
            });
        match declared {
            Some(Some(Operand::Constant(constant))) => {
                typed || constant.kind == ConstantKind::Float
            }
            Some(_) => typed,
            None => false,
        }
    }

    /// Whether the loop reads `sum` only for its increments.
    fn read_only_by_increments(&self, sum: Var, increments: &HashMap<Value, &Increment>) -> bool {
        let reads: HashSet<Value> = increments
            .values()
            .filter(|increment| increment.root == Root::Var(sum))
            .map(|increment| increment.read)
            .collect();
        let mut other_reads = false;
        for_each_stmt(self.loop_body, &mut |stmt| {
            let increment_read =
                matches!(stmt, Stmt::Let(Let { value, .. }) if reads.contains(value));
            if !increment_read && reads_root(stmt, Root::Var(sum)) {
                other_reads = true;
            }
        });
        !other_reads
    }

    /// Whether anything after the loop reads or writes `root`, or reads a reference to it
    /// taken before (a call given `&q` may add its adjoint straight to `q`'s shadow,
    /// `ir::aliased_arguments`).
    fn referenced_after_loop(&self, root: Root) -> bool {
        let borrows: Vec<Root> = self.borrows_of(root).collect();
        let mut referenced = false;
        for stmt in &self.body.block.stmts[self.position + 1..] {
            visit_nested(stmt, &mut |stmt| {
                referenced |= written_root(stmt) == Some(root)
                    || borrows.iter().any(|borrow| reads_root(stmt, *borrow));
            });
        }
        referenced || self.read_after_loop(root)
    }

    /// The values that are references to `root` (`&root`, `&root[..]`), through copies.
    fn borrows_of(&self, root: Root) -> impl Iterator<Item = Root> + '_ {
        self.definitions.iter().filter_map(move |(value, rvalue)| {
            matches!(through_copies(self.definitions, rvalue),
                Rvalue::Ref(Operand::Place(place)) if place.root == root)
            .then_some(Root::Value(*value))
        })
    }

    /// Whether anything after the loop reads `root`.
    fn read_after_loop(&self, root: Root) -> bool {
        let mut read = false;
        for stmt in &self.body.block.stmts[self.position + 1..] {
            visit_nested(stmt, &mut |stmt| read |= reads_root(stmt, root));
        }
        read || self
            .body
            .block
            .result
            .as_ref()
            .and_then(operand_root)
            .is_some_and(|result| result == root)
    }

    /// The value an index goes back to through copies.
    fn original(&self, operand: &Operand) -> Option<Value> {
        match operand {
            Operand::Value(value) => Some(copied_value(self.definitions, *value)),
            _ => None,
        }
    }

    /// The end of the range (exclusive) that defines `range`, and whether it starts at zero.
    fn range_end(&self, range: &Operand) -> Option<(String, bool)> {
        let (start, end) = range_keys(self.definitions, range)?;
        Some((end, matches!(start.as_str(), "0" | "0usize")))
    }

    /// The length a scratch variable is declared with, when it is built by repetition
    /// (`vec![0.0; n]`) and keeps its length.
    fn declared_length(&self, var: Var) -> Option<String> {
        if !self.fixed_length.contains(&var) {
            return None;
        }
        self.body.block.stmts.iter().find_map(|stmt| match stmt {
            Stmt::DeclareVar {
                var: declared,
                init: Some(init),
            } if *declared == var => match self.definitions.get(&self.original(init)?) {
                Some(Rvalue::Repeat(_, _, count)) => data_key(self.definitions, count),
                _ => None,
            },
            _ => None,
        })
    }
}

/// Whether `stmt` by itself reads `root` (as an operand, a place's root or index).
fn reads_root(stmt: &Stmt, root: Root) -> bool {
    stmt_reads(stmt)
        .into_iter()
        .any(|operand| operand_reads(operand, root))
}

fn operand_reads(operand: &Operand, root: Root) -> bool {
    match operand {
        Operand::Value(value) => Root::Value(*value) == root,
        Operand::Place(place) => {
            place.root == root
                || place
                    .projections
                    .iter()
                    .flat_map(Projection::operands)
                    .any(|index| operand_reads(index, root))
        }
        Operand::Constant(_) => false,
    }
}

/// What an iteration has written of a scratch variable so far, along one path.
#[derive(Clone, Default)]
struct Facts(HashMap<Var, Vec<Written>>);

#[derive(Clone, PartialEq)]
enum Written {
    /// The whole variable.
    All,
    /// Elements `0..end`, by the end's key.
    Below(String),
    /// The element at this index (by `ir::data_key`).
    At(String),
}

impl Facts {
    fn new() -> Facts {
        Facts::default()
    }

    fn add(&mut self, var: Var, written: Written) {
        self.0.entry(var).or_default().push(written);
    }

    fn has(&self, var: Var, written: &Written) -> bool {
        self.0
            .get(&var)
            .is_some_and(|facts| facts.contains(written))
    }
}

/// Checks that an iteration reads a scratch variable only where it has written it first: the
/// whole after an assignment of the whole; an element `v[j]` (and what is under it) after the
/// same element, or inside a loop `for j in a..end` after a loop `for i in 0..end` assigned
/// `v[i]` at its top level; anything of it after such a loop when it is built with length
/// `end` (`vec![0.0; end]`) and keeps it.
struct Coverage<'a> {
    candidate: &'a Candidate<'a>,
    scratch: &'a [Var],
    /// The loops around the code being checked, inside the iteration: binding, range end.
    loops: Vec<(Value, Option<String>)>,
}

impl Coverage<'_> {
    fn block(&mut self, block: &Block, facts: &mut Facts) -> bool {
        for stmt in &block.stmts {
            if !self.stmt(stmt, facts) {
                return false;
            }
        }
        block
            .result
            .as_ref()
            .is_none_or(|result| self.covered(result, facts))
    }

    fn stmt(&mut self, stmt: &Stmt, facts: &mut Facts) -> bool {
        // Operations whose result is data take no adjoint back from what they read.
        let reads_data_only = matches!(
            stmt,
            Stmt::Let(Let {
                rvalue: Rvalue::DataMethod { .. }
                    | Rvalue::DataBinary(..)
                    | Rvalue::Not(_)
                    | Rvalue::Matches(..)
                    | Rvalue::Macro { .. }
                    | Rvalue::Range { .. },
                ..
            })
        );
        if !reads_data_only
            && !stmt_operands(stmt)
                .into_iter()
                .all(|operand| self.covered(operand, facts))
        {
            return false;
        }
        match stmt {
            Stmt::Assign { place, .. } => {
                if let Root::Var(var) = place.root {
                    if self.scratch.contains(&var) {
                        match &place.projections[..] {
                            [] => facts.add(var, Written::All),
                            [Projection::Index(index)] => {
                                if let Some(index) = data_key(self.candidate.definitions, index) {
                                    facts.add(var, Written::At(index));
                                }
                            }
                            _ => {}
                        }
                    }
                }
                true
            }
            Stmt::If {
                then_branch,
                else_branch,
                ..
            } => {
                self.block(then_branch, &mut facts.clone())
                    && self.block(else_branch, &mut facts.clone())
            }
            Stmt::Loop { body, .. } => self.block(body, &mut facts.clone()),
            Stmt::For {
                binding,
                range,
                body,
                flags,
                ..
            } => {
                let range = self.candidate.range_end(range);
                self.loops
                    .push((*binding, range.as_ref().map(|(end, _)| end.clone())));
                let covered = self.block(body, &mut facts.clone());
                self.loops.pop();
                // A loop over `0..end` that assigns `v[j]` at its top level, with no early
                // exit, has written `v[0..end]`.
                if let (Some((end, true)), None) = (range, flags) {
                    for stmt in &body.stmts {
                        if let Stmt::Assign { place, .. } = stmt {
                            if let (Root::Var(var), [Projection::Index(index)]) =
                                (place.root, &place.projections[..])
                            {
                                if self.scratch.contains(&var)
                                    && self.candidate.original(index) == Some(*binding)
                                {
                                    // All of it, when that is its length.
                                    if self.candidate.declared_length(var).as_ref() == Some(&end) {
                                        facts.add(var, Written::All);
                                    }
                                    facts.add(var, Written::Below(end.clone()));
                                }
                            }
                        }
                    }
                }
                covered
            }
            Stmt::Checkpoint { .. } => false,
            Stmt::Let(_) | Stmt::DeclareVar { .. } | Stmt::Push { .. } => true,
        }
    }

    /// Whether reading `operand` reads only what the iteration wrote of scratch variables.
    fn covered(&self, operand: &Operand, facts: &Facts) -> bool {
        let Operand::Place(place) = operand else {
            return true;
        };
        let indices_covered = place
            .projections
            .iter()
            .flat_map(Projection::operands)
            .all(|index| self.covered(index, facts));
        let Root::Var(var) = place.root else {
            return indices_covered;
        };
        if !self.scratch.contains(&var) || facts.has(var, &Written::All) {
            return indices_covered;
        }
        let covered = match place.projections.first() {
            Some(Projection::Index(index)) => {
                let at = data_key(self.candidate.definitions, index);
                let within_loop = self.candidate.original(index).is_some_and(|index| {
                    self.loops.iter().any(|(binding, end)| {
                        *binding == index
                            && end
                                .as_ref()
                                .is_some_and(|end| facts.has(var, &Written::Below(end.clone())))
                    })
                });
                at.is_some_and(|at| facts.has(var, &Written::At(at))) || within_loop
            }
            _ => false,
        };
        covered && indices_covered
    }
}

#[cfg(test)]
mod tests {
    /// How many loops of `function` the reverse companion runs eagerly (one factor each).
    fn eager_loops(function: &str) -> usize {
        let item: proc_macro2::TokenStream = function.parse().expect("Rust");
        let expanded = crate::driver::reverse(proc_macro2::TokenStream::new(), item).to_string();
        let factors: std::collections::HashSet<String> = expanded
            .split("__ad_factor_")
            .skip(1)
            .map(|rest| rest.chars().take_while(char::is_ascii_digit).collect())
            .collect();
        factors.len()
    }

    #[test]
    fn summing_loops_are_found() {
        let scratch = "fn f(p: &[f64], n: usize) -> f64 {
            let mut c = vec![0.0; n];
            let mut m = vec![0.0; 3];
            let mut s = 0.0;
            for i in 0..p.len() {
                for k in 0..3 {
                    for j in 0..n { c[j] = p[i] * p[j]; }
                    let mut t = 0.0;
                    for j in 1..n { t += c[j] * c[j - 1]; }
                    for j in (k + 1)..n { c[j] += t; }
                    m[k] = t + c[0];
                }
                s += m[0] * m[1] + p[i];
            }
            s
        }";
        // `c` is written whole (`0..n` of `vec![0.0; n]`) before anything reads it.
        assert_eq!(eager_loops(scratch), 1);
        // Longer than that, only `c[j]` inside loops up to `n` and what was written at the
        // same index are known written: not `c[j - 1]`, nor `c[0]`.
        let longer = scratch.replace("vec![0.0; n]", "vec![0.0; n + 1]");
        assert_eq!(eager_loops(&longer), 0);
        let without_first = longer.replace("t + c[0]", "t");
        assert_eq!(eager_loops(&without_first), 0);
        assert_eq!(eager_loops(&without_first.replace("c[j - 1]", "c[j]")), 1);
        // The whole of `m` is read, and `m[0..3]` written: all of it only when that is the
        // length it is built with.
        let whole = scratch.replace("s += m[0] * m[1]", "s += g(&m)");
        assert_eq!(eager_loops(&whole), 1);
        let bigger = whole.replace("vec![0.0; 3]", "vec![0.0; 4]");
        assert_eq!(eager_loops(&bigger), 0);
    }

    #[test]
    fn loops_that_are_not_sums_are_left() {
        let read = "fn f(p: &[f64]) -> f64 {
            let mut s = 0.0;
            for i in 0..p.len() { s = s * 0.5 + p[i]; }
            s
        }";
        assert_eq!(eager_loops(read), 0);
        let after = "fn f(p: &[f64]) -> f64 {
            let mut c = vec![0.0; 2];
            let mut s = 0.0;
            for i in 0..p.len() { c[0] = p[i]; s += c[0]; }
            s + c[0]
        }";
        assert_eq!(eager_loops(after), 0);
        assert_eq!(eager_loops(&after.replace("s + c[0]", "s")), 1);
        let early = "fn f(p: &[f64]) -> f64 {
            let mut s = 0.0;
            for i in 0..p.len() { if p[i] > 1.0 { continue; } s += p[i]; }
            s
        }";
        assert_eq!(eager_loops(early), 0);
        let integer_sum = "fn f(p: &[f64]) -> f64 {
            let mut s = 0.0;
            let mut count = 0;
            for i in 0..p.len() { s += p[i]; count += 1; }
            s / count as f64
        }";
        assert_eq!(eager_loops(integer_sum), 1);
    }
}
