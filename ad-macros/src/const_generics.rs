//! Functions with `const` generic parameters and lifetimes, as fixed-size numerical code writes
//! them: `fn norm<const N: usize>(x: &[f64; N]) -> f64`, `fn step<T: Float, const N:
//! usize>(y: [T; N]) -> T`, `fn dot<'a>(x: &'a [f64], w: &'a [f64]) -> f64`. A length is data
//! to differentiation, so the macros expand the function with its `const` parameters taken off
//! (`N` then reads as a constant of the body and the types), and every function of the
//! expansion gets them back: each generated `fn` declares them, each `impl Trait + use<..>`
//! captures them, and each turbofish naming one of the function's own items passes them on.
//! Callers never name them: rustc infers them from the arguments. Lifetimes of the parameters
//! only relate borrows to each other, which the generated functions (taking borrows, returning
//! owned values) do not need: they are elided there, and the function keeps them as written.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::visit_mut::VisitMut;
use syn::{GenericParam, Ident, ItemFn};

use crate::ast::is_function_bound;

/// Expands `item` with `expand` (one of the macros), its `const` parameters and lifetimes taken
/// off, the `const`s given back to every function of the expansion. A function without them,
/// or whose float type parameter forward mode runs as written (which keeps its generics
/// itself), goes to `expand` as it is.
pub fn expand(
    macro_name: &str,
    args: TokenStream,
    item: TokenStream,
    expand: impl FnOnce(TokenStream, TokenStream) -> TokenStream,
) -> TokenStream {
    let Ok(written) = crate::input::item_fn(&item) else {
        return expand(args, item);
    };
    let generics = &written.sig.generics;
    let closures = closure_types(&written);
    let has_float_parameter = generics
        .type_params()
        .any(|param| !closures.contains_key(&param.ident));
    let constants: Vec<syn::ConstParam> = generics.const_params().cloned().collect();
    let lifetimes: Vec<Ident> = generics
        .lifetimes()
        .map(|param| param.lifetime.ident.clone())
        .collect();
    let function_pointers = written.sig.inputs.iter().any(
        |input| matches!(input, syn::FnArg::Typed(typed) if as_closure_type(&typed.ty).is_some()),
    );
    let taken_off =
        !constants.is_empty() || !lifetimes.is_empty() || !closures.is_empty() || function_pointers;
    if !taken_off || (macro_name == "forward" && has_float_parameter) {
        return expand(args, item);
    }
    // The generated functions call each other without turbofish: a `const` no parameter's
    // type names could not be inferred there.
    let inferred: Vec<proc_macro2::Ident> = written
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(typed) => Some(typed.ty.to_token_stream()),
            syn::FnArg::Receiver(_) => None,
        })
        .flat_map(crate::ast::idents_of)
        .collect();
    if let Some(constant) = constants
        .iter()
        .find(|constant| !inferred.contains(&constant.ident))
    {
        // The same words under each attribute stacked on the function: rustc shows them once.
        let message = format!(
            "differentiation takes `const` parameters that the parameters' types name (`x: \
             &[f64; {0}]`), which every call infers; `{0}` is named by none: take an array of \
             that length, or make `{0}` a `usize` parameter",
            constant.ident
        );
        let error = syn::Error::new_spanned(constant, message).to_compile_error();
        let mut written = written;
        crate::attr::strip_parameter_markers(&mut written);
        return quote::quote!(#error #written);
    }
    let name = written.sig.ident.clone();
    let mut function = written.clone();
    function.sig.generics.params = std::mem::take(&mut function.sig.generics.params)
        .into_iter()
        .filter(
            |param| matches!(param, GenericParam::Type(ty) if !closures.contains_key(&ty.ident)),
        )
        .collect();
    if let Some(clause) = &mut function.sig.generics.where_clause {
        clause.predicates = std::mem::take(&mut clause.predicates)
            .into_iter()
            .filter(|predicate| {
                !matches!(predicate, syn::WherePredicate::Type(bound)
                    if bounded_name(&bound.bounded_ty).is_some_and(|name| closures.contains_key(name)))
            })
            .collect();
        if clause.predicates.is_empty() {
            function.sig.generics.where_clause = None;
        }
    }
    if function.sig.generics.params.is_empty() {
        function.sig.generics.lt_token = None;
        function.sig.generics.gt_token = None;
    }
    EraseLifetimes(&lifetimes).visit_item_fn_mut(&mut function);
    for input in function.sig.inputs.iter_mut() {
        if let syn::FnArg::Typed(typed) = input {
            impl_closure_type(&mut typed.ty, &closures);
        }
    }
    let expanded = expand(args, function.into_token_stream());
    let Ok(mut file) = syn::parse2::<syn::File>(expanded.clone()) else {
        return expanded;
    };
    let mut give_back = GiveBack {
        name: &name,
        constants: &constants,
    };
    for item in &mut file.items {
        match item {
            // The function itself, as written.
            syn::Item::Fn(function) if function.sig.ident == name => {
                function.sig.generics = written.sig.generics.clone();
                function.sig.output = written.sig.output.clone();
                for (input, written) in function.sig.inputs.iter_mut().zip(&written.sig.inputs) {
                    if let (syn::FnArg::Typed(input), syn::FnArg::Typed(written)) = (input, written)
                    {
                        input.ty = written.ty.clone();
                    }
                }
                give_back.visit_block_mut(&mut function.block);
            }
            syn::Item::Fn(function) => give_back.give_to(&mut function.sig, &mut function.block),
            syn::Item::Impl(block) => {
                for item in &mut block.items {
                    if let syn::ImplItem::Fn(method) = item {
                        give_back.give_to(&mut method.sig, &mut method.block);
                    }
                }
            }
            _ => {}
        }
    }
    file.into_token_stream()
}

struct GiveBack<'a> {
    name: &'a Ident,
    constants: &'a [syn::ConstParam],
}

impl GiveBack<'_> {
    fn give_to(&mut self, sig: &mut syn::Signature, block: &mut syn::Block) {
        sig.generics.lt_token.get_or_insert_with(Default::default);
        sig.generics.gt_token.get_or_insert_with(Default::default);
        for constant in self.constants {
            let mut constant = constant.clone();
            constant.attrs.clear();
            sig.generics.params.push(GenericParam::Const(constant));
        }
        if let syn::ReturnType::Type(_, ty) = &mut sig.output {
            self.visit_type_mut(ty);
        }
        self.visit_block_mut(block);
    }
}

impl VisitMut for GiveBack<'_> {
    /// `impl FnOnce(..) + use<'p, __S>` must name every type and `const` parameter in scope.
    fn visit_type_impl_trait_mut(&mut self, ty: &mut syn::TypeImplTrait) {
        for bound in ty.bounds.iter_mut() {
            if let syn::TypeParamBound::PreciseCapture(capture) = bound {
                for constant in self.constants {
                    capture
                        .params
                        .push(syn::CapturedParam::Ident(constant.ident.clone()));
                }
            }
        }
        syn::visit_mut::visit_type_impl_trait_mut(self, ty);
    }

    /// `f::<S>(..)`, `f::vjp::<f64>(..)`: a turbofish gives every parameter or none.
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        let own = path
            .segments
            .first()
            .is_some_and(|first| first.ident == *self.name)
            && path.leading_colon.is_none();
        if own {
            if let Some(syn::PathArguments::AngleBracketed(arguments)) =
                path.segments.last_mut().map(|last| &mut last.arguments)
            {
                for constant in self.constants {
                    let ident = &constant.ident;
                    arguments.args.push(syn::parse_quote!(#ident));
                }
            }
        }
        syn::visit_mut::visit_path_mut(self, path);
    }

    /// `let _ = f;`, which marks the function used, cannot name one whose `const`s nothing
    /// infers.
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        block
            .stmts
            .retain(|stmt| !crate::generics::marks_use_of(stmt, self.name));
        syn::visit_mut::visit_block_mut(self, block);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `'a` of the parameters made elided: `&'a [f64]` becomes `&[f64]`, `Rows<'a>` `Rows<'_>`,
/// `T: 'a` loses the bound.
struct EraseLifetimes<'a>(&'a [Ident]);

impl EraseLifetimes<'_> {
    fn erases(&self, lifetime: &syn::Lifetime) -> bool {
        self.0.contains(&lifetime.ident)
    }
}

impl VisitMut for EraseLifetimes<'_> {
    fn visit_type_reference_mut(&mut self, reference: &mut syn::TypeReference) {
        if reference
            .lifetime
            .as_ref()
            .is_some_and(|lifetime| self.erases(lifetime))
        {
            reference.lifetime = None;
        }
        syn::visit_mut::visit_type_reference_mut(self, reference);
    }

    fn visit_lifetime_mut(&mut self, lifetime: &mut syn::Lifetime) {
        if self.erases(lifetime) {
            *lifetime = syn::Lifetime::new("'_", lifetime.span());
        }
    }

    fn visit_type_param_mut(&mut self, param: &mut syn::TypeParam) {
        param.bounds = std::mem::take(&mut param.bounds)
            .into_iter()
            .filter(|bound| !matches!(bound, syn::TypeParamBound::Lifetime(lifetime) if self.erases(lifetime)))
            .collect();
        syn::visit_mut::visit_type_param_mut(self, param);
    }

    fn visit_where_clause_mut(&mut self, clause: &mut syn::WhereClause) {
        clause.predicates = std::mem::take(&mut clause.predicates)
            .into_iter()
            .filter(|predicate| !matches!(predicate, syn::WherePredicate::Lifetime(_)))
            .collect();
        for predicate in clause.predicates.iter_mut() {
            if let syn::WherePredicate::Type(bound) = predicate {
                bound.bounds = std::mem::take(&mut bound.bounds)
                    .into_iter()
                    .filter(|bound| !matches!(bound, syn::TypeParamBound::Lifetime(lifetime) if self.erases(lifetime)))
                    .collect();
            }
        }
        syn::visit_mut::visit_where_clause_mut(self, clause);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The type parameters that are closure types (`F` of `fn integrate<F: Fn(f64) -> f64>(f: F,
/// ..)`), with their bounds: bounded by `Fn`, `FnMut` or `FnOnce` (beside marker traits), and
/// naming a parameter's type (`F`, `&F`, `&mut F`) and nothing else. Each is the
/// argument-position `impl Fn(f64) -> f64` it means, which the macros take.
fn closure_types(function: &ItemFn) -> std::collections::HashMap<Ident, Vec<syn::TypeParamBound>> {
    let generics = &function.sig.generics;
    let mut bounds: std::collections::HashMap<Ident, Vec<syn::TypeParamBound>> = generics
        .type_params()
        .map(|param| (param.ident.clone(), param.bounds.iter().cloned().collect()))
        .collect();
    for predicate in generics
        .where_clause
        .iter()
        .flat_map(|clause| &clause.predicates)
    {
        let syn::WherePredicate::Type(bound) = predicate else {
            continue;
        };
        match bounded_name(&bound.bounded_ty) {
            Some(name) if bound.lifetimes.is_none() && bounds.contains_key(name) => {
                if let Some(all) = bounds.get_mut(name) {
                    all.extend(bound.bounds.iter().cloned());
                }
            }
            // A bound on another type naming the parameter (`Vec<F>: Trait`).
            _ => {
                let named = crate::ast::idents_of(bound.to_token_stream());
                bounds.retain(|name, _| !named.contains(name));
            }
        }
    }
    bounds.retain(|_, bounds| {
        let is_marker = |bound: &syn::TypeParamBound| match bound {
            syn::TypeParamBound::Trait(bound) => {
                bound.path.segments.last().is_some_and(|segment| {
                    matches!(
                        segment.ident.to_string().as_str(),
                        "Copy" | "Clone" | "Send" | "Sync"
                    )
                })
            }
            syn::TypeParamBound::Lifetime(_) => true,
            _ => false,
        };
        bounds.iter().any(is_function_bound)
            && bounds
                .iter()
                .all(|bound| is_function_bound(bound) || is_marker(bound))
    });
    // Named by a parameter's type exactly, and nowhere else in the signature or the body.
    let mut uses: std::collections::HashMap<Ident, usize> = Default::default();
    for input in &function.sig.inputs {
        if let syn::FnArg::Typed(typed) = input {
            if let Some(name) = closure_type_name(&typed.ty) {
                *uses.entry(name.clone()).or_default() += 1;
            }
        }
    }
    let elsewhere = {
        let mut signature = function.sig.clone();
        signature.generics = syn::Generics::default();
        signature.inputs = signature
            .inputs
            .into_iter()
            .filter(|input| !matches!(input, syn::FnArg::Typed(typed) if closure_type_name(&typed.ty).is_some()))
            .collect();
        let block = &function.block;
        crate::ast::idents_of(quote::quote!(#signature #block))
    };
    bounds.retain(|name, _| uses.get(name) == Some(&1) && !elsewhere.contains(name));
    bounds
}

/// `F`, `&F`, `&mut F`: the name `F`.
fn closure_type_name(ty: &syn::Type) -> Option<&Ident> {
    match ty {
        syn::Type::Reference(reference) => closure_type_name(&reference.elem),
        syn::Type::Paren(paren) => closure_type_name(&paren.elem),
        other => bounded_name(other),
    }
}

fn bounded_name(ty: &syn::Type) -> Option<&Ident> {
    match ty {
        syn::Type::Path(path) if path.qself.is_none() => path.path.get_ident(),
        _ => None,
    }
}

/// `F` made `impl Fn(f64) -> f64` (behind the same references).
fn impl_closure_type(
    ty: &mut syn::Type,
    closures: &std::collections::HashMap<Ident, Vec<syn::TypeParamBound>>,
) {
    match ty {
        syn::Type::Reference(reference) => impl_closure_type(&mut reference.elem, closures),
        syn::Type::Paren(paren) => impl_closure_type(&mut paren.elem, closures),
        other => {
            if let Some(bounds) = bounded_name(other).and_then(|name| closures.get(name)) {
                // In parentheses: `&(impl Fn(f64) -> f64 + Copy)`.
                *other = syn::parse_quote!((impl #(#bounds)+*));
            } else if let Some(closure) = as_closure_type(other) {
                *other = closure;
            }
        }
    }
}

/// A function pointer parameter (`func: fn(f64) -> f64`, TheAlgorithms' `area_under_curve`)
/// as the closure type it is called as, `impl Fn(f64) -> f64 + Copy`: the derivative code passes
/// closures over its own number types.
fn as_closure_type(ty: &syn::Type) -> Option<syn::Type> {
    let syn::Type::BareFn(pointer) = ty else {
        return None;
    };
    if pointer.lifetimes.is_some()
        || pointer.unsafety.is_some()
        || pointer.abi.is_some()
        || pointer.variadic.is_some()
    {
        return None;
    }
    let inputs = pointer.inputs.iter().map(|input| &input.ty);
    let output = &pointer.output;
    // `Copy`, as a pointer is: the body may pass it on more than once.
    Some(syn::parse_quote!(impl Fn(#(#inputs),*) #output + Copy))
}
