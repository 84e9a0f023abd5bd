//! Online query workloads and the query runner (`_ocgraph._workload`, `_ocgraph._query`); the
//! Python `ocgraph.workload` and `Graph.query` wrap these.

use std::path::PathBuf;
use std::sync::Arc;

use ocgraph_algo::queries::Kernels;
use ocgraph_core::query::{run_queries, Answer, PrefetchMode, RunOptions, Workload};
use pyo3::prelude::*;

use ocgraph_core::{Graph, GraphView};

use crate::errors::{invalid, run, IntoPy};
use crate::graph::PyGraph;
use crate::options::Size;

/// The stored graph under `g`: online queries with prefetching read the base CSR directly,
/// so a graph with unmerged updates is refused rather than answered from a stale base.
fn stored(g: &PyGraph) -> PyResult<Arc<Graph>> {
    match g.graph()? {
        GraphView::Stored(s) => Ok(s),
        // A writable graph without updates since its base (or just compacted) is its base.
        GraphView::Updated(s) if s.is_base() => Ok(s.shared_base()),
        GraphView::Updated(_) => Err(invalid(
            "online queries run on a stored graph; this one has updates not yet merged (or a base with \
             repeated edges, which a writable graph reads once each): compact() it first",
        )),
    }
}

/// Generates a workload of `kind` (`edge-queries`, `fof`, `shortest-path`) for `g` and saves it
/// to `out`; returns the number of queries.
#[pyfunction]
#[pyo3(signature = (g, kind, out, count, seed=1, alpha=0.1, queue=1000))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn _workload(
    py: Python<'_>,
    g: &PyGraph,
    kind: &str,
    out: PathBuf,
    count: usize,
    seed: u64,
    alpha: f64,
    queue: usize,
) -> PyResult<usize> {
    let graph = stored(g)?;
    // Never into the graph's own directory (it could replace the manifest).
    ocgraph_core::format::refuse_output_place(graph.path(), &out, "out").py()?;
    let kind = kind.to_string();
    run(py, move || {
        let n = graph.num_vertices();
        let w = match kind.as_str() {
            "edge-queries" => Workload::edge_queries(&graph.out(), alpha, queue, count, seed).py()?,
            "fof" => Workload::friends_of_friends(n, count, seed).py()?,
            "shortest-path" => Workload::shortest_paths(n, count, seed).py()?,
            _ => {
                return Err(invalid(format!(
                    "unknown workload kind {kind:?} (edge-queries, fof, shortest-path)"
                )))
            }
        };
        w.save(&out).py()?;
        Ok(w.len())
    })
}

/// Answers the workload file `workload` on `g`; returns (report JSON, answers): answers are
/// sorted vertex lists, or for shortest paths a path list or None. `memory`: bytes the graph's
/// pages get (default: the pool's capacity; unbounded with mmap).
#[pyfunction]
#[pyo3(signature = (g, workload, prefetch="none", clients=1, memory=None))]
pub(crate) fn _query(
    py: Python<'_>,
    g: &PyGraph,
    workload: PathBuf,
    prefetch: &str,
    clients: usize,
    memory: Option<Size>,
) -> PyResult<(String, Vec<Option<Vec<u32>>>)> {
    let graph = stored(g)?;
    let mode = PrefetchMode::parse(prefetch).py()?;
    run(py, move || {
        let w = Workload::load(&workload).py()?;
        let opts = RunOptions {
            prefetch: mode,
            clients,
            keep_answers: true,
            memory: memory.map(|m| m.0),
            ..RunOptions::default()
        };
        let mut r = run_queries(&graph, &w, &opts, &Kernels).py()?;
        let answers = r
            .answers
            .take()
            .unwrap_or_default()
            .into_iter()
            .map(|a| match a {
                Answer::Vertices(v) => Some(v),
                Answer::Path(p) => p,
            })
            .collect();
        let json = serde_json::to_string(&r).map_err(|e| invalid(e.to_string()))?;
        Ok((json, answers))
    })
}
