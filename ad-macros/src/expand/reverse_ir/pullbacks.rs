//! The pullback of each operation of the IR: where the cotangent of a value goes, through
//! the runtime's rules (`ad_runtime::__private::ir`, `ad_runtime::rules`).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::Ident;

use super::Emitter;
use crate::ast::float_of_type;
use crate::ir::activity::differentiable_operands;
use crate::ir::lower::NotYet;
use crate::ir::*;

impl Emitter<'_> {
    /// A place lent `&mut` to a call (`lent` the loan's value, at `position` among the
    /// arguments) that carries derivatives: the cotangent of what the call wrote, taken from the
    /// shadow, and the code adding the adjoint of the old contents back (`__ad_c`, the callee's
    /// adjoints). Both are laid out in the loan's adjoint, a zero of the place's shape at the
    /// call, since a shadow grows only as far as the code reached it. `None` when the place's
    /// adjoint cannot be nonzero.
    fn lent_place(
        &mut self,
        lent: Value,
        position: usize,
    ) -> Result<Option<(TokenStream, TokenStream)>, NotYet> {
        let Some(place) = self.activity.written_by_calls.get(&lent).cloned() else {
            return Ok(None);
        };
        if !self.activity.useful.contains(&place.root) {
            return Ok(None);
        }
        let ir = self.ir();
        let position = syn::Index::from(position);
        let shaped = self.value_adjoint(lent);
        let shadow = self.place_adjoint(&place)?;
        let taken = quote!(#ir::take_written(#shadow, #shaped.clone()));
        let shadow = self.place_adjoint(&place)?;
        let contribution = quote! {{
            let mut __ad_back = #shaped;
            #ir::accumulate_argument(&mut __ad_back, __ad_c.#position);
            #ir::accumulate(#shadow, __ad_back);
        }};
        Ok(Some((taken, contribution)))
    }

    /// The pullback of one operation: the cotangent of its value, `cotangent`, goes to its
    /// operands.
    pub(super) fn pullback(
        &mut self,
        value: Value,
        rvalue: &Rvalue,
        cotangent: TokenStream,
    ) -> Result<TokenStream, NotYet> {
        let ir = self.ir();
        let mut tokens = TokenStream::new();
        match rvalue {
            // A field read may have been lifted from a `#[no_grad]` float field.
            Rvalue::Use(operand @ Operand::Place(place)) if super::reads_indirectly(place) => {
                tokens.extend(self.contribute_with(operand, cotangent, "accumulate_read")?);
            }
            // `a.to_vec()` of an array: its adjoint comes back as a `Vec`.
            Rvalue::Duplicate {
                receiver: operand, ..
            } => {
                tokens.extend(self.contribute_with(operand, cotangent, "accumulate_argument")?);
            }
            Rvalue::Use(operand) | Rvalue::Take(operand) => {
                tokens.extend(self.contribute(operand, cotangent)?);
            }
            Rvalue::Some(content) | Rvalue::Ok(content) => {
                tokens.extend(self.contribute(content, quote!(#ir::some_back(#cotangent)))?);
            }
            Rvalue::Unwrap { option, .. } => {
                tokens.extend(self.contribute(option, quote!(#ir::unwrap_back(#cotangent)))?);
            }
            Rvalue::Extract {
                scrutinee,
                pattern,
                names,
                ..
            } => {
                let adjoint = pattern_adjoint(pattern, names, &self.body.user_types);
                // A part without an adjoint (a constant's) takes its type from the adjoint it
                // goes to, as a cast's does.
                let contribution =
                    self.never_first(|emitter| emitter.contribute(scrutinee, adjoint))?;
                tokens.extend(quote!({ let __ad_c = #cotangent; #contribution }));
            }
            // The operand may be a float or an integer: its adjoint's type decides (so it is
            // added into one of its type, never its first value).
            Rvalue::Cast(operand, ty) if float_of_type(ty).is_some() => {
                let cotangent = quote!(#ir::cast_back(#cotangent));
                tokens.extend(self.never_first(|emitter| emitter.contribute(operand, cotangent))?);
            }
            Rvalue::Neg(operand) => {
                tokens.extend(self.contribute(operand, quote!(#ir::neg_back(#cotangent)))?);
            }
            Rvalue::Binary(op, left, right) => {
                let (left_useful, right_useful) = (
                    self.activity.is_useful(left),
                    self.activity.is_useful(right),
                );
                // One operand without adjoint: the other's partial alone, which reads only
                // the value it needs (`0.5 * s` keeps nothing of `s`, `x / 3.0` nothing of `x`).
                let one_sided = match op {
                    BinaryOp::Mul if !left_useful => Some((right, left, "factor_back")),
                    BinaryOp::Mul if !right_useful => Some((left, right, "factor_back")),
                    BinaryOp::Div if !right_useful => Some((left, right, "numerator_back")),
                    _ => None,
                };
                // Data read back beside a value with a derivative: lifted, as forward.
                let mixed = self.of_scalar_type(left) != self.of_scalar_type(right);
                let lifted = |this: &mut Self, operand: &Operand| {
                    let value = this.read_back_value(operand)?;
                    Ok::<_, NotYet>(match mixed && !this.of_scalar_type(operand) {
                        true => super::operations::lift_data(value, Span::call_site()),
                        false => value,
                    })
                };
                if let Some((useful, other, method)) = one_sided {
                    let other = lifted(self, other)?;
                    let method = Ident::new(method, Span::call_site());
                    let back = quote!(#ir::Arithmetic::#method(#other, #cotangent));
                    tokens.extend(self.contribute(useful, back)?);
                    return Ok(tokens);
                }
                let back = match op {
                    BinaryOp::Add => quote!(#ir::add_back(#cotangent)),
                    BinaryOp::Sub => quote!(#ir::sub_back(#cotangent)),
                    BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => {
                        let method = format_ident!("{}_back", op.rule());
                        let (left_value, right_value) = (lifted(self, left)?, lifted(self, right)?);
                        quote!(#ir::Arithmetic::#method(#left_value, #right_value, #cotangent))
                    }
                };
                let left = self.contribute(left, quote!(__ad_c.0))?;
                let right = self.contribute(right, quote!(__ad_c.1))?;
                tokens.extend(quote!({ let __ad_c = #back; #left #right }));
            }
            Rvalue::FloatMethod {
                rule,
                receiver,
                args,
                ..
            } => {
                let map = if self.residuals.passes().keep_linear_maps && rule.map_from_value() {
                    // Made from the value, which the backward sweep has or keeps.
                    let from_value = format_ident!("{}_from_value", rule.method);
                    let result = self.read_back_value(&Operand::Value(value))?;
                    quote!(::ad_runtime::rules::#from_value(#result))
                } else if self.residuals.passes().keep_linear_maps {
                    self.pullback_name(value).into_token_stream()
                } else {
                    let rule_name = Ident::new(rule.method, Span::call_site());
                    let mut values = vec![self.read_back_value(receiver)?];
                    for arg in args {
                        values.push(self.read_back_value(arg)?);
                    }
                    quote!(::ad_runtime::rules::#rule_name(#(#values),*).1)
                };
                let float_operands: Vec<&Operand> = differentiable_operands(rvalue);
                let mut contributions = TokenStream::new();
                // Where each operand's cotangent sits in the rule's: `dx`, `(dx, dy)`, or
                // `(dx, (dy, dz))` (`ad_runtime::rules::Ternary`).
                let positions: &[TokenStream] = match float_operands.len() {
                    1 => &[quote!(__ad_c)],
                    2 => &[quote!(__ad_c.0), quote!(__ad_c.1)],
                    _ => &[quote!(__ad_c.0), quote!(__ad_c.1 .0), quote!(__ad_c.1 .1)],
                };
                for (operand, position) in float_operands.iter().zip(positions) {
                    contributions.extend(self.contribute(operand, position.clone())?);
                }
                tokens.extend(quote! {{
                    let __ad_c = ::ad_runtime::linear::LinearMap::reverse_apply(
                        &#map,
                        #cotangent,
                    );
                    #contributions
                }});
            }
            Rvalue::Call { args, method, .. } => {
                let pullback = self.pullback_name(value);
                let mut contributions = TokenStream::new();
                // A variable lent mutably as a method's receiver: whether the method writes it
                // (`&mut self`) is the callee's type's to say, so the pullback is applied
                // through `ir::apply_to_receiver`, which gives it the cotangent of the
                // receiver's new contents only if it takes one.
                let lent_receiver = match (method, args.first()) {
                    (Some(_), Some(Operand::Value(receiver)))
                        if self.activity.passed_mutably.contains(receiver) =>
                    {
                        Some(*receiver)
                    }
                    _ => None,
                };
                let mut receiver_cotangent = None;
                if let Some(receiver) = lent_receiver {
                    let scalar = crate::names::scalar_param(self.function.name().span());
                    receiver_cotangent = Some(match self.lent_place(receiver, 0)? {
                        Some((taken, contribution)) => {
                            contributions.extend(contribution);
                            quote!(|| -> ::std::vec::Vec<#scalar> { #taken })
                        }
                        None => quote!(|| ::std::vec::Vec::<#scalar>::new()),
                    });
                }
                // What the call wrote through `&mut`: the cotangent of the new contents goes in
                // (taken from the shadow, which the call's writes overwrote), the adjoint of
                // the old ones comes back into the emptied shadow.
                let mut written_cotangents = Vec::new();
                for (position, arg) in args.iter().enumerate() {
                    if position == 0 && lent_receiver.is_some() {
                        continue;
                    }
                    let position = syn::Index::from(position);
                    let written = match arg {
                        Operand::Value(value) => self.activity.written_by_calls.get(value).cloned(),
                        _ => None,
                    };
                    if let (Some(_), Operand::Value(lent)) = (&written, arg) {
                        match self.lent_place(*lent, position.index as usize)? {
                            Some((taken, contribution)) => {
                                written_cotangents.push(taken);
                                contributions.extend(contribution);
                            }
                            None => written_cotangents.push(quote!(#ir::zero())),
                        }
                        continue;
                    }
                    // Data passed `&mut` (`&mut rng`, a `rng: &mut Rng` passed on) fills the
                    // callee's slot for it with nothing.
                    let data_passed_mutably = matches!(arg, Operand::Value(value)
                        if self.activity.passed_mutably.contains(value))
                        || self
                            .mutable_parameter_passed_on(arg)
                            .is_some_and(|param| param.kind == crate::ast::ParamKind::Data);
                    if data_passed_mutably {
                        written_cotangents.push(quote!(#ir::zero()));
                        continue;
                    }
                    let place = match arg {
                        Operand::Value(value) => self.aliased_arguments.get(value),
                        _ => None,
                    };
                    let arg = &match place {
                        Some(place) => Operand::Place(place.clone()),
                        None => arg.clone(),
                    };
                    // The argument may have been coerced at the call (an array to a slice).
                    contributions.extend(self.contribute_with(
                        arg,
                        quote!(__ad_c.#position),
                        "accumulate_argument",
                    )?);
                }
                let cotangent = match written_cotangents.is_empty() {
                    true => cotangent,
                    false => quote!((#cotangent, #(#written_cotangents,)*)),
                };
                let applied = match receiver_cotangent {
                    Some(_) if !written_cotangents.is_empty() => {
                        return Err(NotYet {
                            span: self.body.values[value.0 as usize].span,
                            what: "`&mut` arguments of a method called on a variable",
                        });
                    }
                    Some(receiver) => {
                        quote!(#ir::apply_to_receiver(#pullback, #cotangent, #receiver))
                    }
                    None => quote!(#pullback(#cotangent)),
                };
                tokens.extend(quote!({ let __ad_c = #applied; #contributions }));
            }
            Rvalue::Ref(place @ Operand::Place(inner)) if super::reads_indirectly(inner) => {
                tokens.extend(self.contribute_with(place, cotangent, "accumulate_read")?);
            }
            Rvalue::Ref(place) => tokens.extend(self.contribute(place, cotangent)?),
            // Of data only (`validate`): no adjoint.
            Rvalue::RefMut(_) => {}
            // The cotangent is the adjoint of the same variant: each field's goes to its value.
            Rvalue::Construct {
                adjoint,
                fields,
                form,
                ..
            } => {
                let mut bindings = Vec::new();
                let mut contributions = TokenStream::new();
                // Inside the `if let` below, which an enum's variant may not match.
                self.never_first(|emitter| {
                    for (index, (_, value)) in fields.iter().enumerate() {
                        let binding = format_ident!("__ad_field_{}", index);
                        contributions.extend(emitter.contribute(value, quote!(#binding))?);
                        bindings.push(binding);
                    }
                    Ok(())
                })?;
                let members = fields.iter().map(|(member, _)| member);
                // Fields by number for a tuple struct, whose adjoint an alias names.
                let pattern = match form {
                    ConstructForm::Named | ConstructForm::Tuple => {
                        quote!(#adjoint { #(#members: #bindings),* })
                    }
                    ConstructForm::Unit => return Ok(tokens),
                };
                tokens.extend(quote! {
                    if let #pattern = #cotangent {
                        #contributions
                    }
                });
            }
            Rvalue::Repeat(_, element, _) => {
                tokens.extend(self.contribute(element, quote!(#ir::repeat_back(#cotangent)))?);
            }
            Rvalue::Tuple(elements) => {
                let mut contributions = TokenStream::new();
                for (position, element) in elements.iter().enumerate() {
                    let position = syn::Index::from(position);
                    contributions.extend(self.contribute(element, quote!(__ad_c.#position))?);
                }
                tokens.extend(quote!({ let __ad_c = #cotangent; #contributions }));
            }
            Rvalue::Elements(sequence, elements) => {
                let count = elements.len();
                let mut contributions = TokenStream::new();
                for (position, element) in elements.iter().enumerate() {
                    contributions.extend(
                        self.contribute(element, quote!(#ir::take(&mut __ad_c[#position])))?,
                    );
                }
                // A local `Vec`'s adjoint grows as it is reached: it may be shorter.
                let cotangent = match sequence {
                    Sequence::Vec => quote!(#ir::elements_back(#cotangent, #count)),
                    Sequence::Array => cotangent,
                };
                tokens.extend(quote! {{
                    let mut __ad_c = #cotangent;
                    #contributions
                }});
            }
            Rvalue::Cast(..)
            | Rvalue::DataBinary(..)
            | Rvalue::Not(_)
            | Rvalue::DataMethod { .. }
            | Rvalue::PlainMethod { .. }
            | Rvalue::EmptyVec(_)
            | Rvalue::Err(_)
            | Rvalue::Matches(..)
            | Rvalue::Macro { .. }
            | Rvalue::Range { .. } => {}
        }
        Ok(tokens)
    }
}

/// The adjoint of the value an extraction pattern matched, given the adjoint of the tuple of
/// its names' values, `__ad_c`: the pattern built as an expression over adjoints, zero where
/// it binds nothing (`(_, Some(b))` gives `(zero, Some(__ad_c.0))`).
fn pattern_adjoint(
    pattern: &syn::Pat,
    names: &[Ident],
    user_types: &crate::user_types::UserTypes,
) -> TokenStream {
    use syn::Pat;
    let zero = quote!(::ad_runtime::__private::ir::zero());
    let mut bound = Vec::new();
    collect_names(pattern, names, &mut bound);
    if bound.is_empty() || crate::ir::is_error_pattern(pattern) {
        return zero;
    }
    let part = |pattern: &syn::Pat| pattern_adjoint(pattern, names, user_types);
    let scalar = crate::names::scalar_param(proc_macro2::Span::call_site()).into_token_stream();
    match pattern {
        Pat::Ident(binding) => match names.iter().position(|name| *name == binding.ident) {
            Some(index) => {
                let index = syn::Index::from(index);
                quote!(::ad_runtime::__private::ir::field_adjoint(__ad_c.#index))
            }
            None => zero,
        },
        Pat::Paren(paren) => part(&paren.pat),
        // A reference's adjoint is its referent's.
        Pat::Reference(reference) => part(&reference.pat),
        Pat::Tuple(tuple) => {
            let parts = tuple.elems.iter().map(part);
            quote!((#(#parts,)*))
        }
        // A derived type's struct or variant: the same of its adjoint, its fields by name or
        // by position (`..` is last: `only_for_data`), the fields left out zero.
        Pat::TupleStruct(variant) => match user_types.adjoint_path(&variant.path, &scalar) {
            Some(adjoint) => {
                let fields = variant
                    .elems
                    .iter()
                    .filter(|element| !matches!(element, Pat::Rest(_)))
                    .enumerate()
                    .map(|(index, element)| (syn::Member::from(index), part(element)))
                    .collect();
                let rest = variant
                    .elems
                    .iter()
                    .position(|e| matches!(e, Pat::Rest(_)))
                    .map(|at| match at + 1 == variant.elems.len() {
                        true => Rest::Last,
                        false => Rest::At(at),
                    });
                derived_adjoint(&variant.path, adjoint, fields, rest, user_types)
            }
            // `Some(..)`: an option's adjoint is an option.
            None => {
                let parts = variant.elems.iter().map(part);
                quote!(::core::option::Option::Some(#(#parts),*))
            }
        },
        Pat::Struct(structure) => match user_types.adjoint_path(&structure.path, &scalar) {
            Some(adjoint) => {
                let fields = structure
                    .fields
                    .iter()
                    .map(|field| (field.member.clone(), part(&field.pat)))
                    .collect();
                let rest = structure.rest.as_ref().map(|_| Rest::Last);
                derived_adjoint(&structure.path, adjoint, fields, rest, user_types)
            }
            None => zero,
        },
        _ => zero,
    }
}

/// The adjoint of a derived type's struct or variant pattern, from its fields' adjoints. With
/// `..`, the fields left out are zero: the struct's zero, or the variant's
/// (`__ad_zero_<Variant>`, from the derive), gets the fields in place (a struct update could
/// not leave out private fields).
fn derived_adjoint(
    path: &syn::Path,
    adjoint: syn::Path,
    fields: Vec<(syn::Member, TokenStream)>,
    rest: Option<Rest>,
    user_types: &crate::user_types::UserTypes,
) -> TokenStream {
    let (members, parts): (Vec<_>, Vec<_>) = fields.into_iter().unzip();
    let Some(rest) = rest else {
        return quote!(#adjoint { #(#members: #parts),* });
    };
    let zero = if user_types.names_type_itself(path) {
        quote!(<#adjoint as ::ad_runtime::adjoint::Adjoint>::zero())
    } else {
        let mut enum_path = adjoint.clone();
        let variant = enum_path
            .segments
            .pop()
            .map(|last| last.into_value().ident)
            .expect("a variant's path");
        let last = enum_path.segments.pop().map(|last| last.into_value());
        enum_path.segments.extend(last);
        let zero = format_ident!("__ad_zero_{}", variant);
        quote!(#enum_path::#zero())
    };
    let bindings: Vec<Ident> = (0..members.len())
        .map(|index| format_ident!("__ad_field{}", index))
        .collect();
    // The fields after a `..` before the last (`Tube(r, .., n)`) are known by their place
    // from the end alone: matched as written, which a variant's path allows.
    let pattern = match rest {
        Rest::Last => quote!(#adjoint { #(#members: #bindings,)* .. }),
        Rest::At(at) => {
            let mut elements: Vec<TokenStream> = bindings.iter().map(|b| quote!(#b)).collect();
            elements.insert(at, quote!(..));
            quote!(#adjoint(#(#elements),*))
        }
    };
    quote!({
        let mut __ad_adjoint = #zero;
        #[allow(unreachable_patterns)]
        match &mut __ad_adjoint {
            #pattern => { #(*#bindings = #parts;)* }
            _ => ::core::unreachable!(),
        }
        __ad_adjoint
    })
}

/// Where a struct or variant pattern has its `..`.
#[derive(Clone, Copy)]
enum Rest {
    /// Last (`Point { x, .. }`, `Tube(r, ..)`).
    Last,
    /// Before the element of this place (`Tube(r, .., n)`: 1), in a variant's pattern.
    At(usize),
}

/// The names of `names` that `pattern` binds.
fn collect_names<'p>(pattern: &'p syn::Pat, names: &[Ident], bound: &mut Vec<&'p Ident>) {
    use syn::Pat;
    match pattern {
        Pat::Ident(binding) if names.contains(&binding.ident) => bound.push(&binding.ident),
        Pat::Paren(paren) => collect_names(&paren.pat, names, bound),
        Pat::Reference(reference) => collect_names(&reference.pat, names, bound),
        Pat::Tuple(tuple) => tuple
            .elems
            .iter()
            .for_each(|part| collect_names(part, names, bound)),
        Pat::TupleStruct(variant) => variant
            .elems
            .iter()
            .for_each(|part| collect_names(part, names, bound)),
        Pat::Struct(structure) => structure
            .fields
            .iter()
            .for_each(|field| collect_names(&field.pat, names, bound)),
        _ => {}
    }
}
