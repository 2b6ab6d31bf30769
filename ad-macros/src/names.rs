//! Every name the macros generate, in one place. Hidden names start with `__ad_` so they
//! cannot collide with the user's.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::Ident;

use crate::ast::{Function, ParamKind};

/// The scalar type parameter of generated functions.
pub fn scalar_param(span: Span) -> Ident {
    Ident::new("__S", span)
}

/// The associated function that holds a function's forward-mode (generic) code. It lives on a
/// braced struct named like the function: a braced struct occupies only the type namespace, so
/// it coexists with the function, and `use path::f;` imports both.
pub const FORWARD_COMPANION: &str = "__ad_forward";

/// The associated function that holds a function's reverse-mode code: it returns the value and
/// the pullback.
pub const REVERSE_COMPANION: &str = "__ad_reverse";

/// For a `#[checkpoint] fn`, the reverse-mode code that records; `__ad_reverse` then runs the
/// function primal-only and calls this from its pullback.
pub const RECORDED_COMPANION: &str = "__ad_reverse_recorded";

pub fn vjp(function: &Function) -> Ident {
    suffixed(function, "_vjp")
}

pub fn grad(function: &Function) -> Ident {
    suffixed(function, "_grad")
}

/// The cotangent parameter of `_vjp`: `d_out`, with `d` prepended while it collides.
pub fn output_cotangent(function: &Function) -> Ident {
    let mut name = String::from("d_out");
    while function.params.iter().any(|param| param.name == name) {
        name.insert(0, 'd');
    }
    Ident::new(&name, function.name().span())
}

pub fn jvp(function: &Function) -> Ident {
    suffixed(function, "_jvp")
}

fn suffixed(function: &Function, suffix: &str) -> Ident {
    let name = function.name();
    Ident::new(&format!("{}{suffix}", name.unraw()), name.span())
}

/// A generated local named after a parameter (`__ad_seeded_x`); raw names lose their `r#`.
pub fn derived(prefix: &str, name: &Ident) -> Ident {
    Ident::new(&format!("{prefix}{}", name.unraw()), name.span())
}

/// Functions the macros generate are generic already: calls to them are left as written.
pub fn is_generated_function_name(name: &str) -> bool {
    ["_jvp", "_vjp", "_grad"]
        .iter()
        .any(|suffix| name.ends_with(suffix))
}

/// The tangent parameter of each differentiated parameter: `dx` for `x`, `d_rate` for `rate`,
/// with `d` prepended again while that collides with another parameter.
pub fn tangents(function: &Function) -> Vec<Ident> {
    let taken: Vec<String> = function.params.iter().map(|p| p.name.to_string()).collect();
    function
        .params
        .iter()
        .filter(|param| param.kind == ParamKind::Differentiated)
        .map(|param| {
            let name = param.name.unraw().to_string();
            let mut tangent = if name.chars().count() == 1 {
                format!("d{name}")
            } else {
                format!("d_{name}")
            };
            while taken.contains(&tangent) {
                tangent.insert(0, 'd');
            }
            Ident::new(&tangent, param.name.span())
        })
        .collect()
}
