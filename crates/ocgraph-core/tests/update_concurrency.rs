//! Concurrent writers (group commit through WritableGraph) and snapshots taken while they run:
//! every snapshot equals exactly the batches up to its sequence number; automatic freeze and
//! background compaction happen under load.

use std::collections::BTreeMap;
use std::sync::Arc;

use ocgraph_core::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
use ocgraph_core::update::{Durability, Snapshot, WritableGraph, WriteOptions};
use ocgraph_core::{Adjacency, Vertex};
use parking_lot::Mutex;

const N: u32 = 64;

#[test]
fn snapshots_under_concurrent_writers_see_exact_prefixes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let o = BuildOptions { directed: true, ..BuildOptions::default() };
    let mut b = GraphBuilder::new(&dir, o).unwrap();
    b.reserve_vertices(N as u64);
    b.push(&[0, 1], &[1, 2], None).unwrap();
    b.finish(IdMap::Identity, &NoProgress).unwrap();
    let opts = WriteOptions {
        durability: Durability::PerBatch,
        freeze_threshold: 6 << 10,
        auto_compact_levels: Some(2),
        ..WriteOptions::default()
    };
    let g = Arc::new(WritableGraph::open(&dir, &opts).unwrap());
    // seq -> (added edges, removed edges)
    type Log = BTreeMap<u64, (Vec<(Vertex, Vertex)>, Vec<(Vertex, Vertex)>)>;
    let log: Arc<Mutex<Log>> = Arc::default();
    let snaps: Arc<Mutex<Vec<Snapshot>>> = Arc::default();
    let writers: Vec<_> = (0..4u32)
        .map(|t| {
            let (g, log) = (g.clone(), log.clone());
            std::thread::spawn(move || {
                for i in 0..60u32 {
                    let add: Vec<_> = (0..8).map(|k| ((t * 16 + i) % N, (i * 8 + k) % N)).collect();
                    let seq = g.add_edges(&add, None).unwrap();
                    log.lock().insert(seq, (add, Vec::new()));
                    if i % 5 == 4 {
                        let rem: Vec<_> = (0..4).map(|k| ((t * 16 + i) % N, (i * 8 + k * 2) % N)).collect();
                        let seq = g.remove_edges(&rem).unwrap();
                        log.lock().insert(seq, (Vec::new(), rem));
                    }
                }
            })
        })
        .collect();
    let reader = {
        let (g, snaps) = (g.clone(), snaps.clone());
        std::thread::spawn(move || {
            for _ in 0..40 {
                snaps.lock().push(g.snapshot());
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        })
    };
    for w in writers {
        w.join().unwrap();
    }
    reader.join().unwrap();
    snaps.lock().push(g.snapshot());
    let log = log.lock();
    assert_eq!(log.len() as u64, g.last_seq());
    for s in snaps.lock().iter() {
        let mut edges: std::collections::BTreeSet<(Vertex, Vertex)> = [(0, 1), (1, 2)].into();
        for (_, (add, rem)) in log.range(..=s.seq()) {
            edges.extend(add.iter().copied());
            for e in rem {
                edges.remove(e);
            }
        }
        assert_eq!(s.num_edges(), edges.len() as u64, "snapshot at {}", s.seq());
        for v in 0..N {
            let exp: Vec<Vertex> = edges.range((v, 0)..(v + 1, 0)).map(|e| e.1).collect();
            assert_eq!(&s.out().neighbors(v)[..], &exp[..], "vertex {v} in snapshot at {}", s.seq());
            let exp_in: Vec<Vertex> = edges.iter().filter(|e| e.1 == v).map(|e| e.0).collect();
            assert_eq!(&s.in_().neighbors(v)[..], &exp_in[..]);
        }
    }
    drop(log);
    let g = Arc::try_unwrap(g).ok().unwrap();
    g.close().unwrap();
    let m = ocgraph_core::format::Manifest::read(&dir).unwrap();
    assert!(m.data_dir.is_some(), "background compaction switched the base");
    assert!(m.updates.unwrap().levels.len() <= 3);
    assert!(std::fs::read_dir(dir.join("wal")).unwrap().count() <= 3, "covered WAL segments are deleted");
}

/// One writer at a time: a second writable open of the same graph is refused while the first is
/// open (it would interleave its batches with the first's in the WAL and lose them), readers may
/// open meanwhile and see the durable batches, and the next writer may open once the first closed
/// or was dropped.
#[test]
fn a_second_writer_is_refused_until_the_first_closes() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, opts) = (small_graph(tmp.path()), WriteOptions::default());
    let first = WritableGraph::open(&dir, &opts).unwrap();
    first.add_edges(&[(3, 4)], None).unwrap();
    let e = WritableGraph::open(&dir, &opts).err().expect("a second writer is refused").to_string();
    assert!(e.contains("already open for updates"), "{e}");
    let ocgraph_core::GraphView::Updated(reader) =
        ocgraph_core::GraphView::open(&dir, &Default::default()).unwrap()
    else {
        panic!("a graph with updates opens as a snapshot")
    };
    assert_eq!(reader.out().neighbors(3).to_vec(), vec![4], "readers see the durable batch");
    first.add_edges(&[(5, 6)], None).unwrap();
    first.close().unwrap();
    let second = WritableGraph::open(&dir, &opts).unwrap();
    let snap = second.snapshot();
    assert_eq!(snap.out().neighbors(3).to_vec(), vec![4]);
    assert_eq!(snap.out().neighbors(5).to_vec(), vec![6], "no batch of the first writer was lost");
    drop(second);
    WritableGraph::open(&dir, &opts).expect("a dropped writer releases the lock").close().unwrap();
}

/// A writer dropped (not closed) while a forked child still holds a copy of its descriptors (a
/// thread's `Command::spawn` before its `exec`) releases the lock: the next writer opened at
/// once was refused while the child lived (a flock belongs to the open file, and the child's
/// copy kept it open). A child that drops its copy of the handle does not unlock the parent's.
#[test]
fn a_dropped_writer_releases_the_lock_while_a_forked_child_holds_its_descriptors() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, opts) = (small_graph(tmp.path()), WriteOptions::default());
    let first = WritableGraph::open(&dir, &opts).unwrap();
    first.add_edges(&[(3, 4)], None).unwrap();
    // SAFETY: in the child only, which never touches `first` again (it ends in `start`): the
    // copy read here is the one owner of the child's handle.
    let dropping = ForkedChild::start(|| drop(unsafe { std::ptr::read(&first) }));
    let holding = ForkedChild::start(|| {});
    // `dropping`'s copy of the handle was dropped in the child; `holding` keeps its copy.
    let refused = WritableGraph::open(&dir, &opts).err().map(|e| e.to_string());
    dropping.finish();
    assert!(refused.is_some_and(|e| e.contains("already open")), "a child's drop unlocked the parent's lock");
    drop(first);
    let second = WritableGraph::open(&dir, &opts);
    holding.finish();
    let second = second.expect("a dropped writer releases the lock though a child holds its descriptors");
    assert_eq!(second.snapshot().out().neighbors(3).to_vec(), vec![4]);
    second.close().unwrap();
}

/// A forked child that runs a closure (the parent's objects as they were at the fork: what it
/// does not drop, it keeps), then waits until [`ForkedChild::finish`] releases it.
struct ForkedChild {
    pid: libc::pid_t,
    release: i32,
}

impl ForkedChild {
    fn start(act: impl FnOnce()) -> ForkedChild {
        let (mut release, mut ready) = ([0i32; 2], [0i32; 2]);
        // SAFETY: two pipes for the handshake; the arrays receive their descriptors.
        assert_eq!(unsafe { libc::pipe(release.as_mut_ptr()) }, 0);
        assert_eq!(unsafe { libc::pipe(ready.as_mut_ptr()) }, 0);
        // SAFETY: the child runs `act`, writes one byte, waits for one and leaves with `_exit`
        // (no harness exit handlers; what it did not drop stays open until then).
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        let mut byte = [0u8; 1];
        if pid == 0 {
            act();
            // SAFETY: closes the ends the child does not use (so that a parent gone leaves it
            // reading the end of the file), then one byte each way, then the child ends.
            unsafe {
                libc::close(release[1]);
                libc::close(ready[0]);
                libc::write(ready[1], byte.as_ptr().cast(), 1);
                libc::read(release[0], byte.as_mut_ptr().cast(), 1);
                libc::_exit(0);
            }
        }
        // SAFETY: closes the ends the parent does not use, then waits for the child's byte:
        // it has run `act` and is waiting.
        unsafe {
            libc::close(release[0]);
            libc::close(ready[1]);
        }
        assert_eq!(unsafe { libc::read(ready[0], byte.as_mut_ptr().cast(), 1) }, 1);
        // SAFETY: the last use of this end.
        unsafe { libc::close(ready[0]) };
        ForkedChild { pid, release: release[1] }
    }

    fn finish(self) {
        // SAFETY: releases the child and waits for it to end.
        unsafe {
            libc::write(self.release, [0u8].as_ptr().cast(), 1);
            libc::close(self.release);
            libc::waitpid(self.pid, std::ptr::null_mut(), 0);
        }
    }
}

/// A writer opened through a link writes to the graph it opened after the link is pointed at
/// another graph, and a writer whose directory was renamed and replaced by another graph
/// refuses to freeze or compact into the new one: both overwrote the other graph.
#[test]
fn a_writer_keeps_to_the_directory_it_opened() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, opts) = (small_graph(tmp.path()), WriteOptions::default());
    let b = tmp.path().join("b");
    std::fs::create_dir(&b).unwrap();
    let b = small_graph(&b);
    let link = tmp.path().join("current");
    std::os::unix::fs::symlink(&a, &link).unwrap();
    let w = WritableGraph::open(&link, &opts).unwrap();
    let swap = tmp.path().join("swap");
    std::os::unix::fs::symlink(&b, &swap).unwrap();
    std::fs::rename(&swap, &link).unwrap();
    w.add_edges(&[(7, 8)], None).unwrap();
    w.freeze().unwrap();
    w.compact().unwrap();
    w.close().unwrap();
    let neighbours =
        |dir: &std::path::Path, v| match ocgraph_core::GraphView::open(dir, &Default::default()).unwrap() {
            ocgraph_core::GraphView::Updated(s) => s.out().neighbors(v).to_vec(),
            ocgraph_core::GraphView::Stored(g) => g.out().neighbors(v).to_vec(),
        };
    assert_eq!(neighbours(&a, 7), vec![8]);
    assert_eq!(neighbours(&b, 7), Vec::<Vertex>::new(), "the other graph is untouched");

    let w = WritableGraph::open(&a, &opts).unwrap();
    w.add_edges(&[(8, 9)], None).unwrap();
    std::fs::rename(&a, tmp.path().join("moved")).unwrap();
    std::fs::rename(&b, &a).unwrap();
    let e = w.freeze().unwrap_err().to_string();
    assert!(e.contains("moved or replaced since this handle opened it"), "{e}");
    assert!(w.compact().is_err());
    drop(w);
    assert_eq!(neighbours(&a, 8), Vec::<Vertex>::new(), "the graph now at the path is untouched");
    assert_eq!(neighbours(&tmp.path().join("moved"), 8), vec![9], "the batch is in the moved graph");
}

/// A reader opening a graph while a writer has it open changes no file: a torn WAL tail (here
/// half a frame, as a batch being appended leaves it for a moment) ends the reader's replay but
/// is not cut, and no WAL segment is created or removed. The next writer's open recovers it.
#[test]
fn a_reader_changes_no_file_of_a_graph_being_written() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, opts) = (small_graph(tmp.path()), WriteOptions::default());
    let writer = WritableGraph::open(&dir, &opts).unwrap();
    writer.add_edges(&[(3, 4)], None).unwrap();
    writer.add_edges(&[(5, 6)], None).unwrap();
    let wal_dir = dir.join(ocgraph_core::update::WAL_DIR);
    let segment = std::fs::read_dir(&wal_dir).unwrap().map(|e| e.unwrap().path()).max().unwrap();
    let mut bytes = std::fs::read(&segment).unwrap();
    let frame = bytes.len() / 2; // the two frames have the same length
    bytes.extend_from_within(..frame / 2);
    std::fs::write(&segment, &bytes).unwrap();
    let listing = |d: &std::path::Path| {
        let mut names: Vec<_> =
            walk(d).into_iter().map(|p| (p.clone(), std::fs::read(&p).unwrap())).collect();
        names.sort();
        names
    };
    fn walk(d: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.extend(walk(&p))
            } else {
                out.push(p)
            }
        }
        out
    }
    let before = listing(&dir);
    for _ in 0..2 {
        let ocgraph_core::GraphView::Updated(snap) =
            ocgraph_core::GraphView::open(&dir, &Default::default()).unwrap()
        else {
            panic!("a graph with updates opens as a snapshot")
        };
        assert_eq!(snap.out().neighbors(3).to_vec(), vec![4]);
        assert_eq!(snap.out().neighbors(5).to_vec(), vec![6]);
    }
    assert_eq!(listing(&dir), before, "the reader changed a file");
    drop(writer);
    let again = WritableGraph::open(&dir, &opts).unwrap();
    assert_eq!(again.recovery().dropped_bytes as usize, frame / 2, "the writer's open cuts the torn tail");
    assert_eq!(again.snapshot().out().neighbors(5).to_vec(), vec![6]);
}

/// A directed graph of 10 vertices and the arcs 0 -> 1 and 1 -> 2, at `<parent>/g`.
fn small_graph(parent: &std::path::Path) -> std::path::PathBuf {
    let dir = parent.join("g");
    let mut b = GraphBuilder::new(&dir, BuildOptions { directed: true, ..BuildOptions::default() }).unwrap();
    b.reserve_vertices(10);
    b.push(&[0, 1], &[1, 2], None).unwrap();
    b.finish(IdMap::Identity, &NoProgress).unwrap();
    dir
}

/// Vertices added while a compaction runs belong to the batches after its checkpoint: the new
/// base holds the vertices as of the checkpoint only, so a reopen (which replays those batches
/// from the WAL) counts every added vertex once, and the graph passes `check`.
#[test]
fn vertices_added_during_compactions_are_counted_once() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = small_graph(tmp.path());
    let opts = WriteOptions { freeze_threshold: 1 << 10, ..WriteOptions::default() };
    let base_n = ocgraph_core::format::Manifest::read(&dir).unwrap().num_vertices;
    let g = Arc::new(WritableGraph::open(&dir, &opts).unwrap());
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let compactor = {
        let (g, done) = (g.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                g.compact().unwrap();
            }
        })
    };
    let mut added = 0u64;
    for i in 0..300u32 {
        let v = g.add_vertices(1).unwrap().start;
        g.add_edges(&[(v, i % 5)], None).unwrap();
        added += 1;
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    compactor.join().unwrap();
    assert_eq!(g.num_vertices() as u64, base_n + added);
    Arc::try_unwrap(g).ok().unwrap().close().unwrap();
    ocgraph_core::format::check_graph(&dir).unwrap();
    let g = WritableGraph::open(&dir, &opts).unwrap();
    assert_eq!(g.num_vertices() as u64, base_n + added, "a reopen counts every added vertex once");
    let snap = g.snapshot();
    for (i, v) in (base_n as Vertex..(base_n + added) as Vertex).enumerate() {
        assert_eq!(snap.out().neighbors(v).to_vec(), vec![i as Vertex % 5], "vertex {v}");
    }
}

/// Readers opening a graph while its writer freezes (moving the checkpoint and deleting the
/// WAL segments it covers) and compacts (deleting levels and the old base) see a whole prefix
/// of the batches every time: never an error from a file deleted under them, never a batch
/// missing in the middle. Readers of a graph without a `wal/` directory create none.
#[test]
fn readers_during_freezes_and_compactions_see_whole_prefixes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = small_graph(tmp.path());
    let target: Vertex = 9;
    let opts = WriteOptions { auto_compact_levels: None, ..WriteOptions::default() };
    let g = WritableGraph::open(&dir, &opts).unwrap();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let (dir, done) = (dir.clone(), done.clone());
        std::thread::spawn(move || {
            let mut opens = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let view = ocgraph_core::GraphView::open(&dir, &Default::default()).unwrap();
                let ocgraph_core::GraphView::Updated(snap) = view else { continue };
                let sources = snap.in_().neighbors(target).to_vec();
                let prefix: Vec<Vertex> = (0..sources.len() as Vertex).collect();
                assert_eq!(sources, prefix, "a snapshot at batch {} holds a gap", snap.seq());
                opens += 1;
            }
            opens
        })
    };
    for i in 0..9 {
        for _ in 0..20 {
            g.add_edges(&[(i, target)], None).unwrap();
            g.add_edges(&[(i, target)], None).unwrap();
        }
        g.freeze().unwrap();
        if i % 3 == 2 {
            g.compact().unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let opens = reader.join().unwrap();
    assert!(opens > 0);
    g.close().unwrap();
    std::fs::remove_dir_all(dir.join(ocgraph_core::update::WAL_DIR)).unwrap();
    ocgraph_core::GraphView::open(&dir, &Default::default()).unwrap();
    assert!(!dir.join(ocgraph_core::update::WAL_DIR).exists(), "a reader created the log directory");
}

/// With a buffer pool of two frames (reads on one thread), an automatic compaction runs in the
/// update call that made it due: on a thread of its own it held frames the caller's reads
/// waited for (they failed after 10 s), and the levels piled up meanwhile.
#[test]
fn a_pool_of_two_frames_compacts_in_the_update_call() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let n = 300u32;
    let mut b = GraphBuilder::new(&dir, BuildOptions { directed: true, ..BuildOptions::default() }).unwrap();
    b.reserve_vertices(n as u64);
    let (src, dst): (Vec<u32>, Vec<u32>) = (0..3000u32).map(|i| (i % n, (i * 7 + 1) % n)).unzip();
    b.push(&src, &dst, None).unwrap();
    b.finish(IdMap::Identity, &NoProgress).unwrap();
    let opts = two_frames_compacting_often();
    let g = WritableGraph::open(&dir, &opts).unwrap();
    let mut degree: Vec<usize> = {
        let s = g.snapshot();
        (0..n).map(|v| s.out().neighbors(v).len()).collect()
    };
    for i in 0..40u32 {
        let (u, v) = ((i * 13) % n, (i * 29 + 5) % n);
        let had = g.snapshot().out().neighbors(u).contains(&v);
        g.add_edges(&[(u, v)], None).unwrap();
        degree[u as usize] += usize::from(!had);
        assert!(g.num_levels() <= 2, "batch {i}: {} levels", g.num_levels());
        let s = g.snapshot();
        for w in (0..n).step_by(7) {
            assert_eq!(s.out().neighbors(w).len(), degree[w as usize], "batch {i}, vertex {w}");
        }
    }
    g.close().unwrap();
}

/// The same by original ids (the calls that hold the names lock while they commit): the
/// compaction they make due runs after the lock is let go, not under it (where it waited for
/// the lock forever).
#[test]
fn a_pool_of_two_frames_compacts_after_updates_by_original_id() {
    use ocgraph_core::ids::OriginalId;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let mut b = GraphBuilder::new(&dir, BuildOptions { directed: false, ..BuildOptions::default() }).unwrap();
    b.reserve_vertices(3);
    b.push(&[0, 1], &[1, 2], None).unwrap();
    b.finish(IdMap::Strings(["a", "b", "c"].map(String::from).to_vec()), &NoProgress).unwrap();
    let opts = two_frames_compacting_often();
    let (done, finished) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        let g = WritableGraph::open(&dir, &opts).unwrap();
        let s = |x: String| OriginalId::Str(x);
        for i in 0..12u32 {
            g.add_edges_by_id(&[(s(format!("n{i}")), s("a".into()))], None).unwrap();
            g.add_vertices_by_id(&[s(format!("m{i}"))]).unwrap();
            assert!(g.num_levels() <= 2, "batch {i}: {} levels", g.num_levels());
        }
        assert_eq!(g.num_vertices(), 3 + 24);
        g.close().unwrap();
        done.send(()).unwrap();
    });
    let waited = finished.recv_timeout(std::time::Duration::from_secs(120));
    assert!(waited.is_ok() || worker.is_finished(), "the updates did not finish in 120 s");
    worker.join().unwrap();
}

/// A pool of two 4 KiB frames, a freeze at every batch and a compaction at every second level.
fn two_frames_compacting_often() -> WriteOptions {
    WriteOptions {
        backend: ocgraph_core::page::BackendKind::Pool {
            capacity: 8 << 10,
            page_size: 4096,
            policy: "clock".into(),
        },
        durability: Durability::None,
        freeze_threshold: 1,
        auto_compact_levels: Some(2),
        ..WriteOptions::default()
    }
}

/// Readers open while a writer adds vertices by new original ids, in every durability mode:
/// each open names every vertex it replays (the names precede their batch's frame, and the
/// open reads them after the frames it replays), never "names N added vertices but the graph
/// has N + 1", and never stops short at a batch written under `none`.
#[test]
fn readers_opening_during_updates_by_original_id_name_every_vertex() {
    use ocgraph_core::ids::OriginalId;
    for durability in [Durability::PerBatch, Durability::None] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("g");
        let mut b =
            GraphBuilder::new(&dir, BuildOptions { directed: false, ..BuildOptions::default() }).unwrap();
        b.reserve_vertices(2);
        b.push(&[0], &[1], None).unwrap();
        b.finish(IdMap::Strings(["a", "b"].map(String::from).to_vec()), &NoProgress).unwrap();
        let opts = WriteOptions { durability, auto_compact_levels: None, ..WriteOptions::default() };
        let g = WritableGraph::open(&dir, &opts).unwrap();
        let stop = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|scope| {
            let reader = scope.spawn(|| {
                let mut opens = 0;
                while !stop.load(std::sync::atomic::Ordering::Acquire) || opens == 0 {
                    let view = ocgraph_core::GraphView::open(&dir, &Default::default()).unwrap();
                    let ids = view.ids().unwrap();
                    assert_eq!(ids.len(), view.num_vertices() as u64, "{durability:?}");
                    for v in 2..view.num_vertices() {
                        assert_eq!(ids.original(v as u32), OriginalId::Str(format!("n{}", v - 2)));
                    }
                    opens += 1;
                }
                opens
            });
            for i in 0..400 {
                g.add_edges_by_id(&[(OriginalId::Str(format!("n{i}")), OriginalId::Str("a".into()))], None)
                    .unwrap();
            }
            stop.store(true, std::sync::atomic::Ordering::Release);
            assert!(reader.join().unwrap() > 0);
        });
        g.close().unwrap();
    }
}

/// A writer whose open read the manifest before another writer's close wrote its last one, and
/// took the lock after that close, started from the old manifest: it removed the other's new
/// level as a stray and wrote its manifest over it (acknowledged batches lost, or the whole
/// graph with a compaction's base). The open's read is held back here by a FIFO in the
/// manifest's place, which the other writer's freeze replaces by a file.
#[test]
fn a_writer_opening_while_another_closes_starts_from_its_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let mut b = GraphBuilder::new(&dir, BuildOptions { directed: true, ..BuildOptions::default() }).unwrap();
    b.reserve_vertices(N as u64);
    b.push(&[0], &[1], None).unwrap();
    b.finish(IdMap::Identity, &NoProgress).unwrap();
    let opts = WriteOptions { durability: Durability::PerBatch, ..WriteOptions::default() };
    let first = WritableGraph::open(&dir, &opts).unwrap();
    let manifest = dir.join("manifest");
    let old = std::fs::read(&manifest).unwrap();
    std::fs::remove_file(&manifest).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(&manifest).status().unwrap().success());
    // Read and write: the open does not wait for a reader, and the second writer's read of the
    // FIFO waits for its bytes.
    let mut fifo = std::fs::OpenOptions::new().read(true).write(true).open(&manifest).unwrap();
    let second = {
        let (dir, opts) = (dir.clone(), opts.clone());
        std::thread::spawn(move || {
            let g = WritableGraph::open(&dir, &opts)?;
            g.add_edges(&[(3, 4)], None)?;
            g.close()
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(300));
    first.add_edges(&[(2, 3)], None).unwrap();
    first.freeze().unwrap();
    first.close().unwrap();
    drop(first);
    std::io::Write::write_all(&mut fifo, &old).unwrap();
    drop(fifo);
    second.join().unwrap().unwrap();
    let g = WritableGraph::open(&dir, &opts).unwrap();
    let s = g.snapshot();
    assert_eq!(s.num_edges(), 3);
    assert_eq!(&s.out().neighbors(2)[..], &[3], "the first writer's batch");
    assert_eq!(&s.out().neighbors(3)[..], &[4], "the second writer's batch");
}

/// An undirected graph's two delta sides are one delta, counted once against the freeze
/// threshold: it freezes after as many edges as a directed graph (it froze after half as
/// many: twice the levels and compactions the threshold asks for).
#[test]
fn undirected_and_directed_graphs_freeze_after_as_many_edges() {
    let edges_until_a_level = |directed: bool| {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("g");
        let mut b = GraphBuilder::new(&dir, BuildOptions { directed, ..BuildOptions::default() }).unwrap();
        b.reserve_vertices(N as u64);
        b.push(&[0], &[1], None).unwrap();
        b.finish(IdMap::Identity, &NoProgress).unwrap();
        let opts =
            WriteOptions { durability: Durability::None, freeze_threshold: 1600, ..WriteOptions::default() };
        let g = WritableGraph::open(&dir, &opts).unwrap();
        (1..N).find(|&i| {
            g.add_edges(&[(i, (i + 1) % N)], None).unwrap();
            g.num_levels() > 0
        })
    };
    let directed = edges_until_a_level(true).expect("a level within N edges");
    assert_eq!(edges_until_a_level(false), Some(directed));
}
