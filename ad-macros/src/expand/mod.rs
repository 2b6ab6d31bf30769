//! From the checked function to Rust tokens, one module per mode.

mod captures;
pub mod forward;
pub mod reverse;
pub mod reverse_ir;
