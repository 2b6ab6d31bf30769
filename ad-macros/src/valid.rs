//! Walks the whole body and reports every construct the derivative code cannot be built from,
//! each spanned on the construct with what to do instead. One rule per function.

use syn::visit::Visit;
use syn::{Expr, Lit, Macro, Pat, Type};

use crate::ast::{float_of_type, FloatType, Function, ParamKind};
use crate::ctxt::Ctxt;
use crate::macros::{self, MacroArgs};

pub fn check_body(cx: &Ctxt, function: &Function) {
    let differentiated_receiver = function
        .params
        .iter()
        .any(|param| param.receiver && param.user_type.is_some());
    let mut checker = BodyChecker {
        cx,
        float: function.float,
        differentiated_receiver,
    };
    checker.visit_block(&function.item.block);
    refuse_floats_stored_in_data_self(cx, function);
}

/// A `&mut self` method of a type without the derive (its fields are data) that stores a float
/// carrying derivatives in a field (TheAlgorithms' `Adam::step`: `self.m[i] = b * self.m[i] +
/// g[i]`): the derivative would be lost with the data, so one message at the assignment.
fn refuse_floats_stored_in_data_self(cx: &Ctxt, function: &Function) {
    let data_self = function
        .params
        .iter()
        .any(|param| param.receiver && param.kind == ParamKind::Data && param.is_mut_reference());
    if !data_self {
        return;
    }
    let locals = crate::activity::Locals::analyze(function);
    let differentiated: Vec<&syn::Ident> = function
        .params
        .iter()
        .filter(|param| param.kind == ParamKind::Differentiated)
        .map(|param| &param.name)
        .collect();
    let carries_derivatives = |expr: &syn::Expr| {
        crate::retype::mentions_name(expr, &|name| {
            differentiated.contains(&name) || locals.floats.contains(name)
        })
    };
    struct Stores<'a> {
        carries_derivatives: &'a dyn Fn(&syn::Expr) -> bool,
        found: Option<proc_macro2::TokenStream>,
    }
    impl Stores<'_> {
        fn store(&mut self, target: &syn::Expr, value: &syn::Expr) {
            if roots_at_self(target) && (self.carries_derivatives)(value) {
                self.found
                    .get_or_insert_with(|| quote::ToTokens::to_token_stream(target));
            }
        }
    }
    impl<'ast> Visit<'ast> for Stores<'_> {
        fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
            self.store(&assign.left, &assign.right);
            syn::visit::visit_expr_assign(self, assign);
        }
        fn visit_expr_binary(&mut self, binary: &'ast syn::ExprBinary) {
            if crate::activity::is_any_compound_assignment(&binary.op) {
                self.store(&binary.left, &binary.right);
            }
            syn::visit::visit_expr_binary(self, binary);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    fn roots_at_self(target: &syn::Expr) -> bool {
        match target {
            syn::Expr::Field(field) => roots_at_self(&field.base),
            syn::Expr::Index(index) => roots_at_self(&index.expr),
            syn::Expr::Paren(paren) => roots_at_self(&paren.expr),
            syn::Expr::Unary(unary) => roots_at_self(&unary.expr),
            syn::Expr::Path(path) => path.path.is_ident("self"),
            _ => false,
        }
    }
    let mut stores = Stores {
        carries_derivatives: &carries_derivatives,
        found: None,
    };
    stores.visit_block(&function.item.block);
    if let Some(target) = stores.found {
        cx.syn_error(syn::Error::new_spanned(
            target,
            "this stores a float carrying derivatives in a field of `self`, whose type does not \
             derive `Differentiable` (its fields are data, and the derivative would be lost): \
             derive `Differentiable` for the type (`#[no_grad]` on the fields that are data), \
             or keep the value in a local",
        ));
    }
}

/// `&mut` parameters carrying floats are taken by the IR engine only: their `_vjp` takes the
/// cotangent of the final contents and gives the adjoint of the initial ones (DESIGN.md,
/// section 7). Where it does not take the function (or a `#[checkpoint]` function, which would
/// have to keep copies of them, or a `&mut self` method), one message for the function.
pub fn refuse_mut_params(
    cx: &Ctxt,
    function: &Function,
    macro_name: &str,
    calls: crate::expand::reverse::Calls,
) -> bool {
    let Some(param) = function.params.iter().find(|param| param.is_in_out()) else {
        return false;
    };
    if param.receiver && calls == crate::expand::reverse::Calls::Checkpointed {
        cx.error_spanned_by(
            &param.name,
            format!(
                "#[{macro_name}]: reverse mode does not take `&mut self` methods yet; #[forward] \
                 alone takes them (its `_jvp` takes the tangent of `self` as `&mut Self` too), or \
                 return the new value"
            ),
        );
        return true;
    }
    let why = if calls == crate::expand::reverse::Calls::Checkpointed {
        "a #[checkpoint] function, which keeps copies of its arguments to run again, does not \
         take `&mut` parameters yet; write #[reverse], which does"
    } else if cx.has_errors() {
        return false;
    } else {
        match crate::expand::reverse_ir::companion_body(function, true) {
            Ok(_) => return false,
            Err(not_yet) => {
                cx.syn_error(syn::Error::new(
                    not_yet.span,
                    format!(
                        "#[{macro_name}]: with a `&mut` parameter (`{}`), reverse mode does not \
                         take {} yet; #[forward] alone takes the function (its `_jvp` takes the \
                         tangent as `&mut` too), or return the new values",
                        param.name, not_yet.what
                    ),
                ));
                return true;
            }
        }
    };
    cx.error_spanned_by(
        &param.ty,
        format!(
            "#[{macro_name}]: `{}` is written in place: {why}",
            param.name
        ),
    );
    true
}

/// `#[grad]` slices, `Vec`s and arrays of derived types (`bodies: &[Body]`): where the engine
/// does not take the function, one message that says what it stopped at.
pub fn refuse_user_containers(cx: &Ctxt, function: &Function, macro_name: &str) {
    let Some(param) = function
        .params
        .iter()
        .find(|param| param.is_user_container())
    else {
        return;
    };
    if cx.has_errors() {
        return;
    }
    if let Err(not_yet) = crate::expand::reverse_ir::companion_body(function, true) {
        let element = param
            .user_type
            .as_ref()
            .map(|path| quote::quote!(#path).to_string());
        let element = element.unwrap_or_default().replace(' ', "");
        // Neither mode knows an element's type from the syntax, so neither takes its methods
        // called with a dot; both take them called by path.
        let advice = match not_yet.what {
            "this method" => format!(
                "a method of `{element}` called on an element is taken by its path \
                 (`{element}::method(&{}[i])`, `{element}::method(b)`)",
                param.name
            ),
            _ => "write it another way, or use #[forward], which takes the function".to_string(),
        };
        cx.syn_error(syn::Error::new(
            not_yet.span,
            format!(
                "#[{macro_name}]: with a #[grad] container of a derived type (`{}`), reverse \
                 mode does not take {} yet; {advice}",
                param.name, not_yet.what
            ),
        ));
    }
}

/// Reverse mode returns one float and takes float scalars for now: `_vjp` takes its cotangent
/// as a scalar and returns one adjoint per float parameter. (`&mut` parameters have their
/// message from [`refuse_mut_params`].)
/// Returns the positions of the parameters refused.
pub fn check_reverse_signature(cx: &Ctxt, function: &Function) -> Vec<usize> {
    let mut refused = Vec::new();
    for (position, param) in function.params.iter().enumerate() {
        if param.kind != crate::ast::ParamKind::Data
            && !param.is_mut_reference()
            && param.user_type.is_none()
            && !param.is_scalar()
            && !param.is_flat_vector()
            && !param.is_nested_vector()
            && param.scalar_tuple_len().is_none()
            && !holds_floats_the_types_follow(&param.ty)
            && !crate::ast::is_linalg_type(&param.ty)
            && !lends_floats(&param.ty)
        {
            cx.error_spanned_by(
                &param.ty,
                format!(
                    "reverse mode cannot differentiate parameters of type `{}` yet; it takes `{}` \
                     scalars, those in slices, `Vec`s, arrays and tuples nested any deep \
                     (`&[Vec<f64>]`, `&(f64, Vec<f64>)`), and `#[grad]` parameters of types that \
                     derive `Differentiable` (use #[forward] for other types)",
                    crate::ast::type_to_string(&param.ty),
                    function.float.name()
                ),
            );
            refused.push(position);
        }
    }
    if let Some(ty) = function.output() {
        let supported = float_of_type(ty).is_some()
            || crate::ast::first_float_in(ty).is_none()
            || is_scalar_tuple(ty)
            || (!matches!(ty, syn::Type::Reference(_))
                && crate::ast::container_element(ty)
                    .is_some_and(|element| float_of_type(element).is_some()))
            || crate::ast::is_vec_of_float_rows(ty)
            || made_of_floats(ty)
            // A nalgebra vector or matrix (`_vjp` takes a cotangent of its type).
            || (!matches!(ty, syn::Type::Reference(_)) && crate::ast::is_linalg_type(ty))
            || crate::ast::option_content(ty).is_some_and(|inner| float_of_type(inner).is_some());
        // A result that is not made of floats at all has its message already (`ast.rs`).
        if !supported && crate::ast::is_float_shaped(ty) {
            cx.error_spanned_by(
                ty,
                format!(
                    "#[reverse] functions return a `{0}`, an `Option<{0}>`, a tuple of `{0}`s, \
                     a `Vec<{0}>` or an array of them, or a `Vec` of such rows \
                     (`Vec<Vec<{0}>>`); return other containers from a #[forward] function",
                    function.float.name()
                ),
            );
        }
    }
    refused
}

/// Slices, `Vec`s and arrays of tuples of floats (`&[(f64, f64)]`, `Vec<(f64, [f64; 2])>`): the
/// IR engine follows them by their types (`ad_runtime::adjoint::Diff`).
fn holds_floats_the_types_follow(ty: &syn::Type) -> bool {
    fn element_ok(ty: &syn::Type) -> bool {
        match ty {
            syn::Type::Tuple(tuple) => {
                !tuple.elems.is_empty() && tuple.elems.iter().all(element_ok)
            }
            syn::Type::Array(array) => element_ok(&array.elem),
            _ => float_of_type(ty).is_some(),
        }
    }
    crate::ast::container_element(ty).is_some_and(element_ok)
}

/// Floats in owned containers and tuples, nested (`[[f64; 2]; 2]`, `(f64, Vec<f64>)`,
/// `Vec<Vec<Vec<f64>>>`): a result the IR engine takes by its type, its cotangent of the same
/// type.
fn made_of_floats(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Tuple(tuple) => {
            !tuple.elems.is_empty() && tuple.elems.iter().all(made_of_floats)
        }
        syn::Type::Array(array) => made_of_floats(&array.elem),
        syn::Type::Paren(paren) => made_of_floats(&paren.elem),
        syn::Type::Reference(_) => false,
        _ if float_of_type(ty).is_some() => true,
        _ => {
            crate::ast::is_vec_type(ty)
                && crate::ast::container_element(ty).is_some_and(made_of_floats)
        }
    }
}

/// A container of floats nested any deep, owned or behind a shared reference (`&[Vec<Vec<f64>>]`,
/// `&(f64, Vec<f64>)`): a parameter the IR engine takes by its type.
fn lends_floats(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(reference) if reference.mutability.is_none() => {
            match &*reference.elem {
                syn::Type::Slice(slice) => made_of_floats(&slice.elem),
                elem => made_of_floats(elem),
            }
        }
        ty => made_of_floats(ty),
    }
}

fn is_scalar_tuple(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Tuple(tuple)
        if !tuple.elems.is_empty() && tuple.elems.iter().all(|elem| float_of_type(elem).is_some()))
}

struct BodyChecker<'a> {
    cx: &'a Ctxt,
    float: FloatType,
    /// A method whose `self` is differentiated: in its derivative code `Self`'s values are
    /// twins, which the method cannot name as `Self`.
    differentiated_receiver: bool,
}

impl BodyChecker<'_> {
    fn refuse_async(&self, tokens: impl quote::ToTokens) {
        self.cx.error_spanned_by(
            tokens,
            "async code cannot be differentiated; compute the value in a plain function",
        );
    }

    /// Unsafe code may reinterpret floats as bits, which has no derivative.
    fn refuse_unsafe(&self, expr: &syn::ExprUnsafe) {
        self.cx.error_spanned_by(
            expr.unsafe_token,
            "unsafe blocks cannot be differentiated; move the unsafe code into a function that \
             is not differentiated and pass it data only",
        );
    }

    /// A macro's expansion is invisible to an attribute macro, so only macros whose arguments
    /// are plain expressions can be rewritten.
    fn check_macro(&mut self, mac: &Macro) {
        let name = mac.path.get_ident().map(ToString::to_string);
        let crates_own = name
            .as_ref()
            .is_some_and(|name| crate::source_facts::macro_definitions().contains_key(name));
        if crates_own && !macros::is_supported(mac) {
            // `user_macros` expanded the call, or said why not.
            return;
        }
        if !macros::is_supported(mac) {
            self.cx.error_spanned_by(
                &mac.path,
                format!(
                    "macro `{}!` cannot be used in differentiated code: its expansion is not \
                     visible to the derivative; supported macros are {} and the `macro_rules!` \
                     macros of the function's file",
                    macro_path(mac),
                    macros::supported_list()
                ),
            );
            return;
        }
        match MacroArgs::parse_from(mac) {
            Ok(args) => {
                for expr in args.exprs() {
                    self.visit_expr(expr);
                }
            }
            Err(error) => self.cx.syn_error(syn::Error::new(
                error.span(),
                format!(
                    "cannot read the arguments of `{}!` as expressions: {error}",
                    macros::name(mac).unwrap_or_default()
                ),
            )),
        }
    }

    /// Derivative code has one scalar type; a second float type would need conversions the
    /// derivative cannot follow.
    fn check_float_type_mention(&self, tokens: impl quote::ToTokens, float: FloatType) {
        if float != self.float {
            self.cx.error_spanned_by(
                tokens,
                format!(
                    "this function computes in `{}`; using `{}` here mixes float types, which \
                     differentiated code does not support",
                    self.float.name(),
                    float.name()
                ),
            );
        }
    }

    /// A float pattern compares the value with `==` hidden in the match; the scalar type of
    /// derivative code is not a primitive, so it cannot appear in a pattern.
    fn refuse_float_pattern(&self, lit: &syn::PatLit) {
        self.cx.error_spanned_by(
            lit,
            "matching on float literals is not supported; compare with `if x == ...` instead",
        );
    }
}

fn macro_path(mac: &Macro) -> String {
    let path = &mac.path;
    quote::quote!(#path).to_string().replace(' ', "")
}

impl BodyChecker<'_> {
    fn refuse_self_path(&self, path: &syn::Path) {
        if self.differentiated_receiver
            && path.leading_colon.is_none()
            && path.segments.len() <= 2
            && path.segments[0].ident == "Self"
        {
            self.cx.error_spanned_by(
                path,
                "a differentiated method cannot name `Self` in a pattern or to build a value \
                 yet; write the type's name in a free function that takes the value as a \
                 `#[grad]` parameter, and call it from the method",
            );
        }
    }
}

impl<'ast> Visit<'ast> for BodyChecker<'_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        match expr {
            Expr::Struct(structure) => self.refuse_self_path(&structure.path),
            Expr::Path(path) if path.path.segments.len() == 2 => self.refuse_self_path(&path.path),
            _ => {}
        }
        match expr {
            Expr::Async(inner) => self.refuse_async(inner.async_token),
            Expr::Await(inner) => self.refuse_async(inner.await_token),
            Expr::Unsafe(inner) => self.refuse_unsafe(inner),
            Expr::Yield(inner) => self
                .cx
                .error_spanned_by(inner.yield_token, "generators cannot be differentiated"),
            Expr::TryBlock(inner) => self
                .cx
                .error_spanned_by(inner.try_token, "try blocks cannot be differentiated"),
            Expr::Const(inner) => self.cx.error_spanned_by(
                inner.const_token,
                "inline const blocks cannot be differentiated; bind the constant with `let`",
            ),
            Expr::Macro(inner) => self.check_macro(&inner.mac),
            Expr::Verbatim(tokens) => self
                .cx
                .error_spanned_by(tokens, "this syntax cannot be differentiated"),
            Expr::Lit(lit) => self.visit_expr_lit(lit),
            _ => syn::visit::visit_expr(self, expr),
        }
    }

    fn visit_stmt_macro(&mut self, stmt: &'ast syn::StmtMacro) {
        self.check_macro(&stmt.mac);
    }

    fn visit_lit(&mut self, lit: &'ast Lit) {
        let suffix = match lit {
            Lit::Float(float) => float.suffix(),
            Lit::Int(int) => int.suffix(),
            _ => return,
        };
        let float = match suffix {
            "f64" => FloatType::F64,
            "f32" => FloatType::F32,
            _ => return,
        };
        self.check_float_type_mention(lit, float);
    }

    fn visit_type(&mut self, ty: &'ast Type) {
        if let Some(float) = float_of_type(ty) {
            self.check_float_type_mention(ty, float);
        }
        syn::visit::visit_type(self, ty);
    }

    fn visit_pat(&mut self, pat: &'ast Pat) {
        match pat {
            Pat::Path(path) => self.refuse_self_path(&path.path),
            Pat::Struct(structure) => self.refuse_self_path(&structure.path),
            Pat::TupleStruct(tuple) => self.refuse_self_path(&tuple.path),
            _ => {}
        }
        match pat {
            Pat::Lit(lit) if matches!(lit.lit, Lit::Float(_)) => self.refuse_float_pattern(lit),
            _ => syn::visit::visit_pat(self, pat),
        }
    }

    // Items nested in the body are ordinary code that is not differentiated.
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
