//! `_from_edges`: a graph from numpy edge arrays. The build functions (here, in `import` and
//! `generate`) write a graph directory and return its `BuildReport` as a dict; the Python
//! layer opens the result.

use std::path::PathBuf;

use numpy::PyReadonlyArray1;
use ocgraph_core::ingest::{BuildOptions, BuildReport, GraphBuilder, IdMap, NoProgress};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{invalid, run, IntoPy};
use crate::options::BuildMemory;

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
    memory: BuildMemory,
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

/// A graph built from batches of edges pushed one after the other (`ocgraph.from_arrow`
/// streams record batches through it): the builder keeps at most `memory` bytes of edges and
/// spills sorted runs to disk beyond that, so the input can be larger than memory. Nothing
/// appears at `path` until `finish` succeeds.
#[pyclass(module = "ocgraph._ocgraph")]
pub(crate) struct EdgeBuilder {
    builder: Option<GraphBuilder>,
    weighted: bool,
}

impl EdgeBuilder {
    fn builder(&mut self) -> PyResult<&mut GraphBuilder> {
        self.builder.as_mut().ok_or_else(|| invalid("the builder is finished"))
    }
}

#[pymethods]
impl EdgeBuilder {
    /// Starts building the graph `path` (fails now if it exists without `overwrite`).
    #[new]
    #[pyo3(signature = (path, directed, weighted, dedup, drop_self_loops, memory, overwrite, source))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        directed: bool,
        weighted: bool,
        dedup: bool,
        drop_self_loops: bool,
        memory: BuildMemory,
        overwrite: bool,
        source: String,
    ) -> PyResult<Self> {
        let opts =
            BuildOptions { directed, weighted, dedup, drop_self_loops, memory: memory.0, overwrite, source };
        let b = run(py, || GraphBuilder::new(&path, opts).py())?;
        Ok(EdgeBuilder { builder: Some(b), weighted })
    }

    /// Adds the edges `src[i] -> dst[i]` (uint32 vertex ids below 2^32 - 1; float32 `weights`
    /// of the same length when the graph is weighted, else None).
    #[pyo3(signature = (src, dst, weights=None))]
    fn push(
        &mut self,
        py: Python<'_>,
        src: PyReadonlyArray1<'_, u32>,
        dst: PyReadonlyArray1<'_, u32>,
        weights: Option<PyReadonlyArray1<'_, f32>>,
    ) -> PyResult<()> {
        let (s, d) = (src.as_slice()?, dst.as_slice()?);
        let w = match &weights {
            Some(w) => Some(w.as_slice()?),
            None => None,
        };
        if s.len() != d.len() || w.is_some_and(|w| w.len() != s.len()) {
            return Err(invalid("src, dst and weights must have the same length"));
        }
        if w.is_some() != self.weighted {
            return Err(invalid(if self.weighted {
                "this graph is weighted: pass weights"
            } else {
                "this graph is unweighted: weights must be None"
            }));
        }
        let b = self.builder()?;
        run(py, || b.push(s, d, w).py())
    }

    /// Declares that the graph has at least `n` vertices (isolated ones included).
    fn reserve_vertices(&mut self, n: u64) -> PyResult<()> {
        self.builder()?.reserve_vertices(n);
        Ok(())
    }

    /// Writes the graph and returns the build report as a dict. `original_ids`: None (vertex
    /// ids are the input ids), a uint64 array or a list of str: the input id of each vertex.
    #[pyo3(signature = (original_ids=None))]
    fn finish<'py>(
        &mut self,
        py: Python<'py>,
        original_ids: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let ids = match original_ids {
            None => IdMap::Identity,
            Some(o) => {
                if let Ok(a) = o.extract::<PyReadonlyArray1<'py, u64>>() {
                    IdMap::U64(a.as_slice()?.to_vec())
                } else {
                    IdMap::Strings(o.extract::<Vec<String>>()?)
                }
            }
        };
        let b = self.builder.take().ok_or_else(|| invalid("the builder is finished"))?;
        let r = run(py, || b.finish(ids, &NoProgress).py())?;
        report(py, &r)
    }

    /// Drops the builder without writing the graph (its scratch files are removed).
    fn abort(&mut self) {
        self.builder = None;
    }
}
