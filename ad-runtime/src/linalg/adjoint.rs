//! A matrix's adjoint: its zero, sums, shadows of its elements, seeds of `_jvp`.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix};

use super::kernels::{all_static, shaped};
use crate::__private::ir::{take_shaped, FlatAdjoint, ReverseLength, SlotAt, TakeWritten};
use crate::__private::{DualParts, Seed};
use crate::adjoint::{Adjoint, Diff, NoAdjoint, ValueOf};
use crate::{Dual, Scalar};

/// A matrix's adjoint is a matrix of its shape. A dynamically sized one starts empty (a
/// symbolic zero, as a `Vec`'s does) and takes the shape of what reaches it.
impl<S: Scalar, R: Dim, C: Dim> Diff for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Adjoint = OMatrix<S, R, C>;
    fn zero_like(&self) -> Self {
        shaped(self, |_, _| S::zero())
    }
}

/// Scaled element by element, then added as [`Adjoint::accumulate`] adds (shapes reached
/// only in part included).
impl<S: Scalar, R: Dim, C: Dim> crate::__private::ir::ScaledAdjoint<S> for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    fn accumulate_scaled(&mut self, factor: &S, mut unit: Self) {
        for part in unit.as_mut_slice() {
            *part = *factor * *part;
        }
        self.accumulate(unit);
    }

    fn scale(&mut self, factor: &S) {
        for part in self.as_mut_slice() {
            *part = *factor * *part;
        }
    }
}

impl<S: Scalar, R: Dim, C: Dim> Adjoint for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    fn zero() -> Self {
        let rows = R::from_usize(R::try_to_usize().unwrap_or(0));
        let columns = C::from_usize(C::try_to_usize().unwrap_or(0));
        OMatrix::from_fn_generic(rows, columns, |_, _| S::zero())
    }

    fn accumulate(&mut self, contribution: Self) {
        if contribution.is_empty() {
            return;
        }
        if self.is_empty() {
            *self = contribution;
            return;
        }
        if self.shape() != contribution.shape() {
            // One grew only as far as its elements were reached (`grow_to`).
            let rows = self.nrows().max(contribution.nrows());
            let columns = self.ncols().max(contribution.ncols());
            grow_to(self, rows, columns);
            for j in 0..contribution.ncols() {
                for i in 0..contribution.nrows() {
                    self[(i, j)] += contribution[(i, j)];
                }
            }
            return;
        }
        if all_static::<R, C, C>() {
            for j in 0..self.ncols() {
                for i in 0..self.nrows() {
                    self[(i, j)] += contribution[(i, j)];
                }
            }
            return;
        }
        for (adjoint, part) in self.as_mut_slice().iter_mut().zip(contribution.as_slice()) {
            *adjoint += *part;
        }
    }

    fn negate(mut self) -> Self {
        for adjoint in self.as_mut_slice() {
            *adjoint = -*adjoint;
        }
        self
    }

    fn same_shape(&self, other: &Self) -> bool {
        other.is_empty() || self.shape() == other.shape()
    }
}

impl<S: Scalar, R: Dim, C: Dim> ValueOf for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Value = Self;
    #[inline(always)]
    fn value_of(self) -> Self {
        self
    }
}

/// A matrix's adjoint as a callee gives or takes it flat (column-major).
impl<S: Scalar, R: Dim, C: Dim> FlatAdjoint<S> for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    fn flatten_into(&self, out: &mut Vec<S>) {
        out.extend_from_slice(self.as_slice());
    }
    fn add_flat(&mut self, flat: &mut dyn Iterator<Item = S>) {
        for adjoint in self.as_mut_slice() {
            match flat.next() {
                Some(part) => *adjoint += part,
                None => crate::__private::shapes_differ("the adjoint's floats and the value's"),
            }
        }
    }
}

/// What a method leaves in a receiver lent mutably, its cotangent flat (no method of a matrix
/// here writes its receiver, so none reads it).
impl<S: Scalar, R: Dim, C: Dim> TakeWritten<Vec<S>> for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    fn take_written(&mut self, shaped: Self) -> Vec<S> {
        take_shaped(self, shaped)
    }
}

/// `len` and `is_empty`, data.
impl<S: Scalar, R: Dim, C: Dim> ReverseLength for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    fn __ad_reverse_len(&self) -> (usize, fn(NoAdjoint) -> ((),)) {
        (self.len(), |_| ((),))
    }
    fn __ad_reverse_is_empty(&self) -> (bool, fn(NoAdjoint) -> ((),)) {
        (self.is_empty(), |_| ((),))
    }
    fn __ad_forward_len(&self) -> usize {
        self.len()
    }
    fn __ad_forward_is_empty(&self) -> bool {
        self.is_empty()
    }
}

/// A dynamically sized adjoint that starts empty (a symbolic zero, as a `Vec`'s) grows with
/// zeros to where its elements are reached, and to the shape of what is added to it.
#[cold]
#[inline(never)]
fn grow_to<S: Scalar, R: Dim, C: Dim>(adjoint: &mut OMatrix<S, R, C>, rows: usize, columns: usize)
where
    DefaultAllocator: Allocator<R, C>,
{
    let rows = R::try_to_usize().unwrap_or(rows.max(adjoint.nrows()));
    let columns = C::try_to_usize().unwrap_or(columns.max(adjoint.ncols()));
    let grown =
        OMatrix::from_fn_generic(R::from_usize(rows), C::from_usize(columns), |i, j| {
            match i < adjoint.nrows() && j < adjoint.ncols() {
                true => adjoint[(i, j)],
                false => S::zero(),
            }
        });
    *adjoint = grown;
}

/// The adjoint of `m[i]` (column-major, as nalgebra indexes) is `dm[i]`.
impl<S: Scalar, R: Dim, C: Dim> SlotAt<usize> for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Element = S;
    #[inline(always)]
    fn slot_at(&mut self, index: usize) -> &mut S {
        if index >= self.len() {
            // A symbolic zero: of a vector, grown along its length; of a matrix both of whose
            // dimensions are dynamic, a position says no shape to grow to.
            match (R::try_to_usize(), C::try_to_usize()) {
                (_, Some(1)) => grow_to(self, index + 1, 1),
                (Some(1), _) => grow_to(self, 1, index + 1),
                _ => panic!(
                    "reverse mode reads an element of a dynamically sized matrix by its \
                     position before the matrix's shape is known: index it by \
                     `(row, column)`"
                ),
            }
        }
        &mut self[index]
    }
}

/// The adjoint of `m[(i, j)]` is `dm[(i, j)]`.
impl<S: Scalar, R: Dim, C: Dim> SlotAt<(usize, usize)> for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Element = S;
    #[inline(always)]
    fn slot_at(&mut self, (i, j): (usize, usize)) -> &mut S {
        if i >= self.nrows() || j >= self.ncols() {
            grow_to(self, i + 1, j + 1);
        }
        &mut self[(i, j)]
    }
}

/// A `_jvp` function's vector or matrix parameter and its tangent, paired into dual numbers.
impl<S: Scalar, R: Dim, C: Dim> Seed for OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Dual = OMatrix<Dual<S>, R, C>;
    fn seed(self, tangent: Self) -> Self::Dual {
        (&self).seed(&tangent)
    }
    fn constant(self) -> Self::Dual {
        (&self).constant()
    }
}

impl<S: Scalar, R: Dim, C: Dim> Seed for &OMatrix<S, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Dual = OMatrix<Dual<S>, R, C>;
    fn seed(self, tangent: Self) -> Self::Dual {
        assert_eq!(
            self.shape(),
            tangent.shape(),
            "a tangent must have the shape of its value"
        );
        let (rows, columns) = self.shape_generic();
        OMatrix::from_fn_generic(rows, columns, |i, j| {
            Dual::new(self[(i, j)], tangent[(i, j)])
        })
    }
    fn constant(self) -> Self::Dual {
        let (rows, columns) = self.shape_generic();
        OMatrix::from_fn_generic(rows, columns, |i, j| Dual::constant(self[(i, j)]))
    }
}

/// A `_jvp` function's vector or matrix result, split into its value and its tangent.
impl<S: Scalar, R: Dim, C: Dim> DualParts for OMatrix<Dual<S>, R, C>
where
    DefaultAllocator: Allocator<R, C>,
{
    type Primal = OMatrix<S, R, C>;
    type Tangent = OMatrix<S, R, C>;
    fn split(self) -> (OMatrix<S, R, C>, OMatrix<S, R, C>) {
        let (rows, columns) = self.shape_generic();
        let value = OMatrix::from_fn_generic(rows, columns, |i, j| self[(i, j)].value);
        let tangent = OMatrix::from_fn_generic(rows, columns, |i, j| self[(i, j)].tangent);
        (value, tangent)
    }
}
