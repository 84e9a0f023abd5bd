//! Vertex labels stored with a graph: `labels.u32`, one u32 label per vertex, listed and
//! checksummed in the manifest like every data file (docs/design.md gives the layout).
//!
//! Labels are what labelled patterns match against (`ocgraph mine pattern`, watches). They are
//! set by `ocgraph import --labels FILE` or `ocgraph labels set`, changed by update batches on a
//! writable graph (`update/label_log.rs`), copied by `pack`, permuted by `reorder` and carried
//! by compaction. A vertex the label file does not name, and a vertex added by updates, has
//! [`NO_LABEL`] until labelled: no pattern label matches it (a wildcard pattern vertex does).
//!
//! Memory: readers load the labels whole, 4 bytes per vertex.

use std::io::BufRead;
use std::path::Path;

use crate::error::{Error, Result};
use crate::format::{FileRole, Manifest};
use crate::graph::SideFiles;
use crate::ids::{IdLookup, OriginalId};

/// The label of a vertex that has none; a label file may not use it.
pub const NO_LABEL: u32 = u32::MAX;

/// Loads the labels of the graph whose open side files are `files` (manifest `m`), if it has
/// any, checking their checksum against the manifest.
pub(crate) fn load(files: &SideFiles, m: &Manifest) -> Result<Option<Vec<u32>>> {
    let Some(entry) = m.file(FileRole::Labels) else {
        return Ok(None);
    };
    let bytes = files.read(FileRole::Labels, entry.padded_len())?;
    if crc32c::crc32c(&bytes) != entry.crc32c {
        let path = files.path(FileRole::Labels).unwrap_or(Path::new(FileRole::Labels.file_name()));
        return Err(Error::format(path, "checksum mismatch: the labels are corrupted"));
    }
    let labels = bytes[..entry.len as usize]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Ok(Some(labels))
}

/// `labels` extended to `n` vertices with [`NO_LABEL`] (vertices added by updates); an
/// [`crate::Error::OutOfMemory`] where the machine cannot hold them.
pub fn padded(mut labels: Vec<u32>, n: usize) -> Result<Vec<u32>> {
    if labels.len() < n {
        crate::memory::try_resize(&mut labels, n, NO_LABEL, || format!("the labels of {n} vertices"))?;
    }
    Ok(labels)
}

/// Reads a label file for the graph whose original ids are `ids`: one `vertex label` pair a
/// line, separated by white space or a comma; `vertex` is an original id as in the edge list
/// the graph was imported from, `label` an unsigned 32-bit integer other than [`NO_LABEL`].
/// Blank lines and lines starting with `#` or `%` are skipped. Vertices the file does not
/// name get [`NO_LABEL`].
///
/// Errors name the file and line: a malformed line, a vertex not in the graph, a vertex
/// labelled twice, a label out of range.
pub fn read_label_file(path: &Path, ids: &IdLookup) -> Result<Vec<u32>> {
    // As the edge lists: gzip'd or not, a leading byte-order mark skipped.
    let reader = crate::ingest::text_reader(path)?;
    let mut labels = vec![NO_LABEL; ids.len() as usize];
    let bad = |line: u64, msg: String| Error::input_line(path, line, msg);
    for (i, line) in reader.split(b'\n').enumerate() {
        let line_no = i as u64 + 1;
        let raw = line.map_err(|e| Error::io(path, "read", e))?;
        let text = std::str::from_utf8(&raw).map_err(|_| bad(line_no, "the line is not UTF-8".into()))?;
        let text = if line_no == 1 { text.strip_prefix('\u{feff}').unwrap_or(text) } else { text };
        let text = text.trim();
        if text.is_empty() || text.starts_with('#') || text.starts_with('%') {
            continue;
        }
        let mut fields: Vec<&str> =
            text.split(|c: char| c.is_whitespace() || c == ',').filter(|f| !f.is_empty()).collect();
        if fields.get(2).is_some_and(|f| f.starts_with('#') || f.starts_with('%')) {
            fields.truncate(2); // a comment after the label (`alice 1 # note`), as edge lists allow
        }
        let [vertex, label] = fields[..] else {
            return Err(bad(line_no, format!("expected `vertex label`, found {} fields", fields.len())));
        };
        let id = if ids.has_string_ids() {
            OriginalId::Str(vertex.to_string())
        } else {
            OriginalId::Int(
                vertex
                    .parse()
                    .map_err(|_| bad(line_no, format!("vertex {vertex:?} is not an integer id")))?,
            )
        };
        let v =
            ids.vertex(&id).ok_or_else(|| bad(line_no, format!("vertex {vertex} is not in the graph")))?;
        let label: u32 = label
            .parse()
            .ok()
            .filter(|&l| l != NO_LABEL)
            .ok_or_else(|| bad(line_no, format!("label {label:?} is not an integer below {NO_LABEL}")))?;
        let slot = &mut labels[v as usize];
        if *slot != NO_LABEL {
            return Err(bad(line_no, format!("vertex {vertex} is labelled twice")));
        }
        *slot = label;
    }
    Ok(labels)
}
