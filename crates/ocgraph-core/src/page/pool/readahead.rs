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
//! A background thread locks evicted pages exactly like a miss does, takes frames without
//! waiting (stopping early when none is free or a page is already resident or busy), reads
//! them with one `preadv` and publishes them read-ahead-marked and unpinned. A reader that
//! reaches a page still being read waits for it as for any locked page. Read-ahead is only a
//! hint: jobs are dropped when the queue is full, and a failed read (I/O error, truncated file)
//! leaves its pages evicted so that the reader's own miss reports the error.

use std::sync::atomic::Ordering;
use std::sync::Weak;

use super::background::Background;
use super::{table, Core, FileId, PREFETCHED, TRIGGER};
use crate::page::policy::page_key;
use crate::page::stats::Counter;

/// Streams tracked per file (concurrent sequential scans of distinct ranges).
const STREAMS: usize = 4;
/// Jobs queued for the background threads before new ones are dropped.
const QUEUE: usize = 16;
/// Background readers: two, so that the next window is read while the previous one is still
/// in flight (hand-run A/B on kron20 and kron22 at 10% pools, `bench/RESULTS.md`).
const READERS: usize = 2;

/// One window to read: pages `[start, start + pages)` of `file`.
pub(super) struct Job {
    file: FileId,
    start: u64,
    pages: u64,
}

/// The sequential streams of one file: `(end, pages)` = the page after the last window
/// submitted and that window's size; `pages == 0` marks an unused slot.
#[derive(Default)]
pub(super) struct Streams {
    slots: [(u64, u64); STREAMS],
    next: usize,
}

/// The background readers and their job queue, started on first use.
pub(super) type Worker = Background<Job>;

/// The read-ahead worker of the pool behind `pool` (not started yet).
pub(super) fn worker(pool: Weak<Core>) -> Worker {
    Background::new(pool, "ocgraph-readahead", READERS, QUEUE, Core::read_window)
}

impl Core {
    /// A sequential miss read `pages` pages ending before page `end` of `file`: start a stream
    /// there and submit its first two windows.
    pub(super) fn start_stream(&self, file: FileId, end: u64, pages: u64) {
        if self.async_max.load(Ordering::Relaxed) == 0 || pages == 0 {
            return;
        }
        let mut streams = self.files[file as usize].streams.lock();
        let slot = streams.next;
        streams.next = (slot + 1) % STREAMS;
        streams.slots[slot] = (end, pages);
        for _ in 0..2 {
            self.advance(file, &mut streams.slots[slot]);
        }
    }

    /// Submits the window after `stream`'s last one, twice as large (up to `async_max`).
    fn advance(&self, file: FileId, stream: &mut (u64, u64)) {
        let max = self.async_max.load(Ordering::Relaxed) as u64;
        let total = self.files[file as usize].table.len() as u64;
        let (end, pages) = *stream;
        let pages = (pages * 2).min(max);
        if pages == 0 || end >= total {
            *stream = (0, 0);
            return;
        }
        *stream = ((end + pages).min(total), pages);
        self.worker.submit(Job { file, start: end, pages });
    }

    /// Page `page` of `file` was read ahead and is now requested for the first time; if it
    /// starts an asynchronous window, the stream it belongs to submits its next window.
    #[cold]
    #[inline(never)]
    pub(super) fn first_use_of_prefetched(&self, file: FileId, page: u64, trigger: bool) {
        self.counters.add(Counter::PrefetchesUsed, 1);
        if !trigger {
            return;
        }
        let max = self.async_max.load(Ordering::Relaxed) as u64;
        let mut streams = self.files[file as usize].streams.lock();
        // The stream whose last two windows (at most `max` pages each) contain `page`.
        if let Some(slot) =
            streams.slots.iter().position(|&(end, pages)| pages > 0 && page < end && end - page <= 2 * max)
        {
            self.advance(file, &mut streams.slots[slot]);
        }
    }

    /// Runs a read-ahead job in a background thread.
    fn read_window(&self, job: &Job) {
        let mut batch = Vec::with_capacity(job.pages as usize);
        self.lock_evicted_run(job.file, job.start, job.pages, &mut batch);
        if batch.is_empty() {
            return;
        }
        let (bytes, calls) = self.read_batch(job.file, &batch);
        let fs = &self.files[job.file as usize];
        let offset = job.start << self.page_shift;
        let c = &self.counters;
        c.add(Counter::BytesRead, bytes as u64);
        c.add(Counter::ReadCalls, calls);
        c.add(Counter::PrefetchesIssued, batch.len() as u64);
        if fs.last_end.swap(offset + bytes as u64, Ordering::Relaxed) == offset {
            c.add(Counter::SequentialReads, 1);
        }
        for (i, &(q, _, f)) in batch.iter().enumerate() {
            self.policy.get().on_load_ahead(f, page_key(job.file, q));
            let mark = if i == 0 { PREFETCHED | TRIGGER } else { PREFETCHED };
            fs.table[q as usize].store(table::resident(f, 0) | mark, Ordering::Release);
        }
    }
}
