//! Slices, `Vec`s and arrays of floats in reverse mode: one growable vector of adjoints per
//! container; loops over them and iterator chains (`map`, `filter`, `zip`, `sum`, `fold`,
//! `collect`) desugared into the index loops they stand for.

use super::*;

impl Generator<'_> {
    /// Whether `let name = init` makes a container of floats, and how.
    pub(super) fn container_init(
        &self,
        init: &Expr,
        name: &Ident,
        ty: Option<&syn::Type>,
    ) -> Option<ContainerInit> {
        let declared_float =
            ty.is_some_and(|ty| first_float_in(ty).is_some()) || self.locals.floats.contains(name);
        match init {
            Expr::Repeat(repeat) if declared_float || self.may_be_float(init) => Some(
                ContainerInit::Repeat(repeat.expr.clone(), repeat.len.clone()),
            )
            .map(|kind| kind.into_array()),
            Expr::Array(array) if declared_float || self.may_be_float(init) => {
                Some(ContainerInit::List(array.elems.iter().cloned().collect()).into_array())
            }
            Expr::Macro(mac) if mac.mac.path.is_ident("vec") => {
                if !(declared_float || self.may_be_float(init)) {
                    return None;
                }
                match MacroArgs::parse_from(&mac.mac).ok()? {
                    MacroArgs::Repeat(element, _, count) => {
                        Some(ContainerInit::Repeat(element, count))
                    }
                    MacroArgs::List(elements) => {
                        Some(ContainerInit::List(elements.into_iter().collect()))
                    }
                }
            }
            Expr::Call(call) if declared_float => match &*call.func {
                Expr::Path(path)
                    if path.path.segments.len() == 2
                        && path.path.segments[0].ident == "Vec"
                        && matches!(
                            path.path.segments[1].ident.to_string().as_str(),
                            "new" | "with_capacity"
                        ) =>
                {
                    Some(ContainerInit::Empty)
                }
                _ => None,
            },
            Expr::MethodCall(_) if copied_container(init).is_some() => {
                let source = copied_container(init).expect("checked by the guard");
                self.vector_of(source).map(ContainerInit::Copy)
            }
            _ => None,
        }
    }

    /// A container of floats bound by `let`: its elements' adjoints live in a vector slot.
    pub(super) fn container_local(
        &mut self,
        name: &Ident,
        mutability: Option<syn::token::Mut>,
        ty: Option<&syn::Type>,
        init: &Expr,
        kind: ContainerInit,
    ) {
        let ty_tokens = self.annotation(ty);
        let vector = self.vector_slot();
        self.owned_vectors.insert(vector);
        let cotangents = self.fresh("cts");
        let (kind, array) = match kind {
            ContainerInit::Array(inner) => (*inner, true),
            other => (other, false),
        };
        // An empty container gets its elements by pushes (the user's or those `collect` is
        // lowered to): its length changes.
        let may_keep_length = !matches!(kind, ContainerInit::Empty);
        let piece = match kind {
            ContainerInit::Repeat(element, count) => {
                let node = self.lower(&element);
                let (value, count) = (node.value(), self.native(&count));
                if array {
                    self.emit(quote!(let #mutability #name #ty_tokens = [#value; #count];));
                } else {
                    self.emit(
                        quote!(let #mutability #name #ty_tokens = ::std::vec![#value; #count];),
                    );
                }
                let total = self.fresh("ct");
                let backprop = self.backprop(&node, total.to_token_stream());
                quote! {
                    let #total = ::ad_runtime::__private::sum_of(__adj.take_vector(#vector));
                    #backprop
                }
            }
            ContainerInit::List(elements) => {
                let operands: Vec<&Expr> = elements.iter().collect();
                let nodes = self.lower_operands(&operands);
                let values = nodes.iter().map(Node::value);
                if array {
                    self.emit(quote!(let #mutability #name #ty_tokens = [#(#values),*];));
                } else {
                    self.emit(
                        quote!(let #mutability #name #ty_tokens = ::std::vec![#(#values),*];),
                    );
                }
                let mut backprops = TokenStream::new();
                for (position, node) in nodes.iter().enumerate() {
                    let cotangent = quote! {
                        #cotangents.get(#position).copied().unwrap_or_else(::ad_runtime::Scalar::zero)
                    };
                    backprops.extend(self.backprop(node, cotangent));
                }
                quote! {
                    let #cotangents = __adj.take_vector(#vector);
                    #backprops
                }
            }
            ContainerInit::Array(_) => unreachable!("unwrapped above"),
            ContainerInit::Empty => {
                let value = self.native(init);
                self.emit(quote!(let #mutability #name #ty_tokens = #value;));
                quote!(let _ = __adj.take_vector(#vector);)
            }
            ContainerInit::Copy(source) => {
                let value = self.native_unchecked(init);
                self.emit(quote!(let #mutability #name #ty_tokens = #value;));
                quote! {
                    let #cotangents = __adj.take_vector(#vector);
                    __adj.add_vector(#source, &#cotangents);
                }
            }
            ContainerInit::CopyOfRow(source, start) => {
                let value = self.native_unchecked(init);
                self.emit(quote!(let #mutability #name #ty_tokens = #value;));
                quote! {
                    let #cotangents = __adj.take_vector(#vector);
                    __adj.add_range(#source, ::core::option::Option::Some(#start), &#cotangents);
                }
            }
        };
        self.piece(piece);
        // A container of the function's own block whose length no use changes has its
        // adjoints sized with it when the backward sweep starts (in scope at every return
        // after this `let`), so that adding to an element never grows them.
        let top_level = matches!(
            self.frames.as_slice(),
            [Frame {
                kind: FrameKind::Function,
                ..
            }]
        );
        if top_level && may_keep_length && keeps_its_length(&self.function.item.block, name) {
            let length = self.fresh("len");
            self.emit(quote!(let #length = #name.len();));
            self.sized_vectors.push((vector, length));
        }
        self.bind(name.clone(), Binding::Vector(vector));
    }

    /// `v.push(e)` on a container of floats: the new element's index is kept.
    pub(super) fn push(&mut self, call: &syn::ExprMethodCall, vector: usize) {
        let Some(element) = call.args.first() else {
            return self.error(call, "`push` takes the element");
        };
        let node = self.lower(element);
        if matches!(
            node,
            Node::Vector { .. } | Node::Shaped { .. } | Node::Tuple { .. }
        ) {
            return self.error(
                element,
                "reverse mode took this `Vec` for a container of floats, but a container is \
                 pushed onto it; annotate its type where it is made: \
                 `let mut rows: Vec<Vec<f64>> = Vec::new();`",
            );
        }
        let value = node.value();
        let receiver = &call.receiver;
        let position = self.fresh("i");
        self.emit(quote! {
            let #position: usize = #receiver.len();
            #receiver.push(#value);
        });
        let cotangent = self.fresh("ct");
        let backprop = self.backprop(&node, cotangent.to_token_stream());
        self.piece(quote! {
            let #cotangent = __adj.take_element(#vector, #position);
            #backprop
        });
    }

    /// `v[i] = node` or `x[i][j] = node` (the element at `place`, at `position` in the
    /// adjoints of `vector`): the old element's adjoint is complete here.
    pub(super) fn element_store(
        &mut self,
        place: TokenStream,
        vector: usize,
        position: Ident,
        node: Node,
    ) {
        let value = node.value();
        self.emit(quote!(#place = #value;));
        let cotangent = self.fresh("ct");
        let backprop = self.backprop(&node, cotangent.to_token_stream());
        self.piece(quote! {
            let #cotangent = __adj.take_element(#vector, #position);
            #backprop
        });
    }

    /// A `for` loop over containers of floats, as an index loop: the containers (with their
    /// vector slots, `None` for containers of data), the name bound to the position (for
    /// `enumerate`), and each element's name with whether it is bound by value (`&v`).
    /// Recognized: `x`, `&x`, `x.iter()`, then `.enumerate()` and/or `.zip(y)` (`y`, `&y`,
    /// `y.iter()`), with patterns `v`, `&v`, `(i, v)`, `(a, b)`, `(i, (a, b))`.
    #[allow(clippy::type_complexity)]
    pub(super) fn container_iteration(
        &self,
        iter: &Expr,
        pat: &Pat,
    ) -> Option<(
        Vec<(TokenStream, Option<usize>)>,
        Option<Ident>,
        Vec<(Ident, bool)>,
    )> {
        /// The container, its vector slot, and whether it is iterated by value (`for v in x`
        /// over an owned `Vec`).
        fn source(
            generator: &Generator,
            expr: &Expr,
            direct: bool,
        ) -> Option<(TokenStream, Option<usize>, bool)> {
            match expr {
                Expr::Reference(reference) => source(generator, &reference.expr, false),
                Expr::Paren(paren) => source(generator, &paren.expr, direct),
                Expr::MethodCall(call) if call.method == "iter" && call.args.is_empty() => {
                    source(generator, &call.receiver, false)
                }
                Expr::Path(path) => {
                    let name = path.path.get_ident()?;
                    match generator.lookup(name)? {
                        Binding::Vector(vector) => Some((
                            quote!(#name),
                            Some(vector),
                            direct && generator.owned_vectors.contains(&vector),
                        )),
                        Binding::Data => Some((quote!(#name), None, false)),
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        fn element(pat: &Pat) -> Option<(Ident, bool)> {
            match pat {
                Pat::Ident(ident) if ident.subpat.is_none() && ident.by_ref.is_none() => {
                    Some((ident.ident.clone(), false))
                }
                Pat::Reference(reference) => match &*reference.pat {
                    Pat::Ident(ident) if ident.subpat.is_none() => {
                        Some((ident.ident.clone(), true))
                    }
                    _ => None,
                },
                _ => None,
            }
        }
        fn pair(pat: &Pat) -> Option<(&Pat, &Pat)> {
            match pat {
                Pat::Tuple(tuple) if tuple.elems.len() == 2 => {
                    Some((&tuple.elems[0], &tuple.elems[1]))
                }
                _ => None,
            }
        }
        let (inner, enumerated) = match iter {
            Expr::MethodCall(call) if call.method == "enumerate" && call.args.is_empty() => {
                (&*call.receiver, true)
            }
            other => (other, false),
        };
        let sources: Vec<(TokenStream, Option<usize>, bool)> = match inner {
            Expr::MethodCall(call) if call.method == "zip" && call.args.len() == 1 => {
                vec![
                    source(self, &call.receiver, true)?,
                    source(self, &call.args[0], true)?,
                ]
            }
            other => vec![source(self, other, true)?],
        };
        if sources.iter().all(|(_, vector, _)| vector.is_none()) {
            return None;
        }
        let (position, elements_pat) = if enumerated {
            let (position, rest) = pair(pat)?;
            let Pat::Ident(position) = position else {
                return None;
            };
            (Some(position.ident.clone()), rest)
        } else {
            (None, pat)
        };
        let mut elements = if sources.len() == 2 {
            let (a, b) = pair(elements_pat)?;
            vec![element(a)?, element(b)?]
        } else {
            vec![element(elements_pat)?]
        };
        for ((_, _, by_value), element) in sources.iter().zip(elements.iter_mut()) {
            element.1 |= *by_value;
        }
        let sources = sources
            .into_iter()
            .map(|(tokens, vector, _)| (tokens, vector))
            .collect();
        Some((sources, position, elements))
    }

    /// `x`, `&x`, `&x[..]`: an expression that names a container variable.
    pub(super) fn names_container(&self, expr: &Expr) -> bool {
        self.container_named(expr).is_some()
    }

    pub(super) fn container_named(&self, expr: &Expr) -> Option<usize> {
        match expr {
            Expr::Reference(reference) => self.container_named(&reference.expr),
            Expr::Index(index) if matches!(&*index.index, Expr::Range(_)) => {
                self.container_named(&index.expr)
            }
            Expr::Paren(paren) => self.container_named(&paren.expr),
            _ => self.vector_of(expr),
        }
    }

    /// `base[.copied()][.filter(|w| c)][.map(|p| e)].sum()` (also `product`, `fold(init, f)`)
    /// over a container of floats, as the loop it stands for:
    /// `{ let mut acc = 0.0; for p in base { if c { acc += e; } } acc }`. Iterators are lazy
    /// and the reduction drives them in order, so the loop computes the same thing in the
    /// same order.
    pub(super) fn desugar_reduction(&self, call: &syn::ExprMethodCall) -> Option<Expr> {
        let method = call.method.to_string();
        let (init, combine): (Expr, Option<&Expr>) = match (method.as_str(), call.args.len()) {
            // `std`'s float sums start from `-0.0` (the sum of nothing is `-0.0`).
            ("sum", 0) => (syn::parse_quote!(-0.0), None),
            ("product", 0) => (syn::parse_quote!(1.0), None),
            ("fold", 2) => (call.args[0].clone(), Some(&call.args[1])),
            _ => return None,
        };
        let Adapters {
            map,
            filter,
            by_value,
            base: chain,
        } = Adapters::of(&call.receiver)?;
        let item = Ident::new("__ad_item", Span::call_site());
        let by_value_pattern = |pattern: Pat| -> Pat {
            if by_value {
                syn::parse_quote!(&#pattern)
            } else {
                pattern
            }
        };
        let accumulator = Ident::new("__ad_accumulator", Span::call_site());
        // The loop's pattern is the first closure's element pattern, so that elements bind as
        // in a loop written by hand (references, or values under `copied`).
        let (pattern, step): (Pat, Stmt) = match (map, combine) {
            (Some(map), _) => {
                let pattern = by_value_pattern(strip_pattern_type(&map.inputs[0]).clone());
                let body = &map.body;
                let step = match (method.as_str(), combine) {
                    ("sum", _) => syn::parse_quote!(#accumulator += #body;),
                    ("product", _) => syn::parse_quote!(#accumulator *= #body;),
                    (_, Some(Expr::Closure(fold))) if fold.inputs.len() == 2 => {
                        let (acc, element) = (
                            strip_pattern_type(&fold.inputs[0]).clone(),
                            strip_pattern_type(&fold.inputs[1]).clone(),
                        );
                        let fold_body = &fold.body;
                        syn::parse_quote!({
                            let #element = #body;
                            #accumulator = { let #acc = #accumulator; #fold_body };
                        })
                    }
                    (_, Some(function @ Expr::Path(_))) => {
                        syn::parse_quote!(#accumulator = #function(#accumulator, #body);)
                    }
                    _ => return None,
                };
                (pattern, step)
            }
            (None, Some(Expr::Closure(fold))) if fold.inputs.len() == 2 => {
                let (acc, element) = (
                    strip_pattern_type(&fold.inputs[0]).clone(),
                    strip_pattern_type(&fold.inputs[1]).clone(),
                );
                let fold_body = &fold.body;
                (
                    by_value_pattern(element),
                    syn::parse_quote!(#accumulator = { let #acc = #accumulator; #fold_body };),
                )
            }
            (None, combine) => {
                let (pattern, value): (Pat, Expr) = if by_value {
                    (syn::parse_quote!(&#item), syn::parse_quote!(#item))
                } else {
                    (syn::parse_quote!(#item), syn::parse_quote!(*#item))
                };
                let step = match (method.as_str(), combine) {
                    ("sum", _) => syn::parse_quote!(#accumulator += #value;),
                    ("product", _) => syn::parse_quote!(#accumulator *= #value;),
                    (_, Some(function @ Expr::Path(_))) => {
                        syn::parse_quote!(#accumulator = #function(#accumulator, #value);)
                    }
                    _ => return None,
                };
                (pattern, step)
            }
        };
        let step = Self::filtered(filter, &pattern, by_value, step)?;
        // Only chains over containers of floats that the loop lowering takes, or over a
        // container in a `#[grad]` value (`p.weights.iter()`).
        let over_part = syn::parse_quote!(for #pattern in #chain {});
        if self.desugar_indexed_iteration(&over_part).is_none() {
            self.container_iteration(chain, &pattern)?;
        }
        Some(syn::parse_quote!({
            let mut #accumulator = #init;
            for #pattern in #chain {
                #step
            }
            #accumulator
        }))
    }

    /// `let v = base[.copied()][.filter(|w| c)][.map(|p| e)].collect();` (also
    /// `collect::<Vec<_>>()`, or `let v: Vec<f64>`) over a container of floats, as
    /// `let mut v: Vec<f64> = Vec::new(); for p in base { if c { v.push(e); } }`: the same
    /// elements in the same order. Declines when the chain mentions `v` (the new binding would
    /// shadow it inside the loop) or collects into something other than a `Vec`.
    pub(super) fn desugar_collect(
        &self,
        name: &Ident,
        ty: Option<&syn::Type>,
        init: &Expr,
    ) -> Option<Vec<Stmt>> {
        let Expr::MethodCall(call) = init else {
            return None;
        };
        if call.method != "collect" || !call.args.is_empty() {
            return None;
        }
        let is_vec = |ty: &syn::Type| {
            matches!(ty, syn::Type::Path(path)
                if path.qself.is_none()
                    && path.path.segments.last().is_some_and(|last| last.ident == "Vec"))
        };
        let turbofish = call
            .turbofish
            .as_ref()
            .map(|generics| generics.args.first());
        let vec_turbofish = match turbofish {
            None => true,
            Some(Some(syn::GenericArgument::Type(ty))) => is_vec(ty),
            Some(_) => false,
        };
        if !vec_turbofish || ty.is_some_and(|ty| !is_vec(ty)) || mentions(init, name) {
            return None;
        }
        let Adapters {
            map,
            filter,
            by_value,
            base,
        } = Adapters::of(&call.receiver)?;
        let item = Ident::new("__ad_item", Span::call_site());
        let (pattern, value): (Pat, Expr) = match (map, by_value) {
            (Some(map), false) => (
                strip_pattern_type(&map.inputs[0]).clone(),
                (*map.body).clone(),
            ),
            (Some(map), true) => {
                let pattern = strip_pattern_type(&map.inputs[0]).clone();
                (syn::parse_quote!(&#pattern), (*map.body).clone())
            }
            (None, true) => (syn::parse_quote!(&#item), syn::parse_quote!(#item)),
            (None, false) => (syn::parse_quote!(#item), syn::parse_quote!(*#item)),
        };
        let step = Self::filtered(
            filter,
            &pattern,
            by_value,
            syn::parse_quote!(#name.push(#value);),
        )?;
        self.container_iteration(base, &pattern)?;
        let float = self.function.float.ident(Span::call_site());
        Some(vec![
            syn::parse_quote!(let mut #name: Vec<#float> = Vec::new();),
            syn::parse_quote!(for #pattern in #base { #step }),
        ])
    }

    /// A loop step under the chain's `filter`, if any: `if cond { step }`.
    pub(super) fn filtered(
        filter: Option<&syn::ExprClosure>,
        pattern: &Pat,
        by_value: bool,
        step: Stmt,
    ) -> Option<Stmt> {
        Some(match filter {
            Some(filter) => {
                let condition = Self::filter_condition(filter, pattern, by_value)?;
                syn::parse_quote!(if #condition { #step })
            }
            None => step,
        })
    }

    /// `filter(|w| cond)` as the condition of the loop `for pattern in ..`: `w` is replaced by
    /// the reference the filter would see, written from the loop's element name (`**w` over
    /// `iter()` becomes `**(&v)`). Declines bodies where replacing names could change meaning.
    pub(super) fn filter_condition(
        filter: &syn::ExprClosure,
        pattern: &Pat,
        by_value: bool,
    ) -> Option<Expr> {
        // The loop binds `&..&p`; the loop's items are `&f64`.
        fn peel(pattern: &Pat, depth: usize) -> Option<(Ident, usize)> {
            match pattern {
                Pat::Reference(reference) => peel(&reference.pat, depth + 1),
                Pat::Type(typed) => peel(&typed.pat, depth),
                Pat::Ident(ident) if ident.subpat.is_none() && ident.by_ref.is_none() => {
                    Some((ident.ident.clone(), depth))
                }
                _ => None,
            }
        }
        let (element, loop_refs) = peel(pattern, 0)?;
        let (parameter, filter_refs) = peel(&filter.inputs[0], 0)?;
        // The filter sees `&Item`: `&&f64` over `iter()`, `&f64` after `copied()`; `element`
        // is `&f64` with `&` refs peeled off it.
        let wanted = loop_refs + usize::from(!by_value);
        let replacement: Expr = if wanted >= filter_refs {
            let refs = std::iter::repeat_n(quote!(&), wanted - filter_refs);
            syn::parse_quote!((#(#refs)* #element))
        } else {
            let derefs = std::iter::repeat_n(quote!(*), filter_refs - wanted);
            syn::parse_quote!((#(#derefs)* #element))
        };
        /// Set when the body binds names (`let`, `match`, `if let`), leaves the closure
        /// (`return`, `?`), or reads an outer variable named like the element (`Some(name)`),
        /// which inside the loop would mean the element instead.
        struct Unsafe<'a>(Option<&'a Ident>, bool);
        impl<'ast> Visit<'ast> for Unsafe<'_> {
            fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
                self.1 |= self.0.is_some() && path.path.get_ident() == self.0;
            }
            fn visit_expr(&mut self, expr: &'ast Expr) {
                match expr {
                    Expr::Return(_) | Expr::Try(_) | Expr::Match(_) | Expr::Let(_) => self.1 = true,
                    _ => syn::visit::visit_expr(self, expr),
                }
            }
            fn visit_local(&mut self, _: &'ast syn::Local) {
                self.1 = true;
            }
            fn visit_macro(&mut self, _: &'ast syn::Macro) {
                self.1 = true;
            }
            fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {
                self.1 = true;
            }
            fn visit_item(&mut self, _: &'ast syn::Item) {
                self.1 = true;
            }
        }
        let mut check = Unsafe((parameter != element).then_some(&element), false);
        check.visit_expr(&filter.body);
        if check.1 {
            return None;
        }
        struct Replace<'a>(&'a Ident, &'a Expr);
        impl VisitMut for Replace<'_> {
            fn visit_expr_mut(&mut self, expr: &mut Expr) {
                if let Expr::Path(path) = expr {
                    if path.path.get_ident() == Some(self.0) {
                        *expr = self.1.clone();
                        return;
                    }
                }
                syn::visit_mut::visit_expr_mut(self, expr);
            }
        }
        let mut condition = (*filter.body).clone();
        Replace(&parameter, &replacement).visit_expr_mut(&mut condition);
        Some(condition)
    }

    /// `for row in x` (`&x`, `x.iter()`, with `.enumerate()`) over a container of containers,
    /// `for v in row` (`&row`, `row.iter()`, `.copied()`, `.enumerate()`) over a row, and
    /// `for w in &p.weights` over a container inside a `#[grad]` value: the same loop over
    /// positions, each element bound by a `let` (as a row, an element, or a part).
    pub(super) fn desugar_indexed_iteration(&self, for_loop: &syn::ExprForLoop) -> Option<Expr> {
        let mut iterable = strip_parens(&for_loop.expr);
        let mut enumerated = false;
        let mut by_value = false;
        loop {
            match iterable {
                Expr::MethodCall(call) if call.args.is_empty() && call.method == "enumerate" => {
                    enumerated = true;
                    iterable = &call.receiver;
                }
                Expr::MethodCall(call)
                    if call.args.is_empty()
                        && (call.method == "copied" || call.method == "cloned") =>
                {
                    by_value = true;
                    iterable = &call.receiver;
                }
                Expr::MethodCall(call) if call.args.is_empty() && call.method == "iter" => {
                    iterable = &call.receiver;
                }
                Expr::Reference(reference) if reference.mutability.is_none() => {
                    iterable = &reference.expr;
                }
                _ => break,
            }
        }
        let is_nested = matches!(iterable, Expr::Path(path)
            if path.path.get_ident().is_some_and(|name| matches!(self.lookup(name), Some(Binding::Nested { .. }))));
        // A container of containers, a row bound to a name, a row written `x[i]`, or a
        // container inside a `#[grad]` value.
        let part = self.vector_of(iterable).is_none() && self.shaped_part(iterable).is_some();
        if !is_nested
            && !part
            && self.row_binding(iterable).is_none()
            && self.nested_row(iterable).is_none()
        {
            return None;
        }
        let (position, element): (Pat, Pat) = if enumerated {
            match &*for_loop.pat {
                Pat::Tuple(tuple) if tuple.elems.len() == 2 => {
                    (tuple.elems[0].clone(), tuple.elems[1].clone())
                }
                _ => return None,
            }
        } else {
            (syn::parse_quote!(__ad_position), (*for_loop.pat).clone())
        };
        let position_name = match &position {
            Pat::Ident(ident) => ident.ident.clone(),
            Pat::Wild(_) => Ident::new("__ad_position", Span::call_site()),
            _ => return None,
        };
        let position: Pat = if matches!(position, Pat::Wild(_)) {
            syn::parse_quote!(__ad_position)
        } else {
            position
        };
        // `&v` binds the value, as `.copied()` does.
        let (element, by_value) = match element {
            Pat::Reference(reference) => ((*reference.pat).clone(), true),
            other => (other, by_value),
        };
        let access: Expr = if by_value {
            syn::parse_quote!((#iterable)[#position_name])
        } else {
            syn::parse_quote!(&(#iterable)[#position_name])
        };
        let syn::ExprForLoop {
            attrs, label, body, ..
        } = for_loop;
        let stmts = &body.stmts;
        Some(syn::parse_quote_spanned!(for_loop.span()=>
            #(#attrs)*
            #label for #position in 0..(#iterable).len() {
                let #element = #access;
                #(#stmts)*
            }
        ))
    }

    /// The vector slot of an expression naming a container variable (`x`, `(x)`).
    pub(super) fn vector_of(&self, expr: &Expr) -> Option<usize> {
        match expr {
            Expr::Path(path) => match path.path.get_ident().and_then(|id| self.lookup(id)) {
                Some(Binding::Vector(vector)) => Some(vector),
                _ => None,
            },
            Expr::Paren(paren) => self.vector_of(&paren.expr),
            _ => None,
        }
    }
}
