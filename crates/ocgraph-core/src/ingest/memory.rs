//! In-memory CSR build, used when all arcs fit in the memory budget: a two-pass counting sort.
//!
//! Pass 1 partitions the records by source into at most 1024 ranges of consecutive vertices, in
//! parallel: every thread counts its chunk's range histogram, then scatters its chunk into its
//! own slice of every range (few sequential write streams). For an undirected graph each
//! record is an edge and both arcs are emitted here, so the buffer holds every edge once.
//! Pass 2 handles the ranges in parallel: a counting sort by source into the final entry array
//! (cursors and output small enough to stay in cache), then every neighbour list is sorted (and
//! deduplicated). The entry array reuses the record buffer's memory (an entry is half a record
//! and there are at most two arcs per record). The in-direction of a directed graph is a stable
//! transpose of the final out-lists, which leaves every in-list sorted.
//!
//! Memory: the records plus the partitioned arcs (`size_of::<R>()` each) plus offsets (8 B per
//! vertex); see [`in_memory_bytes`].

use rayon::prelude::*;

use super::csr::{CsrCounts, CsrRoles};
use super::record::Record;
use crate::error::Result;
use crate::format::GraphWriter;

/// Log2 of the number of vertex ranges of the partition pass (1024).
const RANGE_BITS: u32 = 10;

/// Entries converted per write when splitting weighted entries into neighbour and weight files.
const WRITE_CHUNK: usize = 1 << 16;

/// Peak bytes of an in-memory build from `recs` buffered records (`arcs` arcs at most) over `n`
/// vertices.
pub(crate) fn in_memory_bytes<R: Record>(recs: u64, arcs: u64, n: u64, directed: bool) -> u64 {
    let r = std::mem::size_of::<R>() as u64;
    let e = std::mem::size_of::<R::Entry>() as u64;
    let scatter = recs * r + arcs * r + 8 * (n + 1);
    let transpose = if directed { recs * r + arcs * e + 16 * (n + 1) } else { 0 };
    scatter.max(transpose)
}

/// A CSR direction held in memory; the entries live in the storage of `store`.
pub(crate) struct MemCsr<R: Record> {
    offsets: Vec<u64>,
    store: Vec<R>,
    len: usize,
    loops: u64,
}

/// One range of pass 2: first vertex, partitioned arcs, entry slice, offsets slice.
type RangeJob<'a, R> = (usize, &'a [R], &'a mut [<R as Record>::Entry], &'a mut [u64]);

impl<R: Record> MemCsr<R> {
    /// Builds the out-direction over `n` vertices from unsorted records (consumed); with `sym`
    /// every record is an undirected edge standing for both of its arcs (a self-loop for one).
    pub(crate) fn from_records(mut recs: Vec<R>, n: usize, dedup: bool, sym: bool) -> MemCsr<R> {
        let bits = usize::BITS - n.saturating_sub(1).leading_zeros();
        let shift = bits.saturating_sub(RANGE_BITS);
        let ranges = (n.saturating_sub(1) >> shift) + 1;
        let range = |v: u32| (v >> shift) as usize;
        let chunk = recs.len().div_ceil(rayon::current_num_threads().max(1)).max(1 << 16);
        // Pass 1a: per-chunk range histograms.
        let hists: Vec<Vec<usize>> = recs
            .par_chunks(chunk)
            .map(|c| {
                let mut h = vec![0usize; ranges];
                for r in c {
                    h[range(r.src())] += 1;
                    if sym && r.src() != r.dst() {
                        h[range(r.dst())] += 1;
                    }
                }
                h
            })
            .collect();
        let range_len: Vec<usize> = (0..ranges).map(|i| hists.iter().map(|h| h[i]).sum()).collect();
        let arcs: usize = range_len.iter().sum();
        // Pass 1b: every chunk scatters into its own slice of every range.
        let mut parted = vec![R::zeroed(); arcs];
        {
            let mut outs: Vec<Vec<&mut [R]>> = hists.iter().map(|_| Vec::with_capacity(ranges)).collect();
            let mut rest = &mut parted[..];
            for i in 0..ranges {
                for (c, h) in hists.iter().enumerate() {
                    let (head, tail) = std::mem::take(&mut rest).split_at_mut(h[i]);
                    outs[c].push(head);
                    rest = tail;
                }
            }
            recs.par_chunks(chunk).zip(outs).for_each(|(c, mut outs)| {
                let mut cur = vec![0usize; ranges];
                let mut put = |r: R| {
                    let i = range(r.src());
                    outs[i][cur[i]] = r;
                    cur[i] += 1;
                };
                for &r in c {
                    put(r);
                    if sym && r.src() != r.dst() {
                        put(r.reversed());
                    }
                }
            });
        }
        // Pass 2: the entries overwrite the record buffer (at most two entries per record).
        debug_assert!(arcs <= 2 * recs.len());
        let mut offsets = vec![0u64; n + 1];
        let entries: &mut [R::Entry] = &mut bytemuck::cast_slice_mut(&mut recs[..])[..arcs];
        let mut jobs: Vec<RangeJob<R>> = Vec::with_capacity(ranges);
        let (mut p_rest, mut e_rest, mut o_rest) = (&parted[..], entries, &mut offsets[..n]);
        for (i, &len) in range_len.iter().enumerate() {
            let lo = i << shift;
            let hi = ((i + 1) << shift).min(n);
            let (p, pr) = p_rest.split_at(len);
            let (e, er) = std::mem::take(&mut e_rest).split_at_mut(len);
            let (o, or) = std::mem::take(&mut o_rest).split_at_mut(hi - lo);
            jobs.push((lo, p, e, o));
            (p_rest, e_rest, o_rest) = (pr, er, or);
        }
        let kept: Vec<(usize, u64)> = jobs.into_par_iter().map(|job| sort_range::<R>(job, dedup)).collect();
        drop(parted);
        // Make the range-local offsets global (and close the gaps left by deduplication).
        let entries: &mut [R::Entry] = &mut bytemuck::cast_slice_mut(&mut recs[..])[..arcs];
        let (mut write, mut start, mut loops) = (0usize, 0usize, 0u64);
        for (i, &(len, l)) in kept.iter().enumerate() {
            let lo = i << shift;
            let hi = ((i + 1) << shift).min(n);
            for o in &mut offsets[lo..hi] {
                *o += write as u64;
            }
            if write != start {
                entries.copy_within(start..start + len, write);
            }
            write += len;
            start += range_len[i];
            loops += l;
        }
        offsets[n] = write as u64;
        MemCsr { offsets, store: recs, len: write, loops }
    }

    /// The entries of all lists, in vertex order.
    fn entries(&self) -> &[R::Entry] {
        &bytemuck::cast_slice(&self.store[..])[..self.len]
    }

    /// The in-direction: a stable transpose, so each in-list comes out sorted by source (then
    /// weight).
    pub(crate) fn transpose(&self) -> MemCsr<R> {
        let n = self.offsets.len() - 1;
        let src = self.entries();
        let mut offsets = vec![0u64; n + 1];
        for &e in src {
            offsets[R::entry_dst(e) as usize + 1] += 1;
        }
        for i in 1..offsets.len() {
            offsets[i] += offsets[i - 1];
        }
        let mut store = vec![R::zeroed(); src.len().div_ceil(2)];
        let entries: &mut [R::Entry] = &mut bytemuck::cast_slice_mut(&mut store[..])[..src.len()];
        for v in 0..n {
            for &e in &src[self.offsets[v] as usize..self.offsets[v + 1] as usize] {
                let slot = &mut offsets[R::entry_dst(e) as usize];
                entries[*slot as usize] = R::make_entry(v as u32, R::entry_weight(e));
                *slot += 1;
            }
        }
        // The scatter left offsets[v] = end(v): shift right to get the starts.
        for i in (1..offsets.len()).rev() {
            offsets[i] = offsets[i - 1];
        }
        offsets[0] = 0;
        MemCsr { offsets, store, len: src.len(), loops: self.loops }
    }

    /// Writes the direction's files (offsets, neighbours, weights) with large writes.
    pub(crate) fn write(&self, w: &mut GraphWriter, roles: CsrRoles) -> Result<CsrCounts> {
        w.write_slice(roles.offsets, &self.offsets)?;
        let entries = self.entries();
        if R::WEIGHTED {
            let mut nbrs = w.file(roles.neighbors)?;
            let mut wts = w.file(roles.weights)?;
            let (mut nb, mut wb) = (Vec::with_capacity(WRITE_CHUNK), Vec::with_capacity(WRITE_CHUNK));
            for c in entries.chunks(WRITE_CHUNK) {
                nb.clear();
                wb.clear();
                nb.extend(c.iter().map(|&e| R::entry_dst(e)));
                wb.extend(c.iter().map(|&e| R::entry_weight(e)));
                nbrs.write_slice(&nb)?;
                wts.write_slice(&wb)?;
            }
            w.add(roles.neighbors, nbrs)?;
            w.add(roles.weights, wts)?;
        } else {
            // Unweighted entries are the destination ids themselves.
            w.write_slice(roles.neighbors, entries)?;
        }
        Ok(CsrCounts { arcs: self.len as u64, loops: self.loops })
    }
}

/// Pass 2 for one range: counting sort by source into `out`, then sorts (and with `dedup`
/// compacts) every list; leaves range-local start offsets in `offs`. Returns the entries kept
/// and the self-loops among them.
fn sort_range<R: Record>((lo, recs, out, offs): RangeJob<R>, dedup: bool) -> (usize, u64) {
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
    let (mut write, mut loops) = (0usize, 0u64);
    for (k, v) in (lo..lo + offs.len()).enumerate() {
        let start = offs[k] as usize;
        let end = cur[k] as usize;
        let list = &mut out[start..end];
        list.sort_unstable();
        let len = if dedup { dedup_sorted::<R>(list) } else { list.len() };
        loops += list[..len].iter().filter(|&&e| R::entry_dst(e) == v as u32).count() as u64;
        if write != start {
            out.copy_within(start..start + len, write);
        }
        offs[k] = write as u64;
        write += len;
    }
    (write, loops)
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
