// The expansion of straight_line.rs by #[reverse] (IR engine). Written by `UPDATE_SNAPSHOTS=1 cargo test -p ad-macros`.

fn straight_line(x: f64, y: f64) -> f64 {
    let z = x * y;
    z.sin() + x / y
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct straight_line {}
#[allow(dead_code)]
impl straight_line {
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
    fn __ad_forward<__S: ::ad_runtime::Scalar<Base = f64>>(x: __S, y: __S) -> __S
    where
        for<'__ad> &'__ad __S: ::ad_runtime::ScalarRef<__S>,
    {
        let _ = straight_line;
        #[allow(unused_imports)]
        use ::ad_runtime::__private::{
            CastPrimitive as _, CastScalar as _, LiftConstant as _,
            LiftConstantOther as _, LiftBorrowed as _, LiftDerived as _,
            LiftBorrowedOther as _, LiftFloat as _, LiftOption as _, LiftOther as _,
            LiftTuple as _, LiftZipped as _, LiftZippedOther as _,
        };
        let z = x * y;
        z.sin() + x / y
    }
}
#[allow(dead_code)]
impl straight_line {
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
        y: __S,
    ) -> (__S, impl ::core::ops::FnOnce(__S) -> (__S, __S) + use<__S>)
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
        let __ad_v_y_1 = y;
        let __ad_ty_y_1 = ::ad_runtime::__private::ir::adjoint_of(&__ad_v_y_1);
        let __ad_v_2 = __ad_v_x_0 * __ad_v_y_1;
        let __ad_v_z_3 = __ad_v_2;
        let (__ad_v_4, __ad_pb_4) = ::ad_runtime::rules::sin(
            ::ad_runtime::__private::ir::value_of(__ad_v_z_3),
        );
        let __ad_v_5 = __ad_v_x_0 / __ad_v_y_1;
        let __ad_v_6 = __ad_v_4 + __ad_v_5;
        let __ad_result = __ad_v_6;
        let __ad_v_x_0 = ::ad_runtime::__private::ir::value_of(__ad_v_x_0);
        let __ad_v_y_1 = ::ad_runtime::__private::ir::value_of(__ad_v_y_1);
        (
            __ad_result,
            move |__ad_ct: __S| {
                let mut __ad_dv_x_0 = __ad_ty_x_0.zero();
                let mut __ad_dv_y_1 = __ad_ty_y_1.zero();
                let mut __ad_dv_2;
                let mut __ad_dv_z_3;
                let mut __ad_dv_4;
                let mut __ad_dv_5;
                let mut __ad_dv_6;
                __ad_dv_6 = __ad_ct;
                {
                    let __ad_c = ::ad_runtime::__private::ir::add_back(__ad_dv_6);
                    __ad_dv_4 = __ad_c.0;
                    __ad_dv_5 = __ad_c.1;
                }
                {
                    let __ad_c = ::ad_runtime::__private::ir::Arithmetic::div_back(
                        ::ad_runtime::__private::ir::value_of(__ad_v_x_0),
                        ::ad_runtime::__private::ir::value_of(__ad_v_y_1),
                        __ad_dv_5,
                    );
                    ::ad_runtime::__private::ir::accumulate(&mut __ad_dv_x_0, __ad_c.0);
                    ::ad_runtime::__private::ir::accumulate(&mut __ad_dv_y_1, __ad_c.1);
                }
                {
                    let __ad_c = ::ad_runtime::linear::LinearMap::reverse_apply(
                        &__ad_pb_4,
                        __ad_dv_4,
                    );
                    __ad_dv_z_3 = __ad_c;
                }
                __ad_dv_2 = __ad_dv_z_3;
                {
                    let __ad_c = ::ad_runtime::__private::ir::Arithmetic::mul_back(
                        ::ad_runtime::__private::ir::value_of(__ad_v_x_0),
                        ::ad_runtime::__private::ir::value_of(__ad_v_y_1),
                        __ad_dv_2,
                    );
                    ::ad_runtime::__private::ir::accumulate(&mut __ad_dv_x_0, __ad_c.0);
                    ::ad_runtime::__private::ir::accumulate(&mut __ad_dv_y_1, __ad_c.1);
                }
                (__ad_dv_x_0, __ad_dv_y_1)
            },
        )
    }
}
#[allow(dead_code)]
impl straight_line {
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
        y: __S,
        d_out: __S,
    ) -> (__S, (__S, __S))
    where
        for<'__ad> &'__ad __S: ::ad_runtime::ScalarRef<__S>,
    {
        let (value, pullback) = straight_line::__ad_reverse(x, y);
        let adjoints = pullback(d_out);
        (value, (adjoints.0, adjoints.1))
    }
}
/** Reverse-mode derivative of [`straight_line`], generated by `#[reverse]`.

 `straight_line_vjp(x, y, d_out)` returns `(straight_line(x, y), d_out · J)`: the value, and the adjoint of each float parameter (a tuple in declared order when there are several) for the cotangent `d_out` of the result.*/
#[allow(
    dead_code,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity,
    unreachable_code
)]
#[inline]
fn straight_line_vjp(x: f64, y: f64, d_out: f64) -> (f64, (f64, f64)) {
    straight_line::vjp::<f64>(x, y, d_out)
}
/// Jacobian of [`straight_line`] by reverse mode, generated by `#[reverse]`: the value, and one row per float of the result (one `straight_line_vjp` each), one column per float of the differentiable parameters in declared order.
#[inline]
#[allow(
    dead_code,
    unused_mut,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity
)]
fn straight_line_jacrev(x: f64, y: f64) -> (f64, ::std::vec::Vec<::std::vec::Vec<f64>>) {
    let __ad_value = straight_line(x, y);
    ::ad_runtime::__private::jacobian::reverse_jacobian::<
        f64,
        _,
        _,
    >(__ad_value, |__ad_cotangent| { straight_line_vjp(x, y, __ad_cotangent).1 })
}
#[allow(dead_code)]
impl straight_line {
    #[doc(hidden)]
    #[inline]
    #[allow(
        dead_code,
        unused_variables,
        clippy::too_many_arguments,
        clippy::type_complexity,
        unreachable_code
    )]
    fn grad<__S: ::ad_runtime::Scalar<Base = f64>>(x: __S, y: __S) -> (__S, (__S, __S))
    where
        for<'__ad> &'__ad __S: ::ad_runtime::ScalarRef<__S>,
    {
        straight_line::vjp(x, y, <__S as ::ad_runtime::Scalar>::one())
    }
}
/// Gradient of [`straight_line`], generated by `#[reverse]`: `straight_line_grad(x, y)` is `straight_line_vjp(x, y, 1)`.
#[allow(
    dead_code,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity,
    unreachable_code
)]
#[inline]
fn straight_line_grad(x: f64, y: f64) -> (f64, (f64, f64)) {
    straight_line::grad::<f64>(x, y)
}
/// Hessian of [`straight_line`], generated by `#[reverse]`: the value, the gradient and the Hessian (a row and a column per float of the differentiable parameters in declared order), by the vector forward mode over the gradient.
#[inline]
#[allow(
    dead_code,
    unused_mut,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity
)]
fn straight_line_hessian(
    x: f64,
    y: f64,
) -> (f64, ::std::vec::Vec<f64>, ::std::vec::Vec<::std::vec::Vec<f64>>) {
    {
        const __AD_CHUNK: usize = ::ad_runtime::__private::jacobian::CHUNK;
        let __ad_inputs = 0
            + ::ad_runtime::__private::jacobian::Directions::<f64>::count(&x)
            + ::ad_runtime::__private::jacobian::Directions::<f64>::count(&y);
        let mut __ad_seeded_x = ::ad_runtime::__private::jacobian::Directions::<
            f64,
        >::constant::<__AD_CHUNK>(&x);
        let mut __ad_seeded_y = ::ad_runtime::__private::jacobian::Directions::<
            f64,
        >::constant::<__AD_CHUNK>(&y);
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
                >(&y, &mut __ad_seeded_y, __ad_start, &mut __ad_offset);
                let _ = __ad_offset;
                straight_line::grad::<
                    ::ad_runtime::DualVec<f64, __AD_CHUNK>,
                >(
                    ::core::clone::Clone::clone(&__ad_seeded_x),
                    ::core::clone::Clone::clone(&__ad_seeded_y),
                )
            },
        )
    }
}
/// Hessian-vector product of [`straight_line`], generated by `#[reverse]`: the value, and the Hessian times the direction (dx, dy) shaped as the gradient, by forward mode over the gradient (one pass).
#[inline]
#[allow(
    dead_code,
    unused_mut,
    unused_variables,
    clippy::too_many_arguments,
    clippy::type_complexity
)]
fn straight_line_hvp(x: f64, y: f64, dx: f64, dy: f64) -> (f64, (f64, f64)) {
    let __ad_seeded_x = ::ad_runtime::__private::Seed::seed(x, dx);
    let __ad_seeded_y = ::ad_runtime::__private::Seed::seed(y, dy);
    let (__ad_value, __ad_adjoints) = straight_line::grad::<
        ::ad_runtime::Dual<f64>,
    >(__ad_seeded_x, __ad_seeded_y);
    (__ad_value.value, ::ad_runtime::__private::DualParts::split(__ad_adjoints).1)
}
#[allow(dead_code)]
impl straight_line {
    #[doc(hidden)]
    pub const __AD_ENGINE: &'static str = "ir";
}
