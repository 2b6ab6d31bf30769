//! The macros' own attributes: the arguments of `#[forward]` and the `#[no_grad]` marker on
//! parameters.

use proc_macro2::TokenStream;
use syn::Attribute;

use crate::ctxt::Ctxt;

pub const NO_GRAD: &str = "no_grad";

pub fn expect_no_arguments(cx: &Ctxt, macro_name: &str, args: TokenStream) {
    if !args.is_empty() {
        cx.error_spanned_by(
            args,
            format!("#[{macro_name}] takes no arguments; write `#[{macro_name}]`"),
        );
    }
}

/// Removes `#[no_grad]` from a parameter's attributes; returns whether it was there.
pub fn take_no_grad(cx: &Ctxt, attrs: &mut Vec<Attribute>) -> bool {
    let mut found = false;
    attrs.retain(|attr| {
        if !attr.path().is_ident(NO_GRAD) {
            return true;
        }
        if let Err(error) = attr.meta.require_path_only() {
            cx.syn_error(syn::Error::new(
                error.span(),
                "#[no_grad] takes no arguments; write `#[no_grad]`",
            ));
        }
        found = true;
        false
    });
    found
}
