//! The macros' own attributes: the arguments of `#[forward]` and the `#[no_grad]` and
//! `#[grad]` markers on parameters.

use proc_macro2::TokenStream;
use syn::Attribute;

use crate::ctxt::Ctxt;

pub const NO_GRAD: &str = "no_grad";

pub fn expect_no_arguments(cx: &Ctxt, macro_name: &str, args: TokenStream) {
    if !args.is_empty() {
        cx.error_spanned_by(
            args,
            format!("#[{macro_name}] takes no arguments; write `#[{macro_name}]`"),
        );
    }
}

/// Removes `#[no_grad]` from a parameter's attributes; returns whether it was there.
pub fn take_no_grad(cx: &Ctxt, attrs: &mut Vec<Attribute>) -> bool {
    take_marker(cx, attrs, NO_GRAD)
}

pub const GRAD: &str = "grad";

/// Removes `#[grad]` (a parameter of a user type that derives `Differentiable`, to be
/// differentiated); returns whether it was there.
pub fn take_grad(cx: &Ctxt, attrs: &mut Vec<Attribute>) -> bool {
    take_marker(cx, attrs, GRAD)
}

fn take_marker(cx: &Ctxt, attrs: &mut Vec<Attribute>, marker: &str) -> bool {
    let mut found = false;
    attrs.retain(|attr| {
        if !attr.path().is_ident(marker) {
            return true;
        }
        if let Err(error) = attr.meta.require_path_only() {
            cx.syn_error(syn::Error::new(
                error.span(),
                format!("#[{marker}] takes no arguments; write `#[{marker}]`"),
            ));
        }
        found = true;
        false
    });
    found
}

pub const CHECKPOINT: &str = "checkpoint";

/// The attribute macros that differentiate a function or an `impl` block.
pub const MACROS: [&str; 3] = ["forward", "reverse", CHECKPOINT];

/// The name of `attr` when it is one of [`MACROS`] (`#[forward]`, `#[ad_runtime::reverse]`).
pub fn our_macro(attr: &Attribute) -> Option<String> {
    let last = attr.path().segments.last()?.ident.to_string();
    MACROS.contains(&last.as_str()).then_some(last)
}

/// The arguments of an inner `#[checkpoint]`: none, `every = k`, or `binomial, snapshots = s`.
#[derive(Clone)]
pub enum CheckpointArgs {
    Region,
    Every(syn::Expr),
    Binomial(syn::Expr),
}

pub fn is_checkpoint(attr: &Attribute) -> bool {
    attr.path().is_ident(CHECKPOINT)
}

/// The `#[checkpoint]` among `attrs`, parsed; errors go to `cx`.
pub fn checkpoint_args(cx: &Ctxt, attrs: &[Attribute]) -> Option<CheckpointArgs> {
    let attr = attrs.iter().find(|attr| is_checkpoint(attr))?;
    let list = match &attr.meta {
        syn::Meta::Path(_) => return Some(CheckpointArgs::Region),
        syn::Meta::List(list) => list,
        syn::Meta::NameValue(_) => {
            cx.error_spanned_by(attr, "write `#[checkpoint]`, `#[checkpoint(every = k)]` or `#[checkpoint(binomial, snapshots = s)]`");
            return Some(CheckpointArgs::Region);
        }
    };
    let parsed = list.parse_args_with(
        syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
    );
    let metas = match parsed {
        Ok(metas) => metas,
        Err(error) => {
            cx.syn_error(syn::Error::new(
                error.span(),
                format!("cannot read the arguments of #[checkpoint]: {error}; write `every = k` or `binomial, snapshots = s`"),
            ));
            return Some(CheckpointArgs::Region);
        }
    };
    let (mut every, mut binomial, mut snapshots) = (None, None, None);
    for meta in &metas {
        match meta {
            syn::Meta::NameValue(nv) if nv.path.is_ident("every") => every = Some(nv.value.clone()),
            syn::Meta::NameValue(nv) if nv.path.is_ident("snapshots") => {
                snapshots = Some(nv.value.clone())
            }
            syn::Meta::Path(path) if path.is_ident("binomial") => binomial = Some(path.clone()),
            other => cx.error_spanned_by(
                other,
                "unknown #[checkpoint] argument; the arguments are `every = k` or \
                 `binomial, snapshots = s`",
            ),
        }
    }
    for value in every.iter().chain(snapshots.iter()) {
        if let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(int),
            ..
        }) = value
        {
            if int.base10_parse::<u64>().ok() == Some(0) {
                cx.error_spanned_by(value, "a checkpoint schedule needs a count of at least 1");
            }
        }
    }
    match (every, binomial, snapshots) {
        (Some(_), Some(binomial), _) => {
            cx.error_spanned_by(
                binomial,
                "choose one schedule: `every = k` or `binomial, snapshots = s`",
            );
            Some(CheckpointArgs::Region)
        }
        (Some(every), None, None) => Some(CheckpointArgs::Every(every)),
        (Some(_), None, Some(snapshots)) => {
            cx.error_spanned_by(
                snapshots,
                "`snapshots` goes with `binomial`: write `#[checkpoint(binomial, snapshots = s)]`",
            );
            Some(CheckpointArgs::Region)
        }
        (None, Some(_), Some(snapshots)) => Some(CheckpointArgs::Binomial(snapshots)),
        (None, Some(binomial), None) => {
            cx.error_spanned_by(binomial, "the binomial schedule needs a number of snapshots: write `#[checkpoint(binomial, snapshots = 32)]`");
            Some(CheckpointArgs::Region)
        }
        (None, None, Some(snapshots)) => {
            cx.error_spanned_by(
                snapshots,
                "`snapshots` goes with `binomial`: write `#[checkpoint(binomial, snapshots = s)]`",
            );
            Some(CheckpointArgs::Region)
        }
        (None, None, None) => Some(CheckpointArgs::Region),
    }
}

/// Removes every inner `#[checkpoint]` from a body (for the function as written, and for code
/// that runs primal-only). A schedule's count (`every = k`) stays evaluated as `let _ = &k;`,
/// so that a variable used only there is not reported unused.
/// Removes the attributes of closure parameters (`|#[allow(unused)] t: f64| ..`) from the body
/// derivative code is made from: they are lints of the function as written, and the derivative
/// code binds those parameters with `let`, where no attribute may stand.
pub fn strip_closure_parameter_attributes(block: &mut syn::Block) {
    struct Strip;
    impl syn::visit_mut::VisitMut for Strip {
        fn visit_expr_closure_mut(&mut self, closure: &mut syn::ExprClosure) {
            for input in closure.inputs.iter_mut() {
                strip_pattern_attributes(input);
            }
            syn::visit_mut::visit_expr_closure_mut(self, closure);
        }
    }
    syn::visit_mut::VisitMut::visit_block_mut(&mut Strip, block);
}

fn strip_pattern_attributes(pat: &mut syn::Pat) {
    match pat {
        syn::Pat::Ident(p) => p.attrs.clear(),
        syn::Pat::Wild(p) => p.attrs.clear(),
        syn::Pat::Reference(p) => {
            p.attrs.clear();
            strip_pattern_attributes(&mut p.pat);
        }
        syn::Pat::Type(p) => {
            p.attrs.clear();
            strip_pattern_attributes(&mut p.pat);
        }
        syn::Pat::Tuple(p) => {
            p.attrs.clear();
            p.elems.iter_mut().for_each(strip_pattern_attributes);
        }
        syn::Pat::Paren(p) => {
            p.attrs.clear();
            strip_pattern_attributes(&mut p.pat);
        }
        _ => {}
    }
}

pub fn strip_checkpoints(block: &mut syn::Block) {
    struct Strip;
    impl syn::visit_mut::VisitMut for Strip {
        fn visit_block_mut(&mut self, block: &mut syn::Block) {
            let mut stmts = Vec::with_capacity(block.stmts.len());
            for stmt in block.stmts.drain(..) {
                stmts.extend(
                    schedule_counts(&stmt)
                        .into_iter()
                        .map(|count| syn::parse_quote!(let _ = &#count;)),
                );
                stmts.push(stmt);
            }
            block.stmts = stmts;
            syn::visit_mut::visit_block_mut(self, block);
        }
        fn visit_attributes_mut(&mut self, attrs: &mut Vec<Attribute>) {
            attrs.retain(|attr| !is_checkpoint(attr));
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    syn::visit_mut::VisitMut::visit_block_mut(&mut Strip, block);
}

/// The counts of a schedule written on a statement's `#[checkpoint(...)]`.
fn schedule_counts(stmt: &syn::Stmt) -> Vec<syn::Expr> {
    let attrs = match stmt {
        syn::Stmt::Expr(syn::Expr::ForLoop(e), _) => &e.attrs,
        syn::Stmt::Expr(syn::Expr::While(e), _) => &e.attrs,
        syn::Stmt::Expr(syn::Expr::Loop(e), _) => &e.attrs,
        _ => return Vec::new(),
    };
    match checkpoint_args(&Ctxt::new(), attrs) {
        Some(CheckpointArgs::Every(count) | CheckpointArgs::Binomial(count)) => vec![count],
        _ => Vec::new(),
    }
}

/// The first inner `#[checkpoint]` of an expression, if any.
pub fn find_checkpoint_in_expr(expr: &syn::Expr) -> Option<Attribute> {
    let block: syn::Block = syn::parse_quote!({ #expr });
    find_checkpoint(&block)
}

/// The first inner `#[checkpoint]` of a body, if any.
pub fn find_checkpoint(block: &syn::Block) -> Option<Attribute> {
    struct Find(Option<Attribute>);
    impl<'ast> syn::visit::Visit<'ast> for Find {
        fn visit_attribute(&mut self, attr: &'ast Attribute) {
            if self.0.is_none() && is_checkpoint(attr) {
                self.0 = Some(attr.clone());
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut find = Find(None);
    syn::visit::Visit::visit_block(&mut find, block);
    find.0
}

/// Removes our `#[grad]` and `#[no_grad]` markers from the function's parameters, for a
/// function emitted as written beside an error.
pub fn strip_parameter_markers(function: &mut syn::ItemFn) {
    for input in &mut function.sig.inputs {
        let attrs = match input {
            syn::FnArg::Typed(typed) => &mut typed.attrs,
            syn::FnArg::Receiver(receiver) => &mut receiver.attrs,
        };
        attrs.retain(|attr| !attr.path().is_ident("grad") && !attr.path().is_ident("no_grad"));
    }
    strip_checkpoints(&mut function.block);
}
