//! Integration tests live in `tests/`. This library only compiles the README's examples as
//! doctests, so the front door cannot drift from the code.
#![doc = include_str!("../../README.md")]
