//! Analytics kernels on an opened graph (`_ocgraph._bfs`, ...). The Python `Graph` methods
//! wrap these; each runs with the GIL released, on a rayon pool of `threads` threads when given.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use ocgraph_algo as algo;
use ocgraph_core::{with_adjacency, GraphView, Layout};
use pyo3::prelude::*;

use crate::errors::{invalid, run_on_graph, IntoPy};
use crate::graph::PyGraph;
use crate::options::VertexArg;

/// Runs `f` on a dedicated rayon pool of `threads` threads (`None`: the global pool).
pub(crate) fn with_threads<T: Send>(
    threads: Option<usize>,
    f: impl FnOnce() -> PyResult<T> + Send,
) -> PyResult<T> {
    match threads {
        None => f(),
        Some(0) => Err(invalid("threads must be at least 1")),
        Some(t) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .map_err(|e| invalid(format!("cannot start {t} threads: {e}")))?;
            pool.install(f)
        }
    }
}

/// Runs `f(graph)` with the GIL released, panics caught, on `threads` threads.
pub(crate) fn kernel<T: Send>(
    py: Python<'_>,
    g: &PyGraph,
    threads: Option<usize>,
    f: impl FnOnce(&GraphView) -> PyResult<T> + Send,
) -> PyResult<T> {
    let graph = g.graph()?;
    let dir = graph.path().to_path_buf();
    // The plain lists, unless the kernel's layout chooses the packed copies.
    graph.base().read_packed_copy(false);
    // A small buffer pool takes fewer readers.
    let threads = graph.base().reading_threads(threads);
    run_on_graph(py, &dir, || with_threads(threads, || f(&graph)))
}

/// BFS depths (int64, -1 unreachable) and parents (int64, -1 unreachable; source's is itself).
#[pyfunction]
#[pyo3(signature = (g, source, threads=None, layout="auto"))]
#[allow(clippy::type_complexity)]
pub(crate) fn _bfs<'py>(
    py: Python<'py>,
    g: &PyGraph,
    source: VertexArg,
    threads: Option<usize>,
    layout: &str,
) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>)> {
    let layout = layout.parse::<Layout>().py()?;
    let (depth, parent) = kernel(py, g, threads, |gr| {
        let s = PyGraph::check_vertex(gr, source)?;
        let (_, hubs, _) = gr.choose_stored(layout, false, true).py()?;
        let r = with_adjacency!(gr, |out, inn| algo::bfs_with_hubs(&out, &inn, hubs.as_ref(), s)).py()?;
        // Converted here, on the kernel's threads (parallel too).
        Ok((r.depth_i64(), r.parent_i64()))
    })?;
    Ok((depth.into_pyarray(py), parent.into_pyarray(py)))
}

/// Shortest-path distances from `source` over out-edges (float64, inf unreachable; weights, or
/// 1 per edge when unweighted).
#[pyfunction]
#[pyo3(signature = (g, source, threads=None, layout="auto"))]
pub(crate) fn _sssp<'py>(
    py: Python<'py>,
    g: &PyGraph,
    source: VertexArg,
    threads: Option<usize>,
    layout: &str,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let layout = layout.parse::<Layout>().py()?;
    let d = kernel(py, g, threads, |gr| {
        let s = PyGraph::check_vertex(gr, source)?;
        gr.choose_stored(layout, false, false).py()?;
        with_adjacency!(gr, |out, _inn| algo::sssp(&out, s, None)).py()
    })?;
    Ok(d.into_pyarray(py))
}

/// Weakly connected component labels (uint32): the smallest vertex id of each component.
#[pyfunction]
#[pyo3(signature = (g, threads=None, layout="auto"))]
pub(crate) fn _wcc<'py>(
    py: Python<'py>,
    g: &PyGraph,
    threads: Option<usize>,
    layout: &str,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    let layout = layout.parse::<Layout>().py()?;
    let l = kernel(py, g, threads, |gr| {
        match gr.choose_stored(layout, true, true).py()? {
            (_, Some(hubs), _) => with_adjacency!(gr, |out, inn| algo::wcc_with_hubs(&out, &inn, &hubs)),
            (Some(grid), None, _) => algo::wcc_grid(&grid),
            (None, None, _) => with_adjacency!(gr, |out, inn| algo::wcc(&out, &inn)),
        }
        .py()
    })?;
    Ok(l.into_pyarray(py))
}

/// `y = A^T x`: for each vertex the weighted sum of `x` over its in-neighbours (float64).
#[pyfunction]
#[pyo3(signature = (g, x, threads=None, layout="auto"))]
pub(crate) fn _spmv<'py>(
    py: Python<'py>,
    g: &PyGraph,
    x: PyReadonlyArray1<'py, f64>,
    threads: Option<usize>,
    layout: &str,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let layout = layout.parse::<Layout>().py()?;
    let x = x.as_slice()?.to_vec();
    let y = kernel(py, g, threads, |gr| {
        match gr.choose_stored(layout, true, false).py()?.0 {
            Some(grid) => algo::spmv_grid(&grid, &x),
            None => with_adjacency!(gr, |out, inn| algo::spmv(&out, &inn, &x)),
        }
        .py()
    })?;
    Ok(y.into_pyarray(py))
}

/// PageRank scores (float64, sum 1), iterations, converged.
#[pyfunction]
#[pyo3(signature = (g, damping, max_iter, tol, personalization, weight, method, threads=None, layout="auto"))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn _pagerank<'py>(
    py: Python<'py>,
    g: &PyGraph,
    damping: f64,
    max_iter: usize,
    tol: f64,
    personalization: Option<PyReadonlyArray1<'py, f64>>,
    weight: bool,
    method: &str,
    threads: Option<usize>,
    layout: &str,
) -> PyResult<(Bound<'py, PyArray1<f64>>, usize, bool)> {
    let method = method.parse::<algo::PageRankMethod>().py()?;
    let layout = layout.parse::<Layout>().py()?;
    let personalization = crate::options::optional_copy(personalization.as_ref())?;
    let opts = algo::PageRankOptions { damping, max_iter, tol, personalization, use_weights: weight, method };
    let r = kernel(py, g, threads, |gr| {
        match gr.choose_stored(layout, true, false).py()?.0 {
            Some(grid) => with_adjacency!(gr, |out, _inn| algo::pagerank_grid(&grid, &out, &opts)),
            None => with_adjacency!(gr, |out, inn| algo::pagerank(&out, &inn, &opts)),
        }
        .py()
    })?;
    Ok((r.scores.into_pyarray(py), r.iterations, r.converged))
}

/// Exact number of triangles of the underlying undirected simple graph.
#[pyfunction]
#[pyo3(signature = (g, threads=None))]
pub(crate) fn _triangle_count(py: Python<'_>, g: &PyGraph, threads: Option<usize>) -> PyResult<u64> {
    kernel(py, g, threads, |gr| with_adjacency!(gr, |out, inn| algo::triangle_count(&out, &inn)).py())
}

/// Diameter lower bound by repeated BFS sweeps: (bound, endpoint u, endpoint v).
#[pyfunction]
#[pyo3(signature = (g, start, sweeps, threads=None))]
pub(crate) fn _diameter_estimate(
    py: Python<'_>,
    g: &PyGraph,
    start: VertexArg,
    sweeps: usize,
    threads: Option<usize>,
) -> PyResult<(u64, u32, u32)> {
    kernel(py, g, threads, |gr| {
        let s = PyGraph::check_vertex(gr, start)?;
        let e = with_adjacency!(gr, |out, inn| algo::diameter_estimate(&out, &inn, s, sweeps)).py()?;
        Ok((e.lower_bound, e.endpoints.0, e.endpoints.1))
    })
}

/// Vertices within `k` hops of `v` (excluding `v`), sorted (uint32).
#[pyfunction]
#[pyo3(signature = (g, v, k, threads=None))]
pub(crate) fn _k_hop<'py>(
    py: Python<'py>,
    g: &PyGraph,
    v: VertexArg,
    k: u32,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    let r = kernel(py, g, threads, |gr| {
        let v = PyGraph::check_vertex(gr, v)?;
        with_adjacency!(gr, |out, _inn| algo::k_hop(&out, v, k)).py()
    })?;
    Ok(r.into_pyarray(py))
}

/// Vertices exactly two hops from `v` (not `v`, not its out-neighbours), sorted (uint32).
#[pyfunction]
#[pyo3(signature = (g, v, threads=None))]
pub(crate) fn _friends_of_friends<'py>(
    py: Python<'py>,
    g: &PyGraph,
    v: VertexArg,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    let r = kernel(py, g, threads, |gr| {
        let v = PyGraph::check_vertex(gr, v)?;
        with_adjacency!(gr, |out, _inn| algo::friends_of_friends(&out, v)).py()
    })?;
    Ok(r.into_pyarray(py))
}

/// A shortest (fewest hops) path `source .. target` as a list of vertices, or None.
#[pyfunction]
#[pyo3(signature = (g, source, target, threads=None))]
pub(crate) fn _shortest_path(
    py: Python<'_>,
    g: &PyGraph,
    source: VertexArg,
    target: VertexArg,
    threads: Option<usize>,
) -> PyResult<Option<Vec<u32>>> {
    kernel(py, g, threads, |gr| {
        let s = PyGraph::check_role(gr, source, "source vertex")?;
        let t = PyGraph::check_role(gr, target, "target vertex")?;
        with_adjacency!(gr, |out, inn| algo::shortest_path(&out, &inn, s, t)).py()
    })
}
