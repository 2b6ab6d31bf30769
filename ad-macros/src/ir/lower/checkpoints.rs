//! Inner `#[checkpoint]`s lowered into regions (`Stmt::Checkpoint`): on a `let`, a statement,
//! a block or an expression, and on a loop with a schedule (`every = k`,
//! `binomial, snapshots = s`).

use syn::visit::Visit;

use super::*;
use crate::attr::{self, CheckpointArgs};

impl Lowering {
    /// `#[checkpoint] let pat = init;` is `let pat = #[checkpoint] { init };`.
    pub(super) fn checkpointed_local(
        &mut self,
        local: &syn::Local,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        let mut local = local.clone();
        let attrs: Vec<syn::Attribute> = local
            .attrs
            .iter()
            .filter(|attr| attr::is_checkpoint(attr))
            .cloned()
            .collect();
        local.attrs.retain(|attr| !attr::is_checkpoint(attr));
        let Some(init) = local.init.as_mut().filter(|init| init.diverge.is_none()) else {
            return not_yet(&local, "a checkpointed `let` without a value");
        };
        let expr = &init.expr;
        *init.expr = syn::parse_quote_spanned!(expr.span()=> #(#attrs)* { #expr });
        self.local(&local, stmts)
    }

    /// An expression under `#[checkpoint]`: its code becomes a region, whose value (if any) is
    /// the expression's.
    pub(super) fn checkpointed(
        &mut self,
        expr: &Expr,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Operand>> {
        let span = expr.span();
        let args = {
            let cx = crate::ctxt::Ctxt::new();
            let args = attr::checkpoint_args(&cx, attributes_of(expr));
            let malformed = cx.has_errors();
            drop(cx.into_compile_errors());
            match args {
                Some(args) if !malformed => args,
                _ => return not_yet(expr, "this `#[checkpoint]`"),
            }
        };
        let inner = without_checkpoint(expr);
        let is_loop = match &inner {
            Expr::ForLoop(_) | Expr::Loop(_) => true,
            Expr::While(l) => !matches!(&*l.cond, Expr::Let(_)),
            _ => false,
        };
        if !matches!(args, CheckpointArgs::Region) && !is_loop {
            return not_yet(
                expr,
                "a checkpoint schedule (`every`, `binomial`) on anything but a loop: write \
                 `#[checkpoint]` alone on a `let`, a statement or a block",
            );
        }
        // The region is run again on its own, from its start to its end: no exit may leave
        // it (a loop's own `break` stays inside).
        if let Some(exit) = control::first_exit(&syn::Stmt::Expr(inner.clone(), None)) {
            return Err(NotYet {
                span: exit,
                what: "an exit out of a checkpointed region (it runs again on its own, from \
                       its start to its end): compute the value, and leave after the region",
            });
        }
        let schedule = match &args {
            CheckpointArgs::Region => None,
            CheckpointArgs::Every(count) => Some(Schedule::Every(self.operand(count, stmts)?)),
            CheckpointArgs::Binomial(count) => {
                Some(Schedule::Binomial(self.operand(count, stmts)?))
            }
        };
        let mut body_stmts = Vec::new();
        let result = self.scoped(|this| this.value_of(&inner, &mut body_stmts))?;
        let body = match schedule {
            None => Block {
                stmts: body_stmts,
                result,
            },
            // The loop alone: its range and flags are made before it, once.
            Some(_) => {
                let Some(Stmt::For { .. } | Stmt::Loop { .. }) = body_stmts.last() else {
                    return not_yet(expr, "a checkpointed loop with a value");
                };
                if result.is_some() {
                    return not_yet(expr, "a checkpointed loop with a value");
                }
                let the_loop = body_stmts.pop().expect("a loop");
                stmts.extend(body_stmts);
                Block {
                    stmts: vec![the_loop],
                    result: None,
                }
            }
        };
        let inputs = crate::ir::checkpoint::inputs(&body, schedule.as_ref());
        // Shared references only (`&mut` ones are variables): a copy of what one points to is
        // what the region reads through it, which nothing can change while it is borrowed.
        let borrowed: Vec<Value> = inputs
            .values
            .iter()
            .copied()
            .filter(|value| self.references.contains(value))
            .collect();
        let result = body.result.as_ref().map(|_| self.new_value(None, span));
        self.regions += 1;
        stmts.push(Stmt::Checkpoint {
            body,
            schedule,
            result,
            borrowed,
            span,
        });
        Ok(result.map(Operand::Value))
    }
}

/// How many inner `#[checkpoint]`s a body has.
pub(super) fn count(body: &syn::Block) -> usize {
    struct Count(usize);
    impl<'ast> Visit<'ast> for Count {
        fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
            if attr::is_checkpoint(attr) {
                self.0 += 1;
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut count = Count(0);
    count.visit_block(body);
    count.0
}

/// `#[checkpoint] s = e;` and `#[checkpoint] s += e;`: syn gives a statement's attributes to
/// its leftmost expression (`s`); the assignment is the region. The assignment with the
/// attribute moved onto it, when it has one.
pub(super) fn checkpointed_assignment(expr: &Expr) -> Option<Expr> {
    let mut statement = expr.clone();
    let left = match &mut statement {
        Expr::Assign(assign) => &mut assign.left,
        Expr::Binary(binary) if super::compound_op(&binary.op).is_some() => &mut binary.left,
        _ => return None,
    };
    let attrs = attributes_of_mut(left)?;
    if !attrs.iter().any(attr::is_checkpoint) {
        return None;
    }
    let moved: Vec<syn::Attribute> = attrs
        .iter()
        .filter(|attr| attr::is_checkpoint(attr))
        .cloned()
        .collect();
    attrs.retain(|attr| !attr::is_checkpoint(attr));
    attributes_of_mut(&mut statement)?.extend(moved);
    Some(statement)
}

/// Whether an expression carries an inner `#[checkpoint]` of its own.
pub(super) fn is_checkpointed(expr: &Expr) -> bool {
    attributes_of(expr).iter().any(attr::is_checkpoint)
}

fn without_checkpoint(expr: &Expr) -> Expr {
    let mut expr = expr.clone();
    if let Some(attrs) = attributes_of_mut(&mut expr) {
        attrs.retain(|attr| !attr::is_checkpoint(attr));
    }
    expr
}
