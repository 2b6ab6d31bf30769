//! The few `std` macros accepted inside a differentiated body, and how their arguments are
//! read, so that the expressions inside them are rewritten like any other.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, Macro, Token};

/// Macros whose arguments are comma-separated expressions (a format string is an expression).
pub const SUPPORTED: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "print",
    "println",
    "eprint",
    "eprintln",
    "format",
    "panic",
    "unreachable",
    "vec",
];

pub fn name(mac: &Macro) -> Option<String> {
    mac.path.get_ident().map(|ident| ident.to_string())
}

pub fn is_supported(mac: &Macro) -> bool {
    name(mac).is_some_and(|name| SUPPORTED.contains(&name.as_str()))
}

pub fn supported_list() -> String {
    SUPPORTED
        .iter()
        .map(|name| format!("`{name}!`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The arguments of a supported macro.
pub enum MacroArgs {
    /// `a, b, c`
    List(Punctuated<Expr, Token![,]>),
    /// `vec![element; count]`
    Repeat(Box<Expr>, Token![;], Box<Expr>),
}

impl Parse for MacroArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.is_empty() {
            return Ok(MacroArgs::List(Punctuated::new()));
        }
        let fork = input.fork();
        if fork.parse::<Expr>().is_ok() && fork.peek(Token![;]) {
            let element = input.parse()?;
            let semi = input.parse()?;
            let count = input.parse()?;
            return Ok(MacroArgs::Repeat(Box::new(element), semi, Box::new(count)));
        }
        Ok(MacroArgs::List(Punctuated::parse_terminated(input)?))
    }
}

impl MacroArgs {
    pub fn parse_from(mac: &Macro) -> syn::Result<MacroArgs> {
        mac.parse_body()
    }

    pub fn exprs_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            MacroArgs::List(list) => list.iter_mut().collect(),
            MacroArgs::Repeat(element, _, count) => vec![&mut **element, &mut **count],
        }
    }

    pub fn exprs(&self) -> Vec<&Expr> {
        match self {
            MacroArgs::List(list) => list.iter().collect(),
            MacroArgs::Repeat(element, _, count) => vec![&**element, &**count],
        }
    }
}

impl ToTokens for MacroArgs {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match self {
            MacroArgs::List(list) => list.to_tokens(tokens),
            MacroArgs::Repeat(element, semi, count) => tokens.extend(quote!(#element #semi #count)),
        }
    }
}
