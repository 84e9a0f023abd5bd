//! Sets and removes the vertex labels of a stored graph ([`crate::labels`]).
//!
//! Installation is crash-safe and never shows a reader a graph without labels: the new file
//! is written beside the old one under a name of its own (`labels.<generation>.u32`, see
//! [`FileEntry::stored_name`](crate::format::FileEntry::stored_name)) and fsynced; one atomic
//! manifest write then switches from the old file to the new one, and the old file is deleted.
//! A crash leaves the old labels or the new ones, and at worst a file no manifest names, which
//! the next writer removes (`update::lock_for_writing`).

use std::path::Path;

use super::grid::seal;
use super::pack::{open_base, refuse_updates};
use super::remove::remove_files;
use crate::error::{Error, Result};
use crate::format::{generation_name, FileEntry, FileRole, Manifest};
use crate::labels::read_label_file;
use crate::update::lock_for_writing;

/// Stores the labels of the label file `file` (`vertex label` lines over the graph's original
/// ids, see [`read_label_file`]) with the graph at `dir` ([`set_labels`]); returns them. A
/// graph with unmerged updates is refused before the file is read (its vertices added by
/// updates are not in the base). The ids are read under the writer lock: a graph replaced
/// meanwhile (`import --force`) would number them otherwise.
pub fn set_labels_from_file(dir: &Path, file: &Path) -> Result<Vec<u32>> {
    let _writing = lock_for_writing(dir)?;
    let g = open_base(dir, "labelling")?;
    let labels = read_label_file(file, &g.ids()?)?;
    let m = g.manifest().clone();
    drop(g);
    install_labels(dir, m, &labels)?;
    Ok(labels)
}

/// Stores `labels` (one per vertex) with the graph at `dir`, which must have no unmerged
/// updates, replacing any labels it had. `numbered_by`: the manifest whose original ids put
/// the labels in vertex order (a caller that read them by id), refused unless the graph
/// under the writer lock numbers its ids the same ([`Manifest::same_numbering`]): a graph
/// replaced meanwhile (`import --force`, `reorder --force`) would take them on other vertices.
pub fn set_labels(dir: &Path, labels: &[u32], numbered_by: Option<&Manifest>) -> Result<()> {
    let _writing = lock_for_writing(dir)?;
    let m = open_base(dir, "labelling")?.manifest().clone();
    if numbered_by.is_some_and(|by| !by.same_numbering(&m)) {
        return Err(Error::invalid(format!(
            "the graph at {} was replaced while its labels were put in vertex order by original \
             id; nothing was stored: set them again",
            dir.display()
        )));
    }
    install_labels(dir, m, labels)
}

/// [`set_labels`] by a caller that holds the graph's writer lock and has read `m`, the
/// manifest of its base, under it.
fn install_labels(dir: &Path, mut m: Manifest, labels: &[u32]) -> Result<()> {
    if labels.len() as u64 != m.num_vertices {
        return Err(Error::invalid(format!(
            "{} labels given for a graph of {} vertices",
            labels.len(),
            m.num_vertices
        )));
    }
    let data = m.data_path(dir);
    let key = FileRole::Labels.file_name();
    let old = m.files.get(key).map(|e| e.stored_name(key));
    // A graph without labels gets `labels.u32`; a new generation never reuses a listed name.
    let generation = m.files.get(key).map(|e| e.generation.unwrap_or(0) + 1);
    let name = generation_name(key, generation);
    let path = data.join(&name);
    let written = (|| {
        std::fs::write(&path, bytemuck::cast_slice::<u32, u8>(labels))
            .map_err(|e| Error::io(&path, "write", e))?;
        let entry = seal(&path, labels.len() as u64 * 4)?;
        crate::format::fsync_dir(&data)?;
        m.files.insert(key.to_string(), FileEntry { generation, ..entry });
        m.write_atomic(dir)
    })();
    match written {
        Err(e) => {
            // The new file goes unless the manifest names it (its rename landed and only the
            // directory's fsync failed): then the graph has the new labels.
            let listed = Manifest::read(dir).is_ok_and(|cur| cur.stored_name(FileRole::Labels) == Some(name));
            if !listed {
                let _ = std::fs::remove_file(&path);
            }
            Err(e)
        }
        Ok(()) => {
            // The manifest no longer names the old file: a failure to delete it leaves a file
            // the next writer removes.
            if let Some(old) = old {
                let _ = std::fs::remove_file(data.join(old));
            }
            Ok(())
        }
    }
}

/// Removes the labels of the graph at `dir`, if it has any: the manifest first, then the file.
/// Refused on a graph with uncompacted updates (as [`set_labels`]).
pub fn remove_labels(dir: &Path) -> Result<bool> {
    let _writing = lock_for_writing(dir)?;
    // Not opened: a damaged or truncated label file, which every open refuses, can be removed.
    refuse_updates(dir, "removing the labels of")?;
    let m = Manifest::read(dir)?;
    if !m.files.contains_key(FileRole::Labels.file_name()) {
        return Ok(false);
    }
    remove_files(dir, m, [FileRole::Labels])?;
    Ok(true)
}
