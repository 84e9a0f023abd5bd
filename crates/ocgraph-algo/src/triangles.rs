//! Triangle counting on the undirected view of a graph.
//!
//! Returns the exact number of triangles (`u64`) of the simple undirected graph underlying the
//! input: arc directions are ignored, self-loops and duplicate arcs are dropped (matching
//! `sum(networkx.triangles(G.to_undirected()).values()) / 3`).
//!
//! Algorithm: degree-ordered counting (as in the GAP Benchmark Suite `tc` and M. Latapy,
//! "Main-memory triangle computations for very large (sparse (power-law)) graphs", TCS 2008):
//! rank vertices by (undirected degree, id) and relabel them by rank (as GAPBS relabels by
//! degree), orient every edge from lower to higher rank, and for each oriented edge `u → v` count
//! the common oriented neighbours by merging the two sorted lists. Each triangle is found once,
//! at its lowest-ranked vertex; orientation bounds every oriented list by `O(√m)`. Because ids
//! are ranks, `v`'s list holds only ids above `v`, so the merge starts in `u`'s list just after
//! `v`; relabelling also packs the heavily shared high-degree lists together in memory. The
//! merge is branch-free (its comparisons are unpredictable). The oriented lists (4 bytes per
//! undirected edge) are built in memory from two range scans of `out` and `in_`, or, when the
//! graph's memory budget does not allow that, written to a scratch file that is then
//! memory-mapped ([`ocgraph_core::page::scratch`]); beside them, 12 bytes per vertex (degrees,
//! ranks) and 8 of offsets. Counting runs on the caller's rayon pool.

use std::ops::Range;

use ocgraph_core::page::scratch::{self, ScratchArray, ScratchWriter};
use ocgraph_core::{Adjacency, Result, Vertex};
use rayon::prelude::*;

use crate::bfs::check_directions;
use crate::chunks::{edge_balanced_ranges, mark_cuts, pieces_for, vertex_blocks};

/// Calls `f` on each distinct vertex of the sorted lists `a ∪ b`, except `skip`.
pub(crate) fn for_each_union(a: &[Vertex], b: &[Vertex], skip: Vertex, mut f: impl FnMut(Vertex)) {
    let (mut i, mut j) = (0, 0);
    let mut last = None;
    while i < a.len() || j < b.len() {
        let x = if j == b.len() || (i < a.len() && a[i] <= b[j]) {
            i += 1;
            a[i - 1]
        } else {
            j += 1;
            b[j - 1]
        };
        if last != Some(x) && x != skip {
            f(x);
        }
        last = Some(x);
    }
}

/// Size of the intersection of two sorted, duplicate-free lists: a branch-free merge.
pub(crate) fn intersection_size(a: &[Vertex], b: &[Vertex]) -> u64 {
    let (mut i, mut j, mut c) = (0, 0, 0u64);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        c += (x == y) as u64;
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
    c
}

/// Undirected simple degree of every vertex (union of out- and in-lists, no self-loop).
pub(crate) fn undirected_degrees<O: Adjacency, I: Adjacency>(out: &O, in_: &I) -> Vec<u32> {
    let blocks = vertex_blocks(out.num_vertices());
    let parts: Vec<Vec<u32>> = blocks
        .into_par_iter()
        .map(|b| {
            let mut deg = Vec::with_capacity(b.len());
            out.for_each_in_range(b, |v, o| {
                let mut d = 0;
                for_each_union(o, &in_.neighbors(v), v, |_| d += 1);
                deg.push(d);
            });
            deg
        })
        .collect();
    parts.concat()
}

/// Where one vertex's oriented list goes: (destination offset, source part, start in that part,
/// length).
type ListMove = (u64, usize, usize, usize);

/// Rank of every vertex by (degree, id): `rank[v]` is `v`'s position in that order.
pub(crate) fn ranks(deg: &[u32]) -> Vec<Vertex> {
    let mut order: Vec<Vertex> = (0..deg.len() as Vertex).collect();
    order.par_sort_unstable_by_key(|&v| (deg[v as usize], v));
    let mut rank = vec![0; deg.len()];
    for (r, &v) in order.iter().enumerate() {
        rank[v as usize] = r as Vertex;
    }
    rank
}

/// The oriented lists in rank space: `(offsets, targets)` indexed by rank, each rank's list
/// holding the ranks of its higher-ranked neighbours, sorted; `deg` is the undirected degree
/// of each vertex. The targets (4 bytes per undirected edge) stay in memory when the
/// graph's budget allows ([`scratch::keep_in_memory`]), else they go to a scratch file
/// ([`oriented_to_file`]).
pub(crate) fn oriented<O: Adjacency, I: Adjacency>(
    out: &O,
    in_: &I,
    rank: &[Vertex],
    deg: &[u32],
) -> Result<(Vec<u64>, ScratchArray)> {
    let blocks = vertex_blocks(out.num_vertices());
    mark_cuts(out, &blocks);
    if out.lists_id().is_none() || out.lists_id() != in_.lists_id() {
        mark_cuts(in_, &blocks);
    }
    let bytes = deg.iter().map(|&d| d as u64).sum::<u64>() / 2 * 4;
    // Built in memory, the lists are held twice (by block, then in rank order) beside 40 bytes
    // per vertex (block lengths 4, lengths by rank 4, moves 32): asked for first, so that a
    // machine without that much goes the scratch file's way instead of aborting.
    let building = 2 * bytes + 40 * out.num_vertices() as u64;
    let fits = || ocgraph_core::memory::ensure_available(building, String::new).is_ok();
    if scratch::keep_in_memory(bytes, out.memory_budget()) && fits() {
        let parts: Vec<BlockLists> = blocks.into_par_iter().map(|b| block_lists(out, in_, rank, b)).collect();
        let (offsets, targets) = to_rank_order(rank, &parts);
        Ok((offsets, ScratchArray::from_vec(targets)))
    } else {
        oriented_to_file(out, in_, rank, blocks)
    }
}

/// Bytes per vertex that counting over the oriented lists ([`oriented`]) holds at its peak,
/// besides the lists: what triangle counting and clique mining ask for before they start.
pub const ORIENTED_STATE: u64 = 32;

/// One block's oriented lists in id order: each vertex's list length, and the lists (ranks,
/// sorted) concatenated.
type BlockLists = (Vec<u32>, Vec<Vertex>);

/// The oriented lists of the vertices of `block` (one range scan of `out`).
fn block_lists<O: Adjacency, I: Adjacency>(
    out: &O,
    in_: &I,
    rank: &[Vertex],
    block: Range<Vertex>,
) -> BlockLists {
    let (mut counts, mut targets) = (Vec::with_capacity(block.len()), Vec::new());
    out.for_each_in_range(block, |v, o| {
        let before = targets.len();
        let rv = rank[v as usize];
        for_each_union(o, &in_.neighbors(v), v, |w| {
            if rank[w as usize] > rv {
                targets.push(rank[w as usize]);
            }
        });
        targets[before..].sort_unstable();
        counts.push((targets.len() - before) as u32);
    });
    (counts, targets)
}

/// [`oriented`] through scratch files, in two sequential passes so that memory holds only a
/// window of blocks' lists beyond 16 bytes per vertex of offsets: the lists are built block by
/// block in id order (range scans, as in memory) into a first file, which is then read in rank
/// order (through the page cache) and copied list by list into the second, the result.
fn oriented_to_file<O: Adjacency, I: Adjacency>(
    out: &O,
    in_: &I,
    rank: &[Vertex],
    blocks: Vec<Range<Vertex>>,
) -> Result<(Vec<u64>, ScratchArray)> {
    let n = rank.len();
    let mut by_id = ScratchWriter::new(false)?;
    let mut id_offsets = Vec::with_capacity(n + 1);
    id_offsets.push(0u64);
    for window in blocks.chunks(2 * rayon::current_num_threads()) {
        let parts: Vec<BlockLists> =
            window.to_vec().into_par_iter().map(|b| block_lists(out, in_, rank, b)).collect();
        for (counts, targets) in parts {
            let mut at = *id_offsets.last().expect("offsets start with 0");
            for c in counts {
                at += c as u64;
                id_offsets.push(at);
            }
            by_id.extend_from_slice(&targets)?;
        }
    }
    let by_id = by_id.finish()?;
    let mut order = vec![0 as Vertex; n];
    for (v, &r) in rank.iter().enumerate() {
        order[r as usize] = v as Vertex;
    }
    let mut targets = ScratchWriter::new(false)?;
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    for &v in &order {
        let list = &by_id[id_offsets[v as usize] as usize..id_offsets[v as usize + 1] as usize];
        targets.extend_from_slice(list)?;
        offsets.push(targets.len() as u64);
    }
    Ok((offsets, targets.finish()?))
}

/// The blocks' lists (in id order) moved to rank order: `(offsets, targets)` by rank.
fn to_rank_order(rank: &[Vertex], parts: &[BlockLists]) -> (Vec<u64>, Vec<Vertex>) {
    let n = rank.len();
    // Lengths by rank, then offsets by rank.
    let mut len_by_rank = vec![0u32; n];
    let mut v = 0usize;
    for (counts, _) in parts {
        for &c in counts {
            len_by_rank[rank[v] as usize] = c;
            v += 1;
        }
    }
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    let mut total = 0u64;
    for &c in &len_by_rank {
        total += c as u64;
        offsets.push(total);
    }
    // Scatter each block's lists to their rank positions: (destination offset, source range).
    let mut moves: Vec<ListMove> = Vec::with_capacity(n);
    let mut v = 0usize;
    for (p, (counts, _)) in parts.iter().enumerate() {
        let mut src = 0usize;
        for &c in counts {
            moves.push((offsets[rank[v] as usize], p, src, c as usize));
            src += c as usize;
            v += 1;
        }
    }
    moves.par_sort_unstable_by_key(|m| m.0);
    let mut targets = vec![0 as Vertex; total as usize];
    // Cut the destination into pieces of whole lists and fill them in parallel.
    let mut pieces: Vec<(&[ListMove], &mut [Vertex])> = Vec::new();
    let mut rest: &mut [Vertex] = &mut targets;
    for group in moves.chunks(4096) {
        let len: usize = group.iter().map(|m| m.3).sum();
        let (head, tail) = rest.split_at_mut(len);
        pieces.push((group, head));
        rest = tail;
    }
    pieces.into_par_iter().for_each(|(group, dst)| {
        let mut at = 0;
        for &(_, p, src, len) in group {
            dst[at..at + len].copy_from_slice(&parts[p].1[src..src + len]);
            at += len;
        }
    });
    (offsets, targets)
}

/// Exact triangle count of the undirected simple graph underlying `out`/`in_` (pass the same
/// adjacency twice for an undirected graph). Runs on the current rayon pool.
///
/// Errors: `out` and `in_` with different vertex counts.
pub fn triangle_count<O: Adjacency, I: Adjacency>(out: &O, in_: &I) -> Result<u64> {
    check_directions(out, in_)?;
    // Degrees 4, ranks 4, offsets 8 and the work 4 of each vertex, and while the lists are
    // oriented the scratch file's id-order offsets 8 and rank order 4.
    crate::state::check_state("triangle counting", out.num_vertices(), ORIENTED_STATE)?;
    let deg = undirected_degrees(out, in_);
    let rank = ranks(&deg);
    let (offsets, targets) = oriented(out, in_, &rank, &deg)?;
    let list = |v: Vertex| &targets[offsets[v as usize] as usize..offsets[v as usize + 1] as usize];
    // Work at u is Σ over its oriented neighbours v of |F(u)| + |F(v)|: balance by |F(u)|².
    let work: Vec<u32> =
        (0..deg.len()).map(|v| (offsets[v + 1] - offsets[v]).pow(2).min(u32::MAX as u64) as u32).collect();
    let ranges = edge_balanced_ranges(&work, pieces_for(deg.len()));
    Ok(ranges
        .into_par_iter()
        .map(|r| {
            r.map(|u| {
                let fu = list(u);
                // F(v) holds only ranks above v, so only the part of F(u) after v can match.
                fu.iter().enumerate().map(|(i, &v)| intersection_size(&fu[i + 1..], list(v))).sum::<u64>()
            })
            .sum::<u64>()
        })
        .sum())
}

/// Serial reference count, independent of [`triangle_count`]'s merge code: builds each vertex's
/// simple undirected neighbour set, orients by (degree, id) and counts with a marker array.
/// Returns an error message when it disagrees with `count`.
pub fn verify_triangle_count<O: Adjacency, I: Adjacency>(out: &O, in_: &I, count: u64) -> Result<(), String> {
    let n = out.num_vertices();
    let mut adj: Vec<Vec<Vertex>> = vec![Vec::new(); n];
    for u in 0..n as Vertex {
        for &v in out.neighbors(u).iter().chain(in_.neighbors(u).iter()) {
            if v != u {
                adj[u as usize].push(v);
                adj[v as usize].push(u);
            }
        }
    }
    for l in &mut adj {
        l.sort_unstable();
        l.dedup();
    }
    let higher = |u: usize, v: Vertex| (adj[v as usize].len(), v as usize) > (adj[u].len(), u);
    let fwd: Vec<Vec<Vertex>> =
        (0..n).map(|u| adj[u].iter().copied().filter(|&v| higher(u, v)).collect()).collect();
    let mut mark = vec![false; n];
    let mut reference = 0u64;
    for u in 0..n {
        fwd[u].iter().for_each(|&v| mark[v as usize] = true);
        for &v in &fwd[u] {
            reference += fwd[v as usize].iter().filter(|&&w| mark[w as usize]).count() as u64;
        }
        fwd[u].iter().for_each(|&v| mark[v as usize] = false);
    }
    if reference != count {
        return Err(format!("triangle count {count}, serial reference counts {reference}"));
    }
    Ok(())
}
