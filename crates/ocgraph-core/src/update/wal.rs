//! The write-ahead log: batches of [`WalItem`]s framed and checksummed (see [`super::wal_frame`]),
//! appended to segment files `<graph>/wal/NNNNNNNN.log`, with group commit.
//!
//! - **Appending** ([`Wal::append`]) writes a whole frame at the end of the current segment. A
//!   write that fails (short write that cannot be completed, full disk) truncates the segment back
//!   to where the frame started and returns the error: the batch is never acknowledged and never
//!   replayed half. If even the truncation fails the log refuses every later append.
//! - **Group commit** ([`Wal::sync_to`]): the first caller that needs durability becomes the
//!   leader and fsyncs the segment for every frame written so far; callers arriving meanwhile
//!   wait on a condition variable and are released by that fsync (or lead the next one).
//! - **Rotation**: when a segment passes `segment_bytes` (and at every checkpoint) it is fsynced
//!   and a new one created; the directory is fsynced on creation and on every rotation.
//! - **Side files first**: a hook ([`Wal::before_sync`]) runs before every fsync of a segment,
//!   with no frame being written meanwhile: the id log's names of added vertices, written
//!   without fsync under [`Durability::None`], become durable before any batch that uses them.
//! - **Recovery** ([`Wal::open`]): replays complete frames in order. A frame cut short at the end
//!   of the last segment (a torn tail), or unreadable bytes with no valid frame after them, are
//!   truncated away and reported; an invalid frame followed by a valid one (mid-log corruption) is
//!   an error naming the segment and byte offset. A batch the caller cannot replay for want of
//!   its side data ([`Replay::Missing`]) ends the replay the same way when its frame was written
//!   under [`Durability::None`] (flagged [`FLAG_UNSYNCED`]), and is an error otherwise. A
//!   writer's open then fsyncs every segment it replayed (a writer that stopped without a sync
//!   may have left them in the page cache only): what it replayed is durable before it appends.
//! - **Reach**: the manifest records the last batch durable when a writer closed the graph
//!   (`closed_seq`). A log that ends before it, or whose frame for a batch up to it does not
//!   decode, lost acknowledged batches after that close (a segment removed, or cut even at a
//!   frame boundary, which a crash never does to synced frames): an error, and nothing is cut.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::log_file::{LogFile, LogFs, ReadOnlyLogFs};
use super::wal_frame::{decode_frame, encode_frame, Decoded, WalItem, FLAG_UNSYNCED, FRAME_MAGIC};
use crate::error::{Error, Result};
use crate::format::fsync_dir;

/// When an acknowledged batch is durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Every batch is fsynced before its call returns (concurrent batches share one fsync).
    #[default]
    PerBatch,
    /// Calls return once the frame is written; a background thread of the writable graph
    /// fsyncs the log every interval when a written batch is not durable yet, the first append
    /// after an interval since the last fsync fsyncs inline, and every freeze, compaction and
    /// close does. A crash loses at most the batches of about the last interval.
    Interval(Duration),
    /// Never fsync except at freeze, compaction, rotation and close (tests, bulk loads).
    None,
}

/// WAL parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalOptions {
    /// When batches are durable.
    pub durability: Durability,
    /// A segment is rotated once it holds at least this many bytes.
    pub segment_bytes: u64,
}

impl Default for WalOptions {
    fn default() -> Self {
        WalOptions { durability: Durability::PerBatch, segment_bytes: 64 << 20 }
    }
}

/// What the replay of one batch did ([`Wal::open`]'s `apply`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replay {
    /// The batch was applied.
    Applied,
    /// The batch cannot be replayed because something it needs outside the log is missing (the
    /// reason says what). For a frame written under durability `none`
    /// ([`FLAG_UNSYNCED`](super::wal_frame::FLAG_UNSYNCED)) that is what a crash may leave, and
    /// recovery ends there as at a torn tail: the batch and every later one are dropped (a
    /// batch is only written after the last sync, which made every earlier side file durable).
    /// For any other frame it is damage: an error naming the segment and offset.
    Missing(String),
}

/// What [`Wal::open`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// Batches replayed (those after the checkpoint).
    pub replayed: u64,
    /// The last sequence number found in the log (0 when empty).
    pub last_seq: u64,
    /// Bytes of a torn tail: truncated away by a writer's open, left in place by a reader's.
    pub dropped_bytes: u64,
    /// The segment that ends in the torn tail, if any.
    pub dropped_file: Option<PathBuf>,
    /// Where the torn tail starts in that segment, and why its frame was not replayed (cut
    /// short, or a whole frame whose checksum does not match: a batch being written when the
    /// writer stopped, or a damaged last batch, the log cannot tell which; or a batch written
    /// under durability `none` whose side data a crash lost, see [`Replay::Missing`]).
    pub dropped_at: Option<(u64, String)>,
    /// The tail starts at a batch written under durability `none` that could not be replayed
    /// ([`Replay::Missing`]), not at a frame cut short or damaged.
    pub dropped_unsynced: bool,
}

impl RecoveryReport {
    /// A line saying which torn tail a writer's open dropped, if any (what `ocgraph update`
    /// prints and Python warns).
    pub fn dropped_tail(&self) -> Option<String> {
        let (file, (offset, why)) = self.dropped_file.as_ref().zip(self.dropped_at.as_ref())?;
        Some(format!(
            "dropped a torn tail of {} bytes from {} at offset {offset} ({why})",
            self.dropped_bytes,
            file.display()
        ))
    }
}

struct Segment {
    file: Arc<dyn LogFile>,
    path: PathBuf,
    number: u64,
    len: u64,
    /// Sequence number of the last frame written.
    written_seq: u64,
    buf: Vec<u8>,
    /// Set when a failed frame could not be truncated away: the log accepts no more appends.
    failed: Option<String>,
}

struct SyncState {
    durable_seq: u64,
    syncing: bool,
    last_sync: Instant,
    failed: Option<String>,
}

/// An open write-ahead log.
pub struct Wal {
    dir: PathBuf,
    fs: Arc<dyn LogFs>,
    opts: WalOptions,
    seg: Mutex<Segment>,
    sync: Mutex<SyncState>,
    synced: Condvar,
    /// Run before every fsync of a segment ([`Wal::before_sync`]).
    before_sync: OnceLock<SyncHook>,
}

/// What [`Wal::before_sync`] runs.
type SyncHook = Box<dyn Fn() -> Result<()> + Send + Sync>;

/// Name of segment `n`.
pub fn segment_name(n: u64) -> String {
    format!("{n:08}.log")
}

fn segment_number(name: &str) -> Option<u64> {
    let stem = name.strip_suffix(".log")?;
    (stem.len() >= 8 && stem.bytes().all(|b| b.is_ascii_digit())).then(|| stem.parse().ok())?
}

/// The segments in `dir`, ascending.
fn list_segments(dir: &Path) -> Result<Vec<(u64, PathBuf)>> {
    let mut segs = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| Error::io(dir, "list WAL directory", e))? {
        let e = e.map_err(|e| Error::io(dir, "list WAL directory", e))?;
        if let Some(n) = e.file_name().to_str().and_then(segment_number) {
            segs.push((n, e.path()));
        }
    }
    segs.sort();
    Ok(segs)
}

/// Whether a valid frame starts anywhere in `bytes` (used to tell a torn tail from corruption).
fn valid_frame_after(bytes: &[u8]) -> bool {
    memchr::memmem::find_iter(bytes, FRAME_MAGIC)
        .any(|o| matches!(decode_frame(&bytes[o..]), Decoded::Frame { .. }))
}

fn write_all(file: &dyn LogFile, mut buf: &[u8], mut offset: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        match file.write_at(buf, offset) {
            Ok(0) => return Err(std::io::Error::new(std::io::ErrorKind::WriteZero, "wrote 0 bytes")),
            Ok(k) => {
                buf = &buf[k..];
                offset += k as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

impl Wal {
    /// Opens (creating if needed) the log in `dir`, replays every complete batch with a sequence
    /// number above `checkpoint` through `apply` (in order; its arguments are the sequence number,
    /// the items, and whether the frame was written under durability `none`, [`FLAG_UNSYNCED`]),
    /// truncates a torn tail, and appends to the last segment when it is empty, else to a new one
    /// (empty older segments are deleted). Batches up to `closed` were durable when a writer
    /// last closed the log: a log that ends before one of them is an error (see the module
    /// docs), and nothing is truncated then.
    pub fn open(
        dir: &Path,
        opts: WalOptions,
        fs: Arc<dyn LogFs>,
        (checkpoint, closed): (u64, u64),
        apply: impl FnMut(u64, &[WalItem], bool) -> Result<Replay>,
    ) -> Result<(Wal, RecoveryReport)> {
        Self::open_mode(dir, opts, fs, (checkpoint, closed), apply, true)
    }

    /// [`Wal::open`] for a reader, which must change nothing a writer may be using at the same
    /// time: a torn tail (perhaps a batch being appended right now) ends the replay but is not
    /// cut, no segment is created or deleted when one exists, and the returned log (which the
    /// reader never appends to) is over the last segment.
    pub(crate) fn open_for_reading(
        dir: &Path,
        opts: WalOptions,
        bounds: (u64, u64),
        apply: impl FnMut(u64, &[WalItem], bool) -> Result<Replay>,
    ) -> Result<(Wal, RecoveryReport)> {
        Self::open_mode(dir, opts, Arc::new(ReadOnlyLogFs), bounds, apply, false)
    }

    fn open_mode(
        dir: &Path,
        opts: WalOptions,
        fs: Arc<dyn LogFs>,
        (checkpoint, closed): (u64, u64),
        mut apply: impl FnMut(u64, &[WalItem], bool) -> Result<Replay>,
        recover: bool,
    ) -> Result<(Wal, RecoveryReport)> {
        let segs = if dir.is_dir() { list_segments(dir)? } else { Vec::new() };
        let mut report = RecoveryReport::default();
        let mut prev = 0u64;
        for (i, (_, path)) in segs.iter().enumerate() {
            // A segment listed but gone was covered by a checkpoint that a writer moved after
            // this reader read the manifest (batches it held but the manifest's checkpoint does
            // not cover would show as a gap below).
            let bytes = match std::fs::read(path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && !recover => continue,
                r => r.map_err(|e| Error::io(path, "read", e))?,
            };
            let mut pos = 0usize;
            while pos < bytes.len() {
                let mut unsynced = false;
                let problem = match decode_frame(&bytes[pos..]) {
                    Decoded::Frame { seq, flags, items, len } => {
                        if seq <= prev {
                            return Err(Error::Format {
                                path: path.clone(),
                                offset: Some(pos as u64),
                                msg: format!("WAL batch {seq} follows batch {prev}: sequence goes backwards"),
                            });
                        }
                        let missing = if seq > checkpoint {
                            // Batches are numbered without gaps from the checkpoint on: a missing
                            // one means lost segments (or, for a reader, a writer that moved the
                            // checkpoint and deleted them meanwhile).
                            let expected = prev.max(checkpoint) + 1;
                            if seq != expected {
                                return Err(Error::Format {
                                    path: path.clone(),
                                    offset: Some(pos as u64),
                                    msg: format!(
                                        "WAL batch {seq} where batch {expected} should be: batches are missing"
                                    ),
                                });
                            }
                            let replayed =
                                apply(seq, &items, flags & FLAG_UNSYNCED != 0).map_err(|e| match e {
                                    // The caller names the log's directory, not knowing where the
                                    // batch lies: name its segment and the frame's offset instead.
                                    Error::Format { path: p, offset: None, msg } if p == dir => {
                                        Error::Format { path: path.clone(), offset: Some(pos as u64), msg }
                                    }
                                    e => e,
                                })?;
                            match replayed {
                                Replay::Applied => {
                                    report.replayed += 1;
                                    None
                                }
                                Replay::Missing(why) => Some(why),
                            }
                        } else {
                            None
                        };
                        match missing {
                            None => {
                                prev = seq;
                                pos += len;
                                continue;
                            }
                            Some(why) if flags & FLAG_UNSYNCED == 0 => {
                                return Err(Error::Format {
                                    path: path.clone(),
                                    offset: Some(pos as u64),
                                    msg: format!("batch {seq} cannot be replayed: {why}"),
                                });
                            }
                            Some(why) => {
                                // A crash under durability `none` kept the frame and lost what
                                // it needs: dropped with the rest, as a torn tail.
                                unsynced = true;
                                format!("batch {seq}, written under durability none, {why}")
                            }
                        }
                    }
                    Decoded::Truncated => "frame cut short".to_string(),
                    Decoded::Invalid(msg) => msg,
                };
                let next = prev.max(checkpoint) + 1;
                if next <= closed {
                    return Err(Error::Format {
                        path: path.clone(),
                        offset: Some(pos as u64),
                        msg: format!(
                            "batch {next} was durable when the graph was last closed (batches up to \
                             {closed}), but its frame here cannot be replayed ({problem}); refusing to drop it"
                        ),
                    });
                }
                let later_data =
                    segs[i + 1..].iter().any(|(_, p)| std::fs::metadata(p).is_ok_and(|m| m.len() > 0));
                // Later batches of an unsynced one's segment were written after it with no sync
                // between (a sync first makes every side file durable): they go with it.
                if later_data || (!unsynced && valid_frame_after(&bytes[pos + 1..])) {
                    let what = if unsynced { "unreplayable WAL batch" } else { "corrupt WAL frame" };
                    return Err(Error::Format {
                        path: path.clone(),
                        offset: Some(pos as u64),
                        msg: format!("{what} followed by valid data ({problem}); refusing to skip it"),
                    });
                }
                report.dropped_bytes = (bytes.len() - pos) as u64;
                report.dropped_file = Some(path.clone());
                report.dropped_at = Some((pos as u64, problem));
                report.dropped_unsynced = unsynced;
                if !recover {
                    break;
                }
                let f = fs.open(path).map_err(|e| Error::io(path, "open", e))?;
                f.set_len(pos as u64).map_err(|e| Error::io(path, "truncate torn WAL tail", e))?;
                f.sync().map_err(|e| Error::io(path, "fsync", e))?;
                break;
            }
        }
        report.last_seq = prev;
        // Batches up to the checkpoint are durable in the levels even when their segments are gone.
        let prev = prev.max(checkpoint);
        if prev < closed {
            return Err(Error::format(
                dir,
                format!(
                    "the log ends at batch {prev}, but batches up to {closed} were durable when the graph \
                     was last closed: a segment was removed or cut short"
                ),
            ));
        }
        if recover {
            if !dir.is_dir() {
                std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, "create WAL directory", e))?;
                fsync_dir(dir)?;
                if let Some(parent) = dir.parent() {
                    fsync_dir(parent)?;
                }
            }
            // A writer that stopped without a sync may have left batches in the page cache
            // only: durable now, since this writer counts every batch replayed as durable (its
            // close records them, and its later batches go to a later segment, which must not
            // outlive these).
            for (_, path) in &segs {
                let f = fs.open(path).map_err(|e| Error::io(path, "open", e))?;
                f.sync().map_err(|e| Error::io(path, "fsync", e))?;
            }
        }
        // Appends go to the last segment when it is empty (an open without updates, or a torn
        // tail truncated to nothing), so repeated opens do not pile up segments; a segment with
        // data is left as it is and a new one started. Empty segments before it hold nothing
        // and are deleted (removing them loses nothing whenever a crash interrupts it).
        let mut number = 0;
        for (i, (n, path)) in segs.iter().enumerate() {
            let empty = match std::fs::metadata(path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && !recover => true,
                r => r.map_err(|e| Error::io(path, "stat", e))?.len() == 0,
            };
            if i + 1 == segs.len() {
                number = if empty || !recover { *n } else { n + 1 };
            } else if empty && recover {
                std::fs::remove_file(path).map_err(|e| Error::io(path, "remove empty WAL segment", e))?;
            }
        }
        let path = dir.join(segment_name(number));
        let file = fs.open(&path).map_err(|e| Error::io(&path, "create WAL segment", e))?;
        if recover {
            fsync_dir(dir)?;
        }
        let seg = Segment { file, path, number, len: 0, written_seq: prev, buf: Vec::new(), failed: None };
        let sync = SyncState { durable_seq: prev, syncing: false, last_sync: Instant::now(), failed: None };
        let wal = Wal {
            dir: dir.to_path_buf(),
            fs,
            opts,
            seg: Mutex::new(seg),
            sync: Mutex::new(sync),
            synced: Condvar::new(),
            before_sync: OnceLock::new(),
        };
        Ok((wal, report))
    }

    /// The WAL directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The durability mode.
    pub fn durability(&self) -> Durability {
        self.opts.durability
    }

    /// Writes the frame of batch `seq` (which must exceed every earlier one). Not durable yet:
    /// see [`Wal::commit`]. On error nothing of the frame remains in the log.
    pub fn append(&self, seq: u64, items: &[WalItem]) -> Result<()> {
        if let Some(f) = &self.sync.lock().failed {
            return Err(Error::io(&self.dir, "append to WAL", std::io::Error::other(f.clone())));
        }
        let mut seg = self.seg.lock();
        if let Some(f) = &seg.failed {
            return Err(Error::io(&seg.path, "append to WAL", std::io::Error::other(f.clone())));
        }
        if seq <= seg.written_seq {
            return Err(Error::invalid(format!("WAL batch {seq} does not follow batch {}", seg.written_seq)));
        }
        if seg.len >= self.opts.segment_bytes {
            self.rotate_locked(&mut seg)?;
        }
        let mut buf = std::mem::take(&mut seg.buf);
        let flags = if self.opts.durability == Durability::None { FLAG_UNSYNCED } else { 0 };
        encode_frame(seq, flags, items, &mut buf);
        let start = seg.len;
        let res = write_all(&*seg.file, &buf, start);
        seg.buf = buf;
        match res {
            Ok(()) => {
                seg.len += seg.buf.len() as u64;
                seg.written_seq = seq;
                Ok(())
            }
            Err(e) => {
                if let Err(e2) = seg.file.set_len(start) {
                    seg.failed = Some(format!(
                        "a failed frame at byte {start} could not be truncated ({e2}); reopen to recover"
                    ));
                }
                Err(Error::Io { path: seg.path.clone(), op: "write WAL frame", source: e })
            }
        }
    }

    /// Makes batch `seq` durable as the durability mode asks before acknowledging it.
    pub fn commit(&self, seq: u64) -> Result<()> {
        match self.opts.durability {
            Durability::PerBatch => self.sync_to(seq),
            Durability::Interval(d) => {
                if self.sync.lock().last_sync.elapsed() >= d {
                    self.sync_to(seq)
                } else {
                    Ok(())
                }
            }
            Durability::None => Ok(()),
        }
    }

    /// Has `hook` run before every later fsync of a segment (group commit, rotation), while no
    /// frame is being appended: what it makes durable precedes every batch the fsync makes
    /// durable. Set once; a later call is ignored. An error of the hook fails the fsync.
    pub(crate) fn before_sync(&self, hook: impl Fn() -> Result<()> + Send + Sync + 'static) {
        let _ = self.before_sync.set(Box::new(hook));
    }

    fn run_before_sync(&self) -> Result<()> {
        self.before_sync.get().map_or(Ok(()), |hook| hook())
    }

    /// Waits until every batch `<= seq` is fsynced (group commit: one caller fsyncs for all).
    pub fn sync_to(&self, seq: u64) -> Result<()> {
        let mut s = self.sync.lock();
        loop {
            if let Some(f) = &s.failed {
                return Err(Error::io(&self.dir, "fsync WAL", std::io::Error::other(f.clone())));
            }
            if s.durable_seq >= seq {
                return Ok(());
            }
            if s.syncing {
                self.synced.wait(&mut s);
                continue;
            }
            s.syncing = true;
            drop(s);
            let (file, target, path, before) = {
                let seg = self.seg.lock();
                (seg.file.clone(), seg.written_seq, seg.path.clone(), self.run_before_sync())
            };
            let res = before.and_then(|()| file.sync().map_err(|e| Error::io(&path, "fsync", e)));
            s = self.sync.lock();
            s.syncing = false;
            match res {
                Ok(()) => {
                    s.durable_seq = s.durable_seq.max(target);
                    s.last_sync = Instant::now();
                }
                // After a failed fsync the kernel may have dropped the dirty pages: nothing
                // written since the last good fsync can be trusted, so the log stops here.
                Err(e) => s.failed = Some(format!("fsync failed: {e}")),
            }
            self.synced.notify_all();
        }
    }

    /// fsyncs the log when a batch written is not durable yet (the background flush of
    /// [`Durability::Interval`]). A failed fsync is reported by the next commit or sync.
    pub fn flush_written(&self) {
        let written = self.written_seq();
        if self.durable_seq() < written {
            let _ = self.sync_to(written);
        }
    }

    /// The highest sequence number known durable.
    pub fn durable_seq(&self) -> u64 {
        self.sync.lock().durable_seq
    }

    /// The highest sequence number written (durable or not).
    pub fn written_seq(&self) -> u64 {
        self.seg.lock().written_seq
    }

    /// fsyncs the current segment and starts a new one; returns the new segment's number. Every
    /// batch written so far is durable afterwards and lies in segments numbered below it.
    pub fn rotate(&self) -> Result<u64> {
        let mut seg = self.seg.lock();
        self.rotate_locked(&mut seg)?;
        Ok(seg.number)
    }

    fn rotate_locked(&self, seg: &mut Segment) -> Result<()> {
        self.run_before_sync()?;
        seg.file.sync().map_err(|e| Error::io(&seg.path, "fsync", e))?;
        {
            let mut s = self.sync.lock();
            s.durable_seq = s.durable_seq.max(seg.written_seq);
            s.last_sync = Instant::now();
        }
        let number = seg.number + 1;
        let path = self.dir.join(segment_name(number));
        let file = self.fs.open(&path).map_err(|e| Error::io(&path, "create WAL segment", e))?;
        fsync_dir(&self.dir)?;
        seg.file = file;
        seg.path = path;
        seg.number = number;
        seg.len = 0;
        Ok(())
    }

    /// Deletes the segments numbered below `number` (after a checkpoint made them redundant).
    pub fn remove_segments_before(&self, number: u64) -> Result<()> {
        for (n, path) in list_segments(&self.dir)? {
            if n < number {
                std::fs::remove_file(&path).map_err(|e| Error::io(&path, "remove WAL segment", e))?;
            }
        }
        fsync_dir(&self.dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::update::StdLogFs;

    fn open(dir: &Path, replayed: &mut Vec<u64>) -> Wal {
        let (wal, _) = Wal::open(dir, WalOptions::default(), Arc::new(StdLogFs), (0, 0), |seq, _, _| {
            replayed.push(seq);
            Ok(Replay::Applied)
        })
        .unwrap();
        wal
    }

    fn segments(dir: &Path) -> Vec<u64> {
        list_segments(dir).unwrap().into_iter().map(|s| s.0).collect()
    }

    #[test]
    fn reopening_reuses_an_empty_last_segment() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("wal");
        let mut replayed = Vec::new();
        for _ in 0..5 {
            drop(open(&dir, &mut replayed));
        }
        assert_eq!(segments(&dir), vec![0]);
        let wal = open(&dir, &mut replayed);
        wal.append(1, &[WalItem::AddVertices { count: 2 }]).unwrap();
        wal.sync_to(1).unwrap();
        drop(wal);
        for _ in 0..3 {
            drop(open(&dir, &mut replayed));
        }
        // The segment with data stays; one empty segment follows it.
        assert_eq!(segments(&dir), vec![0, 1]);
        assert_eq!(replayed, vec![1, 1, 1]);
        // An empty segment before the last one (left by an older version) is deleted.
        std::fs::write(dir.join(segment_name(7)), b"").unwrap();
        std::fs::write(dir.join(segment_name(9)), b"").unwrap();
        drop(open(&dir, &mut replayed));
        assert_eq!(segments(&dir), vec![0, 9]);
    }
}
