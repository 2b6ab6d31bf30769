//! Token-level mutation operators.
//!
//! A seed is held as a tree of tokens (groups hold their children), so an operator can act at
//! any depth and the result is always balanced. Most operators are blind (delete, duplicate,
//! swap, replace, regroup); the insertions aim at the places where a construct would parse
//! (statement starts, parameter lists, the signature, operands), since rustc's parser rejects
//! most misplaced tokens before the macro ever sees them, and such mutants test nothing.

use proc_macro2::{Delimiter, Group, Spacing, TokenStream, TokenTree};

/// What a mutation did; recorded with each mutant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Operator {
    /// Removes one token.
    Delete,
    /// Repeats a token or a group next to itself.
    Duplicate,
    /// Exchanges two neighbours.
    Swap,
    /// Puts another token of the same function in a token's place.
    Replace,
    /// Removes a group with its delimiters.
    DeleteGroup,
    /// Removes what a group holds.
    EmptyGroup,
    /// Changes a group's delimiters (to none: the contents stand bare).
    Redelimit,
    /// A statement or item the macros do not support, where a statement starts.
    InsertStatement,
    /// An attribute on a statement, an expression, a parameter or the function.
    InsertAttribute,
    /// A parameter of an odd kind (`&mut`, `impl Trait`, `self`, a pattern).
    InsertParameter,
    /// Generics, a `where` clause, a qualifier or another return type.
    ChangeSignature,
    /// An operand wrapped in, prefixed or followed by an odd construct.
    ChangeOperand,
    /// A literal or an identifier replaced by an odd one.
    OddToken,
    /// The function moved onto or next to another kind of item.
    OtherItem,
}

/// Every operator applied inside a function (all but `OtherItem`).
pub const TOKEN_OPERATORS: &[Operator] = &[
    Operator::Delete,
    Operator::Duplicate,
    Operator::Swap,
    Operator::Replace,
    Operator::DeleteGroup,
    Operator::EmptyGroup,
    Operator::Redelimit,
    Operator::InsertStatement,
    Operator::InsertAttribute,
    Operator::InsertParameter,
    Operator::ChangeSignature,
    Operator::ChangeOperand,
    Operator::OddToken,
];

/// A token tree that can be edited in place.
#[derive(Clone, Debug)]
pub enum Node {
    /// An identifier, a punctuation character or a literal (never a group).
    Token(TokenTree),
    Group(Delimiter, Vec<Node>),
}

pub fn to_nodes(stream: TokenStream) -> Vec<Node> {
    stream
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Group(group) => Node::Group(group.delimiter(), to_nodes(group.stream())),
            other => Node::Token(other),
        })
        .collect()
}

pub fn to_stream(nodes: &[Node]) -> TokenStream {
    nodes
        .iter()
        .map(|node| match node {
            Node::Token(tree) => tree.clone(),
            Node::Group(delimiter, inner) => {
                TokenTree::Group(Group::new(*delimiter, to_stream(inner)))
            }
        })
        .collect()
}

/// The text rustc will read. The mutants are filtered by parsing this text, not the tokens, so
/// that the filter sees what rustc sees (a `Joint` punctuation character glues to the next one).
pub fn render(nodes: &[Node]) -> String {
    to_stream(nodes).to_string()
}

/// Tokens of a snippet written as text (the snippets are ours and always lex).
fn snippet(text: &str) -> Vec<Node> {
    match text.parse::<TokenStream>() {
        Ok(stream) => to_nodes(stream),
        Err(_) => Vec::new(),
    }
}

pub fn count_tokens(nodes: &[Node]) -> usize {
    nodes
        .iter()
        .map(|node| match node {
            Node::Token(_) => 1,
            Node::Group(_, inner) => 2 + count_tokens(inner),
        })
        .sum()
}

fn is_ident(node: &Node, name: &str) -> bool {
    matches!(node, Node::Token(TokenTree::Ident(ident)) if ident == name)
}

fn is_punct(node: &Node, ch: char) -> bool {
    matches!(node, Node::Token(TokenTree::Punct(punct)) if punct.as_char() == ch)
}

/// Where a node sits: the indices of the groups leading to its list, then its index there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub parent: Vec<usize>,
    pub index: usize,
}

fn list_mut<'a>(root: &'a mut Vec<Node>, parent: &[usize]) -> Option<&'a mut Vec<Node>> {
    let mut list = root;
    for &index in parent {
        match list.get_mut(index)? {
            Node::Group(_, inner) => list = inner,
            Node::Token(_) => return None,
        }
    }
    Some(list)
}

fn list<'a>(root: &'a [Node], parent: &[usize]) -> Option<&'a [Node]> {
    let mut list = root;
    for &index in parent {
        match list.get(index)? {
            Node::Group(_, inner) => list = inner,
            Node::Token(_) => return None,
        }
    }
    Some(list)
}

fn node_at<'a>(root: &'a [Node], place: &Place) -> Option<&'a Node> {
    list(root, &place.parent)?.get(place.index)
}

/// Every node at every depth, in reading order.
pub fn places(root: &[Node]) -> Vec<Place> {
    fn walk(list: &[Node], parent: &mut Vec<usize>, out: &mut Vec<Place>) {
        for (index, node) in list.iter().enumerate() {
            out.push(Place {
                parent: parent.clone(),
                index,
            });
            if let Node::Group(_, inner) = node {
                parent.push(index);
                walk(inner, parent, out);
                parent.pop();
            }
        }
    }
    let mut out = Vec::new();
    walk(root, &mut Vec::new(), &mut out);
    out
}

/// The parts of a function item at the top level of its tokens.
struct Signature {
    /// Index of the `fn` keyword.
    fn_keyword: usize,
    /// Index of the parameter group.
    params: usize,
    /// Index of the body (the last brace group).
    body: usize,
}

fn signature(root: &[Node]) -> Option<Signature> {
    let fn_keyword = root.iter().position(|node| is_ident(node, "fn"))?;
    let params = (fn_keyword..root.len())
        .find(|&index| matches!(&root[index], Node::Group(Delimiter::Parenthesis, _)))?;
    let body = root
        .iter()
        .rposition(|node| matches!(node, Node::Group(Delimiter::Brace, _)))?;
    (params < body).then_some(Signature {
        fn_keyword,
        params,
        body,
    })
}

/// Places inside the body (or anywhere, for an item that is not a function).
fn body_places(root: &[Node]) -> Vec<Place> {
    let body = signature(root).map(|signature| signature.body);
    places(root)
        .into_iter()
        .filter(|place| match body {
            Some(body) => place.parent.first() == Some(&body),
            None => true,
        })
        .collect()
}

/// Insertion points where a statement may start: the opening of a brace group, after a `;`,
/// after a brace group (a block-like statement).
fn statement_starts(root: &[Node]) -> Vec<Place> {
    let mut out = Vec::new();
    let body = signature(root).map(|signature| signature.body);
    for place in places(root) {
        let Some(Node::Group(Delimiter::Brace, inner)) = node_at(root, &place) else {
            continue;
        };
        let mut parent = place.parent.clone();
        parent.push(place.index);
        if body.is_some() && parent.first() != body.as_ref() {
            continue;
        }
        out.push(Place {
            parent: parent.clone(),
            index: 0,
        });
        for (index, child) in inner.iter().enumerate() {
            if is_punct(child, ';') || matches!(child, Node::Group(Delimiter::Brace, _)) {
                out.push(Place {
                    parent: parent.clone(),
                    index: index + 1,
                });
            }
        }
    }
    out
}

/// Operands in the body: names, literals, parenthesized and bracketed groups.
fn operands(root: &[Node]) -> Vec<Place> {
    body_places(root)
        .into_iter()
        .filter(|place| match node_at(root, place) {
            Some(Node::Token(TokenTree::Ident(ident))) => !KEYWORDS.contains(&&*ident.to_string()),
            Some(Node::Token(TokenTree::Literal(_))) => true,
            Some(Node::Group(delimiter, _)) => {
                matches!(delimiter, Delimiter::Parenthesis | Delimiter::Bracket)
            }
            _ => false,
        })
        .collect()
}

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn",
];

/// Statements and items the macros do not support (or support only in some forms), and odd
/// but valid Rust.
const STATEMENTS: &[&str] = &[
    "let u = unsafe { 1.0 };",
    "unsafe {}",
    "loop {}",
    "yield 1.0;",
    "let c = const { 1.0 };",
    "const { 2.0 };",
    "fn inner(x: f64) -> f64 { x * 2.0 }",
    "#[forward] fn inner(x: f64) -> f64 { x.sin() }",
    "#[reverse] #[forward] fn inner(v: &[f64]) -> f64 { v[0] }",
    "#[checkpoint] fn inner(x: f64) -> f64 { x }",
    "struct Inner { a: f64 }",
    "#[derive(Clone, Copy, Debug, Differentiable)] struct Inner { a: f64, b: f64 }",
    "#[derive(Clone, Debug, Differentiable)] enum Inner { A(f64), B { c: f64 }, C }",
    "#[derive(Differentiable)] struct Inner<T> { a: T }",
    "#[derive(Clone, Differentiable)] struct Inner(f64, f32);",
    "struct Inner; impl Inner { #[forward] fn f(&self, x: f64) -> f64 { x } }",
    "trait Inner { #[reverse] fn f(x: f64) -> f64 { x } }",
    "'l: loop { break 'l; }",
    "let b = 'l: { break 'l 1.0; };",
    "println!(\"{}\", 1.0);",
    "other!(1.0);",
    "other! { x }",
    "macro_rules! twice { ($e:expr) => { $e * 2.0 }; }",
    "let t = twice!(1.0);",
    "let m = match 1.0 { 1.0 => 0.5, _ => 2.0 };",
    "match 0.5f64 { 0.0..=1.0 => {} _ => {} }",
    "let a = async { 1.0 };",
    "let a = async move { 1.0 }.await;",
    "let r = &mut 1.0; *r += 1.0;",
    "let mix = 1.0f32 + 2.0f64;",
    "let mix: f32 = 1.0f64 as f32;",
    "let big = 1e400;",
    "let long = 0.123456789012345678901234567890123456789012345678901234567890123456789;",
    "let huge = 340282366920938463463374607431768211456;",
    "let small = 300u8;",
    "let i = -5i8 as f64;",
    "return;",
    "return 1.0;",
    "return (1.0, 2.0);",
    "break;",
    "continue;",
    "use std::f64::consts::PI;",
    "use super::*;",
    "static mut S: f64 = 0.0;",
    "unsafe { S += 1.0; }",
    "let (p, q) = (1.0, 2.0f32);",
    "let [p, q] = [1.0, 2.0];",
    "let Some(v) = Some(1.0) else { panic!() };",
    "if let Some(v) = Some(1.0) { }",
    "while let Some(v) = None::<f64> {}",
    "let c = |t| t * 2.0;",
    "let c = || 1.0; c();",
    "let f = square; f(1.0);",
    "let f: fn(f64) -> f64 = square;",
    "let o = Some(1.0).map(|v| v * 2.0);",
    "let s = String::from(\"a\");",
    "let b = Box::new(1.0);",
    "let e: [f64; 0] = [];",
    "let n = 0..=3;",
    "for i in (0..10).rev().step_by(0) {}",
    "for v in [1.0, 2.0].iter().skip(1) {}",
    "for v in 0.0..1.0 {}",
    "let _ = self;",
    "let s = Self::X;",
    "super::square(1.0);",
    "crate::square(2.0);",
    "let t = try { 1.0 };",
    "let q = Vec2 { x: 1.0, y: 2.0 };",
    "let q = Vec2 { x: 1.0, ..Vec2 { x: 0.0, y: 0.0 } };",
    "let sh = Shape::Circle(1.0);",
    "let l = List::Cons(1.0, Box::new(List::Nil));",
    "let o: Option<f64> = None; o.take();",
    "let mut v = vec![1.0]; v.iter_mut().for_each(|e| *e += 1.0);",
    "let mut m = vec![vec![1.0]]; m[0].push(2.0); m.swap(0, 0);",
    "let w = vec![vec![vec![1.0]]];",
    "let g = square_grad(1.0);",
    "let d = square_jvp(1.0, 1.0);",
    "let n = norm2_vjp(&[1.0], 1.0);",
    "let x = step(1.0, 2.0) as u8;",
    "drop(1.0);",
    "std::mem::swap(&mut 1.0, &mut 2.0);",
    "todo!();",
    "unimplemented!(\"x\");",
    "assert_eq!(1.0, 1.0);",
    "#[checkpoint] let z = 1.0;",
    "#[checkpoint(every = 0)] for _ in 0..3 {}",
    "#[checkpoint(binomial)] while false {}",
    "#[checkpoint(binomial, snapshots = 0)] loop { break; }",
    "#[checkpoint(every = 2)] {}",
    "#[checkpoint] return 1.0;",
    "#[checkpoint] for _ in 0..2 { break; }",
    "#[checkpoint(every = 1)] for i in 0..3 { if i > 1 { return 0.0; } }",
    "#[no_grad] let z = 1.0;",
    "#[grad] let z = 2.0;",
    "#[reverse] let z = 3.0;",
    "#[forward] { }",
];

/// Attributes, well or badly formed, ours and others'.
const ATTRIBUTES: &[&str] = &[
    "#[checkpoint]",
    "#[checkpoint(every = 0)]",
    "#[checkpoint(every = 3)]",
    "#[checkpoint(every = -1)]",
    "#[checkpoint(every = 1.5)]",
    "#[checkpoint(every = n)]",
    "#[checkpoint(every = \"2\")]",
    "#[checkpoint(every = 18446744073709551616)]",
    "#[checkpoint(every = 4294967296)]",
    "#[checkpoint(binomial)]",
    "#[checkpoint(binomial, snapshots = 0)]",
    "#[checkpoint(binomial, snapshots = 1)]",
    "#[checkpoint(binomial, snapshots = 4)]",
    "#[checkpoint(snapshots = 4)]",
    "#[checkpoint(every = 2, binomial, snapshots = 3)]",
    "#[checkpoint(every = 2, every = 3)]",
    "#[checkpoint(binomial, binomial)]",
    "#[checkpoint(foo)]",
    "#[checkpoint(foo = 1)]",
    "#[checkpoint = 1]",
    "#[checkpoint()]",
    "#[checkpoint(binomial snapshots = 3)]",
    "#[checkpoint(,)]",
    "#[checkpoint(every)]",
    "#[checkpoint(every =)]",
    "#[checkpoint(every(2))]",
    "#[ad_runtime::checkpoint]",
    "#[ad_runtime::checkpoint(every = 2)]",
    "#[no_grad]",
    "#[grad]",
    "#[grad(x)]",
    "#[no_grad = 1]",
    "#[forward]",
    "#[reverse]",
    "#[inline]",
    "#[allow(unused)]",
    "#[cfg(any())]",
    "#[cfg(all())]",
    "#[doc = \"d\"]",
    "#[rustfmt::skip]",
    "#[must_use]",
    "#[derive(Clone)]",
];

/// Attributes for the function item itself.
const ITEM_ATTRIBUTES: &[&str] = &[
    "#[reverse]",
    "#[forward]",
    "#[checkpoint]",
    "#[checkpoint(every = 2)]",
    "#[forward(x)]",
    "#[reverse = \"a\"]",
    "#[reverse()]",
    "#[inline]",
    "#[no_grad]",
    "#[grad]",
    "#[cfg(any())]",
    "#[cfg_attr(all(), reverse)]",
    "#[derive(Clone)]",
    "#[test]",
    "#[ad_runtime::forward]",
    "#[ad_runtime::reverse]",
    "#[doc(hidden)]",
    "#[track_caller]",
    "#[deprecated]",
    "#[must_use]",
    "#[allow(clippy::all)]",
];

/// Parameters the macros refuse or treat specially.
const PARAMETERS: &[&str] = &[
    "&mut self",
    "&self",
    "self",
    "mut self",
    "self: Box<Self>",
    "y: &mut f64",
    "v: &mut Vec<f64>",
    "v: &mut [f64]",
    "g: impl Fn(f64) -> f64",
    "g: &dyn Fn(f64) -> f64",
    "g: fn(f64) -> f64",
    "(a, b): (f64, f64)",
    "[p, q]: [f64; 2]",
    "Vec2 { x, y }: Vec2",
    "_: f64",
    "mut z: f64",
    "#[no_grad] n: usize",
    "#[grad] w: f64",
    "#[grad] #[no_grad] w: f64",
    "#[no_grad] v: &[f64]",
    "#[grad] p: Vec2",
    "#[grad] p: &Body",
    "#[grad] s: Shape",
    "#[grad] o: Option<f64>",
    "#[grad] n: usize",
    "#[grad] b: Box<Vec2>",
    "p: Vec2",
    "t: T",
    "s: &str",
    "o: Option<f64>",
    "b: Box<f64>",
    "x: f64",
    "x: f32",
    "r: &'a f64",
    "r: &'static f64",
    "m: &[[f64; 2]]",
    "m: Vec<Vec<Vec<f64>>>",
    "t: (f64, (f64, f64))",
    "t: (f64, Vec<f64>)",
    "a: [f64; 0]",
    "a: [f64; N]",
    "q: *const f64",
    "u: u128",
    "c: char",
    "e: ()",
    "n: !",
    "args: ...",
];

/// Return types to put in place of the function's own.
const RETURN_TYPES: &[&str] = &[
    "-> impl Into<f64>",
    "-> !",
    "-> Self",
    "-> (f64, f32)",
    "-> Option<f64>",
    "-> &'static f64",
    "-> [f64; 2]",
    "-> [[f64; 2]; 2]",
    "-> Result<f64, ()>",
    "-> Vec2",
    "-> Shape",
    "-> Option<Vec2>",
    "-> Vec<Vec<Vec<f64>>>",
    "-> Vec<Vec<f64>>",
    "-> Vec<(f64, f64)>",
    "-> (f64, (f64, f64))",
    "-> (f64,)",
    "-> ()",
    "-> f32",
    "-> i32",
    "-> u8",
    "-> bool",
    "-> Box<f64>",
    "-> impl Fn(f64) -> f64",
    "-> _",
    "-> &[f64]",
    "-> String",
    "-> T",
    "",
];

const GENERICS: &[&str] = &[
    "<T: Copy>",
    "<T>",
    "<'a>",
    "<'a, T: Into<f64>>",
    "<const N: usize>",
    "<S: Into<f64> + Copy>",
    "<__S>",
];

const WHERE_CLAUSES: &[&str] = &[
    "where T: Copy",
    "where f64: Copy",
    "where for<'a> &'a f64: Copy",
    "where Self: Sized",
];

const QUALIFIERS: &[&str] = &[
    "async",
    "unsafe",
    "const",
    "extern \"C\"",
    "pub",
    "pub(crate)",
    "async unsafe",
    "const unsafe",
    "default",
];

/// Wrappers of an operand `X`.
const WRAPPERS: &[&str] = &[
    "unsafe { X }",
    "async { X }",
    "const { X }",
    "{ X }",
    "(X as u8)",
    "(X as f32)",
    "(X as i64 as f64)",
    "X.await",
    "X?",
    "match X { 1.0 => X, _ => X }",
    "match X { 0.0..=1.0 => X, _ => X }",
    "loop { break X; }",
    "if true { X } else { X }",
    "std::hint::black_box(X)",
    "dbg!(X)",
    "format!(\"{}\", X)",
    "vec![X]",
    "[X][0]",
    "(X,).0",
    "(|t: f64| t)(X)",
    "(|t| t)(X)",
    "X.max(X)",
    "X.clone()",
    "Some(X).unwrap()",
    "Some(X).map(|v| v)",
    "Box::new(X)",
    "*&X",
    "&mut X",
    "&X",
    "-X",
    "!X",
    "yield X",
    "move || X",
    "X..",
    "X..=X",
    "..X",
    "X as usize as f64",
    "X.len()",
    "X.iter().skip(1).sum::<f64>()",
    "X[0]",
    "X.0",
    "X()",
    "square(X)",
    "square_grad(X)",
    "step(X, X)",
    "X = X",
    "X += X",
    "'l: { X }",
    "Vec2 { x: X, y: X }",
    "Shape::Circle(X)",
];

const ODD_LITERALS: &[&str] = &[
    "1e400",
    "1e-400",
    "0.00000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
    "123456789012345678901234567890123456789012345678901234567890.5",
    "340282366920938463463374607431768211456",
    "18446744073709551616",
    "0.0",
    "1u8",
    "255u8",
    "1i128",
    "1.0f32",
    "2.5f64",
    "1f64",
    "0x1F",
    "0b101",
    "0o7",
    "1_000_000.000_1",
    "'c'",
    "\"s\"",
    "b\"x\"",
    "b'x'",
    "r\"raw\"",
    "1usize",
    "1.",
    "1e5",
    "1E-5_f32",
    "1.0e+10",
    "-0.0",
    "-1",
];

const ODD_IDENTS: &[&str] = &[
    "f32",
    "f64",
    "i32",
    "u8",
    "usize",
    "self",
    "Self",
    "super",
    "crate",
    "_",
    "r#fn",
    "r#match",
    "async",
    "await",
    "dyn",
    "impl",
    "unsafe",
    "Vec2",
    "Body",
    "Shape",
    "List",
    "square",
    "square_jvp",
    "square_grad",
    "norm2_vjp",
    "step",
    "doubled",
    "RATE",
    "checkpoint",
    "forward",
    "reverse",
    "grad",
    "no_grad",
    "Some",
    "None",
    "Option",
    "Box",
    "String",
    "main",
    "std",
    "core",
    "ad_runtime",
    "Differentiable",
    "Scalar",
    "Dual",
    "drop",
    "panic",
    "vec",
    "macro_rules",
    "union",
    "default",
    "static",
    "extern",
    "true",
    "false",
    "move",
    "ref",
    "box",
    "yield",
    "try",
];

/// Whole items that carry the attributes somewhere other than on a function; `FN` stands for
/// the seed with its attributes, `BARE` for the seed without them.
const OTHER_ITEMS: &[&str] = &[
    "#[forward] struct S { x: f64 }",
    "#[reverse] #[derive(Clone)] struct S(f64);",
    "#[reverse] enum E { A(f64), B }",
    "#[checkpoint] const C: f64 = 1.0;",
    "#[forward] static S: f64 = 1.0;",
    "#[reverse] type A = f64;",
    "#[forward] use std::f64::consts::PI;",
    "#[reverse] mod inner {}",
    "#[reverse] mod inner { use super::*; FN }",
    "#[forward] trait T { fn f(x: f64) -> f64; }",
    "#[reverse] trait T { fn f(x: f64) -> f64 { x } }",
    "#[forward] impl Vec2 {}",
    "#[reverse] extern \"C\" { fn g(x: f64) -> f64; }",
    "#[forward] macro_rules! m { () => {}; }",
    "#[reverse] union U { a: f64, b: u64 }",
    "#[forward] extern crate core;",
    "#[reverse] const fn cf(x: f64) -> f64 { x }",
    "#[checkpoint(every = 2)] BARE",
    "#[checkpoint(binomial, snapshots = 2)] BARE",
    "#[forward(mode = 1)] BARE",
    "#[reverse(x)] BARE",
    "#[reverse = 3] BARE",
    "#[reverse] #[reverse] BARE",
    "#[forward] #[forward] BARE",
    "#[checkpoint] #[reverse] BARE",
    "#[forward] #[checkpoint] BARE",
    "#[checkpoint] #[checkpoint] BARE",
    "#[reverse] #[forward] #[checkpoint] BARE",
    "const _: () = { struct Local; #[reverse] impl Local { BARE } };",
    "const _: () = { struct Local; impl Local { FN } };",
    "const _: () = { #[derive(Clone, Copy, Differentiable)] struct Local { a: f64 } impl Local { FN } };",
    "const _: () = { trait Tr { FN } };",
    "const _: () = { trait Tr { fn g(x: f64) -> f64; } struct Local; impl Tr for Local { #[reverse] fn g(x: f64) -> f64 { x } } };",
    "const _: () = { FN };",
    "const _: f64 = { #[checkpoint] let v = 1.0; v };",
    "static S: fn() = || { #[checkpoint] { } };",
    "fn plain() { #[forward] let x = 1.0; }",
    "fn plain() { FN }",
    "extern \"C\" { #[forward] fn g(x: f64) -> f64; }",
];

/// A source of randomness for one mutant.
pub struct Mutator<'a> {
    pub rng: &'a mut fastrand::Rng,
}

impl Mutator<'_> {
    fn pick<'t, T>(&mut self, items: &'t [T]) -> Option<&'t T> {
        if items.is_empty() {
            None
        } else {
            Some(&items[self.rng.usize(..items.len())])
        }
    }

    fn pick_text(&mut self, items: &[&str]) -> Vec<Node> {
        self.pick(items)
            .map(|text| snippet(text))
            .unwrap_or_default()
    }

    /// Applies `operator` somewhere in `root`; false when it found nowhere to act (a function
    /// with no group cannot lose one).
    pub fn apply(&mut self, operator: Operator, root: &mut Vec<Node>) -> bool {
        match operator {
            Operator::Delete => self.delete(root),
            Operator::Duplicate => self.duplicate(root),
            Operator::Swap => self.swap(root),
            Operator::Replace => self.replace(root),
            Operator::DeleteGroup => self.delete_group(root),
            Operator::EmptyGroup => self.empty_group(root),
            Operator::Redelimit => self.redelimit(root),
            Operator::InsertStatement => self.insert_statement(root),
            Operator::InsertAttribute => self.insert_attribute(root),
            Operator::InsertParameter => self.insert_parameter(root),
            Operator::ChangeSignature => self.change_signature(root),
            Operator::ChangeOperand => self.change_operand(root),
            Operator::OddToken => self.odd_token(root),
            Operator::OtherItem => self.other_item(root),
        }
    }

    fn pick_place(&mut self, root: &[Node], wanted: impl Fn(&Node) -> bool) -> Option<Place> {
        let candidates: Vec<Place> = places(root)
            .into_iter()
            .filter(|place| node_at(root, place).is_some_and(&wanted))
            .collect();
        self.pick(&candidates).cloned()
    }

    fn delete(&mut self, root: &mut Vec<Node>) -> bool {
        let Some(place) = self.pick_place(root, |node| matches!(node, Node::Token(_))) else {
            return false;
        };
        remove(root, &place).is_some()
    }

    fn duplicate(&mut self, root: &mut Vec<Node>) -> bool {
        let Some(place) = self.pick_place(root, |_| true) else {
            return false;
        };
        let Some(node) = node_at(root, &place).cloned() else {
            return false;
        };
        insert(root, &place.parent, place.index + 1, vec![node])
    }

    fn swap(&mut self, root: &mut Vec<Node>) -> bool {
        let candidates: Vec<Place> = places(root)
            .into_iter()
            .filter(|place| {
                list(root, &place.parent).is_some_and(|list| place.index + 1 < list.len())
            })
            .collect();
        let Some(place) = self.pick(&candidates).cloned() else {
            return false;
        };
        match list_mut(root, &place.parent) {
            Some(list) => {
                list.swap(place.index, place.index + 1);
                true
            }
            None => false,
        }
    }

    /// Another token of the function: usually of the same kind, so that the result has a
    /// chance to parse; sometimes any token.
    fn replace(&mut self, root: &mut Vec<Node>) -> bool {
        let Some(place) = self.pick_place(root, |node| matches!(node, Node::Token(_))) else {
            return false;
        };
        let Some(Node::Token(target)) = node_at(root, &place).cloned() else {
            return false;
        };
        let same_kind = self.rng.u8(..4) != 0;
        let donors: Vec<TokenTree> = places(root)
            .iter()
            .filter_map(|donor| match node_at(root, donor) {
                Some(Node::Token(tree)) => Some(tree.clone()),
                _ => None,
            })
            .filter(|tree| !same_kind || kind(tree) == kind(&target))
            .filter(|tree| tree.to_string() != target.to_string())
            .collect();
        let Some(donor) = self.pick(&donors).cloned() else {
            return false;
        };
        set(root, &place, vec![Node::Token(donor)])
    }

    fn delete_group(&mut self, root: &mut Vec<Node>) -> bool {
        let Some(place) = self.pick_place(root, |node| matches!(node, Node::Group(..))) else {
            return false;
        };
        remove(root, &place).is_some()
    }

    fn empty_group(&mut self, root: &mut Vec<Node>) -> bool {
        let Some(place) = self.pick_place(
            root,
            |node| matches!(node, Node::Group(_, inner) if !inner.is_empty()),
        ) else {
            return false;
        };
        let mut path = place.parent.clone();
        path.push(place.index);
        match list_mut(root, &path) {
            Some(inner) => {
                inner.clear();
                true
            }
            None => false,
        }
    }

    fn redelimit(&mut self, root: &mut Vec<Node>) -> bool {
        let Some(place) = self.pick_place(root, |node| matches!(node, Node::Group(..))) else {
            return false;
        };
        let Some(Node::Group(old, inner)) = node_at(root, &place).cloned() else {
            return false;
        };
        let others: Vec<Delimiter> = [
            Delimiter::Parenthesis,
            Delimiter::Brace,
            Delimiter::Bracket,
            Delimiter::None,
        ]
        .into_iter()
        .filter(|delimiter| *delimiter != old)
        .collect();
        let Some(&new) = self.pick(&others) else {
            return false;
        };
        set(root, &place, vec![Node::Group(new, inner)])
    }

    fn insert_statement(&mut self, root: &mut Vec<Node>) -> bool {
        let starts = statement_starts(root);
        let Some(place) = self.pick(&starts).cloned() else {
            return false;
        };
        let statement = self.pick_text(STATEMENTS);
        insert(root, &place.parent, place.index, statement)
    }

    fn insert_attribute(&mut self, root: &mut Vec<Node>) -> bool {
        let attribute = self.pick_text(ATTRIBUTES);
        match self.rng.u8(..4) {
            // Before a statement.
            0 | 1 => {
                let starts = statement_starts(root);
                let Some(place) = self.pick(&starts).cloned() else {
                    return false;
                };
                insert(root, &place.parent, place.index, attribute)
            }
            // Before an operand (an attribute on an expression).
            2 => {
                let operands = operands(root);
                let Some(place) = self.pick(&operands).cloned() else {
                    return false;
                };
                insert(root, &place.parent, place.index, attribute)
            }
            // On a parameter, or on the function.
            _ => {
                if self.rng.bool() {
                    let Some(signature) = signature(root) else {
                        return false;
                    };
                    let at = self.parameter_starts(root, signature.params);
                    let Some(&index) = self.pick(&at) else {
                        return false;
                    };
                    insert(root, &[signature.params], index, attribute)
                } else {
                    let attribute = self.pick_text(ITEM_ATTRIBUTES);
                    let end = signature(root).map_or(0, |signature| signature.fn_keyword);
                    let index = self.rng.usize(..=end);
                    insert(root, &[], index, attribute)
                }
            }
        }
    }

    /// Indices in the parameter group where a parameter starts.
    fn parameter_starts(&self, root: &[Node], params: usize) -> Vec<usize> {
        let Some(Node::Group(_, inner)) = root.get(params) else {
            return Vec::new();
        };
        let mut starts = vec![0];
        starts.extend(
            inner
                .iter()
                .enumerate()
                .filter(|(_, node)| is_punct(node, ','))
                .map(|(index, _)| index + 1),
        );
        starts
    }

    fn insert_parameter(&mut self, root: &mut Vec<Node>) -> bool {
        let Some(signature) = signature(root) else {
            return false;
        };
        let starts = self.parameter_starts(root, signature.params);
        let Some(&index) = self.pick(&starts) else {
            return false;
        };
        let mut parameter = self.pick_text(PARAMETERS);
        let at_end = list(root, &[signature.params]).is_some_and(|inner| index == inner.len());
        if at_end && index > 0 {
            parameter.insert(0, Node::Token(TokenTree::Punct(comma())));
        } else {
            parameter.push(Node::Token(TokenTree::Punct(comma())));
        }
        insert(root, &[signature.params], index, parameter)
    }

    fn change_signature(&mut self, root: &mut Vec<Node>) -> bool {
        let Some(signature) = signature(root) else {
            return false;
        };
        match self.rng.u8(..4) {
            0 => {
                let generics = self.pick_text(GENERICS);
                insert(root, &[], signature.fn_keyword + 2, generics)
            }
            1 => {
                let clause = self.pick_text(WHERE_CLAUSES);
                insert(root, &[], signature.body, clause)
            }
            2 => {
                let qualifier = self.pick_text(QUALIFIERS);
                insert(root, &[], signature.fn_keyword, qualifier)
            }
            _ => {
                let ret = self.pick_text(RETURN_TYPES);
                let end = root
                    .iter()
                    .position(|node| is_ident(node, "where"))
                    .unwrap_or(signature.body)
                    .min(signature.body);
                root.splice(signature.params + 1..end, ret);
                true
            }
        }
    }

    fn change_operand(&mut self, root: &mut Vec<Node>) -> bool {
        let operands = operands(root);
        let Some(place) = self.pick(&operands).cloned() else {
            return false;
        };
        let Some(operand) = node_at(root, &place).cloned() else {
            return false;
        };
        let wrapper = self.pick_text(WRAPPERS);
        set(root, &place, substitute(wrapper, &operand))
    }

    fn odd_token(&mut self, root: &mut Vec<Node>) -> bool {
        let literal = self.rng.bool();
        let place = if literal {
            self.pick_place(root, |node| {
                matches!(node, Node::Token(TokenTree::Literal(_)))
            })
        } else {
            self.pick_place(root, |node| {
                matches!(node, Node::Token(TokenTree::Ident(_)))
            })
        };
        let Some(place) = place else {
            return false;
        };
        let replacement = if literal {
            self.pick_text(ODD_LITERALS)
        } else {
            self.pick_text(ODD_IDENTS)
        };
        set(root, &place, replacement)
    }

    fn other_item(&mut self, root: &mut Vec<Node>) -> bool {
        let Some(template) = self.pick(OTHER_ITEMS).copied() else {
            return false;
        };
        let with_attributes = root.clone();
        let bare = without_outer_attributes(root);
        let mut item = snippet(template);
        item = substitute_named(item, "FN", &with_attributes);
        item = substitute_named(item, "BARE", &bare);
        *root = item;
        true
    }
}

fn comma() -> proc_macro2::Punct {
    proc_macro2::Punct::new(',', Spacing::Alone)
}

fn kind(tree: &TokenTree) -> u8 {
    match tree {
        TokenTree::Ident(_) => 0,
        TokenTree::Punct(_) => 1,
        TokenTree::Literal(_) => 2,
        TokenTree::Group(_) => 3,
    }
}

fn remove(root: &mut Vec<Node>, place: &Place) -> Option<Node> {
    let list = list_mut(root, &place.parent)?;
    (place.index < list.len()).then(|| list.remove(place.index))
}

fn insert(root: &mut Vec<Node>, parent: &[usize], index: usize, nodes: Vec<Node>) -> bool {
    if nodes.is_empty() {
        return false;
    }
    match list_mut(root, parent) {
        Some(list) if index <= list.len() => {
            list.splice(index..index, nodes);
            true
        }
        _ => false,
    }
}

fn set(root: &mut Vec<Node>, place: &Place, nodes: Vec<Node>) -> bool {
    match list_mut(root, &place.parent) {
        Some(list) if place.index < list.len() => {
            list.splice(place.index..place.index + 1, nodes);
            true
        }
        _ => false,
    }
}

/// The wrapper with each `X` replaced by the operand.
fn substitute(wrapper: Vec<Node>, operand: &Node) -> Vec<Node> {
    substitute_named(wrapper, "X", std::slice::from_ref(operand))
}

fn substitute_named(nodes: Vec<Node>, name: &str, with: &[Node]) -> Vec<Node> {
    let mut out = Vec::new();
    for node in nodes {
        match node {
            node if is_ident(&node, name) => out.extend(with.iter().cloned()),
            Node::Group(delimiter, inner) => {
                out.push(Node::Group(delimiter, substitute_named(inner, name, with)))
            }
            other => out.push(other),
        }
    }
    out
}

/// The item without its leading `#[..]` attributes.
fn without_outer_attributes(root: &[Node]) -> Vec<Node> {
    let mut start = 0;
    while start + 1 < root.len()
        && is_punct(&root[start], '#')
        && matches!(root[start + 1], Node::Group(Delimiter::Bracket, _))
    {
        start += 2;
    }
    root[start..].to_vec()
}

/// One step of the reducer: a node removed, or a group's contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deletion {
    pub place: Place,
    /// Keep the group's delimiters, remove what it holds.
    pub contents_only: bool,
    /// Tokens it removes.
    pub size: usize,
}

/// Every deletion of one node (a token or a whole group) and of every group's contents, at any
/// depth, the largest first.
pub fn deletions(root: &[Node]) -> Vec<Deletion> {
    let mut out = Vec::new();
    for place in places(root) {
        let Some(node) = node_at(root, &place) else {
            continue;
        };
        let size = count_tokens(std::slice::from_ref(node));
        if let Node::Group(_, inner) = node {
            if !inner.is_empty() {
                out.push(Deletion {
                    place: place.clone(),
                    contents_only: true,
                    size: size - 2,
                });
            }
        }
        out.push(Deletion {
            place,
            contents_only: false,
            size,
        });
    }
    out.sort_by_key(|candidate| std::cmp::Reverse(candidate.size));
    out
}

/// `root` without what `deletions` remove (places are `root`'s; one inside another removed
/// goes with it).
pub fn apply_deletions(root: &[Node], deletions: &[Deletion]) -> Vec<Node> {
    fn rebuild(list: &[Node], path: &mut Vec<usize>, deletions: &[Deletion]) -> Vec<Node> {
        let mut out = Vec::new();
        for (index, node) in list.iter().enumerate() {
            let here = |contents_only: bool| {
                deletions.iter().any(|deletion| {
                    deletion.contents_only == contents_only
                        && deletion.place.index == index
                        && deletion.place.parent == *path
                })
            };
            if here(false) {
                continue;
            }
            match node {
                Node::Group(delimiter, _) if here(true) => {
                    out.push(Node::Group(*delimiter, Vec::new()))
                }
                Node::Group(delimiter, inner) => {
                    path.push(index);
                    out.push(Node::Group(*delimiter, rebuild(inner, path, deletions)));
                    path.pop();
                }
                token => out.push(token.clone()),
            }
        }
        out
    }
    rebuild(root, &mut Vec::new(), deletions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::seeds::SEEDS;

    fn seed_nodes(index: usize) -> Vec<Node> {
        to_nodes(SEEDS[index].parse().expect("seeds lex"))
    }

    #[test]
    fn every_seed_parses_as_an_item() {
        for seed in SEEDS {
            let nodes = to_nodes(seed.parse().expect("seeds lex"));
            syn::parse_str::<syn::Item>(&render(&nodes)).expect("seeds parse after a round trip");
        }
    }

    #[test]
    fn every_operator_changes_every_seed_and_often_parses() {
        let mut rng = fastrand::Rng::with_seed(7);
        let mut operators = TOKEN_OPERATORS.to_vec();
        operators.push(Operator::OtherItem);
        for &operator in &operators {
            let mut parsed = 0;
            let mut changed = 0;
            let mut tries = 0;
            for index in 0..SEEDS.len() {
                for _ in 0..4 {
                    let mut nodes = seed_nodes(index);
                    let before = render(&nodes);
                    let mut mutator = Mutator { rng: &mut rng };
                    tries += 1;
                    if !mutator.apply(operator, &mut nodes) {
                        continue;
                    }
                    let after = render(&nodes);
                    if after != before {
                        changed += 1;
                        if syn::parse_str::<syn::Item>(&after).is_ok() {
                            parsed += 1;
                        }
                    }
                }
            }
            assert!(
                changed * 10 >= tries * 8,
                "{operator:?} changed {changed} of {tries}"
            );
            assert!(parsed > 0, "{operator:?}: no mutant parses");
        }
    }

    #[test]
    fn deletions_and_insertions_keep_the_rest() {
        let nodes = to_nodes("fn f(x: f64) -> f64 { x }".parse().expect("lexes"));
        let all = deletions(&nodes);
        // Every node, and the contents of the 2 non-empty groups.
        assert_eq!(all.len(), count_nodes(&nodes) + 2);
        assert!(all.windows(2).all(|pair| pair[0].size >= pair[1].size));
        assert!(all.iter().any(|deletion| render(&apply_deletions(
            &nodes,
            std::slice::from_ref(deletion)
        )) == "fn f (x : f64) -> f64 { }"));
        // The body emptied and the return type's name removed at once; the parameter's name and the
        // whole parameter list (which holds it) at once.
        let body = all.iter().find(|d| d.contents_only && d.place.index == 6);
        let ret = all
            .iter()
            .find(|d| d.place.parent.is_empty() && d.place.index == 5);
        let both: Vec<Deletion> = body.into_iter().chain(ret).cloned().collect();
        assert_eq!(
            render(&apply_deletions(&nodes, &both)),
            "fn f (x : f64) -> { }"
        );
        let name = all
            .iter()
            .find(|d| d.place.parent == [2] && d.place.index == 0);
        let params = all
            .iter()
            .find(|d| d.place.parent.is_empty() && d.place.index == 2);
        let nested: Vec<Deletion> = name.into_iter().chain(params).cloned().collect();
        assert_eq!(
            render(&apply_deletions(&nodes, &nested)),
            "fn f -> f64 { x }"
        );
        let mut inserted = nodes.clone();
        let starts = statement_starts(&inserted);
        assert_eq!(starts.len(), 1);
        assert!(insert(
            &mut inserted,
            &starts[0].parent,
            0,
            snippet("loop {}")
        ));
        assert_eq!(render(&inserted), "fn f (x : f64) -> f64 { loop { } x }");
    }

    fn count_nodes(nodes: &[Node]) -> usize {
        places(nodes).len()
    }

    #[test]
    fn wrappers_substitute_the_operand() {
        let operand = snippet("(a + b)").remove(0);
        let wrapped = substitute(snippet("match X { 1.0 => X, _ => X }"), &operand);
        assert_eq!(
            render(&wrapped),
            "match (a + b) { 1.0 => (a + b) , _ => (a + b) }"
        );
    }

    #[test]
    fn other_items_keep_the_seed() {
        let mut rng = fastrand::Rng::with_seed(3);
        let seed = seed_nodes(0);
        let name = "arithmetic";
        let mut found_bare = false;
        for _ in 0..200 {
            let mut nodes = seed.clone();
            Mutator { rng: &mut rng }.apply(Operator::OtherItem, &mut nodes);
            let text = render(&nodes);
            if text.contains(name) && !text.contains("# [forward] # [reverse] fn") {
                found_bare = true;
            }
        }
        assert!(found_bare);
    }
}
