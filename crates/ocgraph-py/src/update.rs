//! Updates on a graph opened with `writable=True` (`_ocgraph._add_edges`, ...). The Python
//! `Graph` methods wrap these; each returns the batch's sequence number once the batch is
//! durable (per the graph's durability, or always with `durable=True`).

use numpy::PyReadonlyArray1;
use ocgraph_core::ids::OriginalId;
use ocgraph_core::update::{Durability, WritableGraph};
use ocgraph_core::{GraphView, Vertex};
use pyo3::prelude::*;

use crate::errors::{invalid, run_on_graph, vertex_out_of_range_as, IntoPy};
use crate::graph::PyGraph;

/// Converts the int64 ids of argument `name` to vertex ids: an id outside `0..n` raises
/// `VertexError` naming the argument and the position (`dst[1] = 7 is out of range`).
fn vertices(ids: &[i64], n: usize, name: &str) -> PyResult<Vec<Vertex>> {
    ids.iter()
        .enumerate()
        .map(|(i, &v)| {
            if v < 0 || v as u64 >= n as u64 {
                Err(vertex_out_of_range_as(format!("{name}[{i}] = {v} is"), n))
            } else {
                Ok(v as Vertex)
            }
        })
        .collect()
}

/// Pairs `src[i], dst[i]` (the arrays must have one length).
fn pairs(
    src: &PyReadonlyArray1<'_, i64>,
    dst: &PyReadonlyArray1<'_, i64>,
    n: usize,
) -> PyResult<Vec<(Vertex, Vertex)>> {
    let (s, d) = (src.as_slice()?, dst.as_slice()?);
    if s.len() != d.len() {
        return Err(invalid(format!("src has {} entries but dst has {}", s.len(), d.len())));
    }
    let max = ocgraph_core::update::wal_frame::MAX_BATCH_ITEMS;
    if s.len() > max {
        return Err(invalid(format!(
            "a batch holds at most {max} edges; this one has {}: split it",
            s.len()
        )));
    }
    Ok(vertices(s, n, "src")?.into_iter().zip(vertices(d, n, "dst")?).collect())
}

/// Runs `f` on the writable graph with the GIL released; then, when `durable`, makes it durable.
fn update<T: Send>(
    py: Python<'_>,
    g: &PyGraph,
    durable: bool,
    f: impl FnOnce(&WritableGraph) -> ocgraph_core::Result<T> + Send,
) -> PyResult<T> {
    let w = g.writer()?;
    // Maintained results and watches read lists as the batch commits.
    run_on_graph(py, w.path(), || {
        let r = f(&w).py()?;
        // Per-batch durability already made this batch durable; syncing up to the last batch
        // would also wait for other threads' later batches (an extra fsync per call).
        if durable && w.durability() != Durability::PerBatch {
            w.sync().py()?;
        }
        Ok(r)
    })
}

/// Adds edges `src[i] -> dst[i]` (weights on weighted graphs; existing edges get the new weight).
#[pyfunction]
#[pyo3(signature = (g, src, dst, weights=None, durable=true))]
pub(crate) fn _add_edges(
    py: Python<'_>,
    g: &PyGraph,
    src: PyReadonlyArray1<'_, i64>,
    dst: PyReadonlyArray1<'_, i64>,
    weights: Option<PyReadonlyArray1<'_, f32>>,
    durable: bool,
) -> PyResult<u64> {
    let w = g.writer()?;
    let edges = pairs(&src, &dst, w.num_vertices())?;
    let weights = crate::options::optional_copy(weights.as_ref())?;
    update(py, g, durable, |w| w.add_edges(&edges, weights.as_deref()))
}

/// Removes edges `src[i] -> dst[i]` (missing ones are ignored).
#[pyfunction]
#[pyo3(signature = (g, src, dst, durable=true))]
pub(crate) fn _remove_edges(
    py: Python<'_>,
    g: &PyGraph,
    src: PyReadonlyArray1<'_, i64>,
    dst: PyReadonlyArray1<'_, i64>,
    durable: bool,
) -> PyResult<u64> {
    let edges = pairs(&src, &dst, g.writer()?.num_vertices())?;
    update(py, g, durable, |w| w.remove_edges(&edges))
}

/// Sets the weights of existing edges (weighted graphs).
#[pyfunction]
#[pyo3(signature = (g, src, dst, weights, durable=true))]
pub(crate) fn _set_edge_weights(
    py: Python<'_>,
    g: &PyGraph,
    src: PyReadonlyArray1<'_, i64>,
    dst: PyReadonlyArray1<'_, i64>,
    weights: PyReadonlyArray1<'_, f32>,
    durable: bool,
) -> PyResult<u64> {
    let edges = pairs(&src, &dst, g.writer()?.num_vertices())?;
    let weights = weights.as_slice()?.to_vec();
    update(py, g, durable, |w| w.set_edge_weights(&edges, &weights))
}

/// Adds `count` isolated vertices; returns `(first, end)` of their id range.
#[pyfunction]
#[pyo3(signature = (g, count, durable=true))]
pub(crate) fn _add_vertices(py: Python<'_>, g: &PyGraph, count: u32, durable: bool) -> PyResult<(u32, u32)> {
    let r = update(py, g, durable, |w| w.add_vertices(count))?;
    Ok((r.start, r.end))
}

/// Removes every edge of the given vertices (their ids stay valid, with degree 0).
#[pyfunction]
#[pyo3(signature = (g, ids, durable=true))]
pub(crate) fn _remove_vertices(
    py: Python<'_>,
    g: &PyGraph,
    ids: PyReadonlyArray1<'_, i64>,
    durable: bool,
) -> PyResult<u64> {
    let ids = vertices(ids.as_slice()?, g.writer()?.num_vertices(), "vertices")?;
    update(py, g, durable, |w| w.remove_vertices(&ids))
}

/// Sets the label of `vertices[i]` to `labels[i]`, in order, as one batch (`NO_LABEL` removes
/// a label).
#[pyfunction]
#[pyo3(signature = (g, vertices, labels, durable=true))]
pub(crate) fn _set_vertex_labels(
    py: Python<'_>,
    g: &PyGraph,
    vertices: PyReadonlyArray1<'_, i64>,
    labels: PyReadonlyArray1<'_, u32>,
    durable: bool,
) -> PyResult<u64> {
    let (vs, ls) = (vertices.as_slice()?, labels.as_slice()?);
    if vs.len() != ls.len() {
        return Err(invalid(format!("{} vertices but {} labels", vs.len(), ls.len())));
    }
    let vs = self::vertices(vs, g.writer()?.num_vertices(), "vertices")?;
    let changes: Vec<(Vertex, u32)> = vs.into_iter().zip(ls.iter().copied()).collect();
    update(py, g, durable, |w| w.set_labels(&changes))
}

/// Converts a Python int or str to an original id.
pub(crate) fn original_id(x: &Bound<'_, PyAny>) -> PyResult<OriginalId> {
    if let Ok(s) = x.extract::<String>() {
        // As the importers: an empty id could not be exported and read back.
        if s.is_empty() {
            return Err(invalid("an original id may not be the empty string"));
        }
        return Ok(OriginalId::Str(s));
    }
    match x.extract::<i128>().ok().and_then(|i| u64::try_from(i).ok()) {
        Some(i) => Ok(OriginalId::Int(i)),
        None => Err(invalid(format!("an original id is a non-negative int or a str, got {x}"))),
    }
}

/// Pairs of original ids `(src[i], dst[i])` from two Python sequences of one length.
fn id_pairs(src: &Bound<'_, PyAny>, dst: &Bound<'_, PyAny>) -> PyResult<Vec<(OriginalId, OriginalId)>> {
    let ids = |seq: &Bound<'_, PyAny>| -> PyResult<Vec<OriginalId>> {
        seq.try_iter()?.map(|x| original_id(&x?)).collect()
    };
    let (s, d) = (ids(src)?, ids(dst)?);
    if s.len() != d.len() {
        return Err(invalid(format!("src has {} entries but dst has {}", s.len(), d.len())));
    }
    let max = ocgraph_core::update::wal_frame::MAX_BATCH_ITEMS;
    if s.len() > max {
        return Err(invalid(format!(
            "a batch holds at most {max} edges; this one has {}: split it",
            s.len()
        )));
    }
    Ok(s.into_iter().zip(d).collect())
}

/// `_add_edges` by original ids (unknown ids get new vertices).
#[pyfunction]
#[pyo3(signature = (g, src, dst, weights=None, durable=true))]
pub(crate) fn _add_edges_by_id(
    py: Python<'_>,
    g: &PyGraph,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    weights: Option<PyReadonlyArray1<'_, f32>>,
    durable: bool,
) -> PyResult<u64> {
    let edges = id_pairs(src, dst)?;
    let weights = crate::options::optional_copy(weights.as_ref())?;
    update(py, g, durable, |w| w.add_edges_by_id(&edges, weights.as_deref()))
}

/// `_remove_edges` by original ids (edges with an unknown id are missing: ignored).
#[pyfunction]
#[pyo3(signature = (g, src, dst, durable=true))]
pub(crate) fn _remove_edges_by_id(
    py: Python<'_>,
    g: &PyGraph,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    durable: bool,
) -> PyResult<u64> {
    let edges = id_pairs(src, dst)?;
    update(py, g, durable, |w| w.remove_edges_by_id(&edges))
}

/// `_set_edge_weights` by original ids.
#[pyfunction]
#[pyo3(signature = (g, src, dst, weights, durable=true))]
pub(crate) fn _set_edge_weights_by_id(
    py: Python<'_>,
    g: &PyGraph,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    weights: PyReadonlyArray1<'_, f32>,
    durable: bool,
) -> PyResult<u64> {
    let edges = id_pairs(src, dst)?;
    let weights = weights.as_slice()?.to_vec();
    update(py, g, durable, |w| w.set_edge_weights_by_id(&edges, &weights))
}

/// Adds a vertex for each new original id; returns the vertex of every id.
#[pyfunction]
#[pyo3(signature = (g, ids, durable=true))]
pub(crate) fn _add_vertices_by_id(
    py: Python<'_>,
    g: &PyGraph,
    ids: &Bound<'_, PyAny>,
    durable: bool,
) -> PyResult<Vec<Vertex>> {
    let ids: Vec<OriginalId> = ids.try_iter()?.map(|x| original_id(&x?)).collect::<PyResult<_>>()?;
    update(py, g, durable, |w| w.add_vertices_by_id(&ids))
}

/// `_remove_vertices` by original ids (an unknown id raises).
#[pyfunction]
#[pyo3(signature = (g, ids, durable=true))]
pub(crate) fn _remove_vertices_by_id(
    py: Python<'_>,
    g: &PyGraph,
    ids: &Bound<'_, PyAny>,
    durable: bool,
) -> PyResult<u64> {
    let ids: Vec<OriginalId> = ids.try_iter()?.map(|x| original_id(&x?)).collect::<PyResult<_>>()?;
    update(py, g, durable, |w| w.remove_vertices_by_id(&ids))
}

/// Freezes the in-memory delta into a new on-disk level.
#[pyfunction]
pub(crate) fn _freeze(py: Python<'_>, g: &PyGraph) -> PyResult<()> {
    update(py, g, false, |w| w.freeze())
}

/// Merges the base and every level into a new base (atomic switch).
#[pyfunction]
pub(crate) fn _compact(py: Python<'_>, g: &PyGraph) -> PyResult<()> {
    update(py, g, false, |w| w.compact())
}

/// Makes every update so far durable.
#[pyfunction]
pub(crate) fn _sync(py: Python<'_>, g: &PyGraph) -> PyResult<()> {
    // Refused in a forked child whatever the durability (see `WritableGraph::check_process`).
    g.writer()?.check_process().py()?;
    update(py, g, true, |_| Ok(()))
}

/// `(levels, last batch sequence number)` of the graph: a writable graph's now, a read-only
/// one's as of its snapshot (`(0, 0)` for a graph without updates).
#[pyfunction]
pub(crate) fn _update_state(g: &PyGraph) -> PyResult<(usize, u64)> {
    Ok(match g.graph()? {
        GraphView::Updated(snap) => (snap.num_levels(), snap.seq()),
        GraphView::Stored(_) => (0, 0),
    })
}
