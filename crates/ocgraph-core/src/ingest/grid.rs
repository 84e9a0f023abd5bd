//! Builds the grid layout ([`crate::format::grid`]) of a stored graph from its out-CSR, within
//! a memory budget, and installs it in the graph directory.
//!
//! Two passes over the out-lists, each split into vertex ranges handled in parallel (in the
//! manner of GridGraph's preprocessing, Zhu et al. 2015, but from a CSR rather than an edge
//! list): the first counts the arcs of every (range, cell) pair, so that every range knows
//! where its arcs go in every cell; the second scatters the arcs into per-cell buffers and
//! writes each full buffer at its place with `pwrite`. The buffers are the memory budget:
//! `workers x P^2` of them. With LZ4, a third pass reads the uncompressed cells back one
//! group at a time, compresses them in parallel and appends them to the final file.
//!
//! Installation is crash-safe: the files are written under temporary names and fsynced; a
//! graph that had a grid first gets a manifest without it; then the files are renamed into
//! place and the manifest naming them (with their checksums) replaces the old one. A crash at
//! any point leaves a graph that opens, with the old grid, no grid, or the new one.

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use super::pack::{open_base, verify_source};
use super::progress::{Progress, Unit};
use super::remove::remove_files;
use crate::error::{Error, Result};
use crate::format::grid::{Codec, GridIndex, GridInfo};
use crate::format::{pad_len, FileEntry, FileRole, Manifest};
use crate::graph::Graph;
use crate::update::{lock_for_writing, removing_leftovers_on_error};
use crate::{Adjacency, Vertex};

/// How to build a grid.
#[derive(Debug, Clone)]
pub struct GridOptions {
    /// Cells per side wanted (rounded so that blocks are powers of two of at most 2^16 ids);
    /// `None`: the fewest blocks of 2^16 ids.
    pub cells_per_side: Option<u32>,
    /// Bytes the build may use for its buffers (the per-vertex-range counts come on top:
    /// 8 bytes per cell and range).
    pub memory: u64,
    /// How to store the cells.
    pub codec: Codec,
}

impl Default for GridOptions {
    fn default() -> Self {
        GridOptions { cells_per_side: None, memory: 256 << 20, codec: Codec::None }
    }
}

/// What [`build_grid`] built.
#[derive(Debug, Clone)]
pub struct GridReport {
    /// The grid's shape.
    pub info: GridInfo,
    /// Arcs in the cells.
    pub arcs: u64,
    /// Bytes of `grid.edges` (after compression).
    pub stored_bytes: u64,
    /// Bytes the cells take uncompressed (4 per arc).
    pub raw_bytes: u64,
    /// Wall time of the build in seconds.
    pub secs: f64,
}

/// The smallest buffer, in arcs, per cell and worker: below this the writes get too small.
const MIN_BUFFER_ARCS: usize = 64;
/// The largest useful buffer per cell and worker.
const MAX_BUFFER_ARCS: usize = 1 << 14;
/// Most cells compressed per parallel group.
const COMPRESS_GROUP: usize = 256;

/// Builds the grid of the graph at `dir` (which must have no unmerged updates) and installs
/// it beside the CSR, replacing any grid it had.
pub fn build_grid(dir: &Path, opts: &GridOptions, progress: &dyn Progress) -> Result<GridReport> {
    let _writing = lock_for_writing(dir)?;
    verify_source(dir)?;
    removing_leftovers_on_error(dir, build_grid_unlocked(dir, opts, progress))
}

/// [`build_grid`] by a caller that already holds the graph's writer lock (compaction, which
/// builds the grid of a new base before switching to it).
pub(crate) fn build_grid_unlocked(
    dir: &Path,
    opts: &GridOptions,
    progress: &dyn Progress,
) -> Result<GridReport> {
    let started = Instant::now();
    let g = open_base(dir, "building a grid for")?;
    let m = g.manifest().clone();
    let info = GridInfo::for_vertices(m.num_vertices, opts.cells_per_side, opts.codec)?;
    let data = m.data_path(dir);
    let tmp = |role: FileRole| data.join(format!("{}.tmp", role.file_name()));
    let ranges = worker_ranges(&g);
    progress.phase("count", Some(m.num_arcs), Unit::Edges);
    let counts = count_cells(&g, &info, &ranges, progress);
    let mut edges = vec![0u64; info.num_cells() + 1];
    for k in 0..info.num_cells() {
        edges[k + 1] = edges[k] + counts.iter().map(|c| c[k]).sum::<u64>();
    }
    let raw_path = match opts.codec {
        Codec::None => tmp(FileRole::GridEdges),
        Codec::Lz4 | Codec::Runs => data.join("grid.edges.raw.tmp"),
    };
    let weights_path = m.weighted.then(|| tmp(FileRole::GridWeights));
    progress.phase("scatter", Some(m.num_arcs), Unit::Edges);
    scatter(&g, &info, &ranges, &counts, &edges, &raw_path, weights_path.as_deref(), opts.memory, progress)?;
    drop(g);
    let bytes = match opts.codec {
        Codec::None => edges.iter().map(|e| e * 4).collect(),
        codec => {
            progress.phase("compress", Some(m.num_arcs), Unit::Edges);
            let b = compress(&raw_path, &tmp(FileRole::GridEdges), &edges, codec, opts.memory, progress);
            let _ = std::fs::remove_file(&raw_path);
            b?
        }
    };
    let stored = *bytes.last().expect("P^2 + 1 entries");
    let index = GridIndex { info, edges, bytes };
    let index_bytes = index.to_bytes(m.num_vertices, m.num_arcs, m.weighted);
    std::fs::write(tmp(FileRole::GridIndex), &index_bytes)
        .map_err(|e| Error::io(tmp(FileRole::GridIndex), "write", e))?;
    progress.phase("checksum", None, Unit::Bytes);
    let mut files = vec![
        (FileRole::GridIndex, seal(&tmp(FileRole::GridIndex), index_bytes.len() as u64)?),
        (FileRole::GridEdges, seal(&tmp(FileRole::GridEdges), stored)?),
    ];
    if let Some(w) = &weights_path {
        files.push((FileRole::GridWeights, seal(w, m.num_arcs * 4)?));
    }
    let arcs = m.num_arcs;
    install(dir, &data, m, info, &files)?;
    progress.finish();
    Ok(GridReport {
        info,
        arcs,
        stored_bytes: stored,
        raw_bytes: arcs * 4,
        secs: started.elapsed().as_secs_f64(),
    })
}

/// Vertex ranges of about equal arc counts, a few per thread of the current rayon pool.
fn worker_ranges(g: &Graph) -> Vec<std::ops::Range<Vertex>> {
    let out = g.out();
    let n = g.num_vertices() as Vertex;
    let pieces = (rayon::current_num_threads() * 2).max(1) as u64;
    let per = g.num_arcs().div_ceil(pieces).max(1);
    let mut ranges = Vec::new();
    let (mut start, mut acc) = (0, 0u64);
    out.for_each_degree_in_range(0..n, |v, d| {
        acc += d as u64;
        if acc >= per {
            ranges.push(start..v + 1);
            (start, acc) = (v + 1, 0);
        }
    });
    if start < n || ranges.is_empty() {
        ranges.push(start..n);
    }
    ranges
}

/// Arcs per cell of each range's sources.
fn count_cells(
    g: &Graph,
    info: &GridInfo,
    ranges: &[std::ops::Range<Vertex>],
    progress: &dyn Progress,
) -> Vec<Vec<u64>> {
    let (p, bits) = (info.cells_per_side as usize, info.block_bits);
    let out = g.out();
    ranges
        .par_iter()
        .map(|r| {
            let mut c = vec![0u64; info.num_cells()];
            out.for_each_in_range(r.clone(), |u, nbrs| {
                let row = (u >> bits) as usize;
                for &v in nbrs.iter() {
                    c[(v >> bits) as usize * p + row] += 1;
                }
                progress.advance(nbrs.len() as u64);
            });
            c
        })
        .collect()
}

/// Scatters the arcs into the uncompressed cells of `path` (and their weights into `weights`).
#[allow(clippy::too_many_arguments)]
fn scatter(
    g: &Graph,
    info: &GridInfo,
    ranges: &[std::ops::Range<Vertex>],
    counts: &[Vec<u64>],
    edges: &[u64],
    path: &Path,
    weights: Option<&Path>,
    memory: u64,
    progress: &dyn Progress,
) -> Result<()> {
    let create = |p: &Path, len: u64| -> Result<File> {
        let f = File::create(p).map_err(|e| Error::io(p, "create", e))?;
        f.set_len(len).map_err(|e| Error::io(p, "extend", e))?;
        Ok(f)
    };
    let total = *edges.last().expect("entries");
    let file = create(path, total * 4)?;
    let wfile = weights.map(|w| create(w, total * 4)).transpose()?;
    let cells = info.num_cells();
    let per_arc = if weights.is_some() { 8 } else { 4 };
    let cap = (memory / (ranges.len() as u64 * cells as u64 * per_arc))
        .clamp(MIN_BUFFER_ARCS as u64, MAX_BUFFER_ARCS as u64) as usize;
    let (p, bits, mask) = (info.cells_per_side as usize, info.block_bits, (1u32 << info.block_bits) - 1);
    let out = g.out();
    ranges.par_iter().enumerate().try_for_each(|(t, r)| -> Result<()> {
        // Where this range's arcs start in each cell: after the cell's arcs of earlier ranges.
        let mut next: Vec<u64> = (0..cells).map(|k| counts[..t].iter().map(|c| c[k]).sum()).collect();
        let mut bufs = CellBuffers::new(cells, cap, weights.is_some());
        let mut err = None;
        let mut push = |k: usize, s: u16, d: u16, w: f32, bufs: &mut CellBuffers| {
            if bufs.push(k, s, d, w) {
                let at = next[k];
                next[k] += bufs.len(k) as u64;
                if let Err(e) = bufs.flush(k, edges, at, (&file, path), wfile.as_ref().zip(weights)) {
                    err.get_or_insert(e);
                }
            }
        };
        if weights.is_some() {
            out.for_each_weighted_in_range(r.clone(), |u, nbrs, ws| {
                for (&v, &w) in nbrs.iter().zip(ws) {
                    let k = (v >> bits) as usize * p + (u >> bits) as usize;
                    push(k, (u & mask) as u16, (v & mask) as u16, w, &mut bufs);
                }
                progress.advance(nbrs.len() as u64);
            });
        } else {
            out.for_each_in_range(r.clone(), |u, nbrs| {
                for &v in nbrs.iter() {
                    let k = (v >> bits) as usize * p + (u >> bits) as usize;
                    push(k, (u & mask) as u16, (v & mask) as u16, 1.0, &mut bufs);
                }
                progress.advance(nbrs.len() as u64);
            });
        }
        if let Some(e) = err {
            return Err(e);
        }
        for (k, &at) in next.iter().enumerate() {
            if bufs.len(k) > 0 {
                bufs.flush(k, edges, at, (&file, path), wfile.as_ref().zip(weights))?;
            }
        }
        Ok(())
    })
}

/// One worker's buffers: up to `cap` arcs per cell.
struct CellBuffers {
    cap: usize,
    src: Vec<Vec<u16>>,
    dst: Vec<Vec<u16>>,
    w: Vec<Vec<f32>>,
}

impl CellBuffers {
    fn new(cells: usize, cap: usize, weighted: bool) -> CellBuffers {
        let w = if weighted { vec![Vec::new(); cells] } else { Vec::new() };
        CellBuffers { cap, src: vec![Vec::new(); cells], dst: vec![Vec::new(); cells], w }
    }

    fn len(&self, k: usize) -> usize {
        self.src[k].len()
    }

    /// Adds an arc to cell `k`; returns whether the buffer is now full.
    fn push(&mut self, k: usize, s: u16, d: u16, w: f32) -> bool {
        self.src[k].push(s);
        self.dst[k].push(d);
        if !self.w.is_empty() {
            self.w[k].push(w);
        }
        self.src[k].len() >= self.cap
    }

    /// Writes cell `k`'s buffer at position `at` of the cell (whose edges start at
    /// `edges[k]`) and empties it.
    fn flush(
        &mut self,
        k: usize,
        edges: &[u64],
        at: u64,
        file: (&File, &Path),
        weights: Option<(&File, &Path)>,
    ) -> Result<()> {
        let (start, m) = (edges[k], edges[k + 1] - edges[k]);
        let write = |(f, p): (&File, &Path), bytes: &[u8], offset: u64| {
            f.write_all_at(bytes, offset).map_err(|e| Error::io(p, "write", e))
        };
        write(file, bytemuck::cast_slice(&self.src[k]), 4 * start + 2 * at)?;
        write(file, bytemuck::cast_slice(&self.dst[k]), 4 * start + 2 * (m + at))?;
        if let Some(wf) = weights {
            write(wf, bytemuck::cast_slice(&self.w[k]), 4 * (start + at))?;
            self.w[k].clear();
        }
        self.src[k].clear();
        self.dst[k].clear();
        Ok(())
    }
}

/// Encodes every cell of the uncompressed grid at `raw` with `codec` into `out`; returns the
/// cells' first-byte offsets. Cells are encoded in parallel groups whose raw bytes (4 an arc,
/// held with their encoding until the group is written) fit half of `memory`; a group holds at
/// least one cell, so a cell larger than that is held whole.
fn compress(
    raw: &Path,
    out: &Path,
    edges: &[u64],
    codec: Codec,
    memory: u64,
    progress: &dyn Progress,
) -> Result<Vec<u64>> {
    let input = File::open(raw).map_err(|e| Error::io(raw, "open", e))?;
    let mut output = std::io::BufWriter::with_capacity(
        1 << 20,
        File::create(out).map_err(|e| Error::io(out, "create", e))?,
    );
    let cells = edges.len() - 1;
    let mut bytes = Vec::with_capacity(edges.len());
    bytes.push(0u64);
    let mut start = 0;
    while start < cells {
        let mut end = start + 1;
        while end < cells && end - start < COMPRESS_GROUP && (edges[end + 1] - edges[start]) * 4 <= memory / 2
        {
            end += 1;
        }
        let packed: Vec<Vec<u8>> = (start..end)
            .into_par_iter()
            .map(|k| {
                let mut payload = vec![0u16; ((edges[k + 1] - edges[k]) * 2) as usize];
                input
                    .read_exact_at(bytemuck::cast_slice_mut(&mut payload), edges[k] * 4)
                    .map_err(|e| Error::io(raw, "read", e))?;
                progress.advance(edges[k + 1] - edges[k]);
                Ok(codec.encode(&payload))
            })
            .collect::<Result<_>>()?;
        start = end;
        for p in packed {
            output.write_all(&p).map_err(|e| Error::io(out, "write", e))?;
            bytes.push(bytes.last().expect("first entry") + p.len() as u64);
        }
    }
    output.flush().map_err(|e| Error::io(out, "write", e))?;
    Ok(bytes)
}

/// Pads the file at `path` holding `len` bytes of data to the alignment, fsyncs it, and returns
/// its manifest entry (its checksum read back from the file).
pub(super) fn seal(path: &Path, len: u64) -> Result<FileEntry> {
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| Error::io(path, "open", e))?;
    f.set_len(pad_len(len)).map_err(|e| Error::io(path, "extend", e))?;
    f.sync_all().map_err(|e| Error::io(path, "fsync", e))?;
    let mut crc = 0u32;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let k = f.read(&mut buf).map_err(|e| Error::io(path, "read", e))?;
        if k == 0 {
            break;
        }
        crc = crc32c::crc32c_append(crc, &buf[..k]);
    }
    Ok(FileEntry { len, crc32c: crc, generation: None })
}

/// Renames the sealed temporary files into place and records the grid in the manifest (see the
/// module documentation for the order).
fn install(
    dir: &Path,
    data: &Path,
    mut m: Manifest,
    info: GridInfo,
    files: &[(FileRole, FileEntry)],
) -> Result<()> {
    let grid_roles = [FileRole::GridIndex, FileRole::GridEdges, FileRole::GridWeights];
    if m.grid.is_some() {
        m.grid = None;
        for r in grid_roles {
            m.files.remove(r.file_name());
        }
        m.write_atomic(dir)?;
    }
    for (role, _) in files {
        let (from, to): (PathBuf, PathBuf) =
            (data.join(format!("{}.tmp", role.file_name())), data.join(role.file_name()));
        std::fs::rename(&from, &to).map_err(|e| Error::io(&to, "rename", e))?;
    }
    crate::format::fsync_dir(data)?;
    m.grid = Some(info);
    for (role, entry) in files {
        m.files.insert(role.file_name().to_string(), *entry);
    }
    m.write_atomic(dir)
}

/// Removes the grid of the graph at `dir`, if it has one: the manifest first, then the files.
pub fn remove_grid(dir: &Path) -> Result<bool> {
    let _writing = lock_for_writing(dir)?;
    let mut m = Manifest::read(dir)?;
    if m.grid.is_none() {
        return Ok(false);
    }
    m.grid = None;
    remove_files(dir, m, [FileRole::GridIndex, FileRole::GridEdges, FileRole::GridWeights])?;
    Ok(true)
}
