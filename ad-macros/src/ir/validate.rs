//! What the IR engine checks before it emits anything, one function per rule: the emitter
//! is total on a body that passes.

use super::activity::Activity;
use super::lower::NotYet;
use super::*;

pub fn check(body: &Body, activity: &Activity) -> Result<(), NotYet> {
    let mut result = Ok(());
    for_each_stmt(&body.block, &mut |stmt| {
        if result.is_ok() {
            result = check_plain_method_on_data(stmt, activity)
                .and_then(|()| check_data_patterns(stmt, activity))
                .and_then(|()| check_mutable_references_to_data(stmt, activity))
                .and_then(|()| check_runs_as_written_on_data(stmt, activity))
                .and_then(|()| check_plain_callee(stmt, activity))
                .and_then(|()| check_options_to_calls(stmt, activity))
                .and_then(|()| check_underived_values(stmt, activity));
        }
    });
    result
}

/// A value of a type the file defines without the derive, built from floats carrying
/// derivatives: the type has no twin to hold them (one message, not rustc's at each use of the
/// twin it does not have). Built from data it is data, as written.
fn check_underived_values(stmt: &Stmt, activity: &Activity) -> Result<(), NotYet> {
    if let Stmt::Let(Let {
        rvalue: Rvalue::Construct { path, fields, .. },
        span,
        ..
    }) = stmt
    {
        let type_name = match path.segments.len() {
            0 => None,
            1 => Some(&path.segments[0].ident),
            count => path
                .segments
                .iter()
                .nth(count - 2)
                .map(|segment| &segment.ident),
        };
        let underived =
            type_name.is_some_and(|name| crate::source_facts::defines_underived(&name.to_string()));
        if underived && fields.iter().any(|(_, field)| activity.is_active(field)) {
            return Err(NotYet {
                span: *span,
                what: super::lower::UNDERIVED_BUILT,
            });
        }
    }
    Ok(())
}

/// A method without a rule runs on plain values: its receiver and arguments must carry no
/// derivative (one that does has no derivative rule to go through).
fn check_plain_method_on_data(stmt: &Stmt, activity: &Activity) -> Result<(), NotYet> {
    if let Stmt::Let(Let {
        rvalue:
            Rvalue::PlainMethod {
                receiver,
                args,
                method,
                ..
            },
        ..
    }) = stmt
    {
        // Dropping elements (`truncate`, `clear`, and `pop` lowered) moves no float: the
        // dropped ones' adjoints are zero, as nothing reads them after.
        let drops_elements = method == "truncate" || method == "clear";
        if std::iter::once(receiver)
            .skip(usize::from(drops_elements))
            .chain(args)
            .any(|operand| activity.is_active(operand))
        {
            return Err(NotYet {
                span: method.span(),
                what:
                    "this method on a value carrying a derivative: it has no derivative rule (see \
                       `ad_runtime::rules` for the float methods that have one, or give a \
                       function of yours one with `#[rule]`, the guide's \"Custom rules\")",
            });
        }
    }
    Ok(())
}

/// A pattern the engine cannot build the adjoint of (another type than the `#[grad]`
/// parameters', or `..` beside names) takes apart data only.
fn check_data_patterns(stmt: &Stmt, activity: &Activity) -> Result<(), NotYet> {
    if let Stmt::Let(Let {
        rvalue:
            Rvalue::Extract {
                scrutinee,
                pattern,
                data_only: true,
                ..
            },
        span,
        ..
    }) = stmt
    {
        // A fallible result's error is data: taking it apart carries no derivative.
        if activity.is_active(scrutinee) && !crate::ir::is_error_pattern(pattern) {
            return Err(NotYet {
                span: *span,
                what: "patterns that take apart values carrying derivatives of types that are not `#[grad]` parameters' types",
            });
        }
    }
    Ok(())
}

/// `std::mem::swap` and its kin, and a generic function's `T::from(..)`, run as written: on
/// data only (on places carrying derivatives `swap` would have to swap the shadows too, and
/// `T::from(x)` would drop `x`'s derivative).
fn check_runs_as_written_on_data(stmt: &Stmt, activity: &Activity) -> Result<(), NotYet> {
    if let Stmt::Let(Let {
        rvalue: Rvalue::Call { callee, args, .. },
        span,
        ..
    }) = stmt
    {
        if runs_as_written(callee) && args.iter().any(|arg| activity.is_active(arg)) {
            return Err(NotYet {
                span: *span,
                what: "`std::mem` functions, or `T::from` of a generic function, on values \
                       carrying derivatives",
            });
        }
    }
    Ok(())
}

/// A plain function given floats carrying derivatives must be generic over its float type,
/// in a form the runtime seeds (`plain_calls`).
fn check_plain_callee(stmt: &Stmt, activity: &Activity) -> Result<(), NotYet> {
    if let Stmt::Let(Let {
        rvalue:
            Rvalue::Call {
                callee,
                args,
                dispatch: Dispatch::Plain,
                ..
            },
        span,
        ..
    }) = stmt
    {
        if !args.iter().any(|arg| activity.is_active(arg)) {
            return Ok(());
        }
        let what = match crate::plain_calls::callee(callee) {
            Some(crate::plain_calls::Callee::Generic(params)) => {
                let to_data = args.iter().zip(&params).any(|(arg, param)| {
                    *param == crate::plain_calls::Param::Data && activity.is_active(arg)
                });
                match to_data {
                    false => return Ok(()),
                    true => crate::plain_calls::ACTIVE_TO_DATA,
                }
            }
            Some(crate::plain_calls::Callee::GenericNotYet) => crate::plain_calls::GENERIC_NOT_YET,
            _ => crate::plain_calls::NOT_ANNOTATED,
        };
        return Err(NotYet { span: *span, what });
    }
    Ok(())
}

/// An `Option` carrying derivatives passed to an `Option<f64>` parameter of a function of the
/// file, which reverse mode takes as data: one message at the call, not rustc's mismatch of
/// `Option<f64>` and the scalar type's option.
fn check_options_to_calls(stmt: &Stmt, activity: &Activity) -> Result<(), NotYet> {
    if let Stmt::Let(Let {
        rvalue:
            Rvalue::Call {
                callee,
                args,
                dispatch: Dispatch::Path,
                ..
            },
        span,
        ..
    }) = stmt
    {
        let Some(options) = crate::source_facts::option_parameters(callee) else {
            return Ok(());
        };
        if args.len() == options.len()
            && args
                .iter()
                .zip(options)
                .any(|(arg, option)| option && activity.is_active(arg))
        {
            return Err(NotYet {
                span: *span,
                what: "an `Option` carrying derivatives passed to an `Option<f64>` parameter \
                       (taken as data, without derivatives): pass the float it holds \
                       (`o.unwrap_or(0.0)`, or match it before the call)",
            });
        }
    }
    Ok(())
}

/// A `&mut` of a place carrying derivatives is taken only for a differentiated function to
/// write it (`activity.written_by_calls`); any other call writing through it is not followed.
fn check_mutable_references_to_data(stmt: &Stmt, activity: &Activity) -> Result<(), NotYet> {
    if let Stmt::Let(Let {
        value,
        rvalue: Rvalue::RefMut(place),
        span,
    }) = stmt
    {
        if activity.is_active(place) && !activity.written_by_calls.contains_key(value) {
            return Err(NotYet {
                span: *span,
                what: "`&mut` references to values carrying derivatives",
            });
        }
    }
    Ok(())
}

/// The types named by patterns taken apart as data (`only_for_data`: their type was not known
/// to derive `Differentiable`) that take apart values carrying derivatives: derived types,
/// which the lowering must know. Empty when every such pattern's types are known already (it
/// is data for another reason, which `check_data_patterns` reports).
pub fn derived_types_to_learn(body: &Body, activity: &Activity) -> Vec<syn::Path> {
    let mut found: Vec<syn::Path> = Vec::new();
    for_each_stmt(&body.block, &mut |stmt| {
        // A pattern that binds names and was taken for data, or one that only tests.
        let tested = match stmt {
            Stmt::Let(Let {
                rvalue:
                    Rvalue::Extract {
                        scrutinee,
                        pattern,
                        data_only: true,
                        ..
                    },
                ..
            })
            | Stmt::Let(Let {
                rvalue: Rvalue::Matches(scrutinee, pattern),
                ..
            }) => Some((scrutinee, pattern)),
            _ => None,
        };
        if let Some((scrutinee, pattern)) = tested {
            if activity.is_active(scrutinee) {
                let mut types = TypesNamed(Vec::new());
                syn::visit::Visit::visit_pat(&mut types, pattern);
                for path in types.0 {
                    let known =
                        body.user_types.names_type(&path) || found.iter().any(|seen| seen == &path);
                    if !known {
                        found.push(path);
                    }
                }
            }
        }
    });
    found
}

struct TypesNamed(Vec<syn::Path>);

impl<'ast> syn::visit::Visit<'ast> for TypesNamed {
    fn visit_pat(&mut self, pat: &'ast syn::Pat) {
        // A tested pattern's paths of known types already name their twins (with arguments).
        let named = crate::user_types::pattern_type(pat).filter(|path| {
            path.segments.iter().all(|segment| {
                segment.arguments.is_none() && !segment.ident.to_string().starts_with("__ad_")
            })
        });
        self.0.extend(named);
        syn::visit::visit_pat(self, pat);
    }
}
