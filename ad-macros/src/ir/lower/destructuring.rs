//! `let` patterns that take a value apart (`let (a, b) = pair;`, `let V3(x, ..) = v;`,
//! `let Point { x, y } = p;`) into values and variables bound to its parts, tuples declared
//! without a value (`let (y0, y1);`), and a `let` whose value leaves early on some paths.

use syn::spanned::Spanned;
use syn::{Expr, Pat};

use super::*;

impl Lowering {
    /// `let v: f64 = match i { 0 => { if c { return x; } y } _ => z };`: a variable, assigned
    /// where each value is made (`Expr::Assign` of `Lowering::effect`). On the path that
    /// leaves it holds a stand-in that nothing reads (`ad_runtime::__private::ir::StandIn`,
    /// whose message names the types that have one).
    /// Whether the `let` was that.
    pub(super) fn let_leaving_early(
        &mut self,
        local: &syn::Local,
        pat: &Pat,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<bool> {
        let (Pat::Ident(binding), Some(init)) = (pat, &local.init) else {
            return Ok(false);
        };
        if init.diverge.is_some()
            || binding.by_ref.is_some()
            || binding.subpat.is_some()
            || !exits_before_a_value(&init.expr)
        {
            return Ok(false);
        }
        // Under a name of its own, which no pattern of the value's arms can shadow.
        let hidden = quote::format_ident!("__ad_let{}_{}", self.vars.len(), binding.ident);
        let declared = syn::Local {
            init: None,
            pat: match &local.pat {
                Pat::Type(typed) => Pat::Type(syn::PatType {
                    pat: Box::new(syn::parse_quote!(#hidden)),
                    ..typed.clone()
                }),
                _ => syn::parse_quote!(#hidden),
            },
            ..local.clone()
        };
        self.local(&declared, stmts)?;
        let declared_var = stmts.iter_mut().rev().find_map(|stmt| match stmt {
            Stmt::DeclareVar { var, init } => Some((var, init)),
            _ => None,
        });
        let Some((var, stand_in)) = declared_var else {
            return not_yet(local, "a value after an early exit in a block");
        };
        let span = local.span();
        *stand_in = Some(Operand::Constant(Constant {
            tokens: quote::quote_spanned!(span=> ::ad_runtime::__private::ir::stand_in()),
            kind: ConstantKind::Data,
            span,
        }));
        let var = *var;
        self.declared_without_value.remove(&var);
        let value = &init.expr;
        let assignment: Expr = syn::parse_quote_spanned!(local.span()=> #hidden = #value);
        self.effect(&assignment, stmts)?;
        self.bind(&binding.ident, Root::Var(var));
        Ok(true)
    }

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

/// Whether a branch of `expr` (a block, `if` or `match`) leaves before the value it makes
/// (`{ if c { return x; } y }`), which a value of the branch cannot stand for.
fn exits_before_a_value(expr: &Expr) -> bool {
    match expr {
        Expr::Paren(paren) => exits_before_a_value(&paren.expr),
        Expr::Block(block) if block.label.is_none() => block_exits_before_a_value(&block.block),
        Expr::If(expr_if) => {
            block_exits_before_a_value(&expr_if.then_branch)
                || expr_if
                    .else_branch
                    .as_ref()
                    .is_some_and(|(_, other)| exits_before_a_value(other))
        }
        Expr::Match(expr_match) => expr_match
            .arms
            .iter()
            .any(|arm| exits_before_a_value(&arm.body)),
        _ => false,
    }
}

fn block_exits_before_a_value(block: &syn::Block) -> bool {
    let Some((syn::Stmt::Expr(tail, None), before)) = block.stmts.split_last() else {
        return false;
    };
    before
        .iter()
        .any(|stmt| super::control::first_exit(stmt).is_some())
        || exits_before_a_value(tail)
}
