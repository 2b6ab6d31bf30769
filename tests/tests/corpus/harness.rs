//! The checks every corpus case goes through: a case is seen as a map from a flat vector of
//! floats to a flat vector of floats, with adapters around its generated functions.

use crate::common::{central_difference, random_vector, Rng};
use approx::assert_relative_eq;

type Flat = Box<dyn Fn(&[f64]) -> Vec<f64>>;
type Pushed = Box<dyn Fn(&[f64], &[f64]) -> (Vec<f64>, Vec<f64>)>;
type Gradient = Box<dyn Fn(&[f64]) -> (f64, Vec<f64>)>;
type Point = Box<dyn Fn(&mut Rng) -> Vec<f64>>;

/// One case: the plain function and whichever generated functions it has, flattened.
pub struct Case {
    name: &'static str,
    n: usize,
    point: Point,
    plain: Flat,
    jvp: Option<Pushed>,
    vjp: Option<Pushed>,
    grad: Option<Gradient>,
    step: f64,
    tolerance: f64,
}

/// A scalar as a one-element vector.
pub fn one(value: f64) -> Vec<f64> {
    vec![value]
}

/// `f32`s widened.
pub fn wide(values: &[f32]) -> Vec<f64> {
    values.iter().map(|&v| f64::from(v)).collect()
}

/// `f64`s narrowed.
pub fn narrow(values: &[f64]) -> Vec<f32> {
    values.iter().map(|&v| v as f32).collect()
}

impl Case {
    /// A case of `n` input floats, each uniform in `[-1.5, 1.5)` unless `within` says otherwise.
    pub fn new(name: &'static str, n: usize, plain: impl Fn(&[f64]) -> Vec<f64> + 'static) -> Self {
        Case {
            name,
            n,
            point: Box::new(move |rng| random_vector(rng, n)),
            plain: Box::new(plain),
            jvp: None,
            vjp: None,
            grad: None,
            step: 1e-4,
            tolerance: 1e-6,
        }
    }

    /// Each input in its own interval (one interval: all inputs in it).
    pub fn within(mut self, bounds: &[(f64, f64)]) -> Self {
        let bounds = bounds.to_vec();
        let n = self.n;
        self.point = Box::new(move |rng| {
            (0..n)
                .map(|i| {
                    let (lo, hi) = bounds[i.min(bounds.len() - 1)];
                    rng.uniform(lo, hi)
                })
                .collect()
        });
        self
    }

    /// Points drawn by the case itself.
    pub fn points(mut self, point: impl Fn(&mut Rng) -> Vec<f64> + 'static) -> Self {
        self.point = Box::new(point);
        self
    }

    /// The `_jvp`, flattened: `(x, t) -> (value, J t)`.
    pub fn forward(
        mut self,
        jvp: impl Fn(&[f64], &[f64]) -> (Vec<f64>, Vec<f64>) + 'static,
    ) -> Self {
        self.jvp = Some(Box::new(jvp));
        self
    }

    /// The `_vjp`, flattened: `(x, w) -> (value, J^T w)`.
    pub fn reverse(
        mut self,
        vjp: impl Fn(&[f64], &[f64]) -> (Vec<f64>, Vec<f64>) + 'static,
    ) -> Self {
        self.vjp = Some(Box::new(vjp));
        self
    }

    /// The `_grad` of a case with a scalar result, flattened.
    pub fn grad(mut self, grad: impl Fn(&[f64]) -> (f64, Vec<f64>) + 'static) -> Self {
        self.grad = Some(Box::new(grad));
        self
    }

    /// A function over `f32`: a larger step and a looser tolerance for central differences.
    pub fn single_precision(mut self) -> Self {
        self.step = 1e-2;
        self.tolerance = 2e-3;
        self
    }

    /// Four random points, two random directions each: forward against central differences,
    /// reverse against central differences, `_grad` against `_vjp` with cotangent 1, and
    /// `<J t, w> = <t, J^T w>` between the modes.
    pub fn check(self, seed: u64) {
        let name = self.name;
        let mut rng = Rng::new(seed);
        let close = |a: f64, b: f64, tolerance: f64, what: &str| {
            assert!(
                (a - b).abs() <= tolerance * (1.0 + a.abs().max(b.abs())),
                "{name}: {what}: {a} against {b}"
            );
        };
        for _ in 0..4 {
            let x = (self.point)(&mut rng);
            assert_eq!(x.len(), self.n, "{name}: point size");
            let value = (self.plain)(&x);
            let m = value.len();
            for _ in 0..2 {
                let t = random_vector(&mut rng, self.n);
                let w = random_vector(&mut rng, m);
                let differences: Vec<f64> = (0..m)
                    .map(|i| {
                        let along = |h: f64| {
                            let moved: Vec<f64> =
                                x.iter().zip(&t).map(|(a, b)| a + h * b).collect();
                            (self.plain)(&moved)[i]
                        };
                        central_difference(along, 0.0, self.step)
                    })
                    .collect();
                let mut tangent = None;
                if let Some(jvp) = &self.jvp {
                    let (v, jt) = jvp(&x, &t);
                    assert_eq!(jt.len(), m, "{name}: tangent size");
                    for i in 0..m {
                        close(v[i], value[i], 1e-12, "forward value");
                        close(
                            jt[i],
                            differences[i],
                            self.tolerance,
                            "forward vs differences",
                        );
                    }
                    tangent = Some(jt);
                }
                if let Some(vjp) = &self.vjp {
                    let (v, adjoint) = vjp(&x, &w);
                    assert_eq!(adjoint.len(), self.n, "{name}: adjoint size");
                    for i in 0..m {
                        close(v[i], value[i], 1e-12, "reverse value");
                    }
                    let transposed: f64 = t.iter().zip(&adjoint).map(|(a, b)| a * b).sum();
                    let along: f64 = w.iter().zip(&differences).map(|(a, b)| a * b).sum();
                    close(transposed, along, self.tolerance, "reverse vs differences");
                    if let Some(jt) = &tangent {
                        let forward: f64 = w.iter().zip(jt).map(|(a, b)| a * b).sum();
                        let tight = if self.tolerance > 1e-6 { 1e-5 } else { 1e-10 };
                        close(transposed, forward, tight, "dot-product identity");
                    }
                }
            }
            if let (Some(grad), Some(vjp)) = (&self.grad, &self.vjp) {
                let (v, gradient) = grad(&x);
                let (_, adjoint) = vjp(&x, &[1.0]);
                close(v, value[0], 1e-12, "grad value");
                for (g, a) in gradient.iter().zip(&adjoint) {
                    assert_relative_eq!(*g, *a, epsilon = 1e-12, max_relative = 1e-12);
                }
            }
        }
    }
}
