//! What the code of the IR engine (`ad-macros/src/ir`) calls: adjoints accumulated by type,
//! arithmetic pullbacks chosen by the operands' type (zero-sized for integers), per-value
//! stacks for what the backward sweep reads inside loops and branches.

use crate::adjoint::{Adjoint, NoAdjoint};
use crate::linear::LinearMap;
use crate::{rules, Scalar};

#[inline(always)]
pub fn accumulate<T: Adjoint>(adjoint: &mut T, contribution: T) {
    adjoint.accumulate(contribution);
}

/// The adjoint of a variable about to be overwritten, leaving zero behind.
#[inline(always)]
pub fn take<T: Adjoint>(adjoint: &mut T) -> T {
    core::mem::replace(adjoint, T::zero())
}

#[inline(always)]
pub fn zero<T: Adjoint>() -> T {
    T::zero()
}

#[inline(always)]
pub fn add_back<T: Adjoint>(cotangent: T) -> (T, T) {
    (cotangent.clone(), cotangent)
}

#[inline(always)]
pub fn sub_back<T: Adjoint>(cotangent: T) -> (T, T) {
    (cotangent.clone(), cotangent.negate())
}

#[inline(always)]
pub fn neg_back<T: Adjoint>(cotangent: T) -> T {
    cotangent.negate()
}

/// The pullbacks of `*`, `/` and `%`, which read their operands: scalars through
/// `ad_runtime::rules`, integers to nothing.
pub trait Arithmetic: Sized {
    type Adjoint: Adjoint;
    fn mul_back(self, rhs: Self, cotangent: Self::Adjoint) -> (Self::Adjoint, Self::Adjoint);
    fn div_back(self, rhs: Self, cotangent: Self::Adjoint) -> (Self::Adjoint, Self::Adjoint);
    fn rem_back(self, rhs: Self, cotangent: Self::Adjoint) -> (Self::Adjoint, Self::Adjoint);
}

impl<S: Scalar> Arithmetic for S {
    type Adjoint = S;

    #[inline(always)]
    fn mul_back(self, rhs: S, cotangent: S) -> (S, S) {
        rules::mul(self, rhs).1.reverse_apply(cotangent)
    }

    #[inline(always)]
    fn div_back(self, rhs: S, cotangent: S) -> (S, S) {
        rules::div(self, rhs).1.reverse_apply(cotangent)
    }

    #[inline(always)]
    fn rem_back(self, rhs: S, cotangent: S) -> (S, S) {
        rules::rem(self, rhs).1.reverse_apply(cotangent)
    }
}

macro_rules! data_arithmetic {
    ($($t:ty)*) => {$(
        impl Arithmetic for $t {
            type Adjoint = NoAdjoint;

            #[inline(always)]
            fn mul_back(self, _: Self, _: NoAdjoint) -> (NoAdjoint, NoAdjoint) {
                (NoAdjoint, NoAdjoint)
            }

            #[inline(always)]
            fn div_back(self, _: Self, _: NoAdjoint) -> (NoAdjoint, NoAdjoint) {
                (NoAdjoint, NoAdjoint)
            }

            #[inline(always)]
            fn rem_back(self, _: Self, _: NoAdjoint) -> (NoAdjoint, NoAdjoint) {
                (NoAdjoint, NoAdjoint)
            }
        }
    )*};
}

data_arithmetic!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

/// The zero adjoint of a parameter, shaped as the parameter: reverse mode's result for it
/// when no derivative reaches it.
pub trait ZeroAdjoint {
    type Adjoint;
    fn zero_adjoint(&self) -> Self::Adjoint;
}

impl<S: Scalar> ZeroAdjoint for S {
    type Adjoint = S;
    #[inline(always)]
    fn zero_adjoint(&self) -> S {
        S::zero()
    }
}

impl<S: Scalar> ZeroAdjoint for [S] {
    type Adjoint = Vec<S>;
    fn zero_adjoint(&self) -> Vec<S> {
        vec![S::zero(); self.len()]
    }
}

impl<S: Scalar> ZeroAdjoint for Vec<S> {
    type Adjoint = Vec<S>;
    fn zero_adjoint(&self) -> Vec<S> {
        vec![S::zero(); self.len()]
    }
}

impl<S: Scalar, const N: usize> ZeroAdjoint for [S; N] {
    type Adjoint = [S; N];
    fn zero_adjoint(&self) -> [S; N] {
        [S::zero(); N]
    }
}

#[inline(always)]
pub fn zero_adjoint<T: ZeroAdjoint + ?Sized>(value: &T) -> T::Adjoint {
    value.zero_adjoint()
}

/// What the backward sweep reads of a value defined inside a loop or a branch: one entry per
/// time the definition ran, read back last first.
pub struct Stack<T>(Vec<T>);

impl<T> Stack<T> {
    #[inline(always)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Stack(Vec::new())
    }

    #[inline(always)]
    pub fn push(&mut self, value: T) {
        self.0.push(value);
    }

    #[inline(always)]
    pub fn pop(&mut self) -> T {
        match self.0.pop() {
            Some(value) => value,
            None => unreachable!("the backward sweep reads what the forward sweep kept"),
        }
    }
}
