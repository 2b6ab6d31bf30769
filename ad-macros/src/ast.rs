//! The function being differentiated, as the later stages see it: its parameters classified
//! as differentiated, constant or data, its float type, and its body. Every part keeps the
//! syn node it came from, so errors and generated code carry the user's spans.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{FnArg, Ident, ItemFn, Pat, ReturnType, Type};

use crate::attr;
use crate::ctxt::Ctxt;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FloatType {
    F64,
    F32,
}

impl FloatType {
    pub fn from_ident(ident: &Ident) -> Option<Self> {
        if ident == "f64" {
            Some(FloatType::F64)
        } else if ident == "f32" {
            Some(FloatType::F32)
        } else {
            None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            FloatType::F64 => "f64",
            FloatType::F32 => "f32",
        }
    }

    pub fn ident(self, span: Span) -> Ident {
        Ident::new(self.name(), span)
    }

    /// The `Scalar` constructor that takes a literal of this type.
    pub fn constructor(self, span: Span) -> Ident {
        Ident::new(
            match self {
                FloatType::F64 => "from_f64",
                FloatType::F32 => "from_f32",
            },
            span,
        )
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ParamKind {
    /// A float parameter: it gets a tangent.
    Differentiated,
    /// A float parameter marked `#[no_grad]`: a constant of the scalar type.
    Constant,
    /// Anything else: integers, bools, other types. Passed through untouched.
    Data,
}

pub struct Param {
    pub name: Ident,
    pub mutability: Option<syn::token::Mut>,
    pub ty: Type,
    pub kind: ParamKind,
    /// For a `#[grad]` parameter, the path of its type (a user type that derives
    /// `Differentiable`), without the reference.
    pub user_type: Option<syn::Path>,
    /// The receiver of a method (`&self`): named `__ad_self` in derivative code.
    pub receiver: bool,
}

impl Param {
    /// A float scalar, as opposed to a slice, `Vec`, array or tuple of floats.
    pub fn is_scalar(&self) -> bool {
        float_of_type(&self.ty).is_some()
    }

    /// `&[f64]`, `Vec<f64>` or `&Vec<f64>`: what reverse mode takes besides scalars.
    pub fn is_flat_vector(&self) -> bool {
        container_element(&self.ty).is_some_and(|inner| float_of_type(inner).is_some())
    }

    /// `&[Vec<f64>]`, `&[[f64; N]]`, `Vec<Vec<f64>>`, ...: a container of flat containers of
    /// floats, which reverse mode reads by `x[i][j]`.
    pub fn is_nested_vector(&self) -> bool {
        let outer = Param {
            name: self.name.clone(),
            mutability: None,
            ty: match container_element(&self.ty) {
                Some(inner) => inner.clone(),
                None => return false,
            },
            kind: self.kind,
            user_type: None,
            receiver: false,
        };
        outer.is_flat_vector()
    }

    /// The length of a tuple of float scalars (`(f64, f64)`), if the parameter is one.
    pub fn scalar_tuple_len(&self) -> Option<usize> {
        match &self.ty {
            Type::Tuple(tuple)
                if !tuple.elems.is_empty()
                    && tuple.elems.iter().all(|elem| float_of_type(elem).is_some()) =>
            {
                Some(tuple.elems.len())
            }
            _ => None,
        }
    }

    /// `N` for an `[f64; N]` or `&[f64; N]` parameter.
    pub fn array_length(&self) -> Option<&syn::Expr> {
        match &self.ty {
            Type::Array(array) => Some(&array.len),
            Type::Reference(reference) => match &*reference.elem {
                Type::Array(array) => Some(&array.len),
                _ => None,
            },
            _ => None,
        }
    }

    /// A `#[grad]` slice, `Vec` or array of a user type (`bodies: &[Body; 5]`): `user_type` is
    /// its element's type, and the parameter is not itself a value of that type.
    pub fn is_user_container(&self) -> bool {
        self.user_type.is_some()
            && !self.receiver
            && container_element_in_or_out(&self.ty).is_some()
    }

    /// Passed by reference (`&[f64]`): derivative code passes a reference to its duals.
    pub fn is_reference(&self) -> bool {
        matches!(self.ty, Type::Reference(_))
    }

    /// Passed by mutable reference (`&mut [f64]`, `&mut f64`): in and out at once.
    pub fn is_mut_reference(&self) -> bool {
        matches!(&self.ty, Type::Reference(reference) if reference.mutability.is_some())
    }

    /// A `&mut` parameter carrying floats: its initial contents are an input, its final
    /// contents an output (its tangent or cotangent is taken as `&mut` too).
    pub fn is_in_out(&self) -> bool {
        self.kind != ParamKind::Data && self.is_mut_reference()
    }
}

pub struct Function {
    /// The function as written, minus our `#[no_grad]` markers, with the crate's own macros
    /// expanded in its body (`user_macros`).
    pub item: ItemFn,
    /// The body before those macros were expanded, if it calls any: what is emitted.
    pub written_block: Option<Box<syn::Block>>,
    /// `const` as written: the function is emitted `const`, its derivative code is not (it
    /// calls the runtime's trait methods, which a `const fn` may not).
    pub constness: Option<syn::token::Const>,
    /// A function generic over its float type and closures, as written: `item` is its
    /// instance over `f64` (`generics::closure_instance`), which the derivatives are made
    /// from, and this is what is emitted.
    pub written_generic: Option<ItemFn>,
    /// A method (`self` parameter): its generated items could not live in an `impl` block.
    pub is_method: bool,
    /// The body as written, with its inner `#[checkpoint]`s (which `item` no longer has: they
    /// are not attributes rustc knows).
    pub body: syn::Block,
    pub params: Vec<Param>,
    pub float: FloatType,
    /// For a function generic over its float type (`fn f<T: Float>(x: &[T]) -> T`, forward
    /// mode only), that type parameter: its derivative code runs the function itself at the
    /// dual type, and `float` means nothing.
    pub float_param: Option<Ident>,
    /// Refused as a whole in a way that leaves no type for stubs of the generated functions to
    /// name (a method of a generic `impl` block): the errors and the function as written.
    pub refused_whole: bool,
}

impl Function {
    /// The body as written, with functions passed by name to function pointer parameters
    /// given as closures (`plain_calls::named_functions_as_closures`): what the derivative code
    /// rewrites. The function as emitted keeps its body as written.
    pub fn block_for_derivatives(&self) -> syn::Block {
        let mut block = (*self.item.block).clone();
        crate::plain_calls::named_functions_as_closures(&mut block);
        block
    }

    /// The function as it is emitted: `item`, its body calling the crate's macros as written
    /// (expanded, they would leave the macros unused to rustc's eyes).
    pub fn emitted_item(&self) -> std::borrow::Cow<'_, ItemFn> {
        if let Some(generic) = &self.written_generic {
            return std::borrow::Cow::Borrowed(generic);
        }
        if self.written_block.is_none() && self.constness.is_none() {
            return std::borrow::Cow::Borrowed(&self.item);
        }
        let mut item = self.item.clone();
        if let Some(written) = &self.written_block {
            item.block = written.clone();
        }
        item.sig.constness = self.constness;
        std::borrow::Cow::Owned(item)
    }

    pub fn name(&self) -> &Ident {
        &self.item.sig.ident
    }

    pub fn output(&self) -> Option<&Type> {
        match &self.item.sig.output {
            ReturnType::Default => None,
            ReturnType::Type(_, ty) => Some(ty),
        }
    }

    /// The result's type when it is a user type (`-> Vec3`, `-> Self`): its floats are its
    /// twin's, and its tangent or cotangent is a value of the type.
    pub fn derived_result(&self) -> Option<syn::Path> {
        self.output().and_then(derived_type_path)
    }

    /// `-> Result<T, E>` with `T` made of floats: `T` and `E`.
    pub fn fallible_output(&self) -> Option<(&Type, &Type)> {
        self.output()
            .and_then(fallible_result)
            .filter(|(ok, _)| is_float_shaped(ok))
    }

    /// `fn f(..)` or `fn f(..) -> ()`: the results, if any, are written through `&mut`.
    pub fn returns_nothing(&self) -> bool {
        returns_unit(&self.item.sig.output)
    }

    /// [`Function::from_item`], a function generic over its float type and closures taken
    /// as its instance over `f64` (`generics::closure_instance`) and emitted as written.
    pub fn from_written(cx: &Ctxt, item: ItemFn, macro_name: &str) -> Function {
        let Some(instance) = crate::generics::closure_instance(&item) else {
            return Function::from_item(cx, item, macro_name);
        };
        let mut written = item;
        for input in written.sig.inputs.iter_mut() {
            if let FnArg::Typed(typed) = input {
                typed.attrs.retain(|attr| {
                    !attr.path().is_ident("grad") && !attr.path().is_ident("no_grad")
                });
            }
        }
        let mut function = Function::from_item(cx, instance, macro_name);
        // A parameter not naming the float type is data, as the generic function has it
        // (an `f64` reaches `T` only through `T::from(..)`, a conversion without a
        // derivative).
        if let Some(float) = crate::generics::result_parameter(&written) {
            let written_types = written.sig.inputs.iter().filter_map(|input| match input {
                FnArg::Typed(typed) => Some(&*typed.ty),
                FnArg::Receiver(_) => None,
            });
            for (param, ty) in function.params.iter_mut().zip(written_types) {
                if !crate::generics::mentions(ty, float) {
                    param.kind = ParamKind::Data;
                }
            }
        }
        function.written_generic = Some(written);
        function
    }

    /// Builds the model. Problems in the signature are reported to `cx`; the model is still
    /// returned whenever the item is a function, so that a fallback can keep the generated
    /// names defined.
    pub fn from_item(cx: &Ctxt, mut item: ItemFn, macro_name: &str) -> Function {
        let constness = item.sig.constness.take();
        crate::by_path::constructors_of_self_named(&mut item.block);
        name_pattern_parameters(&mut item);
        check_signature_shape(cx, &item, macro_name);
        if macro_name == "checkpoint" {
            check_function_parameters(cx, &item, macro_name);
        }
        let of_generic_impl = check_impl_type_parameters(cx, &item, macro_name);
        let float_param = crate::generics::float_parameter(cx, &item, macro_name);
        // A function taking a closure keeps its derived parameters as data unless marked:
        // its derivative code runs its forward code, which takes them as written.
        let takes_a_closure = item.sig.inputs.iter().any(|input| {
            matches!(input, FnArg::Typed(typed) if is_function_type(&typed.ty)
                || matches!(&*typed.ty, Type::Path(path) if item.sig.generics.type_params().any(
                    |param| path.path.is_ident(&param.ident)
                        && param.bounds.iter().any(is_function_bound))))
        });
        let params = item
            .sig
            .inputs
            .iter_mut()
            .filter_map(|input| {
                Param::from_input(cx, input, float_param.as_ref(), !takes_a_closure)
            })
            .map(|mut param| {
                // Refused above: data to the stubs, which then name no twin of the parameter.
                if of_generic_impl {
                    param.kind = ParamKind::Data;
                    param.user_type = None;
                }
                param
            })
            .collect::<Vec<_>>();
        // Forward mode writes a container of a derived type's values back from their twins;
        // reverse mode has no shadows for them yet.
        if macro_name != "forward" {
            if let Some(param) = params
                .iter()
                .find(|param| param.is_user_container() && param.is_mut_reference())
            {
                cx.error_spanned_by(
                    &param.ty,
                    format!(
                        "#[{macro_name}] does not take a #[grad] slice, `Vec` or array of a user \
                         type behind `&mut` yet (#[forward] alone does): take it by `&` or by \
                         value and return the new values (one value of a user type behind \
                         `&mut`, `p: &mut Point`, is taken)"
                    ),
                );
            }
        }
        // A generic function has no `f64` to find; one that is refused has its one message.
        let float = match crate::generics::has_generics(&item) {
            true => None,
            false => float_type(cx, &item, &params),
        };
        // Parameters of the other float type (`f32` data of an `f64` function) are data: the
        // body converts them (`d[i] as f64`), a conversion without a derivative.
        let mut params = params;
        if let Some(float) = float {
            for param in &mut params {
                if first_float_in(&param.ty).is_some_and(|own| own != float) {
                    param.kind = ParamKind::Data;
                }
            }
        }
        // A function that writes its results through `&mut` parameters may return nothing.
        let returns_through_mut =
            returns_unit(&item.sig.output) && params.iter().any(Param::is_in_out);
        if let (Some(float), false) = (float, returns_through_mut) {
            check_output(cx, &item, float);
        }
        let float = float.unwrap_or(FloatType::F64);
        // An associated function without `self` that names `Self` lives in an `impl` too: its
        // generated items go beside it, as a method's do. (One that does not name `Self`
        // cannot be told from a free function.)
        let is_method = matches!(item.sig.inputs.first(), Some(FnArg::Receiver(_)))
            || names_self(&item)
            || crate::source_facts::in_impl_block();
        if let Some(receiver) = params
            .iter()
            .find(|param| param.receiver && param.kind == ParamKind::Data)
        {
            crate::by_path::calls_on_data_self_by_path(&mut item.block, receiver.is_reference());
        }
        crate::by_path::calls_on_data_parameters_by_path(&mut item.block, &params);
        // The crate's own macros, expanded for every reader of the body; the function is
        // emitted calling them, as written (`emitted_item`).
        let mut expanded = (*item.block).clone();
        let macros = crate::source_facts::macro_definitions();
        let mut written_block =
            crate::user_macros::expand_calls(cx, &item.sig, &mut expanded, &macros)
                .then(|| std::mem::replace(&mut item.block, Box::new(expanded)));
        if let Some(written) = &mut written_block {
            attr::strip_checkpoints(written);
        }
        let mut body = (*item.block).clone();
        // The same calls with a function passed by name given as a closure (the function as
        // written keeps the name, which lints would want back).
        crate::plain_calls::named_functions_as_closures(&mut body);
        crate::names::rename_self(&mut body);
        attr::strip_closure_parameter_attributes(&mut body);
        attr::strip_checkpoints(&mut item.block);
        // A result borrowed from a parameter (`-> &mut Vec<f32>`) is refused by
        // `check_output`; stubs would need its lifetimes.
        let returns_reference = matches!(&item.sig.output,
            ReturnType::Type(_, ty) if matches!(&**ty, Type::Reference(_)));
        Function {
            item,
            written_block,
            constness,
            written_generic: None,
            is_method,
            body,
            params,
            float,
            float_param,
            refused_whole: of_generic_impl || returns_reference,
        }
    }
}

impl Param {
    /// `&self` of a method of a type that derives `Differentiable`: a `#[grad]` parameter of
    /// type `Self` (data when marked `#[no_grad]`).
    fn receiver(cx: &Ctxt, receiver: &mut syn::Receiver) -> Param {
        // A type without the derive holds data only (`impl Rosenbrock { fn cost(&self, ..) }`).
        let no_grad =
            attr::take_no_grad(cx, &mut receiver.attrs) | crate::source_facts::self_is_underived();
        if receiver.colon_token.is_some() {
            cx.error_spanned_by(
                &*receiver,
                "a differentiated method takes `&self`, `&mut self` or `self`; write the \
                 receiver without a type",
            );
        }
        let ty: Type = if receiver.reference.is_some() && receiver.mutability.is_some() {
            syn::parse_quote!(&mut Self)
        } else if receiver.reference.is_some() {
            syn::parse_quote!(&Self)
        } else {
            syn::parse_quote!(Self)
        };
        Param {
            name: Ident::new(crate::names::SELF, receiver.self_token.span),
            mutability: None,
            ty,
            kind: if no_grad {
                ParamKind::Data
            } else {
                ParamKind::Differentiated
            },
            user_type: (!no_grad).then(|| syn::parse_quote!(Self)),
            receiver: true,
        }
    }

    fn from_input(
        cx: &Ctxt,
        input: &mut FnArg,
        float_param: Option<&Ident>,
        imply_grad: bool,
    ) -> Option<Param> {
        let typed = match input {
            FnArg::Receiver(receiver) => return Some(Param::receiver(cx, receiver)),
            FnArg::Typed(typed) => typed,
        };
        if let Some(float_param) = float_param {
            return Some(Param::of_generic_function(cx, typed, float_param));
        }
        let no_grad = attr::take_no_grad(cx, &mut typed.attrs);
        let grad = attr::take_grad(cx, &mut typed.attrs)
            || (imply_grad && !no_grad && derived_in_file(&typed.ty));
        let (name, mutability) = param_name(cx, typed);
        let ty = (*typed.ty).clone();
        if grad {
            let user_type = user_type_path(&ty).or_else(|| user_element_path(&ty));
            if no_grad {
                cx.error_spanned_by(
                    &typed.pat,
                    "a parameter cannot be both #[grad] and #[no_grad]; keep one",
                );
            } else if user_type.is_none() {
                cx.error_spanned_by(
                    &ty,
                    "#[grad] marks a parameter of a user type that derives `Differentiable` \
                     (`p: &Point`, `l: List`), or a slice, `Vec` or array of one (`bodies: \
                     &[Body]`); floats, and slices, `Vec`s, arrays and tuples of them, are \
                     differentiated without it",
                );
            }
            return Some(Param {
                name,
                mutability,
                ty,
                kind: ParamKind::Differentiated,
                user_type,
                receiver: false,
            });
        }
        let kind = match float_of_type(&ty) {
            // A function of floats: derivative code passes one of its scalar type.
            _ if is_function_type(&ty) => ParamKind::Data,
            Some(_) if no_grad => ParamKind::Constant,
            Some(_) => ParamKind::Differentiated,
            None if first_float_in(&ty).is_some() && is_differentiable_container(&ty) => {
                if let (Type::Reference(reference), true) = (&ty, no_grad) {
                    if let Some(mutability) = &reference.mutability {
                        // Its final contents may depend on the differentiated parameters.
                        cx.error_spanned_by(
                            mutability,
                            "a `&mut` parameter is written, so its final contents have a \
                             tangent: remove #[no_grad] (`_jvp` then takes its tangent as `&mut` \
                             too), or take it by `&`",
                        );
                    }
                }
                if no_grad {
                    ParamKind::Constant
                } else {
                    ParamKind::Differentiated
                }
            }
            None => ParamKind::Data,
        };
        Some(Param {
            name,
            mutability,
            ty,
            kind,
            user_type: None,
            receiver: false,
        })
    }
}

impl Param {
    /// A parameter of a function generic over its float type `T`: `T`, or a slice, `Vec`,
    /// array or tuple of `T`s (nested) is differentiated (a constant when `#[no_grad]`); a type
    /// that does not name `T` is data, `f64`s included (the body converts them to `T` itself, a
    /// conversion without a derivative).
    fn of_generic_function(cx: &Ctxt, typed: &mut syn::PatType, float_param: &Ident) -> Param {
        let no_grad = attr::take_no_grad(cx, &mut typed.attrs);
        let grad = attr::take_grad(cx, &mut typed.attrs);
        let (name, mutability) = param_name(cx, typed);
        let ty = (*typed.ty).clone();
        let kind = crate::generics::param_kind(cx, &ty, float_param, no_grad, grad);
        Param {
            name,
            mutability,
            ty,
            kind,
            user_type: None,
            receiver: false,
        }
    }
}

/// A parameter of a type the file derives `Differentiable` for (`s: &Shape`), or a slice,
/// `Vec` or array of one not behind `&mut`: `#[grad]` without the mark, as the file shows
/// (a type of another file needs it written).
fn derived_in_file(ty: &Type) -> bool {
    let in_place = matches!(ty, Type::Reference(reference) if reference.mutability.is_some());
    let path = match user_type_path(ty) {
        Some(path) => Some(path),
        None if !in_place => user_element_path(ty),
        None => None,
    };
    path.and_then(|path| path.get_ident().cloned())
        .is_some_and(|name| crate::source_facts::defines_derived_once(&name.to_string()))
}

/// `Point`, `&Point`, `geom::Point`: the path of a user type, as `#[grad]` takes it.
fn user_type_path(ty: &Type) -> Option<syn::Path> {
    match ty {
        Type::Reference(reference) => user_type_path(&reference.elem),
        Type::Paren(paren) => user_type_path(&paren.elem),
        Type::Path(path)
            if path.qself.is_none()
                && first_float_in(ty).is_none()
                && path
                    .path
                    .segments
                    .iter()
                    .all(|segment| segment.arguments.is_none()) =>
        {
            Some(path.path.clone())
        }
        _ => None,
    }
}

/// `&[Body; N]`, `&[Body]`, `&Vec<Body>`, `Vec<Body>`, `[Body; N]`: the path of the user type
/// of a container's elements, as `#[grad]` takes it.
fn user_element_path(ty: &Type) -> Option<syn::Path> {
    container_element_in_or_out(ty)
        .filter(|element| matches!(element, Type::Path(_)))
        .and_then(user_type_path)
}

/// [`container_element`], also of a container behind `&mut` (`&mut [Body]`, `&mut Vec<Body>`).
fn container_element_in_or_out(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Reference(reference) if reference.mutability.is_some() => match &*reference.elem {
            Type::Slice(slice) => Some(&slice.elem),
            inner => container_element(inner),
        },
        ty => container_element(ty),
    }
}

fn check_signature_shape(cx: &Ctxt, item: &ItemFn, macro_name: &str) {
    let sig = &item.sig;
    if let Some(token) = &sig.asyncness {
        cx.error_spanned_by(token, "async functions cannot be differentiated");
    }
    if let Some(token) = &sig.unsafety {
        cx.error_spanned_by(token, "unsafe functions cannot be differentiated");
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(abi, "extern functions cannot be differentiated");
    }
    if let Some(variadic) = &sig.variadic {
        cx.error_spanned_by(variadic, "variadic functions cannot be differentiated");
    }
    if let (ReturnType::Type(_, ty), "checkpoint") = (&sig.output, macro_name) {
        if fallible_result(ty).is_some() {
            cx.error_spanned_by(
                ty,
                "#[checkpoint] does not take a function returning a `Result` yet; use \
                 #[reverse] (or checkpoint a region of its body: `#[checkpoint] for ..`)",
            );
        }
    }
}

/// A method of a generic `impl` block (`impl<T: Float> Quadratic<T>`) whose signature names
/// the block's type parameter: its derivative code would need `Self` over dual numbers, which
/// the block does not make.
fn check_impl_type_parameters(cx: &Ctxt, item: &ItemFn, macro_name: &str) -> bool {
    let signature_types: Vec<&Type> = item
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            FnArg::Typed(typed) => Some(&*typed.ty),
            FnArg::Receiver(_) => None,
        })
        .chain(match &item.sig.output {
            ReturnType::Type(_, ty) => Some(&**ty),
            ReturnType::Default => None,
        })
        .collect();
    let named = crate::source_facts::impl_generics()
        .into_iter()
        .find(|name| {
            signature_types
                .iter()
                .any(|ty| crate::generics::mentions(ty, name))
        });
    if let Some(name) = &named {
        cx.error_spanned_by(
            &item.sig,
            format!(
                "#[{macro_name}] does not take a method of a generic `impl` block whose \
                 signature names the block's type parameter `{name}` yet: its derivative code \
                 would need `Self` over dual numbers. Write the method in an `impl` for the \
                 concrete type (`impl Model<f64>`), or as a free function generic over its \
                 float type that takes the values it reads (`fn eval<{name}: Float>(a: {name}, x: \
                 {name}) -> {name}`)"
            ),
        );
    }
    named.is_some()
}

/// A function parameter (`f: impl Fn(f64) -> f64`) has no adjoint to give reverse mode; such a
/// function is differentiated through its forward code, from callers in either mode and in its
/// own `_vjp` (`expand::closure_params`), which a `#[checkpoint]` function has no use for.
fn check_function_parameters(cx: &Ctxt, item: &ItemFn, macro_name: &str) {
    for input in &item.sig.inputs {
        if let syn::FnArg::Typed(typed) = input {
            if is_function_type(&typed.ty) {
                cx.error_spanned_by(
                    &typed.ty,
                    format!(
                        "#[{macro_name}] does not take a function parameter: write #[reverse] \
                         (its `_vjp` and `_grad` run the forward code), or #[forward] alone; \
                         reverse-mode code that calls it with a closure differentiates through \
                         its forward code (the closure's captured floats included)"
                    ),
                );
            }
        }
    }
}

/// The one float type of the function: its result's, or where the result has no float its
/// first parameter's. Parameters of the other type are data (`Function::from_item`).
fn float_type(cx: &Ctxt, item: &ItemFn, params: &[Param]) -> Option<FloatType> {
    let mut found: Vec<(FloatType, &Type)> = params
        .iter()
        .filter_map(|param| first_float_in(&param.ty).map(|float| (float, &param.ty)))
        .collect();
    if let ReturnType::Type(_, ty) = &item.sig.output {
        if let Some(float) = first_float_in(ty) {
            found.push((float, ty));
        }
    }
    let Some(&(first, _)) = found.first() else {
        // `fn sub(self, o: Vec3) -> Vec3` on a derived type: its floats are inside the types,
        // taken as `f64`s (the type's `Float` is checked where the derivative names it).
        let derived_in = params.iter().any(|param| param.user_type.is_some());
        let derived_out = match &item.sig.output {
            ReturnType::Type(_, ty) => derived_type_path(ty).is_some(),
            ReturnType::Default => false,
        };
        if derived_in || derived_out {
            return Some(FloatType::F64);
        }
        cx.error_spanned_by(
            &item.sig,
            "nothing to differentiate: the function has no `f64` or `f32` parameter or result",
        );
        return None;
    };
    let result = match &item.sig.output {
        ReturnType::Type(_, ty) => first_float_in(ty),
        ReturnType::Default => None,
    };
    Some(result.unwrap_or(first))
}

fn returns_unit(output: &ReturnType) -> bool {
    match output {
        ReturnType::Default => true,
        ReturnType::Type(_, ty) => matches!(&**ty, Type::Tuple(tuple) if tuple.elems.is_empty()),
    }
}

fn check_output(cx: &Ctxt, item: &ItemFn, float: FloatType) {
    match &item.sig.output {
        ReturnType::Default => cx.error_spanned_by(
            &item.sig.ident,
            format!(
                "the function returns nothing to differentiate; return `{}` (or a tuple or array \
                 of them)",
                float.name()
            ),
        ),
        ReturnType::Type(_, ty) => {
            let fallible = fallible_result(ty).is_some_and(|(ok, _)| is_float_shaped(ok));
            if !is_float_shaped(ty)
                && derived_type_path(ty).is_none()
                && !fallible
                && !is_linalg_type(ty)
            {
                cx.error_spanned_by(
                    ty,
                    format!(
                        "cannot differentiate a result of type `{}`; return `{}`, or a tuple, \
                         array or `Vec` of them",
                        type_to_string(ty),
                        float.name()
                    ),
                );
            }
        }
    }
}

/// `Vec3`, `geom::Vec3`, `Self`: a type that may derive `Differentiable`, as a result names
/// it (capitalized, without generic arguments; `Vec`, `Option`, `Box` and `String` are not).
pub fn derived_type_path(ty: &Type) -> Option<syn::Path> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?.ident.to_string();
    let capitalized = last.starts_with(|c: char| c.is_ascii_uppercase());
    let std_type = ["Vec", "Option", "Box", "String", "Result"].contains(&last.as_str());
    (capitalized && !std_type)
        .then(|| user_type_path(ty))
        .flatten()
}

/// `Result<T, E>` (as `Result`, `std::result::Result` or `core::result::Result` names it): its
/// value type and its error type. A function returning one differentiates its `Ok` value; its
/// error is data.
pub fn fallible_result(ty: &Type) -> Option<(&Type, &Type)> {
    let Type::Path(path) = ty else {
        return None;
    };
    let names = segment_names(&path.path);
    if path.qself.is_some()
        || !matches!(
            names.iter().map(String::as_str).collect::<Vec<_>>()[..],
            ["Result"] | ["std" | "core", "result", "Result"]
        )
    {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &path.path.segments.last()?.arguments else {
        return None;
    };
    match (args.args.first(), args.args.iter().nth(1), args.args.len()) {
        (Some(syn::GenericArgument::Type(ok)), Some(syn::GenericArgument::Type(error)), 2) => {
            Some((ok, error))
        }
        _ => None,
    }
}

/// Whether a signature names `f64` or `f32` outside its receiver (a parameter's or the
/// result's type).
pub fn mentions_a_float(sig: &syn::Signature) -> bool {
    let mut text = quote::ToTokens::to_token_stream(&sig.output).to_string();
    for input in &sig.inputs {
        if let FnArg::Typed(typed) = input {
            text.push(' ');
            text.push_str(&quote::ToTokens::to_token_stream(&typed.ty).to_string());
        }
    }
    text.split(|c: char| !c.is_alphanumeric() && c != '_')
        .any(|word| word == "f64" || word == "f32")
}

/// The names of a path's segments (`std::result::Result` gives `std`, `result`, `Result`).
/// Every identifier in `tokens`, in groups too (what a macro's arguments or a piece of syntax
/// may name).
pub fn idents_of(tokens: proc_macro2::TokenStream) -> Vec<Ident> {
    let mut idents = Vec::new();
    for token in tokens {
        match token {
            proc_macro2::TokenTree::Ident(ident) => idents.push(ident),
            proc_macro2::TokenTree::Group(group) => idents.extend(idents_of(group.stream())),
            _ => {}
        }
    }
    idents
}

pub fn segment_names(path: &syn::Path) -> Vec<String> {
    path.segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect()
}

/// Whether `path` names the variant `variant` of `Result` (as `Ok`, `Result::Ok` or
/// `std::result::Result::Ok`).
pub fn is_result_variant(path: &syn::Path, variant: &str) -> bool {
    match segment_names(path)
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()[..]
    {
        [last] | ["Result", last] | ["std" | "core", "result", "Result", last] => last == variant,
        _ => false,
    }
}

/// `f64`, or a tuple, array, `Vec` or `Option` made only of floats.
pub fn is_float_shaped(ty: &Type) -> bool {
    match ty {
        Type::Paren(inner) => is_float_shaped(&inner.elem),
        Type::Tuple(tuple) => !tuple.elems.is_empty() && tuple.elems.iter().all(is_float_shaped),
        Type::Array(array) => is_float_shaped(&array.elem),
        Type::Path(path) if path.qself.is_none() => match path.path.segments.last() {
            Some(segment) if segment.ident == "Vec" || segment.ident == "Option" => match &segment
                .arguments
            {
                syn::PathArguments::AngleBracketed(args) => args.args.iter().all(|arg| match arg {
                    syn::GenericArgument::Type(inner) => is_float_shaped(inner),
                    _ => false,
                }),
                _ => false,
            },
            _ => float_of_type(ty).is_some(),
        },
        _ => float_of_type(ty).is_some(),
    }
}

/// The float type when `ty` is exactly `f64` or `f32`.
/// `impl Fn(f64) -> f64`, `&dyn Fn(f64) -> f64`, `&impl FnMut(..)`: a function parameter, which
/// derivative code passes functions of its own scalar type.
pub fn is_function_type(ty: &Type) -> bool {
    trait_bounds(ty).is_some_and(|bounds| bounds.iter().any(is_function_bound))
}

/// The bounds of `impl Trait` or `dyn Trait`, behind references and parentheses.
pub fn trait_bounds(
    ty: &Type,
) -> Option<&syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>> {
    match ty {
        Type::ImplTrait(bounds) => Some(&bounds.bounds),
        Type::TraitObject(bounds) => Some(&bounds.bounds),
        Type::Reference(reference) => trait_bounds(&reference.elem),
        Type::Paren(paren) => trait_bounds(&paren.elem),
        _ => None,
    }
}

/// `Fn(f64) -> f64`, `FnMut(..)`, `FnOnce(..)`: a bound that makes a type a function's.
pub fn is_function_bound(bound: &syn::TypeParamBound) -> bool {
    matches!(bound, syn::TypeParamBound::Trait(bound)
    if bound.path.segments.last().is_some_and(|segment| {
        matches!(segment.ident.to_string().as_str(), "Fn" | "FnMut" | "FnOnce")
    }))
}

pub fn float_of_type(ty: &Type) -> Option<FloatType> {
    match ty {
        Type::Path(path) if path.qself.is_none() => {
            path.path.get_ident().and_then(FloatType::from_ident)
        }
        Type::Paren(inner) => float_of_type(&inner.elem),
        Type::Group(inner) => float_of_type(&inner.elem),
        _ => None,
    }
}

/// Slices, `Vec`s, arrays, tuples and references: the containers DESIGN.md makes
/// differentiable (as opposed to `Option<f64>` or a user type, which are data), and nalgebra's
/// vectors and matrices of floats.
fn is_differentiable_container(ty: &Type) -> bool {
    match ty {
        Type::Slice(_) | Type::Array(_) | Type::Tuple(_) | Type::Reference(_) => true,
        Type::Paren(inner) => is_differentiable_container(&inner.elem),
        Type::Path(path) => {
            path.path
                .segments
                .last()
                .is_some_and(|segment| segment.ident == "Vec")
                || is_linalg_type(ty)
        }
        _ => false,
    }
}

/// A nalgebra vector or matrix of floats, by value or behind `&` (`DVector<f64>`,
/// `&Matrix3<f64>`, `SMatrix<f64, 2, 3>`, `nalgebra::Vector3<f32>`): a value whose adjoint is
/// a matrix of its shape, and whose operations have rules in the runtime (`ad_runtime::linalg`,
/// feature `nalgebra`). Known by the names nalgebra gives its owned matrix types, with the float
/// type as their first argument.
pub fn is_linalg_type(ty: &Type) -> bool {
    linalg_type_name(ty).is_some_and(is_linalg_name)
}

/// Whether `ty` is spelled as a nalgebra vector or matrix of floats, whatever the user's
/// crate defines (what reading a file's definitions asks, before anything is known of the
/// crate).
pub fn spells_linalg_type(ty: &Type) -> bool {
    linalg_type_name(ty).is_some_and(|name| is_linalg_spelling(name.to_string()))
}

/// The name of `ty`'s type when it is a path whose first argument is a float
/// (`Vector3<f64>`, `&DMatrix<f32>`).
fn linalg_type_name(ty: &Type) -> Option<&Ident> {
    let ty = match ty {
        Type::Reference(reference) if reference.mutability.is_none() => &*reference.elem,
        Type::Paren(inner) => return linalg_type_name(&inner.elem),
        ty => ty,
    };
    let Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(arguments) = &last.arguments else {
        return None;
    };
    let Some(syn::GenericArgument::Type(element)) = arguments.args.first() else {
        return None;
    };
    (path.qself.is_none() && float_of_type(element).is_some()).then_some(&last.ident)
}

/// `Vector3`, `Matrix2x3`, `SVector`, `DMatrix`, `RowDVector`, `OMatrix`, ...
pub fn is_linalg_name(ident: &Ident) -> bool {
    // A name of nalgebra's, and not the user's own `Vector3` (the second question reads the
    // package's files: asked only of such names).
    let name = ident.to_string();
    is_linalg_spelling(name.clone())
        && !crate::source_facts::defines_derived(&name)
        && !crate::source_facts::defines_underived(&name)
        && !crate::source_facts::names_own_type(&name)
}

/// `Vector3`, `Matrix2x3`, `SVector`, `DMatrix`, `RowDVector`, `OMatrix`, ... by spelling.
fn is_linalg_spelling(name: String) -> bool {
    let name = name
        .strip_prefix("Row")
        .map(|rest| rest.replacen("Vector", "RowVector", 1))
        .unwrap_or(name);
    let name = name
        .strip_prefix(['S', 'D', 'O'])
        .filter(|rest| {
            rest.starts_with("Vector")
                || rest.starts_with("RowVector")
                || rest.starts_with("Matrix")
        })
        .map(str::to_string)
        .unwrap_or(name);
    let dims = ["RowVector", "Vector", "Matrix"]
        .iter()
        .find_map(|kind| name.strip_prefix(kind));
    match dims {
        Some("") => true,
        Some(dims) => {
            let mut parts = dims.split('x');
            let dim = |part: Option<&str>| {
                part.is_some_and(|part| matches!(part, "1" | "2" | "3" | "4" | "5" | "6" | "X"))
            };
            dim(parts.next())
                && parts.next().is_none_or(|part| dim(Some(part)))
                && parts.next().is_none()
        }
        None => false,
    }
}

/// The first `f64`/`f32` mentioned anywhere in a type.
pub fn first_float_in(ty: &Type) -> Option<FloatType> {
    struct FirstFloat(Option<FloatType>);
    impl<'ast> Visit<'ast> for FirstFloat {
        fn visit_type_path(&mut self, path: &'ast syn::TypePath) {
            if self.0.is_none() && path.qself.is_none() {
                if let Some(ident) = path.path.get_ident() {
                    self.0 = FloatType::from_ident(ident);
                }
            }
            syn::visit::visit_type_path(self, path);
        }
    }
    let mut finder = FirstFloat(None);
    finder.visit_type(ty);
    finder.0
}

/// A type as a message shows it: `&mut Vec<f32>`, `[f64; 3]`, `(f64, f64)`.
pub fn type_to_string(ty: &Type) -> String {
    let spaced = quote::quote!(#ty).to_string();
    let mut text = String::new();
    let mut previous = ' ';
    for (index, character) in spaced.char_indices() {
        let next = spaced[index + character.len_utf8()..]
            .chars()
            .next()
            .unwrap_or(' ');
        // A space stays only between two words (`mut Vec`, `dyn Fn`) and after `,`, `;`.
        let keep = character != ' '
            || (previous.is_alphanumeric() || previous == '_')
                && (next.is_alphanumeric() || next == '_')
            || matches!(previous, ',' | ';');
        if keep {
            text.push(character);
        }
        if character != ' ' {
            previous = character;
        }
    }
    text
}

/// `Vec<..>`.
pub fn is_vec_type(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none()
        && path.path.segments.last().is_some_and(|segment| segment.ident == "Vec"))
}

/// `Vec<Vec<f64>>`, `Vec<[f32; 3]>`: a `Vec` of rows of floats, not behind a reference.
pub fn is_vec_of_float_rows(ty: &Type) -> bool {
    let outer_is_vec = matches!(ty, Type::Path(path)
        if path.qself.is_none() && path.path.segments.last().is_some_and(|s| s.ident == "Vec"));
    outer_is_vec
        && container_element(ty)
            .and_then(container_element)
            .and_then(float_of_type)
            .is_some()
}

/// What an `Option<T>` holds (`T`), when `ty` names one.
pub fn option_element(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else {
        return None;
    };
    let segment = path.path.segments.last().filter(|s| s.ident == "Option")?;
    let syn::PathArguments::AngleBracketed(arguments) = &segment.arguments else {
        return None;
    };
    match arguments.args.first()? {
        syn::GenericArgument::Type(inner) => Some(inner),
        _ => None,
    }
}

/// `f64` or `f32`, written as a name.
pub fn is_float_type(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none()
        && path.path.get_ident().is_some_and(|ident| FloatType::from_ident(ident).is_some()))
}

/// A primitive integer type (`usize`, `i32`, ...), written as a name.
pub fn is_integer_type(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none()
    && path.path.get_ident().is_some_and(|ident| {
        crate::retype::INTEGER_TYPES.contains(&ident.to_string().as_str())
    }))
}

/// How many containers deep the floats of `ty` are, when its innermost element is the float
/// type `float`: 0 for the float itself, 1 for `&[f64]`, 2 for `&[Vec<f64>]`.
pub fn float_nesting(ty: &Type, float: FloatType) -> Option<usize> {
    match float_of_type(ty) {
        Some(found) => (found == float).then_some(0),
        None => Some(float_nesting(container_element(ty)?, float)? + 1),
    }
}

/// The element type of a slice, `Vec` or array (behind shared references).
pub fn container_element(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Reference(reference) if reference.mutability.is_none() => match &*reference.elem {
            Type::Slice(slice) => Some(&slice.elem),
            inner => container_element(inner),
        },
        Type::Array(array) => Some(&array.elem),
        Type::Path(path) if path.qself.is_none() => {
            let segment = path.path.segments.last()?;
            match (&segment.ident, &segment.arguments) {
                (vec, syn::PathArguments::AngleBracketed(args)) if vec == "Vec" => {
                    match args.args.first()? {
                        syn::GenericArgument::Type(inner) => Some(inner),
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// `T` of `Option<T>`.
pub fn option_content(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else {
        return None;
    };
    let segment = path.path.segments.last()?;
    match (&segment.ident, &segment.arguments, path.qself.is_none()) {
        (option, syn::PathArguments::AngleBracketed(args), true) if option == "Option" => {
            match args.args.first()? {
                syn::GenericArgument::Type(inner) => Some(inner),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A parameter written as a pattern (`(t, r): (f64, f64)`, `[x, y]: [f64; 2]`,
/// `Point { x, y }: Point`, `&x: &f64`, `_: f64`) becomes a named one, taken apart by a `let` at the top of the body:
/// the function is the same, and every later stage sees a name. The name joins the pattern's
/// (`t_r`), so the generated functions' parameters read as the user's.
fn name_pattern_parameters(item: &mut ItemFn) {
    let taken: Vec<String> = item
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            FnArg::Typed(typed) => match &*typed.pat {
                Pat::Ident(pat) => Some(pat.ident.to_string()),
                _ => None,
            },
            FnArg::Receiver(_) => None,
        })
        .collect();
    let mut lets = Vec::new();
    for (position, input) in item.sig.inputs.iter_mut().enumerate() {
        let FnArg::Typed(typed) = input else {
            continue;
        };
        if !matches!(
            &*typed.pat,
            Pat::Tuple(_)
                | Pat::Slice(_)
                | Pat::Struct(_)
                | Pat::TupleStruct(_)
                | Pat::Reference(_)
                | Pat::Wild(_)
        ) {
            continue;
        }
        struct Names(Vec<String>);
        impl<'ast> Visit<'ast> for Names {
            fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
                self.0.push(pat.ident.unraw().to_string());
                syn::visit::visit_pat_ident(self, pat);
            }
        }
        let mut names = Names(Vec::new());
        names.visit_pat(&typed.pat);
        let mut name = match names.0.is_empty() {
            true => format!("arg{position}"),
            false => names.0.join("_"),
        };
        while taken.contains(&name) || names.0.contains(&name) {
            name.push('_');
        }
        let ident = Ident::new(&name, typed.pat.span());
        let pattern = std::mem::replace(
            &mut *typed.pat,
            Pat::Ident(syn::PatIdent {
                attrs: Vec::new(),
                by_ref: None,
                mutability: None,
                ident: ident.clone(),
                subpat: None,
            }),
        );
        lets.push(syn::Stmt::Local(syn::Local {
            attrs: Vec::new(),
            let_token: Default::default(),
            pat: pattern,
            init: Some(syn::LocalInit {
                eq_token: Default::default(),
                expr: Box::new(syn::parse_quote!(#ident)),
                diverge: None,
            }),
            semi_token: Default::default(),
        }));
    }
    if !lets.is_empty() {
        lets.append(&mut item.block.stmts);
        item.block.stmts = lets;
    }
}

/// A parameter's name and `mut`, or an error at a pattern in its place.
fn param_name(cx: &Ctxt, typed: &syn::PatType) -> (Ident, Option<syn::Token![mut]>) {
    match &*typed.pat {
        Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
            (pat.ident.clone(), pat.mutability)
        }
        other => {
            cx.error_spanned_by(
                other,
                "this pattern is not supported in a parameter (a `ref` or `@` binding); use a \
                 plain name, or a pattern such as `(a, b)`, `[x, y]` or `Point { x, y }`",
            );
            (Ident::new("__ad_unnamed", Span::call_site()), None)
        }
    }
}

/// Whether the function names `Self` (its items aside, which have their own).
fn names_self(item: &ItemFn) -> bool {
    struct NamesSelf(bool);
    impl<'ast> Visit<'ast> for NamesSelf {
        fn visit_ident(&mut self, ident: &'ast Ident) {
            self.0 |= ident == "Self";
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            self.0 |= crate::retype::tokens_mention(mac.tokens.clone(), &|ident| ident == "Self");
            syn::visit::visit_macro(self, mac);
        }
    }
    let mut finder = NamesSelf(false);
    finder.visit_signature(&item.sig);
    finder.visit_block(&item.block);
    finder.0
}

/// The path of the float type's function a call names, as `f64::name`: written so
/// (`f64::sin`, `std::f64::max`) or qualified (`<f64 as Float>::sin`, `<f64>::exp`).
pub fn float_function_path(func: &syn::ExprPath) -> Option<syn::Path> {
    let Some(qself) = &func.qself else {
        return crate::activity::is_float_type_path(&func.path).then(|| func.path.clone());
    };
    // `<f64 as T>::name`: the float's own function only through num-traits' float traits (a
    // trait of the user's may have a method of the same name).
    let float_trait = qself.position == 0
        || func
            .path
            .segments
            .iter()
            .take(qself.position)
            .last()
            .is_some_and(|trait_name| {
                matches!(
                    trait_name.ident.to_string().as_str(),
                    "Float" | "FloatCore" | "Real" | "FloatConst" | "RealField" | "ComplexField"
                )
            });
    if !float_trait {
        return None;
    }
    let syn::Type::Path(ty) = &*qself.ty else {
        return None;
    };
    let float = ty
        .path
        .get_ident()
        .filter(|ident| ty.qself.is_none() && (*ident == "f64" || *ident == "f32"))?;
    let name = &func.path.segments.last()?.ident;
    Some(syn::parse_quote_spanned!(name.span()=> #float::#name))
}

/// The names a `use` tree brings into scope (`use m::{a, b as c, self}`: `a`, `c`, `m`);
/// `None` for a glob, whose names only the module knows.
pub fn imported_names(tree: &syn::UseTree) -> Option<Vec<syn::Ident>> {
    fn collect(
        tree: &syn::UseTree,
        parent: Option<&syn::Ident>,
        names: &mut Vec<syn::Ident>,
    ) -> Option<()> {
        match tree {
            syn::UseTree::Path(path) => collect(&path.tree, Some(&path.ident), names),
            syn::UseTree::Name(name) if name.ident == "self" => {
                names.push(parent?.clone());
                Some(())
            }
            syn::UseTree::Name(name) => {
                names.push(name.ident.clone());
                Some(())
            }
            syn::UseTree::Rename(rename) => {
                names.push(rename.rename.clone());
                Some(())
            }
            syn::UseTree::Glob(_) => None,
            syn::UseTree::Group(group) => group
                .items
                .iter()
                .try_for_each(|tree| collect(tree, parent, names)),
        }
    }
    let mut names = Vec::new();
    collect(tree, None, &mut names)?;
    Some(names)
}
