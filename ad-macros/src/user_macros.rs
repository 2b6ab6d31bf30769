//! Calls of the crate's own `macro_rules!` macros in a differentiated body (`sq!(x)`,
//! `idx!(i, j)`), expanded here before anything else reads the body: an attribute macro sees
//! the tokens of a call, not its expansion, so the derivative code would not know what it
//! computes.
//!
//! The definition is read from the source file (`aliases`, which the package's files are read
//! for anyway). The rules are matched as rustc matches them, first rule first, for the
//! fragments numerical helpers use (`expr`, `ident`, `ty`, `tt`, `literal`, `pat`, `path`,
//! `block`, `stmt`, `lifetime`); an expression argument goes in as one operand, as rustc
//! passes it, so `sq!(a + b)` is `(a + b) * (a + b)`. A rule with a repetition
//! (`$(...),*`) is not matched here: a call only such a rule matches keeps the refusal of a
//! macro whose expansion is not visible. The names a rule's expansion binds with `let` are
//! renamed, so that they cannot capture the caller's (the hygiene `macro_rules!` has), and
//! the expansion's own tokens are spanned at the call.

use std::collections::HashMap;

use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::visit_mut::VisitMut;

/// How deep macros may call macros before the expansion stops (rustc's limit is 128; a
/// helper nested this deep is not one a numerical body has).
const DEPTH: usize = 16;

/// Expands, in `block`, the calls of macros `definitions` gives the rules of (by name, the
/// tokens inside `macro_rules! name { .. }`); whether it expanded any.
pub fn expand_calls(block: &mut syn::Block, definitions: &HashMap<String, String>) -> bool {
    if definitions.is_empty() {
        return false;
    }
    let mut expander = Expander {
        definitions,
        depth: 0,
        expanded: 0,
        renamed: 0,
    };
    expander.visit_block_mut(block);
    expander.expanded > 0
}

/// The names of the macros `block` calls by a plain name (`sq!`, not `std::dbg!`), but
/// those the derivative code takes as they are (`vec!`, `assert!`, ..).
pub fn called(block: &syn::Block) -> Vec<String> {
    struct Calls(Vec<String>);
    impl<'ast> syn::visit::Visit<'ast> for Calls {
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            if let Some(name) = mac.path.get_ident() {
                if !crate::macros::is_supported(mac) {
                    self.0.push(name.to_string());
                }
            }
            // The arguments may call others (`sq!(idx!(i, j))`): parsed as expressions when
            // they are.
            if let Ok(args) = mac.parse_body_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            ) {
                for arg in &args {
                    self.visit_expr(arg);
                }
            }
        }
    }
    let mut calls = Calls(Vec::new());
    syn::visit::Visit::visit_block(&mut calls, block);
    calls.0.sort();
    calls.0.dedup();
    calls.0
}

/// The names of the macros a definition's rules call (`sq!` in `(sq!($a) + sq!($b)).sqrt()`).
pub fn called_in_rules(rules: &str) -> Vec<String> {
    fn scan(tokens: TokenStream, names: &mut Vec<String>) {
        let mut previous: Option<Ident> = None;
        for token in tokens {
            match &token {
                TokenTree::Punct(bang) if bang.as_char() == '!' => {
                    names.extend(previous.take().map(|name| name.to_string()));
                }
                TokenTree::Group(group) => scan(group.stream(), names),
                _ => {}
            }
            previous = match token {
                TokenTree::Ident(name) => Some(name),
                _ => None,
            };
        }
    }
    let mut names = Vec::new();
    if let Ok(tokens) = rules.parse() {
        scan(tokens, &mut names);
    }
    names.retain(|name| name != "macro_rules");
    names
}

struct Expander<'a> {
    definitions: &'a HashMap<String, String>,
    depth: usize,
    expanded: usize,
    /// How many names of expansions' `let`s have been renamed: each gets its own.
    renamed: usize,
}

impl VisitMut for Expander<'_> {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        if let syn::Expr::Macro(call) = expr {
            if let Some(expanded) = self.expansion(&call.mac) {
                *expr = expanded;
                if self.depth < DEPTH {
                    self.depth += 1;
                    self.visit_expr_mut(expr);
                    self.depth -= 1;
                }
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_stmt_mut(&mut self, stmt: &mut syn::Stmt) {
        // `sq!(x)` in statement position is parsed as a statement macro.
        if let syn::Stmt::Macro(call) = stmt {
            if let Some(expanded) = self.expansion(&call.mac) {
                *stmt = match call.semi_token {
                    Some(semi) => syn::Stmt::Expr(expanded, Some(semi)),
                    None => syn::Stmt::Expr(expanded, None),
                };
                if self.depth < DEPTH {
                    self.depth += 1;
                    self.visit_stmt_mut(stmt);
                    self.depth -= 1;
                }
                return;
            }
        }
        syn::visit_mut::visit_stmt_mut(self, stmt);
    }

    // Items nested in the body are the compiler's to expand.
    fn visit_item_mut(&mut self, _item: &mut syn::Item) {}
}

impl Expander<'_> {
    /// The expression a call expands to, if the macro is the crate's and a rule matches.
    fn expansion(&mut self, mac: &syn::Macro) -> Option<syn::Expr> {
        let name = mac.path.get_ident()?.to_string();
        let rules: TokenStream = self.definitions.get(&name)?.parse().ok()?;
        let span = mac.path.segments[0].ident.span();
        for (matcher, transcriber) in split_rules(rules) {
            let mut bindings = HashMap::new();
            let matched = Parser::parse2(
                |input: ParseStream| match_sequence(&matcher, input, &mut bindings),
                mac.tokens.clone(),
            );
            if matched.is_err() {
                continue;
            }
            let lets = let_bindings(&transcriber);
            let renames: HashMap<String, Ident> = lets
                .into_iter()
                .map(|name| {
                    self.renamed += 1;
                    let renamed = Ident::new(&format!("__ad_m{}_{name}", self.renamed), span);
                    (name, renamed)
                })
                .collect();
            let tokens = transcribe(transcriber, &bindings, &renames, span)?;
            self.expanded += 1;
            return syn::parse2::<syn::Expr>(tokens.clone())
                .ok()
                .or_else(|| syn::parse2::<syn::Expr>(quote::quote!({ #tokens })).ok());
        }
        None
    }
}

/// The `(matcher) => { transcriber }` pairs of a definition, their delimiters taken off.
fn split_rules(rules: TokenStream) -> Vec<(Vec<TokenTree>, TokenStream)> {
    let tokens: Vec<TokenTree> = rules.into_iter().collect();
    let mut pairs = Vec::new();
    let mut index = 0;
    while index < tokens.len() {
        let (Some(TokenTree::Group(matcher)), Some(TokenTree::Group(transcriber))) =
            (tokens.get(index), tokens.get(index + 3))
        else {
            break;
        };
        pairs.push((matcher.stream().into_iter().collect(), transcriber.stream()));
        // `(..) => {..}` and the `;` after it.
        index += 4;
        if matches!(tokens.get(index), Some(TokenTree::Punct(p)) if p.as_char() == ';') {
            index += 1;
        }
    }
    pairs
}

/// Matches `input` against a matcher, recording each `$name:fragment`'s tokens.
fn match_sequence(
    matcher: &[TokenTree],
    input: ParseStream,
    bindings: &mut HashMap<String, TokenStream>,
) -> syn::Result<()> {
    let mut index = 0;
    while index < matcher.len() {
        match &matcher[index] {
            TokenTree::Punct(dollar) if dollar.as_char() == '$' => {
                let (
                    Some(TokenTree::Ident(name)),
                    Some(TokenTree::Punct(colon)),
                    Some(TokenTree::Ident(fragment)),
                ) = (
                    matcher.get(index + 1),
                    matcher.get(index + 2),
                    matcher.get(index + 3),
                )
                else {
                    // A repetition, or `$crate`.
                    return Err(input.error("not a rule matched here"));
                };
                if colon.as_char() != ':' {
                    return Err(input.error("not a rule matched here"));
                }
                let tokens = fragment_tokens(&fragment.to_string(), input)?;
                bindings.insert(name.to_string(), tokens);
                index += 4;
            }
            TokenTree::Punct(expected) => {
                let found: proc_macro2::Punct = input.parse()?;
                if found.as_char() != expected.as_char() {
                    return Err(syn::Error::new(found.span(), "another token"));
                }
                index += 1;
            }
            TokenTree::Ident(expected) => {
                let found = input.call(Ident::parse_any)?;
                if found != *expected {
                    return Err(syn::Error::new(found.span(), "another word"));
                }
                index += 1;
            }
            TokenTree::Literal(expected) => {
                let found: proc_macro2::Literal = input.parse()?;
                if found.to_string() != expected.to_string() {
                    return Err(syn::Error::new(found.span(), "another literal"));
                }
                index += 1;
            }
            TokenTree::Group(expected) => {
                let found: Group = input.parse()?;
                if found.delimiter() != expected.delimiter() {
                    return Err(syn::Error::new(found.span(), "another group"));
                }
                let inner: Vec<TokenTree> = expected.stream().into_iter().collect();
                Parser::parse2(
                    |input: ParseStream| match_sequence(&inner, input, bindings),
                    found.stream(),
                )?;
                index += 1;
            }
        }
    }
    if input.is_empty() {
        Ok(())
    } else {
        Err(input.error("more tokens than the rule takes"))
    }
}

/// The tokens of one fragment parsed from `input`: an expression as one invisible group.
fn fragment_tokens(fragment: &str, input: ParseStream) -> syn::Result<TokenStream> {
    use quote::ToTokens;
    Ok(match fragment {
        "expr" => {
            let expr: syn::Expr = input.parse()?;
            // Parenthesized unless it binds tighter than any operator: an invisible group
            // does not survive every reprint of the tokens. The parentheses come from the
            // expansion (`call_site`), which rustc's `unused_parens` does not look at.
            let atomic = matches!(
                expr,
                syn::Expr::Path(_)
                    | syn::Expr::Lit(_)
                    | syn::Expr::MethodCall(_)
                    | syn::Expr::Call(_)
                    | syn::Expr::Field(_)
                    | syn::Expr::Index(_)
                    | syn::Expr::Paren(_)
                    | syn::Expr::Tuple(_)
                    | syn::Expr::Array(_)
                    | syn::Expr::Macro(_)
                    | syn::Expr::Block(_)
            );
            match atomic {
                true => expr.into_token_stream(),
                false => {
                    let mut group = Group::new(Delimiter::Parenthesis, expr.into_token_stream());
                    group.set_span(Span::call_site());
                    TokenTree::Group(group).into()
                }
            }
        }
        "ident" => input.call(Ident::parse_any)?.into_token_stream(),
        "ty" => input.parse::<syn::Type>()?.into_token_stream(),
        "tt" => input.parse::<TokenTree>()?.into_token_stream(),
        "literal" => input.parse::<syn::Lit>()?.into_token_stream(),
        "pat" | "pat_param" => syn::Pat::parse_single(input)?.into_token_stream(),
        "path" => input.parse::<syn::Path>()?.into_token_stream(),
        "block" => input.parse::<syn::Block>()?.into_token_stream(),
        "stmt" => input.parse::<syn::Stmt>()?.into_token_stream(),
        "lifetime" => input.parse::<syn::Lifetime>()?.into_token_stream(),
        _ => return Err(input.error("a fragment not matched here")),
    })
}

/// The names a transcriber binds with `let name` or `let mut name`.
fn let_bindings(transcriber: &TokenStream) -> Vec<String> {
    let mut names = Vec::new();
    let tokens: Vec<TokenTree> = transcriber.clone().into_iter().collect();
    for (index, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Ident(word) if word == "let" => {
                let mut next = index + 1;
                if matches!(tokens.get(next), Some(TokenTree::Ident(m)) if m == "mut") {
                    next += 1;
                }
                if let Some(TokenTree::Ident(name)) = tokens.get(next) {
                    names.push(name.to_string());
                }
            }
            TokenTree::Group(group) => names.extend(let_bindings(&group.stream())),
            _ => {}
        }
    }
    names.sort();
    names.dedup();
    names
}

/// The transcriber with each `$name` replaced by its tokens, its `let` names renamed, and its
/// own tokens spanned at the call; `None` for a repetition or an unknown `$name`.
fn transcribe(
    transcriber: TokenStream,
    bindings: &HashMap<String, TokenStream>,
    renames: &HashMap<String, Ident>,
    span: Span,
) -> Option<TokenStream> {
    let mut out = TokenStream::new();
    let mut tokens = transcriber.into_iter().peekable();
    while let Some(token) = tokens.next() {
        match token {
            TokenTree::Punct(dollar) if dollar.as_char() == '$' => match tokens.next() {
                Some(TokenTree::Ident(name)) => {
                    out.extend(bindings.get(&name.to_string())?.clone())
                }
                _ => return None,
            },
            TokenTree::Group(group) => {
                let inner = transcribe(group.stream(), bindings, renames, span)?;
                let mut rebuilt = Group::new(group.delimiter(), inner);
                rebuilt.set_span(span);
                out.extend([TokenTree::Group(rebuilt)]);
            }
            TokenTree::Ident(word) => {
                let renamed = renames.get(&word.to_string()).cloned();
                let mut word = renamed.unwrap_or(word);
                word.set_span(span);
                out.extend([TokenTree::Ident(word)]);
            }
            mut other => {
                other.set_span(span);
                out.extend([other]);
            }
        }
    }
    Some(out)
}
