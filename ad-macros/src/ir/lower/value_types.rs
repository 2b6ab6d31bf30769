//! What the body shows of a value's type: a derived type (by a local's binding, a container's
//! elements, a field the file's struct declares, what a function of the file returns), a
//! float, a nalgebra value. The lowering asks these before it picks an operator or a method's
//! derivative code.

use syn::Expr;

use super::desugar::linalg_from_fn;
use super::dispatch::*;
use super::*;

impl Lowering {
    /// The derived type of `expr`, lowered to `operand`, when the body shows it: a value built
    /// or named as one (`user_values`), by its name or as computed.
    pub(super) fn user_type_of(&self, expr: &Expr, operand: &Operand) -> Option<syn::Path> {
        if let Some(type_path) = self.user_type_written(expr) {
            return Some(type_path);
        }
        match operand {
            Operand::Value(value) => self.user_values.get(&Root::Value(*value)).cloned(),
            _ => None,
        }
    }

    /// The derived type of `expr` as the body (and its file) shows it: a local of one, an
    /// element of a `#[grad]` container of one, a field of one whose type the file's struct
    /// definition gives (`self.to` of a `Segment { from: V3, to: V3 }`).
    /// Whether `expr` is a field of a derived value that the file declares as a `Box`.
    pub(super) fn is_boxed_field(&self, expr: &Expr) -> bool {
        let Expr::Field(field) = strip(expr) else {
            return false;
        };
        let syn::Member::Named(name) = &field.member else {
            return false;
        };
        self.user_type_written(&field.base)
            .and_then(|base| Some(base.segments.last()?.ident.to_string()))
            .is_some_and(|base| crate::source_facts::field_is_boxed(&base, &name.to_string()))
    }

    pub(super) fn user_type_written(&self, expr: &Expr) -> Option<syn::Path> {
        // `*p` of a `p: &Point`: the value it borrows.
        let expr = match strip(expr) {
            Expr::Unary(syn::ExprUnary {
                op: syn::UnOp::Deref(_),
                expr,
                ..
            }) => expr,
            expr => expr,
        };
        if let Some(root) = self.local_named(expr) {
            if let Some(type_path) = self.user_values.get(&root) {
                return Some(type_path.clone());
            }
        }
        // `b` of `for b in state.iter_mut()`: it borrows an element of the container.
        if let Expr::Path(path) = expr {
            if let Some(Binding::Borrowed { place, .. }) =
                path.path.get_ident().and_then(|name| self.binding(name))
            {
                return self.element_type(place);
            }
        }
        match expr {
            // `xs[i]` of a `#[grad] xs: &[LogP]`.
            Expr::Index(index) => match strip(&index.expr) {
                // `self.layers[i]` of a struct declaring `layers: Vec<Layer>`.
                Expr::Field(field) => {
                    let syn::Member::Named(name) = &field.member else {
                        return None;
                    };
                    let base = self.user_type_written(&field.base)?;
                    let base = base.segments.last()?.ident.to_string();
                    let element =
                        crate::source_facts::field_element_type(&base, &name.to_string())?;
                    Some(syn::Ident::new(&element, name.span()).into())
                }
                _ => self
                    .local_named(&index.expr)
                    .and_then(|root| self.user_containers.get(&root).cloned()),
            },
            // A field of a derived type, not one of a primitive type (`self.mass`).
            Expr::Field(field) => match self.declared_field_type(field)? {
                syn::Type::Path(path)
                    if !path.path.get_ident().is_some_and(|name| {
                        crate::ast::FloatType::from_ident(name).is_some()
                            || crate::retype::INTEGER_TYPES.contains(&name.to_string().as_str())
                            || name == "bool"
                    }) =>
                {
                    Some(path.path)
                }
                _ => None,
            },
            // `p.to_vec2()`, `Vec2::new(a, b)`: what the file's `impl` blocks declare the
            // function returns, where that is a derived type.
            Expr::MethodCall(call) => {
                let result = match self.user_type_written(&call.receiver) {
                    Some(receiver) => crate::source_facts::derived_result_of(
                        &receiver.segments.last()?.ident.to_string(),
                        &call.method.to_string(),
                    ),
                    // Of a receiver whose type only rustc knows (not a float: `v.x.abs()`).
                    None if self.may_be_user_value(&call.receiver)
                        && !self.is_a_float(&call.receiver)
                        && !matches!(strip(&call.receiver), Expr::Field(field)
                            if self.declared_field_type(field).is_some()) =>
                    {
                        crate::source_facts::derived_result_of_method(&call.method.to_string())
                    }
                    None => None,
                }?;
                Some(syn::Ident::new(&result, call.method.span()).into())
            }
            Expr::Call(call) => {
                let Expr::Path(function) = strip(&call.func) else {
                    return None;
                };
                // `Vec2::new(..)`, or a free function of the file (`vec3(..)`), not a local.
                if function.qself.is_some() || self.local_named(&call.func).is_some() {
                    return None;
                }
                let result = crate::source_facts::derived_result_of_call(&function.path)?;
                let span = function.path.segments.last()?.ident.span();
                Some(syn::Ident::new(&result, span).into())
            }
            _ => None,
        }
    }

    /// The type the file's struct definition gives a field of a value of a derived type.
    pub(super) fn declared_field_type(&self, field: &syn::ExprField) -> Option<syn::Type> {
        let syn::Member::Named(name) = &field.member else {
            return None;
        };
        let base = self.user_type_written(&field.base)?;
        let base = base.segments.last()?.ident.to_string();
        let ty = crate::source_facts::field_type(&base, &name.to_string())?;
        syn::parse_str(&ty).ok()
    }

    /// Whether `expr` is certainly a float (`left_operators::is_float_expression`), its names
    /// float parameters or locals given a float.
    pub(super) fn is_a_float(&self, expr: &Expr) -> bool {
        crate::left_operators::is_float_expression(expr, &|leaf| match leaf {
            // `self.mass`: a field the derived type declares a float.
            Expr::Field(field) => self
                .declared_field_type(field)
                .is_some_and(|ty| crate::ast::float_of_type(&ty) == Some(self.float)),
            // `x[0]`, `rows[i][j]`: an element of a parameter holding floats that deep.
            Expr::Index(_) => {
                let Some((base, depth)) = crate::left_operators::indexed_base(leaf) else {
                    return false;
                };
                self.local_named(base)
                    .and_then(|root| self.float_containers.get(&root))
                    .is_some_and(|nesting| *nesting == depth)
            }
            _ => self
                .local_named(leaf)
                .is_some_and(|root| self.known_floats.contains(&root)),
        })
    }

    /// Whether `expr` is a value a method of a derived type returned (`user_results`), by
    /// its name or as the call.
    pub(super) fn may_be_user_result(&self, expr: &Expr, operand: &Operand) -> bool {
        if self.is_linalg_value(expr) {
            return true;
        }
        if matches!(operand, Operand::Value(value) if self.user_results.contains(&Root::Value(*value)))
        {
            return true;
        }
        match strip(expr) {
            Expr::Path(_) => self
                .local_named(expr)
                .is_some_and(|root| self.user_results.contains(&root)),
            Expr::MethodCall(_) | Expr::Reference(_) | Expr::Call(_) => {
                self.may_be_user_value(expr)
            }
            _ => false,
        }
    }

    /// The local `expr` names, bound to a whole value (not to a part of one, nor borrowing
    /// one: `let ref s = p.x;` is no value of `p`'s type).
    pub(super) fn local_named(&self, expr: &Expr) -> Option<Root> {
        let Expr::Path(path) = strip(expr) else {
            return None;
        };
        match self.binding(path.path.get_ident()?)? {
            Binding::Local(root) => Some(*root),
            _ => None,
        }
    }

    /// Whether `expr` is a nalgebra vector or matrix, or a factorization of one (as far as
    /// the body shows): a parameter of such a type, what a constructor builds, and what
    /// operators and the rules' methods that give matrices make of them.
    pub(super) fn is_linalg_value(&self, expr: &Expr) -> bool {
        match strip(expr) {
            Expr::Path(_) => self
                .local_named(expr)
                .is_some_and(|root| self.linalg_values.contains(&root)),
            Expr::Reference(reference) => self.is_linalg_value(&reference.expr),
            Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Neg(_)) => {
                self.is_linalg_value(&unary.expr)
            }
            Expr::Binary(binary) => match binary.op {
                syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Div(_) => {
                    self.is_linalg_value(&binary.left)
                }
                syn::BinOp::Mul(_) => {
                    self.is_linalg_value(&binary.left) || self.is_linalg_value(&binary.right)
                }
                _ => false,
            },
            Expr::MethodCall(call) => {
                gives_linalg_value(&call.method.to_string()) && self.is_linalg_value(&call.receiver)
            }
            Expr::Call(call) => matches!(&*call.func, Expr::Path(path)
                if linalg_constructor(&path.path, call.args.len()).is_some()
                    || linalg_from_fn(&path.path, call).is_some()),
            // `p.position` of a derived `p` whose struct gives the field a nalgebra type.
            Expr::Field(field) => {
                let syn::Member::Named(name) = &field.member else {
                    return false;
                };
                self.user_type_written(&field.base)
                    .and_then(|base| base.segments.last().map(|last| last.ident.to_string()))
                    .is_some_and(|base| {
                        crate::source_facts::field_is_linalg(&base, &name.to_string())
                    })
            }
            _ => false,
        }
    }

    /// Whether `expr` may be a value of a derived type the body does not show: a method of
    /// one returned it (`user_results`), or it is a part of a value of one (`self.left`),
    /// or a method of such a value (by its name, one of no float or `std` container)
    /// returned it. A method called on it is then the type's own, found on the value.
    pub(super) fn may_be_user_value(&self, expr: &Expr) -> bool {
        if self.is_linalg_value(expr) {
            return true;
        }
        match strip(expr) {
            Expr::Path(_) => self.local_named(expr).is_some_and(|root| {
                self.user_results.contains(&root) || self.user_values.contains_key(&root)
            }),
            Expr::Field(field) => self.may_be_user_value(&field.base),
            // A copy of one (`y.clone()`).
            Expr::MethodCall(call)
                if matches!(call.method.to_string().as_str(), "clone" | "to_owned")
                    && call.args.is_empty() =>
            {
                self.may_be_user_value(&call.receiver)
            }
            Expr::MethodCall(call) if gives_data(&call.method.to_string()) => false,
            Expr::MethodCall(call) => {
                self.may_be_user_value(&call.receiver)
                    && (is_user_method_name(&call.method.to_string(), call.args.len())
                        || is_linalg_method(&call.method.to_string(), call.args.len()))
            }
            Expr::Binary(binary) => {
                self.may_be_user_value(&binary.left)
                    // `2.0 * v` (`rmul`).
                    || (matches!(binary.op, syn::BinOp::Mul(_))
                        && self.may_be_user_value(&binary.right))
            }
            Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Neg(_)) => {
                self.may_be_user_value(&unary.expr)
            }
            // `&a + &b` of nalgebra values, borrowed as their operators take them.
            Expr::Reference(reference) => self.may_be_user_value(&reference.expr),
            Expr::Call(call) => {
                matches!(&*call.func, Expr::Path(path)
                if linalg_constructor(&path.path, call.args.len()).is_some()
                    || linalg_from_fn(&path.path, call).is_some())
                    || self.user_type_written(expr).is_some()
            }
            Expr::Struct(structure) => self.user_types.type_named(&structure.path).is_some(),
            _ => false,
        }
    }
}
