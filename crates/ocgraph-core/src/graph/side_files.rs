//! The files of a graph that are read whole when asked for (the id map and the labels), opened
//! with the graph: a later read gets this graph's version even after a writer replaced or
//! removed them (`labels set` renames a new file over the old; compaction deletes the old base),
//! as the page layer's open files do for the lists.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::format::{FileRole, Manifest};

/// The roles whose files are read whole on demand.
const ROLES: [FileRole; 4] = [FileRole::IdsU64, FileRole::IdsOffsets, FileRole::IdsStrings, FileRole::Labels];

/// The open side files of one graph.
#[derive(Debug, Default)]
pub(crate) struct SideFiles {
    files: Vec<(FileRole, PathBuf, File)>,
}

impl SideFiles {
    /// Opens the side files the manifest `m` lists in the data directory `data`.
    pub(crate) fn open(data: &Path, m: &Manifest) -> Result<SideFiles> {
        let mut files = Vec::new();
        for (role, name) in ROLES.into_iter().filter_map(|r| Some((r, m.stored_name(r)?))) {
            let path = data.join(name);
            let f = File::open(&path).map_err(|e| Error::io(&path, "open", e))?;
            files.push((role, path, f));
        }
        Ok(SideFiles { files })
    }

    /// The path of `role`'s file, for error messages.
    pub(crate) fn path(&self, role: FileRole) -> Option<&Path> {
        self.files.iter().find(|f| f.0 == role).map(|f| f.1.as_path())
    }

    /// The first `len` bytes of `role`'s file (empty when the graph has no such file).
    pub(crate) fn read(&self, role: FileRole, len: u64) -> Result<Vec<u8>> {
        let Some((_, path, f)) = self.files.iter().find(|f| f.0 == role) else {
            return Ok(Vec::new());
        };
        let mut bytes = vec![0u8; len as usize];
        f.read_exact_at(&mut bytes, 0).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => {
                Error::format(path, format!("file is shorter than {len} bytes"))
            }
            _ => Error::io(path, "read", e),
        })?;
        Ok(bytes)
    }
}
