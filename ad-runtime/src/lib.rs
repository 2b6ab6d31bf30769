//! Automatic differentiation of Rust functions by source transformation.
//!
//! Annotate a function and the macro writes its derivative as ordinary Rust at compile time:
//! no tape is recorded at run time, no nightly compiler is needed.
//!
//! ```
//! use ad_runtime::forward;
//!
//! #[forward]
//! fn f(x: f64, n: i32) -> f64 {
//!     let mut y = 1.0;
//!     for _ in 0..n {
//!         y *= x.sin();
//!     }
//!     y
//! }
//!
//! // f_jvp(primal arguments..., one tangent per float parameter) -> (value, tangent)
//! let (y, dy) = f_jvp(0.5, 3, 1.0);
//! assert_eq!(y, f(0.5, 3));
//! let exact = 3.0 * 0.5_f64.sin().powi(2) * 0.5_f64.cos();
//! assert!((dy - exact).abs() < 1e-15);
//! ```
//!
//! The crate holds what the generated code stands on:
//!
//! * [`Scalar`]: the trait generated code is generic over (`f64`, `f32`, [`Dual`]s of them);
//! * [`rules`]: every primitive's value and derivative, written once as a linear map;
//! * [`linear`]: linear maps and their combinators;
//! * [`Dual`]: the dual numbers of forward mode, which implement [`num_traits::Float`] so
//!   that `#[forward]` takes functions generic over their float type.
//!
//! * [`DualVec`]: dual numbers with several tangents, the vector forward mode of the Jacobian
//!   and Hessian helpers (`f_jacfwd`, `f_hessian`).
//!
//! The [`guide`] is the full tour: every generated function with its signature, what is
//! supported in each mode, checkpoint schedules, how the macros work, and the benchmarks.

// Denied, not forbidden: simba's `SimdValue` declares two `unsafe fn`s, which the dual
// numbers implement with safe bodies (`dual/nalgebra.rs`), and the thread's pool of stack
// chunks hands a buffer from one element type to another of the same layout
// (`__private/chunk_pool.rs`, two `unsafe` blocks). Those are the places allowed.
#![deny(unsafe_code)]
#![warn(missing_docs)]

/// Calls the macro `$implement` with the tuple arities the runtime's traits are implemented
/// for, each as its type parameters with their indices: `(A 0) (A 0, B 1) ..`, up to six.
macro_rules! for_each_tuple {
    ($implement:ident) => {
        $implement! {
            (A 0)
            (A 0, B 1)
            (A 0, B 1, C 2)
            (A 0, B 1, C 2, D 3)
            (A 0, B 1, C 2, D 3, E 4)
            (A 0, B 1, C 2, D 3, E 4, F 5)
        }
    };
}

/// Calls the macro `$implement` once for each tuple arity up to twelve, with the type
/// parameters and their indices (`$implement!(A 0, B 1);`): the traits a function's parameters
/// meet as a tuple (the duals of its floats, their columns, their seeds), so that a function of
/// up to twelve floats has every generated function.
macro_rules! for_each_parameter_tuple {
    ($implement:ident) => {
        $implement!(A 0);
        $implement!(A 0, B 1);
        $implement!(A 0, B 1, C 2);
        $implement!(A 0, B 1, C 2, D 3);
        $implement!(A 0, B 1, C 2, D 3, E 4);
        $implement!(A 0, B 1, C 2, D 3, E 4, F 5);
        $implement!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
        $implement!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
        $implement!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
        $implement!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
        $implement!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
        $implement!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
    };
}

pub mod adjoint;
#[cfg(feature = "argmin")]
pub mod argmin;
pub mod guide {
    #![doc = include_str!("guide.md")]
}
pub mod checkpoint;
pub mod custom_rule;
mod differentiable;
mod dual;
#[cfg(feature = "nalgebra")]
pub mod linalg;
pub mod linear;
pub mod rules;
mod scalar;

#[doc(hidden)]
#[allow(missing_docs)]
pub mod __private;

pub use ad_macros::{checkpoint, forward, reverse, rule, Differentiable};
pub use differentiable::Differentiable;
pub use dual::{Dual, DualChunk, DualVec};
pub use scalar::{Scalar, ScalarRef};

/// The `num-traits` crate, whose traits [`Dual`] implements (`Float`, `FloatConst`,
/// `FromPrimitive`, `ToPrimitive`, `NumCast`, `Num`, `Zero`, `One`, `Signed`, `Bounded`), so
/// that numerical code generic over `num_traits::Float` runs on dual numbers as written. That
/// is how `#[forward]` differentiates a generic function: `f_jvp` runs `f::<Dual<T>>`.
///
/// ```
/// use ad_runtime::forward;
/// use ad_runtime::num_traits::{Float, FromPrimitive};
///
/// #[forward]
/// fn rosenbrock<T: Float + FromPrimitive>(x: &[T]) -> T {
///     let b = T::from_f64(100.0).unwrap();
///     x.windows(2)
///         .map(|w| (T::one() - w[0]).powi(2) + b * (w[1] - w[0].powi(2)).powi(2))
///         .fold(T::zero(), |total, term| total + term)
/// }
///
/// // Along x0: -2 (1 - x0) - 400 x0 (x1 - x0^2) = 151 at (1.5, 2).
/// let (value, derivative) = rosenbrock_jvp(&[1.5, 2.0], &[1.0, 0.0]);
/// assert_eq!((value, derivative), (6.5, 151.0));
/// // The same function over f32.
/// let (_, derivative) = rosenbrock_jvp(&[1.5_f32, 2.0], &[1.0, 0.0]);
/// assert_eq!(derivative, 151.0);
/// ```
pub use num_traits;
