//! The attribute macros of `ad-runtime`. Depend on `ad-runtime`, not on this crate: the
//! generated code names the runtime by absolute paths.
//!
//! The pipeline, one module per stage:
//!
//! * [`ast`]: the function model (parameters classified, float type), from syn;
//! * [`valid`]: every unsupported construct in the body, as spanned errors;
//! * [`activity`]: which locals may hold floats (decides how calls are made);
//! * [`retype`]: the body rewritten over a generic scalar type;
//! * [`expand`]: the generated functions, one module per mode;
//! * [`fallback`]: on error, the function as written plus stubs of the generated names.

mod activity;
mod ast;
mod attr;
mod ctxt;
mod expand;
mod fallback;
mod macros;
mod names;
mod retype;
mod valid;

use proc_macro::TokenStream;

/// Forward mode: keeps the function and adds `<name>_jvp`.
///
/// For `fn f(a: f64, n: usize, b: f64) -> R` it generates
/// `f_jvp(a, n, b, da, db) -> (R, dR)`: the primal arguments, then one tangent per float
/// parameter; it returns the value and its tangent. The generated function is generic over the
/// scalar type, so it can be called with `f64`s or with dual numbers (nested derivatives).
///
/// See the `ad-runtime` crate for examples.
#[proc_macro_attribute]
pub fn forward(args: TokenStream, item: TokenStream) -> TokenStream {
    driver::forward(args.into(), item.into()).into()
}

mod driver {
    use proc_macro2::TokenStream;
    use quote::quote;

    use crate::ast::Function;
    use crate::ctxt::Ctxt;
    use crate::expand::forward::{self, Bodies};
    use crate::{attr, fallback, valid};

    pub fn forward(args: TokenStream, item: TokenStream) -> TokenStream {
        let cx = Ctxt::new();
        attr::expect_no_arguments(&cx, "forward", args);
        let item_fn = match syn::parse2::<syn::ItemFn>(item.clone()) {
            Ok(item_fn) => item_fn,
            Err(_) => {
                cx.error_spanned_by(
                    &item,
                    "#[forward] applies to a function; put it on a `fn` item",
                );
                let errors = cx.into_compile_errors();
                return quote!(#errors #item);
            }
        };
        let function = Function::from_item(&cx, item_fn, "forward");
        valid::check_body(&cx, &function);
        if cx.has_errors() {
            return fallback::forward(&function, cx);
        }
        forward::expand(&function, Bodies::Derivative)
    }
}
