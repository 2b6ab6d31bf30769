//! The chunks of [`Stack`](super::ir::Stack)s, kept from one gradient to the next on each
//! thread. A gradient's stacks are freed when its pullback returns; given back to the
//! allocator, their pages may go back to the system (glibc trims the top of its heap), and
//! the next gradient, an optimizer's next step, touches them afresh: a page fault per 4 KiB
//! it keeps. Measured on ADBench GMM (d10 K25) with an objective evaluated between gradients,
//! that doubled the gradient's time. Tapes of tape-based AD tools are reused the same way.

use std::alloc::Layout;
use std::cell::RefCell;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;

/// At most this many bytes of chunks are kept per thread; a gradient that keeps more gives the
/// rest back to the allocator.
const KEPT_BYTES: usize = 64 << 20;

/// Chunks smaller than this many bytes are kept apart, at most [`KEPT_SMALL`] of them: a
/// function called in a loop whose loops are short (a `logsumexp` per data point) takes its
/// stacks' first chunks from there instead of the allocator, and looking for one never walks
/// past the full-size chunks of a large gradient.
const SMALL_BYTES: usize = 1 << 14;
const KEPT_SMALL: usize = 256;

struct Pool {
    /// Allocations of the global allocator, each with the layout it was made with: full-size
    /// chunks, and small ones.
    free: Vec<(Layout, NonNull<u8>)>,
    small: Vec<(Layout, NonNull<u8>)>,
    bytes: usize,
}

impl Pool {
    fn list(&mut self, layout: Layout) -> &mut Vec<(Layout, NonNull<u8>)> {
        match layout.size() < SMALL_BYTES {
            true => &mut self.small,
            false => &mut self.free,
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        for (layout, pointer) in self.free.drain(..).chain(self.small.drain(..)) {
            // SAFETY: `pointer` was allocated by the global allocator with `layout` (a `Vec`'s
            // buffer, see `give_back`), and nothing else owns it.
            unsafe { std::alloc::dealloc(pointer.as_ptr(), layout) }
        }
    }
}

thread_local! {
    static POOL: RefCell<Pool> = const {
        RefCell::new(Pool {
            free: Vec::new(),
            small: Vec::new(),
            bytes: 0,
        })
    };
}

/// The layout of a `Vec<T>`'s buffer of `capacity`, if it has one to keep.
fn buffer_layout<T>(capacity: usize) -> Option<Layout> {
    if core::mem::size_of::<T>() == 0 || capacity == 0 {
        return None;
    }
    Layout::array::<T>(capacity).ok()
}

/// An empty `Vec` of exactly `capacity`: a kept buffer of the same layout if the thread has
/// one, a new one otherwise.
pub(crate) fn take<T>(capacity: usize) -> Vec<T> {
    if let Some(layout) = buffer_layout::<T>(capacity) {
        let found = POOL
            .try_with(|pool| {
                let mut pool = pool.borrow_mut();
                let list = pool.list(layout);
                let index = list.iter().rposition(|(kept, _)| *kept == layout)?;
                let (_, pointer) = list.remove(index);
                pool.bytes -= layout.size();
                Some(pointer)
            })
            .ok()
            .flatten();
        if let Some(pointer) = found {
            // SAFETY: the global allocator made `pointer` with `layout`, which is
            // `Layout::array::<T>(capacity)`: the alignment `T` needs and the size of
            // `capacity` of them, as `Vec::from_raw_parts` requires. Nothing else owns it.
            return unsafe { Vec::from_raw_parts(pointer.as_ptr().cast::<T>(), 0, capacity) };
        }
    }
    Vec::with_capacity(capacity)
}

/// Drops `chunk`'s elements and keeps its buffer for [`take`], while the thread keeps less
/// than [`KEPT_BYTES`].
pub(crate) fn give_back<T>(mut chunk: Vec<T>) {
    let Some(layout) = buffer_layout::<T>(chunk.capacity()) else {
        return;
    };
    // Before the pool is borrowed: an element may own stacks of its own (a callee's
    // pullback), which give theirs back as they drop.
    chunk.clear();
    let mut chunk = ManuallyDrop::new(chunk);
    let Some(pointer) = NonNull::new(chunk.as_mut_ptr().cast::<u8>()) else {
        return;
    };
    let kept = POOL
        .try_with(|pool| {
            let mut pool = pool.borrow_mut();
            let small = layout.size() < SMALL_BYTES;
            if pool.bytes + layout.size() > KEPT_BYTES || (small && pool.small.len() >= KEPT_SMALL)
            {
                return false;
            }
            pool.bytes += layout.size();
            pool.list(layout).push((layout, pointer));
            true
        })
        .unwrap_or(false);
    if !kept {
        drop(ManuallyDrop::into_inner(chunk));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_given_back_is_taken_again_by_any_type_of_its_layout() {
        let mut floats: Vec<f64> = take(512);
        floats.extend((0..512).map(f64::from));
        let address = floats.as_ptr() as usize;
        give_back(floats);
        // `u64` has `f64`'s layout: the same buffer, empty.
        let integers: Vec<u64> = take(512);
        assert_eq!((integers.as_ptr() as usize, integers.len()), (address, 0));
        assert_eq!(integers.capacity(), 512);
        give_back(integers);
        // Another layout is not served from it.
        let pairs: Vec<(f64, f64)> = take(512);
        assert_ne!(pairs.as_ptr() as usize, address);
    }

    #[test]
    fn elements_are_dropped_when_their_buffer_is_kept() {
        let counter = std::rc::Rc::new(());
        let mut chunk: Vec<std::rc::Rc<()>> = take(64);
        chunk.extend((0..10).map(|_| counter.clone()));
        give_back(chunk);
        assert_eq!(std::rc::Rc::strong_count(&counter), 1);
    }

    #[test]
    fn the_pool_keeps_a_bounded_number_of_bytes() {
        let chunk_bytes = 1 << 20;
        let chunks: Vec<Vec<u8>> = (0..KEPT_BYTES / chunk_bytes + 8)
            .map(|_| take(chunk_bytes))
            .collect();
        for chunk in chunks {
            give_back(chunk);
        }
        let kept = POOL.with(|pool| pool.borrow().bytes);
        assert!(kept <= KEPT_BYTES, "{kept} bytes kept");
    }

    #[test]
    fn the_pool_keeps_a_bounded_number_of_small_chunks_apart() {
        let small: Vec<Vec<u16>> = (0..KEPT_SMALL + 8).map(|_| take(48)).collect();
        let large: Vec<u8> = take(SMALL_BYTES);
        let large_address = large.as_ptr() as usize;
        give_back(large);
        for chunk in small {
            give_back(chunk);
        }
        POOL.with(|pool| {
            let pool = pool.borrow();
            assert!(pool.small.len() <= KEPT_SMALL);
            assert!(pool
                .small
                .iter()
                .all(|(layout, _)| layout.size() < SMALL_BYTES));
            assert!(pool
                .free
                .iter()
                .all(|(layout, _)| layout.size() >= SMALL_BYTES));
        });
        let large: Vec<u8> = take(SMALL_BYTES);
        assert_eq!(large.as_ptr() as usize, large_address);
    }
}
