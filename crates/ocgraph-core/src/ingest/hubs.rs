//! The hub index ([`crate::format::hubs`]): [`index_hubs`] writes `hubs.u32` into a graph's
//! directory from its lists, installed as `ocgraph layout pack` installs packed copies (written
//! under a temporary name and fsynced, a manifest without the old index first, then the
//! rename and the manifest naming the new one): a crash leaves a graph that opens, with the old
//! index, none, or the new one.
//!
//! Memory: the out-degree of every vertex (4 bytes per vertex), and the entries of one block
//! of [`BLOCK`] vertices while it is written.

use std::path::Path;

use rayon::prelude::*;

use super::compress::install_copies;
use super::pack::{open_base, verify_source, TempFile};
use super::progress::{Progress, Unit};
use super::remove::remove_files;
use crate::error::Result;
use crate::format::hubs::{decode, entries_of, HUBS_PER_VERTEX, MAX_VERTICES, NO_HUB};
use crate::format::{FileRole, Manifest};
use crate::graph::{Adjacency, Graph, Vertex};
use crate::update::{lock_for_writing, removing_leftovers_on_error};

/// Vertices whose entries are written at once.
const BLOCK: u32 = 1 << 16;
/// Vertices per parallel task.
const TASK: u32 = 1 << 12;

/// What [`index_hubs`] wrote.
#[derive(Debug, Clone, Copy, Default)]
pub struct HubsReport {
    /// Bytes of the index.
    pub bytes: u64,
    /// Vertices whose in-lists hold more than their hubs.
    pub more: u64,
}

/// Writes the hub index of the graph at `dir` (which must have no unmerged updates) and
/// installs it, replacing the index it had.
pub fn index_hubs(dir: &Path, progress: &dyn Progress) -> Result<HubsReport> {
    let _writing = lock_for_writing(dir)?;
    verify_source(dir)?;
    removing_leftovers_on_error(dir, index_hubs_unlocked(dir, progress))
}

/// [`index_hubs`] by a caller that already holds the graph's writer lock (compaction, which
/// indexes the hubs of a new base before switching to it).
pub(crate) fn index_hubs_unlocked(dir: &Path, progress: &dyn Progress) -> Result<HubsReport> {
    let g = open_base(dir, "indexing the hubs of")?;
    let m = g.manifest().clone();
    let data = m.data_path(dir);
    let mut file = TempFile::create(&data, FileRole::Hubs)?;
    let report = write_entries(&g, progress, |entries| file.write(bytemuck::cast_slice(entries)))?;
    let entry = file.seal()?;
    drop(g);
    install_copies(dir, &data, m, &[FileRole::Hubs], &[(FileRole::Hubs, entry)])?;
    progress.finish();
    Ok(report)
}

/// Removes the hub index of the graph at `dir`, if it has one: the manifest first, then the
/// file. Returns whether there was one.
pub fn remove_hubs(dir: &Path) -> Result<bool> {
    let _writing = lock_for_writing(dir)?;
    let m = Manifest::read(dir)?;
    if m.file(FileRole::Hubs).is_none() {
        return Ok(false);
    }
    remove_files(dir, m, [FileRole::Hubs])?;
    Ok(true)
}

/// Computes the entries of every vertex of `g`, handing `write` one block's at a time.
fn write_entries(
    g: &Graph,
    progress: &dyn Progress,
    mut write: impl FnMut(&[[u32; HUBS_PER_VERTEX]]) -> Result<()>,
) -> Result<HubsReport> {
    let (out, in_) = (g.out(), g.in_());
    if g.num_vertices() as u64 > MAX_VERTICES {
        return Err(crate::Error::invalid(format!(
            "{}: the hub index holds vertex ids below 2^31 - 1; the graph has {} vertices",
            g.path().display(),
            g.num_vertices()
        )));
    }
    let n = g.num_vertices() as Vertex;
    let mut degree = Vec::new();
    crate::memory::try_resize(&mut degree, n as usize, 0u32, || format!("the degrees of {n} vertices"))?;
    degree.par_chunks_mut(TASK as usize).enumerate().for_each(|(t, part)| {
        let lo = t as u32 * TASK;
        out.for_each_degree_in_range(lo..lo + part.len() as u32, |v, d| part[(v - lo) as usize] = d as u32);
    });
    progress.phase("hubs", Some(g.num_arcs()), Unit::Edges);
    let mut report = HubsReport::default();
    let mut entries = Vec::with_capacity(BLOCK as usize);
    for lo in (0..n).step_by(BLOCK as usize) {
        let hi = lo.saturating_add(BLOCK).min(n);
        entries.clear();
        entries.resize((hi - lo) as usize, [NO_HUB; HUBS_PER_VERTEX]);
        let arcs: u64 = entries
            .par_chunks_mut(TASK as usize)
            .enumerate()
            .map(|(t, part)| {
                let start = lo + t as u32 * TASK;
                let mut arcs = 0;
                in_.for_each_in_range(start..start + part.len() as u32, |v, list| {
                    part[(v - start) as usize] = entries_of(list, &degree);
                    arcs += list.len() as u64;
                });
                arcs
            })
            .sum();
        report.more += entries.iter().filter(|e| decode(e).2).count() as u64;
        write(&entries)?;
        progress.advance(arcs);
    }
    report.bytes = n as u64 * 4 * HUBS_PER_VERTEX as u64;
    Ok(report)
}
