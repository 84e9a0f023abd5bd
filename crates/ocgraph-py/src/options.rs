//! Parsing of Python arguments shared by several functions: byte sizes, backends, optional arrays.

use ocgraph_core::ingest::MIN_BUILD_MEMORY;
use ocgraph_core::page::policy::policy_by_name;
use ocgraph_core::page::pool::check_page_size;
use ocgraph_core::page::{Advice, BackendKind};
use ocgraph_core::size::parse_size;
use ocgraph_core::OpenOptions;
use pyo3::prelude::*;

use crate::errors::{invalid, IntoPy};

/// A byte size given as an `int` or a string such as `"256MB"` / `"4KiB"`; a `bool` raises
/// `TypeError` instead of being read as 1 or 0 bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Size(pub u64);

impl<'py> FromPyObject<'py> for Size {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(s) = ob.extract::<String>() {
            return parse_size(&s).py().map(Size);
        }
        if is_bool(ob)? {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "a size must be an int or a string like '256MB', got bool {ob}"
            )));
        }
        match ob.extract::<i128>() {
            Ok(v) => u64::try_from(v).map(Size).map_err(|_| match v {
                ..0 => invalid(format!("size must be non-negative, got {v}")),
                _ => invalid(format!("size {v} is beyond 2^64 - 1 bytes")),
            }),
            Err(_) => Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "a size must be an int or a string like '256MB', got {} {ob}",
                ob.get_type().name()?
            ))),
        }
    }
}

/// Whether `ob` is Python's bool or numpy's (`bool` in numpy 2, `bool_` before): an `int`
/// to Python, which an integer argument must not read as 0 or 1.
pub(crate) fn is_bool(ob: &Bound<'_, PyAny>) -> PyResult<bool> {
    let name = ob.get_type().name()?.to_string();
    Ok(ob.is_instance_of::<pyo3::types::PyBool>() || name == "bool" || name == "bool_")
}

/// The bytes of a size argument (see [`Size`]), for the Python layer's `size_arg`, which
/// checks every size first so that its error names the argument: PyO3 names the argument of a
/// failed extraction only when the error is a `TypeError`.
#[pyfunction]
pub(crate) fn _size_bytes(size: Size) -> u64 {
    size.0
}

/// A vertex id argument: any Python or numpy integer, taken as an `i128` so that any value a
/// caller passes (`2**64`, `np.uint64`) is refused as out of range by the range check rather than
/// overflowing the conversion; a `bool` (an `int` to Python) or numpy bool raises `TypeError` instead of being
/// read as vertex 0 or 1.
#[derive(Debug, Clone, Copy)]
pub(crate) struct VertexArg(pub i128);

impl<'py> FromPyObject<'py> for VertexArg {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        if is_bool(ob)? {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "a vertex must be an integer, got bool {ob}"
            )));
        }
        ob.extract().map(VertexArg)
    }
}

/// A graph builder's memory budget: a [`Size`] of at least [`MIN_BUILD_MEMORY`].
pub(crate) struct BuildMemory(pub u64);

impl<'py> FromPyObject<'py> for BuildMemory {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        let Size(bytes) = ob.extract()?;
        if bytes < MIN_BUILD_MEMORY {
            return Err(invalid(format!("memory {bytes} bytes: a build needs at least 4KiB")));
        }
        Ok(BuildMemory(bytes))
    }
}

fn parse_advice(s: &str) -> PyResult<Advice> {
    match s.to_ascii_lowercase().as_str() {
        "normal" => Ok(Advice::Normal),
        "random" => Ok(Advice::Random),
        "sequential" => Ok(Advice::Sequential),
        "willneed" | "will_need" | "will-need" => Ok(Advice::WillNeed),
        _ => Err(invalid(format!("unknown advice '{s}' (expected normal, random, sequential or willneed)"))),
    }
}

/// Builds [`OpenOptions`] from the keyword arguments of `ocgraph.open`.
pub(crate) fn open_options(
    backend: &str,
    memory: Size,
    policy: &str,
    page_size: Size,
    advice: &str,
) -> PyResult<OpenOptions> {
    // Every option is checked, also those the backend does not use: a misspelt policy is an
    // error before the pool is ever chosen.
    let advice = parse_advice(advice)?;
    policy_by_name(policy, 2).py()?;
    let page_size = usize::try_from(page_size.0)
        .map_err(|_| invalid(format!("page_size {} is too large", page_size.0)))?;
    check_page_size(page_size).py()?;
    let backend = match backend.to_ascii_lowercase().as_str() {
        "mmap" => BackendKind::Mmap { advice },
        "pool" => BackendKind::Pool { capacity: memory.0, page_size, policy: policy.to_string() },
        other => return Err(invalid(format!("unknown backend '{other}' (expected 'mmap' or 'pool')"))),
    };
    Ok(OpenOptions { backend })
}

/// Parses the `durability` argument of a writable `ocgraph.open`.
pub(crate) fn parse_durability(s: &str) -> PyResult<ocgraph_core::update::Durability> {
    use ocgraph_core::update::Durability;
    match s.to_ascii_lowercase().as_str() {
        "batch" => Ok(Durability::PerBatch),
        "interval" => Ok(Durability::Interval(std::time::Duration::from_millis(100))),
        "none" => Ok(Durability::None),
        _ => Err(invalid(format!("unknown durability '{s}' (expected batch, interval or none)"))),
    }
}

/// A copy of an optional 1-D array's values: the engine runs with the GIL released, where the
/// array cannot be borrowed.
pub(crate) fn optional_copy<T: numpy::Element + Copy>(
    a: Option<&numpy::PyReadonlyArray1<'_, T>>,
) -> PyResult<Option<Vec<T>>> {
    a.map(|a| Ok(a.as_slice()?.to_vec())).transpose()
}
