//! [`pack`]: a copy of a stored graph with its neighbour lists packed
//! ([`crate::format::packed`]); every other file (offsets, weights, ids) is copied as is, compressed copies of the lists
//! and weights (`ocgraph layout compress`) excepted.

use std::io::Read;
use std::path::Path;

use super::progress::{Progress, Unit};
use crate::error::{Error, Result};
use crate::format::packed::encode_list;
use crate::format::{FileRole, GraphWriter};
use crate::graph::{Adjacency, Graph, OpenOptions, Vertex};

/// Vertices encoded between two writes.
const BLOCK: u32 = 1 << 16;

/// What [`pack`] wrote.
#[derive(Debug, Clone, Copy, Default)]
pub struct PackReport {
    /// Bytes of the plain lists (`*.neighbors`).
    pub plain_bytes: u64,
    /// Bytes of the packed lists and their index (`*.packed`, `*.packed_index`).
    pub packed_bytes: u64,
    /// Arcs packed (both directions of a directed graph).
    pub arcs: u64,
}

/// Writes `dst`, a packed copy of the plain graph `src`, atomically (a half-written copy is
/// never a graph); `overwrite` replaces an existing `dst`. A graph with updates not yet
/// compacted is refused (its base alone is not the graph).
pub fn pack(src: &Path, dst: &Path, overwrite: bool, progress: &dyn Progress) -> Result<PackReport> {
    let g = open_base(src, "packing")?;
    let m = g.manifest();
    if m.is_packed() {
        return Err(Error::invalid(format!("{}: the graph is packed already", src.display())));
    }
    let mut w = GraphWriter::create(dst, overwrite)?;
    let data = m.data_path(src);
    for (name, entry) in &m.files {
        let role = FileRole::from_file_name(name).expect("manifest roles are checked on open");
        // The packed lists replace the plain ones and their compressed copies.
        if matches!(role, FileRole::OutNeighbors | FileRole::InNeighbors) || role.is_compressed() {
            continue;
        }
        let path = data.join(name);
        let mut r = std::fs::File::open(&path).map_err(|e| Error::io(&path, "open", e))?.take(entry.len);
        let mut fw = w.file(role)?;
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let k = r.read(&mut buf).map_err(|e| Error::io(&path, "read", e))?;
            if k == 0 {
                break;
            }
            fw.write_bytes(&buf[..k])?;
        }
        if fw.len() != entry.len {
            return Err(Error::format(
                &path,
                format!("file ends at byte {} before its {} bytes", fw.len(), entry.len),
            ));
        }
        w.add(role, fw)?;
    }
    let mut report = PackReport::default();
    let mut sides = vec![(g.out(), [FileRole::OutPacked, FileRole::OutPackedIndex])];
    if m.directed {
        sides.push((g.in_(), [FileRole::InPacked, FileRole::InPackedIndex]));
    }
    let n = g.num_vertices() as Vertex;
    for (dir, [bytes_role, index_role]) in sides {
        progress.phase("pack", Some(g.num_arcs()), Unit::Edges);
        let (mut bytes, mut index) = (w.file(bytes_role)?, w.file(index_role)?);
        let (mut buf, mut offs) = (Vec::new(), vec![0u64]);
        let mut at = 0u64;
        for lo in (0..n).step_by(BLOCK as usize) {
            let mut arcs = 0;
            dir.for_each_in_range(lo..lo.saturating_add(BLOCK).min(n), |v, l| {
                encode_list(v, l, &mut buf);
                offs.push(at + buf.len() as u64);
                arcs += l.len() as u64;
            });
            at += buf.len() as u64;
            bytes.write_bytes(&buf)?;
            index.write_slice(&offs)?;
            buf.clear();
            offs.clear();
            progress.advance(arcs);
            report.arcs += arcs;
        }
        report.plain_bytes += g.num_arcs() * 4;
        report.packed_bytes += bytes.len() + index.len();
        w.add(bytes_role, bytes)?;
        w.add(index_role, index)?;
    }
    let mut manifest = m.clone();
    manifest.data_dir = None;
    manifest.updates = None;
    manifest.created_by = format!("ocgraph {} (pack)", env!("CARGO_PKG_VERSION"));
    w.commit(manifest)?;
    progress.finish();
    Ok(report)
}

/// Opens the graph at `src` to copy it (`doing`: "packing", ...). A graph with updates not yet
/// compacted is refused: its base alone is not the graph.
pub(super) fn open_base(src: &Path, doing: &str) -> Result<Graph> {
    if crate::view::has_updates(src)? {
        return Err(Error::invalid(format!(
            "{}: the graph has updates; run `ocgraph compact` before {doing} it",
            src.display()
        )));
    }
    Graph::open(src, &OpenOptions::default())
}
