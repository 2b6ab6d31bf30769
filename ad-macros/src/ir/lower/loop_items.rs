//! What a loop over a container iterates (`for (i, w) in x.windows(2).enumerate()`, an iterator
//! chain's source), and what each iteration binds. The loop runs over indices, never over the
//! container's elements: each item is read (or borrowed) from its container at its index, so
//! its adjoint goes to the same place in the container's shadow. Plain `iter`, `enumerate` and
//! `zip` share one index, `0..len`; with adapters (`rev`, `skip`, `take`, `step_by`) or
//! sub-slices (`windows`, `chunks`, `chunks_exact`) the loop runs the same adapters over the
//! indices, an iterator of data whose items the backward sweep keeps.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Pat};

use super::*;

/// What a loop over containers iterates: `S` is a source container (an expression as
/// written, then a place), `A` an adapter's argument (an expression, then an operand).
#[derive(Clone)]
pub(super) enum Items<S, A> {
    /// The elements of `source`, borrowed (`iter()`, `&v`), borrowed mutably (`iter_mut()`,
    /// `&mut v`) or read (`.copied()`).
    Elements {
        source: S,
        access: Access,
    },
    /// Sub-slices of `source` (`windows(n)`, `chunks(n)`, `chunks_exact(n)`), borrowed, or
    /// borrowed mutably (`chunks_mut(n)`, `chunks_exact_mut(n)`).
    Slices {
        source: S,
        kind: SliceKind,
        size: A,
        mutable: bool,
    },
    Enumerated(Box<Items<S, A>>),
    Zipped(Box<Items<S, A>>, Box<Items<S, A>>),
    /// `rev()`, `skip(n)`, `take(n)`, `step_by(n)` of the items.
    Adapted {
        inner: Box<Items<S, A>>,
        method: Ident,
        arg: Option<A>,
    },
}

/// The items as the code writes them.
pub(super) type WrittenItems<'e> = Items<&'e Expr, &'e Expr>;
/// The items with their sources as places.
pub(super) type PlacedItems = Items<Place, Operand>;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    Read,
    Borrowed,
    BorrowedMutably,
    /// As the source's type iterates (`for k in knots`, the type not written): the runtime's
    /// `ForItems` decides (`Body::iterated`).
    ByType,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum SliceKind {
    Windows,
    Chunks,
    ChunksExact,
}

/// One iteration's item, where it is.
pub(super) enum Item {
    /// An element of a source: `place` is the source at the iteration's index.
    Element { place: Place, access: Access },
    /// A sub-slice of a source, borrowed (mutably when the flag says so).
    Slice(Place, bool),
    /// An index of `enumerate`.
    Data(Value),
    /// What `enumerate` and `zip` pair.
    Pair(Box<Item>, Box<Item>),
}

/// How a loop over items runs: its iterator, and whether that is `0..len`, the index of every
/// source (or an iterator of indices, shaped as the items are).
pub(super) struct Iteration {
    pub(super) iterator: Operand,
    shared_index: bool,
}

impl Iteration {
    pub(super) fn shares_index(&self) -> bool {
        self.shared_index
    }
}

impl PlacedItems {
    /// Each source, and whether its type decides its items (`Access::ByType`).
    fn sources(&self) -> Vec<(&Place, bool)> {
        match self {
            Items::Elements { source, access } => vec![(source, *access == Access::ByType)],
            Items::Slices { source, .. } => vec![(source, false)],
            Items::Enumerated(inner) | Items::Adapted { inner, .. } => inner.sources(),
            Items::Zipped(left, right) => {
                let mut sources = left.sources();
                sources.extend(right.sources());
                sources
            }
        }
    }

    /// Whether one index reaches every item: no adapter and no sub-slices.
    fn indexed_alike(&self) -> bool {
        match self {
            Items::Elements { .. } => true,
            Items::Slices { .. } | Items::Adapted { .. } => false,
            Items::Enumerated(inner) => inner.indexed_alike(),
            Items::Zipped(left, right) => left.indexed_alike() && right.indexed_alike(),
        }
    }
}

impl<'e> WrittenItems<'e> {
    /// The same items, each element read rather than borrowed (`.copied()`, `.cloned()`);
    /// `None` where an item is not an element.
    fn read(self) -> Option<Self> {
        Some(match self {
            Items::Elements { source, .. } => Items::Elements {
                source,
                access: Access::Read,
            },
            Items::Slices { .. } | Items::Enumerated(_) | Items::Zipped(..) => return None,
            Items::Adapted { inner, method, arg } => Items::Adapted {
                inner: Box::new(inner.read()?),
                method,
                arg,
            },
        })
    }
}

impl Lowering {
    /// What a `for` over a container iterates, by syntax: `&v`, `v.iter()` (elements
    /// borrowed), `.copied()`/`.cloned()` of those (elements read), a parameter of a reference
    /// type (elements borrowed, mutably for a `&mut` one), a parameter that is a `Vec` or an
    /// array of numbers (elements read),
    /// `v.windows(n)`, `v.chunks(n)`, `v.chunks_exact(n)`, and `.enumerate()`, `.zip(..)`,
    /// `.rev()`, `.skip(n)`, `.take(n)` and `.step_by(n)` of those.
    pub(super) fn items<'e>(&self, expr: &'e Expr) -> Option<WrittenItems<'e>> {
        match strip(expr) {
            Expr::Reference(reference) => Some(Items::Elements {
                source: &*reference.expr,
                access: match reference.mutability {
                    Some(_) => Access::BorrowedMutably,
                    None => Access::Borrowed,
                },
            }),
            Expr::MethodCall(call) if call.turbofish.is_none() => {
                let method = call.method.to_string();
                let slices = |kind, mutable| Items::Slices {
                    source: &*call.receiver,
                    kind,
                    size: &call.args[0],
                    mutable,
                };
                let adapted = |inner| Items::Adapted {
                    inner: Box::new(inner),
                    method: call.method.clone(),
                    arg: call.args.first(),
                };
                match (method.as_str(), call.args.len()) {
                    ("iter", 0) => Some(Items::Elements {
                        source: &*call.receiver,
                        access: Access::Borrowed,
                    }),
                    ("iter_mut", 0) => Some(Items::Elements {
                        source: &*call.receiver,
                        access: Access::BorrowedMutably,
                    }),
                    ("copied" | "cloned" | "to_vec" | "to_owned", 0) => {
                        self.items(&call.receiver)?.read()
                    }
                    // What iterating the receiver itself gives.
                    ("into_iter" | "clone", 0) => self.items(&call.receiver),
                    ("windows", 1) => Some(slices(SliceKind::Windows, false)),
                    ("chunks", 1) => Some(slices(SliceKind::Chunks, false)),
                    ("chunks_exact", 1) => Some(slices(SliceKind::ChunksExact, false)),
                    ("chunks_mut", 1) => Some(slices(SliceKind::Chunks, true)),
                    ("chunks_exact_mut", 1) => Some(slices(SliceKind::ChunksExact, true)),
                    ("enumerate", 0) => {
                        Some(Items::Enumerated(Box::new(self.items(&call.receiver)?)))
                    }
                    ("zip", 1) => Some(Items::Zipped(
                        Box::new(self.items(&call.receiver)?),
                        Box::new(self.items(&call.args[0])?),
                    )),
                    ("rev", 0) | ("skip" | "take" | "step_by", 1) => {
                        Some(adapted(self.items(&call.receiver)?))
                    }
                    _ => None,
                }
            }
            Expr::Path(path) => {
                let ident = path.path.get_ident()?;
                match self.resolve(ident)? {
                    // A `&mut` parameter iterated (`for v in o`, `o.into_iter()`,
                    // `std::iter::zip(o, ..)`): its elements, lent mutably.
                    root if self.mutable_references.contains(&root) => Some(Items::Elements {
                        source: expr,
                        access: Access::BorrowedMutably,
                    }),
                    Root::Value(value) if self.references.contains(&value) => {
                        Some(Items::Elements {
                            source: expr,
                            access: Access::Borrowed,
                        })
                    }
                    // A `Vec` or an array of numbers taken by value: its elements, copied.
                    root if self.number_containers.contains(&root) => Some(Items::Elements {
                        source: expr,
                        access: Access::Read,
                    }),
                    // An `Option` is not iterated by index.
                    Root::Value(value)
                        if self.options.contains(&value) || self.built_options.contains(&value) =>
                    {
                        None
                    }
                    _ => Some(Items::Elements {
                        source: expr,
                        access: Access::ByType,
                    }),
                }
            }
            _ => None,
        }
    }

    /// The container a loop or a chain iterates: a place, or a temporary holding what a call
    /// gives (`x.iter().map(..).collect::<Vec<f64>>().iter()`, `weights(n).iter()`).
    fn iterated_place(&mut self, source: &Expr, stmts: &mut Vec<Stmt>) -> Lowered<Place> {
        match strip(source) {
            Expr::MethodCall(_) | Expr::Call(_) | Expr::Macro(_) => {
                self.temporary(source, source.span(), stmts)
            }
            _ => self.place(source, stmts),
        }
    }

    pub(super) fn place_items(
        &mut self,
        items: WrittenItems,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<PlacedItems> {
        Ok(match items {
            Items::Elements { source, access } => Items::Elements {
                source: self.iterated_place(source, stmts)?,
                access,
            },
            Items::Slices {
                source,
                kind,
                size,
                mutable,
            } => Items::Slices {
                source: self.iterated_place(source, stmts)?,
                kind,
                size: self.operand(size, stmts)?,
                mutable,
            },
            Items::Enumerated(inner) => {
                Items::Enumerated(Box::new(self.place_items(*inner, stmts)?))
            }
            Items::Zipped(left, right) => Items::Zipped(
                Box::new(self.place_items(*left, stmts)?),
                Box::new(self.place_items(*right, stmts)?),
            ),
            Items::Adapted { inner, method, arg } => Items::Adapted {
                inner: Box::new(self.place_items(*inner, stmts)?),
                method,
                arg: arg.map(|arg| self.operand(arg, stmts)).transpose()?,
            },
        })
    }

    /// The iterator a loop over `items` runs: `0..len` of the shortest source where one index
    /// reaches every item, else an iterator of indices shaped as the items.
    pub(super) fn iteration(
        &mut self,
        items: &PlacedItems,
        span: Span,
        stmts: &mut Vec<Stmt>,
        iterated: &Expr,
    ) -> Lowered<Iteration> {
        let source_span = iterated.span();
        if !items.indexed_alike() {
            let iterator = self.indices(items, span, source_span, stmts);
            return Ok(Iteration {
                iterator: Operand::Value(iterator),
                shared_index: false,
            });
        }
        let mut length = None;
        for (source, by_type) in items.sources() {
            let len = match by_type {
                true => self.items_length(source, source_span, stmts),
                false => self.length(source, span, stmts),
            };
            length = Some(match length {
                None => len,
                Some(shorter) => {
                    let len = vec![Operand::Value(len)];
                    self.data_method(Operand::Value(shorter), "min", len, span, stmts)
                }
            });
        }
        let Some(length) = length else {
            return not_yet(
                iterated,
                "`for` over this iterator: loop over a range of indices, or over a slice, `Vec` or \
                 array",
            );
        };
        let range = self.index_range(Operand::Value(length), span, stmts);
        Ok(Iteration {
            iterator: Operand::Value(range),
            shared_index: true,
        })
    }

    /// The item of the iteration that `iteration.iterator` gave `at`.
    pub(super) fn item_at(
        &mut self,
        items: &PlacedItems,
        iteration: &Iteration,
        at: Value,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Item {
        match items {
            Items::Elements { source, access } => {
                let mut place = source.clone();
                place
                    .projections
                    .push(Projection::Index(Operand::Value(at)));
                place.span = span;
                Item::Element {
                    place,
                    access: *access,
                }
            }
            Items::Slices {
                source,
                kind,
                size,
                mutable,
            } => {
                let end = self.data_method(
                    Operand::Value(at),
                    "saturating_add",
                    vec![size.clone()],
                    span,
                    stmts,
                );
                let end = match kind {
                    // The last chunk may be shorter.
                    SliceKind::Chunks => {
                        let len = self.length(source, span, stmts);
                        let len = vec![Operand::Value(len)];
                        self.data_method(Operand::Value(end), "min", len, span, stmts)
                    }
                    SliceKind::Windows | SliceKind::ChunksExact => end,
                };
                let mut place = source.clone();
                place
                    .projections
                    .push(Projection::Slice(Operand::Value(at), Operand::Value(end)));
                place.span = span;
                Item::Slice(place, *mutable)
            }
            Items::Enumerated(inner) if iteration.shared_index => Item::Pair(
                Box::new(Item::Data(at)),
                Box::new(self.item_at(inner, iteration, at, span, stmts)),
            ),
            Items::Zipped(left, right) if iteration.shared_index => Item::Pair(
                Box::new(self.item_at(left, iteration, at, span, stmts)),
                Box::new(self.item_at(right, iteration, at, span, stmts)),
            ),
            // The iterator of indices gives pairs where the items are pairs.
            Items::Enumerated(inner) => {
                let count = self.tuple_field(at, 0, span, stmts);
                let inner_at = self.tuple_field(at, 1, span, stmts);
                Item::Pair(
                    Box::new(Item::Data(count)),
                    Box::new(self.item_at(inner, iteration, inner_at, span, stmts)),
                )
            }
            Items::Zipped(left, right) => {
                let left_at = self.tuple_field(at, 0, span, stmts);
                let right_at = self.tuple_field(at, 1, span, stmts);
                Item::Pair(
                    Box::new(self.item_at(left, iteration, left_at, span, stmts)),
                    Box::new(self.item_at(right, iteration, right_at, span, stmts)),
                )
            }
            Items::Adapted { inner, .. } => self.item_at(inner, iteration, at, span, stmts),
        }
    }

    /// The item as one operand (a closure's argument): an element (borrowed when `borrowed`
    /// and the elements are borrowed), a sub-slice's place, or a tuple.
    pub(super) fn item_operand(
        &mut self,
        item: Item,
        borrowed: bool,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Operand {
        match item {
            // Of a derived type the file declares (`self.neurons.iter().map(|n| ..)`): its
            // methods are its type's, as for a `for` loop's item.
            Item::Element {
                place,
                access: Access::ByType,
            } => {
                let element_type = self.element_type(&place);
                let value = self.iterated_item(place, span, stmts);
                if let Some(type_path) = element_type {
                    self.user_values.insert(Root::Value(value), type_path);
                }
                Operand::Value(value)
            }
            Item::Element { place, access } => {
                let element_type = self.element_type(&place);
                let rvalue = if access != Access::Read && borrowed {
                    Rvalue::Ref(Operand::Place(place))
                } else {
                    Rvalue::Use(Operand::Place(place))
                };
                let value = self.define(rvalue, span, stmts);
                if let Some(type_path) = element_type {
                    self.user_values.insert(Root::Value(value), type_path);
                }
                Operand::Value(value)
            }
            Item::Slice(place, _) => Operand::Place(place),
            Item::Data(value) => Operand::Value(value),
            Item::Pair(left, right) => {
                let mut parts = Vec::new();
                for part in [*left, *right] {
                    parts.push(match part {
                        // Inside a tuple a sub-slice is a reference to it.
                        Item::Slice(place, _) => Operand::Value(self.define(
                            Rvalue::Ref(Operand::Place(place)),
                            span,
                            stmts,
                        )),
                        part => self.item_operand(part, borrowed, span, stmts),
                    });
                }
                let tuple = self.define(Rvalue::Tuple(parts.clone()), span, stmts);
                self.zipped_items.insert(tuple, parts);
                Operand::Value(tuple)
            }
        }
    }

    /// The derived type of the element `place` is, when it is one of a `#[grad]` container
    /// of a derived type (`bodies[i]`).
    pub(super) fn element_type(&self, place: &Place) -> Option<syn::Path> {
        match place.projections.as_slice() {
            [Projection::Index(_)] | [Projection::Deref, Projection::Index(_)] => {
                self.user_containers.get(&place.root).cloned()
            }
            // `self.layers[i]` of a derived value whose struct declares `layers: Vec<Layer>`
            // (through fields of derived types the file declares).
            [before @ .., Projection::Field(syn::Member::Named(container)), Projection::Index(_)] =>
            {
                let mut ty = self
                    .user_values
                    .get(&place.root)?
                    .segments
                    .last()?
                    .ident
                    .to_string();
                for projection in before {
                    match projection {
                        Projection::Deref => {}
                        Projection::Field(syn::Member::Named(field)) => {
                            ty = crate::source_facts::field_type(&ty, &field.to_string())?;
                        }
                        _ => return None,
                    }
                }
                let element = crate::source_facts::field_element_type(&ty, &container.to_string())?;
                Some(syn::Ident::new(&element, container.span()).into())
            }
            _ => None,
        }
    }

    /// Binds the loop pattern's names to an iteration's item.
    pub(super) fn bind_item(
        &mut self,
        pat: &Pat,
        item: Item,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        match (pat, item) {
            (Pat::Wild(_), _) => Ok(()),
            (Pat::Paren(paren), item) => self.bind_item(&paren.pat, item, stmts),
            (Pat::Tuple(tuple), Item::Pair(left, right)) if tuple.elems.len() == 2 => {
                self.bind_item(&tuple.elems[0], *left, stmts)?;
                self.bind_item(&tuple.elems[1], *right, stmts)
            }
            (Pat::Ident(name), Item::Data(index)) if plain_name(name) => {
                self.bind(&name.ident, Root::Value(index));
                Ok(())
            }
            (other, Item::Data(_)) => not_yet(other, "this index pattern"),
            (Pat::Ident(name), Item::Slice(place, mutable)) if plain_name(name) => {
                self.bind_borrowed(&name.ident, place, mutable);
                Ok(())
            }
            // `for e in v.iter_mut()`: `e` borrows the element, and what is written through it
            // is written to it.
            (
                Pat::Ident(name),
                Item::Element {
                    place,
                    access: Access::BorrowedMutably,
                },
            ) if plain_name(name) => {
                self.bind_borrowed(&name.ident, place, true);
                Ok(())
            }
            (
                other,
                Item::Element {
                    access: Access::BorrowedMutably,
                    ..
                },
            ) => not_yet(other, "this pattern of a mutable borrow"),
            (
                Pat::Ident(name),
                Item::Element {
                    place,
                    access: Access::ByType,
                },
            ) if plain_name(name) => {
                let element_type = self.element_type(&place);
                let value = self.iterated_item(place, name.ident.span(), stmts);
                self.values[value.0 as usize].name = Some(name.ident.clone());
                self.bind(&name.ident, Root::Value(value));
                if let Some(type_path) = element_type {
                    self.user_values.insert(Root::Value(value), type_path);
                }
                Ok(())
            }
            (
                other,
                Item::Element {
                    access: Access::ByType,
                    ..
                },
            ) => not_yet(
                other,
                "this pattern of items of a container whose type is not written",
            ),
            // `for &(t, c) in flows`, `for (a, b) in pairs` (by value): the element read, and
            // taken apart as a `let` would.
            (pat, Item::Element { place, access })
                if !binds_whole_element(pat, access == Access::Borrowed) =>
            {
                let inner = match pat {
                    Pat::Reference(reference)
                        if access == Access::Borrowed && reference.mutability.is_none() =>
                    {
                        &*reference.pat
                    }
                    Pat::Reference(_) => return not_yet(pat, "this element pattern"),
                    // `for (x, y) in points` over `&[(f64, f64)]`: Rust's binding mode makes
                    // each name a reference to its field of the element.
                    _ if access == Access::Borrowed => {
                        return match self.bind_fields_borrowed(pat, place.clone()) {
                            true => Ok(()),
                            false => not_yet(pat, "this element pattern (write `&` before it)"),
                        };
                    }
                    _ => pat,
                };
                let span = pat.span();
                let mut element = place;
                element.span = span;
                let whole = self.new_value(None, span);
                stmts.push(Stmt::Let(Let {
                    value: whole,
                    rvalue: Rvalue::Use(Operand::Place(element)),
                    span,
                }));
                let whole = Place {
                    root: Root::Value(whole),
                    projections: Vec::new(),
                    span,
                };
                self.destructure(inner, whole, stmts)
            }
            (pat, Item::Element { place, access }) => {
                let by_reference = access == Access::Borrowed;
                let span = pat.span();
                let (name, read) = match pat {
                    Pat::Reference(reference) if by_reference && reference.mutability.is_none() => {
                        match &*reference.pat {
                            Pat::Ident(name) if name.by_ref.is_none() && name.subpat.is_none() => {
                                (name, true)
                            }
                            Pat::Wild(_) => return Ok(()),
                            other => return not_yet(other, "this element pattern"),
                        }
                    }
                    Pat::Ident(name) if name.by_ref.is_none() && name.subpat.is_none() => {
                        (name, !by_reference)
                    }
                    other => return not_yet(other, "this element pattern"),
                };
                let element_type = self.element_type(&place);
                let mut element = place;
                element.span = span;
                let rvalue = if read {
                    Rvalue::Use(Operand::Place(element))
                } else {
                    Rvalue::Ref(Operand::Place(element))
                };
                let value = self.new_value(Some(name.ident.clone()), name.ident.span());
                if !read {
                    self.references.insert(value);
                }
                stmts.push(Stmt::Let(Let {
                    value,
                    rvalue,
                    span,
                }));
                let root = if name.mutability.is_some() {
                    let var = self.new_var(&name.ident);
                    stmts.push(Stmt::DeclareVar {
                        var,
                        init: Some(Operand::Value(value)),
                    });
                    Root::Var(var)
                } else {
                    Root::Value(value)
                };
                self.bind(&name.ident, root);
                // An item of a `#[grad]` container of a derived type is a value of the type:
                // its methods are the type's own.
                if let Some(type_path) = element_type {
                    self.user_values.insert(root, type_path);
                }
                Ok(())
            }
            (other, _) => not_yet(other, "this loop pattern"),
        }
    }

    /// An item of a container whose type the code does not show, as its `for` gives it.
    fn iterated_item(&mut self, place: Place, span: Span, stmts: &mut Vec<Stmt>) -> Value {
        let value = self.define(Rvalue::Ref(Operand::Place(place)), span, stmts);
        self.references.remove(&value);
        self.iterated.insert(value);
        value
    }

    /// The iterator of indices that reaches `items` as the written chain reaches them.
    fn indices(
        &mut self,
        items: &PlacedItems,
        span: Span,
        source_span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Value {
        match items {
            Items::Elements { source, access } => {
                let len = match access {
                    Access::ByType => self.items_length(source, source_span, stmts),
                    _ => self.length(source, span, stmts),
                };
                self.index_range(Operand::Value(len), span, stmts)
            }
            // The starts of the sub-slices: those with `size` elements from them, or (`chunks`)
            // every `size`-th.
            Items::Slices {
                source, kind, size, ..
            } => {
                let len = self.length(source, span, stmts);
                // `windows(0)` and `chunks(0)` panic, as `std`'s do.
                let checks = Operand::Constant(Constant {
                    tokens: quote::quote_spanned!(span=> ::ad_runtime::__private::ir::SubSlices),
                    kind: ConstantKind::Data,
                    span,
                });
                let size = self.data_method(checks, "size", vec![size.clone()], span, stmts);
                let size = &Operand::Value(size);
                let end = match kind {
                    SliceKind::Chunks => Operand::Value(len),
                    SliceKind::Windows | SliceKind::ChunksExact => {
                        let one = Operand::Constant(Constant {
                            tokens: quote::quote_spanned!(span=> 1usize),
                            kind: ConstantKind::Data,
                            span,
                        });
                        let past = self.data_method(
                            Operand::Value(len),
                            "saturating_add",
                            vec![one],
                            span,
                            stmts,
                        );
                        Operand::Value(self.data_method(
                            Operand::Value(past),
                            "saturating_sub",
                            vec![size.clone()],
                            span,
                            stmts,
                        ))
                    }
                };
                let starts = self.index_range(end, span, stmts);
                match kind {
                    SliceKind::Windows => starts,
                    SliceKind::Chunks | SliceKind::ChunksExact => self.data_method(
                        Operand::Value(starts),
                        "step_by",
                        vec![size.clone()],
                        span,
                        stmts,
                    ),
                }
            }
            Items::Enumerated(inner) => {
                let inner = self.indices(inner, span, source_span, stmts);
                self.data_method(Operand::Value(inner), "enumerate", Vec::new(), span, stmts)
            }
            Items::Zipped(left, right) => {
                let left = self.indices(left, span, source_span, stmts);
                let right = self.indices(right, span, source_span, stmts);
                self.data_method(
                    Operand::Value(left),
                    "zip",
                    vec![Operand::Value(right)],
                    span,
                    stmts,
                )
            }
            Items::Adapted { inner, method, arg } => {
                let inner = self.indices(inner, span, source_span, stmts);
                let method = method.to_string();
                let args = arg.iter().cloned().collect();
                self.data_method(Operand::Value(inner), &method, args, span, stmts)
            }
        }
    }

    /// The length of a source whose type the code does not show, by the runtime's `ForItems`
    /// (whose message says what may be iterated).
    fn items_length(&mut self, source: &Place, span: Span, stmts: &mut Vec<Stmt>) -> Value {
        let source = self.define(Rvalue::Ref(Operand::Place(source.clone())), span, stmts);
        let lengths = Operand::Constant(Constant {
            tokens: quote::quote_spanned!(span=> ::ad_runtime::__private::ir::ItemsLength),
            kind: ConstantKind::Data,
            span,
        });
        self.data_method(lengths, "of", vec![Operand::Value(source)], span, stmts)
    }

    pub(super) fn length(&mut self, source: &Place, span: Span, stmts: &mut Vec<Stmt>) -> Value {
        self.data_method(
            Operand::Place(source.clone()),
            "len",
            Vec::new(),
            span,
            stmts,
        )
    }

    /// `0..end`.
    pub(super) fn index_range(&mut self, end: Operand, span: Span, stmts: &mut Vec<Stmt>) -> Value {
        let zero = Operand::Constant(Constant {
            tokens: quote::quote_spanned!(span=> 0usize),
            kind: ConstantKind::Data,
            span,
        });
        self.define(
            Rvalue::Range {
                start: Some(zero),
                end: Some(end),
                inclusive: false,
            },
            span,
            stmts,
        )
    }

    pub(super) fn data_method(
        &mut self,
        receiver: Operand,
        method: &str,
        args: Vec<Operand>,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Value {
        self.define(
            Rvalue::DataMethod {
                receiver,
                method: Ident::new(method, span),
                args,
            },
            span,
            stmts,
        )
    }

    /// Field `index` of a tuple of data.
    fn tuple_field(
        &mut self,
        tuple: Value,
        index: u32,
        span: Span,
        stmts: &mut Vec<Stmt>,
    ) -> Value {
        let place = Place {
            root: Root::Value(tuple),
            projections: vec![Projection::Field(syn::Member::Unnamed(syn::Index {
                index,
                span,
            }))],
            span,
        };
        self.define(Rvalue::Use(Operand::Place(place)), span, stmts)
    }
}

/// A pattern that is a name alone (no `ref`, `mut` or `@`).
fn plain_name(name: &syn::PatIdent) -> bool {
    name.by_ref.is_none() && name.subpat.is_none() && name.mutability.is_none()
}

/// Whether an element pattern binds the element (or its reference) whole, or nothing: `v`,
/// `&v`, `&_`; not one that takes it apart.
impl Lowering {
    /// A tuple pattern of names (and `_`, nested tuples) matched against a borrowed element:
    /// each name borrows its field, as Rust's default binding mode binds it. `false`, binding
    /// nothing, for any other pattern.
    fn bind_fields_borrowed(&mut self, pat: &Pat, place: Place) -> bool {
        fn fields(pat: &Pat, place: Place, names: &mut Vec<(Ident, Place)>) -> bool {
            match pat {
                Pat::Wild(_) => true,
                Pat::Paren(paren) => fields(&paren.pat, place, names),
                Pat::Ident(name) if name.by_ref.is_none() && name.subpat.is_none() => {
                    names.push((name.ident.clone(), place));
                    true
                }
                Pat::Tuple(tuple) => tuple.elems.iter().enumerate().all(|(index, elem)| {
                    let mut field = place.clone();
                    field
                        .projections
                        .push(Projection::Field(syn::Member::Unnamed(syn::Index {
                            index: index as u32,
                            span: elem.span(),
                        })));
                    fields(elem, field, names)
                }),
                _ => false,
            }
        }
        let mut names = Vec::new();
        if !matches!(pat, Pat::Tuple(_)) || !fields(pat, place, &mut names) {
            return false;
        }
        for (name, field) in names {
            self.bind_borrowed(&name, field, false);
        }
        true
    }
}

fn binds_whole_element(pat: &Pat, by_reference: bool) -> bool {
    let plain = |name: &syn::PatIdent| name.by_ref.is_none() && name.subpat.is_none();
    match pat {
        Pat::Reference(reference) if by_reference && reference.mutability.is_none() => {
            match &*reference.pat {
                Pat::Ident(name) => plain(name),
                Pat::Wild(_) => true,
                _ => false,
            }
        }
        Pat::Ident(name) => plain(name),
        _ => false,
    }
}
