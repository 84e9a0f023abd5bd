//! The user-space buffer pool: fixed-size frames in one allocation made at open, a hard
//! capacity, direct I/O and a pluggable [`ReplacementPolicy`].
//!
//! Design (after vmcache): every page of every file has one atomic word in a direct-mapped page
//! table (see [`table`]) holding its state (evicted / locked / pin count) and frame; every frame
//! has one atomic word naming the page it holds. A hit is a load and a CAS that increments the
//! pin count, with no global lock. A miss locks the page's word (evicted → locked), takes a free
//! frame or evicts one, reads the page, and publishes it with one pin.
//!
//! Reads within one page are zero-copy (the returned bytes pin the page); reads spanning pages
//! are copied into a private buffer, pinning each page only while copying it (a miss loads the
//! evicted pages that follow in the range with one read and pins them until their copy: at most
//! 1/64 of the frames). So a read pins few frames, and never waits for a frame while holding a
//! pin; a miss can always make progress unless callers *hold* more
//! live [`Slice`](crate::page::Slice)s than the pool has frames: then every frame is pinned, the
//! miss waits for a pin to be released, and a thread waiting on its own pins deadlocks. Keep
//! few slices alive at once (algorithms hold one or two per thread).
//!
//! A pool opened with [`BufferPool::open_writable`] also takes writes (see [`writeback`]):
//! dirty frames, flushes, and write-back of dirty pages when frames run out, one page at a
//! time or seed 004's batch of the longest run of contiguous dirty pages ([`WriteBack`]).

mod background;
mod blocks;
mod companion;
mod dirty_runs;
mod flusher;
mod frames;
mod io;
mod prefault;
mod prefetch;
mod readahead;
mod ring;
mod table;
mod writeback;

pub use io::{carry_read_errors, catch_read_errors};
pub use writeback::WriteBack;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod write_tests;

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;

use super::backend::{Advice, CompressedFile, FileId, PageSource, PagedFile, PartitionCut};
use super::policy::{page_key, policy_by_name, split_page_key, Clock, PageKey, ReplacementPolicy};
use super::slice::{Bytes, PinRelease};
use super::stats::{Counter, IoStats, StripedCounters};
use crate::error::{Error, Result};
use flusher::Flusher;
use frames::FrameMemory;
use io::PoolFile;
use prefault::Prefault;
use prefetch::{prefetcher, Prefetcher};
use readahead::{worker, Streams, Worker};
use table::{EVICTED, LOADED_ONCE, LOCKED, MAX_FRAMES, MAX_PINS, PREFETCHED, TRIGGER};
use writeback::WriteState;

/// Refuses a frame size that is not a power of two from 4 KiB to 64 KiB.
pub fn check_page_size(page_size: usize) -> Result<()> {
    if !page_size.is_power_of_two() || !(4096..=65536).contains(&page_size) {
        return Err(Error::invalid(format!(
            "page size {page_size} must be a power of two from 4096 to 65536 bytes"
        )));
    }
    Ok(())
}

/// Owner word of a frame that holds no page.
const NO_PAGE: u64 = u64::MAX;

/// One file served by the pool.
struct FileState {
    io: PoolFile,
    len: u64,
    /// One word per page (see [`table`]).
    table: Box<[AtomicU64]>,
    /// Where the previous read of this file ended (for the sequential-read statistic).
    last_end: AtomicU64,
    /// Asynchronous read-ahead streams over this file (see [`readahead`]).
    streams: Mutex<Streams>,
    /// One bit per page, set while a prefetcher protects the page from eviction
    /// ([`PageSource::protect`]).
    protected: Box<[AtomicU64]>,
    /// The pages of this file last reported shared by two partitions of a scan
    /// ([`PageSource::share_pages`]).
    shared: Mutex<Vec<u64>>,
}

/// The word of `fs`'s protection bits holding page `page`'s bit, and the bit.
fn protect_bit(fs: &FileState, page: u64) -> (&AtomicU64, u64) {
    (&fs.protected[(page / 64) as usize], 1 << (page % 64))
}

/// A buffer pool of fixed-size frames. Safe for many concurrent readers.
///
/// The state lives in an [`Arc`] shared with the background read-ahead threads (started on the
/// first sequential miss); they hold only a weak reference while idle and exit once the pool
/// is dropped.
pub(crate) struct BufferPool(Arc<Core>);

impl std::ops::Deref for BufferPool {
    type Target = Core;

    fn deref(&self) -> &Core {
        &self.0
    }
}

/// The pool proper (see [`BufferPool`]).
pub(crate) struct Core {
    files: Vec<FileState>,
    page_size: usize,
    page_shift: u32,
    mem: FrameMemory,
    /// Per frame: the [`PageKey`] it holds, or [`NO_PAGE`].
    owner: Box<[AtomicU64]>,
    /// Frames never used (or given back after a failed read).
    free: Mutex<Vec<usize>>,
    free_len: AtomicUsize,
    policy: Policy,
    counters: StripedCounters,
    /// Pages read ahead synchronously on a sequential miss: [`READ_AHEAD_BYTES`] worth, at most
    /// a quarter of the frames.
    read_ahead: AtomicUsize,
    /// Largest asynchronous read-ahead window in pages: [`ASYNC_READ_AHEAD_BYTES`] worth, at
    /// most 1/[`ASYNC_WINDOW_DIVISOR`] of the frames (0: no asynchronous read-ahead).
    async_max: AtomicUsize,
    /// Pages read ahead (by streams, a miss's synchronous window or `WillNeed`) and neither used
    /// nor evicted yet: the pages whose word carries `PREFETCHED`, counted up where the bit is
    /// set and down where it is cleared (first use; locking for eviction, which drops it for
    /// good). Asynchronous windows wait while it is at [`Core::ahead_limit`].
    unused_ahead: AtomicUsize,
    /// The background read-ahead threads, started on first use.
    worker: Worker,
    /// The write side; `None` for a read-only pool.
    write: Option<WriteState>,
    /// The background loader serving `WillNeed` advice (reads through io_uring), started on
    /// first use.
    prefetcher: Prefetcher,
    /// The background write-back of a batch pool, started on first use.
    flusher: Flusher,
    /// Commits fresh frames ahead of the free list (see [`prefault`]).
    prefault: Prefault,
    /// This pool (for the one-shot huge-page thread).
    me: Weak<Core>,
    /// Set when the first frame was taken (and the huge-page thread was started).
    watching: AtomicBool,
    /// The process that opened the pool: in a child forked from it, a page its background
    /// threads were loading at the fork stays locked ([`Core::locked_in_forked_child`]).
    pid: u32,
}

/// The replacement policy. CLOCK, the default, is held by value so that the hit path calls its
/// `on_hit` directly (inlined, no virtual call); other policies are boxed.
enum Policy {
    Clock(Clock),
    Dyn(Box<dyn ReplacementPolicy>),
}

impl Policy {
    fn by_name(name: &str, frames: usize) -> Result<Policy> {
        Ok(if name.eq_ignore_ascii_case("clock") {
            Policy::Clock(Clock::new(frames))
        } else {
            Policy::Dyn(policy_by_name(name, frames)?)
        })
    }

    /// The policy as a trait object (for the miss path).
    fn get(&self) -> &dyn ReplacementPolicy {
        match self {
            Policy::Clock(c) => c,
            Policy::Dyn(p) => &**p,
        }
    }

    #[inline]
    fn on_hit(&self, frame: usize) {
        match self {
            Policy::Clock(c) => c.on_hit(frame),
            Policy::Dyn(p) => p.on_hit(frame),
        }
    }
}

/// A thread that waited long for a page (a read-ahead window still in flight) sleeps this
/// long between checks instead of yielding, freeing its core for the readers.
const BACKOFF_SLEEP: std::time::Duration = std::time::Duration::from_micros(50);
/// How long a miss waits for a frame while every frame stays pinned before it gives up: each
/// reader holds at most two frames at a time and only briefly, so frames that stay pinned this
/// long belong to readers that each wait for another one (a pool of fewer frames than two per
/// reading thread), which no wait ends.
const FRAME_STALL: std::time::Duration = std::time::Duration::from_secs(10);

/// A read spanning pages is served without a copy only when it covers at most
/// 1/`MAX_ADJACENT_DIVISOR` of the frames ([`Core::pin_adjacent`]).
const MAX_ADJACENT_DIVISOR: usize = 64;

/// How often the huge-page thread checks whether the pool has settled.
const SETTLE_INTERVAL: std::time::Duration = std::time::Duration::from_millis(50);
/// The pool has settled when it read less than its capacity / this in one interval.
const SETTLE_READ_DIVISOR: u64 = 64;

/// How far a sequential miss reads ahead synchronously.
const READ_AHEAD_BYTES: usize = 1 << 20;
/// The largest window the read-ahead threads read ahead of a sequential scan.
const ASYNC_READ_AHEAD_BYTES: usize = 8 << 20;
/// A window is at most 1/64 of the frames. A scan keeps two windows ahead per stream, and a
/// slow stream keeps its pages waiting long: the offsets file of a graph of average degree 16
/// is read 8x slower than the neighbours it indexes, so its two windows ahead are used only
/// after 16 windows' worth of neighbour pages have been loaded. CLOCK evicts a read-ahead page
/// not yet used when its hand comes back to it, after about frames / 2 loads in a scan (every
/// used page is passed twice: once to clear its bit, once to evict it), so windows must stay
/// under 1/32 of the frames; 1/64 leaves a 2x margin. With 1/8, a kron22 scan at 10% read 21%
/// more bytes than the file (1/32: 7%, 1/64: 3%), and PageRank-20 on kron20 at 10% read 5.9 GB
/// (1/64: 3.6 GB; hand-run A/B with `bench/algos/run.py`).
const ASYNC_WINDOW_DIVISOR: usize = 64;

impl BufferPool {
    /// Opens a pool over `files` holding at most `capacity` bytes of pages (`capacity /
    /// page_size` frames, at least 2; fewer when the files have fewer pages). `page_size` is a
    /// power of two from 4 KiB to 64 KiB; `policy` a name accepted by [`policy_by_name`].
    #[cfg(test)]
    pub(crate) fn open(
        files: &[PagedFile],
        capacity: u64,
        page_size: usize,
        policy: &str,
    ) -> Result<BufferPool> {
        BufferPool::open_with(files, &[], capacity, page_size, policy, None)
    }

    /// [`BufferPool::open`] for a graph whose file `i` is read from its compressed copy
    /// `compressed[i]` when that is `Some` (decoded into the frames: see [`blocks`]).
    pub(crate) fn open_graph(
        files: &[PagedFile],
        compressed: &[Option<CompressedFile>],
        capacity: u64,
        page_size: usize,
        policy: &str,
    ) -> Result<BufferPool> {
        BufferPool::open_with(files, compressed, capacity, page_size, policy, None)
    }

    /// [`BufferPool::open`], or with `write_back` set a writable pool (see
    /// [`BufferPool::open_writable`]).
    fn open_with(
        files: &[PagedFile],
        compressed: &[Option<CompressedFile>],
        capacity: u64,
        page_size: usize,
        policy: &str,
        write_back: Option<WriteBack>,
    ) -> Result<BufferPool> {
        check_page_size(page_size)?;
        let frames = capacity / page_size as u64;
        if frames < 2 {
            return Err(Error::invalid(format!(
                "the pool's memory, {capacity} bytes, is less than 2 pages of {page_size} bytes \
                 (raise the memory budget, --memory / memory=, or lower the page size, --page-size / \
                 page_size=)"
            )));
        }
        if files.len() > FileId::MAX as usize + 1 {
            return Err(Error::invalid("too many files for one pool"));
        }
        let total_pages: u64 = files.iter().map(|f| f.len.div_ceil(page_size as u64)).sum();
        let frames = frames.min(total_pages.max(2)).min(MAX_FRAMES as u64) as usize;
        // A pool of at most half its files cycles pages through its frames: huge pages from
        // the start (see `frames.rs`).
        let cycles = frames as u64 * 2 <= total_pages;
        let mem = FrameMemory::new(frames, page_size, cycles).ok_or_else(|| {
            Error::invalid(format!("cannot allocate a pool of {frames} frames of {page_size} bytes"))
        })?;
        let zero_from = write_back.map(|_| writeback::pages_on_disk(files, page_size));
        let mut states = Vec::with_capacity(files.len());
        for (i, f) in files.iter().enumerate() {
            // SAFETY: no frame is in use yet; frame 0 serves as the probe buffer.
            let probe = unsafe { mem.frame_mut(0) };
            let io = match (write_back, compressed.get(i).and_then(Option::as_ref)) {
                (None, Some(c)) => PoolFile::open_compressed(c, f.len)?,
                (None, None) => PoolFile::open(&f.path, f.len, probe)?,
                (Some(_), _) => PoolFile::open_writable(&f.path, f.len, probe)?,
            };
            let pages = f.len.div_ceil(page_size as u64) as usize;
            states.push(FileState {
                io,
                len: f.len,
                table: (0..pages).map(|_| AtomicU64::new(EVICTED)).collect(),
                last_end: AtomicU64::new(0),
                streams: Mutex::new(Streams::default()),
                protected: (0..pages.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
                shared: Mutex::new(Vec::new()),
            });
        }
        let policy = Policy::by_name(policy, frames)?;
        let write = write_back.zip(zero_from).map(|(mode, z)| WriteState::new(mode, frames, z));
        Ok(BufferPool(Arc::new_cyclic(|me| Core {
            files: states,
            page_size,
            page_shift: page_size.trailing_zeros(),
            owner: (0..frames).map(|_| AtomicU64::new(NO_PAGE)).collect(),
            free: Mutex::new((0..frames).rev().collect()),
            free_len: AtomicUsize::new(frames),
            mem,
            policy,
            counters: StripedCounters::default(),
            read_ahead: AtomicUsize::new(default_read_ahead(page_size, frames).0),
            async_max: AtomicUsize::new(default_read_ahead(page_size, frames).1),
            unused_ahead: AtomicUsize::new(0),
            worker: worker(me.clone()),
            write,
            prefetcher: prefetcher(me.clone()),
            flusher: Flusher::new(me.clone()),
            prefault: Prefault::new(me.clone()),
            me: me.clone(),
            watching: AtomicBool::new(false),
            pid: std::process::id(),
        })))
    }
}

/// The default read-ahead of a pool: pages read synchronously on a sequential miss, and the
/// largest asynchronous window (what `Advice::Random` turns off and `Normal` restores).
fn default_read_ahead(page_size: usize, frames: usize) -> (usize, usize) {
    (
        (READ_AHEAD_BYTES / page_size).min(frames / 4).saturating_sub(1),
        (ASYNC_READ_AHEAD_BYTES / page_size).min(frames / ASYNC_WINDOW_DIVISOR),
    )
}

impl Core {
    /// Pins page `page` of `file`, loading it on a miss; returns its frame.
    #[inline]
    fn pin(&self, file: FileId, page: u64) -> usize {
        self.pin_through(file, page, page).0
    }

    /// Pins page `page` of `file` as [`Core::pin`] does, for a read that goes on to page
    /// `through`: a miss also loads the evicted pages that follow, up to `through`, with the same
    /// `preadv` and leaves them pinned too (see [`Core::load_cold`]). Returns the frame of `page`
    /// and the last page pinned (`page` on a hit).
    #[inline]
    fn pin_through(&self, file: FileId, page: u64, through: u64) -> (usize, u64) {
        let entry = &self.files[file as usize].table[page as usize];
        let mut spins = 0u32;
        let mut waiting = None;
        loop {
            let w = entry.load(Ordering::Acquire);
            let s = table::state(w);
            if s < MAX_PINS {
                // Resident: take a pin (and clear the read-ahead mark on first use).
                let new = (w + 1) & !(PREFETCHED | TRIGGER);
                if entry.compare_exchange_weak(w, new, Ordering::Acquire, Ordering::Relaxed).is_ok() {
                    let f = table::frame(w);
                    self.counters.add(Counter::Hits, 1);
                    if w & PREFETCHED != 0 {
                        self.first_use_of_prefetched(file, page, w & TRIGGER != 0);
                    }
                    self.policy.on_hit(f);
                    return (f, page);
                }
            } else if s == EVICTED {
                if entry
                    .compare_exchange(w, table::with_state(w, LOCKED), Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
                {
                    return self.load_cold(file, page, w, through);
                }
            } else {
                // Locked by a loader or evictor (or the pin count is saturated): wait.
                backoff(&mut spins);
                if spins.is_multiple_of(4096) {
                    let since = *waiting.get_or_insert_with(std::time::Instant::now);
                    self.locked_in_forked_child(file, page, since);
                }
            }
        }
    }

    /// Fails the read (as an I/O error does) when `page` has been waited for since `since` for
    /// [`FRAME_STALL`] in a process forked from the one that opened the pool: a thread of the
    /// parent (a read-ahead, a result maintained in the background, a compaction) held the page
    /// locked at the fork, and no thread of the child will unlock it. In the process that
    /// opened the pool a locked page is always unlocked by its loader.
    #[cold]
    fn locked_in_forked_child(&self, file: FileId, page: u64, since: std::time::Instant) {
        if since.elapsed() >= FRAME_STALL && std::process::id() != self.pid {
            io::fail_read(Error::invalid(format!(
                "{}: page {page} stayed locked for {} s in this process, forked from process {} while \
                 one of its threads was loading the page: fork while nothing runs in the background \
                 (wait for maintained results and compaction first), or open the graph in the child",
                self.files[file as usize].io.path.display(),
                FRAME_STALL.as_secs(),
                self.pid
            )));
        }
    }

    /// Pins page `page` of `file` when it is resident, as a peek: not a hit for the statistics
    /// or the replacement policy, and a page read ahead keeps its marks (its first use is still
    /// to come). `None` when it is not resident (or is being loaded or evicted). Never loads
    /// and never waits.
    fn pin_cached(&self, file: FileId, page: u64) -> Option<usize> {
        let entry = &self.files[file as usize].table[page as usize];
        loop {
            let w = entry.load(Ordering::Acquire);
            if table::state(w) >= MAX_PINS {
                return None;
            }
            if entry.compare_exchange_weak(w, w + 1, Ordering::Acquire, Ordering::Relaxed).is_ok() {
                return Some(table::frame(w));
            }
        }
    }

    /// Miss path; the caller holds the page's word locked. Returns the frame and the last page
    /// pinned.
    ///
    /// Demand run: the evicted pages after `page` that the caller's read also covers (up to
    /// `through`, at most 1/[`MAX_ADJACENT_DIVISOR`] of the frames) are locked too, read with the
    /// same `preadv` and published pinned once, as `page` is: a long neighbour list costs one read
    /// call, not one per page, even with read-ahead off.
    ///
    /// Read-ahead: when the miss starts where the previous read of the file ended, the
    /// following pages that are evicted (up to `read_ahead` of them) are locked too and read
    /// with the same `preadv`, as long as frames can be had without waiting. A miss that is not
    /// sequential in a file read from its compressed copy reads ahead (unless read-ahead is
    /// off) the evicted pages after the demand run up to the end of its block, which is
    /// decoded whole anyway.
    #[cold]
    #[inline(never)]
    fn load_cold(&self, file: FileId, page: u64, w: u64, through: u64) -> (usize, u64) {
        let loaded_before = w & LOADED_ONCE != 0;
        let fs = &self.files[file as usize];
        let offset = page << self.page_shift;
        // (page, loaded before, frame) of every page read by this call; the first is requested.
        let Some(first) = self.take_frame(page_key(file, page), true) else {
            // A failed write-back or a stall makes a waiting `take_frame` give up; reads have no
            // error path, so this read fails as an I/O error does.
            fs.table[page as usize].store(w, Ordering::Release);
            let path = &self.files[file as usize].io.path;
            let err = match self.write.as_ref().and_then(|ws| ws.failure()) {
                Some(why) => Error::io(path, "read", std::io::Error::other(format!("no frame: {why}"))),
                None => Error::invalid(self.stall_message()),
            };
            io::fail_read(err)
        };
        let mut batch = vec![(page, loaded_before, first)];
        let demand_max = (through - page).min((self.mem.count() / MAX_ADJACENT_DIVISOR) as u64);
        self.lock_evicted_run(file, page + 1, demand_max, &mut batch);
        let demanded = batch.len();
        let sequential = fs.last_end.load(Ordering::Relaxed) == offset;
        if sequential {
            let read_ahead = self.read_ahead.load(Ordering::Relaxed) as u64;
            self.lock_evicted_run(file, page + demanded as u64, read_ahead, &mut batch);
            // The next windows go to the background readers now, while this read runs: started
            // after it, they were often still queued when the reader had used this batch, and
            // its next miss read them itself.
            self.start_stream(file, page, page + batch.len() as u64, batch.len() as u64);
        } else if let Some(block) = fs.io.block_size().filter(|_| self.read_ahead.load(Ordering::Relaxed) > 0)
        {
            // A compressed copy decodes whole blocks: the rest of this one costs no I/O.
            let block_pages = (block >> self.page_shift).max(1);
            let next = page + demanded as u64;
            self.lock_evicted_run(file, next, (block_pages - next % block_pages) % block_pages, &mut batch);
        }
        let (bytes, calls) = self.read_batch_with_companion(file, &batch);
        let c = &self.counters;
        let capacity = batch[..demanded].iter().filter(|&&(_, before, _)| before).count() as u64;
        c.add(Counter::Misses, demanded as u64);
        c.add(Counter::CapacityMisses, capacity);
        c.add(Counter::ColdMisses, demanded as u64 - capacity);
        c.add(Counter::BytesRead, bytes as u64);
        c.add(Counter::ReadCalls, calls);
        c.add(Counter::PrefetchesIssued, (batch.len() - demanded) as u64);
        let prev_end = fs.last_end.swap(self.run_end(fs, offset, batch.len()), Ordering::Relaxed);
        if prev_end == offset {
            c.add(Counter::SequentialReads, 1);
        }
        self.unused_ahead.fetch_add(batch.len() - demanded, Ordering::Relaxed);
        for (i, &(q, _, f)) in batch.iter().enumerate() {
            // The demand run is loaded and pinned; the rest of the batch is read ahead.
            let w = if i < demanded {
                self.policy.get().on_load(f, page_key(file, q));
                table::resident(f, 1)
            } else {
                self.policy.get().on_load_ahead(f, page_key(file, q));
                table::resident(f, 0) | PREFETCHED
            };
            fs.table[q as usize].store(w, Ordering::Release);
        }
        (first, page + demanded as u64 - 1)
    }

    /// Locks up to `max` pages of `file` from `start` on that are evicted and takes a frame for
    /// each without waiting, appending `(page, loaded before, frame)` to `batch`; stops at the
    /// first page resident or busy, or when no frame can be had at once.
    fn lock_evicted_run(&self, file: FileId, start: u64, max: u64, batch: &mut Vec<(u64, bool, usize)>) {
        let fs = &self.files[file as usize];
        let last = (fs.table.len() as u64).min(start + max);
        for q in start..last {
            let entry = &fs.table[q as usize];
            let w = entry.load(Ordering::Acquire);
            if table::state(w) != EVICTED
                || entry
                    .compare_exchange(w, table::with_state(w, LOCKED), Ordering::Acquire, Ordering::Relaxed)
                    .is_err()
            {
                break;
            }
            let Some(f) = self.take_frame(page_key(file, q), false) else {
                entry.store(w, Ordering::Release);
                break;
            };
            batch.push((q, w & LOADED_ONCE != 0, f));
        }
    }

    /// Where a read of `pages` pages of `fs` from `offset` ends in the file: at most its end.
    /// (Not `offset` plus the bytes read: a compressed copy reads fewer bytes than it serves.)
    fn run_end(&self, fs: &FileState, offset: u64, pages: usize) -> u64 {
        (offset + ((pages as u64) << self.page_shift)).min(fs.len)
    }

    /// Reads the consecutive locked pages of `batch` into their frames with one `preadv`; the
    /// caller publishes them. On a panic (I/O error) gives the frames back, unlocks the pages
    /// and resumes the panic. Returns bytes read and read calls.
    fn read_batch(&self, file: FileId, batch: &[(u64, bool, usize)]) -> (usize, u64) {
        let fs = &self.files[file as usize];
        self.assign_frames(file, batch);
        // SAFETY: every frame in the batch was claimed by `take_frame`: no page maps to it, so
        // nobody else reads or writes it until the caller publishes the pages; frames are distinct.
        let mut bufs: Vec<&mut [u8]> =
            batch.iter().map(|&(_, _, f)| unsafe { self.mem.frame_mut(f) }).collect();
        let offset = batch[0].0 << self.page_shift;
        let read =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| fs.io.read_pages(&mut bufs, offset)));
        match read {
            Ok(r) => r,
            Err(panic) => {
                // Give the frames back and unlock the pages so other threads are not stuck.
                self.give_back(file, batch);
                std::panic::resume_unwind(panic);
            }
        }
    }

    /// Records each frame of `batch` as holding its page, before the page is read into it.
    fn assign_frames(&self, file: FileId, batch: &[(u64, bool, usize)]) {
        for &(q, _, f) in batch {
            self.owner[f].store(page_key(file, q), Ordering::Release);
        }
    }

    /// A frame for page `key`: a free one, or one evicted for it. When every frame is pinned,
    /// waits if `wait` (up to [`FRAME_STALL`]), else gives up.
    fn take_frame(&self, key: PageKey, wait: bool) -> Option<usize> {
        if let Some(f) = self.pop_free() {
            return Some(f);
        }
        let mut spins = 0u32;
        let started = std::time::Instant::now();
        loop {
            // 1. Ask the policy for a candidate; 2. `try_claim` locks its page's word, skipping
            // it when pinned, busy or protected.
            if let Some(f) = self.evict_clean_victim(key, true) {
                return Some(f);
            }
            if !wait {
                return None;
            }
            // Protection is advice: a miss takes a protected page rather than wait.
            if let Some(f) = self.evict_clean_victim(key, false) {
                return Some(f);
            }
            // Every unpinned frame is dirty: write some back (writable pools only).
            if let Some(f) = self.write_back_for(key) {
                return Some(f);
            }
            // A failed write-back frees nothing, now or later; nor does a stall.
            if self.write.as_ref().is_some_and(|ws| ws.failure().is_some()) || started.elapsed() > FRAME_STALL
            {
                return None;
            }
            backoff(&mut spins);
        }
    }

    /// Why a read found no frame for [`FRAME_STALL`].
    fn stall_message(&self) -> String {
        let frames = self.mem.count();
        format!(
            "the buffer pool's {frames} frames ({}) stayed pinned for {} s by readers that each wait for \
             another frame: give the pool at least two frames per reading thread (more memory, or fewer threads)",
            crate::size::format_size((frames << self.page_shift) as u64),
            FRAME_STALL.as_secs()
        )
    }

    /// A frame from the free list, if any. The first call starts the background thread of
    /// [`Core::collapse_when_settled`].
    fn pop_free(&self) -> Option<usize> {
        if self.free_len.load(Ordering::Acquire) == 0 {
            return None;
        }
        let mut free = self.free.lock();
        let f = free.pop()?;
        self.free_len.fetch_sub(1, Ordering::Release);
        self.prefault_after(f);
        // A load first: this runs under the free-list lock on every first use of a frame.
        if !self.watching.load(Ordering::Relaxed) && !self.watching.swap(true, Ordering::AcqRel) {
            let me = self.me.clone();
            // Best effort: without the thread the frames keep ordinary pages.
            let _ = std::thread::Builder::new()
                .name("ocgraph-hugepages".into())
                .spawn(move || Core::collapse_when_settled(me));
        }
        Some(f)
    }

    /// Backs the used frames with huge pages ([`FrameMemory::collapse_to_huge_pages`]) each
    /// time the pool has settled: in a [`SETTLE_INTERVAL`] it read less than
    /// 1/[`SETTLE_READ_DIVISOR`] of its capacity, and it has used frames not collapsed yet (the
    /// free list hands frames out in ascending order, so the used frames are the first
    /// `frames - free`). While the pool is still reading it would pay for the copy, so the
    /// thread waits (holding no reference to the pool between checks); it exits when every
    /// frame is collapsed or the pool is dropped. (A pool of at most half its files has huge
    /// pages from the start; there the collapse finds them in place.)
    fn collapse_when_settled(me: Weak<Core>) {
        let mut last = None;
        let mut done = 0;
        loop {
            std::thread::sleep(SETTLE_INTERVAL);
            let Some(pool) = me.upgrade() else { return };
            let read = pool.counters.get(Counter::BytesRead);
            let count = pool.mem.count();
            let capacity = (count * pool.page_size) as u64;
            let used = count - pool.free_len.load(Ordering::Acquire).min(count);
            // Counters may be reset meanwhile: a smaller value counts as no reads.
            if last.is_some_and(|l: u64| read.saturating_sub(l) < capacity / SETTLE_READ_DIVISOR)
                && used > done
            {
                pool.mem.collapse_to_huge_pages(done, used);
                done = used;
                if done == count {
                    return;
                }
            }
            last = Some(read);
        }
    }

    /// Evicts the policy's victim among the clean unpinned pages (and unprotected ones, if
    /// `spare_protected`) and returns its frame; `None` when there is none.
    fn evict_clean_victim(&self, key: PageKey, spare_protected: bool) -> Option<usize> {
        // 1. Ask the policy for a candidate; 2. `try_claim` locks its page's word, skipping it
        // when pinned, busy or dirty (or protected).
        let f = self
            .policy
            .get()
            .victim(key, &mut |f| !(spare_protected && self.is_protected(f)) && self.try_claim(f))?;
        debug_assert!(f < self.mem.count());
        // 3. Mark the old page evicted (its word is locked by us, its frame unused).
        let (old_file, old_page) = split_page_key(self.owner[f].load(Ordering::Acquire));
        let entry = &self.files[old_file as usize].table[old_page as usize];
        debug_assert_eq!(table::state(entry.load(Ordering::Relaxed)), LOCKED);
        entry.store(LOADED_ONCE | EVICTED, Ordering::Release);
        self.policy.get().on_evict(f);
        self.counters.add(Counter::Evictions, 1);
        // 4. Reuse the frame.
        Some(f)
    }

    /// The protection bit of the page holding byte `offset` of `file` (see [`protect_bit`]).
    fn protect_bit_at(&self, file: FileId, offset: u64) -> (&AtomicU64, u64) {
        let fs = &self.files[file as usize];
        assert!(
            offset < fs.len,
            "protection of {} past its end ({offset} >= {})",
            fs.io.path.display(),
            fs.len
        );
        protect_bit(fs, offset >> self.page_shift)
    }

    /// Whether the page frame `f` holds is protected ([`PageSource::protect`]).
    fn is_protected(&self, f: usize) -> bool {
        let key = self.owner[f].load(Ordering::Relaxed);
        if key == NO_PAGE {
            return false;
        }
        let (file, page) = split_page_key(key);
        let (word, bit) = protect_bit(&self.files[file as usize], page);
        word.load(Ordering::Relaxed) & bit != 0
    }

    /// Tries to lock the page held by frame `f` for eviction: succeeds only when that page is
    /// resident in `f` with no pins and clean (dirty pages go through [`writeback`]).
    fn try_claim(&self, f: usize) -> bool {
        if !self.try_lock_frame(f) {
            return false;
        }
        match &self.write {
            Some(ws) if ws.is_dirty(f) => {
                self.unlock_frame(f);
                false
            }
            _ => true,
        }
    }

    /// Locks the page held by frame `f` when it is resident there with no pins, clean or not.
    fn try_lock_frame(&self, f: usize) -> bool {
        let key = self.owner[f].load(Ordering::Acquire);
        if key == NO_PAGE {
            return false;
        }
        let (file, page) = split_page_key(key);
        let entry = &self.files[file as usize].table[page as usize];
        let w = entry.load(Ordering::Acquire);
        let locked = table::state(w) == 0
            && table::frame(w) == f
            && entry
                .compare_exchange(w, table::with_state(w, LOCKED), Ordering::Acquire, Ordering::Relaxed)
                .is_ok();
        if locked && w & PREFETCHED != 0 {
            self.ahead_gone();
        }
        locked
    }

    #[inline]
    fn unpin(&self, file: FileId, page: u64) {
        let old = self.files[file as usize].table[page as usize].fetch_sub(1, Ordering::Release);
        debug_assert!(table::state(old) >= 1 && table::state(old) <= MAX_PINS);
    }

    /// Pins pages `first..=last` of `file` when they are all resident and held by adjacent
    /// frames in order (as a sequential read-ahead leaves them), so that a read spanning them
    /// needs no copy; returns the first frame. A page read ahead counts its first use here as
    /// in [`Core::pin`] (which may start the next read-ahead window).
    /// Never waits and never loads: otherwise (or when the run is longer than
    /// 1/[`MAX_ADJACENT_DIVISOR`] of the frames, which keeps the frames pinned by such reads
    /// a small share of the pool) it pins nothing and returns `None`.
    fn pin_adjacent(&self, file: FileId, first: u64, last: u64) -> Option<usize> {
        let pages = (last - first + 1) as usize;
        if pages * MAX_ADJACENT_DIVISOR > self.mem.count() {
            return None;
        }
        let table = &self.files[file as usize].table;
        let mut f0 = 0;
        for p in first..=last {
            let entry = &table[p as usize];
            let w = entry.load(Ordering::Acquire);
            let f = table::frame(w);
            if p == first {
                f0 = f;
            }
            // Take a pin and clear the read-ahead marks, as `pin` does.
            let new = (w + 1) & !(PREFETCHED | TRIGGER);
            let ok = table::state(w) < MAX_PINS
                && f == f0 + (p - first) as usize
                && entry.compare_exchange(w, new, Ordering::Acquire, Ordering::Relaxed).is_ok();
            if !ok {
                for q in first..p {
                    self.unpin(file, q);
                }
                return None;
            }
            if w & PREFETCHED != 0 {
                self.first_use_of_prefetched(file, p, w & TRIGGER != 0);
            }
        }
        self.counters.add(Counter::Hits, pages as u64);
        for f in f0..f0 + pages {
            self.policy.on_hit(f);
        }
        Some(f0)
    }

    /// Copies bytes `[offset, offset + len)` of `file` (within the file) to `dst`, pinning each
    /// page only while copying from it.
    ///
    /// # Safety
    /// `dst` is valid for writes of `len` bytes and does not overlap the frames.
    #[inline]
    unsafe fn copy_pages(&self, file: FileId, offset: u64, len: usize, dst: *mut u8) {
        if len == 0 {
            return;
        }
        let last = (offset + len as u64 - 1) >> self.page_shift;
        // Pages up to this one are already pinned by the last miss's demand run.
        let mut pinned_to: Option<u64> = None;
        let pin = |p: u64| {
            Some(match pinned_to {
                // A pinned page's word keeps its frame until it is unpinned.
                Some(q) if p <= q => {
                    table::frame(self.files[file as usize].table[p as usize].load(Ordering::Acquire))
                }
                _ => {
                    let (f, q) = self.pin_through(file, p, last);
                    pinned_to = Some(q);
                    f
                }
            })
        };
        // SAFETY: as the caller guarantees.
        unsafe { self.copy_page_by_page(file, offset, len, dst, pin) };
    }

    /// Copies bytes `[offset, offset + len)` of `file` (within the file) to `dst` as
    /// [`Core::copy_pages`] does while every page is resident; returns `false` at the first that
    /// is not (what was copied before it is left in `dst`). No I/O, no waiting.
    ///
    /// # Safety
    /// As for [`Core::copy_pages`].
    unsafe fn copy_cached(&self, file: FileId, offset: u64, len: usize, dst: *mut u8) -> bool {
        // SAFETY: as the caller guarantees.
        unsafe { self.copy_page_by_page(file, offset, len, dst, |p| self.pin_cached(file, p)) }
    }

    /// The copy loop of [`Core::copy_pages`] and [`Core::copy_cached`]: for each page `p` of
    /// the range in order, `pin(p)` pins it and gives its frame, the page's part is copied and
    /// the page unpinned. Returns `false` when `pin` gives `None` (what was copied before
    /// stays in `dst`).
    ///
    /// # Safety
    /// `dst` is valid for writes of `len` bytes and does not overlap the frames; `pin` returns
    /// frames that hold page `p`, pinned.
    #[inline]
    unsafe fn copy_page_by_page(
        &self,
        file: FileId,
        offset: u64,
        len: usize,
        dst: *mut u8,
        mut pin: impl FnMut(u64) -> Option<usize>,
    ) -> bool {
        let ps = self.page_size as u64;
        let end = offset + len as u64;
        let (mut lo, mut out) = (offset, 0);
        while lo < end {
            let p = lo >> self.page_shift;
            let hi = end.min((p + 1) * ps);
            let n = (hi - lo) as usize;
            let Some(f) = pin(p) else { return false };
            let start = (lo - p * ps) as usize;
            // SAFETY: the page is pinned while we copy `n` bytes from inside its frame; `dst` has
            // room for `len` bytes by the caller's guarantee and `out + n <= len`.
            unsafe {
                let src = self.mem.frame(f).as_ptr().add(start);
                std::ptr::copy_nonoverlapping(src, dst.add(out), n);
            }
            self.unpin(file, p);
            out += n;
            lo = hi;
        }
        true
    }

    /// Test hook: checks the residency invariants (every resident page's frame is distinct,
    /// in range and owned by that page) and returns the number of resident pages, which is at
    /// most the frame count. Call it while no other thread uses the pool.
    #[cfg(test)]
    pub(crate) fn resident_pages(&self) -> usize {
        self.worker.wait_idle();
        self.prefetcher.wait_idle();
        self.flusher.wait_idle();
        let mut seen = vec![false; self.mem.count()];
        let mut n = 0;
        for (i, fs) in self.files.iter().enumerate() {
            for (p, w) in fs.table.iter().enumerate() {
                let w = w.load(Ordering::Acquire);
                let s = table::state(w);
                assert_ne!(s, LOCKED, "page {p} of file {i} left locked");
                if s == EVICTED {
                    continue;
                }
                let f = table::frame(w);
                assert!(f < seen.len() && !seen[f], "frame {f} mapped twice or out of range");
                seen[f] = true;
                assert_eq!(self.owner[f].load(Ordering::Acquire), page_key(i as FileId, p as u64));
                n += 1;
            }
        }
        assert!(n <= self.mem.count());
        n
    }

    /// Test hook: sets how many pages a sequential miss reads ahead synchronously, and the
    /// largest asynchronous window (0 turns either off).
    #[cfg(test)]
    pub(crate) fn set_read_ahead(&self, pages: usize, async_pages: usize) {
        self.read_ahead.store(pages, Ordering::Relaxed);
        self.async_max.store(async_pages, Ordering::Relaxed);
    }

    /// Test hook: the number of frames (the capacity in pages).
    #[cfg(test)]
    pub(crate) fn frame_count(&self) -> usize {
        self.mem.count()
    }
}

/// Spins briefly, then yields the CPU, then sleeps in [`BACKOFF_SLEEP`] steps.
fn backoff(spins: &mut u32) {
    *spins = spins.saturating_add(1);
    if *spins < 64 {
        std::hint::spin_loop();
    } else if *spins < 256 {
        std::thread::yield_now();
    } else {
        std::thread::sleep(BACKOFF_SLEEP);
    }
}

impl PinRelease for Core {
    #[inline]
    fn release(&self, key: u64, pages: u32) {
        let (file, first) = split_page_key(key);
        for page in first..first + pages as u64 {
            self.unpin(file, page);
        }
    }
}

impl PageSource for BufferPool {
    fn read(&self, file: FileId, offset: u64, len: usize) -> Bytes<'_> {
        if len == 0 {
            // An empty Vec's dangling pointer is aligned for any element type.
            return Bytes::owned(Vec::new(), 0);
        }
        let fs = &self.files[file as usize];
        let end = offset + len as u64;
        assert!(end <= fs.len, "read of {} past its end ({end} > {})", fs.io.path.display(), fs.len);
        let ps = self.page_size as u64;
        let first = offset >> self.page_shift;
        let last = (end - 1) >> self.page_shift;
        if first == last {
            let f = self.pin(file, first);
            let start = (offset - first * ps) as usize;
            // SAFETY: the page is pinned until the returned Bytes releases it.
            let data = unsafe { &self.mem.frame(f)[start..start + len] };
            return Bytes::pinned(data, &*self.0, page_key(file, first), 1);
        }
        if let Some(f) = self.pin_adjacent(file, first, last) {
            let start = (offset - first * ps) as usize;
            let pages = (last - first + 1) as usize;
            // SAFETY: the pages are pinned, in the adjacent frames `f..f + pages`, until the
            // returned Bytes releases them.
            let data = unsafe { &self.mem.frames(f, pages)[start..start + len] };
            return Bytes::pinned(data, &*self.0, page_key(file, first), pages as u32);
        }
        let words = len.div_ceil(8);
        let mut buf: Vec<u64> = Vec::with_capacity(words);
        // SAFETY: the buffer has room for `words * 8 >= len` bytes; `copy_pages` writes the first
        // `len`, the tail of the last word is zeroed, so all `words` words are initialised.
        unsafe {
            let dst = buf.as_mut_ptr() as *mut u8;
            self.copy_pages(file, offset, len, dst);
            std::ptr::write_bytes(dst.add(len), 0, words * 8 - len);
            buf.set_len(words);
        }
        Bytes::owned(buf, len)
    }

    fn read_into(&self, file: FileId, offset: u64, dst: &mut [u8]) {
        let len = dst.len();
        let fs = &self.files[file as usize];
        let end = offset + len as u64;
        assert!(end <= fs.len, "read of {} past its end ({end} > {})", fs.io.path.display(), fs.len);
        // SAFETY: `dst` is valid for writes of `len` bytes.
        unsafe { self.copy_pages(file, offset, len, dst.as_mut_ptr()) };
    }

    fn read_then(&self, file: FileId, offset: u64, len: usize, next: (FileId, u64)) -> Bytes<'_> {
        companion::with_next(next, || self.read(file, offset, len))
    }

    fn read_into_then(&self, file: FileId, offset: u64, dst: &mut [u8], next: (FileId, u64)) {
        companion::with_next(next, || self.read_into(file, offset, dst))
    }

    fn read_cached_into(&self, file: FileId, offset: u64, dst: &mut [u8]) -> bool {
        let fs = &self.files[file as usize];
        let end = offset + dst.len() as u64;
        assert!(end <= fs.len, "read of {} past its end ({end} > {})", fs.io.path.display(), fs.len);
        // SAFETY: `dst` is valid for writes of its length and is not a frame.
        unsafe { self.copy_cached(file, offset, dst.len(), dst.as_mut_ptr()) }
    }

    fn keep_cached(&self, file: FileId, offset: u64) -> bool {
        let fs = &self.files[file as usize];
        assert!(offset < fs.len, "keep of {} past its end ({offset} >= {})", fs.io.path.display(), fs.len);
        let page = offset >> self.page_shift;
        let Some(f) = self.pin_cached(file, page) else { return false };
        self.policy.on_hit(f);
        self.unpin(file, page);
        true
    }

    /// Sets the page's protection bit: eviction passes over the frame holding it (see
    /// [`Core::take_frame`]).
    fn protect(&self, file: FileId, offset: u64) {
        let (word, bit) = self.protect_bit_at(file, offset);
        word.fetch_or(bit, Ordering::Relaxed);
    }

    fn unprotect(&self, file: FileId, offset: u64) {
        let (word, bit) = self.protect_bit_at(file, offset);
        word.fetch_and(!bit, Ordering::Relaxed);
    }

    fn wants_shared_pages(&self) -> bool {
        self.policy.get().wants_shared_pages()
    }

    /// Replaces the shared pages of each file `cuts` names (the others keep theirs, so that a
    /// kernel may report the two directions it scans one after the other) and hands the
    /// policy the shared pages of all files.
    fn share_pages(&self, cuts: &[PartitionCut]) {
        let mut named: Vec<FileId> = cuts.iter().map(|c| c.file).collect();
        named.sort_unstable();
        named.dedup();
        for &file in &named {
            let mut pages: Vec<u64> = cuts
                .iter()
                .filter(|c| c.file == file && c.prev_end > 0)
                .flat_map(|c| (c.next_start >> self.page_shift)..=((c.prev_end - 1) >> self.page_shift))
                .collect();
            pages.sort_unstable();
            pages.dedup();
            self.counters.add(Counter::SharedPages, pages.len() as u64);
            *self.files[file as usize].shared.lock() = pages;
        }
        let mut keys: Vec<PageKey> = Vec::new();
        for (f, fs) in self.files.iter().enumerate() {
            keys.extend(fs.shared.lock().iter().map(|&p| page_key(f as FileId, p)));
        }
        self.policy.get().set_shared_pages(&keys);
    }

    /// `WillNeed` queues a background load of the range (see [`prefetch`]); `Random` turns
    /// read-ahead off for the whole pool (random queries: a sequential miss reads only what is
    /// asked); other advice is ignored: read-ahead follows the sequential misses it detects.
    fn advise(&self, file: FileId, offset: u64, len: u64, advice: Advice) {
        match advice {
            Advice::WillNeed => self.prefetch(file, offset, len),
            Advice::Random => {
                self.read_ahead.store(0, Ordering::Relaxed);
                self.async_max.store(0, Ordering::Relaxed);
            }
            Advice::Normal | Advice::Sequential => {
                let (sync_pages, async_pages) = default_read_ahead(self.page_size, self.mem.count());
                self.read_ahead.store(sync_pages, Ordering::Relaxed);
                self.async_max.store(async_pages, Ordering::Relaxed);
            }
        }
    }

    fn scan_chunk(&self) -> usize {
        self.page_size
    }

    fn stats(&self) -> IoStats {
        let mut s = IoStats { backend: "pool".into(), ..IoStats::default() };
        self.counters.fill(&mut s);
        let frames = self.mem.count();
        let used = frames - self.free_len.load(Ordering::Acquire).min(frames);
        s.resident_bytes = (used * self.page_size) as u64;
        s.capacity_bytes = (frames * self.page_size) as u64;
        s
    }

    fn reset_stats(&self) {
        self.counters.reset();
    }
}
