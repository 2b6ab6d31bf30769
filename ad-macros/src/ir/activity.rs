//! Which values carry derivatives, asked once of the IR.
//!
//! * *Active*: may depend on a differentiated parameter (forward data flow). Comparisons,
//!   integer casts, `len` and the like end a dependence: their results are data.
//! * *Useful*: active and read by something whose adjoint can be nonzero (backward data flow
//!   from the result). Only useful values get an adjoint, and only their pullbacks run.
//!
//! Both are syntax's proposal; the types verify it when the code is compiled (an integer
//! thought active gets a zero-sized adjoint, see `ad_runtime::adjoint`).

use std::collections::HashSet;

use super::*;
use crate::ast::float_of_type;

pub struct Activity {
    pub active: HashSet<Root>,
    pub useful: HashSet<Root>,
}

impl Activity {
    pub fn is_active(&self, operand: &Operand) -> bool {
        operand_root(operand).is_some_and(|root| self.active.contains(&root))
    }

    pub fn is_useful_value(&self, value: Value) -> bool {
        self.useful.contains(&Root::Value(value))
    }

    pub fn is_useful(&self, operand: &Operand) -> bool {
        match operand {
            Operand::Value(value) => self.is_useful_value(*value),
            Operand::Constant(_) => false,
            Operand::Place(place) => self.useful.contains(&place.root),
        }
    }
}

/// `differentiated`: the parameters' roots that carry derivatives; `outputs`: those among them
/// whose final contents are results too (`&mut` parameters).
pub fn analyse(body: &Body, differentiated: &[Root], outputs: &[Root]) -> Activity {
    let mut active: HashSet<Root> = differentiated.iter().copied().collect();
    loop {
        let before = active.len();
        forward(&body.block, &mut active);
        if active.len() == before {
            break;
        }
    }
    let mut useful: HashSet<Root> = outputs.iter().copied().collect();
    if let Some(result) = &body.block.result {
        mark_operand(result, &active, &mut useful);
    }
    loop {
        let before = useful.len();
        backward(&body.block, &active, &mut useful);
        if useful.len() == before {
            break;
        }
    }
    Activity { active, useful }
}

/// The operands through which a derivative flows from the value an rvalue defines.
pub fn differentiable_operands(rvalue: &Rvalue) -> Vec<&Operand> {
    match rvalue {
        Rvalue::Use(operand)
        | Rvalue::Take(operand)
        | Rvalue::Neg(operand)
        | Rvalue::Some(operand)
        | Rvalue::Unwrap {
            option: operand, ..
        }
        | Rvalue::Extract {
            scrutinee: operand, ..
        }
        | Rvalue::Duplicate {
            receiver: operand, ..
        } => vec![operand],
        Rvalue::Binary(_, left, right) => vec![left, right],
        Rvalue::FloatMethod {
            rule,
            receiver,
            args,
            ..
        } => std::iter::once(receiver)
            .chain(
                args.iter()
                    .zip(rule.float_args)
                    .filter(|(_, float)| **float)
                    .map(|(arg, _)| arg),
            )
            .collect(),
        Rvalue::Cast(operand, ty) if float_of_type(ty).is_some() => vec![operand],
        Rvalue::Call { args, .. } => args.iter().collect(),
        Rvalue::Ref(place) => vec![place],
        Rvalue::Construct { fields, .. } => fields.iter().map(|(_, value)| value).collect(),
        Rvalue::Repeat(_, element, _) => vec![element],
        Rvalue::Elements(_, elements) | Rvalue::Tuple(elements) => elements.iter().collect(),
        Rvalue::Cast(..)
        | Rvalue::DataBinary(..)
        | Rvalue::Not(_)
        | Rvalue::DataMethod { .. }
        | Rvalue::PlainMethod { .. }
        | Rvalue::EmptyVec(_)
        | Rvalue::Matches(..)
        | Rvalue::Macro { .. }
        | Rvalue::RefMut(_)
        | Rvalue::Range { .. } => Vec::new(),
    }
}

fn operand_root(operand: &Operand) -> Option<Root> {
    match operand {
        Operand::Value(value) => Some(Root::Value(*value)),
        Operand::Constant(_) => None,
        Operand::Place(place) => Some(place.root),
    }
}

fn forward(block: &Block, active: &mut HashSet<Root>) {
    let is_active = |operand: &Operand, active: &HashSet<Root>| {
        operand_root(operand).is_some_and(|root| active.contains(&root))
    };
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let(Let { value, rvalue, .. }) => {
                if differentiable_operands(rvalue)
                    .into_iter()
                    .any(|operand| is_active(operand, active))
                {
                    active.insert(Root::Value(*value));
                }
            }
            Stmt::DeclareVar { var, init } => {
                if init.as_ref().is_some_and(|init| is_active(init, active)) {
                    active.insert(Root::Var(*var));
                }
            }
            Stmt::Assign { place, operand, .. } | Stmt::Push { place, operand, .. } => {
                if is_active(operand, active) {
                    active.insert(place.root);
                }
            }
            Stmt::If {
                then_branch,
                else_branch,
                result,
                ..
            } => {
                forward(then_branch, active);
                forward(else_branch, active);
                if let Some(result) = result {
                    let branches = [&then_branch.result, &else_branch.result];
                    if branches
                        .into_iter()
                        .flatten()
                        .any(|operand| is_active(operand, active))
                    {
                        active.insert(Root::Value(*result));
                    }
                }
            }
            Stmt::For { body, .. } | Stmt::Loop { body, .. } => forward(body, active),
            Stmt::Checkpoint { body, result, .. } => {
                forward(body, active);
                if let (Some(result), Some(operand)) = (result, &body.result) {
                    if is_active(operand, active) {
                        active.insert(Root::Value(*result));
                    }
                }
            }
        }
    }
}

fn mark_operand(operand: &Operand, active: &HashSet<Root>, useful: &mut HashSet<Root>) {
    if let Some(root) = operand_root(operand) {
        if active.contains(&root) {
            useful.insert(root);
        }
    }
}

fn backward(block: &Block, active: &HashSet<Root>, useful: &mut HashSet<Root>) {
    for stmt in block.stmts.iter().rev() {
        match stmt {
            Stmt::Let(Let { value, rvalue, .. }) => {
                if useful.contains(&Root::Value(*value)) {
                    for operand in differentiable_operands(rvalue) {
                        mark_operand(operand, active, useful);
                    }
                }
            }
            Stmt::DeclareVar { var, init } => {
                if let Some(init) = init {
                    if useful.contains(&Root::Var(*var)) {
                        mark_operand(init, active, useful);
                    }
                }
            }
            Stmt::Assign { place, operand, .. } | Stmt::Push { place, operand, .. } => {
                if useful.contains(&place.root) {
                    mark_operand(operand, active, useful);
                }
            }
            Stmt::If {
                then_branch,
                else_branch,
                result,
                ..
            } => {
                if result.is_some_and(|result| useful.contains(&Root::Value(result))) {
                    for operand in [&then_branch.result, &else_branch.result]
                        .into_iter()
                        .flatten()
                    {
                        mark_operand(operand, active, useful);
                    }
                }
                backward(then_branch, active, useful);
                backward(else_branch, active, useful);
            }
            Stmt::For { body, .. } | Stmt::Loop { body, .. } => backward(body, active, useful),
            Stmt::Checkpoint { body, result, .. } => {
                if let (Some(result), Some(operand)) = (result, &body.result) {
                    if useful.contains(&Root::Value(*result)) {
                        mark_operand(operand, active, useful);
                    }
                }
                backward(body, active, useful);
            }
        }
    }
}
