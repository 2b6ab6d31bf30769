//! Items of nested blocks named like a name outside them (`const OFFSET` in a loop body, the
//! module's `OFFSET` read after the loop; `const k` shadowing a `let k`): the derivative code
//! declares every item of the body at its top, where such an item would change what the name
//! means outside its block. Each is renamed in its block first (`__ad_item0_OFFSET`), as a
//! compiler renames to make names unique, so that hoisting it changes nothing.

use std::collections::HashMap;

use proc_macro2::{Delimiter, Ident, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use syn::visit_mut::VisitMut;

/// The body with the items of its nested blocks that share a name with something outside
/// their block renamed there, innermost blocks first; `None` when none does.
pub(super) fn renamed_nested_items(body: &syn::Block) -> Option<syn::Block> {
    struct Renamer {
        body: syn::Block,
        renamed: usize,
    }
    impl Renamer {
        fn names_outside(&self, block: &syn::Block, name: &str) -> bool {
            let mut everywhere = HashMap::new();
            super::count_names(self.body.to_token_stream(), &mut everywhere);
            let mut inside = HashMap::new();
            super::count_names(block.to_token_stream(), &mut inside);
            everywhere.get(name) != inside.get(name)
        }
    }
    // Blocks are visited in a copy and renamed in place, innermost first.
    struct Nested<'a> {
        renamer: &'a mut Renamer,
        depth: usize,
    }
    impl VisitMut for Nested<'_> {
        fn visit_block_mut(&mut self, block: &mut syn::Block) {
            self.depth += 1;
            syn::visit_mut::visit_block_mut(self, block);
            self.depth -= 1;
            if self.depth == 0 {
                return;
            }
            for name in renamable_item_names(block) {
                if !self.renamer.names_outside(block, &name) {
                    continue;
                }
                let renamed = format_ident!("__ad_item{}_{}", self.renamer.renamed, name);
                self.renamer.renamed += 1;
                // A `use` bringing the name imports it under the new one (`use m::k as
                // __ad_item0_k;`); the other statements are renamed token by token.
                let tokens: TokenStream = block
                    .stmts
                    .iter()
                    .map(|stmt| match stmt {
                        syn::Stmt::Item(syn::Item::Use(item)) => {
                            let mut item = item.clone();
                            import_as(&mut item.tree, &name, &renamed);
                            item.to_token_stream()
                        }
                        other => rename(other.to_token_stream(), &name, &renamed),
                    })
                    .collect();
                if let Ok(new_block) = syn::parse2::<syn::Block>(quote!({ #tokens })) {
                    // The whole body is counted again with the block renamed.
                    let old = block.to_token_stream().to_string();
                    *block = new_block;
                    replace_block(&mut self.renamer.body, &old, block);
                }
            }
        }
        // Items' own bodies are not lowered.
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    let mut renamer = Renamer {
        body: body.clone(),
        renamed: 0,
    };
    let mut copy = body.clone();
    Nested {
        renamer: &mut renamer,
        depth: 0,
    }
    .visit_block_mut(&mut copy);
    (renamer.renamed > 0).then_some(copy)
}

/// The names of a block's own `const`, `static` and `fn` items, and of the names its `use`
/// items import (a lowercase one may shadow a `let`: `use shifts::k;`).
fn renamable_item_names(block: &syn::Block) -> Vec<String> {
    let mut names = Vec::new();
    for stmt in &block.stmts {
        match stmt {
            syn::Stmt::Item(syn::Item::Const(item)) => names.push(item.ident.to_string()),
            syn::Stmt::Item(syn::Item::Static(item)) => names.push(item.ident.to_string()),
            syn::Stmt::Item(syn::Item::Fn(item)) => names.push(item.sig.ident.to_string()),
            // Types (`Vector3`) stay: the macros know some by their names.
            syn::Stmt::Item(syn::Item::Use(item)) => names.extend(
                crate::ast::imported_names(&item.tree)
                    .unwrap_or_default()
                    .iter()
                    .map(ToString::to_string)
                    .filter(|name| !names_a_type(name)),
            ),
            _ => {}
        }
    }
    names
}

/// Whether a name is written as Rust names types and traits (`Vector3`, `Float`), not as
/// constants (`SHIFT`) or functions.
fn names_a_type(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase()) && name.chars().any(|c| c.is_lowercase())
}

/// The import of `name` in `tree` made under `renamed` (`k` to `k as renamed`).
fn import_as(tree: &mut syn::UseTree, name: &str, renamed: &Ident) {
    match tree {
        syn::UseTree::Path(path) => import_as(&mut path.tree, name, renamed),
        syn::UseTree::Name(leaf) if leaf.ident == name => {
            let ident = leaf.ident.clone();
            *tree = syn::UseTree::Rename(syn::UseRename {
                ident,
                as_token: Default::default(),
                rename: renamed.clone(),
            });
        }
        syn::UseTree::Rename(rename) if rename.rename == name => rename.rename = renamed.clone(),
        syn::UseTree::Group(group) => group
            .items
            .iter_mut()
            .for_each(|tree| import_as(tree, name, renamed)),
        _ => {}
    }
}

/// The body with each glob import of its blocks (`use shifts::*;`) written as the names it
/// brings (`use shifts::{SHIFT, k};`), which the lowering must know to resolve names: those of
/// a module inline in the function's file, or of `std::f64::consts`. `None` when there is
/// none; an error for one whose names the file does not say.
pub(super) fn expanded_globs(body: &syn::Block) -> super::Lowered<Option<syn::Block>> {
    struct Globs {
        expanded: bool,
        unknown: Option<super::NotYet>,
    }
    impl Globs {
        fn expand(&mut self, tree: &mut syn::UseTree, prefix: &mut Vec<String>) {
            match tree {
                syn::UseTree::Path(path) => {
                    prefix.push(path.ident.to_string());
                    self.expand(&mut path.tree, prefix);
                    prefix.pop();
                }
                syn::UseTree::Group(group) => group
                    .items
                    .iter_mut()
                    .for_each(|tree| self.expand(tree, prefix)),
                syn::UseTree::Glob(glob) => {
                    let Some(names) = glob_names(prefix) else {
                        self.unknown.get_or_insert(super::NotYet {
                            span: syn::spanned::Spanned::span(&glob.star_token),
                            what: "glob imports in the body but of a module inline in the \
                                   function's file: import the names used (`use m::{A, b};`)",
                        });
                        return;
                    };
                    let span = glob.star_token.spans[0];
                    let names = names.iter().map(|name| Ident::new(name, span));
                    *tree = syn::parse_quote_spanned!(span=> { #(#names),* });
                    self.expanded = true;
                }
                syn::UseTree::Name(_) | syn::UseTree::Rename(_) => {}
            }
        }
    }
    impl VisitMut for Globs {
        fn visit_item_use_mut(&mut self, item: &mut syn::ItemUse) {
            self.expand(&mut item.tree, &mut Vec::new());
        }
        // Items' own bodies are not lowered.
        fn visit_item_fn_mut(&mut self, _: &mut syn::ItemFn) {}
        fn visit_item_impl_mut(&mut self, _: &mut syn::ItemImpl) {}
        fn visit_item_mod_mut(&mut self, _: &mut syn::ItemMod) {}
    }
    let mut globs = Globs {
        expanded: false,
        unknown: None,
    };
    let mut copy = body.clone();
    globs.visit_block_mut(&mut copy);
    match globs.unknown {
        Some(unknown) => Err(unknown),
        None => Ok(globs.expanded.then_some(copy)),
    }
}

/// The names a glob import of the module at `path` brings, when they are known.
fn glob_names(path: &[String]) -> Option<Vec<String>> {
    let segments: Vec<&str> = path.iter().map(String::as_str).collect();
    match segments.as_slice() {
        ["std" | "core", "f64" | "f32", "consts"] | ["f64" | "f32", "consts"] => Some(
            crate::generics::FLOAT_CONSTANTS
                .iter()
                .map(|name| name.to_string())
                .collect(),
        ),
        _ => crate::source_facts::glob_names(path),
    }
}

/// Replaces, in `body`, the block whose tokens read `old` by `new`.
fn replace_block(body: &mut syn::Block, old: &str, new: &syn::Block) {
    struct Replace<'a>(&'a str, &'a syn::Block, bool);
    impl VisitMut for Replace<'_> {
        fn visit_block_mut(&mut self, block: &mut syn::Block) {
            if !self.2 && block.to_token_stream().to_string() == self.0 {
                *block = self.1.clone();
                self.2 = true;
                return;
            }
            syn::visit_mut::visit_block_mut(self, block);
        }
    }
    Replace(old, new, false).visit_block_mut(body);
}

/// `tokens` with every `name` that names something (not a field, a method or a later path
/// segment: `.name`, `a::name`, a struct's `name:` in braces) renamed to `renamed`.
fn rename(tokens: TokenStream, name: &str, renamed: &Ident) -> TokenStream {
    rename_in(tokens, name, renamed, Delimiter::None)
}

fn rename_in(
    tokens: TokenStream,
    name: &str,
    renamed: &Ident,
    delimiter: Delimiter,
) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    for (index, tree) in trees.iter().enumerate() {
        let previous = index.checked_sub(1).map(|at| &trees[at]);
        let before_previous = index.checked_sub(2).map(|at| &trees[at]);
        let next = trees.get(index + 1);
        let after_next = trees.get(index + 2);
        match tree {
            TokenTree::Group(group) => {
                let inner = rename_in(group.stream(), name, renamed, group.delimiter());
                let mut new = proc_macro2::Group::new(group.delimiter(), inner);
                new.set_span(group.span());
                out.push(TokenTree::Group(new));
            }
            TokenTree::Ident(ident) if *ident == name => {
                let is_punct = |tree: Option<&TokenTree>, c: char| matches!(tree, Some(TokenTree::Punct(p)) if p.as_char() == c);
                // `.name` is a field or a method; `..name` a range's end.
                let after_dot = crate::generics::after_field_dot(previous, before_previous);
                let after_path = is_punct(previous, ':') && is_punct(before_previous, ':');
                let field_in_braces = delimiter == Delimiter::Brace
                    && is_punct(next, ':')
                    && !is_punct(after_next, ':')
                    && (previous.is_none() || is_punct(previous, ','));
                if after_dot || after_path || field_in_braces {
                    out.push(tree.clone());
                } else {
                    out.push(TokenTree::Ident(Ident::new(
                        &renamed.to_string(),
                        ident.span(),
                    )));
                }
            }
            other => out.push(other.clone()),
        }
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    #[test]
    fn items_renamed_in_their_block_only() {
        let body: syn::Block = syn::parse_quote!({
            let m = 1;
            let mut s = 0.0;
            for i in 0..n {
                const m: usize = 3;
                fn helper(p: &P) -> usize {
                    p.m + m
                }
                for j in 0..m {
                    s += x[j] * (j..=m).len() as f64 + P { m: 1 }.m as f64;
                }
            }
            s + m as f64 + module::m as f64
        });
        let renamed = super::renamed_nested_items(&body).expect("a renamed item");
        let expected: syn::Block = syn::parse_quote!({
            let m = 1;
            let mut s = 0.0;
            for i in 0..n {
                const __ad_item0_m: usize = 3;
                fn helper(p: &P) -> usize {
                    p.m + __ad_item0_m
                }
                for j in 0..__ad_item0_m {
                    s += x[j] * (j..=__ad_item0_m).len() as f64 + P { m: 1 }.m as f64;
                }
            }
            s + m as f64 + module::m as f64
        });
        assert_eq!(
            renamed.to_token_stream().to_string(),
            expected.to_token_stream().to_string()
        );
    }
}
