//! A place read again with nothing written to it in between gives the value already read
//! (`t[j] * t[j]` reads `t[j]` once): the backward sweep then keeps one value, not two. So
//! does integer arithmetic done again on the same operands (`s[hidden + i]` read twice computes
//! `hidden + i` twice): the second is a copy of the first, and the places it indexes are the
//! same. So does an element read after a value is assigned to it. A pass over the IR,
//! switched by `residuals::Passes::reuse_reads`.

use std::collections::{HashMap, HashSet};

use quote::ToTokens;

use super::*;

pub fn reuse_reads(body: &mut Body) {
    let mut values = Values::default();
    reuse_in(&mut body.block, HashMap::new(), HashMap::new(), &mut values);
}

/// What the pass knows of values across the body.
#[derive(Default)]
struct Values {
    /// Values that are integers: loop indices, integer literals and arithmetic with one.
    integers: HashSet<Value>,
    /// A value made a copy of an earlier equal one, and that one.
    same_as: HashMap<Value, Value>,
}

impl Values {
    fn canonical(&self, value: Value) -> Value {
        self.same_as.get(&value).copied().unwrap_or(value)
    }

    fn is_integer(&self, operand: &Operand) -> bool {
        match operand {
            Operand::Value(value) => self.integers.contains(&self.canonical(*value)),
            Operand::Constant(constant) => {
                constant.kind == ConstantKind::Data
                    && syn::parse2::<syn::LitInt>(constant.tokens.clone()).is_ok()
            }
            Operand::Place(_) => false,
        }
    }

    fn operand_key(&self, operand: &Operand) -> Option<String> {
        match operand {
            Operand::Value(value) => Some(format!("{:?}", self.canonical(*value))),
            Operand::Constant(constant) => Some(constant.tokens.to_string()),
            Operand::Place(_) => None,
        }
    }
}

/// `known`: the places read before in this block or around it, by key, and the value read.
/// `computed`: the integer operations done before, by key, and their values.
fn reuse_in(
    block: &mut Block,
    mut known: HashMap<String, (Root, Value)>,
    mut computed: HashMap<String, Value>,
    values: &mut Values,
) {
    for stmt in &mut block.stmts {
        if let Some(root) = written_root(stmt) {
            forget(&mut known, root);
        }
        match stmt {
            Stmt::Let(Let { value, rvalue, .. }) => {
                if let Rvalue::Binary(op, left, right) = rvalue {
                    // Integer arithmetic is exact and has no adjoint: done again on the same
                    // operands, it is the same value.
                    if values.is_integer(left) || values.is_integer(right) {
                        values.integers.insert(*value);
                        let key = values
                            .operand_key(left)
                            .zip(values.operand_key(right))
                            .map(|(left, right)| format!("{}({left},{right})", op.rule()));
                        if let Some(key) = key {
                            match computed.get(&key) {
                                Some(first) => {
                                    values.same_as.insert(*value, *first);
                                    *rvalue = Rvalue::Use(Operand::Value(*first));
                                }
                                None => {
                                    computed.insert(key, *value);
                                }
                            }
                        }
                    }
                } else if let Rvalue::Use(Operand::Value(copied)) = rvalue {
                    // A copy is the same value (a fused loop's second binding).
                    let original = values.canonical(*copied);
                    if values.integers.contains(&original) {
                        values.integers.insert(*value);
                    }
                    values.same_as.insert(*value, original);
                } else if let Rvalue::Use(Operand::Place(place)) = rvalue {
                    if let Some(key) = key_with(place, &|value| values.canonical(value)) {
                        match known.get(&key) {
                            Some((_, read)) => *rvalue = Rvalue::Use(Operand::Value(*read)),
                            None => {
                                known.insert(key, (place.root, *value));
                            }
                        }
                    }
                }
            }
            // An element just assigned a value holds that value until written again: a read
            // of it is a copy (`c[j] = x - m; .. c[j] * q`), which loops fused by
            // `ir::loop_fusion` leave next to each other. Only elements of indexed places,
            // which Rust reads by copy: a field or a whole variable may be moved out
            // (`mem::take(&mut p.c)` reads `p.c` by move).
            Stmt::Assign {
                place,
                operand: Operand::Value(assigned),
                ..
            } if !place.projections.is_empty()
                && place
                    .projections
                    .iter()
                    .all(|projection| matches!(projection, Projection::Index(_))) =>
            {
                if let Some(key) = key_with(place, &|value| values.canonical(value)) {
                    known.insert(key, (place.root, *assigned));
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
                reuse_in(then_branch, known.clone(), computed.clone(), values);
                reuse_in(else_branch, known.clone(), computed.clone(), values);
                known.clear();
            }
            // A loop's later iterations follow its own writes: it starts afresh, but for the
            // integers computed before it. Its index is an integer.
            Stmt::For { binding, body, .. } => {
                values.integers.insert(*binding);
                reuse_in(body, HashMap::new(), computed.clone(), values);
                known.clear();
            }
            Stmt::Loop { body, .. } => {
                reuse_in(body, HashMap::new(), computed.clone(), values);
                known.clear();
            }
            // A checkpointed region is a block of its own: what it reads stays inside.
            Stmt::Checkpoint { body, .. } => {
                reuse_in(body, known.clone(), computed.clone(), values);
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
    key_with(place, &|value| value)
}

/// [`key`], with each index value taken as `canonical` gives it.
fn key_with(place: &Place, canonical: &dyn Fn(Value) -> Value) -> Option<String> {
    let mut key = format!("{:?}", place.root);
    for projection in &place.projections {
        match projection {
            Projection::Index(Operand::Value(value)) => {
                key.push_str(&format!("[{:?}]", canonical(*value)));
            }
            Projection::Index(Operand::Constant(constant)) => {
                key.push_str(&format!("[{}]", constant.tokens));
            }
            Projection::Index(Operand::Place(_)) | Projection::Slice(..) => return None,
            Projection::Field(member) => {
                key.push('.');
                key.push_str(&member.to_token_stream().to_string());
            }
            Projection::Deref => key.push('*'),
        }
    }
    Some(key)
}
