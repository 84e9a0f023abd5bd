//! [`Slice`]: a typed, pinned view of graph data returned by the page layer.

use std::marker::PhantomData;
use std::ops::Deref;

/// Releases a pin taken by a backend (implemented by the buffer pool).
pub(crate) trait PinRelease: Sync {
    /// Unpins `pages` consecutive pages, the first identified by `key` (backend-specific).
    fn release(&self, key: u64, pages: u32);
}

/// What keeps the bytes of a [`Bytes`] alive.
enum Keep<'a> {
    /// Nothing to do: the bytes live as long as `'a` (mmap).
    Nothing,
    /// Pinned frames (first page's key, page count): released on drop.
    Pin(&'a dyn PinRelease, u64, u32),
    /// A private copy (8-byte aligned).
    Owned(#[allow(dead_code)] Vec<u64>),
}

/// Raw bytes from a backend, with whatever keeps them valid.
pub(crate) struct Bytes<'a> {
    ptr: *const u8,
    len: usize,
    keep: Keep<'a>,
}

impl<'a> Bytes<'a> {
    /// Bytes borrowed for `'a` with nothing to release.
    pub(crate) fn borrowed(data: &'a [u8]) -> Self {
        Bytes { ptr: data.as_ptr(), len: data.len(), keep: Keep::Nothing }
    }

    /// Bytes inside `pages` pinned frames (adjacent in memory when several);
    /// `release.release(key, pages)` is called on drop.
    pub(crate) fn pinned(data: &'a [u8], release: &'a dyn PinRelease, key: u64, pages: u32) -> Self {
        Bytes { ptr: data.as_ptr(), len: data.len(), keep: Keep::Pin(release, key, pages) }
    }

    /// A private copy: the first `len` bytes of `buf`.
    pub(crate) fn owned(buf: Vec<u64>, len: usize) -> Self {
        assert!(len <= buf.len() * 8);
        Bytes { ptr: buf.as_ptr() as *const u8, len, keep: Keep::Owned(buf) }
    }

    /// Converts to a typed slice. The byte length must be a multiple of `size_of::<T>()` and the
    /// start aligned for `T`; callers guarantee both (file offsets are multiples of the element size,
    /// frames and copies are 8-byte aligned).
    pub(crate) fn typed<T: bytemuck::Pod>(self) -> Slice<'a, T> {
        let size = std::mem::size_of::<T>();
        // An empty range may come from an empty mapping whose pointer is not aligned for T.
        assert!(
            self.len.is_multiple_of(size)
                && (self.len == 0 || (self.ptr as usize).is_multiple_of(std::mem::align_of::<T>()))
        );
        Slice { ptr: self.ptr as *const T, len: self.len / size, _bytes: self, _t: PhantomData }
    }
}

impl Drop for Bytes<'_> {
    fn drop(&mut self) {
        if let Keep::Pin(release, key, pages) = self.keep {
            release.release(key, pages);
        }
    }
}

/// A typed view of graph data (`u32` neighbours, `u64` offsets, `f32` weights).
///
/// Dereferences to `&[T]`. While it lives, the pages it covers stay pinned in the buffer pool
/// (or it owns a private copy when the range spanned frames that are not adjacent in memory).
/// Drop it promptly: pinned
/// frames cannot be evicted.
pub struct Slice<'a, T> {
    ptr: *const T,
    len: usize,
    _bytes: Bytes<'a>,
    _t: PhantomData<&'a [T]>,
}

// SAFETY: a Slice is a read-only view; the pinned frame or owned copy it points to is not
// mutated while the pin is held, and PinRelease is Sync, so sharing or sending it is sound.
unsafe impl<T: Sync> Send for Slice<'_, T> {}
// SAFETY: see above.
unsafe impl<T: Sync> Sync for Slice<'_, T> {}

impl<'a, T: bytemuck::Pod> Slice<'a, T> {
    /// A slice over plain memory (for in-memory adjacency implementations and tests).
    pub fn from_slice(data: &'a [T]) -> Slice<'a, T> {
        Bytes::borrowed(bytemuck::cast_slice(data)).typed()
    }

    /// A slice owning a copy of `values` (merged neighbour lists of updated vertices).
    pub(crate) fn owned(values: Vec<T>) -> Slice<'a, T> {
        let bytes: &[u8] = bytemuck::cast_slice(&values);
        let mut buf = vec![0u64; bytes.len().div_ceil(8)];
        bytemuck::cast_slice_mut::<u64, u8>(&mut buf)[..bytes.len()].copy_from_slice(bytes);
        Bytes::owned(buf, bytes.len()).typed()
    }
}

impl<T> Slice<'_, T> {
    /// Asks the CPU to start loading the cache line of element `i` (nothing when `i` is out of
    /// range): a scan calls it for data a few steps ahead, so that the load overlaps its work.
    #[inline]
    pub fn prefetch(&self, i: usize) {
        #[cfg(target_arch = "x86_64")]
        if i < self.len {
            // SAFETY: `_mm_prefetch` is a hint that never faults and reads nothing into the
            // program; SSE is part of x86_64's baseline, so the intrinsic's target feature is
            // always present. The address is inside the slice (`i < len`).
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    self.ptr.wrapping_add(i).cast::<i8>(),
                )
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }
}

impl<T> Deref for Slice<'_, T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `ptr` points to `len` initialised, aligned `T`s (checked in `Bytes::typed`)
        // that stay valid and unmodified while `_bytes` (borrowed mmap, pinned frame or owned
        // Vec whose heap buffer does not move) is alive, which is as long as `self`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Slice<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}
