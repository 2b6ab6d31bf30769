//! The backward sweep of reverse mode on the AD-IR: one closure that mirrors the control flow
//! backwards (an `if` on the kept condition, a loop run as many times as the forward loop
//! ran), takes back what the forward sweep kept, declares the adjoints of what each block
//! defines, and runs the statements' pullbacks last first.

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::Ident;

use super::{Defined, Emitter};
use crate::ir::lower::NotYet;
use crate::ir::*;

impl Emitter<'_> {
    /// The backward code of a block: what it defined and the backward sweep needs is taken
    /// back (from stacks inside loops and branches), adjoints of what it defines are declared,
    /// and its statements' pullbacks run last first. `result_adjoint` is the cotangent of the
    /// block's value.
    pub(super) fn backward_block(
        &mut self,
        block: &Block,
        depth: usize,
        result_adjoint: Option<TokenStream>,
    ) -> Result<TokenStream, NotYet> {
        self.backward_block_defining(block, depth, result_adjoint, Vec::new())
    }

    pub(super) fn backward_block_defining(
        &mut self,
        block: &Block,
        depth: usize,
        result_adjoint: Option<TokenStream>,
        mut defined: Vec<Defined>,
    ) -> Result<TokenStream, NotYet> {
        let mut adjoints = Vec::new();
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let(Let { value, rvalue, .. }) => {
                    defined.push(Defined::Value(*value));
                    let keeps_map = self.residuals.passes().keep_linear_maps
                        && matches!(rvalue, Rvalue::FloatMethod { rule, .. } if !rule.map_from_value());
                    if (matches!(rvalue, Rvalue::Call { .. }) || keeps_map)
                        && self.activity.is_useful_value(*value)
                    {
                        defined.push(Defined::Pullback(*value));
                    }
                }
                Stmt::If {
                    result: Some(result),
                    ..
                }
                | Stmt::Checkpoint {
                    result: Some(result),
                    ..
                } => defined.push(Defined::Value(*result)),
                Stmt::Push { index, .. } => defined.push(Defined::Value(*index)),
                Stmt::For { .. } | Stmt::Loop { .. } => {
                    let computed = match self.residuals.count_bounds(stmt) {
                        Some(bounds) => {
                            let start = self.read_back(bounds.start)?;
                            let end = self.read_back(bounds.end)?;
                            let inclusive = bounds.inclusive;
                            let ir = self.ir();
                            Some(quote!(#ir::range_count(#start, &#end, #inclusive)))
                        }
                        None => None,
                    };
                    defined.push(Defined::Count(self.loop_index(stmt), computed));
                }
                Stmt::DeclareVar { var, .. } if self.activity.useful.contains(&Root::Var(*var)) => {
                    let adjoint = self.var_adjoint(*var);
                    if self.sized_shadows.contains(var) {
                        let shadow = self.sized_shadow_name(*var);
                        adjoints.push(quote!(let mut #adjoint = #shadow;));
                    } else {
                        let marker = self.marker_read(Root::Var(*var));
                        adjoints.push(quote!(let mut #adjoint = #marker.zero();));
                    }
                }
                _ => {}
            }
        }
        let mut unreached = HashSet::new();
        let mut zeroed = Vec::new();
        for defined in &defined {
            if let Defined::Value(value) = defined {
                if self.activity.is_useful_value(*value)
                    && !self.is_param(Root::Value(*value))
                    && !self.aliased_arguments.contains_key(value)
                {
                    let adjoint = self.value_adjoint(*value);
                    if !self.call_values.contains_key(value) {
                        // Declared once the statements are: see below.
                        zeroed.push(*value);
                        if self.residuals.passes().assign_first {
                            unreached.insert(*value);
                        }
                    } else if depth == 0 {
                        let marker = self.marker_name(Root::Value(*value));
                        adjoints.push(quote!(let mut #adjoint = #marker;));
                    } else {
                        let stack = self.zero_stack_name(*value);
                        adjoints.push(quote!(let mut #adjoint = #stack.zero_back();));
                    }
                }
            }
        }
        let mut statements = Vec::new();
        self.unreached.push(unreached);
        let emitted = self.backward_statements(block, depth, result_adjoint, &mut statements);
        self.unreached.pop();
        emitted?;
        // An adjoint whose first contribution is assigned, unconditionally in this block, is
        // declared without a value: it needs no zero, nor the forward sweep a marker to make
        // one from.
        for value in zeroed {
            let adjoint = self.value_adjoint(value);
            if self.assigned_first.contains(&value) {
                adjoints.push(quote!(let mut #adjoint;));
            } else {
                let marker = self.marker_read(Root::Value(value));
                adjoints.push(quote!(let mut #adjoint = #marker.zero();));
            }
        }
        let mut taken_back = Vec::new();
        let mut rows_pending = Vec::new();
        // At the top level, values are captured, but those computed again.
        let top_level_recomputed = |defined: &Defined| matches!(defined, Defined::Value(value) if self.recomputed.contains(value));
        if depth > 0 || defined.iter().any(top_level_recomputed) {
            for defined in defined
                .iter()
                .filter(|defined| depth > 0 || top_level_recomputed(defined))
            {
                match defined {
                    // An eager iteration's own values are still in scope (kept values are
                    // copies: `ir::value_of`).
                    Defined::Value(value)
                        if self.needed.contains(value) && self.eager_direct.contains(value) =>
                    {
                        let name = self.value_name(*value);
                        let ir = self.ir();
                        taken_back.push(quote!(let #name = #ir::value_of(#name);));
                    }
                    Defined::Value(value) if self.needed.contains(value) => {
                        let (name, stack) = (self.value_name(*value), self.stack_name(*value));
                        taken_back.push(quote!(let #name = #stack.pop();));
                    }
                    // After its row's trip count.
                    Defined::Value(value)
                        if self.recomputed.contains(value)
                            && self.residuals.row_entry(*value).is_some() =>
                    {
                        rows_pending.push(*value);
                    }
                    Defined::Value(value) if self.recomputed.contains(value) => {
                        let name = self.value_name(*value);
                        if let Some(induction) = self.residuals.induction(*value) {
                            let entry = self.value_name(induction.entry);
                            let iteration =
                                format_ident!("__ad_iteration_{}", induction.loop_index);
                            let step = &induction.step.tokens;
                            let (up, after_step) = (induction.up, induction.after_step);
                            let ir = self.ir();
                            taken_back.push(quote! {
                                let #name = #ir::counter_at(#entry, #iteration, #step, #up, #after_step);
                            });
                        } else if let Some(definition) = self.residuals.definition(*value) {
                            let span = self.body.value_info(*value).span;
                            let computed = self.defining_rvalue(definition, span, *value);
                            taken_back.push(quote!(let #name = #computed;));
                        }
                    }
                    Defined::Pullback(value) if self.eager_direct.contains(value) => {}
                    Defined::Pullback(value) => {
                        let name = self.pullback_name(*value);
                        let stack = self.pullback_stack_name(*value);
                        taken_back.push(quote!(let #name = #stack.pop();));
                    }
                    Defined::Count(index, computed) => {
                        let count = format_ident!("__ad_count_{}", index);
                        match computed {
                            Some(computed) => taken_back.push(quote!(let #count = #computed;)),
                            None => {
                                let stack = format_ident!("__ad_keep_count_{}", index);
                                taken_back.push(quote!(let #count = #stack.pop();));
                            }
                        }
                        for entry in &rows_pending {
                            let Some(row) = self
                                .residuals
                                .row_entry(*entry)
                                .filter(|row| row.row_loop == *index)
                            else {
                                continue;
                            };
                            let name = self.value_name(*entry);
                            let running = row_entry_name(*entry);
                            let step = &row.step.tokens;
                            let up = row.up;
                            let ir = self.ir();
                            taken_back.push(quote! {
                                let #name = #ir::counter_before(#running, #count, #step, #up);
                                #running = #name;
                            });
                        }
                    }
                    Defined::Value(_) => {}
                }
            }
        }
        Ok(quote! {
            #(#taken_back)*
            #(#adjoints)*
            #(#statements)*
        })
    }

    /// The pullbacks of a block's statements, last first, after the cotangent of its result.
    fn backward_statements(
        &mut self,
        block: &Block,
        depth: usize,
        result_adjoint: Option<TokenStream>,
        statements: &mut Vec<TokenStream>,
    ) -> Result<(), NotYet> {
        if let (Some(result @ Operand::Value(_)), Some(cotangent)) = (&block.result, result_adjoint)
        {
            statements.push(self.contribute(result, cotangent)?);
        }
        for stmt in block.stmts.iter().rev() {
            statements.push(self.backward_stmt(stmt, depth)?);
        }
        Ok(())
    }

    /// Whether a contribution to `value`'s adjoint about to be emitted is the first to run:
    /// no contribution reached it yet, and it runs unconditionally in the block that defines
    /// the value. Either way, the adjoint counts as reached from now on.
    pub(super) fn first_contribution(&mut self, value: Value) -> bool {
        let innermost = self.unreached.len().checked_sub(1);
        let mut first = false;
        for (level, unreached) in self.unreached.iter_mut().enumerate() {
            if unreached.remove(&value) && Some(level) == innermost {
                first = true;
            }
        }
        first
    }

    /// Runs `emit` with no contribution it emits counted as the first (`first_contribution`),
    /// so that each is added into an adjoint made zero: for code that may not run (a refutable
    /// pattern's arm), and for a cotangent whose type only the adjoint it goes to fixes.
    pub(super) fn never_first<R>(&mut self, emit: impl FnOnce(&mut Self) -> R) -> R {
        self.unreached.push(HashSet::new());
        let result = emit(self);
        self.unreached.pop();
        result
    }

    /// A `&mut` to the adjoint of a place read or written: the same place in the shadow. A
    /// parameter's adjoint is shaped as the parameter, and so is the outer level of a sized
    /// local's (`sized_shadows`); any other local's starts empty and grows where it is reached
    /// (`ir::slot`).
    pub(super) fn place_adjoint(&mut self, place: &Place) -> Result<TokenStream, NotYet> {
        if let Root::Value(value) = place.root {
            self.first_contribution(value);
        }
        let root = self.root_adjoint(place.root);
        let param = self.is_param(place.root) && !self.is_growable_param(place.root);
        let sized_outer = matches!(place.root, Root::Var(var) if self.sized_shadows.contains(&var));
        let ir = self.ir();
        // The shadow place, built as a place expression: a field is the adjoint's field; an
        // index of a shaped adjoint is an index, of one grown as reached a slot; a dereference
        // is nothing, as a reference's adjoint is its referent's.
        let mut shadow = quote!(#root);
        for (position, projection) in place.projections.iter().enumerate() {
            shadow = match projection {
                Projection::Field(member) => quote!(#shadow.#member),
                Projection::Index(index) => {
                    let index = self.read_back(index)?;
                    if param || (sized_outer && position == 0) {
                        quote!(#shadow[#index])
                    } else {
                        quote!((*#ir::slot(&mut #shadow, #index)))
                    }
                }
                Projection::Slice(start, end) => {
                    let (start, end) = (self.read_back(start)?, self.read_back(end)?);
                    if param || (sized_outer && position == 0) {
                        quote!(#shadow[#start..#end])
                    } else {
                        quote!((*#ir::slots(&mut #shadow, #start, #end)))
                    }
                }
                Projection::Deref => shadow,
            };
        }
        Ok(quote!(&mut #shadow))
    }

    pub(super) fn contribute(
        &mut self,
        operand: &Operand,
        cotangent: TokenStream,
    ) -> Result<TokenStream, NotYet> {
        self.contribute_with(operand, cotangent, "accumulate")
    }

    /// Adds `cotangent` to the adjoint of `operand` by `ir::<function>`.
    pub(super) fn contribute_with(
        &mut self,
        operand: &Operand,
        cotangent: TokenStream,
        function: &str,
    ) -> Result<TokenStream, NotYet> {
        if !self.activity.is_useful(operand) {
            return Ok(TokenStream::new());
        }
        let ir = self.ir();
        let adjoint = match operand {
            Operand::Value(value) => {
                let adjoint = self.value_adjoint(*value);
                if self.first_contribution(*value) && function == "accumulate" {
                    self.assigned_first.insert(*value);
                    return Ok(quote!(#adjoint = #cotangent;));
                }
                quote!(&mut #adjoint)
            }
            Operand::Place(place) => {
                let summed = crate::ir::reads::key(place)
                    .and_then(|key| self.accumulators.get(&key))
                    .filter(|_| function == "accumulate");
                match summed {
                    Some(local) => quote!(&mut #local),
                    None => self.place_adjoint(place)?,
                }
            }
            Operand::Constant(_) => return Ok(TokenStream::new()),
        };
        // A sub-slice's adjoint is a slice of the shadow, to which the adjoint of a borrow of
        // it (a `Vec`) adds element by element.
        let function = match operand {
            Operand::Place(place)
                if matches!(place.projections.last(), Some(Projection::Slice(..))) =>
            {
                "accumulate_argument"
            }
            _ => function,
        };
        let function = Ident::new(function, Span::call_site());
        Ok(quote!(#ir::#function(#adjoint, #cotangent);))
    }

    fn backward_stmt(&mut self, stmt: &Stmt, depth: usize) -> Result<TokenStream, NotYet> {
        let ir = self.ir();
        match stmt {
            Stmt::Let(Let { value, rvalue, .. }) => {
                if !self.activity.is_useful_value(*value)
                    || self.aliased_arguments.contains_key(value)
                    || self.increment_reads.contains(value)
                {
                    return Ok(TokenStream::new());
                }
                let adjoint = self.value_adjoint(*value);
                self.pullback(*value, rvalue, quote!(#adjoint))
            }
            Stmt::DeclareVar { var, init } => {
                let Some(init) = init else {
                    return Ok(TokenStream::new());
                };
                if !self.activity.useful.contains(&Root::Var(*var)) {
                    return Ok(TokenStream::new());
                }
                let adjoint = self.var_adjoint(*var);
                self.contribute(init, quote!(#adjoint))
            }
            Stmt::Push {
                place,
                operand,
                index,
                ..
            } => {
                if !self.activity.useful.contains(&place.root) {
                    return Ok(TokenStream::new());
                }
                // The element's adjoint goes to the operand; the shadow shrinks back.
                let shadow = self.place_adjoint(place)?;
                let index = self.read_back(&Operand::Value(*index))?;
                let taken = quote!(#ir::unpush(#shadow, #index));
                if self.activity.is_useful(operand) {
                    self.contribute(operand, taken)
                } else {
                    Ok(quote!(let _ = #taken;))
                }
            }
            Stmt::Assign { place, operand, .. } => {
                if !self.activity.useful.contains(&place.root) {
                    return Ok(TokenStream::new());
                }
                let adjoint = self.place_adjoint(place)?;
                let increment =
                    matches!(operand, Operand::Value(sum) if self.increment_sums.contains(sum));
                let taken = if increment {
                    quote!(#ir::peek(#adjoint))
                } else if self.is_param(place.root) || !self.residuals.passes().assign_first {
                    quote!(#ir::take(#adjoint))
                } else {
                    quote!(#ir::vacate(#adjoint))
                };
                if self.activity.is_useful(operand) {
                    self.contribute(operand, taken)
                } else {
                    Ok(quote!(let _ = #taken;))
                }
            }
            Stmt::If {
                cond,
                then_branch,
                else_branch,
                result,
                ..
            } => {
                let cotangent = result
                    .filter(|result| self.activity.is_useful_value(*result))
                    .map(|result| self.value_adjoint(result).into_token_stream());
                let then_tokens = self.backward_block(then_branch, depth + 1, cotangent.clone())?;
                let else_tokens = self.backward_block(else_branch, depth + 1, cotangent)?;
                if then_tokens.is_empty() && else_tokens.is_empty() {
                    return Ok(TokenStream::new());
                }
                let cond = self.read_back(cond)?;
                Ok(quote!(if #cond { #then_tokens } else { #else_tokens }))
            }
            Stmt::Checkpoint { .. } => self.backward_checkpoint(stmt, depth),
            Stmt::Loop { body, .. } => {
                let index = self.loop_index(stmt);
                let count = format_ident!("__ad_count_{}", index);
                self.with_accumulators(index, None, body, |emitter| {
                    let body_tokens = emitter.backward_block(body, depth + 1, None)?;
                    let restore = emitter.restore_states(index);
                    let iteration = format_ident!("__ad_iteration_{}", index);
                    Ok(quote! {
                        for #iteration in (0..#count).rev() {
                            #restore
                            #body_tokens
                        }
                    })
                })
            }
            Stmt::For { binding, body, .. } => {
                let index = self.loop_index(stmt);
                if self.eager.contains_key(&index) {
                    return self.eager_backward(index, *binding, body, depth);
                }
                self.with_accumulators(index, Some(*binding), body, |emitter| {
                    emitter.backward_for(index, *binding, body, depth)
                })
            }
        }
    }

    /// The backward loop of a `for`: its iterations last first.
    fn backward_for(
        &mut self,
        index: usize,
        binding: Value,
        body: &Block,
        depth: usize,
    ) -> Result<TokenStream, NotYet> {
        let ir = self.ir();
        let count = format_ident!("__ad_count_{}", index);
        let body_tokens =
            self.backward_block_defining(body, depth + 1, None, vec![Defined::Value(binding)])?;
        let restore = self.restore_states(index);
        let iteration = format_ident!("__ad_iteration_{}", index);
        // The rows' counters step back from their values after the loop.
        let mut row_exits = Vec::new();
        for (entry, row) in self.residuals.row_entries_of(index) {
            if self.recomputed.contains(&entry) {
                row_exits.push((row_entry_name(entry), Operand::Value(row.exit)));
            }
        }
        let mut rows = Vec::new();
        for (running, exit) in row_exits {
            let exit = self.read_back_value(&exit)?;
            rows.push(quote!(let mut #running = #exit;));
        }
        // A binding read back and not kept: the `k`-th iteration bound `start + k`.
        if self.recomputed.contains(&binding) {
            if let Some(bounds) = self.residuals.range_bounds(binding) {
                let start = self.read_back(bounds.start)?;
                let end = self.read_back(bounds.end)?;
                let name = self.value_name(binding);
                return Ok(quote! {
                    #(#rows)*
                    for #iteration in (0..#count).rev() {
                        #restore
                        let #name = #ir::nth_of_range(#start, &#end, #iteration);
                        #body_tokens
                    }
                });
            }
        }
        Ok(quote! {
            #(#rows)*
            for #iteration in (0..#count).rev() {
                #restore
                #body_tokens
            }
        })
    }
}

/// The variable that holds a counter's entry into the row the backward sweep visits next.
fn row_entry_name(entry: Value) -> Ident {
    format_ident!("__ad_row_{}", entry.0)
}
