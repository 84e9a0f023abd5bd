//! Companion reads: a demand miss that also reads, in the same io_uring submission, the page
//! its caller predicts it reads next ([`PageSource::read_then`]).
//!
//! An online query reads a vertex's list bounds (its offsets entry) and then its list, two
//! dependent reads: the list's page is known only once the bounds are in memory. A caller that
//! can *predict* where the list starts ([`crate::graph::ListStarts`]) names that page as the
//! companion of the bounds read. When the bounds page misses, the pool reads both pages with
//! one `io_uring_enter`, so the two device reads overlap, and the list read that follows is a
//! hit. On this project's VM a pair of direct 4 KiB reads submitted together takes about two
//! thirds of two reads one after the other, and half the kernel CPU per read
//! (`examples/ring_reads.rs`). The query thread submits the reads itself: no hand-off to
//! another thread, which costs more than the read on this guest
//! (`bench/pages/direct_reads.py --busy 0,1`).
//!
//! The companion is only a hint, taken when it costs no waiting: its page must be evicted,
//! its word lockable at once and a frame free or evictable without waiting; it is published
//! unpinned and marked prefetched, like a page read ahead (its first use counts as
//! `prefetches_used`). A hit on the requested page reads nothing. A companion read that fails
//! or comes back short (the file's last page) is dropped, its page left evicted; a demand read
//! that does is done again with `preadv`, which reports the error.
//!
//! The prediction is passed down the miss path in a thread-local slot, set for the duration
//! of one read ([`with_next`]) and consumed by that read's first miss.
//!
//! [`PageSource::read_then`]: crate::page::PageSource

use std::cell::{Cell, RefCell};
use std::sync::atomic::Ordering;

use super::io::{merged_iovecs, MAX_IOV};
use super::ring::Ring;
use super::{Core, FileId, EVICTED, LOADED_ONCE, NO_PAGE};

thread_local! {
    /// The companion (file, byte offset) of the read this thread is doing, if any.
    static NEXT: Cell<Option<(FileId, u64)>> = const { Cell::new(None) };
    /// This thread's ring for companion reads: `None` until first used, `Some(None)` where
    /// io_uring is refused.
    static RING: RefCell<Option<Option<Ring>>> = const { RefCell::new(None) };
}

/// Runs `read` with `next` as the companion of its first miss; clears it afterwards, also when
/// `read` panics (an I/O error), so that no later read of this thread takes it.
pub(super) fn with_next<R>(next: (FileId, u64), read: impl FnOnce() -> R) -> R {
    struct Clear;
    impl Drop for Clear {
        fn drop(&mut self) {
            NEXT.with(|n| n.set(None));
        }
    }
    NEXT.with(|n| n.set(Some(next)));
    let _clear = Clear;
    read()
}

/// A locked companion page with its frame: `(file, page, loaded before, frame)`.
type Locked = (FileId, u64, bool, usize);

impl Core {
    /// Reads the locked pages of `batch` (consecutive pages of `file`, from a miss) as
    /// [`Core::read_batch`] does, together with this thread's companion page if there is one
    /// to read (see the module docs). Returns bytes read and read calls for `batch`.
    pub(super) fn read_batch_with_companion(
        &self,
        file: FileId,
        batch: &[(u64, bool, usize)],
    ) -> (usize, u64) {
        let Some(next) = NEXT.with(|n| n.take()) else {
            return self.read_batch(file, batch);
        };
        match self.lock_companion(file, batch, next) {
            Some(comp) => self.read_pair(file, batch, comp),
            None => self.read_batch(file, batch),
        }
    }

    /// Locks the page holding byte `next.1` of file `next.0` and takes a frame for it, when
    /// that needs no waiting, the page is evicted and not one of `batch`, and both files are
    /// read with O_DIRECT (the ring path does not drop cached pages as `preadv` does).
    fn lock_companion(
        &self,
        file: FileId,
        batch: &[(u64, bool, usize)],
        next: (FileId, u64),
    ) -> Option<Locked> {
        let (cfile, offset) = next;
        let fs = self.files.get(cfile as usize)?;
        if offset >= fs.len || !fs.io.direct || !self.files[file as usize].io.direct || batch.len() > MAX_IOV
        {
            return None;
        }
        let page = offset >> self.page_shift;
        if cfile == file && batch.iter().any(|&(q, _, _)| q == page) {
            return None;
        }
        let mut one = Vec::with_capacity(1);
        self.lock_evicted_run(cfile, page, 1, &mut one);
        one.pop().map(|(q, before, f)| (cfile, q, before, f))
    }

    /// Reads `batch` and the companion `comp` with one submission on this thread's ring (with
    /// `preadv` for `batch` where io_uring is refused), publishes or drops the companion, and
    /// returns bytes read and read calls for `batch`.
    fn read_pair(&self, file: FileId, batch: &[(u64, bool, usize)], comp: Locked) -> (usize, u64) {
        let (cfile, cpage, before, cf) = comp;
        self.assign_frames(file, batch);
        self.assign_frames(cfile, &[(cpage, before, cf)]);
        let frame_iov = |frames: &mut dyn Iterator<Item = usize>| {
            // SAFETY: the frames were claimed by `take_frame` for locked pages: no page maps to
            // them, so nobody else reads or writes them until they are published or given back.
            merged_iovecs(frames.map(|f| (unsafe { self.mem.frame_mut(f) }.as_mut_ptr(), self.page_size)))
        };
        let demand_iov = frame_iov(&mut batch.iter().map(|&(_, _, f)| f));
        let comp_iov = frame_iov(&mut std::iter::once(cf));
        let results = RING.with(|cell| {
            let mut cell = cell.borrow_mut();
            let ring = cell.get_or_insert_with(|| Ring::new(2)).as_mut()?;
            // SAFETY: both files stay open (the pool holds them), and the iovecs and the locked
            // frames they name are neither read nor written by anyone else until both
            // completions are reaped below, before this closure returns.
            unsafe {
                ring.push_readv(
                    self.files[file as usize].io.raw_fd(),
                    &demand_iov,
                    batch[0].0 << self.page_shift,
                    0,
                );
                ring.push_readv(
                    self.files[cfile as usize].io.raw_fd(),
                    &comp_iov,
                    cpage << self.page_shift,
                    1,
                );
            }
            let mut done = Vec::with_capacity(2);
            while ring.in_flight() > 0 {
                ring.submit_and_wait(1);
                ring.reap(&mut done);
            }
            let result = |token| done.iter().find(|&&(t, _)| t == token).map_or(-1, |&(_, r)| r);
            Some((result(0), result(1)))
        });
        let (demand, companion) = results.unwrap_or((-1, -1));
        if usize::try_from(companion) == Ok(self.page_size) {
            self.publish_ahead(cfile, &[(cpage, before, cf)], self.page_size, 0, false);
        } else {
            self.give_back(cfile, &[(cpage, before, cf)]);
        }
        let len = batch.len() * self.page_size;
        if usize::try_from(demand) == Ok(len) {
            return (len, 1);
        }
        // Short, failed, or no ring: read again with `preadv`, which zero-fills past the end
        // of the file and reports errors.
        let (bytes, calls) = self.read_batch(file, batch);
        (bytes, calls + u64::from(results.is_some()))
    }

    /// Gives the frames of the locked pages of `batch` back to the free list and leaves the
    /// pages evicted (a read into them failed or was not made).
    pub(super) fn give_back(&self, file: FileId, batch: &[(u64, bool, usize)]) {
        let fs = &self.files[file as usize];
        for &(q, before, f) in batch {
            self.owner[f].store(NO_PAGE, Ordering::Release);
            self.free.lock().push(f);
            self.free_len.fetch_add(1, Ordering::Release);
            let w = if before { LOADED_ONCE | EVICTED } else { EVICTED };
            fs.table[q as usize].store(w, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::BufferPool;
    use super::Ring;
    use crate::page::backend::{Advice, PageSource, PagedFile};

    /// Two files of `pages[i] * 4096 + tail[i]` bytes, each byte a function of file and
    /// position, in a pool of `frames` frames with read-ahead off.
    fn pool(dir: &std::path::Path, sizes: [u64; 2], frames: usize) -> (BufferPool, Vec<Vec<u8>>) {
        let mut specs = Vec::new();
        let mut data = Vec::new();
        for (i, &len) in sizes.iter().enumerate() {
            let bytes: Vec<u8> = (0..len).map(|b| (b / 4096 * 31 + b % 251 + 7 * i as u64) as u8).collect();
            let path = dir.join(format!("f{i}"));
            std::fs::write(&path, &bytes).unwrap();
            specs.push(PagedFile { path, len });
            data.push(bytes);
        }
        let pool = BufferPool::open(&specs, frames as u64 * 4096, 4096, "clock").unwrap();
        for f in 0..2 {
            pool.advise(f, 0, sizes[f as usize], Advice::Random);
        }
        (pool, data)
    }

    /// Whether companion reads can happen here: both files direct and io_uring allowed.
    fn companions_possible(pool: &BufferPool) -> bool {
        pool.files.iter().all(|f| f.io.direct) && Ring::new(2).is_some()
    }

    #[test]
    fn a_miss_brings_its_companion_and_a_hit_or_a_later_read_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let (pool, data) = pool(dir.path(), [8 * 4096, 8 * 4096], 4);
        let on = companions_possible(&pool);
        // A miss on page 3 of file 0 with the companion byte 100 of page 5 of file 1.
        let mut dst = [0u8; 16];
        pool.read_into_then(0, 3 * 4096 + 8, &mut dst, (1, 5 * 4096 + 100));
        assert_eq!(dst, data[0][3 * 4096 + 8..][..16]);
        let s = pool.stats();
        assert_eq!((s.misses, s.prefetches_issued, s.read_calls), (1, u64::from(on), 1), "{s:?}");
        assert_eq!(pool.resident_pages(), 1 + usize::from(on));
        // The companion's page is a hit and counts as a prefetch used.
        pool.reset_stats();
        assert_eq!(&*pool.read(1, 5 * 4096, 4096).typed::<u8>(), &data[1][5 * 4096..6 * 4096]);
        let s = pool.stats();
        assert_eq!(
            (s.hits, s.misses, s.prefetches_used),
            (u64::from(on), u64::from(!on), u64::from(on)),
            "{s:?}"
        );
        // A hit reads no companion, and the prediction does not outlive its read: the next
        // miss (page 0 of file 0) reads nothing else.
        pool.reset_stats();
        pool.read_into_then(0, 3 * 4096, &mut dst, (1, 6 * 4096));
        let _ = pool.read(0, 0, 8);
        let s = pool.stats();
        assert_eq!((s.hits, s.misses, s.prefetches_issued), (1, 1, 0), "{s:?}");
        // A companion inside the demand read, or already resident, is not read again.
        pool.reset_stats();
        pool.read_into_then(0, 4 * 4096, &mut dst, (0, 4 * 4096 + 64));
        pool.read_into_then(0, 5 * 4096, &mut dst, (1, 5 * 4096));
        let s = pool.stats();
        assert_eq!((s.misses, s.prefetches_issued), (2, 0), "{s:?}");
        assert!(pool.resident_pages() <= 4);
    }

    #[test]
    fn a_companion_on_a_short_last_page_or_without_a_free_frame_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let (pool, data) = pool(dir.path(), [4 * 4096, 2 * 4096 + 1000], 2);
        let mut dst = [0u8; 16];
        // The companion is file 1's last page, 1000 bytes long: its read comes back short and
        // it is left evicted; the demand read is whole.
        pool.read_into_then(0, 0, &mut dst, (1, 2 * 4096 + 10));
        assert_eq!(dst, data[0][..16]);
        assert_eq!((pool.stats().prefetches_issued, pool.resident_pages()), (0, 1));
        let tail = pool.read(1, 2 * 4096, 1000).typed::<u8>();
        assert_eq!(&*tail, &data[1][2 * 4096..]);
        // Both frames are now taken, one pinned by `tail`: the miss below takes the other, and
        // its companion finds no frame without waiting, so it is not read.
        pool.reset_stats();
        pool.read_into_then(0, 4096, &mut dst, (1, 0));
        assert_eq!(dst, data[0][4096..][..16]);
        let s = pool.stats();
        assert_eq!((s.misses, s.prefetches_issued), (1, 0), "{s:?}");
        drop(tail);
    }
}
