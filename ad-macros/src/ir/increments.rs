//! Increments of a place: `s += e`, `t[j] = t[j] + e`, `t[j] -= e`. The backward sweep of
//! `place = place + e` takes the place's adjoint for the sum and then adds it back for the
//! place read: the adjoint passes through unchanged, and `e` gets it. Found here, the emitter
//! reads the adjoint instead (`de += dplace`), with no store of zero and no addition through
//! memory: Tapenade treats increments the same way. Switched by `residuals::Passes::increments`.
//!
//! An increment is a read of a place, used once, by an addition (or a subtraction from it)
//! used once, by an assignment to the same place, all three in one block with nothing between
//! the read and the assignment writing to the place's root. Moving the read's contribution up
//! to the assignment is then exact: between them, the backward sweep only adds to the place's
//! adjoint (the contributions of other reads of it), and additions commute.

use std::collections::HashMap;

use super::reads::key;
use super::*;

/// An increment `place = read + e` (or `read - e`), `read` a read of `place`.
pub struct Increment {
    pub sum: Value,
    pub read: Value,
    pub root: Root,
}

/// The increments of `body`.
pub fn increments(body: &Body) -> Vec<Increment> {
    let uses = use_counts(body);
    let definitions = definitions(&body.block);
    let used_once = |value: &Value| uses.get(value) == Some(&1);
    // Index values through copies (`ir::reads` makes a second `hidden + i` a copy of the
    // first), so that the read and the assignment name the same place.
    let place_key = |place: &Place| -> Option<String> {
        let mut canonical = place.clone();
        for projection in &mut canonical.projections {
            if let Projection::Index(Operand::Value(index)) = projection {
                *index = copied_value(&definitions, *index);
            }
        }
        key(&canonical)
    };
    let mut increments = Vec::new();
    for block in straight_blocks(body) {
        // The places read in this block and not written since, by key: the value read, used
        // once, and the place's root.
        let mut reads: HashMap<String, (Value, Root)> = HashMap::new();
        // Sums of such a read and another operand, used once: the read.
        let mut sums: HashMap<Value, Value> = HashMap::new();
        for stmt in &block.stmts {
            if let Stmt::Assign {
                place,
                operand: Operand::Value(sum),
                ..
            } = stmt
            {
                let place_read = place_key(place).and_then(|key| reads.get(&key));
                if let (Some(read), Some((place_read, _))) = (sums.get(sum), place_read) {
                    if read == place_read {
                        increments.push(Increment {
                            sum: *sum,
                            read: *read,
                            root: place.root,
                        });
                    }
                }
            }
            if let Some(root) = written_root(stmt) {
                reads.retain(|_, (_, read_root)| *read_root != root);
            }
            match stmt {
                Stmt::Let(Let {
                    value,
                    rvalue: Rvalue::Use(Operand::Place(place)),
                    ..
                }) if used_once(value) => {
                    if let Some(key) = place_key(place) {
                        reads.insert(key, (*value, place.root));
                    }
                }
                Stmt::Let(Let {
                    value,
                    rvalue: Rvalue::Binary(op, left, right),
                    ..
                }) if used_once(value) => {
                    let is_read = |operand: &Operand| match operand {
                        Operand::Value(read) => reads.values().any(|(kept, _)| kept == read),
                        _ => false,
                    };
                    let read = match op {
                        BinaryOp::Add if is_read(left) => Some(left),
                        BinaryOp::Add if is_read(right) => Some(right),
                        BinaryOp::Sub if is_read(left) => Some(left),
                        _ => None,
                    };
                    if let Some(Operand::Value(read)) = read {
                        sums.insert(*value, *read);
                    }
                }
                Stmt::Let(_)
                | Stmt::DeclareVar { .. }
                | Stmt::Assign { .. }
                | Stmt::Push { .. } => {}
                // What a nested block writes is not followed here.
                Stmt::If { .. }
                | Stmt::For { .. }
                | Stmt::Loop { .. }
                | Stmt::Checkpoint { .. } => reads.clear(),
            }
        }
    }
    increments
}
