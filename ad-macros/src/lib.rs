//! The attribute macros of `ad-runtime`. Depend on `ad-runtime`, not on this crate: the
//! generated code names the runtime by absolute paths.
//!
//! The pipeline, one module per stage:
//!
//! * `ast`: the function model (parameters classified, float type), from syn;
//! * `generics`: functions generic over their float type (forward mode runs them as written at
//!   the dual type): the type parameter, the parameters sorted by it, what is refused;
//! * `const_generics`: `const` parameters, lifetimes and closure type parameters, taken off
//!   before the expansion and given back to every generated function;
//! * `valid`: every unsupported construct in the body, as spanned errors;
//! * `activity`: which locals may hold floats (decides how calls are made);
//! * `retype`: the body rewritten over a generic scalar type;
//! * `user_types`: `#[grad]` parameters' types, held as their twins in derivative code
//!   (`derive` generates the twins);
//! * `expand`: the generated functions, one module per mode (`forward`, with `generic` for
//!   generic functions; `reverse`, which also does `#[checkpoint]`);
//! * `fallback`: on error, the function as written plus stubs of the generated names.

mod activity;
mod aliases;
mod ast;
mod attr;
mod by_path;
mod const_generics;
mod ctxt;
mod custom_rules;
mod derive;
mod expand;
mod fallback;
mod generics;
mod impls;
mod input;
mod ir;
mod left_operators;
mod macros;
mod names;
mod plain_calls;
mod retype;
mod rules;
mod source_facts;
mod twins;
mod user_macros;
mod user_types;
mod valid;

use proc_macro::TokenStream;

/// Forward mode: keeps the function and adds `<name>_jvp`.
///
/// For `fn f(a: f64, n: usize, b: f64) -> R` it generates
/// `f_jvp(a, n, b, da, db) -> (R, dR)`: the primal arguments, then one tangent per float
/// parameter; it returns the value and its tangent, in the declared types. Its version generic
/// over the scalar type, `f::jvp`, takes dual numbers too (nested derivatives); a call to `f_jvp`
/// inside another annotated function goes to it.
///
/// A `&mut` parameter (`dydt: &mut [f64]`) is in and out: `f_jvp` takes its tangent as
/// `&mut` too, holding the tangent of the initial contents on entry and of the final contents
/// on return. A function that returns nothing has an `f_jvp` that returns nothing.
///
/// A function generic over its float type (`fn f<T: Float>(x: &[T]) -> T`, with
/// `num_traits::Float`) is taken as written: `f_jvp` runs `f::<Dual<T>>`, with the function's
/// bounds required of `Dual<T>`.
///
/// See the `ad-runtime` crate for examples.
#[proc_macro_attribute]
pub fn forward(args: TokenStream, item: TokenStream) -> TokenStream {
    guarded(
        "forward",
        args.into(),
        item.into(),
        driver::forward,
        source_file(),
    )
    .into()
}

/// Reverse mode: keeps the function and adds `<name>_vjp` and `<name>_grad`.
///
/// For `fn f(a: f64, n: usize, b: f64) -> f64` it generates
/// `f_vjp(a, n, b, d_out) -> (f64, (da, db))` (the value and the adjoints of the float
/// parameters for the cotangent `d_out`; a bare adjoint when there is one float parameter) and
/// `f_grad(a, n, b)`, which is `f_vjp` with `d_out = 1`, in the declared types. Their versions
/// generic over the scalar type are `f::vjp` and `f::grad`.
///
/// See the `ad-runtime` crate for examples.
#[proc_macro_attribute]
pub fn reverse(args: TokenStream, item: TokenStream) -> TokenStream {
    guarded(
        "reverse",
        args.into(),
        item.into(),
        driver::reverse,
        source_file(),
    )
    .into()
}

/// Checkpointing. On a function: differentiable like `#[reverse]` (same generated functions),
/// and every call to it from reverse-mode code is checkpointed: the call runs primal-only,
/// keeping its arguments, and runs again, recording, when the backward sweep reaches it.
///
/// Inside a `#[reverse]` function, on a `let`, a call, a block or a loop, it checkpoints that
/// region; on a loop it takes a schedule: `#[checkpoint(every = k)]` or
/// `#[checkpoint(binomial, snapshots = s)]`. The `#[reverse]` macro removes these inner
/// attributes, so this is stable Rust.
///
/// See the `ad-runtime` crate (module `checkpoint`) for the schedules.
#[proc_macro_attribute]
pub fn checkpoint(args: TokenStream, item: TokenStream) -> TokenStream {
    guarded(
        "checkpoint",
        args.into(),
        item.into(),
        driver::checkpoint,
        source_file(),
    )
    .into()
}

/// A derivative the user gives: `#[rule(derivative = df)]` on a function of one float, or
/// `#[rule(partials = [df_da, df_db])]` on a function of several (each partial takes all the
/// parameters). The function stays as written; both modes call it through the rule, and it
/// gets `f_jvp`, `f_vjp` and `f_grad` as an annotated function does.
///
/// See `ad_runtime::custom_rule` for an example.
#[proc_macro_attribute]
pub fn rule(args: TokenStream, item: TokenStream) -> TokenStream {
    guarded(
        "rule",
        args.into(),
        item.into(),
        custom_rules::expand,
        source_file(),
    )
    .into()
}

/// `#[derive(Differentiable)]`: makes a struct or enum with float fields differentiable (see
/// `ad_runtime::Differentiable`). Fields marked `#[no_grad]` are data.
#[proc_macro_derive(Differentiable, attributes(no_grad))]
pub fn derive_differentiable(item: TokenStream) -> TokenStream {
    match syn::parse::<syn::DeriveInput>(item) {
        Ok(input) => derive::expand(input).into(),
        Err(error) => error.to_compile_error().into(),
    }
}

/// Runs a macro; should it panic (a bug of ours), the function is emitted as written with one
/// error at its signature instead of rustc's "custom attribute panicked", so the user's crate
/// still parses and the message says what happened.
/// The file the macro is invoked in, where the type aliases it may name are looked up.
fn source_file() -> Option<std::path::PathBuf> {
    proc_macro::Span::call_site().local_file()
}

fn guarded(
    macro_name: &str,
    args: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
    expand: fn(proc_macro2::TokenStream, proc_macro2::TokenStream) -> proc_macro2::TokenStream,
    source: Option<std::path::PathBuf>,
) -> proc_macro2::TokenStream {
    let original = item.clone();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        input::with_item(&item.clone(), |function| {
            expand_item(macro_name, args, item, expand, source, function)
        })
    })) {
        Ok(tokens) => tokens,
        Err(payload) => {
            let reason = payload
                .downcast_ref::<&str>()
                .map(|text| text.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let span = syn::parse2::<syn::ItemFn>(original.clone())
                .map(|item| item.sig.ident.span())
                .unwrap_or_else(|_| proc_macro2::Span::call_site());
            let message = format!(
                "internal error of the macro #[{macro_name}] on this function (please report it, \
                 with the function): {reason}"
            );
            let error = syn::Error::new(span, message).to_compile_error();
            quote::quote!(#error #original)
        }
    }
}

/// One item's expansion by `expand`, once the source file is known; `function` is the item
/// parsed as a function, if it is one.
fn expand_item(
    macro_name: &str,
    args: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
    expand: fn(proc_macro2::TokenStream, proc_macro2::TokenStream) -> proc_macro2::TokenStream,
    source: Option<std::path::PathBuf>,
    function: Option<&syn::ItemFn>,
) -> proc_macro2::TokenStream {
    let aliases = aliases::Aliases::for_source(source);
    if let Some(error) = underived_result(function, aliases.as_ref()) {
        let item = match function.cloned() {
            Some(mut function) => {
                attr::strip_parameter_markers(&mut function);
                quote::ToTokens::into_token_stream(function)
            }
            None => item,
        };
        return quote::quote!(#error #item);
    }
    let derived = aliases
        .as_ref()
        .map(aliases::Aliases::derived_types)
        .unwrap_or_default();
    // A method whose attribute is on it, not on its `impl` block: the block's type and
    // parameters, when the file says which it is.
    let (impl_type, impl_generics) = function
        .and_then(|function| aliases.as_ref()?.impl_type_of_method(function))
        .map_or((None, Vec::new()), |(ty, generics)| (Some(ty), generics));
    let facts = source_facts::SourceFacts {
        derived: derived.clone(),
        derived_fields: aliases
            .as_ref()
            .map(aliases::Aliases::derived_fields)
            .unwrap_or_default(),
        element_fields: aliases
            .as_ref()
            .map(aliases::Aliases::element_fields)
            .unwrap_or_default(),
        linalg_fields: aliases
            .as_ref()
            .map(aliases::Aliases::linalg_fields)
            .unwrap_or_default(),
        boxed_fields: aliases
            .as_ref()
            .map(aliases::Aliases::boxed_fields)
            .unwrap_or_default(),
        underived: aliases
            .as_ref()
            .map(aliases::Aliases::underived_types)
            .unwrap_or_default(),
        floatless: aliases
            .as_ref()
            .map(aliases::Aliases::floatless_types)
            .unwrap_or_default(),
        derived_once: aliases
            .as_ref()
            .map(aliases::Aliases::derived_types_once)
            .unwrap_or_default(),
        constructors: aliases
            .as_ref()
            .map(aliases::Aliases::constructors)
            .unwrap_or_default(),
        named_results: aliases
            .as_ref()
            .map(aliases::Aliases::named_results)
            .unwrap_or_default(),
        unmarked_functions: aliases
            .as_ref()
            .map(aliases::Aliases::unmarked_functions)
            .unwrap_or_default(),
        left_operators: aliases
            .as_ref()
            .map(aliases::Aliases::left_operators)
            .unwrap_or_default(),
        differentiated_methods: aliases
            .as_ref()
            .map(aliases::Aliases::differentiated_methods)
            .unwrap_or_default(),
        marked_functions: aliases
            .as_ref()
            .map(aliases::Aliases::marked_functions)
            .unwrap_or_default(),
        impl_type,
        impl_generics,
        functions: aliases.as_ref().map(aliases::Aliases::functions),
        macros: aliases
            .as_ref()
            .map(aliases::Aliases::macro_definitions)
            .unwrap_or_default(),
    };
    let (item, spelled) = aliases::expand(item, aliases);
    let expanded =
        source_facts::with_facts(facts, || match syn::parse2::<syn::ItemImpl>(item.clone()) {
            Ok(block) => impls::expand(macro_name, args, block, expand, &derived),
            Err(_) => const_generics::expand(macro_name, args, item, expand),
        });
    aliases::mark_used(expanded, &spelled)
}

/// A result of a type the function's file defines without `#[derive(Differentiable)]`
/// (`fn make(k: f64) -> Vec3`): one message at the result type, instead of rustc's at each
/// place the derivative code names the type's twin.
fn underived_result(
    function: Option<&syn::ItemFn>,
    aliases: Option<&aliases::Aliases>,
) -> Option<proc_macro2::TokenStream> {
    let aliases = aliases?;
    let syn::ReturnType::Type(_, ty) = &function?.sig.output else {
        return None;
    };
    let ty = Some(&**ty).filter(|ty| {
        ast::derived_type_path(ty)
            .and_then(|path| path.get_ident().map(|ident| ident.to_string()))
            .is_some_and(|name| aliases.defines_underived(&name))
    })?;
    let name = quote::ToTokens::to_token_stream(ty).to_string();
    let message = format!(
        "`{name}` does not derive `Differentiable`, so a result of it has no derivative: add \
         `#[derive(ad_runtime::Differentiable)]` to its definition (or return its floats)"
    );
    Some(syn::Error::new_spanned(ty, message).to_compile_error())
}

mod driver {
    use proc_macro2::TokenStream;
    use quote::quote;

    use crate::ast::Function;
    use crate::ctxt::Ctxt;
    use crate::expand::closure_params;
    use crate::expand::forward::{self, Bodies};
    use crate::expand::reverse::{self, Calls};
    use crate::{attr, fallback, generics, valid};

    fn parse(
        cx: &Ctxt,
        macro_name: &str,
        args: TokenStream,
        item: TokenStream,
    ) -> Result<Function, TokenStream> {
        attr::expect_no_arguments(cx, macro_name, args);
        match crate::input::item_fn(&item) {
            Ok(item_fn) => {
                let function = Function::from_written(cx, item_fn, macro_name);
                // A generic function's body is not rewritten: rustc checks it as written.
                if !generics::has_generics(&function.item) {
                    valid::check_body(cx, &function);
                }
                Ok(function)
            }
            Err(_)
                if macro_name == "checkpoint" && syn::parse2::<syn::Stmt>(item.clone()).is_ok() =>
            {
                cx.error_spanned_by(
                    &item,
                    "#[checkpoint] on a statement works inside a #[reverse] function: add \
                     #[reverse] to the function around it",
                );
                Err(item)
            }
            Err(_) => {
                cx.error_spanned_by(
                    &item,
                    format!("#[{macro_name}] applies to a function; put it on a `fn` item"),
                );
                Err(item)
            }
        }
    }

    /// The other differentiation attribute still on the item, if any: when both are stacked,
    /// the inner one emits the function, the hidden struct and the companions, and the outer
    /// one only its public functions.
    fn inner_attribute(item: &TokenStream) -> Option<String> {
        let item_fn = crate::input::item_fn(item).ok()?;
        item_fn.attrs.iter().find_map(attr::our_macro)
    }

    fn without_checkpoints(item: TokenStream) -> TokenStream {
        match crate::input::item_fn(&item) {
            Ok(mut item_fn) => {
                attr::strip_checkpoints(&mut item_fn.block);
                quote::ToTokens::into_token_stream(item_fn)
            }
            Err(_) => item,
        }
    }

    pub fn forward(args: TokenStream, item: TokenStream) -> TokenStream {
        let cx = Ctxt::new();
        let inner = inner_attribute(&item);
        let original = item.clone();
        let function = match parse(&cx, "forward", args, item) {
            Ok(function) => function,
            Err(item) => {
                let errors = cx.into_compile_errors();
                return quote!(#errors #item);
            }
        };
        if inner.as_deref() == Some("forward") {
            cx.error_spanned_by(
                function.name(),
                "#[forward] is written twice on this function",
            );
            let errors = cx.into_compile_errors();
            return quote!(#errors #original);
        }
        let reverse_inside = matches!(inner.as_deref(), Some("reverse" | "checkpoint"));
        if !reverse_inside {
            if let Some(checkpoint) = attr::find_checkpoint(&function.body) {
                cx.error_spanned_by(
                    checkpoint,
                    "#[checkpoint] applies inside #[reverse] functions (it trades memory of the \
                     backward sweep for recomputation); remove it, or add #[reverse]",
                );
            }
        }
        if reverse_inside {
            // A generic function refused as a whole has no hidden struct to hang `jvp` on (as
            // in `fallback::forward`): the errors and the function.
            if (generics::has_generics(&function.item) && function.float_param.is_none())
                || fallback::floatless(&function)
            {
                let errors = cx.into_compile_errors();
                return quote!(#errors #original);
            }
            let jvp = forward::jvp(&function, Bodies::Derivative);
            let errors = cx.into_compile_errors();
            return quote!(#errors #original #jvp);
        }
        if cx.has_errors() {
            return fallback::forward(&function, cx);
        }
        forward::expand(&function, Bodies::Derivative)
    }

    pub fn reverse(args: TokenStream, item: TokenStream) -> TokenStream {
        reverse_mode("reverse", Calls::Recorded, args, item)
    }

    pub fn checkpoint(args: TokenStream, item: TokenStream) -> TokenStream {
        reverse_mode("checkpoint", Calls::Checkpointed, args, item)
    }

    /// A function generic over its float type, in reverse mode: its instance over `f64`
    /// (`generics::reverse_instance`) differentiated by the IR engine, the function emitted as
    /// written. `None` where that is not taken (the refusal then says what to do).
    fn reverse_generic(
        function: &Function,
        written: &TokenStream,
        calls: Calls,
        forward_inside: bool,
    ) -> Option<TokenStream> {
        if calls != Calls::Recorded {
            return None;
        }
        // As written, with its `#[no_grad]`s (which `function.item` no longer has).
        let written_tokens = written;
        let written: syn::ItemFn = crate::input::item_fn(written).ok()?;
        let instance = generics::reverse_instance(&written)?;
        let cx = Ctxt::new();
        let mut instance = Function::from_item(&cx, instance, "reverse");
        // A parameter not naming the float type is data, `f64` included, as forward mode has
        // it.
        let generic = Function::from_item(&Ctxt::new(), written, "forward");
        for (param, original) in instance.params.iter_mut().zip(&generic.params) {
            if original.kind == crate::ast::ParamKind::Data {
                param.kind = crate::ast::ParamKind::Data;
            }
        }
        valid::check_body(&cx, &instance);
        valid::check_reverse_signature(&cx, &instance);
        if cx.has_errors() {
            drop(cx.into_compile_errors());
            return None;
        }
        if let Err(not_yet) = crate::expand::reverse_ir::companion_body(&instance, false) {
            let cx = Ctxt::new();
            cx.error_spanned_by(
                quote::quote_spanned!(not_yet.span=> span),
                format!(
                    "reverse mode takes a function generic over its float type at `f64`, through \
                     its engine on the AD-IR, which does not take {} yet; write this function \
                     over `f64`, or differentiate it with #[forward]",
                    not_yet.what
                ),
            );
            return Some(fallback::reverse_generic(
                function,
                cx,
                calls,
                forward_inside,
            ));
        }
        if forward_inside {
            // #[forward] below emits the function (still carrying it) and the struct.
            let stacked = reverse::expand_stacked(&cx, &instance, calls);
            let original = without_checkpoints(written_tokens.clone());
            return Some(quote!(#original #stacked));
        }
        // The instance's expansion, with the function as written in place of the instance.
        let expanded = reverse::expand(&cx, &instance, Bodies::Derivative, calls);
        let mut file: syn::File = syn::parse2(expanded).ok()?;
        let name = function.name();
        let at = file
            .items
            .iter()
            .position(|item| matches!(item, syn::Item::Fn(item) if item.sig.ident == *name))?;
        file.items[at] = syn::Item::Fn(function.item.clone());
        // `let _ = f;`, which marks the function used, cannot name a generic one.
        struct MarksUse<'a>(&'a syn::Ident);
        impl syn::visit_mut::VisitMut for MarksUse<'_> {
            fn visit_block_mut(&mut self, block: &mut syn::Block) {
                block
                    .stmts
                    .retain(|stmt| !generics::marks_use_of(stmt, self.0));
                syn::visit_mut::visit_block_mut(self, block);
            }
        }
        syn::visit_mut::VisitMut::visit_file_mut(&mut MarksUse(name), &mut file);
        Some(quote::ToTokens::into_token_stream(file))
    }

    /// `#[reverse]` on a function taking a closure: its forward companion, and `_vjp` and
    /// `_grad` by the vector forward mode through it (`expand::closure_params`).
    fn reverse_by_forward(
        cx: Ctxt,
        function: &Function,
        forward_inside: bool,
        original: TokenStream,
    ) -> TokenStream {
        if let Some((at, what)) = closure_params::refusal(function) {
            cx.error_spanned_by(
                at,
                format!(
                    "#[reverse] on a function taking a closure computes its `_vjp` and `_grad` \
                     through its forward code, and does not take {what} yet: annotate this \
                     function with #[forward] alone (reverse-mode code calling it \
                     differentiates through its forward code)"
                ),
            );
        }
        if cx.has_errors() {
            if forward_inside {
                let errors = cx.into_compile_errors();
                let original = without_checkpoints(original);
                return quote!(#errors #original);
            }
            return fallback::reverse(function, cx);
        }
        let public = closure_params::public_functions(function);
        if forward_inside {
            // #[forward] below emits the function, the struct and the forward companion.
            let original = without_checkpoints(original);
            return quote!(#original #public);
        }
        let item = function.emitted_item();
        let companion = forward::companion(function, Bodies::Derivative);
        quote!(#item #companion #public)
    }

    fn reverse_mode(
        macro_name: &str,
        calls: Calls,
        args: TokenStream,
        item: TokenStream,
    ) -> TokenStream {
        let cx = Ctxt::new();
        let inner = inner_attribute(&item);
        let original = item.clone();
        if calls == Calls::Checkpointed && !args.is_empty() {
            cx.error_spanned_by(
                &args,
                "on a function, write `#[checkpoint]`; schedules (`every`, `binomial`) apply to \
                 loops inside #[reverse] functions",
            );
        }
        let args = if calls == Calls::Checkpointed {
            TokenStream::new()
        } else {
            args
        };
        let function = match parse(&cx, macro_name, args, item) {
            Ok(function) => function,
            Err(item) => {
                let errors = cx.into_compile_errors();
                return quote!(#errors #item);
            }
        };
        if generics::has_generics(&function.item) {
            let forward_inside = inner.as_deref() == Some("forward");
            if let Some(expanded) = reverse_generic(&function, &original, calls, forward_inside) {
                return expanded;
            }
            // Refused in `Function::from_item`, with one message whatever else is stacked.
            return fallback::reverse_generic(&function, cx, calls, forward_inside);
        }
        if calls == Calls::Recorded && closure_params::takes_a_closure(&function) {
            let forward_inside = inner.as_deref() == Some("forward");
            return reverse_by_forward(cx, &function, forward_inside, original);
        }
        // The forward companion is real if nothing but the `&mut` parameters is refused.
        let forward_is_clean = !cx.has_errors();
        let refused_mut = valid::refuse_mut_params(&cx, &function, macro_name, calls);
        // A refused parameter is data to the stubs: one message, not one per adjoint type.
        let mut function = function;
        for refused in valid::check_reverse_signature(&cx, &function) {
            function.params[refused].kind = crate::ast::ParamKind::Data;
        }
        valid::refuse_user_containers(&cx, &function, macro_name);
        if calls == Calls::Checkpointed {
            for param in &function.params {
                if param.user_type.is_some() && param.is_reference() && !param.receiver {
                    cx.error_spanned_by(
                        &param.ty,
                        "a #[checkpoint] function keeps copies of its arguments, which must \
                         borrow nothing: take this #[grad] parameter by value (its type \
                         `Copy`), or use #[reverse]",
                    );
                }
            }
        }
        if calls == Calls::Checkpointed && function.is_method {
            cx.error_spanned_by(
                function.name(),
                "#[checkpoint] on a method is not supported yet; write #[reverse] on it and \
                 checkpoint the region that calls it (`#[checkpoint] let y = p.f(x);`)",
            );
        }
        if matches!(inner.as_deref(), Some("reverse" | "checkpoint")) {
            cx.error_spanned_by(
                function.name(),
                "#[reverse] and #[checkpoint] each make the function differentiable in reverse \
                 mode; write one of them",
            );
            let errors = cx.into_compile_errors();
            return quote!(#errors #original);
        }
        if refused_mut {
            if inner.as_deref() == Some("forward") {
                // #[forward] below emits the function, the struct and the forward companion.
                let errors = cx.into_compile_errors();
                let original = without_checkpoints(original);
                return quote!(#errors #original);
            }
            return fallback::reverse_mut_params(&function, cx, forward_is_clean, calls);
        }
        if inner.as_deref() == Some("forward") {
            // #[forward] below emits the function, the struct and the forward companion; it
            // gets the function without the inner #[checkpoint]s, which are reverse mode's.
            let generated = reverse::expand_stacked(&cx, &function, calls);
            let errors = cx.into_compile_errors();
            let original = without_checkpoints(original);
            return quote!(#errors #original #generated);
        }
        if cx.has_errors() {
            return fallback::reverse(&function, cx);
        }
        let expanded = reverse::expand(&cx, &function, Bodies::Derivative, calls);
        if cx.has_errors() {
            return fallback::reverse(&function, cx);
        }
        expanded
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    fn panicking_expansion(
        _args: proc_macro2::TokenStream,
        _item: proc_macro2::TokenStream,
    ) -> proc_macro2::TokenStream {
        panic!("a bug of ours")
    }

    #[test]
    fn a_panic_of_the_macro_becomes_one_error_and_the_function_as_written() {
        let item = quote!(
            fn f(x: f64) -> f64 {
                x
            }
        );
        let output = super::guarded("reverse", quote!(), item.clone(), panicking_expansion, None);
        let text = output.to_string();
        assert!(text.starts_with(":: core :: compile_error !"), "{text}");
        assert!(
            text.contains(
                "internal error of the macro #[reverse] on this function (please report it, \
                 with the function): a bug of ours"
            ),
            "{text}"
        );
        assert!(text.ends_with(&item.to_string()), "{text}");
    }
}

#[cfg(test)]
mod ir_coverage;
#[cfg(test)]
mod snapshots;
