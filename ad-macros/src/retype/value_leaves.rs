//! The expressions whose value an expression takes (the tails of its blocks and branches),
//! and the values that meet in one type (an array's elements, an `if`'s or a `match`'s
//! branches): where the retyping lifts a constant so that every branch has the scalar type.

use syn::Expr;

/// The expressions whose value an expression takes: itself, or the tails of its blocks and
/// of the branches of its `if`s and `match`es.
pub(super) fn value_leaves(expr: &Expr) -> Vec<&Expr> {
    match expr {
        Expr::Block(block) => {
            crate::activity::block_value(&block.block).map_or_else(Vec::new, value_leaves)
        }
        Expr::If(inner) => {
            let mut leaves = crate::activity::block_value(&inner.then_branch)
                .map_or_else(Vec::new, value_leaves);
            if let Some((_, otherwise)) = &inner.else_branch {
                leaves.extend(value_leaves(otherwise));
            }
            leaves
        }
        Expr::Match(inner) => inner
            .arms
            .iter()
            .flat_map(|arm| value_leaves(&arm.body))
            .collect(),
        Expr::Paren(inner) => value_leaves(&inner.expr),
        _ => vec![expr],
    }
}

/// [`value_leaves`], to rewrite them; in the same order.
pub(super) fn value_leaves_mut(expr: &mut Expr) -> Vec<&mut Expr> {
    match expr {
        Expr::Block(block) => {
            block_tail_mut(&mut block.block).map_or_else(Vec::new, value_leaves_mut)
        }
        Expr::If(inner) => {
            let mut leaves =
                block_tail_mut(&mut inner.then_branch).map_or_else(Vec::new, value_leaves_mut);
            if let Some((_, otherwise)) = &mut inner.else_branch {
                leaves.extend(value_leaves_mut(otherwise));
            }
            leaves
        }
        Expr::Match(inner) => inner
            .arms
            .iter_mut()
            .flat_map(|arm| value_leaves_mut(&mut arm.body))
            .collect(),
        Expr::Paren(inner) => value_leaves_mut(&mut inner.expr),
        _ => vec![expr],
    }
}

fn block_tail_mut(block: &mut syn::Block) -> Option<&mut Expr> {
    match block.stmts.last_mut() {
        Some(syn::Stmt::Expr(expr, None)) => Some(expr),
        _ => None,
    }
}

/// The values that meet in one type in `expr`: an array's elements, or the branches of an
/// `if` or a `match`.
pub(super) fn joined_values(expr: &Expr) -> Vec<&Expr> {
    match expr {
        Expr::Array(array) => array.elems.iter().flat_map(value_leaves).collect(),
        Expr::If(_) | Expr::Match(_) => value_leaves(expr),
        _ => Vec::new(),
    }
}

/// [`joined_values`], to rewrite them; in the same order.
pub(super) fn joined_values_mut(expr: &mut Expr) -> Vec<&mut Expr> {
    match expr {
        Expr::Array(array) => array.elems.iter_mut().flat_map(value_leaves_mut).collect(),
        Expr::If(_) | Expr::Match(_) => value_leaves_mut(expr),
        _ => Vec::new(),
    }
}
