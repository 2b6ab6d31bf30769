//! The generated public functions take and return the declared types, so calls with bare
//! literals infer and their results have float methods; their generic versions (`f::grad`)
//! take dual numbers.

use ad_runtime::{forward, reverse, Dual, Scalar};
use approx::assert_relative_eq;

#[forward]
#[reverse]
fn bump(x: f64, y: f64) -> f64 {
    (-(x * x + 2.0 * y * y)).exp()
}

#[test]
fn literals_infer_and_results_have_float_methods() {
    let (value, (gx, gy)) = bump_grad(0.5, -0.25);
    let expected = (-(0.25 + 2.0 * 0.0625_f64)).exp();
    assert!((value - expected).abs() < 1e-15);
    assert!((gx - (-2.0 * 0.5 * expected)).abs() < 1e-15);
    assert!((gy - (-4.0 * -0.25 * expected)).abs() < 1e-15);
    let (value, tangent) = bump_jvp(0.5, -0.25, 1.0, 0.0);
    assert!((value - expected).abs() < 1e-15);
    assert!((tangent - gx).abs() < 1e-15);
    let (_, (vx, vy)) = bump_vjp(0.5, -0.25, 2.0);
    assert!((vx - 2.0 * gx).abs() < 1e-15 && (vy - 2.0 * gy).abs() < 1e-15);
}

#[reverse]
fn weighted(w: &[f64], x: [f64; 2], halvings: u32) -> f64 {
    (w[0] * x[0] + w[1] * x[1]) * 0.5_f64.powi(halvings as i32)
}

#[test]
fn containers_come_back_owned_and_data_keeps_its_type() {
    let (value, (dw, dx)) = weighted_grad(&[1.0, 2.0], [3.0, 4.0], 1);
    assert_eq!(value, 5.5);
    let dw: Vec<f64> = dw;
    let dx: [f64; 2] = dx;
    assert_eq!(dw, vec![1.5, 2.0]);
    assert_eq!(dx, [0.5, 1.0]);
}

#[forward]
#[reverse]
fn single(x: f32) -> f32 {
    x * x.sin()
}

#[test]
fn f32_functions_take_f32() {
    let (value, derivative) = single_grad(0.5);
    let value: f32 = value;
    assert!((value - 0.5 * 0.5_f32.sin()).abs() < 1e-7);
    assert!((derivative - (0.5_f32.sin() + 0.5 * 0.5_f32.cos())).abs() < 1e-6);
    let (_, tangent) = single_jvp(0.5, 2.0);
    assert!((tangent - 2.0 * derivative).abs() < 1e-6);
}

/// The generic version runs over dual numbers: the gradient at a dual point carries a
/// Hessian-vector product, checked against central differences of the gradient.
#[test]
fn generic_versions_take_dual_numbers() {
    let (x, y, vx, vy) = (0.3, -0.6, 0.7, 0.2);
    let (_, (gx, gy)) = bump::grad(Dual::new(x, vx), Dual::new(y, vy));
    let h = 1e-6;
    let (_, (px, py)) = bump_grad(x + h * vx, y + h * vy);
    let (_, (mx, my)) = bump_grad(x - h * vx, y - h * vy);
    assert_relative_eq!(gx.tangent, (px - mx) / (2.0 * h), max_relative = 1e-7);
    assert_relative_eq!(gy.tangent, (py - my) / (2.0 * h), max_relative = 1e-7);
    // Forward over forward: d/dx of the x-derivative, along (1, 0).
    let one = |value: f64, tangent: f64| Dual::new(value, tangent);
    let (_, tangent) = bump::jvp(one(x, 1.0), one(y, 0.0), one(1.0, 0.0), one(0.0, 0.0));
    assert_relative_eq!(tangent.value, gx.value, max_relative = 1e-14);
    let (_, (pxx, _)) = bump_grad(x + h, y);
    let (_, (mxx, _)) = bump_grad(x - h, y);
    assert_relative_eq!(
        tangent.tangent,
        (pxx - mxx) / (2.0 * h),
        max_relative = 1e-7
    );
}

/// A user's own generic code reaches the generic version by its path.
fn newton_step<S: Scalar<Base = f64>>(x: S, y: S) -> (S, S)
where
    for<'a> &'a S: ad_runtime::ScalarRef<S>,
{
    let (value, (gx, gy)) = bump::grad(x, y);
    (x - value * gx, y - value * gy)
}

#[test]
fn user_generic_code_calls_the_generic_version() {
    let (x, y) = newton_step(0.5, -0.25);
    let (value, (gx, gy)) = bump_grad(0.5, -0.25);
    assert_relative_eq!(x, 0.5 - value * gx);
    assert_relative_eq!(y, -0.25 - value * gy);
    let (dual_x, _) = newton_step(Dual::new(0.5, 1.0), Dual::new(-0.25, 0.0));
    assert_relative_eq!(dual_x.value, x);
}

/// Inside an annotated function, `bump_grad` is its generic version: forward over reverse.
#[forward]
fn bump_gradient_x(x: f64, y: f64) -> f64 {
    bump_grad(x, y).1 .0
}

#[test]
fn nested_calls_go_to_the_generic_version() {
    let (x, y) = (0.3, -0.6);
    let (value, tangent) = bump_gradient_x_jvp(x, y, 1.0, 0.0);
    assert_relative_eq!(value, bump_grad(x, y).1 .0);
    let h = 1e-6;
    let fd = (bump_grad(x + h, y).1 .0 - bump_grad(x - h, y).1 .0) / (2.0 * h);
    assert_relative_eq!(tangent, fd, max_relative = 1e-7);
}

#[derive(ad_runtime::Differentiable)]
struct Spring {
    stiffness: f64,
}

impl Spring {
    #[forward]
    #[reverse]
    fn energy(&self, x: f64) -> f64 {
        0.5 * self.stiffness * x * x
    }
}

#[test]
fn methods_take_declared_types_too() {
    let spring = Spring { stiffness: 3.0 };
    let (value, (d_spring, dx)) = spring.energy_grad(2.0);
    assert_eq!((value, d_spring.stiffness, dx), (6.0, 2.0, 6.0));
    let (_, tangent) = spring.energy_jvp(2.0, &Spring { stiffness: 0.0 }, 0.5);
    assert_eq!(tangent, 3.0);
}
