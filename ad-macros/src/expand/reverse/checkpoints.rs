//! Inner `#[checkpoint]`s of reverse-mode code (on a `let`, a statement, a block or a loop,
//! with `every = k` or `binomial, snapshots = s` schedules): the region runs primal-only,
//! keeping a snapshot of what it reads, and its backward piece runs it again with records.

use super::*;

impl Generator<'_> {
    pub(super) fn checkpointed_local(&mut self, local: &syn::Local) {
        let args = attr::checkpoint_args(self.cx, &local.attrs);
        if !matches!(args, Some(CheckpointArgs::Region) | None) {
            self.error(&local.pat, "a schedule (`every`, `binomial`) applies to loops; write `#[checkpoint]` on a `let`");
        }
        let (name, ty) = match &local.pat {
            Pat::Ident(pat) => (pat.ident.clone(), None),
            Pat::Type(typed) => match &*typed.pat {
                Pat::Ident(pat) => (pat.ident.clone(), Some((*typed.ty).clone())),
                other => return self.error(other, "a checkpointed `let` binds one name"),
            },
            other => return self.error(other, "a checkpointed `let` binds one name"),
        };
        let Some(init) = local.init.as_ref().filter(|init| init.diverge.is_none()) else {
            return self.error(
                &local.pat,
                "a checkpointed `let` needs a value: `#[checkpoint] let y = ...;`",
            );
        };
        let is_float = match &ty {
            Some(ty) => first_float_in(ty).is_some(),
            None => self.may_be_float(&init.expr),
        };
        let is_option = match &ty {
            Some(ty) => options::is_option_of_float(ty),
            None => self.is_option_expr(&init.expr),
        };
        let ty_tokens = ty.as_ref().map(|ty| {
            let ty = retype_type(self.function, ty);
            quote!(: #ty)
        });
        // The region's value goes to a fresh variable first: the region may read a variable
        // that this `let` shadows.
        let result = self.fresh("r");
        self.emit(quote!(let mut #result #ty_tokens;));
        let expr = without_own_checkpoint(&init.expr);
        let block: Block = block_of(&expr);
        if is_option {
            let slot = self.slot();
            self.checkpointed_region(&block, ResultVar::Option(result.clone(), slot));
            self.emit(quote!(let #name = #result;));
            self.bind(name, Binding::Option(slot));
        } else if is_float {
            let slot = self.slot();
            self.checkpointed_region(&block, ResultVar::Float(result.clone(), slot));
            self.emit(quote!(let #name = #result;));
            self.bind(name, Binding::Float(slot));
        } else {
            self.checkpointed_region(&block, ResultVar::Data(result.clone()));
            self.emit(quote!(let #name = #result;));
            self.bind(name, Binding::Data);
        }
    }

    pub(super) fn checkpointed_statement(&mut self, expr: &Expr) {
        let args =
            expression_checkpoint(expr).and_then(|attrs| attr::checkpoint_args(self.cx, attrs));
        match args {
            Some(CheckpointArgs::Every(every)) => {
                self.checkpointed_loop(expr, quote!(Every(#every)))
            }
            Some(CheckpointArgs::Binomial(snapshots)) => {
                self.checkpointed_loop(expr, quote!(Binomial(#snapshots)))
            }
            _ => {
                let inner = without_own_checkpoint(expr);
                let block: Block = block_of_statement(&inner);
                self.checkpointed_region(&block, ResultVar::Discard);
            }
        }
    }

    /// A region run primal-only, its inputs kept; the backward sweep runs it again from them,
    /// recording, and back-propagates through that run.
    pub(super) fn checkpointed_region(&mut self, block: &Block, result: ResultVar) {
        self.refuse_exits(block, None);
        let names = self.outer_references(block);
        self.refuse_kept_containers(&names);
        let snapshot = self.fresh("snap");
        let saved = names
            .iter()
            .map(|name| quote_spanned!(name.span()=> ::ad_runtime::checkpoint::snapshot(#name)));
        self.emit(quote!(let #snapshot = (#(#saved,)*);));
        let primal = self.primal_block(block, &result);
        self.emit(primal);
        let recorded = self.region(Vec::new(), block, &result);
        let declare_result = match &result {
            ResultVar::Float(name, _)
            | ResultVar::Option(name, _)
            | ResultVar::Shaped(name, _)
            | ResultVar::Data(name) => {
                quote!(let mut #name;)
            }
            ResultVar::Discard => TokenStream::new(),
        };
        self.piece(quote! {
            {
                let (#(mut #names,)*) = #snapshot;
                #declare_result
                let __ad_checkpointed = { #recorded };
                __ad_checkpointed(__adj);
            }
        });
    }

    /// A loop run primal-only, keeping its state as the schedule says; the backward sweep
    /// re-runs it segment by segment (`ad_runtime::checkpoint::Checkpoints::reverse`).
    pub(super) fn checkpointed_loop(&mut self, expr: &Expr, schedule: TokenStream) {
        let (label, body, kind) =
            match expr {
                Expr::ForLoop(l) => (&l.label, &l.body, LoopKind::For(&l.pat, &l.expr)),
                Expr::While(l) if !matches!(&*l.cond, Expr::Let(_)) => {
                    (&l.label, &l.body, LoopKind::While(&l.cond))
                }
                Expr::Loop(l) => (&l.label, &l.body, LoopKind::Loop),
                _ => return self.error(
                    expr,
                    "a checkpoint schedule (`every`, `binomial`) applies to `for`, `while` and \
                     `loop` loops (not `while let`)",
                ),
            };
        self.refuse_exits(body, Some(label.as_ref().map(|label| &label.name)));
        if let LoopKind::For(_, iter) = &kind {
            if self.may_be_float(iter) {
                self.error(iter, "reverse mode cannot iterate over floats yet");
            }
        }
        let label = label.as_ref().map(|label| label.name.clone());
        let mut read: Block = body.clone();
        if let LoopKind::While(cond) = &kind {
            read.stmts
                .push(Stmt::Expr((*cond).clone(), Some(Default::default())));
        }
        let names = self.outer_references(&read);
        self.refuse_kept_containers(&names);
        let checkpoints = self.fresh("checkpoints");
        let iterations = self.fresh("iterations");
        let iterator = Ident::new("__ad_iterator", Span::call_site());
        let saved = names
            .iter()
            .map(|name| quote_spanned!(name.span()=> ::ad_runtime::checkpoint::snapshot(#name)));
        let primal_body = self.primal_statements(body);
        let (setup, next, state_iterator) = match &kind {
            LoopKind::For(pat, iter) => {
                let iter = self.native(iter);
                let pat = self.retype_pattern(pat);
                (
                    quote!(let mut #iterator = ::core::iter::IntoIterator::into_iter(#iter);),
                    quote! {
                        let ::core::option::Option::Some(#pat) = ::core::iter::Iterator::next(&mut #iterator) else {
                            break;
                        };
                    },
                    quote!(::core::clone::Clone::clone(&#iterator)),
                )
            }
            LoopKind::While(cond) => {
                let cond = self.native(cond);
                (
                    quote!(let mut #iterator = ();),
                    quote!(if !(#cond) { break; }),
                    quote!(()),
                )
            }
            LoopKind::Loop => (quote!(let mut #iterator = ();), quote!(), quote!(())),
        };
        let loop_label = label.clone().map(|label| quote!(#label:));
        self.emit(quote! {
            #setup
            let mut #checkpoints = ::ad_runtime::checkpoint::Checkpoints::new(
                ::ad_runtime::checkpoint::Schedule::#schedule,
            );
            let mut #iterations: usize = 0;
            #loop_label loop {
                #checkpoints.before_iteration(#iterations, || ((#(#saved,)*), #state_iterator));
                #next
                #iterations += 1;
                { #(#primal_body)* }
            }
            #checkpoints.finish(#iterations);
        });
        // The backward sweep: advance (primal-only) and reverse (recording) a number of
        // iterations from a kept state; each iteration that ran did so with its condition true.
        let steps = Ident::new("__ad_steps", Span::call_site());
        let advance_next = match &kind {
            LoopKind::For(pat, _) => {
                let pat = self.retype_pattern(pat);
                quote! {
                    let ::core::option::Option::Some(#pat) = ::core::iter::Iterator::next(&mut #iterator) else {
                        break;
                    };
                }
            }
            _ => TokenStream::new(),
        };
        let recorded_loop: Expr = match &kind {
            LoopKind::For(pat, _) => syn::parse_quote! {
                #loop_label for #pat in ::core::iter::Iterator::take(&mut #iterator, #steps) #body
            },
            _ => syn::parse_quote!(#loop_label for _ in 0..#steps #body),
        };
        let recorded_block: Block = block_of_statement(&recorded_loop);
        let recorded = self.region(Vec::new(), &recorded_block, &ResultVar::Discard);
        // One iteration at a time is what the binomial schedule reverses: without `break` or
        // `continue` in the body it needs no record of iterations.
        let single = if has_exits_to(body, &Lifetime::new("'__ad_none", Span::call_site()), false) {
            None
        } else {
            let single_block: Block = match &kind {
                LoopKind::For(pat, _) => syn::parse_quote!({
                    let ::core::option::Option::Some(#pat) = ::core::iter::Iterator::next(&mut #iterator) else {
                        ::core::unreachable!("the iteration ran in the primal sweep")
                    };
                    #body
                }),
                _ => syn::parse_quote!({ #body }),
            };
            Some(self.region(Vec::new(), &single_block, &ResultVar::Discard))
        };
        let reverse_body = match single {
            Some(single) => quote! {
                if #steps == 1 {
                    let __ad_checkpointed = { #single };
                    __ad_checkpointed(__adj);
                } else {
                    let __ad_checkpointed = { #recorded };
                    __ad_checkpointed(__adj);
                }
            },
            None => quote! {
                let __ad_checkpointed = { #recorded };
                __ad_checkpointed(__adj);
            },
        };
        self.piece(quote! {
            #checkpoints.reverse(
                |((#(mut #names,)*), mut #iterator), #steps: usize| {
                    #loop_label for _ in 0..#steps {
                        #advance_next
                        { #(#primal_body)* }
                    }
                    ((#(#names,)*), #iterator)
                },
                |((#(mut #names,)*), mut #iterator), #steps: usize| {
                    #reverse_body
                },
            );
        });
    }

    /// A checkpoint keeps copies of what its region reads; containers are not kept yet, nor
    /// borrowed data.
    pub(super) fn refuse_kept_containers(&self, names: &[Ident]) {
        for name in names {
            let borrowed = self.function.params.iter().any(|param| {
                &param.name == name && param.kind == ParamKind::Data && param.is_reference()
            });
            if borrowed {
                self.error(
                    name,
                    format!(
                        "a checkpointed region cannot read the borrowed `{name}`: a checkpoint \
                         keeps copies of the values its region reads, which must borrow nothing \
                         (`Copy + 'static`)"
                    ),
                );
                continue;
            }
            if matches!(self.lookup(name), Some(Binding::Shaped { .. })) {
                self.error(
                    name,
                    format!(
                        "a checkpointed region cannot read the #[grad] value `{name}` yet: a \
                         checkpoint keeps copies of the values its region reads, and only \
                         scalars and other `Copy` data are kept; read its floats into locals \
                         before the region"
                    ),
                );
                continue;
            }
            if matches!(
                self.lookup(name),
                Some(Binding::Vector(_) | Binding::Element { .. })
            ) {
                self.error(
                    name,
                    format!(
                        "a checkpointed region cannot read the container `{name}` yet: a \
                         checkpoint keeps copies of the values its region reads, and only \
                         scalars and other `Copy` data are kept"
                    ),
                );
            }
        }
    }

    /// A checkpointed region is run again on its own; it cannot leave early. `own_loop` is the
    /// label of the checkpointed loop whose body `block` is (its own exits are fine), if any.
    pub(super) fn refuse_exits(&self, block: &Block, own_loop: Option<Option<&Lifetime>>) {
        /// The generator, the loops entered inside the region (with their labels), and the
        /// checkpointed loop's own label.
        struct Exits<'g, 'a, 'l> {
            generator: &'g Generator<'a>,
            inner: Vec<Option<Lifetime>>,
            own: Option<&'l Lifetime>,
        }
        impl<'ast> Visit<'ast> for Exits<'_, '_, '_> {
            fn visit_expr_return(&mut self, ret: &'ast syn::ExprReturn) {
                self.generator.error(ret, "a checkpointed region cannot `return`; compute the value and return after the region");
            }
            fn visit_expr_break(&mut self, brk: &'ast syn::ExprBreak) {
                if self.leaves(brk.label.as_ref()) {
                    self.generator
                        .error(brk, "a checkpointed region cannot `break` out of itself");
                }
                syn::visit::visit_expr_break(self, brk);
            }
            fn visit_expr_continue(&mut self, cont: &'ast syn::ExprContinue) {
                if self.leaves(cont.label.as_ref()) {
                    self.generator.error(
                        cont,
                        "a checkpointed region cannot `continue` a loop outside it",
                    );
                }
            }
            fn visit_expr_for_loop(&mut self, l: &'ast syn::ExprForLoop) {
                self.inner
                    .push(l.label.as_ref().map(|label| label.name.clone()));
                syn::visit::visit_expr_for_loop(self, l);
                self.inner.pop();
            }
            fn visit_expr_while(&mut self, l: &'ast syn::ExprWhile) {
                self.inner
                    .push(l.label.as_ref().map(|label| label.name.clone()));
                syn::visit::visit_expr_while(self, l);
                self.inner.pop();
            }
            fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
                self.inner
                    .push(l.label.as_ref().map(|label| label.name.clone()));
                syn::visit::visit_expr_loop(self, l);
                self.inner.pop();
            }
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        impl Exits<'_, '_, '_> {
            /// An exit stays inside the region when it names a loop entered in the region or
            /// the checkpointed loop itself, or, unlabeled, when a loop encloses it.
            fn leaves(&self, label: Option<&Lifetime>) -> bool {
                match label {
                    Some(label) => {
                        self.own != Some(label)
                            && !self.inner.iter().flatten().any(|inner| inner == label)
                    }
                    None => self.inner.is_empty(),
                }
            }
        }
        let (inner, own) = match own_loop {
            // The checkpointed loop's own unlabeled exits are fine: count it as entered.
            Some(label) => (vec![label.cloned()], label),
            None => (Vec::new(), None),
        };
        Exits {
            generator: self,
            inner,
            own,
        }
        .visit_block(block);
    }

    /// The variables of the enclosing code that `block` reads or writes, in order of first
    /// mention: what a checkpoint keeps.
    pub(super) fn outer_references(&self, block: &Block) -> Vec<Ident> {
        struct References<'g, 'a> {
            generator: &'g Generator<'a>,
            names: Vec<Ident>,
        }
        impl<'ast> Visit<'ast> for References<'_, '_> {
            fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
                if let Some(ident) = path.path.get_ident() {
                    if self.generator.lookup(ident).is_some() && !self.names.contains(ident) {
                        self.names.push(ident.clone());
                    }
                }
            }
            fn visit_macro(&mut self, mac: &'ast syn::Macro) {
                if let Ok(args) = MacroArgs::parse_from(mac) {
                    for expr in args.exprs() {
                        self.visit_expr(expr);
                    }
                }
            }
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let mut references = References {
            generator: self,
            names: Vec::new(),
        };
        references.visit_block(block);
        references.names
    }

    /// The statements of `block` as primal code over the scalar type (calls go to the forward
    /// companions, which compute values only).
    pub(super) fn primal_statements(&self, block: &Block) -> Vec<TokenStream> {
        let mut block = block.clone();
        attr::strip_checkpoints(&mut block);
        let mut retype = Retype {
            float: self.function.float,
            locals: &self.locals,
            companion: names::FORWARD_COMPANION,
            value_only: false,
            scalar_type: None,
        };
        retype.visit_block_mut(&mut block);
        block.stmts.iter().map(ToTokens::to_token_stream).collect()
    }

    /// `block` as primal code whose value goes to `result`.
    pub(super) fn primal_block(&self, block: &Block, result: &ResultVar) -> TokenStream {
        let mut statements = block.clone();
        let tail = match statements.stmts.last() {
            Some(Stmt::Expr(_, None)) => match statements.stmts.pop() {
                Some(Stmt::Expr(tail, None)) => Some(tail),
                _ => None,
            },
            _ => None,
        };
        let primal = self.primal_statements(&statements);
        let delivery = tail.map(|tail| {
            let tail_block: Block = block_of(&tail);
            let value = self.primal_statements(&tail_block);
            match result {
                ResultVar::Float(name, _)
                | ResultVar::Option(name, _)
                | ResultVar::Shaped(name, _)
                | ResultVar::Data(name) => {
                    quote!(#name = #(#value)*;)
                }
                ResultVar::Discard => quote!(let _ = #(#value)*;),
            }
        });
        quote!({ #(#primal)* #delivery })
    }
}
