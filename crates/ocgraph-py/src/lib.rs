//! Python bindings of ocgraph: the extension module `ocgraph._ocgraph`.
//!
//! The public API is the pure-Python package `ocgraph` (python/ocgraph), which re-exports and
//! extends what is defined here. Every call into the engine runs with the GIL released and
//! with panics caught ([`errors::run`]), so an I/O failure inside a page read raises
//! `ocgraph.OcgraphIOError` instead of aborting the interpreter.

mod algo;
mod build;
mod errors;
mod fork;
mod generate;
mod graph;
mod import;
mod labels;
mod maintain;
mod mine;
mod options;
mod query;
mod update;

use pyo3::prelude::*;

/// The native part of ocgraph; use the `ocgraph` package instead of importing this directly.
#[pymodule]
fn _ocgraph(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::install_panic_hook();
    fork::note_loading_process();
    m.add_class::<graph::PyGraph>()?;
    m.add_class::<maintain::PyMaintained>()?;
    m.add_function(wrap_pyfunction!(maintain::_maintain, m)?)?;
    m.add_function(wrap_pyfunction!(options::_size_bytes, m)?)?;
    m.add_class::<build::EdgeBuilder>()?;
    m.add_function(wrap_pyfunction!(build::_from_edges, m)?)?;
    m.add_function(wrap_pyfunction!(import::_import_edges, m)?)?;
    m.add_function(wrap_pyfunction!(import::_sparse_ids_problem, m)?)?;
    m.add_function(wrap_pyfunction!(import::_pack, m)?)?;
    m.add_function(wrap_pyfunction!(import::_build_grid, m)?)?;
    m.add_function(wrap_pyfunction!(import::_compress, m)?)?;
    m.add_function(wrap_pyfunction!(import::_remove_compressed, m)?)?;
    m.add_function(wrap_pyfunction!(import::_pack_lists, m)?)?;
    m.add_function(wrap_pyfunction!(import::_check, m)?)?;
    m.add_function(wrap_pyfunction!(import::_remove_packed_lists, m)?)?;
    m.add_function(wrap_pyfunction!(import::_index_hubs, m)?)?;
    m.add_function(wrap_pyfunction!(import::_remove_hubs, m)?)?;
    m.add_function(wrap_pyfunction!(import::_remove_grid, m)?)?;
    m.add_function(wrap_pyfunction!(import::_reorder, m)?)?;
    m.add_function(wrap_pyfunction!(labels::_set_labels, m)?)?;
    m.add_function(wrap_pyfunction!(labels::_remove_labels, m)?)?;
    m.add_function(wrap_pyfunction!(labels::_vertex_labels, m)?)?;
    m.add_function(wrap_pyfunction!(generate::_generate, m)?)?;
    m.add_function(wrap_pyfunction!(algo::_bfs, m)?)?;
    m.add_function(wrap_pyfunction!(algo::_sssp, m)?)?;
    m.add_function(wrap_pyfunction!(algo::_wcc, m)?)?;
    m.add_function(wrap_pyfunction!(algo::_spmv, m)?)?;
    m.add_function(wrap_pyfunction!(algo::_pagerank, m)?)?;
    m.add_function(wrap_pyfunction!(algo::_triangle_count, m)?)?;
    m.add_function(wrap_pyfunction!(algo::_diameter_estimate, m)?)?;
    m.add_function(wrap_pyfunction!(algo::_k_hop, m)?)?;
    m.add_function(wrap_pyfunction!(algo::_friends_of_friends, m)?)?;
    m.add_function(wrap_pyfunction!(algo::_shortest_path, m)?)?;
    m.add_function(wrap_pyfunction!(mine::_count_cliques, m)?)?;
    m.add_function(wrap_pyfunction!(mine::_list_cliques, m)?)?;
    m.add_function(wrap_pyfunction!(mine::_motifs, m)?)?;
    m.add_function(wrap_pyfunction!(mine::_match, m)?)?;
    m.add_function(wrap_pyfunction!(mine::_snapshot, m)?)?;
    m.add_class::<mine::PySnapshot>()?;
    m.add_class::<mine::PyWatch>()?;
    m.add_function(wrap_pyfunction!(update::_add_edges, m)?)?;
    m.add_function(wrap_pyfunction!(update::_remove_edges, m)?)?;
    m.add_function(wrap_pyfunction!(update::_set_edge_weights, m)?)?;
    m.add_function(wrap_pyfunction!(update::_add_vertices, m)?)?;
    m.add_function(wrap_pyfunction!(update::_remove_vertices, m)?)?;
    m.add_function(wrap_pyfunction!(update::_set_vertex_labels, m)?)?;
    m.add_function(wrap_pyfunction!(update::_add_edges_by_id, m)?)?;
    m.add_function(wrap_pyfunction!(update::_remove_edges_by_id, m)?)?;
    m.add_function(wrap_pyfunction!(update::_set_edge_weights_by_id, m)?)?;
    m.add_function(wrap_pyfunction!(update::_add_vertices_by_id, m)?)?;
    m.add_function(wrap_pyfunction!(update::_remove_vertices_by_id, m)?)?;
    m.add_function(wrap_pyfunction!(update::_freeze, m)?)?;
    m.add_function(wrap_pyfunction!(update::_compact, m)?)?;
    m.add_function(wrap_pyfunction!(update::_sync, m)?)?;
    m.add_function(wrap_pyfunction!(update::_update_state, m)?)?;
    m.add_function(wrap_pyfunction!(query::_workload, m)?)?;
    m.add_function(wrap_pyfunction!(query::_query, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_CLIQUE", ocgraph_algo::mine::MAX_CLIQUE)?;
    Ok(())
}
