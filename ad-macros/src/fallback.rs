//! When the function cannot be differentiated: the function as written, the errors, and stubs
//! of every generated name, so that one mistake gives one message and callers still resolve.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Function;
use crate::ctxt::Ctxt;
use crate::expand::forward::{self, Bodies};

pub fn forward(function: &Function, cx: Ctxt) -> TokenStream {
    let errors = cx.into_compile_errors();
    let stubs = forward::expand(function, Bodies::Stub);
    quote! {
        #errors
        #stubs
    }
}

pub fn reverse(function: &Function, cx: Ctxt) -> TokenStream {
    let errors = cx.into_compile_errors();
    let stubs = crate::expand::reverse::expand(
        &Ctxt::new(),
        function,
        Bodies::Stub,
        crate::expand::reverse::Calls::Recorded,
    );
    quote! {
        #errors
        #stubs
    }
}
