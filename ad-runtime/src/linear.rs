//! Linear maps and their combinators (Ellis, Peyton Jones and Fitzgibbon, seed `002`,
//! Figures 3-5).
//!
//! Every primitive's derivative is a [`LinearMap`]. Forward mode pushes tangents through
//! [`LinearMap::apply`]; reverse mode pulls cotangents back through
//! [`LinearMap::reverse_apply`], which is the transpose. One definition serves both modes, so
//! the two can never disagree.
//!
//! The laws every map obeys, and which the tests check on random inputs:
//!
//! * linearity: `m(a x + b y) = a m(x) + b m(y)`;
//! * transpose: `<m^T t, s> = <t, m s>` for all `s`, `t`;
//! * `compose(a, b)^T = compose(b^T, a^T)`, `sum(a, b)^T = sum(a^T, b^T)`,
//!   `vcat(a, b)^T = hcat(a^T, b^T)`.
//!
//! ```
//! use ad_runtime::linear::{HCat, LinearMap, Scale};
//!
//! // The derivative of (x, y) -> x * y at (3, 5): dx -> 5 dx + 3 dy.
//! let m = HCat(Scale(5.0), Scale(3.0));
//! assert_eq!(m.apply((1.0, 0.0)), 5.0);
//! assert_eq!(m.reverse_apply(2.0), (10.0, 6.0));
//! ```

use crate::Scalar;

/// A real vector space: what tangents and cotangents are.
///
/// Implemented for every [`Scalar`], for pairs of vector spaces over the same field, for
/// `Vec`s and for arrays.
///
/// ```
/// use ad_runtime::linear::VectorSpace;
///
/// let v = (1.0, vec![2.0, 3.0]);
/// assert_eq!(v.dot(&v), 14.0);
/// assert_eq!(v.zero_like(), (0.0, vec![0.0, 0.0]));
/// ```
pub trait VectorSpace: Clone {
    /// The scalars the space is over.
    type Field: Scalar;
    /// The zero vector of the same shape (same length, for `Vec`s).
    fn zero_like(&self) -> Self;
    /// Vector addition.
    fn plus(self, other: Self) -> Self;
    /// Multiplication by a scalar.
    fn times(self, factor: Self::Field) -> Self;
    /// The inner product, used by the transpose law `<m^T t, s> = <t, m s>`.
    fn dot(&self, other: &Self) -> Self::Field;
}

impl<S: Scalar> VectorSpace for S {
    type Field = S;
    fn zero_like(&self) -> Self {
        S::zero()
    }
    fn plus(self, other: Self) -> Self {
        self + other
    }
    fn times(self, factor: S) -> Self {
        self * factor
    }
    fn dot(&self, other: &Self) -> S {
        *self * *other
    }
}

impl<A: VectorSpace, B: VectorSpace<Field = A::Field>> VectorSpace for (A, B) {
    type Field = A::Field;
    fn zero_like(&self) -> Self {
        (self.0.zero_like(), self.1.zero_like())
    }
    fn plus(self, other: Self) -> Self {
        (self.0.plus(other.0), self.1.plus(other.1))
    }
    fn times(self, factor: Self::Field) -> Self {
        (self.0.times(factor), self.1.times(factor))
    }
    fn dot(&self, other: &Self) -> Self::Field {
        self.0.dot(&other.0) + self.1.dot(&other.1)
    }
}

impl<V: VectorSpace> VectorSpace for Vec<V> {
    type Field = V::Field;
    fn zero_like(&self) -> Self {
        self.iter().map(V::zero_like).collect()
    }
    fn plus(self, other: Self) -> Self {
        assert_eq!(
            self.len(),
            other.len(),
            "adding vectors of different lengths"
        );
        self.into_iter()
            .zip(other)
            .map(|(a, b)| a.plus(b))
            .collect()
    }
    fn times(self, factor: Self::Field) -> Self {
        self.into_iter().map(|a| a.times(factor)).collect()
    }
    fn dot(&self, other: &Self) -> Self::Field {
        assert_eq!(
            self.len(),
            other.len(),
            "dot product of vectors of different lengths"
        );
        self.iter()
            .zip(other)
            .fold(Self::Field::zero(), |acc, (a, b)| acc + a.dot(b))
    }
}

impl<V: VectorSpace, const N: usize> VectorSpace for [V; N] {
    type Field = V::Field;
    fn zero_like(&self) -> Self {
        core::array::from_fn(|i| self[i].zero_like())
    }
    fn plus(self, other: Self) -> Self {
        let mut sum = self;
        for (s, o) in sum.iter_mut().zip(other) {
            *s = s.clone().plus(o);
        }
        sum
    }
    fn times(self, factor: Self::Field) -> Self {
        self.map(|a| a.times(factor))
    }
    fn dot(&self, other: &Self) -> Self::Field {
        self.iter()
            .zip(other)
            .fold(Self::Field::zero(), |acc, (a, b)| acc + a.dot(b))
    }
}

/// A linear map between vector spaces, usable in both directions.
///
/// `apply` is the map itself (forward mode: tangents in, tangents out); `reverse_apply` is its
/// transpose (reverse mode: cotangents in, cotangents out).
///
/// ```
/// use ad_runtime::linear::{LinearMap, Scale, Transpose};
///
/// let m = Scale(3.0);
/// assert_eq!(m.apply(2.0), 6.0);
/// assert_eq!(Transpose(m).apply(2.0), m.reverse_apply(2.0));
/// ```
pub trait LinearMap {
    /// Where tangents come from.
    type Domain: VectorSpace;
    /// Where tangents go to.
    type Codomain: VectorSpace<Field = <Self::Domain as VectorSpace>::Field>;
    /// `m x`.
    fn apply(&self, x: Self::Domain) -> Self::Codomain;
    /// `m^T y`, the transpose applied to a cotangent.
    fn reverse_apply(&self, y: Self::Codomain) -> Self::Domain;
    /// Whether `apply` needs its guards: a factor of a [`SingularScale`] in it is infinite or
    /// NaN somewhere. The vector forward mode asks once per operation, and otherwise applies
    /// the map to every direction by [`LinearMap::apply_unguarded`], without a test per
    /// direction.
    ///
    /// ```
    /// use ad_runtime::linear::{HCat, LinearMap, Scale, SingularScale};
    /// assert!(!HCat(Scale(2.0), SingularScale(0.5)).needs_guards());
    /// assert!(HCat(Scale(2.0), SingularScale(f64::INFINITY)).needs_guards());
    /// ```
    #[inline(always)]
    fn needs_guards(&self) -> bool {
        false
    }
    /// `apply` without the guards that keep a zero input zero under an infinite factor: equal
    /// to `apply` wherever [`LinearMap::needs_guards`] is false, up to the sign of a zero
    /// (`-2 · 0` is `-0`, which a guard returns as the `0` it was given).
    #[inline(always)]
    fn apply_unguarded(&self, x: Self::Domain) -> Self::Codomain {
        self.apply(x)
    }
}

/// Multiplication of a scalar by a fixed factor: the derivative of every smooth unary
/// primitive.
///
/// ```
/// use ad_runtime::linear::{LinearMap, Scale};
/// assert_eq!(Scale(0.5).apply(4.0), 2.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scale<S>(pub S);

impl<S: Scalar> LinearMap for Scale<S> {
    type Domain = S;
    type Codomain = S;
    #[inline(always)]
    fn apply(&self, x: S) -> S {
        self.0 * x
    }
    #[inline(always)]
    fn reverse_apply(&self, y: S) -> S {
        self.0 * y
    }
}

/// Multiplication by a factor that may be infinite or NaN, where the derivative does not exist
/// (`sqrt` at 0, `ln` at 0, `asin` at 1, ...).
///
/// It differs from [`Scale`] in one way: a zero (co)tangent stays zero. An input the seed does
/// not perturb therefore never turns a derivative into NaN through `0 * inf`; a perturbed input
/// sees the infinite (or NaN) derivative as it is.
///
/// ```
/// use ad_runtime::linear::{LinearMap, SingularScale};
/// let m = SingularScale(f64::INFINITY);
/// assert_eq!(m.apply(0.0), 0.0);
/// assert_eq!(m.apply(1.0), f64::INFINITY);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SingularScale<S>(pub S);

impl<S: Scalar> LinearMap for SingularScale<S> {
    type Domain = S;
    type Codomain = S;
    #[inline(always)]
    fn apply(&self, x: S) -> S {
        if x.is_zero() {
            x
        } else {
            self.0 * x
        }
    }
    #[inline(always)]
    fn reverse_apply(&self, y: S) -> S {
        self.apply(y)
    }
    #[inline(always)]
    fn needs_guards(&self) -> bool {
        !self.0.is_finite_everywhere()
    }
    #[inline(always)]
    fn apply_unguarded(&self, x: S) -> S {
        self.0 * x
    }
}

/// Negation, `x -> -x`: the derivative of unary `-` and the second half of `-`'s. A constant
/// map with no data, so reverse mode stores nothing for it.
///
/// ```
/// use ad_runtime::linear::{LinearMap, Negate};
/// assert_eq!(Negate::<f64>::new().apply(2.0), -2.0);
/// assert_eq!(Negate::<f64>::new().reverse_apply(2.0), -2.0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Negate<V>(core::marker::PhantomData<fn(V) -> V>);

impl<V> Negate<V> {
    /// Negation on `V`.
    pub fn new() -> Self {
        Negate(core::marker::PhantomData)
    }
}

impl<V> Default for Negate<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: VectorSpace> LinearMap for Negate<V> {
    type Domain = V;
    type Codomain = V;
    #[inline(always)]
    fn apply(&self, x: V) -> V {
        let minus_one = -<V::Field as Scalar>::one();
        x.times(minus_one)
    }
    #[inline(always)]
    fn reverse_apply(&self, y: V) -> V {
        self.apply(y)
    }
}

/// The identity map on a vector space `V`.
///
/// ```
/// use ad_runtime::linear::{Identity, LinearMap};
/// assert_eq!(Identity::<f64>::new().apply(7.0), 7.0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Identity<V>(core::marker::PhantomData<fn(V) -> V>);

impl<V> Identity<V> {
    /// The identity on `V`.
    pub fn new() -> Self {
        Identity(core::marker::PhantomData)
    }
}

impl<V> Default for Identity<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: VectorSpace> LinearMap for Identity<V> {
    type Domain = V;
    type Codomain = V;
    #[inline(always)]
    fn apply(&self, x: V) -> V {
        x
    }
    #[inline(always)]
    fn reverse_apply(&self, y: V) -> V {
        y
    }
}

/// The zero map from `X` to `Y`: the derivative of a piecewise-constant primitive
/// (`floor`, `signum`, ...). It holds zero vectors of both shapes so that it can produce them.
///
/// ```
/// use ad_runtime::linear::{LinearMap, Zero};
/// let z = Zero::new(0.0, (0.0, 0.0));
/// assert_eq!(z.apply(5.0), (0.0, 0.0));
/// assert_eq!(z.reverse_apply((1.0, 2.0)), 0.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Zero<X, Y> {
    domain_zero: X,
    codomain_zero: Y,
}

impl<X: VectorSpace, Y: VectorSpace> Zero<X, Y> {
    /// The zero map; the arguments give the shapes (their values are not used).
    pub fn new(domain_shape: X, codomain_shape: Y) -> Self {
        Zero {
            domain_zero: domain_shape.zero_like(),
            codomain_zero: codomain_shape.zero_like(),
        }
    }
}

impl<X: VectorSpace, Y: VectorSpace<Field = X::Field>> LinearMap for Zero<X, Y> {
    type Domain = X;
    type Codomain = Y;
    #[inline(always)]
    fn apply(&self, _: X) -> Y {
        self.codomain_zero.clone()
    }
    #[inline(always)]
    fn reverse_apply(&self, _: Y) -> X {
        self.domain_zero.clone()
    }
}

/// `Compose(a, b)` is `a ∘ b`: apply `b`, then `a`. Its transpose is `b^T ∘ a^T`.
///
/// ```
/// use ad_runtime::linear::{Compose, LinearMap, Scale};
/// let m = Compose(Scale(2.0), Scale(3.0));
/// assert_eq!(m.apply(1.0), 6.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Compose<A, B>(pub A, pub B);

impl<A, B> LinearMap for Compose<A, B>
where
    A: LinearMap,
    B: LinearMap<Codomain = A::Domain>,
    B::Domain: VectorSpace<Field = <A::Domain as VectorSpace>::Field>,
{
    type Domain = B::Domain;
    type Codomain = A::Codomain;
    #[inline(always)]
    fn apply(&self, x: Self::Domain) -> Self::Codomain {
        self.0.apply(self.1.apply(x))
    }
    #[inline(always)]
    fn reverse_apply(&self, y: Self::Codomain) -> Self::Domain {
        self.1.reverse_apply(self.0.reverse_apply(y))
    }
    #[inline(always)]
    fn needs_guards(&self) -> bool {
        self.0.needs_guards() || self.1.needs_guards()
    }
    #[inline(always)]
    fn apply_unguarded(&self, x: Self::Domain) -> Self::Codomain {
        self.0.apply_unguarded(self.1.apply_unguarded(x))
    }
}

/// `Sum(a, b)` is `x -> a x + b x`.
///
/// ```
/// use ad_runtime::linear::{LinearMap, Scale, Sum};
/// assert_eq!(Sum(Scale(2.0), Scale(3.0)).apply(1.0), 5.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sum<A, B>(pub A, pub B);

impl<A, B> LinearMap for Sum<A, B>
where
    A: LinearMap,
    B: LinearMap<Domain = A::Domain, Codomain = A::Codomain>,
{
    type Domain = A::Domain;
    type Codomain = A::Codomain;
    #[inline(always)]
    fn apply(&self, x: Self::Domain) -> Self::Codomain {
        self.0.apply(x.clone()).plus(self.1.apply(x))
    }
    #[inline(always)]
    fn reverse_apply(&self, y: Self::Codomain) -> Self::Domain {
        self.0
            .reverse_apply(y.clone())
            .plus(self.1.reverse_apply(y))
    }
    #[inline(always)]
    fn needs_guards(&self) -> bool {
        self.0.needs_guards() || self.1.needs_guards()
    }
    #[inline(always)]
    fn apply_unguarded(&self, x: Self::Domain) -> Self::Codomain {
        self.0
            .apply_unguarded(x.clone())
            .plus(self.1.apply_unguarded(x))
    }
}

/// `Scaled(s, m)` is `x -> s (m x)`.
///
/// ```
/// use ad_runtime::linear::{LinearMap, Scale, Scaled};
/// assert_eq!(Scaled(2.0, Scale(3.0)).apply(1.0), 6.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scaled<S, M>(pub S, pub M);

impl<M: LinearMap> LinearMap for Scaled<<M::Domain as VectorSpace>::Field, M> {
    type Domain = M::Domain;
    type Codomain = M::Codomain;
    #[inline(always)]
    fn apply(&self, x: Self::Domain) -> Self::Codomain {
        self.1.apply(x).times(self.0)
    }
    #[inline(always)]
    fn reverse_apply(&self, y: Self::Codomain) -> Self::Domain {
        self.1.reverse_apply(y).times(self.0)
    }
    #[inline(always)]
    fn needs_guards(&self) -> bool {
        self.1.needs_guards()
    }
    #[inline(always)]
    fn apply_unguarded(&self, x: Self::Domain) -> Self::Codomain {
        self.1.apply_unguarded(x).times(self.0)
    }
}

/// Vertical concatenation: `VCat(a, b)` is `x -> (a x, b x)` (one input, two outputs; the
/// derivative of a function that returns a pair). Its transpose adds: `(s, t) -> a^T s + b^T t`.
///
/// ```
/// use ad_runtime::linear::{LinearMap, Scale, VCat};
/// let m = VCat(Scale(2.0), Scale(3.0));
/// assert_eq!(m.apply(1.0), (2.0, 3.0));
/// assert_eq!(m.reverse_apply((1.0, 1.0)), 5.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VCat<A, B>(pub A, pub B);

impl<A, B> LinearMap for VCat<A, B>
where
    A: LinearMap,
    B: LinearMap<Domain = A::Domain>,
    B::Codomain: VectorSpace<Field = <A::Domain as VectorSpace>::Field>,
{
    type Domain = A::Domain;
    type Codomain = (A::Codomain, B::Codomain);
    #[inline(always)]
    fn apply(&self, x: Self::Domain) -> Self::Codomain {
        (self.0.apply(x.clone()), self.1.apply(x))
    }
    #[inline(always)]
    fn reverse_apply(&self, y: Self::Codomain) -> Self::Domain {
        self.0.reverse_apply(y.0).plus(self.1.reverse_apply(y.1))
    }
    #[inline(always)]
    fn needs_guards(&self) -> bool {
        self.0.needs_guards() || self.1.needs_guards()
    }
    #[inline(always)]
    fn apply_unguarded(&self, x: Self::Domain) -> Self::Codomain {
        (self.0.apply_unguarded(x.clone()), self.1.apply_unguarded(x))
    }
}

/// Horizontal concatenation: `HCat(a, b)` is `(x, y) -> a x + b y` (two inputs, one output;
/// the derivative of every binary primitive). Its transpose copies: `t -> (a^T t, b^T t)`.
///
/// ```
/// use ad_runtime::linear::{HCat, LinearMap, Scale};
/// let m = HCat(Scale(2.0), Scale(3.0));
/// assert_eq!(m.apply((1.0, 1.0)), 5.0);
/// assert_eq!(m.reverse_apply(1.0), (2.0, 3.0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HCat<A, B>(pub A, pub B);

impl<A, B> LinearMap for HCat<A, B>
where
    A: LinearMap,
    B: LinearMap<Codomain = A::Codomain>,
    B::Domain: VectorSpace<Field = <A::Domain as VectorSpace>::Field>,
{
    type Domain = (A::Domain, B::Domain);
    type Codomain = A::Codomain;
    #[inline(always)]
    fn apply(&self, x: Self::Domain) -> Self::Codomain {
        self.0.apply(x.0).plus(self.1.apply(x.1))
    }
    #[inline(always)]
    fn reverse_apply(&self, y: Self::Codomain) -> Self::Domain {
        (self.0.reverse_apply(y.clone()), self.1.reverse_apply(y))
    }
    #[inline(always)]
    fn needs_guards(&self) -> bool {
        self.0.needs_guards() || self.1.needs_guards()
    }
    #[inline(always)]
    fn apply_unguarded(&self, x: Self::Domain) -> Self::Codomain {
        self.0
            .apply_unguarded(x.0)
            .plus(self.1.apply_unguarded(x.1))
    }
}

/// Vertical concatenation of many maps with one domain: `x -> [m_0 x, m_1 x, ...]`.
///
/// `domain_zero` is what the transpose returns when there are no maps.
///
/// ```
/// use ad_runtime::linear::{LinearMap, Scale, VCatVec};
/// let m = VCatVec::new(vec![Scale(1.0), Scale(2.0)], 0.0);
/// assert_eq!(m.apply(3.0), vec![3.0, 6.0]);
/// assert_eq!(m.reverse_apply(vec![1.0, 1.0]), 3.0);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct VCatVec<M: LinearMap> {
    maps: Vec<M>,
    domain_zero: M::Domain,
}

impl<M: LinearMap> VCatVec<M> {
    /// Stacks `maps`; `domain_shape` gives the shape of the common input.
    pub fn new(maps: Vec<M>, domain_shape: M::Domain) -> Self {
        let domain_zero = domain_shape.zero_like();
        VCatVec { maps, domain_zero }
    }
}

impl<M: LinearMap> LinearMap for VCatVec<M> {
    type Domain = M::Domain;
    type Codomain = Vec<M::Codomain>;
    fn apply(&self, x: Self::Domain) -> Self::Codomain {
        self.maps.iter().map(|m| m.apply(x.clone())).collect()
    }
    fn reverse_apply(&self, y: Self::Codomain) -> Self::Domain {
        assert_eq!(
            y.len(),
            self.maps.len(),
            "cotangent length differs from the map's"
        );
        self.maps
            .iter()
            .zip(y)
            .fold(self.domain_zero.clone(), |acc, (m, yi)| {
                acc.plus(m.reverse_apply(yi))
            })
    }
}

/// Horizontal concatenation of many maps with one codomain: `[x_0, x_1, ...] -> m_0 x_0 +
/// m_1 x_1 + ...`.
///
/// `codomain_zero` is what `apply` returns when there are no maps.
///
/// ```
/// use ad_runtime::linear::{HCatVec, LinearMap, Scale};
/// let m = HCatVec::new(vec![Scale(1.0), Scale(2.0)], 0.0);
/// assert_eq!(m.apply(vec![1.0, 1.0]), 3.0);
/// assert_eq!(m.reverse_apply(2.0), vec![2.0, 4.0]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct HCatVec<M: LinearMap> {
    maps: Vec<M>,
    codomain_zero: M::Codomain,
}

impl<M: LinearMap> HCatVec<M> {
    /// Places `maps` side by side; `codomain_shape` gives the shape of the common output.
    pub fn new(maps: Vec<M>, codomain_shape: M::Codomain) -> Self {
        let codomain_zero = codomain_shape.zero_like();
        HCatVec {
            maps,
            codomain_zero,
        }
    }
}

impl<M: LinearMap> LinearMap for HCatVec<M> {
    type Domain = Vec<M::Domain>;
    type Codomain = M::Codomain;
    fn apply(&self, x: Self::Domain) -> Self::Codomain {
        assert_eq!(
            x.len(),
            self.maps.len(),
            "tangent length differs from the map's"
        );
        self.maps
            .iter()
            .zip(x)
            .fold(self.codomain_zero.clone(), |acc, (m, xi)| {
                acc.plus(m.apply(xi))
            })
    }
    fn reverse_apply(&self, y: Self::Codomain) -> Self::Domain {
        self.maps
            .iter()
            .map(|m| m.reverse_apply(y.clone()))
            .collect()
    }
}

/// The transpose of a map: `Transpose(m).apply` is `m.reverse_apply` and vice versa.
///
/// ```
/// use ad_runtime::linear::{HCat, LinearMap, Scale, Transpose};
/// let m = Transpose(HCat(Scale(2.0), Scale(3.0)));
/// assert_eq!(m.apply(1.0), (2.0, 3.0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transpose<M>(pub M);

impl<M: LinearMap> LinearMap for Transpose<M> {
    type Domain = M::Codomain;
    type Codomain = M::Domain;
    #[inline(always)]
    fn apply(&self, x: Self::Domain) -> Self::Codomain {
        self.0.reverse_apply(x)
    }
    #[inline(always)]
    fn reverse_apply(&self, y: Self::Codomain) -> Self::Domain {
        self.0.apply(y)
    }
}
