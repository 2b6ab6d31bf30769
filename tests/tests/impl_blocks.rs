//! `#[forward]` and `#[reverse]` on `impl` blocks: methods of trait implementations, whose
//! generated functions go to an inherent `impl` of the type, and inherent blocks.

mod common;

use ad_runtime::{forward, reverse, Differentiable};
use approx::assert_relative_eq;
use common::{central_difference, Rng};

/// A density in the form of statrs' `Continuous` trait.
pub trait Continuous {
    fn pdf(&self, x: f64) -> f64;
    fn ln_pdf(&self, x: f64) -> f64;
    fn name(&self) -> &'static str;
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Normal {
    pub mean: f64,
    pub std_dev: f64,
}

// No method is marked: every method with a float in its signature is differentiated, in both
// modes; `name` is left alone. `pdf` calls `ln_pdf` on `self`, through its derivative.
#[forward]
#[reverse]
impl Continuous for Normal {
    fn pdf(&self, x: f64) -> f64 {
        self.ln_pdf(x).exp()
    }

    fn ln_pdf(&self, x: f64) -> f64 {
        let z = (x - self.mean) / self.std_dev;
        -0.5 * z * z - self.std_dev.ln() - 0.5 * (2.0 * std::f64::consts::PI).ln()
    }

    fn name(&self) -> &'static str {
        "normal"
    }
}

/// A trait with a method that is not differentiable as written (it draws from a generator).
pub trait Sampled {
    fn log_density(&self, x: f64) -> f64;
    fn draw(&self, rng: &mut Rng) -> f64;
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Exponential {
    pub rate: f64,
}

// Marked methods only: `draw` is not differentiated.
#[forward]
impl Sampled for Exponential {
    #[forward]
    fn log_density(&self, x: f64) -> f64 {
        self.rate.ln() - self.rate * x
    }

    fn draw(&self, rng: &mut Rng) -> f64 {
        -(1.0 - rng.uniform(0.0, 1.0)).ln() / self.rate
    }
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Quadratic {
    pub a: f64,
    pub b: f64,
}

// An inherent block: the generated functions stay in it.
#[forward]
#[reverse]
impl Quadratic {
    pub fn eval(&self, x: f64) -> f64 {
        self.a * x * x + self.b * x
    }

    pub fn coefficients(&self) -> usize {
        2
    }
}

#[test]
fn methods_of_a_trait_impl() {
    let mut rng = Rng::new(5);
    for _ in 0..4 {
        let normal = Normal {
            mean: rng.uniform(-1.0, 1.0),
            std_dev: rng.uniform(0.5, 2.0),
        };
        let x = rng.uniform(-2.0, 2.0);
        assert_eq!(normal.name(), "normal");
        // d/dx, d/dmean and d/dstd_dev by central differences.
        let along_x = central_difference(|x| normal.pdf(x), x, 1e-5);
        let along_mean = central_difference(
            |mean| {
                Normal {
                    mean,
                    ..normal.clone()
                }
                .pdf(x)
            },
            normal.mean,
            1e-5,
        );
        let along_std = central_difference(
            |std_dev| {
                Normal {
                    std_dev,
                    ..normal.clone()
                }
                .pdf(x)
            },
            normal.std_dev,
            1e-5,
        );
        let zero = Normal {
            mean: 0.0,
            std_dev: 0.0,
        };
        let (value, tangent) = normal.pdf_jvp(x, &zero, 1.0);
        assert_relative_eq!(value, normal.pdf(x), max_relative = 1e-15);
        assert_relative_eq!(tangent, along_x, max_relative = 1e-6);
        let (_, tangent) = normal.pdf_jvp(
            x,
            &Normal {
                mean: 0.0,
                std_dev: 1.0,
            },
            0.0,
        );
        assert_relative_eq!(tangent, along_std, max_relative = 1e-6);
        let (value, (d_self, d_x)) = normal.pdf_vjp(x, 1.0);
        assert_relative_eq!(value, normal.pdf(x), max_relative = 1e-15);
        assert_relative_eq!(d_x, along_x, max_relative = 1e-6);
        assert_relative_eq!(d_self.mean, along_mean, max_relative = 1e-6);
        assert_relative_eq!(d_self.std_dev, along_std, max_relative = 1e-6);
        // Called by the type's path too.
        let (_, (d_self, _)) = Normal::ln_pdf_grad(&normal, x);
        let z = (x - normal.mean) / normal.std_dev;
        assert_relative_eq!(d_self.mean, z / normal.std_dev, max_relative = 1e-12);
    }
}

#[test]
fn marked_methods_of_a_trait_impl() {
    let exponential = Exponential { rate: 1.5 };
    let (value, tangent) = exponential.log_density_jvp(0.4, &Exponential { rate: 1.0 }, 0.0);
    assert_relative_eq!(value, 1.5f64.ln() - 0.6, max_relative = 1e-15);
    assert_relative_eq!(tangent, 1.0 / 1.5 - 0.4, max_relative = 1e-15);
    let mut rng = Rng::new(1);
    assert!(exponential.draw(&mut rng) >= 0.0);
}

#[test]
fn an_inherent_impl_block() {
    let q = Quadratic { a: 2.0, b: -1.0 };
    assert_eq!(q.coefficients(), 2);
    let (value, tangent) = q.eval_jvp(3.0, &Quadratic { a: 0.0, b: 0.0 }, 1.0);
    assert_eq!((value, tangent), (15.0, 11.0));
    let (_, (d_q, d_x)) = q.eval_grad(3.0);
    assert_eq!((d_q.a, d_q.b, d_x), (9.0, 3.0, 11.0));
}

pub trait Model {
    fn value(&self, x: f64) -> f64;
    fn slope(&self, x: f64) -> f64;
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Quad {
    pub a: f64,
}

// Both macros on the block, one method marked for reverse mode only: forward mode takes every
// method (none is marked for it), reverse mode `value` alone.
#[forward]
#[reverse]
impl Model for Quad {
    #[reverse]
    fn value(&self, x: f64) -> f64 {
        self.a * x * x
    }

    fn slope(&self, x: f64) -> f64 {
        2.0 * self.a * x
    }
}

#[test]
fn a_method_marked_for_one_of_the_stacked_macros() {
    let q = Quad { a: 3.0 };
    let (value, (d_q, d_x)) = q.value_grad(2.0);
    assert_eq!((value, d_q.a, d_x), (12.0, 4.0, 12.0));
    assert_eq!(q.value_jvp(2.0, &Quad { a: 0.0 }, 1.0), (12.0, 12.0));
    assert_eq!(q.slope_jvp(2.0, &Quad { a: 1.0 }, 0.0), (12.0, 4.0));
    assert_eq!(q.slope(2.0), 12.0);
}
