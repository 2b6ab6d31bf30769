//! The states of local containers that the backward code of a loop's iterations restores, to
//! read their elements again (`ir::restore`): saved at the end of each forward iteration,
//! restored under the container's own name at the start of the backward one.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::Emitter;
use crate::ir::*;

impl Emitter<'_> {
    /// The stacks of the containers whose state at the end of each iteration of loop `index`
    /// the backward code restores, by root.
    fn state_stacks(&self, index: usize) -> Vec<(Ident, Ident)> {
        self.restored
            .iter()
            .filter(|(loop_index, _)| *loop_index == index)
            .map(|(_, root)| {
                let (name, user_name, span) = match root {
                    Root::Var(var) => {
                        let info = self.body.var_info(*var);
                        (self.var_name(*var), Some(&info.name), info.span)
                    }
                    Root::Value(value) => {
                        let info = self.body.value_info(*value);
                        (self.value_name(*value), info.name.as_ref(), info.span)
                    }
                };
                let stack = self.numbered("states", user_name, index as u32, span);
                (name, stack)
            })
            .collect()
    }

    /// Keeps, at the end of an iteration of loop `index`, a copy of each container the
    /// backward code of the iteration restores.
    pub(super) fn keep_states(&mut self, index: usize, depth: usize) -> TokenStream {
        let mut tokens = TokenStream::new();
        if self.primal_only {
            return tokens;
        }
        for (name, stack) in self.state_stacks(index) {
            self.stacks.push((stack.clone(), depth));
            self.states.insert(stack.clone());
            tokens.extend(quote!(#stack.save(&#name);));
        }
        tokens
    }

    /// The start of the backward code of an iteration of loop `index`: the containers it
    /// reads again as they were at the end of the iteration, restored under their names.
    pub(super) fn restore_states(&self, index: usize) -> TokenStream {
        let mut tokens = TokenStream::new();
        for (name, stack) in self.state_stacks(index) {
            tokens.extend(quote!(let #name = #stack.restore();));
        }
        tokens
    }
}
