//! The constructors of vectors and matrices.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix};

use super::kernels::shaped;
use crate::__private::linalg::LinalgConstruct;
use crate::Scalar;

/// The shape of a matrix of `length` elements, from its type's static dimensions.
fn shape_of_length<R: Dim, C: Dim>(length: usize) -> (R, C) {
    let (rows, columns) = match (R::try_to_usize(), C::try_to_usize()) {
        (Some(rows), Some(columns)) => (rows, columns),
        (Some(rows), None) => (rows, length / rows.max(1)),
        (None, Some(columns)) => (length / columns.max(1), columns),
        (None, None) => panic!("a dynamically sized matrix needs its number of rows and columns"),
    };
    assert_eq!(
        rows * columns,
        length,
        "the number of elements does not match the matrix's shape"
    );
    (R::from_usize(rows), C::from_usize(columns))
}

/// The shape a constructor given one dimension builds (`DVector::zeros(n)`,
/// `MatrixXx3::from_element(n, x)`, `Matrix3xX::zeros(n)`): `n` is the dynamic dimension, as
/// nalgebra takes it.
fn shape_of_dimension<R: Dim, C: Dim>(dimension: usize) -> (R, C) {
    let (rows, columns) = match (R::try_to_usize(), C::try_to_usize()) {
        (Some(rows), None) => (rows, dimension),
        (None, Some(columns)) => (dimension, columns),
        (Some(rows), Some(columns)) => (rows, columns),
        (None, None) => panic!("a dynamically sized matrix needs its number of rows and columns"),
    };
    (R::from_usize(rows), C::from_usize(columns))
}

/// `m`'s elements in column-major order (nalgebra's storage order).
fn column_major<S: Scalar, R: Dim, C: Dim>(m: &OMatrix<S, R, C>) -> Vec<S>
where
    DefaultAllocator: Allocator<R, C>,
{
    m.as_slice().to_vec()
}

/// `m`'s elements row by row.
fn row_major<S: Scalar, R: Dim, C: Dim>(m: &OMatrix<S, R, C>) -> Vec<S>
where
    DefaultAllocator: Allocator<R, C>,
{
    (0..m.nrows())
        .flat_map(|i| (0..m.ncols()).map(move |j| (i, j)))
        .map(|index| m[index])
        .collect()
}

fn from_row_major<S: Scalar, R: Dim, C: Dim>(
    rows: R,
    columns: C,
    elements: &[S],
) -> OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    let width = columns.value();
    assert_eq!(
        rows.value() * width,
        elements.len(),
        "the number of elements does not match the matrix's shape"
    );
    OMatrix::from_fn_generic(rows, columns, |i, j| elements[i * width + j])
}

fn from_column_major<S: Scalar, R: Dim, C: Dim>(
    rows: R,
    columns: C,
    elements: &[S],
) -> OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    let height = rows.value();
    assert_eq!(
        height * columns.value(),
        elements.len(),
        "the number of elements does not match the matrix's shape"
    );
    OMatrix::from_fn_generic(rows, columns, |i, j| elements[j * height + i])
}

fn sum_of<S: Scalar, R: Dim, C: Dim>(m: &OMatrix<S, R, C>) -> S
where
    DefaultAllocator: Allocator<R, C>,
{
    m.as_slice().iter().fold(S::zero(), |sum, x| sum + *x)
}

// Each constructor's pullback gives the cotangent's elements back in the order they came.
impl<S: Scalar, R: Dim, C: Dim> LinalgConstruct<S> for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    fn __ad_reverse_new_1<const N: usize>(
        elements: [S; N],
    ) -> (Self, impl FnOnce(Self) -> ([S; N],) + use<S, R, C, N>) {
        (Self::__ad_forward_new_1(elements), |c: Self| {
            let elements = row_major(&c);
            (core::array::from_fn(|i| elements[i]),)
        })
    }
    fn __ad_forward_new_1<const N: usize>(elements: [S; N]) -> Self {
        let (rows, columns) = shape_of_length::<R, C>(N);
        from_row_major(rows, columns, &elements)
    }

    fn __ad_reverse_from_vec_1(
        elements: Vec<S>,
    ) -> (Self, impl FnOnce(Self) -> (Vec<S>,) + use<S, R, C>) {
        (Self::__ad_forward_from_vec_1(elements), |c: Self| {
            (column_major(&c),)
        })
    }
    fn __ad_forward_from_vec_1(elements: Vec<S>) -> Self {
        let (rows, columns) = shape_of_length::<R, C>(elements.len());
        from_column_major(rows, columns, &elements)
    }
    fn __ad_reverse_from_vec_3(
        rows: usize,
        columns: usize,
        elements: Vec<S>,
    ) -> (Self, impl FnOnce(Self) -> ((), (), Vec<S>) + use<S, R, C>) {
        (
            Self::__ad_forward_from_vec_3(rows, columns, elements),
            |c: Self| ((), (), column_major(&c)),
        )
    }
    fn __ad_forward_from_vec_3(rows: usize, columns: usize, elements: Vec<S>) -> Self {
        from_column_major(R::from_usize(rows), C::from_usize(columns), &elements)
    }

    fn __ad_reverse_from_column_slice_1(
        elements: &[S],
    ) -> (Self, impl FnOnce(Self) -> (Vec<S>,) + use<S, R, C>) {
        (
            Self::__ad_forward_from_column_slice_1(elements),
            |c: Self| (column_major(&c),),
        )
    }
    fn __ad_forward_from_column_slice_1(elements: &[S]) -> Self {
        let (rows, columns) = shape_of_length::<R, C>(elements.len());
        from_column_major(rows, columns, elements)
    }
    fn __ad_reverse_from_column_slice_3(
        rows: usize,
        columns: usize,
        elements: &[S],
    ) -> (Self, impl FnOnce(Self) -> ((), (), Vec<S>) + use<S, R, C>) {
        let value = Self::__ad_forward_from_column_slice_3(rows, columns, elements);
        (value, |c: Self| ((), (), column_major(&c)))
    }
    fn __ad_forward_from_column_slice_3(rows: usize, columns: usize, elements: &[S]) -> Self {
        from_column_major(R::from_usize(rows), C::from_usize(columns), elements)
    }

    fn __ad_reverse_from_row_slice_1(
        elements: &[S],
    ) -> (Self, impl FnOnce(Self) -> (Vec<S>,) + use<S, R, C>) {
        (Self::__ad_forward_from_row_slice_1(elements), |c: Self| {
            (row_major(&c),)
        })
    }
    fn __ad_forward_from_row_slice_1(elements: &[S]) -> Self {
        let (rows, columns) = shape_of_length::<R, C>(elements.len());
        from_row_major(rows, columns, elements)
    }
    fn __ad_reverse_from_row_slice_3(
        rows: usize,
        columns: usize,
        elements: &[S],
    ) -> (Self, impl FnOnce(Self) -> ((), (), Vec<S>) + use<S, R, C>) {
        let value = Self::__ad_forward_from_row_slice_3(rows, columns, elements);
        (value, |c: Self| ((), (), row_major(&c)))
    }
    fn __ad_forward_from_row_slice_3(rows: usize, columns: usize, elements: &[S]) -> Self {
        from_row_major(R::from_usize(rows), C::from_usize(columns), elements)
    }

    fn __ad_reverse_from_element_1(element: S) -> (Self, impl FnOnce(Self) -> (S,) + use<S, R, C>) {
        (Self::__ad_forward_from_element_1(element), |c: Self| {
            (sum_of(&c),)
        })
    }
    fn __ad_forward_from_element_1(element: S) -> Self {
        let rows = R::try_to_usize().unwrap_or(0);
        let columns = C::try_to_usize().unwrap_or(0);
        let (rows, columns) = shape_of_length::<R, C>(rows * columns);
        OMatrix::from_fn_generic(rows, columns, |_, _| element)
    }
    fn __ad_reverse_from_element_2(
        dimension: usize,
        element: S,
    ) -> (Self, impl FnOnce(Self) -> ((), S) + use<S, R, C>) {
        (
            Self::__ad_forward_from_element_2(dimension, element),
            |c: Self| ((), sum_of(&c)),
        )
    }
    fn __ad_forward_from_element_2(dimension: usize, element: S) -> Self {
        let (rows, columns) = shape_of_dimension::<R, C>(dimension);
        OMatrix::from_fn_generic(rows, columns, |_, _| element)
    }
    fn __ad_reverse_from_element_3(
        rows: usize,
        columns: usize,
        element: S,
    ) -> (Self, impl FnOnce(Self) -> ((), (), S) + use<S, R, C>) {
        let value = Self::__ad_forward_from_element_3(rows, columns, element);
        (value, |c: Self| ((), (), sum_of(&c)))
    }
    fn __ad_forward_from_element_3(rows: usize, columns: usize, element: S) -> Self {
        OMatrix::from_fn_generic(R::from_usize(rows), C::from_usize(columns), |_, _| element)
    }

    fn __ad_reverse_zeros_0() -> (Self, fn(Self) -> ()) {
        (Self::__ad_forward_zeros_0(), |_| ())
    }
    fn __ad_reverse_zeros_1(length: usize) -> (Self, fn(Self) -> ((),)) {
        (Self::__ad_forward_zeros_1(length), |_| ((),))
    }
    fn __ad_reverse_zeros_2(rows: usize, columns: usize) -> (Self, fn(Self) -> ((), ())) {
        (Self::__ad_forward_zeros_2(rows, columns), |_| ((), ()))
    }
    fn __ad_reverse_identity_0() -> (Self, fn(Self) -> ()) {
        (Self::__ad_forward_identity_0(), |_| ())
    }
    fn __ad_reverse_identity_2(rows: usize, columns: usize) -> (Self, fn(Self) -> ((), ())) {
        (Self::__ad_forward_identity_2(rows, columns), |_| ((), ()))
    }
    fn __ad_forward_zeros_0() -> Self {
        Self::__ad_forward_from_element_1(S::zero())
    }
    fn __ad_forward_zeros_1(length: usize) -> Self {
        Self::__ad_forward_from_element_2(length, S::zero())
    }
    fn __ad_forward_zeros_2(rows: usize, columns: usize) -> Self {
        Self::__ad_forward_from_element_3(rows, columns, S::zero())
    }
    fn __ad_forward_identity_0() -> Self {
        let ones = Self::__ad_forward_zeros_0();
        shaped(&ones, |i, j| if i == j { S::one() } else { S::zero() })
    }
    fn __ad_forward_identity_2(rows: usize, columns: usize) -> Self {
        let ones = Self::__ad_forward_zeros_2(rows, columns);
        shaped(&ones, |i, j| if i == j { S::one() } else { S::zero() })
    }
}
