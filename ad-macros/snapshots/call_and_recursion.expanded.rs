// The expansion of call_and_recursion.rs by #[reverse] (IR engine). Written by `UPDATE_SNAPSHOTS=1 cargo test -p ad-macros`.

fn power(x: f64, n: usize) -> f64 {
    if n == 0 { 1.0 } else { x * power(x, n - 1) }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct power {}
#[allow(dead_code)]
impl power {
    #[doc(hidden)]
    #[inline]
    #[allow(
        unused_mut,
        unused_variables,
        unused_parens,
        unused_braces,
        unused_assignments,
        unreachable_code,
        unreachable_patterns,
        irrefutable_let_patterns,
        non_upper_case_globals,
        non_snake_case,
        clippy::all,
        clippy::pedantic
    )]
    fn __ad_forward<__S: ::ad_runtime::Scalar<Base = f64>>(x: __S, n: usize) -> __S
    where
        for<'__ad> &'__ad __S: ::ad_runtime::ScalarRef<__S>,
    {
        let _ = power;
        #[allow(unused_imports)]
        use ::ad_runtime::__private::{
            CastPrimitive as _, CastScalar as _, LiftConstant as _,
            LiftConstantOther as _, LiftBorrowed as _, LiftDerived as _,
            LiftBorrowedOther as _, LiftFloat as _, LiftOption as _, LiftOther as _,
            LiftTuple as _, LiftZipped as _, LiftZippedOther as _,
        };
        if n == 0 {
            <__S as ::ad_runtime::Scalar>::from_f64(1.0)
        } else {
            x * power::__ad_forward(x, n - 1)
        }
    }
}
#[allow(dead_code)]
impl power {
    #[doc(hidden)]
    #[inline]
    #[allow(
        unused_mut,
        unused_variables,
        unused_parens,
        unused_braces,
        unused_assignments,
        unreachable_code,
        unreachable_patterns,
        irrefutable_let_patterns,
        non_upper_case_globals,
        non_snake_case,
        clippy::all,
        clippy::pedantic
    )]
    fn __ad_reverse<__S: ::ad_runtime::Scalar<Base = f64>>(
        x: __S,
        n: usize,
    ) -> (__S, ::std::boxed::Box<dyn ::core::ops::FnOnce(__S) -> (__S, ())>)
    where
        for<'__ad> &'__ad __S: ::ad_runtime::ScalarRef<__S>,
    {
        #[allow(unused_imports)]
        use ::ad_runtime::__private::{
            CastPrimitive as _, CastScalar as _, LiftContainer as _, LiftFloat as _,
            LiftOption as _, LiftConstant as _, LiftConstantOther as _,
            LiftBorrowed as _, LiftDerived as _, LiftBorrowedOther as _, LiftOther as _,
            LiftTuple as _, UnliftOther as _, UnliftScalar as _, UnliftBorrowed as _,
            UnliftBorrowedOther as _, ir::ReverseOperators as _, ir::ReverseLength as _,
            ir::Contents as _,
        };
        #[allow(unused_imports)]
        use ::ad_runtime::__private::linalg::traits::*;
        ::ad_runtime::__private::maybe_grow(move || -> (
            __S,
            ::std::boxed::Box<dyn ::core::ops::FnOnce(__S) -> (__S, ())>,
        ) {
            let __ad_v_x_0 = x;
            let __ad_ty_x_0 = ::ad_runtime::__private::ir::adjoint_of(&__ad_v_x_0);
            let __ad_v_n_1 = n;
            let mut __ad_keep_v_4 = ::ad_runtime::__private::ir::Slot::new();
            let mut __ad_keep_zero_4 = ::ad_runtime::__private::ir::Stack::new();
            let mut __ad_keep_pb_4 = ::ad_runtime::__private::ir::Slot::new();
            let __ad_v_2 = __ad_v_n_1 == 0;
            let __ad_v_6 = if __ad_v_2 {
                <__S as ::ad_runtime::Scalar>::from_f64(1.0)
            } else {
                let __ad_v_3 = __ad_v_n_1 - 1;
                let (__ad_v_4, __ad_pb_4) = power::__ad_reverse(__ad_v_x_0, __ad_v_3);
                __ad_keep_v_4.push(::ad_runtime::__private::ir::value_of(__ad_v_4));
                __ad_keep_zero_4
                    .keep_zero(::ad_runtime::__private::ir::zero_like(&__ad_v_4));
                __ad_keep_pb_4.push(__ad_pb_4);
                let __ad_v_5 = __ad_v_x_0 * __ad_v_4;
                __ad_v_5
            };
            let __ad_result = __ad_v_6;
            let __ad_v_2 = ::ad_runtime::__private::ir::value_of(__ad_v_2);
            let __ad_v_x_0 = ::ad_runtime::__private::ir::value_of(__ad_v_x_0);
            (
                __ad_result,
                ::std::boxed::Box::new(move |__ad_ct: __S| {
                    ::ad_runtime::__private::maybe_grow(move || {
                        let mut __ad_dv_x_0 = __ad_ty_x_0.zero();
                        let mut __ad_dv_6;
                        __ad_dv_6 = __ad_ct;
                        if __ad_v_2 {} else {
                            let __ad_v_4 = __ad_keep_v_4.pop();
                            let __ad_pb_4 = __ad_keep_pb_4.pop();
                            let mut __ad_dv_4 = __ad_keep_zero_4.zero_back();
                            let mut __ad_dv_5;
                            __ad_dv_5 = __ad_dv_6;
                            {
                                let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                                    ::ad_runtime::__private::ir::value_of(__ad_v_x_0),
                                    ::ad_runtime::__private::ir::value_of(__ad_v_4),
                                    __ad_dv_5,
                                );
                                ::ad_runtime::__private::ir::accumulate(
                                    &mut __ad_dv_x_0,
                                    __ad_c.0,
                                );
                                ::ad_runtime::__private::ir::accumulate(
                                    &mut __ad_dv_4,
                                    __ad_c.1,
                                );
                            }
                            {
                                let __ad_c = __ad_pb_4(__ad_dv_4);
                                ::ad_runtime::__private::ir::accumulate_argument(
                                    &mut __ad_dv_x_0,
                                    __ad_c.0,
                                );
                            }
                        }
                        (__ad_dv_x_0, ())
                    })
                }),
            )
        })
    }
}
#[allow(dead_code)]
impl power {
    #[doc(hidden)]
    #[inline]
    #[allow(
        dead_code,
        unused_variables,
        clippy::too_many_arguments,
        clippy::type_complexity,
        unreachable_code
    )]
    fn vjp<__S: ::ad_runtime::Scalar<Base = f64>>(
        x: __S,
        n: usize,
        d_out: __S,
    ) -> (__S, __S)
    where
        for<'__ad> &'__ad __S: ::ad_runtime::ScalarRef<__S>,
    {
        let (value, pullback) = power::__ad_reverse(x, n);
        let adjoints = pullback(d_out);
        (value, adjoints.0)
    }
}
/** Reverse-mode derivative of [`power`], generated by `#[reverse]`.

 `power_vjp(x, n, d_out)` returns `(power(x, n), d_out · J)`: the value, and the adjoint of each float parameter (a tuple in declared order when there are several) for the cotangent `d_out` of the result.*/
#[allow(
    dead_code,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity,
    unreachable_code
)]
#[inline]
fn power_vjp(x: f64, n: usize, d_out: f64) -> (f64, f64) {
    power::vjp::<f64>(x, n, d_out)
}
/// Jacobian of [`power`] by reverse mode, generated by `#[reverse]`: the value, and one row per float of the result (one `power_vjp` each), one column per float of the differentiable parameters in declared order.
#[inline]
#[allow(
    dead_code,
    unused_mut,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity
)]
fn power_jacrev(x: f64, n: usize) -> (f64, ::std::vec::Vec<::std::vec::Vec<f64>>) {
    let __ad_value = power(x, n);
    ::ad_runtime::__private::jacobian::reverse_jacobian::<
        f64,
        _,
        _,
    >(__ad_value, |__ad_cotangent| { power_vjp(x, n, __ad_cotangent).1 })
}
#[allow(dead_code)]
impl power {
    #[doc(hidden)]
    #[inline]
    #[allow(
        dead_code,
        unused_variables,
        clippy::too_many_arguments,
        clippy::type_complexity,
        unreachable_code
    )]
    fn grad<__S: ::ad_runtime::Scalar<Base = f64>>(x: __S, n: usize) -> (__S, __S)
    where
        for<'__ad> &'__ad __S: ::ad_runtime::ScalarRef<__S>,
    {
        power::vjp(x, n, <__S as ::ad_runtime::Scalar>::one())
    }
}
/// Gradient of [`power`], generated by `#[reverse]`: `power_grad(x, n)` is `power_vjp(x, n, 1)`.
#[allow(
    dead_code,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity,
    unreachable_code
)]
#[inline]
fn power_grad(x: f64, n: usize) -> (f64, f64) {
    power::grad::<f64>(x, n)
}
/// Hessian of [`power`], generated by `#[reverse]`: the value, the gradient and the Hessian (a row and a column per float of the differentiable parameters in declared order), by the vector forward mode over the gradient.
#[inline]
#[allow(
    dead_code,
    unused_mut,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity
)]
fn power_hessian(
    x: f64,
    n: usize,
) -> (f64, ::std::vec::Vec<f64>, ::std::vec::Vec<::std::vec::Vec<f64>>) {
    {
        const __AD_CHUNK: usize = ::ad_runtime::__private::jacobian::CHUNK;
        let __ad_inputs = 0
            + ::ad_runtime::__private::jacobian::Directions::<f64>::count(&x);
        let mut __ad_seeded_x = ::ad_runtime::__private::jacobian::Directions::<
            f64,
        >::constant::<__AD_CHUNK>(&x);
        ::ad_runtime::__private::jacobian::hessian::<
            f64,
            __AD_CHUNK,
            _,
        >(
            __ad_inputs,
            |__ad_start: usize| {
                let mut __ad_offset = 0usize;
                ::ad_runtime::__private::jacobian::Directions::<
                    f64,
                >::reseed::<
                    __AD_CHUNK,
                >(&x, &mut __ad_seeded_x, __ad_start, &mut __ad_offset);
                let _ = __ad_offset;
                power::grad::<
                    ::ad_runtime::DualVec<f64, __AD_CHUNK>,
                >(::core::clone::Clone::clone(&__ad_seeded_x), n)
            },
        )
    }
}
/// Hessian-vector product of [`power`], generated by `#[reverse]`: the value, and the Hessian times the direction (dx) shaped as the gradient, by forward mode over the gradient (one pass).
#[inline]
#[allow(
    dead_code,
    unused_mut,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity
)]
fn power_hvp(x: f64, n: usize, dx: f64) -> (f64, f64) {
    let __ad_seeded_x = ::ad_runtime::__private::Seed::seed(x, dx);
    let (__ad_value, __ad_adjoints) = power::grad::<
        ::ad_runtime::Dual<f64>,
    >(__ad_seeded_x, n);
    (__ad_value.value, ::ad_runtime::__private::DualParts::split(__ad_adjoints).1)
}
#[allow(dead_code)]
impl power {
    #[doc(hidden)]
    pub const __AD_ENGINE: &'static str = "ir";
}
