//! The benchmark programs' shared code: the ADBench problems written as a user would write
//! them (plain Rust over slices, no special API), with a reader for the suite's files.

pub mod adbench;
