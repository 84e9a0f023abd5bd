//! Vertex labels set by update batches: random streams of label changes, edge updates and
//! added vertices against a model array, through snapshots (isolation), reopen after a drop
//! without close, freeze, compaction and readers; a torn label batch at the WAL's tail is
//! dropped; the label log's unlisted tail is cut and a damaged listed record is an error.

use std::path::{Path, PathBuf};

use ocgraph_core::error::ErrorKind;
use ocgraph_core::ingest::{self, BuildOptions, GraphBuilder, IdMap, NoProgress};
use ocgraph_core::labels::NO_LABEL;
use ocgraph_core::update::{Durability, WritableGraph, WriteOptions};
use ocgraph_core::{Graph, GraphView, OpenOptions, Vertex};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// An undirected graph of `n` vertices (a path), with `labels` when given.
fn build(dir: &Path, n: u32, labels: Option<&[u32]>) {
    let o = BuildOptions { directed: false, ..BuildOptions::default() };
    let mut b = GraphBuilder::new(dir, o).unwrap();
    b.reserve_vertices(n as u64);
    let (src, dst): (Vec<u32>, Vec<u32>) = (1..n).map(|v| (v - 1, v)).unzip();
    b.push(&src, &dst, None).unwrap();
    b.finish(IdMap::Identity, &NoProgress).unwrap();
    if let Some(l) = labels {
        ingest::set_labels(dir, l, None).unwrap();
    }
}

fn opts(durability: Durability) -> WriteOptions {
    WriteOptions { durability, auto_compact_levels: None, ..WriteOptions::default() }
}

/// The label files (`labels.*.log`) in `dir`.
fn label_logs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with("labels.") && name.ends_with(".log")
        })
        .collect();
    out.sort();
    out
}

/// The model's labels as the graph reports them: `None` while nothing was ever labelled.
fn expected(model: &Option<Vec<u32>>, n: usize) -> Option<Vec<u32>> {
    model.as_ref().map(|m| {
        let mut m = m.clone();
        m.resize(n, NO_LABEL);
        m
    })
}

/// Random batches of label changes (some vertices several times, some removals), edge
/// additions and added vertices, with freezes, compactions and reopens (dropping the graph
/// without closing it) in between: after every step the snapshot's labels equal the model;
/// an older snapshot keeps its labels; readers and a compacted base agree.
#[test]
fn labels_follow_a_model_through_reopen_freeze_and_compaction() {
    for (seed, base_labels) in [(1u64, false), (2, true)] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("g");
        let n0 = 30u32;
        let initial: Option<Vec<u32>> = base_labels.then(|| (0..n0).map(|v| v % 3).collect());
        build(&dir, n0, initial.as_deref());
        let mut model = initial.clone();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut g = WritableGraph::open(&dir, &opts(Durability::PerBatch)).unwrap();
        assert_eq!(g.snapshot().labels().unwrap(), expected(&model, n0 as usize));
        for step in 0..60 {
            let n = g.num_vertices() as u32;
            match rng.gen_range(0..10) {
                0 => {
                    g.add_vertices(rng.gen_range(1..4)).unwrap();
                }
                1 => {
                    let e: Vec<(Vertex, Vertex)> =
                        (0..5).map(|_| (rng.gen_range(0..n), rng.gen_range(0..n))).collect();
                    g.add_edges(&e, None).unwrap();
                }
                2 if step % 3 == 0 => g.freeze().unwrap(),
                3 if step % 4 == 0 => g.compact().unwrap(),
                4 => {
                    // A crash: no close, no final sync beyond what each batch made durable.
                    drop(g);
                    g = WritableGraph::open(&dir, &opts(Durability::PerBatch)).unwrap();
                }
                _ => {
                    let hot = rng.gen_range(0..n);
                    let batch: Vec<(Vertex, u32)> = (0..rng.gen_range(1..12))
                        .map(|_| {
                            let v = if rng.gen_bool(0.3) { hot } else { rng.gen_range(0..n) };
                            let l = if rng.gen_bool(0.15) { NO_LABEL } else { rng.gen_range(0..5) };
                            (v, l)
                        })
                        .collect();
                    let old = g.snapshot();
                    let old_labels = old.labels().unwrap();
                    g.set_labels(&batch).unwrap();
                    let m = model.get_or_insert_with(Vec::new);
                    for &(v, l) in &batch {
                        if m.len() <= v as usize {
                            m.resize(v as usize + 1, NO_LABEL);
                        }
                        m[v as usize] = l;
                    }
                    assert_eq!(old.labels().unwrap(), old_labels, "an older snapshot keeps its labels");
                }
            }
            let n = g.num_vertices();
            let snap = g.snapshot();
            let want = expected(&model, n);
            assert_eq!(snap.labels().unwrap(), want, "step {step}");
            for v in [0, n as Vertex / 2, n as Vertex - 1] {
                assert_eq!(snap.label(v), want.as_ref().map_or(NO_LABEL, |w| w[v as usize]));
            }
        }
        g.compact().unwrap();
        let n = g.num_vertices();
        g.close().unwrap();
        let want = expected(&model, n);
        // A full compaction leaves no label log: the base holds every label.
        assert!(label_logs(&dir).is_empty(), "{:?}", label_logs(&dir));
        assert_eq!(Graph::open(&dir, &OpenOptions::default()).unwrap().labels().unwrap(), want);
        assert_eq!(GraphView::open(&dir, &OpenOptions::default()).unwrap().labels().unwrap(), want);
    }
}

/// Labels set after a freeze live in the label log; a reader of the updated graph sees them,
/// and an older snapshot of the base stays valid across the compaction that replaces it.
#[test]
fn checkpointed_labels_survive_reopen_and_compaction() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, 10, None);
    let g = WritableGraph::open(&dir, &opts(Durability::PerBatch)).unwrap();
    g.set_labels(&[(1, 7), (2, 8)]).unwrap();
    g.freeze().unwrap();
    g.set_labels(&[(2, 9), (3, 1)]).unwrap();
    g.freeze().unwrap();
    assert_eq!(label_logs(&dir).len(), 1);
    let before = g.snapshot();
    g.set_labels(&[(4, 4)]).unwrap();
    drop(g);
    let want = |extra: bool| {
        let mut l = vec![NO_LABEL; 10];
        (l[1], l[2], l[3]) = (7, 9, 1);
        if extra {
            l[4] = 4;
        }
        Some(l)
    };
    let view = GraphView::open(&dir, &OpenOptions::default()).unwrap();
    assert_eq!(view.labels().unwrap(), want(true));
    let g = WritableGraph::open(&dir, &opts(Durability::PerBatch)).unwrap();
    g.compact().unwrap();
    assert_eq!(before.labels().unwrap(), want(false));
    assert_eq!(g.snapshot().labels().unwrap(), want(true));
    g.close().unwrap();
    assert_eq!(Graph::open(&dir, &OpenOptions::default()).unwrap().labels().unwrap(), want(true));
}

/// A compacted graph's base directory keeps a manifest of its own, which `check` verifies: a
/// damaged or missing one passed (only the root manifest, which lists the base's files, was
/// read).
#[test]
fn check_verifies_the_base_directorys_own_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, 10, Some(&[1; 10]));
    let g = WritableGraph::open(&dir, &opts(Durability::PerBatch)).unwrap();
    g.set_labels(&[(1, 7)]).unwrap();
    g.compact().unwrap();
    g.close().unwrap();
    ocgraph_core::format::check_graph(&dir).unwrap();
    let base = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("base."))
        .expect("a compacted graph has a base directory");
    let own = base.join("manifest");
    let good = std::fs::read(&own).unwrap();
    let mut bad = good.clone();
    let k = bad.len() / 2;
    bad[k] ^= 1;
    std::fs::write(&own, &bad).unwrap();
    let e = ocgraph_core::format::check_graph(&dir).unwrap_err().to_string();
    assert!(e.contains(&*own.to_string_lossy()), "{e}");
    std::fs::remove_file(&own).unwrap();
    let e = ocgraph_core::format::check_graph(&dir).unwrap_err().to_string();
    assert!(e.contains(&*own.to_string_lossy()), "{e}");
    std::fs::write(&own, &good).unwrap();
    ocgraph_core::format::check_graph(&dir).unwrap();
}

/// A label batch whose WAL frame is cut short at any byte is dropped on reopen (the batches
/// before it stay); the label log's bytes past what the manifest lists are cut off; a damaged
/// record the manifest lists is a format error naming the file and the record's offset.
#[test]
fn torn_label_records_are_dropped_and_damaged_ones_are_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, 6, Some(&[1, 1, 1, 1, 1, 1]));
    // A torn last frame, cut at every byte.
    let g = WritableGraph::open(&dir, &opts(Durability::PerBatch)).unwrap();
    g.set_labels(&[(0, 5)]).unwrap();
    drop(g);
    let wal = dir.join("wal");
    let seg = std::fs::read_dir(&wal).unwrap().flatten().map(|e| e.path()).max().unwrap();
    let kept = std::fs::metadata(&seg).unwrap().len();
    let g = WritableGraph::open(&dir, &opts(Durability::PerBatch)).unwrap();
    g.set_labels(&[(2, 6), (3, NO_LABEL)]).unwrap();
    drop(g);
    let seg2 = std::fs::read_dir(&wal).unwrap().flatten().map(|e| e.path()).max().unwrap();
    let full = std::fs::read(&seg2).unwrap();
    let frame_start = if seg2 == seg { kept as usize } else { 0 };
    let saved = tmp.path().join("saved");
    copy_dir(&dir, &saved);
    for cut in frame_start..full.len() {
        std::fs::remove_dir_all(&dir).unwrap();
        copy_dir(&saved, &dir);
        std::fs::write(&seg2, &full[..cut]).unwrap();
        let g = WritableGraph::open(&dir, &opts(Durability::PerBatch)).unwrap();
        assert_eq!(g.snapshot().labels().unwrap(), Some(vec![5, 1, 1, 1, 1, 1]), "cut at {cut}");
        drop(g);
    }
    std::fs::remove_dir_all(&dir).unwrap();
    copy_dir(&saved, &dir);
    let want = Some(vec![5, 1, 6, NO_LABEL, 1, 1]);
    // Checkpointed: the changes move to the label log.
    let g = WritableGraph::open(&dir, &opts(Durability::PerBatch)).unwrap();
    assert_eq!(g.snapshot().labels().unwrap(), want);
    g.freeze().unwrap();
    g.close().unwrap();
    let [log] = &label_logs(&dir)[..] else { panic!("one label log: {:?}", label_logs(&dir)) };
    let listed = std::fs::metadata(log).unwrap().len();
    // An interrupted later append: bytes past the listed length.
    let mut bytes = std::fs::read(log).unwrap();
    bytes.extend_from_slice(&[9, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0]);
    std::fs::write(log, &bytes).unwrap();
    let g = WritableGraph::open(&dir, &opts(Durability::PerBatch)).unwrap();
    assert_eq!(g.snapshot().labels().unwrap(), want);
    assert_eq!(std::fs::metadata(log).unwrap().len(), listed, "the unlisted tail is cut");
    drop(g);
    // A damaged listed record.
    let mut bytes = std::fs::read(log).unwrap();
    let last = bytes.len() - 6;
    bytes[last] ^= 0x40;
    std::fs::write(log, &bytes).unwrap();
    let err = WritableGraph::open(&dir, &opts(Durability::PerBatch)).err().expect("a damaged record fails");
    assert_eq!(err.kind(), ErrorKind::Format);
    let msg = err.to_string();
    assert!(msg.contains(&log.file_name().unwrap().to_string_lossy().to_string()), "{msg}");
    assert!(msg.contains("byte offset"), "{msg}");
}

/// Bad label updates are refused whole, naming the vertex; nothing is applied.
#[test]
fn bad_label_updates_name_the_vertex() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, 4, None);
    let g = WritableGraph::open(&dir, &opts(Durability::None)).unwrap();
    let err = g.set_labels(&[(1, 2), (9, 3)]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert!(err.to_string().contains("vertex 9 out of range"), "{err}");
    assert_eq!(g.snapshot().labels().unwrap(), None);
    // A graph without labels gets them with the first change.
    g.set_labels(&[(3, 0)]).unwrap();
    assert_eq!(g.snapshot().labels().unwrap(), Some(vec![NO_LABEL, NO_LABEL, NO_LABEL, 0]));
    g.close().unwrap();
    // Stored labels cannot be replaced or removed under uncompacted updates.
    assert!(ingest::set_labels(&dir, &[1, 1, 1, 1], None).is_err());
    assert!(ingest::remove_labels(&dir).is_err());
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// `labels set` replacing a graph's labels while other threads open it: every open sees the
/// old labels or the new ones (never none, never a checksum error), and the replaced files are
/// gone afterwards.
#[test]
fn readers_opening_while_labels_are_replaced_see_old_or_new_labels() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let n = 2000u32;
    let (a, b): (Vec<u32>, Vec<u32>) =
        ((0..n).map(|v| v % 3).collect(), (0..n).map(|v| v % 7 + 10).collect());
    build(&dir, n, Some(&a));
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let readers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut opens = 0;
                    while !done.load(std::sync::atomic::Ordering::Relaxed) {
                        let g = GraphView::open(&dir, &OpenOptions::default()).unwrap();
                        let l = g.labels().unwrap();
                        assert!(l.as_ref() == Some(&a) || l.as_ref() == Some(&b), "open {opens} saw {l:?}");
                        opens += 1;
                    }
                    opens
                })
            })
            .collect();
        for i in 0..200 {
            ingest::set_labels(&dir, if i % 2 == 0 { &b } else { &a }, None).unwrap();
        }
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        for r in readers {
            assert!(r.join().unwrap() > 0);
        }
    });
    let label_files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("labels."))
        .collect();
    assert_eq!(label_files, ["labels.200.u32"]);
    let g = Graph::open(&dir, &OpenOptions::default()).unwrap();
    assert_eq!(g.labels().unwrap(), Some(a.clone()));
    drop(g);
    ocgraph_core::format::check_graph(&dir).unwrap();
    // The replaced file's name on disk is followed by pack, reorder and compaction (which
    // deletes it with the old base: nothing named labels.* is left at the top).
    let packed = tmp.path().join("packed");
    ingest::pack(&dir, &packed, false, &NoProgress).unwrap();
    assert_eq!(Graph::open(&packed, &OpenOptions::default()).unwrap().labels().unwrap(), Some(a.clone()));
    let reordered = tmp.path().join("reordered");
    ingest::reorder(&dir, &reordered, 1 << 20, false, &NoProgress).unwrap();
    let mut sorted = Graph::open(&reordered, &OpenOptions::default()).unwrap().labels().unwrap().unwrap();
    sorted.sort_unstable();
    let mut want = a.clone();
    want.sort_unstable();
    assert_eq!(sorted, want);
    let g = WritableGraph::open(&dir, &opts(Durability::PerBatch)).unwrap();
    g.add_edges(&[(0, 5)], None).unwrap();
    g.compact().unwrap();
    assert_eq!(g.snapshot().labels().unwrap(), Some(a.clone()));
    g.close().unwrap();
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("labels.") && n.ends_with(".u32"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    ocgraph_core::format::check_graph(&dir).unwrap();
}

/// A label file names vertices by their original ids, which are read under the writer lock: a
/// graph replaced while the file was read (`import --force` with another numbering) put the
/// labels on the vertices of the old numbering. The replacement waits for the labels now.
#[test]
fn labels_from_a_file_are_numbered_under_the_writer_lock() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, input, fifo) = (tmp.path().join("g"), tmp.path().join("e.txt"), tmp.path().join("labels"));
    let import = |text: &str, overwrite: bool| {
        std::fs::write(&input, text).unwrap();
        let opts = ingest::ImportOptions {
            relabel: ingest::Relabel::FirstSeen,
            build: BuildOptions { overwrite, ..BuildOptions::default() },
            ..ingest::ImportOptions::default()
        };
        ingest::import(&input, &dir, &opts, &NoProgress)
    };
    import("a b\nb c\nc d\n", false).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let labelling = {
        let (dir, fifo) = (dir.clone(), fifo.clone());
        std::thread::spawn(move || ingest::set_labels_from_file(&dir, &fifo))
    };
    std::thread::sleep(std::time::Duration::from_millis(300)); // it waits for the file's lines
    let refused = import("d c\nc b\nb a\n", true).unwrap_err().to_string();
    assert!(refused.contains("already open for updates"), "{refused}");
    std::fs::write(&fifo, "a 1\nb 2\nc 3\nd 4\n").unwrap();
    labelling.join().unwrap().unwrap();
    let g = Graph::open(&dir, &OpenOptions::default()).unwrap();
    assert_eq!(g.labels().unwrap(), Some(vec![1, 2, 3, 4]));
}
