//! Closures bound by `let` and called by name (`let scale = |t: f64| t * y; scale(x)`): each
//! call is lowered as the closure's body, its parameters bound to the arguments and its other
//! names resolved where the closure was written. A closure without `move` borrows what it
//! captures, so a call sees the variables as they are when it runs, as the inlined body does;
//! a `move` closure copies the variables it captures where it is written, and so does the
//! lowering.

use std::collections::HashSet;
use std::rc::Rc;

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, ExprClosure, Ident};

use super::control::var_place;
use super::iterators::check_closure;
use super::{not_yet, scope_key, strip, Binding, Lowered, Lowering, NotYet, Scope};
use crate::ir::*;

pub(super) struct ClosureDef {
    closure: ExprClosure,
    /// The names in scope where the closure was written (for a `move` closure, the variables
    /// it captures bound to the values they had there).
    scopes: Vec<Scope>,
}

impl Lowering {
    /// `let name = |..| ..;`: the closure is kept, to be inlined where it is called.
    pub(super) fn bind_closure(
        &mut self,
        name: &Ident,
        closure: &ExprClosure,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        check_closure(closure)?;
        let mut scopes = self.scopes.clone();
        if closure.capture.is_some() {
            let mut parameters = HashSet::new();
            for input in &closure.inputs {
                pattern_names(input, &mut parameters);
            }
            let mut copies = Scope::new();
            for captured in free_names(&closure.body) {
                // A borrow moved in still borrows its place, which the body reaches through
                // the scopes where the closure was written.
                if parameters.contains(&scope_key(&captured))
                    || copies.contains_key(&scope_key(&captured))
                    || self.borrowed_place(&captured).is_some()
                {
                    continue;
                }
                if let Some(Root::Var(var)) = self.resolve(&captured) {
                    let span = captured.span();
                    let copy = self.read(var_place(var, span), span, stmts);
                    copies.insert(scope_key(&captured), Binding::Local(Root::Value(copy)));
                }
            }
            scopes.push(copies);
        }
        let closure = Rc::new(ClosureDef {
            closure: closure.clone(),
            scopes,
        });
        self.scopes
            .last_mut()
            .expect("a scope is open")
            .insert(scope_key(name), Binding::Closure(closure));
        Ok(())
    }

    /// A call of a closure bound by `let`, inlined: its value (`None` for `()`). `Ok(None)`
    /// when the callee is not such a closure.
    pub(super) fn closure_call(
        &mut self,
        call: &syn::ExprCall,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Option<Operand>>> {
        let Expr::Path(path) = strip(&call.func) else {
            return Ok(None);
        };
        let Some(name) = path.path.get_ident() else {
            return Ok(None);
        };
        let Some(Binding::Closure(closure)) = self.binding(name).cloned() else {
            return Ok(None);
        };
        if closure.closure.inputs.len() != call.args.len() {
            return not_yet(call, "a closure called with another number of arguments");
        }
        // The arguments are evaluated where the call is, before the body runs.
        let args = self.operands(&call.args, stmts)?;
        let here = std::mem::replace(&mut self.scopes, closure.scopes.clone());
        self.scopes.push(Scope::new());
        let value = self.inlined_body(&closure.closure, args, stmts);
        self.scopes = here;
        value.map(Some)
    }

    /// Notes the result type a closure writes (`|w| -> f64 { w.iter().sum() }`) as its
    /// body's.
    pub(super) fn expect_closure_result(&mut self, closure: &ExprClosure) {
        if let syn::ReturnType::Type(_, ty) = &closure.output {
            self.expect(&closure.body, ty);
        }
    }

    fn inlined_body(
        &mut self,
        closure: &ExprClosure,
        args: Vec<Operand>,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Operand>> {
        self.noting(|this| {
            // Noted here, on the closure kept, whose expressions are those lowered.
            this.expect_closure_result(closure);
            for (input, arg) in closure.inputs.iter().zip(args) {
                this.bind_closure_input(input, arg, false, stmts)?;
            }
            this.value_of(&closure.body, stmts)
        })
    }
}

/// The names a pattern binds.
pub(super) fn pattern_names(pat: &syn::Pat, names: &mut HashSet<String>) {
    struct Names<'n>(&'n mut HashSet<String>);
    impl<'ast> syn::visit::Visit<'ast> for Names<'_> {
        fn visit_pat_ident(&mut self, binding: &'ast syn::PatIdent) {
            self.0.insert(scope_key(&binding.ident));
            syn::visit::visit_pat_ident(self, binding);
        }
    }
    syn::visit::Visit::visit_pat(&mut Names(names), pat);
}

/// The single-name paths an expression reads (the names a closure body may capture).
pub(super) fn free_names(body: &Expr) -> Vec<Ident> {
    struct Paths(Vec<Ident>);
    impl<'ast> syn::visit::Visit<'ast> for Paths {
        fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
            if let Some(name) = path.path.get_ident() {
                self.0.push(name.clone());
            }
        }
        // A macro's names are in its tokens, and in its format string (`{x}`): every one of
        // them may be read.
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            fn names(tokens: proc_macro2::TokenStream, found: &mut Vec<Ident>) {
                for token in tokens {
                    match token {
                        proc_macro2::TokenTree::Ident(ident) => found.push(ident),
                        proc_macro2::TokenTree::Group(group) => names(group.stream(), found),
                        proc_macro2::TokenTree::Literal(literal) => {
                            if let Ok(syn::Lit::Str(format)) =
                                syn::parse2::<syn::Lit>(literal.to_token_stream())
                            {
                                found.extend(
                                    super::macros::inline_names(&format.value())
                                        .iter()
                                        .map(|name| Ident::new(name, literal.span())),
                                );
                            }
                        }
                        proc_macro2::TokenTree::Punct(_) => {}
                    }
                }
            }
            names(mac.tokens.clone(), &mut self.0);
        }
    }
    let mut paths = Paths(Vec::new());
    syn::visit::Visit::visit_expr(&mut paths, body);
    paths.0
}

/// A closure's name used other than called (passed, returned, stored): not taken.
pub(super) fn closure_used_as_a_value<T>(name: &impl Spanned) -> Lowered<T> {
    not_yet(name, "closures used other than called by name")
}

impl Lowering {
    /// A call of a differentiated function given closures (`integrate(|t| (k * t).sin(), a,
    /// b)`): each closure stays as written (`ClosureCall`), a data placeholder in its argument's
    /// place, and the variables it reads from around it follow the arguments, so that their
    /// adjoints come back through the call's pullback.
    pub(super) fn call_with_closures(
        &mut self,
        func: &syn::ExprPath,
        call: &syn::ExprCall,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Rvalue> {
        let mut args = Vec::new();
        let mut closures = Vec::new();
        let mut captured: Vec<Ident> = Vec::new();
        for (position, arg) in call.args.iter().enumerate() {
            let Some((closure, lent)) = passed_closure(arg) else {
                args.push(self.operand(arg, stmts)?);
                continue;
            };
            check_closure(closure)?;
            let mut parameters = HashSet::new();
            for input in &closure.inputs {
                pattern_names(input, &mut parameters);
            }
            let mut read = Vec::new();
            names_read(&closure.body, &mut read);
            for name in read {
                if !parameters.contains(&scope_key(&name))
                    && self.resolve(&name).is_some()
                    && !captured.contains(&name)
                {
                    captured.push(name);
                }
            }
            if let Some(span) = assigns_to(&closure.body, &captured) {
                return Err(NotYet {
                    span,
                    what: "closures passed to a function that assign the variables they capture",
                });
            }
            closures.push((position, closure.clone(), lent));
            args.push(Operand::Constant(Constant {
                tokens: quote::quote!(()),
                kind: ConstantKind::Data,
                span: closure.span(),
            }));
        }
        // Lent to the call, as the closure borrows them.
        for name in &captured {
            let lent: Expr = syn::parse_quote_spanned!(name.span()=> &#name);
            args.push(self.operand(&lent, stmts)?);
        }
        let index = self.closure_calls.len() as u32;
        self.closure_calls.push(ClosureCall { closures, captured });
        Ok(Rvalue::Call {
            callee: func.path.clone(),
            method: None,
            args,
            dispatch: Dispatch::WithClosures(index),
        })
    }
}

impl Lowering {
    /// `integrate(&f, a, b)` of a closure bound by `let f = |t| ..;` (not `move`): the call as
    /// if the closure were written there, which means the same when every name it reads is
    /// bound here as where it was written (nothing can change what a closure borrows while it
    /// lives). `None` when no argument names such a closure, or a name it reads means another
    /// thing here.
    pub(super) fn with_named_closures_written(
        &self,
        call: &syn::ExprCall,
    ) -> Option<syn::ExprCall> {
        let mut written = call.clone();
        let mut changed = false;
        for arg in written.args.iter_mut() {
            let (name, lent) = match strip(arg) {
                Expr::Path(path) => (path.path.get_ident()?.clone(), false),
                Expr::Reference(reference) if reference.mutability.is_none() => {
                    match strip(&reference.expr) {
                        Expr::Path(path) => (path.path.get_ident()?.clone(), true),
                        _ => continue,
                    }
                }
                _ => continue,
            };
            let Some(Binding::Closure(definition)) = self.binding(&name) else {
                continue;
            };
            let closure = &definition.closure;
            if closure.capture.is_some() || !self.reads_as_where_written(definition) {
                return None;
            }
            *arg = match lent {
                true => syn::parse_quote_spanned!(arg.span()=> &#closure),
                false => Expr::Closure(closure.clone()),
            };
            changed = true;
        }
        changed.then_some(written)
    }

    /// Whether every name the closure reads, but its parameters, is bound here as where it
    /// was written.
    fn reads_as_where_written(&self, definition: &ClosureDef) -> bool {
        let mut parameters = HashSet::new();
        for input in &definition.closure.inputs {
            pattern_names(input, &mut parameters);
        }
        let mut read = Vec::new();
        names_read(&definition.closure.body, &mut read);
        read.iter()
            .filter(|name| !parameters.contains(&scope_key(name)))
            .all(|name| {
                let key = scope_key(name);
                let there = definition
                    .scopes
                    .iter()
                    .rev()
                    .find_map(|scope| scope.get(&key));
                match (there, self.binding(name)) {
                    (None, None) | (Some(Binding::Item), Some(Binding::Item)) => true,
                    (Some(Binding::Local(a)), Some(Binding::Local(b))) => a == b,
                    (Some(Binding::Closure(a)), Some(Binding::Closure(b))) => Rc::ptr_eq(a, b),
                    _ => false,
                }
            })
    }
}

/// A closure written as an argument (`|t| ..`), or lent (`&|t| ..`, then `true`).
pub(super) fn passed_closure(arg: &Expr) -> Option<(&syn::ExprClosure, bool)> {
    match strip(arg) {
        Expr::Closure(closure) => Some((closure, false)),
        Expr::Reference(reference) if reference.mutability.is_none() => {
            match strip(&reference.expr) {
                Expr::Closure(closure) => Some((closure, true)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The single names `expr` reads (`k` in `(k * t).sin()`), closures' parameters included.
fn names_read(expr: &Expr, names: &mut Vec<Ident>) {
    struct Reads<'n>(&'n mut Vec<Ident>);
    impl<'ast> syn::visit::Visit<'ast> for Reads<'_> {
        fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
            if let (None, Some(name)) = (&path.qself, path.path.get_ident()) {
                if !self.0.contains(name) {
                    self.0.push(name.clone());
                }
            }
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            // `println!("{}", k)`: the names in a macro's arguments.
            if let Ok(args) = mac.parse_body_with(
                syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated,
            ) {
                for arg in &args {
                    self.visit_expr(arg);
                }
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    syn::visit::Visit::visit_expr(&mut Reads(names), expr);
}

/// Where `expr` assigns one of `names` (`k += 1.0`, `k = ..`), if it does.
fn assigns_to(expr: &Expr, names: &[Ident]) -> Option<proc_macro2::Span> {
    first_write(expr, &|target| {
        let mut root = strip(target);
        loop {
            match root {
                Expr::Field(field) => root = strip(&field.base),
                Expr::Index(index) => root = strip(&index.expr),
                Expr::Unary(unary) => root = strip(&unary.expr),
                _ => break,
            }
        }
        !matches!(root, Expr::Path(path)
            if path.path.get_ident().is_some_and(|name| names.contains(name)))
    })
}

/// Where `expr` first assigns (`=`, `op=`) a target that `allowed` refuses, if it does.
pub(super) fn first_write(
    expr: &Expr,
    allowed: &dyn Fn(&Expr) -> bool,
) -> Option<proc_macro2::Span> {
    struct Writes<'a> {
        allowed: &'a dyn Fn(&Expr) -> bool,
        found: Option<proc_macro2::Span>,
    }
    impl Writes<'_> {
        fn target(&mut self, target: &Expr) {
            if !(self.allowed)(target) {
                self.found.get_or_insert(target.span());
            }
        }
    }
    impl<'ast> syn::visit::Visit<'ast> for Writes<'_> {
        fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
            self.target(&assign.left);
            syn::visit::visit_expr_assign(self, assign);
        }
        fn visit_expr_binary(&mut self, binary: &'ast syn::ExprBinary) {
            if super::compound_op(&binary.op).is_some() {
                self.target(&binary.left);
            }
            syn::visit::visit_expr_binary(self, binary);
        }
    }
    let mut writes = Writes {
        allowed,
        found: None,
    };
    syn::visit::Visit::visit_expr(&mut writes, expr);
    writes.found
}
