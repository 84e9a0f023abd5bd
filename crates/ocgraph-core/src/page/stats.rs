//! I/O statistics reported by every backend.

use serde::Serialize;

/// What a page backend did since it was created or last reset.
///
/// Pool backends fill the request/hit/miss/eviction counters; the mmap backend fills the
/// fault and `/proc/self/io` counters (process-wide, as deltas since open or reset).
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

    /// The statistics as a JSON object, with the derived ratios.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).expect("stats serialise");
        v["hit_ratio"] = self.hit_ratio().into();
        v["sequential_ratio"] = self.sequential_ratio().into();
        v
    }
}
