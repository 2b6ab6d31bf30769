//! The derivative helpers generated beside the public functions, for functions whose
//! differentiable parameters are floats and slices, `Vec`s and arrays of floats:
//!
//! * `#[forward]`: `f_jacfwd(args..) -> (value, jacobian)`, by the vector forward mode (one
//!   pass per `CHUNK` inputs);
//! * `#[reverse]`: `f_jacrev(args..) -> (value, jacobian)` (one `f_vjp` per output), and on a
//!   float result `f_hessian(args..) -> (value, gradient, hessian)` (the vector forward mode
//!   over the gradient) and `f_hvp(args.., v..) -> (value, H v)` (forward over reverse).
//!
//! The Jacobian has a row per output float and a column per input float, the floats of the
//! differentiable parameters flattened in declared order. Other functions get no helpers.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Ident, Type};

use crate::ast::{container_element, float_of_type, FloatType, Function, Param, ParamKind};
use crate::names;

/// The helpers that go with the public function `kind` (`"jvp"`, `"vjp"`, `"grad"`), whose
/// signature in the declared types is `public`.
pub fn beside(function: &Function, kind: &str, public: &syn::Signature) -> TokenStream {
    if !takes_helpers(function) {
        return TokenStream::new();
    }
    let Some(output) = function
        .output()
        .filter(|ty| floats_of(ty) == Some(function.float))
    else {
        return TokenStream::new();
    };
    // A helper whose name the file gives a function of its own is not generated: the user's
    // stays (argmin defines `rosenbrock_hessian` beside `rosenbrock`).
    let unless_defined = |suffix: &str, helper: &dyn Fn() -> TokenStream| {
        let name = names::suffixed(function, suffix).to_string();
        let beside = function.name().to_string();
        match crate::source_facts::defines_function_beside(&beside, &name) {
            true => TokenStream::new(),
            false => helper(),
        }
    };
    match kind {
        "jvp" => unless_defined("_jacfwd", &|| jacfwd(function, output)),
        "vjp" => unless_defined("_jacrev", &|| jacrev(function, output)),
        "grad" => {
            let hvp = unless_defined("_hvp", &|| hvp(function, public));
            let hessian = unless_defined("_hessian", &|| hessian(function));
            quote!(#hessian #hvp)
        }
        _ => TokenStream::new(),
    }
}

/// A free function (not generic over its float type) whose parameters are floats, containers
/// of floats, data passed by reference or data of a primitive type (which the helpers pass
/// again on every pass).
fn takes_helpers(function: &Function) -> bool {
    !function.is_method
        && function.float_param.is_none()
        && function
            .params
            .iter()
            .any(|param| param.kind == ParamKind::Differentiated)
        && function.item.sig.generics.params.is_empty()
        && !function
            .params
            .iter()
            .any(|param| crate::ast::is_function_type(&param.ty))
        && function.params.iter().all(|param| match param.kind {
            ParamKind::Differentiated => {
                param.user_type.is_none()
                    && !param.is_mut_reference()
                    && floats_of(&param.ty) == Some(function.float)
            }
            // Passed as constants on every pass, nested as deep as they are (`#[no_grad]
            // rows: &[[f64; 2]]`).
            ParamKind::Constant => {
                param.user_type.is_none()
                    && !param.is_mut_reference()
                    && nested_floats_of(&param.ty) == Some(function.float)
            }
            ParamKind::Data => is_passed_again(&param.ty),
        })
}

/// The float type of `f64`, or of a slice, `Vec` or array of them (behind a shared reference
/// or not).
pub(super) fn floats_of(ty: &Type) -> Option<FloatType> {
    float_of_type(ty).or_else(|| container_element(ty).and_then(float_of_type))
}

/// A free function generic over its float type `float` whose differentiable parameters and
/// result are `float`s or slices, `Vec`s and arrays of them, and whose data is passed again:
/// `f_jacfwd` runs it at `DualChunk<float>` (`forward::generic::jacfwd`).
pub(super) fn takes_generic_jacfwd(function: &Function, float: &Ident) -> bool {
    let of_float = |ty: &Type| {
        let is_float = |ty: &Type| matches!(ty, Type::Path(path) if path.qself.is_none() && path.path.is_ident(float));
        is_float(ty) || container_element(ty).is_some_and(is_float)
    };
    !function.is_method
        && function
            .params
            .iter()
            .any(|param| param.kind == ParamKind::Differentiated)
        && function.output().is_some_and(of_float)
        && function.params.iter().all(|param| match param.kind {
            ParamKind::Differentiated | ParamKind::Constant => {
                param.user_type.is_none() && !param.is_mut_reference() && of_float(&param.ty)
            }
            ParamKind::Data => {
                is_passed_again(&param.ty) && !crate::ast::is_function_type(&param.ty)
            }
        })
}

/// The float type of a float or of containers of them nested as deep as they are.
fn nested_floats_of(ty: &Type) -> Option<FloatType> {
    float_of_type(ty).or_else(|| container_element(ty).and_then(nested_floats_of))
}

pub(super) fn is_passed_again(ty: &Type) -> bool {
    const PRIMITIVES: &[&str] = &[
        "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128",
        "bool", "char", "f32", "f64",
    ];
    match ty {
        Type::Reference(reference) => reference.mutability.is_none(),
        Type::Path(path) => path
            .path
            .get_ident()
            .is_some_and(|ident| PRIMITIVES.iter().any(|primitive| ident == primitive)),
        Type::Paren(inner) => is_passed_again(&inner.elem),
        _ => false,
    }
}

fn runtime() -> TokenStream {
    quote!(::ad_runtime::__private::jacobian)
}

/// The parameters as the helper declares them: as written, without `mut`.
fn params(function: &Function) -> Vec<TokenStream> {
    function
        .params
        .iter()
        .map(|param| {
            let name = &param.name;
            let ty = &param.ty;
            quote!(#name: #ty)
        })
        .collect()
}

/// The passes of the vector forward mode: the differentiable arguments made over
/// `DualVec<float, __AD_CHUNK>` once, then seeded in place before each pass, which runs
/// `call(arguments)` and hands its result to `driver` (`forward_jacobian` or `hessian` of the
/// runtime's `jacobian` module). An expression.
pub(super) fn vector_forward_passes(
    function: &Function,
    float: &TokenStream,
    driver: TokenStream,
    call: impl FnOnce(&[TokenStream]) -> TokenStream,
) -> TokenStream {
    let runtime = runtime();
    let directions = quote!(#runtime::Directions::<#float>);
    let mut before = Vec::new();
    let mut each_pass = Vec::new();
    let arguments: Vec<TokenStream> = function
        .params
        .iter()
        .map(|param| {
            let name = &param.name;
            let seeded = names::derived("__ad_seeded_", name);
            match param.kind {
                ParamKind::Data => return quote!(#name),
                ParamKind::Differentiated => {
                    before.push(quote! {
                        let mut #seeded = #directions::constant::<__AD_CHUNK>(&#name);
                    });
                    each_pass.push(quote! {
                        #directions::reseed::<__AD_CHUNK>(&#name, &mut #seeded, __ad_start, &mut __ad_offset);
                    });
                }
                ParamKind::Constant => before.push(quote! {
                    let #seeded = #directions::constant::<__AD_CHUNK>(&#name);
                }),
            }
            // Every pass gets the seeded argument again: lent, or a copy of it.
            if param.is_reference() {
                quote!(&#seeded)
            } else {
                quote!(::core::clone::Clone::clone(&#seeded))
            }
        })
        .collect();
    let inputs = input_count_over(function, float);
    let call = call(&arguments);
    quote! {{
        const __AD_CHUNK: usize = #runtime::CHUNK;
        let __ad_inputs = #inputs;
        #(#before)*
        #driver::<#float, __AD_CHUNK, _>(__ad_inputs, |__ad_start: usize| {
            let mut __ad_offset = 0usize;
            #(#each_pass)*
            let _ = __ad_offset;
            #call
        })
    }}
}

fn reference_if(param: &Param, value: &Ident) -> TokenStream {
    if param.is_reference() {
        quote!(&#value)
    } else {
        quote!(#value)
    }
}

/// How many input floats there are, over the float type `float`: those of the differentiable
/// parameters.
pub(super) fn input_count_over(function: &Function, float: &TokenStream) -> TokenStream {
    let runtime = runtime();
    let counts = function
        .params
        .iter()
        .filter(|param| param.kind == ParamKind::Differentiated)
        .map(|param| {
            let name = &param.name;
            quote!(#runtime::Directions::<#float>::count(&#name))
        });
    quote!(0 #(+ #counts)*)
}

fn attributes(function: &Function, doc: String) -> TokenStream {
    let cfgs = super::forward::cfg_attrs(function);
    quote! {
        #(#cfgs)*
        #[doc = #doc]
        // Codegen only where called: most functions' helpers never are.
        #[inline]
        #[allow(dead_code, unused_mut, unused_variables, clippy::too_many_arguments, clippy::type_complexity)]
    }
}

fn jacfwd(function: &Function, output: &Type) -> TokenStream {
    let name = function.name();
    let span = name.span();
    let vis = &function.item.vis;
    let helper = names::suffixed(function, "_jacfwd");
    let runtime = runtime();
    let float = function.float.ident(span);
    let companion = names::companion_path(function, names::FORWARD_COMPANION);
    let passes = vector_forward_passes(
        function,
        &quote!(#float),
        quote!(#runtime::forward_jacobian),
        |arguments| quote!(#companion::<::ad_runtime::DualVec<#float, __AD_CHUNK>>(#(#arguments),*)),
    );
    let params = params(function);
    let attributes = attributes(
        function,
        format!(
            " Jacobian of [`{name}`] by forward mode, generated by `#[forward]`: the value, and \
             one row per float of the result, one column per float of the differentiable \
             parameters in declared order. Each pass computes {} columns at once.",
            "`ad_runtime::__private::jacobian::CHUNK`"
        ),
    );
    quote! {
        #attributes
        #vis fn #helper(#(#params),*) -> (#output, ::std::vec::Vec<::std::vec::Vec<#float>>) {
            #passes
        }
    }
}

/// The arguments of a call to the function again (a by-value container cloned: it is passed
/// once per row).
fn arguments_again(function: &Function) -> Vec<TokenStream> {
    function
        .params
        .iter()
        .map(|param| {
            let name = &param.name;
            if param.kind != ParamKind::Data && !param.is_reference() && !param.is_scalar() {
                quote!(::core::clone::Clone::clone(&#name))
            } else {
                quote!(#name)
            }
        })
        .collect()
}

fn jacrev(function: &Function, output: &Type) -> TokenStream {
    let name = function.name();
    let span = name.span();
    let vis = &function.item.vis;
    let helper = names::suffixed(function, "_jacrev");
    let runtime = runtime();
    let float = function.float.ident(span);
    let vjp = names::vjp(function);
    let arguments = arguments_again(function);
    let params = params(function);
    let attributes = attributes(
        function,
        format!(
            " Jacobian of [`{name}`] by reverse mode, generated by `#[reverse]`: the value, and \
             one row per float of the result (one `{vjp}` each), one column per float of the \
             differentiable parameters in declared order."
        ),
    );
    quote! {
        #attributes
        #vis fn #helper(#(#params),*) -> (#output, ::std::vec::Vec<::std::vec::Vec<#float>>) {
            let __ad_value = #name(#(#arguments),*);
            #runtime::reverse_jacobian::<#float, _, _>(__ad_value, |__ad_cotangent| {
                #vjp(#(#arguments,)* __ad_cotangent).1
            })
        }
    }
}

fn hessian(function: &Function) -> TokenStream {
    let name = function.name();
    let span = name.span();
    let vis = &function.item.vis;
    let helper = names::suffixed(function, "_hessian");
    let runtime = runtime();
    let float = function.float.ident(span);
    let grad = names::generic_public_path(function, "grad");
    let passes = vector_forward_passes(
        function,
        &quote!(#float),
        quote!(#runtime::hessian),
        |arguments| quote!(#grad::<::ad_runtime::DualVec<#float, __AD_CHUNK>>(#(#arguments),*)),
    );
    let params = params(function);
    let attributes = attributes(
        function,
        format!(
            " Hessian of [`{name}`], generated by `#[reverse]`: the value, the gradient and the \
             Hessian (a row and a column per float of the differentiable parameters in \
             declared order), by the vector forward mode over the gradient."
        ),
    );
    quote! {
        #attributes
        #vis fn #helper(#(#params),*) -> (#float, ::std::vec::Vec<#float>, ::std::vec::Vec<::std::vec::Vec<#float>>) {
            #passes
        }
    }
}

/// `f_hvp(args.., v..)`: forward over reverse, the gradient at `args + ε v`.
fn hvp(function: &Function, grad: &syn::Signature) -> TokenStream {
    let name = function.name();
    let span = name.span();
    let vis = &function.item.vis;
    let helper = names::suffixed(function, "_hvp");
    let float = function.float.ident(span);
    let syn::ReturnType::Type(_, grad_output) = &grad.output else {
        return TokenStream::new();
    };
    let Type::Tuple(grad_output) = &**grad_output else {
        return TokenStream::new();
    };
    let Some(adjoints) = grad_output.elems.iter().nth(1) else {
        return TokenStream::new();
    };
    let directions = names::tangents(function);
    let mut direction_iter = directions.iter();
    let mut direction_params = Vec::new();
    let mut lets = Vec::new();
    let arguments: Vec<TokenStream> = function
        .params
        .iter()
        .map(|param| {
            let name = &param.name;
            let ty = &param.ty;
            let seeded = names::derived("__ad_seeded_", name);
            match param.kind {
                ParamKind::Data => return quote!(#name),
                ParamKind::Differentiated => {
                    let direction = direction_iter
                        .next()
                        .expect("one direction per differentiated parameter");
                    direction_params.push(quote!(#direction: #ty));
                    lets.push(quote! {
                        let #seeded = ::ad_runtime::__private::Seed::seed(#name, #direction);
                    });
                }
                ParamKind::Constant => lets.push(quote! {
                    let #seeded = ::ad_runtime::__private::Seed::constant(#name);
                }),
            }
            reference_if(param, &seeded)
        })
        .collect();
    let grad_path = names::generic_public_path(function, "grad");
    let params = params(function);
    let direction_names: Vec<String> = directions.iter().map(|d| d.to_string()).collect();
    let attributes = attributes(
        function,
        format!(
            " Hessian-vector product of [`{name}`], generated by `#[reverse]`: the value, and \
             the Hessian times the direction ({}) shaped as the gradient, by forward mode over \
             the gradient (one pass).",
            direction_names.join(", ")
        ),
    );
    quote! {
        #attributes
        #vis fn #helper(#(#params,)* #(#direction_params),*) -> (#float, #adjoints) {
            #(#lets)*
            let (__ad_value, __ad_adjoints) =
                #grad_path::<::ad_runtime::Dual<#float>>(#(#arguments),*);
            (
                __ad_value.value,
                ::ad_runtime::__private::DualParts::split(__ad_adjoints).1,
            )
        }
    }
}
