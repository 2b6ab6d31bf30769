//! Reverse mode on the AD-IR: the body of `__ad_reverse` emitted from `crate::ir`.
//!
//! The forward sweep is the function's own code in ANF, with its own control flow. What the
//! backward sweep reads of a value defined inside a loop or a branch is pushed on a stack of
//! its own (one per value, typed by rustc), and read back last first; values of the function's
//! top level are captured by the pullback. The pullback is one closure that mirrors the
//! control flow backwards: an `if` on the kept condition, a loop run as many times as the
//! forward loop ran. Every adjoint is a local whose type rustc infers from what reaches it
//! (`ad_runtime::adjoint`): a float's is a float, an integer's is zero-sized.
//!
//! The engine grows beside the previous one (`expand/reverse.rs`): with the `ir-engine`
//! feature, a function whose every construct the IR lowers and emits goes through here, any
//! other through the previous engine.

use std::collections::{BTreeSet, HashMap, HashSet};

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::Ident;

use crate::ast::{float_of_type, Function, ParamKind};
use crate::ir::activity::{self, Activity};
use crate::ir::lower::{self, NotYet};
use crate::ir::residuals::{Passes, Residuals};
use crate::ir::restore::Source;
use crate::ir::*;
use crate::names;

mod accumulators;
mod pullbacks;
mod states;

const IR: &str = "::ad_runtime::__private::ir";

/// The body of the reverse companion, or what the IR engine does not take yet.
pub fn companion_body(function: &Function, boxed: bool) -> Result<TokenStream, NotYet> {
    companion_body_borrowing(function, boxed, None).map(|(body, _)| body)
}

/// The body of the borrowed companion, whose pullback may borrow the parameters for
/// `lifetime` and reads their elements again instead of keeping them; `None` when it reads
/// none again (the companion would be `__ad_reverse` over again) or the IR engine does not
/// take the function.
pub fn borrowed_companion_body(
    function: &Function,
    boxed: bool,
    lifetime: &syn::Lifetime,
) -> Option<TokenStream> {
    match companion_body_borrowing(function, boxed, Some(lifetime)) {
        Ok((body, true)) => Some(body),
        _ => None,
    }
}

/// The companion's body, and whether its backward sweep reads parameters again.
fn companion_body_borrowing(
    function: &Function,
    boxed: bool,
    borrowed: Option<&syn::Lifetime>,
) -> Result<(TokenStream, bool), NotYet> {
    check_signature(function)?;
    let passes = Passes::from_environment();
    let mut body = lower::lower(function)?;
    if passes.reuse_reads {
        crate::ir::reads::reuse_reads(&mut body);
    }
    let inductions = match passes.recompute {
        true => crate::ir::induction::find(&mut body),
        false => HashMap::new(),
    };
    let differentiated: Vec<Root> = function
        .params
        .iter()
        .zip(&body.params)
        // A `#[no_grad]` parameter gets no adjoint from `f_vjp`, but the companion's pullback
        // gives it to callers that pass a value carrying a derivative (forward mode
        // differentiates through it too). The borrowed companion, which only `f_vjp` and
        // `f_grad` call, leaves it out.
        .filter(|(param, _)| match param.kind {
            ParamKind::Data => false,
            ParamKind::Constant => borrowed.is_none(),
            ParamKind::Differentiated => true,
        })
        .map(|(_, root)| *root)
        .collect();
    let activity = activity::analyse(&body, &differentiated);
    crate::ir::validate::check(&body, &activity)?;
    let sized_shadows = match passes.sized_shadows {
        true => crate::ir::fixed_length_vars(&body)
            .into_iter()
            .filter(|var| activity.useful.contains(&Root::Var(*var)))
            .collect(),
        false => HashSet::new(),
    };
    // In the borrowed companion, the parameters held by reference outlive the pullback.
    let borrowable = match borrowed {
        Some(_) => function
            .params
            .iter()
            .zip(&body.params)
            .filter_map(|(param, root)| match root {
                // A reference whose lifetime the user wrote keeps it: only elided ones
                // become the borrowed companion's.
                Root::Value(value) if param.is_reference() && elided_reference(&param.ty) => {
                    Some(*value)
                }
                _ => None,
            })
            .collect(),
        None => HashSet::new(),
    };
    let mut emitter = Emitter {
        function,
        body: &body,
        activity,
        needed: HashSet::new(),
        stacks: Vec::new(),
        residuals: Residuals::new(&body, passes, borrowable, inductions),
        recomputed: HashSet::new(),
        borrowed,
        markers: Vec::new(),
        call_values: call_values(&body),
        captured: Vec::new(),
        restored: BTreeSet::new(),
        states: HashSet::new(),
        accumulators: HashMap::new(),
        sized_shadows,
        zero_stacks: HashSet::new(),
        unreached: Vec::new(),
    };
    let tokens = emitter.emit(boxed)?;
    let reads_again = emitter
        .recomputed
        .iter()
        .any(|value| emitter.residuals.reads_parameter(*value));
    Ok((tokens, reads_again))
}

/// How a value's adjoint starts when not from its type alone.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CallValue {
    /// A call's result: shaped as the value (the callee's pullback takes a cotangent of its
    /// result's shape).
    Result,
    /// A value passed to a call: shaped as the value where its type needs it (a derived
    /// type's adjoint comes back from the callee flat, and is added field by field).
    Argument,
}

fn call_values(body: &Body) -> HashMap<Value, CallValue> {
    let mut values = HashMap::new();
    let mut arguments = Vec::new();
    for_each_stmt(&body.block, &mut |stmt| {
        if let Stmt::Let(Let {
            value,
            rvalue: Rvalue::Call { args, .. },
            ..
        }) = stmt
        {
            values.insert(*value, CallValue::Result);
            arguments.extend(args.iter().filter_map(|arg| match arg {
                Operand::Value(arg) => Some(*arg),
                _ => None,
            }));
        }
    });
    for argument in arguments {
        values.entry(argument).or_insert(CallValue::Argument);
    }
    values
}

fn check_signature(function: &Function) -> Result<(), NotYet> {
    let not_yet = |span: Span, what| Err(NotYet { span, what });
    match function.output() {
        Some(ty) if crate::ast::first_float_in(ty).is_some() => {}
        _ => return not_yet(function.name().span(), "results without a float"),
    }
    // Every differentiable parameter type but the user's has an adjoint type
    // (`ad_runtime::adjoint::Diff`); `lower` leaves `#[grad]` parameters to the previous engine.
    for param in &function.params {
        if param.kind == ParamKind::Data && float_of_type(&param.ty).is_some() {
            return not_yet(param.name.span(), "parameters of this type");
        }
    }
    Ok(())
}

struct Emitter<'a> {
    function: &'a Function,
    body: &'a Body,
    activity: Activity,
    /// Values the backward sweep reads.
    needed: HashSet<Value>,
    /// The stacks of values kept inside loops and branches, with the depth of their pushes.
    stacks: Vec<(Ident, usize)>,
    /// Where each value the backward sweep reads comes from (`ir::residuals`).
    residuals: Residuals<'a>,
    /// Values the backward sweep computes again instead of taking them back.
    recomputed: HashSet<Value>,
    /// In the borrowed companion, the lifetime for which the pullback borrows the parameters.
    borrowed: Option<&'a syn::Lifetime>,
    /// The adjoint-type markers declared at the top (`mark`).
    markers: Vec<Ident>,
    /// Values defined by calls: their adjoints start as zeros of their shape (`mark`).
    call_values: HashMap<Value, CallValue>,
    /// Top-level values the pullback captures.
    captured: Vec<Value>,
    /// The containers whose state at the end of each iteration of a loop (by number) the
    /// backward code of the iteration restores (`ir::restore`).
    restored: BTreeSet<(usize, Root)>,
    /// The stacks among `stacks` that keep such states (`ir::States`).
    states: HashSet<Ident>,
    /// The locals that sum the adjoints of elements read at loop-invariant places, by the
    /// place's key, in the backward code of the loops that read them (`accumulators`).
    accumulators: HashMap<String, Ident>,
    /// The local containers whose shadow is made at their full length where they are
    /// declared, and indexed as a parameter's is (`ir::fixed_length_vars`).
    sized_shadows: HashSet<Var>,
    /// The stacks among `stacks` that keep zero adjoints shaped as call values
    /// (`Stack::keep_zero`).
    zero_stacks: HashSet<Ident>,
    /// Per block whose backward code is being emitted, innermost last: the values defined
    /// there whose adjoint no contribution has reached yet in the backward code emitted so
    /// far. The first contribution, when it runs unconditionally in that block, is assigned
    /// (`Passes::assign_first`).
    unreached: Vec<HashSet<Value>>,
}

/// What a block defines that its backward code may need back: values, and the trip counts of
/// its loops.
enum Defined {
    Value(Value),
    /// The trip count of the loop of this number: kept, or computed from its range's bounds.
    Count(usize, Option<TokenStream>),
    /// The pullback of the call that defines this value.
    Pullback(Value),
}

impl Emitter<'_> {
    fn emit(&mut self, boxed: bool) -> Result<TokenStream, NotYet> {
        let body = self.body;
        let Some(result) = &body.block.result else {
            return Err(NotYet {
                span: self.function.name().span(),
                what: "functions without a tail expression",
            });
        };
        let backward = self.backward_block(&body.block, 0, Some(quote!(__ad_ct)))?;
        let forward = self.forward_block(&body.block, 0);
        let result = self.operand(result);
        let scalar = names::scalar_param(self.function.name().span());
        let mut bind_params = Vec::new();
        let mut adjoints = Vec::new();
        for (param, root) in self.function.params.iter().zip(&body.params) {
            let name = &param.name;
            let (own, adjoint) = match root {
                Root::Value(value) => (self.value_name(*value), self.value_adjoint(*value)),
                Root::Var(var) => (self.var_name(*var), self.var_adjoint(*var)),
            };
            let mutability = matches!(root, Root::Var(_)).then(|| quote!(mut));
            if param.kind == ParamKind::Data && crate::ast::first_float_in(&param.ty).is_some() {
                // Data as constants of the scalar type: an `Option<f64>` becomes an
                // `Option<S>`; other data stays as it is.
                bind_params.push(quote!(
                    let #mutability #own =
                        ::ad_runtime::__private::LiftProbe::new(#name).__ad_lift::<#scalar>();
                ));
            } else {
                bind_params.push(quote!(let #mutability #own = #name;));
            }
            if param.kind == ParamKind::Data {
                adjoints.push(quote!(()));
            } else {
                let reference = if param.is_reference() {
                    quote!(#own)
                } else {
                    quote!(&#own)
                };
                let ir: TokenStream = IR.parse().expect("a path");
                bind_params.push(quote!(let mut #adjoint = #ir::zero_like(#reference);));
                if param.user_type.is_some() {
                    // A derived type's adjoint goes to the caller flat, as every companion
                    // gives it (`ad_runtime::__private::ir::FlatAdjoint`).
                    adjoints.push(quote!(#ir::flatten(&#adjoint)));
                } else {
                    adjoints.push(quote!(#adjoint));
                }
            }
        }
        let ir: TokenStream = IR.parse().expect("a path");
        // What the pullback captures, by value.
        let params_needed: Vec<Value> = body
            .params
            .iter()
            .filter_map(|root| match root {
                Root::Value(value) if self.needed.contains(value) => Some(*value),
                _ => None,
            })
            .collect();
        let captures = self
            .captured
            .iter()
            .chain(&params_needed)
            .map(|value| {
                let name = self.value_name(*value);
                quote!(let #name = #ir::value_of(#name);)
            })
            .collect::<Vec<_>>();
        let stacks = self
            .stacks
            .iter()
            .map(|(stack, _)| match self.states.contains(stack) {
                true => quote!(let mut #stack = #ir::States::new();),
                false => quote!(let mut #stack = #ir::Stack::new();),
            })
            .chain(
                self.markers
                    .iter()
                    .map(|marker| quote!(let mut #marker = #ir::AdjointOf::new();)),
            )
            .collect::<Vec<_>>();
        let output = super::reverse::output_type(self.function, &scalar);
        // A result with containers in it: the cotangent must have its shape.
        let scalar_result = self
            .function
            .output()
            .is_some_and(|ty| float_of_type(ty).is_some());
        let (result_shape, check_cotangent) = if scalar_result {
            (TokenStream::new(), TokenStream::new())
        } else {
            (
                quote!(let __ad_result_shape = #ir::zero_like(&__ad_result);),
                quote!(#ir::check_cotangent(&__ad_result_shape, &__ad_ct);),
            )
        };
        let items = &body.items;
        let twins = body.user_types.aliases();
        let adjoints_of_types = body.user_types.adjoint_aliases();
        let imports = quote! {
            #(#items)*
            #twins
            #adjoints_of_types
            #[allow(unused_imports)]
            use ::ad_runtime::__private::{
                CastPrimitive as _, CastScalar as _, LiftContainer as _, LiftFloat as _, LiftOption as _,
                LiftOther as _, LiftTuple as _, UnliftOther as _, UnliftScalar as _,
            };
        };
        if !boxed {
            return Ok(quote! {
                #imports
                #(#bind_params)*
                #(#stacks)*
                #forward
                let __ad_result = #result;
                #result_shape
                #(#captures)*
                (__ad_result, move |__ad_ct: #output| {
                    #check_cotangent
                    #backward
                    (#(#adjoints,)*)
                })
            });
        }
        // A function that calls differentiated functions may recurse: both sweeps move to a
        // new stack segment when this one runs low (checked once per call).
        let pullback_type = super::reverse::pullback_type(self.function, &scalar, self.borrowed);
        Ok(quote! {
            #imports
            ::ad_runtime::__private::maybe_grow(move || -> (#output, #pullback_type) {
                #(#bind_params)*
                #(#stacks)*
                #forward
                let __ad_result = #result;
                #result_shape
                #(#captures)*
                (__ad_result, ::std::boxed::Box::new(move |__ad_ct: #output| {
                    ::ad_runtime::__private::maybe_grow(move || {
                        #check_cotangent
                        #backward
                        (#(#adjoints,)*)
                    })
                }))
            })
        })
    }

    fn ir(&self) -> TokenStream {
        IR.parse().expect("a path")
    }

    // Every generated name is `__ad_` and a category (`v`, `dv`, `m`, `dm`, `keep`, `count`)
    // then `_`, the user's name if any, and a number: no two can be equal, and none is a name
    // the user writes.
    fn value_name(&self, value: Value) -> Ident {
        self.numbered(
            "v",
            self.body.value_info(value).name.as_ref(),
            value.0,
            self.body.value_info(value).span,
        )
    }

    fn value_adjoint(&self, value: Value) -> Ident {
        self.numbered(
            "dv",
            self.body.value_info(value).name.as_ref(),
            value.0,
            self.body.value_info(value).span,
        )
    }

    fn var_name(&self, var: Var) -> Ident {
        let info = self.body.var_info(var);
        self.numbered("m", Some(&info.name), var.0, info.span)
    }

    fn var_adjoint(&self, var: Var) -> Ident {
        let info = self.body.var_info(var);
        self.numbered("dm", Some(&info.name), var.0, info.span)
    }

    fn numbered(&self, category: &str, name: Option<&Ident>, number: u32, span: Span) -> Ident {
        match name {
            Some(name) => format_ident!("__ad_{}_{}_{}", category, name, number, span = span),
            None => format_ident!("__ad_{}_{}", category, number, span = span),
        }
    }

    fn pullback_name(&self, value: Value) -> Ident {
        let info = self.body.value_info(value);
        self.numbered("pb", info.name.as_ref(), value.0, info.span)
    }

    fn pullback_stack_name(&self, value: Value) -> Ident {
        let info = self.body.value_info(value);
        self.numbered("keep_pb", info.name.as_ref(), value.0, info.span)
    }

    /// Keeps a call's pullback for the backward sweep when the call's value has an adjoint.
    fn keep_pullback(&mut self, value: Value, depth: usize) -> TokenStream {
        if depth == 0 || !self.activity.is_useful_value(value) {
            return TokenStream::new();
        }
        let stack = self.pullback_stack_name(value);
        let name = self.pullback_name(value);
        self.stacks.push((stack.clone(), depth));
        quote!(#stack.push(#name);)
    }

    fn marker_name(&self, root: Root) -> Ident {
        match root {
            Root::Value(value) => {
                let info = self.body.value_info(value);
                self.numbered("ty", info.name.as_ref(), value.0, info.span)
            }
            Root::Var(var) => {
                let info = self.body.var_info(var);
                self.numbered("tym", Some(&info.name), var.0, info.span)
            }
        }
    }

    /// Notes the adjoint type of a useful value or variable just defined or assigned
    /// (`ir::AdjointOf`, zero-sized): the backward sweep makes its adjoint from it. At the top
    /// level a value's is captured; inside loops and branches, and for variables, one
    /// declared at the top is assigned.
    fn mark(&mut self, root: Root, depth: usize) -> TokenStream {
        if !self.activity.useful.contains(&root) || self.is_param(root) {
            return TokenStream::new();
        }
        let ir = self.ir();
        let marker = self.marker_name(root);
        let name = match root {
            Root::Value(value) => self.value_name(value),
            Root::Var(var) => self.var_name(var),
        };
        if let Root::Value(value) = root {
            // A callee's pullback takes a cotangent of its result's shape; a callee's adjoint
            // of a derived type comes back flat and is added into one shaped as the value.
            let zero = match self.call_values.get(&value) {
                Some(CallValue::Result) => Some(quote!(#ir::zero_like(&#name))),
                Some(CallValue::Argument) => Some(quote!(#ir::argument_zero(&#name))),
                None => None,
            };
            if let Some(zero) = zero {
                if depth == 0 {
                    return quote!(let #marker = #zero;);
                }
                let stack = self.zero_stack_name(value);
                self.stacks.push((stack.clone(), depth));
                self.zero_stacks.insert(stack.clone());
                return quote!(#stack.keep_zero(#zero););
            }
        }
        if depth == 0 && matches!(root, Root::Value(_)) {
            return quote!(let #marker = #ir::adjoint_of(&#name););
        }
        if !self.markers.contains(&marker) {
            self.markers.push(marker.clone());
        }
        quote!(#marker = #ir::adjoint_of(&#name);)
    }

    fn sized_shadow_name(&self, var: Var) -> Ident {
        let info = self.body.var_info(var);
        self.numbered("shadow", Some(&info.name), var.0, info.span)
    }

    fn zero_stack_name(&self, value: Value) -> Ident {
        let info = self.body.value_info(value);
        self.numbered("keep_zero", info.name.as_ref(), value.0, info.span)
    }

    fn stack_name(&self, value: Value) -> Ident {
        let info = self.body.value_info(value);
        self.numbered("keep_v", info.name.as_ref(), value.0, info.span)
    }

    fn root_adjoint(&self, root: Root) -> Ident {
        match root {
            Root::Value(value) => self.value_adjoint(value),
            Root::Var(var) => self.var_adjoint(var),
        }
    }

    fn is_param(&self, root: Root) -> bool {
        self.body.params.contains(&root)
    }

    /// An operand in forward code.
    fn operand(&self, operand: &Operand) -> TokenStream {
        match operand {
            Operand::Value(value) => self.value_name(*value).into_token_stream(),
            Operand::Constant(constant) => self.constant(constant),
            Operand::Place(place) => self.place(place),
        }
    }

    /// An operand the backward code reads: a value it reads is kept.
    fn read_back(&mut self, operand: &Operand) -> Result<TokenStream, NotYet> {
        match operand {
            Operand::Value(value) => {
                if self.residuals.recomputes(*value) {
                    if let Some(Source::Iteration { loop_index, root }) =
                        self.residuals.container_read(*value)
                    {
                        self.restored.insert((loop_index, root));
                    }
                    if self.recomputed.insert(*value) {
                        for operand in self.residuals.recomputed_from(*value) {
                            self.read_back(&operand)?;
                        }
                    }
                } else {
                    self.needed.insert(*value);
                }
                Ok(self.value_name(*value).into_token_stream())
            }
            Operand::Constant(constant) => Ok(self.constant(constant)),
            Operand::Place(place) => Err(NotYet {
                span: place.span,
                what: "places read by the backward sweep",
            }),
        }
    }

    /// An operand a rule reads in the backward code, by value (the code may hold it by
    /// reference: `for x in v.iter()`).
    fn read_back_value(&mut self, operand: &Operand) -> Result<TokenStream, NotYet> {
        let tokens = self.read_back(operand)?;
        match operand {
            Operand::Value(_) => {
                let ir = self.ir();
                Ok(quote!(#ir::value_of(#tokens)))
            }
            _ => Ok(tokens),
        }
    }

    fn constant(&self, constant: &Constant) -> TokenStream {
        let span = constant.span;
        let tokens = &constant.tokens;
        let scalar = names::scalar_param(span);
        match constant.kind {
            ConstantKind::Data => tokens.clone(),
            ConstantKind::Float => {
                let constructor = self.function.float.constructor(span);
                quote_spanned!(span=> <#scalar as ::ad_runtime::Scalar>::#constructor(#tokens))
            }
            ConstantKind::Path => quote_spanned!(span=>
                ::ad_runtime::__private::LiftProbe::new(#tokens).__ad_lift::<#scalar>()
            ),
        }
    }

    fn place(&self, place: &Place) -> TokenStream {
        let mut tokens = match place.root {
            Root::Value(value) => self.value_name(value).into_token_stream(),
            Root::Var(var) => self.var_name(var).into_token_stream(),
        };
        for projection in &place.projections {
            tokens = match projection {
                Projection::Index(index) => {
                    let index = self.operand(index);
                    quote!(#tokens[#index])
                }
                Projection::Field(member) => quote!(#tokens.#member),
                Projection::Deref => quote!((*#tokens)),
            };
        }
        tokens
    }

    /// The code of the operation that defines a value (in the forward sweep, or again in the
    /// backward one).
    fn defining_rvalue(&self, rvalue: &Rvalue, span: Span) -> TokenStream {
        match rvalue {
            // Data entering the computation (`cfg.lo` of a data parameter): a float of it
            // becomes a constant of the scalar type, anything else stays as it is. Variables
            // hold what the body computed, already of the right type.
            // A field of a derived type may be a `#[no_grad]` float: data, lifted too.
            Rvalue::Use(Operand::Place(place))
                if (matches!(place.root, Root::Value(_))
                    && !self.activity.active.contains(&place.root))
                    || reads_indirectly(place) =>
            {
                let read = self.place(place);
                let scalar = names::scalar_param(place.span);
                quote_spanned!(place.span=>
                    ::ad_runtime::__private::LiftProbe::new(#read).__ad_lift::<#scalar>()
                )
            }
            _ => self.rvalue(rvalue, span),
        }
    }

    /// An operation in forward code, spanned on the user's expression: a type error in it
    /// (`!` on a float, a method of the wrong type) points at the user's code.
    fn rvalue(&self, rvalue: &Rvalue, span: Span) -> TokenStream {
        match rvalue {
            Rvalue::Use(operand) => self.operand(operand),
            Rvalue::Binary(op, left, right) => {
                let (left, right) = (self.operand(left), self.operand(right));
                let op = match op {
                    BinaryOp::Add => quote_spanned!(span=> +),
                    BinaryOp::Sub => quote_spanned!(span=> -),
                    BinaryOp::Mul => quote_spanned!(span=> *),
                    BinaryOp::Div => quote_spanned!(span=> /),
                    BinaryOp::Rem => quote_spanned!(span=> %),
                };
                quote_spanned!(span=> #left #op #right)
            }
            Rvalue::Neg(operand) => {
                let operand = self.operand(operand);
                quote_spanned!(span=> -#operand)
            }
            Rvalue::DataBinary(op, left, right) => {
                let (left, right, op) = (self.operand(left), self.operand(right), &op.op);
                quote_spanned!(span=> #left #op #right)
            }
            Rvalue::Not(operand) => {
                let operand = self.operand(operand);
                quote_spanned!(span=> !#operand)
            }
            Rvalue::FloatMethod {
                receiver,
                args,
                method,
                ..
            }
            | Rvalue::DataMethod {
                receiver,
                method,
                args,
            } => {
                let receiver = self.operand(receiver);
                let args = args.iter().map(|arg| self.operand(arg));
                quote_spanned!(span=> #receiver.#method(#(#args),*))
            }
            Rvalue::Cast(operand, ty) => self.cast(operand, ty),
            // A call on data alone: the plain function, its result a constant of the scalar
            // type.
            Rvalue::Call {
                callee,
                method: None,
                args,
            } if !self.is_active_call(args) => {
                // Its float arguments carry no derivative: constants, back to plain floats.
                let args = args.iter().map(|arg| match arg {
                    Operand::Constant(constant) if constant.kind == ConstantKind::Float => {
                        constant.tokens.clone()
                    }
                    _ => {
                        let arg = self.operand(arg);
                        quote!(::ad_runtime::__private::UnliftProbe::new(#arg).__ad_plain())
                    }
                });
                let scalar = names::scalar_param(span);
                quote_spanned!(span=>
                    ::ad_runtime::__private::LiftProbe::new(#callee(#(#args),*))
                        .__ad_lift::<#scalar>()
                )
            }
            Rvalue::Call {
                callee,
                method,
                args,
            } => {
                let args = args.iter().map(|arg| self.operand(arg));
                let companion = match method {
                    // A method of a derived type: the type's companion of it, the receiver
                    // first.
                    Some(method) => {
                        names::method_companion_path(callee, method, names::REVERSE_COMPANION)
                    }
                    None => {
                        let companion = Ident::new(names::REVERSE_COMPANION, Span::call_site());
                        quote!(#callee::#companion)
                    }
                };
                quote_spanned!(span=> #companion(#(#args),*))
            }
            Rvalue::Ref(place) => {
                let place = self.operand(place);
                quote_spanned!(span=> &#place)
            }
            Rvalue::Tuple(elements) => {
                let elements = elements.iter().map(|element| self.operand(element));
                quote_spanned!(span=> (#(#elements,)*))
            }
            Rvalue::Matches(scrutinee, pattern) => {
                let scrutinee = self.operand(scrutinee);
                quote_spanned!(span=> ::core::matches!(#scrutinee, #pattern))
            }
            Rvalue::Take(place) => {
                let place = self.operand(place);
                quote_spanned!(span=> ::core::mem::take(&mut #place))
            }
            Rvalue::Repeat(sequence, element, count) => {
                let (element, count) = (self.operand(element), self.operand(count));
                match sequence {
                    Sequence::Vec => quote_spanned!(span=> ::std::vec![#element; #count]),
                    Sequence::Array => quote_spanned!(span=> [#element; #count]),
                }
            }
            Rvalue::Elements(sequence, elements) => {
                let elements = elements.iter().map(|element| self.operand(element));
                match sequence {
                    Sequence::Vec => quote_spanned!(span=> ::std::vec![#(#elements),*]),
                    Sequence::Array => quote_spanned!(span=> [#(#elements),*]),
                }
            }
            Rvalue::EmptyVec(None) => quote_spanned!(span=> ::std::vec::Vec::new()),
            Rvalue::EmptyVec(Some(capacity)) => {
                let capacity = self.operand(capacity);
                quote_spanned!(span=> ::std::vec::Vec::with_capacity(#capacity))
            }
            Rvalue::Some(content) => {
                let content = self.operand(content);
                quote_spanned!(span=> ::core::option::Option::Some(#content))
            }
            Rvalue::Unwrap {
                option,
                method,
                args,
            } => {
                let option = self.operand(option);
                let args = args.iter().map(|arg| self.operand(arg));
                quote_spanned!(span=> #option.#method(#(#args),*))
            }
            Rvalue::Extract {
                scrutinee,
                pattern,
                names,
            } => {
                // The pattern as the user wrote it (a derived type's paths through the twins),
                // on the scrutinee as the user gave it: the names bind by value or by
                // reference as they do in the user's code.
                let scrutinee = self.operand(scrutinee);
                let mut pattern = (**pattern).clone();
                let scalar = names::scalar_param(span).into_token_stream();
                self.body
                    .user_types
                    .rewrite_pattern_deep(&mut pattern, &scalar);
                // A `#[no_grad]` float field of a derived type is bound as a plain float:
                // lifted, as a field read is.
                let names = names.iter().map(|name| {
                    quote!(::ad_runtime::__private::LiftProbe::new(#name).__ad_lift::<#scalar>())
                });
                quote_spanned! {span=>
                    match #scrutinee {
                        #pattern => (#(#names,)*),
                        #[allow(unreachable_patterns)]
                        _ => ::core::unreachable!(),
                    }
                }
            }
            Rvalue::Construct {
                twin, fields, form, ..
            } => {
                let members = fields.iter().map(|(member, _)| member);
                let values: Vec<TokenStream> = fields
                    .iter()
                    .map(|(_, value)| self.operand(value))
                    .collect();
                match form {
                    ConstructForm::Named => {
                        quote_spanned!(span=> #twin { #(#members: #values),* })
                    }
                    ConstructForm::Tuple => quote_spanned!(span=> #twin(#(#values),*)),
                    ConstructForm::Unit => quote_spanned!(span=> #twin),
                }
            }
            Rvalue::Duplicate { receiver, method } => {
                let receiver = self.operand(receiver);
                quote_spanned!(span=> #receiver.#method())
            }
            Rvalue::Range {
                start,
                end,
                inclusive,
            } => {
                let start = start.as_ref().map(|start| self.operand(start));
                let end = end.as_ref().map(|end| self.operand(end));
                if *inclusive {
                    quote_spanned!(span=> #start..=#end)
                } else {
                    quote_spanned!(span=> #start..#end)
                }
            }
        }
    }

    /// The call of the rule of a useful float method (its value and linear map), when the
    /// linear maps are kept.
    fn rule_with_kept_map(&self, rvalue: &Rvalue, value: Value) -> Option<TokenStream> {
        let Rvalue::FloatMethod {
            rule,
            receiver,
            args,
            method,
        } = rvalue
        else {
            return None;
        };
        if !self.residuals.passes().keep_linear_maps || !self.activity.is_useful_value(value) {
            return None;
        }
        let ir = self.ir();
        let operands = std::iter::once(receiver).chain(args).map(|operand| {
            let tokens = self.operand(operand);
            match operand {
                Operand::Value(_) => quote!(#ir::value_of(#tokens)),
                _ => tokens,
            }
        });
        let rule = Ident::new(rule.method, method.span());
        Some(quote_spanned!(method.span()=> ::ad_runtime::rules::#rule(#(#operands),*)))
    }

    /// Whether a call passes a value that carries a derivative: it goes through the callee's
    /// reverse companion; otherwise through the plain function.
    fn is_active_call(&self, args: &[Operand]) -> bool {
        args.iter().any(|arg| self.activity.is_active(arg))
    }

    fn cast(&self, operand: &Operand, ty: &syn::Type) -> TokenStream {
        let value = self.operand(operand);
        let span = operand.span(self.body);
        let scalar = names::scalar_param(span);
        if float_of_type(ty).is_some() {
            return quote_spanned!(span=>
                ::ad_runtime::__private::CastProbe::new(#value).__ad_cast::<#scalar>()
            );
        }
        let integer = match ty {
            syn::Type::Path(path) if path.qself.is_none() => path.path.get_ident(),
            _ => None,
        };
        match integer {
            Some(integer)
                if crate::retype::INTEGER_TYPES
                    .iter()
                    .any(|name| integer == name) =>
            {
                let method = format_ident!("__ad_as_{}", integer);
                quote_spanned!(span=> ::ad_runtime::__private::PrimitiveCast::#method(#value))
            }
            _ => quote!(#value as #ty),
        }
    }

    /// Keeps `value` for the backward sweep when it reads it: inside a loop or a branch on a
    /// stack, at the top level by the pullback's capture.
    /// What is kept is the value, never a reference into the function's arguments (the
    /// pullback outlives them): `ir::value_of`.
    fn keep(&mut self, value: Value, depth: usize) -> TokenStream {
        if !self.needed.contains(&value) {
            return TokenStream::new();
        }
        if depth == 0 {
            self.captured.push(value);
            return TokenStream::new();
        }
        let stack = self.stack_name(value);
        let name = self.value_name(value);
        self.stacks.push((stack.clone(), depth));
        let ir = self.ir();
        quote!(#stack.push(#ir::value_of(#name));)
    }

    fn forward_block(&mut self, block: &Block, depth: usize) -> TokenStream {
        let mut tokens = TokenStream::new();
        for stmt in &block.stmts {
            tokens.extend(self.forward_stmt(stmt, depth));
        }
        tokens
    }

    fn forward_stmt(&mut self, stmt: &Stmt, depth: usize) -> TokenStream {
        match stmt {
            Stmt::Let(Let {
                value,
                rvalue,
                span,
            }) => {
                let rvalue_ir = rvalue;
                let name = self.value_name(*value);
                let rvalue = self.defining_rvalue(rvalue, *span);
                let mut keep = self.keep(*value, depth);
                keep.extend(self.mark(Root::Value(*value), depth));
                if matches!(rvalue_ir, Rvalue::Call { args, .. } if self.is_active_call(args)) {
                    let pullback = self.pullback_name(*value);
                    let keep_pullback = self.keep_pullback(*value, depth);
                    return quote_spanned!(*span=>
                        let (#name, #pullback) = #rvalue; #keep #keep_pullback
                    );
                }
                // A float method whose derivative the backward sweep needs: its rule gives the
                // value and the linear map of its derivative, which is kept (`exp` is not
                // computed again in the backward sweep).
                if let Some(rule) = self.rule_with_kept_map(rvalue_ir, *value) {
                    let pullback = self.pullback_name(*value);
                    let keep_pullback = self.keep_pullback(*value, depth);
                    return quote_spanned!(*span=>
                        let (#name, #pullback) = #rule; #keep #keep_pullback
                    );
                }
                let ty = self.body.value_info(*value).ty.as_ref();
                let ty = ty.map(|ty| quote!(: #ty));
                quote_spanned!(*span=> let #name #ty = #rvalue; #keep)
            }
            Stmt::DeclareVar { var, init } => {
                let name = self.var_name(*var);
                let ty = self.body.var_info(*var).ty.as_ref().map(|ty| quote!(: #ty));
                match init {
                    Some(init) => {
                        let init = self.operand(init);
                        let mut mark = self.mark(Root::Var(*var), depth);
                        if self.sized_shadows.contains(var) {
                            let shadow = self.sized_shadow_name(*var);
                            let ir = self.ir();
                            mark.extend(quote!(let #shadow = #ir::zero_like(&#name);));
                        }
                        quote!(let mut #name #ty = #init; #mark)
                    }
                    None => quote!(let mut #name #ty;),
                }
            }
            Stmt::Assign {
                place,
                operand,
                span,
            } => {
                let mark = if place.projections.is_empty() {
                    self.mark(place.root, depth)
                } else {
                    TokenStream::new()
                };
                let (place, operand) = (self.place(place), self.operand(operand));
                quote_spanned!(*span=> #place = #operand; #mark)
            }
            Stmt::Push {
                place,
                operand,
                index,
                span,
            } => {
                let (place, operand) = (self.place(place), self.operand(operand));
                let index_name = self.value_name(*index);
                let keep = self.keep(*index, depth);
                quote_spanned! {*span=>
                    let #index_name = #place.len();
                    #place.push(#operand);
                    #keep
                }
            }
            Stmt::If {
                cond,
                then_branch,
                else_branch,
                result,
                span,
            } => {
                let cond = self.operand(cond);
                let then_tokens = self.forward_branch(then_branch, depth + 1);
                let else_tokens = self.forward_branch(else_branch, depth + 1);
                let branches =
                    quote_spanned!(*span=> if #cond { #then_tokens } else { #else_tokens });
                match result {
                    Some(result) => {
                        let name = self.value_name(*result);
                        let mut keep = self.keep(*result, depth);
                        keep.extend(self.mark(Root::Value(*result), depth));
                        quote!(let #name = #branches; #keep)
                    }
                    None => quote!(#branches),
                }
            }
            Stmt::For {
                binding,
                range,
                body,
                flags,
                span,
            } => {
                let index = self.loop_index(stmt);
                let count = format_ident!("__ad_count_{}", index);
                let range = self.operand(range);
                let binding_name = self.value_name(*binding);
                let stacks_before = self.stacks.len();
                let mut keep_binding = self.keep(*binding, depth + 1);
                keep_binding.extend(self.mark(Root::Value(*binding), depth + 1));
                let mut body = self.forward_block(body, depth + 1);
                body.extend(self.keep_states(index, depth + 1));
                let stop = flags.map(|flags| self.stop(flags));
                let keep_count = if self.residuals.count_bounds(stmt).is_some() {
                    TokenStream::new()
                } else {
                    self.keep_count(index, depth)
                };
                let reserve = self.reserve(&range, stacks_before, depth + 1);
                quote_spanned! {*span=>
                    #reserve
                    let mut #count = 0usize;
                    for #binding_name in #range {
                        #count += 1;
                        #keep_binding
                        #body
                        #stop
                    }
                    #keep_count
                }
            }
            Stmt::Loop { body, flags, span } => {
                let index = self.loop_index(stmt);
                let count = format_ident!("__ad_count_{}", index);
                let mut body = self.forward_block(body, depth + 1);
                body.extend(self.keep_states(index, depth + 1));
                let stop = self.stop(*flags);
                let keep_count = self.keep_count(index, depth);
                quote_spanned! {*span=>
                    let mut #count = 0usize;
                    loop {
                        #count += 1;
                        #body
                        #stop
                    }
                    #keep_count
                }
            }
        }
    }

    /// The end of a forward iteration of a loop that can be left early.
    fn stop(&self, flags: LoopFlags) -> TokenStream {
        let broken = self.var_name(flags.broken);
        quote!(if #broken { break; })
    }

    /// Reserves, before a loop over `range`, room for one push per iteration on each stack
    /// its body pushes to at every iteration (those declared since `stacks_before` at the
    /// body's own depth).
    fn reserve(&self, range: &TokenStream, stacks_before: usize, depth: usize) -> TokenStream {
        if !self.residuals.passes().reserve {
            return TokenStream::new();
        }
        let reservations: Vec<TokenStream> = self.stacks[stacks_before..]
            .iter()
            .filter(|(_, pushed_at)| *pushed_at == depth)
            .map(|(stack, _)| match self.zero_stacks.contains(stack) {
                true => quote!(#stack.reserve_zeros(__ad_trips);),
                false => quote!(#stack.reserve(__ad_trips);),
            })
            .collect();
        if reservations.is_empty() {
            return TokenStream::new();
        }
        quote! {
            let __ad_trips = ::core::iter::Iterator::size_hint(&#range).0;
            #(#reservations)*
        }
    }

    /// Keeps a loop's trip count for the backward sweep (inside a loop or a branch).
    fn keep_count(&mut self, index: usize, depth: usize) -> TokenStream {
        if depth == 0 {
            return TokenStream::new();
        }
        let count = format_ident!("__ad_count_{}", index);
        let stack = format_ident!("__ad_keep_count_{}", index);
        self.stacks.push((stack.clone(), depth));
        quote!(#stack.push(#count);)
    }

    fn forward_branch(&mut self, block: &Block, depth: usize) -> TokenStream {
        let stmts = self.forward_block(block, depth);
        let result = block.result.as_ref().map(|result| self.operand(result));
        quote!(#stmts #result)
    }

    /// Each loop's number, the same in the forward and the backward code: its position among
    /// the body's loops.
    fn loop_index(&self, target: &Stmt) -> usize {
        let mut index = 0;
        let mut found = None;
        for_each_stmt(&self.body.block, &mut |stmt| {
            if let Stmt::For { .. } | Stmt::Loop { .. } = stmt {
                if std::ptr::eq(stmt, target) {
                    found = Some(index);
                }
                index += 1;
            }
        });
        found.unwrap_or(index)
    }

    /// The backward code of a block: what it defined and the backward sweep needs is taken
    /// back (from stacks inside loops and branches), adjoints of what it defines are declared,
    /// and its statements' pullbacks run last first. `result_adjoint` is the cotangent of the
    /// block's value.
    fn backward_block(
        &mut self,
        block: &Block,
        depth: usize,
        result_adjoint: Option<TokenStream>,
    ) -> Result<TokenStream, NotYet> {
        self.backward_block_defining(block, depth, result_adjoint, Vec::new())
    }

    fn backward_block_defining(
        &mut self,
        block: &Block,
        depth: usize,
        result_adjoint: Option<TokenStream>,
        mut defined: Vec<Defined>,
    ) -> Result<TokenStream, NotYet> {
        let mut adjoints = Vec::new();
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let(Let { value, rvalue, .. }) => {
                    defined.push(Defined::Value(*value));
                    let keeps_map = self.residuals.passes().keep_linear_maps
                        && matches!(rvalue, Rvalue::FloatMethod { .. });
                    if (matches!(rvalue, Rvalue::Call { .. }) || keeps_map)
                        && self.activity.is_useful_value(*value)
                    {
                        defined.push(Defined::Pullback(*value));
                    }
                }
                Stmt::If {
                    result: Some(result),
                    ..
                } => defined.push(Defined::Value(*result)),
                Stmt::Push { index, .. } => defined.push(Defined::Value(*index)),
                Stmt::For { .. } | Stmt::Loop { .. } => {
                    let computed = match self.residuals.count_bounds(stmt) {
                        Some(bounds) => {
                            let start = self.read_back(bounds.start)?;
                            let end = self.read_back(bounds.end)?;
                            let inclusive = bounds.inclusive;
                            let ir = self.ir();
                            Some(quote!(#ir::range_count(#start, &#end, #inclusive)))
                        }
                        None => None,
                    };
                    defined.push(Defined::Count(self.loop_index(stmt), computed));
                }
                Stmt::DeclareVar { var, .. } if self.activity.useful.contains(&Root::Var(*var)) => {
                    let adjoint = self.var_adjoint(*var);
                    if self.sized_shadows.contains(var) {
                        let shadow = self.sized_shadow_name(*var);
                        adjoints.push(quote!(let mut #adjoint = #shadow;));
                    } else {
                        let marker = self.marker_name(Root::Var(*var));
                        adjoints.push(quote!(let mut #adjoint = #marker.zero();));
                    }
                }
                _ => {}
            }
        }
        let mut unreached = HashSet::new();
        for defined in &defined {
            if let Defined::Value(value) = defined {
                if self.activity.is_useful_value(*value) && !self.is_param(Root::Value(*value)) {
                    let adjoint = self.value_adjoint(*value);
                    let marker = self.marker_name(Root::Value(*value));
                    if !self.call_values.contains_key(value) {
                        adjoints.push(quote!(let mut #adjoint = #marker.zero();));
                        if self.residuals.passes().assign_first {
                            unreached.insert(*value);
                        }
                    } else if depth == 0 {
                        adjoints.push(quote!(let mut #adjoint = #marker;));
                    } else {
                        let stack = self.zero_stack_name(*value);
                        adjoints.push(quote!(let mut #adjoint = #stack.zero_back();));
                    }
                }
            }
        }
        let mut statements = Vec::new();
        self.unreached.push(unreached);
        let emitted = self.backward_statements(block, depth, result_adjoint, &mut statements);
        self.unreached.pop();
        emitted?;
        let mut taken_back = Vec::new();
        if depth > 0 {
            for defined in &defined {
                match defined {
                    Defined::Value(value) if self.needed.contains(value) => {
                        let (name, stack) = (self.value_name(*value), self.stack_name(*value));
                        taken_back.push(quote!(let #name = #stack.pop();));
                    }
                    Defined::Value(value) if self.recomputed.contains(value) => {
                        let name = self.value_name(*value);
                        if let Some(induction) = self.residuals.induction(*value) {
                            let entry = self.value_name(induction.entry);
                            let iteration =
                                format_ident!("__ad_iteration_{}", induction.loop_index);
                            let step = &induction.step.tokens;
                            let (up, after_step) = (induction.up, induction.after_step);
                            let ir = self.ir();
                            taken_back.push(quote! {
                                let #name = #ir::counter_at(#entry, #iteration, #step, #up, #after_step);
                            });
                        } else if let Some(definition) = self.residuals.definition(*value) {
                            let span = self.body.value_info(*value).span;
                            let computed = self.defining_rvalue(definition, span);
                            taken_back.push(quote!(let #name = #computed;));
                        }
                    }
                    Defined::Pullback(value) => {
                        let name = self.pullback_name(*value);
                        let stack = self.pullback_stack_name(*value);
                        taken_back.push(quote!(let #name = #stack.pop();));
                    }
                    Defined::Count(index, computed) => {
                        let count = format_ident!("__ad_count_{}", index);
                        match computed {
                            Some(computed) => taken_back.push(quote!(let #count = #computed;)),
                            None => {
                                let stack = format_ident!("__ad_keep_count_{}", index);
                                taken_back.push(quote!(let #count = #stack.pop();));
                            }
                        }
                    }
                    Defined::Value(_) => {}
                }
            }
        }
        Ok(quote! {
            #(#taken_back)*
            #(#adjoints)*
            #(#statements)*
        })
    }

    /// The pullbacks of a block's statements, last first, after the cotangent of its result.
    fn backward_statements(
        &mut self,
        block: &Block,
        depth: usize,
        result_adjoint: Option<TokenStream>,
        statements: &mut Vec<TokenStream>,
    ) -> Result<(), NotYet> {
        if let (Some(result @ Operand::Value(_)), Some(cotangent)) = (&block.result, result_adjoint)
        {
            statements.push(self.contribute(result, cotangent)?);
        }
        for stmt in block.stmts.iter().rev() {
            statements.push(self.backward_stmt(stmt, depth)?);
        }
        Ok(())
    }

    /// Whether a contribution to `value`'s adjoint about to be emitted is the first to run:
    /// no contribution reached it yet, and it runs unconditionally in the block that defines
    /// the value. Either way, the adjoint counts as reached from now on.
    fn first_contribution(&mut self, value: Value) -> bool {
        let innermost = self.unreached.len().checked_sub(1);
        let mut first = false;
        for (level, unreached) in self.unreached.iter_mut().enumerate() {
            if unreached.remove(&value) && Some(level) == innermost {
                first = true;
            }
        }
        first
    }

    /// A `&mut` to the adjoint of a place read or written: the same place in the shadow. A
    /// parameter's adjoint is shaped as the parameter, and so is the outer level of a sized
    /// local's (`sized_shadows`); any other local's starts empty and grows where it is reached
    /// (`ir::slot`).
    fn place_adjoint(&mut self, place: &Place) -> Result<TokenStream, NotYet> {
        if let Root::Value(value) = place.root {
            self.first_contribution(value);
        }
        let root = self.root_adjoint(place.root);
        let param = self.is_param(place.root);
        let sized_outer = matches!(place.root, Root::Var(var) if self.sized_shadows.contains(&var));
        let ir = self.ir();
        // The shadow place, built as a place expression: a field is the adjoint's field; an
        // index of a shaped adjoint is an index, of one grown as reached a slot; a dereference
        // is nothing, as a reference's adjoint is its referent's.
        let mut shadow = quote!(#root);
        for (position, projection) in place.projections.iter().enumerate() {
            shadow = match projection {
                Projection::Field(member) => quote!(#shadow.#member),
                Projection::Index(index) => {
                    let index = self.read_back(index)?;
                    if param || (sized_outer && position == 0) {
                        quote!(#shadow[#index])
                    } else {
                        quote!((*#ir::slot(&mut #shadow, #index)))
                    }
                }
                Projection::Deref => shadow,
            };
        }
        Ok(quote!(&mut #shadow))
    }

    fn contribute(
        &mut self,
        operand: &Operand,
        cotangent: TokenStream,
    ) -> Result<TokenStream, NotYet> {
        self.contribute_with(operand, cotangent, "accumulate")
    }

    /// Adds `cotangent` to the adjoint of `operand` by `ir::<function>`.
    fn contribute_with(
        &mut self,
        operand: &Operand,
        cotangent: TokenStream,
        function: &str,
    ) -> Result<TokenStream, NotYet> {
        if !self.activity.is_useful(operand) {
            return Ok(TokenStream::new());
        }
        let ir = self.ir();
        let adjoint = match operand {
            Operand::Value(value) => {
                let adjoint = self.value_adjoint(*value);
                if self.first_contribution(*value) && function == "accumulate" {
                    return Ok(quote!(#adjoint = #cotangent;));
                }
                quote!(&mut #adjoint)
            }
            Operand::Place(place) => {
                let summed = crate::ir::reads::key(place)
                    .and_then(|key| self.accumulators.get(&key))
                    .filter(|_| function == "accumulate");
                match summed {
                    Some(local) => quote!(&mut #local),
                    None => self.place_adjoint(place)?,
                }
            }
            Operand::Constant(_) => return Ok(TokenStream::new()),
        };
        let function = Ident::new(function, Span::call_site());
        Ok(quote!(#ir::#function(#adjoint, #cotangent);))
    }

    fn backward_stmt(&mut self, stmt: &Stmt, depth: usize) -> Result<TokenStream, NotYet> {
        let ir = self.ir();
        match stmt {
            Stmt::Let(Let { value, rvalue, .. }) => {
                if !self.activity.is_useful_value(*value) {
                    return Ok(TokenStream::new());
                }
                let adjoint = self.value_adjoint(*value);
                self.pullback(*value, rvalue, quote!(#adjoint))
            }
            Stmt::DeclareVar { var, init } => {
                let Some(init) = init else {
                    return Ok(TokenStream::new());
                };
                if !self.activity.useful.contains(&Root::Var(*var)) {
                    return Ok(TokenStream::new());
                }
                let adjoint = self.var_adjoint(*var);
                self.contribute(init, quote!(#adjoint))
            }
            Stmt::Push {
                place,
                operand,
                index,
                ..
            } => {
                if !self.activity.useful.contains(&place.root) {
                    return Ok(TokenStream::new());
                }
                // The element's adjoint goes to the operand; the shadow shrinks back.
                let shadow = self.place_adjoint(place)?;
                let index = self.read_back(&Operand::Value(*index))?;
                let taken = quote!(#ir::unpush(#shadow, #index));
                if self.activity.is_useful(operand) {
                    self.contribute(operand, taken)
                } else {
                    Ok(quote!(let _ = #taken;))
                }
            }
            Stmt::Assign { place, operand, .. } => {
                if !self.activity.useful.contains(&place.root) {
                    return Ok(TokenStream::new());
                }
                let adjoint = self.place_adjoint(place)?;
                let taken = match self.is_param(place.root) || !self.residuals.passes().assign_first
                {
                    true => quote!(#ir::take(#adjoint)),
                    false => quote!(#ir::vacate(#adjoint)),
                };
                if self.activity.is_useful(operand) {
                    self.contribute(operand, taken)
                } else {
                    Ok(quote!(let _ = #taken;))
                }
            }
            Stmt::If {
                cond,
                then_branch,
                else_branch,
                result,
                ..
            } => {
                let cotangent = result
                    .filter(|result| self.activity.is_useful_value(*result))
                    .map(|result| self.value_adjoint(result).into_token_stream());
                let then_tokens = self.backward_block(then_branch, depth + 1, cotangent.clone())?;
                let else_tokens = self.backward_block(else_branch, depth + 1, cotangent)?;
                if then_tokens.is_empty() && else_tokens.is_empty() {
                    return Ok(TokenStream::new());
                }
                let cond = self.read_back(cond)?;
                Ok(quote!(if #cond { #then_tokens } else { #else_tokens }))
            }
            Stmt::Loop { body, .. } => {
                let index = self.loop_index(stmt);
                let count = format_ident!("__ad_count_{}", index);
                self.with_accumulators(index, None, body, |emitter| {
                    let body_tokens = emitter.backward_block(body, depth + 1, None)?;
                    let restore = emitter.restore_states(index);
                    let iteration = format_ident!("__ad_iteration_{}", index);
                    Ok(quote! {
                        for #iteration in (0..#count).rev() {
                            #restore
                            #body_tokens
                        }
                    })
                })
            }
            Stmt::For { binding, body, .. } => {
                let index = self.loop_index(stmt);
                self.with_accumulators(index, Some(*binding), body, |emitter| {
                    emitter.backward_for(index, *binding, body, depth)
                })
            }
        }
    }

    /// The backward loop of a `for`: its iterations last first.
    fn backward_for(
        &mut self,
        index: usize,
        binding: Value,
        body: &Block,
        depth: usize,
    ) -> Result<TokenStream, NotYet> {
        let ir = self.ir();
        let count = format_ident!("__ad_count_{}", index);
        let body_tokens =
            self.backward_block_defining(body, depth + 1, None, vec![Defined::Value(binding)])?;
        let restore = self.restore_states(index);
        let iteration = format_ident!("__ad_iteration_{}", index);
        // A binding read back and not kept: the `k`-th iteration bound `start + k`.
        if self.recomputed.contains(&binding) {
            if let Some(bounds) = self.residuals.range_bounds(binding) {
                let start = self.read_back(bounds.start)?;
                let end = self.read_back(bounds.end)?;
                let name = self.value_name(binding);
                return Ok(quote! {
                    for #iteration in (0..#count).rev() {
                        #restore
                        let #name = #ir::nth_of_range(#start, &#end, #iteration);
                        #body_tokens
                    }
                });
            }
        }
        Ok(quote! {
            for #iteration in (0..#count).rev() {
                #restore
                #body_tokens
            }
        })
    }
}

/// `&T` without a lifetime written.
fn elided_reference(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(reference) => reference.lifetime.is_none(),
        syn::Type::Paren(paren) => elided_reference(&paren.elem),
        syn::Type::Group(group) => elided_reference(&group.elem),
        _ => false,
    }
}

/// Whether a place is read through a field (of a tuple or a derived type) or a final
/// dereference (of a `Box`, say): the read value's adjoint type may then differ from the
/// place's adjoint (a `#[no_grad]` float field's is `NoAdjoint`, a box's a `BoxAdjoint`), so
/// it adds back through `ir::AccumulateRead`.
fn reads_indirectly(place: &Place) -> bool {
    place
        .projections
        .iter()
        .any(|projection| matches!(projection, Projection::Field(_)))
        || matches!(place.projections.last(), Some(Projection::Deref))
}
