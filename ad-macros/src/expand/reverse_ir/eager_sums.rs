//! Loops that only add to one float (`ir::eager_sums`): the backward code of each iteration
//! runs at the end of the iteration in the forward sweep, its adjoints of what the loop reads
//! from before it units of their own; the backward sweep, where the loop's backward code would
//! run, adds the units in scaled by the sum's cotangent.

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::{Defined, Emitter};
use crate::ast::float_of_type;
use crate::ir::lower::NotYet;
use crate::ir::*;
use crate::names;

impl Emitter<'_> {
    /// The unit adjoint standing for `root`'s in the iterations of eager loop `index` (one
    /// per loop: the pullback captures each loop's own), or the real one where the forward
    /// sweep holds it and it serves in place.
    fn unit_name(&self, index: usize, root: Root) -> Ident {
        if let Some(real) = self.adjoint_in_place(index, root) {
            return real;
        }
        match root {
            Root::Value(value) => {
                let info = self.body.value_info(value);
                let category = format!("unit{index}_dv");
                self.numbered(&category, info.name.as_ref(), value.0, info.span)
            }
            Root::Var(var) => {
                let info = self.body.var_info(var);
                let category = format!("unit{index}_dm");
                self.numbered(&category, Some(&info.name), var.0, info.span)
            }
        }
    }

    /// The backward sweep's code for eager loop `index`: the units scaled into the real
    /// adjoints. Its iterations' backward code, emitted here with units for adjoints, goes to
    /// the forward sweep.
    pub(super) fn eager_backward(
        &mut self,
        index: usize,
        binding: Value,
        body: &Block,
        depth: usize,
    ) -> Result<TokenStream, NotYet> {
        let eager = &self.eager[&index];
        let (sum, units) = (eager.sum, eager.units.clone());
        let own: Vec<Root> = units
            .iter()
            .copied()
            .chain(eager.scratch.iter().map(|var| Root::Var(*var)))
            .chain([Root::Var(sum)])
            .collect();
        let names: HashMap<Root, Ident> = own
            .into_iter()
            .map(|root| (root, self.unit_name(index, root)))
            .collect();
        let outer = std::mem::replace(&mut self.unit_names, names);
        let code =
            self.backward_block_defining(body, depth + 1, None, vec![Defined::Value(binding)]);
        self.unit_names = outer;
        self.eager_code.insert(index, code?);
        let ir = self.ir();
        let factor = format_ident!("__ad_factor_{}", index);
        let sum_adjoint = self.var_adjoint(sum);
        let mut scaled = Vec::new();
        for root in units {
            // Added to from here on, in the order the backward sweep runs.
            if let Root::Value(value) = root {
                self.first_contribution(value);
            }
            let adjoint = self.root_adjoint(root);
            if self.adjoint_in_place(index, root).is_some() {
                scaled.push(quote!(#ir::scale_adjoint(&mut #adjoint, &#factor);));
                continue;
            }
            let unit = self.unit_name(index, root);
            scaled.push(quote!(#ir::accumulate_scaled(&mut #adjoint, &#factor, #unit);));
        }
        Ok(quote! {
            let #factor = ::core::clone::Clone::clone(&#sum_adjoint);
            #(#scaled)*
        })
    }

    /// The end of an eager loop's forward iteration: its backward code, the sum's cotangent
    /// one. The states its inner loops restored (the stacks from `stacks_before` on) are
    /// dropped, as the next iteration saves its own on top.
    pub(super) fn eager_iteration(&self, index: usize, stacks_before: usize) -> TokenStream {
        let Some(code) = self.eager_code.get(&index) else {
            return TokenStream::new();
        };
        let count = format_ident!("__ad_count_{}", index);
        let iteration = format_ident!("__ad_iteration_{}", index);
        let seed = self.unit_name(index, Root::Var(self.eager[&index].sum));
        let scalar = names::scalar_param(self.function.name().span());
        let released = self.stacks[stacks_before..]
            .iter()
            .filter(|(stack, _)| self.states.contains(stack))
            .map(|(stack, _)| quote!(#stack.release();));
        quote! {{
            let #iteration = #count - 1;
            let mut #seed = <#scalar as ::ad_runtime::Scalar>::one();
            #code
            #(#released)*
        }}
    }

    /// Before an eager loop: a zero unit adjoint for each of what it reads from before it and
    /// its scratch variables, each a zero as the real adjoint starts.
    pub(super) fn unit_adjoints(&self, index: usize) -> TokenStream {
        let ir = self.ir();
        let mut tokens = TokenStream::new();
        for root in self.unit_roots(index) {
            let marker = self.marker_name(root);
            let zero = match root {
                Root::Value(value) => match self.param_of(root) {
                    Some(param) if float_of_type(&param.ty).is_some() => quote!(#marker.zero()),
                    Some(param) => {
                        let name = self.value_name(value);
                        match param.is_reference() {
                            true => quote!(#ir::zero_like(#name)),
                            false => quote!(#ir::zero_like(&#name)),
                        }
                    }
                    None if self.call_values.contains_key(&value) => {
                        quote!(::core::clone::Clone::clone(&#marker))
                    }
                    None => quote!(#marker.zero()),
                },
                Root::Var(var) if self.sized_shadows.contains(&var) => {
                    let name = self.var_name(var);
                    quote!(#ir::zero_like(&#name))
                }
                Root::Var(_) => quote!(#marker.zero()),
            };
            let unit = self.unit_name(index, root);
            tokens.extend(quote!(let mut #unit = #zero;));
        }
        tokens
    }

    /// What eager loop `index` makes a zero unit adjoint for: what it reads from before it
    /// and its scratch variables, but those whose adjoint it adds into in place and a scratch
    /// variable that carries derivatives none of which reach the result (which has no adjoint,
    /// nor a marker to make one from).
    pub(super) fn unit_roots(&self, index: usize) -> Vec<Root> {
        let eager = &self.eager[&index];
        eager
            .units
            .iter()
            .copied()
            .chain(eager.scratch.iter().map(|var| Root::Var(*var)))
            .filter(|root| {
                self.adjoint_in_place(index, *root).is_none() && self.activity.useful.contains(root)
            })
            .collect()
    }

    /// The adjoint the forward sweep already holds for `root` (a parameter's that is not a
    /// float, a sized shadow), when it can serve as eager loop `index`'s unit.
    fn adjoint_in_place(&self, index: usize, root: Root) -> Option<Ident> {
        if !self.eager[&index].in_place.contains(&root) {
            return None;
        }
        match root {
            Root::Value(value) => self
                .param_of(root)
                .filter(|param| float_of_type(&param.ty).is_none() && !param.is_mut_reference())
                .map(|_| {
                    let info = self.body.value_info(value);
                    self.numbered("dv", info.name.as_ref(), value.0, info.span)
                }),
            Root::Var(var) => self
                .sized_shadows
                .contains(&var)
                .then(|| self.sized_shadow_name(var)),
        }
    }

    fn param_of(&self, root: Root) -> Option<&crate::ast::Param> {
        self.body
            .params
            .iter()
            .zip(&self.function.params)
            .find(|(param_root, _)| **param_root == root)
            .map(|(_, param)| param)
    }
}
