//! nalgebra's matrices of floats as parts of a type that derives `Differentiable`
//! (`struct Particle { position: Vector3<f64>, .. }`): their twin is the same matrix over the
//! scalar type, their floats visited in column-major order.

use core::array::from_fn;

use nalgebra::{ArrayStorage, Const, Dyn, Matrix, VecStorage, U1};

use crate::differentiable::{shapes_differ, Differentiable};

macro_rules! fixed_size {
    ($($float:ty)*) => {$(
        impl<const R: usize, const C: usize> Differentiable
            for Matrix<$float, Const<R>, Const<C>, ArrayStorage<$float, R, C>>
        {
            type Float = $float;
            type Over<T> = Matrix<T, Const<R>, Const<C>, ArrayStorage<T, R, C>>;
            fn to_over(&self) -> Self::Over<$float> {
                *self
            }
            fn from_over(over: Self::Over<$float>) -> Self {
                over
            }
            fn map<A, B>(over: &Self::Over<A>, f: &mut impl FnMut(&A) -> B) -> Self::Over<B> {
                let columns = &over.data.0;
                Matrix::from_array_storage(ArrayStorage(from_fn(|j| {
                    from_fn(|i| f(&columns[j][i]))
                })))
            }
            fn zip<A, B, D>(
                a: &Self::Over<A>,
                b: &Self::Over<B>,
                f: &mut impl FnMut(&A, &B) -> D,
            ) -> Self::Over<D> {
                let (a, b) = (&a.data.0, &b.data.0);
                Matrix::from_array_storage(ArrayStorage(from_fn(|j| {
                    from_fn(|i| f(&a[j][i], &b[j][i]))
                })))
            }
            fn for_each<A>(over: &Self::Over<A>, f: &mut impl FnMut(&A)) {
                over.data.0.iter().flatten().for_each(f)
            }
            fn first<A>(over: &Self::Over<A>) -> Option<&A> {
                over.data.0.iter().flatten().next()
            }
        }
    )*};
}

fixed_size!(f64 f32);

macro_rules! dynamic_size {
    ($($float:ty, $rows:ty, $columns:ty;)*) => {$(
        impl Differentiable for Matrix<$float, $rows, $columns, VecStorage<$float, $rows, $columns>> {
            type Float = $float;
            type Over<T> = Matrix<T, $rows, $columns, VecStorage<T, $rows, $columns>>;
            fn to_over(&self) -> Self::Over<$float> {
                self.clone()
            }
            fn from_over(over: Self::Over<$float>) -> Self {
                over
            }
            fn map<A, B>(over: &Self::Over<A>, f: &mut impl FnMut(&A) -> B) -> Self::Over<B> {
                let (rows, columns) = over.shape_generic();
                let elements = over.data.as_vec().iter().map(f).collect();
                Matrix::from_data(VecStorage::new(rows, columns, elements))
            }
            fn zip<A, B, D>(
                a: &Self::Over<A>,
                b: &Self::Over<B>,
                f: &mut impl FnMut(&A, &B) -> D,
            ) -> Self::Over<D> {
                if a.shape() != b.shape() {
                    shapes_differ("the matrices' shapes");
                }
                let (rows, columns) = a.shape_generic();
                let elements = a
                    .data
                    .as_vec()
                    .iter()
                    .zip(b.data.as_vec())
                    .map(|(a, b)| f(a, b))
                    .collect();
                Matrix::from_data(VecStorage::new(rows, columns, elements))
            }
            fn for_each<A>(over: &Self::Over<A>, f: &mut impl FnMut(&A)) {
                over.data.as_vec().iter().for_each(f)
            }
            fn first<A>(over: &Self::Over<A>) -> Option<&A> {
                over.data.as_vec().first()
            }
        }
    )*};
}

dynamic_size! {
    f64, Dyn, Dyn;
    f64, Dyn, U1;
    f32, Dyn, Dyn;
    f32, Dyn, U1;
}
