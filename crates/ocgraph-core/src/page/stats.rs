//! I/O statistics reported by every backend.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use serde::Serialize;

/// What a page backend did since it was created or last reset.
///
/// Pool backends fill the request/hit/miss/eviction counters and their occupancy; the mmap
/// backend fills the fault and `/proc/self/io` counters (process-wide, as deltas since open or
/// reset).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct IoStats {
    /// Backend name: `mmap` or `pool`.
    pub backend: String,
    /// Page (or range) requests.
    pub page_requests: u64,
    /// Requests served from memory.
    pub hits: u64,
    /// Requests that needed a read.
    pub misses: u64,
    /// Misses on pages never loaded before.
    pub cold_misses: u64,
    /// Misses on pages loaded before and evicted since.
    pub capacity_misses: u64,
    /// Bytes read from storage.
    pub bytes_read: u64,
    /// Read system calls.
    pub read_calls: u64,
    /// Reads that started where the previous read of the same file ended.
    pub sequential_reads: u64,
    /// Frames evicted.
    pub evictions: u64,
    /// Prefetch requests issued.
    pub prefetches_issued: u64,
    /// Prefetched pages later requested before eviction.
    pub prefetches_used: u64,
    /// Minor page faults (mmap; from getrusage).
    pub minor_faults: u64,
    /// Major page faults (mmap; from getrusage).
    pub major_faults: u64,
    /// Pages written back (writable pools: evictions of dirty pages and flushes).
    pub pages_written: u64,
    /// Write system calls.
    pub write_calls: u64,
    /// Write calls that did not start where the previous write to the same file ended.
    pub random_writes: u64,
    /// Bytes written to storage.
    pub bytes_written: u64,
    /// Pages a prefetcher asked to protect that the kernel refused to lock (mmap:
    /// `RLIMIT_MEMLOCK`); they were only used once, which does not keep them in memory.
    pub locks_refused: u64,
    /// Pages reported shared by two worker partitions of a scan, for the replacement policy's
    /// boundary adjustment (buffer pool; summed over the reports).
    pub shared_pages: u64,
    /// Bytes of graph pages the buffer pool holds now (frames in use times the page size; 0 on
    /// mmap, whose resident pages the kernel keeps). A gauge, not a count since the last reset.
    pub resident_bytes: u64,
    /// Bytes of frames the buffer pool may hold: its budget rounded down to whole pages (0 on
    /// mmap). `resident_bytes` never exceeds it.
    pub capacity_bytes: u64,
}

impl IoStats {
    /// `hits / page_requests` (0 when there were no requests).
    pub fn hit_ratio(&self) -> f64 {
        if self.page_requests == 0 {
            0.0
        } else {
            self.hits as f64 / self.page_requests as f64
        }
    }

    /// `sequential_reads / read_calls` (0 when there were no reads).
    pub fn sequential_ratio(&self) -> f64 {
        if self.read_calls == 0 {
            0.0
        } else {
            self.sequential_reads as f64 / self.read_calls as f64
        }
    }

    /// `random_writes / write_calls` (0 when there were no writes).
    pub fn random_write_ratio(&self) -> f64 {
        if self.write_calls == 0 {
            0.0
        } else {
            self.random_writes as f64 / self.write_calls as f64
        }
    }

    /// The statistics as a JSON object, with the derived ratios.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).expect("stats serialise");
        v["hit_ratio"] = self.hit_ratio().into();
        v["sequential_ratio"] = self.sequential_ratio().into();
        v["random_write_ratio"] = self.random_write_ratio().into();
        v
    }
}

/// The counters a backend bumps on its hot paths.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Counter {
    PageRequests,
    Hits,
    Misses,
    ColdMisses,
    CapacityMisses,
    BytesRead,
    ReadCalls,
    SequentialReads,
    Evictions,
    PrefetchesIssued,
    PrefetchesUsed,
    PagesWritten,
    WriteCalls,
    RandomWrites,
    BytesWritten,
    LocksRefused,
    SharedPages,
}

const COUNTERS: usize = 17;
const STRIPES: usize = 16;

/// One stripe of counters, alone on its cache lines.
#[repr(align(128))]
#[derive(Default)]
struct Stripe([AtomicU64; COUNTERS]);

/// Counters split into 16 cache-padded stripes; each thread adds to the stripe picked by a
/// thread-local index, so concurrent hits do not bounce one cache line between cores.
/// Reading sums the stripes.
#[derive(Default)]
pub(crate) struct StripedCounters {
    stripes: [Stripe; STRIPES],
}

thread_local! {
    /// This thread's stripe, assigned round-robin on first use (`usize::MAX` until then). A
    /// const-initialised `Cell`, so reading it is one thread-local load: no lazy-init check.
    static STRIPE: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// The calling thread's stripe index.
#[inline]
fn stripe() -> usize {
    STRIPE.with(|s| {
        let i = s.get();
        if i < STRIPES {
            return i;
        }
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let i = NEXT.fetch_add(1, Ordering::Relaxed) % STRIPES;
        s.set(i);
        i
    })
}

impl StripedCounters {
    /// Adds `n` to counter `c`.
    #[inline]
    pub(crate) fn add(&self, c: Counter, n: u64) {
        self.stripes[stripe()].0[c as usize].fetch_add(n, Ordering::Relaxed);
    }

    /// The current total of counter `c`.
    pub(crate) fn get(&self, c: Counter) -> u64 {
        self.stripes.iter().map(|s| s.0[c as usize].load(Ordering::Relaxed)).sum()
    }

    /// Sets every counter to zero.
    pub(crate) fn reset(&self) {
        for s in &self.stripes {
            for a in &s.0 {
                a.store(0, Ordering::Relaxed);
            }
        }
    }

    /// Fills the pool counters of `stats` (`page_requests` is `hits + misses`: the pool does
    /// not count requests separately, to keep one atomic add off the hit path).
    pub(crate) fn fill(&self, stats: &mut IoStats) {
        stats.hits = self.get(Counter::Hits);
        stats.misses = self.get(Counter::Misses);
        stats.page_requests = stats.hits + stats.misses;
        stats.prefetches_issued = self.get(Counter::PrefetchesIssued);
        stats.prefetches_used = self.get(Counter::PrefetchesUsed);
        stats.cold_misses = self.get(Counter::ColdMisses);
        stats.capacity_misses = self.get(Counter::CapacityMisses);
        stats.bytes_read = self.get(Counter::BytesRead);
        stats.read_calls = self.get(Counter::ReadCalls);
        stats.sequential_reads = self.get(Counter::SequentialReads);
        stats.evictions = self.get(Counter::Evictions);
        stats.pages_written = self.get(Counter::PagesWritten);
        stats.write_calls = self.get(Counter::WriteCalls);
        stats.random_writes = self.get(Counter::RandomWrites);
        stats.bytes_written = self.get(Counter::BytesWritten);
        stats.locks_refused = self.get(Counter::LocksRefused);
        stats.shared_pages = self.get(Counter::SharedPages);
    }
}
