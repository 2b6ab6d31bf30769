//! The annotated item, parsed once per expansion.
//!
//! Several stages look at the item before the driver does (aliases, `const` parameters, the
//! other attribute stacked on it), each from its tokens; and parsing is most of what a macro
//! costs when the proc-macro crate is built without optimizations, as cargo builds it by
//! default. The first parse is kept for the rest of the expansion, keyed by the item's text:
//! tokens with the same text are the item itself or a reprint of it, whose parse is the same
//! but for the spans of its groups, which the original has better.

use std::cell::RefCell;

use proc_macro2::TokenStream;

thread_local! {
    static PARSED: RefCell<Option<(String, syn::ItemFn)>> = const { RefCell::new(None) };
}

/// Runs `expand` with `item`'s parse kept for `item_fn`, then forgets it.
pub fn with_item<R>(item: &TokenStream, expand: impl FnOnce(Option<&syn::ItemFn>) -> R) -> R {
    let parsed = syn::parse2::<syn::ItemFn>(item.clone()).ok();
    let previous = PARSED.with(|kept| {
        kept.replace(
            parsed
                .as_ref()
                .map(|function| (item.to_string(), function.clone())),
        )
    });
    // Put back even when `expand` panics (the macro turns a panic into an error and goes on).
    struct Restore(Option<(String, syn::ItemFn)>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            PARSED.with(|kept| kept.replace(previous));
        }
    }
    let _restore = Restore(previous);
    expand(parsed.as_ref())
}

/// `tokens` parsed as a function: the kept parse when they are the item's text.
pub fn item_fn(tokens: &TokenStream) -> syn::Result<syn::ItemFn> {
    let kept = PARSED.with(|kept| {
        let kept = kept.borrow();
        let (text, function) = kept.as_ref()?;
        (*text == tokens.to_string()).then(|| function.clone())
    });
    match kept {
        Some(function) => Ok(function),
        None => syn::parse2(tokens.clone()),
    }
}
