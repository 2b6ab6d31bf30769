//! Containers returned by calls inside reverse-mode code (`let h = layer(&w, &x);`) and by the
//! function itself: the local's adjoints, when its `let` is reached backwards, are the
//! cotangent handed to the callee's pullback; a returned container's adjoints are seeded from
//! the caller's cotangent.

use super::*;

impl Generator<'_> {
    /// `g(x)` or `p.method(x)` calling a differentiated function with floats.
    pub(super) fn calls_differentiated(&self, expr: &Expr) -> bool {
        match expr {
            Expr::MethodCall(call) => self.user_method(call).is_some(),
            Expr::Call(call) => {
                matches!(&*call.func, Expr::Path(path) if matches!(
                    classify_callee(&path.path, &self.locals),
                    Callee::UserFunction | Callee::UserMethod(..)
                )) && self.may_be_float(expr)
            }
            _ => false,
        }
    }

    /// `let y: Vec<f64> = g(x);` (or `let y = g(x);` with `y` indexed or iterated later) where
    /// `g` returns a `Vec` or an array of floats: a container local whose elements' adjoints,
    /// when its `let` is reached backwards, are the cotangent handed to `g`'s pullback.
    pub(super) fn container_result_local(
        &mut self,
        name: &Ident,
        mutability: Option<syn::token::Mut>,
        ty: Option<&syn::Type>,
        call: &Expr,
    ) {
        let ty_tokens = self.annotation(ty);
        let node = self.lower(call);
        let value = node.value();
        self.emit(quote!(let #mutability #name #ty_tokens = #value;));
        let vector = self.vector_slot();
        let length = self.fresh("len");
        self.emit(quote!(let #length = #name.len();));
        let cotangent = self.fresh("ct");
        let backprop = self.backprop(&node, cotangent.to_token_stream());
        self.piece(quote_spanned! {call.span()=>
            let #cotangent = ::ad_runtime::__private::Row::from_adjoints(
                &__adj.vector_result(#vector, #length),
            );
            #backprop
        });
        self.bind(name.clone(), Binding::Vector(vector));
    }

    /// `let m: Vec<Vec<f64>> = g(x);` (or `let m = g(x);` with `m[i][j]` read later) where `g`
    /// returns rows of floats: a container of containers whose elements' adjoints, when its
    /// `let` is reached backwards, are the cotangent (of the same shape) handed to `g`.
    pub(super) fn rows_result_local(
        &mut self,
        name: &Ident,
        mutability: Option<syn::token::Mut>,
        ty: Option<&syn::Type>,
        call: &Expr,
    ) {
        let ty_tokens = self.annotation(ty);
        let node = self.lower(call);
        let value = node.value();
        let vector = self.vector_slot();
        self.emit(quote!(let #mutability #name #ty_tokens = #value;));
        let offsets = self.emit_row_offsets(name);
        let (shape, cotangent) = (self.fresh("shape"), self.fresh("ct"));
        // Rows pushed later are taken by their own pushes; the result's own rows are these.
        self.emit(quote!(let #shape: ::std::vec::Vec<usize> = #offsets.clone();));
        let backprop = self.backprop(&node, cotangent.to_token_stream());
        self.piece(quote_spanned! {call.span()=>
            let #cotangent = ::ad_runtime::__private::unflatten(
                __adj.vector_result(#vector, #shape[#shape.len() - 1]),
                &#shape,
            );
            #backprop
        });
        self.bind_rows_built_here(name, vector, offsets);
    }

    /// The returned container as a name: the tail itself when `is_held` (a container local),
    /// else a local it is bound to first (`vec![..]`, `[a, b]`, a `collect`, a block).
    pub(super) fn held_result(
        &mut self,
        tail: &Expr,
        is_held: impl Fn(&Self, &Expr) -> bool,
    ) -> Expr {
        let tail = strip_parens(tail);
        if is_held(self, tail) {
            return tail.clone();
        }
        let ty = self.function.output().expect("a container result");
        let local: Stmt = syn::parse_quote_spanned!(tail.span()=>
            let __ad_result: #ty = #tail;
        );
        self.statement(&local);
        syn::parse_quote!(__ad_result)
    }
}
