//! An iterator over a slice or `Vec` kept in a variable and stepped by hand:
//!
//! ```text
//! let mut items = x.iter();
//! let mut best = *items.next().unwrap();
//! for v in items { .. }
//! ```
//!
//! is a position in the container: `next()` reads the element at it and moves it on
//! (`x.get({ at += 1; at - 1 })`, an element access the lowering takes), and the last use of
//! the iterator, whatever it does with the rest, takes a fresh iterator over the rest
//! (`x[at.min(x.len())..].iter()`). Exact for `iter()` (with `copied()`/`cloned()`) of a
//! container named by a path, which the iterator's borrow keeps unchanged while it lives,
//! stepped only by `next()` outside closures, and used otherwise once, last, outside loops.

use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, Stmt};

use super::strip;

/// `after`, the statements that follow `let mut name = chain;`, with the iterator replaced by
/// a position; `None` when the iterator is not one this rewrite takes.
pub(super) fn stepped_by_position(
    name: &syn::Ident,
    chain: &Expr,
    after: &[Stmt],
) -> Option<(Stmt, Vec<Stmt>)> {
    let (container, read) = source(chain)?;
    if !uses_allowed(name, &root_of(container)?, after) {
        return None;
    }
    let position = quote::format_ident!("__ad_position_{}", name);
    let mut rewrite = Rewrite {
        name,
        container,
        read: &read,
        position: &position,
    };
    let mut rewritten = after.to_vec();
    for stmt in &mut rewritten {
        rewrite.visit_stmt_mut(stmt);
    }
    let span = name.span();
    let declared: Stmt = syn::parse_quote_spanned!(span=> let mut #position: usize = 0;);
    Some((declared, rewritten))
}

/// The container of `container.iter()` (a path: a name or fields of one), and what reads an
/// element from an `Option<&T>` (`copied()`, `cloned()` or nothing).
fn source(chain: &Expr) -> Option<(&Expr, proc_macro2::TokenStream)> {
    let Expr::MethodCall(call) = strip(chain) else {
        return None;
    };
    if !call.args.is_empty() || call.turbofish.is_some() {
        return None;
    }
    let (iter, read) = match call.method.to_string().as_str() {
        "iter" => (call, quote::quote!()),
        "copied" | "cloned" => {
            let method = &call.method;
            match strip(&call.receiver) {
                Expr::MethodCall(iter)
                    if iter.method == "iter"
                        && iter.args.is_empty()
                        && iter.turbofish.is_none() =>
                {
                    (iter, quote::quote!(.#method()))
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    fn is_path(expr: &Expr) -> bool {
        match strip(expr) {
            Expr::Path(path) => path.qself.is_none() && path.path.get_ident().is_some(),
            Expr::Field(field) => is_path(&field.base),
            _ => false,
        }
    }
    is_path(&iter.receiver).then_some((&*iter.receiver, read))
}

/// The name a container path starts from (`x` of `x` or `self.rows`).
fn root_of(container: &Expr) -> Option<syn::Ident> {
    match strip(container) {
        Expr::Path(path) => path.path.get_ident().cloned(),
        Expr::Field(field) => root_of(&field.base),
        _ => None,
    }
}

/// Whether every use of `name` in `after` is `name.next()` outside closures, but at most one,
/// the last, outside loops and closures, that is a `for` loop's iterator or a method's
/// receiver; and neither `name` nor `root`, the container's name (which the rewrite names
/// again where the iterator is used, as the iterator's borrow does not), is bound again.
fn uses_allowed(name: &syn::Ident, root: &syn::Ident, after: &[Stmt]) -> bool {
    struct Uses<'n> {
        name: &'n syn::Ident,
        root: &'n syn::Ident,
        /// Per use, in source order: whether it is a `next()`, and whether it may run more
        /// than once or later than written (in a loop or a closure).
        uses: Vec<(bool, bool)>,
        repeated: bool,
        in_closure: bool,
        allowed: bool,
    }
    impl Uses<'_> {
        fn names(&self, expr: &Expr) -> bool {
            matches!(strip(expr), Expr::Path(path) if path.qself.is_none() && path.path.is_ident(self.name))
        }
        fn repeated<T>(&mut self, visit: impl FnOnce(&mut Self) -> T) -> T {
            let outer = std::mem::replace(&mut self.repeated, true);
            let result = visit(self);
            self.repeated = outer;
            result
        }
    }
    impl<'ast> Visit<'ast> for Uses<'_> {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            match expr {
                Expr::MethodCall(call) if self.names(&call.receiver) => {
                    let next = call.method == "next" && call.args.is_empty();
                    if next && self.in_closure {
                        self.allowed = false;
                    }
                    self.uses.push((next, self.repeated));
                    for arg in &call.args {
                        self.visit_expr(arg);
                    }
                }
                Expr::ForLoop(for_loop) if self.names(&for_loop.expr) => {
                    self.uses.push((false, self.repeated));
                    self.visit_pat(&for_loop.pat);
                    self.repeated(|this| this.visit_block(&for_loop.body));
                }
                Expr::Path(_) if self.names(expr) => self.allowed = false,
                Expr::ForLoop(for_loop) => {
                    self.visit_pat(&for_loop.pat);
                    self.visit_expr(&for_loop.expr);
                    self.repeated(|this| this.visit_block(&for_loop.body));
                }
                Expr::While(_) | Expr::Loop(_) => {
                    self.repeated(|this| syn::visit::visit_expr(this, expr))
                }
                Expr::Closure(_) => {
                    let outer = std::mem::replace(&mut self.in_closure, true);
                    self.repeated(|this| syn::visit::visit_expr(this, expr));
                    self.in_closure = outer;
                }
                _ => syn::visit::visit_expr(self, expr),
            }
        }
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            if pat.ident == *self.name || pat.ident == *self.root {
                self.allowed = false;
            }
            syn::visit::visit_pat_ident(self, pat);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            let named = crate::ast::idents_of(mac.tokens.clone());
            if named.contains(self.name) || named.contains(self.root) {
                self.allowed = false;
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut uses = Uses {
        name,
        root,
        uses: Vec::new(),
        repeated: false,
        in_closure: false,
        allowed: true,
    };
    for stmt in after {
        uses.visit_stmt(stmt);
    }
    let others: Vec<usize> = (0..uses.uses.len()).filter(|&k| !uses.uses[k].0).collect();
    uses.allowed
        && uses.uses.iter().any(|(next, _)| *next)
        && match others.as_slice() {
            [] => true,
            [last] => *last + 1 == uses.uses.len() && !uses.uses[*last].1,
            _ => false,
        }
}

struct Rewrite<'a> {
    name: &'a syn::Ident,
    container: &'a Expr,
    read: &'a proc_macro2::TokenStream,
    position: &'a syn::Ident,
}

impl Rewrite<'_> {
    fn rest(&self) -> Expr {
        let (container, read, position) = (self.container, self.read, self.position);
        syn::parse_quote_spanned!(self.name.span()=>
            #container[#position.min(#container.len())..].iter()#read
        )
    }

    fn names(&self, expr: &Expr) -> bool {
        matches!(strip(expr), Expr::Path(path) if path.qself.is_none() && path.path.is_ident(self.name))
    }
}

impl VisitMut for Rewrite<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::MethodCall(call)
                if self.names(&call.receiver) && call.method == "next" && call.args.is_empty() =>
            {
                let (container, read, position) = (self.container, self.read, self.position);
                *expr = syn::parse_quote_spanned!(call.method.span()=>
                    #container.get({ #position += 1; #position - 1 })#read
                );
                return;
            }
            Expr::MethodCall(call) if self.names(&call.receiver) => {
                *call.receiver = self.rest();
            }
            Expr::ForLoop(for_loop) if self.names(&for_loop.expr) => {
                *for_loop.expr = self.rest();
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
