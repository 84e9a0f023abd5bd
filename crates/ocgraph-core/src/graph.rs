//! [`Graph`]: an opened on-disk graph, and [`Adjacency`]: the neighbour-access trait that the
//! algorithm crate is generic over.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::format::{FileRole, Manifest};
use crate::page::{self, Advice, BackendKind, FileId, IoStats, PageSource, PagedFile};

pub use crate::page::Slice;

/// A vertex id: `0..num_vertices`.
pub type Vertex = u32;

/// Read access to one direction of a CSR adjacency (out-edges or in-edges).
///
/// Implemented by [`Direction`] (any page backend) and by anything else that can hand out
/// neighbour lists; the algorithm crate is generic over it.
pub trait Adjacency: Sync {
    /// Number of vertices.
    fn num_vertices(&self) -> usize;

    /// Number of stored arcs (neighbour-list entries) in this direction.
    fn num_arcs(&self) -> u64;

    /// Number of neighbours of `v`.
    fn degree(&self, v: Vertex) -> usize;

    /// The sum of the degrees of `vertices`.
    ///
    /// Backends override this to read the offsets of vertices that share a page with one pin
    /// (a kernel summing the degrees of the vertices it just found, often in id order).
    fn degree_sum(&self, vertices: &[Vertex]) -> u64 {
        vertices.iter().map(|&v| self.degree(v) as u64).sum()
    }

    /// Calls `f(v, neighbours(v))` for every `v` of `vertices`, in that order.
    ///
    /// Backends override this to read the offsets and lists of vertices that share a page with
    /// one pin each, so a sorted list of vertices (a BFS frontier) costs about one pin per page
    /// instead of two reads per vertex.
    fn for_each_of<F: FnMut(Vertex, &[Vertex])>(&self, vertices: &[Vertex], mut f: F) {
        for &v in vertices {
            f(v, &self.neighbors(v));
        }
    }

    /// The sorted neighbour list of `v`.
    fn neighbors(&self, v: Vertex) -> Slice<'_, Vertex>;

    /// The weights of `v`'s arcs, aligned with [`Adjacency::neighbors`]; `None` when unweighted.
    fn weights(&self, v: Vertex) -> Option<Slice<'_, f32>>;

    /// Whether arcs carry weights.
    fn is_weighted(&self) -> bool;

    /// Identifies the neighbour lists this adjacency reads: two adjacencies whose ids are equal
    /// and `Some` serve the same lists (as [`Graph::out`] and [`Graph::in_`] of an undirected
    /// graph do), so a kernel given both may skip a pass over the second. Default: `None`
    /// (unknown; kernels then read both).
    fn lists_id(&self) -> Option<(usize, FileId)> {
        None
    }

    /// Calls `f(v, neighbours(v))` for every `v` in `vertices`, in order.
    ///
    /// Backends override this for scans: one pin per page instead of one lookup per vertex.
    fn for_each_in_range<F: FnMut(Vertex, &[Vertex])>(&self, vertices: Range<Vertex>, mut f: F) {
        for v in vertices {
            f(v, &self.neighbors(v));
        }
    }

    /// Calls `f(v, degree(v))` for every `v` in `vertices`, in order.
    ///
    /// Backends override this to read only the offsets (a scan of the lists is not needed to
    /// count them).
    fn for_each_degree_in_range<F: FnMut(Vertex, usize)>(&self, vertices: Range<Vertex>, mut f: F) {
        self.for_each_in_range(vertices, |v, nbrs| f(v, nbrs.len()));
    }

    /// Calls `f(v, neighbours(v))` for every `v` in `vertices` for which `select(v)` is true, in
    /// order; the lists of the other vertices are not fetched.
    ///
    /// Backends override this as a scan like [`Adjacency::for_each_in_range`] that skips the
    /// lists of unselected vertices, so that a kernel visiting a scattered subset of a range
    /// (BFS's bottom-up steps) makes one call per range instead of one per run of selected
    /// vertices.
    fn for_each_selected_in_range<S: FnMut(Vertex) -> bool, F: FnMut(Vertex, &[Vertex])>(
        &self,
        vertices: Range<Vertex>,
        mut select: S,
        mut f: F,
    ) {
        for v in vertices {
            if select(v) {
                f(v, &self.neighbors(v));
            }
        }
    }

    /// Like [`Adjacency::for_each_in_range`] with the arc weights (all 1.0 when unweighted).
    fn for_each_weighted_in_range<F: FnMut(Vertex, &[Vertex], &[f32])>(
        &self,
        vertices: Range<Vertex>,
        mut f: F,
    ) {
        let mut ones = Vec::new();
        for v in vertices {
            let n = self.neighbors(v);
            match self.weights(v) {
                Some(w) => f(v, &n, &w),
                None => {
                    ones.resize(n.len(), 1.0);
                    f(v, &n, &ones)
                }
            }
        }
    }
}

/// How to open a graph.
#[derive(Debug, Clone, Default)]
pub struct OpenOptions {
    /// The page backend and its parameters.
    pub backend: BackendKind,
}

/// An opened graph: its manifest and a page backend serving its files.
pub struct Graph {
    dir: PathBuf,
    manifest: Manifest,
    source: Arc<dyn PageSource>,
    /// `FileId` of each role present (index = `FileRole as usize`).
    files: [Option<FileId>; FileRole::COUNT],
    /// Page size used for trace records (the pool's frame size; 4 KiB for mmap).
    trace_page_size: usize,
    /// The pool's capacity in bytes; `None` for mmap (the page cache decides).
    memory_budget: Option<u64>,
    /// The recorder when [`Graph::start_trace`] was called.
    trace: Option<Arc<page::trace::TraceRecorder>>,
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph").field("dir", &self.dir).field("manifest", &self.manifest).finish()
    }
}

impl Graph {
    /// Opens the graph directory `dir`: reads and verifies the manifest (magic, version,
    /// checksum), checks every file's size against it, and starts the chosen backend.
    /// Use [`format::check_graph`] to verify every data checksum.
    pub fn open(dir: impl AsRef<Path>, options: &OpenOptions) -> Result<Graph> {
        let dir = dir.as_ref().to_path_buf();
        let manifest = Manifest::read(&dir)?;
        manifest.verify_file_sizes(&dir)?;
        let data = manifest.data_path(&dir);
        let mut files = [None; FileRole::COUNT];
        let mut paged = Vec::new();
        for role in FileRole::PAGED {
            if let Some(entry) = manifest.file(role) {
                files[role as usize] = Some(paged.len() as FileId);
                paged.push(PagedFile { path: data.join(role.file_name()), len: entry.padded_len() });
            }
        }
        let source: Arc<dyn PageSource> = match &options.backend {
            BackendKind::Mmap { advice } => {
                let src = page::MmapSource::open(&paged)?;
                for role in [FileRole::OutNeighbors, FileRole::InNeighbors] {
                    if let Some(id) = files[role as usize] {
                        src.advise(id, 0, paged[id as usize].len, *advice);
                    }
                }
                Arc::new(src)
            }
            BackendKind::Pool { capacity, page_size, policy } => {
                Arc::new(page::pool::BufferPool::open(&paged, *capacity, *page_size, policy)?)
            }
        };
        let (trace_page_size, memory_budget) = match &options.backend {
            BackendKind::Pool { page_size, capacity, .. } => (*page_size, Some(*capacity)),
            BackendKind::Mmap { .. } => (4096, None),
        };
        let g = Graph { dir, manifest, source, files, trace_page_size, memory_budget, trace: None };
        g.verify_offsets_ends()?;
        Ok(g)
    }

    /// Cheap structural check on open: every offsets array starts at 0 and ends at the arc count.
    fn verify_offsets_ends(&self) -> Result<()> {
        for dir in [self.out(), self.in_()] {
            let n = self.num_vertices() as u64;
            let first = dir.offset_at(0);
            let last = dir.offset_at(n);
            if first != 0 || last != self.manifest.num_arcs {
                return Err(Error::Format {
                    path: self.manifest.data_path(&self.dir).join(dir.offsets_role.file_name()),
                    offset: Some(n * 8),
                    msg: format!(
                        "offsets run from {first} to {last}, expected 0 to {} arcs",
                        self.manifest.num_arcs
                    ),
                });
            }
        }
        Ok(())
    }

    /// The graph directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The verified manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Bytes of memory the graph's pages may occupy: the buffer pool's capacity as given at
    /// open, or `None` with mmap (the OS page cache decides).
    pub fn memory_budget(&self) -> Option<u64> {
        self.memory_budget
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.manifest.num_vertices as usize
    }

    /// Number of edges as the user sees them (an undirected edge counts once).
    pub fn num_edges(&self) -> u64 {
        self.manifest.num_edges
    }

    /// Number of stored arcs in the out-CSR (an undirected edge `u != v` is stored twice).
    pub fn num_arcs(&self) -> u64 {
        self.manifest.num_arcs
    }

    /// Whether the graph is directed.
    pub fn is_directed(&self) -> bool {
        self.manifest.directed
    }

    /// Whether arcs carry `f32` weights.
    pub fn is_weighted(&self) -> bool {
        self.manifest.weighted
    }

    /// Out-edges (for undirected graphs: all incident edges).
    pub fn out(&self) -> Direction<'_> {
        self.direction(FileRole::OutOffsets, FileRole::OutNeighbors, FileRole::OutWeights)
    }

    /// In-edges (for undirected graphs: the same as [`Graph::out`]).
    pub fn in_(&self) -> Direction<'_> {
        if self.manifest.directed {
            self.direction(FileRole::InOffsets, FileRole::InNeighbors, FileRole::InWeights)
        } else {
            self.out()
        }
    }

    fn direction(&self, offsets: FileRole, neighbors: FileRole, weights: FileRole) -> Direction<'_> {
        Direction {
            graph: self,
            offsets_role: offsets,
            offsets: self.files[offsets as usize].expect("offsets file present (checked on open)"),
            neighbors: self.files[neighbors as usize].expect("neighbours file present"),
            weights: self.files[weights as usize],
        }
    }

    /// The original ids of the vertices (identity graphs: `original(v) = Int(v)`).
    pub fn ids(&self) -> Result<crate::ids::IdLookup> {
        crate::ids::IdLookup::load(&self.manifest.data_path(&self.dir), &self.manifest)
    }

    /// I/O statistics of the page backend since open or the last reset.
    pub fn io_stats(&self) -> IoStats {
        self.source.stats()
    }

    /// Resets the I/O statistics.
    pub fn reset_io_stats(&self) {
        self.source.reset_stats()
    }

    /// Starts recording every page request into the trace file `path` (see [`page::trace`]
    /// for the format; pages are the pool's frames, 4 KiB for mmap). One trace per graph.
    pub fn start_trace(&mut self, path: impl AsRef<Path>) -> Result<()> {
        if let Some(rec) = &self.trace {
            return Err(Error::invalid(format!("already tracing to {}", rec.path().display())));
        }
        let rec = Arc::new(page::trace::TraceRecorder::create(path.as_ref(), self.trace_page_size as u32)?);
        let inner = self.source.clone();
        self.source = Arc::new(page::trace::TracingSource::new(inner, rec.clone(), self.trace_page_size));
        self.trace = Some(rec);
        Ok(())
    }

    /// Writes out the trace's buffered records; returns the trace path and the number of
    /// records so far, or `None` when not tracing. Recording continues.
    pub fn finish_trace(&self) -> Result<Option<(PathBuf, u64)>> {
        match &self.trace {
            Some(rec) => Ok(Some((rec.path().to_path_buf(), rec.finish()?))),
            None => Ok(None),
        }
    }
}

/// One direction (out or in) of an opened [`Graph`]; implements [`Adjacency`].
#[derive(Clone, Copy)]
pub struct Direction<'g> {
    graph: &'g Graph,
    offsets_role: FileRole,
    offsets: FileId,
    neighbors: FileId,
    weights: Option<FileId>,
}

impl<'g> Direction<'g> {
    fn src(&self) -> &'g dyn PageSource {
        &*self.graph.source
    }

    /// The CSR offset of vertex `v` (`v == num_vertices` gives the arc count).
    pub fn offset_at(&self, v: u64) -> u64 {
        let mut o = [0u64; 1];
        self.src().read_into(self.offsets, v * 8, bytemuck::cast_slice_mut(&mut o));
        o[0]
    }

    /// Offsets `lo..=hi` (so `hi - lo + 1` values).
    pub fn offsets(&self, lo: Vertex, hi: Vertex) -> Slice<'g, u64> {
        let n = (hi - lo) as usize + 1;
        self.src().read(self.offsets, lo as u64 * 8, n * 8).typed()
    }

    /// Arcs `[start, end)` of the neighbours file.
    pub fn arcs(&self, start: u64, end: u64) -> Slice<'g, Vertex> {
        self.src().read(self.neighbors, start * 4, ((end - start) * 4) as usize).typed()
    }

    /// Weights of arcs `[start, end)`, when the graph is weighted.
    pub fn arc_weights(&self, start: u64, end: u64) -> Option<Slice<'g, f32>> {
        self.weights.map(|w| self.src().read(w, start * 4, ((end - start) * 4) as usize).typed())
    }

    /// The arc range `[start, end)` of `v` in the neighbours file (no pin held afterwards).
    pub fn arc_range(&self, v: Vertex) -> Range<u64> {
        let (a, b) = self.bounds(v);
        a..b
    }

    /// Hints that arcs `[start, end)` will be read soon: `madvise(MADV_WILLNEED)` on mmap, a
    /// background load into free or evictable frames on the pool. Never blocks on the I/O.
    pub fn will_need_arcs(&self, start: u64, end: u64) {
        let end = end.min(self.graph.num_arcs());
        if end > start {
            self.src().advise(self.neighbors, start * 4, (end - start) * 4, Advice::WillNeed);
        }
    }

    /// Hints that the offsets of vertex `v` will be read soon (as [`Direction::will_need_arcs`]).
    pub fn will_need_offsets(&self, v: Vertex) {
        self.src().advise(self.offsets, v as u64 * 8, 16, Advice::WillNeed);
    }

    /// Advises the access pattern of this direction's offsets and neighbour files as a whole,
    /// e.g. [`Advice::Random`] for random queries: no read-ahead on mmap (`MADV_RANDOM`), none
    /// in the buffer pool either (see the pool's `advise`).
    pub fn advise_files(&self, advice: Advice) {
        let n = self.graph.num_vertices() as u64;
        self.src().advise(self.offsets, 0, (n + 1) * 8, advice);
        self.src().advise(self.neighbors, 0, self.graph.num_arcs() * 4, advice);
    }

    /// The arc range of `v`: its two offsets, copied out (no pin is held afterwards, so the
    /// neighbour read that follows needs one pin at a time).
    #[inline]
    fn bounds(&self, v: Vertex) -> (u64, u64) {
        assert!((v as usize) < self.graph.num_vertices(), "vertex {v} out of range");
        let mut o = [0u64; 2];
        self.src().read_into(self.offsets, v as u64 * 8, bytemuck::cast_slice_mut(&mut o));
        (o[0], o[1])
    }
}

impl Adjacency for Direction<'_> {
    fn num_vertices(&self) -> usize {
        self.graph.num_vertices()
    }

    fn num_arcs(&self) -> u64 {
        self.graph.num_arcs()
    }

    fn degree(&self, v: Vertex) -> usize {
        let (a, b) = self.bounds(v);
        (b - a) as usize
    }

    fn neighbors(&self, v: Vertex) -> Slice<'_, Vertex> {
        let (a, b) = self.bounds(v);
        self.arcs(a, b)
    }

    /// Reads the offsets through one cursor: consecutive vertices in the same chunk of the
    /// offsets file share one pin.
    fn degree_sum(&self, vertices: &[Vertex]) -> u64 {
        let mut offs = self.offsets_cursor();
        vertices
            .iter()
            .map(|&v| {
                let (a, b) = self.bounds_via(&mut offs, v);
                b - a
            })
            .sum()
    }

    /// Reads offsets and lists through one cursor each (at most two pins held, so a pool of
    /// two frames still works).
    fn for_each_of<F: FnMut(Vertex, &[Vertex])>(&self, vertices: &[Vertex], mut f: F) {
        let mut offs = self.offsets_cursor();
        let mut nbrs = ChunkCursor::new(self.src(), self.neighbors, self.graph.num_arcs());
        for &v in vertices {
            let (a, b) = self.bounds_via(&mut offs, v);
            f(v, nbrs.get(a, b));
        }
    }

    fn lists_id(&self) -> Option<(usize, FileId)> {
        Some((self.graph as *const Graph as usize, self.neighbors))
    }

    fn weights(&self, v: Vertex) -> Option<Slice<'_, f32>> {
        let (a, b) = self.bounds(v);
        self.arc_weights(a, b)
    }

    fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }

    /// Scans block by block: the offsets of a block of vertices (one backend chunk of them) are
    /// copied once, and neighbour lists are handed out as sub-slices of the neighbours chunk
    /// pinned once per chunk; only lists spanning two chunks are copied.
    fn for_each_in_range<F: FnMut(Vertex, &[Vertex])>(&self, vertices: Range<Vertex>, f: F) {
        self.for_each_selected_in_range(vertices, |_| true, f);
    }

    /// Reads the offsets only, block by block.
    fn for_each_degree_in_range<F: FnMut(Vertex, usize)>(&self, vertices: Range<Vertex>, mut f: F) {
        self.for_each_block(vertices, |step| {
            if let Some((v, s, e)) = step {
                f(v, (e - s) as usize)
            }
        });
    }

    /// The scan of [`Direction::for_each_in_range`], fetching only the selected lists (the
    /// offsets are read for the whole range).
    fn for_each_selected_in_range<S: FnMut(Vertex) -> bool, F: FnMut(Vertex, &[Vertex])>(
        &self,
        vertices: Range<Vertex>,
        mut select: S,
        mut f: F,
    ) {
        let mut nbrs = ChunkCursor::new(self.src(), self.neighbors, self.graph.num_arcs());
        self.for_each_block(vertices, |step| match step {
            Some((v, s, e)) => {
                if select(v) {
                    f(v, nbrs.get(s, e))
                }
            }
            None => nbrs.release(),
        });
    }

    /// Like the unweighted scan, with a second cursor over the weights file.
    fn for_each_weighted_in_range<F: FnMut(Vertex, &[Vertex], &[f32])>(
        &self,
        vertices: Range<Vertex>,
        mut f: F,
    ) {
        let mut nbrs = ChunkCursor::new(self.src(), self.neighbors, self.graph.num_arcs());
        match self.weights {
            Some(w) => {
                let mut wts = ChunkCursor::new(self.src(), w, self.graph.num_arcs());
                self.for_each_block(vertices, |step| match step {
                    Some((v, s, e)) => f(v, nbrs.get(s, e), wts.get(s, e)),
                    None => {
                        nbrs.release();
                        wts.release();
                    }
                });
            }
            None => {
                let mut ones = Vec::new();
                self.for_each_block(vertices, |step| {
                    let Some((v, s, e)) = step else { return nbrs.release() };
                    let n = nbrs.get(s, e);
                    if ones.len() < n.len() {
                        ones.resize(n.len(), 1.0);
                    }
                    f(v, n, &ones[..n.len()])
                });
            }
        }
    }
}

impl<'g> Direction<'g> {
    /// A cursor over this direction's offsets file.
    fn offsets_cursor(&self) -> ChunkCursor<'g, u64> {
        ChunkCursor::new(self.src(), self.offsets, self.graph.num_vertices() as u64 + 1)
    }

    /// The arc range of `v`, read through `offs`.
    fn bounds_via(&self, offs: &mut ChunkCursor<'g, u64>, v: Vertex) -> (u64, u64) {
        assert!((v as usize) < self.graph.num_vertices(), "vertex {v} out of range");
        let o = offs.get(v as u64, v as u64 + 2);
        (o[0], o[1])
    }

    /// Calls `f(Some((v, start, end)))` with the arc range of every `v` in `vertices`, reading
    /// the offsets in blocks aligned to the backend's scan chunk (copied, so no pin is held on
    /// the offsets file while `f` runs). Before reading each block it calls `f(None)`: the
    /// caller drops its pins then, so a scan never holds more than two pins (neighbours and
    /// weights chunks) and works with a pool of two frames.
    fn for_each_block(&self, vertices: Range<Vertex>, mut f: impl FnMut(Option<(Vertex, u64, u64)>)) {
        assert!(
            vertices.end as usize <= self.graph.num_vertices() || vertices.is_empty(),
            "vertex range {vertices:?} out of range"
        );
        let per_block = (self.src().scan_chunk() / 8) as u64;
        let mut offs: Vec<u64> = Vec::new();
        let mut a = vertices.start as u64;
        let end = vertices.end as u64;
        while a < end {
            let b = ((a / per_block + 1) * per_block).min(end);
            f(None);
            offs.clear();
            offs.extend_from_slice(&self.offsets(a as Vertex, b as Vertex));
            for (i, v) in (a..b).enumerate() {
                f(Some((v as Vertex, offs[i], offs[i + 1])));
            }
            a = b;
        }
    }
}

/// Walks one file of elements `T` chunk by chunk (the backend's scan chunk): ranges inside a
/// chunk are sub-slices of that chunk, pinned once; ranges spanning two chunks are read (and so
/// copied by the pool) on their own. Holds at most one pin.
struct ChunkCursor<'g, T> {
    src: &'g dyn PageSource,
    file: FileId,
    /// Elements per chunk = `1 << shift` (a shift, not a division, on the per-list path).
    shift: u32,
    total: u64,
    base: u64,
    chunk: Option<Slice<'g, T>>,
    spill: Option<Slice<'g, T>>,
}

impl<'g, T: bytemuck::Pod> ChunkCursor<'g, T> {
    fn new(src: &'g dyn PageSource, file: FileId, total: u64) -> Self {
        let per_chunk = src.scan_chunk() / std::mem::size_of::<T>();
        debug_assert!(per_chunk.is_power_of_two());
        ChunkCursor { src, file, shift: per_chunk.trailing_zeros(), total, base: 0, chunk: None, spill: None }
    }

    fn read(&self, start: u64, end: u64) -> Slice<'g, T> {
        let size = std::mem::size_of::<T>() as u64;
        self.src.read(self.file, start * size, ((end - start) * size) as usize).typed()
    }

    /// Drops the pinned chunk (and any copy).
    fn release(&mut self) {
        self.chunk = None;
        self.spill = None;
    }

    /// Elements `[start, end)`.
    fn get(&mut self, start: u64, end: u64) -> &[T] {
        if start >= end {
            return &[];
        }
        let c = start >> self.shift;
        if (end - 1) >> self.shift != c {
            // Release our pin first so this read needs only one more frame.
            self.chunk = None;
            self.spill = Some(self.read(start, end));
            return self.spill.as_deref().unwrap_or(&[]);
        }
        let base = c << self.shift;
        if self.chunk.is_none() || self.base != base {
            self.chunk = None;
            self.base = base;
            self.chunk = Some(self.read(base, (base + (1 << self.shift)).min(self.total)));
        }
        let chunk = self.chunk.as_deref().unwrap_or(&[]);
        &chunk[(start - base) as usize..(end - base) as usize]
    }
}
