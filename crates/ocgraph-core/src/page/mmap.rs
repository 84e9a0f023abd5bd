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

    /// Locks (`lock`) or unlocks the page holding byte `offset` of `file`; whether the kernel
    /// did it.
    fn lock_page(&self, file: FileId, offset: u64, lock: bool) -> bool {
        let Some(map) = &self.maps[file as usize] else { return false };
        let start = offset as usize / PAGE * PAGE;
        if start >= map.len() {
            return false;
        }
        let len = PAGE.min(map.len() - start);
        // SAFETY: `start < map.len()`, so the pointer and `len` bytes after it lie within the
        // mapping. Locking changes residency only, never the mapping's contents or extent.
        let r = unsafe {
            let addr = map.as_ptr().add(start).cast::<libc::c_void>();
            if lock {
                libc::mlock2(addr, len, libc::MLOCK_ONFAULT)
            } else {
                libc::munlock(addr, len)
            }
        };
        r == 0
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

    /// Loads the byte (a volatile read: a plain copy into a value nobody reads is optimised
    /// away, and the kernel then sees no use), counting nothing.
    fn keep_cached(&self, file: FileId, offset: u64) -> bool {
        let byte = &self.bytes(file)[offset as usize];
        // SAFETY: `byte` is a valid, aligned reference into the mapping, which lives as long
        // as `self`.
        unsafe { std::ptr::read_volatile(byte) };
        true
    }

    /// Locks the page in memory with `mlock2(MLOCK_ONFAULT)`: locked now if resident, else
    /// once a read faults it in; the kernel's reclaim never takes it (unlike a use counted,
    /// which it overrides within milliseconds when the graph is larger than memory). Where
    /// the lock is refused (`RLIMIT_MEMLOCK`, which root and `CAP_IPC_LOCK` do not have)
    /// it counts a use instead ([`PageSource::keep_cached`]) and `locks_refused` counts it.
    /// Locked pages count against a memory cgroup's limit: the caller bounds them.
    fn protect(&self, file: FileId, offset: u64) {
        if !self.lock_page(file, offset, true) {
            self.counters.add(Counter::LocksRefused, 1);
            self.keep_cached(file, offset);
        }
    }

    fn unprotect(&self, file: FileId, offset: u64) {
        self.lock_page(file, offset, false);
    }

    fn protection_locks(&self) -> bool {
        true
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
            locks_refused: self.counters.get(Counter::LocksRefused),
            ..IoStats::default()
        }
    }

    fn reset_stats(&self) {
        self.counters.reset();
        *self.baseline.lock() = Baseline::now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the mapping holding `addr` is locked (`lo` among its `VmFlags` in
    /// `/proc/self/smaps`).
    fn locked(addr: usize) -> bool {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        // A mapping's header line starts `start-end ` in hex.
        let range = |line: &str| {
            let (a, b) = line.split_once(' ')?.0.split_once('-')?;
            Some(usize::from_str_radix(a, 16).ok()?..usize::from_str_radix(b, 16).ok()?)
        };
        for line in smaps.lines() {
            if let Some(r) = range(line) {
                inside = r.contains(&addr);
                continue;
            }
            if inside {
                if let Some(flags) = line.strip_prefix("VmFlags:") {
                    return flags.split_whitespace().any(|f| f == "lo");
                }
            }
        }
        panic!("no mapping holds {addr:#x}")
    }

    /// Whether page `i` of the mapping at `base` is in the page cache (`mincore`).
    fn resident(base: *const u8, i: usize) -> bool {
        let mut v = [0u8; 1];
        // SAFETY: the page lies within the caller's live mapping; `v` holds one byte per page.
        let r = unsafe { libc::mincore(base.add(i * PAGE) as *mut libc::c_void, PAGE, v.as_mut_ptr()) };
        assert_eq!(r, 0);
        v[0] & 1 == 1
    }

    #[test]
    fn keep_cached_reads_the_page_in() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let f = std::fs::File::create(&path).unwrap();
        std::io::Write::write_all(&mut &f, &vec![1u8; 64 * PAGE]).unwrap();
        f.sync_all().unwrap();
        // SAFETY: a valid descriptor; dropping the clean pages from the page cache.
        unsafe { libc::posix_fadvise(std::os::fd::AsRawFd::as_raw_fd(&f), 0, 0, libc::POSIX_FADV_DONTNEED) };
        let src = MmapSource::open(&[PagedFile { path, len: 64 * PAGE as u64 }]).unwrap();
        let base = src.bytes(0).as_ptr();
        if resident(base, 40) {
            // The file system kept the pages (tmpfs): nothing to observe.
            return;
        }
        src.advise(0, 0, 64 * PAGE as u64, Advice::Random);
        assert!(src.keep_cached(0, 40 * PAGE as u64 + 3));
        assert!(resident(base, 40), "the kept page was not read in");
        assert_eq!(src.stats().page_requests, 0, "a keep is not a request");
    }

    #[test]
    fn protect_locks_exactly_the_page_and_unprotect_unlocks_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; 4 * PAGE]).unwrap();
        let src = MmapSource::open(&[PagedFile { path, len: 4 * PAGE as u64 }]).unwrap();
        let base = src.bytes(0).as_ptr() as usize;
        let page = |i: usize| base + i * PAGE;
        assert!((0..4).all(|i| !locked(page(i))));
        src.protect(0, PAGE as u64 + 100);
        if src.stats().locks_refused > 0 {
            // RLIMIT_MEMLOCK refused even one page: protection is a use counted, nothing locked.
            assert!((0..4).all(|i| !locked(page(i))));
            return;
        }
        assert!(locked(page(1)));
        assert!(!locked(page(0)) && !locked(page(2)) && !locked(page(3)));
        // Locking is not reading: the bytes are the file's.
        let mut b = [0u8; 4];
        src.read_into(0, PAGE as u64, &mut b);
        assert_eq!(b, [7; 4]);
        src.unprotect(0, PAGE as u64);
        assert!(!locked(page(1)));
    }
}
