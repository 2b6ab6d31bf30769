//! `k * v`, a float on the left of a value of a derived type, in forward mode: the type's
//! hidden method for the float's operator (`crate::left_operators`), and what the body shows
//! of which values are of derived types.

use proc_macro2::Span;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr};

use super::Retype;

impl Retype<'_> {
    /// `k op v` (a float on the left, a value of a derived type on the right) as a call of the
    /// type's hidden method for the float's operator, `v.ad_left_op(k)`, when the file
    /// differentiates `impl Op<Type> for f64`.
    pub(super) fn left_operator(
        &mut self,
        binary: &mut syn::ExprBinary,
        span: Span,
    ) -> Option<Expr> {
        let operator = match binary.op {
            BinOp::Add(_) => "add",
            BinOp::Sub(_) => "sub",
            BinOp::Mul(_) => "mul",
            BinOp::Div(_) => "div",
            _ => return None,
        };
        if !crate::source_facts::left_operator(None, operator)
            || !self.holds_user_value(&binary.right)
            || self.holds_user_value(&binary.left)
            || !self.locals.may_be_float(&binary.left)
        {
            return None;
        }
        self.visit_expr_mut(&mut binary.left);
        self.visit_expr_mut(&mut binary.right);
        self.lift_data(&mut binary.left);
        let (left, right) = (&binary.left, &binary.right);
        let method = crate::left_operators::method_name(operator, span);
        Some(syn::parse_quote_spanned!(span=> (#right).#method(#left)))
    }

    /// Whether `expr` is a value of a user type as far as the body shows: a `#[grad]`
    /// parameter, a local bound to one built or computed by operators, one built there, or a
    /// reference to one.
    pub(super) fn holds_user_value(&self, expr: &Expr) -> bool {
        let mut inner = expr;
        loop {
            match inner {
                Expr::Paren(paren) => inner = &paren.expr,
                Expr::Reference(reference) => inner = &reference.expr,
                _ => break,
            }
        }
        let name = match inner {
            Expr::Path(path) => path.path.get_ident(),
            _ => None,
        };
        name.is_some_and(|name| {
            self.locals.user_values.contains(name)
                || self.locals.user_types.of_binding(name).is_some()
                || self.locals.user_types.is_built(name)
        }) || self.builds_user_value(inner)
    }
}
