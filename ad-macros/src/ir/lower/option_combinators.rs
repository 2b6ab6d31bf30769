//! The combinators of `Option` (`o.map(|v| v * v)`, `and_then`, `filter`, `unwrap_or_else`,
//! `map_or`, `map_or_else`, `is_some_and`, `or`, `or_else`, `ok_or`, `ok_or_else`, `copied`,
//! `cloned`, `take`, `replace`), lowered as the `match` or the `std::mem` call each one is, with
//! the closure's body inlined in the arm that runs it: the derivative flows through the arm as
//! through any
//! `match` on an option. On a call of a function of the file returning a `Result`, `map`,
//! `and_then`, `map_err`, `unwrap_or`, `unwrap_or_else` and `ok` are `Result`'s, lowered alike.

use syn::spanned::Spanned;
use syn::{Expr, Pat};

use super::iterators::check_closure;
use super::{strip, Lowered, Lowering};
use crate::ir::*;

/// Methods of iterators and other types that share a name with an `Option` combinator: taken
/// for the combinator only on a receiver that is not an iterator chain or a range.
const SHARED_NAMES: &[&str] = &["map", "filter", "or", "take", "replace", "copied", "cloned"];

impl Lowering {
    /// The combinator `call` as the `match` it is, lowered; `None` when it is no `Option`
    /// combinator.
    pub(super) fn option_combinator(
        &mut self,
        call: &syn::ExprMethodCall,
        stmts: &mut Vec<Stmt>,
    ) -> Lowered<Option<Operand>> {
        let method = call.method.to_string();
        let receiver = &call.receiver;
        if SHARED_NAMES.contains(&method.as_str()) && is_iterator(receiver) {
            return Ok(None);
        }
        let span = call.span();
        let args: Vec<&Expr> = call.args.iter().collect();
        let content = syn::Ident::new("__ad_content", span);
        if is_result(receiver) {
            return match result_combinator(&method, receiver, &args, &content, span)? {
                Some(expr) => self.operand(&expr, stmts).map(Some),
                None => Ok(None),
            };
        }
        let expr: Expr = match (method.as_str(), args.as_slice()) {
            ("map", [f]) => {
                let (pattern, body) = closure_parts(f, &content)?;
                syn::parse_quote_spanned!(span=> match #receiver {
                    Some(#pattern) => Some(#body),
                    None => None,
                })
            }
            ("and_then", [f]) => {
                let (pattern, body) = closure_parts(f, &content)?;
                syn::parse_quote_spanned!(span=> match #receiver {
                    Some(#pattern) => #body,
                    None => None,
                })
            }
            ("is_some_and", [f]) => {
                let (pattern, body) = closure_parts(f, &content)?;
                syn::parse_quote_spanned!(span=> match #receiver {
                    Some(#pattern) => #body,
                    None => false,
                })
            }
            ("filter", [f]) => {
                // The predicate takes a reference to the content.
                let (pattern, body) = closure_parts(f, &content)?;
                syn::parse_quote_spanned!(span=> match #receiver {
                    Some(#content) => {
                        let #pattern = &#content;
                        if #body { Some(#content) } else { None }
                    }
                    None => None,
                })
            }
            ("map_or", [default, f]) => {
                let (pattern, body) = closure_parts(f, &content)?;
                // The default is evaluated first, used or not, as Rust does.
                syn::parse_quote_spanned!(span=> {
                    let __ad_default = #default;
                    match #receiver {
                        Some(#pattern) => #body,
                        None => __ad_default,
                    }
                })
            }
            ("map_or_else", [default, f]) => {
                let (pattern, body) = closure_parts(f, &content)?;
                let otherwise = nullary_body(default)?;
                syn::parse_quote_spanned!(span=> match #receiver {
                    Some(#pattern) => #body,
                    None => #otherwise,
                })
            }
            ("unwrap_or_else", [f]) => {
                let otherwise = nullary_body(f)?;
                syn::parse_quote_spanned!(span=> match #receiver {
                    Some(#content) => #content,
                    None => #otherwise,
                })
            }
            ("or", [other]) => syn::parse_quote_spanned!(span=> {
                let __ad_other = #other;
                match #receiver {
                    Some(#content) => Some(#content),
                    None => __ad_other,
                }
            }),
            ("or_else", [f]) => {
                let otherwise = nullary_body(f)?;
                syn::parse_quote_spanned!(span=> match #receiver {
                    Some(#content) => Some(#content),
                    None => #otherwise,
                })
            }
            ("ok_or", [error]) => syn::parse_quote_spanned!(span=> {
                let __ad_error = #error;
                match #receiver {
                    Some(#content) => Ok(#content),
                    None => Err(__ad_error),
                }
            }),
            ("ok_or_else", [f]) => {
                let otherwise = nullary_body(f)?;
                syn::parse_quote_spanned!(span=> match #receiver {
                    Some(#content) => Ok(#content),
                    None => Err(#otherwise),
                })
            }
            ("copied" | "cloned", []) if !is_iterator(receiver) => {
                syn::parse_quote_spanned!(span=> match #receiver {
                    Some(#content) => Some(*#content),
                    None => None,
                })
            }
            ("take", []) if is_place(receiver) => {
                syn::parse_quote_spanned!(span=> ::std::mem::replace(&mut #receiver, None))
            }
            ("replace", [value]) if is_place(receiver) => {
                syn::parse_quote_spanned!(span=> ::std::mem::replace(&mut #receiver, Some(#value)))
            }
            _ => return Ok(None),
        };
        self.operand(&expr, stmts).map(Some)
    }
}

/// A call of a function of the file that returns a `Result` (`checked_beta(a, b)`).
fn is_result(receiver: &Expr) -> bool {
    matches!(strip(receiver), Expr::Call(call)
        if matches!(&*call.func, Expr::Path(path)
            if path.qself.is_none() && crate::source_facts::returns_result(&path.path)))
}

/// The combinators of `Result` as the `match` each one is (statrs' `checked_beta(a, b).map(|x|
/// x.exp())`): `map`, `and_then`, `map_err`, `unwrap_or`, `unwrap_or_else`, `ok`.
fn result_combinator(
    method: &str,
    receiver: &Expr,
    args: &[&Expr],
    content: &syn::Ident,
    span: proc_macro2::Span,
) -> Lowered<Option<Expr>> {
    let error = syn::Ident::new("__ad_error", span);
    Ok(Some(match (method, args) {
        ("map", [f]) => {
            let (pattern, body) = closure_parts(f, content)?;
            syn::parse_quote_spanned!(span=> match #receiver {
                Ok(#pattern) => Ok(#body),
                Err(#error) => Err(#error),
            })
        }
        ("and_then", [f]) => {
            let (pattern, body) = closure_parts(f, content)?;
            syn::parse_quote_spanned!(span=> match #receiver {
                Ok(#pattern) => #body,
                Err(#error) => Err(#error),
            })
        }
        ("map_err", [f]) => {
            let (pattern, body) = closure_parts(f, &error)?;
            syn::parse_quote_spanned!(span=> match #receiver {
                Ok(#content) => Ok(#content),
                Err(#pattern) => Err(#body),
            })
        }
        ("unwrap_or", [default]) => syn::parse_quote_spanned!(span=> {
            let __ad_default = #default;
            match #receiver {
                Ok(#content) => #content,
                Err(_) => __ad_default,
            }
        }),
        ("unwrap_or_else", [f]) => {
            let (pattern, body) = closure_parts(f, &error)?;
            syn::parse_quote_spanned!(span=> match #receiver {
                Ok(#content) => #content,
                Err(#pattern) => #body,
            })
        }
        ("ok", []) => syn::parse_quote_spanned!(span=> match #receiver {
            Ok(#content) => Some(#content),
            Err(_) => None,
        }),
        _ => return Ok(None),
    }))
}

/// A receiver that is an iterator chain or a range: `x.iter().map(..)`, `(0..n).map(..)` (not
/// `o.take()`, an option's).
fn is_iterator(receiver: &Expr) -> bool {
    super::desugar::is_iterator_chain(receiver)
}

/// A variable or a field, which `take`/`replace` may borrow mutably.
fn is_place(receiver: &Expr) -> bool {
    matches!(strip(receiver), Expr::Path(_) | Expr::Field(_))
}

/// The pattern and body of a one-parameter closure (a parameter's type dropped), or for any
/// other function (`f64::sqrt`, a function's name) the call of it on `content`.
fn closure_parts(f: &Expr, content: &syn::Ident) -> Lowered<(Pat, Expr)> {
    match strip(f) {
        Expr::Closure(closure) if closure.inputs.len() == 1 => {
            check_closure(closure)?;
            let pattern = match &closure.inputs[0] {
                Pat::Type(typed) => (*typed.pat).clone(),
                pattern => pattern.clone(),
            };
            Ok((pattern, (*closure.body).clone()))
        }
        Expr::Closure(closure) => super::not_yet(closure, "closures of this arity here"),
        Expr::Path(function) => {
            let span = function.span();
            Ok((
                syn::parse_quote_spanned!(span=> #content),
                syn::parse_quote_spanned!(span=> #function(#content)),
            ))
        }
        other => super::not_yet(other, "this function given to an `Option` combinator"),
    }
}

/// The body of a closure without parameters, or the call of any other function.
fn nullary_body(f: &Expr) -> Lowered<Expr> {
    match strip(f) {
        Expr::Closure(closure) if closure.inputs.is_empty() => {
            check_closure(closure)?;
            Ok((*closure.body).clone())
        }
        Expr::Closure(closure) => super::not_yet(closure, "closures of this arity here"),
        Expr::Path(function) => {
            let span = function.span();
            Ok(syn::parse_quote_spanned!(span=> #function()))
        }
        other => super::not_yet(other, "this function given to an `Option` combinator"),
    }
}
