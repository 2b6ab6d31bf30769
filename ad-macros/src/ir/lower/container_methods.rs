//! Methods that rearrange a local container (`v.swap(i, j)`, `v.reverse()`, `v.fill(x)`,
//! `v.copy_from_slice(s)`, `v.extend_from_slice(s)`, `v.truncate(n)`, `v.clear()`, `v.pop()`,
//! `v.insert(i, e)`, `v.remove(i)`, `v.swap_remove(i)`, `v.resize(n, e)`, `v.sort_by(cmp)`): lowered to the element reads, writes and pushes they are, so that each
//! element's adjoint moves with it through the shadow, as any element write moves it. Only a
//! container the body may assign (a local), as the methods take it by `&mut`.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, ExprMethodCall};

use super::*;

impl Lowering {
    /// The method lowered, and its value (`()`, or what `pop` gives); `None` where `call` is
    /// not one of these methods on a local container.
    pub(super) fn container_method(
        &mut self,
        call: &ExprMethodCall,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Operand>> {
        let method = call.method.to_string();
        let known = matches!(
            (method.as_str(), call.args.len()),
            ("swap" | "insert" | "resize", 2)
                | ("reverse" | "clear" | "pop", 0)
                | ("remove" | "swap_remove", 1)
                | (
                    "fill"
                        | "copy_from_slice"
                        | "clone_from_slice"
                        | "extend_from_slice"
                        | "truncate"
                        | "sort_by"
                        | "sort_unstable_by"
                        | "retain",
                    1
                )
        );
        if !known
            || call.turbofish.is_some()
            || !(is_place_expression(&call.receiver) || is_sub_slice(&call.receiver))
        {
            return Ok(None);
        }
        let Ok(container) = self.place(&call.receiver, stmts) else {
            return Ok(None);
        };
        // `retain` of a `&mut` parameter: a `Vec`'s, not a set's or a map's.
        if method == "retain"
            && self.mutable_references.contains(&container.root)
            && !self.sequence_params.contains(&container.root)
        {
            return Ok(None);
        }
        // A local container, or one a `&mut` parameter lends (`v: &mut Vec<f64>`, whose
        // shadow is the caller's).
        let lent = self.mutable_references.contains(&container.root);
        // A sub-slice (`m[1..n - 1].copy_from_slice(..)`) takes the methods that keep its
        // length, its elements indexed through it.
        let (last, before) = match container.projections.split_last() {
            Some((last, before)) => (Some(last), before),
            None => (None, &[][..]),
        };
        let keeps_length = matches!(
            method.as_str(),
            "fill" | "copy_from_slice" | "clone_from_slice" | "swap" | "reverse"
        );
        let sub_slice = matches!(last, Some(Projection::Slice(..))) && keeps_length;
        let resizes = !keeps_length && !matches!(method.as_str(), "sort_by" | "sort_unstable_by");
        if resizes
            && matches!(container.root, Root::Var(var) if self.owned_container_params.contains(&var))
        {
            return Ok(None);
        }
        let plain_projection = |projection: &Projection| {
            matches!(
                projection,
                Projection::Index(_) | Projection::Field(_) | Projection::Deref
            )
        };
        if !(matches!(container.root, Root::Var(var) if self.containers.contains(&var)) || lent)
            || !before.iter().all(plain_projection)
            || !(last.is_none_or(plain_projection) || sub_slice)
        {
            return Ok(None);
        }
        let span = call.span();
        let element = |index: Value| indexed(&container, index, span);
        match method.as_str() {
            "swap" => {
                let i = self.operand(&call.args[0], stmts)?;
                let j = self.operand(&call.args[1], stmts)?;
                let (i, j) = (self.as_value(i, span, stmts), self.as_value(j, span, stmts));
                self.swap_places(element(i), element(j), true, span, stmts);
            }
            "reverse" => {
                let len = self.length(&container, span, stmts);
                let half = self.data_method(
                    Operand::Value(len),
                    "wrapping_div",
                    vec![data(quote::quote!(2usize), span)],
                    span,
                    stmts,
                );
                let last = self.data_method(
                    Operand::Value(len),
                    "wrapping_sub",
                    vec![data(quote::quote!(1usize), span)],
                    span,
                    stmts,
                );
                self.for_each_index(Operand::Value(half), span, stmts, |this, k, body| {
                    let mirror = this.data_method(
                        Operand::Value(last),
                        "wrapping_sub",
                        vec![Operand::Value(k)],
                        span,
                        body,
                    );
                    this.swap_places(element(k), element(mirror), true, span, body);
                    Ok(())
                })?;
            }
            "fill" => {
                let value = self.argument_value(&call.args[0], span, stmts)?;
                let len = self.length(&container, span, stmts);
                self.for_each_index(Operand::Value(len), span, stmts, |_, k, body| {
                    body.push(Stmt::Assign {
                        place: element(k),
                        operand: Operand::Value(value),
                        span,
                    });
                    Ok(())
                })?;
            }
            "copy_from_slice" | "clone_from_slice" | "extend_from_slice" => {
                let source = self.source_place(&call.args[0], stmts)?;
                let source_len = self.length(&source, span, stmts);
                let extend = method == "extend_from_slice";
                if !extend {
                    // `std` panics where the lengths differ.
                    let len = self.length(&container, span, stmts);
                    let checks = data(quote::quote!(::ad_runtime::__private::ir::SubSlices), span);
                    self.data_method(
                        checks,
                        "same_length",
                        vec![Operand::Value(len), Operand::Value(source_len)],
                        span,
                        stmts,
                    );
                }
                self.for_each_index(Operand::Value(source_len), span, stmts, |this, k, body| {
                    let mut read = source.clone();
                    read.projections.push(Projection::Index(Operand::Value(k)));
                    let item = this.copy_of(read, span, body);
                    if extend {
                        let index = this.new_value(None, span);
                        body.push(Stmt::Push {
                            place: container.clone(),
                            operand: Operand::Value(item),
                            index,
                            span,
                        });
                    } else {
                        body.push(Stmt::Assign {
                            place: element(k),
                            operand: Operand::Value(item),
                            span,
                        });
                    }
                    Ok(())
                })?;
            }
            // Dropping elements: their adjoints are zero, as nothing reads them after.
            "truncate" | "clear" => {
                let args = self.operands(&call.args, stmts)?;
                self.define(
                    Rvalue::PlainMethod {
                        receiver: Operand::Place(container.clone()),
                        method: call.method.clone(),
                        args,
                        plain: false,
                    },
                    span,
                    stmts,
                );
            }
            "pop" => return self.pop(container, span, stmts).map(Some),
            "insert" => self.insert(&container, &call.args[0], &call.args[1], span, stmts)?,
            "remove" | "swap_remove" => {
                let swap = method == "swap_remove";
                return self
                    .remove(&container, &call.args[0], swap, span, stmts)
                    .map(Some);
            }
            "resize" => self.resize(&container, &call.args[0], &call.args[1], span, stmts)?,
            _ => {
                let Expr::Closure(closure) = strip(&call.args[0]) else {
                    return Ok(None);
                };
                let retains = method == "retain";
                self.reorder(&container, closure, retains, span, stmts)?;
            }
        }
        Ok(Some(data(quote::quote!(()), span)))
    }

    /// `v.insert(i, e)`: `e` pushed, the elements from `i` on moved one up from the last, `e`
    /// written at `i` (which panics past the end, as `insert` does).
    fn insert(
        &mut self,
        container: &Place,
        index: &Expr,
        inserted: &Expr,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        let index = self.argument_value(index, span, stmts)?;
        let inserted = self.argument_value(inserted, span, stmts)?;
        let len = self.length(container, span, stmts);
        let pushed = self.new_value(None, span);
        stmts.push(Stmt::Push {
            place: container.clone(),
            operand: Operand::Value(inserted),
            index: pushed,
            span,
        });
        let moved = self.data_method(
            Operand::Value(len),
            "saturating_sub",
            vec![Operand::Value(index)],
            span,
            stmts,
        );
        self.move_elements(container, moved, len, "wrapping_sub", span, stmts)?;
        stmts.push(Stmt::Assign {
            place: indexed(container, index, span),
            operand: Operand::Value(inserted),
            span,
        });
        Ok(())
    }

    /// `v.remove(i)`: a copy of `v[i]` (which panics past the end, as `remove` does), the
    /// elements after it moved one down, the last dropped. `v.swap_remove(i)`: the last moved
    /// to `i` instead.
    fn remove(
        &mut self,
        container: &Place,
        index: &Expr,
        swap: bool,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Operand> {
        let index = self.argument_value(index, span, stmts)?;
        let element = |position: Value| indexed(container, position, span);
        let removed = self.copy_of(element(index), span, stmts);
        let len = self.length(container, span, stmts);
        let last = self.data_method(
            Operand::Value(len),
            "wrapping_sub",
            vec![data(quote::quote!(1usize), span)],
            span,
            stmts,
        );
        if swap {
            let item = self.copy_of(element(last), span, stmts);
            stmts.push(Stmt::Assign {
                place: element(index),
                operand: Operand::Value(item),
                span,
            });
        } else {
            let moved = self.data_method(
                Operand::Value(last),
                "wrapping_sub",
                vec![Operand::Value(index)],
                span,
                stmts,
            );
            self.move_elements(container, moved, index, "wrapping_add", span, stmts)?;
        }
        self.truncate(container, last, span, stmts);
        Ok(Operand::Value(removed))
    }

    /// `v.resize(n, e)`: `e` pushed until there are `n` elements, then the rest dropped.
    fn resize(
        &mut self,
        container: &Place,
        new_len: &Expr,
        filler: &Expr,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        let new_len = self.argument_value(new_len, span, stmts)?;
        let filler = self.argument_value(filler, span, stmts)?;
        let len = self.length(container, span, stmts);
        let checks = data(quote::quote!(::ad_runtime::__private::ir::SubSlices), span);
        let added = self.data_method(
            checks,
            "added",
            vec![Operand::Value(len), Operand::Value(new_len)],
            span,
            stmts,
        );
        self.for_each_index(Operand::Value(added), span, stmts, |this, _, body| {
            let pushed = this.new_value(None, span);
            body.push(Stmt::Push {
                place: container.clone(),
                operand: Operand::Value(filler),
                index: pushed,
                span,
            });
            Ok(())
        })?;
        self.truncate(container, new_len, span, stmts);
        Ok(())
    }

    /// `count` elements moved one place toward `base`: for `j` in `0..count`, the element at
    /// `base ∓ j` (`step` is `wrapping_sub` or `wrapping_add`) takes a copy of its neighbour
    /// one further along, each element's adjoint moving with it.
    fn move_elements(
        &mut self,
        container: &Place,
        count: Value,
        base: Value,
        step: &str,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        self.for_each_index(Operand::Value(count), span, stmts, |this, j, body| {
            let to = this.data_method(
                Operand::Value(base),
                step,
                vec![Operand::Value(j)],
                span,
                body,
            );
            let from = this.data_method(
                Operand::Value(to),
                step,
                vec![data(quote::quote!(1usize), span)],
                span,
                body,
            );
            let item = this.copy_of(indexed(container, from, span), span, body);
            body.push(Stmt::Assign {
                place: indexed(container, to, span),
                operand: Operand::Value(item),
                span,
            });
            Ok(())
        })
    }

    /// An argument's value, evaluated where the method is called.
    fn argument_value(&mut self, arg: &Expr, span: Span, stmts: &mut Vec<Stmt>) -> Lowered<Value> {
        let operand = self.operand(arg, stmts)?;
        Ok(self.as_value(operand, span, stmts))
    }

    /// A copy of an element (`v[k].clone()`: a row of a `Vec` of rows is not moved out), its
    /// adjoint going to the element.
    fn copy_of(&mut self, element: Place, span: Span, stmts: &mut Vec<Stmt>) -> Value {
        self.define(
            Rvalue::Duplicate {
                receiver: Operand::Place(element),
                method: syn::Ident::new("clone", span),
            },
            span,
            stmts,
        )
    }

    /// `let a = x; let b = y; x = b; y = a;` of two places: elements copied (a row is not moved
    /// out of its container), or whole variables moved (`std::mem::swap`).
    pub(super) fn swap_places(
        &mut self,
        first: Place,
        second: Place,
        copied: bool,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) {
        let (a, b) = match copied {
            true => (
                self.copy_of(first.clone(), span, stmts),
                self.copy_of(second.clone(), span, stmts),
            ),
            false => (
                self.read(first.clone(), span, stmts),
                self.read(second.clone(), span, stmts),
            ),
        };
        stmts.push(Stmt::Assign {
            place: first,
            operand: Operand::Value(b),
            span,
        });
        stmts.push(Stmt::Assign {
            place: second,
            operand: Operand::Value(a),
            span,
        });
    }

    /// `for k in 0..end { body }`.
    fn for_each_index(
        &mut self,
        end: Operand,
        span: Span,
        stmts: &mut Vec<Stmt>,
        lower_body: impl FnOnce(&mut Self, Value, &mut Vec<Stmt>) -> Lowered<()>,
    ) -> Lowered<()> {
        let range = self.index_range(end, span, stmts);
        let k = self.new_value(None, span);
        let mut body = Vec::new();
        lower_body(self, k, &mut body)?;
        stmts.push(Stmt::For {
            binding: k,
            range: Operand::Value(range),
            body: Block {
                stmts: body,
                result: None,
            },
            flags: None,
            span,
        });
        Ok(())
    }

    /// The container an argument borrows (`&x[..2]`, `x`, `&w`).
    fn source_place(&mut self, arg: &Expr, stmts: &mut Vec<Stmt>) -> Lowered<Place> {
        match strip(arg) {
            Expr::Reference(reference) if reference.mutability.is_none() => {
                self.place(&reference.expr, stmts)
            }
            other => self.place(other, stmts),
        }
    }

    /// `v.pop()`: `if v.len() > 0 { let e = v[len - 1]; v.truncate(len - 1); Some(e) } else {
    /// None }`.
    fn pop(&mut self, container: Place, span: Span, stmts: &mut Vec<Stmt>) -> Lowered<Operand> {
        let len = self.length(&container, span, stmts);
        let nonempty = self.define(
            Rvalue::DataBinary(
                DataOp {
                    op: quote::quote_spanned!(span=> >),
                },
                Operand::Value(len),
                data(quote::quote!(0usize), span),
            ),
            span,
            stmts,
        );
        let mut then = Vec::new();
        let last = self.data_method(
            Operand::Value(len),
            "wrapping_sub",
            vec![data(quote::quote!(1usize), span)],
            span,
            &mut then,
        );
        let mut place = container.clone();
        place
            .projections
            .push(Projection::Index(Operand::Value(last)));
        let item = self.copy_of(place, span, &mut then);
        self.truncate(&container, last, span, &mut then);
        let some = self.define(Rvalue::Some(Operand::Value(item)), span, &mut then);
        let result = self.new_value(None, span);
        self.built_options.insert(result);
        stmts.push(Stmt::If {
            cond: Operand::Value(nonempty),
            then_branch: Block {
                stmts: then,
                result: Some(Operand::Value(some)),
            },
            else_branch: Block {
                stmts: Vec::new(),
                result: Some(data(quote::quote!(::core::option::Option::None), span)),
            },
            result: Some(result),
            span,
        });
        Ok(Operand::Value(result))
    }

    /// `v.sort_by(cmp)`: the order `cmp` sorts the elements in (data, by the runtime, a stable
    /// sort as `sort_by`'s), then each element written from a copy at its place in that order.
    /// `v.retain(keep)` (`retains`): the indices of the elements `keep` keeps, in order, then
    /// those elements written from a copy to the front, and the rest dropped.
    fn reorder(
        &mut self,
        container: &Place,
        compare: &syn::ExprClosure,
        retains: bool,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        // A test that counts or keeps state is not a comparison.
        if super::closures::first_write(&compare.body, &|_| false).is_some() {
            return not_yet(
                compare,
                "a comparator or test that assigns to a local: write the loop it runs (`for` \
                 over the elements, pushing those kept)",
            );
        }
        // The closure runs as written on the elements and locals at the derivative code's
        // scalar type, which a float literal is not (plain data keeps its floats).
        if names_a_float_literal(&compare.body) && !self.plain_roots.contains(&container.root) {
            return not_yet(
                compare,
                "a comparator or test that compares with a float literal (`*a > 0.5`): bind \
                 the number to a local first (`let limit = 0.5;`, then `*a > limit`)",
            );
        }
        let copy = self.define(
            Rvalue::Duplicate {
                receiver: Operand::Place(container.clone()),
                method: syn::Ident::new("clone", span),
            },
            span,
            stmts,
        );
        let copy = Place {
            root: Root::Value(copy),
            projections: Vec::new(),
            span,
        };
        let borrowed = self.define(Rvalue::Ref(Operand::Place(copy.clone())), span, stmts);
        let sorts = data(quote::quote!(::ad_runtime::__private::ir::SortOrder), span);
        let (plain, captured) = match retains {
            false => ("of", "of_captured"),
            true => ("kept", "kept_captured"),
        };
        let order = match self.captured_by(compare, span, stmts)? {
            Some((captures, compare)) => self.data_method(
                sorts,
                captured,
                vec![Operand::Value(borrowed), captures, compare],
                span,
                stmts,
            ),
            None => {
                let compare = self.plain_argument(&Expr::Closure(compare.clone()), stmts)?;
                self.data_method(
                    sorts,
                    plain,
                    vec![Operand::Value(borrowed), compare],
                    span,
                    stmts,
                )
            }
        };
        let len = match retains {
            false => self.length(container, span, stmts),
            true => self.data_method(Operand::Value(order), "len", Vec::new(), span, stmts),
        };
        self.for_each_index(Operand::Value(len), span, stmts, |this, k, body| {
            let at = this.define(
                Rvalue::Use(Operand::Place(Place {
                    root: Root::Value(order),
                    projections: vec![Projection::Index(Operand::Value(k))],
                    span,
                })),
                span,
                body,
            );
            let mut from = copy.clone();
            from.projections.push(Projection::Index(Operand::Value(at)));
            let item = this.copy_of(from, span, body);
            let mut to = container.clone();
            to.projections.push(Projection::Index(Operand::Value(k)));
            body.push(Stmt::Assign {
                place: to,
                operand: Operand::Value(item),
                span,
            });
            Ok(())
        })?;
        // Dropping the elements past those kept: their adjoints are zero, as nothing reads
        // them after.
        if retains {
            self.truncate(container, len, span, stmts);
        }
        Ok(())
    }

    /// `container.truncate(len)`: the dropped elements' adjoints are zero, as nothing reads
    /// them after.
    fn truncate(&mut self, container: &Place, len: Value, span: Span, stmts: &mut Vec<Stmt>) {
        self.define(
            Rvalue::PlainMethod {
                receiver: Operand::Place(container.clone()),
                method: syn::Ident::new("truncate", span),
                args: vec![Operand::Value(len)],
                plain: false,
            },
            span,
            stmts,
        );
    }
}

/// The element of `container` at `index`.
fn indexed(container: &Place, index: Value, span: Span) -> Place {
    let mut place = container.clone();
    place
        .projections
        .push(Projection::Index(Operand::Value(index)));
    place.span = span;
    place
}

impl Lowering {
    /// A comparator closure that names locals (`|&i, &j| x[i].partial_cmp(&x[j]).unwrap()`),
    /// as the tuple of those locals (lent, and read as values where they are `Copy`:
    /// `ir::CaptureProbe`) and the closure taking it first and taking it apart: what it gives
    /// is an ordering, data, whatever they hold.
    fn captured_by(
        &mut self,
        compare: &syn::ExprClosure,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<(Operand, Operand)>> {
        let captured = self.closure_locals(compare);
        if captured.is_empty() || super::iterators::check_closure(compare).is_err() {
            return Ok(None);
        }
        // A name bound to a borrow (`for c in centers.iter()`) is a reference in the code, and
        // stays one; the others are read as values where they are `Copy`.
        let borrowed: Vec<bool> = captured
            .iter()
            .map(|name| matches!(self.binding(name), Some(Binding::Borrowed { .. })))
            .collect();
        let mut parts = Vec::new();
        for name in &captured {
            let place = self.place(&syn::parse_quote!(#name), stmts)?;
            parts.push(Operand::Value(self.define(
                Rvalue::Ref(Operand::Place(place)),
                span,
                stmts,
            )));
        }
        let captures = self.define(Rvalue::Tuple(parts), span, stmts);
        let probes = captured
            .iter()
            .zip(&borrowed)
            .filter(|(_, borrowed)| !**borrowed)
            .map(|(name, _)| {
                quote::quote_spanned!(span=>
                    let #name = (&::ad_runtime::__private::ir::CaptureProbe(#name)).__ad_captured();
                )
            });
        let inputs = compare.inputs.iter();
        let body = &compare.body;
        let closure = quote::quote_spanned!(span=>
            |__ad_captures, #(#inputs),*| {
                #[allow(unused_imports)]
                use ::ad_runtime::__private::ir::{CaptureByCopy as _, CaptureByReference as _};
                let (#(#captured,)*) = *__ad_captures;
                #(#probes)*
                #body
            }
        );
        Ok(Some((Operand::Value(captures), data(closure, span))))
    }
}

/// Whether `expr` writes a float literal (`0.5`, `1e-3`, `2f64`).
fn names_a_float_literal(expr: &Expr) -> bool {
    struct Literals(bool);
    impl<'ast> syn::visit::Visit<'ast> for Literals {
        fn visit_lit(&mut self, lit: &'ast syn::Lit) {
            self.0 |= crate::retype::float_literal(lit);
        }
    }
    let mut literals = Literals(false);
    syn::visit::Visit::visit_expr(&mut literals, expr);
    literals.0
}

fn data(tokens: proc_macro2::TokenStream, span: Span) -> Operand {
    Operand::Constant(Constant {
        tokens: quote::quote_spanned!(span=> #tokens),
        kind: ConstantKind::Data,
        span,
    })
}
