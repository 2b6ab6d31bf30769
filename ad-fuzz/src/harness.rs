//! The scratch crate's source for a batch: the functions under test, a plain twin of each (no
//! attributes: if it does not compile, the generator is at fault, not the macros), and a
//! driver per function that calls `_jvp`, `_vjp`, `_grad` and the primal at random points and
//! hands the numbers to `fuzz_support::check`.
//!
//! The driver is written from the function's signature alone, so it serves generated,
//! reduced and hand-written functions alike.

use quote::ToTokens;
use syn::visit_mut::VisitMut;

use crate::program::{DATA_N, PRELUDE, SLICE_LEN};
use crate::scratch::Source;

/// The support code every scratch crate compiles.
pub const SUPPORT: &str = include_str!("harness_support.rs");

/// Random points each function is checked at.
pub const POINTS: usize = 3;

/// A function ready to be put into a scratch crate.
#[derive(Clone, Debug)]
pub struct UnderTest {
    pub name: String,
    pub text: String,
}

/// The piece name of a function's plain twin and of its driver.
pub fn plain_piece(name: &str) -> String {
    format!("plain:{name}")
}

pub fn driver_piece(name: &str) -> String {
    format!("driver:{name}")
}

/// The piece a line of a diagnostic belongs to, as (function, role).
pub fn owner(piece: &str) -> (&str, Role) {
    if let Some(name) = piece.strip_prefix("plain:") {
        (name, Role::Plain)
    } else if let Some(name) = piece.strip_prefix("driver:") {
        (name, Role::Driver)
    } else {
        (piece, Role::Annotated)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Annotated,
    Plain,
    Driver,
}

/// The whole `main.rs` for `functions`; `checked` are the ones whose drivers run (the others
/// are callees only).
pub fn source(functions: &[UnderTest], checked: &[String]) -> Source {
    let mut source = Source::default();
    source.push_shared(PRELUDE);
    source.push_shared("#[allow(dead_code)]\nmod fuzz_support {\n");
    source.push_shared(SUPPORT);
    source.push_shared("}\n");
    for function in functions {
        source.push_piece(&function.name, &function.text);
    }
    source.push_shared("mod plain {\n    use super::*;\n");
    for function in functions {
        source.push_piece(&plain_piece(&function.name), &plain_twin(&function.text));
    }
    source.push_shared("}\n");
    let mut drivers = Vec::new();
    for function in functions {
        if !checked.contains(&function.name) {
            continue;
        }
        let differences = !has_staircases(&function.name, functions);
        match driver(&function.name, &function.text, differences) {
            Some(text) => {
                source.push_piece(&driver_piece(&function.name), &text);
                drivers.push(function.name.clone());
            }
            None => source.push_piece(
                &driver_piece(&function.name),
                &format!(
                    "compile_error!(\"ad-fuzz cannot drive `{}`: unsupported signature\");",
                    function.name
                ),
            ),
        }
    }
    let table: Vec<String> = drivers
        .iter()
        .map(|name| format!("(\"{name}\", check_{name} as fuzz_support::Check)"))
        .collect();
    // Which engine took each function.
    let engines: Vec<String> = drivers
        .iter()
        .map(|name| format!("    println!(\"ENGINE {name} {{}}\", {name}::__AD_ENGINE);\n"))
        .collect();
    source.push_shared(&format!(
        "fn main() {{\n{}    fuzz_support::run_all(&[{}]);\n}}\n",
        engines.concat(),
        table.join(", ")
    ));
    source
}

/// Rounding and remainders (`floor`, `round`, `%`, ...) are staircases: where values are
/// large, a central difference's step spans many stairs and measures a slope the derivative
/// (zero on each stair) rightly lacks. Functions that reach one, directly or through a callee,
/// are checked forward against reverse only.
fn has_staircases(name: &str, functions: &[UnderTest]) -> bool {
    let mut seen = vec![name.to_string()];
    let mut index = 0;
    while index < seen.len() {
        let current = seen[index].clone();
        index += 1;
        let Some(function) = functions.iter().find(|f| f.name == current) else {
            continue;
        };
        let text = &function.text;
        if [
            ".floor()",
            ".ceil()",
            ".round()",
            ".trunc()",
            ".fract()",
            ".signum()",
            " % ",
        ]
        .iter()
        .any(|staircase| text.contains(staircase))
        {
            return true;
        }
        for other in functions {
            if !seen.contains(&other.name) && text.contains(&format!("{}(", other.name)) {
                seen.push(other.name.clone());
            }
        }
    }
    false
}

/// The function without the macros' attributes: `#[forward]`, `#[reverse]`, inner
/// `#[checkpoint]`s, `#[no_grad]`/`#[grad]`.
pub fn plain_twin(text: &str) -> String {
    let Ok(mut item) = syn::parse_str::<syn::ItemFn>(text) else {
        return text.to_string();
    };
    item.attrs.retain(|attr| !is_ours(attr));
    item.vis = syn::parse_quote!(pub);
    for input in item.sig.inputs.iter_mut() {
        if let syn::FnArg::Typed(typed) = input {
            typed.attrs.retain(|attr| !is_ours(attr));
        }
    }
    StripAttributes.visit_block_mut(&mut item.block);
    item.into_token_stream().to_string()
}

fn is_ours(attr: &syn::Attribute) -> bool {
    attr.path().segments.last().is_some_and(|segment| {
        ["forward", "reverse", "checkpoint", "no_grad", "grad"]
            .contains(&segment.ident.to_string().as_str())
    })
}

struct StripAttributes;

impl VisitMut for StripAttributes {
    fn visit_attributes_mut(&mut self, attrs: &mut Vec<syn::Attribute>) {
        attrs.retain(|attr| !is_ours(attr));
    }

    fn visit_stmt_mut(&mut self, stmt: &mut syn::Stmt) {
        if let syn::Stmt::Local(local) = stmt {
            local.attrs.retain(|attr| !is_ours(attr));
        }
        syn::visit_mut::visit_stmt_mut(self, stmt);
    }

    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        strip_expr_attributes(expr);
        syn::visit_mut::visit_expr_mut(self, expr);
    }
}

fn strip_expr_attributes(expr: &mut syn::Expr) {
    let attrs = match expr {
        syn::Expr::Block(e) => &mut e.attrs,
        syn::Expr::ForLoop(e) => &mut e.attrs,
        syn::Expr::While(e) => &mut e.attrs,
        syn::Expr::Loop(e) => &mut e.attrs,
        syn::Expr::Call(e) => &mut e.attrs,
        syn::Expr::MethodCall(e) => &mut e.attrs,
        syn::Expr::Assign(e) => &mut e.attrs,
        _ => return,
    };
    attrs.retain(|attr| !is_ours(attr));
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `f64`: differentiated.
    Float,
    /// `#[no_grad] f64`.
    ConstFloat,
    /// `&[f64]`.
    Slice,
    /// `Vec<f64>` by value.
    Vector,
    /// `[f64; N]` or `&[f64; N]`.
    Array(usize, bool),
    /// `usize` (or another integer): data.
    Integer,
}

impl Kind {
    fn differentiated(self) -> bool {
        !matches!(self, Kind::ConstFloat | Kind::Integer)
    }
}

fn kind_of(typed: &syn::PatType) -> Option<Kind> {
    let no_grad = typed
        .attrs
        .iter()
        .any(|attr| attr.path().is_ident("no_grad"));
    let ty = typed.ty.to_token_stream().to_string().replace(' ', "");
    Some(match ty.as_str() {
        "f64" if no_grad => Kind::ConstFloat,
        "f64" => Kind::Float,
        "&[f64]" => Kind::Slice,
        "Vec<f64>" => Kind::Vector,
        "usize" | "i32" | "u32" | "i64" | "u64" => Kind::Integer,
        other => {
            let (inner, by_reference) = match other.strip_prefix('&') {
                Some(inner) => (inner, true),
                None => (other, false),
            };
            let len = inner
                .strip_prefix("[f64;")?
                .strip_suffix(']')?
                .parse()
                .ok()?;
            Kind::Array(len, by_reference)
        }
    })
}

/// `check_<name>`: the function at `POINTS` random points. `None` for signatures the driver
/// does not know.
pub fn driver(name: &str, text: &str, differences: bool) -> Option<String> {
    let item: syn::ItemFn = syn::parse_str(text).ok()?;
    let result = match &item.sig.output {
        syn::ReturnType::Type(_, ty) => ty.to_token_stream().to_string().replace(' ', ""),
        syn::ReturnType::Default => return None,
    };
    let scalar_result = result == "f64";
    let mut params = Vec::new();
    for input in &item.sig.inputs {
        let syn::FnArg::Typed(typed) = input else {
            return None;
        };
        let syn::Pat::Ident(ident) = &*typed.pat else {
            return None;
        };
        params.push((ident.ident.to_string(), kind_of(typed)?));
    }
    let differentiated: Vec<&(String, Kind)> = params
        .iter()
        .filter(|(_, kind)| kind.differentiated())
        .collect();
    if differentiated.is_empty() {
        return None;
    }
    let mut out = String::new();
    out.push_str(&format!(
        "#[allow(unused_mut, unused_variables, clippy::all)]\nfn check_{name}(name: &str) -> Result<fuzz_support::Tally, fuzz_support::Failure> {{\n"
    ));
    out.push_str("    let mut rng = fuzz_support::Rng::for_function(name, 0);\n");
    out.push_str("    let mut tally = fuzz_support::Tally::default();\n");
    out.push_str(&format!("    for point in 0..{POINTS} {{\n"));
    for (param, kind) in &params {
        let value = match kind {
            Kind::Float | Kind::ConstFloat => "rng.uniform(-1.5, 1.5)".to_string(),
            Kind::Slice | Kind::Vector => format!("rng.floats({SLICE_LEN}, -1.5, 1.5)"),
            Kind::Array(len, _) => format!(
                "{{ let v = rng.floats({len}, -1.5, 1.5); let mut a = [0.0; {len}]; a.copy_from_slice(&v); a }}"
            ),
            Kind::Integer => format!("{DATA_N} as _"),
        };
        out.push_str(&format!("        let {param} = {value};\n"));
    }
    for (param, kind) in &differentiated {
        let value = match kind {
            Kind::Float => "rng.uniform(-1.0, 1.0)".to_string(),
            Kind::Slice | Kind::Vector => format!("rng.floats({SLICE_LEN}, -1.0, 1.0)"),
            Kind::Array(len, _) => format!(
                "{{ let v = rng.floats({len}, -1.0, 1.0); let mut a = [0.0; {len}]; a.copy_from_slice(&v); a }}"
            ),
            _ => unreachable!("not differentiated"),
        };
        out.push_str(&format!("        let t_{param} = {value};\n"));
    }
    let primal_args = |shift: Option<&str>| -> String {
        params
            .iter()
            .map(|(param, kind)| {
                match kind {
                    Kind::Float => match shift {
                        Some(h) => format!("{param} + {h} * t_{param}"),
                        None => param.clone(),
                    },
                    Kind::ConstFloat | Kind::Integer => param.clone(),
                    Kind::Slice => match shift {
                        Some(h) => format!("&fuzz_support::shifted(&{param}, &t_{param}, {h})"),
                        None => format!("&{param}"),
                    },
                    Kind::Vector => match shift {
                        Some(h) => format!("fuzz_support::shifted(&{param}, &t_{param}, {h})"),
                        None => format!("{param}.clone()"),
                    },
                    Kind::Array(len, by_reference) => {
                        let value = match shift {
                            Some(h) => format!(
                                "{{ let v = fuzz_support::shifted(&{param}, &t_{param}, {h}); let mut a = [0.0; {len}]; a.copy_from_slice(&v); a }}"
                            ),
                            None => param.clone(),
                        };
                        if *by_reference {
                            format!("&{value}")
                        } else {
                            value
                        }
                    }
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let tangent_args: Vec<String> = differentiated
        .iter()
        .map(|(param, kind)| match kind {
            Kind::Float => format!("t_{param}"),
            Kind::Slice => format!("&t_{param}"),
            Kind::Vector => format!("t_{param}.clone()"),
            Kind::Array(_, true) => format!("&t_{param}"),
            _ => format!("t_{param}"),
        })
        .collect();
    let adjoints: Vec<String> = differentiated
        .iter()
        .map(|(param, _)| format!("g_{param}"))
        .collect();
    let adjoint_pattern = if adjoints.len() == 1 {
        adjoints[0].clone()
    } else {
        format!("({})", adjoints.join(", "))
    };
    let plain_args = primal_args(None);
    out.push_str("        fuzz_support::stage(\"primal\");\n");
    out.push_str(&format!("        let primal = {name}({plain_args});\n"));
    out.push_str("        fuzz_support::stage(\"_jvp\");\n");
    out.push_str(&format!(
        "        let (forward_value, tangent) = {name}_jvp({plain_args}, {});\n",
        tangent_args.join(", ")
    ));
    out.push_str("        let cotangent = fuzz_support::Flat::random_like(&primal, &mut rng);\n");
    out.push_str("        fuzz_support::stage(\"_vjp\");\n");
    out.push_str(&format!(
        "        let (reverse_value, {adjoint_pattern}) = {name}_vjp({plain_args}, cotangent.clone());\n"
    ));
    let dots: Vec<String> = differentiated
        .iter()
        .map(|(param, _)| {
            format!(
                "fuzz_support::dot(&fuzz_support::Flat::flat(&g_{param}), &fuzz_support::Flat::flat(&t_{param}))"
            )
        })
        .collect();
    let scales: Vec<String> = differentiated
        .iter()
        .map(|(param, _)| {
            format!(
                "fuzz_support::dot_scale(&fuzz_support::Flat::flat(&g_{param}), &fuzz_support::Flat::flat(&t_{param}))"
            )
        })
        .collect();
    if scalar_result {
        out.push_str("        fuzz_support::stage(\"_grad\");\n");
        out.push_str(&format!(
            "        let grad = {{ let (value, {adjoint_pattern}) = {name}_grad({plain_args}); Some((value, {})) }};\n",
            dots.join(" + ")
        ));
    } else {
        out.push_str("        let grad = None;\n");
    }
    let shifted_args = primal_args(Some("h"));
    out.push_str(&format!(
        "        let differences = |h: f64| fuzz_support::Flat::flat(&plain::{name}({shifted_args}));\n"
    ));
    out.push_str("        fuzz_support::stage(\"check\");\n");
    out.push_str(&format!(
        "        fuzz_support::check(fuzz_support::Point {{
            index: point,
            primal: fuzz_support::Flat::flat(&primal),
            forward_value: fuzz_support::Flat::flat(&forward_value),
            tangent: fuzz_support::Flat::flat(&tangent),
            reverse_value: fuzz_support::Flat::flat(&reverse_value),
            cotangent: fuzz_support::Flat::flat(&cotangent),
            adjoint_dot_tangent: {},
            adjoint_dot_scale: {},
            grad,
            differences: {},
        }}, &mut tally)?;\n",
        dots.join(" + "),
        scales.join(" + "),
        if differences {
            "Some(&differences)"
        } else {
            "None"
        },
    ));
    out.push_str("    }\n    Ok(tally)\n}\n");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plain_twin_has_no_attributes_of_ours() {
        let twin = plain_twin(
            "#[forward] #[reverse] fn f(a: f64, #[no_grad] k: f64) -> f64 { #[checkpoint] let y = a * k; let z = #[checkpoint] { y + 1.0 }; #[checkpoint(every = 2)] for i in 0..3 {} z }",
        );
        assert!(!twin.contains("checkpoint"), "{twin}");
        assert!(!twin.contains("no_grad"), "{twin}");
        assert!(!twin.contains("forward"), "{twin}");
    }

    #[test]
    fn drivers_cover_the_generated_signatures() {
        for function in crate::program::generate_batch(11, 60) {
            assert!(
                driver(&function.name, &function.text, true).is_some(),
                "{}",
                function.text
            );
        }
    }
}
