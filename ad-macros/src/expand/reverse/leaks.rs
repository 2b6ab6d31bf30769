//! The check that a float's derivative is not lost: a float stored in a container, passed to
//! a method of data or assigned inside an expression is refused where it is.

use super::*;

/// Finds floats used where their derivative would be lost: stored in a container, passed to
/// a method of data, assigned inside an expression. Reading a float's value (a comparison, a
/// cast to an integer, `is_nan`, printing) is fine.
pub(super) struct LeakChecker<'g, 'a> {
    pub(super) generator: &'g Generator<'a>,
    pub(super) safe_depth: usize,
    /// Loops entered inside the expression: a `break` or `continue` in one stays in it.
    pub(super) loop_depth: usize,
}

impl LeakChecker<'_, '_> {
    pub(super) fn safely(&mut self, f: impl FnOnce(&mut Self)) {
        self.safe_depth += 1;
        f(self);
        self.safe_depth -= 1;
    }

    /// `f(..)` where `f` is a closure bound by `let` whose body assigns: run natively, its
    /// assignments would change values without their derivatives.
    pub(super) fn calls_assigning_closure(&self, callee: &Expr) -> bool {
        let Expr::Path(path) = callee else {
            return false;
        };
        match path
            .path
            .get_ident()
            .and_then(|name| self.generator.lookup(name))
        {
            Some(Binding::Closure(index)) => assigns(&self.generator.closures[index].closure.body),
            _ => false,
        }
    }
}

impl<'ast> Visit<'ast> for LeakChecker<'_, '_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        match expr {
            Expr::Binary(binary) if is_comparison(&binary.op) => {
                self.safely(|checker| syn::visit::visit_expr_binary(checker, binary))
            }
            Expr::Binary(binary) if compound_rule(&binary.op).is_some() => {
                self.report_assignment(&binary.left);
                self.visit_expr(&binary.right);
            }
            Expr::Assign(assign) => {
                self.report_assignment(&assign.left);
                self.visit_expr(&assign.right);
            }
            Expr::Cast(cast) if float_of_type(&cast.ty).is_none() => {
                self.safely(|checker| syn::visit::visit_expr_cast(checker, cast))
            }
            Expr::MethodCall(call)
                if VALUE_ONLY_METHODS.contains(&call.method.to_string().as_str())
                    || (matches!(call.method.to_string().as_str(), "is_some" | "is_none")
                        && self.generator.is_option_expr(&call.receiver)) =>
            {
                self.safely(|checker| syn::visit::visit_expr_method_call(checker, call))
            }
            Expr::MethodCall(call) if self.generator.is_option_expr(&call.receiver) => {
                let method = call.method.to_string();
                if !["unwrap", "unwrap_or", "unwrap_or_default", "expect"].contains(&method.as_str()) {
                    // Its receiver and arguments are not reported again.
                    return self
                        .generator
                        .error(call, options::method_refused(&method));
                }
                syn::visit::visit_expr_method_call(self, call);
            }
            Expr::Reference(reference) if reference.mutability.is_some() => {
                self.report_assignment(&reference.expr);
                self.visit_expr(&reference.expr);
            }
            Expr::Macro(mac) => {
                if let Ok(args) = MacroArgs::parse_from(&mac.mac) {
                    let reads_only = macros::name(&mac.mac).is_some_and(|name| name != "vec");
                    for arg in args.exprs() {
                        if reads_only {
                            self.safely(|checker| checker.visit_expr(arg));
                        } else {
                            self.visit_expr(arg);
                        }
                    }
                }
            }
            Expr::Path(path) if self.safe_depth == 0 => {
                if let Some(ident) = path.path.get_ident() {
                    if let Some(Binding::Closure(_)) = self.generator.lookup(ident) {
                        self.generator.error(
                            path,
                            format!(
                                "reverse mode inlines `{ident}` where it is called in float \
                                 arithmetic or as a statement; elsewhere it may use only its \
                                 value, in a comparison, a cast to an integer or printing \
                                 (`{ident}(..) < 3`), or write the code without the closure"
                            ),
                        );
                    } else if self.generator.is_float_var(ident) {
                        self.generator.error(
                            path,
                            format!(
                                "reverse mode cannot follow `{ident}` here: its derivative would \
                                 be lost (a float stored in a struct or enum built in the body, \
                                 or passed to a method of data, is not followed yet); use it in \
                                 float arithmetic, tuples, element writes or `push`"
                            ),
                        );
                    }
                }
            }
            Expr::Call(call) if self.calls_assigning_closure(&call.func) => {
                self.generator.error(
                    call,
                    "this closure assigns to variables, and reverse mode follows those \
                     assignments only where the call is a statement or float arithmetic; call \
                     it before this expression and use its result here",
                );
            }
            // Code run as written records no exit: the backward sweep would run the rest of the
            // iteration (or function) back as if it had run (`k = match i { 2 => continue, _ =>
            // 1 };` lost the skipped iteration's derivatives).
            Expr::Continue(_) | Expr::Break(_) | Expr::Return(_)
                if self.loop_depth == 0 || matches!(expr, Expr::Return(_)) =>
            {
                self.generator.error(
                    expr,
                    "reverse mode follows `continue`, `break` and `return` as statements and \
                     as the value of a branch or arm given to a float, not inside an \
                     expression computed as data; write the jump as a statement of its own \
                     (`if i == 2 { continue; }`) and compute the value after it",
                );
            }
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                self.loop_depth += 1;
                syn::visit::visit_expr(self, expr);
                self.loop_depth -= 1;
            }
            Expr::Closure(closure) => self
                .generator
                .error(closure, "reverse mode takes a closure only when bound by `let` and called by name (it is inlined where it is called); write `let f = |t: f64| ...;` and call `f(x)`"),
            _ => syn::visit::visit_expr(self, expr),
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

impl LeakChecker<'_, '_> {
    pub(super) fn report_assignment(&self, target: &Expr) {
        if let Expr::Path(path) = place_root(target) {
            if path
                .path
                .get_ident()
                .is_some_and(|ident| self.generator.is_float_var(ident))
            {
                self.generator.error(
                    target,
                    "reverse mode cannot follow an assignment to a float inside an expression; \
                     make it a statement of its own",
                );
            }
        }
    }
}
