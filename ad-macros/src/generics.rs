//! Functions generic over their float type, written the way numerical crates write them:
//! `fn rosenbrock<T: Float + FromPrimitive>(x: &[T]) -> T`. Forward mode takes them as they are:
//! `f_jvp` runs `f::<Dual<T>>` itself, so rustc's types decide everything and the body is not
//! rewritten (`expand/forward/generic.rs`). This module finds the float type parameter, sorts
//! the parameters by it, refuses what is not supported yet with what to do, and substitutes the
//! type parameter in types and bounds.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{GenericParam, Ident, ItemFn, ReturnType, Type};

use crate::ast::{type_to_string, ParamKind};
use crate::ctxt::Ctxt;

/// Whether the function as written has generic parameters or a `where` clause.
pub fn has_generics(item: &ItemFn) -> bool {
    !item.sig.generics.params.is_empty() || item.sig.generics.where_clause.is_some()
}

/// The generic parameters and the `where` clause, where an error about them points.
fn generics_tokens(item: &ItemFn) -> TokenStream {
    let generics = &item.sig.generics;
    let where_clause = &generics.where_clause;
    if generics.params.is_empty() {
        quote!(#where_clause)
    } else {
        quote!(#generics #where_clause)
    }
}

/// The float type parameter of a generic function (`T` in `fn f<T: Float>(x: &[T]) -> T`):
/// the type parameter its result is made of. `None` for a function without generics, and for
/// one that is refused (each reason reported to `cx` once).
pub fn float_parameter(cx: &Ctxt, item: &ItemFn, macro_name: &str) -> Option<Ident> {
    if !has_generics(item) {
        return None;
    }
    let name = &item.sig.ident;
    if macro_name != "forward" {
        cx.error_spanned_by(
            generics_tokens(item),
            format!(
                "#[{macro_name}] does not take this generic function yet: reverse mode takes a \
                 function whose one generic parameter is its float type (`fn f<T: Float>(x: \
                 &[T]) -> T`, differentiated at `f64`), under #[reverse], not a method; \
                 differentiate this one with #[forward] (`{name}_jvp` runs it at the dual \
                 number type), or write a copy over `f64`"
            ),
        );
        return None;
    }
    if let Some(syn::FnArg::Receiver(_)) = item.sig.inputs.first() {
        cx.error_spanned_by(
            generics_tokens(item),
            "#[forward] does not take generic methods yet; write a generic free function that \
             takes the value as a parameter",
        );
        return None;
    }
    let type_params = item.sig.generics.type_params().count();
    let output = match &item.sig.output {
        ReturnType::Type(_, ty) => Some(&**ty),
        ReturnType::Default => None,
    };
    let Some(float) = result_parameter(item) else {
        let reason = match output {
            Some(ty) if crate::ast::first_float_in(ty).is_some() => format!(
                "this function returns `{}`, so its generic parameters are not its float type",
                type_to_string(ty)
            ),
            _ if type_params == 0 => "it has no type parameter for its float type".to_string(),
            Some(ty) => format!(
                "its result `{}` is not made of a type parameter",
                type_to_string(ty)
            ),
            None => "it returns nothing".to_string(),
        };
        cx.error_spanned_by(
            generics_tokens(item),
            format!(
                "#[forward] takes functions generic over their float type (`fn {name}<T: \
                 Float>(x: &[T]) -> T`), returning `T` or a tuple, array or `Vec` of `T`s; \
                 {reason}: other generic functions are not supported yet"
            ),
        );
        return None;
    };
    let mut refused = false;
    for param in item.sig.generics.type_params() {
        if param.ident != *float {
            cx.error_spanned_by(
                param,
                format!(
                    "#[forward] takes functions generic over one type, their float type \
                     `{float}`; the type parameter `{}` is not supported yet (write the \
                     concrete type)",
                    param.ident
                ),
            );
            refused = true;
        }
    }
    (!refused).then(|| float.clone())
}

/// The type parameter the function's result is made of (`T` for `-> T`, `-> Vec<T>`,
/// `-> (T, T)`): its float type, if it is generic over one.
pub fn result_parameter(item: &ItemFn) -> Option<&Ident> {
    let ReturnType::Type(_, output) = &item.sig.output else {
        return None;
    };
    item.sig
        .generics
        .type_params()
        .map(|param| &param.ident)
        .find(|param| is_result_over(output, param))
}

/// How a parameter of a function generic over `float` is differentiated.
pub fn param_kind(cx: &Ctxt, ty: &Type, float: &Ident, no_grad: bool, grad: bool) -> ParamKind {
    if grad {
        cx.error_spanned_by(
            ty,
            "#[grad] parameters (of types that derive `Differentiable`) are not supported in \
             generic functions yet; pass the floats as `T`s, or write the function over `f64`",
        );
        return ParamKind::Data;
    }
    if !mentions(ty, float) {
        return ParamKind::Data;
    }
    if !is_argument_over(ty, float) {
        cx.error_spanned_by(
            ty,
            format!(
                "a parameter that names `{float}` is differentiated, and must be `{float}`, a \
                 pair or triple of them, or a slice, `Vec` or array of those (nested); `{}` is \
                 not supported yet (pass its `{float}`s in one of those)",
                type_to_string(ty)
            ),
        );
        return ParamKind::Data;
    }
    if let Type::Reference(reference) = ty {
        if let Some(mutability) = &reference.mutability {
            cx.error_spanned_by(
                mutability,
                format!(
                    "a differentiated parameter is read, not written: take `&[{float}]` (or \
                     return the new values) instead of `&mut`"
                ),
            );
        }
    }
    if no_grad {
        ParamKind::Constant
    } else {
        ParamKind::Differentiated
    }
}

fn is_param(ty: &Type, float: &Ident) -> bool {
    match ty {
        Type::Path(path) => path.qself.is_none() && path.path.is_ident(float),
        Type::Paren(paren) => is_param(&paren.elem, float),
        Type::Group(group) => is_param(&group.elem, float),
        _ => false,
    }
}

/// What `f_jvp` can pair with a tangent (`Seed` in the runtime): an element, or a slice, `Vec`
/// or array of elements behind a reference.
fn is_argument_over(ty: &Type, float: &Ident) -> bool {
    match ty {
        Type::Paren(paren) => is_argument_over(&paren.elem, float),
        Type::Group(group) => is_argument_over(&group.elem, float),
        Type::Reference(reference) => match &*reference.elem {
            Type::Slice(slice) => is_element_over(&slice.elem, float),
            Type::Array(_) => is_element_over(&reference.elem, float),
            Type::Path(_) if vec_element(&reference.elem).is_some() => {
                is_element_over(&reference.elem, float)
            }
            _ => false,
        },
        _ => is_element_over(ty, float),
    }
}

/// `T`, or a `Vec`, array, pair or triple of such types.
fn is_element_over(ty: &Type, float: &Ident) -> bool {
    match ty {
        Type::Tuple(tuple) if !(2..=3).contains(&tuple.elems.len()) => false,
        _ => is_shaped_over(ty, float, is_element_over),
    }
}

/// `T`, or a tuple (of up to six), array or `Vec` of such types: what a generic function may
/// return (what `DualParts` splits into values and tangents).
fn is_result_over(ty: &Type, float: &Ident) -> bool {
    match ty {
        Type::Tuple(tuple) if tuple.elems.len() > 6 => false,
        _ => is_shaped_over(ty, float, is_result_over),
    }
}

fn vec_element(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else {
        return None;
    };
    let segment = path.path.segments.last()?;
    if path.qself.is_some() || segment.ident != "Vec" {
        return None;
    }
    match &segment.arguments {
        syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => match &args.args[0] {
            syn::GenericArgument::Type(elem) => Some(elem),
            _ => None,
        },
        _ => None,
    }
}

fn is_shaped_over(ty: &Type, float: &Ident, inner: fn(&Type, &Ident) -> bool) -> bool {
    match ty {
        Type::Paren(paren) => inner(&paren.elem, float),
        Type::Group(group) => inner(&group.elem, float),
        Type::Tuple(tuple) => {
            !tuple.elems.is_empty() && tuple.elems.iter().all(|elem| inner(elem, float))
        }
        Type::Array(array) => inner(&array.elem, float),
        _ => match vec_element(ty) {
            Some(elem) => inner(elem, float),
            None => is_param(ty, float),
        },
    }
}

/// Whether `ty` names the type parameter `float` anywhere.
pub fn mentions(ty: &Type, float: &Ident) -> bool {
    struct Finder<'a>(&'a Ident, bool);
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_type_path(&mut self, path: &'ast syn::TypePath) {
            if path.qself.is_none()
                && path
                    .path
                    .segments
                    .first()
                    .is_some_and(|segment| segment.ident == *self.0)
            {
                self.1 = true;
            }
            syn::visit::visit_type_path(self, path);
        }
    }
    let mut finder = Finder(float, false);
    finder.visit_type(ty);
    finder.1
}

/// Replaces the type parameter `float` by `with` in types, bounds and predicates: `T` becomes
/// `with`, `T::Assoc` becomes `<with>::Assoc`.
pub struct Substitute<'a> {
    pub float: &'a Ident,
    pub with: Type,
}

impl VisitMut for Substitute<'_> {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(path) = ty {
            let names_float = path.qself.is_none()
                && path.path.leading_colon.is_none()
                && path
                    .path
                    .segments
                    .first()
                    .is_some_and(|segment| segment.ident == *self.float);
            if names_float && path.path.segments.len() == 1 {
                *ty = self.with.clone();
                return;
            }
            if names_float {
                let rest: syn::punctuated::Punctuated<syn::PathSegment, syn::Token![::]> =
                    path.path.segments.iter().skip(1).cloned().collect();
                let with = &self.with;
                *ty = syn::parse_quote!(<#with>::#rest);
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// The `where` clause of a generated function: every bound the function declares on its float
/// type, declared instead on `with` (the dual type the function is run at), and its other
/// predicates with the float type replaced. `?Sized` relaxations are dropped: they may only
/// sit where a type parameter is declared.
pub fn where_predicates(item: &ItemFn, float: &Ident, with: &Type) -> Vec<TokenStream> {
    let mut predicates = Vec::new();
    let mut substitute = Substitute {
        float,
        with: with.clone(),
    };
    for param in item.sig.generics.type_params() {
        if param.ident != *float {
            continue;
        }
        let bounds = kept_bounds(&param.bounds, &mut substitute);
        if !bounds.is_empty() {
            predicates.push(quote!(#with: #(#bounds)+*));
        }
    }
    if let Some(where_clause) = &item.sig.generics.where_clause {
        for predicate in &where_clause.predicates {
            match predicate {
                syn::WherePredicate::Type(typed) => {
                    let mut bounded = typed.bounded_ty.clone();
                    substitute.visit_type_mut(&mut bounded);
                    let bounds = kept_bounds(&typed.bounds, &mut substitute);
                    if bounds.is_empty() {
                        continue;
                    }
                    let lifetimes = &typed.lifetimes;
                    predicates.push(quote!(#lifetimes #bounded: #(#bounds)+*));
                }
                other => predicates.push(other.to_token_stream()),
            }
        }
    }
    predicates
}

fn kept_bounds(
    bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>,
    substitute: &mut Substitute,
) -> Vec<syn::TypeParamBound> {
    bounds
        .iter()
        .filter(|bound| {
            !matches!(bound, syn::TypeParamBound::Trait(trait_bound)
                if matches!(trait_bound.modifier, syn::TraitBoundModifier::Maybe(_)))
        })
        .map(|bound| {
            let mut bound = bound.clone();
            substitute.visit_type_param_bound_mut(&mut bound);
            bound
        })
        .collect()
}

/// The generic parameters of a generated function: the function's own, in order, with the
/// float type parameter bounded by `Scalar` alone (its bounds move to the `where` clause, on
/// the dual type).
pub fn generic_params(item: &ItemFn, float: &Ident, scalar_bound: TokenStream) -> TokenStream {
    let params = item.sig.generics.params.iter().map(|param| match param {
        GenericParam::Type(ty) if ty.ident == *float => {
            let ident = &ty.ident;
            quote!(#ident: #scalar_bound)
        }
        other => other.to_token_stream(),
    });
    quote!(#(#params),*)
}

/// The generic arguments of a call to the function at `with`: lifetimes left to inference,
/// constants passed on.
pub fn call_arguments(item: &ItemFn, float: &Ident, with: &Type) -> TokenStream {
    let arguments = item
        .sig
        .generics
        .params
        .iter()
        .filter_map(|param| match param {
            GenericParam::Type(ty) if ty.ident == *float => Some(with.to_token_stream()),
            GenericParam::Type(ty) => Some(ty.ident.to_token_stream()),
            GenericParam::Const(constant) => Some(constant.ident.to_token_stream()),
            GenericParam::Lifetime(_) => None,
        });
    quote!(#(#arguments),*)
}

/// The function with its float type parameter made `f64` and its generics removed: reverse
/// mode's stubs are made from it, so that calls to them over `f64` still type-check while the
/// function is refused. `None` when other generic parameters would be left undeclared.
pub fn over_f64(item: &ItemFn, float: &Ident) -> Option<ItemFn> {
    let generics = &item.sig.generics;
    if generics.params.len() != 1 {
        return None;
    }
    let mut item = item.clone();
    item.sig.generics = syn::Generics::default();
    let mut substitute = Substitute {
        float,
        with: syn::parse_quote!(f64),
    };
    for input in item.sig.inputs.iter_mut() {
        if let syn::FnArg::Typed(typed) = input {
            substitute.visit_type_mut(&mut typed.ty);
        }
    }
    if let ReturnType::Type(_, ty) = &mut item.sig.output {
        substitute.visit_type_mut(ty);
    }
    Some(item)
}

/// The constants of `std::f64::consts`, which num-traits' `FloatConst` gives as functions
/// (`T::PI()`).
pub const FLOAT_CONSTANTS: &[&str] = &[
    "E",
    "FRAC_1_PI",
    "FRAC_1_SQRT_2",
    "FRAC_2_PI",
    "FRAC_2_SQRT_PI",
    "FRAC_PI_2",
    "FRAC_PI_3",
    "FRAC_PI_4",
    "FRAC_PI_6",
    "FRAC_PI_8",
    "LN_10",
    "LN_2",
    "LOG10_E",
    "LOG2_E",
    "PI",
    "SQRT_2",
    "TAU",
    "LOG10_2",
    "LOG2_10",
];

/// What `T::<name>` of a generic function calls in `ad_runtime::__private::generic_float`
/// (num-traits' constructors, and the constants of [`FLOAT_CONSTANTS`]: one function each
/// there).
const GENERIC_FLOAT_FUNCTIONS: &[&str] = &[
    "from_f64",
    "from_f32",
    "from_i8",
    "from_i16",
    "from_i32",
    "from_i64",
    "from_i128",
    "from_isize",
    "from_u8",
    "from_u16",
    "from_u32",
    "from_u64",
    "from_u128",
    "from_usize",
    "from",
    "zero",
    "one",
    "epsilon",
    "infinity",
    "neg_infinity",
    "nan",
    "neg_zero",
    "max_value",
    "min_value",
    "min_positive_value",
];

/// Reverse mode differentiates a function generic over its float type at `f64`: the function
/// with its one type parameter `T` replaced by `f64` in the signature and the body, and
/// `T::from_f64(2.5)`, `T::one()`, `T::PI()` (which `f64` has only through num-traits' traits)
/// replaced by the runtime's `generic_float::from_f64::<f64>(2.5)`, which give the same
/// values. Its parameters keep the generic function's kinds (`f64` data where it does not
/// name the float type). `None` for anything else generic (a second parameter, lifetimes, a
/// method).
pub fn reverse_instance(item: &ItemFn) -> Option<ItemFn> {
    let float = result_parameter(item)?;
    let generics = &item.sig.generics;
    let only_the_float = generics.params.len() == 1
        && generics.where_clause.as_ref().is_none_or(|clause| {
            clause.predicates.iter().all(|predicate| {
                matches!(predicate, syn::WherePredicate::Type(bound)
                    if matches!(&bound.bounded_ty, Type::Path(path) if path.path.is_ident(float)))
            })
        });
    let is_method = matches!(item.sig.inputs.first(), Some(syn::FnArg::Receiver(_)));
    if !only_the_float || is_method {
        return None;
    }
    let mut instance = over_f64(item, float)?;
    let body = substitute_tokens(item.block.to_token_stream(), float);
    let mut block: syn::Block = syn::parse2(body).ok()?;
    FloatReductions.visit_block_mut(&mut block);
    instance.block = Box::new(block);
    Some(instance)
}

/// A function generic over its float type `T` and over closures (`fn integrate<T: Float, F:
/// Fn(T) -> T>(f: F, a: T, b: T) -> T`, as quadrature and root-finding crates write it): its
/// instance over `f64`, each closure type parameter written as the `impl Trait` of its bounds
/// where the one parameter of that type is (`f: impl Fn(f64) -> f64`), which both modes take
/// as they take a function of `f64` taking a closure. `None` for anything else: no such
/// parameter, a type parameter bounded by other traits, or named elsewhere.
pub fn closure_instance(item: &ItemFn) -> Option<ItemFn> {
    let float = result_parameter(item)?;
    let generics = &item.sig.generics;
    // A closure parameter already written `impl Fn(T) -> T` (`const_generics` writes a
    // closure type parameter so before reverse mode sees it).
    let impl_closure = item.sig.inputs.iter().any(|input| {
        matches!(input, syn::FnArg::Typed(typed) if {
            let mut ty = &*typed.ty;
            while let Type::Reference(syn::TypeReference { elem, .. })
            | Type::Paren(syn::TypeParen { elem, .. }) = ty
            {
                ty = elem;
            }
            matches!(ty, Type::ImplTrait(_)) && mentions(ty, float)
        })
    });
    if (generics.params.len() < 2 && !impl_closure)
        || !generics
            .params
            .iter()
            .all(|param| matches!(param, GenericParam::Type(_)))
        || matches!(item.sig.inputs.first(), Some(syn::FnArg::Receiver(_)))
    {
        return None;
    }
    // Each closure type parameter's bounds, inline and in the `where` clause.
    let mut closures: Vec<(Ident, Vec<syn::TypeParamBound>)> = Vec::new();
    for param in generics.type_params().filter(|param| param.ident != *float) {
        closures.push((param.ident.clone(), param.bounds.iter().cloned().collect()));
    }
    if let Some(where_clause) = &generics.where_clause {
        for predicate in &where_clause.predicates {
            let syn::WherePredicate::Type(bound) = predicate else {
                return None;
            };
            let Type::Path(path) = &bound.bounded_ty else {
                return None;
            };
            let bounded = path.path.get_ident()?;
            if bounded == float {
                continue;
            }
            let (_, bounds) = closures.iter_mut().find(|(name, _)| name == bounded)?;
            bounds.extend(bound.bounds.iter().cloned());
        }
    }
    let is_closure_bound = |bound: &syn::TypeParamBound| match bound {
        syn::TypeParamBound::Trait(bound) => bound.path.segments.last().is_some_and(|last| {
            ["Fn", "FnMut", "FnOnce", "Copy", "Clone"].contains(&last.ident.to_string().as_str())
        }),
        _ => false,
    };
    if closures
        .iter()
        .any(|(_, bounds)| !bounds.iter().all(is_closure_bound))
    {
        return None;
    }
    // The float type made `f64` everywhere, as reverse mode's instance has it.
    let mut substitute = Substitute {
        float,
        with: syn::parse_quote!(f64),
    };
    let mut instance = item.clone();
    instance.sig.generics = syn::Generics::default();
    for (name, bounds) in &mut closures {
        let mut uses = 0;
        for input in instance.sig.inputs.iter_mut() {
            let syn::FnArg::Typed(typed) = input else {
                continue;
            };
            let target = match &mut *typed.ty {
                Type::Reference(reference) => &mut *reference.elem,
                other => other,
            };
            if matches!(target, Type::Path(path) if path.path.is_ident(name)) {
                let mut bounds = bounds.clone();
                for bound in &mut bounds {
                    substitute.visit_type_param_bound_mut(bound);
                }
                *target = syn::parse_quote!(impl #(#bounds)+*);
                uses += 1;
            }
        }
        let named_elsewhere =
            instance.sig.inputs.iter().any(
                |input| matches!(input, syn::FnArg::Typed(typed) if mentions(&typed.ty, name)),
            ) || matches!(&instance.sig.output, ReturnType::Type(_, ty) if mentions(ty, name))
                || instance.block.to_token_stream().into_iter().any(
                    |tree| matches!(&tree, proc_macro2::TokenTree::Ident(ident) if ident == name),
                );
        if uses != 1 || named_elsewhere {
            return None;
        }
    }
    for input in instance.sig.inputs.iter_mut() {
        if let syn::FnArg::Typed(typed) = input {
            substitute.visit_type_mut(&mut typed.ty);
        }
    }
    if let ReturnType::Type(_, ty) = &mut instance.sig.output {
        substitute.visit_type_mut(ty);
    }
    let body = substitute_tokens(item.block.to_token_stream(), float);
    let mut block: syn::Block = syn::parse2(body).ok()?;
    FloatReductions.visit_block_mut(&mut block);
    instance.block = Box::new(block);
    Some(instance)
}

/// `.sum()` and `.product()` that leave their type to inference: in a function generic over
/// its float type that is `T` (its only `Add`), over `f64` it must be written (`f64` adds
/// references too): `.sum::<f64>()`. One whose `let` writes the type keeps it.
struct FloatReductions;

impl VisitMut for FloatReductions {
    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        if let (syn::Pat::Type(_), Some(init)) = (&local.pat, &mut local.init) {
            if let syn::Expr::MethodCall(call) = &mut *init.expr {
                self.visit_expr_mut(&mut call.receiver);
                for arg in call.args.iter_mut() {
                    self.visit_expr_mut(arg);
                }
                return;
            }
        }
        syn::visit_mut::visit_local_mut(self, local);
    }

    fn visit_expr_method_call_mut(&mut self, call: &mut syn::ExprMethodCall) {
        let reduction = call.method == "sum" || call.method == "product";
        if reduction && call.turbofish.is_none() && call.args.is_empty() {
            call.turbofish = Some(syn::parse_quote_spanned!(call.method.span()=> ::<f64>));
        }
        syn::visit_mut::visit_expr_method_call_mut(self, call);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Whether `stmt` is `let _ = name;`, which the expansion writes to mark the function used (a
/// generic function's name alone cannot be a value).
pub(crate) fn marks_use_of(stmt: &syn::Stmt, name: &Ident) -> bool {
    matches!(stmt, syn::Stmt::Local(syn::Local {
        pat: syn::Pat::Wild(_),
        init: Some(init),
        ..
    }) if matches!(&*init.expr, syn::Expr::Path(path) if path.path.is_ident(name)))
}

/// Whether a token comes after a field's or a method's `.` (not a range's `..`).
pub(crate) fn after_field_dot(
    previous: Option<&proc_macro2::TokenTree>,
    before_previous: Option<&proc_macro2::TokenTree>,
) -> bool {
    let is_dot = |tree: Option<&proc_macro2::TokenTree>| matches!(tree, Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == '.');
    is_dot(previous) && !is_dot(before_previous)
}

/// `T` to `f64` in tokens, `T::<name>` of num-traits to the runtime's function of that name:
/// not after `.` (a field or a method) nor after `::` (another path's segment).
fn substitute_tokens(tokens: TokenStream, float: &Ident) -> TokenStream {
    use proc_macro2::TokenTree;
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(trees.len());
    let is_punct = |tree: Option<&TokenTree>, c: char| matches!(tree, Some(TokenTree::Punct(p)) if p.as_char() == c);
    let mut index = 0;
    while index < trees.len() {
        let tree = &trees[index];
        let previous = index.checked_sub(1).map(|at| &trees[at]);
        let before_previous = index.checked_sub(2).map(|at| &trees[at]);
        match tree {
            TokenTree::Group(group) => {
                let mut new = proc_macro2::Group::new(
                    group.delimiter(),
                    substitute_tokens(group.stream(), float),
                );
                new.set_span(group.span());
                out.push(TokenTree::Group(new));
            }
            TokenTree::Ident(ident)
                if ident == float
                    && !after_field_dot(previous, before_previous)
                    && !(is_punct(previous, ':') && is_punct(before_previous, ':')) =>
            {
                let span = ident.span();
                let path_follows =
                    is_punct(trees.get(index + 1), ':') && is_punct(trees.get(index + 2), ':');
                let function = match (path_follows, trees.get(index + 3)) {
                    (true, Some(TokenTree::Ident(name)))
                        if GENERIC_FLOAT_FUNCTIONS
                            .iter()
                            .chain(FLOAT_CONSTANTS)
                            .any(|function| name == function) =>
                    {
                        Some(name.clone())
                    }
                    _ => None,
                };
                match function {
                    Some(name) => {
                        out.extend(quote::quote_spanned!(span=>
                            ::ad_runtime::__private::generic_float::#name::<f64>
                        ));
                        index += 4;
                        continue;
                    }
                    None => out.push(TokenTree::Ident(Ident::new("f64", span))),
                }
            }
            other => out.push(other.clone()),
        }
        index += 1;
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use quote::quote;

    fn item(tokens: proc_macro2::TokenStream) -> syn::ItemFn {
        syn::parse2(tokens).expect("a function")
    }

    #[test]
    fn the_float_parameter_is_the_one_the_result_is_made_of() {
        let cases = [
            (
                quote!(
                    fn f<T: Float>(x: &[T]) -> T {
                        x[0]
                    }
                ),
                Some("T"),
            ),
            (
                quote!(
                    fn f<'a, F: Float, const N: usize>(x: [F; N]) -> Vec<(F, F)> {
                        todo
                    }
                ),
                Some("F"),
            ),
            (
                quote!(
                    fn f<T: Copy>(x: f64, tag: T) -> f64 {
                        x
                    }
                ),
                None,
            ),
            (
                quote!(
                    fn f<T: Float>(x: T) -> bool {
                        true
                    }
                ),
                None,
            ),
        ];
        for (tokens, expected) in cases {
            let item = item(tokens);
            let found = super::result_parameter(&item).map(|ident| ident.to_string());
            assert_eq!(found.as_deref(), expected, "{}", quote!(#item));
        }
    }

    #[test]
    fn bounds_move_to_the_dual_type() {
        let item = item(quote! {
            fn f<T: Float + ?Sized + FromPrimitive>(x: &[T]) -> T
            where
                T: Sum<T>,
                for<'a> &'a T: Mul<&'a T, Output = T>,
                T::Err: Debug,
            { x[0] }
        });
        let float = syn::Ident::new("T", proc_macro2::Span::call_site());
        let with: syn::Type = syn::parse_quote!(Dual<T>);
        let predicates = super::where_predicates(&item, &float, &with);
        let text: Vec<String> = predicates.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            text,
            [
                "Dual < T > : Float + FromPrimitive",
                "Dual < T > : Sum < Dual < T > >",
                "for < 'a > & 'a Dual < T > : Mul < & 'a Dual < T > , Output = Dual < T > >",
                "< Dual < T > > :: Err : Debug",
            ]
        );
    }

    #[test]
    fn forward_runs_the_function_itself_at_the_dual_type() {
        let expanded = crate::driver::forward(
            quote!(),
            quote! {
                fn norm<'a, T: Float, const N: usize>(x: &'a [T; N], #[no_grad] w: T, n: usize) -> T {
                    x.iter().fold(T::zero(), |s, &v| s + w * v * v).sqrt()
                }
            },
        );
        let file: syn::File = syn::parse2(expanded).expect("the expansion parses");
        let text = prettyplease::unparse(&file);
        for expected in [
            "fn norm_jvp<'a, T: ::ad_runtime::Scalar, const N: usize>(\n    x: &'a [T; N],\n    \
             w: T,\n    n: usize,\n    dx: &'a [T; N],\n) -> (T, T)\nwhere\n    \
             ::ad_runtime::Dual<T>: Float,",
            // The public function calls its generic version, where nesting calls it too.
            "norm::jvp(x, w, n, dx)",
            "let __ad_dual_x = ::ad_runtime::__private::Seed::seed(x, dx);",
            "let __ad_dual_w = ::ad_runtime::__private::Seed::constant(w);",
            "::ad_runtime::__private::DualParts::split(\n        \
             norm::<::ad_runtime::Dual<T>, N>(&__ad_dual_x, __ad_dual_w, n),\n    )",
            "let __ad_dual_x = ::ad_runtime::__private::Seed::constant(x);",
        ] {
            // Indentation differs inside the hidden struct's `impl`.
            let words = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                words(&text).contains(&words(expected)),
                "{expected}\nnot in\n{text}"
            );
        }
    }
}
