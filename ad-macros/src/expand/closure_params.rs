//! `#[reverse]` on a function taking a closure (`fn integrate(f: impl Fn(f64) -> f64, a: f64,
//! b: f64) -> f64`). The closure is opaque: reverse mode has no code of its own to run
//! backwards through it, but the function's forward code runs it at any scalar type. So
//! `f_vjp` and `f_grad` are computed by the vector forward mode, as `f_jacfwd` is: one pass per
//! `CHUNK` floats of the differentiable parameters gives the Jacobian, and the adjoints are
//! the cotangent times it. They take the closure over `ad_runtime::DualChunk<f64>` (a closure
//! with untyped parameters infers it). The cost is that of `f_jacfwd`: it grows with the
//! number of input floats, which for functions of this kind (integrators, root finders,
//! quadrature rules, whose inputs are a few scalars and short vectors) is small.
//!
//! Reverse-mode callers of such a function go through its forward code already
//! (`ir::lower::closures`); these are the public functions only.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Ident, Type};

use super::helpers::{floats_of, input_count_over, is_passed_again, vector_forward_passes};
use crate::ast::{is_function_type, Function, Param, ParamKind};
use crate::names;

/// Whether the function has a closure parameter, which these functions are for.
pub fn takes_a_closure(function: &Function) -> bool {
    function
        .params
        .iter()
        .any(|param| is_function_type(&param.ty))
}

/// Why the function is not one these functions take, if it is not: a method, a generic
/// function, a closure that is not `Fn` (run once per pass, it must be callable again), and
/// parameters or a result other than floats, slices, `Vec`s and arrays of them and data.
pub fn refusal(function: &Function) -> Option<(&dyn quote::ToTokens, &'static str)> {
    if function.is_method || function.float_param.is_some() {
        return Some((
            function.name(),
            "a method or a function generic over its float type",
        ));
    }
    for param in &function.params {
        if is_function_type(&param.ty) {
            if !is_shared_fn(&param.ty) {
                return Some((
                    &param.ty,
                    "a closure parameter that is not `Fn` (`FnMut`, `FnOnce`)",
                ));
            }
            continue;
        }
        let taken = match param.kind {
            ParamKind::Differentiated | ParamKind::Constant => {
                param.user_type.is_none()
                    && !param.is_mut_reference()
                    && floats_of(&param.ty) == Some(function.float)
            }
            ParamKind::Data => is_passed_again(&param.ty),
        };
        if !taken {
            return Some((
                &param.ty,
                "beside a closure parameter, a parameter other than a float, a slice, `Vec` or \
                 array of floats, or data passed by reference or of a primitive type",
            ));
        }
    }
    match function.output() {
        Some(output) if floats_of(output) == Some(function.float) => None,
        Some(output) => Some((
            output,
            "beside a closure parameter, a result other than a float or a slice, `Vec` or \
             array of floats",
        )),
        None => Some((
            function.name(),
            "beside a closure parameter, a function without a result",
        )),
    }
}

/// `impl Fn(..)`, `&dyn Fn(..)`: callable through a shared reference.
fn is_shared_fn(ty: &Type) -> bool {
    crate::ast::trait_bounds(ty).is_some_and(|bounds| {
        bounds.iter().any(|bound| {
            matches!(bound, syn::TypeParamBound::Trait(bound)
                if bound.path.segments.last().is_some_and(|segment| segment.ident == "Fn"))
        })
    })
}

/// `f_vjp` and, on a float result, `f_grad`.
pub fn public_functions(function: &Function) -> TokenStream {
    let name = function.name();
    let span = name.span();
    let vis = &function.item.vis;
    let float = function.float.ident(span);
    let runtime = quote!(::ad_runtime::__private::jacobian);
    let vjp = names::vjp(function);
    let grad = names::grad(function);
    let cotangent = names::output_cotangent(function);
    let Some(output) = function.output() else {
        return TokenStream::new();
    };
    let companion = names::companion_path(function, names::FORWARD_COMPANION);
    let passes = vector_forward_passes(
        function,
        &quote!(#float),
        quote!(#runtime::forward_jacobian),
        |arguments| {
            // Each pass calls the closure again: lent to the forward code, not moved.
            let arguments = function
                .params
                .iter()
                .zip(arguments)
                .map(|(param, argument)| {
                    if is_function_type(&param.ty) && !matches!(param.ty, Type::Reference(_)) {
                        let name = &param.name;
                        quote!(&#name)
                    } else {
                        argument.clone()
                    }
                });
            quote!(#companion::<::ad_runtime::DualVec<#float, __AD_CHUNK>>(#(#arguments),*))
        },
    );
    let params: Vec<TokenStream> = function
        .params
        .iter()
        .map(|param| {
            let name = &param.name;
            let ty = public_type(function, param);
            quote!(#name: #ty)
        })
        .collect();
    let differentiated: Vec<&Param> = function
        .params
        .iter()
        .filter(|param| param.kind == ParamKind::Differentiated)
        .collect();
    let (adjoint_types, adjoints): (Vec<TokenStream>, Vec<TokenStream>) = differentiated
        .iter()
        .map(|param| adjoint_of(param, &float))
        .unzip();
    let (adjoints_type, adjoints_value) = match (adjoint_types.as_slice(), adjoints.as_slice()) {
        ([ty], [value]) => (ty.clone(), value.clone()),
        _ => (quote!((#(#adjoint_types,)*)), quote!((#(#adjoints,)*))),
    };
    let inputs = input_count_over(function, &quote!(#float));
    let args: Vec<&Ident> = function.params.iter().map(|param| &param.name).collect();
    let primal_list = args
        .iter()
        .map(|arg| arg.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let cfgs = super::forward::cfg_attrs(function);
    let allow = quote!(#[allow(dead_code, unused_mut, unused_variables, clippy::too_many_arguments, clippy::type_complexity)]);
    let vjp_doc = format!(
        " Reverse-mode derivative of [`{name}`], generated by `#[reverse]`.\n\n \
         `{vjp}({primal_list}, {cotangent})` returns `({name}({primal_list}), {cotangent} · J)`: \
         the value, and the adjoint of each float parameter (a tuple in declared order when \
         there are several). `{name}` takes a closure, which reverse mode cannot run \
         backwards: `J` comes from its forward code at `ad_runtime::DualChunk<{float}>` (one \
         pass per `CHUNK` input floats), and the closure is given over that type."
    );
    let vjp_fn = quote! {
        #(#cfgs)*
        #[doc = #vjp_doc]
        #allow
        #vis fn #vjp(#(#params,)* #cotangent: #output) -> (#output, #adjoints_type) {
            let (__ad_value, __ad_jacobian) = #passes;
            let __ad_inputs = #inputs;
            let __ad_flat = #runtime::transposed_product(&__ad_jacobian, &#cotangent, __ad_inputs);
            let mut __ad_at = 0usize;
            (__ad_value, #adjoints_value)
        }
    };
    if function.output().and_then(crate::ast::float_of_type) != Some(function.float) {
        return vjp_fn;
    }
    let grad_doc = format!(
        " Gradient of [`{name}`], generated by `#[reverse]`: `{grad}({primal_list})` is \
         `{vjp}({primal_list}, 1)`."
    );
    quote! {
        #vjp_fn
        #(#cfgs)*
        #[doc = #grad_doc]
        #allow
        #vis fn #grad(#(#params),*) -> (#output, #adjoints_type) {
            #vjp(#(#args,)* 1.0)
        }
    }
}

/// A parameter's type in `f_vjp`: as declared, a closure's floats made `DualChunk`s.
fn public_type(function: &Function, param: &Param) -> TokenStream {
    let ty = &param.ty;
    if !is_function_type(ty) {
        return quote!(#ty);
    }
    let float = function.float.ident(param.name.span());
    names::replace_idents(quote!(#ty), &|ident| {
        (*ident == float).then(|| quote!(::ad_runtime::DualChunk<#float>))
    })
}

/// A differentiable parameter's adjoint, taken from the flat adjoints at `__ad_at` (which it
/// advances), and its type: a float's, a slice's or `Vec`'s as a `Vec`, an array's as an array.
fn adjoint_of(param: &Param, float: &Ident) -> (TokenStream, TokenStream) {
    let name = &param.name;
    if param.is_scalar() {
        let value = quote!({
            __ad_at += 1;
            __ad_flat[__ad_at - 1]
        });
        return (quote!(#float), value);
    }
    let length = format_ident!("__ad_length");
    let taken = quote!(&__ad_flat[__ad_at - #length..__ad_at]);
    let (ty, value) = match array_length(&param.ty) {
        Some(length_expr) => (
            quote!([#float; #length_expr]),
            quote!(::core::array::from_fn(|__ad_i| (#taken)[__ad_i])),
        ),
        None => (quote!(::std::vec::Vec<#float>), quote!((#taken).to_vec())),
    };
    let value = quote!({
        let #length = #name.len();
        __ad_at += #length;
        #value
    });
    (ty, value)
}

/// `N` of `[f64; N]` or `&[f64; N]`.
fn array_length(ty: &Type) -> Option<&syn::Expr> {
    match ty {
        Type::Reference(reference) => array_length(&reference.elem),
        Type::Paren(paren) => array_length(&paren.elem),
        Type::Array(array) => Some(&array.len),
        _ => None,
    }
}
