//! When the function cannot be differentiated: the function as written, the errors, and stubs
//! of every generated name, so that one mistake gives one message and callers still resolve.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Function;
use crate::ctxt::Ctxt;
use crate::expand::forward::{self, Bodies};
use crate::expand::reverse::Calls;
use crate::generics;

/// No float in the signature, not even inside a derived type (`fn f(n: usize) -> usize`,
/// refused): stubs of the generated functions would have types that do not exist.
pub fn floatless(function: &Function) -> bool {
    function.float_param.is_none()
        && function.derived_result().is_none()
        && function
            .params
            .iter()
            .all(|param| param.user_type.is_none())
        && function
            .params
            .iter()
            .all(|param| crate::ast::first_float_in(&param.ty).is_none())
        && function
            .output()
            .is_none_or(|ty| crate::ast::first_float_in(ty).is_none())
}

pub fn forward(function: &Function, cx: Ctxt) -> TokenStream {
    let errors = cx.into_compile_errors();
    // A generic function refused as a whole: stubs would name its undeclared parameters.
    if (generics::has_generics(&function.item) && function.float_param.is_none())
        || floatless(function)
        || function.refused_whole
    {
        let original = function.emitted_item();
        return quote!(#errors #original);
    }
    let stubs = forward::expand(function, Bodies::Stub);
    quote! {
        #errors
        #stubs
    }
}

pub fn reverse(function: &Function, cx: Ctxt) -> TokenStream {
    let errors = cx.into_compile_errors();
    if floatless(function) || function.refused_whole {
        let original = function.emitted_item();
        return quote!(#errors #original);
    }
    let stubs = crate::expand::reverse::expand(
        &Ctxt::new(),
        function,
        Bodies::Stub,
        crate::expand::reverse::Calls::Recorded,
    );
    quote! {
        #errors
        #stubs
    }
}

/// A generic function under `#[reverse]` or `#[checkpoint]`, which reverse mode does not take
/// yet: the function as written, the errors, and stubs of `_vjp` and `_grad` over `f64`. Unless
/// a `#[forward]` below emits them, also the hidden struct and a stub of its forward companion,
/// for the `#[forward]` functions that call it.
pub fn reverse_generic(
    function: &Function,
    cx: Ctxt,
    calls: Calls,
    forward_inside: bool,
) -> TokenStream {
    let errors = cx.into_compile_errors();
    let original = function.emitted_item();
    let forward_companion = match forward_inside {
        true => None,
        false => {
            let as_forward = Function::from_item(&Ctxt::new(), function.item.clone(), "forward");
            as_forward
                .float_param
                .is_some()
                .then(|| forward::companion(&as_forward, Bodies::Stub))
        }
    };
    let public_stubs = generics::result_parameter(&function.item)
        .and_then(|float| generics::over_f64(&function.item, float))
        .map(|item| {
            let over_f64 = Function::from_item(&Ctxt::new(), item, "reverse");
            let expanded =
                crate::expand::reverse::expand(&Ctxt::new(), &over_f64, Bodies::Stub, calls);
            let public = [
                crate::names::vjp(&over_f64),
                crate::names::grad(&over_f64),
                // A method's generic versions sit beside it.
                crate::names::generic_public(&over_f64, "vjp"),
                crate::names::generic_public(&over_f64, "grad"),
            ];
            let items = syn::parse2::<syn::File>(expanded)
                .map(|file| file.items)
                .unwrap_or_default();
            // The public functions, their generic versions, and the reverse companion that
            // callers in reverse mode call (stubs, so that a caller's code names something that
            // exists).
            let companion = crate::names::REVERSE_COMPANION;
            let kept = items.into_iter().filter_map(|item| match item {
                syn::Item::Fn(stub) if public.contains(&stub.sig.ident) => {
                    Some(syn::Item::Fn(stub))
                }
                syn::Item::Impl(mut block) => {
                    let generic = ["vjp", "grad"]
                        .map(|kind| crate::names::generic_public(&over_f64, kind).to_string());
                    block.items.retain(|item| {
                        matches!(item, syn::ImplItem::Fn(method)
                            if method.sig.ident == companion
                                || generic.contains(&method.sig.ident.to_string()))
                    });
                    (!block.items.is_empty()).then_some(syn::Item::Impl(block))
                }
                _ => None,
            });
            quote!(#(#kept)*)
        });
    quote! {
        #errors
        #original
        #forward_companion
        #public_stubs
    }
}

/// A function with `&mut` parameters of floats under `#[reverse]` or `#[checkpoint]` (and no
/// `#[forward]` below), which reverse mode does not take yet: the errors, the function as
/// written, the hidden struct and the forward companion, which is real when nothing else is
/// wrong (a `#[forward]` above, and `#[forward]` functions calling this one, use it). No stubs
/// of `_vjp` and `_grad`: their contract for `&mut` parameters is not settled, and a call to
/// them fails at the call.
pub fn reverse_mut_params(
    function: &Function,
    cx: Ctxt,
    forward_is_clean: bool,
    calls: Calls,
) -> TokenStream {
    let errors = cx.into_compile_errors();
    // A refused `#[checkpoint]` function: stubs of its reverse companions too, so that reverse
    // code calling it finds them (the message above is the only one).
    if calls == Calls::Checkpointed {
        let stubs =
            crate::expand::reverse::expand(&Ctxt::new(), function, Bodies::Stub, Calls::Recorded);
        return quote!(#errors #stubs);
    }
    let bodies = match forward_is_clean {
        true => Bodies::Derivative,
        false => Bodies::Stub,
    };
    let original = function.emitted_item();
    let companion = forward::companion(function, bodies);
    quote! {
        #errors
        #original
        #companion
    }
}
