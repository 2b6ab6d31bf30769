//! The forward sweep of reverse mode on the AD-IR: the function's own code in ANF, which also
//! keeps on stacks what the backward sweep will read of values defined inside loops and
//! branches (values of the top level are captured by the pullback), and notes each adjoint's
//! type.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::Emitter;
use crate::ir::*;

impl Emitter<'_> {
    /// Keeps `value` for the backward sweep when it reads it: inside a loop or a branch on a
    /// stack, at the top level by the pullback's capture.
    /// What is kept is the value, never a reference into the function's arguments (the
    /// pullback outlives them): `ir::value_of`.
    pub(super) fn keep(&mut self, value: Value, depth: usize) -> TokenStream {
        if !self.needed.contains(&value) || self.primal_only || self.eager_direct.contains(&value) {
            return TokenStream::new();
        }
        if depth == 0 {
            self.captured.push(value);
            return TokenStream::new();
        }
        let stack = self.stack_name(value);
        let name = self.value_name(value);
        self.stacks.push((stack.clone(), depth));
        self.note_single_entry(&stack);
        let ir = self.ir();
        quote!(#stack.push(#ir::value_of(#name));)
    }

    pub(super) fn forward_block(&mut self, block: &Block, depth: usize) -> TokenStream {
        let mut tokens = TokenStream::new();
        for stmt in &block.stmts {
            tokens.extend(self.forward_stmt(stmt, depth));
        }
        tokens
    }

    fn forward_stmt(&mut self, stmt: &Stmt, depth: usize) -> TokenStream {
        match stmt {
            Stmt::Let(Let {
                value,
                rvalue,
                span,
            }) => {
                let rvalue_ir = rvalue;
                let name = self.value_name(*value);
                let rvalue = self.defining_rvalue(rvalue, *span, *value);
                let mut keep = self.keep(*value, depth);
                keep.extend(self.mark(Root::Value(*value), depth));
                if !self.primal_only
                    && matches!(rvalue_ir, Rvalue::Call { args, dispatch, .. }
                        if self.is_active_call(args) && *dispatch != Dispatch::AtPrimals)
                {
                    let pullback = self.pullback_name(*value);
                    let keep_pullback = self.keep_pullback(*value, depth);
                    return quote_spanned!(*span=>
                        let (#name, #pullback) = #rvalue; #keep #keep_pullback
                    );
                }
                // A float method whose derivative the backward sweep needs: its rule gives the
                // value and the linear map of its derivative, which is kept (`exp` is not
                // computed again in the backward sweep).
                if let Some(rule) = self.rule_with_kept_map(rvalue_ir, *value) {
                    let pullback = self.pullback_name(*value);
                    let keep_pullback = self.keep_pullback(*value, depth);
                    return quote_spanned!(*span=>
                        let (#name, #pullback) = #rule; #keep #keep_pullback
                    );
                }
                let ty = self.body.value_info(*value).ty.as_ref();
                let ty = ty.map(|ty| quote!(: #ty));
                quote_spanned!(*span=> let #name #ty = #rvalue; #keep)
            }
            Stmt::DeclareVar { var, init } => {
                let name = self.var_name(*var);
                let ty = self.body.var_info(*var).ty.as_ref().map(|ty| quote!(: #ty));
                match init {
                    Some(init) => {
                        let init = self.operand(init);
                        let mut mark = self.mark(Root::Var(*var), depth);
                        if self.sized_shadows.contains(var) && !self.primal_only {
                            let shadow = self.sized_shadow_name(*var);
                            let ir = self.ir();
                            // Mutable: an eager loop may add to it in place (`eager_sums`).
                            mark.extend(quote!(let mut #shadow = #ir::zero_like(&#name);));
                        }
                        quote!(let mut #name #ty = #init; #mark)
                    }
                    // `let mut x: f64;`, assigned on every path before it is read, as rustc
                    // checked in the function as written: the lowering's flags (an early
                    // `return` before the assignments) hide that from rustc here, so the
                    // variable starts at its type's default, never read.
                    None if ty.is_some() => {
                        quote!(let mut #name #ty = ::core::default::Default::default();)
                    }
                    None => quote!(let mut #name #ty;),
                }
            }
            Stmt::Assign {
                place,
                operand,
                span,
            } => {
                let mark = if place.projections.is_empty() {
                    self.mark(place.root, depth)
                } else {
                    TokenStream::new()
                };
                let (place, operand) = (self.place(place), self.operand(operand));
                quote_spanned!(*span=> #place = #operand; #mark)
            }
            Stmt::Push {
                place,
                operand,
                index,
                span,
            } => {
                let (place, operand) = (self.place(place), self.operand(operand));
                let index_name = self.value_name(*index);
                let keep = self.keep(*index, depth);
                quote_spanned! {*span=>
                    let #index_name = #place.len();
                    #place.push(#operand);
                    #keep
                }
            }
            Stmt::If {
                cond,
                then_branch,
                else_branch,
                result,
                span,
            } => {
                let cond = self.operand(cond);
                let then_tokens = self.forward_branch(then_branch, depth + 1);
                let else_tokens = self.forward_branch(else_branch, depth + 1);
                let branches =
                    quote_spanned!(*span=> if #cond { #then_tokens } else { #else_tokens });
                match result {
                    Some(result) => {
                        let name = self.value_name(*result);
                        let mut keep = self.keep(*result, depth);
                        keep.extend(self.mark(Root::Value(*result), depth));
                        quote!(let #name = #branches; #keep)
                    }
                    None => quote!(#branches),
                }
            }
            Stmt::For {
                binding,
                range,
                body,
                flags,
                span,
            } => {
                let index = self.loop_index(stmt);
                let count = format_ident!("__ad_count_{}", index);
                // A segment of a scheduled loop runs over the iterations its state has left.
                let range = match self.segment.take() {
                    Some((iterator, steps)) => {
                        quote!(::core::iter::Iterator::take(&mut #iterator, #steps))
                    }
                    None => self.operand(range),
                };
                let binding_name = self.value_name(*binding);
                let stacks_before = self.stacks.len();
                self.loop_nesting += 1;
                let mut keep_binding = self.keep(*binding, depth + 1);
                keep_binding.extend(self.mark(Root::Value(*binding), depth + 1));
                let mut body = self.forward_block(body, depth + 1);
                let eager = self.eager.contains_key(&index) && !self.primal_only;
                match eager {
                    true => body.extend(self.eager_iteration(index, stacks_before)),
                    false => body.extend(self.keep_states(index, depth + 1)),
                }
                self.loop_nesting -= 1;
                let stop = flags.map(|flags| self.stop(flags));
                let keep_count = if self.residuals.count_bounds(stmt).is_some() {
                    TokenStream::new()
                } else {
                    self.keep_count(index, depth)
                };
                // An eager loop's stacks hold one iteration's entries at a time.
                let reserve = match eager {
                    true => self.unit_adjoints(index),
                    false => self.reserve(&range, stacks_before, depth + 1),
                };
                quote_spanned! {*span=>
                    #reserve
                    let mut #count = 0usize;
                    for #binding_name in #range {
                        #count += 1;
                        #keep_binding
                        #body
                        #stop
                    }
                    #keep_count
                }
            }
            Stmt::Checkpoint { .. } => self.forward_checkpoint(stmt, depth),
            Stmt::Loop { body, flags, span } => {
                let index = self.loop_index(stmt);
                let count = format_ident!("__ad_count_{}", index);
                let segment = self.segment.take();
                self.loop_nesting += 1;
                let mut body = self.forward_block(body, depth + 1);
                body.extend(self.keep_states(index, depth + 1));
                self.loop_nesting -= 1;
                let stop = self.stop(*flags);
                let keep_count = self.keep_count(index, depth);
                let repeat = match segment {
                    Some((_, steps)) => quote!(for _ in 0..#steps),
                    None => quote!(loop),
                };
                quote_spanned! {*span=>
                    let mut #count = 0usize;
                    #repeat {
                        #count += 1;
                        #body
                        #stop
                    }
                    #keep_count
                }
            }
        }
    }

    /// The end of a forward iteration of a loop that can be left early.
    pub(super) fn stop(&self, flags: LoopFlags) -> TokenStream {
        let broken = self.var_name(flags.broken);
        quote!(if #broken { break; })
    }

    /// Reserves, before a loop over `range`, room for one push per iteration on each stack
    /// its body pushes to at every iteration (those declared since `stacks_before` at the
    /// body's own depth).
    fn reserve(&self, range: &TokenStream, stacks_before: usize, depth: usize) -> TokenStream {
        if !self.residuals.passes().reserve || self.primal_only {
            return TokenStream::new();
        }
        let reservations: Vec<TokenStream> = self.stacks[stacks_before..]
            .iter()
            .filter(|(_, pushed_at)| *pushed_at == depth)
            .map(|(stack, _)| match self.zero_stacks.contains(stack) {
                true => quote!(#stack.reserve_zeros(__ad_trips);),
                false => quote!(#stack.reserve(__ad_trips);),
            })
            .collect();
        if reservations.is_empty() {
            return TokenStream::new();
        }
        quote! {
            let __ad_trips = ::core::iter::Iterator::size_hint(&#range).0;
            #(#reservations)*
        }
    }

    /// Keeps a loop's trip count for the backward sweep (inside a loop or a branch).
    fn keep_count(&mut self, index: usize, depth: usize) -> TokenStream {
        if depth == 0 || self.primal_only {
            return TokenStream::new();
        }
        let count = format_ident!("__ad_count_{}", index);
        let stack = format_ident!("__ad_keep_count_{}", index);
        self.stacks.push((stack.clone(), depth));
        quote!(#stack.push(#count);)
    }

    pub(super) fn forward_branch(&mut self, block: &Block, depth: usize) -> TokenStream {
        let stmts = self.forward_block(block, depth);
        let result = block.result.as_ref().map(|result| self.operand(result));
        quote!(#stmts #result)
    }
}
