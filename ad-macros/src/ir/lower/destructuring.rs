//! `let` patterns that take a value apart (`let (a, b) = pair;`, `let V3(x, ..) = v;`,
//! `let Point { x, y } = p;`) into values and variables bound to its parts, and tuples
//! declared without a value (`let (y0, y1);`).

use syn::spanned::Spanned;
use syn::Pat;

use super::*;

impl Lowering {
    /// `let (y0, y1): (f64, f64);`, assigned later: a variable declared without a value per
    /// name, as if each had its own `let`.
    pub(super) fn declare_each(
        &mut self,
        local: &syn::Local,
        pat: &Pat,
        annotation: Option<&syn::Type>,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        let Pat::Tuple(tuple) = pat else {
            return not_yet(
                local,
                "`let` without a value but for a name or a tuple of names",
            );
        };
        let types: Option<Vec<&syn::Type>> = match annotation {
            Some(syn::Type::Tuple(types)) if types.elems.len() == tuple.elems.len() => {
                Some(types.elems.iter().collect())
            }
            Some(other) => return not_yet(other, "this type on a tuple declared without a value"),
            None => None,
        };
        for (at, element) in tuple.elems.iter().enumerate() {
            if !matches!(element, Pat::Ident(binding) if binding.subpat.is_none() && binding.by_ref.is_none())
            {
                return not_yet(
                    element,
                    "`let` without a value but for a name or a tuple of names",
                );
            }
            let pat = match &types {
                Some(types) => Pat::Type(syn::PatType {
                    attrs: Vec::new(),
                    pat: Box::new(element.clone()),
                    colon_token: Default::default(),
                    ty: Box::new(types[at].clone()),
                }),
                None => element.clone(),
            };
            let single = syn::Local {
                attrs: local.attrs.clone(),
                let_token: local.let_token,
                pat,
                init: None,
                semi_token: local.semi_token,
            };
            self.local(&single, stmts)?;
        }
        Ok(())
    }

    /// Binds the names of a pattern (a tuple's, a derived struct's, `&p`) to the parts of
    /// `place`, read into values (or copied into variables for `mut` names).
    pub(super) fn destructure(
        &mut self,
        pat: &Pat,
        place: Place,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        self.destructure_in(pat, place, false, stmts)
    }

    /// [`Lowering::destructure`]; `borrowed` when the pattern matches through a reference
    /// (`let (a, b) = &pair;`), where a name binds a reference to its part, as in Rust.
    pub(super) fn destructure_in(
        &mut self,
        pat: &Pat,
        place: Place,
        borrowed: bool,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        // A tuple or struct pattern matched against a reference binds by reference.
        let parts_borrowed = borrowed
            || (place.projections.is_empty()
                && matches!(place.root, Root::Value(value) if self.references.contains(&value)));
        match pat {
            Pat::Tuple(tuple) => {
                let leading = leading_positions(pat, &tuple.elems)?;
                self.destructure_positions(leading, place, parts_borrowed, stmts)
            }
            Pat::Paren(paren) => self.destructure_in(&paren.pat, place, borrowed, stmts),
            // An array's elements (`let [x, y] = s.position;`), by index.
            Pat::Slice(slice)
                if !slice
                    .elems
                    .iter()
                    .any(|element| matches!(element, Pat::Rest(_))) =>
            {
                for (index, element) in slice.elems.iter().enumerate() {
                    let at = syn::LitInt::new(&format!("{index}usize"), element.span());
                    let mut part = place.clone();
                    part.projections
                        .push(Projection::Index(Operand::Constant(literal(&Lit::Int(at)))));
                    part.span = element.span();
                    self.destructure_in(element, part, parts_borrowed, stmts)?;
                }
                Ok(())
            }
            Pat::Type(typed) => self.destructure_in(&typed.pat, place, borrowed, stmts),
            // A derived struct's fields (`let P { x, y: b } = &p;`), by name or position.
            Pat::Struct(structure)
                if self.names_struct(structure.qself.as_ref(), &structure.path) =>
            {
                for field in &structure.fields {
                    let mut part = place.clone();
                    part.projections
                        .push(Projection::Field(field.member.clone()));
                    part.span = field.span();
                    self.destructure_in(&field.pat, part, parts_borrowed, stmts)?;
                }
                Ok(())
            }
            Pat::TupleStruct(tuple) if self.names_struct(tuple.qself.as_ref(), &tuple.path) => {
                let leading = leading_positions(pat, &tuple.elems)?;
                self.destructure_positions(leading, place, parts_borrowed, stmts)
            }
            Pat::Reference(reference) if reference.mutability.is_none() => {
                let mut referent = place;
                referent.projections.push(Projection::Deref);
                referent.span = reference.span();
                self.destructure_in(&reference.pat, referent, false, stmts)
            }
            Pat::Wild(_) => Ok(()),
            Pat::Ident(binding)
                if borrowed
                    && binding.by_ref.is_none()
                    && binding.subpat.is_none()
                    && binding.mutability.is_none() =>
            {
                let value = self.new_value(Some(binding.ident.clone()), binding.ident.span());
                self.references.insert(value);
                stmts.push(Stmt::Let(Let {
                    value,
                    rvalue: Rvalue::Ref(Operand::Place(place)),
                    span: binding.ident.span(),
                }));
                self.bind(&binding.ident, Root::Value(value));
                Ok(())
            }
            Pat::Ident(binding) if binding.by_ref.is_none() && binding.subpat.is_none() => {
                let span = binding.ident.span();
                let read = self.read(place, span, stmts);
                if binding.mutability.is_some() {
                    let var = self.new_var(&binding.ident);
                    stmts.push(Stmt::DeclareVar {
                        var,
                        init: Some(Operand::Value(read)),
                    });
                    self.bind(&binding.ident, Root::Var(var));
                } else {
                    let value = self.new_value(Some(binding.ident.clone()), span);
                    stmts.push(Stmt::Let(Let {
                        value,
                        rvalue: Rvalue::Use(Operand::Value(read)),
                        span,
                    }));
                    self.bind(&binding.ident, Root::Value(value));
                }
                Ok(())
            }
            other => not_yet(other, "this pattern"),
        }
    }

    /// The parts of a tuple or tuple struct pattern, matched with `place`'s fields `0`, `1`, ..
    fn destructure_positions<'p>(
        &mut self,
        elements: impl IntoIterator<Item = &'p Pat>,
        place: Place,
        borrowed: bool,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        for (index, element) in elements.into_iter().enumerate() {
            let mut part = place.clone();
            part.projections
                .push(Projection::Field(syn::Member::Unnamed(syn::Index {
                    index: index as u32,
                    span: element.span(),
                })));
            part.span = element.span();
            self.destructure_in(element, part, borrowed, stmts)?;
        }
        Ok(())
    }
}

/// The elements of a tuple or tuple struct pattern that take fields `0`, `1`, ..: all of them,
/// or those before a `..` that ends the pattern (`V3(a, ..)`). A `..` before the last field
/// would need the type's number of fields.
fn leading_positions<'p>(
    pat: &Pat,
    elements: &'p syn::punctuated::Punctuated<Pat, syn::Token![,]>,
) -> Lowered<Vec<&'p Pat>> {
    let rest = elements
        .iter()
        .position(|element| matches!(element, Pat::Rest(_)));
    match rest {
        None => Ok(elements.iter().collect()),
        Some(at) if at + 1 == elements.len() => Ok(elements.iter().take(at).collect()),
        Some(_) => not_yet(pat, "`..` before the last field of a tuple pattern"),
    }
}
