//! `#[forward]`: keeps the function, and adds its dual-number code and `f_jvp`.
//!
//! ```text
//! fn f(x: f64, n: usize) -> f64 { .. }                       // as written
//! struct f {}                                                // hidden, type namespace only
//! impl f { fn __ad_forward<__S: Scalar>(x: __S, n: usize) -> __S { ..retyped body.. } }
//! fn f_jvp<__S: Scalar>(x: __S, n: usize, dx: __S) -> (__S, __S) {
//!     split(f::__ad_forward::<Dual<__S>>(seed(x, dx), n))
//! }
//! ```
//!
//! A function generic over its float type is not rewritten: see `forward/generic.rs`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Ident, Type};

mod generic;

use crate::activity::Locals;
use crate::ast::{Function, Param, ParamKind};
use crate::names;
use crate::retype::{quote_scalar_bound, quote_scalar_where, Retype};
use crate::user_types::UserTypes;

/// What the generated functions contain: the real derivative code, or stubs that keep the
/// names defined while the errors are reported.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Bodies {
    Derivative,
    Stub,
}

pub fn expand(function: &Function, bodies: Bodies) -> TokenStream {
    if let Some(float) = &function.float_param {
        return generic::expand(function, float, bodies);
    }
    let original = function.emitted_item();
    let companion = companion(function, bodies);
    let jvp = jvp(function, bodies);
    quote! {
        #original
        #companion
        #jvp
    }
}

/// `x: &f64`: a float lent.
fn is_float_reference(param: &crate::ast::Param) -> bool {
    matches!(&param.ty, Type::Reference(reference)
        if reference.mutability.is_none() && crate::ast::float_of_type(&reference.elem).is_some())
}

/// `impl Fn(f64) -> f64`, also behind references (`&impl Fn(..)`) and parentheses.
fn is_impl_trait(ty: &Type) -> bool {
    match ty {
        Type::ImplTrait(_) => true,
        Type::Reference(reference) => is_impl_trait(&reference.elem),
        Type::Paren(paren) => is_impl_trait(&paren.elem),
        _ => false,
    }
}

pub fn retype_type(function: &Function, ty: &Type) -> Type {
    let locals = Locals {
        all: Default::default(),
        floats: Default::default(),
        user_types: UserTypes::of(function),
        untyped: Default::default(),
        pattern_bound: Default::default(),
        containers: Default::default(),
        user_values: Default::default(),
        derived_results: Default::default(),
        mixed_results: Default::default(),
        mutable_references: Default::default(),
        mutable_locals: Default::default(),
        float_containers: Default::default(),
        uncallable: Default::default(),
    };
    let mut retype = Retype {
        float: function.float,
        locals: &locals,
        companion: names::FORWARD_COMPANION,
        value_only: false,
        scalar_type: None,
    };
    let mut ty = ty.clone();
    retype.visit_type_mut(&mut ty);
    ty
}

pub(crate) fn output_type(function: &Function) -> Type {
    if let Some(path) = function.derived_result() {
        let scalar = names::scalar_param(path.span());
        return syn::parse_quote_spanned!(path.span()=>
            <#path as ::ad_runtime::Differentiable>::Over<#scalar>);
    }
    match function.output() {
        Some(ty) => retype_type(function, ty),
        None => syn::parse_quote!(()),
    }
}

/// The parameters of a companion: floats over the scalar type, data as declared.
pub fn companion_params(function: &Function) -> Vec<TokenStream> {
    borrowing_params(function, None)
}

/// `companion_params` with `lifetime`, if any, on every reference the parameters' types hold.
fn borrowing_params(function: &Function, lifetime: Option<&syn::Lifetime>) -> Vec<TokenStream> {
    struct Borrow<'l>(&'l syn::Lifetime);
    impl VisitMut for Borrow<'_> {
        fn visit_type_reference_mut(&mut self, reference: &mut syn::TypeReference) {
            if reference.lifetime.is_none() {
                reference.lifetime = Some(self.0.clone());
            }
            syn::visit_mut::visit_type_reference_mut(self, reference);
        }
    }
    function
        .params
        .iter()
        .map(|param| {
            let param_name = &param.name;
            let mutability = &param.mutability;
            if is_data_float(function, param) {
                // Taken at any scalar type: callers' derivative code may have lifted it.
                let ty = &param.ty;
                return quote!(#param_name: impl ::ad_runtime::__private::PlainFloat<#ty>);
            }
            let mut ty = retyped_param_type(function, param);
            // A `&mut` parameter is written, not read again: the caller gets it back at once.
            if let Some(lifetime) = lifetime.filter(|_| !param.is_mut_reference()) {
                Borrow(lifetime).visit_type_mut(&mut ty);
            }
            quote!(#mutability #param_name: #ty)
        })
        .collect()
}

/// The parameters of a generated public function (`_jvp`, `_vjp`, `_grad`): the primal's,
/// without `mut` (they are passed on), floats made the generic scalar.
pub fn public_params(function: &Function) -> Vec<TokenStream> {
    function
        .params
        .iter()
        .map(|param| {
            if param.receiver {
                let receiver = names::param_value(param);
                return if param.is_mut_reference() {
                    quote!(&mut #receiver)
                } else if param.is_reference() {
                    quote!(&#receiver)
                } else {
                    receiver
                };
            }
            let param_name = &param.name;
            let ty = public_param_type(function, param);
            quote!(#param_name: #ty)
        })
        .collect()
}

/// A float parameter that is data (`dt: f64` beside `x: &[T]` in a function generic over its
/// float type, differentiated at `f64`).
/// A data float of the function's own float type, which callers' derivative code may have
/// lifted to the scalar type (one of the other float type is plain data).
fn is_data_float(function: &Function, param: &Param) -> bool {
    param.kind == ParamKind::Data
        && crate::ast::float_of_type(&param.ty).is_some_and(|float| float == function.float)
}

/// A parameter's type with its floats made the generic scalar; data keeps its type.
fn retyped_param_type(function: &Function, param: &Param) -> Type {
    match param.kind {
        // A function of floats (`f: impl Fn(f64) -> f64`) is one of the scalar type.
        ParamKind::Data if crate::ast::is_function_type(&param.ty) => {
            retype_type(function, &param.ty)
        }
        ParamKind::Data => param.ty.clone(),
        ParamKind::Differentiated | ParamKind::Constant => retype_type(function, &param.ty),
    }
}

/// A parameter's type in a generated public function: a `#[grad]` parameter takes the user's
/// type itself (its twin is the companions' business); a function of floats is one of dual
/// numbers (`f_jvp(|t| t.sin(), ..)` with `t: Dual<f64>`).
pub(super) fn public_param_type(function: &Function, param: &Param) -> Type {
    if param.user_type.is_some() {
        param.ty.clone()
    } else if param.kind == ParamKind::Data && crate::ast::is_function_type(&param.ty) {
        let ty = retype_type(function, &param.ty);
        let scalar = names::scalar_param(param.name.span());
        let over_duals = names::replace_idents(quote!(#ty), &|ident| {
            (*ident == scalar).then(|| quote!(::ad_runtime::Dual<#scalar>))
        });
        syn::parse2(over_duals).unwrap_or(ty)
    } else {
        retyped_param_type(function, param)
    }
}

/// The `where` clause of a generated public function: the scalar bound, and for each
/// `#[grad]` parameter `T: Differentiable<Float = __S>`. The user type holds plain floats, so
/// such a function is called with them (`__S` is inferred as `f64`).
pub fn public_where(function: &Function, span: proc_macro2::Span) -> TokenStream {
    let scalar_where = quote_scalar_where(span);
    let scalar = names::scalar_param(span);
    // Spanned at the parameter's type: a type without the derive is reported there.
    let user_types = function
        .params
        .iter()
        .filter_map(|param| param.user_type.clone())
        .chain(function.derived_result())
        .map(|path| {
            quote_spanned! {path.span()=>
                #path: ::ad_runtime::Differentiable<Float = #scalar>
            }
        });
    quote! {
        #scalar_where,
        #(#user_types,)*
    }
}

/// A companion function: in the function's own `impl` block (a method's sits beside it). With
/// `borrow`, every reference its parameters hold gets that lifetime, for which the scalar type
/// outlives and `output` may borrow them (the borrowed reverse companion).
pub fn companion_method(
    function: &Function,
    method: &str,
    borrow: Option<&syn::Lifetime>,
    output: TokenStream,
    body: TokenStream,
) -> TokenStream {
    let vis = &function.item.vis;
    let name = function.name();
    let span = name.span();
    let method = names::companion(function, method);
    let bound = quote_scalar_bound(function.float, span);
    let mut where_clause = quote_scalar_where(span);
    let params = match borrow {
        None => companion_params(function),
        Some(lifetime) => {
            let scalar = names::scalar_param(span);
            where_clause.extend(quote!(, #scalar: #lifetime));
            borrowing_params(function, Some(lifetime))
        }
    };
    let generics = match borrow {
        None => bound,
        Some(lifetime) => quote!(#lifetime, #bound),
    };
    let cfgs = cfg_attrs(function);
    let companion_attributes = companion_attributes();
    let plain = function
        .params
        .iter()
        .filter(|param| is_data_float(function, param))
        .map(|param| {
            let (name, ty, mutability) = (&param.name, &param.ty, &param.mutability);
            quote!(let #mutability #name: #ty = ::ad_runtime::__private::PlainFloat::plain(#name);)
        });
    let body = quote!(#(#plain)* #body);
    if function.is_method {
        // Beside the method, in its `impl`.
        return quote_spanned! {span=>
            #(#cfgs)*
            #companion_attributes
            #vis fn #method<#generics>(#(#params),*) -> #output #where_clause {
                #body
            }
        };
    }
    quote_spanned! {span=>
        #(#cfgs)*
        #[allow(dead_code)]
        impl #name {
            #companion_attributes
            #vis fn #method<#generics>(#(#params),*) -> #output #where_clause {
                #body
            }
        }
    }
}

/// The attributes of every companion function: hidden, inlinable, and quiet about what the
/// rewritten user code may leave unused (the user's own function carries the user's lints).
pub fn companion_attributes() -> TokenStream {
    quote! {
        #[doc(hidden)]
        #[inline]
        #[allow(
            unused_mut,
            unused_variables,
            unused_parens,
            unused_braces,
            unused_assignments,
            unreachable_code,
            unreachable_patterns,
            irrefutable_let_patterns,
            non_upper_case_globals,
            non_snake_case,
            clippy::all,
            clippy::pedantic
        )]
    }
}

pub fn stub_body() -> TokenStream {
    quote!(::core::unreachable!(
        "the derivative was not generated because of a compile error"
    ))
}

pub fn companion(function: &Function, bodies: Bodies) -> TokenStream {
    if let Some(float) = &function.float_param {
        return generic::companion(function, float, bodies);
    }
    let vis = &function.item.vis;
    let name = function.name();
    let span = name.span();
    let output = output_type(function);
    // nalgebra's own methods and operators do not run over the scalar type: a body with its
    // vectors and matrices runs their rules (`ad_runtime::linalg`), as reverse mode's IR
    // emits them with nothing recorded.
    let over_linalg = crate::ir::lower::mentions_linalg(function);
    let primal = match (bodies, over_linalg) {
        (Bodies::Derivative, true) => Some(crate::expand::reverse_ir::primal_body(function)),
        _ => None,
    };
    // What the rules do not take has its message; anything else falls back to the body as
    // written, where rustc says what nalgebra asks of the scalar type.
    let primal = match primal {
        Some(Err(not_yet)) if not_yet.is_final() => {
            let message = format!("forward mode does not take {}", not_yet.what);
            Some(syn::Error::new(not_yet.span, message).to_compile_error())
        }
        primal => primal.and_then(Result::ok),
    };
    let body = match bodies {
        Bodies::Stub => stub_body(),
        Bodies::Derivative if primal.is_some() => {
            let primal = primal.expect("checked");
            let uses_function = match function.is_method {
                true => quote!(let _ = Self::#name;),
                false => quote!(let _ = #name;),
            };
            quote!(#uses_function #primal)
        }
        Bodies::Derivative => {
            let mut block = function.block_for_derivatives();
            let locals = Locals::analyze_body(function, &block);
            let mut retype = Retype {
                float: function.float,
                locals: &locals,
                companion: names::FORWARD_COMPANION,
                value_only: false,
                scalar_type: None,
            };
            retype.visit_block_mut(&mut block);
            let stmts = &block.stmts;
            let aliases = locals.user_types.aliases();
            // (A function with `impl Trait` parameters is generic: named alone, its instance
            // cannot be inferred, and it is used by the caller that passes the closure.)
            let generic_argument = function.params.iter().any(|param| is_impl_trait(&param.ty));
            let uses_function = match (function.is_method, generic_argument) {
                (_, true) => quote!(),
                (true, false) => quote!(let _ = Self::#name;),
                (false, false) => quote!(let _ = #name;),
            };
            quote! {
                // The derivative stands for the function: using one uses the other.
                #uses_function
                #aliases
                #[allow(unused_imports)]
                use ::ad_runtime::__private::{
                    CastPrimitive as _, CastScalar as _, LiftConstant as _, LiftConstantOther as _, LiftBorrowed as _, LiftDerived as _, LiftBorrowedOther as _, LiftFloat as _, LiftOption as _, LiftOther as _, LiftTuple as _, LiftZipped as _, LiftZippedOther as _,
                };
                #(#stmts)*
            }
        }
    };
    let cfgs = cfg_attrs(function);
    let method = companion_method(
        function,
        names::FORWARD_COMPANION,
        None,
        output.to_token_stream(),
        body,
    );
    if function.is_method {
        return method;
    }
    quote_spanned! {span=>
        #(#cfgs)*
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}

        #method
    }
}

/// `f_jvp`, in the function's declared types, and its generic version (`f::jvp`).
pub fn jvp(function: &Function, bodies: Bodies) -> TokenStream {
    match &function.float_param {
        // `f_jvp` and `f_jacfwd` as written over the float type.
        Some(float) => {
            let jvp = generic::jvp(function, float, bodies);
            let jacfwd = generic::jacfwd(function, float, bodies);
            super::public::in_declared_types(function, bodies, quote!(#jvp #jacfwd))
        }
        None => super::public::in_declared_types(function, bodies, generic_jvp(function, bodies)),
    }
}

fn generic_jvp(function: &Function, bodies: Bodies) -> TokenStream {
    let vis = &function.item.vis;
    let name = function.name();
    let span = name.span();
    let jvp = names::jvp(function);
    let companion = names::companion_path(function, names::FORWARD_COMPANION);
    let bound = quote_scalar_bound(function.float, span);
    let where_clause = public_where(function, span);
    let scalar = names::scalar_param(span);
    let primal_params = public_params(function);
    let tangents = names::tangents(function);
    let tangent_params = tangents
        .iter()
        .zip(
            function
                .params
                .iter()
                .filter(|p| p.kind == ParamKind::Differentiated),
        )
        .map(|(tangent, param)| {
            let ty = public_param_type(function, param);
            quote!(#tangent: #ty)
        });
    let mut tangent_iter = tangents.iter();
    let mut seeding = Vec::new();
    let mut writing_back = Vec::new();
    let args: Vec<TokenStream> = function
        .params
        .iter()
        .map(|param| {
            let param_name = &names::param_value(param);
            let seeded = match param.kind {
                ParamKind::Data => return quote!(#param_name),
                // `&mut self` of a derived type: its twin over duals, written back on return.
                ParamKind::Differentiated if param.is_mut_reference() && param.user_type.is_some() => {
                    let tangent = tangent_iter
                        .next()
                        .expect("one tangent per differentiated parameter");
                    let local = names::derived("__ad_seeded_", &param.name);
                    // A slice, `Vec` or array of them: their twins, each written back.
                    let (seed, write_back) = match param.is_user_container() {
                        true => (
                            quote!(::ad_runtime::__private::SeedTwinsMut::seed_twins_mut),
                            quote!(::ad_runtime::__private::SeedTwinsMut::write_back_twins),
                        ),
                        false => (
                            quote!(::ad_runtime::__private::seed_twin),
                            quote!(::ad_runtime::__private::write_back_twin),
                        ),
                    };
                    seeding.push(quote! {
                        let mut #local = #seed(&*#param_name, &*#tangent);
                    });
                    writing_back.push(quote! {
                        #write_back(#param_name, #tangent, #local);
                    });
                    return quote!(&mut #local);
                }
                // In and out: the derivative code writes the duals, which go back on return.
                ParamKind::Differentiated if param.is_mut_reference() => {
                    let tangent = tangent_iter
                        .next()
                        .expect("one tangent per differentiated parameter");
                    let local = names::derived("__ad_seeded_", &param.name);
                    seeding.push(quote! {
                        let mut #local = ::ad_runtime::__private::seed_mut(&*#param_name, &*#tangent);
                    });
                    writing_back.push(quote! {
                        ::ad_runtime::__private::write_back(#param_name, #tangent, #local);
                    });
                    return quote!(&mut #local);
                }
                ParamKind::Constant if param.is_scalar() => {
                    return quote!(::ad_runtime::__private::constant(#param_name));
                }
                ParamKind::Differentiated if param.is_scalar() => {
                    let tangent = tangent_iter
                        .next()
                        .expect("one tangent per differentiated parameter");
                    return quote!(::ad_runtime::__private::seed(#param_name, #tangent));
                }
                // `x: &f64`: the dual of the float it lends, lent in turn.
                ParamKind::Constant if is_float_reference(param) => {
                    quote!(::ad_runtime::__private::constant(*#param_name))
                }
                ParamKind::Differentiated if is_float_reference(param) => {
                    let tangent = tangent_iter
                        .next()
                        .expect("one tangent per differentiated parameter");
                    quote!(::ad_runtime::__private::seed(*#param_name, *#tangent))
                }
                // A container of constants: its duals have zero tangents.
                ParamKind::Constant => quote!(::ad_runtime::__private::Seed::constant(#param_name)),
                ParamKind::Differentiated if param.user_type.is_some() => {
                    let tangent = tangent_iter
                        .next()
                        .expect("one tangent per differentiated parameter");
                    let (value, tangent) = if param.is_reference() {
                        (quote!(#param_name), quote!(#tangent))
                    } else {
                        (quote!(&#param_name), quote!(&#tangent))
                    };
                    // A slice's twins are held in a `Vec`, lent as a slice.
                    match is_slice_reference(&param.ty) {
                        true => quote!(::ad_runtime::__private::seed_twins(#value, #tangent)),
                        false => quote!(::ad_runtime::__private::seed_twin(#value, #tangent)),
                    }
                }
                ParamKind::Differentiated => {
                    let tangent = tangent_iter
                        .next()
                        .expect("one tangent per differentiated parameter");
                    quote!(::ad_runtime::__private::Seed::seed(#param_name, #tangent))
                }
            };
            let local = names::derived("__ad_seeded_", &param.name);
            seeding.push(quote!(let #local = #seeded;));
            if param.is_reference() {
                quote!(&#local)
            } else {
                quote!(#local)
            }
        })
        .collect();
    // A function that returns nothing (it writes its results through `&mut` parameters): so
    // does its `_jvp`.
    let (output, result) = match function.returns_nothing() {
        // A value of a derived type and its tangent, from its twin over duals.
        false if function.derived_result().is_some() => {
            let path = function.derived_result().expect("checked by the guard");
            (
                quote!((#path, #path)),
                quote!(::ad_runtime::__private::split_twin::<#path>(__ad_result)),
            )
        }
        // `Ok` with the value and its tangent, or the error.
        false if function.fallible_output().is_some() => {
            let (ok, error) = function.fallible_output().expect("checked by the guard");
            let ok = retype_type(function, ok);
            (
                quote!(::core::result::Result<(#ok, #ok), #error>),
                quote!(::ad_runtime::__private::split_result(__ad_result)),
            )
        }
        false => {
            let output = output_type(function);
            (
                quote!((#output, #output)),
                quote!(::ad_runtime::__private::DualParts::split(__ad_result)),
            )
        }
        true => (quote!(()), quote!(__ad_result)),
    };
    let body = match bodies {
        Bodies::Stub => stub_body(),
        Bodies::Derivative => quote! {
            #(#seeding)*
            let __ad_result = #companion::<::ad_runtime::Dual<#scalar>>(#(#args),*);
            #(#writing_back)*
            #result
        },
    };
    let doc = jvp_doc(function, &tangents);
    let cfgs = cfg_attrs(function);
    quote_spanned! {function.item.sig.span()=>
        #(#cfgs)*
        #[doc = #doc]
        #[allow(dead_code, unused_variables, clippy::too_many_arguments, clippy::type_complexity, unreachable_code)]
        #vis fn #jvp<#bound>(#(#primal_params,)* #(#tangent_params),*) -> #output #where_clause {
            #body
        }
    }
}

/// `&[T]`, as opposed to `&[T; N]` or `&Vec<T>`.
fn is_slice_reference(ty: &Type) -> bool {
    matches!(ty, Type::Reference(reference) if matches!(&*reference.elem, Type::Slice(_)))
}

pub fn cfg_attrs(function: &Function) -> Vec<&syn::Attribute> {
    function
        .item
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("cfg"))
        .collect()
}

fn jvp_doc(function: &Function, tangents: &[Ident]) -> String {
    let name = function.name();
    let primals: Vec<String> = function.params.iter().map(|p| p.name.to_string()).collect();
    let tangent_names: Vec<String> = tangents.iter().map(|t| t.to_string()).collect();
    let arguments = format!(
        "{}{}{}",
        primals.join(", "),
        if tangents.is_empty() { "" } else { ", " },
        tangent_names.join(", "),
    );
    let mut doc = match function.returns_nothing() {
        false => format!(
            " Forward-mode derivative of [`{name}`], generated by `#[forward]`.\n\n \
             `{name}_jvp({arguments})` returns `({name}({}), J·({}))`: the value, and the \
             derivative along the tangent direction given for each float parameter.",
            primals.join(", "),
            tangent_names.join(", "),
        ),
        true => format!(
            " Forward-mode derivative of [`{name}`], generated by `#[forward]`.\n\n \
             `{name}_jvp({arguments})` runs `{name}` and returns nothing, as `{name}` does."
        ),
    };
    let in_and_out: Vec<String> = function
        .params
        .iter()
        .filter(|param| param.kind == ParamKind::Differentiated)
        .zip(tangents)
        .filter(|(param, _)| param.is_mut_reference())
        .map(|(param, tangent)| format!("`{}` with `{tangent}`", param.name))
        .collect();
    if !in_and_out.is_empty() {
        doc.push_str(&format!(
            "\n\n `&mut` parameters are in and out, each with its tangent ({}): on entry the \
             tangent holds the tangent of the initial contents; on return the parameter holds \
             the final contents and the tangent their tangent.",
            in_and_out.join(", ")
        ));
    }
    doc
}
