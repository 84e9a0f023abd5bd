//! The names the engine keeps at the top of a graph directory, so that replacing a graph
//! (`--force`, `overwrite=True`) can tell the graph's entries from a user's files, which it
//! must not delete.

use std::path::Path;

use super::ids_log::IDS_LOG;
use super::label_log::is_label_log;
use super::saved_results::MAINTAINED_DIR;
use super::writable::{DELTA_DIR, LEVELS_DIR, WAL_DIR};
use super::writer_lock::WRITER_LOCK;
use crate::error::{Error, Result};
use crate::format::{FileRole, MANIFEST_FILE};

/// Whether `name`, an entry directly inside a graph directory, is one the engine writes there:
/// the manifest, a data file of any role (a label file of any generation), the update state
/// (WAL, levels, delta, maintained results, writer lock, id and label logs), a base generation,
/// or the temporary file of one of these that an interrupted write left.
fn is_graph_entry(name: &str) -> bool {
    const FIXED: [&str; 7] =
        [MANIFEST_FILE, WAL_DIR, LEVELS_DIR, DELTA_DIR, MAINTAINED_DIR, WRITER_LOCK, IDS_LOG];
    FIXED.contains(&name)
        || is_label_log(name)
        || FileRole::from_stored_name(name).is_some()
        || is_temporary_data_file(name)
        || name.strip_suffix(".tmp").is_some_and(|stem| FIXED.contains(&stem))
        || is_base_generation(name)
}

/// Whether `name` is the temporary file of a data file being written (`out.neighbors.tmp`,
/// `grid.edges.raw.tmp`, ...).
pub(super) fn is_temporary_data_file(name: &str) -> bool {
    name.ends_with(".tmp") && FileRole::ALL.iter().any(|r| name.starts_with(r.file_name()))
}

/// Whether `name` is a base generation's directory (`base.<gen>`) or one being written
/// (`.base.<gen>.tmp-...`).
pub(super) fn is_base_generation(name: &str) -> bool {
    name.starts_with("base.") || name.starts_with(".base.")
}

/// The entries directly inside the graph directory `dir` that the engine did not write there
/// (sorted by name).
pub(crate) fn foreign_entries(dir: &Path) -> Result<Vec<String>> {
    let mut foreign = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, "list graph directory", e))? {
        let entry = entry.map_err(|e| Error::io(dir, "list graph directory", e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !is_graph_entry(&name) {
            foreign.push(name);
        }
    }
    foreign.sort();
    Ok(foreign)
}
