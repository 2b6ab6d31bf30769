//! Inner `#[checkpoint]`s on the AD-IR (`Stmt::Checkpoint`). The forward sweep keeps a copy
//! of what a region reads from before it, then runs the region without recording
//! (`Emitter::primal_only`). The backward sweep restores the copies under their own names,
//! runs the region's forward code again, recording, and then its backward code. A loop with a
//! schedule keeps its state as the schedule says (`ad_runtime::checkpoint::Checkpoints`),
//! and its backward code runs it again segment by segment.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::Ident;

use super::Emitter;
use crate::ir::checkpoint::inputs;
use crate::ir::lower::NotYet;
use crate::ir::*;

/// The names of a region's inputs in the generated code: the values, then the variables.
struct InputNames {
    values: Vec<(Ident, Span)>,
    vars: Vec<(Ident, Span)>,
    /// Variables the region only assigns: declared afresh where it runs again.
    assigned_only: Vec<Ident>,
    /// The values that are shared references, kept as owned copies.
    borrowed: Vec<Ident>,
}

impl InputNames {
    /// Copies of the inputs, in order: `(values.., vars..)` or the part asked for.
    fn copies(&self, inputs: &[(Ident, Span)]) -> Vec<TokenStream> {
        inputs
            .iter()
            .map(|(name, span)| match self.borrowed.contains(name) {
                true => quote_spanned!(*span=> ::ad_runtime::checkpoint::snapshot_borrowed(#name)),
                false => quote_spanned!(*span=> ::ad_runtime::checkpoint::snapshot_of(&#name)),
            })
            .collect()
    }

    fn names(inputs: &[(Ident, Span)]) -> Vec<&Ident> {
        inputs.iter().map(|(name, _)| name).collect()
    }

    /// The pattern the kept values are taken back with (a borrowed one's copy under its own
    /// name), and the statements that borrow those copies again under the values' names.
    fn taken_back(&self) -> (Vec<Ident>, TokenStream) {
        let mut borrows = TokenStream::new();
        let pattern = self
            .values
            .iter()
            .map(|(name, _)| match self.borrowed.contains(name) {
                true => {
                    let copy = format_ident!("__ad_copy_of{}", name);
                    borrows.extend(quote!(let #name = &#copy;));
                    copy
                }
                false => name.clone(),
            })
            .collect();
        (pattern, borrows)
    }
}

impl Emitter<'_> {
    fn input_names(
        &self,
        body: &Block,
        schedule: Option<&Schedule>,
        borrowed: &[Value],
    ) -> InputNames {
        let inputs = inputs(body, schedule);
        InputNames {
            borrowed: borrowed
                .iter()
                .map(|value| self.value_name(*value))
                .collect(),
            values: inputs
                .values
                .iter()
                .map(|value| {
                    let name = self.value_name(*value);
                    (name, self.body.value_info(*value).span)
                })
                .collect(),
            vars: inputs
                .vars
                .iter()
                .map(|var| (self.var_name(*var), self.body.var_info(*var).span))
                .collect(),
            assigned_only: inputs
                .assigned_only
                .iter()
                .map(|var| self.var_name(*var))
                .collect(),
        }
    }

    /// Code emitted with nothing recorded.
    fn primal_only_code(&mut self, emit: impl FnOnce(&mut Self) -> TokenStream) -> TokenStream {
        let before = std::mem::replace(&mut self.primal_only, true);
        let tokens = emit(self);
        self.primal_only = before;
        tokens
    }

    /// Each checkpointed region's number, the same in the forward and the backward code.
    fn region_index(&self, target: &Stmt) -> usize {
        self.position_among(target, |stmt| matches!(stmt, Stmt::Checkpoint { .. }))
    }

    pub(super) fn forward_checkpoint(&mut self, stmt: &Stmt, depth: usize) -> TokenStream {
        let Stmt::Checkpoint {
            body,
            schedule,
            result,
            borrowed,
            span,
        } = stmt
        else {
            return TokenStream::new();
        };
        let region = self.region_index(stmt);
        let recorded = !self.primal_only && self.recorded_regions.contains(&region);
        let run = match schedule {
            _ if !recorded => {
                self.primal_only_code(|emitter| emitter.forward_branch(body, depth + 1))
            }
            None => {
                let inputs = self.input_names(body, None, borrowed);
                let kept = format_ident!("__ad_keep_region_{}", region);
                self.stacks.push((kept.clone(), depth));
                let copies = inputs
                    .copies(&inputs.values)
                    .into_iter()
                    .chain(inputs.copies(&inputs.vars));
                let primal =
                    self.primal_only_code(|emitter| emitter.forward_branch(body, depth + 1));
                quote!(#kept.push((#(#copies,)*)); #primal)
            }
            Some(schedule) => self.forward_scheduled(region, body, schedule, borrowed, depth),
        };
        match result {
            Some(result) => {
                let name = self.value_name(*result);
                let mut keep = self.keep(*result, depth);
                keep.extend(self.mark(Root::Value(*result), depth));
                quote_spanned!(*span=> let #name = { #run }; #keep)
            }
            None => quote_spanned!(*span=> { #run }),
        }
    }

    /// A scheduled loop's first run: without recording, its state kept before the iterations
    /// the schedule says; then the states, and the values its iterations read from before
    /// it, are kept for the backward sweep.
    fn forward_scheduled(
        &mut self,
        region: usize,
        body: &Block,
        schedule: &Schedule,
        borrowed: &[Value],
        depth: usize,
    ) -> TokenStream {
        let inputs = self.input_names(body, Some(schedule), borrowed);
        let (checkpoints, iterations, iterator) = scheduled_names(region);
        let kept = format_ident!("__ad_keep_region_{}", region);
        self.stacks.push((kept.clone(), depth));
        let count = self.operand(schedule.count());
        let kind = match schedule {
            Schedule::Every(_) => quote!(Every),
            Schedule::Binomial(_) => quote!(Binomial),
        };
        let state = inputs.copies(&inputs.vars);
        let invariants = inputs.copies(&inputs.values);
        let checkpoint = quote!(::ad_runtime::checkpoint);
        let (setup, next, state_iterator, loop_body, flags) = match &body.stmts[..] {
            [Stmt::For {
                binding,
                range,
                body: loop_body,
                flags,
                ..
            }] => {
                let range = self.operand(range);
                let binding = self.value_name(*binding);
                (
                    quote!(let mut #iterator = ::core::iter::IntoIterator::into_iter(#range);),
                    quote! {
                        let ::core::option::Option::Some(#binding) =
                            ::core::iter::Iterator::next(&mut #iterator) else { break; };
                    },
                    quote!(::core::clone::Clone::clone(&#iterator)),
                    loop_body,
                    *flags,
                )
            }
            [Stmt::Loop {
                body: loop_body,
                flags,
                ..
            }] => (
                quote!(let mut #iterator = ();),
                TokenStream::new(),
                quote!(()),
                loop_body,
                Some(*flags),
            ),
            _ => return TokenStream::new(),
        };
        let primal = self.primal_only_code(|emitter| emitter.forward_block(loop_body, depth + 2));
        let stop = flags.map(|flags| self.stop(flags));
        quote! {
            let mut #checkpoints = #checkpoint::Checkpoints::new(
                #checkpoint::Schedule::#kind((#count) as usize),
            );
            let mut #iterations = 0usize;
            #setup
            loop {
                #checkpoints.before_iteration(#iterations, || ((#(#state,)*), #state_iterator));
                #next
                #iterations += 1;
                { #primal }
                #stop
            }
            #checkpoints.finish(#iterations);
            #kept.push((#checkpoints, (#(#invariants,)*)));
        }
    }

    pub(super) fn backward_checkpoint(
        &mut self,
        stmt: &Stmt,
        depth: usize,
    ) -> Result<TokenStream, NotYet> {
        let Stmt::Checkpoint {
            body,
            schedule,
            result,
            borrowed,
            ..
        } = stmt
        else {
            return Ok(TokenStream::new());
        };
        let region = self.region_index(stmt);
        let cotangent = result
            .filter(|result| self.activity.is_useful_value(*result))
            .map(|result| self.value_adjoint(result).into_token_stream());
        let backward = self.backward_block(body, depth + 1, cotangent)?;
        if backward.is_empty() {
            return Ok(TokenStream::new());
        }
        self.recorded_regions.insert(region);
        let inputs = self.input_names(body, schedule.as_ref(), borrowed);
        let kept = format_ident!("__ad_keep_region_{}", region);
        let (values, borrows) = inputs.taken_back();
        let vars = InputNames::names(&inputs.vars);
        let assigned_only = &inputs.assigned_only;
        if schedule.is_none() {
            let recording = self.forward_block(body, depth + 1);
            return Ok(quote! {{
                let (#(#values,)* #(mut #vars,)*) = #kept.pop();
                #borrows
                #(let mut #assigned_only;)*
                #recording
                #backward
            }});
        }
        let (checkpoints, _, iterator) = scheduled_names(region);
        let steps = format_ident!("__ad_steps_{}", region);
        self.segment = Some((iterator.clone(), steps.clone()));
        let recording = self.forward_block(body, depth + 1);
        self.segment = None;
        let advance = match &body.stmts[..] {
            [Stmt::For {
                binding,
                body: loop_body,
                flags,
                ..
            }] => {
                let binding = self.value_name(*binding);
                let primal =
                    self.primal_only_code(|emitter| emitter.forward_block(loop_body, depth + 2));
                let stop = flags.map(|flags| self.stop(flags));
                quote! {
                    for _ in 0..#steps {
                        let ::core::option::Option::Some(#binding) =
                            ::core::iter::Iterator::next(&mut #iterator) else { break; };
                        { #primal }
                        #stop
                    }
                }
            }
            [Stmt::Loop {
                body: loop_body,
                flags,
                ..
            }] => {
                let primal =
                    self.primal_only_code(|emitter| emitter.forward_block(loop_body, depth + 2));
                let stop = self.stop(*flags);
                quote! {
                    for _ in 0..#steps {
                        { #primal }
                        #stop
                    }
                }
            }
            _ => TokenStream::new(),
        };
        Ok(quote! {
            let (#checkpoints, (#(#values,)*)) = #kept.pop();
            #borrows
            #checkpoints.reverse(
                |((#(mut #vars,)*), mut #iterator), #steps: usize| {
                    #(let mut #assigned_only;)*
                    #advance
                    ((#(#vars,)*), #iterator)
                },
                |((#(mut #vars,)*), mut #iterator), #steps: usize| {
                    #(let mut #assigned_only;)*
                    #recording
                    #backward
                },
            );
        })
    }
}

/// The names of a scheduled loop's states, its iteration count and its iterator.
fn scheduled_names(region: usize) -> (Ident, Ident, Ident) {
    (
        format_ident!("__ad_checkpoints_{}", region),
        format_ident!("__ad_iterations_{}", region),
        format_ident!("__ad_iterator_{}", region),
    )
}
