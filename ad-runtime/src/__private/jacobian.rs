//! What the generated Jacobian and Hessian helpers (`f_jacfwd`, `f_jacrev`, `f_hessian`) run:
//! the differentiable arguments seeded with unit directions `CHUNK` at a time (vector forward
//! mode), and the results taken apart into rows and columns. The inputs are the floats of the
//! differentiable parameters flattened in declared order; so are the outputs of a container
//! result.

use crate::{DualVec, Scalar};

/// How many directions one pass of the vector forward mode carries.
pub const CHUNK: usize = 8;

/// A differentiable argument (a float, a slice, `Vec` or array of floats, or a reference to
/// one) over `DualVec<S, N>`: made once with zero tangents, then seeded in place for each
/// pass, so that a pass neither allocates nor copies the values again. In the pass that
/// starts at input `start`, its float number `k` (counted over all arguments from `offset`)
/// has the unit tangent `k - start` when that is below `N`.
pub trait Directions<S: Scalar> {
    /// The argument over `DualVec<S, N>`: `Vec<DualVec<S, N>>` for a slice.
    type Seeded<const N: usize>;
    /// How many floats it holds.
    fn count(&self) -> usize;
    /// With every tangent zero: before the first pass, and a `#[no_grad]` float parameter.
    fn constant<const N: usize>(&self) -> Self::Seeded<N>;
    /// Seeds `seeded` for the pass that starts at input `start`, the passes going up by `N`
    /// from 0: the previous pass's unit tangents are cleared and this pass's set. `offset` is
    /// the first float's input number, and is advanced past it.
    fn reseed<const N: usize>(
        &self,
        seeded: &mut Self::Seeded<N>,
        start: usize,
        offset: &mut usize,
    );
    /// [`Directions::reseed`] of a slice of them, which floats do without visiting each.
    fn reseed_slice<const N: usize>(
        slice: &[Self],
        seeded: &mut [Self::Seeded<N>],
        start: usize,
        offset: &mut usize,
    ) where
        Self: Sized,
    {
        for (x, seeded) in slice.iter().zip(seeded) {
            x.reseed(seeded, start, offset);
        }
    }
}

/// Clears the unit tangents of the pass before `start` and sets those of the pass at `start`
/// in `seeded`, floats `first..first + seeded.len()` of the inputs.
#[inline]
fn reseed_floats<S: Scalar, const N: usize>(
    seeded: &mut [DualVec<S, N>],
    start: usize,
    first: usize,
) {
    let mut set = |window: usize, unit: S| {
        let from = window.max(first);
        let to = (window + N).min(first + seeded.len());
        for input in from..to {
            seeded[input - first].tangents[input - window] = unit;
        }
    };
    if let Some(previous) = start.checked_sub(N) {
        set(previous, S::zero());
    }
    set(start, S::one());
}

/// One impl per float type, not a blanket impl over `Scalar`s, which would overlap with the
/// impl for references.
macro_rules! float_directions {
    ($($float:ident)*) => {$(
        impl Directions<$float> for $float {
            type Seeded<const N: usize> = DualVec<$float, N>;
            #[inline]
            fn count(&self) -> usize {
                1
            }
            #[inline]
            fn constant<const N: usize>(&self) -> DualVec<$float, N> {
                DualVec::constant(*self)
            }
            #[inline]
            fn reseed<const N: usize>(&self, seeded: &mut DualVec<$float, N>, start: usize, offset: &mut usize) {
                reseed_floats(::core::slice::from_mut(seeded), start, *offset);
                *offset += 1;
            }
            #[inline]
            fn reseed_slice<const N: usize>(
                slice: &[$float],
                seeded: &mut [DualVec<$float, N>],
                start: usize,
                offset: &mut usize,
            ) {
                reseed_floats(seeded, start, *offset);
                *offset += slice.len();
            }
        }

    )*};
}

float_directions!(f64 f32);

/// Containers of what has directions, nested as deep as they are (`&[[f64; 2]]`, the
/// `#[no_grad]` rows of a data set).
impl<S: Scalar, T: Directions<S>> Directions<S> for [T] {
    type Seeded<const N: usize> = Vec<T::Seeded<N>>;
    fn count(&self) -> usize {
        self.iter().map(Directions::count).sum()
    }
    fn constant<const N: usize>(&self) -> Self::Seeded<N> {
        self.iter().map(Directions::constant).collect()
    }
    fn reseed<const N: usize>(
        &self,
        seeded: &mut Self::Seeded<N>,
        start: usize,
        offset: &mut usize,
    ) {
        T::reseed_slice(self, seeded, start, offset);
    }
}

impl<S: Scalar, T: Directions<S>> Directions<S> for Vec<T> {
    type Seeded<const N: usize> = Vec<T::Seeded<N>>;
    fn count(&self) -> usize {
        self.as_slice().count()
    }
    fn constant<const N: usize>(&self) -> Self::Seeded<N> {
        self.as_slice().constant()
    }
    fn reseed<const N: usize>(
        &self,
        seeded: &mut Self::Seeded<N>,
        start: usize,
        offset: &mut usize,
    ) {
        self.as_slice().reseed(seeded, start, offset)
    }
}

impl<S: Scalar, T: Directions<S>, const M: usize> Directions<S> for [T; M] {
    type Seeded<const N: usize> = [T::Seeded<N>; M];
    fn count(&self) -> usize {
        self.as_slice().count()
    }
    fn constant<const N: usize>(&self) -> Self::Seeded<N> {
        self.each_ref().map(Directions::constant)
    }
    fn reseed<const N: usize>(
        &self,
        seeded: &mut Self::Seeded<N>,
        start: usize,
        offset: &mut usize,
    ) {
        T::reseed_slice(self, seeded, start, offset);
    }
}

impl<S: Scalar, T: Directions<S> + ?Sized> Directions<S> for &T {
    type Seeded<const N: usize> = T::Seeded<N>;
    fn count(&self) -> usize {
        (**self).count()
    }
    fn constant<const N: usize>(&self) -> Self::Seeded<N> {
        (**self).constant()
    }
    fn reseed<const N: usize>(
        &self,
        seeded: &mut Self::Seeded<N>,
        start: usize,
        offset: &mut usize,
    ) {
        (**self).reseed(seeded, start, offset)
    }
}

/// A result computed over `DualVec<S, N>` (a float, a `Vec` or array of them, or a tuple of
/// those, as a gradient is): its floats are rows of a Jacobian, their tangents columns.
pub trait Columns<S: Scalar, const N: usize> {
    /// The result over `S`.
    type Value;
    /// How many floats it holds.
    fn rows(&self) -> usize;
    /// Writes tangent `k` of float `i` to `jacobian[first_row + i][column + k]`, for `k` below
    /// `width`.
    fn write(&self, jacobian: &mut [Vec<S>], first_row: usize, column: usize, width: usize);
    /// Appends the values of its floats.
    fn values(&self, into: &mut Vec<S>);
    /// The result over `S`.
    fn value(&self) -> Self::Value;
}

impl<S: Scalar, const N: usize> Columns<S, N> for DualVec<S, N> {
    type Value = S;
    fn rows(&self) -> usize {
        1
    }
    fn write(&self, jacobian: &mut [Vec<S>], first_row: usize, column: usize, width: usize) {
        let row = &mut jacobian[first_row][column..column + width];
        row.copy_from_slice(&self.tangents[..width]);
    }
    fn values(&self, into: &mut Vec<S>) {
        into.push(self.value);
    }
    fn value(&self) -> S {
        self.value
    }
}

impl<S: Scalar, const N: usize> Columns<S, N> for Vec<DualVec<S, N>> {
    type Value = Vec<S>;
    fn rows(&self) -> usize {
        self.len()
    }
    fn write(&self, jacobian: &mut [Vec<S>], first_row: usize, column: usize, width: usize) {
        for (i, x) in self.iter().enumerate() {
            x.write(jacobian, first_row + i, column, width);
        }
    }
    fn values(&self, into: &mut Vec<S>) {
        into.extend(self.iter().map(|x| x.value));
    }
    fn value(&self) -> Vec<S> {
        self.iter().map(|x| x.value).collect()
    }
}

impl<S: Scalar, const N: usize, const M: usize> Columns<S, N> for [DualVec<S, N>; M] {
    type Value = [S; M];
    fn rows(&self) -> usize {
        M
    }
    fn write(&self, jacobian: &mut [Vec<S>], first_row: usize, column: usize, width: usize) {
        for (i, x) in self.iter().enumerate() {
            x.write(jacobian, first_row + i, column, width);
        }
    }
    fn values(&self, into: &mut Vec<S>) {
        into.extend(self.iter().map(|x| x.value));
    }
    fn value(&self) -> [S; M] {
        self.map(|x| x.value)
    }
}

macro_rules! columns_tuple {
    ($($name:ident $index:tt),+) => {
        impl<S: Scalar, const N: usize, $($name: Columns<S, N>),+> Columns<S, N> for ($($name,)+) {
            type Value = ($($name::Value,)+);
            fn rows(&self) -> usize {
                0 $(+ self.$index.rows())+
            }
            fn write(&self, jacobian: &mut [Vec<S>], first_row: usize, column: usize, width: usize) {
                let mut row = first_row;
                $(
                    self.$index.write(jacobian, row, column, width);
                    row += self.$index.rows();
                )+
                let _ = row;
            }
            fn values(&self, into: &mut Vec<S>) {
                $(self.$index.values(into);)+
            }
            fn value(&self) -> Self::Value {
                ($(self.$index.value(),)+)
            }
        }
    };
}

for_each_parameter_tuple!(columns_tuple);

/// The Jacobian by the vector forward mode: `pass(start)` runs the derivative code with
/// inputs `start..start + N` seeded; each pass fills `N` columns. The passes are called once
/// each, at `start` = 0, N, 2N, ... in order, which [`Directions::reseed`] relies on.
pub fn forward_jacobian<S: Scalar, const N: usize, R: Columns<S, N>>(
    inputs: usize,
    mut pass: impl FnMut(usize) -> R,
) -> (R::Value, Vec<Vec<S>>) {
    let first = pass(0);
    let mut jacobian = vec![vec![S::zero(); inputs]; first.rows()];
    first.write(&mut jacobian, 0, 0, N.min(inputs));
    let mut start = N;
    while start < inputs {
        pass(start).write(&mut jacobian, 0, start, N.min(inputs - start));
        start += N;
    }
    (first.value(), jacobian)
}

/// The Hessian by the vector forward mode over the gradient: `pass(start)` runs the gradient
/// code with inputs `start..start + N` seeded, giving the value and the gradient, whose
/// tangents are `N` columns of the Hessian. The passes are called as by [`forward_jacobian`].
pub fn hessian<S: Scalar, const N: usize, G: Columns<S, N>>(
    inputs: usize,
    mut pass: impl FnMut(usize) -> (DualVec<S, N>, G),
) -> (S, Vec<S>, Vec<Vec<S>>) {
    let (value, gradient) = pass(0);
    let mut hessian = vec![vec![S::zero(); inputs]; gradient.rows()];
    gradient.write(&mut hessian, 0, 0, N.min(inputs));
    let mut start = N;
    while start < inputs {
        pass(start)
            .1
            .write(&mut hessian, 0, start, N.min(inputs - start));
        start += N;
    }
    let mut values = Vec::with_capacity(inputs);
    gradient.values(&mut values);
    (value.value, values, hessian)
}

/// A result over plain floats, for the reverse-mode Jacobian: its unit cotangents, one per
/// float.
pub trait Cotangents: Sized {
    /// How many floats it holds.
    fn count(&self) -> usize;
    /// The cotangent shaped as `self` with `1` at float `i` and `0` elsewhere.
    fn unit(&self, i: usize) -> Self;
}

impl<S: Scalar> Cotangents for S {
    fn count(&self) -> usize {
        1
    }
    fn unit(&self, _: usize) -> S {
        S::one()
    }
}

impl<S: Scalar> Cotangents for Vec<S> {
    fn count(&self) -> usize {
        self.len()
    }
    fn unit(&self, i: usize) -> Vec<S> {
        let mut unit = vec![S::zero(); self.len()];
        unit[i] = S::one();
        unit
    }
}

impl<S: Scalar, const M: usize> Cotangents for [S; M] {
    fn count(&self) -> usize {
        M
    }
    fn unit(&self, i: usize) -> [S; M] {
        let mut unit = [S::zero(); M];
        unit[i] = S::one();
        unit
    }
}

/// Adjoints over plain floats (a float, a `Vec` or array of them, or a tuple of those), as
/// one row of the Jacobian.
pub trait Flat<S> {
    /// Appends its floats.
    fn flatten_into(&self, into: &mut Vec<S>);
}

impl<S: Scalar> Flat<S> for S {
    fn flatten_into(&self, into: &mut Vec<S>) {
        into.push(*self);
    }
}

impl<S: Scalar> Flat<S> for Vec<S> {
    fn flatten_into(&self, into: &mut Vec<S>) {
        into.extend_from_slice(self);
    }
}

impl<S: Scalar, const M: usize> Flat<S> for [S; M] {
    fn flatten_into(&self, into: &mut Vec<S>) {
        into.extend_from_slice(self);
    }
}

macro_rules! flat_tuple {
    ($($name:ident $index:tt),+) => {
        impl<S, $($name: Flat<S>),+> Flat<S> for ($($name,)+) {
            fn flatten_into(&self, into: &mut Vec<S>) {
                $(self.$index.flatten_into(into);)+
            }
        }
    };
}

for_each_parameter_tuple!(flat_tuple);

/// `cotangent · J`: the adjoints of the inputs, flat, for the Jacobian `jacobian` (a row per
/// float of the result) and a cotangent shaped as the result.
pub fn transposed_product<S: Scalar, C: Flat<S>>(
    jacobian: &[Vec<S>],
    cotangent: &C,
    inputs: usize,
) -> Vec<S> {
    let mut weights = Vec::with_capacity(jacobian.len());
    cotangent.flatten_into(&mut weights);
    let mut adjoints = vec![S::zero(); inputs];
    for (row, weight) in jacobian.iter().zip(&weights) {
        for (adjoint, entry) in adjoints.iter_mut().zip(row) {
            *adjoint += *weight * *entry;
        }
    }
    adjoints
}

/// The reverse-mode Jacobian: `vjp(cotangent)` gives the adjoints of the inputs for a
/// cotangent of the result `value`; one call per float of the result.
pub fn reverse_jacobian<S: Scalar, R: Cotangents, G: Flat<S>>(
    value: R,
    vjp: impl Fn(R) -> G,
) -> (R, Vec<Vec<S>>) {
    let rows = (0..value.count())
        .map(|i| {
            let mut row = Vec::new();
            vjp(value.unit(i)).flatten_into(&mut row);
            row
        })
        .collect();
    (value, rows)
}
