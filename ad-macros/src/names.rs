//! Every name the macros generate, in one place. Hidden names start with `__ad_` so they
//! cannot collide with the user's.

use proc_macro2::Span;
use quote::ToTokens;
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

/// The reverse-mode code that `_vjp` and `_grad` run: like `__ad_reverse`, but its pullback
/// borrows the parameters (it is called at once), so that loop iterations read elements of
/// container parameters again in the backward sweep instead of keeping them. Generated only
/// when that happens.
pub const BORROWED_COMPANION: &str = "__ad_reverse_borrowed";

/// For a `#[checkpoint] fn`, the reverse-mode code that records; `__ad_reverse` then runs the
/// function primal-only and calls this from its pullback.
pub const RECORDED_COMPANION: &str = "__ad_reverse_recorded";

/// What `self` is called in derivative code, where the receiver is an ordinary parameter.
pub const SELF: &str = "__ad_self";

/// `self` in a method's body, as `__ad_self`. Items nested in the body keep theirs.
pub fn rename_self(block: &mut syn::Block) {
    struct Renamer;
    impl syn::visit_mut::VisitMut for Renamer {
        fn visit_expr_path_mut(&mut self, path: &mut syn::ExprPath) {
            if path.qself.is_none() && path.path.is_ident("self") {
                let span = path.path.segments[0].ident.span();
                path.path = Ident::new(SELF, span).into();
            }
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
        fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
            mac.tokens = rename_self_tokens(mac.tokens.clone());
        }
    }
    syn::visit_mut::VisitMut::visit_block_mut(&mut Renamer, block);
}

fn rename_self_tokens(tokens: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    replace_idents(tokens, &|ident| {
        (ident == "self").then(|| Ident::new(SELF, ident.span()).into_token_stream())
    })
}

/// `tokens` with each identifier for which `replace` gives tokens replaced by them, inside
/// groups too (a macro's arguments, a type's generic arguments).
pub fn replace_idents(
    tokens: proc_macro2::TokenStream,
    replace: &dyn Fn(&Ident) -> Option<proc_macro2::TokenStream>,
) -> proc_macro2::TokenStream {
    use proc_macro2::TokenTree;
    tokens
        .into_iter()
        .flat_map(|tree| match tree {
            TokenTree::Ident(ident) => replace(&ident).unwrap_or_else(|| ident.into_token_stream()),
            TokenTree::Group(group) => {
                let mut replaced = proc_macro2::Group::new(
                    group.delimiter(),
                    replace_idents(group.stream(), replace),
                );
                replaced.set_span(group.span());
                TokenTree::Group(replaced).into_token_stream()
            }
            other => other.into_token_stream(),
        })
        .collect()
}

/// The name of a companion (`__ad_forward`): on a free function's hidden struct it is the
/// name itself; a method's companions sit in the `impl` beside it, named after it
/// (`__ad_forward_norm`).
pub fn companion(function: &Function, base: &str) -> Ident {
    let name = function.name();
    if function.is_method {
        Ident::new(&format!("{base}_{}", name.unraw()), name.span())
    } else {
        Ident::new(base, name.span())
    }
}

/// How generated code calls a companion of `function`: `f::__ad_forward` or
/// `Self::__ad_forward_norm`.
pub fn companion_path(function: &Function, base: &str) -> proc_macro2::TokenStream {
    let companion = companion(function, base);
    if function.is_method {
        quote::quote!(Self::#companion)
    } else {
        let name = function.name();
        quote::quote!(#name::#companion)
    }
}

/// A method's companion called on a value of a user type: `Point::__ad_forward_norm`.
pub fn method_companion_path(
    type_path: &syn::Path,
    method: &Ident,
    base: &str,
) -> proc_macro2::TokenStream {
    let companion = method_companion(method, base);
    quote::quote!(#type_path::#companion)
}

/// The companion `base` of the method `method`: `__ad_reverse_norm`.
pub fn method_companion(method: &Ident, base: &str) -> Ident {
    Ident::new(&format!("{base}_{}", method.unraw()), method.span())
}

/// A parameter as generated public functions refer to it: `self` for a method's receiver.
pub fn param_value(param: &crate::ast::Param) -> proc_macro2::TokenStream {
    if param.receiver {
        let span = param.name.span();
        quote::quote_spanned!(span=> self)
    } else {
        let name = &param.name;
        quote::quote!(#name)
    }
}

pub fn vjp(function: &Function) -> Ident {
    suffixed(function, "_vjp")
}

pub fn grad(function: &Function) -> Ident {
    suffixed(function, "_grad")
}

/// The cotangent parameter of `_vjp`: `d_out`, with `d` prepended while it collides.
pub fn output_cotangent(function: &Function) -> Ident {
    let mut name = String::from("d_out");
    let tangents = tangents(function);
    while function.params.iter().any(|param| param.name == name)
        || tangents.iter().any(|tangent| tangent == &name)
    {
        name.insert(0, 'd');
    }
    Ident::new(&name, function.name().span())
}

pub fn jvp(function: &Function) -> Ident {
    suffixed(function, "_jvp")
}

/// A generated function's name: `f_jvp` for `_jvp`, `f_jacfwd` for `_jacfwd`.
pub fn suffixed(function: &Function, suffix: &str) -> Ident {
    let name = function.name();
    Ident::new(&format!("{}{suffix}", name.unraw()), name.span())
}

/// A generated local named after a parameter (`__ad_seeded_x`); raw names lose their `r#`.
pub fn derived(prefix: &str, name: &Ident) -> Ident {
    Ident::new(&format!("{prefix}{}", snake_text(name)), name.span())
}

/// A user's name as part of a generated one, which stays snake case (rustc's lint warns of
/// `__ad_seeded__unused`): leading underscores become their count (`_unused` gives
/// `1unused`), which no name of the user's starts with. `__ad_self` gives `self`.
pub fn snake_text(name: &Ident) -> String {
    let text = name.unraw().to_string();
    let text = text.strip_prefix("__ad_").unwrap_or(&text);
    let trimmed = text.trim_start_matches('_');
    match text.len() - trimmed.len() {
        0 => text.to_string(),
        underscores => format!("{underscores}{trimmed}"),
    }
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
    let mut taken: Vec<String> = function.params.iter().map(|p| p.name.to_string()).collect();
    function
        .params
        .iter()
        .filter(|param| param.kind == ParamKind::Differentiated)
        .map(|param| {
            let name = if param.receiver {
                String::from("self")
            } else {
                param.name.unraw().to_string()
            };
            // `do` and `dyn` are keywords: the tangents of `o` and `yn` are `d_o`, `d_yn`.
            // An unused parameter's `_t` or `__t` has `d_t` (`d__t` is not snake case).
            let unused = name.trim_start_matches('_');
            let mut tangent = if unused.len() < name.len() {
                format!("d_{unused}")
            } else if name.chars().count() == 1 && name != "o" {
                format!("d{name}")
            } else {
                format!("d_{name}")
            };
            while taken.contains(&tangent) {
                tangent.insert(0, 'd');
            }
            taken.push(tangent.clone());
            Ident::new(&tangent, param.name.span())
        })
        .collect()
}

/// What a generated public function of `function` computes (`"jvp"`, `"vjp"`, `"grad"`), for
/// `ident` one of its names.
pub fn public_kind(function: &Function, ident: &Ident) -> Option<&'static str> {
    ["jvp", "vjp", "grad"]
        .into_iter()
        .find(|kind| *ident == suffixed(function, &format!("_{kind}")))
}

/// The generic version of a public function (`expand::public`): `grad` on a free function's
/// hidden struct (`f::grad`), `__ad_grad_norm` beside a method.
pub fn generic_public(function: &Function, kind: &str) -> Ident {
    let name = function.name();
    if function.is_method {
        Ident::new(&format!("__ad_{kind}_{}", name.unraw()), name.span())
    } else {
        Ident::new(kind, name.span())
    }
}

/// How generated code calls the generic version of a public function: `f::grad`,
/// `Self::__ad_grad_norm`.
pub fn generic_public_path(function: &Function, kind: &str) -> proc_macro2::TokenStream {
    let generic = generic_public(function, kind);
    if function.is_method {
        quote::quote!(Self::#generic)
    } else {
        let name = function.name();
        quote::quote!(#name::#generic)
    }
}

/// The generic version of a generated public function called from derivative code: `g_grad`
/// is `g::grad`, `m::g_jvp` is `m::g::jvp` (`None` for other paths).
pub fn generic_public_of_path(path: &syn::Path) -> Option<syn::Path> {
    let last = path.segments.last()?;
    if !last.arguments.is_none() {
        return None;
    }
    let text = last.ident.unraw().to_string();
    let (function, kind) = ["jvp", "vjp", "grad"].into_iter().find_map(|kind| {
        let function = text.strip_suffix(&format!("_{kind}"))?;
        (!function.is_empty()).then_some((function, kind))
    })?;
    let span = last.ident.span();
    let mut generic = path.clone();
    generic.segments.pop();
    // `Spring::energy_grad`, `Self::sq_grad`: a method's (or an associated function's)
    // generic version sits beside it, `Spring::__ad_grad_energy`.
    let of_a_type = generic.segments.last().is_some_and(|segment| {
        segment
            .ident
            .to_string()
            .starts_with(|c: char| c.is_ascii_uppercase())
    });
    if of_a_type {
        generic
            .segments
            .push(Ident::new(&format!("__ad_{kind}_{function}"), span).into());
        return Some(generic);
    }
    // A name that is a keyword on its own (`type_grad`) is no generated function.
    let mut function: Ident = syn::parse_str(function).ok()?;
    function.set_span(span);
    generic.segments.push(function.into());
    generic.segments.push(Ident::new(kind, span).into());
    Some(generic)
}
