//! Iterator chains that end in a reduction, `x.iter().map(|v| v * k).sum::<f64>()`: lowered to
//! the loop they run, each closure's body inlined where the loop reaches it. The chain is a
//! source (a range, or a container as a `for` takes it), then `map` and `filter` stages, then
//! `sum`, `product`, `fold` or `collect` into a `Vec`. Rust computes a float `sum` from `-0.0`
//! and a `product` from `1.0`, one element after another; so does the loop, bit for bit.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, ExprClosure, Pat};

use super::control::{var_place, Items};
use super::{not_yet, strip, Lowered, Lowering, NotYet};
use crate::ir::*;
use crate::rules::float_method_rule;

/// What the chain ends in.
enum Reduction<'e> {
    /// `sum` or `product`: the operation, and the runtime's start of it for the value's type.
    Arithmetic(BinaryOp, &'static str),
    /// `fold(init, |acc, item| ..)` (or a float method's path, as such a closure).
    Fold(&'e Expr, std::borrow::Cow<'e, ExprClosure>),
    /// `collect` into a `Vec`.
    Collect,
}

/// Where the items a chain's stages give go: the reduction, its accumulator, and the span of
/// the call that reduces.
struct Target<'r, 'e> {
    reduction: &'r Reduction<'e>,
    accumulator: Var,
    span: Span,
}

enum Stage<'e> {
    Map(&'e ExprClosure),
    Filter(&'e ExprClosure),
}

/// Where the chain's items come from.
enum Source<'e> {
    Range(&'e Expr),
    Items(Items<&'e Expr>),
}

impl Lowering {
    /// `call` lowered as the loop it runs, when it ends an iterator chain this lowering takes
    /// (`None` otherwise). `expected` is the type the code around it gives its value (a
    /// `let`'s annotation, the function's result): a `sum` or a `product` starts from that
    /// type's zero or one.
    pub(super) fn iterator_reduction(
        &mut self,
        call: &syn::ExprMethodCall,
        expected: Option<&syn::Type>,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Operand>> {
        let span = call.span();
        let written = match &call.turbofish {
            Some(turbofish) if turbofish.args.len() == 1 => match &turbofish.args[0] {
                syn::GenericArgument::Type(ty) => Some(ty),
                _ => return Ok(None),
            },
            Some(_) => return Ok(None),
            None => expected,
        };
        let reduction = match (call.method.to_string().as_str(), call.args.len()) {
            ("sum", 0) => Reduction::Arithmetic(BinaryOp::Add, "sum_start"),
            ("product", 0) => Reduction::Arithmetic(BinaryOp::Mul, "product_start"),
            ("fold", 2) => match strip(&call.args[1]) {
                Expr::Closure(closure) if closure.inputs.len() == 2 => {
                    Reduction::Fold(&call.args[0], std::borrow::Cow::Borrowed(closure))
                }
                // `fold(f64::NEG_INFINITY, f64::max)`: the float method of two floats, as the
                // closure `|acc, item| acc.max(item)`.
                Expr::Path(path) if path.qself.is_none() => {
                    match crate::retype::classify_callee_path(&path.path) {
                        crate::retype::Callee::FloatAssociated(method)
                            if float_method_rule(&method.to_string(), 1)
                                .is_some_and(|rule| rule.float_args == [true]) =>
                        {
                            let closure: ExprClosure = syn::parse_quote_spanned!(method.span()=>
                                |__ad_so_far, __ad_item| __ad_so_far.#method(__ad_item)
                            );
                            Reduction::Fold(&call.args[0], std::borrow::Cow::Owned(closure))
                        }
                        _ => return Ok(None),
                    }
                }
                _ => return Ok(None),
            },
            ("collect", 0) => Reduction::Collect,
            _ => return Ok(None),
        };
        let Some((source, stages)) = self.chain(&call.receiver) else {
            return Ok(None);
        };
        for closure in stages
            .iter()
            .map(|stage| match stage {
                Stage::Map(closure) | Stage::Filter(closure) => *closure,
            })
            .chain(match &reduction {
                Reduction::Fold(_, closure) => Some(closure.as_ref()),
                _ => None,
            })
        {
            check_closure(closure)?;
        }
        // The accumulator, declared before the loop.
        let (accumulator, start) = match &reduction {
            Reduction::Arithmetic(_, start) => {
                // The runtime starts sums and products of floats and integers
                // (`ir::ReductionStart`); of another type, the chain is not taken.
                let ty = written
                    .filter(|ty| names_a_number(ty))
                    .and_then(|ty| self.annotation(ty));
                let Some(ty) = ty else {
                    return not_yet(
                        call,
                        "a `sum` or `product` of a type not written as a number",
                    );
                };
                let var = self.new_var(&call.method);
                self.vars[var.0 as usize].ty = Some(ty);
                let start = syn::Ident::new(start, span);
                let init = Operand::Constant(Constant {
                    tokens: quote::quote_spanned!(span=> ::ad_runtime::__private::ir::#start()),
                    kind: ConstantKind::Data,
                    span,
                });
                (var, init)
            }
            Reduction::Fold(init, closure) => {
                let init = self.operand(init, stmts)?;
                let name = match closure.inputs.first() {
                    Some(Pat::Ident(name)) => name.ident.clone(),
                    _ => call.method.clone(),
                };
                (self.new_var(&name), init)
            }
            Reduction::Collect => {
                if written.is_some_and(|ty| !names_vec(ty)) {
                    return Ok(None);
                }
                let empty = self.new_value(None, span);
                stmts.push(Stmt::Let(Let {
                    value: empty,
                    rvalue: Rvalue::EmptyVec(None),
                    span,
                }));
                (self.new_var(&call.method), Operand::Value(empty))
            }
        };
        stmts.push(Stmt::DeclareVar {
            var: accumulator,
            init: Some(start),
        });
        let (range, items) = match &source {
            Source::Range(range) => (self.operand(range, stmts)?, None),
            Source::Items(items) => {
                let items = self.place_items(items.clone(), stmts)?;
                let range = self.items_range(&items, span, stmts, &call.receiver)?;
                (range, Some(items))
            }
        };
        let binding = self.new_value(None, span);
        let mut body = Vec::new();
        // With no stage, a `sum` or a `product` takes the elements themselves; a closure or
        // `collect` gets what the iterator gives.
        let borrowed = !stages.is_empty() || !matches!(reduction, Reduction::Arithmetic(..));
        let item = match &items {
            Some(items) => self.item_value(items, binding, borrowed, span, &mut body),
            None => binding,
        };
        let target = Target {
            reduction: &reduction,
            accumulator,
            span,
        };
        self.stages(&stages, Operand::Value(item), &target, &mut body)?;
        stmts.push(Stmt::For {
            binding,
            range,
            body: Block {
                stmts: body,
                result: None,
            },
            flags: None,
            span,
        });
        let result = self.read(var_place(accumulator, span), span, stmts);
        Ok(Some(Operand::Value(result)))
    }

    /// The source and stages of the chain a reduction is called on.
    fn chain<'e>(&self, receiver: &'e Expr) -> Option<(Source<'e>, Vec<Stage<'e>>)> {
        let mut stages = Vec::new();
        let mut receiver = strip(receiver);
        while let Expr::MethodCall(call) = receiver {
            let stage: fn(&'e ExprClosure) -> Stage<'e> = match call.method.to_string().as_str() {
                "map" => Stage::Map,
                "filter" => Stage::Filter,
                _ => break,
            };
            match (call.args.len(), call.args.first().map(strip)) {
                (1, Some(Expr::Closure(closure)))
                    if call.turbofish.is_none() && closure.inputs.len() == 1 =>
                {
                    stages.push(stage(closure));
                }
                _ => return None,
            }
            receiver = strip(&call.receiver);
        }
        stages.reverse();
        let source = match receiver {
            Expr::Range(_) => Source::Range(receiver),
            other => Source::Items(self.items(other)?),
        };
        Some((source, stages))
    }

    /// The item of iteration `index` as one value: an element (borrowed, or read when
    /// `borrowed` is false and the elements are read by a `.copied()` or by no stage), or a
    /// tuple for `.enumerate()` and `.zip(..)`.
    fn item_value(
        &mut self,
        items: &Items<Place>,
        index: Value,
        borrowed: bool,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Value {
        let rvalue = match items {
            Items::Elements {
                source,
                by_reference,
            } => {
                let mut element = source.clone();
                element
                    .projections
                    .push(Projection::Index(Operand::Value(index)));
                if *by_reference && borrowed {
                    Rvalue::Ref(Operand::Place(element))
                } else {
                    Rvalue::Use(Operand::Place(element))
                }
            }
            Items::Enumerated(inner) => {
                let item = self.item_value(inner, index, borrowed, span, stmts);
                Rvalue::Tuple(vec![Operand::Value(index), Operand::Value(item)])
            }
            Items::Zipped(left, right) => {
                let left = self.item_value(left, index, borrowed, span, stmts);
                let right = self.item_value(right, index, borrowed, span, stmts);
                Rvalue::Tuple(vec![Operand::Value(left), Operand::Value(right)])
            }
        };
        self.define(rvalue, span, stmts)
    }

    /// The stages from `item` on, then the reduction's step, as statements of the loop body
    /// (a `filter` guards what follows it).
    fn stages(
        &mut self,
        stages: &[Stage],
        item: Operand,
        target: &Target,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        let Some((stage, rest)) = stages.split_first() else {
            return self.reduce(item, target, stmts);
        };
        match stage {
            Stage::Map(closure) => {
                let mapped = self.scoped(|this| {
                    this.bind_closure_input(&closure.inputs[0], item, false, stmts)?;
                    this.operand(&closure.body, stmts)
                })?;
                self.stages(rest, mapped, target, stmts)
            }
            Stage::Filter(closure) => {
                let kept = self.scoped(|this| {
                    this.bind_closure_input(&closure.inputs[0], item.clone(), true, stmts)?;
                    this.operand(&closure.body, stmts)
                })?;
                let mut then = Vec::new();
                self.stages(rest, item, target, &mut then)?;
                stmts.push(Stmt::when(kept, then, target.span));
                Ok(())
            }
        }
    }

    /// One step of the reduction, with the item the stages give.
    fn reduce(&mut self, item: Operand, target: &Target, stmts: &mut Vec<Stmt>) -> Lowered<()> {
        let span = target.span;
        let place = var_place(target.accumulator, span);
        let next = match target.reduction {
            Reduction::Arithmetic(op, _) => {
                let so_far = self.read(place.clone(), span, stmts);
                let next = self.new_value(None, span);
                stmts.push(Stmt::Let(Let {
                    value: next,
                    rvalue: Rvalue::Binary(*op, Operand::Value(so_far), item),
                    span,
                }));
                Operand::Value(next)
            }
            Reduction::Fold(_, closure) => self.scoped(|this| {
                let so_far = this.read(place.clone(), span, stmts);
                this.bind_closure_input(&closure.inputs[0], Operand::Value(so_far), false, stmts)?;
                this.bind_closure_input(&closure.inputs[1], item, false, stmts)?;
                this.operand(&closure.body, stmts)
            })?,
            Reduction::Collect => {
                let index = self.new_value(None, span);
                stmts.push(Stmt::Push {
                    place,
                    operand: item,
                    index,
                    span,
                });
                return Ok(());
            }
        };
        stmts.push(Stmt::Assign {
            place,
            operand: next,
            span,
        });
        Ok(())
    }

    /// Binds a closure's parameter pattern to `item` (to `&item` for a `filter`'s, which
    /// borrows what it tests).
    pub(super) fn bind_closure_input(
        &mut self,
        pat: &Pat,
        item: Operand,
        borrowed: bool,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        let span = pat.span();
        let value = self.as_value(item, span, stmts);
        let value = if borrowed {
            let whole = Place {
                root: Root::Value(value),
                projections: Vec::new(),
                span,
            };
            self.define(Rvalue::Ref(Operand::Place(whole)), span, stmts)
        } else {
            value
        };
        let place = Place {
            root: Root::Value(value),
            projections: Vec::new(),
            span,
        };
        self.destructure(pat, place, stmts)
    }
}

/// A closure the chain inlines: its body must not leave it (`return`, `?`), as the loop it
/// becomes has no closure to leave; and a `move` closure must not assign, as what it assigns
/// is its own copy of a captured variable, which the loop does not have.
pub(super) fn check_closure(closure: &ExprClosure) -> Lowered<()> {
    struct Exits {
        exit: Option<Span>,
        assignment: Option<Span>,
    }
    impl<'ast> syn::visit::Visit<'ast> for Exits {
        fn visit_expr_return(&mut self, exit: &'ast syn::ExprReturn) {
            self.exit.get_or_insert(exit.span());
        }
        fn visit_expr_try(&mut self, exit: &'ast syn::ExprTry) {
            self.exit.get_or_insert(exit.span());
        }
        fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
            self.assignment.get_or_insert(assign.span());
            syn::visit::visit_expr_assign(self, assign);
        }
        fn visit_expr_binary(&mut self, binary: &'ast syn::ExprBinary) {
            if super::compound_op(&binary.op).is_some() {
                self.assignment.get_or_insert(binary.span());
            }
            syn::visit::visit_expr_binary(self, binary);
        }
        fn visit_expr_closure(&mut self, _: &'ast ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    // A closure is inlined at each call: a region in it would be lowered once per call.
    if let Some(checkpoint) = crate::attr::find_checkpoint_in_expr(&closure.body) {
        return not_yet(&checkpoint, "inner `#[checkpoint]`s in closures");
    }
    if !closure.attrs.is_empty()
        || closure.asyncness.is_some()
        || closure.constness.is_some()
        || closure.lifetimes.is_some()
    {
        return not_yet(closure, "closures");
    }
    let mut exits = Exits {
        exit: None,
        assignment: None,
    };
    syn::visit::Visit::visit_expr(&mut exits, &closure.body);
    if let Some(span) = exits.exit {
        return Err(NotYet {
            span,
            what: "a `return` or `?` inside a closure",
        });
    }
    if closure.capture.is_none() {
        return Ok(());
    }
    match exits.assignment {
        Some(span) => Err(NotYet {
            span,
            what: "assignments inside a `move` closure",
        }),
        None => Ok(()),
    }
}

/// Whether a type is written as a primitive float or integer type (`f64`, `usize`, ...).
pub(super) fn names_a_number(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(path) if path.qself.is_none()
    && path.path.get_ident().is_some_and(|ident| {
        crate::ast::FloatType::from_ident(ident).is_some()
            || crate::retype::INTEGER_TYPES.contains(&ident.to_string().as_str())
    }))
}

/// Whether a type is `Vec<..>` (as `collect::<Vec<_>>()` names it).
fn names_vec(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(path) if path.qself.is_none() => path
            .path
            .segments
            .last()
            .is_some_and(|last| last.ident == "Vec"),
        _ => false,
    }
}
