//! Page-access traces: the sequence of page requests a run makes, for replay by the cache
//! simulator ([`crate::page::sim`]).
//!
//! File format (little endian): a 16-byte header — magic `OCGTRACE`, format version
//! ([`TRACE_VERSION`], u32), page size in bytes (u32) — then one u64 per request:
//! bits 0..40 the page number, bits 40..48 the file id, bits 48..64 the thread.
//!
//! Recording is done by [`TracingSource`], a wrapper around any page backend installed by
//! [`Graph::start_trace`](crate::Graph::start_trace): a read of bytes `[offset, offset + len)`
//! requests every page it covers, in order (the pages the pool pins). A request of the same page
//! by the same thread as that thread's previous request is not recorded (neighbour lists of many
//! vertices share a page): in one thread's trace it is a hit under any policy; with several
//! threads another thread's requests may come between (docs/design.md says what the replay then
//! counts). Untraced runs pay nothing.

use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use super::backend::{Advice, FileId, PageSource, PartitionCut};
use super::policy::{page_key, PageKey};
use super::slice::Bytes;
use super::stats::IoStats;
use crate::error::{Error, Result};
use crate::format::OutputFile;

/// The 8 magic bytes a trace file starts with.
pub const TRACE_MAGIC: &[u8; 8] = b"OCGTRACE";
/// The trace format version this build writes and reads.
pub const TRACE_VERSION: u32 = 1;
/// Bytes before the first record.
pub const TRACE_HEADER_LEN: usize = 16;
/// Page numbers must be below this (2^40 pages).
pub const MAX_TRACE_PAGE: u64 = 1 << 40;

/// Records buffered before a write to the file.
const FLUSH_RECORDS: usize = 1 << 16;

/// One page request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceRecord {
    /// The file (its id within the graph).
    pub file: FileId,
    /// The page number within the file.
    pub page: u64,
    /// The requesting thread (numbered in order of first request, process-wide).
    pub thread: u16,
}

impl TraceRecord {
    /// The packed on-disk form.
    pub fn pack(&self) -> u64 {
        debug_assert!(self.page < MAX_TRACE_PAGE);
        (self.thread as u64) << 48 | (self.file as u64) << 40 | (self.page & (MAX_TRACE_PAGE - 1))
    }

    /// Unpacks the on-disk form.
    pub fn unpack(word: u64) -> TraceRecord {
        TraceRecord {
            file: (word >> 40) as u8,
            page: word & (MAX_TRACE_PAGE - 1),
            thread: (word >> 48) as u16,
        }
    }

    /// The page's [`PageKey`] (as the pool and the policies name it).
    pub fn key(&self) -> PageKey {
        page_key(self.file, self.page)
    }
}

/// A whole trace file in memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    /// Page size in bytes of the run that recorded it.
    pub page_size: u32,
    /// The requests, in order.
    pub records: Vec<TraceRecord>,
}

impl Trace {
    /// The requested page keys, in order.
    pub fn keys(&self) -> Vec<PageKey> {
        self.records.iter().map(TraceRecord::key).collect()
    }

    /// Writes the trace to `path` (used by tests and tools; runs record with [`TraceRecorder`]).
    pub fn write(&self, path: &Path) -> Result<()> {
        let rec = TraceRecorder::create(path, self.page_size)?;
        for r in &self.records {
            rec.push_record(*r);
        }
        rec.finish()?;
        Ok(())
    }

    /// Reads and validates a trace file; a bad magic, a newer version or a truncated record is
    /// an [`Error::Input`] naming the file and byte offset.
    pub fn read(path: &Path) -> Result<Trace> {
        let mut bytes = Vec::new();
        File::open(path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(|e| Error::io(path, "read", e))?;
        if bytes.len() < TRACE_HEADER_LEN {
            return Err(Error::input_offset(
                path,
                bytes.len() as u64,
                format!("truncated trace header ({} of {TRACE_HEADER_LEN} bytes)", bytes.len()),
            ));
        }
        if &bytes[..8] != TRACE_MAGIC {
            return Err(Error::input_offset(path, 0, "not an ocgraph page trace (bad magic)"));
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        if version != TRACE_VERSION {
            return Err(Error::input_offset(
                path,
                8,
                format!("trace format version {version} is not supported (this build reads {TRACE_VERSION})"),
            ));
        }
        let page_size = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes"));
        if !page_size.is_power_of_two() {
            return Err(Error::input_offset(path, 12, format!("bad page size {page_size}")));
        }
        let body = &bytes[TRACE_HEADER_LEN..];
        if !body.len().is_multiple_of(8) {
            let whole = body.len() / 8;
            return Err(Error::input_offset(
                path,
                (TRACE_HEADER_LEN + whole * 8) as u64,
                format!("truncated trace: record {whole} has {} of 8 bytes", body.len() % 8),
            ));
        }
        let records = body
            .chunks_exact(8)
            .map(|c| TraceRecord::unpack(u64::from_le_bytes(c.try_into().expect("8 bytes"))))
            .collect();
        Ok(Trace { page_size, records })
    }
}

/// Source of the process-wide thread tokens ([`thread_token`]).
static NEXT_THREAD_TOKEN: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static THREAD_TOKEN: u64 = NEXT_THREAD_TOKEN.fetch_add(1, Ordering::Relaxed);
}

/// A number unique to the calling thread in this process; a recorder maps it to the thread's
/// number in its trace under its lock, so that a trace numbers its threads in the order of
/// their first recorded request (a number taken before the lock could reach it second).
fn thread_token() -> u64 {
    THREAD_TOKEN.with(|t| *t)
}

/// Buffered state of a recorder.
struct RecorderState {
    /// The file being written (beside the destination until [`TraceRecorder::finish`] puts it
    /// in place); `None` after a write error or the finish.
    file: Option<OutputFile>,
    buf: Vec<u8>,
    /// Last key recorded per thread (to drop immediate repeats), by trace thread number.
    last: Vec<PageKey>,
    /// Trace thread number of each thread token seen, in order of first request.
    threads: HashMap<u64, u16>,
    written: u64,
    error: Option<Error>,
}

/// Appends page requests to a trace file (mutex-protected buffer; safe for many threads).
pub struct TraceRecorder {
    path: PathBuf,
    state: Mutex<RecorderState>,
}

impl TraceRecorder {
    /// Starts the trace that [`TraceRecorder::finish`] puts at `path` (written beside it until
    /// then, so that a failed or interrupted run leaves the previous file, never a truncated
    /// trace) and writes the header.
    pub fn create(path: &Path, page_size: u32) -> Result<TraceRecorder> {
        let mut file = OutputFile::create(path)?;
        let mut header = Vec::with_capacity(TRACE_HEADER_LEN);
        header.extend_from_slice(TRACE_MAGIC);
        header.extend_from_slice(&TRACE_VERSION.to_le_bytes());
        header.extend_from_slice(&page_size.to_le_bytes());
        file.write_bytes(&header)?;
        Ok(TraceRecorder {
            path: path.to_path_buf(),
            state: Mutex::new(RecorderState {
                file: Some(file),
                buf: Vec::with_capacity(FLUSH_RECORDS * 8),
                last: Vec::new(),
                threads: HashMap::new(),
                written: 0,
                error: None,
            }),
        })
    }

    /// Records that the calling thread requested page `page` of `file` (dropped when it repeats
    /// this thread's previous request).
    pub fn record(&self, file: FileId, page: u64) {
        let token = thread_token();
        let key = page_key(file, page);
        let mut st = self.state.lock();
        let next = st.threads.len() as u16;
        let thread = *st.threads.entry(token).or_insert(next);
        let t = thread as usize;
        if st.last.len() <= t {
            st.last.resize(t + 1, PageKey::MAX);
        }
        if st.last[t] == key {
            return;
        }
        st.last[t] = key;
        Self::push(&mut st, TraceRecord { file, page, thread });
    }

    /// Appends one record as given (no repeat filtering).
    pub fn push_record(&self, r: TraceRecord) {
        Self::push(&mut self.state.lock(), r);
    }

    fn push(st: &mut RecorderState, r: TraceRecord) {
        st.buf.extend_from_slice(&r.pack().to_le_bytes());
        st.written += 1;
        if st.buf.len() >= FLUSH_RECORDS * 8 {
            Self::flush_buf(st);
        }
    }

    fn flush_buf(st: &mut RecorderState) {
        if let Some(f) = st.file.as_mut() {
            if let Err(e) = f.write_bytes(&st.buf) {
                st.error.get_or_insert(e);
                st.file = None;
            }
        }
        st.buf.clear();
    }

    /// Writes out the buffer, puts the trace in place and returns the number of records, or
    /// the first write error (the previous file at the path is then kept). Records pushed
    /// afterwards are dropped.
    pub fn finish(&self) -> Result<u64> {
        let mut st = self.state.lock();
        Self::flush_buf(&mut st);
        if let Some(e) = st.error.take() {
            return Err(e);
        }
        match st.file.take() {
            Some(f) => f.commit()?,
            None => {
                return Err(Error::invalid(format!(
                    "{}: the trace was finished already",
                    self.path.display()
                )))
            }
        }
        Ok(st.written)
    }

    /// The trace file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// A page backend that records every page request into a [`TraceRecorder`], then delegates.
pub(crate) struct TracingSource {
    inner: Arc<dyn PageSource>,
    recorder: Arc<TraceRecorder>,
    page_shift: u32,
}

impl TracingSource {
    /// Wraps `inner`; pages are `page_size` bytes (a power of two).
    pub(crate) fn new(inner: Arc<dyn PageSource>, recorder: Arc<TraceRecorder>, page_size: usize) -> Self {
        debug_assert!(page_size.is_power_of_two());
        TracingSource { inner, recorder, page_shift: page_size.trailing_zeros() }
    }
}

impl TracingSource {
    /// Records every page that `[offset, offset + len)` of `file` touches.
    fn record_range(&self, file: FileId, offset: u64, len: usize) {
        if len > 0 {
            let first = offset >> self.page_shift;
            let last = (offset + len as u64 - 1) >> self.page_shift;
            for p in first..=last {
                self.recorder.record(file, p);
            }
        }
    }
}

impl PageSource for TracingSource {
    fn read(&self, file: FileId, offset: u64, len: usize) -> Bytes<'_> {
        self.record_range(file, offset, len);
        self.inner.read(file, offset, len)
    }

    fn read_into(&self, file: FileId, offset: u64, dst: &mut [u8]) {
        self.record_range(file, offset, dst.len());
        self.inner.read_into(file, offset, dst)
    }

    fn read_then(&self, file: FileId, offset: u64, len: usize, next: (FileId, u64)) -> Bytes<'_> {
        self.record_range(file, offset, len);
        self.inner.read_then(file, offset, len, next)
    }

    fn read_into_then(&self, file: FileId, offset: u64, dst: &mut [u8], next: (FileId, u64)) {
        self.record_range(file, offset, dst.len());
        self.inner.read_into_then(file, offset, dst, next)
    }

    /// A peek is not a request: not recorded.
    fn read_cached_into(&self, file: FileId, offset: u64, dst: &mut [u8]) -> bool {
        self.inner.read_cached_into(file, offset, dst)
    }

    /// Not a request either: not recorded.
    fn keep_cached(&self, file: FileId, offset: u64) -> bool {
        self.inner.keep_cached(file, offset)
    }

    /// Not a request either: not recorded.
    fn protect(&self, file: FileId, offset: u64) {
        self.inner.protect(file, offset)
    }

    fn unprotect(&self, file: FileId, offset: u64) {
        self.inner.unprotect(file, offset)
    }

    fn protection_locks(&self) -> bool {
        self.inner.protection_locks()
    }

    /// Not recorded (a trace holds requests only; cache-sim replays without it).
    fn share_pages(&self, cuts: &[PartitionCut]) {
        self.inner.share_pages(cuts)
    }

    fn wants_shared_pages(&self) -> bool {
        self.inner.wants_shared_pages()
    }

    fn advise(&self, file: FileId, offset: u64, len: u64, advice: Advice) {
        self.inner.advise(file, offset, len, advice)
    }

    fn scan_chunk(&self) -> usize {
        self.inner.scan_chunk()
    }

    fn stats(&self) -> IoStats {
        self.inner.stats()
    }

    fn reset_stats(&self) {
        self.inner.reset_stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_round_trip() {
        let r = TraceRecord { file: 7, page: MAX_TRACE_PAGE - 1, thread: 65535 };
        assert_eq!(TraceRecord::unpack(r.pack()), r);
        let r = TraceRecord { file: 0, page: 12345, thread: 3 };
        assert_eq!(TraceRecord::unpack(r.pack()), r);
    }

    #[test]
    fn file_round_trip_and_truncation() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.bin");
        let records: Vec<_> = (0..100_000u64)
            .map(|i| TraceRecord { file: (i % 3) as u8, page: i * 7919 % 100_003, thread: (i % 5) as u16 })
            .collect();
        let t = Trace { page_size: 4096, records };
        t.write(&path).unwrap();
        assert_eq!(Trace::read(&path).unwrap(), t);
        let len = std::fs::metadata(&path).unwrap().len();
        assert_eq!(len, 16 + 8 * 100_000);

        // Cut in the middle of the last record.
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(len - 3).unwrap();
        let err = Trace::read(&path).unwrap_err().to_string();
        assert!(err.contains("truncated trace") && err.contains(&format!("at byte {}", len - 8)), "{err}");
        // Cut in the header.
        f.set_len(10).unwrap();
        let err = Trace::read(&path).unwrap_err().to_string();
        assert!(err.contains("truncated trace header"), "{err}");
        // Wrong magic.
        std::fs::write(&path, [0u8; 24]).unwrap();
        assert!(Trace::read(&path).unwrap_err().to_string().contains("bad magic"));
    }

    #[test]
    fn recorder_drops_immediate_repeats_per_thread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.bin");
        let rec = TraceRecorder::create(&path, 4096).unwrap();
        for p in [1, 1, 2, 2, 2, 1, 3, 3] {
            rec.record(0, p);
        }
        assert_eq!(rec.finish().unwrap(), 4);
        let t = Trace::read(&path).unwrap();
        let pages: Vec<u64> = t.records.iter().map(|r| r.page).collect();
        assert_eq!(pages, vec![1, 2, 1, 3]);
    }

    /// A trace numbers its threads from 0 in the order of their first recorded request,
    /// whichever thread began first and whatever other traces the process recorded (a
    /// process-wide number taken before the recorder's lock could come second).
    #[test]
    fn threads_are_numbered_in_the_order_of_their_first_request() {
        let dir = tempfile::tempdir().unwrap();
        let record_from_threads = |name: &str| {
            let path = dir.path().join(name);
            let rec = TraceRecorder::create(&path, 4096).unwrap();
            let (early_ready, early_go) = (std::sync::Barrier::new(2), std::sync::Barrier::new(2));
            std::thread::scope(|s| {
                s.spawn(|| {
                    thread_token(); // this thread is known first...
                    early_ready.wait();
                    early_go.wait();
                    rec.record(0, 2); // ...but requests second
                });
                early_ready.wait();
                s.spawn(|| rec.record(0, 1)).join().unwrap();
                early_go.wait();
            });
            rec.record(0, 3);
            rec.finish().unwrap();
            let t = Trace::read(&path).unwrap();
            t.records.iter().map(|r| (r.page, r.thread)).collect::<Vec<_>>()
        };
        assert_eq!(record_from_threads("a.bin"), [(1, 0), (2, 1), (3, 2)]);
        assert_eq!(record_from_threads("b.bin"), [(1, 0), (2, 1), (3, 2)]);
    }

    #[test]
    fn a_trace_appears_whole_at_finish_and_an_unfinished_one_leaves_the_previous_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.bin");
        let first = TraceRecorder::create(&path, 4096).unwrap();
        first.record(0, 7);
        assert!(!path.exists(), "nothing at the path before the finish");
        assert_eq!(first.finish().unwrap(), 1);
        let second = TraceRecorder::create(&path, 4096).unwrap();
        for p in 0..100_000 {
            second.record(0, p);
        }
        drop(second); // a run that failed before its finish
        let pages: Vec<u64> = Trace::read(&path).unwrap().records.iter().map(|r| r.page).collect();
        assert_eq!(pages, [7]);
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["t.bin"], "no temporary file is left");
    }
}
