//! nalgebra's vectors and matrices in reverse mode (feature `nalgebra` of `ad-runtime`):
//! parameters and locals of `SVector`/`SMatrix`/`DVector`/`DMatrix` types, their operators
//! (matrix products included), methods and constructors, element reads and writes, in
//! straight-line code and loops. Each function's gradient is checked against central
//! differences, and against forward mode (the same function under `#[forward]`, whose
//! `_jvp` runs the same rules at dual numbers): `⟨∇f, v⟩ = f_jvp(x, v)`, the dot-product
//! identity between the two modes.

use ad_runtime::{forward, reverse, Differentiable};
use approx::assert_relative_eq;
use nalgebra::{DMatrix, DVector, Matrix2, Matrix2x3, Matrix3, Matrix4, SMatrix, Vector2, Vector3};

/// A fixed, irregular sequence of numbers in [-1, 1].
fn numbers(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// A function of `n` floats, its gradient (from `_grad`) and its directional derivative
/// (from `_jvp`), all through the nalgebra values the closures build from the floats.
struct Case<F, G, J> {
    n: usize,
    value: F,
    gradient: G,
    directional: J,
}

impl<F, G, J> Case<F, G, J>
where
    F: Fn(&[f64]) -> f64,
    G: Fn(&[f64]) -> (f64, Vec<f64>),
    J: Fn(&[f64], &[f64]) -> (f64, f64),
{
    /// At a few points, along a few directions.
    fn check(&self, center: &[f64]) {
        assert_eq!(center.len(), self.n);
        let mut next = numbers(self.n as u64);
        for _ in 0..3 {
            let x: Vec<f64> = center.iter().map(|c| c + 0.2 * next()).collect();
            let (value, gradient) = (self.gradient)(&x);
            // The rules compute with the scalar type's arithmetic, which may round otherwise
            // than nalgebra's own algorithms (a 4×4 inverse).
            assert_relative_eq!(value, (self.value)(&x), max_relative = 1e-13);
            assert_eq!(gradient.len(), self.n);
            for _ in 0..3 {
                let v: Vec<f64> = (0..self.n).map(|_| next()).collect();
                let h = 1e-6;
                let at = |s: f64| -> f64 {
                    let moved: Vec<f64> = x.iter().zip(&v).map(|(x, v)| x + s * v).collect();
                    (self.value)(&moved)
                };
                let central = (at(h) - at(-h)) / (2.0 * h);
                let reverse: f64 = gradient.iter().zip(&v).map(|(g, v)| g * v).sum();
                let scale = 1.0 + value.abs() + central.abs();
                assert_relative_eq!(reverse, central, epsilon = 1e-6 * scale);
                let (jvp_value, forward) = (self.directional)(&x, &v);
                assert_relative_eq!(jvp_value, value, max_relative = 1e-13);
                assert_relative_eq!(forward, reverse, epsilon = 1e-11 * scale);
            }
        }
    }
}

/// `½ xᵀ A x − bᵀ x`, fixed-size.
#[forward]
#[reverse]
fn quadratic(a: &Matrix2<f64>, b: &Vector2<f64>, x: &Vector2<f64>) -> f64 {
    let ax = a * x;
    x.dot(&ax) * 0.5 - b.dot(x)
}

#[test]
fn a_quadratic_form_has_the_gradient_a_x_minus_b() {
    let a = Matrix2::new(2.0, 1.0, 1.0, 3.0);
    let (b, x) = (Vector2::new(1.0, -1.0), Vector2::new(0.5, 2.0));
    let (value, (da, db, dx)) = quadratic_grad(&a, &b, &x);
    assert_eq!(value, quadratic(&a, &b, &x));
    assert_relative_eq!(dx, a * x - b, epsilon = 1e-14);
    assert_relative_eq!(db, -x, epsilon = 1e-14);
    assert_relative_eq!(da, x * x.transpose() * 0.5, epsilon = 1e-14);
}

fn matrix2(p: &[f64]) -> Matrix2<f64> {
    Matrix2::from_column_slice(&p[..4])
}

#[test]
fn fixed_size_products_against_differences_and_forward_mode() {
    let parts = |p: &[f64]| {
        (
            matrix2(p),
            Vector2::new(p[4], p[5]),
            Vector2::new(p[6], p[7]),
        )
    };
    Case {
        n: 8,
        value: |p: &[f64]| {
            let (a, b, x) = parts(p);
            quadratic(&a, &b, &x)
        },
        gradient: |p: &[f64]| {
            let (a, b, x) = parts(p);
            let (value, (da, db, dx)) = quadratic_grad(&a, &b, &x);
            let flat = da
                .iter()
                .chain(db.iter())
                .chain(dx.iter())
                .copied()
                .collect();
            (value, flat)
        },
        directional: |p: &[f64], v: &[f64]| {
            let ((a, b, x), (da, db, dx)) = (parts(p), parts(v));
            quadratic_jvp(&a, &b, &x, &da, &db, &dx)
        },
    }
    .check(&[2.0, 1.0, 1.0, 3.0, 1.0, -1.0, 0.5, 2.0]);
}

/// Dynamic sizes: a product, scalings on both sides, a difference, element-wise products and
/// quotients, a transpose, reductions, a determinant and a trace.
#[forward]
#[reverse]
fn dynamic_mix(m: &DMatrix<f64>, v: DVector<f64>, s: f64) -> f64 {
    let w = m * &v;
    let u = (w * s - &v).component_mul(&v);
    let t = m.transpose() * u;
    let q = (2.0 * &t).component_div(&(v.clone() * 3.0 + DVector::from_element(3, 5.0)));
    let r = t.scale(s) / (1.0 + s * s);
    t.norm_squared() + q.sum() + r.norm() + m.determinant() * m.trace() - (-q).dot(&r)
}

#[test]
fn dynamic_sizes_through_operators_and_methods() {
    let parts = |p: &[f64]| {
        (
            DMatrix::from_row_slice(3, 3, &p[..9]),
            DVector::from_column_slice(&p[9..12]),
            p[12],
        )
    };
    Case {
        n: 13,
        value: |p: &[f64]| {
            let (m, v, s) = parts(p);
            dynamic_mix(&m, v, s)
        },
        gradient: |p: &[f64]| {
            let (m, v, s) = parts(p);
            let (value, (dm, dv, ds)) = dynamic_mix_grad(&m, v, s);
            // The parameters were read row by row.
            let mut flat: Vec<f64> = dm.transpose().iter().copied().collect();
            flat.extend(dv.iter());
            flat.push(ds);
            (value, flat)
        },
        directional: |p: &[f64], t: &[f64]| {
            let ((m, v, s), (dm, dv, ds)) = (parts(p), parts(t));
            dynamic_mix_jvp(&m, v, s, &dm, dv, ds)
        },
    }
    .check(&[
        2.0, 0.5, 0.1, 0.3, 1.5, -0.2, 0.0, 0.4, 3.0, 0.3, -0.7, 1.1, 0.8,
    ]);
}

/// Cross products, an inverse (`try_inverse().unwrap()`), element reads by position and by
/// `(row, column)`.
#[forward]
#[reverse]
fn rigid(a: Vector3<f64>, b: &Vector3<f64>, m: Matrix3<f64>) -> f64 {
    let c = a.cross(b);
    let inverse = m.try_inverse().unwrap();
    let d = inverse * c;
    d[0] * d[1] + c.norm() + m[(0, 1)] * d.dot(&a)
}

#[test]
fn cross_products_inverses_and_element_reads() {
    let parts = |p: &[f64]| {
        (
            Vector3::new(p[0], p[1], p[2]),
            Vector3::new(p[3], p[4], p[5]),
            Matrix3::from_column_slice(&p[6..15]),
        )
    };
    Case {
        n: 15,
        value: |p: &[f64]| {
            let (a, b, m) = parts(p);
            rigid(a, &b, m)
        },
        gradient: |p: &[f64]| {
            let (a, b, m) = parts(p);
            let (value, (da, db, dm)) = rigid_grad(a, &b, m);
            let flat = da
                .iter()
                .chain(db.iter())
                .chain(dm.iter())
                .copied()
                .collect();
            (value, flat)
        },
        directional: |p: &[f64], v: &[f64]| {
            let ((a, b, m), (da, db, dm)) = (parts(p), parts(v));
            rigid_jvp(a, &b, m, da, &db, dm)
        },
    }
    .check(&[
        0.3, 1.2, -0.5, -0.4, 0.8, 0.9, 2.0, 0.3, 0.0, 0.5, 1.5, 0.4, 0.1, -0.2, 3.0,
    ]);
}

/// Vectors and matrices built in the body from the floats of a slice: `new`, `from_vec`,
/// `from_column_slice`, `from_row_slice`, `identity`, `zeros`.
#[forward]
#[reverse]
fn built(x: &[f64], s: f64) -> f64 {
    let p = Vector3::new(x[0], x[1], s);
    let q = DVector::from_vec(vec![x[0] * s, x[1], 1.0]);
    let r = DVector::from_column_slice(x);
    let m = Matrix3::identity() * s;
    let z = DVector::zeros(3);
    let w = (&q + &z).component_mul(&r);
    let e = Vector3::new(1.0, 2.0, 3.0);
    let rows = DMatrix::from_row_slice(3, 1, x);
    let block = Matrix2x3::new(x[0], x[1], x[2], s, 1.0, -s);
    (m * p).dot(&e) + w.sum() + rows.norm() + (block * p).norm_squared()
}

#[test]
fn vectors_and_matrices_built_from_floats() {
    Case {
        n: 4,
        value: |p: &[f64]| built(&p[..3], p[3]),
        gradient: |p: &[f64]| {
            let (value, (mut dx, ds)) = built_grad(&p[..3], p[3]);
            dx.push(ds);
            (value, dx)
        },
        directional: |p: &[f64], v: &[f64]| built_jvp(&p[..3], p[3], &v[..3], v[3]),
    }
    .check(&[0.3, -0.7, 1.1, 0.8]);
}

/// A loop accumulating into a vector and writing a matrix's elements.
#[forward]
#[reverse]
fn accumulated(x: &DVector<f64>, m: &DMatrix<f64>, k: f64) -> f64 {
    let n = x.len();
    let mut acc = DVector::zeros(n);
    let mut g = DMatrix::zeros(n, n);
    for i in 0..n {
        acc += m * x * x[i];
        g[(i, i)] = x[i] * k;
        acc[i] += k * x[i];
    }
    let y = 2.0 * &acc + k * x;
    let t = -y.clone();
    (g * &y).dot(&t) + acc.norm_squared() / k
}

#[test]
fn loops_accumulate_and_write_elements() {
    let parts = |p: &[f64]| {
        (
            DVector::from_column_slice(&p[..3]),
            DMatrix::from_column_slice(3, 3, &p[3..12]),
            p[12],
        )
    };
    Case {
        n: 13,
        value: |p: &[f64]| {
            let (x, m, k) = parts(p);
            accumulated(&x, &m, k)
        },
        gradient: |p: &[f64]| {
            let (x, m, k) = parts(p);
            let (value, (dx, dm, dk)) = accumulated_grad(&x, &m, k);
            let mut flat: Vec<f64> = dx.iter().chain(dm.iter()).copied().collect();
            flat.push(dk);
            (value, flat)
        },
        directional: |p: &[f64], v: &[f64]| {
            let ((x, m, k), (dx, dm, dk)) = (parts(p), parts(v));
            accumulated_jvp(&x, &m, k, &dx, &dm, dk)
        },
    }
    .check(&[
        0.3, -0.7, 1.1, 2.0, 0.3, 0.0, 0.5, 1.5, 0.4, 0.1, -0.2, 3.0, 0.8,
    ]);
}

/// Static shapes that are not square (`SMatrix<f64, 2, 3>`), and a 4×4 determinant and
/// inverse (elimination rather than closed forms).
#[forward]
#[reverse]
fn shapes(a: &SMatrix<f64, 2, 3>, m: &Matrix4<f64>) -> f64 {
    let gram = a * a.transpose();
    let inverse = m.try_inverse().unwrap();
    gram.determinant() + inverse.sum() * m.determinant() + (a.transpose() * gram).norm()
}

#[test]
fn rectangular_static_shapes_and_larger_square_ones() {
    let parts = |p: &[f64]| {
        (
            SMatrix::<f64, 2, 3>::from_column_slice(&p[..6]),
            Matrix4::from_column_slice(&p[6..22]),
        )
    };
    let mut center = vec![0.5, -0.3, 1.2, 0.8, -0.6, 0.4];
    let mut next = numbers(3);
    for i in 0..4 {
        for j in 0..4 {
            center.push(if i == j { 3.0 } else { 0.5 * next() });
        }
    }
    Case {
        n: 22,
        value: |p: &[f64]| {
            let (a, m) = parts(p);
            shapes(&a, &m)
        },
        gradient: |p: &[f64]| {
            let (a, m) = parts(p);
            let (value, (da, dm)) = shapes_grad(&a, &m);
            (value, da.iter().chain(dm.iter()).copied().collect())
        },
        directional: |p: &[f64], v: &[f64]| {
            let ((a, m), (da, dm)) = (parts(p), parts(v));
            shapes_jvp(&a, &m, &da, &dm)
        },
    }
    .check(&center);
}

/// `f_vjp` with a cotangent: the gradient scaled.
#[test]
fn the_vector_jacobian_product_scales_the_gradient() {
    let a = Matrix2::new(2.0, 1.0, 1.0, 3.0);
    let (b, x) = (Vector2::new(1.0, -1.0), Vector2::new(0.5, 2.0));
    let (_, (_, _, dx)) = quadratic_grad(&a, &b, &x);
    let (value, (_, _, dx3)) = quadratic_vjp(&a, &b, &x, 3.0);
    assert_eq!(value, quadratic(&a, &b, &x));
    assert_relative_eq!(dx3, dx * 3.0, epsilon = 1e-14);
}

/// A Gaussian log-density's quadratic form and log-determinant through a Cholesky
/// factorization: `cholesky().unwrap()`, `solve`, `l`, `determinant`. The factorization reads
/// the lower triangle, as nalgebra's does; the differences perturb every element.
#[forward]
#[reverse]
fn gaussian(covariance: &DMatrix<f64>, residual: &DVector<f64>) -> f64 {
    let cholesky = covariance.clone().cholesky().unwrap();
    let solved = cholesky.solve(residual);
    let l = cholesky.l();
    let log_det = cholesky.determinant().ln();
    0.5 * residual.dot(&solved) + 0.5 * log_det + l[(1, 0)] * l[(2, 2)]
}

#[test]
fn cholesky_factorizations_solve_and_give_determinants() {
    let parts = |p: &[f64]| {
        (
            DMatrix::from_column_slice(3, 3, &p[..9]),
            DVector::from_column_slice(&p[9..12]),
        )
    };
    Case {
        n: 12,
        value: |p: &[f64]| {
            let (c, r) = parts(p);
            gaussian(&c, &r)
        },
        gradient: |p: &[f64]| {
            let (c, r) = parts(p);
            let (value, (dc, dr)) = gaussian_grad(&c, &r);
            (value, dc.iter().chain(dr.iter()).copied().collect())
        },
        directional: |p: &[f64], v: &[f64]| {
            let ((c, r), (dc, dr)) = (parts(p), parts(v));
            gaussian_jvp(&c, &r, &dc, &dr)
        },
    }
    .check(&[
        4.0, 1.0, 0.5, 1.0, 3.0, -0.4, 0.5, -0.4, 2.0, 0.3, -1.2, 0.8,
    ]);
    // nalgebra's own factorization gives the same value.
    let c = DMatrix::from_row_slice(3, 3, &[4.0, 1.0, 0.5, 1.0, 3.0, -0.4, 0.5, -0.4, 2.0]);
    let r = DVector::from_vec(vec![0.3, -1.2, 0.8]);
    let (value, _) = gaussian_grad(&c, &r);
    assert_relative_eq!(value, gaussian(&c, &r), max_relative = 1e-14);
}

/// A vector and a matrix built element by element and read element by element, no operation
/// on the whole of them after: their adjoints grow to where the reads reach them.
#[forward]
#[reverse]
fn by_elements(x: &[f64]) -> f64 {
    let mut v = DVector::zeros(3);
    let mut m = DMatrix::zeros(2, 3);
    v[0] = x[0];
    v[2] = x[1] * x[2];
    m[(1, 2)] = x[0] * x[1];
    m[(0, 0)] = v[2];
    let w = Vector3::new(x[2], 0.0, x[0]);
    v[0] * v[2] + m[(1, 2)] * m[(0, 0)] + w[2] * w[0]
}

#[test]
fn element_writes_then_element_reads() {
    Case {
        n: 3,
        value: by_elements,
        gradient: by_elements_grad,
        directional: by_elements_jvp,
    }
    .check(&[0.3, -0.7, 1.1]);
}

/// `map` with a closure over each element, reading the function's variables.
#[forward]
#[reverse]
fn mapped(x: &Vector3<f64>, w: &Matrix2x3<f64>, k: f64) -> f64 {
    let activated = (w * x).map(|z| (z * k).tanh());
    let squared = x.map(|v: f64| v * v + k);
    activated.sum() + squared.norm() + w.map(|v| v.exp()).sum()
}

/// Parts of a matrix: a column, a row, columns and rows (copies of nalgebra's views).
#[forward]
#[reverse]
fn parts(m: &DMatrix<f64>, v: &DVector<f64>) -> f64 {
    let first = m.column(0);
    let last_row = m.row(m.nrows() - 1);
    let middle = m.columns(1, 2);
    let top = m.rows(0, 2);
    first.dot(v) * last_row.sum() + (middle.transpose() * v).norm_squared() + top.norm()
}

#[test]
fn map_applies_a_closure_to_every_element() {
    let split = |p: &[f64]| {
        (
            Vector3::new(p[0], p[1], p[2]),
            Matrix2x3::from_column_slice(&p[3..9]),
            p[9],
        )
    };
    Case {
        n: 10,
        value: |p: &[f64]| {
            let (x, w, k) = split(p);
            mapped(&x, &w, k)
        },
        gradient: |p: &[f64]| {
            let (x, w, k) = split(p);
            let (value, (dx, dw, dk)) = mapped_grad(&x, &w, k);
            let mut flat: Vec<f64> = dx.iter().chain(dw.iter()).copied().collect();
            flat.push(dk);
            (value, flat)
        },
        directional: |p: &[f64], t: &[f64]| {
            let ((x, w, k), (dx, dw, dk)) = (split(p), split(t));
            mapped_jvp(&x, &w, k, &dx, &dw, dk)
        },
    }
    .check(&[0.3, -0.7, 1.1, 0.5, -0.2, 0.1, 0.8, -0.4, 0.3, 0.9]);
}

#[test]
fn columns_rows_and_their_ranges() {
    let split = |p: &[f64]| {
        (
            DMatrix::from_column_slice(3, 3, &p[..9]),
            DVector::from_column_slice(&p[9..12]),
        )
    };
    Case {
        n: 12,
        value: |p: &[f64]| {
            let (m, v) = split(p);
            parts(&m, &v)
        },
        gradient: |p: &[f64]| {
            let (m, v) = split(p);
            let (value, (dm, dv)) = parts_grad(&m, &v);
            (value, dm.iter().chain(dv.iter()).copied().collect())
        },
        directional: |p: &[f64], t: &[f64]| {
            let ((m, v), (dm, dv)) = (split(p), split(t));
            parts_jvp(&m, &v, &dm, &dv)
        },
    }
    .check(&[2.0, 0.5, 0.1, 0.3, 1.5, -0.2, 0.0, 0.4, 3.0, 0.3, -0.7, 1.1]);
}

/// A matrix built by `from_fn` from the parameters, and a vector result: `_vjp` takes a
/// cotangent of the result's type, `_jvp` gives a tangent of it.
#[forward]
#[reverse]
fn rotated(x: &Vector3<f64>, angle: f64) -> Vector3<f64> {
    let (s, c) = angle.sin_cos();
    let rotation = Matrix3::from_fn(|i, j| match (i, j) {
        (0, 0) | (1, 1) => c,
        (0, 1) => -s,
        (1, 0) => s,
        (2, 2) => 1.0,
        _ => 0.0,
    });
    let weights = DVector::from_fn(3, |i, _| 1.0 + i as f64 * angle);
    rotation * x * weights.norm() + x.cross(&Vector3::new(0.0, 0.0, angle))
}

#[test]
fn vector_results_against_differences_and_the_other_mode() {
    let mut next = numbers(41);
    for _ in 0..3 {
        let x = Vector3::new(next(), next(), next());
        let angle = next();
        let (dx, dangle) = (Vector3::new(next(), next(), next()), next());
        let cotangent = Vector3::new(next(), next(), next());
        let (value, tangent) = rotated_jvp(&x, angle, &dx, dangle);
        assert_relative_eq!(value, rotated(&x, angle), max_relative = 1e-13);
        let (value_r, (x_bar, angle_bar)) = rotated_vjp(&x, angle, cotangent);
        assert_relative_eq!(value_r, value, max_relative = 1e-13);
        // ⟨c̄, J ẋ⟩ = ⟨Jᵀ c̄, ẋ⟩.
        assert_relative_eq!(
            cotangent.dot(&tangent),
            x_bar.dot(&dx) + angle_bar * dangle,
            epsilon = 1e-12
        );
        let h = 1e-6;
        let central = (rotated(&(x + dx * h), angle + dangle * h)
            - rotated(&(x - dx * h), angle - dangle * h))
            / (2.0 * h);
        assert_relative_eq!(tangent, central, epsilon = 1e-8);
    }
}

/// A slice function given `as_slice()` of a vector.
#[forward]
#[reverse]
fn sum_of_squares(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum::<f64>()
}

/// Iterators over a vector's elements, and its elements lent as a slice.
#[forward]
#[reverse]
fn iterated(x: &DVector<f64>, y: &DVector<f64>) -> f64 {
    let a: f64 = x.iter().map(|v| v * v).sum();
    let b: f64 = x.iter().zip(y.iter()).map(|(p, q)| p * q).sum();
    let mut c = 0.0;
    for (i, xi) in x.iter().enumerate() {
        c += xi * y[i];
    }
    a + b * sum_of_squares(x.as_slice()) + c * c
}

#[test]
fn iterators_and_slices_of_vectors() {
    let split = |p: &[f64]| {
        (
            DVector::from_column_slice(&p[..3]),
            DVector::from_column_slice(&p[3..6]),
        )
    };
    Case {
        n: 6,
        value: |p: &[f64]| {
            let (x, y) = split(p);
            iterated(&x, &y)
        },
        gradient: |p: &[f64]| {
            let (x, y) = split(p);
            let (value, (dx, dy)) = iterated_grad(&x, &y);
            (value, dx.iter().chain(dy.iter()).copied().collect())
        },
        directional: |p: &[f64], t: &[f64]| {
            let ((x, y), (dx, dy)) = (split(p), split(t));
            iterated_jvp(&x, &y, &dx, &dy)
        },
    }
    .check(&[0.3, -0.7, 1.1, 1.0, 2.0, 3.0]);
}

/// A particle whose position and velocity are nalgebra vectors: a type that derives
/// `Differentiable` with fields of nalgebra types, its gradient of the same type.
#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Particle {
    pub position: Vector3<f64>,
    pub velocity: Vector3<f64>,
    pub mass: f64,
}

#[forward]
#[reverse]
impl Particle {
    pub fn kinetic_energy(&self) -> f64 {
        0.5 * self.mass * self.velocity.norm_squared()
    }
}

#[forward]
#[reverse]
fn after_step(#[grad] p: &Particle, dt: f64) -> f64 {
    let moved = p.position + p.velocity * dt;
    p.kinetic_energy() + moved.norm() + p.position[2] * p.velocity.dot(&moved)
}

#[test]
fn derived_types_with_nalgebra_fields() {
    let particle = |x: &[f64]| Particle {
        position: Vector3::new(x[0], x[1], x[2]),
        velocity: Vector3::new(x[3], x[4], x[5]),
        mass: x[6],
    };
    Case {
        n: 8,
        value: |x: &[f64]| after_step(&particle(x), x[7]),
        gradient: |x: &[f64]| {
            let (value, (p, dt)) = after_step_grad(&particle(x), x[7]);
            let mut flat: Vec<f64> = p
                .position
                .iter()
                .chain(p.velocity.iter())
                .copied()
                .collect();
            flat.extend([p.mass, dt]);
            (value, flat)
        },
        directional: |x: &[f64], v: &[f64]| after_step_jvp(&particle(x), x[7], &particle(v), v[7]),
    }
    .check(&[0.3, -0.7, 1.1, 1.0, 0.5, -0.2, 2.0, 0.1]);
}

/// Element reads by position and by `(row, column)` of dynamically sized locals whose
/// adjoints no whole-matrix operation reaches first, and constructors given one dimension or
/// a turbofish.
#[forward]
#[reverse]
fn element_reads(a: &DMatrix<f64>, b: &DMatrix<f64>, x: f64) -> f64 {
    let c = a * 2.0;
    let d = a * b;
    let e = a.map(|v| v * v);
    let tall = nalgebra::MatrixXx3::from_element(a.nrows() * 2, x);
    let wide = nalgebra::Matrix3xX::zeros(2) + nalgebra::Matrix3xX::from_element(2, x);
    let fixed = SMatrix::<f64, 2, 3>::from_element(x) * 2.0;
    c[1] + c[(0, 1)] + d[0] * e[3] + tall.sum() * wide[(2, 1)] + fixed.sum()
}

#[test]
fn element_reads_of_locals_and_one_dimension_constructors() {
    let split = |p: &[f64]| {
        (
            DMatrix::from_column_slice(2, 2, &p[..4]),
            DMatrix::from_column_slice(2, 2, &p[4..8]),
            p[8],
        )
    };
    let (a, b, x) = split(&[0.5, -0.3, 1.2, 0.8, 0.1, 0.9, -0.4, 0.7, 1.5]);
    // nalgebra's shapes: 4×3 and 3×2.
    assert_relative_eq!(
        element_reads(&a, &b, x),
        2.0 * (a[1] + a[(0, 1)]) + (&a * &b)[0] * a[3] * a[3] + 12.0 * x * x + 12.0 * x,
        max_relative = 1e-14
    );
    Case {
        n: 9,
        value: |p: &[f64]| {
            let (a, b, x) = split(p);
            element_reads(&a, &b, x)
        },
        gradient: |p: &[f64]| {
            let (a, b, x) = split(p);
            let (value, (da, db, dx)) = element_reads_grad(&a, &b, x);
            let mut flat: Vec<f64> = da.iter().chain(db.iter()).copied().collect();
            flat.push(dx);
            (value, flat)
        },
        directional: |p: &[f64], t: &[f64]| {
            let ((a, b, x), (da, db, dx)) = (split(p), split(t));
            element_reads_jvp(&a, &b, x, &da, &db, dx)
        },
    }
    .check(&[0.5, -0.3, 1.2, 0.8, 0.1, 0.9, -0.4, 0.7, 1.5]);
}
