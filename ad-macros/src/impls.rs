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

use crate::attr::{our_macro, MACROS};

/// The argument by which `#[forward]` on an `impl` block tells our macros stacked after it that
/// it emitted the twin's forward methods (`twins`).
const FORWARD_TWINS_EMITTED: &str = "__ad_forward_twins_emitted";

/// Which of our macros `attr` is, if it is one.
/// Whether a method's signature has a float or a `#[grad]` parameter in it, or maps values of
/// the block's type to a value of it or of a type the file derives `Differentiable` for
/// (`fn sub(self, o: Vec3) -> Vec3`, `fn cross(&self, ..) -> Self`, `fn direction(&self) ->
/// Vec3`):
/// what the attribute on a block takes when no method is marked.
fn takes_floats(
    method: &syn::ImplItemFn,
    self_ty: &syn::Type,
    derived: &std::collections::HashSet<String>,
) -> bool {
    let names_type = |ty: &syn::Type| {
        let self_name = match self_ty {
            syn::Type::Path(path) => path.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        ty.to_token_stream().into_iter().any(|tree| {
            matches!(&tree, proc_macro2::TokenTree::Ident(ident)
                if *ident == "Self" || Some(ident.to_string()) == self_name)
        })
    };
    let returns_type = match &method.sig.output {
        syn::ReturnType::Type(_, ty) => {
            names_type(ty)
                || crate::ast::derived_type_path(ty)
                    .and_then(|path| path.segments.last().map(|last| last.ident.to_string()))
                    .is_some_and(|name| derived.contains(&name))
        }
        syn::ReturnType::Default => false,
    };
    // A value of the type, or of another derived type (`fn new(ps: Vec<P>) -> Q`).
    let names_derived = |ty: &syn::Type| {
        ty.to_token_stream().into_iter().any(|tree| {
            matches!(&tree, proc_macro2::TokenTree::Ident(ident) if derived.contains(&ident.to_string()))
        })
    };
    let takes_type = method.sig.inputs.iter().any(|input| match input {
        syn::FnArg::Typed(typed) => names_type(&typed.ty) || names_derived(&typed.ty),
        syn::FnArg::Receiver(_) => true,
    });
    // `&mut self` of a type that derives `Differentiable`: it writes its floats.
    let writes_self = method.sig.inputs.iter().any(|input| {
        matches!(input, syn::FnArg::Receiver(receiver)
            if receiver.reference.is_some() && receiver.mutability.is_some()
                && !receiver.attrs.iter().any(|attr| attr.path().is_ident("no_grad")))
    });
    if (returns_type && takes_type) || (writes_self && derived_self(self_ty, derived)) {
        return true;
    }
    crate::ast::mentions_a_float(&method.sig)
        || method.sig.inputs.iter().any(|input| {
            matches!(input, syn::FnArg::Typed(typed)
                if typed.attrs.iter().any(|attr| attr.path().is_ident("grad")))
        })
}

/// Whether the block's type is one the file derives `Differentiable` for.
fn derived_self(self_ty: &syn::Type, derived: &std::collections::HashSet<String>) -> bool {
    matches!(self_ty, syn::Type::Path(path)
        if path.path.segments.last().is_some_and(|last| derived.contains(&last.ident.to_string())))
}

/// Marks `#[grad]` the parameters of `method` that are values of the block's own type
/// (`o: Vec3`, `other: &Self` in `impl Vec3`): differentiated as `self` is, unless marked
/// `#[no_grad]`.
fn grad_values_of_the_type(method: &mut syn::ImplItemFn, self_ty: &syn::Type) {
    let is_the_type = |ty: &syn::Type| {
        let ty = match ty {
            syn::Type::Reference(reference) => &*reference.elem,
            other => other,
        };
        let syn::Type::Path(path) = ty else {
            return false;
        };
        path.path.is_ident("Self")
            || ty.to_token_stream().to_string() == self_ty.to_token_stream().to_string()
    };
    for input in &mut method.sig.inputs {
        let syn::FnArg::Typed(typed) = input else {
            continue;
        };
        let marked = typed
            .attrs
            .iter()
            .any(|attr| attr.path().is_ident("grad") || attr.path().is_ident("no_grad"));
        if !marked && is_the_type(&typed.ty) {
            typed.attrs.push(syn::parse_quote!(#[grad]));
        }
    }
}

/// The block `block` with `macro_name` applied to its methods; `expand_method` is the macro on
/// one method.
pub fn expand(
    macro_name: &str,
    args: TokenStream,
    mut block: syn::ItemImpl,
    expand_method: fn(TokenStream, TokenStream) -> TokenStream,
    derived: &std::collections::HashSet<String>,
) -> TokenStream {
    if let Some(left_operator) = crate::left_operators::operator_of(&block, Some(derived)) {
        return crate::left_operators::rewrite(macro_name, block, left_operator);
    }
    let is_trait_impl = block.trait_.is_some();
    // The twin's forward methods are emitted once (below).
    let twins_emitted = args.to_string() == FORWARD_TWINS_EMITTED;
    let args = match twins_emitted {
        true => TokenStream::new(),
        false => args,
    };
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
            false => takes_floats(method, &block.self_ty, derived),
        }
    };
    let self_ty_of_block = block.self_ty.clone();
    let block_generics = generic_names(&block.generics);
    let mut generated = TokenStream::new();
    let mut errors = TokenStream::new();
    // The methods differentiated, for the twin's `impl`s.
    let mut differentiated = Vec::new();
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
        let self_name = match &*self_ty_of_block {
            syn::Type::Path(path) => path.path.segments.last().map(|last| last.ident.to_string()),
            _ => None,
        };
        // A type the file defines without the derive holds data: neither `self` nor the
        // parameters of its type are differentiated.
        if !crate::source_facts::in_impl(
            self_name.clone(),
            block_generics.clone(),
            crate::source_facts::self_is_underived,
        ) {
            grad_values_of_the_type(&mut method, &block.self_ty);
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
        if macro_name == "forward" || macro_name == "reverse" {
            let item = syn::parse2::<syn::ItemFn>(quote!(#(#attrs)* #vis #sig #block));
            if let Ok(item) = item {
                // Its errors are the method macro's to report.
                let cx = crate::ctxt::Ctxt::new();
                let function =
                    crate::source_facts::in_impl(self_name.clone(), block_generics.clone(), || {
                        crate::ast::Function::from_item(&cx, item, macro_name)
                    });
                if !cx.has_errors() {
                    differentiated.push(function);
                }
            }
        }
        let expanded = crate::source_facts::in_impl(self_name, block_generics.clone(), || {
            expand_method(args.clone(), quote!(#(#inner)* #(#attrs)* #vis #sig #block))
        });
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
    // The twin's forward methods come from `#[forward]` when it is on the block (it tells
    // those after it), else from `#[reverse]`, whose companions' forward code calls them.
    let forward_stacked = stacked.iter().any(|(name, _)| name == "forward");
    let mut twins = crate::twins::impls(macro_name, &block, &differentiated);
    if macro_name == "reverse" && !twins_emitted && !forward_stacked {
        twins.extend(crate::twins::impls("forward", &block, &differentiated));
    }
    if macro_name == "forward" {
        let emitted: proc_macro2::Ident = syn::parse_str(FORWARD_TWINS_EMITTED).expect("an ident");
        for attr in &mut block.attrs {
            if our_macro(attr).is_some() && matches!(attr.meta, syn::Meta::Path(_)) {
                let path = attr.path().clone();
                *attr = syn::parse_quote!(#[#path(#emitted)]);
            }
        }
    }
    if !is_trait_impl {
        return quote!(#block #twins);
    }
    let generated = quote!(#errors #generated);
    let (generics, _, where_clause) = block.generics.split_for_impl();
    let self_ty = &block.self_ty;
    quote! {
        #block
        #twins
        #[allow(dead_code)]
        impl #generics #self_ty #where_clause {
            #generated
        }
    }
}

/// The type and `const` parameters an `impl` block declares (`N` of `impl<const N: usize>`).
pub(crate) fn generic_names(generics: &syn::Generics) -> Vec<String> {
    generics
        .params
        .iter()
        .filter_map(|param| match param {
            syn::GenericParam::Type(param) => Some(param.ident.to_string()),
            syn::GenericParam::Const(param) => Some(param.ident.to_string()),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect()
}
