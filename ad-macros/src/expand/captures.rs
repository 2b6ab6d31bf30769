//! Whether generated backward code reads anything of the forward code around it.
//!
//! An iteration pullback that reads only the adjoints, its pools and the loop environment
//! keeps nothing per iteration: the backward sweep can build it once and run it once per
//! iteration, and the forward code only counts the iterations. The test is on the generated
//! tokens and errs on the side of "captures": any name it cannot place (a user's name, a
//! value of the forward code, a macro) counts as captured.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use std::collections::HashSet;

/// Names the backward code of an iteration always has in scope without capturing them: its
/// parameters and the names the generated loop runners bind.
const PARAMETERS: &[&str] = &[
    "__adj",
    "__ad_pools",
    "__ad_env",
    "__ad_hoisted_cotangents",
    "__ad_sums",
    "__ad_returned",
    "__ad_t",
    "__ad_pullback",
    "__ad_a",
    "__ad_b",
    "__ad_position",
    "__AdAdjoints",
];

/// Keywords and prelude names the generated code uses outside paths.
const LANGUAGE: &[&str] = &[
    "let", "mut", "move", "if", "else", "for", "in", "as", "true", "false", "_", "Some", "None",
    "usize", "isize", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64",
];

/// Whether `code` reads no name but `PARAMETERS`, `LANGUAGE`, the scalar type's name
/// (`scalar`) and names it binds itself (with `let`) before reading them, in a scope that is
/// still open. Names after `.` or `::` (fields, methods, path segments) and inside
/// attributes are not reads.
pub fn captures_nothing(code: &TokenStream, scalar: &TokenStream) -> bool {
    let mut known: HashSet<String> = PARAMETERS
        .iter()
        .chain(LANGUAGE)
        .map(|name| name.to_string())
        .collect();
    for tree in scalar.clone() {
        if let TokenTree::Ident(ident) = tree {
            known.insert(ident.to_string());
        }
    }
    let mut scopes = vec![HashSet::new()];
    reads_only_known(code.clone(), &known, &mut scopes)
}

fn reads_only_known(
    code: TokenStream,
    known: &HashSet<String>,
    scopes: &mut Vec<HashSet<String>>,
) -> bool {
    let trees: Vec<TokenTree> = code.into_iter().collect();
    let mut index = 0;
    while index < trees.len() {
        match &trees[index] {
            TokenTree::Punct(punct) if punct.as_char() == '#' => {
                // An attribute: `#[...]`.
                index += 2;
                continue;
            }
            TokenTree::Ident(ident) if ident == "let" => {
                // The pattern runs to the `=` (or `;` for `let x;`) at this level; its names
                // are bound once the statement is read, so the initializer is read first.
                let mut end = index + 1;
                while end < trees.len()
                    && !matches!(&trees[end], TokenTree::Punct(p) if p.as_char() == '=' || p.as_char() == ';')
                {
                    end += 1;
                }
                let mut bound = Vec::new();
                for tree in &trees[index + 1..end] {
                    pattern_names(tree, &mut bound);
                }
                let mut statement_end = end;
                while statement_end < trees.len()
                    && !matches!(&trees[statement_end], TokenTree::Punct(p) if p.as_char() == ';')
                {
                    statement_end += 1;
                }
                let initializer: TokenStream = trees[(end + 1).min(statement_end)..statement_end]
                    .iter()
                    .cloned()
                    .collect();
                if !reads_only_known(initializer, known, scopes) {
                    return false;
                }
                // A type ascription (`let i: usize`) names a type, not a value.
                let scope = scopes.last_mut().expect("a scope is open");
                scope.extend(bound);
                index = statement_end + 1;
                continue;
            }
            TokenTree::Ident(ident) => {
                let after_path = index > 0
                    && matches!(&trees[index - 1], TokenTree::Punct(p) if matches!(p.as_char(), '.' | ':' | '\''));
                let name = ident.to_string();
                if !after_path
                    && !known.contains(&name)
                    && !scopes.iter().any(|scope| scope.contains(&name))
                {
                    return false;
                }
            }
            TokenTree::Group(group) => {
                let braces = group.delimiter() == Delimiter::Brace;
                if braces {
                    scopes.push(HashSet::new());
                }
                let reads = reads_only_known(group.stream(), known, scopes);
                if braces {
                    scopes.pop();
                }
                if !reads {
                    return false;
                }
            }
            _ => {}
        }
        index += 1;
    }
    true
}

/// Names a literal constant's code is made of once the scalar type has lifted it: the
/// conversions of `ad_runtime`, which read nothing and have no effect.
const LITERAL: &[&str] = &[
    "as",
    "ad_runtime",
    "Scalar",
    "from_f64",
    "__private",
    "LiftProbe",
    "new",
    "__ad_lift",
    "f64",
    "f32",
];

/// Whether `code` is made of literals and the scalar type's conversions only (`2.0`, lifted:
/// `<__S as ::ad_runtime::Scalar>::from_f64(2.0)`), so that evaluating it again gives the
/// same value and the backward code may do so instead of keeping it.
pub fn is_literal(code: &TokenStream, scalar: &TokenStream) -> bool {
    let scalar_names: HashSet<String> = scalar
        .clone()
        .into_iter()
        .filter_map(|tree| match tree {
            TokenTree::Ident(ident) => Some(ident.to_string()),
            _ => None,
        })
        .collect();
    fn only_literal_names(code: TokenStream, scalar_names: &HashSet<String>) -> bool {
        code.into_iter().all(|tree| match tree {
            TokenTree::Ident(ident) => {
                let name = ident.to_string();
                LITERAL.contains(&name.as_str()) || scalar_names.contains(&name)
            }
            TokenTree::Group(group) => only_literal_names(group.stream(), scalar_names),
            TokenTree::Punct(_) | TokenTree::Literal(_) => true,
        })
    }
    only_literal_names(code.clone(), &scalar_names)
}

/// The names a `let` pattern binds: every name in it but those after `:` (its type) and
/// path segments, which are not `__ad_` names the generated code binds.
fn pattern_names(tree: &TokenTree, names: &mut Vec<String>) {
    match tree {
        TokenTree::Ident(ident) if ident.to_string().starts_with("__ad_") => {
            names.push(ident.to_string())
        }
        TokenTree::Group(group) => {
            for tree in group.stream() {
                pattern_names(&tree, names);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::{captures_nothing, is_literal};
    use quote::quote;

    fn nothing(code: proc_macro2::TokenStream) -> bool {
        captures_nothing(&code, &quote!(__S))
    }

    #[test]
    fn environment_reads_and_own_lets_capture_nothing() {
        assert!(nothing(quote! {
            #[allow(unused_mut)]
            let mut __ad_hoisted_cotangents = (<__S as ::ad_runtime::Scalar>::zero(),);
            let __ad_i1: usize = ((__ad_env.0).1).0 * 2 + (__ad_env.1).0;
            let __ad_ct2 = __adj.element_value(8usize, __ad_i1);
            let __ad_d3 = ::ad_runtime::rules::add(<__S as ::ad_runtime::Scalar>::zero(),
                <__S as ::ad_runtime::Scalar>::zero()).1;
            let __ad_c4 = ::ad_runtime::linear::LinearMap::reverse_apply(&__ad_d3, __ad_ct2);
            __adj.add_sized_element(2usize, __ad_i1, __ad_c4.0);
            __ad_hoisted_cotangents
        }));
    }

    #[test]
    fn forward_values_and_user_names_are_captures() {
        assert!(!nothing(quote!(let __ad_c = __ad_read84 * __ad_env.0;)));
        assert!(!nothing(quote!(__adj.add_element(3usize, l, __ad_ct);)));
        assert!(!nothing(
            quote!(let __ad_x = ::ad_runtime::rules::mul(__ad_v1, __ad_v1).1;)
        ));
        // A name bound in an inner block is out of scope after it.
        assert!(!nothing(
            quote!({ let __ad_i = 1usize; } __adj.add_element(0usize, __ad_i, __ad_c);)
        ));
        // A `let` reads its initializer before its names are bound.
        assert!(!nothing(quote!(let __ad_i: usize = __ad_i + 1;)));
        assert!(!nothing(quote!(unreachable!())));
    }

    #[test]
    fn literals_lifted_to_the_scalar_type_are_literals() {
        let scalar = quote!(__S);
        assert!(is_literal(
            &quote!(<__S as ::ad_runtime::Scalar>::from_f64(2.0)),
            &scalar
        ));
        assert!(is_literal(
            &quote!(::ad_runtime::__private::LiftProbe::new(-2.0 * 3.5).__ad_lift::<__S>()),
            &scalar
        ));
        // Names, paths to other crates and calls may give another value when evaluated again.
        assert!(!is_literal(
            &quote!(<__S as ::ad_runtime::Scalar>::from_f64(c)),
            &scalar
        ));
        assert!(!is_literal(
            &quote!(
                ::ad_runtime::__private::LiftProbe::new(::rand::random::<f64>()).__ad_lift::<__S>()
            ),
            &scalar
        ));
    }
}
