//! In-memory CSR build, used when all arcs fit in the memory budget: a counting sort by source
//! scatters the records into neighbour lists, each list is then sorted (and deduplicated) in
//! parallel with rayon; the in-direction is a stable transpose of the final out-lists, which
//! leaves every in-list already sorted.
//!
//! Memory: records (`size_of::<R>()` per arc) plus entries (`size_of::<R::Entry>()` per arc)
//! plus offsets and two per-thread cursor arrays (3 x 8 B per vertex) during the scatter; the
//! records are freed before the sort.
//! The transpose holds both directions' entries and offsets.

use rayon::prelude::*;

use super::csr::{CsrCounts, CsrSink};
use super::record::Record;
use crate::error::Result;
use crate::format::GraphWriter;

/// Chunks of the parallel scatter (each holds 8 B per vertex of cursors).
const SCATTER_THREADS: usize = 2;

/// Peak bytes of an in-memory build of `m` arcs over `n` vertices.
pub(crate) fn in_memory_bytes<R: Record>(m: u64, n: u64, directed: bool) -> u64 {
    let r = std::mem::size_of::<R>() as u64;
    let e = std::mem::size_of::<R::Entry>() as u64;
    let scatter = m * (r + e) + 8 * (n + 1) * (1 + SCATTER_THREADS as u64);
    let transpose = if directed { 2 * m * e + 16 * (n + 1) } else { 0 };
    scatter.max(transpose)
}

/// A CSR direction held in memory.
pub(crate) struct MemCsr<R: Record> {
    offsets: Vec<u64>,
    entries: Vec<R::Entry>,
}

impl<R: Record> MemCsr<R> {
    /// Builds the out-direction from unsorted records over `n` vertices (consumes the records).
    pub(crate) fn from_records(recs: Vec<R>, n: usize, dedup: bool) -> MemCsr<R> {
        // Parallel counting sort: each thread counts its chunk of records, the counts become
        // per-thread cursors, and each thread scatters its chunk into disjoint slots.
        let chunk = recs.len().div_ceil(SCATTER_THREADS).max(1);
        let mut cursors: Vec<Vec<u64>> = recs
            .par_chunks(chunk)
            .map(|c| {
                let mut counts = vec![0u64; n];
                for r in c {
                    counts[r.src() as usize] += 1;
                }
                counts
            })
            .collect();
        let mut offsets = vec![0u64; n + 1];
        let mut acc = 0u64;
        for v in 0..n {
            offsets[v] = acc;
            for cur in cursors.iter_mut() {
                let count = cur[v];
                cur[v] = acc;
                acc += count;
            }
        }
        offsets[n] = acc;
        let cells: Vec<R::Cell> = (0..recs.len()).map(|_| R::Cell::default()).collect();
        recs.par_chunks(chunk).zip(cursors.par_iter_mut()).for_each(|(c, cur)| {
            for r in c {
                let slot = &mut cur[r.src() as usize];
                R::store(&cells[*slot as usize], r.entry());
                *slot += 1;
            }
        });
        drop(cursors);
        drop(recs);
        let entries: Vec<R::Entry> = cells.into_iter().map(R::into_entry).collect();
        let mut csr = MemCsr { offsets, entries };
        csr.sort_lists(dedup);
        csr
    }

    /// Sorts every neighbour list in parallel; with `dedup` keeps the first of equal destinations
    /// (the smallest weight) and compacts the lists.
    fn sort_lists(&mut self, dedup: bool) {
        let n = self.offsets.len() - 1;
        let m = self.entries.len() as u64;
        let target = (m / 256).max(1 << 14);
        let mut parts = Vec::new();
        let mut rest: &mut [R::Entry] = &mut self.entries;
        let mut lo = 0usize;
        while lo < n {
            let mut hi = lo + 1;
            while hi < n && self.offsets[hi] - self.offsets[lo] < target {
                hi += 1;
            }
            let len = (self.offsets[hi] - self.offsets[lo]) as usize;
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(len);
            parts.push((lo, hi, head));
            rest = tail;
            lo = hi;
        }
        let offsets = &self.offsets;
        let lens: Vec<Vec<u64>> = parts
            .into_par_iter()
            .map(|(lo, hi, slice)| {
                let base = offsets[lo];
                let mut lens = Vec::with_capacity(if dedup { hi - lo } else { 0 });
                for v in lo..hi {
                    let list = &mut slice[(offsets[v] - base) as usize..(offsets[v + 1] - base) as usize];
                    list.sort_unstable();
                    if dedup {
                        lens.push(dedup_sorted::<R>(list) as u64);
                    }
                }
                lens
            })
            .collect();
        if dedup {
            let mut write = 0u64;
            for (v, len) in lens.into_iter().flatten().enumerate() {
                let old = self.offsets[v];
                self.offsets[v] = write;
                self.entries.copy_within(old as usize..(old + len) as usize, write as usize);
                write += len;
            }
            self.offsets[n] = write;
            self.entries.truncate(write as usize);
        }
    }

    /// The in-direction: a stable transpose, so each in-list comes out sorted by source (then
    /// weight).
    pub(crate) fn transpose(&self) -> MemCsr<R> {
        let n = self.offsets.len() - 1;
        let mut offsets = vec![0u64; n + 1];
        for &e in &self.entries {
            offsets[R::entry_dst(e) as usize + 1] += 1;
        }
        prefix_sum(&mut offsets);
        let mut entries = vec![R::Entry::default(); self.entries.len()];
        for v in 0..n {
            for &e in &self.entries[self.offsets[v] as usize..self.offsets[v + 1] as usize] {
                let slot = &mut offsets[R::entry_dst(e) as usize];
                entries[*slot as usize] = R::make_entry(v as u32, R::entry_weight(e));
                *slot += 1;
            }
        }
        shift_right(&mut offsets);
        MemCsr { offsets, entries }
    }

    /// Streams the lists into `sink` and finishes it.
    pub(crate) fn write(&self, mut sink: CsrSink<R>, w: &mut GraphWriter) -> Result<CsrCounts> {
        for v in 0..self.offsets.len() - 1 {
            let list = &self.entries[self.offsets[v] as usize..self.offsets[v + 1] as usize];
            sink.push_list(v as u32, list)?;
        }
        sink.finish(w)
    }
}

/// Removes repeated destinations from a sorted list in place; returns the new length.
fn dedup_sorted<R: Record>(list: &mut [R::Entry]) -> usize {
    if list.is_empty() {
        return 0;
    }
    let mut k = 1;
    for i in 1..list.len() {
        if R::entry_dst(list[i]) != R::entry_dst(list[k - 1]) {
            list[k] = list[i];
            k += 1;
        }
    }
    k
}

/// Turns counts at `[v + 1]` into start offsets at `[v]`.
fn prefix_sum(offsets: &mut [u64]) {
    for i in 1..offsets.len() {
        offsets[i] += offsets[i - 1];
    }
}

/// After a scatter left `offsets[v] = end(v)`, restores `offsets[v] = start(v)`.
fn shift_right(offsets: &mut [u64]) {
    for i in (1..offsets.len()).rev() {
        offsets[i] = offsets[i - 1];
    }
    offsets[0] = 0;
}
