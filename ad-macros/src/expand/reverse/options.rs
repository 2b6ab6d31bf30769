//! `Option`s of floats built in a `#[reverse]` body (`let o = Some(e);`, `o = None;`, `if` and
//! `match` giving those), read by `match`, `if let`, `unwrap_or`, `unwrap`, `expect`,
//! `is_some` and `is_none`.
//!
//! An `Option` of a float is held like a float: a variable of type `Option<S>` with one adjoint
//! slot, the adjoint of its value while it is `Some` (nothing adds to it while it is `None`).
//! `Some(e)` hands its cotangent to `e`; a name bound by `Some(v)` is a float of its own, copied
//! from the option where the arm starts (its adjoint goes back to the option's there);
//! `o.unwrap_or(e)` remembers which one it took.

use std::collections::HashSet;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, Ident, Pat};

use crate::activity::Locals;

use super::{
    assigns, float_of_type, is_control_flow, retype_type, strip_parens, Binding, Generator, Node,
    ResultVar,
};

/// Where an `Option` of floats may be used, and what to do instead elsewhere.
pub(super) const OPTION_USES: &str =
    "reverse mode follows an `Option` of floats held in a local (`let o = Some(e);`, \
     `o = None;`, `if`/`match` giving those) and read with `match`, `if let`, `.unwrap_or(e)`, \
     `.unwrap_or_default()`, `.unwrap()`, `.expect(..)`, `.is_some()` or `.is_none()`; it does \
     not take one from calls \
     or closures, pass one to calls, keep one in containers, tuples or structs, or return one \
     yet: unwrap it first, or build it here (forward mode takes all of these)";

pub(super) const ONE_OPTION_AT_A_TIME: &str =
    "reverse mode matches one `Option` of floats at a time, itself \
     (`match o { Some(v) => .., None => .. }`); match the options one inside another (forward \
     mode takes any scrutinee)";

const OPTION_PATTERNS: &str =
    "reverse mode matches an `Option` of floats with the patterns `Some(v)`, `Some(mut v)`, \
     `Some(_)`, `None`, `_` and a name; bind the value to a name and test it in the arm or in a \
     guard (forward mode takes any pattern)";

/// Why `o.method(..)` on an `Option` of floats is refused.
pub(super) fn method_refused(method: &str) -> String {
    format!(
        "reverse mode reads an `Option` of floats with `match`, `if let`, `.unwrap_or(e)`, \
         `.unwrap_or_default()`, `.unwrap()`, `.expect(..)`, `.is_some()` and `.is_none()`, not \
         `.{method}(..)`; write a \
         `match` instead (forward mode takes it)"
    )
}

/// The methods of `Option<T>` that give an `Option<T>`.
const OPTION_TO_OPTION: &[&str] = &[
    "map", "and_then", "and", "or", "or_else", "xor", "filter", "take", "take_if", "replace",
    "copied", "cloned", "inspect",
];

/// `Some`, `Option::Some`, `std::option::Option::Some`, `core::option::Option::Some` (the same
/// for `None`).
pub(super) fn is_option_variant(path: &syn::Path, variant: &str) -> bool {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    match segments[..] {
        [last] | ["Option", last] | ["std" | "core", "option", "Option", last] => last == variant,
        _ => false,
    }
}

/// `Option<f64>` (or of `f32`).
pub(super) fn is_option_of_float(ty: &syn::Type) -> bool {
    option_argument(ty).is_some_and(|argument| float_of_type(argument).is_some())
}

/// `T` in `Option<T>`.
fn option_argument(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if path.qself.is_some() || last.ident != "Option" {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => match &args.args[0] {
            syn::GenericArgument::Type(argument) => Some(argument),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a pattern names `Some` or `None` (at its top, or in an or-pattern).
fn names_option_variant(pat: &Pat) -> bool {
    match pat {
        Pat::TupleStruct(pat) => is_option_variant(&pat.path, "Some"),
        Pat::Path(pat) => is_option_variant(&pat.path, "None"),
        Pat::Ident(pat) => pat.ident == "None" && pat.subpat.is_none(),
        Pat::Or(pat) => pat.cases.iter().any(names_option_variant),
        Pat::Paren(pat) => names_option_variant(&pat.pat),
        _ => false,
    }
}

/// A name a pattern over an `Option` of floats binds: to its value (`Some(v)`), or to the whole
/// option (a catch-all `p`).
struct OptionName {
    name: Ident,
    mutability: Option<syn::token::Mut>,
    whole: bool,
}

/// The names an arm's pattern over an `Option` of floats binds; `Err` with the part of the
/// pattern reverse mode does not take.
fn option_pattern_names(pat: &Pat) -> Result<Vec<OptionName>, &Pat> {
    let plain = |ident: &syn::PatIdent| ident.by_ref.is_none() && ident.subpat.is_none();
    match pat {
        Pat::Wild(_) => Ok(Vec::new()),
        Pat::Paren(paren) => option_pattern_names(&paren.pat),
        Pat::Ident(ident) if ident.ident == "None" && ident.subpat.is_none() => Ok(Vec::new()),
        Pat::Ident(ident) if plain(ident) => Ok(vec![OptionName {
            name: ident.ident.clone(),
            mutability: ident.mutability,
            whole: true,
        }]),
        Pat::Path(path) if is_option_variant(&path.path, "None") => Ok(Vec::new()),
        Pat::TupleStruct(tuple)
            if tuple.qself.is_none()
                && is_option_variant(&tuple.path, "Some")
                && tuple.elems.len() == 1 =>
        {
            match &tuple.elems[0] {
                Pat::Wild(_) | Pat::Rest(_) => Ok(Vec::new()),
                Pat::Ident(ident) if plain(ident) => Ok(vec![OptionName {
                    name: ident.ident.clone(),
                    mutability: ident.mutability,
                    whole: false,
                }]),
                other => Err(other),
            }
        }
        Pat::Or(or) => {
            for case in &or.cases {
                match option_pattern_names(case) {
                    Ok(names) if names.is_empty() => {}
                    Ok(_) => return Err(pat),
                    Err(part) => return Err(part),
                }
            }
            Ok(Vec::new())
        }
        other => Err(other),
    }
}

/// The names a body binds or assigns an `Option` of floats to, by its syntax (`Some(e)` of a
/// float `e`, a type `Option<f64>`, `if`/`match`/blocks giving those, another such name).
/// `Some(i)` of an integer is data.
#[derive(Default)]
pub(super) struct OptionNames {
    /// Bound or assigned one: a name a block binds itself, read before the block is lowered.
    all: HashSet<Ident>,
    /// Assigned one: a name declared without a value (`let o;`) or as `None` is an option of
    /// floats when one of its assignments is.
    assigned: HashSet<Ident>,
}

pub(super) fn option_names(body: &Block, locals: &Locals) -> OptionNames {
    #[derive(Default)]
    struct Collector {
        /// Each name with a value it is given, and whether by assignment.
        values: Vec<(Ident, Expr, bool)>,
        typed: HashSet<Ident>,
    }
    impl<'ast> Visit<'ast> for Collector {
        fn visit_local(&mut self, local: &'ast syn::Local) {
            let (name, ty) = match &local.pat {
                Pat::Ident(pat) => (Some(&pat.ident), None),
                Pat::Type(typed) => match &*typed.pat {
                    Pat::Ident(pat) => (Some(&pat.ident), Some(&*typed.ty)),
                    _ => (None, None),
                },
                _ => (None, None),
            };
            if let Some(name) = name {
                if ty.is_some_and(is_option_of_float) {
                    self.typed.insert(name.clone());
                }
                if let Some(init) = &local.init {
                    self.values
                        .push((name.clone(), (*init.expr).clone(), false));
                }
            }
            syn::visit::visit_local(self, local);
        }
        fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
            if let Expr::Path(path) = &*assign.left {
                if let Some(name) = path.path.get_ident() {
                    self.values
                        .push((name.clone(), (*assign.right).clone(), true));
                }
            }
            syn::visit::visit_expr_assign(self, assign);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut collector = Collector::default();
    collector.visit_block(body);
    let of_floats = |payload: &Expr| locals.may_be_float(payload);
    let mut names = collector.typed;
    loop {
        let before = names.len();
        for (name, value, _) in &collector.values {
            if !names.contains(name)
                && builds_option(value, &|ident| names.contains(ident), Some(&of_floats))
            {
                names.insert(name.clone());
            }
        }
        if names.len() == before {
            break;
        }
    }
    let assigned = collector
        .values
        .iter()
        .filter(|(_, value, assigned)| {
            *assigned && builds_option(value, &|ident| names.contains(ident), Some(&of_floats))
        })
        .map(|(name, _, _)| name.clone())
        .collect();
    OptionNames {
        all: names,
        assigned,
    }
}

/// Whether `expr` is, by its syntax, an `Option`: `Some(e)`, `None`, a name that `is_option`
/// says holds one, or `if`/`match`/a block/a `loop` whose value is one of those. With
/// `float_payload`, only `Some(e)` where it says `e` is a float counts (`None` does not).
fn builds_option(
    expr: &Expr,
    is_option: &dyn Fn(&Ident) -> bool,
    float_payload: Option<&dyn Fn(&Expr) -> bool>,
) -> bool {
    let recurse = |expr: &Expr| builds_option(expr, is_option, float_payload);
    let tail = |block: &Block| match block.stmts.last() {
        Some(syn::Stmt::Expr(tail, None)) => recurse(tail),
        _ => false,
    };
    match strip_parens(expr) {
        Expr::Call(call) => {
            call.args.len() == 1
                && matches!(&*call.func, Expr::Path(path)
                    if path.qself.is_none() && is_option_variant(&path.path, "Some"))
                && float_payload.is_none_or(|is_float| is_float(&call.args[0]))
        }
        Expr::Path(path) if path.qself.is_none() => {
            (float_payload.is_none() && is_option_variant(&path.path, "None"))
                || path.path.get_ident().is_some_and(is_option)
        }
        Expr::If(expr_if) => {
            tail(&expr_if.then_branch)
                || expr_if
                    .else_branch
                    .as_ref()
                    .is_some_and(|(_, otherwise)| recurse(otherwise))
        }
        Expr::Match(expr_match) => expr_match.arms.iter().any(|arm| recurse(&arm.body)),
        Expr::Block(block) => tail(&block.block),
        Expr::Loop(expr_loop) => crate::activity::break_values(&expr_loop.body)
            .iter()
            .any(recurse),
        // Methods of an `Option` that give an `Option` (refused where they are lowered).
        Expr::MethodCall(call) => {
            OPTION_TO_OPTION.contains(&call.method.to_string().as_str()) && recurse(&call.receiver)
        }
        _ => false,
    }
}

/// Removes `mut` from the names a pattern binds (the arm's body declares its own copies).
struct Immutable;

impl VisitMut for Immutable {
    fn visit_pat_ident_mut(&mut self, pat: &mut syn::PatIdent) {
        pat.mutability = None;
        syn::visit_mut::visit_pat_ident_mut(self, pat);
    }
}

impl Generator<'_> {
    /// Whether `expr` is an `Option` of floats: `Some(e)` of a float, a name bound to one, or
    /// `if`/`match`/a block giving one (with `None`s or not). A name not bound yet (one a
    /// block binds itself) is one when the whole-body analysis says so.
    pub(super) fn is_option_expr(&self, expr: &Expr) -> bool {
        self.builds_option(expr) && self.may_be_float(expr)
    }

    /// Whether `expr` is an `Option` (of floats or not) by its syntax.
    fn builds_option(&self, expr: &Expr) -> bool {
        let is_option = |ident: &Ident| match self.lookup(ident) {
            Some(binding) => matches!(binding, Binding::Option(_)),
            None => self.option_names.all.contains(&ident.unraw()),
        };
        builds_option(expr, &is_option, None)
    }

    /// `let o = Some(e);`, `let mut o: Option<f64> = None;`, `let o;` (assigned options later):
    /// a variable of type `Option<S>` with one adjoint slot. `false` when `local` is not one.
    pub(super) fn option_local(&mut self, local: &syn::Local) -> bool {
        let (pat, ty) = match &local.pat {
            Pat::Ident(pat) => (pat, None),
            Pat::Type(typed) => match &*typed.pat {
                Pat::Ident(pat) => (pat, Some(&*typed.ty)),
                _ => return false,
            },
            _ => return false,
        };
        let init = local.init.as_ref();
        if pat.subpat.is_some()
            || pat.by_ref.is_some()
            || init.is_some_and(|init| init.diverge.is_some())
        {
            return false;
        }
        let name = &pat.ident;
        let is_option = match (ty, init) {
            (Some(ty), _) if option_argument(ty).is_some() => {
                if !is_option_of_float(ty) && init.is_some_and(|init| self.may_be_float(&init.expr))
                {
                    self.error(
                        ty,
                        "reverse mode keeps `Option`s of `f64` or `f32` only, not of containers, \
                         tuples or other types; keep the float itself in the `Option` (forward \
                         mode takes any `Option`)",
                    );
                    self.bind(name.clone(), Binding::Data);
                    return true;
                }
                is_option_of_float(ty)
            }
            (Some(_), _) => false,
            // `let mut best = None;`, assigned options of floats later.
            (None, Some(init)) => {
                self.is_option_expr(&init.expr)
                    || (self.builds_option(&init.expr)
                        && self.option_names.assigned.contains(&name.unraw()))
            }
            (None, None) => self.option_names.assigned.contains(&name.unraw()),
        };
        if !is_option {
            return false;
        }
        let mutability = pat.mutability;
        let ty = ty.map(|ty| {
            let ty = retype_type(self.function, ty);
            quote!(: #ty)
        });
        let slot = self.slot();
        match init {
            Some(init) => {
                let node = self.lower_option(&init.expr);
                let value = node.value();
                self.emit(quote!(let #mutability #name #ty = #value;));
                self.bind(name.clone(), Binding::Option(slot));
                self.assignment_piece(slot, &node);
            }
            None => {
                self.emit(quote!(let #mutability #name #ty;));
                self.bind(name.clone(), Binding::Option(slot));
            }
        }
        true
    }

    /// `o = e;` to an `Option` of floats. `false` when the target is not one.
    pub(super) fn option_assign(&mut self, assign: &syn::ExprAssign) -> bool {
        let Expr::Path(path) = &*assign.left else {
            return false;
        };
        let Some(name) = path.path.get_ident() else {
            return false;
        };
        let Some(Binding::Option(slot)) = self.lookup(name) else {
            return false;
        };
        let node = self.lower_option(&assign.right);
        let value = node.value();
        self.emit(quote!(#name = #value;));
        self.assignment_piece(slot, &node);
        true
    }

    /// An expression whose value is an `Option` of floats, as a node whose cotangent is the
    /// adjoint of the option's value.
    pub(super) fn lower_option(&mut self, expr: &Expr) -> Node {
        let expr = strip_parens(expr);
        match expr {
            Expr::Call(call)
                if call.args.len() == 1
                    && matches!(&*call.func, Expr::Path(path)
                        if path.qself.is_none() && is_option_variant(&path.path, "Some")) =>
            {
                let inner = self.lower(&call.args[0]);
                if matches!(
                    inner,
                    Node::Vector { .. } | Node::Tuple { .. } | Node::Shaped { .. }
                ) {
                    return self.refuse(
                        expr,
                        "reverse mode keeps `Option`s of `f64` or `f32` only, not of \
                         containers, tuples or #[grad] values; keep the float itself in the \
                         `Option` (forward mode takes any `Option`)",
                    );
                }
                let value = inner.value();
                Node::Same {
                    value: quote!(::core::option::Option::Some(#value)),
                    inner: Box::new(inner),
                }
            }
            Expr::Path(path) if path.qself.is_none() && is_option_variant(&path.path, "None") => {
                Node::Constant(quote!(::core::option::Option::None))
            }
            Expr::Path(path) => match path.path.get_ident().map(|name| (name, self.lookup(name))) {
                Some((name, Some(Binding::Option(slot)))) => Node::Var {
                    name: self.read(quote!(#name)),
                    slot,
                },
                _ if !self.may_be_float(expr) => self.data_option(expr),
                _ => self.refuse(expr, OPTION_USES),
            },
            _ if is_control_flow(expr) => {
                let name = self.fresh("r");
                let slot = self.slot();
                self.emit(quote!(let mut #name;));
                self.control_flow(expr, ResultVar::Option(name.clone(), slot));
                Node::Var { name, slot }
            }
            // `o.map(..)` (refused by `option_method`), exits.
            Expr::MethodCall(_) | Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => {
                self.lower(expr)
            }
            Expr::Macro(mac)
                if ["panic", "unreachable", "todo", "unimplemented"]
                    .iter()
                    .any(|name| mac.mac.path.is_ident(name)) =>
            {
                Node::Constant(self.native(expr))
            }
            _ if !self.may_be_float(expr) => self.data_option(expr),
            _ => self.refuse(expr, OPTION_USES),
        }
    }

    /// An `Option` of plain floats computed from data (an `Option<f64>` parameter): its value
    /// lifted to the scalar type, a constant.
    fn data_option(&mut self, expr: &Expr) -> Node {
        let value = self.native(expr);
        let scalar = self.scalar();
        Node::Constant(quote! {
            ::ad_runtime::__private::LiftProbe::new(#value).__ad_lift::<#scalar>()
        })
    }

    /// `o.unwrap_or(e)`, `o.unwrap()`, `o.expect(..)`, `o.is_some()`, `o.is_none()` on an
    /// `Option` of floats; any other method of one is refused. `None` when the receiver is not
    /// an `Option` of floats.
    pub(super) fn option_method(&mut self, call: &syn::ExprMethodCall) -> Option<Node> {
        let whole = Expr::MethodCall(call.clone());
        let method = call.method.to_string();
        let span = call.method.span();
        let method_ident = &call.method;
        if !self.is_option_expr(&call.receiver) {
            let reads = matches!(
                (method.as_str(), call.args.len()),
                ("unwrap_or" | "expect", 1) | ("unwrap" | "unwrap_or_default", 0)
            );
            if !reads
                || !self.may_be_float(&call.receiver)
                || self.shaped_part(&call.receiver).is_some()
            {
                return None;
            }
            return Some(self.refuse(
                &whole,
                format!(
                    "reverse mode calls `.{method}(..)` on an `Option` of floats built in the \
                     body (`Some(e)`, `None`, `if`/`match` giving those, or a local holding one), \
                     not on one returned by a call, a closure or a method, or kept in a \
                     container; build the `Option` in this function (forward mode takes it)"
                ),
            ));
        }
        Some(match (method.as_str(), call.args.len()) {
            ("is_some" | "is_none", 0) => Node::Constant(self.native(&whole)),
            ("unwrap_or", 1) => {
                let option = self.lower_option(&call.receiver);
                // A fallback that assigns the option's variable reads it after that: the
                // version read here keeps a slot of its own.
                let option = if assigns(&call.args[0]) {
                    self.pin(option)
                } else {
                    option
                };
                let fallback = self.lower(&call.args[0]);
                if option.is_constant() && fallback.is_constant() {
                    let (option, fallback) = (option.value(), fallback.value());
                    return Some(Node::Constant(
                        quote!(::core::option::Option::unwrap_or(#option, #fallback)),
                    ));
                }
                let (value, taken) = (self.fresh("v"), self.fresh("taken"));
                let (option_value, fallback_value) = (option.value(), fallback.value());
                self.emit(quote_spanned! {span=>
                    let #taken = ::core::option::Option::is_some(&#option_value);
                    let #value = ::core::option::Option::unwrap_or(#option_value, #fallback_value);
                });
                Node::Choice {
                    value,
                    taken,
                    some: Box::new(option),
                    none: Box::new(fallback),
                }
            }
            // The option's slot takes the cotangent also when it is `None`: whatever made a
            // `None` drops its adjoint.
            ("unwrap", 0) | ("expect", 1) | ("unwrap_or_default", 0) => {
                let option = self.lower_option(&call.receiver);
                let value = self.fresh("v");
                let option_value = option.value();
                let unwrapped = match call.args.first() {
                    Some(message) => {
                        let message = self.native(message);
                        quote_spanned!(span=> ::core::option::Option::expect(#option_value, #message))
                    }
                    None => {
                        quote_spanned!(span=> ::core::option::Option::#method_ident(#option_value))
                    }
                };
                self.emit(quote!(let #value = #unwrapped;));
                Node::Same {
                    value: quote!(#value),
                    inner: Box::new(option),
                }
            }
            _ => self.refuse(&whole, method_refused(&method)),
        })
    }

    /// A `match` (or `if let`) on an `Option` of floats: the scrutinee's value (a variable) and
    /// the slot of its adjoint. `None` when the scrutinee is not one.
    pub(super) fn option_scrutinee(
        &mut self,
        expr_match: &syn::ExprMatch,
    ) -> Option<(Ident, usize)> {
        let scrutinee = &expr_match.expr;
        let by_patterns = expr_match
            .arms
            .iter()
            .any(|arm| names_option_variant(&arm.pat));
        if !self.may_be_float(scrutinee) || !(by_patterns || self.is_option_expr(scrutinee)) {
            return None;
        }
        for arm in &expr_match.arms {
            if let Err(part) = option_pattern_names(&arm.pat) {
                self.error(part, OPTION_PATTERNS);
            }
        }
        let node = if self.is_option_expr(scrutinee) {
            self.lower_option(scrutinee)
        } else {
            self.refuse(
                scrutinee,
                "reverse mode matches an `Option` of floats itself (a local, `Some(e)`, or \
                 `if`/`match` giving one), not a reference to one or one from elsewhere; match \
                 the `Option` itself",
            )
        };
        Some(match node {
            Node::Var { name, slot } => (name, slot),
            node if node.is_constant() => {
                let (name, slot) = (self.fresh("scrutinee"), self.slot());
                let value = node.value();
                self.emit(quote!(let #name = #value;));
                (name, slot)
            }
            node => match self.pin(node) {
                Node::Var { name, slot } => (name, slot),
                _ => unreachable!("a pinned node is a variable"),
            },
        })
    }

    /// An arm of a `match` on an `Option` of floats: its pattern (each name bound without
    /// `mut`), the names it binds (a float aliasing the option's slot for `Some(v)`, the
    /// option itself for a catch-all name), and its body, which first copies each of them
    /// into a variable of its own: that copy's adjoint goes back to the option's where the arm
    /// starts, whatever the arm does with it.
    pub(super) fn option_arm(
        &mut self,
        arm: &syn::Arm,
        slot: usize,
    ) -> (TokenStream, Vec<(Ident, Binding)>, Block) {
        let mut pat = arm.pat.clone();
        Immutable.visit_pat_mut(&mut pat);
        let pattern = self.retype_pattern(&pat);
        let names = option_pattern_names(&arm.pat).unwrap_or_default();
        let bindings = names
            .iter()
            .map(|bound| {
                let binding = if bound.whole {
                    Binding::Option(slot)
                } else {
                    Binding::Float(slot)
                };
                (bound.name.clone(), binding)
            })
            .collect();
        let copies = names
            .iter()
            .map(|bound| {
                let (name, mutability) = (&bound.name, &bound.mutability);
                syn::parse_quote!(let #mutability #name = #name;)
            })
            .collect();
        let block: Block = crate::ast::block_of_statements(copies, &arm.body);
        (pattern, bindings, block)
    }

    /// Whether `expr` names a variable holding an `Option` of floats.
    pub(super) fn mentions_option(&self, expr: &Expr) -> bool {
        crate::retype::mentions_name(expr, &|name| {
            matches!(self.lookup(name), Some(Binding::Option(_)))
        })
    }

    /// `if let P = o` on an `Option` of floats (lowered as a `match`).
    pub(super) fn is_option_let(&self, condition: &syn::ExprLet) -> bool {
        self.may_be_float(&condition.expr)
            && (names_option_variant(&condition.pat) || self.is_option_expr(&condition.expr))
    }
}
