//! Values of types that derive `Differentiable` built in reverse-mode code (`Point { .. }`,
//! `Shape::Circle(r)`, or given by the branches of an `if`/`match`): built as twins over the
//! scalar type and numbered like `#[grad]` parameters, each float's adjoint handed back to the
//! value it was built from.

use super::*;

impl Generator<'_> {
    /// The type that derives `Differentiable` whose value a control-flow expression gives:
    /// the type of a variant or struct built in one of its branches' tails.
    pub(super) fn built_user_type(&self, expr: &Expr) -> Option<syn::Path> {
        let scalar = self.scalar().to_token_stream();
        let known = |path: &syn::Path| self.locals.user_types.twin_path(path, &scalar).is_some();
        let tail_of = |block: &Block| match block.stmts.last() {
            Some(Stmt::Expr(tail, None)) => Some(tail.clone()),
            _ => None,
        };
        if let Some((type_path, _)) = crate::user_types::built_value(expr) {
            return known(&type_path).then_some(type_path);
        }
        match strip_parens(expr) {
            Expr::If(expr_if) => tail_of(&expr_if.then_branch)
                .and_then(|tail| self.built_user_type(&tail))
                .or_else(|| {
                    let (_, otherwise) = expr_if.else_branch.as_ref()?;
                    self.built_user_type(otherwise)
                }),
            Expr::Match(expr_match) => expr_match
                .arms
                .iter()
                .find_map(|arm| self.built_user_type(&arm.body)),
            Expr::Block(block) if block.label.is_none() => {
                tail_of(&block.block).and_then(|tail| self.built_user_type(&tail))
            }
            _ => None,
        }
    }

    /// `let s = if c { Shape::Circle(r) } else { .. };`: each branch builds its value and hands
    /// its adjoints back; the result is numbered like a `#[grad]` value where the `if` ends.
    pub(super) fn shaped_result_local(
        &mut self,
        name: &syn::PatIdent,
        expr: &Expr,
        type_path: &syn::Path,
    ) {
        let binding = name.ident.unraw();
        let vector = self.vector_slot();
        self.emit(quote!(let mut #binding;));
        self.control_flow(expr, ResultVar::Shaped(binding.clone(), vector));
        let owned = names::derived("__ad_owned_indices_", &binding);
        let indices = names::derived("__ad_indices_", &binding);
        let numbered = quote_spanned! {type_path.span()=>
            ::ad_runtime::__private::number_floats::<#type_path, _>(&#binding)
        };
        self.emit(quote! {
            let (#owned, _) = #numbered;
            let #indices = &#owned;
        });
        self.bind(
            binding,
            Binding::Shaped {
                vector,
                indices: quote!(#indices),
            },
        );
    }

    /// `let [mut] name = node;` of a float: its value now, its adjoint's piece for the sweep.
    /// `let q = Point { x: a * b, y: c };` of a type that derives `Differentiable`: the twin is
    /// built and numbered like a `#[grad]` parameter; the backward piece hands each float
    /// field's adjoint to its value.
    /// `Shape::Circle(a, b)` of a type that derives `Differentiable`, as the struct expression
    /// `Shape::Circle { 0: a, 1: b }` (which Rust accepts too).
    pub(super) fn tuple_variant_as_struct(&self, expr: &Expr) -> Option<syn::ExprStruct> {
        let Expr::Call(call) = strip_parens(expr) else {
            return None;
        };
        crate::user_types::variant_call_type(call)?;
        let Expr::Path(func) = &*call.func else {
            return None;
        };
        let scalar = self.scalar().to_token_stream();
        self.locals.user_types.twin_path(&func.path, &scalar)?;
        let fields = call.args.iter().enumerate().map(|(position, arg)| {
            let member = syn::Member::Unnamed(syn::Index {
                index: position as u32,
                span: arg.span(),
            });
            syn::FieldValue {
                attrs: Vec::new(),
                member,
                colon_token: Some(Default::default()),
                expr: arg.clone(),
            }
        });
        Some(syn::ExprStruct {
            attrs: Vec::new(),
            qself: None,
            path: func.path.clone(),
            brace_token: Default::default(),
            fields: fields.collect(),
            dot2_token: None,
            rest: None,
        })
    }

    pub(super) fn struct_local(&mut self, name: &syn::PatIdent, structure: &syn::ExprStruct) {
        let scalar = self.scalar().to_token_stream();
        let twin = self
            .locals
            .user_types
            .twin_path(&structure.path, &scalar)
            .expect("checked by the caller");
        let Some(type_path) = crate::user_types::struct_type(&structure.path) else {
            self.error(&structure.path, "reverse mode builds named structs here");
            return;
        };
        let float_fields: Vec<&syn::FieldValue> = structure
            .fields
            .iter()
            .filter(|field| self.may_be_float(&field.expr))
            .collect();
        // A field holding a container or another struct is numbered by its own type; reverse
        // mode fills only float fields here.
        for field in &float_fields {
            if self.holds_more_than_a_float(&field.expr) {
                self.error(
                    &field.expr,
                    "reverse mode builds a struct in the body from floats only; a field holding \
                     a container, a tuple or another struct is not followed yet (pass the parts \
                     as #[grad] parameters, or use #[forward])",
                );
                // Later uses of the name are not reported again.
                self.bind(name.ident.unraw(), Binding::Data);
                return;
            }
        }
        let values: Vec<&Expr> = float_fields.iter().map(|field| &field.expr).collect();
        let nodes = self.lower_operands(&values);
        let fields = structure.fields.iter().map(|field| {
            let member = &field.member;
            match float_fields
                .iter()
                .position(|float| std::ptr::eq(*float, field))
            {
                Some(position) => {
                    let value = nodes[position].value();
                    quote!(#member: #value)
                }
                None => {
                    let value = self.native(&field.expr);
                    quote!(#member: #value)
                }
            }
        });
        let (binding, mutability) = (&name.ident, &name.mutability);
        let fields: Vec<TokenStream> = fields.collect();
        self.emit(quote!(let #mutability #binding = #twin { #(#fields,)* };));
        let vector = self.vector_slot();
        let owned = names::derived("__ad_owned_indices_", binding);
        let indices = names::derived("__ad_indices_", binding);
        let numbered = quote_spanned! {structure.path.span()=>
            ::ad_runtime::__private::number_floats::<#type_path, _>(&#binding)
        };
        self.emit(quote! {
            let (#owned, _) = #numbered;
            let #indices = &#owned;
        });
        // A variant of an enum (`Shape::Rect { w, h }`, `Shape::Circle(r)`): its fields are
        // reached by matching the index twin, which has the same variant.
        let variant = (structure.path.segments.len() > type_path.segments.len()).then(|| {
            self.locals
                .user_types
                .twin_path(&structure.path, &quote!(::ad_runtime::__private::Index))
        });
        let mut backward = TokenStream::new();
        for (field, node) in float_fields.iter().zip(&nodes) {
            let member = &field.member;
            let index = self.fresh("field");
            let part = match &variant {
                Some(Some(index_twin)) => quote! {
                    match #indices {
                        #index_twin { #member: __ad_part, .. } => __ad_part,
                        _ => ::core::unreachable!("the variant just built"),
                    }
                },
                _ => quote!(&#indices.#member),
            };
            self.emit(quote! {
                let #index = ::ad_runtime::__private::IndexProbe(#part).__ad_index();
            });
            let cotangent = self.fresh("ct");
            let give = self.backprop(node, cotangent.to_token_stream());
            backward.extend(quote! {
                if let ::core::option::Option::Some(__ad_position) = #index {
                    let #cotangent = __adj.take_element(#vector, __ad_position);
                    #give
                }
            });
        }
        self.piece(backward);
        self.bind(
            binding.unraw(),
            Binding::Shaped {
                vector,
                indices: quote!(#indices),
            },
        );
    }
}
