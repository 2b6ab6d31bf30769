//! Data zipped with floats that carry derivatives (`w.iter().zip(&data.x)`): which container
//! the zip reads, and the argument as the lifting takes it.

use syn::spanned::Spanned;
use syn::Expr;

/// The local a chain of method calls starts from (`w` of `w.iter().enumerate()`, of `(&w)`).
pub(super) fn chain_base(expr: &Expr) -> Option<&syn::ExprPath> {
    match expr {
        Expr::MethodCall(call) => chain_base(&call.receiver),
        Expr::Reference(reference) => chain_base(&reference.expr),
        Expr::Paren(paren) => chain_base(&paren.expr),
        Expr::Path(path) => Some(path),
        _ => None,
    }
}

/// The container a `zip` argument iterates: `data.x` of `&data.x`, of `data.x.iter()` and of
/// `data.x` (an iterator held in data passes through the lifting unchanged).
pub(super) fn zipped_container(arg: &Expr) -> &Expr {
    match arg {
        Expr::Reference(reference) if reference.mutability.is_none() => &reference.expr,
        Expr::MethodCall(call)
            if call.method == "iter" && call.args.is_empty() && call.turbofish.is_none() =>
        {
            &call.receiver
        }
        Expr::Paren(paren) => zipped_container(&paren.expr),
        other => other,
    }
}

/// The `zip` argument as the lifting takes it: `data.x.iter()` as `&data.x`.
pub(super) fn zipped_argument(arg: &Expr) -> Expr {
    match arg {
        Expr::MethodCall(call)
            if call.method == "iter" && call.args.is_empty() && call.turbofish.is_none() =>
        {
            let receiver = &call.receiver;
            syn::parse_quote_spanned!(receiver.span()=> &#receiver)
        }
        other => other.clone(),
    }
}
