//! Operators with a float on the left and a value of a derived type on the right (`impl
//! Mul<Vec3> for f64`, so that `2.0 * v` is written as in mathematics).
//!
//! The derivative code of such an operator cannot live where the operator does: its companions
//! and its twin's operator would be an inherent `impl f64`, which Rust refuses, and a generic
//! `impl<S> Mul<Twin<S>> for S` is refused too (the orphan rule). So `#[forward]` and
//! `#[reverse]` on the block leave the operator as written and give the derived type a hidden
//! method of the same body, the operands swapped (`Vec3::ad_left_mul(self, __ad_left: f64)`),
//! on which they expand again as on any method of the type; the derivative code of a body
//! calls that method for `k * v` (`ir::lower`'s operators in reverse mode, `retype` in
//! forward mode).

use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};

/// The operator traits whose left operand may be a float.
const OPERATORS: [(&str, &str); 4] = [
    ("Add", "add"),
    ("Sub", "sub"),
    ("Mul", "mul"),
    ("Div", "div"),
];

/// The hidden method of a derived type that `float op value` calls: `ad_left_mul` (a name the
/// snake-case lint takes in the generated names built on it, `__ad_reverse_ad_left_mul`).
pub fn method_name(operator: &str, span: proc_macro2::Span) -> Ident {
    Ident::new(&format!("ad_left_{operator}"), span)
}

/// `impl Mul<Vec3> for f64` (or `&Vec3`, `f32`) of a type `derived` holds, when given: the
/// type's path and the operator's method name (`mul`).
pub fn operator_of(
    block: &syn::ItemImpl,
    derived: Option<&std::collections::HashSet<String>>,
) -> Option<(syn::Path, &'static str)> {
    let (None, trait_path, _) = block.trait_.as_ref()? else {
        return None;
    };
    let is_float = matches!(&*block.self_ty, syn::Type::Path(path)
        if path.path.is_ident("f64") || path.path.is_ident("f32"));
    if !is_float {
        return None;
    }
    let last = trait_path.segments.last()?;
    let (_, method) = OPERATORS.iter().find(|(name, _)| last.ident == name)?;
    let syn::PathArguments::AngleBracketed(arguments) = &last.arguments else {
        return None;
    };
    let [syn::GenericArgument::Type(operand)] = arguments.args.iter().collect::<Vec<_>>()[..]
    else {
        return None;
    };
    let operand = match operand {
        syn::Type::Reference(reference) => &*reference.elem,
        other => other,
    };
    let syn::Type::Path(path) = operand else {
        return None;
    };
    let name = path.path.segments.last()?.ident.to_string();
    let derived = derived.is_none_or(|derived| derived.contains(&name));
    (path.qself.is_none() && derived).then(|| (path.path.clone(), *method))
}

/// The block as written, without our attributes, and the derived type's hidden method under
/// them, or an error spanned on what the rewrite does not take.
pub fn rewrite(
    macro_name: &str,
    block: syn::ItemImpl,
    type_path: syn::Path,
    operator: &str,
) -> TokenStream {
    let (ours, others): (Vec<syn::Attribute>, Vec<syn::Attribute>) = block
        .attrs
        .iter()
        .cloned()
        .partition(|attr| crate::attr::our_macro(attr).is_some());
    let mut primal = block.clone();
    primal.attrs = others;
    let output = block.items.iter().find_map(|item| match item {
        syn::ImplItem::Type(ty) if ty.ident == "Output" => Some(ty.ty.clone()),
        _ => None,
    });
    let method = block.items.iter().find_map(|item| match item {
        syn::ImplItem::Fn(method) if method.sig.ident == operator => Some(method),
        _ => None,
    });
    let (Some(output), Some(method)) = (output, method) else {
        return quote!(#primal);
    };
    let float = block.self_ty.to_token_stream();
    let inputs: Vec<&syn::FnArg> = method.sig.inputs.iter().collect();
    // The trait's signature, `fn mul(self, rhs: Rhs)`; rustc reports any other on the block
    // as written.
    let [syn::FnArg::Receiver(receiver), syn::FnArg::Typed(operand)] = inputs[..] else {
        return quote!(#primal);
    };
    let left = format_ident!("__ad_left", span = receiver.self_token.span);
    let mutability = receiver.mutability;
    let body = rename_self(method.block.to_token_stream(), &left, &float, &output);
    let name = method_name(operator, method.sig.ident.span());
    let pattern = &operand.pat;
    let by_reference = matches!(&*operand.ty, syn::Type::Reference(_));
    let receiver = match by_reference {
        true => quote!(&self),
        false => quote!(self),
    };
    let attributes = ours.iter().map(|attr| &attr.meta);
    let this = Ident::new(macro_name, proc_macro2::Span::call_site());
    quote! {
        #primal
        #[::ad_runtime::#this]
        #(#[#attributes])*
        impl #type_path {
            #[doc(hidden)]
            pub fn #name(#receiver, #mutability #left: #float) -> #output {
                let #pattern = self;
                #body
            }
        }
    }
}

/// The body with the float's `self` named `left`, `Self::Output` the operator's output and
/// `Self` the float type: what they meant in the operator's `impl`.
fn rename_self(
    tokens: TokenStream,
    left: &Ident,
    float: &TokenStream,
    output: &syn::Type,
) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut renamed = TokenStream::new();
    let mut at = 0;
    while at < trees.len() {
        match &trees[at] {
            TokenTree::Ident(ident) if ident == "self" => {
                renamed.extend(Ident::new(&left.to_string(), ident.span()).into_token_stream());
            }
            TokenTree::Ident(ident) if ident == "Self" => {
                let is_output = matches!(
                    (trees.get(at + 1), trees.get(at + 2), trees.get(at + 3)),
                    (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)), Some(TokenTree::Ident(o)))
                        if a.as_char() == ':' && b.as_char() == ':' && o == "Output"
                );
                if is_output {
                    renamed.extend(output.to_token_stream());
                    at += 4;
                    continue;
                }
                renamed.extend(float.clone());
            }
            TokenTree::Group(group) => {
                let inner = rename_self(group.stream(), left, float, output);
                let mut new_group = proc_macro2::Group::new(group.delimiter(), inner);
                new_group.set_span(group.span());
                renamed.extend(TokenTree::Group(new_group).into_token_stream());
            }
            other => renamed.extend(other.to_token_stream()),
        }
        at += 1;
    }
    renamed
}
