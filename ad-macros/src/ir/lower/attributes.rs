//! The outer attributes of an expression: `#[checkpoint]` on a region, which the lowering
//! takes, and lint attributes (`#[allow(..)]` on a loop), which change nothing it computes.

use syn::Expr;

macro_rules! expression_attributes {
    ($expr:expr, $($variant:ident)*) => {
        match $expr {
            $(Expr::$variant(e) => Some(&e.attrs),)*
            _ => None,
        }
    };
    (mut $expr:expr, $($variant:ident)*) => {
        match $expr {
            $(Expr::$variant(e) => Some(&mut e.attrs),)*
            _ => None,
        }
    };
}

macro_rules! with_attributes {
    ($($prefix:tt)*) => {
        expression_attributes!($($prefix)*,
            Array Assign Async Await Binary Block Break Call Cast Closure Const Continue Field
            ForLoop Group If Index Infer Let Lit Loop Macro Match MethodCall Paren Path Range
            RawAddr Reference Repeat Return Struct Try TryBlock Tuple Unary Unsafe While Yield)
    };
}

/// The outer attributes of an expression (`#[checkpoint]` on it, say).
pub(super) fn attributes_of(expr: &Expr) -> &[syn::Attribute] {
    with_attributes!(expr).map_or(&[], |attrs| attrs.as_slice())
}

/// Whether `expr` carries an attribute that may change what it computes: lints (`#[allow(..)]`
/// on a loop, as TheAlgorithms writes) and `rustfmt` ones do not, and are left out.
pub(super) fn has_meaningful_attributes(expr: &Expr) -> bool {
    attributes_of(expr).iter().any(|attr| {
        let path = attr.path();
        let lint = ["allow", "warn", "deny", "expect", "forbid"]
            .iter()
            .any(|level| path.is_ident(level));
        let tool = path.segments.len() > 1
            && ["rustfmt", "clippy"].contains(&path.segments[0].ident.to_string().as_str());
        !lint && !tool
    })
}

pub(super) fn attributes_of_mut(expr: &mut Expr) -> Option<&mut Vec<syn::Attribute>> {
    with_attributes!(mut expr)
}
