//! Adjacent loops over the same range run as one: `for j in 0..d { c[j] = .. }` then
//! `for j in 0..d { t[j] = q[j] * c[j] }` become one loop whose iteration `j` does both. The
//! backward sweep then has one loop where it had two (half the loop overhead, and the adjoint
//! of `c[j]` is used while it is in a register), as a hand-written adjoint would be written.
//!
//! Exact when each iteration of either loop touches, of what either writes, only its own
//! element: every access to a root written in either body is an element at the loop's own
//! binding (`c[j]`, `c[j].x`, `m[j][k]`), so iteration `j` of the second loop reads only what
//! iteration `j` of the first wrote, and no iteration of the first reads what an earlier
//! iteration of the second wrote. Bodies that call functions or macros (which may have effects
//! whose order shows) or that can leave early are left alone. Switched by
//! `residuals::Passes::fuse_loops`.

use std::collections::{HashMap, HashSet};

use super::*;

pub fn fuse_loops(body: &mut Body) {
    let ranges = range_keys(&body.block);
    fuse_in(&mut body.block, &ranges);
}

/// The bounds of each range value (`a..b`, exclusive), by key (`ir::range_keys`).
fn range_keys(block: &Block) -> HashMap<Value, (String, String)> {
    let definitions = definitions(block);
    definitions
        .keys()
        .filter_map(|value| {
            Some((
                *value,
                super::range_keys(&definitions, &Operand::Value(*value))?,
            ))
        })
        .collect()
}

fn fuse_in(block: &mut Block, ranges: &HashMap<Value, (String, String)>) {
    for stmt in &mut block.stmts {
        match stmt {
            Stmt::If {
                then_branch,
                else_branch,
                ..
            } => {
                fuse_in(then_branch, ranges);
                fuse_in(else_branch, ranges);
            }
            Stmt::For { body, .. } | Stmt::Loop { body, .. } => fuse_in(body, ranges),
            // A checkpointed region's code runs twice, as written.
            _ => {}
        }
    }
    let mut first = 0;
    while first < block.stmts.len() {
        let Some(second) = next_loop(block, first) else {
            first += 1;
            continue;
        };
        if !fusable(&block.stmts[first], &block.stmts[second], ranges) {
            first += 1;
            continue;
        }
        let Stmt::For {
            binding,
            body,
            span,
            ..
        } = block.stmts.remove(second)
        else {
            unreachable!("`next_loop` gives a `for`");
        };
        let Stmt::For {
            binding: first_binding,
            body: first_body,
            ..
        } = &mut block.stmts[first]
        else {
            unreachable!("`fusable` takes two `for`s");
        };
        // The second loop's binding, a copy of the first's.
        first_body.stmts.push(Stmt::Let(Let {
            value: binding,
            rvalue: Rvalue::Use(Operand::Value(*first_binding)),
            span,
        }));
        first_body.stmts.extend(body.stmts);
    }
}

/// The `for` after the one at `first`, when only ranges are made between them.
fn next_loop(block: &Block, first: usize) -> Option<usize> {
    if !matches!(block.stmts[first], Stmt::For { flags: None, .. }) {
        return None;
    }
    for (position, stmt) in block.stmts.iter().enumerate().skip(first + 1) {
        match stmt {
            Stmt::Let(Let {
                rvalue: Rvalue::Range { .. },
                ..
            }) => continue,
            Stmt::For { flags: None, .. } => return Some(position),
            _ => return None,
        }
    }
    None
}

fn fusable(first: &Stmt, second: &Stmt, ranges: &HashMap<Value, (String, String)>) -> bool {
    let (
        Stmt::For {
            binding: first_binding,
            range: Operand::Value(first_range),
            body: first_body,
            flags: None,
            ..
        },
        Stmt::For {
            binding: second_binding,
            range: Operand::Value(second_range),
            body: second_body,
            flags: None,
            ..
        },
    ) = (first, second)
    else {
        return false;
    };
    let same_range = matches!((ranges.get(first_range), ranges.get(second_range)),
        (Some(a), Some(b)) if a == b);
    if !same_range
        || first_body.result.is_some()
        || second_body.result.is_some()
        || has_effects(first_body)
        || has_effects(second_body)
    {
        return false;
    }
    let mut written = written_outside(first_body);
    written.extend(written_outside(second_body));
    only_own_elements(first_body, *first_binding, &written)
        && only_own_elements(second_body, *second_binding, &written)
}

/// Calls, macros and methods without rules (whose effects may show in their order), and
/// checkpoints.
fn has_effects(block: &Block) -> bool {
    let mut effects = false;
    for_each_stmt(block, &mut |stmt| {
        effects |= matches!(
            stmt,
            Stmt::Let(Let {
                rvalue: Rvalue::Call { .. }
                    | Rvalue::Macro { .. }
                    | Rvalue::PlainMethod { .. }
                    | Rvalue::Take(_)
                    | Rvalue::RefMut(_),
                ..
            }) | Stmt::Checkpoint { .. }
                | Stmt::Push { .. }
        );
    });
    effects
}

/// The roots a body writes that it does not declare.
fn written_outside(block: &Block) -> HashSet<Root> {
    let mut declared = HashSet::new();
    let mut written = HashSet::new();
    for_each_stmt(block, &mut |stmt| {
        if let Stmt::DeclareVar { var, .. } = stmt {
            declared.insert(Root::Var(*var));
        }
        if let Some(root) = written_root(stmt) {
            written.insert(root);
        }
    });
    written.retain(|root| !declared.contains(root));
    written
}

/// Whether every access of `block` to a root in `written` is an element at `binding` (or at
/// a copy of it: the binding of a loop fused into this one before).
fn only_own_elements(block: &Block, binding: Value, written: &HashSet<Root>) -> bool {
    let mut bindings = HashSet::from([binding]);
    for stmt in &block.stmts {
        if let Stmt::Let(Let {
            value,
            rvalue: Rvalue::Use(Operand::Value(copied)),
            ..
        }) = stmt
        {
            if bindings.contains(copied) {
                bindings.insert(*value);
            }
        }
    }
    let own = |place: &Place| match place.projections.first() {
        Some(Projection::Index(Operand::Value(index))) => bindings.contains(index),
        _ => false,
    };
    let fine = |operand: &Operand| match operand {
        Operand::Value(value) => !written.contains(&Root::Value(*value)),
        Operand::Place(place) => !written.contains(&place.root) || own(place),
        Operand::Constant(_) => true,
    };
    let mut all_fine = true;
    for_each_stmt(block, &mut |stmt| {
        for operand in stmt_reads(stmt) {
            all_fine &= fine(operand);
            if let Operand::Place(place) = operand {
                all_fine &= place
                    .projections
                    .iter()
                    .flat_map(Projection::operands)
                    .all(fine);
            }
        }
        if let Stmt::Assign { place, .. } = stmt {
            all_fine &= !written.contains(&place.root) || own(place);
        }
    });
    all_fine && block.result.as_ref().is_none_or(fine)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many loops `function`'s body has, before and after the pass.
    fn loops(function: &str) -> (usize, usize) {
        let item: syn::ItemFn = syn::parse_str(function).expect("a function");
        let cx = crate::ctxt::Ctxt::new();
        let function = crate::ast::Function::from_item(&cx, item, "reverse");
        drop(cx.into_compile_errors());
        let Ok(mut body) = crate::ir::lower::lower(&function, &[]) else {
            panic!("lowered");
        };
        let count = |body: &Body| {
            let mut loops = 0;
            for_each_stmt(&body.block, &mut |stmt| {
                loops += usize::from(matches!(stmt, Stmt::For { .. }));
            });
            loops
        };
        let before = count(&body);
        fuse_loops(&mut body);
        (before, count(&body))
    }

    #[test]
    fn loops_touching_their_own_elements_are_fused() {
        let fused = "fn f(x: &[f64], d: usize) -> f64 {
            let mut c = vec![0.0; d];
            let mut t = vec![0.0; d];
            let mut s = 0.0;
            for k in 0..3 {
                for j in 0..d { c[j] = x[j] - x[k]; }
                for j in 0..d { t[j] = x[j] * c[j]; }
                for j in 0..d { s += t[j] * c[j]; }
            }
            s
        }";
        // The third writes `s`, which the others do not touch, but reads it too: each
        // iteration of the fused loop would still add in order. Left, as the rule is one
        // element per iteration.
        assert_eq!(loops(fused), (4, 3));
        // A third loop touching its own elements joins the two fused before.
        let three = fused.replace(
            "for j in 0..d { s += t[j] * c[j]; }",
            "for j in 0..d { c[j] = t[j] + c[j]; }\n s += c[0];",
        );
        assert_eq!(loops(&three), (4, 2));
        // Another element than the iteration's own.
        assert_eq!(
            loops(&fused.replace("x[j] * c[j]", "x[j] * c[d - 1 - j]")),
            (4, 4)
        );
        // Another range.
        assert_eq!(
            loops(&fused.replace("for j in 0..d { t[j]", "for j in 1..d { t[j]")),
            (4, 4)
        );
        // A call, whose effects may show in their order.
        assert_eq!(
            loops(&fused.replace("x[j] * c[j]", "g(x[j]) * c[j]")),
            (4, 4)
        );
        // The second loop writes an element the first reads at another index.
        let crossed = fused.replace("x[j] - x[k]", "x[j] - t[0]");
        assert_eq!(loops(&crossed), (4, 4));
    }
}
