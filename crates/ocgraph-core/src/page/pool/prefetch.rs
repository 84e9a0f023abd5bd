//! Background loads on request: `advise(.., Advice::WillNeed)` and [`Core::prefetch`].
//!
//! A request names a byte range of a file; it is queued for one background loader and the
//! caller returns at once (a full queue drops the request: prefetching is only a hint). The
//! loader walks the range's pages: resident or busy pages are skipped; each run of evicted
//! pages is locked and given frames *without waiting* (free frames first, then victims the
//! policy picks among unpinned pages, so pinned pages are never evicted). When no frame can be
//! had at once (every frame pinned) the rest of the request is dropped.
//!
//! The loader reads through an io_uring ([`Ring`]): it locks the runs of every request queued
//! (up to [`IN_FLIGHT`] runs), submits their reads together, and publishes each run unpinned
//! and marked prefetched (its first use counts as `prefetches_used`) as its read completes.
//! Batched submission costs the kernel a third to a half of the CPU of one `preadv` per run
//! (see [`ring`](super::ring)), CPU the query threads beside the loader need. A run read short
//! (end of file) or failed is read again with `preadv` ([`Core::read_ahead_run`]); a failed
//! read leaves its pages evicted, so that the reader's own miss reports the error. Where
//! io_uring is refused, or for a file without O_DIRECT, each run is read with `preadv` at once.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use super::background::{serve_each, Background, Jobs, Serve};
use super::io::{merged_iovecs, MAX_IOV};
use super::ring::Ring;
use super::{table, Core, FileId, EVICTED};

/// Requests queued before new ones are dropped.
const QUEUE: usize = 1024;
/// Runs of pages read at once, at most (each one `readv`).
const IN_FLIGHT: usize = 32;

/// Pages `[first, last]` of `file` to load.
pub(super) struct Request {
    file: FileId,
    first: u64,
    last: u64,
}

/// The loader thread and its queue, started on the first request.
pub(super) type Prefetcher = Background<Request>;

/// The prefetcher of the pool behind `pool` (no thread started yet).
pub(super) fn prefetcher(pool: Weak<Core>) -> Prefetcher {
    Background::new(pool, "ocgraph-prefetch", 1, QUEUE, Serve::Loop(serve))
}

/// A run of locked pages being read: `(page, loaded before, frame)` as
/// [`Core::lock_evicted_run`] gives them, and the iovecs of their frames.
struct Run {
    file: FileId,
    batch: Vec<(u64, bool, usize)>,
    iov: Vec<libc::iovec>,
}

/// The loader's loop (see the module docs): waits for a request while nothing is in flight,
/// otherwise takes the requests queued, submits their reads and publishes those completed.
fn serve(pool: Weak<Core>, jobs: Jobs<Request>) {
    // The pool and the runs in flight are declared before the ring so that they are dropped
    // after it, also when unwinding: dropping the ring waits for the reads into their frames.
    let mut held: Option<Arc<Core>> = None;
    let mut runs: Vec<Option<Run>> = (0..IN_FLIGHT).map(|_| None).collect();
    let Some(mut ring) = Ring::new(2 * IN_FLIGHT as u32) else {
        return serve_each(pool, jobs, Core::load_range);
    };
    let mut done = Vec::new();
    let queued = |ring: &Ring| if ring.in_flight() < IN_FLIGHT { jobs.try_recv() } else { None };
    while let Some(first) = jobs.recv() {
        // Held until nothing is in flight: the reads write into the pool's frames.
        let Some(core) = pool.upgrade() else { return };
        let core = &**held.insert(core);
        let mut next = Some(first);
        loop {
            // Start the requests queued while runs can be put in flight.
            while let Some(req) = next.take().or_else(|| queued(&ring)) {
                let started = core.start_loads(&req, &mut ring, &mut runs);
                jobs.split(started);
            }
            if ring.in_flight() == 0 {
                break;
            }
            ring.submit_and_wait(1);
            done.clear();
            ring.reap(&mut done);
            for &(token, result) in &done {
                let run = runs[token as usize].take().expect("a completion names a run in flight");
                core.finish_load(&run, result);
                jobs.done();
            }
        }
        // Idle: the pool may go.
        held = None;
    }
}

impl Core {
    /// Queues a background load of the pages covering bytes `[offset, offset + len)` of `file`
    /// (clipped to the file). Never blocks; dropped when the queue is full.
    pub(super) fn prefetch(&self, file: FileId, offset: u64, len: u64) {
        let Some(fs) = self.files.get(file as usize) else { return };
        let end = (offset.saturating_add(len)).min(fs.len);
        if len == 0 || offset >= end {
            return;
        }
        let first = offset >> self.page_shift;
        let last = (end - 1) >> self.page_shift;
        // Nothing to do when every page is already resident (or being loaded).
        if (first..=last).all(|p| table::state(fs.table[p as usize].load(Ordering::Relaxed)) != EVICTED) {
            return;
        }
        self.prefetcher.submit(Request { file, first, last });
    }

    /// Loads the evicted pages of a request with `preadv` (where io_uring is refused).
    fn load_range(&self, req: &Request) {
        self.each_evicted_run(req, |core, batch| core.read_ahead_run(req.file, batch, false));
    }

    /// Locks the evicted runs of a request and queues their reads on `ring`, each in a free
    /// slot of `runs` (a file without O_DIRECT is read at once). Returns the runs queued.
    fn start_loads(&self, req: &Request, ring: &mut Ring, runs: &mut [Option<Run>]) -> usize {
        let io = &self.files[req.file as usize].io;
        let mut started = 0;
        self.each_evicted_run(req, |core, batch| {
            let slot = runs.iter().position(Option::is_none);
            let (Some(slot), true) = (slot, io.direct) else {
                return core.read_ahead_run(req.file, batch, false);
            };
            core.assign_frames(req.file, batch);
            // SAFETY: the frames of `batch` were claimed by `lock_evicted_run`: no page maps to
            // them, so nobody else reads or writes them until the run is published.
            let iov = merged_iovecs(
                batch
                    .iter()
                    .map(|&(_, _, f)| unsafe { core.mem.frame_mut(f) }.as_mut_ptr())
                    .map(|p| (p, core.page_size)),
            );
            let run = runs[slot].insert(Run { file: req.file, batch: batch.to_vec(), iov });
            // SAFETY: the run keeps its iovecs, and its locked frames stay untouched, until its
            // completion is reaped; the loader holds the pool (frames and files) until then.
            unsafe { ring.push_readv(io.raw_fd(), &run.iov, batch[0].0 << core.page_shift, slot as u64) };
            started += 1;
        });
        started
    }

    /// Publishes a run whose read completed with `result` (bytes or `-errno`); a short or
    /// failed read is done again with `preadv`, which zero-fills past the end of the file or,
    /// on an error, unlocks the pages.
    fn finish_load(&self, run: &Run, result: i32) {
        let len = run.batch.len() * self.page_size;
        if usize::try_from(result) == Ok(len) {
            self.publish_ahead(run.file, &run.batch, len, 1, false);
        } else {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                self.read_ahead_run(run.file, &run.batch, false)
            }));
        }
    }

    /// Calls `load` on each run of evicted pages of `req` (at most [`MAX_IOV`] pages), locked
    /// and with frames taken; stops when a run cannot be had.
    fn each_evicted_run(&self, req: &Request, mut load: impl FnMut(&Core, &[(u64, bool, usize)])) {
        let fs = &self.files[req.file as usize];
        let mut batch = Vec::new();
        let mut p = req.first;
        while p <= req.last {
            if table::state(fs.table[p as usize].load(Ordering::Acquire)) != EVICTED {
                p += 1;
                continue;
            }
            batch.clear();
            self.lock_evicted_run(req.file, p, (req.last + 1 - p).min(MAX_IOV as u64), &mut batch);
            if batch.is_empty() {
                // Lost a race for the page, or no frame free or evictable: stop.
                return;
            }
            load(self, &batch);
            p += batch.len() as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::BufferPool;
    use crate::page::backend::{Advice, PageSource, PagedFile};

    #[test]
    fn will_need_loads_in_background_without_evicting_pinned_pages() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let data: Vec<u8> = (0..16 * 4096u32).map(|i| (i / 4096 * 7 + i % 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let pool =
            BufferPool::open(&[PagedFile { path, len: data.len() as u64 }], 4 * 4096, 4096, "clock").unwrap();
        // Pin pages 0 and 1; leave two frames free.
        let a = pool.read(0, 0, 4096).typed::<u8>();
        let b = pool.read(0, 4096, 4096).typed::<u8>();
        pool.reset_stats();
        // Advise pages 2..16: more than the free frames, so loads evict each other, never 0 or 1.
        pool.advise(0, 2 * 4096, 14 * 4096, Advice::WillNeed);
        assert!(pool.resident_pages() <= 4);
        let s = pool.stats();
        assert!(s.prefetches_issued >= 2, "{s:?}");
        assert_eq!((s.misses, s.page_requests), (0, 0), "advice is not a request");
        assert_eq!(&*a, &data[..4096]);
        assert_eq!(&*b, &data[4096..8192]);
        // A page advised alone loads into an unpinned frame: reading it is a hit and counts a
        // prefetch used.
        pool.advise(0, 9 * 4096, 4096, Advice::WillNeed);
        assert!(pool.resident_pages() <= 4);
        pool.reset_stats();
        let c = pool.read(0, 9 * 4096, 4096).typed::<u8>();
        assert_eq!(&*c, &data[9 * 4096..10 * 4096]);
        let s = pool.stats();
        assert_eq!((s.hits, s.misses, s.prefetches_used), (1, 0, 1), "{s:?}");
        drop((a, b, c));
        // With every frame pinned, advice loads nothing and returns.
        let pins: Vec<_> = (0..4).map(|p| pool.read(0, p * 4096, 4096)).collect();
        pool.reset_stats();
        pool.advise(0, 8 * 4096, 4096, Advice::WillNeed);
        assert_eq!(pool.resident_pages(), 4);
        assert_eq!(pool.stats().prefetches_issued, 0);
        drop(pins);
        // Advice past the end or empty is ignored.
        pool.advise(0, 1 << 30, 4096, Advice::WillNeed);
        pool.advise(0, 0, 0, Advice::WillNeed);
        pool.resident_pages();
    }

    #[test]
    fn will_need_loads_many_runs_and_a_short_last_page() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        // 100 pages and a half: the last read of the file comes back short.
        let data: Vec<u8> = (0..100 * 4096 + 2048u32).map(|i| (i / 4096 * 13 + i % 241) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let pool = BufferPool::open(&[PagedFile { path, len: data.len() as u64 }], 128 * 4096, 4096, "clock")
            .unwrap();
        // Every other page resident and pinned (read-ahead off): the advice below finds 49 runs
        // of one page and one of two, more than the loader keeps in flight.
        pool.advise(0, 0, data.len() as u64, Advice::Random);
        let pins: Vec<_> = (0..50).map(|p| pool.read(0, 2 * p * 4096, 4096)).collect();
        pool.reset_stats();
        pool.advise(0, 0, data.len() as u64, Advice::WillNeed);
        assert_eq!(pool.resident_pages(), 101);
        let s = pool.stats();
        assert_eq!(s.prefetches_issued, 51, "{s:?}");
        drop(pins);
        pool.reset_stats();
        for p in 0..101u64 {
            let len = (data.len() as u64 - p * 4096).min(4096) as usize;
            let got = pool.read(0, p * 4096, len).typed::<u8>();
            assert_eq!(&*got, &data[p as usize * 4096..][..len], "page {p}");
        }
        let s = pool.stats();
        assert_eq!((s.hits, s.misses, s.prefetches_used), (101, 0, 51), "{s:?}");
    }

    #[test]
    fn will_need_on_a_truncated_file_loads_what_is_there_and_leaves_the_rest_evicted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let data: Vec<u8> = (0..8 * 4096u32).map(|i| (i / 4096 * 5 + i % 239) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let pool = BufferPool::open(
            &[PagedFile { path: path.clone(), len: data.len() as u64 }],
            8 * 4096,
            4096,
            "clock",
        )
        .unwrap();
        pool.advise(0, 0, data.len() as u64, Advice::Random);
        // Truncated after open in the middle of page 5: the run's read comes back short, its
        // second read fails; no page is left locked and none holds zeros for the lost bytes.
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(5 * 4096 + 100).unwrap();
        pool.advise(0, 0, data.len() as u64, Advice::WillNeed);
        assert_eq!(pool.resident_pages(), 0);
        // Pages wholly inside the file are loaded by the next advice, run by run up to the cut.
        pool.advise(0, 0, 4 * 4096, Advice::WillNeed);
        assert_eq!(pool.resident_pages(), 4);
        pool.reset_stats();
        for p in 0..4 {
            assert_eq!(&*pool.read(0, p * 4096, 4096).typed::<u8>(), &data[p as usize * 4096..][..4096]);
        }
        assert_eq!(pool.stats().hits, 4);
        // The reader's own miss reports the truncation.
        let msg = super::super::catch_read_errors(|| drop(pool.read(0, 6 * 4096, 8)))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(msg.contains("truncated after open?"), "{msg}");
    }
}
