//! Binary update files: a stream of update items for `ocgraph stream`, in the WAL's item
//! encoding (the text form, one `+ u v [w]` line an item, is the CLI's). Layout (also in
//! docs/design.md):
//!
//! ```text
//! offset     size  field
//! 0          8     magic "OCUPDAT1"
//! 8 + 13 i   13    item i: op (u8), a (u32 LE), b (u32 LE), weight (f32 LE)
//! ```
//!
//! Op codes as [`WalItem`]'s: 1 add (or re-weight) `a -> b` with the weight, 2 remove `a -> b`,
//! 3 set the weight of `a -> b`, 4 add `a` vertices, 5 remove vertex `a`, 6 set the label of
//! `a` to `b` (`u32::MAX`: none). No count is stored, so a file can be written as a stream; a
//! length that is not `8 + 13 k` is a torn last item, an error naming its offset.

use std::path::Path;

use super::wal_frame::{WalItem, ITEM_LEN};
use crate::error::{Error, Result};
use crate::format::OutputFile;

/// The 8 bytes that open a binary update file.
pub const UPDATE_FILE_MAGIC: &[u8; 8] = b"OCUPDAT1";

/// Whether `bytes` (a file's first bytes, or all of them) open a binary update file: of any
/// version (the magic without its last byte, [`UPDATE_FILE_MAGIC`]'s version), so that one of
/// another version is refused as such rather than read as text.
pub fn is_update_file(bytes: &[u8]) -> bool {
    bytes.starts_with(&UPDATE_FILE_MAGIC[..7])
}

/// The items of the binary update file at `path`, whose whole content is `bytes` (read once by
/// the caller: a pipe cannot be read again), each with its byte offset (for errors about its
/// content). Errors name the file and the offset of a torn or unknown item.
pub fn update_file_items(path: &Path, bytes: &[u8]) -> Result<Vec<(u64, WalItem)>> {
    if !is_update_file(bytes) {
        return Err(Error::input_offset(
            path,
            0,
            "not a binary update file (it does not open with \"OCUPDAT1\")",
        ));
    }
    if !bytes.starts_with(UPDATE_FILE_MAGIC) {
        let version = bytes.get(7).map_or("none".to_string(), |b| format!("{:?}", char::from(*b)));
        return Err(Error::input_offset(
            path,
            7,
            format!(
                "a binary update file of version {version}: this ocgraph reads version '1' (\"OCUPDAT1\")"
            ),
        ));
    }
    let body = &bytes[8..];
    let whole = body.len() / ITEM_LEN * ITEM_LEN;
    if whole != body.len() {
        return Err(Error::input_offset(
            path,
            8 + whole as u64,
            format!("a torn item: {} bytes where an item takes {ITEM_LEN}", body.len() - whole),
        ));
    }
    body.chunks_exact(ITEM_LEN)
        .enumerate()
        .map(|(i, b)| {
            let offset = 8 + (i * ITEM_LEN) as u64;
            let item = WalItem::decode(b)
                .ok_or_else(|| Error::input_offset(path, offset, format!("unknown op code {}", b[0])))?;
            Ok((offset, item))
        })
        .collect()
}

/// Writes a binary update file item by item.
pub struct UpdateFileWriter {
    out: OutputFile,
    buf: Vec<u8>,
}

impl UpdateFileWriter {
    /// Starts writing `path` (whole or not at all, as an [`OutputFile`]) with the magic.
    pub fn create(path: &Path) -> Result<UpdateFileWriter> {
        let mut out = OutputFile::create(path)?;
        out.write_bytes(UPDATE_FILE_MAGIC)?;
        Ok(UpdateFileWriter { out, buf: Vec::new() })
    }

    /// Appends one item.
    pub fn push(&mut self, item: &WalItem) -> Result<()> {
        self.buf.clear();
        item.encode(&mut self.buf);
        self.out.write_bytes(&self.buf)
    }

    /// Puts the file in place (durably); dropped without it, the writer leaves no file.
    pub fn finish(self) -> Result<()> {
        self.out.commit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_read_back_and_damage_is_named_by_offset() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("u.bin");
        let items = [
            WalItem::AddEdge { src: 1, dst: 2, weight: 2.5 },
            WalItem::RemoveEdge { src: 3, dst: 4 },
            WalItem::SetWeight { src: 1, dst: 2, weight: 7.0 },
            WalItem::AddVertices { count: 5 },
            WalItem::RemoveVertex { v: 9 },
            WalItem::SetLabel { v: 0, label: u32::MAX },
        ];
        let mut w = UpdateFileWriter::create(&path).unwrap();
        for it in &items {
            w.push(it).unwrap();
        }
        w.finish().unwrap();
        assert!(is_update_file(&std::fs::read(&path).unwrap()));
        let got = update_file_items(&path, &std::fs::read(&path).unwrap()).unwrap();
        let offsets: Vec<u64> = (0..items.len() as u64).map(|i| 8 + 13 * i).collect();
        assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), offsets);
        assert_eq!(got.iter().map(|g| g.1).collect::<Vec<_>>(), items);

        // A torn last item, an unknown op code, a text file.
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        let e = update_file_items(&path, &std::fs::read(&path).unwrap()).unwrap_err().to_string();
        assert!(e.contains("u.bin") && e.contains(&(8 + 13 * 5).to_string()) && e.contains("torn"), "{e}");
        let mut bad = bytes.clone();
        bad[8 + 13] = 42;
        std::fs::write(&path, &bad).unwrap();
        let e = update_file_items(&path, &std::fs::read(&path).unwrap()).unwrap_err().to_string();
        assert!(e.contains("21") && e.contains("op code 42"), "{e}");
        assert!(!is_update_file(b"+ 1 2\n"));
    }
}
