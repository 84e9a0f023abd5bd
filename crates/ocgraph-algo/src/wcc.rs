//! Weakly connected components.
//!
//! Returns one label per vertex: the smallest vertex id of its component (so results from
//! different algorithms and runs compare directly). Arc direction is ignored.
//!
//! Algorithm: Afforest (M. Sutton, T. Ben-Nun, A. Barak, "Optimizing Parallel Graph Connectivity
//! Computation via Subgraph Sampling", IPDPS 2018), as in the GAP Benchmark Suite: a concurrent
//! union-find forest in which a root is only ever linked below a *smaller* root with a
//! compare-and-swap (so the final root of a component is its smallest vertex). First the first
//! two out-neighbours of every vertex are linked (two passes, each followed by path
//! compression); then the most frequent component among 1024 sampled vertices (usually the giant
//! one) is skipped while the remaining arcs are linked: the rest of each out-list plus, so that
//! arcs from skipped vertices are not lost, the whole in-list. All passes scan contiguous vertex
//! ranges, handed to the caller's rayon pool in vertex order.
//!
//! Out of core, every pass over the lists costs a read of the graph, so (unlike GAPBS) the two
//! sampling rounds share one scan (each vertex links its first two neighbours in turn; the
//! union-find result is the same), the last phase reads only the out-lists with arcs left (more
//! than two, recorded in a bitmap during the first scan: one bit per vertex) of vertices outside
//! the skipped component ([`Adjacency::for_each_of`]), and
//! when `in_` serves the same lists as `out` (an undirected graph, [`Adjacency::lists_id`]) the
//! in-list pass is left out: each arc from a skipped vertex is then also an out-arc of its other
//! end, which is linked from there unless that end is skipped too (and so already connected).
//! On kron20 with the pool at 10% (3 trials, 2 threads) this cut the bytes read from 2.5 GB to
//! 0.95 GB and the time from 0.40 s to 0.17 s (`bench/algos/run.py` against GAPBS).
//!
//! With a hub index (`ocgraph layout hubs`, [`wcc_with_hubs`]) the sampling phase links each
//! vertex to its hubs (its in-neighbours of highest out-degree) read from the index, 12 bytes
//! per vertex, instead of scanning the lists; the last phase then reads only the in-lists of
//! the vertices outside the skipped component whose in-lists hold more than their hubs (and, in a
//! directed graph, their out-lists). On a power-law graph nearly every vertex with a list
//! longer than its hubs joins the giant component through them, so the lists are hardly read.

use std::cmp::Reverse;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use ocgraph_core::{Adjacency, Hubs, Result, Vertex};
use rayon::prelude::*;

use crate::bfs::{check_directions, check_hubs};
use crate::bitmap::Bitmap;
use crate::chunks::{in_order, mark_cuts, vertex_blocks};

/// Out-neighbours per vertex linked in the sampling phase.
const NEIGHBOR_ROUNDS: usize = 2;
/// Vertices sampled to find the most frequent component.
const SAMPLES: usize = 1024;

/// Links the trees of `u` and `v` (GAPBS Afforest `Link`): the larger root goes under the
/// smaller one.
pub(crate) fn link(u: Vertex, v: Vertex, comp: &[AtomicU32]) {
    let get = |x: Vertex| comp[x as usize].load(Relaxed);
    let (mut p1, mut p2) = (get(u), get(v));
    while p1 != p2 {
        let (high, low) = if p1 > p2 { (p1, p2) } else { (p2, p1) };
        let p_high = get(high);
        if p_high == low {
            break;
        }
        if p_high == high && comp[high as usize].compare_exchange(high, low, Relaxed, Relaxed).is_ok() {
            break;
        }
        p1 = get(get(high));
        p2 = get(low);
    }
}

/// Points every vertex directly at its root.
pub(crate) fn compress(comp: &[AtomicU32]) {
    comp.par_iter().for_each(|c| loop {
        let p = c.load(Relaxed);
        let pp = comp[p as usize].load(Relaxed);
        if p == pp {
            break;
        }
        c.store(pp, Relaxed);
    });
}

/// The most frequent label among [`SAMPLES`] pseudo-random vertices (fixed seed).
fn most_frequent(comp: &[AtomicU32]) -> Vertex {
    let mut counts: HashMap<Vertex, usize> = HashMap::new();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..SAMPLES {
        // xorshift64
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let v = (x % comp.len() as u64) as usize;
        *counts.entry(comp[v].load(Relaxed)).or_default() += 1;
    }
    counts.into_iter().max_by_key(|&(label, c)| (c, Reverse(label))).map(|(label, _)| label).unwrap_or(0)
}

/// Bytes per vertex WCC makes sure are available before it starts: labels, a bit per vertex,
/// and the result's copy, rounded up.
pub const WCC_STATE_BYTES: u64 = 16;

/// Afforest weakly connected components of the graph with out-edges `out` and in-edges `in_`
/// (pass the same adjacency twice for an undirected graph). Label = smallest vertex id of the
/// component. Runs on the current rayon pool.
///
/// Errors: `out` and `in_` with different vertex counts.
pub fn wcc<O: Adjacency, I: Adjacency>(out: &O, in_: &I) -> Result<Vec<Vertex>> {
    check_directions(out, in_)?;
    let n = out.num_vertices();
    crate::state::check_state("wcc", n, WCC_STATE_BYTES)?;
    if n == 0 {
        return Ok(Vec::new());
    }
    let comp: Vec<AtomicU32> = (0..n as Vertex).map(AtomicU32::new).collect();
    // Vertices with more out-neighbours than the sampling phase links: the only ones whose
    // out-lists the last phase reads.
    let longer = Bitmap::new(n);
    let blocks = vertex_blocks(n);
    mark_cuts(out, &blocks);
    in_order(
        blocks.clone(),
        || (),
        |_, b| {
            out.for_each_in_range(b, |v, nbrs| {
                nbrs.iter().take(NEIGHBOR_ROUNDS).for_each(|&u| link(v, u, &comp));
                if nbrs.len() > NEIGHBOR_ROUNDS {
                    // Blocks are multiples of 64 vertices: this thread owns `v`'s word.
                    longer.set_in_owned_word(v);
                }
            })
        },
    );
    Ok(link_the_rest(comp, &longer, (out, NEIGHBOR_ROUNDS), in_, blocks))
}

/// Afforest's last phase, after the sampling linked the first `linked` arcs of every list of
/// `first` (and set in `longer` the vertices whose lists hold more): skips the most frequent
/// component and links the rest of the `first` lists of the vertices in `longer` outside it
/// (only those lists are read, their offsets and lists through one cursor each) and, when
/// `second` serves other lists (a directed graph), the whole `second` lists of all the vertices
/// outside it. Returns the labels.
fn link_the_rest<A: Adjacency, B: Adjacency>(
    comp: Vec<AtomicU32>,
    longer: &Bitmap,
    (first, linked): (&A, usize),
    second: &B,
    blocks: Vec<std::ops::Range<Vertex>>,
) -> Vec<Vertex> {
    compress(&comp);
    let giant = most_frequent(&comp);
    let skip = |v: Vertex| comp[v as usize].load(Relaxed) == giant;
    let symmetric = first.lists_id().is_some() && first.lists_id() == second.lists_id();
    if !symmetric {
        mark_cuts(second, &blocks);
    }
    in_order(blocks, Vec::new, |rest: &mut Vec<Vertex>, b| {
        rest.clear();
        rest.extend(b.clone().filter(|&v| longer.get(v) && !skip(v)));
        first.for_each_of(rest, |x, nbrs| nbrs.iter().skip(linked).for_each(|&u| link(x, u, &comp)));
        if !symmetric {
            let keep = |v: Vertex| !skip(v);
            second
                .for_each_selected_in_range(b, keep, |x, nbrs| nbrs.iter().for_each(|&u| link(x, u, &comp)));
        }
    });
    compress(&comp);
    comp.into_par_iter().map(AtomicU32::into_inner).collect()
}

/// [`wcc`] that samples each vertex's hubs from the hub index `hubs` of the graph `out` and
/// `in_` read (see the module comment) instead of its first out-neighbours.
///
/// Errors: as [`wcc`], or `hubs` not of these lists (see [`Hubs::indexes`]).
pub fn wcc_with_hubs<O: Adjacency, I: Adjacency>(out: &O, in_: &I, hubs: &Hubs<'_>) -> Result<Vec<Vertex>> {
    check_directions(out, in_)?;
    let n = out.num_vertices();
    crate::state::check_state("wcc", n, WCC_STATE_BYTES)?;
    check_hubs(hubs, out)?;
    check_hubs(hubs, in_)?;
    if n == 0 {
        return Ok(Vec::new());
    }
    let comp: Vec<AtomicU32> = (0..n as Vertex).map(AtomicU32::new).collect();
    // Vertices whose in-lists hold more than their hubs.
    let longer = Bitmap::new(n);
    let blocks = vertex_blocks(n);
    in_order(
        blocks.clone(),
        || (),
        |_, b| {
            hubs.for_each_in_range(b, |v, h, more| {
                h.iter().for_each(|&u| link(v, u, &comp));
                if more {
                    // Blocks are multiples of 64 vertices: this thread owns `v`'s word.
                    longer.set_in_owned_word(v);
                }
            })
        },
    );
    // The hubs are the in-lists' linked arcs, in no particular place of the lists: the rest
    // phase links whole in-lists.
    Ok(link_the_rest(comp, &longer, (in_, 0), out, blocks))
}

/// Serial union-find over the out-arcs of `g`: the number of weakly connected components.
pub fn count_components_serial<A: Adjacency>(g: &A) -> usize {
    let n = g.num_vertices();
    let mut parent: Vec<Vertex> = (0..n as Vertex).collect();
    fn find(parent: &mut [Vertex], mut x: Vertex) -> Vertex {
        while parent[x as usize] != x {
            let up = parent[parent[x as usize] as usize];
            parent[x as usize] = up;
            x = up;
        }
        x
    }
    let mut count = n;
    for u in 0..n as Vertex {
        for &v in g.neighbors(u).iter() {
            let (a, b) = (find(&mut parent, u), find(&mut parent, v));
            if a != b {
                parent[a.max(b) as usize] = a.min(b);
                count -= 1;
            }
        }
    }
    count
}

/// Checks WCC labels: one per vertex; every arc joins equal labels; each label is a vertex
/// labelled with itself and no larger than the vertices it labels; and the number of labels
/// equals [`count_components_serial`]. Together: labels are exactly the components, each named
/// by its smallest vertex.
pub fn verify_wcc<A: Adjacency>(out: &A, labels: &[Vertex]) -> Result<(), String> {
    let n = out.num_vertices();
    if labels.len() != n {
        return Err(format!("{} labels for {n} vertices", labels.len()));
    }
    let mut distinct = 0usize;
    for (v, &l) in labels.iter().enumerate() {
        if l as usize > v || labels[l as usize] != l {
            return Err(format!("vertex {v} has label {l}, which is not its component's smallest vertex"));
        }
        if l as usize == v {
            distinct += 1;
        }
        for &u in out.neighbors(v as Vertex).iter() {
            if labels[u as usize] != l {
                return Err(format!("arc {v} -> {u} joins labels {l} and {}", labels[u as usize]));
            }
        }
    }
    let expected = count_components_serial(out);
    if distinct != expected {
        return Err(format!("{distinct} labels, but union-find finds {expected} components"));
    }
    Ok(())
}
