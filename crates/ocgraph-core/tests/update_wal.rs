//! The write-ahead log: fault injection (short writes, a full disk, failing truncation and
//! fsync), torn tails cut at every byte of the last frame, corruption, and group commit.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ocgraph_core::update::{
    Durability, LogFile, LogFs, Replay, StdLogFs, Wal, WalItem, WalOptions, WritableGraph, WriteOptions,
};
use ocgraph_core::{Adjacency, Error};

/// Faults shared by every file of a [`FaultFs`].
#[derive(Default)]
struct Faults {
    /// Most bytes one write call writes (a short write beyond).
    max_write: AtomicU64,
    /// Bytes the "disk" still has room for (ENOSPC after).
    room: AtomicU64,
    fail_truncate: AtomicBool,
    fail_sync: AtomicBool,
    sync_delay_ms: AtomicU64,
    syncs: AtomicU64,
}

struct FaultFs(Arc<Faults>);
struct FaultFile(Arc<dyn LogFile>, Arc<Faults>);

impl Faults {
    fn new() -> Arc<Faults> {
        let f = Faults::default();
        f.max_write.store(u64::MAX, Ordering::SeqCst);
        f.room.store(u64::MAX, Ordering::SeqCst);
        Arc::new(f)
    }
}

impl LogFs for FaultFs {
    fn open(&self, path: &Path) -> io::Result<Arc<dyn LogFile>> {
        Ok(Arc::new(FaultFile(StdLogFs.open(path)?, self.0.clone())))
    }
}

impl LogFile for FaultFile {
    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<usize> {
        let room = self.1.room.load(Ordering::SeqCst);
        if room == 0 {
            return Err(io::Error::from_raw_os_error(libc_enospc()));
        }
        let k = (buf.len() as u64).min(self.1.max_write.load(Ordering::SeqCst)).min(room) as usize;
        let k = self.0.write_at(&buf[..k], offset)?;
        if room != u64::MAX {
            self.1.room.fetch_sub(k as u64, Ordering::SeqCst);
        }
        Ok(k)
    }

    fn sync(&self) -> io::Result<()> {
        std::thread::sleep(Duration::from_millis(self.1.sync_delay_ms.load(Ordering::SeqCst)));
        self.1.syncs.fetch_add(1, Ordering::SeqCst);
        if self.1.fail_sync.load(Ordering::SeqCst) {
            return Err(io::Error::other("injected fsync failure"));
        }
        self.0.sync()
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        if self.1.fail_truncate.load(Ordering::SeqCst) {
            return Err(io::Error::other("injected truncate failure"));
        }
        self.0.set_len(len)
    }
}

fn libc_enospc() -> i32 {
    28 // ENOSPC on Linux
}

fn batch(seq: u64) -> Vec<WalItem> {
    (0..(seq % 5 + 1) as u32)
        .map(|i| WalItem::AddEdge { src: seq as u32, dst: i, weight: seq as f32 + i as f32 })
        .collect()
}

fn opts() -> WalOptions {
    WalOptions { durability: Durability::PerBatch, segment_bytes: 64 << 20 }
}

type Batches = Vec<(u64, Vec<WalItem>)>;

/// Opens the log with the real file system and returns the batches replayed.
fn replay(dir: &Path) -> ocgraph_core::Result<(Batches, ocgraph_core::update::RecoveryReport)> {
    let mut got = Vec::new();
    let (_wal, rep) = Wal::open(dir, opts(), Arc::new(StdLogFs), (0, 0), |s, items, _| {
        got.push((s, items.to_vec()));
        Ok(Replay::Applied)
    })?;
    Ok((got, rep))
}

fn expect(seqs: &[u64]) -> Batches {
    seqs.iter().map(|&s| (s, batch(s))).collect()
}

fn open_wal(dir: &Path, fs: Arc<dyn LogFs>, o: WalOptions) -> Wal {
    Wal::open(dir, o, fs, (0, 0), |_, _, _| panic!("no batches expected")).unwrap().0
}

#[test]
fn short_writes_are_completed() {
    let tmp = tempfile::tempdir().unwrap();
    let faults = Faults::new();
    faults.max_write.store(7, Ordering::SeqCst);
    let wal = open_wal(tmp.path(), Arc::new(FaultFs(faults)), opts());
    for s in 1..=20 {
        wal.append(s, &batch(s)).unwrap();
        wal.commit(s).unwrap();
    }
    drop(wal);
    let (got, rep) = replay(tmp.path()).unwrap();
    assert_eq!(got, expect(&(1..=20).collect::<Vec<_>>()));
    assert_eq!(rep.dropped_bytes, 0);
}

#[test]
fn a_full_disk_fails_the_batch_without_leaving_half_of_it() {
    let tmp = tempfile::tempdir().unwrap();
    let faults = Faults::new();
    let wal = open_wal(tmp.path(), Arc::new(FaultFs(faults.clone())), opts());
    for s in 1..=3 {
        wal.append(s, &batch(s)).unwrap();
        wal.commit(s).unwrap();
    }
    // Room for part of the next frame only: the write fails with ENOSPC.
    faults.room.store(20, Ordering::SeqCst);
    let err = wal.append(4, &batch(4)).unwrap_err();
    assert!(matches!(&err, Error::Io { source, .. } if source.raw_os_error() == Some(28)), "{err}");
    assert!(err.to_string().contains("write WAL frame"), "{err}");
    // Space freed: the log continues with the same sequence number.
    faults.room.store(u64::MAX, Ordering::SeqCst);
    wal.append(4, &batch(4)).unwrap();
    wal.commit(4).unwrap();
    drop(wal);
    let (got, rep) = replay(tmp.path()).unwrap();
    assert_eq!(got, expect(&[1, 2, 3, 4]));
    assert_eq!(rep.dropped_bytes, 0);
}

#[test]
fn a_failed_frame_that_cannot_be_truncated_stops_the_log_and_is_dropped_on_recovery() {
    let tmp = tempfile::tempdir().unwrap();
    let faults = Faults::new();
    let wal = open_wal(tmp.path(), Arc::new(FaultFs(faults.clone())), opts());
    wal.append(1, &batch(1)).unwrap();
    wal.commit(1).unwrap();
    faults.room.store(30, Ordering::SeqCst);
    faults.fail_truncate.store(true, Ordering::SeqCst);
    assert!(wal.append(2, &batch(2)).is_err());
    faults.room.store(u64::MAX, Ordering::SeqCst);
    let err = wal.append(2, &batch(2)).unwrap_err().to_string();
    assert!(err.contains("could not be truncated"), "{err}");
    drop(wal);
    let (got, rep) = replay(tmp.path()).unwrap();
    assert_eq!(got, expect(&[1]));
    assert_eq!(rep.dropped_bytes, 30, "the 30 bytes of the failed frame are a torn tail");
}

#[test]
fn a_failed_fsync_is_reported_and_stops_the_log() {
    let tmp = tempfile::tempdir().unwrap();
    let faults = Faults::new();
    let wal = open_wal(tmp.path(), Arc::new(FaultFs(faults.clone())), opts());
    wal.append(1, &batch(1)).unwrap();
    faults.fail_sync.store(true, Ordering::SeqCst);
    let err = wal.commit(1).unwrap_err().to_string();
    assert!(err.contains("injected fsync failure"), "{err}");
    faults.fail_sync.store(false, Ordering::SeqCst);
    assert!(wal.append(2, &batch(2)).is_err());
    assert!(wal.commit(1).is_err());
}

fn last_segment(dir: &Path) -> PathBuf {
    let mut segs: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| std::fs::metadata(p).unwrap().len() > 0)
        .collect();
    segs.sort();
    segs.pop().unwrap()
}

#[test]
fn a_torn_tail_is_dropped_at_every_byte_offset_of_the_last_frame() {
    let tmp = tempfile::tempdir().unwrap();
    let wal = open_wal(tmp.path(), Arc::new(StdLogFs), opts());
    for s in 1..=3 {
        wal.append(s, &batch(s)).unwrap();
    }
    let before_last = {
        wal.commit(3).unwrap();
        std::fs::metadata(last_segment(tmp.path())).unwrap().len()
    };
    wal.append(4, &batch(4)).unwrap();
    wal.commit(4).unwrap();
    drop(wal);
    let seg = last_segment(tmp.path());
    let full = std::fs::read(&seg).unwrap();
    for cut in before_last..=full.len() as u64 {
        let case = tempfile::tempdir().unwrap();
        std::fs::write(case.path().join(seg.file_name().unwrap()), &full[..cut as usize]).unwrap();
        let (got, rep) = replay(case.path()).unwrap();
        let complete = cut == full.len() as u64;
        assert_eq!(got, expect(if complete { &[1, 2, 3, 4] } else { &[1, 2, 3] }), "cut at {cut}");
        assert_eq!(rep.dropped_bytes, if complete { 0 } else { cut - before_last }, "cut at {cut}");
        // Recovery truncated the tail: a second open finds a clean log.
        let (again, rep2) = replay(case.path()).unwrap();
        assert_eq!(again.len(), got.len());
        assert_eq!(rep2.dropped_bytes, 0);
    }
}

#[test]
fn a_corrupted_tail_is_dropped_and_mid_log_corruption_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let wal = open_wal(tmp.path(), Arc::new(StdLogFs), opts());
    let mut ends = Vec::new();
    for s in 1..=4 {
        wal.append(s, &batch(s)).unwrap();
        wal.commit(s).unwrap();
        ends.push(std::fs::metadata(last_segment(tmp.path())).unwrap().len());
    }
    drop(wal);
    let seg = last_segment(tmp.path());
    let full = std::fs::read(&seg).unwrap();

    // A flipped byte inside the last frame: a torn tail.
    let mut bad = full.clone();
    bad[ends[2] as usize + 26] ^= 0x40;
    std::fs::write(&seg, &bad).unwrap();
    let (got, rep) = replay(tmp.path()).unwrap();
    assert_eq!(got, expect(&[1, 2, 3]));
    assert_eq!(rep.dropped_bytes, ends[3] - ends[2]);
    let (at, why) = rep.dropped_at.expect("the report says where the tail starts and why");
    assert_eq!(at, ends[2]);
    assert!(why.contains("checksum") && !rep.dropped_unsynced, "{why}");

    // A flipped byte in the second frame, valid frames after it: an error naming file + offset.
    let mut bad = full.clone();
    bad[ends[0] as usize + 30] ^= 0x01;
    std::fs::write(&seg, &bad).unwrap();
    let err = replay(tmp.path()).unwrap_err();
    match &err {
        Error::Format { path, offset, msg } => {
            assert_eq!(path, &seg);
            assert_eq!(*offset, Some(ends[0]));
            assert!(msg.contains("checksum mismatch"), "{msg}");
        }
        e => panic!("unexpected error {e}"),
    }
}

/// A batch the caller cannot replay ([`Replay::Missing`]) ends recovery as a torn tail, with
/// every later batch of its segment, when its frame was written under durability `none`; in a
/// durable mode, or with a later segment holding batches, it is an error naming the segment and
/// the frame's offset.
#[test]
fn a_batch_missing_its_side_data_is_dropped_only_when_written_under_durability_none() {
    for (durability, segment_bytes) in
        [(Durability::None, 64 << 20), (Durability::PerBatch, 64 << 20), (Durability::None, 100)]
    {
        let tmp = tempfile::tempdir().unwrap();
        let o = WalOptions { durability, segment_bytes };
        let wal = open_wal(tmp.path(), Arc::new(StdLogFs), o);
        let mut starts = Vec::new();
        for s in 1..=5 {
            starts.push(std::fs::metadata(last_segment_or_first(tmp.path())).map_or(0, |m| m.len()));
            wal.append(s, &batch(s)).unwrap();
        }
        wal.sync_to(5).unwrap();
        drop(wal);
        let open = |dir: &Path| {
            let mut got = Vec::new();
            let r = Wal::open(dir, o, Arc::new(StdLogFs), (0, 0), |s, _, unsynced| {
                assert_eq!(unsynced, durability == Durability::None, "the frame's flag");
                got.push(s);
                Ok(if s == 3 { Replay::Missing("lacks its names".into()) } else { Replay::Applied })
            });
            (got, r.map(|(_, rep)| rep))
        };
        let (got, rep) = open(tmp.path());
        match (durability, segment_bytes) {
            (Durability::None, 100) => {
                // Batch 4 went to a later segment: dropping it would skip a rotation's fsync.
                let e = rep.unwrap_err().to_string();
                assert!(e.contains("unreplayable WAL batch followed by valid data"), "{e}");
            }
            (Durability::None, _) => {
                let rep = rep.unwrap();
                assert_eq!((got, rep.replayed, rep.last_seq), (vec![1, 2, 3], 2, 2));
                assert_eq!(rep.dropped_at.as_ref().map(|d| d.0), Some(starts[2]));
                assert!(rep.dropped_unsynced);
                let why = rep.dropped_tail().unwrap();
                assert!(why.contains("batch 3, written under durability none, lacks its names"), "{why}");
                // The tail is cut: a second open replays batches 1 and 2 and drops nothing.
                let (again, rep) = replay(tmp.path()).unwrap();
                assert_eq!((again, rep.dropped_bytes), (expect(&[1, 2]), 0));
            }
            _ => match rep.unwrap_err() {
                Error::Format { path, offset, msg } => {
                    assert_eq!((path, offset), (last_segment(tmp.path()), Some(starts[2])));
                    assert_eq!(msg, "batch 3 cannot be replayed: lacks its names");
                }
                e => panic!("unexpected error {e}"),
            },
        }
    }
}

/// The last non-empty segment of `dir`, or its only one while all are empty.
fn last_segment_or_first(dir: &Path) -> PathBuf {
    let mut segs: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    segs.sort();
    segs.iter().rev().find(|p| std::fs::metadata(p).unwrap().len() > 0).unwrap_or(&segs[0]).clone()
}

#[test]
fn segments_rotate_and_replay_in_order() {
    let tmp = tempfile::tempdir().unwrap();
    let o = WalOptions { durability: Durability::None, segment_bytes: 100 };
    let wal = open_wal(tmp.path(), Arc::new(StdLogFs), o);
    for s in 1..=30 {
        wal.append(s, &batch(s)).unwrap();
    }
    wal.sync_to(30).unwrap();
    drop(wal);
    let segs = std::fs::read_dir(tmp.path()).unwrap().count();
    assert!(segs > 5, "{segs} segments");
    let (got, _) = replay(tmp.path()).unwrap();
    assert_eq!(got, expect(&(1..=30).collect::<Vec<_>>()));
}

#[test]
fn concurrent_appends_share_fsyncs() {
    let tmp = tempfile::tempdir().unwrap();
    let faults = Faults::new();
    faults.sync_delay_ms.store(3, Ordering::SeqCst);
    let wal = Arc::new(open_wal(tmp.path(), Arc::new(FaultFs(faults.clone())), opts()));
    let seq = Arc::new(parking_lot::Mutex::new(0u64));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (wal, seq) = (wal.clone(), seq.clone());
            std::thread::spawn(move || {
                for _ in 0..25 {
                    let s = {
                        let mut g = seq.lock();
                        *g += 1;
                        wal.append(*g, &batch(*g)).unwrap();
                        *g
                    };
                    wal.commit(s).unwrap();
                    assert!(wal.durable_seq() >= s);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let syncs = faults.syncs.load(Ordering::SeqCst);
    assert!(syncs < 100, "200 durable batches took {syncs} fsyncs: no group commit");
    drop(wal);
    let (got, _) = replay(tmp.path()).unwrap();
    assert_eq!(got, expect(&(1..=200).collect::<Vec<_>>()));
}

/// Builds a graph of `n` vertices and no edges at `dir`.
fn edgeless_graph(dir: &Path, n: u64) {
    let mut b = ocgraph_core::ingest::GraphBuilder::new(dir, Default::default()).unwrap();
    b.reserve_vertices(n);
    b.finish(ocgraph_core::ingest::IdMap::Identity, &ocgraph_core::ingest::NoProgress).unwrap();
}

#[test]
fn a_failed_update_is_not_visible_and_not_replayed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    edgeless_graph(&dir, 10);
    let faults = Faults::new();
    let g =
        WritableGraph::open_with_log_fs(&dir, &WriteOptions::default(), Arc::new(FaultFs(faults.clone())))
            .unwrap();
    assert_eq!(g.add_edges(&[(1, 2)], None).unwrap(), 1);
    faults.room.store(10, Ordering::SeqCst);
    assert!(g.add_edges(&[(3, 4), (5, 6)], None).is_err());
    assert_eq!(g.snapshot().out().degree(3), 0);
    faults.room.store(u64::MAX, Ordering::SeqCst);
    assert_eq!(g.add_edges(&[(7, 8)], None).unwrap(), 2);
    drop(g);
    let g = WritableGraph::open(&dir, &WriteOptions::default()).unwrap();
    let s = g.snapshot();
    assert_eq!((s.out().degree(1), s.out().degree(3), s.out().degree(5), s.out().degree(7)), (1, 0, 0, 1));
    assert_eq!(s.seq(), 2);
}

/// A logged batch whose checksum holds but that the graph cannot take (a vertex past its
/// count) is refused on open, naming the segment and the frame's offset.
#[test]
fn a_logged_batch_the_graph_cannot_take_is_refused_naming_its_segment() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    edgeless_graph(&dir, 10);
    let g = WritableGraph::open(&dir, &WriteOptions::default()).unwrap();
    g.add_edges(&[(1, 2)], None).unwrap();
    g.close().unwrap();
    let segment = last_segment(&dir.join(ocgraph_core::update::WAL_DIR));
    let first = std::fs::metadata(&segment).unwrap().len();
    let mut frame = Vec::new();
    let item = WalItem::AddEdge { src: 3, dst: 99, weight: 1.0 };
    ocgraph_core::update::wal_frame::encode_frame(2, 0, &[item], &mut frame);
    let mut bytes = std::fs::read(&segment).unwrap();
    bytes.extend_from_slice(&frame);
    std::fs::write(&segment, &bytes).unwrap();
    let e = WritableGraph::open(&dir, &WriteOptions::default()).err().expect("refused").to_string();
    let name = segment.file_name().unwrap().to_string_lossy().to_string();
    assert!(e.contains(&name) && e.contains(&format!("at byte {first}")) && e.contains("batch 2"), "{e}");
}

#[test]
fn durability_modes_decide_when_commit_fsyncs() {
    for (durability, expect_syncs) in [
        (Durability::PerBatch, true),
        (Durability::Interval(Duration::ZERO), true),
        (Durability::Interval(Duration::from_secs(3600)), false),
        (Durability::None, false),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let faults = Faults::new();
        let o = WalOptions { durability, segment_bytes: 64 << 20 };
        let wal = open_wal(tmp.path(), Arc::new(FaultFs(faults.clone())), o);
        for s in 1..=5 {
            wal.append(s, &batch(s)).unwrap();
            wal.commit(s).unwrap();
        }
        let syncs = faults.syncs.load(Ordering::SeqCst);
        assert_eq!(syncs > 0, expect_syncs, "{durability:?}: {syncs} fsyncs");
        assert_eq!(wal.durable_seq() == 5, expect_syncs, "{durability:?}");
        wal.sync_to(5).unwrap();
        assert_eq!(wal.durable_seq(), 5);
    }
}

/// Under interval durability, a batch that no other batch follows is fsynced by the writer's
/// background flush within about one interval (here 20 ms; the test waits up to 10 s for a
/// loaded machine), and the flush stops with `close`.
#[test]
fn interval_durability_fsyncs_a_last_batch_in_the_background() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    edgeless_graph(&dir, 10);
    let faults = Faults::new();
    let o = WriteOptions {
        durability: Durability::Interval(Duration::from_millis(20)),
        ..WriteOptions::default()
    };
    let g = WritableGraph::open_with_log_fs(&dir, &o, Arc::new(FaultFs(faults.clone()))).unwrap();
    // The first batch after open fsyncs inline (an interval has passed since the open's fsync
    // only if the open took that long), so two batches make sure one is left to the flush.
    g.add_edges(&[(1, 2)], None).unwrap();
    let last = g.add_edges(&[(3, 4)], None).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while g.durable_seq() < last && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(g.durable_seq(), last, "no fsync of the last batch");
    assert!(faults.syncs.load(Ordering::SeqCst) > 0);
    g.close().unwrap();
    let after_close = faults.syncs.load(Ordering::SeqCst);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(faults.syncs.load(Ordering::SeqCst), after_close, "the flush goes on after close");
}

/// A writer's close records how far the log reaches (`closed_seq` in the manifest). A log cut
/// short before that batch (its last segment removed, cut at a frame boundary or inside a frame,
/// or its last frame damaged) lost acknowledged batches: every open refuses it, changing
/// nothing, where a crash's torn tail (bytes after the last batch closed) is still dropped.
#[test]
fn batches_durable_at_close_are_never_dropped_as_a_torn_tail() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    edgeless_graph(&dir, 10);
    let wal_dir = dir.join(ocgraph_core::update::WAL_DIR);
    let g = WritableGraph::open(&dir, &WriteOptions::default()).unwrap();
    g.add_edges(&[(1, 2)], None).unwrap();
    g.add_edges(&[(3, 4)], None).unwrap();
    g.close().unwrap();
    let segment = last_segment(&wal_dir);
    let full = std::fs::read(&segment).unwrap();
    let first_frame = full.len() / 2; // two frames of one item each
    let mut damaged = full.clone();
    damaged[full.len() - 3] ^= 1;
    let cases: [(&str, Option<&[u8]>); 4] = [
        ("removed", None),
        ("cut at a frame boundary", Some(&full[..first_frame])),
        ("cut inside a frame", Some(&full[..full.len() - 5])),
        ("damaged", Some(&damaged)),
    ];
    for (what, bytes) in cases {
        match bytes {
            None => std::fs::remove_file(&segment).unwrap(),
            Some(b) => std::fs::write(&segment, b).unwrap(),
        }
        let reader = ocgraph_core::GraphView::open(&dir, &Default::default()).err().expect(what).to_string();
        let writer = WritableGraph::open(&dir, &WriteOptions::default()).err().expect(what).to_string();
        for e in [&reader, &writer] {
            assert!(e.contains("batches up to 2") && e.contains("wal"), "{what}: {e}");
        }
        assert_eq!(std::fs::read(&segment).ok().as_deref(), bytes, "{what}: the open changed the log");
        assert!(ocgraph_core::format::check_graph(&dir).is_ok(), "the base itself is intact");
    }
    // The whole log removed: refused, and the writer's open makes no new one.
    let saved = tmp.path().join("wal.saved");
    std::fs::rename(&wal_dir, &saved).unwrap();
    let e = WritableGraph::open(&dir, &WriteOptions::default()).err().expect("refused").to_string();
    assert!(e.contains("batches up to 2") && !wal_dir.exists(), "{e}");
    std::fs::rename(&saved, &wal_dir).unwrap();
    // Restored, the log opens; bytes a crash left after the closed batches are a torn tail.
    let mut torn = full.clone();
    torn.extend_from_slice(&full[..first_frame - 3]);
    std::fs::write(&segment, &torn).unwrap();
    let g = WritableGraph::open(&dir, &WriteOptions::default()).unwrap();
    assert_eq!(g.recovery().dropped_bytes, first_frame as u64 - 3);
    let s = g.snapshot();
    assert_eq!((s.seq(), s.out().degree(1), s.out().degree(3)), (2, 1, 1));
    // A writer that stops without closing (a crash) records nothing: its batch may be torn off.
    g.add_edges(&[(5, 6)], None).unwrap();
    drop(g);
    let segment = last_segment(&wal_dir);
    let len = std::fs::metadata(&segment).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&segment).unwrap().set_len(len - 4).unwrap();
    let g = WritableGraph::open(&dir, &WriteOptions::default()).unwrap();
    assert_eq!((g.snapshot().seq(), g.snapshot().out().degree(5)), (2, 0));
    g.close().unwrap();
}

/// A [`LogFs`] that remembers how much of each file an fsync covered, so that a test can cut
/// every file back to that length: what a power loss leaves of data never fsynced.
#[derive(Default, Clone)]
struct PowerFs(Arc<std::sync::Mutex<std::collections::HashMap<PathBuf, u64>>>);
struct PowerFile(Arc<dyn LogFile>, PathBuf, PowerFs);

impl LogFs for PowerFs {
    fn open(&self, path: &Path) -> io::Result<Arc<dyn LogFile>> {
        let file = StdLogFs.open(path)?;
        self.0.lock().unwrap().entry(path.to_path_buf()).or_insert(0);
        Ok(Arc::new(PowerFile(file, path.to_path_buf(), self.clone())))
    }
}

impl LogFile for PowerFile {
    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<usize> {
        self.0.write_at(buf, offset)
    }
    fn sync(&self) -> io::Result<()> {
        self.0.sync()?;
        let len = std::fs::metadata(&self.1)?.len();
        self.2 .0.lock().unwrap().insert(self.1.clone(), len);
        Ok(())
    }
    fn set_len(&self, len: u64) -> io::Result<()> {
        self.0.set_len(len)
    }
}

impl PowerFs {
    /// The power loss: every file opened through this is cut to what its last fsync covered.
    fn lose_power(&self) {
        for (path, &len) in self.0.lock().unwrap().iter() {
            if let Ok(f) = std::fs::OpenOptions::new().write(true).open(path) {
                f.set_len(len.min(f.metadata().unwrap().len())).unwrap();
            }
        }
    }
}

/// A writer that opens after another stopped without a sync (a crash under durability `none`)
/// replays that writer's batches; its close records them as durable, so its open first makes
/// them so. Before, an open and close with no batch of its own fsynced nothing, and a power
/// loss then left a log every open refused (it ended before the batches the close recorded).
/// Its own later batches, in a later segment, likewise no longer outlive earlier ones a power
/// loss took (which left a gap in the log, refused as missing batches).
#[test]
fn a_writer_makes_the_batches_it_replays_durable_before_it_vouches_for_them() {
    for own_batch in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("g");
        edgeless_graph(&dir, 10);
        let power = PowerFs::default();
        let none = WriteOptions { durability: Durability::None, ..WriteOptions::default() };
        let crashed = WritableGraph::open_with_log_fs(&dir, &none, Arc::new(power.clone())).unwrap();
        crashed.add_edges(&[(1, 2)], None).unwrap();
        crashed.add_edges(&[(3, 4)], None).unwrap();
        drop(crashed); // no close: nothing was fsynced
        let g =
            WritableGraph::open_with_log_fs(&dir, &WriteOptions::default(), Arc::new(power.clone())).unwrap();
        assert_eq!(g.snapshot().seq(), 2);
        if own_batch {
            g.add_edges(&[(5, 6)], None).unwrap(); // fsynced before it returns
        }
        g.close().unwrap();
        power.lose_power();
        let g = WritableGraph::open(&dir, &WriteOptions::default()).unwrap();
        let s = g.snapshot();
        let want = if own_batch { 3 } else { 2 };
        assert_eq!((s.seq(), s.out().degree(1), s.out().degree(3)), (want, 1, 1), "own batch: {own_batch}");
        g.close().unwrap();
    }
}
