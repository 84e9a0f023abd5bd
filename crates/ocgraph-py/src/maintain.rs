//! Maintained results on a writable graph (`Graph.maintain`): `_ocgraph._maintain` returns a
//! [`PyMaintained`], kept current by every update call of the graph before it returns.

use std::sync::{Arc, Mutex};

use numpy::{IntoPyArray, PyArray1};
use ocgraph_algo::incremental::{Maintainer, Spec, Values};
use ocgraph_core::update::WritableGraph;
use pyo3::prelude::*;

use crate::errors::{invalid, run_on_graph, IntoPy};
use crate::graph::PyGraph;
use crate::options::{is_bool, VertexArg};

/// A result kept current as the graph changes. Get one with `Graph.maintain`.
#[pyclass(module = "ocgraph._ocgraph", name = "Maintained")]
pub(crate) struct PyMaintained {
    inner: Mutex<Option<(Arc<WritableGraph>, Maintainer)>>,
    name: String,
    /// The graph's directory (a panic while reading it is first taken for damaged files).
    dir: std::path::PathBuf,
    /// The process maintaining it in the background, if it is: its thread does not exist in a
    /// forked child, where waiting for it would never end.
    background_in: Option<u32>,
    /// Whether the first computation reused a saved result (kept after `stop`).
    loaded: bool,
}

/// A numpy array of `v`.
fn to_py(py: Python<'_>, v: Values) -> PyObject {
    match v {
        Values::Int(a) => a.into_pyarray(py).into_any().unbind(),
        Values::Float(a) => a.into_pyarray(py).into_any().unbind(),
    }
}

impl PyMaintained {
    /// Runs `f` with the graph and the maintainer (GIL released). The lock is taken and
    /// released with the GIL released: a thread holding it never waits for the GIL, so threads
    /// sharing the result cannot deadlock.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&WritableGraph, &Maintainer) -> ocgraph_core::Result<T> + Send,
    ) -> PyResult<T> {
        if let Some(pid) = self.background_in.filter(|&pid| pid != ocgraph_core::process::current_process()) {
            return Err(invalid(format!(
                "{}: maintained in the background by process {pid}, whose thread a forked child \
                 does not have; maintain it in this process",
                self.name
            )));
        }
        let done = run_on_graph(py, &self.dir, || {
            let guard = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            Ok(guard.as_ref().map(|(w, m)| f(w, m)))
        })?;
        done.ok_or_else(|| {
            invalid(format!("{}: maintenance was stopped (by stop(), or as its graph was closed)", self.name))
        })?
        .py()
    }
}

#[pymethods]
impl PyMaintained {
    /// The whole result for the graph's current state: uint32 wcc labels (as `Graph.wcc`),
    /// int64 bfs hops (-1 unreachable) or float64 (sssp distances, inf unreachable; pagerank
    /// scores).
    fn result(&self, py: Python<'_>) -> PyResult<PyObject> {
        let (v, wcc) = self.with(py, |w, m| Ok((m.result(w)?, matches!(m.spec(), Spec::Wcc))))?;
        Ok(match v {
            // A component label is a vertex id, never the -1 of "none".
            Values::Int(a) if wcc => {
                a.into_iter().map(|l| l as u32).collect::<Vec<u32>>().into_pyarray(py).into_any().unbind()
            }
            v => to_py(py, v),
        })
    }

    /// `(vertices, old, new)`: the vertices whose value changed since the previous call (or
    /// since `maintain`), with their values then and now.
    fn changes(&self, py: Python<'_>) -> PyResult<(Py<PyArray1<i64>>, PyObject, PyObject)> {
        let c = self.with(py, |w, m| m.changes(w))?;
        let vs: Vec<i64> = c.vertices.iter().map(|&v| i64::from(v)).collect();
        Ok((vs.into_pyarray(py).unbind(), to_py(py, c.old), to_py(py, c.new)))
    }

    /// Makes the graph's updates durable and saves the result under `<graph>/maintained/`;
    /// returns the file's path. A later `maintain` of the same result reuses it when the graph
    /// has not changed since.
    fn save(&self, py: Python<'_>) -> PyResult<String> {
        let p = self.with(py, |w, m| m.save(w))?;
        Ok(p.to_string_lossy().into_owned())
    }

    /// Stops maintaining the result (further calls raise); stopping twice is allowed.
    fn stop(&self) {
        if let Some((w, m)) = self.inner.lock().unwrap_or_else(|e| e.into_inner()).take() {
            m.stop(&w);
        }
    }

    /// Whether `stop` was called.
    #[getter]
    fn stopped(&self) -> bool {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).is_none()
    }

    /// Waits until the result includes batch `seq` (an update call's return value; default:
    /// the graph's last batch); a batch not committed yet is refused. Results maintained in the
    /// update calls are always current.
    #[pyo3(signature = (seq=None))]
    fn wait(&self, py: Python<'_>, seq: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        // Any Python integer: one past 64 bits is past the last batch, not an overflow.
        let seq = match seq {
            None => None,
            Some(s) if is_bool(s)? => {
                return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                    "seq must be a batch number, got bool {s}"
                )))
            }
            Some(s) => {
                // Any integer-like object (numpy's too) as a Python int, as `range` takes it.
                let s = &py.import("operator")?.call_method1("index", (s,))?;
                // An int outside u64: below 0, or past every batch.
                let v = match s.extract::<u64>() {
                    Ok(v) => v,
                    Err(_) if s.lt(0)? => {
                        return Err(invalid(format!("seq must be a batch number (0 or more), got {s}")))
                    }
                    Err(_) => u64::MAX,
                };
                Some((v, s.to_string()))
            }
        };
        self.with(py, |w, m| {
            let last = w.last_seq();
            match seq {
                None => m.wait(w, u64::MAX),
                Some((v, shown)) if v > last => Err(ocgraph_core::Error::invalid(format!(
                    "seq {shown} is past the graph's last batch ({last})"
                ))),
                Some((v, _)) => m.wait(w, v),
            }
        })
    }

    /// The sequence number of the last batch the result includes.
    #[getter]
    fn seq(&self, py: Python<'_>) -> PyResult<u64> {
        self.with(py, |w, m| m.seq(w))
    }

    /// Whether the first computation reused a saved result (instead of recomputing); still
    /// answered once the result is stopped.
    #[getter]
    fn loaded(&self) -> bool {
        self.loaded
    }

    /// The result's name (`wcc`, `bfs-source-0`, ...; its saved file is `<name>.bin`).
    #[getter]
    fn name(&self) -> String {
        self.name.clone()
    }

    fn __repr__(&self) -> String {
        format!("<ocgraph.Maintained {}>", self.name)
    }
}

/// Starts maintaining `kind` (`bfs`, `sssp`: with `source`; `wcc`; `pagerank`: `damping`,
/// `tol`) on a writable graph, in the update calls or (`background`) on a thread of its own.
#[pyfunction]
#[pyo3(signature = (g, kind, source=None, damping=0.85, tol=1e-6, background=false))]
pub(crate) fn _maintain(
    py: Python<'_>,
    g: &PyGraph,
    kind: &str,
    source: Option<VertexArg>,
    damping: f64,
    tol: f64,
    background: bool,
) -> PyResult<PyMaintained> {
    let w = g.writer()?;
    let source = match source.map(|VertexArg(s)| s) {
        Some(s) if s < 0 || s >= w.num_vertices() as i128 => {
            return Err(crate::errors::vertex_out_of_range(s, w.num_vertices()))
        }
        Some(s) => Some(s as u32),
        None => None,
    };
    let spec = match (kind, source) {
        ("bfs", Some(source)) => Spec::Bfs { source },
        ("sssp", Some(source)) => Spec::Sssp { source },
        ("bfs" | "sssp", None) => return Err(invalid(format!("maintain({kind:?}) needs source="))),
        ("wcc", None) => Spec::Wcc,
        ("pagerank", None) => Spec::PageRank { damping, tol },
        ("wcc" | "pagerank", Some(_)) => return Err(invalid(format!("maintain({kind:?}) takes no source"))),
        _ => return Err(invalid(format!("unknown maintained result {kind:?} (bfs, sssp, wcc, pagerank)"))),
    };
    let name = spec.name();
    let start = if background { Maintainer::start_background } else { Maintainer::start };
    // The first computation reads with at most the threads a small buffer pool takes.
    let threads = w.snapshot().base().reading_threads(None);
    let dir = w.path().to_path_buf();
    let m = run_on_graph(py, &dir, || crate::algo::with_threads(threads, || start(&w, spec).py()))?;
    let background_in = background.then(ocgraph_core::process::current_process);
    let loaded = m.loaded();
    Ok(PyMaintained { inner: Mutex::new(Some((w, m))), name, dir, background_in, loaded })
}
