//! Kernel state on transparent huge pages.
//!
//! A kernel's per-vertex array read at random, one access per arc (SSSP's distances), misses
//! the TLB on most of those accesses on 4 KiB pages. Where the system hands out
//! transparent huge pages only on request (`/sys/kernel/mm/transparent_hugepage/enabled` set to
//! `madvise`, the common default), [`huge_vec`] asks for them on a new array before its pages
//! are first touched.

/// 2 MiB, the size of an x86-64 and aarch64 transparent huge page.
const HUGE: usize = 2 << 20;

/// An empty `Vec` with room for `n` entries whose buffer is advised `MADV_HUGEPAGE` (best
/// effort: a kernel without transparent huge pages leaves ordinary pages, and an array under
/// 2 MiB is not advised). Fill it with `extend` or rayon's `par_extend` so that it is not
/// reallocated.
pub fn huge_vec<T>(n: usize) -> Vec<T> {
    let v: Vec<T> = Vec::with_capacity(n);
    let bytes = n.saturating_mul(std::mem::size_of::<T>());
    let start = (v.as_ptr() as usize).next_multiple_of(HUGE);
    let end = (v.as_ptr() as usize + bytes) & !(HUGE - 1);
    if end > start {
        // SAFETY: an advisory call on whole 2 MiB blocks inside the buffer just allocated and
        // not yet touched; it changes how the kernel backs the pages, never their contents.
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
    v
}
