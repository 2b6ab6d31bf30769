//! How a call is dispatched: the method names the lowering takes for a float's, a container's,
//! a derived type's or a nalgebra value's (whose rules are `ad_runtime::linalg`), and the
//! nalgebra constructors it recognizes.

use syn::{Expr, Ident};

use crate::rules::{float_method_rule, VALUE_ONLY_METHODS};

/// A length or a shape: data, whatever the receiver's type.
pub(super) fn gives_data(method: &str) -> bool {
    is_length_method(method) || matches!(method, "nrows" | "ncols" | "shape")
}

/// `len` and `is_empty`: a container's, or a derived type's own. Called on a value whose type
/// the body does not show, they go through the twin's methods, which containers have too
/// (`ir::ReverseLength`), so rustc's types choose.
pub(super) fn is_length_method(method: &str) -> bool {
    matches!(method, "len" | "is_empty")
}

/// Whether the function takes or builds nalgebra vectors or matrices, whose methods and
/// operators only their rules run over the scalar type.
pub fn mentions_linalg(function: &crate::ast::Function) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            if let Expr::Path(path) = &*call.func {
                self.0 |= linalg_constructor(&path.path, call.args.len()).is_some();
            }
            syn::visit::visit_expr_call(self, call);
        }
    }
    let mut finder = Finder(function.params.iter().any(|param| {
        crate::ast::is_linalg_type(&param.ty)
            || param.user_type.as_ref().is_some_and(|path| {
                path.segments.last().is_some_and(|last| {
                    crate::source_facts::has_linalg_fields(&last.ident.to_string())
                })
            })
    }));
    syn::visit::Visit::visit_block(&mut finder, &function.item.block);
    finder.0
}

/// A constructor of a nalgebra vector or matrix (`Vector3::new(x, y, z)`, `DVector::from_vec(v)`,
/// `nalgebra::DMatrix::<f64>::zeros(r, c)`): the type's path without its generic arguments
/// (the scalar type is inferred), and the constructor's name in the runtime, which counts its
/// arguments (`new_1` of one array, `from_vec_3`).
pub(super) fn linalg_constructor(path: &syn::Path, arity: usize) -> Option<(syn::Path, Ident)> {
    let count = path.segments.len();
    let method = &path.segments.last()?.ident;
    let type_segment = path.segments.iter().nth(count.checked_sub(2)?)?;
    if !crate::ast::is_linalg_name(&type_segment.ident) {
        return None;
    }
    let arity = match (method.to_string().as_str(), arity) {
        ("new", 1..) => 1,
        ("from_vec" | "from_column_slice" | "from_row_slice", 1 | 3) => arity,
        ("from_element", 1..=3) => arity,
        ("zeros", 0..=2) => arity,
        ("identity", 0 | 2) => arity,
        _ => return None,
    };
    let mut type_path = path.clone();
    type_path.segments.pop();
    // Without the separator the method left.
    let mut type_segment = type_path.segments.pop()?.into_value();
    // `SMatrix::<f64, 2, 3>`: the shape kept, the scalar inferred (`SMatrix::<_, 2, 3>`).
    {
        let last = &mut type_segment;
        if let syn::PathArguments::AngleBracketed(arguments) = &mut last.arguments {
            for argument in &mut arguments.args {
                if matches!(argument, syn::GenericArgument::Type(ty)
                    if crate::ast::float_of_type(ty).is_some())
                {
                    *argument = syn::parse_quote!(_);
                }
            }
        }
    }
    type_path.segments.push(type_segment);
    let constructor = Ident::new(&format!("{method}_{arity}"), method.span());
    Some((type_path, constructor))
}

/// The methods of a vector or matrix (or of what they give) whose result is one again, or a
/// factorization, or an `Option` of either.
pub(super) fn gives_linalg_value(method: &str) -> bool {
    matches!(
        method,
        "clone"
            | "to_owned"
            | "transpose"
            | "component_mul"
            | "component_div"
            | "scale"
            | "cross"
            | "try_inverse"
            | "cholesky"
            | "unwrap"
            | "l"
            | "solve"
            | "map"
            | "column"
            | "row"
            | "columns"
            | "rows"
            | "into_owned"
            | "clone_owned"
    )
}

/// The methods of nalgebra's vectors and matrices with reverse rules (`ad_runtime::linalg`),
/// some named as a float's or an iterator's (`sum`): on a value whose type the body does not
/// show, its type's.
pub(super) fn is_linalg_method(method: &str, arity: usize) -> bool {
    const NO_ARGUMENT: &[&str] = &[
        "norm",
        "norm_squared",
        "magnitude",
        "magnitude_squared",
        "sum",
        "transpose",
        "determinant",
        "trace",
        "try_inverse",
        // Of the `Option` such a method returns (`try_inverse`).
        "unwrap",
        "nrows",
        "ncols",
        "shape",
        // A Cholesky factorization and its methods.
        "cholesky",
        "l",
        "into_owned",
        "clone_owned",
        "as_slice",
    ];
    const ONE_ARGUMENT: &[&str] = &[
        "dot",
        "cross",
        "component_mul",
        "component_div",
        "scale",
        "solve",
        "column",
        "row",
    ];
    const TWO_ARGUMENTS: &[&str] = &["columns", "rows"];
    match arity {
        0 => NO_ARGUMENT.contains(&method),
        1 => ONE_ARGUMENT.contains(&method),
        2 => TWO_ARGUMENTS.contains(&method),
        _ => false,
    }
}

/// Whether a method of this name and arity may be a derived type's own: not a float's with a
/// rule, nor one of the `std` methods the engine takes on containers, options and copies.
pub(super) fn is_user_method_name(method: &str, arity: usize) -> bool {
    const STD_METHODS: &[&str] = &[
        "clone",
        "to_owned",
        "to_vec",
        "iter",
        "iter_mut",
        "into_iter",
        "len",
        "is_empty",
        "get",
        "get_mut",
        "first",
        "last",
        "push",
        "pop",
        "insert",
        "remove",
        "contains",
        "windows",
        "chunks",
        "as_slice",
        "as_ref",
        "as_mut",
        "unwrap",
        "expect",
        "map",
        "sum",
        "product",
        "fold",
        "zip",
        "enumerate",
        "sin_cos",
        "swap",
        "fill",
        "resize",
        "extend",
        "extend_from_slice",
        "truncate",
        "clear",
        "is_some",
        "is_none",
        "unwrap_or",
    ];
    // Methods of integers and floats without rules: a part of a derived value may be one.
    const NUMBER_METHODS: &[&str] = &[
        "pow",
        "checked_add",
        "checked_sub",
        "checked_mul",
        "checked_div",
        "saturating_add",
        "saturating_sub",
        "saturating_mul",
        "wrapping_add",
        "wrapping_sub",
        "wrapping_mul",
        "overflowing_add",
        "overflowing_sub",
        "abs_diff",
        "count_ones",
        "count_zeros",
        "leading_zeros",
        "trailing_zeros",
        "is_power_of_two",
        "next_power_of_two",
        "ilog2",
        "ilog10",
        "isqrt",
        "cmp",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "min",
        "max",
        "clamp",
        "from_bits",
        "to_le_bytes",
        "to_be_bytes",
        "is_positive",
        "is_negative",
        "unsigned_abs",
    ];
    float_method_rule(method, arity).is_none()
        && !STD_METHODS.contains(&method)
        && !VALUE_ONLY_METHODS.contains(&method)
        && !crate::rules::FLOAT_METHODS_WITHOUT_RULES.contains(&method)
        && !NUMBER_METHODS.contains(&method)
}
