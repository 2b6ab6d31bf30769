//! `#[forward]` on functions generic over their float type, written the way numerical crates
//! write them (argmin's test functions, statistics and ODE code): `T: Float + FromPrimitive`,
//! constants as `T::from_f64(2.625).unwrap()`, `T::from(0.5).unwrap()`, `T::one()`,
//! `T::PI()`, iterator `sum` and `fold`, `powi`, `sqrt`, `abs`, `max`, comparisons. `f_jvp`
//! runs the function itself at `Dual<T>`. Each derivative is checked at several points
//! against central differences and against an analytic derivative or the `_grad` of an `f64`
//! copy in reverse mode.

use std::iter::Sum;
use std::ops::Mul;

use ad_runtime::{forward, reverse, Dual};
use approx::assert_relative_eq;
use num_traits::{Float, FloatConst, FromPrimitive};

/// `(f(x + h v) - f(x - h v)) / 2h`.
fn central(f: impl Fn(&[f64]) -> f64, x: &[f64], v: &[f64]) -> f64 {
    let h = 1e-6;
    let shifted =
        |sign: f64| -> Vec<f64> { x.iter().zip(v).map(|(a, b)| a + sign * h * b).collect() };
    (f(&shifted(1.0)) - f(&shifted(-1.0))) / (2.0 * h)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(p, q)| p * q).sum()
}

/// Points and directions the checks run at.
const POINTS: [[f64; 3]; 4] = [
    [0.3, -1.2, 0.8],
    [1.5, 0.25, -0.6],
    [-0.7, 2.0, 1.1],
    [0.05, -0.4, -1.9],
];
const DIRECTIONS: [[f64; 3]; 4] = [
    [1.0, 0.0, 0.0],
    [0.0, 1.0, -0.5],
    [0.3, -0.2, 1.0],
    [-1.0, 0.7, 0.4],
];

fn close(exact: f64, approximate: f64) {
    assert_relative_eq!(exact, approximate, epsilon = 1e-6, max_relative = 1e-6);
}

// argmin-testfunctions' shape: `&[T]` in, `T` out, constants through `FromPrimitive`.

#[forward]
fn rosenbrock<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    let a = T::one();
    let b = T::from_f64(100.0).unwrap();
    param
        .windows(2)
        .map(|pair| (a - pair[0]).powi(2) + b * (pair[1] - pair[0].powi(2)).powi(2))
        .sum()
}

fn rosenbrock_gradient(x: &[f64]) -> Vec<f64> {
    let mut gradient = vec![0.0; x.len()];
    for i in 0..x.len() - 1 {
        gradient[i] += -2.0 * (1.0 - x[i]) - 400.0 * x[i] * (x[i + 1] - x[i] * x[i]);
        gradient[i + 1] += 200.0 * (x[i + 1] - x[i] * x[i]);
    }
    gradient
}

#[test]
fn rosenbrock_against_its_gradient_and_central_differences() {
    for (x, v) in POINTS.iter().zip(&DIRECTIONS) {
        let (value, tangent) = rosenbrock_jvp(&x[..], &v[..]);
        assert_eq!(value, rosenbrock(&x[..]));
        close(dot(&rosenbrock_gradient(x), v), tangent);
        close(central(rosenbrock, x, v), tangent);
    }
}

#[forward]
fn ackley<T>(param: &[T]) -> T
where
    T: Float + FloatConst + FromPrimitive + Sum,
{
    let a = T::from_f64(20.0).unwrap();
    let b = T::from_f64(0.2).unwrap();
    let c = T::from_f64(2.0).unwrap() * T::PI();
    let n = T::from_usize(param.len()).unwrap();
    let squares = param.iter().map(|&x| x.powi(2)).sum::<T>() / n;
    let cosines = param.iter().map(|&x| (c * x).cos()).sum::<T>() / n;
    -a * (-b * squares.sqrt()).exp() - cosines.exp() + a + T::E()
}

#[reverse]
fn ackley_f64(param: &[f64]) -> f64 {
    let (a, b, c) = (20.0, 0.2, 2.0 * std::f64::consts::PI);
    let n = param.len() as f64;
    let squares = param.iter().map(|x| x * x).sum::<f64>() / n;
    let cosines = param.iter().map(|x| (c * x).cos()).sum::<f64>() / n;
    -a * (-b * squares.sqrt()).exp() - cosines.exp() + a + std::f64::consts::E
}

#[test]
fn ackley_with_float_constants_against_reverse_mode() {
    for (x, v) in POINTS.iter().zip(&DIRECTIONS) {
        let (value, tangent) = ackley_jvp(&x[..], &v[..]);
        let (value_f64, gradient) = ackley_f64_grad(&x[..]);
        assert_relative_eq!(value, value_f64, max_relative = 1e-14);
        close(dot(&gradient, v), tangent);
        close(central(ackley, x, v), tangent);
    }
}

#[forward]
fn rastrigin<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    let a = T::from(10.0).unwrap();
    let two_pi = T::from_f64(2.0 * std::f64::consts::PI).unwrap();
    a * T::from_usize(param.len()).unwrap()
        + param
            .iter()
            .map(|&x| x.powi(2) - a * (two_pi * x).cos())
            .sum()
}

#[test]
fn rastrigin_against_its_gradient_and_central_differences() {
    let two_pi = 2.0 * std::f64::consts::PI;
    for (x, v) in POINTS.iter().zip(&DIRECTIONS) {
        let gradient: Vec<f64> = x
            .iter()
            .map(|&xi| 2.0 * xi + 10.0 * two_pi * (two_pi * xi).sin())
            .collect();
        let (_, tangent) = rastrigin_jvp(&x[..], &v[..]);
        close(dot(&gradient, v), tangent);
        close(central(rastrigin, x, v), tangent);
    }
}

#[forward]
fn beale<T: Float + FromPrimitive>(param: &[T]) -> T {
    let (x, y) = (param[0], param[1]);
    (T::from_f64(1.5).unwrap() - x + x * y).powi(2)
        + (T::from_f64(2.25).unwrap() - x + x * y.powi(2)).powi(2)
        + (T::from_f64(2.625).unwrap() - x + x * y.powi(3)).powi(2)
}

#[test]
fn beale_against_its_gradient_and_central_differences() {
    for (p, v) in POINTS.iter().zip(&DIRECTIONS) {
        let (x, y) = (p[0], p[1]);
        let t1 = 1.5 - x + x * y;
        let t2 = 2.25 - x + x * y * y;
        let t3 = 2.625 - x + x * y * y * y;
        let gradient = [
            2.0 * t1 * (y - 1.0) + 2.0 * t2 * (y * y - 1.0) + 2.0 * t3 * (y * y * y - 1.0),
            2.0 * t1 * x + 2.0 * t2 * 2.0 * x * y + 2.0 * t3 * 3.0 * x * y * y,
        ];
        let (_, tangent) = beale_jvp(&p[..2], &v[..2]);
        close(dot(&gradient, &v[..2]), tangent);
        close(central(beale, &p[..2], &v[..2]), tangent);
    }
}

// A log-sum-exp with `fold` for its maximum and its sum, as statistics code writes it.

#[forward]
fn logsumexp<T: Float>(x: &[T]) -> T {
    let max = x.iter().fold(T::neg_infinity(), |m, &v| m.max(v));
    max + x.iter().fold(T::zero(), |s, &v| s + (v - max).exp()).ln()
}

#[test]
fn logsumexp_gradient_is_the_softmax() {
    for (x, v) in POINTS.iter().zip(&DIRECTIONS) {
        let total: f64 = x.iter().map(|v| v.exp()).sum();
        let softmax: Vec<f64> = x.iter().map(|v| v.exp() / total).collect();
        let (value, tangent) = logsumexp_jvp(&x[..], &v[..]);
        assert_relative_eq!(value, total.ln(), max_relative = 1e-14);
        close(dot(&softmax, v), tangent);
        close(central(logsumexp, x, v), tangent);
    }
}

// Horner's rule: differentiable in the coefficients and in the point.

#[forward]
fn horner<T: Float>(coefficients: &[T], x: T) -> T {
    coefficients
        .iter()
        .rev()
        .fold(T::zero(), |acc, &c| acc * x + c)
}

#[test]
fn horner_in_the_point_and_in_the_coefficients() {
    let coefficients = [1.5, -2.0, 0.5, 3.0]; // 1.5 - 2x + 0.5x^2 + 3x^3
    for x in [-1.3, 0.0, 0.7, 2.2] {
        let zero = [0.0; 4];
        let (value, along_x) = horner_jvp(&coefficients[..], x, &zero[..], 1.0);
        assert_relative_eq!(
            value,
            1.5 - 2.0 * x + 0.5 * x * x + 3.0 * x * x * x,
            max_relative = 1e-14
        );
        close(-2.0 + x + 9.0 * x * x, along_x);
        // Along the coefficients the derivative is sum_i v_i x^i.
        let v = [0.3, -1.0, 2.0, 0.5];
        let (_, along_c) = horner_jvp(&coefficients[..], x, &v[..], 0.0);
        let exact: f64 = v
            .iter()
            .enumerate()
            .map(|(i, vi)| vi * x.powi(i as i32))
            .sum();
        close(exact, along_c);
    }
}

// A `where` clause with a bound on references, and a second differentiable parameter.

#[forward]
fn pseudo_huber<T>(residuals: &[T], delta: T) -> T
where
    T: Float + Sum<T>,
    for<'a> &'a T: Mul<&'a T, Output = T>,
{
    residuals
        .iter()
        .map(|r| {
            let scaled = *r / delta;
            delta * delta * ((T::one() + Mul::mul(&scaled, &scaled)).sqrt() - T::one())
        })
        .sum()
}

#[reverse]
fn pseudo_huber_f64(residuals: &[f64], delta: f64) -> f64 {
    residuals
        .iter()
        .map(|r| delta * delta * ((1.0 + (r / delta) * (r / delta)).sqrt() - 1.0))
        .sum()
}

#[test]
fn a_where_clause_and_two_parameters_against_reverse_mode() {
    for (x, v) in POINTS.iter().zip(&DIRECTIONS) {
        let delta = 0.8 + x[0].abs();
        let d_delta = v[1];
        let (value, tangent) = pseudo_huber_jvp(&x[..], delta, &v[..], d_delta);
        let (value_f64, (gradient, g_delta)) = pseudo_huber_f64_grad(&x[..], delta);
        assert_relative_eq!(value, value_f64, max_relative = 1e-14);
        close(dot(&gradient, v) + g_delta * d_delta, tangent);
    }
}

// A generic helper without any annotation, called from the generic function: it runs at the
// dual type too.

fn squared<T: Float>(x: T) -> T {
    x * x
}

#[forward]
fn distance<T: Float>(a: &[T], b: &[T]) -> T {
    a.iter()
        .zip(b)
        .map(|(&p, &q)| squared(p - q))
        .fold(T::zero(), |s, v| s + v)
        .sqrt()
}

#[test]
fn a_plain_generic_helper_runs_at_the_dual_type() {
    let b = [0.5, 0.5, -0.5];
    let zero = [0.0; 3];
    for (x, v) in POINTS.iter().zip(&DIRECTIONS) {
        let d = distance(&x[..], &b[..]);
        let gradient: Vec<f64> = x.iter().zip(&b).map(|(p, q)| (p - q) / d).collect();
        let (value, tangent) = distance_jvp(&x[..], &b[..], &v[..], &zero[..]);
        assert_eq!(value, d);
        close(dot(&gradient, v), tangent);
        // Along b the derivative is the opposite.
        let (_, along_b) = distance_jvp(&x[..], &b[..], &zero[..], &v[..]);
        close(-dot(&gradient, v), along_b);
    }
}

// Arrays `[T; 3]`, by value and by reference, and an array result.

#[forward]
fn cross<T: Float>(a: [T; 3], b: &[T; 3]) -> [T; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[forward]
fn triangle_area<T: Float + FromPrimitive>(p: [T; 3], q: [T; 3], r: [T; 3]) -> T {
    let u = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
    let w = [r[0] - p[0], r[1] - p[1], r[2] - p[2]];
    let n = cross(u, &w);
    T::from(0.5).unwrap()
        * n.iter()
            .map(|&c| c.powi(2))
            .fold(T::zero(), |s, c| s + c)
            .sqrt()
}

#[test]
fn arrays_by_value_and_by_reference() {
    for (a, v) in POINTS.iter().zip(&DIRECTIONS) {
        let b = [0.4, -1.0, 2.0];
        let db = [0.1, 0.2, -0.3];
        let (value, tangent) = cross_jvp(*a, &b, *v, &db);
        assert_eq!(value, cross(*a, &b));
        // Bilinear: d(a x b) = da x b + a x db.
        let exact: Vec<f64> = cross(*v, &b)
            .iter()
            .zip(cross(*a, &db))
            .map(|(p, q)| p + q)
            .collect();
        for k in 0..3 {
            close(exact[k], tangent[k]);
        }
        let q = [1.0, 0.3, -0.2];
        let r = [0.2, 1.4, 0.9];
        let zero = [0.0; 3];
        let (_, d_area) = triangle_area_jvp(*a, q, r, *v, zero, zero);
        let area_of = |p: &[f64]| triangle_area([p[0], p[1], p[2]], q, r);
        close(central(area_of, a, v), d_area);
    }
}

// Branches on comparisons, `abs`, `max`, `#[no_grad]` and data parameters.

#[forward]
fn huber<T: Float + FromPrimitive>(r: T, #[no_grad] delta: T) -> T {
    let half = T::from_f64(0.5).unwrap();
    if r.abs() <= delta {
        half * r * r
    } else {
        delta * (r.abs() - half * delta)
    }
}

#[forward]
fn relax<T: Float + FromPrimitive>(x0: T, rate: T, steps: usize, dt: f64, floor: f64) -> T {
    let dt = T::from_f64(dt).unwrap();
    let mut x = x0;
    for _ in 0..steps {
        x = (x - rate * x * dt).max(T::from(floor).unwrap());
    }
    x
}

#[test]
fn branches_no_grad_and_data_parameters() {
    for r in [-2.5, -0.4, 0.3, 1.7] {
        let (_, d) = huber_jvp(r, 1.0, 1.0); // no tangent for delta
        let exact = if r.abs() <= 1.0 { r } else { r.signum() };
        close(exact, d);
    }
    // x_n = x0 (1 - rate dt)^n while above the floor.
    let (x0, rate, n, dt) = (2.0, 0.3, 20, 0.1);
    let (x, dx0) = relax_jvp(x0, rate, n, dt, 0.0, 1.0, 0.0);
    let (_, drate) = relax_jvp(x0, rate, n, dt, 0.0, 0.0, 1.0);
    let factor: f64 = 1.0 - rate * dt;
    assert_relative_eq!(x, x0 * factor.powi(n as i32), max_relative = 1e-13);
    close(factor.powi(n as i32), dx0);
    close(-x0 * (n as f64) * dt * factor.powi(n as i32 - 1), drate);
    // Clamped by the floor: no derivative.
    let (x, dx0) = relax_jvp(x0, rate, n, dt, 1.5, 1.0, 0.0);
    assert_eq!((x, dx0), (1.5, 0.0));
}

// Results that are tuples and `Vec`s, and parameters taken as `Vec<T>` and `&Vec<T>`.

#[forward]
fn polar<T: Float>(r: T, theta: T) -> (T, T) {
    let (s, c) = theta.sin_cos();
    (r * c, r * s)
}

#[forward]
fn softmax<T: Float>(x: Vec<T>) -> Vec<T> {
    let total = x.iter().fold(T::zero(), |s, &v| s + v.exp());
    x.iter().map(|&v| v.exp() / total).collect()
}

#[forward]
#[allow(clippy::ptr_arg)] // a `&Vec<T>` parameter on purpose
fn mean<T: Float + FromPrimitive>(x: &Vec<T>) -> T {
    x.iter().fold(T::zero(), |s, &v| s + v) / T::from_usize(x.len()).unwrap()
}

#[test]
fn tuple_and_vec_results_and_vec_parameters() {
    let ((px, py), (dpx, dpy)) = polar_jvp(2.0, 0.5, 0.5, 1.0);
    assert_eq!((px, py), (2.0 * 0.5_f64.cos(), 2.0 * 0.5_f64.sin()));
    close(0.5 * 0.5_f64.cos() - 2.0 * 0.5_f64.sin(), dpx);
    close(0.5 * 0.5_f64.sin() + 2.0 * 0.5_f64.cos(), dpy);
    let x = vec![0.3, -1.0, 0.8];
    let (s, ds) = softmax_jvp(x.clone(), vec![1.0, 0.0, 0.0]);
    for k in 0..3 {
        // d s_k / d x_0 = s_k (delta_k0 - s_0)
        let delta = if k == 0 { 1.0 } else { 0.0 };
        close(s[k] * (delta - s[0]), ds[k]);
    }
    let (m, dm) = mean_jvp(&x, &vec![1.0, 1.0, 1.0]);
    assert_relative_eq!(m, 0.1 / 3.0, max_relative = 1e-12);
    close(1.0, dm);
}

// Rows of points and a pair, nested containers of `T`.

#[forward]
fn perimeter<T: Float>(points: &[[T; 2]], scale: (T, T)) -> T {
    let n = points.len();
    (0..n).fold(T::zero(), |total, i| {
        let (p, q) = (points[i], points[(i + 1) % n]);
        total + ((scale.0 * (q[0] - p[0])).powi(2) + (scale.1 * (q[1] - p[1])).powi(2)).sqrt()
    })
}

#[test]
fn rows_and_pairs() {
    let points = [[0.0, 0.0], [3.0, 0.5], [1.0, 2.0]];
    let flat = |p: &[f64]| perimeter(&[[p[0], p[1]], [p[2], p[3]], [p[4], p[5]]], (p[6], p[7]));
    let x = [0.0, 0.0, 3.0, 0.5, 1.0, 2.0, 1.2, 0.7];
    let v = [0.3, -0.1, 0.0, 1.0, -0.5, 0.2, 0.4, -1.0];
    let directions = [[v[0], v[1]], [v[2], v[3]], [v[4], v[5]]];
    let (value, tangent) = perimeter_jvp(&points[..], (1.2, 0.7), &directions[..], (v[6], v[7]));
    assert_eq!(value, flat(&x));
    close(central(flat, &x, &v), tangent);
}

#[test]
fn over_f32() {
    let (value, tangent) = rosenbrock_jvp(&[1.5_f32, 2.0], &[1.0, 0.0]);
    assert_eq!(value, 6.5);
    assert_relative_eq!(tangent, 151.0, max_relative = 1e-6);
    let (_, d) = logsumexp_jvp(&[0.0_f32, 0.0], &[1.0, 0.0]);
    assert_relative_eq!(d, 0.5, max_relative = 1e-6);
}

// Calls into generic `#[forward]` functions from a `#[forward]` function over `f64`.

#[forward]
fn regularized(x: &[f64], weight: f64) -> f64 {
    let mut total = rosenbrock(x);
    total += weight * distance(x, &[0.0, 0.0, 0.0]);
    total
}

#[test]
fn an_f64_function_calls_generic_ones() {
    for (x, v) in POINTS.iter().zip(&DIRECTIONS) {
        let (value, tangent) = regularized_jvp(&x[..], 0.5, &v[..], 0.0);
        assert_relative_eq!(value, regularized(&x[..], 0.5), max_relative = 1e-14);
        close(central(|p| regularized(p, 0.5), x, v), tangent);
        let (_, along_weight) = regularized_jvp(&x[..], 0.5, &[0.0; 3], 1.0);
        close(distance(&x[..], &[0.0; 3]), along_weight);
    }
}

// Nesting: forward over forward, through generic functions.

#[forward]
fn add<T: Float>(x: T, y: T) -> T {
    x + y
}

/// x * d/dy (x + y) at y = 1.
#[forward]
fn x_times_inner_derivative(x: f64) -> f64 {
    x * add_jvp(x, 1.0, 0.0, 1.0).1
}

/// The derivative of ackley along v, as a function of x: its jvp is v^T H w.
#[forward]
fn ackley_along(x: &[f64], #[no_grad] v: &[f64]) -> f64 {
    ackley_jvp(x, v).1
}

#[test]
fn nesting_has_no_perturbation_confusion() {
    let (value, derivative) = x_times_inner_derivative_jvp(1.0, 1.0);
    assert_eq!((value, derivative), (1.0, 1.0));
    for (x, v) in POINTS.iter().zip(&DIRECTIONS) {
        let w = [0.2, 1.0, -0.3];
        let (first, second) = ackley_along_jvp(&x[..], &v[..], &w[..]);
        close(ackley_jvp(&x[..], &v[..]).1, first);
        let derivative_along_v = |p: &[f64]| ackley_jvp(p, &v[..]).1;
        assert_relative_eq!(
            second,
            central(derivative_along_v, x, &w),
            epsilon = 1e-5,
            max_relative = 1e-5
        );
    }
    // The generic function itself at a dual of duals: the second derivative of logsumexp.
    let x = [Dual::new(0.4_f64, 1.0), Dual::new(-0.2, 0.0)];
    let dx = [Dual::new(1.0, 0.0), Dual::new(0.0, 0.0)];
    let (_, d) = logsumexp_jvp(&x[..], &dx[..]);
    let s0 = 0.4_f64.exp() / (0.4_f64.exp() + (-0.2_f64).exp());
    assert_relative_eq!(d.tangent, s0 * (1.0 - s0), max_relative = 1e-14);
}

/// A generic map to a `Vec`, for `f_jacfwd` of a generic function with several outputs.
#[forward]
fn polar_to_cartesian<T: Float>(r_theta: &[T], scale: T, n: usize) -> Vec<T> {
    let (r, theta) = (r_theta[0] * scale, r_theta[1]);
    (0..n)
        .map(|k| {
            let angle = theta * T::from(k + 1).unwrap();
            r * angle.cos() + r * angle.sin()
        })
        .collect()
}

#[test]
fn jacobians_of_generic_functions_run_them_at_vector_duals() {
    for x in &POINTS {
        let (value, jacobian) = rosenbrock_jacfwd(&x[..]);
        assert_eq!(value, rosenbrock(&x[..]));
        let gradient = rosenbrock_gradient(&x[..]);
        for k in 0..3 {
            close(gradient[k], jacobian[0][k]);
        }
        // Columns along r, theta and scale; rows per output.
        let (values, jacobian) = polar_to_cartesian_jacfwd(&x[..2], x[2], 3);
        assert_eq!(values, polar_to_cartesian(&x[..2], x[2], 3));
        assert_eq!((jacobian.len(), jacobian[0].len()), (3, 3));
        for (k, v) in DIRECTIONS.iter().enumerate() {
            let along: Vec<f64> = (0..3)
                .map(|row| (0..3).map(|col| jacobian[row][col] * v[col]).sum())
                .collect();
            let f = |p: &[f64]| polar_to_cartesian(&p[..2], p[2], 3)[k % 3];
            close(central(f, &x[..], v), along[k % 3]);
        }
    }
    // f32 too.
    let (_, jacobian) = rosenbrock_jacfwd(&[1.5_f32, 2.0, 0.5][..]);
    assert!((jacobian[0][0] - rosenbrock_gradient(&[1.5, 2.0, 0.5])[0] as f32).abs() < 1e-2);
}
