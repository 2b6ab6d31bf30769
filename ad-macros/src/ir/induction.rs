//! Counters a loop steps by a constant: `l += 1` once per iteration and nowhere else in the
//! loop. A read of the counter in iteration `k` is its value at the loop's entry plus `k`
//! steps (`k + 1` after the step), so the backward sweep computes it from the backward loop's
//! iteration number instead of keeping it: ADBench's GMM walks a packed triangle with such a
//! counter, and would otherwise keep one index per element.
//!
//! The step runs at every iteration when it sits at the top level of the body, or inside the
//! guards that only the loop's end skips: a `while` loop's body (skipped when the condition
//! fails, which ends the loop), and the rest of an iteration after a `break` (the lowering
//! guards it by `!skip`; a loop with a `continue` has no such guard, as `continue` skips the
//! rest and goes on). A read after such a guard, in the last iteration, may follow no step:
//! it is kept as any other value.
//!
//! The pass reads the counter once before the loop (the entry, an ordinary value the backward
//! sweep keeps or computes again like any other) and records each read it describes.
//!
//! When that loop is itself the whole of a row of an outer `for` (the triangle's `for j in
//! (i + 1)..d` inside `for i in 0..d`), and the counter changes nowhere else in the outer
//! loop, the entry of each row is the counter's value after the outer loop less the steps of
//! the rows after it: the pass reads the counter once after the outer loop too (the exit), and
//! the backward sweep, which visits the rows last first, steps back from the exit by each
//! row's trip count instead of keeping one entry per row.

use std::collections::HashMap;

use super::*;

/// How the backward sweep computes a read of a counter.
pub struct Induction {
    /// The counter's value before the loop.
    pub entry: Value,
    /// The step, an integer literal.
    pub step: Constant,
    /// `l += step` or `l -= step`.
    pub up: bool,
    /// Whether the read follows the step in its iteration.
    pub after_step: bool,
    /// The loop's number, in preorder as the emitter numbers loops.
    pub loop_index: usize,
}

/// How the backward sweep computes a counter's entry into a loop that is a row of an outer
/// loop: from the value it computed for the next row (the exit, for the last), less this
/// row's steps.
pub struct RowEntry {
    /// The counter's value after the outer loop.
    pub exit: Value,
    pub step: Constant,
    pub up: bool,
    /// The row's loop, whose trip count gives its steps, and the outer loop, by number.
    pub row_loop: usize,
    pub outer_loop: usize,
}

/// What the pass found: the counters' reads, and the entries computed row by row.
#[derive(Default)]
pub struct Inductions {
    pub reads: HashMap<Value, Induction>,
    pub rows: HashMap<Value, RowEntry>,
}

/// An outer `for` whose body is the block being visited, and how often its body writes each
/// variable.
struct OuterLoop {
    index: usize,
    writes: HashMap<Var, usize>,
}

/// Finds the counters of every loop, inserts their entries (and exits), and describes their
/// reads.
pub fn find(body: &mut Body) -> Inductions {
    let mut inductions = Inductions::default();
    let mut block = std::mem::replace(
        &mut body.block,
        Block {
            stmts: Vec::new(),
            result: None,
        },
    );
    let mut loops_seen = 0;
    in_block(body, &mut block, &mut loops_seen, &mut inductions, None);
    body.block = block;
    inductions
}

/// A read of a counter to insert: its value, variable and span.
type CounterRead = (Value, Var, Span);

/// Visits `block`, the body of `outer` if given, and gives the exits its rows ask the block
/// around `outer` to read after it.
fn in_block(
    body: &mut Body,
    block: &mut Block,
    loops_seen: &mut usize,
    inductions: &mut Inductions,
    outer: Option<&OuterLoop>,
) -> Vec<CounterRead> {
    let mut entries = Vec::new();
    let mut exits = Vec::new();
    let mut exits_asked = Vec::new();
    for (position, stmt) in block.stmts.iter_mut().enumerate() {
        let (loop_body, flags, is_for) = match stmt {
            Stmt::For { body, flags, .. } => (body, *flags, true),
            Stmt::Loop { body, flags, .. } => (body, Some(*flags), false),
            Stmt::If {
                then_branch,
                else_branch,
                ..
            } => {
                in_block(body, then_branch, loops_seen, inductions, None);
                in_block(body, else_branch, loops_seen, inductions, None);
                continue;
            }
            Stmt::Checkpoint {
                body: region,
                schedule: None,
                ..
            } => {
                in_block(body, region, loops_seen, inductions, None);
                continue;
            }
            // A loop a schedule runs in segments: a counter's value at a segment's start is
            // not its entry's, so none is computed; the loops inside are as any.
            Stmt::Checkpoint {
                body: region,
                schedule: Some(_),
                ..
            } => {
                for stmt in &mut region.stmts {
                    if let Stmt::For { body: inner, .. } | Stmt::Loop { body: inner, .. } = stmt {
                        *loops_seen += 1;
                        in_block(body, inner, loops_seen, inductions, None);
                    }
                }
                continue;
            }
            _ => continue,
        };
        let loop_index = *loops_seen;
        *loops_seen += 1;
        // A row runs its steps once per iteration of `outer`: a `for` that no `break` or
        // `continue` leaves early, at the top level of the outer loop's body.
        let row_of = outer.filter(|_| is_for && flags.is_none());
        for counter in counters(loop_body, flags) {
            let entry = new_read(body, counter.var);
            let span = body.value_info(entry).span;
            entries.push((position, (entry, counter.var, span)));
            if let Some(outer) = row_of.filter(|outer| outer.writes.get(&counter.var) == Some(&1)) {
                let exit = new_read(body, counter.var);
                exits_asked.push((exit, counter.var, span));
                let row = RowEntry {
                    exit,
                    step: counter.step.clone(),
                    up: counter.up,
                    row_loop: loop_index,
                    outer_loop: outer.index,
                };
                inductions.rows.insert(entry, row);
            }
            for (read, after_step) in counter.reads {
                inductions.reads.insert(
                    read,
                    Induction {
                        entry,
                        step: counter.step.clone(),
                        up: counter.up,
                        after_step,
                        loop_index,
                    },
                );
            }
        }
        let outer_here = (is_for && flags.is_none()).then(|| OuterLoop {
            index: loop_index,
            writes: writes_in(loop_body),
        });
        for exit in in_block(body, loop_body, loops_seen, inductions, outer_here.as_ref()) {
            exits.push((position, exit));
        }
    }
    // Inserted last first, so that each position is still the loop's; an exit after its loop,
    // an entry before.
    let mut insertions: Vec<(usize, bool, CounterRead)> = entries
        .into_iter()
        .map(|(position, read)| (position, false, read))
        .chain(
            exits
                .into_iter()
                .map(|(position, read)| (position, true, read)),
        )
        .collect();
    insertions.sort_by_key(|(position, after, _)| (*position, *after));
    for (position, after, (value, var, span)) in insertions.into_iter().rev() {
        let read = Stmt::Let(Let {
            value,
            rvalue: Rvalue::Use(Operand::Place(Place {
                root: Root::Var(var),
                projections: Vec::new(),
                span,
            })),
            span,
        });
        block.stmts.insert(position + usize::from(after), read);
    }
    exits_asked
}

/// A new value that reads the variable `var`, named after it.
fn new_read(body: &mut Body, var: Var) -> Value {
    let info = body.var_info(var);
    let (name, span) = (info.name.clone(), info.span);
    let value = Value(body.values.len() as u32);
    body.values.push(ValueInfo {
        name: Some(name),
        span,
        ty: None,
    });
    value
}

/// How many statements of `block`, and of the blocks nested in it, write each variable.
fn writes_in(block: &Block) -> HashMap<Var, usize> {
    let mut writes: HashMap<Var, usize> = HashMap::new();
    for_each_stmt(block, &mut |stmt| {
        if let Some(Root::Var(var)) = written_root(stmt) {
            *writes.entry(var).or_default() += 1;
        }
    });
    writes
}

struct Counter {
    var: Var,
    step: Constant,
    up: bool,
    /// Each read of the counter in the loop, and whether it follows the step.
    reads: Vec<(Value, bool)>,
}

/// The counters of a loop whose body is `body`, left early through `flags`.
fn counters(body: &Block, flags: Option<LoopFlags>) -> Vec<Counter> {
    // Every write to a variable anywhere in the body, and the operations.
    let writes = writes_in(body);
    let definitions = definitions(body);
    let guards = Guards {
        flags,
        definitions: &definitions,
        continues: flags.is_some_and(|flags| continues(body, flags)),
    };
    let mut counters = Vec::new();
    for path in guards.paths_to_assignments(body) {
        let Some(Stmt::Assign {
            place,
            operand: Operand::Value(stepped),
            ..
        }) = stmt_at(body, &path)
        else {
            continue;
        };
        let Root::Var(var) = place.root else {
            continue;
        };
        if !place.projections.is_empty() || writes.get(&var) != Some(&1) {
            continue;
        }
        let Some(Rvalue::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), left, right)) =
            definitions.get(stepped)
        else {
            continue;
        };
        // The read may reach the step through copies (a read reused by `ir::reads`).
        let reads_counter = |operand: &Operand| match operand {
            Operand::Value(value) => is_read_of(
                definitions
                    .get(value)
                    .map(|definition| through_copies(&definitions, definition)),
                var,
            ),
            _ => false,
        };
        let step = match (left, right) {
            (left, Operand::Constant(step)) if reads_counter(left) => step,
            (Operand::Constant(step), right) if *op == BinaryOp::Add && reads_counter(right) => {
                step
            }
            _ => continue,
        };
        if step.kind != ConstantKind::Data
            || syn::parse2::<syn::LitInt>(step.tokens.clone()).is_err()
        {
            continue;
        }
        let mut reads = Vec::new();
        reads_along(body, &path, var, &mut reads);
        counters.push(Counter {
            var,
            step: step.clone(),
            up: *op == BinaryOp::Add,
            reads,
        });
    }
    counters
}

/// What tells the guards that only the loop's end skips from other `if`s.
struct Guards<'b> {
    flags: Option<LoopFlags>,
    definitions: &'b HashMap<Value, &'b Rvalue>,
    /// Whether the body has a `continue` (sets `skip` without `broken`).
    continues: bool,
}

impl Guards<'_> {
    /// The paths (statement indices, one per block) to the assignments that run at every
    /// iteration but, perhaps, the last: at the top level, or inside guards.
    fn paths_to_assignments(&self, block: &Block) -> Vec<Vec<usize>> {
        let mut paths = Vec::new();
        for (at, stmt) in block.stmts.iter().enumerate() {
            match stmt {
                Stmt::Assign { .. } => paths.push(vec![at]),
                Stmt::If {
                    cond,
                    then_branch,
                    else_branch,
                    ..
                } if self.guards(cond, else_branch) => {
                    for mut path in self.paths_to_assignments(then_branch) {
                        path.insert(0, at);
                        paths.push(path);
                    }
                }
                _ => {}
            }
        }
        paths
    }

    /// Whether `if cond { .. } else { otherwise }` skips its branch only when the loop ends: a
    /// `while` loop's test (`otherwise` stops the loop), or the guard `!skip` after a `break`
    /// in a loop without `continue`.
    fn guards(&self, cond: &Operand, otherwise: &Block) -> bool {
        let Some(flags) = self.flags else {
            return false;
        };
        let stops = otherwise
            .stmts
            .iter()
            .any(|stmt| assigns(stmt, flags.broken, true));
        let not_skipped = match cond {
            Operand::Value(value) => match self.definitions.get(value) {
                Some(Rvalue::Not(Operand::Value(read))) => {
                    is_read_of(self.definitions.get(read).copied(), flags.skip)
                }
                _ => false,
            },
            _ => false,
        };
        stops || (not_skipped && !self.continues)
    }
}

/// Whether the body of the loop with `flags` has a `continue`: a block that sets `skip` and
/// not `broken`.
fn continues(body: &Block, flags: LoopFlags) -> bool {
    let mut found = false;
    let mut check = |block: &Block| {
        let skips = block
            .stmts
            .iter()
            .any(|stmt| assigns(stmt, flags.skip, true));
        let stops = block
            .stmts
            .iter()
            .any(|stmt| assigns(stmt, flags.broken, true));
        found |= skips && !stops;
    };
    check(body);
    for_each_stmt(body, &mut |stmt| {
        if let Stmt::If {
            then_branch,
            else_branch,
            ..
        } = stmt
        {
            check(then_branch);
            check(else_branch);
        }
    });
    found
}

/// Whether `stmt` assigns the constant `value` to the flag `var`.
fn assigns(stmt: &Stmt, var: Var, value: bool) -> bool {
    matches!(
        stmt,
        Stmt::Assign { place, operand: Operand::Constant(constant), .. }
            if place.root == Root::Var(var)
                && place.projections.is_empty()
                && constant.tokens.to_string() == value.to_string()
    )
}

/// The statement at `path`, through the `then` branches of the guards on it.
fn stmt_at<'b>(block: &'b Block, path: &[usize]) -> Option<&'b Stmt> {
    let stmt = block.stmts.get(*path.first()?)?;
    match (stmt, path.len()) {
        (_, 1) => Some(stmt),
        (Stmt::If { then_branch, .. }, _) => stmt_at(then_branch, &path[1..]),
        _ => None,
    }
}

/// The reads of `var` in `block` that run in the iteration before or after the step at
/// `path`, and which: before it in its block or in a block around it, or after it in its own
/// block. A read after a guard around the step may follow no step (in the last iteration): not
/// taken.
fn reads_along(block: &Block, path: &[usize], var: Var, reads: &mut Vec<(Value, bool)>) {
    for (at, stmt) in block.stmts.iter().enumerate() {
        let mut visit = |after_step: bool| {
            let mut note = |stmt: &Stmt| {
                if let Stmt::Let(Let { value, rvalue, .. }) = stmt {
                    if is_read_of(Some(rvalue), var) {
                        reads.push((*value, after_step));
                    }
                }
            };
            visit_nested(stmt, &mut note);
        };
        match (at.cmp(&path[0]), path.len()) {
            (std::cmp::Ordering::Less, _) => visit(false),
            (std::cmp::Ordering::Greater, 1) => visit(true),
            (std::cmp::Ordering::Equal, length) if length > 1 => {
                if let Stmt::If { then_branch, .. } = stmt {
                    reads_along(then_branch, &path[1..], var, reads);
                }
            }
            _ => {}
        }
    }
}

/// Whether an operation reads the whole variable `var`.
fn is_read_of(rvalue: Option<&Rvalue>, var: Var) -> bool {
    matches!(
        rvalue,
        Some(Rvalue::Use(Operand::Place(Place { root: Root::Var(read), projections, .. })))
            if *read == var && projections.is_empty()
    )
}
