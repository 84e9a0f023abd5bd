//! Packed lists ([`crate::format::packed`]): [`pack`] writes a copy of a stored graph with its
//! neighbour lists packed in place of the plain ones (every other file, offsets, weights, ids,
//! copied as is, compressed copies of the lists and weights excepted); [`pack_copy`] writes
//! packed copies of the lists beside the plain ones in the graph's own directory, which a
//! kernel reads instead of the plain lists when the layout says so
//! ([`crate::Graph::read_packed_copy`]).
//!
//! [`pack_copy`] installs its files as `ocgraph layout compress` does: written under temporary
//! names and fsynced; a graph that had packed copies first gets a manifest without them; then
//! the files are renamed into place and the manifest naming them replaces the old one. A crash
//! leaves a graph that opens, with the old copies, none, or the new ones.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;

use super::compress::install_copies;
use super::grid::seal;
use super::progress::{Progress, Unit};
use super::remove::remove_files;
use crate::error::{Error, Result};
use crate::format::packed::encode_list;
use crate::format::{checksum_mismatch, refuse_inside_graph, while_manifest_changes, FileRole, GraphWriter};
use crate::graph::{Adjacency, Direction, Graph, OpenOptions, Vertex};
use crate::update::{lock_for_writing, removing_leftovers_on_error};

/// The packed lists and index files of each direction.
const PACKED: [[FileRole; 2]; 2] =
    [[FileRole::OutPacked, FileRole::OutPackedIndex], [FileRole::InPacked, FileRole::InPackedIndex]];

/// Vertices encoded between two writes.
const BLOCK: u32 = 1 << 16;

/// What [`pack`] wrote.
#[derive(Debug, Clone, Copy, Default)]
pub struct PackReport {
    /// Bytes of the plain lists and their offsets (`*.neighbors`, `*.offsets`), which the
    /// packed lists and their index replace for a reader.
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
    // A writer may rebuild a layout of the source while this copies its files (they are renamed
    // into place one by one): a copy whose file does not match the manifest's checksum is made
    // again once the manifest has changed, as readers reopen (`GraphView::open`).
    while_manifest_changes(src, 100, true, |_| pack_once(src, dst, overwrite, progress))
}

/// One attempt of [`pack`].
fn pack_once(src: &Path, dst: &Path, overwrite: bool, progress: &dyn Progress) -> Result<PackReport> {
    refuse_inside_graph(src, dst, "destination")?;
    verify_source(src)?;
    let g = open_base(src, "packing")?;
    let m = g.manifest();
    if m.is_packed() {
        return Err(Error::invalid(format!("{}: the graph is packed already", src.display())));
    }
    let mut w = GraphWriter::create(dst, overwrite)?;
    let data = m.data_path(src);
    for (name, entry) in &m.files {
        let role = FileRole::from_file_name(name).expect("manifest roles are checked on open");
        // The packed lists replace the plain ones, their compressed and packed copies.
        if matches!(role, FileRole::OutNeighbors | FileRole::InNeighbors)
            || role.is_compressed()
            || PACKED.as_flattened().contains(&role)
        {
            continue;
        }
        let path = data.join(entry.stored_name(name));
        let mut r = std::fs::File::open(&path).map_err(|e| Error::io(&path, "open", e))?.take(entry.len);
        let mut fw = w.file(role)?;
        let mut buf = vec![0u8; 1 << 20];
        let mut crc = 0u32;
        loop {
            let k = r.read(&mut buf).map_err(|e| Error::io(&path, "read", e))?;
            if k == 0 {
                break;
            }
            crc = crc32c::crc32c_append(crc, &buf[..k]);
            fw.write_bytes(&buf[..k])?;
        }
        if fw.len() != entry.len {
            return Err(Error::format(
                &path,
                format!("file ends at byte {} before its {} bytes", fw.len(), entry.len),
            ));
        }
        // The checksum covers the file's padding too.
        let mut padding = r.into_inner();
        loop {
            let k = padding.read(&mut buf).map_err(|e| Error::io(&path, "read", e))?;
            if k == 0 {
                break;
            }
            crc = crc32c::crc32c_append(crc, &buf[..k]);
        }
        if crc != entry.crc32c {
            return Err(checksum_mismatch(&path, entry.crc32c, crc));
        }
        w.add(role, fw)?;
    }
    let mut report = PackReport::default();
    for (dir, [bytes_role, index_role]) in sides(&g) {
        let (mut bytes, mut index) = (w.file(bytes_role)?, w.file(index_role)?);
        report.arcs += encode_side(&dir, progress, |b, offs| {
            bytes.write_bytes(b)?;
            index.write_slice(offs)
        })?;
        report.plain_bytes += g.num_arcs() * 4 + (g.num_vertices() as u64 + 1) * 8;
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

/// Writes packed copies of the lists of the graph at `dir` (which must have no unmerged updates
/// and plain lists) beside its plain lists, and installs them, replacing copies it had.
pub fn pack_copy(dir: &Path, progress: &dyn Progress) -> Result<PackReport> {
    let _writing = lock_for_writing(dir)?;
    verify_source(dir)?;
    removing_leftovers_on_error(dir, pack_copy_unlocked(dir, progress))
}

/// [`pack_copy`] by a caller that already holds the graph's writer lock (compaction, which
/// packs the lists of a new base before switching to it).
pub(crate) fn pack_copy_unlocked(dir: &Path, progress: &dyn Progress) -> Result<PackReport> {
    let g = open_base(dir, "packing")?;
    let m = g.manifest().clone();
    if m.is_packed() {
        return Err(Error::invalid(format!("{}: the graph is packed already", dir.display())));
    }
    let data = m.data_path(dir);
    let mut report = PackReport::default();
    let mut files = Vec::new();
    for (side, roles) in sides(&g) {
        let (mut bytes, mut index) = (TempFile::create(&data, roles[0])?, TempFile::create(&data, roles[1])?);
        report.arcs += encode_side(&side, progress, |chunk, offs| {
            bytes.write(chunk)?;
            index.write(bytemuck::cast_slice(offs))
        })?;
        for (t, role) in [(bytes, roles[0]), (index, roles[1])] {
            report.packed_bytes += t.len;
            files.push((role, t.seal()?));
        }
        report.plain_bytes += g.num_arcs() * 4 + (g.num_vertices() as u64 + 1) * 8;
    }
    drop(g);
    install_copies(dir, &data, m, PACKED.as_flattened(), &files)?;
    progress.finish();
    Ok(report)
}

/// Removes the packed copies of the graph at `dir`, if it has any: the manifest first, then
/// the files. Returns whether there were any.
pub fn remove_packed_copy(dir: &Path) -> Result<bool> {
    let _writing = lock_for_writing(dir)?;
    let m = crate::format::Manifest::read(dir)?;
    if !m.has_packed_copy() {
        return Ok(false);
    }
    remove_files(dir, m, PACKED.as_flattened().iter().copied())?;
    Ok(true)
}

/// A file written under a temporary name (`NAME.tmp`) in the data directory, to be sealed and
/// renamed into place.
pub(super) struct TempFile {
    path: std::path::PathBuf,
    out: BufWriter<File>,
    len: u64,
}

impl TempFile {
    pub(super) fn create(data: &Path, role: FileRole) -> Result<TempFile> {
        let path = data.join(format!("{}.tmp", role.file_name()));
        let f = File::create(&path).map_err(|e| Error::io(&path, "create", e))?;
        Ok(TempFile { path, out: BufWriter::with_capacity(1 << 20, f), len: 0 })
    }

    pub(super) fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.len += bytes.len() as u64;
        self.out.write_all(bytes).map_err(|e| Error::io(&self.path, "write", e))
    }

    /// Flushes, pads, fsyncs and checksums the file: its manifest entry.
    pub(super) fn seal(mut self) -> Result<crate::format::FileEntry> {
        self.out.flush().map_err(|e| Error::io(&self.path, "write", e))?;
        drop(self.out);
        seal(&self.path, self.len)
    }
}

/// The directions of the plain lists of `g` with the roles of their packed files.
fn sides(g: &Graph) -> Vec<(Direction<'_>, [FileRole; 2])> {
    let mut sides = vec![(g.out(), PACKED[0])];
    if g.is_directed() {
        sides.push((g.in_(), PACKED[1]));
    }
    sides
}

/// Packs the lists of `dir`, handing `write` each block of vertices' packed bytes and their
/// index entries (the first block's begin with the 0 of the first vertex); returns the arcs.
fn encode_side(
    dir: &Direction<'_>,
    progress: &dyn Progress,
    mut write: impl FnMut(&[u8], &[u64]) -> Result<()>,
) -> Result<u64> {
    progress.phase("pack", Some(dir.num_arcs()), Unit::Edges);
    let n = dir.num_vertices() as Vertex;
    let (mut buf, mut offs) = (Vec::new(), vec![0u64]);
    let (mut at, mut total) = (0u64, 0u64);
    for lo in (0..n).step_by(BLOCK as usize) {
        let mut arcs = 0;
        dir.for_each_in_range(lo..lo.saturating_add(BLOCK).min(n), |v, l| {
            encode_list(v, l, &mut buf);
            offs.push(at + buf.len() as u64);
            arcs += l.len() as u64;
        });
        at += buf.len() as u64;
        write(&buf, &offs)?;
        buf.clear();
        offs.clear();
        progress.advance(arcs);
        total += arcs;
    }
    Ok(total)
}

/// Checks every file of the graph at `src` against its checksum (one sequential read, as
/// `ocgraph check`) before a copy or layout is built from its lists: a list damaged after the
/// import would otherwise be sealed into the copy with fresh checksums, or panic the build with
/// an id past the vertex count. Compaction, which builds layouts of the base it just wrote,
/// calls the `_unlocked` builders, which do not check again.
pub(super) fn verify_source(src: &Path) -> Result<()> {
    crate::format::check_graph(src).map(drop)
}

/// Opens the graph at `src` to copy it (`doing`: "packing", ...). A graph with updates not yet
/// compacted is refused: its base alone is not the graph.
pub(super) fn open_base(src: &Path, doing: &str) -> Result<Graph> {
    refuse_updates(src, doing)?;
    Graph::open(src, &OpenOptions::default())
}

/// Refuses the graph at `src` when it has updates not merged into its base (`doing` it needs
/// the base alone).
pub(super) fn refuse_updates(src: &Path, doing: &str) -> Result<()> {
    if crate::view::has_updates(src)? {
        return Err(Error::invalid(format!(
            "{}: the graph has updates; run `ocgraph compact` before {doing} it",
            src.display()
        )));
    }
    Ok(())
}
