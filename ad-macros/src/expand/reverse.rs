//! `#[reverse]`: keeps the function, and adds its reverse-mode code, `f_vjp` and `f_grad`.
//!
//! This file holds the generated items and their types: the companions (`__ad_reverse`, the
//! borrowed one `f_vjp` and `f_grad` call, a checkpointed function's), the public functions
//! (`f_vjp`, `f_grad`, `f_jacrev`, `f_hessian`, `f_hvp`) and the types of what they take and
//! give (adjoints, cotangents, pullbacks). The companions' bodies are the AD-IR engine's
//! (`crate::ir`, emitted by `expand::reverse_ir`): the function's own control flow forward,
//! each operation through its rule, keeping what the backward sweep reads, and a pullback
//! closure that runs the statements' pullbacks last first. Nothing is recorded at run time but
//! typed values on stacks: no operation tape, no shared mutable state, so gradients can be
//! computed from many threads at once.
//!
//! ```text
//! impl f { fn __ad_reverse<__S: Scalar>(x: __S, n: usize) -> (__S, Box<dyn FnOnce(__S) -> (__S, ())>) }
//! fn f_vjp(x: f64, n: usize, d_out: f64) -> (f64, f64)
//! fn f_grad(x: f64, n: usize) -> (f64, f64)
//! ```

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Ident, Lifetime};

use crate::activity::is_float_type_path;
use crate::ast::{first_float_in, float_of_type, Function, ParamKind};
use crate::ctxt::Ctxt;
use crate::expand::forward::{self, cfg_attrs, retype_type, stub_body, Bodies};
use crate::names;
use crate::retype::{quote_scalar_bound, quote_scalar_where};

/// Whether every call of the function from reverse-mode code is checkpointed
/// (`#[checkpoint] fn`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Calls {
    Recorded,
    Checkpointed,
}

pub fn expand(cx: &Ctxt, function: &Function, bodies: Bodies, calls: Calls) -> TokenStream {
    let original = function.emitted_item();
    let reverse = reverse_companions(cx, function, bodies, calls);
    // A body refused has its message once, from the reverse companions.
    let bodies = match cx.has_errors() {
        true => Bodies::Stub,
        false => bodies,
    };
    let forward_companion = forward::companion(function, bodies);
    quote! {
        #original
        #forward_companion
        #reverse
    }
}

/// Under a `#[forward]` that emits the function, the struct and the forward companion: only
/// the reverse companions and the public functions.
pub fn expand_stacked(cx: &Ctxt, function: &Function, calls: Calls) -> TokenStream {
    reverse_companions(cx, function, Bodies::Derivative, calls)
}

fn reverse_companions(cx: &Ctxt, function: &Function, bodies: Bodies, calls: Calls) -> TokenStream {
    check_checkpoint_attributes(cx, &function.body);
    let ir = ir_engine(cx, function, bodies);
    // What the engine does not take is refused with its reason, spanned on the construct, and
    // what to write instead where the reason says (after a colon).
    let bodies = match &ir {
        Some(Err(not_yet)) => {
            let (what, advice) = match not_yet.what.split_once(": ") {
                Some((what, advice)) => (what, format!(": {advice}")),
                None => (not_yet.what, String::new()),
            };
            let yet = if not_yet.is_final() { "" } else { " yet" };
            cx.error_spanned_by(
                quote::quote_spanned!(not_yet.span=> span),
                format!("reverse mode does not take {what}{yet}{advice}"),
            );
            Bodies::Stub
        }
        _ => bodies,
    };
    let ir_body = ir.as_ref().and_then(|outcome| outcome.as_ref().ok());
    let engine = engine_marker(function, ir_body.is_some());
    match calls {
        Calls::Recorded => {
            let companion = reverse_companion(function, bodies, names::REVERSE_COMPANION, ir_body);
            let borrowed = match (bodies, ir_body) {
                (Bodies::Derivative, Some(_)) => ir_borrowed_companion(function),
                _ => None,
            };
            let called = match borrowed {
                Some(_) => names::BORROWED_COMPANION,
                None => names::REVERSE_COMPANION,
            };
            let public = public_functions(function, bodies, called);
            quote!(#companion #borrowed #public #engine)
        }
        Calls::Checkpointed => {
            let recorded = reverse_companion(function, bodies, names::RECORDED_COMPANION, ir_body);
            let wrapper = checkpointed_companion(function, bodies);
            let public = public_functions(function, bodies, names::RECORDED_COMPANION);
            quote!(#recorded #wrapper #public #engine)
        }
    }
}

/// The reverse companion of a `#[checkpoint] fn`: runs the function primal-only keeping its
/// arguments; its pullback runs the recorded companion from them.
fn checkpointed_companion(function: &Function, bodies: Bodies) -> TokenStream {
    let name = function.name();
    let span = name.span();
    let vis = &function.item.vis;
    let method = Ident::new(names::REVERSE_COMPANION, span);
    let recorded = Ident::new(names::RECORDED_COMPANION, span);
    let primal = Ident::new(names::FORWARD_COMPANION, span);
    let bound = quote_scalar_bound(function.float, span);
    let where_clause = quote_scalar_where(span);
    let scalar = names::scalar_param(span);
    let params = forward::companion_params(function);
    let args: Vec<&Ident> = function.params.iter().map(|param| &param.name).collect();
    let adjoints = adjoints_tuple_type(function, &scalar);
    let pullback = pullback_type(function, &scalar, None);
    let output = output_type(function, &scalar);
    let cotangent = cotangent_type(function, &scalar);
    // A parameter by shared reference is kept as an owned copy (a slice's `Vec`), which the
    // recomputation borrows again.
    let saved = function.params.iter().map(|param| {
        let name = &param.name;
        match param.is_reference() {
            true => {
                quote_spanned!(param.ty.span()=> ::ad_runtime::checkpoint::snapshot_borrowed(#name))
            }
            false => quote_spanned!(param.ty.span()=> ::ad_runtime::checkpoint::snapshot(#name)),
        }
    });
    let again = function.params.iter().map(|param| {
        let name = &param.name;
        match param.is_reference() {
            true => quote!(&#name),
            false => quote!(#name),
        }
    });
    let body = match bodies {
        Bodies::Stub => stub_body(),
        Bodies::Derivative => quote! {
            let __ad_saved = (#(#saved,)*);
            let __ad_value = #name::#primal::<#scalar>(#(#args),*);
            (__ad_value, ::std::boxed::Box::new(move |__ad_ct: #cotangent| -> #adjoints {
                let (#(#args,)*) = __ad_saved;
                let (_, __ad_pullback) = #name::#recorded(#(#again),*);
                __ad_pullback(__ad_ct)
            }))
        },
    };
    let cfgs = cfg_attrs(function);
    let companion_attributes = forward::companion_attributes();
    quote_spanned! {span=>
        #(#cfgs)*
        #[allow(dead_code)]
        impl #name {
            #companion_attributes
            #vis fn #method<#bound>(#(#params),*) -> (#output, #pullback) #where_clause
            {
                #body
            }
        }
    }
}

/// The adjoint of a parameter: a scalar, a `Vec` for a slice or `Vec` of scalars, and `()`
/// for data.
fn adjoint_type(function: &Function, param: &crate::ast::Param, scalar: &Ident) -> TokenStream {
    if param.kind == ParamKind::Data {
        quote!(())
    } else if param.is_user_container() {
        // Shaped as the twins (`[__AdAdjoint_Body<S>; 5]`), as the types give it: a caller adds
        // it to the shadow of what it passed, a sub-slice's included, element by element.
        let ty = forward::retype_type(function, strip_references(&param.ty));
        quote!(<#ty as ::ad_runtime::adjoint::Diff>::Adjoint)
    } else if param.user_type.is_some() {
        // Flat, in the order of `Differentiable::for_each`: a caller passing a part of its own
        // parameter adds them to its adjoints where that part's floats start.
        quote!(::std::vec::Vec<#scalar>)
    } else if param.is_scalar()
        || matches!(&param.ty, syn::Type::Reference(r) if float_of_type(&r.elem).is_some())
    {
        quote!(#scalar)
    } else if let Some(count) = param.scalar_tuple_len() {
        let elements = (0..count).map(|_| scalar.clone());
        quote!((#(#elements,)*))
    } else if param.is_nested_vector() {
        // `Vec<Vec<S>>` for `&[Vec<f64>]`, `Vec<[S; N]>` for `&[[f64; N]]`, `[Vec<S>; M]` for
        // `[Vec<f64>; M]`.
        fn container(ty: &syn::Type, element: TokenStream) -> TokenStream {
            match ty {
                syn::Type::Reference(reference) => container(&reference.elem, element),
                syn::Type::Array(array) => {
                    let length = &array.len;
                    quote!([#element; #length])
                }
                _ => quote!(::std::vec::Vec<#element>),
            }
        }
        let outer = strip_references(&param.ty);
        let row = match outer {
            syn::Type::Array(array) => &array.elem,
            syn::Type::Slice(slice) => &slice.elem,
            _ => match outer {
                syn::Type::Path(path) => match &path.path.segments.last().map(|s| &s.arguments) {
                    Some(syn::PathArguments::AngleBracketed(args)) => match args.args.first() {
                        Some(syn::GenericArgument::Type(row)) => row,
                        _ => outer,
                    },
                    _ => outer,
                },
                _ => outer,
            },
        };
        container(outer, container(strip_references(row), quote!(#scalar)))
    } else if let Some(length) = param.array_length() {
        quote!([#scalar; #length])
    } else if param.is_flat_vector() {
        quote!(::std::vec::Vec<#scalar>)
    } else {
        // Any other shape (`&[(f64, f64)]`, ...): the adjoint its type has
        // (`ad_runtime::adjoint::Diff`), which rustc works out.
        let ty = forward::retype_type(function, strip_references(&param.ty));
        quote!(<#ty as ::ad_runtime::adjoint::Diff>::Adjoint)
    }
}

/// The type of a `#[grad]` parameter's value in `f_vjp`, whose `Differentiable` impl makes its
/// twin and its adjoint: its user type, or a container of it without the reference
/// (`[Body; 5]`, `Vec<Body>`). `None` for a slice (`&[Body]`), which has no impl (it is not
/// sized): its twins and its adjoint are `Vec`s.
fn user_value_type(param: &crate::ast::Param) -> Option<TokenStream> {
    if !param.is_user_container() {
        return param.user_type.as_ref().map(|path| quote!(#path));
    }
    match strip_references(&param.ty) {
        syn::Type::Slice(_) => None,
        container => Some(quote!(#container)),
    }
}

/// What a pullback returns: one adjoint per parameter, in order, as a tuple. Data parameters
/// have `()`, so a call site pairs arguments and adjoints by position, whatever it can tell of
/// the arguments' types.
pub(crate) fn adjoints_tuple_type(function: &Function, scalar: &Ident) -> TokenStream {
    let types = function
        .params
        .iter()
        .map(|param| adjoint_type(function, param, scalar));
    quote!((#(#types,)*))
}

/// What a `#[reverse]` function returns; its cotangent has the same shape.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ResultShape {
    Scalar,
    /// `(f64, f64)`: a tuple of scalars.
    Tuple(usize),
    /// `Vec<f64>` or `[f64; N]`.
    Vector,
    /// `Vec<Vec<f64>>` or `Vec<[f64; N]>`: rows of floats.
    Rows,
    /// A value of a type that derives `Differentiable` (`Vec3`, `Self`).
    Derived,
}

fn result_shape(function: &Function) -> ResultShape {
    if function.derived_result().is_some() {
        return ResultShape::Derived;
    }
    match function.output() {
        Some(syn::Type::Tuple(tuple))
            if !tuple.elems.is_empty()
                && tuple.elems.iter().all(|elem| float_of_type(elem).is_some()) =>
        {
            ResultShape::Tuple(tuple.elems.len())
        }
        Some(ty) if crate::ast::is_vec_of_float_rows(ty) => ResultShape::Rows,
        Some(ty) if float_of_type(ty).is_none() && first_float_in(ty).is_some() => {
            ResultShape::Vector
        }
        _ => ResultShape::Scalar,
    }
}

/// The type of the value (and of its cotangent): the output over the scalar type, `()` for a
/// function that returns nothing (one with `&mut` parameters).
pub(crate) fn output_type(function: &Function, scalar: &Ident) -> TokenStream {
    if let Some(path) = function.derived_result() {
        return quote!(<#path as ::ad_runtime::Differentiable>::Over<#scalar>);
    }
    match (result_shape(function), function.output()) {
        (_, None) => quote!(()),
        (ResultShape::Scalar, _) => quote!(#scalar),
        (_, Some(ty)) => retype_type(function, ty).to_token_stream(),
    }
}

/// The `&mut` parameters that carry derivatives (`Param::is_in_out`).
pub(super) fn in_out_params(function: &Function) -> impl Iterator<Item = &crate::ast::Param> {
    function.params.iter().filter(|param| param.is_in_out())
}

/// What a pullback takes: the cotangent of the result, followed, when the function has `&mut`
/// parameters, by one slot per `&mut` parameter (DESIGN.md section 7): the cotangent of an
/// in-out parameter's final contents, `NoAdjoint` for data (`rng: &mut Rng`). Callers see
/// only that an argument is passed `&mut`, not whether the callee's parameter carries floats,
/// so every `&mut` parameter has its slot. Each in-out parameter's adjoint in the pullback's
/// result is then that of its initial contents.
pub(crate) fn cotangent_type(function: &Function, scalar: &Ident) -> TokenStream {
    // A result of `()` has the adjoint of data, which is what a caller holds for it.
    let output = match function.output() {
        // A derived type's: the adjoint the caller accumulates for the value.
        // A derived type's, or a fallible result's (an option of its value's adjoint): the
        // adjoint the caller accumulates for the value.
        Some(_) if function.derived_result().is_some() || function.fallible_output().is_some() => {
            let twin = output_type(function, scalar);
            quote!(<#twin as ::ad_runtime::adjoint::Diff>::Adjoint)
        }
        Some(_) => output_type(function, scalar),
        None => quote!(::ad_runtime::adjoint::NoAdjoint),
    };
    let slots: Vec<TokenStream> = mutable_params(function)
        .map(|param| match param.is_in_out() {
            true => adjoint_type(function, param, scalar),
            false => quote!(::ad_runtime::adjoint::NoAdjoint),
        })
        .collect();
    match slots.is_empty() {
        true => output,
        false => quote!((#output, #(#slots,)*)),
    }
}

/// The `&mut` parameters, each with its slot in the pullback's cotangent ([`cotangent_type`]).
pub(super) fn mutable_params(function: &Function) -> impl Iterator<Item = &crate::ast::Param> {
    function
        .params
        .iter()
        .filter(|param| param.is_mut_reference())
}

/// What the engine on the AD-IR (`reverse_ir`) makes of the function: the body of its reverse
/// companion, or what it does not take; `None` for a stub (or after an error).
fn ir_engine(
    cx: &Ctxt,
    function: &Function,
    bodies: Bodies,
) -> Option<Result<TokenStream, crate::ir::lower::NotYet>> {
    if bodies != Bodies::Derivative || cx.has_errors() {
        return None;
    }
    let body = super::reverse_ir::companion_body(function, !is_leaf(function));
    // For the engine's developers: where the refusal comes from.
    if let Err(not_yet) = &body {
        if std::env::var_os("AD_IR_EXPLAIN").is_some() {
            eprintln!(
                "ad: the IR engine does not take `{}`: {} (at {:?})",
                function.name(),
                not_yet.what,
                not_yet.span
            );
        }
    }
    Some(body)
}

/// `f::__AD_ENGINE` is `"ir"` for a function the engine on the AD-IR differentiated, which
/// tests that pin a construct to it read.
fn engine_marker(function: &Function, differentiated: bool) -> TokenStream {
    if function.is_method || !differentiated {
        return TokenStream::new();
    }
    let name = function.name();
    let cfgs = cfg_attrs(function);
    quote! {
        #(#cfgs)*
        #[allow(dead_code)]
        impl #name {
            #[doc(hidden)]
            pub const __AD_ENGINE: &'static str = "ir";
        }
    }
}

fn reverse_companion(
    function: &Function,
    bodies: Bodies,
    method: &str,
    ir_body: Option<&TokenStream>,
) -> TokenStream {
    let leaf = bodies == Bodies::Derivative && is_leaf(function);
    let body = match (bodies, ir_body) {
        (Bodies::Derivative, Some(body)) => body.clone(),
        _ => stub_body(),
    };
    let output = companion_output(function, leaf, None);
    forward::companion_method(function, method, None, output, body)
}

/// What a reverse companion returns: the value and the pullback. A leaf cannot be part of a
/// recursion, so its pullback's type is finite: it is returned unboxed (no allocation per
/// call), borrowing nothing but what `borrow` allows.
fn companion_output(function: &Function, leaf: bool, borrow: Option<&Lifetime>) -> TokenStream {
    let scalar = names::scalar_param(function.name().span());
    let value = output_type(function, &scalar);
    let cotangent = cotangent_type(function, &scalar);
    let adjoints = adjoints_tuple_type(function, &scalar);
    let borrowed = borrow.map(|lifetime| quote!(#lifetime,));
    let block_generics = crate::source_facts::impl_generics();
    if leaf {
        quote!((#value, impl ::core::ops::FnOnce(#cotangent) -> #adjoints
            + use<#borrowed #scalar #(, #block_generics)*>))
    } else {
        let pullback = pullback_type(function, &scalar, borrow);
        quote!((#value, #pullback))
    }
}

/// The boxed pullback of a reverse companion, borrowing nothing but what `borrow` allows.
pub(super) fn pullback_type(
    function: &Function,
    scalar: &Ident,
    borrow: Option<&Lifetime>,
) -> TokenStream {
    let adjoints = adjoints_tuple_type(function, scalar);
    let cotangent = cotangent_type(function, scalar);
    let bound = borrow.map(|lifetime| quote!(+ #lifetime));
    quote!(::std::boxed::Box<dyn ::core::ops::FnOnce(#cotangent) -> #adjoints #bound>)
}

/// The borrowed companion around the body `body(leaf, lifetime)` gives, if any.
fn borrowed_method(
    function: &Function,
    body: impl FnOnce(bool, &Lifetime) -> Option<TokenStream>,
) -> Option<TokenStream> {
    let leaf = is_leaf(function);
    let lifetime = Lifetime::new("'__ad_p", function.name().span());
    let body = body(leaf, &lifetime)?;
    let output = companion_output(function, leaf, Some(&lifetime));
    Some(forward::companion_method(
        function,
        names::BORROWED_COMPANION,
        Some(&lifetime),
        output,
        body,
    ))
}

/// The borrowed reverse companion made by the IR engine: its pullback reads elements of the
/// parameters again instead of keeping them. `None` when it reads none again.
fn ir_borrowed_companion(function: &Function) -> Option<TokenStream> {
    borrowed_method(function, |leaf, lifetime| {
        super::reverse_ir::borrowed_companion_body(function, !leaf, lifetime)
    })
}

/// `f_vjp` and `f_grad`, in the function's declared types, and their generic versions
/// (`f::vjp`, `f::grad`).
fn public_functions(function: &Function, bodies: Bodies, companion: &str) -> TokenStream {
    let generic = generic_public_functions(function, bodies, companion);
    super::public::in_declared_types(function, bodies, generic)
}

fn generic_public_functions(function: &Function, bodies: Bodies, companion: &str) -> TokenStream {
    let vis = &function.item.vis;
    let name = function.name();
    let span = name.span();
    let companion = names::companion_path(function, companion);
    let bound = quote_scalar_bound(function.float, span);
    let where_clause = forward::public_where(function, span);
    let scalar = names::scalar_param(span);
    let vjp = names::vjp(function);
    let grad = names::grad(function);
    let cotangent = names::output_cotangent(function);
    let params = forward::public_params(function);
    let args: Vec<TokenStream> = function.params.iter().map(names::param_value).collect();
    // A `#[grad]` parameter goes to the companion as its twin; its flat adjoints come back as
    // a value of its type.
    let mut twins = Vec::new();
    let companion_args: Vec<TokenStream> = function
        .params
        .iter()
        .map(|param| {
            let param_name = &names::param_value(param);
            let Some(path) = &param.user_type else {
                // Reborrowed: its final contents are read after the call.
                if param.is_mut_reference() {
                    return quote!(&mut *#param_name);
                }
                return quote!(#param_name);
            };
            let twin = names::derived("__ad_twin_", &param.name);
            let value = if param.is_reference() {
                quote!(#param_name)
            } else {
                quote!(&#param_name)
            };
            if param.is_mut_reference() {
                // Its final contents go back to it after the call.
                twins.push(quote! {
                    let mut #twin = <#path as ::ad_runtime::Differentiable>::to_over(&*#value);
                });
                return quote!(&mut #twin);
            }
            let to_over = match user_value_type(param) {
                Some(ty) => quote!(<#ty as ::ad_runtime::Differentiable>::to_over(#value)),
                None => quote!(::ad_runtime::__private::twins_of(#value)),
            };
            twins.push(quote!(let #twin = #to_over;));
            if param.is_reference() {
                quote!(&#twin)
            } else {
                quote!(#twin)
            }
        })
        .collect();
    // A `&mut` parameter's cotangent comes in, and its adjoint goes out, through a `&mut` of
    // its own type named as its tangent in `f_jvp` (`d_y` for `y`), after the parameters.
    let in_out: Vec<(Ident, &crate::ast::Param, syn::Index)> = names::tangents(function)
        .into_iter()
        .zip(
            function
                .params
                .iter()
                .enumerate()
                .filter(|(_, param)| param.kind == ParamKind::Differentiated),
        )
        .filter(|(_, (_, param))| param.is_mut_reference())
        .map(|(tangent, (index, param))| (tangent, param, syn::Index::from(index)))
        .collect();
    let in_out_params = in_out.iter().map(|(tangent, param, _)| {
        let ty = forward::public_param_type(function, param);
        quote!(#tangent: #ty)
    });
    let private: TokenStream = "::ad_runtime::__private::in_out".parse().expect("a path");
    // Shaped as the final contents, which the companion has just written; data (and a
    // `#[no_grad]` parameter's) have no cotangent to give.
    let in_out_cotangents = mutable_params(function).map(|param| {
        match in_out
            .iter()
            .find(|(_, in_out, _)| std::ptr::eq(*in_out, param))
        {
            Some((tangent, _, _)) if param.user_type.is_some() => {
                quote!(::ad_runtime::__private::flatten_twin(&*#tangent))
            }
            Some((tangent, _, _)) => {
                let name = names::param_value(param);
                quote!(#private::cotangent_in(&*#name, &*#tangent))
            }
            None => quote!(::ad_runtime::__private::ir::zero()),
        }
    });
    let in_out_write_back = in_out
        .iter()
        .map(|(tangent, param, index)| match &param.user_type {
            // The twin's final contents back into the value, the adjoint into the tangent.
            Some(path) => {
                let name = names::param_value(param);
                let twin = names::derived("__ad_twin_", &param.name);
                quote! {
                    *#name = <#path as ::ad_runtime::Differentiable>::from_over(#twin);
                    *#tangent = ::ad_runtime::__private::unflatten_twin(&*#name, &adjoints.#index);
                }
            }
            None => quote!(#private::InOut::set_from(#tangent, adjoints.#index);),
        });
    // Indices, in the pullback's result, of the parameters that are differentiated.
    let differentiated: Vec<(TokenStream, TokenStream)> = function
        .params
        .iter()
        .enumerate()
        .filter(|(_, param)| param.kind == ParamKind::Differentiated && !param.is_mut_reference())
        .map(|(index, param)| {
            let index = syn::Index::from(index);
            let param_name = &names::param_value(param);
            match &param.user_type {
                Some(element) => {
                    let value = if param.is_reference() {
                        quote!(#param_name)
                    } else {
                        quote!(&#param_name)
                    };
                    // A container's adjoint comes shaped as its twins, a user value's flat.
                    let flat = match param.is_user_container() {
                        true => quote!(&::ad_runtime::__private::ir::flatten(&adjoints.#index)),
                        false => quote!(&adjoints.#index),
                    };
                    match user_value_type(param) {
                        Some(ty) => (
                            quote!(::ad_runtime::__private::unflatten_twin(#value, #flat)),
                            ty,
                        ),
                        None => (
                            quote!(::ad_runtime::__private::unflatten_twins(#value, #flat)),
                            quote!(::std::vec::Vec<#element>),
                        ),
                    }
                }
                None => (
                    quote!(adjoints.#index),
                    adjoint_type(function, param, &scalar),
                ),
            }
        })
        .collect();
    let (grads_type, grads_value) = match differentiated.as_slice() {
        [(only, ty)] => (ty.clone(), only.clone()),
        many => {
            let types = many.iter().map(|(_, ty)| ty);
            let fields = many.iter().map(|(value, _)| value);
            (quote!((#(#types,)*)), quote!((#(#fields,)*)))
        }
    };
    // With `&mut` parameters the pullback takes their cotangents after the result's, and a
    // function that returns nothing has neither a value nor a cotangent to give.
    let has_output = function.output().is_some();
    let derived = function.derived_result();
    // `Result<T, E>`: `T` over the scalar type, and `E`; the cotangent is `T`'s, given to the
    // pullback as an option (a fallible result's adjoint).
    let fallible = function
        .fallible_output()
        .map(|(ok, error)| (retype_type(function, ok).to_token_stream(), error.clone()));
    let result_cotangent = match (has_output, &derived) {
        (true, None) if fallible.is_some() => quote!(::core::option::Option::Some(#cotangent)),
        // The user's value as the adjoint of the twin the companion returned.
        (true, Some(path)) => {
            quote!(::ad_runtime::__private::twin_cotangent::<#path>(&value, &#cotangent))
        }
        (true, None) => quote!(#cotangent),
        (false, _) => quote!(::ad_runtime::adjoint::NoAdjoint),
    };
    let pullback_cotangent = match mutable_params(function).next().is_none() {
        true => result_cotangent,
        false => quote!((#result_cotangent, #(#in_out_cotangents,)*)),
    };
    let result = match (has_output, &derived) {
        (true, Some(path)) => {
            quote!((<#path as ::ad_runtime::Differentiable>::from_over(value), #grads_value))
        }
        (true, None) => quote!((value, #grads_value)),
        (false, _) => quote!(#grads_value),
    };
    let vjp_body = match bodies {
        Bodies::Stub => stub_body(),
        // An error is returned as it is, with no derivative.
        Bodies::Derivative if fallible.is_some() => quote! {
            #(#twins)*
            let (value, pullback) = #companion(#(#companion_args),*);
            match value {
                ::core::result::Result::Ok(value) => {
                    let adjoints = pullback(#pullback_cotangent);
                    #(#in_out_write_back)*
                    ::core::result::Result::Ok(#result)
                }
                ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
            }
        },
        Bodies::Derivative => quote! {
            #(#twins)*
            let (value, pullback) = #companion(#(#companion_args),*);
            let adjoints = pullback(#pullback_cotangent);
            #(#in_out_write_back)*
            #result
        },
    };
    let vjp_path = names::generic_public_path(function, "vjp");
    let grad_body = match bodies {
        Bodies::Stub => stub_body(),
        Bodies::Derivative => quote! {
            #vjp_path(#(#args,)* <#scalar as ::ad_runtime::Scalar>::one())
        },
    };
    let primal_list = args
        .iter()
        .map(|a| a.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    // A derived type's value and cotangent are the user's type.
    let output = match &derived {
        Some(path) => quote!(#path),
        None => output_type(function, &scalar),
    };
    let vjp_doc = format!(
        " Reverse-mode derivative of [`{name}`], generated by `#[reverse]`.\n\n \
         `{vjp}({primal_list}, {cotangent})` returns `({name}({primal_list}), {cotangent} · J)`: \
         the value, and the adjoint of each float parameter (a tuple in declared order when \
         there are several) for the cotangent `{cotangent}` of the result."
    );
    let grad_doc = format!(
        " Gradient of [`{name}`], generated by `#[reverse]`: `{grad}({primal_list})` is \
         `{vjp}({primal_list}, 1)`."
    );
    let (cotangent_param, vjp_output) = match (has_output, &fallible) {
        (true, Some((ok, error))) => (
            quote!(#cotangent: #ok),
            quote!(::core::result::Result<(#ok, #grads_type), #error>),
        ),
        (true, None) => (quote!(#cotangent: #output), quote!((#output, #grads_type))),
        (false, _) => (TokenStream::new(), grads_type.clone()),
    };
    let cfgs = cfg_attrs(function);
    // `Ok` with the value and the gradient of a fallible scalar result, or the error.
    let fallible_scalar = function
        .fallible_output()
        .is_some_and(|(ok, _)| float_of_type(ok).is_some());
    let grad_output = match &fallible {
        Some((_, error)) => quote!(::core::result::Result<(#scalar, #grads_type), #error>),
        None => quote!((#scalar, #grads_type)),
    };
    // A gradient is the adjoint of one scalar result (of a function that writes nothing else).
    let grad_function = ((result_shape(function) == ResultShape::Scalar || fallible_scalar)
        && has_output
        && in_out.is_empty())
    .then(|| {
        quote_spanned! {function.item.sig.span()=>
            #(#cfgs)*
            #[doc = #grad_doc]
            #[allow(dead_code, unused_variables, clippy::too_many_arguments, clippy::type_complexity, unreachable_code)]
            #vis fn #grad<#bound>(#(#params),*) -> #grad_output #where_clause {
                #grad_body
            }
        }
    });
    quote_spanned! {function.item.sig.span()=>
        #(#cfgs)*
        #[doc = #vjp_doc]
        #[allow(dead_code, unused_variables, clippy::too_many_arguments, clippy::type_complexity, unreachable_code)]
        #vis fn #vjp<#bound>(#(#params,)* #(#in_out_params,)* #cotangent_param) -> #vjp_output #where_clause {
            #vjp_body
        }

        #grad_function
    }
}

/// No call that could reach a differentiated function (which might recurse back) and a single
/// way out (no `return`), so the pullback has one type that does not contain itself.
fn is_leaf(function: &Function) -> bool {
    struct Leaf(bool, Vec<Ident>);
    impl<'ast> Visit<'ast> for Leaf {
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            match &*call.func {
                Expr::Path(path) if is_float_type_path(&path.path) => {}
                Expr::Path(path)
                    if path.path.segments.last().is_some_and(|segment| {
                        segment
                            .ident
                            .to_string()
                            .starts_with(|c: char| c.is_ascii_uppercase())
                    }) => {}
                _ => self.0 = false,
            }
            syn::visit::visit_expr_call(self, call);
        }
        fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
            self.0 = false;
        }
        // A method of a user type on `self` (the body says `__ad_self`) or a parameter.
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            if matches!(&*call.receiver, Expr::Path(path) if path.path.get_ident().is_some_and(|name| self.1.contains(name)))
            {
                self.0 = false;
            }
            syn::visit::visit_expr_method_call(self, call);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let user_values = function
        .params
        .iter()
        .filter(|param| param.user_type.is_some())
        .map(|param| param.name.clone())
        .collect();
    let mut leaf = Leaf(true, user_values);
    leaf.visit_block(&function.body);
    leaf.0
}

fn strip_references(ty: &syn::Type) -> &syn::Type {
    match ty {
        syn::Type::Reference(reference) => strip_references(&reference.elem),
        other => other,
    }
}

/// The arguments of every inner `#[checkpoint]` of the body, each malformed one with its own
/// message (`attr::checkpoint_args`).
fn check_checkpoint_attributes(cx: &Ctxt, body: &syn::Block) {
    struct Attributes<'c>(&'c Ctxt);
    impl<'ast> Visit<'ast> for Attributes<'_> {
        fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
            if crate::attr::is_checkpoint(attr) {
                crate::attr::checkpoint_args(self.0, std::slice::from_ref(attr));
            }
        }
    }
    Attributes(cx).visit_block(body);
}
