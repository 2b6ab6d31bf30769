//! `#[reverse]` on functions generic over their float type (`fn f<T: Float + FromPrimitive>(x:
//! &[T]) -> T`): reverse mode differentiates the function's instance over `f64` (`T::one()`,
//! `T::from_f64(100.0).unwrap()`, `T::PI()` give the values num-traits gives) and keeps the
//! function as written. Each gradient is checked against forward mode (which runs the function
//! itself at dual numbers), against central differences, and for linearity in the cotangent.

use ad_runtime::{forward, reverse};
use approx::assert_relative_eq;
use num_traits::{Float, FloatConst, FromPrimitive};

#[forward]
#[reverse]
fn rosenbrock<T: Float + FromPrimitive>(x: &[T]) -> T {
    let a = T::one();
    let b = T::from_f64(100.0).unwrap();
    let mut s = T::zero();
    for i in 0..x.len() - 1 {
        s = s + (a - x[i]).powi(2) + b * (x[i + 1] - x[i] * x[i]).powi(2);
    }
    s
}

/// A fold starting at `T::zero()`, `sqrt`.
#[reverse]
#[forward]
fn norm<T: Float>(x: &[T]) -> T {
    x.iter().fold(T::zero(), |s, &v| s + v * v).sqrt()
}

/// Ackley's function as argmin's test functions write it: `FloatConst`, `T::from(n)` of a
/// length, sums of `map`s, `exp`, `cos`.
#[forward]
#[reverse]
fn ackley<T>(param: &[T]) -> T
where
    T: Float + FloatConst + FromPrimitive,
{
    let a = T::from_f64(20.0).unwrap();
    let b = T::from_f64(0.2).unwrap();
    let c = T::from_f64(2.0).unwrap() * T::PI();
    let n = T::from(param.len()).unwrap();
    let squares: T = param.iter().map(|&x| x * x).fold(T::zero(), |s, v| s + v);
    let cosines: T = param
        .iter()
        .map(|&x| (c * x).cos())
        .fold(T::zero(), |s, v| s + v);
    -a * (-b * (squares / n).sqrt()).exp() - (cosines / n).exp() + a + T::E()
}

/// Branches on `T` values, `max`, `abs`, `T::epsilon()`.
#[forward]
#[reverse]
fn huber<T: Float + FromPrimitive>(x: &[T]) -> T {
    let d = T::from_f64(0.7).unwrap();
    let mut total = T::epsilon();
    for &v in x {
        let r = v.abs();
        total = total
            + if r <= d {
                T::from_f64(0.5).unwrap() * r * r
            } else {
                d * (r - T::from_f64(0.5).unwrap() * d)
            };
    }
    total.max(T::zero())
}

/// A parameter of another float type: data, as in forward mode.
#[forward]
#[reverse]
fn scaled_huber<T: Float + FromPrimitive>(x: &[T], delta: f64) -> T {
    let d = T::from_f64(delta).unwrap();
    x.iter().fold(T::zero(), |s, &v| {
        s + if v.abs() < d {
            v * v * T::from_f64(0.5).unwrap()
        } else {
            d * (v.abs() - T::from_f64(0.5 * delta).unwrap())
        }
    })
}

/// Rastrigin as argmin's test functions write it: a `sum` the code leaves to inference, inside
/// an expression (`T`'s: the instance over `f64` writes it).
#[forward]
#[reverse]
fn rastrigin<T: Float + FloatConst + FromPrimitive + std::iter::Sum>(param: &[T]) -> T {
    let a = T::from_f64(10.0).unwrap();
    a * T::from_usize(param.len()).unwrap()
        + param
            .iter()
            .map(|&x| x.powi(2) - a * (T::from_f64(2.0).unwrap() * T::PI() * x).cos())
            .sum()
}

/// A function over `f64` calling generic ones in reverse mode.
#[reverse]
fn combined(x: &[f64]) -> f64 {
    rosenbrock(x) * 0.5 + norm(x) * ackley(x)
}

type Plain = fn(&[f64]) -> f64;
type Jvp = fn(&[f64], &[f64]) -> (f64, f64);
type Vjp = fn(&[f64], f64) -> (f64, Vec<f64>);

fn check(plain: Plain, jvp: Jvp, vjp: Vjp) {
    let points: [&[f64]; 3] = [&[0.3, -1.2, 0.8], &[1.5, 0.25, -0.6], &[-0.7, 2.0, 1.1]];
    let directions: [&[f64]; 3] = [&[1.0, 0.0, -0.5], &[0.3, -0.2, 1.0], &[-1.0, 0.7, 0.4]];
    for x in points {
        let (value, gradient) = vjp(x, 1.0);
        assert_eq!(value.to_bits(), plain(x).to_bits());
        let (_, scaled) = vjp(x, -2.5);
        for (g, s) in gradient.iter().zip(&scaled) {
            assert_relative_eq!(*s, -2.5 * g, epsilon = 1e-12, max_relative = 1e-12);
        }
        for v in directions {
            let (_, along) = jvp(x, v);
            let dot: f64 = gradient.iter().zip(v).map(|(g, d)| g * d).sum();
            assert_relative_eq!(dot, along, epsilon = 1e-10, max_relative = 1e-10);
            let h = 1e-6;
            let at = |sign: f64| -> f64 {
                let shifted: Vec<f64> = x.iter().zip(v).map(|(a, b)| a + sign * h * b).collect();
                plain(&shifted)
            };
            let central = (at(1.0) - at(-1.0)) / (2.0 * h);
            assert_relative_eq!(along, central, epsilon = 1e-5, max_relative = 1e-5);
        }
    }
}

#[test]
fn generic_functions_in_reverse_mode() {
    assert_eq!(rosenbrock::__AD_ENGINE, "ir");
    check(rosenbrock, rosenbrock_jvp, rosenbrock_vjp);
    check(norm, norm_jvp, norm_vjp);
    check(ackley, ackley_jvp, ackley_vjp);
    check(huber, huber_jvp, huber_vjp);
    check(rastrigin, rastrigin_jvp, rastrigin_vjp);
    check(
        |x| scaled_huber(x, 0.9),
        |x, v| scaled_huber_jvp(x, 0.9, v),
        |x, c| scaled_huber_vjp(x, 0.9, c),
    );
    let (value, gradient) = rosenbrock_grad(&[1.0, 1.0, 1.0]);
    assert_eq!((value, gradient), (0.0, vec![0.0, 0.0, 0.0]));
}

#[test]
fn generic_functions_called_from_reverse_mode() {
    let x = [0.4, -0.9, 1.3];
    let (value, gradient) = combined_grad(&x);
    assert_eq!(value, combined(&x));
    let (_, r) = rosenbrock_grad(&x);
    let (n, dn) = norm_grad(&x);
    let (a, da) = ackley_grad(&x);
    for i in 0..3 {
        let expected = 0.5 * r[i] + dn[i] * a + n * da[i];
        assert_relative_eq!(gradient[i], expected, epsilon = 1e-12, max_relative = 1e-12);
    }
}

/// Both attributes stacked, `#[forward]` outside: `f_jacfwd` as with `#[forward]` alone.
#[forward]
#[reverse]
fn stacked_product<T: Float>(x: &[T]) -> T {
    x[0] * x[1] + x[1].sin()
}

#[test]
fn stacked_generic_functions_have_their_jacobian() {
    let x = [0.4, 1.2];
    let (value, jacobian) = stacked_product_jacfwd(&x[..]);
    let (same, gradient) = stacked_product_grad(&x[..]);
    assert_eq!(value, same);
    assert_relative_eq!(gradient[0], jacobian[0][0], max_relative = 1e-14);
    assert_relative_eq!(gradient[1], jacobian[0][1], max_relative = 1e-14);
}
