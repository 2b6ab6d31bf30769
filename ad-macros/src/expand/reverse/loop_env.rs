//! What a loop iteration's pullback keeps, kept small: indices recomputed from the loop
//! environment (counters of the loops around, integers unchanged around the nest, running
//! indices), elements read once before a loop, parameters' elements read again.

use super::*;

impl Generator<'_> {
    /// The backward code around the runs of a loop's iteration pullbacks for its hoisted
    /// elements: before them, sums set to zero; after each run, its cotangents added to them;
    /// after them, when the loop ran, the sums added to the elements' adjoints.
    pub(super) fn hoisted_sums(
        &self,
        env: Option<&LoopEnv>,
        count: &TokenStream,
    ) -> [TokenStream; 3] {
        let Some(env) = env.filter(|env| !env.hoisted.is_empty()) else {
            return [
                quote!(let __ad_sums = ();),
                TokenStream::new(),
                TokenStream::new(),
            ];
        };
        let zeros = env.hoisted.iter().map(|_| self.sum_start());
        let fields: Vec<syn::Index> = (0..env.hoisted.len()).map(syn::Index::from).collect();
        let adds = env.hoisted.iter().zip(&fields).map(|(hoisted, field)| {
            let (vector, position) = (hoisted.vector, &hoisted.position);
            quote!(__adj.add_element(#vector, #position, __ad_sums.#field);)
        });
        [
            quote!(let mut __ad_sums = (#(#zeros,)*);),
            quote!(#(__ad_sums.#fields += __ad_returned.#fields;)*),
            quote! {
                if #count > 0 {
                    #(#adds)*
                }
            },
        ]
    }

    /// The environment of the forward code with the type the iteration pullbacks of a loop
    /// with environment `env` take: the loops around it are still open.
    pub(super) fn env_witness(&self, env: &LoopEnv) -> TokenStream {
        let first = self.frames.len() + 1 - env.depth;
        let chain = self.frames[first..]
            .iter()
            .filter_map(Frame::env)
            .chain([env]);
        let mut witness = TokenStream::new();
        for level in chain {
            let own = &level.own;
            witness = match &level.around {
                Some(around) => {
                    let tuple = &around.tuple;
                    quote!((#tuple, #own))
                }
                None => quote!((#witness, #own)),
            };
        }
        witness
    }

    /// Code that recomputes `expr` (an index) in the backward code of the innermost loop's
    /// iteration from the loop environment, when `expr` is made of integer literals, `+ - * /
    /// %`, upper-case constants, counters of the loops around and names from around the loop
    /// nest that the nest does not change; `None` otherwise (the value is kept).
    pub(super) fn recompute(&mut self, expr: &Expr) -> Option<TokenStream> {
        let (outermost, innermost) = self.env_nest()?;
        // First whether every name can be read; then, changing the environments, the code.
        let mut readable = true;
        rebuild_index(expr, &mut |name| {
            readable &= self.env_name(name, outermost, innermost).is_some();
            Some(TokenStream::new())
        })?;
        if !readable {
            return None;
        }
        rebuild_index(expr, &mut |name| {
            let read = self.env_name(name, outermost, innermost)?;
            Some(self.read_env(read, outermost, innermost))
        })
    }

    pub(super) fn env_name(
        &self,
        name: &Ident,
        outermost: usize,
        innermost: usize,
    ) -> Option<EnvName> {
        if self.may_be_declared_item(name) {
            return None;
        }
        let Some(site) = self.binding_site(name) else {
            let constant = name
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase());
            return constant.then(|| EnvName::Constant(name.clone()));
        };
        if !matches!(self.lookup(name), Some(Binding::Data)) {
            return None;
        }
        for frame in outermost..=innermost {
            let Some(env) = self.frames[frame].env() else {
                continue;
            };
            if env.counter_sites.contains(&site) {
                return Some(EnvName::Counter(frame));
            }
            if let Some(index) = env.running.iter().position(|running| running.site == site) {
                return Some(EnvName::Running(frame, index));
            }
        }
        self.unchanged_around(site, name, outermost)
            .then(|| EnvName::Around(site, name.clone()))
    }

    /// The outermost loop of the nest and the innermost frame, when that frame is a loop whose
    /// iterations' pullbacks take a loop environment.
    pub(super) fn env_nest(&self) -> Option<(usize, usize)> {
        let innermost = self.frames.len().checked_sub(1)?;
        let depth = self.frames[innermost].env()?.depth;
        Some((innermost + 1 - depth, innermost))
    }

    /// Whether `name`, bound at `site`, comes from around the loop nest whose outermost loop is
    /// the frame `outermost`, and the nest does not change it.
    pub(super) fn unchanged_around(
        &self,
        site: (usize, usize),
        name: &Ident,
        outermost: usize,
    ) -> bool {
        self.frames[outermost]
            .env()
            .and_then(|env| env.around.as_ref())
            .is_some_and(|around| site.0 < outermost && !may_change(&around.looped, name))
    }

    /// Whether `name` may name a constant or static the body declares or imports.
    pub(super) fn may_be_declared_item(&self, name: &Ident) -> bool {
        self.body_items
            .as_ref()
            .is_none_or(|items| items.contains(&name.unraw()))
    }

    /// The code reading `name` in the backward code of the innermost loop's iteration.
    pub(super) fn read_env(
        &mut self,
        name: EnvName,
        outermost: usize,
        innermost: usize,
    ) -> TokenStream {
        let depth = innermost + 1 - outermost;
        let (levels, field) = match name {
            EnvName::Constant(name) => return quote!(#name),
            EnvName::Counter(frame) => {
                if let Some(env) = self.frames[frame].env_mut() {
                    env.counter_used = true;
                }
                let own = own_part(innermost - frame);
                return quote!(#own.0);
            }
            EnvName::Running(frame, index) => {
                let env = self.frames[frame].env_mut().expect("checked by env_name");
                env.number_used = true;
                let running = &mut env.running[index];
                running.used = true;
                let step = &running.step;
                let own = own_part(innermost - frame);
                let index = syn::Index::from(index);
                let steps = if running.advanced {
                    quote!(#step * (#own.1 + 1))
                } else {
                    quote!(#step * #own.1)
                };
                return quote!(::ad_runtime::__private::Counter::nth(#own.2.#index, #steps));
            }
            EnvName::Around(site, name) => {
                let around = self.frames[outermost]
                    .env_mut()
                    .and_then(|env| env.around.as_mut())
                    .expect("checked by env_name");
                let position = match around.names.iter().position(|(s, _)| *s == site) {
                    Some(position) => position,
                    None => {
                        around.names.push((site, name));
                        around.names.len() - 1
                    }
                };
                (depth, position)
            }
        };
        let mut path = quote!(__ad_env);
        for _ in 0..levels {
            path = quote!((#path.0));
        }
        let field = syn::Index::from(field);
        quote!(#path.#field)
    }

    /// The running indices of a loop about to be lowered: names bound outside it that its body
    /// changes only in one statement of its own, `name += literal;`.
    pub(super) fn running_indices(&mut self, body: &Block, looped: &Expr) -> Vec<RunningIndex> {
        let mut running = Vec::new();
        for stmt in &body.stmts {
            let Stmt::Expr(Expr::Binary(binary), Some(_)) = stmt else {
                continue;
            };
            let (
                BinOp::AddAssign(_),
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(step),
                    ..
                }),
            ) = (&binary.op, &*binary.right)
            else {
                continue;
            };
            let Expr::Path(path) = &*binary.left else {
                continue;
            };
            let Some(name) = path.path.get_ident() else {
                continue;
            };
            let Some(site) = self.binding_site(name) else {
                continue;
            };
            // A name the body binds again may be another variable at the statement.
            if !matches!(self.lookup(name), Some(Binding::Data))
                || changes(looped, name) != 1
                || binds(body, name)
            {
                continue;
            }
            // Where the loop around runs this loop's iterations, the entry is read from its
            // own environment when it can be, and kept otherwise.
            let entry = self.fresh("entry");
            let entry_backward = self
                .recompute(&Expr::Path(path.clone()))
                .unwrap_or(quote!(#entry));
            running.push(RunningIndex {
                name: name.clone(),
                site,
                step: step.clone(),
                statement: stmt,
                advanced: false,
                entry,
                entry_backward,
                used: false,
            });
        }
        running
    }

    /// Notes that a loop's running index has advanced once `stmt`, a statement of its body, has
    /// been lowered.
    pub(super) fn advance_running(&mut self, stmt: &Stmt) {
        if let Some(env) = self.frames.last_mut().and_then(Frame::env_mut) {
            for running in &mut env.running {
                running.advanced |= core::ptr::eq(running.statement, stmt);
            }
        }
    }

    /// In the borrowed companion, an element of a container parameter read in a loop iteration
    /// is read again by the iteration's backward code (the parameter, borrowed for as long as
    /// the pullback lives, is part of the loop environment) rather than kept.
    pub(super) fn read_again(&mut self, base: &Expr, position: &Ident) -> Option<TokenStream> {
        self.borrowed.as_ref()?;
        let Expr::Path(path) = strip_parens(base) else {
            return None;
        };
        let name = path.path.get_ident()?;
        let site = self.binding_site(name)?;
        if !self.shared_containers.contains(&site) {
            return None;
        }
        let (outermost, innermost) = self.env_nest()?;
        if !self.unchanged_around(site, name, outermost) {
            return None;
        }
        let container = self.read_env(EnvName::Around(site, name.clone()), outermost, innermost);
        self.reads_again += 1;
        Some(quote!(#container[#position]))
    }

    /// An element that a loop over a range reads in every iteration (directly in its body) at
    /// an index the loop does not change, from a container it does not change: read once
    /// before the loop, and kept once (see `LoopEnv::hoisted`).
    pub(super) fn hoist(
        &mut self,
        base: &Expr,
        vector: usize,
        index: &Expr,
    ) -> Option<(TokenStream, usize)> {
        let innermost = self.frames.len().checked_sub(1)?;
        let env = self.frames[innermost].env()?;
        env.iterator.as_ref()?;
        let Expr::Path(path) = strip_parens(base) else {
            return None;
        };
        let container = path.path.get_ident()?;
        let outside = |name: &Ident| match self.binding_site(name) {
            _ if self.may_be_declared_item(name) => false,
            Some(site) => site.0 < innermost && !may_change(&env.looped, name),
            None => name
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase()),
        };
        let mut invariant = outside(container);
        rebuild_index(index, &mut |name| {
            invariant &= outside(name);
            Some(TokenStream::new())
        })?;
        if !invariant {
            return None;
        }
        let value = self.fresh("hoisted");
        let position = self.fresh("position");
        let index = self.native(index);
        let env = self.frames[innermost].env_mut()?;
        let place = env.hoisted.len();
        env.hoisted.push(Hoisted {
            value,
            position,
            container: base.to_token_stream(),
            vector,
            index,
        });
        let own = own_part(0);
        let field = syn::Index::from(place);
        Some((quote!(#own.3.#field), place))
    }

    /// An element bound by a loop over containers (`v` in `for v in &x`) is indexed by the
    /// loop's counter: the backward code of an iteration inside that loop reads it from the
    /// loop environment.
    pub(super) fn recompute_counter(&mut self, index: &Ident) {
        let Some((outermost, innermost)) = self.env_nest() else {
            return;
        };
        if self.frames[innermost]
            .prologue
            .iter()
            .any(|(name, _)| name == index)
        {
            return;
        }
        let Some(frame) = (outermost..=innermost).find(|&frame| {
            self.frames[frame]
                .env()
                .is_some_and(|env| env.counter_ident.as_ref() == Some(index))
        }) else {
            return;
        };
        let read = self.read_env(EnvName::Counter(frame), outermost, innermost);
        self.frames[innermost]
            .prologue
            .push((index.clone(), quote!(let #index: usize = #read;)));
    }

    /// `let position: usize = index;` in the forward code, recomputed by the backward code of
    /// a loop iteration when it can be.
    pub(super) fn index_position(&mut self, index: &Expr) -> Ident {
        let position = self.fresh("i");
        let value = self.native(index);
        self.emit(quote!(let #position: usize = #value;));
        if let Some(again) = self.recompute(index) {
            self.frame()
                .prologue
                .push((position.clone(), quote!(let #position: usize = #again;)));
        }
        position
    }
}
