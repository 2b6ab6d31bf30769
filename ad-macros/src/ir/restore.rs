//! Elements of local containers the backward sweep reads again instead of keeping.
//!
//! A loop that reads a scratch buffer (`centered[j]` in a loop nest, `q_diagonals[k]` filled
//! once before) would keep every element it reads, once per read. The backward sweep can read
//! the element again from a state of the container in which it has not changed since:
//!
//! * the container's final state, when nothing writes to it after the read (nor in the loops
//!   around the read, whose later iterations run after it): the pullback takes the container;
//! * its state at the end of an iteration of a loop around the read, when nothing writes to it
//!   between the read and the end of that iteration: a copy is kept per iteration, and the
//!   backward code of the iteration starts by restoring it. Only when the read sits in a loop
//!   nested in that iteration, where reads outnumber the iterations that copy.
//!
//! Only containers the body builds as owned values (`vec![..]`, `[..]`, `Vec::new()`,
//! `to_vec()`), so the pullback never holds a borrow; a copy only of one built by repetition
//! (`vec![x; n]`, `[x; N]`), whose type is `Clone`.

use std::collections::HashMap;

use super::*;

/// Where the backward sweep reads an element again from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Source {
    /// The container as the forward sweep left it.
    Final,
    /// The container as it was at the end of the iteration of loop number `loop_index` (the
    /// loops numbered in preorder, as the emitter numbers them).
    Iteration { loop_index: usize, root: Root },
}

/// The values read from an element of a local container that the backward sweep may read
/// again, and where from.
pub fn sources(body: &Body) -> HashMap<Value, Source> {
    let mut walk = Walk::default();
    for root in &body.params {
        walk.declared.insert(*root, Declared::default());
    }
    walk.block(&body.block);
    let end = walk.position + 1;
    if let Some(result) = &body.block.result {
        walk.operand(result, end, Use::Moved);
    }
    let mut sources = HashMap::new();
    for read in &walk.reads {
        if let Some(source) = walk.source(read) {
            sources.insert(read.value, source);
        }
    }
    sources
}

#[derive(Default)]
struct Declared {
    /// The blocks around the declaration (empty for a parameter: in scope everywhere).
    scope: Vec<usize>,
    /// Whether the container is built as an owned value, and whether by repetition.
    owned: bool,
    repeated: bool,
}

struct OpenLoop {
    index: usize,
    start: usize,
    /// The blocks around the loop's body, the body included.
    body_scope: Vec<usize>,
}

struct Read {
    value: Value,
    root: Root,
    position: usize,
    /// The loops around the read, outermost first, as indices into `Walk::loops`.
    loops: Vec<usize>,
}

#[derive(Default)]
struct Walk<'b> {
    position: usize,
    blocks_seen: usize,
    open_blocks: Vec<usize>,
    open_loops: Vec<usize>,
    loops: Vec<OpenLoop>,
    /// The last position inside each loop, by index into `loops`.
    loop_ends: HashMap<usize, usize>,
    declared: HashMap<Root, Declared>,
    definitions: HashMap<Value, &'b Rvalue>,
    /// Where each container is written to, replaced or moved.
    writes: HashMap<Root, Vec<usize>>,
    reads: Vec<Read>,
}

/// How an operand is used.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    /// Read without being changed or moved (`&v`, `v.len()`, `v.clone()`).
    Read,
    /// Anything else: moved, or passed where it may change.
    Moved,
}

impl<'b> Walk<'b> {
    fn block(&mut self, block: &'b Block) {
        self.blocks_seen += 1;
        self.open_blocks.push(self.blocks_seen);
        for stmt in &block.stmts {
            self.stmt(stmt);
        }
        if let Some(result) = &block.result {
            self.operand(result, self.position, Use::Moved);
        }
        self.open_blocks.pop();
    }

    fn stmt(&mut self, stmt: &'b Stmt) {
        self.position += 1;
        let position = self.position;
        if let Some(root) = written_root(stmt) {
            self.write(root, position);
        }
        // What a binding holds, from the operation that built it (through copies: `let t =
        // [a, b];` binds a copy of the array built).
        let declared = match stmt {
            Stmt::Let(Let { value, rvalue, .. }) => Some((
                Root::Value(*value),
                Some(through_copies(&self.definitions, rvalue)),
            )),
            Stmt::DeclareVar { var, init } => {
                let built = match init {
                    Some(Operand::Value(value)) => self.definitions.get(value).copied(),
                    _ => None,
                };
                Some((
                    Root::Var(*var),
                    built.map(|built| through_copies(&self.definitions, built)),
                ))
            }
            _ => None,
        };
        if let Some((root, built)) = declared {
            let (owned, repeated) = built.map_or((false, false), builds_owned);
            let scope = self.open_blocks.clone();
            self.declared.insert(
                root,
                Declared {
                    scope,
                    owned,
                    repeated,
                },
            );
        }
        match stmt {
            Stmt::Let(Let { value, rvalue, .. }) => {
                self.definitions.insert(*value, rvalue);
                self.rvalue(*value, rvalue, position);
            }
            Stmt::If {
                cond,
                then_branch,
                else_branch,
                ..
            } => {
                self.operand(cond, position, Use::Moved);
                self.block(then_branch);
                self.block(else_branch);
            }
            Stmt::For { range, body, .. } => {
                self.operand(range, position, Use::Moved);
                self.loop_body(body, position);
            }
            Stmt::Loop { body, .. } => self.loop_body(body, position),
            Stmt::Checkpoint { body, schedule, .. } => {
                if let Some(schedule) = schedule {
                    self.operand(schedule.count(), position, Use::Moved);
                }
                self.block(body);
            }
            Stmt::DeclareVar { .. } | Stmt::Assign { .. } | Stmt::Push { .. } => {
                if let Stmt::Assign { place, .. } | Stmt::Push { place, .. } = stmt {
                    self.place_indices(place, position);
                }
                for operand in stmt_operands(stmt) {
                    self.operand(operand, position, Use::Moved);
                }
            }
        }
    }

    fn loop_body(&mut self, body: &'b Block, start: usize) {
        let index = self.loops.len();
        let mut body_scope = self.open_blocks.clone();
        body_scope.push(self.blocks_seen + 1);
        self.loops.push(OpenLoop {
            index,
            start,
            body_scope,
        });
        self.open_loops.push(index);
        self.block(body);
        self.open_loops.pop();
        self.loop_ends.insert(index, self.position);
    }

    fn rvalue(&mut self, value: Value, rvalue: &'b Rvalue, position: usize) {
        match rvalue {
            Rvalue::Use(Operand::Place(place)) if reads_an_element(place) => {
                self.place_indices(place, position);
                self.reads.push(Read {
                    value,
                    root: place.root,
                    position,
                    loops: self.open_loops.clone(),
                });
            }
            Rvalue::Ref(operand)
            | Rvalue::DataMethod {
                receiver: operand, ..
            }
            | Rvalue::Duplicate {
                receiver: operand, ..
            } => {
                self.operand(operand, position, Use::Read);
                if let Rvalue::DataMethod { args, .. } = rvalue {
                    for arg in args {
                        self.operand(arg, position, Use::Moved);
                    }
                }
            }
            _ => {
                for operand in operands(rvalue) {
                    self.operand(operand, position, Use::Moved);
                }
            }
        }
    }

    fn operand(&mut self, operand: &Operand, position: usize, usage: Use) {
        match operand {
            Operand::Place(place) => {
                self.place_indices(place, position);
                if usage == Use::Moved && !reads_an_element(place) {
                    self.write(place.root, position);
                }
            }
            // A container bound by `let` and used whole may be moved.
            Operand::Value(value) if usage == Use::Moved => {
                self.write(Root::Value(*value), position);
            }
            Operand::Value(_) | Operand::Constant(_) => {}
        }
    }

    fn place_indices(&mut self, place: &Place, position: usize) {
        for index in place.projections.iter().flat_map(Projection::operands) {
            self.operand(index, position, Use::Moved);
        }
    }

    fn write(&mut self, root: Root, position: usize) {
        self.writes.entry(root).or_default().push(position);
    }

    /// Where `read` may be read again from: the outermost state it survives to.
    fn source(&self, read: &Read) -> Option<Source> {
        let declared = self.declared.get(&read.root)?;
        if !declared.owned {
            return None;
        }
        let writes = self.writes.get(&read.root).map_or(&[][..], Vec::as_slice);
        let written_in = |from: usize, until: usize| {
            writes
                .iter()
                .any(|&position| from <= position && position <= until)
        };
        let loops = &read.loops;
        for level in 0..=loops.len() {
            // Nothing may write from the start of the loop around the read inside this level
            // (its later iterations run after the read) to the end of this level.
            let from = match loops.get(level) {
                Some(inner) => self.loops[*inner].start,
                None => read.position,
            };
            let until = match level {
                0 => usize::MAX,
                _ => self.loop_ends[&loops[level - 1]],
            };
            if written_in(from, until) {
                continue;
            }
            return match level {
                0 => declared.scope.len() <= 1,
                _ => {
                    let around = &self.loops[loops[level - 1]];
                    declared.repeated
                        && level < loops.len()
                        && around.body_scope.starts_with(&declared.scope)
                        && matches!(read.root, Root::Var(_))
                }
            }
            .then_some(match level {
                0 => Source::Final,
                _ => Source::Iteration {
                    loop_index: self.loops[loops[level - 1]].index,
                    root: read.root,
                },
            });
        }
        None
    }
}

/// `v[i]`, `m[i][j]`: a place reached by indices alone.
pub fn reads_an_element(place: &Place) -> bool {
    !place.projections.is_empty()
        && place
            .projections
            .iter()
            .all(|projection| matches!(projection, Projection::Index(_)))
}

/// Whether an operation builds an owned container, and whether by repeating an element.
fn builds_owned(rvalue: &Rvalue) -> (bool, bool) {
    match rvalue {
        Rvalue::Repeat(..) => (true, true),
        Rvalue::Elements(..) | Rvalue::EmptyVec(_) => (true, false),
        Rvalue::Duplicate { method, .. } => (method == "to_vec", false),
        _ => (false, false),
    }
}
