// The expansion of checkpoints.rs by #[reverse] (IR engine). Written by `UPDATE_SNAPSHOTS=1 cargo test -p ad-macros`.

fn checkpoints(x: f64, n: usize) -> f64 {
    let a = {
        let t = x.sin() * x;
        t.exp()
    };
    let mut s = a;
    let _ = &4;
    for i in 0..n {
        s = s * 0.5 + (x * i as f64).cos();
    }
    s
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct checkpoints {}
#[allow(dead_code)]
impl checkpoints {
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
        let _ = checkpoints;
        #[allow(unused_imports)]
        use ::ad_runtime::__private::{
            CastPrimitive as _, CastScalar as _, LiftConstant as _,
            LiftConstantOther as _, LiftBorrowed as _, LiftDerived as _,
            LiftBorrowedOther as _, LiftFloat as _, LiftOption as _, LiftOther as _,
            LiftTuple as _, LiftZipped as _, LiftZippedOther as _,
        };
        let a = {
            let t = x.sin() * x;
            t.exp()
        };
        let mut s = a;
        let _ = &4;
        for i in 0..n {
            s = ::ad_runtime::__private::constant_ops::mul(s, 0.5)
                + (x * ::ad_runtime::__private::CastProbe::new(i).__ad_cast::<__S>())
                    .cos();
        }
        s
    }
}
#[allow(dead_code)]
impl checkpoints {
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
    ) -> (__S, impl ::core::ops::FnOnce(__S) -> (__S, ()) + use<__S>)
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
        let __ad_v_x_0 = x;
        let __ad_ty_x_0 = ::ad_runtime::__private::ir::adjoint_of(&__ad_v_x_0);
        let __ad_v_n_1 = n;
        let mut __ad_keep_v_i_9 = ::ad_runtime::__private::ir::Stack::new();
        let mut __ad_keep_pb_14 = ::ad_runtime::__private::ir::Stack::new();
        let mut __ad_keep_count_0 = ::ad_runtime::__private::ir::Stack::new();
        let mut __ad_keep_v_2 = ::ad_runtime::__private::ir::Slot::new();
        let mut __ad_keep_pb_2 = ::ad_runtime::__private::ir::Slot::new();
        let mut __ad_keep_v_5 = ::ad_runtime::__private::ir::Slot::new();
        let mut __ad_keep_region_0 = ::ad_runtime::__private::ir::Stack::new();
        let mut __ad_keep_region_1 = ::ad_runtime::__private::ir::Stack::new();
        let mut __ad_ty_10 = ::ad_runtime::__private::ir::AdjointOf::new();
        let mut __ad_ty_11 = ::ad_runtime::__private::ir::AdjointOf::new();
        let mut __ad_ty_13 = ::ad_runtime::__private::ir::AdjointOf::new();
        let mut __ad_ty_14 = ::ad_runtime::__private::ir::AdjointOf::new();
        let mut __ad_ty_15 = ::ad_runtime::__private::ir::AdjointOf::new();
        let mut __ad_tym_s_0 = ::ad_runtime::__private::ir::AdjointOf::new();
        let mut __ad_ty_2 = ::ad_runtime::__private::ir::AdjointOf::new();
        let mut __ad_ty_3 = ::ad_runtime::__private::ir::AdjointOf::new();
        let mut __ad_ty_t_4 = ::ad_runtime::__private::ir::AdjointOf::new();
        let mut __ad_ty_5 = ::ad_runtime::__private::ir::AdjointOf::new();
        let __ad_v_6 = {
            __ad_keep_region_0
                .push((::ad_runtime::checkpoint::snapshot_of(&__ad_v_x_0),));
            let __ad_v_2 = __ad_v_x_0.sin();
            let __ad_v_3 = __ad_v_2 * __ad_v_x_0;
            let __ad_v_t_4 = __ad_v_3;
            let __ad_v_5 = __ad_v_t_4.exp();
            __ad_v_5
        };
        let __ad_v_a_7 = __ad_v_6;
        let mut __ad_m_s_0 = __ad_v_a_7;
        __ad_tym_s_0 = ::ad_runtime::__private::ir::adjoint_of(&__ad_m_s_0);
        let __ad_v_8 = 0..__ad_v_n_1;
        {
            let mut __ad_checkpoints_1 = ::ad_runtime::checkpoint::Checkpoints::new(
                ::ad_runtime::checkpoint::Schedule::Every((4) as usize),
            );
            let mut __ad_iterations_1 = 0usize;
            let mut __ad_iterator_1 = ::core::iter::IntoIterator::into_iter(__ad_v_8);
            loop {
                __ad_checkpoints_1
                    .before_iteration(
                        __ad_iterations_1,
                        || (
                            (::ad_runtime::checkpoint::snapshot_of(&__ad_m_s_0),),
                            ::core::clone::Clone::clone(&__ad_iterator_1),
                        ),
                    );
                let ::core::option::Option::Some(__ad_v_i_9) = ::core::iter::Iterator::next(
                    &mut __ad_iterator_1,
                ) else {
                    break;
                };
                __ad_iterations_1 += 1;
                {
                    let __ad_v_10 = __ad_m_s_0;
                    let __ad_v_11 = __ad_v_10
                        * <__S as ::ad_runtime::Scalar>::from_f64(0.5);
                    let __ad_v_12 = ::ad_runtime::__private::CastProbe::new(__ad_v_i_9)
                        .__ad_cast::<__S>();
                    let __ad_v_13 = __ad_v_x_0
                        * ::ad_runtime::__private::LiftProbe::new(__ad_v_12)
                            .__ad_lift::<__S>();
                    let __ad_v_14 = __ad_v_13.cos();
                    let __ad_v_15 = __ad_v_11 + __ad_v_14;
                    __ad_m_s_0 = __ad_v_15;
                }
            }
            __ad_checkpoints_1.finish(__ad_iterations_1);
            __ad_keep_region_1
                .push((
                    __ad_checkpoints_1,
                    (::ad_runtime::checkpoint::snapshot_of(&__ad_v_x_0),),
                ));
        }
        let __ad_v_16 = __ad_m_s_0;
        let __ad_result = __ad_v_16;
        let __ad_v_x_0 = ::ad_runtime::__private::ir::value_of(__ad_v_x_0);
        (
            __ad_result,
            move |__ad_ct: __S| {
                let mut __ad_dv_x_0 = __ad_ty_x_0.zero();
                let mut __ad_dm_s_0 = __ad_tym_s_0.zero();
                let mut __ad_dv_6;
                let mut __ad_dv_a_7;
                let mut __ad_dv_16;
                __ad_dv_16 = __ad_ct;
                ::ad_runtime::__private::ir::accumulate(&mut __ad_dm_s_0, __ad_dv_16);
                let (__ad_checkpoints_1, (__ad_v_x_0,)) = __ad_keep_region_1.pop();
                __ad_checkpoints_1
                    .reverse(
                        |((mut __ad_m_s_0,), mut __ad_iterator_1), __ad_steps_1: usize| {
                            for _ in 0..__ad_steps_1 {
                                let ::core::option::Option::Some(__ad_v_i_9) = ::core::iter::Iterator::next(
                                    &mut __ad_iterator_1,
                                ) else {
                                    break;
                                };
                                {
                                    let __ad_v_10 = __ad_m_s_0;
                                    let __ad_v_11 = __ad_v_10
                                        * <__S as ::ad_runtime::Scalar>::from_f64(0.5);
                                    let __ad_v_12 = ::ad_runtime::__private::CastProbe::new(
                                            __ad_v_i_9,
                                        )
                                        .__ad_cast::<__S>();
                                    let __ad_v_13 = __ad_v_x_0
                                        * ::ad_runtime::__private::LiftProbe::new(__ad_v_12)
                                            .__ad_lift::<__S>();
                                    let __ad_v_14 = __ad_v_13.cos();
                                    let __ad_v_15 = __ad_v_11 + __ad_v_14;
                                    __ad_m_s_0 = __ad_v_15;
                                }
                            }
                            ((__ad_m_s_0,), __ad_iterator_1)
                        },
                        |((mut __ad_m_s_0,), mut __ad_iterator_1), __ad_steps_1: usize| {
                            let __ad_trips = ::core::iter::Iterator::size_hint(
                                    &::core::iter::Iterator::take(
                                        &mut __ad_iterator_1,
                                        __ad_steps_1,
                                    ),
                                )
                                .0;
                            __ad_keep_v_i_9.reserve(__ad_trips);
                            __ad_keep_pb_14.reserve(__ad_trips);
                            let mut __ad_count_0 = 0usize;
                            for __ad_v_i_9 in ::core::iter::Iterator::take(
                                &mut __ad_iterator_1,
                                __ad_steps_1,
                            ) {
                                __ad_count_0 += 1;
                                __ad_keep_v_i_9
                                    .push(::ad_runtime::__private::ir::value_of(__ad_v_i_9));
                                let __ad_v_10 = __ad_m_s_0;
                                __ad_ty_10 = ::ad_runtime::__private::ir::adjoint_of(
                                    &__ad_v_10,
                                );
                                let __ad_v_11 = __ad_v_10
                                    * <__S as ::ad_runtime::Scalar>::from_f64(0.5);
                                __ad_ty_11 = ::ad_runtime::__private::ir::adjoint_of(
                                    &__ad_v_11,
                                );
                                let __ad_v_12 = ::ad_runtime::__private::CastProbe::new(
                                        __ad_v_i_9,
                                    )
                                    .__ad_cast::<__S>();
                                let __ad_v_13 = __ad_v_x_0
                                    * ::ad_runtime::__private::LiftProbe::new(__ad_v_12)
                                        .__ad_lift::<__S>();
                                __ad_ty_13 = ::ad_runtime::__private::ir::adjoint_of(
                                    &__ad_v_13,
                                );
                                let (__ad_v_14, __ad_pb_14) = ::ad_runtime::rules::cos(
                                    ::ad_runtime::__private::ir::value_of(__ad_v_13),
                                );
                                __ad_ty_14 = ::ad_runtime::__private::ir::adjoint_of(
                                    &__ad_v_14,
                                );
                                __ad_keep_pb_14.push(__ad_pb_14);
                                let __ad_v_15 = __ad_v_11 + __ad_v_14;
                                __ad_ty_15 = ::ad_runtime::__private::ir::adjoint_of(
                                    &__ad_v_15,
                                );
                                __ad_m_s_0 = __ad_v_15;
                                __ad_tym_s_0 = ::ad_runtime::__private::ir::adjoint_of(
                                    &__ad_m_s_0,
                                );
                            }
                            __ad_keep_count_0.push(__ad_count_0);
                            let __ad_count_0 = __ad_keep_count_0.pop();
                            for __ad_iteration_0 in (0..__ad_count_0).rev() {
                                let __ad_v_i_9 = __ad_keep_v_i_9.pop();
                                let __ad_v_12 = ::ad_runtime::__private::CastProbe::new(
                                        __ad_v_i_9,
                                    )
                                    .__ad_cast::<__S>();
                                let __ad_pb_14 = __ad_keep_pb_14.pop();
                                let mut __ad_dv_10;
                                let mut __ad_dv_11;
                                let mut __ad_dv_13;
                                let mut __ad_dv_14;
                                let mut __ad_dv_15;
                                __ad_dv_15 = ::ad_runtime::__private::ir::vacate(
                                    &mut __ad_dm_s_0,
                                );
                                {
                                    let __ad_c = ::ad_runtime::__private::ir::add_back(
                                        __ad_dv_15,
                                    );
                                    __ad_dv_11 = __ad_c.0;
                                    __ad_dv_14 = __ad_c.1;
                                }
                                {
                                    let __ad_c = ::ad_runtime::linear::LinearMap::reverse_apply(
                                        &__ad_pb_14,
                                        __ad_dv_14,
                                    );
                                    __ad_dv_13 = __ad_c;
                                }
                                ::ad_runtime::__private::ir::accumulate(
                                    &mut __ad_dv_x_0,
                                    ::ad_runtime::__private::ir::Arithmetic::factor_back(
                                        ::ad_runtime::__private::LiftProbe::new(
                                                ::ad_runtime::__private::ir::value_of(__ad_v_12),
                                            )
                                            .__ad_lift::<__S>(),
                                        __ad_dv_13,
                                    ),
                                );
                                __ad_dv_10 = ::ad_runtime::__private::ir::Arithmetic::factor_back(
                                    <__S as ::ad_runtime::Scalar>::from_f64(0.5),
                                    __ad_dv_11,
                                );
                                ::ad_runtime::__private::ir::accumulate(
                                    &mut __ad_dm_s_0,
                                    __ad_dv_10,
                                );
                            }
                        },
                    );
                __ad_dv_a_7 = __ad_dm_s_0;
                __ad_dv_6 = __ad_dv_a_7;
                {
                    let (__ad_v_x_0,) = __ad_keep_region_0.pop();
                    let (__ad_v_2, __ad_pb_2) = ::ad_runtime::rules::sin(
                        ::ad_runtime::__private::ir::value_of(__ad_v_x_0),
                    );
                    __ad_keep_v_2.push(::ad_runtime::__private::ir::value_of(__ad_v_2));
                    __ad_ty_2 = ::ad_runtime::__private::ir::adjoint_of(&__ad_v_2);
                    __ad_keep_pb_2.push(__ad_pb_2);
                    let __ad_v_3 = __ad_v_2 * __ad_v_x_0;
                    __ad_ty_3 = ::ad_runtime::__private::ir::adjoint_of(&__ad_v_3);
                    let __ad_v_t_4 = __ad_v_3;
                    __ad_ty_t_4 = ::ad_runtime::__private::ir::adjoint_of(&__ad_v_t_4);
                    let __ad_v_5 = __ad_v_t_4.exp();
                    __ad_keep_v_5.push(::ad_runtime::__private::ir::value_of(__ad_v_5));
                    __ad_ty_5 = ::ad_runtime::__private::ir::adjoint_of(&__ad_v_5);
                    let __ad_v_2 = __ad_keep_v_2.pop();
                    let __ad_pb_2 = __ad_keep_pb_2.pop();
                    let __ad_v_5 = __ad_keep_v_5.pop();
                    let mut __ad_dv_2;
                    let mut __ad_dv_3;
                    let mut __ad_dv_t_4;
                    let mut __ad_dv_5;
                    __ad_dv_5 = __ad_dv_6;
                    {
                        let __ad_c = ::ad_runtime::linear::LinearMap::reverse_apply(
                            &::ad_runtime::rules::exp_from_value(
                                ::ad_runtime::__private::ir::value_of(__ad_v_5),
                            ),
                            __ad_dv_5,
                        );
                        __ad_dv_t_4 = __ad_c;
                    }
                    __ad_dv_3 = __ad_dv_t_4;
                    {
                        let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                            ::ad_runtime::__private::ir::value_of(__ad_v_2),
                            ::ad_runtime::__private::ir::value_of(__ad_v_x_0),
                            __ad_dv_3,
                        );
                        __ad_dv_2 = __ad_c.0;
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dv_x_0,
                            __ad_c.1,
                        );
                    }
                    {
                        let __ad_c = ::ad_runtime::linear::LinearMap::reverse_apply(
                            &__ad_pb_2,
                            __ad_dv_2,
                        );
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dv_x_0,
                            __ad_c,
                        );
                    }
                }
                (__ad_dv_x_0, ())
            },
        )
    }
}
#[allow(dead_code)]
impl checkpoints {
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
        let (value, pullback) = checkpoints::__ad_reverse(x, n);
        let adjoints = pullback(d_out);
        (value, adjoints.0)
    }
}
/** Reverse-mode derivative of [`checkpoints`], generated by `#[reverse]`.

 `checkpoints_vjp(x, n, d_out)` returns `(checkpoints(x, n), d_out · J)`: the value, and the adjoint of each float parameter (a tuple in declared order when there are several) for the cotangent `d_out` of the result.*/
#[allow(
    dead_code,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity,
    unreachable_code
)]
#[inline]
fn checkpoints_vjp(x: f64, n: usize, d_out: f64) -> (f64, f64) {
    checkpoints::vjp::<f64>(x, n, d_out)
}
/// Jacobian of [`checkpoints`] by reverse mode, generated by `#[reverse]`: the value, and one row per float of the result (one `checkpoints_vjp` each), one column per float of the differentiable parameters in declared order.
#[inline]
#[allow(
    dead_code,
    unused_mut,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity
)]
fn checkpoints_jacrev(x: f64, n: usize) -> (f64, ::std::vec::Vec<::std::vec::Vec<f64>>) {
    let __ad_value = checkpoints(x, n);
    ::ad_runtime::__private::jacobian::reverse_jacobian::<
        f64,
        _,
        _,
    >(__ad_value, |__ad_cotangent| { checkpoints_vjp(x, n, __ad_cotangent).1 })
}
#[allow(dead_code)]
impl checkpoints {
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
        checkpoints::vjp(x, n, <__S as ::ad_runtime::Scalar>::one())
    }
}
/// Gradient of [`checkpoints`], generated by `#[reverse]`: `checkpoints_grad(x, n)` is `checkpoints_vjp(x, n, 1)`.
#[allow(
    dead_code,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity,
    unreachable_code
)]
#[inline]
fn checkpoints_grad(x: f64, n: usize) -> (f64, f64) {
    checkpoints::grad::<f64>(x, n)
}
/// Hessian of [`checkpoints`], generated by `#[reverse]`: the value, the gradient and the Hessian (a row and a column per float of the differentiable parameters in declared order), by the vector forward mode over the gradient.
#[inline]
#[allow(
    dead_code,
    unused_mut,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity
)]
fn checkpoints_hessian(
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
                checkpoints::grad::<
                    ::ad_runtime::DualVec<f64, __AD_CHUNK>,
                >(::core::clone::Clone::clone(&__ad_seeded_x), n)
            },
        )
    }
}
/// Hessian-vector product of [`checkpoints`], generated by `#[reverse]`: the value, and the Hessian times the direction (dx) shaped as the gradient, by forward mode over the gradient (one pass).
#[inline]
#[allow(
    dead_code,
    unused_mut,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity
)]
fn checkpoints_hvp(x: f64, n: usize, dx: f64) -> (f64, f64) {
    let __ad_seeded_x = ::ad_runtime::__private::Seed::seed(x, dx);
    let (__ad_value, __ad_adjoints) = checkpoints::grad::<
        ::ad_runtime::Dual<f64>,
    >(__ad_seeded_x, n);
    (__ad_value.value, ::ad_runtime::__private::DualParts::split(__ad_adjoints).1)
}
#[allow(dead_code)]
impl checkpoints {
    #[doc(hidden)]
    pub const __AD_ENGINE: &'static str = "ir";
}
