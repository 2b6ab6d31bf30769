// The expansion of exits_and_containers.rs by #[reverse] (IR engine). Written by `UPDATE_SNAPSHOTS=1 cargo test -p ad-macros`.

fn first_large(x: &[f64], limit: f64) -> f64 {
    let mut kept = Vec::new();
    for i in 0..x.len() {
        if x[i] < 0.0 {
            continue;
        }
        kept.push(x[i] * limit);
        if x[i] > limit {
            break;
        }
    }
    let mut total = 0.0;
    let mut k = 0;
    while k < kept.len() {
        total += kept[k].sqrt();
        k += 1;
    }
    total
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct first_large {}
#[allow(dead_code)]
impl first_large {
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
    fn __ad_forward<__S: ::ad_runtime::Scalar<Base = f64>>(x: &[__S], limit: __S) -> __S
    where
        for<'__ad> &'__ad __S: ::ad_runtime::ScalarRef<__S>,
    {
        let _ = first_large;
        #[allow(unused_imports)]
        use ::ad_runtime::__private::{
            CastPrimitive as _, CastScalar as _, LiftConstant as _,
            LiftConstantOther as _, LiftBorrowed as _, LiftDerived as _,
            LiftBorrowedOther as _, LiftFloat as _, LiftOption as _, LiftOther as _,
            LiftTuple as _, LiftZipped as _, LiftZippedOther as _,
        };
        let mut kept = ::ad_runtime::__private::LiftProbe::new(Vec::new())
            .__ad_lift::<__S>();
        for i in 0..x.len() {
            if x[i] < <__S as ::ad_runtime::Scalar>::from_f64(0.0) {
                continue;
            }
            kept.push(x[i] * limit);
            if x[i] > limit {
                break;
            }
        }
        let mut total = <__S as ::ad_runtime::Scalar>::from_f64(0.0);
        let mut k = 0;
        while k < kept.len() {
            total += kept[k].sqrt();
            k += 1;
        }
        total
    }
}
#[allow(dead_code)]
impl first_large {
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
        x: &[__S],
        limit: __S,
    ) -> (
        __S,
        ::std::boxed::Box<dyn ::core::ops::FnOnce(__S) -> (::std::vec::Vec<__S>, __S)>,
    )
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
            ::std::boxed::Box<
                dyn ::core::ops::FnOnce(__S) -> (::std::vec::Vec<__S>, __S),
            >,
        ) {
            let __ad_v_x_0 = x;
            let mut __ad_dv_x_0 = ::ad_runtime::__private::ir::zero_like(__ad_v_x_0);
            let __ad_v_limit_1 = limit;
            let __ad_ty_limit_1 = ::ad_runtime::__private::ir::adjoint_of(
                &__ad_v_limit_1,
            );
            let mut __ad_keep_v_9 = ::ad_runtime::__private::ir::Stack::new();
            let mut __ad_keep_v_10 = ::ad_runtime::__private::ir::Stack::new();
            let mut __ad_keep_v_12 = ::ad_runtime::__private::ir::Stack::new();
            let mut __ad_keep_v_17 = ::ad_runtime::__private::ir::Stack::new();
            let mut __ad_keep_v_20 = ::ad_runtime::__private::ir::Stack::new();
            let mut __ad_tym_kept_0 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_total_3 = ::ad_runtime::__private::ir::AdjointOf::new();
            let __ad_v_2 = ::std::vec::Vec::new();
            let mut __ad_m_kept_0 = __ad_v_2;
            __ad_tym_kept_0 = ::ad_runtime::__private::ir::adjoint_of(&__ad_m_kept_0);
            let __ad_v_3 = __ad_v_x_0.len();
            let __ad_v_4 = 0..__ad_v_3;
            let mut __ad_m_skip_1 = false;
            let mut __ad_m_broken_2 = false;
            let __ad_trips = ::core::iter::Iterator::size_hint(&__ad_v_4).0;
            __ad_keep_v_9.reserve(__ad_trips);
            let mut __ad_count_0 = 0usize;
            for __ad_v_i_5 in __ad_v_4 {
                __ad_count_0 += 1;
                __ad_m_skip_1 = false;
                let __ad_v_6 = __ad_v_x_0[__ad_v_i_5];
                let __ad_v_7 = __ad_v_6 < <__S as ::ad_runtime::Scalar>::from_f64(0.0);
                if __ad_v_7 {
                    __ad_m_skip_1 = true;
                } else {}
                let __ad_v_8 = __ad_m_skip_1;
                let __ad_v_9 = !__ad_v_8;
                __ad_keep_v_9.push(::ad_runtime::__private::ir::value_of(__ad_v_9));
                if __ad_v_9 {
                    let __ad_v_10 = __ad_v_x_0[__ad_v_i_5];
                    __ad_keep_v_10
                        .push(::ad_runtime::__private::ir::value_of(__ad_v_10));
                    let __ad_v_11 = __ad_v_10 * __ad_v_limit_1;
                    let __ad_v_12 = __ad_m_kept_0.len();
                    __ad_m_kept_0.push(__ad_v_11);
                    __ad_keep_v_12
                        .push(::ad_runtime::__private::ir::value_of(__ad_v_12));
                    let __ad_v_13 = __ad_v_10;
                    let __ad_v_14 = __ad_v_13 > __ad_v_limit_1;
                    if __ad_v_14 {
                        __ad_m_skip_1 = true;
                        __ad_m_broken_2 = true;
                    } else {}
                } else {}
                if __ad_m_broken_2 {
                    break;
                }
            }
            let mut __ad_m_total_3 = <__S as ::ad_runtime::Scalar>::from_f64(0.0);
            __ad_tym_total_3 = ::ad_runtime::__private::ir::adjoint_of(&__ad_m_total_3);
            let mut __ad_m_k_4 = 0;
            let mut __ad_m_skip_5 = false;
            let mut __ad_m_broken_6 = false;
            let __ad_v_k_26 = __ad_m_k_4;
            let mut __ad_count_1 = 0usize;
            loop {
                __ad_count_1 += 1;
                __ad_m_skip_5 = false;
                let __ad_v_15 = __ad_m_k_4;
                let __ad_v_16 = __ad_m_kept_0.len();
                let __ad_v_17 = __ad_v_15 < __ad_v_16;
                __ad_keep_v_17.push(::ad_runtime::__private::ir::value_of(__ad_v_17));
                if __ad_v_17 {
                    let __ad_v_18 = __ad_v_15;
                    let __ad_v_19 = __ad_m_kept_0[__ad_v_18];
                    let __ad_v_20 = __ad_v_19.sqrt();
                    __ad_keep_v_20
                        .push(::ad_runtime::__private::ir::value_of(__ad_v_20));
                    let __ad_v_21 = __ad_m_total_3;
                    let __ad_v_22 = __ad_v_21 + __ad_v_20;
                    __ad_m_total_3 = __ad_v_22;
                    __ad_tym_total_3 = ::ad_runtime::__private::ir::adjoint_of(
                        &__ad_m_total_3,
                    );
                    let __ad_v_23 = __ad_v_15;
                    let __ad_v_24 = __ad_v_23 + 1;
                    __ad_m_k_4 = __ad_v_24;
                } else {
                    __ad_m_skip_5 = true;
                    __ad_m_broken_6 = true;
                }
                if __ad_m_broken_6 {
                    break;
                }
            }
            let __ad_v_25 = __ad_m_total_3;
            let __ad_result = __ad_v_25;
            let __ad_v_3 = ::ad_runtime::__private::ir::value_of(__ad_v_3);
            let __ad_v_k_26 = ::ad_runtime::__private::ir::value_of(__ad_v_k_26);
            let __ad_v_limit_1 = ::ad_runtime::__private::ir::value_of(__ad_v_limit_1);
            (
                __ad_result,
                ::std::boxed::Box::new(move |__ad_ct: __S| {
                    ::ad_runtime::__private::maybe_grow(move || {
                        let mut __ad_dv_limit_1 = __ad_ty_limit_1.zero();
                        let mut __ad_dm_kept_0 = __ad_tym_kept_0.zero();
                        let mut __ad_dm_total_3 = __ad_tym_total_3.zero();
                        let mut __ad_dv_25;
                        __ad_dv_25 = __ad_ct;
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dm_total_3,
                            __ad_dv_25,
                        );
                        for __ad_iteration_1 in (0..__ad_count_1).rev() {
                            let __ad_v_15 = ::ad_runtime::__private::ir::counter_at(
                                __ad_v_k_26,
                                __ad_iteration_1,
                                1,
                                true,
                                false,
                            );
                            let __ad_v_17 = __ad_keep_v_17.pop();
                            if __ad_v_17 {
                                let __ad_v_18 = __ad_v_15;
                                let __ad_v_20 = __ad_keep_v_20.pop();
                                let mut __ad_dv_19;
                                let mut __ad_dv_20;
                                let mut __ad_dv_21;
                                let mut __ad_dv_22;
                                __ad_dv_22 = ::ad_runtime::__private::ir::peek(
                                    &mut __ad_dm_total_3,
                                );
                                {
                                    let __ad_c = ::ad_runtime::__private::ir::add_back(
                                        __ad_dv_22,
                                    );
                                    __ad_dv_21 = __ad_c.0;
                                    __ad_dv_20 = __ad_c.1;
                                }
                                {
                                    let __ad_c = ::ad_runtime::linear::LinearMap::reverse_apply(
                                        &::ad_runtime::rules::sqrt_from_value(
                                            ::ad_runtime::__private::ir::value_of(__ad_v_20),
                                        ),
                                        __ad_dv_20,
                                    );
                                    __ad_dv_19 = __ad_c;
                                }
                                ::ad_runtime::__private::ir::accumulate(
                                    &mut (*::ad_runtime::__private::ir::slot(
                                        &mut __ad_dm_kept_0,
                                        __ad_v_18,
                                    )),
                                    __ad_dv_19,
                                );
                            } else {}
                        }
                        for __ad_iteration_0 in (0..__ad_count_0).rev() {
                            let __ad_v_i_5 = ::ad_runtime::__private::ir::nth_of_range(
                                0,
                                &__ad_v_3,
                                __ad_iteration_0,
                            );
                            let __ad_v_9 = __ad_keep_v_9.pop();
                            if __ad_v_9 {
                                let __ad_v_10 = __ad_keep_v_10.pop();
                                let __ad_v_12 = __ad_keep_v_12.pop();
                                let mut __ad_dv_10;
                                let mut __ad_dv_11;
                                __ad_dv_11 = ::ad_runtime::__private::ir::unpush(
                                    &mut __ad_dm_kept_0,
                                    __ad_v_12,
                                );
                                {
                                    let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                                        ::ad_runtime::__private::ir::value_of(__ad_v_10),
                                        ::ad_runtime::__private::ir::value_of(__ad_v_limit_1),
                                        __ad_dv_11,
                                    );
                                    __ad_dv_10 = __ad_c.0;
                                    ::ad_runtime::__private::ir::accumulate(
                                        &mut __ad_dv_limit_1,
                                        __ad_c.1,
                                    );
                                }
                                ::ad_runtime::__private::ir::accumulate(
                                    &mut __ad_dv_x_0[__ad_v_i_5],
                                    __ad_dv_10,
                                );
                            } else {}
                        }
                        (__ad_dv_x_0, __ad_dv_limit_1)
                    })
                }),
            )
        })
    }
}
#[allow(dead_code)]
impl first_large {
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
        x: &'__ad_p [__S],
        limit: __S,
    ) -> (
        __S,
        ::std::boxed::Box<
            dyn ::core::ops::FnOnce(__S) -> (::std::vec::Vec<__S>, __S) + '__ad_p,
        >,
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
        ::ad_runtime::__private::maybe_grow(move || -> (
            __S,
            ::std::boxed::Box<
                dyn ::core::ops::FnOnce(__S) -> (::std::vec::Vec<__S>, __S) + '__ad_p,
            >,
        ) {
            let __ad_v_x_0 = x;
            let mut __ad_dv_x_0 = ::ad_runtime::__private::ir::zero_like(__ad_v_x_0);
            let __ad_v_limit_1 = limit;
            let __ad_ty_limit_1 = ::ad_runtime::__private::ir::adjoint_of(
                &__ad_v_limit_1,
            );
            let mut __ad_keep_v_9 = ::ad_runtime::__private::ir::Stack::new();
            let mut __ad_keep_v_12 = ::ad_runtime::__private::ir::Stack::new();
            let mut __ad_keep_v_17 = ::ad_runtime::__private::ir::Stack::new();
            let mut __ad_keep_v_20 = ::ad_runtime::__private::ir::Stack::new();
            let mut __ad_tym_kept_0 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_total_3 = ::ad_runtime::__private::ir::AdjointOf::new();
            let __ad_v_2 = ::std::vec::Vec::new();
            let mut __ad_m_kept_0 = __ad_v_2;
            __ad_tym_kept_0 = ::ad_runtime::__private::ir::adjoint_of(&__ad_m_kept_0);
            let __ad_v_3 = __ad_v_x_0.len();
            let __ad_v_4 = 0..__ad_v_3;
            let mut __ad_m_skip_1 = false;
            let mut __ad_m_broken_2 = false;
            let __ad_trips = ::core::iter::Iterator::size_hint(&__ad_v_4).0;
            __ad_keep_v_9.reserve(__ad_trips);
            let mut __ad_count_0 = 0usize;
            for __ad_v_i_5 in __ad_v_4 {
                __ad_count_0 += 1;
                __ad_m_skip_1 = false;
                let __ad_v_6 = __ad_v_x_0[__ad_v_i_5];
                let __ad_v_7 = __ad_v_6 < <__S as ::ad_runtime::Scalar>::from_f64(0.0);
                if __ad_v_7 {
                    __ad_m_skip_1 = true;
                } else {}
                let __ad_v_8 = __ad_m_skip_1;
                let __ad_v_9 = !__ad_v_8;
                __ad_keep_v_9.push(::ad_runtime::__private::ir::value_of(__ad_v_9));
                if __ad_v_9 {
                    let __ad_v_10 = __ad_v_x_0[__ad_v_i_5];
                    let __ad_v_11 = __ad_v_10 * __ad_v_limit_1;
                    let __ad_v_12 = __ad_m_kept_0.len();
                    __ad_m_kept_0.push(__ad_v_11);
                    __ad_keep_v_12
                        .push(::ad_runtime::__private::ir::value_of(__ad_v_12));
                    let __ad_v_13 = __ad_v_10;
                    let __ad_v_14 = __ad_v_13 > __ad_v_limit_1;
                    if __ad_v_14 {
                        __ad_m_skip_1 = true;
                        __ad_m_broken_2 = true;
                    } else {}
                } else {}
                if __ad_m_broken_2 {
                    break;
                }
            }
            let mut __ad_m_total_3 = <__S as ::ad_runtime::Scalar>::from_f64(0.0);
            __ad_tym_total_3 = ::ad_runtime::__private::ir::adjoint_of(&__ad_m_total_3);
            let mut __ad_m_k_4 = 0;
            let mut __ad_m_skip_5 = false;
            let mut __ad_m_broken_6 = false;
            let __ad_v_k_26 = __ad_m_k_4;
            let mut __ad_count_1 = 0usize;
            loop {
                __ad_count_1 += 1;
                __ad_m_skip_5 = false;
                let __ad_v_15 = __ad_m_k_4;
                let __ad_v_16 = __ad_m_kept_0.len();
                let __ad_v_17 = __ad_v_15 < __ad_v_16;
                __ad_keep_v_17.push(::ad_runtime::__private::ir::value_of(__ad_v_17));
                if __ad_v_17 {
                    let __ad_v_18 = __ad_v_15;
                    let __ad_v_19 = __ad_m_kept_0[__ad_v_18];
                    let __ad_v_20 = __ad_v_19.sqrt();
                    __ad_keep_v_20
                        .push(::ad_runtime::__private::ir::value_of(__ad_v_20));
                    let __ad_v_21 = __ad_m_total_3;
                    let __ad_v_22 = __ad_v_21 + __ad_v_20;
                    __ad_m_total_3 = __ad_v_22;
                    __ad_tym_total_3 = ::ad_runtime::__private::ir::adjoint_of(
                        &__ad_m_total_3,
                    );
                    let __ad_v_23 = __ad_v_15;
                    let __ad_v_24 = __ad_v_23 + 1;
                    __ad_m_k_4 = __ad_v_24;
                } else {
                    __ad_m_skip_5 = true;
                    __ad_m_broken_6 = true;
                }
                if __ad_m_broken_6 {
                    break;
                }
            }
            let __ad_v_25 = __ad_m_total_3;
            let __ad_result = __ad_v_25;
            let __ad_v_3 = ::ad_runtime::__private::ir::value_of(__ad_v_3);
            let __ad_v_k_26 = ::ad_runtime::__private::ir::value_of(__ad_v_k_26);
            let __ad_v_limit_1 = ::ad_runtime::__private::ir::value_of(__ad_v_limit_1);
            (
                __ad_result,
                ::std::boxed::Box::new(move |__ad_ct: __S| {
                    ::ad_runtime::__private::maybe_grow(move || {
                        let mut __ad_dv_limit_1 = __ad_ty_limit_1.zero();
                        let mut __ad_dm_kept_0 = __ad_tym_kept_0.zero();
                        let mut __ad_dm_total_3 = __ad_tym_total_3.zero();
                        let mut __ad_dv_25;
                        __ad_dv_25 = __ad_ct;
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dm_total_3,
                            __ad_dv_25,
                        );
                        for __ad_iteration_1 in (0..__ad_count_1).rev() {
                            let __ad_v_15 = ::ad_runtime::__private::ir::counter_at(
                                __ad_v_k_26,
                                __ad_iteration_1,
                                1,
                                true,
                                false,
                            );
                            let __ad_v_17 = __ad_keep_v_17.pop();
                            if __ad_v_17 {
                                let __ad_v_18 = __ad_v_15;
                                let __ad_v_20 = __ad_keep_v_20.pop();
                                let mut __ad_dv_19;
                                let mut __ad_dv_20;
                                let mut __ad_dv_21;
                                let mut __ad_dv_22;
                                __ad_dv_22 = ::ad_runtime::__private::ir::peek(
                                    &mut __ad_dm_total_3,
                                );
                                {
                                    let __ad_c = ::ad_runtime::__private::ir::add_back(
                                        __ad_dv_22,
                                    );
                                    __ad_dv_21 = __ad_c.0;
                                    __ad_dv_20 = __ad_c.1;
                                }
                                {
                                    let __ad_c = ::ad_runtime::linear::LinearMap::reverse_apply(
                                        &::ad_runtime::rules::sqrt_from_value(
                                            ::ad_runtime::__private::ir::value_of(__ad_v_20),
                                        ),
                                        __ad_dv_20,
                                    );
                                    __ad_dv_19 = __ad_c;
                                }
                                ::ad_runtime::__private::ir::accumulate(
                                    &mut (*::ad_runtime::__private::ir::slot(
                                        &mut __ad_dm_kept_0,
                                        __ad_v_18,
                                    )),
                                    __ad_dv_19,
                                );
                            } else {}
                        }
                        for __ad_iteration_0 in (0..__ad_count_0).rev() {
                            let __ad_v_i_5 = ::ad_runtime::__private::ir::nth_of_range(
                                0,
                                &__ad_v_3,
                                __ad_iteration_0,
                            );
                            let __ad_v_9 = __ad_keep_v_9.pop();
                            if __ad_v_9 {
                                let __ad_v_10 = __ad_v_x_0[__ad_v_i_5];
                                let __ad_v_12 = __ad_keep_v_12.pop();
                                let mut __ad_dv_10;
                                let mut __ad_dv_11;
                                __ad_dv_11 = ::ad_runtime::__private::ir::unpush(
                                    &mut __ad_dm_kept_0,
                                    __ad_v_12,
                                );
                                {
                                    let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                                        ::ad_runtime::__private::ir::value_of(__ad_v_10),
                                        ::ad_runtime::__private::ir::value_of(__ad_v_limit_1),
                                        __ad_dv_11,
                                    );
                                    __ad_dv_10 = __ad_c.0;
                                    ::ad_runtime::__private::ir::accumulate(
                                        &mut __ad_dv_limit_1,
                                        __ad_c.1,
                                    );
                                }
                                ::ad_runtime::__private::ir::accumulate(
                                    &mut __ad_dv_x_0[__ad_v_i_5],
                                    __ad_dv_10,
                                );
                            } else {}
                        }
                        (__ad_dv_x_0, __ad_dv_limit_1)
                    })
                }),
            )
        })
    }
}
#[allow(dead_code)]
impl first_large {
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
        x: &[__S],
        limit: __S,
        d_out: __S,
    ) -> (__S, (::std::vec::Vec<__S>, __S))
    where
        for<'__ad> &'__ad __S: ::ad_runtime::ScalarRef<__S>,
    {
        let (value, pullback) = first_large::__ad_reverse_borrowed(x, limit);
        let adjoints = pullback(d_out);
        (value, (adjoints.0, adjoints.1))
    }
}
/** Reverse-mode derivative of [`first_large`], generated by `#[reverse]`.

 `first_large_vjp(x, limit, d_out)` returns `(first_large(x, limit), d_out · J)`: the value, and the adjoint of each float parameter (a tuple in declared order when there are several) for the cotangent `d_out` of the result.*/
#[allow(
    dead_code,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity,
    unreachable_code
)]
#[inline]
fn first_large_vjp(
    x: &[f64],
    limit: f64,
    d_out: f64,
) -> (f64, (::std::vec::Vec<f64>, f64)) {
    first_large::vjp::<f64>(x, limit, d_out)
}
/// Jacobian of [`first_large`] by reverse mode, generated by `#[reverse]`: the value, and one row per float of the result (one `first_large_vjp` each), one column per float of the differentiable parameters in declared order.
#[inline]
#[allow(
    dead_code,
    unused_mut,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity
)]
fn first_large_jacrev(
    x: &[f64],
    limit: f64,
) -> (f64, ::std::vec::Vec<::std::vec::Vec<f64>>) {
    let __ad_value = first_large(x, limit);
    ::ad_runtime::__private::jacobian::reverse_jacobian::<
        f64,
        _,
        _,
    >(__ad_value, |__ad_cotangent| { first_large_vjp(x, limit, __ad_cotangent).1 })
}
#[allow(dead_code)]
impl first_large {
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
        x: &[__S],
        limit: __S,
    ) -> (__S, (::std::vec::Vec<__S>, __S))
    where
        for<'__ad> &'__ad __S: ::ad_runtime::ScalarRef<__S>,
    {
        first_large::vjp(x, limit, <__S as ::ad_runtime::Scalar>::one())
    }
}
/// Gradient of [`first_large`], generated by `#[reverse]`: `first_large_grad(x, limit)` is `first_large_vjp(x, limit, 1)`.
#[allow(
    dead_code,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity,
    unreachable_code
)]
#[inline]
fn first_large_grad(x: &[f64], limit: f64) -> (f64, (::std::vec::Vec<f64>, f64)) {
    first_large::grad::<f64>(x, limit)
}
/// Hessian of [`first_large`], generated by `#[reverse]`: the value, the gradient and the Hessian (a row and a column per float of the differentiable parameters in declared order), by the vector forward mode over the gradient.
#[inline]
#[allow(
    dead_code,
    unused_mut,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity
)]
fn first_large_hessian(
    x: &[f64],
    limit: f64,
) -> (f64, ::std::vec::Vec<f64>, ::std::vec::Vec<::std::vec::Vec<f64>>) {
    {
        const __AD_CHUNK: usize = ::ad_runtime::__private::jacobian::CHUNK;
        let __ad_inputs = 0
            + ::ad_runtime::__private::jacobian::Directions::<f64>::count(&x)
            + ::ad_runtime::__private::jacobian::Directions::<f64>::count(&limit);
        let mut __ad_seeded_x = ::ad_runtime::__private::jacobian::Directions::<
            f64,
        >::constant::<__AD_CHUNK>(&x);
        let mut __ad_seeded_limit = ::ad_runtime::__private::jacobian::Directions::<
            f64,
        >::constant::<__AD_CHUNK>(&limit);
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
                ::ad_runtime::__private::jacobian::Directions::<
                    f64,
                >::reseed::<
                    __AD_CHUNK,
                >(&limit, &mut __ad_seeded_limit, __ad_start, &mut __ad_offset);
                let _ = __ad_offset;
                first_large::grad::<
                    ::ad_runtime::DualVec<f64, __AD_CHUNK>,
                >(&__ad_seeded_x, ::core::clone::Clone::clone(&__ad_seeded_limit))
            },
        )
    }
}
/// Hessian-vector product of [`first_large`], generated by `#[reverse]`: the value, and the Hessian times the direction (dx, d_limit) shaped as the gradient, by forward mode over the gradient (one pass).
#[inline]
#[allow(
    dead_code,
    unused_mut,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity
)]
fn first_large_hvp(
    x: &[f64],
    limit: f64,
    dx: &[f64],
    d_limit: f64,
) -> (f64, (::std::vec::Vec<f64>, f64)) {
    let __ad_seeded_x = ::ad_runtime::__private::Seed::seed(x, dx);
    let __ad_seeded_limit = ::ad_runtime::__private::Seed::seed(limit, d_limit);
    let (__ad_value, __ad_adjoints) = first_large::grad::<
        ::ad_runtime::Dual<f64>,
    >(&__ad_seeded_x, __ad_seeded_limit);
    (__ad_value.value, ::ad_runtime::__private::DualParts::split(__ad_adjoints).1)
}
#[allow(dead_code)]
impl first_large {
    #[doc(hidden)]
    pub const __AD_ENGINE: &'static str = "ir";
}
