//! In-memory CSR build, used when all arcs fit in the memory budget: a counting sort by source
//! scatters the records into neighbour lists, each list is then sorted (and deduplicated) in
//! parallel with rayon; the in-direction is a stable transpose of the final out-lists, which
//! leaves every in-list already sorted.
//!
//! Memory: records (`size_of::<R>()` per arc) twice during the partition pass, then the
//! partitioned records plus entries (`size_of::<R::Entry>()` per arc) plus offsets (8 B per
//! vertex); the records are freed before the lists are sorted. The transpose holds both
//! directions' entries and offsets.

use rayon::prelude::*;

use super::csr::{CsrCounts, CsrSink};
use super::record::Record;
use crate::error::Result;
use crate::format::GraphWriter;

/// Log2 of the number of vertex ranges of the partition pass (1024).
const RANGE_BITS: u32 = 10;

/// Peak bytes of an in-memory build of `m` arcs over `n` vertices.
pub(crate) fn in_memory_bytes<R: Record>(m: u64, n: u64, directed: bool) -> u64 {
    let r = std::mem::size_of::<R>() as u64;
    let e = std::mem::size_of::<R::Entry>() as u64;
    let scatter = m * (2 * r).max(r + e) + 8 * (n + 1);
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
        // Pass 1 partitions the records by source into at most 1024 ranges of consecutive
        // vertices (sequential writes to few streams); pass 2 counting-sorts every range in
        // parallel, each with cursors and output small enough to stay in cache.
        let bits = usize::BITS - n.saturating_sub(1).leading_zeros();
        let shift = bits.saturating_sub(RANGE_BITS);
        let ranges = (n.saturating_sub(1) >> shift) + 1;
        let mut starts = vec![0usize; ranges + 1];
        for r in &recs {
            starts[(r.src() >> shift) as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut cursor = starts.clone();
        let mut parted = vec![R::zeroed(); recs.len()];
        for &r in &recs {
            let c = &mut cursor[(r.src() >> shift) as usize];
            parted[*c] = r;
            *c += 1;
        }
        drop(recs);
        let mut offsets = vec![0u64; n + 1];
        let mut entries = vec![R::Entry::default(); parted.len()];
        let mut jobs = Vec::with_capacity(ranges);
        let (mut recs_rest, mut ent_rest, mut off_rest) = (&parted[..], &mut entries[..], &mut offsets[..n]);
        for i in 0..ranges {
            let lo = i << shift;
            let hi = ((i + 1) << shift).min(n);
            let len = starts[i + 1] - starts[i];
            let (r, rr) = recs_rest.split_at(len);
            let (e, er) = std::mem::take(&mut ent_rest).split_at_mut(len);
            let (o, or) = std::mem::take(&mut off_rest).split_at_mut(hi - lo);
            jobs.push((lo, starts[i] as u64, r, e, o));
            (recs_rest, ent_rest, off_rest) = (rr, er, or);
        }
        jobs.into_par_iter().for_each(|(lo, base, recs, out, offs)| {
            for r in recs {
                offs[r.src() as usize - lo] += 1;
            }
            let mut acc = 0u64;
            for o in offs.iter_mut() {
                let c = *o;
                *o = acc;
                acc += c;
            }
            let mut cur: Vec<u64> = offs.to_vec();
            for r in recs {
                let c = &mut cur[r.src() as usize - lo];
                out[*c as usize] = r.entry();
                *c += 1;
            }
            for o in offs.iter_mut() {
                *o += base;
            }
        });
        drop(parted);
        offsets[n] = entries.len() as u64;
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
