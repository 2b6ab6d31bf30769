//! `#[forward]` on functions generic over nalgebra's `RealField` (feature `nalgebra` of
//! `ad-runtime`): `Vector3<T>`, `Matrix3<T>`, `DMatrix<T>`, `norm`, `cross`, `dot`,
//! `try_inverse`, `determinant`, `cholesky` + `solve`, and an unannotated generic helper they
//! call, written as a library would. `f_jvp` runs the function at `Dual<T>`, which implements
//! `RealField`; each derivative is checked against central differences along several
//! directions, and nested (`f_jvp` of a caller's `_jvp`) for a second derivative.

use ad_runtime::forward;
use approx::assert_relative_eq;
use nalgebra::{DMatrix, DVector, Matrix3, RealField, Vector3};

/// `(f(x + h v) - f(x - h v)) / 2h`.
fn central(f: impl Fn(&[f64]) -> f64, x: &[f64], v: &[f64]) -> f64 {
    let h = 1e-6;
    let shifted =
        |sign: f64| -> Vec<f64> { x.iter().zip(v).map(|(a, b)| a + sign * h * b).collect() };
    (f(&shifted(1.0)) - f(&shifted(-1.0))) / (2.0 * h)
}

const POINTS: [[f64; 3]; 3] = [[0.3, -1.2, 0.8], [1.5, 0.25, -0.6], [-0.7, 2.0, 1.1]];
const DIRECTIONS: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, -0.5], [0.3, -0.2, 1.0]];

fn check(f: impl Fn(&[f64]) -> f64, jvp: impl Fn(&[f64], &[f64]) -> (f64, f64)) {
    for x in &POINTS {
        for v in &DIRECTIONS {
            let (value, tangent) = jvp(x, v);
            assert_eq!(value, f(x));
            // Central differences lose about 1e-10 of the value's size.
            let epsilon = 1e-7 * value.abs().max(1.0);
            assert_relative_eq!(
                tangent,
                central(&f, x, v),
                epsilon = epsilon,
                max_relative = 1e-6
            );
        }
    }
}

/// A spring between a moving point and an anchor, and the area the two span.
#[forward]
fn spring_energy<T: RealField + Copy>(position: &[T]) -> T {
    let p = Vector3::new(position[0], position[1], position[2]);
    let anchor = Vector3::new(T::one(), T::zero(), T::one());
    let stretch = (p - anchor).norm() - T::from_f64(0.5).unwrap();
    stretch * stretch * T::from_f64(0.5).unwrap() + p.cross(&anchor).norm_squared()
}

#[test]
fn vectors_norm_and_cross() {
    check(spring_energy, spring_energy_jvp);
}

/// An SPD matrix built from the parameters: its inverse, determinant and Cholesky solve.
fn stiffness<T: RealField + Copy>(x: T, y: T, z: T) -> Matrix3<T> {
    let c = |value: f64| T::from_f64(value).unwrap();
    Matrix3::new(
        c(4.0) + x * x,
        y,
        T::one(),
        y,
        c(3.0) + z * z,
        x,
        T::one(),
        x,
        c(5.0),
    )
}

#[forward]
fn matrix_functions<T: RealField + Copy>(x: T, y: T, z: T) -> T {
    let a = stiffness(x, y, z);
    let load = Vector3::new(x.sin(), y, z * x);
    let displacement = a.cholesky().unwrap().solve(&load);
    let inverse = a.try_inverse().unwrap();
    load.dot(&displacement) + a.determinant().ln() + inverse.trace() + (inverse * load).norm()
}

#[test]
fn inverse_determinant_and_cholesky() {
    check(
        |x| matrix_functions(x[0], x[1], x[2]),
        |x, v| matrix_functions_jvp(x[0], x[1], x[2], v[0], v[1], v[2]),
    );
}

/// Least squares on a dynamic matrix: the normal equations solved by LU.
#[forward]
fn least_squares_residual<T: RealField + Copy>(params: &[T]) -> T {
    let rows = 5;
    let design = DMatrix::from_fn(rows, 2, |i, j| {
        let t = T::from_usize(i).unwrap() * params[2];
        if j == 0 {
            T::one()
        } else {
            t
        }
    });
    let observed = DVector::from_fn(rows, |i, _| {
        (T::from_usize(i).unwrap() * params[0]).exp() + params[1]
    });
    let normal = design.transpose() * &design;
    let fitted = normal
        .lu()
        .solve(&(design.transpose() * &observed))
        .unwrap();
    (&design * fitted - observed).norm_squared()
}

#[test]
fn dynamic_matrices_and_lu() {
    check(least_squares_residual, |x, v| {
        least_squares_residual_jvp(x, v)
    });
}

#[forward]
fn distance<T: RealField + Copy>(x: T) -> T {
    Vector3::new(x, T::from_f64(2.0).unwrap(), T::from_f64(3.0).unwrap()).norm()
}

/// Nesting calls the inner `_jvp`, which asks `T` to be one of our scalars.
#[forward]
fn slope_of_distance<T: RealField + Copy + ad_runtime::Scalar>(x: T) -> T {
    distance_jvp(x, num_traits::One::one()).1
}

#[test]
fn second_derivative_by_nesting() {
    // d²/dx² |(x, 2, 3)| = 13 / |v|³.
    for x in [0.5, -1.5, 2.0] {
        let (slope, curvature) = slope_of_distance_jvp(x, 1.0);
        let length = (x * x + 13.0_f64).sqrt();
        assert_relative_eq!(slope, x / length, max_relative = 1e-14);
        assert_relative_eq!(curvature, 13.0 / length.powi(3), max_relative = 1e-14);
    }
}

#[test]
fn jacobian_through_nalgebra_at_vector_duals() {
    // `f_jacfwd` runs the generic function at `DualChunk<T>`, which is a `RealField` too.
    for x in &POINTS {
        let (value, jacobian) = spring_energy_jacfwd(&x[..]);
        assert_eq!(value, spring_energy(&x[..]));
        for v in &DIRECTIONS {
            let (_, tangent) = spring_energy_jvp(&x[..], &v[..]);
            let along: f64 = (0..3).map(|k| jacobian[0][k] * v[k]).sum();
            assert_relative_eq!(along, tangent, epsilon = 1e-13, max_relative = 1e-12);
        }
    }
}
