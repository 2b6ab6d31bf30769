//! Iterator chains that end in a reduction, `x.iter().map(|v| v * k).sum::<f64>()`: lowered to
//! the loop they run, each closure's body inlined where the loop reaches it. The chain is a
//! source (a range, or containers as `loop_items` takes them, adapters and sub-slices
//! included, or a `chain` of such sources, one loop each), then `map`, `filter` and `flat_map`
//! stages (a loop inside the chain's over what the closure gives), then `sum`, `product`, `fold`, `collect` into a
//! `Vec`, `any`, `all`, `position` or `count`. Rust computes a float `sum` from `-0.0` and a
//! `product` from `1.0`, one element after another; so does the loop, bit for bit. `max_by` and
//! `min_by` of a container's items, unwrapped, are a loop that keeps the selected index.
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, ExprClosure, Pat};

use super::control::var_place;
use super::loop_items::WrittenItems;
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
    /// `any(p)`, `all(p)`: whether an item (every item) met `p`, no item tested after the
    /// answer is known.
    Any(&'e ExprClosure),
    All(&'e ExprClosure),
    /// `position(p)`: the count of the first item that met `p`, if one did (the counter is
    /// declared beside the accumulator).
    Position(&'e ExprClosure, Option<Var>),
    /// `count()`.
    Count,
    /// `find(p)`: the first item that met `p`, if one did.
    Find(&'e ExprClosure),
    /// `last()`: the last item, if there was one (`x.iter().step_by(k).last()`).
    Last,
    /// `reduce(|a, b| ..)` (or a float method's path, as such a closure): the first item, then
    /// each next one combined with it; `None` for no item.
    Reduce(std::borrow::Cow<'e, ExprClosure>),
    /// `for pattern in chain { body }`: the body runs on each item (no accumulator), with the
    /// loop's flags when it may leave the loop.
    Each(&'e syn::ExprForLoop, Option<LoopFlags>),
}

/// Where the items a chain's stages give go: the reduction, its accumulator, and the span of
/// the call that reduces.
struct Target<'r, 'e> {
    reduction: &'r Reduction<'e>,
    /// What the reduction accumulates into (none for a `for` loop's body).
    accumulator: Option<Var>,
    span: Span,
}

#[derive(Clone, Copy)]
enum Stage<'e> {
    Map(&'e ExprClosure),
    Filter(&'e ExprClosure),
    /// `flat_map(|row| row.iter())`: a loop, inside the chain's, over the items the closure's
    /// body gives.
    FlatMap(&'e ExprClosure),
    /// `take_while(p)`, `skip_while(p)`: with the variable, declared before the loop, that
    /// says whether items are still taken (still skipped).
    TakeWhile(&'e ExprClosure, Option<Var>),
    SkipWhile(&'e ExprClosure, Option<Var>),
    /// `scan(init, |state, item| { ..; Some(e) })`: the state, a variable declared before the
    /// loop with `init`, lent mutably to the closure, whose body ends in `Some(e)` (the item
    /// given on; a scan that may end early, with `None`, is not taken).
    Scan(&'e Expr, &'e ExprClosure, Option<Var>),
    /// `copied()`, `cloned()` after another stage (`filter(..).cloned()`): the item read
    /// through its reference (by `clone` for `cloned`, whose items need not be `Copy`).
    Copied {
        cloned: bool,
    },
}

impl<'e> Stage<'e> {
    fn closure(&self) -> Option<&'e ExprClosure> {
        match self {
            Stage::Map(closure)
            | Stage::Filter(closure)
            | Stage::FlatMap(closure)
            | Stage::TakeWhile(closure, _)
            | Stage::SkipWhile(closure, _) => Some(closure),
            // Its closure writes its state: checked by `scanned_item`.
            Stage::Copied { .. } | Stage::Scan(..) => None,
        }
    }
}

/// The adapters `chain` takes as stages with a closure.
const CLOSURE_STAGES: &[&str] = &["map", "filter", "flat_map", "take_while", "skip_while"];

/// Where the chain's items come from.
enum Source<'e> {
    Range(&'e Expr),
    Items(WrittenItems<'e>),
}

impl Lowering {
    /// `call` lowered as the loop it runs, when it ends an iterator chain this lowering takes
    /// (`None` otherwise). `expected` is the type the code around it gives its value (a
    /// `let`'s annotation, the function's result): a `sum` or a `product` starts from that
    /// type's zero or one. The closures' results are typed as rustc infers them where the
    /// code shows it (a `collect` into `Vec<T>` gives its last `map` `T`, a `fold` its
    /// closure its own type, a closure may write its own), so that a reduction ending a
    /// closure (`|w| w.iter().sum()`) has its type.
    pub(super) fn iterator_reduction(
        &mut self,
        call: &syn::ExprMethodCall,
        expected: Option<&syn::Type>,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Operand>> {
        self.noting(|this| this.reduction_loop(call, expected, stmts))
    }

    fn reduction_loop(
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
                Expr::Path(_) => match combining_closure(&call.args[1]) {
                    Some(closure) => Reduction::Fold(&call.args[0], closure),
                    None => return Ok(None),
                },
                _ => return Ok(None),
            },
            ("collect", 0) => Reduction::Collect,
            ("reduce", 1) => match combining_closure(&call.args[0]) {
                Some(closure) => Reduction::Reduce(closure),
                None => return Ok(None),
            },
            ("find", 1) => match strip(&call.args[0]) {
                Expr::Closure(test) if test.inputs.len() == 1 => Reduction::Find(test),
                _ => return Ok(None),
            },
            ("any" | "all" | "position", 1) => {
                let Expr::Closure(test) = strip(&call.args[0]) else {
                    return Ok(None);
                };
                if test.inputs.len() != 1 {
                    return Ok(None);
                }
                match call.method.to_string().as_str() {
                    "any" => Reduction::Any(test),
                    "all" => Reduction::All(test),
                    _ => Reduction::Position(test, None),
                }
            }
            ("count", 0) => Reduction::Count,
            // Of an iterator chain (`x.iter().step_by(2).last()`), not of a container.
            ("last", 0)
                if matches!(strip(&call.receiver), Expr::MethodCall(adapter)
                    if super::element_access::ITERATOR_ADAPTERS
                        .contains(&adapter.method.to_string().as_str())) =>
            {
                Reduction::Last
            }
            _ => return Ok(None),
        };
        let mut reduction = reduction;
        let Some((sources, stages)) = self.chain(&call.receiver) else {
            return Ok(None);
        };
        for closure in stages
            .iter()
            .filter_map(Stage::closure)
            .chain(match &reduction {
                Reduction::Fold(_, closure) | Reduction::Reduce(closure) => Some(closure.as_ref()),
                Reduction::Any(test)
                | Reduction::All(test)
                | Reduction::Position(test, _)
                | Reduction::Find(test) => Some(*test),
                _ => None,
            })
        {
            check_closure(closure)?;
            self.expect_closure_result(closure);
        }
        // `fold` gives what its closure gives.
        if let (Reduction::Fold(_, std::borrow::Cow::Borrowed(closure)), Some(ty)) =
            (&reduction, written)
        {
            self.expect(&closure.body, ty);
        }
        // The accumulator, declared before the loop.
        let (accumulator, start) = match &reduction {
            Reduction::Arithmetic(_, start) => {
                // The runtime starts sums and products of floats and integers
                // (`ir::ReductionStart`); of another type, the chain is not taken. One whose
                // type rustc infers from where it goes (`out[i] = row.iter().map(..).sum();`)
                // is taken for a sum of the function's floats, which rustc then checks.
                let float: syn::Type = {
                    let float = self.float.ident(span);
                    syn::parse_quote!(#float)
                };
                let guessed = (!self.sums_integers(&call.receiver)).then_some(&float);
                let ty = written
                    .or(guessed)
                    .filter(|ty| names_a_number(ty))
                    .and_then(|ty| self.annotation(ty));
                let Some(ty) = ty else {
                    return not_yet(
                        call,
                        "a `sum` or `product` of a type not written as a number: write it \
                         (`.sum::<usize>()`, `let total: f64 = ..`)",
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
                // The last `map` gives the elements: a reduction ending its closure (`|w|
                // w.iter().sum()`) has their type, as rustc infers it from the `Vec`'s.
                let last_map = stages.iter().rev().find_map(|stage| match stage {
                    Stage::Map(closure) => Some(*closure),
                    _ => None,
                });
                if let (Some(closure), Some(element)) = (last_map, written.and_then(vec_element)) {
                    self.expect(&closure.body, element);
                }
                let empty = self.new_value(None, span);
                stmts.push(Stmt::Let(Let {
                    value: empty,
                    rvalue: Rvalue::EmptyVec(None),
                    span,
                }));
                let collected = self.new_var(&call.method);
                self.containers.insert(collected);
                (collected, Operand::Value(empty))
            }
            Reduction::Any(_) | Reduction::All(_) | Reduction::Count => {
                let (ty, start): (syn::Type, _) = match &reduction {
                    Reduction::Any(_) => (syn::parse_quote!(bool), quote::quote!(false)),
                    Reduction::All(_) => (syn::parse_quote!(bool), quote::quote!(true)),
                    _ => (syn::parse_quote!(usize), quote::quote!(0usize)),
                };
                let var = self.new_var(&call.method);
                self.vars[var.0 as usize].ty = Some(ty);
                (var, data_constant(start, span))
            }
            // Made by `for_over_chain` only.
            Reduction::Each(..) => return Ok(None),
            Reduction::Find(_) | Reduction::Reduce(_) | Reduction::Last => {
                let var = self.new_var(&call.method);
                (
                    var,
                    data_constant(quote::quote!(::core::option::Option::None), span),
                )
            }
            Reduction::Position(test, _) => {
                let counter = self.new_var(&syn::Ident::new("count", span));
                self.vars[counter.0 as usize].ty = Some(syn::parse_quote!(usize));
                stmts.push(Stmt::DeclareVar {
                    var: counter,
                    init: Some(data_constant(quote::quote!(0usize), span)),
                });
                reduction = Reduction::Position(test, Some(counter));
                let var = self.new_var(&call.method);
                self.vars[var.0 as usize].ty =
                    Some(syn::parse_quote!(::core::option::Option<usize>));
                (
                    var,
                    data_constant(quote::quote!(::core::option::Option::None), span),
                )
            }
        };
        stmts.push(Stmt::DeclareVar {
            var: accumulator,
            init: Some(start),
        });
        let target = Target {
            reduction: &reduction,
            accumulator: Some(accumulator),
            span,
        };
        self.run_chain(sources, stages, &call.receiver, &target, stmts)?;
        let result = self.read(var_place(accumulator, span), span, stmts);
        if matches!(
            reduction,
            Reduction::Find(_) | Reduction::Reduce(_) | Reduction::Last
        ) {
            self.built_options.insert(result);
        }
        Ok(Some(Operand::Value(result)))
    }

    /// The loops of a chain: one per part of its source, each item through the stages to the
    /// target.
    fn run_chain(
        &mut self,
        sources: Vec<Source>,
        mut stages: Vec<Stage>,
        iterated: &Expr,
        target: &Target,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        let span = target.span;
        // A `scan`'s state, declared before the loop.
        for stage in &mut stages {
            if let Stage::Scan(init, closure, state) = stage {
                let name = match &closure.inputs[0] {
                    Pat::Ident(name) => name.ident.clone(),
                    _ => syn::Ident::new("state", span),
                };
                let init = self.operand(init, stmts)?;
                let var = self.new_var(&name);
                stmts.push(Stmt::DeclareVar {
                    var,
                    init: Some(init),
                });
                *state = Some(var);
            }
        }
        // `take_while` and `skip_while` are open until their test first fails.
        for stage in &mut stages {
            if let Stage::TakeWhile(_, open) | Stage::SkipWhile(_, open) = stage {
                let var = self.new_var(&syn::Ident::new("open", span));
                self.vars[var.0 as usize].ty = Some(syn::parse_quote!(bool));
                stmts.push(Stmt::DeclareVar {
                    var,
                    init: Some(data_constant(quote::quote!(true), span)),
                });
                *open = Some(var);
            }
        }
        // With no stage, a `sum` or a `product` takes the elements themselves; a closure or
        // `collect` gets what the iterator gives.
        let borrowed = !stages.is_empty() || !matches!(target.reduction, Reduction::Arithmetic(..));
        // A `chain` runs one loop per part, each through the same stages.
        let flags = match target.reduction {
            Reduction::Each(_, flags) => *flags,
            _ => None,
        };
        for source in sources {
            self.source_loop(
                source,
                iterated,
                borrowed,
                flags,
                stmts,
                |this, item, body| this.stages(&stages, item, target, body),
            )?;
        }
        Ok(())
    }

    /// `for pattern in chain { body }` over a chain with stages (`x.iter().filter(..)`,
    /// `.map(..)`, `.flat_map(..)`): the chain's loops with the body as their last stage. Whether
    /// the loop was one.
    pub(super) fn for_over_chain(
        &mut self,
        for_loop: &'_ syn::ExprForLoop,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<bool> {
        let Some((sources, stages)) = self.chain(&for_loop.expr) else {
            return Ok(false);
        };
        if stages.is_empty() {
            return Ok(false);
        }
        for closure in stages.iter().filter_map(Stage::closure) {
            check_closure(closure)?;
            self.expect_closure_result(closure);
        }
        // A body that leaves the loop (`break`, `continue`, `return`) sets the loop's flags,
        // which stop the one loop the chain runs (a `flat_map`'s inner loop, or a `chain`'s
        // later parts, would run on).
        let span = for_loop.span();
        let flags = match super::control::has_exits(&for_loop.body) {
            true if sources.len() == 1
                && !stages
                    .iter()
                    .any(|stage| matches!(stage, Stage::FlatMap(_))) =>
            {
                Some(self.open_loop(for_loop.label.as_ref(), None, span, stmts))
            }
            true => {
                return not_yet(
                    &for_loop.body,
                    "a `for` over a `chain` or a `flat_map` whose body leaves the loop \
                     (`break`, `continue`, `return`, `?`)",
                )
            }
            false => None,
        };
        let reduction = Reduction::Each(for_loop, flags);
        let target = Target {
            reduction: &reduction,
            accumulator: None,
            span,
        };
        let ran = self.run_chain(sources, stages, &for_loop.expr, &target, stmts);
        if flags.is_some() {
            self.loops.pop();
        }
        ran?;
        Ok(true)
    }

    /// The loop over the items of `source`, its body what `body` makes of each item.
    fn source_loop(
        &mut self,
        source: Source,
        iterated: &Expr,
        borrowed: bool,
        flags: Option<LoopFlags>,
        stmts: &mut Vec<Stmt>,
        body: impl FnOnce(&mut Self, Operand, &mut Vec<Stmt>) -> Lowered<()>,
    ) -> Lowered<()> {
        let span = iterated.span();
        let (range, items) = match &source {
            Source::Range(range) => (self.operand(range, stmts)?, None),
            Source::Items(items) => {
                let items = self.place_items(items.clone(), stmts)?;
                let iteration = self.iteration(&items, span, stmts, iterated)?;
                (iteration.iterator.clone(), Some((items, iteration)))
            }
        };
        let binding = self.new_value(None, span);
        let mut loop_body = Vec::new();
        let item = match &items {
            Some((items, iteration)) => {
                let item = self.item_at(items, iteration, binding, span, &mut loop_body);
                self.item_operand(item, borrowed, span, &mut loop_body)
            }
            None => Operand::Value(binding),
        };
        body(self, item, &mut loop_body)?;
        stmts.push(Stmt::For {
            binding,
            range,
            body: Block {
                stmts: loop_body,
                result: None,
            },
            flags,
            span,
        });
        Ok(())
    }

    /// The parts of a source, `a.iter().chain(b.iter())` giving two.
    fn sources<'e>(&self, source: &'e Expr) -> Option<Vec<Source<'e>>> {
        match strip(source) {
            Expr::Range(_) => Some(vec![Source::Range(strip(source))]),
            Expr::MethodCall(call)
                if call.method == "chain" && call.args.len() == 1 && call.turbofish.is_none() =>
            {
                let mut parts = self.sources(&call.receiver)?;
                parts.extend(self.sources(&call.args[0])?);
                Some(parts)
            }
            other => Some(vec![Source::Items(self.items(other)?)]),
        }
    }

    /// The sources and stages of the chain a reduction is called on.
    fn chain<'e>(&self, receiver: &'e Expr) -> Option<(Vec<Source<'e>>, Vec<Stage<'e>>)> {
        let mut stages = Vec::new();
        let mut receiver = strip(receiver);
        while let Expr::MethodCall(call) = receiver {
            // A copy after a stage (one straight after the source is the source's own).
            if (call.method == "copied" || call.method == "cloned")
                && call.args.is_empty()
                && call.turbofish.is_none()
                && matches!(strip(&call.receiver), Expr::MethodCall(inner)
                    if CLOSURE_STAGES.contains(&inner.method.to_string().as_str()))
            {
                stages.push(Stage::Copied {
                    cloned: call.method == "cloned",
                });
                receiver = strip(&call.receiver);
                continue;
            }
            if call.method == "scan" && call.args.len() == 2 && call.turbofish.is_none() {
                match strip(&call.args[1]) {
                    Expr::Closure(closure) if closure.inputs.len() == 2 => {
                        stages.push(Stage::Scan(&call.args[0], closure, None));
                        receiver = strip(&call.receiver);
                        continue;
                    }
                    _ => return None,
                }
            }
            let stage: fn(&'e ExprClosure) -> Stage<'e> = match call.method.to_string().as_str() {
                "map" => Stage::Map,
                "filter" => Stage::Filter,
                "flat_map" => Stage::FlatMap,
                "take_while" => |closure| Stage::TakeWhile(closure, None),
                "skip_while" => |closure| Stage::SkipWhile(closure, None),
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
        Some((self.sources(receiver)?, stages))
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
            Stage::Copied { cloned } => {
                let span = target.span;
                let reference = self.as_value(item, span, stmts);
                let through = Place {
                    root: Root::Value(reference),
                    projections: vec![Projection::Deref],
                    span,
                };
                let copy = match cloned {
                    true => self.define(
                        Rvalue::Duplicate {
                            receiver: Operand::Place(through),
                            method: syn::Ident::new("clone", span),
                        },
                        span,
                        stmts,
                    ),
                    false => self.read(through, span, stmts),
                };
                self.stages(rest, Operand::Value(copy), target, stmts)
            }
            Stage::Filter(closure) => {
                let kept = self.test_item(closure, item.clone(), stmts)?;
                let mut then = Vec::new();
                self.stages(rest, item, target, &mut then)?;
                stmts.push(Stmt::when(kept, then, target.span));
                Ok(())
            }
            Stage::FlatMap(closure) => self.scoped(|this| {
                this.bind_closure_input(&closure.inputs[0], item, false, stmts)?;
                // The closure gives a chain of its own: its stages run before the rest.
                let Some((sources, mut inner)) = this.chain(&closure.body) else {
                    return not_yet(
                        &closure.body,
                        "a `flat_map` closure giving other than a container's items or a range",
                    );
                };
                for closure in inner.iter().filter_map(Stage::closure) {
                    check_closure(closure)?;
                }
                inner.extend(rest.iter().copied());
                let borrowed =
                    !inner.is_empty() || !matches!(target.reduction, Reduction::Arithmetic(..));
                for source in sources {
                    this.source_loop(
                        source,
                        &closure.body,
                        borrowed,
                        None,
                        stmts,
                        |this, item, body| this.stages(&inner, item, target, body),
                    )?;
                }
                Ok(())
            }),
            Stage::TakeWhile(closure, Some(open)) => {
                let span = target.span;
                let still = self.read(var_place(*open, span), span, stmts);
                let mut tested = Vec::new();
                let taken = self.test_item(closure, item.clone(), &mut tested)?;
                let mut then = Vec::new();
                self.stages(rest, item, target, &mut then)?;
                let closed = vec![Stmt::Assign {
                    place: var_place(*open, span),
                    operand: data_constant(quote::quote!(false), span),
                    span,
                }];
                tested.push(Stmt::If {
                    cond: taken,
                    then_branch: Block {
                        stmts: then,
                        result: None,
                    },
                    else_branch: Block {
                        stmts: closed,
                        result: None,
                    },
                    result: None,
                    span,
                });
                stmts.push(Stmt::when(Operand::Value(still), tested, span));
                Ok(())
            }
            Stage::SkipWhile(closure, Some(skipping)) => {
                let span = target.span;
                let still = self.read(var_place(*skipping, span), span, stmts);
                let mut tested = Vec::new();
                let skipped = self.test_item(closure, item.clone(), &mut tested)?;
                let kept = self.define(Rvalue::Not(skipped), span, &mut tested);
                let done = vec![Stmt::Assign {
                    place: var_place(*skipping, span),
                    operand: data_constant(quote::quote!(false), span),
                    span,
                }];
                tested.push(Stmt::when(Operand::Value(kept), done, span));
                stmts.push(Stmt::when(Operand::Value(still), tested, span));
                let now = self.read(var_place(*skipping, span), span, stmts);
                let go = self.define(Rvalue::Not(Operand::Value(now)), span, stmts);
                let mut then = Vec::new();
                self.stages(rest, item, target, &mut then)?;
                stmts.push(Stmt::when(Operand::Value(go), then, span));
                Ok(())
            }
            Stage::TakeWhile(closure, None) | Stage::SkipWhile(closure, None) => not_yet(
                closure,
                "`take_while` and `skip_while` inside a `flat_map`'s closure",
            ),
            Stage::Scan(_, closure, Some(state)) => {
                let span = target.span;
                let (state_name, body) = scanned_item(closure)?;
                let scanned = self.scoped(|this| {
                    this.bind_borrowed(&state_name, var_place(*state, span), true);
                    this.bind_closure_input(&closure.inputs[1], item, false, stmts)?;
                    this.operand(&body, stmts)
                })?;
                self.stages(rest, scanned, target, stmts)
            }
            Stage::Scan(_, closure, None) => {
                not_yet(closure, "`scan` inside a `flat_map`'s closure")
            }
        }
    }

    /// One step of the reduction, with the item the stages give.
    fn reduce(&mut self, item: Operand, target: &Target, stmts: &mut Vec<Stmt>) -> Lowered<()> {
        let span = target.span;
        // A sub-slice reaching a `sum` or a `collect` itself (`windows(2).filter(..).collect()`):
        // the loop has it as a place, not as a value to add or keep (closures borrow it).
        let sub_slice = matches!(&item, Operand::Place(place)
            if matches!(place.projections.last(), Some(Projection::Slice(..))));
        if sub_slice
            && matches!(
                target.reduction,
                Reduction::Arithmetic(..) | Reduction::Collect
            )
        {
            return Err(NotYet {
                span,
                what: "a reduction of sub-slices",
            });
        }
        let accumulator = match (target.reduction, target.accumulator) {
            // A `for` loop's body, on the item its pattern binds.
            (Reduction::Each(for_loop, flags), _) => {
                return self.scoped(|this| {
                    this.bind_closure_input(&for_loop.pat, item, false, stmts)?;
                    let block = match flags {
                        Some(flags) => this.loop_body(*flags, &for_loop.body, span)?,
                        None => this.block(&for_loop.body)?,
                    };
                    if block.result.is_some() {
                        return not_yet(&for_loop.body, "a loop body with a value");
                    }
                    stmts.extend(block.stmts);
                    Ok(())
                });
            }
            (_, Some(accumulator)) => accumulator,
            (_, None) => {
                return Err(NotYet {
                    span,
                    what: "a reduction without its accumulator",
                })
            }
        };
        let place = var_place(accumulator, span);
        let next = match target.reduction {
            // Taken above.
            Reduction::Each(..) => return Ok(()),
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
            Reduction::Count => {
                let so_far = self.read(place.clone(), span, stmts);
                let next = self.define(
                    Rvalue::DataMethod {
                        receiver: Operand::Value(so_far),
                        method: syn::Ident::new("wrapping_add", span),
                        args: vec![data_constant(quote::quote!(1usize), span)],
                    },
                    span,
                    stmts,
                );
                Operand::Value(next)
            }
            // Tested while nothing is found; the item itself kept.
            Reduction::Find(test) => {
                let so_far = self.read(place.clone(), span, stmts);
                let open = self.is_none(so_far, span, stmts);
                let mut tested = Vec::new();
                let met = self.test_item(test, item.clone(), &mut tested)?;
                let mut keep = Vec::new();
                let found = self.define(Rvalue::Some(item), span, &mut keep);
                self.built_options.insert(found);
                keep.push(Stmt::Assign {
                    place: place.clone(),
                    operand: Operand::Value(found),
                    span,
                });
                tested.push(Stmt::when(met, keep, span));
                stmts.push(Stmt::when(Operand::Value(open), tested, span));
                return Ok(());
            }
            // Each item kept in place of the one before.
            Reduction::Last => {
                let kept = self.define(Rvalue::Some(item), span, stmts);
                self.built_options.insert(kept);
                stmts.push(Stmt::Assign {
                    place,
                    operand: Operand::Value(kept),
                    span,
                });
                return Ok(());
            }
            // The first item kept, each next one combined with what is kept.
            Reduction::Reduce(closure) => {
                let so_far = self.read(place.clone(), span, stmts);
                let first = self.is_none(so_far, span, stmts);
                let mut keep = Vec::new();
                let kept = self.define(Rvalue::Some(item.clone()), span, &mut keep);
                self.built_options.insert(kept);
                keep.push(Stmt::Assign {
                    place: place.clone(),
                    operand: Operand::Value(kept),
                    span,
                });
                let mut combine = Vec::new();
                let combined = self.scoped(|this| {
                    let previous = this.define(
                        Rvalue::Unwrap {
                            option: Operand::Value(so_far),
                            method: syn::Ident::new("unwrap", span),
                            args: Vec::new(),
                        },
                        span,
                        &mut combine,
                    );
                    this.bind_closure_input(
                        &closure.inputs[0],
                        Operand::Value(previous),
                        false,
                        &mut combine,
                    )?;
                    this.bind_closure_input(&closure.inputs[1], item, false, &mut combine)?;
                    this.operand(&closure.body, &mut combine)
                })?;
                let combined = self.define(Rvalue::Some(combined), span, &mut combine);
                self.built_options.insert(combined);
                combine.push(Stmt::Assign {
                    place,
                    operand: Operand::Value(combined),
                    span,
                });
                stmts.push(Stmt::If {
                    cond: Operand::Value(first),
                    then_branch: Block {
                        stmts: keep,
                        result: None,
                    },
                    else_branch: Block {
                        stmts: combine,
                        result: None,
                    },
                    result: None,
                    span,
                });
                return Ok(());
            }
            // Tested only while the answer is open: `!any`, `all`, no position yet.
            Reduction::Any(test) | Reduction::All(test) | Reduction::Position(test, _) => {
                let so_far = self.read(place.clone(), span, stmts);
                let open = match target.reduction {
                    Reduction::Any(_) => {
                        self.define(Rvalue::Not(Operand::Value(so_far)), span, stmts)
                    }
                    Reduction::All(_) => so_far,
                    _ => self.is_none(so_far, span, stmts),
                };
                let mut tested = Vec::new();
                let met = self.scoped(|this| {
                    // `any`, `all` and `position` take the item itself.
                    this.bind_closure_input(&test.inputs[0], item, false, &mut tested)?;
                    this.operand(&test.body, &mut tested)
                })?;
                let answer = match target.reduction {
                    Reduction::Position(_, Some(counter)) => {
                        let at = self.read(var_place(*counter, span), span, &mut tested);
                        let found =
                            self.define(Rvalue::Some(Operand::Value(at)), span, &mut tested);
                        let assign = vec![Stmt::Assign {
                            place: place.clone(),
                            operand: Operand::Value(found),
                            span,
                        }];
                        tested.push(Stmt::when(met, assign, span));
                        None
                    }
                    _ => Some(met),
                };
                if let Some(answer) = answer {
                    tested.push(Stmt::Assign {
                        place: place.clone(),
                        operand: answer,
                        span,
                    });
                }
                stmts.push(Stmt::when(Operand::Value(open), tested, span));
                if let Reduction::Position(_, Some(counter)) = target.reduction {
                    let counted = self.read(var_place(*counter, span), span, stmts);
                    let next = self.define(
                        Rvalue::DataMethod {
                            receiver: Operand::Value(counted),
                            method: syn::Ident::new("wrapping_add", span),
                            args: vec![data_constant(quote::quote!(1usize), span)],
                        },
                        span,
                        stmts,
                    );
                    stmts.push(Stmt::Assign {
                        place: var_place(*counter, span),
                        operand: Operand::Value(next),
                        span,
                    });
                }
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

    /// `option.is_none()`, data.
    fn is_none(&mut self, option: Value, span: Span, stmts: &mut Vec<Stmt>) -> Value {
        self.define(
            Rvalue::DataMethod {
                receiver: Operand::Value(option),
                method: syn::Ident::new("is_none", span),
                args: Vec::new(),
            },
            span,
            stmts,
        )
    }

    /// What the test `closure` (a `filter`'s, `find`'s, `take_while`'s) says of `item`, which
    /// it borrows.
    fn test_item(
        &mut self,
        closure: &ExprClosure,
        item: Operand,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Operand> {
        self.scoped(|this| {
            this.bind_closure_input(&closure.inputs[0], item, true, stmts)?;
            this.operand(&closure.body, stmts)
        })
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
        // A sub-slice (`windows(2)`'s) is borrowed where it is used.
        if let (Operand::Place(place), Pat::Ident(name)) = (&item, pat) {
            if matches!(place.projections.last(), Some(Projection::Slice(..)))
                && name.by_ref.is_none()
                && name.subpat.is_none()
            {
                self.bind_borrowed(&name.ident, place.clone(), false);
                return Ok(());
            }
        }
        // `|(w, v)|` over a `zip`'s items: each name bound to its part.
        if let (Operand::Value(tuple), Pat::Tuple(names), false) = (&item, pat, borrowed) {
            if let Some(parts) = self.zipped_items.get(tuple).cloned() {
                if parts.len() == names.elems.len()
                    && !names.elems.iter().any(|name| matches!(name, Pat::Rest(_)))
                {
                    for (name, part) in names.elems.iter().zip(parts) {
                        self.bind_closure_input(name, part, false, stmts)?;
                    }
                    return Ok(());
                }
            }
        }
        let value = self.as_value(item, span, stmts);
        // An item of a derived type (`|neuron|` over `self.neurons.iter()`): the name is the
        // item, whose type is known, as a `for` loop's is.
        if let (Pat::Ident(name), false) = (pat, borrowed) {
            if name.by_ref.is_none()
                && name.subpat.is_none()
                && self.user_values.contains_key(&Root::Value(value))
            {
                self.bind(&name.ident, Root::Value(value));
                return Ok(());
            }
        }
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
            what: "a `return` or `?` inside a closure: write its body as one expression (an `if` \
                   with both branches), or the loop it runs",
        });
    }
    if closure.capture.is_none() {
        return Ok(());
    }
    match exits.assignment {
        Some(span) => Err(NotYet {
            span,
            what:
                "assignments inside a `move` closure (it changes its own copy, kept from call to \
                   call; closures are inlined where called): drop `move`, or return the new value",
        }),
        None => Ok(()),
    }
}

fn data_constant(tokens: proc_macro2::TokenStream, span: Span) -> Operand {
    Operand::Constant(Constant {
        tokens: quote::quote_spanned!(span=> #tokens),
        kind: ConstantKind::Data,
        span,
    })
}

/// Whether a type is written as a primitive float or integer type (`f64`, `usize`, ...).
pub(super) fn names_a_number(ty: &syn::Type) -> bool {
    crate::ast::is_float_type(ty) || crate::ast::is_integer_type(ty)
}

/// The element type a `Vec<T>` names, unless it leaves it to inference (`Vec<_>`).
fn vec_element(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(arguments) = &last.arguments else {
        return None;
    };
    match (last.ident == "Vec", arguments.args.first()) {
        (true, Some(syn::GenericArgument::Type(element)))
            if !matches!(element, syn::Type::Infer(_)) =>
        {
            Some(element)
        }
        _ => None,
    }
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

impl Lowering {
    /// `max_by(cmp)` or `min_by(cmp)` of a container's items, unwrapped (`x.iter().max_by(|a,
    /// b| a.partial_cmp(b).unwrap()).unwrap()`): a loop that keeps the index of the item
    /// selected so far (the last greatest for `max_by`, the first least for `min_by`, as `std`
    /// selects), then that item itself, read (`read`, after `.copied()`) or borrowed, so that
    /// its adjoint goes to the container's shadow. An empty container panics at the unwrap.
    /// `None` where `selection` is not such a call.
    pub(super) fn unwrapped_selection(
        &mut self,
        selection: &syn::ExprMethodCall,
        read: bool,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Operand>> {
        let method = selection.method.to_string();
        let (true, 1, None) = (
            method == "max_by" || method == "min_by",
            selection.args.len(),
            &selection.turbofish,
        ) else {
            return Ok(None);
        };
        let Expr::Closure(compare) = strip(&selection.args[0]) else {
            return Ok(None);
        };
        let Some(items) = self.items(&selection.receiver) else {
            return Ok(None);
        };
        if compare.inputs.len() != 2 {
            return Ok(None);
        }
        check_closure(compare)?;
        let span = selection.span();
        let items = self.place_items(items, stmts)?;
        let iteration = self.iteration(&items, span, stmts, &selection.receiver)?;
        // Its index is the position itself (an iterator of positions would need its type).
        if !iteration.shares_index() {
            return not_yet(selection, "`max_by`/`min_by` after adapters or sub-slices");
        }
        let data = |tokens| {
            Operand::Constant(Constant {
                tokens,
                kind: ConstantKind::Data,
                span,
            })
        };
        let best = self.new_var(&syn::Ident::new("selected", span));
        self.vars[best.0 as usize].ty = Some(syn::parse_quote!(::core::option::Option<usize>));
        stmts.push(Stmt::DeclareVar {
            var: best,
            init: Some(data(
                quote::quote_spanned!(span=> ::core::option::Option::None),
            )),
        });
        let position = self.new_value(None, span);
        let mut body = Vec::new();
        let select = |this: &mut Self, stmts: &mut Vec<Stmt>| {
            let some = this.define(Rvalue::Some(Operand::Value(position)), span, stmts);
            stmts.push(Stmt::Assign {
                place: var_place(best, span),
                operand: Operand::Value(some),
                span,
            });
        };
        let is_none = self.define(
            Rvalue::DataMethod {
                receiver: Operand::Place(var_place(best, span)),
                method: syn::Ident::new("is_none", span),
                args: Vec::new(),
            },
            span,
            &mut body,
        );
        let mut first = Vec::new();
        select(self, &mut first);
        let mut later = Vec::new();
        let so_far = self.selected(best, span, &mut later);
        let so_far_item = self.item_at(&items, &iteration, so_far, span, &mut later);
        let so_far_item = self.item_operand(so_far_item, true, span, &mut later);
        let item = self.item_at(&items, &iteration, position, span, &mut later);
        let item = self.item_operand(item, true, span, &mut later);
        let order = self.scoped(|this| {
            this.bind_closure_input(&compare.inputs[0], so_far_item, true, &mut later)?;
            this.bind_closure_input(&compare.inputs[1], item, true, &mut later)?;
            this.operand(&compare.body, &mut later)
        })?;
        // `max_by` takes an item unless the one so far is greater; `min_by` only if it is.
        let op = match method.as_str() {
            "max_by" => quote::quote_spanned!(span=> !=),
            _ => quote::quote_spanned!(span=> ==),
        };
        let replaces = self.define(
            Rvalue::DataBinary(
                DataOp { op },
                order,
                data(quote::quote_spanned!(span=> ::core::cmp::Ordering::Greater)),
            ),
            span,
            &mut later,
        );
        let mut replace = Vec::new();
        select(self, &mut replace);
        later.push(Stmt::when(Operand::Value(replaces), replace, span));
        body.push(Stmt::If {
            cond: Operand::Value(is_none),
            then_branch: Block {
                stmts: first,
                result: None,
            },
            else_branch: Block {
                stmts: later,
                result: None,
            },
            result: None,
            span,
        });
        stmts.push(Stmt::For {
            binding: position,
            range: iteration.iterator.clone(),
            body: Block {
                stmts: body,
                result: None,
            },
            flags: None,
            span,
        });
        let selected = self.selected(best, span, stmts);
        let item = self.item_at(&items, &iteration, selected, span, stmts);
        Ok(Some(self.item_operand(item, !read, span, stmts)))
    }

    /// The index a selection keeps (`selected.unwrap()`).
    fn selected(&mut self, best: Var, span: Span, stmts: &mut Vec<Stmt>) -> Value {
        self.define(
            Rvalue::DataMethod {
                receiver: Operand::Place(var_place(best, span)),
                method: syn::Ident::new("unwrap", span),
                args: Vec::new(),
            },
            span,
            stmts,
        )
    }
}

/// The closure of two arguments that `fold` and `reduce` combine with: as written, or a float
/// method's path (`f64::max`) as the closure `|a, b| a.max(b)`.
fn combining_closure(arg: &Expr) -> Option<std::borrow::Cow<'_, ExprClosure>> {
    match strip(arg) {
        Expr::Closure(closure) if closure.inputs.len() == 2 => {
            Some(std::borrow::Cow::Borrowed(closure))
        }
        Expr::Path(path) if path.qself.is_none() => {
            match crate::retype::classify_callee_path(&path.path) {
                crate::retype::Callee::FloatAssociated(method)
                    if float_method_rule(&method.to_string(), 1)
                        .is_some_and(|rule| rule.float_args == [true]) =>
                {
                    Some(std::borrow::Cow::Owned(
                        syn::parse_quote_spanned!(method.span()=>
                            |__ad_so_far, __ad_item| __ad_so_far.#method(__ad_item)
                        ),
                    ))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// A `scan` closure's state name and its body giving the item (`Some(e)` made `e`): a body
/// that ends in `Some(e)`, writes nothing but its state (`*acc += v`), and has no exit.
fn scanned_item(closure: &ExprClosure) -> Lowered<(syn::Ident, Expr)> {
    let Pat::Ident(state) = &closure.inputs[0] else {
        return not_yet(&closure.inputs[0], "a `scan` state that is not a name");
    };
    let state = state.ident.clone();
    let some_content = |expr: &Expr| -> Option<Expr> {
        match strip(expr) {
            Expr::Call(call) if call.args.len() == 1 => match strip(&call.func) {
                Expr::Path(path) if super::patterns::is_some_path(&path.path) => {
                    Some(call.args[0].clone())
                }
                _ => None,
            },
            _ => None,
        }
    };
    let body = match strip(&closure.body) {
        Expr::Block(block) => {
            let mut block = block.clone();
            let last = match block.block.stmts.last_mut() {
                Some(syn::Stmt::Expr(last, None)) => last,
                _ => return not_yet(&closure.body, "a `scan` closure not ending in `Some(..)`"),
            };
            let Some(content) = some_content(last) else {
                return not_yet(&closure.body, "a `scan` closure not ending in `Some(..)`");
            };
            *last = content;
            Expr::Block(block)
        }
        other => match some_content(other) {
            Some(content) => content,
            None => return not_yet(&closure.body, "a `scan` closure not ending in `Some(..)`"),
        },
    };
    // Only the state is written (`*acc += v`), and nothing leaves the closure.
    let writes_state = |target: &Expr| {
        matches!(strip(target), Expr::Unary(unary)
            if matches!(unary.op, syn::UnOp::Deref(_))
                && matches!(strip(&unary.expr), Expr::Path(path) if path.path.is_ident(&state)))
    };
    let other_write = super::closures::first_write(&body, &writes_state);
    if other_write.is_some() || super::control::has_exits(&syn::parse_quote!({ #body })) {
        return Err(NotYet {
            span: other_write.unwrap_or_else(|| body.span()),
            what: "a `scan` closure writing other than its state, or leaving it",
        });
    }
    Ok((state, body))
}

impl Lowering {
    /// `x.chunks(3).len()`, `x.windows(2).is_empty()`, `v.iter().skip(1).len()`: the length of
    /// adapters over a container, which reads no float, so the chain runs as written on the
    /// values there are, its result data. `None` for anything else.
    pub(super) fn length_of_adapters(
        &mut self,
        call: &syn::ExprMethodCall,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Rvalue>> {
        const SHAPE_ADAPTERS: &[&str] = &[
            "iter",
            "chunks",
            "chunks_exact",
            "rchunks",
            "windows",
            "skip",
            "take",
            "step_by",
            "rev",
            "enumerate",
        ];
        if !super::dispatch::is_length_method(&call.method.to_string()) || !call.args.is_empty() {
            return Ok(None);
        }
        let mut links = Vec::new();
        let mut base = &*call.receiver;
        while let Expr::MethodCall(link) = strip(base) {
            if !SHAPE_ADAPTERS.contains(&link.method.to_string().as_str()) {
                return Ok(None);
            }
            links.push(link);
            base = &link.receiver;
        }
        if links.is_empty() {
            return Ok(None);
        }
        // The container read where it is (a variable, a field), not moved out.
        let mut receiver = self.receiver(base, stmts)?;
        for link in links.into_iter().rev() {
            let args = self.operands(&link.args, stmts)?;
            let adapted = Rvalue::DataMethod {
                receiver,
                method: link.method.clone(),
                args,
            };
            receiver = Operand::Value(self.define(adapted, link.span(), stmts));
        }
        Ok(Some(Rvalue::DataMethod {
            receiver,
            method: call.method.clone(),
            args: Vec::new(),
        }))
    }

    /// Whether a chain's items are evidently integers: it runs over a range, or over a
    /// parameter declared as a container of integers (`idx: &[usize]`).
    fn sums_integers(&self, chain: &Expr) -> bool {
        match strip(chain) {
            Expr::MethodCall(call) => self.sums_integers(&call.receiver),
            Expr::Range(_) => true,
            Expr::Reference(reference) => self.sums_integers(&reference.expr),
            Expr::Path(path) => path
                .path
                .get_ident()
                .and_then(|ident| self.resolve(ident))
                .is_some_and(|root| self.integer_sequences.contains(&root)),
            _ => false,
        }
    }
}
