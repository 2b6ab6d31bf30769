//! Expressions: operands, reads of places, method calls, calls of differentiated functions
//! and of rules, and the backpropagation of a node; and the code that runs as written.

use super::*;

impl<'a> Generator<'a> {
    // ----- expressions -----

    pub(super) fn lower(&mut self, expr: &Expr) -> Node {
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
    pub(super) fn lower_operands(&mut self, operands: &[&Expr]) -> Vec<Node> {
        let mut nodes = Vec::with_capacity(operands.len());
        for (position, operand) in operands.iter().enumerate() {
            let node = self.lower(operand);
            let later_assigns = operands[position + 1..].iter().any(|later| assigns(later));
            nodes.push(if later_assigns { self.pin(node) } else { node });
        }
        nodes
    }

    pub(super) fn pin(&mut self, node: Node) -> Node {
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
    pub(super) fn read(&mut self, value: TokenStream) -> Ident {
        let copy = self.fresh("read");
        self.emit(quote!(let #copy = #value;));
        copy
    }

    /// `x[i]` on a container variable: the index is kept for the backward sweep.
    pub(super) fn lower_index(&mut self, index: &syn::ExprIndex) -> Node {
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
    pub(super) fn float_variable(&self, place: &Expr) -> Option<(TokenStream, usize)> {
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
    pub(super) fn shaped_part(&self, expr: &Expr) -> Option<(usize, TokenStream)> {
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
    pub(super) fn is_data_constant(&self, expr: &Expr) -> bool {
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
    pub(super) fn part(&mut self, value: &TokenStream, place: &Expr) -> Node {
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
    pub(super) fn shaped_argument(&self, arg: &Expr) -> Option<(usize, TokenStream)> {
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
    pub(super) fn tuple_element(&self, field: &syn::ExprField) -> Option<usize> {
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
    pub(super) fn path_binding(&self, expr: &Expr) -> Option<Binding> {
        match strip_parens(expr) {
            Expr::Path(path) => self.lookup(path.path.get_ident()?),
            _ => None,
        }
    }

    pub(super) fn lower_method(&mut self, call: &syn::ExprMethodCall) -> Node {
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
    pub(super) fn user_method(&self, call: &syn::ExprMethodCall) -> Option<TokenStream> {
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
    pub(super) fn lower_rule_call(
        &mut self,
        method: &Ident,
        arguments: &[&Expr],
        whole: &Expr,
    ) -> Node {
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
            } else if matches!(whole, Expr::MethodCall(call)
                if self.is_float_expression(strip_parens(&call.receiver)))
            {
                // Not an iterator chain: a method of a float that has no rule, such as a
                // trait's implemented for `f64` (the `special` crate's `x.error()`).
                format!(
                    "`.{name}(..)` is not a float method with a derivative rule (a trait's method \
                     implemented for `f64`?): give the computation its derivative with \
                     `#[rule]` on a function that calls it, and call that function (see the \
                     guide's \"Custom rules\"), or write it with the float methods of \
                     `ad_runtime::rules`"
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

    pub(super) fn lower_call(&mut self, call: &syn::ExprCall) -> Node {
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
    pub(super) fn lower_companion_call(
        &mut self,
        companion: TokenStream,
        args: &[&Expr],
        span: Span,
    ) -> Node {
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
            arity: Arity::Call {
                mutable_arguments: args.iter().filter(|arg| self.passed_mutably(arg)).count(),
            },
            children,
            lazy: None,
        }
    }

    /// An argument passed `&mut`: `&mut place`, or a `&mut` parameter passed on whole.
    fn passed_mutably(&self, arg: &Expr) -> bool {
        match strip_parens(arg) {
            Expr::Reference(reference) => reference.mutability.is_some(),
            Expr::Path(path) => path.path.get_ident().is_some_and(|name| {
                self.function
                    .params
                    .iter()
                    .any(|param| param.name == *name && param.is_mut_reference())
            }),
            _ => false,
        }
    }

    pub(super) fn apply_rule(
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
    pub(super) fn backprop(&mut self, node: &Node, cotangent: TokenStream) -> TokenStream {
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
                    Arity::Call {
                        mutable_arguments: 0,
                    } => quote!(let #result = #pullback(#cotangent);),
                    Arity::Call { mutable_arguments } => {
                        let slots = (0..*mutable_arguments)
                            .map(|_| quote!(::ad_runtime::__private::ir::zero()));
                        quote!(let #result = #pullback((#cotangent, #(#slots,)*));)
                    }
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
                    Arity::Call { .. } => (0..children.len())
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

    pub(super) fn retype(&self) -> Retype<'_> {
        Retype {
            float: self.function.float,
            locals: &self.locals,
            companion: names::REVERSE_COMPANION,
            value_only: true,
            scalar_type: None,
        }
    }

    /// An expression that runs as written (over the scalar type): conditions, integer code,
    /// printing. Floats may only be read there where no derivative can flow out.
    pub(super) fn native(&self, expr: &Expr) -> TokenStream {
        self.check_native(expr);
        self.native_unchecked(expr)
    }

    /// The same, without looking for lost derivatives: for code that already has an error, so
    /// that one mistake gives one message.
    pub(super) fn native_unchecked(&self, expr: &Expr) -> TokenStream {
        let mut expr = expr.clone();
        self.retype().visit_expr_mut(&mut expr);
        expr.to_token_stream()
    }

    /// The value of an expression over data, as a constant: a float (or a reference to one,
    /// as a pattern over data binds it) becomes the scalar type; anything else is unchanged.
    pub(super) fn data_value(&self, expr: &Expr) -> TokenStream {
        let value = self.native(expr);
        let scalar = self.scalar();
        quote!(::ad_runtime::__private::LiftProbe::new(#value).__ad_lift::<#scalar>())
    }

    /// Reports `message` on `expr` and stands in for it with its value, unchecked.
    pub(super) fn refuse(&self, expr: &Expr, message: impl std::fmt::Display) -> Node {
        self.error(expr, message);
        Node::Constant(self.native_unchecked(expr))
    }

    pub(super) fn check_native(&self, expr: &Expr) {
        let mut checker = LeakChecker {
            generator: self,
            safe_depth: 0,
            loop_depth: 0,
        };
        checker.visit_expr(expr);
    }
}

impl Generator<'_> {
    /// Arithmetic (`x * c`, `-x`, a literal) or a float parameter: certainly a float, not an
    /// iterator chain or a container, as a method's receiver.
    fn is_float_expression(&self, receiver: &Expr) -> bool {
        match receiver {
            Expr::Binary(_) | Expr::Unary(_) | Expr::Lit(_) => true,
            Expr::Path(path) => path.path.get_ident().is_some_and(|name| {
                self.function.params.iter().any(|param| {
                    param.name == *name && crate::ast::float_of_type(&param.ty).is_some()
                })
            }),
            _ => false,
        }
    }
}
