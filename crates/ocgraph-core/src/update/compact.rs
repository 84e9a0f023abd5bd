//! Compaction: writes the merged adjacency of a view (base + levels) as a new base CSR in a
//! fresh generation directory `<graph>/base.<gen>/`, with the same atomic writer as ingest
//! ([`GraphWriter`]: files fsynced, manifest last, directory renamed into place). The switch to
//! the new base is the atomic rewrite of the root manifest done by the caller.

use std::path::Path;

use super::snapshot::{Snapshot, View};
use crate::error::Result;
use crate::format::{FileRole, GraphWriter, IdMapKind, Manifest};
use crate::graph::{Adjacency, Vertex};
use crate::ids::OriginalId;

/// Writes the id map `ids` (every vertex's original id, in order) of kind `kind`.
fn write_ids(w: &mut GraphWriter, kind: IdMapKind, ids: &[OriginalId]) -> Result<()> {
    match kind {
        IdMapKind::Identity => Ok(()),
        IdMapKind::U64 => {
            let ints: Vec<u64> = ids
                .iter()
                .map(|id| match id {
                    OriginalId::Int(i) => *i,
                    OriginalId::Str(_) => unreachable!("integer id maps hold integers"),
                })
                .collect();
            w.write_slice(FileRole::IdsU64, &ints)
        }
        IdMapKind::Strings => {
            let mut offsets = Vec::with_capacity(ids.len() + 1);
            let mut bytes = w.file(FileRole::IdsStrings)?;
            offsets.push(0u64);
            for id in ids {
                bytes.write_bytes(id.to_string().as_bytes())?;
                offsets.push(bytes.len());
            }
            w.add(FileRole::IdsStrings, bytes)?;
            w.write_slice(FileRole::IdsOffsets, &offsets)
        }
    }
}

/// Writes the merged graph of `view` (as of `view.upto`) to `out`, with the id map `ids`
/// (`None`: vertex numbers are the ids); returns its manifest.
pub(crate) fn write_base(
    view: &View,
    out: &Path,
    ids: Option<&(IdMapKind, Vec<OriginalId>)>,
) -> Result<Manifest> {
    let snap = Snapshot::new(view.clone());
    let directed = snap.is_directed();
    let weighted = snap.is_weighted();
    let n = snap.num_vertices();
    // The offsets of a direction are built in memory.
    crate::memory::ensure_available((n as u64 + 1) * 8, || format!("compaction's offsets of {n} vertices"))?;
    let mut w = GraphWriter::create(out, false)?;
    let mut sides = vec![(snap.out(), [FileRole::OutOffsets, FileRole::OutNeighbors, FileRole::OutWeights])];
    if directed {
        sides.push((snap.in_(), [FileRole::InOffsets, FileRole::InNeighbors, FileRole::InWeights]));
    }
    let (mut arcs, mut loops) = (0u64, 0u64);
    for (dir, [offs_role, nbr_role, wt_role]) in sides {
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0u64);
        let mut nf = w.file(nbr_role)?;
        let mut wf = if weighted { Some(w.file(wt_role)?) } else { None };
        let (mut total, mut self_loops) = (0u64, 0u64);
        for v in 0..n as Vertex {
            let ns = dir.neighbors(v);
            nf.write_slice(&ns)?;
            if let Some(wf) = &mut wf {
                let ws = dir.weights(v).expect("weighted graph has weights");
                wf.write_slice(&ws)?;
            }
            self_loops += ns.binary_search(&v).is_ok() as u64;
            total += ns.len() as u64;
            offsets.push(total);
        }
        w.add(nbr_role, nf)?;
        if let Some(wf) = wf {
            w.add(wt_role, wf)?;
        }
        w.write_slice(offs_role, &offsets)?;
        if offs_role == FileRole::OutOffsets {
            (arcs, loops) = (total, self_loops);
        }
    }
    let id_map = match ids {
        Some((kind, ids)) => {
            write_ids(&mut w, *kind, ids)?;
            *kind
        }
        None => IdMapKind::Identity,
    };
    if let Some(labels) = snap.labels()? {
        w.write_slice(FileRole::Labels, &labels)?;
    }
    let base = view.base.manifest();
    let manifest = Manifest {
        num_vertices: n as u64,
        num_edges: if directed { arcs } else { (arcs - loops) / 2 + loops },
        num_arcs: arcs,
        directed,
        weighted,
        id_width: 4,
        id_map,
        files: Default::default(),
        created_by: format!("ocgraph {} (compaction)", env!("CARGO_PKG_VERSION")),
        source: base.source.clone(),
        data_dir: None,
        updates: None,
        grid: None,
        // Filled in at commit, from the weights written.
        weight_range: None,
    };
    w.commit(manifest)?;
    Manifest::read(out)
}
