//! Type aliases a function names (`type State = [f64; 3];` then `y: &State`), spelled out before
//! anything reads the function.
//!
//! A macro sees only the tokens of its item, and a path type names nothing it can look inside:
//! `State` might be a struct of data or an array of floats. So the aliases come from the
//! source: the file the function is in (`proc_macro::Span::local_file`) and, for a name that
//! file does not define, the other Rust files of its package (`CARGO_MANIFEST_DIR`). A name is
//! taken for an alias only where that is certain: defined by exactly one `type` item, and no
//! other type item (or import, in the function's own file) of that name. Otherwise the path is
//! left as written, and the function is analysed as before (rustc's types still check the
//! derivative code). Rust rebuilds a crate when any of its files changes, so what is read here
//! is never stale.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

mod functions;
pub use functions::Functions;

/// The definitions of type names in a set of files.
#[derive(Clone, Default)]
struct Definitions {
    /// `type` items, by name: their generic type parameters and their types, as source text
    /// (tokens cannot outlive the macro invocation that made them).
    aliases: HashMap<String, Vec<Alias>>,
    /// Names of structs, enums, unions and traits.
    types: HashMap<String, usize>,
    /// Names imported by `use`, with the path of the module they come from.
    imports: HashMap<String, Vec<String>>,
    /// Modules declared (`mod name;`, `mod name { .. }`).
    modules: std::collections::HashSet<String>,
    /// Whether a `use` of the crate's own modules ends in `*` (`use super::*;`).
    glob_imports: bool,
    /// Structs and enums defined without `#[derive(.., Differentiable)]`.
    underived: std::collections::HashSet<String>,
    /// Structs and enums defined with it.
    derived: std::collections::HashSet<String>,
    /// Structs and enums without type parameters whose fields all certainly hold no float
    /// (`enum LossError { NegativeMargin, Message(String) }`): data wherever they go. Found
    /// from `field_types` once the file is read.
    floatless: std::collections::HashSet<String>,
    /// The field types of the structs and enums without type parameters, as source text.
    field_types: HashMap<String, Vec<String>>,
    /// The named fields of the derived structs, each with its type's name when that is a
    /// plain path (`Segment`: `from` of type `V3`).
    fields: HashMap<String, HashMap<String, String>>,
    /// The named fields of the derived structs whose type is a nalgebra vector or matrix of
    /// floats (`position: Vector3<f64>`).
    linalg_fields: HashMap<String, std::collections::HashSet<String>>,
    /// The named fields of the derived structs that are `Vec`s or arrays of a type named by
    /// one identifier, with that element type.
    element_fields: HashMap<String, HashMap<String, String>>,
    /// The named fields of the derived structs whose type is a `Box`.
    boxed_fields: HashMap<String, std::collections::HashSet<String>>,
    /// Methods with a receiver, by name: the `impl` blocks that define one.
    methods: HashMap<String, Vec<MethodBlock>>,
    /// Functions of `impl` blocks without a receiver, by name: the blocks that define one.
    associated: HashMap<String, Vec<MethodBlock>>,
    /// By type, the functions of its `impl` blocks that neither they nor their block mark with
    /// one of the crate's attributes (and that no marked block of the file also names).
    unmarked_functions: HashMap<String, std::collections::HashSet<String>>,
    /// By type, the functions of its `impl` blocks that are marked, or in a marked block.
    marked_functions: HashMap<String, std::collections::HashSet<String>>,
    /// By type, the functions of its `impl` blocks without `self` that return `Self` or the
    /// type (`fn launched(speed: f64) -> Self`).
    constructors: HashMap<String, std::collections::HashSet<String>>,
    /// By type, the functions of its `impl` blocks whose result is a type named by one
    /// identifier, with that type's name (`Self` as the type's): `fn to_vec2(self) -> Vec2`;
    /// under the empty name, the free functions' (`fn vec3(x: f64, ..) -> Vec3`).
    named_results: HashMap<String, HashMap<String, String>>,
    /// By type, its methods taking `&self` that the crate's attributes differentiate (marked
    /// themselves, or in a marked block that marks none and mentioning a float type).
    differentiated_methods: HashMap<String, std::collections::HashSet<String>>,
    /// The operators with a float on the left that the crate's attributes differentiate (`impl
    /// Mul<Vec3> for f64`): the right operand's type and its hidden method (`left_operators`).
    left_operators: std::collections::HashSet<(String, String)>,
    /// Free functions by name, `None` for one carrying the crate's attributes.
    functions: HashMap<String, Vec<Option<crate::plain_calls::PlainFunction>>>,
    /// Free functions whose result is a `Result` (`fn checked_beta(..) -> Result<f64>`).
    result_functions: std::collections::HashSet<String>,
    /// Free functions by name: for each definition, which parameters are `&mut`.
    mutable_parameters: HashMap<String, Vec<Vec<bool>>>,
    /// Free functions by name: for each definition, the arity of each parameter that is a
    /// function pointer (`deriv: fn(f64, f64) -> f64`).
    pointer_parameters: HashMap<String, Vec<Vec<Option<usize>>>>,
    /// Free functions by name: for each definition, which parameters are `Option`s of a float
    /// (`shift: Option<f64>`), which reverse mode takes as data.
    option_parameters: HashMap<String, Vec<Vec<bool>>>,
    /// Free functions carrying `#[forward]` and neither `#[reverse]` nor `#[checkpoint]`.
    forward_only: std::collections::HashSet<String>,
    /// Free functions by name: the inline modules (their path in the file) that define one.
    function_modules: HashMap<String, Vec<Vec<String>>>,
    /// The inline modules by path in the file, each with the names of its public items and
    /// re-exports; `None` for one whose names only rustc knows (it re-exports a glob).
    module_items: HashMap<Vec<String>, Option<Vec<String>>>,
    /// While reading: the inline module the reader is in.
    module_path: Vec<String>,
    /// `macro_rules!` macros by name: for each definition, its rules' tokens
    /// (`user_macros`).
    macros: HashMap<String, Vec<String>>,
}

/// An `impl` block defining a method of some name.
#[derive(Debug, Clone, Default)]
struct MethodBlock {
    /// The block's type (`Springs` of `impl<const N: usize> Springs<N>`).
    ty: String,
    /// Its type and `const` parameters.
    generics: Vec<String>,
    /// The method's signature and body, without white space.
    text: String,
}

impl MethodBlock {
    fn text_of(sig: &syn::Signature, block: &syn::Block) -> String {
        let tokens = quote::quote!(#sig #block).to_string();
        tokens.chars().filter(|c| !c.is_whitespace()).collect()
    }
}

impl Definitions {
    fn of_file(file: &syn::File) -> Definitions {
        let mut definitions = Definitions::default();
        definitions.visit_file(file);
        definitions.find_floatless();
        definitions
    }

    /// The file's structs and enums whose fields hold no float, through each other (a
    /// fixpoint over this file's types alone), and its plain functions' results judged with
    /// them.
    fn find_floatless(&mut self) {
        let fields: HashMap<&String, Vec<syn::Type>> = self
            .field_types
            .iter()
            .filter(|(name, _)| self.types.get(*name) == Some(&1))
            .filter_map(|(name, types)| {
                let parsed: Option<Vec<syn::Type>> = types
                    .iter()
                    .map(|ty| syn::parse_str::<syn::Type>(ty).ok())
                    .collect();
                Some((name, parsed?))
            })
            .collect();
        loop {
            let found: Vec<String> = fields
                .iter()
                .filter(|(name, _)| !self.floatless.contains(**name))
                .filter(|(_, types)| {
                    types.iter().all(|ty| {
                        crate::plain_calls::carries_no_float_given(ty, &|name| {
                            self.floatless.contains(name)
                        })
                    })
                })
                .map(|(name, _)| (*name).clone())
                .collect();
            if found.is_empty() {
                break;
            }
            self.floatless.extend(found);
        }
        for function in self.functions.values_mut().flatten().flatten() {
            function.with_floatless_types(&self.floatless);
        }
    }

    fn extend(&mut self, other: &Definitions) {
        for (name, functions) in &other.functions {
            self.functions
                .entry(name.clone())
                .or_default()
                .extend(functions.iter().cloned());
        }
        for (name, aliases) in &other.aliases {
            self.aliases
                .entry(name.clone())
                .or_default()
                .extend(aliases.iter().cloned());
        }
        for (name, count) in &other.types {
            *self.types.entry(name.clone()).or_default() += count;
        }
        for (name, rules) in &other.macros {
            self.macros
                .entry(name.clone())
                .or_default()
                .extend(rules.iter().cloned());
        }
    }

    /// The one alias `name` certainly is, if it is one.
    fn alias(&self, name: &str) -> Option<&Alias> {
        let aliases = self.aliases.get(name)?;
        let first = aliases.first()?;
        (!self.types.contains_key(name) && aliases.iter().all(|alias| alias == first))
            .then_some(first)
    }

    fn add_import(&mut self, tree: &syn::UseTree, path: &mut Vec<String>) {
        match tree {
            syn::UseTree::Path(segment) => {
                path.push(segment.ident.to_string());
                self.add_import(&segment.tree, path);
                path.pop();
            }
            syn::UseTree::Name(name) => {
                self.imports.insert(name.ident.to_string(), path.clone());
            }
            syn::UseTree::Rename(rename) => {
                self.imports.insert(rename.rename.to_string(), path.clone());
            }
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.add_import(tree, path);
                }
            }
            syn::UseTree::Glob(_) => {
                let local = path.first().is_some_and(|first| {
                    matches!(first.as_str(), "crate" | "super" | "self")
                        || self.modules.contains(first)
                });
                self.glob_imports |= local;
            }
        }
    }

    /// Whether `name` is imported from another crate.
    fn imports_from_elsewhere(&self, name: &str) -> bool {
        self.imports.get(name).is_some_and(|path| {
            path.first().is_some_and(|first| {
                !matches!(first.as_str(), "crate" | "super" | "self")
                    && !self.modules.contains(first)
            })
        })
    }
}

/// The file of the module `path` names from the file `from` (`use shapes::Point` with
/// `mod shapes;`: `shapes.rs` or `shapes/mod.rs` beside it, or in its own directory when it is
/// not a `mod.rs`), if the path goes through module files only.
fn module_file(from: &Path, path: &[String]) -> Option<PathBuf> {
    let directory = from.parent()?;
    let stem = from.file_stem()?.to_string_lossy().to_string();
    let mut bases = vec![directory.to_path_buf()];
    if !matches!(stem.as_str(), "mod" | "lib" | "main") {
        bases.push(directory.join(&stem));
    }
    let (first, rest) = path.split_first()?;
    for base in bases {
        for file in [
            base.join(format!("{first}.rs")),
            base.join(first).join("mod.rs"),
        ] {
            if file.is_file() {
                return match rest.is_empty() {
                    true => Some(file),
                    false => module_file(&file, rest),
                };
            }
        }
    }
    None
}

/// Whether `attrs` derive `Differentiable` (by any path).
fn derives_differentiable(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("derive")
            && attr
                .meta
                .to_token_stream()
                .into_iter()
                .any(|tree| derive_list_names(&tree, "Differentiable"))
    })
}

fn derive_list_names(tree: &proc_macro2::TokenTree, name: &str) -> bool {
    match tree {
        proc_macro2::TokenTree::Ident(ident) => ident == name,
        proc_macro2::TokenTree::Group(group) => group
            .stream()
            .into_iter()
            .any(|tree| derive_list_names(&tree, name)),
        _ => false,
    }
}

impl<'ast> Visit<'ast> for Definitions {
    fn visit_item_type(&mut self, item: &'ast syn::ItemType) {
        let generics = item
            .generics
            .type_params()
            .map(|param| param.ident.to_string())
            .collect();
        self.aliases
            .entry(item.ident.to_string())
            .or_default()
            .push(Alias {
                generics,
                ty: item.ty.to_token_stream().to_string(),
            });
    }

    fn visit_item_struct(&mut self, item: &'ast syn::ItemStruct) {
        *self.types.entry(item.ident.to_string()).or_default() += 1;
        if item.generics.params.is_empty() {
            self.field_types.insert(
                item.ident.to_string(),
                item.fields
                    .iter()
                    .map(|field| field.ty.to_token_stream().to_string())
                    .collect(),
            );
        }
        match derives_differentiable(&item.attrs) {
            true => self.derived.insert(item.ident.to_string()),
            false => self.underived.insert(item.ident.to_string()),
        };
        if derives_differentiable(&item.attrs) {
            let fields = item
                .fields
                .iter()
                .filter_map(|field| {
                    let name = field.ident.as_ref()?.to_string();
                    let syn::Type::Path(path) = &field.ty else {
                        return None;
                    };
                    let ty = path.path.get_ident()?.to_string();
                    Some((name, ty))
                })
                .collect();
            self.fields.insert(item.ident.to_string(), fields);
            // `layers: Vec<Layer>`, `ps: [P; 3]`: the element type of a container field.
            let elements = item
                .fields
                .iter()
                .filter_map(|field| {
                    let name = field.ident.as_ref()?.to_string();
                    let element = crate::ast::container_element(&field.ty)?;
                    let syn::Type::Path(path) = element else {
                        return None;
                    };
                    Some((name, path.path.get_ident()?.to_string()))
                })
                .collect();
            self.element_fields.insert(item.ident.to_string(), elements);
            let linalg = item
                .fields
                .iter()
                .filter(|field| crate::ast::spells_linalg_type(&field.ty))
                .filter_map(|field| Some(field.ident.as_ref()?.to_string()))
                .collect();
            self.linalg_fields.insert(item.ident.to_string(), linalg);
            let boxed = item
                .fields
                .iter()
                .filter(|field| {
                    matches!(&field.ty, syn::Type::Path(path)
                    if path.path.segments.last().is_some_and(|last| last.ident == "Box"))
                })
                .filter_map(|field| Some(field.ident.as_ref()?.to_string()))
                .collect();
            self.boxed_fields.insert(item.ident.to_string(), boxed);
        }
    }

    fn visit_item_enum(&mut self, item: &'ast syn::ItemEnum) {
        *self.types.entry(item.ident.to_string()).or_default() += 1;
        if item.generics.params.is_empty() {
            self.field_types.insert(
                item.ident.to_string(),
                item.variants
                    .iter()
                    .flat_map(|variant| &variant.fields)
                    .map(|field| field.ty.to_token_stream().to_string())
                    .collect(),
            );
        }
        match derives_differentiable(&item.attrs) {
            true => self.derived.insert(item.ident.to_string()),
            false => self.underived.insert(item.ident.to_string()),
        };
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if let syn::ReturnType::Type(_, ty) = &item.sig.output {
            if let syn::Type::Path(path) = &**ty {
                if let (None, Some(result)) = (&path.qself, path.path.get_ident()) {
                    self.named_results
                        .entry(String::new())
                        .or_default()
                        .insert(item.sig.ident.to_string(), result.to_string());
                }
            }
        }
        self.functions
            .entry(item.sig.ident.to_string())
            .or_default()
            .push(crate::plain_calls::PlainFunction::of(item));
        self.function_modules
            .entry(item.sig.ident.to_string())
            .or_default()
            .push(self.module_path.clone());
        let mutable = item
            .sig
            .inputs
            .iter()
            .map(|input| {
                matches!(input, syn::FnArg::Typed(typed)
                    if matches!(&*typed.ty, syn::Type::Reference(reference)
                        if reference.mutability.is_some()))
            })
            .collect();
        self.mutable_parameters
            .entry(item.sig.ident.to_string())
            .or_default()
            .push(mutable);
        let pointers = item
            .sig
            .inputs
            .iter()
            .map(|input| match input {
                syn::FnArg::Typed(typed) => match &*typed.ty {
                    syn::Type::BareFn(pointer) => Some(pointer.inputs.len()),
                    _ => None,
                },
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        self.pointer_parameters
            .entry(item.sig.ident.to_string())
            .or_default()
            .push(pointers);
        let options = item
            .sig
            .inputs
            .iter()
            .map(|input| {
                matches!(input, syn::FnArg::Typed(typed)
                    if crate::ast::option_element(&typed.ty).is_some_and(crate::ast::is_float_type))
            })
            .collect();
        self.option_parameters
            .entry(item.sig.ident.to_string())
            .or_default()
            .push(options);
        if matches!(&item.sig.output, syn::ReturnType::Type(_, ty)
            if matches!(&**ty, syn::Type::Path(path) if path.qself.is_none()
                && path.path.segments.last().is_some_and(|last| last.ident == "Result")))
        {
            self.result_functions.insert(item.sig.ident.to_string());
        }
        let ours: Vec<String> = item
            .attrs
            .iter()
            .filter_map(crate::attr::our_macro)
            .collect();
        if ours.iter().all(|name| name == "forward") && !ours.is_empty() {
            self.forward_only.insert(item.sig.ident.to_string());
        }
        syn::visit::visit_item_fn(self, item);
    }

    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        if carries_our_attribute(&item.attrs) {
            if let Some(left) = crate::left_operators::operator_of(item, None) {
                if let Some(last) = left.type_path.segments.last() {
                    let method = left.method(proc_macro2::Span::call_site());
                    self.left_operators
                        .insert((last.ident.to_string(), method.to_string()));
                }
            }
        }
        if let syn::Type::Path(path) = &*item.self_ty {
            if let Some(last) = path.path.segments.last() {
                let methods: Vec<&syn::ImplItemFn> = item
                    .items
                    .iter()
                    .filter_map(|member| match member {
                        syn::ImplItem::Fn(method)
                            if matches!(
                                method.sig.inputs.first(),
                                Some(syn::FnArg::Receiver(_))
                            ) =>
                        {
                            Some(method)
                        }
                        _ => None,
                    })
                    .collect();
                let block_marked = carries_our_attribute(&item.attrs);
                for member in &item.items {
                    if let syn::ImplItem::Fn(function) = member {
                        let marked = block_marked || carries_our_attribute(&function.attrs);
                        let set = match marked {
                            true => &mut self.marked_functions,
                            false => &mut self.unmarked_functions,
                        };
                        set.entry(last.ident.to_string())
                            .or_default()
                            .insert(function.sig.ident.to_string());
                        let returns_the_type = matches!(&function.sig.output,
                        syn::ReturnType::Type(_, ty) if matches!(&**ty,
                            syn::Type::Path(path) if path.qself.is_none()
                                && path.path.segments.last().is_some_and(|segment| {
                                    segment.ident == "Self" || segment.ident == last.ident
                                })));
                        let has_receiver =
                            matches!(function.sig.inputs.first(), Some(syn::FnArg::Receiver(_)));
                        if let syn::ReturnType::Type(_, ty) = &function.sig.output {
                            if let syn::Type::Path(path) = &**ty {
                                if let (None, Some(result)) = (&path.qself, path.path.get_ident()) {
                                    let result = match result == "Self" {
                                        true => last.ident.to_string(),
                                        false => result.to_string(),
                                    };
                                    self.named_results
                                        .entry(last.ident.to_string())
                                        .or_default()
                                        .insert(function.sig.ident.to_string(), result);
                                }
                            }
                        }
                        if !has_receiver {
                            self.associated
                                .entry(function.sig.ident.to_string())
                                .or_default()
                                .push(MethodBlock {
                                    ty: last.ident.to_string(),
                                    generics: crate::impls::generic_names(&item.generics),
                                    text: MethodBlock::text_of(&function.sig, &function.block),
                                });
                        }
                        if returns_the_type && !has_receiver {
                            self.constructors
                                .entry(last.ident.to_string())
                                .or_default()
                                .insert(function.sig.ident.to_string());
                        }
                    }
                }
                let any_marked = methods
                    .iter()
                    .any(|method| carries_our_attribute(&method.attrs));
                for method in methods {
                    let name = method.sig.ident.to_string();
                    self.methods
                        .entry(name.clone())
                        .or_default()
                        .push(MethodBlock {
                            ty: last.ident.to_string(),
                            generics: crate::impls::generic_names(&item.generics),
                            text: MethodBlock::text_of(&method.sig, &method.block),
                        });
                    // Called on a data `self` by path (`Self::m(self, ..)`): those taking `&self`.
                    let shared = matches!(method.sig.inputs.first(),
                        Some(syn::FnArg::Receiver(receiver))
                            if receiver.reference.is_some() && receiver.mutability.is_none());
                    let differentiated = shared
                        && (carries_our_attribute(&method.attrs)
                            || (block_marked
                                && !any_marked
                                && crate::ast::mentions_a_float(&method.sig)));
                    if differentiated {
                        self.differentiated_methods
                            .entry(last.ident.to_string())
                            .or_default()
                            .insert(name);
                    }
                }
            }
        }
        syn::visit::visit_item_impl(self, item);
    }

    fn visit_item_union(&mut self, item: &'ast syn::ItemUnion) {
        *self.types.entry(item.ident.to_string()).or_default() += 1;
    }

    fn visit_item_trait(&mut self, item: &'ast syn::ItemTrait) {
        *self.types.entry(item.ident.to_string()).or_default() += 1;
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.add_import(&item.tree, &mut Vec::new());
    }

    fn visit_item_macro(&mut self, item: &'ast syn::ItemMacro) {
        if let (true, Some(name)) = (item.mac.path.is_ident("macro_rules"), &item.ident) {
            self.macros
                .entry(name.to_string())
                .or_default()
                .push(item.mac.tokens.to_string());
        }
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.modules.insert(item.ident.to_string());
        self.module_path.push(item.ident.to_string());
        if let Some((_, items)) = &item.content {
            self.module_items
                .insert(self.module_path.clone(), public_names(items));
        }
        syn::visit::visit_item_mod(self, item);
        self.module_path.pop();
    }

    // Items inside function bodies are local to them.
    fn visit_block(&mut self, _: &'ast syn::Block) {}
}

#[derive(Clone, PartialEq)]
struct Alias {
    generics: Vec<String>,
    ty: String,
}

/// `tokens` as written at `span`: where rustc reports what is wrong with an alias's type.
fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let proc_macro2::TokenTree::Group(group) = &token {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                return proc_macro2::TokenTree::Group(inner);
            }
            token.set_span(span);
            token
        })
        .collect()
}

/// What each file read so far defines, by path (the proc-macro server lives for a whole build).
static READ: Mutex<Option<HashMap<PathBuf, Definitions>>> = Mutex::new(None);

fn definitions_in(path: &Path) -> Definitions {
    let mut read = READ.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let read = read.get_or_insert_with(HashMap::new);
    if let Some(definitions) = read.get(path) {
        return definitions.clone();
    }
    let definitions = std::fs::read_to_string(path)
        .ok()
        .and_then(|text| syn::parse_file(&text).ok())
        .map(|file| Definitions::of_file(&file))
        .unwrap_or_default();
    read.insert(path.to_path_buf(), definitions.clone());
    definitions
}

/// What the Rust files of the package define, together.
fn package_definitions() -> Definitions {
    let mut all = Definitions::default();
    if let Some(root) = std::env::var_os("CARGO_MANIFEST_DIR") {
        for file in package_files(Path::new(&root)) {
            all.extend(&definitions_in(&file));
        }
    }
    all
}

/// The Rust files of the package, but those of its build output.
fn package_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(directory) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&directory) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" {
                    pending.push(path);
                }
            } else if name.ends_with(".rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The aliases the function in `source` (its file) may name.
pub struct Aliases {
    source: PathBuf,
    own: Definitions,
    package: Option<Definitions>,
}

impl Aliases {
    /// Reads the function's file; the package's are read when a name is not found there.
    pub fn for_source(source: Option<PathBuf>) -> Option<Aliases> {
        let source = source?;
        let own = definitions_in(&source);
        Some(Aliases {
            source,
            own,
            package: None,
        })
    }

    /// Whether the function's file defines the struct or enum `name` without deriving
    /// `Differentiable` (and no other item of that name).
    pub fn defines_underived(&self, name: &str) -> bool {
        self.own.underived.contains(name) && self.own.types.get(name) == Some(&1)
    }

    /// The type of the `impl` blocks of the file that define a method `name` taking `self`,
    /// if they are all of one type.
    ///
    /// Methods of the same name in several blocks are told apart by their text: the one whose
    /// signature and body are the method's.
    pub fn impl_type_of_method(&self, method: &syn::ItemFn) -> Option<(String, Vec<String>)> {
        let has_receiver = matches!(method.sig.inputs.first(), Some(syn::FnArg::Receiver(_)));
        let name = method.sig.ident.to_string();
        // A function without `self` (`fn loss(x: f64) -> f64` in `impl Model`) is the block's
        // only by its text: a free function of that name may be the one annotated.
        if !has_receiver {
            let text = MethodBlock::text_of(&method.sig, &method.block);
            let mut written = self.own.associated.get(&name)?.iter();
            let block = written.find(|block| block.text == text)?;
            let free = self.own.functions.contains_key(&name);
            return (!free && !written.any(|other| other.text == text))
                .then(|| (block.ty.clone(), block.generics.clone()));
        }
        let blocks = self.own.methods.get(&name)?;
        let first = blocks.first()?;
        let same = |block: &MethodBlock| block.ty == first.ty && block.generics == first.generics;
        let block = match blocks.iter().all(same) {
            true => first,
            false => {
                let text = MethodBlock::text_of(&method.sig, &method.block);
                let mut written = blocks.iter().filter(|block| block.text == text);
                let block = written.next()?;
                written.next().is_none().then_some(block)?
            }
        };
        Some((block.ty.clone(), block.generics.clone()))
    }

    /// By type, the functions of its `impl` blocks in the function's file that carry none of
    /// the crate's attributes (nor does their block): they have no derivative code.
    pub fn unmarked_functions(&self) -> HashMap<String, std::collections::HashSet<String>> {
        let mut unmarked = self.own.unmarked_functions.clone();
        for (ty, functions) in unmarked.iter_mut() {
            if let Some(marked) = self.own.marked_functions.get(ty) {
                functions.retain(|function| !marked.contains(function));
            }
        }
        unmarked
    }

    /// By type, the functions of its `impl` blocks in the function's file that take no `self`
    /// and return `Self` or the type.
    /// [`Definitions::named_results`], a result named by an alias of one type of the file
    /// (`type Point = Vec2;`) given as that type.
    pub fn named_results(&self) -> HashMap<String, HashMap<String, String>> {
        let mut results = self.own.named_results.clone();
        for functions in results.values_mut() {
            for result in functions.values_mut() {
                let aliased = self
                    .own
                    .alias(result)
                    .filter(|alias| alias.generics.is_empty());
                if let Some(ty) =
                    aliased.and_then(|alias| syn::parse_str::<syn::Ident>(&alias.ty).ok())
                {
                    *result = ty.to_string();
                }
            }
        }
        results
    }

    pub fn constructors(&self) -> HashMap<String, std::collections::HashSet<String>> {
        self.own.constructors.clone()
    }

    /// By type, the functions of its `impl` blocks the crate's attributes mark (themselves, or
    /// their block), in the function's file.
    pub fn marked_functions(&self) -> HashMap<String, std::collections::HashSet<String>> {
        self.own.marked_functions.clone()
    }

    /// By type, its methods the crate's attributes differentiate, in the function's file.
    pub fn differentiated_methods(&self) -> HashMap<String, std::collections::HashSet<String>> {
        self.own.differentiated_methods.clone()
    }

    /// The structs and enums the function's file defines whose fields certainly hold no float
    /// (and no other item of their name).
    pub fn floatless_types(&self) -> std::collections::HashSet<String> {
        self.own
            .floatless
            .iter()
            .filter(|name| self.own.types.get(*name) == Some(&1))
            .cloned()
            .collect()
    }

    /// The structs and enums the function's file defines without deriving `Differentiable`
    /// (and no other item of their name).
    pub fn underived_types(&self) -> std::collections::HashSet<String> {
        self.own
            .underived
            .iter()
            .filter(|name| self.defines_underived(name))
            .cloned()
            .collect()
    }

    /// The operators with a float on the left that the file differentiates: the right
    /// operand's type and its hidden method.
    pub fn left_operators(&self) -> std::collections::HashSet<(String, String)> {
        self.own.left_operators.clone()
    }

    /// The structs and enums the function's file defines deriving `Differentiable`.
    pub fn derived_types(&self) -> std::collections::HashSet<String> {
        self.own.derived.clone()
    }

    /// [`Aliases::derived_types`] that no other item of the file is named as.
    pub fn derived_types_once(&self) -> std::collections::HashSet<String> {
        self.own
            .derived
            .iter()
            .filter(|name| self.own.types.get(*name) == Some(&1))
            .cloned()
            .collect()
    }

    /// The fields of the derived structs of the function's file whose type is one of them or
    /// a float: by struct, the field's name and its type's name.
    pub fn derived_fields(&self) -> HashMap<String, HashMap<String, String>> {
        self.own
            .fields
            .iter()
            .map(|(name, fields)| {
                let derived = fields
                    .iter()
                    .filter(|(_, ty)| {
                        self.own.derived.contains(*ty) || matches!(ty.as_str(), "f64" | "f32")
                    })
                    .map(|(field, ty)| (field.clone(), ty.clone()))
                    .collect();
                (name.clone(), derived)
            })
            .collect()
    }

    /// The container fields of the derived structs of the function's file whose elements are
    /// of a derived type: by struct, the field's name and the element type's name.
    pub fn element_fields(&self) -> HashMap<String, HashMap<String, String>> {
        self.own
            .element_fields
            .iter()
            .map(|(name, fields)| {
                let derived = fields
                    .iter()
                    .filter(|(_, ty)| self.own.derived.contains(*ty))
                    .map(|(field, ty)| (field.clone(), ty.clone()))
                    .collect();
                (name.clone(), derived)
            })
            .collect()
    }

    /// The fields of the derived structs of the function's file that hold nalgebra vectors or
    /// matrices, by struct.
    pub fn linalg_fields(&self) -> HashMap<String, std::collections::HashSet<String>> {
        self.own.linalg_fields.clone()
    }

    /// The fields of the derived structs of the function's file that hold a `Box`, by struct.
    pub fn boxed_fields(&self) -> HashMap<String, std::collections::HashSet<String>> {
        self.own.boxed_fields.clone()
    }

    /// The rules of each `macro_rules!` macro the function's file defines once, by name
    /// (`user_macros`): the ones its functions call without an import (a macro of another
    /// file is reached through `#[macro_use]` or a path, which only rustc resolves).
    pub fn macro_definitions(&self) -> HashMap<String, String> {
        self.own
            .macros
            .iter()
            .filter_map(|(name, rules)| match rules.as_slice() {
                [rules] => Some((name.clone(), rules.clone())),
                _ => None,
            })
            .collect()
    }

    /// Where the plain functions the function calls are looked up.
    pub fn functions(&self) -> Functions {
        Functions {
            source: self.source.clone(),
            own: self.own.clone(),
        }
    }

    fn lookup(&mut self, name: &str) -> Option<Alias> {
        let alias = self.definition(name)?;
        // Spelled out only if what it names is in scope wherever it is: floats, integers, the
        // prelude's containers, other aliases. (`type Cloud = [P3; 2]` in a module names `P3`,
        // which the function's module may not see.)
        let ty: syn::Type = syn::parse_str(&alias.ty).ok()?;
        let mut names = Names(Vec::new());
        names.visit_type(&ty);
        // An alias the function's file defines, of a struct or enum that file defines once
        // (`type Point = Vec2;` beside `struct Vec2`), is in scope where the alias is.
        let own_alias = self.own.aliases.contains_key(name);
        let in_scope = names.0.iter().all(|name| {
            alias.generics.contains(name)
                || PRIMITIVES.contains(&name.as_str())
                || PRELUDE.contains(&name.as_str())
                || (own_alias && self.own.types.get(name) == Some(&1))
                || self.definition(name).is_some()
        });
        in_scope.then_some(alias)
    }

    /// The alias `name` is where the function is, if it certainly is one.
    fn definition(&mut self, name: &str) -> Option<Alias> {
        if PRELUDE.contains(&name) || PRIMITIVES.contains(&name) {
            return None;
        }
        // Imported: from another crate, nothing of ours; from a module file of the crate, what
        // that file defines; from elsewhere in the crate (`crate::`, `super::`), the one
        // definition of the package.
        if let Some(path) = self.own.imports.get(name) {
            if self.own.imports_from_elsewhere(name) {
                return None;
            }
            let file = path
                .first()
                .filter(|first| self.own.modules.contains(*first))
                .and_then(|_| module_file(&self.source, path));
            if let Some(file) = file {
                let definitions = definitions_in(&file);
                return definitions.alias(name).cloned();
            }
            return self.package().alias(name).cloned();
        }
        if self.own.aliases.contains_key(name) || self.own.types.contains_key(name) {
            return self.own.alias(name).cloned();
        }
        // Neither defined nor imported by name: from a glob import of the crate, or nothing
        // (a name of the prelude, of a function's own items).
        if !self.own.glob_imports {
            return None;
        }
        self.package().alias(name).cloned()
    }

    fn package(&mut self) -> &Definitions {
        self.package.get_or_insert_with(package_definitions)
    }
}

/// Whether one of the crate's macros is among `attrs`.
fn carries_our_attribute(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|attr| crate::attr::our_macro(attr).is_some())
}

/// Every name a type mentions.
struct Names(Vec<String>);

impl<'ast> Visit<'ast> for Names {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        for segment in &path.segments {
            self.0.push(segment.ident.to_string());
        }
        syn::visit::visit_path(self, path);
    }
}

const PRIMITIVES: &[&str] = &[
    "f64", "f32", "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64",
    "i128", "bool", "char", "str",
];

/// Type names every module sees, never looked up.
const PRELUDE: &[&str] = &[
    "Vec",
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "Box",
    "String",
    "ToString",
    "Iterator",
    "IntoIterator",
    "Default",
    "Clone",
    "Copy",
    "Fn",
    "FnMut",
    "FnOnce",
    "From",
    "Into",
    "Sized",
    "Send",
    "Sync",
    "PartialEq",
    "PartialOrd",
    "Eq",
    "Ord",
    "Drop",
    "AsRef",
    "AsMut",
    "Extend",
    "DoubleEndedIterator",
    "ExactSizeIterator",
    "HashMap",
    "HashSet",
    "BTreeMap",
    "BTreeSet",
    "VecDeque",
    "Rc",
    "Arc",
    "Cell",
    "RefCell",
];

/// Aliases spelled out in a function: the paths as written, which its expansion still names
/// (`mark_used`) so that rustc does not find the aliases unused.
pub struct Spelled {
    function: syn::Ident,
    written: Vec<syn::Type>,
}

/// `item` (a function, or an `impl` block's methods) with the aliases it names spelled out.
pub fn expand(item: TokenStream, aliases: Option<Aliases>) -> (TokenStream, Vec<Spelled>) {
    let Some(aliases) = aliases else {
        return (item, Vec::new());
    };
    let mut expander = Expander {
        aliases,
        generics: Vec::new(),
        depth: 0,
        written: Vec::new(),
        local_items: Vec::new(),
    };
    if let Ok(mut function) = crate::input::item_fn(&item) {
        // Stacked under another of our macros, which already spelled them out.
        expander.written = take_mark(&mut function.block);
        expander.local_items = local_items(&function.block);
        if !expander.names_an_alias(|names| names.visit_item_fn(&function))
            && expander.written.is_empty()
        {
            // As it came: tokens printed again by syn lose the spans of their groups.
            return (item, Vec::new());
        }
        expander.generics = generic_names(&function.sig.generics);
        expander.visit_item_fn_mut(&mut function);
        let spelled = Spelled {
            function: function.sig.ident.clone(),
            written: expander.written,
        };
        return (function.into_token_stream(), vec![spelled]);
    }
    if let Ok(mut block) = syn::parse2::<syn::ItemImpl>(item.clone()) {
        let marked = block.items.iter().any(|member| {
            matches!(member, syn::ImplItem::Fn(method) if !take_mark(&mut method.block.clone()).is_empty())
        });
        if !marked && !expander.names_an_alias(|names| names.visit_item_impl(&block)) {
            return (item, Vec::new());
        }
        let outer = generic_names(&block.generics);
        let mut spelled = Vec::new();
        for member in &mut block.items {
            if let syn::ImplItem::Fn(method) = member {
                expander.written = take_mark(&mut method.block);
                expander.local_items = local_items(&method.block);
                expander.generics = outer.clone();
                expander
                    .generics
                    .extend(generic_names(&method.sig.generics));
                expander.visit_impl_item_fn_mut(method);
                spelled.push(Spelled {
                    function: method.sig.ident.clone(),
                    written: std::mem::take(&mut expander.written),
                });
            }
        }
        return (block.into_token_stream(), spelled);
    }
    (item, Vec::new())
}

/// The types of the statement `mark_used` put first in `block`, taken out of it.
fn take_mark(block: &mut syn::Block) -> Vec<syn::Type> {
    let Some(syn::Stmt::Local(syn::Local {
        pat: syn::Pat::Type(typed),
        init: None,
        ..
    })) = block.stmts.first()
    else {
        return Vec::new();
    };
    let syn::Type::Path(path) = &*typed.ty else {
        return Vec::new();
    };
    let names: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let Some(syn::PathArguments::AngleBracketed(arguments)) =
        path.path.segments.last().map(|segment| &segment.arguments)
    else {
        return Vec::new();
    };
    if !matches!(*typed.pat, syn::Pat::Wild(_))
        || path.path.leading_colon.is_none()
        || names != ["core", "marker", "PhantomData"]
    {
        return Vec::new();
    }
    let Some(syn::GenericArgument::Type(syn::Type::Tuple(tuple))) = arguments.args.first() else {
        return Vec::new();
    };
    let written = tuple.elems.iter().cloned().collect();
    block.stmts.remove(0);
    written
}

/// The expansion `output` with each function whose aliases were spelled out naming them again,
/// in a statement that does nothing (`let _: PhantomData<(State,)>;`).
pub fn mark_used(output: TokenStream, spelled: &[Spelled]) -> TokenStream {
    let spelled: Vec<&Spelled> = spelled.iter().filter(|s| !s.written.is_empty()).collect();
    if spelled.is_empty() {
        return output;
    }
    let mark = |name: &syn::Ident, block: &mut syn::Block| {
        if let Some(spelled) = spelled.iter().find(|spelled| spelled.function == *name) {
            let written = &spelled.written;
            block.stmts.insert(
                0,
                syn::parse_quote!(let _: ::core::marker::PhantomData<(#(#written,)*)>;),
            );
        }
    };
    if let Ok(mut file) = syn::parse2::<syn::File>(output.clone()) {
        for item in &mut file.items {
            match item {
                syn::Item::Fn(function) => mark(&function.sig.ident, &mut function.block),
                syn::Item::Impl(block) => {
                    for member in &mut block.items {
                        if let syn::ImplItem::Fn(method) = member {
                            mark(&method.sig.ident, &mut method.block);
                        }
                    }
                }
                _ => {}
            }
        }
        return file.into_token_stream();
    }
    // A method's expansion: items of the `impl` it is in.
    let wrapped = quote::quote!(impl __AdAliases { #output });
    if let Ok(mut block) = syn::parse2::<syn::ItemImpl>(wrapped) {
        let mut items = TokenStream::new();
        for mut member in block.items.drain(..) {
            if let syn::ImplItem::Fn(method) = &mut member {
                mark(&method.sig.ident, &mut method.block);
            }
            member.to_tokens(&mut items);
        }
        return items;
    }
    output
}

/// The names of the items declared anywhere in a function's body.
fn local_items(block: &syn::Block) -> Vec<String> {
    struct Items(Vec<String>);
    impl<'ast> Visit<'ast> for Items {
        fn visit_item(&mut self, item: &'ast syn::Item) {
            let name = match item {
                syn::Item::Type(item) => Some(&item.ident),
                syn::Item::Struct(item) => Some(&item.ident),
                syn::Item::Enum(item) => Some(&item.ident),
                syn::Item::Union(item) => Some(&item.ident),
                syn::Item::Trait(item) => Some(&item.ident),
                _ => None,
            };
            self.0.extend(name.map(ToString::to_string));
            syn::visit::visit_item(self, item);
        }
    }
    let mut items = Items(Vec::new());
    items.visit_block(block);
    items.0
}

fn generic_names(generics: &syn::Generics) -> Vec<String> {
    generics
        .type_params()
        .map(|param| param.ident.to_string())
        .collect()
}

struct Expander {
    aliases: Aliases,
    /// The type parameters in scope, which no alias of the file names.
    generics: Vec<String>,
    depth: usize,
    /// The alias paths spelled out, as written.
    written: Vec<syn::Type>,
    /// Items the function's body declares, which shadow the file's names.
    local_items: Vec<String>,
}

impl Expander {
    /// Whether some path in `node` names an alias.
    /// Whether a name `visit` gives `Names` is an alias's.
    fn names_an_alias(&mut self, visit: impl FnOnce(&mut Names)) -> bool {
        let mut names = Names(Vec::new());
        visit(&mut names);
        names.0.sort();
        names.0.dedup();
        names.0.iter().any(|name| self.alias(name).is_some())
    }

    fn alias(&mut self, name: &str) -> Option<Alias> {
        if self.generics.iter().any(|generic| generic == name)
            || self.local_items.iter().any(|item| item == name)
            || !is_type_name(name)
        {
            return None;
        }
        self.aliases.lookup(name)
    }

    /// The type `path` names if it is an alias (`State`, `crate::ode::State`, `Vector<f64>`).
    fn aliased_type(&mut self, path: &syn::Path) -> Option<syn::Type> {
        let segments: Vec<&syn::PathSegment> = path.segments.iter().collect();
        let (last, modules) = segments.split_last()?;
        // `Self::State`: the impl's associated type.
        if modules.first().is_some_and(|first| first.ident == "Self") {
            return None;
        }
        if !modules
            .iter()
            .all(|segment| segment.arguments.is_none() && !is_type_name(&segment.ident.to_string()))
        {
            return None;
        }
        let Alias { generics, ty } = self.alias(&last.ident.to_string())?;
        let generics: Vec<syn::Ident> = generics
            .iter()
            .map(|name| syn::Ident::new(name, last.ident.span()))
            .collect();
        let ty: TokenStream = ty.parse().ok()?;
        let ty: syn::Type = syn::parse2(respan(ty, last.ident.span())).ok()?;
        let arguments: Vec<syn::Type> = match &last.arguments {
            syn::PathArguments::None => Vec::new(),
            syn::PathArguments::AngleBracketed(arguments) => arguments
                .args
                .iter()
                .filter_map(|argument| match argument {
                    syn::GenericArgument::Type(ty) => Some(ty.clone()),
                    _ => None,
                })
                .collect(),
            syn::PathArguments::Parenthesized(_) => return None,
        };
        if arguments.len() != generics.len() {
            return None;
        }
        let mut ty = ty;
        Substitute(generics.iter().zip(&arguments).collect()).visit_type_mut(&mut ty);
        Some(ty)
    }
}

fn is_type_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase()) && name != "Self"
}

impl VisitMut for Expander {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Path(path) = ty {
            if path.qself.is_none() && self.depth < 16 {
                if let Some(aliased) = self.aliased_type(&path.path) {
                    if self.depth == 0 {
                        self.written.push(ty.clone());
                    }
                    *ty = aliased;
                    // An alias of aliases.
                    self.depth += 1;
                    self.visit_type_mut(ty);
                    self.depth -= 1;
                    return;
                }
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }

    /// `State::default()`, `Real::EPSILON`: the alias as a qualified self type,
    /// `<[f64; 3]>::default()`.
    fn visit_expr_path_mut(&mut self, expr: &mut syn::ExprPath) {
        if expr.qself.is_none() && expr.path.segments.len() >= 2 {
            let first = syn::Path::from(expr.path.segments[0].clone());
            if let Some(mut ty) = self.aliased_type(&first) {
                self.written.push(syn::Type::Path(syn::TypePath {
                    qself: None,
                    path: first,
                }));
                self.visit_type_mut(&mut ty);
                let rest: Vec<&syn::PathSegment> = expr.path.segments.iter().skip(1).collect();
                let attrs = &expr.attrs;
                *expr = match &ty {
                    // `type Real = f64;`: `f64::from(..)`, as written with the float type.
                    syn::Type::Path(path) if path.qself.is_none() => {
                        let path = &path.path;
                        syn::parse_quote!(#(#attrs)* #path::#(#rest)::*)
                    }
                    _ => syn::parse_quote!(#(#attrs)* <#ty>::#(#rest)::*),
                };
                return;
            }
        }
        syn::visit_mut::visit_expr_path_mut(self, expr);
    }

    // Items nested in the body have their own scope.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Generic parameters of an alias replaced by the arguments it is named with.
struct Substitute<'a>(Vec<(&'a syn::Ident, &'a syn::Type)>);

impl VisitMut for Substitute<'_> {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Path(path) = ty {
            if path.qself.is_none() {
                if let Some(ident) = path.path.get_ident() {
                    if let Some((_, argument)) = self.0.iter().find(|(name, _)| *name == ident) {
                        *ty = (*argument).clone();
                        return;
                    }
                }
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// The names a glob import of a module with these items brings: its public items' and its
/// public re-exports' (`None` when it re-exports a glob).
fn public_names(items: &[syn::Item]) -> Option<Vec<String>> {
    let public = |vis: &syn::Visibility| !matches!(vis, syn::Visibility::Inherited);
    let mut names = Vec::new();
    for item in items {
        let ident = match item {
            syn::Item::Const(item) if public(&item.vis) => &item.ident,
            syn::Item::Static(item) if public(&item.vis) => &item.ident,
            syn::Item::Fn(item) if public(&item.vis) => &item.sig.ident,
            syn::Item::Struct(item) if public(&item.vis) => &item.ident,
            syn::Item::Enum(item) if public(&item.vis) => &item.ident,
            syn::Item::Union(item) if public(&item.vis) => &item.ident,
            syn::Item::Type(item) if public(&item.vis) => &item.ident,
            syn::Item::Trait(item) if public(&item.vis) => &item.ident,
            syn::Item::Mod(item) if public(&item.vis) => &item.ident,
            syn::Item::Use(item) if public(&item.vis) => {
                let imported = crate::ast::imported_names(&item.tree)?;
                names.extend(imported.iter().map(ToString::to_string));
                continue;
            }
            // A macro may define items of any name.
            syn::Item::Macro(_) => return None,
            _ => continue,
        };
        names.push(ident.to_string());
    }
    Some(names)
}
