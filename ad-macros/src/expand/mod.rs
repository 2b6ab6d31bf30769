//! From the checked function to Rust tokens, one module per mode.

pub mod forward;
pub mod reverse;
