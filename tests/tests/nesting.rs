//! Generated functions have versions generic over the scalar type (`f::jvp`, `f::grad`), so
//! derivative code calls derivative code: second derivatives by nesting, with no perturbation confusion (seed `004`, 4.5).

use ad_runtime::{forward, Dual};
use approx::assert_relative_eq;

#[forward]
fn plus(x: f64, y: f64) -> f64 {
    x + y
}

/// x * d/dy (x + y), evaluated at y = 1.
#[forward]
fn times_inner_derivative(x: f64) -> f64 {
    x * plus_jvp(x, 1.0, 0.0, 1.0).1
}

#[test]
fn no_perturbation_confusion() {
    // d/dx (x * d/dy (x + y)) at x = 1 is 1; confusing the two perturbations gives 2.
    let (value, derivative) = times_inner_derivative_jvp(1.0, 1.0);
    assert_eq!(value, 1.0);
    assert_eq!(derivative, 1.0);
}

#[forward]
fn f(x: f64) -> f64 {
    x.sin() * x.exp()
}

#[forward]
fn f_prime(x: f64) -> f64 {
    f_jvp(x, 1.0).1
}

#[forward]
fn f_second(x: f64) -> f64 {
    f_prime_jvp(x, 1.0).1
}

#[test]
fn second_and_third_derivatives_by_nesting() {
    for x in [-1.0_f64, 0.0, 0.5, 2.0] {
        let (s, c, e) = (x.sin(), x.cos(), x.exp());
        assert_relative_eq!(f_prime(x), (s + c) * e, max_relative = 1e-14);
        assert_relative_eq!(f_prime_jvp(x, 1.0).1, 2.0 * c * e, max_relative = 1e-14);
        assert_relative_eq!(
            f_second_jvp(x, 1.0).1,
            2.0 * (c - s) * e,
            max_relative = 1e-14
        );
    }
}

#[forward]
fn rosenbrock(x: f64, y: f64) -> f64 {
    (1.0 - x).powi(2) + 100.0 * (y - x * x).powi(2)
}

/// The directional derivative along (vx, vy), as a function of the point: its JVP along
/// (wx, wy) is the Hessian bilinear form w^T H v.
#[forward]
fn rosenbrock_along(x: f64, y: f64, #[no_grad] vx: f64, #[no_grad] vy: f64) -> f64 {
    rosenbrock_jvp(x, y, vx, vy).1
}

#[test]
fn hessian_entries_of_rosenbrock() {
    let (x, y) = (0.7, -0.4);
    let hessian = [
        [2.0 - 400.0 * (y - 3.0 * x * x), -400.0 * x],
        [-400.0 * x, 200.0],
    ];
    let basis = [(1.0, 0.0), (0.0, 1.0)];
    for (i, &(vx, vy)) in basis.iter().enumerate() {
        for (j, &(wx, wy)) in basis.iter().enumerate() {
            let (_, entry) = rosenbrock_along_jvp(x, y, vx, vy, wx, wy);
            assert_relative_eq!(entry, hessian[i][j], max_relative = 1e-13);
        }
    }
}

#[test]
fn jvp_accepts_dual_numbers_directly() {
    // Calling f_jvp with duals differentiates the derivative: d/dx f'(x) = f''(x).
    let x = 0.3_f64;
    let (_, tangent) = f::jvp(Dual::new(x, 1.0), Dual::new(1.0, 0.0));
    assert_relative_eq!(
        tangent.tangent,
        2.0 * x.cos() * x.exp(),
        max_relative = 1e-14
    );
}

#[forward]
fn cube(x: f64) -> f64 {
    x * x * x
}

#[test]
fn three_levels_of_duals() {
    // Dual<Dual<Dual<f64>>>: the third derivative of x^3 is 6.
    type D3 = Dual<Dual<Dual<f64>>>;
    let x: D3 = Dual::new(
        Dual::new(Dual::new(2.0, 1.0), Dual::new(1.0, 0.0)),
        Dual::new(Dual::new(1.0, 0.0), Dual::new(0.0, 0.0)),
    );
    let (value, tangent) = cube::jvp(x.value, x.tangent);
    assert_eq!(value.value.value, 8.0);
    assert_eq!(tangent.value.value, 12.0);
    assert_eq!(tangent.tangent.value, 12.0);
    assert_eq!(tangent.tangent.tangent, 6.0);
}

#[ad_runtime::reverse]
fn rosenbrock_rev(x: f64, y: f64) -> f64 {
    (1.0 - x).powi(2) + 100.0 * (y - x * x).powi(2)
}

/// The gradient's x component, by reverse mode, as a function forward mode can differentiate.
#[forward]
fn rosenbrock_gradient_x(x: f64, y: f64) -> f64 {
    rosenbrock_rev_grad(x, y).1 .0
}

/// The gradient's y component.
#[forward]
fn rosenbrock_gradient_y(x: f64, y: f64) -> f64 {
    rosenbrock_rev_grad(x, y).1 .1
}

#[test]
fn forward_over_reverse_gives_hessian_vector_products() {
    let (x, y) = (0.7, -0.4);
    let hessian = [
        [2.0 - 400.0 * (y - 3.0 * x * x), -400.0 * x],
        [-400.0 * x, 200.0],
    ];
    let v = (0.3, -1.1);
    // H v, one component per forward pass over the reverse-mode gradient.
    let (_, hv_x) = rosenbrock_gradient_x_jvp(x, y, v.0, v.1);
    let (_, hv_y) = rosenbrock_gradient_y_jvp(x, y, v.0, v.1);
    assert_relative_eq!(
        hv_x,
        hessian[0][0] * v.0 + hessian[0][1] * v.1,
        max_relative = 1e-13
    );
    assert_relative_eq!(
        hv_y,
        hessian[1][0] * v.0 + hessian[1][1] * v.1,
        max_relative = 1e-13
    );
}

#[test]
fn reverse_mode_accepts_dual_numbers_directly() {
    // The gradient evaluated at a dual point carries the Hessian-vector product.
    let (x, y) = (Dual::new(0.7, 1.0), Dual::new(-0.4, 0.0));
    let (_, (gx, gy)) = rosenbrock_rev::grad(x, y);
    assert_relative_eq!(
        gx.tangent,
        2.0 - 400.0 * (-0.4 - 3.0 * 0.49),
        max_relative = 1e-13
    );
    assert_relative_eq!(gy.tangent, -400.0 * 0.7, max_relative = 1e-13);
}
