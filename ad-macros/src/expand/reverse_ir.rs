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
//! `expand/reverse.rs` writes the companions around this body; a construct the IR does not
//! lower or emit is refused there, with what it is.

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
mod backward_sweep;
mod checkpoints;
mod eager_sums;
mod forward_sweep;
mod operations;
mod pullbacks;
mod states;

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

/// The body of the companion that computes the value alone (`__ad_forward`), from the IR with
/// nothing recorded: for a function whose body only the IR engine's rules run over the scalar
/// type (nalgebra's methods and operators, `ad_runtime::linalg`).
pub fn primal_body(function: &Function) -> Result<TokenStream, NotYet> {
    companion_body_in(function, false, None, true).map(|(body, _)| body)
}

/// The companion's body, and whether its backward sweep reads parameters again.
fn companion_body_borrowing(
    function: &Function,
    boxed: bool,
    borrowed: Option<&syn::Lifetime>,
) -> Result<(TokenStream, bool), NotYet> {
    companion_body_in(function, boxed, borrowed, false)
}

fn companion_body_in(
    function: &Function,
    boxed: bool,
    borrowed: Option<&syn::Lifetime>,
    primal_only: bool,
) -> Result<(TokenStream, bool), NotYet> {
    check_signature(function)?;
    let passes = Passes::from_environment();
    // Syntax proposes, the activity verifies: a pattern naming a type the lowering took for
    // data (`Part::Rod(r)` matched on `self`, a derived field's type) that takes apart a value
    // carrying derivatives names a derived type, and the body is lowered again knowing it
    // (rustc checks that it derives `Differentiable`, at the pattern).
    let mut learned = Vec::new();
    let (body, inductions, activity) = loop {
        let mut body = lower::lower(function, &learned)?;
        if passes.fuse_loops {
            crate::ir::loop_fusion::fuse_loops(&mut body);
        }
        if passes.reuse_reads {
            crate::ir::reads::reuse_reads(&mut body);
        }
        let inductions = match passes.recompute {
            true => crate::ir::induction::find(&mut body),
            false => Default::default(),
        };
        let differentiated: Vec<Root> = function
            .params
            .iter()
            .zip(&body.params)
            // A `#[no_grad]` parameter gets no adjoint from `f_vjp`, but the companion's
            // pullback gives it to callers that pass a value carrying a derivative (forward
            // mode differentiates through it too). The borrowed companion, which only `f_vjp`
            // and `f_grad` call, leaves it out.
            .filter(|(param, _)| match param.kind {
                ParamKind::Data => false,
                ParamKind::Constant => borrowed.is_none(),
                ParamKind::Differentiated => true,
            })
            .map(|(_, root)| *root)
            .collect();
        let outputs: Vec<Root> = function
            .params
            .iter()
            .zip(&body.params)
            .filter(|(param, _)| param.is_in_out())
            .map(|(_, root)| *root)
            .collect();
        let activity = activity::analyse(&body, &differentiated, &outputs);
        let unknown: Vec<syn::Path> = crate::ir::validate::derived_types_to_learn(&body, &activity)
            .into_iter()
            .filter(|path| !path.is_ident("Self") && !learned.contains(path))
            .collect();
        if unknown.is_empty() {
            break (body, inductions, activity);
        }
        learned.extend(unknown);
    };
    let plain_values = crate::ir::plain::plain_values(&body, &activity);
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
    let eager = match passes.eager_sums && !primal_only {
        true => crate::ir::eager_sums::eager_sums(
            &body,
            &activity,
            &crate::ir::increments::increments(&body),
        )
        .into_iter()
        .map(|eager| (eager.loop_index, eager))
        .collect(),
        false => HashMap::new(),
    };
    let increments: Vec<_> = match passes.increments {
        true => crate::ir::increments::increments(&body)
            .into_iter()
            .filter(|increment| {
                activity.useful.contains(&increment.root)
                    && activity.is_useful_value(increment.sum)
                    && activity.is_useful_value(increment.read)
            })
            .collect(),
        false => Vec::new(),
    };
    let mut emitter = Emitter {
        function,
        body: &body,
        activity,
        needed: HashSet::new(),
        stacks: Vec::new(),
        loop_nesting: 0,
        single_entry: HashSet::new(),
        pushed_in_loops: HashSet::new(),
        residuals: {
            let mut residuals = Residuals::new(&body, passes, borrowable, inductions);
            residuals.forget_rows_of(|outer_loop| eager.contains_key(&outer_loop));
            residuals
        },
        recomputed: HashSet::new(),
        borrowed,
        markers: Vec::new(),
        shaped_markers: HashSet::new(),
        call_values: {
            // A nalgebra value's adjoint starts shaped as the value, as a call's result's.
            let mut values = call_values(&body);
            for root in &body.linalg {
                if let Root::Value(value) = root {
                    values.entry(*value).or_insert(CallValue::Result);
                }
            }
            values
        },
        // Only into a shadow made at full length where its variable is declared: another's
        // may not have the shape a callee's flat adjoint is added into (an enum's variant).
        aliased_arguments: match passes.alias_arguments {
            true => crate::ir::aliased_arguments(&body)
                .into_iter()
                .filter(|(_, place)| {
                    matches!(place.root, Root::Var(var) if sized_shadows.contains(&var))
                })
                .collect(),
            false => HashMap::new(),
        },
        increment_sums: increments.iter().map(|increment| increment.sum).collect(),
        increment_reads: increments.iter().map(|increment| increment.read).collect(),
        captured: Vec::new(),
        restored: BTreeSet::new(),
        states: HashSet::new(),
        accumulators: HashMap::new(),
        sized_shadows,
        zero_stacks: HashSet::new(),
        unreached: Vec::new(),
        plain_values,
        primal_only,
        recorded_regions: HashSet::new(),
        segment: None,
        eager_direct: eager_direct_values(&body, &eager),
        eager,
        eager_code: HashMap::new(),
        unit_names: HashMap::new(),
        ir_path: quote!(::ad_runtime::__private::ir),
        markers_read: HashSet::new(),
        backward_emitted: false,
        assigned_first: HashSet::new(),
    };
    let tokens = emitter.emit(boxed)?;
    let reads_again = emitter
        .recomputed
        .iter()
        .any(|value| emitter.residuals.reads_parameter(*value));
    Ok((tokens, reads_again))
}

/// The bindings of the eager loops (`ir::eager_sums`) and the values their bodies define at
/// their top level.
fn eager_direct_values(
    body: &Body,
    eager: &HashMap<usize, crate::ir::eager_sums::EagerSum>,
) -> HashSet<Value> {
    let mut values = HashSet::new();
    let mut index = 0;
    for stmt in &body.block.stmts {
        if let Stmt::For {
            binding,
            body: loop_body,
            ..
        } = stmt
        {
            if eager.contains_key(&index) {
                values.insert(*binding);
                // Not a reference or a copy of one (read at the end of the iteration, it would
                // stay borrowed across the writes after it), nor a matrix (which a later
                // statement may move).
                let mut references = HashSet::new();
                for stmt in &loop_body.stmts {
                    match stmt {
                        Stmt::Let(Let {
                            value,
                            rvalue: Rvalue::Ref(_) | Rvalue::RefMut(_),
                            ..
                        }) => {
                            references.insert(*value);
                        }
                        Stmt::Let(Let {
                            value,
                            rvalue: Rvalue::Use(Operand::Value(copied)),
                            ..
                        }) if references.contains(copied) => {
                            references.insert(*value);
                        }
                        _ => {}
                    }
                }
                values.extend(
                    loop_body
                        .stmts
                        .iter()
                        .filter(|stmt| !matches!(stmt, Stmt::For { .. }))
                        .filter_map(defined_value)
                        .filter(|value| {
                            !references.contains(value)
                                && !body.linalg.contains(&Root::Value(*value))
                        }),
                );
            }
        }
        visit_nested(stmt, &mut |stmt| {
            if matches!(stmt, Stmt::For { .. } | Stmt::Loop { .. }) {
                index += 1;
            }
        });
    }
    values
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
        // A value of a derived type, whose cotangent is its twin's adjoint.
        Some(_) if function.derived_result().is_some() => {}
        // What it writes to its `&mut` parameters is its result.
        None if super::reverse::in_out_params(function).next().is_some() => {}
        _ => return not_yet(function.name().span(), "results without a float"),
    }
    Ok(())
}

struct Emitter<'a> {
    /// `::ad_runtime::__private::ir`, made once: every statement names it, and making tokens
    /// goes through the compiler.
    ir_path: TokenStream,
    function: &'a Function,
    body: &'a Body,
    activity: Activity,
    /// Values the backward sweep reads.
    needed: HashSet<Value>,
    /// The stacks of values kept inside loops and branches, with the depth of their pushes.
    stacks: Vec<(Ident, usize)>,
    /// How many loops enclose the code being emitted.
    loop_nesting: usize,
    /// Stacks of values and pullbacks kept in a branch outside every loop, where at most one
    /// entry is ever held (`ir::Slot`, no allocation), and those pushed inside a loop too.
    single_entry: HashSet<Ident>,
    pushed_in_loops: HashSet<Ident>,
    /// Where each value the backward sweep reads comes from (`ir::residuals`).
    residuals: Residuals<'a>,
    /// Values the backward sweep computes again instead of taking them back.
    recomputed: HashSet<Value>,
    /// In the borrowed companion, the lifetime for which the pullback borrows the parameters.
    borrowed: Option<&'a syn::Lifetime>,
    /// The adjoint-type markers declared at the top (`mark`).
    markers: Vec<Ident>,
    /// The markers the backward sweep makes a zero from (`marker_read`); once it is emitted,
    /// the forward sweep sets no other.
    markers_read: HashSet<Ident>,
    backward_emitted: bool,
    /// The values whose adjoint's first contribution is assigned, unconditionally in the block
    /// that defines the value (`first_contribution`): it starts from no zero.
    assigned_first: HashSet<Value>,
    /// Those of nalgebra variables, which hold a zero of the variable's shape.
    shaped_markers: HashSet<Ident>,
    /// Values defined by calls: their adjoints start as zeros of their shape (`mark`).
    call_values: HashMap<Value, CallValue>,
    /// References passed to a call whose adjoint the call's pullback adds to the place's
    /// shadow directly (`ir::aliased_arguments`): they get no adjoint of their own.
    aliased_arguments: HashMap<Value, Place>,
    /// The sums of increments `place = read + e` (`ir::increments`), whose backward code
    /// reads the place's adjoint and leaves it, and their reads, which then have none.
    increment_sums: HashSet<Value>,
    increment_reads: HashSet<Value>,
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
    /// Values of the user's types built as plain data (`ir::plain`).
    plain_values: HashSet<Value>,
    /// Whether the code being emitted runs without recording (a checkpointed region's first
    /// run): it keeps nothing, and calls compute values alone.
    primal_only: bool,
    /// The checkpointed regions (by number) whose backward code runs them again: the forward
    /// sweep keeps their inputs. Filled by the backward sweep, which `emit` runs first (as it
    /// fills `needed`).
    recorded_regions: HashSet<usize>,
    /// The iterator and the step count of a segment of a scheduled loop, for the next loop
    /// the forward sweep emits to run over: set by `checkpoints` just before it emits the
    /// scheduled loop's forward code, taken by that loop.
    segment: Option<(Ident, Ident)>,
    /// The loops that only add to one float, by number, whose iterations' backward code runs
    /// right after their forward code (`ir::eager_sums`); that code, filled by the backward
    /// sweep; and while it is emitted, the unit adjoints that stand for the real ones.
    eager: HashMap<usize, crate::ir::eager_sums::EagerSum>,
    eager_code: HashMap<usize, TokenStream>,
    unit_names: HashMap<Root, Ident>,
    /// The values (and pullbacks) an eager loop's iteration defines at its top level: its
    /// backward code, at the end of the same block, reads them where they are.
    eager_direct: HashSet<Value>,
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
        let returns_nothing = self.function.output().is_none();
        let result = match &body.block.result {
            Some(result) => Some(result),
            None if returns_nothing => None,
            None => {
                return Err(NotYet {
                    span: self.function.name().span(),
                    what: "functions without a tail expression",
                })
            }
        };
        let backward = match self.primal_only {
            true => TokenStream::new(),
            false => {
                self.backward_block(&body.block, 0, result.is_some().then(|| quote!(__ad_ct)))?
            }
        };
        for index in self.eager.keys().copied().collect::<Vec<_>>() {
            for root in self.unit_roots(index) {
                self.marker_read(root);
            }
        }
        self.backward_emitted = true;
        let forward = self.forward_block(&body.block, 0);
        let result = match result {
            Some(result) => self.operand(result),
            None => quote!(()),
        };
        // The cotangents of the `&mut` parameters' final contents come in after the result's,
        // and start their shadows.
        let mut in_out_cotangents = Vec::new();
        let mut shapes_after_forward = Vec::new();
        let scalar = names::scalar_param(self.function.name().span());
        let mut bind_params = Vec::new();
        let mut adjoints_made_in_pullback = Vec::new();
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
                // A data `&mut` parameter's slot in the cotangent holds nothing.
                if param.is_mut_reference() {
                    in_out_cotangents.push(quote!(_));
                }
                adjoints.push(quote!(()));
            } else {
                let reference = if param.is_reference() {
                    quote!(#own)
                } else {
                    quote!(&#own)
                };
                let ir = self.ir();
                if param.is_mut_reference() {
                    // The cotangent of the final contents starts the shadow, shaped as they
                    // are (a caller's shadow of what it passed may have grown only as far as
                    // it was reached).
                    let cotangent = names::derived("__ad_ct_", &param.name);
                    let shape = names::derived("__ad_shape_", &param.name);
                    shapes_after_forward.push(quote!(let #shape = #ir::zero_like(&*#own);));
                    // A derived type's cotangent comes flat, as its adjoint goes.
                    let accumulate = match param.user_type {
                        Some(_) => quote!(accumulate_argument),
                        None => quote!(accumulate),
                    };
                    adjoints_made_in_pullback.push(quote! {
                        let mut #adjoint = #shape;
                        #ir::#accumulate(&mut #adjoint, #cotangent);
                    });
                    in_out_cotangents.push(cotangent.to_token_stream());
                } else if float_of_type(&param.ty).is_some() {
                    // A float's zero adjoint needs nothing of its value: it is made in the
                    // pullback, which then captures nothing for it.
                    let marker = self.marker_name(*root);
                    bind_params.push(quote!(let #marker = #ir::adjoint_of(&#own);));
                    adjoints_made_in_pullback.push(quote!(let mut #adjoint = #marker.zero();));
                } else {
                    bind_params.push(quote!(let mut #adjoint = #ir::zero_like(#reference);));
                }
                if param.user_type.is_some() && !param.is_user_container() {
                    // A derived type's adjoint goes to the caller flat, as every companion
                    // gives it (`ad_runtime::__private::ir::FlatAdjoint`); a container of
                    // them goes shaped, as containers do (`super::reverse::adjoint_type`).
                    adjoints.push(quote!(#ir::flatten(&#adjoint)));
                } else {
                    adjoints.push(quote!(#adjoint));
                }
            }
        }
        let ir = self.ir();
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
        let stacks =
            self.stacks
                .iter()
                .map(|(stack, _)| {
                    if self.states.contains(stack) {
                        quote!(let mut #stack = #ir::States::new();)
                    } else if self.single_entry.contains(stack)
                        && !self.pushed_in_loops.contains(stack)
                    {
                        quote!(let mut #stack = #ir::Slot::new();)
                    } else {
                        quote!(let mut #stack = #ir::Stack::new();)
                    }
                })
                .chain(self.markers.iter().map(
                    |marker| match self.shaped_markers.contains(marker) {
                        true => quote!(let mut #marker = #ir::ShapedAdjointOf::new();),
                        false => quote!(let mut #marker = #ir::AdjointOf::new();),
                    },
                ))
                .collect::<Vec<_>>();
        let output = super::reverse::output_type(self.function, &scalar);
        let cotangent = super::reverse::cotangent_type(self.function, &scalar);
        let (pullback_param, take_cotangents) = match in_out_cotangents.is_empty() {
            true => (quote!(__ad_ct), TokenStream::new()),
            false => (
                quote!(__ad_cts),
                quote!(let (__ad_ct, #(#in_out_cotangents,)*) = __ad_cts;),
            ),
        };
        // A result with containers in it: the cotangent must have its shape.
        let scalar_result = self
            .function
            .output()
            .is_none_or(|ty| float_of_type(ty).is_some());
        let (result_shape, check_cotangent) = if scalar_result {
            (TokenStream::new(), TokenStream::new())
        } else {
            (
                quote!(let __ad_result_shape = #ir::zero_like(&__ad_result);),
                quote!(#ir::check_cotangent(&__ad_result_shape, &__ad_ct);),
            )
        };
        // A `use` the body's code no longer names here (`mem::swap` became assignments) is
        // not the user's unused import.
        let items = body.items.iter().map(|item| match item {
            syn::Item::Use(_) => quote!(#[allow(unused_imports)] #item),
            _ => quote!(#item),
        });
        let twins = body.user_types.aliases();
        let adjoints_of_types = body.user_types.adjoint_aliases();
        let imports = quote! {
            #(#items)*
            #twins
            #adjoints_of_types
            #[allow(unused_imports)]
            use ::ad_runtime::__private::{
                CastPrimitive as _, CastScalar as _, LiftContainer as _, LiftFloat as _, LiftOption as _,
                LiftConstant as _, LiftConstantOther as _, LiftBorrowed as _, LiftDerived as _, LiftBorrowedOther as _, LiftOther as _, LiftTuple as _, UnliftOther as _, UnliftScalar as _, UnliftBorrowed as _, UnliftBorrowedOther as _,
                ir::ReverseOperators as _, ir::ReverseLength as _, ir::Contents as _,
            };
            #[allow(unused_imports)]
            use ::ad_runtime::__private::linalg::traits::*;
        };
        if self.primal_only {
            return Ok(quote! {
                #imports
                #(#bind_params)*
                #(#stacks)*
                #forward
                #result
            });
        }
        if !boxed {
            return Ok(quote! {
                #imports
                #(#bind_params)*
                #(#stacks)*
                #forward
                let __ad_result = #result;
                #result_shape
                #(#shapes_after_forward)*
                #(#captures)*
                (__ad_result, move |#pullback_param: #cotangent| {
                    #take_cotangents
                    #(#adjoints_made_in_pullback)*
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
                #(#shapes_after_forward)*
                #(#captures)*
                (__ad_result, ::std::boxed::Box::new(move |#pullback_param: #cotangent| {
                    ::ad_runtime::__private::maybe_grow(move || {
                        #take_cotangents
                        #(#adjoints_made_in_pullback)*
                        #check_cotangent
                        #backward
                        (#(#adjoints,)*)
                    })
                }))
            })
        })
    }

    fn ir(&self) -> TokenStream {
        self.ir_path.clone()
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
        if let Some(unit) = self.unit_names.get(&Root::Value(value)) {
            return unit.clone();
        }
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
        if let Some(unit) = self.unit_names.get(&Root::Var(var)) {
            return unit.clone();
        }
        let info = self.body.var_info(var);
        self.numbered("dm", Some(&info.name), var.0, info.span)
    }

    fn numbered(&self, category: &str, name: Option<&Ident>, number: u32, span: Span) -> Ident {
        match name {
            Some(name) => format_ident!(
                "__ad_{}_{}_{}",
                category,
                names::snake_text(name),
                number,
                span = span
            ),
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
        if depth == 0
            || !self.activity.is_useful_value(value)
            || self.primal_only
            || self.eager_direct.contains(&value)
        {
            return TokenStream::new();
        }
        let stack = self.pullback_stack_name(value);
        let name = self.pullback_name(value);
        self.stacks.push((stack.clone(), depth));
        self.note_single_entry(&stack);
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

    /// The marker of `root`'s adjoint type, for the backward sweep to make a zero from.
    fn marker_read(&mut self, root: Root) -> Ident {
        let marker = self.marker_name(root);
        self.markers_read.insert(marker.clone());
        marker
    }

    /// Notes the adjoint type of a useful value or variable just defined or assigned
    /// (`ir::AdjointOf`, zero-sized): the backward sweep makes its adjoint from it. At the top
    /// level a value's is captured; inside loops and branches, and for variables, one
    /// declared at the top is assigned.
    fn mark(&mut self, root: Root, depth: usize) -> TokenStream {
        if !self.activity.useful.contains(&root)
            || self.is_param(root)
            || self.primal_only
            || matches!(root, Root::Value(value) if self.aliased_arguments.contains_key(&value))
        {
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
                // A place lent `&mut` may be data of a type without adjoints (a receiver is of
                // a derived type, and its loan's type is the callee's to choose).
                Some(CallValue::Argument)
                    if self.activity.written_by_calls.contains_key(&value)
                        && !self.body.receivers.contains(&value) =>
                {
                    Some(quote!({
                        #[allow(unused_imports)]
                        use #ir::{LentData as _, LentDiff as _};
                        (&#ir::LentProbe(&*#name)).__ad_argument_zero()
                    }))
                }
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
        if self.backward_emitted && !self.markers_read.contains(&marker) {
            return TokenStream::new();
        }
        if depth == 0 && matches!(root, Root::Value(_)) {
            return quote!(let #marker = #ir::adjoint_of(&#name););
        }
        if !self.markers.contains(&marker) {
            self.markers.push(marker.clone());
        }
        // A nalgebra variable's: the zero of its shape (`ir::ShapedAdjointOf`).
        if self.body.linalg.contains(&root) {
            self.shaped_markers.insert(marker.clone());
            return quote!(#marker = #ir::ShapedAdjointOf::of(&#name););
        }
        // A variable lent `&mut` to a call may be data of a type without adjoints.
        let lent = self
            .activity
            .written_by_calls
            .values()
            .any(|place| place.root == root);
        if lent {
            return quote!(#marker = {
                #[allow(unused_imports)]
                use #ir::{LentData as _, LentDiff as _};
                (&#ir::LentProbe(&#name)).__ad_adjoint_of()
            };);
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

    /// Notes where `stack` is pushed to: outside every loop, a branch runs at most once before
    /// the backward sweep takes its entry back, so one slot holds it.
    fn note_single_entry(&mut self, stack: &Ident) {
        match self.loop_nesting == 0 && self.residuals.passes().single_slots {
            true => self.single_entry.insert(stack.clone()),
            false => self.pushed_in_loops.insert(stack.clone()),
        };
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

    /// A `&mut Vec` parameter, which the body may push onto and pop: its shadow (the caller's)
    /// grows as reached, as a local's does.
    fn is_growable_param(&self, root: Root) -> bool {
        self.body
            .params
            .iter()
            .zip(&self.function.params)
            .any(|(param_root, param)| {
                *param_root == root
                    && param.is_mut_reference()
                    && matches!(&param.ty, syn::Type::Reference(reference)
                        if crate::ast::is_vec_type(&reference.elem))
            })
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
                Projection::Slice(start, end) => {
                    let (start, end) = (self.operand(start), self.operand(end));
                    quote!(#tokens[#start..#end])
                }
                Projection::Field(member) => quote!(#tokens.#member),
                Projection::Deref => quote!((*#tokens)),
            };
        }
        tokens
    }

    /// Each loop's number, the same in the forward and the backward code: its position among
    /// the body's loops.
    fn loop_index(&self, target: &Stmt) -> usize {
        self.position_among(target, |stmt| {
            matches!(stmt, Stmt::For { .. } | Stmt::Loop { .. })
        })
    }

    /// A statement's position, in preorder, among the body's statements that `counts` takes.
    fn position_among(&self, target: &Stmt, counts: impl Fn(&Stmt) -> bool) -> usize {
        let mut index = 0;
        let mut found = None;
        for_each_stmt(&self.body.block, &mut |stmt| {
            if counts(stmt) {
                if std::ptr::eq(stmt, target) {
                    found = Some(index);
                }
                index += 1;
            }
        });
        found.unwrap_or(index)
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
