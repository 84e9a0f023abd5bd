//! Background loads on request: `advise(.., Advice::WillNeed)` and [`Core::prefetch`].
//!
//! A request names a byte range of a file; it is queued for a few background threads and the
//! caller returns at once (a full queue drops the request: prefetching is only a hint). A
//! thread walks the range's pages: resident or busy pages are skipped; each run of evicted
//! pages is locked, given frames *without waiting* (free frames first, then victims the policy
//! picks among unpinned pages, so pinned pages are never evicted), read with one `preadv` and
//! published unpinned and marked prefetched (their first use counts as `prefetches_used`). When
//! no frame can be had at once (every frame pinned) the rest of the request is dropped. A failed
//! read leaves its pages evicted, so the reader's own miss reports the error.

use std::sync::atomic::Ordering;

use super::background::Background;
use super::{table, Core, FileId, EVICTED};

/// Requests queued before new ones are dropped.
const QUEUE: usize = 1024;
/// Background threads serving requests (several, so that reads overlap on the device).
const THREADS: usize = 4;

/// Pages `[first, last]` of `file` to load.
pub(super) struct Request {
    file: FileId,
    first: u64,
    last: u64,
}

/// The prefetch threads and their queue, started on the first request.
pub(super) type Prefetcher = Background<Request>;

/// The prefetcher of the pool behind `pool` (no thread started yet).
pub(super) fn prefetcher(pool: std::sync::Weak<Core>) -> Prefetcher {
    Background::new(pool, "ocgraph-prefetch", THREADS, QUEUE, Core::load_range)
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

    /// Loads the evicted pages of a request (see the module docs).
    fn load_range(&self, req: &Request) {
        let fs = &self.files[req.file as usize];
        let mut batch = Vec::new();
        let mut p = req.first;
        while p <= req.last {
            if table::state(fs.table[p as usize].load(Ordering::Acquire)) != EVICTED {
                p += 1;
                continue;
            }
            batch.clear();
            self.lock_evicted_run(req.file, p, req.last + 1 - p, &mut batch);
            if batch.is_empty() {
                // Lost a race for the page, or no frame free or evictable: stop.
                return;
            }
            self.read_ahead_run(req.file, &batch, false);
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
        // The last page advised is resident: reading it is a hit and counts a prefetch used.
        pool.reset_stats();
        let c = pool.read(0, 15 * 4096, 4096).typed::<u8>();
        assert_eq!(&*c, &data[15 * 4096..]);
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
}
