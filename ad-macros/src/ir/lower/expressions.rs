//! Expressions lowered to operations: each operation one `Let` of a fresh value whose
//! operands are values, constants or places (ANF); calls, method calls, macros (`vec!`) and
//! values of derived types built in the body.

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, Ident};

use super::desugar::{linalg_from_fn, linalg_map};
use super::dispatch::*;
use super::*;

impl Lowering {
    /// Each expression as an operand, in order.
    pub(super) fn operands<'e>(
        &mut self,
        exprs: impl IntoIterator<Item = &'e Expr>,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Vec<Operand>> {
        exprs
            .into_iter()
            .map(|expr| self.operand(expr, stmts))
            .collect()
    }

    pub(super) fn operand(&mut self, expr: &Expr, stmts: &mut Vec<Stmt>) -> Lowered<Operand> {
        if super::checkpoints::is_checkpointed(expr) {
            return match self.checkpointed(expr, stmts)? {
                Some(operand) => Ok(operand),
                None => not_yet(
                    expr,
                    "a checkpointed region without a value where one is used",
                ),
            };
        }
        if has_meaningful_attributes(expr) {
            return not_yet(expr, "attributes on expressions");
        }
        let span = expr.span();
        // An operator of a derived type: `Some(type)` when its result is taken to be of the
        // type (`a - b`, `v * 2.0`), `Some(None)` when that is not known.
        let mut operator_result: Option<Option<syn::Path>> = None;
        let rvalue = match expr {
            Expr::Paren(paren) => return self.operand(&paren.expr, stmts),
            Expr::Group(group) => return self.operand(&group.expr, stmts),
            Expr::Lit(lit) => return Ok(Operand::Constant(literal(&lit.lit))),
            Expr::Path(path) => {
                // `crate`, `self` or `super` alone is no value: the function as written makes
                // rustc say so, once, rather than each companion again.
                if path.path.segments.len() == 1
                    && matches!(
                        path.path.segments[0].ident.to_string().as_str(),
                        "crate" | "super" | "Self"
                    )
                {
                    return not_yet(path, "`crate`, `super` or `Self` as a value");
                }
                if path.qself.is_none() {
                    if let Some(ident) = path.path.get_ident() {
                        if let Some(Binding::Closure(_)) = self.binding(ident) {
                            return closures::closure_used_as_a_value(ident);
                        }
                        if let Some(part) = self.part_place(ident, span) {
                            return Ok(Operand::Value(self.read(part, span, stmts)));
                        }
                        // A borrow read whole (passed on, `bump(r)`): a borrow of its place.
                        if let Some((place, mutable)) = self.borrowed_place(ident) {
                            let rvalue = match mutable {
                                true => Rvalue::RefMut(Operand::Place(place)),
                                false => Rvalue::Ref(Operand::Place(place)),
                            };
                            return Ok(Operand::Value(self.define(rvalue, span, stmts)));
                        }
                        if let Some(root) = self.resolve(ident) {
                            return Ok(match root {
                                Root::Value(value) => Operand::Value(value),
                                Root::Var(_) => {
                                    let place = Place {
                                        root,
                                        projections: Vec::new(),
                                        span,
                                    };
                                    Operand::Value(self.read(place, span, stmts))
                                }
                            });
                        }
                    }
                }
                if let Some(rvalue) = self.construct(&path.path, ConstructForm::Unit, Vec::new()) {
                    let value = self.new_value(None, span);
                    stmts.push(Stmt::Let(Let {
                        value,
                        rvalue,
                        span,
                    }));
                    return Ok(Operand::Value(value));
                }
                // `None` is an option of whatever type the code around it gives it; any other
                // path is lifted to the scalar type when it turns out to be a float.
                let kind = if is_none_path(&path.path) {
                    ConstantKind::Data
                } else {
                    ConstantKind::Path
                };
                return Ok(Operand::Constant(Constant {
                    tokens: path.to_token_stream(),
                    kind,
                    span,
                }));
            }
            Expr::Index(_) | Expr::Field(_) => {
                let place = self.place(expr, stmts)?;
                return Ok(Operand::Value(self.read(place, span, stmts)));
            }
            Expr::Unary(unary) => match unary.op {
                syn::UnOp::Neg(minus) => {
                    let operand = self.operand(&unary.expr, stmts)?;
                    match self.user_type_of(&unary.expr, &operand) {
                        Some(type_path) => {
                            operator_result = Some(Some(type_path.clone()));
                            Rvalue::Call {
                                callee: type_path,
                                method: Some(Ident::new("neg", minus.span)),
                                args: vec![operand],
                                dispatch: Dispatch::Path,
                            }
                        }
                        None if self.may_be_user_result(&unary.expr, &operand) => {
                            operator_call(Ident::new("neg", minus.span), vec![operand])
                        }
                        None => Rvalue::Neg(operand),
                    }
                }
                syn::UnOp::Not(_) => Rvalue::Not(self.operand(&unary.expr, stmts)?),
                syn::UnOp::Deref(_) => {
                    let place = self.place(expr, stmts)?;
                    return Ok(Operand::Value(self.read(place, span, stmts)));
                }
                _ => return not_yet(expr, "this unary operator"),
            },
            Expr::Binary(binary) => match &binary.op {
                syn::BinOp::And(_) | syn::BinOp::Or(_) => {
                    return self.short_circuit(binary, stmts);
                }
                op => match arithmetic_op(op) {
                    Some(op) => {
                        let left = self.operand(&binary.left, stmts)?;
                        let right = self.operand(&binary.right, stmts)?;
                        let left_type = self.user_type_of(&binary.left, &left);
                        let mut right_type = self.user_type_of(&binary.right, &right);
                        // `k / &v`: an operator with a float on the left taking the value by
                        // reference (`impl Div<&V3> for f64`).
                        if let Expr::Reference(reference) = strip(&binary.right) {
                            if left_type.is_none() && self.is_a_float(&binary.left) {
                                right_type =
                                    right_type.or_else(|| self.user_type_written(&reference.expr));
                            }
                        }
                        // The type's hidden method for a float on the left (`left_operators`).
                        let by_reference = matches!(strip(&binary.right), Expr::Reference(_));
                        let left_method = |type_path: &syn::Path| {
                            type_path.segments.last().and_then(|last| {
                                crate::source_facts::left_operator(
                                    Some(&last.ident.to_string()),
                                    op.rule(),
                                    by_reference,
                                    binary.op.span(),
                                )
                            })
                        };
                        // A float field or element on the left (`b.mass * b.vel`) without the
                        // hidden method: whatever operator its type has, as before the body's
                        // floats were told apart (data runs as written).
                        let reads_a_part = |left: &Expr| {
                            let parts = std::cell::Cell::new(false);
                            crate::left_operators::is_float_expression(left, &|leaf| {
                                if matches!(leaf, Expr::Field(_) | Expr::Index(_)) {
                                    parts.set(true);
                                }
                                true
                            });
                            parts.get()
                        };
                        match (left_type, right_type) {
                            // The type's operator: its companion, as a method's.
                            (Some(type_path), right_type) => {
                                let method = Ident::new(op.rule(), binary.op.span());
                                // `Self` in a method of the type is the type.
                                let is_self = |path: &syn::Path| path.is_ident("Self");
                                // Of the type when the right operand is of it too, or a
                                // float (`v * 2.0`); not known for one a method returned.
                                let right_unknown = right_type.is_none()
                                    && self.may_be_user_result(&binary.right, &right);
                                operator_result = Some(match right_type {
                                    Some(other)
                                        if other != type_path
                                            && !is_self(&other)
                                            && !is_self(&type_path) =>
                                    {
                                        None
                                    }
                                    _ if right_unknown => None,
                                    _ => Some(type_path.clone()),
                                });
                                Rvalue::Call {
                                    callee: type_path,
                                    method: Some(method),
                                    args: vec![left, right],
                                    dispatch: Dispatch::Path,
                                }
                            }
                            // A float (`2.0 * v`, `k * v`): the float's operator, which the
                            // type's hidden method stands for when the file differentiates it
                            // (`left_operators`).
                            (None, Some(type_path))
                                if self.is_a_float(&binary.left)
                                    && (left_method(&type_path).is_some()
                                        || !reads_a_part(&binary.left)) =>
                            {
                                let Some(method) = left_method(&type_path) else {
                                    return not_yet(expr, DERIVED_ON_THE_RIGHT);
                                };
                                operator_result = Some(Some(type_path.clone()));
                                Rvalue::Call {
                                    callee: type_path,
                                    method: Some(method),
                                    args: vec![right, left],
                                    dispatch: Dispatch::Path,
                                }
                            }
                            // A float times a value of a type the body does not show
                            // (`2.0 * v` of a nalgebra vector): `v`'s `rmul`, which only a
                            // scaling by a float has (`ad_runtime::linalg`), so that rustc
                            // refuses a left operand of any other type.
                            (None, None)
                                if op.rule() == "mul"
                                    && !self.may_be_user_result(&binary.left, &left)
                                    && self.may_be_user_result(&binary.right, &right) =>
                            {
                                operator_call(
                                    Ident::new("rmul", binary.op.span()),
                                    vec![right, left],
                                )
                            }
                            // Of a type the body does not show, with a value of a derived type
                            // (`self.center - *p`, `pts[i] - p`), or a value a method returned:
                            // whatever operator its type has.
                            (None, right_type)
                                if right_type.is_some()
                                    || self.may_be_user_result(&binary.left, &left) =>
                            {
                                operator_call(
                                    Ident::new(op.rule(), binary.op.span()),
                                    vec![left, right],
                                )
                            }
                            (None, _) => Rvalue::Binary(op, left, right),
                        }
                    }
                    None if compound_op(op).is_some() => {
                        return not_yet(expr, "compound assignment inside an expression");
                    }
                    None => {
                        let left = self.operand(&binary.left, stmts)?;
                        let right = self.operand(&binary.right, stmts)?;
                        Rvalue::DataBinary(
                            DataOp {
                                op: op.to_token_stream(),
                            },
                            left,
                            right,
                        )
                    }
                },
            },
            Expr::MethodCall(call) => {
                // A method called on a borrow is called on the place it borrows, as Rust's
                // auto-deref does (`r.sin()` for `let r = &mut q.x`).
                let through_borrow;
                let call = match super::borrowing_name(&call.receiver) {
                    Some(name) if self.borrowed_place(name).is_some() => {
                        let receiver = &call.receiver;
                        through_borrow = syn::ExprMethodCall {
                            receiver: Box::new(
                                syn::parse_quote_spanned!(receiver.span()=> (*#receiver)),
                            ),
                            ..call.clone()
                        };
                        &through_borrow
                    }
                    _ => call,
                };
                if let Some(length) = self.length_of_adapters(call, stmts)? {
                    return Ok(Operand::Value(self.define(length, span, stmts)));
                }
                // `self.boxed.as_ref()` of a `Box` field: `&*self.boxed`.
                if self.is_boxed_field(&call.receiver)
                    && call.method == "as_ref"
                    && call.args.is_empty()
                {
                    let receiver = &call.receiver;
                    let borrowed: Expr = syn::parse_quote_spanned!(span=> &*#receiver);
                    return self.operand(&borrowed, stmts);
                }
                if self.is_linalg_value(&call.receiver) {
                    if let Some(mapped) = linalg_map(call) {
                        let operand = self.operand(&mapped, stmts)?;
                        if let Operand::Value(value) = operand {
                            self.user_results.insert(Root::Value(value));
                            self.linalg_values.insert(Root::Value(value));
                        }
                        return Ok(operand);
                    }
                    let method = call.method.to_string();
                    if !is_linalg_method(&method, call.args.len())
                        && !matches!(method.as_str(), "clone" | "to_owned")
                        && !is_length_method(&method)
                    {
                        return not_yet(&call.method, super::LINALG_WITHOUT_RULE);
                    }
                }
                let expected = self.expected_type(expr);
                // `v.sum()` of a nalgebra vector is its type's rule, not an iterator's sum.
                let of_receiver_type = is_linalg_method(&call.method.to_string(), call.args.len())
                    && self.may_be_user_value(&call.receiver);
                if !of_receiver_type {
                    if let Some(reduced) =
                        self.iterator_reduction(call, expected.as_ref(), stmts)?
                    {
                        return Ok(reduced);
                    }
                }
                if call.turbofish.is_some() {
                    return not_yet(expr, "method calls with a turbofish");
                }
                let method = call.method.to_string();
                // A method of a derived type is the type's own, whatever its name (`abs`): a
                // call of its reverse companion, the receiver first.
                // Its companion takes the receiver by reference.
                let user_type = match &*call.receiver {
                    Expr::Path(_) if matches!(method.as_str(), "clone" | "to_owned") => None,
                    Expr::Path(path) => path
                        .path
                        .get_ident()
                        .and_then(|ident| self.resolve(ident))
                        .and_then(|root| self.user_values.get(&root).cloned()),
                    // An element of a `#[grad]` container of a derived type (`bodies[i]`), a
                    // field the file's struct definition gives a derived type (`self.from`).
                    Expr::Index(_) | Expr::Field(_)
                        if !matches!(method.as_str(), "clone" | "to_owned") =>
                    {
                        self.user_type_written(&call.receiver)
                    }
                    _ => None,
                };
                if let Some(type_path) = user_type {
                    let mut place = self.place(&call.receiver, stmts)?;
                    let reference = self.new_value(None, call.receiver.span());
                    // A variable is lent mutably: the method may be a `&mut self` one, whose
                    // pullback then takes the cotangent of what it leaves in the receiver
                    // (`ir::apply_to_receiver`); to a `&self` one the loan is shared.
                    let mutable = matches!(place.root, Root::Var(_));
                    if mutable
                        && place.projections.is_empty()
                        && self.mutable_references.contains(&place.root)
                    {
                        place.projections.push(Projection::Deref);
                    }
                    let holds_the_value = match place.root {
                        Root::Value(value) => !self.references.contains(&value),
                        Root::Var(_) => !self.mutable_references.contains(&place.root),
                    };
                    // A reference (`p: &Point`) lends what it points to: to a `self` method's
                    // companion a copy of it (`Receiver`).
                    let reference_value = matches!(place.root,
                        Root::Value(value) if self.references.contains(&value));
                    if reference_value && place.projections.is_empty() {
                        place.projections.push(Projection::Deref);
                    }
                    // (A field of what a reference points to, `self.first`, is lent as it is.)
                    if (holds_the_value && place.projections.is_empty())
                        || (reference_value && matches!(place.projections[..], [Projection::Deref]))
                    {
                        self.receivers.insert(reference);
                    }
                    let rvalue = match mutable {
                        true => Rvalue::RefMut(Operand::Place(place)),
                        false => Rvalue::Ref(Operand::Place(place)),
                    };
                    // The arguments first: they may read the receiver (`a.add(a.norm())`,
                    // which Rust's two-phase borrows allow), the loan is taken at the call.
                    let mut args = vec![Operand::Value(reference)];
                    for arg in &call.args {
                        args.push(self.operand(arg, stmts)?);
                    }
                    stmts.push(Stmt::Let(Let {
                        value: reference,
                        rvalue,
                        span: call.receiver.span(),
                    }));
                    Rvalue::Call {
                        callee: type_path,
                        method: Some(call.method.clone()),
                        args,
                        dispatch: Dispatch::Path,
                    }
                } else if (is_user_method_name(&method, call.args.len())
                    || is_linalg_method(&method, call.args.len())
                    || (is_length_method(&method)
                        && !matches!(strip(&call.receiver), Expr::Field(_))))
                    && self.may_be_user_value(&call.receiver)
                {
                    // The receiver's type decides, through its twin's methods.
                    let place = self.receiver_place(call, span, stmts)?;
                    let mut args = Vec::new();
                    for arg in &call.args {
                        args.push(self.operand(arg, stmts)?);
                    }
                    // A variable is lent mutably, as to a known type's method: the method may
                    // be a `&mut self` one (`let mut c = a.cross(&b); c.normalize();`).
                    let lent = match place.root {
                        Root::Var(_) => Rvalue::RefMut(Operand::Place(place)),
                        Root::Value(_) => Rvalue::Ref(Operand::Place(place)),
                    };
                    let reference = self.define(lent, call.receiver.span(), stmts);
                    args.insert(0, Operand::Value(reference));
                    Rvalue::Call {
                        callee: call.method.clone().into(),
                        method: Some(call.method.clone()),
                        args,
                        dispatch: Dispatch::Receiver,
                    }
                } else if let Some(rule) = float_method_rule(&method, call.args.len()) {
                    let receiver = self.operand(&call.receiver, stmts)?;
                    let args = self.operands(&call.args, stmts)?;
                    Rvalue::FloatMethod {
                        rule,
                        receiver,
                        args,
                        method: call.method.clone(),
                    }
                } else if method == "sin_cos" && call.args.is_empty() {
                    let receiver = self.operand(&call.receiver, stmts)?;
                    self.sin_cos(receiver, call.method.span(), span, stmts)
                } else if let Some(content) = self.option_method(call, stmts)? {
                    return Ok(content);
                } else if let Some(result) = self.container_method(call, stmts)? {
                    return Ok(result);
                } else if matches!(method.as_str(), "clone" | "to_vec" | "to_owned")
                    && call.args.is_empty()
                {
                    Rvalue::Duplicate {
                        receiver: self.receiver(&call.receiver, stmts)?,
                        method: call.method.clone(),
                    }
                } else if VALUE_ONLY_METHODS.contains(&method.as_str())
                    || OPTION_DATA_METHODS.contains(&method.as_str())
                {
                    let receiver = self.receiver(&call.receiver, stmts)?;
                    let args = self.operands(&call.args, stmts)?;
                    Rvalue::DataMethod {
                        receiver,
                        method: call.method.clone(),
                        args,
                    }
                } else {
                    // The receiver is a place (a method of a temporary, `v.iter().position(..)`,
                    // may need it mutable); of a data parameter or a part of one, its floats
                    // are plain, and a closure passed on stays as written.
                    // A temporary (`v.len().saturating_sub(2)`) is a value of its own.
                    let receiver = self.receiver_place(call, span, stmts)?;
                    let plain = self.plain_roots.contains(&receiver.root);
                    let args = call
                        .args
                        .iter()
                        .map(|arg| match plain {
                            true => self.plain_argument(arg, stmts),
                            false if matches!(strip(arg), Expr::Closure(_)) => {
                                not_yet(arg, "closures passed to methods of locals")
                            }
                            false => self.operand(arg, stmts),
                        })
                        .collect::<Lowered<Vec<_>>>()?;
                    Rvalue::PlainMethod {
                        receiver: Operand::Place(receiver),
                        method: call.method.clone(),
                        args,
                        plain,
                    }
                }
            }
            Expr::Cast(cast) => Rvalue::Cast(self.operand(&cast.expr, stmts)?, (*cast.ty).clone()),
            Expr::Call(call) => match self.closure_call(call, stmts)? {
                Some(Some(value)) => return Ok(value),
                Some(None) => return not_yet(expr, "a `()`-valued closure call used as a value"),
                None => self.call(call, stmts)?,
            },
            Expr::Macro(mac) if mac.mac.path.is_ident("vec") => self.vec_macro(&mac.mac, stmts)?,
            Expr::Macro(mac) => return self.lower_macro(&mac.mac, stmts),
            Expr::Tuple(tuple) if !tuple.elems.is_empty() => {
                Rvalue::Tuple(self.operands(&tuple.elems, stmts)?)
            }
            // `()` (`Err(())`): data.
            Expr::Tuple(_) => {
                return Ok(Operand::Constant(Constant {
                    tokens: quote::quote_spanned!(expr.span()=> ()),
                    kind: ConstantKind::Data,
                    span: expr.span(),
                }))
            }
            Expr::Reference(reference) => {
                if reference.mutability.is_some() {
                    Rvalue::RefMut(Operand::Place(self.place(&reference.expr, stmts)?))
                } else {
                    self.shared_reference(reference, stmts)?
                }
            }
            Expr::Array(array) => {
                Rvalue::Elements(Sequence::Array, self.operands(&array.elems, stmts)?)
            }
            // The length is a constant expression, kept as written.
            Expr::Repeat(repeat) => Rvalue::Repeat(
                Sequence::Array,
                self.operand(&repeat.expr, stmts)?,
                Operand::Constant(Constant {
                    tokens: repeat.len.to_token_stream(),
                    kind: ConstantKind::Data,
                    span: repeat.len.span(),
                }),
            ),
            Expr::Struct(structure) => self.construct_struct(structure, stmts)?,
            Expr::Range(range) => Rvalue::Range {
                start: match &range.start {
                    Some(start) => Some(self.operand(start, stmts)?),
                    None => None,
                },
                end: match &range.end {
                    Some(end) => Some(self.operand(end, stmts)?),
                    None => None,
                },
                inclusive: matches!(range.limits, syn::RangeLimits::Closed(_)),
            },
            Expr::Block(block) if block.label.is_some() => {
                return not_yet(
                    expr,
                    "labeled blocks: use a `loop` with `break 'label value`",
                );
            }
            Expr::Loop(_) => {
                return match self.value_of(expr, stmts)? {
                    Some(operand) => Ok(operand),
                    None => not_yet(expr, "a `loop` without `break value` used as a value"),
                };
            }
            Expr::If(_) | Expr::Match(_) | Expr::Block(_) => {
                return match self.value_of(expr, stmts)? {
                    Some(operand) => Ok(operand),
                    None => not_yet(expr, "a `()`-valued block used as a value"),
                };
            }
            _ => return not_yet(expr, expression_kind(expr)),
        };
        let built = match (&rvalue, expr) {
            (Rvalue::Construct { .. }, Expr::Struct(structure)) => {
                self.user_types.type_named(&structure.path)
            }
            (Rvalue::Construct { .. }, Expr::Call(call)) => match &*call.func {
                Expr::Path(path) => self.user_types.type_named(&path.path),
                _ => None,
            },
            // `Particle::default()`, `State::new(n)`: a constructor of a derived type.
            (_, Expr::Call(_)) => crate::user_types::constructed_type(expr)
                .and_then(|path| self.user_types.type_named(&path)),
            // `let mut s = state.clone();`: a copy of a value of a derived type.
            (Rvalue::Duplicate { .. }, Expr::MethodCall(call)) => {
                self.user_type_written(&call.receiver)
            }
            _ => None,
        };
        // What a method of a derived type returns is of a type the body does not show (but
        // a length is data).
        let user_result = matches!(&rvalue, Rvalue::Call { method: Some(method), .. }
            if !gives_data(&method.to_string()));
        let value = self.define(rvalue, span, stmts);
        if let Some(type_path) = built {
            self.user_values.insert(Root::Value(value), type_path);
        }
        if self.is_linalg_value(expr) {
            self.linalg_values.insert(Root::Value(value));
        }
        match operator_result {
            Some(Some(type_path)) => {
                self.user_values.insert(Root::Value(value), type_path);
            }
            _ if user_result => {
                self.user_results.insert(Root::Value(value));
            }
            _ => {}
        }
        Ok(Operand::Value(value))
    }

    /// `&place`, or a reference to a value computed there (`&x.to_vec()`, `&[a, b]`): one to
    /// a temporary holding it.
    fn shared_reference(
        &mut self,
        reference: &syn::ExprReference,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Rvalue> {
        let temporary = matches!(
            strip(&reference.expr),
            Expr::MethodCall(_)
                | Expr::Call(_)
                | Expr::Macro(_)
                | Expr::Array(_)
                | Expr::Repeat(_)
                | Expr::Tuple(_)
                | Expr::Struct(_)
                | Expr::Binary(_)
                | Expr::Lit(_)
        );
        let place = match temporary {
            true => {
                let operand = self.operand(&reference.expr, stmts)?;
                let value = self.as_value(operand, reference.expr.span(), stmts);
                Place {
                    root: Root::Value(value),
                    projections: Vec::new(),
                    span: reference.expr.span(),
                }
            }
            false => self.place(&reference.expr, stmts)?,
        };
        Ok(Rvalue::Ref(Operand::Place(place)))
    }

    fn vec_macro(&mut self, mac: &syn::Macro, stmts: &mut Vec<Stmt>) -> Lowered<Rvalue> {
        let tokens = &mac.tokens;
        match syn::parse2::<Expr>(quote::quote!([#tokens])) {
            Ok(Expr::Repeat(repeat)) => {
                let element = self.operand(&repeat.expr, stmts)?;
                let count = self.operand(&repeat.len, stmts)?;
                Ok(Rvalue::Repeat(Sequence::Vec, element, count))
            }
            Ok(Expr::Array(array)) => Ok(Rvalue::Elements(
                Sequence::Vec,
                self.operands(&array.elems, stmts)?,
            )),
            _ => not_yet(mac, "this form of `vec!`"),
        }
    }

    /// `&mut v`, or a `&mut` parameter passed on by name.
    fn lends_mutably(&self, arg: &Expr) -> bool {
        match strip(arg) {
            Expr::Reference(reference) => reference.mutability.is_some(),
            Expr::Path(path) => path.path.get_ident().is_some_and(|name| {
                self.resolve(name)
                    .is_some_and(|root| self.mutable_references.contains(&root))
            }),
            _ => false,
        }
    }

    fn call(&mut self, call: &syn::ExprCall, stmts: &mut Vec<Stmt>) -> Lowered<Rvalue> {
        let Expr::Path(func) = &*call.func else {
            return not_yet(
                &call.func,
                "calls of anything but a path: bind the closure with `let` and call it by name",
            );
        };
        // `<f64 as Float>::sin(x)`, `<f64>::exp(x)`: `f64::sin(x)`; a float made of nothing
        // (`<f64 as FloatConst>::PI()`, `f64::epsilon()`) is a constant.
        if let Some(unqualified) = crate::ast::float_function_path(func) {
            if call.args.is_empty() {
                return Ok(Rvalue::Use(Operand::Constant(Constant {
                    tokens: call.to_token_stream(),
                    kind: ConstantKind::Path,
                    span: call.span(),
                })));
            }
            if func.qself.is_some() {
                let mut plain = call.clone();
                *plain.func = Expr::Path(syn::ExprPath {
                    attrs: Vec::new(),
                    qself: None,
                    path: unqualified,
                });
                return self.call(&plain, stmts);
            }
        }
        if func.qself.is_some()
            || func
                .path
                .get_ident()
                .is_some_and(|ident| self.resolve(ident).is_some())
        {
            return not_yet(
                &call.func,
                "calls through a local variable or a qualified path: call a differentiated \
                 function by its name, or bind the closure with `let` in the function",
            );
        }
        if let Some(moved) = self.mem_function(func, call, stmts)? {
            return Ok(moved);
        }
        // `integrate(&f, a, b)` of `let f = |t| ..;`: as if the closure were written there.
        if let Some(written) = self.with_named_closures_written(call) {
            return self.call(&written, stmts);
        }
        let through_forward_code = crate::source_facts::forward_only(&func.path)
            || call
                .args
                .iter()
                .any(|arg| super::closures::passed_closure(arg).is_some())
            || matches!(
                crate::plain_calls::callee(&func.path),
                Some(crate::plain_calls::Callee::Generic(_))
            );
        if through_forward_code {
            if let Some(lent) = call.args.iter().find(|arg| self.lends_mutably(arg)) {
                return not_yet(lent, crate::plain_calls::MUTABLE_TO_FORWARD_CODE);
            }
        }
        // A function given closures, or one with forward code alone: differentiated through
        // its forward code at the call (`Dispatch::WithClosures`).
        if (call
            .args
            .iter()
            .any(|arg| super::closures::passed_closure(arg).is_some())
            || crate::source_facts::forward_only(&func.path))
            && matches!(classify_callee_path(&func.path), Callee::UserFunction)
            && crate::plain_calls::callee(&func.path).is_none()
        {
            return self.call_with_closures(func, call, stmts);
        }
        // A closure that reads the function's variables, given to a function without
        // derivative code: the callee must be annotated to be differentiated through.
        if crate::plain_calls::callee(&func.path).is_some()
            && call.args.iter().any(|arg| {
                super::closures::passed_closure(arg).is_some_and(|(closure, _)| {
                    crate::retype::mentions_name(&closure.body, &|name| {
                        self.resolve(name).is_some()
                    })
                })
            })
        {
            return not_yet(call, crate::plain_calls::CLOSURE_TO_PLAIN);
        }
        if let Some(built) = linalg_from_fn(&func.path, call) {
            let operand = self.operand(&built, stmts)?;
            if let Operand::Value(value) = operand {
                self.user_results.insert(Root::Value(value));
                self.linalg_values.insert(Root::Value(value));
            }
            return Ok(Rvalue::Use(operand));
        }
        if let Some((type_path, constructor)) = linalg_constructor(&func.path, call.args.len()) {
            // `new`'s floats as one array (`ad_runtime::__private::linalg::LinalgConstruct`).
            let args = match constructor == "new_1" {
                true => {
                    let elements = &call.args;
                    let array: Expr = syn::parse_quote_spanned!(call.span()=> [#elements]);
                    vec![self.operand(&array, stmts)?]
                }
                false => self.operands(&call.args, stmts)?,
            };
            return Ok(Rvalue::Call {
                callee: type_path,
                method: Some(constructor),
                args,
                dispatch: Dispatch::Path,
            });
        }
        let mut args = self.operands(&call.args, stmts)?;
        let segments: Vec<String> = func
            .path
            .segments
            .iter()
            .map(|segment| segment.ident.to_string())
            .collect();
        if patterns::is_some_path(&func.path) && args.len() == 1 {
            return Ok(Rvalue::Some(args.remove(0)));
        }
        if patterns::is_ok_path(&func.path) && args.len() == 1 {
            return Ok(Rvalue::Ok(args.remove(0)));
        }
        if patterns::is_err_path(&func.path) && args.len() == 1 {
            // An error is data: a method giving it (`"no".into()`) is not lifted, which would
            // leave rustc nothing to infer its type from.
            if let Operand::Value(error) = &args[0] {
                self.unlifted(*error, stmts);
            }
            return Ok(Rvalue::Err(args.remove(0)));
        }
        let passes_an_option = |this: &Self, args: &[Operand]| {
            args.iter()
                .any(|arg| matches!(arg, Operand::Value(value) if this.options.contains(value)))
        };
        let fields: Vec<(syn::Member, Operand)> = args
            .iter()
            .enumerate()
            .map(|(index, arg)| {
                let member = syn::Member::Unnamed(syn::Index {
                    index: index as u32,
                    span: call.func.span(),
                });
                (member, arg.clone())
            })
            .collect();
        if let Some(rvalue) = self.construct(&func.path, ConstructForm::Tuple, fields) {
            if passes_an_option(self, &args) {
                return not_yet(call, "`Option`s passed to calls");
            }
            return Ok(rvalue);
        }
        // A data parameter `Option` of numbers, to a function's data parameter of that type.
        for arg in &mut args {
            if let Some(param) = self.data_option(arg) {
                *arg = Operand::Constant(Constant {
                    tokens: param.to_token_stream(),
                    kind: ConstantKind::Data,
                    span: call.span(),
                });
            }
        }
        if passes_an_option(self, &args) {
            return not_yet(call, "`Option`s passed to calls");
        }
        match (segments.as_slice(), args.len()) {
            ([vec, new], 0) if vec == "Vec" && new == "new" => return Ok(Rvalue::EmptyVec(None)),
            ([vec, with], 1) if vec == "Vec" && with == "with_capacity" => {
                return Ok(Rvalue::EmptyVec(Some(args.remove(0))));
            }
            _ => {}
        }
        // `g_grad(x)`, `g_jvp(x, dx)`, `g_vjp(x, c)`: the generic version (`g::grad`), which
        // runs at dual numbers (nesting).
        if let Some(generic) = crate::names::generic_public_of_path(&func.path) {
            return Ok(Rvalue::Call {
                callee: generic,
                method: None,
                args,
                dispatch: Dispatch::Nested,
            });
        }
        if crate::plain_calls::callee(&func.path).is_some() {
            let dispatch = match crate::plain_calls::runs_at_primals(&func.path, args.len()) {
                true => Dispatch::AtPrimals,
                false => Dispatch::Plain,
            };
            return Ok(Rvalue::Call {
                callee: func.path.clone(),
                method: None,
                args,
                dispatch,
            });
        }
        match classify_callee_path(&func.path) {
            // `Seg::len(&s)`: a method of a derived type called by its path (any type's: one
            // nested in a parameter's, `V2::norm(&self.pos)`, is differentiated as the
            // parameter's own are).
            Callee::UserMethod(type_path, method)
                if crate::source_facts::has_no_derivative_code(&type_path, &method) =>
            {
                not_yet(call, crate::plain_calls::UNMARKED_ASSOCIATED)
            }
            Callee::UserMethod(type_path, method) => Ok(Rvalue::Call {
                callee: type_path,
                method: Some(method),
                args,
                dispatch: Dispatch::Path,
            }),
            Callee::FloatAssociated(name) if name == "sin_cos" && args.len() == 1 => {
                Ok(self.sin_cos(args.remove(0), name.span(), call.span(), stmts))
            }
            Callee::FloatAssociated(name) if name == "from" && args.len() == 1 => {
                let float: syn::Type = syn::parse_quote!(f64);
                Ok(Rvalue::Cast(args.remove(0), float))
            }
            Callee::FloatAssociated(name) => {
                let method = name.to_string();
                match args
                    .len()
                    .checked_sub(1)
                    .and_then(|arity| float_method_rule(&method, arity))
                {
                    Some(rule) => {
                        let receiver = args.remove(0);
                        Ok(Rvalue::FloatMethod {
                            rule,
                            receiver,
                            args,
                            method: name,
                        })
                    }
                    None => not_yet(&call.func, "this float function"),
                }
            }
            Callee::UserFunction => Ok(Rvalue::Call {
                callee: func.path.clone(),
                method: None,
                args,
                dispatch: Dispatch::Path,
            }),
            // On data only (`validate`): the plain function.
            _ if crate::ir::runs_as_written(&func.path) => Ok(Rvalue::Call {
                callee: func.path.clone(),
                method: None,
                args,
                dispatch: Dispatch::Path,
            }),
            _ => not_yet(
                &call.func,
                "calls of this function with floats carrying derivatives: annotate it, or write \
                 the loop it runs",
            ),
        }
    }

    /// The plain method call that defines `value` among `stmts`, if one does, as one whose
    /// result is data as it is.
    fn unlifted(&mut self, value: Value, stmts: &mut [Stmt]) {
        for stmt in stmts.iter_mut().rev() {
            if let Stmt::Let(Let {
                value: defined,
                rvalue,
                ..
            }) = stmt
            {
                if *defined != value {
                    continue;
                }
                if let Rvalue::PlainMethod {
                    receiver,
                    method,
                    args,
                    plain: false,
                } = rvalue
                {
                    *rvalue = Rvalue::DataMethod {
                        receiver: receiver.clone(),
                        method: method.clone(),
                        args: std::mem::take(args),
                    };
                }
                return;
            }
        }
    }

    /// `std::mem::swap(&mut a, &mut b)`, `replace(&mut a, v)`, `take(&mut a)` of places the
    /// body may assign: the reads and assignments they are, so that values carrying derivatives
    /// move with their adjoints (`swap` of two buffers swaps their shadows' contributions).
    /// `None` for any other call, or arguments that are not `&mut` of such places.
    fn mem_function(
        &mut self,
        func: &syn::ExprPath,
        call: &syn::ExprCall,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Rvalue>> {
        let names: Vec<String> = func
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let function = match names[..] {
            ["std" | "core", "mem", function] | ["mem", function] => function,
            _ => return Ok(None),
        };
        let arity = match function {
            "swap" | "replace" => 2,
            "take" => 1,
            _ => return Ok(None),
        };
        if call.args.len() != arity {
            return Ok(None);
        }
        let borrowed = |arg: &Expr| match strip(arg) {
            Expr::Reference(reference)
                if reference.mutability.is_some() && is_place_expression(&reference.expr) =>
            {
                Some((*reference.expr).clone())
            }
            _ => None,
        };
        let Some(first) = borrowed(&call.args[0]) else {
            return Ok(None);
        };
        let second = match function {
            "swap" => match borrowed(&call.args[1]) {
                Some(second) => Some(second),
                None => return Ok(None),
            },
            _ => None,
        };
        let span = call.span();
        let first_place = self.assigned_place(&first, stmts)?;
        if let Some(second) = second {
            let second_place = self.assigned_place(&second, stmts)?;
            self.swap_places(first_place, second_place, false, span, stmts);
            return Ok(Some(Rvalue::Tuple(Vec::new())));
        }
        let old = self.read(first_place.clone(), span, stmts);
        // `replace` writes its argument, `take` the type's default.
        let new = match function {
            "replace" => self.operand(&call.args[1], stmts)?,
            _ => Operand::Constant(Constant {
                tokens: quote::quote_spanned!(span=> ::core::default::Default::default()),
                kind: ConstantKind::Data,
                span,
            }),
        };
        stmts.push(Stmt::Assign {
            place: first_place,
            operand: new,
            span,
        });
        Ok(Some(Rvalue::Use(Operand::Value(old))))
    }

    /// `Point { x, y }` of a derived type.
    fn construct_struct(
        &mut self,
        structure: &syn::ExprStruct,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Rvalue> {
        if structure.qself.is_some() || structure.rest.is_some() || structure.dot2_token.is_some() {
            return not_yet(structure, "struct literals with `..`");
        }
        let mut fields = Vec::new();
        for field in &structure.fields {
            fields.push((field.member.clone(), self.operand(&field.expr, stmts)?));
        }
        match self.construct(&structure.path, ConstructForm::Named, fields) {
            Some(rvalue) => Ok(rvalue),
            None => not_yet(
                structure,
                "struct literals of types that are not `#[grad]` parameters' types",
            ),
        }
    }

    /// A value built by `path` (a struct, a variant), when it names the type of a `#[grad]`
    /// parameter: through the twin's alias, the adjoint's for the backward sweep.
    fn construct(
        &self,
        path: &syn::Path,
        form: ConstructForm,
        fields: Vec<(syn::Member, Operand)>,
    ) -> Option<Rvalue> {
        // `W3::norm(q)` is an associated function, `Shape::Circle(r)` a variant: by case, as
        // Rust's naming conventions have it.
        let last = path.segments.last()?.ident.to_string();
        if !last.starts_with(|c: char| c.is_uppercase()) {
            return None;
        }
        // A type of the file that holds no float (`Kernel { order: 3 }`): data, built as
        // written wherever it goes.
        if crate::source_facts::is_floatless_data_type(path) {
            return Some(Rvalue::Construct {
                twin: path.clone(),
                adjoint: path.clone(),
                path: path.clone(),
                fields,
                form,
            });
        }
        let scalar = crate::names::scalar_param(path.span()).to_token_stream();
        let twin = self.user_types.twin_path(path, &scalar)?;
        let adjoint = self.user_types.adjoint_path(path, &scalar)?;
        Some(Rvalue::Construct {
            twin,
            adjoint,
            path: path.clone(),
            fields,
            form,
        })
    }

    /// `x.sin_cos()` as `(x.sin(), x.cos())`, which is how `std` computes it, bit for bit.
    fn sin_cos(
        &mut self,
        receiver: Operand,
        method_span: Span,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Rvalue {
        let parts = ["sin", "cos"].map(|name| {
            let part = self.new_value(None, span);
            stmts.push(Stmt::Let(Let {
                value: part,
                rvalue: Rvalue::FloatMethod {
                    rule: float_method_rule(name, 0).expect("a rule of std"),
                    receiver: receiver.clone(),
                    args: Vec::new(),
                    method: Ident::new(name, method_span),
                },
                span,
            }));
            Operand::Value(part)
        });
        Rvalue::Tuple(parts.to_vec())
    }

    /// The locals of the body a closure names (not its own parameters), each once, in order.
    pub(super) fn closure_locals(&self, closure: &syn::ExprClosure) -> Vec<Ident> {
        let mut parameters = std::collections::HashSet::new();
        for input in &closure.inputs {
            super::closures::pattern_names(input, &mut parameters);
        }
        let mut locals: Vec<Ident> = Vec::new();
        for name in super::closures::free_names(&closure.body) {
            if !parameters.contains(&scope_key(&name))
                && self.binding(&name).is_some()
                && !locals.contains(&name)
            {
                locals.push(name);
            }
        }
        locals
    }

    /// An argument of a plain method: a closure that names no local is passed as written
    /// (`|f| f + 1`), as a constant.
    pub(super) fn plain_argument(&mut self, arg: &Expr, stmts: &mut Vec<Stmt>) -> Lowered<Operand> {
        let Expr::Closure(closure) = strip(arg) else {
            return self.operand(arg, stmts);
        };
        let names_a_local = !self.closure_locals(closure).is_empty();
        if names_a_local || super::iterators::check_closure(closure).is_err() {
            return not_yet(arg, "closures passed to methods that name locals");
        }
        Ok(Operand::Constant(Constant {
            tokens: closure.to_token_stream(),
            kind: ConstantKind::Data,
            span: arg.span(),
        }))
    }

    /// The receiver of a method that reads it (`v.len()`, `v.to_vec()`): the place itself
    /// when it is one, so that a variable is not moved.
    pub(super) fn receiver(&mut self, receiver: &Expr, stmts: &mut Vec<Stmt>) -> Lowered<Operand> {
        match self.place(receiver, stmts) {
            Ok(place) => Ok(Operand::Place(place)),
            Err(_) => self.operand(receiver, stmts),
        }
    }

    /// `v.first()`, `v.last()`, `v.get(i)`, `items.max_by(cmp)`, `items.min_by(cmp)` (also
    /// `.copied()` or `.cloned()` of those), unwrapped: the element itself, read or borrowed as
    /// the code does, so that its adjoint goes to the container's shadow. An element that is
    /// not there panics, as `unwrap` would.
    fn unwrapped_element(
        &mut self,
        option: &Expr,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Operand>> {
        let (accessor, read) = match strip(option) {
            Expr::MethodCall(copied)
                if copied.args.is_empty()
                    && (copied.method == "copied" || copied.method == "cloned") =>
            {
                (strip(&copied.receiver), true)
            }
            other => (other, false),
        };
        let Expr::MethodCall(accessor) = accessor else {
            return Ok(None);
        };
        if let Some(selected) = self.unwrapped_selection(accessor, read, stmts)? {
            return Ok(Some(selected));
        }
        let Some(element) = super::element_access::accessor(option) else {
            return Ok(None);
        };
        // (`map.get(&k)` is `map[&k]` too.)
        let Ok(place) = self.accessed_place(&element, span, stmts) else {
            return Ok(None);
        };
        let rvalue = match (element.copied, element.mutable) {
            (true, _) => Rvalue::Use(Operand::Place(place)),
            (false, false) => Rvalue::Ref(Operand::Place(place)),
            (false, true) => Rvalue::RefMut(Operand::Place(place)),
        };
        Ok(Some(Operand::Value(self.define(rvalue, span, stmts))))
    }

    /// The methods of `Option` that take its content: `unwrap` and `expect` give it;
    /// `unwrap_or(d)` and `unwrap_or_default()` are an `if` on `is_some`.
    fn option_method(
        &mut self,
        call: &syn::ExprMethodCall,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Operand>> {
        let span = call.span();
        match (call.method.to_string().as_str(), call.args.len()) {
            ("unwrap", 0) | ("expect", 1) => {
                if let Some(element) = self.unwrapped_element(&call.receiver, span, stmts)? {
                    // Evaluated for what it may print, as `expect` would only on `None`.
                    let _ = self.operands(&call.args, stmts)?;
                    return Ok(Some(element));
                }
                let option = self.operand(&call.receiver, stmts)?;
                let args = self.operands(&call.args, stmts)?;
                let content = self.new_value(None, span);
                stmts.push(Stmt::Let(Let {
                    value: content,
                    rvalue: Rvalue::Unwrap {
                        option,
                        method: call.method.clone(),
                        args,
                    },
                    span,
                }));
                Ok(Some(Operand::Value(content)))
            }
            ("unwrap_or", 1) | ("unwrap_or_default", 0) => {
                let element = super::element_access::repeatable_accessor(&call.receiver);
                if element
                    .is_some_and(|element| element.copied && self.indexes_a_sequence(&element))
                {
                    return self.unwrap_element_or(call, stmts);
                }
                let option = self.operand(&call.receiver, stmts)?;
                // The default is evaluated first, whether it is used or not, as Rust does.
                let default = match call.args.first() {
                    Some(default) => self.operand(default, stmts)?,
                    None => default_value(span),
                };
                let is_some = self.new_value(None, span);
                stmts.push(Stmt::Let(Let {
                    value: is_some,
                    rvalue: Rvalue::DataMethod {
                        receiver: option.clone(),
                        // An option's or a fallible result's (`ir::Contents`).
                        method: Ident::new("__ad_holds", span),
                        args: Vec::new(),
                    },
                    span,
                }));
                let content = self.new_value(None, span);
                let result = self.new_value(None, span);
                stmts.push(Stmt::If {
                    cond: Operand::Value(is_some),
                    then_branch: Block {
                        stmts: vec![Stmt::Let(Let {
                            value: content,
                            rvalue: Rvalue::Unwrap {
                                option,
                                method: Ident::new("__ad_content", span),
                                args: Vec::new(),
                            },
                            span,
                        })],
                        result: Some(Operand::Value(content)),
                    },
                    else_branch: Block {
                        stmts: Vec::new(),
                        result: Some(default),
                    },
                    result: Some(result),
                    span,
                });
                Ok(Some(Operand::Value(result)))
            }
            _ => self.option_combinator(call, stmts),
        }
    }
}

/// The operator `method` (`add`, .., `neg`) of whatever type the left operand turns out to be
/// (`Dispatch::Operator`).
fn operator_call(method: Ident, args: Vec<Operand>) -> Rvalue {
    Rvalue::Call {
        callee: method.clone().into(),
        method: Some(method),
        args,
        dispatch: Dispatch::Operator,
    }
}
