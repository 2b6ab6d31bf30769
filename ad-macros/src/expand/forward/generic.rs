//! `#[forward]` on a function generic over its float type. Nothing in the body is rewritten:
//! the function runs itself at the dual number type, and rustc's types decide everything.
//!
//! ```text
//! fn f<T: Float>(x: &[T], n: usize) -> T { .. }                      // as written
//! fn f_jvp<T: Scalar>(x: &[T], n: usize, dx: &[T]) -> (T, T)
//! where Dual<T>: Float {                                              // the user's bounds
//!     split(f::<Dual<T>>(&seed(x, dx), n))
//! }
//! struct f {}                                                         // hidden
//! impl f {
//!     // For derivative code over `__S: Scalar` that calls `f` (a `#[forward]` function over
//!     // `f64`), where `T: Float` cannot be proved of `__S` itself: `f` runs one dual level
//!     // up, with tangent zero, and gives the value.
//!     fn __ad_forward<T: Scalar>(x: &[T], n: usize) -> T where Dual<T>: Float {
//!         split(f::<Dual<T>>(&constant(x), n)).0
//!     }
//! }
//! ```

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::{Ident, Type};

use super::{cfg_attrs, companion_attributes, jvp_doc, stub_body, Bodies};
use crate::ast::{Function, ParamKind};
use crate::generics;
use crate::names;

pub fn expand(function: &Function, float: &Ident, bodies: Bodies) -> TokenStream {
    let original = function.emitted_item();
    let companion = companion(function, float, bodies);
    let jvp = super::jvp(function, bodies);
    quote! {
        #original
        #companion
        #jvp
    }
}

/// `::ad_runtime::Dual<T>`: the type the function runs at. Not spanned at `T` as a whole, or
/// lints that read a bounded type's source text would take `Dual<T>: Float` for a second
/// bound on `T`.
fn dual_of(float: &Ident) -> Type {
    syn::parse_quote!(::ad_runtime::Dual<#float>)
}

/// The signature pieces both generated functions share: generic parameters, `where` clause,
/// and the function's parameters as declared (without `mut`, as they are passed on).
struct Signature {
    generics: TokenStream,
    where_clause: TokenStream,
    params: Vec<TokenStream>,
    output: TokenStream,
}

fn signature(function: &Function, float: &Ident) -> Signature {
    signature_at(function, float, &dual_of(float), TokenStream::new())
}

/// [`signature`] with the bounds declared on the float type required of `at`, and `extra`
/// bounds on the float type beside `Scalar` (inline: one place for its bounds, as clippy's
/// `multiple_bound_locations` asks of the user's code the span points to).
fn signature_at(function: &Function, float: &Ident, at: &Type, extra: TokenStream) -> Signature {
    let item = &function.item;
    let span = float.span();
    let scalar_bound = quote_spanned!(span=> ::ad_runtime::Scalar #extra);
    let generics = generics::generic_params(item, float, scalar_bound);
    let predicates = generics::where_predicates(item, float, at);
    let where_clause = match predicates.is_empty() {
        true => quote!(),
        false => quote!(where #(#predicates),*),
    };
    let params = function
        .params
        .iter()
        .map(|param| {
            let name = &param.name;
            let ty = &param.ty;
            quote!(#name: #ty)
        })
        .collect();
    let output = match function.output() {
        Some(ty) => quote!(#ty),
        None => quote!(()),
    };
    Signature {
        generics,
        where_clause,
        params,
        output,
    }
}

/// `let` statements that make each differentiated or constant parameter a dual value (with
/// `seeded` its tangent, or zero), and the arguments of the call to the function at the dual
/// type.
fn dual_arguments(
    function: &Function,
    mut seeded: impl FnMut(&Ident) -> Option<TokenStream>,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut lets = Vec::new();
    let arguments = function
        .params
        .iter()
        .map(|param| {
            let name = &param.name;
            let value = match param.kind {
                // A float that is data (not of the type parameter): plain, whichever scalar type
                // the caller's derivative code passes (`call_args` lifts data it passes).
                ParamKind::Data if crate::ast::float_of_type(&param.ty).is_some() => {
                    let ty = &param.ty;
                    return quote!(::ad_runtime::__private::PlainFloat::<#ty>::plain(#name));
                }
                ParamKind::Data => return quote!(#name),
                ParamKind::Differentiated => seeded(name),
                ParamKind::Constant => None,
            };
            let value =
                value.unwrap_or_else(|| quote!(::ad_runtime::__private::Seed::constant(#name)));
            let local = names::derived("__ad_dual_", name);
            lets.push(quote!(let #local = #value;));
            match param.is_reference() {
                true => quote!(&#local),
                false => quote!(#local),
            }
        })
        .collect();
    (lets, arguments)
}

fn call(function: &Function, float: &Ident, arguments: &[TokenStream]) -> TokenStream {
    call_at(function, float, &dual_of(float), arguments)
}

fn call_at(
    function: &Function,
    float: &Ident,
    at: &Type,
    arguments: &[TokenStream],
) -> TokenStream {
    let name = function.name();
    let generic_arguments = generics::call_arguments(&function.item, float, at);
    quote!(#name::<#generic_arguments>(#(#arguments),*))
}

/// The hidden struct and `__ad_forward`, for derivative code over `f64` that calls the
/// function: its scalar type is only known to be a `Scalar`, so the function runs one dual
/// level up, at a type that has the function's bounds, with tangent zero.
pub fn companion(function: &Function, float: &Ident, bodies: Bodies) -> TokenStream {
    let vis = &function.item.vis;
    let name = function.name();
    let span = name.span();
    let method = Ident::new(names::FORWARD_COMPANION, span);
    let Signature {
        generics,
        where_clause,
        mut params,
        output,
    } = signature(function, float);
    // Data floats are taken at any scalar type: callers' derivative code may have lifted them.
    for (param, declared) in params.iter_mut().zip(&function.params) {
        if declared.kind == ParamKind::Data && crate::ast::float_of_type(&declared.ty).is_some() {
            let (name, ty) = (&declared.name, &declared.ty);
            *param = quote!(#name: impl ::ad_runtime::__private::PlainFloat<#ty>);
        }
    }
    let body = match bodies {
        Bodies::Stub => stub_body(),
        Bodies::Derivative => {
            let (lets, arguments) = dual_arguments(function, |_| None);
            let call = call(function, float, &arguments);
            quote! {
                #(#lets)*
                ::ad_runtime::__private::DualParts::split(#call).0
            }
        }
    };
    let cfgs = cfg_attrs(function);
    let attributes = companion_attributes();
    quote_spanned! {span=>
        #(#cfgs)*
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}

        #(#cfgs)*
        #[allow(dead_code)]
        impl #name {
            #attributes
            #vis fn #method<#generics>(#(#params),*) -> #output #where_clause {
                #body
            }
        }
    }
}

pub fn jvp(function: &Function, float: &Ident, bodies: Bodies) -> TokenStream {
    let vis = &function.item.vis;
    let jvp = names::jvp(function);
    let Signature {
        generics,
        where_clause,
        params,
        output,
    } = signature(function, float);
    let tangents = names::tangents(function);
    let differentiated = function
        .params
        .iter()
        .filter(|param| param.kind == ParamKind::Differentiated);
    let tangent_params: Vec<TokenStream> = tangents
        .iter()
        .zip(differentiated.clone())
        .map(|(tangent, param)| {
            let ty = &param.ty;
            quote!(#tangent: #ty)
        })
        .collect();
    let body = match bodies {
        Bodies::Stub => stub_body(),
        Bodies::Derivative => {
            let tangent_of: Vec<(&Ident, &Ident)> = differentiated
                .map(|param| &param.name)
                .zip(tangents.iter())
                .collect();
            let (lets, arguments) = dual_arguments(function, |name| {
                let (_, tangent) = tangent_of.iter().find(|(param, _)| *param == name)?;
                Some(quote!(::ad_runtime::__private::Seed::seed(#name, #tangent)))
            });
            let call = call(function, float, &arguments);
            quote! {
                #(#lets)*
                ::ad_runtime::__private::DualParts::split(#call)
            }
        }
    };
    let doc = jvp_doc(function, &tangents);
    let cfgs = cfg_attrs(function);
    let span = function.name().span();
    quote_spanned! {span=>
        #(#cfgs)*
        #[doc = #doc]
        #[allow(dead_code, unused_variables, clippy::too_many_arguments, clippy::type_complexity, unreachable_code)]
        #vis fn #jvp<#generics>(#(#params,)* #(#tangent_params),*) -> (#output, #output) #where_clause {
            #body
        }
    }
}

/// `f_jacfwd` of a function generic over its float type: the function itself at
/// `DualChunk<T>` (`CHUNK` inputs seeded per pass), for the shapes the non-generic helpers
/// take: parameters `T`, slices, `Vec`s and arrays of `T` (or data passed again), a result
/// of `T` or a container of them.
pub fn jacfwd(function: &Function, float: &Ident, bodies: Bodies) -> TokenStream {
    if !super::super::helpers::takes_generic_jacfwd(function, float) {
        return TokenStream::new();
    }
    let name = function.name();
    let helper = names::suffixed(function, "_jacfwd");
    if crate::source_facts::defines_function_beside(&name.to_string(), &helper.to_string()) {
        return TokenStream::new();
    }
    let vis = &function.item.vis;
    let span = name.span();
    let jacobian = quote!(::ad_runtime::__private::jacobian);
    let chunk_type: Type = syn::parse_quote!(::ad_runtime::DualChunk<#float>);
    // The seeded float's type, which a bound on `T` alone leaves opaque.
    let seeded_float = quote! {
        + #jacobian::Directions<#float, Seeded<{ #jacobian::CHUNK }> = #chunk_type>
    };
    let Signature {
        generics,
        where_clause,
        params,
        output,
    } = signature_at(function, float, &chunk_type, seeded_float);
    let body = match bodies {
        Bodies::Stub => stub_body(),
        Bodies::Derivative => super::super::helpers::vector_forward_passes(
            function,
            &quote!(#float),
            quote!(#jacobian::forward_jacobian),
            |arguments| call_at(function, float, &chunk_type, arguments),
        ),
    };
    let doc = format!(
        " Jacobian of [`{name}`] by forward mode, generated by `#[forward]`: the value, and one \
         row per float of the result, one column per float of the differentiable parameters in \
         declared order; `{name}` runs at `ad_runtime::DualChunk<{float}>`, {} columns per pass.",
        "`ad_runtime::__private::jacobian::CHUNK`"
    );
    let cfgs = cfg_attrs(function);
    quote_spanned! {span=>
        #(#cfgs)*
        #[doc = #doc]
        #[inline]
        #[allow(dead_code, unused_mut, unused_variables, clippy::too_many_arguments, clippy::type_complexity)]
        #vis fn #helper<#generics>(#(#params),*) -> (#output, ::std::vec::Vec<::std::vec::Vec<#float>>) #where_clause {
            #body
        }
    }
}
