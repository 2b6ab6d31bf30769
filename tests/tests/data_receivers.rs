//! Methods of types that hold data only (defined without `#[derive(Differentiable)]`): their
//! `self` is data, as a `#[no_grad]` parameter is, and the derivatives are those of the other
//! parameters (an argmin-style cost function `impl Rosenbrock { fn cost(&self, p: &[f64]) }`,
//! a model holding its weights as data, a trait `impl`). Checked against forward mode,
//! central differences and the dot-product identity at random points, and against the
//! gradient by hand.
#![allow(clippy::needless_range_loop)]

mod common;

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;
use common::{check_slice_function_at_random_points, Rng};

/// Rosenbrock's function with its constants held by the type.
struct Rosenbrock {
    a: f64,
    b: f64,
}

impl Rosenbrock {
    #[forward]
    #[reverse]
    fn cost(&self, p: &[f64]) -> f64 {
        let mut total = 0.0;
        for i in 0..p.len() - 1 {
            total += (self.a - p[i]).powi(2) + self.b * (p[i + 1] - p[i] * p[i]).powi(2);
        }
        total
    }

    /// Taking `self` by value, calling a `&self` method on it.
    #[forward]
    #[reverse]
    fn consumed(self, p: &[f64]) -> f64 {
        self.cost(p) * 2.0 + p[0] * self.a
    }

    /// Calls the other differentiated method on the data `self`.
    #[forward]
    #[reverse]
    fn scaled_cost(&self, p: &[f64]) -> f64 {
        self.cost(p) * p[0] + self.cost(&p[1..])
    }
}

/// A linear model whose weights are data, zipped with the input in an iterator chain; one
/// method calls another on the data `self`.
struct Model {
    weights: Vec<f64>,
    bias: f64,
}

#[forward]
#[reverse]
impl Model {
    fn predict(&self, x: &[f64]) -> f64 {
        let z: f64 = self.weights.iter().zip(x).map(|(w, v)| w * v).sum();
        (z + self.bias).tanh()
    }

    fn loss(&self, x: &[f64]) -> f64 {
        let target = self.weights.len() as f64 * 0.1;
        let mut z = self.bias;
        for (w, v) in self.weights.iter().zip(x) {
            z += w * v;
        }
        (z.tanh() - target).powi(2) + self.predict(x) * self.predict(&[x[1], x[0], x[2], x[3]])
    }
}

trait Objective {
    fn value(&self, x: &[f64]) -> f64;
}

/// A quadratic form `x' A x / 2 + c' x`, through a trait.
struct Quadratic {
    matrix: [[f64; 3]; 3],
    linear: [f64; 3],
}

#[forward]
#[reverse]
impl Objective for Quadratic {
    fn value(&self, x: &[f64]) -> f64 {
        let mut total = 0.0;
        for i in 0..3 {
            for j in 0..3 {
                total += 0.5 * x[i] * self.matrix[i][j] * x[j];
            }
            total += self.linear[i] * x[i];
        }
        total
    }
}

const ROSENBROCK: Rosenbrock = Rosenbrock { a: 1.0, b: 100.0 };

fn rosenbrock(p: &[f64]) -> f64 {
    ROSENBROCK.cost(p)
}
fn rosenbrock_jvp(p: &[f64], t: &[f64]) -> (f64, f64) {
    ROSENBROCK.cost_jvp(p, t)
}
fn rosenbrock_vjp(p: &[f64], w: f64) -> (f64, Vec<f64>) {
    ROSENBROCK.cost_vjp(p, w)
}

fn scaled_cost(p: &[f64]) -> f64 {
    ROSENBROCK.scaled_cost(p)
}
fn scaled_cost_jvp(p: &[f64], t: &[f64]) -> (f64, f64) {
    ROSENBROCK.scaled_cost_jvp(p, t)
}
fn scaled_cost_vjp(p: &[f64], w: f64) -> (f64, Vec<f64>) {
    ROSENBROCK.scaled_cost_vjp(p, w)
}

fn consumed(p: &[f64]) -> f64 {
    ROSENBROCK.consumed(p)
}
fn consumed_jvp(p: &[f64], t: &[f64]) -> (f64, f64) {
    ROSENBROCK.consumed_jvp(p, t)
}
fn consumed_vjp(p: &[f64], w: f64) -> (f64, Vec<f64>) {
    ROSENBROCK.consumed_vjp(p, w)
}

fn model() -> Model {
    Model {
        weights: vec![0.3, -0.2, 0.5, 0.1],
        bias: 0.05,
    }
}
fn loss(x: &[f64]) -> f64 {
    model().loss(x)
}
fn loss_jvp(x: &[f64], t: &[f64]) -> (f64, f64) {
    model().loss_jvp(x, t)
}
fn loss_vjp(x: &[f64], w: f64) -> (f64, Vec<f64>) {
    model().loss_vjp(x, w)
}
fn predict(x: &[f64]) -> f64 {
    model().predict(x)
}
fn predict_jvp(x: &[f64], t: &[f64]) -> (f64, f64) {
    model().predict_jvp(x, t)
}
fn predict_vjp(x: &[f64], w: f64) -> (f64, Vec<f64>) {
    model().predict_vjp(x, w)
}

const QUADRATIC: Quadratic = Quadratic {
    matrix: [[2.0, 0.5, 0.0], [0.5, 3.0, -0.4], [0.0, -0.4, 1.5]],
    linear: [0.1, -0.3, 0.7],
};
fn quadratic(x: &[f64]) -> f64 {
    QUADRATIC.value(x)
}
fn quadratic_jvp(x: &[f64], t: &[f64]) -> (f64, f64) {
    QUADRATIC.value_jvp(x, t)
}
fn quadratic_vjp(x: &[f64], w: f64) -> (f64, Vec<f64>) {
    QUADRATIC.value_vjp(x, w)
}

#[test]
fn methods_of_data_types_three_ways() {
    check_slice_function_at_random_points(rosenbrock, rosenbrock_jvp, rosenbrock_vjp, 4, 1);
    check_slice_function_at_random_points(loss, loss_jvp, loss_vjp, 4, 2);
    check_slice_function_at_random_points(scaled_cost, scaled_cost_jvp, scaled_cost_vjp, 4, 6);
    check_slice_function_at_random_points(consumed, consumed_jvp, consumed_vjp, 4, 7);
    check_slice_function_at_random_points(predict, predict_jvp, predict_vjp, 4, 5);
    check_slice_function_at_random_points(quadratic, quadratic_jvp, quadratic_vjp, 3, 3);
}

#[test]
fn gradients_of_data_types_methods_by_hand() {
    let mut rng = Rng::new(4);
    let p: Vec<f64> = (0..2).map(|_| rng.uniform(-1.0, 1.0)).collect();
    let (_, gradient) = ROSENBROCK.cost_grad(&p);
    let (x, y) = (p[0], p[1]);
    assert_relative_eq!(
        gradient[0],
        -2.0 * (1.0 - x) - 400.0 * x * (y - x * x),
        max_relative = 1e-13
    );
    assert_relative_eq!(gradient[1], 200.0 * (y - x * x), max_relative = 1e-13);
    // The quadratic's gradient is A x + c.
    let (_, gradient) = QUADRATIC.value_grad(&p.iter().copied().chain([0.4]).collect::<Vec<_>>());
    let x = [p[0], p[1], 0.4];
    for i in 0..3 {
        let expected: f64 =
            (0..3).map(|j| QUADRATIC.matrix[i][j] * x[j]).sum::<f64>() + QUADRATIC.linear[i];
        assert_relative_eq!(gradient[i], expected, max_relative = 1e-13);
    }
}

/// A data `self` whose field is zipped with floats carrying derivatives, and a `&mut self`
/// method counting its evaluations (a field of data written): `self` is the companion's
/// parameter there too (E0424 in generated code before).
pub struct SquaredError {
    target: Vec<f64>,
    evaluations: usize,
}

impl SquaredError {
    #[forward]
    #[reverse]
    fn cost(&self, prediction: &[f64]) -> f64 {
        prediction
            .iter()
            .zip(&self.target)
            .map(|(p, t)| (p - t) * (p - t))
            .sum::<f64>()
    }

    #[forward]
    #[reverse]
    fn counted(&mut self, prediction: &[f64]) -> f64 {
        self.evaluations += 1;
        let mut total = 0.0;
        for (p, t) in prediction.iter().zip(self.target.iter()) {
            total += (p - t).powi(2) * 0.5;
        }
        total
    }
}

#[test]
fn data_self_fields_zipped_and_written() {
    let mut loss = SquaredError {
        target: vec![0.5, -1.0, 2.0],
        evaluations: 0,
    };
    let x = [0.3, 0.7, -1.1];
    let (value, gradient) = loss.cost_grad(&x);
    assert_eq!(value, loss.cost(&x));
    for k in 0..3 {
        assert_relative_eq!(
            gradient[k],
            2.0 * (x[k] - loss.target[k]),
            max_relative = 1e-14
        );
        let mut direction = [0.0; 3];
        direction[k] = 1.0;
        let (_, along) = loss.cost_jvp(&x, &direction);
        assert_relative_eq!(along, gradient[k], max_relative = 1e-14);
    }
    let (half, gradient) = loss.counted_grad(&x);
    let (same, along_first) = loss.counted_jvp(&x, &[1.0, 0.0, 0.0]);
    assert_eq!(half, same);
    assert_relative_eq!(half, 0.5 * loss.cost(&x), max_relative = 1e-14);
    assert_relative_eq!(along_first, gradient[0], max_relative = 1e-14);
    assert_eq!(loss.evaluations, 2);
}
