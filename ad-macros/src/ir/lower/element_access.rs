//! Elements reached through an `Option`: `v.first()`, `v.last()`, `v.get(i)`, their `_mut`
//! forms, and `v.iter().last()`, `v.iter().nth(i)` (also `.copied()`/`.cloned()` of the
//! shared ones). Unwrapped (`*v.last_mut().unwrap() += 1.0`, `let r = v.get_mut(i).unwrap();`)
//! they are the element's place itself; matched (`if let Some(r) = v.last_mut() { .. }`,
//! `match v.get(i) { Some(&x) => .., None => .. }`, `v.first().copied().unwrap_or(0.0)`) they
//! are an `if` on the element's index with the element borrowed or read in its branch. Either
//! way a write reaches the container and an adjoint its shadow, as `v[i]` does.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Pat};

use super::*;

/// Which element an accessor reaches.
pub(super) enum Which<'a> {
    First,
    Last,
    At(&'a Expr),
}

/// An accessor call, as written.
pub(super) struct Accessor<'a> {
    /// The container.
    pub container: &'a Expr,
    pub which: Which<'a>,
    /// `_mut`: the element is borrowed mutably.
    pub mutable: bool,
    /// `.copied()`/`.cloned()` of a shared accessor: the element is read.
    pub copied: bool,
    /// `.cloned()`: read by `clone` (an element that is not `Copy`).
    pub cloned: bool,
}

/// Methods that make or adapt an iterator: what `last()` of them reduces.
pub(super) const ITERATOR_ADAPTERS: &[&str] = &[
    "iter",
    "iter_mut",
    "into_iter",
    "map",
    "filter",
    "filter_map",
    "flat_map",
    "step_by",
    "skip",
    "take",
    "skip_while",
    "take_while",
    "rev",
    "chain",
    "zip",
    "enumerate",
    "copied",
    "cloned",
    "scan",
    "windows",
    "chunks",
    "chunks_exact",
];

/// `expr` as an accessor of an element of a place, if it is one.
pub(super) fn accessor(expr: &Expr) -> Option<Accessor<'_>> {
    let (call, copied, cloned) = match strip(expr) {
        Expr::MethodCall(copy)
            if copy.args.is_empty()
                && copy.turbofish.is_none()
                && (copy.method == "copied" || copy.method == "cloned") =>
        {
            match strip(&copy.receiver) {
                Expr::MethodCall(call) => (call, true, copy.method == "cloned"),
                _ => return None,
            }
        }
        Expr::MethodCall(call) => (call, false, false),
        _ => return None,
    };
    if call.turbofish.is_some() {
        return None;
    }
    // `v.iter().last()`, `v.iter().nth(i)`: the element of `v` itself.
    let through_iter = match strip(&call.receiver) {
        Expr::MethodCall(iter)
            if iter.method == "iter" && iter.args.is_empty() && iter.turbofish.is_none() =>
        {
            Some(&*iter.receiver)
        }
        _ => None,
    };
    // `x.iter().step_by(2).last()`: the last item of an iterator chain, a reduction.
    if through_iter.is_none()
        && matches!(strip(&call.receiver), Expr::MethodCall(adapter)
            if ITERATOR_ADAPTERS.contains(&adapter.method.to_string().as_str()))
    {
        return None;
    }
    let (container, which, mutable) = match (
        call.method.to_string().as_str(),
        call.args.first(),
        call.args.len(),
        through_iter,
    ) {
        ("last", None, 0, Some(container)) => (container, Which::Last, false),
        ("nth", Some(at), 1, Some(container)) => (container, Which::At(at), false),
        (_, _, _, Some(_)) => return None,
        ("first", None, 0, None) => (&*call.receiver, Which::First, false),
        ("last", None, 0, None) => (&*call.receiver, Which::Last, false),
        ("get", Some(at), 1, None) => (&*call.receiver, Which::At(at), false),
        ("first_mut", None, 0, None) => (&*call.receiver, Which::First, true),
        ("last_mut", None, 0, None) => (&*call.receiver, Which::Last, true),
        ("get_mut", Some(at), 1, None) => (&*call.receiver, Which::At(at), true),
        _ => return None,
    };
    // A range index (`v.get(1..3)`) is a sub-slice, not an element; a key by reference
    // (`map.get(&k)`) a map's entry, which has no index.
    if matches!(which, Which::At(at) if matches!(strip(at), Expr::Range(_) | Expr::Reference(_)))
        || (copied && mutable)
    {
        return None;
    }
    Some(Accessor {
        container,
        which,
        mutable,
        copied,
        cloned,
    })
}

/// `expr` as an accessor whose container may be named twice (its length, then its element):
/// a local, its fields, and elements at indices that are names or literals.
pub(super) fn repeatable_accessor(expr: &Expr) -> Option<Accessor<'_>> {
    fn names_again(expr: &Expr) -> bool {
        match strip(expr) {
            Expr::Path(path) => path.qself.is_none() && path.path.get_ident().is_some(),
            Expr::Lit(_) => true,
            Expr::Field(field) => names_again(&field.base),
            Expr::Index(index) => match strip(&index.index) {
                Expr::Range(range) => {
                    names_again(&index.expr)
                        && range.start.as_deref().is_none_or(names_again)
                        && range.end.as_deref().is_none_or(names_again)
                }
                at => names_again(&index.expr) && names_again(at),
            },
            _ => false,
        }
    }
    accessor(expr).filter(|accessor| names_again(accessor.container))
}

/// A slice, `Vec` or array, behind references or not.
pub(super) fn is_sequence_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(reference) => is_sequence_type(&reference.elem),
        syn::Type::Paren(paren) => is_sequence_type(&paren.elem),
        syn::Type::Slice(_) | syn::Type::Array(_) => true,
        syn::Type::Path(path) => {
            path.qself.is_none()
                && path
                    .path
                    .segments
                    .last()
                    .is_some_and(|last| last.ident == "Vec")
        }
        _ => false,
    }
}

/// `accessor.unwrap()` or `accessor.expect(..)`: the accessor unwrapped.
pub(super) fn unwrapped_accessor(expr: &Expr) -> Option<Accessor<'_>> {
    match strip(expr) {
        Expr::MethodCall(call)
            if (call.method == "unwrap" && call.args.is_empty())
                || (call.method == "expect" && call.args.len() == 1) =>
        {
            accessor(&call.receiver)
        }
        _ => None,
    }
}

impl Lowering {
    /// Whether the accessor's container is a slice, `Vec` or array as the function shows it
    /// (a parameter of such a type, a local container, or a part of one), so that its element
    /// is at an index below its length (a map's `get(k)`, a set's `first()` is not).
    pub(super) fn indexes_a_sequence(&self, accessor: &Accessor) -> bool {
        let mut base = accessor.container;
        let name = loop {
            match strip(base) {
                Expr::Field(field) => base = &field.base,
                Expr::Index(index) => base = &index.expr,
                Expr::Path(path) => break path.path.get_ident(),
                _ => break None,
            }
        };
        let root = name.and_then(|name| {
            self.borrowed_place(name)
                .map(|(place, _)| place.root)
                .or_else(|| self.resolve(name))
        });
        root.is_some_and(|root| {
            self.sequence_params.contains(&root)
                || matches!(root, Root::Var(var) if self.containers.contains(&var))
        })
    }

    /// The index an accessor reaches in `container` (`len - 1` wrapping for `last`, so that
    /// an empty container's is past its end).
    fn accessed_index(
        &mut self,
        container: &Place,
        which: &Which,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Operand> {
        let data = |tokens| {
            Operand::Constant(Constant {
                tokens,
                kind: ConstantKind::Data,
                span,
            })
        };
        Ok(match which {
            Which::First => data(quote::quote_spanned!(span=> 0usize)),
            Which::At(at) => self.operand(at, stmts)?,
            Which::Last => {
                let len = self.length(container, span, stmts);
                let one = data(quote::quote_spanned!(span=> 1usize));
                let last =
                    self.data_method(Operand::Value(len), "wrapping_sub", vec![one], span, stmts);
                Operand::Value(last)
            }
        })
    }

    /// The place of the element an unwrapped accessor reaches (a missing one panics at the
    /// index, as `unwrap` would).
    pub(super) fn accessed_place(
        &mut self,
        accessor: &Accessor,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Place> {
        let mut place = self.place(accessor.container, stmts)?;
        let index = self.accessed_index(&place, &accessor.which, span, stmts)?;
        place.projections.push(Projection::Index(index));
        place.span = span;
        Ok(place)
    }

    /// A `match` (or `if let`) on an accessor whose arms are `Some(p)` and `None` (or `_`),
    /// as the `if` on the element's index it is; `None` when it is not one.
    pub(super) fn match_on_accessor(
        &mut self,
        scrutinee: &Expr,
        arms: &[syn::Arm],
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Option<Operand>>> {
        let Some(accessor) = repeatable_accessor(scrutinee) else {
            return Ok(None);
        };
        if !self.indexes_a_sequence(&accessor) {
            return Ok(None);
        }
        let [first, second] = arms else {
            return Ok(None);
        };
        if first.guard.is_some() || second.guard.is_some() {
            return Ok(None);
        }
        // (`_` first would take every value: only `None` may come before `Some`.)
        let (some, none) = match (some_pattern(&first.pat), some_pattern(&second.pat)) {
            (Some(pattern), None) if is_none_pattern(&second.pat) => (pattern, second),
            (None, Some(pattern))
                if matches!(&first.pat, Pat::Ident(_) | Pat::Path(_))
                    && is_none_pattern(&first.pat) =>
            {
                (pattern, first)
            }
            _ => return Ok(None),
        };
        let Some(binding) = element_binding(&accessor, some, span) else {
            return Ok(None);
        };
        let container = accessor.container;
        let index: Expr = match accessor.which {
            Which::First => syn::parse_quote_spanned!(span=> 0usize),
            Which::Last => syn::parse_quote_spanned!(span=> #container.len().wrapping_sub(1)),
            Which::At(at) => at.clone(),
        };
        let some_body = match &arms[0] {
            arm if std::ptr::eq(arm, none) => &arms[1].body,
            arm => &arm.body,
        };
        let none_body = &none.body;
        let index_name = syn::Ident::new("__ad_element_index", span);
        let element: Expr = syn::parse_quote_spanned!(span=> #container[#index_name]);
        let bound = match binding {
            Binding::Borrowed(name) if accessor.mutable => {
                quote::quote_spanned!(span=> let #name = &mut #element;)
            }
            Binding::Borrowed(name) => quote::quote_spanned!(span=> let #name = &#element;),
            Binding::Read(name) if accessor.cloned => {
                quote::quote_spanned!(span=> let #name = #element.clone();)
            }
            Binding::Read(name) => quote::quote_spanned!(span=> let #name = #element;),
            Binding::None => quote::quote_spanned!(span=>),
        };
        let desugared: Expr = syn::parse_quote_spanned!(span=> {
            let #index_name: usize = #index;
            if #index_name < #container.len() {
                #bound
                #some_body
            } else {
                #none_body
            }
        });
        self.value_of(&desugared, stmts).map(Some)
    }
}

impl Lowering {
    /// `accessor.copied().unwrap_or(d)`, `.unwrap_or_default()`: the default first, as Rust
    /// evaluates it, then a `match` on the element.
    pub(super) fn unwrap_element_or(
        &mut self,
        call: &syn::ExprMethodCall,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Operand>> {
        let span = call.span();
        let default = match call.args.first() {
            Some(default) => self.operand(default, stmts)?,
            None => default_value(span),
        };
        let default = self.as_value(default, span, stmts);
        let name = syn::Ident::new("__ad_default", span);
        let receiver = &call.receiver;
        let desugared: Expr = syn::parse_quote_spanned!(span=> match #receiver {
            Some(__ad_content) => __ad_content,
            None => #name,
        });
        self.scoped(|this| {
            this.bind(&name, Root::Value(default));
            this.value_of(&desugared, stmts)
        })
    }
}

/// How the `Some` arm binds the element.
enum Binding {
    /// `Some(r)` of a reference: `r` borrows the element.
    Borrowed(proc_macro2::TokenStream),
    /// `Some(&x)`, or `Some(x)` of a copied element: `x` is its value.
    Read(proc_macro2::TokenStream),
    /// `Some(_)`.
    None,
}

fn element_binding(accessor: &Accessor, pat: &Pat, span: Span) -> Option<Binding> {
    let name = |ident: &syn::PatIdent| {
        (ident.by_ref.is_none() && ident.subpat.is_none()).then(|| {
            let mutability = ident.mutability;
            let name = &ident.ident;
            quote::quote_spanned!(span=> #mutability #name)
        })
    };
    match pat {
        Pat::Wild(_) => Some(Binding::None),
        Pat::Ident(ident) if accessor.copied => name(ident).map(Binding::Read),
        Pat::Ident(ident) if ident.mutability.is_none() => name(ident).map(Binding::Borrowed),
        Pat::Reference(reference) if !accessor.copied && reference.mutability.is_none() => {
            match &*reference.pat {
                Pat::Ident(ident) => name(ident).map(Binding::Read),
                Pat::Wild(_) => Some(Binding::None),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The pattern inside `Some(..)`.
fn some_pattern(pat: &Pat) -> Option<&Pat> {
    match pat {
        Pat::TupleStruct(some)
            if some.qself.is_none()
                && some.path.segments.last().is_some_and(|s| s.ident == "Some")
                && some.elems.len() == 1 =>
        {
            some.elems.first()
        }
        _ => None,
    }
}

fn is_none_pattern(pat: &Pat) -> bool {
    match pat {
        Pat::Wild(_) => true,
        Pat::Ident(ident) => ident.ident == "None" && ident.subpat.is_none(),
        Pat::Path(path) => path.path.segments.last().is_some_and(|s| s.ident == "None"),
        _ => false,
    }
}
