//! syn to AD-IR. Names are resolved here, once: a `let` binds a [`Value`], a `let mut` a
//! [`Var`]; anything else a path names is a constant of the function's surroundings.
//!
//! Lowering fails with [`NotYet`] on a construct the IR engine does not take yet; the caller
//! then uses the previous engine for the whole function. Errors in the user's code are not
//! lowering's business: `valid` reported them before.

use std::collections::HashMap;

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Ident, Lit, Pat};

use super::*;
use crate::ast::Function;
use crate::retype::{classify_callee_path, Callee};
use crate::rules::{float_method_rule, VALUE_ONLY_METHODS};
use attributes::{attributes_of, attributes_of_mut, has_meaningful_attributes};

mod attributes;
mod checkpoints;
mod closures;
mod container_methods;
mod control;
mod destructuring;
mod desugar;
mod dispatch;
mod element_access;
mod expressions;
mod items;
mod iterators;
mod loop_items;
mod macros;
mod option_combinators;
mod patterns;
mod places;
mod refusals;
mod stepped_iterators;
mod value_types;

use control::{default_value, leaves, returns_early, var_place, FunctionExit, LoopContext};
use places::{borrowing_name, is_place_expression, is_sub_slice};

pub use dispatch::mentions_linalg;
pub(crate) use refusals::{DERIVED_ON_THE_RIGHT, LINALG_WITHOUT_RULE, UNDERIVED_BUILT};

/// A construct the IR engine does not lower yet, and where it is.
pub struct NotYet {
    pub span: Span,
    pub what: &'static str,
}

impl NotYet {
    /// A refusal no other engine would take instead: its reason is the message.
    pub fn is_final(&self) -> bool {
        [
            DERIVED_ON_THE_RIGHT,
            crate::plain_calls::NOT_ANNOTATED,
            crate::plain_calls::GENERIC_NOT_YET,
            crate::plain_calls::ACTIVE_TO_DATA,
            crate::plain_calls::CLOSURE_TO_PLAIN,
            crate::plain_calls::MUTABLE_TO_FORWARD_CODE,
            crate::plain_calls::UNMARKED_ASSOCIATED,
            desugar::ITERATOR_KEPT,
            UNDERIVED_BUILT,
            LINALG_WITHOUT_RULE,
        ]
        .contains(&self.what)
    }
}

type Lowered<T> = Result<T, NotYet>;

const LET_ELSE: &str =
    "`let ... else` with attributes on the `let`: write a `match` whose other arm leaves";

fn not_yet<T>(node: &impl Spanned, what: &'static str) -> Lowered<T> {
    Err(NotYet {
        span: node.span(),
        what,
    })
}

/// The function's body as IR. `derived_types` are types its patterns name that derive
/// `Differentiable` beyond those the syntax shows (`validate::derived_types_to_learn`).
pub fn lower(function: &Function, derived_types: &[syn::Path]) -> Lowered<Body> {
    let expanded = items::expanded_globs(&function.body)?;
    let body = expanded.as_ref().unwrap_or(&function.body);
    let renamed = items::renamed_nested_items(body);
    let body = renamed.as_ref().unwrap_or(body);
    let without_try = match function.fallible_output() {
        Some((_, error)) => {
            control::try_as_match(body, control::Tried::Result(Box::new(error.clone())))
        }
        None => function
            .output()
            .and_then(crate::ast::option_content)
            .and_then(|_| control::try_as_match(body, control::Tried::Option)),
    };
    let body = without_try.as_ref().unwrap_or(body);
    let desugared = desugar::iterator_spellings(function, body)?;
    let body = desugared.as_ref().unwrap_or(body);
    let mut user_types = crate::user_types::UserTypes::of(function).with_built_types(body);
    for path in derived_types {
        user_types.add(path.clone());
    }
    let mut lowering = Lowering {
        values: Vec::new(),
        vars: Vec::new(),
        scopes: vec![HashMap::new()],
        loops: Vec::new(),
        exit: None,
        references: std::collections::HashSet::new(),
        number_containers: std::collections::HashSet::new(),
        sequence_params: std::collections::HashSet::new(),
        integer_sequences: std::collections::HashSet::new(),
        zipped_items: HashMap::new(),
        fallible: function.fallible_output().is_some(),
        plain_roots: std::collections::HashSet::new(),
        options: std::collections::HashSet::new(),
        receivers: std::collections::HashSet::new(),
        mutable_references: std::collections::HashSet::new(),
        built_options: std::collections::HashSet::new(),
        data_options: HashMap::new(),
        closure_calls: Vec::new(),
        containers: std::collections::HashSet::new(),
        owned_container_params: std::collections::HashSet::new(),
        iterated: std::collections::HashSet::new(),
        param_roots: std::collections::HashSet::new(),
        expected_types: Vec::new(),
        result_type: function.output().cloned(),
        user_values: HashMap::new(),
        user_results: Default::default(),
        linalg_values: Default::default(),
        known_floats: Default::default(),
        float_containers: HashMap::new(),
        user_containers: HashMap::new(),
        float: function.float,
        items: Vec::new(),
        hoisted_items: Vec::new(),
        body_names: {
            // The parameters' names count as written outside every nested block: an item
            // declared at the top of the derivative code would be what they mean there.
            let mut counts = HashMap::new();
            count_names(body.to_token_stream(), &mut counts);
            for param in &function.params {
                *counts.entry(scope_key(&param.name)).or_default() += 1;
            }
            counts
        },
        user_types,
        regions: 0,
        borrowed_scrutinee: None,
        declared_without_value: std::collections::HashSet::new(),
    };
    let mut params = Vec::new();
    for param in &function.params {
        // `&self`, `&mut self` and `self` are `#[grad]` parameters of the type.
        // A `&mut` parameter is written in place: a variable (holding the reference) whose
        // places have shadows, as a local's.
        let root = if param.mutability.is_some() || param.is_mut_reference() {
            let var = lowering.new_var(&param.name);
            let root = Root::Var(var);
            if param.is_mut_reference() {
                lowering.mutable_references.insert(root);
            } else if names_a_container(&param.ty) {
                // `mut v: Vec<f64>`: a local container the caller gave.
                lowering.containers.insert(var);
                lowering.owned_container_params.insert(var);
            }
            root
        } else {
            let value = lowering.new_value(Some(param.name.clone()), param.name.span());
            if param.is_reference() {
                lowering.references.insert(value);
            }
            Root::Value(value)
        };
        // A container of derived values (`bodies: &[Body]`) has the container's methods.
        match (&param.user_type, param.is_user_container()) {
            (Some(type_path), false) => {
                lowering.user_values.insert(root, type_path.clone());
            }
            (Some(type_path), true) => {
                lowering.user_containers.insert(root, type_path.clone());
            }
            (None, _) => {}
        }
        // A nalgebra vector or matrix: its methods and operators are its type's rules
        // (`ad_runtime::linalg`), chosen by rustc as a derived value's are.
        if crate::ast::is_linalg_type(&param.ty) {
            lowering.user_results.insert(root);
            lowering.linalg_values.insert(root);
        }
        if holds_numbers(&param.ty) {
            lowering.number_containers.insert(root);
        }
        if element_access::is_sequence_type(&param.ty) {
            lowering.sequence_params.insert(root);
        }
        if crate::ast::container_element(&param.ty).is_some_and(crate::ast::is_integer_type) {
            lowering.integer_sequences.insert(root);
        }
        if param.kind == crate::ast::ParamKind::Data && !lifted(&param.ty) {
            lowering.plain_roots.insert(root);
        }
        if let (Root::Value(value), true) = (root, names_an_option(&param.ty)) {
            lowering.options.insert(value);
            if param.kind == crate::ast::ParamKind::Data && is_option_of_numbers(&param.ty) {
                lowering.data_options.insert(value, param.name.clone());
            }
        }
        if param.is_scalar() {
            lowering.known_floats.insert(root);
        }
        if let Some(nesting) = crate::ast::float_nesting(&param.ty, function.float) {
            if nesting > 0 {
                lowering.float_containers.insert(root, nesting);
            }
        }
        lowering.bind(&param.name, root);
        lowering.param_roots.insert(root);
        params.push(root);
    }
    // The body's own items are visible in all of it, shadowing the parameters: their names
    // resolve to them, and the derivative code declares them where all of it sees them.
    lowering.scopes.push(HashMap::new());
    for stmt in &body.stmts {
        if let syn::Stmt::Item(item) = stmt {
            for name in item_names(item)? {
                lowering
                    .scopes
                    .last_mut()
                    .expect("a scope is open")
                    .insert(name, Binding::Item);
            }
            lowering.items.push(item.clone());
            lowering
                .hoisted_items
                .push(stmt as *const syn::Stmt as usize);
        }
    }
    if let (Some(syn::Stmt::Expr(tail, None)), Some(output)) =
        (body.stmts.last(), function.output())
    {
        lowering.expect(tail, output);
    }
    let block = if returns_early(body) {
        lowering.body_with_exits(body)?
    } else {
        lowering.block(body)?
    };
    // Every inner `#[checkpoint]` became a region (closures, inlined at each call, have
    // none); one the lowering did not see where it stands is not taken.
    if lowering.regions != checkpoints::count(body) {
        if let Some(checkpoint) = crate::attr::find_checkpoint(body) {
            return not_yet(&checkpoint, "inner `#[checkpoint]`s here");
        }
    }
    Ok(Body {
        values: lowering.values,
        vars: lowering.vars,
        params,
        block,
        items: lowering.items,
        user_types: lowering.user_types,
        receivers: lowering.receivers,
        iterated: lowering.iterated,
        closure_calls: lowering.closure_calls,
        linalg: lowering.linalg_values,
    })
}

/// The names one scope binds.
type Scope = HashMap<String, Binding>;

/// What a name in scope is.
#[derive(Clone)]
enum Binding {
    Local(Root),
    /// An item of the body, which shadows the locals of outer scopes.
    Item,
    /// A closure bound by `let`: its calls are inlined (`closures`).
    Closure(std::rc::Rc<closures::ClosureDef>),
    /// A name a pattern bound through a reference into data (`Mode::Scale(k)` matched on
    /// `&Mode`): a reference to a plain value, the field `index` of the tuple `parts` of the
    /// names' values. Each use reads that place, so that both `k` and `*k` are read, and
    /// lifted, as what the user's code means by them.
    Part {
        parts: Value,
        index: u32,
    },
    /// A name borrowing a place (`let r = &mut v[i];`, `let ref mut r = k;`, an arm's
    /// `ref mut r`): `*r` and `r[j]` are that place, where it was borrowed, and `r` itself a
    /// new borrow of it, so that what is written through it is written to the place.
    Borrowed {
        place: Place,
        mutable: bool,
    },
}

struct Lowering {
    values: Vec<ValueInfo>,
    vars: Vec<VarInfo>,
    /// Names in scope, innermost last.
    scopes: Vec<Scope>,
    /// The loops around the code being lowered, innermost last.
    loops: Vec<LoopContext>,
    /// With an early `return` in the body: whether it returned, and the value.
    exit: Option<FunctionExit>,
    /// Values that are references: parameters declared as such (`&[f64]`), `&place`, and
    /// copies of those (`let row = &m[i];`, an element bound by reference in a `for`).
    /// `for x in v` borrows their elements.
    references: std::collections::HashSet<Value>,
    /// Parameters taken by value whose type is a `Vec` or an array of numbers (`x: Vec<f64>`,
    /// `p: [f64; 3]`): `for v in x` reads their elements.
    number_containers: std::collections::HashSet<Root>,
    /// Parameters that are slices, `Vec`s or arrays (behind references or not), whose elements
    /// `get(i)` reaches by index.
    sequence_params: std::collections::HashSet<Root>,
    /// Parameters that are slices, `Vec`s or arrays of integers (`idx: &[usize]`): a `sum`
    /// over them is of integers.
    integer_sequences: std::collections::HashSet<Root>,
    /// The items of a `zip` chain (tuples the loop builds), with their parts: a closure's
    /// tuple pattern binds each part itself, so that a part of data stays data.
    zipped_items: HashMap<Value, Vec<Operand>>,
    /// Whether the function returns a `Result` (its early exits hold one).
    fallible: bool,
    /// Values that hold plain floats, not lifted to the scalar type: data parameters of types
    /// the lifting leaves as they are (`cfg: &Cfg`, `n: Option<usize>`), and the parts of data
    /// patterns. Their methods without a rule take plain floats.
    plain_roots: std::collections::HashSet<Root>,
    /// Values known to be `Option`s: data parameters declared as one, `Some(..)`, and copies
    /// of those. A callee's data parameter keeps its declared type, which a lifted option does
    /// not match: passing one to a call is not taken yet.
    options: std::collections::HashSet<Value>,
    /// Values `Some(..)` built: not iterated by index (`for v in o`).
    built_options: std::collections::HashSet<Value>,
    /// Copies of data parameters declared as `Option`s of numbers (`offset: Option<f64>`),
    /// with the parameter's name: passed to a call as the parameter itself, unlifted, which
    /// is what the callee's data parameter of that declared type takes.
    data_options: HashMap<Value, Ident>,
    /// Calls that pass closures (`Body::closure_calls`).
    closure_calls: Vec<ClosureCall>,
    /// Variables holding a `Vec` or an array (built in the body, or with the type written),
    /// whose rearranging methods (`swap`, `sort_by`, ...) are their element writes.
    containers: std::collections::HashSet<Var>,
    /// Container parameters taken by value and `mut` (`mut v: Vec<f64>`): rearranged in
    /// place (`sort_by`, `swap`, `fill`), not resized, so that the adjoint `_vjp` returns for
    /// them keeps their length.
    owned_container_params: std::collections::HashSet<Var>,
    /// `Body::receivers`.
    receivers: std::collections::HashSet<Value>,
    /// `&mut` parameters (variables holding the reference).
    mutable_references: std::collections::HashSet<Root>,
    /// `Body::iterated`.
    iterated: std::collections::HashSet<Value>,
    /// The parameters' roots.
    param_roots: std::collections::HashSet<Root>,
    /// The types the code gives expressions it names (a `let`'s annotation for its value, the
    /// function's result type for the body's tail and each `return`'s value, a closure's
    /// result type for its body, what an iterator chain makes of its closures' results), by
    /// the expression's address: what an iterator's `sum` gives when no turbofish says.
    expected_types: Vec<(usize, syn::Type)>,
    /// The function's result type, which the value of each `return` has.
    result_type: Option<syn::Type>,
    /// Values of derived types, with the type: `#[grad]` parameters, values built in the body
    /// and the names bound to them. A method called on one is the type's own.
    user_values: HashMap<Root, syn::Path>,
    /// Values a method of a derived type returned, and the names bound to them: of a type the
    /// body does not show (a derived type's, or a float). A method called on one that is no
    /// float's is the type's own, found on the receiver (`Rvalue::Call::of_receiver_type`).
    user_results: std::collections::HashSet<Root>,
    /// Values and variables that hold a nalgebra vector or matrix (or a factorization of one):
    /// among `user_results`, those whose methods are the runtime's rules
    /// (`expressions::is_linalg_value`).
    linalg_values: std::collections::HashSet<Root>,
    /// The parameters of the function's float type, and the locals given a float
    /// (`expressions::is_a_float`).
    known_floats: std::collections::HashSet<Root>,
    /// `#[grad]` containers of a derived type (`xs: &[LogP]`), with the type of their elements.
    user_containers: HashMap<Root, syn::Path>,
    /// Parameters holding floats in containers (`x: &[f64]`, `rows: &[Vec<f64>]`), with how
    /// deep (`ast::float_nesting`): their elements that deep are floats (`is_a_float`).
    float_containers: HashMap<Root, usize>,
    /// The function's float type, which types written in the body name.
    float: crate::ast::FloatType,
    /// How many times each name occurs in the body's tokens.
    body_names: HashMap<String, usize>,
    /// The items of the body, its own and its nested blocks' (declared at the top of the
    /// derivative code), and the addresses of their statements.
    items: Vec<syn::Item>,
    hoisted_items: Vec<usize>,
    /// The derived types of the `#[grad]` parameters, whose values the body may build.
    user_types: crate::user_types::UserTypes,
    /// How many checkpointed regions were lowered.
    regions: usize,
    /// The place the `match` being lowered borrows for arms binding it whole by reference.
    borrowed_scrutinee: Option<Place>,
    /// Variables declared without a value (`let k;`): rustc sees them assigned on every path
    /// only where the code's own structure shows it, not through the flags of early exits.
    declared_without_value: std::collections::HashSet<Var>,
}

impl Lowering {
    fn new_value(&mut self, name: Option<Ident>, span: Span) -> Value {
        self.values.push(ValueInfo {
            name,
            span,
            ty: None,
        });
        Value(self.values.len() as u32 - 1)
    }

    fn new_var(&mut self, name: &Ident) -> Var {
        self.vars.push(VarInfo {
            name: name.clone(),
            span: name.span(),
            ty: None,
        });
        Var(self.vars.len() as u32 - 1)
    }

    fn bind(&mut self, name: &Ident, root: Root) {
        let scope = self.scopes.last_mut().expect("a scope is open");
        scope.insert(scope_key(name), Binding::Local(root));
    }

    /// Whether `expr` names a value of a derived type (whose methods are its own, whatever
    /// their names: a `push` of a user type is not `Vec::push`).
    fn names_a_user_value(&self, expr: &Expr) -> bool {
        matches!(strip(expr), Expr::Path(path) if path
            .path
            .get_ident()
            .and_then(|ident| self.resolve(ident))
            .is_some_and(|root| self.user_values.contains_key(&root)))
    }

    /// The local a name is, if it is one (not an item or a closure of the body).
    fn resolve(&self, name: &Ident) -> Option<Root> {
        match self.binding(name)? {
            Binding::Local(root) => Some(*root),
            Binding::Part { parts, .. } => Some(Root::Value(*parts)),
            Binding::Borrowed { place, .. } => Some(place.root),
            Binding::Item | Binding::Closure(_) => None,
        }
    }

    /// The place a name bound to a part of a data pattern stands for (`Binding::Part`).
    fn part_place(&self, name: &Ident, span: Span) -> Option<Place> {
        match self.binding(name)? {
            Binding::Part { parts, index } => Some(Place {
                root: Root::Value(*parts),
                projections: vec![Projection::Field(syn::Member::Unnamed(syn::Index {
                    index: *index,
                    span,
                }))],
                span,
            }),
            _ => None,
        }
    }

    /// Whether the place `expr` names has a value before it is assigned (its variable was
    /// declared with one, or it is a parameter's).
    fn assigned_before(&self, expr: &Expr) -> bool {
        match strip(expr) {
            Expr::Field(field) => self.assigned_before(&field.base),
            Expr::Index(index) => self.assigned_before(&index.expr),
            Expr::Unary(unary) => self.assigned_before(&unary.expr),
            Expr::Path(path) => match path.path.get_ident().and_then(|name| self.resolve(name)) {
                Some(Root::Var(var)) => !self.declared_without_value.contains(&var),
                Some(Root::Value(_)) => true,
                None => false,
            },
            _ => false,
        }
    }

    /// The place a name borrows (`Binding::Borrowed`), and whether mutably.
    fn borrowed_place(&self, name: &Ident) -> Option<(Place, bool)> {
        match self.binding(name)? {
            Binding::Borrowed { place, mutable } => Some((place.clone(), *mutable)),
            _ => None,
        }
    }

    /// Binds `name` to a borrow of `place`.
    fn bind_borrowed(&mut self, name: &Ident, place: Place, mutable: bool) {
        let scope = self.scopes.last_mut().expect("a scope is open");
        scope.insert(scope_key(name), Binding::Borrowed { place, mutable });
    }

    fn binding(&self, name: &Ident) -> Option<&Binding> {
        let key = scope_key(name);
        self.scopes.iter().rev().find_map(|scope| scope.get(&key))
    }

    /// The items of a nested block (`const`s, helper `fn`s, `use`s), visible in all of it:
    /// their names resolve to them there, and the derivative code declares them at its top,
    /// beside the body's own (items capture nothing of the block). Declared there, an item
    /// would also be what its name means outside the block (a `const SHIFT` of a loop body
    /// would shadow the module's `SHIFT` after the loop, a `const w` the parameter `w`), so an
    /// item whose name the body writes outside its block, a parameter has, or another block's
    /// item has, is not taken.
    fn hoist_items(&mut self, stmts: &[syn::Stmt]) -> Lowered<()> {
        let mut in_block = None;
        for stmt in stmts {
            let syn::Stmt::Item(item) = stmt else {
                continue;
            };
            let address = stmt as *const syn::Stmt as usize;
            if self.hoisted_items.contains(&address) {
                continue;
            }
            let names = item_names(item)?;
            let in_block = in_block.get_or_insert_with(|| {
                let mut counts = HashMap::new();
                count_names(quote::quote!(#(#stmts)*), &mut counts);
                counts
            });
            if names
                .iter()
                .any(|name| self.body_names.get(name) != in_block.get(name))
            {
                return not_yet(
                    item,
                    "items in nested blocks named like a name outside them",
                );
            }
            let declared: Vec<String> = self
                .items
                .iter()
                .filter_map(|item| item_names(item).ok())
                .flatten()
                .collect();
            if names.iter().any(|name| declared.contains(name)) {
                return not_yet(item, "items of one name in two blocks");
            }
            for name in names {
                self.scopes
                    .last_mut()
                    .expect("a scope is open")
                    .insert(name, Binding::Item);
            }
            self.items.push(item.clone());
            self.hoisted_items.push(address);
        }
        Ok(())
    }

    /// A new value defined by `rvalue` (noted as a reference when it is one).
    fn define(&mut self, rvalue: Rvalue, span: Span, stmts: &mut Vec<Stmt>) -> Value {
        let value = self.new_value(None, span);
        match rvalue {
            Rvalue::Ref(_) => {
                self.references.insert(value);
            }
            Rvalue::Some(_) => {
                self.built_options.insert(value);
            }
            _ => {}
        }
        stmts.push(Stmt::Let(Let {
            value,
            rvalue,
            span,
        }));
        value
    }

    /// An operand as a value: itself if it is one, else a copy of it bound to a new one.
    fn as_value(&mut self, operand: Operand, span: Span, stmts: &mut Vec<Stmt>) -> Value {
        match operand {
            Operand::Value(value) => value,
            other => self.define(Rvalue::Use(other), span, stmts),
        }
    }

    /// Whether a `let` pattern's path names a struct, whose fields are places: a derived
    /// type's, or any path that does not name an enum's variant (`Vec2`, `geometry::Vec2`;
    /// not `Shape::Circle`, its type capitalized too). A `let` without `else` takes irrefutable
    /// patterns only.
    fn names_struct(&self, qself: Option<&syn::QSelf>, path: &syn::Path) -> bool {
        let capitalized = |segment: &syn::PathSegment| {
            segment
                .ident
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase())
        };
        let count = path.segments.len();
        let plain_struct = path.leading_colon.is_none()
            && path
                .segments
                .iter()
                .all(|segment| segment.arguments.is_none())
            && capitalized(&path.segments[count - 1])
            && (count == 1 || !capitalized(&path.segments[count - 2]))
            && !path.is_ident("Some");
        qself.is_none()
            && (plain_struct
                || self
                    .user_types
                    .type_named(path)
                    .is_some_and(|known| known.segments.len() == path.segments.len()))
    }

    /// Notes that the code gives `expr` the type `ty`, and so each expression whose value is
    /// `expr`'s: a block's tail, the branches of an `if` or a `match`.
    fn expect(&mut self, expr: &Expr, ty: &syn::Type) {
        fn tail(block: &syn::Block) -> Option<&Expr> {
            match block.stmts.last() {
                Some(syn::Stmt::Expr(tail, None)) => Some(tail),
                _ => None,
            }
        }
        let expr = strip(expr);
        self.expected_types
            .push((expr as *const Expr as usize, ty.clone()));
        match expr {
            Expr::Block(block) => {
                if let Some(tail) = tail(&block.block) {
                    self.expect(tail, ty);
                }
            }
            Expr::If(branches) => {
                if let Some(tail) = tail(&branches.then_branch) {
                    self.expect(tail, ty);
                }
                if let Some((_, otherwise)) = &branches.else_branch {
                    self.expect(otherwise, ty);
                }
            }
            Expr::Match(arms) => {
                for arm in &arms.arms {
                    self.expect(&arm.body, ty);
                }
            }
            _ => {}
        }
    }

    /// `lower`, then the types noted while it ran forgotten: they were noted by the address
    /// of expressions it lowered, some of which are copies (a closure kept to be inlined, a
    /// tail rewritten as a `return`) whose memory a later expression may take.
    fn noting<T>(&mut self, lower: impl FnOnce(&mut Self) -> T) -> T {
        let noted = self.expected_types.len();
        let lowered = lower(self);
        self.expected_types.truncate(noted);
        lowered
    }

    fn expected_type(&self, expr: &Expr) -> Option<syn::Type> {
        let address = strip(expr) as *const Expr as usize;
        self.expected_types
            .iter()
            .find(|(noted, _)| *noted == address)
            .map(|(_, ty)| ty.clone())
    }

    fn scoped<T>(&mut self, lower: impl FnOnce(&mut Self) -> Lowered<T>) -> Lowered<T> {
        self.scopes.push(HashMap::new());
        let result = lower(self);
        self.scopes.pop();
        result
    }

    fn block(&mut self, block: &syn::Block) -> Lowered<Block> {
        self.scoped(|this| this.statements(&block.stmts, false))
    }

    /// The statements of a block. After one that may leave the block early (`break`,
    /// `continue`, `return`), the rest is guarded by the flag that exit sets. With
    /// `tail_returns`, the tail expression is the function's value.
    fn statements(&mut self, stmts_in: &[syn::Stmt], tail_returns: bool) -> Lowered<Block> {
        self.hoist_items(stmts_in)?;
        let mut stmts = Vec::new();
        let mut result = None;
        let count = stmts_in.len();
        for (index, stmt) in stmts_in.iter().enumerate() {
            let last = index + 1 == count;
            match stmt {
                syn::Stmt::Local(local) if local.attrs.iter().any(crate::attr::is_checkpoint) => {
                    self.checkpointed_local(local, &mut stmts)?
                }
                syn::Stmt::Local(local) => self.local(local, &mut stmts)?,
                syn::Stmt::Expr(expr, None) if last && tail_returns => {
                    // A tail that may return early inside returns its value where it is made
                    // (`if a { if b { return x; } y } else { z }`: `return y`, `return z`).
                    let return_tail = |value: Expr| -> syn::Stmt {
                        syn::parse_quote_spanned!(value.span()=> return #value;)
                    };
                    match control::leaves_inside(expr)
                        .then(|| control::into_branch_tails(expr, &return_tail))
                        .flatten()
                    {
                        Some(rewritten) => self.effect(&rewritten, &mut stmts)?,
                        None => self.lower_return(Some(expr), expr.span(), &mut stmts)?,
                    }
                }
                syn::Stmt::Expr(expr, None) if last => {
                    result = self.value_of(expr, &mut stmts)?;
                }
                syn::Stmt::Expr(expr, _) => {
                    self.effect(expr, &mut stmts)?;
                }
                syn::Stmt::Item(_)
                    if self
                        .hoisted_items
                        .contains(&(stmt as *const syn::Stmt as usize)) => {}
                syn::Stmt::Item(item) => return not_yet(item, "this item in the body"),
                syn::Stmt::Macro(mac) => {
                    if !mac.attrs.is_empty() {
                        return not_yet(mac, "attributes on macros");
                    }
                    self.lower_macro(&mac.mac, &mut stmts)?;
                }
            }
            let rest = &stmts_in[index + 1..];
            if !rest.is_empty() && leaves(stmt) {
                let span = rest[0].span();
                let Some(flag) = self.exit_flag() else {
                    return not_yet(stmt, "this exit");
                };
                let skipped = self.read(var_place(flag, span), span, &mut stmts);
                let go_on = self.new_value(None, span);
                stmts.push(Stmt::Let(Let {
                    value: go_on,
                    rvalue: Rvalue::Not(Operand::Value(skipped)),
                    span,
                }));
                let guarded = self.scoped(|this| this.statements(rest, tail_returns))?;
                // A value after an exit would need one on the path the exit took, of a type
                // only rustc knows.
                if guarded.result.is_some() {
                    return not_yet(stmt, "a value after an early exit in a block");
                }
                stmts.push(Stmt::when(Operand::Value(go_on), guarded.stmts, span));
                break;
            }
        }
        Ok(Block { stmts, result })
    }

    /// The data parameter an operand copies, if it is an `Option` of numbers
    /// (`Lowering::data_options`).
    fn data_option(&self, operand: &Operand) -> Option<Ident> {
        match operand {
            Operand::Value(value) => self.data_options.get(value).cloned(),
            _ => None,
        }
    }

    fn local(&mut self, local: &syn::Local, stmts: &mut Vec<Stmt>) -> Lowered<()> {
        // Lint attributes (`#[allow(..)]`) are the function's own business: the derivative
        // code has its own.
        let lint = |attr: &&syn::Attribute| {
            ["allow", "expect", "warn", "deny"]
                .iter()
                .any(|name| attr.path().is_ident(name))
        };
        if local.attrs.iter().any(|attr| !lint(&attr)) {
            return not_yet(local, "attributes on `let`");
        }
        let (pat, annotation) = match &local.pat {
            Pat::Type(typed) => (&*typed.pat, Some(&typed.ty)),
            other => (other, None),
        };
        if self.let_leaving_early(local, pat, stmts)? {
            return Ok(());
        }
        if let Pat::Wild(_) = pat {
            // `let _ = e;` evaluates `e` for what it does, and keeps nothing.
            if let Some(init) = &local.init {
                if init.diverge.is_some() {
                    return not_yet(local, LET_ELSE);
                }
                self.value_of(&init.expr, stmts)?;
            }
            return Ok(());
        }
        if let Pat::Tuple(_)
        | Pat::Struct(_)
        | Pat::TupleStruct(_)
        | Pat::Reference(_)
        | Pat::Slice(_) = pat
        {
            let Some(init) = &local.init else {
                return self.declare_each(local, pat, annotation.map(|ty| &**ty), stmts);
            };
            if init.diverge.is_some() {
                return not_yet(local, LET_ELSE);
            }
            if self.split_at(pat, &init.expr, stmts)? {
                return Ok(());
            }
            let operand = self.operand(&init.expr, stmts)?;
            let whole = self.as_value(operand, local.span(), stmts);
            let place = Place {
                root: Root::Value(whole),
                projections: Vec::new(),
                span: local.span(),
            };
            return self.destructure(pat, place, stmts);
        }
        let Pat::Ident(binding) = pat else {
            return not_yet(pat, "patterns other than a name or a tuple in `let`");
        };
        if binding.subpat.is_none() && local.init.as_ref().is_some_and(|i| i.diverge.is_none()) {
            let init = &local.init.as_ref().expect("a value").expr;
            // `let r = v.last_mut().unwrap();`: `r` borrows the element.
            if let Some(accessor) = element_access::unwrapped_accessor(init).filter(|accessor| {
                accessor.mutable && binding.by_ref.is_none() && binding.mutability.is_none()
            }) {
                let place = self.accessed_place(&accessor, init.span(), stmts)?;
                self.bind_borrowed(&binding.ident, place, true);
                return Ok(());
            }
            // `let ref mut r = k;`, `let r = &mut v[i];`: `r` borrows the place.
            let borrowed = match (&binding.by_ref, strip(init)) {
                (Some(_), place) if is_place_expression(place) => {
                    Some((place, binding.mutability.is_some()))
                }
                (None, Expr::Reference(reference))
                    if reference.mutability.is_some()
                        && binding.mutability.is_none()
                        && annotation.is_none_or(
                            |ty| matches!(&**ty, syn::Type::Reference(r) if r.mutability.is_some()),
                        )
                        && is_place_expression(strip(&reference.expr)) =>
                {
                    Some((&*reference.expr, true))
                }
                // `let tail = &x[1..];`: a sub-slice is a place, borrowed where it is used.
                (None, Expr::Reference(reference))
                    if binding.mutability.is_none() && is_sub_slice(strip(&reference.expr)) =>
                {
                    Some((&*reference.expr, reference.mutability.is_some()))
                }
                _ => None,
            };
            if let Some((place, mutable)) = borrowed {
                let place = self.place(place, stmts)?;
                self.bind_borrowed(&binding.ident, place, mutable);
                return Ok(());
            }
        }
        if binding.by_ref.is_some() || binding.subpat.is_some() {
            return not_yet(pat, "`ref` bindings");
        }
        if let Some(init) = &local.init {
            if let (Expr::Closure(closure), None, None) =
                (strip(&init.expr), &init.diverge, annotation)
            {
                return self.bind_closure(&binding.ident, closure, stmts);
            }
        }
        let init = match &local.init {
            Some(init) if init.diverge.is_some() => return not_yet(local, LET_ELSE),
            Some(init) => Some(self.noting(|this| {
                if let Some(ty) = annotation {
                    this.expect(&init.expr, ty);
                }
                this.operand(&init.expr, stmts)
            })?),
            None => None,
        };
        let ty = annotation.and_then(|ty| self.annotation(ty));
        // `let dt = 0.5 * h;`, `let k: f64 = ..;`: a float for `dt * v` (`is_a_float`).
        let holds_a_float = match annotation {
            Some(ty) => crate::ast::float_of_type(ty).is_some(),
            None => local
                .init
                .as_ref()
                .is_some_and(|init| self.is_a_float(&init.expr)),
        };
        let built = match &init {
            Some(Operand::Value(value)) => self.user_values.get(&Root::Value(*value)).cloned(),
            _ => None,
        }
        // `let q = pts[0];`, `let a = self.from;`: an element or field of a known type.
        .or_else(|| {
            let init = local.init.as_ref()?;
            self.user_type_written(&init.expr)
        })
        // `let v: Vec3 = a.lerp(b, t);`: the annotation says what the body does not show.
        .or_else(|| match annotation.map(|ty| &**ty) {
            Some(syn::Type::Path(path)) if path.qself.is_none() => {
                self.user_types.type_named(&path.path)
            }
            _ => None,
        });
        // `let mut state = bodies.to_vec();`: a copy of a container of a derived type.
        let built_container = local
            .init
            .as_ref()
            .and_then(|init| match strip(&init.expr) {
                Expr::MethodCall(call)
                    if call.args.is_empty()
                        && matches!(
                            call.method.to_string().as_str(),
                            "clone" | "to_vec" | "to_owned"
                        ) =>
                {
                    let root = self.local_named(&call.receiver)?;
                    self.user_containers.get(&root).cloned()
                }
                _ => None,
            });
        // `let x;` assigned later (in branches, say) is a variable too.
        if binding.mutability.is_some() || init.is_none() {
            // A variable walking a derived value by reference (`rest = tail;` over a list)
            // would be assigned references to parts of other types (`&Box<List>`, coerced).
            if built.is_some()
                && matches!(init, Some(Operand::Value(value)) if self.references.contains(&value))
            {
                return not_yet(
                    local,
                    "variables holding references to values of derived types: walk the value \
                     by recursion, or take it apart with `match`",
                );
            }
            let var = self.new_var(&binding.ident);
            let container = annotation.is_some_and(|ty| names_a_container(ty))
                || matches!(init, Some(Operand::Value(value)) if builds_a_container(value, stmts, &self.containers));
            if container {
                self.containers.insert(var);
            }
            self.vars[var.0 as usize].ty = ty;
            if init.is_none() {
                self.declared_without_value.insert(var);
            }
            if matches!(init, Some(Operand::Value(value)) if self.user_results.contains(&Root::Value(value)))
            {
                self.user_results.insert(Root::Var(var));
            }
            if matches!(init, Some(Operand::Value(value)) if self.linalg_values.contains(&Root::Value(value)))
                || annotation.is_some_and(|ty| crate::ast::is_linalg_type(ty))
            {
                self.user_results.insert(Root::Var(var));
                self.linalg_values.insert(Root::Var(var));
            }
            stmts.push(Stmt::DeclareVar { var, init });
            self.bind(&binding.ident, Root::Var(var));
            if holds_a_float {
                self.known_floats.insert(Root::Var(var));
            }
            if let Some(type_path) = built.clone() {
                self.user_values.insert(Root::Var(var), type_path);
            }
            if let Some(type_path) = built_container.clone() {
                self.user_containers.insert(Root::Var(var), type_path);
            }
        } else if let Some(init) = init {
            let value = self.new_value(Some(binding.ident.clone()), binding.ident.span());
            if holds_a_float {
                self.known_floats.insert(Root::Value(value));
            }
            if let Some(type_path) = built {
                self.user_values.insert(Root::Value(value), type_path);
            }
            if let Some(type_path) = built_container {
                self.user_containers.insert(Root::Value(value), type_path);
            }
            if matches!(init, Operand::Value(result) if self.user_results.contains(&Root::Value(result)))
            {
                self.user_results.insert(Root::Value(value));
            }
            if matches!(init, Operand::Value(result) if self.linalg_values.contains(&Root::Value(result)))
                || annotation.is_some_and(|ty| crate::ast::is_linalg_type(ty))
            {
                self.user_results.insert(Root::Value(value));
                self.linalg_values.insert(Root::Value(value));
            }
            self.values[value.0 as usize].ty = ty;
            if matches!(init, Operand::Value(copied) if self.references.contains(&copied)) {
                self.references.insert(value);
            }
            if matches!(init, Operand::Value(copied) if self.options.contains(&copied)) {
                self.options.insert(value);
            }
            if matches!(init, Operand::Value(copied) if self.built_options.contains(&copied)) {
                self.built_options.insert(value);
            }
            if let Some(param) = self.data_option(&init) {
                self.data_options.insert(value, param);
            }
            stmts.push(Stmt::Let(Let {
                value,
                rvalue: Rvalue::Use(init),
                span: local.span(),
            }));
            self.bind(&binding.ident, Root::Value(value));
        }
        Ok(())
    }

    /// The type written in a `let`, for the code to keep where it only names types of the
    /// language and `std` (the function's float type becomes the scalar type). A type that
    /// names anything else (an alias, a user type) is left to rustc to infer.
    fn annotation(&self, ty: &syn::Type) -> Option<syn::Type> {
        struct Known {
            float: crate::ast::FloatType,
            known: bool,
        }
        impl syn::visit_mut::VisitMut for Known {
            fn visit_type_mut(&mut self, ty: &mut syn::Type) {
                match ty {
                    syn::Type::Path(path) if path.qself.is_none() => {
                        let is_float = path.path.get_ident().is_some_and(|ident| {
                            crate::ast::FloatType::from_ident(ident) == Some(self.float)
                        });
                        if is_float {
                            let scalar = crate::names::scalar_param(path.path.span());
                            *ty = syn::parse_quote!(#scalar);
                            return;
                        }
                        const KNOWN: &[&str] = &["Option", "Vec", "Box", "bool", "char"];
                        let known = path.path.segments.iter().all(|segment| {
                            let name = segment.ident.to_string();
                            KNOWN.contains(&name.as_str())
                                || crate::retype::INTEGER_TYPES.contains(&name.as_str())
                        });
                        self.known &= known;
                    }
                    syn::Type::Path(_) | syn::Type::Macro(_) | syn::Type::ImplTrait(_) => {
                        self.known = false;
                        return;
                    }
                    _ => {}
                }
                syn::visit_mut::visit_type_mut(self, ty);
            }
        }
        let mut ty = ty.clone();
        let mut known = Known {
            float: self.float,
            known: true,
        };
        syn::visit_mut::VisitMut::visit_type_mut(&mut known, &mut ty);
        known.known.then_some(ty)
    }

    /// `left op value;` written at the end of each branch of `right` that makes a value. A
    /// name of `left` bound inside `right` would be another variable there: not taken.
    fn assigned_in_branch_tails(
        &mut self,
        expr: &Expr,
        left: &Expr,
        op: proc_macro2::TokenStream,
        right: &Expr,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<()> {
        let bound_inside = control::names_bound_in(right);
        if crate::retype::mentions_name(left, &|name| bound_inside.contains(name)) {
            return not_yet(
                expr,
                "an assignment whose value leaves early and binds a name of the assigned place: \
                 rename the name bound inside",
            );
        }
        let assign_tail = |value: Expr| -> syn::Stmt {
            syn::parse_quote_spanned!(value.span()=> #left #op #value;)
        };
        match control::into_branch_tails(right, &assign_tail) {
            Some(rewritten) => self.effect(&rewritten, stmts),
            None => not_yet(expr, "a value after an early exit in a block"),
        }
    }

    /// An expression evaluated for its effect.
    fn effect(&mut self, expr: &Expr, stmts: &mut Vec<Stmt>) -> Lowered<()> {
        if let Some(statement) = checkpoints::checkpointed_assignment(expr) {
            return self.checkpointed(&statement, stmts).map(drop);
        }
        if checkpoints::is_checkpointed(expr) {
            return self.checkpointed(expr, stmts).map(drop);
        }
        if has_meaningful_attributes(expr) {
            return not_yet(expr, "attributes on expressions");
        }
        match expr {
            // `s = { if i == 3 { break; } s * x };`, `s += match .. { .. => { if s > 1.0 {
            // break; } w } }`: the value is assigned where it is made, so the path that leaves
            // early needs none (the right side is evaluated before the place is read, as Rust
            // does on numbers).
            Expr::Assign(assign)
                if control::leaves_inside(&assign.right) && self.assigned_before(&assign.left) =>
            {
                let eq = assign.eq_token.to_token_stream();
                self.assigned_in_branch_tails(expr, &assign.left, eq, &assign.right, stmts)
            }
            Expr::Binary(binary)
                if compound_op(&binary.op).is_some()
                    && control::leaves_inside(&binary.right)
                    && self.assigned_before(&binary.left) =>
            {
                let op = binary.op.to_token_stream();
                self.assigned_in_branch_tails(expr, &binary.left, op, &binary.right, stmts)
            }
            Expr::Assign(assign)
                if matches!(
                    &*assign.left,
                    Expr::Tuple(_) | Expr::Array(_) | Expr::Struct(_)
                ) =>
            {
                let operand = self.operand(&assign.right, stmts)?;
                self.assign_parts(&assign.left, operand, stmts)
            }
            Expr::Assign(assign) => {
                let operand = self.operand(&assign.right, stmts)?;
                let place = self.assigned_place(&assign.left, stmts)?;
                stmts.push(Stmt::Assign {
                    place,
                    operand,
                    span: assign.span(),
                });
                Ok(())
            }
            Expr::Binary(binary) => match compound_op(&binary.op) {
                // `p += q` of a value of a derived type the body shows, whose `AddAssign` impl
                // the file differentiates: that `add_assign`, a method changing `p`, as Rust
                // calls it.
                Some(op)
                    if self.user_type_written(&binary.left).is_some_and(|ty| {
                        ty.segments.last().is_some_and(|last| {
                            crate::source_facts::marks_function(
                                &last.ident.to_string(),
                                &format!("{}_assign", op.rule()),
                            )
                        })
                    }) =>
                {
                    let method =
                        quote::format_ident!("{}_assign", op.rule(), span = binary.op.span());
                    let (left, right) = (&binary.left, &binary.right);
                    let call: Expr =
                        syn::parse_quote_spanned!(binary.op.span()=> (#left).#method(#right));
                    self.value_of(&call, stmts).map(drop)
                }
                Some(op) => {
                    // On primitive operands (what `f64` code has) Rust evaluates the right
                    // operand first, then the place.
                    let right = self.operand(&binary.right, stmts)?;
                    let place = self.assigned_place(&binary.left, stmts)?;
                    let old = self.read(place.clone(), binary.left.span(), stmts);
                    let new = self.new_value(None, binary.span());
                    // A value of a type the body does not show (`acc += m * x` of nalgebra
                    // vectors): its type's operator.
                    let rvalue = match self.may_be_user_result(&binary.left, &Operand::Value(old)) {
                        true => Rvalue::Call {
                            callee: Ident::new(op.rule(), binary.op.span()).into(),
                            method: Some(Ident::new(op.rule(), binary.op.span())),
                            args: vec![Operand::Value(old), right],
                            dispatch: Dispatch::Operator,
                        },
                        false => Rvalue::Binary(op, Operand::Value(old), right),
                    };
                    if matches!(rvalue, Rvalue::Call { .. }) {
                        self.user_results.insert(Root::Value(new));
                    }
                    if self.is_linalg_value(&binary.left) {
                        self.linalg_values.insert(Root::Value(new));
                    }
                    stmts.push(Stmt::Let(Let {
                        value: new,
                        rvalue,
                        span: binary.span(),
                    }));
                    stmts.push(Stmt::Assign {
                        place,
                        operand: Operand::Value(new),
                        span: binary.span(),
                    });
                    Ok(())
                }
                None => self.value_of(expr, stmts).map(drop),
            },
            Expr::MethodCall(call)
                if call.method == "push"
                    && call.args.len() == 1
                    && call.turbofish.is_none()
                    && !self.names_a_user_value(&call.receiver) =>
            {
                let place = self.place(&call.receiver, stmts)?;
                if !matches!(place.root, Root::Var(_)) {
                    return not_yet(&call.receiver, "`push` onto anything but a variable");
                }
                // A parameter's adjoint has the length the parameter came with; a `&mut` one's
                // shadow is the caller's, which holds the cotangent of the final contents (and
                // leaves the adjoint of the initial ones).
                if self.param_roots.contains(&place.root)
                    && !self.mutable_references.contains(&place.root)
                {
                    return not_yet(&call.receiver, "`push` onto a parameter");
                }
                let operand = self.operand(&call.args[0], stmts)?;
                let index = self.new_value(None, call.span());
                stmts.push(Stmt::Push {
                    place,
                    operand,
                    index,
                    span: call.span(),
                });
                Ok(())
            }
            _ => self.value_of(expr, stmts).map(drop),
        }
    }

    /// An expression's value, `None` for `()`-valued control flow.
    fn value_of(&mut self, expr: &Expr, stmts: &mut Vec<Stmt>) -> Lowered<Option<Operand>> {
        if checkpoints::is_checkpointed(expr) {
            return self.checkpointed(expr, stmts);
        }
        if let Expr::Call(call) = expr {
            if let Some(value) = self.closure_call(call, stmts)? {
                return Ok(value);
            }
        }
        match expr {
            Expr::If(expr_if) => self.lower_if(expr_if, stmts),
            Expr::Match(expr_match) => self.lower_match(expr_match, stmts),
            Expr::ForLoop(for_loop) => self.lower_for(for_loop, stmts).map(|()| None),
            Expr::Loop(_) | Expr::While(_) => self.lower_loop(expr, stmts),
            Expr::Break(exit) => self
                .lower_loop_exit(exit.label.as_ref(), exit.expr.as_deref(), true, expr, stmts)
                .map(|()| None),
            Expr::Continue(exit) => self
                .lower_loop_exit(exit.label.as_ref(), None, false, expr, stmts)
                .map(|()| None),
            Expr::Return(exit) => self
                .lower_return(exit.expr.as_deref(), expr.span(), stmts)
                .map(|()| None),
            Expr::Block(block) if block.label.is_none() && block.attrs.is_empty() => {
                let lowered = self.block(&block.block)?;
                stmts.extend(lowered.stmts);
                Ok(lowered.result)
            }
            Expr::Assign(_) => self.effect(expr, stmts).map(|()| None),
            // `_ => ()`: the unit an arm that does nothing gives, as `{}` does.
            Expr::Tuple(unit) if unit.elems.is_empty() => Ok(None),
            Expr::MethodCall(call)
                if call.method == "push"
                    && call.args.len() == 1
                    && !self.names_a_user_value(&call.receiver) =>
            {
                self.effect(expr, stmts).map(|()| None)
            }
            Expr::Binary(binary) if compound_op(&binary.op).is_some() => {
                self.effect(expr, stmts).map(|()| None)
            }
            _ => self.operand(expr, stmts).map(Some),
        }
    }
}

/// The names an item of the body declares, or why the IR engine does not take it yet.
fn item_names(item: &syn::Item) -> Lowered<Vec<String>> {
    let ident = match item {
        syn::Item::Const(item) => &item.ident,
        syn::Item::Static(item) => &item.ident,
        syn::Item::Fn(item) => &item.sig.ident,
        syn::Item::Struct(item) => &item.ident,
        syn::Item::Enum(item) => &item.ident,
        syn::Item::Type(item) => &item.ident,
        // Which names a glob brings, only rustc knows (those of the file's modules are
        // written out before: `items::expanded_globs`).
        syn::Item::Use(item) => match crate::ast::imported_names(&item.tree) {
            Some(names) => return Ok(names.iter().map(scope_key).collect()),
            None => return not_yet(item, "glob imports in the body"),
        },
        other => return not_yet(other, "this item in the body"),
    };
    Ok(vec![scope_key(ident)])
}

/// Methods of `Option` whose result is data.
const OPTION_DATA_METHODS: &[&str] = &["is_some", "is_none"];

/// `None`, `Option::None`, `std::option::Option::None`.
fn is_none_path(path: &syn::Path) -> bool {
    path.segments
        .last()
        .is_some_and(|last| last.ident == "None")
        && path
            .segments
            .iter()
            .all(|segment| segment.arguments.is_empty())
}

fn literal(lit: &Lit) -> Constant {
    let kind = match lit {
        Lit::Float(_) => ConstantKind::Float,
        Lit::Int(int) if matches!(int.suffix(), "f32" | "f64") => ConstantKind::Float,
        _ => ConstantKind::Data,
    };
    Constant {
        tokens: lit.to_token_stream(),
        kind,
        span: lit.span(),
    }
}

fn arithmetic_op(op: &syn::BinOp) -> Option<BinaryOp> {
    Some(match op {
        syn::BinOp::Add(_) => BinaryOp::Add,
        syn::BinOp::Sub(_) => BinaryOp::Sub,
        syn::BinOp::Mul(_) => BinaryOp::Mul,
        syn::BinOp::Div(_) => BinaryOp::Div,
        syn::BinOp::Rem(_) => BinaryOp::Rem,
        _ => return None,
    })
}

fn compound_op(op: &syn::BinOp) -> Option<BinaryOp> {
    Some(match op {
        syn::BinOp::AddAssign(_) => BinaryOp::Add,
        syn::BinOp::SubAssign(_) => BinaryOp::Sub,
        syn::BinOp::MulAssign(_) => BinaryOp::Mul,
        syn::BinOp::DivAssign(_) => BinaryOp::Div,
        syn::BinOp::RemAssign(_) => BinaryOp::Rem,
        _ => return None,
    })
}

/// Counts the identifiers of `tokens`, by the name a scope knows them by.
fn count_names(tokens: proc_macro2::TokenStream, counts: &mut HashMap<String, usize>) {
    for tree in tokens {
        match tree {
            proc_macro2::TokenTree::Ident(ident) => {
                *counts.entry(scope_key(&ident)).or_default() += 1;
            }
            proc_macro2::TokenTree::Group(group) => count_names(group.stream(), counts),
            _ => {}
        }
    }
}

/// The name a scope knows an identifier by: `r#y` is `y`.
pub(super) fn scope_key(name: &Ident) -> String {
    syn::ext::IdentExt::unraw(name).to_string()
}

/// Whether the derivative code lifts a data parameter of this type to the scalar type (its
/// floats, in `Option`s, containers and tuples): a float in it, not inside a type of the
/// user's, which stays as it is.
fn lifted(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(reference) => lifted(&reference.elem),
        syn::Type::Paren(paren) => lifted(&paren.elem),
        syn::Type::Array(array) => lifted(&array.elem),
        syn::Type::Slice(slice) => lifted(&slice.elem),
        syn::Type::Tuple(tuple) => tuple.elems.iter().any(lifted),
        syn::Type::Path(path) if path.qself.is_none() => {
            let Some(last) = path.path.segments.last() else {
                return false;
            };
            if crate::ast::float_of_type(ty).is_some() {
                return true;
            }
            let std_wrapper = ["Option", "Vec", "Box"]
                .iter()
                .any(|name| last.ident == name);
            std_wrapper
                && match &last.arguments {
                    syn::PathArguments::AngleBracketed(args) => args.args.iter().any(
                        |arg| matches!(arg, syn::GenericArgument::Type(inner) if lifted(inner)),
                    ),
                    _ => false,
                }
        }
        _ => crate::ast::first_float_in(ty).is_some(),
    }
}

/// `Vec<N>` or `[N; len]` for a primitive number type `N`, taken by value.
fn holds_numbers(ty: &syn::Type) -> bool {
    !matches!(ty, syn::Type::Reference(_))
        && crate::ast::container_element(ty).is_some_and(iterators::names_a_number)
}

fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(paren) => strip(&paren.expr),
        Expr::Group(group) => strip(&group.expr),
        other => other,
    }
}

/// Whether a condition is a `let` chain (`let Some(v) = o && v > 0.0`): a `let` in it, not
/// one of an `if let` or a `while let` nested in it, nor in a block or a closure.
fn contains_let(expr: &Expr) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_let(&mut self, _: &'ast syn::ExprLet) {
            self.0 = true;
        }
        fn visit_expr_if(&mut self, _: &'ast syn::ExprIf) {}
        fn visit_expr_while(&mut self, _: &'ast syn::ExprWhile) {}
        fn visit_block(&mut self, _: &'ast syn::Block) {}
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    let mut finder = Finder(false);
    finder.visit_expr(expr);
    finder.0
}

/// What the IR engine calls an expression it does not lower yet.
fn expression_kind(expr: &Expr) -> &'static str {
    match expr {
        Expr::Array(_) => "array literals",
        Expr::Assign(_) => "assignments inside expressions",
        Expr::Async(_) | Expr::Await(_) => "`async`",
        Expr::Break(_) => "`break`",
        Expr::Closure(_) => "closures",
        Expr::Const(_) => "inline `const`",
        Expr::Continue(_) => "`continue`",
        Expr::ForLoop(_) => "loops used as values",
        Expr::Let(_) => "`let` in conditions",
        Expr::Loop(_) => "`loop`",
        Expr::Macro(_) => "macros",
        Expr::Match(_) => "`match`",
        Expr::Repeat(_) => "array repeat literals",
        Expr::Return(_) => "`return`",
        Expr::Struct(_) => "struct literals",
        Expr::Try(_) => "`?`",
        Expr::Tuple(_) => "tuples",
        Expr::Unsafe(_) => "`unsafe`",
        Expr::While(_) => "`while`",
        _ => "this expression",
    }
}

/// `Option<f64>`, `Option<usize>`: an option of a number, which is `Copy`.
fn is_option_of_numbers(ty: &syn::Type) -> bool {
    crate::ast::option_element(ty).is_some_and(iterators::names_a_number)
}

/// Whether a type names `Option` anywhere in it (`Option<f64>`, `&Option<Vec<f64>>`).
fn names_an_option(ty: &syn::Type) -> bool {
    ty.to_token_stream()
        .into_iter()
        .any(|token| matches!(token, proc_macro2::TokenTree::Ident(ident) if ident == "Option"))
}

/// Whether a name is written as Rust names constants and statics (`RK4_A`, `WEIGHTS`).
fn names_a_constant(ident: &Ident) -> bool {
    let name = ident.to_string();
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Whether a written type is a `Vec` or an array.
fn names_a_container(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Array(_) => true,
        syn::Type::Path(path) => path
            .path
            .segments
            .last()
            .is_some_and(|last| last.ident == "Vec"),
        _ => false,
    }
}

/// Whether `value` was built as a `Vec` or an array by the statements just lowered
/// (`vec![..]`, `[..]`, `Vec::new()`, `to_vec()`, `clone()` of one, a `collect`ed chain).
fn builds_a_container(
    value: Value,
    stmts: &[Stmt],
    containers: &std::collections::HashSet<Var>,
) -> bool {
    stmts.iter().rev().find_map(|stmt| match stmt {
        Stmt::Let(Let {
            value: defined,
            rvalue,
            ..
        }) if *defined == value => Some(match rvalue {
            Rvalue::Elements(..) | Rvalue::Repeat(..) | Rvalue::EmptyVec(_) => true,
            Rvalue::Duplicate { method, .. } => method == "to_vec" || method == "clone",
            Rvalue::Use(Operand::Place(Place {
                root: Root::Var(var),
                projections,
                ..
            })) => projections.is_empty() && containers.contains(var),
            _ => false,
        }),
        _ => None,
    }) == Some(true)
}
