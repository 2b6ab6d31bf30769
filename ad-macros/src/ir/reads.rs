//! A place read again with nothing written to it in between gives the value already read
//! (`t[j] * t[j]` reads `t[j]` once): the backward sweep then keeps one value, not two. A
//! pass over the IR, switched by `residuals::Passes::reuse_reads`.

use std::collections::HashMap;

use quote::ToTokens;

use super::*;

pub fn reuse_reads(body: &mut Body) {
    reuse_in(&mut body.block, HashMap::new());
}

/// `known`: the places read before in this block or around it, by key, and the value read.
fn reuse_in(block: &mut Block, mut known: HashMap<String, (Root, Value)>) {
    for stmt in &mut block.stmts {
        if let Some(root) = written_root(stmt) {
            forget(&mut known, root);
        }
        match stmt {
            Stmt::Let(Let { value, rvalue, .. }) => {
                if let Rvalue::Use(Operand::Place(place)) = rvalue {
                    if let Some(key) = key(place) {
                        match known.get(&key) {
                            Some((_, read)) => *rvalue = Rvalue::Use(Operand::Value(*read)),
                            None => {
                                known.insert(key, (place.root, *value));
                            }
                        }
                    }
                }
            }
            Stmt::Assign { .. } | Stmt::Push { .. } | Stmt::DeclareVar { .. } => {}
            // A branch runs at most once: what was read before it still holds inside. After
            // it, what it wrote is unknown here.
            Stmt::If {
                then_branch,
                else_branch,
                ..
            } => {
                reuse_in(then_branch, known.clone());
                reuse_in(else_branch, known.clone());
                known.clear();
            }
            // A loop's later iterations follow its own writes: it starts afresh.
            Stmt::For { body, .. } | Stmt::Loop { body, .. } => {
                reuse_in(body, HashMap::new());
                known.clear();
            }
        }
    }
}

fn forget(known: &mut HashMap<String, (Root, Value)>, root: Root) {
    known.retain(|_, (read_root, _)| *read_root != root);
}

/// A key that two reads of the same place share: the root, then each projection, an index by
/// the value or constant it is.
pub fn key(place: &Place) -> Option<String> {
    let mut key = format!("{:?}", place.root);
    for projection in &place.projections {
        match projection {
            Projection::Index(Operand::Value(value)) => key.push_str(&format!("[{value:?}]")),
            Projection::Index(Operand::Constant(constant)) => {
                key.push_str(&format!("[{}]", constant.tokens));
            }
            Projection::Index(Operand::Place(_)) => return None,
            Projection::Field(member) => {
                key.push('.');
                key.push_str(&member.to_token_stream().to_string());
            }
            Projection::Deref => key.push('*'),
        }
    }
    Some(key)
}
