//! Shared helpers of the integration tests.
#![allow(dead_code)]

/// Fourth-order central difference `f'(x)`: error O(h^4).
pub fn central_difference(f: impl Fn(f64) -> f64, x: f64, h: f64) -> f64 {
    (-f(x + 2.0 * h) + 8.0 * f(x + h) - 8.0 * f(x - h) + f(x - 2.0 * h)) / (12.0 * h)
}

/// A step that suits `x`: relative for large `x`, absolute near zero.
pub fn step_for(x: f64) -> f64 {
    1e-3 * x.abs().max(1.0)
}

/// Splitmix64: deterministic random numbers for property tests.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let unit = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * unit
    }
}

/// `jvp(x, 1)` against `plain`: the value bit for bit, the derivative against central
/// differences. Returns the derivative.
pub fn forward_checked1(
    plain: impl Fn(f64) -> f64,
    jvp: impl Fn(f64, f64) -> (f64, f64),
    x: f64,
) -> f64 {
    let (value, tangent) = jvp(x, 1.0);
    assert_eq!(value.to_bits(), plain(x).to_bits(), "forward value at {x}");
    approx::assert_relative_eq!(
        tangent,
        central_difference(&plain, x, 1e-4),
        epsilon = 1e-8,
        max_relative = 1e-7
    );
    tangent
}

/// `jvp` along each parameter of a function of two floats against `plain`: the value bit for
/// bit, both derivatives against central differences. Returns the value and the derivatives.
pub fn forward_checked2(
    plain: impl Fn(f64, f64) -> f64,
    jvp: impl Fn(f64, f64, f64, f64) -> (f64, f64),
    x: f64,
    y: f64,
) -> (f64, f64, f64) {
    let (value, along_x) = jvp(x, y, 1.0, 0.0);
    let (_, along_y) = jvp(x, y, 0.0, 1.0);
    assert_eq!(
        value.to_bits(),
        plain(x, y).to_bits(),
        "value at ({x}, {y})"
    );
    let dx = central_difference(|x| plain(x, y), x, 1e-4);
    let dy = central_difference(|y| plain(x, y), y, 1e-4);
    approx::assert_relative_eq!(along_x, dx, epsilon = 1e-8, max_relative = 1e-7);
    approx::assert_relative_eq!(along_y, dy, epsilon = 1e-8, max_relative = 1e-7);
    (value, along_x, along_y)
}

/// `n` numbers uniform in `[-1.5, 1.5)`.
pub fn random_vector(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.uniform(-1.5, 1.5)).collect()
}

/// `jvp(x, t)` against `d/dh plain(x + h t)` by central differences. Returns the derivative.
pub fn slice_forward_checked(
    plain: impl Fn(&[f64]) -> f64,
    jvp: impl Fn(&[f64], &[f64]) -> (f64, f64),
    x: &[f64],
    t: &[f64],
) -> f64 {
    let (value, tangent) = jvp(x, t);
    assert_eq!(value.to_bits(), plain(x).to_bits(), "value at {x:?}");
    let along = |h: f64| {
        let moved: Vec<f64> = x.iter().zip(t).map(|(a, b)| a + h * b).collect();
        plain(&moved)
    };
    approx::assert_relative_eq!(
        tangent,
        central_difference(along, 0.0, 1e-4),
        epsilon = 1e-8,
        max_relative = 1e-7
    );
    tangent
}

// ----- user types (`#[derive(Differentiable)]`) -----

use ad_runtime::Differentiable;
use approx::assert_relative_eq;

/// `a + h b`, float by float.
pub fn axpy<T: Differentiable<Float = f64>>(a: &T, h: f64, b: &T) -> T {
    T::from_over(T::zip(&a.to_over(), &b.to_over(), &mut |a, b| a + h * b))
}

/// `<a, b>` over the floats.
pub fn dot<T: Differentiable<Float = f64>>(a: &T, b: &T) -> f64 {
    let mut sum = 0.0;
    let products = T::zip(&a.to_over(), &b.to_over(), &mut |a, b| a * b);
    T::for_each(&products, &mut |p| sum += p);
    sum
}

/// A direction of the shape of `value`, with random floats.
pub fn random_like<T: Differentiable<Float = f64>>(value: &T, rng: &mut Rng) -> T {
    T::from_over(T::map(&value.to_over(), &mut |_| rng.uniform(-1.0, 1.0)))
}

/// `f(t, x)` in both modes at `t`, `x` along three random directions.
/// Checks `f(t, x)` over a user type `T` in both modes at `t`, `x` along three random
/// directions: values bit for bit, forward against central differences, reverse against
/// forward (<grad, t> = J t), and linearity of `_vjp` in its cotangent.
pub fn check_user_type<T: Differentiable<Float = f64>>(
    plain: impl Fn(&T, f64) -> f64,
    jvp: impl Fn(&T, f64, &T, f64) -> (f64, f64),
    vjp: impl Fn(&T, f64, f64) -> (f64, (T, f64)),
    t: &T,
    x: f64,
    rng: &mut Rng,
) {
    let (value, (grad_t, grad_x)) = vjp(t, x, 1.0);
    assert_eq!(value.to_bits(), plain(t, x).to_bits(), "reverse value");
    let (_, (scaled_t, scaled_x)) = vjp(t, x, -2.0);
    assert_relative_eq!(scaled_x, -2.0 * grad_x, max_relative = 1e-12);
    assert_relative_eq!(
        dot(&scaled_t, &scaled_t),
        4.0 * dot(&grad_t, &grad_t),
        max_relative = 1e-12
    );
    let directions = check_user_type_forward(&plain, &jvp, t, x, rng);
    for (dt, dx, tangent) in directions {
        let adjoint = dot(&grad_t, &dt) + grad_x * dx;
        assert_relative_eq!(adjoint, tangent, epsilon = 1e-12, max_relative = 1e-12);
    }
}

/// [`check_user_type`] for `f(t)`, with only the user-type parameter.
pub fn check_user_type1<T: Differentiable<Float = f64>>(
    plain: impl Fn(&T) -> f64,
    jvp: impl Fn(&T, &T) -> (f64, f64),
    vjp: impl Fn(&T, f64) -> (f64, T),
    t: &T,
    rng: &mut Rng,
) {
    check_user_type(
        |t: &T, _| plain(t),
        |t: &T, _, dt: &T, _| jvp(t, dt),
        |t: &T, _, ct| {
            let (v, g) = vjp(t, ct);
            (v, (g, 0.0))
        },
        t,
        0.0,
        rng,
    );
}

/// The forward half of [`check_user_type`]: values bit for bit and tangents against central
/// differences along three random directions, which it returns with their tangents.
pub fn check_user_type_forward<T: Differentiable<Float = f64>>(
    plain: impl Fn(&T, f64) -> f64,
    jvp: impl Fn(&T, f64, &T, f64) -> (f64, f64),
    t: &T,
    x: f64,
    rng: &mut Rng,
) -> Vec<(T, f64, f64)> {
    (0..3)
        .map(|_| {
            let dt = random_like(t, rng);
            let dx = rng.uniform(-1.0, 1.0);
            let (value, tangent) = jvp(t, x, &dt, dx);
            assert_eq!(value.to_bits(), plain(t, x).to_bits(), "forward value");
            let along = |h: f64| plain(&axpy(t, h, &dt), x + h * dx);
            let difference = central_difference(along, 0.0, 1e-4);
            assert_relative_eq!(tangent, difference, epsilon = 1e-7, max_relative = 1e-7);
            (dt, dx, tangent)
        })
        .collect()
}

/// The gradient from reverse mode against forward mode along every basis direction, forward
/// mode against central differences along a random t, and <J t, c> = <t, J^T c> for random c.
pub fn check_gradient(
    n: usize,
    plain: impl Fn(&[f64]) -> f64,
    jvp: impl Fn(&[f64], &[f64]) -> (f64, f64),
    vjp: impl Fn(&[f64], f64) -> (f64, Vec<f64>),
) {
    let mut rng = Rng::new(n as u64 + 3);
    for _ in 0..5 {
        let x = random_vector(&mut rng, n);
        let (value, gradient) = vjp(&x, 1.0);
        assert_eq!(value.to_bits(), plain(&x).to_bits());
        assert_eq!(gradient.len(), n);
        for i in 0..n {
            let mut e = vec![0.0; n];
            e[i] = 1.0;
            assert_relative_eq!(
                gradient[i],
                jvp(&x, &e).1,
                epsilon = 1e-13,
                max_relative = 1e-12
            );
        }
        let t = random_vector(&mut rng, n);
        let c = rng.uniform(-2.0, 2.0);
        let jt = slice_forward_checked(&plain, &jvp, &x, &t);
        let (_, jtc) = vjp(&x, c);
        let dot: f64 = t.iter().zip(&jtc).map(|(a, b)| a * b).sum();
        assert_relative_eq!(jt * c, dot, epsilon = 1e-12, max_relative = 1e-12);
    }
}

/// A function of one slice, its `_jvp` and its `_vjp`.
pub type Plain = fn(&[f64]) -> f64;
pub type Jvp = fn(&[f64], &[f64]) -> (f64, f64);
pub type Vjp = fn(&[f64], f64) -> (f64, Vec<f64>);

/// The three checks, at `x`, for a function of one slice carrying `#[forward]` and
/// `#[reverse]`: values bit for bit, forward against central differences, every adjoint against
/// forward mode along its basis direction, and the dot-product identity along a random tangent.
pub fn check_slice_function(plain: Plain, jvp: Jvp, vjp: Vjp, x: &[f64], rng: &mut Rng) {
    let value = plain(x);
    let cotangent = rng.uniform(0.5, 1.5);
    let (reverse_value, gradient) = vjp(x, cotangent);
    assert_eq!(
        reverse_value.to_bits(),
        value.to_bits(),
        "reverse value at {x:?}"
    );
    assert_eq!(gradient.len(), x.len());
    for k in 0..x.len() {
        let mut basis = vec![0.0; x.len()];
        basis[k] = 1.0;
        let (forward_value, along) = jvp(x, &basis);
        assert_eq!(
            forward_value.to_bits(),
            value.to_bits(),
            "forward value at {x:?}"
        );
        let moved = |h: f64| {
            let mut y = x.to_vec();
            y[k] += h;
            plain(&y)
        };
        approx::assert_relative_eq!(
            along,
            central_difference(moved, 0.0, 1e-4),
            epsilon = 1e-7,
            max_relative = 1e-6
        );
        approx::assert_relative_eq!(
            gradient[k],
            cotangent * along,
            epsilon = 1e-12,
            max_relative = 1e-12
        );
    }
    let tangent = random_vector(rng, x.len());
    let (_, along) = jvp(x, &tangent);
    let transposed: f64 = tangent.iter().zip(&gradient).map(|(t, g)| t * g).sum();
    approx::assert_relative_eq!(
        along * cotangent,
        transposed,
        epsilon = 1e-12,
        max_relative = 1e-12
    );
}

/// `check_slice_function` at five random points of dimension `n`.
pub fn check_slice_function_at_random_points(
    plain: Plain,
    jvp: Jvp,
    vjp: Vjp,
    n: usize,
    seed: u64,
) {
    let mut rng = Rng::new(seed);
    for _ in 0..5 {
        let x = random_vector(&mut rng, n);
        check_slice_function(plain, jvp, vjp, &x, &mut rng);
    }
}

/// A `_grad` of a function of a slice, at dual numbers.
pub type GradientAtDuals =
    fn(&[ad_runtime::Dual<f64>]) -> (ad_runtime::Dual<f64>, Vec<ad_runtime::Dual<f64>>);

/// The Hessian-vector product of a function of three floats, from its reverse companion at
/// dual inputs (forward over reverse), against central differences of its gradient.
pub fn check_hessian_vector_product(
    grad_dual: GradientAtDuals,
    grad: fn(&[f64]) -> (f64, Vec<f64>),
) {
    let x = [0.4, -0.3, 0.9];
    let v = [0.2, 1.0, -0.5];
    let duals: Vec<ad_runtime::Dual<f64>> = x
        .iter()
        .zip(&v)
        .map(|(&x, &v)| ad_runtime::Dual::new(x, v))
        .collect();
    let (_, gradient) = grad_dual(&duals);
    let h = 1e-5;
    let gradient_at = |s: f64| {
        let moved: Vec<f64> = x.iter().zip(&v).map(|(x, v)| x + s * v).collect();
        grad(&moved).1
    };
    let (plus, minus) = (gradient_at(h), gradient_at(-h));
    for k in 0..3 {
        approx::assert_relative_eq!(
            gradient[k].tangent,
            (plus[k] - minus[k]) / (2.0 * h),
            epsilon = 1e-7,
            max_relative = 1e-6
        );
    }
}
