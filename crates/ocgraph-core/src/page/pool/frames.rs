//! The frame memory: one anonymous mapping made at open and never grown.
//!
//! An anonymous `mmap` (not the allocator) so that memory is committed lazily, page by page,
//! as frames are first filled (an aligned `alloc_zeroed` writes zeros over the whole capacity at
//! open), and so that it can be backed by transparent huge pages: random reads over a large
//! pool then miss the TLB far less often (cached random reads were 1.8-2.1x mmap's time
//! without them, 1.2-1.5x with them), and `O_DIRECT` reads into them go faster.
//!
//! When huge pages come depends on whether the pool will cycle pages through its frames:
//! - **A pool of at most half its files** (it will refill its frames again and again) asks for
//!   huge pages at open (`MADV_HUGEPAGE`). An `O_DIRECT` read into 4 KiB pages hands the device one
//!   memory segment per page; into a huge page, one per 2 MiB. On this VM that made the pool's
//!   reads 20-40% faster (hand-run, kron22, alternated with 4 KiB frames: a scan at 10% 1.39-1.49
//!   -> 1.72-2.16 GB/s, dd 1.7-1.9; BFS at 10% 0.53-0.61 -> 0.44-0.46 s; WCC at 10% 0.41 ->
//!   0.36 s). The fresh huge pages are committed ahead by the pre-fault thread like any frame.
//! - **A larger pool** fills most frames once or a few times, and starts on 4 KiB pages: fresh
//!   huge pages are slow to fault in on this VM (kron22's 547 MB first scan took 1.57 s with
//!   `MADV_HUGEPAGE` at open, 0.43 s without, bench/RESULTS.md; in session 9, 0.6-0.8 GB/s when
//!   the huge pages were new to the process's memory, 1.5-2.2 GB/s when they were reused; a
//!   16 KiB-page pool a few pages short of its files, huge at open, scanned at 43-60% of dd in
//!   all five rounds of `bench/pages`, run 12). Whenever such a pool has settled
//!   (it no longer cycles pages through its frames) and has used frames it has not collapsed
//!   yet, [`FrameMemory::collapse_to_huge_pages`] (run by the pool on a background thread) asks
//!   the kernel to rebuild those frames from huge pages (`MADV_COLLAPSE`, Linux 6.1+; the
//!   contents are copied and nothing changes for readers) and marks them `MADV_HUGEPAGE` so
//!   that `khugepaged` retries what could not be collapsed then (e.g. frames under a read).
//!   Only used frames are collapsed, so memory is still committed only as frames are used (a
//!   kernel that leaves a few pages of the graph unread, as a BFS does, used to keep the free
//!   list from running empty, and so never got huge pages).

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
    /// Maps `count` zeroed frames of `size` bytes (pages are committed lazily by the OS), asking
    /// for transparent huge pages at once when `huge` (see the module documentation).
    pub(super) fn new(count: usize, size: usize, huge: bool) -> Option<FrameMemory> {
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
        if huge {
            // SAFETY: an advisory call on the mapping just made. Best effort: an error (THP
            // disabled) leaves ordinary pages.
            unsafe { libc::madvise(ptr, bytes, libc::MADV_HUGEPAGE) };
        }
        Some(FrameMemory { ptr: ptr as *mut u8, bytes, size, count })
    }

    /// Backs frames `[first, end)` with transparent huge pages where the kernel can (see the
    /// module documentation): `MADV_COLLAPSE`, then `MADV_HUGEPAGE`, over the 2 MiB-aligned
    /// range that covers them (within the mapping). Best effort: errors (an older kernel, THP
    /// disabled, frames pinned by an ongoing read) leave ordinary pages.
    pub(super) fn collapse_to_huge_pages(&self, first: usize, end: usize) {
        const HUGE: usize = 2 << 20;
        let base = self.ptr as usize;
        let lo = ((base + first * self.size) & !(HUGE - 1)).max(base);
        let hi = ((base + end.min(self.count) * self.size).next_multiple_of(HUGE)).min(base + self.bytes);
        if lo >= hi {
            return;
        }
        #[cfg(target_env = "gnu")]
        // SAFETY: advisory calls on a range inside our own mapping; MADV_COLLAPSE keeps the
        // contents (it copies them into huge pages under the kernel's page locks), so
        // concurrent readers and writers of frames see the same bytes throughout.
        unsafe {
            libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_COLLAPSE);
            libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
        }
    }

    /// Commits the memory of frames `[first, end)` (clipped to the pool) without changing their
    /// contents, so that reads into them no longer fault it in: `MADV_POPULATE_WRITE` (Linux
    /// 5.14+). Returns false when the kernel does not support it.
    pub(super) fn populate(&self, first: usize, end: usize) -> bool {
        /// `MADV_POPULATE_WRITE` from `<linux/mman.h>` (not in the `libc` crate).
        const MADV_POPULATE_WRITE: libc::c_int = 23;
        let end = end.min(self.count);
        if first >= end {
            return true;
        }
        // SAFETY: an advisory call on a range inside our own mapping. It faults the pages in
        // as writable but writes nothing, so a frame being read or filled concurrently keeps
        // its bytes.
        let rc = unsafe {
            libc::madvise(
                self.ptr.add(first * self.size) as *mut libc::c_void,
                (end - first) * self.size,
                MADV_POPULATE_WRITE,
            )
        };
        rc == 0
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

    /// The bytes of the `n` adjacent frames `f..f + n`.
    ///
    /// # Safety
    /// The caller holds a pin on the page in each of these frames, so no thread writes them.
    #[inline]
    pub(super) unsafe fn frames(&self, f: usize, n: usize) -> &[u8] {
        debug_assert!(f + n <= self.count);
        // SAFETY: `f + n <= count`, so the range lies inside the allocation; no concurrent
        // writer by the caller's guarantee.
        unsafe { std::slice::from_raw_parts(self.ptr.add(f * self.size), n * self.size) }
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
