//! [`reorder`]: a copy of a stored graph with its vertices renumbered in descending order of
//! degree (hubs first, ties in the old order).
//!
//! Why: a kernel that reads a value per neighbour (PageRank's contributions, BFS's parents and
//! frontier bitmaps, components' labels) touches those values at random. On a skewed graph most
//! arcs lead to a few hubs; numbered first, the hubs' values share a few cache lines and pages,
//! and neighbour lists hold smaller ids in smaller gaps (packed lists shrink further). On kron22
//! PageRank-20 in memory runs 1.8x faster on the reordered copy (`bench/RESULTS.md`, session 11).
//! Graphs whose given order already keeps neighbours close (road networks, crawl-ordered web
//! graphs) get slower.
//!
//! The copy keeps the original ids: new vertex `p` is old vertex `order[p]`, and its original id
//! (`ids.u64`, or the strings of a string-id graph) is that of `order[p]` in the source. Like every
//! relabelled graph it is read-only. Memory: 16 B per vertex (degrees, the order, the inverse
//! map) plus the original ids (8 B per vertex, or the strings), and one block of lists.

use std::cmp::Reverse;
use std::path::Path;

use rayon::prelude::*;

use super::builder::{write_ids, IdMap};
use super::pack::open_base;
use super::progress::{Progress, Unit};
use crate::error::{Error, Result};
use crate::format::{FileRole, GraphWriter};
use crate::graph::{Adjacency, Direction, Graph, Vertex};
use crate::ids::OriginalId;

/// New vertices whose lists are built between two writes.
const BLOCK: usize = 1 << 16;

/// Writes `dst`, a copy of `src` with its vertices renumbered in descending order of degree
/// (out + in for a directed graph), atomically; `overwrite` replaces an existing `dst`. The
/// lists are written plain (`ocgraph pack` packs the copy). Returns the arcs written (both
/// directions of a directed graph). A graph with updates not yet compacted is refused.
pub fn reorder(src: &Path, dst: &Path, overwrite: bool, progress: &dyn Progress) -> Result<u64> {
    let g = open_base(src, "reordering")?;
    let m = g.manifest();
    let n = g.num_vertices();
    let order = degree_order(&g);
    let mut new_id = vec![0 as Vertex; n];
    for (p, &u) in order.iter().enumerate() {
        new_id[u as usize] = p as Vertex;
    }
    let mut w = GraphWriter::create(dst, overwrite)?;
    let mut sides = vec![(g.out(), [FileRole::OutOffsets, FileRole::OutNeighbors, FileRole::OutWeights])];
    if m.directed {
        sides.push((g.in_(), [FileRole::InOffsets, FileRole::InNeighbors, FileRole::InWeights]));
    }
    let mut arcs = 0;
    for (dir, roles) in sides {
        progress.phase("reorder", Some(g.num_arcs()), Unit::Edges);
        arcs += write_side(&dir, &order, &new_id, &mut w, roles, progress)?;
    }
    drop(new_id);
    let ids = g.ids()?;
    let originals = order.iter().map(|&u| ids.original(u));
    let id_map = match m.id_map {
        crate::format::IdMapKind::Strings => IdMap::Strings(originals.map(|o| o.to_string()).collect()),
        _ => IdMap::U64(
            originals
                .map(|o| match o {
                    OriginalId::Int(i) => i,
                    OriginalId::Str(_) => unreachable!("integer id maps hold integers"),
                })
                .collect(),
        ),
    };
    let mut manifest = m.clone();
    manifest.id_map = write_ids(&mut w, &id_map)?;
    manifest.data_dir = None;
    manifest.updates = None;
    manifest.created_by = format!("ocgraph {} (reorder by degree)", env!("CARGO_PKG_VERSION"));
    w.commit(manifest)?;
    progress.finish();
    Ok(arcs)
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

/// Writes one direction's offsets, lists and weights in the new order; returns its arcs.
fn write_side(
    dir: &Direction<'_>,
    order: &[Vertex],
    new_id: &[Vertex],
    w: &mut GraphWriter,
    [offsets_role, lists_role, weights_role]: [FileRole; 3],
    progress: &dyn Progress,
) -> Result<u64> {
    let weighted = dir.is_weighted();
    let (mut offsets, mut lists) = (w.file(offsets_role)?, w.file(lists_role)?);
    let mut weights = if weighted { Some(w.file(weights_role)?) } else { None };
    let mut at = 0u64;
    offsets.write_slice(&[at])?;
    for block in order.chunks(BLOCK) {
        // Each thread renumbers and sorts a run of lists; the runs are written in order.
        let runs: Vec<(Vec<u64>, Vec<Vertex>, Vec<f32>)> = block
            .par_chunks(BLOCK / 16)
            .map(|run| {
                let (mut ends, mut ids, mut ws) = (Vec::with_capacity(run.len()), Vec::new(), Vec::new());
                let mut pairs: Vec<(Vertex, f32)> = Vec::new();
                for &u in run {
                    let nbrs = dir.neighbors(u);
                    if let Some(wts) = dir.weights(u) {
                        pairs.clear();
                        pairs.extend(nbrs.iter().zip(wts.iter()).map(|(&x, &wt)| (new_id[x as usize], wt)));
                        pairs.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
                        ids.extend(pairs.iter().map(|p| p.0));
                        ws.extend(pairs.iter().map(|p| p.1));
                    } else {
                        let start = ids.len();
                        ids.extend(nbrs.iter().map(|&x| new_id[x as usize]));
                        ids[start..].sort_unstable();
                    }
                    ends.push(ids.len() as u64);
                }
                (ends, ids, ws)
            })
            .collect();
        for (ends, ids, ws) in runs {
            let base = at;
            let shifted: Vec<u64> = ends.iter().map(|e| base + e).collect();
            offsets.write_slice(&shifted)?;
            lists.write_slice(&ids)?;
            if let Some(f) = weights.as_mut() {
                f.write_slice(&ws)?;
            }
            at += ids.len() as u64;
            progress.advance(ids.len() as u64);
        }
    }
    if at != dir.num_arcs() {
        return Err(Error::invalid(format!(
            "the lists hold {at} arcs but the graph says {}: run `ocgraph check`",
            dir.num_arcs()
        )));
    }
    w.add(offsets_role, offsets)?;
    w.add(lists_role, lists)?;
    if let Some(f) = weights {
        w.add(weights_role, f)?;
    }
    Ok(at)
}
