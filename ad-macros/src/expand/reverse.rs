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
//! This file holds the function, statements, control flow, loops, exits and expressions; the
//! constructs with more to them have their own files: `containers.rs` (slices, `Vec`s, arrays,
//! iterator chains), `nested.rs` (containers of containers), `results.rs` (containers returned
//! by calls and by the function), `user_values.rs` (values of derived types built in the
//! body), `options.rs` (`Option`s of floats), `closures.rs`, `loop_env.rs` (what loop
//! iterations keep) and `checkpoints.rs` (inner `#[checkpoint]`s).
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

mod checkpoints;
mod closures;
mod containers;
mod loop_env;
mod nested;
mod options;
mod results;
mod user_values;

const NESTED_ELEMENT_BY_ELEMENT: &str =
    "reverse mode reads a container of containers element by element, as `x[i][j]` (with \
     `x.len()` and `x[i].len()` for the bounds); write the loop over indices (forward mode \
     takes rows and iterators too)";

/// Float methods with a rule of one argument (the receiver).
const UNARY_RULES: &[&str] = &[
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "exp",
    "exp2",
    "exp_m1",
    "ln",
    "log2",
    "log10",
    "ln_1p",
    "sqrt",
    "cbrt",
    "abs",
    "signum",
    "recip",
    "to_degrees",
    "to_radians",
    "floor",
    "ceil",
    "round",
    "trunc",
    "fract",
];
/// Float methods with a rule of two arguments.
const BINARY_RULES: &[&str] = &["atan2", "log", "powf", "hypot", "min", "max"];
/// Float methods with a rule of three arguments.
const TERNARY_RULES: &[&str] = &["mul_add", "clamp"];
/// Float methods of `std` that have no derivative rule here.
const FLOAT_METHODS_WITHOUT_RULES: &[&str] = &[
    "copysign",
    "rem_euclid",
    "div_euclid",
    "midpoint",
    "to_bits",
    "sin_cos",
    "gamma",
    "ln_gamma",
];

/// Float methods whose result is not a float: only the value is used.
const VALUE_ONLY_METHODS: &[&str] = &[
    "len",
    "is_empty",
    "is_nan",
    "is_finite",
    "is_infinite",
    "is_normal",
    "is_sign_positive",
    "is_sign_negative",
    "partial_cmp",
    "total_cmp",
    "to_string",
];

/// Whether every call of the function from reverse-mode code is checkpointed
/// (`#[checkpoint] fn`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Calls {
    Recorded,
    Checkpointed,
}

pub fn expand(cx: &Ctxt, function: &Function, bodies: Bodies, calls: Calls) -> TokenStream {
    let original = &function.item;
    let forward_companion = forward::companion(function, bodies);
    let reverse = reverse_companions(cx, function, bodies, calls);
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
    match calls {
        Calls::Recorded => {
            let companion = reverse_companion(cx, function, bodies, names::REVERSE_COMPANION);
            let borrowed = match bodies {
                Bodies::Derivative if !cx.has_errors() && !uses_ir_engine(cx, function) => {
                    borrowed_companion(function)
                }
                _ => None,
            };
            let called = match borrowed {
                Some(_) => names::BORROWED_COMPANION,
                None => names::REVERSE_COMPANION,
            };
            let public = public_functions(function, bodies, called);
            let engine = engine_marker(cx, function);
            quote!(#companion #borrowed #public #engine)
        }
        Calls::Checkpointed => {
            let recorded = reverse_companion(cx, function, bodies, names::RECORDED_COMPANION);
            let wrapper = checkpointed_companion(function, bodies);
            let public = public_functions(function, bodies, names::RECORDED_COMPANION);
            quote!(#recorded #wrapper #public)
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
    let saved = function.params.iter().map(|param| {
        let name = &param.name;
        quote_spanned!(param.ty.span()=> ::ad_runtime::checkpoint::snapshot(#name))
    });
    let body = match bodies {
        Bodies::Stub => stub_body(),
        Bodies::Derivative => quote! {
            let __ad_saved = (#(#saved,)*);
            let __ad_value = #name::#primal::<#scalar>(#(#args),*);
            (__ad_value, ::std::boxed::Box::new(move |__ad_ct: #output| -> #adjoints {
                let (#(#args,)*) = __ad_saved;
                let (_, __ad_pullback) = #name::#recorded(#(#args),*);
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
fn adjoint_type(param: &crate::ast::Param, scalar: &Ident) -> TokenStream {
    if param.kind == ParamKind::Data {
        quote!(())
    } else if param.user_type.is_some() {
        // Flat, in the order of `Differentiable::for_each`: a caller passing a part of its own
        // parameter adds them to its adjoints where that part's floats start.
        quote!(::std::vec::Vec<#scalar>)
    } else if param.is_scalar() {
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
    } else {
        quote!(::std::vec::Vec<#scalar>)
    }
}

/// What a pullback returns: one adjoint per parameter, in order, as a tuple. Data parameters
/// have `()`, so a call site pairs arguments and adjoints by position, whatever it can tell of
/// the arguments' types.
fn adjoints_tuple_type(function: &Function, scalar: &Ident) -> TokenStream {
    let types = function
        .params
        .iter()
        .map(|param| adjoint_type(param, scalar));
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
}

fn result_shape(function: &Function) -> ResultShape {
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

/// The type of the value (and of its cotangent): the output over the scalar type.
pub(super) fn output_type(function: &Function, scalar: &Ident) -> TokenStream {
    match (result_shape(function), function.output()) {
        (ResultShape::Scalar, _) | (_, None) => quote!(#scalar),
        (_, Some(ty)) => retype_type(function, ty).to_token_stream(),
    }
}

/// Whether the function goes through the IR engine (`reverse_ir`): with the `ir-engine`
/// feature, when the engine takes every construct of it.
fn uses_ir_engine(cx: &Ctxt, function: &Function) -> bool {
    !cx.has_errors() && ir_engine_body(function, false).is_some()
}

fn ir_engine_body(function: &Function, boxed: bool) -> Option<TokenStream> {
    if !cfg!(feature = "ir-engine") {
        return None;
    }
    super::reverse_ir::companion_body(function, boxed).ok()
}

/// With the `ir-engine` feature, `f::__AD_ENGINE` says which engine differentiated `f`
/// (`"ir"`, or why not), so tests can require the IR engine while it grows.
fn engine_marker(cx: &Ctxt, function: &Function) -> TokenStream {
    if !cfg!(feature = "ir-engine") || function.is_method || cx.has_errors() {
        return TokenStream::new();
    }
    let name = function.name();
    // Spanned at the construct the IR engine stopped at, for "go to definition".
    let (engine, span) = match super::reverse_ir::companion_body(function, false) {
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

fn reverse_companion(cx: &Ctxt, function: &Function, bodies: Bodies, method: &str) -> TokenStream {
    let leaf = bodies == Bodies::Derivative && is_leaf(function);
    let body = match bodies {
        Bodies::Stub => stub_body(),
        Bodies::Derivative if uses_ir_engine(cx, function) => {
            ir_engine_body(function, !leaf).unwrap_or_default()
        }
        Bodies::Derivative => {
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
    let adjoints = adjoints_tuple_type(function, &scalar);
    let borrowed = borrow.map(|lifetime| quote!(#lifetime,));
    if leaf {
        quote!((#value, impl ::core::ops::FnOnce(#value) -> #adjoints + use<#borrowed #scalar>))
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
    let cotangent = output_type(function, scalar);
    let bound = borrow.map(|lifetime| quote!(+ #lifetime));
    quote!(::std::boxed::Box<dyn ::core::ops::FnOnce(#cotangent) -> #adjoints #bound>)
}

/// The borrowed reverse companion (`names::BORROWED_COMPANION`), when its backward code reads
/// elements of container parameters again; `None` when it would be `__ad_reverse` over again.
/// Generated after `__ad_reverse` without errors, so it reports none of its own.
fn borrowed_companion(function: &Function) -> Option<TokenStream> {
    let quiet = Ctxt::new();
    let leaf = is_leaf(function);
    let lifetime = Lifetime::new("'__ad_p", function.name().span());
    let mut generator = Generator::new(&quiet, function);
    generator.leaf = leaf;
    generator.borrowed = Some(lifetime.clone());
    let (body, reads_again) = generator.function_body();
    if reads_again == 0 || quiet.has_errors() {
        return None;
    }
    let output = companion_output(function, leaf, Some(&lifetime));
    Some(forward::companion_method(
        function,
        names::BORROWED_COMPANION,
        Some(&lifetime),
        output,
        body,
    ))
}

fn public_functions(function: &Function, bodies: Bodies, companion: &str) -> TokenStream {
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
                return quote!(#param_name);
            };
            let twin = names::derived("__ad_twin_", &param.name);
            let value = if param.is_reference() {
                quote!(#param_name)
            } else {
                quote!(&#param_name)
            };
            twins.push(quote! {
                let #twin = <#path as ::ad_runtime::Differentiable>::to_over(#value);
            });
            if param.is_reference() {
                quote!(&#twin)
            } else {
                quote!(#twin)
            }
        })
        .collect();
    // Indices, in the pullback's result, of the parameters that are differentiated.
    let differentiated: Vec<(TokenStream, TokenStream)> = function
        .params
        .iter()
        .enumerate()
        .filter(|(_, param)| param.kind == ParamKind::Differentiated)
        .map(|(index, param)| {
            let index = syn::Index::from(index);
            let param_name = &names::param_value(param);
            match &param.user_type {
                Some(path) => {
                    let value = if param.is_reference() {
                        quote!(#param_name)
                    } else {
                        quote!(&#param_name)
                    };
                    (
                        quote!(::ad_runtime::__private::unflatten_twin(#value, &adjoints.#index)),
                        quote!(#path),
                    )
                }
                None => (quote!(adjoints.#index), adjoint_type(param, &scalar)),
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
    let vjp_body = match bodies {
        Bodies::Stub => stub_body(),
        Bodies::Derivative => quote! {
            #(#twins)*
            let (value, pullback) = #companion(#(#companion_args),*);
            let adjoints = pullback(#cotangent);
            (value, #grads_value)
        },
    };
    let vjp_path = if function.is_method {
        quote!(Self::#vjp)
    } else {
        quote!(#vjp)
    };
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
    let output = output_type(function, &scalar);
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
    let cfgs = cfg_attrs(function);
    // A gradient is the adjoint of one scalar result.
    let grad_function = (result_shape(function) == ResultShape::Scalar).then(|| {
        quote_spanned! {function.item.sig.span()=>
            #(#cfgs)*
            #[doc = #grad_doc]
            #[allow(dead_code, unused_variables, clippy::too_many_arguments, clippy::type_complexity, unreachable_code)]
            #vis fn #grad<#bound>(#(#params),*) -> (#scalar, #grads_type) #where_clause {
                #grad_body
            }
        }
    });
    quote_spanned! {function.item.sig.span()=>
        #(#cfgs)*
        #[doc = #vjp_doc]
        #[allow(dead_code, unused_variables, clippy::too_many_arguments, clippy::type_complexity, unreachable_code)]
        #vis fn #vjp<#bound>(#(#params,)* #cotangent: #output) -> (#output, #grads_type) #where_clause {
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
    /// A call: the callee's pullback returns an array, one entry per float argument.
    Call,
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

    // ----- the function -----

    /// The companion's body, and how many element reads its backward code does again.
    fn function_body(mut self) -> (TokenStream, usize) {
        self.frames.push(Frame::new(FrameKind::Function));
        for param in &self.function.params {
            let name = &param.name;
            let binding = match param.kind {
                ParamKind::Data => {
                    self.parameter_adjoints.push(quote!(()));
                    Binding::Data
                }
                _ if param.is_scalar() => {
                    let slot = self.slot();
                    self.parameter_adjoints.push(quote!(__adj[#slot]));
                    Binding::Float(slot)
                }
                _ if param.user_type.is_some() => {
                    let vector = self.vector_slot();
                    let indices = names::derived("__ad_indices_", name);
                    let length = names::derived("__ad_length_", name);
                    let path = &param.user_type;
                    let value = if param.is_reference() {
                        quote!(#name)
                    } else {
                        quote!(&#name)
                    };
                    // Held like the parameter (by reference or by value), so that the user's
                    // `*l`, `&**t` reach the index twin as they reach the value.
                    let owned = names::derived("__ad_owned_indices_", name);
                    let held = if param.is_reference() {
                        quote!(&#owned)
                    } else {
                        quote!(#owned)
                    };
                    self.emit(quote! {
                        let (#owned, #length) =
                            ::ad_runtime::__private::number_floats::<#path, _>(#value);
                        let #indices = #held;
                    });
                    self.parameter_adjoints
                        .push(quote!(__adj.vector_result(#vector, #length)));
                    Binding::Shaped {
                        vector,
                        indices: quote!(#indices),
                    }
                }
                _ if param.is_nested_vector() => {
                    // Read by `x[i][j]`: the elements' adjoints in one vector, row after row.
                    let vector = self.vector_slot();
                    let offsets = names::derived("__ad_offsets_", name);
                    self.emit(quote! {
                        let #offsets = ::ad_runtime::__private::row_offsets(
                            #name.iter().map(|row| row.len()),
                        );
                    });
                    let rows = quote! {
                        ::ad_runtime::__private::unflatten(
                            __adj.vector_result(#vector, #offsets[#offsets.len() - 1]),
                            &#offsets,
                        )
                    };
                    self.parameter_adjoints.push(match param.array_length() {
                        Some(_) => quote!(::ad_runtime::__private::rows_into_array(#rows)),
                        None => rows,
                    });
                    Binding::Nested {
                        vector,
                        offsets,
                        growable: false,
                    }
                }
                _ if param.scalar_tuple_len().is_some() => {
                    let count = param.scalar_tuple_len().unwrap_or(0);
                    let slots: Vec<usize> = (0..count).map(|_| self.slot()).collect();
                    self.parameter_adjoints.push(quote!((#(__adj[#slots],)*)));
                    Binding::Tuple(slots)
                }
                _ => {
                    let vector = self.vector_slot();
                    if !param.is_reference() {
                        self.owned_vectors.insert(vector);
                    }
                    let length = names::derived("__ad_length_", name);
                    if matches!(&param.ty, syn::Type::Reference(r) if r.mutability.is_none()) {
                        let site = (self.frames.len() - 1, self.frame().scope.len());
                        self.shared_containers.push(site);
                        self.sized_vectors.push((vector, length.clone()));
                    }
                    self.emit(quote!(let #length = #name.len();));
                    self.parameter_adjoints.push(match param.array_length() {
                        Some(_) => quote! {
                            ::ad_runtime::__private::into_array(__adj.vector_result(#vector, #length))
                        },
                        None => quote!(__adj.vector_result(#vector, #length)),
                    });
                    Binding::Vector(vector)
                }
            };
            self.bind(name.clone(), binding);
        }
        let block = self.function.body.clone();
        let tail = self.block_statements(&block);
        match tail {
            Some(tail) => {
                let exit = self.exit_with(&tail);
                self.emit(exit);
            }
            // Every path has returned; rustc has checked that for the function as written.
            None => self.emit(quote!(::core::unreachable!("every path returns"))),
        }
        let frame = self.frames.pop().expect("the function frame");
        let forward = frame.forward;
        let aliases = self.locals.user_types.aliases();
        let slots = self.slots;
        let vectors = self.vectors;
        let scalar = self.scalar();
        let pullback = pullback_type(self.function, &scalar, self.borrowed.as_ref());
        let output = output_type(self.function, &scalar);
        let body = if self.leaf {
            quote!(#(#forward)*)
        } else {
            quote! {
                ::ad_runtime::__private::maybe_grow(move || -> (#output, #pullback) {
                    #(#forward)*
                })
            }
        };
        let body = quote! {
            #[allow(unused_imports)]
            use ::ad_runtime::__private::{
                CastPrimitive as _, CastScalar as _, IndexOfData as _, IndexOfFloat as _,
                LiftFloat as _, LiftOption as _, LiftOther as _, LiftTuple as _, ValueOfReference as _, ValueOfValue as _,
            };
            #[allow(non_camel_case_types, dead_code)]
            type __AdAdjoints<__T> = ::ad_runtime::__private::Adjoints<__T, #slots, #vectors>;
            #aliases
            #body
        };
        (body, self.reads_again)
    }

    /// Returns `tail` from the function: its value and the pullback from here. A tuple result
    /// seeds each element with its part of the cotangent; a container result seeds its
    /// elements' adjoints with the cotangent vector.
    fn exit_with(&mut self, tail: &Expr) -> TokenStream {
        let cotangent = Ident::new("__ad_ct", Span::call_site());
        match result_shape(self.function) {
            ResultShape::Scalar => {
                let node = self.lower(tail);
                let seed = self.backprop(&node, cotangent.to_token_stream());
                self.return_pullback(node.value(), seed)
            }
            ResultShape::Tuple(count) => {
                // A tuple held in a variable.
                if let node @ Node::Tuple { .. } = self.lower_if_tuple(strip_parens(tail), count) {
                    let seed = self.backprop(&node, cotangent.to_token_stream());
                    return self.return_pullback(node.value(), seed);
                }
                let elements: Vec<&Expr> = match strip_parens(tail) {
                    Expr::Tuple(tuple) if tuple.elems.len() == count => {
                        tuple.elems.iter().collect()
                    }
                    other => {
                        self.error(
                            other,
                            "reverse mode returns a tuple written out (`(a, b)`) or held in a \
                             variable",
                        );
                        return quote!(::core::unreachable!());
                    }
                };
                let nodes = self.lower_operands(&elements);
                let mut seed = TokenStream::new();
                for (position, node) in nodes.iter().enumerate() {
                    let part = syn::Index::from(position);
                    seed.extend(self.backprop(node, quote!(#cotangent.#part)));
                }
                let values = nodes.iter().map(Node::value);
                self.return_pullback(quote!((#(#values,)*)), seed)
            }
            ResultShape::Vector => {
                let held = self.held_result(tail, |this, tail| this.vector_of(tail).is_some());
                let tail = &held;
                let Some(vector) = self.vector_of(tail) else {
                    return quote!(::core::unreachable!());
                };
                // Moved out whole: its elements' adjoints come from the cotangent, which must
                // have its length.
                let value = self.native_unchecked(tail);
                let length = self.fresh("result_length");
                self.emit(quote!(let #length = #value.len();));
                let seed = quote! {
                    ::ad_runtime::__private::cotangent_of_length(#length, #cotangent.len());
                    __adj.add_vector(#vector, &#cotangent);
                };
                self.return_pullback(value, seed)
            }
            ResultShape::Rows => {
                let held = self.held_result(tail, |this, tail| this.nested_binding(tail).is_some());
                let tail = &held;
                let Some((vector, offsets, _)) = self.nested_binding(tail) else {
                    self.error(
                        tail,
                        "reverse mode returns a container of rows built in the body (a literal, \
                         rows pushed, a copy) or held in a variable",
                    );
                    return quote!(::core::unreachable!());
                };
                // Moved out whole: its elements' adjoints come from the cotangent, which must
                // have its shape.
                let value = self.native_unchecked(tail);
                let seed = quote! {
                    __adj.add_result_rows(#vector, &#offsets, &#cotangent);
                };
                self.return_pullback(value, seed)
            }
        }
    }

    /// `t`, a tuple of `count` floats held in a variable: its node; anything else a constant
    /// placeholder.
    fn lower_if_tuple(&mut self, expr: &Expr, count: usize) -> Node {
        match expr {
            Expr::Path(path) => match path.path.get_ident().and_then(|name| self.lookup(name)) {
                Some(Binding::Tuple(slots)) if slots.len() == count => self.lower(expr),
                _ => Node::Constant(TokenStream::new()),
            },
            _ => Node::Constant(TokenStream::new()),
        }
    }

    /// The pullback of the function from the current point: seed the returned value, then run
    /// the backward pieces of every open frame, innermost first.
    fn return_pullback(&mut self, value: TokenStream, seed: TokenStream) -> TokenStream {
        let scalar = self.scalar();
        let cotangent = Ident::new("__ad_ct", Span::call_site());
        let output = output_type(self.function, &scalar);
        let composed = self.compose_prefix(None);
        let adjoints = adjoints_tuple_type(self.function, &scalar);
        let results = &self.parameter_adjoints;
        let sized = self
            .sized_vectors
            .iter()
            .map(|(vector, length)| quote!(__adj.size_vector(#vector, #length);));
        let backward = quote! {
            let mut __ad_storage: __AdAdjoints<#scalar> = ::ad_runtime::__private::Adjoints::new();
            let __adj = &mut __ad_storage;
            #(#sized)*
            #seed
            #composed
            (#(#results,)*)
        };
        if self.leaf {
            quote! {
                return (#value, move |#cotangent: #output| -> #adjoints { #backward });
            }
        } else {
            quote! {
                return (#value, ::std::boxed::Box::new(move |#cotangent: #output| -> #adjoints {
                    ::ad_runtime::__private::maybe_grow(move || { #backward })
                }));
            }
        }
    }

    /// The backward pieces of the open frames from the innermost out to `target` (a loop
    /// label), or to the function when `target` is `None`. Loops that are left on the way
    /// contribute the iterations they completed.
    fn compose_prefix(&self, target: Option<&Lifetime>) -> TokenStream {
        let mut out = TokenStream::new();
        for frame in self.frames.iter().rev() {
            for piece in frame.pieces.iter().rev() {
                out.extend(piece.clone());
            }
            if let FrameKind::Loop { label, record, .. } = &frame.kind {
                if Some(label) == target {
                    return out;
                }
                out.extend(quote! {
                    for __ad_pullback in #record.into_iter().rev() {
                        __ad_pullback(__adj);
                    }
                });
            }
        }
        out
    }

    // ----- statements -----

    /// Lowers the statements of a block into the current frame; returns the tail expression
    /// (the block's value), if any.
    fn block_statements(&mut self, block: &Block) -> Option<Expr> {
        let count = block.stmts.len();
        let statements = std::rc::Rc::new(block.stmts.clone());
        let outer = self.following.take();
        let mut tail = None;
        for (index, stmt) in block.stmts.iter().enumerate() {
            match stmt {
                Stmt::Expr(expr, None) if index + 1 == count => {
                    tail = Some(expr.clone());
                    break;
                }
                _ => {
                    self.following = Some((statements.clone(), index + 1));
                    self.statement(stmt);
                    self.advance_running(stmt);
                }
            }
        }
        self.following = outer;
        tail
    }

    fn statement(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Local(local) if has_checkpoint(&local.attrs) => self.checkpointed_local(local),
            Stmt::Expr(expr, _) if expression_checkpoint(expr).is_some() => {
                self.checkpointed_statement(expr)
            }
            Stmt::Local(local) => self.local(local),
            Stmt::Item(item) => self.emit(item.to_token_stream()),
            Stmt::Macro(mac) => {
                let expr = Expr::Macro(syn::ExprMacro {
                    attrs: mac.attrs.clone(),
                    mac: mac.mac.clone(),
                });
                let native = self.native(&expr);
                self.emit(quote!(#native;));
            }
            Stmt::Expr(expr, _) => self.expression_statement(expr),
        }
    }

    fn local(&mut self, local: &syn::Local) {
        if self.option_local(local) {
            return;
        }
        if let (Pat::Ident(name), Some(init)) = (&local.pat, &local.init) {
            if let Expr::Closure(closure) = &*init.expr {
                return self.closure_local(&name.ident, name.mutability.as_ref(), closure);
            }
        }
        if let Some(init) = &local.init {
            // `let q = &p.inner;`, or a destructuring of any part (`let [x, y] = p.position;`).
            let destructures = !matches!(strip_pattern_type(&local.pat), Pat::Ident(_));
            if self.shaped_argument(&init.expr).is_some()
                || (destructures && self.shaped_part(&init.expr).is_some())
            {
                return self.shaped_local(local);
            }
        }
        if let (Pat::Tuple(pattern), Some(init)) = (strip_pattern_type(&local.pat), &local.init) {
            if let Expr::Path(path) = &*init.expr {
                if let Some(Binding::Tuple(slots)) =
                    path.path.get_ident().and_then(|name| self.lookup(name))
                {
                    if pattern.elems.len() == slots.len() && init.diverge.is_none() {
                        let values: syn::ExprTuple = {
                            let fields = (0..slots.len()).map(syn::Index::from);
                            syn::parse_quote!((#(#path.#fields,)*))
                        };
                        return self.tuple_local(pattern, &values);
                    }
                }
            }
        }
        if let (Pat::Ident(name), Some(init)) = (strip_pattern_type(&local.pat), &local.init) {
            // `let s = if c { Shape::Circle(r) } else { Shape::Square(a) };`
            if init.diverge.is_none() && name.subpat.is_none() && is_control_flow(&init.expr) {
                if let Some(type_path) = self.built_user_type(&init.expr) {
                    return self.shaped_result_local(name, &init.expr, &type_path);
                }
            }
            // `Shape::Circle(r)` is `Shape::Circle { 0: r }`.
            let tuple_variant = self.tuple_variant_as_struct(&init.expr);
            let built = tuple_variant
                .as_ref()
                .map(|structure| Expr::Struct(structure.clone()));
            if let Expr::Struct(structure) =
                built.as_ref().unwrap_or_else(|| strip_parens(&init.expr))
            {
                let scalar = self.scalar().to_token_stream();
                if structure.qself.is_none()
                    && structure.rest.is_none()
                    && init.diverge.is_none()
                    && name.subpat.is_none()
                    && self
                        .locals
                        .user_types
                        .twin_path(&structure.path, &scalar)
                        .is_some()
                {
                    return self.struct_local(name, structure);
                }
            }
            // `let u = t;`: a copy of a tuple of floats.
            if let Expr::Path(path) = strip_parens(&init.expr) {
                if let Some(Binding::Tuple(slots)) =
                    path.path.get_ident().and_then(|name| self.lookup(name))
                {
                    if name.subpat.is_none() && init.diverge.is_none() {
                        let fields = (0..slots.len()).map(syn::Index::from);
                        let copy: syn::ExprTuple = syn::parse_quote!((#(#path.#fields,)*));
                        return self.tuple_value_local(name, &copy);
                    }
                }
            }
            if let Expr::Tuple(tuple) = strip_parens(&init.expr) {
                let typed_as_floats = match &local.pat {
                    Pat::Type(typed) => matches!(&*typed.ty, syn::Type::Tuple(ty)
                        if ty.elems.iter().all(|elem| float_of_type(elem).is_some())),
                    _ => true,
                };
                if typed_as_floats
                    && name.subpat.is_none()
                    && init.diverge.is_none()
                    && !tuple.elems.is_empty()
                    && tuple.elems.iter().all(|elem| self.may_be_float(elem))
                {
                    return self.tuple_value_local(name, tuple);
                }
            }
        }
        // `let (a, b) = g(x);` (or a method's tuple result): each name a float.
        if let (Pat::Tuple(pattern), Some(init)) = (strip_pattern_type(&local.pat), &local.init) {
            let names: Option<Vec<&syn::PatIdent>> = pattern
                .elems
                .iter()
                .map(|element| match element {
                    Pat::Ident(ident) if ident.subpat.is_none() && ident.by_ref.is_none() => {
                        Some(ident)
                    }
                    _ => None,
                })
                .collect();
            let differentiated_call = self.calls_differentiated(&init.expr);
            if let (Some(names), true, None) = (names, differentiated_call, &init.diverge) {
                return self.tuple_result_local(&names, &init.expr);
            }
        }
        if let (Pat::Tuple(pattern), None) = (&local.pat, &local.init) {
            // `let (a, b);`: each name declared on its own, assigned later.
            if pattern
                .elems
                .iter()
                .all(|element| matches!(element, Pat::Ident(_)))
            {
                for element in &pattern.elems {
                    let Pat::Ident(ident) = element else { continue };
                    let name = &ident.ident;
                    let mutability = &ident.mutability;
                    self.emit(quote!(let #mutability #name;));
                    let binding = if self.locals.floats.contains(name) {
                        Binding::Float(self.slot())
                    } else {
                        Binding::Data
                    };
                    self.bind(name.clone(), binding);
                }
                return;
            }
        }
        if let (Pat::Wild(_), Some(init)) = (&local.pat, &local.init) {
            if init.diverge.is_none() && self.may_be_float(&init.expr) {
                // Evaluated for its effects; its value (and derivative) is dropped.
                let node = self.lower(&init.expr);
                let value = node.value();
                self.emit(quote!(let _ = #value;));
                return;
            }
        }
        if let Some((pattern, angle)) = sin_cos_binding(local) {
            if self.may_be_float(angle) {
                // `let (s, c) = e.sin_cos();` is `let a = e; let (s, c) = (a.sin(), a.cos());`.
                let node = self.lower(angle);
                let angle = self.fresh("angle");
                self.float_local(&angle, None, &node);
                let values: syn::ExprTuple = syn::parse_quote!((#angle.sin(), #angle.cos()));
                return self.tuple_local(pattern, &values);
            }
        }
        if let (Pat::Tuple(pattern), Some(init)) = (strip_pattern_type(&local.pat), &local.init) {
            if let (Expr::Tuple(values), None) = (&*init.expr, &init.diverge) {
                if pattern.elems.len() == values.elems.len() && self.may_be_float(&init.expr) {
                    return self.tuple_local(pattern, values);
                }
            }
        }
        let (name, mutability, ty) = match &local.pat {
            Pat::Ident(pat) if pat.subpat.is_none() && pat.by_ref.is_none() => {
                (pat.ident.clone(), pat.mutability, None)
            }
            Pat::Type(typed) => match &*typed.pat {
                Pat::Ident(pat) if pat.subpat.is_none() && pat.by_ref.is_none() => {
                    (pat.ident.clone(), pat.mutability, Some((*typed.ty).clone()))
                }
                _ => return self.data_local(local),
            },
            _ => return self.data_local(local),
        };
        let init = local.init.as_ref();
        if let Some(init) = init {
            if init.diverge.is_some() {
                return self.data_local(local);
            }
            if let Some(statements) = self.desugar_collect(&name, ty.as_ref(), &init.expr) {
                for statement in &statements {
                    self.statement(statement);
                }
                return;
            }
            if matches!(&*init.expr, Expr::MethodCall(call) if call.method == "collect")
                && self.may_be_float(&init.expr)
            {
                // Reported once, at `collect`; later uses of the name are not reported again.
                self.lower(&init.expr);
                let vector = self.vector_slot();
                self.bind(name, Binding::Vector(vector));
                return;
            }
            if self.calls_differentiated(&init.expr) && !self.is_data_constant(&init.expr) {
                let typed_container = ty.as_ref().is_some_and(|ty| {
                    crate::ast::container_element(ty)
                        .and_then(float_of_type)
                        .is_some()
                });
                // The uses of this binding tell what the call returns: those in the rest of
                // its block, up to a `let` binding the name again.
                let body = &self.function.item.block;
                let depth = match (&ty, &self.following) {
                    (Some(_), _) => 0,
                    (None, Some((statements, next))) => {
                        container_use_depth_in(&statements[*next..], &name)
                    }
                    (None, None) if bound_once(body, &name) => container_use_depth(body, &name),
                    (None, None) => 0,
                };
                // `let y = g(x); ...; y` in a function returning a container: its result.
                let returned = match (&self.following, result_shape(self.function)) {
                    (Some((statements, _)), shape @ (ResultShape::Vector | ResultShape::Rows))
                        if self.frames.len() == 1
                            && matches!(statements.last(), Some(Stmt::Expr(Expr::Path(path), None))
                                if path.path.is_ident(&name)) =>
                    {
                        if shape == ResultShape::Rows {
                            2
                        } else {
                            1
                        }
                    }
                    _ => 0,
                };
                let depth = depth.max(returned);
                let typed_rows = ty.as_ref().is_some_and(crate::ast::is_vec_of_float_rows);
                if typed_rows || depth == 2 {
                    return self.rows_result_local(&name, mutability, ty.as_ref(), &init.expr);
                }
                if typed_container || depth == 1 {
                    return self.container_result_local(&name, mutability, ty.as_ref(), &init.expr);
                }
            }
            if builds_empty_vec(&init.expr) {
                let typed_nested = ty.as_ref().is_some_and(is_nested_float_type);
                if typed_nested
                    || (self.locals.floats.contains(&name)
                        && pushes_rows(&self.function.item.block, &name))
                {
                    return self.nested_empty_local(&name, mutability, ty.as_ref(), &init.expr);
                }
            }
            if let Some(rows) = self.literal_of_rows(&init.expr) {
                return self.rows_pushed_from_literal(&name, ty.as_ref(), &init.expr, rows);
            }
            if let Some(literal) = nested_literal(&init.expr) {
                let declared_float = ty.as_ref().is_some_and(|ty| first_float_in(ty).is_some())
                    || self.locals.floats.contains(&name);
                if declared_float || self.may_be_float(&init.expr) {
                    return self.nested_local(&name, mutability, ty.as_ref(), literal);
                }
            }
            if let Some(kind) = self.container_init(&init.expr, &name, ty.as_ref()) {
                return self.container_local(&name, mutability, ty.as_ref(), &init.expr, kind);
            }
            if let Some(kind) = self.row_copy(&init.expr) {
                return self.container_local(&name, mutability, ty.as_ref(), &init.expr, kind);
            }
            if let Some((source, offsets)) = self.nested_copy(&init.expr) {
                // `let owned = rows.to_vec();`: the same shape, so the same row offsets; its
                // adjoints go back to the source's, element by element, where it was made.
                let vector = self.vector_slot();
                let value = self.native_unchecked(&init.expr);
                self.emit(quote!(let #mutability #name = #value;));
                let cotangents = self.fresh("cts");
                self.piece(quote! {
                    let #cotangents = __adj.take_vector(#vector);
                    __adj.add_vector(#source, &#cotangents);
                });
                self.bind(
                    name,
                    Binding::Nested {
                        vector,
                        offsets,
                        growable: false,
                    },
                );
                return;
            }
            if let Some((vector, index)) = self.element_reference(&init.expr) {
                let value = self.native_unchecked(&init.expr);
                self.emit(quote!(let #mutability #name = #value;));
                self.bind(
                    name,
                    Binding::Element {
                        vector,
                        index,
                        by_value: false,
                    },
                );
                return;
            }
            if let Some((vector, start)) = self.row_of(&init.expr) {
                let value = self.native_unchecked(&init.expr);
                self.emit(quote!(let #mutability #name = #value;));
                self.bind(name, Binding::Row { vector, start });
                return;
            }
            // `let r = a[i];` of an array row (a copy): a copy of the row.
            if let Expr::Index(row) = strip_parens(&init.expr) {
                if self.nested_binding(&row.expr).is_some() {
                    let reference: Expr = syn::parse_quote!(&#row);
                    if let Some((vector, start)) = self.row_of(&reference) {
                        let kind = ContainerInit::CopyOfRow(vector, start);
                        return self.container_local(
                            &name,
                            mutability,
                            ty.as_ref(),
                            &init.expr,
                            kind,
                        );
                    }
                }
            }
            // `x[i][j]` (an element, a float) falls through to the float `let` below.
            let nested_element = matches!(strip_parens(&init.expr), Expr::Index(index) if self.nested_row(&index.expr).is_some());
            if self.names_nested(&init.expr) && !nested_element {
                let moved = self.nested_binding(&init.expr).is_some();
                let message = if moved {
                    "reverse mode does not move or alias containers of containers yet; index \
                     the container itself, or copy it with `.clone()`"
                } else {
                    NESTED_ELEMENT_BY_ELEMENT
                };
                self.error(&init.expr, message);
                // Later uses of the name are not reported again.
                self.bind(name, Binding::Data);
                return;
            }
            if self.names_container(&init.expr) {
                self.error(
                    &init.expr,
                    "reverse mode does not move or alias containers of floats yet; index the \
                     container itself, or copy it with `.to_vec()`",
                );
                // Later uses of the alias are not reported again.
                if let Some(vector) = self.container_named(&init.expr) {
                    self.bind(name, Binding::Vector(vector));
                }
                return;
            }
        }
        // `let s: f64 = data..sum();`: a constant whose plain type the annotation gives.
        if let (Some(ty), Some(init)) = (&ty, init) {
            if float_of_type(ty).is_some()
                && init.diverge.is_none()
                && self.is_data_constant(&init.expr)
            {
                let value = &init.expr;
                let scalar = self.scalar();
                let constant = Node::Constant(quote! {
                    ::ad_runtime::__private::LiftProbe::new({
                        let __ad_plain: #ty = #value;
                        __ad_plain
                    })
                    .__ad_lift::<#scalar>()
                });
                return self.float_local(&name, mutability.as_ref(), &constant);
            }
        }
        let is_float = match (&ty, init) {
            (Some(ty), _) => first_float_in(ty).is_some(),
            // A constant or a data function's result has a type the macro cannot see; the
            // floats later assigned to the variable tell.
            (None, Some(init)) => {
                self.may_be_float(&init.expr)
                    || (is_opaque(&init.expr) && self.locals.floats.contains(&name))
            }
            (None, None) => self.locals.floats.contains(&name),
        };
        if !is_float {
            return self.data_local(local);
        }
        if let Some(ty) = &ty {
            let from_call = local
                .init
                .as_ref()
                .is_some_and(|init| matches!(&*init.expr, Expr::Call(_) | Expr::MethodCall(_)));
            let data_call = init.filter(|init| from_call && self.is_data_constant(&init.expr));
            let scalar = self.scalar();
            if let (None, Some(init)) = (float_of_type(ty), data_call) {
                let value = self.native(&init.expr);
                if crate::ast::container_element(ty)
                    .and_then(float_of_type)
                    .is_some()
                {
                    // `let d: Vec<f64> = data(n);`: constants of the scalar type, a container
                    // like any other (written, pushed as a row, passed to calls).
                    let retyped = retype_type(self.function, ty);
                    self.emit(quote! {
                        let #mutability #name: #retyped =
                            ::ad_runtime::__private::lift_elements::<#scalar, _>({
                                let __ad_plain: #ty = #value;
                                __ad_plain
                            });
                    });
                    let vector = self.vector_slot();
                    self.piece(quote!(let _ = __adj.take_vector(#vector);));
                    self.bind(name, Binding::Vector(vector));
                    return;
                }
                // Deeper containers of data: their elements are lifted where they are read.
                self.emit(quote!(let #mutability #name: #ty = #value;));
                self.bind(name, Binding::Data);
                return;
            }
            if float_of_type(ty).is_none() && from_call {
                self.error(
                    ty,
                    "reverse mode takes `Vec`s and arrays of floats, and `Vec`s of such rows, \
                     returned by #[reverse] functions (`let y: Vec<f64> = g(x);`), not this \
                     container; fill a local container in this function instead, or use \
                     #[forward]",
                );
                // Later uses of the name are not reported again.
                self.bind(name, Binding::Data);
                return;
            }
            if float_of_type(ty).is_none() {
                self.error(
                    ty,
                    "reverse mode does not support float containers yet; bind a scalar `f64`",
                );
            }
        }
        let ty_tokens = ty.as_ref().map(|ty| {
            let ty = retype_type(self.function, ty);
            quote!(: #ty)
        });
        let slot = self.slot();
        match init {
            Some(init) => {
                let node = self.lower(&init.expr);
                let value = node.value();
                self.emit(quote!(let #mutability #name #ty_tokens = #value;));
                self.bind(name.clone(), Binding::Float(slot));
                self.assignment_piece(slot, &node);
            }
            None => {
                self.emit(quote!(let #mutability #name #ty_tokens;));
                self.bind(name.clone(), Binding::Float(slot));
            }
        }
    }

    /// `: T` for a `let` annotated with `T`, over the scalar type.
    fn annotation(&self, ty: Option<&syn::Type>) -> Option<TokenStream> {
        ty.map(|ty| {
            let ty = retype_type(self.function, ty);
            quote!(: #ty)
        })
    }

    /// `let (a, mut b) = (e1, e2);`: every element is evaluated first (so that
    /// `let (a, b) = (b, a)` swaps), then each is bound like a `let` of its own.
    fn tuple_local(&mut self, pattern: &syn::PatTuple, values: &syn::ExprTuple) {
        let operands: Vec<&Expr> = values.elems.iter().collect();
        let floats: Vec<bool> = operands
            .iter()
            .map(|value| self.may_be_float(value))
            .collect();
        let evaluated: Vec<(Node, bool)> = self
            .lower_operands(&operands)
            .into_iter()
            .zip(floats)
            .collect();
        for (element, (node, is_float)) in pattern.elems.iter().zip(evaluated) {
            if matches!(element, Pat::Wild(_)) {
                // Evaluated with the others; its value, and so its derivative, is dropped.
                continue;
            }
            let Pat::Ident(pat) = element else {
                self.error(element, "reverse mode binds tuples of floats to plain names only; write `let (a, b) = ...`");
                continue;
            };
            let (name, mutability) = (&pat.ident, &pat.mutability);
            if is_float {
                self.float_local(name, mutability.as_ref(), &node);
            } else {
                let value = node.value();
                self.emit(quote!(let #mutability #name = #value;));
                self.bind(name.clone(), Binding::Data);
            }
        }
    }

    /// `v` (a container), `t` (a tuple), `p` or `&p.inner` (a `#[grad]` value or part),
    /// `Point { .. }`, `vec![..]`: a value that is not one float.
    fn holds_more_than_a_float(&self, expr: &Expr) -> bool {
        match strip_parens(expr) {
            Expr::Path(path) => path.path.get_ident().is_some_and(|name| {
                matches!(
                    self.lookup(name),
                    Some(
                        Binding::Vector(_)
                            | Binding::Tuple(_)
                            | Binding::Nested { .. }
                            | Binding::Row { .. }
                            | Binding::Shaped { .. }
                    )
                )
            }),
            Expr::Struct(_) | Expr::Tuple(_) | Expr::Array(_) | Expr::Repeat(_) => true,
            Expr::Macro(_) => true,
            Expr::Reference(_) => true,
            Expr::MethodCall(call) if call.method == "clone" || call.method == "to_vec" => {
                self.holds_more_than_a_float(&call.receiver)
                    || self.shaped_part(&call.receiver).is_some()
            }
            _ => false,
        }
    }

    /// `let t = (a * b, c);`: a tuple of floats, one slot per element (`t.0`, passed on whole).
    fn tuple_value_local(&mut self, name: &syn::PatIdent, tuple: &syn::ExprTuple) {
        let elements: Vec<&Expr> = tuple.elems.iter().collect();
        let nodes = self.lower_operands(&elements);
        let mut slots = Vec::new();
        for node in &nodes {
            let slot = self.slot();
            self.assignment_piece(slot, node);
            slots.push(slot);
        }
        let values = nodes.iter().map(Node::value);
        let (binding, mutability) = (&name.ident, &name.mutability);
        self.emit(quote!(let #mutability #binding = (#(#values,)*);));
        self.bind(binding.unraw(), Binding::Tuple(slots));
    }

    /// `let (a, b) = g(x);` where `g` returns a tuple of floats: each name a float, and one
    /// backward piece handing the callee's pullback the tuple of their adjoints.
    fn tuple_result_local(&mut self, names: &[&syn::PatIdent], call: &Expr) {
        if self.is_data_constant(call) {
            // Called with data only: a tuple of constants.
            let value = self.fresh("constants");
            self.emit(quote!(let #value = #call;));
            let scalar = self.scalar();
            for (position, name) in names.iter().enumerate() {
                let field = syn::Index::from(position);
                let constant = Node::Constant(quote! {
                    ::ad_runtime::__private::LiftProbe::new(#value.#field).__ad_lift::<#scalar>()
                });
                self.float_local(&name.ident.unraw(), name.mutability.as_ref(), &constant);
            }
            return;
        }
        let node = self.lower(call);
        let value = node.value();
        let mut slots = Vec::new();
        for (position, name) in names.iter().enumerate() {
            let field = syn::Index::from(position);
            let (binding, mutability) = (&name.ident, &name.mutability);
            self.emit(quote!(let #mutability #binding = #value.#field;));
            let slot = self.slot();
            self.bind(binding.unraw(), Binding::Float(slot));
            slots.push(slot);
        }
        let cotangent = self.fresh("ct");
        let backprop = self.backprop(&node, cotangent.to_token_stream());
        self.piece(quote! {
            let #cotangent = (#(::ad_runtime::__private::take(&mut __adj[#slots]),)*);
            #backprop
        });
    }

    fn float_local(&mut self, name: &Ident, mutability: Option<&syn::token::Mut>, node: &Node) {
        let value = node.value();
        self.emit(quote!(let #mutability #name = #value;));
        let slot = self.slot();
        self.bind(name.clone(), Binding::Float(slot));
        self.assignment_piece(slot, node);
    }

    /// A `let` whose value is not a float. A control-flow initializer is lowered as a
    /// construct (it may assign floats inside); anything else runs as written.
    fn data_local(&mut self, local: &syn::Local) {
        let pat = &local.pat;
        match &local.init {
            Some(init) if self.may_be_float(&init.expr) => {
                self.error(
                    pat,
                    "reverse mode cannot bind floats with this pattern yet; bind each float to \
                     its own name",
                );
                let mut stmt = local.clone();
                self.retype().visit_local_mut(&mut stmt);
                self.emit(stmt.to_token_stream());
            }
            Some(init) if init.diverge.is_none() && is_control_flow(&init.expr) => {
                let result = self.fresh("r");
                self.emit(quote!(let #result;));
                self.control_flow(&init.expr, ResultVar::Data(result.clone()));
                let pat = self.retype_pattern(pat);
                self.emit(quote!(let #pat = #result;));
            }
            Some(init) => {
                self.check_native(&init.expr);
                if let Some((_, diverge)) = &init.diverge {
                    self.check_native(diverge);
                }
                let mut stmt = local.clone();
                let mut retype = self.retype();
                retype.visit_local_mut(&mut stmt);
                self.emit(stmt.to_token_stream());
            }
            None => {
                let mut stmt = local.clone();
                self.retype().visit_local_mut(&mut stmt);
                self.emit(stmt.to_token_stream());
            }
        }
        let binds_floats = local
            .init
            .as_ref()
            .is_some_and(|init| self.may_be_float(&init.expr));
        for name in pattern_names(&local.pat) {
            // A refused float pattern still binds floats, so that later uses are not reported
            // again as misuses of data.
            let binding = if binds_floats {
                Binding::Float(self.slot())
            } else {
                Binding::Data
            };
            self.bind(name, binding);
        }
    }

    /// `let q = &p.inner;`, `let Point { x, y } = *p;`: names for a `#[grad]` value or its
    /// parts, each with its index twin.
    fn shaped_local(&mut self, local: &syn::Local) {
        let init = local.init.as_ref().expect("a local with a value");
        let (vector, indices) = self.shaped_part(&init.expr).expect("checked by the caller");
        if init.diverge.is_some() {
            self.error(
                local,
                "reverse mode matches a #[grad] value with `match`, not `let .. else`",
            );
            return;
        }
        if let Pat::Ident(name) = strip_pattern_type(&local.pat) {
            if name.subpat.is_none() {
                let value = self.native_unchecked(&init.expr);
                let binding = &name.ident;
                self.emit(quote!(let #binding = #value;));
                self.bind(
                    binding.unraw(),
                    Binding::Shaped {
                        vector,
                        indices: quote!((#indices)),
                    },
                );
                return;
            }
        }
        let value = self.native_unchecked(&init.expr);
        let pattern = self.retype_pattern(&local.pat);
        let (index_pattern, names) = self.index_pattern(&local.pat);
        self.emit(quote! {
            let #pattern = #value;
            let (#index_pattern) = &(#indices) else {
                ::core::unreachable!("an index twin has the shape of its value")
            };
        });
        let mutable = mutable_bindings(&local.pat);
        for (name, index) in names {
            self.bind(
                name.clone(),
                Binding::Shaped {
                    vector,
                    indices: quote!(#index),
                },
            );
            // `let [mut x, mut y] = p.position;`: a float copied out to be changed is a float
            // variable of its own from here.
            if mutable.contains(&name) {
                let place: Expr = syn::parse_quote!(#name);
                let node = self.part(
                    &quote!(::ad_runtime::__private::ValueProbe(#name).__ad_value()),
                    &place,
                );
                let token = syn::token::Mut::default();
                self.float_local(&name, Some(&token), &node);
            }
        }
    }

    /// The pattern that matches a `#[grad]` value's index twin alongside it: the same shape
    /// over `usize`, each name `x` bound as `__ad_idx_x`, literals and ranges as `_`. Returns it
    /// and each name with its index name.
    fn index_pattern(&self, pat: &Pat) -> (TokenStream, Vec<(Ident, Ident)>) {
        struct Renamer<'g, 'a> {
            generator: &'g Generator<'a>,
            names: Vec<(Ident, Ident)>,
        }
        impl VisitMut for Renamer<'_, '_> {
            fn visit_pat_mut(&mut self, pat: &mut Pat) {
                let usize_type = quote!(::ad_runtime::__private::Index);
                self.generator
                    .locals
                    .user_types
                    .rewrite_pattern(pat, &usize_type);
                match pat {
                    // `None`, `MAX`: a unit variant or a constant, not a binding.
                    Pat::Ident(ident)
                        if ident.subpat.is_none()
                            && ident
                                .ident
                                .to_string()
                                .starts_with(|c: char| c.is_ascii_uppercase()) => {}
                    Pat::Ident(ident) => {
                        let name = ident.ident.unraw();
                        let index = names::derived("__ad_idx_", &name);
                        self.names.push((name, index.clone()));
                        ident.by_ref = None;
                        ident.mutability = None;
                        ident.ident = index;
                        if let Some((_, sub)) = &mut ident.subpat {
                            self.visit_pat_mut(sub);
                        }
                    }
                    Pat::Lit(_) | Pat::Range(_) | Pat::Const(_) => {
                        *pat = syn::parse_quote!(_);
                    }
                    Pat::Type(typed) => {
                        let inner = (*typed.pat).clone();
                        *pat = inner;
                        self.visit_pat_mut(pat);
                    }
                    // `Node { value, .. }` binds `value`; renamed, the field is written out.
                    Pat::Struct(structure) => {
                        for field in structure.fields.iter_mut() {
                            field.colon_token.get_or_insert_with(Default::default);
                            self.visit_pat_mut(&mut field.pat);
                        }
                    }
                    _ => syn::visit_mut::visit_pat_mut(self, pat),
                }
            }
        }
        let mut renamer = Renamer {
            generator: self,
            names: Vec::new(),
        };
        let mut pat = pat.clone();
        renamer.visit_pat_mut(&mut pat);
        (pat.to_token_stream(), renamer.names)
    }

    fn retype_pattern(&self, pat: &Pat) -> TokenStream {
        let mut pat = pat.clone();
        self.retype().visit_pat_mut(&mut pat);
        pat.to_token_stream()
    }

    /// The backward of `x = node`: the adjoint of `x` is complete here; hand it to the node.
    /// The backward of `place += e` (or `-=`) given the cotangent of the place's new value,
    /// which is also its old value's: that adjoint stays where it is (rather than being taken
    /// and added back), and only `e` takes its share. `None` for the other operators.
    fn passed_through(
        &mut self,
        op: &BinOp,
        node: &Node,
        cotangent: &Ident,
    ) -> Option<TokenStream> {
        if !matches!(op, BinOp::AddAssign(_) | BinOp::SubAssign(_)) {
            return None;
        }
        let Node::Op {
            pullback,
            children,
            lazy,
            ..
        } = node
        else {
            return None;
        };
        let result = self.fresh("c");
        let right = self.backprop(&children[1], quote!(#result.1));
        let build = lazy.as_ref().map(|lazy| quote!(let #pullback = #lazy;));
        Some(quote! {
            #build
            let #result = ::ad_runtime::linear::LinearMap::reverse_apply(&#pullback, #cotangent);
            #right
        })
    }

    fn assignment_piece(&mut self, slot: usize, node: &Node) {
        let cotangent = self.fresh("ct");
        let backprop = self.backprop(node, cotangent.to_token_stream());
        self.piece(quote! {
            let #cotangent = ::ad_runtime::__private::take(&mut __adj[#slot]);
            #backprop
        });
    }

    fn expression_statement(&mut self, expr: &Expr) {
        if expression_checkpoint(expr).is_some() {
            return self.checkpointed_statement(expr);
        }
        match expr {
            Expr::Assign(assign) => self.assign(assign),
            Expr::Binary(binary) if compound_rule(&binary.op).is_some() => {
                self.compound_assign(binary)
            }
            Expr::Return(ret) => self.exit_return(ret),
            Expr::Break(brk) => self.exit_break(brk),
            Expr::Continue(cont) => self.exit_continue(cont),
            Expr::MethodCall(call)
                if call.method == "push" && self.vector_of(&call.receiver).is_some() =>
            {
                let vector = self.vector_of(&call.receiver).expect("checked");
                self.push(call, vector);
            }
            Expr::MethodCall(call)
                if call.method == "push" && self.names_nested(&call.receiver) =>
            {
                match self.nested_binding(&call.receiver) {
                    Some((vector, offsets, true)) => self.push_row(call, vector, offsets),
                    _ => self.error(
                        call,
                        "reverse mode pushes rows only onto containers of containers built in \
                         the body (`Vec::new()`, `vec![..]`), not onto parameters or copies of \
                         them, nor elements onto their rows; build a new container",
                    ),
                }
            }
            _ if is_control_flow(expr) => self.control_flow(expr, ResultVar::Discard),
            _ if self.may_be_float(expr) => {
                // Evaluated for its effects; its value (and derivative) is dropped.
                let node = self.lower(expr);
                let value = node.value();
                self.emit(quote!(let _ = #value;));
            }
            _ => {
                let native = self.native(expr);
                self.emit(quote!(#native;));
            }
        }
    }

    fn assign(&mut self, assign: &syn::ExprAssign) {
        if self.option_assign(assign) {
            return;
        }
        if self.shaped_part(&assign.left).is_some() {
            // Its floats' numbers are fixed where it is bound.
            self.error(
                &assign.left,
                "reverse mode reads a #[grad] value and the names bound to its parts, but does \
                 not assign them; walk the value by recursion (or use #[forward])",
            );
            return;
        }
        if let Expr::Index(index) = &*assign.left {
            if self.nested_row(&index.expr).is_some() {
                // As for primitives, the right side is evaluated before the place.
                let node = self.lower(&assign.right);
                let (vector, place, position) = self
                    .nested_element(index)
                    .expect("an element of a container of containers");
                return self.element_store(place, vector, position, node);
            }
            if self.row_binding(&index.expr).is_some() {
                self.error(
                    &assign.left,
                    "a row bound by `let row = &x[i];` is read-only; write the element as \
                     `x[i][j] = ..`",
                );
                return;
            }
            if let Some(vector) = self.vector_of(&index.expr) {
                let node = self.lower(&assign.right);
                let position = self.index_position(&index.index);
                let base = &index.expr;
                return self.element_store(quote!(#base[#position]), vector, position, node);
            }
        }
        if self.names_nested(&assign.left) {
            self.error(
                &assign.left,
                "reverse mode writes the elements of a container of containers (`x[i][j] = ..`) \
                 but does not replace its rows or the whole container; write the elements one \
                 by one (or use #[forward])",
            );
            return;
        }
        if let (Expr::Tuple(targets), Expr::Tuple(values)) = (&*assign.left, &*assign.right) {
            if targets.elems.len() == values.elems.len() && self.may_be_float(&assign.right) {
                return self.tuple_assign(targets, values);
            }
        }
        match self.float_variable(&assign.left) {
            Some((name, slot)) => {
                let node = self.lower(&assign.right);
                let value = node.value();
                self.emit(quote!(#name = #value;));
                self.assignment_piece(slot, &node);
            }
            None => {
                let whole = Expr::Assign(assign.clone());
                let native = if self.may_be_float(&assign.right) {
                    self.error(
                        &assign.left,
                        "reverse mode can only assign floats to plain variables yet; write to a \
                         local `f64` variable",
                    );
                    self.native_unchecked(&whole)
                } else {
                    self.native(&whole)
                };
                self.emit(quote!(#native;));
            }
        }
    }

    /// `(a, b) = (e1, e2);`: every value first, then each assignment. Backwards, every
    /// target's adjoint is taken before any value's is given: a value may read a target's old
    /// version (`(p, q) = (q, p)`), whose adjoint must not mix with the new one's.
    fn tuple_assign(&mut self, targets: &syn::ExprTuple, values: &syn::ExprTuple) {
        let operands: Vec<&Expr> = values.elems.iter().collect();
        let evaluated = self.lower_operands(&operands);
        let mut takes = TokenStream::new();
        let mut gives = TokenStream::new();
        for (target, node) in targets.elems.iter().zip(evaluated) {
            let name = match target {
                Expr::Path(path) => path.path.get_ident().cloned(),
                _ => None,
            };
            let value = node.value();
            match name.as_ref().map(|name| (name, self.lookup(name))) {
                Some((name, Some(Binding::Float(slot)))) => {
                    self.emit(quote!(#name = #value;));
                    let cotangent = self.fresh("ct");
                    takes.extend(quote! {
                        let #cotangent = ::ad_runtime::__private::take(&mut __adj[#slot]);
                    });
                    gives.extend(self.backprop(&node, cotangent.to_token_stream()));
                }
                Some((name, _)) if node.is_constant() => self.emit(quote!(#name = #value;)),
                _ => self.error(
                    target,
                    "reverse mode assigns tuples of floats to plain float variables only",
                ),
            }
        }
        self.piece(quote!(#takes #gives));
    }

    fn compound_assign(&mut self, binary: &syn::ExprBinary) {
        if let Expr::Index(index) = &*binary.left {
            let nested = self.nested_row(&index.expr).is_some();
            let flat = self.vector_of(&index.expr);
            if let (true, _) | (false, Some(_)) = (nested, flat) {
                let rule = compound_rule(&binary.op).expect("a compound assignment");
                // As for primitives, the right side is evaluated before the place.
                let right = self.lower(&binary.right);
                let right = if assigns(&binary.right) {
                    self.pin(right)
                } else {
                    right
                };
                // The element read and the element written are at the same place.
                let (old, place, vector) = if nested {
                    let (vector, place, position) = self
                        .nested_element(index)
                        .expect("an element of a container of containers");
                    let old = Node::Element {
                        value: self.read(place.clone()).to_token_stream(),
                        vector,
                        index: position,
                        again: None,
                        hoisted: None,
                    };
                    (old, place, vector)
                } else {
                    let old = self.lower_index(index);
                    let Node::Element {
                        index: position, ..
                    } = &old
                    else {
                        return;
                    };
                    let base = &index.expr;
                    let place = quote!(#base[#position]);
                    (old, place, flat.expect("a container of floats"))
                };
                let Node::Element {
                    index: position, ..
                } = &old
                else {
                    return;
                };
                let position = position.clone();
                let node = self.apply_rule(rule, vec![old, right], Vec::new(), binary.span());
                let value = node.value();
                self.emit(quote!(#place = #value;));
                let cotangent = self.fresh("ct");
                let backprop = match self.passed_through(&binary.op, &node, &cotangent) {
                    Some(right) => quote! {
                        let #cotangent = __adj.element_value(#vector, #position);
                        #right
                    },
                    None => {
                        let backprop = self.backprop(&node, cotangent.to_token_stream());
                        quote! {
                            let #cotangent = __adj.take_element(#vector, #position);
                            #backprop
                        }
                    }
                };
                self.piece(backprop);
                return;
            }
        }
        match self.float_variable(&binary.left) {
            Some((name, slot)) => {
                let rule = compound_rule(&binary.op).expect("a compound assignment");
                // As for primitives, the right side is evaluated before the place is read.
                let right = self.lower(&binary.right);
                let right = if assigns(&binary.right) {
                    self.pin(right)
                } else {
                    right
                };
                let left = Node::Var {
                    name: self.read(quote!(#name)),
                    slot,
                };
                let node = self.apply_rule(rule, vec![left, right], Vec::new(), binary.span());
                let value = node.value();
                self.emit(quote!(#name = #value;));
                let cotangent = self.fresh("ct");
                match self.passed_through(&binary.op, &node, &cotangent) {
                    Some(right) => self.piece(quote! {
                        let #cotangent = __adj[#slot];
                        #right
                    }),
                    None => self.assignment_piece(slot, &node),
                }
            }
            None => {
                if self.may_be_float(&binary.right) {
                    self.error(
                        &binary.left,
                        "reverse mode can only update floats held in plain variables yet",
                    );
                }
                let native = self.native(&Expr::Binary(binary.clone()));
                self.emit(quote!(#native;));
            }
        }
    }

    // ----- control flow -----

    fn control_flow(&mut self, expr: &Expr, result: ResultVar) {
        match expr {
            Expr::If(expr_if) => self.lower_if(expr_if, result),
            Expr::Match(expr_match) => self.lower_match(expr_match, result),
            Expr::Block(block) if block.label.is_none() => self.lower_block(&block.block, result),
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => self.lower_loop(expr, result),
            Expr::Paren(paren) => self.control_flow(&paren.expr, result),
            Expr::Group(group) => self.control_flow(&group.expr, result),
            Expr::Block(block) => self.error(
                &block.label,
                "labeled blocks are not supported in reverse mode yet; use a `loop` with \
                 `break 'label value`",
            ),
            _ => self.error(expr, "this construct is not supported in reverse mode yet"),
        }
    }

    /// Lowers `block` as a nested region: its forward code, then (in the forward code) the
    /// closure holding its backward pieces, as an expression.
    fn region(
        &mut self,
        bindings: Vec<(Ident, Binding)>,
        block: &Block,
        result: &ResultVar,
    ) -> TokenStream {
        self.frames.push(Frame::new(FrameKind::Nested));
        for (name, binding) in bindings {
            self.bind(name, binding);
        }
        let tail = self.block_statements(block);
        if let Some(tail) = tail {
            self.deliver(&tail, result);
        }
        let frame = self.frames.pop().expect("the region's frame");
        let forward = frame.forward;
        let pieces = frame.pieces.iter().rev();
        let adjoints = self.adjoints_type();
        quote! {
            #(#forward)*
            move |__adj: &mut #adjoints| { #(#pieces)* }
        }
    }

    /// Sends a block's tail value to where the construct's value goes.
    fn deliver(&mut self, tail: &Expr, result: &ResultVar) {
        if let Expr::Return(ret) = tail {
            return self.exit_return(ret);
        }
        if let Expr::Break(brk) = tail {
            return self.exit_break(brk);
        }
        if let Expr::Continue(cont) = tail {
            return self.exit_continue(cont);
        }
        match result {
            ResultVar::Float(name, slot) => {
                let node = self.lower(tail);
                let value = node.value();
                self.emit(quote!(#name = #value;));
                self.assignment_piece(*slot, &node);
            }
            ResultVar::Option(name, slot) => {
                let node = self.lower_option(tail);
                let value = node.value();
                self.emit(quote!(#name = #value;));
                self.assignment_piece(*slot, &node);
            }
            ResultVar::Shaped(name, vector) => {
                if is_control_flow(tail) {
                    return self.control_flow(tail, result.clone());
                }
                // Built (or named) here; its floats' adjoints are handed back to it, in the
                // same numbering, when the backward sweep reaches this branch.
                let held = match strip_parens(tail) {
                    Expr::Path(path) if path.path.get_ident().is_some() => path
                        .path
                        .get_ident()
                        .cloned()
                        .expect("checked by the guard"),
                    _ => {
                        let held = self.fresh("value");
                        self.statement(
                            &syn::parse_quote_spanned!(tail.span()=> let #held = #tail;),
                        );
                        held
                    }
                };
                let Some(Binding::Shaped { vector: source, .. }) = self.lookup(&held) else {
                    return self.error(
                        tail,
                        "reverse mode takes a value of a type that derives `Differentiable` from \
                         a branch when the branch builds it (`Shape::Circle(r)`, `Point { .. }`) \
                         or names a variable holding one",
                    );
                };
                let held = held.unraw();
                self.emit(quote!(#name = #held;));
                let cotangents = self.fresh("cts");
                self.piece(quote! {
                    let #cotangents = __adj.take_vector(#vector);
                    __adj.add_vector(#source, &#cotangents);
                });
            }
            ResultVar::Data(name) => {
                if is_control_flow(tail) {
                    let inner = self.fresh("r");
                    self.emit(quote!(let #inner;));
                    self.control_flow(tail, ResultVar::Data(inner.clone()));
                    self.emit(quote!(#name = #inner;));
                } else {
                    let native = self.native(tail);
                    self.emit(quote!(#name = #native;));
                }
            }
            ResultVar::Discard => self.expression_statement(tail),
        }
    }

    fn lower_block(&mut self, block: &Block, result: ResultVar) {
        let record = self.fresh("b");
        let region = self.region(Vec::new(), block, &result);
        self.emit(quote!(let #record = { #region };));
        self.piece(quote!(#record(__adj);));
    }

    fn lower_if(&mut self, expr_if: &syn::ExprIf, result: ResultVar) {
        if let Expr::Let(condition) = strip_parens(&expr_if.cond) {
            if self.shaped_part(&condition.expr).is_some() || self.is_option_let(condition) {
                // `if let P = v { a } else { b }` on a `#[grad]` value or an `Option` of
                // floats is `match v { P => a, _ => b }`.
                let pat = &condition.pat;
                let scrutinee = &condition.expr;
                let then_branch = &expr_if.then_branch;
                let otherwise = match &expr_if.else_branch {
                    Some((_, else_expr)) => quote!(#else_expr),
                    None => quote!({}),
                };
                let desugared: syn::ExprMatch = syn::parse_quote_spanned!(expr_if.span()=>
                    match #scrutinee { #pat => #then_branch, _ => #otherwise }
                );
                return self.lower_match(&desugared, result);
            }
        }
        let record = self.fresh("b");
        let (condition, bindings) = self.condition(&expr_if.cond);
        let bindings = bindings
            .into_iter()
            .map(|name| (name, Binding::Data))
            .collect();
        let then_region = self.region(bindings, &expr_if.then_branch, &result);
        let else_region = match &expr_if.else_branch {
            Some((_, else_expr)) => {
                let block: Block = match &**else_expr {
                    Expr::Block(block) if block.label.is_none() => block.block.clone(),
                    other => block_of(other),
                };
                self.region(Vec::new(), &block, &result)
            }
            None => {
                let adjoints = self.adjoints_type();
                quote!(move |__adj: &mut #adjoints| {})
            }
        };
        self.emit(quote! {
            let #record = if #condition {
                ::ad_runtime::__private::Branch::First({ #then_region })
            } else {
                ::ad_runtime::__private::Branch::Second({ #else_region })
            };
        });
        self.piece(quote! {
            match #record {
                ::ad_runtime::__private::Branch::First(__ad_pullback) => __ad_pullback(__adj),
                ::ad_runtime::__private::Branch::Second(__ad_pullback) => __ad_pullback(__adj),
            }
        });
    }

    /// A condition runs as written; an `if let` binds data names in the branch.
    fn condition(&mut self, cond: &Expr) -> (TokenStream, Vec<Ident>) {
        // `let`s over `#[grad]` values, and over other floats (an `Option` of floats), in the
        // condition's own chain; an `if let` nested in it is an expression of its own.
        let (mut over_grad_value, mut over_floats) = (None, None);
        for expr in chain_lets(cond) {
            if self.shaped_part(&expr.expr).is_some() {
                over_grad_value.get_or_insert_with(|| Expr::Let(expr.clone()));
            } else if self.may_be_float(&expr.expr) {
                over_floats.get_or_insert_with(|| Expr::Let(expr.clone()));
            }
        }
        let bindings = let_bindings(cond);
        if let Some(found) = over_grad_value {
            self.error(
                found,
                "reverse mode takes a #[grad] value apart with `match` or a lone `if let`; \
                 write `match v { Pattern => .., _ => .. }`",
            );
        }
        if let Some(found) = over_floats {
            self.error(
                found,
                "reverse mode takes floats out of an `Option` with `match` or a lone `if let`, \
                 not in `while let` or a chain of conditions; write `match o { Some(v) => .., \
                 None => .. }` (in a `loop` for a `while let`)",
            );
            return (self.native_unchecked(cond), bindings);
        }
        (self.native(cond), bindings)
    }

    fn lower_match(&mut self, expr_match: &syn::ExprMatch, result: ResultVar) {
        let record = self.fresh("b");
        let shaped = self.shaped_part(&expr_match.expr);
        let option = match shaped {
            Some(_) => None,
            None => self.option_scrutinee(expr_match),
        };
        if shaped.is_none() && option.is_none() && self.may_be_float(&expr_match.expr) {
            let message = if self.mentions_option(&expr_match.expr) {
                options::ONE_OPTION_AT_A_TIME
            } else {
                "reverse mode cannot match on a float; compare with `if` instead"
            };
            self.error(&expr_match.expr, message);
        }
        let scrutinee = if let Some((value, _)) = &option {
            value.to_token_stream()
        } else if let Some((_, indices)) = &shaped {
            // A `#[grad]` value is matched with its index twin, so that each name the pattern
            // binds has the numbers of its floats at hand. The value is matched as written
            // (its bindings by value or by reference as the user's are), the index twin in each
            // arm.
            let _ = indices;
            self.native_unchecked(&expr_match.expr)
        } else if self.may_be_float(&expr_match.expr) {
            self.native_unchecked(&expr_match.expr)
        } else {
            self.native(&expr_match.expr)
        };
        let count = expr_match.arms.len();
        let mut arms = Vec::new();
        for (index, arm) in expr_match.arms.iter().enumerate() {
            let pat = self.retype_pattern(&arm.pat);
            let mut index_binding = TokenStream::new();
            let body = &arm.body;
            let mut block: Block = block_of(body);
            let (pat, bindings) = match &shaped {
                None if option.is_some() => {
                    let slot = option.as_ref().map_or(0, |(_, slot)| *slot);
                    let (pat, bindings, copies) = self.option_arm(arm, slot);
                    block = copies;
                    (pat, bindings)
                }
                Some((vector, indices)) => {
                    let (index_pat, names) = self.index_pattern(&arm.pat);
                    index_binding = quote! {
                        let (#index_pat) = &(#indices) else {
                            ::core::unreachable!("an index twin has the shape of its value")
                        };
                    };
                    let bindings = names
                        .into_iter()
                        .map(|(name, indices)| {
                            let binding = Binding::Shaped {
                                vector: *vector,
                                indices: quote!(#indices),
                            };
                            (name, binding)
                        })
                        .collect();
                    (pat, bindings)
                }
                None => (
                    pat,
                    pattern_names(&arm.pat)
                        .into_iter()
                        .map(|name| (name, Binding::Data))
                        .collect(),
                ),
            };
            let guard = arm.guard.as_ref().map(|(if_token, guard)| {
                let guard = self.native(guard);
                quote!(#if_token #guard)
            });
            let region = self.region(bindings, &block, &result);
            let wrapped = nest_branch(index, count, quote!({ #index_binding #region }));
            arms.push(quote!(#pat #guard => { #wrapped }));
        }
        self.emit(quote! {
            let #record = match #scrutinee { #(#arms)* };
        });
        let dispatch = dispatch_branches(count, &record);
        self.piece(dispatch);
    }

    fn lower_loop(&mut self, expr: &Expr, result: ResultVar) {
        if let Expr::ForLoop(for_loop) = expr {
            if let Some(desugared) = self.desugar_indexed_iteration(for_loop) {
                return self.lower_loop(&desugared, result);
            }
        }
        let (user_label, body) = match expr {
            Expr::ForLoop(l) => (l.label.as_ref().map(|l| l.name.clone()), &l.body),
            Expr::While(l) => (l.label.as_ref().map(|l| l.name.clone()), &l.body),
            Expr::Loop(l) => (l.label.as_ref().map(|l| l.name.clone()), &l.body),
            _ => unreachable!("lower_loop is called on loops"),
        };
        let record = self.fresh("rec");
        let label = user_label.clone().unwrap_or_else(|| {
            self.counter += 1;
            Lifetime::new(&format!("'__ad_loop{}", self.counter), Span::call_site())
        });
        let boxed = has_exits_to(body, &label, user_label.is_some());
        // Where this loop's pullbacks go (its place among the pools of the loop around it),
        // and the pools of the loops that will be nested in it.
        let root = self.fresh("pools");
        let mut pooled_in = None;
        let mut depth = 1;
        let pool = (!boxed).then(|| match self.frames.last_mut() {
            Some(Frame {
                kind:
                    FrameKind::Loop {
                        pool: Some(parent),
                        env,
                        ..
                    },
                ..
            }) => {
                let index = syn::Index::from(parent.children.len());
                parent.children.push(TokenStream::new());
                let nested = &parent.nested;
                pooled_in = Some((quote!(#nested.#index.0), index.clone()));
                depth += env.as_ref().map_or(0, |env| env.depth);
                Pool {
                    nested: quote!(#nested.#index.1),
                    children: Vec::new(),
                }
            }
            _ => Pool {
                nested: quote!(#root),
                children: Vec::new(),
            },
        });
        let this_frame = self.frames.len();
        let mut reserve = None;
        let mut element_bindings: Vec<(Ident, Binding, TokenStream)> = Vec::new();
        let mut position_name = None;
        let mut count_again = None;
        // The loop's counter: its value in the forward code, the generated counter of a loop
        // over containers, its first value for the backward code of the loop around, and
        // the scope sites naming it.
        let mut counter: Option<(TokenStream, Option<Ident>, TokenStream)> = None;
        let (header, bindings) = match expr {
            Expr::ForLoop(l) if self.container_iteration(&l.expr, &l.pat).is_some() => {
                let (sources, position, elements) =
                    self.container_iteration(&l.expr, &l.pat).expect("checked");
                let index = self.fresh("k");
                let count = self.fresh("n");
                let lengths = sources.iter().map(|(source, _)| quote!(#source.len()));
                self.emit(quote! {
                    let #count: usize = [#(#lengths),*].into_iter().min().unwrap_or(0);
                });
                let iterator = self.fresh("iter");
                self.emit(quote!(let #iterator = 0..#count;));
                reserve = Some(iterator.clone());
                counter = Some((quote!(#index), Some(index.clone()), quote!(0usize)));
                if let Some(position) = position {
                    position_name = Some(position.clone());
                    element_bindings.push((
                        position.clone(),
                        Binding::Data,
                        quote!(let #position = #index;),
                    ));
                }
                // Every element is read before any name is bound: a name may shadow the other
                // container (`for (v, b) in x.iter().zip(v.iter())`).
                let mut renames = Vec::new();
                for ((source, _), (name, by_value)) in sources.iter().zip(&elements) {
                    let temporary = self.fresh("element");
                    element_bindings.push((
                        temporary.clone(),
                        Binding::Data,
                        if *by_value {
                            quote!(let #temporary = #source[#index];)
                        } else {
                            quote!(let #temporary = &#source[#index];)
                        },
                    ));
                    renames.push((name.clone(), temporary));
                }
                for (((_, vector), (name, by_value)), (_, temporary)) in
                    sources.iter().zip(elements).zip(renames)
                {
                    let access = quote!(let #name = #temporary;);
                    let binding = match vector {
                        Some(vector) => Binding::Element {
                            vector: *vector,
                            index: index.clone(),
                            by_value,
                        },
                        None => Binding::Data,
                    };
                    element_bindings.push((name, binding, access));
                }
                (quote!(for #index in #iterator), Vec::new())
            }
            Expr::ForLoop(l) => {
                if self.names_nested(&l.expr) {
                    self.error(&l.expr, NESTED_ELEMENT_BY_ELEMENT);
                } else if self.may_be_float(&l.expr) {
                    self.error(&l.expr, "reverse mode cannot iterate over floats yet");
                }
                let pat = self.retype_pattern(&l.pat);
                // The iterator is made before the record, which reserves its length.
                let iterator = self.fresh("iter");
                match counted_range(l) {
                    Some((name, range, start)) if !boxed => {
                        // `for j in a..b`: the counter of iteration `t` is `a + t`.
                        let first = self.fresh("first");
                        let start_value = self.native(start);
                        let end = range.end.as_ref().map(|end| {
                            let end = self.native(end);
                            quote!((#end))
                        });
                        let limits = &range.limits;
                        self.emit(quote! {
                            let #first = #start_value;
                            let #iterator = ::core::iter::IntoIterator::into_iter(#first #limits #end);
                        });
                        let first_again = self.recompute(start);
                        // When the loop around can compute both ends, it need not keep how many
                        // iterations ran.
                        // Ends of literals alone would leave the count's integer type to
                        // fallback (`i32`), not to the loop's.
                        let named = |expr: &Expr| mentions_any_name(expr);
                        let end_again = range
                            .end
                            .as_ref()
                            .filter(|end| named(start) || named(end))
                            .and_then(|end| self.recompute(end));
                        if let (Some(first), Some(end)) = (&first_again, end_again) {
                            count_again = Some(match range.limits {
                                syn::RangeLimits::HalfOpen(_) => quote! {
                                    ::ad_runtime::__private::Counter::count_to(#first, #end)
                                },
                                syn::RangeLimits::Closed(_) => quote! {
                                    ::ad_runtime::__private::Counter::count_through(#first, #end)
                                },
                            });
                        }
                        let first_backward = first_again.unwrap_or(quote!(#first));
                        counter = Some((quote!(#name), None, first_backward));
                    }
                    _ => {
                        let iter = self.native(&l.expr);
                        self.emit(quote! {
                            let #iterator = ::core::iter::IntoIterator::into_iter(#iter);
                        });
                    }
                }
                reserve = Some(iterator.clone());
                (quote!(for #pat in #iterator), pattern_names(&l.pat))
            }
            Expr::While(l) => {
                let (cond, bindings) = self.condition(&l.cond);
                (quote!(while #cond), bindings)
            }
            _ => (quote!(loop), Vec::new()),
        };
        let env = (!boxed).then(|| {
            let iterator = counter.as_ref().and(reserve.clone());
            let (counter_forward, counter_ident, counter_first) = match counter {
                Some((forward, ident, first)) => (Some(forward), ident, first),
                None => (None, None, quote!(())),
            };
            let running = self.running_indices(body, expr);
            Box::new(LoopEnv {
                depth,
                number_used: false,
                running,
                hoisted: Vec::new(),
                iterator,
                looped: expr.clone(),
                // A range loop binds its counter first.
                counter_sites: if counter_forward.is_some() && counter_ident.is_none() {
                    vec![(this_frame, 0)]
                } else {
                    Vec::new()
                },
                counter_used: false,
                counter_forward,
                counter_ident,
                counter_first,
                own: self.fresh("own"),
                around: pooled_in.is_none().then(|| {
                    Box::new(AroundLoops {
                        tuple: self.fresh("around"),
                        names: Vec::new(),
                        looped: expr.clone(),
                    })
                }),
            })
        });
        self.frames.push(Frame::new(FrameKind::Loop {
            label: label.clone(),
            user_label,
            record: record.clone(),
            result,
            pool,
            env,
        }));
        for name in bindings {
            self.bind(name, Binding::Data);
        }
        for (name, binding, access) in element_bindings {
            self.emit(access);
            if position_name.as_ref() == Some(&name) {
                let site = (this_frame, self.frame().scope.len());
                if let Some(env) = self.frame().env_mut() {
                    env.counter_sites.push(site);
                }
            }
            self.bind(name, binding);
        }
        if let Some(tail) = self.block_statements(body) {
            self.expression_statement(&tail);
        }
        let frame = self.frames.pop().expect("the loop's frame");
        let FrameKind::Loop { pool, env, .. } = frame.kind else {
            unreachable!("the loop's frame is a loop frame")
        };
        let mut forward = frame.forward;
        let pieces = frame.pieces.iter().rev();
        let prologue = frame.prologue.iter().map(|(_, line)| line);
        let adjoints = self.adjoints_type();
        let loop_record = self.fresh("l");
        let has_children = pool.as_ref().is_some_and(|pool| !pool.children.is_empty());
        // An iteration pullback that reads nothing of its iteration's forward code (only the
        // adjoints, its pools and the loop environment).
        let mut keeps_nothing = None;
        // A loop over a range runs as many iterations as its iterator's size hint says: room
        // for their pullbacks is made before it, and pushing needs no call that returns.
        let range_iterator = env.as_ref().and_then(|env| env.iterator.clone());
        // Each iteration's pullback takes the pools of the loops nested in it and the loop
        // environment (both typed from the forward code's own).
        let closure = match &env {
            Some(env) => {
                let pools = match &pool {
                    Some(pool) if has_children => pool.nested.clone(),
                    _ => quote!(()),
                };
                let own = &env.own;
                let counter = match (&env.counter_forward, env.counter_used) {
                    (Some(counter), true) => counter.clone(),
                    _ => quote!(()),
                };
                // Only the type matters here: the forward code never reads it.
                let number = if env.number_used {
                    quote!(0usize)
                } else {
                    quote!(())
                };
                let entries = env.running.iter().map(|running| {
                    let entry = &running.entry;
                    if running.used {
                        quote!(#entry)
                    } else {
                        quote!(())
                    }
                });
                let hoisted = env.hoisted.iter().map(|hoisted| &hoisted.value);
                forward.insert(
                    0,
                    quote!(let #own = (#counter, #number, (#(#entries,)*), (#(#hoisted,)*));),
                );
                let witness = self.env_witness(env);
                let scalar = self.scalar();
                let zeros = env.hoisted.iter().map(|_| self.sum_start());
                let pullback = quote! {
                    move |__adj: &mut #adjoints, __ad_pools, __ad_env| {
                        #[allow(unused_mut)]
                        let mut __ad_hoisted_cotangents = (#(#zeros,)*);
                        #(#prologue)*
                        #(#pieces)*
                        __ad_hoisted_cotangents
                    }
                };
                if captures::captures_nothing(&pullback, &scalar.to_token_stream()) {
                    keeps_nothing = Some(pullback.clone());
                }
                quote!(::ad_runtime::__private::loop_pullback(&#pools, &#witness, #pullback))
            }
            None => quote!(move |__adj: &mut #adjoints| { #(#pieces)* }),
        };
        // The part of the environment this iteration's pullback is handed, from `__ad_t`, the
        // iteration's number.
        let mut iteration_number = quote!(_);
        let mut own_backward = quote!(());
        if let Some(env) = &env {
            let counter = if env.counter_used {
                let first = &env.counter_first;
                quote!(::ad_runtime::__private::Counter::nth(#first, __ad_t))
            } else {
                quote!(())
            };
            let number = if env.number_used {
                quote!(__ad_t)
            } else {
                quote!(())
            };
            if env.counter_used || env.number_used {
                iteration_number = quote!(__ad_t);
            }
            let entries = env.running.iter().map(|running| {
                if running.used {
                    running.entry_backward.clone()
                } else {
                    quote!(())
                }
            });
            let hoisted = env.hoisted.iter().map(|hoisted| &hoisted.value);
            own_backward = quote!((#counter, #number, (#(#entries,)*), (#(#hoisted,)*)));
            if let Some(iterator) = &env.iterator {
                for hoisted in &env.hoisted {
                    let Hoisted {
                        value,
                        position,
                        container,
                        index,
                        ..
                    } = hoisted;
                    self.emit(quote! {
                        let (#value, #position) =
                            if ::core::iter::Iterator::size_hint(&#iterator).1 == Some(0) {
                                (::ad_runtime::Scalar::zero(), 0usize)
                            } else {
                                let __ad_position: usize = #index;
                                (#container[__ad_position], __ad_position)
                            };
                    });
                }
            }
            // Each running index's value when the loop starts.
            for running in env.running.iter().filter(|running| running.used) {
                let (entry, name) = (&running.entry, &running.name);
                self.emit(quote!(let #entry = #name;));
            }
        }
        let counter_backward = own_backward;
        if let Some((records, index)) = pooled_in {
            let pool = pool.expect("a pooled loop has pools");
            let children = &pool.children;
            let own_pool = if keeps_nothing.is_some() {
                quote!(())
            } else {
                quote!(::ad_runtime::__private::PullbackPool::new())
            };
            if let Some(FrameKind::Loop {
                pool: Some(parent), ..
            }) = self.frames.last_mut().map(|frame| &mut frame.kind)
            {
                parent.children[index.index as usize] = quote!((#own_pool, (#(#children,)*)));
            }
            let count = count_again.unwrap_or(quote!(#loop_record));
            let [start_sums, add_sums, end_sums] = self.hoisted_sums(env.as_deref(), &count);
            if let Some(pullback) = keeps_nothing {
                // The forward code counts the iterations; the backward code builds the one
                // pullback they share and runs it once per iteration.
                let iterations = self.fresh("iterations");
                self.emit(quote! {
                    let #loop_record = {
                        let mut #iterations = 0usize;
                        #label: #header {
                            #(#forward)*
                            #iterations += 1;
                        }
                        #iterations
                    };
                });
                self.piece(quote! {
                    #start_sums
                    let __ad_pullback = {
                        let __ad_t = 0usize;
                        ::ad_runtime::__private::loop_pullback(
                            &__ad_pools.#index.1,
                            &(__ad_env, #counter_backward),
                            #pullback,
                        )
                    };
                    let __ad_sums = ::ad_runtime::__private::fold_count(
                        #count,
                        __ad_sums,
                        |#[allow(unused_mut)] mut __ad_sums, #iteration_number| {
                            let __ad_returned = __ad_pullback(
                                __adj,
                                &mut __ad_pools.#index.1,
                                (__ad_env, #counter_backward),
                            );
                            #add_sums
                            __ad_sums
                        },
                    );
                    #end_sums
                });
                return;
            }
            let start = self.fresh("start");
            let (make_room, push) = match &range_iterator {
                Some(iterator) => (
                    quote!(#records.make_room(::core::iter::Iterator::size_hint(&#iterator).1);),
                    quote!(push_in_room),
                ),
                None => (TokenStream::new(), quote!(push)),
            };
            self.emit(quote! {
                let #loop_record = {
                    let #start = #records.len();
                    #make_room
                    #label: #header {
                        #(#forward)*
                        #records.#push(#closure);
                    }
                    #records.len() - #start
                };
            });
            let fields = (0..env.as_ref().map_or(0, |env| env.hoisted.len())).map(syn::Index::from);
            let combine_sums = quote!(|__ad_a, __ad_b| (#(__ad_a.#fields + __ad_b.#fields,)*));
            self.piece(quote! {
                #start_sums
                let __ad_sums = __ad_pools.#index.0.fold_back(
                    #count,
                    __ad_sums,
                    |#[allow(unused_mut)] mut __ad_sums, #iteration_number, __ad_pullback| {
                        let __ad_returned = __ad_pullback(
                            __adj,
                            &mut __ad_pools.#index.1,
                            (__ad_env, #counter_backward),
                        );
                        #add_sums
                        __ad_sums
                    },
                    #combine_sums,
                );
                #end_sums
            });
            return;
        }
        let push = if boxed {
            quote!(#record.push(::std::boxed::Box::new(#closure));)
        } else if range_iterator.is_some() {
            quote!(::ad_runtime::__private::push_in_room(&mut #record, #closure);)
        } else {
            quote!(#record.push(#closure);)
        };
        let record_type = if boxed {
            quote!(: ::std::vec::Vec<::std::boxed::Box<dyn ::core::ops::FnOnce(&mut #adjoints)>>)
        } else {
            TokenStream::new()
        };
        let reserve_capacity = match (&range_iterator, reserve) {
            (Some(iterator), _) => Some(quote! {
                ::ad_runtime::__private::make_room(
                    &mut #record,
                    ::core::iter::Iterator::size_hint(&#iterator).1,
                );
            }),
            (None, Some(iterator)) => {
                Some(quote!(#record.reserve(::core::iter::Iterator::size_hint(&#iterator).0);))
            }
            (None, None) => None,
        };
        if has_children {
            let children = &pool.as_ref().expect("checked").children;
            self.emit(quote!(let mut #root = (#(#children,)*);));
        }
        if let Some(around) = env.as_ref().and_then(|env| env.around.as_ref()) {
            let tuple = &around.tuple;
            let names = around.names.iter().map(|(_, name)| name);
            self.emit(quote!(let #tuple = (#(#names,)*);));
        }
        self.emit(quote! {
            let #loop_record = {
                let mut #record #record_type = ::std::vec::Vec::new();
                #reserve_capacity
                #label: #header {
                    #(#forward)*
                    #push
                }
                #record
            };
        });
        let run = match env.as_ref().and_then(|env| env.around.as_ref()) {
            Some(around) => {
                let tuple = &around.tuple;
                let pools = if has_children {
                    quote!(#root)
                } else {
                    quote!(())
                };
                let count = self.fresh("count");
                let [start_sums, add_sums, end_sums] =
                    self.hoisted_sums(env.as_deref(), &quote!(#count));
                quote! {
                    let #count = #loop_record.len();
                    #start_sums
                    for (#iteration_number, __ad_pullback) in
                        #loop_record.into_iter().enumerate().rev()
                    {
                        let __ad_returned =
                            __ad_pullback(__adj, &mut #pools, (#tuple, #counter_backward));
                        #add_sums
                    }
                    #end_sums
                }
            }
            None => quote! {
                for __ad_pullback in #loop_record.into_iter().rev() {
                    __ad_pullback(__adj);
                }
            },
        };
        self.piece(run);
    }

    // ----- exits (checkpoints: `checkpoints.rs`) -----

    fn find_loop(&self, label: Option<&Lifetime>) -> Option<(Lifetime, Ident, ResultVar)> {
        for frame in self.frames.iter().rev() {
            if let FrameKind::Loop {
                label: own,
                user_label,
                record,
                result,
                ..
            } = &frame.kind
            {
                let matches = match label {
                    None => true,
                    Some(wanted) => user_label.as_ref() == Some(wanted),
                };
                if matches {
                    return Some((own.clone(), record.clone(), result.clone()));
                }
            }
        }
        None
    }

    fn exit_break(&mut self, brk: &syn::ExprBreak) {
        let Some((label, record, result)) = self.find_loop(brk.label.as_ref()) else {
            self.error(
                brk,
                "reverse mode supports `break` only inside loops (not labeled blocks)",
            );
            return;
        };
        if let Some(value) = &brk.expr {
            self.deliver(value, &result);
        }
        self.leave_iteration(&label, &record, quote!(break #label;));
    }

    /// Records the pullback of the part of the iteration that ran, then jumps.
    fn leave_iteration(&mut self, label: &Lifetime, record: &Ident, jump: TokenStream) {
        let composed = self.compose_prefix(Some(label));
        let adjoints = self.adjoints_type();
        self.emit(quote! {
            #record.push(::std::boxed::Box::new(move |__adj: &mut #adjoints| { #composed }));
            #jump
        });
    }

    fn exit_continue(&mut self, cont: &syn::ExprContinue) {
        let Some((label, record, _)) = self.find_loop(cont.label.as_ref()) else {
            self.error(cont, "`continue` outside a loop");
            return;
        };
        self.leave_iteration(&label, &record, quote!(continue #label;));
    }

    fn exit_return(&mut self, ret: &syn::ExprReturn) {
        let Some(value) = &ret.expr else {
            self.error(
                ret,
                "a differentiated function returns a float; write `return value`",
            );
            return;
        };
        let exit = self.exit_with(value);
        self.emit(exit);
    }

    // ----- expressions -----

    fn lower(&mut self, expr: &Expr) -> Node {
        if let Some(attrs) = expression_checkpoint(expr) {
            if !matches!(
                attr::checkpoint_args(self.cx, attrs),
                Some(CheckpointArgs::Region) | None
            ) {
                self.error(
                    expr,
                    "a checkpoint schedule applies to a loop statement; a loop used as a value \
                     takes a plain `#[checkpoint]`",
                );
            }
            let name = self.fresh("r");
            let slot = self.slot();
            self.emit(quote!(let mut #name;));
            let inner = without_own_checkpoint(expr);
            let block: Block = block_of(&inner);
            self.checkpointed_region(&block, ResultVar::Float(name.clone(), slot));
            return Node::Var { name, slot };
        }
        if self.is_data_constant(expr) {
            // Computed from data alone (`x * cfg.w[1]`, `f64::sin(cfg.lo)`): on plain floats,
            // then lifted.
            let scalar = self.scalar();
            return Node::Constant(quote! {
                ::ad_runtime::__private::LiftProbe::new(#expr).__ad_lift::<#scalar>()
            });
        }
        match expr {
            Expr::Paren(paren) => self.lower(&paren.expr),
            Expr::Group(group) => self.lower(&group.expr),
            Expr::Lit(_) => Node::Constant(self.native(expr)),
            Expr::Path(path) => match path.path.get_ident().and_then(|id| self.lookup(id)) {
                Some(Binding::Float(slot)) => {
                    let name = path.path.get_ident().cloned().expect("a name");
                    Node::Var {
                        name: self.read(quote!(#name)),
                        slot,
                    }
                }
                Some(Binding::Option(_)) => self.refuse(expr, options::OPTION_USES),
                Some(Binding::Element {
                    vector,
                    index,
                    by_value,
                }) => {
                    let name = path.path.get_ident().cloned().expect("a name");
                    self.recompute_counter(&index);
                    let value = if by_value {
                        quote!(#name)
                    } else {
                        quote!((*#name))
                    };
                    Node::Element {
                        value: self.read(value).to_token_stream(),
                        vector,
                        index,
                        again: None,
                        hoisted: None,
                    }
                }
                Some(Binding::Vector(vector)) => Node::Vector {
                    value: path.to_token_stream(),
                    vector,
                },
                // A row passed on whole: its elements' adjoints are consecutive.
                Some(Binding::Row { vector, start }) => {
                    let first = self.fresh("first");
                    self.emit(quote!(let #first = ::core::option::Option::Some(#start);));
                    Node::Shaped {
                        value: path.to_token_stream(),
                        vector,
                        first,
                    }
                }
                Some(Binding::Tuple(slots)) => {
                    let name = path.path.get_ident().cloned().expect("a name");
                    Node::Tuple {
                        value: self.read(quote!(#name)).to_token_stream(),
                        slots,
                    }
                }
                // A float bound by a pattern over a `#[grad]` value (`Cons(head, _)`), by
                // reference or by value.
                Some(Binding::Shaped { .. }) => {
                    let name = path.path.get_ident().cloned().expect("a name");
                    self.part(
                        &quote!(::ad_runtime::__private::ValueProbe(#name).__ad_value()),
                        expr,
                    )
                }
                // Passed on whole: its elements' adjoints are row after row from 0.
                Some(Binding::Nested { vector, .. }) => {
                    let first = self.fresh("first");
                    self.emit(quote!(let #first = ::core::option::Option::Some(0usize);));
                    Node::Shaped {
                        value: path.to_token_stream(),
                        vector,
                        first,
                    }
                }
                // Data (a `usize`, a float bound by a pattern over data, a constant): its
                // value, lifted to the scalar type when it is a float.
                _ => Node::Constant(self.data_value(expr)),
            },
            Expr::Index(index) if self.shaped_part(expr).is_some() => {
                self.part(&quote!(#index), expr)
            }
            Expr::Index(index) => self.lower_index(index),
            Expr::Field(field) if self.shaped_part(expr).is_some() => {
                self.part(&quote!(#field), expr)
            }
            Expr::Field(field) => match self.tuple_element(field) {
                Some(slot) => Node::Var {
                    name: self.read(quote!(#field)),
                    slot,
                },
                None if calls_generated_function(&field.base) => self.refuse(
                    expr,
                    "reverse mode cannot differentiate through a generated derivative function \
                     (`_jvp`, `_vjp`, `_grad`) yet",
                ),
                None if !self.may_be_float(&field.base) => Node::Constant(self.data_value(expr)),
                None => self.refuse(
                    expr,
                    "reverse mode follows fields of tuples of floats, of #[grad] parameters \
                     (types that derive `Differentiable`) and their parts, and of structs of \
                     such types built from floats in the body; not of this value (use \
                     #[forward], or pass it as a #[grad] parameter)",
                ),
            },
            Expr::Reference(reference)
                if reference.mutability.is_none() && self.nested_row(&reference.expr).is_some() =>
            {
                // `g(&x[i])`: a row passed on whole.
                let (vector, start) = self.row_of(expr).expect("a row of a nested container");
                let first = self.fresh("first");
                self.emit(quote!(let #first = ::core::option::Option::Some(#start);));
                Node::Shaped {
                    value: self.native_unchecked(expr),
                    vector,
                    first,
                }
            }
            Expr::Reference(reference) if reference.mutability.is_none() => {
                match self.lower(&reference.expr) {
                    Node::Vector { value, vector } => Node::Vector {
                        value: quote!(&#value),
                        vector,
                    },
                    Node::Shaped {
                        value,
                        vector,
                        first,
                    } => Node::Shaped {
                        value: quote!(&#value),
                        vector,
                        first,
                    },
                    Node::Constant(_) => Node::Constant(self.native(expr)),
                    _ => self.refuse(
                        expr,
                        "reverse mode passes references to whole containers only; pass the \
                         float itself",
                    ),
                }
            }
            // `b.id + 1`: an integer literal makes it integer arithmetic (Rust does not mix).
            Expr::Binary(binary)
                if is_integer_literal(&binary.left) || is_integer_literal(&binary.right) =>
            {
                Node::Constant(self.native(expr))
            }
            Expr::Binary(binary) => match arithmetic_rule(&binary.op) {
                // `e * e` of a variable or an element: read once, so that the backward code
                // keeps one value for the derivative `2 e`.
                Some("mul") if is_same_pure_place(&binary.left, &binary.right) => {
                    let operand = self.lower(&binary.left);
                    if operand.is_constant() {
                        return Node::Constant(self.native(expr));
                    }
                    self.apply_rule("mul", vec![operand.clone(), operand], Vec::new(), binary.span())
                }
                Some(rule) => {
                    let mut operands = self
                        .lower_operands(&[&binary.left, &binary.right])
                        .into_iter();
                    let (Some(left), Some(right)) = (operands.next(), operands.next()) else {
                        unreachable!("two operands")
                    };
                    if left.is_constant() && right.is_constant() {
                        let (l, r, op) = (left.value(), right.value(), &binary.op);
                        return Node::Constant(quote!((#l #op #r)));
                    }
                    self.apply_rule(rule, vec![left, right], Vec::new(), binary.span())
                }
                None => Node::Constant(self.native(expr)),
            },
            Expr::Unary(unary) => match unary.op {
                UnOp::Neg(_) => {
                    let inner = self.lower(&unary.expr);
                    if inner.is_constant() {
                        let value = inner.value();
                        return Node::Constant(quote!((-#value)));
                    }
                    self.apply_rule("neg", vec![inner], Vec::new(), unary.span())
                }
                // `*b.boxed`, `**head`: a float behind a `Box` of a `#[grad]` value.
                UnOp::Deref(_)
                    if matches!(&*unary.expr, Expr::Field(_) | Expr::Unary(_))
                        && self.shaped_part(expr).is_some() =>
                {
                    self.part(&quote!(#unary), expr)
                }
                UnOp::Deref(_) => match self.lower(&unary.expr) {
                    element @ (Node::Element { .. } | Node::Part { .. }) => element,
                    Node::Constant(_) => Node::Constant(self.data_value(expr)),
                    _ => self.refuse(
                        expr,
                        "reverse mode does not support references to floats yet",
                    ),
                },
                _ => {
                    self.error(
                        expr,
                        "reverse mode does not support references to floats yet",
                    );
                    Node::Constant(self.native(expr))
                }
            },
            Expr::Cast(cast) => {
                let to_float = float_of_type(&cast.ty).is_some();
                if to_float && self.may_be_float(&cast.expr) {
                    match self.lower(&cast.expr) {
                        // A name the analysis could not type (`let k = o.map_or(0, |f| f + 1);`)
                        // may hold an integer: the cast makes it a constant; a float passes.
                        Node::Var { name, slot } => {
                            let scalar = self.scalar();
                            let cast = quote! {
                                ::ad_runtime::__private::CastProbe::new(#name).__ad_cast::<#scalar>()
                            };
                            Node::Var {
                                name: self.read(cast),
                                slot,
                            }
                        }
                        node => node,
                    }
                } else {
                    Node::Constant(self.native(expr))
                }
            }
            Expr::MethodCall(call) => self.lower_method(call),
            Expr::Call(call) => self.lower_call(call),
            _ if is_control_flow(expr) => {
                let name = self.fresh("r");
                let slot = self.slot();
                self.emit(quote!(let mut #name;));
                self.control_flow(expr, ResultVar::Float(name.clone(), slot));
                Node::Var { name, slot }
            }
            Expr::Return(ret) => {
                self.exit_return(ret);
                Node::Constant(quote!(::core::unreachable!()))
            }
            Expr::Break(brk) => {
                self.exit_break(brk);
                Node::Constant(quote!(::core::unreachable!()))
            }
            Expr::Continue(cont) => {
                self.exit_continue(cont);
                Node::Constant(quote!(::core::unreachable!()))
            }
            Expr::Macro(_) => Node::Constant(self.native(expr)),
            Expr::Closure(_) => self.refuse(expr, "reverse mode takes a closure only when bound by `let` and called by name (it is inlined where it is called); write `let f = |t: f64| ...;` and call `f(x)`"),
            _ => self.refuse(
                expr,
                "reverse mode does not support this float expression yet: it follows scalars, \
                 tuples of floats, slices, `Vec`s and arrays held in variables, and #[grad] \
                 values of types that derive `Differentiable`; not sub-slices, references \
                 to floats, or values built here of other shapes",
            ),
        }
    }

    /// Lowers operands in order. When a later operand assigns a variable (`a * { a = 3.0 * a; a }`),
    /// each earlier operand's read is pinned to a slot of its own: that version of the variable
    /// is consumed after the next version exists, so their adjoints must not share a slot.
    fn lower_operands(&mut self, operands: &[&Expr]) -> Vec<Node> {
        let mut nodes = Vec::with_capacity(operands.len());
        for (position, operand) in operands.iter().enumerate() {
            let node = self.lower(operand);
            let later_assigns = operands[position + 1..].iter().any(|later| assigns(later));
            nodes.push(if later_assigns { self.pin(node) } else { node });
        }
        nodes
    }

    fn pin(&mut self, node: Node) -> Node {
        if node.is_constant() {
            return node;
        }
        let cotangent = self.fresh("ct");
        // The node's backward (for an operation, its whole subtree) runs here in the backward
        // sweep: after the later operand's assignments have been undone.
        let give = self.backprop(&node, cotangent.to_token_stream());
        let value = node.value();
        let slot = self.slot();
        let copy = self.fresh("pinned");
        self.emit(quote!(let #copy = #value;));
        self.piece(quote! {
            let #cotangent = ::ad_runtime::__private::take(&mut __adj[#slot]);
            #give
        });
        Node::Var { name: copy, slot }
    }

    /// The value of a variable (or element) as it is now: later operands of the same expression
    /// may assign it (`a * { a = 3.0 * a; a }`), and a tuple binding may rebind it.
    fn read(&mut self, value: TokenStream) -> Ident {
        let copy = self.fresh("read");
        self.emit(quote!(let #copy = #value;));
        copy
    }

    /// `x[i]` on a container variable: the index is kept for the backward sweep.
    fn lower_index(&mut self, index: &syn::ExprIndex) -> Node {
        let whole = Expr::Index(index.clone());
        if let Some((vector, place, position)) = self.nested_element(index) {
            return Node::Element {
                value: self.read(place).to_token_stream(),
                vector,
                index: position,
                again: None,
                hoisted: None,
            };
        }
        if let Some((vector, start)) = self.row_binding(&index.expr) {
            // `row[j]`: element `start + j` of the container of containers.
            let (column, position) = (self.fresh("column"), self.fresh("i"));
            let column_value = self.native(&index.index);
            self.emit(quote! {
                let #column: usize = #column_value;
                let #position: usize = #start + #column;
            });
            let base = &index.expr;
            return Node::Element {
                value: self.read(quote!(#base[#column])).to_token_stream(),
                vector,
                index: position,
                again: None,
                hoisted: None,
            };
        }
        let Some(vector) = self.vector_of(&index.expr) else {
            return if self.names_nested(&index.expr) {
                self.refuse(&whole, NESTED_ELEMENT_BY_ELEMENT)
            } else if let Some(Binding::Float(_)) = self.path_binding(&index.expr) {
                self.refuse(
                    &whole,
                    "reverse mode took this name for a float: when a call's result is bound \
                     to a name that is bound again elsewhere, write its type (`let y: Vec<f64> \
                     = g(x);`)",
                )
            } else if self.may_be_float(&index.expr) {
                self.refuse(
                    &whole,
                    "reverse mode indexes containers of floats held in variables (and their \
                     rows); bind this value to a name first (`let y = g(x);`, then `y[i]`)",
                )
            } else {
                Node::Constant(self.native(&whole))
            };
        };
        let position = self.index_position(&index.index);
        let base = &index.expr;
        let (again, hoisted) = match self.read_again(base, &position) {
            Some(again) => (Some(again), None),
            None => match self.hoist(base, vector, &index.index) {
                Some((again, place)) => (Some(again), Some(place)),
                None => (None, None),
            },
        };
        Node::Element {
            value: self.read(quote!(#base[#position])).to_token_stream(),
            vector,
            index: position,
            again,
            hoisted,
        }
    }

    /// The float variable a place names (`x` in `x = ..`, `x += ..`), with its slot.
    /// A place holding a float with a slot of its own: a float variable, or `t.0` of a tuple.
    fn float_variable(&self, place: &Expr) -> Option<(TokenStream, usize)> {
        if let Expr::Field(field) = place {
            return self
                .tuple_element(field)
                .map(|slot| (field.to_token_stream(), slot));
        }
        let Expr::Path(path) = place else {
            return None;
        };
        let name = path.path.get_ident()?;
        match self.lookup(name)? {
            Binding::Float(slot) => Some((name.to_token_stream(), slot)),
            _ => None,
        }
    }

    /// `p`, `p.left`, `&p`, `*t`, `&**t`, `t.as_ref()` where `p` or `t` is bound to a
    /// `#[grad]` value or a part of one: its vector, and the expression of its index twin.
    fn shaped_part(&self, expr: &Expr) -> Option<(usize, TokenStream)> {
        match expr {
            Expr::Path(path) => match self.lookup(path.path.get_ident()?)? {
                Binding::Shaped { vector, indices } => Some((vector, indices)),
                _ => None,
            },
            Expr::Field(field) => {
                let (vector, indices) = self.shaped_part(&field.base)?;
                let member = &field.member;
                Some((vector, quote!(#indices.#member)))
            }
            // `p.weights[i]`: the position is evaluated again for the index twin.
            Expr::Index(index) => {
                let (vector, indices) = self.shaped_part(&index.expr)?;
                let position = self.native_unchecked(&index.index);
                Some((vector, quote!(#indices[#position])))
            }
            // The index twin has the value's shape, `Box`es included: it is reached by the
            // same references and dereferences.
            Expr::Reference(reference) if reference.mutability.is_none() => {
                let (vector, indices) = self.shaped_part(&reference.expr)?;
                Some((vector, quote!((&#indices))))
            }
            Expr::Unary(unary) if matches!(unary.op, UnOp::Deref(_)) => {
                let (vector, indices) = self.shaped_part(&unary.expr)?;
                Some((vector, quote!((*#indices))))
            }
            Expr::Paren(paren) => self.shaped_part(&paren.expr),
            Expr::MethodCall(call) if call.args.is_empty() && call.method == "as_ref" => {
                let (vector, indices) = self.shaped_part(&call.receiver)?;
                Some((vector, quote!(#indices.as_ref())))
            }
            Expr::MethodCall(call) if call.args.is_empty() && call.method == "clone" => {
                self.shaped_part(&call.receiver)
            }
            _ => None,
        }
    }

    /// An expression computed from data alone (`crate::retype::is_data_constant`), judged by
    /// the bindings in scope.
    fn is_data_constant(&self, expr: &Expr) -> bool {
        crate::retype::is_data_constant(
            expr,
            &|name| {
                let bound_to_floats = match self.lookup(name) {
                    Some(Binding::Data) => false,
                    Some(_) => true,
                    None => self.locals.floats.contains(name),
                };
                bound_to_floats || self.locals.untyped.contains(name)
            },
            &|name| {
                matches!(
                    self.lookup(name),
                    Some(Binding::Vector(_) | Binding::Nested { .. } | Binding::Row { .. })
                )
            },
        )
    }

    /// A float read from a `#[grad]` value: `value` at the place `expr` names. What is read
    /// may be a data field (`p.n`), which the syntax does not tell: its number is then `None`
    /// and its value is lifted (or cast, under `as`) like any data.
    fn part(&mut self, value: &TokenStream, place: &Expr) -> Node {
        let (vector, indices) = self.shaped_part(place).expect("a part of a #[grad] value");
        let index = self.fresh("i");
        self.emit(quote! {
            let #index = ::ad_runtime::__private::IndexProbe(&#indices).__ad_index();
        });
        let scalar = self.scalar();
        let value = self.read(quote! {
            ::ad_runtime::__private::CastProbe::new(#value).__ad_cast::<#scalar>()
        });
        Node::Part {
            value: value.to_token_stream(),
            vector,
            index,
        }
    }

    /// A call argument that passes a `#[grad]` value or a part of one on whole (not a float
    /// read from it, which is an element).
    fn shaped_argument(&self, arg: &Expr) -> Option<(usize, TokenStream)> {
        let part = self.shaped_part(arg)?;
        let is_leaf_read = match arg {
            Expr::Field(_) | Expr::Index(_) => true,
            Expr::Unary(unary) => matches!(&*unary.expr, Expr::Path(_)),
            _ => false,
        };
        // `p.x` and `*head` read floats, unless the field is itself a part: the macro cannot
        // tell, so a field passed on whole is taken as a part when written `&p.left`.
        (!is_leaf_read).then_some(part)
    }

    /// The slot of `p.i` where `p` is a tuple of floats.
    fn tuple_element(&self, field: &syn::ExprField) -> Option<usize> {
        let syn::Member::Unnamed(index) = &field.member else {
            return None;
        };
        let Expr::Path(path) = &*field.base else {
            return None;
        };
        match self.lookup(path.path.get_ident()?)? {
            Binding::Tuple(slots) => slots.get(index.index as usize).copied(),
            _ => None,
        }
    }

    /// The binding of `expr` when it is a name.
    fn path_binding(&self, expr: &Expr) -> Option<Binding> {
        match strip_parens(expr) {
            Expr::Path(path) => self.lookup(path.path.get_ident()?),
            _ => None,
        }
    }

    fn lower_method(&mut self, call: &syn::ExprMethodCall) -> Node {
        if let Some(desugared) = self.desugar_reduction(call) {
            return self.lower(&desugared);
        }
        if copied_container(&Expr::MethodCall(call.clone())).is_some() {
            if let Some(source) = self.vector_of(&call.receiver) {
                // A copy passed on (`g(x.to_vec())`): a container of its own.
                let copy = self.fresh("copy");
                let whole = Expr::MethodCall(call.clone());
                self.container_local(&copy, None, None, &whole, ContainerInit::Copy(source));
                let vector = match self.lookup(&copy) {
                    Some(Binding::Vector(vector)) => vector,
                    _ => unreachable!("container_local binds a vector"),
                };
                return Node::Vector {
                    value: copy.to_token_stream(),
                    vector,
                };
            }
        }
        if let Some(node) = self.option_method(call) {
            return node;
        }
        if let Some(companion) = self.user_method(call) {
            let receiver = &call.receiver;
            let receiver: Expr = syn::parse_quote_spanned!(receiver.span()=> &#receiver);
            let mut arguments = vec![&receiver];
            arguments.extend(call.args.iter());
            return self.lower_companion_call(companion, &arguments, call.span());
        }
        // `shift.unwrap_or(1.0)` on data: runs on plain floats, a constant.
        if !self.may_be_float(&call.receiver)
            && crate::retype::reads_data(&call.receiver, &self.locals)
            && call.args.iter().all(|arg| {
                !crate::retype::mentions_name(arg, &|name| {
                    self.is_float_var(name)
                        || self
                            .lookup(name)
                            .is_some_and(|b| !matches!(b, Binding::Data))
                })
            })
        {
            let scalar = self.scalar();
            return Node::Constant(quote! {
                ::ad_runtime::__private::LiftProbe::new(#call).__ad_lift::<#scalar>()
            });
        }
        let method_name = call.method.to_string();
        let float_method = [
            UNARY_RULES,
            BINARY_RULES,
            TERNARY_RULES,
            FLOAT_METHODS_WITHOUT_RULES,
            VALUE_ONLY_METHODS,
        ]
        .iter()
        .any(|names| names.contains(&method_name.as_str()))
            || method_name == "powi"
            || method_name == "sin_cos";
        if !float_method
            && self.shaped_part(&call.receiver).is_some()
            && !matches!(&*call.receiver, Expr::Field(_) | Expr::Index(_))
        {
            return self.refuse(
                &Expr::MethodCall(call.clone()),
                "reverse mode calls a method of a user type on `self` or on a #[grad] parameter; \
                 on a part of one, call it by its type's path: `Vec2::norm(p)`",
            );
        }
        let method = call.method.to_string();
        let float_operands = self.may_be_float(&call.receiver)
            || call.args.iter().any(|argument| self.may_be_float(argument));
        if VALUE_ONLY_METHODS.contains(&method.as_str()) || !float_operands {
            return Node::Constant(self.native(&Expr::MethodCall(call.clone())));
        }
        let mut arguments = vec![&*call.receiver];
        arguments.extend(call.args.iter());
        self.lower_rule_call(&call.method, &arguments, &Expr::MethodCall(call.clone()))
    }

    /// `p.norm(..)` on a `#[grad]` parameter or `self`: the method's reverse companion.
    fn user_method(&self, call: &syn::ExprMethodCall) -> Option<TokenStream> {
        let Expr::Path(receiver) = &*call.receiver else {
            return None;
        };
        let name = receiver.path.get_ident()?;
        let type_path = self.locals.user_types.of_binding(name)?;
        (call.method != "clone" && call.turbofish.is_none()).then(|| {
            names::method_companion_path(type_path, &call.method, names::REVERSE_COMPANION)
        })
    }

    /// A float method, in method form (`x.sin()`) or path form (`f64::sin(x)`).
    fn lower_rule_call(&mut self, method: &Ident, arguments: &[&Expr], whole: &Expr) -> Node {
        let name = method.to_string();
        let (arity, float_arguments) = if UNARY_RULES.contains(&name.as_str()) {
            (Arity::One, 1)
        } else if BINARY_RULES.contains(&name.as_str()) {
            (Arity::Two, 2)
        } else if TERNARY_RULES.contains(&name.as_str()) {
            (Arity::Three, 3)
        } else if name == "powi" {
            (Arity::One, 1)
        } else {
            let message = if name == "sin_cos" {
                "reverse mode takes `sin_cos` only as `let (s, c) = x.sin_cos();`; bind the \
                 pair that way, or write `sin` and `cos`"
                    .to_string()
            } else if FLOAT_METHODS_WITHOUT_RULES.contains(&name.as_str()) {
                format!(
                    "`{name}` has no derivative rule; see `ad_runtime::rules` for the supported \
                     float methods"
                )
            } else if matches!(whole, Expr::MethodCall(call)
                if self.vector_of(&call.receiver).is_some()
                    || self.names_nested(&call.receiver)
                    || self.row_binding(&call.receiver).is_some())
            {
                format!(
                    "reverse mode does not follow `.{name}(..)` on a container of floats: it \
                     follows element reads and writes (`v[i]`, `v[i] = ..`, `m[i][j] op= ..`), \
                     `len`, `push` onto containers built in the body, copies (`to_vec`, \
                     `clone`), loops and reductions over them; write what `{name}` does with \
                     a loop over the elements (forward mode takes it as it is)"
                )
            } else {
                format!(
                    "reverse mode does not take `.{name}(..)` over floats here yet: it follows \
                     `sum`, `product` and `fold`, and `collect` into a `Vec` bound by `let` \
                     (the chain not naming that binding), over `iter`, `copied`, `cloned`, \
                     `filter`, `map`, `zip` and `enumerate` of slices and `Vec`s (a `filter` \
                     condition without `let`, `match`, `return` or macros, reading no variable \
                     named like the element), but not other adapters, `Option`s or container \
                     methods; write a `for` loop (forward mode takes them all)"
                )
            };
            self.error(method, message);
            return Node::Constant(self.native_unchecked(whole));
        };
        if arguments.len() != float_arguments + usize::from(name == "powi") {
            return self.refuse(
                whole,
                format!("`{name}` takes a different number of arguments"),
            );
        }
        let children = self.lower_operands(&arguments[..float_arguments]);
        if children.iter().all(Node::is_constant) {
            return Node::Constant(self.native(whole));
        }
        let extra: Vec<TokenStream> = arguments[float_arguments..]
            .iter()
            .map(|argument| self.native(argument))
            .collect();
        let _ = arity;
        self.apply_rule(&name, children, extra, whole.span())
    }

    fn lower_call(&mut self, call: &syn::ExprCall) -> Node {
        let whole = Expr::Call(call.clone());
        let Expr::Path(func) = &*call.func else {
            return self.refuse(&whole, "reverse mode can only call functions by name");
        };
        if func.qself.is_some() {
            return Node::Constant(self.native(&whole));
        }
        let path = &func.path;
        if is_float_type_path(path) {
            let method = &path.segments[path.segments.len() - 1].ident;
            if method == "from" {
                return Node::Constant(self.native(&whole));
            }
            let arguments: Vec<&Expr> = call.args.iter().collect();
            return self.lower_rule_call(method, &arguments, &whole);
        }
        let with_floats = call.args.iter().any(|arg| self.may_be_float(arg));
        match path.get_ident().and_then(|name| self.lookup(name)) {
            // A closure: refused where it is defined.
            Some(Binding::Float(_)) => return Node::Constant(self.native_unchecked(&whole)),
            Some(Binding::Closure(index)) => return self.inline_closure(index, call),
            Some(
                Binding::Vector(_)
                | Binding::Nested { .. }
                | Binding::Element { .. }
                | Binding::Tuple(_)
                | Binding::Row { .. }
                | Binding::Shaped { .. }
                | Binding::Option(_),
            ) => return self.refuse(&whole, "a container of floats cannot be called"),
            Some(Binding::Data) if with_floats => {
                return self.refuse(
                    &whole,
                    "reverse mode cannot call through a local variable; call the \
                     `#[reverse]` function by its name",
                )
            }
            Some(Binding::Data) => return Node::Constant(self.native(&whole)),
            None => {}
        }
        match classify_callee(path, &self.locals) {
            Callee::UserFunction if with_floats => {}
            Callee::UserMethod(type_path, method) if with_floats => {
                let companion =
                    names::method_companion_path(&type_path, &method, names::REVERSE_COMPANION);
                let args: Vec<&Expr> = call.args.iter().collect();
                return self.lower_companion_call(companion, &args, call.span());
            }
            Callee::Other
                if with_floats
                    && path.segments.last().is_some_and(|s| {
                        names::is_generated_function_name(&s.ident.to_string())
                    }) =>
            {
                return self.refuse(
                    &whole,
                    "reverse mode cannot differentiate through a generated derivative function \
                     (`_jvp`, `_vjp`, `_grad`) yet",
                );
            }
            _ if with_floats && options::is_option_variant(path, "Some") => {
                return self.refuse(&whole, options::OPTION_USES);
            }
            _ if with_floats
                && path.get_ident().is_some_and(|name| {
                    name.to_string()
                        .starts_with(|c: char| c.is_ascii_uppercase())
                }) =>
            {
                return self.refuse(
                    &whole,
                    "reverse mode does not keep floats in an enum built in the body yet (only \
                     in an `Option`); compute the float with `if`/`match` directly, or take the \
                     value as a `#[grad]` parameter of a type that derives `Differentiable` \
                     (forward mode takes both)",
                );
            }
            _ if with_floats => {
                return self.refuse(
                    &whole,
                    "reverse mode can only pass floats to functions annotated with `#[reverse]`",
                );
            }
            _ => return Node::Constant(self.native(&whole)),
        }
        let companion_name = Ident::new(
            names::REVERSE_COMPANION,
            path.segments
                .last()
                .map_or(Span::call_site(), |s| s.ident.span()),
        );
        let args: Vec<&Expr> = call.args.iter().collect();
        self.lower_companion_call(quote!(#path::#companion_name), &args, call.span())
    }

    /// A call to a function's (or method's) reverse companion, `companion(args)`.
    fn lower_companion_call(&mut self, companion: TokenStream, args: &[&Expr], span: Span) -> Node {
        // One child per argument: the callee's pullback returns one adjoint per parameter
        // (`()` for data), so arguments and adjoints pair by position.
        let mut children = Vec::new();
        let mut arguments = Vec::new();
        for (position, arg) in args.iter().enumerate() {
            let node = if let Some((vector, indices)) = self.shaped_argument(arg) {
                let first = self.fresh("first");
                self.emit(quote! {
                    let #first = ::ad_runtime::__private::IndexTwin::first_index(&#indices);
                });
                Node::Shaped {
                    value: self.native_unchecked(arg),
                    vector,
                    first,
                }
            } else if self.may_be_float(arg) {
                let node = self.lower(arg);
                if args[position + 1..].iter().any(|later| assigns(later)) {
                    self.pin(node)
                } else {
                    node
                }
            } else {
                Node::Constant(self.native(arg))
            };
            arguments.push(node.value());
            children.push(node);
        }
        let value = self.fresh("v");
        let pullback = self.fresh("d");
        self.emit(quote_spanned! {span=>
            let (#value, #pullback) = #companion(#(#arguments),*);
        });
        Node::Op {
            value,
            pullback,
            arity: Arity::Call,
            children,
            lazy: None,
        }
    }

    fn apply_rule(
        &mut self,
        rule: &str,
        children: Vec<Node>,
        extra: Vec<TokenStream>,
        span: Span,
    ) -> Node {
        let value = self.fresh("v");
        let pullback = self.fresh("d");
        let rule_ident = Ident::new(rule, span);
        let arguments = children.iter().map(Node::value).chain(extra);
        // Built by the backward code: `x * y`'s derivative from the operands (unless one is a
        // constant other than a literal, whose expression may not give the same value again),
        // `exp`'s from its value.
        let lazy = match (rule, children.as_slice()) {
            ("mul", [x, y]) if !x.is_constant() && !y.is_constant() => {
                let (x, y) = (x.backward_value(), y.backward_value());
                Some(quote!(::ad_runtime::rules::mul(#x, #y).1))
            }
            // `2.0 * x`: the literal is evaluated again; the other operand's value is not read
            // (the constant's cotangent is dropped), so a zero stands in for it.
            ("mul", [x, y]) if self.is_literal(x) || self.is_literal(y) => {
                let zero = self.scalar_zero();
                let [x, y] = [x, y].map(|operand| {
                    if self.is_literal(operand) {
                        operand.value()
                    } else {
                        zero.clone()
                    }
                });
                Some(quote!(::ad_runtime::rules::mul(#x, #y).1))
            }
            ("exp", [_]) => Some(quote!(::ad_runtime::linear::Scale(#value))),
            // Derivatives that hold no value: built from zeros, the same map.
            ("add" | "sub", [_, _]) => {
                let zero = self.scalar_zero();
                Some(quote!(::ad_runtime::rules::#rule_ident(#zero, #zero).1))
            }
            ("neg", [_]) => {
                let zero = self.scalar_zero();
                Some(quote!(::ad_runtime::rules::neg(#zero).1))
            }
            _ => None,
        };
        let kept = if lazy.is_some() {
            quote!(_)
        } else {
            quote!(#pullback)
        };
        self.emit(quote_spanned! {span=>
            let (#value, #kept) = ::ad_runtime::rules::#rule_ident(#(#arguments),*);
        });
        let arity = match children.len() {
            1 => Arity::One,
            2 => Arity::Two,
            _ => Arity::Three,
        };
        Node::Op {
            value,
            pullback,
            arity,
            children,
            lazy,
        }
    }

    /// The backward of a node, given its cotangent: transposed rules down to the variables.
    fn backprop(&mut self, node: &Node, cotangent: TokenStream) -> TokenStream {
        match node {
            Node::Constant(_) => TokenStream::new(),
            Node::Element {
                hoisted: Some(place),
                ..
            } => {
                let place = syn::Index::from(*place);
                quote!(__ad_hoisted_cotangents.#place += #cotangent;)
            }
            Node::Element { vector, index, .. } => {
                if self.sized_vectors.iter().any(|(sized, _)| sized == vector) {
                    quote!(__adj.add_sized_element(#vector, #index, #cotangent);)
                } else {
                    quote!(__adj.add_element(#vector, #index, #cotangent);)
                }
            }
            Node::Vector { vector, .. } => quote!(__adj.add_vector(#vector, &#cotangent);),
            Node::Shaped { vector, first, .. } => quote! {
                ::ad_runtime::__private::PartCotangent::add_to(#cotangent, __adj, #vector, #first);
            },
            Node::Part { vector, index, .. } => {
                quote!(__adj.add_part(#vector, #index, #cotangent);)
            }
            Node::Tuple { slots, .. } => {
                let parts = (0..slots.len()).map(syn::Index::from);
                quote!(#(__adj[#slots] += #cotangent.#parts;)*)
            }
            Node::Var { slot, .. } => quote!(__adj[#slot] += #cotangent;),
            Node::Same { inner, .. } => self.backprop(inner, cotangent),
            Node::Choice {
                taken, some, none, ..
            } => {
                let some = self.backprop(some, cotangent.clone());
                let none = self.backprop(none, cotangent);
                quote!(if #taken { #some } else { #none })
            }
            Node::Op {
                pullback,
                arity,
                children,
                lazy,
                ..
            } => {
                let result = self.fresh("c");
                let build = lazy.as_ref().map(|lazy| quote!(let #pullback = #lazy;));
                let head = match arity {
                    Arity::Call => quote!(let #result = #pullback(#cotangent);),
                    _ => quote! {
                        #build
                        let #result = ::ad_runtime::linear::LinearMap::reverse_apply(&#pullback, #cotangent);
                    },
                };
                let parts: Vec<TokenStream> = match arity {
                    Arity::One => vec![quote!(#result)],
                    Arity::Two => vec![quote!(#result.0), quote!(#result.1)],
                    Arity::Three => vec![
                        quote!(#result.0),
                        quote!(#result.1 .0),
                        quote!(#result.1 .1),
                    ],
                    Arity::Call => (0..children.len())
                        .map(|i| {
                            let field = syn::Index::from(i);
                            quote!(#result.#field)
                        })
                        .collect(),
                };
                let mut out = head;
                for (child, part) in children.iter().zip(parts) {
                    out.extend(self.backprop(child, part));
                }
                out
            }
        }
    }

    // ----- code that runs as written -----

    fn retype(&self) -> Retype<'_> {
        Retype {
            float: self.function.float,
            locals: &self.locals,
            companion: names::REVERSE_COMPANION,
            value_only: true,
        }
    }

    /// An expression that runs as written (over the scalar type): conditions, integer code,
    /// printing. Floats may only be read there where no derivative can flow out.
    fn native(&self, expr: &Expr) -> TokenStream {
        self.check_native(expr);
        self.native_unchecked(expr)
    }

    /// The same, without looking for lost derivatives: for code that already has an error, so
    /// that one mistake gives one message.
    fn native_unchecked(&self, expr: &Expr) -> TokenStream {
        let mut expr = expr.clone();
        self.retype().visit_expr_mut(&mut expr);
        expr.to_token_stream()
    }

    /// The value of an expression over data, as a constant: a float (or a reference to one,
    /// as a pattern over data binds it) becomes the scalar type; anything else is unchanged.
    fn data_value(&self, expr: &Expr) -> TokenStream {
        let value = self.native(expr);
        let scalar = self.scalar();
        quote!(::ad_runtime::__private::LiftProbe::new(#value).__ad_lift::<#scalar>())
    }

    /// Reports `message` on `expr` and stands in for it with its value, unchecked.
    fn refuse(&self, expr: &Expr, message: impl std::fmt::Display) -> Node {
        self.error(expr, message);
        Node::Constant(self.native_unchecked(expr))
    }

    fn check_native(&self, expr: &Expr) {
        let mut checker = LeakChecker {
            generator: self,
            safe_depth: 0,
        };
        checker.visit_expr(expr);
    }
}

/// Finds floats used where their derivative would be lost: stored in a container, passed to
/// a method of data, assigned inside an expression. Reading a float's value (a comparison, a
/// cast to an integer, `is_nan`, printing) is fine.
struct LeakChecker<'g, 'a> {
    generator: &'g Generator<'a>,
    safe_depth: usize,
}

impl LeakChecker<'_, '_> {
    fn safely(&mut self, f: impl FnOnce(&mut Self)) {
        self.safe_depth += 1;
        f(self);
        self.safe_depth -= 1;
    }

    /// `f(..)` where `f` is a closure bound by `let` whose body assigns: run natively, its
    /// assignments would change values without their derivatives.
    fn calls_assigning_closure(&self, callee: &Expr) -> bool {
        let Expr::Path(path) = callee else {
            return false;
        };
        match path
            .path
            .get_ident()
            .and_then(|name| self.generator.lookup(name))
        {
            Some(Binding::Closure(index)) => assigns(&self.generator.closures[index].closure.body),
            _ => false,
        }
    }
}

impl<'ast> Visit<'ast> for LeakChecker<'_, '_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        match expr {
            Expr::Binary(binary) if is_comparison(&binary.op) => {
                self.safely(|checker| syn::visit::visit_expr_binary(checker, binary))
            }
            Expr::Binary(binary) if compound_rule(&binary.op).is_some() => {
                self.report_assignment(&binary.left);
                self.visit_expr(&binary.right);
            }
            Expr::Assign(assign) => {
                self.report_assignment(&assign.left);
                self.visit_expr(&assign.right);
            }
            Expr::Cast(cast) if float_of_type(&cast.ty).is_none() => {
                self.safely(|checker| syn::visit::visit_expr_cast(checker, cast))
            }
            Expr::MethodCall(call)
                if VALUE_ONLY_METHODS.contains(&call.method.to_string().as_str())
                    || (matches!(call.method.to_string().as_str(), "is_some" | "is_none")
                        && self.generator.is_option_expr(&call.receiver)) =>
            {
                self.safely(|checker| syn::visit::visit_expr_method_call(checker, call))
            }
            Expr::MethodCall(call) if self.generator.is_option_expr(&call.receiver) => {
                let method = call.method.to_string();
                if !["unwrap", "unwrap_or", "unwrap_or_default", "expect"].contains(&method.as_str()) {
                    // Its receiver and arguments are not reported again.
                    return self
                        .generator
                        .error(call, options::method_refused(&method));
                }
                syn::visit::visit_expr_method_call(self, call);
            }
            Expr::Reference(reference) if reference.mutability.is_some() => {
                self.report_assignment(&reference.expr);
                self.visit_expr(&reference.expr);
            }
            Expr::Macro(mac) => {
                if let Ok(args) = MacroArgs::parse_from(&mac.mac) {
                    let reads_only = macros::name(&mac.mac).is_some_and(|name| name != "vec");
                    for arg in args.exprs() {
                        if reads_only {
                            self.safely(|checker| checker.visit_expr(arg));
                        } else {
                            self.visit_expr(arg);
                        }
                    }
                }
            }
            Expr::Path(path) if self.safe_depth == 0 => {
                if let Some(ident) = path.path.get_ident() {
                    if let Some(Binding::Closure(_)) = self.generator.lookup(ident) {
                        self.generator.error(
                            path,
                            format!(
                                "reverse mode inlines `{ident}` where it is called in float \
                                 arithmetic or as a statement; elsewhere it may use only its \
                                 value, in a comparison, a cast to an integer or printing \
                                 (`{ident}(..) < 3`), or write the code without the closure"
                            ),
                        );
                    } else if self.generator.is_float_var(ident) {
                        self.generator.error(
                            path,
                            format!(
                                "reverse mode cannot follow `{ident}` here: its derivative would \
                                 be lost (a float stored in a struct or enum built in the body, \
                                 or passed to a method of data, is not followed yet); use it in \
                                 float arithmetic, tuples, element writes or `push`"
                            ),
                        );
                    }
                }
            }
            Expr::Call(call) if self.calls_assigning_closure(&call.func) => {
                self.generator.error(
                    call,
                    "this closure assigns to variables, and reverse mode follows those \
                     assignments only where the call is a statement or float arithmetic; call \
                     it before this expression and use its result here",
                );
            }
            Expr::Closure(closure) => self
                .generator
                .error(closure, "reverse mode takes a closure only when bound by `let` and called by name (it is inlined where it is called); write `let f = |t: f64| ...;` and call `f(x)`"),
            _ => syn::visit::visit_expr(self, expr),
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

impl LeakChecker<'_, '_> {
    fn report_assignment(&self, target: &Expr) {
        if let Expr::Path(path) = place_root(target) {
            if path
                .path
                .get_ident()
                .is_some_and(|ident| self.generator.is_float_var(ident))
            {
                self.generator.error(
                    target,
                    "reverse mode cannot follow an assignment to a float inside an expression; \
                     make it a statement of its own",
                );
            }
        }
    }
}

/// How a `let` makes a container of floats.
enum ContainerInit {
    /// `vec![x; n]`
    Repeat(Box<Expr>, Box<Expr>),
    /// `vec![a, b, c]`
    List(Vec<Expr>),
    /// `[x; n]` or `[a, b, c]`: the same, as an array.
    Array(Box<ContainerInit>),
    /// `Vec::new()`, `Vec::with_capacity(n)`: filled by `push`.
    Empty,
    /// `x.to_vec()`, `x.clone()` of the container in this vector slot.
    Copy(usize),
    /// `x[i].to_vec()`, `row.clone()`: a copy of a row of a container of containers, whose
    /// elements start at the local given, in the vector slot given.
    CopyOfRow(usize, Ident),
}

impl ContainerInit {
    fn into_array(self) -> Self {
        ContainerInit::Array(Box::new(self))
    }
}

/// The items of a container literal: one item `count` times (`vec![x; n]`, `[x; n]`) or a list
/// (`vec![a, b]`, `[a, b]`).
enum LiteralItems<T> {
    Repeat(Box<T>, Box<Expr>),
    List(Vec<T>),
}

/// A literal of a container: `vec![..]` (`is_vec`) or an array, and its items.
struct ContainerLiteral<T> {
    is_vec: bool,
    items: LiteralItems<T>,
}

/// A container of containers of floats built by a literal in the body: `vec![vec![0.0; n]; m]`,
/// `[[a, b], [c, d]]`, `vec![vec![a, b], vec![x; n]]`.
type NestedLiteral = ContainerLiteral<ContainerLiteral<Expr>>;

impl<T> ContainerLiteral<T> {
    /// `vec![..]`, `[..]` whose items are read by `item`; `None` for another expression or an
    /// item that `item` does not take.
    fn parse(expr: &Expr, item: &impl Fn(&Expr) -> Option<T>) -> Option<Self> {
        let (is_vec, items) = match strip_parens(expr) {
            Expr::Repeat(repeat) => (
                false,
                LiteralItems::Repeat(repeat.expr.clone(), repeat.len.clone()),
            ),
            Expr::Array(array) => (
                false,
                LiteralItems::List(array.elems.iter().cloned().collect()),
            ),
            Expr::Macro(mac) if mac.mac.path.is_ident("vec") => {
                match MacroArgs::parse_from(&mac.mac).ok()? {
                    MacroArgs::Repeat(element, _, count) => {
                        (true, LiteralItems::Repeat(element, count))
                    }
                    MacroArgs::List(elements) => {
                        (true, LiteralItems::List(elements.into_iter().collect()))
                    }
                }
            }
            _ => return None,
        };
        let items = match items {
            LiteralItems::Repeat(element, count) => {
                LiteralItems::Repeat(Box::new(item(&element)?), count)
            }
            LiteralItems::List(elements) => {
                LiteralItems::List(elements.iter().map(item).collect::<Option<_>>()?)
            }
        };
        Some(ContainerLiteral { is_vec, items })
    }

    /// Its items as they are evaluated: a repeated item once.
    fn evaluated(&self) -> Vec<&T> {
        match &self.items {
            LiteralItems::Repeat(item, _) => vec![item],
            LiteralItems::List(items) => items.iter().collect(),
        }
    }
}

/// `Vec<Vec<f64>>`, `Vec<[f32; 3]>`, `[[f64; 2]; 2]`: a container of containers of floats.
fn is_nested_float_type(ty: &syn::Type) -> bool {
    crate::ast::container_element(ty)
        .and_then(crate::ast::container_element)
        .and_then(float_of_type)
        .is_some()
}

/// `vec![vec![..]; m]`, `[[..], [..]]`: rows that are literals of scalars (a row's elements
/// are not literals themselves), at least one row.
fn nested_literal(expr: &Expr) -> Option<NestedLiteral> {
    let scalar = |element: &Expr| {
        ContainerLiteral::parse(element, &|_| Some(()))
            .is_none()
            .then(|| element.clone())
    };
    let literal = ContainerLiteral::parse(expr, &|row| ContainerLiteral::parse(row, &scalar))?;
    match &literal.items {
        LiteralItems::List(rows) if rows.is_empty() => None,
        _ => Some(literal),
    }
}

enum LoopKind<'e> {
    For(&'e Pat, &'e Expr),
    While(&'e Expr),
    Loop,
}

fn has_checkpoint(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(attr::is_checkpoint)
}

/// `expr` without its own `#[checkpoint]` (inner ones stay: they are regions of their own).
fn without_own_checkpoint(expr: &Expr) -> Expr {
    let mut expr = expr.clone();
    let attrs = match &mut expr {
        Expr::Call(e) => &mut e.attrs,
        Expr::Block(e) => &mut e.attrs,
        Expr::ForLoop(e) => &mut e.attrs,
        Expr::While(e) => &mut e.attrs,
        Expr::Loop(e) => &mut e.attrs,
        Expr::MethodCall(e) => &mut e.attrs,
        Expr::If(e) => &mut e.attrs,
        Expr::Match(e) => &mut e.attrs,
        _ => return expr,
    };
    attrs.retain(|attr| !attr::is_checkpoint(attr));
    expr
}

/// The attributes of an expression that carries an inner `#[checkpoint]`.
fn expression_checkpoint(expr: &Expr) -> Option<&[syn::Attribute]> {
    let attrs = match expr {
        Expr::Call(e) => &e.attrs,
        Expr::Block(e) => &e.attrs,
        Expr::ForLoop(e) => &e.attrs,
        Expr::While(e) => &e.attrs,
        Expr::Loop(e) => &e.attrs,
        Expr::MethodCall(e) => &e.attrs,
        Expr::If(e) => &e.attrs,
        Expr::Match(e) => &e.attrs,
        _ => return None,
    };
    has_checkpoint(attrs).then_some(attrs.as_slice())
}

/// No call that could reach a differentiated function (which might recurse back) and a single
/// way out (no `return`), so the pullback has one type that does not contain itself.
fn is_leaf(function: &Function) -> bool {
    struct Leaf(bool, Vec<Ident>);
    impl<'ast> Visit<'ast> for Leaf {
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            match &*call.func {
                Expr::Path(path) if is_float_type_path(&path.path) => {}
                Expr::Path(path)
                    if path.path.segments.last().is_some_and(|segment| {
                        segment
                            .ident
                            .to_string()
                            .starts_with(|c: char| c.is_ascii_uppercase())
                    }) => {}
                _ => self.0 = false,
            }
            syn::visit::visit_expr_call(self, call);
        }
        fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
            self.0 = false;
        }
        // A method of a user type on `self` (the body says `__ad_self`) or a parameter.
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            if matches!(&*call.receiver, Expr::Path(path) if path.path.get_ident().is_some_and(|name| self.1.contains(name)))
            {
                self.0 = false;
            }
            syn::visit::visit_expr_method_call(self, call);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let user_values = function
        .params
        .iter()
        .filter(|param| param.user_type.is_some())
        .map(|param| param.name.clone())
        .collect();
    let mut leaf = Leaf(true, user_values);
    leaf.visit_block(&function.body);
    leaf.0
}

/// An expression whose value is `()`: an assignment, a `for` or `while` loop, an `if` without
/// a value, or a block ending in a statement.
fn is_unit_valued(expr: &Expr) -> bool {
    match expr {
        Expr::Assign(_) => true,
        Expr::Binary(binary) => compound_rule(&binary.op).is_some(),
        Expr::Block(block) => is_unit_block(&block.block),
        Expr::Paren(paren) => is_unit_valued(&paren.expr),
        // Without `else`, the branch is `()` by Rust's rules.
        Expr::If(branch) => branch.else_branch.as_ref().is_none_or(|(_, otherwise)| {
            is_unit_block(&branch.then_branch) && is_unit_valued(otherwise)
        }),
        Expr::ForLoop(_) | Expr::While(_) => true,
        _ => false,
    }
}

fn is_unit_block(block: &Block) -> bool {
    match block.stmts.last() {
        Some(Stmt::Expr(tail, None)) => is_unit_valued(tail),
        _ => true,
    }
}

/// `g_jvp(..)`, `g_vjp(..)`, `g_grad(..)`.
fn calls_generated_function(expr: &Expr) -> bool {
    match expr {
        Expr::Call(call) => match &*call.func {
            Expr::Path(path) => path
                .path
                .segments
                .last()
                .is_some_and(|s| names::is_generated_function_name(&s.ident.to_string())),
            _ => false,
        },
        Expr::Paren(paren) => calls_generated_function(&paren.expr),
        _ => false,
    }
}

/// A constant path or a call whose result type the macro cannot see.
fn is_opaque(expr: &Expr) -> bool {
    match expr {
        Expr::Path(path) => {
            path.path.get_ident().is_none()
                || path
                    .path
                    .segments
                    .iter()
                    .all(|s| s.ident.to_string().chars().all(|c| !c.is_ascii_lowercase()))
        }
        Expr::Call(_) | Expr::MethodCall(_) => true,
        // A field or element of data (`cfg.lo`, `cfg.w[1]`): its type is not seen either.
        Expr::Field(_) | Expr::Index(_) => true,
        Expr::Paren(paren) => is_opaque(&paren.expr),
        _ => false,
    }
}

fn is_control_flow(expr: &Expr) -> bool {
    match expr {
        Expr::If(_) | Expr::Match(_) | Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => true,
        Expr::Block(_) => true,
        Expr::Paren(paren) => is_control_flow(&paren.expr),
        Expr::Group(group) => is_control_flow(&group.expr),
        _ => false,
    }
}

fn is_comparison(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq(_)
            | BinOp::Ne(_)
            | BinOp::Lt(_)
            | BinOp::Le(_)
            | BinOp::Gt(_)
            | BinOp::Ge(_)
            | BinOp::And(_)
            | BinOp::Or(_)
    )
}

/// `left` and `right` are the same variable, or the same element `x[i]` of a variable with an
/// index of names, literals and arithmetic: reading it twice gives the same value.
fn is_same_pure_place(left: &Expr, right: &Expr) -> bool {
    fn pure_place(expr: &Expr) -> bool {
        match strip_parens(expr) {
            Expr::Path(path) => path.path.get_ident().is_some(),
            Expr::Index(index) => {
                matches!(strip_parens(&index.expr), Expr::Path(path) if path.path.get_ident().is_some())
                    && rebuild_index(&index.index, &mut |_| Some(TokenStream::new())).is_some()
            }
            _ => false,
        }
    }
    pure_place(left)
        && strip_parens(left).to_token_stream().to_string()
            == strip_parens(right).to_token_stream().to_string()
}

fn arithmetic_rule(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Add(_) => "add",
        BinOp::Sub(_) => "sub",
        BinOp::Mul(_) => "mul",
        BinOp::Div(_) => "div",
        BinOp::Rem(_) => "rem",
        _ => return None,
    })
}

fn compound_rule(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::AddAssign(_) => "add",
        BinOp::SubAssign(_) => "sub",
        BinOp::MulAssign(_) => "mul",
        BinOp::DivAssign(_) => "div",
        BinOp::RemAssign(_) => "rem",
        _ => return None,
    })
}

/// `1`, `2usize`: an integer literal (not `1f64`).
fn is_integer_literal(expr: &Expr) -> bool {
    matches!(strip_parens(expr), Expr::Lit(lit)
        if matches!(&lit.lit, syn::Lit::Int(int) if !matches!(int.suffix(), "f64" | "f32")))
}

/// The names a pattern binds with `mut`.
fn mutable_bindings(pat: &Pat) -> Vec<Ident> {
    struct Finder(Vec<Ident>);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_pat_ident(&mut self, ident: &'ast syn::PatIdent) {
            if ident.mutability.is_some() {
                self.0.push(ident.ident.unraw());
            }
            syn::visit::visit_pat_ident(self, ident);
        }
    }
    let mut finder = Finder(Vec::new());
    finder.visit_pat(pat);
    finder.0
}

/// `x.to_vec()`, `x.clone()`, `x.to_owned()`: the container copied.
fn copied_container(expr: &Expr) -> Option<&Expr> {
    match strip_parens(expr) {
        Expr::MethodCall(call)
            if call.args.is_empty()
                && matches!(
                    call.method.to_string().as_str(),
                    "to_vec" | "clone" | "to_owned"
                ) =>
        {
            Some(&call.receiver)
        }
        _ => None,
    }
}

fn strip_pattern_type(pat: &Pat) -> &Pat {
    match pat {
        Pat::Type(typed) => strip_pattern_type(&typed.pat),
        _ => pat,
    }
}

fn strip_parens(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(paren) => strip_parens(&paren.expr),
        Expr::Group(group) => strip_parens(&group.expr),
        _ => expr,
    }
}

/// `for j in a..b` (also `a..=b`, `a..`) with a plain name: the name, the range and its start.
fn counted_range(for_loop: &syn::ExprForLoop) -> Option<(&Ident, &syn::ExprRange, &Expr)> {
    let Pat::Ident(pat) = &*for_loop.pat else {
        return None;
    };
    if pat.by_ref.is_some() || pat.mutability.is_some() || pat.subpat.is_some() {
        return None;
    }
    let Expr::Range(range) = strip_parens(&for_loop.expr) else {
        return None;
    };
    Some((&pat.ident, range, range.start.as_deref()?))
}

/// `expr` rebuilt with each name replaced by what `name` gives, when it is made of integer
/// literals, names and `+ - * / %`.
fn rebuild_index(
    expr: &Expr,
    name: &mut dyn FnMut(&Ident) -> Option<TokenStream>,
) -> Option<TokenStream> {
    match expr {
        Expr::Lit(lit) if matches!(lit.lit, syn::Lit::Int(_)) => Some(quote!(#lit)),
        Expr::Paren(paren) => rebuild_index(&paren.expr, name).map(|inner| quote!((#inner))),
        Expr::Group(group) => rebuild_index(&group.expr, name).map(|inner| quote!((#inner))),
        Expr::Binary(binary)
            if matches!(
                binary.op,
                BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_) | BinOp::Div(_) | BinOp::Rem(_)
            ) =>
        {
            let left = rebuild_index(&binary.left, name)?;
            let right = rebuild_index(&binary.right, name)?;
            let op = &binary.op;
            Some(quote!((#left #op #right)))
        }
        Expr::Path(path) if path.qself.is_none() => name(path.path.get_ident()?),
        _ => None,
    }
}

/// Whether `looped` (a loop: its condition or range and its body) may change the variable
/// `name`: assigns it or its parts (destructuring assignments included), borrows them mutably
/// (`&mut`, a `ref mut` pattern matched against them), calls a method on it, or names it inside
/// a macro (conservatively, whatever `name` is bound to there).
fn may_change(looped: &Expr, name: &Ident) -> bool {
    changes(looped, name) > 0
}

/// How many places in `looped` may change the variable `name` (see `may_change`).
fn changes(looped: &Expr, name: &Ident) -> usize {
    struct Changes<'n> {
        name: &'n Ident,
        found: usize,
    }
    impl Changes<'_> {
        fn is_place_of_name(&self, place: &Expr) -> bool {
            matches!(place_root(place), Expr::Path(path) if path.path.is_ident(self.name))
        }

        /// Whether the left side of an assignment assigns the name: a place of it, or a part
        /// of a destructuring assignment that does.
        fn assigns(&self, left: &Expr) -> bool {
            match left {
                Expr::Tuple(tuple) => tuple.elems.iter().any(|part| self.assigns(part)),
                Expr::Array(array) => array.elems.iter().any(|part| self.assigns(part)),
                Expr::Struct(structure) => {
                    structure
                        .fields
                        .iter()
                        .any(|field| self.assigns(&field.expr))
                        || structure
                            .rest
                            .as_deref()
                            .is_some_and(|rest| self.assigns(rest))
                }
                Expr::Call(call) => call.args.iter().any(|part| self.assigns(part)),
                Expr::Paren(paren) => self.assigns(&paren.expr),
                Expr::Infer(_) | Expr::Range(_) => false,
                Expr::Index(_)
                | Expr::Field(_)
                | Expr::Group(_)
                | Expr::Unary(_)
                | Expr::Path(_) => self.is_place_of_name(left),
                _ => mentions(left, self.name),
            }
        }

        /// A `ref mut` binding in `pat` matched against `value` may change what `value` names.
        fn matched_mutably(&mut self, pat: &Pat, value: &Expr) {
            if binds_by_mutable_reference(pat) && mentions(value, self.name) {
                self.found += 1;
            }
        }
    }
    impl<'ast> Visit<'ast> for Changes<'_> {
        fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
            self.found += usize::from(self.assigns(&assign.left));
            syn::visit::visit_expr_assign(self, assign);
        }
        fn visit_expr_binary(&mut self, binary: &'ast syn::ExprBinary) {
            self.found += usize::from(
                crate::activity::is_any_compound_assignment(&binary.op)
                    && self.is_place_of_name(&binary.left),
            );
            syn::visit::visit_expr_binary(self, binary);
        }
        fn visit_expr_reference(&mut self, reference: &'ast syn::ExprReference) {
            self.found += usize::from(
                reference.mutability.is_some() && self.is_place_of_name(&reference.expr),
            );
            syn::visit::visit_expr_reference(self, reference);
        }
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            // `x[i].exp()` does not change `x`: a method that takes `&mut self` changes its
            // receiver, and an element's receiver is the element.
            let receiver = strip_parens(&call.receiver);
            self.found +=
                usize::from(matches!(receiver, Expr::Path(path) if path.path.is_ident(self.name)));
            syn::visit::visit_expr_method_call(self, call);
        }
        fn visit_local(&mut self, local: &'ast syn::Local) {
            if let Some(init) = &local.init {
                self.matched_mutably(&local.pat, &init.expr);
            }
            syn::visit::visit_local(self, local);
        }
        fn visit_expr_match(&mut self, expr: &'ast syn::ExprMatch) {
            for arm in &expr.arms {
                self.matched_mutably(&arm.pat, &expr.expr);
            }
            syn::visit::visit_expr_match(self, expr);
        }
        fn visit_expr_let(&mut self, expr: &'ast syn::ExprLet) {
            self.matched_mutably(&expr.pat, &expr.expr);
            syn::visit::visit_expr_let(self, expr);
        }
        fn visit_expr_for_loop(&mut self, expr: &'ast syn::ExprForLoop) {
            self.matched_mutably(&expr.pat, &expr.expr);
            syn::visit::visit_expr_for_loop(self, expr);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            let name = self.name;
            self.found += usize::from(crate::retype::tokens_mention(
                mac.tokens.clone(),
                &|ident| ident == name,
            ));
        }
    }
    let mut changes = Changes { name, found: 0 };
    changes.visit_expr(looped);
    changes.found
}

/// The names of the constants and statics declared anywhere in `body`, and of what its `use`
/// declarations bring in; `None` if one of them is a glob (`use m::*;`).
fn declared_items(body: &Block) -> Option<Vec<Ident>> {
    struct Items(Vec<Ident>, bool);
    impl<'ast> Visit<'ast> for Items {
        fn visit_item_const(&mut self, item: &'ast syn::ItemConst) {
            self.0.push(item.ident.unraw());
        }
        fn visit_item_static(&mut self, item: &'ast syn::ItemStatic) {
            self.0.push(item.ident.unraw());
        }
        // `use path::k;` in a block may bring in a constant as well.
        fn visit_use_name(&mut self, name: &'ast syn::UseName) {
            self.0.push(name.ident.unraw());
        }
        fn visit_use_rename(&mut self, rename: &'ast syn::UseRename) {
            self.0.push(rename.rename.unraw());
        }
        fn visit_use_glob(&mut self, _: &'ast syn::UseGlob) {
            self.1 = true;
        }
    }
    let mut items = Items(Vec::new(), false);
    items.visit_block(body);
    (!items.1).then_some(items.0)
}

/// Whether `expr` names anything (a variable, a constant).
fn mentions_any_name(expr: &Expr) -> bool {
    crate::retype::mentions_name(expr, &|_| true)
}

/// Whether `pat` binds a name by `ref mut`.
fn binds_by_mutable_reference(pat: &Pat) -> bool {
    struct RefMut(bool);
    impl<'ast> Visit<'ast> for RefMut {
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            self.0 |= pat.by_ref.is_some() && pat.mutability.is_some();
            syn::visit::visit_pat_ident(self, pat);
        }
    }
    let mut found = RefMut(false);
    found.visit_pat(pat);
    found.0
}

/// Whether `body` binds `name` anywhere (a `let`, a pattern, a closure's parameter).
fn binds(body: &Block, name: &Ident) -> bool {
    struct Binds<'n>(&'n Ident, bool);
    impl<'ast> Visit<'ast> for Binds<'_> {
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            self.1 |= pat.ident == *self.0;
            syn::visit::visit_pat_ident(self, pat);
        }
    }
    let mut found = Binds(name, false);
    found.visit_block(body);
    found.1
}

/// The own part of the environment of the loop `levels` loops out from the innermost one.
fn own_part(levels: usize) -> TokenStream {
    let mut path = quote!(__ad_env);
    for _ in 0..levels {
        path = quote!((#path.0));
    }
    quote!((#path.1))
}

fn pattern_names(pat: &Pat) -> Vec<Ident> {
    pattern_bindings(pat).0
}

/// The names an `if let` / `while let` condition binds.
/// The names a condition's `let` chain binds for its branch (`if let Some(v) = o && ..`); not
/// those of an `if let` nested inside it, which are its own.
fn let_bindings(cond: &Expr) -> Vec<Ident> {
    chain_lets(cond)
        .into_iter()
        .flat_map(|expr| pattern_names(&expr.pat))
        .collect()
}

/// The `let`s of a condition's chain: itself, or joined by `&&`, in parentheses.
fn chain_lets(cond: &Expr) -> Vec<&syn::ExprLet> {
    match cond {
        Expr::Let(expr) => vec![expr],
        Expr::Binary(binary) if matches!(binary.op, syn::BinOp::And(_)) => {
            let mut lets = chain_lets(&binary.left);
            lets.extend(chain_lets(&binary.right));
            lets
        }
        Expr::Paren(paren) => chain_lets(&paren.expr),
        Expr::Group(group) => chain_lets(&group.expr),
        _ => Vec::new(),
    }
}

/// `Branch::Second(Branch::Second(Branch::First(x)))` for arm 2 of more than 3: arms are a
/// right-nested chain of `Branch`es, the last arm in the innermost `Second`.
fn nest_branch(index: usize, count: usize, value: TokenStream) -> TokenStream {
    let branch = quote!(::ad_runtime::__private::Branch);
    if count == 1 {
        return value;
    }
    let mut out = if index + 1 == count {
        quote!(#branch::Second(#value))
    } else {
        quote!(#branch::First(#value))
    };
    for _ in 0..index.min(count - 2) {
        out = quote!(#branch::Second(#out));
    }
    out
}

fn dispatch_branches(count: usize, record: &Ident) -> TokenStream {
    fn level(remaining: usize, value: TokenStream) -> TokenStream {
        let branch = quote!(::ad_runtime::__private::Branch);
        if remaining <= 1 {
            return quote!(#value(__adj));
        }
        let rest = format_ident!("__ad_arms{}", remaining);
        let inner = if remaining == 2 {
            quote!(#rest(__adj))
        } else {
            level(remaining - 1, rest.to_token_stream())
        };
        quote! {
            match #value {
                #branch::First(__ad_pullback) => __ad_pullback(__adj),
                #branch::Second(#rest) => #inner,
            }
        }
    }
    let dispatch = level(count, record.to_token_stream());
    quote!(#dispatch;)
}

/// Whether the loop's record holds boxed pullbacks (one type for every way an iteration can
/// end): when a `break` or `continue` ends an iteration early, and when an exit passes
/// through the loop (a `return`, or a labeled exit to an outer loop), whose pullback replays
/// this loop's record before the end of the body names its element type.
/// The adapters an iterator chain over a container applies before it is consumed:
/// `base[.copied()|.cloned()][.filter(|w| c)][.map(|p| e)]`.
struct Adapters<'e> {
    map: Option<&'e syn::ExprClosure>,
    filter: Option<&'e syn::ExprClosure>,
    /// `copied`/`cloned`: the elements come by value.
    by_value: bool,
    base: &'e Expr,
}

impl<'e> Adapters<'e> {
    /// `None` when an adapter is there with something other than a one-parameter closure.
    fn of(chain: &'e Expr) -> Option<Self> {
        let mut chain = chain;
        // `.adapter(|p| ..)` at the end of the chain: its closure, and the chain before it.
        fn closure_adapter<'e>(
            chain: &mut &'e Expr,
            adapter: &str,
        ) -> Result<Option<&'e syn::ExprClosure>, ()> {
            let Expr::MethodCall(inner) = *chain else {
                return Ok(None);
            };
            if inner.method != adapter || inner.args.len() != 1 {
                return Ok(None);
            }
            *chain = &inner.receiver;
            match &inner.args[0] {
                Expr::Closure(closure) if closure.inputs.len() == 1 => Ok(Some(closure)),
                _ => Err(()),
            }
        }
        let map = closure_adapter(&mut chain, "map").ok()?;
        let filter = closure_adapter(&mut chain, "filter").ok()?;
        let by_value = match chain {
            Expr::MethodCall(inner)
                if (inner.method == "copied" || inner.method == "cloned")
                    && inner.args.is_empty() =>
            {
                chain = &inner.receiver;
                true
            }
            _ => false,
        };
        Some(Adapters {
            map,
            filter,
            by_value,
            base: chain,
        })
    }
}

/// The variables `body` assigns (`x = ..`, `x += ..`, `x[i] = ..`, `x.0 = ..`); changes
/// through methods (`v.push(..)`) are not seen.
/// The expression a place is part of: `x` for `x[i].f`, `*x`, `(x)`.
fn place_root(mut place: &Expr) -> &Expr {
    loop {
        match place {
            Expr::Index(index) => place = &index.expr,
            Expr::Field(field) => place = &field.base,
            Expr::Paren(paren) => place = &paren.expr,
            Expr::Group(group) => place = &group.expr,
            Expr::Unary(unary) => place = &unary.expr,
            _ => return place,
        }
    }
}

fn assigned_names(body: &Expr) -> Vec<Ident> {
    struct Assigned(Vec<Ident>);
    impl Assigned {
        fn target(&mut self, place: &Expr) {
            if let Expr::Path(path) = place_root(place) {
                if let Some(ident) = path.path.get_ident() {
                    self.0.push(ident.clone());
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Assigned {
        fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
            self.target(&assign.left);
            syn::visit::visit_expr_assign(self, assign);
        }
        fn visit_expr_binary(&mut self, binary: &'ast syn::ExprBinary) {
            if crate::activity::is_any_compound_assignment(&binary.op) {
                self.target(&binary.left);
            }
            syn::visit::visit_expr_binary(self, binary);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut assigned = Assigned(Vec::new());
    assigned.visit_expr(body);
    assigned.0
}

/// Whether `name` appears anywhere in `expr`, macro arguments included.
fn mentions(expr: &Expr, name: &Ident) -> bool {
    let name = name.unraw();
    crate::retype::mentions_name(expr, &|ident| ident.unraw() == name)
}

fn has_exits_to(body: &Block, label: &Lifetime, labeled: bool) -> bool {
    struct Exits<'l> {
        label: &'l Lifetime,
        labeled: bool,
        depth: usize,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Exits<'_> {
        fn visit_expr_break(&mut self, brk: &'ast syn::ExprBreak) {
            self.check(brk.label.as_ref());
            syn::visit::visit_expr_break(self, brk);
        }
        fn visit_expr_continue(&mut self, cont: &'ast syn::ExprContinue) {
            self.check(cont.label.as_ref());
        }
        fn visit_expr_return(&mut self, ret: &'ast syn::ExprReturn) {
            self.found = true;
            syn::visit::visit_expr_return(self, ret);
        }
        fn visit_expr_for_loop(&mut self, l: &'ast syn::ExprForLoop) {
            self.visit_expr(&l.expr);
            self.depth += 1;
            self.visit_block(&l.body);
            self.depth -= 1;
        }
        fn visit_expr_while(&mut self, l: &'ast syn::ExprWhile) {
            self.visit_expr(&l.cond);
            self.depth += 1;
            self.visit_block(&l.body);
            self.depth -= 1;
        }
        fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
            self.depth += 1;
            self.visit_block(&l.body);
            self.depth -= 1;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    impl Exits<'_> {
        fn check(&mut self, label: Option<&Lifetime>) {
            match label {
                Some(label) if self.labeled && label == self.label => self.found = true,
                // A labeled exit to another loop may pass through this one.
                Some(_) => self.found = true,
                None => self.found |= self.depth == 0,
            }
        }
    }
    let mut exits = Exits {
        label,
        labeled,
        depth: 0,
        found: false,
    };
    exits.visit_block(body);
    exits.found
}

/// `T` for `&T`, `&&T`, ...
fn strip_references(ty: &syn::Type) -> &syn::Type {
    match ty {
        syn::Type::Reference(reference) => strip_references(&reference.elem),
        other => other,
    }
}
