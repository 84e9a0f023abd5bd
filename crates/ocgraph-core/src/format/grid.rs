//! The grid layout: the arcs of the out-CSR cut into `P x P` cells by the blocks of their
//! source and destination, for edge-centric kernels (seed 002 ch. 5; GridGraph, Zhu et al.,
//! USENIX ATC 2015). Byte-by-byte layout in docs/design.md, "Grid layout".
//!
//! Vertices are cut into `P` blocks of `2^block_bits` ids (`block_bits <= 16`; the last block
//! may be short). Cell `(r, c)` holds the arcs `u -> v` with `u` in block `r` (its *row*) and `v`
//! in block `c` (its *column*), each end stored as its 16-bit offset in its block, in the order
//! of the CSR (by source, then destination). Cells are stored column by column (cell index
//! `c * P + r`), so that a kernel pulling into one destination block reads one contiguous run.
//!
//! `grid.index` is a 64-byte header and `P * P + 1` entries `(first edge, first byte)` of u64s:
//! cell `k` holds edges `[edge[k], edge[k+1])`, stored in bytes `[byte[k], byte[k+1])` of
//! `grid.edges`. A cell's payload is its `m` source offsets (u16) followed by its `m` destination
//! offsets (u16): `4m` bytes, or with [`Codec::Lz4`] that payload transformed ([`encode_cell`])
//! and compressed as one LZ4 block, or with [`Codec::Runs`] its sources as runs
//! ([`encode_runs`]) followed by its destinations.
//! `grid.weights` (weighted graphs) holds one f32 per edge at index `edge[k] + i`, uncompressed.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Magic bytes of `grid.index`.
pub const GRID_MAGIC: &[u8; 8] = b"OCGGRID\0";
/// Version of the grid files this build writes and reads.
pub const GRID_VERSION: u32 = 1;
/// Bytes of the `grid.index` header.
pub const GRID_HEADER_LEN: usize = 64;
/// The largest block: offsets within a block fit 16 bits.
pub const MAX_BLOCK_BITS: u32 = 16;

/// Most cells per side a grid is built with: `P * P` cells of 16 bytes of index each (16 MiB
/// at 1,024), and as many counters per build worker.
pub const MAX_CELLS_PER_SIDE: u32 = 1 << 10;

/// How cell payloads are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Codec {
    /// Payloads as they are: `4m` bytes per cell.
    None,
    /// Each payload transformed by [`encode_cell`] and compressed as one LZ4 block
    /// (`lz4_flex`, no size prefix).
    Lz4,
    /// Each payload's sources as runs of one source (a flag per arc where a run starts, a byte
    /// or three per run for its source's gap from the previous one) followed by its
    /// destinations as they are ([`encode_runs`]).
    Runs,
}

impl Codec {
    /// The name `--compress` takes.
    pub fn name(self) -> &'static str {
        match self {
            Codec::None => "none",
            Codec::Lz4 => "lz4",
            Codec::Runs => "runs",
        }
    }

    fn code(self) -> u32 {
        match self {
            Codec::None => 0,
            Codec::Lz4 => 1,
            Codec::Runs => 2,
        }
    }

    fn from_code(code: u32) -> Option<Codec> {
        match code {
            0 => Some(Codec::None),
            1 => Some(Codec::Lz4),
            2 => Some(Codec::Runs),
            _ => None,
        }
    }

    /// The stored bytes of a cell whose payload (`m` sources, then `m` destinations) is
    /// `payload`.
    pub fn encode(self, payload: &[u16]) -> Vec<u8> {
        match self {
            Codec::None => bytemuck::cast_slice(payload).to_vec(),
            Codec::Lz4 => lz4_flex::block::compress(&encode_cell(payload)),
            Codec::Runs => encode_runs(payload),
        }
    }

    /// Decodes the stored bytes of a cell into its `payload` (`2m` values, `m` its arc count),
    /// using `scratch` as it needs; false when they do not decode to `m` arcs (a corrupted
    /// file).
    pub fn decode(self, stored: &[u8], scratch: &mut Vec<u8>, payload: &mut [u16]) -> bool {
        match self {
            Codec::None => {
                let ok = stored.len() == 2 * payload.len();
                if ok {
                    bytemuck::cast_slice_mut(payload).copy_from_slice(stored);
                }
                ok
            }
            Codec::Lz4 => {
                scratch.resize(2 * payload.len(), 0);
                let ok = lz4_flex::block::decompress_into(stored, scratch).is_ok_and(|k| k == scratch.len());
                if ok {
                    decode_cell(scratch, payload);
                }
                ok
            }
            Codec::Runs => decode_runs(stored, payload),
        }
    }
}

impl std::str::FromStr for Codec {
    type Err = Error;

    fn from_str(s: &str) -> Result<Codec> {
        match s.to_ascii_lowercase().as_str() {
            "none" => Ok(Codec::None),
            "lz4" => Ok(Codec::Lz4),
            "runs" => Ok(Codec::Runs),
            _ => Err(Error::invalid(format!("unknown grid compression {s:?} (none, lz4, runs)"))),
        }
    }
}

/// The grid's shape, recorded in the manifest (and repeated in the `grid.index` header).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GridInfo {
    /// Cells per side `P`: the number of vertex blocks.
    pub cells_per_side: u32,
    /// A block holds `2^block_bits` vertex ids.
    pub block_bits: u32,
    /// How cell payloads are stored.
    pub codec: Codec,
}

impl GridInfo {
    /// The shape for `n` vertices: the fewest blocks of at most `2^16` ids, or about `cells`
    /// blocks when asked for (blocks are powers of two, so the count is rounded).
    pub fn for_vertices(n: u64, cells: Option<u32>, codec: Codec) -> Result<GridInfo> {
        let want = match cells {
            Some(0) => return Err(Error::invalid("the cells per side must be at least 1")),
            Some(p) if p > MAX_CELLS_PER_SIDE => {
                return Err(Error::invalid(format!(
                    "the cells per side must be at most {MAX_CELLS_PER_SIDE} (the index and the build \
                     count every one of the P x P cells), got {p}"
                )))
            }
            Some(p) => p as u64,
            None => 1,
        };
        let per_block = n.div_ceil(want).max(1);
        let block_bits = (64 - (per_block - 1).leading_zeros()).min(MAX_BLOCK_BITS);
        let cells_per_side = n.div_ceil(1 << block_bits).max(1);
        Ok(GridInfo { cells_per_side: cells_per_side as u32, block_bits, codec })
    }

    /// Number of cells, `P * P`.
    pub fn num_cells(&self) -> usize {
        (self.cells_per_side as usize).pow(2)
    }

    /// Length in bytes of `grid.index`.
    pub fn index_len(&self) -> u64 {
        GRID_HEADER_LEN as u64 + (self.num_cells() as u64 + 1) * 16
    }

    /// Checks the shape against the vertex count `n`.
    pub fn validate(&self, n: u64, path: &Path) -> Result<()> {
        let p = self.cells_per_side as u64;
        let ok = self.block_bits <= MAX_BLOCK_BITS
            && (1..=(1 << 16)).contains(&p)
            && (p - 1) << self.block_bits < n.max(1)
            && n <= p << self.block_bits;
        if !ok {
            return Err(Error::format(
                path,
                format!(
                    "grid of {p} x {p} cells with blocks of 2^{} ids does not cover {n} vertices",
                    self.block_bits
                ),
            ));
        }
        Ok(())
    }
}

/// The decoded `grid.index`: where each cell's edges and bytes are.
#[derive(Debug, Clone)]
pub struct GridIndex {
    /// The shape.
    pub info: GridInfo,
    /// `P * P + 1` first-edge indexes, rising from 0 to the arc count.
    pub edges: Vec<u64>,
    /// `P * P + 1` first-byte offsets into `grid.edges`, rising from 0 to its data length.
    pub bytes: Vec<u64>,
}

/// The fields of the `grid.index` header after its magic.
pub struct GridHeader {
    /// The shape.
    pub info: GridInfo,
    /// Vertices the grid was built for.
    pub num_vertices: u64,
    /// Arcs it holds.
    pub num_arcs: u64,
    /// Whether `grid.weights` holds weights.
    pub weighted: bool,
}

impl GridIndex {
    /// Serialises the index with its header.
    pub fn to_bytes(&self, num_vertices: u64, num_arcs: u64, weighted: bool) -> Vec<u8> {
        let mut entries = Vec::with_capacity(self.edges.len() * 16);
        for (e, b) in self.edges.iter().zip(&self.bytes) {
            entries.extend_from_slice(&e.to_le_bytes());
            entries.extend_from_slice(&b.to_le_bytes());
        }
        let mut out = Vec::with_capacity(GRID_HEADER_LEN + entries.len());
        out.extend_from_slice(GRID_MAGIC);
        for word in [GRID_VERSION, self.info.cells_per_side, self.info.block_bits, self.info.codec.code()] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&num_vertices.to_le_bytes());
        out.extend_from_slice(&num_arcs.to_le_bytes());
        out.extend_from_slice(&(weighted as u32).to_le_bytes());
        out.extend_from_slice(&crc32c::crc32c(&entries).to_le_bytes());
        out.resize(GRID_HEADER_LEN, 0);
        out.extend_from_slice(&entries);
        out
    }

    /// Parses and verifies `grid.index` bytes (`path` names the file in errors): magic,
    /// version, the entries' checksum, that the header agrees with `expect` (the manifest's
    /// view), and that the entries rise from 0 to `num_arcs` edges and `edges_len` bytes, with
    /// `4m` bytes for a cell of `m` edges when uncompressed.
    pub fn parse(bytes: &[u8], path: &Path, expect: &GridHeader, edges_len: u64) -> Result<GridIndex> {
        let bad = |offset: usize, msg: String| Error::Format {
            path: path.into(),
            offset: Some(offset as u64),
            msg,
        };
        if bytes.len() < GRID_HEADER_LEN || &bytes[..8] != GRID_MAGIC {
            return Err(bad(0, "not a grid index (bad magic or shorter than its header)".into()));
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().expect("8 bytes"));
        match u32_at(8) {
            GRID_VERSION => {}
            // The grid's own version, not the graph's: a format error, which names the way out.
            v if v > GRID_VERSION => {
                return Err(bad(
                    8,
                    format!(
                        "grid version {v} is newer than this build reads ({GRID_VERSION}); upgrade ocgraph"
                    ),
                ))
            }
            // No build wrote an older version: the field is corrupted.
            v => {
                return Err(bad(
                    8,
                    format!("version {v}, which no build writes (this one writes {GRID_VERSION})"),
                ))
            }
        }
        let codec =
            Codec::from_code(u32_at(20)).ok_or_else(|| bad(20, format!("unknown codec {}", u32_at(20))))?;
        let info = GridInfo { cells_per_side: u32_at(12), block_bits: u32_at(16), codec };
        let found = (info, u64_at(24), u64_at(32), u32_at(40) == 1);
        let want = (expect.info, expect.num_vertices, expect.num_arcs, expect.weighted);
        if found != want {
            return Err(bad(
                12,
                format!(
                    "header says {}x{} cells of 2^{} ids, {:?}, {} vertices, {} arcs, weighted {}; \
                     the manifest says {}x{} cells of 2^{} ids, {:?}, {} vertices, {} arcs, weighted {}",
                    found.0.cells_per_side,
                    found.0.cells_per_side,
                    found.0.block_bits,
                    found.0.codec,
                    found.1,
                    found.2,
                    found.3,
                    want.0.cells_per_side,
                    want.0.cells_per_side,
                    want.0.block_bits,
                    want.0.codec,
                    want.1,
                    want.2,
                    want.3
                ),
            ));
        }
        let count = info.num_cells() + 1;
        if bytes.len() as u64 != info.index_len() {
            return Err(bad(
                0,
                format!("{} bytes, {} expected for {count} entries", bytes.len(), info.index_len()),
            ));
        }
        let entries = &bytes[GRID_HEADER_LEN..];
        let crc = crc32c::crc32c(entries);
        if crc != u32_at(44) {
            return Err(bad(
                44,
                format!("entries checksum mismatch (stored {:#010x}, computed {crc:#010x})", u32_at(44)),
            ));
        }
        let mut edges = Vec::with_capacity(count);
        let mut offsets = Vec::with_capacity(count);
        for k in 0..count {
            let o = GRID_HEADER_LEN + 16 * k;
            let (e, b) = (u64_at(o), u64_at(o + 8));
            let (pe, pb) = if k == 0 { (0, 0) } else { (edges[k - 1], offsets[k - 1]) };
            let raw = (e.wrapping_sub(pe)) * 4;
            let fits = e >= pe && b >= pb && (codec != Codec::None || b - pb == raw);
            if !fits || (k == 0 && (e, b) != (0, 0)) {
                return Err(bad(
                    o,
                    format!("cell entry {k} ({e} edges, byte {b}) does not follow entry {}", k.max(1) - 1),
                ));
            }
            edges.push(e);
            offsets.push(b);
        }
        if edges[count - 1] != expect.num_arcs || offsets[count - 1] != edges_len {
            return Err(bad(
                GRID_HEADER_LEN + 16 * (count - 1),
                format!(
                    "cells end at {} edges and byte {}, expected {} arcs and {edges_len} bytes",
                    edges[count - 1],
                    offsets[count - 1],
                    expect.num_arcs
                ),
            ));
        }
        Ok(GridIndex { info, edges, bytes: offsets })
    }

    /// Index of cell `(row, col)`: cells are stored column by column.
    pub fn cell(&self, row: u32, col: u32) -> usize {
        col as usize * self.info.cells_per_side as usize + row as usize
    }
}

/// The transform applied to a cell's payload before LZ4 (1.67x smaller than the raw payload
/// on kron22 after LZ4, against 1.45x for LZ4 alone): each source offset becomes its difference
/// from the previous one (the first: from 0), each destination offset its difference from the
/// previous one when the source repeats (the CSR order sorts a source's destinations), else
/// itself; then the `2m` u16 values are split into byte planes, the `2m` low bytes followed by
/// the `2m` high bytes. Small differences leave long runs of zero high bytes that LZ4 folds.
/// `payload` is `m` sources then `m` destinations; returns `4m` bytes.
pub fn encode_cell(payload: &[u16]) -> Vec<u8> {
    let m = payload.len() / 2;
    let (src, dst) = payload.split_at(m);
    let mut out = vec![0u8; 4 * m];
    let (lo, hi) = out.split_at_mut(2 * m);
    for i in 0..m {
        let prev = if i == 0 { 0 } else { src[i - 1] };
        let ds = src[i].wrapping_sub(prev);
        let dd = if i > 0 && ds == 0 { dst[i].wrapping_sub(dst[i - 1]) } else { dst[i] };
        for (j, v) in [(i, ds), (m + i, dd)] {
            lo[j] = v as u8;
            hi[j] = (v >> 8) as u8;
        }
    }
    out
}

/// Inverts [`encode_cell`]: `bytes` (`4m`, as decompressed) into `payload` (`2m` u16 values:
/// sources, then destinations). Any input decodes (wrapping arithmetic); a corrupted one gives
/// wrong offsets, which the checksum catches.
pub fn decode_cell(bytes: &[u8], payload: &mut [u16]) {
    let m = payload.len() / 2;
    let (lo, hi) = bytes.split_at(2 * m);
    // The byte planes joined first, in a loop the compiler vectorises; then the differences
    // summed in one scalar pass whose only carried work is an add (and a mask) per array.
    for (out, (&l, &h)) in payload.iter_mut().zip(lo.iter().zip(hi)) {
        *out = u16::from_le_bytes([l, h]);
    }
    let (src, dst) = payload.split_at_mut(m);
    let (Some(&first_src), Some(&first_dst)) = (src.first(), dst.first()) else { return };
    let (mut s, mut d) = (first_src, first_dst);
    for (x, y) in src[1..].iter_mut().zip(&mut dst[1..]) {
        let ds = *x;
        s = s.wrapping_add(ds);
        *x = s;
        // A destination continues its source's run (a difference) when the source repeats.
        let same_source = 0u16.wrapping_sub(u16::from(ds == 0));
        d = y.wrapping_add(d & same_source);
        *y = d;
    }
}

/// A byte that says a larger number follows ([`encode_runs`]).
const ESCAPE: u8 = 255;

/// A cell's payload (`m` sources ascending, then `m` destinations) as runs of one source:
/// `ceil(m / 8)` bytes of flags (bit `i % 8` of byte `i / 8` set when arc `i` starts a run:
/// its source differs from arc `i - 1`'s, and for arc 0), then each run's source as its gap
/// from the previous run's (from 0 for the first) in one byte, or 255 and a u16, then the `m`
/// destinations as u16 (all little-endian).
pub fn encode_runs(payload: &[u16]) -> Vec<u8> {
    let m = payload.len() / 2;
    let (src, dst) = payload.split_at(m);
    let mut out = vec![0u8; m.div_ceil(8)];
    let mut prev = 0u16;
    for (i, &s) in src.iter().enumerate() {
        if i == 0 || s != src[i - 1] {
            out[i / 8] |= 1 << (i % 8);
            let gap = s - prev;
            match u8::try_from(gap) {
                Ok(b) if b < ESCAPE => out.push(b),
                _ => {
                    out.push(ESCAPE);
                    out.extend_from_slice(&gap.to_le_bytes());
                }
            }
            prev = s;
        }
    }
    out.extend_from_slice(bytemuck::cast_slice(dst));
    out
}

/// The parts of a cell of `m` arcs stored by [`encode_runs`]: its flags and destination bytes,
/// with the runs' sources put in `run_sources` (after one unused entry, so that run `k` is
/// entry `k + 1`, and before [`RUNS_PAD`] unused ones, so that the decoder reads a fixed
/// window past any run); `None` when `bytes` is not such an encoding (lengths that do not add up,
/// arc 0 not starting a run, flags past `m`, a source past 65,535).
fn runs_parts<'a>(bytes: &'a [u8], m: usize, run_sources: &mut Vec<u16>) -> Option<(&'a [u8], &'a [u8])> {
    let flag_len = m.div_ceil(8);
    let gaps_len = bytes.len().checked_sub(flag_len + 2 * m)?;
    let (flags, rest) = bytes.split_at(flag_len);
    let (mut gaps, dst_bytes) = rest.split_at(gaps_len);
    let runs: u32 = flags.iter().map(|b| b.count_ones()).sum();
    let beyond = if m.is_multiple_of(8) { 0 } else { flags[flag_len - 1] >> (m % 8) };
    if (m > 0 && flags[0] & 1 == 0) || beyond != 0 {
        return None;
    }
    run_sources.clear();
    run_sources.resize(runs as usize + 1 + RUNS_PAD, 0);
    // Sources only grow, so checking the last one against 65,535 checks them all (a u64 sum
    // of gaps below 2^16 cannot wrap).
    let mut source = 0u64;
    for slot in &mut run_sources[1..=runs as usize] {
        let gap = match *gaps {
            [g, ref rest @ ..] if g < ESCAPE => {
                gaps = rest;
                u64::from(g)
            }
            [_, lo, hi, ref rest @ ..] => {
                gaps = rest;
                u64::from(u16::from_le_bytes([lo, hi]))
            }
            _ => return None,
        };
        source += gap;
        *slot = source as u16;
    }
    (gaps.is_empty() && source <= u64::from(u16::MAX)).then_some((flags, dst_bytes))
}

/// Unused entries after the runs' sources (see [`runs_parts`]): a byte of flags starts at most
/// 8 runs, so a window of 16 entries from the run before it holds every run it names.
const RUNS_PAD: usize = 16;

/// `PREFIX_RUNS[b][j]`: the bits of `b` set among bits `0..=j`, i.e. how many runs a byte of
/// flags starts up to and including its arc `j`.
const PREFIX_RUNS: [[u8; 8]; 256] = prefix_runs();

/// Builds [`PREFIX_RUNS`].
const fn prefix_runs() -> [[u8; 8]; 256] {
    let mut table = [[0u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let (mut j, mut count) = (0, 0u8);
        while j < 8 {
            count += ((b >> j) & 1) as u8;
            table[b][j] = count;
            j += 1;
        }
        b += 1;
    }
    table
}

/// Writes the sources of arcs `first .. first + src.len()` into `src`, given `run`, the run of
/// arc `first - 1` (0 before arc 0), and returns the run of the last arc. Arcs are taken a byte
/// of flags at a time where they can be: each arc's run is the run before the byte plus a
/// table entry ([`PREFIX_RUNS`]), so no arc waits on the one before it (a running count of
/// the flags, one arc at a time, is a chain of dependent additions; runs are a few arcs long
/// on Kronecker graphs, so a loop per run would mispredict its end about once a run).
fn expand_sources(flags: &[u8], run_sources: &[u16], first: usize, mut run: usize, src: &mut [u16]) -> usize {
    let one_at_a_time = |run: &mut usize, a: usize, s: &mut u16| {
        *run += usize::from(flags[a / 8] >> (a % 8) & 1);
        *s = run_sources[*run];
    };
    let (head, end) = (((8 - first % 8) % 8).min(src.len()), first + src.len());
    let (head_src, rest) = src.split_at_mut(head);
    for (i, s) in head_src.iter_mut().enumerate() {
        one_at_a_time(&mut run, first + i, s);
    }
    let body = first + head;
    let mut chunks = rest.chunks_exact_mut(8);
    for (chunk, &byte) in (&mut chunks).zip(&flags[body / 8..]) {
        let starts = &PREFIX_RUNS[byte as usize];
        let window: &[u16; RUNS_PAD] = run_sources[run..run + RUNS_PAD].try_into().expect("padded");
        for (s, &k) in chunk.iter_mut().zip(starts) {
            *s = window[usize::from(k) % RUNS_PAD];
        }
        run += usize::from(starts[7]);
    }
    let tail = chunks.into_remainder();
    let tail_first = end - tail.len();
    for (i, s) in tail.iter_mut().enumerate() {
        one_at_a_time(&mut run, tail_first + i, s);
    }
    run
}

/// Decodes a cell of `m` arcs stored by [`encode_runs`] a piece of at most `piece` arcs at a
/// time, so that the piece stays in cache while a kernel reads it: calls `f(sources,
/// destinations, first arc)` for consecutive pieces. `run_sources` and `scratch` are reused
/// memory. Returns false (before any call) when `bytes` is not such an encoding.
pub fn decode_runs_in_pieces(
    bytes: &[u8],
    m: usize,
    piece: usize,
    run_sources: &mut Vec<u16>,
    scratch: &mut Vec<u16>,
    mut f: impl FnMut(&[u16], &[u16], usize),
) -> bool {
    let Some((flags, dst_bytes)) = runs_parts(bytes, m, run_sources) else { return false };
    let piece = piece.max(1);
    scratch.resize(2 * piece, 0);
    let (src, dst) = scratch.split_at_mut(piece);
    // The run of the arc before `first` (0 before arc 0, whose flag is set).
    let mut run = 0usize;
    for first in (0..m).step_by(piece) {
        let len = piece.min(m - first);
        run = expand_sources(flags, run_sources, first, run, &mut src[..len]);
        let d = &mut dst[..len];
        bytemuck::cast_slice_mut::<u16, u8>(d).copy_from_slice(&dst_bytes[2 * first..2 * (first + len)]);
        f(&src[..len], d, first);
    }
    true
}

/// Inverts [`encode_runs`] into `payload` (`2m` values); false when `bytes` is not the
/// encoding of `m` arcs (as [`decode_runs_in_pieces`]).
pub fn decode_runs(bytes: &[u8], payload: &mut [u16]) -> bool {
    let m = payload.len() / 2;
    let (mut runs, mut scratch) = (Vec::new(), Vec::new());
    let (src, dst) = payload.split_at_mut(m);
    decode_runs_in_pieces(bytes, m, m, &mut runs, &mut scratch, |s, d, _| {
        src.copy_from_slice(s);
        dst.copy_from_slice(d);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoded_cells_decode_to_themselves() {
        // Sources ascending with repeats (destinations ascending within a source, duplicates
        // included), a source of 0 first, and offsets near the top of the block.
        let src = [0u16, 0, 0, 3, 3, 7, 65_535, 65_535];
        let dst = [5u16, 5, 9, 0, 65_535, 2, 1, 40_000];
        let payload: Vec<u16> = src.iter().chain(&dst).copied().collect();
        let bytes = encode_cell(&payload);
        assert_eq!(bytes.len(), 4 * src.len());
        // Differences: sources 0,0,0,3,0,4,65528,0; destinations 5,0,4,0,65535,2,1,39999.
        assert_eq!(&bytes[..8], &[0, 0, 0, 3, 0, 4, 0xf8, 0]);
        let mut back = vec![0u16; payload.len()];
        decode_cell(&bytes, &mut back);
        assert_eq!(back, payload);
    }

    /// Random cells of every small length (empty and one arc included) round-trip.
    #[test]
    fn random_cells_round_trip() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for m in (0..40).chain([1000, 1001, 4097, 4098]) {
            // Long runs (50 sources) for even `m`, runs of an arc or two for odd `m`.
            let (sources, step) = if m % 2 == 0 { (50, 1300) } else { (20_000, 3) };
            let mut arcs: Vec<(u16, u16)> =
                (0..m).map(|_| ((next() % sources) as u16 * step, next() as u16)).collect();
            arcs.sort_unstable();
            let payload: Vec<u16> = arcs.iter().map(|a| a.0).chain(arcs.iter().map(|a| a.1)).collect();
            let mut back = vec![7u16; payload.len()];
            decode_cell(&encode_cell(&payload), &mut back);
            assert_eq!(back, payload, "{m} arcs");
            for codec in [Codec::None, Codec::Lz4, Codec::Runs] {
                back.fill(7);
                assert!(codec.decode(&codec.encode(&payload), &mut Vec::new(), &mut back), "{codec:?}");
                assert_eq!(back, payload, "{codec:?}, {m} arcs");
            }
            // Pieces smaller than the runs: runs cut across pieces, in order.
            for piece in [1, 3, 7, 13, 64] {
                let (mut s, mut d) = (Vec::new(), Vec::new());
                let bytes = encode_runs(&payload);
                let ok = decode_runs_in_pieces(
                    &bytes,
                    m,
                    piece,
                    &mut Vec::new(),
                    &mut Vec::new(),
                    |a, b, first| {
                        assert!(a.len() <= piece && a.len() == b.len() && first == s.len());
                        s.extend_from_slice(a);
                        d.extend_from_slice(b);
                    },
                );
                assert!(ok);
                assert_eq!([s, d].concat(), payload, "pieces of {piece}, {m} arcs");
            }
        }
    }

    /// Runs: flags, gaps past a byte escaped; bytes that do not add up do not decode.
    #[test]
    fn runs_encode_by_hand_and_refuse_bad_bytes() {
        // Sources 3 (x2), 300 (x1), 65,535 (x7); destinations 1, 2, ...
        let src: Vec<u16> = [3u16, 3, 300].into_iter().chain(std::iter::repeat_n(65_535, 7)).collect();
        let dst: Vec<u16> = (1..=src.len() as u16).collect();
        let payload: Vec<u16> = src.iter().chain(&dst).copied().collect();
        let bytes = encode_runs(&payload);
        // Runs start at arcs 0, 2 and 3: flags 0b0000_1101, 0; gaps 3, 297 = 0x0129, 65,235 = 0xfed3.
        let head = [0b0000_1101, 0, 3, 255, 0x29, 0x01, 255, 0xd3, 0xfe];
        assert_eq!(&bytes[..head.len()], &head);
        assert_eq!(bytes.len(), head.len() + 2 * src.len());
        let mut back = vec![0u16; payload.len()];
        assert!(decode_runs(&bytes, &mut back));
        assert_eq!(back, payload);
        let mut refused = |edit: &dyn Fn(&mut Vec<u8>)| {
            let mut b = bytes.clone();
            edit(&mut b);
            !decode_runs(&b, &mut back)
        };
        assert!(refused(&|b| b[0] = 0b0000_1100), "arc 0 must start a run");
        assert!(refused(&|b| b[1] = 0b0000_0100), "a flag past the last arc");
        assert!(refused(&|b| b[0] = 0b0001_1101), "one run more than gaps");
        assert!(refused(&|b| b[2] = 254), "a source past 65,535");
        assert!(refused(&|b| {
            b.remove(5);
        }));
        assert!(refused(&|b| b.clear()));
        assert!(decode_runs(&[], &mut []));
    }
}
