//! Iterator spellings rewritten, before lowering, into the ones the lowering takes. Each is
//! an identity of Rust's semantics on the code it applies to:
//!
//! * `chain.for_each(|pat| body);` is `for pat in chain { body }` (a body without `return` or
//!   `?`, which would leave the closure, not the loop);
//! * `v.extend(chain);` of a local is `for item in chain { v.push(item); }` (the item read
//!   through its reference where the chain gives references: `v.extend(x.iter())`);
//! * `map(f64::exp)`, `filter(is_small)` and the other adapters given a function's path are
//!   the closure `|item| f64::exp(item)` calling it;
//! * `std::iter::zip(a, b)` is `a.into_iter().zip(b)`.

use syn::visit_mut::VisitMut;
use syn::{Expr, Stmt};

use super::strip;

/// The body with the spellings above rewritten; `None` when it has none.
pub(super) fn iterator_spellings(body: &syn::Block) -> Option<syn::Block> {
    let mut rewritten = body.clone();
    let mut rewrite = Rewrite { changed: false };
    rewrite.visit_block_mut(&mut rewritten);
    rewrite.changed.then_some(rewritten)
}

struct Rewrite {
    changed: bool,
}

/// The adapters and reductions whose closure may be given as a function's path.
const TAKES_A_FUNCTION: &[&str] = &[
    "map",
    "filter",
    "flat_map",
    "take_while",
    "skip_while",
    "for_each",
    "any",
    "all",
    "position",
    "find",
];

impl VisitMut for Rewrite {
    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        if let Stmt::Expr(expr, semicolon) = stmt {
            if let Some(looped) = as_for_loop(expr) {
                *stmt = Stmt::Expr(looped, semicolon.take());
                self.changed = true;
            }
        }
        syn::visit_mut::visit_stmt_mut(self, stmt);
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::MethodCall(call)
                if call.args.len() == 1
                    && call.turbofish.is_none()
                    && TAKES_A_FUNCTION.contains(&call.method.to_string().as_str()) =>
            {
                if let Expr::Path(path) = strip(&call.args[0]) {
                    if path.qself.is_none() {
                        let span = call.method.span();
                        let function = path.clone();
                        call.args[0] = syn::parse_quote_spanned!(span=>
                            |__ad_item| #function(__ad_item)
                        );
                        self.changed = true;
                    }
                }
            }
            Expr::Call(call) if call.args.len() == 2 && is_iter_zip(&call.func) => {
                let (a, b) = (&call.args[0], &call.args[1]);
                let span = match &*call.func {
                    Expr::Path(path) => path
                        .path
                        .segments
                        .last()
                        .map(|last| last.ident.span())
                        .unwrap_or_else(proc_macro2::Span::call_site),
                    _ => proc_macro2::Span::call_site(),
                };
                *expr = syn::parse_quote_spanned!(span=>
                    (#a).into_iter().zip(#b)
                );
                self.changed = true;
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `std::iter::zip`, `core::iter::zip`, `iter::zip` (a bare `zip` may be anything).
fn is_iter_zip(func: &Expr) -> bool {
    let Expr::Path(path) = strip(func) else {
        return false;
    };
    let names: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect();
    matches!(
        names
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice(),
        ["std" | "core", "iter", "zip"] | ["iter", "zip"]
    )
}

/// `chain.for_each(|pat| body)` or `v.extend(chain)`, a statement, as the `for` loop it runs.
fn as_for_loop(expr: &Expr) -> Option<Expr> {
    let Expr::MethodCall(call) = expr else {
        return None;
    };
    if call.args.len() != 1 || call.turbofish.is_some() {
        return None;
    }
    let span = call.method.span();
    let chain = &call.receiver;
    match call.method.to_string().as_str() {
        "for_each" => {
            let Expr::Closure(closure) = strip(&call.args[0]) else {
                return None;
            };
            if closure.inputs.len() != 1 || leaves_the_closure(&closure.body) {
                return None;
            }
            let pat = &closure.inputs[0];
            let body = &closure.body;
            Some(syn::parse_quote_spanned!(span=> for #pat in #chain { #body; }))
        }
        "extend" if super::places::is_place_expression(chain) => {
            let items = &call.args[0];
            let item = match gives_references(items)? {
                true => quote::quote_spanned!(span=> *__ad_item),
                false => quote::quote_spanned!(span=> __ad_item),
            };
            Some(syn::parse_quote_spanned!(span=>
                for __ad_item in #items { #chain.push(#item); }
            ))
        }
        _ => None,
    }
}

/// Whether an iterator of floats gives references to them (`x.iter()`, `&x`, `x.iter().rev()`)
/// or values (`x.iter().map(..)`, `.copied()`, a range), when the spelling says which.
fn gives_references(items: &Expr) -> Option<bool> {
    match strip(items) {
        Expr::Reference(_) => Some(true),
        Expr::Range(_) => Some(false),
        Expr::MethodCall(call) => match call.method.to_string().as_str() {
            "iter" => Some(true),
            "map" | "copied" | "cloned" | "into_iter" => Some(false),
            "rev" | "skip" | "take" | "step_by" | "filter" | "skip_while" | "take_while"
            | "chain" => gives_references(&call.receiver),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `body` has a `return` or a `?` of its own (not of a closure inside it).
fn leaves_the_closure(body: &Expr) -> bool {
    struct Leaves(bool);
    impl<'ast> syn::visit::Visit<'ast> for Leaves {
        fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
            self.0 = true;
        }
        fn visit_expr_try(&mut self, _: &'ast syn::ExprTry) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut leaves = Leaves(false);
    syn::visit::Visit::visit_expr(&mut leaves, body);
    leaves.0
}
