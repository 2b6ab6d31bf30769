//! What the IR engine checks before it emits anything, one function per rule: the emitter
//! is total on a body that passes.

use super::activity::Activity;
use super::lower::NotYet;
use super::*;

pub fn check(body: &Body, activity: &Activity) -> Result<(), NotYet> {
    let mut result = Ok(());
    for_each_stmt(&body.block, &mut |stmt| {
        if result.is_ok() {
            result = check_call_is_differentiated(stmt, activity);
        }
    });
    result
}

/// A call with no argument that carries a derivative is a call of a plain function of data,
/// which the IR engine does not make yet (its float arguments would have to stay plain).
fn check_call_is_differentiated(stmt: &Stmt, activity: &Activity) -> Result<(), NotYet> {
    if let Stmt::Let(Let {
        rvalue: Rvalue::Call { args, .. },
        span,
        ..
    }) = stmt
    {
        if !args.iter().any(|arg| activity.is_active(arg)) {
            return Err(NotYet {
                span: *span,
                what: "calls whose arguments are all data",
            });
        }
    }
    Ok(())
}
