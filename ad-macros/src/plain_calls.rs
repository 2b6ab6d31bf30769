//! Calls to plain functions of the crate (defined without `#[forward]`/`#[reverse]`, found
//! where the call's path leads: `aliases::Functions`), which the derivative code cannot call a
//! companion of.
//!
//! One generic over its float type (`fn smooth<T: Float>(x: T, k: &[T]) -> T`) runs as written
//! at dual numbers (`ad_runtime::__private::generic_call`): forward mode takes its value there,
//! reverse mode its local Jacobian at the call (one forward run per float it is given). One
//! that is not generic is refused when given floats carrying derivatives, with one message at
//! the call saying to annotate it. On data alone either runs as it is.
//!
//! Calls to other functions' derivative code inside reverse-mode code (`g_grad(x)`, nesting)
//! run the same way, at the generic version (`g::grad`), whose parameter types the macro does
//! not see: each argument's type chooses how it is seeded (`generic_call::SeedProbe`).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};

/// What the file says of a plain function: its float type parameter (when it has exactly one
/// type parameter), its parameter and result types, as source text (tokens cannot outlive the
/// macro invocation that read them).
#[derive(Clone, Debug, PartialEq)]
pub struct PlainFunction {
    float: Option<String>,
    params: Vec<String>,
    output: Option<String>,
    /// The result certainly holds no float, judged in the function's own file (whose
    /// floatless structs and enums count: `Result<(), LossError>`).
    gives_data: bool,
}

impl PlainFunction {
    /// `None` for a function carrying one of the crate's attributes.
    pub fn of(item: &syn::ItemFn) -> Option<PlainFunction> {
        let annotated = item.attrs.iter().any(|attr| {
            crate::attr::our_macro(attr).is_some()
                || attr
                    .path()
                    .segments
                    .last()
                    .is_some_and(|last| last.ident == "rule")
        });
        if annotated {
            return None;
        }
        // Closure types (`F: Fn(f64) -> f64`) are not float types.
        let mut type_params = item
            .sig
            .generics
            .type_params()
            .filter(|param| !param.bounds.iter().any(crate::ast::is_function_bound));
        let float = match (type_params.next(), type_params.next()) {
            (Some(param), None) => Some(param.ident.to_string()),
            _ => None,
        };
        let params = item
            .sig
            .inputs
            .iter()
            .map(|input| match input {
                syn::FnArg::Typed(typed) => typed.ty.to_token_stream().to_string(),
                syn::FnArg::Receiver(_) => "Self".to_string(),
            })
            .collect();
        let output = match &item.sig.output {
            syn::ReturnType::Type(_, ty) => Some(ty.to_token_stream().to_string()),
            syn::ReturnType::Default => None,
        };
        let gives_data = match &item.sig.output {
            syn::ReturnType::Type(_, ty) => carries_no_float(ty),
            syn::ReturnType::Default => true,
        };
        Some(PlainFunction {
            float,
            params,
            output,
            gives_data,
        })
    }

    /// Judges the result again knowing the structs and enums of the function's file that
    /// hold no float.
    pub fn with_floatless_types(&mut self, floatless: &std::collections::HashSet<String>) {
        let judged = self
            .output
            .as_deref()
            .and_then(|output| syn::parse_str::<syn::Type>(output).ok())
            .is_some_and(|ty| carries_no_float_given(&ty, &|name| floatless.contains(name)));
        self.gives_data |= judged;
    }
}

/// How an argument is passed to a parameter of a generic plain function.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Param {
    /// Not naming the float type: passed on as written.
    Data,
    /// `T`.
    Float,
    /// `&[T]`, `&Vec<T>`, `&[T; N]`: lent the seeded copy.
    Lent,
    /// `Vec<T>`, `[T; N]`: given the seeded copy.
    Owned,
}

/// A plain function called from the body, as the derivative code calls it.
pub enum Callee {
    /// Generic over its float type `T`, every parameter and the result of a form the runtime
    /// seeds and reads (`T`, slices, `Vec`s and arrays of `T` or references to them, tuples of
    /// those as the result).
    Generic(Vec<Param>),
    /// Generic, but a parameter or the result names `T` in another form (`&mut [T]`,
    /// `Vec<Vec<T>>`, a struct of `T`).
    GenericNotYet,
    /// Not generic over a float type: it takes no derivatives.
    Plain,
    /// Not generic, and its result carries no float (`fn in_range(v: &[f64]) -> bool`): it
    /// runs at the primal values of the floats it is given, each parameter by its declared
    /// type (see [`primal_argument`]).
    ValueOnly(Vec<String>),
}

/// The plain function `path` names, if it certainly names one (`aliases::Functions`).
pub fn callee(path: &syn::Path) -> Option<Callee> {
    if path.leading_colon.is_some() || path.segments.iter().any(|s| !s.arguments.is_none()) {
        return None;
    }
    let function = crate::source_facts::plain_function(&crate::ast::segment_names(path))?;
    let Some(float) = &function.float else {
        return Some(match function.gives_data {
            true => Callee::ValueOnly(function.params.clone()),
            false => Callee::Plain,
        });
    };
    let mut params = Vec::new();
    for param in &function.params {
        match syn::parse_str::<syn::Type>(param)
            .ok()
            .map(|ty| param_form(&ty, float))
        {
            Some(Some(form)) => params.push(form),
            _ => return Some(Callee::GenericNotYet),
        }
    }
    let result_ok = match &function.output {
        None => true,
        Some(output) => syn::parse_str::<syn::Type>(output).is_ok_and(|ty| result_form(&ty, float)),
    };
    if !result_ok || !params.iter().any(|param| *param != Param::Data) {
        return Some(match params.iter().all(|param| *param == Param::Data) {
            // `T` only in the result (`fn zero<T: Float>() -> T`): a constant.
            true => Callee::Plain,
            false => Callee::GenericNotYet,
        });
    }
    Some(Callee::Generic(params))
}

/// Whether the call of `path` with `arity` arguments is one of a plain function whose result
/// carries no float, each of whose parameters takes the primal values ([`primal_argument`]):
/// its result is data, whatever it is given.
pub fn runs_at_primals(path: &syn::Path, arity: usize) -> bool {
    match callee(path) {
        Some(Callee::ValueOnly(params)) => {
            params.len() == arity
                && params.iter().all(|param| {
                    primal_argument(param, &TokenStream::new(), Span::call_site()).is_some()
                })
        }
        _ => false,
    }
}

/// The adapters and reductions whose closure may be given as a function's path.
pub(crate) const TAKES_A_FUNCTION: &[&str] = &[
    "map",
    "filter",
    "flat_map",
    "take_while",
    "skip_while",
    "for_each",
    "any",
    "all",
    "position",
    "find",
];

/// A function passed by name where a function of the file takes a function pointer
/// (`euler(0.0, t, y0, n, logistic_rhs)` with `deriv: fn(f64, f64) -> f64`), or to an
/// iterator adapter (`shapes.iter().map(area)`), written as the closure calling it: the
/// derivative code takes such a parameter as `impl Fn`, over its own number types, which a
/// function item of `f64`s is not.
pub fn named_functions_as_closures(block: &mut syn::Block) {
    struct Rewrite;
    impl syn::visit_mut::VisitMut for Rewrite {
        fn visit_expr_call_mut(&mut self, call: &mut syn::ExprCall) {
            syn::visit_mut::visit_expr_call_mut(self, call);
            let syn::Expr::Path(callee) = &*call.func else {
                return;
            };
            let Some(pointers) = crate::source_facts::pointer_parameters(&callee.path) else {
                return;
            };
            if pointers.len() != call.args.len() {
                return;
            }
            for (arg, arity) in call.args.iter_mut().zip(pointers) {
                let (syn::Expr::Path(function), Some(arity)) = (&*arg, arity) else {
                    continue;
                };
                let named = function.qself.is_none()
                    && function.path.get_ident().is_some_and(|name| {
                        crate::source_facts::defines_function(&name.to_string())
                    });
                if !named {
                    continue;
                }
                let span = syn::spanned::Spanned::span(function);
                let inputs: Vec<syn::Ident> = (0..arity)
                    .map(|index| format_ident!("__ad_argument{}", index, span = span))
                    .collect();
                *arg = syn::parse_quote_spanned!(span=> |#(#inputs),*| #function(#(#inputs),*));
            }
        }
        // `shapes.iter().map(area)`: the adapter's closure given as a function of the file.
        fn visit_expr_method_call_mut(&mut self, call: &mut syn::ExprMethodCall) {
            syn::visit_mut::visit_expr_method_call_mut(self, call);
            if call.args.len() != 1
                || call.turbofish.is_some()
                || !TAKES_A_FUNCTION.contains(&call.method.to_string().as_str())
            {
                return;
            }
            let syn::Expr::Path(function) = &call.args[0] else {
                return;
            };
            let named = function.qself.is_none()
                && function
                    .path
                    .get_ident()
                    .is_some_and(|name| crate::source_facts::defines_function(&name.to_string()));
            if named {
                let span = syn::spanned::Spanned::span(function);
                let function = function.clone();
                call.args[0] = syn::parse_quote_spanned!(span=> |__ad_item| #function(__ad_item));
            }
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    syn::visit_mut::VisitMut::visit_block_mut(&mut Rewrite, block);
}

/// A result type that certainly holds no float: `()`, `bool`, `char`, the integers, `String`,
/// `&str`, `Ordering`, and `Option`s, `Result`s, `Vec`s and tuples of those (a user's type
/// might hold one).
pub(crate) fn carries_no_float(ty: &syn::Type) -> bool {
    carries_no_float_given(ty, &|_| false)
}

/// [`carries_no_float`], also of the types `floatless` names (a file's structs and enums
/// whose fields hold none).
pub(crate) fn carries_no_float_given(ty: &syn::Type, floatless: &dyn Fn(&str) -> bool) -> bool {
    let carries_no_float = |ty: &syn::Type| carries_no_float_given(ty, floatless);
    match ty {
        syn::Type::Tuple(tuple) => tuple.elems.iter().all(carries_no_float),
        syn::Type::Paren(paren) => carries_no_float(&paren.elem),
        syn::Type::Reference(reference) => {
            matches!(&*reference.elem, syn::Type::Path(path) if path.path.is_ident("str"))
        }
        syn::Type::Path(path) if path.qself.is_none() => {
            let Some(last) = path.path.segments.last() else {
                return false;
            };
            let name = last.ident.to_string();
            let data = ["bool", "char", "String", "Ordering"].contains(&name.as_str())
                || crate::retype::INTEGER_TYPES.contains(&name.as_str())
                || (path.path.segments.len() == 1 && last.arguments.is_none() && floatless(&name));
            let wraps_data = ["Option", "Result", "Vec"].contains(&name.as_str())
                && matches!(&last.arguments, syn::PathArguments::AngleBracketed(args)
                    if args.args.iter().all(|arg| matches!(arg,
                        syn::GenericArgument::Type(inner) if carries_no_float(inner))));
            data || wraps_data
        }
        _ => false,
    }
}

/// The argument `arg` as the plain function's parameter of declared type `param` takes it,
/// at its primal values: `Scalar::primal(x)` for `f64`, a `Vec` of the primals lent for
/// `&[f64]` or `&Vec<f64>`, an array of them for `[f64; N]`. A parameter naming no float type
/// takes `arg` as it is; `None` for another form naming one (`&mut [f64]`, a tuple of floats).
pub fn primal_argument(param: &str, arg: &TokenStream, span: Span) -> Option<TokenStream> {
    let ty: syn::Type = syn::parse_str(param).ok()?;
    let is_float = |ty: &syn::Type| crate::ast::float_of_type(ty).is_some();
    let names_a_float = names_float(&ty, "f64") || names_float(&ty, "f32");
    let primal = quote::quote_spanned!(span=> ::ad_runtime::Scalar::primal);
    let elements = |container: &TokenStream| {
        quote::quote_spanned!(span=>
            ::core::iter::Iterator::collect::<::std::vec::Vec<_>>(
                ::core::iter::Iterator::map((#container).iter(), |__ad_item| #primal(*__ad_item))
            )
        )
    };
    Some(match &ty {
        _ if !names_a_float => arg.clone(),
        ty if is_float(ty) => quote::quote_spanned!(span=> #primal(#arg)),
        syn::Type::Reference(reference) if reference.mutability.is_none() => {
            match &*reference.elem {
                syn::Type::Slice(slice) if is_float(&slice.elem) => {
                    let lent = elements(arg);
                    quote::quote_spanned!(span=> &#lent)
                }
                elem if is_run(elem, "f64") || is_run(elem, "f32") => {
                    let lent = elements(arg);
                    match elem {
                        syn::Type::Array(_) => quote::quote_spanned!(span=>
                            &(*#arg).map(|__ad_item| #primal(__ad_item))),
                        _ => quote::quote_spanned!(span=> &#lent),
                    }
                }
                _ => return None,
            }
        }
        syn::Type::Array(array) if is_float(&array.elem) => {
            quote::quote_spanned!(span=> (#arg).map(|__ad_item| #primal(__ad_item)))
        }
        ty if is_run(ty, "f64") || is_run(ty, "f32") => elements(arg),
        _ => return None,
    })
}

fn names_float(ty: &syn::Type, float: &str) -> bool {
    ty.to_token_stream()
        .to_string()
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .any(|word| word == float)
}

fn is_float(ty: &syn::Type, float: &str) -> bool {
    matches!(ty, syn::Type::Path(path) if path.qself.is_none() && path.path.is_ident(float))
}

/// `Vec<T>` or `[T; N]`.
fn is_run(ty: &syn::Type, float: &str) -> bool {
    match ty {
        syn::Type::Array(array) => is_float(&array.elem, float),
        syn::Type::Path(path) => path.path.segments.last().is_some_and(|segment| {
            segment.ident == "Vec"
                && matches!(&segment.arguments, syn::PathArguments::AngleBracketed(args)
                    if args.args.len() == 1
                        && matches!(&args.args[0], syn::GenericArgument::Type(elem) if is_float(elem, float)))
        }),
        _ => false,
    }
}

fn param_form(ty: &syn::Type, float: &str) -> Option<Param> {
    if !names_float(ty, float) {
        return Some(Param::Data);
    }
    if is_float(ty, float) {
        return Some(Param::Float);
    }
    if is_run(ty, float) {
        return Some(Param::Owned);
    }
    match ty {
        syn::Type::Reference(reference) if reference.mutability.is_none() => {
            match &*reference.elem {
                syn::Type::Slice(slice) if is_float(&slice.elem, float) => Some(Param::Lent),
                elem if is_run(elem, float) => Some(Param::Lent),
                _ => None,
            }
        }
        syn::Type::Paren(paren) => param_form(&paren.elem, float),
        _ => None,
    }
}

fn result_form(ty: &syn::Type, float: &str) -> bool {
    match ty {
        syn::Type::Tuple(tuple) => {
            !tuple.elems.is_empty()
                && tuple.elems.len() <= 4
                && tuple
                    .elems
                    .iter()
                    .all(|elem| is_float(elem, float) || is_run(elem, float))
        }
        syn::Type::Paren(paren) => result_form(&paren.elem, float),
        ty => is_float(ty, float) || is_run(ty, float),
    }
}

/// The one message for a plain function given floats carrying derivatives.
pub const NOT_ANNOTATED: &str =
    "a call of a function that is not annotated, with floats carrying derivatives: there is no \
     derivative code to call. Annotate the function with `#[forward]`/`#[reverse]`, or make it \
     generic over its float type (`fn f<T: Float>(x: T) -> T`), which derivative code runs at \
     dual numbers";

/// The message for a `&mut` argument of a call reverse mode differentiates through the callee's
/// forward code.
pub const MUTABLE_TO_FORWARD_CODE: &str =
    "a `&mut` argument to a function differentiated through its forward code (one with \
     `#[forward]` alone, a plain generic one, or one given closures): that code runs once per 8 \
     floats the call reads, and would write through it each time; annotate the function with \
     `#[reverse]`, or pass what it reads by shared reference and return what it computes";

/// The one message for a closure reading the function's variables, given to a plain function.
pub const CLOSURE_TO_PLAIN: &str =
    "a closure reading this function's variables, given to a function that is not annotated: \
     there is no derivative code to run it through. Annotate the function with `#[forward]` \
     (its closure parameter written `f: impl Fn(f64) -> f64`, `f: &dyn Fn(f64) -> f64` or `f: \
     F` with `F: Fn(f64) -> f64`); reverse-mode code calling it differentiates through its \
     forward code, the floats the closure captures included";

/// The one message for a function of a derived type's `impl` without derivative code
/// (`Particle::new(v)`), called from differentiated code.
pub const UNMARKED_ASSOCIATED: &str =
    "a function of an `impl` block that none of the crate's attributes marks, called from \
     differentiated code: it has no derivative code to call. Mark it (or its `impl` block) \
     with `#[forward]`/`#[reverse]`, or build the value with a struct literal or \
     `Default::default()` and assign its fields";

/// The message for a generic plain function whose float type appears in a form the runtime
/// does not seed.
pub const GENERIC_NOT_YET: &str =
    "a plain function generic over its float type whose parameters or result name it other \
     than as `T`, a slice, `Vec` or array of `T` (or a shared reference to one), or a tuple of \
     those as the result (`&mut [T]`, `Vec<Vec<T>>` or a struct of `T`); annotate it with \
     `#[forward]`/`#[reverse]`";

/// The message for a float carrying derivatives given to a parameter of a generic plain
/// function that does not name its float type (`scale: f64` beside `x: T`).
pub const ACTIVE_TO_DATA: &str =
    "a float carrying derivatives passed to a parameter of a plain generic function that does \
     not name its float type (an `f64` parameter beside `T` ones): its derivative would be \
     lost there; make the parameter's type the float type parameter";

/// How a call to a generic plain function runs in derivative code.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Run {
    /// Its value (forward mode; reverse mode's runs that record nothing).
    Value,
    /// Its value and pullback, as a companion gives them: the pullback gives one adjoint per
    /// argument, `()` for data.
    Reverse,
}

/// The call of `function` (its path) with `args` (derivative code, in order) for `params`.
pub fn call(
    function: &syn::Path,
    params: &[Param],
    args: Vec<TokenStream>,
    run: Run,
    span: Span,
) -> TokenStream {
    let generic_call = quote!(::ad_runtime::__private::generic_call);
    let mut seeded = Vec::new();
    let mut seeded_names = Vec::new();
    let mut data = Vec::new();
    let mut passed = Vec::new();
    for (position, (arg, param)) in args.into_iter().zip(params).enumerate() {
        let name = format_ident!("__ad_g{}", position, span = span);
        match param {
            Param::Data => {
                data.push(quote!(let #name = #arg;));
                passed.push(quote!(::core::clone::Clone::clone(&#name)));
                continue;
            }
            Param::Float => seeded.push(quote!(#generic_call::ScalarArg(#arg))),
            Param::Lent | Param::Owned => seeded.push(arg),
        }
        passed.push(match param {
            Param::Lent => quote!(&#name),
            _ => quote!(#name),
        });
        seeded_names.push(name);
    }
    let closure = quote_spanned!(span=> |(#(#seeded_names,)*)| #function(#(#passed),*));
    let seeded = quote!((#(#seeded,)*));
    match run {
        Run::Value => quote_spanned!(span=> {
            #(#data)*
            #generic_call::primal(#seeded, #closure)
        }),
        Run::Reverse => {
            let adjoints: Vec<TokenStream> = params
                .iter()
                .scan(0usize, |active, param| {
                    Some(match param {
                        Param::Data => quote!(()),
                        _ => {
                            let index = syn::Index::from(*active);
                            *active += 1;
                            quote!(__ad_a.#index)
                        }
                    })
                })
                .collect();
            quote_spanned!(span=> {
                #(#data)*
                let (__ad_value, __ad_pullback) = #generic_call::reverse(#seeded, #closure);
                (__ad_value, move |__ad_c| {
                    let __ad_a = __ad_pullback(__ad_c);
                    (#(#adjoints,)*)
                })
            })
        }
    }
}

/// How an argument of a call run at dual numbers is seeded.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Seeding {
    /// It carries derivatives: its floats are inputs of the local Jacobian.
    Active,
    /// It carries none: its floats are dual numbers of tangent zero.
    Constant,
    /// A data constant (`20`, `true`): passed as it is.
    Data,
}

impl Seeding {
    /// The argument `arg` seeded, its type choosing how (`generic_call::SeedProbe`).
    pub fn seed(self, arg: TokenStream, span: Span) -> TokenStream {
        let generic_call = quote!(::ad_runtime::__private::generic_call);
        let probed = quote_spanned!(span=> #generic_call::SeedProbe::new(#arg).__ad_seed_arg());
        match self {
            Seeding::Active => probed,
            Seeding::Constant => quote_spanned!(span=> #generic_call::Constant::of(#probed)),
            Seeding::Data => quote_spanned!(span=> #generic_call::Data(#arg)),
        }
    }
}

/// The call of another function's generic derivative code (`g::grad`) with `args` (derivative
/// code, in order, each with whether it carries derivatives), at dual numbers: its value, or
/// its value and pullback (one adjoint per argument).
pub fn nested_call(
    function: &syn::Path,
    args: Vec<(TokenStream, Seeding)>,
    run: Run,
    span: Span,
) -> TokenStream {
    let generic_call = quote!(::ad_runtime::__private::generic_call);
    // At the dual type, named: the bound `for<'a> &'a __S: ScalarRef<__S>` the derivative code
    // has in scope would otherwise make rustc infer the scalar type itself.
    let scalar = crate::names::scalar_param(span);
    let mut function = function.clone();
    if let Some(last) = function.segments.last_mut() {
        last.arguments = syn::PathArguments::AngleBracketed(syn::parse_quote_spanned!(span=>
            ::<::ad_runtime::Dual<#scalar>>
        ));
    }
    let names: Vec<syn::Ident> = (0..args.len())
        .map(|position| format_ident!("__ad_g{}", position, span = span))
        .collect();
    let seeded = args
        .into_iter()
        .map(|(arg, seeding)| seeding.seed(arg, span));
    let runner = match run {
        Run::Value => quote!(primal),
        Run::Reverse => quote!(reverse),
    };
    quote_spanned!(span=> {
        #[allow(unused_imports)]
        use #generic_call::{SeedFloats as _, SeedOther as _};
        #generic_call::#runner(
            (#(#seeded,)*),
            |(#(#names,)*)| #function(#(#generic_call::Pass::pass(&#names)),*),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forms(signature: &str) -> Vec<Option<Param>> {
        let item: syn::ItemFn = syn::parse_str(&format!("{signature} {{}}")).unwrap();
        let function = PlainFunction::of(&item).unwrap();
        let float = function.float.unwrap();
        function
            .params
            .iter()
            .map(|param| param_form(&syn::parse_str(param).unwrap(), &float))
            .collect()
    }

    #[test]
    fn parameters_are_seeded_by_their_form() {
        assert_eq!(
            forms("fn f<T: Float>(a: T, b: &[T], c: &Vec<T>, d: [T; 3], n: usize, e: &mut [T], g: Vec<Vec<T>>)"),
            vec![
                Some(Param::Float),
                Some(Param::Lent),
                Some(Param::Lent),
                Some(Param::Owned),
                Some(Param::Data),
                None,
                None,
            ]
        );
    }

    #[test]
    fn annotated_functions_are_not_plain() {
        let item: syn::ItemFn =
            syn::parse_str("#[ad_runtime::reverse] fn f(x: f64) -> f64 { x }").unwrap();
        assert!(PlainFunction::of(&item).is_none());
    }
}
