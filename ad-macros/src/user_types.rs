//! User types that derive `Differentiable`, as the derivative code sees them: the types of
//! `#[grad]` parameters. In the derivative code a value of such a type is its twin over the
//! scalar type (`<Point as Differentiable>::Over<__S>`), so every place that names the type
//! (a type, a struct expression, a pattern, an enum variant) names the twin instead, through a
//! local alias: `type __ad_twin_Point<__T> = <Point as Differentiable>::Over<__T>;`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::{Ident, Path};

use crate::ast::Function;

#[derive(Default, Clone)]
pub struct UserTypes {
    /// Each type's path as written at its `#[grad]` parameter, and its alias.
    types: Vec<(Path, Ident)>,
    /// Each `#[grad]` parameter's name and type.
    bindings: Vec<(Ident, Path)>,
    /// The locals among `bindings` holding a value built in the body (not a reference).
    built: Vec<Ident>,
    /// Each `#[grad]` container of a user type (`bodies: &[Body]`), with its element type.
    containers: Vec<(Ident, Path)>,
}

impl UserTypes {
    pub fn of(function: &Function) -> UserTypes {
        let mut types: Vec<(Path, Ident)> = Vec::new();
        // A container of user values (`bodies: &[Body]`) is no value of its element's type: its
        // methods (`iter`, `len`) are the container's.
        let bindings = function
            .params
            .iter()
            .filter(|param| !param.is_user_container())
            .filter_map(|param| Some((param.name.clone(), param.user_type.clone()?)))
            .collect();
        for path in function
            .params
            .iter()
            .filter_map(|param| param.user_type.as_ref())
        {
            if types.iter().any(|(known, _)| same_path(known, path)) {
                continue;
            }
            let last = &path.segments[path.segments.len() - 1].ident;
            let alias = format_ident!("__ad_twin{}_{}", types.len(), last);
            types.push((path.clone(), alias));
        }
        let containers = function
            .params
            .iter()
            .filter(|param| param.is_user_container())
            .filter_map(|param| Some((param.name.clone(), param.user_type.clone()?)))
            .collect();
        UserTypes {
            types,
            bindings,
            built: Vec::new(),
            containers,
        }
    }

    /// Adds the types whose values `block` builds from parts (`Seg { a, b }`,
    /// `Shape::Circle(r)`): reverse mode on the AD-IR builds them as twins, so they must derive
    /// `Differentiable` (rustc says so where one does not), and takes them apart as twins. A
    /// type only matched (a data enum passed in) or named by a unit variant is not added: its
    /// patterns and paths stay as written. A path names a type when its last segment is capitalized, a variant when
    /// the segment before is too.
    pub fn with_built_types(mut self, block: &syn::Block) -> UserTypes {
        struct Built<'a>(&'a mut Vec<Path>);
        fn type_of(path: &Path, alone_is_a_type: bool) -> Option<Path> {
            let capitalized = |ident: &Ident| {
                ident
                    .to_string()
                    .starts_with(|c: char| c.is_ascii_uppercase())
            };
            let count = path.segments.len();
            let last = &path.segments.last()?.ident;
            if path.leading_colon.is_some()
                || !capitalized(last)
                || path
                    .segments
                    .iter()
                    .any(|segment| !segment.arguments.is_none())
            {
                return None;
            }
            let std_names = [
                "Some", "None", "Ok", "Err", "Option", "Result", "Vec", "Box", "Self",
            ];
            if path
                .segments
                .iter()
                .any(|segment| std_names.iter().any(|name| segment.ident == name))
            {
                return None;
            }
            // `Shape::Circle` is a variant; `Config::DEFAULT`, all capitals, a constant.
            let camel = {
                let name = last.to_string();
                name.len() == 1 || name.chars().any(|c| c.is_ascii_lowercase())
            };
            if count >= 2 && capitalized(&path.segments[count - 2].ident) {
                if !camel {
                    return None;
                }
                let mut enum_path = path.clone();
                enum_path.segments.pop();
                let last = enum_path.segments.pop()?.into_value();
                enum_path.segments.push(last);
                return Some(enum_path);
            }
            alone_is_a_type.then(|| path.clone())
        }
        impl<'ast> syn::visit::Visit<'ast> for Built<'_> {
            fn visit_expr_struct(&mut self, expr: &'ast syn::ExprStruct) {
                if expr.qself.is_none() {
                    self.0.extend(type_of(&expr.path, true));
                }
                syn::visit::visit_expr_struct(self, expr);
            }
            fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
                if let syn::Expr::Path(path) = &*call.func {
                    if path.qself.is_none() {
                        // `P2(a, b)` of a tuple struct the file derives.
                        let tuple_struct = tuple_struct_call(call).is_some();
                        self.0.extend(type_of(&path.path, tuple_struct));
                    }
                }
                let call_expr = syn::Expr::Call(call.clone());
                self.0.extend(constructed_type(&call_expr));
                syn::visit::visit_expr_call(self, call);
            }
            // `vec![P2 { .. }, P2 { .. }]`: the elements are built where they are written.
            fn visit_macro(&mut self, mac: &'ast syn::Macro) {
                visit_macro_arguments(self, mac);
            }
            // A pattern's path (a unit variant is an `ExprPath` there too) takes a value
            // apart, it builds none.
            fn visit_pat(&mut self, _: &'ast syn::Pat) {}
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let mut found = Vec::new();
        syn::visit::Visit::visit_block(&mut Built(&mut found), block);
        for path in found {
            // A type of the file that holds no float (`Kernel { order: 3 }`, a unit struct) is
            // data wherever it is built.
            let floatless = crate::source_facts::is_floatless_data_type(&path);
            if floatless || self.types.iter().any(|(known, _)| same_path(known, &path)) {
                continue;
            }
            let last = &path.segments[path.segments.len() - 1].ident;
            let alias = format_ident!("__ad_twin{}_{}", self.types.len(), last);
            self.types.push((path, alias));
        }
        self
    }

    /// The aliases, declared at the top of a derivative body. `Self` has none: an item in a
    /// body cannot name it.
    pub fn aliases(&self) -> TokenStream {
        self.declare_aliases(
            |alias| alias.clone(),
            |path, span| quote_spanned!(span=> <#path as ::ad_runtime::Differentiable>::Over<__T>),
        )
    }

    /// One alias per type, of the type `projection` makes of its path, named by `name` from
    /// the twin's alias. Spanned at the type as the user wrote it: a type without the derive
    /// is reported there.
    fn declare_aliases(
        &self,
        name: impl Fn(&Ident) -> Ident,
        projection: impl Fn(&Path, proc_macro2::Span) -> TokenStream,
    ) -> TokenStream {
        let aliases = self
            .types
            .iter()
            .filter(|(path, _)| !path.is_ident("Self"))
            .map(|(path, alias)| {
                let span = path.segments[path.segments.len() - 1].ident.span();
                let alias = name(alias);
                let projection = projection(path, span);
                quote! {
                    #[allow(non_camel_case_types, dead_code)]
                    type #alias<__T> = #projection;
                }
            });
        quote!(#(#aliases)*)
    }

    /// The type of a `#[grad]` parameter (`Self` for a method's receiver), by the name the
    /// body gives it (`self` or `__ad_self` for the receiver).
    /// The element type of the `#[grad]` container `name`, if it is one.
    pub fn of_container(&self, name: &Ident) -> Option<&Path> {
        self.containers
            .iter()
            .find(|(container, _)| container == name)
            .map(|(_, path)| path)
    }

    pub fn of_binding(&self, name: &Ident) -> Option<&Path> {
        let name = if name == "self" {
            Ident::new(crate::names::SELF, name.span())
        } else {
            name.clone()
        };
        self.bindings
            .iter()
            .find(|(binding, _)| *binding == name)
            .map(|(_, path)| path)
    }

    /// `Point` (or `geom::Point`) in type position: its twin over `scalar`.
    pub fn twin_type(&self, path: &Path, scalar: &TokenStream) -> Option<syn::Type> {
        let (known, _) = self
            .types
            .iter()
            .find(|(known, _)| same_path(known, path))?;
        // Spanned at the type as written: a type without the derive is reported there.
        let span = path.segments[path.segments.len() - 1].ident.span();
        Some(syn::parse_quote_spanned!(span=>
            <#known as ::ad_runtime::Differentiable>::Over<#scalar>
        ))
    }

    /// The aliases of the types' adjoints (reverse mode on the AD-IR), beside `aliases`:
    /// `type __ad_adjoint0_Point<__T> = <<Point as Differentiable>::Over<__T> as Diff>::Adjoint;`.
    pub fn adjoint_aliases(&self) -> TokenStream {
        self.declare_aliases(adjoint_alias, |path, span| {
            quote_spanned! {span=>
                <<#path as ::ad_runtime::Differentiable>::Over<__T>
                    as ::ad_runtime::adjoint::Diff>::Adjoint
            }
        })
    }

    /// `twin_path`, through the adjoint's alias: the adjoint of a value built by `path`.
    pub fn adjoint_path(&self, path: &Path, scalar: &TokenStream) -> Option<Path> {
        let mut twin = self.twin_path(path, scalar)?;
        let first = &mut twin.segments[0].ident;
        *first = adjoint_alias(first);
        Some(twin)
    }

    /// `Point` (a struct expression or pattern) or `List::Cons` (a variant): the same path
    /// through the twin's alias over `scalar`, or `None` if it names no user type.
    pub fn twin_path(&self, path: &Path, scalar: &TokenStream) -> Option<Path> {
        if path.leading_colon.is_some() {
            return None;
        }
        for (known, alias) in self.types.iter().filter(|(path, _)| !path.is_ident("Self")) {
            let count = known.segments.len();
            let matches_type = |prefix_len: usize| {
                path.segments.len() == prefix_len
                    && path.segments.iter().zip(&known.segments).all(|(a, b)| {
                        a.ident == b.ident && a.arguments.is_none() && b.arguments.is_none()
                    })
            };
            let span = path.segments[path.segments.len() - 1].ident.span();
            let alias = Ident::new(&alias.to_string(), span);
            if matches_type(count) {
                return Some(syn::parse_quote_spanned!(span=> #alias::<#scalar>));
            }
            if path.segments.len() == count + 1 {
                let head = Path {
                    leading_colon: None,
                    segments: path.segments.iter().take(count).cloned().collect(),
                };
                if same_path(&head, known) {
                    let variant = &path.segments[count];
                    return Some(syn::parse_quote_spanned!(span=> #alias::<#scalar>::#variant));
                }
            }
        }
        None
    }
}

/// `__ad_twin0_Point` to `__ad_adjoint0_Point`.
fn adjoint_alias(twin: &Ident) -> Ident {
    let name = twin.to_string().replacen("__ad_twin", "__ad_adjoint", 1);
    Ident::new(&name, twin.span())
}

fn same_path(a: &Path, b: &Path) -> bool {
    a.to_token_stream().to_string() == b.to_token_stream().to_string()
}

impl UserTypes {
    /// Points the paths of a pattern (not its sub-patterns) at the twins over `scalar`.
    /// `rewrite_pattern` on a pattern and every pattern inside it.
    pub fn rewrite_pattern_deep(&self, pat: &mut syn::Pat, scalar: &TokenStream) {
        struct Deep<'a>(&'a UserTypes, &'a TokenStream);
        impl syn::visit_mut::VisitMut for Deep<'_> {
            fn visit_pat_mut(&mut self, pat: &mut syn::Pat) {
                self.0.rewrite_pattern(pat, self.1);
                syn::visit_mut::visit_pat_mut(self, pat);
            }
        }
        syn::visit_mut::VisitMut::visit_pat_mut(&mut Deep(self, scalar), pat);
    }

    /// The type a path names (`Seg`) or one of whose variants it names (`Shape::Circle`), as
    /// known here.
    pub fn type_named(&self, path: &Path) -> Option<Path> {
        self.types
            .iter()
            .filter(|(known, _)| !known.is_ident("Self"))
            .find(|(known, _)| {
                let count = known.segments.len();
                (path.segments.len() == count || path.segments.len() == count + 1)
                    && path
                        .segments
                        .iter()
                        .zip(&known.segments)
                        .all(|(a, b)| a.ident == b.ident && a.arguments.is_none())
            })
            .map(|(known, _)| known.clone())
    }

    /// Whether a path names one of the types itself, not one of their variants.
    pub fn names_type_itself(&self, path: &Path) -> bool {
        path.leading_colon.is_none()
            && self
                .type_named(path)
                .is_some_and(|known| known.segments.len() == path.segments.len())
    }

    /// Whether a pattern's path names one of the types (or one of their variants).
    pub fn names_type(&self, path: &Path) -> bool {
        self.type_named(path).is_some()
    }

    pub fn rewrite_pattern(&self, pat: &mut syn::Pat, scalar: &TokenStream) {
        // A tuple struct's twin is named by an alias, which a tuple-struct pattern cannot
        // name: `Vec3(a, b, ..)` becomes `Twin { 0: a, 1: b, .. }`.
        if let syn::Pat::TupleStruct(tuple) = pat {
            let rest_at = tuple
                .elems
                .iter()
                .position(|element| matches!(element, syn::Pat::Rest(_)));
            let rest_last = rest_at.is_none_or(|at| at + 1 == tuple.elems.len());
            if tuple.qself.is_none() && self.names_type_itself(&tuple.path) && rest_last {
                let twin = self
                    .twin_path(&tuple.path, scalar)
                    .expect("a type known to the user types");
                let span = tuple.path.segments[tuple.path.segments.len() - 1]
                    .ident
                    .span();
                let fields = tuple
                    .elems
                    .iter()
                    .take(rest_at.unwrap_or(tuple.elems.len()))
                    .enumerate()
                    .map(|(index, element)| {
                        let member = syn::Member::Unnamed(syn::Index {
                            index: index as u32,
                            span,
                        });
                        quote!(#member: #element)
                    });
                let rest = rest_at.map(|_| quote!(..));
                let comma = (rest_at.is_some() && rest_at != Some(0)).then(|| quote!(,));
                *pat = syn::parse_quote_spanned!(span=> #twin { #(#fields),* #comma #rest });
                return;
            }
        }
        let path = match pat {
            syn::Pat::Struct(structure) if structure.qself.is_none() => &mut structure.path,
            syn::Pat::TupleStruct(tuple) if tuple.qself.is_none() => &mut tuple.path,
            syn::Pat::Path(path) if path.qself.is_none() => &mut path.path,
            _ => return,
        };
        if let Some(twin) = self.twin_path(path, scalar) {
            *path = twin;
        }
    }
}

impl UserTypes {
    /// Registers a local holding a value of a user type built in the body.
    pub fn add_binding(&mut self, name: Ident, path: Path) {
        self.built.push(name.clone());
        self.bindings.push((name, path));
    }

    /// Whether `name` is a local holding a value built in the body (see `add_binding`).
    pub fn is_built(&self, name: &Ident) -> bool {
        self.built.contains(name)
    }

    /// Registers a type named in a pattern over a user value (`Shape::Circle(r)` in a match
    /// on `scene.shapes[i]`): such values are twins too.
    pub fn add(&mut self, path: Path) {
        if path.is_ident("Self") || self.types.iter().any(|(known, _)| same_path(known, &path)) {
            return;
        }
        let last = &path.segments[path.segments.len() - 1].ident;
        let alias = format_ident!("__ad_twin{}_{}", self.types.len(), last);
        self.types.push((path, alias));
    }
}

/// The type a pattern names: `Tree` for `Tree::Node { .. }` and `Tree::Leaf`, `Point` for
/// `Point { x, y }` or `Point(x, y)`. `None`, `Some(..)`, `Ok(..)`, `Err(..)` name none.
pub fn pattern_type(pat: &syn::Pat) -> Option<Path> {
    let (path, may_be_type) = match pat {
        syn::Pat::Struct(structure) if structure.qself.is_none() => (&structure.path, true),
        syn::Pat::TupleStruct(tuple) if tuple.qself.is_none() => (&tuple.path, true),
        syn::Pat::Path(path) if path.qself.is_none() => (&path.path, false),
        _ => return None,
    };
    let is_type_name = |ident: &Ident| {
        ident
            .to_string()
            .starts_with(|c: char| c.is_ascii_uppercase())
    };
    let count = path.segments.len();
    if count >= 2 && is_type_name(&path.segments[count - 2].ident) {
        return Some(Path {
            leading_colon: path.leading_colon,
            segments: path.segments.iter().take(count - 1).cloned().collect(),
        });
    }
    let last = &path.segments[count - 1].ident;
    let prelude = ["Some", "None", "Ok", "Err"]
        .iter()
        .any(|name| last == name);
    (may_be_type && !prelude && is_type_name(last)).then(|| path.clone())
}

/// The type a struct expression builds: `Point` for `Point { .. }`, `Tree` for
/// `Tree::Node { .. }`.
pub fn struct_type(path: &Path) -> Option<Path> {
    let pattern = syn::Pat::Struct(syn::PatStruct {
        attrs: Vec::new(),
        qself: None,
        path: path.clone(),
        brace_token: Default::default(),
        fields: Default::default(),
        rest: None,
    });
    pattern_type(&pattern)
}

/// The type whose tuple variant a call builds: `Shape` for `Shape::Circle(r)` (the last two
/// segments named like a type and a variant); `None` for functions (`Vec::new`, `f64::max`)
/// and the prelude's `Some(..)`, `Ok(..)`.
pub fn variant_call_type(call: &syn::ExprCall) -> Option<Path> {
    let syn::Expr::Path(func) = &*call.func else {
        return None;
    };
    if func.qself.is_some() {
        return None;
    }
    let path = &func.path;
    let count = path.segments.len();
    let upper = |ident: &Ident| {
        ident
            .to_string()
            .starts_with(|c: char| c.is_ascii_uppercase())
    };
    // `Option::Some(x)`, `Result::Ok(x)`: the prelude's enums, not a user type's.
    let prelude = count >= 2
        && ["Option", "Result"]
            .iter()
            .any(|name| path.segments[count - 2].ident == name);
    (count >= 2
        && !prelude
        && upper(&path.segments[count - 1].ident)
        && upper(&path.segments[count - 2].ident))
    .then(|| Path {
        leading_colon: path.leading_colon,
        segments: path.segments.iter().take(count - 1).cloned().collect(),
    })
}

/// The value a struct expression or a tuple-variant call builds: its type (`Point` for
/// `Point { .. }`, `Shape` for `Shape::Circle(r)` and `Shape::Rect { w, h }`) and the
/// expressions of its fields.
pub fn built_value(expr: &syn::Expr) -> Option<(Path, Vec<&syn::Expr>)> {
    match expr {
        syn::Expr::Paren(paren) => built_value(&paren.expr),
        syn::Expr::Struct(structure) if structure.qself.is_none() => Some((
            struct_type(&structure.path)?,
            structure.fields.iter().map(|field| &field.expr).collect(),
        )),
        syn::Expr::Call(call) => Some((
            variant_call_type(call).or_else(|| tuple_struct_call(call))?,
            call.args.iter().collect(),
        )),
        _ => None,
    }
}

/// `P2` of `P2(a, b)`, a tuple struct the file defines deriving `Differentiable`.
pub fn tuple_struct_call(call: &syn::ExprCall) -> Option<Path> {
    let syn::Expr::Path(func) = &*call.func else {
        return None;
    };
    let name = func.path.get_ident()?;
    (func.qself.is_none() && crate::source_facts::defines_derived(&name.to_string()))
        .then(|| func.path.clone())
}

/// `T` of `T::default()`, `T::new(n)` and the other constructors Rust's conventions name
/// (`zero`, `zeros`, `origin`, `identity`, `new_..`, `from_..`, `with_..`) or the file's
/// `impl T` returns `Self` from, when the file defines `T` deriving `Differentiable`: a value
/// of it.
pub fn constructed_type(expr: &syn::Expr) -> Option<Path> {
    let syn::Expr::Call(call) = expr else {
        return None;
    };
    let syn::Expr::Path(path) = &*call.func else {
        return None;
    };
    let count = path.path.segments.len();
    if path.qself.is_some() || count < 2 {
        return None;
    }
    let name = path.path.segments[count - 1].ident.to_string();
    let constructor = matches!(
        name.as_str(),
        "default" | "new" | "zero" | "zeros" | "origin" | "identity"
    ) || ["new_", "from_", "with_"]
        .iter()
        .any(|prefix| name.starts_with(prefix));
    let mut type_path = path.path.clone();
    type_path.segments.pop();
    type_path.segments.pop_punct();
    let type_name = type_path.segments.last()?;
    let constructor =
        constructor || crate::source_facts::constructs(&type_name.ident.to_string(), &name);
    (constructor
        && type_name.arguments.is_none()
        && crate::source_facts::defines_derived(&type_name.ident.to_string()))
    .then_some(type_path)
}

/// Visits the arguments of a macro the crate reads (`vec![..]`, `assert!(..)`) as the
/// expressions they are: a visitor does not see into macros by itself.
pub fn visit_macro_arguments<V>(visitor: &mut V, mac: &syn::Macro)
where
    V: for<'any> syn::visit::Visit<'any>,
{
    if !crate::macros::is_supported(mac) {
        return;
    }
    if let Ok(args) = crate::macros::MacroArgs::parse_from(mac) {
        for expr in args.exprs() {
            visitor.visit_expr(expr);
        }
    }
}
