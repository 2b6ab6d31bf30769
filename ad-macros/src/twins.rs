//! The methods and operators of a derived type, on its twin: what lets derivative code call
//! them on values it built itself.
//!
//! In forward mode a value of a type that derives `Differentiable` is its twin over dual
//! numbers (`__AdOver_Vec3<Dual<f64>>`). A `#[grad]` parameter's method calls are rewritten to
//! the method's companion by name, but a value the body builds (`let ab = b - a;`, then
//! `ab.cross(&ac)`) has a type only rustc knows. So `#[forward]` on an `impl` block gives the
//! twin the block's methods, and its operators when the block implements one of `core::ops`,
//! each forwarding to the method's forward companion:
//!
//! ```text
//! #[forward] impl Vec3 { fn cross(&self, o: &Vec3) -> Vec3 { .. } }
//! // also generates
//! impl<__S: Scalar<Base = f64>> __AdOver_Vec3<__S> {
//!     fn cross(&self, o: &<Vec3 as Differentiable>::Over<__S>) -> <Vec3 as Differentiable>::Over<__S> {
//!         <Vec3>::__ad_forward_cross::<__S>(self, o)
//!     }
//! }
//! #[forward] impl Sub for Vec3 { .. }   // also `impl Sub for __AdOver_Vec3<__S>`
//! ```
//!
//! rustc's method and operator resolution then picks them by type, as it picks the user's.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};

use crate::ast::Function;
use crate::expand::{forward, reverse};
use crate::names;
use crate::retype::{quote_scalar_bound, quote_scalar_where};

/// The operator traits whose signatures follow from the `impl`'s header alone, so that the
/// same header over the twin is the trait at the scalar type.
const OPERATORS: [&str; 11] = [
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Rem",
    "Neg",
    "AddAssign",
    "SubAssign",
    "MulAssign",
    "DivAssign",
    "RemAssign",
];

/// The twin of an `impl` block's type: `Vec3` gives `__AdOver_Vec3`, `geom::Vec3` gives
/// `geom::__AdOver_Vec3` (the derive defines it beside the type). `None` for a type that is
/// no plain path (a reference, a generic type): its twin is not named here.
fn twin_path(self_ty: &syn::Type) -> Option<(syn::Ident, syn::Path)> {
    let syn::Type::Path(path) = self_ty else {
        return None;
    };
    // `f64`, `usize`: no derive gives them a twin.
    let primitive = path.path.segments.last().is_some_and(|last| {
        last.ident
            .to_string()
            .starts_with(|c: char| c.is_ascii_lowercase())
    });
    if primitive {
        return None;
    }
    if path.qself.is_some()
        || path
            .path
            .segments
            .iter()
            .any(|segment| !segment.arguments.is_none())
    {
        return None;
    }
    let mut twin = path.path.clone();
    let last = twin.segments.last_mut()?;
    let name = last.ident.clone();
    last.ident = format_ident!("__AdOver_{}", name);
    Some((name, twin))
}

/// `tokens` with every `Self` replaced by `self_ty`: inside the twin's `impl`, `Self` is the
/// twin, not the user's type the companion's signature means.
fn without_self(tokens: TokenStream, self_ty: &TokenStream) -> TokenStream {
    names::replace_idents(tokens, &|ident| (ident == "Self").then(|| self_ty.clone()))
}

/// `tokens` (an operator trait's arguments, an associated type) at the scalar type: the float
/// is `__S`, the type `name` (and any other type the file derives `Differentiable` for, `type
/// Output = Vec2` of `impl Sub for Point`) is its twin over `__S`.
fn at_scalar(tokens: TokenStream, name: &syn::Ident, float: &str) -> TokenStream {
    let scalar = names::scalar_param(proc_macro2::Span::call_site());
    names::replace_idents(tokens, &|ident| {
        if ident == float {
            return Some(scalar.to_token_stream());
        }
        let twin = format_ident!("__AdOver_{}", ident, span = ident.span());
        (ident == name || crate::source_facts::defines_derived(&ident.to_string()))
            .then(|| quote!(#twin<#scalar>))
    })
}

/// The method `function` of `self_ty` as the method `name` of the twin returning `output`,
/// forwarding to the type's companion `companion`.
fn twin_method(
    function: &Function,
    self_ty: &syn::Type,
    vis: &TokenStream,
    (name, companion): (&syn::Ident, &syn::Ident),
    output: TokenStream,
) -> TokenStream {
    let span = function.name().span();
    let self_tokens = quote!(#self_ty);
    let mut inputs = Vec::new();
    let mut arguments = Vec::new();
    for (param, input) in function
        .params
        .iter()
        .zip(forward::companion_params(function))
    {
        if param.receiver {
            inputs.push(match &param.ty {
                syn::Type::Reference(reference) if reference.mutability.is_some() => {
                    quote!(&mut self)
                }
                syn::Type::Reference(_) => quote!(&self),
                _ => quote!(self),
            });
            arguments.push(quote!(self));
        } else {
            inputs.push(without_self(input, &self_tokens));
            let name = &param.name;
            arguments.push(quote!(#name));
        }
    }
    let output = without_self(output, &self_tokens);
    let scalar = names::scalar_param(span);
    quote! {
        #[inline]
        #vis fn #name(#(#inputs),*) -> #output {
            <#self_ty>::#companion::<#scalar>(#(#arguments),*)
        }
    }
}

/// The user's method `function` on the twin, for forward mode's derivative code.
fn forward_method(function: &Function, self_ty: &syn::Type, vis: &TokenStream) -> TokenStream {
    let companion = names::companion(function, names::FORWARD_COMPANION);
    let output = forward::output_type(function).to_token_stream();
    twin_method(
        function,
        self_ty,
        vis,
        (function.name(), &companion),
        output,
    )
}

/// The reverse and forward companions of `function` on the twin
/// (`Rvalue::Call::of_receiver_type`), for reverse mode's derivative code. The pullback is
/// returned as the `FnOnce` it is, boxed or not.
fn reverse_methods(function: &Function, self_ty: &syn::Type, vis: &TokenStream) -> TokenStream {
    let scalar = names::scalar_param(function.name().span());
    let value = reverse::output_type(function, &scalar);
    let cotangent = reverse::cotangent_type(function, &scalar);
    let adjoints = reverse::adjoints_tuple_type(function, &scalar);
    let output = quote!((#value, impl ::core::ops::FnOnce(#cotangent) -> #adjoints + use<#scalar>));
    let methods = [names::REVERSE_COMPANION, names::FORWARD_COMPANION].map(|base| {
        let companion = names::companion(function, base);
        let output = match base == names::REVERSE_COMPANION {
            true => output.clone(),
            false => forward::output_type(function).to_token_stream(),
        };
        twin_method(function, self_ty, vis, (&companion, &companion), output)
    });
    quote!(#(#methods)*)
}

/// The twin `impl`s for the methods of `block` that `macro_name` differentiated (`methods`).
/// `"forward"`: the user's methods, in an inherent `impl` per method, or the operator's
/// `impl` when `block` implements one (what forward mode's derivative code calls, and reverse
/// mode's forward companions). `"reverse"`: the methods' companions, in an inherent `impl` per
/// method (what reverse mode's derivative code calls on a value whose type it does not see).
/// Nothing for a block whose type has no nameable twin, or a generic method.
pub fn impls(macro_name: &str, block: &syn::ItemImpl, methods: &[Function]) -> TokenStream {
    let Some((name, twin)) = twin_path(&block.self_ty) else {
        return TokenStream::new();
    };
    if !block.generics.params.is_empty() {
        return TokenStream::new();
    }
    let scalar = names::scalar_param(proc_macro2::Span::call_site());
    let allow = quote!(#[allow(dead_code, non_camel_case_types, clippy::all)]);
    // Only a method of a differentiated `self` says the type derives `Differentiable` (has a
    // twin), and only its companion takes the twin.
    let methods: Vec<&Function> = methods
        .iter()
        .filter(|function| function.item.sig.generics.params.is_empty())
        .filter(|function| {
            function.params.first().is_some_and(|param| {
                param.receiver && param.kind == crate::ast::ParamKind::Differentiated
            })
        })
        .collect();
    if methods.is_empty() {
        return TokenStream::new();
    }
    let trait_path = block.trait_.as_ref().map(|(_, path, _)| path);
    let is_operator = trait_path.is_some_and(|path| {
        path.segments
            .last()
            .is_some_and(|segment| OPERATORS.contains(&segment.ident.to_string().as_str()))
    });
    let inherent =
        |methods: &[&Function], make: fn(&Function, &syn::Type, &TokenStream) -> TokenStream| {
            methods
                .iter()
                .map(|function| {
                    let span = function.name().span();
                    let bound = quote_scalar_bound(function.float, span);
                    let where_clause = quote_scalar_where(span);
                    // Callable where the trait's methods are.
                    let vis = match trait_path {
                        Some(_) => quote!(pub),
                        None => function.item.vis.to_token_stream(),
                    };
                    let method = make(function, &block.self_ty, &vis);
                    quote! {
                        #allow
                        impl<#bound> #twin<#scalar> #where_clause {
                            #method
                        }
                    }
                })
                .collect::<TokenStream>()
        };
    match (macro_name, trait_path) {
        ("reverse", _) => inherent(&methods, reverse_methods),
        ("forward", None) => inherent(&methods, forward_method),
        ("forward", Some(trait_path)) if is_operator => {
            operator_impl(block, trait_path, &methods, (&name, &twin))
        }
        _ => TokenStream::new(),
    }
}

/// The operator `impl` of `block` on the twin, when `#[forward]` differentiated every method of
/// it: the trait and its associated types at the scalar type.
fn operator_impl(
    block: &syn::ItemImpl,
    trait_path: &syn::Path,
    methods: &[&Function],
    (name, twin): (&syn::Ident, &syn::Path),
) -> TokenStream {
    let all_taken = block
        .items
        .iter()
        .filter(|item| matches!(item, syn::ImplItem::Fn(_)))
        .count()
        == methods.len();
    let Some(first) = methods.first().filter(|_| all_taken) else {
        return TokenStream::new();
    };
    let float = first.float.name();
    let trait_at_scalar = at_scalar(trait_path.to_token_stream(), name, float);
    let types = block.items.iter().filter_map(|item| match item {
        syn::ImplItem::Type(ty) => {
            let (ident, value) = (&ty.ident, &ty.ty);
            let value = at_scalar(value.to_token_stream(), name, float);
            Some(quote!(type #ident = #value;))
        }
        _ => None,
    });
    let span = first.name().span();
    let bound = quote_scalar_bound(first.float, span);
    let where_clause = quote_scalar_where(span);
    let scalar = names::scalar_param(span);
    let methods = methods
        .iter()
        .map(|function| forward_method(function, &block.self_ty, &TokenStream::new()));
    quote! {
        #[allow(dead_code, non_camel_case_types, clippy::all)]
        impl<#bound> #trait_at_scalar for #twin<#scalar> #where_clause {
            #(#types)*
            #(#methods)*
        }
    }
}
