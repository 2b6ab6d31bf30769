//! Calls from derivative code to a plain function generic over its float type
//! (`fn smooth<T: Float>(x: T, k: &[T]) -> T`, not annotated): the function runs as written at
//! [`Dual<S>`], which implements num-traits' `Float` for every scalar type `S` of the derivative
//! code.
//!
//! Forward mode takes the value (`primal`): the function at dual numbers with tangent zero, of
//! which the value is its result at `S`, derivatives of `S` included. Reverse mode
//! (`reverse`) takes the function's local Jacobian at the call with forward mode, one pass per
//! float of the arguments whose parameters name the float type (cost proportional to those
//! inputs), and its pullback is that Jacobian transposed. The macro passes those arguments as a
//! tuple, a float wrapped in [`ScalarArg`], and calls the function in a closure over their
//! seeded copies; every other argument the closure reads as written.

use crate::{Dual, Scalar};

/// A float argument of a parameter of the float type (`x: T`).
#[derive(Clone, Copy)]
pub struct ScalarArg<S>(pub S);

/// An argument of a parameter that names the float type: a float, a slice, `Vec` or array of
/// floats (or a reference to one), or a tuple of those (the arguments of one call).
pub trait Seed<S: Scalar> {
    /// The argument over `Dual<S>`, owned: the closure lends it to a reference parameter.
    type Seeded;
    /// Its adjoint: `S`, `Vec<S>` or `[S; N]`.
    type Adjoint: 'static;
    /// How many floats it holds.
    fn count(&self) -> usize;
    /// Over `Dual<S>` with the float numbered `direction` (counted over all arguments from
    /// `offset`, which is advanced past this one) given tangent one, every other zero.
    fn seeded(&self, direction: Option<usize>, offset: &mut usize) -> Self::Seeded;
    /// An adjoint of its shape, zero.
    fn zero_adjoint(&self) -> Self::Adjoint;
    /// Fills `adjoint` from the next floats of `flat`, in the order `seeded` numbers them.
    fn fill(adjoint: &mut Self::Adjoint, flat: &mut dyn Iterator<Item = S>);
}

#[inline]
fn seeded_float<S: Scalar>(value: S, direction: Option<usize>, offset: &mut usize) -> Dual<S> {
    let tangent = match direction == Some(*offset) {
        true => S::one(),
        false => S::zero(),
    };
    *offset += 1;
    Dual::new(value, tangent)
}

fn fill_floats<'a, S: Scalar>(
    adjoint: impl IntoIterator<Item = &'a mut S>,
    flat: &mut dyn Iterator<Item = S>,
) {
    for (slot, value) in adjoint.into_iter().zip(flat) {
        *slot = value;
    }
}

impl<S: Scalar> Seed<S> for ScalarArg<S> {
    type Seeded = Dual<S>;
    type Adjoint = S;
    fn count(&self) -> usize {
        1
    }
    fn seeded(&self, direction: Option<usize>, offset: &mut usize) -> Dual<S> {
        seeded_float(self.0, direction, offset)
    }
    fn zero_adjoint(&self) -> S {
        S::zero()
    }
    fn fill(adjoint: &mut S, flat: &mut dyn Iterator<Item = S>) {
        fill_floats(core::iter::once(adjoint), flat);
    }
}

/// Slices, `Vec`s and references to them: each is a run of floats with a `Vec` adjoint.
macro_rules! seed_run {
    ($($ty:ty),*) => {$(
        impl<S: Scalar> Seed<S> for $ty {
            type Seeded = Vec<Dual<S>>;
            type Adjoint = Vec<S>;
            fn count(&self) -> usize {
                self.len()
            }
            fn seeded(&self, direction: Option<usize>, offset: &mut usize) -> Vec<Dual<S>> {
                self.iter().map(|x| seeded_float(*x, direction, offset)).collect()
            }
            fn zero_adjoint(&self) -> Vec<S> {
                vec![S::zero(); self.len()]
            }
            fn fill(adjoint: &mut Vec<S>, flat: &mut dyn Iterator<Item = S>) {
                fill_floats(adjoint.iter_mut(), flat);
            }
        }
    )*};
}

seed_run!(&[S], Vec<S>, &Vec<S>);

macro_rules! seed_array {
    ($($ty:ty),*) => {$(
        impl<S: Scalar, const N: usize> Seed<S> for $ty {
            type Seeded = [Dual<S>; N];
            type Adjoint = [S; N];
            fn count(&self) -> usize {
                N
            }
            fn seeded(&self, direction: Option<usize>, offset: &mut usize) -> [Dual<S>; N] {
                self.map(|x| seeded_float(x, direction, offset))
            }
            fn zero_adjoint(&self) -> [S; N] {
                [S::zero(); N]
            }
            fn fill(adjoint: &mut [S; N], flat: &mut dyn Iterator<Item = S>) {
                fill_floats(adjoint.iter_mut(), flat);
            }
        }
    )*};
}

seed_array!([S; N], &[S; N]);

macro_rules! seed_tuple {
    ($($name:ident $index:tt),*) => {
        impl<S: Scalar, $($name: Seed<S>),*> Seed<S> for ($($name,)*) {
            type Seeded = ($($name::Seeded,)*);
            type Adjoint = ($($name::Adjoint,)*);
            fn count(&self) -> usize {
                0 $(+ self.$index.count())*
            }
            #[allow(unused_variables)]
            fn seeded(&self, direction: Option<usize>, offset: &mut usize) -> Self::Seeded {
                ($(self.$index.seeded(direction, offset),)*)
            }
            fn zero_adjoint(&self) -> Self::Adjoint {
                ($(self.$index.zero_adjoint(),)*)
            }
            #[allow(unused_variables)]
            fn fill(adjoint: &mut Self::Adjoint, flat: &mut dyn Iterator<Item = S>) {
                $($name::fill(&mut adjoint.$index, flat);)*
            }
        }
    };
}

for_each_parameter_tuple!(seed_tuple);

/// The arguments of a call to another function's generic derivative code (`g_grad(x, &w)`
/// inside reverse-mode code is `g::grad` at dual numbers), whose parameter types the macro does
/// not see: [`SeedProbe`] lets each argument's type choose how it is seeded, a float or a
/// slice, `Vec` or array of floats as an input (borrowed ones lent to the callee), anything else
/// as data passed on as it is. The closure passes each seeded argument through [`Pass`].
pub struct SeedProbe<T>(core::cell::Cell<Option<T>>);

impl<T> SeedProbe<T> {
    #[inline(always)]
    pub fn new(value: T) -> Self {
        SeedProbe(core::cell::Cell::new(Some(value)))
    }

    #[inline(always)]
    fn take(&self) -> T {
        match self.0.take() {
            Some(value) => value,
            None => unreachable!("a SeedProbe is read once"),
        }
    }
}

/// An argument the callee borrows: its seeded copy is lent.
pub struct Lent<T>(pub T);

/// An argument that is not a float or a container of floats: passed on as it is (cloned for
/// each run).
#[derive(Clone)]
pub struct Data<T>(pub T);

/// An argument that carries no derivative: seeded with tangent zero, no input of the Jacobian.
pub struct Constant<A>(pub A);

/// The seeding of floats and containers of floats, chosen by the argument's type.
pub trait SeedFloats {
    type Arg;
    fn __ad_seed_arg(self) -> Self::Arg;
}

impl<S: Scalar> SeedFloats for SeedProbe<S> {
    type Arg = ScalarArg<S>;
    #[inline(always)]
    fn __ad_seed_arg(self) -> ScalarArg<S> {
        ScalarArg(self.take())
    }
}

impl<'a, S: Scalar> SeedFloats for SeedProbe<&'a [S]> {
    type Arg = Lent<&'a [S]>;
    #[inline(always)]
    fn __ad_seed_arg(self) -> Self::Arg {
        Lent(self.take())
    }
}

impl<'a, S: Scalar> SeedFloats for SeedProbe<&'a Vec<S>> {
    type Arg = Lent<&'a [S]>;
    #[inline(always)]
    fn __ad_seed_arg(self) -> Self::Arg {
        Lent(self.take().as_slice())
    }
}

impl<S: Scalar, const N: usize> SeedFloats for SeedProbe<&[S; N]> {
    type Arg = Lent<[S; N]>;
    #[inline(always)]
    fn __ad_seed_arg(self) -> Self::Arg {
        Lent(*self.take())
    }
}

/// The seeding of a float variable a closure captures, lent to the probe (`&k`, `&w`).
pub trait SeedCaptured {
    type Arg;
    fn __ad_seed_captured(self) -> Self::Arg;
}

impl<S: Scalar> SeedCaptured for SeedProbe<&S> {
    type Arg = ScalarArg<S>;
    #[inline(always)]
    fn __ad_seed_captured(self) -> ScalarArg<S> {
        ScalarArg(*self.take())
    }
}

impl<'a, S: Scalar> SeedCaptured for SeedProbe<&&'a [S]> {
    type Arg = Lent<&'a [S]>;
    #[inline(always)]
    fn __ad_seed_captured(self) -> Self::Arg {
        Lent(*self.take())
    }
}

impl<'a, S: Scalar> SeedCaptured for SeedProbe<&'a Vec<S>> {
    type Arg = Lent<&'a [S]>;
    #[inline(always)]
    fn __ad_seed_captured(self) -> Self::Arg {
        Lent(self.take().as_slice())
    }
}

impl<'a, S: Scalar> SeedCaptured for SeedProbe<&&'a Vec<S>> {
    type Arg = Lent<&'a [S]>;
    #[inline(always)]
    fn __ad_seed_captured(self) -> Self::Arg {
        Lent(self.take().as_slice())
    }
}

impl<S: Scalar, const N: usize> SeedCaptured for SeedProbe<&[S; N]> {
    type Arg = Lent<[S; N]>;
    #[inline(always)]
    fn __ad_seed_captured(self) -> Self::Arg {
        Lent(*self.take())
    }
}

impl<S: Scalar> SeedFloats for SeedProbe<Vec<S>> {
    type Arg = Vec<S>;
    #[inline(always)]
    fn __ad_seed_arg(self) -> Vec<S> {
        self.take()
    }
}

impl<S: Scalar, const N: usize> SeedFloats for SeedProbe<[S; N]> {
    type Arg = [S; N];
    #[inline(always)]
    fn __ad_seed_arg(self) -> [S; N] {
        self.take()
    }
}

/// Any other argument: data.
pub trait SeedOther<T> {
    fn __ad_seed_arg(&self) -> Data<T>;
}

impl<T> SeedOther<T> for &SeedProbe<T> {
    #[inline(always)]
    fn __ad_seed_arg(&self) -> Data<T> {
        Data(self.take())
    }
}

impl<A> Constant<A> {
    /// `argument` taken for a constant.
    #[inline(always)]
    pub fn of(argument: A) -> Self {
        Constant(argument)
    }
}

impl<S: Scalar, A: Seed<S>> Seed<S> for Lent<A> {
    type Seeded = Lent<A::Seeded>;
    type Adjoint = A::Adjoint;
    fn count(&self) -> usize {
        self.0.count()
    }
    fn seeded(&self, direction: Option<usize>, offset: &mut usize) -> Self::Seeded {
        Lent(self.0.seeded(direction, offset))
    }
    fn zero_adjoint(&self) -> A::Adjoint {
        self.0.zero_adjoint()
    }
    fn fill(adjoint: &mut A::Adjoint, flat: &mut dyn Iterator<Item = S>) {
        A::fill(adjoint, flat);
    }
}

impl<S: Scalar, T: Clone> Seed<S> for Data<T> {
    type Seeded = Data<T>;
    type Adjoint = ();
    fn count(&self) -> usize {
        0
    }
    fn seeded(&self, _: Option<usize>, _: &mut usize) -> Data<T> {
        self.clone()
    }
    fn zero_adjoint(&self) {}
    fn fill(_: &mut (), _: &mut dyn Iterator<Item = S>) {}
}

impl<S: Scalar, A: Seed<S>> Seed<S> for Constant<A> {
    type Seeded = A::Seeded;
    type Adjoint = A::Adjoint;
    fn count(&self) -> usize {
        0
    }
    fn seeded(&self, _: Option<usize>, _: &mut usize) -> A::Seeded {
        self.0.seeded(None, &mut 0)
    }
    fn zero_adjoint(&self) -> A::Adjoint {
        self.0.zero_adjoint()
    }
    fn fill(_: &mut A::Adjoint, _: &mut dyn Iterator<Item = S>) {}
}

/// A seeded argument as the callee takes it: a float or an owned container by value, a lent
/// one by reference, data as it is.
pub trait Pass {
    type Passed<'a>
    where
        Self: 'a;
    fn pass(&self) -> Self::Passed<'_>;
}

impl<S: Scalar> Pass for Dual<S> {
    type Passed<'a> = Dual<S>;
    #[inline(always)]
    fn pass(&self) -> Dual<S> {
        *self
    }
}

impl<S: Scalar> Pass for Vec<Dual<S>> {
    type Passed<'a> = Vec<Dual<S>>;
    #[inline(always)]
    fn pass(&self) -> Vec<Dual<S>> {
        self.clone()
    }
}

impl<S: Scalar, const N: usize> Pass for [Dual<S>; N] {
    type Passed<'a> = [Dual<S>; N];
    #[inline(always)]
    fn pass(&self) -> [Dual<S>; N] {
        *self
    }
}

impl<T> Pass for Lent<T> {
    type Passed<'a>
        = &'a T
    where
        T: 'a;
    #[inline(always)]
    fn pass(&self) -> &T {
        &self.0
    }
}

impl<T: Clone> Pass for Data<T> {
    type Passed<'a>
        = T
    where
        T: 'a;
    #[inline(always)]
    fn pass(&self) -> T {
        self.0.clone()
    }
}

/// A result of the function over `Dual<S>`: a float, a `Vec` or array of them, or a tuple of
/// those.
pub trait Tangents<S: Scalar> {
    /// The result over `S`.
    type Value;
    /// The cotangent a pullback takes for it (the value's adjoint).
    type Cotangent;
    /// The result over `S`.
    fn value(&self) -> Self::Value;
    /// Appends the tangents of its floats.
    fn tangents(&self, into: &mut Vec<S>);
    /// Appends the floats of a cotangent, in the same order.
    fn flatten(cotangent: &Self::Cotangent, into: &mut Vec<S>);
}

impl<S: Scalar> Tangents<S> for Dual<S> {
    type Value = S;
    type Cotangent = S;
    fn value(&self) -> S {
        self.value
    }
    fn tangents(&self, into: &mut Vec<S>) {
        into.push(self.tangent);
    }
    fn flatten(cotangent: &S, into: &mut Vec<S>) {
        into.push(*cotangent);
    }
}

impl<S: Scalar> Tangents<S> for Vec<Dual<S>> {
    type Value = Vec<S>;
    type Cotangent = Vec<S>;
    fn value(&self) -> Vec<S> {
        self.iter().map(|x| x.value).collect()
    }
    fn tangents(&self, into: &mut Vec<S>) {
        into.extend(self.iter().map(|x| x.tangent));
    }
    fn flatten(cotangent: &Vec<S>, into: &mut Vec<S>) {
        into.extend_from_slice(cotangent);
    }
}

impl<S: Scalar, const N: usize> Tangents<S> for [Dual<S>; N] {
    type Value = [S; N];
    type Cotangent = [S; N];
    fn value(&self) -> [S; N] {
        self.map(|x| x.value)
    }
    fn tangents(&self, into: &mut Vec<S>) {
        into.extend(self.iter().map(|x| x.tangent));
    }
    fn flatten(cotangent: &[S; N], into: &mut Vec<S>) {
        into.extend_from_slice(cotangent);
    }
}

macro_rules! tangents_tuple {
    ($($name:ident $index:tt),+) => {
        impl<S: Scalar, $($name: Tangents<S>),+> Tangents<S> for ($($name,)+) {
            type Value = ($($name::Value,)+);
            type Cotangent = ($($name::Cotangent,)+);
            fn value(&self) -> Self::Value {
                ($(self.$index.value(),)+)
            }
            fn tangents(&self, into: &mut Vec<S>) {
                $(self.$index.tangents(into);)+
            }
            fn flatten(cotangent: &Self::Cotangent, into: &mut Vec<S>) {
                $($name::flatten(&cotangent.$index, into);)+
            }
        }
    };
}

for_each_parameter_tuple!(tangents_tuple);

/// The function's value at the arguments: run at dual numbers with tangent zero.
pub fn primal<S: Scalar, A: Seed<S>, R: Tangents<S>>(
    args: A,
    function: impl FnOnce(A::Seeded) -> R,
) -> R::Value {
    function(args.seeded(None, &mut 0)).value()
}

/// The pullback of a call: the cotangent of the result in, the adjoints of the arguments out.
pub type Pullback<S, A, R> =
    Box<dyn FnOnce(<R as Tangents<S>>::Cotangent) -> <A as Seed<S>>::Adjoint>;

/// The function's value at the arguments and its pullback, from its local Jacobian taken
/// column by column with forward mode (one run per float of the arguments).
pub fn reverse<S: Scalar, A: Seed<S>, R: Tangents<S>>(
    args: A,
    function: impl Fn(A::Seeded) -> R,
) -> (R::Value, Pullback<S, A, R>)
where
    R::Cotangent: 'static,
{
    let inputs = args.count();
    let mut columns: Vec<S> = Vec::new();
    let mut value = None;
    for direction in 0..inputs {
        let result = function(args.seeded(Some(direction), &mut 0));
        result.tangents(&mut columns);
        if direction == 0 {
            value = Some(result.value());
        }
    }
    let value = match value {
        Some(value) => value,
        None => function(args.seeded(None, &mut 0)).value(),
    };
    let outputs = columns.len().checked_div(inputs).unwrap_or(0);
    let mut adjoint = args.zero_adjoint();
    let pullback = move |cotangent: R::Cotangent| {
        let mut flat = Vec::with_capacity(outputs);
        R::flatten(&cotangent, &mut flat);
        let mut gradient = columns.chunks(outputs.max(1)).map(|column| {
            column
                .iter()
                .zip(&flat)
                .fold(S::zero(), |sum, (derivative, c)| sum + *derivative * *c)
        });
        A::fill(&mut adjoint, &mut gradient);
        adjoint
    };
    (value, Box::new(pullback))
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_traits::Float;

    fn mix<T: Float>(a: T, v: &[T]) -> (T, Vec<T>) {
        (a * v[0], vec![a.exp() + v[1], v[0] * v[1]])
    }

    #[test]
    fn the_pullback_is_the_local_jacobian_transposed() {
        let (a, v) = (0.3_f64, vec![1.5, -2.0]);
        let ((p, q), pullback) = reverse((ScalarArg(a), &v[..]), |(a, v)| mix(a, &v));
        assert_eq!((p, q.clone()), mix(a, &v));
        let (c0, c1) = (0.7, vec![-1.1, 0.4]);
        let (da, dv) = pullback((c0, c1.clone()));
        // Rows of the Jacobian: (v0, a, 0), (e^a, 0, 1), (0, v1, v0).
        approx::assert_relative_eq!(da, c0 * v[0] + c1[0] * a.exp(), max_relative = 1e-15);
        approx::assert_relative_eq!(dv[0], c0 * a + c1[1] * v[1], max_relative = 1e-15);
        approx::assert_relative_eq!(dv[1], c1[0] + c1[1] * v[0], max_relative = 1e-15);
        assert_eq!(primal((ScalarArg(a), &v[..]), |(a, v)| mix(a, &v)), (p, q));
    }
}
