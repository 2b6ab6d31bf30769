// The expansion of loop_over_a_slice.rs by #[reverse] (IR engine). Written by `UPDATE_SNAPSHOTS=1 cargo test -p ad-macros`.

fn weighted(w: &[f64], scale: f64) -> f64 {
    let mut total = 0.0;
    for i in 0..w.len() {
        let v = w[i];
        if v > 0.0 {
            total += scale * v * v.cos();
        } else {
            total -= v;
        }
    }
    total
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct weighted {}
#[allow(dead_code)]
impl weighted {
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
    fn __ad_forward<__S: ::ad_runtime::Scalar<Base = f64>>(w: &[__S], scale: __S) -> __S
    where
        for<'__ad> &'__ad __S: ::ad_runtime::ScalarRef<__S>,
    {
        let _ = weighted;
        #[allow(unused_imports)]
        use ::ad_runtime::__private::{
            CastPrimitive as _, CastScalar as _, LiftConstant as _,
            LiftConstantOther as _, LiftBorrowed as _, LiftDerived as _,
            LiftBorrowedOther as _, LiftFloat as _, LiftOption as _, LiftOther as _,
            LiftTuple as _, LiftZipped as _, LiftZippedOther as _,
        };
        let mut total = <__S as ::ad_runtime::Scalar>::from_f64(0.0);
        for i in 0..w.len() {
            let v = w[i];
            if v > <__S as ::ad_runtime::Scalar>::from_f64(0.0) {
                total += scale * v * v.cos();
            } else {
                total -= v;
            }
        }
        total
    }
}
#[allow(dead_code)]
impl weighted {
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
        w: &[__S],
        scale: __S,
    ) -> (__S, impl ::core::ops::FnOnce(__S) -> (::std::vec::Vec<__S>, __S) + use<__S>)
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
        let __ad_v_w_0 = w;
        let mut __ad_dv_w_0 = ::ad_runtime::__private::ir::zero_like(__ad_v_w_0);
        let __ad_v_scale_1 = scale;
        let __ad_ty_scale_1 = ::ad_runtime::__private::ir::adjoint_of(&__ad_v_scale_1);
        let mut __ad_keep_v_9 = ::ad_runtime::__private::ir::Stack::new();
        let mut __ad_keep_pb_9 = ::ad_runtime::__private::ir::Stack::new();
        let mut __ad_tym_total_0 = ::ad_runtime::__private::ir::AdjointOf::new();
        let mut __ad_ty_v_6 = ::ad_runtime::__private::ir::AdjointOf::new();
        let mut __ad_m_total_0 = <__S as ::ad_runtime::Scalar>::from_f64(0.0);
        __ad_tym_total_0 = ::ad_runtime::__private::ir::adjoint_of(&__ad_m_total_0);
        let __ad_v_2 = __ad_v_w_0.len();
        let __ad_v_3 = 0..__ad_v_2;
        let mut __ad_unit0_dv_scale_1 = __ad_ty_scale_1.zero();
        let mut __ad_count_0 = 0usize;
        for __ad_v_i_4 in __ad_v_3 {
            __ad_count_0 += 1;
            let __ad_v_5 = __ad_v_w_0[__ad_v_i_4];
            let __ad_v_v_6 = __ad_v_5;
            __ad_ty_v_6 = ::ad_runtime::__private::ir::adjoint_of(&__ad_v_v_6);
            let __ad_v_7 = __ad_v_v_6 > <__S as ::ad_runtime::Scalar>::from_f64(0.0);
            if __ad_v_7 {
                let __ad_v_8 = __ad_v_scale_1 * __ad_v_v_6;
                let (__ad_v_9, __ad_pb_9) = ::ad_runtime::rules::cos(
                    ::ad_runtime::__private::ir::value_of(__ad_v_v_6),
                );
                __ad_keep_v_9.push(::ad_runtime::__private::ir::value_of(__ad_v_9));
                __ad_keep_pb_9.push(__ad_pb_9);
                let __ad_v_10 = __ad_v_8 * __ad_v_9;
                let __ad_v_11 = __ad_m_total_0;
                let __ad_v_12 = __ad_v_11 + __ad_v_10;
                __ad_m_total_0 = __ad_v_12;
                __ad_tym_total_0 = ::ad_runtime::__private::ir::adjoint_of(
                    &__ad_m_total_0,
                );
            } else {
                let __ad_v_13 = __ad_m_total_0;
                let __ad_v_14 = __ad_v_13 - __ad_v_v_6;
                __ad_m_total_0 = __ad_v_14;
                __ad_tym_total_0 = ::ad_runtime::__private::ir::adjoint_of(
                    &__ad_m_total_0,
                );
            }
            {
                let __ad_iteration_0 = __ad_count_0 - 1;
                let mut __ad_unit0_dm_total_0 = <__S as ::ad_runtime::Scalar>::one();
                let __ad_v_5 = ::ad_runtime::__private::ir::value_of(__ad_v_5);
                let __ad_v_v_6 = __ad_v_5;
                let __ad_v_7 = ::ad_runtime::__private::ir::value_of(__ad_v_7);
                let mut __ad_dv_5;
                let mut __ad_dv_v_6 = __ad_ty_v_6.zero();
                if __ad_v_7 {
                    let __ad_v_8 = __ad_v_scale_1 * __ad_v_v_6;
                    let __ad_v_9 = __ad_keep_v_9.pop();
                    let __ad_pb_9 = __ad_keep_pb_9.pop();
                    let mut __ad_dv_8;
                    let mut __ad_dv_9;
                    let mut __ad_dv_10;
                    let mut __ad_dv_11;
                    let mut __ad_dv_12;
                    __ad_dv_12 = ::ad_runtime::__private::ir::peek(
                        &mut __ad_unit0_dm_total_0,
                    );
                    {
                        let __ad_c = ::ad_runtime::__private::ir::add_back(__ad_dv_12);
                        __ad_dv_11 = __ad_c.0;
                        __ad_dv_10 = __ad_c.1;
                    }
                    {
                        let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                            ::ad_runtime::__private::ir::value_of(__ad_v_8),
                            ::ad_runtime::__private::ir::value_of(__ad_v_9),
                            __ad_dv_10,
                        );
                        __ad_dv_8 = __ad_c.0;
                        __ad_dv_9 = __ad_c.1;
                    }
                    {
                        let __ad_c = ::ad_runtime::linear::LinearMap::reverse_apply(
                            &__ad_pb_9,
                            __ad_dv_9,
                        );
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dv_v_6,
                            __ad_c,
                        );
                    }
                    {
                        let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                            ::ad_runtime::__private::ir::value_of(__ad_v_scale_1),
                            ::ad_runtime::__private::ir::value_of(__ad_v_v_6),
                            __ad_dv_8,
                        );
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_unit0_dv_scale_1,
                            __ad_c.0,
                        );
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dv_v_6,
                            __ad_c.1,
                        );
                    }
                } else {
                    let mut __ad_dv_13;
                    let mut __ad_dv_14;
                    __ad_dv_14 = ::ad_runtime::__private::ir::peek(
                        &mut __ad_unit0_dm_total_0,
                    );
                    {
                        let __ad_c = ::ad_runtime::__private::ir::sub_back(__ad_dv_14);
                        __ad_dv_13 = __ad_c.0;
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dv_v_6,
                            __ad_c.1,
                        );
                    }
                }
                __ad_dv_5 = __ad_dv_v_6;
                ::ad_runtime::__private::ir::accumulate(
                    &mut __ad_dv_w_0[__ad_v_i_4],
                    __ad_dv_5,
                );
            }
        }
        let __ad_v_15 = __ad_m_total_0;
        let __ad_result = __ad_v_15;
        let __ad_v_2 = ::ad_runtime::__private::ir::value_of(__ad_v_2);
        let __ad_v_scale_1 = ::ad_runtime::__private::ir::value_of(__ad_v_scale_1);
        (
            __ad_result,
            move |__ad_ct: __S| {
                let mut __ad_dv_scale_1 = __ad_ty_scale_1.zero();
                let mut __ad_dm_total_0 = __ad_tym_total_0.zero();
                let mut __ad_dv_15;
                __ad_dv_15 = __ad_ct;
                ::ad_runtime::__private::ir::accumulate(
                    &mut __ad_dm_total_0,
                    __ad_dv_15,
                );
                let __ad_factor_0 = ::core::clone::Clone::clone(&__ad_dm_total_0);
                ::ad_runtime::__private::ir::scale_adjoint(
                    &mut __ad_dv_w_0,
                    &__ad_factor_0,
                );
                ::ad_runtime::__private::ir::accumulate_scaled(
                    &mut __ad_dv_scale_1,
                    &__ad_factor_0,
                    __ad_unit0_dv_scale_1,
                );
                (__ad_dv_w_0, __ad_dv_scale_1)
            },
        )
    }
}
#[allow(dead_code)]
impl weighted {
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
    fn __ad_reverse_borrowed<'__ad_p, __S: ::ad_runtime::Scalar<Base = f64>>(
        w: &'__ad_p [__S],
        scale: __S,
    ) -> (
        __S,
        impl ::core::ops::FnOnce(__S) -> (::std::vec::Vec<__S>, __S) + use<'__ad_p, __S>,
    )
    where
        for<'__ad> &'__ad __S: ::ad_runtime::ScalarRef<__S>,
        __S: '__ad_p,
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
        let __ad_v_w_0 = w;
        let mut __ad_dv_w_0 = ::ad_runtime::__private::ir::zero_like(__ad_v_w_0);
        let __ad_v_scale_1 = scale;
        let __ad_ty_scale_1 = ::ad_runtime::__private::ir::adjoint_of(&__ad_v_scale_1);
        let mut __ad_keep_v_9 = ::ad_runtime::__private::ir::Stack::new();
        let mut __ad_keep_pb_9 = ::ad_runtime::__private::ir::Stack::new();
        let mut __ad_tym_total_0 = ::ad_runtime::__private::ir::AdjointOf::new();
        let mut __ad_ty_v_6 = ::ad_runtime::__private::ir::AdjointOf::new();
        let mut __ad_m_total_0 = <__S as ::ad_runtime::Scalar>::from_f64(0.0);
        __ad_tym_total_0 = ::ad_runtime::__private::ir::adjoint_of(&__ad_m_total_0);
        let __ad_v_2 = __ad_v_w_0.len();
        let __ad_v_3 = 0..__ad_v_2;
        let mut __ad_count_0 = 0usize;
        for __ad_v_i_4 in __ad_v_3 {
            __ad_count_0 += 1;
            let __ad_v_5 = __ad_v_w_0[__ad_v_i_4];
            let __ad_v_v_6 = __ad_v_5;
            __ad_ty_v_6 = ::ad_runtime::__private::ir::adjoint_of(&__ad_v_v_6);
            let __ad_v_7 = __ad_v_v_6 > <__S as ::ad_runtime::Scalar>::from_f64(0.0);
            if __ad_v_7 {
                let __ad_v_8 = __ad_v_scale_1 * __ad_v_v_6;
                let (__ad_v_9, __ad_pb_9) = ::ad_runtime::rules::cos(
                    ::ad_runtime::__private::ir::value_of(__ad_v_v_6),
                );
                __ad_keep_v_9.push(::ad_runtime::__private::ir::value_of(__ad_v_9));
                __ad_keep_pb_9.push(__ad_pb_9);
                let __ad_v_10 = __ad_v_8 * __ad_v_9;
                let __ad_v_11 = __ad_m_total_0;
                let __ad_v_12 = __ad_v_11 + __ad_v_10;
                __ad_m_total_0 = __ad_v_12;
                __ad_tym_total_0 = ::ad_runtime::__private::ir::adjoint_of(
                    &__ad_m_total_0,
                );
            } else {
                let __ad_v_13 = __ad_m_total_0;
                let __ad_v_14 = __ad_v_13 - __ad_v_v_6;
                __ad_m_total_0 = __ad_v_14;
                __ad_tym_total_0 = ::ad_runtime::__private::ir::adjoint_of(
                    &__ad_m_total_0,
                );
            }
            {
                let __ad_iteration_0 = __ad_count_0 - 1;
                let mut __ad_unit0_dm_total_0 = <__S as ::ad_runtime::Scalar>::one();
                let __ad_v_5 = __ad_v_w_0[__ad_v_i_4];
                let __ad_v_v_6 = __ad_v_5;
                let __ad_v_7 = ::ad_runtime::__private::ir::value_of(__ad_v_7);
                let mut __ad_dv_5;
                let mut __ad_dv_v_6 = __ad_ty_v_6.zero();
                if __ad_v_7 {
                    let __ad_v_8 = __ad_v_scale_1 * __ad_v_v_6;
                    let __ad_v_9 = __ad_keep_v_9.pop();
                    let __ad_pb_9 = __ad_keep_pb_9.pop();
                    let mut __ad_dv_8;
                    let mut __ad_dv_9;
                    let mut __ad_dv_10;
                    let mut __ad_dv_11;
                    let mut __ad_dv_12;
                    __ad_dv_12 = ::ad_runtime::__private::ir::peek(
                        &mut __ad_unit0_dm_total_0,
                    );
                    {
                        let __ad_c = ::ad_runtime::__private::ir::add_back(__ad_dv_12);
                        __ad_dv_11 = __ad_c.0;
                        __ad_dv_10 = __ad_c.1;
                    }
                    {
                        let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                            ::ad_runtime::__private::ir::value_of(__ad_v_8),
                            ::ad_runtime::__private::ir::value_of(__ad_v_9),
                            __ad_dv_10,
                        );
                        __ad_dv_8 = __ad_c.0;
                        __ad_dv_9 = __ad_c.1;
                    }
                    {
                        let __ad_c = ::ad_runtime::linear::LinearMap::reverse_apply(
                            &__ad_pb_9,
                            __ad_dv_9,
                        );
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dv_v_6,
                            __ad_c,
                        );
                    }
                    ::ad_runtime::__private::ir::accumulate(
                        &mut __ad_dv_v_6,
                        ::ad_runtime::__private::ir::Arithmetic::factor_back(
                            ::ad_runtime::__private::ir::value_of(__ad_v_scale_1),
                            __ad_dv_8,
                        ),
                    );
                } else {
                    let mut __ad_dv_13;
                    let mut __ad_dv_14;
                    __ad_dv_14 = ::ad_runtime::__private::ir::peek(
                        &mut __ad_unit0_dm_total_0,
                    );
                    {
                        let __ad_c = ::ad_runtime::__private::ir::sub_back(__ad_dv_14);
                        __ad_dv_13 = __ad_c.0;
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dv_v_6,
                            __ad_c.1,
                        );
                    }
                }
                __ad_dv_5 = __ad_dv_v_6;
                ::ad_runtime::__private::ir::accumulate(
                    &mut __ad_dv_w_0[__ad_v_i_4],
                    __ad_dv_5,
                );
            }
        }
        let __ad_v_15 = __ad_m_total_0;
        let __ad_result = __ad_v_15;
        let __ad_v_2 = ::ad_runtime::__private::ir::value_of(__ad_v_2);
        let __ad_v_scale_1 = ::ad_runtime::__private::ir::value_of(__ad_v_scale_1);
        (
            __ad_result,
            move |__ad_ct: __S| {
                let mut __ad_dv_scale_1 = __ad_ty_scale_1.zero();
                let mut __ad_dm_total_0 = __ad_tym_total_0.zero();
                let mut __ad_dv_15;
                __ad_dv_15 = __ad_ct;
                ::ad_runtime::__private::ir::accumulate(
                    &mut __ad_dm_total_0,
                    __ad_dv_15,
                );
                let __ad_factor_0 = ::core::clone::Clone::clone(&__ad_dm_total_0);
                ::ad_runtime::__private::ir::scale_adjoint(
                    &mut __ad_dv_w_0,
                    &__ad_factor_0,
                );
                (__ad_dv_w_0, __ad_dv_scale_1)
            },
        )
    }
}
#[allow(dead_code)]
impl weighted {
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
        w: &[__S],
        scale: __S,
        d_out: __S,
    ) -> (__S, ::std::vec::Vec<__S>)
    where
        for<'__ad> &'__ad __S: ::ad_runtime::ScalarRef<__S>,
    {
        let (value, pullback) = weighted::__ad_reverse_borrowed(w, scale);
        let adjoints = pullback(d_out);
        (value, adjoints.0)
    }
}
/** Reverse-mode derivative of [`weighted`], generated by `#[reverse]`.

 `weighted_vjp(w, scale, d_out)` returns `(weighted(w, scale), d_out · J)`: the value, and the adjoint of each float parameter (a tuple in declared order when there are several) for the cotangent `d_out` of the result.*/
#[allow(
    dead_code,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity,
    unreachable_code
)]
#[inline]
fn weighted_vjp(w: &[f64], scale: f64, d_out: f64) -> (f64, ::std::vec::Vec<f64>) {
    weighted::vjp::<f64>(w, scale, d_out)
}
/// Jacobian of [`weighted`] by reverse mode, generated by `#[reverse]`: the value, and one row per float of the result (one `weighted_vjp` each), one column per float of the differentiable parameters in declared order.
#[inline]
#[allow(
    dead_code,
    unused_mut,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity
)]
fn weighted_jacrev(
    w: &[f64],
    scale: f64,
) -> (f64, ::std::vec::Vec<::std::vec::Vec<f64>>) {
    let __ad_value = weighted(w, scale);
    ::ad_runtime::__private::jacobian::reverse_jacobian::<
        f64,
        _,
        _,
    >(__ad_value, |__ad_cotangent| { weighted_vjp(w, scale, __ad_cotangent).1 })
}
#[allow(dead_code)]
impl weighted {
    #[doc(hidden)]
    #[inline]
    #[allow(
        dead_code,
        unused_variables,
        clippy::too_many_arguments,
        clippy::type_complexity,
        unreachable_code
    )]
    fn grad<__S: ::ad_runtime::Scalar<Base = f64>>(
        w: &[__S],
        scale: __S,
    ) -> (__S, ::std::vec::Vec<__S>)
    where
        for<'__ad> &'__ad __S: ::ad_runtime::ScalarRef<__S>,
    {
        weighted::vjp(w, scale, <__S as ::ad_runtime::Scalar>::one())
    }
}
/// Gradient of [`weighted`], generated by `#[reverse]`: `weighted_grad(w, scale)` is `weighted_vjp(w, scale, 1)`.
#[allow(
    dead_code,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity,
    unreachable_code
)]
#[inline]
fn weighted_grad(w: &[f64], scale: f64) -> (f64, ::std::vec::Vec<f64>) {
    weighted::grad::<f64>(w, scale)
}
/// Hessian of [`weighted`], generated by `#[reverse]`: the value, the gradient and the Hessian (a row and a column per float of the differentiable parameters in declared order), by the vector forward mode over the gradient.
#[inline]
#[allow(
    dead_code,
    unused_mut,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity
)]
fn weighted_hessian(
    w: &[f64],
    scale: f64,
) -> (f64, ::std::vec::Vec<f64>, ::std::vec::Vec<::std::vec::Vec<f64>>) {
    {
        const __AD_CHUNK: usize = ::ad_runtime::__private::jacobian::CHUNK;
        let __ad_inputs = 0
            + ::ad_runtime::__private::jacobian::Directions::<f64>::count(&w);
        let mut __ad_seeded_w = ::ad_runtime::__private::jacobian::Directions::<
            f64,
        >::constant::<__AD_CHUNK>(&w);
        let __ad_seeded_scale = ::ad_runtime::__private::jacobian::Directions::<
            f64,
        >::constant::<__AD_CHUNK>(&scale);
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
                >(&w, &mut __ad_seeded_w, __ad_start, &mut __ad_offset);
                let _ = __ad_offset;
                weighted::grad::<
                    ::ad_runtime::DualVec<f64, __AD_CHUNK>,
                >(&__ad_seeded_w, ::core::clone::Clone::clone(&__ad_seeded_scale))
            },
        )
    }
}
/// Hessian-vector product of [`weighted`], generated by `#[reverse]`: the value, and the Hessian times the direction (dw) shaped as the gradient, by forward mode over the gradient (one pass).
#[inline]
#[allow(
    dead_code,
    unused_mut,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity
)]
fn weighted_hvp(w: &[f64], scale: f64, dw: &[f64]) -> (f64, ::std::vec::Vec<f64>) {
    let __ad_seeded_w = ::ad_runtime::__private::Seed::seed(w, dw);
    let __ad_seeded_scale = ::ad_runtime::__private::Seed::constant(scale);
    let (__ad_value, __ad_adjoints) = weighted::grad::<
        ::ad_runtime::Dual<f64>,
    >(&__ad_seeded_w, __ad_seeded_scale);
    (__ad_value.value, ::ad_runtime::__private::DualParts::split(__ad_adjoints).1)
}
#[allow(dead_code)]
impl weighted {
    #[doc(hidden)]
    pub const __AD_ENGINE: &'static str = "ir";
}
