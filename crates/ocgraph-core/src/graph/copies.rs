//! [`check_copies`]: the content check of the copies a graph keeps of its lists (`ocgraph
//! check`). The packed copies, the grid and the hub index are written from the plain lists and
//! checksummed as written; a copy written wrong (a bug, bad memory) carries a checksum that
//! matches its wrong bytes and would answer wrong without a single damaged byte. So each copy
//! is read as the kernels read it and compared with the lists:
//! - a packed copy: every list decodes to the plain list, neighbour for neighbour;
//! - the grid: the arcs of every source vertex in the cells of its row equal its list with
//!   their weights, as multisets (compared by count and by a sum of hashed arcs, which no
//!   mistake short of a crafted one keeps);
//! - the hub index: every vertex's entries are those its in-list and the out-degrees give.
//!
//! Work is parallel over blocks of vertices; memory: the out-degree of every vertex (4 bytes
//! per vertex, with a hub index) and, per thread, one block's lists or arc hashes.

use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;

use super::{Adjacency, CellBuf, Direction, EdgeGrid, Graph, Hubs, OpenOptions, Vertex};
use super::{IN_PACKED, IN_ROLES, OUT_PACKED, OUT_ROLES};
use crate::error::{Error, Result};
use crate::format::hubs::entries_of;
use crate::format::{FileRole, Manifest};
use crate::mix::mix64;

/// Vertices compared per parallel task (packed copies and the hub index).
const TASK: u32 = 1 << 12;

/// Compares the packed copies, the grid and the hub index of the graph at `dir` (whose
/// manifest is `m`) with its lists; the error names the file and the first vertex whose copy
/// differs, and how to remove and rebuild the copy. Called by [`crate::format::check_graph`]
/// once every file passed its checksum and structure checks.
pub(crate) fn check_copies(dir: &Path, m: &Manifest) -> Result<()> {
    let g = Graph::open_once(&crate::format::absolute(dir)?, m.clone(), &OpenOptions::default())?;
    let named = |role: FileRole| move |e| crate::format::with_way_out(e, role.file_name(), m);
    if m.has_packed_copy() {
        check_packed_copy(&g, OUT_ROLES, OUT_PACKED).map_err(named(FileRole::OutPacked))?;
        if g.is_directed() {
            check_packed_copy(&g, IN_ROLES, IN_PACKED).map_err(named(FileRole::InPacked))?;
        }
    }
    if g.grid().is_some() {
        // Both grid files have the same way out.
        check_grid(&g).map_err(named(FileRole::GridEdges))?;
    }
    if g.hubs().is_some() {
        check_hubs(&g).map_err(named(FileRole::Hubs))?;
    }
    Ok(())
}

/// The vertex ranges of the parallel tasks.
fn tasks(n: usize) -> impl ParallelIterator<Item = Range<Vertex>> {
    let n = n as u64;
    (0..n.div_ceil(TASK as u64)).into_par_iter().map(move |t| {
        let lo = t * TASK as u64;
        lo as Vertex..(lo + TASK as u64).min(n) as Vertex
    })
}

/// The first error of `results` in vertex order, if any.
fn first_error(results: Vec<Result<()>>) -> Result<()> {
    results.into_iter().collect()
}

/// Every packed list of one direction (`roles` its plain files, `packed` its packed copy)
/// against its plain list.
fn check_packed_copy(g: &Graph, roles: [FileRole; 3], packed: [FileRole; 2]) -> Result<()> {
    let (plain, copy) = (g.direction(roles, packed, false), g.direction(roles, packed, true));
    let path = g.data_path().join(packed[0].file_name());
    let results = tasks(g.num_vertices())
        .map(|range| {
            let (mut ids, mut ends) = (Vec::new(), Vec::new());
            plain.for_each_in_range(range.clone(), |_, list| {
                ids.extend_from_slice(list);
                ends.push(ids.len());
            });
            let mut found = None;
            copy.for_each_in_range(range.clone(), |v, list| {
                let k = (v - range.start) as usize;
                let want = &ids[if k == 0 { 0 } else { ends[k - 1] }..ends[k]];
                if found.is_none() && list != want {
                    found = Some(v);
                }
            });
            match found {
                None => Ok(()),
                Some(v) => Err(Error::Format {
                    path: path.clone(),
                    offset: Some(copy.list_bytes(v).start),
                    msg: format!(
                        "the packed list of vertex {v} differs from its list in {}: the copy was written wrong",
                        roles[1].file_name()
                    ),
                }),
            }
        })
        .collect();
    first_error(results)
}

/// What the grid check keeps of a vertex's arcs: their count, the sum of the hashes of their
/// destinations, and that of their destinations with their weights.
#[derive(Clone, Copy, Default, PartialEq)]
struct ArcSums {
    count: u64,
    destinations: u64,
    weighted: u64,
}

impl ArcSums {
    /// Counts the arc to `dst` of weight bits `weight` (0 unweighted).
    fn add(&mut self, dst: Vertex, weight: u32) {
        self.count += 1;
        self.destinations = self.destinations.wrapping_add(mix64(dst as u64));
        self.weighted = self.weighted.wrapping_add(mix64(((dst as u64) << 32) | weight as u64));
    }
}

/// Every source vertex's arcs in the cells of its row against its out-list.
fn check_grid(g: &Graph) -> Result<()> {
    let grid = g.grid().expect("checked by the caller");
    let (out, weighted) = (g.out(), g.is_weighted());
    let bits = |w: f32| if weighted { w.to_bits() } else { 0 };
    let results = (0..grid.cells_per_side())
        .into_par_iter()
        .map(|row| {
            let block = grid.block(row);
            let mut seen = vec![ArcSums::default(); block.len()];
            let mut buf = CellBuf::default();
            for col in 0..grid.cells_per_side() {
                let first = grid.block(col).start;
                grid.for_each_piece(row, col, &mut buf, |s, d, w| {
                    for (i, (&s, &d)) in s.iter().zip(d).enumerate() {
                        seen[s as usize].add(first + d as Vertex, w.map_or(0, |w| bits(w[i])));
                    }
                })?;
            }
            let mut found = None;
            out.for_each_weighted_in_range(block.clone(), |v, nbrs, ws| {
                let mut want = ArcSums::default();
                nbrs.iter().zip(ws).for_each(|(&u, &w)| want.add(u, bits(w)));
                let got = seen[(v - block.start) as usize];
                if found.is_none() && got != want {
                    found = Some((v, got, want));
                }
            });
            let Some((v, got, want)) = found else { return Ok(()) };
            let (role, what) = if (got.count, got.destinations) == (want.count, want.destinations) {
                (FileRole::GridWeights, "other weights")
            } else {
                (FileRole::GridEdges, "other arcs")
            };
            Err(Error::format(
                g.data_path().join(role.file_name()),
                format!(
                    "the cells of row {row} hold {what} of vertex {v} ({} arcs) than its list in \
                     out.neighbors ({} arcs): the grid was written wrong",
                    got.count, want.count
                ),
            ))
        })
        .collect();
    first_error(results)
}

/// Every vertex's hub entries against its in-list and the out-degrees.
fn check_hubs(g: &Graph) -> Result<()> {
    let hubs = g.hubs().expect("checked by the caller");
    let (out, in_): (Direction<'_>, Direction<'_>) = (g.out(), g.in_());
    let n = g.num_vertices();
    let mut degree = Vec::new();
    crate::memory::try_resize(&mut degree, n, 0u32, || format!("the degrees of {n} vertices"))?;
    degree.par_chunks_mut(TASK as usize).enumerate().for_each(|(t, part)| {
        let lo = t as u32 * TASK;
        out.for_each_degree_in_range(lo..lo + part.len() as u32, |v, d| part[(v - lo) as usize] = d as u32);
    });
    let path = g.data_path().join(FileRole::Hubs.file_name());
    let results = tasks(n)
        .map(|range| {
            let mut want = Vec::with_capacity(range.len());
            in_.for_each_in_range(range.clone(), |_, list| want.push(entries_of(list, &degree)));
            let mut found = None;
            hubs.for_each_in_range(range.clone(), |v, entries, more| {
                let w = crate::format::hubs::decode(&want[(v - range.start) as usize]);
                if found.is_none() && (&w.0[..w.1], w.2) != (entries, more) {
                    found = Some(v);
                }
            });
            match found {
                None => Ok(()),
                Some(v) => Err(Error::Format {
                    path: path.clone(),
                    offset: Some(v as u64 * 4 * Hubs::PER_VERTEX as u64),
                    msg: format!(
                        "the entries of vertex {v} are not its in-neighbours of highest out-degree: \
                         the index was written wrong"
                    ),
                }),
            }
        })
        .collect();
    first_error(results)
}
