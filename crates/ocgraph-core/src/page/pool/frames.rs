//! The frame memory: one anonymous mapping made at open and never grown.
//!
//! An anonymous `mmap` (not the allocator) so that memory is committed lazily, page by page,
//! as frames are first filled (an aligned `alloc_zeroed` writes zeros over the whole capacity at
//! open), and so that it can be backed by transparent huge pages (`MADV_HUGEPAGE`): random reads
//! over a large pool then miss the TLB far less often.

/// `count` frames of `size` bytes each, contiguous and 4096-aligned (as O_DIRECT requires).
pub(super) struct FrameMemory {
    ptr: *mut u8,
    bytes: usize,
    size: usize,
    count: usize,
}

// SAFETY: the memory is plain bytes owned by this value; the pool's page-table protocol makes
// sure a frame is written only by the one thread that claimed it, while nobody reads it.
unsafe impl Send for FrameMemory {}
// SAFETY: see above.
unsafe impl Sync for FrameMemory {}

impl FrameMemory {
    /// Maps `count` zeroed frames of `size` bytes (pages are committed lazily by the OS).
    pub(super) fn new(count: usize, size: usize) -> Option<FrameMemory> {
        let bytes = count.checked_mul(size)?;
        if bytes == 0 {
            return None;
        }
        // SAFETY: a fresh private anonymous mapping; no existing memory is affected.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return None;
        }
        // SAFETY: advisory call on the mapping just made; failure (no THP support) is harmless.
        unsafe { libc::madvise(ptr, bytes, libc::MADV_HUGEPAGE) };
        Some(FrameMemory { ptr: ptr as *mut u8, bytes, size, count })
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
        // SAFETY: `ptr` and `bytes` describe the mapping made in `new`, unmapped once; no frame
        // reference outlives the pool that owns this value.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.bytes) };
    }
}
