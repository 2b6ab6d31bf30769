//! What a checkpointed region (`Stmt::Checkpoint`) reads from the code around it: the values
//! and variables its forward sweep keeps a copy of, so that the backward sweep can run the
//! region again from them.

use super::*;

/// The values and variables defined outside a region that its code reads or changes, in
/// order of first mention; and the variables it only assigns as a whole, whose value before
/// it does not matter (they may have none yet: `let z; #[checkpoint] { z = .. }`).
#[derive(Default)]
pub struct Inputs {
    pub values: Vec<Value>,
    pub vars: Vec<Var>,
    pub assigned_only: Vec<Var>,
}

/// The inputs of a region. A scheduled loop's range is evaluated once, before the loop: not
/// an input of its iterations.
pub fn inputs(body: &Block, schedule: Option<&Schedule>) -> Inputs {
    let mut defined_values = std::collections::HashSet::new();
    let mut declared_vars = std::collections::HashSet::new();
    for_each_stmt(body, &mut |stmt| {
        defined_values.extend(defined_value(stmt));
        if let Stmt::DeclareVar { var, .. } = stmt {
            declared_vars.insert(*var);
        }
    });
    let mut inputs = Inputs::default();
    let mut assigned = Vec::new();
    let note_root = |inputs: &mut Inputs, root: Root| match root {
        Root::Value(value)
            if !defined_values.contains(&value) && !inputs.values.contains(&value) =>
        {
            inputs.values.push(value)
        }
        Root::Var(var) if !declared_vars.contains(&var) && !inputs.vars.contains(&var) => {
            inputs.vars.push(var)
        }
        _ => {}
    };
    let scheduled_range = match (schedule, body.stmts.first()) {
        (Some(_), Some(Stmt::For { range, .. })) => Some(range as *const Operand),
        _ => None,
    };
    for_each_stmt(body, &mut |stmt| {
        let mut roots = Vec::new();
        for operand in stmt_operands(stmt) {
            if Some(operand as *const Operand) != scheduled_range {
                operand_roots(operand, &mut roots);
            }
        }
        match stmt {
            Stmt::Assign { place, .. } if place.projections.is_empty() => {
                if let Root::Var(var) = place.root {
                    if !declared_vars.contains(&var) && !assigned.contains(&var) {
                        assigned.push(var);
                    }
                }
            }
            Stmt::Assign { place, .. } | Stmt::Push { place, .. } => {
                place_roots(place, &mut roots);
            }
            // The end of each iteration reads the loop's flags.
            Stmt::For {
                flags: Some(flags), ..
            }
            | Stmt::Loop { flags, .. } => {
                roots.extend([Root::Var(flags.skip), Root::Var(flags.broken)]);
            }
            _ => {}
        }
        for root in roots {
            note_root(&mut inputs, root);
        }
    });
    // The region's own result, when it is a value from outside.
    if let Some(result) = &body.result {
        let mut roots = Vec::new();
        operand_roots(result, &mut roots);
        for root in roots {
            note_root(&mut inputs, root);
        }
    }
    inputs.assigned_only = assigned
        .into_iter()
        .filter(|var| !inputs.vars.contains(var))
        .collect();
    inputs
}

fn operand_roots(operand: &Operand, roots: &mut Vec<Root>) {
    match operand {
        Operand::Value(value) => roots.push(Root::Value(*value)),
        Operand::Place(place) => place_roots(place, roots),
        Operand::Constant(_) => {}
    }
}

fn place_roots(place: &Place, roots: &mut Vec<Root>) {
    roots.push(place.root);
    for index in place.projections.iter().flat_map(Projection::operands) {
        operand_roots(index, roots);
    }
}
