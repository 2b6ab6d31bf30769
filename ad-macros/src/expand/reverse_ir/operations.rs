//! The forward code of each operation of the IR: a value's defining rvalue as Rust over the
//! scalar type (arithmetic and rules, reads of places, calls to companions, calls run at dual
//! numbers, casts), in the forward sweep or again in the backward one.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::Ident;

use super::{reads_indirectly, Emitter};
use crate::ast::{float_of_type, ParamKind};
use crate::ir::*;
use crate::names;

impl Emitter<'_> {
    /// The code of the operation that defines a value (in the forward sweep, or again in the
    /// backward one).
    pub(super) fn defining_rvalue(
        &self,
        rvalue: &Rvalue,
        span: Span,
        value_defined: Value,
    ) -> TokenStream {
        if let Rvalue::Use(operand) = rvalue {
            if let Some(reborrowed) = self.passed_on_mutable_parameter(operand) {
                return reborrowed;
            }
        }
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
            _ => self.rvalue(rvalue, span, value_defined),
        }
    }

    /// An operation in forward code, spanned on the user's expression: a type error in it
    /// (`!` on a float, a method of the wrong type) points at the user's code.
    pub(super) fn rvalue(&self, rvalue: &Rvalue, span: Span, value_defined: Value) -> TokenStream {
        match rvalue {
            Rvalue::Use(operand) => self.operand(operand),
            Rvalue::Binary(op, left, right) => {
                // Data beside a value with a derivative (`s - y`, `y` a `&f64` of data): lifted
                // to the scalar type, as `f64 - &f64` is Rust.
                let mixed = self.of_scalar_type(left) != self.of_scalar_type(right);
                let lifted = |this: &Self, operand: &Operand| {
                    let value = this.operand(operand);
                    match mixed && !this.of_scalar_type(operand) {
                        true => lift_data(value, span),
                        false => value,
                    }
                };
                let (left, right) = (lifted(self, left), lifted(self, right));
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
            }
            // `o.unwrap()`, `o.__ad_content()`: the option's method, as written.
            | Rvalue::Unwrap {
                option: receiver,
                method,
                args,
            } => {
                let receiver = self.operand(receiver);
                let args = args.iter().map(|arg| self.operand(arg));
                quote_spanned!(span=> #receiver.#method(#(#args),*))
            }
            Rvalue::Cast(operand, ty) => self.cast(operand, ty),
            Rvalue::PlainMethod {
                receiver,
                method,
                args,
                plain,
            } => {
                // A receiver built as plain data in the body holds plain floats too.
                let plain = *plain
                    || matches!(receiver, Operand::Place(Place { root: Root::Value(root), .. })
                        if self.plain_values.contains(root));
                let receiver = self.operand(receiver);
                let args = args.iter().map(|arg| match plain {
                    true => self.plain_argument(arg),
                    false => self.operand(arg),
                });
                let scalar = names::scalar_param(span);
                quote_spanned!(span=>
                    ::ad_runtime::__private::LiftProbe::new(#receiver.#method(#(#args),*))
                        .__ad_lift::<#scalar>()
                )
            }
            Rvalue::Call {
                callee,
                args,
                dispatch: Dispatch::WithClosures(index),
                ..
            } => self.call_with_closures(callee, args, *index as usize, span),
            // A call on data alone: the plain function, its result a constant of the scalar
            // type.
            Rvalue::Call {
                callee,
                method,
                args,
                dispatch,
            } if !self.is_active_call(args) => {
                let mut args: Vec<TokenStream> =
                    args.iter().map(|arg| self.plain_argument(arg)).collect();
                let scalar = names::scalar_param(span);
                if let (Dispatch::Operator, Some(method)) = (dispatch, method) {
                    let operation = operator_on_data(method, &args);
                    return quote_spanned!(span=>
                        ::ad_runtime::__private::LiftProbe::new(#operation).__ad_lift::<#scalar>()
                    );
                }
                // A constructor of a nalgebra vector or matrix: the runtime's, at the scalar
                // type (`Matrix3::__ad_forward_identity_0()`), its floats constants of it.
                if let (Dispatch::Path, Some(method)) = (dispatch, method) {
                    if is_linalg_type_path(callee) {
                        let companion = names::method_companion(method, names::FORWARD_COMPANION);
                        let args = args.iter().map(|arg| {
                            quote!(::ad_runtime::__private::LiftProbe::new(#arg).__ad_lift::<#scalar>())
                        });
                        return quote_spanned!(span=> #callee::#companion(#(#args),*));
                    }
                }
                let function = match method {
                    // The receiver's own method: `(&receiver).method(..)`.
                    Some(method) if *dispatch == Dispatch::Receiver => {
                        let receiver = args.remove(0);
                        quote!((#receiver).#method)
                    }
                    Some(method) => quote!(#callee::#method),
                    None => quote!(#callee),
                };
                quote_spanned!(span=>
                    ::ad_runtime::__private::LiftProbe::new(#function(#(#args),*))
                        .__ad_lift::<#scalar>()
                )
            }
            Rvalue::Call {
                callee,
                method,
                args,
                dispatch,
            } => {
                // Data arguments go through `call_args`, which lifts those rustc types as
                // plain floats (a data struct's row passed to a `&[f64]` parameter) and passes
                // anything else on as it is.
                let scalar = names::scalar_param(span);
                let mut lifts = false;
                let operands = args;
                let mut args: Vec<TokenStream> = args
                    .iter()
                    .map(|arg| {
                        if let Some(reborrowed) = self.passed_on_mutable_parameter(arg) {
                            return reborrowed;
                        }
                        // A constant table (`poly(z, ERF_AN)`, `const ERF_AN: &[f64]`): as the
                        // parameter takes it.
                        if let Operand::Constant(constant) = arg {
                            if constant.kind == ConstantKind::Path {
                                lifts = true;
                                let tokens = &constant.tokens;
                                return quote!(::ad_runtime::__private::Arg::arg(
                                    &::ad_runtime::__private::LiftProbe::new(#tokens)
                                        .__ad_lift_arg::<#scalar>()
                                ));
                            }
                        }
                        let value = self.operand(arg);
                        // Constants are lifted where they are written (and may borrow a
                        // temporary that must live through the call); values built in the
                        // body (`&[]`, `vec![..]`) take their type from the parameter.
                        if self.of_scalar_type(arg) || !self.reads_data(arg) {
                            return value;
                        }
                        lifts = true;
                        quote!(::ad_runtime::__private::Arg::arg(
                            &::ad_runtime::__private::LiftProbe::new(#value)
                                .__ad_lift_arg::<#scalar>()
                        ))
                    })
                    .collect();
                if *dispatch == Dispatch::Nested {
                    let run = match self.primal_only {
                        true => crate::plain_calls::Run::Value,
                        false => crate::plain_calls::Run::Reverse,
                    };
                    let args = args
                        .into_iter()
                        .zip(operands)
                        .map(|(arg, operand)| (arg, self.seeding(operand)))
                        .collect();
                    let called = crate::plain_calls::nested_call(callee, args, run, span);
                    return crate::retype::with_lifted_arguments(called, lifts, span);
                }
                // Its result carries no float: at the primal values.
                if let (Dispatch::AtPrimals, Some(crate::plain_calls::Callee::ValueOnly(params))) =
                    (dispatch, crate::plain_calls::callee(callee))
                {
                    let args = params.iter().zip(operands).map(|(param, operand)| {
                        let value = self.operand(operand);
                        crate::plain_calls::primal_argument(param, &value, span).unwrap_or(value)
                    });
                    return quote_spanned!(span=> #callee(#(#args),*));
                }
                if *dispatch == Dispatch::Plain {
                    let called = match crate::plain_calls::callee(callee) {
                        Some(crate::plain_calls::Callee::Generic(params)) => {
                            // Parameters not naming the float type take plain data.
                            for ((arg, operand), param) in
                                args.iter_mut().zip(operands).zip(&params)
                            {
                                if *param == crate::plain_calls::Param::Data {
                                    *arg = self.plain_argument(operand);
                                }
                            }
                            let run = match self.primal_only {
                                true => crate::plain_calls::Run::Value,
                                false => crate::plain_calls::Run::Reverse,
                            };
                            crate::plain_calls::call(callee, &params, args, run, span)
                        }
                        // `validate::check_plain_callee` refused any other.
                        _ => quote_spanned!(span=> ::core::compile_error!(
                            "internal error: a plain function's call was not checked"
                        )),
                    };
                    return crate::retype::with_lifted_arguments(called, lifts, span);
                }
                // Code that runs without recording (a checkpointed region's first run) calls
                // the companion that computes the value alone.
                let companion_name = match self.primal_only {
                    true => names::FORWARD_COMPANION,
                    false => names::REVERSE_COMPANION,
                };
                let companion = match method {
                    // A method of the receiver's type: its twin's, which forwards to the
                    // type's companion (`twins`).
                    Some(method) if *dispatch != Dispatch::Path => {
                        let receiver = args.remove(0);
                        // An operator's right operand by value, as the operator takes it.
                        if let (Dispatch::Operator, Some(rhs)) = (dispatch, args.first_mut()) {
                            *rhs = quote!(::ad_runtime::__private::ir::value_of(#rhs));
                        }
                        let companion = names::method_companion(method, companion_name);
                        quote!((#receiver).#companion)
                    }
                    // A method of a derived type: the type's companion of it, the receiver
                    // first.
                    Some(method) => names::method_companion_path(callee, method, companion_name),
                    None => {
                        let companion = Ident::new(companion_name, Span::call_site());
                        quote!(#callee::#companion)
                    }
                };
                crate::retype::with_lifted_arguments(
                    quote_spanned!(span=> #companion(#(#args),*)),
                    lifts,
                    span,
                )
            }
            Rvalue::Ref(Operand::Place(item)) if self.body.iterated.contains(&value_defined) => {
                let mut source = item.clone();
                let index = match source.projections.pop() {
                    Some(Projection::Index(index)) => self.operand(&index),
                    _ => unreachable!("an iterated item is an element of its source"),
                };
                let source = self.place(&source);
                quote_spanned!(span=> ::ad_runtime::__private::ir::iterated(&#source, #index))
            }
            Rvalue::Ref(place) if self.body.receivers.contains(&value_defined) => {
                let place = self.operand(place);
                quote_spanned!(span=> ::ad_runtime::__private::receiver(&#place))
            }
            Rvalue::Ref(place) => {
                let place = self.operand(place);
                quote_spanned!(span=> &#place)
            }
            Rvalue::RefMut(place) if self.body.receivers.contains(&value_defined) => {
                let place = self.operand(place);
                quote_spanned!(span=> ::ad_runtime::__private::receiver(&mut #place))
            }
            Rvalue::RefMut(place) => {
                let place = self.operand(place);
                quote_spanned!(span=> &mut #place)
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
            Rvalue::Ok(content) => {
                let content = self.operand(content);
                quote_spanned!(span=> ::core::result::Result::Ok(#content))
            }
            Rvalue::Err(error) => {
                let error = self.operand(error);
                quote_spanned!(span=> ::core::result::Result::Err(#error))
            }
            Rvalue::Extract {
                scrutinee,
                pattern,
                names,
                data_only,
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
                // lifted, as a field read is. Parts of data stay as they are: each read of
                // one is lifted.
                let names = names.iter().map(|name| match data_only {
                    true => quote!(#name),
                    false => quote!(
                        ::ad_runtime::__private::LiftProbe::new(#name).__ad_lift::<#scalar>()
                    ),
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
                twin,
                path,
                fields,
                form,
                ..
            } => {
                let members = fields.iter().map(|(member, _)| member);
                // Plain data is built as written, from plain values.
                let plain = self.plain_values.contains(&value_defined);
                let twin = match plain {
                    true => path,
                    false => twin,
                };
                let values: Vec<TokenStream> = fields
                    .iter()
                    .map(|(_, value)| match plain {
                        true => self.plain_argument(value),
                        false => self.operand(value),
                    })
                    .collect();
                // A tuple struct's twin is named by an alias, which cannot be called as its
                // constructor: its fields are given by number (`T { 0: x, 1: y }`).
                match form {
                    ConstructForm::Named | ConstructForm::Tuple => {
                        quote_spanned!(span=> #twin { #(#members: #values),* })
                    }
                    ConstructForm::Unit => quote_spanned!(span=> #twin),
                }
            }
            Rvalue::Duplicate { receiver, method } => {
                let receiver = self.operand(receiver);
                quote_spanned!(span=> #receiver.#method())
            }
            Rvalue::Macro { path, args } => {
                let args = args.iter().map(|(name, arg)| {
                    let arg = self.operand(arg);
                    match name {
                        Some(name) => quote!(#name = #arg),
                        None => arg,
                    }
                });
                quote_spanned!(span=> #path!(#(#args),*))
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

    /// An argument of a plain function or method, called on data alone: its floats carry no
    /// derivative, and go back to plain floats; a literal (or a closure passed as written)
    /// stays as it is.
    /// A call given closures (`ir::ClosureCall`): the callee's forward code at dual numbers,
    /// each closure written over them (`Retype` at `Dual<__S>`), the variables it captures bound
    /// by their names, floats seeded and data cloned; its value and local Jacobian by forward
    /// mode (`plain_calls`).
    pub(super) fn call_with_closures(
        &self,
        callee: &syn::Path,
        args: &[Operand],
        index: usize,
        span: Span,
    ) -> TokenStream {
        let generic_call = quote!(::ad_runtime::__private::generic_call);
        let call = &self.body.closure_calls[index];
        let explicit = args.len() - call.captured.len();
        let block = self.function.block_for_derivatives();
        let locals = crate::activity::Locals::analyze_body(self.function, &block);
        let scalar = names::scalar_param(span);
        let mut retype = crate::retype::Retype {
            float: self.function.float,
            locals: &locals,
            companion: names::FORWARD_COMPANION,
            value_only: false,
            scalar_type: Some(quote!(::ad_runtime::Dual<#scalar>)),
        };
        let probe_captured = |operand: TokenStream, active: bool| {
            let probed = quote_spanned!(span=>
                #generic_call::SeedProbe::new(#operand).__ad_seed_captured()
            );
            match active {
                true => probed,
                false => quote_spanned!(span=> #generic_call::Constant::of(#probed)),
            }
        };
        let (mut seeds, mut pattern, mut passed) = (Vec::new(), Vec::new(), Vec::new());
        let (mut bound, mut data) = (Vec::new(), Vec::new());
        for (position, arg) in args[..explicit].iter().enumerate() {
            let name = quote::format_ident!("__ad_g{}", position, span = span);
            match call.closures.iter().find(|(at, _, _)| *at == position) {
                Some((_, closure, lent)) => {
                    let mut closure = syn::Expr::Closure(closure.clone());
                    syn::visit_mut::VisitMut::visit_expr_mut(&mut retype, &mut closure);
                    seeds.push(quote_spanned!(span=> #generic_call::Data(())));
                    pattern.push(quote!(_));
                    passed.push(match lent {
                        true => quote!(&#closure),
                        false => closure.into_token_stream(),
                    });
                }
                None => {
                    seeds.push(self.seeding(arg).seed(self.operand(arg), span));
                    pattern.push(name.to_token_stream());
                    passed.push(quote_spanned!(span=> #generic_call::Pass::pass(&#name)));
                }
            }
        }
        for (name, arg) in call.captured.iter().zip(&args[explicit..]) {
            let operand = self.operand(arg);
            if locals.floats.contains(name) {
                let seeded = quote::format_ident!("__ad_captured_{}", name, span = span);
                seeds.push(probe_captured(operand, self.activity.is_active(arg)));
                pattern.push(seeded.to_token_stream());
                bound.push(quote_spanned!(span=> let #name = #generic_call::Pass::pass(&#seeded);));
            } else {
                seeds.push(quote_spanned!(span=> #generic_call::Data(())));
                pattern.push(quote!(_));
                data.push(
                    quote_spanned!(span=> let #name = ::core::clone::Clone::clone(#operand);),
                );
            }
        }
        let companion = syn::Ident::new(names::FORWARD_COMPANION, span);
        let runner = match self.primal_only {
            true => quote!(primal),
            false => quote!(reverse),
        };
        quote_spanned!(span=> {
            #[allow(unused_imports)]
            use #generic_call::{SeedCaptured as _, SeedFloats as _, SeedOther as _};
            #[allow(unused_imports)]
            use ::ad_runtime::Scalar as _;
            #(#data)*
            #generic_call::#runner(
                (#(#seeds,)*),
                |(#(#pattern,)*)| {
                    #(#bound)*
                    #callee::#companion::<::ad_runtime::Dual<#scalar>>(#(#passed),*)
                },
            )
        })
    }

    /// How an argument of a call run at dual numbers is seeded: data constants (`20`) as they
    /// are, others by the type rustc gives them, as inputs where they carry derivatives.
    pub(super) fn seeding(&self, arg: &Operand) -> crate::plain_calls::Seeding {
        use crate::plain_calls::Seeding;
        match arg {
            Operand::Constant(constant) if constant.kind == ConstantKind::Data => Seeding::Data,
            _ if self.activity.is_active(arg) => Seeding::Active,
            _ => Seeding::Constant,
        }
    }

    pub(super) fn plain_argument(&self, arg: &Operand) -> TokenStream {
        match arg {
            Operand::Constant(constant) if constant.kind != ConstantKind::Path => {
                constant.tokens.clone()
            }
            // A reference (`&f` of `let f: Vec<f64> = data(3)`, lifted): to what the plain
            // function borrows, its floats unlifted where they were lifted.
            Operand::Value(value)
                if matches!(self.residuals.definition(*value), Some(Rvalue::Ref(_))) =>
            {
                let arg = self.operand(arg);
                quote!(&*::ad_runtime::__private::UnliftProbe::new(#arg).__ad_plain_borrowed())
            }
            _ => {
                let arg = self.operand(arg);
                quote!(::ad_runtime::__private::UnliftProbe::new(#arg).__ad_plain())
            }
        }
    }

    /// The call of the rule of a useful float method (its value and linear map), when the
    /// linear maps are kept.
    pub(super) fn rule_with_kept_map(&self, rvalue: &Rvalue, value: Value) -> Option<TokenStream> {
        let Rvalue::FloatMethod {
            rule,
            receiver,
            args,
            method,
        } = rvalue
        else {
            return None;
        };
        // A map that follows from the value is made from it in the backward sweep.
        if !self.residuals.passes().keep_linear_maps
            || rule.map_from_value()
            || !self.activity.is_useful_value(value)
            || self.primal_only
        {
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
    /// Whether an operand is certainly of the scalar type in the generated code: it carries a
    /// derivative, it is a float literal (lifted where it is written), or it reads a
    /// `#[no_grad]` float parameter (which derivative code takes at the scalar type). Other
    /// data may be `f64`, `&f64` or an integer there.
    pub(crate) fn of_scalar_type(&self, operand: &Operand) -> bool {
        self.activity.is_active(operand)
            || matches!(operand, Operand::Constant(constant) if constant.kind == ConstantKind::Float)
            || self
                .parameter_read(operand)
                .is_some_and(|param| param.kind == crate::ast::ParamKind::Constant)
    }

    /// The parameter an operand reads, through copies, borrows and projections (`x[i]`,
    /// `&cfg.rows`).
    pub(super) fn parameter_read(&self, operand: &Operand) -> Option<&crate::ast::Param> {
        let root = match operand {
            Operand::Place(place) => place.root,
            Operand::Constant(_) => return None,
            Operand::Value(value) => match self.residuals.definition(*value) {
                None => Root::Value(*value),
                Some(Rvalue::Use(inner)) | Some(Rvalue::Ref(inner)) => {
                    return self.parameter_read(inner)
                }
                Some(_) => return None,
            },
        };
        if let Root::Value(value) = root {
            if self.residuals.definition(value).is_some() {
                return self.parameter_read(&Operand::Value(value));
            }
        }
        let index = self.body.params.iter().position(|param| *param == root)?;
        self.function.params.get(index)
    }

    /// Whether an operand is data read from somewhere (a parameter, a field, an element, a
    /// loop's item), whose type is its own, rather than a value built in the body.
    pub(super) fn reads_data(&self, operand: &Operand) -> bool {
        // A `&mut` parameter is reborrowed by the call, not moved into a lift.
        if self
            .parameter_read(operand)
            .is_some_and(|param| param.is_mut_reference())
        {
            return false;
        }
        match operand {
            Operand::Place(place) => match place.root {
                Root::Value(root) => self.reads_data(&Operand::Value(root)),
                Root::Var(_) => true,
            },
            Operand::Constant(_) => false,
            Operand::Value(value) => match self.residuals.definition(*value) {
                None => true,
                Some(Rvalue::Use(inner)) | Some(Rvalue::Ref(inner)) => self.reads_data(inner),
                // `[cfg.a, cfg.b]`: of the data's type.
                Some(Rvalue::Elements(_, elements)) => {
                    !elements.is_empty() && elements.iter().all(|element| self.reads_data(element))
                }
                Some(_) => false,
            },
        }
    }

    pub(super) fn is_active_call(&self, args: &[Operand]) -> bool {
        args.iter().any(|arg| {
            self.activity.is_active(arg)
                || matches!(arg, Operand::Value(value)
                    if self.activity.written_by_calls.get(value)
                        .is_some_and(|place| self.activity.active.contains(&place.root)))
        })
    }

    /// A `&mut` parameter passed on whole, reborrowed as Rust does rather than moved out of its
    /// variable: an in-out one where a shared reference is taken (`rhs(y, ..)` with
    /// `y: &mut [f64]`; `&mut *y` passes it mutably), a data one (`rng: &mut Rng`) mutably.
    pub(super) fn passed_on_mutable_parameter(&self, operand: &Operand) -> Option<TokenStream> {
        let param = self.mutable_parameter_passed_on(operand)?;
        let name = self.operand(operand);
        let span = operand.span(self.body);
        Some(match param.kind {
            ParamKind::Data => quote_spanned!(span=> &mut *#name),
            _ => quote_spanned!(span=> &*#name),
        })
    }

    /// The `&mut` parameter `operand` names whole, if it does.
    pub(super) fn mutable_parameter_passed_on(
        &self,
        operand: &Operand,
    ) -> Option<&crate::ast::Param> {
        let root = match operand {
            Operand::Place(place) if place.projections.is_empty() => place.root,
            Operand::Value(value) => match self.residuals.definition(*value) {
                Some(Rvalue::Use(inner)) => return self.mutable_parameter_passed_on(inner),
                _ => Root::Value(*value),
            },
            _ => return None,
        };
        let index = self.body.params.iter().position(|param| *param == root)?;
        let param = self.function.params.get(index)?;
        param.is_mut_reference().then_some(param)
    }

    pub(super) fn cast(&self, operand: &Operand, ty: &syn::Type) -> TokenStream {
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
}

/// A data value (a float, a reference to one) as a constant of the scalar type; a value already
/// of the scalar type as it is.
pub(super) fn lift_data(value: TokenStream, span: Span) -> TokenStream {
    let scalar = names::scalar_param(span);
    quote_spanned!(span=> ::ad_runtime::__private::LiftProbe::new(#value).__ad_lift::<#scalar>())
}

/// The operator `method` (`add`, .., `neg`) of `Dispatch::Operator` on data: as written.
fn operator_on_data(method: &Ident, args: &[TokenStream]) -> TokenStream {
    let operator = match method.to_string().as_str() {
        "add" => quote!(+),
        "sub" | "neg" => quote!(-),
        "mul" => quote!(*),
        "div" => quote!(/),
        _ => quote!(%),
    };
    match args {
        // `k * v`, called on `v` (`ir::lower`'s `rmul`).
        [rhs, lhs] if method == "rmul" => quote!((#lhs) * (#rhs)),
        [lhs, rhs] => quote!((#lhs) #operator (#rhs)),
        operand => quote!(#operator (#(#operand)*)),
    }
}

/// `Vector3`, `nalgebra::DMatrix`: the path of a nalgebra vector or matrix type, as a
/// constructor's callee names it (`ir::lower::linalg_constructor`).
fn is_linalg_type_path(path: &syn::Path) -> bool {
    path.segments
        .last()
        .is_some_and(|last| crate::ast::is_linalg_name(&last.ident))
}
