//! [`Graph`]: an opened on-disk graph, and [`Adjacency`]: the neighbour-access trait that the
//! algorithm crate is generic over.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

mod chunk_cursor;
mod copies;
mod direction;
mod empty_lists;
mod grid;
mod hubs;
mod list_starts;
mod side_files;

use crate::error::{Error, Result};
use crate::format::{FileRole, Manifest, WeightRange};
use crate::page::{self, Advice, BackendKind, CompressedFile, FileId, IoStats, PageSource, PagedFile};
use direction::Lists;
use empty_lists::EmptyLists;
use list_starts::ListStarts;
pub(crate) use side_files::SideFiles;

pub use crate::page::Slice;
pub(crate) use copies::check_copies;
pub use direction::Direction;
pub(crate) use grid::load_index as load_grid_index;
pub use grid::{CellBuf, EdgeGrid, Grid};
pub use hubs::Hubs;

/// The offsets, neighbours and weights files of the out-edges.
const OUT_ROLES: [FileRole; 3] = [FileRole::OutOffsets, FileRole::OutNeighbors, FileRole::OutWeights];
/// The offsets, neighbours and weights files of the in-edges (directed graphs).
const IN_ROLES: [FileRole; 3] = [FileRole::InOffsets, FileRole::InNeighbors, FileRole::InWeights];
/// The packed lists and index files of the out-edges.
const OUT_PACKED: [FileRole; 2] = [FileRole::OutPacked, FileRole::OutPackedIndex];
/// The packed lists and index files of the in-edges.
const IN_PACKED: [FileRole; 2] = [FileRole::InPacked, FileRole::InPackedIndex];

/// The verified compressed copy of the plain file `role` (`len` bytes on disk), when the
/// graph has one: the buffer pool reads the file's pages from it; mmap reads the plain file.
fn compressed_copy(
    data: &Path,
    manifest: &Manifest,
    role: FileRole,
    len: u64,
) -> Result<Option<CompressedFile>> {
    let Some((role, entry)) = role.compressed().and_then(|c| Some((c, manifest.file(c)?))) else {
        return Ok(None);
    };
    let path = data.join(role.file_name());
    let index = crate::format::compressed::BlockIndex::read(&path, entry.len, len)?;
    Ok(Some(CompressedFile { path, index: Arc::new(index) }))
}

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

    /// The sum of the degrees of `vertices`, or an estimate of it where the exact sum would
    /// need their lists: for heuristics (BFS's direction switch, a capacity to reserve).
    /// Exact for stored graphs; a snapshot with updates estimates it (see
    /// [`SnapshotDirection`](crate::update::SnapshotDirection)).
    ///
    /// Backends override this to read the offsets of vertices that share a page with one pin
    /// (a kernel summing the degrees of the vertices it just found, often in id order).
    fn estimated_degree_sum(&self, vertices: &[Vertex]) -> u64 {
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

    /// Like [`Adjacency::for_each_of`] with the arc weights (all 1.0 when unweighted).
    ///
    /// Backends override this as they override `for_each_of`: a sorted list of vertices (a
    /// bucket of SSSP) then costs about one pin per page of each file instead of two reads of
    /// the bounds and two pins per vertex.
    fn for_each_weighted_of<F: FnMut(Vertex, &[Vertex], &[f32])>(&self, vertices: &[Vertex], mut f: F) {
        let mut ones = Vec::new();
        for &v in vertices {
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

    /// Hints that the lists of `vertices` will be read soon, so that the page layer can read
    /// them together instead of one miss after the other. Default: nothing.
    fn will_need_lists(&self, _vertices: &[Vertex]) {}

    /// The sorted neighbour list of `v`.
    fn neighbors(&self, v: Vertex) -> Slice<'_, Vertex>;

    /// Whether reading `v`'s list needs no I/O, as far as the backend can tell without any
    /// (the buffer pool counts a use of the pages it checks, as the read it announces would).
    /// Default: true.
    fn in_memory(&self, _v: Vertex) -> bool {
        true
    }

    /// The weights of `v`'s arcs, aligned with [`Adjacency::neighbors`]; `None` when unweighted.
    fn weights(&self, v: Vertex) -> Option<Slice<'_, f32>>;

    /// Whether arcs carry weights.
    fn is_weighted(&self) -> bool;

    /// The range of every weight [`Adjacency::weights`] can return, when it is known without
    /// reading them (recorded in the manifest when the weights were written, see
    /// [`WeightRange`]). Default: `None` (kernels that need it scan the weights).
    fn weight_range(&self) -> Option<WeightRange> {
        None
    }

    /// Identifies the neighbour lists this adjacency reads: two adjacencies whose ids are equal
    /// and `Some` serve the same lists (as [`Graph::out`] and [`Graph::in_`] of an undirected
    /// graph do), so a kernel given both may skip a pass over the second. Default: `None`
    /// (unknown; kernels then read both).
    fn lists_id(&self) -> Option<(usize, FileId)> {
        None
    }

    /// Bytes of memory the graph's pages may occupy ([`Graph::memory_budget`]: the buffer
    /// pool's capacity), which kernels that build derived data hold to (see
    /// [`crate::page::scratch`]). Default: `None` (no budget given).
    fn memory_budget(&self) -> Option<u64> {
        None
    }

    /// A parallel scan is about to hand the ranges that end (and start) at each of `cuts` to
    /// different workers. Backends override this to tell their replacement policy which pages
    /// hold the data of two partitions (boundary adjustment, seed 001). Default: nothing.
    fn mark_partition_cuts(&self, _cuts: &[Vertex]) {}

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
    /// The advice the neighbour files were opened with (mmap; [`Advice::Normal`] for the pool).
    advice: Advice,
    /// The recorder when [`Graph::start_trace`] was called.
    trace: Option<Arc<page::trace::TraceRecorder>>,
    /// List-start predictions for reads of bounds ([`Graph::predict_list_starts`]).
    list_starts: ListStarts,
    /// The grid layout's verified index, when the graph has one.
    grid: Option<crate::format::grid::GridIndex>,
    /// The vertices with empty lists, once learnt ([`Graph::note_empty_lists`]).
    empty_lists: EmptyLists,
    /// Whether directions read the packed copies of the lists ([`Graph::read_packed_copy`]).
    read_packed: AtomicBool,
    /// The id map and label files, open since the graph was.
    side_files: SideFiles,
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph").field("dir", &self.dir).field("manifest", &self.manifest).finish()
    }
}

impl Graph {
    /// Whether `lists` may stand for this graph's lists to a file built from it (its hub
    /// index, its grid): false when they name lists ([`Adjacency::lists_id`]) of another graph,
    /// or of a snapshot with updates over this graph as its base; true when they name none.
    pub(crate) fn may_be_read_as<A: Adjacency>(&self, lists: &A) -> bool {
        lists.lists_id().is_none_or(|(graph, _)| graph == self as *const Graph as usize)
    }

    /// Opens the graph directory `dir`: reads and verifies the manifest (magic, version,
    /// checksum), checks every file's size against it and, for a graph of at most
    /// [`format::CHECKED_ON_OPEN`] bytes, every file's checksum, and starts the chosen backend.
    /// Use [`format::check_graph`] to verify every data checksum of a larger graph.
    ///
    /// A writer may switch the manifest while this opens (a layout rebuilt, its files renamed
    /// into place one by one; a compaction): the open is made again until the manifest held
    /// still through it, so that the files opened are those it lists.
    pub fn open(dir: impl AsRef<Path>, options: &OpenOptions) -> Result<Graph> {
        // Absolute: files read later (ids, labels) stay this graph's after a change of directory.
        let dir = crate::format::absolute(dir.as_ref())?;
        crate::format::while_manifest_changes(&dir, 100, false, |m| Self::open_once(&dir, m.clone(), options))
    }

    /// One attempt of [`Graph::open`] on the absolute path `dir`, whose manifest is `manifest`.
    /// An error in a file the graph can do without (a layout, a copy, the labels) says how to
    /// remove it, after which the graph opens.
    fn open_once(dir: &Path, manifest: Manifest, options: &OpenOptions) -> Result<Graph> {
        let m = manifest.clone();
        Self::open_files(dir, manifest, options).map_err(|e| crate::format::with_way_out_of_file(e, &m))
    }

    /// [`Graph::open_once`] but for the way out of its errors.
    fn open_files(dir: &Path, manifest: Manifest, options: &OpenOptions) -> Result<Graph> {
        let dir = dir.to_path_buf();
        manifest.verify_file_sizes(&dir)?;
        let data = manifest.data_path(&dir);
        crate::format::verify_small_files(&data, &manifest)?;
        let mut files = [None; FileRole::COUNT];
        let mut paged = Vec::new();
        let mut compressed = Vec::new();
        for role in FileRole::PAGED {
            if let Some(entry) = manifest.file(role) {
                files[role as usize] = Some(paged.len() as FileId);
                paged.push(PagedFile { path: data.join(role.file_name()), len: entry.padded_len() });
                compressed.push(compressed_copy(&data, &manifest, role, entry.padded_len())?);
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
            BackendKind::Pool { capacity, page_size, policy } => Arc::new(
                page::pool::BufferPool::open_graph(&paged, &compressed, *capacity, *page_size, policy)?,
            ),
        };
        let (trace_page_size, memory_budget, advice) = match &options.backend {
            BackendKind::Pool { page_size, capacity, .. } => (*page_size, Some(*capacity), Advice::Normal),
            BackendKind::Mmap { advice } => (4096, None, *advice),
        };
        let list_starts = ListStarts::new(manifest.num_vertices);
        let grid = grid::load_index(&data, &manifest)?;
        let side_files = SideFiles::open(&data, &manifest)?;
        let g = Graph {
            dir,
            manifest,
            source,
            files,
            trace_page_size,
            memory_budget,
            advice,
            trace: None,
            list_starts,
            grid,
            empty_lists: EmptyLists::default(),
            read_packed: AtomicBool::new(false),
            side_files,
        };
        g.verify_offsets_ends()?;
        Ok(g)
    }

    /// Cheap structural check on open: every offsets array starts at 0 and ends at the arc count;
    /// every packed index starts at 0 and ends at its packed file's length.
    fn verify_offsets_ends(&self) -> Result<()> {
        let n = self.num_vertices() as u64;
        let mut dirs = vec![self.out(), self.in_()];
        if self.manifest.has_packed_copy() {
            dirs.push(self.direction(OUT_ROLES, OUT_PACKED, true));
            if self.is_directed() {
                dirs.push(self.direction(IN_ROLES, IN_PACKED, true));
            }
        }
        for dir in dirs {
            let mut ends = vec![(dir.offsets, dir.offsets_role, self.manifest.num_arcs, "arcs")];
            if let Lists::Packed { index, roles, .. } = dir.lists {
                ends.push((index, roles[1], dir.lists_len, "bytes"));
            }
            for (file, role, want, unit) in ends {
                let (first, last) = (dir.read_u64(file, 0), dir.read_u64(file, n));
                if first != 0 || last != want {
                    return Err(Error::Format {
                        path: self.manifest.data_path(&self.dir).join(role.file_name()),
                        // The entry that is wrong: the first when it is, else the last.
                        offset: Some(if first != 0 { 0 } else { n * 8 }),
                        msg: format!("offsets run from {first} to {last}, expected 0 to {want} {unit}"),
                    });
                }
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

    /// The directory holding the data files (the graph directory, or its compacted base).
    pub fn data_path(&self) -> PathBuf {
        self.manifest.data_path(&self.dir)
    }

    /// The grid layout, when the graph has one (`ocgraph layout grid`).
    pub fn grid(&self) -> Option<Grid<'_>> {
        self.grid.as_ref().map(|index| Grid::new(self, index))
    }

    /// The hub index, when the graph has one (`ocgraph layout hubs`).
    pub fn hubs(&self) -> Option<Hubs<'_>> {
        Hubs::new(self)
    }

    /// The threads a kernel asking for `wanted` (`None`: rayon's current pool) may read the
    /// graph with: at most one per two frames of the buffer pool (a reader pins up to two pages
    /// at a time, and readers that each hold one frame while waiting for another would wait
    /// forever). `None` when the request stands (`wanted` is `None` and no limit applies).
    pub fn reading_threads(&self, wanted: Option<usize>) -> Option<usize> {
        let most = self.memory_budget.map(|b| ((b / self.trace_page_size as u64) as usize / 2).max(1));
        match (wanted, most) {
            (Some(w), Some(m)) => Some(w.min(m)),
            (None, Some(m)) if m < rayon::current_num_threads() => Some(m),
            (w, _) => w,
        }
    }

    /// Bytes of memory the graph's pages may occupy: the buffer pool's capacity as given at
    /// open, or `None` with mmap (the OS page cache decides).
    pub fn memory_budget(&self) -> Option<u64> {
        self.memory_budget
    }

    /// The access-pattern advice the neighbour files were opened with (mmap; the pool's is
    /// [`Advice::Normal`]).
    pub fn advice(&self) -> Advice {
        self.advice
    }

    /// Turns list-start prediction on or off (off at open). While on, a read of a vertex's
    /// list bounds that must do I/O also reads the page where its list is predicted to start,
    /// in the same submission (buffer pool; mmap ignores it): the list read that follows is
    /// then a hit instead of a second dependent miss. Predictions come from the bounds read so
    /// far, 8 bytes per 512 vertices and direction (see `graph/list_starts.rs`); plain lists
    /// only. The neighbourhood prefetcher (and the omniscient bound) turn it on for their run
    /// ([`crate::query::run_queries`]).
    pub fn predict_list_starts(&self, on: bool) {
        self.list_starts.set_enabled(on);
    }

    /// Learns which vertices have an empty list in each stored direction (one scan of the
    /// offsets; 1 bit per vertex and direction, kept while the graph is open), so that
    /// [`Graph::list_known_empty`] answers without reading their bounds. Once per graph.
    pub fn note_empty_lists(&self) {
        self.empty_lists.learn(0, &self.out());
        if self.is_directed() {
            self.empty_lists.learn(1, &self.in_());
        }
    }

    /// Whether `v`'s list in the out- (`side` 0) or in-direction (1) is known to be empty:
    /// false until [`Graph::note_empty_lists`] has run. No I/O.
    pub fn list_known_empty(&self, side: usize, v: Vertex) -> bool {
        let side = if self.is_directed() { side } else { 0 };
        self.empty_lists.known_empty(side, v)
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
        self.direction(OUT_ROLES, OUT_PACKED, self.reads_packed())
    }

    /// In-edges (for undirected graphs: the same as [`Graph::out`]).
    pub fn in_(&self) -> Direction<'_> {
        if self.manifest.directed {
            self.direction(IN_ROLES, IN_PACKED, self.reads_packed())
        } else {
            self.out()
        }
    }

    /// Makes the directions read the packed copies of the lists (`on`) or the plain lists, in a
    /// graph that has both (`ocgraph layout pack`); other graphs ignore it. Both hold the same
    /// lists: the packed ones are about half the bytes to read through a pool smaller than the
    /// graph, the plain ones faster to read in memory (`bench/layouts/run.py`). Directions made
    /// before the call keep the lists they read.
    pub fn read_packed_copy(&self, on: bool) {
        self.read_packed.store(on, Ordering::Relaxed);
    }

    /// Whether the directions read packed lists: a packed graph's, or the packed copies after
    /// [`Graph::read_packed_copy`].
    pub fn reads_packed(&self) -> bool {
        self.manifest.is_packed()
            || (self.manifest.has_packed_copy() && self.read_packed.load(Ordering::Relaxed))
    }

    /// The direction whose offsets, neighbours and weights files are `roles`, or, reading
    /// packed lists (`use_packed`, or a packed graph), whose packed lists and index are
    /// `packed`.
    fn direction(&self, roles: [FileRole; 3], packed: [FileRole; 2], use_packed: bool) -> Direction<'_> {
        let id = |role: FileRole| self.files[role as usize];
        let lists = match (id(packed[0]), id(packed[1]), id(roles[1])) {
            (Some(bytes), Some(index), plain) if use_packed || plain.is_none() => {
                Lists::Packed { bytes, index, roles: packed }
            }
            (_, _, plain) => Lists::Plain(plain.expect("neighbours file present (checked on open)")),
        };
        let lists_len = match lists {
            Lists::Packed { roles, .. } => self.manifest.file(roles[0]).map_or(0, |e| e.len),
            Lists::Plain(_) => self.num_arcs() * 4,
        };
        Direction {
            graph: self,
            offsets_role: roles[0],
            offsets: id(roles[0]).expect("offsets file present (checked on open)"),
            lists,
            lists_len,
            weights: id(roles[2]),
        }
    }

    /// The original ids of the vertices (identity graphs: `original(v) = Int(v)`).
    pub fn ids(&self) -> Result<crate::ids::IdLookup> {
        crate::ids::IdLookup::load(&self.side_files, &self.manifest)
    }

    /// The vertex labels stored with the graph, if any (see [`crate::labels`]).
    pub fn labels(&self) -> Result<Option<Vec<u32>>> {
        crate::labels::load(&self.side_files, &self.manifest)
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
