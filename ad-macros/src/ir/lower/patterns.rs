//! Patterns that take values apart (`Some(v)`, `(a, _)`, `&(x, y)`): which names they bind,
//! the pattern a branch tests, and, per name, the pattern that extracts its part.
//!
//! The names' values are read by [`crate::ir::Rvalue::Extract`], whose adjoint is the same
//! pattern built as an expression over adjoints (`Some(dv)`, `(da, zero)`): that is why the
//! patterns taken apart where values carry derivatives are those whose adjoint type has the
//! same shape as the value's type (tuples, references, `Option`, the `#[grad]` parameters'
//! derived types); any other pattern takes apart data only (`only_for_data`).

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Ident, Pat};

use super::{not_yet, Lowered};
use crate::user_types::UserTypes;

/// A name a pattern binds, and whether it is `mut` or `ref`.
pub(super) struct Binding {
    pub name: Ident,
    pub mutable: bool,
    /// `ref name`: a borrow of the part.
    pub by_ref: bool,
}

/// An identifier in a pattern is a binding unless it names a constant or a unit variant
/// (`None`, `MAX`): Rust decides by what is in scope, the macro by the case of its first
/// letter, as Rust's naming conventions have it.
pub(super) fn is_binding_name(ident: &Ident) -> bool {
    ident
        .to_string()
        .starts_with(|c: char| c.is_lowercase() || c == '_')
}

/// Whether `path` is `Some` (as `Some`, `Option::Some` or `std::option::Option::Some`).
pub(super) fn is_some_path(path: &syn::Path) -> bool {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    matches!(
        names.iter().map(String::as_str).collect::<Vec<_>>()[..],
        ["Some"] | ["Option", "Some"] | ["std" | "core", "option", "Option", "Some"]
    )
}

/// Whether `path` is `Ok` (as `Ok`, `Result::Ok` or `std::result::Result::Ok`).
pub(super) fn is_ok_path(path: &syn::Path) -> bool {
    crate::ast::is_result_variant(path, "Ok")
}

/// Whether `path` is `Err`, named as `Ok` is.
pub(super) fn is_err_path(path: &syn::Path) -> bool {
    crate::ast::is_result_variant(path, "Err")
}

/// `Some(..)` or `Ok(..)`: a pattern whose one part is the content an option's (or a fallible
/// result's) adjoint holds.
fn wraps_content(path: &syn::Path) -> bool {
    is_some_path(path) || is_ok_path(path)
}

/// The names `pat` binds, or what stops the IR engine from taking it apart.
pub(super) fn bindings(pat: &Pat) -> Lowered<Vec<Binding>> {
    let mut found = Vec::new();
    collect(pat, &mut found)?;
    Ok(found)
}

fn collect(pat: &Pat, found: &mut Vec<Binding>) -> Lowered<()> {
    match pat {
        Pat::Ident(binding) if !is_binding_name(&binding.ident) && binding.subpat.is_none() => {
            Ok(())
        }
        Pat::Ident(binding) => {
            if binding.by_ref.is_some() && binding.mutability.is_some() {
                return not_yet(pat, "`ref mut` bindings in patterns that take values apart");
            }
            if let Some((_, inner)) = &binding.subpat {
                let mut inside = Vec::new();
                collect(inner, &mut inside)?;
                if !inside.is_empty() {
                    return not_yet(pat, "`name @ pattern` with names inside");
                }
            }
            found.push(Binding {
                name: binding.ident.clone(),
                mutable: binding.mutability.is_some(),
                by_ref: binding.by_ref.is_some(),
            });
            Ok(())
        }
        Pat::Lit(_) | Pat::Range(_) | Pat::Path(_) | Pat::Wild(_) => Ok(()),
        Pat::Paren(paren) => collect(&paren.pat, found),
        Pat::Reference(reference) => collect(&reference.pat, found),
        Pat::Tuple(tuple) => {
            if tuple.elems.iter().any(|part| matches!(part, Pat::Rest(_))) {
                return not_yet(pat, "`..` in tuple patterns");
            }
            tuple.elems.iter().try_for_each(|part| collect(part, found))
        }
        Pat::TupleStruct(variant) if wraps_content(&variant.path) && variant.elems.len() == 1 => {
            collect(&variant.elems[0], found)
        }
        Pat::Or(or) => {
            let before = found.len();
            or.cases.iter().try_for_each(|case| collect(case, found))?;
            if found.len() > before {
                return not_yet(pat, "or-patterns that bind names");
            }
            Ok(())
        }
        // A derived type's, or any other type's: the names inside are bound to parts of
        // the value (whether their adjoints can be built is `only_for_data`'s question).
        Pat::TupleStruct(variant) => variant
            .elems
            .iter()
            .filter(|part| !matches!(part, Pat::Rest(_)))
            .try_for_each(|part| collect(part, found)),
        Pat::Struct(structure) => structure
            .fields
            .iter()
            .try_for_each(|field| collect(&field.pat, found)),
        _ => not_yet(pat, "this pattern"),
    }
}

/// Whether the names `pat` binds can be taken apart from data only: it names a type whose
/// adjoint the engine does not know (neither a `#[grad]` parameter's nor one learned from a
/// value carrying derivatives: `lower::lower`), or it leaves out a tuple struct's fields with
/// `..` before names (the adjoint names its fields by position).
pub(super) fn only_for_data(pat: &Pat, user_types: &UserTypes) -> bool {
    let binds = |pat: &Pat| bindings(pat).is_ok_and(|found| !found.is_empty());
    match pat {
        // `s @ Mode::Scale(_)` binds the whole value: a type's without an adjoint known here
        // is data, names inside or not.
        Pat::Ident(binding) => binding.subpat.as_ref().is_some_and(|(_, inner)| {
            only_for_data(inner, user_types) || names_an_unknown_type(inner, user_types)
        }),
        Pat::Paren(paren) => only_for_data(&paren.pat, user_types),
        Pat::Reference(reference) => only_for_data(&reference.pat, user_types),
        Pat::Tuple(tuple) => tuple
            .elems
            .iter()
            .any(|part| only_for_data(part, user_types)),
        Pat::Or(or) => or.cases.iter().any(|case| only_for_data(case, user_types)),
        Pat::TupleStruct(variant) if wraps_content(&variant.path) => variant
            .elems
            .iter()
            .any(|part| only_for_data(part, user_types)),
        Pat::TupleStruct(variant) => {
            let rest_at = variant
                .elems
                .iter()
                .position(|part| matches!(part, Pat::Rest(_)));
            // A variant's pattern is matched as written on its adjoint, `..` anywhere; a
            // struct's, by field number.
            binds(pat)
                && (!user_types.names_type(&variant.path)
                    || (rest_at.is_some_and(|at| at + 1 != variant.elems.len())
                        && user_types.names_type_itself(&variant.path))
                    || variant
                        .elems
                        .iter()
                        .any(|part| only_for_data(part, user_types)))
        }
        Pat::Struct(structure) => {
            binds(pat)
                && (!user_types.names_type(&structure.path)
                    || structure
                        .fields
                        .iter()
                        .any(|field| only_for_data(&field.pat, user_types)))
        }
        _ => false,
    }
}

/// Whether `pat` tests a variant or struct of a type other than the `#[grad]` parameters'.
fn names_an_unknown_type(pat: &Pat, user_types: &UserTypes) -> bool {
    let inner = |pat: &Pat| names_an_unknown_type(pat, user_types);
    match pat {
        Pat::Ident(binding) => binding.subpat.as_ref().is_some_and(|(_, pat)| inner(pat)),
        Pat::Paren(paren) => inner(&paren.pat),
        Pat::Reference(reference) => inner(&reference.pat),
        Pat::Tuple(tuple) => tuple.elems.iter().any(inner),
        Pat::Or(or) => or.cases.iter().any(inner),
        Pat::TupleStruct(variant) if wraps_content(&variant.path) => {
            variant.elems.iter().any(inner)
        }
        Pat::TupleStruct(variant) => {
            !user_types.names_type(&variant.path) || variant.elems.iter().any(inner)
        }
        Pat::Struct(structure) => {
            !user_types.names_type(&structure.path)
                || structure.fields.iter().any(|field| inner(&field.pat))
        }
        Pat::Path(path) => {
            path.path.segments.len() > 1 && !user_types.names_type(&path.path) && {
                let last = &path.path.segments[path.path.segments.len() - 1].ident;
                last != "None"
            }
        }
        _ => false,
    }
}

/// Whether a name inside `pat` (not the whole) is bound by `ref` (`List::Cons(a, ref rest)`).
pub(super) fn binds_by_ref_inside(pat: &Pat) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_pat_ident(&mut self, binding: &'ast syn::PatIdent) {
            self.0 |= binding.by_ref.is_some();
            syn::visit::visit_pat_ident(self, binding);
        }
    }
    let mut finder = Finder(false);
    match pat {
        Pat::Ident(whole) => {
            if let Some((_, inner)) = &whole.subpat {
                syn::visit::Visit::visit_pat(&mut finder, inner);
            }
        }
        other => syn::visit::Visit::visit_pat(&mut finder, other),
    }
    finder.0
}

/// Whether `pat` binds a name by value (not `ref`).
pub(super) fn binds_by_value(pat: &Pat) -> bool {
    bindings(pat).is_ok_and(|found| found.iter().any(|binding| !binding.by_ref))
}

/// `&pat`, matching a reference to what `pat` matches (alternatives each behind it).
pub(super) fn behind_reference(pat: &Pat) -> Pat {
    match pat {
        Pat::Or(or) => {
            let mut or = or.clone();
            for case in or.cases.iter_mut() {
                *case = behind_reference(case);
            }
            Pat::Or(or)
        }
        other => syn::parse_quote_spanned!(other.span()=> &#other),
    }
}

/// `pat` with every binding replaced by `_`: what the branch tests (`matches!`), with no name
/// left unused.
pub(super) fn without_bindings(pat: &Pat) -> Pat {
    rewrite(pat, &|_| None)
}

/// `pat` as the code that extracts its names' values matches it: as written, but no name
/// `mut` (the values are copied into variables after).
pub(super) fn extracting(pat: &Pat) -> Pat {
    rewrite(pat, &|binding| Some(binding.clone()))
}

/// Rebuilds `pat`, each binding replaced by what `rename` gives (`_` when nothing).
fn rewrite(pat: &Pat, rename: &dyn Fn(&Ident) -> Option<Ident>) -> Pat {
    let mut pat = pat.clone();
    rewrite_in_place(&mut pat, rename);
    pat
}

fn rewrite_in_place(pat: &mut Pat, rename: &dyn Fn(&Ident) -> Option<Ident>) {
    match pat {
        Pat::Ident(binding) if is_binding_name(&binding.ident) || binding.subpat.is_some() => {
            let span = binding.ident.span();
            let mut inner = binding.subpat.take().map(|(at, inner)| {
                let mut inner = *inner;
                rewrite_in_place(&mut inner, rename);
                (at, Box::new(inner))
            });
            let by_ref = binding.by_ref;
            *pat = match rename(&binding.ident) {
                Some(ident) => Pat::Ident(syn::PatIdent {
                    attrs: Vec::new(),
                    by_ref,
                    mutability: None,
                    ident,
                    subpat: inner,
                }),
                None => match inner.take() {
                    Some((_, inner)) => *inner,
                    None => wild(span),
                },
            };
        }
        Pat::Paren(paren) => rewrite_in_place(&mut paren.pat, rename),
        Pat::Reference(reference) => rewrite_in_place(&mut reference.pat, rename),
        Pat::Tuple(tuple) => tuple
            .elems
            .iter_mut()
            .for_each(|part| rewrite_in_place(part, rename)),
        Pat::TupleStruct(variant) => variant
            .elems
            .iter_mut()
            .for_each(|part| rewrite_in_place(part, rename)),
        Pat::Or(or) => or
            .cases
            .iter_mut()
            .for_each(|case| rewrite_in_place(case, rename)),
        Pat::Struct(structure) => structure.fields.iter_mut().for_each(|field| {
            rewrite_in_place(&mut field.pat, rename);
            // `{ w }` stays `{ w }` when `w` is bound still, and becomes `{ w: _ }` otherwise.
            let shorthand = matches!((&field.member, &*field.pat),
                (syn::Member::Named(member), Pat::Ident(binding))
                    if binding.ident == *member && binding.subpat.is_none());
            field.colon_token = if shorthand {
                None
            } else {
                Some(Default::default())
            };
        }),
        _ => {}
    }
}

fn wild(span: Span) -> Pat {
    Pat::Wild(syn::PatWild {
        attrs: Vec::new(),
        underscore_token: syn::Token![_](span),
    })
}
