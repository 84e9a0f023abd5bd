//! `_ocgraph.Graph`: an opened graph. The public `ocgraph.Graph` subclasses it in Python and
//! adds conversions (scipy, networkx) and the context-manager protocol.

use std::sync::{Arc, OnceLock, RwLock};

use numpy::{IntoPyArray, PyArray1};
use ocgraph_core::ids::{IdLookup, OriginalId};
use ocgraph_core::{Adjacency, Graph, Vertex};
use pyo3::prelude::*;

use crate::errors::{invalid, run, to_pyerr, vertex_out_of_range, IntoPy};
use crate::options::{open_options, Size};

/// An opened on-disk graph (engine side). Use `ocgraph.open` to get one.
#[pyclass(subclass, module = "ocgraph._ocgraph", name = "Graph")]
pub(crate) struct PyGraph {
    inner: RwLock<Option<Arc<Graph>>>,
    /// Original ids, loaded on first use.
    ids: OnceLock<Arc<IdLookup>>,
}

impl PyGraph {
    /// Wraps an opened graph.
    pub(crate) fn from_graph(g: Graph) -> PyGraph {
        PyGraph { inner: RwLock::new(Some(Arc::new(g))), ids: OnceLock::new() }
    }

    /// The graph, or `InvalidArgumentError` when it was closed.
    pub(crate) fn graph(&self) -> PyResult<Arc<Graph>> {
        self.inner
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| invalid("operation on a closed graph"))
    }

    /// The original-id lookup, loaded on first use.
    fn ids(&self, py: Python<'_>) -> PyResult<Arc<IdLookup>> {
        if let Some(ids) = self.ids.get() {
            return Ok(ids.clone());
        }
        let g = self.graph()?;
        let ids = Arc::new(run(py, || g.ids().py())?);
        Ok(self.ids.get_or_init(|| ids).clone())
    }

    /// Checks `0 <= v < num_vertices` and converts to a vertex id.
    pub(crate) fn check_vertex(g: &Graph, v: i64) -> PyResult<Vertex> {
        if v < 0 || v as u64 >= g.num_vertices() as u64 {
            return Err(vertex_out_of_range(v, g.num_vertices()));
        }
        Ok(v as Vertex)
    }
}

/// Which CSR direction a call reads.
#[derive(Clone, Copy)]
enum Dir {
    Out,
    In,
}

/// All degrees of one direction, read in chunks of offsets. Decreasing offsets (a corrupted
/// file) give a `FormatError`.
fn degrees(g: &Graph, dir: Dir) -> PyResult<Vec<i64>> {
    let n = g.num_vertices();
    let mut out = Vec::with_capacity(n);
    if n == 0 {
        return Ok(out);
    }
    let d = match dir {
        Dir::Out => g.out(),
        Dir::In => g.in_(),
    };
    const CHUNK: u32 = 1 << 16;
    let mut lo: u32 = 0;
    while (lo as usize) < n {
        let hi = (lo as u64 + CHUNK as u64).min(n as u64) as u32;
        let offs = d.offsets(lo, hi);
        for (i, w) in offs.windows(2).enumerate() {
            let deg = w[1].checked_sub(w[0]).ok_or_else(|| {
                to_pyerr(ocgraph_core::Error::format(
                    g.path(),
                    format!("CSR offsets decrease at vertex {}", lo as usize + i),
                ))
            })?;
            out.push(deg as i64);
        }
        lo = hi;
    }
    Ok(out)
}

/// The out-CSR: (indptr, indices, weights) with weights `None` when unweighted.
type Csr = (Vec<i64>, Vec<u32>, Option<Vec<f32>>);

fn csr(g: &Graph) -> Csr {
    let n = g.num_vertices();
    let d = g.out();
    let mut indptr = Vec::with_capacity(n + 1);
    indptr.push(0i64);
    let mut indices = Vec::with_capacity(g.num_arcs() as usize);
    let mut weights = g.is_weighted().then(|| Vec::with_capacity(g.num_arcs() as usize));
    if n > 0 {
        d.for_each_weighted_in_range(0..n as Vertex, |_, nb, w| {
            indices.extend_from_slice(nb);
            if let Some(ws) = weights.as_mut() {
                ws.extend_from_slice(w);
            }
            indptr.push(indices.len() as i64);
        });
    }
    (indptr, indices, weights)
}

#[pymethods]
impl PyGraph {
    /// Opens the graph directory `path`.
    ///
    /// backend: "mmap" (the OS page cache does the I/O) or "pool" (a user-space buffer pool
    /// that never holds more than `memory` bytes of graph data).
    /// memory: pool capacity, int bytes or a string like "256MB" / "1GiB" (pool only).
    /// policy: pool replacement policy: "clock", "lru", "fifo", "lifo" or "random".
    /// page_size: pool frame size, a power of two from 4 KiB to 64 KiB.
    /// advice: madvise hint for the edge files (mmap only): "normal", "random",
    /// "sequential" or "willneed".
    #[new]
    #[pyo3(signature = (path, backend="mmap", memory=Size(256 << 20), policy="clock", page_size=Size(4096), advice="normal"))]
    fn new(
        py: Python<'_>,
        path: std::path::PathBuf,
        backend: &str,
        memory: Size,
        policy: &str,
        page_size: Size,
        advice: &str,
    ) -> PyResult<PyGraph> {
        let opts = open_options(backend, memory, policy, page_size, advice)?;
        let g = run(py, || Graph::open(&path, &opts).py())?;
        Ok(PyGraph::from_graph(g))
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

    /// Releases the graph's files and memory. Further calls raise `InvalidArgumentError`;
    /// closing twice is allowed.
    fn close(&self) {
        self.inner.write().unwrap_or_else(|e| e.into_inner()).take();
    }

    /// Number of out-neighbours of `v` (for undirected graphs: the degree).
    fn out_degree(&self, py: Python<'_>, v: i64) -> PyResult<usize> {
        let g = self.graph()?;
        let v = Self::check_vertex(&g, v)?;
        run(py, || Ok(g.out().degree(v)))
    }

    /// Number of in-neighbours of `v` (for undirected graphs: the degree).
    fn in_degree(&self, py: Python<'_>, v: i64) -> PyResult<usize> {
        let g = self.graph()?;
        let v = Self::check_vertex(&g, v)?;
        run(py, || Ok(g.in_().degree(v)))
    }

    /// Out-degrees of all vertices as an int64 numpy array.
    fn out_degrees<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let g = self.graph()?;
        Ok(run(py, || degrees(&g, Dir::Out))?.into_pyarray(py))
    }

    /// In-degrees of all vertices as an int64 numpy array.
    fn in_degrees<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let g = self.graph()?;
        Ok(run(py, || degrees(&g, Dir::In))?.into_pyarray(py))
    }

    /// Sorted out-neighbours of `v` as a uint32 numpy array (a copy).
    fn neighbors<'py>(&self, py: Python<'py>, v: i64) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let g = self.graph()?;
        let v = Self::check_vertex(&g, v)?;
        Ok(run(py, || Ok(g.out().neighbors(v).to_vec()))?.into_pyarray(py))
    }

    /// Sorted in-neighbours of `v` as a uint32 numpy array (a copy).
    fn in_neighbors<'py>(&self, py: Python<'py>, v: i64) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let g = self.graph()?;
        let v = Self::check_vertex(&g, v)?;
        Ok(run(py, || Ok(g.in_().neighbors(v).to_vec()))?.into_pyarray(py))
    }

    /// Weights of `v`'s out-edges as a float32 array aligned with `neighbors(v)`
    /// (all 1.0 when the graph is unweighted).
    fn edge_weights<'py>(&self, py: Python<'py>, v: i64) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let g = self.graph()?;
        let v = Self::check_vertex(&g, v)?;
        let w = run(py, || {
            let out = g.out();
            let w = match out.weights(v) {
                Some(w) => w.to_vec(),
                None => vec![1.0; out.degree(v)],
            };
            Ok(w)
        })?;
        Ok(w.into_pyarray(py))
    }

    /// The id vertex `v` had in the input: an int (integer ids, or identity graphs where it is
    /// `v` itself) or a str (string ids). Raises `VertexError` when `v` is out of range.
    fn original_id(&self, py: Python<'_>, v: i64) -> PyResult<PyObject> {
        let g = self.graph()?;
        let v = Self::check_vertex(&g, v)?;
        let ids = self.ids(py)?;
        Ok(match run(py, || Ok(ids.original(v)))? {
            OriginalId::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
            OriginalId::Str(s) => s.into_pyobject(py)?.into_any().unbind(),
        })
    }

    /// The vertex whose input id was `original_id` (an int or a str), or None when no vertex
    /// had that id. The reverse map is built on the first call (O(n log n)).
    fn vertex(&self, py: Python<'_>, original_id: &Bound<'_, PyAny>) -> PyResult<Option<Vertex>> {
        let id = if let Ok(s) = original_id.extract::<String>() {
            OriginalId::Str(s)
        } else if let Ok(i) = original_id.extract::<i128>() {
            match u64::try_from(i) {
                Ok(i) => OriginalId::Int(i),
                Err(_) => return Ok(None),
            }
        } else {
            return Err(invalid(format!("an original id is an int or a str, got {original_id}")));
        };
        let ids = self.ids(py)?;
        run(py, || Ok(ids.vertex(&id)))
    }

    /// I/O statistics of the page backend since open or the last `reset_io_stats()`, as a dict
    /// (backend, page_requests, hits, misses, bytes_read, read_calls, evictions, faults, ratios...).
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

    /// The out-CSR as numpy arrays `(indptr int64, indices uint32, weights float32 or None)`.
    /// Reads the whole graph into memory: for graphs that fit.
    #[allow(clippy::type_complexity)]
    fn _csr<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<u32>>, Option<Bound<'py, PyArray1<f32>>>)>
    {
        let g = self.graph()?;
        let (indptr, indices, weights) = run(py, || Ok(csr(&g)))?;
        Ok((indptr.into_pyarray(py), indices.into_pyarray(py), weights.map(|w| w.into_pyarray(py))))
    }
}
