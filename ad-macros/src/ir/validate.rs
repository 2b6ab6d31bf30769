//! What the IR engine checks before it emits anything, one function per rule: the emitter
//! is total on a body that passes.

use std::collections::HashSet;

use super::activity::Activity;
use super::lower::NotYet;
use super::*;

pub fn check(body: &Body, activity: &Activity) -> Result<(), NotYet> {
    let mut references = HashSet::new();
    for_each_stmt(&body.block, &mut |stmt| {
        if let Stmt::Let(Let {
            value,
            rvalue: Rvalue::Ref(_),
            ..
        }) = stmt
        {
            references.insert(*value);
        }
    });
    let mut result = Ok(());
    for_each_stmt(&body.block, &mut |stmt| {
        if result.is_ok() {
            result = check_plain_call_borrows_nothing(stmt, activity, &references);
        }
    });
    result
}

/// A call on data alone goes through the plain function, its result lifted to the scalar
/// type. A local passed by reference may hold floats already lifted (`let f: Vec<f64> =
/// data(3); weighted(&f)`), which the plain function does not take: not yet.
fn check_plain_call_borrows_nothing(
    stmt: &Stmt,
    activity: &Activity,
    references: &HashSet<Value>,
) -> Result<(), NotYet> {
    if let Stmt::Let(Let {
        rvalue: Rvalue::Call { args, .. },
        span,
        ..
    }) = stmt
    {
        let plain = !args.iter().any(|arg| activity.is_active(arg));
        let borrows = args
            .iter()
            .any(|arg| matches!(arg, Operand::Value(value) if references.contains(value)));
        if plain && borrows {
            return Err(NotYet {
                span: *span,
                what: "calls on data alone that pass a reference",
            });
        }
    }
    Ok(())
}
