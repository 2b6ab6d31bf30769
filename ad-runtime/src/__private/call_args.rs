//! Data passed where a differentiated function takes floats: a row of a data struct
//! (`predict(w, &data.rows[i])`), a table of constants, an `f64` read from data. The derivative
//! code of the callee takes the scalar type (`&[S]`), so such an argument is lifted, chosen by
//! its type, which only rustc knows:
//!
//! ```text
//! { let a = LiftProbe::new(row).__ad_lift_arg::<S>();   // floats: lifted; else: passed
//!   g::__ad_forward(w, Arg::arg(&a)) }                  // &[S] borrowed from `a`, or `row`
//! ```
//!
//! The by-value impls of [`LiftArgFloats`] win over the by-reference fallback of
//! [`LiftArgOther`] for the concrete float containers (autoref specialization, as for
//! [`LiftFloat`](super::LiftFloat)); anything else is passed on as it is.

use super::LiftProbe;
use crate::Scalar;

/// A data float parameter of a function generic over its float type (`dt: f64` beside
/// `x: &[T]`), which callers' derivative code may pass lifted: its plain value.
pub trait PlainFloat<F> {
    /// The value, without derivatives (data has none).
    fn plain(self) -> F;
}

impl<S: Scalar> PlainFloat<S::Base> for S {
    #[inline(always)]
    fn plain(self) -> S::Base {
        self.primal()
    }
}

/// A lifted argument, or one passed on: what the call takes from it.
pub trait Arg<'a> {
    /// What is passed: a borrow of the lifted container, or the value itself.
    type Out;
    /// Passes it (once).
    fn arg(&'a self) -> Self::Out;
}

/// Lifted elements, passed as a slice (`&[f64]`, `&Vec<f64>`, `&[Vec<f64>]` arguments).
pub struct LiftedSlice<E>(Vec<E>);

impl<'a, E: 'a> Arg<'a> for LiftedSlice<E> {
    type Out = &'a [E];
    #[inline(always)]
    fn arg(&'a self) -> &'a [E] {
        &self.0
    }
}

/// A lifted array, passed by reference (`&[f64; N]` arguments).
pub struct LiftedArray<E, const N: usize>([E; N]);

impl<'a, E: 'a, const N: usize> Arg<'a> for LiftedArray<E, N> {
    type Out = &'a [E; N];
    #[inline(always)]
    fn arg(&'a self) -> &'a [E; N] {
        &self.0
    }
}

/// A lifted value passed by value (`f64`, `Vec<f64>`, `[f64; N]`), or an argument passed on as
/// it is.
pub struct Passed<T>(LiftProbe<T>);

impl<'a, T> Arg<'a> for Passed<T> {
    type Out = T;
    #[inline(always)]
    fn arg(&'a self) -> T {
        self.0.take()
    }
}

/// Lifts an argument of plain floats into the scalar type `S`.
pub trait LiftArgFloats {
    /// What it becomes over `S`.
    type Lifted<S: Scalar>;
    /// Lifts it; its derivative is zero.
    fn __ad_lift_arg<S: Scalar>(self) -> Self::Lifted<S>;
}

/// Any other argument: passed on as it is.
pub trait LiftArgOther<T> {
    /// Passes it on.
    fn __ad_lift_arg<S>(&self) -> Passed<T>;
}

impl<T> LiftArgOther<T> for LiftProbe<T> {
    #[inline(always)]
    fn __ad_lift_arg<S>(&self) -> Passed<T> {
        Passed(LiftProbe::new(self.take()))
    }
}

macro_rules! lift_arg_floats {
    ($($float:ident $from:ident)*) => {$(
        impl LiftArgFloats for LiftProbe<$float> {
            type Lifted<S: Scalar> = Passed<S>;
            #[inline(always)]
            fn __ad_lift_arg<S: Scalar>(self) -> Passed<S> {
                Passed(LiftProbe::new(S::$from(self.take())))
            }
        }

        impl LiftArgFloats for LiftProbe<&$float> {
            type Lifted<S: Scalar> = Passed<S>;
            #[inline(always)]
            fn __ad_lift_arg<S: Scalar>(self) -> Passed<S> {
                Passed(LiftProbe::new(S::$from(*self.take())))
            }
        }

        impl LiftArgFloats for LiftProbe<&[$float]> {
            type Lifted<S: Scalar> = LiftedSlice<S>;
            fn __ad_lift_arg<S: Scalar>(self) -> LiftedSlice<S> {
                LiftedSlice(self.take().iter().map(|x| S::$from(*x)).collect())
            }
        }

        impl LiftArgFloats for LiftProbe<&Vec<$float>> {
            type Lifted<S: Scalar> = LiftedSlice<S>;
            fn __ad_lift_arg<S: Scalar>(self) -> LiftedSlice<S> {
                LiftedSlice(self.take().iter().map(|x| S::$from(*x)).collect())
            }
        }

        impl LiftArgFloats for LiftProbe<Vec<$float>> {
            type Lifted<S: Scalar> = Passed<Vec<S>>;
            fn __ad_lift_arg<S: Scalar>(self) -> Passed<Vec<S>> {
                Passed(LiftProbe::new(self.take().into_iter().map(S::$from).collect()))
            }
        }

        impl<const N: usize> LiftArgFloats for LiftProbe<[$float; N]> {
            type Lifted<S: Scalar> = Passed<[S; N]>;
            fn __ad_lift_arg<S: Scalar>(self) -> Passed<[S; N]> {
                Passed(LiftProbe::new(self.take().map(S::$from)))
            }
        }

        impl<const N: usize> LiftArgFloats for LiftProbe<&[$float; N]> {
            type Lifted<S: Scalar> = LiftedArray<S, N>;
            fn __ad_lift_arg<S: Scalar>(self) -> LiftedArray<S, N> {
                LiftedArray(self.take().map(S::$from))
            }
        }

        impl LiftArgFloats for LiftProbe<&[Vec<$float>]> {
            type Lifted<S: Scalar> = LiftedSlice<Vec<S>>;
            fn __ad_lift_arg<S: Scalar>(self) -> LiftedSlice<Vec<S>> {
                LiftedSlice(
                    self.take()
                        .iter()
                        .map(|row| row.iter().map(|x| S::$from(*x)).collect())
                        .collect(),
                )
            }
        }

        impl LiftArgFloats for LiftProbe<&Vec<Vec<$float>>> {
            type Lifted<S: Scalar> = LiftedSlice<Vec<S>>;
            fn __ad_lift_arg<S: Scalar>(self) -> LiftedSlice<Vec<S>> {
                LiftProbe::new(self.take().as_slice()).__ad_lift_arg::<S>()
            }
        }

        impl<const N: usize> LiftArgFloats for LiftProbe<&[[$float; N]]> {
            type Lifted<S: Scalar> = LiftedSlice<[S; N]>;
            fn __ad_lift_arg<S: Scalar>(self) -> LiftedSlice<[S; N]> {
                LiftedSlice(self.take().iter().map(|row| row.map(S::$from)).collect())
            }
        }

        impl<const N: usize> LiftArgFloats for LiftProbe<&Vec<[$float; N]>> {
            type Lifted<S: Scalar> = LiftedSlice<[S; N]>;
            fn __ad_lift_arg<S: Scalar>(self) -> LiftedSlice<[S; N]> {
                LiftProbe::new(self.take().as_slice()).__ad_lift_arg::<S>()
            }
        }
    )*};
}

lift_arg_floats!(f64 from_f64 f32 from_f32);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Dual;

    #[test]
    fn floats_are_lifted_and_anything_else_passed_on() {
        type D = Dual<f64>;
        let row = vec![1.5, -2.0];
        let lifted = LiftProbe::new(&row).__ad_lift_arg::<D>();
        let slice: &[D] = Arg::arg(&lifted);
        assert_eq!((slice[1].value, slice[1].tangent), (-2.0, 0.0));
        let table = [[1.0_f64, 2.0]; 3];
        let lifted = LiftProbe::new(&table[..]).__ad_lift_arg::<D>();
        let rows: &[[D; 2]] = Arg::arg(&lifted);
        assert_eq!(rows[2][1].value, 2.0);
        let count = 3_usize;
        let passed = LiftProbe::new(count).__ad_lift_arg::<D>();
        let count: usize = Arg::arg(&passed);
        assert_eq!(count, 3);
        let label = String::from("data");
        let passed = LiftProbe::new(&label).__ad_lift_arg::<D>();
        let label: &String = Arg::arg(&passed);
        assert_eq!(label, "data");
    }
}
