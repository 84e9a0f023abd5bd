//! Vertex labels set by updates: [`LabelHistory`], the label changes since the base (shared by
//! the writer and its snapshots, read as of a sequence number), and [`LabelLog`], the file
//! `<graph>/labels.NNNNNNNN.log` that keeps the changes of checkpointed batches.
//!
//! A label change is a WAL item ([`WalItem::SetLabel`](super::WalItem::SetLabel)): logged and
//! recovered with its batch like every update. When a freeze checkpoints the WAL, the label
//! changes of the batches it covers are appended to the label log (fsynced) before the manifest
//! records the checkpoint with the log's name and length (`updates.labels_log`); the WAL
//! segments holding them are deleted afterwards. A compaction writes the labels as of its base
//! into the new base's `labels.u32` and a new log with the later checkpointed changes, named in
//! the manifest that switches to the base. One record per batch (docs/design.md):
//!
//! ```text
//! offset  size  field
//! 0       8     batch sequence number (u64 LE)
//! 8       4     change count c (u32 LE)
//! 12      8c    changes in batch order: vertex (u32 LE), label (u32 LE; NO_LABEL removes it)
//! 12+8c   4     CRC-32C of bytes [0, 12 + 8c) (u32 LE)
//! ```
//!
//! On open, the bytes the manifest lists must decode to whole records in sequence order (else
//! a `FormatError` names the file and the record's offset); bytes past them (a freeze
//! interrupted before its manifest switch, whose batches the WAL still holds) are cut off.
//!
//! Memory: 16 bytes per label change since the base, plus a hash index entry per relabelled
//! vertex; the base's labels are held whole (4 bytes per vertex) by graphs that have them.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::RwLock;

use crate::error::{Error, Result};
use crate::format::{fsync_dir, LabelLogEntry};
use crate::graph::Vertex;
use crate::labels::NO_LABEL;

/// Bytes of a record's header (sequence number and count).
const RECORD_HEADER: usize = 12;
/// Largest change count accepted when decoding (guards against a corrupt count).
const MAX_CHANGES: usize = 1 << 27;

/// The label changes made by updates since the base: appended in sequence order under the
/// writer's lock, read as of a sequence number (so a snapshot sees no later change).
#[derive(Default)]
pub(crate) struct LabelHistory {
    inner: RwLock<HistoryInner>,
}

#[derive(Default)]
struct HistoryInner {
    /// Every change `(seq, vertex, label)` in sequence order, batch order within a batch.
    changes: Vec<(u64, Vertex, u32)>,
    /// Per vertex, the indices into `changes` of its changes, oldest first.
    by_vertex: HashMap<Vertex, Vec<u32>>,
}

impl LabelHistory {
    /// Records the changes of batch `seq` (newer than every recorded one).
    pub(crate) fn record(&self, seq: u64, changes: &[(Vertex, u32)]) {
        if changes.is_empty() {
            return;
        }
        let mut h = self.inner.write();
        debug_assert!(h.changes.last().is_none_or(|c| c.0 <= seq));
        for &(v, label) in changes {
            let i = h.changes.len() as u32;
            h.changes.push((seq, v, label));
            h.by_vertex.entry(v).or_default().push(i);
        }
    }

    /// The label updates gave `v` in the batches `<= upto`, if any.
    pub(crate) fn label(&self, v: Vertex, upto: u64) -> Option<u32> {
        let h = self.inner.read();
        let idx = h.by_vertex.get(&v)?;
        idx.iter().rev().map(|&i| h.changes[i as usize]).find(|c| c.0 <= upto).map(|c| c.2)
    }

    /// Calls `f(v, label)` for every change of the batches `<= upto`, oldest first (the last
    /// call per vertex gives its label).
    pub(crate) fn for_each(&self, upto: u64, mut f: impl FnMut(Vertex, u32)) {
        let h = self.inner.read();
        for &(_, v, label) in h.changes.iter().take_while(|c| c.0 <= upto) {
            f(v, label);
        }
    }

    /// Whether some batch `<= upto` changed a label.
    pub(crate) fn any(&self, upto: u64) -> bool {
        self.inner.read().changes.first().is_some_and(|c| c.0 <= upto)
    }

    /// The changes of the batches in `(after, upto]`, in order.
    pub(crate) fn between(&self, after: u64, upto: u64) -> Vec<(u64, Vertex, u32)> {
        let h = self.inner.read();
        let start = h.changes.partition_point(|c| c.0 <= after);
        h.changes[start..].iter().take_while(|c| c.0 <= upto).copied().collect()
    }

    /// A new history holding the changes of the batches after `seq` (for the base a compaction
    /// wrote as of `seq`; snapshots of the old base keep this one).
    pub(crate) fn after(&self, seq: u64) -> LabelHistory {
        let out = LabelHistory::default();
        let rest = self.between(seq, u64::MAX);
        for batch in rest.chunk_by(|a, b| a.0 == b.0) {
            let changes: Vec<(Vertex, u32)> = batch.iter().map(|c| (c.1, c.2)).collect();
            out.record(batch[0].0, &changes);
        }
        out
    }
}

/// The labels a view reads: the base's (if any) under the changes of updates.
#[derive(Clone, Default)]
pub(crate) struct ViewLabels {
    /// The base's `labels.u32`, when it has one.
    pub base: Option<Arc<Vec<u32>>>,
    /// The changes since the base.
    pub history: Arc<LabelHistory>,
}

impl ViewLabels {
    /// The label of `v` as of batch `upto` ([`NO_LABEL`] when it has none).
    pub(crate) fn label(&self, v: Vertex, upto: u64) -> u32 {
        self.history
            .label(v, upto)
            .or_else(|| self.base.as_ref().and_then(|b| b.get(v as usize).copied()))
            .unwrap_or(NO_LABEL)
    }

    /// Every vertex's label as of batch `upto` over `n` vertices, or `None` when the base has
    /// no labels and no batch `<= upto` set one; an [`Error::OutOfMemory`] where the machine
    /// cannot hold them.
    pub(crate) fn all(&self, n: usize, upto: u64) -> Result<Option<Vec<u32>>> {
        if self.base.is_none() && !self.history.any(upto) {
            return Ok(None);
        }
        let base = self.base.as_ref().map_or(&[][..], |b| &b[..b.len().min(n)]);
        let mut out = crate::labels::padded(Vec::new(), n)?;
        out[..base.len()].copy_from_slice(base);
        self.history.for_each(upto, |v, l| {
            if let Some(slot) = out.get_mut(v as usize) {
                *slot = l;
            }
        });
        Ok(Some(out))
    }
}

/// Encodes the record of batch `seq` with `changes` into `out`.
fn encode(seq: u64, changes: &[(Vertex, u32)], out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(&seq.to_le_bytes());
    out.extend_from_slice(&(changes.len() as u32).to_le_bytes());
    for &(v, l) in changes {
        out.extend_from_slice(&v.to_le_bytes());
        out.extend_from_slice(&l.to_le_bytes());
    }
    let crc = crc32c::crc32c(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
}

/// A decoded record: batch sequence number, its changes, and the record's length in bytes.
type Record = (u64, Vec<(Vertex, u32)>, usize);

/// Decodes the record at the start of `b`, or `None` when `b` does not start with a whole,
/// valid record.
fn decode(b: &[u8]) -> Option<Record> {
    let seq = u64::from_le_bytes(b.get(0..8)?.try_into().ok()?);
    let count = u32::from_le_bytes(b.get(8..12)?.try_into().ok()?) as usize;
    if count > MAX_CHANGES {
        return None;
    }
    let end = RECORD_HEADER + 8 * count;
    let crc = u32::from_le_bytes(b.get(end..end + 4)?.try_into().ok()?);
    if crc != crc32c::crc32c(&b[..end]) {
        return None;
    }
    let u = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    let changes = (0..count).map(|i| (u(RECORD_HEADER + 8 * i), u(RECORD_HEADER + 8 * i + 4))).collect();
    Some((seq, changes, end + 4))
}

/// The label log of a graph (see the module docs): which file, how much of it is written, and
/// the last batch whose changes it holds.
pub(crate) struct LabelLog {
    dir: PathBuf,
    /// The current file's name (`None`: no label change was ever checkpointed since the base).
    name: Option<String>,
    /// Bytes written (every whole record; the manifest may list fewer until its next switch).
    len: u64,
    /// The last batch whose changes the file holds.
    upto: u64,
}

impl LabelLog {
    /// Opens the log the manifest lists (`entry`) in `dir`, whose records cover the batches
    /// `<= checkpoint`, and records its changes in `history`. Bytes past the listed length are
    /// cut off when `recover` (a writer's open); a listed record that does not decode is a `FormatError` naming its offset.
    pub(crate) fn open(
        dir: &Path,
        entry: Option<&LabelLogEntry>,
        checkpoint: u64,
        history: &LabelHistory,
        recover: bool,
    ) -> Result<LabelLog> {
        let Some(entry) = entry else {
            return Ok(LabelLog { dir: dir.to_path_buf(), name: None, len: 0, upto: checkpoint });
        };
        let path = dir.join(&entry.name);
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, "read", e))?;
        if (bytes.len() as u64) < entry.len {
            return Err(Error::format(
                &path,
                format!("file is {} bytes, the manifest lists {}", bytes.len(), entry.len),
            ));
        }
        let mut at = 0usize;
        let mut last = 0u64;
        while (at as u64) < entry.len {
            let rec = decode(&bytes[at..entry.len as usize]).filter(|r| r.0 > last && r.0 <= checkpoint);
            let Some((seq, changes, len)) = rec else {
                return Err(Error::format(
                    &path,
                    format!(
                        "invalid label record at byte offset {at} (the manifest lists {} bytes)",
                        entry.len
                    ),
                ));
            };
            history.record(seq, &changes);
            last = seq;
            at += len;
        }
        // A reader (`recover` false) leaves the bytes past the listed length to the writer that
        // may be appending them.
        if recover && bytes.len() as u64 > entry.len {
            cut(&path, entry.len)?;
        }
        Ok(LabelLog {
            dir: dir.to_path_buf(),
            name: Some(entry.name.clone()),
            len: entry.len,
            upto: checkpoint,
        })
    }

    /// The manifest entry of the log as written, or `None` when there is no log.
    pub(crate) fn entry(&self) -> Option<LabelLogEntry> {
        self.name.as_ref().map(|name| LabelLogEntry { name: name.clone(), len: self.len })
    }

    /// Appends the changes of the batches in `(upto(), seq]` from `history` (creating the file
    /// `labels.<id>.log` when there is none yet), fsynced; a no-op when there are none. On an
    /// error the file is cut back to what it held.
    pub(crate) fn append(&mut self, history: &LabelHistory, seq: u64, id: u64) -> Result<()> {
        let changes = history.between(self.upto, seq);
        if changes.is_empty() {
            self.upto = self.upto.max(seq);
            return Ok(());
        }
        let mut buf = Vec::new();
        for batch in changes.chunk_by(|a, b| a.0 == b.0) {
            let cs: Vec<(Vertex, u32)> = batch.iter().map(|c| (c.1, c.2)).collect();
            encode(batch[0].0, &cs, &mut buf);
        }
        let fresh = self.name.is_none();
        let name = self.name.clone().unwrap_or_else(|| format!("labels.{id:08}.log"));
        let path = self.dir.join(&name);
        let written = (|| -> std::io::Result<()> {
            let mut f = OpenOptions::new().create(true).write(true).truncate(false).open(&path)?;
            f.set_len(self.len)?;
            std::io::Seek::seek(&mut f, std::io::SeekFrom::Start(self.len))?;
            f.write_all(&buf)?;
            f.sync_data()
        })();
        if let Err(e) = written {
            let _ = cut(&path, self.len);
            return Err(Error::io(&path, "append to the label log", e));
        }
        if fresh {
            fsync_dir(&self.dir)?;
            self.name = Some(name);
        }
        self.len += buf.len() as u64;
        self.upto = seq;
        Ok(())
    }

    /// Writes a new log `labels.<id>.log` with the changes of the batches in `(base_seq,
    /// checkpoint]` (temporary file, fsync, rename, directory fsync) for a compacted base as of
    /// `base_seq`; returns the log that replaces this one once the manifest names it (`None`
    /// name when there are no such changes). The old file stays until [`LabelLog::remove`].
    pub(crate) fn rewritten(
        &self,
        history: &LabelHistory,
        base_seq: u64,
        checkpoint: u64,
        id: u64,
    ) -> Result<LabelLog> {
        let changes = history.between(base_seq, checkpoint);
        let mut out = LabelLog { dir: self.dir.clone(), name: None, len: 0, upto: checkpoint };
        if changes.is_empty() {
            return Ok(out);
        }
        let mut buf = Vec::new();
        for batch in changes.chunk_by(|a, b| a.0 == b.0) {
            let cs: Vec<(Vertex, u32)> = batch.iter().map(|c| (c.1, c.2)).collect();
            encode(batch[0].0, &cs, &mut buf);
        }
        let name = format!("labels.{id:08}.log");
        let path = self.dir.join(&name);
        let tmp = self.dir.join(format!("{name}.tmp"));
        {
            let mut f = File::create(&tmp).map_err(|e| Error::io(&tmp, "create the new label log", e))?;
            f.write_all(&buf).map_err(|e| Error::io(&tmp, "write the new label log", e))?;
            f.sync_all().map_err(|e| Error::io(&tmp, "fsync the new label log", e))?;
        }
        std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, "rename the new label log", e))?;
        fsync_dir(&self.dir)?;
        out.name = Some(name);
        out.len = buf.len() as u64;
        Ok(out)
    }

    /// Deletes this log's file (after the manifest stopped naming it).
    pub(crate) fn remove(&self) {
        if let Some(name) = &self.name {
            let _ = std::fs::remove_file(self.dir.join(name));
        }
    }
}

/// Cuts `path` to `len` bytes (fsynced).
fn cut(path: &Path, len: u64) -> Result<()> {
    let f = File::options().write(true).open(path).map_err(|e| Error::io(path, "open", e))?;
    f.set_len(len).map_err(|e| Error::io(path, "truncate", e))?;
    f.sync_data().map_err(|e| Error::io(path, "fsync", e))
}

/// Whether `name` (a file in the graph directory) is a label log or its temporary file.
pub(crate) fn is_label_log(name: &str) -> bool {
    name.starts_with("labels.") && (name.ends_with(".log") || name.ends_with(".log.tmp"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_reject_damage() {
        let mut buf = Vec::new();
        encode(7, &[(1, 2), (3, NO_LABEL)], &mut buf);
        assert_eq!(buf.len(), 12 + 16 + 4);
        assert_eq!(decode(&buf), Some((7, vec![(1, 2), (3, NO_LABEL)], buf.len())));
        for cut in 0..buf.len() {
            assert_eq!(decode(&buf[..cut]), None, "cut at {cut}");
        }
        let mut bad = buf.clone();
        bad[14] ^= 1;
        assert_eq!(decode(&bad), None);
    }

    #[test]
    fn history_reads_as_of_a_sequence_number() {
        let h = LabelHistory::default();
        h.record(2, &[(5, 1), (5, 2)]);
        h.record(4, &[(5, 3), (6, 9)]);
        assert_eq!(h.label(5, 1), None);
        assert_eq!(h.label(5, 2), Some(2));
        assert_eq!(h.label(5, 3), Some(2));
        assert_eq!(h.label(5, 4), Some(3));
        assert_eq!(h.between(2, 4), vec![(4, 5, 3), (4, 6, 9)]);
        let later = h.after(2);
        assert_eq!(later.label(5, 9), Some(3));
        assert_eq!(later.label(5, 3), None);
        let v = ViewLabels { base: Some(Arc::new(vec![0, 0, 0, 0, 0, 8])), history: Arc::new(h) };
        assert_eq!(v.all(7, 2).unwrap(), Some(vec![0, 0, 0, 0, 0, 2, NO_LABEL]));
        assert_eq!(v.label(6, 4), 9);
    }
}
