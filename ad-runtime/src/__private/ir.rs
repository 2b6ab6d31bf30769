//! What the code of the IR engine (`ad-macros/src/ir`) calls: adjoints accumulated by type,
//! arithmetic pullbacks chosen by the operands' type (zero-sized for integers), per-value
//! stacks for what the backward sweep reads inside loops and branches.

use crate::adjoint::{Adjoint, NoAdjoint};
use crate::linear::LinearMap;
use crate::{rules, Scalar};

pub use super::scaled::{accumulate_scaled, scale_adjoint, ScaledAdjoint};

#[inline(always)]
pub fn accumulate<T: Adjoint>(adjoint: &mut T, contribution: T) {
    adjoint.accumulate(contribution);
}

/// How a callee's adjoint of a parameter adds to the adjoint of the argument, whose type may
/// differ by a coercion at the call (`&[f64; 2]` passed as `&[f64]`).
pub trait AccumulateArgument<C> {
    fn accumulate_argument(&mut self, contribution: C);
}

impl<A: Adjoint> AccumulateArgument<A> for A {
    #[inline(always)]
    fn accumulate_argument(&mut self, contribution: A) {
        self.accumulate(contribution);
    }
}

impl<T: Adjoint, const N: usize> AccumulateArgument<Vec<T>> for [T; N] {
    fn accumulate_argument(&mut self, contribution: Vec<T>) {
        for (adjoint, part) in self.iter_mut().zip(contribution) {
            adjoint.accumulate(part);
        }
    }
}

/// A data parameter's adjoint (`()`) adds nothing. Only a value without derivatives reaches
/// one: a data parameter keeps its declared type, which a lifted argument does not match, so
/// rustc reports that mismatch at the argument (and this impl keeps it the only error).
impl<A: Adjoint> AccumulateArgument<()> for A {
    #[inline(always)]
    fn accumulate_argument(&mut self, _: ()) {}
}

/// A sub-slice's adjoint (a slice of the shadow) takes the adjoint of a borrow of it.
impl<T: Adjoint> AccumulateArgument<Vec<T>> for [T] {
    fn accumulate_argument(&mut self, contribution: Vec<T>) {
        for (adjoint, part) in self.iter_mut().zip(contribution) {
            adjoint.accumulate(part);
        }
    }
}

/// A derived type's shadow as the flat cotangent a callee takes, left zero: what a `&mut self`
/// method wrote to its receiver has its cotangent taken, and the adjoint of what was there
/// before comes back. Laid out in `shaped`, a zero of the receiver's shape at the call: the
/// shadow itself may hold only the part of a `Vec` field the code reached.
pub fn take_shaped<S, A: FlatAdjoint<S> + Adjoint>(shadow: &mut A, mut shaped: A) -> Vec<S> {
    shaped.accumulate(take(shadow));
    flatten(&shaped)
}

/// The cotangent of what a call wrote through a `&mut` argument, taken from the caller's shadow
/// of the place (left zero: the call overwrote it), as the callee's parameter takes it: an
/// array's as a `Vec` where the array was passed as a slice, a derived type's flat, laid out in
/// `shaped`, a zero of the place's shape at the call (`take_shaped`).
pub trait TakeWritten<C> {
    fn take_written(&mut self, shaped: Self) -> C;
}

impl<A: Adjoint> TakeWritten<A> for A {
    #[inline(always)]
    fn take_written(&mut self, _: A) -> A {
        take(self)
    }
}

impl<T: Adjoint, const N: usize> TakeWritten<Vec<T>> for [T; N] {
    fn take_written(&mut self, _: Self) -> Vec<T> {
        take(self).into_iter().collect()
    }
}

#[inline(always)]
pub fn take_written<A: TakeWritten<C>, C>(shadow: &mut A, shaped: A) -> C {
    shadow.take_written(shaped)
}

/// The method's pullback takes no cotangent for its receiver (`&self`, `self`).
pub struct ReceiverRead;
/// The method's pullback takes one after the result's (`&mut self`).
pub struct ReceiverWritten;

/// A method's pullback applied when its receiver was lent mutably: the caller cannot tell a
/// `&mut self` method from a `&self` one, the pullback's type can. `M` is inferred.
pub trait ApplyToReceiver<C, R, M> {
    type Adjoints;
    fn apply_to_receiver(self, cotangent: C, receiver: impl FnOnce() -> R) -> Self::Adjoints;
}

impl<F: FnOnce(C) -> A, C, R, A> ApplyToReceiver<C, R, ReceiverRead> for F {
    type Adjoints = A;
    #[inline(always)]
    fn apply_to_receiver(self, cotangent: C, _: impl FnOnce() -> R) -> A {
        self(cotangent)
    }
}

impl<F: FnOnce((C, R)) -> A, C, R, A> ApplyToReceiver<C, R, ReceiverWritten> for F {
    type Adjoints = A;
    #[inline(always)]
    fn apply_to_receiver(self, cotangent: C, receiver: impl FnOnce() -> R) -> A {
        self((cotangent, receiver()))
    }
}

/// [`ApplyToReceiver::apply_to_receiver`] as a function.
#[inline(always)]
pub fn apply_to_receiver<F: ApplyToReceiver<C, R, M>, C, R, M>(
    pullback: F,
    cotangent: C,
    receiver: impl FnOnce() -> R,
) -> F::Adjoints {
    pullback.apply_to_receiver(cotangent, receiver)
}

#[inline(always)]
pub fn accumulate_argument<A: AccumulateArgument<C> + ?Sized, C>(adjoint: &mut A, contribution: C) {
    adjoint.accumulate_argument(contribution);
}

/// How the adjoint of a field read adds to the field's: a `#[no_grad]` float field of a
/// derived type is data (its adjoint is `NoAdjoint`), though the read is lifted to a scalar;
/// a read through a `Box` adds to the boxed adjoint.
pub trait AccumulateRead<C> {
    fn accumulate_read(&mut self, contribution: C);
}

impl<A: Adjoint> AccumulateRead<A> for A {
    #[inline(always)]
    fn accumulate_read(&mut self, contribution: A) {
        self.accumulate(contribution);
    }
}

impl<S: Scalar> AccumulateRead<S> for NoAdjoint {
    #[inline(always)]
    fn accumulate_read(&mut self, _: S) {}
}

/// `*b` of a `Box`: its adjoint adds to the boxed one.
impl<A: Adjoint> AccumulateRead<A> for crate::adjoint::BoxAdjoint<A> {
    #[inline(always)]
    fn accumulate_read(&mut self, contribution: A) {
        self.0.accumulate(contribution);
    }
}

#[inline(always)]
pub fn accumulate_read<A: AccumulateRead<C>, C>(adjoint: &mut A, contribution: C) {
    adjoint.accumulate_read(contribution);
}

/// The adjoint of a field rebuilt from the adjoint of the value a pattern bound to it: the
/// same, or nothing for a `#[no_grad]` float field (its value was read as a float, its adjoint
/// is `NoAdjoint`).
pub trait FieldAdjoint<C> {
    fn field_adjoint(contribution: C) -> Self;
}

impl<A: Adjoint> FieldAdjoint<A> for A {
    #[inline(always)]
    fn field_adjoint(contribution: A) -> A {
        contribution
    }
}

impl<S: Scalar> FieldAdjoint<S> for NoAdjoint {
    #[inline(always)]
    fn field_adjoint(_: S) -> NoAdjoint {
        NoAdjoint
    }
}

#[inline(always)]
pub fn field_adjoint<C, T: FieldAdjoint<C>>(contribution: C) -> T {
    T::field_adjoint(contribution)
}

/// The adjoint of a variable about to be overwritten, leaving zero behind.
#[inline(always)]
pub fn take<T: Adjoint>(adjoint: &mut T) -> T {
    core::mem::replace(adjoint, T::zero())
}

/// `take` for a local's adjoint, leaving `Adjoint::exact_zero` behind: what is added to it
/// next (as `t[j] += x` adds the adjoint back) is then stored as it is. A parameter's keeps
/// `take`'s `0.0`, which the caller sees.
#[inline(always)]
pub fn vacate<T: Adjoint>(adjoint: &mut T) -> T {
    core::mem::replace(adjoint, T::exact_zero())
}

/// The adjoint of the sum an increment assigns (`place += e`): the place's, which stays, as
/// the place read in the sum would add it back (`ir::increments` in the macro crate).
#[inline(always)]
pub fn peek<T: Clone>(adjoint: &mut T) -> T {
    adjoint.clone()
}

#[inline(always)]
pub fn zero<T: Adjoint>() -> T {
    T::zero()
}

/// The adjoint of an operand of `+`, `-` or unary `-` as written: a float's, or data's. A
/// derived type's operator is its own (its companion, which the derivative code calls where
/// it sees the operand's type), not the sum of its parts.
#[diagnostic::on_unimplemented(
    message = "reverse mode does not see that this operator is a derived type's",
    label = "an operand here is a value of a derived type, whose own operator must be called",
    note = "bind the left operand to a variable with its type written (`let a: Vec3 = xs[i];`, \
            then `a + c`), so that the type's operator is followed"
)]
pub trait OperatorAdjoint: Adjoint {}

impl<S: Scalar> OperatorAdjoint for S {}
impl OperatorAdjoint for NoAdjoint {}

#[inline(always)]
pub fn add_back<T: OperatorAdjoint>(cotangent: T) -> (T, T) {
    (cotangent.clone(), cotangent)
}

#[inline(always)]
pub fn sub_back<T: OperatorAdjoint>(cotangent: T) -> (T, T) {
    (cotangent.clone(), cotangent.negate())
}

#[inline(always)]
pub fn neg_back<T: OperatorAdjoint>(cotangent: T) -> T {
    cotangent.negate()
}

/// The pullbacks of `*`, `/` and `%`, which read their operands: scalars through
/// `ad_runtime::rules`, integers to nothing.
pub trait Arithmetic: Sized {
    type Adjoint: Adjoint;
    fn mul_back(self, rhs: Self, cotangent: Self::Adjoint) -> (Self::Adjoint, Self::Adjoint);
    fn div_back(self, rhs: Self, cotangent: Self::Adjoint) -> (Self::Adjoint, Self::Adjoint);
    fn rem_back(self, rhs: Self, cotangent: Self::Adjoint) -> (Self::Adjoint, Self::Adjoint);
    /// The adjoint of a product's other factor, `self` the factor without adjoint
    /// (`rules::factor_partial`).
    fn factor_back(self, cotangent: Self::Adjoint) -> Self::Adjoint;
    /// The adjoint of a quotient's numerator, `self` the denominator without adjoint
    /// (`rules::numerator_partial`).
    fn numerator_back(self, cotangent: Self::Adjoint) -> Self::Adjoint;
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

    #[inline(always)]
    fn factor_back(self, cotangent: S) -> S {
        rules::factor_partial(self).reverse_apply(cotangent)
    }

    #[inline(always)]
    fn numerator_back(self, cotangent: S) -> S {
        rules::numerator_partial(self).reverse_apply(cotangent)
    }
}

/// The operators of a float as methods named as a derived type's twin has them (`twins` in
/// the macro crate): an operator whose left operand a method returned, of a type the
/// derivative code does not see, is called as `lhs.__ad_reverse_mul(rhs)`, which is the
/// twin's method for a value of a derived type and this for a float. Each returns the value
/// and the pullback to the operands' adjoints, as a companion does; `__ad_forward_*` the value
/// alone. The right operand comes by value (`value_of`), a reference to a float copied.
pub trait ReverseOperators: Scalar {
    fn __ad_reverse_add(self, rhs: Self) -> (Self, impl FnOnce(Self) -> (Self, Self));
    fn __ad_reverse_sub(self, rhs: Self) -> (Self, impl FnOnce(Self) -> (Self, Self));
    fn __ad_reverse_mul(self, rhs: Self) -> (Self, impl FnOnce(Self) -> (Self, Self));
    fn __ad_reverse_div(self, rhs: Self) -> (Self, impl FnOnce(Self) -> (Self, Self));
    fn __ad_reverse_rem(self, rhs: Self) -> (Self, impl FnOnce(Self) -> (Self, Self));
    fn __ad_reverse_neg(self) -> (Self, impl FnOnce(Self) -> (Self,));
    /// `lhs * self`, written with the float on the left (`2.0 * x.dot(y)`).
    fn __ad_reverse_rmul(self, lhs: Self) -> (Self, impl FnOnce(Self) -> (Self, Self));
    fn __ad_forward_add(self, rhs: Self) -> Self;
    fn __ad_forward_sub(self, rhs: Self) -> Self;
    fn __ad_forward_mul(self, rhs: Self) -> Self;
    fn __ad_forward_div(self, rhs: Self) -> Self;
    fn __ad_forward_rem(self, rhs: Self) -> Self;
    fn __ad_forward_neg(self) -> Self;
    fn __ad_forward_rmul(self, lhs: Self) -> Self;
}

impl<S: Scalar> ReverseOperators for S {
    #[inline(always)]
    fn __ad_reverse_add(self, rhs: S) -> (S, impl FnOnce(S) -> (S, S)) {
        (self + rhs, add_back)
    }
    #[inline(always)]
    fn __ad_reverse_sub(self, rhs: S) -> (S, impl FnOnce(S) -> (S, S)) {
        (self - rhs, sub_back)
    }
    #[inline(always)]
    fn __ad_reverse_mul(self, rhs: S) -> (S, impl FnOnce(S) -> (S, S)) {
        let (value, map) = rules::mul(self, rhs);
        (value, move |cotangent| map.reverse_apply(cotangent))
    }
    #[inline(always)]
    fn __ad_reverse_div(self, rhs: S) -> (S, impl FnOnce(S) -> (S, S)) {
        let (value, map) = rules::div(self, rhs);
        (value, move |cotangent| map.reverse_apply(cotangent))
    }
    #[inline(always)]
    fn __ad_reverse_rem(self, rhs: S) -> (S, impl FnOnce(S) -> (S, S)) {
        let (value, map) = rules::rem(self, rhs);
        (value, move |cotangent| map.reverse_apply(cotangent))
    }
    #[inline(always)]
    fn __ad_reverse_neg(self) -> (S, impl FnOnce(S) -> (S,)) {
        (-self, |cotangent: S| (-cotangent,))
    }
    #[inline(always)]
    fn __ad_reverse_rmul(self, lhs: S) -> (S, impl FnOnce(S) -> (S, S)) {
        let (value, map) = rules::mul(lhs, self);
        (value, move |cotangent| {
            let (lhs, rhs) = map.reverse_apply(cotangent);
            (rhs, lhs)
        })
    }
    #[inline(always)]
    fn __ad_forward_rmul(self, lhs: S) -> S {
        lhs * self
    }
    #[inline(always)]
    fn __ad_forward_add(self, rhs: S) -> S {
        self + rhs
    }
    #[inline(always)]
    fn __ad_forward_sub(self, rhs: S) -> S {
        self - rhs
    }
    #[inline(always)]
    fn __ad_forward_mul(self, rhs: S) -> S {
        self * rhs
    }
    #[inline(always)]
    fn __ad_forward_div(self, rhs: S) -> S {
        self / rhs
    }
    #[inline(always)]
    fn __ad_forward_rem(self, rhs: S) -> S {
        self % rhs
    }
    #[inline(always)]
    fn __ad_forward_neg(self) -> S {
        -self
    }
}

/// `len` and `is_empty` of a container, as methods named as a derived type's twin has them:
/// on a value whose type the derivative code does not see, `v.__ad_reverse_len()` is the
/// twin's method (a derived type's own `len`) or this (a container's length, data). The
/// pullback borrows nothing.
pub trait ReverseLength {
    fn __ad_reverse_len(&self) -> (usize, fn(NoAdjoint) -> ((),));
    fn __ad_reverse_is_empty(&self) -> (bool, fn(NoAdjoint) -> ((),));
    fn __ad_forward_len(&self) -> usize;
    fn __ad_forward_is_empty(&self) -> bool;
}

macro_rules! reverse_length {
    ($(impl<$($param:ident),*> for $container:ty;)*) => {$(
        impl<$($param),*> ReverseLength for $container {
            #[inline(always)]
            fn __ad_reverse_len(&self) -> (usize, fn(NoAdjoint) -> ((),)) {
                (self.len(), |_| ((),))
            }
            #[inline(always)]
            fn __ad_reverse_is_empty(&self) -> (bool, fn(NoAdjoint) -> ((),)) {
                (self.is_empty(), |_| ((),))
            }
            #[inline(always)]
            fn __ad_forward_len(&self) -> usize {
                self.len()
            }
            #[inline(always)]
            fn __ad_forward_is_empty(&self) -> bool {
                self.is_empty()
            }
        }
    )*};
}

reverse_length! {
    impl<T> for [T];
    impl<> for str;
    impl<T> for std::collections::VecDeque<T>;
    impl<K, V> for std::collections::BTreeMap<K, V>;
    impl<T> for std::collections::BTreeSet<T>;
    impl<K, V, H> for std::collections::HashMap<K, V, H>;
    impl<T, H> for std::collections::HashSet<T, H>;
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

            #[inline(always)]
            fn factor_back(self, _: NoAdjoint) -> NoAdjoint {
                NoAdjoint
            }

            #[inline(always)]
            fn numerator_back(self, _: NoAdjoint) -> NoAdjoint {
                NoAdjoint
            }
        }
    )*};
}

data_arithmetic!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

/// The zero adjoint shaped as a value: a parameter's adjoint when no derivative reaches it,
/// the start of a call result's (a callee's pullback takes a cotangent of its result's shape).
#[inline(always)]
pub fn zero_like<T: crate::adjoint::Diff + ?Sized>(value: &T) -> T::Adjoint {
    value.zero_like()
}

/// What the backward sweep reads of a value defined in a branch outside every loop: the
/// branch runs at most once before the backward sweep takes the entry back, so one slot holds
/// it, without the allocation a [`Stack`]'s first chunk costs (a small function with an `if`,
/// called in a loop, would pay it at every call).
pub struct Slot<T>(Option<T>);

impl<T> Slot<T> {
    #[inline(always)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Slot(None)
    }

    #[inline(always)]
    pub fn push(&mut self, value: T) {
        self.0 = Some(value);
    }

    #[inline(always)]
    pub fn pop(&mut self) -> T {
        match self.0.take() {
            Some(value) => value,
            None => nothing_kept(),
        }
    }
}

/// What the backward sweep reads of a value defined inside a loop or a branch: one entry per
/// time the definition ran, read back last first. It grows in chunks, each twice the one
/// before up to about 64 KiB, so that growing never copies what it holds nor asks the system
/// for one large block of fresh pages, and a function called in a loop whose own loops are
/// short allocates little. Going back to an earlier chunk swaps it in, and calls nothing: a
/// call that returns, even on a cold path, would make the backward loop keep its adjoints in
/// memory instead of registers. Its chunks of full size go to the thread's pool when it is
/// dropped, for the next gradient's stacks.
pub struct Stack<T> {
    current: Vec<T>,
    /// The chunks before `current`: the first `filled` hold entries; the rest are spent
    /// chunks the backward sweep emptied, kept for their room.
    chunks: Vec<Vec<T>>,
    filled: usize,
}

/// The size of a [`Stack`]'s first chunk, in entries, and of its largest, in bytes.
const STACK_FIRST_CHUNK: usize = 16;
const STACK_CHUNK_BYTES: usize = 1 << 16;

impl<T> Stack<T> {
    #[inline(always)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Stack {
            current: Vec::new(),
            chunks: Vec::new(),
            filled: 0,
        }
    }

    /// Room for `additional` more pushes in the current chunk.
    #[inline(always)]
    pub fn reserve(&mut self, additional: usize) {
        if self.current.capacity() - self.current.len() < additional {
            self.new_chunk(additional);
        }
    }

    #[inline(always)]
    pub fn push(&mut self, value: T) {
        if self.current.len() == self.current.capacity() {
            self.new_chunk(0);
        }
        self.current.push(value);
    }

    #[inline(always)]
    pub fn pop(&mut self) -> T {
        loop {
            if let Some(value) = self.current.pop() {
                return value;
            }
            if self.filled == 0 {
                nothing_kept();
            }
            self.filled -= 1;
            core::mem::swap(&mut self.current, &mut self.chunks[self.filled]);
        }
    }

    /// Pushes `values` in order, all in one chunk, so that [`Stack::top_slice`] reads them
    /// back as one slice.
    #[inline(always)]
    pub fn push_slice(&mut self, values: &[T])
    where
        T: Clone,
    {
        self.reserve(values.len());
        self.current.extend_from_slice(values);
    }

    /// The `length` entries the last [`Stack::push_slice`] pushed, in the order they were
    /// pushed, left in place: [`Stack::drop_top`] pops them.
    #[inline(always)]
    pub fn top_slice(&mut self, length: usize) -> &[T] {
        while self.current.len() < length {
            // A slice that did not fit in a chunk's rest was pushed whole in the next: the
            // current chunk is empty, and the slice is in an earlier one.
            if self.filled == 0 || !self.current.is_empty() {
                nothing_kept();
            }
            self.filled -= 1;
            core::mem::swap(&mut self.current, &mut self.chunks[self.filled]);
        }
        &self.current[self.current.len() - length..]
    }

    /// Pops the `length` entries [`Stack::top_slice`] gave last.
    #[inline(always)]
    pub fn drop_top(&mut self, length: usize) {
        let remaining = self.current.len() - length;
        self.current.truncate(remaining);
    }

    #[cold]
    #[inline(never)]
    fn new_chunk(&mut self, needed: usize) {
        let largest = largest_chunk::<T>();
        // Sizes below the largest are powers of two, so that the pool has chunks of the sizes
        // asked for again.
        let size = self
            .current
            .capacity()
            .saturating_mul(2)
            .clamp(STACK_FIRST_CHUNK, largest)
            .max(needed.min(largest).next_power_of_two().min(largest))
            .max(needed);
        // A spent chunk with the room is taken back rather than a new one allocated.
        let next = match self.chunks.get_mut(self.filled) {
            Some(spent) if spent.capacity() >= size => core::mem::take(spent),
            _ => super::chunk_pool::take(size),
        };
        let full = core::mem::replace(&mut self.current, next);
        // The first chunk replaces no chunk.
        if full.capacity() == 0 && self.filled == 0 {
            return;
        }
        if self.filled < self.chunks.len() {
            self.chunks[self.filled] = full;
        } else {
            self.chunks.push(full);
        }
        self.filled += 1;
    }
}

/// The capacity of a [`Stack`]'s chunks of full size, in entries.
#[inline(always)]
fn largest_chunk<T>() -> usize {
    (STACK_CHUNK_BYTES / core::mem::size_of::<T>().max(1)).max(STACK_FIRST_CHUNK)
}

/// A stack's chunks go back to the thread's pool, for the next gradient's stacks; all but one
/// made for a `reserve` larger than the largest chunk.
impl<T> Drop for Stack<T> {
    fn drop(&mut self) {
        let largest = largest_chunk::<T>();
        let chunks = self
            .chunks
            .drain(..)
            .chain([core::mem::take(&mut self.current)]);
        for chunk in chunks {
            if chunk.capacity() <= largest {
                super::chunk_pool::give_back(chunk);
            }
        }
    }
}

/// The backward sweep reads what the forward sweep kept: a stack is never read past empty.
#[cold]
#[inline(never)]
fn nothing_kept() -> ! {
    unreachable!("the backward sweep reads what the forward sweep kept")
}

impl<A: Adjoint> Stack<A> {
    /// Keeps the zero adjoint of a value defined in a loop or a branch, shaped as the value,
    /// when its type's zero may depend on the value (`Adjoint::VALUE_SHAPED_ZERO`): a float's
    /// is not kept.
    #[inline(always)]
    pub fn keep_zero(&mut self, zero: A) {
        if A::VALUE_SHAPED_ZERO {
            self.push(zero);
        }
    }

    /// [`Stack::reserve`] for the zeros [`Stack::keep_zero`] keeps.
    #[inline(always)]
    pub fn reserve_zeros(&mut self, additional: usize) {
        if A::VALUE_SHAPED_ZERO {
            self.reserve(additional);
        }
    }

    /// The zero [`Stack::keep_zero`] kept, or made.
    #[inline(always)]
    pub fn zero_back(&mut self) -> A {
        if A::VALUE_SHAPED_ZERO {
            self.pop()
        } else {
            A::zero()
        }
    }
}

/// The value an iterator's `sum` and `product` start from, for the types they give: a float's
/// sum starts from `-0.0`, as `std`'s does (adding to it gives the first element exactly).
pub trait ReductionStart {
    fn sum_start() -> Self;
    fn product_start() -> Self;
}

impl<S: Scalar> ReductionStart for S {
    #[inline(always)]
    fn sum_start() -> S {
        -S::zero()
    }

    #[inline(always)]
    fn product_start() -> S {
        S::one()
    }
}

macro_rules! integer_reductions {
    ($($t:ty)*) => {$(
        impl ReductionStart for $t {
            #[inline(always)]
            fn sum_start() -> $t {
                0
            }

            #[inline(always)]
            fn product_start() -> $t {
                1
            }
        }
    )*};
}

integer_reductions!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

/// Where a lowered `iter().sum()` starts.
#[inline(always)]
pub fn sum_start<T: ReductionStart>() -> T {
    T::sum_start()
}

/// Where a lowered `iter().product()` starts.
#[inline(always)]
pub fn product_start<T: ReductionStart>() -> T {
    T::product_start()
}

/// The value of a loop counter (`l += step` once per iteration) read in iteration
/// `iteration`, from its value before the loop: wrapping arithmetic gives the counter's value
/// whenever the forward sweep computed it without overflow.
#[inline(always)]
pub fn counter_at<C: Counter>(
    entry: C,
    iteration: usize,
    step: C,
    up: bool,
    after_step: bool,
) -> C {
    let steps = C::from_count(iteration + usize::from(after_step));
    let distance = steps.wrapping_times(step);
    if up {
        entry.wrapping_plus(distance)
    } else {
        entry.wrapping_minus(distance)
    }
}

/// A loop counter's value before a loop of `count` iterations that stepped it by `step` each,
/// from its value after the loop: the backward sweep steps back row by row through a triangle
/// walked by one counter.
#[inline(always)]
pub fn counter_before<C: Counter>(after: C, count: usize, step: C, up: bool) -> C {
    let distance = C::from_count(count).wrapping_times(step);
    if up {
        after.wrapping_minus(distance)
    } else {
        after.wrapping_plus(distance)
    }
}

/// An integer type a loop counter may have.
pub trait Counter: Copy {
    fn from_count(count: usize) -> Self;
    fn wrapping_times(self, other: Self) -> Self;
    fn wrapping_plus(self, other: Self) -> Self;
    fn wrapping_minus(self, other: Self) -> Self;
}

macro_rules! counters {
    ($($t:ty)*) => {$(
        impl Counter for $t {
            #[inline(always)]
            fn from_count(count: usize) -> Self {
                count as $t
            }
            #[inline(always)]
            fn wrapping_times(self, other: Self) -> Self {
                self.wrapping_mul(other)
            }
            #[inline(always)]
            fn wrapping_plus(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
            #[inline(always)]
            fn wrapping_minus(self, other: Self) -> Self {
                self.wrapping_sub(other)
            }
        }
    )*};
}

counters!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

/// The states a local container had at the end of each iteration of a loop, for the
/// backward code of each iteration to read its elements again (`ir::restore` in the macro
/// crate). Kept flat, element by element: saving a state allocates nothing of its own, and
/// restoring one copies nothing (the backward code reads it where it was saved).
pub struct States<C: State> {
    elements: Stack<C::Element>,
    lengths: Stack<usize>,
    /// How many entries at the top of `elements` the last restored state holds: they stay
    /// until the next restore, as the backward code reads them until then.
    restored: usize,
    container: core::marker::PhantomData<C>,
}

impl<C: State> States<C> {
    #[inline(always)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        States {
            elements: Stack::new(),
            lengths: Stack::new(),
            restored: 0,
            container: core::marker::PhantomData,
        }
    }

    /// Room for `additional` more states (of unknown sizes: only their lengths).
    #[inline(always)]
    pub fn reserve(&mut self, additional: usize) {
        self.lengths.reserve(additional);
    }

    #[inline(always)]
    pub fn save(&mut self, container: &C) {
        self.elements.push_slice(container.elements());
        self.lengths.push(container.elements().len());
    }

    /// The last state saved and not restored yet.
    #[inline(always)]
    pub fn restore(&mut self) -> &C::View {
        self.elements.drop_top(self.restored);
        self.restored = self.lengths.pop();
        C::view(self.elements.top_slice(self.restored))
    }

    /// Drops the last state restored, before states are saved again (the backward code of an
    /// eager loop's iteration runs before the next iteration saves its own).
    #[inline(always)]
    pub fn release(&mut self) {
        self.elements.drop_top(self.restored);
        self.restored = 0;
    }
}

/// A container whose states [`States`] keeps: a `Vec` or an array of `Clone` elements.
pub trait State {
    type Element: Clone;
    /// What the backward code reads a restored state as: a `Vec`'s is a slice, whose address
    /// and length the compiler keeps in registers (a `Vec`'s header, behind a reference, it
    /// would read again after every store to a float).
    type View: ?Sized;
    fn elements(&self) -> &[Self::Element];
    /// The view of a state saved from `elements()`.
    fn view(elements: &[Self::Element]) -> &Self::View;
}

impl<T: Clone> State for Vec<T> {
    type Element = T;
    type View = [T];

    #[inline(always)]
    fn elements(&self) -> &[T] {
        self
    }

    #[inline(always)]
    fn view(elements: &[T]) -> &[T] {
        elements
    }
}

impl<T: Clone, const N: usize> State for [T; N] {
    type Element = T;
    type View = [T; N];

    #[inline(always)]
    fn elements(&self) -> &[T] {
        self
    }

    #[inline(always)]
    fn view(elements: &[T]) -> &[T; N] {
        match elements.try_into() {
            Ok(array) => array,
            Err(_) => nothing_kept(),
        }
    }
}

/// The adjoint of element `index` of a container's adjoint, and of the elements `start..end`
/// (a sub-slice's).
pub trait Slots {
    type Element;
    fn slot(&mut self, index: usize) -> &mut Self::Element;
    fn slots(&mut self, start: usize, end: usize) -> &mut [Self::Element];
}

/// A `Vec`'s adjoint starts empty (a symbolic zero) and grows with zeros to where it is
/// reached.
impl<T: Adjoint> Slots for Vec<T> {
    type Element = T;
    #[inline(always)]
    fn slot(&mut self, index: usize) -> &mut T {
        if index >= self.len() {
            grow_to(self, index);
        }
        &mut self[index]
    }
    #[inline(always)]
    fn slots(&mut self, start: usize, end: usize) -> &mut [T] {
        if end > self.len() {
            grow_to(self, end - 1);
        }
        &mut self[start..end]
    }
}

/// Out of the hot path: inside a loop the adjoint has its length after the first iteration,
/// and code that never reallocates keeps the buffer's address in a register.
#[cold]
#[inline(never)]
fn grow_to<T: Adjoint>(adjoint: &mut Vec<T>, index: usize) {
    adjoint.resize(index + 1, T::zero());
}

impl<T, const N: usize> Slots for [T; N] {
    type Element = T;
    #[inline(always)]
    fn slot(&mut self, index: usize) -> &mut T {
        &mut self[index]
    }
    #[inline(always)]
    fn slots(&mut self, start: usize, end: usize) -> &mut [T] {
        &mut self[start..end]
    }
}

/// A sub-slice of a shadow, which `slots` grew to its end.
impl<T> Slots for [T] {
    type Element = T;
    #[inline(always)]
    fn slot(&mut self, index: usize) -> &mut T {
        &mut self[index]
    }
    #[inline(always)]
    fn slots(&mut self, start: usize, end: usize) -> &mut [T] {
        &mut self[start..end]
    }
}

/// The adjoint of element `index` of a value's adjoint, whatever indexes it: a position in a
/// container's ([`Slots`]), a position or a `(row, column)` pair in a matrix's
/// (`crate::linalg`).
pub trait SlotAt<I> {
    type Element;
    fn slot_at(&mut self, index: I) -> &mut Self::Element;
}

impl<C: Slots + ?Sized> SlotAt<usize> for C {
    type Element = C::Element;
    #[inline(always)]
    fn slot_at(&mut self, index: usize) -> &mut C::Element {
        self.slot(index)
    }
}

#[inline(always)]
pub fn slot<C: SlotAt<I> + ?Sized, I>(adjoint: &mut C, index: I) -> &mut C::Element {
    adjoint.slot_at(index)
}

#[inline(always)]
pub fn slots<C: Slots + ?Sized>(adjoint: &mut C, start: usize, end: usize) -> &mut [C::Element] {
    adjoint.slots(start, end)
}

/// The adjoint type of a value, held without the value (zero-sized): the backward sweep makes
/// the value's adjoint from it.
pub struct AdjointOf<A>(core::marker::PhantomData<A>);

impl<A> Clone for AdjointOf<A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A> Copy for AdjointOf<A> {}

impl<A: Adjoint> AdjointOf<A> {
    /// Before the value exists (its type is inferred from the assignment that follows).
    #[inline(always)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        AdjointOf(core::marker::PhantomData)
    }

    #[inline(always)]
    pub fn zero(self) -> A {
        A::zero()
    }
}

/// The adjoint of a variable whose zero has the shape of its value (a nalgebra matrix, whose
/// adjoint cannot grow to where its elements are reached without knowing its rows): the zero
/// itself, kept where the variable is assigned.
pub struct ShapedAdjointOf<A>(Option<A>);

impl<A: Adjoint> ShapedAdjointOf<A> {
    /// Before the variable is assigned.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        ShapedAdjointOf(None)
    }

    pub fn of<T: crate::adjoint::Diff<Adjoint = A> + ?Sized>(value: &T) -> Self {
        ShapedAdjointOf(Some(value.zero_like()))
    }

    pub fn zero(&self) -> A {
        self.0.clone().unwrap_or_else(A::zero)
    }
}

/// The zero adjoint of a value passed to a call (`Diff::argument_zero`).
#[inline(always)]
pub fn argument_zero<T: crate::adjoint::Diff + ?Sized>(value: &T) -> T::Adjoint {
    value.argument_zero()
}

#[inline(always)]
pub fn adjoint_of<T: crate::adjoint::Diff + ?Sized>(_: &T) -> AdjointOf<T::Adjoint> {
    AdjointOf(core::marker::PhantomData)
}

/// A variable lent `&mut` to a differentiated call: `adjoint_of` when its type has adjoints,
/// `NoAdjoint` when it is data of a type that has none (a random-number generator), whose
/// slot in the callee's pullback holds nothing. Called as `(&LentProbe(&v)).__ad_adjoint_of()`
/// with [`LentDiff`] and [`LentData`] in scope: method resolution takes the first that applies.
pub struct LentProbe<'a, T: ?Sized>(pub &'a T);

pub trait LentDiff {
    type Adjoint;
    fn __ad_adjoint_of(&self) -> AdjointOf<Self::Adjoint>;
    /// The loan's adjoint: a zero shaped as the place at the call (`argument_zero`).
    fn __ad_argument_zero(&self) -> Self::Adjoint;
}

impl<T: crate::adjoint::Diff + ?Sized> LentDiff for LentProbe<'_, T> {
    type Adjoint = T::Adjoint;
    #[inline(always)]
    fn __ad_adjoint_of(&self) -> AdjointOf<T::Adjoint> {
        AdjointOf(core::marker::PhantomData)
    }

    #[inline(always)]
    fn __ad_argument_zero(&self) -> T::Adjoint {
        self.0.argument_zero()
    }
}

pub trait LentData {
    fn __ad_adjoint_of(&self) -> AdjointOf<NoAdjoint>;
    fn __ad_argument_zero(&self) -> NoAdjoint;
}

impl<T: ?Sized> LentData for &LentProbe<'_, T> {
    #[inline(always)]
    fn __ad_adjoint_of(&self) -> AdjointOf<NoAdjoint> {
        AdjointOf(core::marker::PhantomData)
    }

    #[inline(always)]
    fn __ad_argument_zero(&self) -> NoAdjoint {
        NoAdjoint
    }
}

/// The pullback of `vec![x; n]` and `[x; N]`: every element's adjoint goes to `x`.
pub fn repeat_back<T: Adjoint>(cotangent: impl IntoIterator<Item = T>) -> T {
    let mut total = T::zero();
    for element in cotangent {
        total.accumulate(element);
    }
    total
}

/// The pullback of `vec![a, b, ..]` (`count` elements): each element's adjoint, in order.
pub fn elements_back<T: Adjoint>(mut cotangent: Vec<T>, count: usize) -> Vec<T> {
    cotangent.resize(count, T::zero());
    cotangent
}

/// The pullback of `v.push(x)` at index `index` (the length before): the adjoint of the
/// pushed element, and the shadow shrinks back to the length before, as the value did.
pub fn unpush<T: Adjoint>(adjoint: &mut Vec<T>, index: usize) -> T {
    let element = if index < adjoint.len() {
        core::mem::replace(&mut adjoint[index], T::zero())
    } else {
        T::zero()
    };
    adjoint.truncate(index);
    element
}

/// The adjoint of the operand of `x as f64`, from the cotangent of the result: the cotangent
/// for a float, nothing for an integer.
pub trait CastBack<S> {
    fn cast_back(cotangent: S) -> Self;
}

impl<S: Scalar> CastBack<S> for S {
    #[inline(always)]
    fn cast_back(cotangent: S) -> S {
        cotangent
    }
}

impl<S> CastBack<S> for NoAdjoint {
    #[inline(always)]
    fn cast_back(_: S) -> NoAdjoint {
        NoAdjoint
    }
}

#[inline(always)]
pub fn cast_back<S, A: CastBack<S>>(cotangent: S) -> A {
    A::cast_back(cotangent)
}

/// The `k`-th element of a range that starts at `start` (the binding of the `k`-th iteration
/// of a `for` over it), for the backward sweep to compute instead of keeping it.
pub trait RangeStart: Copy {
    fn nth_of_range(self, k: usize) -> Self;
    fn count_to(self, end: Self, inclusive: bool) -> usize;
}

macro_rules! range_start {
    ($($t:ty)*) => {$(
        impl RangeStart for $t {
            #[inline(always)]
            fn nth_of_range(self, k: usize) -> Self {
                // In `i128`: `k` may not fit the range's type (an `i8` range of 200 steps),
                // though `self + k` does.
                (self as i128 + k as i128) as $t
            }

            #[inline(always)]
            fn count_to(self, end: Self, inclusive: bool) -> usize {
                // In `i128`, where the difference of two `i8`s does not overflow.
                let length = end as i128 - self as i128 + i128::from(inclusive);
                length.max(0) as usize
            }
        }
    )*};
}

range_start!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

/// The length of `start..end` (`start..=end` when `inclusive`): the trip count of a `for`
/// over it that is not left early.
#[inline(always)]
pub fn range_count<T: RangeStart>(start: T, end: &T, inclusive: bool) -> usize {
    start.count_to(*end, inclusive)
}

/// `end` only gives the type: a range `0..n` binds values of `n`'s type.
#[inline(always)]
pub fn nth_of_range<T: RangeStart>(start: T, _end: &T, k: usize) -> T {
    start.nth_of_range(k)
}

/// An `Option` or a fallible `Result` taken apart as `unwrap_or` takes it: whether it holds a
/// value, and the value (which it then holds).
pub trait Contents {
    type Content;
    fn __ad_holds(&self) -> bool;
    fn __ad_content(self) -> Self::Content;
}

impl<T> Contents for Option<T> {
    type Content = T;
    #[inline(always)]
    fn __ad_holds(&self) -> bool {
        self.is_some()
    }
    #[inline(always)]
    fn __ad_content(self) -> T {
        match self {
            Some(content) => content,
            None => unreachable!("tested by `__ad_holds`"),
        }
    }
}

impl<T, E> Contents for Result<T, E> {
    type Content = T;
    #[inline(always)]
    fn __ad_holds(&self) -> bool {
        self.is_ok()
    }
    #[inline(always)]
    fn __ad_content(self) -> T {
        match self {
            Ok(content) => content,
            Err(_) => unreachable!("tested by `__ad_holds`"),
        }
    }
}

/// The error `?` returns, converted as `?` converts it.
#[inline(always)]
pub fn convert_error<E, F: From<E>>(error: E) -> F {
    F::from(error)
}

/// What the exit variable of a function returning a `Result` holds before an exit assigns it
/// (every path does; a `Result` has no default to start from).
#[inline(always)]
pub fn unset_result<T: Default, E>() -> Result<T, E> {
    Ok(T::default())
}

/// The pullback of `Some(x)`: the adjoint of `x` (zero when none reached the option).
#[inline(always)]
pub fn some_back<T: Adjoint>(cotangent: Option<T>) -> T {
    cotangent.unwrap_or_else(T::zero)
}

/// The pullback of `o.unwrap()` (the option was `Some`).
#[inline(always)]
pub fn unwrap_back<T>(cotangent: T) -> Option<T> {
    Some(cotangent)
}

#[inline(always)]
pub fn value_of<T: crate::adjoint::ValueOf>(operand: T) -> T::Value {
    operand.value_of()
}

/// The cotangent given to a pullback must have the result's shape (`expected` is the zero
/// adjoint of the result).
pub fn check_cotangent<A: Adjoint>(expected: &A, cotangent: &A) {
    assert!(
        expected.same_shape(cotangent),
        "a cotangent must have the shape of the result (the lengths of the `Vec`s in it)"
    );
}

/// An adjoint as the flat list of its floats, in the order of
/// [`Differentiable::for_each`](crate::Differentiable::for_each): how a reverse companion
/// gives the adjoint of a `#[grad]` parameter of a derived type, and takes it back from a
/// callee.
pub trait FlatAdjoint<S> {
    /// Appends the floats.
    fn flatten_into(&self, out: &mut Vec<S>);
    /// Adds floats taken in that order.
    fn add_flat(&mut self, flat: &mut dyn Iterator<Item = S>);
}

impl<S: Scalar> FlatAdjoint<S> for S {
    #[inline(always)]
    fn flatten_into(&self, out: &mut Vec<S>) {
        out.push(*self);
    }

    #[inline(always)]
    fn add_flat(&mut self, flat: &mut dyn Iterator<Item = S>) {
        match flat.next() {
            Some(part) => *self += part,
            None => crate::__private::shapes_differ("the adjoint's floats and the value's"),
        }
    }
}

macro_rules! flat_tuples {
    ($(($($name:ident $index:tt),+))*) => {$(
        impl<S, $($name: FlatAdjoint<S>),+> FlatAdjoint<S> for ($($name,)+) {
            fn flatten_into(&self, out: &mut Vec<S>) {
                $(self.$index.flatten_into(out);)+
            }

            fn add_flat(&mut self, flat: &mut dyn Iterator<Item = S>) {
                $(self.$index.add_flat(flat);)+
            }
        }
    )*};
}

for_each_tuple!(flat_tuples);

impl<S> FlatAdjoint<S> for NoAdjoint {
    #[inline(always)]
    fn flatten_into(&self, _: &mut Vec<S>) {}

    #[inline(always)]
    fn add_flat(&mut self, _: &mut dyn Iterator<Item = S>) {}
}

impl<S, A: FlatAdjoint<S>> FlatAdjoint<S> for Vec<A> {
    fn flatten_into(&self, out: &mut Vec<S>) {
        self.iter().for_each(|part| part.flatten_into(out));
    }

    fn add_flat(&mut self, flat: &mut dyn Iterator<Item = S>) {
        self.iter_mut().for_each(|part| part.add_flat(flat));
    }
}

impl<S, A: FlatAdjoint<S>, const N: usize> FlatAdjoint<S> for [A; N] {
    fn flatten_into(&self, out: &mut Vec<S>) {
        self.iter().for_each(|part| part.flatten_into(out));
    }

    fn add_flat(&mut self, flat: &mut dyn Iterator<Item = S>) {
        self.iter_mut().for_each(|part| part.add_flat(flat));
    }
}

impl<S, A: FlatAdjoint<S>> FlatAdjoint<S> for Option<A> {
    fn flatten_into(&self, out: &mut Vec<S>) {
        if let Some(part) = self {
            part.flatten_into(out);
        }
    }

    fn add_flat(&mut self, flat: &mut dyn Iterator<Item = S>) {
        if let Some(part) = self {
            part.add_flat(flat);
        }
    }
}

impl<S, A: FlatAdjoint<S>> FlatAdjoint<S> for crate::adjoint::BoxAdjoint<A> {
    fn flatten_into(&self, out: &mut Vec<S>) {
        self.0.flatten_into(out);
    }

    fn add_flat(&mut self, flat: &mut dyn Iterator<Item = S>) {
        self.0.add_flat(flat);
    }
}

impl<S, A: AccumulateArgument<Vec<S>>> AccumulateArgument<Vec<S>>
    for crate::adjoint::BoxAdjoint<A>
{
    fn accumulate_argument(&mut self, contribution: Vec<S>) {
        self.0.accumulate_argument(contribution);
    }
}

/// The flat adjoint of a `#[grad]` parameter, for the companion's caller.
pub fn flatten<S, A: FlatAdjoint<S>>(adjoint: &A) -> Vec<S> {
    let mut out = Vec::new();
    adjoint.flatten_into(&mut out);
    out
}

/// What a `for` over a local whose type the code does not show gives at index `index` (`for k
/// in knots`, `knots` bound by a pattern, returned by a call): as the type's own `for` does,
/// a reference into a borrowed container, the element of an owned one. The loop runs over
/// indices so that each item's adjoint goes to the same place in the container's shadow.
#[diagnostic::on_unimplemented(
    message = "reverse mode iterates a container by its indices, and this value is not one it takes",
    label = "iterated here",
    note = "iterate a slice, an array, a `Vec` or a reference to one (`for v in &values`, `values.iter()`)"
)]
pub trait ForItems {
    type Item;
    fn items_len(&self) -> usize;
    fn item(&self, index: usize) -> Self::Item;
}

impl<'a, T> ForItems for &'a [T] {
    type Item = &'a T;
    #[inline(always)]
    fn items_len(&self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn item(&self, index: usize) -> &'a T {
        let items: &'a [T] = self;
        &items[index]
    }
}

impl<'a, T> ForItems for &'a Vec<T> {
    type Item = &'a T;
    #[inline(always)]
    fn items_len(&self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn item(&self, index: usize) -> &'a T {
        let items: &'a Vec<T> = self;
        &items[index]
    }
}

impl<'a, T, const N: usize> ForItems for &'a [T; N] {
    type Item = &'a T;
    #[inline(always)]
    fn items_len(&self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn item(&self, index: usize) -> &'a T {
        let items: &'a [T; N] = self;
        &items[index]
    }
}

/// Owned elements, read rather than moved out: of a `Vec`, of an array, and of a sub-slice
/// named by its place (`&v[a..b]` bound to a local the code does not type), as the `Vec`'s.
macro_rules! for_owned_items {
    ($([$($generics:tt)*] $container:ty;)*) => {$(
        impl<$($generics)*> ForItems for $container {
            type Item = T;
            #[inline(always)]
            fn items_len(&self) -> usize {
                self.len()
            }
            #[inline(always)]
            fn item(&self, index: usize) -> T {
                self[index].clone()
            }
        }
    )*};
}

for_owned_items! {
    [T: Clone] Vec<T>;
    [T: Clone] [T];
    [T: Clone, const N: usize] [T; N];
}

#[inline(always)]
pub fn iterated<C: ForItems + ?Sized>(items: &C, index: usize) -> C::Item {
    items.item(index)
}

/// The size of `windows(size)` and `chunks(size)`, which must not be zero (`std` panics), and
/// the lengths `copy_from_slice` requires equal.
pub struct SubSlices;

impl SubSlices {
    #[inline(always)]
    pub fn size(&self, size: usize) -> usize {
        assert!(size != 0, "window or chunk size must be non-zero");
        size
    }

    #[inline(always)]
    pub fn same_length(&self, destination: usize, source: usize) {
        assert_eq!(
            destination, source,
            "source slice length ({source}) does not match destination slice length ({destination})"
        );
    }

    /// How many elements `resize(new_len, ..)` adds to `len` (an integer literal `new_len`
    /// takes its type here).
    #[inline(always)]
    pub fn added(&self, len: usize, new_len: usize) -> usize {
        new_len.saturating_sub(len)
    }
}

/// The order `sort_by(compare)` puts a slice's elements in: a stable sort of their indices, so
/// the sorted slice is each element at its index in the order.
pub struct SortOrder;

impl SortOrder {
    /// The indices of the items `retain(keep)` keeps, in order.
    pub fn kept<T>(&self, items: &[T], mut keep: impl FnMut(&T) -> bool) -> Vec<usize> {
        (0..items.len()).filter(|&i| keep(&items[i])).collect()
    }

    /// [`SortOrder::kept`] by a test that reads locals of the body, as
    /// [`SortOrder::of_captured`] takes them.
    pub fn kept_captured<T, C>(
        &self,
        items: &[T],
        captures: C,
        keep: impl Fn(&C, &T) -> bool,
    ) -> Vec<usize> {
        self.kept(items, |item| keep(&captures, item))
    }

    pub fn of<T>(
        &self,
        items: &[T],
        mut compare: impl FnMut(&T, &T) -> core::cmp::Ordering,
    ) -> Vec<usize> {
        let mut order: Vec<usize> = (0..items.len()).collect();
        order.sort_by(|&i, &j| compare(&items[i], &items[j]));
        order
    }
}

/// A local a comparator reads, lent to it (`SortOrder::of_captured`): the value itself where
/// it is `Copy` (`(&CaptureProbe(n)).__ad_captured()` of an index is the index, so `i < n`
/// reads as written), the reference otherwise (a `Vec`).
pub struct CaptureProbe<T>(pub T);

/// [`CaptureProbe`] of a `Copy` value: the value.
pub trait CaptureByCopy {
    type Captured;
    fn __ad_captured(&self) -> Self::Captured;
}

impl<T: Copy> CaptureByCopy for CaptureProbe<&T> {
    type Captured = T;
    #[inline(always)]
    fn __ad_captured(&self) -> T {
        *self.0
    }
}

/// [`CaptureProbe`] of anything else: the reference.
pub trait CaptureByReference {
    type Captured;
    fn __ad_captured(&self) -> Self::Captured;
}

impl<'a, T: ?Sized> CaptureByReference for &CaptureProbe<&'a T> {
    type Captured = &'a T;
    #[inline(always)]
    fn __ad_captured(&self) -> &'a T {
        self.0
    }
}

impl SortOrder {
    /// [`SortOrder::of`] by a comparator that reads locals of the body (`|&i, &j|
    /// x[i].partial_cmp(&x[j]).unwrap()`, sorting indices by values): the locals lent to it as
    /// a tuple, which it takes apart. What it gives is an ordering, data, whatever it reads.
    pub fn of_captured<T, C>(
        &self,
        items: &[T],
        captures: C,
        compare: impl Fn(&C, &T, &T) -> core::cmp::Ordering,
    ) -> Vec<usize> {
        self.of(items, |a, b| compare(&captures, a, b))
    }
}

/// The number of items a `for` over a value whose type the code does not show runs over.
pub struct ItemsLength;

impl ItemsLength {
    #[inline(always)]
    pub fn of<C: ForItems + ?Sized>(&self, items: &C) -> usize {
        items.items_len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_bindings_and_trip_counts() {
        // What `for` binds at iteration k, and how many iterations, for the range types the
        // backward sweep computes them for: empty, inclusive, negative, narrow integers.
        for (start, end) in [(0usize, 0usize), (0, 5), (3, 7), (7, 3)] {
            let forward: Vec<usize> = (start..end).collect();
            assert_eq!(range_count(start, &end, false), forward.len());
            for (k, value) in forward.iter().enumerate() {
                assert_eq!(nth_of_range(start, &end, k), *value);
            }
            assert_eq!(range_count(start, &end, true), (start..=end).count());
        }
        assert_eq!(range_count(-100_i8, &100, false), 200);
        assert_eq!(range_count(-100_i8, &100, true), 201);
        assert_eq!(nth_of_range(-100_i8, &100, 199), 99);
        assert_eq!(range_count(5_i32, &-5, true), 0);
        assert_eq!(range_count(u64::MAX - 2, &u64::MAX, true), 3);
    }

    #[test]
    fn counters_are_computed_from_the_iteration() {
        // `l` stepped as a loop steps it, read before and after the step of each iteration.
        for (entry, step, up) in [(7usize, 1usize, true), (100, 3, false), (0, 2, true)] {
            let mut l = entry;
            for iteration in 0..20 {
                assert_eq!(counter_at(entry, iteration, step, up, false), l);
                l = if up { l + step } else { l - step };
                assert_eq!(counter_at(entry, iteration, step, up, true), l);
            }
        }
        assert_eq!(counter_at(-5_i8, 100, 1, true, true), 96);
        assert_eq!(counter_at(120_i8, 200, 1, false, false), -80);
    }

    #[test]
    fn states_restore_what_was_saved_last_first() {
        let mut vectors = States::new();
        let mut arrays = States::new();
        // Empty states, short ones, and now and then one longer than a whole chunk.
        let length = |round: usize| (round % 7) * if round % 50 == 3 { 3000 } else { 1 };
        for round in 0..300 {
            let vector: Vec<f64> = (0..length(round))
                .map(|k| (round * 10 + k) as f64)
                .collect();
            vectors.save(&vector);
            arrays.save(&[round, round + 1, round + 2]);
        }
        for round in (0..300).rev() {
            let vector: Vec<f64> = (0..length(round))
                .map(|k| (round * 10 + k) as f64)
                .collect();
            assert_eq!(vectors.restore(), &vector);
            assert_eq!(arrays.restore(), &[round, round + 1, round + 2]);
        }
    }

    #[test]
    fn zeros_kept_only_where_the_value_shapes_them() {
        // A float's zero is made, not kept: nothing is pushed.
        let mut floats: Stack<f64> = Stack::new();
        floats.keep_zero(0.0);
        assert!(floats.current.is_empty() && floats.chunks.is_empty());
        assert_eq!(floats.zero_back().to_bits(), 0.0_f64.to_bits());
        // A `Vec`'s zero has the value's length: kept, and given back last first.
        let mut vectors: Stack<Vec<f64>> = Stack::new();
        vectors.reserve_zeros(2);
        vectors.keep_zero(vec![0.0; 3]);
        vectors.keep_zero(vec![0.0; 1]);
        assert_eq!(vectors.zero_back().len(), 1);
        assert_eq!(vectors.zero_back().len(), 3);
    }

    #[test]
    fn a_dropped_stack_drops_what_it_still_holds() {
        // Several chunks of full size (8192 entries of 8 bytes), which go to the thread's pool.
        let counter = std::rc::Rc::new(());
        for popped in [0, 5, 20_000] {
            let mut stack = Stack::new();
            for _ in 0..20_000 {
                stack.push(counter.clone());
            }
            for _ in 0..popped {
                stack.pop();
            }
            drop(stack);
            assert_eq!(std::rc::Rc::strong_count(&counter), 1);
        }
        // A stack after them takes the pooled chunks and works as a fresh one.
        let mut stack = Stack::new();
        for k in 0..20_000u64 {
            stack.push(k);
        }
        assert!((0..20_000u64).rev().all(|k| stack.pop() == k));
    }

    #[test]
    fn sums_and_products_start_as_std_does() {
        assert_eq!(sum_start::<f64>().to_bits(), (-0.0_f64).to_bits());
        assert_eq!(product_start::<f32>(), 1.0);
        assert_eq!(sum_start::<usize>(), 0);
        assert_eq!(product_start::<i32>(), 1);
        // Adding to the start gives the first element exactly, as `Iterator::sum` does.
        let empty: [f64; 0] = [];
        assert_eq!(
            sum_start::<f64>().to_bits(),
            empty.iter().sum::<f64>().to_bits()
        );
        assert_eq!((sum_start::<f64>() + -0.0).to_bits(), (-0.0_f64).to_bits());
    }

    #[test]
    fn exact_zero_leaves_what_is_added_unchanged() {
        use crate::adjoint::Adjoint;
        let mut overwritten = 2.5_f64;
        assert_eq!(vacate(&mut overwritten), 2.5);
        assert_eq!((overwritten + -0.0_f64).to_bits(), (-0.0_f64).to_bits());
        assert_eq!((overwritten + 1.5).to_bits(), 1.5_f64.to_bits());
        assert_eq!(<Vec<f64> as Adjoint>::exact_zero(), Vec::<f64>::new());
    }

    #[test]
    fn stack_gives_back_last_first_across_chunks() {
        // Pushes past the inline entries and several chunks, with reservations that open a
        // chunk early, as a loop nest's forward sweep does; the pops see the reverse order.
        let mut stack = Stack::new();
        let mut pushed = Vec::new();
        for round in 0..50_000u64 {
            if round % 997 == 0 {
                stack.reserve((round % 31) as usize);
            }
            stack.push(round);
            pushed.push(round);
        }
        // Pops into earlier chunks, then pushes again into the spent ones.
        for _ in 0..30_000 {
            assert_eq!(Some(stack.pop()), pushed.pop());
        }
        for round in 0..20_000u64 {
            stack.push(round + 1_000_000);
            pushed.push(round + 1_000_000);
        }
        while let Some(expected) = pushed.pop() {
            assert_eq!(stack.pop(), expected);
        }
        let mut units = Stack::new();
        for _ in 0..100 {
            units.push(());
        }
        for _ in 0..100 {
            units.pop();
        }
    }

    #[test]
    fn a_short_stack_takes_its_chunk_from_the_pool_each_time() {
        // As a function called per data point keeps a few values per call.
        let first_chunk = |trips: usize| {
            let mut stack = Stack::new();
            stack.reserve(trips);
            for i in 0..trips {
                stack.push(i as f32);
            }
            let address = stack.top_slice(trips).as_ptr() as usize;
            for i in (0..trips).rev() {
                assert_eq!(stack.pop(), i as f32);
            }
            address
        };
        let address = first_chunk(25);
        // A reservation of another length that rounds up to the same chunk.
        assert_eq!(first_chunk(30), address);
        assert_eq!(first_chunk(25), address);
    }
}

/// What a variable holds on the path that leaves before its `let` gets a value (`let v: f64 =
/// match i { 0 => { if c { return x; } y } _ => z };`): the exits are flags in the derivative
/// code, through which rustc does not see the variable unassigned; nothing reads the stand-in.
#[diagnostic::on_unimplemented(
    message = "reverse mode needs a stand-in value of this `let`'s type for the path that leaves before it gets its value",
    label = "this `let`'s value leaves early on some paths",
    note = "a float, an integer, `bool`, an `Option`, a `Vec`, an array or a tuple of those has one; for another type, compute the value first and leave after the `let`"
)]
pub trait StandIn {
    /// The stand-in.
    fn stand_in() -> Self;
}

/// See [`StandIn`].
#[inline(always)]
pub fn stand_in<T: StandIn>() -> T {
    T::stand_in()
}

impl<S: Scalar> StandIn for S {
    #[inline(always)]
    fn stand_in() -> S {
        S::zero()
    }
}

macro_rules! stand_in_default {
    ($($data:ty)*) => {$(
        impl StandIn for $data {
            #[inline(always)]
            fn stand_in() -> $data {
                <$data>::default()
            }
        }
    )*};
}

stand_in_default!(bool usize u8 u16 u32 u64 u128 isize i8 i16 i32 i64 i128);

impl<T> StandIn for Option<T> {
    #[inline(always)]
    fn stand_in() -> Option<T> {
        None
    }
}

impl<T> StandIn for Vec<T> {
    #[inline(always)]
    fn stand_in() -> Vec<T> {
        Vec::new()
    }
}

impl<T: StandIn, const N: usize> StandIn for [T; N] {
    #[inline(always)]
    fn stand_in() -> [T; N] {
        core::array::from_fn(|_| T::stand_in())
    }
}

macro_rules! stand_in_tuples {
    ($(($($part:ident),*))*) => {$(
        impl<$($part: StandIn),*> StandIn for ($($part,)*) {
            #[inline(always)]
            fn stand_in() -> Self {
                ($($part::stand_in(),)*)
            }
        }
    )*};
}

stand_in_tuples!((A, B)(A, B, C)(A, B, C, D));
