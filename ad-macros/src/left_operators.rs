//! Operators with a float on the left and a value of a derived type on the right (`impl
//! Mul<Vec3> for f64`, so that `2.0 * v` is written as in mathematics).
//!
//! The derivative code of such an operator cannot live where the operator does: its companions
//! and its twin's operator would be an inherent `impl f64`, which Rust refuses, and a generic
//! `impl<S> Mul<Twin<S>> for S` is refused too (the orphan rule). So `#[forward]` and
//! `#[reverse]` on the block leave the operator as written and give the derived type a hidden
//! method of the same body, the operands swapped (`Vec3::ad_left_mul_f64(self, __ad_left: f64)`),
//! on which they expand again as on any method of the type; the derivative code of a body
//! calls that method for `k * v` (`ir::lower`'s operators in reverse mode, `retype` in
//! forward mode).

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};

/// The operator traits whose left operand may be a float.
const OPERATORS: [(&str, &str); 4] = [
    ("Add", "add"),
    ("Sub", "sub"),
    ("Mul", "mul"),
    ("Div", "div"),
];

/// An operator with a float on the left: `impl Mul<Vec3> for f64`.
pub struct LeftOperator {
    /// The right operand's type, `Vec3`.
    pub type_path: syn::Path,
    /// The operator's method, `mul`.
    pub operator: &'static str,
    /// Whether the right operand is taken by reference (`impl Mul<&Vec3> for f64`).
    pub by_reference: bool,
    /// `f64` or `f32`.
    pub float: &'static str,
}

impl LeftOperator {
    /// The type's hidden method that stands for it.
    pub fn method(&self, span: Span) -> Ident {
        method_name(self.operator, self.by_reference, self.float, span)
    }
}

/// The hidden method of a derived type that `float op value` calls: `ad_left_mul_f64`,
/// `ad_left_mul_ref_f64` for the value by reference (a name the snake-case lint takes in the
/// generated names built on it, `__ad_reverse_ad_left_mul_f64`).
pub fn method_name(operator: &str, by_reference: bool, float: &str, span: Span) -> Ident {
    let reference = if by_reference { "_ref" } else { "" };
    Ident::new(&format!("ad_left_{operator}{reference}_{float}"), span)
}

/// The hidden method `float op value` calls for `operator`, the value by reference or not, of
/// the methods the file gives (`has`): `f64`'s, else `f32`'s.
pub fn method_among(
    operator: &str,
    by_reference: bool,
    span: Span,
    has: impl Fn(&str) -> bool,
) -> Option<Ident> {
    ["f64", "f32"]
        .into_iter()
        .map(|float| method_name(operator, by_reference, float, span))
        .find(|method| has(&method.to_string()))
}

/// Whether `expr` is certainly a float, the left operand a hidden method takes: a float literal
/// or cast, a name `is_float` takes, arithmetic of those, a method of one with such arguments
/// (`dt.sqrt()`). Each mode says which names hold floats: reverse mode by the binding in scope,
/// forward mode by name.
pub fn is_float_expression(expr: &syn::Expr, is_float: &dyn Fn(&syn::Expr) -> bool) -> bool {
    use syn::{BinOp, Expr};
    let recurse = |expr: &Expr| is_float_expression(expr, is_float);
    match expr {
        Expr::Paren(paren) => recurse(&paren.expr),
        Expr::Group(group) => recurse(&group.expr),
        Expr::Lit(lit) => matches!(lit.lit, syn::Lit::Float(_)),
        Expr::Cast(cast) => crate::ast::float_of_type(&cast.ty).is_some(),
        Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Neg(_)) => recurse(&unary.expr),
        Expr::Binary(binary) => {
            matches!(
                binary.op,
                BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_) | BinOp::Div(_)
            ) && recurse(&binary.left)
                && recurse(&binary.right)
        }
        // `a.sin()` of a float, or `v.dot(v)` of a method the file declares returning one.
        Expr::MethodCall(call) => {
            (recurse(&call.receiver) && call.args.iter().all(recurse))
                || crate::source_facts::float_result_of_method(&call.method.to_string())
        }
        // A name, a field (`self.mass`) or an element (`x[0]`): the mode knows its type.
        Expr::Path(_) | Expr::Field(_) | Expr::Index(_) => is_float(expr),
        _ => false,
    }
}

/// `x[i]`, `rows[i][j]`: what is indexed and how many indices deep, when each index picks an
/// element (not a range): an element of a parameter holding floats that deep is a float.
pub fn indexed_base(expr: &syn::Expr) -> Option<(&syn::Expr, usize)> {
    use syn::Expr;
    fn unwrapped(expr: &syn::Expr) -> &syn::Expr {
        match expr {
            syn::Expr::Paren(paren) => unwrapped(&paren.expr),
            syn::Expr::Group(group) => unwrapped(&group.expr),
            syn::Expr::Reference(reference) => unwrapped(&reference.expr),
            expr => expr,
        }
    }
    let (mut base, mut depth) = (unwrapped(expr), 0);
    while let Expr::Index(index) = base {
        if matches!(unwrapped(&index.index), Expr::Range(_)) {
            return None;
        }
        depth += 1;
        base = unwrapped(&index.expr);
    }
    Some((base, depth))
}

/// `impl Mul<Vec3> for f64` (or `&Vec3`, `f32`) of a type `derived` holds, when given.
pub fn operator_of(
    block: &syn::ItemImpl,
    derived: Option<&std::collections::HashSet<String>>,
) -> Option<LeftOperator> {
    let (None, trait_path, _) = block.trait_.as_ref()? else {
        return None;
    };
    let float = match &*block.self_ty {
        syn::Type::Path(path) if path.path.is_ident("f64") => "f64",
        syn::Type::Path(path) if path.path.is_ident("f32") => "f32",
        _ => return None,
    };
    let last = trait_path.segments.last()?;
    let (_, operator) = OPERATORS.iter().find(|(name, _)| last.ident == name)?;
    let syn::PathArguments::AngleBracketed(arguments) = &last.arguments else {
        return None;
    };
    let [syn::GenericArgument::Type(operand)] = arguments.args.iter().collect::<Vec<_>>()[..]
    else {
        return None;
    };
    let (operand, by_reference) = match operand {
        syn::Type::Reference(reference) => (&*reference.elem, true),
        other => (other, false),
    };
    let syn::Type::Path(path) = operand else {
        return None;
    };
    let name = path.path.segments.last()?.ident.to_string();
    let derived = derived.is_none_or(|derived| derived.contains(&name));
    (path.qself.is_none() && derived).then(|| LeftOperator {
        type_path: path.path.clone(),
        operator,
        by_reference,
        float,
    })
}

/// The block as written, without our attributes, and the derived type's hidden method under
/// them.
pub fn rewrite(macro_name: &str, block: syn::ItemImpl, left_operator: LeftOperator) -> TokenStream {
    let (ours, others): (Vec<syn::Attribute>, Vec<syn::Attribute>) = block
        .attrs
        .iter()
        .cloned()
        .partition(|attr| crate::attr::our_macro(attr).is_some());
    let mut primal = block.clone();
    primal.attrs = others;
    let output = block.items.iter().find_map(|item| match item {
        syn::ImplItem::Type(ty) if ty.ident == "Output" => Some(ty.ty.clone()),
        _ => None,
    });
    let method = block.items.iter().find_map(|item| match item {
        syn::ImplItem::Fn(method) if method.sig.ident == left_operator.operator => Some(method),
        _ => None,
    });
    let (Some(output), Some(method)) = (output, method) else {
        return quote!(#primal);
    };
    let float = block.self_ty.to_token_stream();
    let inputs: Vec<&syn::FnArg> = method.sig.inputs.iter().collect();
    // The trait's signature, `fn mul(self, rhs: Rhs)`; rustc reports any other on the block
    // as written.
    let [syn::FnArg::Receiver(receiver), syn::FnArg::Typed(operand)] = inputs[..] else {
        return quote!(#primal);
    };
    let name = left_operator.method(method.sig.ident.span());
    let left = format_ident!("__ad_left", span = receiver.self_token.span);
    let mutability = receiver.mutability;
    // What `Self` means in the operator's block, in its output type too (`Scaled<Self>`).
    let output: syn::Type =
        syn::parse2(rename_self(output.to_token_stream(), &left, &float, None)).unwrap_or(output);
    let body = rename_self(method.block.to_token_stream(), &left, &float, Some(&output));
    let pattern = &operand.pat;
    let receiver = match left_operator.by_reference {
        true => quote!(&self),
        false => quote!(self),
    };
    let attributes = ours.iter().map(|attr| &attr.meta);
    let this = Ident::new(macro_name, Span::call_site());
    let type_path = &left_operator.type_path;
    let (generics, _, where_clause) = block.generics.split_for_impl();
    quote! {
        #primal
        #[::ad_runtime::#this]
        #(#[#attributes])*
        impl #generics #type_path #where_clause {
            #[doc(hidden)]
            #[allow(dead_code)]
            pub fn #name(#receiver, #mutability #left: #float) -> #output {
                let #pattern = self;
                #body
            }
        }
    }
}

/// The body with the float's `self` named `left` (not a path's `self::`), `Self::Output` the
/// operator's output and `Self` the float type: what they meant in the operator's `impl`.
fn rename_self(
    tokens: TokenStream,
    left: &Ident,
    float: &TokenStream,
    output: Option<&syn::Type>,
) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut renamed = TokenStream::new();
    let mut at = 0;
    while at < trees.len() {
        let starts_path =
            matches!(trees.get(at + 1), Some(TokenTree::Punct(punct)) if punct.as_char() == ':');
        match &trees[at] {
            TokenTree::Ident(ident) if ident == "self" && !starts_path => {
                renamed.extend(Ident::new(&left.to_string(), ident.span()).into_token_stream());
            }
            TokenTree::Ident(ident) if ident == "Self" => {
                let is_output = matches!(
                    (trees.get(at + 1), trees.get(at + 2), trees.get(at + 3)),
                    (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)), Some(TokenTree::Ident(o)))
                        if a.as_char() == ':' && b.as_char() == ':' && o == "Output"
                );
                match output {
                    Some(output) if is_output => {
                        renamed.extend(output.to_token_stream());
                        at += 4;
                        continue;
                    }
                    _ => renamed.extend(float.clone()),
                }
            }
            TokenTree::Group(group) => {
                let inner = rename_self(group.stream(), left, float, output);
                let mut new_group = proc_macro2::Group::new(group.delimiter(), inner);
                new_group.set_span(group.span());
                renamed.extend(TokenTree::Group(new_group).into_token_stream());
            }
            other => renamed.extend(other.to_token_stream()),
        }
        at += 1;
    }
    renamed
}
