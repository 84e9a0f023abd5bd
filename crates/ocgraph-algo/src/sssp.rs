//! Single-source shortest paths on non-negative `f32` arc weights (weight 1 when unweighted).
//!
//! Returns the `f64` distance of every vertex from the source (`f64::INFINITY` when
//! unreachable); each distance is the left-to-right `f64` sum of the `f32` weights on a shortest
//! path.
//!
//! Algorithm: delta-stepping (U. Meyer, P. Sanders, "Δ-stepping: a parallelizable shortest path
//! algorithm", J. Algorithms 49(1), 2003) with the bucket handling of the GAP Benchmark Suite:
//! the current bucket is relaxed in parallel, each rayon task collects the vertices it improved
//! into task-local buckets, and these are merged before the next round; each round's bucket is
//! sorted and deduplicated (a vertex improved twice is relaxed once, lists are read in file
//! order; a bucket of at least 1/64 of the vertices through a bitmap), stale entries (whose
//! distance dropped below the current bucket) are skipped, and the lists of a task's vertices
//! are read together ([`Adjacency::for_each_weighted_of`]: one pin per page, not two reads of
//! the bounds and two pins per vertex). Distances are `u32` whole numbers in `AtomicU32`s when
//! every weight is whole ([`WeightRange::whole`]) and no path can reach `u32::MAX`, else `f64`
//! bit patterns in `AtomicU64`s (for non-negative floats the bit order is the value order), so
//! that `fetch_min` relaxes atomically; either array is on transparent huge pages. The
//! relaxations' random reads of the distances take most of the kernel's time: the two together
//! took it from a median of 1.14x GAPBS's time to 1.02-1.03x on weighted kron22
//! (`bench/algos/run.py --kernels sssp --rounds 8`, bench/layouts/RESULTS.md). [`dijkstra`] is
//! the serial reference used by [`verify_sssp`].

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use ocgraph_core::format::WeightRange;
use ocgraph_core::page::huge_vec;
use ocgraph_core::{Adjacency, Error, Result, Vertex};
use rayon::prelude::*;

use crate::bfs::check_vertex;
use crate::bitmap::sort_through_bitmap;
use crate::chunks::vertex_blocks;

/// What shortest paths need of a weight, in the error of one they refuse.
const NEEDS: &str = "shortest paths need non-negative weights";

/// Relative bucket indices a task keeps in a dense vector; farther ones go to a side list.
const LOCAL_BUCKETS: usize = 1024;

/// Bucket sizes above which sorting runs in parallel.
const PAR_SORT_MIN: usize = 1 << 14;

/// Buckets of at least `n / DENSE_DIVISOR` vertices are sorted through a bitmap of `n` bits
/// ([`sort_through_bitmap`]): its scan then reads at most one word per vertex of the bucket.
const DENSE_DIVISOR: usize = 64;

/// A block's smallest positive and largest weight and whether all are whole, or its first
/// negative or NaN arc.
type BlockWeights = std::result::Result<(f32, f32, bool), (Vertex, Vertex, f32)>;

/// Scans all weights: rejects negative or NaN weights, returns their range (whose largest
/// weight may be infinite here; a recorded range's never is).
fn scan_weights<A: Adjacency>(g: &A) -> Result<WeightRange> {
    let blocks = vertex_blocks(g.num_vertices());
    let per_block: Vec<BlockWeights> = blocks
        .into_par_iter()
        .map(|block| {
            let (mut min_positive, mut max, mut whole) = (f32::INFINITY, 0f32, true);
            let mut bad = None;
            g.for_each_weighted_in_range(block, |u, nbrs, ws| {
                // Non-negative floats order like their bits, and a negative or NaN weight's
                // bits (-0.0's too) are above +inf's: one branch-free pass over the bits, and
                // the exact checks only for a list with such a weight.
                let (mut lo, mut hi) = (u32::MAX, 0u32);
                for &w in ws {
                    let b = w.to_bits();
                    hi = hi.max(b);
                    lo = lo.min(if b == 0 { u32::MAX } else { b });
                    whole &= w.trunc() == w;
                }
                if hi <= f32::INFINITY.to_bits() {
                    if lo != u32::MAX {
                        min_positive = min_positive.min(f32::from_bits(lo));
                        max = max.max(f32::from_bits(hi));
                    }
                    return;
                }
                for (&v, &w) in nbrs.iter().zip(ws) {
                    if w.is_nan() || w < 0.0 {
                        bad.get_or_insert((u, v, w));
                    } else if w > 0.0 {
                        min_positive = min_positive.min(w);
                        max = max.max(w);
                    }
                }
            });
            bad.map_or(Ok((min_positive, max, whole)), Err)
        })
        .collect();
    let (mut min_positive, mut max, mut whole) = (f32::INFINITY, 0f32, true);
    for r in per_block {
        let (lo, hi, w) = r.map_err(|(u, v, w)| crate::weights::refused_weight(g, u, v, w, NEEDS))?;
        min_positive = min_positive.min(lo);
        max = max.max(hi);
        whole &= w;
    }
    Ok(WeightRange { min_positive: min_positive.is_finite().then_some(min_positive), max, whole })
}

/// The weights' range, negative and NaN weights refused: every weight 1 for unweighted graphs,
/// the range recorded with the weights when the adjacency knows it
/// ([`Adjacency::weight_range`]; a graph with such weights records none), else one scan.
fn checked_weight_range<A: Adjacency>(g: &A) -> Result<WeightRange> {
    if !g.is_weighted() {
        return Ok(WeightRange { min_positive: Some(1.0), max: 1.0, whole: true });
    }
    g.weight_range().map_or_else(|| scan_weights(g), Ok)
}

/// The default bucket width: `max weight / (2 * average out-degree)` (Meyer & Sanders'
/// Θ(1/d) for weights in [0, 1], with the constant measured by `bench/algos/sssp_delta.py`:
/// half of `max / d` ran 1.05-1.10x faster than `max / d` on weighted kron20, kron22 and a
/// 1000 x 1000 road grid; a quarter was faster still on kron22 but 1.35x slower on the road
/// grid), but no more than `median / average out-degree`, the median of a sample of the
/// positive weights ([`sampled_median_weight`]; the same width for weights spread evenly, and
/// one huge weight, such as a closed road's, no longer puts every vertex in bucket 0, which
/// made delta-stepping run as rounds of Bellman-Ford), and at least the smallest positive
/// weight; `1` for unweighted graphs.
///
/// Out of core, when the adjacency (offsets, lists and weights) is larger than the memory
/// budget ([`Adjacency::memory_budget`], the pool's capacity), the width is at least
/// `max weight / 2`: every round reads the lists of its bucket, scattered over the whole
/// graph, and a narrow width makes hundreds of rounds that each read the pages again
/// (`bench/algos/run.py --kernels sssp --configs pool100,pool25,pool10`: kron22 with weights
/// 1-255 through a pool of 10% of it in 7.0 s, against 27.6 s with the in-memory width).
pub fn default_delta<A: Adjacency>(g: &A) -> Result<f64> {
    Ok(delta_for(g, checked_weight_range(g)?))
}

/// [`default_delta`] for weights in range `r`.
fn delta_for<A: Adjacency>(g: &A, r: WeightRange) -> f64 {
    let Some(min_positive) = r.min_positive.filter(|_| g.is_weighted()) else { return 1.0 };
    let avg_degree = (g.num_arcs() as f64 / g.num_vertices().max(1) as f64).max(1.0);
    let wide = r.max as f64 / (2.0 * avg_degree);
    let typical = sampled_median_weight(g).map_or(wide, |m| m as f64 / avg_degree);
    let delta = wide.min(typical).max(min_positive as f64);
    let bytes = (g.num_vertices() as u64 + 1) * 8 + g.num_arcs() * 8;
    match g.memory_budget() {
        Some(budget) if budget < bytes => delta.max(r.max as f64 / 2.0),
        _ => delta,
    }
}

/// Vertex ranges [`sampled_median_weight`] reads, spread evenly over the vertices.
const SAMPLE_RANGES: usize = 16;
/// Vertices in each of those ranges.
const SAMPLE_SPAN: usize = 256;
/// Positive weights taken from each range at most.
const SAMPLE_PER_RANGE: usize = 4096;

/// The median of the positive weights in [`SAMPLE_RANGES`] short runs of vertices spread
/// evenly over the graph (a few pages each when the lists are on disk), `None` when they hold
/// none.
fn sampled_median_weight<A: Adjacency>(g: &A) -> Option<f32> {
    let n = g.num_vertices();
    let (mut sample, mut end) = (Vec::new(), 0);
    for i in 0..SAMPLE_RANGES {
        let start = (n * i / SAMPLE_RANGES).max(end);
        end = (start + SAMPLE_SPAN).min(n);
        let room = sample.len() + SAMPLE_PER_RANGE;
        g.for_each_weighted_in_range(start as Vertex..end as Vertex, |_, _, ws| {
            let take = room.saturating_sub(sample.len());
            sample.extend(ws.iter().copied().filter(|&w| w > 0.0).take(take));
        });
    }
    if sample.is_empty() {
        return None;
    }
    let mid = sample.len() / 2;
    Some(*sample.select_nth_unstable_by(mid, f32::total_cmp).1)
}

/// Bytes per vertex SSSP makes sure are available before it starts: the distances (at most 8)
/// and the result they are copied to (its buckets, and a bitmap of one bit per vertex for the
/// largest buckets, come on top).
pub const SSSP_STATE_BYTES: u64 = 16;

/// Delta-stepping SSSP from `source` over the out-edges of `g`, on the current rayon pool.
/// `delta` is the bucket width (`None`: [`default_delta`]).
///
/// Errors: `source` out of range; a negative or NaN weight anywhere in the graph (checked
/// first, by a scan unless the weights' range is recorded); a `delta` that is not finite and
/// positive.
pub fn sssp<A: Adjacency>(g: &A, source: Vertex, delta: Option<f64>) -> Result<Vec<f64>> {
    check_vertex(g, source, "source")?;
    let n = g.num_vertices();
    // Asked for before the weights' scan, which on a graph too large for the state would take
    // minutes only to fail.
    crate::state::check_state("sssp", n, SSSP_STATE_BYTES)?;
    if let Some(d) = delta.filter(|d| !(d.is_finite() && *d > 0.0)) {
        return Err(Error::invalid(format!("delta must be finite and positive, got {d}")));
    }
    let range = checked_weight_range(g)?;
    let delta = delta.unwrap_or_else(|| delta_for(g, range));
    // A tentative distance is the length of a simple path (a chain of relaxations that met a
    // vertex twice went round a cycle of weight 0, since a distance only ever drops), at most
    // `max * (n - 1)`, and a relaxation adds one weight to it: its sum is at most `max * n`.
    // The range is trusted as the rest of the checksummed manifest is; `ocgraph check`
    // verifies it against the weights.
    let longest = range.max as f64 * n as f64;
    Ok(if range.whole && range.max < Whole::MAX_WEIGHT && longest < u32::MAX as f64 {
        search::<A, Whole>(g, source, delta)
    } else {
        search::<A, Float>(g, source, delta)
    })
}

/// How the search holds distances: `Bits` is a distance's bit pattern, which for the distances
/// the search meets orders like the distance, so that `fetch_min` on the `Cell`s relaxes.
trait Distances {
    /// One vertex's distance, shared by the tasks.
    type Cell: Send + Sync;
    /// A distance's bits.
    type Bits: Copy + Ord + Send;
    /// The bits of an unreached vertex's distance, above every other.
    const UNREACHED: Self::Bits;
    /// The bits of distance 0.
    const ZERO: Self::Bits;
    fn cell(bits: Self::Bits) -> Self::Cell;
    fn load(cell: &Self::Cell) -> Self::Bits;
    /// Lowers `cell` to `bits` if that is smaller; returns the bits it held.
    fn fetch_min(cell: &Self::Cell, bits: Self::Bits) -> Self::Bits;
    /// The distance `bits + w`.
    fn plus(bits: Self::Bits, w: f32) -> Self::Bits;
    /// The distance `bits` as an `f64` (infinity for [`Self::UNREACHED`]).
    fn value(bits: Self::Bits) -> f64;
}

/// `f64` distances in `AtomicU64`s: for non-negative floats the bit order is the value order.
struct Float;

impl Distances for Float {
    type Cell = AtomicU64;
    type Bits = u64;
    const UNREACHED: u64 = f64::INFINITY.to_bits();
    const ZERO: u64 = 0;
    fn cell(bits: u64) -> AtomicU64 {
        AtomicU64::new(bits)
    }
    fn load(cell: &AtomicU64) -> u64 {
        cell.load(Relaxed)
    }
    fn fetch_min(cell: &AtomicU64, bits: u64) -> u64 {
        cell.fetch_min(bits, Relaxed)
    }
    fn plus(bits: u64, w: f32) -> u64 {
        (f64::from_bits(bits) + w as f64).to_bits()
    }
    fn value(bits: u64) -> f64 {
        f64::from_bits(bits)
    }
}

/// Whole-number distances in `AtomicU32`s, for whole weights below 2^23 whose paths stay below
/// `u32::MAX` (the unreached mark): exactly the `f64` sums, in half the bytes of the
/// relaxations' random accesses, which take most of the kernel's time.
struct Whole;

impl Whole {
    /// Weights are below this (2^23) for the search to hold whole distances.
    const MAX_WEIGHT: f32 = 8388608.0;
}

impl Distances for Whole {
    type Cell = AtomicU32;
    type Bits = u32;
    const UNREACHED: u32 = u32::MAX;
    const ZERO: u32 = 0;
    fn cell(bits: u32) -> AtomicU32 {
        AtomicU32::new(bits)
    }
    fn load(cell: &AtomicU32) -> u32 {
        cell.load(Relaxed)
    }
    fn fetch_min(cell: &AtomicU32, bits: u32) -> u32 {
        cell.fetch_min(bits, Relaxed)
    }
    /// `w` is whole and below [`Whole::MAX_WEIGHT`]: adding 2^23 puts it in the mantissa of an
    /// `f32` whose exponent is that of 2^23, two instructions where `w as u32` takes eight.
    fn plus(bits: u32, w: f32) -> u32 {
        bits + ((w + Whole::MAX_WEIGHT).to_bits() - Whole::MAX_WEIGHT.to_bits())
    }
    fn value(bits: u32) -> f64 {
        if bits == u32::MAX {
            f64::INFINITY
        } else {
            bits as f64
        }
    }
}

/// The search itself, on distances held as `D` says (see [`sssp`]).
fn search<A: Adjacency, D: Distances>(g: &A, source: Vertex, delta: f64) -> Vec<f64> {
    let n = g.num_vertices();
    // On huge pages: the relaxations read the distances at random, one per arc.
    let mut dist: Vec<D::Cell> = huge_vec(n);
    dist.par_extend((0..n).into_par_iter().map(|_| D::cell(D::UNREACHED)));
    dist[source as usize] = D::cell(D::ZERO);

    let mut marks = None;
    let mut buckets: BTreeMap<usize, Vec<Vertex>> = BTreeMap::new();
    buckets.insert(0, vec![source]);
    while let Some((curr, mut frontier)) = buckets.pop_first() {
        // A vertex improved several times is queued several times: relax it once, and in id
        // order so neighbour lists are fetched in file order.
        if frontier.len() >= n / DENSE_DIVISOR {
            sort_through_bitmap(&mut frontier, marks.get_or_insert_with(|| vec![0; n.div_ceil(64)]));
        } else if frontier.len() >= PAR_SORT_MIN {
            frontier.par_sort_unstable();
            frontier.dedup();
        } else {
            frontier.sort_unstable();
            frontier.dedup();
        }
        let chunk = (frontier.len() / (rayon::current_num_threads() * 8)).clamp(16, 1024);
        let parts: Vec<(Vec<Vec<Vertex>>, Vec<Vertex>)> =
            frontier.par_chunks(chunk).map(|us| relax_chunk::<A, D>(g, us, &dist, delta, curr)).collect();
        for (local, far) in parts {
            for (i, mut vs) in local.into_iter().enumerate() {
                if !vs.is_empty() {
                    buckets.entry(curr + i).or_default().append(&mut vs);
                }
            }
            for v in far {
                let d = D::value(D::load(&dist[v as usize]));
                buckets.entry(bucket_of(d, delta, curr)).or_default().push(v);
            }
        }
    }
    let mut out = huge_vec(n);
    out.par_extend(dist.par_iter().map(|d| D::value(D::load(d))));
    out
}

/// The bucket of distance `d`, never below `curr` (guards against rounding in the division).
fn bucket_of(d: f64, delta: f64, curr: usize) -> usize {
    ((d / delta) as usize).max(curr)
}

/// Relaxes the out-arcs of `us` (members of bucket `curr`); returns the improved vertices in
/// task-local buckets (index relative to `curr`) and a list of those beyond [`LOCAL_BUCKETS`].
fn relax_chunk<A: Adjacency, D: Distances>(
    g: &A,
    us: &[Vertex],
    dist: &[D::Cell],
    delta: f64,
    curr: usize,
) -> (Vec<Vec<Vertex>>, Vec<Vertex>) {
    let mut local: Vec<Vec<Vertex>> = Vec::new();
    let mut far = Vec::new();
    // Stale: settled in an earlier bucket. The bucket is computed as when it was queued;
    // comparing `du` with `delta * curr` instead can misjudge a distance on a bucket's
    // boundary (54 / 3.176...= 17.0, but 3.176... * 17 > 54) and skip a live vertex.
    let live: Vec<Vertex> = us
        .iter()
        .copied()
        .filter(|&u| (D::value(D::load(&dist[u as usize])) / delta) as usize >= curr)
        .collect();
    // In id order (the bucket is sorted): vertices whose bounds or lists share a page share a pin.
    g.for_each_weighted_of(&live, |u, nbrs, ws| {
        let du = D::load(&dist[u as usize]);
        for (&v, &w) in nbrs.iter().zip(ws) {
            let nd = D::plus(du, w);
            let slot = &dist[v as usize];
            if nd < D::load(slot) && nd < D::fetch_min(slot, nd) {
                let b = bucket_of(D::value(nd), delta, curr) - curr;
                if b < LOCAL_BUCKETS {
                    if local.len() <= b {
                        local.resize_with(b + 1, Vec::new);
                    }
                    local[b].push(v);
                } else {
                    far.push(v);
                }
            }
        }
    });
    (local, far)
}

/// Serial Dijkstra from `source` over the out-edges of `g` (binary heap, lazy deletion): the
/// reference for [`sssp`]. Errors: `source` out of range or a negative/NaN weight met.
pub fn dijkstra<A: Adjacency>(g: &A, source: Vertex) -> Result<Vec<f64>> {
    check_vertex(g, source, "source")?;
    let mut dist = vec![f64::INFINITY; g.num_vertices()];
    dist[source as usize] = 0.0;
    // Non-negative f64 bit patterns order like the values.
    let mut heap = BinaryHeap::from([Reverse((0f64.to_bits(), source))]);
    while let Some(Reverse((bits, u))) = heap.pop() {
        let du = f64::from_bits(bits);
        if du > dist[u as usize] {
            continue;
        }
        let nbrs = g.neighbors(u);
        let ws = g.weights(u);
        for (i, &v) in nbrs.iter().enumerate() {
            let w = ws.as_ref().map_or(1.0, |ws| ws[i]);
            if w.is_nan() || w < 0.0 {
                return Err(crate::weights::refused_weight(g, u, v, w, NEEDS));
            }
            let nd = du + w as f64;
            if nd < dist[v as usize] {
                dist[v as usize] = nd;
                heap.push(Reverse((nd.to_bits(), v)));
            }
        }
    }
    Ok(dist)
}

/// Checks `dist` against a serial [`dijkstra`] run: same reachability, and finite distances
/// equal within a relative `1e-9`.
pub fn verify_sssp<A: Adjacency>(g: &A, source: Vertex, dist: &[f64]) -> Result<(), String> {
    let reference = dijkstra(g, source).map_err(|e| e.to_string())?;
    if dist.len() != reference.len() {
        return Err(format!("{} distances for {} vertices", dist.len(), reference.len()));
    }
    for (v, (&d, &r)) in dist.iter().zip(&reference).enumerate() {
        let ok =
            if r.is_infinite() { d.is_infinite() && d > 0.0 } else { (d - r).abs() <= 1e-9 * r.max(1.0) };
        if !ok {
            return Err(format!("vertex {v}: distance {d}, Dijkstra gives {r}"));
        }
    }
    Ok(())
}
