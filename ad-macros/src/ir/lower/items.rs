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
                let tokens = rename(
                    block.stmts.iter().map(ToTokens::to_token_stream).collect(),
                    &name,
                    &renamed,
                );
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

/// The names of a block's own `const`, `static` and `fn` items.
fn renamable_item_names(block: &syn::Block) -> Vec<String> {
    block
        .stmts
        .iter()
        .filter_map(|stmt| match stmt {
            syn::Stmt::Item(syn::Item::Const(item)) => Some(item.ident.to_string()),
            syn::Stmt::Item(syn::Item::Static(item)) => Some(item.ident.to_string()),
            syn::Stmt::Item(syn::Item::Fn(item)) => Some(item.sig.ident.to_string()),
            _ => None,
        })
        .collect()
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
