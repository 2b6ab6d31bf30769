//! Which values carry derivatives, asked once of the IR.
//!
//! * *Active*: may depend on a differentiated parameter (forward data flow). Comparisons,
//!   integer casts, `len` and the like end a dependence: their results are data.
//! * *Useful*: active and read by something whose adjoint can be nonzero (backward data flow
//!   from the result). Only useful values get an adjoint, and only their pullbacks run.
//!
//! Both are syntax's proposal; the types verify it when the code is compiled (an integer
//! thought active gets a zero-sized adjoint, see `ad_runtime::adjoint`).

use std::collections::{HashMap, HashSet};

use super::*;
use crate::ast::float_of_type;

pub struct Activity {
    pub active: HashSet<Root>,
    pub useful: HashSet<Root>,
    /// `&mut place` arguments of calls to differentiated functions through which the callee
    /// writes floats (`rhs(&y, p, &mut k)`): the call's pullback takes the cotangent of the
    /// place's new contents and gives the adjoint of its old ones. By the value the `&mut`
    /// defines.
    pub written_by_calls: HashMap<Value, Place>,
    /// Every `&mut place` argument of a call to a differentiated function, data or not: the
    /// callee's pullback has a slot for each of its `&mut` parameters (`NoAdjoint` for data).
    pub passed_mutably: HashSet<Value>,
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
    // What a differentiated call writes through `&mut` holds floats unless the place
    // certainly holds data (a data parameter, a variable declared with data).
    let mut data = data_variables(body);
    data.extend(
        body.params
            .iter()
            .filter(|root| !differentiated.contains(root)),
    );
    let passed_mutably = mutable_arguments(body);
    let written: HashMap<Value, Place> = passed_mutably
        .iter()
        .filter(|(_, place)| !data.contains(&place.root))
        .map(|(value, place)| (*value, place.clone()))
        .collect();
    let passed_mutably = passed_mutably.into_keys().collect();
    loop {
        let before = active.len();
        forward(&body.block, &mut active, &written);
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
        backward(&body.block, &active, &mut useful, &written);
        if useful.len() == before {
            break;
        }
    }
    // A place lent `&mut` to a call (a receiver included) that carries derivatives: its loan
    // gets an adjoint, a zero shaped as the place at the call, in which the place's cotangent
    // and adjoint are laid out for the callee (a shadow grows only as far as it was reached).
    for (value, place) in &written {
        if useful.contains(&place.root) {
            active.insert(Root::Value(*value));
            useful.insert(Root::Value(*value));
        }
    }
    Activity {
        active,
        useful,
        written_by_calls: written,
        passed_mutably,
    }
}

/// `&mut place` arguments of calls to user functions, by the value the `&mut` defines.
fn mutable_arguments(body: &Body) -> HashMap<Value, Place> {
    let mut borrows = HashMap::new();
    let mut passed = HashSet::new();
    for_each_stmt(&body.block, &mut |stmt| {
        if let Stmt::Let(Let { value, rvalue, .. }) = stmt {
            match rvalue {
                Rvalue::RefMut(Operand::Place(place)) => {
                    borrows.insert(*value, place.clone());
                }
                Rvalue::Call { callee, args, .. } if !runs_as_written(callee) => {
                    passed.extend(args.iter().filter_map(|arg| match arg {
                        Operand::Value(value) => Some(*value),
                        _ => None,
                    }));
                }
                _ => {}
            }
        }
    });
    borrows.retain(|value, _| passed.contains(value));
    borrows
}

/// Variables that certainly hold data: declared with an integer or `bool` literal, or with a
/// value computed as data (`vec![0usize; n]`, `v.len()`, `i + 1`, `x as usize`). Any other place
/// passed `&mut` to a differentiated function is taken as written with floats: a place taken
/// for data would drop what the callee writes into it, and one taken for floats that holds
/// data is a type error at the call (its adjoint does not match the callee's), never a lost
/// derivative.
fn data_variables(body: &Body) -> HashSet<Root> {
    let mut definitions = HashMap::new();
    let mut declared = Vec::new();
    for_each_stmt(&body.block, &mut |stmt| match stmt {
        Stmt::Let(Let { value, rvalue, .. }) => {
            definitions.insert(*value, rvalue);
        }
        Stmt::DeclareVar {
            var,
            init: Some(init),
        } => declared.push((*var, init)),
        _ => {}
    });
    let is_data = |operand: &Operand| matches!(operand, Operand::Constant(constant) if constant.kind == ConstantKind::Data);
    declared
        .into_iter()
        .filter(|(_, init)| match init {
            Operand::Constant(_) => is_data(init),
            Operand::Value(value) => match definitions.get(value) {
                Some(Rvalue::Repeat(_, element, _)) => is_data(element),
                Some(Rvalue::Elements(_, elements)) => {
                    !elements.is_empty() && elements.iter().all(is_data)
                }
                Some(Rvalue::Use(operand)) => is_data(operand),
                Some(Rvalue::Cast(_, ty)) => crate::ast::first_float_in(ty).is_none(),
                Some(
                    Rvalue::DataBinary(..)
                    | Rvalue::DataMethod { .. }
                    | Rvalue::Not(_)
                    | Rvalue::Matches(..)
                    | Rvalue::Range { .. },
                ) => true,
                _ => false,
            },
            Operand::Place(_) => false,
        })
        .map(|(var, _)| Root::Var(var))
        .collect()
}

/// The operands through which a derivative flows from the value an rvalue defines.
pub fn differentiable_operands(rvalue: &Rvalue) -> Vec<&Operand> {
    match rvalue {
        // A fallible result's error is data.
        Rvalue::Extract { pattern, .. } if crate::ir::is_error_pattern(pattern) => Vec::new(),
        Rvalue::Use(operand)
        | Rvalue::Take(operand)
        | Rvalue::Neg(operand)
        | Rvalue::Some(operand)
        | Rvalue::Ok(operand)
        | Rvalue::Unwrap {
            option: operand, ..
        }
        | Rvalue::Extract {
            scrutinee: operand,
            pattern: _,
            ..
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
        // A plain function whose result carries no float (`in_range(x)`) gives data.
        Rvalue::Call {
            dispatch: Dispatch::AtPrimals,
            ..
        } => Vec::new(),
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
        | Rvalue::Err(_)
        | Rvalue::Macro { .. }
        | Rvalue::RefMut(_)
        | Rvalue::Range { .. } => Vec::new(),
    }
}

pub fn operand_root(operand: &Operand) -> Option<Root> {
    match operand {
        Operand::Value(value) => Some(Root::Value(*value)),
        Operand::Constant(_) => None,
        Operand::Place(place) => Some(place.root),
    }
}

fn forward(block: &Block, active: &mut HashSet<Root>, written: &HashMap<Value, Place>) {
    let is_active = |operand: &Operand, active: &HashSet<Root>| {
        operand_root(operand).is_some_and(|root| active.contains(&root))
    };
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let(Let { value, rvalue, .. }) => {
                let places_written = written_places(rvalue, written);
                if differentiable_operands(rvalue)
                    .into_iter()
                    .any(|operand| is_active(operand, active))
                    || places_written
                        .iter()
                        .any(|place| active.contains(&place.root))
                {
                    active.insert(Root::Value(*value));
                    // What the call writes through `&mut` depends on its inputs.
                    active.extend(places_written.iter().map(|place| place.root));
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
                forward(then_branch, active, written);
                forward(else_branch, active, written);
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
            Stmt::For { body, .. } | Stmt::Loop { body, .. } => forward(body, active, written),
            Stmt::Checkpoint { body, result, .. } => {
                forward(body, active, written);
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

/// The places a call writes through `&mut` arguments (empty for anything else).
pub fn written_places<'a>(rvalue: &Rvalue, written: &'a HashMap<Value, Place>) -> Vec<&'a Place> {
    match rvalue {
        Rvalue::Call { args, .. } => args
            .iter()
            .filter_map(|arg| match arg {
                Operand::Value(value) => written.get(value),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn backward(
    block: &Block,
    active: &HashSet<Root>,
    useful: &mut HashSet<Root>,
    written: &HashMap<Value, Place>,
) {
    for stmt in block.stmts.iter().rev() {
        match stmt {
            Stmt::Let(Let { value, rvalue, .. }) => {
                // A call whose writes are read later runs back too.
                if written_places(rvalue, written)
                    .iter()
                    .any(|place| useful.contains(&place.root))
                    && active.contains(&Root::Value(*value))
                {
                    useful.insert(Root::Value(*value));
                }
                if useful.contains(&Root::Value(*value)) {
                    for operand in differentiable_operands(rvalue) {
                        mark_operand(operand, active, useful);
                    }
                    // The call reads what the places held before it, too.
                    for place in written_places(rvalue, written) {
                        if active.contains(&place.root) {
                            useful.insert(place.root);
                        }
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
                backward(then_branch, active, useful, written);
                backward(else_branch, active, useful, written);
            }
            Stmt::For { body, .. } | Stmt::Loop { body, .. } => {
                backward(body, active, useful, written)
            }
            Stmt::Checkpoint { body, result, .. } => {
                if let (Some(result), Some(operand)) = (result, &body.result) {
                    if useful.contains(&Root::Value(*result)) {
                        mark_operand(operand, active, useful);
                    }
                }
                backward(body, active, useful, written);
            }
        }
    }
}
