//! Mapping of Rust errors and panics to the Python exception hierarchy defined in
//! `ocgraph/_errors.py`, and [`run`], the wrapper every call into the engine goes through.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use ocgraph_core::error::{Error, ErrorKind};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::PyType;

/// The exception classes of `ocgraph._errors` (and its constructor of I/O errors), looked up
/// once.
struct Classes {
    base: Py<PyType>,
    format: Py<PyType>,
    input: Py<PyType>,
    io: Py<PyType>,
    invalid: Py<PyType>,
    memory: Py<PyType>,
    vertex: Py<PyType>,
    io_error: Py<PyAny>,
}

static CLASSES: GILOnceCell<Classes> = GILOnceCell::new();

fn classes(py: Python<'_>) -> PyResult<&Classes> {
    CLASSES.get_or_try_init(py, || {
        let m = py.import("ocgraph._errors")?;
        let get =
            |name: &str| -> PyResult<Py<PyType>> { Ok(m.getattr(name)?.downcast_into::<PyType>()?.unbind()) };
        Ok(Classes {
            base: get("Error")?,
            format: get("FormatError")?,
            input: get("InputError")?,
            io: get("OcgraphIOError")?,
            invalid: get("InvalidArgumentError")?,
            memory: get("OcgraphMemoryError")?,
            vertex: get("VertexError")?,
            io_error: m.getattr("io_error")?.unbind(),
        })
    })
}

/// Instantiates `class(msg)`, falling back to `RuntimeError` if the class cannot be loaded.
fn make(py: Python<'_>, pick: impl FnOnce(&Classes) -> &Py<PyType>, msg: String) -> PyErr {
    match classes(py) {
        Ok(c) => match pick(c).bind(py).call1((msg,)) {
            Ok(obj) => PyErr::from_value(obj),
            Err(e) => e,
        },
        Err(e) => {
            let err = PyRuntimeError::new_err(msg);
            err.set_cause(py, Some(e));
            err
        }
    }
}

/// Converts an engine error to the matching `ocgraph` exception. An I/O error is built by
/// `ocgraph._errors.io_error`, which picks its subclass by `errno` (`FileNotFoundError`...) and
/// fills in the `errno` and `filename` attributes of `OSError`.
pub(crate) fn to_pyerr(err: Error) -> PyErr {
    Python::with_gil(|py| {
        let msg = err.to_string();
        match (&err, err.kind()) {
            (Error::Io { path, source, .. }, _) => io_error(py, msg, errno(source), &path.to_string_lossy()),
            (_, ErrorKind::Io) => make(py, |c| &c.io, msg),
            (_, ErrorKind::Input) => make(py, |c| &c.input, msg),
            (_, ErrorKind::Format) => make(py, |c| &c.format, msg),
            (_, ErrorKind::InvalidArgument) => make(py, |c| &c.invalid, msg),
            (_, ErrorKind::OutOfMemory) => make(py, |c| &c.memory, msg),
        }
    })
}

/// The errno of `e`: its OS error code, or for an error made without one (a file found in
/// the way by the writer) the code of its kind.
fn errno(e: &std::io::Error) -> Option<i32> {
    e.raw_os_error().or(match e.kind() {
        std::io::ErrorKind::NotFound => Some(libc::ENOENT),
        std::io::ErrorKind::AlreadyExists => Some(libc::EEXIST),
        std::io::ErrorKind::PermissionDenied => Some(libc::EACCES),
        _ => None,
    })
}

/// `ocgraph._errors.io_error(msg, code, filename)`, falling back to a plain `OcgraphIOError`.
fn io_error(py: Python<'_>, msg: String, code: Option<i32>, filename: &str) -> PyErr {
    let made = classes(py).and_then(|c| c.io_error.bind(py).call1((msg.clone(), code, filename)));
    match made {
        Ok(obj) => PyErr::from_value(obj),
        Err(_) => make(py, |c| &c.io, msg),
    }
}

/// An `InvalidArgumentError` with `msg`.
pub(crate) fn invalid(msg: impl Into<String>) -> PyErr {
    Python::with_gil(|py| make(py, |c| &c.invalid, msg.into()))
}

/// A `VertexError` (subclass of `InvalidArgumentError` and `IndexError`) for vertex `v`.
pub(crate) fn vertex_out_of_range(v: impl std::fmt::Display, n: usize) -> PyErr {
    vertex_out_of_range_as(format!("vertex {v}"), n)
}

/// [`vertex_out_of_range`] for a vertex described as `what` (`"target vertex 6"`).
pub(crate) fn vertex_out_of_range_as(what: String, n: usize) -> PyErr {
    Python::with_gil(|py| {
        make(py, |c| &c.vertex, format!("{what} out of range (the graph has {n} vertices)"))
    })
}

/// Turns a panic payload into an `ocgraph.OcgraphIOError` (panics inside the engine come from
/// unrecoverable page reads) or `ocgraph.Error` (anything else).
fn panic_to_pyerr(payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let msg = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    };
    // A page read that failed outside `catch_read_errors` panics with its error's text,
    // `PATH: read failed: ...` (a bare "read" matched "thread" and "already").
    let is_io = msg.contains(": read failed") || msg.contains("I/O") || msg.contains("io error");
    Python::with_gil(|py| {
        if is_io {
            make(py, |c| &c.io, format!("I/O error while reading the graph: {msg}"))
        } else {
            make(py, |c| &c.base, format!("internal error in ocgraph: {msg}"))
        }
    })
}

/// Runs `f` with the GIL released, catching panics: an `Err` becomes the matching `ocgraph`
/// exception and a panic becomes `ocgraph.Error` instead of unwinding into the interpreter.
pub(crate) fn run<T, F>(py: Python<'_>, f: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> PyResult<T> + Send,
{
    run_with(py, f, panic_to_pyerr)
}

/// [`run`] for work on the graph at `dir`: a panic there is first taken for a sign of corrupted
/// graph files (open checks every byte of a small graph only), so the files are verified
/// (`ocgraph check`): when they fail, the error is that `FormatError`, naming the file.
pub(crate) fn run_on_graph<T, F>(py: Python<'_>, dir: &std::path::Path, f: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> PyResult<T> + Send,
{
    run_with(py, f, |payload| match py.allow_threads(|| ocgraph_core::format::check_graph(dir)) {
        Err(corrupt) => to_pyerr(corrupt),
        Ok(_) => panic_to_pyerr(payload),
    })
}

/// Calls inside [`run_with`] now: a panic in one becomes a Python exception carrying its
/// message, so the panic hook need not print it too.
static CATCHING: AtomicUsize = AtomicUsize::new(0);

/// Installs a panic hook that leaves the message of a panic [`run_with`] catches to the
/// exception it becomes (the default hook printed it to standard error first, a raw Rust
/// message before the `FormatError` naming the file); other panics print as before.
pub(crate) fn install_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if CATCHING.load(Ordering::SeqCst) == 0 {
            default(info);
        }
    }));
}

/// [`run`], with `on_panic` making the error of a panic.
fn run_with<T, F>(
    py: Python<'_>,
    f: F,
    on_panic: impl FnOnce(Box<dyn std::any::Any + Send>) -> PyErr,
) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> PyResult<T> + Send,
{
    // A failed page read of the buffer pool comes back as an I/O error naming the file.
    CATCHING.fetch_add(1, Ordering::SeqCst);
    let r = py.allow_threads(|| {
        catch_unwind(AssertUnwindSafe(|| {
            crate::fork::on_own_pool(|| ocgraph_core::page::catch_read_errors(f))
        }))
    });
    CATCHING.fetch_sub(1, Ordering::SeqCst);
    match r {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => Err(to_pyerr(e)),
        Err(payload) => Err(on_panic(payload)),
    }
}

/// Extension trait: `.py()` converts an engine `Result` into a `PyResult`.
pub(crate) trait IntoPy<T> {
    /// Maps the error with [`to_pyerr`].
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for ocgraph_core::Result<T> {
    fn py(self) -> PyResult<T> {
        self.map_err(to_pyerr)
    }
}
