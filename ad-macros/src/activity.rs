//! Which local names may hold a float, found from the syntax alone.
//!
//! The macro sees no types, but it must decide, at each call `g(args)`, whether `g` is called
//! with floats (then it must be a differentiated function, and the call goes to its derivative)
//! or with data only (then it is an ordinary function and is called as written). The analysis
//! over-approximates: a name is a float if any binding or assignment of it may be one. Either
//! kind of mistake is a compile error, never a wrong derivative: a float cannot be passed where
//! the derivative code's scalar type is expected, nor the other way round.

use std::collections::HashSet;

use syn::visit::Visit;
use syn::{BinOp, Expr, Ident, Pat, Type, UnOp};

use crate::ast::{first_float_in, Function, ParamKind};
use crate::user_types::UserTypes;

pub struct Locals {
    /// Every name bound in the function: parameters, `let`s, patterns, closure parameters.
    pub all: HashSet<Ident>,
    /// The names that may hold a float.
    pub floats: HashSet<Ident>,
    /// The types of `#[grad]` parameters, whose values the derivative code holds as twins.
    pub user_types: UserTypes,
    /// Closure parameters without a type (`|v| v * 2.0`): they may hold floats the analysis
    /// cannot see, so nothing computed from them is taken for data.
    pub untyped: HashSet<Ident>,
    /// Names bound by patterns over values holding floats (the parts of `#[grad]` values):
    /// a `#[no_grad]` float among them is a plain float in derivative code.
    pub pattern_bound: HashSet<Ident>,
    /// Container parameters and locals every `let` of which binds a container: their `len()`
    /// is data.
    pub containers: HashSet<Ident>,
    /// `#[grad]` parameters of user types and locals bound to a struct or variant built in
    /// the body: a method of theirs named `len` may return a float.
    pub user_values: HashSet<Ident>,
    /// Locals bound to arithmetic on user values that is certainly of a user type (`let w = 2.0
    /// * v + u;`), and locals whose value involves a user value at all
    /// (`derived_result_locals`).
    pub derived_results: HashSet<Ident>,
    pub mixed_results: HashSet<Ident>,
    /// Parameters of a `&mut` type: passed on, they are reborrowed, never moved.
    pub mutable_references: HashSet<Ident>,
    /// Locals bound with `mut` (`let mut p = ..`): a method called on one may change it.
    pub mutable_locals: HashSet<Ident>,
    /// Parameters holding floats in containers (`x: &[f64]`) that the body never binds again,
    /// with how deep (`ast::float_nesting`).
    pub float_containers: std::collections::HashMap<Ident, usize>,
    /// Locals every binding of which is a `let` of a value that cannot be called (`let d1 =
    /// d1(s, k);`, Black-Scholes' style): a call of the name is the function's.
    pub uncallable: HashSet<Ident>,
}

impl Locals {
    pub fn analyze(function: &Function) -> Locals {
        Locals::analyze_body(function, &function.item.block)
    }

    /// [`Locals::analyze`] of `body`, a rewriting of the function's body.
    pub fn analyze_body(function: &Function, body: &syn::Block) -> Locals {
        let mut collector = BindingCollector::default();
        collector.visit_block(body);
        let mut locals = Locals {
            all: collector.names,
            floats: HashSet::new(),
            user_types: UserTypes::of(function),
            untyped: collector.untyped,
            pattern_bound: HashSet::new(),
            containers: container_locals(body),
            user_values: user_value_locals(body),
            derived_results: HashSet::new(),
            mixed_results: HashSet::new(),
            mutable_locals: mutable_locals(body),
            uncallable: uncallable_locals(body),
            mutable_references: function
                .params
                .iter()
                .filter(|param| param.is_mut_reference())
                .map(|param| param.name.clone())
                .collect(),
            float_containers: Default::default(),
        };
        for param in &function.params {
            // A container parameter the body never binds again.
            let of_floats = param.is_flat_vector() || param.is_nested_vector();
            let container = param.is_user_container() || (param.user_type.is_none() && of_floats);
            if container && !locals.all.contains(&param.name) {
                locals.containers.insert(param.name.clone());
            }
            if let Some(nesting) = crate::ast::float_nesting(&param.ty, function.float) {
                if nesting > 0 && !locals.all.contains(&param.name) {
                    locals.float_containers.insert(param.name.clone(), nesting);
                }
            }
            if param.user_type.is_some() && !param.is_user_container() {
                locals.user_values.insert(param.name.clone());
                if param.receiver {
                    locals
                        .user_values
                        .insert(Ident::new("self", param.name.span()));
                }
            }
            locals.all.insert(param.name.clone());
            if param.kind != ParamKind::Data {
                locals.floats.insert(param.name.clone());
            }
            if param.receiver {
                // The body as written says `self`.
                let this = Ident::new("self", param.name.span());
                locals.all.insert(this.clone());
                if param.kind != ParamKind::Data {
                    locals.floats.insert(this);
                }
            }
        }
        (locals.derived_results, locals.mixed_results) =
            derived_result_locals(body, &locals.user_values);
        loop {
            let before = locals.floats.len();
            for binding in &collector.bindings {
                let is_float = binding
                    .ty
                    .as_ref()
                    .is_some_and(|ty| first_float_in(ty).is_some())
                    || binding
                        .value
                        .as_ref()
                        .is_some_and(|value| locals.may_be_float(value));
                if is_float {
                    locals.floats.extend(binding.names.iter().cloned());
                }
            }
            if locals.floats.len() == before {
                locals.add_pattern_types(function);
                return locals;
            }
        }
    }

    /// The types named by patterns that match values holding floats (parts of `#[grad]`
    /// values): their values are twins in derivative code, like the parameters' types.
    fn add_pattern_types(&mut self, function: &Function) {
        struct Collector<'l> {
            locals: &'l Locals,
            found: Vec<syn::Path>,
            bound: Vec<Ident>,
            /// Locals bound to a user type's value built in the body, with the type.
            values: Vec<(Ident, syn::Path)>,
        }
        impl Collector<'_> {
            fn built_from_floats(&self, expr: &Expr) -> Option<syn::Path> {
                let (path, fields) = crate::user_types::built_value(expr)?;
                fields
                    .iter()
                    .any(|field| self.locals.may_be_float(field))
                    .then_some(path)
            }
            fn collect(&mut self, pat: &Pat) {
                // Names taken out of a value by destructuring (`Cons(c, v, t)`), not a
                // whole value bound to a name.
                if !matches!(pat, Pat::Ident(_) | Pat::Type(_)) {
                    self.bound.extend(pattern_bindings(pat).0);
                }
                struct Paths<'f>(&'f mut Vec<syn::Path>);
                impl<'ast> Visit<'ast> for Paths<'_> {
                    fn visit_pat(&mut self, pat: &'ast Pat) {
                        if let Some(path) = crate::user_types::pattern_type(pat) {
                            self.0.push(path);
                        }
                        syn::visit::visit_pat(self, pat);
                    }
                }
                Paths(&mut self.found).visit_pat(pat);
            }
        }
        impl<'ast> Visit<'ast> for Collector<'_> {
            fn visit_expr_match(&mut self, expr: &'ast syn::ExprMatch) {
                if self.locals.may_be_float(&expr.expr) {
                    for arm in &expr.arms {
                        self.collect(&arm.pat);
                    }
                }
                syn::visit::visit_expr_match(self, expr);
            }
            /// `Point { x: a * b, .. }`, `Shape::Circle(a * b)`: a value of a user type built
            /// from floats is a twin.
            fn visit_expr(&mut self, expr: &'ast Expr) {
                self.found.extend(self.built_from_floats(expr));
                syn::visit::visit_expr(self, expr);
            }
            /// `for b in bodies` (or `&bodies`, `bodies.iter()`) over a `#[grad]` container of
            /// a user type: `b.kinetic()` is a method of the type.
            fn visit_expr_for_loop(&mut self, for_loop: &'ast syn::ExprForLoop) {
                let mut source = &*for_loop.expr;
                loop {
                    match source {
                        Expr::Reference(reference) => source = &reference.expr,
                        Expr::Paren(paren) => source = &paren.expr,
                        Expr::MethodCall(call) if call.method == "iter" && call.args.is_empty() => {
                            source = &call.receiver
                        }
                        _ => break,
                    }
                }
                let element = match (source, &*for_loop.pat) {
                    (Expr::Path(container), Pat::Ident(name)) => container
                        .path
                        .get_ident()
                        .and_then(|container| self.locals.user_types.of_container(container))
                        .map(|path| (name.ident.clone(), path.clone())),
                    _ => None,
                };
                self.values.extend(element);
                syn::visit::visit_expr_for_loop(self, for_loop);
            }
            fn visit_local(&mut self, local: &'ast syn::Local) {
                // `let q = Point { .. };`: `q.norm()` is a method of `Point`.
                if let (Pat::Ident(name), Some(init)) = (&local.pat, &local.init) {
                    // `let qv = vec3(..)`: a function the file declares returning a derived
                    // type.
                    let returned = || match &*init.expr {
                        Expr::Call(call) => match &*call.func {
                            Expr::Path(function) if function.qself.is_none() => {
                                crate::source_facts::derived_result_of_call(&function.path).map(
                                    |name| {
                                        let span = syn::spanned::Spanned::span(function);
                                        syn::Path::from(Ident::new(&name, span))
                                    },
                                )
                            }
                            _ => None,
                        },
                        _ => None,
                    };
                    let built = self
                        .built_from_floats(&init.expr)
                        .or_else(|| crate::user_types::constructed_type(&init.expr))
                        .or_else(returned);
                    if let Some(path) = built {
                        self.values.push((name.ident.clone(), path));
                    }
                }
                if let Some(init) = &local.init {
                    if self.locals.may_be_float(&init.expr) {
                        self.collect(&local.pat);
                    }
                }
                syn::visit::visit_local(self, local);
            }
            fn visit_expr_let(&mut self, expr: &'ast syn::ExprLet) {
                if self.locals.may_be_float(&expr.expr) {
                    self.collect(&expr.pat);
                }
                syn::visit::visit_expr_let(self, expr);
            }
            // `vec![Point { x: a, .. }, ..]`: built where it is written.
            fn visit_macro(&mut self, mac: &'ast syn::Macro) {
                crate::user_types::visit_macro_arguments(self, mac);
            }
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let mut collector = Collector {
            locals: self,
            found: Vec::new(),
            bound: Vec::new(),
            values: Vec::new(),
        };
        collector.visit_block(&function.item.block);
        let (found, bound, values) = (collector.found, collector.bound, collector.values);
        for path in found {
            self.user_types.add(path);
        }
        for (name, path) in values {
            self.user_types.add_binding(name, path);
        }
        self.pattern_bound.extend(bound);
    }

    /// Whether `expr` may evaluate to a float (or to something holding floats).
    pub fn may_be_float(&self, expr: &Expr) -> bool {
        self.may_be_float_with(expr, &|ident| self.floats.contains(ident))
    }

    /// The same, with the caller deciding which names hold floats (reverse mode knows the
    /// binding in scope, which the name-based set cannot).
    pub fn may_be_float_with(&self, expr: &Expr, is_float: &dyn Fn(&Ident) -> bool) -> bool {
        let recurse = |e: &Expr| self.may_be_float_with(e, is_float);
        match expr {
            Expr::Lit(lit) => crate::retype::float_literal(&lit.lit),
            Expr::Path(path) => match path.path.get_ident() {
                Some(ident) => is_float(ident),
                None => is_float_type_path(&path.path),
            },
            Expr::Binary(binary) => {
                is_arithmetic(&binary.op) && (recurse(&binary.left) || recurse(&binary.right))
            }
            Expr::Unary(unary) => match unary.op {
                UnOp::Not(_) => false,
                _ => recurse(&unary.expr),
            },
            Expr::Cast(cast) => first_float_in(&cast.ty).is_some(),
            Expr::MethodCall(call) => {
                // `p.len()`, `p.to_f64()` of a user value are its own methods, which may return
                // a float (a field's, `p.weights.len()`, is taken for a container's).
                let measures_user_value = ["len", "is_empty", "to_f64"]
                    .contains(&call.method.to_string().as_str())
                    && value_name(&call.receiver)
                        .is_some_and(|name| self.user_values.contains(name));
                (!is_non_float_method(&call.method) || measures_user_value)
                    && (recurse(&call.receiver) || call.args.iter().any(recurse))
            }
            Expr::Call(call) => match &*call.func {
                Expr::Path(path) => is_float_type_path(&path.path) || call.args.iter().any(recurse),
                _ => call.args.iter().any(recurse),
            },
            Expr::Paren(inner) => recurse(&inner.expr),
            Expr::Group(inner) => recurse(&inner.expr),
            // `g(x)?`: the value inside the option or result.
            Expr::Try(inner) => recurse(&inner.expr),
            Expr::Reference(inner) => recurse(&inner.expr),
            Expr::Field(inner) => recurse(&inner.base),
            Expr::Index(inner) => recurse(&inner.expr),
            Expr::Tuple(tuple) => tuple.elems.iter().any(recurse),
            Expr::Struct(structure) => structure.fields.iter().any(|field| recurse(&field.expr)),
            Expr::Array(array) => array.elems.iter().any(recurse),
            Expr::Repeat(repeat) => recurse(&repeat.expr),
            Expr::Block(block) => block_value(&block.block).is_some_and(&recurse),
            Expr::If(inner) => {
                block_value(&inner.then_branch).is_some_and(&recurse)
                    || inner.else_branch.as_ref().is_some_and(|(_, e)| recurse(e))
            }
            Expr::Match(inner) => inner.arms.iter().any(|arm| recurse(&arm.body)),
            Expr::Macro(mac) => crate::macros::MacroArgs::parse_from(&mac.mac)
                .is_ok_and(|args| args.exprs().into_iter().any(recurse)),
            Expr::Loop(inner) => break_values(&inner.body).iter().any(recurse),
            Expr::Closure(_) | Expr::Unsafe(_) => true,
            _ => false,
        }
    }
}

/// The values of the `break`s that leave a loop with this body.
pub fn break_values(body: &syn::Block) -> Vec<Expr> {
    struct Breaks(Vec<Expr>, usize);
    impl<'ast> Visit<'ast> for Breaks {
        fn visit_expr_break(&mut self, brk: &'ast syn::ExprBreak) {
            if let (Some(value), 0) = (&brk.expr, self.1) {
                self.0.push((**value).clone());
            }
        }
        fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
            self.1 += 1;
            syn::visit::visit_expr_loop(self, l);
            self.1 -= 1;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut breaks = Breaks(Vec::new(), 0);
    breaks.visit_block(body);
    breaks.0
}

pub(crate) fn block_value(block: &syn::Block) -> Option<&Expr> {
    match block.stmts.last() {
        Some(syn::Stmt::Expr(expr, None)) => Some(expr),
        _ => None,
    }
}

fn is_arithmetic(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_) | BinOp::Div(_) | BinOp::Rem(_)
    )
}

/// Float methods that return a bool or an integer-like value rather than a float.
fn is_non_float_method(method: &Ident) -> bool {
    // Besides the float methods whose result is data: `Option`'s tests, comparisons, and
    // `to_f64` of `num-traits`, whose float is not the derivative code's scalar.
    const OTHERS: &[&str] = &[
        "is_zero", "is_some", "is_none", "to_f64", "eq", "ne", "lt", "le", "gt", "ge",
    ];
    crate::rules::VALUE_ONLY_METHODS
        .iter()
        .chain(OTHERS)
        .any(|name| method == name)
}

/// `f64::...`, `std::f64::...`, `core::f64::...` (and the same for `f32`).
pub fn is_float_type_path(path: &syn::Path) -> bool {
    let segments: Vec<_> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let float_at = |i: usize| segments.get(i).is_some_and(|s| s == "f64" || s == "f32");
    segments.len() > 1
        && (float_at(0) || ((segments[0] == "std" || segments[0] == "core") && float_at(1)))
}

struct Binding {
    names: Vec<Ident>,
    ty: Option<Type>,
    value: Option<Expr>,
}

#[derive(Default)]
struct BindingCollector {
    names: HashSet<Ident>,
    /// Closure parameters without a type: what they hold is not known.
    untyped: HashSet<Ident>,
    bindings: Vec<Binding>,
    /// Closures passed to an iterator method, whose parameters are bound to what the
    /// iterator gives (as a `for` loop's pattern is), by address.
    fed_by_iterators: HashSet<*const syn::ExprClosure>,
}

/// Iterator methods whose closure takes the iterator's items (two of them for the
/// comparators).
const ITEM_CLOSURE_METHODS: &[&str] = &[
    "map",
    "filter",
    "filter_map",
    "flat_map",
    "for_each",
    "any",
    "all",
    "find",
    "find_map",
    "position",
    "take_while",
    "skip_while",
    "map_while",
    "inspect",
    "max_by_key",
    "min_by_key",
    "max_by",
    "min_by",
    "partition",
];

impl BindingCollector {
    /// Binds the pattern of an iterator's items: `(i, v)` over `x.iter().enumerate()` (the
    /// index is data, the element what `x` gives), `(a, b)` over `a_s.iter().zip(b_s)` (each
    /// what its own side gives: a data struct beside a float stays data), nested as the
    /// adapters nest; any other pattern what the whole iterator gives.
    fn bind_items(&mut self, pat: &Pat, iterable: &Expr) {
        let pat = match pat {
            Pat::Paren(paren) => &*paren.pat,
            pat => pat,
        };
        if let (Pat::Tuple(pair), Expr::MethodCall(call)) = (pat, iterable) {
            if pair.elems.len() == 2 && call.turbofish.is_none() {
                match (call.method.to_string().as_str(), call.args.len()) {
                    ("enumerate", 0) => {
                        self.bind(&pair.elems[0], None);
                        self.bind_items(&pair.elems[1], &call.receiver);
                        return;
                    }
                    ("zip", 1) => {
                        self.bind_items(&pair.elems[0], &call.receiver);
                        self.bind_items(&pair.elems[1], &call.args[0]);
                        return;
                    }
                    _ => {}
                }
            }
        }
        self.bind(pat, Some(iterable));
    }

    fn bind(&mut self, pat: &Pat, value: Option<&Expr>) {
        let (names, ty) = pattern_bindings(pat);
        self.names.extend(names.iter().cloned());
        self.bindings.push(Binding {
            names,
            ty,
            value: value.cloned(),
        });
    }

    fn assign(&mut self, target: &Expr, value: &Expr) {
        if let Some(name) = assigned_name(target) {
            self.bindings.push(Binding {
                names: vec![name],
                ty: None,
                value: Some(value.clone()),
            });
        }
    }
}

/// The variable an assignment writes: `x = ..`, `x.0 = ..`, `x[i] = ..`, `*x = ..`.
fn assigned_name(target: &Expr) -> Option<Ident> {
    match target {
        Expr::Path(path) => path.path.get_ident().cloned(),
        Expr::Field(field) => assigned_name(&field.base),
        Expr::Index(index) => assigned_name(&index.expr),
        Expr::Unary(unary) => assigned_name(&unary.expr),
        Expr::Paren(paren) => assigned_name(&paren.expr),
        _ => None,
    }
}

/// The names a pattern binds, and the type written in it (`x: f64`), if any.
pub fn pattern_bindings(pat: &Pat) -> (Vec<Ident>, Option<Type>) {
    #[derive(Default)]
    struct Names(Vec<Ident>, Option<Type>);
    impl<'ast> Visit<'ast> for Names {
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            self.0.push(pat.ident.clone());
            syn::visit::visit_pat_ident(self, pat);
        }
        fn visit_pat_type(&mut self, pat: &'ast syn::PatType) {
            self.1 = Some((*pat.ty).clone());
            syn::visit::visit_pat_type(self, pat);
        }
    }
    let mut names = Names::default();
    names.visit_pat(pat);
    (names.0, names.1)
}

impl<'ast> Visit<'ast> for BindingCollector {
    fn visit_local(&mut self, local: &'ast syn::Local) {
        self.bind(&local.pat, local.init.as_ref().map(|init| &*init.expr));
        syn::visit::visit_local(self, local);
    }

    fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
        self.assign(&assign.left, &assign.right);
        syn::visit::visit_expr_assign(self, assign);
    }

    fn visit_expr_binary(&mut self, binary: &'ast syn::ExprBinary) {
        if is_compound_assignment(&binary.op) {
            self.assign(&binary.left, &binary.right);
        }
        syn::visit::visit_expr_binary(self, binary);
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        // `accumulate(&mut s, x)` may write into `s` what it is given.
        for arg in &call.args {
            if let Expr::Reference(reference) = arg {
                if reference.mutability.is_some() {
                    self.assign(&reference.expr, &Expr::Call(call.clone()));
                }
            }
        }
        syn::visit::visit_expr_call(self, call);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        // `v.push(x)` makes `v` hold what `x` is.
        if matches!(
            call.method.to_string().as_str(),
            "push" | "insert" | "extend"
        ) {
            if let Some(element) = call.args.last() {
                self.assign(&call.receiver, element);
            }
        }
        // `c.iter().map(|&k| ..)`, `v.iter().fold(0.0, |s, x| ..)`: the closure's parameters
        // hold what the iterator gives (and the fold's accumulator what its start is).
        let method = call.method.to_string();
        let closure = |arg: &'ast Expr| match arg {
            Expr::Closure(closure)
                if closure
                    .inputs
                    .iter()
                    .all(|input| !matches!(input, Pat::Type(_))) =>
            {
                Some(closure)
            }
            _ => None,
        };
        match (method.as_str(), call.args.len()) {
            ("fold", 2) => {
                if let Some(folded) = closure(&call.args[1]).filter(|c| c.inputs.len() == 2) {
                    self.bind(&folded.inputs[0], Some(&call.args[0]));
                    self.bind(&folded.inputs[1], Some(&call.receiver));
                    self.fed_by_iterators.insert(folded);
                }
            }
            (method, 1) if ITEM_CLOSURE_METHODS.contains(&method) => {
                if let Some(mapped) = closure(&call.args[0]) {
                    for input in &mapped.inputs {
                        self.bind_items(input, &call.receiver);
                    }
                    self.fed_by_iterators.insert(mapped);
                }
            }
            _ => {}
        }
        syn::visit::visit_expr_method_call(self, call);
    }

    fn visit_expr_for_loop(&mut self, for_loop: &'ast syn::ExprForLoop) {
        self.bind_items(&for_loop.pat, &for_loop.expr);
        syn::visit::visit_expr_for_loop(self, for_loop);
    }

    fn visit_expr_let(&mut self, let_expr: &'ast syn::ExprLet) {
        self.bind(&let_expr.pat, Some(&let_expr.expr));
        syn::visit::visit_expr_let(self, let_expr);
    }

    fn visit_expr_match(&mut self, match_expr: &'ast syn::ExprMatch) {
        for arm in &match_expr.arms {
            self.bind(&arm.pat, Some(&match_expr.expr));
        }
        syn::visit::visit_expr_match(self, match_expr);
    }

    fn visit_expr_closure(&mut self, closure: &'ast syn::ExprClosure) {
        if self.fed_by_iterators.contains(&(closure as *const _)) {
            syn::visit::visit_expr_closure(self, closure);
            return;
        }
        for input in &closure.inputs {
            self.bind(input, None);
            if !matches!(input, Pat::Type(_)) {
                self.untyped.extend(pattern_bindings(input).0);
            }
        }
        syn::visit::visit_expr_closure(self, closure);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// `+= -= *= /= %=`: the compound assignments that have a float rule.
pub fn is_compound_assignment(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
    )
}

/// Every compound assignment, the bitwise and shift ones (of data) included.
pub fn is_any_compound_assignment(op: &BinOp) -> bool {
    is_compound_assignment(op)
        || matches!(
            op,
            BinOp::BitXorAssign(_)
                | BinOp::BitAndAssign(_)
                | BinOp::BitOrAssign(_)
                | BinOp::ShlAssign(_)
                | BinOp::ShrAssign(_)
        )
}

/// Whether evaluating `expr` assigns a variable (inside a block, a branch, a loop).
pub fn assigns(expr: &Expr) -> bool {
    struct Assigns(bool);
    impl<'ast> Visit<'ast> for Assigns {
        fn visit_expr_assign(&mut self, _: &'ast syn::ExprAssign) {
            self.0 = true;
        }
        fn visit_expr_binary(&mut self, binary: &'ast syn::ExprBinary) {
            self.0 |= is_compound_assignment(&binary.op);
            syn::visit::visit_expr_binary(self, binary);
        }
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            self.0 |= call.method == "push";
            syn::visit::visit_expr_method_call(self, call);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Assigns(false);
    finder.visit_expr(expr);
    finder.0
}

/// The name an expression is, up to references and parentheses: `p` in `p`, `&p`, `*p`, `(p)`.
fn value_name(expr: &Expr) -> Option<&Ident> {
    match expr {
        Expr::Path(path) if path.qself.is_none() => path.path.get_ident(),
        Expr::Paren(paren) => value_name(&paren.expr),
        Expr::Reference(reference) => value_name(&reference.expr),
        Expr::Unary(unary) if matches!(unary.op, UnOp::Deref(_)) => value_name(&unary.expr),
        _ => None,
    }
}

/// The locals `body` binds to a struct or an enum variant it builds (`Point { .. }`,
/// `Shape::Circle(r)`).
/// The names every binding of which is `let name = value;` with a value that cannot be a
/// function (arithmetic, a literal, a cast, the result of the function of that name).
pub fn uncallable_locals(body: &syn::Block) -> HashSet<Ident> {
    #[derive(Default)]
    struct Bindings {
        values: HashSet<Ident>,
        others: HashSet<Ident>,
    }
    impl<'ast> Visit<'ast> for Bindings {
        fn visit_local(&mut self, local: &'ast syn::Local) {
            let name = match &local.pat {
                Pat::Ident(binding) if binding.subpat.is_none() => Some(&binding.ident),
                Pat::Type(typed) => match &*typed.pat {
                    Pat::Ident(binding) if binding.subpat.is_none() => Some(&binding.ident),
                    _ => None,
                },
                _ => None,
            };
            // Arithmetic, a literal, a cast, or a call of the function of the same name (`let
            // d1 = d1(s, k);`): none of those gives a function.
            let value = local.init.as_ref().is_some_and(|init| {
                init.diverge.is_none()
                    && match &*init.expr {
                        Expr::Binary(_) | Expr::Lit(_) | Expr::Cast(_) => true,
                        Expr::Unary(unary) => !matches!(unary.op, UnOp::Deref(_)),
                        Expr::Call(call) => matches!((&*call.func, name),
                            (Expr::Path(function), Some(name)) if function.path.is_ident(name)),
                        _ => false,
                    }
            });
            match (name, value) {
                (Some(name), true) => {
                    self.values.insert(name.clone());
                    if let Some(init) = &local.init {
                        self.visit_expr(&init.expr);
                    }
                }
                _ => syn::visit::visit_local(self, local),
            }
        }
        fn visit_pat_ident(&mut self, binding: &'ast syn::PatIdent) {
            self.others.insert(binding.ident.clone());
            syn::visit::visit_pat_ident(self, binding);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut found = Bindings::default();
    found.visit_block(body);
    found.values.difference(&found.others).cloned().collect()
}

fn mutable_locals(body: &syn::Block) -> HashSet<Ident> {
    #[derive(Default)]
    struct Mutable(HashSet<Ident>);
    impl<'ast> Visit<'ast> for Mutable {
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            if pat.mutability.is_some() {
                self.0.insert(pat.ident.clone());
            }
            syn::visit::visit_pat_ident(self, pat);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut found = Mutable::default();
    found.visit_block(body);
    found.0
}

fn user_value_locals(body: &syn::Block) -> HashSet<Ident> {
    #[derive(Default)]
    struct Values(HashSet<Ident>);
    impl<'ast> Visit<'ast> for Values {
        fn visit_local(&mut self, local: &'ast syn::Local) {
            let built = local
                .init
                .as_ref()
                .is_some_and(|init| crate::user_types::built_value(&init.expr).is_some());
            if built {
                self.0.extend(pattern_bindings(&local.pat).0);
            }
            syn::visit::visit_local(self, local);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut values = Values::default();
    values.visit_block(body);
    values.0
}

/// The locals bound to arithmetic on values of user types (`user_values`), for `k * w`
/// (`left_operators`): those certainly of a user type, as `u + v`, `u - v`, `-v`, `2.0 * v` and
/// `v / k` are (vector arithmetic; `u * v` may be a dot product); and those whose value
/// involves one at all, which are not certainly floats. A name bound again by another `let`
/// leaves both.
pub fn derived_result_locals(
    body: &syn::Block,
    user_values: &HashSet<Ident>,
) -> (HashSet<Ident>, HashSet<Ident>) {
    struct Results<'a> {
        user_values: &'a HashSet<Ident>,
        derived: HashSet<Ident>,
        mixed: HashSet<Ident>,
    }
    impl Results<'_> {
        fn is_user_value(&self, name: &Ident) -> bool {
            self.user_values.contains(name) || self.derived.contains(name)
        }
        fn derived(&self, expr: &Expr) -> bool {
            vector_arithmetic(expr, &|name| self.is_user_value(name))
        }
        /// Whether `expr` involves a user value.
        fn mixed(&self, expr: &Expr) -> bool {
            crate::retype::mentions_name(expr, &|name| {
                self.is_user_value(name) || self.mixed.contains(name)
            })
        }
    }
    impl<'ast> Visit<'ast> for Results<'_> {
        fn visit_local(&mut self, local: &'ast syn::Local) {
            let names = pattern_bindings(&local.pat).0;
            let (derived, mixed) = match &local.init {
                Some(init) if matches!(&*init.expr, Expr::Binary(_) | Expr::Unary(_)) => {
                    (self.derived(&init.expr), self.mixed(&init.expr))
                }
                _ => (false, false),
            };
            for name in names {
                self.derived.remove(&name);
                self.mixed.remove(&name);
                if derived {
                    self.derived.insert(name.clone());
                }
                if mixed {
                    self.mixed.insert(name);
                }
            }
            syn::visit::visit_local(self, local);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut results = Results {
        user_values,
        derived: HashSet::new(),
        mixed: HashSet::new(),
    };
    results.visit_block(body);
    (results.derived, results.mixed)
}

/// Whether `expr` is certainly of a user type, its names those `is_user_value` takes: one of
/// them, a value built from parts, or vector arithmetic on them (`u + v`, `u - v`, `-v`, `2.0 *
/// v`, `v / k`; `u * v` may be a dot product).
pub fn vector_arithmetic(expr: &Expr, is_user_value: &dyn Fn(&Ident) -> bool) -> bool {
    let recurse = |expr: &Expr| vector_arithmetic(expr, is_user_value);
    match expr {
        Expr::Paren(paren) => recurse(&paren.expr),
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => recurse(&unary.expr),
        Expr::Binary(binary) => match binary.op {
            BinOp::Add(_) | BinOp::Sub(_) => recurse(&binary.left) && recurse(&binary.right),
            BinOp::Mul(_) => recurse(&binary.left) != recurse(&binary.right),
            BinOp::Div(_) => {
                recurse(&binary.left) && !crate::retype::mentions_name(&binary.right, is_user_value)
            }
            _ => false,
        },
        Expr::Path(path) => path.path.get_ident().is_some_and(is_user_value),
        _ => crate::user_types::built_value(expr).is_some(),
    }
}

/// The names that every `let` of `body` binding them binds to a container: a container type
/// written (`let v: Vec<f64> = ..`) or a value that builds one (`vec![..]`, `Vec::new()`,
/// `x.to_vec()`, a `collect`). Their `len()` is an integer, whatever they hold.
pub fn container_locals(body: &syn::Block) -> HashSet<Ident> {
    #[derive(Default)]
    struct Containers {
        containers: HashSet<Ident>,
        others: HashSet<Ident>,
    }
    impl<'ast> Visit<'ast> for Containers {
        fn visit_local(&mut self, local: &'ast syn::Local) {
            let (names, ty) = pattern_bindings(&local.pat);
            let typed = ty
                .as_ref()
                .is_some_and(|ty| crate::ast::container_element(ty).is_some());
            let built = local
                .init
                .as_ref()
                .is_some_and(|init| builds_container(&init.expr));
            match (names.as_slice(), typed || built) {
                ([name], true) => {
                    self.containers.insert(name.clone());
                }
                _ => self.others.extend(names),
            }
            // The pattern is classified above; only the initializer is walked on.
            if let Some(init) = &local.init {
                self.visit_expr(&init.expr);
                if let Some((_, diverge)) = &init.diverge {
                    self.visit_expr(diverge);
                }
            }
        }
        fn visit_pat(&mut self, pat: &'ast Pat) {
            // Names bound by other patterns (`for`, `match`, closures) are not containers.
            self.others.extend(pattern_bindings(pat).0);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut containers = Containers::default();
    containers.visit_block(body);
    &containers.containers - &containers.others
}

/// `vec![..]`, `[..]`, `Vec::new()`, `Vec::with_capacity(n)`, `x.to_vec()`, `x.clone()`,
/// `x.to_owned()`, `...collect()`: an expression that builds a container.
fn builds_container(expr: &Expr) -> bool {
    match expr {
        Expr::Paren(paren) => builds_container(&paren.expr),
        Expr::Macro(mac) => mac.mac.path.is_ident("vec"),
        Expr::Array(_) | Expr::Repeat(_) => true,
        Expr::MethodCall(call) => {
            matches!(
                call.method.to_string().as_str(),
                "to_vec" | "to_owned" | "collect"
            ) || (call.method == "clone" && builds_container(&call.receiver))
        }
        _ => builds_empty_vec(expr),
    }
}

/// `Vec::new()`, `Vec::with_capacity(n)`, `vec![]`: an empty `Vec`, filled by pushes.
pub fn builds_empty_vec(expr: &Expr) -> bool {
    match expr {
        Expr::Paren(paren) => builds_empty_vec(&paren.expr),
        Expr::Macro(mac) => mac.mac.path.is_ident("vec") && mac.mac.tokens.is_empty(),
        Expr::Call(call) => matches!(&*call.func, Expr::Path(path)
            if path.path.segments.len() == 2
                && path.path.segments[0].ident == "Vec"
                && ["new", "with_capacity"].contains(&path.path.segments[1].ident.to_string().as_str())),
        _ => false,
    }
}
