//! Each rule against its own value at dual numbers: the pullback is the transpose of the
//! derivative the dual numbers carry, `⟨c̄, J ẋ⟩ = ⟨Jᵀ c̄, ẋ⟩` (the dot-product test).

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix};

use super::kernels::{dot, shaped};
use super::rules::determinant;
use crate::__private::linalg::{
    LinalgCholesky, LinalgConstruct, LinalgCross, LinalgFactor, LinalgMethods, LinalgMul,
    LinalgSolve, LinalgSquare,
};
use crate::__private::Seed;
use crate::Dual;
use nalgebra::{DMatrix, DVector, Matrix2x3, Matrix3, Matrix3x2, Matrix4, Vector3};

type D = Dual<f64>;

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

fn random<R: Dim, C: Dim>(like: &OMatrix<f64, R, C>, seed: u64) -> OMatrix<f64, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    let mut next = numbers(seed);
    shaped(like, |_, _| next())
}

fn seeded<R: Dim, C: Dim>(x: &OMatrix<f64, R, C>, dx: &OMatrix<f64, R, C>) -> OMatrix<D, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    x.seed(dx)
}

fn tangent<R: Dim, C: Dim>(y: &OMatrix<D, R, C>) -> OMatrix<f64, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    let (rows, columns) = y.shape_generic();
    OMatrix::from_fn_generic(rows, columns, |i, j| y[(i, j)].tangent)
}

fn close(a: f64, b: f64) {
    assert!(
        (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs())),
        "the dot-product test fails: {a} and {b}"
    );
}

/// A unary rule to a float: `ẏ = J ẋ` from the duals, `x̄ = Jᵀ ȳ` from the pullback.
fn unary_to_float<R: Dim, C: Dim, P: FnOnce(f64) -> (OMatrix<f64, R, C>,)>(
    x: OMatrix<f64, R, C>,
    at_duals: impl Fn(&OMatrix<D, R, C>) -> D,
    reverse: impl Fn(&OMatrix<f64, R, C>) -> (f64, P),
) where
    DefaultAllocator: Allocator<R, C>,
{
    let dx = random(&x, 7);
    let y = at_duals(&seeded(&x, &dx));
    let (value, pullback) = reverse(&x);
    assert_eq!(value, y.value);
    let cotangent = 0.7;
    let (dx_bar,) = pullback(cotangent);
    close(cotangent * y.tangent, dot(&dx_bar, &dx));
}

#[test]
fn reductions_to_a_float() {
    let x = random(&DMatrix::<f64>::zeros(3, 4), 1);
    let v = random(&Vector3::<f64>::zeros(), 2);
    let m = random(&Matrix3::<f64>::zeros(), 3);
    let m4 = random(&Matrix4::<f64>::zeros(), 4);
    unary_to_float(
        x.clone(),
        |x| x.__ad_forward_norm(),
        |x| x.__ad_reverse_norm(),
    );
    unary_to_float(
        x.clone(),
        |x| x.__ad_forward_norm_squared(),
        |x| x.__ad_reverse_norm_squared(),
    );
    unary_to_float(
        x.clone(),
        |x| x.__ad_forward_sum(),
        |x| x.__ad_reverse_sum(),
    );
    unary_to_float(v, |x| x.__ad_forward_norm(), |x| x.__ad_reverse_norm());
    let other = random(&x, 5);
    unary_to_float(
        x.clone(),
        |x| x.__ad_forward_dot(&other.map(D::constant)),
        |x| {
            let (value, pullback) = x.__ad_reverse_dot(&other);
            (value, move |c| (pullback(c).0,))
        },
    );
    for m in [m, m * m, m.transpose() * m] {
        unary_to_float(
            m,
            |m| m.__ad_forward_determinant(),
            |m| m.__ad_reverse_determinant(),
        );
        unary_to_float(m, |m| m.__ad_forward_trace(), |m| m.__ad_reverse_trace());
    }
    unary_to_float(
        m4,
        |m| m.__ad_forward_determinant(),
        |m| m.__ad_reverse_determinant(),
    );
    // A singular matrix: the cofactors still give the derivative.
    let singular = Matrix3::new(1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 0.5, -1.0, 2.0);
    unary_to_float(
        singular,
        |m| m.__ad_forward_determinant(),
        |m| m.__ad_reverse_determinant(),
    );
    let singular = Matrix4::new(
        1.0, 2.0, 0.0, 1.0, 0.0, 1.0, 3.0, 2.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 1.0,
    );
    assert_eq!(determinant(&singular), 0.0);
    unary_to_float(
        singular,
        |m| m.__ad_forward_determinant(),
        |m| m.__ad_reverse_determinant(),
    );
}

/// A rule from matrices to a matrix, its inputs seeded along `tangents`.
fn matrix_rule<R: Dim, C: Dim>(
    y: &OMatrix<D, R, C>,
    value: &OMatrix<f64, R, C>,
    adjoints_dot_tangents: impl FnOnce(&OMatrix<f64, R, C>) -> f64,
) where
    DefaultAllocator: Allocator<R, C>,
{
    let primal = shaped(value, |i, j| y[(i, j)].value);
    assert_eq!(&primal, value);
    let cotangent = random(value, 11);
    close(
        dot(&cotangent, &tangent(y)),
        adjoints_dot_tangents(&cotangent),
    );
}

#[test]
fn element_wise_and_linear_rules() {
    let a = random(&DMatrix::<f64>::zeros(2, 3), 1);
    let b = random(&a, 2);
    let (da, db) = (random(&a, 3), random(&a, 4));
    let (ad, bd) = (seeded(&a, &da), seeded(&b, &db));
    let (k, dk) = (0.8, -0.3);
    let kd = Dual::new(k, dk);

    let (value, pullback) = a.__ad_reverse_add(b.clone());
    matrix_rule(&ad.__ad_forward_add(bd.clone()), &value, |c| {
        let (x, y) = pullback(c.clone());
        dot(&x, &da) + dot(&y, &db)
    });
    let (value, pullback) = a.__ad_reverse_sub(b.clone());
    matrix_rule(&ad.__ad_forward_sub(bd.clone()), &value, |c| {
        let (x, y) = pullback(c.clone());
        dot(&x, &da) + dot(&y, &db)
    });
    let (value, pullback) = a.__ad_reverse_neg();
    matrix_rule(&ad.__ad_forward_neg(), &value, |c| {
        dot(&pullback(c.clone()).0, &da)
    });
    let (value, pullback) = a.__ad_reverse_component_mul(&b);
    matrix_rule(&ad.__ad_forward_component_mul(&bd), &value, |c| {
        let (x, y) = pullback(c.clone());
        dot(&x, &da) + dot(&y, &db)
    });
    let (value, pullback) = a.__ad_reverse_component_div(&b);
    matrix_rule(&ad.__ad_forward_component_div(&bd), &value, |c| {
        let (x, y) = pullback(c.clone());
        dot(&x, &da) + dot(&y, &db)
    });
    let (value, pullback) = a.__ad_reverse_scale(k);
    matrix_rule(&ad.__ad_forward_scale(kd), &value, |c| {
        let (x, y) = pullback(c.clone());
        dot(&x, &da) + y * dk
    });
    let (value, pullback) = LinalgMul::__ad_reverse_mul(&a, k);
    matrix_rule(&LinalgMul::__ad_forward_mul(&ad, kd), &value, |c| {
        let (x, y) = pullback(c.clone());
        dot(&x, &da) + y * dk
    });
    let (value, pullback) = a.__ad_reverse_div(k);
    matrix_rule(&ad.__ad_forward_div(kd), &value, |c| {
        let (x, y) = pullback(c.clone());
        dot(&x, &da) + y * dk
    });
    // The transpose has the other shape.
    let (value, pullback) = a.__ad_reverse_transpose();
    let cotangent = random(&value, 12);
    close(
        dot(&cotangent, &tangent(&ad.__ad_forward_transpose())),
        dot(&pullback(cotangent).0, &da),
    );
}

#[test]
fn products_cross_and_inverse() {
    // 3×2 times 2×3, static shapes; dynamic ones of the same sizes.
    let a = random(&Matrix3x2::<f64>::zeros(), 1);
    let b = random(&Matrix2x3::<f64>::zeros(), 2);
    let (da, db) = (random(&a, 3), random(&b, 4));
    let (value, pullback) = LinalgMul::__ad_reverse_mul(&a, b);
    let y = LinalgMul::__ad_forward_mul(&seeded(&a, &da), seeded(&b, &db));
    matrix_rule(&y, &value, |c| {
        let (x, z) = pullback(*c);
        dot(&x, &da) + dot(&z, &db)
    });
    let (ad, bd) = (
        DMatrix::from_column_slice(3, 2, a.as_slice()),
        DMatrix::from_column_slice(2, 3, b.as_slice()),
    );
    let (dad, dbd) = (
        DMatrix::from_column_slice(3, 2, da.as_slice()),
        DMatrix::from_column_slice(2, 3, db.as_slice()),
    );
    let (value_d, pullback) = LinalgMul::__ad_reverse_mul(&ad, bd.clone());
    assert_eq!(value_d.as_slice(), value.as_slice());
    let y = LinalgMul::__ad_forward_mul(&seeded(&ad, &dad), seeded(&bd, &dbd));
    matrix_rule(&y, &value_d, |c| {
        let (x, z) = pullback(c.clone());
        dot(&x, &dad) + dot(&z, &dbd)
    });
    // A matrix times a vector.
    let v = DVector::from_vec(vec![0.3, -1.2]);
    let dv = DVector::from_vec(vec![0.5, 0.25]);
    let (value, pullback) = LinalgMul::__ad_reverse_mul(&ad, v.clone());
    let y = LinalgMul::__ad_forward_mul(&seeded(&ad, &dad), seeded(&v, &dv));
    matrix_rule(&y, &value, |c| {
        let (x, z) = pullback(c.clone());
        dot(&x, &dad) + dot(&z, &dv)
    });

    let (u, w) = (
        random(&Vector3::<f64>::zeros(), 5),
        random(&Vector3::<f64>::zeros(), 6),
    );
    let (du, dw) = (random(&u, 7), random(&w, 8));
    let (value, pullback) = u.__ad_reverse_cross(&w);
    let y = seeded(&u, &du).__ad_forward_cross(&seeded(&w, &dw));
    matrix_rule(&y, &value, |c| {
        let (x, z) = pullback(*c);
        dot(&x, &du) + dot(&z, &dw)
    });

    for m in [
        random(&DMatrix::<f64>::zeros(2, 2), 9) + DMatrix::identity(2, 2) * 2.0,
        random(&DMatrix::<f64>::zeros(3, 3), 10) + DMatrix::identity(3, 3) * 2.0,
        random(&DMatrix::<f64>::zeros(5, 5), 11) + DMatrix::identity(5, 5) * 2.0,
    ] {
        let dm = random(&m, 12);
        let (value, pullback) = m.__ad_reverse_try_inverse();
        let value = value.expect("invertible");
        let expected = m.clone().try_inverse().expect("invertible");
        assert!((&value - expected).norm() < 1e-12);
        let y = seeded(&m, &dm)
            .__ad_forward_try_inverse()
            .expect("invertible");
        matrix_rule(&y, &value, |c| dot(&pullback(Some(c.clone())).0, &dm));
    }
    let singular = Matrix3::new(1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 0.5, -1.0, 2.0);
    assert!(singular.__ad_forward_try_inverse().is_none());
}

/// The Cholesky rules through the factorization's own pullback: a perturbation of the
/// lower triangle (what the factorization reads) against the adjoint it gives back.
#[test]
fn cholesky_solve_factor_and_determinant() {
    let root = random(&DMatrix::<f64>::zeros(4, 4), 21);
    let a = &root * root.transpose() + DMatrix::identity(4, 4) * 4.0;
    let lower = |m: DMatrix<f64>| shaped(&m, |i, j| if i >= j { m[(i, j)] } else { 0.0 });
    let da = lower(random(&a, 22));
    let factor_at_duals = seeded(&a, &da)
        .__ad_forward_cholesky()
        .expect("positive definite");
    let factor = |a: &DMatrix<f64>| {
        let (factor, pullback) = a.__ad_reverse_cholesky();
        (factor.expect("positive definite"), pullback)
    };

    let b = random(&DMatrix::<f64>::zeros(4, 2), 23);
    let db = random(&b, 24);
    let (cholesky, pullback) = factor(&a);
    let (x, solve_pullback) = cholesky.__ad_reverse_solve(&b);
    let expected = a.clone().cholesky().expect("positive definite").solve(&b);
    assert!((&x - expected).norm() < 1e-12);
    let y = factor_at_duals.__ad_forward_solve(&seeded(&b, &db));
    matrix_rule(&y, &x, |c| {
        let (g, b_bar) = solve_pullback(c.clone());
        let (a_bar,) = pullback(Some(g));
        dot(&a_bar, &da) + dot(&b_bar, &db)
    });

    let (cholesky, pullback) = factor(&a);
    let (l, l_pullback) = cholesky.__ad_reverse_l();
    let expected = a.clone().cholesky().expect("positive definite").l();
    assert!((&l - expected).norm() < 1e-12);
    matrix_rule(&factor_at_duals.__ad_forward_l(), &l, |c| {
        let (g,) = l_pullback(c.clone());
        dot(&pullback(Some(g)).0, &da)
    });

    let (cholesky, pullback) = factor(&a);
    let (det, det_pullback) = cholesky.__ad_reverse_determinant();
    let at_duals = factor_at_duals.__ad_forward_determinant();
    assert!((det - a.determinant()).abs() < 1e-9 * det.abs());
    let (g,) = det_pullback(0.7);
    close(0.7 * at_duals.tangent, dot(&pullback(Some(g)).0, &da));

    let not_positive = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 1.0]);
    assert!(not_positive.__ad_forward_cholesky().is_none());
}

#[test]
fn parts_of_a_matrix() {
    let m = random(&DMatrix::<f64>::zeros(4, 3), 31);
    let dm = random(&m, 32);
    let at_duals = seeded(&m, &dm);

    let (column, pullback) = m.__ad_reverse_column(1);
    matrix_rule(&at_duals.__ad_forward_column(1), &column, |c| {
        dot(&pullback(c.clone()).0, &dm)
    });
    let (row, pullback) = m.__ad_reverse_row(2);
    matrix_rule(&at_duals.__ad_forward_row(2), &row, |c| {
        dot(&pullback(c.clone()).0, &dm)
    });
    let (columns, pullback) = m.__ad_reverse_columns(1, 2);
    matrix_rule(&at_duals.__ad_forward_columns(1, 2), &columns, |c| {
        dot(&pullback(c.clone()).0, &dm)
    });
    let (rows, pullback) = m.__ad_reverse_rows(1, 3);
    matrix_rule(&at_duals.__ad_forward_rows(1, 3), &rows, |c| {
        dot(&pullback(c.clone()).0, &dm)
    });
    assert_eq!(rows, m.rows(1, 3));
    assert_eq!(columns, m.columns(1, 2));
}

/// The constructors: the elements' cotangents go back in the order the elements came.
#[test]
fn constructors_give_each_element_its_cotangent() {
    let mut next = numbers(51);
    let elements: [f64; 6] = core::array::from_fn(|_| next());
    let tangents: [f64; 6] = core::array::from_fn(|_| next());
    let at_duals: [D; 6] = core::array::from_fn(|i| Dual::new(elements[i], tangents[i]));
    let along =
        |adjoints: &[f64]| -> f64 { adjoints.iter().zip(&tangents).map(|(a, t)| a * t).sum() };

    // `Matrix2x3::new(a, b, c, d, e, f)`: row by row.
    let (value, pullback) = Matrix2x3::<f64>::__ad_reverse_new_1(elements);
    assert_eq!(value, Matrix2x3::from_row_slice(&elements));
    let y = Matrix2x3::<D>::__ad_forward_new_1(at_duals);
    matrix_rule(&y, &value, |c| along(&pullback(*c).0));

    let (value, pullback) = DMatrix::<f64>::__ad_reverse_from_vec_3(2, 3, elements.to_vec());
    assert_eq!(value, DMatrix::from_vec(2, 3, elements.to_vec()));
    let y = DMatrix::<D>::__ad_forward_from_vec_3(2, 3, at_duals.to_vec());
    matrix_rule(&y, &value, |c| along(&pullback(c.clone()).2));

    let (value, pullback) = DMatrix::<f64>::__ad_reverse_from_row_slice_3(3, 2, &elements);
    assert_eq!(value, DMatrix::from_row_slice(3, 2, &elements));
    let y = DMatrix::<D>::__ad_forward_from_row_slice_3(3, 2, &at_duals);
    matrix_rule(&y, &value, |c| along(&pullback(c.clone()).2));

    let (value, pullback) = DVector::<f64>::__ad_reverse_from_column_slice_1(&elements);
    assert_eq!(value, DVector::from_column_slice(&elements));
    let y = DVector::<D>::__ad_forward_from_column_slice_1(&at_duals);
    matrix_rule(&y, &value, |c| along(&pullback(c.clone()).0));

    let (value, pullback) = DMatrix::<f64>::__ad_reverse_from_element_3(2, 2, elements[0]);
    assert_eq!(value, DMatrix::from_element(2, 2, elements[0]));
    let y = DMatrix::<D>::__ad_forward_from_element_3(2, 2, at_duals[0]);
    matrix_rule(&y, &value, |c| pullback(c.clone()).2 * tangents[0]);
}
