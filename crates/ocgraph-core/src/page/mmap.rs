//! The `mmap` backend: every file mapped whole; the OS page cache does the I/O.
//!
//! A file advised [`Advice::Random`] gets no read-ahead from the kernel, so a read spanning
//! several pages of it (a long neighbour list) first advises `MADV_WILLNEED` on exactly that
//! range: the kernel reads its missing pages together, where faults would read them one by one.
//!
//! Statistics: `page_requests` counts reads (striped counters, cheap); faults come from
//! `getrusage(RUSAGE_SELF)` and `bytes_read` from `read_bytes` in `/proc/self/io`, as deltas
//! since open or the last reset (process-wide: they include I/O by anything else the process
//! does).

use std::sync::atomic::{AtomicBool, Ordering};

use memmap2::{Mmap, MmapOptions};
use parking_lot::Mutex;

use super::backend::{Advice, FileId, PageSource, PagedFile};
use super::slice::Bytes;
use super::stats::{Counter, IoStats, StripedCounters};
use crate::error::{Error, Result};

/// Reads are zero-copy anywhere; scans still walk the files in chunks of this many bytes.
const SCAN_CHUNK: usize = 1 << 20;

/// The kernel's page size, the unit of faults and advice.
const PAGE: usize = 4096;

/// Process-wide counters at open or the last reset.
#[derive(Debug, Clone, Copy, Default)]
struct Baseline {
    minor_faults: u64,
    major_faults: u64,
    read_bytes: u64,
}

impl Baseline {
    fn now() -> Baseline {
        // SAFETY: getrusage only writes the zero-initialised struct we pass.
        let ru = unsafe {
            let mut ru: libc::rusage = std::mem::zeroed();
            libc::getrusage(libc::RUSAGE_SELF, &mut ru);
            ru
        };
        Baseline {
            minor_faults: ru.ru_minflt as u64,
            major_faults: ru.ru_majflt as u64,
            read_bytes: proc_read_bytes().unwrap_or(0),
        }
    }
}

/// `read_bytes` from `/proc/self/io` (bytes this process caused to be read from storage).
fn proc_read_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/io").ok()?;
    text.lines().find_map(|l| l.strip_prefix("read_bytes:")).and_then(|v| v.trim().parse().ok())
}

/// Memory-maps the graph files read-only.
pub(crate) struct MmapSource {
    maps: Vec<Option<Mmap>>,
    /// Per file: last advised [`Advice::Random`] (reads spanning pages advise `WillNeed` first).
    random: Vec<AtomicBool>,
    counters: StripedCounters,
    baseline: Mutex<Baseline>,
}

impl MmapSource {
    /// Maps every file (empty files are not mapped).
    pub(crate) fn open(files: &[PagedFile]) -> Result<MmapSource> {
        let mut maps = Vec::with_capacity(files.len());
        for f in files {
            if f.len == 0 {
                maps.push(None);
                continue;
            }
            let file = std::fs::File::open(&f.path).map_err(|e| Error::io(&f.path, "open", e))?;
            // SAFETY: the graph files are immutable once committed (writers create new files and
            // rename directories), so the mapping is not modified underneath us. Truncation by
            // another process would raise SIGBUS, as for any mmap reader.
            let map = unsafe { MmapOptions::new().len(f.len as usize).map(&file) }
                .map_err(|e| Error::io(&f.path, "mmap", e))?;
            maps.push(Some(map));
        }
        let random = maps.iter().map(|_| AtomicBool::new(false)).collect();
        Ok(MmapSource {
            maps,
            random,
            counters: StripedCounters::default(),
            baseline: Mutex::new(Baseline::now()),
        })
    }

    fn bytes(&self, file: FileId) -> &[u8] {
        self.maps[file as usize].as_deref().unwrap_or(&[])
    }
}

impl PageSource for MmapSource {
    fn read(&self, file: FileId, offset: u64, len: usize) -> Bytes<'_> {
        self.counters.add(Counter::PageRequests, 1);
        let start = offset as usize;
        let bytes = &self.bytes(file)[start..start + len];
        if len > 0
            && start / PAGE != (start + len - 1) / PAGE
            && self.random[file as usize].load(Ordering::Relaxed)
        {
            self.advise(file, offset, len as u64, Advice::WillNeed);
        }
        Bytes::borrowed(bytes)
    }

    fn read_into(&self, file: FileId, offset: u64, dst: &mut [u8]) {
        self.counters.add(Counter::PageRequests, 1);
        let start = offset as usize;
        dst.copy_from_slice(&self.bytes(file)[start..start + dst.len()]);
    }

    fn advise(&self, file: FileId, offset: u64, len: u64, advice: Advice) {
        let Some(map) = &self.maps[file as usize] else { return };
        if advice != Advice::WillNeed {
            self.random[file as usize].store(advice == Advice::Random, Ordering::Relaxed);
        }
        let adv = match advice {
            Advice::Normal => memmap2::Advice::Normal,
            Advice::Random => memmap2::Advice::Random,
            Advice::Sequential => memmap2::Advice::Sequential,
            Advice::WillNeed => memmap2::Advice::WillNeed,
        };
        let page = PAGE as u64;
        let start = offset / page * page;
        let end = (offset + len).min(map.len() as u64);
        if end > start {
            // Advice is only a hint: an error (e.g. EINVAL on an odd range) changes nothing.
            let _ = map.advise_range(adv, start as usize, (end - start) as usize);
        }
    }

    fn scan_chunk(&self) -> usize {
        SCAN_CHUNK
    }

    fn stats(&self) -> IoStats {
        let base = *self.baseline.lock();
        let now = Baseline::now();
        IoStats {
            backend: "mmap".into(),
            page_requests: self.counters.get(Counter::PageRequests),
            minor_faults: now.minor_faults.saturating_sub(base.minor_faults),
            major_faults: now.major_faults.saturating_sub(base.major_faults),
            bytes_read: now.read_bytes.saturating_sub(base.read_bytes),
            ..IoStats::default()
        }
    }

    fn reset_stats(&self) {
        self.counters.reset();
        *self.baseline.lock() = Baseline::now();
    }
}
