//! The page backends through `Graph`: neighbour lists, weights and the chunked scans of every
//! backend and policy agree with the adjacency lists the graph was written from.

use std::collections::BTreeMap;
use std::path::Path;

use ocgraph_core::format::{check_graph, FileRole, GraphWriter, IdMapKind, Manifest};
use ocgraph_core::ingest::{pack, NoProgress};
use ocgraph_core::page::policy::POLICY_NAMES;
use ocgraph_core::page::BackendKind;
use ocgraph_core::{Adjacency, Graph, OpenOptions, Vertex};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Reference adjacency: sorted neighbour lists with weights.
type Lists = Vec<Vec<(Vertex, f32)>>;

/// A random directed graph with `n` vertices: most degrees small, a few lists long enough to
/// span several pages, some vertices without arcs.
fn random_lists(n: usize, seed: u64) -> Lists {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let d = match rng.gen_range(0..100) {
                0 => rng.gen_range(1000..5000),
                1..=10 => 0,
                _ => rng.gen_range(1..40),
            };
            let mut l: Vec<Vertex> = (0..d).map(|_| rng.gen_range(0..n as Vertex)).collect();
            l.sort_unstable();
            l.dedup();
            l.into_iter().map(|v| (v, rng.gen_range(0.0..10.0f32))).collect()
        })
        .collect()
}

/// The transposed lists (in-edges), sorted.
fn transpose(lists: &Lists) -> Lists {
    let mut t: Lists = vec![Vec::new(); lists.len()];
    for (u, l) in lists.iter().enumerate() {
        for &(v, w) in l {
            t[v as usize].push((u as Vertex, w));
        }
    }
    t
}

fn write_csr(w: &mut GraphWriter, lists: &Lists, roles: [FileRole; 3], weighted: bool) {
    let mut offsets = vec![0u64];
    let (mut nbrs, mut wts) = (Vec::new(), Vec::new());
    for l in lists {
        nbrs.extend(l.iter().map(|p| p.0));
        wts.extend(l.iter().map(|p| p.1));
        offsets.push(nbrs.len() as u64);
    }
    w.write_slice(roles[0], &offsets).unwrap();
    w.write_slice(roles[1], &nbrs).unwrap();
    if weighted {
        w.write_slice(roles[2], &wts).unwrap();
    }
}

/// Writes `lists` as a directed graph at `dir` with the format's `GraphWriter`.
fn write_graph(dir: &Path, lists: &Lists, weighted: bool) {
    let mut w = GraphWriter::create(dir, false).unwrap();
    write_csr(&mut w, lists, [FileRole::OutOffsets, FileRole::OutNeighbors, FileRole::OutWeights], weighted);
    write_csr(
        &mut w,
        &transpose(lists),
        [FileRole::InOffsets, FileRole::InNeighbors, FileRole::InWeights],
        weighted,
    );
    let arcs: u64 = lists.iter().map(|l| l.len() as u64).sum();
    w.commit(manifest(lists.len() as u64, arcs, true, weighted)).unwrap();
}

/// The manifest of a graph of `n` vertices and `arcs` arcs with identity ids (the writer fills
/// in the files and the weight range).
fn manifest(n: u64, arcs: u64, directed: bool, weighted: bool) -> Manifest {
    Manifest {
        num_vertices: n,
        num_edges: if directed { arcs } else { arcs / 2 },
        num_arcs: arcs,
        directed,
        weighted,
        id_width: 4,
        id_map: IdMapKind::Identity,
        files: BTreeMap::new(),
        created_by: "page_graph test".into(),
        source: String::new(),
        data_dir: None,
        updates: None,
        grid: None,
        weight_range: None,
    }
}

fn backends() -> Vec<BackendKind> {
    let mut b = vec![BackendKind::Mmap { advice: ocgraph_core::page::Advice::Normal }];
    // Every policy with 2, 5 and 1000 frames of 4 KiB, and with 5 frames of 16 KiB (a page
    // spanning several lists' pieces).
    let shapes = [(4096usize, 2u64), (4096, 5), (4096, 1000), (16384, 5)];
    for policy in POLICY_NAMES {
        for (page_size, frames) in shapes {
            b.push(BackendKind::Pool {
                capacity: frames * page_size as u64,
                page_size,
                policy: policy.into(),
            });
        }
    }
    b
}

fn check_direction(adj: &impl Adjacency, lists: &Lists, weighted: bool, seed: u64) {
    let n = lists.len() as Vertex;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for _ in 0..200 {
        let v = rng.gen_range(0..n);
        let want: Vec<Vertex> = lists[v as usize].iter().map(|p| p.0).collect();
        assert_eq!(&*adj.neighbors(v), &want[..], "neighbours of {v}");
        assert_eq!(adj.degree(v), want.len());
        match adj.weights(v) {
            Some(w) => assert!(weighted && w.iter().zip(&lists[v as usize]).all(|(a, b)| *a == b.1)),
            None => assert!(!weighted),
        }
    }
    // Whole range and random sub-ranges.
    let mut ranges = Vec::new();
    ranges.push(0..n);
    for _ in 0..5 {
        let a = rng.gen_range(0..n);
        ranges.push(a..rng.gen_range(a..=n));
    }
    for r in ranges {
        let mut next = r.start;
        adj.for_each_in_range(r.clone(), |v, nb| {
            assert_eq!(v, next);
            next += 1;
            assert!(nb.iter().eq(lists[v as usize].iter().map(|p| &p.0)), "scan neighbours of {v}");
        });
        assert_eq!(next, r.end);
        let mut count = 0;
        adj.for_each_weighted_in_range(r.clone(), |v, nb, w| {
            count += 1;
            let l = &lists[v as usize];
            assert!(nb.iter().eq(l.iter().map(|p| &p.0)));
            assert_eq!(w.len(), l.len());
            assert!(w.iter().zip(l).all(|(a, b)| *a == if weighted { b.1 } else { 1.0 }));
        });
        assert_eq!(count, r.len());
        let mut next = r.start;
        adj.for_each_degree_in_range(r.clone(), |v, d| {
            assert_eq!((v, d), (next, lists[v as usize].len()), "degree scan");
            next += 1;
        });
        assert_eq!(next, r.end);
        // The selective scan visits exactly the selected vertices, with their lists.
        let mut seen = Vec::new();
        adj.for_each_selected_in_range(
            r.clone(),
            |v| v % 3 != 1,
            |v, nb| {
                assert!(nb.iter().eq(lists[v as usize].iter().map(|p| &p.0)), "selected neighbours of {v}");
                seen.push(v);
            },
        );
        assert!(seen.iter().copied().eq(r.clone().filter(|v| v % 3 != 1)));
    }
    // Degree sums and lists of unsorted (with repeats), then sorted vertices.
    let mut vs: Vec<Vertex> = (0..300).map(|_| rng.gen_range(0..n)).collect();
    for _ in 0..2 {
        let want: u64 = vs.iter().map(|&v| lists[v as usize].len() as u64).sum();
        assert_eq!(adj.estimated_degree_sum(&vs), want);
        let mut seen = Vec::new();
        adj.for_each_of(&vs, |v, nb| {
            assert!(nb.iter().eq(lists[v as usize].iter().map(|p| &p.0)), "listed neighbours of {v}");
            seen.push(v);
        });
        assert_eq!(seen, vs);
        let mut seen = Vec::new();
        adj.for_each_weighted_of(&vs, |v, nb, w| {
            let l = &lists[v as usize];
            assert!(nb.iter().eq(l.iter().map(|p| &p.0)), "listed weighted neighbours of {v}");
            assert!(
                w.len() == l.len() && w.iter().zip(l).all(|(a, b)| *a == if weighted { b.1 } else { 1.0 })
            );
            seen.push(v);
        });
        assert_eq!(seen, vs);
        vs.sort_unstable();
    }
}

/// The first and last neighbours of a few vertices, read and peeked: a peek
/// (`cached_neighbors_part`) gives the same part or, on a pool whose pages were evicted,
/// nothing; right after a read in a pool that holds the whole graph (or on mmap) it gives it.
fn check_parts(g: &Graph, lists: &Lists, backend: &BackendKind) {
    let d = g.out();
    let holds_all = match backend {
        BackendKind::Pool { capacity, page_size, .. } => *capacity >= 1000 * *page_size as u64,
        BackendKind::Mmap { .. } => true,
    };
    for v in [0, 17, 1234, 2999] {
        let all: Vec<Vertex> = lists[v as usize].iter().map(|p| p.0).collect();
        for k in [1, 5, 100] {
            let k_ = all.len().min(k);
            for (last, want) in [(false, &all[..k_]), (true, &all[all.len() - k_..])] {
                assert_eq!(&*d.neighbors_part(v, k, last), want, "part of {v}");
                match d.cached_neighbors_part(v, k, last) {
                    Some(got) => assert_eq!(got, want, "peeked part of {v}"),
                    None => assert!(!holds_all, "{v}'s part was just read: {backend:?}"),
                }
            }
        }
    }
}

#[test]
fn every_backend_reads_the_graph_it_was_written_from() {
    let tmp = tempfile::tempdir().unwrap();
    let lists = random_lists(3000, 1);
    let rev = transpose(&lists);
    for weighted in [true, false] {
        let dir = tmp.path().join(format!("g{weighted}"));
        write_graph(&dir, &lists, weighted);
        for backend in backends() {
            let g = Graph::open(&dir, &OpenOptions { backend: backend.clone() }).unwrap();
            check_direction(&g.out(), &lists, weighted, 3);
            check_direction(&g.in_(), &rev, weighted, 4);
            check_parts(&g, &lists, &backend);
            // The same reads with list-start prediction (companion reads on the pool).
            g.predict_list_starts(true);
            check_direction(&g.out(), &lists, weighted, 5);
            check_direction(&g.in_(), &rev, weighted, 6);
            g.predict_list_starts(false);
            let s = g.io_stats();
            assert!(s.page_requests > 0, "{backend:?}");
            match backend {
                BackendKind::Pool { capacity, .. } => {
                    assert_eq!(s.hits + s.misses, s.page_requests);
                    assert!(s.bytes_read > 0);
                    assert_eq!(g.memory_budget(), Some(capacity), "the pool's capacity");
                }
                BackendKind::Mmap { .. } => assert_eq!(g.memory_budget(), None),
            }
        }
    }
}

/// Whether the pool can read with companions in `dir`: O_DIRECT there, and io_uring allowed.
fn companions_possible(dir: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let probe = dir.join("direct-probe");
    std::fs::write(&probe, [0u8; 4096]).unwrap();
    let direct = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_DIRECT).open(&probe).is_ok();
    direct && io_uring::IoUring::new(2).is_ok()
}

#[test]
fn predicted_list_starts_come_with_their_bounds_reads() {
    // Neighbour lists of random vertices, each read alone (as online queries do), in a pool of
    // 8 frames: with prediction on, once the samples are in, a bounds miss brings the page of
    // the list (a prefetch, used by the list read), and the lists are the same. Degrees 1 to 6,
    // as in a road network, where the average degree between two samples places a list well.
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let n = 20_000;
    let lists: Lists = (0..n)
        .map(|_| {
            let mut l: Vec<Vertex> =
                (0..rng.gen_range(1..=6)).map(|_| rng.gen_range(0..n as Vertex)).collect();
            l.sort_unstable();
            l.dedup();
            l.into_iter().map(|v| (v, 1.0)).collect()
        })
        .collect();
    let dir = tmp.path().join("g");
    write_graph(&dir, &lists, false);
    let backend = BackendKind::Pool { capacity: 8 * 4096, page_size: 4096, policy: "clock".into() };
    let g = Graph::open(&dir, &OpenOptions { backend }).unwrap();
    // No read-ahead: every prefetch below is a companion read.
    g.out().advise_files(ocgraph_core::page::Advice::Random);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    let mut run = |g: &Graph| {
        g.reset_io_stats();
        for _ in 0..3000 {
            let v = rng.gen_range(0..lists.len() as Vertex);
            let want: Vec<Vertex> = lists[v as usize].iter().map(|p| p.0).collect();
            assert_eq!(&*g.out().neighbors(v), &want[..], "neighbours of {v}");
        }
        g.io_stats()
    };
    let off = run(&g);
    assert_eq!(off.prefetches_issued, 0, "{off:?}");
    g.predict_list_starts(true);
    let on = run(&g);
    g.predict_list_starts(false);
    if companions_possible(tmp.path()) {
        assert!(on.prefetches_used * 10 > on.prefetches_issued * 9, "{on:?}");
        assert!(on.misses < off.misses * 3 / 4, "{on:?} against {off:?}");
    } else {
        assert_eq!(on.prefetches_issued, 0, "{on:?}");
    }
}

#[test]
fn partition_cuts_report_the_pages_two_partitions_share() {
    // The pages a cut at vertex c shares: the offsets entry c (read by both sides), and where
    // c's list (and weights) start, the page holding it unless the list starts on a page
    // boundary. Counted independently from the lists, against the pool's `shared_pages`.
    let tmp = tempfile::tempdir().unwrap();
    let lists = random_lists(3000, 5);
    let cuts: Vec<Vertex> = vec![0, 1, 17, 600, 1234, 1235, 2999, 3000, 5000];
    for weighted in [true, false] {
        let dir = tmp.path().join(format!("g{weighted}"));
        write_graph(&dir, &lists, weighted);
        for page in [4096u64, 16384] {
            let mut bounds = std::collections::BTreeSet::new();
            let mut starts = std::collections::BTreeSet::new();
            for &c in cuts.iter().filter(|&&c| c > 0 && (c as usize) < lists.len()) {
                bounds.insert(8 * c as u64 / page);
                let pos = 4 * lists[..c as usize].iter().map(|l| l.len() as u64).sum::<u64>();
                if pos % page != 0 {
                    starts.insert(pos / page);
                }
            }
            let want = (bounds.len() + starts.len() * (1 + usize::from(weighted))) as u64;
            let backend =
                BackendKind::Pool { capacity: 64 * page, page_size: page as usize, policy: "gac".into() };
            let g = Graph::open(&dir, &OpenOptions { backend }).unwrap();
            g.out().mark_partition_cuts(&cuts);
            assert_eq!(g.io_stats().shared_pages, want, "weighted {weighted}, page {page}");
        }
        // Neither mmap nor a pool whose policy does not adjust for shared pages wants them:
        // the cut vertices' bounds are not even read.
        let clock = BackendKind::Pool { capacity: 64 * 4096, page_size: 4096, policy: "clock".into() };
        for backend in [BackendKind::Mmap { advice: ocgraph_core::page::Advice::Normal }, clock] {
            let g = Graph::open(&dir, &OpenOptions { backend: backend.clone() }).unwrap();
            let before = g.io_stats().page_requests;
            g.out().mark_partition_cuts(&cuts);
            let s = g.io_stats();
            assert_eq!((s.shared_pages, s.page_requests), (0, before), "{backend:?}");
        }
    }
}

#[test]
fn concurrent_scans_agree() {
    let tmp = tempfile::tempdir().unwrap();
    let lists = random_lists(4000, 2);
    let dir = tmp.path().join("g");
    write_graph(&dir, &lists, true);
    for policy in POLICY_NAMES {
        // Two pins per scanning thread (neighbours + weights) fit in 16 frames.
        let backend = BackendKind::Pool { capacity: 16 * 4096, page_size: 4096, policy: policy.into() };
        let g = Graph::open(&dir, &OpenOptions { backend }).unwrap();
        let sums: Vec<(u64, f64)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8u32)
                .map(|t| {
                    let g = &g;
                    s.spawn(move || {
                        let (mut a, mut b) = (0u64, 0f64);
                        g.out().for_each_weighted_in_range(t * 500..(t + 1) * 500, |v, nb, w| {
                            a += nb.iter().map(|&x| x as u64 ^ v as u64).sum::<u64>();
                            b += w.iter().map(|&x| x as f64).sum::<f64>();
                        });
                        (a, b)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (t, (a, b)) in sums.into_iter().enumerate() {
            let r = t * 500..(t + 1) * 500;
            let wa: u64 = r.clone().flat_map(|v| lists[v].iter().map(move |p| p.0 as u64 ^ v as u64)).sum();
            let wb: f64 = r.flat_map(|v| lists[v].iter().map(|p| p.1 as f64)).sum();
            assert_eq!(a, wa, "{policy} thread {t}");
            assert!((b - wb).abs() < 1e-6 * wb.max(1.0), "{policy} thread {t}");
        }
    }
}

#[test]
fn a_scan_reads_each_page_once() {
    let tmp = tempfile::tempdir().unwrap();
    let lists = random_lists(20_000, 5);
    let dir = tmp.path().join("g");
    write_graph(&dir, &lists, false);
    let backend = BackendKind::Pool { capacity: 64 << 20, page_size: 4096, policy: "clock".into() };
    let g = Graph::open(&dir, &OpenOptions { backend }).unwrap();
    g.reset_io_stats();
    let mut total = 0u64;
    g.out().for_each_in_range(0..20_000, |_, nb| total += nb.len() as u64);
    assert_eq!(total, g.num_arcs());
    let s = g.io_stats();
    let m = g.manifest();
    let pages = |r: FileRole| m.file(r).unwrap().padded_len().div_ceil(4096);
    // Every page is loaded at most once (open() already read the first offsets pages, with
    // read-ahead, and the last one).
    let want = pages(FileRole::OutOffsets) + pages(FileRole::OutNeighbors) - 2;
    assert!(s.misses + s.prefetches_issued <= want, "{s:?}");
    assert_eq!(s.bytes_read, (s.misses + s.prefetches_issued) * 4096);
    assert!(s.misses < want / 4, "read-ahead: {s:?}");
    assert_eq!(s.capacity_misses, 0);
    // Far fewer requests than two per vertex.
    assert!(s.page_requests < 20_000 / 4, "{s:?}");
}

#[test]
fn packed_copies_read_the_lists_they_were_packed_from() {
    let tmp = tempfile::tempdir().unwrap();
    let lists = random_lists(3000, 7);
    let rev = transpose(&lists);
    for weighted in [true, false] {
        let (plain, packed) =
            (tmp.path().join(format!("g{weighted}")), tmp.path().join(format!("p{weighted}")));
        write_graph(&plain, &lists, weighted);
        let r = pack(&plain, &packed, false, &NoProgress).unwrap();
        assert_eq!(r.arcs, 2 * g_arcs(&lists));
        assert!(r.packed_bytes < r.plain_bytes, "{r:?}");
        check_graph(&packed).unwrap();
        for backend in backends() {
            let g = Graph::open(&packed, &OpenOptions { backend: backend.clone() }).unwrap();
            assert!(g.out().is_packed() && g.manifest().is_packed());
            check_direction(&g.out(), &lists, weighted, 3);
            check_direction(&g.in_(), &rev, weighted, 4);
            check_parts(&g, &lists, &backend);
            // The same reads with list-start prediction (companion reads on the pool).
            g.predict_list_starts(true);
            check_direction(&g.out(), &lists, weighted, 5);
            check_direction(&g.in_(), &rev, weighted, 6);
            g.predict_list_starts(false);
        }
    }
    // Packing twice, or writing over an existing graph without `overwrite`, is refused.
    let packed = tmp.path().join("ptrue");
    assert!(pack(&packed, &tmp.path().join("again"), false, &NoProgress)
        .unwrap_err()
        .to_string()
        .contains("packed already"));
    assert!(pack(&tmp.path().join("gtrue"), &packed, false, &NoProgress).is_err());
}

fn g_arcs(lists: &Lists) -> u64 {
    lists.iter().map(|l| l.len() as u64).sum()
}

/// Writes a packed undirected graph of 3 vertices whose out-lists are `packed` with the byte
/// index `index` and the arc offsets `offsets`.
fn write_packed(dir: &Path, offsets: &[u64], packed: &[u8], index: &[u64]) {
    let mut w = GraphWriter::create(dir, true).unwrap();
    w.write_slice(FileRole::OutOffsets, offsets).unwrap();
    w.write_slice(FileRole::OutPacked, packed).unwrap();
    w.write_slice(FileRole::OutPackedIndex, index).unwrap();
    w.commit(manifest(offsets.len() as u64 - 1, *offsets.last().unwrap(), false, false)).unwrap();
}

#[test]
fn corrupted_packed_lists_are_found() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    // The path 0 - 1 - 2: lists [1], [0, 2], [1] as (count, zigzag first value, then for the
    // gap 2 a width byte 2 and its field): [1, 2], [2, 1, 2, 2], [1, 1].
    let good = [1, 2, 2, 1, 2, 2, 1, 1];
    write_packed(&dir, &[0, 1, 3, 4], &good, &[0, 2, 6, 8]);
    check_graph(&dir).unwrap();
    let g = Graph::open(&dir, &OpenOptions::default()).unwrap();
    assert_eq!(&*g.out().neighbors(1), &[0, 2]);
    drop(g);
    let bad = |packed: &[u8], index: &[u64], offsets: &[u64], want: &str| {
        write_packed(&dir, offsets, packed, index);
        let e = check_graph(&dir).unwrap_err().to_string();
        assert!(e.contains(want) && e.contains("out.packed"), "{e}");
    };
    // A varint cut short, a count that disagrees with the offsets, a neighbour out of range.
    let cut = [1, 2, 2, 1, 2, 1, 1];
    bad(&cut, &[0, 2, 5, 7], &[0, 1, 3, 4], "vertex 1 does not decode (Truncated)");
    bad(&good, &[0, 2, 6, 8], &[0, 1, 2, 4], "vertex 1 has 2 neighbours packed, 1 in the offsets");
    bad(&[1, 2, 2, 1, 2, 2, 1, 2], &[0, 2, 6, 8], &[0, 1, 3, 4], "neighbour 3 of vertex 2 is out of range");
    // An index that does not end at the packed file's length is refused on open.
    write_packed(&dir, &[0, 1, 3, 4], &[1, 2, 2, 1, 2, 2, 1, 1, 0], &[0, 2, 6, 8]);
    let e = Graph::open(&dir, &OpenOptions::default()).unwrap_err().to_string();
    assert!(e.contains("out.packed_index") && e.contains("expected 0 to 9 bytes"), "{e}");
    // Reading a list that does not decode names the file and the vertex (reads of graph data
    // have no error path).
    write_packed(&dir, &[0, 1, 3, 4], &cut, &[0, 2, 5, 7]);
    let g = Graph::open(&dir, &OpenOptions::default()).unwrap();
    let e =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| g.out().neighbors(1).to_vec())).unwrap_err();
    let msg = e.downcast_ref::<String>().unwrap();
    assert!(msg.contains("corrupted packed list of vertex 1") && msg.contains("out.packed"), "{msg}");
}

#[test]
fn packed_manifests_are_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    write_packed(&dir, &[0, 1, 3, 4], &[1, 2, 2, 1, 2, 2, 1, 1], &[0, 2, 6, 8]);
    // Listing plain lists too makes the packed ones copies of them: plain lists of the wrong
    // size are refused on open, as is a dropped index.
    let mut m = Manifest::read(&dir).unwrap();
    let entry = m.files["out.packed"];
    m.files.insert("out.neighbors".into(), entry);
    m.write_atomic(&dir).unwrap();
    let e = Graph::open(&dir, &OpenOptions::default()).unwrap_err().to_string();
    assert!(e.contains("'out.neighbors' should hold 16 bytes for these counts, manifest says 8"), "{e}");
    m.files.remove("out.neighbors");
    m.files.remove("out.packed_index");
    m.write_atomic(&dir).unwrap();
    let e = Graph::open(&dir, &OpenOptions::default()).unwrap_err().to_string();
    assert!(e.contains("required file 'out.packed_index' is not listed"), "{e}");
}

/// A manifest listing a file its graph's shape has no use for (reverse lists of an undirected
/// graph, weights of an unweighted one, an id file of another id map) is refused on open: a
/// reader would ignore the file and return another graph than the one written.
#[test]
fn files_the_shape_does_not_use_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let lists: Lists = vec![vec![(1, 1.0)], vec![(2, 2.0)], vec![(0, 3.0)]];
    write_graph(&dir, &lists, true);
    Graph::open(&dir, &OpenOptions::default()).unwrap();
    let good = Manifest::read(&dir).unwrap();
    type Edit = fn(&mut Manifest);
    let cases: [(&str, Edit); 3] = [
        ("'in.neighbors' is listed in a graph that does not use it (undirected", |m| {
            m.directed = false;
        }),
        ("'in.weights' is listed in a graph that does not use it (directed, unweighted", |m| {
            m.weighted = false;
            m.weight_range = None;
        }),
        ("'ids.u64' is listed in a graph that does not use it", |m| {
            let e = m.files["out.offsets"];
            m.files.insert("ids.u64".into(), e);
        }),
    ];
    for (want, edit) in cases {
        let mut m = good.clone();
        edit(&mut m);
        m.write_atomic(&dir).unwrap();
        let e = Graph::open(&dir, &OpenOptions::default()).unwrap_err().to_string();
        assert!(e.contains(want), "{want}: {e}");
    }
    good.write_atomic(&dir).unwrap();
    check_graph(&dir).unwrap();
}
