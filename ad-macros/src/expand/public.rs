//! The generated public functions in the user's own types.
//!
//! Each mode writes its public functions (`f_jvp`, `f_vjp`, `f_grad`) generic over the scalar
//! type, which is what nesting needs: `#[forward]` code calling `g_grad` runs it over dual
//! numbers. A user calling `f_grad(0.5, -0.25)` needs the opposite: literals infer only when
//! the parameter types are the declared ones (`f64`, `&[f64]`), and type errors should name
//! those. So every generic public function is split in two:
//!
//! ```text
//! impl f { #[doc(hidden)] pub fn grad<__S: Scalar>(x: __S) -> (__S, __S) { .. } }  // generic
//! pub fn f_grad(x: f64) -> (f64, f64) { f::grad::<f64>(x) }                       // public
//! ```
//!
//! A method's generic version sits beside it in its `impl` (`Self::__ad_grad_norm`). Derivative
//! code that calls `g_grad` calls `g::grad` instead (`retype`). A function generic over its own
//! float type (`fn f<T: Float>`) keeps its public functions generic over `T`: that is its
//! declared type.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::visit_mut::VisitMut;
use syn::{FnArg, Ident, Item};

use super::forward::Bodies;
use crate::ast::Function;
use crate::names;

/// Splits every generic public function in `generated` into its generic version (where
/// nesting calls it) and the public one in the function's declared types. Tokens that are not
/// such functions pass through.
pub fn in_declared_types(
    function: &Function,
    bodies: Bodies,
    generated: TokenStream,
) -> TokenStream {
    let Ok(file) = syn::parse2::<syn::File>(generated.clone()) else {
        return generated;
    };
    file.items
        .into_iter()
        .map(|item| match item {
            Item::Fn(public) => match names::public_kind(function, &public.sig.ident) {
                Some(kind) => split(function, bodies, public, kind),
                None => quote!(#public),
            },
            other => quote!(#other),
        })
        .collect()
}

fn split(function: &Function, bodies: Bodies, public: syn::ItemFn, kind: &str) -> TokenStream {
    let span = function.name().span();
    let cfgs = super::forward::cfg_attrs(function);
    let mut generic = public.clone();
    generic.sig.ident = names::generic_public(function, kind);
    generic.attrs.retain(|attr| !attr.path().is_ident("doc"));
    generic.attrs.insert(0, syn::parse_quote!(#[doc(hidden)]));
    // Inlined into the public function's codegen unit with the companion it calls, as the
    // public function itself was when it was the generic one.
    generic.attrs.insert(1, syn::parse_quote!(#[inline]));
    let path = names::generic_public_path(function, kind);
    let arguments = generic.sig.inputs.iter().map(argument);
    let mut concrete = public;
    let call = match function.float_param {
        // Generic over its own float type: the public function keeps the signature.
        Some(_) => quote_spanned!(span=> #path(#(#arguments),*)),
        None => {
            let float = function.float.ident(span);
            in_float_type(&mut concrete.sig, &float);
            quote_spanned!(span=> #path::<#float>(#(#arguments),*))
        }
    };
    concrete.block = syn::parse_quote_spanned!(span=> { #call });
    concrete.attrs.push(syn::parse_quote!(#[inline]));
    // Stubs stand in while errors are reported: no helpers over them.
    let helpers = match bodies {
        Bodies::Derivative => super::helpers::beside(function, kind, &concrete.sig),
        Bodies::Stub => TokenStream::new(),
    };
    let generic = match function.is_method {
        true => quote!(#generic),
        false => {
            let name = function.name();
            quote_spanned! {span=>
                #(#cfgs)*
                #[allow(dead_code)]
                impl #name {
                    #generic
                }
            }
        }
    };
    quote!(#generic #concrete #helpers)
}

/// How the public function passes a parameter on: its name, `self` for the receiver.
fn argument(input: &FnArg) -> TokenStream {
    match input {
        FnArg::Receiver(receiver) => {
            let span = receiver.self_token.span;
            quote_spanned!(span=> self)
        }
        FnArg::Typed(typed) => match &*typed.pat {
            syn::Pat::Ident(ident) => {
                let name = &ident.ident;
                quote!(#name)
            }
            other => quote!(#other),
        },
    }
}

/// The signature with the scalar type parameter replaced by the declared float type: it loses
/// that parameter and the bounds that only concern it (`&__S: ScalarRef<__S>`); bounds on the
/// user's types (`Vessel: Differentiable<Float = f64>`) stay, so a type without the derive is
/// reported at the parameter.
fn in_float_type(sig: &mut syn::Signature, float: &Ident) {
    struct Substitute<'a> {
        scalar: Ident,
        float: &'a Ident,
    }
    impl VisitMut for Substitute<'_> {
        fn visit_type_mut(&mut self, ty: &mut syn::Type) {
            if let syn::Type::Path(path) = ty {
                if path.qself.is_none() && path.path.is_ident(&self.scalar) {
                    let float = self.float;
                    *ty = syn::parse_quote!(#float);
                    return;
                }
            }
            syn::visit_mut::visit_type_mut(self, ty);
        }
    }
    let scalar = names::scalar_param(Span::call_site());
    sig.generics.params = std::mem::take(&mut sig.generics.params)
        .into_iter()
        .filter(|param| !matches!(param, syn::GenericParam::Type(ty) if ty.ident == scalar))
        .collect();
    if let Some(where_clause) = &mut sig.generics.where_clause {
        where_clause.predicates = std::mem::take(&mut where_clause.predicates)
            .into_iter()
            .filter(|predicate| match predicate {
                syn::WherePredicate::Type(bound) => !mentions(&bound.bounded_ty, &scalar),
                _ => true,
            })
            .collect();
        if where_clause.predicates.is_empty() {
            sig.generics.where_clause = None;
        }
    }
    if sig.generics.params.is_empty() {
        sig.generics.lt_token = None;
        sig.generics.gt_token = None;
    }
    Substitute { scalar, float }.visit_signature_mut(sig);
}

fn mentions(ty: &syn::Type, name: &Ident) -> bool {
    crate::retype::tokens_mention(quote!(#ty), &|ident| ident == name)
}
