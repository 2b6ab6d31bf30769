//! The real-code corpus (issue 22): small numerical functions written the way published
//! numerical Rust is written, each modelled on the forms of a named public crate or example
//! (named in a comment above it), annotated where its user would annotate it, and checked in
//! both modes against central differences, against each other (the dot-product identity) and
//! `_grad` against `_vjp`. Cases a mode does not take yet carry only the attribute of the
//! mode that takes them (or none), with a comment saying what the other mode does.

// The corpus measures the default engine (the previous one is on its way out).

mod common;

#[path = "corpus/finance.rs"]
mod finance;
#[path = "corpus/geometry.rs"]
mod geometry;
#[path = "corpus/harness.rs"]
mod harness;
#[path = "corpus/ml.rs"]
mod ml;
#[path = "corpus/odes.rs"]
mod odes;
#[path = "corpus/optimization.rs"]
mod optimization;
#[path = "corpus/physics.rs"]
mod physics;
#[path = "corpus/signal.rs"]
mod signal;
#[path = "corpus/statistics.rs"]
mod statistics;
