//! [`AddedIds`]: the original ids of vertices that updates added to a relabelled graph (one
//! imported with `--relabel`, whose base keeps an id map), in `<graph>/ids.log`.
//!
//! The log is append-only. One record per added vertex (byte layout in docs/design.md):
//!
//! ```text
//! offset  size  field
//! 0       4     vertex (u32 LE)
//! 4       4     id length L (u32 LE)
//! 8       L     the id: 8 bytes (u64 LE) for integer ids, UTF-8 for string ids
//! 8+L     4     CRC-32C of bytes [0, 8 + L) (u32 LE)
//! ```
//!
//! A batch that adds named vertices appends their records (fsynced unless the durability mode
//! is `none`) before its WAL frame, so a logged batch always finds its names. Under `none` the
//! records are made durable by [`PendingNames::sync`], which the WAL runs before each fsync of
//! its own (a sync, freeze, compaction or close): a batch durable in the log or a level never
//! names a vertex whose name a crash could lose. A frame written back by the OS before its
//! names is flagged in the WAL, and recovery drops it and the batches after it
//! ([`super::wal::Replay::Missing`]). Records are for
//! consecutive vertices from the base's vertex count on; on open, a torn or corrupt tail is
//! dropped, records of vertices that are already in the base (left by a compaction that was
//! interrupted before it rewrote the log) are skipped, and records past the recovered vertex
//! count (a batch that never reached the WAL) are cut off. After a compaction, whose base holds
//! every id it covers, the log is rewritten (temporary file + rename) with the rest.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::format::IdMapKind;
use crate::graph::Vertex;
use crate::ids::OriginalId;

/// File name of the log inside the graph directory.
pub const IDS_LOG: &str = "ids.log";
/// Longest id accepted (bytes): an update naming a new vertex by a longer id is refused, and
/// a longer length field is a damaged record.
pub(crate) const MAX_ID_BYTES: usize = 1 << 20;

/// Why an update may not add a vertex named `id`, if it may not: a string id longer than
/// [`MAX_ID_BYTES`].
pub fn new_id_problem(id: &OriginalId) -> Option<String> {
    match id {
        OriginalId::Str(s) if s.len() > MAX_ID_BYTES => Some(format!(
            "a new vertex's id of {} bytes: ids that updates add are at most {MAX_ID_BYTES} bytes",
            s.len()
        )),
        _ => None,
    }
}

/// The ids of the vertices added after the base, and the log that keeps them.
pub(crate) struct AddedIds {
    path: PathBuf,
    kind: IdMapKind,
    /// Vertex count of the base: `ids[i]` is the id of vertex `base_n + i`.
    base_n: u64,
    ids: Vec<OriginalId>,
    index: HashMap<OriginalId, Vertex>,
    /// Bytes of the log holding `ids` (where the next record goes).
    len: u64,
    /// Record end offsets: `ends[i]` is where the record of `ids[i]` ends.
    ends: Vec<u64>,
    /// Records appended without fsync.
    pending: Arc<PendingNames>,
}

/// Whether records were appended to the id log without fsync (under [`Durability::None`]),
/// and the fsync that makes them durable.
///
/// [`Durability::None`]: super::Durability::None
pub(crate) struct PendingNames {
    path: PathBuf,
    /// Records written since the last fsync of the log.
    dirty: AtomicBool,
    /// The log was created since the last fsync of the graph directory.
    created: AtomicBool,
}

impl PendingNames {
    /// fsyncs the log (and the graph directory, when the log is new) if records were appended
    /// without fsync since the last call.
    pub(crate) fn sync(&self) -> Result<()> {
        if self.dirty.swap(false, Ordering::AcqRel) {
            let synced = File::open(&self.path).and_then(|f| f.sync_data());
            if let Err(e) = synced {
                self.dirty.store(true, Ordering::Release);
                return Err(Error::io(&self.path, "fsync the id log", e));
            }
        }
        if self.created.swap(false, Ordering::AcqRel) {
            let dir = self.path.parent().expect("the id log lives in the graph directory");
            if let Err(e) = crate::format::fsync_dir(dir) {
                self.created.store(true, Ordering::Release);
                return Err(e);
            }
        }
        Ok(())
    }
}

/// Encodes the record of vertex `v` named `id`.
fn encode(v: Vertex, id: &OriginalId, out: &mut Vec<u8>) {
    let start = out.len();
    let bytes: Vec<u8> = match id {
        OriginalId::Int(i) => i.to_le_bytes().to_vec(),
        OriginalId::Str(s) => s.as_bytes().to_vec(),
    };
    out.extend_from_slice(&v.to_le_bytes());
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(&bytes);
    let crc = crc32c::crc32c(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
}

/// Decodes the record at the start of `b`: `(vertex, id, record length)`, or `None` when `b`
/// does not start with a whole, valid record of this id kind.
fn decode(b: &[u8], kind: IdMapKind) -> Option<(Vertex, OriginalId, usize)> {
    let v = u32::from_le_bytes(b.get(0..4)?.try_into().ok()?);
    let len = u32::from_le_bytes(b.get(4..8)?.try_into().ok()?) as usize;
    if len > MAX_ID_BYTES {
        return None;
    }
    let body = b.get(8..8 + len)?;
    let crc = u32::from_le_bytes(b.get(8 + len..12 + len)?.try_into().ok()?);
    if crc != crc32c::crc32c(&b[..8 + len]) {
        return None;
    }
    let id = match kind {
        IdMapKind::U64 => OriginalId::Int(u64::from_le_bytes(body.try_into().ok()?)),
        _ => OriginalId::Str(String::from_utf8(body.to_vec()).ok()?),
    };
    Some((v, id, 12 + len))
}

/// The valid records of a log: the ids of vertices `base_n..` in order, each record's end
/// offset, and where reading stopped (the file's length, or the offset of the first torn,
/// corrupt or out-of-order record).
#[derive(Default)]
struct Records {
    ids: Vec<OriginalId>,
    ends: Vec<u64>,
    stop: u64,
    file_len: u64,
}

impl Records {
    /// The error for a log naming fewer than the `want` added vertices the graph has.
    fn too_few(&self, path: &Path, want: usize) -> Error {
        let why = if self.stop < self.file_len {
            format!("a damaged record at byte {} of {}", self.stop, self.file_len)
        } else {
            format!("its {} bytes hold no more records", self.file_len)
        };
        Error::format(
            path,
            format!("names {} added vertices but the graph has {want} ({why})", self.ids.len()),
        )
    }
}

/// Reads the valid records of `path` for a base of `base_n` vertices (see [`Records`]). Stops
/// at the first torn, corrupt or out-of-order record.
fn read_log(path: &Path, kind: IdMapKind, base_n: u64) -> Result<Records> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(Error::io(path, "read", e)),
    };
    let (mut ids, mut ends) = (Vec::new(), Vec::new());
    let mut at = 0;
    while let Some((v, id, len)) = decode(&bytes[at..], kind) {
        let expected = base_n + ids.len() as u64;
        if (v as u64) < base_n && ids.is_empty() {
            // Already in the base (a compaction covered it).
        } else if v as u64 == expected {
            ids.push(id);
            ends.push((at + len) as u64);
        } else {
            break;
        }
        at += len;
    }
    Ok(Records { ids, ends, stop: at as u64, file_len: bytes.len() as u64 })
}

/// The vertex count up to which the log of the graph at `dir` (base of `base_n` vertices, id
/// map `kind`, not identity) names every added vertex: WAL recovery stops before a batch
/// written under durability `none` that would pass it.
pub(crate) fn named_vertices(dir: &Path, kind: IdMapKind, base_n: u64) -> Result<u64> {
    Ok(base_n + read_log(&dir.join(IDS_LOG), kind, base_n)?.ids.len() as u64)
}

/// The original ids of the vertices `base_n..num_vertices` of the graph at `dir` (for readers
/// of an updated graph): an error when the log names fewer.
pub fn read_added_ids(
    dir: &Path,
    kind: IdMapKind,
    base_n: u64,
    num_vertices: u64,
) -> Result<Vec<OriginalId>> {
    if kind == IdMapKind::Identity || num_vertices <= base_n {
        return Ok(Vec::new());
    }
    let path = dir.join(IDS_LOG);
    let mut records = read_log(&path, kind, base_n)?;
    let want = (num_vertices - base_n) as usize;
    if records.ids.len() < want {
        return Err(records.too_few(&path, want));
    }
    records.ids.truncate(want);
    Ok(records.ids)
}

impl AddedIds {
    /// Loads the log of the graph at `dir` (base of `base_n` vertices, id map `kind`) and cuts
    /// it to the `num_vertices` the graph has after WAL recovery: in memory, and on disk when
    /// `recover` (a writer's open; a reader leaves the names a writer may be adding).
    pub(crate) fn open(
        dir: &Path,
        kind: IdMapKind,
        base_n: u64,
        num_vertices: u64,
        recover: bool,
    ) -> Result<AddedIds> {
        let path = dir.join(IDS_LOG);
        let records =
            if kind == IdMapKind::Identity { Records::default() } else { read_log(&path, kind, base_n)? };
        let want = num_vertices.saturating_sub(base_n) as usize;
        if kind != IdMapKind::Identity && records.ids.len() < want {
            return Err(records.too_few(&path, want));
        }
        let pending = Arc::new(PendingNames {
            path: path.clone(),
            dirty: AtomicBool::new(false),
            created: AtomicBool::new(false),
        });
        let mut added = AddedIds {
            path,
            kind,
            base_n,
            ids: Vec::new(),
            index: HashMap::new(),
            len: 0,
            ends: records.ends,
            pending,
        };
        for (i, id) in records.ids.into_iter().enumerate() {
            added.index.insert(id.clone(), (base_n + i as u64) as Vertex);
            added.ids.push(id);
        }
        let keep = added.ids.len().min(want);
        if recover {
            added.truncate(keep)?;
            // The names a writer that stopped without a sync appended may be only in the page
            // cache: pending like this writer's own, and made durable now, before its syncs
            // (which cover what it appends) vouch for the batches that use them.
            added.pending.dirty.store(added.len > 0, Ordering::Release);
            added.pending.sync()?;
        } else {
            added.forget_after(keep);
        }
        Ok(added)
    }

    /// The vertex named `id` among the added vertices.
    pub(crate) fn vertex(&self, id: &OriginalId) -> Option<Vertex> {
        self.index.get(id).copied()
    }

    /// The id of added vertex `v`, if `v` is one.
    pub(crate) fn original(&self, v: Vertex) -> Option<&OriginalId> {
        (v as u64).checked_sub(self.base_n).and_then(|i| self.ids.get(i as usize))
    }

    /// Number of named added vertices.
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    /// What makes records appended without fsync durable (see [`PendingNames`]).
    pub(crate) fn pending(&self) -> Arc<PendingNames> {
        self.pending.clone()
    }

    /// Appends the names of the vertices `base_n + len() ..` (`ids`, distinct and new), and
    /// fsyncs the log (and the graph directory when this creates it) when `sync`; otherwise
    /// [`PendingNames::sync`] does later. On an error the log is cut back to what it held.
    pub(crate) fn append(&mut self, ids: &[OriginalId], sync: bool) -> Result<()> {
        let creates = self.len == 0 && !self.path.exists();
        let mut buf = Vec::new();
        let mut ends = Vec::with_capacity(ids.len());
        for (i, id) in ids.iter().enumerate() {
            let v = self.base_n + (self.ids.len() + i) as u64;
            encode(v as Vertex, id, &mut buf);
            ends.push(self.len + buf.len() as u64);
        }
        let written = (|| -> std::io::Result<()> {
            let mut f = OpenOptions::new().create(true).append(true).open(&self.path)?;
            f.write_all(&buf)?;
            if sync {
                f.sync_data()?;
            }
            Ok(())
        })();
        if let Err(e) = written {
            let _ = self.cut_file(self.len);
            return Err(Error::io(&self.path, "append to the id log", e));
        }
        if creates {
            self.pending.created.store(true, Ordering::Release);
        }
        if !sync {
            self.pending.dirty.store(true, Ordering::Release);
        } else if let Err(e) = self.pending.sync() {
            // The graph directory's fsync: the records are not known durable.
            let _ = self.cut_file(self.len);
            return Err(e);
        }
        for id in ids {
            let v = (self.base_n + self.ids.len() as u64) as Vertex;
            self.index.insert(id.clone(), v);
            self.ids.push(id.clone());
        }
        self.ends.extend(ends);
        self.len += buf.len() as u64;
        Ok(())
    }

    /// Keeps the first `count` names (the log cut after their records).
    pub(crate) fn truncate(&mut self, count: usize) -> Result<()> {
        self.forget_after(count);
        if self.kind != IdMapKind::Identity {
            let on_disk = std::fs::metadata(&self.path).map_or(0, |m| m.len());
            if on_disk > self.len {
                self.cut_file(self.len)?;
            }
        }
        Ok(())
    }

    /// Keeps the first `count` names in memory (the file is left as it is).
    fn forget_after(&mut self, count: usize) {
        for id in self.ids.drain(count.min(self.ids.len())..) {
            self.index.remove(&id);
        }
        self.ends.truncate(self.ids.len());
        self.len = self.ends.last().copied().unwrap_or(0);
    }

    fn cut_file(&self, len: u64) -> Result<()> {
        let f = File::options().write(true).open(&self.path).map_err(|e| Error::io(&self.path, "open", e))?;
        f.set_len(len).map_err(|e| Error::io(&self.path, "truncate", e))?;
        f.sync_data().map_err(|e| Error::io(&self.path, "fsync", e))
    }

    /// The ids of vertices `base_n .. base_n + count` (what a compaction writes into its base).
    pub(crate) fn first(&self, count: usize) -> &[OriginalId] {
        &self.ids[..count.min(self.ids.len())]
    }

    /// After a compaction whose base holds the first `new_base_n` vertices: keeps the rest,
    /// rewriting the log (temporary file, fsync, rename, directory fsync).
    pub(crate) fn rebase(&mut self, new_base_n: u64) -> Result<()> {
        if self.kind == IdMapKind::Identity {
            self.base_n = new_base_n;
            return Ok(());
        }
        let covered = new_base_n.saturating_sub(self.base_n) as usize;
        let rest: Vec<OriginalId> = self.ids.get(covered..).unwrap_or_default().to_vec();
        let mut buf = Vec::new();
        let mut ends = Vec::with_capacity(rest.len());
        for (i, id) in rest.iter().enumerate() {
            encode((new_base_n + i as u64) as Vertex, id, &mut buf);
            ends.push(buf.len() as u64);
        }
        // Errors name the file the failing call was on (the temporary file, or the log for the
        // rename).
        let tmp = self.path.with_extension("log.tmp");
        {
            let mut f = File::create(&tmp).map_err(|e| Error::io(&tmp, "create the new id log", e))?;
            f.write_all(&buf).map_err(|e| Error::io(&tmp, "write the new id log", e))?;
            f.sync_all().map_err(|e| Error::io(&tmp, "fsync the new id log", e))?;
        }
        std::fs::rename(&tmp, &self.path).map_err(|e| Error::io(&self.path, "rename the new id log", e))?;
        self.base_n = new_base_n;
        self.ids = rest;
        self.ends = ends;
        self.len = buf.len() as u64;
        // The rename is durable before any later batch's names are appended to the new log (a
        // batch by id may run while a background compaction is still finishing): otherwise a
        // power loss could bring back the old log, which lacks those names.
        crate::format::fsync_dir(self.path.parent().expect("the id log lives in the graph directory"))
    }
}
