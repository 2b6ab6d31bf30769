//! Questions asked of the user's syntax (what a loop changes, what a pattern binds, what a
//! literal builds), answered without the generator's state.

use super::*;

/// How a `let` makes a container of floats.
pub(super) enum ContainerInit {
    /// `vec![x; n]`
    Repeat(Box<Expr>, Box<Expr>),
    /// `vec![a, b, c]`
    List(Vec<Expr>),
    /// `[x; n]` or `[a, b, c]`: the same, as an array.
    Array(Box<ContainerInit>),
    /// `Vec::new()`, `Vec::with_capacity(n)`: filled by `push`.
    Empty,
    /// `x.to_vec()`, `x.clone()` of the container in this vector slot.
    Copy(usize),
    /// `x[i].to_vec()`, `row.clone()`: a copy of a row of a container of containers, whose
    /// elements start at the local given, in the vector slot given.
    CopyOfRow(usize, Ident),
}

impl ContainerInit {
    pub(super) fn into_array(self) -> Self {
        ContainerInit::Array(Box::new(self))
    }
}

/// The items of a container literal: one item `count` times (`vec![x; n]`, `[x; n]`) or a list
/// (`vec![a, b]`, `[a, b]`).
pub(super) enum LiteralItems<T> {
    Repeat(Box<T>, Box<Expr>),
    List(Vec<T>),
}

/// A literal of a container: `vec![..]` (`is_vec`) or an array, and its items.
pub(super) struct ContainerLiteral<T> {
    pub(super) is_vec: bool,
    pub(super) items: LiteralItems<T>,
}

/// A container of containers of floats built by a literal in the body: `vec![vec![0.0; n]; m]`,
/// `[[a, b], [c, d]]`, `vec![vec![a, b], vec![x; n]]`.
pub(super) type NestedLiteral = ContainerLiteral<ContainerLiteral<Expr>>;

impl<T> ContainerLiteral<T> {
    /// `vec![..]`, `[..]` whose items are read by `item`; `None` for another expression or an
    /// item that `item` does not take.
    pub(super) fn parse(expr: &Expr, item: &impl Fn(&Expr) -> Option<T>) -> Option<Self> {
        let (is_vec, items) = match strip_parens(expr) {
            Expr::Repeat(repeat) => (
                false,
                LiteralItems::Repeat(repeat.expr.clone(), repeat.len.clone()),
            ),
            Expr::Array(array) => (
                false,
                LiteralItems::List(array.elems.iter().cloned().collect()),
            ),
            Expr::Macro(mac) if mac.mac.path.is_ident("vec") => {
                match MacroArgs::parse_from(&mac.mac).ok()? {
                    MacroArgs::Repeat(element, _, count) => {
                        (true, LiteralItems::Repeat(element, count))
                    }
                    MacroArgs::List(elements) => {
                        (true, LiteralItems::List(elements.into_iter().collect()))
                    }
                }
            }
            _ => return None,
        };
        let items = match items {
            LiteralItems::Repeat(element, count) => {
                LiteralItems::Repeat(Box::new(item(&element)?), count)
            }
            LiteralItems::List(elements) => {
                LiteralItems::List(elements.iter().map(item).collect::<Option<_>>()?)
            }
        };
        Some(ContainerLiteral { is_vec, items })
    }

    /// Its items as they are evaluated: a repeated item once.
    pub(super) fn evaluated(&self) -> Vec<&T> {
        match &self.items {
            LiteralItems::Repeat(item, _) => vec![item],
            LiteralItems::List(items) => items.iter().collect(),
        }
    }
}

/// `Vec<Vec<f64>>`, `Vec<[f32; 3]>`, `[[f64; 2]; 2]`: a container of containers of floats.
pub(super) fn is_nested_float_type(ty: &syn::Type) -> bool {
    crate::ast::container_element(ty)
        .and_then(crate::ast::container_element)
        .and_then(float_of_type)
        .is_some()
}

/// `vec![vec![..]; m]`, `[[..], [..]]`: rows that are literals of scalars (a row's elements
/// are not literals themselves), at least one row.
pub(super) fn nested_literal(expr: &Expr) -> Option<NestedLiteral> {
    let scalar = |element: &Expr| {
        ContainerLiteral::parse(element, &|_| Some(()))
            .is_none()
            .then(|| element.clone())
    };
    let literal = ContainerLiteral::parse(expr, &|row| ContainerLiteral::parse(row, &scalar))?;
    match &literal.items {
        LiteralItems::List(rows) if rows.is_empty() => None,
        _ => Some(literal),
    }
}

pub(super) enum LoopKind<'e> {
    For(&'e Pat, &'e Expr),
    While(&'e Expr),
    Loop,
}

pub(super) fn has_checkpoint(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(attr::is_checkpoint)
}

/// `expr` without its own `#[checkpoint]` (inner ones stay: they are regions of their own).
pub(super) fn without_own_checkpoint(expr: &Expr) -> Expr {
    let mut expr = expr.clone();
    let attrs = match &mut expr {
        Expr::Call(e) => &mut e.attrs,
        Expr::Block(e) => &mut e.attrs,
        Expr::ForLoop(e) => &mut e.attrs,
        Expr::While(e) => &mut e.attrs,
        Expr::Loop(e) => &mut e.attrs,
        Expr::MethodCall(e) => &mut e.attrs,
        Expr::If(e) => &mut e.attrs,
        Expr::Match(e) => &mut e.attrs,
        _ => return expr,
    };
    attrs.retain(|attr| !attr::is_checkpoint(attr));
    expr
}

/// The attributes of an expression that carries an inner `#[checkpoint]`.
pub(super) fn expression_checkpoint(expr: &Expr) -> Option<&[syn::Attribute]> {
    let attrs = match expr {
        Expr::Call(e) => &e.attrs,
        Expr::Block(e) => &e.attrs,
        Expr::ForLoop(e) => &e.attrs,
        Expr::While(e) => &e.attrs,
        Expr::Loop(e) => &e.attrs,
        Expr::MethodCall(e) => &e.attrs,
        Expr::If(e) => &e.attrs,
        Expr::Match(e) => &e.attrs,
        _ => return None,
    };
    has_checkpoint(attrs).then_some(attrs.as_slice())
}

/// No call that could reach a differentiated function (which might recurse back) and a single
/// way out (no `return`), so the pullback has one type that does not contain itself.
pub(super) fn is_leaf(function: &Function) -> bool {
    struct Leaf(bool, Vec<Ident>);
    impl<'ast> Visit<'ast> for Leaf {
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            match &*call.func {
                Expr::Path(path) if is_float_type_path(&path.path) => {}
                Expr::Path(path)
                    if path.path.segments.last().is_some_and(|segment| {
                        segment
                            .ident
                            .to_string()
                            .starts_with(|c: char| c.is_ascii_uppercase())
                    }) => {}
                _ => self.0 = false,
            }
            syn::visit::visit_expr_call(self, call);
        }
        fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
            self.0 = false;
        }
        // A method of a user type on `self` (the body says `__ad_self`) or a parameter.
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            if matches!(&*call.receiver, Expr::Path(path) if path.path.get_ident().is_some_and(|name| self.1.contains(name)))
            {
                self.0 = false;
            }
            syn::visit::visit_expr_method_call(self, call);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let user_values = function
        .params
        .iter()
        .filter(|param| param.user_type.is_some())
        .map(|param| param.name.clone())
        .collect();
    let mut leaf = Leaf(true, user_values);
    leaf.visit_block(&function.body);
    leaf.0
}

/// An expression whose value is `()`: an assignment, a `for` or `while` loop, an `if` without
/// a value, or a block ending in a statement.
pub(super) fn is_unit_valued(expr: &Expr) -> bool {
    match expr {
        Expr::Assign(_) => true,
        Expr::Binary(binary) => compound_rule(&binary.op).is_some(),
        Expr::Block(block) => is_unit_block(&block.block),
        Expr::Paren(paren) => is_unit_valued(&paren.expr),
        // Without `else`, the branch is `()` by Rust's rules.
        Expr::If(branch) => branch.else_branch.as_ref().is_none_or(|(_, otherwise)| {
            is_unit_block(&branch.then_branch) && is_unit_valued(otherwise)
        }),
        Expr::ForLoop(_) | Expr::While(_) => true,
        _ => false,
    }
}

pub(super) fn is_unit_block(block: &Block) -> bool {
    match block.stmts.last() {
        Some(Stmt::Expr(tail, None)) => is_unit_valued(tail),
        _ => true,
    }
}

/// `g_jvp(..)`, `g_vjp(..)`, `g_grad(..)`.
pub(super) fn calls_generated_function(expr: &Expr) -> bool {
    match expr {
        Expr::Call(call) => match &*call.func {
            Expr::Path(path) => path
                .path
                .segments
                .last()
                .is_some_and(|s| names::is_generated_function_name(&s.ident.to_string())),
            _ => false,
        },
        Expr::Paren(paren) => calls_generated_function(&paren.expr),
        _ => false,
    }
}

/// A constant path or a call whose result type the macro cannot see.
pub(super) fn is_opaque(expr: &Expr) -> bool {
    match expr {
        Expr::Path(path) => {
            path.path.get_ident().is_none()
                || path
                    .path
                    .segments
                    .iter()
                    .all(|s| s.ident.to_string().chars().all(|c| !c.is_ascii_lowercase()))
        }
        Expr::Call(_) | Expr::MethodCall(_) => true,
        // A field or element of data (`cfg.lo`, `cfg.w[1]`): its type is not seen either.
        Expr::Field(_) | Expr::Index(_) => true,
        Expr::Paren(paren) => is_opaque(&paren.expr),
        _ => false,
    }
}

pub(super) fn is_control_flow(expr: &Expr) -> bool {
    match expr {
        Expr::If(_) | Expr::Match(_) | Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => true,
        Expr::Block(_) => true,
        Expr::Paren(paren) => is_control_flow(&paren.expr),
        Expr::Group(group) => is_control_flow(&group.expr),
        _ => false,
    }
}

pub(super) fn is_comparison(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq(_)
            | BinOp::Ne(_)
            | BinOp::Lt(_)
            | BinOp::Le(_)
            | BinOp::Gt(_)
            | BinOp::Ge(_)
            | BinOp::And(_)
            | BinOp::Or(_)
    )
}

/// `left` and `right` are the same variable, or the same element `x[i]` of a variable with an
/// index of names, literals and arithmetic: reading it twice gives the same value.
pub(super) fn is_same_pure_place(left: &Expr, right: &Expr) -> bool {
    pub(super) fn pure_place(expr: &Expr) -> bool {
        match strip_parens(expr) {
            Expr::Path(path) => path.path.get_ident().is_some(),
            Expr::Index(index) => {
                matches!(strip_parens(&index.expr), Expr::Path(path) if path.path.get_ident().is_some())
                    && rebuild_index(&index.index, &mut |_| Some(TokenStream::new())).is_some()
            }
            _ => false,
        }
    }
    pure_place(left)
        && strip_parens(left).to_token_stream().to_string()
            == strip_parens(right).to_token_stream().to_string()
}

pub(super) fn arithmetic_rule(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Add(_) => "add",
        BinOp::Sub(_) => "sub",
        BinOp::Mul(_) => "mul",
        BinOp::Div(_) => "div",
        BinOp::Rem(_) => "rem",
        _ => return None,
    })
}

pub(super) fn compound_rule(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::AddAssign(_) => "add",
        BinOp::SubAssign(_) => "sub",
        BinOp::MulAssign(_) => "mul",
        BinOp::DivAssign(_) => "div",
        BinOp::RemAssign(_) => "rem",
        _ => return None,
    })
}

/// `1`, `2usize`: an integer literal (not `1f64`).
pub(super) fn is_integer_literal(expr: &Expr) -> bool {
    matches!(strip_parens(expr), Expr::Lit(lit)
        if matches!(&lit.lit, syn::Lit::Int(int) if !matches!(int.suffix(), "f64" | "f32")))
}

/// The names a pattern binds with `mut`.
pub(super) fn mutable_bindings(pat: &Pat) -> Vec<Ident> {
    struct Finder(Vec<Ident>);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_pat_ident(&mut self, ident: &'ast syn::PatIdent) {
            if ident.mutability.is_some() {
                self.0.push(ident.ident.unraw());
            }
            syn::visit::visit_pat_ident(self, ident);
        }
    }
    let mut finder = Finder(Vec::new());
    finder.visit_pat(pat);
    finder.0
}

/// `x.to_vec()`, `x.clone()`, `x.to_owned()`: the container copied.
pub(super) fn copied_container(expr: &Expr) -> Option<&Expr> {
    match strip_parens(expr) {
        Expr::MethodCall(call)
            if call.args.is_empty()
                && matches!(
                    call.method.to_string().as_str(),
                    "to_vec" | "clone" | "to_owned"
                ) =>
        {
            Some(&call.receiver)
        }
        _ => None,
    }
}

pub(super) fn strip_pattern_type(pat: &Pat) -> &Pat {
    match pat {
        Pat::Type(typed) => strip_pattern_type(&typed.pat),
        _ => pat,
    }
}

pub(super) fn strip_parens(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(paren) => strip_parens(&paren.expr),
        Expr::Group(group) => strip_parens(&group.expr),
        _ => expr,
    }
}

/// `for j in a..b` (also `a..=b`, `a..`) with a plain name: the name, the range and its start.
pub(super) fn counted_range(
    for_loop: &syn::ExprForLoop,
) -> Option<(&Ident, &syn::ExprRange, &Expr)> {
    let Pat::Ident(pat) = &*for_loop.pat else {
        return None;
    };
    if pat.by_ref.is_some() || pat.mutability.is_some() || pat.subpat.is_some() {
        return None;
    }
    let Expr::Range(range) = strip_parens(&for_loop.expr) else {
        return None;
    };
    Some((&pat.ident, range, range.start.as_deref()?))
}

/// `expr` rebuilt with each name replaced by what `name` gives, when it is made of integer
/// literals, names and `+ - * / %`.
pub(super) fn rebuild_index(
    expr: &Expr,
    name: &mut dyn FnMut(&Ident) -> Option<TokenStream>,
) -> Option<TokenStream> {
    match expr {
        Expr::Lit(lit) if matches!(lit.lit, syn::Lit::Int(_)) => Some(quote!(#lit)),
        Expr::Paren(paren) => rebuild_index(&paren.expr, name).map(|inner| quote!((#inner))),
        Expr::Group(group) => rebuild_index(&group.expr, name).map(|inner| quote!((#inner))),
        Expr::Binary(binary)
            if matches!(
                binary.op,
                BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_) | BinOp::Div(_) | BinOp::Rem(_)
            ) =>
        {
            let left = rebuild_index(&binary.left, name)?;
            let right = rebuild_index(&binary.right, name)?;
            let op = &binary.op;
            Some(quote!((#left #op #right)))
        }
        Expr::Path(path) if path.qself.is_none() => name(path.path.get_ident()?),
        _ => None,
    }
}

/// Whether `looped` (a loop: its condition or range and its body) may change the variable
/// `name`: assigns it or its parts (destructuring assignments included), borrows them mutably
/// (`&mut`, a `ref mut` pattern matched against them), calls a method on it, or names it inside
/// a macro (conservatively, whatever `name` is bound to there).
pub(super) fn may_change(looped: &Expr, name: &Ident) -> bool {
    changes(looped, name) > 0
}

/// How many places in `looped` may change the variable `name` (see `may_change`).
pub(super) fn changes(looped: &Expr, name: &Ident) -> usize {
    struct Changes<'n> {
        name: &'n Ident,
        found: usize,
    }
    impl Changes<'_> {
        fn is_place_of_name(&self, place: &Expr) -> bool {
            matches!(place_root(place), Expr::Path(path) if path.path.is_ident(self.name))
        }

        /// Whether the left side of an assignment assigns the name: a place of it, or a part
        /// of a destructuring assignment that does.
        fn assigns(&self, left: &Expr) -> bool {
            match left {
                Expr::Tuple(tuple) => tuple.elems.iter().any(|part| self.assigns(part)),
                Expr::Array(array) => array.elems.iter().any(|part| self.assigns(part)),
                Expr::Struct(structure) => {
                    structure
                        .fields
                        .iter()
                        .any(|field| self.assigns(&field.expr))
                        || structure
                            .rest
                            .as_deref()
                            .is_some_and(|rest| self.assigns(rest))
                }
                Expr::Call(call) => call.args.iter().any(|part| self.assigns(part)),
                Expr::Paren(paren) => self.assigns(&paren.expr),
                Expr::Infer(_) | Expr::Range(_) => false,
                Expr::Index(_)
                | Expr::Field(_)
                | Expr::Group(_)
                | Expr::Unary(_)
                | Expr::Path(_) => self.is_place_of_name(left),
                _ => mentions(left, self.name),
            }
        }

        /// A `ref mut` binding in `pat` matched against `value` may change what `value` names.
        fn matched_mutably(&mut self, pat: &Pat, value: &Expr) {
            if binds_by_mutable_reference(pat) && mentions(value, self.name) {
                self.found += 1;
            }
        }
    }
    impl<'ast> Visit<'ast> for Changes<'_> {
        fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
            self.found += usize::from(self.assigns(&assign.left));
            syn::visit::visit_expr_assign(self, assign);
        }
        fn visit_expr_binary(&mut self, binary: &'ast syn::ExprBinary) {
            self.found += usize::from(
                crate::activity::is_any_compound_assignment(&binary.op)
                    && self.is_place_of_name(&binary.left),
            );
            syn::visit::visit_expr_binary(self, binary);
        }
        fn visit_expr_reference(&mut self, reference: &'ast syn::ExprReference) {
            self.found += usize::from(
                reference.mutability.is_some() && self.is_place_of_name(&reference.expr),
            );
            syn::visit::visit_expr_reference(self, reference);
        }
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            // `x[i].exp()` does not change `x`: a method that takes `&mut self` changes its
            // receiver, and an element's receiver is the element.
            let receiver = strip_parens(&call.receiver);
            self.found +=
                usize::from(matches!(receiver, Expr::Path(path) if path.path.is_ident(self.name)));
            syn::visit::visit_expr_method_call(self, call);
        }
        fn visit_local(&mut self, local: &'ast syn::Local) {
            if let Some(init) = &local.init {
                self.matched_mutably(&local.pat, &init.expr);
            }
            syn::visit::visit_local(self, local);
        }
        fn visit_expr_match(&mut self, expr: &'ast syn::ExprMatch) {
            for arm in &expr.arms {
                self.matched_mutably(&arm.pat, &expr.expr);
            }
            syn::visit::visit_expr_match(self, expr);
        }
        fn visit_expr_let(&mut self, expr: &'ast syn::ExprLet) {
            self.matched_mutably(&expr.pat, &expr.expr);
            syn::visit::visit_expr_let(self, expr);
        }
        fn visit_expr_for_loop(&mut self, expr: &'ast syn::ExprForLoop) {
            self.matched_mutably(&expr.pat, &expr.expr);
            syn::visit::visit_expr_for_loop(self, expr);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            let name = self.name;
            self.found += usize::from(crate::retype::tokens_mention(
                mac.tokens.clone(),
                &|ident| ident == name,
            ));
        }
    }
    let mut changes = Changes { name, found: 0 };
    changes.visit_expr(looped);
    changes.found
}

/// The names of the constants and statics declared anywhere in `body`, and of what its `use`
/// declarations bring in; `None` if one of them is a glob (`use m::*;`).
pub(super) fn declared_items(body: &Block) -> Option<Vec<Ident>> {
    struct Items(Vec<Ident>, bool);
    impl<'ast> Visit<'ast> for Items {
        fn visit_item_const(&mut self, item: &'ast syn::ItemConst) {
            self.0.push(item.ident.unraw());
        }
        fn visit_item_static(&mut self, item: &'ast syn::ItemStatic) {
            self.0.push(item.ident.unraw());
        }
        // `use path::k;` in a block may bring in a constant as well.
        fn visit_use_name(&mut self, name: &'ast syn::UseName) {
            self.0.push(name.ident.unraw());
        }
        fn visit_use_rename(&mut self, rename: &'ast syn::UseRename) {
            self.0.push(rename.rename.unraw());
        }
        fn visit_use_glob(&mut self, _: &'ast syn::UseGlob) {
            self.1 = true;
        }
    }
    let mut items = Items(Vec::new(), false);
    items.visit_block(body);
    (!items.1).then_some(items.0)
}

/// Whether `expr` names anything (a variable, a constant).
pub(super) fn mentions_any_name(expr: &Expr) -> bool {
    crate::retype::mentions_name(expr, &|_| true)
}

/// Whether `pat` binds a name by `ref mut`.
pub(super) fn binds_by_mutable_reference(pat: &Pat) -> bool {
    struct RefMut(bool);
    impl<'ast> Visit<'ast> for RefMut {
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            self.0 |= pat.by_ref.is_some() && pat.mutability.is_some();
            syn::visit::visit_pat_ident(self, pat);
        }
    }
    let mut found = RefMut(false);
    found.visit_pat(pat);
    found.0
}

/// Whether `body` binds `name` anywhere (a `let`, a pattern, a closure's parameter).
pub(super) fn binds(body: &Block, name: &Ident) -> bool {
    struct Binds<'n>(&'n Ident, bool);
    impl<'ast> Visit<'ast> for Binds<'_> {
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            self.1 |= pat.ident == *self.0;
            syn::visit::visit_pat_ident(self, pat);
        }
    }
    let mut found = Binds(name, false);
    found.visit_block(body);
    found.1
}

/// The own part of the environment of the loop `levels` loops out from the innermost one.
pub(super) fn own_part(levels: usize) -> TokenStream {
    let mut path = quote!(__ad_env);
    for _ in 0..levels {
        path = quote!((#path.0));
    }
    quote!((#path.1))
}

pub(super) fn pattern_names(pat: &Pat) -> Vec<Ident> {
    pattern_bindings(pat).0
}

/// The names an `if let` / `while let` condition binds.
/// The names a condition's `let` chain binds for its branch (`if let Some(v) = o && ..`); not
/// those of an `if let` nested inside it, which are its own.
pub(super) fn let_bindings(cond: &Expr) -> Vec<Ident> {
    chain_lets(cond)
        .into_iter()
        .flat_map(|expr| pattern_names(&expr.pat))
        .collect()
}

/// The `let`s of a condition's chain: itself, or joined by `&&`, in parentheses.
pub(super) fn chain_lets(cond: &Expr) -> Vec<&syn::ExprLet> {
    match cond {
        Expr::Let(expr) => vec![expr],
        Expr::Binary(binary) if matches!(binary.op, syn::BinOp::And(_)) => {
            let mut lets = chain_lets(&binary.left);
            lets.extend(chain_lets(&binary.right));
            lets
        }
        Expr::Paren(paren) => chain_lets(&paren.expr),
        Expr::Group(group) => chain_lets(&group.expr),
        _ => Vec::new(),
    }
}

/// `Branch::Second(Branch::Second(Branch::First(x)))` for arm 2 of more than 3: arms are a
/// right-nested chain of `Branch`es, the last arm in the innermost `Second`.
pub(super) fn nest_branch(index: usize, count: usize, value: TokenStream) -> TokenStream {
    let branch = quote!(::ad_runtime::__private::Branch);
    if count == 1 {
        return value;
    }
    let mut out = if index + 1 == count {
        quote!(#branch::Second(#value))
    } else {
        quote!(#branch::First(#value))
    };
    for _ in 0..index.min(count - 2) {
        out = quote!(#branch::Second(#out));
    }
    out
}

pub(super) fn dispatch_branches(count: usize, record: &Ident) -> TokenStream {
    pub(super) fn level(remaining: usize, value: TokenStream) -> TokenStream {
        let branch = quote!(::ad_runtime::__private::Branch);
        if remaining <= 1 {
            return quote!(#value(__adj));
        }
        let rest = format_ident!("__ad_arms{}", remaining);
        let inner = if remaining == 2 {
            quote!(#rest(__adj))
        } else {
            level(remaining - 1, rest.to_token_stream())
        };
        quote! {
            match #value {
                #branch::First(__ad_pullback) => __ad_pullback(__adj),
                #branch::Second(#rest) => #inner,
            }
        }
    }
    let dispatch = level(count, record.to_token_stream());
    quote!(#dispatch;)
}

/// Whether the loop's record holds boxed pullbacks (one type for every way an iteration can
/// end): when a `break` or `continue` ends an iteration early, and when an exit passes
/// through the loop (a `return`, or a labeled exit to an outer loop), whose pullback replays
/// this loop's record before the end of the body names its element type.
/// The adapters an iterator chain over a container applies before it is consumed:
/// `base[.copied()|.cloned()][.filter(|w| c)][.map(|p| e)]`.
pub(super) struct Adapters<'e> {
    pub(super) map: Option<&'e syn::ExprClosure>,
    pub(super) filter: Option<&'e syn::ExprClosure>,
    /// `copied`/`cloned`: the elements come by value.
    pub(super) by_value: bool,
    pub(super) base: &'e Expr,
}

impl<'e> Adapters<'e> {
    /// `None` when an adapter is there with something other than a one-parameter closure.
    pub(super) fn of(chain: &'e Expr) -> Option<Self> {
        let mut chain = chain;
        // `.adapter(|p| ..)` at the end of the chain: its closure, and the chain before it.
        fn closure_adapter<'e>(
            chain: &mut &'e Expr,
            adapter: &str,
        ) -> Result<Option<&'e syn::ExprClosure>, ()> {
            let Expr::MethodCall(inner) = *chain else {
                return Ok(None);
            };
            if inner.method != adapter || inner.args.len() != 1 {
                return Ok(None);
            }
            *chain = &inner.receiver;
            match &inner.args[0] {
                Expr::Closure(closure) if closure.inputs.len() == 1 => Ok(Some(closure)),
                _ => Err(()),
            }
        }
        let map = closure_adapter(&mut chain, "map").ok()?;
        let filter = closure_adapter(&mut chain, "filter").ok()?;
        let by_value = match chain {
            Expr::MethodCall(inner)
                if (inner.method == "copied" || inner.method == "cloned")
                    && inner.args.is_empty() =>
            {
                chain = &inner.receiver;
                true
            }
            _ => false,
        };
        Some(Adapters {
            map,
            filter,
            by_value,
            base: chain,
        })
    }
}

/// The variables `body` assigns (`x = ..`, `x += ..`, `x[i] = ..`, `x.0 = ..`); changes
/// through methods (`v.push(..)`) are not seen.
/// The expression a place is part of: `x` for `x[i].f`, `*x`, `(x)`.
pub(super) fn place_root(mut place: &Expr) -> &Expr {
    loop {
        match place {
            Expr::Index(index) => place = &index.expr,
            Expr::Field(field) => place = &field.base,
            Expr::Paren(paren) => place = &paren.expr,
            Expr::Group(group) => place = &group.expr,
            Expr::Unary(unary) => place = &unary.expr,
            _ => return place,
        }
    }
}

pub(super) fn assigned_names(body: &Expr) -> Vec<Ident> {
    struct Assigned(Vec<Ident>);
    impl Assigned {
        fn target(&mut self, place: &Expr) {
            if let Expr::Path(path) = place_root(place) {
                if let Some(ident) = path.path.get_ident() {
                    self.0.push(ident.clone());
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Assigned {
        fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
            self.target(&assign.left);
            syn::visit::visit_expr_assign(self, assign);
        }
        fn visit_expr_binary(&mut self, binary: &'ast syn::ExprBinary) {
            if crate::activity::is_any_compound_assignment(&binary.op) {
                self.target(&binary.left);
            }
            syn::visit::visit_expr_binary(self, binary);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut assigned = Assigned(Vec::new());
    assigned.visit_expr(body);
    assigned.0
}

/// Whether `name` appears anywhere in `expr`, macro arguments included.
pub(super) fn mentions(expr: &Expr, name: &Ident) -> bool {
    let name = name.unraw();
    crate::retype::mentions_name(expr, &|ident| ident.unraw() == name)
}

pub(super) fn has_exits_to(body: &Block, label: &Lifetime, labeled: bool) -> bool {
    struct Exits<'l> {
        label: &'l Lifetime,
        labeled: bool,
        depth: usize,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Exits<'_> {
        fn visit_expr_break(&mut self, brk: &'ast syn::ExprBreak) {
            self.check(brk.label.as_ref());
            syn::visit::visit_expr_break(self, brk);
        }
        fn visit_expr_continue(&mut self, cont: &'ast syn::ExprContinue) {
            self.check(cont.label.as_ref());
        }
        fn visit_expr_return(&mut self, ret: &'ast syn::ExprReturn) {
            self.found = true;
            syn::visit::visit_expr_return(self, ret);
        }
        fn visit_expr_for_loop(&mut self, l: &'ast syn::ExprForLoop) {
            self.visit_expr(&l.expr);
            self.depth += 1;
            self.visit_block(&l.body);
            self.depth -= 1;
        }
        fn visit_expr_while(&mut self, l: &'ast syn::ExprWhile) {
            self.visit_expr(&l.cond);
            self.depth += 1;
            self.visit_block(&l.body);
            self.depth -= 1;
        }
        fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
            self.depth += 1;
            self.visit_block(&l.body);
            self.depth -= 1;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    impl Exits<'_> {
        fn check(&mut self, label: Option<&Lifetime>) {
            match label {
                Some(label) if self.labeled && label == self.label => self.found = true,
                // A labeled exit to another loop may pass through this one.
                Some(_) => self.found = true,
                None => self.found |= self.depth == 0,
            }
        }
    }
    let mut exits = Exits {
        label,
        labeled,
        depth: 0,
        found: false,
    };
    exits.visit_block(body);
    exits.found
}

/// `T` for `&T`, `&&T`, ...
pub(super) fn strip_references(ty: &syn::Type) -> &syn::Type {
    match ty {
        syn::Type::Reference(reference) => strip_references(&reference.elem),
        other => other,
    }
}
