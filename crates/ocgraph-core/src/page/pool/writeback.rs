//! The write side of the pool: dirty frames, flushes and write-back on eviction (seed 004).
//!
//! **Writes.** [`Core::write_at`] writes page by page. For each page it takes the page's word
//! *locked* (the state the miss path uses while loading): from "resident, no pins" directly, or
//! from "evicted" by loading the page into a fresh frame, skipping the read when the write
//! covers the whole page or the page lies past the file's size at open and was never loaded
//! (it is known to be zeros). A locked page is neither readable nor evictable, so the bytes
//! change under no reader. It then sets the frame's **dirty flag** (one `AtomicBool` per frame
//! in [`WriteState`]; the page-table word has no spare bit) and publishes the page resident
//! with no pins. A writer waits while the page is pinned: a thread must not write a page it
//! holds a [`Slice`](crate::page::Slice) of.
//!
//! **Three sets** (seed 004): pinned ("using") pages are never victims; clean pages are
//! evicted first, by the configured [`ReplacementPolicy`](crate::page::policy::ReplacementPolicy)
//! (its claim callback refuses dirty frames); dirty pages are also kept in [`DirtyRuns`],
//! disjoint runs of contiguous page numbers per file with the longest found in O(log n). When a
//! miss finds no clean unpinned frame:
//! - [`WriteBack::Batch`] takes the longest run (when it has at least two pages; otherwise no
//!   write can be sequential and it does as `SinglePage` does), locks its pages (a page pinned
//!   meanwhile is skipped: it splits the run and stays dirty) and leaves the **hot end** of the
//!   run dirty and resident: the pages at the run's end written within the last
//!   `frames / HOT_WINDOW_DIVISOR` page writes (each frame records the write clock at its last
//!   write). Data appended at a file's end thus keeps filling its page in memory, and the next
//!   run written starts where this one ended (a sequential write). It writes each contiguous
//!   part of the rest with one `pwritev` (one iovec per run of frames adjacent in
//!   memory), evicts its cold pages and frees their frames, and keeps its hot pages resident and
//!   clean with a second chance from the policy. When the whole run is hot it does as
//!   `SinglePage` does. (Evicting the whole run, hot end included, made every write-back re-read
//!   the page being appended to: node inserts 3-4x slower than single-page write-back.)
//! - [`WriteBack::SinglePage`] asks the policy for a victim among all unpinned pages and writes
//!   back just that page if it is dirty.
//!
//! [`WriteBack::BatchBackground`] is `Batch` plus a background flusher ([`super::flusher`])
//! that writes the longest run's cold part, leaving it resident and clean, whenever more than
//! half of the frames are dirty, so that foreground misses mostly find clean victims. It is not
//! the default: on a 2-core machine the flusher competes with the foreground thread and made
//! edge inserts 8-15% slower on average than plain `Batch` (`bench/updates/run.py`, LinkBench-like).
//!
//! The run set holds pinned dirty pages too (tracking pins there would put a lock on the read
//! hit path); the batch skips them when locking. A dirty flag is set or cleared, and a page
//! enters or leaves the run set, only by a thread holding the page locked or pinned, and at most
//! one thread writes back at a time (`writeback` mutex), so the flag and the set agree whenever
//! no write-back is running. [`Core::flush`] writes every dirty page (sorted, one `pwritev` per
//! run) under pins, then `fdatasync`s every file. Nothing is written on drop: unflushed writes
//! are lost, which callers that need durability handle with their own log.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use parking_lot::Mutex;

use super::dirty_runs::DirtyRuns;
use super::{backoff, table, BufferPool, Core, EVICTED, LOADED_ONCE, LOCKED, MAX_PINS, NO_PAGE};
use crate::error::{Error, Result};
use crate::page::backend::PagedFile;
use crate::page::policy::{page_key, split_page_key, PageKey};
use crate::page::stats::Counter;
use crate::page::FileId;

/// A dirty page written within the last `frames / HOT_WINDOW_DIVISOR` page writes is hot: the
/// batch write-back leaves it dirty and resident.
const HOT_WINDOW_DIVISOR: u64 = 4;

/// A [`WriteBack::BatchBackground`] pool wakes the background flusher when more than
/// `frames / FLUSH_ABOVE_DIVISOR` frames are dirty.
const FLUSH_ABOVE_DIVISOR: usize = 2;

/// How a writable pool makes room when every unpinned frame holds a dirty page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteBack {
    /// Seed 004's batch replacement: write the longest run of dirty pages contiguous on disk in
    /// one sequential write and free all of its frames.
    Batch,
    /// Write back only the replacement policy's victim (one page per eviction).
    SinglePage,
    /// `Batch`, plus a background thread that cleans the longest dirty run ahead of need once
    /// more than half of the frames are dirty.
    BatchBackground,
}

impl WriteBack {
    /// Every mode, in the order benchmarks report them.
    pub const ALL: [WriteBack; 3] = [WriteBack::Batch, WriteBack::SinglePage, WriteBack::BatchBackground];

    /// The mode's name: `batch`, `single` or `batch-bg`.
    pub fn name(self) -> &'static str {
        match self {
            WriteBack::Batch => "batch",
            WriteBack::SinglePage => "single",
            WriteBack::BatchBackground => "batch-bg",
        }
    }

    /// The mode named `batch`, `single` or `batch-bg`.
    pub fn by_name(name: &str) -> Result<WriteBack> {
        match name {
            "batch" => Ok(WriteBack::Batch),
            "single" => Ok(WriteBack::SinglePage),
            "batch-bg" => Ok(WriteBack::BatchBackground),
            other => Err(Error::invalid(format!(
                "unknown write-back mode '{other}' (valid: batch, single, batch-bg)"
            ))),
        }
    }

    /// Whether the mode writes back the longest dirty run (`Batch` and `BatchBackground`).
    fn batches(self) -> bool {
        self != WriteBack::SinglePage
    }
}

/// The write state of a writable pool.
pub(super) struct WriteState {
    mode: WriteBack,
    /// Per frame: the page it holds was written since it was last read or written back.
    dirty: Box<[AtomicBool]>,
    /// Page writes so far (a logical clock for [`WriteState::written_at`]).
    tick: AtomicU64,
    /// Per frame: the value of `tick` at the last write of its page (hotness for the batch).
    written_at: Box<[AtomicU64]>,
    /// A page written within the last `hot_window` page writes is hot.
    hot_window: u64,
    /// The dirty pages as runs (see the module documentation).
    runs: Mutex<DirtyRuns>,
    /// Held by the one thread writing back (eviction or flush).
    writeback: Mutex<()>,
    /// Per file: where the previous write ended (for the random-write statistic).
    last_end: Box<[AtomicU64]>,
    /// Per file: the first page past the file's size at open (never-loaded pages from here on
    /// are zeros and need no read).
    zero_from: Box<[u64]>,
    /// Number of dirty frames.
    dirty_frames: AtomicUsize,
    /// Above this many dirty frames, a batch pool wakes the background flusher.
    flush_above: AtomicUsize,
    /// Runs the background flusher has written (a miss waiting for the write-back lock then
    /// looks for a clean victim first).
    flushed: AtomicU64,
    /// The first failed write-back (file, offset, error text): from then on every write and
    /// every miss that needs a frame fails with it (the pages it could not write stay dirty
    /// and resident, so nothing written is lost from memory, but the pool is not used on).
    failed: Mutex<Option<String>>,
}

impl WriteState {
    /// Records the first write-back failure.
    fn fail(&self, msg: String) {
        self.failed.lock().get_or_insert(msg);
    }

    /// The first write-back failure, if any.
    pub(super) fn failure(&self) -> Option<String> {
        self.failed.lock().clone()
    }

    /// The write state for `frames` frames over files whose first page past their size at
    /// open is `zero_from` (see [`pages_on_disk`]).
    pub(super) fn new(mode: WriteBack, frames: usize, zero_from: Vec<u64>) -> WriteState {
        WriteState {
            mode,
            dirty: (0..frames).map(|_| AtomicBool::new(false)).collect(),
            tick: AtomicU64::new(0),
            written_at: (0..frames).map(|_| AtomicU64::new(0)).collect(),
            hot_window: (frames as u64 / HOT_WINDOW_DIVISOR).max(1),
            runs: Mutex::new(DirtyRuns::new(zero_from.len())),
            writeback: Mutex::new(()),
            last_end: (0..zero_from.len()).map(|_| AtomicU64::new(0)).collect(),
            zero_from: zero_from.into(),
            dirty_frames: AtomicUsize::new(0),
            flush_above: AtomicUsize::new(match mode {
                WriteBack::BatchBackground => frames / FLUSH_ABOVE_DIVISOR,
                _ => usize::MAX,
            }),
            flushed: AtomicU64::new(0),
            failed: Mutex::new(None),
        }
    }

    /// Whether frame `f` holds a dirty page.
    #[inline]
    pub(super) fn is_dirty(&self, f: usize) -> bool {
        self.dirty[f].load(Ordering::Acquire)
    }

    /// Clears the dirty flag of frame `f`.
    fn clear_dirty(&self, f: usize) {
        if self.dirty[f].swap(false, Ordering::AcqRel) {
            self.dirty_frames.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Whether the page in frame `f` was written within the last `hot_window` page writes.
    fn is_hot(&self, f: usize) -> bool {
        self.written_at[f].load(Ordering::Relaxed) + self.hot_window > self.tick.load(Ordering::Relaxed)
    }
}

impl BufferPool {
    /// [`PageSource::read_into`] for writable pools, failing instead of panicking when write-back
    /// has failed or a page read fails (an error naming the file and offset): before reading a page that is not resident, a frame is made free (writing
    /// dirty pages back if need be), so the read's miss does not have to write back itself.
    /// Exact while one thread at a time reads and writes the pool (as [`PagedDelta`] does under
    /// its directory lock); with concurrent readers a read can still meet the failure and panic.
    ///
    /// [`PageSource::read_into`]: crate::page::PageSource::read_into
    /// [`PagedDelta`]: crate::update::PagedDelta
    pub(crate) fn try_read_into(&self, file: FileId, offset: u64, dst: &mut [u8]) -> Result<()> {
        if let Some(ws) = &self.write {
            let fs = &self.files[file as usize];
            let fail = |msg: String| Error::io(&fs.io.path, "write back", std::io::Error::other(msg));
            if let Some(msg) = ws.failure() {
                return Err(fail(msg));
            }
            let (first, last) =
                (offset >> self.page_shift, (offset + dst.len().max(1) as u64 - 1) >> self.page_shift);
            let missing = (first..=last).any(|p| {
                let w = fs.table.get(p as usize).map_or(0, |e| e.load(Ordering::Acquire));
                table::state(w) == EVICTED
            });
            if missing && self.free_len.load(Ordering::Acquire) == 0 {
                match self.take_frame(page_key(file, first), true) {
                    Some(f) => self.release_frame(f),
                    None => return Err(fail(ws.failure().unwrap_or_default())),
                }
            }
        }
        // A failed read is an error here, not a panic.
        super::io::catch_read_errors(|| crate::page::PageSource::read_into(self, file, offset, dst))
    }

    /// Opens a writable pool over `files`: each file is created if missing and extended
    /// (sparse) to its `len`, the fixed maximum size of the file, which must be a multiple of
    /// `page_size`; the page table covers all of it. Other parameters as for
    /// [`BufferPool::open`]; `write_back` chooses how dirty pages are evicted.
    pub(crate) fn open_writable(
        files: &[PagedFile],
        capacity: u64,
        page_size: usize,
        policy: &str,
        write_back: WriteBack,
    ) -> Result<BufferPool> {
        if let Some(f) = files.iter().find(|f| !f.len.is_multiple_of(page_size as u64)) {
            return Err(Error::invalid(format!(
                "writable file {} has size {} that is not a multiple of the page size {page_size}",
                f.path.display(),
                f.len
            )));
        }
        BufferPool::open_with(files, &[], capacity, page_size, policy, Some(write_back))
    }
}

/// The first page of each file past its size on disk now (before `open_writable` extends it).
pub(super) fn pages_on_disk(files: &[PagedFile], page_size: usize) -> Vec<u64> {
    files
        .iter()
        .map(|f| std::fs::metadata(&f.path).map_or(0, |m| m.len().div_ceil(page_size as u64)))
        .collect()
}

impl Core {
    /// Writes `data` at byte `offset` of `file`; later reads see it. Fails on a read-only pool
    /// or a range past the file's end. Waits while a page written is pinned (so a thread must
    /// hold no slice of those pages). Panics on an I/O error, as reads do.
    pub(crate) fn write_at(&self, file: FileId, offset: u64, data: &[u8]) -> Result<()> {
        let Some(ws) = &self.write else { return Err(Error::invalid("write to a read-only buffer pool")) };
        let fs = self.files.get(file as usize).ok_or_else(|| {
            Error::invalid(format!("write to file {file} of a pool of {}", self.files.len()))
        })?;
        let end = offset.checked_add(data.len() as u64).filter(|&e| e <= fs.len).ok_or_else(|| {
            Error::invalid(format!(
                "write of {} bytes at offset {offset} past the end of {} ({} bytes)",
                data.len(),
                fs.io.path.display(),
                fs.len
            ))
        })?;
        let ps = self.page_size as u64;
        let (mut lo, mut done) = (offset, 0);
        while lo < end {
            let p = lo >> self.page_shift;
            let hi = end.min((p + 1) * ps);
            let n = (hi - lo) as usize;
            let f = self
                .lock_for_write(ws, file, p, n == self.page_size)
                .map_err(|msg| Error::io(&fs.io.path, "write back", std::io::Error::other(msg)))?;
            let start = (lo - p * ps) as usize;
            // SAFETY: the page is locked by this thread: no other thread reads or writes frame `f`.
            unsafe { self.mem.frame_mut(f)[start..start + n].copy_from_slice(&data[done..done + n]) };
            ws.written_at[f].store(ws.tick.fetch_add(1, Ordering::Relaxed) + 1, Ordering::Relaxed);
            // Counted before the page is published, so a write-back never uncounts it first.
            let wake = !ws.dirty[f].swap(true, Ordering::AcqRel) && {
                ws.runs.lock().insert(file, p);
                ws.dirty_frames.fetch_add(1, Ordering::AcqRel) >= ws.flush_above.load(Ordering::Relaxed)
            };
            fs.table[p as usize].store(table::resident(f, 0), Ordering::Release);
            if wake && ws.mode == WriteBack::BatchBackground {
                self.flusher.wake();
            }
            lo = hi;
            done += n;
        }
        Ok(())
    }

    /// Locks page `page` of `file` for writing, loading it if evicted (without reading when
    /// `whole`: the caller overwrites all of it). Returns its frame.
    /// Fails (with the write-back failure) when a frame is needed and write-back has failed.
    fn lock_for_write(&self, ws: &WriteState, file: FileId, page: u64, whole: bool) -> Result<usize, String> {
        if let Some(msg) = ws.failure() {
            return Err(msg);
        }
        let entry = &self.files[file as usize].table[page as usize];
        let mut spins = 0u32;
        loop {
            let w = entry.load(Ordering::Acquire);
            let s = table::state(w);
            if s == 0 || s == EVICTED {
                let locked = table::with_state(w, LOCKED);
                if entry.compare_exchange(w, locked, Ordering::Acquire, Ordering::Relaxed).is_ok() {
                    if s == EVICTED {
                        return self.load_for_write(ws, file, page, w, whole);
                    }
                    let f = table::frame(w);
                    self.counters.add(Counter::Hits, 1);
                    self.policy.on_hit(f);
                    return Ok(f);
                }
            } else {
                // Pinned by readers, or locked by another thread: wait.
                backoff(&mut spins);
            }
        }
    }

    /// Miss path of a write: the caller holds the evicted page's word `w` locked.
    #[cold]
    fn load_for_write(
        &self,
        ws: &WriteState,
        file: FileId,
        page: u64,
        w: u64,
        whole: bool,
    ) -> Result<usize, String> {
        let fs = &self.files[file as usize];
        let key = page_key(file, page);
        let Some(f) = self.take_frame(key, true) else {
            // Only a failed write-back makes a waiting `take_frame` give up: unlock the page.
            fs.table[page as usize].store(w, Ordering::Release);
            return Err(ws.failure().unwrap_or_else(|| "no frame could be had".into()));
        };
        self.owner[f].store(key, Ordering::Release);
        let loaded_before = w & LOADED_ONCE != 0;
        // SAFETY: frame `f` was claimed by `take_frame`: no page maps to it but ours, locked.
        let buf = unsafe { self.mem.frame_mut(f) };
        if !whole && !loaded_before && page >= ws.zero_from[file as usize] {
            buf.fill(0);
        } else if !whole {
            let offset = page << self.page_shift;
            let read =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| fs.io.read_page(buf, offset)));
            match read {
                Ok((bytes, calls)) => {
                    self.counters.add(Counter::BytesRead, bytes as u64);
                    self.counters.add(Counter::ReadCalls, calls);
                }
                Err(panic) => {
                    self.release_frame(f);
                    fs.table[page as usize].store(w, Ordering::Release);
                    std::panic::resume_unwind(panic);
                }
            }
        }
        let c = &self.counters;
        c.add(Counter::Misses, 1);
        c.add(if loaded_before { Counter::CapacityMisses } else { Counter::ColdMisses }, 1);
        self.policy.get().on_load(f, key);
        Ok(f)
    }

    /// Puts frame `f` (holding no page) back on the free list.
    fn release_frame(&self, f: usize) {
        self.owner[f].store(NO_PAGE, Ordering::Release);
        self.free.lock().push(f);
        self.free_len.fetch_add(1, Ordering::Release);
    }

    /// Unlocks the (dirty, so never read-ahead-marked) page in frame `f` locked by
    /// [`Core::try_lock_frame`], leaving it resident with no pins.
    pub(super) fn unlock_frame(&self, f: usize) {
        let (file, page) = split_page_key(self.owner[f].load(Ordering::Acquire));
        self.files[file as usize].table[page as usize].store(table::resident(f, 0), Ordering::Release);
    }

    /// Called by a miss that found no clean unpinned frame: on a writable pool, writes dirty
    /// pages back as the pool's [`WriteBack`] mode says and returns a frame for page `key`.
    /// `None` when nothing could be written back (every dirty page pinned): the caller waits.
    pub(super) fn write_back_for(&self, key: PageKey) -> Option<usize> {
        let ws = self.write.as_ref()?;
        let flushed = ws.flushed.load(Ordering::Acquire);
        let _one_writer = ws.writeback.lock();
        // Another thread may have freed frames while we waited for the lock.
        if let Some(f) = self.pop_free() {
            return Some(f);
        }
        // The background flusher cleaned pages meanwhile: evict one of them.
        if ws.flushed.load(Ordering::Acquire) != flushed {
            if let Some(f) = self.evict_clean_victim(key, false) {
                return Some(f);
            }
        }
        match ws.mode {
            // When every run is one page, no write can be sequential: the policy chooses.
            mode if mode.batches() && ws.runs.lock().longest().is_some_and(|r| r.2 > 1) => {
                self.evict_longest_run(ws).or_else(|| self.evict_policy_victim(ws, key))
            }
            _ => self.evict_policy_victim(ws, key),
        }
    }

    /// [`WriteBack::Batch`]: writes back the longest run of dirty pages and evicts its cold
    /// pages (see the module documentation); returns one of the freed frames and puts the
    /// others on the free list.
    fn evict_longest_run(&self, ws: &WriteState) -> Option<usize> {
        let (file, written, hot) = self.write_longest_run(ws)?;
        // Evict the cold pages written (the last one at least: the hot end was left out); the
        // hot ones stay resident and clean, with a second chance from the policy.
        let mut freed = Vec::with_capacity(written.len());
        for (&(p, f), &h) in written.iter().zip(&hot) {
            if h {
                ws.clear_dirty(f);
                self.unlock_frame(f);
                self.policy.on_hit(f);
            } else {
                self.drop_written_page(ws, file, p, f);
                freed.push(f);
            }
        }
        let (&first, rest) = freed.split_first()?;
        for &f in rest {
            self.release_frame(f);
        }
        Some(first)
    }

    /// Whether more frames are dirty than the background flusher lets be.
    pub(super) fn over_dirty_threshold(&self) -> bool {
        self.write.as_ref().is_some_and(|ws| {
            ws.dirty_frames.load(Ordering::Acquire) > ws.flush_above.load(Ordering::Relaxed)
        })
    }

    /// The background flusher's step: writes the longest run of dirty pages (at least two
    /// pages) except its hot end and leaves the pages written resident and clean. Returns
    /// whether it wrote anything.
    pub(super) fn clean_longest_run(&self) -> bool {
        let Some(ws) = &self.write else { return false };
        let _one_writer = ws.writeback.lock();
        if ws.runs.lock().longest().is_none_or(|r| r.2 <= 1) {
            return false;
        }
        let Some((_, written, _)) = self.write_longest_run(ws) else { return false };
        for &(_, f) in &written {
            ws.clear_dirty(f);
            self.unlock_frame(f);
        }
        ws.flushed.fetch_add(1, Ordering::AcqRel);
        true
    }

    /// Takes the longest run of dirty pages, locks its unpinned pages and writes all of them
    /// but the hot end (see the module documentation), which goes back to the run set dirty
    /// and unlocked, as do the pinned pages. Returns the run's file, the pages written
    /// (`(page, frame)`, still locked and flagged dirty) and whether each is hot; `None` when
    /// nothing was written. The caller holds the `writeback` lock.
    #[allow(clippy::type_complexity)]
    fn write_longest_run(&self, ws: &WriteState) -> Option<(FileId, Vec<(u64, usize)>, Vec<bool>)> {
        let (file, start, len) = ws.runs.lock().take_longest()?;
        let fs = &self.files[file as usize];
        let mut locked: Vec<(u64, usize)> = Vec::with_capacity(len as usize);
        let mut skipped = Vec::new();
        for p in start..start + len {
            let entry = &fs.table[p as usize];
            let w = entry.load(Ordering::Acquire);
            if table::state(w) == 0
                && entry
                    .compare_exchange(w, table::with_state(w, LOCKED), Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            {
                locked.push((p, table::frame(w)));
            } else {
                skipped.push(p);
            }
        }
        // The hot pages at the end of the run stay dirty and resident: they are written again
        // soon (new data is appended there), and the next run written starts where this one ends.
        let hot: Vec<bool> = locked.iter().map(|&(_, f)| ws.is_hot(f)).collect();
        let keep = hot.iter().rev().take_while(|&&h| h).count();
        let written_len = locked.len() - keep;
        let (written, kept) = locked.split_at(written_len);
        for &(_, f) in kept {
            self.unlock_frame(f);
        }
        let back: Vec<u64> = skipped.into_iter().chain(kept.iter().map(|&(p, _)| p)).collect();
        if !back.is_empty() {
            let mut runs = ws.runs.lock();
            for p in back {
                runs.insert(file, p);
            }
        }
        if written.is_empty() {
            // Every page of the run is hot or pinned: the policy chooses.
            return None;
        }
        // Write each contiguous part with one call.
        let mut i = 0;
        while i < written.len() {
            let mut j = i + 1;
            while j < written.len() && written[j].0 == written[j - 1].0 + 1 {
                j += 1;
            }
            if let Err(e) = self.write_run(ws, file, &written[i..j]) {
                for &(p, f) in written {
                    fs.table[p as usize].store(table::resident(f, 0), Ordering::Release);
                    ws.runs.lock().insert(file, p);
                }
                ws.fail(format!(
                    "I/O error writing {} at offset {}: {e}",
                    fs.io.path.display(),
                    written[i].0 << self.page_shift
                ));
                return None;
            }
            i = j;
        }
        let mut hot = hot;
        hot.truncate(written_len);
        locked.truncate(written_len);
        Some((file, locked, hot))
    }

    /// [`WriteBack::SinglePage`]: evicts the policy's victim among all unpinned pages, writing
    /// it back first if dirty.
    fn evict_policy_victim(&self, ws: &WriteState, key: PageKey) -> Option<usize> {
        let f = self.policy.get().victim(key, &mut |f| self.try_lock_frame(f))?;
        let (file, page) = split_page_key(self.owner[f].load(Ordering::Acquire));
        if ws.is_dirty(f) {
            ws.runs.lock().remove(file, page);
            if let Err(e) = self.write_run(ws, file, &[(page, f)]) {
                ws.runs.lock().insert(file, page);
                self.unlock_frame(f);
                let path = self.files[file as usize].io.path.display();
                ws.fail(format!("I/O error writing {path} at offset {}: {e}", page << self.page_shift));
                return None;
            }
        }
        self.drop_written_page(ws, file, page, f);
        Some(f)
    }

    /// Marks the locked, clean-on-disk page `page` of `file` in frame `f` evicted.
    fn drop_written_page(&self, ws: &WriteState, file: FileId, page: u64, f: usize) {
        ws.clear_dirty(f);
        self.files[file as usize].table[page as usize].store(LOADED_ONCE | EVICTED, Ordering::Release);
        self.policy.get().on_evict(f);
        self.counters.add(Counter::Evictions, 1);
    }

    /// Writes the consecutive pages `run` (`(page, frame)`, locked or pinned by the caller) of
    /// `file` with one `pwritev` and counts the calls.
    fn write_run(&self, ws: &WriteState, file: FileId, run: &[(u64, usize)]) -> std::io::Result<()> {
        // SAFETY: every page of the run is locked or pinned by the caller, so no thread writes
        // its frame while we read it.
        let bufs: Vec<&[u8]> = run.iter().map(|&(_, f)| unsafe { self.mem.frame(f) }).collect();
        let calls = self.files[file as usize].io.write_pages(&bufs, run[0].0 << self.page_shift)?;
        let c = &self.counters;
        for (off, n) in calls {
            c.add(Counter::WriteCalls, 1);
            c.add(Counter::BytesWritten, n as u64);
            if ws.last_end[file as usize].swap(off + n as u64, Ordering::Relaxed) != off {
                c.add(Counter::RandomWrites, 1);
            }
        }
        c.add(Counter::PagesWritten, run.len() as u64);
        Ok(())
    }

    /// Writes every dirty page back (sorted by file and page, one `pwritev` per run of
    /// contiguous pages) and `fdatasync`s every file. Fails on a read-only pool or an I/O error
    /// (the pages not written stay dirty).
    pub(crate) fn flush(&self) -> Result<()> {
        let Some(ws) = &self.write else { return Err(Error::invalid("flush of a read-only buffer pool")) };
        let _one_writer = ws.writeback.lock();
        let runs = ws.runs.lock().take_all();
        for (i, &(file, start, len)) in runs.iter().enumerate() {
            let pinned: Vec<(u64, usize)> =
                (start..start + len).map(|p| (p, self.pin_resident(file, p))).collect();
            let written = self.write_run(ws, file, &pinned);
            for &(p, f) in &pinned {
                if written.is_ok() {
                    ws.clear_dirty(f);
                }
                self.unpin(file, p);
            }
            if let Err(e) = written {
                let mut set = ws.runs.lock();
                for &(file, start, len) in &runs[i..] {
                    for p in start..start + len {
                        set.insert(file, p);
                    }
                }
                let offset = start << self.page_shift;
                let e = std::io::Error::new(e.kind(), format!("at offset {offset}: {e}"));
                return Err(Error::io(&self.files[file as usize].io.path, "write", e));
            }
        }
        for fs in &self.files {
            fs.io.sync()?;
        }
        Ok(())
    }

    /// Pins the resident page `page` of `file` (a dirty page: never evicted while dirty),
    /// waiting while it is locked; returns its frame.
    fn pin_resident(&self, file: FileId, page: u64) -> usize {
        let entry = &self.files[file as usize].table[page as usize];
        let mut spins = 0u32;
        loop {
            let w = entry.load(Ordering::Acquire);
            let s = table::state(w);
            assert_ne!(s, EVICTED, "dirty page {page} of file {file} is not resident");
            if s < MAX_PINS
                && entry.compare_exchange_weak(w, w + 1, Ordering::Acquire, Ordering::Relaxed).is_ok()
            {
                return table::frame(w);
            }
            backoff(&mut spins);
        }
    }

    /// Test hook: the number of dirty pages (0 for a read-only pool). Call it while no other
    /// thread uses the pool; checks that the dirty flags and the run set agree.
    #[cfg(test)]
    pub(crate) fn dirty_pages(&self) -> u64 {
        self.flusher.wait_idle();
        let Some(ws) = &self.write else { return 0 };
        let runs = ws.runs.lock();
        let mut n = 0;
        for (f, d) in ws.dirty.iter().enumerate() {
            if d.load(Ordering::Acquire) {
                let (file, page) = split_page_key(self.owner[f].load(Ordering::Acquire));
                assert!(
                    runs.contains(file, page),
                    "dirty frame {f} (page {page} of file {file}) not in the runs"
                );
                n += 1;
            }
        }
        assert_eq!(n, runs.pages());
        assert_eq!(n as usize, ws.dirty_frames.load(Ordering::Acquire));
        n
    }

    /// Whether `page` of `file` is resident and dirty now (a hint: it may be written back at
    /// any moment).
    pub(crate) fn is_dirty_page(&self, file: FileId, page: u64) -> bool {
        let w = self.files[file as usize].table[page as usize].load(Ordering::Acquire);
        let state = table::state(w);
        state != EVICTED
            && state != LOCKED
            && self.write.as_ref().is_some_and(|ws| ws.is_dirty(table::frame(w)))
    }

    /// Test hook: turns the background flusher off (for tests that count writes exactly).
    #[cfg(test)]
    pub(crate) fn disable_background_flush(&self) {
        if let Some(ws) = &self.write {
            ws.flush_above.store(usize::MAX, Ordering::Relaxed);
        }
    }

    /// Test hook: whether `page` of `file` is resident.
    #[cfg(test)]
    pub(crate) fn is_resident(&self, file: FileId, page: u64) -> bool {
        table::state(self.files[file as usize].table[page as usize].load(Ordering::Acquire)) != EVICTED
    }
}
