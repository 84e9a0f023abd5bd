//! Breadth-first search from one source.
//!
//! Returns, for every vertex, its depth (hops from the source) and its BFS parent (the source is
//! its own parent), as `u32` arrays with [`BfsResult::UNREACHED`] for unreachable vertices, the
//! kernel's working arrays themselves (GAPBS's BFS likewise returns its 32-bit parent array);
//! [`BfsResult::depth_i64`] and [`BfsResult::parent_i64`] give the API's `int64` form, `-1`
//! unreachable.
//!
//! Algorithm: direction-optimising BFS (S. Beamer, K. Asanović, D. Patterson, "Direction-Optimizing
//! Breadth-First Search", SC 2012), with the switching heuristic of the GAP Benchmark Suite
//! (`alpha = 15`, `beta = 18`). Top-down steps expand a frontier held as a vertex list; the list
//! is sorted by id before expansion so neighbour lists are fetched in file order (page-friendly
//! access, as in Optimus-style out-of-core traversal); a hub's list in a frontier of one task
//! (typically the source's) is claimed by all threads in pieces. Bottom-up steps scan the unvisited
//! vertices' in-neighbour lists block by block in vertex order (through
//! [`Adjacency::for_each_selected_in_range`]) against a bitmap frontier. Both steps run on the caller's
//! rayon pool; parents are claimed with a compare-and-swap, so with several threads the parent
//! chosen among equally deep candidates may differ between runs (depths never do).
//!
//! Out of core, the first bottom-up step also keeps the lists it scanned without finding a
//! parent in memory (at most [`STASH_BYTES_PER_VERTEX`] bytes per vertex, see `stash.rs`); the
//! steps after it read those from memory instead of the graph (kron22 from its highest-degree
//! vertex, pool at 10%: two of the three passes over the graph are gone).
//!
//! With a hub index (`ocgraph layout hubs`, [`bfs_with_hubs`]), a bottom-up step that reads the
//! graph first looks for each unvisited vertex's parent among its hubs (its in-neighbours of
//! highest out-degree, a sequential read of 12 bytes per vertex), and reads the in-lists only of
//! the vertices whose hubs are not in the frontier and whose in-lists hold more than them. On
//! kron22 from its highest-degree vertex with the pool at 10%, a BFS then reads 98 MB against
//! the packed lists' 320 MB (`bench/layouts/run.py`, the hubs rows).
//!
//! Memory: 8 bytes per vertex (depths and parents), two bitmaps while bottom-up, the frontier
//! list, and the stash.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use ocgraph_core::{Adjacency, Error, Hubs, Result, Vertex};
use rayon::prelude::*;

use crate::bitmap::Bitmap;
use crate::chunks::{in_order, mark_cuts, vertex_blocks};
use crate::stash::{ListStash, Part, StashBuilder};

/// GAPBS top-down → bottom-up switch: go bottom-up when the frontier's edges exceed
/// `unexplored edges / ALPHA`.
const ALPHA: u64 = 15;
/// GAPBS bottom-up → top-down switch: go back when the frontier shrinks below `n / BETA`.
const BETA: u64 = 18;
/// Marks "no parent yet" in the working arrays.
const NONE: u32 = u32::MAX;
/// Frontier sizes above which sorting runs in parallel.
const PAR_SORT_MIN: usize = 1 << 14;
/// Lists at least this long are claimed by all threads in a top-down step, and vertex sets at
/// least this large have their degrees summed by all threads.
const SPLIT_LIST: usize = 1 << 14;
/// Lists a bottom-up step with a hub index announces to the page layer and reads together: a
/// few dozen keep enough reads in flight to overlap, and few enough that the pages announced
/// are still in a small pool when read.
const READ_TOGETHER: usize = 64;
/// Memory [`bfs`] may use to keep lists of unvisited vertices, in bytes per vertex of the graph.
pub const STASH_BYTES_PER_VERTEX: usize = 4;

/// Depth and parent of every vertex after a BFS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BfsResult {
    /// Hops from the source; [`BfsResult::UNREACHED`] for unreachable vertices.
    pub depth: Vec<u32>,
    /// BFS-tree parent; [`BfsResult::UNREACHED`] for unreachable vertices; the source's parent
    /// is the source.
    pub parent: Vec<u32>,
}

impl BfsResult {
    /// Depth and parent of an unreachable vertex.
    pub const UNREACHED: u32 = NONE;

    /// Depths as `i64`, `-1` for unreachable vertices.
    pub fn depth_i64(&self) -> Vec<i64> {
        to_i64(&self.depth)
    }

    /// Parents as `i64`, `-1` for unreachable vertices.
    pub fn parent_i64(&self) -> Vec<i64> {
        to_i64(&self.parent)
    }
}

/// `a` as `i64`, [`NONE`] as `-1`.
fn to_i64(a: &[u32]) -> Vec<i64> {
    a.par_iter().map(|&x| if x == NONE { -1 } else { i64::from(x) }).collect()
}

/// Checks that `v` is a vertex of `g`; `what` names it in the error ("source", "target").
pub(crate) fn check_vertex<A: Adjacency>(g: &A, v: Vertex, what: &str) -> Result<()> {
    if (v as usize) < g.num_vertices() {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "{what} vertex {v} out of range (graph has {} vertices)",
            g.num_vertices()
        )))
    }
}

/// Checks that the two directions describe the same vertex set.
pub(crate) fn check_directions<O: Adjacency, I: Adjacency>(out: &O, in_: &I) -> Result<()> {
    if out.num_vertices() == in_.num_vertices() {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "out- and in-direction disagree on the vertex count ({} vs {})",
            out.num_vertices(),
            in_.num_vertices()
        )))
    }
}

/// Bytes per vertex BFS makes sure are available before it starts: parents, depths, the
/// frontier bitmaps, the stash and the result's 64-bit copies (its frontier lists come on top).
pub const BFS_STATE_BYTES: u64 = 32;

/// Direction-optimising BFS from `source` following out-edges; `in_` gives the in-edges (pass
/// the same adjacency twice for an undirected graph). Runs on the current rayon pool.
///
/// Errors: `source` out of range, or `out` and `in_` with different vertex counts.
pub fn bfs<O: Adjacency, I: Adjacency>(out: &O, in_: &I, source: Vertex) -> Result<BfsResult> {
    bfs_with_stash(out, in_, source, STASH_BYTES_PER_VERTEX * out.num_vertices())
}

/// [`bfs`] that looks for parents among the vertices' hubs before reading their in-lists, in
/// its bottom-up steps (`hubs`: the hub index of the graph `out` and `in_` read, see the module
/// comment); `None`: [`bfs`].
///
/// Errors: as [`bfs`], or `hubs` not of these lists (see [`Hubs::indexes`]).
pub fn bfs_with_hubs<O: Adjacency, I: Adjacency>(
    out: &O,
    in_: &I,
    hubs: Option<&Hubs<'_>>,
    source: Vertex,
) -> Result<BfsResult> {
    if let Some(h) = hubs {
        check_hubs(h, out)?;
        check_hubs(h, in_)?;
    }
    run(out, in_, hubs, source, STASH_BYTES_PER_VERTEX * out.num_vertices())
}

/// Checks that the hub index `hubs` is of the lists `lists` read with it: the same vertex
/// count, and the same graph where `lists` names its lists ([`Hubs::indexes`]).
pub(crate) fn check_hubs<A: Adjacency>(hubs: &Hubs<'_>, lists: &A) -> Result<()> {
    let n = lists.num_vertices();
    if hubs.num_vertices() != n {
        return Err(Error::invalid(format!(
            "the hub index has {} vertices, the lists {n}",
            hubs.num_vertices()
        )));
    }
    if !hubs.indexes(lists) {
        return Err(Error::invalid(
            "the hub index is not of these lists (of another graph, or of the base of a snapshot \
             with updates, which it does not hold)",
        ));
    }
    Ok(())
}

/// [`bfs`] that keeps at most `stash_bytes` of unvisited vertices' lists in memory (0: none,
/// every step reads the graph).
///
/// Errors: as [`bfs`].
pub fn bfs_with_stash<O: Adjacency, I: Adjacency>(
    out: &O,
    in_: &I,
    source: Vertex,
    stash_bytes: usize,
) -> Result<BfsResult> {
    run(out, in_, None, source, stash_bytes)
}

/// [`bfs_with_stash`] with an optional hub index for the bottom-up steps.
fn run<O: Adjacency, I: Adjacency>(
    out: &O,
    in_: &I,
    hubs: Option<&Hubs<'_>>,
    source: Vertex,
    stash_bytes: usize,
) -> Result<BfsResult> {
    check_vertex(out, source, "source")?;
    check_directions(out, in_)?;
    let n = out.num_vertices();
    crate::state::check_state("bfs", n, BFS_STATE_BYTES)?;
    let parent: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(NONE)).collect();
    let depth: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(NONE)).collect();
    parent[source as usize].store(source, Relaxed);
    depth[source as usize].store(0, Relaxed);

    let mut queue = vec![source];
    let mut edges_to_check = out.num_arcs();
    let mut scout = out.degree(source) as u64;
    let mut level = 0u32;
    let mut bitmaps: Option<(Bitmap, Bitmap)> = None;
    let blocks = vertex_blocks(n);
    // In-lists serve as out-lists for the top-down steps when the graph is undirected.
    let symmetric = out.lists_id().is_some() && out.lists_id() == in_.lists_id();
    let mut stash: Option<ListStash> = None;
    while !queue.is_empty() {
        if scout > edges_to_check / ALPHA {
            if bitmaps.is_none() && hubs.is_none() {
                // The first bottom-up step: its scans split the in-lists at the blocks (with a
                // hub index it reads a few lists, not ranges of them).
                mark_cuts(in_, &blocks);
            }
            let (front, next) = bitmaps.get_or_insert_with(|| (Bitmap::new(n), Bitmap::new(n)));
            front.clear();
            queue.par_iter().for_each(|&v| front.set(v));
            let mut awake = queue.len() as u64;
            loop {
                let old_awake = awake;
                next.clear();
                awake = match &mut stash {
                    Some(s) => s.bottom_up(&parent, &depth, front, next, level),
                    None => {
                        let step = Step { parent: &parent, depth: &depth, front, next, level };
                        let (awake, kept) = match hubs {
                            Some(h) => hubs_bottom_up_step(in_, h, &blocks, &step, stash_bytes),
                            None => bottom_up_step(in_, &blocks, &step, stash_bytes),
                        };
                        stash = kept;
                        awake
                    }
                };
                level += 1;
                std::mem::swap(front, next);
                if awake < old_awake && awake <= n as u64 / BETA {
                    break;
                }
            }
            queue = front.to_sorted_vec();
            scout = 1;
        } else {
            edges_to_check = edges_to_check.saturating_sub(scout);
            if queue.len() >= PAR_SORT_MIN {
                queue.par_sort_unstable();
            } else {
                queue.sort_unstable();
            }
            let lists = stash.as_ref().filter(|_| symmetric);
            let (next, found_edges) = top_down_step(out, lists, &queue, &parent, &depth, level);
            queue = next;
            scout = found_edges;
            level += 1;
        }
    }
    // The same allocations, as plain integers (an in-place collect).
    let plain = |a: Vec<AtomicU32>| -> Vec<u32> { a.into_iter().map(AtomicU32::into_inner).collect() };
    Ok(BfsResult { depth: plain(depth), parent: plain(parent) })
}

/// Expands the sorted `frontier` at depth `level`; returns the next frontier and the sum of its
/// out-degrees. `stash`, given for an undirected graph, holds the lists of the frontier and of
/// the vertices it finds (all were unvisited when it was made); vertices it lacks are read.
fn top_down_step<O: Adjacency>(
    out: &O,
    stash: Option<&ListStash>,
    frontier: &[Vertex],
    parent: &[AtomicU32],
    depth: &[AtomicU32],
    level: u32,
) -> (Vec<Vertex>, u64) {
    let chunk = (frontier.len() / (rayon::current_num_threads() * 8)).clamp(16, 1024);
    let one_task = frontier.len() <= chunk;
    // Claims the unvisited vertices of `nbrs` for `u`, appending them to `found`.
    let claim = |u: Vertex, nbrs: &[Vertex], found: &mut Vec<Vertex>| {
        for &v in nbrs {
            let p = &parent[v as usize];
            if p.load(Relaxed) == NONE && p.compare_exchange(NONE, u, Relaxed, Relaxed).is_ok() {
                depth[v as usize].store(level + 1, Relaxed);
                found.push(v);
            }
        }
    };
    let parts: Vec<(Vec<Vertex>, u64)> = frontier
        .par_chunks(chunk)
        .map(|vs| {
            let mut found = Vec::new();
            let mut expand = |u: Vertex, nbrs: &[Vertex]| {
                if nbrs.len() < SPLIT_LIST || !one_task {
                    return claim(u, nbrs, &mut found);
                }
                // A hub's list in a small frontier (the source's, typically) is claimed by all
                // threads, in pieces. Only when the frontier is one task: a thread waiting for
                // the pieces then cannot steal another task and pin more pages while it holds
                // this list's.
                let pieces: Vec<Vec<Vertex>> = nbrs
                    .par_chunks(SPLIT_LIST / 4)
                    .map(|piece| {
                        let mut f = Vec::new();
                        claim(u, piece, &mut f);
                        f
                    })
                    .collect();
                pieces.iter().for_each(|f| found.extend_from_slice(f));
            };
            let Some(stash) = stash else {
                out.for_each_of(vs, expand);
                let edges = scout_count(out, &found);
                return (found, edges);
            };
            let mut unstashed = Vec::new();
            let mut lookup = stash.sorted_lookup();
            for &u in vs {
                match lookup.list(u) {
                    Some(nbrs) => expand(u, nbrs),
                    None => unstashed.push(u),
                }
            }
            out.for_each_of(&unstashed, expand);
            unstashed.clear();
            let mut edges = 0;
            for &v in &found {
                match stash.list(v) {
                    Some(nbrs) => edges += nbrs.len() as u64,
                    None => unstashed.push(v),
                }
            }
            (found, edges + scout_count(out, &unstashed))
        })
        .collect();
    let edges = parts.iter().map(|p| p.1).sum();
    let mut next = Vec::with_capacity(parts.iter().map(|p| p.0.len()).sum());
    for (found, _) in parts {
        next.extend_from_slice(&found);
    }
    (next, edges)
}

/// The out-degrees of `vertices` summed (estimated, see [`Adjacency::estimated_degree_sum`]), on
/// all threads when they are many.
fn scout_count<O: Adjacency>(out: &O, vertices: &[Vertex]) -> u64 {
    if vertices.len() < SPLIT_LIST {
        return out.estimated_degree_sum(vertices);
    }
    vertices.par_chunks(SPLIT_LIST / 4).map(|vs| out.estimated_degree_sum(vs)).sum()
}

/// The state a bottom-up step reads and writes: parents and depths (the unvisited have no
/// parent), the frontier at depth `level`, and the bitmap of the vertices it finds.
struct Step<'a> {
    parent: &'a [AtomicU32],
    depth: &'a [AtomicU32],
    front: &'a Bitmap,
    next: &'a Bitmap,
    level: u32,
}

impl Step<'_> {
    fn unvisited(&self, v: Vertex) -> bool {
        self.parent[v as usize].load(Relaxed) == NONE
    }

    /// Makes `w` a child of the first vertex of `nbrs` in the frontier, if any; returns whether
    /// it found one. The caller's thread owns `w`'s word of `next` (blocks are multiples of 64
    /// vertices).
    fn adopt(&self, w: Vertex, nbrs: &[Vertex]) -> bool {
        let found = self.claim(w, nbrs);
        if found {
            self.next.set_in_owned_word(w);
        }
        found
    }

    /// [`Step::adopt`] for a `w` whose word of `next` other threads may write too.
    fn adopt_shared(&self, w: Vertex, nbrs: &[Vertex]) -> bool {
        let found = self.claim(w, nbrs);
        if found {
            self.next.set(w);
        }
        found
    }

    /// Sets `w`'s parent and depth from the first vertex of `nbrs` in the frontier, if any.
    fn claim(&self, w: Vertex, nbrs: &[Vertex]) -> bool {
        let Some(&u) = nbrs.iter().find(|&&u| self.front.get(u)) else { return false };
        self.parent[w as usize].store(u, Relaxed);
        self.depth[w as usize].store(self.level + 1, Relaxed);
        true
    }
}

/// One bottom-up step from the graph: every unvisited vertex looks for an in-neighbour in
/// the frontier. Returns the number of vertices found (they are set in `next`) and, when they
/// fit in `stash_bytes`, the lists of the vertices left unvisited.
fn bottom_up_step<I: Adjacency>(
    in_: &I,
    blocks: &[std::ops::Range<Vertex>],
    step: &Step<'_>,
    stash_bytes: usize,
) -> (u64, Option<ListStash>) {
    let builder = StashBuilder::new(stash_bytes);
    let per_thread = in_order(
        blocks.to_vec(),
        || (0u64, Vec::new()),
        |(awake, parts): &mut (u64, Vec<Part>), block| {
            // Scan from the block's first unvisited vertex to its last, fetching only the lists
            // of unvisited vertices (so long stretches of visited vertices cost no reads).
            let Some(first) = block.clone().find(|&v| step.unvisited(v)) else { return };
            let last = (first..block.end).rev().find(|&v| step.unvisited(v)).unwrap_or(first);
            let mut part = Part::new(block.start);
            in_.for_each_selected_in_range(
                first..last + 1,
                |v| step.unvisited(v),
                |w, nbrs| {
                    if step.adopt(w, nbrs) {
                        *awake += 1;
                    } else {
                        builder.keep(&mut part, w, nbrs);
                    }
                },
            );
            builder.close(&mut part);
            parts.push(part);
        },
    );
    let awake = per_thread.iter().map(|(a, _)| a).sum();
    (awake, builder.finish(per_thread.into_iter().flat_map(|(_, parts)| parts)))
}

/// [`bottom_up_step`] that looks among each unvisited vertex's hubs first, in one pass over the
/// hub index, then reads the in-lists of the vertices not found whose in-lists hold more than
/// their hubs, [`READ_TOGETHER`] at a time, announced to the page layer first so that their
/// reads overlap ([`Adjacency::will_need_lists`]). Lists left unvisited are stashed in vertex order: the whole
/// lists from the hubs, the others as read.
fn hubs_bottom_up_step<I: Adjacency>(
    in_: &I,
    hubs: &Hubs<'_>,
    blocks: &[std::ops::Range<Vertex>],
    step: &Step<'_>,
    stash_bytes: usize,
) -> (u64, Option<ListStash>) {
    // Per block: the unvisited vertices not found whose hubs are their whole list, and those
    // whose lists are to be read.
    let per_thread = in_order(
        blocks.to_vec(),
        || (0u64, Vec::new()),
        |(awake, left): &mut (u64, Vec<(Part, Vec<Vertex>)>), block| {
            let Some(first) = block.clone().find(|&v| step.unvisited(v)) else { return };
            let (mut whole, mut to_read) = (Part::new(block.start), Vec::new());
            hubs.for_each_in_range(first..block.end, |w, h, more| {
                if !step.unvisited(w) || h.is_empty() {
                    return;
                }
                if step.adopt(w, h) {
                    *awake += 1;
                } else if more {
                    to_read.push(w);
                } else {
                    whole.push(w, h);
                }
            });
            left.push((whole, to_read));
        },
    );
    let mut awake: u64 = per_thread.iter().map(|(a, _)| a).sum();
    let mut blocks: Vec<(Part, Vec<Vertex>)> = per_thread.into_iter().flat_map(|(_, b)| b).collect();
    blocks.sort_unstable_by_key(|(whole, _)| whole.block());
    let to_read: Vec<Vertex> = blocks.iter().flat_map(|(_, r)| r.iter().copied()).collect();
    let read: Vec<(u64, Part)> = to_read
        .par_chunks(READ_TOGETHER)
        .map(|vs| {
            in_.will_need_lists(vs);
            let (mut awake, mut left) = (0, Part::new(vs[0]));
            in_.for_each_of(vs, |w, nbrs| {
                // Another task may own the bitmap word of `w`: set it atomically.
                if step.adopt_shared(w, nbrs) {
                    awake += 1;
                } else if !nbrs.is_empty() {
                    left.push(w, nbrs);
                }
            });
            (awake, left)
        })
        .collect();
    awake += read.iter().map(|(a, _)| a).sum::<u64>();
    // Stash the lists left, block by block in vertex order.
    let builder = StashBuilder::new(stash_bytes);
    let mut read = read.iter().flat_map(|(_, part)| part.iter()).peekable();
    let mut parts = Vec::with_capacity(blocks.len());
    for (whole, _) in &blocks {
        let end = whole.block().saturating_add(crate::chunks::VERTEX_BLOCK);
        let mut part = Part::new(whole.block());
        let mut ours = whole.iter().peekable();
        loop {
            let take_read = match (ours.peek(), read.peek()) {
                (_, Some(&(r, _))) if r >= end => false,
                (Some(&(o, _)), Some(&(r, _))) => r < o,
                (None, Some(_)) => true,
                (_, None) => false,
            };
            let next = if take_read { read.next() } else { ours.next() };
            let Some((w, nbrs)) = next else { break };
            builder.keep(&mut part, w, nbrs);
        }
        builder.close(&mut part);
        parts.push(part);
    }
    (awake, builder.finish(parts))
}

/// Serial check of a BFS result: lengths; the source has depth 0 and is its own parent;
/// unreachable vertices have depth and parent [`BfsResult::UNREACHED`]; every other vertex's parent is an
/// in-neighbour one level up; and every out-edge `(u, v)` from a reached `u` reaches `v` with
/// `depth[v] <= depth[u] + 1`. Together these force every depth to be the true hop distance.
pub fn verify_bfs<O: Adjacency>(out: &O, source: Vertex, result: &BfsResult) -> Result<(), String> {
    let n = out.num_vertices();
    let (depth, parent) = (&result.depth, &result.parent);
    if depth.len() != n || parent.len() != n {
        return Err(format!(
            "result has {} depths and {} parents for {n} vertices",
            depth.len(),
            parent.len()
        ));
    }
    if (source as usize) >= n {
        return Err(format!("source {source} out of range"));
    }
    if depth[source as usize] != 0 || parent[source as usize] != source {
        return Err(format!(
            "source {source} has depth {} and parent {} (want 0 and itself)",
            depth[source as usize], parent[source as usize]
        ));
    }
    for v in 0..n {
        let (d, p) = (depth[v], parent[v]);
        if d == NONE || p == NONE {
            if d != p {
                return Err(format!("vertex {v}: depth {d}, parent {p} (unreachable needs both unset)"));
            }
            continue;
        }
        if v == source as usize {
            continue;
        }
        if p as usize >= n {
            return Err(format!("vertex {v}: parent {p} out of range"));
        }
        if d == 0 || depth[p as usize] != d - 1 {
            return Err(format!("vertex {v} at depth {d} has parent {p} at depth {}", depth[p as usize]));
        }
    }
    // Each list is read once: a vertex's parent is found in the parent's list as the lists are
    // scanned (looking each one up in its parent's list would read a hub's list once per child,
    // through a pool smaller than that list a page read per arc).
    let parent_seen = Bitmap::new(n);
    for u in 0..n as Vertex {
        let du = depth[u as usize];
        if du == NONE {
            continue;
        }
        for &v in out.neighbors(u).iter() {
            let dv = depth[v as usize];
            if dv == NONE || dv > du + 1 {
                return Err(format!("edge ({u}, {v}): depths {du} and {dv}"));
            }
            if parent[v as usize] == u {
                parent_seen.set(v);
            }
        }
    }
    match (0..n as Vertex).find(|&v| v != source && parent[v as usize] != NONE && !parent_seen.get(v)) {
        Some(v) => Err(format!("vertex {v}: parent {} is not an in-neighbour", parent[v as usize])),
        None => Ok(()),
    }
}
