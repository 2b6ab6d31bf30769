//! From the checked function to Rust tokens, one module per mode.

pub mod closure_params;
pub mod forward;
mod helpers;
pub mod public;
pub mod reverse;
pub mod reverse_ir;
