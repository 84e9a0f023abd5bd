//! The frame memory: one 4096-aligned allocation made at open and never grown.

use std::alloc::{alloc_zeroed, dealloc, Layout};

/// `count` frames of `size` bytes each, contiguous and 4096-aligned (as O_DIRECT requires).
pub(super) struct FrameMemory {
    ptr: *mut u8,
    layout: Layout,
    size: usize,
    count: usize,
}

// SAFETY: the memory is plain bytes owned by this value; the pool's page-table protocol makes
// sure a frame is written only by the one thread that claimed it, while nobody reads it.
unsafe impl Send for FrameMemory {}
// SAFETY: see above.
unsafe impl Sync for FrameMemory {}

impl FrameMemory {
    /// Allocates `count` zeroed frames of `size` bytes (pages are committed lazily by the OS).
    pub(super) fn new(count: usize, size: usize) -> Option<FrameMemory> {
        let bytes = count.checked_mul(size)?;
        let layout = Layout::from_size_align(bytes, 4096).ok()?;
        if bytes == 0 {
            return None;
        }
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            return None;
        }
        Some(FrameMemory { ptr, layout, size, count })
    }

    /// Number of frames.
    pub(super) fn count(&self) -> usize {
        self.count
    }

    /// The bytes of frame `f`.
    ///
    /// # Safety
    /// The caller holds a pin on the page in `f` (or has claimed `f`), so no thread writes it.
    #[inline]
    pub(super) unsafe fn frame(&self, f: usize) -> &[u8] {
        debug_assert!(f < self.count);
        // SAFETY: `f < count`, so the range lies inside the allocation; no concurrent writer
        // by the caller's guarantee.
        unsafe { std::slice::from_raw_parts(self.ptr.add(f * self.size), self.size) }
    }

    /// The bytes of frame `f`, for writing.
    ///
    /// # Safety
    /// The caller has claimed `f` exclusively: no other thread reads or writes it meanwhile.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub(super) unsafe fn frame_mut(&self, f: usize) -> &mut [u8] {
        debug_assert!(f < self.count);
        // SAFETY: in bounds as above; exclusive by the caller's guarantee.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(f * self.size), self.size) }
    }
}

impl Drop for FrameMemory {
    fn drop(&mut self) {
        // SAFETY: `ptr` was returned by `alloc_zeroed` with this layout and is freed once.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}
