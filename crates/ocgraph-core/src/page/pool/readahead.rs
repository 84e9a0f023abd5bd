//! Asynchronous read-ahead for sequential scans.
//!
//! A sequential miss reads a synchronous window (the requested page and the evicted pages
//! after it, up to 1 MiB) and starts a *stream*: two background threads then read the next two
//! windows, both in flight at once. The first page of every asynchronous window carries the
//! `TRIGGER` bit; when a reader first uses it, the stream submits one more window after the last
//! one submitted, so the disk keeps two windows of work ahead of the scan while the scan
//! computes. Windows double from the synchronous size up to `async_max` pages (8 MiB, at most
//! 1/64 of the frames), so short sequential runs read little ahead.
//!
//! A background thread passes over the pages of its window that are resident or being read (a
//! miss got there first, or the policy kept them from an earlier pass), and reads every run of
//! evicted pages between them. For each run it locks the pages exactly like a miss does, takes
//! frames without waiting (stopping early when none is free), reads them with one `preadv`
//! and publishes them read-ahead-marked and unpinned. A window left with nothing to read
//! submits the stream's next window at once, and a sequential miss inside a stream's range
//! does not start another stream, so one stream carries a scan from start to end. After
//! [`MAX_IDLE`] such windows in a row the stream ends: a scan that goes back over pages it has
//! just read (the grid kernels' every other pass, which takes the columns from the last) would
//! otherwise carry its stream through them into the first evicted pages past them, which it does
//! not need, evicting pages it does. A reader that reaches a page still being read waits for it
//! as for any locked page.
//!
//! While a quarter of the frames (at least four windows) hold pages read ahead and not used
//! yet, a window waits up to 20 ms and is then dropped, ending its stream. Read-ahead is only a
//! hint: jobs are dropped when the queue is full, and a failed read (I/O error, truncated file)
//! leaves its pages evicted so that the reader's own miss reports the error.

use std::sync::atomic::Ordering;
use std::sync::Weak;

use super::background::{Background, Serve};
use super::{table, Core, FileId, PREFETCHED, TRIGGER};
use crate::page::policy::page_key;
use crate::page::stats::Counter;

/// Streams tracked per file (concurrent sequential scans of distinct ranges).
const STREAMS: usize = 4;
/// Jobs queued for the background threads before new ones are dropped.
const QUEUE: usize = 16;
/// Background readers: two, so that the next window is read while the previous one is still
/// in flight (hand-run A/B with `bench/algos/run.py` on kron20 and kron22 at 10% pools).
const READERS: usize = 2;
/// [`Core::ahead_limit`]: at most 1/`AHEAD_LIMIT_DIVISOR` of the frames hold unused pages
/// read ahead before the next window waits.
const AHEAD_LIMIT_DIVISOR: usize = 4;
/// Windows in a row that find every page resident before their stream ends (see the module
/// docs). On kron22's grid of runs with the pool at 10% (`ocgraph run pagerank --layout grid
/// --tol 0 --max-iter N --stats`), a pass that takes the columns from the last read 300 MB of
/// the 290 MB grid without a limit and 255 MB with it; PageRank-20 read 5.22 GB instead of
/// 5.65 GB (2, 4 and 8 read the same; its time, bound by decoding the cells, did not change).
const MAX_IDLE: u32 = 4;
/// How long a window waits for the scans to use pages read ahead before it is dropped.
const AHEAD_WAIT: std::time::Duration = std::time::Duration::from_millis(20);
/// Poll interval of that wait.
const AHEAD_POLL: std::time::Duration = std::time::Duration::from_micros(100);

/// One window to read: pages `[start, start + pages)` of `file`.
pub(super) struct Job {
    file: FileId,
    start: u64,
    pages: u64,
}

/// One sequential stream: it began with a miss at page `begin`; `end` = the page after the
/// last window submitted, `pages` = that window's size (0: no more windows), `idle` = its last
/// windows in a row that found every page resident.
#[derive(Default, Clone, Copy)]
struct Stream {
    begin: u64,
    end: u64,
    pages: u64,
    idle: u32,
}

impl Stream {
    /// Whether the stream has submitted (or read synchronously) page `page`.
    fn covers(&self, page: u64) -> bool {
        self.pages > 0 && self.begin <= page && page < self.end
    }
}

/// The sequential streams of one file.
#[derive(Default)]
pub(super) struct Streams {
    slots: [Stream; STREAMS],
    next: usize,
}

/// The background readers and their job queue, started on first use.
pub(super) type Worker = Background<Job>;

/// The read-ahead worker of the pool behind `pool` (not started yet).
pub(super) fn worker(pool: Weak<Core>) -> Worker {
    Background::new(pool, "ocgraph-readahead", READERS, QUEUE, Serve::Each(Core::read_window))
}

impl Core {
    /// A sequential miss at page `begin` of `file` is reading `pages` pages, up to page `end`:
    /// start a stream there and submit its first two windows, unless a stream covers `begin`
    /// already (its window there was still queued, or the page was evicted before its use): that
    /// stream goes on, its windows passing over the pages this miss reads.
    pub(super) fn start_stream(&self, file: FileId, begin: u64, end: u64, pages: u64) {
        if self.async_max.load(Ordering::Relaxed) == 0 || pages == 0 {
            return;
        }
        let mut streams = self.files[file as usize].streams.lock();
        if streams.slots.iter().any(|s| s.covers(begin)) {
            return;
        }
        let slot = streams.next;
        streams.next = (slot + 1) % STREAMS;
        streams.slots[slot] = Stream { begin, end, pages, idle: 0 };
        for _ in 0..2 {
            self.advance(file, &mut streams.slots[slot]);
        }
    }

    /// Submits the window after `stream`'s last one, twice as large (up to `async_max`).
    fn advance(&self, file: FileId, stream: &mut Stream) {
        let max = self.async_max.load(Ordering::Relaxed) as u64;
        let total = self.files[file as usize].table.len() as u64;
        let pages = (stream.pages * 2).min(max);
        if pages == 0 || stream.end >= total {
            stream.pages = 0;
            return;
        }
        let start = stream.end;
        stream.end = (start + pages).min(total);
        stream.pages = pages;
        self.worker.submit(Job { file, start, pages });
    }

    /// Page `page` of `file` was read ahead and is now requested for the first time; if it
    /// starts an asynchronous window, the stream it belongs to submits its next window.
    #[cold]
    #[inline(never)]
    pub(super) fn first_use_of_prefetched(&self, file: FileId, page: u64, trigger: bool) {
        self.counters.add(Counter::PrefetchesUsed, 1);
        self.ahead_gone();
        if !trigger {
            return;
        }
        let max = self.async_max.load(Ordering::Relaxed) as u64;
        let mut streams = self.files[file as usize].streams.lock();
        // The stream whose last two windows (at most `max` pages each) contain `page`.
        if let Some(s) = streams.slots.iter_mut().find(|s| s.covers(page) && s.end - page <= 2 * max) {
            self.advance(file, s);
        }
    }

    /// Runs a read-ahead job in a background thread.
    ///
    /// Pages already resident or being read (by a miss, another window, or kept from an
    /// earlier pass by the replacement policy: LIFO keeps pages scattered over the file) are
    /// passed over; the window reads every run of evicted pages between them, each with one
    /// `preadv`, and the first page it reads carries the trigger. A window with nothing left to
    /// read submits the stream's next window at once, so that the stream goes on, unless it is
    /// the stream's [`MAX_IDLE`]th such window in a row: the stream then ends.
    fn read_window(&self, job: &Job) {
        if !self.wait_for_room_ahead() {
            // Dropped: end the stream, so that the scan's next sequential miss starts another.
            self.with_stream_at(job.file, job.start, |_, s| s.pages = 0);
            return;
        }
        let fs = &self.files[job.file as usize];
        let end = (job.start + job.pages).min(fs.table.len() as u64);
        let evicted = |q: u64| table::state(fs.table[q as usize].load(Ordering::Acquire)) == table::EVICTED;
        let mut batch = Vec::new();
        let mut trigger = true;
        let mut q = job.start;
        while let Some(first) = (q..end).find(|&p| evicted(p)) {
            batch.clear();
            self.lock_evicted_run(job.file, first, end - first, &mut batch);
            if batch.is_empty() {
                // Locked by a miss meanwhile, or no frame free at once.
                break;
            }
            self.read_ahead_run(job.file, &batch, trigger);
            trigger = false;
            q = first + batch.len() as u64;
        }
        let idle = trigger;
        self.with_stream_at(job.file, job.start, |core, s| match idle {
            false => s.idle = 0,
            true if s.idle + 1 >= MAX_IDLE => s.pages = 0,
            true => {
                s.idle += 1;
                core.advance(job.file, s);
            }
        });
    }

    /// Runs `act` on the stream of `file` that covers page `page`, if any.
    fn with_stream_at(&self, file: FileId, page: u64, act: impl FnOnce(&Core, &mut Stream)) {
        let mut streams = self.files[file as usize].streams.lock();
        if let Some(s) = streams.slots.iter_mut().find(|s| s.covers(page)) {
            act(self, s);
        }
    }

    /// The most pages read ahead and not used yet before windows wait: a quarter of the
    /// frames, and at least the two windows in flight of two streams.
    fn ahead_limit(&self) -> usize {
        (self.owner.len() / AHEAD_LIMIT_DIVISOR).max(4 * self.async_max.load(Ordering::Relaxed))
    }

    /// Waits (up to [`AHEAD_WAIT`]) while [`Core::ahead_limit`] pages read ahead are unused;
    /// false if they still are (the window is then dropped: its stream ends, and the scan's
    /// next sequential miss starts another).
    ///
    /// Without this, a policy that evicts used pages first (LIFO, GAC with LIFO active) let
    /// the streams fill the pool with pages the scans reach only later, and then had to evict
    /// those (kron22 PageRank at a 10% pool, GAC, 5 iterations, hand-run: 62 k demand misses
    /// against CLOCK's 1 k; 24-30 k when windows waited 20 ms and were then read anyway; 15 k,
    /// and 4.5 k pages read ahead evicted unused instead of 50 k, when they are dropped).
    fn wait_for_room_ahead(&self) -> bool {
        let start = std::time::Instant::now();
        while self.unused_ahead.load(Ordering::Relaxed) >= self.ahead_limit() {
            if start.elapsed() >= AHEAD_WAIT {
                return false;
            }
            std::thread::sleep(AHEAD_POLL);
        }
        true
    }

    /// A page read ahead was used or evicted.
    pub(super) fn ahead_gone(&self) {
        let _ = self.unused_ahead.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
    }

    /// Reads the locked consecutive pages of `batch` and publishes them read-ahead-marked and
    /// unpinned; the first carries the stream's trigger when `trigger`.
    pub(super) fn read_ahead_run(&self, file: FileId, batch: &[(u64, bool, usize)], trigger: bool) {
        let (bytes, calls) = self.read_batch(file, batch);
        self.publish_ahead(file, batch, bytes, calls, trigger);
    }

    /// Publishes the pages of `batch`, read ahead into their frames with `calls` read calls of
    /// `bytes` bytes in all, read-ahead-marked and unpinned (see [`Core::read_ahead_run`]).
    pub(super) fn publish_ahead(
        &self,
        file: FileId,
        batch: &[(u64, bool, usize)],
        bytes: usize,
        calls: u64,
        trigger: bool,
    ) {
        let fs = &self.files[file as usize];
        let offset = batch[0].0 << self.page_shift;
        let c = &self.counters;
        c.add(Counter::BytesRead, bytes as u64);
        c.add(Counter::ReadCalls, calls);
        c.add(Counter::PrefetchesIssued, batch.len() as u64);
        if fs.last_end.swap(self.run_end(fs, offset, batch.len()), Ordering::Relaxed) == offset {
            c.add(Counter::SequentialReads, 1);
        }
        self.unused_ahead.fetch_add(batch.len(), Ordering::Relaxed);
        for (i, &(q, _, f)) in batch.iter().enumerate() {
            self.policy.get().on_load_ahead(f, page_key(file, q));
            let mark = if i == 0 && trigger { PREFETCHED | TRIGGER } else { PREFETCHED };
            fs.table[q as usize].store(table::resident(f, 0) | mark, Ordering::Release);
        }
    }
}
