//! Generated code raises no warning in a crate that denies them: parameters named with a
//! leading underscore (argmin's `zero(_param: &[T])`) give snake-case generated names.
#![deny(warnings)]

use ad_runtime::num_traits::Float;
use ad_runtime::{forward, reverse};

#[forward]
#[reverse]
pub fn zero<T: Float>(_param: &[T]) -> T {
    T::zero()
}

#[forward]
#[reverse]
pub fn first_only(x: f64, _unused: f64, __twice: &[f64]) -> f64 {
    x * x
}

#[test]
fn unused_parameters_have_zero_derivatives() {
    let x = [0.5, -1.5];
    let (value, gradient) = zero_grad(&x[..]);
    assert_eq!(value, 0.0);
    assert_eq!(gradient, vec![0.0, 0.0]);
    let (value, tangent) = zero_jvp(&x[..], &[1.0, 1.0][..]);
    assert_eq!((value, tangent), (0.0, 0.0));

    let (value, (dx, d_unused, d_twice)) = first_only_grad(1.5, 2.0, &x);
    assert_eq!(value, 2.25);
    approx::assert_relative_eq!(dx, 3.0);
    assert_eq!(d_unused, 0.0);
    assert_eq!(d_twice, vec![0.0, 0.0]);
    let (_, tangent) = first_only_jvp(1.5, 2.0, &x, 1.0, 1.0, &[1.0, 1.0]);
    approx::assert_relative_eq!(tangent, 3.0);
}
