//! Functions with `const` generic parameters and lifetimes, as fixed-size numerical code writes
//! them (`fn norm<const N: usize>(x: &[f64; N]) -> f64`, an RK4 step over `[f64; N]`, a
//! float-generic function with a length beside `T`, `fn dot<'a>(x: &'a [f64], ..)`), in both
//! modes: rustc infers `N` at every call, generated functions included. Each is checked at
//! random points against central differences, reverse against forward, and by the dot-product
//! identity.
#![allow(clippy::needless_range_loop)] // written as numerical code writes it

mod common;

use ad_runtime::{checkpoint, forward, reverse};
use approx::assert_relative_eq;
use common::{central_difference, check_gradient, random_vector, Rng};
use num_traits::{Float, FromPrimitive};

#[forward]
#[reverse]
fn norm<const N: usize>(x: &[f64; N]) -> f64 {
    let mut s = 0.0;
    for i in 0..N {
        s += x[i] * x[i];
    }
    s.sqrt()
}

/// A right-hand side over a fixed-size state: a chain of coupled oscillators.
#[forward]
#[reverse]
fn rhs<const N: usize>(y: &[f64; N], k: f64) -> [f64; N] {
    let mut dy = [0.0; N];
    for i in 0..N {
        let left = if i > 0 { y[i - 1] } else { 0.0 };
        let right = if i + 1 < N { y[i + 1] } else { 0.0 };
        dy[i] = k * (left + right - 2.0 * y[i]) - 0.1 * y[i].powi(3);
    }
    dy
}

#[forward]
#[reverse]
fn rk4_step<const N: usize>(y: [f64; N], h: f64, k: f64) -> [f64; N] {
    let k1 = rhs(&y, k);
    let mut y2 = y;
    for i in 0..N {
        y2[i] += 0.5 * h * k1[i];
    }
    let k2 = rhs(&y2, k);
    let mut y3 = y;
    for i in 0..N {
        y3[i] += 0.5 * h * k2[i];
    }
    let k3 = rhs(&y3, k);
    let mut y4 = y;
    for i in 0..N {
        y4[i] += h * k3[i];
    }
    let k4 = rhs(&y4, k);
    let mut next = y;
    for i in 0..N {
        next[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    }
    next
}

/// A caller over a concrete length: `N` is inferred at each call inside the body.
#[forward]
#[reverse]
fn energy_after_steps(y: &[f64], k: f64) -> f64 {
    let mut state = [y[0], y[1], y[2], y[3]];
    for _ in 0..5 {
        state = rk4_step(state, 0.1, k);
    }
    norm(&state) + k * norm(&[y[0], y[3]])
}

/// A length beside the float type parameter.
#[forward]
#[reverse]
fn horner<T: Float + FromPrimitive, const N: usize>(coefficients: &[T; N], x: T) -> T {
    let mut value = T::zero();
    for c in coefficients.iter().rev() {
        value = value * x + *c;
    }
    value * T::from_f64(0.5).unwrap()
}

#[forward]
#[reverse]
fn weighted<'a>(x: &'a [f64], w: &'a [f64]) -> f64 {
    x.iter().zip(w).map(|(a, b)| a * b * a.sin()).sum()
}

#[checkpoint]
fn stage<const N: usize>(x: [f64; N]) -> f64 {
    x.iter().map(|v| v.sin() * v).sum()
}

#[forward]
#[reverse]
fn staged(x: &[f64]) -> f64 {
    let pair = [x[0], x[1]];
    let triple = [x[0] * x[2], x[1], x[2].exp()];
    stage(pair) * x[2] + stage(triple)
}

/// In and out through `&mut`, with the length inferred from the array.
#[forward]
#[reverse]
fn relax<const N: usize>(y: &mut [f64; N], rate: f64) {
    for i in 0..N {
        y[i] -= rate * y[i].tanh();
    }
}

fn array<const N: usize>(x: &[f64]) -> [f64; N] {
    x.try_into().unwrap()
}

#[test]
fn a_function_of_a_fixed_size_array() {
    check_gradient(
        5,
        |x| norm::<5>(&array(x)),
        |x, t| norm_jvp::<5>(&array(x), &array(t)),
        |x, c| {
            let (value, adjoint) = norm_vjp::<5>(&array(x), c);
            (value, adjoint.to_vec())
        },
    );
}

#[test]
fn a_caller_of_const_generic_functions_with_array_results() {
    check_gradient(
        5,
        |x| energy_after_steps(&x[..4], x[4]),
        |x, t| energy_after_steps_jvp(&x[..4], x[4], &t[..4], t[4]),
        |x, c| {
            let (value, (dy, dk)) = energy_after_steps_vjp(&x[..4], x[4], c);
            let mut adjoint = dy;
            adjoint.push(dk);
            (value, adjoint)
        },
    );
}

#[test]
fn an_array_result_of_length_n_by_the_dot_product_identity() {
    let mut rng = Rng::new(11);
    for _ in 0..5 {
        let y: [f64; 3] = array(&random_vector(&mut rng, 3));
        let (h, k) = (0.2, rng.uniform(0.5, 1.5));
        let t: [f64; 3] = array(&random_vector(&mut rng, 3));
        let tk = rng.uniform(-1.0, 1.0);
        let c: [f64; 3] = array(&random_vector(&mut rng, 3));
        let (value, along) = rk4_step_jvp(y, h, k, t, 0.0, tk);
        let (reverse_value, (dy, dh, dk)) = rk4_step_vjp(y, h, k, c);
        assert_eq!(value, rk4_step(y, h, k));
        assert_eq!(reverse_value, value);
        let forward: f64 = along.iter().zip(&c).map(|(a, b)| a * b).sum();
        let transposed: f64 = dy.iter().zip(&t).map(|(a, b)| a * b).sum::<f64>() + dk * tk;
        assert_relative_eq!(forward, transposed, epsilon = 1e-12, max_relative = 1e-12);
        for i in 0..3 {
            let moved = |s: f64| rk4_step(y, h + s, k)[i];
            let mut by_h = [0.0; 3];
            by_h[i] = 1.0;
            let (_, (_, dh_i, _)) = rk4_step_vjp(y, h, k, by_h);
            assert_relative_eq!(
                dh_i,
                central_difference(moved, 0.0, 1e-5),
                epsilon = 1e-8,
                max_relative = 1e-6
            );
        }
        let _ = dh;
    }
}

#[test]
fn a_length_beside_the_float_type_parameter() {
    check_gradient(
        4,
        |x| horner(&array::<3>(&x[..3]), x[3]),
        |x, t| {
            let (value, tangent) = horner_jvp(&array::<3>(&x[..3]), x[3], &array(&t[..3]), t[3]);
            (value, tangent)
        },
        |x, c| {
            let (value, (dc, dx)) = horner_vjp(&array::<3>(&x[..3]), x[3], c);
            let mut adjoint = dc.to_vec();
            adjoint.push(dx);
            (value, adjoint)
        },
    );
}

#[test]
fn lifetimes_of_the_parameters() {
    check_gradient(
        6,
        |x| weighted(&x[..3], &x[3..]),
        |x, t| weighted_jvp(&x[..3], &x[3..], &t[..3], &t[3..]),
        |x, c| {
            let (value, (dx, dw)) = weighted_vjp(&x[..3], &x[3..], c);
            (value, [dx, dw].concat())
        },
    );
}

#[test]
fn a_checkpointed_const_generic_function_called_at_two_lengths() {
    check_gradient(3, staged, staged_jvp, staged_vjp);
}

#[test]
fn an_array_of_length_n_in_and_out() {
    let mut rng = Rng::new(5);
    for _ in 0..5 {
        let y: [f64; 4] = array(&random_vector(&mut rng, 4));
        let rate = rng.uniform(0.1, 0.5);
        let t: [f64; 4] = array(&random_vector(&mut rng, 4));
        let c: [f64; 4] = array(&random_vector(&mut rng, 4));
        let (mut forward, mut tangent) = (y, t);
        relax_jvp(&mut forward, rate, &mut tangent, 0.0);
        let mut plain = y;
        relax(&mut plain, rate);
        assert_eq!(forward, plain);
        let mut reverse = y;
        let mut adjoint = c;
        let d_rate = relax_vjp(&mut reverse, rate, &mut adjoint);
        assert_eq!(reverse, plain);
        let forward_dot: f64 = tangent.iter().zip(&c).map(|(a, b)| a * b).sum();
        let reverse_dot: f64 = adjoint.iter().zip(&t).map(|(a, b)| a * b).sum();
        assert_relative_eq!(
            forward_dot,
            reverse_dot,
            epsilon = 1e-12,
            max_relative = 1e-12
        );
        let moved = |s: f64| {
            let mut moved = y;
            for (m, d) in moved.iter_mut().zip(&t) {
                *m += s * d;
            }
            relax(&mut moved, rate);
            moved.iter().zip(&c).map(|(a, b)| a * b).sum::<f64>()
        };
        assert_relative_eq!(
            forward_dot,
            central_difference(moved, 0.0, 1e-5),
            epsilon = 1e-8,
            max_relative = 1e-6
        );
        let _ = d_rate;
    }
}

#[test]
fn the_hessian_of_a_const_generic_function() {
    let x = [0.3, -1.2, 0.8];
    let (value, gradient, hessian) = norm_hessian(&x);
    assert_eq!(value, norm(&x));
    assert_eq!(gradient, norm_grad(&x).1.to_vec());
    for i in 0..3 {
        for j in 0..3 {
            let moved = |s: f64| {
                let mut y = x;
                y[j] += s;
                norm_grad(&y).1[i]
            };
            assert_relative_eq!(
                hessian[i][j],
                central_difference(moved, 0.0, 1e-5),
                epsilon = 1e-8,
                max_relative = 1e-6
            );
            assert_relative_eq!(hessian[i][j], hessian[j][i], epsilon = 1e-14);
        }
    }
}

/// A type with a length parameter, holding data: its methods' `self` is data, `N` in scope.
struct Springs<const N: usize> {
    stiffness: [f64; N],
}

impl<const N: usize> Springs<N> {
    #[forward]
    #[reverse]
    fn energy(&self, x: &[f64; N]) -> f64 {
        let mut e = 0.0;
        for i in 0..N {
            e += 0.5 * self.stiffness[i] * x[i] * x[i] * x[i].cos();
        }
        e
    }
}

/// A method of the same name in another block, told apart by its text; the attribute on the
/// block.
struct Chain<const N: usize> {
    rest: f64,
}

#[forward]
#[reverse]
impl<const N: usize> Chain<N> {
    fn energy(&self, x: &[f64; N]) -> f64 {
        let mut e = 0.0;
        for i in 1..N {
            e += (x[i] - x[i - 1] - self.rest).powi(2);
        }
        e
    }
}

/// A borrowed field of data, iterated beside floats carrying derivatives.
struct Weights<'a> {
    w: &'a [f64],
}

#[forward]
#[reverse]
impl<'a> Weights<'a> {
    fn loss(&self, x: &[f64]) -> f64 {
        self.w.iter().zip(x).map(|(w, x)| w * x * x.exp()).sum()
    }
}

#[test]
fn methods_of_types_with_a_length_parameter_or_a_lifetime() {
    let springs = Springs {
        stiffness: [1.0, 2.0, 0.5, 3.0],
    };
    check_gradient(
        4,
        |x| springs.energy(&array(x)),
        |x, t| springs.energy_jvp(&array(x), &array(t)),
        |x, c| {
            let (value, adjoint) = springs.energy_vjp(&array(x), c);
            (value, adjoint.to_vec())
        },
    );
    let chain = Chain::<4> { rest: 0.3 };
    check_gradient(
        4,
        |x| chain.energy(&array(x)),
        |x, t| chain.energy_jvp(&array(x), &array(t)),
        |x, c| {
            let (value, adjoint) = chain.energy_vjp(&array(x), c);
            (value, adjoint.to_vec())
        },
    );
    let w = [0.5, -1.0, 2.0];
    let weights = Weights { w: &w };
    check_gradient(
        3,
        |x| weights.loss(x),
        |x, t| weights.loss_jvp(x, t),
        |x, c| weights.loss_vjp(x, c),
    );
}
