//! Splitting vertex ranges into parallel work items.
//!
//! Kernels scan vertices in contiguous ranges (so the page layer reads files in order through
//! [`ocgraph_core::Adjacency::for_each_in_range`]) and hand the ranges to rayon, whose work
//! stealing evens out the load. When per-vertex degrees are known, ranges are cut so each holds
//! about the same number of edges ([`edge_balanced_ranges`]); otherwise fixed-size vertex blocks
//! are used ([`vertex_blocks`]). Scans hand the ranges out in vertex order ([`in_order`]), so
//! that the threads read the files together from front to back (one sequential stream for the
//! page layer's read-ahead) rather than from as many places as rayon's halving split makes.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

use ocgraph_core::Adjacency;
use rayon::prelude::*;

/// Vertices per block when nothing better is known.
pub(crate) const VERTEX_BLOCK: u32 = 4096;
// Bitmap words (64 vertices) never straddle two blocks (`Bitmap::set_in_owned_word`).
const _: () = assert!(VERTEX_BLOCK.is_multiple_of(64));

/// `0..n` cut into blocks of [`VERTEX_BLOCK`] vertices.
pub(crate) fn vertex_blocks(n: usize) -> Vec<Range<u32>> {
    let n = n as u64;
    (0..n.div_ceil(VERTEX_BLOCK as u64))
        .map(|b| {
            let lo = b * VERTEX_BLOCK as u64;
            lo as u32..(lo + VERTEX_BLOCK as u64).min(n) as u32
        })
        .collect()
}

/// Degrees of every vertex of `g`, read with one parallel scan of the offsets.
pub(crate) fn degrees<A: Adjacency>(g: &A) -> Vec<u32> {
    let mut deg = vec![0u32; g.num_vertices()];
    deg.par_chunks_mut(VERTEX_BLOCK as usize).enumerate().for_each(|(b, out)| {
        let lo = b as u32 * VERTEX_BLOCK;
        g.for_each_degree_in_range(lo..lo + out.len() as u32, |v, d| out[(v - lo) as usize] = d as u32);
    });
    deg
}

/// `0..degrees.len()` cut into ranges of about equal `degree + 1` sums (the `+ 1` accounts for
/// per-vertex work), aiming at `pieces` ranges; every range is non-empty.
pub(crate) fn edge_balanced_ranges(degrees: &[u32], pieces: usize) -> Vec<Range<u32>> {
    let total: u64 = degrees.iter().map(|&d| d as u64 + 1).sum();
    let target = total.div_ceil(pieces.max(1) as u64).max(1);
    let mut ranges = Vec::with_capacity(pieces + 1);
    let mut start = 0u32;
    let mut acc = 0u64;
    for (v, &d) in degrees.iter().enumerate() {
        acc += d as u64 + 1;
        if acc >= target {
            ranges.push(start..v as u32 + 1);
            start = v as u32 + 1;
            acc = 0;
        }
    }
    if (start as usize) < degrees.len() {
        ranges.push(start..degrees.len() as u32);
    }
    ranges
}

/// Tells `g` where the consecutive `ranges` of a parallel scan meet, so that a page holding
/// the data of two of them (read by two workers) is kept until both have used it
/// ([`Adjacency::mark_partition_cuts`]); with one thread the ranges run one after the other
/// and nothing is shared.
pub(crate) fn mark_cuts<A: Adjacency>(g: &A, ranges: &[Range<u32>]) {
    if rayon::current_num_threads() > 1 {
        let cuts: Vec<u32> = ranges.iter().skip(1).map(|r| r.start).collect();
        g.mark_partition_cuts(&cuts);
    }
}

/// How many pieces to cut a scan into: several per rayon thread, for work stealing.
pub(crate) fn pieces_for(n: usize) -> usize {
    (rayon::current_num_threads() * 16).min(n.max(1))
}

/// Runs `f` on every item, the threads of the current rayon pool taking the items in order (as
/// an OpenMP dynamic schedule): at any time the items in progress are next to each other, so a
/// scan over vertex ranges reads the files as one front moving from start to end. Each thread
/// starts from `init()` and folds its items into it; returns one accumulator per thread.
pub(crate) fn in_order<T: Send, A: Send>(
    items: Vec<T>,
    init: impl Fn() -> A + Sync,
    f: impl Fn(&mut A, T) + Sync,
) -> Vec<A> {
    let slots: Vec<Mutex<Option<T>>> = items.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let next = AtomicUsize::new(0);
    rayon::broadcast(|_| {
        let mut acc = init();
        while let Some(slot) = slots.get(next.fetch_add(1, Relaxed)) {
            if let Some(item) = slot.lock().unwrap_or_else(|e| e.into_inner()).take() {
                f(&mut acc, item);
            }
        }
        acc
    })
}

/// The sum of `f(i)` for `i` in `0..n`, the same whatever the threads and their timing: fixed
/// pieces summed in parallel, then in order (rayon's `sum` groups the terms as its work was
/// split, which varies from run to run, and so does the rounding).
pub(crate) fn ordered_sum(n: usize, f: impl Fn(usize) -> f64 + Sync) -> f64 {
    const PIECE: usize = 1 << 14;
    let parts: Vec<f64> = (0..n.div_ceil(PIECE))
        .into_par_iter()
        .map(|k| (k * PIECE..((k + 1) * PIECE).min(n)).map(&f).sum())
        .collect();
    parts.iter().sum()
}

/// `x` cut into the consecutive slices of `ranges` (which cover it in order), each with its
/// range: the pieces one sweep hands out.
pub(crate) fn split_by_ranges<'a>(
    mut x: &'a mut [f64],
    ranges: &[Range<u32>],
) -> Vec<(Range<u32>, &'a mut [f64])> {
    let mut pieces = Vec::with_capacity(ranges.len());
    for r in ranges {
        let (head, tail) = std::mem::take(&mut x).split_at_mut(r.len());
        pieces.push((r.clone(), head));
        x = tail;
    }
    pieces
}
