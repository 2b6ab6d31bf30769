//! `#[reverse]`: keeps the function, and adds its reverse-mode code, `f_vjp` and `f_grad`.
//!
//! The derivative code runs the function's own control flow forward (each float operation
//! through its rule in `ad_runtime::rules`, which returns the value and the derivative as a
//! linear map), and builds its backward sweep out of closures:
//!
//! * a straight-line region's backward is one `move` closure that captures the region's
//!   residuals (the linear maps) and applies their transposes in reverse order;
//! * an `if` or `match` keeps the pullback of the branch that ran (`Branch::First/Second`);
//! * a loop keeps one pullback per iteration in a `Vec`, replayed backwards (the per-iteration
//!   record of seed `002`, `nTimes`); `break`, `continue` and `return` push or return the
//!   pullback of the part of the iteration that ran;
//! * a call to another differentiated function returns the callee's pullback with its value.
//!
//! Adjoints are plain floats in one array owned by the backward sweep, indexed by variable.
//! Nothing is recorded at run time but these typed closures: no operation tape, no shared
//! mutable state, so gradients can be computed from many threads at once.
//!
//! The generator's stages have a file each: this one holds the generated items (companions,
//! `f_vjp`, `f_grad`) and the generator's state; `statements.rs` walks the body (the function,
//! statements, `let`s, assignments), `control_flow.rs` opens and closes frames (`if`,
//! `match`, loops, exits), `expressions.rs` lowers expressions (reads, calls, rules,
//! backpropagation), `leaks.rs` checks that no float's derivative is lost, and `syntax.rs`
//! answers questions about the user's syntax. Constructs with more to them have files too:
//! `containers.rs`, `nested.rs`, `results.rs`, `user_values.rs`, `options.rs`,
//! `closures.rs`, `loop_env.rs` (what loop iterations keep) and `checkpoints.rs`.
//!
//! ```text
//! impl f { fn __ad_reverse<__S: Scalar>(x: __S, n: usize) -> (__S, Pullback<__S, 1>) }
//! fn f_vjp<__S: Scalar>(x: __S, n: usize, d_out: __S) -> (__S, __S)
//! fn f_grad<__S: Scalar>(x: __S, n: usize) -> (__S, __S)
//! ```

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Block, Expr, Ident, Lifetime, Pat, Stmt, UnOp};

use crate::activity::{
    assigns, bound_once, builds_empty_vec, container_use_depth, container_use_depth_in,
    is_float_type_path, keeps_its_length, pattern_bindings, pushes_rows, Locals,
};
use crate::ast::{
    block_of, block_of_statement, first_float_in, float_of_type, Function, ParamKind,
};
use crate::attr::{self, CheckpointArgs};
use crate::ctxt::Ctxt;
use crate::expand::captures;
use crate::expand::forward::{self, cfg_attrs, retype_type, stub_body, Bodies};
use crate::macros::{self, MacroArgs};
use crate::names;
use crate::retype::{classify_callee, quote_scalar_bound, quote_scalar_where, Callee, Retype};
use crate::rules::{
    BINARY_RULES, FLOAT_METHODS_WITHOUT_RULES, TERNARY_RULES, UNARY_RULES, VALUE_ONLY_METHODS,
};

mod checkpoints;
mod closures;
mod containers;
mod control_flow;
mod expressions;
mod leaks;
mod loop_env;
mod nested;
mod options;
mod results;
mod statements;
mod syntax;
mod user_values;

use leaks::LeakChecker;
use syntax::*;

const NESTED_ELEMENT_BY_ELEMENT: &str =
    "reverse mode reads a container of containers element by element, as `x[i][j]` (with \
     `x.len()` and `x[i].len()` for the bounds); write the loop over indices (forward mode \
     takes rows and iterators too)";

/// Whether every call of the function from reverse-mode code is checkpointed
/// (`#[checkpoint] fn`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Calls {
    Recorded,
    Checkpointed,
}

pub fn expand(cx: &Ctxt, function: &Function, bodies: Bodies, calls: Calls) -> TokenStream {
    let original = &function.item;
    let reverse = reverse_companions(cx, function, bodies, calls);
    // A body refused has its message once, from the reverse companions.
    let bodies = match cx.has_errors() {
        true => Bodies::Stub,
        false => bodies,
    };
    let forward_companion = forward::companion(function, bodies);
    quote! {
        #original
        #forward_companion
        #reverse
    }
}

/// Under a `#[forward]` that emits the function, the struct and the forward companion: only
/// the reverse companions and the public functions.
pub fn expand_stacked(cx: &Ctxt, function: &Function, calls: Calls) -> TokenStream {
    reverse_companions(cx, function, Bodies::Derivative, calls)
}

fn reverse_companions(cx: &Ctxt, function: &Function, bodies: Bodies, calls: Calls) -> TokenStream {
    let ir = ir_engine(cx, function, bodies);
    // What only the IR engine would take (a result of a derived type or a `Result`, operators
    // of derived types) is refused with its reason, not handed to this engine.
    let ir_only = function.derived_result().is_some() || function.fallible_output().is_some();
    let bodies = match &ir {
        Some(Err(not_yet)) if ir_only || not_yet.is_final() => {
            cx.error_spanned_by(
                quote::quote_spanned!(not_yet.span=> span),
                match not_yet.is_final() {
                    true => format!("reverse mode does not take {}", not_yet.what),
                    false => format!("reverse mode does not take {} yet", not_yet.what),
                },
            );
            Bodies::Stub
        }
        _ => bodies,
    };
    let ir_body = ir.as_ref().and_then(|outcome| outcome.as_ref().ok());
    let engine = engine_marker(function, ir.as_ref());
    match calls {
        Calls::Recorded => {
            let companion =
                reverse_companion(cx, function, bodies, names::REVERSE_COMPANION, ir_body);
            let borrowed = match bodies {
                Bodies::Derivative if !cx.has_errors() && ir_body.is_none() => {
                    borrowed_companion(function)
                }
                Bodies::Derivative if !cx.has_errors() => ir_borrowed_companion(function),
                _ => None,
            };
            let called = match borrowed {
                Some(_) => names::BORROWED_COMPANION,
                None => names::REVERSE_COMPANION,
            };
            let public = public_functions(function, bodies, called);
            quote!(#companion #borrowed #public #engine)
        }
        Calls::Checkpointed => {
            let recorded =
                reverse_companion(cx, function, bodies, names::RECORDED_COMPANION, ir_body);
            let wrapper = checkpointed_companion(function, bodies);
            let public = public_functions(function, bodies, names::RECORDED_COMPANION);
            quote!(#recorded #wrapper #public #engine)
        }
    }
}

/// The reverse companion of a `#[checkpoint] fn`: runs the function primal-only keeping its
/// arguments; its pullback runs the recorded companion from them.
fn checkpointed_companion(function: &Function, bodies: Bodies) -> TokenStream {
    let name = function.name();
    let span = name.span();
    let vis = &function.item.vis;
    let method = Ident::new(names::REVERSE_COMPANION, span);
    let recorded = Ident::new(names::RECORDED_COMPANION, span);
    let primal = Ident::new(names::FORWARD_COMPANION, span);
    let bound = quote_scalar_bound(function.float, span);
    let where_clause = quote_scalar_where(span);
    let scalar = names::scalar_param(span);
    let params = forward::companion_params(function);
    let args: Vec<&Ident> = function.params.iter().map(|param| &param.name).collect();
    let adjoints = adjoints_tuple_type(function, &scalar);
    let pullback = pullback_type(function, &scalar, None);
    let output = output_type(function, &scalar);
    let cotangent = cotangent_type(function, &scalar);
    // A parameter by shared reference is kept as an owned copy (a slice's `Vec`), which the
    // recomputation borrows again.
    let saved = function.params.iter().map(|param| {
        let name = &param.name;
        match param.is_reference() {
            true => {
                quote_spanned!(param.ty.span()=> ::ad_runtime::checkpoint::snapshot_borrowed(#name))
            }
            false => quote_spanned!(param.ty.span()=> ::ad_runtime::checkpoint::snapshot(#name)),
        }
    });
    let again = function.params.iter().map(|param| {
        let name = &param.name;
        match param.is_reference() {
            true => quote!(&#name),
            false => quote!(#name),
        }
    });
    let body = match bodies {
        Bodies::Stub => stub_body(),
        Bodies::Derivative => quote! {
            let __ad_saved = (#(#saved,)*);
            let __ad_value = #name::#primal::<#scalar>(#(#args),*);
            (__ad_value, ::std::boxed::Box::new(move |__ad_ct: #cotangent| -> #adjoints {
                let (#(#args,)*) = __ad_saved;
                let (_, __ad_pullback) = #name::#recorded(#(#again),*);
                __ad_pullback(__ad_ct)
            }))
        },
    };
    let cfgs = cfg_attrs(function);
    let companion_attributes = forward::companion_attributes();
    quote_spanned! {span=>
        #(#cfgs)*
        #[allow(dead_code)]
        impl #name {
            #companion_attributes
            #vis fn #method<#bound>(#(#params),*) -> (#output, #pullback) #where_clause
            {
                #body
            }
        }
    }
}

/// The adjoint of a parameter: a scalar, a `Vec` for a slice or `Vec` of scalars, and `()`
/// for data.
fn adjoint_type(function: &Function, param: &crate::ast::Param, scalar: &Ident) -> TokenStream {
    if param.kind == ParamKind::Data {
        quote!(())
    } else if param.is_user_container() {
        // Shaped as the twins (`[__AdAdjoint_Body<S>; 5]`), as the types give it: a caller adds
        // it to the shadow of what it passed, a sub-slice's included, element by element.
        let ty = forward::retype_type(function, strip_references(&param.ty));
        quote!(<#ty as ::ad_runtime::adjoint::Diff>::Adjoint)
    } else if param.user_type.is_some() {
        // Flat, in the order of `Differentiable::for_each`: a caller passing a part of its own
        // parameter adds them to its adjoints where that part's floats start.
        quote!(::std::vec::Vec<#scalar>)
    } else if param.is_scalar()
        || matches!(&param.ty, syn::Type::Reference(r) if float_of_type(&r.elem).is_some())
    {
        quote!(#scalar)
    } else if let Some(count) = param.scalar_tuple_len() {
        let elements = (0..count).map(|_| scalar.clone());
        quote!((#(#elements,)*))
    } else if param.is_nested_vector() {
        // `Vec<Vec<S>>` for `&[Vec<f64>]`, `Vec<[S; N]>` for `&[[f64; N]]`, `[Vec<S>; M]` for
        // `[Vec<f64>; M]`.
        fn container(ty: &syn::Type, element: TokenStream) -> TokenStream {
            match ty {
                syn::Type::Reference(reference) => container(&reference.elem, element),
                syn::Type::Array(array) => {
                    let length = &array.len;
                    quote!([#element; #length])
                }
                _ => quote!(::std::vec::Vec<#element>),
            }
        }
        let outer = strip_references(&param.ty);
        let row = match outer {
            syn::Type::Array(array) => &array.elem,
            syn::Type::Slice(slice) => &slice.elem,
            _ => match outer {
                syn::Type::Path(path) => match &path.path.segments.last().map(|s| &s.arguments) {
                    Some(syn::PathArguments::AngleBracketed(args)) => match args.args.first() {
                        Some(syn::GenericArgument::Type(row)) => row,
                        _ => outer,
                    },
                    _ => outer,
                },
                _ => outer,
            },
        };
        container(outer, container(strip_references(row), quote!(#scalar)))
    } else if let Some(length) = param.array_length() {
        quote!([#scalar; #length])
    } else if param.is_flat_vector() {
        quote!(::std::vec::Vec<#scalar>)
    } else {
        // Any other shape (`&[(f64, f64)]`, ...): the adjoint its type has
        // (`ad_runtime::adjoint::Diff`), which rustc works out.
        let ty = forward::retype_type(function, strip_references(&param.ty));
        quote!(<#ty as ::ad_runtime::adjoint::Diff>::Adjoint)
    }
}

/// The type of a `#[grad]` parameter's value in `f_vjp`, whose `Differentiable` impl makes its
/// twin and its adjoint: its user type, or a container of it without the reference
/// (`[Body; 5]`, `Vec<Body>`). `None` for a slice (`&[Body]`), which has no impl (it is not
/// sized): its twins and its adjoint are `Vec`s.
fn user_value_type(param: &crate::ast::Param) -> Option<TokenStream> {
    if !param.is_user_container() {
        return param.user_type.as_ref().map(|path| quote!(#path));
    }
    match strip_references(&param.ty) {
        syn::Type::Slice(_) => None,
        container => Some(quote!(#container)),
    }
}

/// What a pullback returns: one adjoint per parameter, in order, as a tuple. Data parameters
/// have `()`, so a call site pairs arguments and adjoints by position, whatever it can tell of
/// the arguments' types.
pub(crate) fn adjoints_tuple_type(function: &Function, scalar: &Ident) -> TokenStream {
    let types = function
        .params
        .iter()
        .map(|param| adjoint_type(function, param, scalar));
    quote!((#(#types,)*))
}

/// What a `#[reverse]` function returns; its cotangent has the same shape.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ResultShape {
    Scalar,
    /// `(f64, f64)`: a tuple of scalars.
    Tuple(usize),
    /// `Vec<f64>` or `[f64; N]`.
    Vector,
    /// `Vec<Vec<f64>>` or `Vec<[f64; N]>`: rows of floats.
    Rows,
    /// A value of a type that derives `Differentiable` (`Vec3`, `Self`).
    Derived,
}

fn result_shape(function: &Function) -> ResultShape {
    if function.derived_result().is_some() {
        return ResultShape::Derived;
    }
    match function.output() {
        Some(syn::Type::Tuple(tuple))
            if !tuple.elems.is_empty()
                && tuple.elems.iter().all(|elem| float_of_type(elem).is_some()) =>
        {
            ResultShape::Tuple(tuple.elems.len())
        }
        Some(ty) if crate::ast::is_vec_of_float_rows(ty) => ResultShape::Rows,
        Some(ty) if float_of_type(ty).is_none() && first_float_in(ty).is_some() => {
            ResultShape::Vector
        }
        _ => ResultShape::Scalar,
    }
}

/// The type of the value (and of its cotangent): the output over the scalar type, `()` for a
/// function that returns nothing (one with `&mut` parameters).
pub(crate) fn output_type(function: &Function, scalar: &Ident) -> TokenStream {
    if let Some(path) = function.derived_result() {
        return quote!(<#path as ::ad_runtime::Differentiable>::Over<#scalar>);
    }
    match (result_shape(function), function.output()) {
        (_, None) => quote!(()),
        (ResultShape::Scalar, _) => quote!(#scalar),
        (_, Some(ty)) => retype_type(function, ty).to_token_stream(),
    }
}

/// The `&mut` parameters that carry derivatives (`Param::is_in_out`).
pub(super) fn in_out_params(function: &Function) -> impl Iterator<Item = &crate::ast::Param> {
    function.params.iter().filter(|param| param.is_in_out())
}

/// What a pullback takes: the cotangent of the result, followed, when the function has `&mut`
/// parameters, by one slot per `&mut` parameter (DESIGN.md section 7): the cotangent of an
/// in-out parameter's final contents, `NoAdjoint` for data (`rng: &mut Rng`). Callers see
/// only that an argument is passed `&mut`, not whether the callee's parameter carries floats,
/// so every `&mut` parameter has its slot. Each in-out parameter's adjoint in the pullback's
/// result is then that of its initial contents.
pub(crate) fn cotangent_type(function: &Function, scalar: &Ident) -> TokenStream {
    // A result of `()` has the adjoint of data, which is what a caller holds for it.
    let output = match function.output() {
        // A derived type's: the adjoint the caller accumulates for the value.
        // A derived type's, or a fallible result's (an option of its value's adjoint): the
        // adjoint the caller accumulates for the value.
        Some(_) if function.derived_result().is_some() || function.fallible_output().is_some() => {
            let twin = output_type(function, scalar);
            quote!(<#twin as ::ad_runtime::adjoint::Diff>::Adjoint)
        }
        Some(_) => output_type(function, scalar),
        None => quote!(::ad_runtime::adjoint::NoAdjoint),
    };
    let slots: Vec<TokenStream> = mutable_params(function)
        .map(|param| match param.is_in_out() {
            true => adjoint_type(function, param, scalar),
            false => quote!(::ad_runtime::adjoint::NoAdjoint),
        })
        .collect();
    match slots.is_empty() {
        true => output,
        false => quote!((#output, #(#slots,)*)),
    }
}

/// The `&mut` parameters, each with its slot in the pullback's cotangent ([`cotangent_type`]).
pub(super) fn mutable_params(function: &Function) -> impl Iterator<Item = &crate::ast::Param> {
    function
        .params
        .iter()
        .filter(|param| param.is_mut_reference())
}

/// Unless the `previous-engine` feature is on, what the IR engine (`reverse_ir`) makes of the function: the
/// body of its reverse companion, or what it does not take yet (the function then goes
/// through this engine).
fn ir_engine(
    cx: &Ctxt,
    function: &Function,
    bodies: Bodies,
) -> Option<Result<TokenStream, crate::ir::lower::NotYet>> {
    if cfg!(feature = "previous-engine") || bodies != Bodies::Derivative || cx.has_errors() {
        return None;
    }
    let body = super::reverse_ir::companion_body(function, !is_leaf(function));
    // For the engine's developers: why a function went to this engine.
    if let Err(not_yet) = &body {
        if std::env::var_os("AD_IR_EXPLAIN").is_some() {
            eprintln!(
                "ad: the IR engine does not take `{}` yet: {} (at {:?})",
                function.name(),
                not_yet.what,
                not_yet.span
            );
        }
    }
    Some(body)
}

/// Unless the `previous-engine` feature is on, `f::__AD_ENGINE` says which engine differentiated `f`
/// (`"ir"`, or why not), so tests can require the IR engine while it grows.
fn engine_marker(
    function: &Function,
    ir: Option<&Result<TokenStream, crate::ir::lower::NotYet>>,
) -> TokenStream {
    let Some(outcome) = ir.filter(|_| !function.is_method) else {
        return TokenStream::new();
    };
    let name = function.name();
    // Spanned at the construct the IR engine stopped at, for "go to definition".
    let (engine, span) = match outcome {
        Ok(_) => ("ir".to_string(), name.span()),
        Err(not_yet) => (
            format!("syntax: the IR engine does not take {} yet", not_yet.what),
            not_yet.span,
        ),
    };
    let cfgs = cfg_attrs(function);
    let constant = quote_spanned!(span=> __AD_ENGINE);
    quote! {
        #(#cfgs)*
        #[allow(dead_code)]
        impl #name {
            #[doc(hidden)]
            pub const #constant: &'static str = #engine;
        }
    }
}

fn reverse_companion(
    cx: &Ctxt,
    function: &Function,
    bodies: Bodies,
    method: &str,
    ir_body: Option<&TokenStream>,
) -> TokenStream {
    let leaf = bodies == Bodies::Derivative && is_leaf(function);
    let body = match (bodies, ir_body) {
        (Bodies::Stub, _) => stub_body(),
        (Bodies::Derivative, Some(body)) => body.clone(),
        (Bodies::Derivative, None) => {
            let mut generator = Generator::new(cx, function);
            generator.leaf = leaf;
            generator.function_body().0
        }
    };
    let output = companion_output(function, leaf, None);
    forward::companion_method(function, method, None, output, body)
}

/// What a reverse companion returns: the value and the pullback. A leaf cannot be part of a
/// recursion, so its pullback's type is finite: it is returned unboxed (no allocation per
/// call), borrowing nothing but what `borrow` allows.
fn companion_output(function: &Function, leaf: bool, borrow: Option<&Lifetime>) -> TokenStream {
    let scalar = names::scalar_param(function.name().span());
    let value = output_type(function, &scalar);
    let cotangent = cotangent_type(function, &scalar);
    let adjoints = adjoints_tuple_type(function, &scalar);
    let borrowed = borrow.map(|lifetime| quote!(#lifetime,));
    let block_generics = crate::source_facts::impl_generics();
    if leaf {
        quote!((#value, impl ::core::ops::FnOnce(#cotangent) -> #adjoints
            + use<#borrowed #scalar #(, #block_generics)*>))
    } else {
        let pullback = pullback_type(function, &scalar, borrow);
        quote!((#value, #pullback))
    }
}

/// The boxed pullback of a reverse companion, borrowing nothing but what `borrow` allows.
pub(super) fn pullback_type(
    function: &Function,
    scalar: &Ident,
    borrow: Option<&Lifetime>,
) -> TokenStream {
    let adjoints = adjoints_tuple_type(function, scalar);
    let cotangent = cotangent_type(function, scalar);
    let bound = borrow.map(|lifetime| quote!(+ #lifetime));
    quote!(::std::boxed::Box<dyn ::core::ops::FnOnce(#cotangent) -> #adjoints #bound>)
}

/// The borrowed reverse companion (`names::BORROWED_COMPANION`), when its backward code reads
/// elements of container parameters again; `None` when it would be `__ad_reverse` over again.
/// Generated after `__ad_reverse` without errors, so it reports none of its own.
fn borrowed_companion(function: &Function) -> Option<TokenStream> {
    borrowed_method(function, |leaf, lifetime| {
        let quiet = Ctxt::new();
        let mut generator = Generator::new(&quiet, function);
        generator.leaf = leaf;
        generator.borrowed = Some(lifetime.clone());
        let (body, reads_again) = generator.function_body();
        (reads_again > 0 && !quiet.has_errors()).then_some(body)
    })
}

/// The borrowed companion around the body `body(leaf, lifetime)` gives, if any.
fn borrowed_method(
    function: &Function,
    body: impl FnOnce(bool, &Lifetime) -> Option<TokenStream>,
) -> Option<TokenStream> {
    let leaf = is_leaf(function);
    let lifetime = Lifetime::new("'__ad_p", function.name().span());
    let body = body(leaf, &lifetime)?;
    let output = companion_output(function, leaf, Some(&lifetime));
    Some(forward::companion_method(
        function,
        names::BORROWED_COMPANION,
        Some(&lifetime),
        output,
        body,
    ))
}

/// The borrowed reverse companion made by the IR engine: its pullback reads elements of the
/// parameters again instead of keeping them. `None` when it reads none again.
fn ir_borrowed_companion(function: &Function) -> Option<TokenStream> {
    borrowed_method(function, |leaf, lifetime| {
        super::reverse_ir::borrowed_companion_body(function, !leaf, lifetime)
    })
}

/// `f_vjp` and `f_grad`, in the function's declared types, and their generic versions
/// (`f::vjp`, `f::grad`).
fn public_functions(function: &Function, bodies: Bodies, companion: &str) -> TokenStream {
    let generic = generic_public_functions(function, bodies, companion);
    super::public::in_declared_types(function, bodies, generic)
}

fn generic_public_functions(function: &Function, bodies: Bodies, companion: &str) -> TokenStream {
    let vis = &function.item.vis;
    let name = function.name();
    let span = name.span();
    let companion = names::companion_path(function, companion);
    let bound = quote_scalar_bound(function.float, span);
    let where_clause = forward::public_where(function, span);
    let scalar = names::scalar_param(span);
    let vjp = names::vjp(function);
    let grad = names::grad(function);
    let cotangent = names::output_cotangent(function);
    let params = forward::public_params(function);
    let args: Vec<TokenStream> = function.params.iter().map(names::param_value).collect();
    // A `#[grad]` parameter goes to the companion as its twin; its flat adjoints come back as
    // a value of its type.
    let mut twins = Vec::new();
    let companion_args: Vec<TokenStream> = function
        .params
        .iter()
        .map(|param| {
            let param_name = &names::param_value(param);
            let Some(path) = &param.user_type else {
                // Reborrowed: its final contents are read after the call.
                if param.is_mut_reference() {
                    return quote!(&mut *#param_name);
                }
                return quote!(#param_name);
            };
            let twin = names::derived("__ad_twin_", &param.name);
            let value = if param.is_reference() {
                quote!(#param_name)
            } else {
                quote!(&#param_name)
            };
            if param.is_mut_reference() {
                // Its final contents go back to it after the call.
                twins.push(quote! {
                    let mut #twin = <#path as ::ad_runtime::Differentiable>::to_over(&*#value);
                });
                return quote!(&mut #twin);
            }
            let to_over = match user_value_type(param) {
                Some(ty) => quote!(<#ty as ::ad_runtime::Differentiable>::to_over(#value)),
                None => quote!(::ad_runtime::__private::twins_of(#value)),
            };
            twins.push(quote!(let #twin = #to_over;));
            if param.is_reference() {
                quote!(&#twin)
            } else {
                quote!(#twin)
            }
        })
        .collect();
    // A `&mut` parameter's cotangent comes in, and its adjoint goes out, through a `&mut` of
    // its own type named as its tangent in `f_jvp` (`d_y` for `y`), after the parameters.
    let in_out: Vec<(Ident, &crate::ast::Param, syn::Index)> = names::tangents(function)
        .into_iter()
        .zip(
            function
                .params
                .iter()
                .enumerate()
                .filter(|(_, param)| param.kind == ParamKind::Differentiated),
        )
        .filter(|(_, (_, param))| param.is_mut_reference())
        .map(|(tangent, (index, param))| (tangent, param, syn::Index::from(index)))
        .collect();
    let in_out_params = in_out.iter().map(|(tangent, param, _)| {
        let ty = forward::public_param_type(function, param);
        quote!(#tangent: #ty)
    });
    let private: TokenStream = "::ad_runtime::__private::in_out".parse().expect("a path");
    // Shaped as the final contents, which the companion has just written; data (and a
    // `#[no_grad]` parameter's) have no cotangent to give.
    let in_out_cotangents = mutable_params(function).map(|param| {
        match in_out
            .iter()
            .find(|(_, in_out, _)| std::ptr::eq(*in_out, param))
        {
            Some((tangent, _, _)) if param.user_type.is_some() => {
                quote!(::ad_runtime::__private::flatten_twin(&*#tangent))
            }
            Some((tangent, _, _)) => {
                let name = names::param_value(param);
                quote!(#private::cotangent_in(&*#name, &*#tangent))
            }
            None => quote!(::ad_runtime::__private::ir::zero()),
        }
    });
    let in_out_write_back = in_out
        .iter()
        .map(|(tangent, param, index)| match &param.user_type {
            // The twin's final contents back into the value, the adjoint into the tangent.
            Some(path) => {
                let name = names::param_value(param);
                let twin = names::derived("__ad_twin_", &param.name);
                quote! {
                    *#name = <#path as ::ad_runtime::Differentiable>::from_over(#twin);
                    *#tangent = ::ad_runtime::__private::unflatten_twin(&*#name, &adjoints.#index);
                }
            }
            None => quote!(#private::InOut::set_from(#tangent, adjoints.#index);),
        });
    // Indices, in the pullback's result, of the parameters that are differentiated.
    let differentiated: Vec<(TokenStream, TokenStream)> = function
        .params
        .iter()
        .enumerate()
        .filter(|(_, param)| param.kind == ParamKind::Differentiated && !param.is_mut_reference())
        .map(|(index, param)| {
            let index = syn::Index::from(index);
            let param_name = &names::param_value(param);
            match &param.user_type {
                Some(element) => {
                    let value = if param.is_reference() {
                        quote!(#param_name)
                    } else {
                        quote!(&#param_name)
                    };
                    // A container's adjoint comes shaped as its twins, a user value's flat.
                    let flat = match param.is_user_container() {
                        true => quote!(&::ad_runtime::__private::ir::flatten(&adjoints.#index)),
                        false => quote!(&adjoints.#index),
                    };
                    match user_value_type(param) {
                        Some(ty) => (
                            quote!(::ad_runtime::__private::unflatten_twin(#value, #flat)),
                            ty,
                        ),
                        None => (
                            quote!(::ad_runtime::__private::unflatten_twins(#value, #flat)),
                            quote!(::std::vec::Vec<#element>),
                        ),
                    }
                }
                None => (
                    quote!(adjoints.#index),
                    adjoint_type(function, param, &scalar),
                ),
            }
        })
        .collect();
    let (grads_type, grads_value) = match differentiated.as_slice() {
        [(only, ty)] => (ty.clone(), only.clone()),
        many => {
            let types = many.iter().map(|(_, ty)| ty);
            let fields = many.iter().map(|(value, _)| value);
            (quote!((#(#types,)*)), quote!((#(#fields,)*)))
        }
    };
    // With `&mut` parameters the pullback takes their cotangents after the result's, and a
    // function that returns nothing has neither a value nor a cotangent to give.
    let has_output = function.output().is_some();
    let derived = function.derived_result();
    // `Result<T, E>`: `T` over the scalar type, and `E`; the cotangent is `T`'s, given to the
    // pullback as an option (a fallible result's adjoint).
    let fallible = function
        .fallible_output()
        .map(|(ok, error)| (retype_type(function, ok).to_token_stream(), error.clone()));
    let result_cotangent = match (has_output, &derived) {
        (true, None) if fallible.is_some() => quote!(::core::option::Option::Some(#cotangent)),
        // The user's value as the adjoint of the twin the companion returned.
        (true, Some(path)) => {
            quote!(::ad_runtime::__private::twin_cotangent::<#path>(&value, &#cotangent))
        }
        (true, None) => quote!(#cotangent),
        (false, _) => quote!(::ad_runtime::adjoint::NoAdjoint),
    };
    let pullback_cotangent = match mutable_params(function).next().is_none() {
        true => result_cotangent,
        false => quote!((#result_cotangent, #(#in_out_cotangents,)*)),
    };
    let result = match (has_output, &derived) {
        (true, Some(path)) => {
            quote!((<#path as ::ad_runtime::Differentiable>::from_over(value), #grads_value))
        }
        (true, None) => quote!((value, #grads_value)),
        (false, _) => quote!(#grads_value),
    };
    let vjp_body = match bodies {
        Bodies::Stub => stub_body(),
        // An error is returned as it is, with no derivative.
        Bodies::Derivative if fallible.is_some() => quote! {
            #(#twins)*
            let (value, pullback) = #companion(#(#companion_args),*);
            match value {
                ::core::result::Result::Ok(value) => {
                    let adjoints = pullback(#pullback_cotangent);
                    #(#in_out_write_back)*
                    ::core::result::Result::Ok(#result)
                }
                ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
            }
        },
        Bodies::Derivative => quote! {
            #(#twins)*
            let (value, pullback) = #companion(#(#companion_args),*);
            let adjoints = pullback(#pullback_cotangent);
            #(#in_out_write_back)*
            #result
        },
    };
    let vjp_path = names::generic_public_path(function, "vjp");
    let grad_body = match bodies {
        Bodies::Stub => stub_body(),
        Bodies::Derivative => quote! {
            #vjp_path(#(#args,)* <#scalar as ::ad_runtime::Scalar>::one())
        },
    };
    let primal_list = args
        .iter()
        .map(|a| a.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    // A derived type's value and cotangent are the user's type.
    let output = match &derived {
        Some(path) => quote!(#path),
        None => output_type(function, &scalar),
    };
    let vjp_doc = format!(
        " Reverse-mode derivative of [`{name}`], generated by `#[reverse]`.\n\n \
         `{vjp}({primal_list}, {cotangent})` returns `({name}({primal_list}), {cotangent} · J)`: \
         the value, and the adjoint of each float parameter (a tuple in declared order when \
         there are several) for the cotangent `{cotangent}` of the result."
    );
    let grad_doc = format!(
        " Gradient of [`{name}`], generated by `#[reverse]`: `{grad}({primal_list})` is \
         `{vjp}({primal_list}, 1)`."
    );
    let (cotangent_param, vjp_output) = match (has_output, &fallible) {
        (true, Some((ok, error))) => (
            quote!(#cotangent: #ok),
            quote!(::core::result::Result<(#ok, #grads_type), #error>),
        ),
        (true, None) => (quote!(#cotangent: #output), quote!((#output, #grads_type))),
        (false, _) => (TokenStream::new(), grads_type.clone()),
    };
    let cfgs = cfg_attrs(function);
    // `Ok` with the value and the gradient of a fallible scalar result, or the error.
    let fallible_scalar = function
        .fallible_output()
        .is_some_and(|(ok, _)| float_of_type(ok).is_some());
    let grad_output = match &fallible {
        Some((_, error)) => quote!(::core::result::Result<(#scalar, #grads_type), #error>),
        None => quote!((#scalar, #grads_type)),
    };
    // A gradient is the adjoint of one scalar result (of a function that writes nothing else).
    let grad_function = ((result_shape(function) == ResultShape::Scalar || fallible_scalar)
        && has_output
        && in_out.is_empty())
    .then(|| {
        quote_spanned! {function.item.sig.span()=>
            #(#cfgs)*
            #[doc = #grad_doc]
            #[allow(dead_code, unused_variables, clippy::too_many_arguments, clippy::type_complexity, unreachable_code)]
            #vis fn #grad<#bound>(#(#params),*) -> #grad_output #where_clause {
                #grad_body
            }
        }
    });
    quote_spanned! {function.item.sig.span()=>
        #(#cfgs)*
        #[doc = #vjp_doc]
        #[allow(dead_code, unused_variables, clippy::too_many_arguments, clippy::type_complexity, unreachable_code)]
        #vis fn #vjp<#bound>(#(#params,)* #(#in_out_params,)* #cotangent_param) -> #vjp_output #where_clause {
            #vjp_body
        }

        #grad_function
    }
}

/// A value in the derivative code: a constant (no derivative), a variable (an adjoint slot),
/// or the result of a rule applied to other nodes.
#[derive(Clone)]
enum Node {
    Constant(TokenStream),
    Var {
        name: Ident,
        slot: usize,
    },
    /// An element of a container variable: `x[i]`, or `v` in `for v in &x`.
    Element {
        value: TokenStream,
        vector: usize,
        index: Ident,
        /// How the backward code reads the element again (an element of a container parameter
        /// in the borrowed companion), rather than keeping its value.
        again: Option<TokenStream>,
        /// An element read once before the loop (`LoopEnv::hoisted`): its place among those,
        /// where its cotangent goes.
        hoisted: Option<usize>,
    },
    /// A whole container variable, passed to a function.
    Vector {
        value: TokenStream,
        vector: usize,
    },
    /// A tuple of floats held in a variable, passed on whole: one slot per element.
    Tuple {
        value: TokenStream,
        slots: Vec<usize>,
    },
    /// A float read from a `#[grad]` value (`p.x`, `*head`): element `index` of `vector`, an
    /// `Option<usize>` that is `None` when what was read is a data field (`p.n as f64`).
    Part {
        value: TokenStream,
        vector: usize,
        index: Ident,
    },
    /// A `#[grad]` parameter of a user type, or a part of it bound by a pattern, passed to a
    /// function: its floats' adjoints are consecutive in `vector` from `first` on.
    Shaped {
        value: TokenStream,
        vector: usize,
        first: Ident,
    },
    /// A value whose cotangent is another node's: `Some(e)` (of `e`), `o.unwrap()` (of `o`).
    Same {
        value: TokenStream,
        inner: Box<Node>,
    },
    /// `o.unwrap_or(e)`: `o`'s value when `taken` (it was `Some`), else `e`'s; the cotangent
    /// goes to the one that was taken.
    Choice {
        value: Ident,
        taken: Ident,
        some: Box<Node>,
        none: Box<Node>,
    },
    Op {
        value: Ident,
        pullback: Ident,
        arity: Arity,
        children: Vec<Node>,
        /// How the backward code builds the rule's derivative from what it keeps of the
        /// operands and the value, when the forward code does not keep the derivative itself:
        /// a derivative that holds a value another one holds too (`x.exp() * y`) or one that
        /// is read again is then kept once or not at all.
        lazy: Option<TokenStream>,
    },
}

#[derive(Clone, Copy)]
enum Arity {
    /// The rule's derivative takes one tangent.
    One,
    /// `(dx, dy)`.
    Two,
    /// `(dx, (dy, dz))`.
    Three,
    /// A call: the callee's pullback returns an array, one entry per float argument. It takes
    /// the result's cotangent and, after it, one slot per argument passed `&mut` (data, in this
    /// engine: each slot gets a zero).
    Call { mutable_arguments: usize },
}

impl Node {
    fn value(&self) -> TokenStream {
        match self {
            Node::Constant(tokens) => tokens.clone(),
            Node::Var { name, .. } => name.to_token_stream(),
            Node::Element { value, .. }
            | Node::Part { value, .. }
            | Node::Tuple { value, .. }
            | Node::Vector { value, .. }
            | Node::Shaped { value, .. }
            | Node::Same { value, .. } => value.clone(),
            Node::Op { value, .. } | Node::Choice { value, .. } => value.to_token_stream(),
        }
    }

    fn is_constant(&self) -> bool {
        matches!(self, Node::Constant(_))
    }

    /// The node's value as the backward code reads it.
    fn backward_value(&self) -> TokenStream {
        match self {
            Node::Element {
                again: Some(again), ..
            } => again.clone(),
            _ => self.value(),
        }
    }
}

#[derive(Clone)]
enum Binding {
    Float(usize),
    /// A slice or `Vec` of scalars, with a vector of adjoints.
    Vector(usize),
    /// `v` in `for v in &x`: a reference to element `index` of the container `vector`
    /// (`by_value` for `for &v in ...`).
    Element {
        vector: usize,
        index: Ident,
        by_value: bool,
    },
    /// A container of containers of scalars, read and written by `x[i][j]`: its elements'
    /// adjoints in one vector, row `i` starting at `offsets[i]`. Rows may be pushed onto it
    /// when it is `growable` (built in the body, not a copy sharing its source's offsets).
    Nested {
        vector: usize,
        offsets: Ident,
        growable: bool,
    },
    /// A tuple of scalars: one slot per element.
    Tuple(Vec<usize>),
    /// A row of a container of containers (`let row = &x[i];`): its elements' adjoints are
    /// consecutive in `vector` from `start` on.
    Row {
        vector: usize,
        start: Ident,
    },
    /// A `#[grad]` parameter of a user type (its twin over the scalar type), or a part of one
    /// bound by a pattern: its floats' adjoints in one vector, numbered by `indices`, an
    /// expression of its index twin (the same shape, each float replaced by its number).
    Shaped {
        vector: usize,
        indices: TokenStream,
    },
    /// A closure, inlined where it is called: its index in `Generator::closures`.
    Closure(usize),
    /// An `Option` of a float built in the body: one slot, the adjoint of its value when it is
    /// `Some` (nothing reads it when it is `None`).
    Option(usize),
    Data,
}

/// Where the value of a control-flow expression goes.
#[derive(Clone)]
enum ResultVar {
    /// Its value is not used.
    Discard,
    /// A float: a variable with an adjoint slot.
    Float(Ident, usize),
    /// An `Option` of a float: a variable with the adjoint slot of its value.
    Option(Ident, usize),
    /// A value of a type that derives `Differentiable` (its twin): a variable whose floats'
    /// adjoints are in a vector, numbered where the construct ends.
    Shaped(Ident, usize),
    /// Anything else: a plain variable.
    Data(Ident),
}

enum FrameKind {
    Function,
    Nested,
    Loop {
        label: Lifetime,
        user_label: Option<Lifetime>,
        record: Ident,
        result: ResultVar,
        /// `None` for a loop whose iterations' pullbacks are boxed (it has exits).
        pool: Option<Pool>,
        /// `None` for a loop whose iterations' pullbacks are boxed (it has exits).
        env: Option<Box<LoopEnv>>,
    },
}

/// What the backward sweep of a loop's iteration is handed so that it recomputes indices
/// instead of keeping them (a loop over `0..n` would otherwise keep one `usize` per element it
/// reads, per iteration): the counters of the loops around it, and the integers from around
/// the whole nest that the nest does not change. Each iteration's pullback takes it by value
/// as nested pairs: `((around, own part of the outermost loop), ..., own part of this loop)`,
/// where a loop's own part is `(counter, iteration number, entries of its running indices,
/// hoisted elements)`, each `()` when nothing reads it.
struct LoopEnv {
    /// 1 for a loop whose iterations' pullbacks are run by the code around it, one more for
    /// each loop it is nested in, directly, that pools its pullbacks.
    depth: usize,
    /// The scope sites of the names that are this loop's counter (`j` in `for j in a..b`, `i`
    /// in `for (i, v) in x.iter().enumerate()`).
    counter_sites: Vec<(usize, usize)>,
    /// The counter's value in the forward code, when the loop has one.
    counter_forward: Option<TokenStream>,
    /// The generated counter of a loop over containers, which elements bound by the loop
    /// (`v` in `for v in &x`) use as their index.
    counter_ident: Option<Ident>,
    /// The counter's first value as the backward code of the loop around computes it.
    counter_first: TokenStream,
    /// Whether recomputed code reads the counter (if not, `()` is passed).
    counter_used: bool,
    /// Whether recomputed code reads the iteration's number.
    number_used: bool,
    /// Names from around the loop that its body advances once per iteration.
    running: Vec<RunningIndex>,
    /// Elements the loop's iterations read that its body does not change (`c[i]` inside
    /// `for j in ..`), read once before the loop runs (when it runs at all) and kept once for
    /// all its iterations; each iteration's pullback returns their cotangents, which the loop
    /// around sums (in a register, where adding to the adjoint in memory every iteration would
    /// chain the iterations through it) and adds once.
    hoisted: Vec<Hoisted>,
    /// The iterator of a loop over a range, which says whether the loop runs.
    iterator: Option<Ident>,
    /// The whole loop (a `while` condition changes names too).
    looped: Expr,
    /// This iteration's part of the environment in the forward code, whose type the
    /// iteration's pullback takes.
    own: Ident,
    /// For the outermost loop of a nest: the integers from around it.
    around: Option<Box<AroundLoops>>,
}

/// A name from around a loop that its body advances by a constant step once per iteration, in
/// a statement of its own (`l += 1;`) and nowhere else: at iteration `t` it is
/// `entry + step * t` before that statement and `entry + step * (t + 1)` after it.
struct RunningIndex {
    name: Ident,
    site: (usize, usize),
    step: syn::LitInt,
    /// The statement that advances it, to know whether code comes after it (compared, never
    /// read).
    statement: *const Stmt,
    advanced: bool,
    /// Its value when the loop starts, in the forward code.
    entry: Ident,
    /// The entry as the backward code of the loop around computes it.
    entry_backward: TokenStream,
    used: bool,
}

/// An element read once before a loop (see `LoopEnv::hoisted`).
struct Hoisted {
    /// Its value and position, in the forward code.
    value: Ident,
    position: Ident,
    /// The container (a place in the forward code), its vector of adjoints, and the index.
    container: TokenStream,
    vector: usize,
    index: TokenStream,
}

/// The names from around a loop nest that its backward code reads, as a tuple made before the
/// nest runs.
struct AroundLoops {
    tuple: Ident,
    names: Vec<((usize, usize), Ident)>,
    /// The outermost loop, which must not change them.
    looped: Expr,
}

/// How recomputed code reads a name.
enum EnvName {
    /// The counter of the loop in this frame.
    Counter(usize),
    /// A name from around the nest.
    Around((usize, usize), Ident),
    /// Running index `index` of the loop in this frame.
    Running(usize, usize),
    /// A constant (an item named in upper case).
    Constant(Ident),
}

/// The iterations' pullbacks of loops nested directly in a loop's body go to one `Vec` per
/// loop (a stack) for the whole run of the outermost loop, not to a `Vec` per execution: a
/// short inner loop would otherwise allocate every time it runs. The backward sweep pops
/// them in reverse order. The outermost loop owns the pools, a tuple with one
/// `(pullbacks, pools of the loops nested in that one)` pair per nested loop; each
/// iteration's pullback is handed the pools of the loops nested in it.
struct Pool {
    /// The pools of the loops nested in this one, as a place in the forward code.
    nested: TokenStream,
    /// What those pools start as: one `(Vec::new(), nested pools)` per nested loop.
    children: Vec<TokenStream>,
}

struct Frame {
    kind: FrameKind,
    forward: Vec<TokenStream>,
    pieces: Vec<TokenStream>,
    scope: Vec<(Ident, Binding)>,
    /// What a loop iteration's pullback recomputes before its pieces run, with the names it
    /// binds.
    prologue: Vec<(Ident, TokenStream)>,
}

impl Frame {
    fn new(kind: FrameKind) -> Self {
        Frame {
            kind,
            forward: Vec::new(),
            pieces: Vec::new(),
            scope: Vec::new(),
            prologue: Vec::new(),
        }
    }

    fn env(&self) -> Option<&LoopEnv> {
        match &self.kind {
            FrameKind::Loop { env, .. } => env.as_deref(),
            _ => None,
        }
    }

    fn env_mut(&mut self) -> Option<&mut LoopEnv> {
        match &mut self.kind {
            FrameKind::Loop { env, .. } => env.as_deref_mut(),
            _ => None,
        }
    }
}

struct Generator<'a> {
    cx: &'a Ctxt,
    function: &'a Function,
    locals: Locals,
    counter: usize,
    slots: usize,
    vectors: usize,
    frames: Vec<Frame>,
    /// What the pullback returns for each float parameter, in order.
    parameter_adjoints: Vec<TokenStream>,
    /// The pullback is returned unboxed, and the stack needs no growth checks (`is_leaf`).
    leaf: bool,
    /// Vector slots of owned containers (`Vec` parameters and locals), which `for v in x`
    /// iterates by value.
    owned_vectors: std::collections::HashSet<usize>,
    /// Closures bound by `let`, with the binding sites their free names had where they were
    /// defined.
    closures: Vec<InlinedClosure>,
    /// For the borrowed companion, the lifetime for which its pullback may borrow the
    /// parameters, so the backward code of loop iterations reads elements of container
    /// parameters again instead of keeping them.
    borrowed: Option<Lifetime>,
    /// The scope sites of the container parameters taken by shared reference.
    shared_containers: Vec<(usize, usize)>,
    /// Their vectors of adjoints, with their lengths: sized once when the backward sweep
    /// starts, so that adding to an element never grows them (no call in the hot code).
    sized_vectors: Vec<(usize, Ident)>,
    /// The statements of the block being lowered, and the position of the one after the
    /// statement being lowered: what a `let` is followed by in its scope.
    following: Option<(std::rc::Rc<Vec<Stmt>>, usize)>,
    /// How many element reads the backward code does again.
    reads_again: usize,
    /// Names of the constants and statics the body declares: one in a loop's body may shadow a
    /// name from around the loop (even a `let`), so none of them is read from the loop
    /// environment or before the loop. `None` when the body has a glob import (`use m::*;`),
    /// which may shadow any name: then nothing is.
    body_items: Option<Vec<Ident>>,
    /// The names the body binds or assigns `Option`s of floats to (`options::option_names`).
    option_names: options::OptionNames,
}

/// `let (s, c) = e.sin_cos();` (also `let (s, c): (f64, f64) = ..`, `f64::sin_cos(e)`):
/// the pattern and the angle `e`.
fn sin_cos_binding(local: &syn::Local) -> Option<(&syn::PatTuple, &Expr)> {
    let pattern = match &local.pat {
        Pat::Tuple(pattern) => pattern,
        Pat::Type(typed) => match &*typed.pat {
            Pat::Tuple(pattern) => pattern,
            _ => return None,
        },
        _ => return None,
    };
    let init = local.init.as_ref().filter(|init| init.diverge.is_none())?;
    let angle = match &*init.expr {
        Expr::MethodCall(call) if call.method == "sin_cos" && call.args.is_empty() => {
            &*call.receiver
        }
        Expr::Call(call) if call.args.len() == 1 => {
            let Expr::Path(path) = &*call.func else {
                return None;
            };
            let segments: Vec<String> = path
                .path
                .segments
                .iter()
                .map(|segment| segment.ident.to_string())
                .collect();
            match segments.iter().map(String::as_str).collect::<Vec<_>>()[..] {
                ["f64" | "f32", "sin_cos"] => &call.args[0],
                _ => return None,
            }
        }
        _ => return None,
    };
    (pattern.elems.len() == 2).then_some((pattern, angle))
}

/// A closure bound by `let`, inlined where it is called.
#[derive(Clone)]
struct InlinedClosure {
    closure: syn::ExprClosure,
    /// The names its body reads, with their binding sites where it is defined.
    free: Vec<FreeName>,
    /// For a `move` closure: each captured variable, and the copy taken where the closure is
    /// defined (what the closure's body sees, whatever happens to the variable later).
    captures: Vec<(Ident, Ident)>,
}

/// A name a closure body reads, with where it was bound when the closure was defined
/// (scope depth, position), so a call elsewhere can check it still means the same variable.
type FreeName = (Ident, Option<(usize, usize)>);

impl<'a> Generator<'a> {
    fn new(cx: &'a Ctxt, function: &'a Function) -> Self {
        let locals = Locals::analyze(function);
        let option_names = options::option_names(&function.body, &locals);
        Generator {
            cx,
            function,
            locals,
            counter: 0,
            slots: 0,
            vectors: 0,
            frames: Vec::new(),
            parameter_adjoints: Vec::new(),
            leaf: false,
            owned_vectors: Default::default(),
            closures: Vec::new(),
            borrowed: None,
            shared_containers: Vec::new(),
            sized_vectors: Vec::new(),
            following: None,
            reads_again: 0,
            body_items: declared_items(&function.body),
            option_names,
        }
    }

    fn vector_slot(&mut self) -> usize {
        self.vectors += 1;
        self.vectors - 1
    }

    fn scalar(&self) -> Ident {
        names::scalar_param(Span::call_site())
    }

    /// Whether `node` is a literal constant, which the backward code may evaluate again.
    fn is_literal(&self, node: &Node) -> bool {
        matches!(node, Node::Constant(tokens)
            if captures::is_literal(tokens, &self.scalar().to_token_stream()))
    }

    fn scalar_zero(&self) -> TokenStream {
        let scalar = self.scalar();
        quote!(<#scalar as ::ad_runtime::Scalar>::zero())
    }

    /// The start of a sum of cotangents (see `__private::sum_start`).
    fn sum_start(&self) -> TokenStream {
        let scalar = self.scalar();
        quote!(::ad_runtime::__private::sum_start::<#scalar>())
    }

    fn fresh(&mut self, prefix: &str) -> Ident {
        self.counter += 1;
        format_ident!("__ad_{}{}", prefix, self.counter)
    }

    fn slot(&mut self) -> usize {
        self.slots += 1;
        self.slots - 1
    }

    fn frame(&mut self) -> &mut Frame {
        self.frames
            .last_mut()
            .expect("a frame is open while generating")
    }

    fn emit(&mut self, tokens: TokenStream) {
        self.frame().forward.push(tokens);
    }

    fn piece(&mut self, tokens: TokenStream) {
        self.frame().pieces.push(tokens);
    }

    /// Scopes hold names without `r#`, so `r#y` and `y` find the same variable.
    fn bind(&mut self, name: Ident, binding: Binding) {
        self.frame().scope.push((name.unraw(), binding));
    }

    fn lookup(&self, name: &Ident) -> Option<Binding> {
        let name = name.unraw();
        for frame in self.frames.iter().rev() {
            if let Some((_, binding)) = frame.scope.iter().rev().find(|(n, _)| *n == name) {
                return Some(binding.clone());
            }
        }
        None
    }

    /// Where `name` is bound: the frame's depth and the position in its scope. Two lookups that
    /// give the same site name the same variable.
    fn binding_site(&self, name: &Ident) -> Option<(usize, usize)> {
        let name = name.unraw();
        for (depth, frame) in self.frames.iter().enumerate().rev() {
            if let Some(position) = frame.scope.iter().rposition(|(n, _)| *n == name) {
                return Some((depth, position));
            }
        }
        None
    }

    fn is_float_var(&self, name: &Ident) -> bool {
        matches!(
            self.lookup(name),
            Some(
                Binding::Float(_)
                    | Binding::Vector(_)
                    | Binding::Element { .. }
                    | Binding::Tuple(_)
                    | Binding::Closure(_)
                    | Binding::Option(_)
            )
        )
    }

    /// Names bound in scope answer for themselves; a name not bound yet is one that `expr`
    /// binds itself (a block's `let`), for which the whole-function analysis answers.
    fn may_be_float(&self, expr: &Expr) -> bool {
        self.locals
            .may_be_float_with(expr, &|ident| match self.lookup(ident) {
                Some(Binding::Data) => false,
                Some(_) => true,
                None => self.locals.floats.contains(ident),
            })
    }

    fn adjoints_type(&self) -> TokenStream {
        let scalar = self.scalar();
        quote!(__AdAdjoints<#scalar>)
    }

    fn error(&self, tokens: impl ToTokens, message: impl std::fmt::Display) {
        self.cx.error_spanned_by(tokens, message);
    }
}
