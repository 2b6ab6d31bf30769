//! What the backward sweep reads of the forward sweep's values, and how it gets each one
//! back: a value of the function's top level is captured once; one defined inside a loop or a
//! branch is kept on a stack per run of its definition, unless it is cheap to compute again
//! from what the backward sweep has anyway (the store-or-recompute choice Tapenade and Enzyme
//! make). `-(x - 1.0)` inside a loop over a parameter `x` is recomputed at each backward
//! iteration instead of pushed and popped; so are the bindings of loops over ranges (the
//! backward loop counts down from the forward loop's trip count) and index arithmetic on them.

use std::collections::{HashMap, HashSet};

use super::*;

/// The optimizations of reverse mode's residuals, each of which can be switched off: the
/// derivatives must not change.
#[derive(Clone, Copy)]
pub struct Passes {
    /// Recompute cheap values inside loops and branches instead of keeping them.
    pub recompute: bool,
    /// Reserve the stacks of a loop over a range once, for its trip count.
    pub reserve: bool,
    /// Read a place once while nothing writes to it (`ir::reads`).
    pub reuse_reads: bool,
    /// Keep the linear map a float method's rule gives (`exp`'s is its value) rather than its
    /// operands, from which the backward sweep would compute the rule again.
    pub keep_linear_maps: bool,
}

impl Passes {
    /// All on, unless the environment variable `AD_IR_PASSES` is `off` when the macro runs
    /// (to check that a pass changes no derivative).
    pub fn from_environment() -> Passes {
        let on = std::env::var("AD_IR_PASSES").map_or(true, |value| value != "off");
        Passes {
            recompute: on,
            reserve: on,
            reuse_reads: on,
            keep_linear_maps: on,
        }
    }
}

#[derive(Clone, Copy)]
pub struct RangeBounds<'b> {
    pub start: &'b Operand,
    pub end: &'b Operand,
    pub inclusive: bool,
}

pub struct Residuals<'b> {
    passes: Passes,
    /// How deep in loops and branches each value is defined (0: the function's top level).
    depth: HashMap<Value, usize>,
    /// The operation that defines each value defined by a `Let`.
    definitions: HashMap<Value, &'b Rvalue>,
    /// The parameters held by reference that the pullback may borrow (in the borrowed
    /// companion): their elements are read again rather than kept.
    borrowable: HashSet<Value>,
    /// The binding of each `for` over a range `start..end` (or `start..=end`), and its bounds:
    /// the `k`-th iteration binds `start + k`, of the type of `end`.
    range_bounds: HashMap<Value, RangeBounds<'b>>,
}

impl<'b> Residuals<'b> {
    pub fn new(body: &'b Body, passes: Passes, borrowable: HashSet<Value>) -> Self {
        let mut residuals = Residuals {
            passes,
            borrowable,
            depth: HashMap::new(),
            definitions: HashMap::new(),
            range_bounds: HashMap::new(),
        };
        for root in &body.params {
            if let Root::Value(value) = root {
                residuals.depth.insert(*value, 0);
            }
        }
        residuals.visit(&body.block, 0);
        residuals
    }

    pub fn passes(&self) -> Passes {
        self.passes
    }

    fn visit(&mut self, block: &'b Block, depth: usize) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let(Let { value, rvalue, .. }) => {
                    self.depth.insert(*value, depth);
                    self.definitions.insert(*value, rvalue);
                }
                Stmt::Push { index, .. } => {
                    self.depth.insert(*index, depth);
                }
                Stmt::If {
                    then_branch,
                    else_branch,
                    result,
                    ..
                } => {
                    if let Some(result) = result {
                        self.depth.insert(*result, depth);
                    }
                    self.visit(then_branch, depth + 1);
                    self.visit(else_branch, depth + 1);
                }
                Stmt::For {
                    binding,
                    range,
                    body,
                    ..
                } => {
                    self.depth.insert(*binding, depth + 1);
                    if let Operand::Value(range) = range {
                        if let Some(Rvalue::Range {
                            start: Some(start),
                            end: Some(end),
                            inclusive,
                        }) = self.definitions.get(range)
                        {
                            // A bound that is a value gives the backward sweep the binding's
                            // type; literals alone would be typed afresh there.
                            let typed = matches!(start, Operand::Value(_))
                                || matches!(end, Operand::Value(_));
                            let bounds = RangeBounds {
                                start,
                                end,
                                inclusive: *inclusive,
                            };
                            if typed {
                                self.range_bounds.insert(*binding, bounds);
                            }
                        }
                    }
                    self.visit(body, depth + 1);
                }
                Stmt::Loop { body, .. } => self.visit(body, depth + 1),
                Stmt::DeclareVar { .. } | Stmt::Assign { .. } => {}
            }
        }
    }

    /// Whether the backward sweep computes `value` again where it would take it back: it is
    /// defined inside a loop or a branch by cheap arithmetic whose operands are constants,
    /// values of the top level (captured anyway) or values recomputed themselves.
    pub fn recomputes(&self, value: Value) -> bool {
        if !self.passes.recompute || self.depth.get(&value).is_none_or(|depth| *depth == 0) {
            return false;
        }
        if let Some(bounds) = self.range_bounds.get(&value) {
            return self.available(bounds.start) && self.available(bounds.end);
        }
        let Some(rvalue) = self.definitions.get(&value) else {
            return false;
        };
        if matches!(rvalue, Rvalue::Use(Operand::Place(_))) && !self.reads_parameter(value) {
            return false;
        }
        match operands_read_again(rvalue) {
            Some(operands) => operands.into_iter().all(|operand| self.available(operand)),
            None => false,
        }
    }

    /// Whether the backward sweep has `operand` without keeping it: a constant, a value of
    /// the top level (captured), or one it computes again.
    fn available(&self, operand: &Operand) -> bool {
        match operand {
            Operand::Constant(_) => true,
            Operand::Value(value) => self.depth.get(value) == Some(&0) || self.recomputes(*value),
            Operand::Place(_) => false,
        }
    }

    /// The bounds of the range a recomputed loop binding runs over.
    pub fn range_bounds(&self, binding: Value) -> Option<RangeBounds<'b>> {
        self.range_bounds.get(&binding).copied()
    }

    /// The bounds to compute the trip count of a `for` over a range from, when the backward
    /// sweep has them and the loop cannot be left early: its count is the range's length,
    /// and need not be kept.
    pub fn count_bounds(&self, stmt: &Stmt) -> Option<RangeBounds<'b>> {
        let Stmt::For {
            binding,
            flags: None,
            ..
        } = stmt
        else {
            return None;
        };
        let bounds = self.range_bounds(*binding)?;
        (self.passes.recompute && self.available(bounds.start) && self.available(bounds.end))
            .then_some(bounds)
    }

    /// Whether `value` is read from a parameter the pullback may borrow.
    pub fn reads_parameter(&self, value: Value) -> bool {
        matches!(
            self.definitions.get(&value),
            Some(Rvalue::Use(Operand::Place(Place { root: Root::Value(root), .. })))
                if self.borrowable.contains(root)
        )
    }

    /// The operation that defines `value`, for the backward sweep to compute it again.
    pub fn definition(&self, value: Value) -> Option<&'b Rvalue> {
        self.definitions.get(&value).copied()
    }
}

/// What the backward sweep reads to compute an operation again, for the operations it may
/// compute again: cheap arithmetic, a copy, and an element of a parameter (its indices; the
/// borrowed companion's pullback borrows the parameter itself). `None` for any other.
pub fn operands_read_again(rvalue: &Rvalue) -> Option<Vec<&Operand>> {
    match rvalue {
        Rvalue::Use(Operand::Place(place)) => Some(
            place
                .projections
                .iter()
                .filter_map(|projection| match projection {
                    Projection::Index(index) => Some(index),
                    Projection::Field(_) | Projection::Deref => None,
                })
                .collect(),
        ),
        Rvalue::Use(operand) | Rvalue::Neg(operand) | Rvalue::Cast(operand, _) => {
            Some(vec![operand])
        }
        Rvalue::Binary(BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul, left, right) => {
            Some(vec![left, right])
        }
        _ => None,
    }
}
