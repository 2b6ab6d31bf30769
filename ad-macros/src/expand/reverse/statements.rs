//! The function's body, its statements and `let`s, and assignments: the first stage of the
//! generator, which walks the body in order and emits the forward code with each piece's
//! backward code.

use super::*;

impl<'a> Generator<'a> {
    // ----- the function -----

    /// The companion's body, and how many element reads its backward code does again.
    pub(super) fn function_body(mut self) -> (TokenStream, usize) {
        self.frames.push(Frame::new(FrameKind::Function));
        for param in &self.function.params {
            let name = &param.name;
            let binding = match param.kind {
                ParamKind::Data => {
                    self.parameter_adjoints.push(quote!(()));
                    Binding::Data
                }
                _ if param.is_scalar() => {
                    let slot = self.slot();
                    self.parameter_adjoints.push(quote!(__adj[#slot]));
                    Binding::Float(slot)
                }
                _ if param.user_type.is_some() => {
                    let vector = self.vector_slot();
                    let indices = names::derived("__ad_indices_", name);
                    let length = names::derived("__ad_length_", name);
                    let path = &param.user_type;
                    let value = if param.is_reference() {
                        quote!(#name)
                    } else {
                        quote!(&#name)
                    };
                    // Held like the parameter (by reference or by value), so that the user's
                    // `*l`, `&**t` reach the index twin as they reach the value.
                    let owned = names::derived("__ad_owned_indices_", name);
                    let held = if param.is_reference() {
                        quote!(&#owned)
                    } else {
                        quote!(#owned)
                    };
                    self.emit(quote! {
                        let (#owned, #length) =
                            ::ad_runtime::__private::number_floats::<#path, _>(#value);
                        let #indices = #held;
                    });
                    self.parameter_adjoints
                        .push(quote!(__adj.vector_result(#vector, #length)));
                    Binding::Shaped {
                        vector,
                        indices: quote!(#indices),
                    }
                }
                _ if param.is_nested_vector() => {
                    // Read by `x[i][j]`: the elements' adjoints in one vector, row after row.
                    let vector = self.vector_slot();
                    let offsets = names::derived("__ad_offsets_", name);
                    self.emit(quote! {
                        let #offsets = ::ad_runtime::__private::row_offsets(
                            #name.iter().map(|row| row.len()),
                        );
                    });
                    let rows = quote! {
                        ::ad_runtime::__private::unflatten(
                            __adj.vector_result(#vector, #offsets[#offsets.len() - 1]),
                            &#offsets,
                        )
                    };
                    self.parameter_adjoints.push(match param.array_length() {
                        Some(_) => quote!(::ad_runtime::__private::rows_into_array(#rows)),
                        None => rows,
                    });
                    Binding::Nested {
                        vector,
                        offsets,
                        growable: false,
                    }
                }
                _ if param.scalar_tuple_len().is_some() => {
                    let count = param.scalar_tuple_len().unwrap_or(0);
                    let slots: Vec<usize> = (0..count).map(|_| self.slot()).collect();
                    self.parameter_adjoints.push(quote!((#(__adj[#slots],)*)));
                    Binding::Tuple(slots)
                }
                _ => {
                    let vector = self.vector_slot();
                    if !param.is_reference() {
                        self.owned_vectors.insert(vector);
                    }
                    let length = names::derived("__ad_length_", name);
                    if matches!(&param.ty, syn::Type::Reference(r) if r.mutability.is_none()) {
                        let site = (self.frames.len() - 1, self.frame().scope.len());
                        self.shared_containers.push(site);
                        self.sized_vectors.push((vector, length.clone()));
                    }
                    self.emit(quote!(let #length = #name.len();));
                    self.parameter_adjoints.push(match param.array_length() {
                        Some(_) => quote! {
                            ::ad_runtime::__private::into_array(__adj.vector_result(#vector, #length))
                        },
                        None => quote!(__adj.vector_result(#vector, #length)),
                    });
                    Binding::Vector(vector)
                }
            };
            self.bind(name.clone(), binding);
        }
        let block = self.function.body.clone();
        let tail = self.block_statements(&block);
        match tail {
            Some(tail) => {
                let exit = self.exit_with(&tail);
                self.emit(exit);
            }
            // Every path has returned; rustc has checked that for the function as written.
            None => self.emit(quote!(::core::unreachable!("every path returns"))),
        }
        let frame = self.frames.pop().expect("the function frame");
        let forward = frame.forward;
        let aliases = self.locals.user_types.aliases();
        let slots = self.slots;
        let vectors = self.vectors;
        let scalar = self.scalar();
        let pullback = pullback_type(self.function, &scalar, self.borrowed.as_ref());
        let output = output_type(self.function, &scalar);
        let body = if self.leaf {
            quote!(#(#forward)*)
        } else {
            quote! {
                ::ad_runtime::__private::maybe_grow(move || -> (#output, #pullback) {
                    #(#forward)*
                })
            }
        };
        let body = quote! {
            #[allow(unused_imports)]
            use ::ad_runtime::__private::{
                CastPrimitive as _, CastScalar as _, IndexOfData as _, IndexOfFloat as _,
                LiftConstant as _, LiftConstantOther as _, LiftBorrowed as _, LiftDerived as _, LiftBorrowedOther as _, LiftFloat as _, LiftOption as _, LiftOther as _, LiftTuple as _, ValueOfReference as _, ValueOfValue as _,
            };
            #[allow(non_camel_case_types, dead_code)]
            type __AdAdjoints<__T> = ::ad_runtime::__private::Adjoints<__T, #slots, #vectors>;
            #aliases
            #body
        };
        (body, self.reads_again)
    }

    /// Returns `tail` from the function: its value and the pullback from here. A tuple result
    /// seeds each element with its part of the cotangent; a container result seeds its
    /// elements' adjoints with the cotangent vector.
    pub(super) fn exit_with(&mut self, tail: &Expr) -> TokenStream {
        let cotangent = Ident::new("__ad_ct", Span::call_site());
        match result_shape(self.function) {
            ResultShape::Derived => {
                self.error(
                    tail,
                    "reverse mode returns a value of a derived type through its engine on the \
                     AD-IR, which does not take this function yet (set AD_IR_EXPLAIN=1 to see \
                     why); return its floats (a tuple or an array) instead",
                );
                quote!(::core::unreachable!())
            }
            ResultShape::Scalar => {
                let node = self.lower(tail);
                let seed = self.backprop(&node, cotangent.to_token_stream());
                self.return_pullback(node.value(), seed)
            }
            ResultShape::Tuple(count) => {
                // A tuple held in a variable.
                if let node @ Node::Tuple { .. } = self.lower_if_tuple(strip_parens(tail), count) {
                    let seed = self.backprop(&node, cotangent.to_token_stream());
                    return self.return_pullback(node.value(), seed);
                }
                let elements: Vec<&Expr> = match strip_parens(tail) {
                    Expr::Tuple(tuple) if tuple.elems.len() == count => {
                        tuple.elems.iter().collect()
                    }
                    other => {
                        self.error(
                            other,
                            "reverse mode returns a tuple written out (`(a, b)`) or held in a \
                             variable",
                        );
                        return quote!(::core::unreachable!());
                    }
                };
                let nodes = self.lower_operands(&elements);
                let mut seed = TokenStream::new();
                for (position, node) in nodes.iter().enumerate() {
                    let part = syn::Index::from(position);
                    seed.extend(self.backprop(node, quote!(#cotangent.#part)));
                }
                let values = nodes.iter().map(Node::value);
                self.return_pullback(quote!((#(#values,)*)), seed)
            }
            ResultShape::Vector => {
                let held = self.held_result(tail, |this, tail| this.vector_of(tail).is_some());
                let tail = &held;
                let Some(vector) = self.vector_of(tail) else {
                    return quote!(::core::unreachable!());
                };
                // Moved out whole: its elements' adjoints come from the cotangent, which must
                // have its length.
                let value = self.native_unchecked(tail);
                let length = self.fresh("result_length");
                self.emit(quote!(let #length = #value.len();));
                let seed = quote! {
                    ::ad_runtime::__private::cotangent_of_length(#length, #cotangent.len());
                    __adj.add_vector(#vector, &#cotangent);
                };
                self.return_pullback(value, seed)
            }
            ResultShape::Rows => {
                let held = self.held_result(tail, |this, tail| this.nested_binding(tail).is_some());
                let tail = &held;
                let Some((vector, offsets, _)) = self.nested_binding(tail) else {
                    self.error(
                        tail,
                        "reverse mode returns a container of rows built in the body (a literal, \
                         rows pushed, a copy) or held in a variable",
                    );
                    return quote!(::core::unreachable!());
                };
                // Moved out whole: its elements' adjoints come from the cotangent, which must
                // have its shape.
                let value = self.native_unchecked(tail);
                let seed = quote! {
                    __adj.add_result_rows(#vector, &#offsets, &#cotangent);
                };
                self.return_pullback(value, seed)
            }
        }
    }

    /// `t`, a tuple of `count` floats held in a variable: its node; anything else a constant
    /// placeholder.
    pub(super) fn lower_if_tuple(&mut self, expr: &Expr, count: usize) -> Node {
        match expr {
            Expr::Path(path) => match path.path.get_ident().and_then(|name| self.lookup(name)) {
                Some(Binding::Tuple(slots)) if slots.len() == count => self.lower(expr),
                _ => Node::Constant(TokenStream::new()),
            },
            _ => Node::Constant(TokenStream::new()),
        }
    }

    /// The pullback of the function from the current point: seed the returned value, then run
    /// the backward pieces of every open frame, innermost first.
    pub(super) fn return_pullback(&mut self, value: TokenStream, seed: TokenStream) -> TokenStream {
        let scalar = self.scalar();
        let cotangent = Ident::new("__ad_ct", Span::call_site());
        let output = output_type(self.function, &scalar);
        let composed = self.compose_prefix(None);
        let adjoints = adjoints_tuple_type(self.function, &scalar);
        let results = &self.parameter_adjoints;
        let sized = self
            .sized_vectors
            .iter()
            .map(|(vector, length)| quote!(__adj.size_vector(#vector, #length);));
        // Data `&mut` parameters have slots after the result's cotangent, holding nothing.
        let (cotangent, output, take) = match super::mutable_params(self.function).next() {
            None => (cotangent, output, None),
            Some(_) => (
                Ident::new("__ad_cts", Span::call_site()),
                super::cotangent_type(self.function, &scalar),
                Some(quote!(let (__ad_ct, ..) = __ad_cts;)),
            ),
        };
        let backward = quote! {
            #take
            let mut __ad_storage: __AdAdjoints<#scalar> = ::ad_runtime::__private::Adjoints::new();
            let __adj = &mut __ad_storage;
            #(#sized)*
            #seed
            #composed
            (#(#results,)*)
        };
        if self.leaf {
            quote! {
                return (#value, move |#cotangent: #output| -> #adjoints { #backward });
            }
        } else {
            quote! {
                return (#value, ::std::boxed::Box::new(move |#cotangent: #output| -> #adjoints {
                    ::ad_runtime::__private::maybe_grow(move || { #backward })
                }));
            }
        }
    }

    /// The backward pieces of the open frames from the innermost out to `target` (a loop
    /// label), or to the function when `target` is `None`. Loops that are left on the way
    /// contribute the iterations they completed.
    pub(super) fn compose_prefix(&self, target: Option<&Lifetime>) -> TokenStream {
        let mut out = TokenStream::new();
        for frame in self.frames.iter().rev() {
            for piece in frame.pieces.iter().rev() {
                out.extend(piece.clone());
            }
            if let FrameKind::Loop { label, record, .. } = &frame.kind {
                if Some(label) == target {
                    return out;
                }
                out.extend(quote! {
                    for __ad_pullback in #record.into_iter().rev() {
                        __ad_pullback(__adj);
                    }
                });
            }
        }
        out
    }

    // ----- statements -----

    /// Lowers the statements of a block into the current frame; returns the tail expression
    /// (the block's value), if any.
    pub(super) fn block_statements(&mut self, block: &Block) -> Option<Expr> {
        let count = block.stmts.len();
        let statements = std::rc::Rc::new(block.stmts.clone());
        let outer = self.following.take();
        let mut tail = None;
        for (index, stmt) in block.stmts.iter().enumerate() {
            match stmt {
                Stmt::Expr(expr, None) if index + 1 == count => {
                    tail = Some(expr.clone());
                    break;
                }
                _ => {
                    self.following = Some((statements.clone(), index + 1));
                    self.statement(stmt);
                    self.advance_running(stmt);
                }
            }
        }
        self.following = outer;
        tail
    }

    pub(super) fn statement(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Local(local) if has_checkpoint(&local.attrs) => self.checkpointed_local(local),
            Stmt::Expr(expr, _) if expression_checkpoint(expr).is_some() => {
                self.checkpointed_statement(expr)
            }
            Stmt::Local(local) => self.local(local),
            Stmt::Item(item) => self.emit(item.to_token_stream()),
            Stmt::Macro(mac) => {
                let expr = Expr::Macro(syn::ExprMacro {
                    attrs: mac.attrs.clone(),
                    mac: mac.mac.clone(),
                });
                let native = self.native(&expr);
                self.emit(quote!(#native;));
            }
            Stmt::Expr(expr, _) => self.expression_statement(expr),
        }
    }

    pub(super) fn local(&mut self, local: &syn::Local) {
        if self.option_local(local) {
            return;
        }
        if let (Pat::Ident(name), Some(init)) = (&local.pat, &local.init) {
            if let Expr::Closure(closure) = &*init.expr {
                return self.closure_local(&name.ident, name.mutability.as_ref(), closure);
            }
        }
        if let Some(init) = &local.init {
            // `let q = &p.inner;`, or a destructuring of any part (`let [x, y] = p.position;`).
            let destructures = !matches!(strip_pattern_type(&local.pat), Pat::Ident(_));
            if self.shaped_argument(&init.expr).is_some()
                || (destructures && self.shaped_part(&init.expr).is_some())
            {
                return self.shaped_local(local);
            }
        }
        if let (Pat::Tuple(pattern), Some(init)) = (strip_pattern_type(&local.pat), &local.init) {
            if let Expr::Path(path) = &*init.expr {
                if let Some(Binding::Tuple(slots)) =
                    path.path.get_ident().and_then(|name| self.lookup(name))
                {
                    if pattern.elems.len() == slots.len() && init.diverge.is_none() {
                        let values: syn::ExprTuple = {
                            let fields = (0..slots.len()).map(syn::Index::from);
                            syn::parse_quote!((#(#path.#fields,)*))
                        };
                        return self.tuple_local(pattern, &values);
                    }
                }
            }
        }
        if let (Pat::Ident(name), Some(init)) = (strip_pattern_type(&local.pat), &local.init) {
            // `let s = if c { Shape::Circle(r) } else { Shape::Square(a) };`
            if init.diverge.is_none() && name.subpat.is_none() && is_control_flow(&init.expr) {
                if let Some(type_path) = self.built_user_type(&init.expr) {
                    return self.shaped_result_local(name, &init.expr, &type_path);
                }
            }
            // `Shape::Circle(r)` is `Shape::Circle { 0: r }`.
            let tuple_variant = self.tuple_variant_as_struct(&init.expr);
            let built = tuple_variant
                .as_ref()
                .map(|structure| Expr::Struct(structure.clone()));
            if let Expr::Struct(structure) =
                built.as_ref().unwrap_or_else(|| strip_parens(&init.expr))
            {
                let scalar = self.scalar().to_token_stream();
                if structure.qself.is_none()
                    && structure.rest.is_none()
                    && init.diverge.is_none()
                    && name.subpat.is_none()
                    && self
                        .locals
                        .user_types
                        .twin_path(&structure.path, &scalar)
                        .is_some()
                {
                    return self.struct_local(name, structure);
                }
            }
            // `let u = t;`: a copy of a tuple of floats.
            if let Expr::Path(path) = strip_parens(&init.expr) {
                if let Some(Binding::Tuple(slots)) =
                    path.path.get_ident().and_then(|name| self.lookup(name))
                {
                    if name.subpat.is_none() && init.diverge.is_none() {
                        let fields = (0..slots.len()).map(syn::Index::from);
                        let copy: syn::ExprTuple = syn::parse_quote!((#(#path.#fields,)*));
                        return self.tuple_value_local(name, &copy);
                    }
                }
            }
            if let Expr::Tuple(tuple) = strip_parens(&init.expr) {
                let typed_as_floats = match &local.pat {
                    Pat::Type(typed) => matches!(&*typed.ty, syn::Type::Tuple(ty)
                        if ty.elems.iter().all(|elem| float_of_type(elem).is_some())),
                    _ => true,
                };
                if typed_as_floats
                    && name.subpat.is_none()
                    && init.diverge.is_none()
                    && !tuple.elems.is_empty()
                    && tuple.elems.iter().all(|elem| self.may_be_float(elem))
                {
                    return self.tuple_value_local(name, tuple);
                }
            }
        }
        // `let (a, b) = g(x);` (or a method's tuple result): each name a float.
        if let (Pat::Tuple(pattern), Some(init)) = (strip_pattern_type(&local.pat), &local.init) {
            let names: Option<Vec<&syn::PatIdent>> = pattern
                .elems
                .iter()
                .map(|element| match element {
                    Pat::Ident(ident) if ident.subpat.is_none() && ident.by_ref.is_none() => {
                        Some(ident)
                    }
                    _ => None,
                })
                .collect();
            let differentiated_call = self.calls_differentiated(&init.expr);
            if let (Some(names), true, None) = (names, differentiated_call, &init.diverge) {
                return self.tuple_result_local(&names, &init.expr);
            }
        }
        if let (Pat::Tuple(pattern), None) = (&local.pat, &local.init) {
            // `let (a, b);`: each name declared on its own, assigned later.
            if pattern
                .elems
                .iter()
                .all(|element| matches!(element, Pat::Ident(_)))
            {
                for element in &pattern.elems {
                    let Pat::Ident(ident) = element else { continue };
                    let name = &ident.ident;
                    let mutability = &ident.mutability;
                    self.emit(quote!(let #mutability #name;));
                    let binding = if self.locals.floats.contains(name) {
                        Binding::Float(self.slot())
                    } else {
                        Binding::Data
                    };
                    self.bind(name.clone(), binding);
                }
                return;
            }
        }
        if let (Pat::Wild(_), Some(init)) = (&local.pat, &local.init) {
            if init.diverge.is_none() && self.may_be_float(&init.expr) {
                // Evaluated for its effects; its value (and derivative) is dropped.
                let node = self.lower(&init.expr);
                let value = node.value();
                self.emit(quote!(let _ = #value;));
                return;
            }
        }
        if let Some((pattern, angle)) = sin_cos_binding(local) {
            if self.may_be_float(angle) {
                // `let (s, c) = e.sin_cos();` is `let a = e; let (s, c) = (a.sin(), a.cos());`.
                let node = self.lower(angle);
                let angle = self.fresh("angle");
                self.float_local(&angle, None, &node);
                let values: syn::ExprTuple = syn::parse_quote!((#angle.sin(), #angle.cos()));
                return self.tuple_local(pattern, &values);
            }
        }
        if let (Pat::Tuple(pattern), Some(init)) = (strip_pattern_type(&local.pat), &local.init) {
            if let (Expr::Tuple(values), None) = (&*init.expr, &init.diverge) {
                if pattern.elems.len() == values.elems.len() && self.may_be_float(&init.expr) {
                    return self.tuple_local(pattern, values);
                }
            }
        }
        let (name, mutability, ty) = match &local.pat {
            Pat::Ident(pat) if pat.subpat.is_none() && pat.by_ref.is_none() => {
                (pat.ident.clone(), pat.mutability, None)
            }
            Pat::Type(typed) => match &*typed.pat {
                Pat::Ident(pat) if pat.subpat.is_none() && pat.by_ref.is_none() => {
                    (pat.ident.clone(), pat.mutability, Some((*typed.ty).clone()))
                }
                _ => return self.data_local(local),
            },
            _ => return self.data_local(local),
        };
        let init = local.init.as_ref();
        if let Some(init) = init {
            if init.diverge.is_some() {
                return self.data_local(local);
            }
            if let Some(statements) = self.desugar_collect(&name, ty.as_ref(), &init.expr) {
                for statement in &statements {
                    self.statement(statement);
                }
                return;
            }
            if matches!(&*init.expr, Expr::MethodCall(call) if call.method == "collect")
                && self.may_be_float(&init.expr)
            {
                // Reported once, at `collect`; later uses of the name are not reported again.
                self.lower(&init.expr);
                let vector = self.vector_slot();
                self.bind(name, Binding::Vector(vector));
                return;
            }
            if self.calls_differentiated(&init.expr) && !self.is_data_constant(&init.expr) {
                let typed_container = ty.as_ref().is_some_and(|ty| {
                    crate::ast::container_element(ty)
                        .and_then(float_of_type)
                        .is_some()
                });
                // The uses of this binding tell what the call returns: those in the rest of
                // its block, up to a `let` binding the name again.
                let body = &self.function.item.block;
                let depth = match (&ty, &self.following) {
                    (Some(_), _) => 0,
                    (None, Some((statements, next))) => {
                        container_use_depth_in(&statements[*next..], &name)
                    }
                    (None, None) if bound_once(body, &name) => container_use_depth(body, &name),
                    (None, None) => 0,
                };
                // `let y = g(x); ...; y` in a function returning a container: its result.
                let returned = match (&self.following, result_shape(self.function)) {
                    (Some((statements, _)), shape @ (ResultShape::Vector | ResultShape::Rows))
                        if self.frames.len() == 1
                            && matches!(statements.last(), Some(Stmt::Expr(Expr::Path(path), None))
                                if path.path.is_ident(&name)) =>
                    {
                        if shape == ResultShape::Rows {
                            2
                        } else {
                            1
                        }
                    }
                    _ => 0,
                };
                let depth = depth.max(returned);
                let typed_rows = ty.as_ref().is_some_and(crate::ast::is_vec_of_float_rows);
                if typed_rows || depth == 2 {
                    return self.rows_result_local(&name, mutability, ty.as_ref(), &init.expr);
                }
                if typed_container || depth == 1 {
                    return self.container_result_local(&name, mutability, ty.as_ref(), &init.expr);
                }
            }
            if builds_empty_vec(&init.expr) {
                let typed_nested = ty.as_ref().is_some_and(is_nested_float_type);
                if typed_nested
                    || (self.locals.floats.contains(&name)
                        && pushes_rows(&self.function.item.block, &name))
                {
                    return self.nested_empty_local(&name, mutability, ty.as_ref(), &init.expr);
                }
            }
            if let Some(rows) = self.literal_of_rows(&init.expr) {
                return self.rows_pushed_from_literal(&name, ty.as_ref(), &init.expr, rows);
            }
            if let Some(literal) = nested_literal(&init.expr) {
                let declared_float = ty.as_ref().is_some_and(|ty| first_float_in(ty).is_some())
                    || self.locals.floats.contains(&name);
                if declared_float || self.may_be_float(&init.expr) {
                    return self.nested_local(&name, mutability, ty.as_ref(), literal);
                }
            }
            if let Some(kind) = self.container_init(&init.expr, &name, ty.as_ref()) {
                return self.container_local(&name, mutability, ty.as_ref(), &init.expr, kind);
            }
            if let Some(kind) = self.row_copy(&init.expr) {
                return self.container_local(&name, mutability, ty.as_ref(), &init.expr, kind);
            }
            if let Some((source, offsets)) = self.nested_copy(&init.expr) {
                // `let owned = rows.to_vec();`: the same shape, so the same row offsets; its
                // adjoints go back to the source's, element by element, where it was made.
                let vector = self.vector_slot();
                let value = self.native_unchecked(&init.expr);
                self.emit(quote!(let #mutability #name = #value;));
                let cotangents = self.fresh("cts");
                self.piece(quote! {
                    let #cotangents = __adj.take_vector(#vector);
                    __adj.add_vector(#source, &#cotangents);
                });
                self.bind(
                    name,
                    Binding::Nested {
                        vector,
                        offsets,
                        growable: false,
                    },
                );
                return;
            }
            if let Some((vector, index)) = self.element_reference(&init.expr) {
                let value = self.native_unchecked(&init.expr);
                self.emit(quote!(let #mutability #name = #value;));
                self.bind(
                    name,
                    Binding::Element {
                        vector,
                        index,
                        by_value: false,
                    },
                );
                return;
            }
            if let Some((vector, start)) = self.row_of(&init.expr) {
                let value = self.native_unchecked(&init.expr);
                self.emit(quote!(let #mutability #name = #value;));
                self.bind(name, Binding::Row { vector, start });
                return;
            }
            // `let r = a[i];` of an array row (a copy): a copy of the row.
            if let Expr::Index(row) = strip_parens(&init.expr) {
                if self.nested_binding(&row.expr).is_some() {
                    let reference: Expr = syn::parse_quote!(&#row);
                    if let Some((vector, start)) = self.row_of(&reference) {
                        let kind = ContainerInit::CopyOfRow(vector, start);
                        return self.container_local(
                            &name,
                            mutability,
                            ty.as_ref(),
                            &init.expr,
                            kind,
                        );
                    }
                }
            }
            // `x[i][j]` (an element, a float) falls through to the float `let` below.
            let nested_element = matches!(strip_parens(&init.expr), Expr::Index(index) if self.nested_row(&index.expr).is_some());
            if self.names_nested(&init.expr) && !nested_element {
                let moved = self.nested_binding(&init.expr).is_some();
                let message = if moved {
                    "reverse mode does not move or alias containers of containers yet; index \
                     the container itself, or copy it with `.clone()`"
                } else {
                    NESTED_ELEMENT_BY_ELEMENT
                };
                self.error(&init.expr, message);
                // Later uses of the name are not reported again.
                self.bind(name, Binding::Data);
                return;
            }
            if self.names_container(&init.expr) {
                self.error(
                    &init.expr,
                    "reverse mode does not move or alias containers of floats yet; index the \
                     container itself, or copy it with `.to_vec()`",
                );
                // Later uses of the alias are not reported again.
                if let Some(vector) = self.container_named(&init.expr) {
                    self.bind(name, Binding::Vector(vector));
                }
                return;
            }
        }
        // `let s: f64 = data..sum();`: a constant whose plain type the annotation gives.
        if let (Some(ty), Some(init)) = (&ty, init) {
            if float_of_type(ty).is_some()
                && init.diverge.is_none()
                && self.is_data_constant(&init.expr)
            {
                let value = &init.expr;
                let scalar = self.scalar();
                let constant = Node::Constant(quote! {
                    ::ad_runtime::__private::LiftProbe::new({
                        let __ad_plain: #ty = #value;
                        __ad_plain
                    })
                    .__ad_lift::<#scalar>()
                });
                return self.float_local(&name, mutability.as_ref(), &constant);
            }
        }
        let is_float = match (&ty, init) {
            (Some(ty), _) => first_float_in(ty).is_some(),
            // A constant or a data function's result has a type the macro cannot see; the
            // floats later assigned to the variable tell.
            (None, Some(init)) => {
                self.may_be_float(&init.expr)
                    || (is_opaque(&init.expr) && self.locals.floats.contains(&name))
            }
            (None, None) => self.locals.floats.contains(&name),
        };
        if !is_float {
            return self.data_local(local);
        }
        if let Some(ty) = &ty {
            let from_call = local
                .init
                .as_ref()
                .is_some_and(|init| matches!(&*init.expr, Expr::Call(_) | Expr::MethodCall(_)));
            let data_call = init.filter(|init| from_call && self.is_data_constant(&init.expr));
            let scalar = self.scalar();
            if let (None, Some(init)) = (float_of_type(ty), data_call) {
                let value = self.native(&init.expr);
                if crate::ast::container_element(ty)
                    .and_then(float_of_type)
                    .is_some()
                {
                    // `let d: Vec<f64> = data(n);`: constants of the scalar type, a container
                    // like any other (written, pushed as a row, passed to calls).
                    let retyped = retype_type(self.function, ty);
                    self.emit(quote! {
                        let #mutability #name: #retyped =
                            ::ad_runtime::__private::lift_elements::<#scalar, _>({
                                let __ad_plain: #ty = #value;
                                __ad_plain
                            });
                    });
                    let vector = self.vector_slot();
                    self.piece(quote!(let _ = __adj.take_vector(#vector);));
                    self.bind(name, Binding::Vector(vector));
                    return;
                }
                // Deeper containers of data: their elements are lifted where they are read.
                self.emit(quote!(let #mutability #name: #ty = #value;));
                self.bind(name, Binding::Data);
                return;
            }
            if float_of_type(ty).is_none() && from_call {
                self.error(
                    ty,
                    "reverse mode takes `Vec`s and arrays of floats, and `Vec`s of such rows, \
                     returned by #[reverse] functions (`let y: Vec<f64> = g(x);`), not this \
                     container; fill a local container in this function instead, or use \
                     #[forward]",
                );
                // Later uses of the name are not reported again.
                self.bind(name, Binding::Data);
                return;
            }
            if float_of_type(ty).is_none() {
                self.error(
                    ty,
                    "reverse mode does not support float containers yet; bind a scalar `f64`",
                );
            }
        }
        let ty_tokens = ty.as_ref().map(|ty| {
            let ty = retype_type(self.function, ty);
            quote!(: #ty)
        });
        let slot = self.slot();
        match init {
            Some(init) => {
                let node = self.lower(&init.expr);
                let value = node.value();
                self.emit(quote!(let #mutability #name #ty_tokens = #value;));
                self.bind(name.clone(), Binding::Float(slot));
                self.assignment_piece(slot, &node);
            }
            None => {
                self.emit(quote!(let #mutability #name #ty_tokens;));
                self.bind(name.clone(), Binding::Float(slot));
            }
        }
    }

    /// `: T` for a `let` annotated with `T`, over the scalar type.
    pub(super) fn annotation(&self, ty: Option<&syn::Type>) -> Option<TokenStream> {
        ty.map(|ty| {
            let ty = retype_type(self.function, ty);
            quote!(: #ty)
        })
    }

    /// `let (a, mut b) = (e1, e2);`: every element is evaluated first (so that
    /// `let (a, b) = (b, a)` swaps), then each is bound like a `let` of its own.
    pub(super) fn tuple_local(&mut self, pattern: &syn::PatTuple, values: &syn::ExprTuple) {
        let operands: Vec<&Expr> = values.elems.iter().collect();
        let floats: Vec<bool> = operands
            .iter()
            .map(|value| self.may_be_float(value))
            .collect();
        let evaluated: Vec<(Node, bool)> = self
            .lower_operands(&operands)
            .into_iter()
            .zip(floats)
            .collect();
        for (element, (node, is_float)) in pattern.elems.iter().zip(evaluated) {
            if matches!(element, Pat::Wild(_)) {
                // Evaluated with the others; its value, and so its derivative, is dropped.
                continue;
            }
            let Pat::Ident(pat) = element else {
                self.error(element, "reverse mode binds tuples of floats to plain names only; write `let (a, b) = ...`");
                continue;
            };
            let (name, mutability) = (&pat.ident, &pat.mutability);
            if is_float {
                self.float_local(name, mutability.as_ref(), &node);
            } else {
                let value = node.value();
                self.emit(quote!(let #mutability #name = #value;));
                self.bind(name.clone(), Binding::Data);
            }
        }
    }

    /// `v` (a container), `t` (a tuple), `p` or `&p.inner` (a `#[grad]` value or part),
    /// `Point { .. }`, `vec![..]`: a value that is not one float.
    pub(super) fn holds_more_than_a_float(&self, expr: &Expr) -> bool {
        match strip_parens(expr) {
            Expr::Path(path) => path.path.get_ident().is_some_and(|name| {
                matches!(
                    self.lookup(name),
                    Some(
                        Binding::Vector(_)
                            | Binding::Tuple(_)
                            | Binding::Nested { .. }
                            | Binding::Row { .. }
                            | Binding::Shaped { .. }
                    )
                )
            }),
            Expr::Struct(_) | Expr::Tuple(_) | Expr::Array(_) | Expr::Repeat(_) => true,
            Expr::Macro(_) => true,
            Expr::Reference(_) => true,
            Expr::MethodCall(call) if call.method == "clone" || call.method == "to_vec" => {
                self.holds_more_than_a_float(&call.receiver)
                    || self.shaped_part(&call.receiver).is_some()
            }
            _ => false,
        }
    }

    /// `let t = (a * b, c);`: a tuple of floats, one slot per element (`t.0`, passed on whole).
    pub(super) fn tuple_value_local(&mut self, name: &syn::PatIdent, tuple: &syn::ExprTuple) {
        let elements: Vec<&Expr> = tuple.elems.iter().collect();
        let nodes = self.lower_operands(&elements);
        let mut slots = Vec::new();
        for node in &nodes {
            let slot = self.slot();
            self.assignment_piece(slot, node);
            slots.push(slot);
        }
        let values = nodes.iter().map(Node::value);
        let (binding, mutability) = (&name.ident, &name.mutability);
        self.emit(quote!(let #mutability #binding = (#(#values,)*);));
        self.bind(binding.unraw(), Binding::Tuple(slots));
    }

    /// `let (a, b) = g(x);` where `g` returns a tuple of floats: each name a float, and one
    /// backward piece handing the callee's pullback the tuple of their adjoints.
    pub(super) fn tuple_result_local(&mut self, names: &[&syn::PatIdent], call: &Expr) {
        if self.is_data_constant(call) {
            // Called with data only: a tuple of constants.
            let value = self.fresh("constants");
            self.emit(quote!(let #value = #call;));
            let scalar = self.scalar();
            for (position, name) in names.iter().enumerate() {
                let field = syn::Index::from(position);
                let constant = Node::Constant(quote! {
                    ::ad_runtime::__private::LiftProbe::new(#value.#field).__ad_lift::<#scalar>()
                });
                self.float_local(&name.ident.unraw(), name.mutability.as_ref(), &constant);
            }
            return;
        }
        let node = self.lower(call);
        let value = node.value();
        let mut slots = Vec::new();
        for (position, name) in names.iter().enumerate() {
            let field = syn::Index::from(position);
            let (binding, mutability) = (&name.ident, &name.mutability);
            self.emit(quote!(let #mutability #binding = #value.#field;));
            let slot = self.slot();
            self.bind(binding.unraw(), Binding::Float(slot));
            slots.push(slot);
        }
        let cotangent = self.fresh("ct");
        let backprop = self.backprop(&node, cotangent.to_token_stream());
        self.piece(quote! {
            let #cotangent = (#(::ad_runtime::__private::take(&mut __adj[#slots]),)*);
            #backprop
        });
    }

    pub(super) fn float_local(
        &mut self,
        name: &Ident,
        mutability: Option<&syn::token::Mut>,
        node: &Node,
    ) {
        let value = node.value();
        self.emit(quote!(let #mutability #name = #value;));
        let slot = self.slot();
        self.bind(name.clone(), Binding::Float(slot));
        self.assignment_piece(slot, node);
    }

    /// A `let` whose value is not a float. A control-flow initializer is lowered as a
    /// construct (it may assign floats inside); anything else runs as written.
    pub(super) fn data_local(&mut self, local: &syn::Local) {
        let pat = &local.pat;
        match &local.init {
            Some(init) if self.may_be_float(&init.expr) => {
                self.error(
                    pat,
                    "reverse mode cannot bind floats with this pattern yet; bind each float to \
                     its own name",
                );
                let mut stmt = local.clone();
                self.retype().visit_local_mut(&mut stmt);
                self.emit(stmt.to_token_stream());
            }
            Some(init) if init.diverge.is_none() && is_control_flow(&init.expr) => {
                let result = self.fresh("r");
                self.emit(quote!(let #result;));
                self.control_flow(&init.expr, ResultVar::Data(result.clone()));
                let pat = self.retype_pattern(pat);
                self.emit(quote!(let #pat = #result;));
            }
            Some(init) => {
                self.check_native(&init.expr);
                if let Some((_, diverge)) = &init.diverge {
                    self.check_native(diverge);
                }
                let mut stmt = local.clone();
                let mut retype = self.retype();
                retype.visit_local_mut(&mut stmt);
                self.emit(stmt.to_token_stream());
            }
            None => {
                let mut stmt = local.clone();
                self.retype().visit_local_mut(&mut stmt);
                self.emit(stmt.to_token_stream());
            }
        }
        let binds_floats = local
            .init
            .as_ref()
            .is_some_and(|init| self.may_be_float(&init.expr));
        for name in pattern_names(&local.pat) {
            // A refused float pattern still binds floats, so that later uses are not reported
            // again as misuses of data.
            let binding = if binds_floats {
                Binding::Float(self.slot())
            } else {
                Binding::Data
            };
            self.bind(name, binding);
        }
    }

    /// `let q = &p.inner;`, `let Point { x, y } = *p;`: names for a `#[grad]` value or its
    /// parts, each with its index twin.
    pub(super) fn shaped_local(&mut self, local: &syn::Local) {
        let init = local.init.as_ref().expect("a local with a value");
        let (vector, indices) = self.shaped_part(&init.expr).expect("checked by the caller");
        if init.diverge.is_some() {
            self.error(
                local,
                "reverse mode matches a #[grad] value with `match`, not `let .. else`",
            );
            return;
        }
        if let Pat::Ident(name) = strip_pattern_type(&local.pat) {
            if name.subpat.is_none() {
                let value = self.native_unchecked(&init.expr);
                let binding = &name.ident;
                self.emit(quote!(let #binding = #value;));
                self.bind(
                    binding.unraw(),
                    Binding::Shaped {
                        vector,
                        indices: quote!((#indices)),
                    },
                );
                return;
            }
        }
        let value = self.native_unchecked(&init.expr);
        let pattern = self.retype_pattern(&local.pat);
        let (index_pattern, names) = self.index_pattern(&local.pat);
        self.emit(quote! {
            let #pattern = #value;
            let (#index_pattern) = &(#indices) else {
                ::core::unreachable!("an index twin has the shape of its value")
            };
        });
        let mutable = mutable_bindings(&local.pat);
        for (name, index) in names {
            self.bind(
                name.clone(),
                Binding::Shaped {
                    vector,
                    indices: quote!(#index),
                },
            );
            // `let [mut x, mut y] = p.position;`: a float copied out to be changed is a float
            // variable of its own from here.
            if mutable.contains(&name) {
                let place: Expr = syn::parse_quote!(#name);
                let node = self.part(
                    &quote!(::ad_runtime::__private::ValueProbe(#name).__ad_value()),
                    &place,
                );
                let token = syn::token::Mut::default();
                self.float_local(&name, Some(&token), &node);
            }
        }
    }

    /// The pattern that matches a `#[grad]` value's index twin alongside it: the same shape
    /// over `usize`, each name `x` bound as `__ad_idx_x`, literals and ranges as `_`. Returns it
    /// and each name with its index name.
    pub(super) fn index_pattern(&self, pat: &Pat) -> (TokenStream, Vec<(Ident, Ident)>) {
        struct Renamer<'g, 'a> {
            generator: &'g Generator<'a>,
            names: Vec<(Ident, Ident)>,
        }
        impl VisitMut for Renamer<'_, '_> {
            fn visit_pat_mut(&mut self, pat: &mut Pat) {
                let usize_type = quote!(::ad_runtime::__private::Index);
                self.generator
                    .locals
                    .user_types
                    .rewrite_pattern(pat, &usize_type);
                match pat {
                    // `None`, `MAX`: a unit variant or a constant, not a binding.
                    Pat::Ident(ident)
                        if ident.subpat.is_none()
                            && ident
                                .ident
                                .to_string()
                                .starts_with(|c: char| c.is_ascii_uppercase()) => {}
                    Pat::Ident(ident) => {
                        let name = ident.ident.unraw();
                        let index = names::derived("__ad_idx_", &name);
                        self.names.push((name, index.clone()));
                        ident.by_ref = None;
                        ident.mutability = None;
                        ident.ident = index;
                        if let Some((_, sub)) = &mut ident.subpat {
                            self.visit_pat_mut(sub);
                        }
                    }
                    Pat::Lit(_) | Pat::Range(_) | Pat::Const(_) => {
                        *pat = syn::parse_quote!(_);
                    }
                    Pat::Type(typed) => {
                        let inner = (*typed.pat).clone();
                        *pat = inner;
                        self.visit_pat_mut(pat);
                    }
                    // `Node { value, .. }` binds `value`; renamed, the field is written out.
                    Pat::Struct(structure) => {
                        for field in structure.fields.iter_mut() {
                            field.colon_token.get_or_insert_with(Default::default);
                            self.visit_pat_mut(&mut field.pat);
                        }
                    }
                    _ => syn::visit_mut::visit_pat_mut(self, pat),
                }
            }
        }
        let mut renamer = Renamer {
            generator: self,
            names: Vec::new(),
        };
        let mut pat = pat.clone();
        renamer.visit_pat_mut(&mut pat);
        (pat.to_token_stream(), renamer.names)
    }

    pub(super) fn retype_pattern(&self, pat: &Pat) -> TokenStream {
        let mut pat = pat.clone();
        self.retype().visit_pat_mut(&mut pat);
        pat.to_token_stream()
    }

    /// The backward of `x = node`: the adjoint of `x` is complete here; hand it to the node.
    /// The backward of `place += e` (or `-=`) given the cotangent of the place's new value,
    /// which is also its old value's: that adjoint stays where it is (rather than being taken
    /// and added back), and only `e` takes its share. `None` for the other operators.
    pub(super) fn passed_through(
        &mut self,
        op: &BinOp,
        node: &Node,
        cotangent: &Ident,
    ) -> Option<TokenStream> {
        if !matches!(op, BinOp::AddAssign(_) | BinOp::SubAssign(_)) {
            return None;
        }
        let Node::Op {
            pullback,
            children,
            lazy,
            ..
        } = node
        else {
            return None;
        };
        let result = self.fresh("c");
        let right = self.backprop(&children[1], quote!(#result.1));
        let build = lazy.as_ref().map(|lazy| quote!(let #pullback = #lazy;));
        Some(quote! {
            #build
            let #result = ::ad_runtime::linear::LinearMap::reverse_apply(&#pullback, #cotangent);
            #right
        })
    }

    pub(super) fn assignment_piece(&mut self, slot: usize, node: &Node) {
        let cotangent = self.fresh("ct");
        let backprop = self.backprop(node, cotangent.to_token_stream());
        self.piece(quote! {
            let #cotangent = ::ad_runtime::__private::take(&mut __adj[#slot]);
            #backprop
        });
    }

    pub(super) fn expression_statement(&mut self, expr: &Expr) {
        if expression_checkpoint(expr).is_some() {
            return self.checkpointed_statement(expr);
        }
        match expr {
            Expr::Assign(assign) => self.assign(assign),
            Expr::Binary(binary) if compound_rule(&binary.op).is_some() => {
                self.compound_assign(binary)
            }
            Expr::Return(ret) => self.exit_return(ret),
            Expr::Break(brk) => self.exit_break(brk),
            Expr::Continue(cont) => self.exit_continue(cont),
            Expr::MethodCall(call)
                if call.method == "push" && self.vector_of(&call.receiver).is_some() =>
            {
                let vector = self.vector_of(&call.receiver).expect("checked");
                self.push(call, vector);
            }
            Expr::MethodCall(call)
                if call.method == "push" && self.names_nested(&call.receiver) =>
            {
                match self.nested_binding(&call.receiver) {
                    Some((vector, offsets, true)) => self.push_row(call, vector, offsets),
                    _ => self.error(
                        call,
                        "reverse mode pushes rows only onto containers of containers built in \
                         the body (`Vec::new()`, `vec![..]`), not onto parameters or copies of \
                         them, nor elements onto their rows; build a new container",
                    ),
                }
            }
            _ if is_control_flow(expr) => self.control_flow(expr, ResultVar::Discard),
            _ if self.may_be_float(expr) => {
                // Evaluated for its effects; its value (and derivative) is dropped.
                let node = self.lower(expr);
                let value = node.value();
                self.emit(quote!(let _ = #value;));
            }
            _ => {
                let native = self.native(expr);
                self.emit(quote!(#native;));
            }
        }
    }

    pub(super) fn assign(&mut self, assign: &syn::ExprAssign) {
        if self.option_assign(assign) {
            return;
        }
        if self.shaped_part(&assign.left).is_some() {
            // Its floats' numbers are fixed where it is bound.
            self.error(
                &assign.left,
                "reverse mode reads a #[grad] value and the names bound to its parts, but does \
                 not assign them; walk the value by recursion (or use #[forward])",
            );
            return;
        }
        if let Expr::Index(index) = &*assign.left {
            if self.nested_row(&index.expr).is_some() {
                // As for primitives, the right side is evaluated before the place.
                let node = self.lower(&assign.right);
                let (vector, place, position) = self
                    .nested_element(index)
                    .expect("an element of a container of containers");
                return self.element_store(place, vector, position, node);
            }
            if self.row_binding(&index.expr).is_some() {
                self.error(
                    &assign.left,
                    "a row bound by `let row = &x[i];` is read-only; write the element as \
                     `x[i][j] = ..`",
                );
                return;
            }
            if let Some(vector) = self.vector_of(&index.expr) {
                let node = self.lower(&assign.right);
                let position = self.index_position(&index.index);
                let base = &index.expr;
                return self.element_store(quote!(#base[#position]), vector, position, node);
            }
        }
        if self.names_nested(&assign.left) {
            self.error(
                &assign.left,
                "reverse mode writes the elements of a container of containers (`x[i][j] = ..`) \
                 but does not replace its rows or the whole container; write the elements one \
                 by one (or use #[forward])",
            );
            return;
        }
        if let (Expr::Tuple(targets), Expr::Tuple(values)) = (&*assign.left, &*assign.right) {
            if targets.elems.len() == values.elems.len() && self.may_be_float(&assign.right) {
                return self.tuple_assign(targets, values);
            }
        }
        match self.float_variable(&assign.left) {
            Some((name, slot)) => {
                let node = self.lower(&assign.right);
                let value = node.value();
                self.emit(quote!(#name = #value;));
                self.assignment_piece(slot, &node);
            }
            None => {
                let whole = Expr::Assign(assign.clone());
                let native = if self.may_be_float(&assign.right) {
                    self.error(
                        &assign.left,
                        "reverse mode can only assign floats to plain variables yet; write to a \
                         local `f64` variable",
                    );
                    self.native_unchecked(&whole)
                } else {
                    self.native(&whole)
                };
                self.emit(quote!(#native;));
            }
        }
    }

    /// `(a, b) = (e1, e2);`: every value first, then each assignment. Backwards, every
    /// target's adjoint is taken before any value's is given: a value may read a target's old
    /// version (`(p, q) = (q, p)`), whose adjoint must not mix with the new one's.
    pub(super) fn tuple_assign(&mut self, targets: &syn::ExprTuple, values: &syn::ExprTuple) {
        let operands: Vec<&Expr> = values.elems.iter().collect();
        let evaluated = self.lower_operands(&operands);
        let mut takes = TokenStream::new();
        let mut gives = TokenStream::new();
        for (target, node) in targets.elems.iter().zip(evaluated) {
            let name = match target {
                Expr::Path(path) => path.path.get_ident().cloned(),
                _ => None,
            };
            let value = node.value();
            match name.as_ref().map(|name| (name, self.lookup(name))) {
                Some((name, Some(Binding::Float(slot)))) => {
                    self.emit(quote!(#name = #value;));
                    let cotangent = self.fresh("ct");
                    takes.extend(quote! {
                        let #cotangent = ::ad_runtime::__private::take(&mut __adj[#slot]);
                    });
                    gives.extend(self.backprop(&node, cotangent.to_token_stream()));
                }
                Some((name, _)) if node.is_constant() => self.emit(quote!(#name = #value;)),
                _ => self.error(
                    target,
                    "reverse mode assigns tuples of floats to plain float variables only",
                ),
            }
        }
        self.piece(quote!(#takes #gives));
    }

    pub(super) fn compound_assign(&mut self, binary: &syn::ExprBinary) {
        if let Expr::Index(index) = &*binary.left {
            let nested = self.nested_row(&index.expr).is_some();
            let flat = self.vector_of(&index.expr);
            if let (true, _) | (false, Some(_)) = (nested, flat) {
                let rule = compound_rule(&binary.op).expect("a compound assignment");
                // As for primitives, the right side is evaluated before the place.
                let right = self.lower(&binary.right);
                let right = if assigns(&binary.right) {
                    self.pin(right)
                } else {
                    right
                };
                // The element read and the element written are at the same place.
                let (old, place, vector) = if nested {
                    let (vector, place, position) = self
                        .nested_element(index)
                        .expect("an element of a container of containers");
                    let old = Node::Element {
                        value: self.read(place.clone()).to_token_stream(),
                        vector,
                        index: position,
                        again: None,
                        hoisted: None,
                    };
                    (old, place, vector)
                } else {
                    let old = self.lower_index(index);
                    let Node::Element {
                        index: position, ..
                    } = &old
                    else {
                        return;
                    };
                    let base = &index.expr;
                    let place = quote!(#base[#position]);
                    (old, place, flat.expect("a container of floats"))
                };
                let Node::Element {
                    index: position, ..
                } = &old
                else {
                    return;
                };
                let position = position.clone();
                let node = self.apply_rule(rule, vec![old, right], Vec::new(), binary.span());
                let value = node.value();
                self.emit(quote!(#place = #value;));
                let cotangent = self.fresh("ct");
                let backprop = match self.passed_through(&binary.op, &node, &cotangent) {
                    Some(right) => quote! {
                        let #cotangent = __adj.element_value(#vector, #position);
                        #right
                    },
                    None => {
                        let backprop = self.backprop(&node, cotangent.to_token_stream());
                        quote! {
                            let #cotangent = __adj.take_element(#vector, #position);
                            #backprop
                        }
                    }
                };
                self.piece(backprop);
                return;
            }
        }
        match self.float_variable(&binary.left) {
            Some((name, slot)) => {
                let rule = compound_rule(&binary.op).expect("a compound assignment");
                // As for primitives, the right side is evaluated before the place is read.
                let right = self.lower(&binary.right);
                let right = if assigns(&binary.right) {
                    self.pin(right)
                } else {
                    right
                };
                let left = Node::Var {
                    name: self.read(quote!(#name)),
                    slot,
                };
                let node = self.apply_rule(rule, vec![left, right], Vec::new(), binary.span());
                let value = node.value();
                self.emit(quote!(#name = #value;));
                let cotangent = self.fresh("ct");
                match self.passed_through(&binary.op, &node, &cotangent) {
                    Some(right) => self.piece(quote! {
                        let #cotangent = __adj[#slot];
                        #right
                    }),
                    None => self.assignment_piece(slot, &node),
                }
            }
            None => {
                if self.may_be_float(&binary.right) {
                    self.error(
                        &binary.left,
                        "reverse mode can only update floats held in plain variables yet",
                    );
                }
                let native = self.native(&Expr::Binary(binary.clone()));
                self.emit(quote!(#native;));
            }
        }
    }
}
