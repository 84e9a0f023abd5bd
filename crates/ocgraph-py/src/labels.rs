//! Vertex labels stored with a graph: `_set_labels` (from an array or a label file),
//! `_remove_labels`, and `_vertex_labels` of an opened graph.

use std::path::PathBuf;

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use ocgraph_core::ingest;
use pyo3::prelude::*;

use crate::errors::{invalid, run, IntoPy};
use crate::graph::PyGraph;

/// Stores labels with the graph at `graph`: `labels` (one per vertex) or those read from
/// `file` (`vertex label` lines over the original ids). Returns the number of labelled vertices.
/// `numbered_by`: the opened graph whose original ids put `labels` in vertex order; the labels
/// are refused if the graph at `graph` no longer numbers them so.
#[pyfunction]
#[pyo3(signature = (graph, labels=None, file=None, numbered_by=None))]
pub(crate) fn _set_labels(
    py: Python<'_>,
    graph: PathBuf,
    labels: Option<PyReadonlyArray1<'_, u32>>,
    file: Option<PathBuf>,
    numbered_by: Option<PyRef<'_, PyGraph>>,
) -> PyResult<usize> {
    let given = crate::options::optional_copy(labels.as_ref())?;
    let numbering = match numbered_by {
        Some(g) => Some(g.graph()?.base().manifest().clone()),
        None => None,
    };
    run(py, || {
        let values = match (given, file) {
            (Some(v), None) => {
                ingest::set_labels(&graph, &v, numbering.as_ref()).py()?;
                v
            }
            (None, Some(f)) => ingest::set_labels_from_file(&graph, &f).py()?,
            _ => return Err(invalid("give labels or a label file")),
        };
        Ok(values.iter().filter(|&&l| l != ocgraph_core::labels::NO_LABEL).count())
    })
}

/// Removes the labels of the graph at `graph`; whether it had any.
#[pyfunction]
pub(crate) fn _remove_labels(py: Python<'_>, graph: PathBuf) -> PyResult<bool> {
    run(py, || ingest::remove_labels(&graph).py())
}

/// The labels stored with `g` over its current vertices (`NO_LABEL` for vertices added by
/// updates), or None.
#[pyfunction]
pub(crate) fn _vertex_labels<'py>(
    py: Python<'py>,
    g: &PyGraph,
) -> PyResult<Option<Bound<'py, PyArray1<u32>>>> {
    let view = g.graph()?;
    let labels = run(py, || view.labels().py())?;
    Ok(labels.map(|l| l.into_pyarray(py)))
}
