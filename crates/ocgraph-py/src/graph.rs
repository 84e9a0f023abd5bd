//! `_ocgraph.Graph`: an opened graph. The public `ocgraph.Graph` subclasses it in Python and
//! adds conversions (scipy, networkx) and the context-manager protocol.

use std::sync::{Arc, OnceLock, RwLock};

use numpy::{IntoPyArray, PyArray1};
use ocgraph_core::ids::{IdLookup, OriginalId};
use ocgraph_core::memory::ensure_available;
use ocgraph_core::update::WritableGraph;
use ocgraph_core::{with_adjacency, Adjacency, GraphView, Vertex};
use pyo3::prelude::*;

use crate::errors::{invalid, run, run_on_graph, to_pyerr, vertex_out_of_range_as, IntoPy};
use crate::options::{open_options, parse_durability, Size, VertexArg};
use ocgraph_core::update::WriteOptions;

/// What a Python graph holds: a read-only view, or a graph opened for updates (whose reads
/// each take a fresh snapshot, so they see every update made before them).
#[derive(Clone)]
pub(crate) enum Handle {
    Read(GraphView),
    Write(Arc<WritableGraph>),
}

/// An opened on-disk graph (engine side). Use `ocgraph.open` to get one.
#[pyclass(subclass, module = "ocgraph._ocgraph", name = "Graph")]
pub(crate) struct PyGraph {
    inner: RwLock<Option<Handle>>,
    /// Original ids, loaded on first use.
    ids: OnceLock<Arc<IdLookup>>,
}

impl PyGraph {
    /// Wraps an opened graph.
    pub(crate) fn from_view(g: GraphView) -> PyGraph {
        PyGraph { inner: RwLock::new(Some(Handle::Read(g))), ids: OnceLock::new() }
    }

    /// The handle, or `InvalidArgumentError` when the graph was closed.
    fn handle(&self) -> PyResult<Handle> {
        self.inner
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| invalid("operation on a closed graph"))
    }

    /// What reads see now: the stored graph, or a snapshot of the latest updates.
    pub(crate) fn graph(&self) -> PyResult<GraphView> {
        Ok(match self.handle()? {
            Handle::Read(v) => v,
            Handle::Write(w) => GraphView::Updated(w.snapshot()),
        })
    }

    /// The graph opened for updates, or `InvalidArgumentError` when it was opened read-only.
    pub(crate) fn writer(&self) -> PyResult<Arc<WritableGraph>> {
        match self.handle()? {
            Handle::Write(w) => Ok(w),
            Handle::Read(_) => {
                Err(invalid("the graph was opened read-only; use ocgraph.open(path, writable=True)"))
            }
        }
    }

    /// The original-id lookup: loaded on first use for a read-only graph; for a writable one,
    /// asked of the writer each time (updates add vertices with their ids).
    fn ids(&self, py: Python<'_>) -> PyResult<Arc<IdLookup>> {
        if let Handle::Write(w) = self.handle()? {
            return Ok(Arc::new(run(py, || w.ids().py())?));
        }
        if let Some(ids) = self.ids.get() {
            return Ok(ids.clone());
        }
        let g = self.graph()?;
        let ids = Arc::new(run(py, || g.ids().py())?);
        Ok(self.ids.get_or_init(|| ids).clone())
    }

    /// Checks `0 <= v < num_vertices` and converts to a vertex id.
    pub(crate) fn check_vertex(g: &GraphView, v: VertexArg) -> PyResult<Vertex> {
        Self::check_role(g, v, "vertex")
    }

    /// [`Self::check_vertex`] naming the argument's role (`"source vertex"`) in the error.
    pub(crate) fn check_role(g: &GraphView, VertexArg(v): VertexArg, role: &str) -> PyResult<Vertex> {
        if v < 0 || v >= g.num_vertices() as i128 {
            return Err(vertex_out_of_range_as(format!("{role} {v}"), g.num_vertices()));
        }
        Ok(v as Vertex)
    }

    /// The sorted neighbours of `v` in direction `dir` (a copy), their ids checked
    /// ([`check_neighbours`]).
    fn list(&self, py: Python<'_>, v: VertexArg, dir: Dir) -> PyResult<Vec<u32>> {
        let g = self.graph()?;
        let v = Self::check_vertex(&g, v)?;
        run_on_graph(py, g.path(), || {
            let list = with_adjacency!(&g, |out, inn| match dir {
                Dir::Out => out.neighbors(v).to_vec(),
                Dir::In => inn.neighbors(v).to_vec(),
            });
            check_neighbours(&g, v, &[0, list.len() as i64], &list)?;
            Ok(list)
        })
    }
}

/// Which CSR direction a call reads.
#[derive(Clone, Copy)]
enum Dir {
    Out,
    In,
}

/// All degrees of one direction. Stored graphs read the offsets in chunks (offsets that
/// decrease or pass the arc count, a corrupted file, give a `FormatError` naming the file and
/// the entry's byte); snapshots ask each vertex.
fn degrees(g: &GraphView, dir: Dir) -> PyResult<Vec<i64>> {
    let n = g.num_vertices();
    ensure_available(n as u64 * 8, || format!("the degrees of {n} vertices")).map_err(to_pyerr)?;
    let mut out = Vec::with_capacity(n);
    let stored = match g {
        GraphView::Stored(s) => s,
        GraphView::Updated(s) => {
            let d = match dir {
                Dir::Out => s.out(),
                Dir::In => s.in_(),
            };
            out.extend((0..n as Vertex).map(|v| d.degree(v) as i64));
            return Ok(out);
        }
    };
    if n == 0 {
        return Ok(out);
    }
    let d = match dir {
        Dir::Out => stored.out(),
        Dir::In => stored.in_(),
    };
    // An undirected graph's in-lists are its out-lists.
    let file = if matches!(dir, Dir::In) && stored.is_directed() { "in.offsets" } else { "out.offsets" };
    let arcs = stored.num_arcs();
    const CHUNK: u32 = 1 << 16;
    let mut lo: u32 = 0;
    while (lo as usize) < n {
        let hi = (lo as u64 + CHUNK as u64).min(n as u64) as u32;
        let offs = d.offsets(lo, hi);
        for (i, w) in offs.windows(2).enumerate() {
            if w[0] > w[1] || w[1] > arcs {
                let v = lo as u64 + i as u64;
                return Err(to_pyerr(ocgraph_core::Error::Format {
                    path: stored.data_path().join(file),
                    offset: Some(8 * (v + 1)),
                    msg: format!(
                        "offsets of vertex {v} run from {} to {}, not within 0..={arcs}",
                        w[0], w[1]
                    ),
                }));
            }
            out.push((w[1] - w[0]) as i64);
        }
        lo = hi;
    }
    Ok(out)
}

/// The out-CSR: (indptr, indices, weights) with weights `None` when unweighted.
type Csr = (Vec<i64>, Vec<u32>, Option<Vec<f32>>);

/// Fails with a `FormatError` when a list (those of vertices `first..`, split by `indptr`)
/// names a neighbour past the vertex count, which only a corrupted data file does (an export
/// would invent the vertex): the error of the file that fails verification, as for a kernel
/// that trips on it.
fn check_neighbours(g: &GraphView, first: Vertex, indptr: &[i64], indices: &[u32]) -> PyResult<()> {
    let n = g.num_vertices() as u64;
    let Some(i) = indices.iter().position(|&v| v as u64 >= n) else { return Ok(()) };
    let u = first as usize + indptr.partition_point(|&end| end <= i as i64) - 1;
    let listed = ocgraph_core::Error::format(
        g.path(),
        format!(
            "vertex {u} lists neighbour {}, but the graph has {n} vertices: a data file is corrupted",
            indices[i]
        ),
    );
    Err(to_pyerr(ocgraph_core::format::check_graph(g.path()).err().unwrap_or(listed)))
}

fn csr(g: &GraphView) -> PyResult<Csr> {
    csr_range(g, 0..g.num_vertices() as Vertex)
}

/// The out-lists of the vertices `range` as CSR arrays (`indptr` starts at 0), their ids
/// checked ([`check_neighbours`]).
fn csr_range(g: &GraphView, range: std::ops::Range<Vertex>) -> PyResult<Csr> {
    let first = range.start;
    let mut indptr = Vec::with_capacity(range.len() + 1);
    indptr.push(0i64);
    let mut indices = Vec::new();
    let mut weights = g.is_weighted().then(Vec::new);
    if !range.is_empty() {
        with_adjacency!(g, |out, _inn| out.for_each_weighted_in_range(range, |_, nb, w| {
            indices.extend_from_slice(nb);
            if let Some(ws) = weights.as_mut() {
                ws.extend_from_slice(w);
            }
            indptr.push(indices.len() as i64);
        }));
    }
    check_neighbours(g, first, &indptr, &indices)?;
    Ok((indptr, indices, weights))
}

#[pymethods]
impl PyGraph {
    /// Opens the graph directory `path`.
    ///
    /// backend: "mmap" (the OS page cache does the I/O) or "pool" (a user-space buffer pool
    /// that never holds more than `memory` bytes of graph data).
    /// memory: pool capacity, int bytes or a string like "256MB" / "1GiB" (pool only).
    /// policy: pool replacement policy: "clock", "lru", "fifo", "lifo", "random", "s3fifo",
    /// "arc", "gac", or "gac:key=value:..." (GAC's parameters).
    /// page_size: pool frame size, a power of two from 4 KiB to 64 KiB.
    /// advice: madvise hint for the edge files (mmap only): "normal", "random",
    /// "sequential" or "willneed".
    /// writable: open for updates (write-ahead log + levels); see `add_edges`.
    /// durability (writable): when an update is durable: "batch" (fsync per call, group
    /// commit), "interval" (fsync every 100 ms) or "none".
    /// freeze_threshold (writable): freeze the in-memory delta into a level past this size.
    /// auto_compact_levels (writable): compact in the background past this many levels
    /// (None: never).
    #[new]
    #[pyo3(signature = (path, backend="mmap", memory=Size(256 << 20), policy="clock", page_size=Size(4096), advice="normal", writable=false, durability="batch", freeze_threshold=Size(64 << 20), auto_compact_levels=Some(8)))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: std::path::PathBuf,
        backend: &str,
        memory: Size,
        policy: &str,
        page_size: Size,
        advice: &str,
        writable: bool,
        durability: &str,
        freeze_threshold: Size,
        auto_compact_levels: Option<i128>,
    ) -> PyResult<PyGraph> {
        let opts = open_options(backend, memory, policy, page_size, advice)?;
        let durability = parse_durability(durability)?;
        let auto_compact_levels = auto_compact_levels
            .map(|k| {
                u32::try_from(k).map(|k| k as usize).map_err(|_| {
                    invalid(format!("auto_compact_levels must be an integer in 0..={}, got {k}", u32::MAX))
                })
            })
            .transpose()?;
        if !writable {
            let g = run(py, || GraphView::open(&path, &opts).py())?;
            return Ok(PyGraph::from_view(g));
        }
        let wopts = WriteOptions {
            backend: opts.backend,
            durability,
            freeze_threshold: freeze_threshold.0,
            auto_compact_levels,
            ..WriteOptions::default()
        };
        // A panic here is taken for damaged files, as for reads.
        let w = run_on_graph(py, &path, || WritableGraph::open(&path, &wopts).py())?;
        if let Some(line) = w.recovery().dropped_tail() {
            // As `ocgraph update` prints it: a batch cut short by a crash, or a damaged one.
            let msg = std::ffi::CString::new(line).unwrap_or_default();
            let category = py.get_type::<pyo3::exceptions::PyRuntimeWarning>();
            PyErr::warn(py, category.as_any(), &msg, 1)?;
        }
        Ok(PyGraph { inner: RwLock::new(Some(Handle::Write(Arc::new(w)))), ids: OnceLock::new() })
    }

    /// Whether the graph was opened for updates.
    #[getter]
    fn writable(&self) -> PyResult<bool> {
        Ok(matches!(self.handle()?, Handle::Write(_)))
    }

    /// Number of vertices; vertex ids are `0 .. num_vertices - 1`.
    #[getter]
    fn num_vertices(&self) -> PyResult<usize> {
        Ok(self.graph()?.num_vertices())
    }

    /// Number of edges as given (an undirected edge counts once).
    #[getter]
    fn num_edges(&self) -> PyResult<u64> {
        Ok(self.graph()?.num_edges())
    }

    /// Number of stored arcs (an undirected edge between distinct vertices is stored twice).
    #[getter]
    fn num_arcs(&self) -> PyResult<u64> {
        Ok(self.graph()?.num_arcs())
    }

    /// Whether the graph is directed.
    #[getter]
    fn directed(&self) -> PyResult<bool> {
        Ok(self.graph()?.is_directed())
    }

    /// Whether edges carry float32 weights.
    #[getter]
    fn weighted(&self) -> PyResult<bool> {
        Ok(self.graph()?.is_weighted())
    }

    /// Whether the neighbour lists are packed (`ocgraph.pack`; such graphs are read-only).
    #[getter]
    fn packed(&self) -> PyResult<bool> {
        Ok(self.graph()?.base().manifest().is_packed())
    }

    /// Whether the graph keeps its input's ids apart from the vertex ids (relabelled,
    /// reordered or string ids), so that exports give those ids.
    fn _keeps_ids(&self) -> PyResult<bool> {
        Ok(self.graph()?.base().manifest().keeps_ids())
    }

    /// The graph directory, as a string.
    #[getter]
    fn path(&self) -> PyResult<String> {
        Ok(self.graph()?.path().to_string_lossy().into_owned())
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.read().unwrap_or_else(|e| e.into_inner()).is_none()
    }

    /// Releases the graph's files and memory (a writable graph first waits for background
    /// compaction and makes every update durable). Further calls raise
    /// `InvalidArgumentError`; closing twice is allowed.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let taken = self.inner.write().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(Handle::Write(w)) = taken {
            // Another thread may still be in a call on the graph: the close waits for its
            // compaction or freeze, and its later commits fail as closed.
            run(py, || w.close().py())?;
        }
        Ok(())
    }

    /// Number of out-neighbours of `v` (for undirected graphs: the degree), the length of
    /// `neighbors(v)`: a self-loop counts once (networkx's `degree` counts it twice), and on a
    /// graph imported without `dedup`, a read-only handle counts a repeated edge as often as it
    /// appears (a writable handle reads each once).
    fn out_degree(&self, py: Python<'_>, v: VertexArg) -> PyResult<usize> {
        let g = self.graph()?;
        let v = Self::check_vertex(&g, v)?;
        run_on_graph(py, g.path(), || Ok(with_adjacency!(&g, |out, _inn| out.degree(v))))
    }

    /// Number of in-neighbours of `v` (for undirected graphs: the degree), the length of
    /// `in_neighbors(v)`, counted as `out_degree` counts.
    fn in_degree(&self, py: Python<'_>, v: VertexArg) -> PyResult<usize> {
        let g = self.graph()?;
        let v = Self::check_vertex(&g, v)?;
        run_on_graph(py, g.path(), || Ok(with_adjacency!(&g, |_out, inn| inn.degree(v))))
    }

    /// Out-degrees of all vertices as an int64 numpy array (each as `out_degree` counts it).
    fn out_degrees<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let g = self.graph()?;
        Ok(run_on_graph(py, g.path(), || degrees(&g, Dir::Out))?.into_pyarray(py))
    }

    /// In-degrees of all vertices as an int64 numpy array (each as `in_degree` counts it).
    fn in_degrees<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let g = self.graph()?;
        Ok(run_on_graph(py, g.path(), || degrees(&g, Dir::In))?.into_pyarray(py))
    }

    /// Sorted out-neighbours of `v` as a uint32 numpy array (a copy).
    fn neighbors<'py>(&self, py: Python<'py>, v: VertexArg) -> PyResult<Bound<'py, PyArray1<u32>>> {
        Ok(self.list(py, v, Dir::Out)?.into_pyarray(py))
    }

    /// Sorted in-neighbours of `v` as a uint32 numpy array (a copy).
    fn in_neighbors<'py>(&self, py: Python<'py>, v: VertexArg) -> PyResult<Bound<'py, PyArray1<u32>>> {
        Ok(self.list(py, v, Dir::In)?.into_pyarray(py))
    }

    /// Weights of `v`'s out-edges as a float32 array aligned with `neighbors(v)`
    /// (all 1.0 when the graph is unweighted).
    fn edge_weights<'py>(&self, py: Python<'py>, v: VertexArg) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let g = self.graph()?;
        let v = Self::check_vertex(&g, v)?;
        let w = run_on_graph(py, g.path(), || {
            let w = with_adjacency!(&g, |out, _inn| match out.weights(v) {
                Some(w) => w.to_vec(),
                None => vec![1.0; out.degree(v)],
            });
            Ok(w)
        })?;
        Ok(w.into_pyarray(py))
    }

    /// The id vertex `v` had in the input: an int (integer ids, or identity graphs where it is
    /// `v` itself) or a str (string ids). Raises `VertexError` when `v` is out of range.
    fn original_id(&self, py: Python<'_>, v: VertexArg) -> PyResult<PyObject> {
        let g = self.graph()?;
        let v = Self::check_vertex(&g, v)?;
        let id = match self.handle()? {
            // A writable graph names added vertices too; asked one id at a time.
            Handle::Write(w) => run(py, || w.original_id(v).py())?,
            Handle::Read(_) => {
                let ids = self.ids(py)?;
                run(py, || Ok(ids.original(v)))?
            }
        };
        Ok(match id {
            OriginalId::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
            OriginalId::Str(s) => s.into_pyobject(py)?.into_any().unbind(),
        })
    }

    /// The input id of every vertex: a uint64 array for integer ids (identity graphs: 0..n), a
    /// list of str for string ids. For a copy made by `ocgraph.reorder`, `out[g.original_ids()]
    /// = result` puts a per-vertex result back in the numbering of an identity-id source.
    fn original_ids(&self, py: Python<'_>) -> PyResult<PyObject> {
        let g = self.graph()?;
        let n = g.num_vertices() as Vertex;
        let ids = self.ids(py)?;
        let all: Vec<OriginalId> = run(py, || {
            let bytes = n as u64 * std::mem::size_of::<OriginalId>() as u64;
            ensure_available(bytes, || format!("the original ids of {n} vertices")).map_err(to_pyerr)?;
            Ok((0..n).map(|v| ids.original(v)).collect())
        })?;
        let ints: Option<Vec<u64>> = all
            .iter()
            .map(|id| match id {
                OriginalId::Int(i) => Some(*i),
                OriginalId::Str(_) => None,
            })
            .collect();
        Ok(match ints {
            Some(ints) => ints.into_pyarray(py).into_any().unbind(),
            None => {
                all.iter().map(ToString::to_string).collect::<Vec<_>>().into_pyobject(py)?.into_any().unbind()
            }
        })
    }

    /// The vertex whose input id was `original_id` (an int or a str), or None when no vertex
    /// had that id. The reverse map is built on the first call (O(n log n)).
    fn vertex(&self, py: Python<'_>, original_id: &Bound<'_, PyAny>) -> PyResult<Option<Vertex>> {
        let id = if original_id.is_instance_of::<pyo3::types::PyBool>() {
            // A bool is an int to Python, but `True` is no vertex's id.
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "an original id is an int or a str, got bool",
            ));
        } else if let Ok(s) = original_id.extract::<String>() {
            OriginalId::Str(s)
        } else if let Ok(i) = original_id.extract::<i128>() {
            match u64::try_from(i) {
                Ok(i) => OriginalId::Int(i),
                Err(_) => return Ok(None),
            }
        } else {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "an original id is an int or a str, got {}",
                original_id.get_type().name()?
            )));
        };
        if let Handle::Write(w) = self.handle()? {
            return run(py, || w.vertex_of(&id).py());
        }
        let ids = self.ids(py)?;
        run(py, || Ok(ids.vertex(&id)))
    }

    /// I/O statistics of the page backend since open or the last `reset_io_stats()`, as a dict
    /// (backend, page_requests, hits, misses, bytes_read, read_calls, evictions, major_faults,
    /// minor_faults, ratios...),
    /// and the buffer pool's occupancy now: `resident_bytes` of `capacity_bytes` (0 on mmap).
    fn io_stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let g = self.graph()?;
        let text = run(py, || Ok(g.io_stats().to_json().to_string()))?;
        py.import("json")?.call_method1("loads", (text,))
    }

    /// Resets the I/O statistics counters.
    fn reset_io_stats(&self, py: Python<'_>) -> PyResult<()> {
        let g = self.graph()?;
        run(py, || {
            g.reset_io_stats();
            Ok(())
        })
    }

    /// A read-only graph of the snapshot reads see now: every read of it (several slices of
    /// an export, the degrees, the ids) sees the same graph while updates go on.
    fn _pinned(&self) -> PyResult<PyGraph> {
        Ok(PyGraph::from_view(self.graph()?))
    }

    /// The out-CSR as numpy arrays `(indptr int64, indices uint32, weights float32 or None)`.
    /// Reads the whole graph into memory: for graphs that fit.
    #[allow(clippy::type_complexity)]
    fn _csr<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<u32>>, Option<Bound<'py, PyArray1<f32>>>)>
    {
        let g = self.graph()?;
        let need = (g.num_vertices() as u64 + 1) * 8 + g.num_arcs() * 8;
        let (indptr, indices, weights) = run_on_graph(py, g.path(), || {
            ensure_available(need, || format!("the CSR arrays of {} vertices", g.num_vertices()))
                .map_err(to_pyerr)?;
            csr(&g)
        })?;
        Ok((indptr.into_pyarray(py), indices.into_pyarray(py), weights.map(|w| w.into_pyarray(py))))
    }

    /// The out-lists of vertices `start .. end` as numpy arrays `(indptr int64 starting at 0,
    /// indices uint32, weights float32 or None)`: one slice of the graph at a time, for
    /// streaming a graph larger than memory.
    #[allow(clippy::type_complexity)]
    fn _csr_range<'py>(
        &self,
        py: Python<'py>,
        start: u64,
        end: u64,
    ) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<u32>>, Option<Bound<'py, PyArray1<f32>>>)>
    {
        let g = self.graph()?;
        let n = g.num_vertices() as u64;
        if start > end || end > n {
            return Err(invalid(format!("vertex range {start}..{end} is not within 0..{n}")));
        }
        let (indptr, indices, weights) = run_on_graph(py, g.path(), || {
            ensure_available((end - start + 1) * 8, || {
                format!("the CSR offsets of {} vertices", end - start)
            })
            .map_err(to_pyerr)?;
            csr_range(&g, start as Vertex..end as Vertex)
        })?;
        Ok((indptr.into_pyarray(py), indices.into_pyarray(py), weights.map(|w| w.into_pyarray(py))))
    }
}
