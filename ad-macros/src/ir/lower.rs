//! syn to AD-IR. Names are resolved here, once: a `let` binds a [`Value`], a `let mut` a
//! [`Var`]; anything else a path names is a constant of the function's surroundings.
//!
//! Lowering fails with [`NotYet`] on a construct the IR engine does not take yet; the caller
//! then uses the previous engine for the whole function. Errors in the user's code are not
//! lowering's business: `valid` reported them before.

use std::collections::HashMap;

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Ident, Lit, Pat};

use super::*;
use crate::ast::Function;
use crate::retype::{classify_callee_path, Callee};

/// A construct the IR engine does not lower yet, and where it is.
pub struct NotYet {
    pub span: Span,
    pub what: &'static str,
}

type Lowered<T> = Result<T, NotYet>;

fn not_yet<T>(node: &impl Spanned, what: &'static str) -> Lowered<T> {
    Err(NotYet {
        span: node.span(),
        what,
    })
}

pub fn lower(function: &Function) -> Lowered<Body> {
    let mut lowering = Lowering {
        values: Vec::new(),
        vars: Vec::new(),
        scopes: vec![HashMap::new()],
        loops: Vec::new(),
        exit: None,
        reference_params: std::collections::HashSet::new(),
    };
    let mut params = Vec::new();
    for param in &function.params {
        if param.receiver || param.user_type.is_some() {
            return not_yet(&param.name, "methods and `#[grad]` parameters");
        }
        let root = if param.mutability.is_some() {
            Root::Var(lowering.new_var(&param.name))
        } else {
            let value = lowering.new_value(Some(param.name.clone()), param.name.span());
            if param.is_reference() {
                lowering.reference_params.insert(value);
            }
            Root::Value(value)
        };
        lowering.bind(&param.name, root);
        params.push(root);
    }
    if let Some(checkpoint) = crate::attr::find_checkpoint(&function.body) {
        return not_yet(&checkpoint, "inner `#[checkpoint]`s");
    }
    let block = if returns_early(&function.body) {
        lowering.body_with_exits(&function.body)?
    } else {
        lowering.block(&function.body)?
    };
    Ok(Body {
        values: lowering.values,
        vars: lowering.vars,
        params,
        block,
    })
}

struct Lowering {
    values: Vec<ValueInfo>,
    vars: Vec<VarInfo>,
    scopes: Vec<HashMap<String, Root>>,
    /// The loops around the code being lowered, innermost last.
    loops: Vec<LoopContext>,
    /// With an early `return` in the body: whether it returned, and the value.
    exit: Option<FunctionExit>,
    /// Parameters declared as references (`&[f64]`): `for x in v` borrows their elements.
    reference_params: std::collections::HashSet<Value>,
}

/// What a `for` over a container binds at each iteration.
enum Items<S> {
    Elements { source: S, by_reference: bool },
    Enumerated(Box<Items<S>>),
    Zipped(Box<Items<S>>, Box<Items<S>>),
}

impl Items<Place> {
    fn sources(&self) -> Vec<&Place> {
        match self {
            Items::Elements { source, .. } => vec![source],
            Items::Enumerated(inner) => inner.sources(),
            Items::Zipped(left, right) => {
                let mut sources = left.sources();
                sources.extend(right.sources());
                sources
            }
        }
    }
}

struct LoopContext {
    label: Option<String>,
    flags: LoopFlags,
    /// Where `break value` puts its value (`loop` as an expression).
    result: Option<Var>,
}

#[derive(Clone, Copy)]
struct FunctionExit {
    returned: Var,
    value: Var,
}

impl Lowering {
    fn new_value(&mut self, name: Option<Ident>, span: Span) -> Value {
        self.values.push(ValueInfo { name, span });
        Value(self.values.len() as u32 - 1)
    }

    fn new_var(&mut self, name: &Ident) -> Var {
        self.vars.push(VarInfo {
            name: name.clone(),
            span: name.span(),
        });
        Var(self.vars.len() as u32 - 1)
    }

    fn bind(&mut self, name: &Ident, root: Root) {
        let scope = self.scopes.last_mut().expect("a scope is open");
        scope.insert(name.to_string(), root);
    }

    fn resolve(&self, name: &Ident) -> Option<Root> {
        let key = name.to_string();
        self.scopes
            .iter()
            .rev()
            .find_map(|scope| scope.get(&key).copied())
    }

    fn scoped<T>(&mut self, lower: impl FnOnce(&mut Self) -> Lowered<T>) -> Lowered<T> {
        self.scopes.push(HashMap::new());
        let result = lower(self);
        self.scopes.pop();
        result
    }

    fn block(&mut self, block: &syn::Block) -> Lowered<Block> {
        self.scoped(|this| this.statements(&block.stmts, false))
    }

    /// A function body with an early `return`: every exit, and the tail, go to the exit
    /// variables, and the body's value is read from them at the end.
    fn body_with_exits(&mut self, block: &syn::Block) -> Lowered<Block> {
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
                init: Some(default_value(span)),
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

    /// The statements of a block. After one that may leave the block early (`break`,
    /// `continue`, `return`), the rest is guarded by the flag that exit sets. With
    /// `tail_returns`, the tail expression is the function's value.
    fn statements(&mut self, stmts_in: &[syn::Stmt], tail_returns: bool) -> Lowered<Block> {
        let mut stmts = Vec::new();
        let mut result = None;
        let count = stmts_in.len();
        for (index, stmt) in stmts_in.iter().enumerate() {
            let last = index + 1 == count;
            match stmt {
                syn::Stmt::Local(local) => self.local(local, &mut stmts)?,
                syn::Stmt::Expr(expr, None) if last && tail_returns => {
                    self.lower_return(Some(expr), expr.span(), &mut stmts)?;
                }
                syn::Stmt::Expr(expr, None) if last => {
                    result = self.value_of(expr, &mut stmts)?;
                }
                syn::Stmt::Expr(expr, _) => {
                    self.effect(expr, &mut stmts)?;
                }
                syn::Stmt::Item(item) => return not_yet(item, "items in the body"),
                syn::Stmt::Macro(mac) => return not_yet(mac, "macros"),
            }
            let rest = &stmts_in[index + 1..];
            if !rest.is_empty() && leaves(stmt) {
                let span = rest[0].span();
                let Some(flag) = self.exit_flag() else {
                    return not_yet(stmt, "this exit");
                };
                let skipped = self.read(var_place(flag, span), span, &mut stmts);
                let go_on = self.new_value(None, span);
                stmts.push(Stmt::Let(Let {
                    value: go_on,
                    rvalue: Rvalue::Not(Operand::Value(skipped)),
                    span,
                }));
                let guarded = self.scoped(|this| this.statements(rest, tail_returns))?;
                if guarded.result.is_some() {
                    return not_yet(stmt, "a value after an early exit in a block");
                }
                stmts.push(Stmt::If {
                    cond: Operand::Value(go_on),
                    then_branch: guarded,
                    else_branch: Block {
                        stmts: Vec::new(),
                        result: None,
                    },
                    result: None,
                    span,
                });
                break;
            }
        }
        Ok(Block { stmts, result })
    }

    /// The flag an exit from the code being lowered sets: the innermost loop's `skip`, or at
    /// the function's top level `returned`.
    fn exit_flag(&self) -> Option<Var> {
        match self.loops.last() {
            Some(context) => Some(context.flags.skip),
            None => self.exit.map(|exit| exit.returned),
        }
    }

    fn new_flag(&mut self, name: &str, span: Span) -> Var {
        self.new_var(&Ident::new(name, span))
    }

    fn set_flag(&self, var: Var, span: Span, stmts: &mut Vec<Stmt>) {
        stmts.push(Stmt::Assign {
            place: var_place(var, span),
            operand: flag_value(true, span),
            span,
        });
    }

    /// `break` or `continue` (to a label or the innermost loop): the loops inside the target
    /// stop; the target skips the rest of its iteration and, for a `break`, stops.
    fn lower_loop_exit(
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
    fn lower_return(
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
            // A variable returned is moved out; nothing reads it after a return.
            if let Expr::Path(path) = strip(value) {
                if let Some(Root::Var(var)) =
                    path.path.get_ident().and_then(|name| self.resolve(name))
                {
                    let taken = self.new_value(None, span);
                    stmts.push(Stmt::Let(Let {
                        value: taken,
                        rvalue: Rvalue::Take(Operand::Place(var_place(var, span))),
                        span,
                    }));
                    stmts.push(Stmt::Assign {
                        place: var_place(exit.value, span),
                        operand: Operand::Value(taken),
                        span,
                    });
                    return self.finish_return(exit, span, stmts);
                }
            }
            match self.value_of(value, stmts)? {
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
    fn finish_return(
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

    fn always_exits(&self, expr: &Expr) -> bool {
        matches!(
            strip(expr),
            Expr::Return(_) | Expr::Break(_) | Expr::Continue(_)
        )
    }

    /// Opens a loop's context: its flags are declared before it and reset as each iteration
    /// starts.
    fn open_loop(
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
    fn loop_body(&mut self, flags: LoopFlags, body: &syn::Block, span: Span) -> Lowered<Block> {
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
    fn lower_loop(&mut self, expr: &Expr, stmts: &mut Vec<Stmt>) -> Lowered<Option<Operand>> {
        let span = expr.span();
        let (label, body, condition) = match expr {
            Expr::Loop(expr_loop) => (&expr_loop.label, &expr_loop.body, None),
            Expr::While(expr_while) => {
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

    fn local(&mut self, local: &syn::Local, stmts: &mut Vec<Stmt>) -> Lowered<()> {
        if !local.attrs.is_empty() {
            return not_yet(local, "attributes on `let`");
        }
        let (pat, _annotation) = match &local.pat {
            Pat::Type(typed) => (&*typed.pat, Some(&typed.ty)),
            other => (other, None),
        };
        if let Pat::Tuple(_) = pat {
            let Some(init) = &local.init else {
                return not_yet(local, "`let` without a value");
            };
            if init.diverge.is_some() {
                return not_yet(local, "`let ... else`");
            }
            let operand = self.operand(&init.expr, stmts)?;
            let whole = match operand {
                Operand::Value(value) => value,
                other => {
                    let value = self.new_value(None, local.span());
                    stmts.push(Stmt::Let(Let {
                        value,
                        rvalue: Rvalue::Use(other),
                        span: local.span(),
                    }));
                    value
                }
            };
            let place = Place {
                root: Root::Value(whole),
                projections: Vec::new(),
                span: local.span(),
            };
            return self.destructure(pat, place, stmts);
        }
        let Pat::Ident(binding) = pat else {
            return not_yet(pat, "patterns other than a name or a tuple in `let`");
        };
        if binding.by_ref.is_some() || binding.subpat.is_some() {
            return not_yet(pat, "`ref` bindings");
        }
        let init = match &local.init {
            Some(init) if init.diverge.is_some() => return not_yet(local, "`let ... else`"),
            Some(init) => Some(self.operand(&init.expr, stmts)?),
            None => None,
        };
        if binding.mutability.is_some() {
            let var = self.new_var(&binding.ident);
            stmts.push(Stmt::DeclareVar { var, init });
            self.bind(&binding.ident, Root::Var(var));
        } else {
            let Some(init) = init else {
                return not_yet(local, "`let` without a value");
            };
            let value = self.new_value(Some(binding.ident.clone()), binding.ident.span());
            stmts.push(Stmt::Let(Let {
                value,
                rvalue: Rvalue::Use(init),
                span: local.span(),
            }));
            self.bind(&binding.ident, Root::Value(value));
        }
        Ok(())
    }

    /// Binds the names of a tuple pattern to the parts of `place`, read into values (or
    /// copied into variables for `mut` names).
    fn destructure(&mut self, pat: &Pat, place: Place, stmts: &mut Vec<Stmt>) -> Lowered<()> {
        match pat {
            Pat::Tuple(tuple) => {
                if tuple
                    .elems
                    .iter()
                    .any(|element| matches!(element, Pat::Rest(_)))
                {
                    return not_yet(pat, "`..` in tuple patterns");
                }
                for (index, element) in tuple.elems.iter().enumerate() {
                    let mut part = place.clone();
                    part.projections
                        .push(Projection::Field(syn::Member::Unnamed(syn::Index {
                            index: index as u32,
                            span: element.span(),
                        })));
                    part.span = element.span();
                    self.destructure(element, part, stmts)?;
                }
                Ok(())
            }
            Pat::Paren(paren) => self.destructure(&paren.pat, place, stmts),
            Pat::Wild(_) => Ok(()),
            Pat::Ident(binding) if binding.by_ref.is_none() && binding.subpat.is_none() => {
                let span = binding.ident.span();
                let read = self.read(place, span, stmts);
                if binding.mutability.is_some() {
                    let var = self.new_var(&binding.ident);
                    stmts.push(Stmt::DeclareVar {
                        var,
                        init: Some(Operand::Value(read)),
                    });
                    self.bind(&binding.ident, Root::Var(var));
                } else {
                    let value = self.new_value(Some(binding.ident.clone()), span);
                    stmts.push(Stmt::Let(Let {
                        value,
                        rvalue: Rvalue::Use(Operand::Value(read)),
                        span,
                    }));
                    self.bind(&binding.ident, Root::Value(value));
                }
                Ok(())
            }
            other => not_yet(other, "this pattern"),
        }
    }

    /// An expression evaluated for its effect.
    fn effect(&mut self, expr: &Expr, stmts: &mut Vec<Stmt>) -> Lowered<()> {
        match expr {
            Expr::Assign(assign) => {
                let operand = self.operand(&assign.right, stmts)?;
                let place = self.assigned_place(&assign.left, stmts)?;
                stmts.push(Stmt::Assign {
                    place,
                    operand,
                    span: assign.span(),
                });
                Ok(())
            }
            Expr::Binary(binary) => match compound_op(&binary.op) {
                Some(op) => {
                    // On primitive operands (what `f64` code has) Rust evaluates the right
                    // operand first, then the place.
                    let right = self.operand(&binary.right, stmts)?;
                    let place = self.assigned_place(&binary.left, stmts)?;
                    let old = self.read(place.clone(), binary.left.span(), stmts);
                    let new = self.new_value(None, binary.span());
                    stmts.push(Stmt::Let(Let {
                        value: new,
                        rvalue: Rvalue::Binary(op, Operand::Value(old), right),
                        span: binary.span(),
                    }));
                    stmts.push(Stmt::Assign {
                        place,
                        operand: Operand::Value(new),
                        span: binary.span(),
                    });
                    Ok(())
                }
                None => self.value_of(expr, stmts).map(drop),
            },
            Expr::MethodCall(call)
                if call.method == "push" && call.args.len() == 1 && call.turbofish.is_none() =>
            {
                let place = self.place(&call.receiver, stmts)?;
                if !matches!(place.root, Root::Var(_)) {
                    return not_yet(&call.receiver, "`push` onto anything but a variable");
                }
                let operand = self.operand(&call.args[0], stmts)?;
                let index = self.new_value(None, call.span());
                stmts.push(Stmt::Push {
                    place,
                    operand,
                    index,
                    span: call.span(),
                });
                Ok(())
            }
            _ => self.value_of(expr, stmts).map(drop),
        }
    }

    /// An expression's value, `None` for `()`-valued control flow.
    fn value_of(&mut self, expr: &Expr, stmts: &mut Vec<Stmt>) -> Lowered<Option<Operand>> {
        match expr {
            Expr::If(expr_if) => self.lower_if(expr_if, stmts),
            Expr::ForLoop(for_loop) => self.lower_for(for_loop, stmts).map(|()| None),
            Expr::Loop(_) | Expr::While(_) => self.lower_loop(expr, stmts),
            Expr::Break(exit) => self
                .lower_loop_exit(exit.label.as_ref(), exit.expr.as_deref(), true, expr, stmts)
                .map(|()| None),
            Expr::Continue(exit) => self
                .lower_loop_exit(exit.label.as_ref(), None, false, expr, stmts)
                .map(|()| None),
            Expr::Return(exit) => self
                .lower_return(exit.expr.as_deref(), expr.span(), stmts)
                .map(|()| None),
            Expr::Block(block) if block.label.is_none() && block.attrs.is_empty() => {
                let lowered = self.block(&block.block)?;
                stmts.extend(lowered.stmts);
                Ok(lowered.result)
            }
            Expr::Assign(_) => self.effect(expr, stmts).map(|()| None),
            Expr::Binary(binary) if compound_op(&binary.op).is_some() => {
                self.effect(expr, stmts).map(|()| None)
            }
            _ => self.operand(expr, stmts).map(Some),
        }
    }

    fn operand(&mut self, expr: &Expr, stmts: &mut Vec<Stmt>) -> Lowered<Operand> {
        if !attributes_of(expr).is_empty() {
            return not_yet(expr, "attributes on expressions");
        }
        let span = expr.span();
        let rvalue = match expr {
            Expr::Paren(paren) => return self.operand(&paren.expr, stmts),
            Expr::Group(group) => return self.operand(&group.expr, stmts),
            Expr::Lit(lit) => return Ok(Operand::Constant(literal(&lit.lit))),
            Expr::Path(path) => {
                if path.qself.is_none() {
                    if let Some(ident) = path.path.get_ident() {
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
                return Ok(Operand::Constant(Constant {
                    tokens: path.to_token_stream(),
                    kind: ConstantKind::Path,
                    span,
                }));
            }
            Expr::Index(_) | Expr::Field(_) => {
                let place = self.place(expr, stmts)?;
                return Ok(Operand::Value(self.read(place, span, stmts)));
            }
            Expr::Unary(unary) => match unary.op {
                syn::UnOp::Neg(_) => Rvalue::Neg(self.operand(&unary.expr, stmts)?),
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
                        Rvalue::Binary(op, left, right)
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
                if call.turbofish.is_some() {
                    return not_yet(expr, "method calls with a turbofish");
                }
                let method = call.method.to_string();
                if let Some(rule) = FLOAT_METHODS
                    .iter()
                    .find(|rule| rule.method == method && rule.arity == call.args.len())
                {
                    let receiver = self.operand(&call.receiver, stmts)?;
                    let args = call
                        .args
                        .iter()
                        .map(|arg| self.operand(arg, stmts))
                        .collect::<Lowered<Vec<_>>>()?;
                    Rvalue::FloatMethod {
                        rule,
                        receiver,
                        args,
                        method: call.method.clone(),
                    }
                } else if DATA_METHODS.contains(&method.as_str()) {
                    let receiver = match self.place(&call.receiver, stmts) {
                        Ok(place) => Operand::Place(place),
                        Err(_) => self.operand(&call.receiver, stmts)?,
                    };
                    let args = call
                        .args
                        .iter()
                        .map(|arg| self.operand(arg, stmts))
                        .collect::<Lowered<Vec<_>>>()?;
                    Rvalue::DataMethod {
                        receiver,
                        method: call.method.clone(),
                        args,
                    }
                } else {
                    return not_yet(&call.method, "this method");
                }
            }
            Expr::Cast(cast) => Rvalue::Cast(self.operand(&cast.expr, stmts)?, (*cast.ty).clone()),
            Expr::Call(call) => self.call(call, stmts)?,
            Expr::Macro(mac) if mac.mac.path.is_ident("vec") => self.vec_macro(&mac.mac, stmts)?,
            Expr::Tuple(tuple) if !tuple.elems.is_empty() => Rvalue::Tuple(
                tuple
                    .elems
                    .iter()
                    .map(|element| self.operand(element, stmts))
                    .collect::<Lowered<Vec<_>>>()?,
            ),
            Expr::Reference(reference) => {
                if reference.mutability.is_some() {
                    return not_yet(expr, "`&mut` references");
                }
                Rvalue::Ref(Operand::Place(self.place(&reference.expr, stmts)?))
            }
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
                return not_yet(expr, "labeled blocks");
            }
            Expr::Loop(_) => {
                return match self.value_of(expr, stmts)? {
                    Some(operand) => Ok(operand),
                    None => not_yet(expr, "a `loop` without `break value` used as a value"),
                };
            }
            Expr::If(_) | Expr::Block(_) => {
                return match self.value_of(expr, stmts)? {
                    Some(operand) => Ok(operand),
                    None => not_yet(expr, "a `()`-valued block used as a value"),
                };
            }
            _ => return not_yet(expr, expression_kind(expr)),
        };
        let value = self.new_value(None, span);
        stmts.push(Stmt::Let(Let {
            value,
            rvalue,
            span,
        }));
        Ok(Operand::Value(value))
    }

    fn vec_macro(&mut self, mac: &syn::Macro, stmts: &mut Vec<Stmt>) -> Lowered<Rvalue> {
        let tokens = &mac.tokens;
        match syn::parse2::<Expr>(quote::quote!([#tokens])) {
            Ok(Expr::Repeat(repeat)) => {
                let element = self.operand(&repeat.expr, stmts)?;
                let count = self.operand(&repeat.len, stmts)?;
                Ok(Rvalue::VecRepeat(element, count))
            }
            Ok(Expr::Array(array)) => Ok(Rvalue::VecOf(
                array
                    .elems
                    .iter()
                    .map(|element| self.operand(element, stmts))
                    .collect::<Lowered<Vec<_>>>()?,
            )),
            _ => not_yet(mac, "this form of `vec!`"),
        }
    }

    fn call(&mut self, call: &syn::ExprCall, stmts: &mut Vec<Stmt>) -> Lowered<Rvalue> {
        let Expr::Path(func) = &*call.func else {
            return not_yet(&call.func, "calls of anything but a path");
        };
        if func.qself.is_some()
            || func
                .path
                .get_ident()
                .is_some_and(|ident| self.resolve(ident).is_some())
        {
            return not_yet(&call.func, "calls of closures and qualified paths");
        }
        let mut args = call
            .args
            .iter()
            .map(|arg| self.operand(arg, stmts))
            .collect::<Lowered<Vec<_>>>()?;
        let segments: Vec<String> = func
            .path
            .segments
            .iter()
            .map(|segment| segment.ident.to_string())
            .collect();
        match (segments.as_slice(), args.len()) {
            ([vec, new], 0) if vec == "Vec" && new == "new" => return Ok(Rvalue::EmptyVec(None)),
            ([vec, with], 1) if vec == "Vec" && with == "with_capacity" => {
                return Ok(Rvalue::EmptyVec(Some(args.remove(0))));
            }
            _ => {}
        }
        match classify_callee_path(&func.path) {
            Callee::FloatAssociated(name) if name == "from" && args.len() == 1 => {
                let float: syn::Type = syn::parse_quote!(f64);
                Ok(Rvalue::Cast(args.remove(0), float))
            }
            Callee::FloatAssociated(name) => {
                let method = name.to_string();
                match FLOAT_METHODS
                    .iter()
                    .find(|rule| rule.method == method && rule.arity + 1 == args.len())
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
                args,
            }),
            _ => not_yet(&call.func, "calls of this function"),
        }
    }

    /// `a && b` as `if a { b } else { false }`: `b` must not run when `a` is false.
    fn short_circuit(
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

    fn lower_if(
        &mut self,
        expr_if: &syn::ExprIf,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Operand>> {
        if matches!(&*expr_if.cond, Expr::Let(_)) || contains_let(&expr_if.cond) {
            return not_yet(&expr_if.cond, "`if let`");
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

    fn lower_for(&mut self, for_loop: &syn::ExprForLoop, stmts: &mut Vec<Stmt>) -> Lowered<()> {
        let span = for_loop.span();
        // A range is iterated as it is; a container (`&v`, `v.iter()`, `.copied()`,
        // `.enumerate()`, `.zip(..)`) by its indices, its elements read (or borrowed) from
        // it, so their adjoints go to the container's shadow.
        let (range, items) = match strip(&for_loop.expr) {
            Expr::Range(_) => (self.operand(&for_loop.expr, stmts)?, None),
            other => {
                let Some(items) = self.items(other) else {
                    return not_yet(&for_loop.expr, "`for` over this iterator");
                };
                let items = self.place_items(items, stmts)?;
                let mut length = None;
                for source in items.sources() {
                    let len = self.new_value(None, span);
                    stmts.push(Stmt::Let(Let {
                        value: len,
                        rvalue: Rvalue::DataMethod {
                            receiver: Operand::Place(source.clone()),
                            method: Ident::new("len", span),
                            args: Vec::new(),
                        },
                        span,
                    }));
                    length = Some(match length {
                        None => len,
                        Some(shorter) => {
                            let min = self.new_value(None, span);
                            stmts.push(Stmt::Let(Let {
                                value: min,
                                rvalue: Rvalue::DataMethod {
                                    receiver: Operand::Value(shorter),
                                    method: Ident::new("min", span),
                                    args: vec![Operand::Value(len)],
                                },
                                span,
                            }));
                            min
                        }
                    });
                }
                let Some(length) = length else {
                    return not_yet(&for_loop.expr, "`for` over this iterator");
                };
                let range = self.new_value(None, span);
                stmts.push(Stmt::Let(Let {
                    value: range,
                    rvalue: Rvalue::Range {
                        start: Some(Operand::Constant(Constant {
                            tokens: quote::quote_spanned!(span=> 0usize),
                            kind: ConstantKind::Data,
                            span,
                        })),
                        end: Some(Operand::Value(length)),
                        inclusive: false,
                    },
                    span,
                }));
                (Operand::Value(range), Some(items))
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
            if let Some(items) = &items {
                this.bind_items(&for_loop.pat, items, binding, &mut prelude)?;
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

    /// What a `for` over a container iterates, by syntax: `&v`, `v.iter()` (elements
    /// borrowed), `v.iter().copied()`/`.cloned()` (elements read), a parameter of a reference
    /// type, and `.enumerate()` and `.zip(..)` of those.
    fn items<'e>(&self, expr: &'e Expr) -> Option<Items<&'e Expr>> {
        match strip(expr) {
            Expr::Reference(reference) if reference.mutability.is_none() => Some(Items::Elements {
                source: &*reference.expr,
                by_reference: true,
            }),
            Expr::MethodCall(call) if call.turbofish.is_none() => {
                let method = call.method.to_string();
                match (method.as_str(), call.args.len()) {
                    ("iter", 0) => Some(Items::Elements {
                        source: &*call.receiver,
                        by_reference: true,
                    }),
                    ("copied" | "cloned", 0) => match strip(&call.receiver) {
                        Expr::MethodCall(inner)
                            if inner.method == "iter" && inner.args.is_empty() =>
                        {
                            Some(Items::Elements {
                                source: &*inner.receiver,
                                by_reference: false,
                            })
                        }
                        _ => None,
                    },
                    ("enumerate", 0) => {
                        Some(Items::Enumerated(Box::new(self.items(&call.receiver)?)))
                    }
                    ("zip", 1) => Some(Items::Zipped(
                        Box::new(self.items(&call.receiver)?),
                        Box::new(self.items(&call.args[0])?),
                    )),
                    _ => None,
                }
            }
            Expr::Path(path) => {
                let ident = path.path.get_ident()?;
                match self.resolve(ident)? {
                    Root::Value(value) if self.reference_params.contains(&value) => {
                        Some(Items::Elements {
                            source: expr,
                            by_reference: true,
                        })
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn place_items(&mut self, items: Items<&Expr>, stmts: &mut Vec<Stmt>) -> Lowered<Items<Place>> {
        Ok(match items {
            Items::Elements {
                source,
                by_reference,
            } => Items::Elements {
                source: self.place(source, stmts)?,
                by_reference,
            },
            Items::Enumerated(inner) => {
                Items::Enumerated(Box::new(self.place_items(*inner, stmts)?))
            }
            Items::Zipped(left, right) => Items::Zipped(
                Box::new(self.place_items(*left, stmts)?),
                Box::new(self.place_items(*right, stmts)?),
            ),
        })
    }

    /// Binds the loop pattern's names to the items of iteration `index`.
    fn bind_items(
        &mut self,
        pat: &Pat,
        items: &Items<Place>,
        index: Value,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        match (pat, items) {
            (Pat::Wild(_), _) => Ok(()),
            (Pat::Paren(paren), _) => self.bind_items(&paren.pat, items, index, stmts),
            (Pat::Tuple(tuple), Items::Enumerated(inner)) if tuple.elems.len() == 2 => {
                match &tuple.elems[0] {
                    Pat::Ident(name)
                        if name.by_ref.is_none()
                            && name.subpat.is_none()
                            && name.mutability.is_none() =>
                    {
                        self.bind(&name.ident, Root::Value(index));
                    }
                    Pat::Wild(_) => {}
                    other => return not_yet(other, "this index pattern"),
                }
                self.bind_items(&tuple.elems[1], inner, index, stmts)
            }
            (Pat::Tuple(tuple), Items::Zipped(left, right)) if tuple.elems.len() == 2 => {
                self.bind_items(&tuple.elems[0], left, index, stmts)?;
                self.bind_items(&tuple.elems[1], right, index, stmts)
            }
            (
                pat,
                Items::Elements {
                    source,
                    by_reference,
                },
            ) => {
                let span = pat.span();
                let mut element = source.clone();
                element
                    .projections
                    .push(Projection::Index(Operand::Value(index)));
                element.span = span;
                let (name, read) = match pat {
                    Pat::Reference(reference)
                        if *by_reference && reference.mutability.is_none() =>
                    {
                        match &*reference.pat {
                            Pat::Ident(name) if name.by_ref.is_none() && name.subpat.is_none() => {
                                (name, true)
                            }
                            Pat::Wild(_) => return Ok(()),
                            other => return not_yet(other, "this element pattern"),
                        }
                    }
                    Pat::Ident(name) if name.by_ref.is_none() && name.subpat.is_none() => {
                        (name, !*by_reference)
                    }
                    other => return not_yet(other, "this element pattern"),
                };
                let rvalue = if read {
                    Rvalue::Use(Operand::Place(element))
                } else {
                    Rvalue::Ref(Operand::Place(element))
                };
                let value = self.new_value(Some(name.ident.clone()), name.ident.span());
                stmts.push(Stmt::Let(Let {
                    value,
                    rvalue,
                    span,
                }));
                if name.mutability.is_some() {
                    let var = self.new_var(&name.ident);
                    stmts.push(Stmt::DeclareVar {
                        var,
                        init: Some(Operand::Value(value)),
                    });
                    self.bind(&name.ident, Root::Var(var));
                } else {
                    self.bind(&name.ident, Root::Value(value));
                }
                Ok(())
            }
            (other, _) => not_yet(other, "this loop pattern"),
        }
    }

    /// Reads a place into a fresh value.
    fn read(&mut self, place: Place, span: Span, stmts: &mut Vec<Stmt>) -> Value {
        let value = self.new_value(None, span);
        stmts.push(Stmt::Let(Let {
            value,
            rvalue: Rvalue::Use(Operand::Place(place)),
            span,
        }));
        value
    }

    fn place(&mut self, expr: &Expr, stmts: &mut Vec<Stmt>) -> Lowered<Place> {
        let span = expr.span();
        match expr {
            Expr::Paren(paren) => self.place(&paren.expr, stmts),
            Expr::Path(path) => {
                let root = path.path.get_ident().and_then(|ident| self.resolve(ident));
                match root {
                    Some(root) => Ok(Place {
                        root,
                        projections: Vec::new(),
                        span,
                    }),
                    None => not_yet(expr, "places outside the function's locals"),
                }
            }
            Expr::Index(index) => {
                let mut place = self.place(&index.expr, stmts)?;
                let at = self.operand(&index.index, stmts)?;
                place.projections.push(Projection::Index(at));
                place.span = span;
                Ok(place)
            }
            Expr::Field(field) => {
                let mut place = self.place(&field.base, stmts)?;
                place
                    .projections
                    .push(Projection::Field(field.member.clone()));
                place.span = span;
                Ok(place)
            }
            Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Deref(_)) => {
                let mut place = self.place(&unary.expr, stmts)?;
                place.projections.push(Projection::Deref);
                place.span = span;
                Ok(place)
            }
            _ => not_yet(expr, "this place"),
        }
    }

    fn assigned_place(&mut self, expr: &Expr, stmts: &mut Vec<Stmt>) -> Lowered<Place> {
        let place = self.place(expr, stmts)?;
        let indices_only = place
            .projections
            .iter()
            .all(|projection| matches!(projection, Projection::Index(_)));
        match place.root {
            Root::Var(_) if indices_only => Ok(place),
            Root::Var(_) => not_yet(expr, "writes to fields of a variable"),
            Root::Value(_) => not_yet(expr, "writes through a parameter or an immutable binding"),
        }
    }
}

fn literal(lit: &Lit) -> Constant {
    let kind = match lit {
        Lit::Float(_) => ConstantKind::Float,
        Lit::Int(int) if matches!(int.suffix(), "f32" | "f64") => ConstantKind::Float,
        _ => ConstantKind::Data,
    };
    Constant {
        tokens: lit.to_token_stream(),
        kind,
        span: lit.span(),
    }
}

fn arithmetic_op(op: &syn::BinOp) -> Option<BinaryOp> {
    Some(match op {
        syn::BinOp::Add(_) => BinaryOp::Add,
        syn::BinOp::Sub(_) => BinaryOp::Sub,
        syn::BinOp::Mul(_) => BinaryOp::Mul,
        syn::BinOp::Div(_) => BinaryOp::Div,
        syn::BinOp::Rem(_) => BinaryOp::Rem,
        _ => return None,
    })
}

fn compound_op(op: &syn::BinOp) -> Option<BinaryOp> {
    Some(match op {
        syn::BinOp::AddAssign(_) => BinaryOp::Add,
        syn::BinOp::SubAssign(_) => BinaryOp::Sub,
        syn::BinOp::MulAssign(_) => BinaryOp::Mul,
        syn::BinOp::DivAssign(_) => BinaryOp::Div,
        syn::BinOp::RemAssign(_) => BinaryOp::Rem,
        _ => return None,
    })
}

fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(paren) => strip(&paren.expr),
        Expr::Group(group) => strip(&group.expr),
        other => other,
    }
}

fn attributes_of(expr: &Expr) -> &[syn::Attribute] {
    match expr {
        Expr::Binary(e) => &e.attrs,
        Expr::Unary(e) => &e.attrs,
        Expr::MethodCall(e) => &e.attrs,
        Expr::Call(e) => &e.attrs,
        Expr::Block(e) => &e.attrs,
        Expr::If(e) => &e.attrs,
        Expr::ForLoop(e) => &e.attrs,
        Expr::Path(e) => &e.attrs,
        Expr::Lit(e) => &e.attrs,
        Expr::Index(e) => &e.attrs,
        Expr::Field(e) => &e.attrs,
        Expr::Cast(e) => &e.attrs,
        _ => &[],
    }
}

fn contains_let(expr: &Expr) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_let(&mut self, _: &'ast syn::ExprLet) {
            self.0 = true;
        }
    }
    let mut finder = Finder(false);
    finder.visit_expr(expr);
    finder.0
}

/// Whether a loop body leaves its iteration early (`break`, `continue`, `return`, `?`).
fn has_exits(body: &syn::Block) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
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
    }
    let mut finder = Finder(false);
    finder.visit_block(body);
    finder.0
}

/// What the IR engine calls an expression it does not lower yet.
fn expression_kind(expr: &Expr) -> &'static str {
    match expr {
        Expr::Array(_) => "array literals",
        Expr::Assign(_) => "assignments inside expressions",
        Expr::Async(_) | Expr::Await(_) => "`async`",
        Expr::Break(_) => "`break`",
        Expr::Closure(_) => "closures",
        Expr::Const(_) => "inline `const`",
        Expr::Continue(_) => "`continue`",
        Expr::ForLoop(_) => "loops used as values",
        Expr::Let(_) => "`let` in conditions",
        Expr::Loop(_) => "`loop`",
        Expr::Macro(_) => "macros",
        Expr::Match(_) => "`match`",
        Expr::Repeat(_) => "array repeat literals",
        Expr::Return(_) => "`return`",
        Expr::Struct(_) => "struct literals",
        Expr::Try(_) => "`?`",
        Expr::Tuple(_) => "tuples",
        Expr::Unsafe(_) => "`unsafe`",
        Expr::While(_) => "`while`",
        _ => "this expression",
    }
}

fn var_place(var: Var, span: Span) -> Place {
    Place {
        root: Root::Var(var),
        projections: Vec::new(),
        span,
    }
}

fn default_value(span: Span) -> Operand {
    Operand::Constant(Constant {
        tokens: quote::quote_spanned!(span=> ::core::default::Default::default()),
        kind: ConstantKind::Data,
        span,
    })
}

fn flag_value(value: bool, span: Span) -> Operand {
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

/// Whether the function body has a `return` (outside closures).
fn returns_early(body: &syn::Block) -> bool {
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
fn breaks_with_value(body: &syn::Block) -> bool {
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

/// Whether a statement may leave the block it is in early: a `return`, or a `break` or
/// `continue` whose loop is outside the statement.
fn leaves(stmt: &syn::Stmt) -> bool {
    struct Finder {
        found: bool,
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
    }
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
            self.found = true;
        }
        fn visit_expr_break(&mut self, exit: &'ast syn::ExprBreak) {
            if self.exits(exit.label.as_ref()) {
                self.found = true;
            }
            syn::visit::visit_expr_break(self, exit);
        }
        fn visit_expr_continue(&mut self, exit: &'ast syn::ExprContinue) {
            if self.exits(exit.label.as_ref()) {
                self.found = true;
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
    }
    let mut finder = Finder {
        found: false,
        inside: Vec::new(),
    };
    finder.visit_stmt(stmt);
    finder.found
}
