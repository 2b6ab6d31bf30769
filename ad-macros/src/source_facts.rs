//! What the annotated item's source file says that its tokens do not, for one expansion: the
//! field types of the derived structs the file defines (`Segment { from: V3, to: V3 }`, so
//! that `self.to - self.from` is `V3`'s operator), and the type of the `impl` block being
//! expanded (what `Self` is). Read through `proc_macro::Span::local_file` (`aliases`); empty
//! where that is not available, and then the syntax alone decides.

use std::cell::RefCell;
use std::collections::HashMap;

#[derive(Default, Clone)]
pub struct SourceFacts {
    /// By derived struct, its fields whose type is a derived type of the file or a float, with
    /// that type.
    pub derived_fields: HashMap<String, HashMap<String, String>>,
    /// By derived struct, its `Vec` and array fields of a derived type, with that type.
    pub element_fields: HashMap<String, HashMap<String, String>>,
    /// By derived struct, its fields of nalgebra vector or matrix types.
    pub linalg_fields: HashMap<String, std::collections::HashSet<String>>,
    /// By derived struct, its fields of `Box` types.
    pub boxed_fields: HashMap<String, std::collections::HashSet<String>>,
    /// The structs and enums the file defines without deriving `Differentiable`.
    pub underived: std::collections::HashSet<String>,
    /// Those it defines deriving it.
    pub derived: std::collections::HashSet<String>,
    /// The structs and enums it defines whose fields certainly hold no float.
    pub floatless: std::collections::HashSet<String>,
    /// The derived types no other item of the file is named as.
    pub derived_once: std::collections::HashSet<String>,
    /// By type, the functions of its `impl` blocks without derivative code (none of the
    /// crate's attributes on them or their block).
    pub unmarked_functions: HashMap<String, std::collections::HashSet<String>>,
    /// By type, the functions of its `impl` blocks that take no `self` and return `Self`.
    pub constructors: HashMap<String, std::collections::HashSet<String>>,
    /// By type, the functions of its `impl` blocks with a result named by one identifier, and
    /// that name.
    pub named_results: HashMap<String, HashMap<String, String>>,
    /// By type, its methods the crate's attributes differentiate.
    pub differentiated_methods: HashMap<String, std::collections::HashSet<String>>,
    /// By type, the functions of its `impl` blocks the crate's attributes mark (themselves, or
    /// their block): `add_assign` of a marked `impl AddAssign for P2`.
    pub marked_functions: HashMap<String, std::collections::HashSet<String>>,
    /// The operators with a float on the left the file differentiates: the right operand's
    /// type and its hidden method (`left_operators`).
    pub left_operators: std::collections::HashSet<(String, String)>,
    /// The type of the `impl` block whose method is being expanded.
    pub impl_type: Option<String>,
    /// That block's type and `const` parameters (`N` of `impl<const N: usize> Springs<N>`),
    /// which a returned `impl Trait + use<..>` must name.
    pub impl_generics: Vec<String>,
    /// Where the plain functions the body calls are found (`plain_calls`).
    pub functions: Option<crate::aliases::Functions>,
    /// The rules of the crate's `macro_rules!` macros, by name (`user_macros`).
    pub macros: HashMap<String, String>,
}

thread_local! {
    static FACTS: RefCell<SourceFacts> = RefCell::new(SourceFacts::default());
}

/// Runs `expand` with `facts` known, then forgets them.
pub fn with_facts<R>(facts: SourceFacts, expand: impl FnOnce() -> R) -> R {
    let previous = FACTS.with(|current| current.replace(facts));
    let result = expand();
    FACTS.with(|current| current.replace(previous));
    result
}

/// Runs `expand` knowing that `Self` is `impl_type`, of a block with the type and `const`
/// parameters `impl_generics`.
pub fn in_impl<R>(
    impl_type: Option<String>,
    impl_generics: Vec<String>,
    expand: impl FnOnce() -> R,
) -> R {
    let previous = FACTS.with(|current| {
        let mut current = current.borrow_mut();
        (
            std::mem::replace(&mut current.impl_type, impl_type),
            std::mem::replace(&mut current.impl_generics, impl_generics),
        )
    });
    let result = expand();
    FACTS.with(|current| {
        let mut current = current.borrow_mut();
        current.impl_type = previous.0;
        current.impl_generics = previous.1;
    });
    result
}

/// The type and `const` parameters of the `impl` block whose method is being expanded.
pub fn impl_generics() -> Vec<syn::Ident> {
    FACTS.with(|current| {
        current
            .borrow()
            .impl_generics
            .iter()
            .map(|name| syn::Ident::new(name, proc_macro2::Span::call_site()))
            .collect()
    })
}

/// The rules of the crate's `macro_rules!` macros, by name.
pub fn macro_definitions() -> HashMap<String, String> {
    FACTS.with(|current| current.borrow().macros.clone())
}

/// Whether the file defines the struct or enum `name` deriving `Differentiable`, and nothing
/// else of that name (in another module of the file).
pub fn defines_derived_once(name: &str) -> bool {
    FACTS.with(|current| current.borrow().derived_once.contains(name))
}

/// Whether the file defines the struct or enum `name` deriving `Differentiable`.
pub fn defines_derived(name: &str) -> bool {
    FACTS.with(|current| current.borrow().derived.contains(name))
}

/// The type of the `impl` block being expanded, when it is a type of the file named by one
/// identifier without generic parameters (what `Self` is there).
pub fn impl_type_name() -> Option<String> {
    FACTS.with(|current| {
        let current = current.borrow();
        current
            .impl_generics
            .is_empty()
            .then(|| current.impl_type.clone())
            .flatten()
    })
}

/// Whether the function being expanded is one of an `impl` block (the file says which), also
/// one without `self` that does not name `Self` (`fn loss(x: f64) -> f64` in `impl Model`).
pub fn in_impl_block() -> bool {
    FACTS.with(|current| current.borrow().impl_type.is_some())
}

/// Whether the file defines the struct or enum `name` with fields that certainly hold no float
/// (an error enum of unit variants and messages).
pub fn defines_floatless(name: &str) -> bool {
    FACTS.with(|current| current.borrow().floatless.contains(name))
}

/// Whether the path names a struct or enum of the file that holds no float and has no
/// derive (`Kernel { order: 3 }`, a unit struct): data wherever it is built.
pub fn is_floatless_data_type(path: &syn::Path) -> bool {
    path.get_ident().is_some_and(|name| {
        let name = name.to_string();
        defines_floatless(&name) && defines_underived(&name)
    })
}

/// Whether the file defines the struct or enum `name` without deriving `Differentiable`.
pub fn defines_underived(name: &str) -> bool {
    FACTS.with(|current| current.borrow().underived.contains(name))
}

/// Whether the `impl` block being expanded is of a type the file defines without deriving
/// `Differentiable`: its methods' `self` is data (`impl Rosenbrock { fn cost(&self, p: &[f64]) }`).
pub fn self_is_underived() -> bool {
    FACTS.with(|current| {
        let current = current.borrow();
        current
            .impl_type
            .as_ref()
            .is_some_and(|name| current.underived.contains(name))
    })
}

/// Whether the file's `impl` blocks of `type_name` mark `function` with the crate's attributes
/// (`add_assign` of `#[reverse] impl AddAssign for P2`), so that it has derivative code.
pub fn marks_function(type_name: &str, function: &str) -> bool {
    with_fields(
        type_name,
        |facts| &facts.marked_functions,
        |functions| functions.contains(function),
    )
}

/// Whether `method` is a method of the type `type_name` that the crate's attributes
/// differentiate in this file, so that a data parameter of the type calls it through its
/// derivative code.
pub fn differentiated_method_of(type_name: &str, method: &str) -> bool {
    with_fields(
        type_name,
        |facts| &facts.differentiated_methods,
        |methods| methods.contains(method),
    )
}

/// Whether `method` is a method of the `impl` block's type that the crate's attributes
/// differentiate, so that a data `self` calls it through its derivative code.
pub fn differentiated_method(method: &str) -> bool {
    FACTS.with(|current| {
        let current = current.borrow();
        current
            .impl_type
            .as_ref()
            .and_then(|name| current.differentiated_methods.get(name))
            .is_some_and(|methods| methods.contains(method))
    })
}

/// The derived type of the field `field` of the derived struct `type_name` (`Self` for the
/// `impl` block's type), when the file says.
pub fn field_type(type_name: &str, field: &str) -> Option<String> {
    FACTS.with(|current| {
        let current = current.borrow();
        let type_name = match type_name {
            "Self" => current.impl_type.clone()?,
            other => other.to_string(),
        };
        current.derived_fields.get(&type_name)?.get(field).cloned()
    })
}

/// The derived type of the elements of the container field `field` of the derived struct
/// `type_name` (`Self` for the `impl` block's type): `Layer` of `layers: Vec<Layer>`.
pub fn field_element_type(type_name: &str, field: &str) -> Option<String> {
    FACTS.with(|current| {
        let current = current.borrow();
        let type_name = match type_name {
            "Self" => current.impl_type.clone()?,
            other => other.to_string(),
        };
        current.element_fields.get(&type_name)?.get(field).cloned()
    })
}

/// Whether the field `field` of the derived struct `type_name` (`Self` for the `impl` block's
/// type) holds a nalgebra vector or matrix, when the file says.
pub fn field_is_linalg(type_name: &str, field: &str) -> bool {
    with_linalg_fields(type_name, |fields| fields.contains(field))
}

/// Whether the field `field` of the derived struct `type_name` (`Self` for the `impl` block's
/// type) holds a `Box`, when the file says.
pub fn field_is_boxed(type_name: &str, field: &str) -> bool {
    with_fields(
        type_name,
        |facts| &facts.boxed_fields,
        |fields| fields.contains(field),
    )
}

/// Whether the derived struct `type_name` has a field of a nalgebra vector or matrix type.
pub fn has_linalg_fields(type_name: &str) -> bool {
    with_linalg_fields(type_name, |fields| !fields.is_empty())
}

fn with_linalg_fields(
    type_name: &str,
    read: impl FnOnce(&std::collections::HashSet<String>) -> bool,
) -> bool {
    with_fields(type_name, |facts| &facts.linalg_fields, read)
}

/// `read` of the set `select` picks for the type `type_name` (`Self` for the `impl` block's
/// type: its fields of a kind, its marked functions); `false` when the file does not say.
fn with_fields(
    type_name: &str,
    select: impl FnOnce(&SourceFacts) -> &HashMap<String, std::collections::HashSet<String>>,
    read: impl FnOnce(&std::collections::HashSet<String>) -> bool,
) -> bool {
    FACTS.with(|current| {
        let current = current.borrow();
        let type_name = match type_name {
            "Self" => current.impl_type.as_deref(),
            other => Some(other),
        };
        type_name
            .and_then(|name| select(&current).get(name))
            .is_some_and(read)
    })
}

/// Whether `name` is a type of the user's crate (defined in the file, or imported from the
/// crate's modules), when the file is known.
pub fn names_own_type(name: &str) -> bool {
    in_functions(|functions| functions.names_own_type(name)).unwrap_or(false)
}

/// What `read` finds in the file's functions (`aliases::Functions`); `None` where the file is
/// not known.
fn in_functions<R>(read: impl FnOnce(&crate::aliases::Functions) -> R) -> Option<R> {
    FACTS.with(|current| current.borrow().functions.as_ref().map(read))
}

/// The names a glob import of the module `path` brings, when the file says for certain
/// (`Functions::glob_names`).
pub fn glob_names(path: &[String]) -> Option<Vec<String>> {
    in_functions(|functions| functions.glob_names(path)).flatten()
}

/// The plain function `path` (its segments) names, if it certainly names one: defined once
/// where the path leads, without the crate's attributes.
pub fn plain_function(path: &[String]) -> Option<crate::plain_calls::PlainFunction> {
    in_functions(|functions| functions.find(path)).flatten()
}

/// Whether the function `path` names returns a `Result` (`Functions::returns_result`).
pub fn returns_result(path: &syn::Path) -> bool {
    let names = crate::ast::segment_names(path);
    in_functions(|functions| functions.returns_result(&names)).unwrap_or(false)
}

/// Which parameters of the function `path` names are `&mut` (`Functions::mutable_parameters`).
pub fn mutable_parameters(path: &syn::Path) -> Option<Vec<bool>> {
    let names = crate::ast::segment_names(path);
    in_functions(|functions| functions.mutable_parameters(&names)).flatten()
}

/// The arities of the function pointer parameters of the function `path` names
/// (`Functions::pointer_parameters`).
pub fn pointer_parameters(path: &syn::Path) -> Option<Vec<Option<usize>>> {
    let names = crate::ast::segment_names(path);
    in_functions(|functions| functions.pointer_parameters(&names)).flatten()
}

/// Which parameters of the function `path` names are `Option`s of a float
/// (`Functions::option_parameters`).
pub fn option_parameters(path: &syn::Path) -> Option<Vec<bool>> {
    let names = crate::ast::segment_names(path);
    in_functions(|functions| functions.option_parameters(&names)).flatten()
}

/// Whether the file defines a free function `name`.
pub fn defines_function(name: &str) -> bool {
    in_functions(|functions| functions.defines_function(name)).unwrap_or(false)
}

/// Whether `path` names a function of the file with `#[forward]` alone: reverse code
/// differentiates a call of it by its forward code (`Functions::forward_only`).
pub fn forward_only(path: &syn::Path) -> bool {
    let names = crate::ast::segment_names(path);
    in_functions(|functions| functions.forward_only(&names)).unwrap_or(false)
}

/// Whether a method call `.add(..)` (`sub`, `mul`, `div`, `rem`, `neg`) in the file is the
/// operator's: see `Functions::calls_operator_method`.
pub fn calls_operator_method(method: &str, trait_name: &str) -> bool {
    in_functions(|functions| functions.calls_operator_method(method, trait_name)).unwrap_or(false)
}

/// Whether the file defines a free function `name` in the module of the free function
/// `beside` (argmin's files define `rosenbrock_hessian` beside `rosenbrock`).
pub fn defines_function_beside(beside: &str, name: &str) -> bool {
    in_functions(|functions| functions.defines_beside(beside, name)).unwrap_or(false)
}

/// Whether `type_name` derives `Differentiable` in the file and its `impl` blocks there define
/// `function` without derivative code (a type without the derive is data: its functions run
/// as they are).
pub fn has_no_derivative_code(type_path: &syn::Path, function: &syn::Ident) -> bool {
    let Some(type_name) = type_path.segments.last().map(|last| last.ident.to_string()) else {
        return false;
    };
    FACTS.with(|current| {
        let current = current.borrow();
        current.derived.contains(&type_name)
            && current
                .unmarked_functions
                .get(&type_name)
                .is_some_and(|functions| functions.contains(&function.to_string()))
    })
}

/// The derived type `function` of the file's `impl` blocks of `type_name` returns
/// (`Vec2::new`, `p.to_vec2()`): a value of that type, whose operators are its own.
pub fn derived_result_of(type_name: &str, function: &str) -> Option<String> {
    FACTS.with(|current| {
        let current = current.borrow();
        let result = current.named_results.get(type_name)?.get(function)?;
        current.derived.contains(result).then(|| result.clone())
    })
}

/// The derived type a call of `path` returns, by the file's definition of the function:
/// `Vec2::new` of an `impl` block of `Vec2`, or a free function `vec3`.
pub fn derived_result_of_call(path: &syn::Path) -> Option<String> {
    let segments = &path.segments;
    match segments.len() {
        1 => derived_result_of("", &segments[0].ident.to_string()),
        2 => derived_result_of(
            &segments[0].ident.to_string(),
            &segments[1].ident.to_string(),
        ),
        _ => None,
    }
}

/// Whether every method named `method` of the file's `impl` blocks returns a float (`fn
/// dot(self, o: Vec3) -> f64`), and one does.
pub fn float_result_of_method(method: &str) -> bool {
    FACTS.with(|current| {
        let current = current.borrow();
        let mut results = current
            .named_results
            .iter()
            .filter(|(ty, _)| !ty.is_empty())
            .filter_map(|(_, functions)| functions.get(method))
            .peekable();
        results.peek().is_some() && results.all(|result| result == "f64" || result == "f32")
    })
}

/// The derived type every method named `method` of the file's `impl` blocks returns, if
/// they all return the same one: a call on a value whose type only rustc knows.
pub fn derived_result_of_method(method: &str) -> Option<String> {
    FACTS.with(|current| {
        let current = current.borrow();
        let mut results = current
            .named_results
            .values()
            .filter_map(|functions| functions.get(method));
        let first = results.next()?;
        (results.all(|other| other == first) && current.derived.contains(first))
            .then(|| first.clone())
    })
}

/// Whether the file's `impl` blocks of `type_name` define `function` taking no `self` and
/// returning `Self` (or the type).
pub fn constructs(type_name: &str, function: &str) -> bool {
    FACTS.with(|current| {
        current
            .borrow()
            .constructors
            .get(type_name)
            .is_some_and(|functions| functions.contains(function))
    })
}

/// The hidden method `float op value` calls (`left_operators`) when the file differentiates
/// that operator for values of the type `type_name` (`Self` the `impl` block's), or of any
/// type when not given.
pub fn left_operator(
    type_name: Option<&str>,
    operator: &str,
    by_reference: bool,
    span: proc_macro2::Span,
) -> Option<proc_macro2::Ident> {
    FACTS.with(|current| {
        let current = current.borrow();
        let type_name = match type_name {
            Some("Self") => Some(current.impl_type.clone()?),
            other => other.map(str::to_string),
        };
        crate::left_operators::method_among(operator, by_reference, span, |method| {
            current.left_operators.iter().any(|(ty, known)| {
                known == method && type_name.as_ref().is_none_or(|name| name == ty)
            })
        })
    })
}
