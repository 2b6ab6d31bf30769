//! The AD-IR: a function body lowered once from syn, for reverse mode to analyse and emit.
//!
//! * ANF: every operation is one `Let` of a fresh [`Value`], whose operands are values,
//!   constants or places; nothing nests.
//! * SSA for values: a `let` without `mut` and every temporary is a [`Value`], assigned once.
//! * Mutable variables are [`Var`]s, read and written through [`Place`]s (a root plus index,
//!   field and deref projections), the way MIR treats locals. Reverse mode gives each place a
//!   shadow: the adjoint of `v[i]` is `dv[i]`.
//! * Control flow stays structured (`If`, `For`), so the emitter can mirror it.
//! * Every node keeps the span of the user's code it came from.
//!
//! `lower` builds it, `activity` asks which values carry derivatives, `crate::expand::reverse_ir`
//! emits Rust from it.

pub mod activity;
pub mod checkpoint;
pub mod eager_sums;
pub mod increments;
pub mod induction;
pub mod loop_fusion;
pub mod lower;
pub mod plain;
pub mod reads;
pub mod residuals;
pub mod restore;
pub mod validate;

use proc_macro2::{Span, TokenStream};
use syn::{Ident, Member};

pub use crate::rules::FloatMethodRule;

/// An SSA value: defined by exactly one `Let` (or bound as a parameter or loop variable).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Value(pub u32);

/// A mutable variable (`let mut`, a `mut` parameter): the root of places that are written.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Var(pub u32);

pub struct ValueInfo {
    /// The user's name, when the value is a `let` binding or a parameter (for readable code).
    pub name: Option<Ident>,
    pub span: Span,
    /// The type the user wrote for it (`let o: Option<f64> = None`), over the scalar type.
    pub ty: Option<syn::Type>,
}

pub struct VarInfo {
    pub name: Ident,
    pub span: Span,
    pub ty: Option<syn::Type>,
}

/// What an operation reads.
#[derive(Clone)]
pub enum Operand {
    Value(Value),
    /// A literal or a path that is not a local (a `const`, `f64::consts::PI`): no derivative.
    Constant(Constant),
    /// A place read as a whole (`v` passed to `len`, a slice parameter indexed).
    Place(Place),
}

#[derive(Clone)]
pub struct Constant {
    pub tokens: TokenStream,
    pub kind: ConstantKind,
    pub span: Span,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ConstantKind {
    /// A float literal (`2.0`, `1e-3`, `2.0_f64`): lifted to the scalar type.
    Float,
    /// An integer, bool, char or string literal: data.
    Data,
    /// A path: lifted when it turns out to be a float (decided by its type, at run time of
    /// the type checker).
    Path,
}

#[derive(Clone)]
pub struct Place {
    pub root: Root,
    pub projections: Vec<Projection>,
    pub span: Span,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Root {
    Value(Value),
    Var(Var),
}

#[derive(Clone)]
pub enum Projection {
    /// `[i]`: the index is data.
    Index(Operand),
    /// `[a..b]` (also `[a..]`, `[..b]`, `[..]`, their bounds made explicit): a sub-slice, its
    /// bounds data. A place ending in one is unsized: it is borrowed, indexed or iterated,
    /// never read whole.
    Slice(Operand, Operand),
    Field(Member),
    Deref,
}

impl Projection {
    /// The data operands the projection reads (an index, a sub-slice's bounds).
    pub fn operands(&self) -> impl Iterator<Item = &Operand> {
        let (first, second) = match self {
            Projection::Index(index) => (Some(index), None),
            Projection::Slice(start, end) => (Some(start), Some(end)),
            Projection::Field(_) | Projection::Deref => (None, None),
        };
        first.into_iter().chain(second)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl BinaryOp {
    pub fn rule(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Rem => "rem",
        }
    }
}

/// Operations whose result is data whatever their operands (comparisons, `!`, bit operations):
/// emitted as written.
#[derive(Clone)]
pub struct DataOp {
    pub op: TokenStream,
}

pub struct Let {
    pub value: Value,
    pub rvalue: Rvalue,
    pub span: Span,
}

pub enum Rvalue {
    Use(Operand),
    /// Arithmetic with a rule: `+ - * / %`.
    Binary(BinaryOp, Operand, Operand),
    /// Unary minus.
    Neg(Operand),
    /// A binary operation whose result is data (`<`, `==`, `&`, ...).
    DataBinary(DataOp, Operand, Operand),
    /// `!x`.
    Not(Operand),
    /// A method of a float with a rule in `ad_runtime::rules` (`x.sin()`, `x.powi(n)`).
    FloatMethod {
        rule: FloatMethodRule,
        receiver: Operand,
        args: Vec<Operand>,
        method: Ident,
    },
    /// `v.len()` and other methods whose result is data.
    DataMethod {
        receiver: Operand,
        method: Ident,
        args: Vec<Operand>,
    },
    /// A method without a rule, called on data alone (`cfg.mid()`, `seen.insert(0, k)`,
    /// `data.map_or(0, |f| f + 1)`): the plain method, its float arguments plain floats and
    /// its result lifted to the scalar type. It may change its receiver. Validation refuses
    /// one whose receiver or arguments carry derivatives.
    PlainMethod {
        receiver: Operand,
        method: Ident,
        args: Vec<Operand>,
        /// Whether the receiver holds plain floats (a data parameter of a type the lifting
        /// leaves as it is, `cfg: &Cfg`, or a part of one): its float arguments are plain
        /// too. Otherwise (a local) they are of the scalar type, as the receiver's.
        plain: bool,
    },
    /// `x as T`.
    Cast(Operand, syn::Type),
    /// A call of a differentiated function (`g(x, &v)`): through its reverse companion. For a
    /// method of a derived type (`p.norm()`), `method` names it, `callee` is the type, and the
    /// receiver is the first argument.
    Call {
        callee: syn::Path,
        method: Option<Ident>,
        args: Vec<Operand>,
        dispatch: Dispatch,
    },
    /// `&place` (the operand is an `Operand::Place`).
    Ref(Operand),
    /// `&mut place` of data, passed to a call that may write through it (`bump(&mut k)`,
    /// `std::mem::swap(&mut a, &mut b)`): a write of the place's root where it is taken.
    /// Validation refuses one of a place carrying derivatives. The operand is an
    /// `Operand::Place`.
    RefMut(Operand),
    /// `(a, b, ..)`.
    Tuple(Vec<Operand>),
    /// A variable's value moved out, the variable left with its type's default: `return v`
    /// where the flags that structure exits let rustc think `v` may be read again.
    Take(Operand),
    /// `vec![element; count]`, `[element; N]`.
    Repeat(Sequence, Operand, Operand),
    /// `vec![a, b, ..]`, `[a, b, ..]`.
    Elements(Sequence, Vec<Operand>),
    /// `Vec::new()`, `Vec::with_capacity(n)`.
    EmptyVec(Option<Operand>),
    /// Whether a value of data matches a pattern that binds nothing (`matches!(s, 0 | 2..=4)`).
    Matches(Operand, Box<syn::Pat>),
    /// `Some(x)`.
    Some(Operand),
    /// `Ok(x)` of a function's fallible result: as `Some(x)`, its adjoint an option.
    Ok(Operand),
    /// `Err(e)`: data.
    Err(Operand),
    /// `o.unwrap()`, `o.expect(message)`: the option's content.
    Unwrap {
        option: Operand,
        method: Ident,
        args: Vec<Operand>,
    },
    /// The values a pattern's names bind, as a tuple in the order of `names`, inside the
    /// branch where it matched (`Some((a, _))` on an option gives `(a,)`).
    Extract {
        scrutinee: Operand,
        pattern: Box<syn::Pat>,
        names: Vec<Ident>,
        /// Whether the pattern takes apart data only (`lower::patterns::only_for_data`):
        /// validation refuses it on a value that carries derivatives.
        data_only: bool,
    },
    /// A value of a derived type built in the body (`Point { x, y }`, `Shape::Circle(r)`,
    /// `Shape::Empty`): the twin's path over the scalar type, the adjoint's, and each field's
    /// value (tuple fields by index).
    Construct {
        twin: syn::Path,
        adjoint: syn::Path,
        /// The path as written, for a value built as plain data (`ir::plain`).
        path: syn::Path,
        fields: Vec<(Member, Operand)>,
        form: ConstructForm,
    },
    /// `v.clone()`, `v.to_vec()`, `v.to_owned()`: a copy, whose adjoint goes to the original.
    Duplicate {
        receiver: Operand,
        method: Ident,
    },
    /// A `std` macro that reads values and gives data (`println!`, `format!`, `assert!`,
    /// `panic!`, ...): its arguments as operands, a named argument (`x = ..`, and each name a
    /// format string reads inline) with its name.
    Macro {
        path: syn::Path,
        args: Vec<(Option<Ident>, Operand)>,
    },
    /// `a..b`, `a..=b`: data.
    Range {
        start: Option<Operand>,
        end: Option<Operand>,
        inclusive: bool,
    },
}

/// How a call reaches what it calls.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dispatch {
    /// Through `callee`: the function's companion, or the companion a method's type has.
    Path,
    /// A method of whatever derived type the receiver (the first argument, a reference)
    /// turns out to be, which the body does not show (`a.lerp(b, t).norm()`): called on the
    /// receiver, through the twin's methods that `#[reverse]` on the type's `impl` block
    /// gives it (`twins`); `callee` is only the method's name.
    Receiver,
    /// An operator (`method` is `add`, `sub`, `mul`, `div`, `rem`, or `neg` with one
    /// argument) whose left operand is of a type the body does not show (a method returned
    /// it): `a.__ad_reverse_mul(b)`, the twin's or a float's (`ir::ReverseOperators`); on
    /// data the operator itself.
    Operator,
    /// A plain function of the file, not annotated (`plain_calls`): one generic over its
    /// float type runs at dual numbers; any other is called on data only.
    Plain,
    /// A plain function of the file whose result holds no float (`fn in_range(v: &[f64]) ->
    /// bool`): run at the primal values of what it is given, its result data
    /// (`plain_calls::runs_at_primals`).
    AtPrimals,
    /// Another function's generic derivative code (`g::grad` for `g_grad`): run at dual
    /// numbers, its local Jacobian taken by forward mode (`plain_calls`), so that derivatives
    /// nest in any order.
    Nested,
    /// A function given closures (`ClosureCall`, by index in `Body::closure_calls`): its
    /// forward code run at dual numbers, the closures written over them and their captured
    /// variables seeded, and its local Jacobian taken by forward mode.
    WithClosures(u32),
}

/// How a constructor is written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ConstructForm {
    /// `T { a: x, b: y }`.
    Named,
    /// `T(x, y)`.
    Tuple,
    /// `T` (a unit variant).
    Unit,
}

/// What `vec![..]` and `[..]` build.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Sequence {
    Vec,
    Array,
}

pub enum Stmt {
    Let(Let),
    /// `let mut name = init;` (or without init).
    DeclareVar {
        var: Var,
        init: Option<Operand>,
    },
    /// `place = operand` (compound assignment is lowered to a read, an operation and this).
    Assign {
        place: Place,
        operand: Operand,
        span: Span,
    },
    /// `place.push(operand)`; `index` is the place's length before, where the element goes.
    Push {
        place: Place,
        operand: Operand,
        index: Value,
        span: Span,
    },
    If {
        cond: Operand,
        then_branch: Block,
        else_branch: Block,
        /// The value the `if` gives, defined by both branches' results.
        result: Option<Value>,
        span: Span,
    },
    /// `for pat in start..end` over a range.
    For {
        binding: Value,
        range: Operand,
        body: Block,
        /// When the body can leave the loop early.
        flags: Option<LoopFlags>,
        span: Span,
    },
    /// `loop` (and `while`, lowered to a `loop` whose body tests the condition first): runs
    /// until its `broken` flag is set.
    Loop {
        body: Block,
        flags: LoopFlags,
        span: Span,
    },
    /// `#[checkpoint]` on a statement, a block, a `let`'s value or a loop: the region runs
    /// without recording in the forward sweep, its inputs kept; the backward sweep runs it
    /// again from them, recording, and back-propagates through that run. With a schedule the
    /// region is one loop (`For` or `Loop`), whose state is kept as the schedule says and
    /// which the backward sweep runs again segment by segment
    /// (`ad_runtime::checkpoint::Checkpoints`).
    Checkpoint {
        body: Block,
        schedule: Option<Schedule>,
        /// The value the region gives (`let y = #[checkpoint] { .. };`): its body's result.
        result: Option<Value>,
        /// The shared references among the values it reads from before it (a slice
        /// parameter): kept as owned copies, which the region borrows again when it runs again.
        borrowed: Vec<Value>,
        span: Span,
    },
}

/// How a checkpointed loop keeps its state (`ad_runtime::checkpoint::Schedule`); the count is
/// data.
#[derive(Clone)]
pub enum Schedule {
    /// `every = k`: the state every `k` iterations.
    Every(Operand),
    /// `binomial, snapshots = s`: Griewank's binomial schedule with at most `s` states.
    Binomial(Operand),
}

impl Schedule {
    pub fn count(&self) -> &Operand {
        match self {
            Schedule::Every(count) | Schedule::Binomial(count) => count,
        }
    }
}

/// `break`, `continue` and `return` are lowered to flags, so control flow stays structured:
/// an exit sets `skip` (the rest of the iteration is guarded by `!skip`) and, for a `break`,
/// `broken` (the loop stops at the end of the iteration). Both are data variables.
#[derive(Clone, Copy)]
pub struct LoopFlags {
    pub skip: Var,
    pub broken: Var,
}

pub struct Block {
    pub stmts: Vec<Stmt>,
    pub result: Option<Operand>,
}

pub struct Body {
    pub values: Vec<ValueInfo>,
    pub vars: Vec<VarInfo>,
    /// One value (or var, for a `mut` parameter) per parameter, in declared order.
    pub params: Vec<Root>,
    pub block: Block,
    /// Items declared in the body (`const`s, helper `fn`s, `use`s): ordinary code, kept as
    /// written where the derivative code can name them.
    pub items: Vec<syn::Item>,
    /// The derived types of the `#[grad]` parameters: their twins and adjoints are named
    /// through aliases declared at the top of the derivative code.
    pub user_types: crate::user_types::UserTypes,
    /// References (`Rvalue::Ref`) to a value of a derived type the body holds (not itself a
    /// reference), passed as a method's receiver: the method's companion takes a copy for a
    /// `self` method, the reference for a `&self` one (`ad_runtime::__private::receiver`).
    pub receivers: std::collections::HashSet<Value>,
    /// References (`Rvalue::Ref` of `source[i]`) to the items of a `for` over a local whose
    /// type the code does not show (`for k in knots`, `knots` bound by a pattern or returned
    /// by a call): the runtime's `ForItems` gives the item as that type's `for` does, a
    /// reference for a borrowed container, the element for an owned one.
    pub iterated: std::collections::HashSet<Value>,
    /// The closures passed to calls (`Dispatch::WithClosures` indexes them).
    pub closure_calls: Vec<ClosureCall>,
    /// Values and variables holding nalgebra vectors or matrices: their adjoints start as
    /// zeros of their shape (a dynamically sized one cannot grow to where its elements are
    /// reached, as a `Vec`'s does, without knowing its number of rows).
    pub linalg: std::collections::HashSet<Root>,
}

/// A call that passes closures (`integrate(|t| (k * t).sin(), a, b)`): the closures, by
/// argument position, and the variables they capture, which follow the call's arguments as
/// arguments of their own (their adjoints come back through the call's pullback).
pub struct ClosureCall {
    /// By argument position: the closure, and whether it is lent (`&|y| ..`).
    pub closures: Vec<(usize, syn::ExprClosure, bool)>,
    pub captured: Vec<Ident>,
}

impl Stmt {
    /// `if cond { stmts }`, giving no value.
    pub fn when(cond: Operand, stmts: Vec<Stmt>, span: Span) -> Stmt {
        Stmt::If {
            cond,
            then_branch: Block {
                stmts,
                result: None,
            },
            else_branch: Block {
                stmts: Vec::new(),
                result: None,
            },
            result: None,
            span,
        }
    }
}

impl Body {
    pub fn value_info(&self, value: Value) -> &ValueInfo {
        &self.values[value.0 as usize]
    }

    pub fn var_info(&self, var: Var) -> &VarInfo {
        &self.vars[var.0 as usize]
    }
}

impl Operand {
    pub fn span(&self, body: &Body) -> Span {
        match self {
            Operand::Value(value) => body.value_info(*value).span,
            Operand::Constant(constant) => constant.span,
            Operand::Place(place) => place.span,
        }
    }
}

/// Calls `visit` on every statement of `block` and of the blocks nested in it, outermost
/// first.
pub fn for_each_stmt<'b>(block: &'b Block, visit: &mut impl FnMut(&'b Stmt)) {
    for stmt in &block.stmts {
        visit_nested(stmt, visit);
    }
}

/// Calls `visit` on `stmt` and on every statement of the blocks nested in it, outermost first.
pub fn visit_nested<'b>(stmt: &'b Stmt, visit: &mut impl FnMut(&'b Stmt)) {
    visit(stmt);
    match stmt {
        Stmt::If {
            then_branch,
            else_branch,
            ..
        } => {
            for_each_stmt(then_branch, visit);
            for_each_stmt(else_branch, visit);
        }
        Stmt::For { body, .. } | Stmt::Loop { body, .. } | Stmt::Checkpoint { body, .. } => {
            for_each_stmt(body, visit)
        }
        _ => {}
    }
}

/// The operation that defines each value `block` and the blocks nested in it define by a
/// `Let`.
pub fn definitions(block: &Block) -> std::collections::HashMap<Value, &Rvalue> {
    let mut definitions = std::collections::HashMap::new();
    for_each_stmt(block, &mut |stmt| {
        if let Stmt::Let(Let { value, rvalue, .. }) = stmt {
            definitions.insert(*value, rvalue);
        }
    });
    definitions
}

/// The value `value` is a copy of, through copies (itself when it is none): a fused loop's
/// second binding, an index `ir::reads` made a copy of an equal one.
pub fn copied_value(
    definitions: &std::collections::HashMap<Value, &Rvalue>,
    mut value: Value,
) -> Value {
    while let Some(Rvalue::Use(Operand::Value(copied))) = definitions.get(&value) {
        value = *copied;
    }
    value
}

/// A data operand's identity, for comparing bounds and indices: the value it copies (values
/// are SSA, so equal keys hold equal numbers) or the integer literal.
pub fn data_key(
    definitions: &std::collections::HashMap<Value, &Rvalue>,
    operand: &Operand,
) -> Option<String> {
    match operand {
        Operand::Value(value) => Some(format!("{:?}", copied_value(definitions, *value))),
        Operand::Constant(constant) if constant.kind == ConstantKind::Data => {
            Some(constant.tokens.to_string())
        }
        _ => None,
    }
}

/// The bounds, by [`data_key`], of the exclusive range `start..end` that `range` goes back to.
pub fn range_keys(
    definitions: &std::collections::HashMap<Value, &Rvalue>,
    range: &Operand,
) -> Option<(String, String)> {
    let Operand::Value(value) = range else {
        return None;
    };
    match definitions.get(&copied_value(definitions, *value))? {
        Rvalue::Range {
            start: Some(start),
            end: Some(end),
            inclusive: false,
        } => Some((data_key(definitions, start)?, data_key(definitions, end)?)),
        _ => None,
    }
}

/// The operation a value comes from, through copies (`let t = [a, b];` binds a copy of the
/// array built; `ir::reads` turns a second read into a copy of the first).
pub fn through_copies<'b>(
    definitions: &std::collections::HashMap<Value, &'b Rvalue>,
    mut rvalue: &'b Rvalue,
) -> &'b Rvalue {
    while let Rvalue::Use(Operand::Value(copied)) = rvalue {
        match definitions.get(copied) {
            Some(definition) => rvalue = definition,
            None => break,
        }
    }
    rvalue
}

/// `Err(..)` (as `Err`, `Result::Err` or `std::result::Result::Err`): the error of a fallible
/// result, which is data.
pub fn is_error_pattern(pattern: &syn::Pat) -> bool {
    matches!(pattern, syn::Pat::TupleStruct(variant)
        if variant.qself.is_none() && crate::ast::is_result_variant(&variant.path, "Err"))
}

/// Functions called on data only, as written: `std::mem::swap`, `replace` or `take` (also
/// through `core`, or `mem::` after a `use`), and what a generic function's `T::from_f64(2.5)`
/// or `T::one()` became (`generics::reverse_instance`).
pub fn runs_as_written(path: &syn::Path) -> bool {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    match names[..] {
        ["std" | "core", "mem", "swap" | "replace" | "take"]
        | ["mem", "swap" | "replace" | "take"] => true,
        ["ad_runtime", "__private", "generic_float", _]
        | ["ad_runtime", "__private", "ir", "convert_error"] => path.leading_colon.is_some(),
        _ => false,
    }
}

/// The root a statement writes to, replaces or moves out of by itself (not counting the
/// statements nested in it): an assignment, a push, a declaration, a `Take`.
pub fn written_root(stmt: &Stmt) -> Option<Root> {
    match stmt {
        Stmt::Let(Let {
            rvalue: Rvalue::Take(Operand::Place(place)),
            ..
        })
        | Stmt::Assign { place, .. }
        | Stmt::Push { place, .. } => Some(place.root),
        Stmt::DeclareVar { var, .. } => Some(Root::Var(*var)),
        Stmt::Let(Let {
            rvalue: Rvalue::RefMut(Operand::Place(place)),
            ..
        }) => Some(place.root),
        // A method without a rule may change its receiver.
        Stmt::Let(Let {
            rvalue:
                Rvalue::PlainMethod {
                    receiver: Operand::Place(place),
                    ..
                },
            ..
        }) => Some(place.root),
        _ => None,
    }
}

/// The variables declared once, with a value, at the function's top level, and written after
/// that only element by element (`v[i] = x`, `v[i][j] = x`): their length is the one they were
/// declared with until the end (no push, no assignment of the whole, no move out).
pub fn fixed_length_vars(body: &Body) -> std::collections::HashSet<Var> {
    let mut declarations = std::collections::HashMap::<Var, usize>::new();
    let mut changed = std::collections::HashSet::new();
    for_each_stmt(&body.block, &mut |stmt| {
        if let Stmt::DeclareVar { var, .. } = stmt {
            *declarations.entry(*var).or_default() += 1;
            return;
        }
        let Some(Root::Var(var)) = written_root(stmt) else {
            return;
        };
        let element_wise = matches!(
            stmt,
            Stmt::Assign { place, .. } if matches!(place.projections.first(), Some(Projection::Index(_)))
        );
        if !element_wise {
            changed.insert(var);
        }
    });
    body.block
        .stmts
        .iter()
        .filter_map(|stmt| match stmt {
            Stmt::DeclareVar { var, init: Some(_) }
                if declarations.get(var) == Some(&1) && !changed.contains(var) =>
            {
                Some(*var)
            }
            _ => None,
        })
        .collect()
}

/// The value a statement defines for what follows it (a loop's binding is its body's).
pub fn defined_value(stmt: &Stmt) -> Option<Value> {
    match stmt {
        Stmt::Let(Let { value, .. }) => Some(*value),
        Stmt::Push { index, .. } => Some(*index),
        Stmt::If { result, .. } | Stmt::Checkpoint { result, .. } => *result,
        Stmt::For { binding, .. } => Some(*binding),
        Stmt::DeclareVar { .. } | Stmt::Assign { .. } | Stmt::Loop { .. } => None,
    }
}

/// The operands a statement reads by itself, besides those of a `Let`'s operation
/// ([`operands`]): a declaration's initial value, what is assigned or pushed, a condition and
/// the branches' results, a loop's range.
pub fn stmt_operands(stmt: &Stmt) -> Vec<&Operand> {
    match stmt {
        Stmt::Let(Let { rvalue, .. }) => operands(rvalue),
        Stmt::DeclareVar { init, .. } => init.iter().collect(),
        Stmt::Assign { operand, .. } | Stmt::Push { operand, .. } => vec![operand],
        Stmt::If {
            cond,
            then_branch,
            else_branch,
            ..
        } => std::iter::once(cond)
            .chain(&then_branch.result)
            .chain(&else_branch.result)
            .collect(),
        Stmt::For { range, .. } => vec![range],
        Stmt::Loop { .. } => Vec::new(),
        Stmt::Checkpoint { body, schedule, .. } => body
            .result
            .iter()
            .chain(schedule.as_ref().map(Schedule::count))
            .collect(),
    }
}

/// Every operand a statement reads by itself ([`stmt_operands`]), with the indices of the
/// place it writes and the result of a loop's body.
pub fn stmt_reads(stmt: &Stmt) -> Vec<&Operand> {
    let mut reads = stmt_operands(stmt);
    if let Stmt::Assign { place, .. } | Stmt::Push { place, .. } = stmt {
        reads.extend(place.projections.iter().flat_map(Projection::operands));
    }
    if let Stmt::For { body, .. } | Stmt::Loop { body, .. } = stmt {
        reads.extend(&body.result);
    }
    reads
}

/// Every operand an operation reads.
pub fn operands(rvalue: &Rvalue) -> Vec<&Operand> {
    match rvalue {
        Rvalue::Use(operand)
        | Rvalue::Neg(operand)
        | Rvalue::Not(operand)
        | Rvalue::Cast(operand, _)
        | Rvalue::Ref(operand)
        | Rvalue::RefMut(operand)
        | Rvalue::Take(operand)
        | Rvalue::Matches(operand, _)
        | Rvalue::Some(operand)
        | Rvalue::Ok(operand)
        | Rvalue::Err(operand)
        | Rvalue::Extract {
            scrutinee: operand, ..
        }
        | Rvalue::Duplicate {
            receiver: operand, ..
        } => vec![operand],
        Rvalue::Binary(_, left, right)
        | Rvalue::DataBinary(_, left, right)
        | Rvalue::Repeat(_, left, right) => vec![left, right],
        Rvalue::FloatMethod { receiver, args, .. }
        | Rvalue::DataMethod { receiver, args, .. }
        | Rvalue::PlainMethod { receiver, args, .. }
        | Rvalue::Unwrap {
            option: receiver,
            args,
            ..
        } => std::iter::once(receiver).chain(args).collect(),
        Rvalue::Call { args, .. } | Rvalue::Tuple(args) | Rvalue::Elements(_, args) => {
            args.iter().collect()
        }
        Rvalue::EmptyVec(capacity) => capacity.iter().collect(),
        Rvalue::Macro { args, .. } => args.iter().map(|(_, arg)| arg).collect(),
        Rvalue::Construct { fields, .. } => fields.iter().map(|(_, value)| value).collect(),
        Rvalue::Range { start, end, .. } => start.iter().chain(end).collect(),
    }
}

/// The function's block and every block nested in it (branches, loop bodies) but the
/// checkpointed regions' own, whose code runs twice, its backward code from its second run:
/// the blocks a pass may look along, statement after statement.
pub fn straight_blocks(body: &Body) -> Vec<&Block> {
    let mut blocks = vec![&body.block];
    for_each_stmt(&body.block, &mut |stmt| match stmt {
        Stmt::If {
            then_branch,
            else_branch,
            ..
        } => blocks.extend([then_branch, else_branch]),
        Stmt::For { body, .. } | Stmt::Loop { body, .. } => blocks.push(body),
        _ => {}
    });
    blocks
}

/// How many times each value is read: as an operand, as a place's root or index, or as a
/// block's result.
pub fn use_counts(body: &Body) -> std::collections::HashMap<Value, usize> {
    let mut uses = std::collections::HashMap::<Value, usize>::new();
    fn count_operand(operand: &Operand, uses: &mut std::collections::HashMap<Value, usize>) {
        match operand {
            Operand::Value(value) => *uses.entry(*value).or_default() += 1,
            Operand::Place(place) => {
                if let Root::Value(value) = place.root {
                    *uses.entry(value).or_default() += 1;
                }
                for index in place.projections.iter().flat_map(Projection::operands) {
                    count_operand(index, uses);
                }
            }
            Operand::Constant(_) => {}
        }
    }
    for_each_stmt(&body.block, &mut |stmt| {
        for operand in stmt_reads(stmt) {
            count_operand(operand, &mut uses);
        }
        if let Stmt::Assign { place, .. } | Stmt::Push { place, .. } = stmt {
            if let Root::Value(value) = place.root {
                *uses.entry(value).or_default() += 1;
            }
        }
    });
    if let Some(result) = &body.block.result {
        count_operand(result, &mut uses);
    }
    uses
}

/// Values `r = &place` passed once, to a call later in the same block, and read nowhere else:
/// the callee's adjoint of the argument can go straight to the place's shadow (a borrow
/// keeps the place unchanged until the call), with no adjoint of the reference itself. A
/// place through a field or a `Deref` is left out: its reads add to the field's adjoint by
/// their own rule.
pub fn aliased_arguments(body: &Body) -> std::collections::HashMap<Value, Place> {
    let uses = use_counts(body);
    let mut aliased = std::collections::HashMap::new();
    for block in straight_blocks(body) {
        let mut references = std::collections::HashMap::new();
        for stmt in &block.stmts {
            let Stmt::Let(Let { value, rvalue, .. }) = stmt else {
                continue;
            };
            match rvalue {
                Rvalue::Ref(Operand::Place(place))
                    if !place.projections.iter().any(|projection| {
                        matches!(projection, Projection::Field(_) | Projection::Deref)
                    }) =>
                {
                    references.insert(*value, place.clone());
                }
                Rvalue::Call { args, .. } => {
                    for arg in args {
                        if let Operand::Value(arg) = arg {
                            if uses.get(arg) == Some(&1) {
                                if let Some(place) = references.remove(arg) {
                                    aliased.insert(*arg, place);
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
    aliased
}
