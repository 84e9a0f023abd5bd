//! [`reorder`]: a copy of a stored graph with its vertices renumbered in descending order of
//! degree (hubs first, ties in the old order).
//!
//! Why: a kernel that reads a value per neighbour (PageRank's contributions, BFS's parents and
//! frontier bitmaps, components' labels) touches those values at random. On a skewed graph most
//! arcs lead to a few hubs; numbered first, the hubs' values share a few cache lines and pages,
//! and neighbour lists hold smaller ids in smaller gaps (packed lists shrink further). On kron22
//! PageRank-20 in memory runs 1.8x faster on the reordered copy (`bench/algos/run.py`,
//! `docs/benchmarks.md`).
//! Graphs whose given order already keeps neighbours close (road networks, crawl-ordered web
//! graphs) get slower.
//!
//! The copy keeps the original ids: new vertex `p` is old vertex `order[p]`, and its original id
//! (`ids.u64`, or the strings of a string-id graph) and its label, if the graph has labels, are
//! those of `order[p]` in the source; it takes updates like any graph. The source is checked
//! against its checksums first (`verify_source`).
//!
//! How: the degrees give the order; the source's lists are then read once in file order and
//! their arcs, renumbered, go to the budgeted [`GraphBuilder`] (an in-memory sort within the
//! budget, sorted runs on disk and a merge beyond it), so a graph larger than memory is read
//! sequentially. Memory: 8 B per vertex of degrees while ordering, then 8 B per vertex (the
//! order and its inverse) and the builder's budget, then the original ids (8 B per vertex, or
//! the strings).

use std::cmp::Reverse;
use std::path::Path;

use rayon::prelude::*;

use super::builder::{BuildOptions, GraphBuilder, IdMap, LabelSource};
use super::pack::{open_base, verify_source};
use super::progress::{Progress, Unit};
use crate::error::Result;
use crate::format::{refuse_inside_graph, IdMapKind};
use crate::graph::{Adjacency, Direction, Graph, Vertex};
use crate::ids::OriginalId;

/// Old vertices whose arcs are renumbered between two pushes to the builder.
const BLOCK: Vertex = 1 << 16;

/// What a reordered copy's manifest `source` ends with.
pub const REORDERED: &str = " (reordered by degree)";

/// Whether the graph of manifest `m` is a copy `reorder` wrote (or a compaction of one).
pub fn is_reordered(m: &crate::format::Manifest) -> bool {
    m.source.contains(REORDERED)
}

/// Writes `dst`, a copy of `src` with its vertices renumbered in descending order of degree
/// (out + in for a directed graph), atomically; `overwrite` replaces an existing `dst`;
/// `memory` is the builder's budget in bytes. The lists are written plain (`ocgraph pack`
/// packs the copy). Returns the arcs of the copy's out-lists. A graph with updates not yet
/// compacted is refused.
pub fn reorder(src: &Path, dst: &Path, memory: u64, overwrite: bool, progress: &dyn Progress) -> Result<u64> {
    refuse_inside_graph(src, dst, "destination")?;
    verify_source(src)?;
    let g = open_base(src, "reordering")?;
    let m = g.manifest();
    let n = g.num_vertices();
    let order = degree_order(&g);
    let mut new_id = vec![0 as Vertex; n];
    for (p, &u) in order.iter().enumerate() {
        new_id[u as usize] = p as Vertex;
    }
    let opts = BuildOptions {
        directed: m.directed,
        weighted: m.weighted,
        dedup: false,
        drop_self_loops: false,
        memory,
        overwrite,
        source: format!("{}{REORDERED}", m.source),
    };
    let mut b = GraphBuilder::new(dst, opts)?;
    b.reserve_vertices(n as u64);
    progress.phase("renumber", Some(g.num_arcs()), Unit::Edges);
    push_renumbered(&g.out(), !m.directed, m.weighted, &new_id, &mut b, progress)?;
    drop(new_id);
    let ids = g.ids()?;
    let originals = order.iter().map(|&u| ids.original(u));
    let id_map = match m.id_map {
        IdMapKind::Strings => IdMap::Strings(originals.map(|o| o.to_string()).collect()),
        _ => IdMap::U64(
            originals
                .map(|o| match o {
                    OriginalId::Int(i) => i,
                    OriginalId::Str(_) => unreachable!("integer id maps hold integers"),
                })
                .collect(),
        ),
    };
    if let Some(labels) = g.labels()? {
        b.set_labels(LabelSource::Values(order.iter().map(|&u| labels[u as usize]).collect()));
    }
    drop(order);
    Ok(b.finish(id_map, progress)?.num_arcs)
}

/// The vertices in descending order of degree (out + in when directed), ties by id.
fn degree_order(g: &Graph) -> Vec<Vertex> {
    let n = g.num_vertices();
    let mut degree = vec![0u64; n];
    let mut add = |dir: Direction<'_>| {
        dir.for_each_degree_in_range(0..n as Vertex, |v, d| degree[v as usize] += d as u64);
    };
    add(g.out());
    if g.is_directed() {
        add(g.in_());
    }
    let mut order: Vec<Vertex> = (0..n as Vertex).collect();
    order.par_sort_by_key(|&v| (Reverse(degree[v as usize]), v));
    order
}

/// Reads `out`'s lists in file order and pushes every arc, renumbered by `new_id`, to `b`
/// (with its weight when `weighted`). For an undirected graph (`undirected`) each edge goes
/// once (from its smaller old end; a self-loop once): the builder stores both arcs.
fn push_renumbered(
    out: &Direction<'_>,
    undirected: bool,
    weighted: bool,
    new_id: &[Vertex],
    b: &mut GraphBuilder,
    progress: &dyn Progress,
) -> Result<()> {
    let n = new_id.len() as Vertex;
    let (mut src, mut dst, mut wts) = (Vec::new(), Vec::new(), Vec::new());
    for lo in (0..n).step_by(BLOCK as usize) {
        let mut arcs = 0;
        out.for_each_weighted_in_range(lo..lo.saturating_add(BLOCK).min(n), |u, nbrs, ws| {
            arcs += nbrs.len() as u64;
            for (&x, &w) in nbrs.iter().zip(ws) {
                if !undirected || u <= x {
                    src.push(new_id[u as usize]);
                    dst.push(new_id[x as usize]);
                    if weighted {
                        wts.push(w);
                    }
                }
            }
        });
        b.push(&src, &dst, weighted.then_some(&wts[..]))?;
        src.clear();
        dst.clear();
        wts.clear();
        progress.advance(arcs);
    }
    Ok(())
}
