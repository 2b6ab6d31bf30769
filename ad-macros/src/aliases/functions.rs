//! The plain functions of the crate that a body calls, found by the call's path in the
//! definitions [`super::Aliases`] reads.

use std::path::PathBuf;

use super::*;

/// The plain functions a body may call (defined without the crate's attributes), found where
/// the call's path says: the function's file, a module file it declares (`mod stats;` then
/// `stats::mean(x)`, or `use stats::mean;`), or, for a path through the crate's root
/// (`crate::`, `super::`, a glob import of the crate), the one function of that name in the
/// package. A name defined twice where it is looked up, or a path into another crate, finds
/// nothing: the call is then taken for an annotated function's.
#[derive(Clone)]
pub struct Functions {
    pub(super) source: PathBuf,
    pub(super) own: Definitions,
}

impl Functions {
    /// Whether `name` is a type of the user's crate where the function is: defined in its file,
    /// imported from the crate's own modules, or defined in the package and glob-imported from
    /// one of them (a `Vector3` of the user's, not nalgebra's).
    pub fn names_own_type(&self, name: &str) -> bool {
        if self.own.types.contains_key(name) || self.own.aliases.contains_key(name) {
            return true;
        }
        if let Some(path) = self.own.imports.get(name) {
            return path.first().is_some_and(|first| {
                matches!(first.as_str(), "crate" | "super" | "self")
                    || self.own.modules.contains(first)
            });
        }
        self.own.glob_imports && package_definitions().types.contains_key(name)
    }

    /// Whether the free function `path` names (one segment) returns a `Result` wherever the
    /// file defines it.
    pub fn returns_result(&self, path: &[String]) -> bool {
        self.defined_once(path)
            .is_some_and(|name| self.own.result_functions.contains(name))
    }

    /// The one name of `path`, if the file defines one free function of that name.
    fn defined_once<'p>(&self, path: &'p [String]) -> Option<&'p String> {
        let [name] = path else {
            return None;
        };
        let defined = self.own.functions.get(name)?;
        (defined.len() == 1).then_some(name)
    }

    /// Which parameters of the free function `path` names are `&mut`, when the file defines
    /// one function of that name (one segment).
    pub fn mutable_parameters(&self, path: &[String]) -> Option<Vec<bool>> {
        let [name] = path else {
            return None;
        };
        match self.own.mutable_parameters.get(name)?.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// For each parameter of the free function `path` names, the arity of a function pointer
    /// one (`fn(f64, f64) -> f64`), when the file defines one function of that name.
    pub fn pointer_parameters(&self, path: &[String]) -> Option<Vec<Option<usize>>> {
        let name = self.defined_once(path)?;
        match self.own.pointer_parameters.get(name)?.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// Which parameters of the free function `path` names are `Option`s of a float, when the
    /// file defines one function of that name.
    pub fn option_parameters(&self, path: &[String]) -> Option<Vec<bool>> {
        let name = self.defined_once(path)?;
        match self.own.option_parameters.get(name)?.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// Whether the file defines a free function `name` (a function item passed by name).
    pub fn defines_function(&self, name: &str) -> bool {
        self.own.functions.contains_key(name)
    }

    /// Whether the function `path` names is one of the file's with `#[forward]` alone (one
    /// name, defined once).
    pub fn forward_only(&self, path: &[String]) -> bool {
        self.defined_once(path)
            .is_some_and(|name| self.own.forward_only.contains(name))
    }

    /// Whether `a.add(b)` in the file can only be `a + b`: it imports the operator's trait
    /// (`use std::ops::Add;`) and none of its `impl` blocks defines a method of that name.
    pub fn calls_operator_method(&self, method: &str, trait_name: &str) -> bool {
        let imported = self.own.imports.get(trait_name).is_some_and(|module| {
            matches!(module.first().map(String::as_str), Some("std" | "core"))
                && module.get(1).is_some_and(|second| second == "ops")
        });
        imported && !self.own.methods.contains_key(method)
    }

    /// Whether the file defines a free function `name` in the module where it defines the
    /// free function `beside` (in any of them, if it defines several of that name).
    pub fn defines_beside(&self, beside: &str, name: &str) -> bool {
        let modules = &self.own.function_modules;
        let (Some(theirs), Some(ours)) = (modules.get(name), modules.get(beside)) else {
            return false;
        };
        theirs.iter().any(|module| ours.contains(module))
    }

    /// The names a glob import of the inline module `path` brings (`use shifts::*;` in a
    /// body): `path` taken from the file's root, or from any of its modules when only one
    /// module of the file is at that path's end. `None` when that is not certain.
    pub fn glob_names(&self, path: &[String]) -> Option<Vec<String>> {
        let path = match path.first().map(String::as_str) {
            Some("crate") if self.source_is_root() => {
                return self.own.module_items.get(&path[1..])?.clone()
            }
            Some("self") => &path[1..],
            _ => path,
        };
        let mut found = self
            .own
            .module_items
            .iter()
            .filter(|(module, _)| module.ends_with(path));
        match (found.next(), found.next()) {
            (Some((_, names)), None) => names.clone(),
            _ => None,
        }
    }

    fn source_is_root(&self) -> bool {
        self.source
            .file_name()
            .is_some_and(|name| name == "lib.rs" || name == "main.rs")
    }

    /// The plain function `path` names (its segments), if it is certainly one.
    pub fn find(&self, path: &[String]) -> Option<crate::plain_calls::PlainFunction> {
        let (name, modules) = path.split_last()?;
        let is_root = |segment: &String| matches!(segment.as_str(), "crate" | "self" | "super");
        match modules {
            [] if self.own.functions.contains_key(name) => only_plain(&self.own, name),
            [] => match self.own.imports.get(name) {
                Some(_) if self.own.imports_from_elsewhere(name) => None,
                Some(module) => self.in_module(module, name),
                None if self.own.glob_imports => only_plain(&package_definitions(), name),
                None => None,
            },
            [root] if is_root(root) && self.own.functions.contains_key(name) => {
                only_plain(&self.own, name)
            }
            [first, ..] if self.own.imports.contains_key(first) => {
                match self.own.imports_from_elsewhere(first) {
                    true => None,
                    false => only_plain(&package_definitions(), name),
                }
            }
            modules => self.in_module(modules, name),
        }
    }

    fn in_module(
        &self,
        module: &[String],
        name: &str,
    ) -> Option<crate::plain_calls::PlainFunction> {
        let first = module.first()?;
        if self.own.modules.contains(first) {
            // The deepest module file on the path; what follows are modules inline in it.
            let file = (1..=module.len())
                .rev()
                .find_map(|depth| module_file(&self.source, &module[..depth]));
            return match file {
                Some(file) => only_plain(&definitions_in(&file), name),
                // Modules inline in this file (`mod util { pub fn sq(..) }`).
                None => self
                    .own
                    .function_modules
                    .get(name)
                    .is_some_and(|paths| paths.iter().any(|path| path == module))
                    .then(|| only_plain(&self.own, name))
                    .flatten(),
            };
        }
        match first.as_str() {
            // `self::stats::mean`, or `crate::stats::mean` from the crate's root file: a module
            // this file declares; else the one function of that name in the package.
            "crate" | "self" if module.len() > 1 && self.own.modules.contains(&module[1]) => {
                self.in_module(&module[1..], name)
            }
            "crate" | "self" | "super" => only_plain(&package_definitions(), name),
            _ => None,
        }
    }
}

/// The function `name` of `definitions`, if they define exactly one, without the crate's
/// attributes.
fn only_plain(definitions: &Definitions, name: &str) -> Option<crate::plain_calls::PlainFunction> {
    match definitions.functions.get(name)?.as_slice() {
        [Some(function)] => Some(function.clone()),
        _ => None,
    }
}
