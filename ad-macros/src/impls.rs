//! `#[forward]`, `#[reverse]` and `#[checkpoint]` on an `impl` block, for methods of trait
//! implementations (`impl System for Lorenz { fn system(&self, ..) }`).
//!
//! On a method of an inherent `impl`, the macro puts the generated items beside it. A trait
//! `impl` may hold only the trait's items, and a macro on one of its methods sees nothing of the
//! block around it, so there the attribute goes on the block: each method it differentiates
//! (those marked with the same attribute inside, or, when none is marked, every method that
//! takes or returns floats) is expanded as in an inherent `impl`; the method itself stays in
//! the trait `impl`, and what is generated for it (`system_jvp`, `system_vjp`, the hidden
//! companions) goes to an inherent `impl` of the same type, where `Lorenz::system_jvp(..)` and
//! `lorenz.system_jvp(..)` find it. On an inherent `impl` block the attribute does the same, all
//! in the block.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

const MACROS: [&str; 3] = ["forward", "reverse", "checkpoint"];

/// Which of our macros `attr` is, if it is one.
fn our_macro(attr: &syn::Attribute) -> Option<String> {
    let last = attr.path().segments.last()?.ident.to_string();
    MACROS.contains(&last.as_str()).then_some(last)
}

/// Whether a method's signature has a float or a `#[grad]` parameter in it: what the attribute
/// on a block takes when no method is marked.
fn takes_floats(method: &syn::ImplItemFn) -> bool {
    let mentions = |tokens: TokenStream| {
        let text = tokens.to_string();
        text.split(|c: char| !c.is_alphanumeric() && c != '_')
            .any(|word| word == "f64" || word == "f32")
    };
    method.sig.inputs.iter().any(|input| match input {
        syn::FnArg::Typed(typed) => {
            mentions(typed.ty.to_token_stream())
                || typed.attrs.iter().any(|attr| attr.path().is_ident("grad"))
        }
        syn::FnArg::Receiver(_) => false,
    }) || mentions(method.sig.output.to_token_stream())
}

/// The block `block` with `macro_name` applied to its methods; `expand_method` is the macro on
/// one method.
pub fn expand(
    macro_name: &str,
    args: TokenStream,
    mut block: syn::ItemImpl,
    expand_method: fn(TokenStream, TokenStream) -> TokenStream,
) -> TokenStream {
    let is_trait_impl = block.trait_.is_some();
    // Our macros stacked after this one on the block: they expand later, on what this one emits.
    let stacked: Vec<(String, syn::Attribute)> = block
        .attrs
        .iter()
        .filter_map(|attr| our_macro(attr).map(|name| (name, attr.clone())))
        .collect();
    let marked = |name: &str| {
        block.items.iter().any(|item| {
            matches!(item, syn::ImplItem::Fn(method)
                if method.attrs.iter().any(|attr| our_macro(attr).as_deref() == Some(name)))
        })
    };
    let marks: Vec<(String, bool)> = MACROS
        .iter()
        .map(|name| (name.to_string(), marked(name)))
        .collect();
    let selects = |name: &str, method: &syn::ImplItemFn| {
        let marked_any = marks.iter().any(|(mark, any)| mark == name && *any);
        match marked_any {
            true => method
                .attrs
                .iter()
                .any(|attr| our_macro(attr).as_deref() == Some(name)),
            false => takes_floats(method),
        }
    };
    let mut generated = TokenStream::new();
    let mut errors = TokenStream::new();
    let mut items = Vec::new();
    for item in std::mem::take(&mut block.items) {
        let syn::ImplItem::Fn(mut method) = item else {
            items.push(item);
            continue;
        };
        // In a trait `impl`, a marker of a macro that is not on the block would expand on the
        // method alone, putting its generated items where the trait allows none.
        if is_trait_impl {
            method.attrs.retain(|attr| match our_macro(attr) {
                Some(name) if name != macro_name && !stacked.iter().any(|(s, _)| *s == name) => {
                    let message = format!(
                        "#[{name}] on a method of a trait `impl` needs #[{name}] on the block \
                         too: the generated functions go to an inherent `impl` of the type"
                    );
                    errors.extend(syn::Error::new_spanned(attr, message).to_compile_error());
                    false
                }
                _ => true,
            });
        }
        if !selects(macro_name, &method) {
            items.push(syn::ImplItem::Fn(method));
            continue;
        }
        // The markers of the macros still to come stay on the method; this one's goes.
        let markers: Vec<syn::Attribute> = method
            .attrs
            .iter()
            .filter(|attr| our_macro(attr).is_some_and(|name| name != macro_name))
            .cloned()
            .collect();
        // The macros still to come that will take this method, told by its markers.
        let inner: Vec<&syn::Attribute> = stacked
            .iter()
            .filter(|(name, _)| selects(name, &method))
            .map(|(_, attr)| attr)
            .collect();
        method.attrs.retain(|attr| our_macro(attr).is_none());
        let vis = match is_trait_impl {
            // Where the trait's methods are callable, the generated functions are too.
            true => quote!(pub),
            false => method.vis.to_token_stream(),
        };
        let syn::ImplItemFn {
            attrs, sig, block, ..
        } = &method;
        let name = sig.ident.clone();
        let expanded = expand_method(args.clone(), quote!(#(#inner)* #(#attrs)* #vis #sig #block));
        let Ok(expanded) = syn::parse2::<syn::ItemImpl>(quote!(impl __AdBlock { #expanded }))
        else {
            // Cannot happen for what the method macro emits; keep the method as written.
            items.push(syn::ImplItem::Fn(method));
            continue;
        };
        for member in expanded.items {
            match member {
                syn::ImplItem::Fn(mut primal) if primal.sig.ident == name => {
                    if is_trait_impl {
                        primal.vis = syn::Visibility::Inherited;
                    }
                    primal.attrs.extend(markers.iter().cloned());
                    items.push(syn::ImplItem::Fn(primal));
                }
                member if is_trait_impl => member.to_tokens(&mut generated),
                member => items.push(member),
            }
        }
    }
    block.items = items;
    if !is_trait_impl {
        return block.into_token_stream();
    }
    let generated = quote!(#errors #generated);
    let (generics, _, where_clause) = block.generics.split_for_impl();
    let self_ty = &block.self_ty;
    quote! {
        #block
        #[allow(dead_code)]
        impl #generics #self_ty #where_clause {
            #generated
        }
    }
}
