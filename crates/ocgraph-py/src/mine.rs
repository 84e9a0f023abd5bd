//! Pattern mining on an opened graph (`_ocgraph._count_cliques`, ...) and watched patterns
//! (`_ocgraph.Watch`). The Python `Graph` methods wrap these; each runs with the GIL released.
//! Matches come back as `(count, k)` uint32 arrays, one row per match.

use std::sync::Mutex;

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use ocgraph_algo::mine::{self, MatchOptions, NetChanges, Pattern, Watch, WatchStore};
use ocgraph_core::labels::{padded, NO_LABEL};
use ocgraph_core::{with_adjacency, GraphView, Vertex};
use pyo3::prelude::*;

use crate::algo::kernel;
use crate::errors::{invalid, run_on_graph, IntoPy};
use crate::graph::PyGraph;

/// `flat` (k entries per row) as a `(rows, k)` uint32 array.
fn rows<'py>(py: Python<'py>, flat: Vec<Vertex>, k: usize) -> PyResult<Bound<'py, PyArray2<u32>>> {
    let n = flat.len() / k.max(1);
    flat.into_pyarray(py).reshape([n, k])
}

/// The pattern from Python's arguments: a name or edges, with optional pattern labels (a
/// named pattern's vertices numbered as [`Pattern::edges`] gives them).
fn pattern(
    name: Option<String>,
    edges: Option<Vec<(usize, usize)>>,
    labels: Option<Vec<Option<u32>>>,
) -> PyResult<Pattern> {
    match (name, edges) {
        (Some(n), None) => {
            let named = Pattern::named(&n).py()?;
            match labels {
                None => Ok(named),
                Some(l) => Pattern::from_edges(&named.edges(), Some(l)).py(),
            }
        }
        (None, Some(e)) => Pattern::from_edges(&e, labels).py(),
        _ => Err(invalid("give a pattern name or its edges")),
    }
}

/// Number of k-cliques.
#[pyfunction]
#[pyo3(signature = (g, k, threads=None))]
pub(crate) fn _count_cliques(py: Python<'_>, g: &PyGraph, k: usize, threads: Option<usize>) -> PyResult<u64> {
    kernel(py, g, threads, |gr| with_adjacency!(gr, |out, inn| mine::count_cliques(&out, &inn, k)).py())
}

/// Every k-clique, one row each (ascending ids).
#[pyfunction]
#[pyo3(signature = (g, k, threads=None))]
pub(crate) fn _list_cliques<'py>(
    py: Python<'py>,
    g: &PyGraph,
    k: usize,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray2<u32>>> {
    let flat =
        kernel(py, g, threads, |gr| with_adjacency!(gr, |out, inn| mine::list_cliques(&out, &inn, k)).py())?;
    rows(py, flat, k)
}

/// The motif census: (class names, counts).
#[pyfunction]
#[pyo3(signature = (g, size, directed, threads=None))]
pub(crate) fn _motifs<'py>(
    py: Python<'py>,
    g: &PyGraph,
    size: usize,
    directed: bool,
    threads: Option<usize>,
) -> PyResult<(Vec<&'static str>, Bound<'py, PyArray1<u64>>)> {
    if directed {
        if size != 3 {
            return Err(invalid("the directed census is over 3 vertices (size=3)"));
        }
        let c =
            kernel(py, g, threads, |gr| with_adjacency!(gr, |out, inn| mine::triad_census(&out, &inn)).py())?;
        return Ok((mine::TRIAD_NAMES.to_vec(), c.to_vec().into_pyarray(py)));
    }
    let names = mine::motif_names(size).py()?.to_vec();
    let c = kernel(py, g, threads, |gr| {
        with_adjacency!(gr, |out, inn| mine::motif_census(&out, &inn, size)).py()
    })?;
    Ok((names, c.into_pyarray(py)))
}

/// Matches of a pattern: their number, and with `listing` the `(count, k)` array.
#[pyfunction]
#[pyo3(signature = (g, name, edges, pattern_labels, induced, labels, listing, threads=None))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub(crate) fn _match<'py>(
    py: Python<'py>,
    g: &PyGraph,
    name: Option<String>,
    edges: Option<Vec<(usize, usize)>>,
    pattern_labels: Option<Vec<Option<u32>>>,
    induced: bool,
    labels: Option<PyReadonlyArray1<'py, u32>>,
    listing: bool,
    threads: Option<usize>,
) -> PyResult<(u64, Option<Bound<'py, PyArray2<u32>>>)> {
    let p = pattern(name, edges, pattern_labels)?;
    let labels = crate::options::optional_copy(labels.as_ref())?;
    let opts = MatchOptions { induced, labels: labels.as_deref() };
    if !listing {
        let c = kernel(py, g, threads, |gr| {
            with_adjacency!(gr, |out, inn| mine::count_matches(&out, &inn, &p, opts)).py()
        })?;
        return Ok((c, None));
    }
    let flat = kernel(py, g, threads, |gr| {
        with_adjacency!(gr, |out, inn| mine::list_matches(&out, &inn, &p, opts)).py()
    })?;
    let k = p.num_vertices();
    Ok(((flat.len() / k) as u64, Some(rows(py, flat, k)?)))
}

/// What a graph's reads saw at one moment (taken around an update batch for the watches).
#[pyclass(module = "ocgraph._ocgraph", name = "Snapshot", frozen)]
pub(crate) struct PySnapshot {
    view: GraphView,
}

#[pymethods]
impl PySnapshot {
    /// The sequence number of the last update batch the snapshot holds (0 without updates).
    #[getter]
    fn seq(&self) -> u64 {
        match &self.view {
            GraphView::Updated(s) => s.seq(),
            GraphView::Stored(_) => 0,
        }
    }
}

/// The graph as reads see it now.
#[pyfunction]
pub(crate) fn _snapshot(g: &PyGraph) -> PyResult<PySnapshot> {
    Ok(PySnapshot { view: g.graph()? })
}

/// A watched pattern: the matches each update batch made appear, disappear and (labelled
/// patterns) change labels, kept until `changes()` takes them.
#[pyclass(module = "ocgraph._ocgraph", name = "Watch", subclass)]
pub(crate) struct PyWatch {
    watch: Watch,
    /// The graph before the first batch and the watch's store of the lists batches changed
    /// since (as `stream --watch` keeps them): a batch reads no snapshot but the one after it.
    tracked: Mutex<Option<(GraphView, WatchStore)>>,
    /// The data labels as of the last batch (labelled patterns), edited by label updates.
    labels: Mutex<Option<Vec<u32>>>,
    /// The changes since the last `changes()`, netted when it takes them. Locked after
    /// `labels` (and `tracked`), never before.
    pending: Mutex<NetChanges>,
}

#[pymethods]
impl PyWatch {
    /// A watch on the pattern given by `name` or `edges` (+ `pattern_labels`, `None` for a
    /// wildcard, then `labels` per data vertex), edge- or vertex-induced.
    #[new]
    #[pyo3(signature = (name=None, edges=None, pattern_labels=None, induced=false, labels=None))]
    fn new(
        name: Option<String>,
        edges: Option<Vec<(usize, usize)>>,
        pattern_labels: Option<Vec<Option<u32>>>,
        induced: bool,
        labels: Option<PyReadonlyArray1<'_, u32>>,
    ) -> PyResult<PyWatch> {
        let p = pattern(name, edges, pattern_labels)?;
        if p.is_labelled() && labels.is_none() {
            return Err(invalid(
                "the pattern is labelled and the graph has no labels: pass labels (one per data vertex)",
            ));
        }
        // An unlabelled pattern's matches never change labels: its watch keeps no labels, so a
        // relabelled vertex of a match that went and came back is no modification.
        let labels = match &labels {
            Some(l) if p.is_labelled() => Some(l.as_slice()?.to_vec()),
            _ => None,
        };
        let k = p.num_vertices();
        Ok(PyWatch {
            watch: Watch::new(p, induced),
            tracked: Mutex::default(),
            labels: Mutex::new(labels),
            pending: Mutex::new(NetChanges::new(k)),
        })
    }

    /// Number of pattern vertices (columns of the change arrays).
    #[getter]
    fn k(&self) -> usize {
        self.watch.pattern().num_vertices()
    }

    fn __repr__(&self) -> String {
        let p = self.watch.pattern();
        format!(
            "<ocgraph.Watch of a {}-vertex, {}-edge {}pattern, {}>",
            p.num_vertices(),
            p.edges().len(),
            if p.is_labelled() { "labelled " } else { "" },
            if self.watch.induced() { "vertex-induced" } else { "edge-induced" }
        )
    }

    /// Records the matches that the batch of pairs `src[i], dst[i]` and label changes
    /// `(vertices[i], labels[i])` made appear, disappear and change labels: `after` is the graph
    /// after the batch, `before` the graph before it (read at the first batch only, which fixes
    /// the graph the watch's store starts from).
    #[pyo3(signature = (before, after, src, dst, vertices=None, labels=None))]
    #[allow(clippy::too_many_arguments)]
    fn _update(
        &self,
        py: Python<'_>,
        before: &PySnapshot,
        after: &PySnapshot,
        src: PyReadonlyArray1<'_, i64>,
        dst: PyReadonlyArray1<'_, i64>,
        vertices: Option<PyReadonlyArray1<'_, i64>>,
        labels: Option<PyReadonlyArray1<'_, u32>>,
    ) -> PyResult<()> {
        let (s, d) = (src.as_slice()?, dst.as_slice()?);
        let relabels: Vec<(Vertex, u32)> = match (&vertices, &labels) {
            (Some(v), Some(l)) => v
                .as_slice()?
                .iter()
                .zip(l.as_slice()?)
                .filter(|(&v, _)| v >= 0 && v <= Vertex::MAX as i64)
                .map(|(&v, &l)| (v as Vertex, l))
                .collect(),
            _ => Vec::new(),
        };
        let batch: Vec<(Vertex, Vertex)> = s
            .iter()
            .zip(d)
            .filter(|(&u, &v)| u >= 0 && v >= 0 && u <= Vertex::MAX as i64 && v <= Vertex::MAX as i64)
            .map(|(&u, &v)| (u as Vertex, v as Vertex))
            .collect();
        // The watch's locks are taken with the GIL released (another thread may hold the GIL
        // while it waits for them), and released before an error becomes a Python exception.
        run_on_graph(py, after.view.path(), || {
            let applied: ocgraph_core::Result<()> = (|| {
                let mut guard = self.labels.lock().unwrap_or_else(|e| e.into_inner());
                // Vertices added since the watch started have no label.
                let n = after.view.num_vertices();
                if let Some(l) = guard.as_mut().filter(|l| l.len() < n) {
                    *l = padded(std::mem::take(l), n)?;
                }
                let labels = guard.as_deref();
                let mut tracked = self.tracked.lock().unwrap_or_else(|e| e.into_inner());
                let (start, store) = tracked.get_or_insert_with(|| {
                    (before.view.clone(), WatchStore::new(before.view.num_vertices()))
                });
                let ch = with_adjacency!(&*start, |so, si| with_adjacency!(&after.view, |ao, ai| store
                    .apply_pairs(&self.watch, (&so, &si), (&ao, &ai), labels, &batch, &relabels)))?;
                let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
                pending.record(&ch);
                if let Some(l) = guard.as_mut() {
                    for &(v, label) in &relabels {
                        if let Some(slot) = l.get_mut(v as usize) {
                            pending.relabel(v, *slot);
                            *slot = label;
                        }
                    }
                }
                Ok(())
            })();
            applied.py()
        })
    }

    /// The matches added, removed and modified (labels changed) since the last call, netted
    /// over the batches since ([`NetChanges`]), as three `(count, k)` uint32 arrays (one row per
    /// match, its data vertices in pattern-vertex order, rows in increasing order).
    #[allow(clippy::type_complexity)]
    fn _changes<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyArray2<u32>>, Bound<'py, PyArray2<u32>>, Bound<'py, PyArray2<u32>>)> {
        // As in `_update`: the locks are taken with the GIL released.
        let ch = py.allow_threads(|| {
            let labels = self.labels.lock().unwrap_or_else(|e| e.into_inner());
            let label =
                |v: Vertex| labels.as_ref().and_then(|l| l.get(v as usize).copied()).unwrap_or(NO_LABEL);
            self.pending.lock().unwrap_or_else(|e| e.into_inner()).take(label)
        });
        let k = self.k();
        Ok((rows(py, ch.added, k)?, rows(py, ch.removed, k)?, rows(py, ch.modified, k)?))
    }
}
