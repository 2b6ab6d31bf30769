//! The `std` macros a body may use (`crate::macros::SUPPORTED`, but `vec!`, which builds a
//! container) lowered to `Rvalue::Macro`: their arguments are values like any other, and each
//! name a format string reads inline (`{x}`) becomes a named argument. What the macro would
//! not evaluate stays unevaluated: a `debug_` assertion's arguments run only under
//! `debug_assertions`, an assertion's message only when it fails.

use proc_macro2::Span;
use quote::quote_spanned;

use super::*;
use crate::macros::{self, MacroArgs};

impl Lowering {
    /// A supported macro's value (`()` for an assertion or a print, a `String` for `format!`).
    pub(super) fn lower_macro(
        &mut self,
        mac: &syn::Macro,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Operand> {
        let span = mac.span();
        let name = macros::name(mac).unwrap_or_default();
        if !macros::is_supported(mac) || name == "vec" {
            return not_yet(mac, "macros");
        }
        let Ok(MacroArgs::List(list)) = MacroArgs::parse_from(mac) else {
            return not_yet(mac, "macros");
        };
        let args: Vec<&Expr> = list.iter().collect();
        // How many leading arguments an assertion checks; a message may follow them.
        let checked = match name.trim_start_matches("debug_") {
            "assert" => 1,
            "assert_eq" | "assert_ne" => 2,
            _ => 0,
        };
        if !name.starts_with("debug_") {
            return self.macro_call(mac, &args, checked, stmts);
        }
        let mut guarded = Vec::new();
        self.scoped(|this| this.macro_call(mac, &args, checked, &mut guarded))?;
        let debug = Operand::Constant(Constant {
            tokens: quote_spanned!(span=> ::core::cfg!(debug_assertions)),
            kind: ConstantKind::Data,
            span,
        });
        stmts.push(Stmt::when(debug, guarded, span));
        Ok(unit(span))
    }

    fn macro_call(
        &mut self,
        mac: &syn::Macro,
        args: &[&Expr],
        checked: usize,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Operand> {
        let span = mac.span();
        let mut operands = Vec::new();
        for arg in args.iter().take(checked) {
            operands.push((None, self.operand(arg, stmts)?));
        }
        let message = &args[checked.min(args.len())..];
        if checked == 0 || message.is_empty() {
            operands.extend(self.macro_arguments(message, stmts)?);
            let value = self.define(
                Rvalue::Macro {
                    path: mac.path.clone(),
                    args: operands,
                },
                span,
                stmts,
            );
            return Ok(Operand::Value(value));
        }
        // The message of a failed assertion: evaluated where the check fails, as the macro
        // does.
        let failed = match operands.as_slice() {
            [(_, condition)] => Rvalue::Not(condition.clone()),
            [(_, left), (_, right)] => {
                let op =
                    match mac.path.is_ident("assert_eq") || mac.path.is_ident("debug_assert_eq") {
                        true => quote_spanned!(span=> !=),
                        false => quote_spanned!(span=> ==),
                    };
                Rvalue::DataBinary(DataOp { op }, left.clone(), right.clone())
            }
            _ => return not_yet(mac, "macros"),
        };
        let failed = self.define(failed, span, stmts);
        let mut on_failure = Vec::new();
        self.scoped(|this| {
            operands.extend(this.macro_arguments(message, &mut on_failure)?);
            this.define(
                Rvalue::Macro {
                    path: mac.path.clone(),
                    args: operands,
                },
                span,
                &mut on_failure,
            );
            Ok(())
        })?;
        stmts.push(Stmt::when(Operand::Value(failed), on_failure, span));
        Ok(unit(span))
    }

    /// A format string and its arguments: positional ones, named ones (`width = w`), and the
    /// locals the string names inline, passed by name.
    fn macro_arguments(
        &mut self,
        args: &[&Expr],
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Vec<(Option<Ident>, Operand)>> {
        let mut lowered = Vec::new();
        let mut named = Vec::new();
        for arg in args {
            match arg {
                Expr::Assign(assign) => {
                    let Expr::Path(name) = &*assign.left else {
                        return not_yet(arg, "macros");
                    };
                    let Some(name) = name.path.get_ident() else {
                        return not_yet(arg, "macros");
                    };
                    named.push(name.to_string());
                    let value = self.operand(&assign.right, stmts)?;
                    lowered.push((Some(name.clone()), value));
                }
                _ => lowered.push((None, self.operand(arg, stmts)?)),
            }
        }
        let format = match args.first() {
            Some(Expr::Lit(syn::ExprLit {
                lit: Lit::Str(format),
                ..
            })) => format.clone(),
            _ => return Ok(lowered),
        };
        for name in inline_names(&format.value()) {
            if named.contains(&name) {
                continue;
            }
            let ident = Ident::new(&name, format.span());
            if self.resolve(&ident).is_none() {
                // An item or a constant of the surroundings: the macro finds it by itself.
                continue;
            }
            let path: Expr = syn::parse_quote_spanned!(format.span()=> #ident);
            let value = self.operand(&path, stmts)?;
            named.push(name);
            lowered.push((Some(ident), value));
        }
        Ok(lowered)
    }
}

fn unit(span: Span) -> Operand {
    Operand::Constant(Constant {
        tokens: quote_spanned!(span=> ()),
        kind: ConstantKind::Data,
        span,
    })
}

/// The names a format string reads inline: `{x}`, `{x:?}`, and widths and precisions given by
/// name (`{:width$}`, `{:.prec$}`).
pub(super) fn inline_names(format: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut push = |name: &str| {
        let is_name = name
            .chars()
            .next()
            .is_some_and(|first| first.is_alphabetic() || first == '_')
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            && name != "_";
        if is_name && !names.iter().any(|known| known == name) {
            names.push(name.to_string());
        }
    };
    let mut rest = format;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        if let Some(escaped) = rest.strip_prefix('{') {
            rest = escaped;
            continue;
        }
        let Some(close) = rest.find('}') else {
            break;
        };
        let inside = &rest[..close];
        rest = &rest[close + 1..];
        let (argument, spec) = inside.split_once(':').unwrap_or((inside, ""));
        push(argument.trim());
        for (at, _) in spec.match_indices('$') {
            let before = &spec[..at];
            let start = before
                .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map_or(0, |at| at + 1);
            push(&before[start..]);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    #[test]
    fn inline_names_of_format_strings() {
        assert_eq!(
            super::inline_names("{x} {{y}} {z:?} {0} {} {:>w$.p$} {x} {_u}"),
            ["x", "z", "w", "p", "_u"]
        );
    }
}
