//! `#[derive(Differentiable)]`: a struct or enum gets a twin with every float replaced by a
//! type parameter, and the `ad_runtime::Differentiable` impl that maps between them.
//!
//! ```text
//! struct Point { x: f64, n: usize }
//! // generates
//! struct __AdOver_Point<__S> { x: <f64 as Differentiable>::Over<__S>, n: usize }
//! impl Differentiable for Point { type Float = <f64 as Differentiable>::Float;
//!                                 type Over<__S> = __AdOver_Point<__S>; .. }
//! ```

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, Type};

use crate::ctxt::Ctxt;

pub fn expand(input: DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    if !input.generics.params.is_empty() || input.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &input.generics,
            "`Differentiable` cannot be derived for a generic type yet; write the type over \
             `f64` (or `f32`)",
        );
    }
    let twin = format_ident!("__AdOver_{}", input.ident);
    let shapes = match &input.data {
        Data::Struct(data) => vec![Shape::new(&cx, &input.ident, None, &data.fields)],
        Data::Enum(data) => data
            .variants
            .iter()
            .map(|variant| {
                Shape::new(
                    &cx,
                    &input.ident,
                    Some(variant.ident.clone()),
                    &variant.fields,
                )
            })
            .collect(),
        Data::Union(data) => {
            cx.error_spanned_by(
                data.union_token,
                "`Differentiable` cannot be derived for a union",
            );
            Vec::new()
        }
    };
    let float = shapes
        .iter()
        .flat_map(|shape| &shape.fields)
        .find(|field| field.differentiable)
        .map(|field| field.ty.clone());
    if float.is_none() && !cx.has_errors() {
        cx.error_spanned_by(
            &input.ident,
            "nothing to differentiate: `Differentiable` needs at least one field holding floats \
             (fields of integer, `bool` or `char` type and `#[no_grad]` fields are data)",
        );
    }
    if cx.has_errors() {
        return cx.into_compile_errors();
    }
    let float = float.expect("checked above");
    let generated = Generated {
        name: &input.ident,
        twin: &twin,
        is_enum: matches!(input.data, Data::Enum(_)),
        shapes: &shapes,
    };
    let definition = generated.definition(&input);
    let to_over = generated.convert(quote!(self), true);
    let from_over = generated.convert(quote!(over), false);
    let map = generated.map();
    let zip = generated.zip();
    let for_each = generated.for_each();
    let first = generated.first();
    let name = &input.ident;
    let adjoint = generated.adjoint(&input);
    quote! {
        #definition
        #adjoint

        impl ::ad_runtime::Differentiable for #name {
            type Float = <#float as ::ad_runtime::Differentiable>::Float;
            type Over<__S> = #twin<__S>;
            fn to_over(&self) -> #twin<Self::Float> {
                #to_over
            }
            fn from_over(over: #twin<Self::Float>) -> Self {
                #from_over
            }
            fn map<__A, __B>(over: &#twin<__A>, f: &mut impl FnMut(&__A) -> __B) -> #twin<__B> {
                #map
            }
            fn zip<__A, __B, __C>(
                a: &#twin<__A>,
                b: &#twin<__B>,
                f: &mut impl FnMut(&__A, &__B) -> __C,
            ) -> #twin<__C> {
                #zip
            }
            fn for_each<__A>(over: &#twin<__A>, f: &mut impl FnMut(&__A)) {
                #for_each
            }
            fn first<__A>(over: &#twin<__A>) -> ::core::option::Option<&__A> {
                #first
            }
        }

        impl ::ad_runtime::__private::DerivedValue for #name {}

        // An operand of an operator whose type the derivative code does not see, copied out
        // as a float is (`ir::ReverseOperators`).
        impl<__S> ::ad_runtime::adjoint::ValueOf for #twin<__S> {
            type Value = Self;
            #[inline(always)]
            fn value_of(self) -> Self {
                self
            }
        }

    }
}

/// The fields of a struct or of one enum variant.
struct Shape {
    variant: Option<Ident>,
    named: bool,
    fields: Vec<Field>,
}

struct Field {
    /// `x`, or `0` for a tuple field; `binding` names it in patterns.
    member: TokenStream,
    binding: String,
    ty: Type,
    vis: syn::Visibility,
    differentiable: bool,
}

impl Field {
    /// The name a pattern binds this field to: `__ad_x`, `__ad_a_x`.
    fn binding(&self, prefix: &str) -> Ident {
        format_ident!("__ad_{}{}", prefix, self.binding.trim_start_matches("r#"))
    }
}

impl Shape {
    fn new(cx: &Ctxt, name: &Ident, variant: Option<Ident>, fields: &Fields) -> Shape {
        let named = matches!(fields, Fields::Named(_));
        let fields = fields
            .iter()
            .enumerate()
            .map(|(index, field)| {
                let no_grad = field
                    .attrs
                    .iter()
                    .any(|attr| attr.path().is_ident("no_grad"));
                for attr in &field.attrs {
                    if attr.path().is_ident("no_grad") && !matches!(attr.meta, syn::Meta::Path(_)) {
                        cx.error_spanned_by(attr, "`#[no_grad]` takes no arguments");
                    }
                }
                let (member, binding) = match &field.ident {
                    Some(ident) => (quote!(#ident), ident.to_string()),
                    None => {
                        let index = syn::Index::from(index);
                        (quote!(#index), index.index.to_string())
                    }
                };
                Field {
                    member,
                    binding,
                    ty: replace_self(field.ty.clone(), name),
                    vis: field.vis.clone(),
                    differentiable: !no_grad && !is_data_type(&field.ty),
                }
            })
            .collect();
        Shape {
            variant,
            named,
            fields,
        }
    }

    /// `{ x: <f64 as Differentiable>::Over<__S>, n: usize }` or the tuple form.
    fn twin_fields(&self) -> TokenStream {
        self.declared_fields(|field| {
            let ty = &field.ty;
            if field.differentiable {
                quote_spanned!(ty.span()=> <#ty as ::ad_runtime::Differentiable>::Over<__S>)
            } else {
                quote!(#ty)
            }
        })
    }

    /// The fields' declarations, each with its visibility and the type `ty_of` gives it, in
    /// the shape's form (`{ x: T, .. }`, `(T, ..)`, or nothing).
    fn declared_fields(&self, ty_of: impl Fn(&Field) -> TokenStream) -> TokenStream {
        let fields = self.fields.iter().map(|field| {
            let ty = ty_of(field);
            let vis = &field.vis;
            if self.named {
                let member = &field.member;
                quote!(#vis #member: #ty)
            } else {
                quote!(#vis #ty)
            }
        });
        if self.fields.is_empty() && self.named {
            quote!({})
        } else if self.fields.is_empty() {
            quote!()
        } else if self.named {
            quote!({ #(#fields,)* })
        } else {
            quote!(( #(#fields,)* ))
        }
    }

    /// A pattern binding every field to `<prefix><binding>`.
    fn pattern(&self, path: TokenStream, prefix: &str) -> TokenStream {
        let bindings = self
            .fields
            .iter()
            .map(|field| field.binding(prefix).to_token_stream())
            .collect();
        self.construct(path, bindings)
    }

    /// A value built from one expression per field (or a pattern, from one per field).
    fn construct(&self, path: TokenStream, values: Vec<TokenStream>) -> TokenStream {
        if self.named {
            let members = self.fields.iter().map(|field| &field.member);
            quote!(#path { #(#members: #values,)* })
        } else if self.fields.is_empty() {
            quote!(#path)
        } else {
            quote!(#path( #(#values,)* ))
        }
    }
}

struct Generated<'a> {
    name: &'a Ident,
    twin: &'a Ident,
    is_enum: bool,
    shapes: &'a [Shape],
}

impl Generated<'_> {
    fn path(&self, of: &Ident, shape: &Shape) -> TokenStream {
        match &shape.variant {
            Some(variant) => quote!(#of::#variant),
            None => quote!(#of),
        }
    }

    fn definition(&self, input: &DeriveInput) -> TokenStream {
        let vis = &input.vis;
        let twin = self.twin;
        // A twin of plain floats and primitive data is `Copy` like the values users copy.
        let copy = self
            .shapes
            .iter()
            .flat_map(|shape| &shape.fields)
            .all(|field| is_copy_field(&field.ty));
        // Only what the derivative code needs: data fields are cloned, and need nothing else.
        let derives = if copy {
            quote!(#[derive(Clone, Copy)])
        } else {
            quote!(#[derive(Clone)])
        };
        let doc = format!(
            " The twin of [`{}`] with its floats of type `__S`, generated by \
             `#[derive(Differentiable)]`.",
            self.name
        );
        let attrs = quote! {
            #[doc = #doc]
            #[doc(hidden)]
            #[allow(non_camel_case_types, dead_code)]
            #derives
        };
        if self.is_enum {
            let variants = self.shapes.iter().map(|shape| {
                let variant = &shape.variant;
                let fields = shape.twin_fields();
                quote!(#variant #fields)
            });
            quote! {
                #attrs
                #vis enum #twin<__S> { #(#variants,)* }
            }
        } else {
            let shape = &self.shapes[0];
            let fields = shape.twin_fields();
            let semicolon = (!shape.named).then(|| quote!(;));
            quote! {
                #attrs
                #vis struct #twin<__S> #fields #semicolon
            }
        }
    }

    /// The adjoint type of the twin over a scalar (`__AdAdjoint_T<__S>`, what reverse mode
    /// on the AD-IR accumulates for a value of `T`), and its impls: `Diff` for the twin,
    /// `Adjoint`, the flat form a companion's caller sees, and taking a callee's flat adjoint.
    /// The same shape as the value: a float field's adjoint, `NoAdjoint` for data; an enum's
    /// has one more variant, `__AdZero`, the adjoint no contribution has reached.
    fn adjoint(&self, input: &DeriveInput) -> TokenStream {
        let vis = &input.vis;
        let twin = self.twin;
        let adjoint = format_ident!("__AdAdjoint_{}", self.name);
        let runtime = quote!(::ad_runtime::adjoint);
        let ir = quote!(::ad_runtime::__private::ir);
        let field_adjoint = |field: &Field| {
            let ty = &field.ty;
            if field.differentiable {
                quote!(<<#ty as ::ad_runtime::Differentiable>::Over<__S> as #runtime::Diff>::Adjoint)
            } else {
                quote!(#runtime::NoAdjoint)
            }
        };
        // The adjoint's field types need `__S: Scalar` (a float's adjoint is the scalar).
        let bounds = [quote!(__S: ::ad_runtime::Scalar,)];
        // The same fields as the twin's, with the same visibility.
        let shape_fields = |shape: &Shape| shape.declared_fields(field_adjoint);
        let doc = format!(
            " The adjoint of [`{}`] in reverse mode, generated by `#[derive(Differentiable)]`.",
            self.name
        );
        let definition = if self.is_enum {
            let variants = self.shapes.iter().map(|shape| {
                let variant = &shape.variant;
                let fields = shape_fields(shape);
                quote!(#variant #fields)
            });
            quote! {
                #[doc = #doc]
                #[doc(hidden)]
                #[allow(non_camel_case_types, dead_code)]
                #[derive(Clone)]
                #vis enum #adjoint<__S> where #(#bounds)* {
                    __AdZero(::core::marker::PhantomData<__S>),
                    #(#variants,)*
                }
            }
        } else {
            let shape = &self.shapes[0];
            let fields = shape_fields(shape);
            let body = if shape.named {
                quote!(where #(#bounds)* #fields)
            } else {
                quote!(#fields where #(#bounds)*;)
            };
            quote! {
                #[doc = #doc]
                #[doc(hidden)]
                #[allow(non_camel_case_types, dead_code)]
                #[derive(Clone)]
                #vis struct #adjoint<__S> #body
            }
        };
        // Per shape: a pattern of the twin or the adjoint binding each field with a prefix,
        // and a value built from one expression per field.
        let each = |build: &dyn Fn(&Shape) -> TokenStream| -> Vec<TokenStream> {
            self.shapes.iter().map(build).collect()
        };
        let zero_like_arms = each(&|shape| {
            let pattern = shape.pattern(self.path(twin, shape), "");
            let values = shape
                .fields
                .iter()
                .map(|field| {
                    let binding = field.binding("");
                    if field.differentiable {
                        quote!(#runtime::Diff::zero_like(#binding))
                    } else {
                        quote!({ let _ = #binding; #runtime::NoAdjoint })
                    }
                })
                .collect();
            let built = shape.construct(self.path(&adjoint, shape), values);
            quote!(#pattern => #built,)
        });
        let accumulate_arms = each(&|shape| {
            let path = self.path(&adjoint, shape);
            let left = shape.pattern(path.clone(), "a_");
            let right = shape.pattern(path, "b_");
            let adds = shape.fields.iter().map(|field| {
                let (a, b) = (field.binding("a_"), field.binding("b_"));
                quote!(#runtime::Adjoint::accumulate(#a, #b);)
            });
            quote!((#left, #right) => { #(#adds)* })
        });
        let negate_arms = each(&|shape| {
            let path = self.path(&adjoint, shape);
            let pattern = shape.pattern(path.clone(), "");
            let values = shape
                .fields
                .iter()
                .map(|field| {
                    let binding = field.binding("");
                    quote!(#runtime::Adjoint::negate(#binding))
                })
                .collect();
            let built = shape.construct(path, values);
            quote!(#pattern => #built,)
        });
        let same_shape_arms = each(&|shape| {
            let path = self.path(&adjoint, shape);
            let left = shape.pattern(path.clone(), "a_");
            let right = shape.pattern(path, "b_");
            let checks = shape.fields.iter().map(|field| {
                let (a, b) = (field.binding("a_"), field.binding("b_"));
                quote!(&& #runtime::Adjoint::same_shape(#a, #b))
            });
            quote!((#left, #right) => true #(#checks)*,)
        });
        let flatten_arms = each(&|shape| {
            let pattern = shape.pattern(self.path(&adjoint, shape), "");
            let visits = shape.fields.iter().map(|field| {
                let binding = field.binding("");
                quote!(#ir::FlatAdjoint::<__S>::flatten_into(#binding, out);)
            });
            quote!(#pattern => { #(#visits)* })
        });
        let add_flat_arms = each(&|shape| {
            let pattern = shape.pattern(self.path(&adjoint, shape), "");
            let visits = shape.fields.iter().map(|field| {
                let binding = field.binding("");
                quote!(#ir::FlatAdjoint::<__S>::add_flat(#binding, flat);)
            });
            quote!(#pattern => { #(#visits)* })
        });
        let scale_arms = each(&|shape| {
            let pattern = shape.pattern(self.path(&adjoint, shape), "");
            let visits = shape.fields.iter().map(|field| {
                let binding = field.binding("");
                quote!(#ir::ScaledAdjoint::<__S>::scale(#binding, factor);)
            });
            quote!(#pattern => { #(#visits)* })
        });
        let zero_scaled = self.is_enum.then(|| quote!(#adjoint::__AdZero(_) => {}));
        // Each variant's zero (`__ad_zero_Rect()`): the adjoint of a pattern that binds some
        // fields and leaves the others out with `..`, which the macro cannot list.
        let variant_zeros = self.is_enum.then(|| {
            let constructors = self.shapes.iter().map(|shape| {
                let variant = shape
                    .variant
                    .as_ref()
                    .expect("an enum's shape is a variant");
                let name = format_ident!("__ad_zero_{}", variant);
                let zeros = shape
                    .fields
                    .iter()
                    .map(|_| quote!(#runtime::Adjoint::zero()))
                    .collect();
                let built = shape.construct(self.path(&adjoint, shape), zeros);
                quote! {
                    #[doc(hidden)]
                    #[allow(non_snake_case)]
                    #[inline(always)]
                    pub fn #name() -> Self {
                        #built
                    }
                }
            });
            quote! {
                impl<__S: ::ad_runtime::Scalar> #adjoint<__S> where #(#bounds)* {
                    #(#constructors)*
                }
            }
        });
        let (zero, accumulate, negate, same_shape, zero_flat) = if self.is_enum {
            (
                quote!(#adjoint::__AdZero(::core::marker::PhantomData)),
                quote! {
                    match (&mut *self, contribution) {
                        (_, #adjoint::__AdZero(_)) => {}
                        (#adjoint::__AdZero(_), contribution) => *self = contribution,
                        #(#accumulate_arms)*
                        _ => ::ad_runtime::__private::shapes_differ("enum variants"),
                    }
                },
                quote! {
                    match self {
                        #adjoint::__AdZero(marker) => #adjoint::__AdZero(marker),
                        #(#negate_arms)*
                    }
                },
                quote! {
                    match (self, other) {
                        (_, #adjoint::__AdZero(_)) => true,
                        #(#same_shape_arms)*
                        _ => false,
                    }
                },
                // A parameter's adjoint starts shaped as the value: never the zero variant.
                quote!(#adjoint::__AdZero(_) => {
                    ::ad_runtime::__private::shapes_differ("enum variants")
                }),
            )
        } else {
            let shape = &self.shapes[0];
            let zeros = shape
                .fields
                .iter()
                .map(|_| quote!(#runtime::Adjoint::zero()))
                .collect();
            (
                shape.construct(quote!(#adjoint), zeros),
                quote! {
                    match (&mut *self, contribution) {
                        #(#accumulate_arms)*
                    }
                },
                quote!(match self { #(#negate_arms)* }),
                quote!(match (self, other) { #(#same_shape_arms)* }),
                TokenStream::new(),
            )
        };
        quote! {
            #definition

            impl<__S: ::ad_runtime::Scalar> #runtime::Diff for #twin<__S> where #(#bounds)* {
                type Adjoint = #adjoint<__S>;
                fn zero_like(&self) -> #adjoint<__S> {
                    match self { #(#zero_like_arms)* }
                }
                // A callee gives this adjoint flat: it is added into one shaped as the value.
                const SHAPED: bool = true;
                fn argument_zero(&self) -> #adjoint<__S> {
                    #runtime::Diff::zero_like(self)
                }
            }

            impl<__S: ::ad_runtime::Scalar> #runtime::Adjoint for #adjoint<__S> where #(#bounds)* {
                fn zero() -> Self {
                    #zero
                }
                fn accumulate(&mut self, contribution: Self) {
                    #accumulate
                }
                fn negate(self) -> Self {
                    #negate
                }
                fn same_shape(&self, other: &Self) -> bool {
                    #same_shape
                }
            }

            // Scaled field by field; the unit, scaled, is added as `accumulate` adds (either
            // may be a zero not shaped as the other).
            impl<__S: ::ad_runtime::Scalar> #ir::ScaledAdjoint<__S> for #adjoint<__S> where #(#bounds)* {
                fn accumulate_scaled(&mut self, factor: &__S, mut unit: Self) {
                    #ir::ScaledAdjoint::<__S>::scale(&mut unit, factor);
                    #runtime::Adjoint::accumulate(self, unit);
                }
                fn scale(&mut self, factor: &__S) {
                    match self {
                        #zero_scaled
                        #(#scale_arms)*
                    }
                }
            }

            #variant_zeros

            impl<__S: ::ad_runtime::Scalar> #ir::FlatAdjoint<__S> for #adjoint<__S>
            where
                #(#bounds)*
            {
                fn flatten_into(&self, out: &mut ::std::vec::Vec<__S>) {
                    match self {
                        #zero_flat
                        #(#flatten_arms)*
                    }
                }
                fn add_flat(&mut self, flat: &mut dyn ::core::iter::Iterator<Item = __S>) {
                    match self {
                        #zero_flat
                        #(#add_flat_arms)*
                    }
                }
            }

            /// A callee takes the cotangent of what it writes to a value of this type flat.
            impl<__S: ::ad_runtime::Scalar> #ir::TakeWritten<::std::vec::Vec<__S>>
                for #adjoint<__S>
            where
                #(#bounds)*
            {
                fn take_written(&mut self, shaped: Self) -> ::std::vec::Vec<__S> {
                    #ir::take_shaped(self, shaped)
                }
            }

            /// A callee's adjoint of this type comes back flat.
            impl<__S: ::ad_runtime::Scalar> #ir::AccumulateArgument<::std::vec::Vec<__S>>
                for #adjoint<__S>
            where
                #(#bounds)*
            {
                fn accumulate_argument(&mut self, contribution: ::std::vec::Vec<__S>) {
                    // Empty: the zero cotangent of a receiver whose new contents are not read.
                    if contribution.is_empty() {
                        return;
                    }
                    #ir::FlatAdjoint::add_flat(self, &mut contribution.into_iter());
                }
            }
        }
    }

    /// `to_over` (from the value to its twin) or `from_over` (back).
    fn convert(&self, source: TokenStream, to_twin: bool) -> TokenStream {
        let (from, to) = if to_twin {
            (self.name, self.twin)
        } else {
            (self.twin, self.name)
        };
        self.rebuild(from, to, source, |field, binding| {
            let ty = &field.ty;
            match (field.differentiable, to_twin) {
                (false, true) => quote!(::core::clone::Clone::clone(#binding)),
                (false, false) => quote!(#binding),
                (true, true) => quote!(<#ty as ::ad_runtime::Differentiable>::to_over(#binding)),
                (true, false) => {
                    quote!(<#ty as ::ad_runtime::Differentiable>::from_over(#binding))
                }
            }
        })
    }

    fn map(&self) -> TokenStream {
        self.rebuild(self.twin, self.twin, quote!(over), |field, binding| {
            let ty = &field.ty;
            if field.differentiable {
                quote!(<#ty as ::ad_runtime::Differentiable>::map(#binding, f))
            } else {
                quote!(::core::clone::Clone::clone(#binding))
            }
        })
    }

    /// `match source { from::V { fields } => to::V { field: value(field), .. }, .. }`: a value
    /// of `to` built field by field from one of `from`.
    fn rebuild(
        &self,
        from: &Ident,
        to: &Ident,
        source: TokenStream,
        value: impl Fn(&Field, Ident) -> TokenStream,
    ) -> TokenStream {
        let arms = self.shapes.iter().map(|shape| {
            let pattern = shape.pattern(self.path(from, shape), "");
            let values = shape
                .fields
                .iter()
                .map(|field| value(field, field.binding("")))
                .collect();
            let built = shape.construct(self.path(to, shape), values);
            quote!(#pattern => #built,)
        });
        quote!(match #source { #(#arms)* })
    }

    fn zip(&self) -> TokenStream {
        let twin = self.twin;
        let arms = self.shapes.iter().map(|shape| {
            let path = self.path(twin, shape);
            let left = shape.pattern(path.clone(), "a_");
            let right = shape.pattern(path.clone(), "b_");
            let values = shape
                .fields
                .iter()
                .map(|field| {
                    let a = field.binding("a_");
                    let b = field.binding("b_");
                    let ty = &field.ty;
                    if field.differentiable {
                        quote!(<#ty as ::ad_runtime::Differentiable>::zip(#a, #b, f))
                    } else {
                        quote!({ let _ = #b; ::core::clone::Clone::clone(#a) })
                    }
                })
                .collect();
            let value = shape.construct(path, values);
            quote!((#left, #right) => #value,)
        });
        let mismatch = (self.shapes.len() > 1)
            .then(|| quote!(_ => ::ad_runtime::__private::shapes_differ("enum variants"),));
        quote!(match (a, b) { #(#arms)* #mismatch })
    }

    fn for_each(&self) -> TokenStream {
        self.visit_fields(
            |ty, binding| quote!(<#ty as ::ad_runtime::Differentiable>::for_each(#binding, f);),
        )
    }

    fn first(&self) -> TokenStream {
        let visit = self.visit_fields(|ty, binding| {
            quote! {
                if let ::core::option::Option::Some(first) =
                    <#ty as ::ad_runtime::Differentiable>::first(#binding)
                {
                    return ::core::option::Option::Some(first);
                }
            }
        });
        quote! {
            #visit
            ::core::option::Option::None
        }
    }

    /// `match over { .. }` with one arm per shape running `visit(type, binding)` for each
    /// differentiable field, in order.
    fn visit_fields(&self, visit: impl Fn(&Type, Ident) -> TokenStream) -> TokenStream {
        let twin = self.twin;
        let arms = self.shapes.iter().map(|shape| {
            let pattern = shape.pattern(self.path(twin, shape), "");
            let visits = shape.fields.iter().map(|field| {
                let binding = field.binding("");
                if field.differentiable {
                    visit(&field.ty, binding)
                } else {
                    quote!(let _ = #binding;)
                }
            });
            quote!(#pattern => { #(#visits)* })
        });
        quote!(match over { #(#arms)* })
    }
}

/// `Self` in a field's type (`Option<Box<Self>>`) is the type itself: in the twin, `Self`
/// would be the twin.
fn replace_self(mut ty: Type, name: &Ident) -> Type {
    struct Replace<'a>(&'a Ident);
    impl syn::visit_mut::VisitMut for Replace<'_> {
        fn visit_path_mut(&mut self, path: &mut syn::Path) {
            if let Some(first) = path.segments.first_mut() {
                if first.ident == "Self" {
                    first.ident = Ident::new(&self.0.to_string(), first.ident.span());
                }
            }
            syn::visit_mut::visit_path_mut(self, path);
        }
    }
    syn::visit_mut::VisitMut::visit_type_mut(&mut Replace(name), &mut ty);
    ty
}

/// Integer, `bool`, `char`, `String` and `&'static str` fields hold no floats, nor `Vec`s,
/// `Option`s, `Box`es, arrays and tuples of them.
fn is_data_type(ty: &Type) -> bool {
    const DATA: &[&str] = &[
        "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
        "bool", "char", "String",
    ];
    const WRAPPERS: &[&str] = &["Vec", "Option", "Box"];
    match ty {
        Type::Path(path) if path.qself.is_none() => {
            let Some(last) = path.path.segments.last() else {
                return false;
            };
            if path.path.segments.len() == 1 && DATA.iter().any(|name| last.ident == name) {
                return true;
            }
            match &last.arguments {
                syn::PathArguments::AngleBracketed(args)
                    if WRAPPERS.iter().any(|name| last.ident == name) && args.args.len() == 1 =>
                {
                    matches!(&args.args[0], syn::GenericArgument::Type(inner) if is_data_type(inner))
                }
                _ => false,
            }
        }
        Type::Array(array) => is_data_type(&array.elem),
        Type::Tuple(tuple) => tuple.elems.iter().all(is_data_type),
        Type::Reference(reference) => {
            matches!(&*reference.elem, Type::Path(path) if path.path.is_ident("str"))
        }
        _ => false,
    }
}

/// Integers, `bool` and `char`: data that is `Copy`.
fn is_copy_primitive(ty: &Type) -> bool {
    is_data_type(ty)
        && matches!(ty, Type::Path(path) if path.path.get_ident().is_some_and(|ident| ident != "String"))
}

/// Floats, integers, `bool`, `char` and arrays of them (`position: [f64; 3]`): a twin of such
/// fields is `Copy`, so a `Copy` user type is copied out of an array in derivative code too.
fn is_copy_field(ty: &Type) -> bool {
    match ty {
        Type::Array(array) => is_copy_field(&array.elem),
        _ => is_copy_primitive(ty) || is_float_type(ty),
    }
}

fn is_float_type(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.path.is_ident("f64") || path.path.is_ident("f32"))
}
