//! argmin's problem traits for differentiated functions (feature `argmin`): [`Problem`] turns
//! a function over a slice of floats and the `_grad` (and `_hessian`) the macros generate for
//! it into a problem that implements argmin's [`CostFunction`], [`Gradient`] and, when given
//! the Hessian, [`Hessian`], so argmin's L-BFGS, BFGS, nonlinear conjugate gradient, trust-region
//! and Newton solvers take it in one line.
//!
//! ```
//! use ad_runtime::argmin::Problem;
//! use ad_runtime::reverse;
//! use argmin::core::{Executor, State};
//! use argmin::solver::linesearch::MoreThuenteLineSearch;
//! use argmin::solver::quasinewton::LBFGS;
//!
//! #[reverse]
//! fn rosenbrock(x: &[f64]) -> f64 {
//!     let mut sum = 0.0;
//!     for i in 0..x.len() - 1 {
//!         sum += (1.0 - x[i]).powi(2) + 100.0 * (x[i + 1] - x[i] * x[i]).powi(2);
//!     }
//!     sum
//! }
//!
//! let problem = Problem::new(rosenbrock, rosenbrock_grad);
//! let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7);
//! let result = Executor::new(problem, solver)
//!     .configure(|state| state.param(vec![-1.2, 1.0, -1.2, 1.0]).max_iters(200))
//!     .run()
//!     .unwrap();
//! let best = result.state().get_best_param().unwrap();
//! assert!(best.iter().all(|x| (x - 1.0).abs() < 1e-6));
//! ```

use core::marker::PhantomData;

use ::argmin::core::{CostFunction, Error, Gradient, Hessian};

/// A parameter vector argmin's solvers work on, and the matrix type of its Hessian: `Vec<f64>`
/// with `Vec<Vec<f64>>` (argmin-math's `vec` feature), and with the feature `nalgebra`,
/// `DVector<f64>` with `DMatrix<f64>` (argmin-math's `nalgebra_latest`, which Newton's method
/// needs for its inverse).
pub trait ParamVector {
    /// The Hessian's type.
    type Matrix;
    /// The floats, in order.
    fn floats(&self) -> &[f64];
    /// The vector of these floats.
    fn from_floats(floats: Vec<f64>) -> Self;
    /// The matrix of these rows.
    fn matrix_from_rows(rows: Vec<Vec<f64>>) -> Self::Matrix;
}

impl ParamVector for Vec<f64> {
    type Matrix = Vec<Vec<f64>>;
    fn floats(&self) -> &[f64] {
        self
    }
    fn from_floats(floats: Vec<f64>) -> Self {
        floats
    }
    fn matrix_from_rows(rows: Vec<Vec<f64>>) -> Self::Matrix {
        rows
    }
}

#[cfg(feature = "nalgebra")]
impl ParamVector for nalgebra::DVector<f64> {
    type Matrix = nalgebra::DMatrix<f64>;
    fn floats(&self) -> &[f64] {
        self.as_slice()
    }
    fn from_floats(floats: Vec<f64>) -> Self {
        nalgebra::DVector::from_vec(floats)
    }
    fn matrix_from_rows(rows: Vec<Vec<f64>>) -> Self::Matrix {
        let columns = rows.first().map_or(0, Vec::len);
        nalgebra::DMatrix::from_fn(rows.len(), columns, |i, j| rows[i][j])
    }
}

/// Marks a [`Problem`] given no Hessian.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoHessian;

/// An objective for argmin: its value `cost(x)`, its gradient `grad(x) -> (value, gradient)`
/// (the `f_grad` of a `#[reverse]` function) and, after [`Problem::with_hessian`], its Hessian
/// `hessian(x) -> (value, gradient, hessian)` (the `f_hessian` of a `#[reverse]` function).
/// Closures fix any other arguments:
/// `Problem::new(|w: &[f64]| loss(w, &data), |w: &[f64]| loss_grad(w, &data))`.
///
/// The parameter vector is a `Vec<f64>`; [`Problem::with_param`] chooses another
/// [`ParamVector`] (`DVector<f64>`).
pub struct Problem<F, G, H = NoHessian, P = Vec<f64>> {
    cost: F,
    gradient: G,
    hessian: H,
    param: PhantomData<fn() -> P>,
}

impl<F, G> Problem<F, G>
where
    F: Fn(&[f64]) -> f64,
    G: Fn(&[f64]) -> (f64, Vec<f64>),
{
    /// The problem of `cost` and its gradient.
    pub fn new(cost: F, gradient: G) -> Self {
        Problem {
            cost,
            gradient,
            hessian: NoHessian,
            param: PhantomData,
        }
    }
}

impl<F, G, H, P> Problem<F, G, H, P> {
    /// The same problem with its Hessian, for Newton's method and the trust-region solvers.
    pub fn with_hessian<K>(self, hessian: K) -> Problem<F, G, K, P>
    where
        K: Fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
    {
        Problem {
            cost: self.cost,
            gradient: self.gradient,
            hessian,
            param: PhantomData,
        }
    }

    /// The same problem over another parameter vector type (`DVector<f64>`).
    pub fn with_param<Q: ParamVector>(self) -> Problem<F, G, H, Q> {
        Problem {
            cost: self.cost,
            gradient: self.gradient,
            hessian: self.hessian,
            param: PhantomData,
        }
    }
}

impl<F, G, H, P> CostFunction for Problem<F, G, H, P>
where
    F: Fn(&[f64]) -> f64,
    P: ParamVector,
{
    type Param = P;
    type Output = f64;
    fn cost(&self, param: &P) -> Result<f64, Error> {
        Ok((self.cost)(param.floats()))
    }
}

impl<F, G, H, P> Gradient for Problem<F, G, H, P>
where
    G: Fn(&[f64]) -> (f64, Vec<f64>),
    P: ParamVector,
{
    type Param = P;
    type Gradient = P;
    fn gradient(&self, param: &P) -> Result<P, Error> {
        Ok(P::from_floats((self.gradient)(param.floats()).1))
    }
}

impl<F, G, H, P> Hessian for Problem<F, G, H, P>
where
    H: Fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
    P: ParamVector,
{
    type Param = P;
    type Hessian = P::Matrix;
    fn hessian(&self, param: &P) -> Result<P::Matrix, Error> {
        Ok(P::matrix_from_rows((self.hessian)(param.floats()).2))
    }
}
