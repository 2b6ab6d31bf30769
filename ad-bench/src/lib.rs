//! The benchmark programs' shared code: the ADBench problems written as a user would write
//! them (plain Rust over slices, no special API), with a reader for the suite's files and the
//! hand-written derivatives they are measured against; the Rosenbrock function the peers are
//! compared on; the Taylor series of seed `004` (also used by the workspace's tests).
//!
//! The peers themselves (`num-dual`, `ad_trait`, `reverse`) live in the binary only: a crate
//! that loads `ad_trait` (which brings `nalgebra` and `ndarray`) must name the scalar type of
//! our generated functions (`f_grad(..)`), or rustc's trait solver overflows on
//! `ndarray`'s and `nalgebra`'s operator impls while inferring it; keeping them out of this
//! library keeps every user of it (the workspace's tests) free of that.

pub mod adbench;
pub mod rosenbrock;
pub mod taylor_series;
