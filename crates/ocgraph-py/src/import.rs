//! `_import_edges`: an edge-list file into a graph directory; `_pack`: a packed copy of a graph;
//! `_reorder`: a copy renumbered by degree; `_build_grid`: the grid layout of a graph;
//! `_compress`, `_remove_compressed`: the compressed copies of its adjacency files; `_check`:
//! the verification of a graph directory (`ocgraph check`).

use std::path::PathBuf;

use ocgraph_core::ingest::{self, BuildOptions, Columns, ImportOptions, InputFormat, NoProgress, Relabel};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::build::report;
use crate::errors::{invalid, run, IntoPy};
use crate::options::{BuildMemory, Size};

fn parse_format(s: &str) -> PyResult<InputFormat> {
    Ok(match s.to_ascii_lowercase().as_str() {
        "auto" => InputFormat::Auto,
        "text" | "snap" | "edgelist" | "el" | "txt" => InputFormat::Text,
        "csv" => InputFormat::Csv,
        "mtx" | "matrixmarket" | "matrix-market" => InputFormat::MatrixMarket,
        "bin32" | "binary32" => InputFormat::Binary32,
        "bin64" | "binary64" => InputFormat::Binary64,
        "bin32w" => InputFormat::Binary32Weighted,
        "bin64w" => InputFormat::Binary64Weighted,
        _ => {
            return Err(invalid(format!(
            "unknown format '{s}' (expected auto, text, csv, mtx, bin32, bin64, bin32w, bin64w or parquet)"
        )))
        }
    })
}

fn parse_relabel(s: Option<&str>) -> PyResult<Relabel> {
    Ok(match s.map(|s| s.to_ascii_lowercase()).as_deref() {
        None | Some("none") => Relabel::None,
        Some("first-seen") | Some("first_seen") => Relabel::FirstSeen,
        Some("sorted") => Relabel::Sorted,
        Some(other) => {
            return Err(invalid(format!(
                "unknown relabel '{other}' (expected None, 'first-seen' or 'sorted')"
            )))
        }
    })
}

/// Imports the edge-list file `input` into a graph directory `out`.
#[pyfunction]
#[pyo3(signature = (input, out, format, relabel, directed, weighted, dedup, drop_self_loops, memory, overwrite, num_vertices, allow_sparse_ids, labels=None, source_col=None, target_col=None, weight_col=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn _import_edges<'py>(
    py: Python<'py>,
    input: PathBuf,
    out: PathBuf,
    format: &str,
    relabel: Option<&str>,
    directed: bool,
    weighted: bool,
    dedup: bool,
    drop_self_loops: bool,
    memory: BuildMemory,
    overwrite: bool,
    num_vertices: Option<u64>,
    allow_sparse_ids: bool,
    labels: Option<PathBuf>,
    source_col: Option<String>,
    target_col: Option<String>,
    weight_col: Option<String>,
) -> PyResult<Bound<'py, PyDict>> {
    // Core's messages name the command line's flags.
    if num_vertices.is_some() && relabel.is_some() {
        return Err(invalid("num_vertices applies to imports that keep the ids (relabel=None)"));
    }
    if num_vertices == Some(0) {
        return Err(invalid("num_vertices must be at least 1 (an import has an edge)"));
    }
    let opts = ImportOptions {
        format: parse_format(format)?,
        relabel: parse_relabel(relabel)?,
        build: BuildOptions {
            directed,
            weighted,
            dedup,
            drop_self_loops,
            memory: memory.0,
            overwrite,
            source: input.to_string_lossy().into_owned(),
        },
        num_vertices,
        allow_sparse_ids,
        labels,
        columns: Columns { source: source_col, target: target_col, weight: weight_col },
    };
    let r = run(py, || ingest::import(&input, &out, &opts, &NoProgress).py())?;
    report(py, &r)
}

/// Why a graph of `num_vertices` vertices and `edges` edges with its ids kept is refused as
/// mostly empty vertices, or None (the rule of `import`).
#[pyfunction]
pub(crate) fn _sparse_ids_problem(num_vertices: u64, edges: u64, directed: bool) -> Option<String> {
    ingest::sparse_ids_problem(num_vertices, edges, directed)
}

/// Writes `out`, a copy of the graph `graph` with packed neighbour lists; returns the byte
/// counts of the plain and packed lists and the arcs packed.
#[pyfunction]
pub(crate) fn _pack(
    py: Python<'_>,
    graph: PathBuf,
    out: PathBuf,
    overwrite: bool,
) -> PyResult<(u64, u64, u64)> {
    let r = run(py, || ingest::pack(&graph, &out, overwrite, &NoProgress).py())?;
    Ok((r.plain_bytes, r.packed_bytes, r.arcs))
}

/// Writes `out`, a copy of the graph `graph` with its vertices renumbered in descending order
/// of degree; returns the arcs written.
#[pyfunction]
pub(crate) fn _reorder(
    py: Python<'_>,
    graph: PathBuf,
    out: PathBuf,
    memory: BuildMemory,
    overwrite: bool,
) -> PyResult<u64> {
    run(py, || ingest::reorder(&graph, &out, memory.0, overwrite, &NoProgress).py())
}

/// Builds the grid layout of the graph `graph` in place (replacing any grid it had); returns
/// the cells per side, the vertices per block, the arcs, and the stored and uncompressed bytes.
#[pyfunction]
#[pyo3(signature = (graph, cells_per_side, memory, compress))]
pub(crate) fn _build_grid(
    py: Python<'_>,
    graph: PathBuf,
    cells_per_side: Option<u32>,
    memory: BuildMemory,
    compress: &str,
) -> PyResult<(u32, u64, u64, u64, u64)> {
    let codec = compress.parse::<ocgraph_core::format::grid::Codec>().py()?;
    let opts = ingest::GridOptions { cells_per_side, memory: memory.0, codec };
    let r = run(py, || ingest::build_grid(&graph, &opts, &NoProgress).py())?;
    Ok((r.info.cells_per_side, 1 << r.info.block_bits, r.arcs, r.stored_bytes, r.raw_bytes))
}

/// Writes the block-compressed copies of the adjacency files of `graph` in place (replacing
/// copies it had); returns the block size, and the plain and stored bytes.
#[pyfunction]
#[pyo3(signature = (graph, block_size))]
pub(crate) fn _compress(py: Python<'_>, graph: PathBuf, block_size: Size) -> PyResult<(u64, u64, u64)> {
    let block = u32::try_from(block_size.0)
        .map_err(|_| invalid(format!("block size {} is too large", block_size.0)))?;
    let r = run(py, || ingest::compress_adjacency(&graph, block, &NoProgress).py())?;
    Ok((r.block_size as u64, r.plain_bytes, r.stored_bytes))
}

/// What `_check` verified: files and bytes of the base, the levels and last batch of its
/// updates (`None` without updates), where the log ends in a batch not replayed, and the
/// temporary directories of killed writers removed first.
type CheckResult = (usize, u64, Option<(usize, u64)>, Option<String>, Vec<PathBuf>);

/// Verifies the graph directory `graph` as `ocgraph check` does: removes the temporary
/// directories killed writers left beside it, then checks every checksum, the lists'
/// invariants and each copy of them ([`ocgraph_core::format::check_graph`]), then its updates.
#[pyfunction]
pub(crate) fn _check(py: Python<'_>, graph: PathBuf) -> PyResult<CheckResult> {
    run(py, || {
        let removed = ocgraph_core::format::remove_stale_temp_dirs(&graph).py()?;
        let base = ocgraph_core::format::check_graph(&graph).py()?;
        let updates = ocgraph_core::update::check_updates(&graph).py()?;
        let tail = updates.as_ref().and_then(|u| u.torn_tail());
        Ok((
            base.files,
            base.bytes,
            updates.map(|u| (u.levels, u.seq)),
            tail,
            removed.into_iter().map(|s| s.path).collect(),
        ))
    })
}

/// Writes packed copies of the lists of `graph` beside its plain lists (replacing copies it
/// had); returns the arcs, and the plain and packed bytes.
#[pyfunction]
pub(crate) fn _pack_lists(py: Python<'_>, graph: PathBuf) -> PyResult<(u64, u64, u64)> {
    let r = run(py, || ingest::pack_copy(&graph, &NoProgress).py())?;
    Ok((r.arcs, r.plain_bytes, r.packed_bytes))
}

/// Removes the packed copies of `graph`'s lists; returns whether it had any.
#[pyfunction]
pub(crate) fn _remove_packed_lists(py: Python<'_>, graph: PathBuf) -> PyResult<bool> {
    run(py, || ingest::remove_packed_copy(&graph).py())
}

/// Writes the hub index of `graph` (replacing the one it had); returns its bytes and the
/// vertices with more in-neighbours than hubs.
#[pyfunction]
pub(crate) fn _index_hubs(py: Python<'_>, graph: PathBuf) -> PyResult<(u64, u64)> {
    let r = run(py, || ingest::index_hubs(&graph, &NoProgress).py())?;
    Ok((r.bytes, r.more))
}

/// Removes the hub index of `graph`; returns whether it had one.
#[pyfunction]
pub(crate) fn _remove_hubs(py: Python<'_>, graph: PathBuf) -> PyResult<bool> {
    run(py, || ingest::remove_hubs(&graph).py())
}

/// Removes the grid layout of `graph`; returns whether it had one.
#[pyfunction]
pub(crate) fn _remove_grid(py: Python<'_>, graph: PathBuf) -> PyResult<bool> {
    run(py, || ingest::remove_grid(&graph).py())
}

/// Removes the compressed copies of `graph`'s adjacency files; returns whether it had any.
#[pyfunction]
pub(crate) fn _remove_compressed(py: Python<'_>, graph: PathBuf) -> PyResult<bool> {
    run(py, || ingest::remove_compressed(&graph).py())
}
