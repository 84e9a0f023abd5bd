//! The maintained results saved in a graph directory (`<graph>/maintained/NAME.bin`, written
//! and read by `ocgraph_algo::incremental`), as far as a writer's open must know them: each
//! file starts with the 8-byte [`SAVED_RESULT_MAGIC`] (its last byte a version), then the
//! sequence number (u64, little-endian) of the batch it is current for.
//!
//! A file saved for a batch later than the graph's last batch at a writer's open was saved for
//! a batch that recovery dropped (a damaged last frame of the log). The writer gives the next
//! batch that number, after which nothing in the file tells it from a result of the new batch:
//! so the writer's open removes it ([`forget_results_after`]) before it logs anything.

use std::path::Path;

use crate::{Error, Result};

/// Subdirectory of the graph holding saved maintained results.
pub const MAINTAINED_DIR: &str = "maintained";

/// The magic of a saved result: `OCGMAIN` and a version byte.
pub const SAVED_RESULT_MAGIC: &[u8; 8] = b"OCGMAIN2";

/// Removes the saved results in `<dir>/maintained/` current for a batch after `last_seq`, the
/// graph's last batch (see the module docs), and syncs the directory when it removed any.
/// Files it cannot read as a saved result are left to the reader of saved results, which
/// refuses them.
pub(crate) fn forget_results_after(dir: &Path, last_seq: u64) -> Result<()> {
    let saved = dir.join(MAINTAINED_DIR);
    let Ok(entries) = std::fs::read_dir(&saved) else { return Ok(()) };
    let mut removed = false;
    for e in entries.flatten() {
        let path = e.path();
        if e.file_name().to_string_lossy().starts_with('.') {
            continue; // a save's temporary file
        }
        if saved_seq(&path).is_some_and(|seq| seq > last_seq) {
            std::fs::remove_file(&path)
                .map_err(|err| Error::io(&path, "remove a result saved for a dropped batch", err))?;
            removed = true;
        }
    }
    if removed {
        crate::format::fsync_dir(&saved)?;
    }
    Ok(())
}

/// The batch sequence number a saved result at `path` names, if it starts as one (of any
/// version).
fn saved_seq(path: &Path) -> Option<u64> {
    use std::io::Read;
    let mut head = [0u8; 16];
    std::fs::File::open(path).ok()?.read_exact(&mut head).ok()?;
    head.starts_with(&SAVED_RESULT_MAGIC[..7])
        .then(|| u64::from_le_bytes(head[8..].try_into().expect("8 bytes")))
}
