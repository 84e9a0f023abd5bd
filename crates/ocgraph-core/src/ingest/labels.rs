//! Sets and removes the vertex labels of a stored graph ([`crate::labels`]).
//!
//! Installation is crash-safe in the manner of the grid's: the new file is written under a
//! temporary name and fsynced; a graph that had labels first gets a manifest without them;
//! then the file is renamed into place and the manifest naming it (with its checksum)
//! replaces the old one. A crash at any point leaves a graph that opens, with the old labels,
//! none, or the new ones; a failed step (a full disk) puts the old labels back.

use std::path::Path;

use super::grid::seal;
use super::pack::open_base;
use super::remove::remove_files;
use crate::error::{Error, Result};
use crate::format::{FileEntry, FileRole, Manifest};
use crate::update::lock_for_writing;

/// Stores `labels` (one per vertex) with the graph at `dir`, which must have no unmerged
/// updates, replacing any labels it had.
pub fn set_labels(dir: &Path, labels: &[u32]) -> Result<()> {
    let _writing = lock_for_writing(dir)?;
    let g = open_base(dir, "labelling")?;
    let m = g.manifest().clone();
    drop(g);
    if labels.len() as u64 != m.num_vertices {
        return Err(Error::invalid(format!(
            "{} labels given for a graph of {} vertices",
            labels.len(),
            m.num_vertices
        )));
    }
    let data = m.data_path(dir);
    let tmp = data.join(format!("{}.tmp", FileRole::Labels.file_name()));
    let written = (|| {
        std::fs::write(&tmp, bytemuck::cast_slice::<u32, u8>(labels))
            .map_err(|e| Error::io(&tmp, "write", e))?;
        let entry = seal(&tmp, labels.len() as u64 * 4)?;
        install(dir, &data, m, entry, &tmp)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Puts the sealed label file `tmp` in place as `entry` (see the module documentation for the
/// order). When a step after the first manifest write fails, the old labels and manifest are
/// put back (from a hard link kept beside them) before the error is returned.
fn install(dir: &Path, data: &Path, old: Manifest, entry: FileEntry, tmp: &Path) -> Result<()> {
    let name = FileRole::Labels.file_name();
    let (to, backup) = (data.join(name), data.join(format!("{name}.previous.tmp")));
    let mut m = old.clone();
    let had_labels = m.files.remove(name).is_some();
    if had_labels {
        let _ = std::fs::remove_file(&backup);
        std::fs::hard_link(&to, &backup).map_err(|e| Error::io(&backup, "link", e))?;
        if let Err(e) = m.write_atomic(dir) {
            let _ = std::fs::remove_file(&backup);
            return Err(e);
        }
    }
    let switched = (|| {
        std::fs::rename(tmp, &to).map_err(|e| Error::io(&to, "rename", e))?;
        crate::format::fsync_dir(data)?;
        m.files.insert(name.to_string(), entry);
        m.write_atomic(dir)
    })();
    if had_labels {
        if switched.is_err() && std::fs::rename(&backup, &to).is_ok() {
            let _ = old.write_atomic(dir);
        }
        let _ = std::fs::remove_file(&backup);
    }
    switched
}

/// Removes the labels of the graph at `dir`, if it has any: the manifest first, then the file.
/// Refused on a graph with uncompacted updates (as [`set_labels`]).
pub fn remove_labels(dir: &Path) -> Result<bool> {
    let _writing = lock_for_writing(dir)?;
    drop(open_base(dir, "removing the labels of")?);
    let m = Manifest::read(dir)?;
    if !m.files.contains_key(FileRole::Labels.file_name()) {
        return Ok(false);
    }
    remove_files(dir, m, [FileRole::Labels])?;
    Ok(true)
}
