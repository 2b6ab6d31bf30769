//! The same functions written for the peers from crates.io, so that one benchmark run times
//! our generated derivatives and theirs side by side: `num-dual` (dual numbers: forward mode,
//! Hessians by hyper-dual numbers), `ad_trait` (forward `adfn` and reverse `adr` over a
//! global computation graph) and `reverse` (an operation tape).
//!
//! Rosenbrock and GMM are written once, generic over [`Real`], the few operations they use;
//! each peer's number type implements it by calling its own operations. `ad-bench/tests/peers.rs`
//! checks every peer's gradient against ours.

// Index loops keep the generic code next to `adbench::gmm`, which is written the same way.
#![allow(clippy::needless_range_loop)]

use ad_trait::differentiable_function::{
    DerivativeMethodTrait, DifferentiableFunctionTrait, ForwardAD, ReverseAD,
};
use ad_trait::forward_ad::adfn::adfn;
use ad_trait::nalgebra::{self, DVector, SVector};
use ad_trait::reverse_ad::adr::adr;
use ad_trait::AD;
use num_dual::{Dual2DVec64, Dual64, DualDVec64, DualNum, DualSVec64};
use reverse::Gradient;
use std::ops::{Add, Mul, Sub};

use ad_bench::adbench::gmm::Gmm;

/// What the generic Rosenbrock and GMM need of a number: arithmetic between numbers, with
/// constants (`add_c`, `mul_c`: `ad_trait`'s numbers take `f64` operands only through its own
/// wrapper type), `exp`, `ln` and comparison.
pub trait Real:
    Copy + PartialOrd + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self>
{
    /// `self + c`.
    fn add_c(self, c: f64) -> Self;
    /// `self * c`.
    fn mul_c(self, c: f64) -> Self;
    /// `e^self`.
    fn exp(self) -> Self;
    /// The natural logarithm.
    fn ln(self) -> Self;
}

impl Real for f64 {
    fn add_c(self, c: f64) -> f64 {
        self + c
    }
    fn mul_c(self, c: f64) -> f64 {
        self * c
    }
    fn exp(self) -> f64 {
        f64::exp(self)
    }
    fn ln(self) -> f64 {
        f64::ln(self)
    }
}

impl Real for Dual64 {
    fn add_c(self, c: f64) -> Self {
        self + c
    }
    fn mul_c(self, c: f64) -> Self {
        self * c
    }
    fn exp(self) -> Self {
        DualNum::exp(&self)
    }
    fn ln(self) -> Self {
        DualNum::ln(&self)
    }
}

impl<const N: usize> Real for DualSVec64<N> {
    fn add_c(self, c: f64) -> Self {
        self + c
    }
    fn mul_c(self, c: f64) -> Self {
        self * c
    }
    fn exp(self) -> Self {
        DualNum::exp(&self)
    }
    fn ln(self) -> Self {
        DualNum::ln(&self)
    }
}

impl Real for adr {
    fn add_c(self, c: f64) -> Self {
        self + adr::constant(c)
    }
    fn mul_c(self, c: f64) -> Self {
        self * adr::constant(c)
    }
    fn exp(self) -> Self {
        nalgebra::ComplexField::exp(self)
    }
    fn ln(self) -> Self {
        nalgebra::ComplexField::ln(self)
    }
}

impl Real for adfn<1> {
    fn add_c(self, c: f64) -> Self {
        self + adfn::constant(c)
    }
    fn mul_c(self, c: f64) -> Self {
        self * adfn::constant(c)
    }
    fn exp(self) -> Self {
        nalgebra::ComplexField::exp(self)
    }
    fn ln(self) -> Self {
        nalgebra::ComplexField::ln(self)
    }
}

impl Real for reverse::Var<'_> {
    fn add_c(self, c: f64) -> Self {
        self + c
    }
    fn mul_c(self, c: f64) -> Self {
        self * c
    }
    fn exp(self) -> Self {
        reverse::Var::exp(&self)
    }
    fn ln(self) -> Self {
        reverse::Var::ln(&self)
    }
}

/// Rosenbrock for any [`Real`]: the function each peer differentiates.
pub fn rosenbrock_generic<T: Real>(x: &[T]) -> T {
    let term = |i: usize| {
        let a = x[i + 1] - x[i] * x[i];
        let b = x[i].mul_c(-1.0).add_c(1.0);
        (a * a).mul_c(100.0) + b * b
    };
    let mut sum = term(0);
    for i in 1..x.len() - 1 {
        sum = sum + term(i);
    }
    sum
}

/// Rosenbrock for num-dual's numbers, which need not be `Copy` (`DualDVec64` and
/// `Dual2DVec64` hold their derivatives on the heap), in num-dual's documented style.
pub fn rosenbrock_num_dual<D: DualNum<f64>>(x: &[D]) -> D {
    let mut sum = D::from(0.0);
    for i in 0..x.len() - 1 {
        let a = x[i + 1].clone() - x[i].clone() * &x[i];
        let b = -x[i].clone() + 1.0;
        sum += a.clone() * a * 100.0 + b.clone() * b;
    }
    sum
}

/// num-dual's gradient: `num_dual::gradient` over `DualDVec64`, every direction in one pass.
pub fn num_dual_rosenbrock_gradient(x: &[f64]) -> (f64, Vec<f64>) {
    let (value, gradient) = num_dual::gradient(
        |v: DVector<DualDVec64>| rosenbrock_num_dual(v.as_slice()),
        &DVector::from_column_slice(x),
    );
    (value, gradient.as_slice().to_vec())
}

/// num-dual's forward mode one direction at a time (`Dual64`, `n` passes, like our JVPs).
pub fn num_dual_rosenbrock_dual64_gradient(x: &[f64]) -> Vec<f64> {
    let mut duals: Vec<Dual64> = x.iter().map(|&v| Dual64::from_re(v)).collect();
    (0..x.len())
        .map(|j| {
            duals[j].eps = 1.0;
            let along = rosenbrock_num_dual(&duals).eps;
            duals[j].eps = 0.0;
            along
        })
        .collect()
}

/// num-dual's Hessian: `num_dual::hessian` over `Dual2DVec64`, row-major.
pub fn num_dual_rosenbrock_hessian(x: &[f64]) -> Vec<f64> {
    let (_, _, hessian) = num_dual::hessian(
        |v: DVector<Dual2DVec64>| rosenbrock_num_dual(v.as_slice()),
        &DVector::from_column_slice(x),
    );
    let n = x.len();
    let mut row_major = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            row_major[i * n + j] = hessian[(i, j)];
        }
    }
    row_major
}

/// Rosenbrock as an `ad_trait` differentiable function.
#[derive(Clone, Copy, Debug, Default)]
pub struct AdTraitRosenbrock {
    /// The dimension.
    pub n: usize,
}

macro_rules! ad_trait_function {
    ($name:ty, $t:ty, |$self_:ident, $inputs:ident| $body:expr) => {
        impl DifferentiableFunctionTrait<$t> for $name {
            const NAME: &'static str = stringify!($name);
            fn call(&self, $inputs: &[$t], _freeze: bool) -> Vec<$t> {
                let $self_ = self;
                vec![$body]
            }
            fn num_inputs(&self) -> usize {
                self.num_inputs()
            }
            fn num_outputs(&self) -> usize {
                1
            }
        }
    };
}

impl AdTraitRosenbrock {
    fn num_inputs(&self) -> usize {
        self.n
    }
}

ad_trait_function!(AdTraitRosenbrock, adr, |_this, x| rosenbrock_generic(x));
ad_trait_function!(AdTraitRosenbrock, adfn<1>, |_this, x| rosenbrock_generic(x));

/// `ad_trait`'s reverse mode (`ReverseAD`, `adr`).
pub fn ad_trait_reverse_gradient<F: DifferentiableFunctionTrait<adr>>(
    function: &F,
    x: &[f64],
) -> (f64, Vec<f64>) {
    let (value, jacobian) = ReverseAD::new().derivative(x, function);
    (value[0], jacobian.as_slice().to_vec())
}

/// `ad_trait`'s forward mode (`ForwardAD`, `adfn<1>`: one pass per input).
pub fn ad_trait_forward_gradient<F: DifferentiableFunctionTrait<adfn<1>>>(
    function: &F,
    x: &[f64],
) -> (f64, Vec<f64>) {
    let (value, jacobian) = ForwardAD::new().derivative(x, function);
    (value[0], jacobian.as_slice().to_vec())
}

/// `reverse`'s operation tape: a new tape per gradient, as its documentation does.
pub fn reverse_rosenbrock_gradient(x: &[f64]) -> (f64, Vec<f64>) {
    let tape = reverse::Tape::new();
    let vars = tape.add_vars(x);
    let result = rosenbrock_generic(&vars);
    (result.val(), result.grad().wrt(&vars))
}

/// The GMM objective of `adbench::gmm` for any [`Real`] (same operations in the same order).
/// `x` is data.
#[allow(clippy::too_many_arguments)]
pub fn gmm_generic<T: Real>(
    alphas: &[T],
    means: &[T],
    icf: &[T],
    x: &[f64],
    d: usize,
    k: usize,
    n: usize,
    gamma: f64,
    m: usize,
    constant: f64,
) -> T {
    let icf_size = d * (d + 1) / 2;
    let sum_qs: Vec<T> = (0..k)
        .map(|ik| {
            let mut s = icf[ik * icf_size];
            for j in 1..d {
                s = s + icf[ik * icf_size + j];
            }
            s
        })
        .collect();
    let logsumexp = |v: &[T]| {
        let mut largest = v[0];
        for &e in v {
            if e > largest {
                largest = e;
            }
        }
        let mut sum = (v[0] - largest).exp();
        for &e in &v[1..] {
            sum = sum + (e - largest).exp();
        }
        largest + sum.ln()
    };
    let mut main_term = Vec::with_capacity(k);
    let mut slse: Option<T> = None;
    for ix in 0..n {
        main_term.clear();
        for ik in 0..k {
            let centered: Vec<T> = (0..d)
                .map(|j| means[ik * d + j].mul_c(-1.0).add_c(x[ix * d + j]))
                .collect();
            let mut transformed: Vec<T> = (0..d)
                .map(|j| icf[ik * icf_size + j].exp() * centered[j])
                .collect();
            let mut l = ik * icf_size + d;
            for i in 0..d {
                for j in (i + 1)..d {
                    transformed[j] = transformed[j] + icf[l] * centered[i];
                    l += 1;
                }
            }
            let mut sqnorm = transformed[0] * transformed[0];
            for j in 1..d {
                sqnorm = sqnorm + transformed[j] * transformed[j];
            }
            main_term.push(alphas[ik] + sum_qs[ik] + sqnorm.mul_c(-0.5));
        }
        let lse = logsumexp(&main_term);
        slse = Some(slse.map_or(lse, |s| s + lse));
    }
    let lse_alphas = logsumexp(alphas);
    let mut prior: Option<T> = None;
    for ik in 0..k {
        let base = ik * icf_size;
        let q0 = icf[base].exp();
        let mut frobenius = q0 * q0;
        for j in 1..d {
            let q = icf[base + j].exp();
            frobenius = frobenius + q * q;
        }
        for j in d..icf_size {
            frobenius = frobenius + icf[base + j] * icf[base + j];
        }
        let term = frobenius.mul_c(0.5 * gamma * gamma) + sum_qs[ik].mul_c(-(m as f64));
        prior = Some(prior.map_or(term, |p| p + term));
    }
    let slse = slse.expect("at least one point");
    let prior = prior.expect("at least one component");
    (slse + lse_alphas.mul_c(-(n as f64)) + prior).add_c(constant)
}

/// The objective through [`gmm_generic`], with the parameters concatenated (alphas, means,
/// icf) as every peer takes them.
pub fn gmm_objective_generic<T: Real>(gmm: &Gmm, parameters: &[T]) -> T {
    let (na, nm) = (gmm.k, gmm.k * gmm.d);
    gmm_generic(
        &parameters[..na],
        &parameters[na..na + nm],
        &parameters[na + nm..],
        &gmm.x,
        gmm.d,
        gmm.k,
        gmm.n,
        gmm.gamma,
        gmm.m,
        gmm.constant(),
    )
}

/// The GMM parameters concatenated in ADBench's order.
pub fn gmm_parameters(gmm: &Gmm) -> Vec<f64> {
    [
        gmm.alphas.as_slice(),
        gmm.means.as_slice(),
        gmm.icf.as_slice(),
    ]
    .concat()
}

/// The number of GMM parameters num-dual's vector dual numbers carry for `gmm_d2_K5`
/// (5 alphas, 10 means, 15 icf).
pub const GMM_D2_K5_PARAMETERS: usize = 30;

/// num-dual's gradient of the d = 2, K = 5 GMM: `num_dual::gradient` over `DualSVec64<30>`
/// (all 30 directions in one pass, on the stack).
pub fn num_dual_gmm_d2_k5_gradient(gmm: &Gmm) -> (f64, Vec<f64>) {
    let parameters = SVector::<f64, GMM_D2_K5_PARAMETERS>::from_column_slice(&gmm_parameters(gmm));
    let (value, gradient) = num_dual::gradient(
        |v: SVector<DualSVec64<GMM_D2_K5_PARAMETERS>, GMM_D2_K5_PARAMETERS>| {
            gmm_objective_generic(gmm, v.as_slice())
        },
        &parameters,
    );
    (value, gradient.as_slice().to_vec())
}

/// GMM as an `ad_trait` differentiable function.
#[derive(Clone, Debug)]
pub struct AdTraitGmm<'a> {
    /// The instance.
    pub gmm: &'a Gmm,
}

impl AdTraitGmm<'_> {
    fn num_inputs(&self) -> usize {
        gmm_parameters(self.gmm).len()
    }
}

ad_trait_function!(AdTraitGmm<'_>, adr, |this, p| gmm_objective_generic(
    this.gmm, p
));

/// `reverse`'s gradient of the GMM objective.
pub fn reverse_gmm_gradient(gmm: &Gmm) -> (f64, Vec<f64>) {
    let tape = reverse::Tape::new();
    let vars = tape.add_vars(&gmm_parameters(gmm));
    let result = gmm_objective_generic(gmm, &vars);
    (result.val(), result.grad().wrt(&vars))
}

#[cfg(test)]
mod tests {
    //! Every peer's derivative against ours, so that the benchmark never times wrong code.

    use super::*;
    use ad_bench::adbench::data_dir;
    use ad_bench::rosenbrock::{
        our_rosenbrock_forward_gradient, our_rosenbrock_hessian, rosenbrock, rosenbrock_grad,
        rosenbrock_gradient_by_hand,
    };

    /// Relative agreement, ADBench's form with a tighter tolerance.
    fn assert_close(what: &str, ours: &[f64], theirs: &[f64]) {
        assert_eq!(ours.len(), theirs.len(), "{what}: lengths");
        for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
            let difference = ad_bench::adbench::relative_difference(*a, *b);
            assert!(difference <= 1e-10, "{what}[{i}]: ours {a}, theirs {b}");
        }
    }

    fn point(n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| 0.5 + 0.7 * (i as f64 * 0.37).sin())
            .collect()
    }

    #[test]
    fn rosenbrock_peers_agree_with_ours() {
        for n in [10, 100, 1000] {
            let x = point(n);
            let (value, ours) = rosenbrock_grad(&x);
            assert_eq!(value, rosenbrock(&x));
            assert_close("generic primal", &[rosenbrock_generic(&x)], &[value]);
            assert_close("our forward", &our_rosenbrock_forward_gradient(&x), &ours);
            assert_close("by hand", &rosenbrock_gradient_by_hand(&x).1, &ours);
            let (nd_value, nd) = num_dual_rosenbrock_gradient(&x);
            assert_close("num-dual value", &[nd_value], &[value]);
            assert_close("num-dual gradient", &nd, &ours);
            assert_close(
                "num-dual Dual64",
                &num_dual_rosenbrock_dual64_gradient(&x),
                &ours,
            );
            let function = AdTraitRosenbrock { n };
            let (ad_value, ad) = ad_trait_reverse_gradient(&function, &x);
            assert_close("ad_trait value", &[ad_value], &[value]);
            assert_close("ad_trait reverse", &ad, &ours);
            assert_close(
                "ad_trait forward",
                &ad_trait_forward_gradient(&function, &x).1,
                &ours,
            );
            let (tape_value, tape) = reverse_rosenbrock_gradient(&x);
            assert_close("reverse value", &[tape_value], &[value]);
            assert_close("reverse tape", &tape, &ours);
        }
    }

    #[test]
    fn rosenbrock_hessians_agree() {
        for n in [10, 100] {
            let x = point(n);
            let ours = our_rosenbrock_hessian(&x);
            assert_close("num-dual Hessian", &num_dual_rosenbrock_hessian(&x), &ours);
            // The tridiagonal closed form.
            for i in 0..n {
                let mut diagonal = 0.0;
                if i + 1 < n {
                    diagonal += 1200.0 * x[i] * x[i] - 400.0 * x[i + 1] + 2.0;
                }
                if i > 0 {
                    diagonal += 200.0;
                }
                assert_close("Hessian diagonal", &[ours[i * n + i]], &[diagonal]);
                if i + 1 < n {
                    assert_close(
                        "Hessian off-diagonal",
                        &[ours[i * n + i + 1]],
                        &[-400.0 * x[i]],
                    );
                }
            }
        }
    }

    #[test]
    fn gmm_peers_agree_with_ours() {
        let gmm = Gmm::read(&data_dir().join("gmm/1k/gmm_d2_K5.txt")).expect("the GMM input");
        let (value, ours) = gmm.gradient();
        assert_close(
            "generic objective",
            &[gmm_objective_generic(&gmm, &gmm_parameters(&gmm))],
            &[value],
        );
        let (nd_value, nd) = num_dual_gmm_d2_k5_gradient(&gmm);
        assert_close("num-dual objective", &[nd_value], &[value]);
        assert_close("num-dual GMM gradient", &nd, &ours);
        let (ad_value, ad) =
            ad_trait_reverse_gradient(&AdTraitGmm { gmm: &gmm }, &gmm_parameters(&gmm));
        assert_close("ad_trait objective", &[ad_value], &[value]);
        assert_close("ad_trait GMM gradient", &ad, &ours);
        let (tape_value, tape) = reverse_gmm_gradient(&gmm);
        assert_close("reverse objective", &[tape_value], &[value]);
        assert_close("reverse GMM gradient", &tape, &ours);
    }
}
