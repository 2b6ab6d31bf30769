//! Values of the user's types built in the body that stay plain data: a struct or variant
//! built from values without derivatives (`let cfg = Config { scale: 1.5, rounds: 3 }`) and
//! only read, matched, printed, or passed to calls on data alone. The derivative code builds
//! them as written, not as twins over the scalar type: a type without the derive has none,
//! and the plain functions they are passed to take them as they are.

use std::collections::{HashMap, HashSet};

use super::activity::Activity;
use super::*;

/// The plain values: such constructions, and the copies of and references to them.
pub fn plain_values(body: &Body, activity: &Activity) -> HashSet<Value> {
    // Each candidate, and the values standing for it (copies, references).
    let mut candidates: HashSet<Value> = HashSet::new();
    let mut stands_for: HashMap<Value, Value> = HashMap::new();
    for_each_stmt(&body.block, &mut |stmt| {
        if let Stmt::Let(Let {
            value,
            rvalue: rvalue @ Rvalue::Construct { .. },
            ..
        }) = stmt
        {
            if !operands(rvalue)
                .iter()
                .any(|field| activity.is_active(field))
            {
                candidates.insert(*value);
                stands_for.insert(*value, *value);
            }
        }
    });
    // Copies and references, defined after what they stand for (SSA, in order).
    for_each_stmt(&body.block, &mut |stmt| {
        if let Stmt::Let(Let { value, rvalue, .. }) = stmt {
            let source = match rvalue {
                Rvalue::Use(Operand::Value(source)) => Some(*source),
                Rvalue::Ref(Operand::Place(Place {
                    root: Root::Value(source),
                    projections,
                    ..
                })) if projections.is_empty() => Some(*source),
                _ => None,
            };
            if let Some(candidate) = source.and_then(|source| stands_for.get(&source).copied()) {
                stands_for.insert(*value, candidate);
            }
        }
    });
    let mut spoiled: HashSet<Value> = HashSet::new();
    let spoil = |operand: &Operand, spoiled: &mut HashSet<Value>| {
        for root in roots(operand) {
            if let Some(candidate) = stands_for.get(&root) {
                spoiled.insert(*candidate);
            }
        }
    };
    for_each_stmt(&body.block, &mut |stmt| {
        let Stmt::Let(Let { value, rvalue, .. }) = stmt else {
            for operand in stmt_operands(stmt) {
                spoil(operand, &mut spoiled);
            }
            if let Stmt::Assign { place, .. } | Stmt::Push { place, .. } = stmt {
                spoil(&Operand::Place(place.clone()), &mut spoiled);
            }
            return;
        };
        let plain_use = match rvalue {
            // What stands for a candidate: its own definition.
            _ if stands_for.contains_key(value) && stands_for.get(value) != Some(value) => true,
            Rvalue::Construct { .. } if candidates.contains(value) => true,
            // Read from, matched, printed, asked for data, or passed to a call on data
            // alone.
            Rvalue::Use(Operand::Place(place)) => !place.projections.is_empty(),
            Rvalue::Call {
                dispatch: Dispatch::AtPrimals,
                ..
            } => true,
            Rvalue::Call { args, .. } => !args.iter().any(|arg| activity.is_active(arg)),
            Rvalue::PlainMethod { .. }
            | Rvalue::DataMethod { .. }
            | Rvalue::Macro { .. }
            | Rvalue::Matches(..) => true,
            Rvalue::Extract { data_only, .. } => *data_only,
            _ => false,
        };
        if !plain_use {
            for operand in operands(rvalue) {
                spoil(operand, &mut spoiled);
            }
        }
    });
    // A plain value inside one built as a twin would not be of the twin's field type.
    loop {
        let before = spoiled.len();
        for_each_stmt(&body.block, &mut |stmt| {
            if let Stmt::Let(Let {
                value,
                rvalue: rvalue @ Rvalue::Construct { .. },
                ..
            }) = stmt
            {
                if !candidates.contains(value) || spoiled.contains(value) {
                    for operand in operands(rvalue) {
                        spoil(operand, &mut spoiled);
                    }
                }
            }
        });
        if spoiled.len() == before {
            break;
        }
    }
    let plain: HashSet<Value> = candidates.difference(&spoiled).copied().collect();
    stands_for
        .into_iter()
        .filter(|(_, candidate)| plain.contains(candidate))
        .map(|(value, _)| value)
        .collect()
}

/// The values an operand reads: itself, or a place's root and index values.
fn roots(operand: &Operand) -> Vec<Value> {
    match operand {
        Operand::Value(value) => vec![*value],
        Operand::Constant(_) => Vec::new(),
        Operand::Place(place) => {
            let mut found = Vec::new();
            if let Root::Value(value) = place.root {
                found.push(value);
            }
            for index in place.projections.iter().flat_map(Projection::operands) {
                found.extend(roots(index));
            }
            found
        }
    }
}
