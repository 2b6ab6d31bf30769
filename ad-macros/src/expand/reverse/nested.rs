//! Containers of containers in reverse mode (`&[Vec<f64>]`, `Vec<[f64; 3]>`, matrices built
//! in the body): one flat vector of adjoints, row after row, with the rows' start offsets
//! computed in the forward code where the container is made. `m[i][j]` is element
//! `offsets[i] + j`; rows may only be appended (`rows.push(row)`), so the offsets of the rows
//! already there never change.

use super::*;

impl Generator<'_> {
    /// A container of containers of floats built by a literal (`vec![vec![0.0; n]; m]`,
    /// `[[a, b], [c, d]]`): like a parameter of that shape, its elements' adjoints in one
    /// vector, row after row. Its shape is fixed here: reverse mode writes its elements but
    /// refuses whatever would change a row's length or replace a row.
    pub(super) fn nested_local(
        &mut self,
        name: &Ident,
        mutability: Option<syn::token::Mut>,
        ty: Option<&syn::Type>,
        literal: NestedLiteral,
    ) {
        let ty_tokens = self.annotation(ty);
        let rows = literal.evaluated();
        let leaves: Vec<&Expr> = rows.iter().flat_map(|row| row.evaluated()).collect();
        let nodes = self.lower_operands(&leaves);
        let mut values = nodes.iter().map(Node::value);
        let build = |is_vec: bool, body: TokenStream| {
            if is_vec {
                quote!(::std::vec![#body])
            } else {
                quote!([#body])
            }
        };
        let mut retyped_rows = Vec::new();
        for row in &rows {
            let body = match &row.items {
                LiteralItems::Repeat(_, count) => {
                    let (value, count) = (values.next().unwrap_or_default(), self.native(count));
                    quote!(#value; #count)
                }
                LiteralItems::List(elements) => {
                    let values = values.by_ref().take(elements.len());
                    quote!(#(#values),*)
                }
            };
            retyped_rows.push(build(row.is_vec, body));
        }
        let body = match &literal.items {
            LiteralItems::Repeat(_, count) => {
                let (row, count) = (retyped_rows.pop().unwrap_or_default(), self.native(count));
                quote!(#row; #count)
            }
            LiteralItems::List(_) => quote!(#(#retyped_rows),*),
        };
        let value = build(literal.is_vec, body);
        let vector = self.vector_slot();
        self.emit(quote!(let #mutability #name #ty_tokens = #value;));
        let offsets = self.emit_row_offsets(name);
        // Each float of the literal gets the cotangents of the elements it became.
        let cotangents = self.fresh("cts");
        let mut cotangent_of = Vec::new();
        match &literal.items {
            LiteralItems::Repeat(row, _) => match &row.items {
                LiteralItems::Repeat(..) => {
                    cotangent_of.push(
                        quote!(::ad_runtime::__private::sum_range(&#cotangents, 0, usize::MAX)),
                    );
                }
                LiteralItems::List(elements) => {
                    let stride = elements.len();
                    for first in 0..stride {
                        cotangent_of.push(quote!(::ad_runtime::__private::sum_strided(&#cotangents, #first, #stride)));
                    }
                }
            },
            LiteralItems::List(rows) => {
                let starts = self.fresh("starts");
                let bounds = (0..=rows.len()).map(|row| quote!(#offsets[#row]));
                let count = rows.len() + 1;
                self.emit(quote!(let #starts: [usize; #count] = [#(#bounds),*];));
                for (row, literal) in rows.iter().enumerate() {
                    match &literal.items {
                        LiteralItems::Repeat(..) => {
                            let end = row + 1;
                            cotangent_of.push(quote!(::ad_runtime::__private::sum_range(&#cotangents, #starts[#row], #starts[#end])));
                        }
                        LiteralItems::List(elements) => {
                            for column in 0..elements.len() {
                                cotangent_of.push(quote!(::ad_runtime::__private::cotangent_at(&#cotangents, #starts[#row] + #column)));
                            }
                        }
                    }
                }
            }
        }
        let mut backprops = TokenStream::new();
        for (node, cotangent) in nodes.iter().zip(cotangent_of) {
            let name = self.fresh("ct");
            let backprop = self.backprop(node, name.to_token_stream());
            if !backprop.is_empty() {
                backprops.extend(quote!(let #name = #cotangent; #backprop));
            }
        }
        self.piece(quote! {
            let #cotangents = __adj.take_vector(#vector);
            #backprops
        });
        self.bind_rows_built_here(name, vector, offsets);
    }

    /// Binds a container of containers made in this function (a literal, rows pushed, a call's
    /// result): rows may be pushed onto it.
    pub(super) fn bind_rows_built_here(&mut self, name: &Ident, vector: usize, offsets: Ident) {
        self.bind(
            name.clone(),
            Binding::Nested {
                vector,
                offsets,
                growable: true,
            },
        );
    }

    /// `let mut rows: Vec<Vec<f64>> = Vec::new();` (or a `Vec::new()` that rows are pushed
    /// onto): a container of containers without rows yet.
    pub(super) fn nested_empty_local(
        &mut self,
        name: &Ident,
        mutability: Option<syn::token::Mut>,
        ty: Option<&syn::Type>,
        init: &Expr,
    ) {
        let ty_tokens = self.annotation(ty);
        let value = self.native(init);
        let vector = self.vector_slot();
        let offsets = self.fresh("offsets");
        self.emit(quote! {
            let #mutability #name #ty_tokens = #value;
            #[allow(unused_mut)]
            let mut #offsets: ::std::vec::Vec<usize> = ::std::vec![0];
        });
        self.piece(quote!(let _ = __adj.take_vector(#vector);));
        self.bind_rows_built_here(name, vector, offsets);
    }

    /// `rows.push(row)` on a container of containers: the row's elements' adjoints are the
    /// next ones of its vector; backwards they go to the row's container.
    pub(super) fn push_row(&mut self, call: &syn::ExprMethodCall, vector: usize, offsets: Ident) {
        let Some(row) = call.args.first() else {
            return self.error(call, "`push` takes the row");
        };
        // A row that is not a local container yet is bound to one first, as `let` would.
        let named = match strip_parens(row) {
            Expr::Path(path) => path.path.get_ident().cloned(),
            _ => None,
        };
        let row_name = match named {
            Some(name) => name,
            None => {
                let name = self.fresh("row");
                self.statement(&syn::parse_quote!(let #name = #row;));
                name
            }
        };
        let (row_vector, row_value) = match self.lookup(&row_name) {
            Some(Binding::Vector(row_vector)) => (Some(row_vector), quote!(#row_name)),
            // Constants (`data(n)`, a `vec!` of literals): lifted to the scalar type.
            Some(Binding::Data) => {
                let scalar = self.scalar();
                let lifted =
                    quote!(::ad_runtime::__private::lift_elements::<#scalar, _>(#row_name));
                (None, lifted)
            }
            _ => {
                return self.error(
                    row,
                    "reverse mode pushes rows (containers of floats: `vec![..]`, `[..]`, a \
                     local `Vec<f64>`, a copy `x.to_vec()`) onto a container of containers; \
                     if this container holds floats, annotate it: \
                     `let mut v: Vec<f64> = Vec::new();`",
                )
            }
        };
        let receiver = &call.receiver;
        let (start, end) = (self.fresh("start"), self.fresh("end"));
        self.emit(quote! {
            let #start: usize = #offsets[#offsets.len() - 1];
            let #end: usize = #start + #row_name.len();
            #offsets.push(#end);
            #receiver.push(#row_value);
        });
        let cotangents = self.fresh("cts");
        let give =
            row_vector.map(|row_vector| quote!(__adj.add_vector(#row_vector, &#cotangents);));
        self.piece(quote! {
            let #cotangents = __adj.take_range(#vector, #start, #end);
            #give
        });
    }

    /// `vec![r0, r1]`, `vec![x.to_vec(); n]`: a `vec!` whose items are containers of floats
    /// held in variables or copied (not literals): the items, as a literal of them.
    pub(super) fn literal_of_rows(&self, init: &Expr) -> Option<ContainerLiteral<Expr>> {
        let is_row = |item: &Expr| {
            let named = matches!(strip_parens(item), Expr::Path(path)
                if path.path.get_ident().is_some_and(|name| matches!(self.lookup(name), Some(Binding::Vector(_)))));
            let copied = copied_container(item).is_some_and(|source| {
                self.vector_of(source).is_some()
                    || self.row_binding(source).is_some()
                    || self.nested_row(source).is_some()
            });
            (named || copied).then(|| item.clone())
        };
        let literal = ContainerLiteral::parse(init, &is_row)?;
        literal.is_vec.then_some(literal)
    }

    /// `let m = vec![r0, r1];` is `let mut m = Vec::new(); m.push(r0); m.push(r1);` and
    /// `let m = vec![row; n];` pushes `n` copies of `row`: rows pushed onto a container of
    /// containers.
    pub(super) fn rows_pushed_from_literal(
        &mut self,
        name: &Ident,
        ty: Option<&syn::Type>,
        init: &Expr,
        rows: ContainerLiteral<Expr>,
    ) {
        let empty: Expr = syn::parse_quote_spanned!(init.span()=> ::std::vec::Vec::new());
        self.nested_empty_local(name, Some(Default::default()), ty, &empty);
        let pushes: Vec<Stmt> = match rows.items {
            LiteralItems::List(items) => items
                .iter()
                .map(|item| syn::parse_quote_spanned!(item.span()=> #name.push(#item);))
                .collect(),
            LiteralItems::Repeat(item, count) => {
                let row = self.fresh("row");
                vec![
                    syn::parse_quote_spanned!(item.span()=> let #row = #item;),
                    syn::parse_quote_spanned!(item.span()=>
                        for _ in 0..#count {
                            #name.push(#row.clone());
                        }
                    ),
                ]
            }
        };
        for push in &pushes {
            self.statement(push);
        }
    }

    /// Where each row of the container of containers `name` starts in its flat adjoints, as a
    /// local (mutable: rows may be pushed).
    pub(super) fn emit_row_offsets(&mut self, name: &Ident) -> Ident {
        let offsets = self.fresh("offsets");
        self.emit(quote! {
            #[allow(unused_mut)]
            let mut #offsets = ::ad_runtime::__private::row_offsets(#name.iter().map(|row| row.len()));
        });
        offsets
    }

    /// `x[i][j]` on a container of containers: its vector slot, the place (`x[row][column]`,
    /// the indices evaluated once, here) and a local holding the element's position in the
    /// flat adjoint vector (`offsets[i] + j`).
    pub(super) fn nested_element(
        &mut self,
        index: &syn::ExprIndex,
    ) -> Option<(usize, TokenStream, Ident)> {
        let (vector, offsets, rows) = self.nested_row(&index.expr)?;
        let (row, column) = (self.fresh("row"), self.fresh("column"));
        let (row_value, column_value) = (self.native(&rows.index), self.native(&index.index));
        let base = &rows.expr;
        let position = self.fresh("i");
        self.emit(quote! {
            let #row: usize = #row_value;
            let #column: usize = #column_value;
            let #position: usize = #offsets[#row] + #column;
        });
        Some((vector, quote!(#base[#row][#column]), position))
    }

    /// `x`, `x[i]`, `&x[i]`, `(x)` for a container of containers `x`.
    pub(super) fn names_nested(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Reference(reference) => self.names_nested(&reference.expr),
            Expr::Paren(paren) => self.names_nested(&paren.expr),
            Expr::Index(index) => self.names_nested(&index.expr),
            Expr::Path(_) => self.nested_binding(expr).is_some(),
            _ => false,
        }
    }

    /// `x` naming a container of containers: its vector slot, row offsets and whether rows
    /// may be pushed onto it.
    pub(super) fn nested_binding(&self, expr: &Expr) -> Option<(usize, Ident, bool)> {
        let Expr::Path(path) = strip_parens(expr) else {
            return None;
        };
        match self.lookup(path.path.get_ident()?)? {
            Binding::Nested {
                vector,
                offsets,
                growable,
            } => Some((vector, offsets, growable)),
            _ => None,
        }
    }

    /// `x[i]` where `x` is a container of containers: its vector slot, row offsets, and the
    /// indexing.
    pub(super) fn nested_row<'e>(
        &self,
        expr: &'e Expr,
    ) -> Option<(usize, Ident, &'e syn::ExprIndex)> {
        let Expr::Index(rows) = strip_parens(expr) else {
            return None;
        };
        let (vector, offsets, _) = self.nested_binding(&rows.expr)?;
        Some((vector, offsets, rows))
    }

    /// `&x[i]` (or `x[i].as_slice()`) for a container of containers `x`: its vector and a
    /// local holding where row `i` starts in it, emitted here.
    pub(super) fn row_of(&mut self, expr: &Expr) -> Option<(usize, Ident)> {
        let row = match strip_parens(expr) {
            Expr::Reference(reference) if reference.mutability.is_none() => &*reference.expr,
            Expr::MethodCall(call) if call.method == "as_slice" && call.args.is_empty() => {
                &*call.receiver
            }
            _ => return None,
        };
        let (vector, offsets, rows) = self.nested_row(row)?;
        let start = self.fresh("start");
        let position = self.native(&rows.index);
        self.emit(quote!(let #start: usize = #offsets[#position];));
        Some((vector, start))
    }

    /// `&row[j]` (a row of a container of containers) or `&v[j]` (a container of floats): its
    /// vector and a local holding the element's position in it, emitted here.
    pub(super) fn element_reference(&mut self, expr: &Expr) -> Option<(usize, Ident)> {
        let Expr::Reference(reference) = strip_parens(expr) else {
            return None;
        };
        let Expr::Index(index) = strip_parens(&reference.expr) else {
            return None;
        };
        if matches!(&*index.index, Expr::Range(_)) {
            return None;
        }
        let (vector, start) = match self.row_binding(&index.expr) {
            Some((vector, start)) => (vector, Some(start)),
            // `&x[i][j]`: row `i` of a container of containers.
            None if self.nested_row(&index.expr).is_some() => {
                let row = &index.expr;
                let (vector, start) = self.row_of(&syn::parse_quote!(&#row))?;
                (vector, Some(start))
            }
            None => (self.vector_of(&index.expr)?, None),
        };
        let position = self.fresh("i");
        let value = self.native(&index.index);
        match start {
            Some(start) => self.emit(quote!(let #position: usize = #start + #value;)),
            None => self.emit(quote!(let #position: usize = #value;)),
        }
        Some((vector, position))
    }

    /// `x[i].to_vec()`, `x[i].clone()`, `row.to_vec()`: a copy of a row, as a container
    /// initializer (the row's start is emitted here).
    pub(super) fn row_copy(&mut self, expr: &Expr) -> Option<ContainerInit> {
        let receiver = copied_container(expr)?;
        if let Some((vector, start)) = self.row_binding(receiver) {
            return Some(ContainerInit::CopyOfRow(vector, start));
        }
        self.nested_row(receiver)?;
        let (vector, start) = self.row_of(&syn::parse_quote!(&#receiver))?;
        Some(ContainerInit::CopyOfRow(vector, start))
    }

    /// `rows.to_vec()`, `rows.clone()` of a container of containers: its vector and offsets.
    pub(super) fn nested_copy(&self, expr: &Expr) -> Option<(usize, Ident)> {
        let (vector, offsets, _) = self.nested_binding(copied_container(expr)?)?;
        Some((vector, offsets))
    }

    /// A row binding named by `expr` (`row`, `&row`, `(row)`).
    pub(super) fn row_binding(&self, expr: &Expr) -> Option<(usize, Ident)> {
        match strip_parens(expr) {
            Expr::Reference(reference) => self.row_binding(&reference.expr),
            Expr::Path(path) => match self.lookup(path.path.get_ident()?)? {
                Binding::Row { vector, start } => Some((vector, start)),
                _ => None,
            },
            _ => None,
        }
    }
}
