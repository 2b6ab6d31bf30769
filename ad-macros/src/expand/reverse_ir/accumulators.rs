//! Adjoints of loop-invariant elements summed in a local: a loop that reads `c[i]` at every
//! iteration, with `i` fixed and nothing else touching `c`, adds to `dc[i]` at every backward
//! iteration. Through memory, each addition waits for the one before it; in a local the sum
//! stays in a register, as a hand-written adjoint keeps it. The local takes `dc[i]` before the
//! backward loop and gives it back after, so the additions are the same, in the same order
//! (the gradient does not change by a bit). Switched by `residuals::Passes::local_sums`.

use std::collections::{HashMap, HashSet};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::Emitter;
use crate::ir::lower::NotYet;
use crate::ir::reads::key;
use crate::ir::restore::reads_an_element;
use crate::ir::*;

/// An element whose adjoint a loop sums in a local.
pub(super) struct Accumulator {
    key: String,
    place: Place,
}

impl Emitter<'_> {
    /// The elements read in `body` whose adjoints the backward loop may sum in locals: read
    /// at places whose indices the loop does not change, with nothing else in the loop
    /// touching their container.
    /// `binding`: what a `for` binds at each iteration.
    pub(super) fn invariant_reads(&self, binding: Option<Value>, body: &Block) -> Vec<Accumulator> {
        let mut defined_inside: HashSet<Value> = binding.into_iter().collect();
        let mut reads: HashMap<Root, Vec<(String, &Place, Value)>> = HashMap::new();
        let mut touched = HashSet::new();
        for_each_stmt(body, &mut |stmt| {
            defined_inside.extend(defined_value(stmt));
            touched.extend(written_root(stmt));
            match stmt {
                Stmt::Let(Let {
                    value,
                    rvalue: Rvalue::Use(Operand::Place(place)),
                    ..
                }) if reads_an_element(place) => match key(place) {
                    Some(key) => reads
                        .entry(place.root)
                        .or_default()
                        .push((key, place, *value)),
                    None => {
                        touched.insert(place.root);
                    }
                },
                _ => touch_operands(stmt_operands(stmt), &mut touched),
            }
        });
        if let Some(result) = &body.result {
            touch_operands([result], &mut touched);
        }
        let mut accumulators = Vec::new();
        for (root, reads) in reads {
            let (key, place, read) = &reads[0];
            let invariant = place.projections.iter().all(|projection| match projection {
                Projection::Index(Operand::Value(index)) => !defined_inside.contains(index),
                Projection::Index(Operand::Constant(_)) => true,
                _ => false,
            });
            let root_outside = match root {
                Root::Value(value) => !defined_inside.contains(&value),
                Root::Var(_) => true,
            };
            if invariant
                && root_outside
                && !touched.contains(&root)
                && reads.iter().all(|(other, _, _)| other == key)
                && self.activity.useful.contains(&root)
                && self.activity.is_useful_value(*read)
            {
                accumulators.push(Accumulator {
                    key: key.clone(),
                    place: (*place).clone(),
                });
            }
        }
        accumulators.sort_by(|a, b| a.key.cmp(&b.key));
        accumulators
    }

    /// Runs `emit_loop` (the backward code of loop `index`) with the adjoints of the
    /// elements it reads at invariant places summed in locals, declared before the loop and
    /// added to the elements' adjoints after it, when it ran.
    pub(super) fn with_accumulators(
        &mut self,
        index: usize,
        binding: Option<Value>,
        body: &Block,
        emit_loop: impl FnOnce(&mut Self) -> Result<TokenStream, NotYet>,
    ) -> Result<TokenStream, NotYet> {
        let candidates = match self.residuals.passes().local_sums {
            true => self.invariant_reads(binding, body),
            false => Vec::new(),
        };
        let accumulators: Vec<(Accumulator, proc_macro2::Ident)> = candidates
            .into_iter()
            .filter(|accumulator| !self.accumulators.contains_key(&accumulator.key))
            .enumerate()
            .map(|(number, accumulator)| {
                let local = format_ident!("__ad_sum_{}_{}", index, number);
                (accumulator, local)
            })
            .collect();
        for (accumulator, local) in &accumulators {
            self.accumulators
                .insert(accumulator.key.clone(), local.clone());
        }
        let emitted = emit_loop(self);
        for (accumulator, _) in &accumulators {
            self.accumulators.remove(&accumulator.key);
        }
        let emitted = emitted?;
        let ir = self.ir();
        let count = format_ident!("__ad_count_{}", index);
        let mut before = TokenStream::new();
        let mut after = TokenStream::new();
        for (accumulator, local) in &accumulators {
            // Typed by what it takes (a read passed to a call has no marker of its own).
            let adjoint = self.place_adjoint(&accumulator.place)?;
            before.extend(quote! {
                let mut #local = #ir::zero();
                if #count > 0 {
                    #local = #ir::take(#adjoint);
                }
            });
            after.extend(quote!(*#adjoint = #local;));
        }
        if accumulators.is_empty() {
            return Ok(emitted);
        }
        Ok(quote! {
            #before
            #emitted
            if #count > 0 {
                #after
            }
        })
    }
}

/// Marks the roots `operands` use otherwise than by reading an element: a container passed
/// whole (to a call, whose pullback adds to its adjoint) touches it.
fn touch_operands<'o>(
    operands: impl IntoIterator<Item = &'o Operand>,
    touched: &mut HashSet<Root>,
) {
    for operand in operands {
        match operand {
            Operand::Place(place) => {
                touched.insert(place.root);
                for projection in &place.projections {
                    touch_operands(projection.operands(), touched);
                }
            }
            Operand::Value(value) => {
                touched.insert(Root::Value(*value));
            }
            Operand::Constant(_) => {}
        }
    }
}
