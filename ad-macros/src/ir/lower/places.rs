//! Places: what an expression names to read or write (`v[i]`, `p.x`, `*r`, a borrow's place,
//! a sub-slice `x[a..b]`, a `const` table), and the assignments that write them (`(a, b) = ..`,
//! `split_at`'s halves).

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Pat};

use super::*;

impl Lowering {
    /// Reads a place into a fresh value.
    pub(super) fn read(&mut self, place: Place, span: Span, stmts: &mut Vec<Stmt>) -> Value {
        let value = self.new_value(None, span);
        stmts.push(Stmt::Let(Let {
            value,
            rvalue: Rvalue::Use(Operand::Place(place)),
            span,
        }));
        value
    }

    /// What `expr` computes, held in a value of its own, as a place.
    pub(super) fn temporary(
        &mut self,
        expr: &Expr,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Place> {
        let value = self.operand(expr, stmts)?;
        Ok(Place {
            root: Root::Value(self.as_value(value, span, stmts)),
            projections: Vec::new(),
            span,
        })
    }

    /// A method's receiver: its place, or a temporary holding what it computes
    /// (`v.len().saturating_sub(2)`, `a.cross(&b).norm()`).
    pub(super) fn receiver_place(
        &mut self,
        call: &syn::ExprMethodCall,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Place> {
        match self.place(&call.receiver, stmts) {
            Ok(place) => Ok(place),
            Err(_) if !is_place_expression(&call.receiver) => {
                self.temporary(&call.receiver, span, stmts)
            }
            Err(_) => not_yet(&call.method, "this method"),
        }
    }

    pub(super) fn place(&mut self, expr: &Expr, stmts: &mut Vec<Stmt>) -> Lowered<Place> {
        let span = expr.span();
        match expr {
            Expr::Paren(paren) => self.place(&paren.expr, stmts),
            Expr::Path(path) => {
                if let Some(part) = path
                    .path
                    .get_ident()
                    .and_then(|ident| self.part_place(ident, span))
                {
                    return Ok(part);
                }
                // Through a borrow, as Rust's auto-deref does (`r[j]`, `r.x`).
                if let Some((place, _)) = path
                    .path
                    .get_ident()
                    .and_then(|ident| self.borrowed_place(ident))
                {
                    return Ok(place);
                }
                let root = path.path.get_ident().and_then(|ident| self.resolve(ident));
                match root {
                    Some(root) => Ok(Place {
                        root,
                        projections: Vec::new(),
                        span,
                    }),
                    // A table the code reads (`RK4_A[s][j]`, `WEIGHTS.iter()`): a `const` or
                    // `static`, named as Rust names them, is data, lifted where it is read (an
                    // array of floats whole, so that its items are the scalar type).
                    None if path.qself.is_none()
                        && path.path.segments.last().is_some_and(|last| {
                            last.arguments.is_none() && names_a_constant(&last.ident)
                        })
                        && path
                            .path
                            .get_ident()
                            .is_none_or(|ident| self.binding(ident).is_none()) =>
                    {
                        let table = self.define(
                            Rvalue::Use(Operand::Constant(Constant {
                                tokens: quote::quote_spanned!(span=> #path),
                                kind: ConstantKind::Path,
                                span,
                            })),
                            span,
                            stmts,
                        );
                        Ok(Place {
                            root: Root::Value(table),
                            projections: Vec::new(),
                            span,
                        })
                    }
                    None => not_yet(expr, "places outside the function's locals"),
                }
            }
            Expr::Index(index) => {
                if let Expr::Range(range) = strip(&index.index) {
                    let place = self.place(&index.expr, stmts)?;
                    return self.sub_slice(place, range, span, stmts);
                }
                let mut place = self.place(&index.expr, stmts)?;
                let at = self.operand(&index.index, stmts)?;
                place.projections.push(Projection::Index(at));
                place.span = span;
                Ok(place)
            }
            Expr::Field(field) => {
                let mut place = match strip(&field.base) {
                    // A field of what a call returns (`a.lerp(b, t).z`): of a temporary.
                    Expr::MethodCall(_) | Expr::Call(_) => {
                        self.temporary(&field.base, span, stmts)?
                    }
                    _ => self.place(&field.base, stmts)?,
                };
                place
                    .projections
                    .push(Projection::Field(field.member.clone()));
                place.span = span;
                Ok(place)
            }
            Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Deref(_)) => {
                if let Some((place, _)) =
                    borrowing_name(&unary.expr).and_then(|ident| self.borrowed_place(ident))
                {
                    return Ok(place);
                }
                // `*v.last_mut().unwrap()`: the element itself.
                if let Some(accessor) = element_access::unwrapped_accessor(&unary.expr) {
                    return self.accessed_place(&accessor, span, stmts);
                }
                // `*r.get()`: what the reference the expression gives points to.
                let mut place = match strip(&unary.expr) {
                    Expr::MethodCall(_) | Expr::Call(_) => {
                        self.temporary(&unary.expr, span, stmts)?
                    }
                    _ => self.place(&unary.expr, stmts)?,
                };
                place.projections.push(Projection::Deref);
                place.span = span;
                Ok(place)
            }
            // `doubled(x)[0]`: an element of a value computed there, held in a temporary; so is
            // an array written there (`[a, b, a * b].iter()`).
            Expr::Call(_)
            | Expr::MethodCall(_)
            | Expr::Macro(_)
            | Expr::Array(_)
            | Expr::Repeat(_) => self.temporary(expr, span, stmts),
            _ => not_yet(expr, "this place"),
        }
    }

    /// A destructuring assignment, `(a, b) = (b, a)`, `[k, m] = [m, k + 1]`, `Pair { a: k, b:
    /// m } = p`: the right side is evaluated whole, then each part of it is written to its
    /// place, left to right (the fields `..` leaves out, not at all).
    pub(super) fn assign_parts(
        &mut self,
        left: &Expr,
        right: Operand,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        let span = left.span();
        let whole = self.as_value(right, span, stmts);
        // Each part of the left side, and where its value is in the whole.
        let parts: Vec<(&Expr, Projection)> = match left {
            Expr::Tuple(tuple) => tuple
                .elems
                .iter()
                .enumerate()
                .map(|(index, element)| {
                    let member = syn::Member::Unnamed(syn::Index {
                        index: index as u32,
                        span: element.span(),
                    });
                    (element, Projection::Field(member))
                })
                .collect(),
            Expr::Array(array) => array
                .elems
                .iter()
                .enumerate()
                .map(|(index, element)| {
                    let at = syn::LitInt::new(&format!("{index}usize"), element.span());
                    (
                        element,
                        Projection::Index(Operand::Constant(literal(&Lit::Int(at)))),
                    )
                })
                .collect(),
            Expr::Struct(structure) if structure.qself.is_none() && structure.rest.is_none() => {
                structure
                    .fields
                    .iter()
                    .map(|field| (&field.expr, Projection::Field(field.member.clone())))
                    .collect()
            }
            Expr::Struct(structure) => return not_yet(structure, "`..` in this assignment"),
            _ => {
                let place = self.assigned_place(left, stmts)?;
                stmts.push(Stmt::Assign {
                    place,
                    operand: Operand::Value(whole),
                    span,
                });
                return Ok(());
            }
        };
        for (element, projection) in parts {
            if matches!(element, Expr::Infer(_)) {
                continue;
            }
            let part = Place {
                root: Root::Value(whole),
                projections: vec![projection],
                span: element.span(),
            };
            let read = self.read(part, element.span(), stmts);
            self.assign_parts(element, Operand::Value(read), stmts)?;
        }
        Ok(())
    }

    /// `let (head, tail) = v.split_at(k);`: two sub-slices of `v`, each borrowed where it is
    /// used. Whether the pattern and the value were that.
    pub(super) fn split_at(
        &mut self,
        pat: &Pat,
        init: &Expr,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<bool> {
        let (Pat::Tuple(names), Expr::MethodCall(call)) = (pat, strip(init)) else {
            return Ok(false);
        };
        let plain = |pat: &Pat| match pat {
            Pat::Ident(name) => name.by_ref.is_none() && name.subpat.is_none(),
            Pat::Wild(_) => true,
            _ => false,
        };
        let mutable = call.method == "split_at_mut";
        if !(call.method == "split_at" || mutable)
            || call.args.len() != 1
            || call.turbofish.is_some()
            || names.elems.len() != 2
            || !names.elems.iter().all(plain)
        {
            return Ok(false);
        }
        let Ok(source) = self.place(&call.receiver, stmts) else {
            return Ok(false);
        };
        let span = call.span();
        let at = self.operand(&call.args[0], stmts)?;
        let len = self.length(&source, span, stmts);
        let zero = Operand::Constant(Constant {
            tokens: quote::quote_spanned!(span=> 0usize),
            kind: ConstantKind::Data,
            span,
        });
        // `split_at` panics where the index is past the end, as `x[..k]` does.
        let mut first = source.clone();
        first
            .projections
            .push(Projection::Slice(zero.clone(), at.clone()));
        self.length(&first, span, stmts);
        let halves = [(zero, at.clone()), (at, Operand::Value(len))];
        for (name, (start, end)) in names.elems.iter().zip(halves) {
            if let Pat::Ident(name) = name {
                let mut place = source.clone();
                place.projections.push(Projection::Slice(start, end));
                place.span = span;
                self.bind_borrowed(&name.ident, place, mutable);
            }
        }
        Ok(true)
    }

    /// `place[range]`, its bounds made explicit: `0` for an open start, the length of what is
    /// sliced for an open end.
    pub(super) fn sub_slice(
        &mut self,
        mut place: Place,
        range: &syn::ExprRange,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Place> {
        let start = match &range.start {
            Some(start) => self.operand(start, stmts)?,
            None => Operand::Constant(Constant {
                tokens: quote::quote_spanned!(span=> 0usize),
                kind: ConstantKind::Data,
                span,
            }),
        };
        let end = match (&range.end, range.limits) {
            // `a..=b` is `a..b + 1` (`b` the largest `usize` overflows there, where Rust's
            // inclusive range panics).
            (Some(end), syn::RangeLimits::Closed(_)) => {
                let past: Expr = syn::parse_quote_spanned!(end.span()=> (#end) + 1);
                self.operand(&past, stmts)?
            }
            (Some(end), syn::RangeLimits::HalfOpen(_)) => self.operand(end, stmts)?,
            (None, _) => Operand::Value(self.length(&place, span, stmts)),
        };
        place.projections.push(Projection::Slice(start, end));
        place.span = span;
        // Where the code builds it, the sub-slice is checked as Rust checks it (its uses may
        // not all run).
        self.length(&place, span, stmts);
        Ok(place)
    }

    pub(super) fn assigned_place(&mut self, expr: &Expr, stmts: &mut Vec<Stmt>) -> Lowered<Place> {
        let place = self.place(expr, stmts)?;
        let no_deref = place
            .projections
            .iter()
            .all(|projection| !matches!(projection, Projection::Deref));
        match place.root {
            Root::Var(_) if no_deref => Ok(place),
            // A `&mut` parameter: the reference is the variable's own, its referent its place.
            Root::Var(_) if self.param_roots.contains(&place.root) => Ok(place),
            Root::Var(_) => not_yet(expr, "writes through a reference"),
            Root::Value(_) => not_yet(
                expr,
                "writes through a parameter or an immutable binding: write to a `let mut` copy",
            ),
        }
    }
}

/// A name, possibly in parentheses: what `*r` dereferences when `r` borrows a place.
pub(super) fn borrowing_name(expr: &Expr) -> Option<&Ident> {
    match strip(expr) {
        Expr::Path(path) if path.qself.is_none() => path.path.get_ident(),
        _ => None,
    }
}

/// Whether `expr` names a place (a local, its fields, elements and dereferences), which a
/// borrow keeps rather than copies.
pub(super) fn is_place_expression(expr: &Expr) -> bool {
    match strip(expr) {
        Expr::Path(path) => path.qself.is_none() && path.path.get_ident().is_some(),
        Expr::Field(field) => is_place_expression(&field.base),
        Expr::Index(index) => {
            !matches!(strip(&index.index), Expr::Range(_)) && is_place_expression(&index.expr)
        }
        Expr::Unary(unary) => {
            matches!(unary.op, syn::UnOp::Deref(_)) && is_place_expression(&unary.expr)
        }
        _ => false,
    }
}

/// `x[a..b]` of a place (or of a sub-slice of one).
pub(super) fn is_sub_slice(expr: &Expr) -> bool {
    match strip(expr) {
        Expr::Index(index) => {
            matches!(strip(&index.index), Expr::Range(_))
                && (is_place_expression(&index.expr) || is_sub_slice(&index.expr))
        }
        _ => false,
    }
}
