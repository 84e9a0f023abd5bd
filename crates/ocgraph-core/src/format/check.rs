//! Deep verification of a graph directory (`ocgraph check`): every checksum, and the CSR
//! invariants (offsets non-decreasing from 0 to the arc count, neighbour ids in range and
//! sorted within each list; packed lists: the index rising from 0 to the packed file's length,
//! and every list decoding to as many neighbours as its offsets say; the grid layout: its index
//! as on open, every cell decoding to as many arcs as the index says, every offset inside the
//! cell's blocks, and the grid holding as many arcs per source block as the CSR; compressed
//! copies: every block decoding to the bytes of its plain file; the hub index: ids in range;
//! the weight range recorded in the manifest: that of the out-weights and of the grid's; a
//! compacted graph's base directory: its own manifest, describing the same graph), and then
//! the content of the packed copies, grid and hub index against the lists
//! ([`crate::graph::check_copies`]).

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use super::compressed::BlockIndex;
use super::layout::FileRole;
use super::manifest::{while_manifest_changes, IdMapKind, Manifest};
use super::packed::decode_list;
use super::weight_range::{WeightRange, WeightTally};
use crate::error::{Error, Result};

/// What [`check_graph`] verified.
#[derive(Debug, Clone, Default)]
pub struct CheckReport {
    /// Files whose checksum matched.
    pub files: usize,
    /// Bytes read.
    pub bytes: u64,
}

/// Verifies every file checksum and the CSR invariants of the graph at `dir`.
///
/// A writer compacting the graph meanwhile replaces its base and deletes the old one: the
/// check then meets a missing file. So it is retried while the manifest changes under it, and
/// an error is returned only from a check during which the manifest stayed the same.
pub fn check_graph(dir: &Path) -> Result<CheckReport> {
    while_manifest_changes(dir, 20, true, |m| check_files(dir, m).map_err(|e| with_way_out_of_file(e, m)))
}

/// The error for the file at `path`, whose checksum is `file` where the manifest says `manifest`.
pub(crate) fn checksum_mismatch(path: &Path, manifest: u32, file: u32) -> Error {
    Error::format(
        path,
        format!("checksum mismatch (manifest {manifest:#010x}, file {file:#010x}): the file is corrupted"),
    )
}

/// Reads the whole file at `path` through `buf` and compares its CRC-32C with `expected` (the
/// manifest's); returns its length.
fn verify_checksum(path: &Path, expected: u32, buf: &mut [u8]) -> Result<u64> {
    let mut r = File::open(path).map_err(|e| Error::io(path, "open", e))?;
    let (mut crc, mut len) = (0u32, 0u64);
    loop {
        let k = r.read(buf).map_err(|e| Error::io(path, "read", e))?;
        if k == 0 {
            break;
        }
        crc = crc32c::crc32c_append(crc, &buf[..k]);
        len += k as u64;
    }
    if crc != expected {
        return Err(checksum_mismatch(path, expected, crc));
    }
    Ok(len)
}

/// Graphs whose data files take at most this many bytes in all are checked whole when they
/// open (every file against its checksum); of a larger graph, its grid files when they take at
/// most this many bytes.
pub const CHECKED_ON_OPEN: u64 = 64 << 20;

/// Compares the files of the graph in `data` (its data directory, as `m` describes it) with
/// their checksums when they take at most [`CHECKED_ON_OPEN`] bytes in all: a damaged byte
/// that still reads as a valid value (a neighbour id changed to another vertex's, an offset
/// within its range) is refused on open rather than answered from. Of a larger graph, only the
/// grid's files, when they are that small: nothing else reads a cell's bytes before a kernel
/// takes them as arcs. The rest of a large graph is `ocgraph check`'s (reading it whole would
/// cost every open a pass over it); its kernels and reads still refuse an id or offset out of
/// range, naming the file. A compacted graph's base manifest (in `data`, a few hundred bytes)
/// is checked whatever the graph's size.
pub(crate) fn verify_small_files(data: &Path, m: &Manifest) -> Result<()> {
    if m.data_dir.is_some() {
        check_base_manifest(data, m)?;
    }
    let size = |names: &[&String]| names.iter().map(|n| m.files[*n].len).sum::<u64>();
    let all: Vec<&String> = m.files.keys().collect();
    let grid: Vec<&String> = all.iter().copied().filter(|n| is_grid_file(n)).collect();
    let checked = if size(&all) <= CHECKED_ON_OPEN {
        all
    } else if size(&grid) <= CHECKED_ON_OPEN {
        grid
    } else {
        return Ok(());
    };
    let mut buf = vec![0u8; READ_CHUNK];
    for name in checked {
        let entry = &m.files[name];
        verify_checksum(&data.join(entry.stored_name(name)), entry.crc32c, &mut buf)
            .map_err(|e| with_way_out(e, name, m))?;
    }
    Ok(())
}

/// `e`, a format or I/O error in the manifest's file `name`, with the way out of it appended
/// when the graph can do without the file ([`way_out`]), once.
pub(crate) fn with_way_out(e: Error, name: &str, m: &Manifest) -> Error {
    let Some(way) = way_out(name, m) else {
        return e;
    };
    match e {
        Error::Io { path, op, source } if !source.to_string().contains(way) => {
            let source = std::io::Error::new(source.kind(), format!("{source} ({way})"));
            Error::Io { path, op, source }
        }
        Error::Format { path, offset, msg } if !msg.contains(way) => {
            Error::Format { path, offset, msg: format!("{msg} ({way})") }
        }
        other => other,
    }
}

/// [`with_way_out`] for the file `e` names (by its path's file name), so that whatever stops
/// the graph from opening in a file it can do without (damaged, or deleted) says how to open
/// it again.
pub(crate) fn with_way_out_of_file(e: Error, m: &Manifest) -> Error {
    let name = match &e {
        Error::Format { path, .. } | Error::Io { path, .. } => path.file_name().and_then(|n| n.to_str()),
        _ => None,
    };
    match name.map(str::to_owned) {
        Some(name) => with_way_out(e, &name, m),
        None => e,
    }
}

/// Whether the manifest's file `name` is one of the grid layout's.
fn is_grid_file(name: &str) -> bool {
    use FileRole::*;
    matches!(FileRole::from_file_name(name), Some(GridIndex | GridEdges | GridWeights))
}

/// The way out of a damaged file `name` that the graph can do without (a layout or copy built
/// from its lists, its labels): the commands that remove it, after which the graph opens, and
/// build it again. `None` for the lists themselves and the ids (the graph is imported again).
fn way_out(name: &str, m: &Manifest) -> Option<&'static str> {
    use FileRole::*;
    let role = FileRole::from_file_name(name)?;
    Some(match role {
        GridIndex | GridEdges | GridWeights => {
            "`ocgraph layout remove-grid` removes the grid, then `ocgraph layout grid` rebuilds it"
        }
        Hubs => "`ocgraph layout remove-hubs` removes the hub index, then `ocgraph layout hubs` rebuilds it",
        _ if role.is_compressed() => {
            "`ocgraph layout remove-compress` removes the compressed copies, then `ocgraph layout compress` rebuilds them"
        }
        OutPacked | OutPackedIndex | InPacked | InPackedIndex if m.has_packed_copy() => {
            "`ocgraph layout remove-pack` removes the packed copies, then `ocgraph layout pack` rebuilds them"
        }
        Labels => "`ocgraph labels remove` removes the labels, then `ocgraph labels set` stores them again",
        _ => return None,
    })
}

/// [`check_graph`] of the graph at `dir` as its manifest `m` describes it.
fn check_files(root: &Path, m: &Manifest) -> Result<CheckReport> {
    m.verify_file_sizes(root)?;
    let data = m.data_path(root);
    let dir = data.as_path();
    if m.data_dir.is_some() {
        check_base_manifest(dir, m)?;
    }
    let mut report = CheckReport::default();
    let largest = m.files.values().map(|e| e.len).max().unwrap_or(0);
    let mut buf = vec![0u8; largest.clamp(1, READ_CHUNK as u64) as usize];
    for (name, entry) in &m.files {
        report.bytes += verify_checksum(&dir.join(entry.stored_name(name)), entry.crc32c, &mut buf)?;
        report.files += 1;
    }
    if !m.is_packed() {
        let loops = check_csr(dir, m, FileRole::OutOffsets, FileRole::OutNeighbors)?;
        check_edge_count(dir, m, loops)?;
        if m.directed {
            check_csr(dir, m, FileRole::InOffsets, FileRole::InNeighbors)?;
        }
    }
    if m.is_packed() || m.has_packed_copy() {
        let loops =
            check_packed(dir, m, [FileRole::OutOffsets, FileRole::OutPacked, FileRole::OutPackedIndex])?;
        check_edge_count(dir, m, loops)?;
        if m.directed {
            check_packed(dir, m, [FileRole::InOffsets, FileRole::InPacked, FileRole::InPackedIndex])?;
        }
    }
    if m.grid.is_some() {
        check_grid(dir, m)?;
    }
    for (plain, copy) in FileRole::COMPRESSIBLE {
        if let (Some(p), Some(c)) = (m.file(plain), m.file(copy)) {
            check_compressed(
                &dir.join(plain.file_name()),
                p.padded_len(),
                &dir.join(copy.file_name()),
                c.len,
            )?;
        }
    }
    if m.file(FileRole::Hubs).is_some() {
        check_hubs(dir, m.num_vertices)?;
    }
    if let Some(range) = m.weight_range {
        check_weight_range(dir, FileRole::OutWeights, m.num_arcs, range)?;
        // The grid holds the same arcs, so the same weights in another order.
        if m.file(FileRole::GridWeights).is_some() {
            check_weight_range(dir, FileRole::GridWeights, m.num_arcs, range)?;
        }
    }
    if m.id_map == IdMapKind::Strings {
        let strings_len = m.file(FileRole::IdsStrings).map_or(0, |e| e.len);
        check_monotone(dir, FileRole::IdsOffsets, m.num_vertices + 1, strings_len, |_, _| Ok(()))?;
    }
    crate::graph::check_copies(root, m)?;
    Ok(report)
}

/// Verifies the own manifest of a compacted graph's base directory `base` (a complete graph
/// directory, readable alone): its checksum, and that it describes the graph of the root
/// manifest `m` (which lists the base's files and is the one an open reads).
fn check_base_manifest(base: &Path, m: &Manifest) -> Result<()> {
    let own = Manifest::read(base)?;
    let same = (own.num_vertices, own.num_arcs, own.directed, own.weighted, own.id_map)
        == (m.num_vertices, m.num_arcs, m.directed, m.weighted, m.id_map);
    if !same {
        return Err(Error::format(
            base.join(super::MANIFEST_FILE),
            "describes another graph than the graph's manifest (vertex or arc count, direction, weights or ids)",
        ));
    }
    Ok(())
}

/// Decodes every block of the compressed copy at `copy` (`copy_len` bytes of data) and
/// compares it with the plain file at `plain` (`plain_len` bytes on disk).
fn check_compressed(plain: &Path, plain_len: u64, copy: &Path, copy_len: u64) -> Result<()> {
    use std::os::unix::fs::FileExt;
    let index = BlockIndex::read(copy, copy_len, plain_len)?;
    let (pf, cf) = (
        File::open(plain).map_err(|e| Error::io(plain, "open", e))?,
        File::open(copy).map_err(|e| Error::io(copy, "open", e))?,
    );
    let bs = index.block_size as usize;
    let (mut stored, mut planes, mut block, mut want) =
        (Vec::new(), vec![0u8; bs + bs / 4], vec![0u8; bs], vec![0u8; bs]);
    for (k, e) in index.blocks.iter().enumerate() {
        let len = index.logical_block_len(k);
        stored.resize(e.len as usize, 0);
        cf.read_exact_at(&mut stored, e.offset).map_err(|err| Error::io(copy, "read", err))?;
        index.decode(k, &stored, &mut planes, &mut block[..len]).map_err(|msg| Error::Format {
            path: copy.into(),
            offset: Some(e.offset),
            msg,
        })?;
        let at = k as u64 * bs as u64;
        pf.read_exact_at(&mut want[..len], at).map_err(|err| Error::io(plain, "read", err))?;
        if block[..len] != want[..len] {
            return Err(Error::Format {
                path: copy.into(),
                offset: Some(e.offset),
                msg: format!("block {k} decodes to bytes that differ from {} at {at}..", plain.display()),
            });
        }
    }
    Ok(())
}

/// Bytes read at a time: buffers are this size, or the file's size when that is smaller (a
/// small graph's check then allocates little).
const READ_CHUNK: usize = 1 << 20;

fn open(path: &Path) -> Result<BufReader<File>> {
    let f = File::open(path).map_err(|e| Error::io(path, "open", e))?;
    let len = f.metadata().map_err(|e| Error::io(path, "stat", e))?.len();
    Ok(BufReader::with_capacity(len.clamp(1, READ_CHUNK as u64) as usize, f))
}

/// Reads `count` u64 values of `role`, checks they are non-decreasing from 0 to `last`, and calls
/// `each(index, value)` for each.
fn check_monotone(
    dir: &Path,
    role: FileRole,
    count: u64,
    last: u64,
    mut each: impl FnMut(u64, u64) -> Result<()>,
) -> Result<()> {
    let path = dir.join(role.file_name());
    let mut r = open(&path)?;
    let mut prev = 0u64;
    let mut b = [0u8; 8];
    for i in 0..count {
        r.read_exact(&mut b).map_err(|e| Error::io(&path, "read", e))?;
        let v = u64::from_le_bytes(b);
        if (i == 0 && v != 0) || v < prev || v > last || (i + 1 == count && v != last) {
            return Err(Error::Format {
                path,
                offset: Some(i * 8),
                msg: format!("offset {i} is {v}: offsets must rise from 0 to {last}"),
            });
        }
        each(i, v)?;
        prev = v;
    }
    Ok(())
}

/// The manifest's weight range is the range of the `arcs` weights of file `role`.
fn check_weight_range(dir: &Path, role: FileRole, arcs: u64, range: WeightRange) -> Result<()> {
    let path = dir.join(role.file_name());
    let mut r = open(&path)?;
    let mut tally = WeightTally::new();
    let mut buf = vec![0u8; READ_CHUNK];
    let mut left = arcs * 4;
    while left > 0 {
        let k = left.min(READ_CHUNK as u64) as usize;
        r.read_exact(&mut buf[..k]).map_err(|e| Error::io(&path, "read", e))?;
        tally.add(&buf[..k]);
        left -= k as u64;
    }
    // A manifest that does not say the weights are whole (one written before the field) is
    // not wrong when they are.
    let found = tally.finish().map(|f| WeightRange { whole: f.whole && range.whole, ..f });
    if found != Some(range) {
        return Err(Error::format(
            &path,
            format!("the manifest records the weight range {range:?}, the weights hold {found:?}"),
        ));
    }
    Ok(())
}

/// Every vertex's hub entries name vertices, padded at the end only
/// ([`super::hubs::check_entries`]).
fn check_hubs(dir: &Path, n: u64) -> Result<()> {
    use super::hubs::{check_entries, HUBS_PER_VERTEX};
    let path = dir.join(FileRole::Hubs.file_name());
    let mut r = open(&path)?;
    let mut b = [0u8; 4 * HUBS_PER_VERTEX];
    for v in 0..n {
        r.read_exact(&mut b).map_err(|e| Error::io(&path, "read", e))?;
        let entries: [u32; HUBS_PER_VERTEX] = bytemuck::cast(b);
        check_entries(&entries, n).map_err(|msg| Error::Format {
            path: path.clone(),
            offset: Some(v * b.len() as u64),
            msg: format!("vertex {v}: {msg}"),
        })?;
    }
    Ok(())
}

/// An undirected graph's `num_edges` against its lists: `(num_arcs - loops) / 2 + loops` (open
/// checks only that it lies between half the arcs and all of them; a directed graph's is its
/// arc count, checked on open).
fn check_edge_count(dir: &Path, m: &Manifest, loops: u64) -> Result<()> {
    let edges = (m.num_arcs - loops.min(m.num_arcs)) / 2 + loops;
    if !m.directed && m.num_edges != edges {
        return Err(Error::format(
            dir.join(super::MANIFEST_FILE),
            format!(
                "num_edges is {}, but the lists hold {edges} edges ({} arcs, {loops} of them self-loops)",
                m.num_edges, m.num_arcs
            ),
        ));
    }
    Ok(())
}

/// Checks one direction's plain lists: offsets rising to the arcs, neighbours in range and in
/// order; returns the number of self-loops.
fn check_csr(dir: &Path, m: &Manifest, offsets: FileRole, neighbors: FileRole) -> Result<u64> {
    let npath = dir.join(neighbors.file_name());
    let mut nr = open(&npath)?;
    let n = m.num_vertices;
    let mut loops = 0u64;
    let mut pos = 0u64;
    let mut b = [0u8; 4];
    check_monotone(dir, offsets, n + 1, m.num_arcs, |i, end| {
        if i == 0 {
            return Ok(());
        }
        let mut prev: Option<u32> = None;
        while pos < end {
            nr.read_exact(&mut b).map_err(|e| Error::io(&npath, "read", e))?;
            let u = u32::from_le_bytes(b);
            if u as u64 >= n || prev.is_some_and(|p| p > u) {
                return Err(Error::Format {
                    path: npath.clone(),
                    offset: Some(pos * 4),
                    msg: format!("neighbour {u} of vertex {} is out of range or out of order", i - 1),
                });
            }
            loops += (u as u64 == i - 1) as u64;
            prev = Some(u);
            pos += 1;
        }
        Ok(())
    })?;
    Ok(loops)
}

/// [`check_csr`] for packed lists: `roles` = offsets, packed lists, their index.
fn check_packed(dir: &Path, m: &Manifest, roles: [FileRole; 3]) -> Result<u64> {
    let [offsets, packed, index] = roles;
    let n = m.num_vertices;
    check_monotone(dir, offsets, n + 1, m.num_arcs, |_, _| Ok(()))?;
    let (ppath, opath) = (dir.join(packed.file_name()), dir.join(offsets.file_name()));
    let (mut pr, mut or) = (open(&ppath)?, open(&opath)?);
    let mut next_offset = || -> Result<u64> {
        let mut b = [0u8; 8];
        or.read_exact(&mut b).map_err(|e| Error::io(&opath, "read", e))?;
        Ok(u64::from_le_bytes(b))
    };
    let mut arc = next_offset()?;
    let (mut pos, mut bytes, mut list, mut loops) = (0u64, Vec::new(), Vec::new(), 0u64);
    let len = m.file(packed).map_or(0, |e| e.len);
    check_monotone(dir, index, n + 1, len, |i, end| {
        if i == 0 {
            return Ok(());
        }
        let v = i - 1;
        bytes.resize((end - pos) as usize, 0);
        pr.read_exact(&mut bytes).map_err(|e| Error::io(&ppath, "read", e))?;
        let bad = |msg: String| Error::Format { path: ppath.clone(), offset: Some(pos), msg };
        decode_list(v as u32, &bytes, &mut list)
            .map_err(|e| bad(format!("the list of vertex {v} does not decode ({e:?})")))?;
        let next = next_offset()?;
        if list.len() as u64 != next - arc {
            return Err(bad(format!(
                "vertex {v} has {} neighbours packed, {} in the offsets",
                list.len(),
                next - arc
            )));
        }
        if let Some(u) = list.iter().find(|&&u| u as u64 >= n) {
            return Err(bad(format!("neighbour {u} of vertex {v} is out of range")));
        }
        loops += list.iter().filter(|&&u| u as u64 == v).count() as u64;
        (arc, pos) = (next, end);
        Ok(())
    })?;
    Ok(loops)
}

/// Verifies the grid layout: the index (as on open), then every cell in stored order.
fn check_grid(dir: &Path, m: &Manifest) -> Result<()> {
    let index = crate::graph::load_grid_index(dir, m)?.expect("the manifest records a grid");
    let info = index.info;
    let path = dir.join(FileRole::GridEdges.file_name());
    let mut r = open(&path)?;
    let p = info.cells_per_side;
    let (mut payload, mut raw, mut bytes) = (Vec::new(), Vec::new(), Vec::new());
    let mut per_row = vec![0u64; p as usize];
    for c in 0..p {
        for row in 0..p {
            let k = index.cell(row, c);
            let m_edges = (index.edges[k + 1] - index.edges[k]) as usize;
            let at = index.bytes[k];
            raw.resize((index.bytes[k + 1] - at) as usize, 0);
            r.read_exact(&mut raw).map_err(|e| Error::io(&path, "read", e))?;
            let bad = |msg: String| Error::Format { path: path.clone(), offset: Some(at), msg };
            payload.resize(2 * m_edges, 0u16);
            if !info.codec.decode(&raw, &mut bytes, &mut payload) {
                return Err(bad(format!("cell ({row}, {c}) does not decode to {m_edges} arcs")));
            }
            let limit = |b: u32| (m.num_vertices - ((b as u64) << info.block_bits)).min(1 << info.block_bits);
            let (rows, cols) = (limit(row), limit(c));
            for (i, &off) in payload.iter().enumerate() {
                let off = off as u64;
                let (side, bound) = if i < m_edges { ("source", rows) } else { ("destination", cols) };
                if off >= bound {
                    return Err(bad(format!("cell ({row}, {c}): {side} offset {off} is outside its block")));
                }
            }
            per_row[row as usize] += m_edges as u64;
        }
    }
    // Each source block's arcs in the grid are the CSR's arcs of those vertices.
    let n = m.num_vertices;
    let mut block_first = 0u64;
    check_monotone(dir, FileRole::OutOffsets, n + 1, m.num_arcs, |v, offset| {
        let ends_block = v > 0 && (v.is_multiple_of(1 << info.block_bits) || v == n);
        if ends_block {
            let row = ((v - 1) >> info.block_bits) as usize;
            if per_row[row] != offset - block_first {
                return Err(Error::format(
                    &path,
                    format!(
                        "the cells of row {row} hold {} arcs, the CSR {}",
                        per_row[row],
                        offset - block_first
                    ),
                ));
            }
            block_first = offset;
        }
        Ok(())
    })
}
