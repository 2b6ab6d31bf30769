//! The random-program generator: well-typed Rust functions over `f64` scalars, slices and
//! integers, written from the constructs the guide says both modes support.
//!
//! Text is emitted directly from a typed environment (what is in scope, of which type, of
//! which length), so every program type-checks by construction; the checker compiles a plain
//! twin of each function as well, so a generator mistake is told apart from a macro's. The
//! weights follow what numerical code is made of: arithmetic, float methods, `let`s and
//! compound assignments, loops over ranges and slices first; closures, `Option`s, structs and
//! checkpoints now and then.

use fastrand::Rng;

/// Length of every slice the checker passes (generated code indexes below it).
pub const SLICE_LEN: usize = 4;
/// Value of every integer parameter the checker passes.
pub const DATA_N: usize = 3;

/// Items every generated batch shares; put once at the top of a file.
pub const PRELUDE: &str = "#![allow(unused, clippy::all)]
use ad_runtime::{checkpoint, forward, reverse, Differentiable};

#[derive(Clone, Copy, Debug, PartialEq, Differentiable)]
pub struct Pt {
    pub x: f64,
    pub y: f64,
}
";

/// One generated function: a self-contained item given the prelude and its callees.
#[derive(Clone, Debug)]
pub struct GeneratedFunction {
    pub name: String,
    /// The whole item, attributes included.
    pub text: String,
    /// Functions of the same batch this one calls (by name).
    pub callees: Vec<String>,
    /// The constructs it uses, for the campaign's coverage table.
    pub features: Vec<&'static str>,
}

impl GeneratedFunction {
    pub fn source(&self) -> &str {
        &self.text
    }
}

/// `count` functions from `seed`; function `k` depends only on `seed` and `k` (and may call
/// the functions before it), so any subset can be regenerated and checked alone.
pub fn generate_batch(seed: u64, count: usize) -> Vec<GeneratedFunction> {
    let mut batch: Vec<GeneratedFunction> = Vec::with_capacity(count);
    for index in 0..count {
        let function = generate(seed, index, &batch);
        batch.push(function);
    }
    batch
}

/// The largest call tree (functions called, counted with repeats) a callee may have.
const MAX_CALL_TREE: usize = 6;

/// How many functions a call to `name` runs, itself included (recursion counts once).
fn call_tree_size(name: &str, batch: &[GeneratedFunction]) -> usize {
    match batch.iter().find(|function| function.name == name) {
        Some(function) => {
            1 + function
                .callees
                .iter()
                .filter(|callee| *callee != name)
                .map(|callee| call_tree_size(callee, batch))
                .sum::<usize>()
        }
        None => 1,
    }
}

/// The name of function `index` of a batch.
pub fn function_name(index: usize) -> String {
    // Not `f{index}`: function 64 would be named `f64`.
    format!("fz{index}")
}

fn generate(seed: u64, index: usize, earlier: &[GeneratedFunction]) -> GeneratedFunction {
    let mut rng = Rng::with_seed(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (index as u64 + 1));
    // A callee's own calls multiply: only functions whose call tree is small are called, so
    // a program runs in milliseconds, not minutes.
    let callable: Vec<Callable> = earlier
        .iter()
        .filter(|function| call_tree_size(&function.name, earlier) <= MAX_CALL_TREE)
        .filter_map(|function| Callable::of(&function.text, &function.name))
        .collect();
    let mut generator = Generator {
        rng: &mut rng,
        scopes: vec![Vec::new()],
        counter: 0,
        features: Vec::new(),
        callees: Vec::new(),
        callable,
        loops: Vec::new(),
        in_checkpoint: false,
        in_closure: false,
        out: String::new(),
        indent: 1,
        ret: Ret::Float,
        name: function_name(index),
    };
    generator.function();
    let mut features = generator.features.clone();
    features.sort_unstable();
    features.dedup();
    GeneratedFunction {
        name: generator.name.clone(),
        text: generator.out.clone(),
        callees: generator.callees.clone(),
        features,
    }
}

/// A function of the batch that may be called from a later one: parameters of floats, slices
/// and integers, a float result.
#[derive(Clone, Debug)]
struct Callable {
    name: String,
    params: Vec<ParamKind>,
}

impl Callable {
    fn of(text: &str, name: &str) -> Option<Callable> {
        let item: syn::ItemFn = syn::parse_str(text).ok()?;
        match &item.sig.output {
            syn::ReturnType::Type(_, ty) if quote::quote!(#ty).to_string() == "f64" => {}
            _ => return None,
        }
        let params = item
            .sig
            .inputs
            .iter()
            .map(|input| match input {
                syn::FnArg::Typed(typed) => {
                    let ty = &typed.ty;
                    let no_grad = !typed.attrs.is_empty();
                    match (quote::quote!(#ty).to_string().as_str(), no_grad) {
                        ("f64", false) => Some(ParamKind::Float),
                        ("f64", true) => Some(ParamKind::ConstFloat),
                        ("& [f64]", _) => Some(ParamKind::Slice),
                        ("usize", _) => Some(ParamKind::Data),
                        _ => None,
                    }
                }
                syn::FnArg::Receiver(_) => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Callable {
            name: name.to_string(),
            params,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ParamKind {
    Float,
    ConstFloat,
    Slice,
    Data,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ret {
    Float,
    Pair,
    Vector,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Ty {
    /// An `f64` (a `&f64` when `deref`).
    Float {
        mutable: bool,
        deref: bool,
    },
    /// A `usize` below `bound` (exclusive).
    Index {
        bound: usize,
        mutable: bool,
    },
    /// A slice, `Vec` or array of `len` floats.
    Floats {
        len: usize,
        mutable: bool,
    },
    Pair,
    OptionFloat,
    Point,
    /// A closure `|t: f64| -> f64`.
    Closure,
}

#[derive(Clone, Debug)]
struct Var {
    name: String,
    ty: Ty,
}

struct LoopFrame {
    label: Option<String>,
}

/// An emitted expression, and whether rustc knows its type without context (a bare literal
/// does not: `2.0.sin()` is ambiguous).
struct Expr {
    text: String,
    typed: bool,
}

impl Expr {
    fn typed(text: String) -> Expr {
        Expr { text, typed: true }
    }
}

struct Generator<'r> {
    rng: &'r mut Rng,
    scopes: Vec<Vec<Var>>,
    counter: usize,
    features: Vec<&'static str>,
    callees: Vec<String>,
    callable: Vec<Callable>,
    loops: Vec<LoopFrame>,
    in_checkpoint: bool,
    in_closure: bool,
    out: String,
    indent: usize,
    ret: Ret,
    name: String,
}

const LITERALS: &[&str] = &["0.5", "1.5", "2.0", "0.25", "3.0", "0.1", "1.0", "0.75"];

impl Generator<'_> {
    // ---- randomness ----

    fn chance(&mut self, probability: f64) -> bool {
        self.rng.f64() < probability
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.rng.usize(..items.len())]
    }

    fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut roll = self.rng.u32(..total.max(1));
        for (index, weight) in weights.iter().enumerate() {
            if roll < *weight {
                return index;
            }
            roll -= weight;
        }
        0
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{}", self.counter)
    }

    fn feature(&mut self, name: &'static str) {
        self.features.push(name);
    }

    // ---- scopes ----

    fn declare(&mut self, name: &str, ty: Ty) {
        self.scopes.last_mut().expect("a scope").push(Var {
            name: name.to_string(),
            ty,
        });
    }

    fn visible(&self) -> Vec<Var> {
        let mut seen: Vec<Var> = Vec::new();
        for scope in self.scopes.iter().rev() {
            for var in scope.iter().rev() {
                if !seen.iter().any(|other| other.name == var.name) {
                    seen.push(var.clone());
                }
            }
        }
        seen
    }

    fn vars_where(&self, keep: impl Fn(&Ty) -> bool) -> Vec<Var> {
        self.visible()
            .into_iter()
            .filter(|var| keep(&var.ty))
            .collect()
    }

    // ---- output ----

    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn open(&mut self, text: &str) {
        self.line(text);
        self.indent += 1;
        self.scopes.push(Vec::new());
    }

    fn close(&mut self, text: &str) {
        self.indent -= 1;
        self.scopes.pop();
        self.line(text);
    }

    // ---- the function ----

    fn function(&mut self) {
        if !self.callable.is_empty() && self.chance(0.06) {
            return self.recursive_function();
        }
        let mut params: Vec<String> = Vec::new();
        for name in ["a", "b", "c"].iter().take(1 + self.rng.usize(..3)) {
            params.push(format!("{name}: f64"));
            self.declare(
                name,
                Ty::Float {
                    mutable: false,
                    deref: false,
                },
            );
        }
        if self.chance(0.5) {
            params.push("xs: &[f64]".to_string());
            self.declare(
                "xs",
                Ty::Floats {
                    len: SLICE_LEN,
                    mutable: false,
                },
            );
            self.feature("slice parameter");
        }
        if self.chance(0.4) {
            params.push("n: usize".to_string());
            self.declare(
                "n",
                Ty::Index {
                    bound: DATA_N + 1,
                    mutable: false,
                },
            );
        }
        if self.chance(0.15) {
            params.push("#[no_grad] k: f64".to_string());
            self.declare(
                "k",
                Ty::Float {
                    mutable: false,
                    deref: false,
                },
            );
            self.feature("#[no_grad]");
        }
        self.rng.shuffle(&mut params);
        self.ret = match self.weighted(&[85, 8, 7]) {
            0 => Ret::Float,
            1 => Ret::Pair,
            _ => Ret::Vector,
        };
        let ret = match self.ret {
            Ret::Float => "f64",
            Ret::Pair => {
                self.feature("pair result");
                "(f64, f64)"
            }
            Ret::Vector => {
                self.feature("Vec result");
                "Vec<f64>"
            }
        };
        self.out.push_str("#[forward]\n#[reverse]\n");
        let name = self.name.clone();
        self.out
            .push_str(&format!("fn {name}({}) -> {ret} {{\n", params.join(", ")));
        let statements = 2 + self.rng.usize(..7);
        self.statements(statements, 3);
        let tail = self.result_expr(2);
        self.line(&tail);
        self.out.push_str("}\n");
    }

    /// `fn fK(x: f64, y: f64, depth: usize) -> f64`, calling itself `depth` times.
    fn recursive_function(&mut self) {
        self.feature("recursion");
        let name = self.name.clone();
        self.out.push_str("#[forward]\n#[reverse]\n");
        self.out.push_str(&format!(
            "fn {name}(a: f64, b: f64, depth: usize) -> f64 {{\n"
        ));
        self.declare(
            "a",
            Ty::Float {
                mutable: false,
                deref: false,
            },
        );
        self.declare(
            "b",
            Ty::Float {
                mutable: false,
                deref: false,
            },
        );
        self.open("if depth == 0 {");
        let base = self.float(2);
        self.line(&base.text);
        self.close("} else {");
        self.indent += 1;
        self.scopes.push(Vec::new());
        self.some_statements(1, 3, 2);
        let x = self.float(2).text;
        let y = self.float(1).text;
        let inner = format!("{name}({x}, {y}, depth - 1)");
        let combine = self.pick(&["+", "*", "-"]).to_string();
        let other = self.float(1).text;
        self.line(&format!("{other} {combine} 0.5 * {inner}"));
        self.close("}");
        self.out.push_str("}\n");
    }

    fn result_expr(&mut self, depth: usize) -> String {
        match self.ret {
            Ret::Float => {
                // The result reads the latest locals, so that what the body computes matters.
                let mut terms = vec![self.float(depth).text];
                let recent: Vec<String> = self
                    .visible()
                    .into_iter()
                    .filter(|var| matches!(var.ty, Ty::Float { deref: false, .. }))
                    .take(3)
                    .map(|var| var.name)
                    .collect();
                for name in recent {
                    let op = *self.pick(&[" + ", " - ", " * "]);
                    terms.push(op.to_string());
                    terms.push(name);
                }
                terms.concat()
            }
            Ret::Pair => {
                let first = self.float(depth).text;
                let second = self.float(depth).text;
                format!("({first}, {second})")
            }
            Ret::Vector => {
                let built = self.vars_where(|ty| matches!(ty, Ty::Floats { .. }));
                if !built.is_empty() && self.chance(0.4) {
                    let var = self.pick(&built).clone();
                    format!("{}.to_vec()", var.name)
                } else {
                    let first = self.float(depth).text;
                    let second = self.float(depth).text;
                    format!("vec![{first}, {second}]")
                }
            }
        }
    }

    // ---- statements ----

    /// Between `least` and `least + spread - 1` statements.
    fn some_statements(&mut self, least: usize, spread: usize, depth: usize) {
        let count = least + self.rng.usize(..spread);
        self.statements(count, depth);
    }

    fn statements(&mut self, count: usize, depth: usize) {
        for _ in 0..count {
            self.statement(depth);
        }
    }

    fn statement(&mut self, depth: usize) {
        let in_loop = !self.loops.is_empty();
        let nest = depth > 0;
        let has_floats = !self
            .vars_where(|ty| matches!(ty, Ty::Floats { .. }))
            .is_empty();
        let has_mut_float = !self
            .vars_where(|ty| matches!(ty, Ty::Float { mutable: true, .. }))
            .is_empty();
        let has_mut_floats = !self
            .vars_where(|ty| matches!(ty, Ty::Floats { mutable: true, .. }))
            .is_empty();
        let weights = [
            20,                                     // let
            10,                                     // let mut
            if has_mut_float { 16 } else { 0 },     // assignment
            if nest { 8 } else { 0 },               // if
            if nest { 4 } else { 0 },               // let .. = if
            if nest { 9 } else { 0 },               // for over a range
            if nest { 3 } else { 0 },               // while / loop
            if nest && has_floats { 4 } else { 0 }, // for over a container
            if in_loop { 4 } else { 0 },            // break / continue
            if !self.in_checkpoint && !self.in_closure {
                2
            } else {
                0
            }, // early return
            if nest { 3 } else { 0 },               // match
            5,                                      // container built
            if has_mut_floats { 7 } else { 0 },     // element write
            if has_floats { 5 } else { 0 },         // reduction
            3,                                      // tuple
            if !self.in_checkpoint { 3 } else { 0 }, // closure
            2,                                      // Option
            2,                                      // struct
            if nest && !self.in_checkpoint { 3 } else { 0 }, // checkpoint
            2,                                      // sin_cos
            if !self.callable.is_empty() { 4 } else { 0 }, // call bound by let
        ];
        match self.weighted(&weights) {
            0 => self.let_float(false, depth),
            1 => self.let_float(true, depth),
            2 => self.assign(depth),
            3 => self.if_statement(depth),
            4 => self.let_if(depth),
            5 => self.for_range(depth),
            6 => self.while_or_loop(depth),
            7 => self.for_container(depth),
            8 => self.break_or_continue(),
            9 => self.early_return(),
            10 => self.match_statement(depth),
            11 => self.container(depth),
            12 => self.element_write(),
            13 => self.reduction(),
            14 => self.tuple(),
            15 => self.closure(),
            16 => self.option(),
            17 => self.point(),
            18 => self.checkpoint(depth),
            19 => self.sin_cos(),
            _ => self.call_statement(),
        }
    }

    fn let_float(&mut self, mutable: bool, _depth: usize) {
        let value = self.float(3);
        let shadow = self
            .vars_where(|ty| {
                matches!(
                    ty,
                    Ty::Float {
                        deref: false,
                        mutable: false
                    }
                )
            })
            .into_iter()
            .filter(|var| !["a", "b", "c", "k"].contains(&var.name.as_str()))
            .collect::<Vec<_>>();
        let name = if !shadow.is_empty() && self.chance(0.15) {
            self.feature("shadowing");
            self.pick(&shadow).name.clone()
        } else {
            self.fresh("v")
        };
        let annotate = !value.typed || self.chance(0.2);
        let keyword = if mutable { "let mut" } else { "let" };
        let ty = if annotate { ": f64" } else { "" };
        self.line(&format!("{keyword} {name}{ty} = {};", value.text));
        if mutable {
            self.feature("let mut");
        }
        self.declare(
            &name,
            Ty::Float {
                mutable,
                deref: false,
            },
        );
    }

    fn assign(&mut self, _depth: usize) {
        let targets = self.vars_where(|ty| matches!(ty, Ty::Float { mutable: true, .. }));
        let target = self.pick(&targets).name.clone();
        let value = self.float(3).text;
        match self.weighted(&[6, 5, 3, 4, 2]) {
            0 => {
                self.feature("overwrite");
                self.line(&format!("{target} = {value};"));
            }
            1 => {
                self.feature("+=");
                self.line(&format!("{target} += {value};"));
            }
            2 => {
                self.feature("-=");
                self.line(&format!("{target} -= {value};"));
            }
            3 => {
                self.feature("*=");
                let bounded = self.bounded(1);
                self.line(&format!("{target} *= {bounded};"));
            }
            _ => {
                self.feature("/=");
                let positive = self.positive(1);
                self.line(&format!("{target} /= {positive};"));
            }
        }
    }

    fn if_statement(&mut self, depth: usize) {
        self.feature("if");
        let condition = self.condition();
        self.open(&format!("if {condition} {{"));
        self.some_statements(1, 3, depth - 1);
        if self.chance(0.6) {
            self.close("} else {");
            self.indent += 1;
            self.scopes.push(Vec::new());
            self.some_statements(1, 3, depth - 1);
        }
        self.close("}");
    }

    fn let_if(&mut self, depth: usize) {
        self.feature("if as a value");
        let condition = self.condition();
        let name = self.fresh("v");
        self.open(&format!("let {name}: f64 = if {condition} {{"));
        self.some_statements(0, 2, depth - 1);
        let then = self.float(2).text;
        self.line(&then);
        self.close("} else {");
        self.indent += 1;
        self.scopes.push(Vec::new());
        let otherwise = self.float(2).text;
        self.line(&otherwise);
        self.close("};");
        self.declare(
            &name,
            Ty::Float {
                mutable: false,
                deref: false,
            },
        );
    }

    /// `for i in <range> { .. }`, sometimes with a nested labeled loop.
    fn for_range(&mut self, depth: usize) {
        let index = self.fresh("i");
        let (range, bound) = self.range();
        let label = if self.chance(0.15) {
            self.feature("labeled loop");
            Some(self.fresh("'outer"))
        } else {
            None
        };
        self.feature("for over a range");
        let head = match &label {
            Some(label) => format!("{label}: for {index} in {range} {{"),
            None => format!("for {index} in {range} {{"),
        };
        self.open(&head);
        self.declare(
            &index,
            Ty::Index {
                bound,
                mutable: false,
            },
        );
        self.loops.push(LoopFrame { label });
        self.some_statements(1, 4, depth - 1);
        self.loops.pop();
        self.close("}");
    }

    fn range(&mut self) -> (String, usize) {
        let has_n = !self
            .vars_where(|ty| matches!(ty, Ty::Index { mutable: false, .. }))
            .iter()
            .all(|var| var.name != "n");
        let end = 2 + self.rng.usize(..3);
        match self.weighted(&[10, if has_n { 4 } else { 0 }, 3, 2, 2, 2]) {
            0 => (format!("0..{end}"), end),
            1 => ("0..n".to_string(), DATA_N),
            2 => {
                self.feature("rev");
                (format!("(0..{end}).rev()"), end)
            }
            3 => {
                self.feature("step_by");
                (format!("(0..{}).step_by(2)", end + 2), end + 2)
            }
            4 => {
                self.feature("inclusive range");
                (format!("1..={end}"), end + 1)
            }
            _ => {
                let floats = self.vars_where(|ty| matches!(ty, Ty::Floats { .. }));
                match floats.first() {
                    Some(var) => {
                        let Ty::Floats { len, .. } = var.ty else {
                            unreachable!("filtered")
                        };
                        (format!("0..{}.len()", var.name), len)
                    }
                    None => (format!("0..{end}"), end),
                }
            }
        }
    }

    fn while_or_loop(&mut self, depth: usize) {
        let counter = self.fresh("w");
        let end = 2 + self.rng.usize(..3);
        self.line(&format!("let mut {counter} = 0;"));
        let label = None;
        if self.chance(0.5) {
            self.feature("while");
            self.open(&format!("while {counter} < {end} {{"));
            self.line(&format!("{counter} += 1;"));
        } else {
            self.feature("loop");
            self.open("loop {");
            self.line(&format!("{counter} += 1;"));
            self.line(&format!("if {counter} > {end} {{"));
            self.line("    break;");
            self.line("}");
        }
        self.declare(
            &counter,
            Ty::Index {
                bound: end + 1,
                mutable: false,
            },
        );
        self.loops.push(LoopFrame { label });
        self.some_statements(1, 3, depth - 1);
        self.loops.pop();
        self.close("}");
        // Past the loop the counter is only read as data; `loop` leaves it at `end + 1`.
        self.declare(
            &counter,
            Ty::Index {
                bound: end + 2,
                mutable: false,
            },
        );
    }

    fn for_container(&mut self, depth: usize) {
        let floats = self.vars_where(|ty| matches!(ty, Ty::Floats { .. }));
        let var = self.pick(&floats).clone();
        let Ty::Floats { len, .. } = var.ty else {
            unreachable!("filtered")
        };
        let element = self.fresh("t");
        match self.weighted(&[4, 3, 3, 2]) {
            0 => {
                self.feature("for &x in v.iter()");
                self.open(&format!("for &{element} in {}.iter() {{", var.name));
                self.declare(
                    &element,
                    Ty::Float {
                        mutable: false,
                        deref: false,
                    },
                );
            }
            1 => {
                self.feature("for x in &v");
                let borrowed = borrowed(&var.name);
                self.open(&format!("for {element} in {borrowed} {{"));
                self.declare(
                    &element,
                    Ty::Float {
                        mutable: false,
                        deref: true,
                    },
                );
            }
            2 => {
                self.feature("enumerate");
                let index = self.fresh("j");
                self.open(&format!(
                    "for ({index}, {element}) in {}.iter().enumerate() {{",
                    var.name
                ));
                self.declare(
                    &element,
                    Ty::Float {
                        mutable: false,
                        deref: true,
                    },
                );
                self.declare(
                    &index,
                    Ty::Index {
                        bound: len,
                        mutable: false,
                    },
                );
            }
            _ => {
                let others: Vec<Var> = floats
                    .iter()
                    .filter(|other| other.name != var.name)
                    .cloned()
                    .collect();
                let other = if others.is_empty() {
                    var.clone()
                } else {
                    self.pick(&others).clone()
                };
                self.feature("zip");
                let second = self.fresh("u");
                self.open(&format!(
                    "for ({element}, {second}) in {}.iter().zip({}.iter()) {{",
                    var.name, other.name
                ));
                self.declare(
                    &element,
                    Ty::Float {
                        mutable: false,
                        deref: true,
                    },
                );
                self.declare(
                    &second,
                    Ty::Float {
                        mutable: false,
                        deref: true,
                    },
                );
                self.shadow_as_read_only(&other.name);
            }
        }
        // Writing the container iterated over would not borrow-check.
        self.shadow_as_read_only(&var.name);
        self.loops.push(LoopFrame { label: None });
        self.some_statements(1, 3, depth - 1);
        self.loops.pop();
        self.close("}");
    }

    fn shadow_as_read_only(&mut self, name: &str) {
        if let Some(var) = self.visible().into_iter().find(|var| var.name == name) {
            if let Ty::Floats { len, .. } = var.ty {
                self.declare(
                    name,
                    Ty::Floats {
                        len,
                        mutable: false,
                    },
                );
            }
        }
    }

    fn break_or_continue(&mut self) {
        let condition = self.condition();
        let labels: Vec<String> = self
            .loops
            .iter()
            .filter_map(|frame| frame.label.clone())
            .collect();
        let keyword = if self.chance(0.5) {
            "break"
        } else {
            "continue"
        };
        self.feature(if keyword == "break" {
            "break"
        } else {
            "continue"
        });
        let target = if !labels.is_empty() && self.chance(0.5) {
            self.feature("break/continue to a label");
            format!(" {}", self.pick(&labels))
        } else {
            String::new()
        };
        self.line(&format!("if {condition} {{"));
        self.line(&format!("    {keyword}{target};"));
        self.line("}");
    }

    fn early_return(&mut self) {
        self.feature("early return");
        let condition = self.condition();
        let value = self.result_expr(1);
        self.line(&format!("if {condition} {{"));
        self.line(&format!("    return {value};"));
        self.line("}");
    }

    fn match_statement(&mut self, depth: usize) {
        self.feature("match");
        let scrutinee = self.index_expr(None);
        let name = self.fresh("v");
        let arms = 2 + self.rng.usize(..2);
        self.open(&format!("let {name}: f64 = match {scrutinee} % {arms} {{"));
        for arm in 0..arms {
            let guard = (arm + 1 != arms && arm == 1 && self.chance(0.3)).then(|| self.fresh("m"));
            let pattern = match &guard {
                _ if arm + 1 == arms => "_".to_string(),
                Some(bound) => {
                    self.feature("match guard");
                    format!("{bound} if {bound} > 0")
                }
                None => arm.to_string(),
            };
            self.open(&format!("{pattern} => {{"));
            if let Some(bound) = &guard {
                self.declare(
                    bound,
                    Ty::Index {
                        bound: arms,
                        mutable: false,
                    },
                );
            }
            self.some_statements(0, 2, depth - 1);
            let value = self.float(2).text;
            self.line(&value);
            self.close("}");
        }
        self.close("};");
        self.declare(
            &name,
            Ty::Float {
                mutable: false,
                deref: false,
            },
        );
    }

    fn container(&mut self, _depth: usize) {
        let name = self.fresh("vs");
        let has_slice = self
            .visible()
            .iter()
            .any(|var| var.name == "xs" && matches!(var.ty, Ty::Floats { .. }));
        let len = 2 + self.rng.usize(..4);
        match self.weighted(&[
            4,
            if has_slice { 3 } else { 0 },
            3,
            3,
            if has_slice { 3 } else { 0 },
            2,
        ]) {
            0 => {
                self.feature("vec![x; n]");
                let value = self.typed_float(2);
                self.line(&format!("let mut {name} = vec![{value}; {len}];"));
                self.declare(&name, Ty::Floats { len, mutable: true });
            }
            1 => {
                self.feature("to_vec");
                self.line(&format!("let mut {name} = xs.to_vec();"));
                self.declare(
                    &name,
                    Ty::Floats {
                        len: SLICE_LEN,
                        mutable: true,
                    },
                );
            }
            2 => {
                self.feature("array literal");
                let items: Vec<String> = (0..len).map(|_| self.float(1).text).collect();
                self.line(&format!(
                    "let mut {name}: [f64; {len}] = [{}];",
                    items.join(", ")
                ));
                self.declare(&name, Ty::Floats { len, mutable: true });
            }
            3 => {
                self.feature("push");
                let index = self.fresh("i");
                self.line(&format!("let mut {name}: Vec<f64> = Vec::new();"));
                self.open(&format!("for {index} in 0..{len} {{"));
                self.declare(
                    &index,
                    Ty::Index {
                        bound: len,
                        mutable: false,
                    },
                );
                let value = self.float(2).text;
                self.line(&format!("{name}.push({value});"));
                self.close("}");
                self.declare(&name, Ty::Floats { len, mutable: true });
            }
            4 => {
                self.feature("collect");
                let element = self.fresh("t");
                self.scopes.push(vec![Var {
                    name: element.clone(),
                    ty: Ty::Float {
                        mutable: false,
                        deref: true,
                    },
                }]);
                let body = self.float(2).text;
                self.scopes.pop();
                self.line(&format!(
                    "let {name}: Vec<f64> = xs.iter().map(|{element}| {body}).collect();"
                ));
                self.declare(
                    &name,
                    Ty::Floats {
                        len: SLICE_LEN,
                        mutable: false,
                    },
                );
            }
            _ => {
                self.feature("array of zeros");
                self.line(&format!("let mut {name}: [f64; {len}] = [0.0; {len}];"));
                self.declare(&name, Ty::Floats { len, mutable: true });
            }
        }
    }

    fn element_write(&mut self) {
        let targets = self.vars_where(|ty| matches!(ty, Ty::Floats { mutable: true, .. }));
        let target = self.pick(&targets).clone();
        let Ty::Floats { len, .. } = target.ty else {
            unreachable!("filtered")
        };
        let index = self.index_expr(Some(len));
        let value = self.float(2).text;
        let op = *self.pick(&["=", "=", "+=", "-=", "*="]);
        self.feature(if op == "=" {
            "element write"
        } else {
            "element op="
        });
        let value = if op == "*=" { self.bounded(1) } else { value };
        self.line(&format!("{}[{index}] {op} {value};", target.name));
    }

    fn reduction(&mut self) {
        let floats = self.vars_where(|ty| matches!(ty, Ty::Floats { .. }));
        let var = self.pick(&floats).clone();
        let name = self.fresh("s");
        let element = self.fresh("t");
        self.scopes.push(vec![Var {
            name: element.clone(),
            ty: Ty::Float {
                mutable: false,
                deref: true,
            },
        }]);
        let body = self.float(2).text;
        self.scopes.pop();
        let chain = match self.weighted(&[5, 3, 2, 2, 2, 2]) {
            0 => {
                self.feature("map().sum()");
                format!("{}.iter().map(|{element}| {body}).sum()", var.name)
            }
            1 => {
                self.feature("fold");
                let acc = self.fresh("acc");
                format!(
                    "{}.iter().fold(0.0, |{acc}, {element}| {acc} + {body})",
                    var.name
                )
            }
            2 => {
                self.feature("product");
                format!(
                    "{}.iter().map(|{element}| {element}.tanh() + 1.5).product()",
                    var.name
                )
            }
            3 => {
                self.feature("zip().map().sum()");
                let others = self.vars_where(|ty| matches!(ty, Ty::Floats { .. }));
                let other = self.pick(&others).name.clone();
                let second = self.fresh("u");
                format!(
                    "{}.iter().zip({other}.iter()).map(|({element}, {second})| {element} * {second}).sum()",
                    var.name
                )
            }
            4 => {
                self.feature("filter().sum()");
                format!(
                    "{}.iter().filter(|{element}| **{element} > 0.0).map(|{element}| {element} * 2.0).sum()",
                    var.name
                )
            }
            _ => {
                self.feature("fold max");
                format!(
                    "{}.iter().copied().fold(f64::NEG_INFINITY, f64::max)",
                    var.name
                )
            }
        };
        self.line(&format!("let {name}: f64 = {chain};"));
        self.declare(
            &name,
            Ty::Float {
                mutable: false,
                deref: false,
            },
        );
    }

    fn tuple(&mut self) {
        let first = self.float(2).text;
        let second = self.float(2).text;
        match self.weighted(&[3, 3, 2]) {
            0 => {
                self.feature("tuple local");
                let name = self.fresh("p");
                self.line(&format!("let {name}: (f64, f64) = ({first}, {second});"));
                self.declare(&name, Ty::Pair);
            }
            1 => {
                self.feature("tuple destructuring");
                let left = self.fresh("v");
                let right = self.fresh("v");
                self.line(&format!(
                    "let ({left}, {right}): (f64, f64) = ({first}, {second});"
                ));
                self.declare(
                    &left,
                    Ty::Float {
                        mutable: false,
                        deref: false,
                    },
                );
                self.declare(
                    &right,
                    Ty::Float {
                        mutable: false,
                        deref: false,
                    },
                );
            }
            _ => {
                self.feature("tuple swap");
                let left = self.fresh("v");
                let right = self.fresh("v");
                self.line(&format!(
                    "let (mut {left}, mut {right}): (f64, f64) = ({first}, {second});"
                ));
                self.declare(
                    &left,
                    Ty::Float {
                        mutable: true,
                        deref: false,
                    },
                );
                self.declare(
                    &right,
                    Ty::Float {
                        mutable: true,
                        deref: false,
                    },
                );
                let scale = self.bounded(1);
                self.line(&format!("({left}, {right}) = ({right}, {left} * {scale});"));
            }
        }
    }

    fn closure(&mut self) {
        self.feature("closure");
        let name = self.fresh("g");
        let parameter = self.fresh("t");
        // The closure reads the parameters only: reverse mode inlines it where it is called,
        // and refuses (with a message) a captured name shadowed in between.
        let saved = std::mem::take(&mut self.scopes);
        let mut readable: Vec<Var> = saved
            .first()
            .into_iter()
            .flatten()
            .filter(|var| {
                matches!(
                    var.ty,
                    Ty::Float {
                        mutable: false,
                        deref: false
                    }
                )
            })
            .filter(|var| ["a", "b", "c", "k"].contains(&var.name.as_str()))
            .cloned()
            .collect();
        readable.push(Var {
            name: parameter.clone(),
            ty: Ty::Float {
                mutable: false,
                deref: false,
            },
        });
        self.scopes = vec![readable];
        let was_in_closure = std::mem::replace(&mut self.in_closure, true);
        let body = self.float(2);
        // A closure returning a bare literal has an ambiguous float type at its calls.
        let body = match body.typed {
            true => body.text,
            false => format!("{parameter} * {}", paren(&body.text)),
        };
        self.in_closure = was_in_closure;
        self.scopes = saved;
        self.line(&format!("let {name} = |{parameter}: f64| {body};"));
        self.declare(&name, Ty::Closure);
    }

    fn option(&mut self) {
        self.feature("Option");
        let name = self.fresh("o");
        let condition = self.condition();
        let value = self.float(2).text;
        self.line(&format!(
            "let {name}: Option<f64> = if {condition} {{ Some({value}) }} else {{ None }};"
        ));
        self.declare(&name, Ty::OptionFloat);
    }

    fn point(&mut self) {
        self.feature("struct");
        let name = self.fresh("q");
        let x = self.float(2).text;
        let y = self.float(2).text;
        self.line(&format!("let {name} = Pt {{ x: {x}, y: {y} }};"));
        self.declare(&name, Ty::Point);
    }

    fn checkpoint(&mut self, depth: usize) {
        self.in_checkpoint = true;
        let saved_loops = std::mem::take(&mut self.loops);
        // A checkpoint keeps copies of what its region reads: `Copy + 'static` values only
        // (the guide), so containers and closures stay outside.
        let saved_scopes = self.scopes.clone();
        for scope in self.scopes.iter_mut() {
            scope.retain(|var| {
                !matches!(
                    var.ty,
                    Ty::Floats { .. } | Ty::Closure | Ty::Point | Ty::Float { deref: true, .. }
                ) && !is_element_name(&var.name)
            });
        }
        match self.weighted(&[3, 2, 2, 2, 2]) {
            0 => {
                self.feature("#[checkpoint] let");
                self.line("#[checkpoint]");
                self.let_float(false, depth);
            }
            1 => {
                self.feature("#[checkpoint] block");
                let name = self.fresh("v");
                self.open(&format!("let {name} = #[checkpoint] {{"));
                self.some_statements(1, 2, depth - 1);
                let value = self.float(2).text;
                self.line(&format!("{value} + 0.0_f64"));
                self.close("};");
                self.declare(
                    &name,
                    Ty::Float {
                        mutable: false,
                        deref: false,
                    },
                );
            }
            schedule => {
                let attribute = match schedule {
                    2 => {
                        self.feature("#[checkpoint] loop");
                        "#[checkpoint]".to_string()
                    }
                    3 => {
                        self.feature("#[checkpoint(every)]");
                        format!("#[checkpoint(every = {})]", 1 + self.rng.usize(..3))
                    }
                    _ => {
                        self.feature("#[checkpoint(binomial)]");
                        format!(
                            "#[checkpoint(binomial, snapshots = {})]",
                            1 + self.rng.usize(..3)
                        )
                    }
                };
                // A checkpointed loop's state is its scalars: a fresh accumulator.
                let state = self.fresh("v");
                let start = self.typed_float(1);
                self.line(&format!("let mut {state} = {start};"));
                self.declare(
                    &state,
                    Ty::Float {
                        mutable: true,
                        deref: false,
                    },
                );
                let index = self.fresh("i");
                let (range, bound) = self.range();
                self.line(&attribute);
                self.open(&format!("for {index} in {range} {{"));
                self.declare(
                    &index,
                    Ty::Index {
                        bound,
                        mutable: false,
                    },
                );
                self.some_statements(0, 2, depth.saturating_sub(2));
                let scale = self.bounded(1);
                let step = self.float(2).text;
                self.line(&format!("{state} = {state} * {scale} + {step};"));
                self.close("}");
            }
        }
        self.loops = saved_loops;
        self.in_checkpoint = false;
        // What the region declared stays visible after it, the hidden containers again too.
        let declared: Vec<Var> = self.scopes.last().cloned().unwrap_or_default();
        self.scopes = saved_scopes;
        let known: Vec<String> = self.visible().into_iter().map(|var| var.name).collect();
        for var in declared {
            if !known.contains(&var.name) || matches!(var.ty, Ty::Float { .. }) {
                self.declare(&var.name, var.ty);
            }
        }
    }

    fn sin_cos(&mut self) {
        self.feature("sin_cos");
        let argument = self.typed_float(2);
        let s = self.fresh("v");
        let c = self.fresh("v");
        self.line(&format!("let ({s}, {c}) = {argument}.sin_cos();"));
        self.declare(
            &s,
            Ty::Float {
                mutable: false,
                deref: false,
            },
        );
        self.declare(
            &c,
            Ty::Float {
                mutable: false,
                deref: false,
            },
        );
    }

    fn call_statement(&mut self) {
        let name = self.fresh("v");
        let call = self.call(2);
        self.line(&format!("let {name}: f64 = {call};"));
        self.declare(
            &name,
            Ty::Float {
                mutable: false,
                deref: false,
            },
        );
    }

    // ---- expressions ----

    fn call(&mut self, depth: usize) -> String {
        self.feature("call");
        let slices: Vec<Var> =
            self.vars_where(|ty| matches!(ty, Ty::Floats { len, .. } if *len == SLICE_LEN));
        // A slice is passed by name: reverse mode does not take a literal built in the call.
        let callable: Vec<Callable> = self
            .callable
            .iter()
            .filter(|callee| !slices.is_empty() || !callee.params.contains(&ParamKind::Slice))
            .cloned()
            .collect();
        if callable.is_empty() {
            return self.leaf().text;
        }
        let callee = self.pick(&callable).clone();
        let mut args = Vec::new();
        for param in &callee.params {
            args.push(match param {
                ParamKind::Float | ParamKind::ConstFloat => self.float(depth.min(2)).text,
                ParamKind::Data => DATA_N.to_string(),
                ParamKind::Slice => match slices.is_empty() {
                    true => format!("&[{}]", ["0.5"; SLICE_LEN].join(", ")),
                    false => borrowed(&self.pick(&slices).name),
                },
            });
        }
        if !self.callees.contains(&callee.name) {
            self.callees.push(callee.name.clone());
        }
        format!("{}({})", callee.name, args.join(", "))
    }

    fn condition(&mut self) -> String {
        let has_index = !self
            .vars_where(|ty| matches!(ty, Ty::Index { .. }))
            .is_empty();
        match self.weighted(&[6, if has_index { 4 } else { 0 }, 1]) {
            0 => {
                let left = self.typed_float(2);
                let right = self.float(1).text;
                let op = self.pick(&["<", ">", "<=", ">="]).to_string();
                format!("{left} {op} {right}")
            }
            1 => {
                let index = self.index_expr(None);
                let modulus = 2 + self.rng.usize(..2);
                format!("{index} % {modulus} == 0")
            }
            _ => {
                let left = self.typed_float(1);
                format!("{left} > 0.0 && {left} < 1.0")
            }
        }
    }

    /// An index: below `bound` when given.
    fn index_expr(&mut self, bound: Option<usize>) -> String {
        let indices = self.vars_where(|ty| matches!(ty, Ty::Index { .. }));
        if indices.is_empty() || self.chance(0.25) {
            let limit = bound.unwrap_or(4);
            return self.rng.usize(..limit).to_string();
        }
        let var = self.pick(&indices).clone();
        let Ty::Index {
            bound: var_bound, ..
        } = var.ty
        else {
            unreachable!("filtered")
        };
        match bound {
            Some(bound) if var_bound <= bound => var.name,
            Some(bound) => {
                let offset = self.rng.usize(..bound);
                if offset == 0 {
                    format!("{} % {bound}", var.name)
                } else {
                    format!("({} + {offset}) % {bound}", var.name)
                }
            }
            None => var.name,
        }
    }

    /// A float expression whose type rustc knows on its own (a variable is in it).
    fn typed_float(&mut self, depth: usize) -> String {
        let expr = self.float(depth);
        if expr.typed {
            format!("({})", expr.text)
        } else if LITERALS.contains(&expr.text.as_str()) {
            format!("({}_f64)", expr.text)
        } else {
            format!("(({}) as f64)", expr.text)
        }
    }

    /// A float in (0.5, ..): safe under `ln`, `sqrt`, `recip`, division.
    fn positive(&mut self, depth: usize) -> String {
        let inner = self.typed_float(depth);
        match self.weighted(&[3, 1, 1]) {
            0 => format!("({inner} * {inner} + 0.5)"),
            1 => format!("({inner}.abs() + 0.5)"),
            _ => format!("{inner}.cosh()"),
        }
    }

    /// A float in [-1, 1].
    fn bounded(&mut self, depth: usize) -> String {
        let inner = self.typed_float(depth);
        match self.weighted(&[3, 2, 2]) {
            0 => format!("{inner}.tanh()"),
            1 => format!("{inner}.sin()"),
            _ => format!("{inner}.cos()"),
        }
    }

    fn leaf(&mut self) -> Expr {
        let floats = self.vars_where(|ty| matches!(ty, Ty::Float { .. }));
        let containers = self.vars_where(|ty| matches!(ty, Ty::Floats { .. }));
        let pairs = self.vars_where(|ty| matches!(ty, Ty::Pair));
        let points = self.vars_where(|ty| matches!(ty, Ty::Point));
        let options = self.vars_where(|ty| matches!(ty, Ty::OptionFloat));
        let indices = self.vars_where(|ty| matches!(ty, Ty::Index { .. }));
        let weights = [
            if floats.is_empty() { 0 } else { 30 },
            8,
            if containers.is_empty() { 0 } else { 10 },
            if pairs.is_empty() { 0 } else { 4 },
            if points.is_empty() { 0 } else { 4 },
            if options.is_empty() { 0 } else { 4 },
            if indices.is_empty() { 0 } else { 3 },
        ];
        match self.weighted(&weights) {
            0 => {
                let var = self.pick(&floats).clone();
                match var.ty {
                    Ty::Float { deref: true, .. } => Expr::typed(format!("(*{})", var.name)),
                    _ => Expr::typed(var.name),
                }
            }
            1 => Expr {
                text: self.pick(LITERALS).to_string(),
                typed: false,
            },
            2 => {
                let var = self.pick(&containers).clone();
                let Ty::Floats { len, .. } = var.ty else {
                    unreachable!("filtered")
                };
                self.feature("index read");
                let index = self.index_expr(Some(len));
                Expr::typed(format!("{}[{index}]", var.name))
            }
            3 => {
                let var = self.pick(&pairs).clone();
                let field = self.pick(&["0", "1"]).to_string();
                Expr::typed(format!("{}.{field}", var.name))
            }
            4 => {
                let var = self.pick(&points).clone();
                let field = self.pick(&["x", "y"]).to_string();
                Expr::typed(format!("{}.{field}", var.name))
            }
            5 => {
                let var = self.pick(&options).clone();
                let fallback = self.pick(LITERALS).to_string();
                match self.weighted(&[3, 2, 1]) {
                    0 => Expr::typed(format!("{}.unwrap_or({fallback})", var.name)),
                    1 => {
                        let bound = self.fresh("y");
                        Expr::typed(format!(
                            "(match {} {{ Some({bound}) => {bound} * 2.0, None => {fallback} }})",
                            var.name
                        ))
                    }
                    _ => {
                        let bound = self.fresh("y");
                        Expr::typed(format!(
                            "(if let Some({bound}) = {} {{ {bound}.sin() }} else {{ {fallback} }})",
                            var.name
                        ))
                    }
                }
            }
            _ => {
                self.feature("integer cast");
                let var = self.pick(&indices).clone();
                Expr::typed(format!("({} as f64)", var.name))
            }
        }
    }

    fn float(&mut self, depth: usize) -> Expr {
        if depth == 0 || self.chance(0.3) {
            return self.leaf();
        }
        let closures = self.vars_where(|ty| matches!(ty, Ty::Closure));
        let weights = [
            30,                                           // + - *
            5,                                            // division
            3,                                            // negation
            22,                                           // unary method
            7,                                            // binary method
            if closures.is_empty() { 0 } else { 4 },      // closure call
            if self.callable.is_empty() { 0 } else { 3 }, // call
            2,                                            // if as a value
            1,                                            // remainder
        ];
        match self.weighted(&weights) {
            0 => {
                let left = self.float(depth - 1);
                let right = self.float(depth - 1);
                let op = *self.pick(&["+", "-", "*", "*"]);
                Expr {
                    text: format!("{} {op} {}", paren(&left.text), paren(&right.text)),
                    typed: left.typed || right.typed,
                }
            }
            1 => {
                let left = self.float(depth - 1);
                let right = self.positive(depth - 1);
                Expr::typed(format!("{} / {right}", paren(&left.text)))
            }
            2 => {
                let inner = self.float(depth - 1);
                Expr {
                    text: format!("-{}", paren(&inner.text)),
                    typed: inner.typed,
                }
            }
            3 => Expr::typed(self.unary_method(depth - 1)),
            4 => Expr::typed(self.binary_method(depth - 1)),
            5 => {
                self.feature("closure call");
                let closure = self.pick(&closures).name.clone();
                let argument = self.float(depth - 1).text;
                Expr::typed(format!("{closure}({argument})"))
            }
            6 => {
                // `call` falls back to a leaf (maybe a bare literal) when nothing fits.
                let text = self.call(depth - 1);
                Expr {
                    typed: !LITERALS.contains(&text.as_str()),
                    text,
                }
            }
            7 => {
                self.feature("if as a value");
                let condition = self.condition();
                let then = self.float(depth - 1);
                let otherwise = self.float(depth - 1);
                Expr {
                    text: format!(
                        "(if {condition} {{ {} }} else {{ {} }})",
                        then.text, otherwise.text
                    ),
                    typed: then.typed || otherwise.typed,
                }
            }
            _ => {
                self.feature("%");
                let left = self.typed_float(depth - 1);
                Expr::typed(format!("{left} % 1.5"))
            }
        }
    }

    fn unary_method(&mut self, depth: usize) -> String {
        const ANY: &[&str] = &[
            "sin",
            "cos",
            "atan",
            "tanh",
            "asinh",
            "abs",
            "cbrt",
            "to_degrees",
            "to_radians",
        ];
        // Zero derivatives and jumps: rarer, since a function that reaches one is compared
        // with central differences no more (only between the modes).
        const STAIRCASES: &[&str] = &["signum", "floor", "ceil", "round", "trunc", "fract"];
        const BOUNDED_ARGUMENT: &[&str] = &["exp", "exp2", "exp_m1", "sinh", "cosh", "tan"];
        const POSITIVE_ARGUMENT: &[&str] = &["ln", "log2", "log10", "sqrt", "recip", "ln_1p"];
        const UNIT_ARGUMENT: &[&str] = &["asin", "acos", "atanh"];
        match self.weighted(&[10, 6, 6, 3, 2, 3, 2, 1]) {
            7 => {
                let method = *self.pick(STAIRCASES);
                self.feature(method);
                let receiver = self.typed_float(depth);
                format!("{receiver}.{method}()")
            }
            0 => {
                let method = *self.pick(ANY);
                self.feature(method);
                let receiver = self.typed_float(depth);
                format!("{receiver}.{method}()")
            }
            1 => {
                let method = *self.pick(BOUNDED_ARGUMENT);
                self.feature(method);
                let receiver = self.bounded(depth);
                format!("{receiver}.{method}()")
            }
            2 => {
                let method = *self.pick(POSITIVE_ARGUMENT);
                self.feature(method);
                let receiver = self.positive(depth);
                format!("{receiver}.{method}()")
            }
            3 => {
                let method = *self.pick(UNIT_ARGUMENT);
                self.feature(method);
                let receiver = self.typed_float(depth);
                format!("({receiver}.tanh() * 0.9).{method}()")
            }
            4 => {
                self.feature("acosh");
                let receiver = self.positive(depth);
                format!("({receiver} + 1.0).acosh()")
            }
            5 => {
                self.feature("powi");
                let exponent = *self.pick(&[2, 3, 0, 1, -1, -2, 4]);
                let receiver = if exponent < 0 {
                    self.positive(depth)
                } else {
                    self.typed_float(depth)
                };
                format!("{receiver}.powi({exponent})")
            }
            _ => {
                self.feature("path form");
                let method = *self.pick(&["sin", "cos", "tanh", "atan"]);
                let argument = self.typed_float(depth);
                format!("f64::{method}({argument})")
            }
        }
    }

    fn binary_method(&mut self, depth: usize) -> String {
        match self.weighted(&[3, 2, 3, 3, 2, 2, 2, 2]) {
            0 => {
                self.feature("powf");
                let base = self.positive(depth);
                let exponent = self.bounded(depth);
                format!("{base}.powf({exponent})")
            }
            1 => {
                self.feature("atan2");
                let y = self.typed_float(depth);
                let x = self.positive(depth);
                format!("{y}.atan2({x})")
            }
            2 => {
                self.feature("min/max");
                let method = *self.pick(&["min", "max"]);
                let left = self.typed_float(depth);
                let right = self.float(depth).text;
                format!("{left}.{method}({right})")
            }
            3 => {
                self.feature("hypot");
                let left = self.typed_float(depth);
                let right = self.float(depth).text;
                format!("{left}.hypot({right})")
            }
            4 => {
                self.feature("mul_add");
                let left = self.typed_float(depth);
                let a = self.float(depth).text;
                let b = self.float(depth).text;
                format!("{left}.mul_add({a}, {b})")
            }
            5 => {
                self.feature("clamp");
                let value = self.typed_float(depth);
                format!("{value}.clamp(-1.0, 1.0)")
            }
            6 => {
                self.feature("log");
                let value = self.positive(depth);
                format!("{value}.log(2.5)")
            }
            _ => {
                self.feature("powf of a constant base");
                let exponent = self.bounded(depth);
                format!("2.0_f64.powf({exponent})")
            }
        }
    }
}

/// Names the generator gives to elements of containers (`for &t in v.iter()`, closure
/// parameters): reverse mode takes them for parts of the container, which a checkpointed region
/// cannot keep.
fn is_element_name(name: &str) -> bool {
    name.starts_with('t') || name.starts_with('u')
}

/// A shared borrow of a container: the slice parameter already is one.
fn borrowed(name: &str) -> String {
    if name == "xs" {
        name.to_string()
    } else {
        format!("&{name}")
    }
}

/// Parentheses around anything that is not a single token or a call.
fn paren(text: &str) -> String {
    let simple = text
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        || (text.starts_with('(') && text.ends_with(')') && balanced_outer(text));
    if simple {
        text.to_string()
    } else {
        format!("({text})")
    }
}

/// `(..)` whose first parenthesis closes at the end.
fn balanced_outer(text: &str) -> bool {
    let mut depth = 0usize;
    for (position, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 && position + 1 != text.len() {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_are_deterministic_and_parse() {
        let first = generate_batch(7, 40);
        let second = generate_batch(7, 40);
        for (a, b) in first.iter().zip(&second) {
            assert_eq!(a.text, b.text);
            syn::parse_str::<syn::ItemFn>(&a.text)
                .unwrap_or_else(|error| panic!("{error}\n{}", a.text));
        }
    }

    #[test]
    fn a_function_depends_only_on_the_seed_and_its_index() {
        let long = generate_batch(3, 30);
        let short = generate_batch(3, 10);
        assert_eq!(long[9].text, short[9].text);
    }
}
