//! Lowering of control flow: `if`, `&&`/`||`, loops (also over containers), and the exits
//! (`break`, `continue`, `return`), which become flags so that the IR stays structured.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Ident, Pat};

use super::patterns;
use super::*;

pub(super) struct LoopContext {
    label: Option<String>,
    flags: LoopFlags,
    /// Where `break value` puts its value (`loop` as an expression).
    result: Option<Var>,
}

#[derive(Clone, Copy)]
pub(super) struct FunctionExit {
    returned: Var,
    value: Var,
}

impl Lowering {
    /// `match`: a chain of `if`s on `matches!`, each arm's guard evaluated only when its
    /// pattern matched, the names it binds read from the scrutinee in its branch. The last arm
    /// needs no test: the match is exhaustive, and a last arm has no guard.
    pub(super) fn lower_match(
        &mut self,
        expr_match: &syn::ExprMatch,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Operand>> {
        self.lower_arms(&expr_match.expr, &expr_match.arms, expr_match.span(), stmts)
    }

    fn lower_arms(
        &mut self,
        scrutinee: &Expr,
        arms: &[syn::Arm],
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Operand>> {
        if let Some(lowered) = self.match_on_accessor(scrutinee, arms, span, stmts)? {
            return Ok(lowered);
        }
        // `match *l { List::Cons(a, ref rest) => .. }`: names bound by `ref` inside borrow
        // parts of the place matched, which is not moved: matched as `match &*l {
        // &List::Cons(a, ref rest) => .. }`, as Rust matches it.
        let by_reference: syn::Expr;
        let referenced_arms: Vec<syn::Arm>;
        // Only where no arm moves a part out (a dereference, whose parts only `Copy` names
        // bind by value, or arms binding by `ref` alone), which `&` would make an error.
        let dereference = matches!(
            super::strip(scrutinee),
            Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Deref(_))
        );
        let moves_nothing =
            dereference || arms.iter().all(|arm| !patterns::binds_by_value(&arm.pat));
        let (scrutinee, arms) = match super::is_place_expression(scrutinee)
            && moves_nothing
            && arms
                .iter()
                .any(|arm| patterns::binds_by_ref_inside(&arm.pat))
        {
            true => {
                by_reference = syn::parse_quote_spanned!(scrutinee.span()=> &#scrutinee);
                referenced_arms = arms
                    .iter()
                    .map(|arm| syn::Arm {
                        pat: patterns::behind_reference(&arm.pat),
                        ..arm.clone()
                    })
                    .collect();
                (&by_reference, referenced_arms.as_slice())
            }
            false => (scrutinee, arms),
        };
        let scrutinee_expr = scrutinee;
        // An arm binding the whole by reference (`ref mut r => *r += 1`) borrows the place
        // matched, not a copy of it.
        let borrows_whole = arms
            .iter()
            .any(|arm| whole_by_reference(&arm.pat).is_some());
        let borrowed = match borrows_whole && super::is_place_expression(scrutinee_expr) {
            true => Some(self.place(scrutinee_expr, stmts)?),
            false => None,
        };
        let scrutinee = match &borrowed {
            Some(place) => Operand::Value(self.read(place.clone(), scrutinee_expr.span(), stmts)),
            None => self.operand(scrutinee_expr, stmts)?,
        };
        if !matches!(scrutinee, Operand::Value(_) | Operand::Constant(_)) {
            return not_yet(scrutinee_expr, "`match` on this");
        }
        // An arm of alternatives that bind names (`A(r) | B(r) => ..`) is one arm per
        // alternative, tried in order with the same guard and body, as Rust tries them: each
        // takes its value apart by its own pattern.
        let copies: Vec<(&syn::Arm, syn::Arm)> = arms
            .iter()
            .flat_map(|arm| match &arm.pat {
                Pat::Or(alternatives)
                    if alternatives.cases.iter().any(|case| {
                        patterns::bindings(case).is_ok_and(|names| !names.is_empty())
                    }) =>
                {
                    alternatives
                        .cases
                        .iter()
                        .map(|case| {
                            let copy = syn::Arm {
                                pat: case.clone(),
                                ..arm.clone()
                            };
                            (arm, copy)
                        })
                        .collect()
                }
                _ => vec![(arm, arm.clone())],
            })
            .collect();
        self.noting(|this| {
            // What the code expects of an arm's value, it expects of its copy's.
            for (original, copy) in &copies {
                if let Some(ty) = this.expected_type(&original.body) {
                    this.expect(&copy.body, &ty);
                }
            }
            let arms: Vec<syn::Arm> = copies.into_iter().map(|(_, copy)| copy).collect();
            for arm in &arms {
                if borrowed.is_none() || whole_by_reference(&arm.pat).is_none() {
                    patterns::bindings(&arm.pat)?;
                }
            }
            let outer = std::mem::replace(&mut this.borrowed_scrutinee, borrowed);
            let lowered = this.match_arms(&arms, &scrutinee, span, stmts);
            this.borrowed_scrutinee = outer;
            lowered
        })
    }

    fn match_arms(
        &mut self,
        arms: &[syn::Arm],
        scrutinee: &Operand,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Operand>> {
        let Some((arm, rest)) = arms.split_first() else {
            return not_yet(&span, "an empty `match`");
        };
        if rest.is_empty() {
            if arm.guard.is_some() {
                return not_yet(&arm.pat, "a guard on the last arm");
            }
            return self.scoped(|this| {
                this.bind_pattern(&arm.pat, scrutinee, stmts)?;
                this.value_of(&arm.body, stmts)
            });
        }
        let arm_span = arm.pat.span();
        let matched = self.new_value(None, arm_span);
        stmts.push(Stmt::Let(Let {
            value: matched,
            rvalue: Rvalue::Matches(scrutinee.clone(), Box::new(self.tested_pattern(&arm.pat))),
            span: arm_span,
        }));
        // With a guard: `if matched { guard } else { false }`, the guard seeing the binding.
        let taken = match &arm.guard {
            None => Operand::Value(matched),
            Some((_, guard)) => {
                let mut guard_stmts = Vec::new();
                let guard_value = self.scoped(|this| {
                    this.bind_pattern(&arm.pat, scrutinee, &mut guard_stmts)?;
                    this.operand(guard, &mut guard_stmts)
                })?;
                let result = self.new_value(None, guard.span());
                stmts.push(Stmt::If {
                    cond: Operand::Value(matched),
                    then_branch: Block {
                        stmts: guard_stmts,
                        result: Some(guard_value),
                    },
                    else_branch: Block {
                        stmts: Vec::new(),
                        result: Some(flag_value(false, arm_span)),
                    },
                    result: Some(result),
                    span: arm_span,
                });
                Operand::Value(result)
            }
        };
        let mut then_stmts = Vec::new();
        let then_result = self.scoped(|this| {
            this.bind_pattern(&arm.pat, scrutinee, &mut then_stmts)?;
            this.value_of(&arm.body, &mut then_stmts)
        })?;
        let mut else_stmts = Vec::new();
        let else_result = self.match_arms(rest, scrutinee, span, &mut else_stmts)?;
        // An arm that leaves (`None => return None`, `?`) gives no value: a placeholder the
        // exit's flags keep from being read.
        let (then_result, else_result) = match (then_result, else_result) {
            (None, Some(other)) if diverges(&arm.body) => (Some(default_value(span)), Some(other)),
            (Some(other), None) if rest.iter().all(|arm| diverges(&arm.body)) => {
                (Some(other), Some(default_value(span)))
            }
            results => results,
        };
        let result = match (&then_result, &else_result) {
            (Some(_), Some(_)) => Some(self.new_value(None, span)),
            (None, None) => None,
            _ => return not_yet(&arm.body, "`match` arms that differ in giving a value"),
        };
        stmts.push(Stmt::If {
            cond: taken,
            then_branch: Block {
                stmts: then_stmts,
                result: then_result,
            },
            else_branch: Block {
                stmts: else_stmts,
                result: else_result,
            },
            result,
            span,
        });
        Ok(result.map(Operand::Value))
    }

    /// The pattern a branch tests (`matches!`): without its names, a derived type's paths
    /// through the twins.
    fn tested_pattern(&self, pat: &Pat) -> Pat {
        let mut tested = patterns::without_bindings(pat);
        let scalar = quote::ToTokens::to_token_stream(&crate::names::scalar_param(pat.span()));
        self.user_types.rewrite_pattern_deep(&mut tested, &scalar);
        tested
    }

    /// Binds the names of an arm's pattern, in the branch where it matched: a name for the
    /// whole (`v`, `v @ 1..=3`) to the scrutinee, a name inside (`Some(v)`, `(a, _)`) to its
    /// part ([`Rvalue::Extract`]).
    fn bind_pattern(
        &mut self,
        pat: &Pat,
        scrutinee: &Operand,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        if let (Some((name, mutable)), Some(place)) =
            (whole_by_reference(pat), &self.borrowed_scrutinee)
        {
            let place = place.clone();
            self.bind_borrowed(name, place, mutable);
            return Ok(());
        }
        if let Pat::Ident(whole) = pat {
            if patterns::is_binding_name(&whole.ident)
                && whole.by_ref.is_none()
                && whole.mutability.is_none()
            {
                patterns::bindings(pat)?;
                if let Operand::Value(value) = scrutinee {
                    self.bind(&whole.ident, Root::Value(*value));
                    return Ok(());
                }
            }
        }
        let bindings = patterns::bindings(pat)?;
        if bindings.is_empty() {
            return Ok(());
        }
        let span = pat.span();
        let data_only = patterns::only_for_data(pat, &self.user_types);
        // Names bound through a reference into data are references to plain values, which
        // the code reads both as they are and dereferenced: each use reads the part.
        let through_reference =
            matches!(scrutinee, Operand::Value(value) if self.references.contains(value));
        let parts = self.new_value(None, span);
        if data_only {
            self.plain_roots.insert(Root::Value(parts));
        }
        stmts.push(Stmt::Let(Let {
            value: parts,
            rvalue: Rvalue::Extract {
                scrutinee: scrutinee.clone(),
                pattern: Box::new(patterns::extracting(pat)),
                names: bindings
                    .iter()
                    .map(|binding| binding.name.clone())
                    .collect(),
                data_only,
            },
            span,
        }));
        for (index, binding) in bindings.iter().enumerate() {
            let span = binding.name.span();
            if data_only && through_reference {
                if binding.mutable || binding.by_ref {
                    return not_yet(
                        pat,
                        "`mut` or `ref` names bound through a reference into data",
                    );
                }
                let part = super::Binding::Part {
                    parts,
                    index: index as u32,
                };
                let scope = self.scopes.last_mut().expect("a scope is open");
                scope.insert(super::scope_key(&binding.name), part);
                continue;
            }
            let place = Place {
                root: Root::Value(parts),
                projections: vec![Projection::Field(syn::Member::Unnamed(syn::Index {
                    index: index as u32,
                    span,
                }))],
                span,
            };
            let read = self.read(place, span, stmts);
            if binding.mutable {
                let var = self.new_var(&binding.name);
                stmts.push(Stmt::DeclareVar {
                    var,
                    init: Some(Operand::Value(read)),
                });
                self.bind(&binding.name, Root::Var(var));
            } else {
                self.values[read.0 as usize].name = Some(binding.name.clone());
                self.bind(&binding.name, Root::Value(read));
            }
        }
        Ok(())
    }

    /// A function body with an early `return`: every exit, and the tail, go to the exit
    /// variables, and the body's value is read from them at the end.
    pub(super) fn body_with_exits(&mut self, block: &syn::Block) -> Lowered<Block> {
        let span = block.span();
        let returned = self.new_flag("returned", span);
        let value = self.new_var(&Ident::new("returned_value", span));
        self.exit = Some(FunctionExit { returned, value });
        let mut stmts = vec![
            Stmt::DeclareVar {
                var: returned,
                init: Some(flag_value(false, span)),
            },
            // Every path assigns it before it is read, which rustc cannot see through the
            // flags: it starts as the default of its type.
            Stmt::DeclareVar {
                var: value,
                init: Some(match self.fallible {
                    // A fallible result has no default: `Ok` of its value's.
                    true => Operand::Constant(Constant {
                        tokens: quote::quote_spanned!(span=>
                            ::ad_runtime::__private::ir::unset_result()),
                        kind: ConstantKind::Data,
                        span,
                    }),
                    false => default_value(span),
                }),
            },
        ];
        let lowered = self.scoped(|this| this.statements(&block.stmts, true))?;
        stmts.extend(lowered.stmts);
        let result = self.read(var_place(value, span), span, &mut stmts);
        Ok(Block {
            stmts,
            result: Some(Operand::Value(result)),
        })
    }

    /// The flag an exit from the code being lowered sets: the innermost loop's `skip`, or at
    /// the function's top level `returned`.
    pub(super) fn exit_flag(&self) -> Option<Var> {
        match self.loops.last() {
            Some(context) => Some(context.flags.skip),
            None => self.exit.map(|exit| exit.returned),
        }
    }

    pub(super) fn new_flag(&mut self, name: &str, span: Span) -> Var {
        self.new_var(&Ident::new(name, span))
    }

    pub(super) fn set_flag(&self, var: Var, span: Span, stmts: &mut Vec<Stmt>) {
        stmts.push(Stmt::Assign {
            place: var_place(var, span),
            operand: flag_value(true, span),
            span,
        });
    }

    /// `break` or `continue` (to a label or the innermost loop): the loops inside the target
    /// stop; the target skips the rest of its iteration and, for a `break`, stops.
    pub(super) fn lower_loop_exit(
        &mut self,
        label: Option<&syn::Lifetime>,
        value: Option<&Expr>,
        is_break: bool,
        node: &Expr,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        let span = node.span();
        let target = match label {
            Some(label) => {
                let name = label.ident.to_string();
                self.loops
                    .iter()
                    .rposition(|context| context.label.as_deref() == Some(name.as_str()))
            }
            None => self.loops.len().checked_sub(1),
        };
        let Some(target) = target else {
            return not_yet(node, "`break` out of a labeled block");
        };
        if let Some(value) = value {
            let operand = self.operand(value, stmts)?;
            let Some(result) = self.loops[target].result else {
                return not_yet(node, "`break` with a value here");
            };
            stmts.push(Stmt::Assign {
                place: var_place(result, span),
                operand,
                span,
            });
        }
        let inner: Vec<LoopFlags> = self.loops[target + 1..]
            .iter()
            .map(|context| context.flags)
            .collect();
        for flags in inner {
            self.set_flag(flags.skip, span, stmts);
            self.set_flag(flags.broken, span, stmts);
        }
        let flags = self.loops[target].flags;
        self.set_flag(flags.skip, span, stmts);
        if is_break {
            self.set_flag(flags.broken, span, stmts);
        }
        Ok(())
    }

    /// `return value` (or the tail of a body with early returns): the value goes to the exit
    /// variable, every loop around stops.
    pub(super) fn lower_return(
        &mut self,
        value: Option<&Expr>,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        let Some(exit) = self.exit else {
            return Err(NotYet {
                span,
                what: "`return` here",
            });
        };
        if let Some(value) = value {
            // A variable returned is moved out; nothing reads it after a return. A value bound
            // by `let` cannot be moved out of its binding, which the code after the exit (run
            // when the flags say the function goes on) may still read: it is copied.
            if let Expr::Path(path) = strip(value) {
                let returned = match path.path.get_ident().and_then(|name| self.resolve(name)) {
                    Some(Root::Value(returned)) => Some(Rvalue::Duplicate {
                        receiver: Operand::Value(returned),
                        method: Ident::new("clone", span),
                    }),
                    Some(Root::Var(var)) => {
                        Some(Rvalue::Take(Operand::Place(var_place(var, span))))
                    }
                    None => None,
                };
                if let Some(rvalue) = returned {
                    let moved = self.new_value(None, span);
                    stmts.push(Stmt::Let(Let {
                        value: moved,
                        rvalue,
                        span,
                    }));
                    stmts.push(Stmt::Assign {
                        place: var_place(exit.value, span),
                        operand: Operand::Value(moved),
                        span,
                    });
                    return self.finish_return(exit, span, stmts);
                }
            }
            let returns_inside = {
                let block: syn::Block = syn::parse_quote!({ #value });
                returns_early(&block)
            };
            // The value has the function's result type (which a `sum` in it may need).
            let lowered = self.noting(|this| {
                if let Some(ty) = this.result_type.clone() {
                    this.expect(value, &ty);
                }
                this.value_of(value, stmts)
            })?;
            match lowered {
                // A value whose code may itself have returned (`if let .. { return a; } b`
                // as the tail) is the function's only where it did not.
                Some(operand) if returns_inside => {
                    let returned = self.read(var_place(exit.returned, span), span, stmts);
                    let go_on = self.define(Rvalue::Not(Operand::Value(returned)), span, stmts);
                    let store = Stmt::Assign {
                        place: var_place(exit.value, span),
                        operand,
                        span,
                    };
                    stmts.push(Stmt::when(Operand::Value(go_on), vec![store], span));
                }
                Some(operand) => stmts.push(Stmt::Assign {
                    place: var_place(exit.value, span),
                    operand,
                    span,
                }),
                // The tail was itself an exit (`return x` as the last statement).
                None if self.always_exits(value) => return Ok(()),
                None => {
                    return Err(NotYet {
                        span,
                        what: "a body whose tail gives no value",
                    })
                }
            }
        }
        self.finish_return(exit, span, stmts)
    }

    /// Every loop around stops, and the function has returned.
    pub(super) fn finish_return(
        &mut self,
        exit: FunctionExit,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        let loops: Vec<LoopFlags> = self.loops.iter().map(|context| context.flags).collect();
        for flags in loops {
            self.set_flag(flags.skip, span, stmts);
            self.set_flag(flags.broken, span, stmts);
        }
        self.set_flag(exit.returned, span, stmts);
        Ok(())
    }

    pub(super) fn always_exits(&self, expr: &Expr) -> bool {
        matches!(
            strip(expr),
            Expr::Return(_) | Expr::Break(_) | Expr::Continue(_)
        )
    }

    /// Opens a loop's context: its flags are declared before it and reset as each iteration
    /// starts.
    pub(super) fn open_loop(
        &mut self,
        label: Option<&syn::Label>,
        result: Option<Var>,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> LoopFlags {
        let flags = LoopFlags {
            skip: self.new_flag("skip", span),
            broken: self.new_flag("broken", span),
        };
        for var in [flags.skip, flags.broken] {
            stmts.push(Stmt::DeclareVar {
                var,
                init: Some(flag_value(false, span)),
            });
        }
        self.loops.push(LoopContext {
            label: label.map(|label| label.name.ident.to_string()),
            flags,
            result,
        });
        flags
    }

    /// A loop body whose iteration starts by clearing `skip`.
    pub(super) fn loop_body(
        &mut self,
        flags: LoopFlags,
        body: &syn::Block,
        span: Span,
    ) -> Lowered<Block> {
        let lowered = self.block(body)?;
        if lowered.result.is_some() {
            return not_yet(body, "a loop body with a value");
        }
        let mut stmts = vec![Stmt::Assign {
            place: var_place(flags.skip, span),
            operand: flag_value(false, span),
            span,
        }];
        stmts.extend(lowered.stmts);
        Ok(Block {
            stmts,
            result: None,
        })
    }

    /// `loop { .. }` and `while cond { .. }`; the value of a `loop` is what `break` gave.
    pub(super) fn lower_loop(
        &mut self,
        expr: &Expr,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Operand>> {
        let span = expr.span();
        let (label, body, condition) = match expr {
            Expr::Loop(expr_loop) => (&expr_loop.label, &expr_loop.body, None),
            Expr::While(expr_while) => {
                // `while let p = e { .. }` is `loop { if let p = e { .. } else { break } }`.
                if let (Expr::Let(condition), true) =
                    (strip(&expr_while.cond), expr_while.attrs.is_empty())
                {
                    let (label, pat, scrutinee, body) = (
                        &expr_while.label,
                        &condition.pat,
                        &condition.expr,
                        &expr_while.body,
                    );
                    let as_loop: Expr = syn::parse_quote_spanned!(span=>
                        #label loop { if let #pat = #scrutinee #body else { break; } }
                    );
                    return self.lower_loop(&as_loop, stmts);
                }
                if contains_let(&expr_while.cond) {
                    return not_yet(&expr_while.cond, "`while let`");
                }
                (&expr_while.label, &expr_while.body, Some(&*expr_while.cond))
            }
            _ => return not_yet(expr, "this loop"),
        };
        let result = match expr {
            Expr::Loop(_) if breaks_with_value(body) => {
                let var = self.new_var(&Ident::new("loop_value", span));
                stmts.push(Stmt::DeclareVar {
                    var,
                    init: Some(default_value(span)),
                });
                Some(var)
            }
            _ => None,
        };
        let flags = self.open_loop(label.as_ref(), result, span, stmts);
        let lowered = self.scoped(|this| {
            let mut body_stmts = vec![Stmt::Assign {
                place: var_place(flags.skip, span),
                operand: flag_value(false, span),
                span,
            }];
            match condition {
                None => {
                    let block = this.block(body)?;
                    if block.result.is_some() {
                        return not_yet(body, "a loop body with a value");
                    }
                    body_stmts.extend(block.stmts);
                }
                Some(condition) => {
                    let cond = this.operand(condition, &mut body_stmts)?;
                    let block = this.block(body)?;
                    if block.result.is_some() {
                        return not_yet(body, "a loop body with a value");
                    }
                    let mut stop = Vec::new();
                    this.set_flag(flags.skip, span, &mut stop);
                    this.set_flag(flags.broken, span, &mut stop);
                    body_stmts.push(Stmt::If {
                        cond,
                        then_branch: block,
                        else_branch: Block {
                            stmts: stop,
                            result: None,
                        },
                        result: None,
                        span,
                    });
                }
            }
            Ok(Block {
                stmts: body_stmts,
                result: None,
            })
        });
        self.loops.pop();
        stmts.push(Stmt::Loop {
            body: lowered?,
            flags,
            span,
        });
        Ok(result.map(|var| Operand::Value(self.read(var_place(var, span), span, stmts))))
    }

    /// `a && b` as `if a { b } else { false }`: `b` must not run when `a` is false.
    pub(super) fn short_circuit(
        &mut self,
        binary: &syn::ExprBinary,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Operand> {
        let span = binary.span();
        let left = self.operand(&binary.left, stmts)?;
        let mut right_stmts = Vec::new();
        let right = self.scoped(|this| this.operand(&binary.right, &mut right_stmts))?;
        let short = Block {
            stmts: Vec::new(),
            result: Some(Operand::Constant(Constant {
                tokens: match binary.op {
                    syn::BinOp::And(_) => quote::quote_spanned!(span=> false),
                    _ => quote::quote_spanned!(span=> true),
                },
                kind: ConstantKind::Data,
                span,
            })),
        };
        let evaluated = Block {
            stmts: right_stmts,
            result: Some(right),
        };
        let (then_branch, else_branch) = match binary.op {
            syn::BinOp::And(_) => (evaluated, short),
            _ => (short, evaluated),
        };
        let result = self.new_value(None, span);
        stmts.push(Stmt::If {
            cond: left,
            then_branch,
            else_branch,
            result: Some(result),
            span,
        });
        Ok(Operand::Value(result))
    }

    /// `if let pattern = value { .. } else { .. }`: a `match` with the arms `pattern` and `_`.
    fn lower_if_let(
        &mut self,
        expr_if: &syn::ExprIf,
        condition: &syn::ExprLet,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Operand>> {
        let span = expr_if.span();
        let arm = |pat: Pat, body: Expr| syn::Arm {
            attrs: Vec::new(),
            pat,
            guard: None,
            fat_arrow_token: syn::Token![=>](span),
            body: Box::new(body),
            comma: None,
        };
        let then_body = Expr::Block(syn::ExprBlock {
            attrs: Vec::new(),
            label: None,
            block: expr_if.then_branch.clone(),
        });
        let else_body = match &expr_if.else_branch {
            Some((_, else_expr)) => (**else_expr).clone(),
            None => Expr::Block(syn::ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: syn::Block {
                    brace_token: Default::default(),
                    stmts: Vec::new(),
                },
            }),
        };
        let wild = Pat::Wild(syn::PatWild {
            attrs: Vec::new(),
            underscore_token: syn::Token![_](span),
        });
        let arms = [
            arm((*condition.pat).clone(), then_body),
            arm(wild, else_body),
        ];
        self.lower_arms(&condition.expr, &arms, span, stmts)
    }

    pub(super) fn lower_if(
        &mut self,
        expr_if: &syn::ExprIf,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Operand>> {
        if let Expr::Let(condition) = &*expr_if.cond {
            return self.lower_if_let(expr_if, condition, stmts);
        }
        if contains_let(&expr_if.cond) {
            return not_yet(&expr_if.cond, "`let` chains");
        }
        let cond = self.operand(&expr_if.cond, stmts)?;
        let then_branch = self.block(&expr_if.then_branch)?;
        let else_branch = match &expr_if.else_branch {
            Some((_, else_expr)) => {
                let mut else_stmts = Vec::new();
                let result = self.scoped(|this| this.value_of(else_expr, &mut else_stmts))?;
                Block {
                    stmts: else_stmts,
                    result,
                }
            }
            None => Block {
                stmts: Vec::new(),
                result: None,
            },
        };
        let mut then_branch = then_branch;
        let mut else_branch = else_branch;
        let block_diverges = |block: &syn::Block| matches!(block.stmts.last(), Some(syn::Stmt::Expr(last, _)) if diverges(last));
        match (&then_branch.result, &else_branch.result) {
            (None, Some(_)) if block_diverges(&expr_if.then_branch) => {
                then_branch.result = Some(default_value(expr_if.span()));
            }
            (Some(_), None)
                if expr_if
                    .else_branch
                    .as_ref()
                    .is_some_and(|(_, else_expr)| diverges(else_expr)) =>
            {
                else_branch.result = Some(default_value(expr_if.span()));
            }
            _ => {}
        }
        let result = match (&then_branch.result, &else_branch.result) {
            (Some(_), Some(_)) => Some(self.new_value(None, expr_if.span())),
            (None, None) => None,
            _ => return not_yet(expr_if, "an `if` whose branches differ in giving a value"),
        };
        stmts.push(Stmt::If {
            cond,
            then_branch,
            else_branch,
            result,
            span: expr_if.span(),
        });
        Ok(result.map(Operand::Value))
    }

    pub(super) fn lower_for(
        &mut self,
        for_loop: &syn::ExprForLoop,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        let span = for_loop.span();
        // A range is iterated as it is; a container (`&v`, `v.iter()`, `.copied()`,
        // `.enumerate()`, `.zip(..)`) by its indices, its elements read (or borrowed) from
        // it, so their adjoints go to the container's shadow.
        let stepped = self.range_adapters(&for_loop.expr, stmts)?;
        let (range, items) = match (strip(&for_loop.expr), stepped) {
            (Expr::Range(_), _) => (self.operand(&for_loop.expr, stmts)?, None),
            (_, Some(stepped)) => (stepped, None),
            (other, None) => {
                let Some(items) = self.items(other) else {
                    if self.for_over_chain(for_loop, stmts)? {
                        return Ok(());
                    }
                    return not_yet(
                        &for_loop.expr,
                        "`for` over this iterator: loop over a range of indices, or over a \
                         slice, `Vec` or array",
                    );
                };
                let items = self.place_items(items, stmts)?;
                let iteration = self.iteration(&items, span, stmts, &for_loop.expr)?;
                (iteration.iterator.clone(), Some((items, iteration)))
            }
        };
        let (binding, name) = match (&*for_loop.pat, &items) {
            (_, Some(_)) => (self.new_value(None, for_loop.pat.span()), None),
            (Pat::Ident(ident), None) if ident.by_ref.is_none() && ident.subpat.is_none() => {
                if ident.mutability.is_some() {
                    return not_yet(&for_loop.pat, "`mut` loop variables");
                }
                (
                    self.new_value(Some(ident.ident.clone()), ident.ident.span()),
                    Some(&ident.ident),
                )
            }
            (Pat::Wild(wild), None) => (self.new_value(None, wild.span()), None),
            (other, None) => return not_yet(other, "this loop pattern"),
        };
        let flags = if has_exits(&for_loop.body) {
            Some(self.open_loop(for_loop.label.as_ref(), None, span, stmts))
        } else {
            None
        };
        let body = self.scoped(|this| {
            if let Some(name) = name {
                this.bind(name, Root::Value(binding));
            }
            let mut prelude = Vec::new();
            if let Some((items, iteration)) = &items {
                let item = this.item_at(items, iteration, binding, span, &mut prelude);
                this.bind_item(&for_loop.pat, item, &mut prelude)?;
            }
            let block = match flags {
                Some(flags) => this.loop_body(flags, &for_loop.body, span)?,
                None => this.block(&for_loop.body)?,
            };
            prelude.extend(block.stmts);
            Ok(Block {
                stmts: prelude,
                result: block.result,
            })
        });
        if flags.is_some() {
            self.loops.pop();
        }
        let body = body?;
        if body.result.is_some() {
            return not_yet(&for_loop.body, "a loop body with a value");
        }
        stmts.push(Stmt::For {
            binding,
            range,
            body,
            flags,
            span,
        });
        Ok(())
    }

    /// A range with `.rev()`, `.step_by(n)`, `.skip(n)` and `.take(n)` (`(0..n).rev()`): an
    /// iterator of data, which the loop runs as written (the backward sweep keeps its trip
    /// count and each index). `None` for anything else.
    fn range_adapters(&mut self, expr: &Expr, stmts: &mut Vec<Stmt>) -> Lowered<Option<Operand>> {
        let Expr::MethodCall(call) = strip(expr) else {
            return Ok(None);
        };
        let method = call.method.to_string();
        let adapter = matches!(
            (method.as_str(), call.args.len()),
            ("rev", 0) | ("step_by" | "skip" | "take", 1)
        );
        if !adapter || call.turbofish.is_some() {
            return Ok(None);
        }
        let receiver = match strip(&call.receiver) {
            Expr::Range(_) => self.operand(&call.receiver, stmts)?,
            inner => match self.range_adapters(inner, stmts)? {
                Some(iterator) => iterator,
                None => return Ok(None),
            },
        };
        let args = self.operands(&call.args, stmts)?;
        let span = call.span();
        let iterator = self.new_value(None, span);
        stmts.push(Stmt::Let(Let {
            value: iterator,
            rvalue: Rvalue::DataMethod {
                receiver,
                method: call.method.clone(),
                args,
            },
            span,
        }));
        Ok(Some(Operand::Value(iterator)))
    }
}

/// Whether a loop body has an exit at all (`break`, `continue`, `return`, `?`; outside
/// closures).
pub(super) fn has_exits(body: &syn::Block) -> bool {
    struct AnyExit(bool);
    impl<'ast> Visit<'ast> for AnyExit {
        fn visit_expr_break(&mut self, _: &'ast syn::ExprBreak) {
            self.0 = true;
        }
        fn visit_expr_continue(&mut self, _: &'ast syn::ExprContinue) {
            self.0 = true;
        }
        fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
            self.0 = true;
        }
        fn visit_expr_try(&mut self, _: &'ast syn::ExprTry) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = AnyExit(false);
    finder.visit_block(body);
    finder.0
}

pub(super) fn var_place(var: Var, span: Span) -> Place {
    Place {
        root: Root::Var(var),
        projections: Vec::new(),
        span,
    }
}

pub(super) fn default_value(span: Span) -> Operand {
    Operand::Constant(Constant {
        tokens: quote::quote_spanned!(span=> ::core::default::Default::default()),
        kind: ConstantKind::Data,
        span,
    })
}

pub(super) fn flag_value(value: bool, span: Span) -> Operand {
    Operand::Constant(Constant {
        tokens: if value {
            quote::quote_spanned!(span=> true)
        } else {
            quote::quote_spanned!(span=> false)
        },
        kind: ConstantKind::Data,
        span,
    })
}

/// What a function's `?` takes apart: its result's type.
#[derive(Clone)]
pub(super) enum Tried {
    Option,
    /// With the function's error type, which the error is converted to.
    Result(Box<syn::Type>),
}

/// `e?` as the `match` it is (closures aside, whose `?` is theirs): in a function returning an
/// `Option`, `match e { Some(v) => v, None => return None }`; in one returning a `Result`,
/// `match e { Ok(v) => v, Err(err) => return Err(From::from(err)) }`. `None` when the body has no
/// `?`.
pub(super) fn try_as_match(body: &syn::Block, tried: Tried) -> Option<syn::Block> {
    /// `*acc?` of an element accessor.
    fn dereferenced_try(expr: &Expr) -> bool {
        matches!(expr, Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Deref(_))
            && matches!(&*unary.expr, Expr::Try(_)))
    }
    struct Rewrite(bool, Tried, bool);
    impl syn::visit_mut::VisitMut for Rewrite {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            // `&*x.get(i)?`, `(*rows.get(i)?).len()`: the element used in place, not read.
            let in_place = std::mem::take(&mut self.2);
            self.2 = match &*expr {
                Expr::Reference(reference) => dereferenced_try(&reference.expr),
                Expr::Field(field) => dereferenced_try(strip(&field.base)),
                Expr::MethodCall(call) => dereferenced_try(strip(&call.receiver)),
                Expr::Index(index) => dereferenced_try(strip(&index.expr)),
                // Through the parentheses to the element.
                Expr::Paren(_) | Expr::Group(_) => in_place,
                _ => false,
            };
            // `*x.get(i)?` read: the element is `Copy` where the code compiles, and is copied,
            // as the lowering reads an accessor's (`x.get(i).copied()?`).
            if let (Expr::Unary(unary), false) = (&*expr, in_place) {
                if let (syn::UnOp::Deref(_), Expr::Try(try_expr)) = (&unary.op, &*unary.expr) {
                    let accessor = &try_expr.expr;
                    let copied = super::element_access::accessor(accessor)
                        .is_some_and(|found| !found.copied && !found.mutable);
                    if copied {
                        let span = try_expr.question_token.span;
                        let mut copied: Expr = syn::parse_quote_spanned!(span=>
                            (#accessor).copied()?
                        );
                        self.visit_expr_mut(&mut copied);
                        *expr = copied;
                        return;
                    }
                }
            }
            syn::visit_mut::visit_expr_mut(self, expr);
            if let Expr::Try(try_expr) = expr {
                self.0 = true;
                let operand = &try_expr.expr;
                let span = try_expr.question_token.span;
                *expr = match &self.1 {
                    Tried::Option => syn::parse_quote_spanned! {span=>
                        match #operand {
                            Some(__ad_tried) => __ad_tried,
                            None => return None,
                        }
                    },
                    Tried::Result(error) => syn::parse_quote_spanned! {span=>
                        match #operand {
                            Ok(__ad_tried) => __ad_tried,
                            Err(__ad_error) => return Err(
                                ::ad_runtime::__private::ir::convert_error::<_, #error>(
                                    __ad_error
                                )
                            ),
                        }
                    },
                };
            }
        }
        // `let a = x.first()?;` is `let Some(a) = x.first() else { return None; };`: the
        // element borrowed in the rest of the block, where it exists, instead of a reference
        // the path that leaves would have to make up.
        fn visit_local_mut(&mut self, local: &mut syn::Local) {
            if let (Tried::Option, Some(init)) = (&self.1, &mut local.init) {
                if let (Expr::Try(try_expr), None) = (&*init.expr, &init.diverge) {
                    if super::element_access::accessor(&try_expr.expr).is_some() {
                        let span = try_expr.question_token.span;
                        let operand = (*try_expr.expr).clone();
                        local.pat = match &local.pat {
                            // `let a: &f64 = x.first()?;`: the option's type written.
                            Pat::Type(typed) => {
                                let (pat, ty) = (&typed.pat, &typed.ty);
                                Pat::Type(syn::PatType {
                                    attrs: typed.attrs.clone(),
                                    pat: Box::new(syn::parse_quote_spanned!(span=> Some(#pat))),
                                    colon_token: typed.colon_token,
                                    ty: Box::new(syn::parse_quote_spanned!(span=>
                                        ::core::option::Option<#ty>
                                    )),
                                })
                            }
                            pat => syn::parse_quote_spanned!(span=> Some(#pat)),
                        };
                        *init.expr = operand;
                        init.diverge = Some((
                            syn::Token![else](span),
                            Box::new(syn::parse_quote_spanned!(span=> { return None; })),
                        ));
                        self.0 = true;
                    }
                }
            }
            syn::visit_mut::visit_local_mut(self, local);
        }
        fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    let mut body = body.clone();
    let mut rewrite = Rewrite(false, tried, false);
    syn::visit_mut::VisitMut::visit_block_mut(&mut rewrite, &mut body);
    rewrite.0.then_some(body)
}

/// Whether an expression always leaves: `return`, `break`, `continue`, `panic!` and its kin,
/// or a block ending in one.
pub(super) fn diverges(expr: &Expr) -> bool {
    match expr {
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => true,
        Expr::Block(block) => {
            matches!(block.block.stmts.last(), Some(syn::Stmt::Expr(last, _)) if diverges(last))
        }
        Expr::Macro(mac) => ["panic", "unreachable", "todo", "unimplemented"]
            .iter()
            .any(|name| mac.mac.path.is_ident(name)),
        Expr::Paren(inner) => diverges(&inner.expr),
        _ => false,
    }
}

/// Whether the function body has a `return` (outside closures).
pub(super) fn returns_early(body: &syn::Block) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    let mut finder = Finder(false);
    finder.visit_block(body);
    finder.0
}

/// Whether a `loop` body has a `break` with a value for this loop.
pub(super) fn breaks_with_value(body: &syn::Block) -> bool {
    struct Finder {
        found: bool,
        depth: usize,
    }
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_break(&mut self, exit: &'ast syn::ExprBreak) {
            if exit.expr.is_some() && (self.depth == 0 || exit.label.is_some()) {
                self.found = true;
            }
            syn::visit::visit_expr_break(self, exit);
        }
        fn visit_expr_loop(&mut self, inner: &'ast syn::ExprLoop) {
            self.depth += 1;
            syn::visit::visit_expr_loop(self, inner);
            self.depth -= 1;
        }
        fn visit_expr_while(&mut self, inner: &'ast syn::ExprWhile) {
            self.depth += 1;
            syn::visit::visit_expr_while(self, inner);
            self.depth -= 1;
        }
        fn visit_expr_for_loop(&mut self, inner: &'ast syn::ExprForLoop) {
            self.depth += 1;
            syn::visit::visit_expr_for_loop(self, inner);
            self.depth -= 1;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    let mut finder = Finder {
        found: false,
        depth: 0,
    };
    finder.visit_block(body);
    finder.found
}

/// Whether a statement may leave the block it stands in (`first_exit`).
pub(super) fn leaves(stmt: &syn::Stmt) -> bool {
    first_exit(stmt).is_some()
}

/// The first exit that leaves `stmt`: a `return`, a `?`, or a `break` or `continue` of a loop
/// around it (one of a loop inside it, by label or as the innermost, stays inside). Closures
/// have their own.
pub(super) fn first_exit(stmt: &syn::Stmt) -> Option<Span> {
    struct Finder {
        found: Option<Span>,
        /// Labels of the loops inside the statement around the current point; `None` for
        /// an unlabeled one.
        inside: Vec<Option<String>>,
    }
    impl Finder {
        fn exits(&self, label: Option<&syn::Lifetime>) -> bool {
            match label {
                None => self.inside.is_empty(),
                Some(label) => {
                    let name = label.ident.to_string();
                    !self
                        .inside
                        .iter()
                        .any(|inner| inner.as_deref() == Some(name.as_str()))
                }
            }
        }
        fn enter(&mut self, label: &Option<syn::Label>) {
            self.inside
                .push(label.as_ref().map(|label| label.name.ident.to_string()));
        }
        fn note(&mut self, span: Span) {
            self.found.get_or_insert(span);
        }
    }
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_return(&mut self, exit: &'ast syn::ExprReturn) {
            self.note(exit.span());
        }
        fn visit_expr_try(&mut self, exit: &'ast syn::ExprTry) {
            self.note(exit.span());
        }
        fn visit_expr_break(&mut self, exit: &'ast syn::ExprBreak) {
            if self.exits(exit.label.as_ref()) {
                self.note(exit.span());
            }
            syn::visit::visit_expr_break(self, exit);
        }
        fn visit_expr_continue(&mut self, exit: &'ast syn::ExprContinue) {
            if self.exits(exit.label.as_ref()) {
                self.note(exit.span());
            }
        }
        fn visit_expr_loop(&mut self, inner: &'ast syn::ExprLoop) {
            self.enter(&inner.label);
            syn::visit::visit_expr_loop(self, inner);
            self.inside.pop();
        }
        fn visit_expr_while(&mut self, inner: &'ast syn::ExprWhile) {
            self.enter(&inner.label);
            syn::visit::visit_expr_while(self, inner);
            self.inside.pop();
        }
        fn visit_expr_for_loop(&mut self, inner: &'ast syn::ExprForLoop) {
            self.enter(&inner.label);
            syn::visit::visit_expr_for_loop(self, inner);
            self.inside.pop();
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder {
        found: None,
        inside: Vec::new(),
    };
    finder.visit_stmt(stmt);
    finder.found
}

/// `ref r` or `ref mut r` binding a whole value: the name, and whether mutably.
fn whole_by_reference(pat: &Pat) -> Option<(&Ident, bool)> {
    match pat {
        Pat::Ident(binding) if binding.by_ref.is_some() && binding.subpat.is_none() => {
            Some((&binding.ident, binding.mutability.is_some()))
        }
        _ => None,
    }
}

/// Whether `expr` may leave early from inside (`return`, `?`, a `break` or `continue` out of
/// it) while it gives a value.
/// The names patterns inside `expr` bind (`let`s, arms, closures' and loops' parameters).
pub(super) fn names_bound_in(expr: &Expr) -> std::collections::HashSet<syn::Ident> {
    struct Bound(std::collections::HashSet<syn::Ident>);
    impl<'ast> syn::visit::Visit<'ast> for Bound {
        fn visit_pat_ident(&mut self, binding: &'ast syn::PatIdent) {
            self.0.insert(binding.ident.clone());
            syn::visit::visit_pat_ident(self, binding);
        }
    }
    let mut bound = Bound(std::collections::HashSet::new());
    syn::visit::Visit::visit_expr(&mut bound, expr);
    bound.0
}

pub(super) fn leaves_inside(expr: &Expr) -> bool {
    matches!(
        strip_parens(expr),
        Expr::If(_) | Expr::Match(_) | Expr::Block(_)
    ) && first_exit(&syn::Stmt::Expr(expr.clone(), None)).is_some()
}

fn strip_parens(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(paren) => strip_parens(&paren.expr),
        Expr::Group(group) => strip_parens(&group.expr),
        _ => expr,
    }
}

/// `expr` (an `if` with `else`, a `match`, a block) as a statement whose every branch ends
/// by `consume` of its value (`return v;`, `s = v;`), so that no value is needed after a
/// branch that left early. A branch's value that leaves itself (`return a`, `panic!(..)`)
/// stays as it is. `None` for a labeled block or an `if` without `else`.
pub(super) fn into_branch_tails(expr: &Expr, consume: &dyn Fn(Expr) -> syn::Stmt) -> Option<Expr> {
    let span = expr.span();
    let as_block = |stmts: Vec<syn::Stmt>| syn::Block {
        brace_token: syn::token::Brace(span),
        stmts,
    };
    let tail_block = |block: &syn::Block| -> Option<syn::Block> {
        let mut stmts = block.stmts.clone();
        match stmts.pop() {
            Some(syn::Stmt::Expr(tail, None)) => {
                stmts.push(branch_tail(&tail, consume)?);
                Some(as_block(stmts))
            }
            // A block without a value diverges (it gives `()` otherwise, which a value of a
            // float type is not).
            Some(other) => {
                stmts.push(other);
                Some(as_block(stmts))
            }
            None => None,
        }
    };
    match strip_parens(expr) {
        Expr::Block(block) if block.label.is_none() => Some(Expr::Block(syn::ExprBlock {
            block: tail_block(&block.block)?,
            ..block.clone()
        })),
        Expr::If(expr_if) => {
            let (else_token, else_branch) = expr_if.else_branch.as_ref()?;
            let else_branch = match &**else_branch {
                Expr::Block(block) => Expr::Block(syn::ExprBlock {
                    block: tail_block(&block.block)?,
                    ..block.clone()
                }),
                other => into_branch_tails(other, consume)?,
            };
            Some(Expr::If(syn::ExprIf {
                then_branch: tail_block(&expr_if.then_branch)?,
                else_branch: Some((*else_token, Box::new(else_branch))),
                ..expr_if.clone()
            }))
        }
        Expr::Match(expr_match) => {
            let arms = expr_match
                .arms
                .iter()
                .map(|arm| {
                    let body = Expr::Block(syn::ExprBlock {
                        attrs: Vec::new(),
                        label: None,
                        block: as_block(vec![branch_tail(&arm.body, consume)?]),
                    });
                    Some(syn::Arm {
                        body: Box::new(body),
                        comma: Some(syn::Token![,](span)),
                        ..arm.clone()
                    })
                })
                .collect::<Option<Vec<_>>>()?;
            Some(Expr::Match(syn::ExprMatch {
                arms,
                ..expr_match.clone()
            }))
        }
        _ => None,
    }
}

/// The statement ending a branch whose value is `tail`.
fn branch_tail(tail: &Expr, consume: &dyn Fn(Expr) -> syn::Stmt) -> Option<syn::Stmt> {
    let diverges = matches!(
        strip_parens(tail),
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_)
    ) || matches!(strip_parens(tail), Expr::Macro(mac)
        if mac.mac.path.is_ident("panic") || mac.mac.path.is_ident("unreachable"));
    if diverges {
        return Some(syn::Stmt::Expr(
            tail.clone(),
            Some(syn::Token![;](tail.span())),
        ));
    }
    match strip_parens(tail) {
        Expr::If(_) | Expr::Match(_) | Expr::Block(_) if leaves_inside(tail) => {
            let inner = into_branch_tails(tail, consume)?;
            Some(syn::Stmt::Expr(inner, None))
        }
        _ => Some(consume(tail.clone())),
    }
}
