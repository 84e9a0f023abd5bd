//! `_from_edges`: a graph from numpy edge arrays. The build functions (here, in `import` and
//! `generate`) write a graph directory and return its `BuildReport` as a dict; the Python
//! layer opens the result.

use std::path::PathBuf;

use numpy::PyReadonlyArray1;
use ocgraph_core::ingest::{BuildOptions, BuildReport, GraphBuilder, IdMap, NoProgress};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{invalid, run, IntoPy};
use crate::options::Size;

/// Edges pushed to the builder per call.
const CHUNK: usize = 1 << 20;

/// The build report as a dict.
pub(crate) fn report<'py>(py: Python<'py>, r: &BuildReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("num_vertices", r.num_vertices)?;
    d.set_item("num_edges", r.num_edges)?;
    d.set_item("num_arcs", r.num_arcs)?;
    d.set_item("spilled_runs", r.spilled_runs)?;
    d.set_item("peak_buffer_bytes", r.peak_buffer_bytes)?;
    d.set_item("notices", r.notices.clone())?;
    Ok(d)
}

/// Builds a graph at `path` from validated arrays (`src`, `dst` uint32 of equal length, all
/// `< num_vertices`; `weights` float32 of the same length or None).
#[pyfunction]
#[pyo3(signature = (path, src, dst, weights, num_vertices, directed, dedup, drop_self_loops, memory, overwrite))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn _from_edges<'py>(
    py: Python<'py>,
    path: PathBuf,
    src: PyReadonlyArray1<'py, u32>,
    dst: PyReadonlyArray1<'py, u32>,
    weights: Option<PyReadonlyArray1<'py, f32>>,
    num_vertices: u64,
    directed: bool,
    dedup: bool,
    drop_self_loops: bool,
    memory: Size,
    overwrite: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let (s, d) = (src.as_slice()?, dst.as_slice()?);
    let w = match &weights {
        Some(w) => Some(w.as_slice()?),
        None => None,
    };
    if s.len() != d.len() || w.is_some_and(|w| w.len() != s.len()) {
        return Err(invalid("src, dst and weights must have the same length"));
    }
    let opts = BuildOptions {
        directed,
        weighted: w.is_some(),
        dedup,
        drop_self_loops,
        memory: memory.0,
        overwrite,
        source: "ocgraph.from_edges (numpy arrays)".to_string(),
    };
    let r = run(py, || {
        let mut b = GraphBuilder::new(&path, opts).py()?;
        b.reserve_vertices(num_vertices);
        for start in (0..s.len()).step_by(CHUNK) {
            let end = (start + CHUNK).min(s.len());
            b.push(&s[start..end], &d[start..end], w.map(|w| &w[start..end])).py()?;
        }
        b.finish(IdMap::Identity, &NoProgress).py()
    })?;
    report(py, &r)
}
