//! Calls of the `macro_rules!` macros of the function's file in a differentiated body
//! (`sq!(x)`, `idx!(i, j)`), expanded here before anything else reads the body: an attribute
//! macro sees the tokens of a call, not its expansion, so the derivative code would not know
//! what it computes.
//!
//! The definition is read from the source file (`aliases`); a macro of another file is reached
//! through `#[macro_use]` or an import, which only rustc resolves. The rules are tried first to
//! last, as rustc tries them, for the fragments numerical helpers use (`expr`, `ident`, `ty`,
//! `tt`, `literal`, `pat`, `path`, `block`, `stmt`, `lifetime`); an expression argument goes
//! in as one operand, as rustc passes it, so `sq!(a + b)` is `(a + b) * (a + b)`. A call in
//! statement position expands to statements of its block (a `let` it makes is seen after it).
//! The expansion is textual, where rustc's is hygienic (the expansion's names and the caller's
//! are kept apart): a call whose expansion spells a name the function also spells is refused,
//! at the call, rather than risk one capturing the other. So is a call only a rule with a
//! repetition (`$(..)*`) matches. The expansion's own tokens are spanned at the call.

use std::collections::{HashMap, HashSet};

use quote::ToTokens;

use crate::ctxt::Ctxt;

use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::visit_mut::VisitMut;

/// How deep macros may call macros before the expansion stops (rustc's limit is 128; a
/// helper nested this deep is not one a numerical body has).
const DEPTH: usize = 16;

/// Expands, in `block` (the body of a function of signature `sig`), the calls of macros
/// `definitions` gives the rules of (by name, the tokens inside `macro_rules! name { .. }`);
/// whether it expanded any. A call of one of them that is not expanded gets its error in `cx`,
/// at the call.
pub fn expand_calls(
    cx: &Ctxt,
    sig: &syn::Signature,
    block: &mut syn::Block,
    definitions: &HashMap<String, String>,
) -> bool {
    if definitions.is_empty() {
        return false;
    }
    let mut body_names = HashSet::new();
    spelled_names(sig.to_token_stream(), &mut body_names);
    spelled_names(block.to_token_stream(), &mut body_names);
    let mut expander = Expander {
        cx,
        definitions,
        body_names,
        depth: 0,
        expanded: 0,
    };
    expander.visit_block_mut(block);
    expander.expanded > 0
}

/// Every identifier `tokens` spell.
fn spelled_names(tokens: TokenStream, names: &mut HashSet<String>) {
    for token in tokens {
        match token {
            TokenTree::Ident(name) => {
                names.insert(name.to_string());
            }
            TokenTree::Group(group) => spelled_names(group.stream(), names),
            _ => {}
        }
    }
}

struct Expander<'a> {
    cx: &'a Ctxt,
    definitions: &'a HashMap<String, String>,
    /// Every name the function spells (signature and body): an expansion that names one of
    /// them could not be told apart from it here, as rustc's hygiene tells them apart.
    body_names: HashSet<String>,
    depth: usize,
    expanded: usize,
}

impl VisitMut for Expander<'_> {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        if let syn::Expr::Macro(call) = expr {
            if let Some(tokens) = self.expansion(&call.mac) {
                match syn::parse2::<syn::Expr>(tokens) {
                    Ok(expanded) => {
                        *expr = expanded;
                        self.expanded += 1;
                        self.nested(|expander| expander.visit_expr_mut(expr));
                    }
                    Err(_) => self.refuse(&call.mac, "its expansion here is not an expression"),
                }
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        // A call in statement position (`sq!(x);`, `def!(y, e);`) expands to statements in
        // the block, where the names they bind are seen by what follows.
        let mut stmts = Vec::with_capacity(block.stmts.len());
        for mut stmt in std::mem::take(&mut block.stmts) {
            let syn::Stmt::Macro(call) = &stmt else {
                self.visit_stmt_mut(&mut stmt);
                stmts.push(stmt);
                continue;
            };
            let Some(tokens) = self.expansion(&call.mac) else {
                stmts.push(stmt);
                continue;
            };
            let semi = call.semi_token;
            match syn::parse::Parser::parse2(syn::Block::parse_within, tokens) {
                Ok(mut expanded) => {
                    self.expanded += 1;
                    // `sq!(x);`: the expression as a statement, its `;` kept.
                    if let (Some(syn::Stmt::Expr(_, last_semi @ None)), Some(semi)) =
                        (expanded.last_mut(), semi)
                    {
                        *last_semi = Some(semi);
                    }
                    let mut inner = syn::Block {
                        brace_token: block.brace_token,
                        stmts: expanded,
                    };
                    self.nested(|expander| expander.visit_block_mut(&mut inner));
                    stmts.extend(inner.stmts);
                }
                Err(_) => {
                    self.refuse(&call.mac, "its expansion here is not a list of statements");
                    stmts.push(stmt);
                }
            }
        }
        block.stmts = stmts;
    }

    // Items nested in the body are the compiler's to expand.
    fn visit_item_mut(&mut self, _item: &mut syn::Item) {}
}

impl Expander<'_> {
    fn nested(&mut self, expand: impl FnOnce(&mut Self)) {
        if self.depth < DEPTH {
            self.depth += 1;
            expand(self);
            self.depth -= 1;
        }
    }

    fn refuse(&self, mac: &syn::Macro, reason: &str) {
        let name = mac.path.to_token_stream().to_string().replace(' ', "");
        self.cx.error_spanned_by(
            &mac.path,
            format!(
                "macro `{name}!` is not expanded for the derivative: {reason}; write the \
                 expression out here, or make the macro a function"
            ),
        );
    }

    /// The tokens a call of one of the crate's macros expands to; `None`, with the reason
    /// reported, when it is one this module does not expand, and for any other macro.
    fn expansion(&mut self, mac: &syn::Macro) -> Option<TokenStream> {
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
            // rustc tells the expansion's names from the caller's (hygiene); this expansion
            // is textual, so a name both spell could be captured either way.
            let mut shared: Vec<String> = names_spelled(&transcriber)
                .into_iter()
                .filter(|name| self.body_names.contains(name))
                .collect();
            if !shared.is_empty() {
                shared.sort();
                shared.dedup();
                let shared = shared.join("`, `");
                self.refuse(
                    mac,
                    &format!(
                        "its expansion names `{shared}`, which this function names too, and \
                         the expansion here could not keep them apart as rustc does; rename \
                         one of them"
                    ),
                );
                return None;
            }
            let Some(tokens) = transcribe(transcriber, &bindings, span) else {
                self.refuse(
                    mac,
                    "its rule's expansion uses what is not expanded here (a repetition \
                     `$(..)*`, `$crate`)",
                );
                return None;
            };
            return Some(tokens);
        }
        self.refuse(
            mac,
            "no rule of it that is expanded here matches this call (rules with repetitions \
             `$(..)*` and `vis`, `item` or `meta` fragments are not)",
        );
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
        "tt" => one_token_tree(input)?,
        "literal" => {
            // A negative number is one literal to `macro_rules!`.
            let mut tokens = TokenStream::new();
            if input.peek(syn::Token![-]) {
                tokens.extend(input.parse::<proc_macro2::Punct>()?.into_token_stream());
            }
            tokens.extend(input.parse::<syn::Lit>()?.into_token_stream());
            tokens
        }
        "pat" | "pat_param" => syn::Pat::parse_single(input)?.into_token_stream(),
        "path" => input.parse::<syn::Path>()?.into_token_stream(),
        "block" => input.parse::<syn::Block>()?.into_token_stream(),
        "stmt" => input.parse::<syn::Stmt>()?.into_token_stream(),
        "lifetime" => input.parse::<syn::Lifetime>()?.into_token_stream(),
        _ => return Err(input.error("a fragment not matched here")),
    })
}

/// One token tree as `macro_rules!` counts them: a multi-character operator (`+=`, `..`,
/// `->`) or a lifetime is one.
fn one_token_tree(input: ParseStream) -> syn::Result<TokenStream> {
    let first: TokenTree = input.parse()?;
    let mut tokens: TokenStream = first.clone().into();
    let TokenTree::Punct(mut punct) = first else {
        return Ok(tokens);
    };
    if punct.as_char() == '\'' {
        tokens.extend(input.call(Ident::parse_any)?.into_token_stream());
        return Ok(tokens);
    }
    while punct.spacing() == proc_macro2::Spacing::Joint {
        if input.fork().parse::<proc_macro2::Punct>().is_err() {
            break;
        }
        let next: proc_macro2::Punct = input.parse()?;
        tokens.extend([TokenTree::Punct(next.clone())]);
        punct = next;
    }
    Ok(tokens)
}

/// The names a transcriber spells that may be variables: not a `$` fragment, a field or
/// method after `.`, a path's segment, a macro's name, a keyword or a primitive type.
fn names_spelled(transcriber: &TokenStream) -> Vec<String> {
    fn scan(tokens: TokenStream, names: &mut Vec<String>) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let punct_at = |index: usize, c: char| matches!(tokens.get(index), Some(TokenTree::Punct(p)) if p.as_char() == c);
        for (index, token) in tokens.iter().enumerate() {
            match token {
                TokenTree::Ident(name) => {
                    let after_dot_or_dollar =
                        index > 0 && (punct_at(index - 1, '.') || punct_at(index - 1, '$'));
                    let in_path = (index > 0 && punct_at(index - 1, ':'))
                        || (punct_at(index + 1, ':') && punct_at(index + 2, ':'));
                    let text = name.to_string();
                    if !after_dot_or_dollar
                        && !in_path
                        && !punct_at(index + 1, '!')
                        && !is_keyword_or_primitive(&text)
                    {
                        names.push(text);
                    }
                }
                TokenTree::Group(group) => scan(group.stream(), names),
                _ => {}
            }
        }
    }
    let mut names = Vec::new();
    scan(transcriber.clone(), &mut names);
    names
}

fn is_keyword_or_primitive(word: &str) -> bool {
    const WORDS: &[&str] = &[
        "as", "break", "const", "continue", "crate", "else", "false", "fn", "for", "if", "impl",
        "in", "let", "loop", "match", "mod", "move", "mut", "ref", "return", "self", "Self",
        "static", "struct", "super", "true", "type", "unsafe", "use", "where", "while", "f32",
        "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
        "usize", "bool", "char", "str", "Some", "None", "Ok", "Err", "Vec", "Option", "Result",
    ];
    WORDS.contains(&word)
}

/// The transcriber with each `$name` replaced by its tokens and its own tokens spanned at the
/// call; `None` for a repetition, `$crate` or an unknown `$name`.
fn transcribe(
    transcriber: TokenStream,
    bindings: &HashMap<String, TokenStream>,
    span: Span,
) -> Option<TokenStream> {
    let mut out = TokenStream::new();
    let mut tokens = transcriber.into_iter();
    while let Some(token) = tokens.next() {
        match token {
            TokenTree::Punct(dollar) if dollar.as_char() == '$' => match tokens.next() {
                Some(TokenTree::Ident(name)) => {
                    out.extend(bindings.get(&name.to_string())?.clone())
                }
                _ => return None,
            },
            TokenTree::Group(group) => {
                let inner = transcribe(group.stream(), bindings, span)?;
                let mut rebuilt = Group::new(group.delimiter(), inner);
                rebuilt.set_span(span);
                out.extend([TokenTree::Group(rebuilt)]);
            }
            mut other => {
                other.set_span(span);
                out.extend([other]);
            }
        }
    }
    Some(out)
}
