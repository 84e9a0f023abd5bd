//! The narrow trait every page backend implements, and the choice of backend.

use std::path::PathBuf;

use super::slice::Bytes;
use super::stats::IoStats;

/// Index of a file within one opened graph (position in the list given to the backend).
pub type FileId = u8;

/// A file a backend serves: its path and its size in bytes on disk (a multiple of 4096).
#[derive(Debug, Clone)]
pub struct PagedFile {
    /// Path of the file.
    pub path: PathBuf,
    /// Size in bytes, as verified against the manifest.
    pub len: u64,
}

/// The compressed copy of a file (`ocgraph layout compress`) that the buffer pool reads the
/// file's pages from, decoding blocks into its frames.
#[derive(Debug, Clone)]
pub(crate) struct CompressedFile {
    /// Path of the compressed copy.
    pub path: PathBuf,
    /// Its verified header and block index.
    pub index: std::sync::Arc<crate::format::compressed::BlockIndex>,
}

/// Access-pattern advice for a file, as `madvise` understands it (the pool uses it to
/// decide read-ahead; `WillNeed` prefetches).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Advice {
    /// Default kernel behaviour.
    Normal,
    /// Random access: no read-ahead.
    Random,
    /// Sequential access: aggressive read-ahead.
    Sequential,
    /// The range will be needed soon: start reading it now.
    WillNeed,
}

/// Which backend to open a graph with, and its parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum BackendKind {
    /// Memory-map every file; `advice` is applied to the neighbour files.
    Mmap {
        /// Advice applied to the neighbour (edge) files.
        advice: Advice,
    },
    /// The user-space buffer pool.
    Pool {
        /// Capacity in bytes (never exceeded; rounded down to whole frames; less than 2 frames is
        /// refused).
        capacity: u64,
        /// Frame size in bytes: a power of two from 4 KiB to 64 KiB.
        page_size: usize,
        /// Replacement policy: `clock`, `lru`, `fifo`, `lifo`, `random`, `s3fifo`, `arc` or `gac`
        /// (GAC with parameters as `gac:decay=0.99`).
        policy: String,
    },
}

impl Default for BackendKind {
    fn default() -> Self {
        BackendKind::Mmap { advice: Advice::Normal }
    }
}

/// Where two partitions of a parallel scan meet in a file: the next partition reads from byte
/// `next_start`, the previous one up to byte `prev_end` (exclusive). The pages holding bytes
/// of both (from the page of `next_start` to the page of `prev_end - 1`) are shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PartitionCut {
    /// The file.
    pub file: FileId,
    /// The first byte the next partition reads.
    pub next_start: u64,
    /// The end (exclusive) of the bytes the previous partition reads.
    pub prev_end: u64,
}

/// A page backend: serves byte ranges of a fixed set of read-only files.
///
/// Implementations must be safe for many concurrent readers. Offsets and lengths passed to
/// [`PageSource::read`] are multiples of the element size being read (4 or 8), and lie within
/// the file (callers check against the manifest).
pub(crate) trait PageSource: Send + Sync {
    /// Bytes `[offset, offset + len)` of `file`. The returned value pins what it covers.
    ///
    /// An I/O error at this point (the file was verified on open) ends the running operation:
    /// inside [`crate::page::catch_read_errors`] (every CLI command and Python call runs in
    /// one) it comes back from that scope as an error naming the file and offset; elsewhere it
    /// panics with that message.
    fn read(&self, file: FileId, offset: u64, len: usize) -> Bytes<'_>;

    /// Copies bytes `[offset, offset + dst.len())` of `file` into `dst`, holding no pin after
    /// it returns: cheaper than [`PageSource::read`] for a few bytes (a vertex's two offsets).
    /// Same preconditions and panics as `read`.
    fn read_into(&self, file: FileId, offset: u64, dst: &mut [u8]);

    /// [`PageSource::read`], with the caller's prediction of what it reads next: byte `next.1`
    /// of file `next.0`. A backend that must do I/O for this read may read the page of `next`
    /// along with it (the buffer pool does, in the same submission, when that costs no waiting:
    /// see `pool/companion.rs`). Only a hint: this default ignores it.
    fn read_then(&self, file: FileId, offset: u64, len: usize, next: (FileId, u64)) -> Bytes<'_> {
        let _ = next;
        self.read(file, offset, len)
    }

    /// [`PageSource::read_into`] with a prediction of the next read, as [`PageSource::read_then`].
    fn read_into_then(&self, file: FileId, offset: u64, dst: &mut [u8], next: (FileId, u64)) {
        let _ = next;
        self.read_into(file, offset, dst)
    }

    /// Copies bytes `[offset, offset + dst.len())` of `file` into `dst` as
    /// [`PageSource::read_into`] does, but only when that needs no I/O: returns `false` (with
    /// `dst` unspecified) when a page it covers is not in memory, and then reads nothing. It is
    /// a peek: it counts neither in the statistics nor as a use for the replacement policy.
    /// For prefetchers, which must neither load pages on a query's behalf nor keep in memory
    /// what the queries no longer use. A backend that cannot tell cheaply (mmap: residency is
    /// the kernel's) reads as `read_into` does and returns `true`.
    fn read_cached_into(&self, file: FileId, offset: u64, dst: &mut [u8]) -> bool {
        self.read_into(file, offset, dst);
        true
    }

    /// Counts a use, for the replacement policy, of the page holding byte `offset` of `file`
    /// when it is in memory, and returns whether it was. Never loads, never waits, and counts
    /// nothing in the statistics. For prefetchers that keep in memory the pages the next
    /// queries will likely read. A backend whose residency is not its own (mmap) reads one
    /// byte there (the kernel then counts the use; loading the page if it was evicted) and
    /// returns `true`.
    fn keep_cached(&self, file: FileId, offset: u64) -> bool {
        self.read_cached_into(file, offset, &mut [0u8; 1])
    }

    /// Protects the page holding byte `offset` of `file` from eviction until
    /// [`PageSource::unprotect`]: while it is in memory (now, or once a request loads it),
    /// eviction passes over it. Protection is advice: a demand miss that finds every
    /// unprotected page pinned evicts a protected one rather than wait; background loads
    /// never do. Never loads, never waits, counts nothing. For prefetchers that know which
    /// pages the next queries will likely read; the caller bounds how many pages it protects.
    /// A backend whose residency is not its own (mmap) asks the kernel to lock the page
    /// (which is not advice: the kernel then never evicts it), and counts a use where it
    /// cannot ([`PageSource::keep_cached`]). This default only counts a use.
    fn protect(&self, file: FileId, offset: u64) {
        self.keep_cached(file, offset);
    }

    /// Whether [`PageSource::protect`] locks pages (mmap: the kernel can then neither evict
    /// them nor, under a memory cgroup, reclaim them for anything else) rather than only
    /// passing over them while others can be evicted (the pool).
    fn protection_locks(&self) -> bool {
        false
    }

    /// Ends the protection of the page holding byte `offset` of `file` ([`PageSource::protect`]).
    fn unprotect(&self, _file: FileId, _offset: u64) {}

    /// Reports where the worker partitions of the scan about to run meet in the files
    /// (replacing the last report; empty: none): the pages holding bytes of two partitions go
    /// to the replacement policy's boundary adjustment
    /// ([`ReplacementPolicy::set_shared_pages`]). Default (mmap): ignored.
    ///
    /// [`ReplacementPolicy::set_shared_pages`]: crate::page::policy::ReplacementPolicy::set_shared_pages
    fn share_pages(&self, _cuts: &[PartitionCut]) {}

    /// Whether [`PageSource::share_pages`] does anything (the buffer pool, when its policy
    /// adjusts for shared pages), so that callers can skip finding them. Default: false.
    fn wants_shared_pages(&self) -> bool {
        false
    }

    /// Gives an access-pattern hint for a byte range (may be a no-op).
    fn advise(&self, file: FileId, offset: u64, len: u64, advice: Advice);

    /// The size in bytes of the aligned chunks in which reads are zero-copy: a read that lies
    /// within one chunk (`offset / chunk == (offset + len - 1) / chunk`) pins it without copying.
    /// Scans walk the files chunk by chunk (the pool's page size; larger for mmap). A power of
    /// two.
    fn scan_chunk(&self) -> usize;

    /// Statistics since the backend was created or last reset.
    fn stats(&self) -> IoStats;

    /// Resets the statistics counters.
    fn reset_stats(&self);
}
