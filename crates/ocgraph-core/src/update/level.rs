//! Immutable delta levels: the frozen net effect of a delta, one file per level under
//! `<graph>/levels/`, read through the page layer's mmap backend.
//!
//! ```text
//! offset size field
//! 0      8    magic "OCLEVEL\0"
//! 8      4    version (1)
//! 12     4    flags: bit 0 weighted, bit 1 directed (an in-side section follows the out-side)
//! 16     8    upto_seq: the last WAL batch the level contains
//! 24     8    num_vertices as of upto_seq
//! 32     4    CRC-32C of bytes [0, 32) and [36, data_end)
//! 36     4    reserved, zero
//! 40     8    data_end: bytes of data (the file is zero-padded to a multiple of 4096)
//! 48     16   reserved, zero
//! 64     ..   the out-side section, then (directed) the in-side section; each section:
//!             k (u64), m (u64),
//!             vertices: k u32 ascending, zero-padded to a multiple of 8 bytes,
//!             offsets: k + 1 u64 (entry index of each vertex's first entry, then m),
//!             dsts: m u32 (ascending within a vertex), padded to 8,
//!             ops: m u8 (1 = add, 0 = remove: a tombstone), padded to 8,
//!             weights: m f32 (weighted graphs only; 0 for tombstones), padded to 8
//! ```
//!
//! A level holds one net operation per touched arc (the last one of the delta). Memory: the
//! level is mapped, so it costs page cache, not heap; the only per-level heap data is its
//! header (no per-vertex state is kept).

use std::io::Write;
use std::path::Path;

use super::delta::{fold_ops_into, ArcOp};
use crate::error::{Error, Result};
use crate::format::{fsync_dir, pad_len, LevelEntry};
use crate::graph::Vertex;
use crate::page::{MmapSource, PageSource, PagedFile};

const MAGIC: &[u8; 8] = b"OCLEVEL\0";
const VERSION: u32 = 1;
const HEADER: usize = 64;

/// The net operations of one side (out or in) of a level, as a CSR over the touched vertices:
/// vertices ascending, each with its operations sorted by dst (one per dst).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SideOps {
    vertices: Vec<Vertex>,
    /// `offsets[i]..offsets[i + 1]` are the operations of `vertices[i]` in `ops`.
    offsets: Vec<usize>,
    ops: Vec<(Vertex, ArcOp)>,
}

impl SideOps {
    /// Empty, with room for `k` vertices.
    pub fn with_capacity(k: usize) -> SideOps {
        let mut offsets = Vec::with_capacity(k + 1);
        offsets.push(0);
        SideOps { vertices: Vec::with_capacity(k), offsets, ops: Vec::new() }
    }

    /// Appends vertex `v` (above every vertex so far) with the net effect of `ops` (in record
    /// order; see [`fold_ops_into`]); nothing when `ops` is empty.
    pub fn push_folded(&mut self, v: Vertex, ops: &[(Vertex, ArcOp)]) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        debug_assert!(self.vertices.last().is_none_or(|&l| l < v));
        if ops.is_empty() {
            return;
        }
        fold_ops_into(ops, &mut self.ops);
        self.vertices.push(v);
        self.offsets.push(self.ops.len());
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.vertices.len()
    }

    /// Whether no vertex is touched.
    pub fn is_empty(&self) -> bool {
        self.vertices.is_empty()
    }

    /// The touched vertices, ascending.
    pub fn vertices(&self) -> &[Vertex] {
        &self.vertices
    }

    /// The operations of the `i`-th vertex (sorted by dst).
    pub fn ops_at(&self, i: usize) -> &[(Vertex, ArcOp)] {
        &self.ops[self.offsets[i]..self.offsets[i + 1]]
    }
}

fn pad8(buf: &mut Vec<u8>) {
    buf.resize(buf.len().div_ceil(8) * 8, 0);
}

fn encode_side(buf: &mut Vec<u8>, side: &SideOps, weighted: bool) {
    let m = side.ops.len();
    buf.reserve(16 + side.len() * 12 + m * 9 + 40);
    buf.extend_from_slice(&(side.len() as u64).to_le_bytes());
    buf.extend_from_slice(&(m as u64).to_le_bytes());
    for v in &side.vertices {
        buf.extend_from_slice(&v.to_le_bytes());
    }
    pad8(buf);
    if side.offsets.is_empty() {
        buf.extend_from_slice(&0u64.to_le_bytes());
    }
    for &off in &side.offsets {
        buf.extend_from_slice(&(off as u64).to_le_bytes());
    }
    for (d, _) in &side.ops {
        buf.extend_from_slice(&d.to_le_bytes());
    }
    pad8(buf);
    buf.extend(side.ops.iter().map(|(_, op)| matches!(op, ArcOp::Add(_)) as u8));
    pad8(buf);
    if weighted {
        for (_, op) in &side.ops {
            let w = match op {
                ArcOp::Add(w) => *w,
                ArcOp::Remove => 0.0,
            };
            buf.extend_from_slice(&w.to_le_bytes());
        }
        pad8(buf);
    }
}

/// Writes level `name` into `levels_dir` atomically (temporary file, fsync, rename, directory
/// fsync) and returns its manifest entry. `sides` holds the out side and, for directed graphs,
/// the in side.
pub fn write_level(
    levels_dir: &Path,
    name: &str,
    upto_seq: u64,
    num_vertices: u64,
    weighted: bool,
    sides: &[SideOps],
) -> Result<LevelEntry> {
    let mut buf = Vec::new();
    buf.extend_from_slice(MAGIC);
    buf.extend_from_slice(&VERSION.to_le_bytes());
    let flags = weighted as u32 | ((sides.len() > 1) as u32) << 1;
    buf.extend_from_slice(&flags.to_le_bytes());
    buf.extend_from_slice(&upto_seq.to_le_bytes());
    buf.extend_from_slice(&num_vertices.to_le_bytes());
    buf.resize(HEADER, 0);
    for side in sides {
        encode_side(&mut buf, side, weighted);
    }
    let data_end = buf.len() as u64;
    buf[40..48].copy_from_slice(&data_end.to_le_bytes());
    let crc = crc32c::crc32c_append(crc32c::crc32c(&buf[..32]), &buf[36..]);
    buf[32..36].copy_from_slice(&crc.to_le_bytes());
    buf.resize(pad_len(data_end) as usize, 0);

    std::fs::create_dir_all(levels_dir).map_err(|e| Error::io(levels_dir, "create directory", e))?;
    let tmp = levels_dir.join(format!(".{name}.tmp"));
    let path = levels_dir.join(name);
    {
        let mut f = std::fs::File::create(&tmp).map_err(|e| Error::io(&tmp, "create", e))?;
        f.write_all(&buf).map_err(|e| Error::io(&tmp, "write", e))?;
        f.sync_all().map_err(|e| Error::io(&tmp, "fsync", e))?;
    }
    std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, "rename", e))?;
    fsync_dir(levels_dir)?;
    Ok(LevelEntry { name: name.to_string(), len: buf.len() as u64, crc32c: crc, upto_seq })
}

/// Byte offsets of one side's arrays in the level file.
#[derive(Debug, Clone, Copy)]
struct Side {
    k: u64,
    m: u64,
    vertices: u64,
    offsets: u64,
    dsts: u64,
    ops: u64,
    weights: Option<u64>,
}

/// An opened, verified level.
pub(crate) struct Level {
    src: MmapSource,
    weighted: bool,
    sides: Vec<Side>,
    /// The vertex count as of the level's last batch (header field).
    num_vertices: u64,
}

fn up8(x: u64) -> u64 {
    x.div_ceil(8) * 8
}

impl Level {
    /// Maps and verifies the level described by `entry` in `levels_dir` (length, checksum, layout).
    pub(crate) fn open(
        levels_dir: &Path,
        entry: &LevelEntry,
        directed: bool,
        weighted: bool,
    ) -> Result<Level> {
        let path = levels_dir.join(&entry.name);
        let len = std::fs::metadata(&path).map_err(|e| Error::io(&path, "stat", e))?.len();
        let bad = |offset: u64, msg: String| Error::Format { path: path.clone(), offset: Some(offset), msg };
        if len != entry.len || len < HEADER as u64 {
            return Err(bad(0, format!("level file is {len} bytes, manifest says {}", entry.len)));
        }
        let src = MmapSource::open(&[PagedFile { path: path.clone(), len }])?;
        let want = weighted as u32 | (directed as u32) << 1;
        let (sides, num_vertices) =
            Self::parse(&src.read(0, 0, len as usize).typed::<u8>(), entry, want, &bad)?;
        Ok(Level { src, weighted, sides, num_vertices })
    }

    /// The vertex count as of the level's last batch.
    pub(crate) fn num_vertices(&self) -> u64 {
        self.num_vertices
    }

    /// The level's sections and vertex count, after checking its header against `entry`, its
    /// checksum, and its flags against `want` (the graph's: bit 0 weighted, bit 1 directed).
    fn parse(
        b: &[u8],
        entry: &LevelEntry,
        want: u32,
        bad: &dyn Fn(u64, String) -> Error,
    ) -> Result<(Vec<Side>, u64)> {
        let len = b.len() as u64;
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
        if &b[0..8] != MAGIC || u32_at(8) != VERSION {
            return Err(bad(0, "not a level file (bad magic or version)".into()));
        }
        let data_end = u64_at(40);
        if data_end > len || data_end < HEADER as u64 {
            return Err(bad(40, format!("data end {data_end} outside the file")));
        }
        let crc = crc32c::crc32c_append(crc32c::crc32c(&b[..32]), &b[36..data_end as usize]);
        if crc != u32_at(32) || crc != entry.crc32c {
            return Err(bad(
                32,
                format!(
                    "checksum mismatch (header {:#010x}, manifest {:#010x}, computed {crc:#010x})",
                    u32_at(32),
                    entry.crc32c
                ),
            ));
        }
        if u64_at(16) != entry.upto_seq {
            return Err(bad(
                16,
                format!("level holds batches up to {}, manifest says {}", u64_at(16), entry.upto_seq),
            ));
        }
        let num_vertices = u64_at(24);
        let flags = u32_at(12);
        // A level of another shape than the graph's (its flags edited, the checksums resealed)
        // would be read with sections or weights it does not have: refused, as damage is.
        if flags != want {
            let shape = |f: u32| {
                let directed = if f & 2 != 0 { "directed" } else { "undirected" };
                format!("{directed} and {}", if f & 1 != 0 { "weighted" } else { "unweighted" })
            };
            return Err(bad(
                12,
                format!("level flags {flags:#x}, but the graph is {} (flags {want:#x})", shape(want)),
            ));
        }
        let weighted = flags & 1 != 0;
        let nsides = if flags & 2 != 0 { 2 } else { 1 };
        let mut sides = Vec::new();
        let mut pos = HEADER as u64;
        for _ in 0..nsides {
            if pos + 16 > data_end {
                return Err(bad(pos, "section header past the data end".into()));
            }
            let (k, m) = (u64_at(pos as usize), u64_at(pos as usize + 8));
            // Checked before the arithmetic below, which they could overflow.
            if k > u32::MAX as u64 || m > data_end {
                return Err(bad(pos, format!("section of {k} vertices and {m} entries overruns the data")));
            }
            let vertices = pos + 16;
            let offsets = vertices + up8(k * 4);
            let dsts = offsets + (k + 1) * 8;
            let ops = dsts + up8(m * 4);
            let wts = ops + up8(m);
            let end = if weighted { wts + up8(m * 4) } else { wts };
            if end > data_end {
                return Err(bad(pos, format!("section of {k} vertices and {m} entries overruns the data")));
            }
            // Entry offsets index the entries: they must run from 0 to m without decreasing.
            let offs = |i: u64| u64_at((offsets + i * 8) as usize);
            if offs(0) != 0 || offs(k) != m || (0..k).any(|i| offs(i) > offs(i + 1)) {
                return Err(bad(offsets, "entry offsets are not 0..m in order".into()));
            }
            check_entries(b, vertices, k, dsts, ops, m, num_vertices, bad)?;
            sides.push(Side { k, m, vertices, offsets, dsts, ops, weights: weighted.then_some(wts) });
            pos = end;
        }
        Ok((sides, num_vertices))
    }

    fn side(&self, side: usize) -> &Side {
        &self.sides[side.min(self.sides.len() - 1)]
    }

    /// The whole of `side` decoded (vertices ascending, operations sorted by dst).
    pub(crate) fn side_ops(&self, side: usize) -> SideOps {
        let s = *self.side(side);
        let (k, m) = (s.k as usize, s.m as usize);
        let verts = self.src.read(0, s.vertices, k * 4).typed::<u32>();
        let offs = self.src.read(0, s.offsets, (k + 1) * 8).typed::<u64>();
        let dsts = self.src.read(0, s.dsts, m * 4).typed::<u32>();
        let ops = self.src.read(0, s.ops, m).typed::<u8>();
        let wts = s.weights.map(|w| self.src.read(0, w, m * 4).typed::<f32>());
        let mut out = SideOps::with_capacity(k);
        out.vertices.extend_from_slice(&verts);
        out.ops.reserve(m);
        out.ops.extend((0..m).map(|j| {
            let op = if ops[j] == 0 { ArcOp::Remove } else { ArcOp::Add(wts.as_ref().map_or(1.0, |w| w[j])) };
            (dsts[j], op)
        }));
        // Offsets are clamped into 0..=m and made non-decreasing (checked only by the checksum).
        let mut prev = 0;
        out.offsets.extend(offs[1..].iter().map(|&o| {
            prev = (o as usize).clamp(prev, m);
            prev
        }));
        out
    }

    /// Appends `v`'s net operations on `side` to `out` (sorted by dst); false when untouched.
    pub(crate) fn ops(&self, side: usize, v: Vertex, out: &mut Vec<(Vertex, ArcOp)>) -> bool {
        let s = *self.side(side);
        let i = {
            let verts = self.src.read(0, s.vertices, (s.k * 4) as usize).typed::<u32>();
            match verts.binary_search(&v) {
                Ok(i) => i as u64,
                Err(_) => return false,
            }
        };
        let mut o = [0u64; 2];
        self.src.read_into(0, s.offsets + i * 8, bytemuck::cast_slice_mut(&mut o));
        let (a, b) = (o[0].min(s.m), o[1].min(s.m).max(o[0].min(s.m)));
        let n = (b - a) as usize;
        let dsts = self.src.read(0, s.dsts + a * 4, n * 4).typed::<u32>();
        let ops = self.src.read(0, s.ops + a, n).typed::<u8>();
        let wts = s.weights.map(|w| self.src.read(0, w + a * 4, n * 4).typed::<f32>());
        for j in 0..n {
            let op = if ops[j] == 0 { ArcOp::Remove } else { ArcOp::Add(wts.as_ref().map_or(1.0, |w| w[j])) };
            out.push((dsts[j], op));
        }
        debug_assert!(self.weighted == s.weights.is_some());
        true
    }
}

/// Checks a section's entries (a level whose checksum holds may still have been written
/// wrong): its `k` touched vertices at `vertices` rise and lie below the level's
/// `num_vertices`, as do the `m` destinations at `dsts`, and every operation byte at `ops` is 0
/// (remove) or 1 (add). Readers index vertex state by these ids and binary-search the vertices.
#[allow(clippy::too_many_arguments)]
fn check_entries(
    b: &[u8],
    vertices: u64,
    k: u64,
    dsts: u64,
    ops: u64,
    m: u64,
    num_vertices: u64,
    bad: &dyn Fn(u64, String) -> Error,
) -> Result<()> {
    let u32_at = |o: u64| u64::from(u32::from_le_bytes(b[o as usize..o as usize + 4].try_into().unwrap()));
    let mut prev = None;
    for i in 0..k {
        let v = u32_at(vertices + i * 4);
        if v >= num_vertices || prev.is_some_and(|p| p >= v) {
            return Err(bad(
                vertices + i * 4,
                format!(
                    "touched vertex {v} is out of order or not below the level's {num_vertices} vertices"
                ),
            ));
        }
        prev = Some(v);
    }
    if let Some(j) = (0..m).find(|&j| u32_at(dsts + j * 4) >= num_vertices) {
        let d = u32_at(dsts + j * 4);
        return Err(bad(
            dsts + j * 4,
            format!("destination {d} is not below the level's {num_vertices} vertices"),
        ));
    }
    if let Some(j) = (0..m).find(|&j| b[(ops + j) as usize] > 1) {
        return Err(bad(
            ops + j,
            format!("operation byte {} is neither 0 (remove) nor 1 (add)", b[(ops + j) as usize]),
        ));
    }
    Ok(())
}
