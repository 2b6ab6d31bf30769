//! Rewrites a body written over `f64` (or `f32`) into the same body over a generic scalar type
//! `__S: Scalar`. Instantiated at `Dual<S>` it is the dual-number (forward-mode) code; it is
//! also what lets derivative code nest.
//!
//! What changes, and nothing else:
//!
//! * the float type in type position becomes the scalar type;
//! * float literals and the `f64::` constants become constants of the scalar type;
//! * `f64::sin(x)`-style calls go to the `Scalar` trait;
//! * `as f64` and `as <integer>` casts go through runtime traits (the scalar type is not a
//!   primitive, so `as` cannot apply to it);
//! * a call to a function with float arguments goes to that function's derivative code; a call
//!   with data arguments only stays as written, and a float it returns becomes a constant;
//! * the arguments of the supported `std` macros are rewritten like any other expression.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr, Ident, Lit, Pat, Path, Type};

use crate::activity::{is_compound_assignment, is_float_type_path, Locals};
use crate::ast::FloatType;
use crate::macros::{self, MacroArgs};
use crate::names;

mod left_operands;
mod value_leaves;
mod zips;
use value_leaves::{joined_values, joined_values_mut, value_leaves, value_leaves_mut};
use zips::{chain_base, zipped_argument, zipped_container};

pub struct Retype<'a> {
    pub float: FloatType,
    pub locals: &'a Locals,
    /// The name of a function's derivative code, next to the function (`__ad_forward`).
    pub companion: &'a str,
    /// Reverse-mode companions return `(value, pullback)`; where only the value is wanted
    /// (a condition, a cast to an integer) the call takes `.0` of it.
    pub value_only: bool,
    /// The scalar type the code is written over, when it is not the generic parameter `__S`
    /// (a closure passed from reverse-mode code runs at `Dual<__S>`).
    pub scalar_type: Option<TokenStream>,
}

impl Retype<'_> {
    fn scalar(&self, span: Span) -> TokenStream {
        let scalar = self.scalar_param(span);
        quote_spanned!(span=> <#scalar as ::ad_runtime::Scalar>)
    }

    fn scalar_param(&self, span: Span) -> TokenStream {
        match &self.scalar_type {
            Some(scalar) => scalar.clone(),
            None => names::scalar_param(span).to_token_stream(),
        }
    }

    fn constant(&self, value: TokenStream, span: Span) -> Expr {
        let scalar = self.scalar(span);
        let constructor = self.float.constructor(span);
        syn::parse_quote_spanned!(span=> #scalar::#constructor(#value))
    }

    /// `f64::max` (a function, as in `fold(f64::NEG_INFINITY, f64::max)`) goes to the trait;
    /// `f64::EPSILON` and `std::f64::consts::PI` become constants.
    fn float_path(&self, path: &Path, span: Span) -> Expr {
        let last = &path.segments[path.segments.len() - 1].ident;
        if last
            .to_string()
            .starts_with(|c: char| c.is_ascii_lowercase())
        {
            let scalar = self.scalar(last.span());
            syn::parse_quote_spanned!(span=> #scalar::#last)
        } else {
            self.constant(path.to_token_stream(), span)
        }
    }

    fn lift(&self, value: &Expr) -> Expr {
        self.lift_iterated(value, false)
    }

    /// [`Retype::lift`]; `iterated_with_floats` when the value is the receiver of an iterator
    /// adapter given floats carrying derivatives.
    fn lift_iterated(&self, value: &Expr, iterated_with_floats: bool) -> Expr {
        let span = value.span();
        let scalar = self.scalar_param(span);
        // A data `self` (`self.w.iter()` of a type without the derive) is the companion's
        // parameter there too.
        let value = with_self_renamed(value);
        // `w.iter()` of a container of plain floats whose items meet floats carrying
        // derivatives (`w.iter().zip(x)`, `.map(|w| w * x[0])`): the iteration of a lifted copy.
        if let (Expr::MethodCall(call), true) = (&value, iterated_with_floats) {
            if call.method == "iter" && call.args.is_empty() && call.turbofish.is_none() {
                let container = &call.receiver;
                return syn::parse_quote_spanned!(span=>
                    ::ad_runtime::__private::LiftProbe::new(&#container)
                        .__ad_lift_borrowed::<#scalar>()
                        .iter()
                );
            }
        }
        syn::parse_quote_spanned!(span=>
            ::ad_runtime::__private::LiftProbe::new(#value).__ad_lift::<#scalar>()
        )
    }

    /// `p.norm(..)` where `p` is a `#[grad]` parameter (or `self`): the path of the method's
    /// companion (`Point::__ad_forward_norm`). `clone` stays: the twin has its own.
    fn user_method(&self, call: &syn::ExprMethodCall) -> Option<TokenStream> {
        // A field of a derived value that the file's struct declares of a derived type
        // (`self.first: Neuron`), or an element of one declared a container of such
        // (`self.neurons[i]` of `neurons: Vec<Neuron>`).
        let owned;
        let type_path = match &*call.receiver {
            Expr::Path(receiver) => self
                .locals
                .user_types
                .of_binding(receiver.path.get_ident()?)?,
            // An element of a `#[grad]` container of a user type (`bodies[i].kinetic()`).
            Expr::Index(index) => match &*index.expr {
                Expr::Path(container) => self
                    .locals
                    .user_types
                    .of_container(container.path.get_ident()?)?,
                Expr::Field(field) => {
                    let syn::Member::Named(name) = &field.member else {
                        return None;
                    };
                    let syn::Type::Path(base) = self.derived_place_type(&field.base)? else {
                        return None;
                    };
                    let base = base.path.segments.last()?.ident.to_string();
                    let element =
                        crate::source_facts::field_element_type(&base, &name.to_string())?;
                    owned = syn::Path::from(Ident::new(&element, name.span()));
                    &owned
                }
                _ => return None,
            },
            Expr::Field(field) => match self.field_type(field)? {
                syn::Type::Path(path)
                    if path.path.get_ident().is_some_and(|name| {
                        crate::source_facts::defines_derived(&name.to_string())
                    }) =>
                {
                    owned = path.path;
                    &owned
                }
                _ => return None,
            },
            _ => return None,
        };
        if call.method == "clone" || call.turbofish.is_some() {
            return None;
        }
        Some(names::method_companion_path(
            type_path,
            &call.method,
            self.companion,
        ))
    }

    /// An expression computed from data alone (see [`is_data_constant`]).
    fn is_data_constant(&self, expr: &Expr) -> bool {
        !self.builds_user_value(expr)
            && is_data_constant(
                expr,
                &|name| self.locals.floats.contains(name) || self.locals.untyped.contains(name),
                &|name| self.locals.containers.contains(name),
            )
    }

    /// `floats.iter().zip(&data.x)` (or `.zip(data.x.iter())`): an iteration over a container
    /// holding floats, zipped with a container read from data.
    fn zips_data_with_floats(&self, call: &syn::ExprMethodCall) -> bool {
        call.method == "zip"
            && call.args.len() == 1
            && chain_base(&call.receiver)
                .and_then(|base| base.path.get_ident())
                .is_some_and(|name| self.locals.floats.contains(name))
            && {
                let container = zipped_container(&call.args[0]);
                reads_data(container, self.locals) || self.reads_user_value(container)
            }
    }

    /// `Shape::Circle(2.0)`, `Point { x: 1.0, y }` of a type that derives `Differentiable`:
    /// built as its twin (passed to differentiated code), even from constants.
    fn builds_user_value(&self, expr: &Expr) -> bool {
        let scalar = quote::quote!(__S);
        crate::user_types::built_value(expr)
            .is_some_and(|(ty, _)| self.locals.user_types.twin_path(&ty, &scalar).is_some())
    }

    /// Lifts `expr` if it reads data: a local that holds no float, a field or dereference of
    /// one. Such a value is a float constant or, when it is not a float, passes unchanged.
    fn lift_data(&self, expr: &mut Expr) {
        if reads_data(expr, self.locals) || self.reads_user_value(expr) {
            *expr = self.lift(expr);
        }
    }

    /// Which arguments of `call` read data, decided before they are rewritten (`DK[0]` of a
    /// constant table reads data; its rewritten form no longer shows it).
    fn data_arguments(&self, call: &syn::ExprMethodCall) -> Vec<bool> {
        call.args
            .iter()
            .map(|arg| reads_data_or_constant(arg, self.locals) || self.reads_user_value(arg))
            .collect()
    }

    /// Lifts the rewritten arguments that [`Retype::data_arguments`] found reading data.
    fn lift_data_arguments(&self, call: &mut syn::ExprMethodCall, data: Vec<bool>) {
        for (arg, reads_data) in call.args.iter_mut().zip(data) {
            if reads_data {
                *arg = self.lift(arg);
            }
        }
    }

    /// `m.c` where `m` is a `#[grad]` parameter, or a name bound by a pattern over one: a float
    /// of the twin (passed through), or a `#[no_grad]` field's plain float (lifted).
    fn reads_user_value(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Field(field) => match &*field.base {
                Expr::Path(path) => path
                    .path
                    .get_ident()
                    .is_some_and(|name| self.locals.user_types.of_binding(name).is_some()),
                base => self.reads_user_value(base),
            },
            Expr::Path(path) => path
                .path
                .get_ident()
                .is_some_and(|name| self.locals.pattern_bound.contains(name)),
            Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Deref(_)) => {
                self.reads_user_value(&unary.expr)
            }
            _ => false,
        }
    }

    fn cast_to_scalar(&self, value: &Expr, span: Span) -> Expr {
        let scalar = self.scalar_param(span);
        syn::parse_quote_spanned!(span=>
            ::ad_runtime::__private::CastProbe::new(#value).__ad_cast::<#scalar>()
        )
    }

    fn rewrite_cast(&self, cast: &syn::ExprCast) -> Option<Expr> {
        let span = cast.span();
        let target = match &*cast.ty {
            Type::Path(path) if path.qself.is_none() => path.path.get_ident()?,
            _ => return None,
        };
        if FloatType::from_ident(target).is_some() {
            return Some(self.cast_to_scalar(&cast.expr, span));
        }
        if !INTEGER_TYPES.iter().any(|name| target == name) {
            return None;
        }
        let method = Ident::new(&format!("__ad_as_{target}"), target.span());
        let value = &cast.expr;
        Some(syn::parse_quote_spanned!(span=>
            ::ad_runtime::__private::PrimitiveCast::#method(#value)
        ))
    }

    fn rewrite_call(&mut self, call: &mut syn::ExprCall) -> Option<Expr> {
        let span = call.span();
        let Expr::Path(func) = &*call.func else {
            self.visit_call_args(call);
            return None;
        };
        // `<f64 as Float>::sin(x)`, `<f64>::exp(x)`: `f64::sin(x)`, at the scalar type.
        if let Some(unqualified) = crate::ast::float_function_path(func)
            .filter(|_| func.qself.is_some() && !call.args.is_empty())
        {
            *call.func = Expr::Path(syn::ExprPath {
                attrs: Vec::new(),
                qself: None,
                path: unqualified,
            });
            return self.rewrite_call(call);
        }
        if func.qself.is_some() {
            self.visit_call_args(call);
            return None;
        }
        // `Body::default()` of a derived type, from data: its twin, every float a constant.
        let whole = Expr::Call(call.clone());
        if crate::user_types::constructed_type(&whole).is_some()
            && !call.args.iter().any(|arg| self.locals.may_be_float(arg))
        {
            return Some(self.lift(&whole));
        }
        // A tuple struct's twin is named by an alias, which cannot be called as its
        // constructor: `Vec3(a, b, c)` becomes `Twin { 0: a, 1: b, 2: c }`.
        if self.locals.user_types.names_type_itself(&func.path) {
            let scalar = self.scalar_param(span);
            let twin = self
                .locals
                .user_types
                .twin_path(&func.path, &scalar)
                .expect("a type known to the user types");
            self.visit_call_args(call);
            let fields = call.args.iter().enumerate().map(|(index, arg)| {
                let member = syn::Member::Unnamed(syn::Index {
                    index: index as u32,
                    span,
                });
                quote::quote!(#member: #arg)
            });
            return Some(syn::parse_quote_spanned!(span=> #twin { #(#fields),* }));
        }
        let path = func.path.clone();
        let callee = classify_callee(&path, self.locals);
        // An untyped closure parameter (`|t| g(*t)` over a slice) may hold a float.
        let with_floats = call.args.iter().any(|arg| {
            self.locals.may_be_float(arg)
                || mentions_name(arg, &|name| self.locals.untyped.contains(name))
        });
        let original_args: Vec<Expr> = call.args.iter().cloned().collect();
        self.visit_call_args(call);
        match callee {
            Callee::FloatAssociated(method) if method == "from" && call.args.len() == 1 => {
                Some(self.cast_to_scalar(&call.args[0], span))
            }
            Callee::FloatAssociated(method) => {
                // `f64::max(cfg.b, y)`: data arguments are lifted.
                for (arg, original) in call.args.iter_mut().zip(&original_args) {
                    if self.is_data_constant(original) {
                        *arg = self.lift(original);
                    } else {
                        self.lift_data(arg);
                    }
                }
                let scalar = self.scalar(method.span());
                let args = &call.args;
                Some(syn::parse_quote_spanned!(span=> #scalar::#method(#args)))
            }
            Callee::UserFunction if with_floats => {
                if let Some(plain) = crate::plain_calls::callee(&path) {
                    return Some(self.plain_call(plain, call, &original_args, span));
                }
                let companion = Ident::new(self.companion, path_end_span(&path));
                Some(self.companion_call(
                    quote::quote!(#path::#companion),
                    call,
                    &original_args,
                    span,
                ))
            }
            Callee::UserFunction => Some(self.lift(&Expr::Call(call.clone()))),
            Callee::UserMethod(type_path, method)
                if with_floats
                    && crate::source_facts::has_no_derivative_code(&type_path, &method) =>
            {
                let message = format!(
                    "forward mode does not take {}",
                    crate::plain_calls::UNMARKED_ASSOCIATED
                );
                Some(syn::parse_quote_spanned!(span=> ::core::compile_error!(#message)))
            }
            Callee::UserMethod(type_path, method) if with_floats => {
                let companion = names::method_companion_path(&type_path, &method, self.companion);
                Some(self.companion_call(companion, call, &original_args, span))
            }
            Callee::UserMethod(..) => {
                self.visit_expr_mut(&mut call.func);
                None
            }
            Callee::Other => {
                // `g_grad(x)` over the scalar type: its generic version, `g::grad(x)`.
                if with_floats && !self.locals.all.iter().any(|local| path.is_ident(local)) {
                    if let Some(generic) = names::generic_public_of_path(&path) {
                        if let Expr::Path(func) = &mut *call.func {
                            func.path = generic;
                        }
                        return None;
                    }
                }
                // Types written in the path (`Vec::<f64>::new()`) are retyped too.
                self.visit_expr_mut(&mut call.func);
                None
            }
        }
    }

    /// A call to another function's derivative code. Arguments the syntax takes for data and
    /// that read a place (`row`, `&data.rows[i]`, `cfg.dt`) go through `call_args`, which lifts
    /// those rustc types as plain floats (a data struct's row passed to a `&[f64]` parameter)
    /// and passes anything else on as it is. Each is lifted in place, so the call's temporaries
    /// live through it and its arguments are evaluated in order.
    fn companion_call(
        &self,
        companion: proc_macro2::TokenStream,
        call: &syn::ExprCall,
        original_args: &[Expr],
        span: proc_macro2::Span,
    ) -> Expr {
        let (args, lifts) = self.lifted_args(call, original_args, span);
        // At a scalar type of its own (`Dual<__S>`), named: the bound on `&__S` in scope would
        // otherwise make rustc infer `__S`.
        let companion = match &self.scalar_type {
            Some(scalar) => quote::quote!(#companion::<#scalar>),
            None => companion,
        };
        let called = if self.value_only {
            quote::quote!(#companion(#(#args),*).0)
        } else {
            quote::quote!(#companion(#(#args),*))
        };
        self.with_lifts(called, lifts, span)
    }

    /// A call to a plain function of the file (`plain_calls`): one generic over its float
    /// type runs at dual numbers; one that is not cannot take derivatives, which is one error
    /// at the call.
    fn plain_call(
        &self,
        callee: crate::plain_calls::Callee,
        call: &syn::ExprCall,
        original_args: &[Expr],
        span: proc_macro2::Span,
    ) -> Expr {
        let Expr::Path(function) = &*call.func else {
            return Expr::Call(call.clone());
        };
        let message = match callee {
            crate::plain_calls::Callee::Generic(params) => {
                let (mut args, lifts) = self.lifted_args(call, original_args, span);
                // Parameters not naming the float type take the arguments as written.
                for ((arg, original), param) in args.iter_mut().zip(original_args).zip(&params) {
                    if *param == crate::plain_calls::Param::Data {
                        *arg = quote::quote!(#original);
                    }
                }
                let called = crate::plain_calls::call(
                    &function.path,
                    &params,
                    args,
                    crate::plain_calls::Run::Value,
                    span,
                );
                return self.with_lifts(called, lifts, span);
            }
            crate::plain_calls::Callee::GenericNotYet => crate::plain_calls::GENERIC_NOT_YET,
            crate::plain_calls::Callee::ValueOnly(params) if params.len() == call.args.len() => {
                let args: Option<Vec<proc_macro2::TokenStream>> = params
                    .iter()
                    .zip(&call.args)
                    .map(|(param, arg)| {
                        crate::plain_calls::primal_argument(param, &arg.to_token_stream(), span)
                    })
                    .collect();
                match args {
                    Some(args) => {
                        let function = &function.path;
                        return syn::parse_quote_spanned!(span=> #function(#(#args),*));
                    }
                    None => crate::plain_calls::NOT_ANNOTATED,
                }
            }
            crate::plain_calls::Callee::Plain | crate::plain_calls::Callee::ValueOnly(_)
                if original_args.iter().any(|arg| {
                    matches!(arg, Expr::Closure(_))
                        || matches!(arg, Expr::Reference(reference)
                            if matches!(&*reference.expr, Expr::Closure(_)))
                }) =>
            {
                crate::plain_calls::CLOSURE_TO_PLAIN
            }
            crate::plain_calls::Callee::Plain | crate::plain_calls::Callee::ValueOnly(_) => {
                crate::plain_calls::NOT_ANNOTATED
            }
        };
        let message = format!("forward mode does not take {message}");
        syn::parse_quote_spanned!(span=> ::core::compile_error!(#message))
    }

    fn with_lifts(
        &self,
        called: proc_macro2::TokenStream,
        lifts: bool,
        span: proc_macro2::Span,
    ) -> Expr {
        let called = with_lifted_arguments(called, lifts, span);
        syn::parse_quote_spanned!(span=> #called)
    }

    /// The arguments of a call to derivative code, each a data float or container of them
    /// lifted to the scalar type; and whether any is.
    fn lifted_args(
        &self,
        call: &syn::ExprCall,
        original_args: &[Expr],
        span: proc_macro2::Span,
    ) -> (Vec<proc_macro2::TokenStream>, bool) {
        let scalar = self.scalar_param(span);
        let mut lifts = false;
        let args: Vec<proc_macro2::TokenStream> = call
            .args
            .iter()
            .zip(original_args)
            .map(|(arg, original)| {
                // A constant table (`poly(z, ERF_AN)` with `const ERF_AN: &[f64]`, statrs'
                // `erf`): the table as written, lifted as the parameter takes it.
                let constant = match strip_reference(original) {
                    Expr::Path(path) => {
                        path.qself.is_none() && is_constant_path(&path.path, self.locals)
                    }
                    _ => false,
                };
                if constant {
                    lifts = true;
                    return quote::quote!(::ad_runtime::__private::Arg::arg(
                        &::ad_runtime::__private::LiftProbe::new(#original)
                            .__ad_lift_arg::<#scalar>()
                    ));
                }
                // What the rewriting changed (a constant table it lifted) stays as it is; a data
                // `self`'s field (`lp(x, self.mean)` of a type without the derive) is renamed
                // only.
                let lifted = !self.locals.may_be_float(original)
                    && !mentions_name(original, &|name| self.locals.untyped.contains(name))
                    && (arg == original || *arg == with_self_renamed(original))
                    && reads_a_place(original, &self.locals.mutable_references);
                if !lifted {
                    return quote::quote!(#arg);
                }
                lifts = true;
                quote::quote!(::ad_runtime::__private::Arg::arg(
                    &::ad_runtime::__private::LiftProbe::new(#arg).__ad_lift_arg::<#scalar>()
                ))
            })
            .collect();
        (args, lifts)
    }

    fn visit_call_args(&mut self, call: &mut syn::ExprCall) {
        for arg in call.args.iter_mut() {
            self.visit_expr_mut(arg);
        }
    }

    fn rewrite_macro(&mut self, mac: &mut syn::Macro) {
        if !macros::is_supported(mac) {
            return;
        }
        let Ok(mut args) = MacroArgs::parse_from(mac) else {
            return;
        };
        // `vec![cfg.a, 2.0 * cfg.b]`: the elements meet in one type.
        let joined = match &args {
            MacroArgs::List(elements) if macros::name(mac).as_deref() == Some("vec") => {
                let values: Vec<&Expr> = elements.iter().flat_map(value_leaves).collect();
                self.data_values_to_lift(&values, false)
            }
            _ => Vec::new(),
        };
        for expr in args.exprs_mut() {
            self.visit_expr_mut(expr);
        }
        if let MacroArgs::List(elements) = &mut args {
            let values = elements.iter_mut().flat_map(value_leaves_mut);
            self.lift_joined(values, joined);
        }
        mac.tokens = args.into_token_stream();
    }

    /// Where several values meet in one type (the elements of an array, the branches of an
    /// `if` or a `match`, the value assigned to a float place), a float read from data beside
    /// one of the scalar type is lifted to it: `[cfg.a, cfg.b * 0.01]`, `if k { cfg.a } else
    /// { 0.5 }`. `into_float` when the place is known to hold the scalar type. Returns, for
    /// each value, the data expression (as written) to lift in its place.
    fn data_values_to_lift(&self, values: &[&Expr], into_float: bool) -> Vec<Option<Expr>> {
        let meets_float = into_float || values.iter().any(|value| self.locals.may_be_float(value));
        values
            .iter()
            .map(|value| {
                // `None`, a unit variant or a constant, is no data of a local (a pattern of
                // one is taken for a binding by its syntax).
                let named_by_type = matches!(value, Expr::Path(path)
                if path.path.get_ident().is_some_and(|name| {
                    name.to_string().starts_with(|c: char| c.is_ascii_uppercase())
                }));
                let data = !self.locals.may_be_float(value)
                    && !named_by_type
                    && (reads_data(value, self.locals)
                        || self.reads_user_value(value)
                        || self.is_data_constant(value));
                (meets_float && data).then(|| (*value).clone())
            })
            .collect()
    }

    /// Puts the lifted data values chosen by [`Retype::data_values_to_lift`] in place.
    fn lift_joined<'e>(
        &self,
        values: impl Iterator<Item = &'e mut Expr>,
        lifted: Vec<Option<Expr>>,
    ) {
        for (value, written) in values.zip(lifted) {
            if let Some(written) = written {
                *value = self.lift(&written);
            }
        }
    }
}

/// Methods that order or filter their receiver in place by what a closure gives (an ordering,
/// a key, a test): on a container of data, it stays data whatever the closure reads.
const ORDERS_IN_PLACE: &[&str] = &[
    "sort_by",
    "sort_unstable_by",
    "sort_by_key",
    "sort_unstable_by_key",
    "sort_by_cached_key",
    "retain",
    "dedup_by",
    "dedup_by_key",
    "select_nth_unstable_by",
];

pub const INTEGER_TYPES: &[&str] = &[
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
];

const NOT_USER_FUNCTION_ROOTS: &[&str] = &[
    "std", "core", "alloc", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64",
    "u128", "usize", "bool", "char", "str", "drop",
];

pub enum Callee {
    /// `f64::sin`, `std::f64::max`, `f64::from`, ...
    FloatAssociated(Ident),
    /// A free function of the user's crate (or another crate), called by a lowercase path.
    UserFunction,
    /// `Vec2::norm(p)`, `Self::norm(self)`: a method of a user type called by its path.
    UserMethod(Path, Ident),
    /// A closure in a local variable, a constructor, an associated function of a type, a
    /// function of `std`, or a derivative function (`g_jvp`) that is already generic.
    Other,
}

pub fn classify_callee(path: &Path, locals: &Locals) -> Callee {
    // A local holding a value, not a function, leaves the name to the file's function.
    let the_function = |ident: &Ident| {
        locals.uncallable.contains(ident)
            && crate::source_facts::defines_function(&ident.to_string())
    };
    if path
        .get_ident()
        .is_some_and(|ident| locals.all.contains(ident) && !the_function(ident))
        && !is_float_type_path(path)
    {
        return Callee::Other;
    }
    classify_callee_path(path)
}

/// `Default::default()`, `Spring::default()`, `Self::default()`: a type's default.
fn calls_default(expr: &Expr) -> bool {
    matches!(expr, Expr::Call(call) if call.args.is_empty()
        && matches!(&*call.func, Expr::Path(path) if path.qself.is_none()
            && path.path.segments.last().is_some_and(|last| last.ident == "default")))
}

/// An argument that reads a place (`row`, `cfg.dt`, `&data.rows[i]`), whose type is its own;
/// not a value built where it is passed (`&[]`, `vec![..]`, `Default::default()`, which take
/// their type from the parameter), nor a `&mut` borrow (which the call reborrows).
fn reads_a_place(expr: &Expr, mutable_references: &std::collections::HashSet<Ident>) -> bool {
    match expr {
        Expr::Reference(reference) => {
            reference.mutability.is_none() && reads_a_place(&reference.expr, mutable_references)
        }
        Expr::Paren(inner) => reads_a_place(&inner.expr, mutable_references),
        Expr::Path(path) => {
            path.qself.is_none()
                && !path
                    .path
                    .get_ident()
                    .is_some_and(|name| mutable_references.contains(name))
        }
        Expr::Field(field) => reads_a_place(&field.base, mutable_references),
        Expr::Index(index) => reads_a_place(&index.expr, mutable_references),
        Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Deref(_)) => {
            reads_a_place(&unary.expr, mutable_references)
        }
        _ => false,
    }
}

/// A call whose arguments were lifted by `call_args` (`lifts`): with the traits that lift in
/// scope.
pub fn with_lifted_arguments(
    called: proc_macro2::TokenStream,
    lifts: bool,
    span: proc_macro2::Span,
) -> proc_macro2::TokenStream {
    match lifts {
        false => called,
        true => quote::quote_spanned!(span=> {
            #[allow(unused_imports)]
            use ::ad_runtime::__private::{LiftArgFloats as _, LiftArgOther as _};
            #called
        }),
    }
}

/// What a callee's path names, for a path that is not a local variable.
pub fn classify_callee_path(path: &Path) -> Callee {
    let last = match path.segments.last() {
        Some(segment) => &segment.ident,
        None => return Callee::Other,
    };
    if is_float_type_path(path) {
        return Callee::FloatAssociated(last.clone());
    }
    let name = last.to_string();
    if names::is_generated_function_name(&name) {
        return Callee::Other;
    }
    if let Some(type_path) = method_type(path) {
        return Callee::UserMethod(type_path, last.clone());
    }
    let first = path.segments[0].ident.to_string();
    let all_lowercase = path.segments.iter().all(|segment| {
        segment
            .ident
            .to_string()
            .starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
    });
    if path.leading_colon.is_none()
        && all_lowercase
        && !NOT_USER_FUNCTION_ROOTS.contains(&first.as_str())
    {
        Callee::UserFunction
    } else {
        Callee::Other
    }
}

/// `Vec2::norm` (a lowercase function under a capitalized type that is not one of `std`'s):
/// the type's path.
fn method_type(path: &Path) -> Option<Path> {
    const STD_TYPES: &[&str] = &[
        "Vec", "String", "Box", "Option", "Result", "HashMap", "HashSet", "BTreeMap", "BTreeSet",
        "VecDeque", "Rc", "Arc", "Cell", "RefCell", "Iterator", "Default",
    ];
    let count = path.segments.len();
    if count < 2 || path.leading_colon.is_some() {
        return None;
    }
    let type_segment = &path.segments[count - 2];
    let method = &path.segments[count - 1];
    let type_name = type_segment.ident.to_string();
    let capitalized = type_name.starts_with(|c: char| c.is_ascii_uppercase());
    let lowercase = method
        .ident
        .to_string()
        .starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
    let plain = path
        .segments
        .iter()
        .all(|segment| segment.arguments.is_none());
    (capitalized && lowercase && plain && !STD_TYPES.contains(&type_name.as_str())).then(|| Path {
        leading_colon: None,
        segments: path.segments.iter().take(count - 1).cloned().collect(),
    })
}

fn path_end_span(path: &Path) -> Span {
    path.segments
        .last()
        .map(|segment| segment.ident.span())
        .unwrap_or_else(Span::call_site)
}

/// `MAX_STEPS`, `N`, `Self::LIMIT`: a constant, whose type the macro cannot see.
fn is_constant_path(path: &Path, locals: &Locals) -> bool {
    let Some(last) = path.segments.last() else {
        return false;
    };
    let name = last.ident.to_string();
    last.arguments.is_none()
        && !path
            .get_ident()
            .is_some_and(|ident| locals.all.contains(ident))
        && name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// An expression computed from data alone: not a bare literal or name (those are retyped or
/// lifted on their own), naming no variable for which `may_hold_float` holds, and assigning,
/// returning, breaking and calling generated functions nowhere. It can run on plain floats
/// and be lifted as a whole.
pub fn is_data_constant(
    expr: &Expr,
    may_hold_float: &dyn Fn(&Ident) -> bool,
    is_container: &dyn Fn(&Ident) -> bool,
) -> bool {
    let compound = matches!(
        expr,
        Expr::Binary(_)
            | Expr::MethodCall(_)
            | Expr::Call(_)
            | Expr::Index(_)
            | Expr::Field(_)
            | Expr::Paren(_)
            | Expr::Unary(_)
    );
    // `v.len()`, `v[i].len()`, `v.is_empty()` of a container of floats are data (not a
    // user type's method that happens to be named `len`).
    let mut measured = expr.clone();
    struct Lengths<'a>(&'a dyn Fn(&Ident) -> bool);
    impl Lengths<'_> {
        fn of_container(&self, receiver: &Expr) -> bool {
            match receiver {
                Expr::Path(path) => path.path.get_ident().is_some_and(|name| (self.0)(name)),
                Expr::Index(index) => self.of_container(&index.expr),
                Expr::Paren(paren) => self.of_container(&paren.expr),
                Expr::Reference(reference) => self.of_container(&reference.expr),
                _ => false,
            }
        }
    }
    impl syn::visit_mut::VisitMut for Lengths<'_> {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            if let Expr::MethodCall(call) = expr {
                if call.args.is_empty()
                    && (call.method == "len" || call.method == "is_empty")
                    && self.of_container(&call.receiver)
                {
                    *expr = syn::parse_quote!(0usize);
                    return;
                }
            }
            syn::visit_mut::visit_expr_mut(self, expr);
        }
    }
    syn::visit_mut::VisitMut::visit_expr_mut(&mut Lengths(is_container), &mut measured);
    // A closure's own parameters (`|w| w * cfg.hi`) are bound by it, inside it only: the `w`
    // of `w.iter().map(|w| w * w)` before the closure is the float parameter.
    let expr = &closure_bindings_renamed(&measured);
    compound
        && !mentions_name(expr, &|name| {
            may_hold_float(name)
                || ["return", "break", "continue", "self", names::SELF]
                    .iter()
                    .any(|keyword| name == keyword)
        })
        && !crate::activity::assigns(expr)
        && !mentions_generated_function(expr)
        && !names_float_type_argument(expr)
}

/// `expr` with each name a closure's parameters bind renamed inside that closure, so that the
/// names it mentions are the ones free in it.
fn closure_bindings_renamed(expr: &Expr) -> Expr {
    struct Bound<'a>(&'a [Ident]);
    impl VisitMut for Bound<'_> {
        fn visit_ident_mut(&mut self, ident: &mut Ident) {
            if self.0.contains(ident) {
                *ident = Ident::new("__ad_closure_bound", ident.span());
            }
        }
    }
    struct Closures;
    impl VisitMut for Closures {
        fn visit_expr_closure_mut(&mut self, closure: &mut syn::ExprClosure) {
            syn::visit_mut::visit_expr_closure_mut(self, closure);
            let bound: Vec<Ident> = closure
                .inputs
                .iter()
                .flat_map(|input| crate::activity::pattern_bindings(input).0)
                .collect();
            let mut rename = Bound(&bound);
            for input in &mut closure.inputs {
                rename.visit_pat_mut(input);
            }
            rename.visit_expr_mut(&mut closure.body);
        }
    }
    let mut renamed = expr.clone();
    Closures.visit_expr_mut(&mut renamed);
    renamed
}

/// `Vec::<f64>::new()`, `x.collect::<Vec<f64>>()`: a value whose type is written over floats,
/// which derivative code holds over the scalar type.
fn names_float_type_argument(expr: &Expr) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_generic_argument(&mut self, argument: &'ast syn::GenericArgument) {
            if let syn::GenericArgument::Type(ty) = argument {
                self.0 |= crate::ast::first_float_in(ty).is_some();
            }
            syn::visit::visit_generic_argument(self, argument);
        }
    }
    let mut finder = Finder(false);
    syn::visit::Visit::visit_expr(&mut finder, expr);
    finder.0
}

/// Whether `expr` names a generated function (`g_jvp`, `g_grad`), which is generic already.
fn mentions_generated_function(expr: &Expr) -> bool {
    mentions_name(expr, &|name| {
        names::is_generated_function_name(&name.to_string())
    })
}

/// Whether `expr` names a variable for which `is_named` holds (closures and macros included).
pub fn mentions_name(expr: &Expr, is_named: &dyn Fn(&Ident) -> bool) -> bool {
    tokens_mention(expr.to_token_stream(), is_named)
}

/// Whether `tokens` hold a name for which `is_named` holds, in groups too.
pub fn tokens_mention(tokens: TokenStream, is_named: &dyn Fn(&Ident) -> bool) -> bool {
    tokens.into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Ident(ident) => is_named(&ident),
        proc_macro2::TokenTree::Group(group) => tokens_mention(group.stream(), is_named),
        _ => false,
    })
}

/// `n`, `cfg.scale`, `*head`, `node.left.value`: a read of a local that holds no float. An
/// untyped closure parameter (`|t| t.max(-1.0)` over a slice of floats) may hold one.
/// `expr` with `self` named as the companion's parameter (`names::SELF`), as the rewriting
/// names it.
fn with_self_renamed(expr: &Expr) -> Expr {
    struct RenameSelf;
    impl VisitMut for RenameSelf {
        fn visit_expr_path_mut(&mut self, path: &mut syn::ExprPath) {
            if path.qself.is_none() && path.path.is_ident("self") {
                let span = path.path.segments[0].ident.span();
                path.path = Ident::new(names::SELF, span).into();
            }
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    let mut renamed = expr.clone();
    RenameSelf.visit_expr_mut(&mut renamed);
    renamed
}

/// `expr` without the references taken of it (`&TABLE` gives `TABLE`).
fn strip_reference(expr: &Expr) -> &Expr {
    match expr {
        Expr::Reference(reference) => strip_reference(&reference.expr),
        Expr::Paren(paren) => strip_reference(&paren.expr),
        expr => expr,
    }
}

/// [`reads_data`], or reads a constant (`const DK: &[f64] = &[..]`, statrs' tables): `DK[0]`
/// passed beside floats, `DK.iter()` zipped with them.
fn reads_data_or_constant(expr: &Expr, locals: &Locals) -> bool {
    match expr {
        Expr::Path(path) if path.qself.is_none() && is_constant_path(&path.path, locals) => true,
        Expr::Field(field) => reads_data_or_constant(&field.base, locals),
        Expr::Paren(paren) => reads_data_or_constant(&paren.expr, locals),
        Expr::Index(index) => reads_data_or_constant(&index.expr, locals),
        _ => reads_data(expr, locals),
    }
}

/// `Vec<f64>`, `[f32; 3]`, `Vec<[f64; 2]>`, `Vec<Vec<f64>>`: containers, nested as deep as
/// they are, of floats.
fn holds_floats_only(ty: &Type) -> bool {
    crate::ast::container_element(ty).is_some_and(|element| {
        crate::ast::float_of_type(element).is_some() || holds_floats_only(element)
    })
}

pub fn reads_data(expr: &Expr, locals: &Locals) -> bool {
    match expr {
        Expr::Path(path) => path.path.get_ident().is_some_and(|ident| {
            locals.all.contains(ident)
                && !locals.floats.contains(ident)
                && !locals.untyped.contains(ident)
        }),
        Expr::Field(field) => reads_data(&field.base, locals),
        // `*r`, and `-self.k` of a data field: data too.
        Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Deref(_) | syn::UnOp::Neg(_)) => {
            reads_data(&unary.expr, locals)
        }
        Expr::Paren(paren) => reads_data(&paren.expr, locals),
        Expr::Index(index) => reads_data(&index.expr, locals),
        _ => false,
    }
}

/// A float literal operand (`2.0`, `-0.5`, `4f64`), as written.
fn constant_literal(expr: &Expr) -> Option<TokenStream> {
    match expr {
        Expr::Lit(lit) if float_literal(&lit.lit) => Some(lit.to_token_stream()),
        Expr::Paren(inner) => constant_literal(&inner.expr),
        Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Neg(_)) => {
            let inner = constant_literal(&unary.expr)?;
            Some(quote::quote!(-#inner))
        }
        _ => None,
    }
}

/// A float literal, also one written as an integer with a float suffix (`4f64`).
pub(crate) fn float_literal(lit: &Lit) -> bool {
    match lit {
        Lit::Float(_) => true,
        Lit::Int(int) => matches!(int.suffix(), "f64" | "f32"),
        _ => false,
    }
}

impl VisitMut for Retype<'_> {
    /// An array's length is a `usize` (`[f64; N]`, `[f64; 2 * M]`): never retyped, and in a
    /// type it must stay a constant expression.
    fn visit_type_array_mut(&mut self, array: &mut syn::TypeArray) {
        self.visit_type_mut(&mut array.elem);
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        // As in a type, `[0.0; N]`'s length is a constant `usize`.
        if let Expr::Repeat(repeat) = expr {
            self.visit_expr_mut(&mut repeat.expr);
            return;
        }
        let joined = self.data_values_to_lift(&joined_values(expr), false);
        // `w[0] = cfg.a` into a float place.
        let assigned = match &*expr {
            Expr::Assign(assign) if self.locals.may_be_float(&assign.left) => {
                self.data_values_to_lift(&value_leaves(&assign.right), true)
            }
            _ => Vec::new(),
        };
        let span = expr.span();
        let replacement = match expr {
            Expr::Lit(lit) if float_literal(&lit.lit) => {
                Some(self.constant(lit.to_token_stream(), span))
            }
            Expr::Path(path)
                if path.qself.is_none()
                    && self
                        .locals
                        .user_types
                        .twin_path(&path.path, &self.scalar_param(span))
                        .is_some() =>
            {
                let scalar = self.scalar_param(span);
                path.path = self
                    .locals
                    .user_types
                    .twin_path(&path.path, &scalar)
                    .expect("checked by the guard");
                None
            }
            Expr::Struct(structure) if structure.qself.is_none() => {
                let scalar = self.scalar_param(span);
                let written = structure.path.clone();
                if let Some(twin) = self.locals.user_types.twin_path(&structure.path, &scalar) {
                    structure.path = twin;
                    // `..Default::default()`: the type's own default, its floats constants of
                    // the twin (not the twin's zeros, which need not be the default).
                    if let Some(rest) = structure.rest.as_deref().filter(|rest| calls_default(rest))
                    {
                        let default: Expr = syn::parse_quote_spanned!(rest.span()=>
                            <#written as ::core::default::Default>::default()
                        );
                        structure.rest = Some(Box::new(self.lift(&default)));
                        for field in structure.fields.iter_mut() {
                            self.visit_expr_mut(&mut field.expr);
                        }
                        return;
                    }
                }
                syn::visit_mut::visit_expr_struct_mut(self, structure);
                None
            }
            Expr::Path(path) if path.qself.is_none() && is_float_type_path(&path.path) => {
                Some(self.float_path(&path.path, span))
            }
            Expr::Path(path)
                if path.qself.is_none() && is_constant_path(&path.path, self.locals) =>
            {
                let scalar = self.scalar_param(span);
                Some(syn::parse_quote_spanned!(span=>
                    ::ad_runtime::__private::LiftProbe::new(#path).__ad_lift_constant::<#scalar>()
                ))
            }
            Expr::Cast(cast) => {
                self.visit_expr_mut(&mut cast.expr);
                self.rewrite_cast(cast)
            }
            // `for yr in YS.iter()` binding data only: the plain iteration (its items are lifted
            // where they meet floats, as a data local's are).
            Expr::ForLoop(for_loop)
                if !crate::activity::pattern_bindings(&for_loop.pat)
                    .0
                    .iter()
                    .any(|name| self.locals.floats.contains(name))
                    && self.is_data_constant(&for_loop.expr) =>
            {
                *for_loop.expr = with_self_renamed(&for_loop.expr);
                self.visit_pat_mut(&mut for_loop.pat);
                self.visit_block_mut(&mut for_loop.body);
                None
            }
            Expr::Call(call) => self.rewrite_call(call),
            // A primitive's `place op= value` evaluates `value` first; the scalar type's
            // `OpAssign::op_assign(&mut place, value)` would take the place first.
            // Also for an element (`v[i] *= v[i]`): the trait call would borrow `v` mutably
            // while the right side still reads it.
            Expr::Binary(binary)
                if is_compound_assignment(&binary.op)
                    && (crate::activity::assigns(&binary.right)
                        || matches!(&*binary.left, Expr::Index(_))) =>
            {
                self.visit_expr_mut(&mut binary.left);
                self.visit_expr_mut(&mut binary.right);
                let (left, op, right) = (&binary.left, &binary.op, &binary.right);
                Some(syn::parse_quote_spanned!(span=> {
                    let __ad_value = #right;
                    #left #op __ad_value;
                }))
            }
            Expr::Macro(mac) => {
                self.rewrite_macro(&mut mac.mac);
                None
            }
            // A float read from data (`cfg.scale * x`, `head * x` in a match over data) meets
            // the scalar type: it is lifted to a constant of it.
            Expr::Binary(binary) if !matches!(binary.op, BinOp::And(_) | BinOp::Or(_)) => {
                let is_assignment = crate::activity::is_any_compound_assignment(&binary.op);
                // `k *= 2.0` on a data float: plain arithmetic, as written.
                if is_assignment
                    && reads_data(&binary.left, self.locals)
                    && !self.locals.may_be_float(&binary.left)
                    && !mentions_name(&binary.right, &|name| {
                        self.locals.floats.contains(name) || self.locals.untyped.contains(name)
                    })
                {
                    *expr = with_self_renamed(expr);
                    return;
                }
                // An untyped closure parameter (`|v| v * cfg.hi`) may hold a float.
                let may_hold_float = |expr: &Expr| {
                    self.locals.may_be_float(expr)
                        || mentions_name(expr, &|name| self.locals.untyped.contains(name))
                };
                // `k * v` of a value of a derived type: the type's hidden method for the
                // float's operator, when the file differentiates it (`left_operators`).
                if !is_assignment {
                    if let Some(rewritten) = self.left_operator(binary, span) {
                        *expr = rewritten;
                        return;
                    }
                }
                // `v * 0.5` of such a value: its type's operator, not a float's.
                let literal_times_user_value =
                    self.holds_user_value(&binary.left) || self.holds_user_value(&binary.right);
                let left_float = may_hold_float(&binary.left);
                let right_float = may_hold_float(&binary.right);
                let literals = (
                    constant_literal(&binary.left),
                    constant_literal(&binary.right),
                );
                // An operand computed from data alone (`(cfg.lo + cfg.hi) * x`, `x * cfg.w[1]`)
                // runs on plain floats and is lifted as a whole.
                let left_constant =
                    right_float && !is_assignment && self.is_data_constant(&binary.left);
                let right_constant = left_float && self.is_data_constant(&binary.right);
                if left_constant {
                    *binary.left = self.lift(&binary.left);
                } else {
                    self.visit_expr_mut(&mut binary.left);
                }
                if right_constant {
                    *binary.right = self.lift(&binary.right);
                } else {
                    self.visit_expr_mut(&mut binary.right);
                }
                if right_float && !is_assignment && !left_constant {
                    self.lift_data(&mut binary.left);
                }
                if left_float && !right_constant {
                    self.lift_data(&mut binary.right);
                }
                if is_assignment {
                    return;
                }
                // A literal operand: the `Scalar` method that computes no derivative for it.
                let ops = quote::quote_spanned!(span=> ::ad_runtime::__private::constant_ops);
                let (left, right) = (&binary.left, &binary.right);
                if literal_times_user_value {
                    return;
                }
                match (&binary.op, literals) {
                    (BinOp::Mul(_), (Some(c), None)) if right_float => {
                        Some(syn::parse_quote_spanned!(span=> #ops::mul(#right, #c)))
                    }
                    (BinOp::Mul(_), (None, Some(c))) if left_float => {
                        Some(syn::parse_quote_spanned!(span=> #ops::mul(#left, #c)))
                    }
                    (BinOp::Add(_), (Some(c), None)) if right_float => {
                        Some(syn::parse_quote_spanned!(span=> #ops::add(#right, #c)))
                    }
                    (BinOp::Add(_), (None, Some(c))) if left_float => {
                        Some(syn::parse_quote_spanned!(span=> #ops::add(#left, #c)))
                    }
                    (BinOp::Sub(_), (Some(c), None)) if right_float => {
                        Some(syn::parse_quote_spanned!(span=> #ops::sub_from(#right, #c)))
                    }
                    (BinOp::Sub(_), (None, Some(c))) if left_float => {
                        Some(syn::parse_quote_spanned!(span=> #ops::add(#left, -(#c))))
                    }
                    (BinOp::Div(_), (None, Some(c))) if left_float => {
                        Some(syn::parse_quote_spanned!(span=> #ops::div(#left, #c)))
                    }
                    _ => None,
                }
            }
            // `self` of a method is a parameter of the derivative code.
            Expr::Path(path) if path.qself.is_none() && path.path.is_ident("self") => {
                let span = path.path.segments[0].ident.span();
                path.path = Ident::new(names::SELF, span).into();
                None
            }
            // A method of a user type called on a `#[grad]` value (its twin): the method's
            // companion, beside it in its `impl`.
            Expr::MethodCall(call) if self.user_method(call).is_some() => {
                let companion = self.user_method(call).expect("checked by the guard");
                syn::visit_mut::visit_expr_method_call_mut(self, call);
                let receiver = &call.receiver;
                // A value built in the body goes to a `self` method's companion as a copy, to
                // a `&self` one's by reference; the companion's parameter type chooses.
                let name = match &**receiver {
                    Expr::Path(path) => path.path.get_ident(),
                    _ => None,
                };
                let built = name.is_some_and(|name| self.locals.user_types.is_built(name));
                // A `mut` local, or `self` of a `&mut self` method, is lent mutably: the
                // companion of a `&mut self` method changes it (one of `&self` reads it).
                let mutable = name.is_some_and(|name| {
                    (built && self.locals.mutable_locals.contains(name))
                        || (name == names::SELF && self.locals.mutable_references.contains(name))
                });
                let receiver = match (built, mutable) {
                    (true, true) => {
                        quote::quote!(::ad_runtime::__private::receiver(&mut #receiver))
                    }
                    (false, true) => quote::quote!(&mut *#receiver),
                    (true, false) => quote::quote!(::ad_runtime::__private::receiver(&#receiver)),
                    // A parameter: a reference, or the value itself.
                    (false, false) => quote::quote!(::ad_runtime::__private::receiver(&#receiver)),
                };
                let args = &call.args;
                let called = match self.value_only {
                    true => quote::quote!(.0),
                    false => quote::quote!(),
                };
                if mutable && !args.is_empty() {
                    // The arguments first: they may read the receiver (`a.add(a.norm())`, as
                    // Rust's two-phase borrows allow), the loan is taken at the call. A `match`
                    // keeps their temporaries alive through it.
                    let names: Vec<Ident> = (0..args.len())
                        .map(|index| quote::format_ident!("__ad_arg{}", index, span = span))
                        .collect();
                    let args = args.iter();
                    Some(syn::parse_quote_spanned!(span=>
                        match (#(#args,)*) {
                            (#(#names,)*) => #companion(#receiver, #(#names),*)#called,
                        }
                    ))
                } else {
                    Some(syn::parse_quote_spanned!(span=> #companion(#receiver, #args)#called))
                }
            }
            // `shift.unwrap_or(1.0)`, `cfg.lo.max(0.5)`: a method of data with constant
            // arguments runs on plain floats; its result is lifted.
            Expr::MethodCall(call)
                if reads_data(&call.receiver, self.locals)
                    && call.args.iter().all(|arg| {
                        !mentions_name(arg, &|name| self.locals.floats.contains(name))
                    }) =>
            {
                Some(self.lift(&Expr::MethodCall(call.clone())))
            }
            Expr::MethodCall(call) if call.args.iter().any(|arg| self.locals.may_be_float(arg)) => {
                // `w.iter().zip(x)` of a data container `w`: its items lifted, as those of
                // a copy (`lift_iterated`).
                let iterates_data = matches!(&*call.receiver, Expr::MethodCall(inner)
                    if inner.method == "iter"
                        && inner.args.is_empty()
                        && inner.turbofish.is_none()
                        && (reads_data_or_constant(&inner.receiver, self.locals)
                            || self.reads_user_value(&inner.receiver)));
                let data_args = self.data_arguments(call);
                if iterates_data {
                    *call.receiver = self.lift_iterated(&call.receiver, true);
                    for arg in call.args.iter_mut() {
                        self.visit_expr_mut(arg);
                    }
                } else {
                    syn::visit_mut::visit_expr_method_call_mut(self, call);
                    // `idx.sort_by(|&i, &j| x[i].partial_cmp(&x[j]).unwrap())`: a container of
                    // data ordered by floats stays data.
                    if !ORDERS_IN_PLACE.contains(&call.method.to_string().as_str()) {
                        self.lift_data(&mut call.receiver);
                    }
                }
                self.lift_data_arguments(call, data_args);
                None
            }
            // `w.iter().zip(&data.x)`: plain floats zipped with floats carrying derivatives;
            // the zipped items are those of a copy as constants (anything else passes).
            Expr::MethodCall(call) if self.zips_data_with_floats(call) => {
                self.visit_expr_mut(&mut call.receiver);
                let zipped = with_self_renamed(&zipped_argument(&call.args[0]));
                let span = zipped.span();
                let scalar = self.scalar_param(span);
                call.args[0] = syn::parse_quote_spanned!(span=>
                    ::ad_runtime::__private::LiftProbe::new(#zipped)
                        .__ad_lift_zipped(&mut ::std::vec::Vec::<#scalar>::new())
                );
                None
            }
            Expr::MethodCall(call) if self.locals.may_be_float(&call.receiver) => {
                let data_args = self.data_arguments(call);
                syn::visit_mut::visit_expr_method_call_mut(self, call);
                self.lift_data_arguments(call, data_args);
                None
            }
            _ => {
                syn::visit_mut::visit_expr_mut(self, expr);
                None
            }
        };
        if let Some(replacement) = replacement {
            *expr = replacement;
            return;
        }
        self.lift_joined(joined_values_mut(expr).into_iter(), joined);
        if let Expr::Assign(assign) = expr {
            self.lift_joined(value_leaves_mut(&mut assign.right).into_iter(), assigned);
        }
    }

    /// `let mut k = cfg.lo;` where `k` later holds floats: its first value is lifted.
    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        // `let n: usize = (0..k).map(|_| 1).sum();`: the written type says it is data.
        let written_integer = matches!(&local.pat, Pat::Type(typed)
        if matches!(&*typed.ty, Type::Path(path) if path.qself.is_none()
            && path.path.get_ident().is_some_and(|name| {
                INTEGER_TYPES.iter().any(|integer| name == integer) || name == "bool"
            })));
        let binds_float = !written_integer
            && crate::activity::pattern_bindings(&local.pat)
                .0
                .iter()
                .any(|name| self.locals.floats.contains(name));
        // `let s: f64 = data..sum();`: the written type still drives inference of the plain value.
        let written_type = match &local.pat {
            Pat::Type(typed) if crate::ast::float_of_type(&typed.ty).is_some() => {
                Some((*typed.ty).clone())
            }
            _ => None,
        };
        // `let d: Vec<f64> = data(n);`: the plain container, its elements lifted.
        let written_container = match &local.pat {
            Pat::Type(typed) if holds_floats_only(&typed.ty) => Some((*typed.ty).clone()),
            _ => None,
        };
        if let (Some(ty), Some(init)) = (&written_container, &mut local.init) {
            if init.diverge.is_none() && self.is_data_constant(&init.expr) {
                let value = &init.expr;
                let scalar = self.scalar_param(value.span());
                *init.expr = syn::parse_quote!(
                    ::ad_runtime::__private::lift_elements::<#scalar, _>({
                        let __ad_plain: #ty = #value;
                        __ad_plain
                    })
                );
                self.visit_pat_mut(&mut local.pat);
                return;
            }
        }
        // `let k = DRAG;`, `let y = YS[0];`, `let noise = rng.uniform();`, `let y: f64 = *yr;`
        // where the local holds data only: the plain value (its written type too), lifted
        // where it is used (`GRAVITY / k` stays a computation on data, lifted as a whole).
        if let Some(init) = &local.init {
            let constant = matches!(&*init.expr, Expr::Path(path)
                if path.qself.is_none() && is_constant_path(&path.path, self.locals));
            if !binds_float
                && init.diverge.is_none()
                && (constant || self.is_data_constant(&init.expr))
            {
                if let Some(init) = &mut local.init {
                    *init.expr = with_self_renamed(&init.expr);
                }
                return;
            }
        }
        if let Some(init) = &mut local.init {
            if binds_float && init.diverge.is_none() {
                if self.is_data_constant(&init.expr) {
                    let plain: Expr = match &written_type {
                        Some(ty) => {
                            let value = &init.expr;
                            syn::parse_quote!({ let __ad_plain: #ty = #value; __ad_plain })
                        }
                        None => (*init.expr).clone(),
                    };
                    *init.expr = self.lift(&plain);
                    self.visit_pat_mut(&mut local.pat);
                    return;
                }
                if reads_data(&init.expr, self.locals) {
                    self.visit_pat_mut(&mut local.pat);
                    self.visit_expr_mut(&mut init.expr);
                    *init.expr = self.lift(&init.expr);
                    return;
                }
            }
        }
        syn::visit_mut::visit_local_mut(self, local);
    }

    fn visit_stmt_macro_mut(&mut self, stmt: &mut syn::StmtMacro) {
        self.rewrite_macro(&mut stmt.mac);
    }

    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(path) = ty {
            if path.qself.is_none() {
                let scalar = self.scalar_param(path.span());
                if let Some(twin) = self.locals.user_types.twin_type(&path.path, &scalar) {
                    *ty = twin;
                    return;
                }
            }
            if path.qself.is_none()
                && path
                    .path
                    .get_ident()
                    .is_some_and(|ident| FloatType::from_ident(ident) == Some(self.float))
            {
                let scalar = self.scalar_param(path.span());
                *ty = syn::parse_quote!(#scalar);
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }

    /// Patterns are left alone, except the types written in them (`let x: f64`) and the
    /// user types they name, which become twins (`List::Cons(head, tail)`).
    fn visit_pat_mut(&mut self, pat: &mut Pat) {
        let scalar = self.scalar_param(pat.span());
        self.locals.user_types.rewrite_pattern(pat, &scalar);
        match pat {
            Pat::Type(typed) => {
                self.visit_pat_mut(&mut typed.pat);
                self.visit_type_mut(&mut typed.ty);
            }
            Pat::Lit(_) | Pat::Range(_) | Pat::Path(_) | Pat::Const(_) => {}
            _ => syn::visit_mut::visit_pat_mut(self, pat),
        }
    }

    /// Items nested in the body are ordinary code that is not differentiated.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}

    /// Inner `#[checkpoint]`s only matter to reverse mode's own lowering.
    fn visit_attributes_mut(&mut self, attrs: &mut Vec<syn::Attribute>) {
        attrs.retain(|attr| !crate::attr::is_checkpoint(attr));
    }
}

/// The `where` clause of every generated function: arithmetic on `&__S` (what iterating over
/// a slice of scalars gives), which Rust cannot make part of the `Scalar` trait itself.
pub fn quote_scalar_where(span: Span) -> TokenStream {
    let scalar = names::scalar_param(span);
    quote!(where for<'__ad> &'__ad #scalar: ::ad_runtime::ScalarRef<#scalar>)
}

pub fn quote_scalar_bound(float: FloatType, span: Span) -> TokenStream {
    let scalar = names::scalar_param(span);
    let float = float.ident(span);
    quote!(#scalar: ::ad_runtime::Scalar<Base = #float>)
}
