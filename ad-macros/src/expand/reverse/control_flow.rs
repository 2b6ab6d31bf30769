//! `if`, `match`, loops, and the exits (`break`, `continue`, `return`): where the generator
//! opens frames whose backward code is composed when they close.

use super::*;

impl<'a> Generator<'a> {
    // ----- control flow -----

    pub(super) fn control_flow(&mut self, expr: &Expr, result: ResultVar) {
        match expr {
            Expr::If(expr_if) => self.lower_if(expr_if, result),
            Expr::Match(expr_match) => self.lower_match(expr_match, result),
            Expr::Block(block) if block.label.is_none() => self.lower_block(&block.block, result),
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => self.lower_loop(expr, result),
            Expr::Paren(paren) => self.control_flow(&paren.expr, result),
            Expr::Group(group) => self.control_flow(&group.expr, result),
            Expr::Block(block) => self.error(
                &block.label,
                "labeled blocks are not supported in reverse mode yet; use a `loop` with \
                 `break 'label value`",
            ),
            _ => self.error(expr, "this construct is not supported in reverse mode yet"),
        }
    }

    /// Lowers `block` as a nested region: its forward code, then (in the forward code) the
    /// closure holding its backward pieces, as an expression.
    pub(super) fn region(
        &mut self,
        bindings: Vec<(Ident, Binding)>,
        block: &Block,
        result: &ResultVar,
    ) -> TokenStream {
        self.frames.push(Frame::new(FrameKind::Nested));
        for (name, binding) in bindings {
            self.bind(name, binding);
        }
        let tail = self.block_statements(block);
        if let Some(tail) = tail {
            self.deliver(&tail, result);
        }
        let frame = self.frames.pop().expect("the region's frame");
        let forward = frame.forward;
        let pieces = frame.pieces.iter().rev();
        let adjoints = self.adjoints_type();
        quote! {
            #(#forward)*
            move |__adj: &mut #adjoints| { #(#pieces)* }
        }
    }

    /// Sends a block's tail value to where the construct's value goes.
    pub(super) fn deliver(&mut self, tail: &Expr, result: &ResultVar) {
        if let Expr::Return(ret) = tail {
            return self.exit_return(ret);
        }
        if let Expr::Break(brk) = tail {
            return self.exit_break(brk);
        }
        if let Expr::Continue(cont) = tail {
            return self.exit_continue(cont);
        }
        match result {
            ResultVar::Float(name, slot) => {
                let node = self.lower(tail);
                let value = node.value();
                self.emit(quote!(#name = #value;));
                self.assignment_piece(*slot, &node);
            }
            ResultVar::Option(name, slot) => {
                let node = self.lower_option(tail);
                let value = node.value();
                self.emit(quote!(#name = #value;));
                self.assignment_piece(*slot, &node);
            }
            ResultVar::Shaped(name, vector) => {
                if is_control_flow(tail) {
                    return self.control_flow(tail, result.clone());
                }
                // Built (or named) here; its floats' adjoints are handed back to it, in the
                // same numbering, when the backward sweep reaches this branch.
                let held = match strip_parens(tail) {
                    Expr::Path(path) if path.path.get_ident().is_some() => path
                        .path
                        .get_ident()
                        .cloned()
                        .expect("checked by the guard"),
                    _ => {
                        let held = self.fresh("value");
                        self.statement(
                            &syn::parse_quote_spanned!(tail.span()=> let #held = #tail;),
                        );
                        held
                    }
                };
                let Some(Binding::Shaped { vector: source, .. }) = self.lookup(&held) else {
                    return self.error(
                        tail,
                        "reverse mode takes a value of a type that derives `Differentiable` from \
                         a branch when the branch builds it (`Shape::Circle(r)`, `Point { .. }`) \
                         or names a variable holding one",
                    );
                };
                let held = held.unraw();
                self.emit(quote!(#name = #held;));
                let cotangents = self.fresh("cts");
                self.piece(quote! {
                    let #cotangents = __adj.take_vector(#vector);
                    __adj.add_vector(#source, &#cotangents);
                });
            }
            ResultVar::Data(name) => {
                if is_control_flow(tail) {
                    let inner = self.fresh("r");
                    self.emit(quote!(let #inner;));
                    self.control_flow(tail, ResultVar::Data(inner.clone()));
                    self.emit(quote!(#name = #inner;));
                } else {
                    let native = self.native(tail);
                    self.emit(quote!(#name = #native;));
                }
            }
            ResultVar::Discard => self.expression_statement(tail),
        }
    }

    pub(super) fn lower_block(&mut self, block: &Block, result: ResultVar) {
        let record = self.fresh("b");
        let region = self.region(Vec::new(), block, &result);
        self.emit(quote!(let #record = { #region };));
        self.piece(quote!(#record(__adj);));
    }

    pub(super) fn lower_if(&mut self, expr_if: &syn::ExprIf, result: ResultVar) {
        if let Expr::Let(condition) = strip_parens(&expr_if.cond) {
            if self.shaped_part(&condition.expr).is_some() || self.is_option_let(condition) {
                // `if let P = v { a } else { b }` on a `#[grad]` value or an `Option` of
                // floats is `match v { P => a, _ => b }`.
                let pat = &condition.pat;
                let scrutinee = &condition.expr;
                let then_branch = &expr_if.then_branch;
                let otherwise = match &expr_if.else_branch {
                    Some((_, else_expr)) => quote!(#else_expr),
                    None => quote!({}),
                };
                let desugared: syn::ExprMatch = syn::parse_quote_spanned!(expr_if.span()=>
                    match #scrutinee { #pat => #then_branch, _ => #otherwise }
                );
                return self.lower_match(&desugared, result);
            }
        }
        let record = self.fresh("b");
        let (condition, bindings) = self.condition(&expr_if.cond);
        let bindings = bindings
            .into_iter()
            .map(|name| (name, Binding::Data))
            .collect();
        let then_region = self.region(bindings, &expr_if.then_branch, &result);
        let else_region = match &expr_if.else_branch {
            Some((_, else_expr)) => {
                let block: Block = match &**else_expr {
                    Expr::Block(block) if block.label.is_none() => block.block.clone(),
                    other => block_of(other),
                };
                self.region(Vec::new(), &block, &result)
            }
            None => {
                let adjoints = self.adjoints_type();
                quote!(move |__adj: &mut #adjoints| {})
            }
        };
        self.emit(quote! {
            let #record = if #condition {
                ::ad_runtime::__private::Branch::First({ #then_region })
            } else {
                ::ad_runtime::__private::Branch::Second({ #else_region })
            };
        });
        self.piece(quote! {
            match #record {
                ::ad_runtime::__private::Branch::First(__ad_pullback) => __ad_pullback(__adj),
                ::ad_runtime::__private::Branch::Second(__ad_pullback) => __ad_pullback(__adj),
            }
        });
    }

    /// A condition runs as written; an `if let` binds data names in the branch.
    pub(super) fn condition(&mut self, cond: &Expr) -> (TokenStream, Vec<Ident>) {
        // `let`s over `#[grad]` values, and over other floats (an `Option` of floats), in the
        // condition's own chain; an `if let` nested in it is an expression of its own.
        let (mut over_grad_value, mut over_floats) = (None, None);
        for expr in chain_lets(cond) {
            if self.shaped_part(&expr.expr).is_some() {
                over_grad_value.get_or_insert_with(|| Expr::Let(expr.clone()));
            } else if self.may_be_float(&expr.expr) {
                over_floats.get_or_insert_with(|| Expr::Let(expr.clone()));
            }
        }
        let bindings = let_bindings(cond);
        if let Some(found) = over_grad_value {
            self.error(
                found,
                "reverse mode takes a #[grad] value apart with `match` or a lone `if let`; \
                 write `match v { Pattern => .., _ => .. }`",
            );
        }
        if let Some(found) = over_floats {
            self.error(
                found,
                "reverse mode takes floats out of an `Option` with `match` or a lone `if let`, \
                 not in `while let` or a chain of conditions; write `match o { Some(v) => .., \
                 None => .. }` (in a `loop` for a `while let`)",
            );
            return (self.native_unchecked(cond), bindings);
        }
        (self.native(cond), bindings)
    }

    pub(super) fn lower_match(&mut self, expr_match: &syn::ExprMatch, result: ResultVar) {
        let record = self.fresh("b");
        let shaped = self.shaped_part(&expr_match.expr);
        let option = match shaped {
            Some(_) => None,
            None => self.option_scrutinee(expr_match),
        };
        if shaped.is_none() && option.is_none() && self.may_be_float(&expr_match.expr) {
            let message = if self.mentions_option(&expr_match.expr) {
                options::ONE_OPTION_AT_A_TIME
            } else {
                "reverse mode cannot match on a float; compare with `if` instead"
            };
            self.error(&expr_match.expr, message);
        }
        let scrutinee = if let Some((value, _)) = &option {
            value.to_token_stream()
        } else if let Some((_, indices)) = &shaped {
            // A `#[grad]` value is matched with its index twin, so that each name the pattern
            // binds has the numbers of its floats at hand. The value is matched as written
            // (its bindings by value or by reference as the user's are), the index twin in each
            // arm.
            let _ = indices;
            self.native_unchecked(&expr_match.expr)
        } else if self.may_be_float(&expr_match.expr) {
            self.native_unchecked(&expr_match.expr)
        } else {
            self.native(&expr_match.expr)
        };
        let count = expr_match.arms.len();
        let mut arms = Vec::new();
        for (index, arm) in expr_match.arms.iter().enumerate() {
            let pat = self.retype_pattern(&arm.pat);
            let mut index_binding = TokenStream::new();
            let body = &arm.body;
            let mut block: Block = block_of(body);
            let (pat, bindings) = match &shaped {
                None if option.is_some() => {
                    let slot = option.as_ref().map_or(0, |(_, slot)| *slot);
                    let (pat, bindings, copies) = self.option_arm(arm, slot);
                    block = copies;
                    (pat, bindings)
                }
                Some((vector, indices)) => {
                    let (index_pat, names) = self.index_pattern(&arm.pat);
                    index_binding = quote! {
                        let (#index_pat) = &(#indices) else {
                            ::core::unreachable!("an index twin has the shape of its value")
                        };
                    };
                    let bindings = names
                        .into_iter()
                        .map(|(name, indices)| {
                            let binding = Binding::Shaped {
                                vector: *vector,
                                indices: quote!(#indices),
                            };
                            (name, binding)
                        })
                        .collect();
                    (pat, bindings)
                }
                None => (
                    pat,
                    pattern_names(&arm.pat)
                        .into_iter()
                        .map(|name| (name, Binding::Data))
                        .collect(),
                ),
            };
            let guard = arm.guard.as_ref().map(|(if_token, guard)| {
                let guard = self.native(guard);
                quote!(#if_token #guard)
            });
            let region = self.region(bindings, &block, &result);
            let wrapped = nest_branch(index, count, quote!({ #index_binding #region }));
            arms.push(quote!(#pat #guard => { #wrapped }));
        }
        self.emit(quote! {
            let #record = match #scrutinee { #(#arms)* };
        });
        let dispatch = dispatch_branches(count, &record);
        self.piece(dispatch);
    }

    pub(super) fn lower_loop(&mut self, expr: &Expr, result: ResultVar) {
        if let Expr::ForLoop(for_loop) = expr {
            if let Some(desugared) = self.desugar_indexed_iteration(for_loop) {
                return self.lower_loop(&desugared, result);
            }
        }
        let (user_label, body) = match expr {
            Expr::ForLoop(l) => (l.label.as_ref().map(|l| l.name.clone()), &l.body),
            Expr::While(l) => (l.label.as_ref().map(|l| l.name.clone()), &l.body),
            Expr::Loop(l) => (l.label.as_ref().map(|l| l.name.clone()), &l.body),
            _ => unreachable!("lower_loop is called on loops"),
        };
        let record = self.fresh("rec");
        let label = user_label.clone().unwrap_or_else(|| {
            self.counter += 1;
            Lifetime::new(&format!("'__ad_loop{}", self.counter), Span::call_site())
        });
        let boxed = has_exits_to(body, &label, user_label.is_some());
        // Where this loop's pullbacks go (its place among the pools of the loop around it),
        // and the pools of the loops that will be nested in it.
        let root = self.fresh("pools");
        let mut pooled_in = None;
        let mut depth = 1;
        let pool = (!boxed).then(|| match self.frames.last_mut() {
            Some(Frame {
                kind:
                    FrameKind::Loop {
                        pool: Some(parent),
                        env,
                        ..
                    },
                ..
            }) => {
                let index = syn::Index::from(parent.children.len());
                parent.children.push(TokenStream::new());
                let nested = &parent.nested;
                pooled_in = Some((quote!(#nested.#index.0), index.clone()));
                depth += env.as_ref().map_or(0, |env| env.depth);
                Pool {
                    nested: quote!(#nested.#index.1),
                    children: Vec::new(),
                }
            }
            _ => Pool {
                nested: quote!(#root),
                children: Vec::new(),
            },
        });
        let this_frame = self.frames.len();
        let mut reserve = None;
        let mut element_bindings: Vec<(Ident, Binding, TokenStream)> = Vec::new();
        let mut position_name = None;
        let mut count_again = None;
        // The loop's counter: its value in the forward code, the generated counter of a loop
        // over containers, its first value for the backward code of the loop around, and
        // the scope sites naming it.
        let mut counter: Option<(TokenStream, Option<Ident>, TokenStream)> = None;
        let (header, bindings) = match expr {
            Expr::ForLoop(l) if self.container_iteration(&l.expr, &l.pat).is_some() => {
                let (sources, position, elements) =
                    self.container_iteration(&l.expr, &l.pat).expect("checked");
                let index = self.fresh("k");
                let count = self.fresh("n");
                let lengths = sources.iter().map(|(source, _)| quote!(#source.len()));
                self.emit(quote! {
                    let #count: usize = [#(#lengths),*].into_iter().min().unwrap_or(0);
                });
                let iterator = self.fresh("iter");
                self.emit(quote!(let #iterator = 0..#count;));
                reserve = Some(iterator.clone());
                counter = Some((quote!(#index), Some(index.clone()), quote!(0usize)));
                if let Some(position) = position {
                    position_name = Some(position.clone());
                    element_bindings.push((
                        position.clone(),
                        Binding::Data,
                        quote!(let #position = #index;),
                    ));
                }
                // Every element is read before any name is bound: a name may shadow the other
                // container (`for (v, b) in x.iter().zip(v.iter())`).
                let mut renames = Vec::new();
                for ((source, _), (name, by_value)) in sources.iter().zip(&elements) {
                    let temporary = self.fresh("element");
                    element_bindings.push((
                        temporary.clone(),
                        Binding::Data,
                        if *by_value {
                            quote!(let #temporary = #source[#index];)
                        } else {
                            quote!(let #temporary = &#source[#index];)
                        },
                    ));
                    renames.push((name.clone(), temporary));
                }
                for (((_, vector), (name, by_value)), (_, temporary)) in
                    sources.iter().zip(elements).zip(renames)
                {
                    let access = quote!(let #name = #temporary;);
                    let binding = match vector {
                        Some(vector) => Binding::Element {
                            vector: *vector,
                            index: index.clone(),
                            by_value,
                        },
                        None => Binding::Data,
                    };
                    element_bindings.push((name, binding, access));
                }
                (quote!(for #index in #iterator), Vec::new())
            }
            Expr::ForLoop(l) => {
                if self.names_nested(&l.expr) {
                    self.error(&l.expr, NESTED_ELEMENT_BY_ELEMENT);
                } else if self.may_be_float(&l.expr) {
                    self.error(&l.expr, "reverse mode cannot iterate over floats yet");
                }
                let pat = self.retype_pattern(&l.pat);
                // The iterator is made before the record, which reserves its length.
                let iterator = self.fresh("iter");
                match counted_range(l) {
                    Some((name, range, start)) if !boxed => {
                        // `for j in a..b`: the counter of iteration `t` is `a + t`.
                        let first = self.fresh("first");
                        let start_value = self.native(start);
                        let end = range.end.as_ref().map(|end| {
                            let end = self.native(end);
                            quote!((#end))
                        });
                        let limits = &range.limits;
                        self.emit(quote! {
                            let #first = #start_value;
                            let #iterator = ::core::iter::IntoIterator::into_iter(#first #limits #end);
                        });
                        let first_again = self.recompute(start);
                        // When the loop around can compute both ends, it need not keep how many
                        // iterations ran.
                        // Ends of literals alone would leave the count's integer type to
                        // fallback (`i32`), not to the loop's.
                        let named = |expr: &Expr| mentions_any_name(expr);
                        let end_again = range
                            .end
                            .as_ref()
                            .filter(|end| named(start) || named(end))
                            .and_then(|end| self.recompute(end));
                        if let (Some(first), Some(end)) = (&first_again, end_again) {
                            count_again = Some(match range.limits {
                                syn::RangeLimits::HalfOpen(_) => quote! {
                                    ::ad_runtime::__private::Counter::count_to(#first, #end)
                                },
                                syn::RangeLimits::Closed(_) => quote! {
                                    ::ad_runtime::__private::Counter::count_through(#first, #end)
                                },
                            });
                        }
                        let first_backward = first_again.unwrap_or(quote!(#first));
                        counter = Some((quote!(#name), None, first_backward));
                    }
                    _ => {
                        let iter = self.native(&l.expr);
                        self.emit(quote! {
                            let #iterator = ::core::iter::IntoIterator::into_iter(#iter);
                        });
                    }
                }
                reserve = Some(iterator.clone());
                (quote!(for #pat in #iterator), pattern_names(&l.pat))
            }
            Expr::While(l) => {
                let (cond, bindings) = self.condition(&l.cond);
                (quote!(while #cond), bindings)
            }
            _ => (quote!(loop), Vec::new()),
        };
        let env = (!boxed).then(|| {
            let iterator = counter.as_ref().and(reserve.clone());
            let (counter_forward, counter_ident, counter_first) = match counter {
                Some((forward, ident, first)) => (Some(forward), ident, first),
                None => (None, None, quote!(())),
            };
            let running = self.running_indices(body, expr);
            Box::new(LoopEnv {
                depth,
                number_used: false,
                running,
                hoisted: Vec::new(),
                iterator,
                looped: expr.clone(),
                // A range loop binds its counter first.
                counter_sites: if counter_forward.is_some() && counter_ident.is_none() {
                    vec![(this_frame, 0)]
                } else {
                    Vec::new()
                },
                counter_used: false,
                counter_forward,
                counter_ident,
                counter_first,
                own: self.fresh("own"),
                around: pooled_in.is_none().then(|| {
                    Box::new(AroundLoops {
                        tuple: self.fresh("around"),
                        names: Vec::new(),
                        looped: expr.clone(),
                    })
                }),
            })
        });
        self.frames.push(Frame::new(FrameKind::Loop {
            label: label.clone(),
            user_label,
            record: record.clone(),
            result,
            pool,
            env,
        }));
        for name in bindings {
            self.bind(name, Binding::Data);
        }
        for (name, binding, access) in element_bindings {
            self.emit(access);
            if position_name.as_ref() == Some(&name) {
                let site = (this_frame, self.frame().scope.len());
                if let Some(env) = self.frame().env_mut() {
                    env.counter_sites.push(site);
                }
            }
            self.bind(name, binding);
        }
        if let Some(tail) = self.block_statements(body) {
            self.expression_statement(&tail);
        }
        let frame = self.frames.pop().expect("the loop's frame");
        let FrameKind::Loop { pool, env, .. } = frame.kind else {
            unreachable!("the loop's frame is a loop frame")
        };
        let mut forward = frame.forward;
        let pieces = frame.pieces.iter().rev();
        let prologue = frame.prologue.iter().map(|(_, line)| line);
        let adjoints = self.adjoints_type();
        let loop_record = self.fresh("l");
        let has_children = pool.as_ref().is_some_and(|pool| !pool.children.is_empty());
        // An iteration pullback that reads nothing of its iteration's forward code (only the
        // adjoints, its pools and the loop environment).
        let mut keeps_nothing = None;
        // A loop over a range runs as many iterations as its iterator's size hint says: room
        // for their pullbacks is made before it, and pushing needs no call that returns.
        let range_iterator = env.as_ref().and_then(|env| env.iterator.clone());
        // Each iteration's pullback takes the pools of the loops nested in it and the loop
        // environment (both typed from the forward code's own).
        let closure = match &env {
            Some(env) => {
                let pools = match &pool {
                    Some(pool) if has_children => pool.nested.clone(),
                    _ => quote!(()),
                };
                let own = &env.own;
                let counter = match (&env.counter_forward, env.counter_used) {
                    (Some(counter), true) => counter.clone(),
                    _ => quote!(()),
                };
                // Only the type matters here: the forward code never reads it.
                let number = if env.number_used {
                    quote!(0usize)
                } else {
                    quote!(())
                };
                let entries = env.running.iter().map(|running| {
                    let entry = &running.entry;
                    if running.used {
                        quote!(#entry)
                    } else {
                        quote!(())
                    }
                });
                let hoisted = env.hoisted.iter().map(|hoisted| &hoisted.value);
                forward.insert(
                    0,
                    quote!(let #own = (#counter, #number, (#(#entries,)*), (#(#hoisted,)*));),
                );
                let witness = self.env_witness(env);
                let scalar = self.scalar();
                let zeros = env.hoisted.iter().map(|_| self.sum_start());
                let pullback = quote! {
                    move |__adj: &mut #adjoints, __ad_pools, __ad_env| {
                        #[allow(unused_mut)]
                        let mut __ad_hoisted_cotangents = (#(#zeros,)*);
                        #(#prologue)*
                        #(#pieces)*
                        __ad_hoisted_cotangents
                    }
                };
                if captures::captures_nothing(&pullback, &scalar.to_token_stream()) {
                    keeps_nothing = Some(pullback.clone());
                }
                quote!(::ad_runtime::__private::loop_pullback(&#pools, &#witness, #pullback))
            }
            None => quote!(move |__adj: &mut #adjoints| { #(#pieces)* }),
        };
        // The part of the environment this iteration's pullback is handed, from `__ad_t`, the
        // iteration's number.
        let mut iteration_number = quote!(_);
        let mut own_backward = quote!(());
        if let Some(env) = &env {
            let counter = if env.counter_used {
                let first = &env.counter_first;
                quote!(::ad_runtime::__private::Counter::nth(#first, __ad_t))
            } else {
                quote!(())
            };
            let number = if env.number_used {
                quote!(__ad_t)
            } else {
                quote!(())
            };
            if env.counter_used || env.number_used {
                iteration_number = quote!(__ad_t);
            }
            let entries = env.running.iter().map(|running| {
                if running.used {
                    running.entry_backward.clone()
                } else {
                    quote!(())
                }
            });
            let hoisted = env.hoisted.iter().map(|hoisted| &hoisted.value);
            own_backward = quote!((#counter, #number, (#(#entries,)*), (#(#hoisted,)*)));
            if let Some(iterator) = &env.iterator {
                for hoisted in &env.hoisted {
                    let Hoisted {
                        value,
                        position,
                        container,
                        index,
                        ..
                    } = hoisted;
                    self.emit(quote! {
                        let (#value, #position) =
                            if ::core::iter::Iterator::size_hint(&#iterator).1 == Some(0) {
                                (::ad_runtime::Scalar::zero(), 0usize)
                            } else {
                                let __ad_position: usize = #index;
                                (#container[__ad_position], __ad_position)
                            };
                    });
                }
            }
            // Each running index's value when the loop starts.
            for running in env.running.iter().filter(|running| running.used) {
                let (entry, name) = (&running.entry, &running.name);
                self.emit(quote!(let #entry = #name;));
            }
        }
        let counter_backward = own_backward;
        if let Some((records, index)) = pooled_in {
            let pool = pool.expect("a pooled loop has pools");
            let children = &pool.children;
            let own_pool = if keeps_nothing.is_some() {
                quote!(())
            } else {
                quote!(::ad_runtime::__private::PullbackPool::new())
            };
            if let Some(FrameKind::Loop {
                pool: Some(parent), ..
            }) = self.frames.last_mut().map(|frame| &mut frame.kind)
            {
                parent.children[index.index as usize] = quote!((#own_pool, (#(#children,)*)));
            }
            let count = count_again.unwrap_or(quote!(#loop_record));
            let [start_sums, add_sums, end_sums] = self.hoisted_sums(env.as_deref(), &count);
            if let Some(pullback) = keeps_nothing {
                // The forward code counts the iterations; the backward code builds the one
                // pullback they share and runs it once per iteration.
                let iterations = self.fresh("iterations");
                self.emit(quote! {
                    let #loop_record = {
                        let mut #iterations = 0usize;
                        #label: #header {
                            #(#forward)*
                            #iterations += 1;
                        }
                        #iterations
                    };
                });
                self.piece(quote! {
                    #start_sums
                    let __ad_pullback = {
                        let __ad_t = 0usize;
                        ::ad_runtime::__private::loop_pullback(
                            &__ad_pools.#index.1,
                            &(__ad_env, #counter_backward),
                            #pullback,
                        )
                    };
                    let __ad_sums = ::ad_runtime::__private::fold_count(
                        #count,
                        __ad_sums,
                        |#[allow(unused_mut)] mut __ad_sums, #iteration_number| {
                            let __ad_returned = __ad_pullback(
                                __adj,
                                &mut __ad_pools.#index.1,
                                (__ad_env, #counter_backward),
                            );
                            #add_sums
                            __ad_sums
                        },
                    );
                    #end_sums
                });
                return;
            }
            let start = self.fresh("start");
            let (make_room, push) = match &range_iterator {
                Some(iterator) => (
                    quote!(#records.make_room(::core::iter::Iterator::size_hint(&#iterator).1);),
                    quote!(push_in_room),
                ),
                None => (TokenStream::new(), quote!(push)),
            };
            self.emit(quote! {
                let #loop_record = {
                    let #start = #records.len();
                    #make_room
                    #label: #header {
                        #(#forward)*
                        #records.#push(#closure);
                    }
                    #records.len() - #start
                };
            });
            let fields = (0..env.as_ref().map_or(0, |env| env.hoisted.len())).map(syn::Index::from);
            let combine_sums = quote!(|__ad_a, __ad_b| (#(__ad_a.#fields + __ad_b.#fields,)*));
            self.piece(quote! {
                #start_sums
                let __ad_sums = __ad_pools.#index.0.fold_back(
                    #count,
                    __ad_sums,
                    |#[allow(unused_mut)] mut __ad_sums, #iteration_number, __ad_pullback| {
                        let __ad_returned = __ad_pullback(
                            __adj,
                            &mut __ad_pools.#index.1,
                            (__ad_env, #counter_backward),
                        );
                        #add_sums
                        __ad_sums
                    },
                    #combine_sums,
                );
                #end_sums
            });
            return;
        }
        let push = if boxed {
            quote!(#record.push(::std::boxed::Box::new(#closure));)
        } else if range_iterator.is_some() {
            quote!(::ad_runtime::__private::push_in_room(&mut #record, #closure);)
        } else {
            quote!(#record.push(#closure);)
        };
        let record_type = if boxed {
            quote!(: ::std::vec::Vec<::std::boxed::Box<dyn ::core::ops::FnOnce(&mut #adjoints)>>)
        } else {
            TokenStream::new()
        };
        let reserve_capacity = match (&range_iterator, reserve) {
            (Some(iterator), _) => Some(quote! {
                ::ad_runtime::__private::make_room(
                    &mut #record,
                    ::core::iter::Iterator::size_hint(&#iterator).1,
                );
            }),
            (None, Some(iterator)) => {
                Some(quote!(#record.reserve(::core::iter::Iterator::size_hint(&#iterator).0);))
            }
            (None, None) => None,
        };
        if has_children {
            let children = &pool.as_ref().expect("checked").children;
            self.emit(quote!(let mut #root = (#(#children,)*);));
        }
        if let Some(around) = env.as_ref().and_then(|env| env.around.as_ref()) {
            let tuple = &around.tuple;
            let names = around.names.iter().map(|(_, name)| name);
            self.emit(quote!(let #tuple = (#(#names,)*);));
        }
        self.emit(quote! {
            let #loop_record = {
                let mut #record #record_type = ::std::vec::Vec::new();
                #reserve_capacity
                #label: #header {
                    #(#forward)*
                    #push
                }
                #record
            };
        });
        let run = match env.as_ref().and_then(|env| env.around.as_ref()) {
            Some(around) => {
                let tuple = &around.tuple;
                let pools = if has_children {
                    quote!(#root)
                } else {
                    quote!(())
                };
                let count = self.fresh("count");
                let [start_sums, add_sums, end_sums] =
                    self.hoisted_sums(env.as_deref(), &quote!(#count));
                quote! {
                    let #count = #loop_record.len();
                    #start_sums
                    for (#iteration_number, __ad_pullback) in
                        #loop_record.into_iter().enumerate().rev()
                    {
                        let __ad_returned =
                            __ad_pullback(__adj, &mut #pools, (#tuple, #counter_backward));
                        #add_sums
                    }
                    #end_sums
                }
            }
            None => quote! {
                for __ad_pullback in #loop_record.into_iter().rev() {
                    __ad_pullback(__adj);
                }
            },
        };
        self.piece(run);
    }

    // ----- exits (checkpoints: `checkpoints.rs`) -----

    pub(super) fn find_loop(
        &self,
        label: Option<&Lifetime>,
    ) -> Option<(Lifetime, Ident, ResultVar)> {
        for frame in self.frames.iter().rev() {
            if let FrameKind::Loop {
                label: own,
                user_label,
                record,
                result,
                ..
            } = &frame.kind
            {
                let matches = match label {
                    None => true,
                    Some(wanted) => user_label.as_ref() == Some(wanted),
                };
                if matches {
                    return Some((own.clone(), record.clone(), result.clone()));
                }
            }
        }
        None
    }

    pub(super) fn exit_break(&mut self, brk: &syn::ExprBreak) {
        let Some((label, record, result)) = self.find_loop(brk.label.as_ref()) else {
            self.error(
                brk,
                "reverse mode supports `break` only inside loops (not labeled blocks)",
            );
            return;
        };
        if let Some(value) = &brk.expr {
            self.deliver(value, &result);
        }
        self.leave_iteration(&label, &record, quote!(break #label;));
    }

    /// Records the pullback of the part of the iteration that ran, then jumps.
    pub(super) fn leave_iteration(&mut self, label: &Lifetime, record: &Ident, jump: TokenStream) {
        let composed = self.compose_prefix(Some(label));
        let adjoints = self.adjoints_type();
        self.emit(quote! {
            #record.push(::std::boxed::Box::new(move |__adj: &mut #adjoints| { #composed }));
            #jump
        });
    }

    pub(super) fn exit_continue(&mut self, cont: &syn::ExprContinue) {
        let Some((label, record, _)) = self.find_loop(cont.label.as_ref()) else {
            self.error(cont, "`continue` outside a loop");
            return;
        };
        self.leave_iteration(&label, &record, quote!(continue #label;));
    }

    pub(super) fn exit_return(&mut self, ret: &syn::ExprReturn) {
        let Some(value) = &ret.expr else {
            self.error(
                ret,
                "a differentiated function returns a float; write `return value`",
            );
            return;
        };
        let exit = self.exit_with(value);
        self.emit(exit);
    }
}
