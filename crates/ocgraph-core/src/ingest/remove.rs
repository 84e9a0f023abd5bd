//! Taking optional files (the grid, compressed copies, labels) off a stored graph.

use std::path::Path;

use crate::error::{Error, Result};
use crate::format::{FileRole, Manifest};

/// Unlists the files of `roles` from `m`, the manifest of the graph at `dir` (written
/// atomically), then deletes those it listed: a crash in between leaves unlisted files behind,
/// never a listed file that is gone.
pub(super) fn remove_files(
    dir: &Path,
    mut m: Manifest,
    roles: impl IntoIterator<Item = FileRole>,
) -> Result<()> {
    let data = m.data_path(dir);
    let listed: Vec<String> = roles
        .into_iter()
        .filter_map(|r| m.files.remove(r.file_name()).map(|e| e.stored_name(r.file_name())))
        .collect();
    m.write_atomic(dir)?;
    for name in listed {
        let p = data.join(name);
        match std::fs::remove_file(&p) {
            // A listed file already gone (deleted by hand, lost): unlisted now, as asked.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            r => r.map_err(|e| Error::io(&p, "remove", e))?,
        }
    }
    Ok(())
}
