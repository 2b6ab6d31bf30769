//! Plain numerical helpers generic over their float type, in a module file of their own, as a
//! crate keeps them (`plain_generic_calls.rs` calls them through module paths and imports).

use num_traits::Float;

/// The mean of a slice.
pub fn mean<T: Float + std::iter::Sum>(x: &[T]) -> T {
    x.iter().copied().sum::<T>() / T::from(x.len()).unwrap()
}

/// Log-sum-exp, shifted by the maximum.
pub fn log_sum_exp<T: Float>(x: &[T]) -> T {
    let top = x.iter().copied().fold(T::neg_infinity(), T::max);
    top + x
        .iter()
        .map(|v| (*v - top).exp())
        .fold(T::zero(), |a, b| a + b)
        .ln()
}

pub mod kernels {
    use num_traits::Float;

    /// A Gaussian kernel of two points.
    pub fn gaussian<T: Float>(a: T, b: T, width: T) -> T {
        (-(a - b) * (a - b) / (width * width)).exp()
    }
}
