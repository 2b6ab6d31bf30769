//! Counters a loop steps by a constant: `l += 1` once per iteration, at the top level of the
//! body, and nowhere else in the loop. A read of the counter in iteration `k` is its value at
//! the loop's entry plus `k` steps (`k + 1` after the step), so the backward sweep computes it
//! from the backward loop's iteration number instead of keeping it: ADBench's GMM walks a
//! packed triangle with such a counter, and would otherwise keep one index per element.
//!
//! The pass reads the counter once before the loop (the entry, an ordinary value the backward
//! sweep keeps or computes again like any other) and records each read it describes.

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

/// Finds the counters of every loop, inserts their entries, and describes their reads.
pub fn find(body: &mut Body) -> HashMap<Value, Induction> {
    let mut inductions = HashMap::new();
    let mut block = std::mem::replace(
        &mut body.block,
        Block {
            stmts: Vec::new(),
            result: None,
        },
    );
    let mut loops_seen = 0;
    in_block(body, &mut block, &mut loops_seen, &mut inductions);
    body.block = block;
    inductions
}

fn in_block(
    body: &mut Body,
    block: &mut Block,
    loops_seen: &mut usize,
    inductions: &mut HashMap<Value, Induction>,
) {
    let mut entries = Vec::new();
    for (position, stmt) in block.stmts.iter_mut().enumerate() {
        match stmt {
            Stmt::For {
                body: loop_body, ..
            }
            | Stmt::Loop {
                body: loop_body, ..
            } => {
                let loop_index = *loops_seen;
                *loops_seen += 1;
                for counter in counters(loop_body) {
                    let info = body.var_info(counter.var);
                    let (name, span) = (info.name.clone(), info.span);
                    let entry = Value(body.values.len() as u32);
                    body.values.push(ValueInfo {
                        name: Some(name),
                        span,
                        ty: None,
                    });
                    entries.push((position, entry, counter.var, span));
                    for (read, after_step) in counter.reads {
                        inductions.insert(
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
                in_block(body, loop_body, loops_seen, inductions);
            }
            Stmt::If {
                then_branch,
                else_branch,
                ..
            } => {
                in_block(body, then_branch, loops_seen, inductions);
                in_block(body, else_branch, loops_seen, inductions);
            }
            _ => {}
        }
    }
    for (position, entry, var, span) in entries.into_iter().rev() {
        let read = Stmt::Let(Let {
            value: entry,
            rvalue: Rvalue::Use(Operand::Place(Place {
                root: Root::Var(var),
                projections: Vec::new(),
                span,
            })),
            span,
        });
        block.stmts.insert(position, read);
    }
}

struct Counter {
    var: Var,
    step: Constant,
    up: bool,
    /// Each read of the counter in the loop, and whether it follows the step.
    reads: Vec<(Value, bool)>,
}

/// The counters of a loop whose body is `body`.
fn counters(body: &Block) -> Vec<Counter> {
    // Every write to a variable anywhere in the body, and the reads of whole variables.
    let mut writes: HashMap<Var, usize> = HashMap::new();
    let mut definitions: HashMap<Value, &Rvalue> = HashMap::new();
    for_each_stmt(body, &mut |stmt| match stmt {
        Stmt::Let(Let { value, rvalue, .. }) => {
            definitions.insert(*value, rvalue);
            if let Rvalue::Take(Operand::Place(place)) = rvalue {
                if let Root::Var(var) = place.root {
                    *writes.entry(var).or_default() += 1;
                }
            }
        }
        Stmt::DeclareVar { var, .. } => *writes.entry(*var).or_default() += 1,
        Stmt::Assign { place, .. } | Stmt::Push { place, .. } => {
            if let Root::Var(var) = place.root {
                *writes.entry(var).or_default() += 1;
            }
        }
        _ => {}
    });
    let mut counters = Vec::new();
    for (position, stmt) in body.stmts.iter().enumerate() {
        let Stmt::Assign {
            place,
            operand: Operand::Value(stepped),
            ..
        } = stmt
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
        let reads_counter = |operand: &Operand| {
            let mut operand = operand;
            while let Operand::Value(value) = operand {
                match definitions.get(value) {
                    Some(Rvalue::Use(copied @ Operand::Value(_))) => operand = copied,
                    definition => return is_read_of(definition.copied(), var),
                }
            }
            false
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
        for (at, stmt) in body.stmts.iter().enumerate() {
            let mut visit = |stmt: &Stmt| {
                if let Stmt::Let(Let { value, rvalue, .. }) = stmt {
                    if is_read_of(Some(rvalue), var) {
                        reads.push((*value, at > position));
                    }
                }
            };
            visit_nested(stmt, &mut visit);
        }
        counters.push(Counter {
            var,
            step: step.clone(),
            up: *op == BinaryOp::Add,
            reads,
        });
    }
    counters
}

/// Whether an operation reads the whole variable `var`.
fn is_read_of(rvalue: Option<&Rvalue>, var: Var) -> bool {
    matches!(
        rvalue,
        Some(Rvalue::Use(Operand::Place(Place { root: Root::Var(read), projections, .. })))
            if *read == var && projections.is_empty()
    )
}
