//! The methods reverse mode's derivative code calls on a linear-algebra value (a nalgebra
//! vector or matrix) whose type only rustc sees: `x.dot(&y)` in the body becomes
//! `(&x).__ad_reverse_dot(&y)`, which returns the value and the pullback to the receiver's and
//! the arguments' adjoints, and `__ad_forward_dot` the value alone (a checkpointed region's
//! first run). The traits are declared here whatever the features, since the derivative code
//! imports them; their impls, each rule's value and transpose side by side, are in
//! `crate::linalg` (feature `nalgebra`).
//!
//! A method's arguments come as the body passes them, by reference (`x.dot(&y)`); an
//! operator's right operand by value (`ir::value_of`). The pullbacks own what they keep: they
//! outlive the borrows the body lent.

// Each signature is a value and its pullback, whose type says what it gives back.
#![allow(clippy::type_complexity)]

use crate::adjoint::NoAdjoint;

/// Every trait here, for the derivative code to import at once (`use ..::linalg::traits::*`).
pub mod traits {
    pub use super::{
        LinalgCholesky as _, LinalgConstruct as _, LinalgCross as _, LinalgFactor as _,
        LinalgMethods as _, LinalgMul as _, LinalgSolve as _, LinalgSquare as _,
        ReverseUnwrap as _,
    };
}

/// The methods of every vector and matrix.
pub trait LinalgMethods<S>: Sized {
    /// The transposed type (`OMatrix<S, C, R>`).
    type Transposed;

    fn __ad_reverse_dot(&self, rhs: &Self) -> (S, impl FnOnce(S) -> (Self, Self) + use<Self, S>);
    fn __ad_forward_dot(&self, rhs: &Self) -> S;

    fn __ad_reverse_norm_squared(&self) -> (S, impl FnOnce(S) -> (Self,) + use<Self, S>);
    fn __ad_forward_norm_squared(&self) -> S;

    fn __ad_reverse_norm(&self) -> (S, impl FnOnce(S) -> (Self,) + use<Self, S>);
    fn __ad_forward_norm(&self) -> S;

    /// nalgebra's other names of `norm` and `norm_squared`.
    fn __ad_reverse_magnitude(&self) -> (S, impl FnOnce(S) -> (Self,) + use<Self, S>);
    fn __ad_forward_magnitude(&self) -> S;
    fn __ad_reverse_magnitude_squared(&self) -> (S, impl FnOnce(S) -> (Self,) + use<Self, S>);
    fn __ad_forward_magnitude_squared(&self) -> S;

    fn __ad_reverse_sum(&self) -> (S, impl FnOnce(S) -> (Self,) + use<Self, S>);
    fn __ad_forward_sum(&self) -> S;

    fn __ad_reverse_transpose(
        &self,
    ) -> (
        Self::Transposed,
        impl FnOnce(Self::Transposed) -> (Self,) + use<Self, S>,
    );
    fn __ad_forward_transpose(&self) -> Self::Transposed;

    fn __ad_reverse_component_mul(
        &self,
        rhs: &Self,
    ) -> (Self, impl FnOnce(Self) -> (Self, Self) + use<Self, S>);
    fn __ad_forward_component_mul(&self, rhs: &Self) -> Self;

    fn __ad_reverse_component_div(
        &self,
        rhs: &Self,
    ) -> (Self, impl FnOnce(Self) -> (Self, Self) + use<Self, S>);
    fn __ad_forward_component_div(&self, rhs: &Self) -> Self;

    fn __ad_reverse_scale(&self, k: S) -> (Self, impl FnOnce(Self) -> (Self, S) + use<Self, S>);
    fn __ad_forward_scale(&self, k: S) -> Self;

    fn __ad_reverse_add(
        &self,
        rhs: Self,
    ) -> (Self, impl FnOnce(Self) -> (Self, Self) + use<Self, S>);
    fn __ad_forward_add(&self, rhs: Self) -> Self;

    fn __ad_reverse_sub(
        &self,
        rhs: Self,
    ) -> (Self, impl FnOnce(Self) -> (Self, Self) + use<Self, S>);
    fn __ad_forward_sub(&self, rhs: Self) -> Self;

    fn __ad_reverse_neg(&self) -> (Self, impl FnOnce(Self) -> (Self,) + use<Self, S>);
    fn __ad_forward_neg(&self) -> Self;

    /// `k * m` for a float `k`, called on `m`.
    fn __ad_reverse_rmul(&self, k: S) -> (Self, impl FnOnce(Self) -> (Self, S) + use<Self, S>);
    fn __ad_forward_rmul(&self, k: S) -> Self;

    // Data: the shape.
    fn __ad_reverse_nrows(&self) -> (usize, fn(NoAdjoint) -> ((),));
    fn __ad_forward_nrows(&self) -> usize;
    fn __ad_reverse_ncols(&self) -> (usize, fn(NoAdjoint) -> ((),));
    fn __ad_forward_ncols(&self) -> usize;
    fn __ad_reverse_shape(&self) -> ((usize, usize), fn(NoAdjoint) -> ((),));
    fn __ad_forward_shape(&self) -> (usize, usize);

    /// Copies of parts: `column(j)`, `row(i)`, `columns(j, n)`, `rows(i, n)` (nalgebra's
    /// views, read), and of the whole (`into_owned`, `clone_owned`).
    type Column;
    type Row;
    type Columns;
    type Rows;
    fn __ad_reverse_column(
        &self,
        j: usize,
    ) -> (
        Self::Column,
        impl FnOnce(Self::Column) -> (Self, ()) + use<Self, S>,
    );
    fn __ad_forward_column(&self, j: usize) -> Self::Column;
    fn __ad_reverse_row(
        &self,
        i: usize,
    ) -> (
        Self::Row,
        impl FnOnce(Self::Row) -> (Self, ()) + use<Self, S>,
    );
    fn __ad_forward_row(&self, i: usize) -> Self::Row;
    fn __ad_reverse_columns(
        &self,
        j: usize,
        n: usize,
    ) -> (
        Self::Columns,
        impl FnOnce(Self::Columns) -> (Self, (), ()) + use<Self, S>,
    );
    fn __ad_forward_columns(&self, j: usize, n: usize) -> Self::Columns;
    fn __ad_reverse_rows(
        &self,
        i: usize,
        n: usize,
    ) -> (
        Self::Rows,
        impl FnOnce(Self::Rows) -> (Self, (), ()) + use<Self, S>,
    );
    fn __ad_forward_rows(&self, i: usize, n: usize) -> Self::Rows;
    fn __ad_reverse_into_owned(&self) -> (Self, impl FnOnce(Self) -> (Self,) + use<Self, S>);
    fn __ad_forward_into_owned(&self) -> Self;
    fn __ad_reverse_clone_owned(&self) -> (Self, impl FnOnce(Self) -> (Self,) + use<Self, S>);
    fn __ad_forward_clone_owned(&self) -> Self;

    /// The elements in column-major order, lent (`helper(x.as_slice())`); the cotangent of
    /// the slice comes back as a `Vec`, grown only as far as it was reached.
    fn __ad_reverse_as_slice(&self) -> (&[S], impl FnOnce(Vec<S>) -> (Self,) + use<Self, S>);
    fn __ad_forward_as_slice(&self) -> &[S];

    /// `m / k` for a float `k`.
    fn __ad_reverse_div(&self, k: S) -> (Self, impl FnOnce(Self) -> (Self, S) + use<Self, S>);
    fn __ad_forward_div(&self, k: S) -> Self;
}

/// `*` with a float or with a matrix of matching shape on the right (`Rhs`).
pub trait LinalgMul<Rhs, S>: Sized {
    /// The product's type.
    type Output;
    /// The right operand's adjoint.
    type RhsAdjoint;

    fn __ad_reverse_mul(
        &self,
        rhs: Rhs,
    ) -> (
        Self::Output,
        impl FnOnce(Self::Output) -> (Self, Self::RhsAdjoint) + use<Self, Rhs, S>,
    );
    fn __ad_forward_mul(&self, rhs: Rhs) -> Self::Output;
}

/// The methods of square matrices.
pub trait LinalgSquare<S>: Sized {
    fn __ad_reverse_determinant(&self) -> (S, impl FnOnce(S) -> (Self,) + use<Self, S>);
    fn __ad_forward_determinant(&self) -> S;

    fn __ad_reverse_trace(&self) -> (S, impl FnOnce(S) -> (Self,) + use<Self, S>);
    fn __ad_forward_trace(&self) -> S;

    fn __ad_reverse_try_inverse(
        &self,
    ) -> (
        Option<Self>,
        impl FnOnce(Option<Self>) -> (Self,) + use<Self, S>,
    );
    fn __ad_forward_try_inverse(&self) -> Option<Self>;
}

/// `cross` of 3-vectors.
pub trait LinalgCross<S>: Sized {
    fn __ad_reverse_cross(
        &self,
        rhs: &Self,
    ) -> (Self, impl FnOnce(Self) -> (Self, Self) + use<Self, S>);
    fn __ad_forward_cross(&self, rhs: &Self) -> Self;
}

/// `unwrap` of an `Option` a method of a value whose type the body does not show returned
/// (`m.try_inverse().unwrap()`): the content, and its cotangent back as `Some`.
pub trait ReverseUnwrap<T: crate::adjoint::Diff> {
    fn __ad_reverse_unwrap(
        &self,
    ) -> (
        T,
        impl FnOnce(T::Adjoint) -> (Option<T::Adjoint>,) + use<T, Self>,
    );
    fn __ad_forward_unwrap(&self) -> T;
}

impl<T: crate::adjoint::Diff + Clone> ReverseUnwrap<T> for Option<T> {
    #[track_caller]
    fn __ad_reverse_unwrap(
        &self,
    ) -> (T, impl FnOnce(T::Adjoint) -> (Option<T::Adjoint>,) + use<T>) {
        (self.__ad_forward_unwrap(), |cotangent| (Some(cotangent),))
    }
    #[track_caller]
    fn __ad_forward_unwrap(&self) -> T {
        match self {
            Some(value) => value.clone(),
            None => panic!("called `Option::unwrap()` on a `None` value"),
        }
    }
}

/// The constructors of vectors and matrices, named by the number of arguments they are called
/// with, since nalgebra's take different numbers for different types (`DVector::from_vec(v)`,
/// `DMatrix::from_vec(r, c, v)`). `new`'s floats come as one array (`Vector3::new(x, y, z)` is
/// `new_1([x, y, z])`), row by row as nalgebra takes them. A data argument's adjoint is `()`.
pub trait LinalgConstruct<S>: Sized {
    fn __ad_reverse_new_1<const N: usize>(
        elements: [S; N],
    ) -> (Self, impl FnOnce(Self) -> ([S; N],) + use<Self, S, N>);
    fn __ad_forward_new_1<const N: usize>(elements: [S; N]) -> Self;

    fn __ad_reverse_from_vec_1(
        elements: Vec<S>,
    ) -> (Self, impl FnOnce(Self) -> (Vec<S>,) + use<Self, S>);
    fn __ad_forward_from_vec_1(elements: Vec<S>) -> Self;
    fn __ad_reverse_from_vec_3(
        rows: usize,
        columns: usize,
        elements: Vec<S>,
    ) -> (Self, impl FnOnce(Self) -> ((), (), Vec<S>) + use<Self, S>);
    fn __ad_forward_from_vec_3(rows: usize, columns: usize, elements: Vec<S>) -> Self;

    fn __ad_reverse_from_column_slice_1(
        elements: &[S],
    ) -> (Self, impl FnOnce(Self) -> (Vec<S>,) + use<Self, S>);
    fn __ad_forward_from_column_slice_1(elements: &[S]) -> Self;
    fn __ad_reverse_from_column_slice_3(
        rows: usize,
        columns: usize,
        elements: &[S],
    ) -> (Self, impl FnOnce(Self) -> ((), (), Vec<S>) + use<Self, S>);
    fn __ad_forward_from_column_slice_3(rows: usize, columns: usize, elements: &[S]) -> Self;

    fn __ad_reverse_from_row_slice_1(
        elements: &[S],
    ) -> (Self, impl FnOnce(Self) -> (Vec<S>,) + use<Self, S>);
    fn __ad_forward_from_row_slice_1(elements: &[S]) -> Self;
    fn __ad_reverse_from_row_slice_3(
        rows: usize,
        columns: usize,
        elements: &[S],
    ) -> (Self, impl FnOnce(Self) -> ((), (), Vec<S>) + use<Self, S>);
    fn __ad_forward_from_row_slice_3(rows: usize, columns: usize, elements: &[S]) -> Self;

    fn __ad_reverse_from_element_1(element: S) -> (Self, impl FnOnce(Self) -> (S,) + use<Self, S>);
    fn __ad_forward_from_element_1(element: S) -> Self;
    fn __ad_reverse_from_element_2(
        dimension: usize,
        element: S,
    ) -> (Self, impl FnOnce(Self) -> ((), S) + use<Self, S>);
    fn __ad_forward_from_element_2(dimension: usize, element: S) -> Self;
    fn __ad_reverse_from_element_3(
        rows: usize,
        columns: usize,
        element: S,
    ) -> (Self, impl FnOnce(Self) -> ((), (), S) + use<Self, S>);
    fn __ad_forward_from_element_3(rows: usize, columns: usize, element: S) -> Self;

    // Constants, their pullbacks to the data they are given.
    fn __ad_reverse_zeros_0() -> (Self, fn(Self) -> ());
    fn __ad_forward_zeros_0() -> Self;
    fn __ad_reverse_zeros_1(dimension: usize) -> (Self, fn(Self) -> ((),));
    fn __ad_forward_zeros_1(dimension: usize) -> Self;
    fn __ad_reverse_zeros_2(rows: usize, columns: usize) -> (Self, fn(Self) -> ((), ()));
    fn __ad_forward_zeros_2(rows: usize, columns: usize) -> Self;
    fn __ad_reverse_identity_0() -> (Self, fn(Self) -> ());
    fn __ad_forward_identity_0() -> Self;
    fn __ad_reverse_identity_2(rows: usize, columns: usize) -> (Self, fn(Self) -> ((), ()));
    fn __ad_forward_identity_2(rows: usize, columns: usize) -> Self;
}

/// `cholesky` of a square matrix: the factorization (`crate::linalg::Cholesky`), `None` for a
/// matrix that is not positive definite. Its cotangent is the adjoint of the symmetric matrix
/// the lower triangle defines.
pub trait LinalgCholesky<S>: Sized {
    type Factor;
    fn __ad_reverse_cholesky(
        &self,
    ) -> (
        Option<Self::Factor>,
        impl FnOnce(Option<Self>) -> (Self,) + use<Self, S>,
    );
    fn __ad_forward_cholesky(&self) -> Option<Self::Factor>;
}

/// The methods of a Cholesky factorization: `l` and `determinant`; its adjoint is the
/// factorized matrix's.
pub trait LinalgFactor<S>: crate::adjoint::Diff + Sized {
    type Lower;
    fn __ad_reverse_l(
        &self,
    ) -> (
        Self::Lower,
        impl FnOnce(Self::Lower) -> (Self::Adjoint,) + use<Self, S>,
    );
    fn __ad_forward_l(&self) -> Self::Lower;
    fn __ad_reverse_determinant(&self) -> (S, impl FnOnce(S) -> (Self::Adjoint,) + use<Self, S>);
    fn __ad_forward_determinant(&self) -> S;
}

/// `solve` of a factorization, for a vector or a matrix `B` of right-hand sides.
pub trait LinalgSolve<B>: crate::adjoint::Diff + Sized {
    fn __ad_reverse_solve(&self, b: &B)
        -> (B, impl FnOnce(B) -> (Self::Adjoint, B) + use<Self, B>);
    fn __ad_forward_solve(&self, b: &B) -> B;
}
