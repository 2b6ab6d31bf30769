//! Names the body leaves to the type that derivative code must write out: `Self { a, b }` in
//! a method (the type's name), and methods of data values (a data parameter or `self`, a local
//! made as a value of a type without the derive) called by the type's path, so that derivative
//! code reaches their derivative code.

use syn::{Ident, Type};

use crate::ast::{Param, ParamKind};

/// `Self { a, b }`, `Self(a, b)`, `Self::Circle(r)` and their patterns in a method of an
/// `impl` block of a type of the file: the type named (`P { a, b }`), as a free function
/// writes it, which both modes build and take apart as they do a named type. Calls of
/// associated functions (`Self::new(..)`) stay as written.
pub fn constructors_of_self_named(block: &mut syn::Block) {
    struct Rename(Ident);
    impl Rename {
        fn path(&self, path: &mut syn::Path, alone: bool) {
            let first = path.segments.first().map(|first| first.ident.to_string());
            let named_variant = path.segments.len() == 2
                && path.segments[1]
                    .ident
                    .to_string()
                    .starts_with(|c: char| c.is_ascii_uppercase());
            if path.leading_colon.is_none()
                && first.as_deref() == Some("Self")
                && ((alone && path.segments.len() == 1) || named_variant)
            {
                let span = path.segments[0].ident.span();
                path.segments[0].ident = Ident::new(&self.0.to_string(), span);
            }
        }
    }
    impl syn::visit_mut::VisitMut for Rename {
        fn visit_expr_struct_mut(&mut self, built: &mut syn::ExprStruct) {
            if built.qself.is_none() {
                self.path(&mut built.path, true);
            }
            syn::visit_mut::visit_expr_struct_mut(self, built);
        }
        fn visit_expr_call_mut(&mut self, call: &mut syn::ExprCall) {
            if let syn::Expr::Path(function) = &mut *call.func {
                if function.qself.is_none() {
                    self.path(&mut function.path, true);
                }
            }
            syn::visit_mut::visit_expr_call_mut(self, call);
        }
        fn visit_pat_struct_mut(&mut self, pat: &mut syn::PatStruct) {
            if pat.qself.is_none() {
                self.path(&mut pat.path, true);
            }
            syn::visit_mut::visit_pat_struct_mut(self, pat);
        }
        fn visit_pat_tuple_struct_mut(&mut self, pat: &mut syn::PatTupleStruct) {
            if pat.qself.is_none() {
                self.path(&mut pat.path, true);
            }
            syn::visit_mut::visit_pat_tuple_struct_mut(self, pat);
        }
        // `Self::Nil`, a unit variant (or an associated constant) as a value or a pattern.
        fn visit_expr_path_mut(&mut self, path: &mut syn::ExprPath) {
            if path.qself.is_none() && path.path.segments.len() == 2 {
                self.path(&mut path.path, false);
            }
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    let Some(name) = crate::source_facts::impl_type_name() else {
        return;
    };
    if !crate::source_facts::defines_derived(&name) {
        return;
    }
    let name = Ident::new(&name, proc_macro2::Span::call_site());
    syn::visit_mut::VisitMut::visit_block_mut(&mut Rename(name), block);
}

/// `sys.rhs(&y, &mut dy)` of a data parameter `sys: &Decay` (a type without the derive, its
/// constants data), where `rhs` is a method of the type that the crate's attributes
/// differentiate in this file: `Decay::rhs(sys, &y, &mut dy)`, which derivative code calls at
/// its derivative code, as [`calls_on_data_self_by_path`] does for `self`; and the same of a
/// local made as such a value (`let s = Activation::Sigmoid; s.activate(x)`).
pub fn calls_on_data_parameters_by_path(body: &mut syn::Block, params: &[Param]) {
    struct Calls(Vec<(Ident, syn::Path, bool)>);
    impl syn::visit_mut::VisitMut for Calls {
        fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
            syn::visit_mut::visit_expr_mut(self, expr);
            let syn::Expr::MethodCall(call) = expr else {
                return;
            };
            let syn::Expr::Path(receiver) = &*call.receiver else {
                return;
            };
            let Some((name, ty, by_reference)) = self.0.iter().find(|(name, ty, _)| {
                receiver.qself.is_none()
                    && receiver.path.is_ident(name)
                    && call.turbofish.is_none()
                    && ty.segments.last().is_some_and(|last| {
                        crate::source_facts::differentiated_method_of(
                            &last.ident.to_string(),
                            &call.method.to_string(),
                        )
                    })
            }) else {
                return;
            };
            let span = call.method.span();
            let method = &call.method;
            let receiver = match by_reference {
                true => quote::quote!(#name),
                false => quote::quote!(&#name),
            };
            let args = call.args.iter();
            *expr = syn::parse_quote_spanned!(span=> #ty::#method(#receiver, #(#args),*));
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    // A name the body binds again (`let sys = sys.clone();`, a closure's parameter) may be of
    // another type there.
    #[derive(Default)]
    struct Bound {
        counts: std::collections::HashMap<String, usize>,
        /// `let s = Activation::Sigmoid;`, `let m = Model::new(..);`, `let c = Cost { .. };`:
        /// locals made as values of a type the file defines without the derive.
        data_locals: Vec<(Ident, syn::Path)>,
    }
    impl<'ast> syn::visit::Visit<'ast> for Bound {
        fn visit_pat_ident(&mut self, binding: &'ast syn::PatIdent) {
            *self.counts.entry(binding.ident.to_string()).or_default() += 1;
            syn::visit::visit_pat_ident(self, binding);
        }
        fn visit_local(&mut self, local: &'ast syn::Local) {
            if let (syn::Pat::Ident(binding), Some(init)) = (&local.pat, &local.init) {
                if binding.mutability.is_none() && binding.by_ref.is_none() {
                    if let Some(ty) = underived_value_type(&init.expr) {
                        self.data_locals.push((binding.ident.clone(), ty));
                    }
                }
            }
            syn::visit::visit_local(self, local);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    /// The type a path names first (`Activation` of `Activation::Sigmoid`, of `Model::new`,
    /// a unit struct `StdNormal`), where the file defines it without the derive.
    fn underived_value_type(init: &syn::Expr) -> Option<syn::Path> {
        let (path, whole) = match init {
            // `let d = StdNormal;`: a unit struct.
            syn::Expr::Path(path) if path.qself.is_none() && path.path.segments.len() == 1 => {
                (&path.path, true)
            }
            syn::Expr::Path(path) if path.qself.is_none() => (&path.path, false),
            syn::Expr::Call(call) => match &*call.func {
                syn::Expr::Path(path) if path.qself.is_none() => (&path.path, false),
                _ => return None,
            },
            syn::Expr::Struct(built) if built.qself.is_none() => (&built.path, true),
            _ => return None,
        };
        let first = path.segments.first()?;
        let segments = if whole { 1 } else { 2 };
        // `Type::Variant`, or `Type::new(..)` of a function the file declares returning the
        // type (`Solver::builder()` may return another).
        let of_the_type = whole
            || path.segments.get(1).is_some_and(|second| {
                second
                    .ident
                    .to_string()
                    .starts_with(|c: char| c.is_ascii_uppercase())
                    || crate::source_facts::constructs(
                        &first.ident.to_string(),
                        &second.ident.to_string(),
                    )
            });
        (path.segments.len() == segments
            && of_the_type
            && first.arguments.is_none()
            && crate::source_facts::defines_underived(&first.ident.to_string()))
        .then(|| first.ident.clone().into())
    }
    let mut bound = Bound::default();
    syn::visit::Visit::visit_block(&mut bound, body);
    let locals = std::mem::take(&mut bound.data_locals);
    let bound_once = |name: &Ident| bound.counts.get(&name.to_string()) == Some(&1);
    let data_locals = locals
        .into_iter()
        .filter(|(name, _)| bound_once(name) && params.iter().all(|param| param.name != *name))
        .map(|(name, ty)| (name, ty, false));
    let data: Vec<(Ident, syn::Path, bool)> = params
        .iter()
        .filter(|param| param.kind == ParamKind::Data && !param.receiver)
        .filter(|param| !bound.counts.contains_key(&param.name.to_string()))
        .filter_map(|param| {
            let (ty, by_reference) = match &param.ty {
                Type::Reference(reference) if reference.mutability.is_none() => {
                    (&*reference.elem, true)
                }
                ty => (ty, false),
            };
            match ty {
                // A path without generic arguments, which an expression can name as written.
                Type::Path(path)
                    if path.qself.is_none()
                        && path
                            .path
                            .segments
                            .iter()
                            .all(|segment| segment.arguments.is_none()) =>
                {
                    Some((param.name.clone(), path.path.clone(), by_reference))
                }
                _ => None,
            }
        })
        .chain(data_locals)
        .collect();
    if !data.is_empty() {
        syn::visit_mut::VisitMut::visit_block_mut(&mut Calls(data), body);
    }
}

/// `self.m(a)` of a data `self`, where `m` is a `&self` method of the type that the crate's
/// attributes differentiate: `Self::m(self, a)` (`Self::m(&self, a)` from a method taking
/// `self` by value), which derivative code calls at its derivative code (a data `self` has no
/// twin whose methods would be found on it).
pub fn calls_on_data_self_by_path(body: &mut syn::Block, self_is_reference: bool) {
    struct Calls(bool);
    impl syn::visit_mut::VisitMut for Calls {
        fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
            syn::visit_mut::visit_expr_mut(self, expr);
            let syn::Expr::MethodCall(call) = expr else {
                return;
            };
            let on_self = matches!(&*call.receiver, syn::Expr::Path(path)
                if path.qself.is_none() && path.path.is_ident("self"));
            if !on_self
                || call.turbofish.is_some()
                || !crate::source_facts::differentiated_method(&call.method.to_string())
            {
                return;
            }
            let span = call.method.span();
            let method = &call.method;
            let receiver = match self.0 {
                true => quote::quote!(self),
                false => quote::quote!(&self),
            };
            let args = call.args.iter();
            *expr = syn::parse_quote_spanned!(span=> Self::#method(#receiver, #(#args),*));
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    syn::visit_mut::VisitMut::visit_block_mut(&mut Calls(self_is_reference), body);
}
