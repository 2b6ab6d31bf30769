//! Shrinks a failing function to a small reproducer that fails the same way.
//!
//! Each round makes every one-step reduction of the current function (a statement removed,
//! an `if` or a loop replaced by one of its blocks, an operation by one of its operands, a
//! method call by its receiver, a checkpoint attribute dropped), checks them all in one
//! scratch crate, and keeps the shortest that still fails with the same class. Reductions
//! that make the program invalid are told apart by their plain twins, as in a campaign.

use std::collections::BTreeMap;

use quote::ToTokens;
use syn::visit_mut::VisitMut;

use crate::checker::{self, Class};
use crate::program::GeneratedFunction;
use crate::scratch::Scratch;

/// Candidates checked per round.
const PER_ROUND: usize = 48;
const ROUNDS: usize = 16;

pub struct Reducer<'a> {
    scratch: &'a Scratch,
    batch: &'a [GeneratedFunction],
}

impl<'a> Reducer<'a> {
    pub fn new(scratch: &'a Scratch, batch: &'a [GeneratedFunction]) -> Reducer<'a> {
        Reducer { scratch, batch }
    }

    /// The reduced function, its callees before it; `None` when nothing smaller fails alike.
    pub fn reduce(&self, function: &GeneratedFunction, class: Class) -> Option<String> {
        let callees: Vec<GeneratedFunction> = self
            .batch
            .iter()
            .filter(|other| other.name != function.name)
            .filter(|other| {
                checker::with_callees(function, self.batch).contains(&format!("fn {}(", other.name))
            })
            .cloned()
            .collect();
        let mut current = function.text.clone();
        let mut reduced_once = false;
        for _ in 0..ROUNDS {
            let mut candidates = one_step_reductions(&current);
            candidates.sort_by_key(|text| text.len());
            candidates.dedup();
            candidates.truncate(PER_ROUND);
            if candidates.is_empty() {
                break;
            }
            let mut set: Vec<GeneratedFunction> = callees.clone();
            let mut names = Vec::new();
            for (index, text) in candidates.iter().enumerate() {
                let name = format!("{}_r{index}", function.name);
                let Some(renamed) = rename(text, &function.name, &name) else {
                    continue;
                };
                set.push(GeneratedFunction {
                    name: name.clone(),
                    text: renamed,
                    callees: function.callees.clone(),
                    features: Vec::new(),
                });
                names.push((name, text.clone()));
            }
            let outcomes = checker::check_functions(self.scratch, &set);
            let best = names
                .iter()
                .filter(|(name, _)| outcomes.get(name).is_some_and(|o| o.class == class))
                .min_by_key(|(_, text)| text.len());
            match best {
                Some((_, text)) if text.len() < current.len() => {
                    current = text.clone();
                    reduced_once = true;
                }
                _ => break,
            }
        }
        if !reduced_once {
            return None;
        }
        let mut out = String::new();
        for callee in &callees {
            out.push_str(&callee.text);
            out.push('\n');
        }
        out.push_str(&pretty(&current));
        Some(out)
    }
}

fn pretty(text: &str) -> String {
    match syn::parse_str::<syn::File>(text) {
        Ok(file) => prettyish(&file.into_token_stream().to_string()),
        Err(_) => text.to_string(),
    }
}

/// Token text broken into lines at statement ends, enough to read a reproducer.
fn prettyish(tokens: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for c in tokens.chars() {
        match c {
            '{' => {
                depth += 1;
                out.push_str("{\n");
                out.push_str(&"    ".repeat(depth));
            }
            '}' => {
                depth = depth.saturating_sub(1);
                out.push('\n');
                out.push_str(&"    ".repeat(depth));
                out.push('}');
            }
            ';' => {
                out.push_str(";\n");
                out.push_str(&"    ".repeat(depth));
            }
            _ => out.push(c),
        }
    }
    out.lines()
        .map(str::trim_end)
        .filter(|line| !line.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The function with `from` renamed `to` (its own name and its recursive calls).
pub fn rename(text: &str, from: &str, to: &str) -> Option<String> {
    let mut item: syn::ItemFn = syn::parse_str(text).ok()?;
    struct Rename<'a>(&'a str, &'a str);
    impl VisitMut for Rename<'_> {
        fn visit_ident_mut(&mut self, ident: &mut proc_macro2::Ident) {
            if ident == self.0 {
                *ident = proc_macro2::Ident::new(self.1, ident.span());
            }
        }
    }
    Rename(from, to).visit_item_fn_mut(&mut item);
    Some(item.into_token_stream().to_string())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    RemoveStatement,
    KeepBranch,
    KeepLoopBody,
    KeepOperand,
    KeepReceiver,
    DropAttribute,
}

const STEPS: [Step; 6] = [
    Step::RemoveStatement,
    Step::KeepBranch,
    Step::KeepLoopBody,
    Step::KeepOperand,
    Step::KeepReceiver,
    Step::DropAttribute,
];

/// Every function one step smaller than `text`.
pub fn one_step_reductions(text: &str) -> Vec<String> {
    let Ok(item) = syn::parse_str::<syn::ItemFn>(text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for step in STEPS {
        for target in 0..10_000 {
            let mut copy = item.clone();
            let mut nth = Nth {
                step,
                target,
                seen: 0,
                done: false,
            };
            nth.visit_block_mut(&mut copy.block);
            if !nth.done {
                break;
            }
            out.push(copy.into_token_stream().to_string());
        }
    }
    let mut unique: BTreeMap<String, ()> = BTreeMap::new();
    out.retain(|text| unique.insert(text.clone(), ()).is_none());
    out
}

/// Applies the `target`-th reduction of kind `step`, counting nodes in visiting order.
struct Nth {
    step: Step,
    target: usize,
    seen: usize,
    done: bool,
}

impl Nth {
    fn hit(&mut self) -> bool {
        let hit = !self.done && self.seen == self.target;
        self.seen += 1;
        if hit {
            self.done = true;
        }
        hit
    }
}

impl VisitMut for Nth {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        if self.done {
            return;
        }
        if self.step == Step::RemoveStatement {
            for index in 0..block.stmts.len() {
                if self.hit() {
                    block.stmts.remove(index);
                    return;
                }
            }
        }
        syn::visit_mut::visit_block_mut(self, block);
    }

    fn visit_stmt_mut(&mut self, stmt: &mut syn::Stmt) {
        if self.done {
            return;
        }
        if self.step == Step::DropAttribute {
            if let syn::Stmt::Local(local) = stmt {
                if !local.attrs.is_empty() && self.hit() {
                    local.attrs.clear();
                    return;
                }
            }
        }
        syn::visit_mut::visit_stmt_mut(self, stmt);
    }

    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        if self.done {
            return;
        }
        let replacement = match (self.step, &*expr) {
            (Step::KeepBranch, syn::Expr::If(branch)) => {
                let then = syn::Expr::Block(syn::ExprBlock {
                    attrs: Vec::new(),
                    label: None,
                    block: branch.then_branch.clone(),
                });
                let otherwise = branch.else_branch.as_ref().map(|(_, e)| (**e).clone());
                if self.hit() {
                    Some(then)
                } else if let Some(otherwise) = otherwise {
                    self.hit().then_some(otherwise)
                } else {
                    None
                }
            }
            (Step::KeepLoopBody, syn::Expr::ForLoop(l)) => self.hit().then(|| block_expr(&l.body)),
            (Step::KeepLoopBody, syn::Expr::While(l)) => self.hit().then(|| block_expr(&l.body)),
            (Step::KeepLoopBody, syn::Expr::Loop(l)) => self.hit().then(|| block_expr(&l.body)),
            (Step::KeepOperand, syn::Expr::Binary(binary)) => {
                if self.hit() {
                    Some(paren(&binary.left))
                } else if self.hit() {
                    Some(paren(&binary.right))
                } else {
                    None
                }
            }
            (Step::KeepReceiver, syn::Expr::MethodCall(call)) => {
                self.hit().then(|| paren(&call.receiver))
            }
            (Step::DropAttribute, syn::Expr::ForLoop(l)) if !l.attrs.is_empty() => {
                self.hit().then(|| {
                    let mut l = l.clone();
                    l.attrs.clear();
                    syn::Expr::ForLoop(l)
                })
            }
            (Step::DropAttribute, syn::Expr::Block(b)) if !b.attrs.is_empty() => {
                self.hit().then(|| {
                    let mut b = b.clone();
                    b.attrs.clear();
                    syn::Expr::Block(b)
                })
            }
            _ => None,
        };
        match replacement {
            Some(replacement) => *expr = replacement,
            None => syn::visit_mut::visit_expr_mut(self, expr),
        }
    }
}

fn block_expr(block: &syn::Block) -> syn::Expr {
    syn::Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: block.clone(),
    })
}

fn paren(expr: &syn::Expr) -> syn::Expr {
    syn::Expr::Paren(syn::ExprParen {
        attrs: Vec::new(),
        paren_token: Default::default(),
        expr: Box::new(expr.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reductions_are_smaller_and_parse() {
        let text = "#[forward] #[reverse] fn f(a: f64) -> f64 { let mut s = a * 2.0; for i in 0..3 { if a > 0.0 { s += a.sin(); } else { s -= 1.0; } } s }";
        let candidates = one_step_reductions(text);
        assert!(candidates.len() > 8, "{candidates:#?}");
        for candidate in candidates {
            syn::parse_str::<syn::ItemFn>(&candidate).expect("parses");
        }
    }

    #[test]
    fn renaming_follows_recursive_calls() {
        let renamed = rename("fn f1(x: f64) -> f64 { f1(x) + f10(x) }", "f1", "g").unwrap();
        assert!(renamed.contains("fn g") && renamed.contains("g (x)") && renamed.contains("f10"));
    }
}
