//! Updates by original id on relabelled graphs (string and integer id maps): new ids get new
//! vertices, names survive reopen and compaction, and a name logged for a batch that never
//! reached the WAL is dropped on reopen.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use ocgraph_core::ids::OriginalId;
use ocgraph_core::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
use ocgraph_core::update::{Durability, WritableGraph, WriteOptions};
use ocgraph_core::{Adjacency, GraphView, Vertex};

fn s(x: &str) -> OriginalId {
    OriginalId::Str(x.to_string())
}

/// An undirected graph on `names` with `edges` between name indices.
fn build(dir: &Path, ids: IdMap, n: u64, edges: &[(u32, u32)]) {
    let o = BuildOptions { directed: false, ..BuildOptions::default() };
    let mut b = GraphBuilder::new(dir, o).unwrap();
    b.reserve_vertices(n);
    let (src, dst): (Vec<u32>, Vec<u32>) = edges.iter().copied().unzip();
    b.push(&src, &dst, None).unwrap();
    b.finish(ids, &NoProgress).unwrap();
}

/// The graph's edges as pairs of original ids (each undirected edge once, smaller id first).
fn named_edges(g: &WritableGraph) -> BTreeSet<(OriginalId, OriginalId)> {
    let snap = g.snapshot();
    let mut out = BTreeSet::new();
    for v in 0..snap.num_vertices() as Vertex {
        for &u in snap.out().neighbors(v).iter() {
            let (a, b) = (g.original_id(v).unwrap(), g.original_id(u).unwrap());
            out.insert(if a <= b { (a, b) } else { (b, a) });
        }
    }
    out
}

fn pair(a: &OriginalId, b: &OriginalId) -> (OriginalId, OriginalId) {
    if a <= b {
        (a.clone(), b.clone())
    } else {
        (b.clone(), a.clone())
    }
}

fn opts() -> WriteOptions {
    WriteOptions { durability: Durability::PerBatch, auto_compact_levels: None, ..WriteOptions::default() }
}

#[test]
fn string_ids_update_by_name_across_reopen_and_compaction() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let names = ["alice", "bob", "carol"].map(String::from).to_vec();
    build(&dir, IdMap::Strings(names), 3, &[(0, 1), (1, 2)]);
    let mut model: BTreeSet<(OriginalId, OriginalId)> =
        [pair(&s("alice"), &s("bob")), pair(&s("bob"), &s("carol"))].into_iter().collect();

    let g = WritableGraph::open(&dir, &opts()).unwrap();
    assert_eq!(named_edges(&g), model);
    // New names get new vertices, numbered in order of first appearance; known names reuse theirs.
    g.add_edges_by_id(&[(s("alice"), s("dave")), (s("dave"), s("erin")), (s("erin"), s("bob"))], None)
        .unwrap();
    for (a, b) in [("alice", "dave"), ("dave", "erin"), ("erin", "bob")] {
        model.insert(pair(&s(a), &s(b)));
    }
    assert_eq!(g.num_vertices(), 5);
    assert_eq!(g.vertex_of(&s("dave")).unwrap(), Some(3));
    assert_eq!(g.vertex_of(&s("erin")).unwrap(), Some(4));
    assert_eq!(g.original_id(4).unwrap(), s("erin"));
    assert_eq!(named_edges(&g), model);
    // Plain add_vertices would leave vertices without names: refused.
    let e = g.add_vertices(1).unwrap_err().to_string();
    assert!(e.contains("original ids"), "{e}");
    assert_eq!(g.add_vertices_by_id(&[s("bob"), s("frank")]).unwrap(), vec![1, 5]);
    g.remove_edges_by_id(&[(s("bob"), s("alice")), (s("nobody"), s("alice"))]).unwrap();
    model.remove(&pair(&s("alice"), &s("bob")));
    assert_eq!(g.vertex_of(&s("nobody")).unwrap(), None, "removal creates no vertex");
    let e = g.remove_vertices_by_id(&[s("nobody")]).unwrap_err().to_string();
    assert!(e.contains("nobody"), "{e}");
    g.remove_vertices_by_id(&[s("carol")]).unwrap();
    model.retain(|(a, b)| *a != s("carol") && *b != s("carol"));
    assert_eq!(named_edges(&g), model);
    g.close().unwrap();

    // Reopen: names come back from the id log.
    let g = WritableGraph::open(&dir, &opts()).unwrap();
    assert_eq!(g.num_vertices(), 6);
    assert_eq!(g.original_id(5).unwrap(), s("frank"));
    assert_eq!(named_edges(&g), model);
    // Readers see the names too.
    let view = GraphView::open(&dir, &Default::default()).unwrap();
    let ids = view.ids().unwrap();
    assert_eq!(ids.len(), 6);
    assert_eq!(ids.original(3), s("dave"));
    assert_eq!(ids.vertex(&s("erin")), Some(4));

    // Compaction writes every name into the new base; later names go on in the log.
    g.compact().unwrap();
    g.add_edges_by_id(&[(s("grace"), s("alice"))], None).unwrap();
    model.insert(pair(&s("alice"), &s("grace")));
    assert_eq!(g.vertex_of(&s("grace")).unwrap(), Some(6));
    assert_eq!(named_edges(&g), model);
    g.close().unwrap();
    let g = WritableGraph::open(&dir, &opts()).unwrap();
    assert_eq!(named_edges(&g), model);
    assert_eq!(g.original_id(6).unwrap(), s("grace"));
    assert_eq!(g.original_id(3).unwrap(), s("dave"));
    g.close().unwrap();
    ocgraph_core::format::check_graph(&dir).unwrap();
}

#[test]
fn integer_ids_and_identity_graphs_update_by_id() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, IdMap::U64(vec![1000, 20, 7_000_000_000]), 3, &[(0, 1)]);
    let g = WritableGraph::open(&dir, &opts()).unwrap();
    let i = OriginalId::Int;
    g.add_edges_by_id(&[(i(20), i(5)), (i(5), i(7_000_000_000))], None).unwrap();
    assert_eq!(g.vertex_of(&i(5)).unwrap(), Some(3));
    assert_eq!(&g.snapshot().out().neighbors(3)[..], &[1, 2]);
    let e = g.add_edges_by_id(&[(s("x"), i(5))], None).unwrap_err().to_string();
    assert!(e.contains("integer ids"), "{e}");
    g.close().unwrap();
    let g = WritableGraph::open(&dir, &opts()).unwrap();
    assert_eq!(g.original_id(3).unwrap(), i(5));
    g.close().unwrap();

    // Identity graphs: an id is a vertex number; a new id past the end adds vertices up to it.
    let dir = tmp.path().join("plain");
    build(&dir, IdMap::Identity, 2, &[(0, 1)]);
    let g = WritableGraph::open(&dir, &opts()).unwrap();
    g.add_edges_by_id(&[(i(1), i(4))], None).unwrap();
    assert_eq!(g.num_vertices(), 5);
    assert_eq!(&g.snapshot().out().neighbors(4)[..], &[1]);
    assert_eq!(g.original_id(4).unwrap(), i(4));
    // An id that would make the graph mostly empty vertices (4.29 billion for a few edges,
    // whose values every kernel then allocates) is refused, as the import refuses it, and the
    // graph is unchanged; added first with `add_vertices`, the id is a vertex like any other.
    let far = (1u64 << 24) + 7;
    let e = g.add_edges_by_id(&[(i(0), i(u32::MAX as u64 - 1))], None).unwrap_err().to_string();
    assert!(e.contains("mostly empty vertices") && e.contains("add_vertices(4294967290)"), "{e}");
    let e = g.add_edges_by_id(&[(i(0), i(far))], None).unwrap_err().to_string();
    assert!(e.contains("add_vertices"), "{e}");
    assert_eq!(g.num_vertices(), 5);
    g.add_vertices((far - 4) as u32).unwrap();
    g.add_edges_by_id(&[(i(0), i(far))], None).unwrap();
    assert_eq!(&g.snapshot().out().neighbors(far as u32)[..], &[0]);
    // The graph is now mostly empty vertices (kept so by add_vertices, as by allow_sparse_ids):
    // a few vertices more are not, and are added by id; a far id still needs add_vertices.
    let n = g.num_vertices() as u64;
    g.add_edges_by_id(&[(i(0), i(n + 2))], None).unwrap();
    assert_eq!(g.num_vertices() as u64, n + 3);
    let e = g.add_edges_by_id(&[(i(0), i(3 * far))], None).unwrap_err().to_string();
    assert!(e.contains("mostly empty vertices"), "{e}");
}

/// A name logged for a batch that never reached the WAL (the process died in between) is cut
/// on reopen, and its vertex number goes to the next new name.
#[test]
fn a_name_without_its_batch_is_dropped_on_reopen() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, IdMap::Strings(vec!["a".into(), "b".into()]), 2, &[(0, 1)]);
    let g = WritableGraph::open(&dir, &opts()).unwrap();
    g.add_edges_by_id(&[(s("a"), s("c"))], None).unwrap();
    g.close().unwrap();
    let log = dir.join(ocgraph_core::update::ids_log::IDS_LOG);
    let good = std::fs::read(&log).unwrap();
    // Simulate the crash: the same record layout for vertex 3 ("ghost"), then a torn record.
    let mut rec = Vec::new();
    rec.extend_from_slice(&3u32.to_le_bytes());
    rec.extend_from_slice(&5u32.to_le_bytes());
    rec.extend_from_slice(b"ghost");
    rec.extend_from_slice(&crc32c::crc32c(&rec).to_le_bytes());
    let mut bytes = good.clone();
    bytes.extend_from_slice(&rec);
    bytes.extend_from_slice(&[4, 0, 0]);
    std::fs::write(&log, &bytes).unwrap();
    let g = WritableGraph::open(&dir, &opts()).unwrap();
    assert_eq!(g.num_vertices(), 3);
    assert_eq!(g.vertex_of(&s("ghost")).unwrap(), None);
    assert_eq!(std::fs::read(&log).unwrap(), good, "the log is cut back to its logged names");
    g.add_edges_by_id(&[(s("d"), s("a"))], None).unwrap();
    assert_eq!(g.vertex_of(&s("d")).unwrap(), Some(3));
    let mut seen = BTreeMap::new();
    for v in 0..4 {
        seen.insert(g.original_id(v).unwrap(), v);
    }
    assert_eq!(seen.len(), 4);
    g.close().unwrap();
    // A damaged record is named by its offset ("c", the first record, with a flipped byte),
    // and a log cut short by what it holds.
    let logged = std::fs::read(&log).unwrap();
    let mut bad = logged.clone();
    bad[9] ^= 1;
    std::fs::write(&log, &bad).unwrap();
    let e = WritableGraph::open(&dir, &opts()).err().unwrap().to_string();
    let want =
        format!("names 0 added vertices but the graph has 2 (a damaged record at byte 0 of {})", bad.len());
    assert!(e.contains("ids.log") && e.contains(&want), "{e}");
    std::fs::write(&log, &logged[..good.len()]).unwrap();
    let e = WritableGraph::open(&dir, &opts()).err().unwrap().to_string();
    let want =
        format!("names 1 added vertices but the graph has 2 (its {} bytes hold no more records)", good.len());
    assert!(e.contains(&want), "{e}");
}

/// Under durability `none` the names a batch adds are written to the id log before its frame
/// but not fsynced, so a crash can keep the frame and lose the names. Recovery then drops that
/// batch and every later one, as a torn tail it reports, instead of leaving a graph that does
/// not open. Under a durable mode the names are fsynced first: missing ones are damage, an error.
#[test]
fn a_batch_whose_names_a_crash_lost_under_durability_none_is_dropped_on_reopen() {
    for durability in [Durability::None, Durability::PerBatch] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("g");
        build(&dir, IdMap::Strings(vec!["a".into(), "b".into()]), 2, &[(0, 1)]);
        let write = WriteOptions { durability, ..opts() };
        let g = WritableGraph::open(&dir, &write).unwrap();
        let log = dir.join(ocgraph_core::update::ids_log::IDS_LOG);
        g.add_edges_by_id(&[(s("a"), s("c"))], None).unwrap(); // batch 1 names c (vertex 2)
        let named_c = std::fs::metadata(&log).unwrap().len();
        g.remove_edges_by_id(&[(s("a"), s("b"))]).unwrap(); // batch 2 names nothing
        g.add_edges_by_id(&[(s("c"), s("d"))], None).unwrap(); // batch 3 names d (vertex 3)
        g.add_edges_by_id(&[(s("d"), s("a"))], None).unwrap(); // batch 4 names nothing
        drop(g); // no close, which would sync the names and record the batches as durable
                 // The crash: every frame reached the disk, the record naming d did not.
        let f = std::fs::OpenOptions::new().write(true).open(&log).unwrap();
        f.set_len(named_c).unwrap();
        drop(f);
        if durability != Durability::None {
            let e = WritableGraph::open(&dir, &write).err().expect("refused").to_string();
            assert!(e.contains("ids.log") && e.contains("names 1 added vertices but the graph has 2"), "{e}");
            continue;
        }
        // A reader stops at the same batch and changes nothing.
        let view = GraphView::open(&dir, &Default::default()).unwrap();
        assert_eq!((view.num_vertices(), view.ids().unwrap().len()), (3, 3));
        drop(view);
        let g = WritableGraph::open(&dir, &write).unwrap();
        let why = g.recovery().dropped_tail().expect("reported");
        assert!(
            why.contains(
                "batch 3, written under durability none, adds vertices 3..4 that ids.log does not name"
            ),
            "{why}"
        );
        assert_eq!(g.num_vertices(), 3);
        assert_eq!(g.vertex_of(&s("d")).unwrap(), None);
        let mut model: BTreeSet<_> = [pair(&s("a"), &s("c"))].into_iter().collect();
        assert_eq!(named_edges(&g), model);
        // The next batch takes the dropped one's number and names its vertex anew.
        g.add_edges_by_id(&[(s("e"), s("a"))], None).unwrap();
        model.insert(pair(&s("a"), &s("e")));
        assert_eq!(g.vertex_of(&s("e")).unwrap(), Some(3));
        g.close().unwrap();
        let g = WritableGraph::open(&dir, &write).unwrap();
        assert_eq!(g.recovery().dropped_tail(), None);
        assert_eq!(named_edges(&g), model);
        g.close().unwrap();
        ocgraph_core::format::check_graph(&dir).unwrap();
    }
}

/// String ids are loaded whole and checked against their checksum (a flipped byte would
/// otherwise rename a vertex); the update state's next file id must be past the levels in use
/// (a freeze would overwrite a live level).
#[test]
fn corrupted_ids_and_a_reused_file_id_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let names: Vec<String> = ["ann", "bob", "cat"].iter().map(|x| x.to_string()).collect();
    build(&dir, IdMap::Strings(names), 3, &[(0, 1), (1, 2)]);
    let good = std::fs::read(dir.join("ids.strings")).unwrap();
    let mut bad = good.clone();
    bad[0] = b'x';
    std::fs::write(dir.join("ids.strings"), &bad).unwrap();
    // Refused on open (a small graph's files are checked whole there; a larger graph's ids
    // when they are first read).
    let e = ocgraph_core::Graph::open(&dir, &ocgraph_core::OpenOptions::default()).expect_err("refused");
    assert!(e.to_string().contains("ids.strings") && e.to_string().contains("checksum mismatch"), "{e}");
    std::fs::write(dir.join("ids.strings"), &good).unwrap();

    let g = WritableGraph::open(&dir, &opts()).unwrap();
    g.add_edges(&[(0, 2)], None).unwrap();
    g.freeze().unwrap();
    g.close().unwrap();
    let mut m = ocgraph_core::format::Manifest::read(&dir).unwrap();
    let level = m.updates.as_ref().unwrap().levels[0].name.clone();
    m.updates.as_mut().unwrap().next_file_id = 1;
    m.write_atomic(&dir).unwrap();
    let e = WritableGraph::open(&dir, &opts()).err().expect("refused").to_string();
    assert!(e.contains("next_file_id 1 is not past the level file id"), "{level}: {e}");
}

/// A level whose checksums hold but whose flags or entries are wrong (flags of another shape
/// than the graph's, an operation byte that is neither remove nor add, a destination past the
/// vertex count) is refused on open, naming the level and the offset, instead of being read as
/// some other graph (an undirected graph's level flagged directed was read with a section it does not
/// have, and one flagged weighted read weights from past its entries).
#[test]
fn level_entries_are_checked_on_open() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, IdMap::Identity, 4, &[(0, 1), (1, 2)]);
    let g = WritableGraph::open(&dir, &opts()).unwrap();
    g.add_edges(&[(2, 3)], None).unwrap();
    g.freeze().unwrap();
    g.close().unwrap();
    let m = ocgraph_core::format::Manifest::read(&dir).unwrap();
    let name = m.updates.as_ref().unwrap().levels[0].name.clone();
    let path = dir.join("levels").join(&name);
    let good = std::fs::read(&path).unwrap();
    let u64_at = |b: &[u8], o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap()) as usize;
    // The out-side section: k, m, the k vertices (padded to 8), k + 1 offsets, the m dsts
    // (padded to 8), then the m operation bytes.
    let (k, entries) = (u64_at(&good, 64), u64_at(&good, 72));
    let vertices = 80;
    let dsts = vertices + (k * 4).div_ceil(8) * 8 + (k + 1) * 8;
    let ops = dsts + (entries * 4).div_ceil(8) * 8;
    let flags = [(12, 2u8, "level flags 0x2, but the graph is undirected and unweighted (flags 0x0)")];
    let more_flags = [(12, 1u8, "level flags 0x1"), (12, 4u8, "level flags 0x4")];
    let entries = [(ops, 7u8, "operation byte 7"), (dsts, 9u8, "destination 9")];
    for (at, value, want) in flags.into_iter().chain(more_flags).chain(entries) {
        let mut b = good.clone();
        b[at] = value;
        let data_end = u64_at(&b, 40);
        let crc = crc32c::crc32c_append(crc32c::crc32c(&b[..32]), &b[36..data_end]);
        b[32..36].copy_from_slice(&crc.to_le_bytes());
        std::fs::write(&path, &b).unwrap();
        let mut edited = m.clone();
        edited.updates.as_mut().unwrap().levels[0].crc32c = crc;
        edited.write_atomic(&dir).unwrap();
        let e = WritableGraph::open(&dir, &opts()).err().expect("refused").to_string();
        assert!(e.contains(&name) && e.contains(want), "{want}: {e}");
    }
    std::fs::write(&path, &good).unwrap();
    m.write_atomic(&dir).unwrap();
    WritableGraph::open(&dir, &opts()).unwrap().close().unwrap();
}

/// A manifest whose update state gives another vertex count than the base's with no level to
/// hold them is refused by every open and by `ocgraph check`, as the open for updates refused
/// it: a read-only open took the base as it was, and `check` passed.
#[test]
fn an_update_state_with_vertices_no_level_holds_is_refused_by_every_open() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, IdMap::Identity, 4, &[(0, 1), (1, 2)]);
    let mut m = ocgraph_core::format::Manifest::read(&dir).unwrap();
    m.updates = Some(ocgraph_core::format::UpdateState::fresh(9));
    m.write_atomic(&dir).unwrap();
    let want = "updates.num_vertices is 9, but the base and levels hold 4 vertices at the checkpoint";
    let e = GraphView::open(&dir, &ocgraph_core::OpenOptions::default()).err().expect("refused").to_string();
    assert!(e.contains(want), "{e}");
    // `ocgraph check` verifies the updates of a graph that `has_updates`.
    assert!(ocgraph_core::has_updates(&dir).unwrap());
    m.updates = Some(ocgraph_core::format::UpdateState::fresh(4));
    m.write_atomic(&dir).unwrap();
    assert_eq!(GraphView::open(&dir, &ocgraph_core::OpenOptions::default()).unwrap().num_vertices(), 4);
}

/// Vertices added without names through `update` (what `ocgraph stream` applies for a `+v n`
/// line) are refused on a relabelled graph, as `add_vertices` refuses them: committed, they left
/// an id log naming fewer vertices than the graph had, and the graph no longer opened.
#[test]
fn unnamed_vertices_are_refused_by_update_on_relabelled_graphs() {
    use ocgraph_core::update::WalItem;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let names = ["a", "b", "c"].map(String::from).to_vec();
    build(&dir, IdMap::Strings(names), 3, &[(0, 1), (1, 2)]);
    let g = WritableGraph::open(&dir, &opts()).unwrap();
    let items = [WalItem::AddEdge { src: 0, dst: 2, weight: 1.0 }, WalItem::AddVertices { count: 2 }];
    let e = g.update(&items).expect_err("refused").to_string();
    assert!(e.contains("keeps original ids"), "{e}");
    assert_eq!(g.num_vertices(), 3);
    // Batches without vertex additions go through.
    g.update(&items[..1]).unwrap();
    g.close().unwrap();
    let g = WritableGraph::open(&dir, &opts()).unwrap();
    assert_eq!(g.num_vertices(), 3);
    assert!(named_edges(&g).contains(&pair(&s("a"), &s("c"))));
}

#[test]
fn a_reader_keeps_the_names_of_its_snapshot_across_a_compaction() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    build(&dir, IdMap::Strings(["ann", "bob", "cat"].map(String::from).to_vec()), 3, &[(0, 1), (1, 2)]);
    let g = WritableGraph::open(&dir, &opts()).unwrap();
    g.add_edges_by_id(&[(s("cat"), s("dan"))], None).unwrap();
    let reader = GraphView::open(&dir, &Default::default()).unwrap();
    // The compaction rewrites the log for its new base (which names dan); the reader asks
    // for its ids only after it.
    g.compact().unwrap();
    g.add_edges_by_id(&[(s("eve"), s("ann"))], None).unwrap();
    let ids = reader.ids().unwrap();
    assert_eq!(ids.len(), 4, "the reader's snapshot has 4 vertices");
    assert_eq!(ids.original(3), s("dan"));
    assert_eq!(ids.original(0), s("ann"));
    assert_eq!(ids.vertex(&s("dan")), Some(3));
    assert_eq!(ids.vertex(&s("eve")), None);
    g.close().unwrap();
    let ids = GraphView::open(&dir, &Default::default()).unwrap().ids().unwrap();
    assert_eq!((ids.len(), ids.original(4)), (5, s("eve")));
}
