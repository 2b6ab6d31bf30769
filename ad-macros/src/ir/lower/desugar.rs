//! Iterator spellings rewritten, before lowering, into the ones the lowering takes. Each is
//! an identity of Rust's semantics on the code it applies to:
//!
//! * `chain.for_each(|pat| body);` is `for pat in chain { body }` (a body without `return` or
//!   `?`, which would leave the closure, not the loop), and so is `chain.map(|pat|
//!   body).count();` whose count is unused (argmin's `_derivative_const` functions);
//! * `let s = chain.map(|x| { *x = ..; *x }).sum::<f32>();`, whose closure writes, is the
//!   loop `for x in chain { acc += { *x = ..; *x }; }` (llama2.rs' softmax);
//! * `v.extend(chain);` of a local is `for item in chain { v.push(item); }` (the item read
//!   through its reference where the chain gives references: `v.extend(x.iter())`);
//! * `map(f64::exp)`, `filter(is_small)` and the other adapters given a function's path are
//!   the closure `|item| f64::exp(item)` calling it;
//! * `std::iter::zip(a, b)` is `a.into_iter().zip(b)`;
//! * `a.clone_from(&b)` is `a = b.clone()`;
//! * `(lo..=hi).contains(&x)` is `lo <= x && x <= hi` (statrs' argument checks);
//! * a `&mut` parameter passed by name to a `&mut` parameter of a function of the file is
//!   reborrowed mutably, `f(&mut *m)`, as Rust does (TheAlgorithms' `gaussian_elimination`);
//! * `a.map(|x| body)` of an array of a written length `n` is the array `[{ let x = a[0];
//!   body }, ..]` (argmin's `picheny`);
//! * `a.add(b)` (`sub`, `mul`, `div`, `rem`; `a.neg()`) is `a + b` where the file imports the
//!   operator's trait from `std::ops` and defines no method of that name (llama2.rs writes
//!   `x.iter().map(..).sum::<f32>().div(n).add(1e-5)`);
//! * `xs.partition_point(|&v| v < x)` of a container the code names is the first item that
//!   fails the test, `xs.iter().position(|&v| !(v < x)).unwrap_or(xs.len())`: the same index on
//!   a partitioned container, the only one `partition_point` is defined on (a loop instead of a
//!   binary search; the index is data);
//! * `let PAT = e else { leave }; rest` is `match e { PAT => { rest } _ => { leave } }`, the
//!   rest of the block in the matching arm;
//! * an iterator kept in a variable and used once (`let pairs = x.iter().zip(y); let s =
//!   pairs.map(..).sum();`) is its chain written where it is used: an iterator is lazy, what
//!   it borrows cannot change while it lives, and what it read eagerly (`take(k)`) is checked
//!   to be named nowhere in between.

use syn::visit_mut::VisitMut;
use syn::{Expr, Pat, Stmt};

use super::{element_access, strip, NotYet};

/// The body with the spellings above rewritten; `None` when it has none. An iterator over a
/// container kept in a variable that is not used once where it runs once (stepped by hand,
/// `it.next()`) is refused with one message.
pub(super) fn iterator_spellings(
    function: &crate::ast::Function,
    body: &syn::Block,
) -> Result<Option<syn::Block>, NotYet> {
    let mut rewritten = body.clone();
    let mut rewrite = Rewrite {
        changed: false,
        kept: None,
        array_lengths: function
            .params
            .iter()
            .filter_map(|param| Some((param.name.to_string(), array_length(&param.ty)?)))
            .collect(),
        vecs: function
            .params
            .iter()
            .filter(|param| crate::ast::is_vec_type(referenced(&param.ty)))
            .map(|param| param.name.to_string())
            .collect(),
        mutable_parameters: function
            .params
            .iter()
            .filter(|param| param.is_mut_reference() && !param.receiver)
            .map(|param| param.name.to_string())
            .collect(),
    };
    rewrite.visit_block_mut(&mut rewritten);
    if let Some(span) = rewrite.kept {
        return Err(NotYet {
            span,
            what: ITERATOR_KEPT,
        });
    }
    Ok(rewrite.changed.then_some(rewritten))
}

/// The refusal of an iterator over a container kept in a variable and stepped by hand.
pub(crate) const ITERATOR_KEPT: &str =
    "an iterator over a container kept in a variable that cannot be written where it is \
     used (an adapter stepped by hand, such as `peekable()` and `peek()`, or an iterator used \
     in a loop or more than once, or reading a variable that changes before that use): write \
     a `for` loop over the container's indices, the chain where it is used, or step \
     `x.iter()` itself with `next()`";

struct Rewrite {
    changed: bool,
    /// Where an iterator kept in a variable that cannot be written where it is used is made.
    kept: Option<proc_macro2::Span>,
    /// The names of arrays of a length the code writes (`p: &[f64; 2]`, `let v: [f64; 3]`,
    /// `let v = [a, b, c];`), as bound so far.
    array_lengths: std::collections::HashMap<String, usize>,
    /// The names of `Vec`s (`v: &mut Vec<f64>`, `let mut v = Vec::new();`, `vec![..]`, a
    /// written `Vec` type), as bound so far: what `extend` is rewritten for.
    vecs: std::collections::HashSet<String>,
    /// The function's `&mut` parameters, while no `let` shadows them.
    mutable_parameters: std::collections::HashSet<String>,
}

impl VisitMut for Rewrite {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        // What the block's `let`s bind goes out of scope with it.
        let outer = self.names();
        let mut at = 0;
        while at < block.stmts.len() {
            if is_let_else(&block.stmts[at]) {
                let rest = block.stmts.split_off(at + 1);
                match let_else_as_match(&block.stmts[at], rest) {
                    Ok(matched) => {
                        block.stmts[at] = matched;
                        self.changed = true;
                    }
                    Err(rest) => block.stmts.extend(rest),
                }
            }
            if let Some(looped) = written_reduction_as_loop(&block.stmts[at]) {
                let count = looped.len();
                block.stmts.splice(at..=at, looped);
                self.changed = true;
                at += count;
                continue;
            }
            if let Some((name, chain, mutable)) = iterator_binding(&block.stmts[at]) {
                let after = &mut block.stmts[at + 1..];
                if !mutable
                    && used_once_in_place(&name, after)
                    && unchanged_until_used(&name, &chain, after)
                {
                    let mut inline = Inline {
                        name: &name,
                        chain: &chain,
                    };
                    for stmt in after.iter_mut() {
                        inline.visit_stmt_mut(stmt);
                    }
                    block.stmts.remove(at);
                    self.changed = true;
                    continue;
                }
                if mutable {
                    if let Some((declared, rewritten)) =
                        super::stepped_iterators::stepped_by_position(&name, &chain, after)
                    {
                        block.stmts.truncate(at);
                        block.stmts.push(declared);
                        block.stmts.extend(rewritten);
                        self.changed = true;
                        at += 1;
                        continue;
                    }
                }
                if iterates_a_container(&chain) {
                    self.kept.get_or_insert(syn::spanned::Spanned::span(&chain));
                }
            }
            at += 1;
        }
        syn::visit_mut::visit_block_mut(self, block);
        self.restore(outer);
    }

    // The names a pattern binds shadow the arrays, `Vec`s and `&mut` parameters of those
    // names where the pattern's scope runs: a match arm, a closure, a `for` loop's body, the
    // rest of the block after an `if let`'s or `while let`'s condition (taken as longer than
    // it is, which only forgoes a rewrite).
    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        let outer = self.names();
        self.forget(&arm.pat);
        syn::visit_mut::visit_arm_mut(self, arm);
        self.restore(outer);
    }

    fn visit_expr_closure_mut(&mut self, closure: &mut syn::ExprClosure) {
        let outer = self.names();
        for input in &closure.inputs {
            self.forget(input);
        }
        syn::visit_mut::visit_expr_closure_mut(self, closure);
        self.restore(outer);
    }

    fn visit_expr_for_loop_mut(&mut self, for_loop: &mut syn::ExprForLoop) {
        self.visit_expr_mut(&mut for_loop.expr);
        let outer = self.names();
        self.forget(&for_loop.pat);
        self.visit_block_mut(&mut for_loop.body);
        self.restore(outer);
    }

    fn visit_expr_let_mut(&mut self, binding: &mut syn::ExprLet) {
        syn::visit_mut::visit_expr_let_mut(self, binding);
        self.forget(&binding.pat);
    }

    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        if let Stmt::Expr(expr, semicolon) = stmt {
            let looped = match semicolon {
                Some(_) => counted_map_as_loop(expr),
                None => None,
            };
            if let Some(looped) = looped.or_else(|| as_for_loop(expr, &self.vecs)) {
                *stmt = Stmt::Expr(looped, semicolon.take());
                self.changed = true;
            }
        }
        syn::visit_mut::visit_stmt_mut(self, stmt);
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::MethodCall(call) if self.array_map(call).is_some() => {
                *expr = self.array_map(call).expect("checked by the guard");
                self.changed = true;
                self.visit_expr_mut(expr);
                return;
            }
            Expr::MethodCall(call)
                if call.args.len() == 1
                    && call.turbofish.is_none()
                    && crate::plain_calls::TAKES_A_FUNCTION
                        .contains(&call.method.to_string().as_str()) =>
            {
                if let Expr::Path(path) = strip(&call.args[0]) {
                    if path.qself.is_none() {
                        let span = call.method.span();
                        let function = path.clone();
                        call.args[0] = syn::parse_quote_spanned!(span=>
                            |__ad_item| #function(__ad_item)
                        );
                        self.changed = true;
                    }
                }
            }
            // `a.clone_from(&b)` is `a = b.clone()` (TheAlgorithms' power iteration).
            Expr::MethodCall(call)
                if call.method == "clone_from"
                    && call.args.len() == 1
                    && call.turbofish.is_none()
                    && matches!(&call.args[0], Expr::Reference(reference)
                        if reference.mutability.is_none()) =>
            {
                if let Expr::Reference(source) = &call.args[0] {
                    let (receiver, source) = (&call.receiver, &source.expr);
                    let span = call.method.span();
                    *expr = syn::parse_quote_spanned!(span=> #receiver = (#source).clone());
                    self.changed = true;
                    self.visit_expr_mut(expr);
                    return;
                }
            }
            Expr::MethodCall(call) if operator_of_method(call).is_some() => {
                let operator = operator_of_method(call).expect("checked by the guard");
                let receiver = &call.receiver;
                let span = call.method.span();
                *expr = match call.args.first() {
                    Some(operand) => {
                        syn::parse_quote_spanned!(span=> ((#receiver) #operator (#operand)))
                    }
                    None => syn::parse_quote_spanned!(span=> (#operator (#receiver))),
                };
                self.changed = true;
                // The operands may hold more spellings to rewrite.
                self.visit_expr_mut(expr);
                return;
            }
            Expr::MethodCall(call) if range_contains(call).is_some() => {
                *expr = range_contains(call).expect("checked by the guard");
                self.changed = true;
                self.visit_expr_mut(expr);
                return;
            }
            // `match x.iter().max_by(cmp) { Some(m) => a, None => b }` (or `if let`): the
            // selection unwrapped where the container is not empty.
            Expr::Match(_) | Expr::If(_) if matched_selection(expr).is_some() => {
                *expr = matched_selection(expr).expect("checked by the guard");
                self.changed = true;
                self.visit_expr_mut(expr);
                return;
            }
            // `centroids.iter().map(|c| dist(x, c)).min_by(cmp).unwrap()`: a loop that keeps the
            // item selected so far.
            Expr::MethodCall(call) if mapped_selection(call).is_some() => {
                *expr = mapped_selection(call).expect("checked by the guard");
                self.changed = true;
                self.visit_expr_mut(expr);
                return;
            }
            // `if let (Some(a), Some(b)) = (x.get(i), x.get(j)) { .. } else { .. }`: one
            // element at a time.
            Expr::Match(_) | Expr::If(_) if matched_accessors_nested(expr).is_some() => {
                *expr = matched_accessors_nested(expr).expect("checked by the guard");
                self.changed = true;
                self.visit_expr_mut(expr);
                return;
            }
            // `Params { a: e, ..base }`: the fields given, then the base with them written.
            Expr::Struct(structure)
                if structure.rest.is_some()
                    && structure.qself.is_none()
                    && structure.path.get_ident().is_some_and(|name| {
                        crate::source_facts::defines_derived(&name.to_string())
                    }) =>
            {
                *expr = struct_update(structure);
                self.changed = true;
                self.visit_expr_mut(expr);
                return;
            }
            // `x.split_first().unwrap()`: the first element and the rest, borrowed.
            Expr::MethodCall(call) if split_unwrapped(call).is_some() => {
                *expr = split_unwrapped(call).expect("checked by the guard");
                self.changed = true;
                self.visit_expr_mut(expr);
                return;
            }
            // `x.chunks_exact(n).remainder()`: the sub-slice after the last whole chunk.
            Expr::MethodCall(call) if chunks_remainder(call).is_some() => {
                *expr = chunks_remainder(call).expect("checked by the guard");
                self.changed = true;
                self.visit_expr_mut(expr);
                return;
            }
            Expr::MethodCall(call) if call.method == "partition_point" => {
                if let Some(searched) = partition_point_as_position(call) {
                    *expr = searched;
                    self.changed = true;
                }
            }
            // `echelon(matrix, i, j)` with `matrix: &mut [..]` passed on to a `&mut` parameter:
            // Rust reborrows it mutably, `&mut *matrix`, as written here.
            Expr::Call(call) if self.reborrows_mutably(call) => {
                let Expr::Path(callee) = &*call.func else {
                    unreachable!("checked by the guard")
                };
                let mutable = crate::source_facts::mutable_parameters(&callee.path)
                    .expect("checked by the guard");
                for (arg, mutable) in call.args.iter_mut().zip(mutable) {
                    if mutable && self.names_a_mutable_parameter(arg) {
                        let span = syn::spanned::Spanned::span(arg);
                        *arg = syn::parse_quote_spanned!(span=> &mut *#arg);
                    }
                }
                self.changed = true;
            }
            Expr::Call(call) if call.args.len() == 2 && is_iter_zip(&call.func) => {
                let (a, b) = (&call.args[0], &call.args[1]);
                let span = match &*call.func {
                    Expr::Path(path) => path
                        .path
                        .segments
                        .last()
                        .map(|last| last.ident.span())
                        .unwrap_or_else(proc_macro2::Span::call_site),
                    _ => proc_macro2::Span::call_site(),
                };
                *expr = syn::parse_quote_spanned!(span=>
                    (#a).into_iter().zip(#b)
                );
                self.changed = true;
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        syn::visit_mut::visit_local_mut(self, local);
        let (pat, written) = match &local.pat {
            syn::Pat::Type(typed) => (&*typed.pat, array_length(&typed.ty)),
            pat => (pat, None),
        };
        let literal = match local.init.as_ref().map(|init| strip(&init.expr)) {
            Some(Expr::Array(array)) => Some(array.elems.len()),
            _ => None,
        };
        self.forget(&local.pat);
        if let (syn::Pat::Ident(binding), Some(length)) = (pat, written.or(literal)) {
            self.array_lengths.insert(binding.ident.to_string(), length);
        }
        let written_vec = matches!(&local.pat, syn::Pat::Type(typed)
            if crate::ast::is_vec_type(referenced(&typed.ty)));
        let built_vec = local
            .init
            .as_ref()
            .is_some_and(|init| builds_a_vec(&init.expr));
        if let (syn::Pat::Ident(binding), true) = (pat, written_vec || built_vec) {
            self.vecs.insert(binding.ident.to_string());
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `std::iter::zip`, `core::iter::zip`, `iter::zip` (a bare `zip` may be anything).
fn is_iter_zip(func: &Expr) -> bool {
    let Expr::Path(path) = strip(func) else {
        return false;
    };
    let names = crate::ast::segment_names(&path.path);
    matches!(
        names
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice(),
        ["std" | "core", "iter", "zip"] | ["iter", "zip"]
    )
}

/// `chain.for_each(|pat| body)` or `v.extend(chain)`, a statement, as the `for` loop it runs.
fn as_for_loop(expr: &Expr, vecs: &std::collections::HashSet<String>) -> Option<Expr> {
    let Expr::MethodCall(call) = expr else {
        return None;
    };
    if call.args.len() != 1 || call.turbofish.is_some() {
        return None;
    }
    let span = call.method.span();
    let chain = &call.receiver;
    match call.method.to_string().as_str() {
        "for_each" => {
            let Expr::Closure(closure) = strip(&call.args[0]) else {
                return None;
            };
            // An exit of the body (`return`, `?`) would leave the closure, not the loop; a
            // `break` of a loop inside it is refused too, conservatively.
            let body = &closure.body;
            if closure.inputs.len() != 1 || super::control::has_exits(&syn::parse_quote!({ #body }))
            {
                return None;
            }
            let pat = untyped(&closure.inputs[0]);
            Some(syn::parse_quote_spanned!(span=> for #pat in #chain { #body; }))
        }
        // Of a `Vec`'s: a `VecDeque`'s items are pushed otherwise.
        "extend"
            if super::places::is_place_expression(chain)
                && matches!(strip(chain), Expr::Path(path)
                    if path.path.get_ident().is_some_and(|name| vecs.contains(&name.to_string()))) =>
        {
            let items = &call.args[0];
            let item = match gives_references(items)? {
                true => quote::quote_spanned!(span=> *__ad_item),
                false => quote::quote_spanned!(span=> __ad_item),
            };
            Some(syn::parse_quote_spanned!(span=>
                for __ad_item in #items { #chain.push(#item); }
            ))
        }
        _ => None,
    }
}

/// `chain.map(|pat| body).count();`, the count unused: the loop running `body` on every item
/// (argmin's `_derivative_const` functions write their results so: `.map(|(x, o)| *o =
/// ..).count();`).
fn counted_map_as_loop(expr: &Expr) -> Option<Expr> {
    let Expr::MethodCall(count) = expr else {
        return None;
    };
    let (map, closure) = mapped_by_a_closure(&count.receiver)?;
    if count.method != "count" || !count.args.is_empty() {
        return None;
    }
    let body = &closure.body;
    let (pat, chain) = (untyped(&closure.inputs[0]), &map.receiver);
    let span = count.method.span();
    Some(syn::parse_quote_spanned!(span=> for #pat in #chain { #body; }))
}

/// `chain.map(|pat| body)` with a closure of one parameter that does not leave itself
/// (`return`, `?`, which a loop's body would take for the function's): the call and the closure.
fn mapped_by_a_closure(expr: &Expr) -> Option<(&syn::ExprMethodCall, &syn::ExprClosure)> {
    let Expr::MethodCall(map) = strip(expr) else {
        return None;
    };
    let Some(Expr::Closure(closure)) = map.args.first().map(strip) else {
        return None;
    };
    let body = &closure.body;
    let runs_as_a_loop_body = map.method == "map"
        && map.args.len() == 1
        && closure.inputs.len() == 1
        && !super::control::has_exits(&syn::parse_quote!({ #body }));
    runs_as_a_loop_body.then_some((map, closure))
}

/// A closure parameter's pattern without its written type (`|v: &mut f32|`), as a `for`
/// loop's pattern.
fn untyped(pat: &syn::Pat) -> &syn::Pat {
    match pat {
        syn::Pat::Type(typed) => &typed.pat,
        pat => pat,
    }
}

/// `let s = chain.map(|x| { *x = ..; *x }).sum::<f32>();`, a `map` closure that writes (its
/// item, or what it captures), as the loop it runs: `let mut acc: f32 = 0.0; for x in chain {
/// acc += { *x = ..; *x }; } let s = acc;` (`product` from `1.0` with `*=`). The float type is
/// the turbofish's or the `let`'s; the closure may not leave itself (`return`, `?`).
fn written_reduction_as_loop(stmt: &Stmt) -> Option<Vec<Stmt>> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    let init = local.init.as_ref().filter(|init| init.diverge.is_none())?;
    let Expr::MethodCall(reduce) = strip(&init.expr) else {
        return None;
    };
    let (start, operator) = match reduce.method.to_string().as_str() {
        "sum" => (quote::quote!(0.0), quote::quote!(+=)),
        "product" => (quote::quote!(1.0), quote::quote!(*=)),
        _ => return None,
    };
    let written_type = match &local.pat {
        syn::Pat::Type(typed) => Some(&*typed.ty),
        _ => None,
    };
    let float = match &reduce.turbofish {
        Some(turbofish) => match turbofish.args.first() {
            Some(syn::GenericArgument::Type(ty)) if turbofish.args.len() == 1 => Some(ty),
            _ => None,
        },
        None => written_type,
    }
    .filter(|ty| crate::ast::float_of_type(ty).is_some())?;
    let (map, closure) = mapped_by_a_closure(&reduce.receiver)?;
    let body = &closure.body;
    if !reduce.args.is_empty() || super::closures::first_write(body, &|_| false).is_none() {
        return None;
    }
    let (chain, item, pat) = (&map.receiver, untyped(&closure.inputs[0]), &local.pat);
    let span = reduce.method.span();
    let block: syn::Block = syn::parse_quote_spanned!(span=> {
        let mut __ad_reduced: #float = #start;
        for #item in #chain {
            __ad_reduced #operator #body;
        }
        let #pat = __ad_reduced;
    });
    Some(block.stmts)
}

/// Whether an iterator of floats gives references to them (`x.iter()`, `&x`, `x.iter().rev()`)
/// or values (`x.iter().map(..)`, `.copied()`, a range), when the spelling says which.
fn gives_references(items: &Expr) -> Option<bool> {
    match strip(items) {
        Expr::Reference(_) => Some(true),
        Expr::Range(_) => Some(false),
        Expr::MethodCall(call) => match call.method.to_string().as_str() {
            "iter" => Some(true),
            "map" | "copied" | "cloned" | "into_iter" => Some(false),
            "rev" | "skip" | "take" | "step_by" | "filter" | "skip_while" | "take_while"
            | "chain" => gives_references(&call.receiver),
            _ => None,
        },
        _ => None,
    }
}

/// The adapters of an iterator.
const ITERATOR_METHODS: &[&str] = &[
    "zip",
    "map",
    "filter",
    "enumerate",
    "rev",
    "skip",
    "take",
    "step_by",
    "chain",
    "copied",
    "cloned",
    "flat_map",
    "take_while",
    "skip_while",
    "filter_map",
    "scan",
    "peekable",
    "inspect",
];
/// `let name = chain;` (no type written) of an iterator chain: the name, the chain, and
/// whether the binding is `mut`.
fn iterator_binding(stmt: &Stmt) -> Option<(syn::Ident, Expr, bool)> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    let syn::Pat::Ident(binding) = &local.pat else {
        return None;
    };
    let init = local.init.as_ref()?;
    if binding.by_ref.is_some() || binding.subpat.is_some() || init.diverge.is_some() {
        return None;
    }
    is_iterator_chain(&init.expr).then(|| {
        let mutable = binding.mutability.is_some();
        (binding.ident.clone(), (*init.expr).clone(), mutable)
    })
}

/// Whether `expr` makes an iterator: adapters over a container's `iter()`, `iter_mut()`,
/// `into_iter()`, `windows(n)`, `chunks(n)` (and the other iterators of `std` types) or over a
/// range (not `Option::take`, `map` of an option, which are eager).
pub(super) fn is_iterator_chain(expr: &Expr) -> bool {
    match strip(expr) {
        Expr::Range(_) => true,
        Expr::MethodCall(call) => {
            let method = call.method.to_string();
            if ITERATOR_SOURCES.contains(&method.as_str()) {
                return true;
            }
            ITERATOR_METHODS.contains(&method.as_str()) && is_iterator_chain(&call.receiver)
        }
        _ => false,
    }
}

/// The methods that make an iterator of a container.
const ITERATOR_SOURCES: &[&str] = &[
    "iter",
    "iter_mut",
    "into_iter",
    "windows",
    "chunks",
    "chunks_exact",
    "chunks_mut",
    "chunks_exact_mut",
    "chars",
    "bytes",
    "lines",
    "split",
    "keys",
    "values",
    "drain",
];

/// Whether nothing the chain reads is named between its `let` and the statement that uses it:
/// what it evaluated eagerly (`take(k)`, a `move` closure's copies) is what it would evaluate
/// there.
fn unchanged_until_used(name: &syn::Ident, chain: &Expr, after: &[Stmt]) -> bool {
    let read: Vec<proc_macro2::Ident> =
        crate::ast::idents_of(quote::ToTokens::to_token_stream(chain));
    for stmt in after {
        let named = crate::ast::idents_of(quote::ToTokens::to_token_stream(stmt));
        if named.contains(name) {
            return true;
        }
        if named.iter().any(|ident| read.contains(ident)) {
            return false;
        }
    }
    true
}

/// Whether `name` is read exactly once in `stmts`, where it runs once (not in a loop's body
/// or a closure), and bound again nowhere there.
fn used_once_in_place(name: &syn::Ident, stmts: &[Stmt]) -> bool {
    struct Uses<'n> {
        name: &'n syn::Ident,
        count: usize,
        repeated: usize,
        in_repeated: bool,
        rebound: bool,
    }
    impl Uses<'_> {
        fn repeated<T>(&mut self, visit: impl FnOnce(&mut Self) -> T) -> T {
            let outer = std::mem::replace(&mut self.in_repeated, true);
            let result = visit(self);
            self.in_repeated = outer;
            result
        }
    }
    impl<'ast> syn::visit::Visit<'ast> for Uses<'_> {
        fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
            if path.qself.is_none() && path.path.is_ident(self.name) {
                self.count += 1;
                if self.in_repeated {
                    self.repeated += 1;
                }
            }
        }
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            if pat.ident == *self.name {
                self.rebound = true;
            }
            syn::visit::visit_pat_ident(self, pat);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            if crate::ast::idents_of(mac.tokens.clone()).contains(self.name) {
                self.rebound = true;
            }
        }
        fn visit_expr_for_loop(&mut self, for_loop: &'ast syn::ExprForLoop) {
            self.visit_pat(&for_loop.pat);
            self.visit_expr(&for_loop.expr);
            self.repeated(|this| this.visit_block(&for_loop.body));
        }
        fn visit_expr_while(&mut self, looped: &'ast syn::ExprWhile) {
            self.repeated(|this| syn::visit::visit_expr_while(this, looped));
        }
        fn visit_expr_loop(&mut self, looped: &'ast syn::ExprLoop) {
            self.repeated(|this| syn::visit::visit_expr_loop(this, looped));
        }
        fn visit_expr_closure(&mut self, closure: &'ast syn::ExprClosure) {
            self.repeated(|this| syn::visit::visit_expr_closure(this, closure));
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut uses = Uses {
        name,
        count: 0,
        repeated: 0,
        in_repeated: false,
        rebound: false,
    };
    for stmt in stmts {
        syn::visit::Visit::visit_stmt(&mut uses, stmt);
    }
    uses.count == 1 && uses.repeated == 0 && !uses.rebound
}

/// Writes `chain` where `name` is read.
struct Inline<'a> {
    name: &'a syn::Ident,
    chain: &'a Expr,
}

impl VisitMut for Inline<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Path(path) = expr {
            if path.qself.is_none() && path.path.is_ident(self.name) {
                let chain = self.chain;
                *expr = syn::parse_quote!((#chain));
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The arrays, `Vec`s and `&mut` parameters known by name at a point of the body.
type KnownNames = (
    std::collections::HashMap<String, usize>,
    std::collections::HashSet<String>,
    std::collections::HashSet<String>,
);

impl Rewrite {
    fn names(&self) -> KnownNames {
        (
            self.array_lengths.clone(),
            self.vecs.clone(),
            self.mutable_parameters.clone(),
        )
    }

    fn restore(&mut self, (array_lengths, vecs, mutable_parameters): KnownNames) {
        self.array_lengths = array_lengths;
        self.vecs = vecs;
        self.mutable_parameters = mutable_parameters;
    }

    /// Forgets the names `pattern` binds: they are other values where it binds them.
    fn forget(&mut self, pattern: &Pat) {
        for name in crate::activity::pattern_bindings(pattern).0 {
            self.array_lengths.remove(&name.to_string());
            self.vecs.remove(&name.to_string());
            self.mutable_parameters.remove(&name.to_string());
        }
    }

    /// Whether `call` passes one of the function's `&mut` parameters, as its name, to a `&mut`
    /// parameter of a function of the file.
    fn reborrows_mutably(&self, call: &syn::ExprCall) -> bool {
        let Expr::Path(callee) = &*call.func else {
            return false;
        };
        let Some(mutable) = crate::source_facts::mutable_parameters(&callee.path) else {
            return false;
        };
        mutable.len() == call.args.len()
            && call
                .args
                .iter()
                .zip(mutable)
                .any(|(arg, mutable)| mutable && self.names_a_mutable_parameter(arg))
    }

    fn names_a_mutable_parameter(&self, arg: &Expr) -> bool {
        matches!(arg, Expr::Path(path) if path.qself.is_none()
        && path.path.get_ident().is_some_and(|name| {
            self.mutable_parameters.contains(&name.to_string())
        }))
    }

    /// `a.map(|x| body)` of an array `a` whose length `n` the code writes, as the array it
    /// makes: `[{ let x = a[0]; body }, .., { let x = a[n - 1]; body }]` (the method name is
    /// `Option::map`'s too, which the lowering would take it for).
    fn array_map(&self, call: &syn::ExprMethodCall) -> Option<Expr> {
        let Expr::Path(array) = strip(&call.receiver) else {
            return None;
        };
        let length = *self
            .array_lengths
            .get(&array.path.get_ident()?.to_string())?;
        let Some(Expr::Closure(closure)) = call.args.first().map(strip) else {
            return None;
        };
        let body = &closure.body;
        if call.method != "map"
            || call.args.len() != 1
            || call.turbofish.is_some()
            || closure.inputs.len() != 1
            || super::control::has_exits(&syn::parse_quote!({ #body }))
        {
            return None;
        }
        let pat = &closure.inputs[0];
        let span = call.method.span();
        let elements = (0..length).map(|index| {
            let index = syn::Index::from(index);
            quote::quote_spanned!(span=> { let #pat = #array[#index]; #body })
        });
        Some(syn::parse_quote_spanned!(span=> [#(#elements),*]))
    }
}

/// The type behind references (`&mut Vec<f64>` gives `Vec<f64>`).
fn referenced(ty: &syn::Type) -> &syn::Type {
    match ty {
        syn::Type::Reference(reference) => referenced(&reference.elem),
        syn::Type::Paren(paren) => referenced(&paren.elem),
        ty => ty,
    }
}

/// `Vec::new()`, `Vec::with_capacity(n)`, `vec![..]`, `x.to_vec()`: a `Vec` made.
fn builds_a_vec(expr: &Expr) -> bool {
    match strip(expr) {
        Expr::Call(call) => matches!(&*call.func, Expr::Path(path)
            if path.path.segments.len() == 2 && path.path.segments[0].ident == "Vec"),
        Expr::Macro(mac) => mac.mac.path.is_ident("vec"),
        Expr::MethodCall(call) => call.method == "to_vec",
        _ => false,
    }
}

/// The length of `[T; n]` or `&[T; n]` written as an integer.
fn array_length(ty: &syn::Type) -> Option<usize> {
    match ty {
        syn::Type::Reference(reference) => array_length(&reference.elem),
        syn::Type::Paren(paren) => array_length(&paren.elem),
        syn::Type::Array(array) => match &array.len {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(length),
                ..
            }) => length.base10_parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// `(lo..=hi).contains(&x)` as the comparisons it makes, `lo <= x && x <= hi` (`x < hi` for
/// `lo..hi`; either bound may be left out), for a range written as the receiver.
fn range_contains(call: &syn::ExprMethodCall) -> Option<Expr> {
    let Expr::Range(range) = strip(&call.receiver) else {
        return None;
    };
    if call.method != "contains" || call.args.len() != 1 || call.turbofish.is_some() {
        return None;
    }
    let span = call.method.span();
    let item: Expr = match strip(&call.args[0]) {
        Expr::Reference(reference) if reference.mutability.is_none() => (*reference.expr).clone(),
        other => syn::parse_quote_spanned!(span=> *#other),
    };
    let lower = range
        .start
        .as_ref()
        .map(|start| quote::quote_spanned!(span=> (#start) <= (#item)));
    let upper = range.end.as_ref().map(|end| match range.limits {
        syn::RangeLimits::Closed(_) => quote::quote_spanned!(span=> (#item) <= (#end)),
        syn::RangeLimits::HalfOpen(_) => quote::quote_spanned!(span=> (#item) < (#end)),
    });
    Some(match (lower, upper) {
        (Some(lower), Some(upper)) => syn::parse_quote_spanned!(span=> (#lower && #upper)),
        (Some(bound), None) | (None, Some(bound)) => syn::parse_quote_spanned!(span=> (#bound)),
        (None, None) => syn::parse_quote_spanned!(span=> true),
    })
}

/// The operator `a.add(b)` (or `a.neg()`) calls, when the file makes that certain.
fn operator_of_method(call: &syn::ExprMethodCall) -> Option<proc_macro2::TokenStream> {
    let method = call.method.to_string();
    let (trait_name, operator, arity) = match method.as_str() {
        "add" => ("Add", quote::quote!(+), 1),
        "sub" => ("Sub", quote::quote!(-), 1),
        "mul" => ("Mul", quote::quote!(*), 1),
        "div" => ("Div", quote::quote!(/), 1),
        "rem" => ("Rem", quote::quote!(%), 1),
        "neg" => ("Neg", quote::quote!(-), 0),
        _ => return None,
    };
    (call.args.len() == arity
        && call.turbofish.is_none()
        && crate::source_facts::calls_operator_method(&method, trait_name))
    .then_some(operator)
}

/// Whether the chain's source is a container's items (`x.iter()`, `v.windows(2)`), not a range.
fn iterates_a_container(chain: &Expr) -> bool {
    match strip(chain) {
        Expr::MethodCall(call) => match call.method.to_string().as_str() {
            "iter" | "iter_mut" | "windows" | "chunks" | "chunks_exact" | "chunks_mut"
            | "chunks_exact_mut" => true,
            "into_iter" => !matches!(strip(&call.receiver), Expr::Range(_)),
            _ => iterates_a_container(&call.receiver),
        },
        _ => false,
    }
}

/// `xs.partition_point(|&v| v < x)` as `xs.iter().position(|&v| !(v < x)).unwrap_or(xs.len())`.
fn partition_point_as_position(call: &syn::ExprMethodCall) -> Option<Expr> {
    if call.args.len() != 1 || call.turbofish.is_some() {
        return None;
    }
    let Expr::Closure(test) = strip(&call.args[0]) else {
        return None;
    };
    if test.inputs.len() != 1 || !super::places::is_place_expression(&call.receiver) {
        return None;
    }
    let (container, item, body) = (&call.receiver, &test.inputs[0], &test.body);
    let span = call.method.span();
    Some(syn::parse_quote_spanned!(span=>
        #container.iter().position(|#item| !(#body)).unwrap_or(#container.len())
    ))
}

/// `match sel { Some(pat) => a, None => b }` and `if let Some(pat) = sel { a } else { b }` of
/// a selection `sel` = `x.iter().max_by(cmp)` or `min_by` (also after `copied()`/`cloned()`)
/// as `if x.is_empty() { b } else { match sel.unwrap() { pat => a } }`: the selection is
/// `None` exactly when the container is empty, and unwrapped it is a reduction reverse mode
/// takes.
fn matched_selection(expr: &Expr) -> Option<Expr> {
    let (selection, pat, some, none) = match expr {
        Expr::Match(matched) if matched.arms.len() == 2 => {
            let (mut some, mut none) = (None, None);
            for arm in &matched.arms {
                if arm.guard.is_some() {
                    return None;
                }
                match &arm.pat {
                    Pat::TupleStruct(tuple)
                        if tuple.path.is_ident("Some") && tuple.elems.len() == 1 =>
                    {
                        some = Some((&tuple.elems[0], &*arm.body));
                    }
                    Pat::Ident(ident) if ident.ident == "None" && ident.subpat.is_none() => {
                        none = Some(&*arm.body)
                    }
                    Pat::Path(path) if path.path.is_ident("None") => none = Some(&*arm.body),
                    Pat::Wild(_) => none = Some(&*arm.body),
                    _ => return None,
                }
            }
            let (pat, some) = some?;
            (&*matched.expr, pat, some.clone(), none?.clone())
        }
        Expr::If(branch) => {
            let Expr::Let(test) = &*branch.cond else {
                return None;
            };
            let Pat::TupleStruct(tuple) = &*test.pat else {
                return None;
            };
            if !tuple.path.is_ident("Some") || tuple.elems.len() != 1 {
                return None;
            }
            let then = &branch.then_branch;
            let otherwise = match &branch.else_branch {
                Some((_, otherwise)) => (**otherwise).clone(),
                None => syn::parse_quote!({}),
            };
            (
                &*test.expr,
                &tuple.elems[0],
                syn::parse_quote!(#then),
                otherwise,
            )
        }
        _ => return None,
    };
    let Expr::MethodCall(call) = strip(selection) else {
        return None;
    };
    let method = call.method.to_string();
    if !(method == "max_by" || method == "min_by") || call.args.len() != 1 {
        return None;
    }
    let mut source = strip(&call.receiver);
    while let Expr::MethodCall(inner) = source {
        match (inner.method.to_string().as_str(), inner.args.len()) {
            ("copied" | "cloned", 0) => source = strip(&inner.receiver),
            ("iter", 0) => {
                let container = &inner.receiver;
                let span = call.method.span();
                return Some(syn::parse_quote_spanned!(span=>
                    if (#container).is_empty() { #none } else {
                        match (#selection).unwrap() { #pat => #some }
                    }
                ));
            }
            _ => return None,
        }
    }
    None
}

/// `x.chunks_exact(n).remainder()` as `&x[x.len() - x.len() % n..]`.
fn chunks_remainder(call: &syn::ExprMethodCall) -> Option<Expr> {
    if call.method != "remainder" || !call.args.is_empty() || call.turbofish.is_some() {
        return None;
    }
    let Expr::MethodCall(chunks) = strip(&call.receiver) else {
        return None;
    };
    if chunks.method != "chunks_exact" || chunks.args.len() != 1 || chunks.turbofish.is_some() {
        return None;
    }
    let (container, size) = (&chunks.receiver, &chunks.args[0]);
    let span = call.method.span();
    Some(syn::parse_quote_spanned!(span=>
        (&(#container)[(#container).len() - (#container).len() % (#size)..])
    ))
}

/// `chain.map(f).max_by(cmp).unwrap()` (or `min_by`) as the loop `std` runs: the item selected
/// so far is replaced where `cmp(&selected, &item)` is not `Greater` (`max_by` keeps the last
/// greatest) or is `Greater` (`min_by` keeps the first least); an empty chain panics, as the
/// unwrap does. The items are floats (the selection starts at `0.0`, never read).
fn mapped_selection(unwrap: &syn::ExprMethodCall) -> Option<Expr> {
    if unwrap.method != "unwrap" || !unwrap.args.is_empty() || unwrap.turbofish.is_some() {
        return None;
    }
    let Expr::MethodCall(selection) = strip(&unwrap.receiver) else {
        return None;
    };
    let replaces = match selection.method.to_string().as_str() {
        "max_by" => quote::quote!(!=),
        "min_by" => quote::quote!(==),
        _ => return None,
    };
    let (1, None) = (selection.args.len(), &selection.turbofish) else {
        return None;
    };
    let Expr::Closure(compare) = strip(&selection.args[0]) else {
        return None;
    };
    let Expr::MethodCall(mapped) = strip(&selection.receiver) else {
        return None;
    };
    if mapped.method != "map" || mapped.args.len() != 1 || compare.inputs.len() != 2 {
        return None;
    }
    let chain = &selection.receiver;
    let span = selection.method.span();
    Some(syn::parse_quote_spanned!(span=> {
        let __ad_compare = #compare;
        let mut __ad_empty = true;
        let mut __ad_selected = 0.0;
        for __ad_item in #chain {
            if __ad_empty
                || __ad_compare(&__ad_selected, &__ad_item) #replaces ::core::cmp::Ordering::Greater
            {
                __ad_selected = __ad_item;
                __ad_empty = false;
            }
        }
        assert!(!__ad_empty, "called `Option::unwrap()` on a `None` value");
        __ad_selected
    }))
}

/// `DMatrix::from_fn(r, c, |i, j| body)` (`DVector::from_fn(n, ..)`, `Matrix3::from_fn(..)`),
/// as the loops over the elements it is: zeros of the shape, each element written.
pub(super) fn linalg_from_fn(path: &syn::Path, call: &syn::ExprCall) -> Option<Expr> {
    let method = &path.segments.last()?.ident;
    let args: Vec<&Expr> = call.args.iter().collect();
    let (closure, shape) = args.split_last()?;
    if method != "from_fn" || shape.len() > 2 {
        return None;
    }
    let Expr::Closure(closure) = strip(closure) else {
        return None;
    };
    let [row, column] = closure.inputs.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let mut zeros = path.clone();
    zeros.segments.last_mut()?.ident = syn::Ident::new("zeros", method.span());
    super::dispatch::linalg_constructor(&zeros, shape.len())?;
    let body = &closure.body;
    Some(
        syn::parse_quote_spanned!(syn::spanned::Spanned::span(call)=> {
            let mut __ad_built = #zeros(#(#shape),*);
            for __ad_column in 0..__ad_built.ncols() {
                for __ad_row in 0..__ad_built.nrows() {
                    let #row = __ad_row;
                    let #column = __ad_column;
                    __ad_built[(__ad_row, __ad_column)] = #body;
                }
            }
            __ad_built
        }),
    )
}

/// `v.map(|x| body)` of a nalgebra vector or matrix, as the loop over its elements it is:
/// element reads and writes, whose adjoints the IR follows.
pub(super) fn linalg_map(call: &syn::ExprMethodCall) -> Option<Expr> {
    if call.method != "map" || call.args.len() != 1 {
        return None;
    }
    let Expr::Closure(closure) = strip(&call.args[0]) else {
        return None;
    };
    let [element] = closure.inputs.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let (receiver, body) = (&call.receiver, &closure.body);
    Some(
        syn::parse_quote_spanned!(syn::spanned::Spanned::span(call)=> {
            let mut __ad_mapped = (#receiver).clone();
            for __ad_index in 0..__ad_mapped.len() {
                let #element = __ad_mapped[__ad_index];
                __ad_mapped[__ad_index] = #body;
            }
            __ad_mapped
        }),
    )
}

/// `if let (P1, P2, ..) = (a1, a2, ..) { then } else { other }` of element accessors
/// (`x.get(i)`, `v.first()`, `.copied()` of them), and the `match` of the tuple with one such
/// arm and `_`, as `match a1 { P1 => match a2 { P2 => then, _ => other }, _ => other }`:
/// accessors read nothing but their container and index, so matching them one at a time is
/// matching the tuple; `other` is written once per accessor.
fn matched_accessors_nested(expr: &Expr) -> Option<Expr> {
    let (pats, accessors, then, other) = match expr {
        Expr::If(expr_if) => {
            let Expr::Let(binding) = &*expr_if.cond else {
                return None;
            };
            let (Pat::Tuple(pats), Expr::Tuple(values)) = (&*binding.pat, strip(&binding.expr))
            else {
                return None;
            };
            let then = Expr::Block(syn::ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: expr_if.then_branch.clone(),
            });
            let other = expr_if
                .else_branch
                .as_ref()
                .map(|(_, other)| (**other).clone());
            (pats, values, then, other)
        }
        Expr::Match(matched) => {
            let Expr::Tuple(values) = strip(&matched.expr) else {
                return None;
            };
            let [arm, rest] = matched.arms.as_slice() else {
                return None;
            };
            let (Pat::Tuple(pats), Pat::Wild(_)) = (&arm.pat, &rest.pat) else {
                return None;
            };
            if arm.guard.is_some() || rest.guard.is_some() {
                return None;
            }
            (
                pats,
                values,
                (*arm.body).clone(),
                Some((*rest.body).clone()),
            )
        }
        _ => return None,
    };
    let simple_index = |accessor: &element_access::Accessor| match accessor.which {
        element_access::Which::At(at) => is_plain_index(at),
        _ => true,
    };
    if pats.elems.len() != accessors.elems.len()
        || accessors.elems.len() < 2
        || pats.elems.iter().any(|pat| matches!(pat, Pat::Rest(_)))
        || !accessors.elems.iter().all(|value| {
            element_access::repeatable_accessor(value)
                .is_some_and(|accessor| simple_index(&accessor))
        })
    {
        return None;
    }
    // Nested, each pattern's names would be in scope for the accessors after it and for
    // `other` (`(Some(&i), Some(&w)) = (idx.get(k), x.get(i))` reads the outer `i`): those
    // names the patterns bind hidden, given their own at the top of `then`. (Of an element
    // borrowed mutably, which a copy would not write, the tuple is not nested.)
    let names_in = |exprs: &mut dyn Iterator<Item = &Expr>| {
        exprs
            .flat_map(super::closures::free_names)
            .map(|name| super::scope_key(&name))
            .collect::<std::collections::HashSet<String>>()
    };
    let mut renamed = Vec::new();
    let mut rebound: Vec<syn::Stmt> = Vec::new();
    for (k, pat) in pats.elems.iter().enumerate() {
        let mut pat = pat.clone();
        let read_after = names_in(&mut accessors.elems.iter().skip(k + 1).chain(&other));
        let mut hide = HiddenBindings {
            prefix: format!("__ad_pair{k}_"),
            hidden: read_after,
            bindings: Vec::new(),
            refused: false,
        };
        syn::visit_mut::VisitMut::visit_pat_mut(&mut hide, &mut pat);
        let borrows_mutably =
            element_access::accessor(&accessors.elems[k]).is_some_and(|accessor| accessor.mutable);
        if hide.refused || (borrows_mutably && !hide.bindings.is_empty()) {
            return None;
        }
        for (name, mutability, hidden) in hide.bindings {
            rebound.push(syn::parse_quote!(let #mutability #name = #hidden;));
        }
        renamed.push(pat);
    }
    let mut nested: Expr = syn::parse_quote!({ #(#rebound)* #then });
    let other = other.unwrap_or_else(|| syn::parse_quote!({}));
    for (pat, value) in renamed.iter().zip(&accessors.elems).rev() {
        let span = syn::spanned::Spanned::span(value);
        nested = match pat {
            // `_` takes the element whether it is there or not.
            Pat::Wild(_) => continue,
            // `None`: the element is not there (`Some` first, as the lowering takes it).
            Pat::Ident(ident) if ident.ident == "None" && ident.subpat.is_none() => {
                syn::parse_quote_spanned!(span=> match #value { Some(_) => #other, None => #nested })
            }
            Pat::TupleStruct(some) if some.path.is_ident("Some") => {
                syn::parse_quote_spanned!(span=>
                    match #value { #pat => #nested, _ => #other }
                )
            }
            _ => return None,
        };
    }
    Some(nested)
}

/// A pattern's names among `hidden` made hidden ones (`a` is `__ad_pair0_a`), with the binding
/// each needs again (`let mut a = __ad_pair0_a;`); a `ref` binding is not taken, and `None` (a
/// capitalized name) is a unit variant, no binding.
struct HiddenBindings {
    prefix: String,
    hidden: std::collections::HashSet<String>,
    bindings: Vec<(syn::Ident, Option<syn::Token![mut]>, syn::Ident)>,
    refused: bool,
}

impl VisitMut for HiddenBindings {
    // `Body { mass, .. }`: the field named again, its binding hidden (`mass: __ad_pair0_mass`).
    fn visit_field_pat_mut(&mut self, field: &mut syn::FieldPat) {
        syn::visit_mut::visit_field_pat_mut(self, field);
        if field.colon_token.is_none() {
            field.colon_token = Some(Default::default());
        }
    }

    fn visit_pat_ident_mut(&mut self, binding: &mut syn::PatIdent) {
        if !self.hidden.contains(&super::scope_key(&binding.ident)) {
            return syn::visit_mut::visit_pat_ident_mut(self, binding);
        }
        // `None`, a unit variant or a constant, matches; it binds nothing.
        if binding.subpat.is_none()
            && binding
                .ident
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase())
        {
            return;
        }
        if binding.by_ref.is_some() {
            self.refused = true;
            return;
        }
        let name = binding.ident.clone();
        let hidden = quote::format_ident!("{}{}", self.prefix, name, span = name.span());
        self.bindings
            .push((name, binding.mutability.take(), hidden.clone()));
        binding.ident = hidden;
        syn::visit_mut::visit_pat_ident_mut(self, binding);
    }
}

/// `S { a: e, b, ..base }` of a derived type as what it does: `e` and `b` evaluated in order,
/// then `base` (a copy of a place), which gets them as its fields: `{ let f0 = e; let f1 = b;
/// let mut s = base; s.a = f0; s.b = f1; s }`.
fn struct_update(structure: &syn::ExprStruct) -> Expr {
    let span = syn::spanned::Spanned::span(&structure.path);
    let base = structure
        .rest
        .as_deref()
        .expect("a struct update has a base");
    let values: Vec<syn::Ident> = (0..structure.fields.len())
        .map(|k| quote::format_ident!("__ad_field{k}", span = span))
        .collect();
    let exprs = structure.fields.iter().map(|field| &field.expr);
    let members = structure.fields.iter().map(|field| &field.member);
    // A place (`..p`, `..*p`, `..self.params`) lends the fields not written: a copy of it.
    let base: Expr = match super::places::is_place_expression(base) {
        true => syn::parse_quote_spanned!(span=> (#base).clone()),
        false => base.clone(),
    };
    syn::parse_quote_spanned!(span=> {
        #(let #values = #exprs;)*
        let mut __ad_updated = #base;
        #(__ad_updated.#members = #values;)*
        __ad_updated
    })
}

/// `x.split_first().unwrap()` (or `.expect(..)`) of a place: `(&x[0], &x[1..])`, which panics
/// on an empty `x` as the `unwrap` does; `split_last` likewise, `(&x[x.len() - 1], &x[..x.len()
/// - 1])`.
fn split_unwrapped(call: &syn::ExprMethodCall) -> Option<Expr> {
    if !matches!(call.method.to_string().as_str(), "unwrap" | "expect") || call.turbofish.is_some()
    {
        return None;
    }
    let Expr::MethodCall(split) = strip(&call.receiver) else {
        return None;
    };
    if !split.args.is_empty()
        || split.turbofish.is_some()
        || !super::places::is_place_expression(&split.receiver)
    {
        return None;
    }
    let container = &split.receiver;
    let span = split.method.span();
    match split.method.to_string().as_str() {
        "split_first" => Some(syn::parse_quote_spanned!(span=>
            (&(#container)[0], &(#container)[1..])
        )),
        "split_last" => Some(syn::parse_quote_spanned!(span=>
            (&(#container)[(#container).len() - 1], &(#container)[..(#container).len() - 1])
        )),
        _ => None,
    }
}

/// An index without calls or blocks (`i`, `i + 1`, `n - k`), which reads the same whenever it
/// is evaluated.
fn is_plain_index(expr: &Expr) -> bool {
    match strip(expr) {
        Expr::Path(_) | Expr::Lit(_) => true,
        Expr::Binary(binary) => is_plain_index(&binary.left) && is_plain_index(&binary.right),
        Expr::Field(field) => is_plain_index(&field.base),
        _ => false,
    }
}

fn is_let_else(stmt: &Stmt) -> bool {
    matches!(stmt, Stmt::Local(local) if local.init.as_ref().is_some_and(|init| init.diverge.is_some()))
}

/// `let PAT = e else { leave }; rest` as the `match` it means, the rest of the block in the
/// matching arm: `match e { PAT => { rest } _ => { leave } }` (the block's value is the arm's,
/// `leave` diverging). The names `PAT` binds are the arm's, bound as written (`mut`, `ref`).
fn let_else_as_match(stmt: &Stmt, rest: Vec<Stmt>) -> Result<Stmt, Vec<Stmt>> {
    let Stmt::Local(local) = stmt else {
        return Err(rest);
    };
    let Some((init, (_, leave))) = local
        .init
        .as_ref()
        .and_then(|init| Some((init, init.diverge.as_ref()?)))
    else {
        return Err(rest);
    };
    if !local.attrs.is_empty() {
        return Err(rest);
    }
    let span = local.let_token.span;
    let expr = &init.expr;
    // `let Some(v): Option<f64> = e else { .. }`: the type is the value's, written on it,
    // but for an element's accessor (`x.first()`), whose type its container decides and which
    // the lowering matches as an element, and for a place (`*s`), which a binding would move.
    let (pattern, scrutinee): (&Pat, Expr) = match &local.pat {
        Pat::Type(typed)
            if element_access::accessor(expr).is_some()
                || super::places::is_place_expression(expr) =>
        {
            (&typed.pat, (**expr).clone())
        }
        Pat::Type(typed) => {
            let ty = &typed.ty;
            (
                &typed.pat,
                syn::parse_quote_spanned!(span=> { let __ad_typed: #ty = #expr; __ad_typed }),
            )
        }
        pattern => (pattern, (**expr).clone()),
    };
    Ok(Stmt::Expr(
        syn::parse_quote_spanned!(span=>
            match #scrutinee { #pattern => { #(#rest)* } _ => #leave }
        ),
        None,
    ))
}
