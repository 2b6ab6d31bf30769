//! Associated functions without `self` that name `Self`: their generated functions sit beside
//! them in the `impl` (`Solver::residual_grad`), as a method's do.

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;

struct Solver;

impl Solver {
    const SCALE: f64 = 2.0;

    #[forward]
    #[reverse]
    fn square(v: f64) -> f64 {
        v * v * Self::SCALE
    }

    /// Nested: the derivative of `square` by its generated gradient, called by path.
    #[forward]
    fn square_slope(v: f64) -> f64 {
        Self::square_grad(v).1
    }

    #[forward]
    #[reverse]
    fn residual(x: &[f64]) -> f64 {
        Self::square(x[0]) + x[1].sin() * x[0]
    }
}

#[test]
fn associated_functions_naming_self_are_differentiated_in_both_modes() {
    let x = [0.7, -0.4];
    let (value, gradient) = Solver::residual_grad(&x);
    assert_relative_eq!(value, 2.0 * 0.49 + (-0.4_f64).sin() * 0.7);
    assert_relative_eq!(
        gradient[0],
        4.0 * 0.7 + (-0.4_f64).sin(),
        max_relative = 1e-14
    );
    assert_relative_eq!(gradient[1], (-0.4_f64).cos() * 0.7, max_relative = 1e-14);
    for (k, expected) in gradient.iter().enumerate() {
        let mut direction = [0.0; 2];
        direction[k] = 1.0;
        let (_, tangent) = Solver::residual_jvp(&x, &direction);
        assert_relative_eq!(tangent, *expected, max_relative = 1e-14);
    }
    let (_, derivative) = Solver::square_grad(3.0);
    assert_eq!(derivative, 12.0);
    let (slope, second) = Solver::square_slope_jvp(3.0, 1.0);
    assert_eq!((slope, second), (12.0, 4.0));
}

/// Associated functions that do not name `Self` (a loss of two floats in `impl Model`): the
/// file says which block they are in, so their generated functions sit there too, called by the
/// type's path or by `Self::`.
pub struct Model {
    pub w: f64,
}

impl Model {
    #[forward]
    #[reverse]
    pub fn loss(x: f64, y: f64) -> f64 {
        (x - y).powi(2)
    }

    #[forward]
    #[reverse]
    pub fn cost(&self, x: f64) -> f64 {
        Model::loss(self.w * x, 1.0) + Self::loss(x, 2.0)
    }
}

#[test]
fn associated_functions_not_naming_self() {
    let (value, (dx, dy)) = Model::loss_grad(1.5, 0.5);
    assert_eq!(value, 1.0);
    assert_eq!((dx, dy), (2.0, -2.0));
    assert_eq!(Model::loss_jvp(1.5, 0.5, 1.0, 0.0), (1.0, 2.0));
    let model = Model { w: 2.0 };
    for x in [-1.3, 0.75, 2.2] {
        let (value, derivative) = model.cost_grad(x);
        assert_eq!(value, model.cost(x));
        assert_relative_eq!(derivative, model.cost_jvp(x, 1.0).1, max_relative = 1e-14);
        let exact = 2.0 * (model.w * x - 1.0) * model.w + 2.0 * (x - 2.0);
        assert_relative_eq!(derivative, exact, max_relative = 1e-14);
    }
}
