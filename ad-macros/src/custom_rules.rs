//! `#[rule(derivative = f')]` and `#[rule(partials = [∂f/∂a, ∂f/∂b])]`: the user's derivative
//! of a function of floats the macros cannot see into (`ad_runtime::custom_rule`). The function
//! stays as written; beside it go the companions both modes call (`__ad_forward`,
//! `__ad_reverse`), the generic versions (`f::jvp`, `f::vjp`, `f::grad`) and the public
//! `f_jvp`, `f_vjp` and `f_grad`, all through one implementation of `custom_rule::Rule`.
//!
//! A partial derivative is called at the scalar type of the level below (a dual number's value):
//! one annotated with `#[forward]`/`#[reverse]` or another `#[rule]` through its forward code,
//! a plain function generic over its float type at dual numbers (`plain_calls`), a plain
//! function of the base float at that float only (a second derivative through the rule then
//! panics, saying so).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

use crate::ast::FloatType;
use crate::plain_calls::{self, Callee};

/// The partial derivatives the attribute names, one per parameter.
struct Partials(Vec<syn::Path>, Span);

impl Parse for Partials {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let span = input.span();
        let key: syn::Ident = input.parse()?;
        input.parse::<syn::Token![=]>()?;
        let partials =
            match key.to_string().as_str() {
                "derivative" => vec![input.parse()?],
                "partials" => {
                    let content;
                    syn::bracketed!(content in input);
                    Punctuated::<syn::Path, syn::Token![,]>::parse_terminated(&content)?
                        .into_iter()
                        .collect()
                }
                _ => return Err(syn::Error::new(
                    key.span(),
                    "expected `derivative = f` (a function of one float) or `partials = [fa, fb, \
                     ..]` (one partial derivative per parameter, each taking all of them)",
                )),
            };
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the rule's derivative"));
        }
        Ok(Partials(partials, span))
    }
}

/// The items of `#[rule(args)]` on `item`: the function and its derivative code, or the
/// function as written and the errors.
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let function: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(function) => function,
        Err(_) => {
            let error =
                syn::Error::new(Span::call_site(), "#[rule] applies to a function of floats")
                    .to_compile_error();
            return quote!(#error #item);
        }
    };
    match rule_items(args, &function) {
        Ok(items) => quote!(#function #items),
        Err(error) => {
            let error = error.to_compile_error();
            quote!(#error #function)
        }
    }
}

fn rule_items(args: TokenStream, function: &syn::ItemFn) -> syn::Result<TokenStream> {
    let Partials(partials, args_span) = syn::parse2(args)?;
    let sig = &function.sig;
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        return Err(syn::Error::new_spanned(
            &sig.generics,
            "a #[rule] function takes floats of one type, not generic parameters",
        ));
    }
    let float = float_of(&sig.output)?;
    let mut params = Vec::new();
    for input in &sig.inputs {
        let syn::FnArg::Typed(typed) = input else {
            return Err(syn::Error::new_spanned(
                input,
                "a #[rule] function is a free function of floats, without `self`",
            ));
        };
        let same = crate::ast::float_of_type(&typed.ty) == Some(float);
        if !same {
            return Err(syn::Error::new_spanned(
                &typed.ty,
                format!(
                    "a #[rule] function takes `{}` parameters only (the type of its result)",
                    float.name()
                ),
            ));
        }
        params.push(format_ident!("__ad_a{}", params.len()));
    }
    if params.is_empty() {
        return Err(syn::Error::new_spanned(
            sig,
            "a #[rule] function takes at least one float",
        ));
    }
    if partials.len() != params.len() {
        return Err(syn::Error::new(
            args_span,
            format!(
                "the rule gives {} partial derivative{} for {} parameter{}: give one per \
                 parameter (`derivative = f` for one, `partials = [fa, fb, ..]` for more)",
                partials.len(),
                if partials.len() == 1 { "" } else { "s" },
                params.len(),
                if params.len() == 1 { "" } else { "s" },
            ),
        ));
    }
    let name = &sig.ident;
    let label = name.to_string();
    let vis = &function.vis;
    let f = float.ident(name.span());
    let n = params.len();
    let scalar = crate::names::scalar_param(name.span());
    let partial_calls = partials
        .iter()
        .map(|partial| partial_at_scalar(partial, &params, &scalar, &label))
        .collect::<syn::Result<Vec<_>>>()?;
    let dual = quote!(::ad_runtime::Dual<#scalar>);
    let bound = quote!(#scalar: ::ad_runtime::Scalar<Base = #f>);
    let where_ref = quote!(where for<'__ad> &'__ad #scalar: ::ad_runtime::ScalarRef<#scalar>);
    let tangents: Vec<syn::Ident> = (0..n).map(|k| format_ident!("__ad_d{}", k)).collect();
    let indices: Vec<syn::Index> = (0..n).map(syn::Index::from).collect();
    let adjoints_type = match n {
        1 => quote!(#scalar),
        _ => {
            let each = std::iter::repeat_n(&scalar, n);
            quote!((#(#each,)*))
        }
    };
    let adjoints = match n {
        1 => quote!(__ad_pullback(__ad_c).0),
        _ => quote!(__ad_pullback(__ad_c)),
    };
    let pullback_type = {
        let each = std::iter::repeat_n(&scalar, n);
        quote!((#(#each,)*))
    };
    let (jvp, vjp, grad) = (
        format_ident!("{}_jvp", name),
        format_ident!("{}_vjp", name),
        format_ident!("{}_grad", name),
    );
    let adjoints_public = match n {
        1 => quote!(#f),
        _ => {
            let each = std::iter::repeat_n(&f, n);
            quote!((#(#each,)*))
        }
    };
    let doc = format!(
        "The derivative code of [`{label}`], from the derivative its `#[rule]` gives: `{label}_jvp` \
         takes a tangent per parameter, `{label}_vjp` a cotangent of the result, `{label}_grad` \
         is `{label}_vjp` with cotangent one."
    );
    Ok(quote_spanned! {name.span()=>
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}

        impl ::ad_runtime::custom_rule::Rule<#f, #n> for #name {
            #[inline]
            fn value(args: [#f; #n]) -> #f {
                let [#(#params),*] = args;
                #name(#(#params),*)
            }
            #[inline]
            fn partials<#bound>(args: [#scalar; #n]) -> [#scalar; #n] {
                let [#(#params),*] = args;
                [#(#partial_calls),*]
            }
        }

        #[allow(dead_code, clippy::type_complexity, clippy::too_many_arguments)]
        impl #name {
            #[doc(hidden)]
            #[inline]
            #vis fn __ad_forward<#bound>(#(#params: #scalar),*) -> #scalar #where_ref {
                <#scalar as ::ad_runtime::Scalar>::through_rule::<#name, #n>([#(#params),*])
            }
            #[doc(hidden)]
            #[inline]
            #vis fn __ad_reverse<#bound>(#(#params: #scalar),*)
                -> (#scalar, impl ::core::ops::FnOnce(#scalar) -> #pullback_type + use<#scalar>)
                #where_ref
            {
                let __ad_value =
                    <#scalar as ::ad_runtime::Scalar>::through_rule::<#name, #n>([#(#params),*]);
                let __ad_partials =
                    <#name as ::ad_runtime::custom_rule::Rule<#f, #n>>::partials([#(#params),*]);
                (__ad_value, move |__ad_c: #scalar| (#(
                    ::ad_runtime::linear::LinearMap::reverse_apply(
                        &::ad_runtime::linear::SingularScale(__ad_partials[#indices]),
                        __ad_c,
                    ),
                )*))
            }
            /// The value and its tangent along the tangents of the parameters, at any scalar
            /// type.
            #vis fn jvp<#bound>(#(#params: #scalar,)* #(#tangents: #scalar),*) -> (#scalar, #scalar)
                #where_ref
            {
                let __ad_result = <#dual as ::ad_runtime::Scalar>::through_rule::<#name, #n>(
                    [#(::ad_runtime::Dual::new(#params, #tangents)),*],
                );
                (__ad_result.value, __ad_result.tangent)
            }
            /// The value and the adjoints of the parameters for the cotangent `d_out`, at any
            /// scalar type.
            #vis fn vjp<#bound>(#(#params: #scalar,)* d_out: #scalar) -> (#scalar, #adjoints_type)
                #where_ref
            {
                let (__ad_value, __ad_pullback) = Self::__ad_reverse(#(#params),*);
                let __ad_c = d_out;
                (__ad_value, #adjoints)
            }
            /// `vjp` with cotangent one.
            #vis fn grad<#bound>(#(#params: #scalar),*) -> (#scalar, #adjoints_type) #where_ref {
                Self::vjp(#(#params,)* <#scalar as ::ad_runtime::Scalar>::one())
            }
        }

        #[doc = #doc]
        #[allow(dead_code, clippy::too_many_arguments)]
        #vis fn #jvp(#(#params: #f,)* #(#tangents: #f),*) -> (#f, #f) {
            #name::jvp(#(#params,)* #(#tangents),*)
        }
        #[doc = #doc]
        #[allow(dead_code)]
        #vis fn #vjp(#(#params: #f,)* d_out: #f) -> (#f, #adjoints_public) {
            #name::vjp(#(#params,)* d_out)
        }
        #[doc = #doc]
        #[allow(dead_code)]
        #vis fn #grad(#(#params: #f),*) -> (#f, #adjoints_public) {
            #name::grad(#(#params),*)
        }
    })
}

/// The result's float type, which the parameters must share.
fn float_of(output: &syn::ReturnType) -> syn::Result<FloatType> {
    match output {
        syn::ReturnType::Type(_, ty) => crate::ast::float_of_type(ty).ok_or_else(|| {
            syn::Error::new_spanned(ty, "a #[rule] function returns one float, `f64` or `f32`")
        }),
        syn::ReturnType::Default => Err(syn::Error::new_spanned(
            output,
            "a #[rule] function returns one float, `f64` or `f32`",
        )),
    }
}

/// The partial derivative `partial` at `params` of the scalar type `scalar`.
fn partial_at_scalar(
    partial: &syn::Path,
    params: &[syn::Ident],
    scalar: &syn::Ident,
    label: &str,
) -> syn::Result<TokenStream> {
    let span = partial.span();
    let args: Vec<TokenStream> = params.iter().map(ToTokens::to_token_stream).collect();
    match plain_calls::callee(partial) {
        // A function of the base float: that level only.
        Some(Callee::Plain | Callee::ValueOnly(_)) => Ok(quote_spanned!(span=>
            ::ad_runtime::custom_rule::first_order::<#scalar>(
                #label,
                #partial(#(::ad_runtime::Scalar::primal(#params)),*),
            )
        )),
        Some(Callee::Generic(forms)) => Ok(plain_calls::call(
            partial,
            &forms,
            args,
            plain_calls::Run::Value,
            span,
        )),
        Some(Callee::GenericNotYet) => Err(syn::Error::new(
            span,
            "a partial derivative generic over its float type takes that type's floats (`T`) only",
        )),
        // Annotated, or another rule: its forward code at dual numbers of tangent zero (its
        // bound on references holds for every dual type).
        None => {
            let companion = syn::Ident::new(crate::names::FORWARD_COMPANION, span);
            Ok(quote_spanned!(span=>
                #partial::#companion::<::ad_runtime::Dual<#scalar>>(
                    #(::ad_runtime::Dual::constant(#params)),*
                ).value
            ))
        }
    }
}
