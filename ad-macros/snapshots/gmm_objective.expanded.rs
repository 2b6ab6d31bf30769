// The expansion of gmm_objective.rs by #[reverse] (IR engine). Written by `UPDATE_SNAPSHOTS=1 cargo test -p ad-macros`.

pub fn gmm_objective_precomputed(
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    d: usize,
    k: usize,
    n: usize,
    gamma: f64,
    m: usize,
    constant: f64,
) -> f64 {
    let icf_size = d * (d + 1) / 2;
    let mut sum_qs = vec![0.0; k];
    let mut q_diagonals = vec![0.0; k * d];
    for ik in 0..k {
        let mut s = 0.0;
        for j in 0..d {
            s += icf[ik * icf_size + j];
            q_diagonals[ik * d + j] = icf[ik * icf_size + j].exp();
        }
        sum_qs[ik] = s;
    }
    let mut main_term = vec![0.0; k];
    let mut centered = vec![0.0; d];
    let mut transformed = vec![0.0; d];
    let mut slse = 0.0;
    for ix in 0..n {
        for ik in 0..k {
            for j in 0..d {
                centered[j] = x[ix * d + j] - means[ik * d + j];
            }
            for j in 0..d {
                transformed[j] = q_diagonals[ik * d + j] * centered[j];
            }
            let mut l = ik * icf_size + d;
            for i in 0..d {
                for j in (i + 1)..d {
                    transformed[j] += icf[l] * centered[i];
                    l += 1;
                }
            }
            let mut sqnorm = 0.0;
            for j in 0..d {
                sqnorm += transformed[j] * transformed[j];
            }
            main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm;
        }
        slse += logsumexp(&main_term);
    }
    let lse_alphas = logsumexp(alphas);
    let mut prior = 0.0;
    for ik in 0..k {
        let mut frobenius = 0.0;
        for j in 0..d {
            let q = q_diagonals[ik * d + j];
            frobenius += q * q;
        }
        for j in d..icf_size {
            let v = icf[ik * icf_size + j];
            frobenius += v * v;
        }
        prior += 0.5 * gamma * gamma * frobenius - m as f64 * sum_qs[ik];
    }
    constant + slse - n as f64 * lse_alphas + prior
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct gmm_objective_precomputed {}
#[allow(dead_code)]
impl gmm_objective_precomputed {
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
    pub fn __ad_forward<__S: ::ad_runtime::Scalar<Base = f64>>(
        alphas: &[__S],
        means: &[__S],
        icf: &[__S],
        x: &[__S],
        d: usize,
        k: usize,
        n: usize,
        gamma: __S,
        m: usize,
        constant: __S,
    ) -> __S
    where
        for<'__ad> &'__ad __S: ::ad_runtime::ScalarRef<__S>,
    {
        let _ = gmm_objective_precomputed;
        #[allow(unused_imports)]
        use ::ad_runtime::__private::{
            CastPrimitive as _, CastScalar as _, LiftConstant as _,
            LiftConstantOther as _, LiftBorrowed as _, LiftDerived as _,
            LiftBorrowedOther as _, LiftFloat as _, LiftOption as _, LiftOther as _,
            LiftTuple as _, LiftZipped as _, LiftZippedOther as _,
        };
        let icf_size = d * (d + 1) / 2;
        let mut sum_qs = vec![< __S as ::ad_runtime::Scalar > ::from_f64(0.0); k];
        let mut q_diagonals = vec![
            < __S as ::ad_runtime::Scalar > ::from_f64(0.0); k * d
        ];
        for ik in 0..k {
            let mut s = <__S as ::ad_runtime::Scalar>::from_f64(0.0);
            for j in 0..d {
                s += icf[ik * icf_size + j];
                q_diagonals[ik * d + j] = icf[ik * icf_size + j].exp();
            }
            sum_qs[ik] = s;
        }
        let mut main_term = vec![< __S as ::ad_runtime::Scalar > ::from_f64(0.0); k];
        let mut centered = vec![< __S as ::ad_runtime::Scalar > ::from_f64(0.0); d];
        let mut transformed = vec![< __S as ::ad_runtime::Scalar > ::from_f64(0.0); d];
        let mut slse = <__S as ::ad_runtime::Scalar>::from_f64(0.0);
        for ix in 0..n {
            for ik in 0..k {
                for j in 0..d {
                    centered[j] = x[ix * d + j] - means[ik * d + j];
                }
                for j in 0..d {
                    transformed[j] = q_diagonals[ik * d + j] * centered[j];
                }
                let mut l = ik * icf_size + d;
                for i in 0..d {
                    for j in (i + 1)..d {
                        {
                            let __ad_value = icf[l] * centered[i];
                            transformed[j] += __ad_value;
                        };
                        l += 1;
                    }
                }
                let mut sqnorm = <__S as ::ad_runtime::Scalar>::from_f64(0.0);
                for j in 0..d {
                    sqnorm += transformed[j] * transformed[j];
                }
                main_term[ik] = alphas[ik] + sum_qs[ik]
                    - ::ad_runtime::__private::constant_ops::mul(sqnorm, 0.5);
            }
            slse += logsumexp::__ad_forward(&main_term);
        }
        let lse_alphas = logsumexp::__ad_forward(alphas);
        let mut prior = <__S as ::ad_runtime::Scalar>::from_f64(0.0);
        for ik in 0..k {
            let mut frobenius = <__S as ::ad_runtime::Scalar>::from_f64(0.0);
            for j in 0..d {
                let q = q_diagonals[ik * d + j];
                frobenius += q * q;
            }
            for j in d..icf_size {
                let v = icf[ik * icf_size + j];
                frobenius += v * v;
            }
            prior
                += ::ad_runtime::__private::constant_ops::mul(gamma, 0.5) * gamma
                    * frobenius
                    - ::ad_runtime::__private::CastProbe::new(m).__ad_cast::<__S>()
                        * sum_qs[ik];
        }
        constant + slse
            - ::ad_runtime::__private::CastProbe::new(n).__ad_cast::<__S>() * lse_alphas
            + prior
    }
}
#[allow(dead_code)]
impl gmm_objective_precomputed {
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
    pub fn __ad_reverse<__S: ::ad_runtime::Scalar<Base = f64>>(
        alphas: &[__S],
        means: &[__S],
        icf: &[__S],
        x: &[__S],
        d: usize,
        k: usize,
        n: usize,
        gamma: __S,
        m: usize,
        constant: __S,
    ) -> (
        __S,
        ::std::boxed::Box<
            dyn ::core::ops::FnOnce(
                __S,
            ) -> (
                    ::std::vec::Vec<__S>,
                    ::std::vec::Vec<__S>,
                    ::std::vec::Vec<__S>,
                    ::std::vec::Vec<__S>,
                    (),
                    (),
                    (),
                    __S,
                    (),
                    __S,
                ),
        >,
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
                dyn ::core::ops::FnOnce(
                    __S,
                ) -> (
                        ::std::vec::Vec<__S>,
                        ::std::vec::Vec<__S>,
                        ::std::vec::Vec<__S>,
                        ::std::vec::Vec<__S>,
                        (),
                        (),
                        (),
                        __S,
                        (),
                        __S,
                    ),
            >,
        ) {
            let __ad_v_alphas_0 = alphas;
            let mut __ad_dv_alphas_0 = ::ad_runtime::__private::ir::zero_like(
                __ad_v_alphas_0,
            );
            let __ad_v_means_1 = means;
            let mut __ad_dv_means_1 = ::ad_runtime::__private::ir::zero_like(
                __ad_v_means_1,
            );
            let __ad_v_icf_2 = icf;
            let mut __ad_dv_icf_2 = ::ad_runtime::__private::ir::zero_like(__ad_v_icf_2);
            let __ad_v_x_3 = x;
            let mut __ad_dv_x_3 = ::ad_runtime::__private::ir::zero_like(__ad_v_x_3);
            let __ad_v_d_4 = d;
            let __ad_v_k_5 = k;
            let __ad_v_n_6 = n;
            let __ad_v_gamma_7 = gamma;
            let __ad_ty_gamma_7 = ::ad_runtime::__private::ir::adjoint_of(
                &__ad_v_gamma_7,
            );
            let __ad_v_m_8 = m;
            let __ad_v_constant_9 = constant;
            let __ad_ty_constant_9 = ::ad_runtime::__private::ir::adjoint_of(
                &__ad_v_constant_9,
            );
            let mut __ad_keep_v_29 = ::ad_runtime::__private::ir::Stack::new();
            let mut __ad_keep_v_48 = ::ad_runtime::__private::ir::Stack::new();
            let mut __ad_keep_v_64 = ::ad_runtime::__private::ir::Stack::new();
            let mut __ad_keep_v_l_128 = ::ad_runtime::__private::ir::Stack::new();
            let mut __ad_states_centered_3 = ::ad_runtime::__private::ir::States::new();
            let mut __ad_states_transformed_3 = ::ad_runtime::__private::ir::States::new();
            let mut __ad_keep_zero_85 = ::ad_runtime::__private::ir::Stack::new();
            let mut __ad_keep_v_105 = ::ad_runtime::__private::ir::Stack::new();
            let mut __ad_tym_sum_qs_0 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_q_diagonals_1 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_s_2 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_main_term_3 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_centered_4 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_transformed_5 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_slse_6 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_sqnorm_8 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_prior_9 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_frobenius_10 = ::ad_runtime::__private::ir::AdjointOf::new();
            let __ad_v_10 = __ad_v_d_4 + 1;
            let __ad_v_11 = __ad_v_d_4 * __ad_v_10;
            let __ad_v_12 = __ad_v_11 / 2;
            let __ad_v_icf_size_13 = __ad_v_12;
            let __ad_v_14 = ::std::vec![
                < __S as ::ad_runtime::Scalar > ::from_f64(0.0); __ad_v_k_5
            ];
            let mut __ad_m_sum_qs_0 = __ad_v_14;
            __ad_tym_sum_qs_0 = ::ad_runtime::__private::ir::adjoint_of(
                &__ad_m_sum_qs_0,
            );
            let mut __ad_shadow_sum_qs_0 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_sum_qs_0,
            );
            let __ad_v_15 = __ad_v_k_5 * __ad_v_d_4;
            let __ad_v_16 = ::std::vec![
                < __S as ::ad_runtime::Scalar > ::from_f64(0.0); __ad_v_15
            ];
            let mut __ad_m_q_diagonals_1 = __ad_v_16;
            __ad_tym_q_diagonals_1 = ::ad_runtime::__private::ir::adjoint_of(
                &__ad_m_q_diagonals_1,
            );
            let mut __ad_shadow_q_diagonals_1 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_q_diagonals_1,
            );
            let __ad_v_17 = 0..__ad_v_k_5;
            let mut __ad_count_0 = 0usize;
            for __ad_v_ik_18 in __ad_v_17 {
                __ad_count_0 += 1;
                let mut __ad_m_s_2 = <__S as ::ad_runtime::Scalar>::from_f64(0.0);
                __ad_tym_s_2 = ::ad_runtime::__private::ir::adjoint_of(&__ad_m_s_2);
                let __ad_v_19 = 0..__ad_v_d_4;
                let __ad_trips = ::core::iter::Iterator::size_hint(&__ad_v_19).0;
                __ad_keep_v_29.reserve(__ad_trips);
                let mut __ad_count_1 = 0usize;
                for __ad_v_j_20 in __ad_v_19 {
                    __ad_count_1 += 1;
                    let __ad_v_21 = __ad_v_ik_18 * __ad_v_icf_size_13;
                    let __ad_v_22 = __ad_v_21 + __ad_v_j_20;
                    let __ad_v_23 = __ad_v_icf_2[__ad_v_22];
                    let __ad_v_24 = __ad_m_s_2;
                    let __ad_v_25 = __ad_v_24 + __ad_v_23;
                    __ad_m_s_2 = __ad_v_25;
                    __ad_tym_s_2 = ::ad_runtime::__private::ir::adjoint_of(&__ad_m_s_2);
                    let __ad_v_26 = __ad_v_21;
                    let __ad_v_27 = __ad_v_22;
                    let __ad_v_28 = __ad_v_23;
                    let __ad_v_29 = __ad_v_28.exp();
                    __ad_keep_v_29
                        .push(::ad_runtime::__private::ir::value_of(__ad_v_29));
                    let __ad_v_30 = __ad_v_ik_18 * __ad_v_d_4;
                    let __ad_v_31 = __ad_v_30 + __ad_v_j_20;
                    __ad_m_q_diagonals_1[__ad_v_31] = __ad_v_29;
                }
                let __ad_v_32 = __ad_m_s_2;
                __ad_m_sum_qs_0[__ad_v_ik_18] = __ad_v_32;
            }
            let __ad_v_33 = ::std::vec![
                < __S as ::ad_runtime::Scalar > ::from_f64(0.0); __ad_v_k_5
            ];
            let mut __ad_m_main_term_3 = __ad_v_33;
            __ad_tym_main_term_3 = ::ad_runtime::__private::ir::adjoint_of(
                &__ad_m_main_term_3,
            );
            let mut __ad_shadow_main_term_3 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_main_term_3,
            );
            let __ad_v_34 = ::std::vec![
                < __S as ::ad_runtime::Scalar > ::from_f64(0.0); __ad_v_d_4
            ];
            let mut __ad_m_centered_4 = __ad_v_34;
            __ad_tym_centered_4 = ::ad_runtime::__private::ir::adjoint_of(
                &__ad_m_centered_4,
            );
            let mut __ad_shadow_centered_4 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_centered_4,
            );
            let __ad_v_35 = ::std::vec![
                < __S as ::ad_runtime::Scalar > ::from_f64(0.0); __ad_v_d_4
            ];
            let mut __ad_m_transformed_5 = __ad_v_35;
            __ad_tym_transformed_5 = ::ad_runtime::__private::ir::adjoint_of(
                &__ad_m_transformed_5,
            );
            let mut __ad_shadow_transformed_5 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_transformed_5,
            );
            let mut __ad_m_slse_6 = <__S as ::ad_runtime::Scalar>::from_f64(0.0);
            __ad_tym_slse_6 = ::ad_runtime::__private::ir::adjoint_of(&__ad_m_slse_6);
            let __ad_v_36 = 0..__ad_v_n_6;
            let mut __ad_unit2_dm_q_diagonals_1 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_q_diagonals_1,
            );
            let mut __ad_unit2_dv_icf_2 = ::ad_runtime::__private::ir::zero_like(
                __ad_v_icf_2,
            );
            let mut __ad_unit2_dv_alphas_0 = ::ad_runtime::__private::ir::zero_like(
                __ad_v_alphas_0,
            );
            let mut __ad_unit2_dm_sum_qs_0 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_sum_qs_0,
            );
            let mut __ad_unit2_dm_main_term_3 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_main_term_3,
            );
            let mut __ad_unit2_dm_centered_4 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_centered_4,
            );
            let mut __ad_unit2_dm_transformed_5 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_transformed_5,
            );
            let mut __ad_count_2 = 0usize;
            for __ad_v_ix_37 in __ad_v_36 {
                __ad_count_2 += 1;
                let __ad_v_38 = 0..__ad_v_k_5;
                let __ad_trips = ::core::iter::Iterator::size_hint(&__ad_v_38).0;
                __ad_keep_v_l_128.reserve(__ad_trips);
                __ad_states_centered_3.reserve(__ad_trips);
                __ad_states_transformed_3.reserve(__ad_trips);
                let mut __ad_count_3 = 0usize;
                for __ad_v_ik_39 in __ad_v_38 {
                    __ad_count_3 += 1;
                    let __ad_v_40 = 0..__ad_v_d_4;
                    let __ad_trips = ::core::iter::Iterator::size_hint(&__ad_v_40).0;
                    __ad_keep_v_48.reserve(__ad_trips);
                    let mut __ad_count_4 = 0usize;
                    for __ad_v_j_41 in __ad_v_40 {
                        __ad_count_4 += 1;
                        let __ad_v_42 = __ad_v_ix_37 * __ad_v_d_4;
                        let __ad_v_43 = __ad_v_42 + __ad_v_j_41;
                        let __ad_v_44 = __ad_v_x_3[__ad_v_43];
                        let __ad_v_45 = __ad_v_ik_39 * __ad_v_d_4;
                        let __ad_v_46 = __ad_v_45 + __ad_v_j_41;
                        let __ad_v_47 = __ad_v_means_1[__ad_v_46];
                        let __ad_v_48 = __ad_v_44 - __ad_v_47;
                        __ad_keep_v_48
                            .push(::ad_runtime::__private::ir::value_of(__ad_v_48));
                        __ad_m_centered_4[__ad_v_j_41] = __ad_v_48;
                        let __ad_v_j_50 = __ad_v_j_41;
                        let __ad_v_51 = __ad_v_45;
                        let __ad_v_52 = __ad_v_46;
                        let __ad_v_53 = __ad_m_q_diagonals_1[__ad_v_52];
                        let __ad_v_54 = __ad_v_48;
                        let __ad_v_55 = __ad_v_53 * __ad_v_54;
                        __ad_m_transformed_5[__ad_v_j_50] = __ad_v_55;
                    }
                    let __ad_v_49 = 0..__ad_v_d_4;
                    let __ad_v_56 = __ad_v_ik_39 * __ad_v_icf_size_13;
                    let __ad_v_57 = __ad_v_56 + __ad_v_d_4;
                    let mut __ad_m_l_7 = __ad_v_57;
                    let __ad_v_58 = 0..__ad_v_d_4;
                    let mut __ad_count_5 = 0usize;
                    for __ad_v_i_59 in __ad_v_58 {
                        __ad_count_5 += 1;
                        let __ad_v_60 = __ad_v_i_59 + 1;
                        let __ad_v_61 = __ad_v_60..__ad_v_d_4;
                        let __ad_v_l_127 = __ad_m_l_7;
                        let __ad_trips = ::core::iter::Iterator::size_hint(&__ad_v_61).0;
                        __ad_keep_v_64.reserve(__ad_trips);
                        let mut __ad_count_6 = 0usize;
                        for __ad_v_j_62 in __ad_v_61 {
                            __ad_count_6 += 1;
                            let __ad_v_63 = __ad_m_l_7;
                            let __ad_v_64 = __ad_v_icf_2[__ad_v_63];
                            __ad_keep_v_64
                                .push(::ad_runtime::__private::ir::value_of(__ad_v_64));
                            let __ad_v_65 = __ad_m_centered_4[__ad_v_i_59];
                            let __ad_v_66 = __ad_v_64 * __ad_v_65;
                            let __ad_v_67 = __ad_m_transformed_5[__ad_v_j_62];
                            let __ad_v_68 = __ad_v_67 + __ad_v_66;
                            __ad_m_transformed_5[__ad_v_j_62] = __ad_v_68;
                            let __ad_v_69 = __ad_v_63;
                            let __ad_v_70 = __ad_v_69 + 1;
                            __ad_m_l_7 = __ad_v_70;
                        }
                    }
                    let __ad_v_l_128 = __ad_m_l_7;
                    __ad_keep_v_l_128
                        .push(::ad_runtime::__private::ir::value_of(__ad_v_l_128));
                    let mut __ad_m_sqnorm_8 = <__S as ::ad_runtime::Scalar>::from_f64(
                        0.0,
                    );
                    __ad_tym_sqnorm_8 = ::ad_runtime::__private::ir::adjoint_of(
                        &__ad_m_sqnorm_8,
                    );
                    let __ad_v_71 = 0..__ad_v_d_4;
                    let mut __ad_count_7 = 0usize;
                    for __ad_v_j_72 in __ad_v_71 {
                        __ad_count_7 += 1;
                        let __ad_v_73 = __ad_m_transformed_5[__ad_v_j_72];
                        let __ad_v_74 = __ad_v_73;
                        let __ad_v_75 = __ad_v_73 * __ad_v_74;
                        let __ad_v_76 = __ad_m_sqnorm_8;
                        let __ad_v_77 = __ad_v_76 + __ad_v_75;
                        __ad_m_sqnorm_8 = __ad_v_77;
                        __ad_tym_sqnorm_8 = ::ad_runtime::__private::ir::adjoint_of(
                            &__ad_m_sqnorm_8,
                        );
                    }
                    let __ad_v_78 = __ad_v_alphas_0[__ad_v_ik_39];
                    let __ad_v_79 = __ad_m_sum_qs_0[__ad_v_ik_39];
                    let __ad_v_80 = __ad_v_78 + __ad_v_79;
                    let __ad_v_81 = __ad_m_sqnorm_8;
                    let __ad_v_82 = <__S as ::ad_runtime::Scalar>::from_f64(0.5)
                        * __ad_v_81;
                    let __ad_v_83 = __ad_v_80 - __ad_v_82;
                    __ad_m_main_term_3[__ad_v_ik_39] = __ad_v_83;
                    __ad_states_centered_3.save(&__ad_m_centered_4);
                    __ad_states_transformed_3.save(&__ad_m_transformed_5);
                }
                let __ad_v_84 = &__ad_m_main_term_3;
                let (__ad_v_85, __ad_pb_85) = logsumexp::__ad_reverse(__ad_v_84);
                __ad_keep_zero_85
                    .keep_zero(::ad_runtime::__private::ir::zero_like(&__ad_v_85));
                let __ad_v_86 = __ad_m_slse_6;
                let __ad_v_87 = __ad_v_86 + __ad_v_85;
                __ad_m_slse_6 = __ad_v_87;
                __ad_tym_slse_6 = ::ad_runtime::__private::ir::adjoint_of(
                    &__ad_m_slse_6,
                );
                {
                    let __ad_iteration_2 = __ad_count_2 - 1;
                    let mut __ad_unit2_dm_slse_6 = <__S as ::ad_runtime::Scalar>::one();
                    let __ad_count_3 = ::ad_runtime::__private::ir::range_count(
                        0,
                        &__ad_v_k_5,
                        false,
                    );
                    let mut __ad_dv_85 = __ad_keep_zero_85.zero_back();
                    let mut __ad_dv_86;
                    let mut __ad_dv_87;
                    __ad_dv_87 = ::ad_runtime::__private::ir::peek(
                        &mut __ad_unit2_dm_slse_6,
                    );
                    {
                        let __ad_c = ::ad_runtime::__private::ir::add_back(__ad_dv_87);
                        __ad_dv_86 = __ad_c.0;
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dv_85,
                            __ad_c.1,
                        );
                    }
                    {
                        let __ad_c = __ad_pb_85(__ad_dv_85);
                        ::ad_runtime::__private::ir::accumulate_argument(
                            &mut __ad_unit2_dm_main_term_3,
                            __ad_c.0,
                        );
                    }
                    for __ad_iteration_3 in (0..__ad_count_3).rev() {
                        let __ad_m_centered_4 = __ad_states_centered_3.restore();
                        let __ad_m_transformed_5 = __ad_states_transformed_3.restore();
                        let __ad_v_ik_39 = ::ad_runtime::__private::ir::nth_of_range(
                            0,
                            &__ad_v_k_5,
                            __ad_iteration_3,
                        );
                        let __ad_count_4 = ::ad_runtime::__private::ir::range_count(
                            0,
                            &__ad_v_d_4,
                            false,
                        );
                        let __ad_count_5 = ::ad_runtime::__private::ir::range_count(
                            0,
                            &__ad_v_d_4,
                            false,
                        );
                        let __ad_v_l_128 = __ad_keep_v_l_128.pop();
                        let __ad_count_7 = ::ad_runtime::__private::ir::range_count(
                            0,
                            &__ad_v_d_4,
                            false,
                        );
                        let mut __ad_dm_sqnorm_8 = __ad_tym_sqnorm_8.zero();
                        let mut __ad_dv_78;
                        let mut __ad_dv_79;
                        let mut __ad_dv_80;
                        let mut __ad_dv_81;
                        let mut __ad_dv_82;
                        let mut __ad_dv_83;
                        __ad_dv_83 = ::ad_runtime::__private::ir::vacate(
                            &mut __ad_unit2_dm_main_term_3[__ad_v_ik_39],
                        );
                        {
                            let __ad_c = ::ad_runtime::__private::ir::sub_back(
                                __ad_dv_83,
                            );
                            __ad_dv_80 = __ad_c.0;
                            __ad_dv_82 = __ad_c.1;
                        }
                        __ad_dv_81 = ::ad_runtime::__private::ir::Arithmetic::factor_back(
                            <__S as ::ad_runtime::Scalar>::from_f64(0.5),
                            __ad_dv_82,
                        );
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dm_sqnorm_8,
                            __ad_dv_81,
                        );
                        {
                            let __ad_c = ::ad_runtime::__private::ir::add_back(
                                __ad_dv_80,
                            );
                            __ad_dv_78 = __ad_c.0;
                            __ad_dv_79 = __ad_c.1;
                        }
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_unit2_dm_sum_qs_0[__ad_v_ik_39],
                            __ad_dv_79,
                        );
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_unit2_dv_alphas_0[__ad_v_ik_39],
                            __ad_dv_78,
                        );
                        for __ad_iteration_7 in (0..__ad_count_7).rev() {
                            let __ad_v_j_72 = ::ad_runtime::__private::ir::nth_of_range(
                                0,
                                &__ad_v_d_4,
                                __ad_iteration_7,
                            );
                            let __ad_v_73 = __ad_m_transformed_5[__ad_v_j_72];
                            let __ad_v_74 = __ad_v_73;
                            let mut __ad_dv_73;
                            let mut __ad_dv_74;
                            let mut __ad_dv_75;
                            let mut __ad_dv_76;
                            let mut __ad_dv_77;
                            __ad_dv_77 = ::ad_runtime::__private::ir::peek(
                                &mut __ad_dm_sqnorm_8,
                            );
                            {
                                let __ad_c = ::ad_runtime::__private::ir::add_back(
                                    __ad_dv_77,
                                );
                                __ad_dv_76 = __ad_c.0;
                                __ad_dv_75 = __ad_c.1;
                            }
                            {
                                let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                                    ::ad_runtime::__private::ir::value_of(__ad_v_73),
                                    ::ad_runtime::__private::ir::value_of(__ad_v_74),
                                    __ad_dv_75,
                                );
                                __ad_dv_73 = __ad_c.0;
                                __ad_dv_74 = __ad_c.1;
                            }
                            ::ad_runtime::__private::ir::accumulate(
                                &mut __ad_dv_73,
                                __ad_dv_74,
                            );
                            ::ad_runtime::__private::ir::accumulate(
                                &mut __ad_unit2_dm_transformed_5[__ad_v_j_72],
                                __ad_dv_73,
                            );
                        }
                        let mut __ad_row_127 = ::ad_runtime::__private::ir::value_of(
                            __ad_v_l_128,
                        );
                        for __ad_iteration_5 in (0..__ad_count_5).rev() {
                            let __ad_v_i_59 = ::ad_runtime::__private::ir::nth_of_range(
                                0,
                                &__ad_v_d_4,
                                __ad_iteration_5,
                            );
                            let __ad_v_60 = __ad_v_i_59 + 1;
                            let __ad_count_6 = ::ad_runtime::__private::ir::range_count(
                                __ad_v_60,
                                &__ad_v_d_4,
                                false,
                            );
                            let __ad_v_l_127 = ::ad_runtime::__private::ir::counter_before(
                                __ad_row_127,
                                __ad_count_6,
                                1,
                                true,
                            );
                            __ad_row_127 = __ad_v_l_127;
                            let mut __ad_sum_6_0 = ::ad_runtime::__private::ir::zero();
                            if __ad_count_6 > 0 {
                                __ad_sum_6_0 = ::ad_runtime::__private::ir::take(
                                    &mut __ad_unit2_dm_centered_4[__ad_v_i_59],
                                );
                            }
                            for __ad_iteration_6 in (0..__ad_count_6).rev() {
                                let __ad_v_j_62 = ::ad_runtime::__private::ir::nth_of_range(
                                    __ad_v_60,
                                    &__ad_v_d_4,
                                    __ad_iteration_6,
                                );
                                let __ad_v_63 = ::ad_runtime::__private::ir::counter_at(
                                    __ad_v_l_127,
                                    __ad_iteration_6,
                                    1,
                                    true,
                                    false,
                                );
                                let __ad_v_64 = __ad_keep_v_64.pop();
                                let __ad_v_65 = __ad_m_centered_4[__ad_v_i_59];
                                let mut __ad_dv_64;
                                let mut __ad_dv_65;
                                let mut __ad_dv_66;
                                let mut __ad_dv_67;
                                let mut __ad_dv_68;
                                __ad_dv_68 = ::ad_runtime::__private::ir::peek(
                                    &mut __ad_unit2_dm_transformed_5[__ad_v_j_62],
                                );
                                {
                                    let __ad_c = ::ad_runtime::__private::ir::add_back(
                                        __ad_dv_68,
                                    );
                                    __ad_dv_67 = __ad_c.0;
                                    __ad_dv_66 = __ad_c.1;
                                }
                                {
                                    let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                                        ::ad_runtime::__private::ir::value_of(__ad_v_64),
                                        ::ad_runtime::__private::ir::value_of(__ad_v_65),
                                        __ad_dv_66,
                                    );
                                    __ad_dv_64 = __ad_c.0;
                                    __ad_dv_65 = __ad_c.1;
                                }
                                ::ad_runtime::__private::ir::accumulate(
                                    &mut __ad_sum_6_0,
                                    __ad_dv_65,
                                );
                                ::ad_runtime::__private::ir::accumulate(
                                    &mut __ad_unit2_dv_icf_2[__ad_v_63],
                                    __ad_dv_64,
                                );
                            }
                            if __ad_count_6 > 0 {
                                *&mut __ad_unit2_dm_centered_4[__ad_v_i_59] = __ad_sum_6_0;
                            }
                        }
                        for __ad_iteration_4 in (0..__ad_count_4).rev() {
                            let __ad_v_j_41 = ::ad_runtime::__private::ir::nth_of_range(
                                0,
                                &__ad_v_d_4,
                                __ad_iteration_4,
                            );
                            let __ad_v_42 = __ad_v_ix_37 * __ad_v_d_4;
                            let __ad_v_43 = __ad_v_42 + __ad_v_j_41;
                            let __ad_v_45 = __ad_v_ik_39 * __ad_v_d_4;
                            let __ad_v_46 = __ad_v_45 + __ad_v_j_41;
                            let __ad_v_48 = __ad_keep_v_48.pop();
                            let __ad_v_j_50 = __ad_v_j_41;
                            let __ad_v_52 = __ad_v_46;
                            let __ad_v_53 = __ad_m_q_diagonals_1[__ad_v_52];
                            let __ad_v_54 = __ad_v_48;
                            let mut __ad_dv_44;
                            let mut __ad_dv_47;
                            let mut __ad_dv_48;
                            let mut __ad_dv_53;
                            let mut __ad_dv_54;
                            let mut __ad_dv_55;
                            __ad_dv_55 = ::ad_runtime::__private::ir::vacate(
                                &mut __ad_unit2_dm_transformed_5[__ad_v_j_50],
                            );
                            {
                                let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                                    ::ad_runtime::__private::ir::value_of(__ad_v_53),
                                    ::ad_runtime::__private::ir::value_of(__ad_v_54),
                                    __ad_dv_55,
                                );
                                __ad_dv_53 = __ad_c.0;
                                __ad_dv_54 = __ad_c.1;
                            }
                            __ad_dv_48 = __ad_dv_54;
                            ::ad_runtime::__private::ir::accumulate(
                                &mut __ad_unit2_dm_q_diagonals_1[__ad_v_52],
                                __ad_dv_53,
                            );
                            ::ad_runtime::__private::ir::accumulate(
                                &mut __ad_dv_48,
                                ::ad_runtime::__private::ir::vacate(
                                    &mut __ad_unit2_dm_centered_4[__ad_v_j_41],
                                ),
                            );
                            {
                                let __ad_c = ::ad_runtime::__private::ir::sub_back(
                                    __ad_dv_48,
                                );
                                __ad_dv_44 = __ad_c.0;
                                __ad_dv_47 = __ad_c.1;
                            }
                            ::ad_runtime::__private::ir::accumulate(
                                &mut __ad_dv_means_1[__ad_v_46],
                                __ad_dv_47,
                            );
                            ::ad_runtime::__private::ir::accumulate(
                                &mut __ad_dv_x_3[__ad_v_43],
                                __ad_dv_44,
                            );
                        }
                    }
                    __ad_states_centered_3.release();
                    __ad_states_transformed_3.release();
                }
            }
            let (__ad_v_88, __ad_pb_88) = logsumexp::__ad_reverse(__ad_v_alphas_0);
            let __ad_ty_88 = ::ad_runtime::__private::ir::zero_like(&__ad_v_88);
            let __ad_v_lse_alphas_89 = __ad_v_88;
            let mut __ad_m_prior_9 = <__S as ::ad_runtime::Scalar>::from_f64(0.0);
            __ad_tym_prior_9 = ::ad_runtime::__private::ir::adjoint_of(&__ad_m_prior_9);
            let __ad_v_90 = 0..__ad_v_k_5;
            let mut __ad_unit8_dv_gamma_7 = __ad_ty_gamma_7.zero();
            let mut __ad_count_8 = 0usize;
            for __ad_v_ik_91 in __ad_v_90 {
                __ad_count_8 += 1;
                let mut __ad_m_frobenius_10 = <__S as ::ad_runtime::Scalar>::from_f64(
                    0.0,
                );
                __ad_tym_frobenius_10 = ::ad_runtime::__private::ir::adjoint_of(
                    &__ad_m_frobenius_10,
                );
                let __ad_v_92 = 0..__ad_v_d_4;
                let mut __ad_count_9 = 0usize;
                for __ad_v_j_93 in __ad_v_92 {
                    __ad_count_9 += 1;
                    let __ad_v_94 = __ad_v_ik_91 * __ad_v_d_4;
                    let __ad_v_95 = __ad_v_94 + __ad_v_j_93;
                    let __ad_v_96 = __ad_m_q_diagonals_1[__ad_v_95];
                    let __ad_v_q_97 = __ad_v_96;
                    let __ad_v_98 = __ad_v_q_97 * __ad_v_q_97;
                    let __ad_v_99 = __ad_m_frobenius_10;
                    let __ad_v_100 = __ad_v_99 + __ad_v_98;
                    __ad_m_frobenius_10 = __ad_v_100;
                    __ad_tym_frobenius_10 = ::ad_runtime::__private::ir::adjoint_of(
                        &__ad_m_frobenius_10,
                    );
                }
                let __ad_v_101 = __ad_v_d_4..__ad_v_icf_size_13;
                let __ad_trips = ::core::iter::Iterator::size_hint(&__ad_v_101).0;
                __ad_keep_v_105.reserve(__ad_trips);
                let mut __ad_count_10 = 0usize;
                for __ad_v_j_102 in __ad_v_101 {
                    __ad_count_10 += 1;
                    let __ad_v_103 = __ad_v_ik_91 * __ad_v_icf_size_13;
                    let __ad_v_104 = __ad_v_103 + __ad_v_j_102;
                    let __ad_v_105 = __ad_v_icf_2[__ad_v_104];
                    __ad_keep_v_105
                        .push(::ad_runtime::__private::ir::value_of(__ad_v_105));
                    let __ad_v_v_106 = __ad_v_105;
                    let __ad_v_107 = __ad_v_v_106 * __ad_v_v_106;
                    let __ad_v_108 = __ad_m_frobenius_10;
                    let __ad_v_109 = __ad_v_108 + __ad_v_107;
                    __ad_m_frobenius_10 = __ad_v_109;
                    __ad_tym_frobenius_10 = ::ad_runtime::__private::ir::adjoint_of(
                        &__ad_m_frobenius_10,
                    );
                }
                let __ad_v_110 = <__S as ::ad_runtime::Scalar>::from_f64(0.5)
                    * __ad_v_gamma_7;
                let __ad_v_111 = __ad_v_110 * __ad_v_gamma_7;
                let __ad_v_112 = __ad_m_frobenius_10;
                let __ad_v_113 = __ad_v_111 * __ad_v_112;
                let __ad_v_114 = ::ad_runtime::__private::CastProbe::new(__ad_v_m_8)
                    .__ad_cast::<__S>();
                let __ad_v_115 = __ad_m_sum_qs_0[__ad_v_ik_91];
                let __ad_v_116 = ::ad_runtime::__private::LiftProbe::new(__ad_v_114)
                    .__ad_lift::<__S>() * __ad_v_115;
                let __ad_v_117 = __ad_v_113 - __ad_v_116;
                let __ad_v_118 = __ad_m_prior_9;
                let __ad_v_119 = __ad_v_118 + __ad_v_117;
                __ad_m_prior_9 = __ad_v_119;
                __ad_tym_prior_9 = ::ad_runtime::__private::ir::adjoint_of(
                    &__ad_m_prior_9,
                );
                {
                    let __ad_iteration_8 = __ad_count_8 - 1;
                    let mut __ad_unit8_dm_prior_9 = <__S as ::ad_runtime::Scalar>::one();
                    let __ad_count_9 = ::ad_runtime::__private::ir::range_count(
                        0,
                        &__ad_v_d_4,
                        false,
                    );
                    let __ad_count_10 = ::ad_runtime::__private::ir::range_count(
                        __ad_v_d_4,
                        &__ad_v_icf_size_13,
                        false,
                    );
                    let __ad_v_110 = <__S as ::ad_runtime::Scalar>::from_f64(0.5)
                        * __ad_v_gamma_7;
                    let __ad_v_111 = __ad_v_110 * __ad_v_gamma_7;
                    let __ad_v_112 = ::ad_runtime::__private::ir::value_of(__ad_v_112);
                    let __ad_v_114 = ::ad_runtime::__private::CastProbe::new(__ad_v_m_8)
                        .__ad_cast::<__S>();
                    let mut __ad_dm_frobenius_10 = __ad_tym_frobenius_10.zero();
                    let mut __ad_dv_110;
                    let mut __ad_dv_111;
                    let mut __ad_dv_112;
                    let mut __ad_dv_113;
                    let mut __ad_dv_115;
                    let mut __ad_dv_116;
                    let mut __ad_dv_117;
                    let mut __ad_dv_118;
                    let mut __ad_dv_119;
                    __ad_dv_119 = ::ad_runtime::__private::ir::peek(
                        &mut __ad_unit8_dm_prior_9,
                    );
                    {
                        let __ad_c = ::ad_runtime::__private::ir::add_back(__ad_dv_119);
                        __ad_dv_118 = __ad_c.0;
                        __ad_dv_117 = __ad_c.1;
                    }
                    {
                        let __ad_c = ::ad_runtime::__private::ir::sub_back(__ad_dv_117);
                        __ad_dv_113 = __ad_c.0;
                        __ad_dv_116 = __ad_c.1;
                    }
                    __ad_dv_115 = ::ad_runtime::__private::ir::Arithmetic::factor_back(
                        ::ad_runtime::__private::LiftProbe::new(
                                ::ad_runtime::__private::ir::value_of(__ad_v_114),
                            )
                            .__ad_lift::<__S>(),
                        __ad_dv_116,
                    );
                    ::ad_runtime::__private::ir::accumulate(
                        &mut __ad_shadow_sum_qs_0[__ad_v_ik_91],
                        __ad_dv_115,
                    );
                    {
                        let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                            ::ad_runtime::__private::ir::value_of(__ad_v_111),
                            ::ad_runtime::__private::ir::value_of(__ad_v_112),
                            __ad_dv_113,
                        );
                        __ad_dv_111 = __ad_c.0;
                        __ad_dv_112 = __ad_c.1;
                    }
                    ::ad_runtime::__private::ir::accumulate(
                        &mut __ad_dm_frobenius_10,
                        __ad_dv_112,
                    );
                    {
                        let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                            ::ad_runtime::__private::ir::value_of(__ad_v_110),
                            ::ad_runtime::__private::ir::value_of(__ad_v_gamma_7),
                            __ad_dv_111,
                        );
                        __ad_dv_110 = __ad_c.0;
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_unit8_dv_gamma_7,
                            __ad_c.1,
                        );
                    }
                    ::ad_runtime::__private::ir::accumulate(
                        &mut __ad_unit8_dv_gamma_7,
                        ::ad_runtime::__private::ir::Arithmetic::factor_back(
                            <__S as ::ad_runtime::Scalar>::from_f64(0.5),
                            __ad_dv_110,
                        ),
                    );
                    for __ad_iteration_10 in (0..__ad_count_10).rev() {
                        let __ad_v_j_102 = ::ad_runtime::__private::ir::nth_of_range(
                            __ad_v_d_4,
                            &__ad_v_icf_size_13,
                            __ad_iteration_10,
                        );
                        let __ad_v_103 = __ad_v_ik_91 * __ad_v_icf_size_13;
                        let __ad_v_104 = __ad_v_103 + __ad_v_j_102;
                        let __ad_v_105 = __ad_keep_v_105.pop();
                        let __ad_v_v_106 = __ad_v_105;
                        let mut __ad_dv_105;
                        let mut __ad_dv_v_106;
                        let mut __ad_dv_107;
                        let mut __ad_dv_108;
                        let mut __ad_dv_109;
                        __ad_dv_109 = ::ad_runtime::__private::ir::peek(
                            &mut __ad_dm_frobenius_10,
                        );
                        {
                            let __ad_c = ::ad_runtime::__private::ir::add_back(
                                __ad_dv_109,
                            );
                            __ad_dv_108 = __ad_c.0;
                            __ad_dv_107 = __ad_c.1;
                        }
                        {
                            let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                                ::ad_runtime::__private::ir::value_of(__ad_v_v_106),
                                ::ad_runtime::__private::ir::value_of(__ad_v_v_106),
                                __ad_dv_107,
                            );
                            __ad_dv_v_106 = __ad_c.0;
                            ::ad_runtime::__private::ir::accumulate(
                                &mut __ad_dv_v_106,
                                __ad_c.1,
                            );
                        }
                        __ad_dv_105 = __ad_dv_v_106;
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dv_icf_2[__ad_v_104],
                            __ad_dv_105,
                        );
                    }
                    for __ad_iteration_9 in (0..__ad_count_9).rev() {
                        let __ad_v_j_93 = ::ad_runtime::__private::ir::nth_of_range(
                            0,
                            &__ad_v_d_4,
                            __ad_iteration_9,
                        );
                        let __ad_v_94 = __ad_v_ik_91 * __ad_v_d_4;
                        let __ad_v_95 = __ad_v_94 + __ad_v_j_93;
                        let __ad_v_96 = __ad_m_q_diagonals_1[__ad_v_95];
                        let __ad_v_q_97 = __ad_v_96;
                        let mut __ad_dv_96;
                        let mut __ad_dv_q_97;
                        let mut __ad_dv_98;
                        let mut __ad_dv_99;
                        let mut __ad_dv_100;
                        __ad_dv_100 = ::ad_runtime::__private::ir::peek(
                            &mut __ad_dm_frobenius_10,
                        );
                        {
                            let __ad_c = ::ad_runtime::__private::ir::add_back(
                                __ad_dv_100,
                            );
                            __ad_dv_99 = __ad_c.0;
                            __ad_dv_98 = __ad_c.1;
                        }
                        {
                            let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                                ::ad_runtime::__private::ir::value_of(__ad_v_q_97),
                                ::ad_runtime::__private::ir::value_of(__ad_v_q_97),
                                __ad_dv_98,
                            );
                            __ad_dv_q_97 = __ad_c.0;
                            ::ad_runtime::__private::ir::accumulate(
                                &mut __ad_dv_q_97,
                                __ad_c.1,
                            );
                        }
                        __ad_dv_96 = __ad_dv_q_97;
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_shadow_q_diagonals_1[__ad_v_95],
                            __ad_dv_96,
                        );
                    }
                }
            }
            let __ad_v_120 = __ad_m_slse_6;
            let __ad_v_121 = __ad_v_constant_9 + __ad_v_120;
            let __ad_v_122 = ::ad_runtime::__private::CastProbe::new(__ad_v_n_6)
                .__ad_cast::<__S>();
            let __ad_v_123 = ::ad_runtime::__private::LiftProbe::new(__ad_v_122)
                .__ad_lift::<__S>() * __ad_v_lse_alphas_89;
            let __ad_v_124 = __ad_v_121 - __ad_v_123;
            let __ad_v_125 = __ad_m_prior_9;
            let __ad_v_126 = __ad_v_124 + __ad_v_125;
            let __ad_result = __ad_v_126;
            let __ad_v_12 = ::ad_runtime::__private::ir::value_of(__ad_v_12);
            let __ad_v_d_4 = ::ad_runtime::__private::ir::value_of(__ad_v_d_4);
            let __ad_v_k_5 = ::ad_runtime::__private::ir::value_of(__ad_v_k_5);
            let __ad_v_n_6 = ::ad_runtime::__private::ir::value_of(__ad_v_n_6);
            let __ad_v_gamma_7 = ::ad_runtime::__private::ir::value_of(__ad_v_gamma_7);
            let __ad_v_m_8 = ::ad_runtime::__private::ir::value_of(__ad_v_m_8);
            (
                __ad_result,
                ::std::boxed::Box::new(move |__ad_ct: __S| {
                    ::ad_runtime::__private::maybe_grow(move || {
                        let mut __ad_dv_gamma_7 = __ad_ty_gamma_7.zero();
                        let mut __ad_dv_constant_9 = __ad_ty_constant_9.zero();
                        let __ad_v_icf_size_13 = __ad_v_12;
                        let __ad_v_122 = ::ad_runtime::__private::CastProbe::new(
                                __ad_v_n_6,
                            )
                            .__ad_cast::<__S>();
                        let mut __ad_dm_sum_qs_0 = __ad_shadow_sum_qs_0;
                        let mut __ad_dm_q_diagonals_1 = __ad_shadow_q_diagonals_1;
                        let mut __ad_dm_main_term_3 = __ad_shadow_main_term_3;
                        let mut __ad_dm_centered_4 = __ad_shadow_centered_4;
                        let mut __ad_dm_transformed_5 = __ad_shadow_transformed_5;
                        let mut __ad_dm_slse_6 = __ad_tym_slse_6.zero();
                        let mut __ad_dm_prior_9 = __ad_tym_prior_9.zero();
                        let mut __ad_dv_88 = __ad_ty_88;
                        let mut __ad_dv_lse_alphas_89;
                        let mut __ad_dv_120;
                        let mut __ad_dv_121;
                        let mut __ad_dv_123;
                        let mut __ad_dv_124;
                        let mut __ad_dv_125;
                        let mut __ad_dv_126;
                        __ad_dv_126 = __ad_ct;
                        {
                            let __ad_c = ::ad_runtime::__private::ir::add_back(
                                __ad_dv_126,
                            );
                            __ad_dv_124 = __ad_c.0;
                            __ad_dv_125 = __ad_c.1;
                        }
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dm_prior_9,
                            __ad_dv_125,
                        );
                        {
                            let __ad_c = ::ad_runtime::__private::ir::sub_back(
                                __ad_dv_124,
                            );
                            __ad_dv_121 = __ad_c.0;
                            __ad_dv_123 = __ad_c.1;
                        }
                        __ad_dv_lse_alphas_89 = ::ad_runtime::__private::ir::Arithmetic::factor_back(
                            ::ad_runtime::__private::LiftProbe::new(
                                    ::ad_runtime::__private::ir::value_of(__ad_v_122),
                                )
                                .__ad_lift::<__S>(),
                            __ad_dv_123,
                        );
                        {
                            let __ad_c = ::ad_runtime::__private::ir::add_back(
                                __ad_dv_121,
                            );
                            ::ad_runtime::__private::ir::accumulate(
                                &mut __ad_dv_constant_9,
                                __ad_c.0,
                            );
                            __ad_dv_120 = __ad_c.1;
                        }
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dm_slse_6,
                            __ad_dv_120,
                        );
                        let __ad_factor_8 = ::core::clone::Clone::clone(
                            &__ad_dm_prior_9,
                        );
                        ::ad_runtime::__private::ir::scale_adjoint(
                            &mut __ad_dm_q_diagonals_1,
                            &__ad_factor_8,
                        );
                        ::ad_runtime::__private::ir::scale_adjoint(
                            &mut __ad_dv_icf_2,
                            &__ad_factor_8,
                        );
                        ::ad_runtime::__private::ir::accumulate_scaled(
                            &mut __ad_dv_gamma_7,
                            &__ad_factor_8,
                            __ad_unit8_dv_gamma_7,
                        );
                        ::ad_runtime::__private::ir::scale_adjoint(
                            &mut __ad_dm_sum_qs_0,
                            &__ad_factor_8,
                        );
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dv_88,
                            __ad_dv_lse_alphas_89,
                        );
                        {
                            let __ad_c = __ad_pb_88(__ad_dv_88);
                            ::ad_runtime::__private::ir::accumulate_argument(
                                &mut __ad_dv_alphas_0,
                                __ad_c.0,
                            );
                        }
                        let __ad_factor_2 = ::core::clone::Clone::clone(&__ad_dm_slse_6);
                        ::ad_runtime::__private::ir::scale_adjoint(
                            &mut __ad_dv_x_3,
                            &__ad_factor_2,
                        );
                        ::ad_runtime::__private::ir::scale_adjoint(
                            &mut __ad_dv_means_1,
                            &__ad_factor_2,
                        );
                        ::ad_runtime::__private::ir::accumulate_scaled(
                            &mut __ad_dm_q_diagonals_1,
                            &__ad_factor_2,
                            __ad_unit2_dm_q_diagonals_1,
                        );
                        ::ad_runtime::__private::ir::accumulate_scaled(
                            &mut __ad_dv_icf_2,
                            &__ad_factor_2,
                            __ad_unit2_dv_icf_2,
                        );
                        ::ad_runtime::__private::ir::accumulate_scaled(
                            &mut __ad_dv_alphas_0,
                            &__ad_factor_2,
                            __ad_unit2_dv_alphas_0,
                        );
                        ::ad_runtime::__private::ir::accumulate_scaled(
                            &mut __ad_dm_sum_qs_0,
                            &__ad_factor_2,
                            __ad_unit2_dm_sum_qs_0,
                        );
                        for __ad_iteration_0 in (0..__ad_count_0).rev() {
                            let __ad_v_ik_18 = ::ad_runtime::__private::ir::nth_of_range(
                                0,
                                &__ad_v_k_5,
                                __ad_iteration_0,
                            );
                            let __ad_count_1 = ::ad_runtime::__private::ir::range_count(
                                0,
                                &__ad_v_d_4,
                                false,
                            );
                            let mut __ad_dm_s_2 = __ad_tym_s_2.zero();
                            let mut __ad_dv_32;
                            __ad_dv_32 = ::ad_runtime::__private::ir::vacate(
                                &mut __ad_dm_sum_qs_0[__ad_v_ik_18],
                            );
                            ::ad_runtime::__private::ir::accumulate(
                                &mut __ad_dm_s_2,
                                __ad_dv_32,
                            );
                            for __ad_iteration_1 in (0..__ad_count_1).rev() {
                                let __ad_v_j_20 = ::ad_runtime::__private::ir::nth_of_range(
                                    0,
                                    &__ad_v_d_4,
                                    __ad_iteration_1,
                                );
                                let __ad_v_21 = __ad_v_ik_18 * __ad_v_icf_size_13;
                                let __ad_v_22 = __ad_v_21 + __ad_v_j_20;
                                let __ad_v_29 = __ad_keep_v_29.pop();
                                let __ad_v_30 = __ad_v_ik_18 * __ad_v_d_4;
                                let __ad_v_31 = __ad_v_30 + __ad_v_j_20;
                                let mut __ad_dv_23;
                                let mut __ad_dv_24;
                                let mut __ad_dv_25;
                                let mut __ad_dv_28;
                                let mut __ad_dv_29;
                                __ad_dv_29 = ::ad_runtime::__private::ir::vacate(
                                    &mut __ad_dm_q_diagonals_1[__ad_v_31],
                                );
                                {
                                    let __ad_c = ::ad_runtime::linear::LinearMap::reverse_apply(
                                        &::ad_runtime::rules::exp_from_value(
                                            ::ad_runtime::__private::ir::value_of(__ad_v_29),
                                        ),
                                        __ad_dv_29,
                                    );
                                    __ad_dv_28 = __ad_c;
                                }
                                __ad_dv_23 = __ad_dv_28;
                                __ad_dv_25 = ::ad_runtime::__private::ir::peek(
                                    &mut __ad_dm_s_2,
                                );
                                {
                                    let __ad_c = ::ad_runtime::__private::ir::add_back(
                                        __ad_dv_25,
                                    );
                                    __ad_dv_24 = __ad_c.0;
                                    ::ad_runtime::__private::ir::accumulate(
                                        &mut __ad_dv_23,
                                        __ad_c.1,
                                    );
                                }
                                ::ad_runtime::__private::ir::accumulate(
                                    &mut __ad_dv_icf_2[__ad_v_22],
                                    __ad_dv_23,
                                );
                            }
                        }
                        (
                            __ad_dv_alphas_0,
                            __ad_dv_means_1,
                            __ad_dv_icf_2,
                            __ad_dv_x_3,
                            (),
                            (),
                            (),
                            __ad_dv_gamma_7,
                            (),
                            __ad_dv_constant_9,
                        )
                    })
                }),
            )
        })
    }
}
#[allow(dead_code)]
impl gmm_objective_precomputed {
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
    pub fn __ad_reverse_borrowed<'__ad_p, __S: ::ad_runtime::Scalar<Base = f64>>(
        alphas: &'__ad_p [__S],
        means: &'__ad_p [__S],
        icf: &'__ad_p [__S],
        x: &'__ad_p [__S],
        d: usize,
        k: usize,
        n: usize,
        gamma: __S,
        m: usize,
        constant: __S,
    ) -> (
        __S,
        ::std::boxed::Box<
            dyn ::core::ops::FnOnce(
                __S,
            ) -> (
                    ::std::vec::Vec<__S>,
                    ::std::vec::Vec<__S>,
                    ::std::vec::Vec<__S>,
                    ::std::vec::Vec<__S>,
                    (),
                    (),
                    (),
                    __S,
                    (),
                    __S,
                ) + '__ad_p,
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
                dyn ::core::ops::FnOnce(
                    __S,
                ) -> (
                        ::std::vec::Vec<__S>,
                        ::std::vec::Vec<__S>,
                        ::std::vec::Vec<__S>,
                        ::std::vec::Vec<__S>,
                        (),
                        (),
                        (),
                        __S,
                        (),
                        __S,
                    ) + '__ad_p,
            >,
        ) {
            let __ad_v_alphas_0 = alphas;
            let mut __ad_dv_alphas_0 = ::ad_runtime::__private::ir::zero_like(
                __ad_v_alphas_0,
            );
            let __ad_v_means_1 = means;
            let mut __ad_dv_means_1 = ::ad_runtime::__private::ir::zero_like(
                __ad_v_means_1,
            );
            let __ad_v_icf_2 = icf;
            let mut __ad_dv_icf_2 = ::ad_runtime::__private::ir::zero_like(__ad_v_icf_2);
            let __ad_v_x_3 = x;
            let mut __ad_dv_x_3 = ::ad_runtime::__private::ir::zero_like(__ad_v_x_3);
            let __ad_v_d_4 = d;
            let __ad_v_k_5 = k;
            let __ad_v_n_6 = n;
            let __ad_v_gamma_7 = gamma;
            let __ad_ty_gamma_7 = ::ad_runtime::__private::ir::adjoint_of(
                &__ad_v_gamma_7,
            );
            let __ad_v_m_8 = m;
            let __ad_v_constant_9 = constant;
            let __ad_ty_constant_9 = ::ad_runtime::__private::ir::adjoint_of(
                &__ad_v_constant_9,
            );
            let mut __ad_keep_v_29 = ::ad_runtime::__private::ir::Stack::new();
            let mut __ad_keep_v_l_128 = ::ad_runtime::__private::ir::Stack::new();
            let mut __ad_states_centered_3 = ::ad_runtime::__private::ir::States::new();
            let mut __ad_states_transformed_3 = ::ad_runtime::__private::ir::States::new();
            let mut __ad_keep_zero_85 = ::ad_runtime::__private::ir::Stack::new();
            let mut __ad_tym_sum_qs_0 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_q_diagonals_1 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_s_2 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_main_term_3 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_centered_4 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_transformed_5 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_slse_6 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_sqnorm_8 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_prior_9 = ::ad_runtime::__private::ir::AdjointOf::new();
            let mut __ad_tym_frobenius_10 = ::ad_runtime::__private::ir::AdjointOf::new();
            let __ad_v_10 = __ad_v_d_4 + 1;
            let __ad_v_11 = __ad_v_d_4 * __ad_v_10;
            let __ad_v_12 = __ad_v_11 / 2;
            let __ad_v_icf_size_13 = __ad_v_12;
            let __ad_v_14 = ::std::vec![
                < __S as ::ad_runtime::Scalar > ::from_f64(0.0); __ad_v_k_5
            ];
            let mut __ad_m_sum_qs_0 = __ad_v_14;
            __ad_tym_sum_qs_0 = ::ad_runtime::__private::ir::adjoint_of(
                &__ad_m_sum_qs_0,
            );
            let mut __ad_shadow_sum_qs_0 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_sum_qs_0,
            );
            let __ad_v_15 = __ad_v_k_5 * __ad_v_d_4;
            let __ad_v_16 = ::std::vec![
                < __S as ::ad_runtime::Scalar > ::from_f64(0.0); __ad_v_15
            ];
            let mut __ad_m_q_diagonals_1 = __ad_v_16;
            __ad_tym_q_diagonals_1 = ::ad_runtime::__private::ir::adjoint_of(
                &__ad_m_q_diagonals_1,
            );
            let mut __ad_shadow_q_diagonals_1 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_q_diagonals_1,
            );
            let __ad_v_17 = 0..__ad_v_k_5;
            let mut __ad_count_0 = 0usize;
            for __ad_v_ik_18 in __ad_v_17 {
                __ad_count_0 += 1;
                let mut __ad_m_s_2 = <__S as ::ad_runtime::Scalar>::from_f64(0.0);
                __ad_tym_s_2 = ::ad_runtime::__private::ir::adjoint_of(&__ad_m_s_2);
                let __ad_v_19 = 0..__ad_v_d_4;
                let __ad_trips = ::core::iter::Iterator::size_hint(&__ad_v_19).0;
                __ad_keep_v_29.reserve(__ad_trips);
                let mut __ad_count_1 = 0usize;
                for __ad_v_j_20 in __ad_v_19 {
                    __ad_count_1 += 1;
                    let __ad_v_21 = __ad_v_ik_18 * __ad_v_icf_size_13;
                    let __ad_v_22 = __ad_v_21 + __ad_v_j_20;
                    let __ad_v_23 = __ad_v_icf_2[__ad_v_22];
                    let __ad_v_24 = __ad_m_s_2;
                    let __ad_v_25 = __ad_v_24 + __ad_v_23;
                    __ad_m_s_2 = __ad_v_25;
                    __ad_tym_s_2 = ::ad_runtime::__private::ir::adjoint_of(&__ad_m_s_2);
                    let __ad_v_26 = __ad_v_21;
                    let __ad_v_27 = __ad_v_22;
                    let __ad_v_28 = __ad_v_23;
                    let __ad_v_29 = __ad_v_28.exp();
                    __ad_keep_v_29
                        .push(::ad_runtime::__private::ir::value_of(__ad_v_29));
                    let __ad_v_30 = __ad_v_ik_18 * __ad_v_d_4;
                    let __ad_v_31 = __ad_v_30 + __ad_v_j_20;
                    __ad_m_q_diagonals_1[__ad_v_31] = __ad_v_29;
                }
                let __ad_v_32 = __ad_m_s_2;
                __ad_m_sum_qs_0[__ad_v_ik_18] = __ad_v_32;
            }
            let __ad_v_33 = ::std::vec![
                < __S as ::ad_runtime::Scalar > ::from_f64(0.0); __ad_v_k_5
            ];
            let mut __ad_m_main_term_3 = __ad_v_33;
            __ad_tym_main_term_3 = ::ad_runtime::__private::ir::adjoint_of(
                &__ad_m_main_term_3,
            );
            let mut __ad_shadow_main_term_3 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_main_term_3,
            );
            let __ad_v_34 = ::std::vec![
                < __S as ::ad_runtime::Scalar > ::from_f64(0.0); __ad_v_d_4
            ];
            let mut __ad_m_centered_4 = __ad_v_34;
            __ad_tym_centered_4 = ::ad_runtime::__private::ir::adjoint_of(
                &__ad_m_centered_4,
            );
            let mut __ad_shadow_centered_4 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_centered_4,
            );
            let __ad_v_35 = ::std::vec![
                < __S as ::ad_runtime::Scalar > ::from_f64(0.0); __ad_v_d_4
            ];
            let mut __ad_m_transformed_5 = __ad_v_35;
            __ad_tym_transformed_5 = ::ad_runtime::__private::ir::adjoint_of(
                &__ad_m_transformed_5,
            );
            let mut __ad_shadow_transformed_5 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_transformed_5,
            );
            let mut __ad_m_slse_6 = <__S as ::ad_runtime::Scalar>::from_f64(0.0);
            __ad_tym_slse_6 = ::ad_runtime::__private::ir::adjoint_of(&__ad_m_slse_6);
            let __ad_v_36 = 0..__ad_v_n_6;
            let mut __ad_unit2_dm_q_diagonals_1 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_q_diagonals_1,
            );
            let mut __ad_unit2_dv_icf_2 = ::ad_runtime::__private::ir::zero_like(
                __ad_v_icf_2,
            );
            let mut __ad_unit2_dv_alphas_0 = ::ad_runtime::__private::ir::zero_like(
                __ad_v_alphas_0,
            );
            let mut __ad_unit2_dm_sum_qs_0 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_sum_qs_0,
            );
            let mut __ad_unit2_dm_main_term_3 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_main_term_3,
            );
            let mut __ad_unit2_dm_centered_4 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_centered_4,
            );
            let mut __ad_unit2_dm_transformed_5 = ::ad_runtime::__private::ir::zero_like(
                &__ad_m_transformed_5,
            );
            let mut __ad_count_2 = 0usize;
            for __ad_v_ix_37 in __ad_v_36 {
                __ad_count_2 += 1;
                let __ad_v_38 = 0..__ad_v_k_5;
                let __ad_trips = ::core::iter::Iterator::size_hint(&__ad_v_38).0;
                __ad_keep_v_l_128.reserve(__ad_trips);
                __ad_states_centered_3.reserve(__ad_trips);
                __ad_states_transformed_3.reserve(__ad_trips);
                let mut __ad_count_3 = 0usize;
                for __ad_v_ik_39 in __ad_v_38 {
                    __ad_count_3 += 1;
                    let __ad_v_40 = 0..__ad_v_d_4;
                    let mut __ad_count_4 = 0usize;
                    for __ad_v_j_41 in __ad_v_40 {
                        __ad_count_4 += 1;
                        let __ad_v_42 = __ad_v_ix_37 * __ad_v_d_4;
                        let __ad_v_43 = __ad_v_42 + __ad_v_j_41;
                        let __ad_v_44 = ::ad_runtime::__private::LiftProbe::new(
                                __ad_v_x_3[__ad_v_43],
                            )
                            .__ad_lift::<__S>();
                        let __ad_v_45 = __ad_v_ik_39 * __ad_v_d_4;
                        let __ad_v_46 = __ad_v_45 + __ad_v_j_41;
                        let __ad_v_47 = __ad_v_means_1[__ad_v_46];
                        let __ad_v_48 = __ad_v_44 - __ad_v_47;
                        __ad_m_centered_4[__ad_v_j_41] = __ad_v_48;
                        let __ad_v_j_50 = __ad_v_j_41;
                        let __ad_v_51 = __ad_v_45;
                        let __ad_v_52 = __ad_v_46;
                        let __ad_v_53 = __ad_m_q_diagonals_1[__ad_v_52];
                        let __ad_v_54 = __ad_v_48;
                        let __ad_v_55 = __ad_v_53 * __ad_v_54;
                        __ad_m_transformed_5[__ad_v_j_50] = __ad_v_55;
                    }
                    let __ad_v_49 = 0..__ad_v_d_4;
                    let __ad_v_56 = __ad_v_ik_39 * __ad_v_icf_size_13;
                    let __ad_v_57 = __ad_v_56 + __ad_v_d_4;
                    let mut __ad_m_l_7 = __ad_v_57;
                    let __ad_v_58 = 0..__ad_v_d_4;
                    let mut __ad_count_5 = 0usize;
                    for __ad_v_i_59 in __ad_v_58 {
                        __ad_count_5 += 1;
                        let __ad_v_60 = __ad_v_i_59 + 1;
                        let __ad_v_61 = __ad_v_60..__ad_v_d_4;
                        let __ad_v_l_127 = __ad_m_l_7;
                        let mut __ad_count_6 = 0usize;
                        for __ad_v_j_62 in __ad_v_61 {
                            __ad_count_6 += 1;
                            let __ad_v_63 = __ad_m_l_7;
                            let __ad_v_64 = __ad_v_icf_2[__ad_v_63];
                            let __ad_v_65 = __ad_m_centered_4[__ad_v_i_59];
                            let __ad_v_66 = __ad_v_64 * __ad_v_65;
                            let __ad_v_67 = __ad_m_transformed_5[__ad_v_j_62];
                            let __ad_v_68 = __ad_v_67 + __ad_v_66;
                            __ad_m_transformed_5[__ad_v_j_62] = __ad_v_68;
                            let __ad_v_69 = __ad_v_63;
                            let __ad_v_70 = __ad_v_69 + 1;
                            __ad_m_l_7 = __ad_v_70;
                        }
                    }
                    let __ad_v_l_128 = __ad_m_l_7;
                    __ad_keep_v_l_128
                        .push(::ad_runtime::__private::ir::value_of(__ad_v_l_128));
                    let mut __ad_m_sqnorm_8 = <__S as ::ad_runtime::Scalar>::from_f64(
                        0.0,
                    );
                    __ad_tym_sqnorm_8 = ::ad_runtime::__private::ir::adjoint_of(
                        &__ad_m_sqnorm_8,
                    );
                    let __ad_v_71 = 0..__ad_v_d_4;
                    let mut __ad_count_7 = 0usize;
                    for __ad_v_j_72 in __ad_v_71 {
                        __ad_count_7 += 1;
                        let __ad_v_73 = __ad_m_transformed_5[__ad_v_j_72];
                        let __ad_v_74 = __ad_v_73;
                        let __ad_v_75 = __ad_v_73 * __ad_v_74;
                        let __ad_v_76 = __ad_m_sqnorm_8;
                        let __ad_v_77 = __ad_v_76 + __ad_v_75;
                        __ad_m_sqnorm_8 = __ad_v_77;
                        __ad_tym_sqnorm_8 = ::ad_runtime::__private::ir::adjoint_of(
                            &__ad_m_sqnorm_8,
                        );
                    }
                    let __ad_v_78 = __ad_v_alphas_0[__ad_v_ik_39];
                    let __ad_v_79 = __ad_m_sum_qs_0[__ad_v_ik_39];
                    let __ad_v_80 = __ad_v_78 + __ad_v_79;
                    let __ad_v_81 = __ad_m_sqnorm_8;
                    let __ad_v_82 = <__S as ::ad_runtime::Scalar>::from_f64(0.5)
                        * __ad_v_81;
                    let __ad_v_83 = __ad_v_80 - __ad_v_82;
                    __ad_m_main_term_3[__ad_v_ik_39] = __ad_v_83;
                    __ad_states_centered_3.save(&__ad_m_centered_4);
                    __ad_states_transformed_3.save(&__ad_m_transformed_5);
                }
                let __ad_v_84 = &__ad_m_main_term_3;
                let (__ad_v_85, __ad_pb_85) = logsumexp::__ad_reverse(__ad_v_84);
                __ad_keep_zero_85
                    .keep_zero(::ad_runtime::__private::ir::zero_like(&__ad_v_85));
                let __ad_v_86 = __ad_m_slse_6;
                let __ad_v_87 = __ad_v_86 + __ad_v_85;
                __ad_m_slse_6 = __ad_v_87;
                __ad_tym_slse_6 = ::ad_runtime::__private::ir::adjoint_of(
                    &__ad_m_slse_6,
                );
                {
                    let __ad_iteration_2 = __ad_count_2 - 1;
                    let mut __ad_unit2_dm_slse_6 = <__S as ::ad_runtime::Scalar>::one();
                    let __ad_count_3 = ::ad_runtime::__private::ir::range_count(
                        0,
                        &__ad_v_k_5,
                        false,
                    );
                    let mut __ad_dv_85 = __ad_keep_zero_85.zero_back();
                    let mut __ad_dv_86;
                    let mut __ad_dv_87;
                    __ad_dv_87 = ::ad_runtime::__private::ir::peek(
                        &mut __ad_unit2_dm_slse_6,
                    );
                    {
                        let __ad_c = ::ad_runtime::__private::ir::add_back(__ad_dv_87);
                        __ad_dv_86 = __ad_c.0;
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dv_85,
                            __ad_c.1,
                        );
                    }
                    {
                        let __ad_c = __ad_pb_85(__ad_dv_85);
                        ::ad_runtime::__private::ir::accumulate_argument(
                            &mut __ad_unit2_dm_main_term_3,
                            __ad_c.0,
                        );
                    }
                    for __ad_iteration_3 in (0..__ad_count_3).rev() {
                        let __ad_m_centered_4 = __ad_states_centered_3.restore();
                        let __ad_m_transformed_5 = __ad_states_transformed_3.restore();
                        let __ad_v_ik_39 = ::ad_runtime::__private::ir::nth_of_range(
                            0,
                            &__ad_v_k_5,
                            __ad_iteration_3,
                        );
                        let __ad_count_4 = ::ad_runtime::__private::ir::range_count(
                            0,
                            &__ad_v_d_4,
                            false,
                        );
                        let __ad_count_5 = ::ad_runtime::__private::ir::range_count(
                            0,
                            &__ad_v_d_4,
                            false,
                        );
                        let __ad_v_l_128 = __ad_keep_v_l_128.pop();
                        let __ad_count_7 = ::ad_runtime::__private::ir::range_count(
                            0,
                            &__ad_v_d_4,
                            false,
                        );
                        let mut __ad_dm_sqnorm_8 = __ad_tym_sqnorm_8.zero();
                        let mut __ad_dv_78;
                        let mut __ad_dv_79;
                        let mut __ad_dv_80;
                        let mut __ad_dv_81;
                        let mut __ad_dv_82;
                        let mut __ad_dv_83;
                        __ad_dv_83 = ::ad_runtime::__private::ir::vacate(
                            &mut __ad_unit2_dm_main_term_3[__ad_v_ik_39],
                        );
                        {
                            let __ad_c = ::ad_runtime::__private::ir::sub_back(
                                __ad_dv_83,
                            );
                            __ad_dv_80 = __ad_c.0;
                            __ad_dv_82 = __ad_c.1;
                        }
                        __ad_dv_81 = ::ad_runtime::__private::ir::Arithmetic::factor_back(
                            <__S as ::ad_runtime::Scalar>::from_f64(0.5),
                            __ad_dv_82,
                        );
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dm_sqnorm_8,
                            __ad_dv_81,
                        );
                        {
                            let __ad_c = ::ad_runtime::__private::ir::add_back(
                                __ad_dv_80,
                            );
                            __ad_dv_78 = __ad_c.0;
                            __ad_dv_79 = __ad_c.1;
                        }
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_unit2_dm_sum_qs_0[__ad_v_ik_39],
                            __ad_dv_79,
                        );
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_unit2_dv_alphas_0[__ad_v_ik_39],
                            __ad_dv_78,
                        );
                        for __ad_iteration_7 in (0..__ad_count_7).rev() {
                            let __ad_v_j_72 = ::ad_runtime::__private::ir::nth_of_range(
                                0,
                                &__ad_v_d_4,
                                __ad_iteration_7,
                            );
                            let __ad_v_73 = __ad_m_transformed_5[__ad_v_j_72];
                            let __ad_v_74 = __ad_v_73;
                            let mut __ad_dv_73;
                            let mut __ad_dv_74;
                            let mut __ad_dv_75;
                            let mut __ad_dv_76;
                            let mut __ad_dv_77;
                            __ad_dv_77 = ::ad_runtime::__private::ir::peek(
                                &mut __ad_dm_sqnorm_8,
                            );
                            {
                                let __ad_c = ::ad_runtime::__private::ir::add_back(
                                    __ad_dv_77,
                                );
                                __ad_dv_76 = __ad_c.0;
                                __ad_dv_75 = __ad_c.1;
                            }
                            {
                                let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                                    ::ad_runtime::__private::ir::value_of(__ad_v_73),
                                    ::ad_runtime::__private::ir::value_of(__ad_v_74),
                                    __ad_dv_75,
                                );
                                __ad_dv_73 = __ad_c.0;
                                __ad_dv_74 = __ad_c.1;
                            }
                            ::ad_runtime::__private::ir::accumulate(
                                &mut __ad_dv_73,
                                __ad_dv_74,
                            );
                            ::ad_runtime::__private::ir::accumulate(
                                &mut __ad_unit2_dm_transformed_5[__ad_v_j_72],
                                __ad_dv_73,
                            );
                        }
                        let mut __ad_row_127 = ::ad_runtime::__private::ir::value_of(
                            __ad_v_l_128,
                        );
                        for __ad_iteration_5 in (0..__ad_count_5).rev() {
                            let __ad_v_i_59 = ::ad_runtime::__private::ir::nth_of_range(
                                0,
                                &__ad_v_d_4,
                                __ad_iteration_5,
                            );
                            let __ad_v_60 = __ad_v_i_59 + 1;
                            let __ad_count_6 = ::ad_runtime::__private::ir::range_count(
                                __ad_v_60,
                                &__ad_v_d_4,
                                false,
                            );
                            let __ad_v_l_127 = ::ad_runtime::__private::ir::counter_before(
                                __ad_row_127,
                                __ad_count_6,
                                1,
                                true,
                            );
                            __ad_row_127 = __ad_v_l_127;
                            let mut __ad_sum_6_0 = ::ad_runtime::__private::ir::zero();
                            if __ad_count_6 > 0 {
                                __ad_sum_6_0 = ::ad_runtime::__private::ir::take(
                                    &mut __ad_unit2_dm_centered_4[__ad_v_i_59],
                                );
                            }
                            for __ad_iteration_6 in (0..__ad_count_6).rev() {
                                let __ad_v_j_62 = ::ad_runtime::__private::ir::nth_of_range(
                                    __ad_v_60,
                                    &__ad_v_d_4,
                                    __ad_iteration_6,
                                );
                                let __ad_v_63 = ::ad_runtime::__private::ir::counter_at(
                                    __ad_v_l_127,
                                    __ad_iteration_6,
                                    1,
                                    true,
                                    false,
                                );
                                let __ad_v_64 = __ad_v_icf_2[__ad_v_63];
                                let __ad_v_65 = __ad_m_centered_4[__ad_v_i_59];
                                let mut __ad_dv_64;
                                let mut __ad_dv_65;
                                let mut __ad_dv_66;
                                let mut __ad_dv_67;
                                let mut __ad_dv_68;
                                __ad_dv_68 = ::ad_runtime::__private::ir::peek(
                                    &mut __ad_unit2_dm_transformed_5[__ad_v_j_62],
                                );
                                {
                                    let __ad_c = ::ad_runtime::__private::ir::add_back(
                                        __ad_dv_68,
                                    );
                                    __ad_dv_67 = __ad_c.0;
                                    __ad_dv_66 = __ad_c.1;
                                }
                                {
                                    let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                                        ::ad_runtime::__private::ir::value_of(__ad_v_64),
                                        ::ad_runtime::__private::ir::value_of(__ad_v_65),
                                        __ad_dv_66,
                                    );
                                    __ad_dv_64 = __ad_c.0;
                                    __ad_dv_65 = __ad_c.1;
                                }
                                ::ad_runtime::__private::ir::accumulate(
                                    &mut __ad_sum_6_0,
                                    __ad_dv_65,
                                );
                                ::ad_runtime::__private::ir::accumulate(
                                    &mut __ad_unit2_dv_icf_2[__ad_v_63],
                                    __ad_dv_64,
                                );
                            }
                            if __ad_count_6 > 0 {
                                *&mut __ad_unit2_dm_centered_4[__ad_v_i_59] = __ad_sum_6_0;
                            }
                        }
                        for __ad_iteration_4 in (0..__ad_count_4).rev() {
                            let __ad_v_j_41 = ::ad_runtime::__private::ir::nth_of_range(
                                0,
                                &__ad_v_d_4,
                                __ad_iteration_4,
                            );
                            let __ad_v_42 = __ad_v_ix_37 * __ad_v_d_4;
                            let __ad_v_43 = __ad_v_42 + __ad_v_j_41;
                            let __ad_v_44 = ::ad_runtime::__private::LiftProbe::new(
                                    __ad_v_x_3[__ad_v_43],
                                )
                                .__ad_lift::<__S>();
                            let __ad_v_45 = __ad_v_ik_39 * __ad_v_d_4;
                            let __ad_v_46 = __ad_v_45 + __ad_v_j_41;
                            let __ad_v_47 = __ad_v_means_1[__ad_v_46];
                            let __ad_v_48 = __ad_v_44 - __ad_v_47;
                            let __ad_v_j_50 = __ad_v_j_41;
                            let __ad_v_52 = __ad_v_46;
                            let __ad_v_53 = __ad_m_q_diagonals_1[__ad_v_52];
                            let __ad_v_54 = __ad_v_48;
                            let mut __ad_dv_47;
                            let mut __ad_dv_48;
                            let mut __ad_dv_53;
                            let mut __ad_dv_54;
                            let mut __ad_dv_55;
                            __ad_dv_55 = ::ad_runtime::__private::ir::vacate(
                                &mut __ad_unit2_dm_transformed_5[__ad_v_j_50],
                            );
                            {
                                let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                                    ::ad_runtime::__private::ir::value_of(__ad_v_53),
                                    ::ad_runtime::__private::ir::value_of(__ad_v_54),
                                    __ad_dv_55,
                                );
                                __ad_dv_53 = __ad_c.0;
                                __ad_dv_54 = __ad_c.1;
                            }
                            __ad_dv_48 = __ad_dv_54;
                            ::ad_runtime::__private::ir::accumulate(
                                &mut __ad_unit2_dm_q_diagonals_1[__ad_v_52],
                                __ad_dv_53,
                            );
                            ::ad_runtime::__private::ir::accumulate(
                                &mut __ad_dv_48,
                                ::ad_runtime::__private::ir::vacate(
                                    &mut __ad_unit2_dm_centered_4[__ad_v_j_41],
                                ),
                            );
                            {
                                let __ad_c = ::ad_runtime::__private::ir::sub_back(
                                    __ad_dv_48,
                                );
                                __ad_dv_47 = __ad_c.1;
                            }
                            ::ad_runtime::__private::ir::accumulate(
                                &mut __ad_dv_means_1[__ad_v_46],
                                __ad_dv_47,
                            );
                        }
                    }
                    __ad_states_centered_3.release();
                    __ad_states_transformed_3.release();
                }
            }
            let (__ad_v_88, __ad_pb_88) = logsumexp::__ad_reverse(__ad_v_alphas_0);
            let __ad_ty_88 = ::ad_runtime::__private::ir::zero_like(&__ad_v_88);
            let __ad_v_lse_alphas_89 = __ad_v_88;
            let mut __ad_m_prior_9 = <__S as ::ad_runtime::Scalar>::from_f64(0.0);
            __ad_tym_prior_9 = ::ad_runtime::__private::ir::adjoint_of(&__ad_m_prior_9);
            let __ad_v_90 = 0..__ad_v_k_5;
            let mut __ad_count_8 = 0usize;
            for __ad_v_ik_91 in __ad_v_90 {
                __ad_count_8 += 1;
                let mut __ad_m_frobenius_10 = <__S as ::ad_runtime::Scalar>::from_f64(
                    0.0,
                );
                __ad_tym_frobenius_10 = ::ad_runtime::__private::ir::adjoint_of(
                    &__ad_m_frobenius_10,
                );
                let __ad_v_92 = 0..__ad_v_d_4;
                let mut __ad_count_9 = 0usize;
                for __ad_v_j_93 in __ad_v_92 {
                    __ad_count_9 += 1;
                    let __ad_v_94 = __ad_v_ik_91 * __ad_v_d_4;
                    let __ad_v_95 = __ad_v_94 + __ad_v_j_93;
                    let __ad_v_96 = __ad_m_q_diagonals_1[__ad_v_95];
                    let __ad_v_q_97 = __ad_v_96;
                    let __ad_v_98 = __ad_v_q_97 * __ad_v_q_97;
                    let __ad_v_99 = __ad_m_frobenius_10;
                    let __ad_v_100 = __ad_v_99 + __ad_v_98;
                    __ad_m_frobenius_10 = __ad_v_100;
                    __ad_tym_frobenius_10 = ::ad_runtime::__private::ir::adjoint_of(
                        &__ad_m_frobenius_10,
                    );
                }
                let __ad_v_101 = __ad_v_d_4..__ad_v_icf_size_13;
                let mut __ad_count_10 = 0usize;
                for __ad_v_j_102 in __ad_v_101 {
                    __ad_count_10 += 1;
                    let __ad_v_103 = __ad_v_ik_91 * __ad_v_icf_size_13;
                    let __ad_v_104 = __ad_v_103 + __ad_v_j_102;
                    let __ad_v_105 = __ad_v_icf_2[__ad_v_104];
                    let __ad_v_v_106 = __ad_v_105;
                    let __ad_v_107 = __ad_v_v_106 * __ad_v_v_106;
                    let __ad_v_108 = __ad_m_frobenius_10;
                    let __ad_v_109 = __ad_v_108 + __ad_v_107;
                    __ad_m_frobenius_10 = __ad_v_109;
                    __ad_tym_frobenius_10 = ::ad_runtime::__private::ir::adjoint_of(
                        &__ad_m_frobenius_10,
                    );
                }
                let __ad_v_110 = <__S as ::ad_runtime::Scalar>::from_f64(0.5)
                    * __ad_v_gamma_7;
                let __ad_v_111 = ::ad_runtime::__private::LiftProbe::new(__ad_v_110)
                    .__ad_lift::<__S>() * __ad_v_gamma_7;
                let __ad_v_112 = __ad_m_frobenius_10;
                let __ad_v_113 = ::ad_runtime::__private::LiftProbe::new(__ad_v_111)
                    .__ad_lift::<__S>() * __ad_v_112;
                let __ad_v_114 = ::ad_runtime::__private::CastProbe::new(__ad_v_m_8)
                    .__ad_cast::<__S>();
                let __ad_v_115 = __ad_m_sum_qs_0[__ad_v_ik_91];
                let __ad_v_116 = ::ad_runtime::__private::LiftProbe::new(__ad_v_114)
                    .__ad_lift::<__S>() * __ad_v_115;
                let __ad_v_117 = __ad_v_113 - __ad_v_116;
                let __ad_v_118 = __ad_m_prior_9;
                let __ad_v_119 = __ad_v_118 + __ad_v_117;
                __ad_m_prior_9 = __ad_v_119;
                __ad_tym_prior_9 = ::ad_runtime::__private::ir::adjoint_of(
                    &__ad_m_prior_9,
                );
                {
                    let __ad_iteration_8 = __ad_count_8 - 1;
                    let mut __ad_unit8_dm_prior_9 = <__S as ::ad_runtime::Scalar>::one();
                    let __ad_count_9 = ::ad_runtime::__private::ir::range_count(
                        0,
                        &__ad_v_d_4,
                        false,
                    );
                    let __ad_count_10 = ::ad_runtime::__private::ir::range_count(
                        __ad_v_d_4,
                        &__ad_v_icf_size_13,
                        false,
                    );
                    let __ad_v_110 = <__S as ::ad_runtime::Scalar>::from_f64(0.5)
                        * __ad_v_gamma_7;
                    let __ad_v_111 = ::ad_runtime::__private::LiftProbe::new(__ad_v_110)
                        .__ad_lift::<__S>() * __ad_v_gamma_7;
                    let __ad_v_114 = ::ad_runtime::__private::CastProbe::new(__ad_v_m_8)
                        .__ad_cast::<__S>();
                    let mut __ad_dm_frobenius_10 = __ad_tym_frobenius_10.zero();
                    let mut __ad_dv_112;
                    let mut __ad_dv_113;
                    let mut __ad_dv_115;
                    let mut __ad_dv_116;
                    let mut __ad_dv_117;
                    let mut __ad_dv_118;
                    let mut __ad_dv_119;
                    __ad_dv_119 = ::ad_runtime::__private::ir::peek(
                        &mut __ad_unit8_dm_prior_9,
                    );
                    {
                        let __ad_c = ::ad_runtime::__private::ir::add_back(__ad_dv_119);
                        __ad_dv_118 = __ad_c.0;
                        __ad_dv_117 = __ad_c.1;
                    }
                    {
                        let __ad_c = ::ad_runtime::__private::ir::sub_back(__ad_dv_117);
                        __ad_dv_113 = __ad_c.0;
                        __ad_dv_116 = __ad_c.1;
                    }
                    __ad_dv_115 = ::ad_runtime::__private::ir::Arithmetic::factor_back(
                        ::ad_runtime::__private::LiftProbe::new(
                                ::ad_runtime::__private::ir::value_of(__ad_v_114),
                            )
                            .__ad_lift::<__S>(),
                        __ad_dv_116,
                    );
                    ::ad_runtime::__private::ir::accumulate(
                        &mut __ad_shadow_sum_qs_0[__ad_v_ik_91],
                        __ad_dv_115,
                    );
                    __ad_dv_112 = ::ad_runtime::__private::ir::Arithmetic::factor_back(
                        ::ad_runtime::__private::LiftProbe::new(
                                ::ad_runtime::__private::ir::value_of(__ad_v_111),
                            )
                            .__ad_lift::<__S>(),
                        __ad_dv_113,
                    );
                    ::ad_runtime::__private::ir::accumulate(
                        &mut __ad_dm_frobenius_10,
                        __ad_dv_112,
                    );
                    for __ad_iteration_10 in (0..__ad_count_10).rev() {
                        let __ad_v_j_102 = ::ad_runtime::__private::ir::nth_of_range(
                            __ad_v_d_4,
                            &__ad_v_icf_size_13,
                            __ad_iteration_10,
                        );
                        let __ad_v_103 = __ad_v_ik_91 * __ad_v_icf_size_13;
                        let __ad_v_104 = __ad_v_103 + __ad_v_j_102;
                        let __ad_v_105 = __ad_v_icf_2[__ad_v_104];
                        let __ad_v_v_106 = __ad_v_105;
                        let mut __ad_dv_105;
                        let mut __ad_dv_v_106;
                        let mut __ad_dv_107;
                        let mut __ad_dv_108;
                        let mut __ad_dv_109;
                        __ad_dv_109 = ::ad_runtime::__private::ir::peek(
                            &mut __ad_dm_frobenius_10,
                        );
                        {
                            let __ad_c = ::ad_runtime::__private::ir::add_back(
                                __ad_dv_109,
                            );
                            __ad_dv_108 = __ad_c.0;
                            __ad_dv_107 = __ad_c.1;
                        }
                        {
                            let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                                ::ad_runtime::__private::ir::value_of(__ad_v_v_106),
                                ::ad_runtime::__private::ir::value_of(__ad_v_v_106),
                                __ad_dv_107,
                            );
                            __ad_dv_v_106 = __ad_c.0;
                            ::ad_runtime::__private::ir::accumulate(
                                &mut __ad_dv_v_106,
                                __ad_c.1,
                            );
                        }
                        __ad_dv_105 = __ad_dv_v_106;
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dv_icf_2[__ad_v_104],
                            __ad_dv_105,
                        );
                    }
                    for __ad_iteration_9 in (0..__ad_count_9).rev() {
                        let __ad_v_j_93 = ::ad_runtime::__private::ir::nth_of_range(
                            0,
                            &__ad_v_d_4,
                            __ad_iteration_9,
                        );
                        let __ad_v_94 = __ad_v_ik_91 * __ad_v_d_4;
                        let __ad_v_95 = __ad_v_94 + __ad_v_j_93;
                        let __ad_v_96 = __ad_m_q_diagonals_1[__ad_v_95];
                        let __ad_v_q_97 = __ad_v_96;
                        let mut __ad_dv_96;
                        let mut __ad_dv_q_97;
                        let mut __ad_dv_98;
                        let mut __ad_dv_99;
                        let mut __ad_dv_100;
                        __ad_dv_100 = ::ad_runtime::__private::ir::peek(
                            &mut __ad_dm_frobenius_10,
                        );
                        {
                            let __ad_c = ::ad_runtime::__private::ir::add_back(
                                __ad_dv_100,
                            );
                            __ad_dv_99 = __ad_c.0;
                            __ad_dv_98 = __ad_c.1;
                        }
                        {
                            let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                                ::ad_runtime::__private::ir::value_of(__ad_v_q_97),
                                ::ad_runtime::__private::ir::value_of(__ad_v_q_97),
                                __ad_dv_98,
                            );
                            __ad_dv_q_97 = __ad_c.0;
                            ::ad_runtime::__private::ir::accumulate(
                                &mut __ad_dv_q_97,
                                __ad_c.1,
                            );
                        }
                        __ad_dv_96 = __ad_dv_q_97;
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_shadow_q_diagonals_1[__ad_v_95],
                            __ad_dv_96,
                        );
                    }
                }
            }
            let __ad_v_120 = __ad_m_slse_6;
            let __ad_v_121 = __ad_v_constant_9 + __ad_v_120;
            let __ad_v_122 = ::ad_runtime::__private::CastProbe::new(__ad_v_n_6)
                .__ad_cast::<__S>();
            let __ad_v_123 = ::ad_runtime::__private::LiftProbe::new(__ad_v_122)
                .__ad_lift::<__S>() * __ad_v_lse_alphas_89;
            let __ad_v_124 = __ad_v_121 - __ad_v_123;
            let __ad_v_125 = __ad_m_prior_9;
            let __ad_v_126 = __ad_v_124 + __ad_v_125;
            let __ad_result = __ad_v_126;
            let __ad_v_12 = ::ad_runtime::__private::ir::value_of(__ad_v_12);
            let __ad_v_d_4 = ::ad_runtime::__private::ir::value_of(__ad_v_d_4);
            let __ad_v_k_5 = ::ad_runtime::__private::ir::value_of(__ad_v_k_5);
            let __ad_v_n_6 = ::ad_runtime::__private::ir::value_of(__ad_v_n_6);
            let __ad_v_gamma_7 = ::ad_runtime::__private::ir::value_of(__ad_v_gamma_7);
            let __ad_v_m_8 = ::ad_runtime::__private::ir::value_of(__ad_v_m_8);
            (
                __ad_result,
                ::std::boxed::Box::new(move |__ad_ct: __S| {
                    ::ad_runtime::__private::maybe_grow(move || {
                        let mut __ad_dv_gamma_7 = __ad_ty_gamma_7.zero();
                        let mut __ad_dv_constant_9 = __ad_ty_constant_9.zero();
                        let __ad_v_icf_size_13 = __ad_v_12;
                        let __ad_v_122 = ::ad_runtime::__private::CastProbe::new(
                                __ad_v_n_6,
                            )
                            .__ad_cast::<__S>();
                        let mut __ad_dm_sum_qs_0 = __ad_shadow_sum_qs_0;
                        let mut __ad_dm_q_diagonals_1 = __ad_shadow_q_diagonals_1;
                        let mut __ad_dm_main_term_3 = __ad_shadow_main_term_3;
                        let mut __ad_dm_centered_4 = __ad_shadow_centered_4;
                        let mut __ad_dm_transformed_5 = __ad_shadow_transformed_5;
                        let mut __ad_dm_slse_6 = __ad_tym_slse_6.zero();
                        let mut __ad_dm_prior_9 = __ad_tym_prior_9.zero();
                        let mut __ad_dv_88 = __ad_ty_88;
                        let mut __ad_dv_lse_alphas_89;
                        let mut __ad_dv_120;
                        let mut __ad_dv_121;
                        let mut __ad_dv_123;
                        let mut __ad_dv_124;
                        let mut __ad_dv_125;
                        let mut __ad_dv_126;
                        __ad_dv_126 = __ad_ct;
                        {
                            let __ad_c = ::ad_runtime::__private::ir::add_back(
                                __ad_dv_126,
                            );
                            __ad_dv_124 = __ad_c.0;
                            __ad_dv_125 = __ad_c.1;
                        }
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dm_prior_9,
                            __ad_dv_125,
                        );
                        {
                            let __ad_c = ::ad_runtime::__private::ir::sub_back(
                                __ad_dv_124,
                            );
                            __ad_dv_121 = __ad_c.0;
                            __ad_dv_123 = __ad_c.1;
                        }
                        __ad_dv_lse_alphas_89 = ::ad_runtime::__private::ir::Arithmetic::factor_back(
                            ::ad_runtime::__private::LiftProbe::new(
                                    ::ad_runtime::__private::ir::value_of(__ad_v_122),
                                )
                                .__ad_lift::<__S>(),
                            __ad_dv_123,
                        );
                        {
                            let __ad_c = ::ad_runtime::__private::ir::add_back(
                                __ad_dv_121,
                            );
                            __ad_dv_120 = __ad_c.1;
                        }
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dm_slse_6,
                            __ad_dv_120,
                        );
                        let __ad_factor_8 = ::core::clone::Clone::clone(
                            &__ad_dm_prior_9,
                        );
                        ::ad_runtime::__private::ir::scale_adjoint(
                            &mut __ad_dm_q_diagonals_1,
                            &__ad_factor_8,
                        );
                        ::ad_runtime::__private::ir::scale_adjoint(
                            &mut __ad_dv_icf_2,
                            &__ad_factor_8,
                        );
                        ::ad_runtime::__private::ir::scale_adjoint(
                            &mut __ad_dm_sum_qs_0,
                            &__ad_factor_8,
                        );
                        ::ad_runtime::__private::ir::accumulate(
                            &mut __ad_dv_88,
                            __ad_dv_lse_alphas_89,
                        );
                        {
                            let __ad_c = __ad_pb_88(__ad_dv_88);
                            ::ad_runtime::__private::ir::accumulate_argument(
                                &mut __ad_dv_alphas_0,
                                __ad_c.0,
                            );
                        }
                        let __ad_factor_2 = ::core::clone::Clone::clone(&__ad_dm_slse_6);
                        ::ad_runtime::__private::ir::scale_adjoint(
                            &mut __ad_dv_means_1,
                            &__ad_factor_2,
                        );
                        ::ad_runtime::__private::ir::accumulate_scaled(
                            &mut __ad_dm_q_diagonals_1,
                            &__ad_factor_2,
                            __ad_unit2_dm_q_diagonals_1,
                        );
                        ::ad_runtime::__private::ir::accumulate_scaled(
                            &mut __ad_dv_icf_2,
                            &__ad_factor_2,
                            __ad_unit2_dv_icf_2,
                        );
                        ::ad_runtime::__private::ir::accumulate_scaled(
                            &mut __ad_dv_alphas_0,
                            &__ad_factor_2,
                            __ad_unit2_dv_alphas_0,
                        );
                        ::ad_runtime::__private::ir::accumulate_scaled(
                            &mut __ad_dm_sum_qs_0,
                            &__ad_factor_2,
                            __ad_unit2_dm_sum_qs_0,
                        );
                        for __ad_iteration_0 in (0..__ad_count_0).rev() {
                            let __ad_v_ik_18 = ::ad_runtime::__private::ir::nth_of_range(
                                0,
                                &__ad_v_k_5,
                                __ad_iteration_0,
                            );
                            let __ad_count_1 = ::ad_runtime::__private::ir::range_count(
                                0,
                                &__ad_v_d_4,
                                false,
                            );
                            let mut __ad_dm_s_2 = __ad_tym_s_2.zero();
                            let mut __ad_dv_32;
                            __ad_dv_32 = ::ad_runtime::__private::ir::vacate(
                                &mut __ad_dm_sum_qs_0[__ad_v_ik_18],
                            );
                            ::ad_runtime::__private::ir::accumulate(
                                &mut __ad_dm_s_2,
                                __ad_dv_32,
                            );
                            for __ad_iteration_1 in (0..__ad_count_1).rev() {
                                let __ad_v_j_20 = ::ad_runtime::__private::ir::nth_of_range(
                                    0,
                                    &__ad_v_d_4,
                                    __ad_iteration_1,
                                );
                                let __ad_v_21 = __ad_v_ik_18 * __ad_v_icf_size_13;
                                let __ad_v_22 = __ad_v_21 + __ad_v_j_20;
                                let __ad_v_29 = __ad_keep_v_29.pop();
                                let __ad_v_30 = __ad_v_ik_18 * __ad_v_d_4;
                                let __ad_v_31 = __ad_v_30 + __ad_v_j_20;
                                let mut __ad_dv_23;
                                let mut __ad_dv_24;
                                let mut __ad_dv_25;
                                let mut __ad_dv_28;
                                let mut __ad_dv_29;
                                __ad_dv_29 = ::ad_runtime::__private::ir::vacate(
                                    &mut __ad_dm_q_diagonals_1[__ad_v_31],
                                );
                                {
                                    let __ad_c = ::ad_runtime::linear::LinearMap::reverse_apply(
                                        &::ad_runtime::rules::exp_from_value(
                                            ::ad_runtime::__private::ir::value_of(__ad_v_29),
                                        ),
                                        __ad_dv_29,
                                    );
                                    __ad_dv_28 = __ad_c;
                                }
                                __ad_dv_23 = __ad_dv_28;
                                __ad_dv_25 = ::ad_runtime::__private::ir::peek(
                                    &mut __ad_dm_s_2,
                                );
                                {
                                    let __ad_c = ::ad_runtime::__private::ir::add_back(
                                        __ad_dv_25,
                                    );
                                    __ad_dv_24 = __ad_c.0;
                                    ::ad_runtime::__private::ir::accumulate(
                                        &mut __ad_dv_23,
                                        __ad_c.1,
                                    );
                                }
                                ::ad_runtime::__private::ir::accumulate(
                                    &mut __ad_dv_icf_2[__ad_v_22],
                                    __ad_dv_23,
                                );
                            }
                        }
                        (
                            __ad_dv_alphas_0,
                            __ad_dv_means_1,
                            __ad_dv_icf_2,
                            __ad_dv_x_3,
                            (),
                            (),
                            (),
                            __ad_dv_gamma_7,
                            (),
                            __ad_dv_constant_9,
                        )
                    })
                }),
            )
        })
    }
}
#[allow(dead_code)]
impl gmm_objective_precomputed {
    #[doc(hidden)]
    #[inline]
    #[allow(
        dead_code,
        unused_variables,
        clippy::too_many_arguments,
        clippy::type_complexity,
        unreachable_code
    )]
    pub fn vjp<__S: ::ad_runtime::Scalar<Base = f64>>(
        alphas: &[__S],
        means: &[__S],
        icf: &[__S],
        x: &[__S],
        d: usize,
        k: usize,
        n: usize,
        gamma: __S,
        m: usize,
        constant: __S,
        d_out: __S,
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, ::std::vec::Vec<__S>))
    where
        for<'__ad> &'__ad __S: ::ad_runtime::ScalarRef<__S>,
    {
        let (value, pullback) = gmm_objective_precomputed::__ad_reverse_borrowed(
            alphas,
            means,
            icf,
            x,
            d,
            k,
            n,
            gamma,
            m,
            constant,
        );
        let adjoints = pullback(d_out);
        (value, (adjoints.0, adjoints.1, adjoints.2))
    }
}
/** Reverse-mode derivative of [`gmm_objective_precomputed`], generated by `#[reverse]`.

 `gmm_objective_precomputed_vjp(alphas, means, icf, x, d, k, n, gamma, m, constant, d_out)` returns `(gmm_objective_precomputed(alphas, means, icf, x, d, k, n, gamma, m, constant), d_out · J)`: the value, and the adjoint of each float parameter (a tuple in declared order when there are several) for the cotangent `d_out` of the result.*/
#[allow(
    dead_code,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity,
    unreachable_code
)]
#[inline]
pub fn gmm_objective_precomputed_vjp(
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    d: usize,
    k: usize,
    n: usize,
    gamma: f64,
    m: usize,
    constant: f64,
    d_out: f64,
) -> (f64, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
    gmm_objective_precomputed::vjp::<
        f64,
    >(alphas, means, icf, x, d, k, n, gamma, m, constant, d_out)
}
/// Jacobian of [`gmm_objective_precomputed`] by reverse mode, generated by `#[reverse]`: the value, and one row per float of the result (one `gmm_objective_precomputed_vjp` each), one column per float of the differentiable parameters in declared order.
#[inline]
#[allow(
    dead_code,
    unused_mut,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity
)]
pub fn gmm_objective_precomputed_jacrev(
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    d: usize,
    k: usize,
    n: usize,
    gamma: f64,
    m: usize,
    constant: f64,
) -> (f64, ::std::vec::Vec<::std::vec::Vec<f64>>) {
    let __ad_value = gmm_objective_precomputed(
        alphas,
        means,
        icf,
        x,
        d,
        k,
        n,
        gamma,
        m,
        constant,
    );
    ::ad_runtime::__private::jacobian::reverse_jacobian::<
        f64,
        _,
        _,
    >(
        __ad_value,
        |__ad_cotangent| {
            gmm_objective_precomputed_vjp(
                    alphas,
                    means,
                    icf,
                    x,
                    d,
                    k,
                    n,
                    gamma,
                    m,
                    constant,
                    __ad_cotangent,
                )
                .1
        },
    )
}
#[allow(dead_code)]
impl gmm_objective_precomputed {
    #[doc(hidden)]
    #[inline]
    #[allow(
        dead_code,
        unused_variables,
        clippy::too_many_arguments,
        clippy::type_complexity,
        unreachable_code
    )]
    pub fn grad<__S: ::ad_runtime::Scalar<Base = f64>>(
        alphas: &[__S],
        means: &[__S],
        icf: &[__S],
        x: &[__S],
        d: usize,
        k: usize,
        n: usize,
        gamma: __S,
        m: usize,
        constant: __S,
    ) -> (__S, (::std::vec::Vec<__S>, ::std::vec::Vec<__S>, ::std::vec::Vec<__S>))
    where
        for<'__ad> &'__ad __S: ::ad_runtime::ScalarRef<__S>,
    {
        gmm_objective_precomputed::vjp(
            alphas,
            means,
            icf,
            x,
            d,
            k,
            n,
            gamma,
            m,
            constant,
            <__S as ::ad_runtime::Scalar>::one(),
        )
    }
}
/// Gradient of [`gmm_objective_precomputed`], generated by `#[reverse]`: `gmm_objective_precomputed_grad(alphas, means, icf, x, d, k, n, gamma, m, constant)` is `gmm_objective_precomputed_vjp(alphas, means, icf, x, d, k, n, gamma, m, constant, 1)`.
#[allow(
    dead_code,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity,
    unreachable_code
)]
#[inline]
pub fn gmm_objective_precomputed_grad(
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    d: usize,
    k: usize,
    n: usize,
    gamma: f64,
    m: usize,
    constant: f64,
) -> (f64, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
    gmm_objective_precomputed::grad::<
        f64,
    >(alphas, means, icf, x, d, k, n, gamma, m, constant)
}
/// Hessian of [`gmm_objective_precomputed`], generated by `#[reverse]`: the value, the gradient and the Hessian (a row and a column per float of the differentiable parameters in declared order), by the vector forward mode over the gradient.
#[inline]
#[allow(
    dead_code,
    unused_mut,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity
)]
pub fn gmm_objective_precomputed_hessian(
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    d: usize,
    k: usize,
    n: usize,
    gamma: f64,
    m: usize,
    constant: f64,
) -> (f64, ::std::vec::Vec<f64>, ::std::vec::Vec<::std::vec::Vec<f64>>) {
    {
        const __AD_CHUNK: usize = ::ad_runtime::__private::jacobian::CHUNK;
        let __ad_inputs = 0
            + ::ad_runtime::__private::jacobian::Directions::<f64>::count(&alphas)
            + ::ad_runtime::__private::jacobian::Directions::<f64>::count(&means)
            + ::ad_runtime::__private::jacobian::Directions::<f64>::count(&icf);
        let mut __ad_seeded_alphas = ::ad_runtime::__private::jacobian::Directions::<
            f64,
        >::constant::<__AD_CHUNK>(&alphas);
        let mut __ad_seeded_means = ::ad_runtime::__private::jacobian::Directions::<
            f64,
        >::constant::<__AD_CHUNK>(&means);
        let mut __ad_seeded_icf = ::ad_runtime::__private::jacobian::Directions::<
            f64,
        >::constant::<__AD_CHUNK>(&icf);
        let __ad_seeded_x = ::ad_runtime::__private::jacobian::Directions::<
            f64,
        >::constant::<__AD_CHUNK>(&x);
        let __ad_seeded_gamma = ::ad_runtime::__private::jacobian::Directions::<
            f64,
        >::constant::<__AD_CHUNK>(&gamma);
        let __ad_seeded_constant = ::ad_runtime::__private::jacobian::Directions::<
            f64,
        >::constant::<__AD_CHUNK>(&constant);
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
                >(&alphas, &mut __ad_seeded_alphas, __ad_start, &mut __ad_offset);
                ::ad_runtime::__private::jacobian::Directions::<
                    f64,
                >::reseed::<
                    __AD_CHUNK,
                >(&means, &mut __ad_seeded_means, __ad_start, &mut __ad_offset);
                ::ad_runtime::__private::jacobian::Directions::<
                    f64,
                >::reseed::<
                    __AD_CHUNK,
                >(&icf, &mut __ad_seeded_icf, __ad_start, &mut __ad_offset);
                let _ = __ad_offset;
                gmm_objective_precomputed::grad::<
                    ::ad_runtime::DualVec<f64, __AD_CHUNK>,
                >(
                    &__ad_seeded_alphas,
                    &__ad_seeded_means,
                    &__ad_seeded_icf,
                    &__ad_seeded_x,
                    d,
                    k,
                    n,
                    ::core::clone::Clone::clone(&__ad_seeded_gamma),
                    m,
                    ::core::clone::Clone::clone(&__ad_seeded_constant),
                )
            },
        )
    }
}
/// Hessian-vector product of [`gmm_objective_precomputed`], generated by `#[reverse]`: the value, and the Hessian times the direction (d_alphas, d_means, d_icf) shaped as the gradient, by forward mode over the gradient (one pass).
#[inline]
#[allow(
    dead_code,
    unused_mut,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity
)]
pub fn gmm_objective_precomputed_hvp(
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    d: usize,
    k: usize,
    n: usize,
    gamma: f64,
    m: usize,
    constant: f64,
    d_alphas: &[f64],
    d_means: &[f64],
    d_icf: &[f64],
) -> (f64, (::std::vec::Vec<f64>, ::std::vec::Vec<f64>, ::std::vec::Vec<f64>)) {
    let __ad_seeded_alphas = ::ad_runtime::__private::Seed::seed(alphas, d_alphas);
    let __ad_seeded_means = ::ad_runtime::__private::Seed::seed(means, d_means);
    let __ad_seeded_icf = ::ad_runtime::__private::Seed::seed(icf, d_icf);
    let __ad_seeded_x = ::ad_runtime::__private::Seed::constant(x);
    let __ad_seeded_gamma = ::ad_runtime::__private::Seed::constant(gamma);
    let __ad_seeded_constant = ::ad_runtime::__private::Seed::constant(constant);
    let (__ad_value, __ad_adjoints) = gmm_objective_precomputed::grad::<
        ::ad_runtime::Dual<f64>,
    >(
        &__ad_seeded_alphas,
        &__ad_seeded_means,
        &__ad_seeded_icf,
        &__ad_seeded_x,
        d,
        k,
        n,
        __ad_seeded_gamma,
        m,
        __ad_seeded_constant,
    );
    (__ad_value.value, ::ad_runtime::__private::DualParts::split(__ad_adjoints).1)
}
#[allow(dead_code)]
impl gmm_objective_precomputed {
    #[doc(hidden)]
    pub const __AD_ENGINE: &'static str = "ir";
}
