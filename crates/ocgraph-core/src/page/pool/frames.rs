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
//!   `MADV_HUGEPAGE` at open, 0.43 s without, `bench/pages/run.py`; 0.6-0.8 GB/s when
//!   the huge pages were new to the process's memory, 1.5-2.2 GB/s when they were reused; a
//!   16 KiB-page pool a few pages short of its files, huge at open, scanned at 43-60% of dd in
//!   all five rounds of `bench/pages/run.py`). Whenever such a pool has settled
//!   (it no longer cycles pages through its frames) and has used frames it has not collapsed
//!   yet, [`FrameMemory::collapse_to_huge_pages`] (run by the pool on a background thread) asks
//!   the kernel to rebuild those frames from huge pages (`MADV_COLLAPSE`, Linux 6.1+; the
//!   contents are copied and nothing changes for readers) and marks them `MADV_HUGEPAGE` so
//!   that `khugepaged` retries what could not be collapsed then (e.g. frames under a read).
//!   Only used frames are collapsed, so memory is still committed only as frames are used (a
//!   kernel that leaves a few pages of the graph unread, as a BFS does, used to keep the free
//!   list from running empty, and so never got huge pages).
//!
//! **Reserved huge pages first.** Where the administrator has reserved huge pages
//! (`vm.nr_hugepages`, hugetlbfs), the frames take them ([`FrameMemory::new`] maps the largest
//! whole number of 2 MiB pages within the pool's bytes with `MAP_HUGETLB`; the rest, under
//! 2 MiB, stays on ordinary pages), as databases do with `huge_pages = try`. The kernel sets
//! such pages aside: a process that frees them returns them to the reservation, not to the
//! general free memory. On this VM that matters more than the TLB: freed general memory is
//! handed back to the host (free page reporting), and a fresh process that faults it in pays
//! the host's fault too (a 1 MiB `O_DIRECT` read of kron22's 547 MB into fresh 4 KiB pages ran
//! at 949-1554 MB/s, into transparent huge pages at 380-390 MB/s, into reserved huge pages
//! reused from an earlier process at 1558-1591 MB/s; the first process to use a new
//! reservation ran at 387 MB/s). When too few reserved pages are free the mapping fails at
//! once (the pages are accounted at `mmap` time, so a later fault cannot fail) and the frames
//! fall back to ordinary memory as above. Without a reservation nothing changes.

/// `count` frames of `size` bytes each, contiguous and 4096-aligned (as O_DIRECT requires).
pub(super) struct FrameMemory {
    ptr: *mut u8,
    bytes: usize,
    size: usize,
    count: usize,
    /// The first `reserved` bytes are on reserved huge pages (a multiple of [`HUGE`]; 0 when
    /// none were available).
    reserved: usize,
}

/// The huge page size the frames use (x86-64 and arm64 with 4 KiB base pages).
const HUGE: usize = 2 << 20;
/// `MAP_HUGE_2MB` from `<linux/mman.h>` (the `libc` crate has it for musl only): ask for 2 MiB
/// pages whatever the system's default huge page size.
const MAP_HUGE_2MB: libc::c_int = 21 << 26;

// SAFETY: the memory is plain bytes owned by this value; the pool's page-table protocol makes
// sure a frame is written only by the one thread that claimed it, while nobody reads it.
unsafe impl Send for FrameMemory {}
// SAFETY: see above.
unsafe impl Sync for FrameMemory {}

impl FrameMemory {
    /// Maps `count` zeroed frames of `size` bytes (pages are committed lazily by the OS): on
    /// reserved huge pages where there are enough free, else on ordinary pages, asking for
    /// transparent huge pages at once when `huge` (see the module documentation).
    pub(super) fn new(count: usize, size: usize, huge: bool) -> Option<FrameMemory> {
        let bytes = count.checked_mul(size)?;
        if bytes == 0 {
            return None;
        }
        if let Some(mem) = Self::on_reserved_huge_pages(count, size, bytes) {
            return Some(mem);
        }
        // SAFETY: a fresh private anonymous mapping; no existing memory is affected.
        let ptr = unsafe { anonymous(std::ptr::null_mut(), bytes, 0) }?;
        if huge {
            // SAFETY: an advisory call on the mapping just made. Best effort: an error (THP
            // disabled) leaves ordinary pages.
            unsafe { libc::madvise(ptr as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE) };
        }
        Some(FrameMemory { ptr, bytes, size, count, reserved: 0 })
    }

    /// The frames with their first `bytes` rounded down to 2 MiB on reserved huge pages and the
    /// rest on ordinary pages, contiguous; `None` (nothing left mapped) when fewer reserved
    /// pages are free or the pool is under 2 MiB.
    fn on_reserved_huge_pages(count: usize, size: usize, bytes: usize) -> Option<FrameMemory> {
        let reserved = bytes & !(HUGE - 1);
        if reserved == 0 {
            return None;
        }
        // Step 1: a placeholder 2 MiB longer than the frames, to find a 2 MiB-aligned address.
        let span = bytes + HUGE;
        // SAFETY: a fresh inaccessible mapping; no existing memory is affected.
        let hold = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                span,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if hold == libc::MAP_FAILED {
            return None;
        }
        let hold = hold as usize;
        let base = hold.next_multiple_of(HUGE);
        // Step 2: the reserved huge pages, then the ordinary tail, over the placeholder.
        // SAFETY: both ranges lie inside the placeholder just made, which nothing else uses.
        let mapped = unsafe {
            anonymous(base as *mut u8, reserved, libc::MAP_FIXED | libc::MAP_HUGETLB | MAP_HUGE_2MB).is_some()
                && (bytes == reserved
                    || anonymous((base + reserved) as *mut u8, bytes - reserved, libc::MAP_FIXED).is_some())
        };
        if !mapped {
            // SAFETY: the placeholder's range, whatever of it step 2 replaced, is ours alone.
            unsafe { libc::munmap(hold as *mut libc::c_void, span) };
            return None;
        }
        // Step 3: release the placeholder's slack on both sides.
        // SAFETY: the slack ranges lie inside the placeholder, outside the frames.
        unsafe {
            if base > hold {
                libc::munmap(hold as *mut libc::c_void, base - hold);
            }
            let end = base + bytes;
            if hold + span > end {
                libc::munmap(end as *mut libc::c_void, hold + span - end);
            }
        }
        Some(FrameMemory { ptr: base as *mut u8, bytes, size, count, reserved })
    }

    /// Backs frames `[first, end)` with transparent huge pages where the kernel can (see the
    /// module documentation): `MADV_COLLAPSE`, then `MADV_HUGEPAGE`, over the 2 MiB-aligned
    /// range that covers them (within the mapping). Best effort: errors (an older kernel, THP
    /// disabled, frames pinned by an ongoing read) leave ordinary pages.
    pub(super) fn collapse_to_huge_pages(&self, first: usize, end: usize) {
        let base = self.ptr as usize;
        let lo = ((base + first * self.size) & !(HUGE - 1)).max(base + self.reserved);
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

    /// Bytes at the start of the frames that are on reserved huge pages (0 when none).
    #[cfg(test)]
    pub(super) fn reserved_bytes(&self) -> usize {
        self.reserved
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
        // SAFETY: `ptr` and `bytes` describe the mappings made in `new` (reserved huge pages
        // first, each unmapped whole), unmapped once; no frame reference outlives the pool that
        // owns this value.
        unsafe {
            if self.reserved > 0 {
                libc::munmap(self.ptr as *mut libc::c_void, self.reserved);
            }
            if self.bytes > self.reserved {
                libc::munmap(self.ptr.add(self.reserved) as *mut libc::c_void, self.bytes - self.reserved);
            }
        }
    }
}

/// A private anonymous read-write mapping of `bytes` at `at` (any address when null), with the
/// extra `flags`; `None` when the kernel refuses it.
///
/// # Safety
/// With `MAP_FIXED` in `flags`, `[at, at + bytes)` must be memory the caller owns and nothing
/// references (it is replaced).
unsafe fn anonymous(at: *mut u8, bytes: usize, flags: libc::c_int) -> Option<*mut u8> {
    // SAFETY: the caller's guarantee covers a fixed address; otherwise the kernel picks a free
    // range and no existing memory is affected.
    let ptr = unsafe {
        libc::mmap(
            at as *mut libc::c_void,
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | flags,
            -1,
            0,
        )
    };
    (ptr != libc::MAP_FAILED).then_some(ptr as *mut u8)
}
