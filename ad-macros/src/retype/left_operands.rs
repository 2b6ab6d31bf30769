//! `k * v`, a float on the left of a value of a derived type, in forward mode: the type's
//! hidden method for the float's operator (`crate::left_operators`), and what the body shows
//! of which values are of derived types.

use proc_macro2::Span;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr};

use super::Retype;

impl Retype<'_> {
    /// `k op v` (a float on the left, a value of a derived type on the right) as a call of the
    /// type's hidden method for the float's operator, `v.ad_left_mul_f64(k)`, when the file
    /// differentiates `impl Op<Type> for f64` and the body shows both: a certain float on the
    /// left, a value of a user type on the right.
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
        let mut right = &*binary.right;
        while let Expr::Paren(paren) = right {
            right = &paren.expr;
        }
        let by_reference = matches!(right, Expr::Reference(_));
        let method = crate::source_facts::left_operator(None, operator, by_reference, span)?;
        if !self.holds_user_value(&binary.right) || !self.certainly_float(&binary.left) {
            return None;
        }
        self.visit_expr_mut(&mut binary.left);
        self.visit_expr_mut(&mut binary.right);
        self.lift_data(&mut binary.left);
        let (left, right) = (&binary.left, &binary.right);
        Some(syn::parse_quote_spanned!(span=> (#right).#method(#left)))
    }

    /// Whether `expr` is a value of a user type as far as the body shows: a `#[grad]`
    /// parameter, a local bound to one built from parts or computed from one by vector
    /// arithmetic, one built there, vector arithmetic on those, or a reference to one.
    pub(super) fn holds_user_value(&self, expr: &Expr) -> bool {
        let inner = strip(expr);
        let is_user_value = |name: &syn::Ident| {
            self.locals.user_values.contains(name)
                || self.locals.derived_results.contains(name)
                || self.locals.user_types.of_binding(name).is_some()
                || self.locals.user_types.is_built(name)
        };
        // `self.vel`: a field the derived type declares of a derived type.
        let derived_field = |field: &syn::ExprField| {
            self.field_type(field).is_some_and(|ty| match ty {
                syn::Type::Path(path) => path.path.segments.last().is_some_and(|last| {
                    crate::source_facts::defines_derived(&last.ident.to_string())
                }),
                _ => false,
            })
        };
        // `p.to_vec2()`, `Vec2::new(a, b)`: a function the file's `impl` blocks declare
        // returning a derived type.
        let derived_call = match inner {
            Expr::MethodCall(call) => {
                self.holds_user_value(&call.receiver)
                    && crate::source_facts::derived_result_of_method(&call.method.to_string())
                        .is_some()
            }
            Expr::Call(call) => matches!(&*call.func, Expr::Path(function)
                if function.qself.is_none()
                    && !function.path.get_ident().is_some_and(|name| {
                        self.locals.all.contains(name) && !self.locals.uncallable.contains(name)
                    })
                    && crate::source_facts::derived_result_of_call(&function.path).is_some()),
            _ => false,
        };
        crate::activity::vector_arithmetic(inner, &is_user_value)
            || self.builds_user_value(inner)
            || derived_call
            || matches!(inner, Expr::Field(field) if derived_field(field))
    }

    /// Whether `expr` is certainly a float (`left_operators::is_float_expression`), its names
    /// floats that no user value went into.
    fn certainly_float(&self, expr: &Expr) -> bool {
        crate::left_operators::is_float_expression(expr, &|leaf| match leaf {
            Expr::Path(path) => path.path.get_ident().is_some_and(|name| {
                self.locals.floats.contains(name)
                    && !self.locals.mixed_results.contains(name)
                    && !self.holds_user_value(leaf)
            }),
            // `self.mass`: a field the derived type declares a float.
            Expr::Field(field) => self
                .field_type(field)
                .is_some_and(|ty| crate::ast::float_of_type(&ty) == Some(self.float)),
            // `x[0]`: an element of a parameter holding floats that deep.
            Expr::Index(_) => {
                let Some((base, depth)) = crate::left_operators::indexed_base(leaf) else {
                    return false;
                };
                let Expr::Path(path) = strip(base) else {
                    return false;
                };
                path.path
                    .get_ident()
                    .and_then(|name| self.locals.float_containers.get(name))
                    .is_some_and(|nesting| *nesting == depth)
            }
            _ => false,
        })
    }

    /// The declared type of a field of a value of a derived type (`self.vel`, `p.pos.x`).
    /// The derived type of a binding (`self`, a `#[grad]` parameter) or of a field of one, as
    /// the file declares it.
    pub(super) fn derived_place_type(&self, expr: &Expr) -> Option<syn::Type> {
        match strip(expr) {
            Expr::Path(path) => {
                let binding = path.path.get_ident()?;
                let ty = self.locals.user_types.of_binding(binding)?.clone();
                Some(syn::Type::Path(syn::TypePath {
                    qself: None,
                    path: ty,
                }))
            }
            Expr::Field(field) => self.field_type(field),
            _ => None,
        }
    }

    pub(super) fn field_type(&self, field: &syn::ExprField) -> Option<syn::Type> {
        let syn::Member::Named(name) = &field.member else {
            return None;
        };
        let base = match strip(&field.base) {
            Expr::Path(path) => {
                let binding = path.path.get_ident()?;
                self.locals
                    .user_types
                    .of_binding(binding)?
                    .segments
                    .last()?
                    .ident
                    .to_string()
            }
            Expr::Field(inner) => match self.field_type(inner)? {
                syn::Type::Path(path) => path.path.segments.last()?.ident.to_string(),
                _ => return None,
            },
            _ => return None,
        };
        let ty = crate::source_facts::field_type(&base, &name.to_string())?;
        syn::parse_str(&ty).ok()
    }
}

/// `expr` without parentheses and a borrow around it.
fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(paren) => strip(&paren.expr),
        Expr::Reference(reference) => strip(&reference.expr),
        other => other,
    }
}
