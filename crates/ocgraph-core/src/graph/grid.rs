//! [`Grid`]: the grid layout of a graph read through the page layer, and [`EdgeGrid`]: the
//! cell-access trait edge-centric kernels are generic over. The layout is described in
//! [`crate::format::grid`].

use std::ops::Range;
use std::path::Path;

use super::{Adjacency, Graph};
use crate::error::{Error, Result};
use crate::format::grid::{decode_runs_in_pieces, Codec, GridHeader, GridIndex};
use crate::format::FileRole;
use crate::page::{FileId, PageSource};
use crate::Vertex;

/// Edges handed to a kernel per call when a cell is read uncompressed: the arrays of one
/// piece span a few pages, so a read pins (or copies) little at a time.
const PIECE_EDGES: u64 = 16 << 10;

/// Reusable memory for reading cells (a decompressed payload); one per worker thread.
#[derive(Default)]
pub struct CellBuf {
    bytes: Vec<u8>,
    payload: Vec<u16>,
    weights: Vec<f32>,
    /// The sources of a cell's runs ([`Codec::Runs`]).
    runs: Vec<u16>,
    /// A weighted cell's stored bytes ([`Codec::Runs`]).
    packed: Vec<u8>,
}

/// Edge-centric access to a graph cut into `P x P` cells by source and destination block.
///
/// A kernel pulls into destination block `c` by visiting the cells `(0, c) .. (P - 1, c)`;
/// each visit hands it the cell's edges as parallel arrays of 16-bit offsets within the row
/// and column blocks. Implemented by [`Grid`].
pub trait EdgeGrid: Sync {
    /// Number of vertices.
    fn num_vertices(&self) -> usize;

    /// Number of arcs in all cells.
    fn num_arcs(&self) -> u64;

    /// Cells per side `P` (= the number of vertex blocks).
    fn cells_per_side(&self) -> u32;

    /// `log2` of the ids per block; block `b` holds vertices `b << block_bits ..`.
    fn block_bits(&self) -> u32;

    /// Whether the cells carry arc weights.
    fn is_weighted(&self) -> bool;

    /// Whether every arc `u -> v` is stored with `v -> u` and the same weight (an undirected
    /// graph), so that kernels may read only the cells on and above the diagonal.
    fn is_symmetric(&self) -> bool;

    /// Number of arcs in cell `(row, col)`.
    fn cell_len(&self, row: u32, col: u32) -> u64;

    /// Whether `lists` read the graph whose arcs the cells hold: false when they name lists
    /// ([`Adjacency::lists_id`]) of another graph, or of a snapshot whose updates the grid,
    /// built from its base, does not hold. Default: true (unknown).
    fn holds_lists_of<A: Adjacency>(&self, lists: &A) -> bool {
        let _ = lists;
        true
    }

    /// Calls `f(sources, destinations, weights)` for the arcs of cell `(row, col)`, in one or
    /// more pieces, in stored order: `sources[i]` is the offset of the `i`-th arc's source in
    /// block `row`, `destinations[i]` that of its destination in block `col`, `weights` (when
    /// the grid is weighted) its weight. `buf` is scratch memory reused across calls.
    ///
    /// Errors: a compressed cell that does not decode (a corrupted file; `ocgraph check`
    /// verifies the checksums). I/O errors panic as every page read does ([`crate::page`]).
    fn for_each_piece<F: FnMut(&[u16], &[u16], Option<&[f32]>)>(
        &self,
        row: u32,
        col: u32,
        buf: &mut CellBuf,
        f: F,
    ) -> Result<()>;

    /// The vertices of block `b`.
    fn block(&self, b: u32) -> Range<Vertex> {
        let bits = self.block_bits();
        let start = (b as u64) << bits;
        let end = (((b as u64) + 1) << bits).min(self.num_vertices() as u64);
        start as Vertex..end.max(start) as Vertex
    }
}

/// The grid layout of an opened [`Graph`], read through its page backend.
pub struct Grid<'g> {
    graph: &'g Graph,
    index: &'g GridIndex,
    edges: FileId,
    weights: Option<FileId>,
}

impl<'g> Grid<'g> {
    pub(super) fn new(graph: &'g Graph, index: &'g GridIndex) -> Grid<'g> {
        let id = |role: FileRole| graph.files[role as usize];
        Grid {
            graph,
            index,
            edges: id(FileRole::GridEdges).expect("grid edges listed (checked on open)"),
            weights: id(FileRole::GridWeights),
        }
    }

    /// How the cells are stored.
    pub fn codec(&self) -> Codec {
        self.index.info.codec
    }

    /// Bytes of `grid.edges` (compressed size with a codec).
    pub fn stored_bytes(&self) -> u64 {
        self.index.bytes.last().copied().unwrap_or(0)
    }

    fn source(&self) -> &'g dyn PageSource {
        &*self.graph.source
    }

    /// The weights of `count` edges from `first_edge`, copied into `out` (through `bytes`), when
    /// the grid has weights.
    fn copy_weights<'b>(
        &self,
        first_edge: u64,
        count: u64,
        bytes: &mut Vec<u8>,
        out: &'b mut Vec<f32>,
    ) -> Option<&'b [f32]> {
        let w = self.weights?;
        bytes.resize((count * 4) as usize, 0);
        self.source().read_into(w, first_edge * 4, bytes);
        out.clear();
        out.extend(bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes"))));
        Some(out)
    }

    /// The error of cell `(row, col)`, stored from byte `at` of `grid.edges`, found damaged:
    /// `what` says how.
    fn damaged_cell(&self, row: u32, col: u32, at: u64, what: &str) -> Error {
        Error::Format {
            path: self.graph.data_path().join(FileRole::GridEdges.file_name()),
            offset: Some(at),
            msg: format!("cell ({row}, {col}) {what}: the file is corrupted"),
        }
    }
}

impl EdgeGrid for Grid<'_> {
    fn num_vertices(&self) -> usize {
        self.graph.num_vertices()
    }

    fn holds_lists_of<A: Adjacency>(&self, lists: &A) -> bool {
        self.graph.may_be_read_as(lists)
    }

    fn num_arcs(&self) -> u64 {
        self.graph.num_arcs()
    }

    fn cells_per_side(&self) -> u32 {
        self.index.info.cells_per_side
    }

    fn block_bits(&self) -> u32 {
        self.index.info.block_bits
    }

    fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }

    fn is_symmetric(&self) -> bool {
        !self.graph.is_directed()
    }

    fn cell_len(&self, row: u32, col: u32) -> u64 {
        let k = self.index.cell(row, col);
        self.index.edges[k + 1] - self.index.edges[k]
    }

    fn for_each_piece<F: FnMut(&[u16], &[u16], Option<&[f32]>)>(
        &self,
        row: u32,
        col: u32,
        buf: &mut CellBuf,
        mut f: F,
    ) -> Result<()> {
        // A cell of the last, partial block of rows or columns may hold an offset past the
        // vertex count only when damaged (a grid too large to be checked on open): kernels
        // would read or write the padding of their state there and drop the arc unnoticed.
        let (rows, cols) = (self.block(row).len(), self.block(col).len());
        let full = 1usize << self.block_bits();
        if rows == full && cols == full {
            return self.decode_cell(row, col, buf, f);
        }
        let mut past = false;
        self.decode_cell(row, col, buf, |s, d, w| {
            past = past || s.iter().any(|&x| x as usize >= rows) || d.iter().any(|&x| x as usize >= cols);
            if !past {
                f(s, d, w);
            }
        })?;
        if past {
            let at = self.index.bytes[self.index.cell(row, col)];
            let what = format!("holds a vertex past the graph's {}", self.num_vertices());
            return Err(self.damaged_cell(row, col, at, &what));
        }
        Ok(())
    }
}

impl Grid<'_> {
    /// [`EdgeGrid::for_each_piece`] without the check of the offsets against the blocks.
    fn decode_cell<F: FnMut(&[u16], &[u16], Option<&[f32]>)>(
        &self,
        row: u32,
        col: u32,
        buf: &mut CellBuf,
        mut f: F,
    ) -> Result<()> {
        let k = self.index.cell(row, col);
        let (e0, e1) = (self.index.edges[k], self.index.edges[k + 1]);
        let (b0, b1) = (self.index.bytes[k], self.index.bytes[k + 1]);
        let m = e1 - e0;
        if m == 0 {
            return Ok(());
        }
        let src = self.source();
        match self.index.info.codec {
            Codec::None => {
                let mut i = 0;
                while i < m {
                    let len = PIECE_EDGES.min(m - i);
                    // The weights are copied first, so that the piece pins two pages at most
                    // (its sources' and its destinations'), as any reader of the pool may: a
                    // third pinned page could wait forever in a pool of two frames.
                    let w = self.copy_weights(e0 + i, len, &mut buf.bytes, &mut buf.weights);
                    let s = src.read(self.edges, b0 + 2 * i, (2 * len) as usize).typed::<u16>();
                    let d = src.read(self.edges, b0 + 2 * (m + i), (2 * len) as usize).typed::<u16>();
                    f(&s, &d, w);
                    i += len;
                }
                Ok(())
            }
            Codec::Runs => {
                // Decoded a piece at a time (the piece stays in cache while the kernel reads
                // it), each piece's weights copied beside it: a worker holds the cell's stored
                // bytes and 16K weights, not the whole cell's weights. With weights the stored
                // bytes are copied, so that no page stays pinned while the weights are read (a
                // pinned page could wait forever in a pool of two frames).
                let CellBuf { bytes, payload, weights, runs, packed } = buf;
                let len = (b1 - b0) as usize;
                let pinned;
                let stored: &[u8] = if self.weights.is_some() {
                    packed.resize(len, 0);
                    src.read_into(self.edges, b0, packed);
                    packed
                } else {
                    pinned = src.read(self.edges, b0, len).typed::<u8>();
                    &pinned
                };
                let ok = decode_runs_in_pieces(
                    stored,
                    m as usize,
                    PIECE_EDGES as usize,
                    runs,
                    payload,
                    |s, d, first| {
                        f(s, d, self.copy_weights(e0 + first as u64, s.len() as u64, bytes, weights))
                    },
                );
                if ok {
                    Ok(())
                } else {
                    Err(self.damaged_cell(row, col, b0, "does not decode"))
                }
            }
            Codec::Lz4 => {
                // An LZ4 cell decodes whole; the kernel then takes it a piece at a time, with
                // each piece's weights copied beside it.
                let packed = src.read(self.edges, b0, (b1 - b0) as usize).typed::<u8>();
                let CellBuf { bytes, payload, weights, .. } = buf;
                payload.resize(2 * m as usize, 0);
                if !Codec::Lz4.decode(&packed, bytes, payload) {
                    return Err(self.damaged_cell(row, col, b0, "does not decode"));
                }
                drop(packed);
                let (s, d) = payload.split_at(m as usize);
                for (i, (s, d)) in
                    s.chunks(PIECE_EDGES as usize).zip(d.chunks(PIECE_EDGES as usize)).enumerate()
                {
                    let first = i as u64 * PIECE_EDGES;
                    f(s, d, self.copy_weights(e0 + first, s.len() as u64, bytes, weights));
                }
                Ok(())
            }
        }
    }
}

/// Reads and verifies `grid.index` of a graph whose manifest records a grid.
pub(crate) fn load_index(data: &Path, graph: &crate::format::Manifest) -> Result<Option<GridIndex>> {
    let Some(info) = graph.grid else { return Ok(None) };
    let path = data.join(FileRole::GridIndex.file_name());
    let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, "read", e))?;
    let len = graph.file(FileRole::GridIndex).map_or(0, |e| e.len) as usize;
    let edges_len = graph.file(FileRole::GridEdges).map_or(0, |e| e.len);
    let expect = GridHeader {
        info,
        num_vertices: graph.num_vertices,
        num_arcs: graph.num_arcs,
        weighted: graph.weighted,
    };
    GridIndex::parse(&bytes[..len.min(bytes.len())], &path, &expect, edges_len).map(Some)
}
