//! Closures bound by `let` in reverse-mode code: kept as written and inlined where they are
//! called, with the free names they read checked to mean the same there.

use super::*;

impl Generator<'_> {
    /// `let f = |a, b| body;`: kept, to be inlined where `f` is called.
    pub(super) fn closure_local(
        &mut self,
        name: &Ident,
        mutability: Option<&syn::token::Mut>,
        closure: &syn::ExprClosure,
    ) {
        // The closure is also emitted as written, where nothing may fix an untyped
        // parameter's type; so every parameter states its type.
        for input in &closure.inputs {
            if !matches!(input, Pat::Type(_)) {
                self.error(
                    input,
                    "reverse mode needs the types of a closure's parameters; write them, as in \
                     `|t: f64|`",
                );
            }
        }
        struct Returns(bool);
        impl<'ast> Visit<'ast> for Returns {
            fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
                self.0 = true;
            }
            fn visit_expr_try(&mut self, _: &'ast syn::ExprTry) {
                self.0 = true;
            }
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let mut returns = Returns(false);
        returns.visit_expr(&closure.body);
        if returns.0 {
            self.error(
                &closure.body,
                "reverse mode inlines closures where they are called, so a closure cannot \
                 `return` (or use `?`) yet; make the value the closure's last expression",
            );
        }
        // The free names of the body, with what they mean here.
        let mut free = Vec::new();
        struct Names<'a>(&'a mut Vec<Ident>);
        impl<'ast> Visit<'ast> for Names<'_> {
            fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
                if let Some(ident) = path.path.get_ident() {
                    self.0.push(ident.clone());
                }
            }
            // `vec![y, t]` reads `y` too: every identifier in a macro's tokens counts (names
            // that are no variable have no binding site, here or at a call).
            fn visit_macro(&mut self, mac: &'ast syn::Macro) {
                self.0.extend(crate::ast::idents_of(mac.tokens.clone()));
            }
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let mut names = Vec::new();
        Names(&mut names).visit_expr(&closure.body);
        // The closure's own parameters are bound afresh at every call, so are not free.
        let parameters: Vec<Ident> = closure
            .inputs
            .iter()
            .flat_map(|input| pattern_bindings(input).0)
            .map(|name| name.unraw())
            .collect();
        for ident in names {
            if parameters.contains(&ident.unraw()) {
                continue;
            }
            if !free.iter().any(|(known, _): &FreeName| known == &ident) {
                let site = self.binding_site(&ident);
                free.push((ident, site));
            }
        }
        let captures = match &closure.capture {
            Some(_) => self.move_captures(closure, &free),
            None => Vec::new(),
        };
        // The closure also exists as written, for uses that need only values (a condition).
        // (`mut` as written: a closure that changes data may be called in a condition.)
        let native = self.native_unchecked(&Expr::Closure(closure.clone()));
        self.emit(quote!(#[allow(unused_mut)] let #mutability #name = #native;));
        self.closures.push(InlinedClosure {
            closure: closure.clone(),
            free,
            captures,
        });
        self.bind(name.clone(), Binding::Closure(self.closures.len() - 1));
    }

    /// A `move` closure sees the values its captured variables had where it was defined: a
    /// copy of each is taken there (a float with an adjoint of its own, data by `Clone`), and
    /// the inlined body reads the copies. Refused: capturing containers, tuples, closures or
    /// loop elements, and changing a captured variable (a `move` closure would keep its own
    /// copy from call to call).
    pub(super) fn move_captures(
        &mut self,
        closure: &syn::ExprClosure,
        free: &[FreeName],
    ) -> Vec<(Ident, Ident)> {
        let assigned = assigned_names(&closure.body);
        let mut captures = Vec::new();
        for (variable, site) in free {
            if site.is_none() {
                continue;
            }
            if assigned.iter().any(|name| name.unraw() == variable.unraw()) {
                self.error(
                    variable,
                    format!(
                        "a `move` closure that changes `{variable}` changes its own copy, kept \
                         from call to call; reverse mode inlines closures where they are \
                         called, so drop `move` or return the new value"
                    ),
                );
                continue;
            }
            let copy = self.fresh("captured");
            match self.lookup(variable) {
                Some(Binding::Float(_)) => {
                    let node = self.lower(&syn::parse_quote!(#variable));
                    self.float_local(&copy, None, &node);
                }
                Some(Binding::Option(_)) => {
                    let copied: Stmt = syn::parse_quote!(let #copy = #variable;);
                    if let Stmt::Local(local) = &copied {
                        self.option_local(local);
                    }
                }
                Some(Binding::Data) => {
                    // Spanned at the name: a captured value that is not `Clone` is reported
                    // there.
                    self.emit(quote_spanned! {variable.span()=>
                        let #copy = ::core::clone::Clone::clone(&#variable);
                    });
                    self.bind(copy.clone(), Binding::Data);
                }
                Some(_) => {
                    self.error(
                        variable,
                        format!(
                            "reverse mode takes `move` closures that capture scalars and data; \
                             `{variable}` is a container, tuple, closure or loop element: drop \
                             `move` (the closure is inlined where it is called)"
                        ),
                    );
                    continue;
                }
                None => continue,
            }
            captures.push((variable.clone(), copy));
        }
        captures
    }

    /// A call of a closure bound by `let`: its body, with its parameters bound to the
    /// arguments, in a block of its own.
    pub(super) fn inline_closure(&mut self, index: usize, call: &syn::ExprCall) -> Node {
        let whole = Expr::Call(call.clone());
        let InlinedClosure {
            closure,
            free,
            captures,
        } = self.closures[index].clone();
        if closure.inputs.len() != call.args.len() {
            return self.refuse(&whole, "the closure takes a different number of arguments");
        }
        for (name, site) in &free {
            let captured = captures.iter().any(|(variable, _)| variable == name);
            if !captured && self.binding_site(name) != *site {
                return self.refuse(
                    &whole,
                    format!(
                        "the closure reads `{name}`, which here names another variable than \
                         where the closure is defined; rename one of them (reverse mode \
                         inlines the closure where it is called)"
                    ),
                );
            }
        }
        // Arguments are evaluated first, as in a call; then the body runs with its parameters.
        let temporaries: Vec<Ident> = (0..call.args.len())
            .map(|_| self.fresh("argument"))
            .collect();
        let arguments = call.args.iter();
        let parameters = closure.inputs.iter();
        let body = &closure.body;
        let (captured, copies): (Vec<&Ident>, Vec<&Ident>) = captures
            .iter()
            .map(|(variable, copy)| (variable, copy))
            .unzip();
        let block: Expr = syn::parse_quote!({
            #(let #temporaries = #arguments;)*
            #(let #captured = #copies;)*
            #(let #parameters = #temporaries;)*
            #body
        });
        if is_unit_valued(body) {
            // `|v| s += v`: run for its effect; the call's value is `()`.
            self.control_flow(&block, ResultVar::Discard);
            return Node::Constant(quote!(()));
        }
        self.lower(&block)
    }
}
