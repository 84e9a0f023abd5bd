//! Kernels on graphs whose adjacency files have compressed copies (`ocgraph layout compress`),
//! read through a buffer pool far smaller than the graph: BFS, SSSP, WCC, PageRank and the
//! triangle count give the same results as on the plain copy of the same graph (BFS depths
//! also against a reference BFS), with fewer bytes read; a corrupted or truncated compressed
//! file is refused by `check_graph` and on open, and a corrupted block fails the read that
//! decodes it with an error naming the file.

use std::path::Path;

use crate::common::{bfs_distances, random_graph, restamp, TestGraph};
use ocgraph_algo::{bfs, pagerank, sssp, triangle_count, wcc, PageRankOptions};
use ocgraph_core::format::{check_graph, FileRole};
use ocgraph_core::ingest::{
    compress_adjacency, remove_compressed, BuildOptions, GraphBuilder, IdMap, NoProgress,
};
use ocgraph_core::page::BackendKind;
use ocgraph_core::{Adjacency, Graph, OpenOptions};

/// Writes `t` as a stored graph at `dir`.
fn store(t: &TestGraph, dir: &Path) {
    let o = BuildOptions { directed: t.directed, ..BuildOptions::default() };
    let mut b = GraphBuilder::new(dir, o).unwrap();
    b.reserve_vertices(t.n as u64);
    let s: Vec<u32> = t.edges.iter().map(|e| e.0).collect();
    let d: Vec<u32> = t.edges.iter().map(|e| e.1).collect();
    let w: Vec<f32> = t.edges.iter().map(|e| e.2).collect();
    b.push(&s, &d, t.weighted.then_some(&w[..])).unwrap();
    b.finish(IdMap::Identity, &NoProgress).unwrap();
}

/// Copies the graph directory `from` to `to` (a flat directory of files).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// Opens `dir` with a pool of `capacity` bytes of `page_size` frames.
fn open_pool(dir: &Path, capacity: u64, page_size: usize) -> ocgraph_core::Result<Graph> {
    let backend = BackendKind::Pool { capacity, page_size, policy: "clock".into() };
    Graph::open(dir, &OpenOptions { backend })
}

/// Every kernel's results on `g`, and the bytes its pool read for them.
struct Results {
    depth: Vec<u32>,
    dist: Vec<f64>,
    comp: Vec<u32>,
    rank: Vec<f64>,
    triangles: u64,
    bytes_read: u64,
}

fn run_all(g: &Graph) -> Results {
    g.reset_io_stats();
    let (out, in_) = (g.out(), g.in_());
    let r = Results {
        depth: bfs(&out, &in_, 0).unwrap().depth,
        dist: sssp(&out, 0, None).unwrap(),
        comp: wcc(&out, &in_).unwrap(),
        rank: pagerank(&out, &in_, &PageRankOptions { max_iter: 10, tol: 0.0, ..PageRankOptions::default() })
            .unwrap()
            .scores,
        triangles: triangle_count(&out, &in_).unwrap(),
        bytes_read: 0,
    };
    Results { bytes_read: g.io_stats().bytes_read, ..r }
}

fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y || (x - y).abs() <= 1e-9 * x.abs().max(1.0))
}

#[test]
fn kernels_agree_on_compressed_and_plain_graphs() {
    for (directed, weighted) in [(false, false), (true, false), (false, true), (true, true)] {
        let t = random_graph(20_000, 150_000, directed, weighted, 7 + directed as u64 * 2 + weighted as u64);
        let tmp = tempfile::tempdir().unwrap();
        let (plain, comp) = (tmp.path().join("plain"), tmp.path().join("comp"));
        store(&t, &plain);
        copy_dir(&plain, &comp);
        let report = compress_adjacency(&comp, 16 << 10, &NoProgress).unwrap();
        assert!(report.stored_bytes < report.plain_bytes, "{directed} {weighted}: {report:?}");
        check_graph(&comp).unwrap();
        let graph_bytes: u64 = Graph::open(&plain, &OpenOptions::default())
            .unwrap()
            .manifest()
            .files
            .values()
            .map(|f| f.padded_len())
            .sum();
        // 4 KiB frames (a 16 KiB block fills 4 of them) and 64 KiB frames (4 blocks a frame).
        for page_size in [4096usize, 65536] {
            let capacity = (graph_bytes / 20).max(8 * page_size as u64);
            let want = run_all(&open_pool(&plain, capacity, page_size).unwrap());
            let got = run_all(&open_pool(&comp, capacity, page_size).unwrap());
            let case = format!("directed {directed}, weighted {weighted}, pages of {page_size}");
            let reference: Vec<u32> =
                bfs_distances(&t, 0).iter().map(|d| d.map_or(u32::MAX, |d| d as u32)).collect();
            assert_eq!(want.depth, reference, "{case}: plain BFS");
            assert_eq!(got.depth, want.depth, "{case}: BFS");
            assert!(close(&got.dist, &want.dist), "{case}: SSSP");
            assert_eq!(got.comp, want.comp, "{case}: WCC");
            assert!(close(&got.rank, &want.rank), "{case}: PageRank");
            assert_eq!(got.triangles, want.triangles, "{case}: triangles");
            assert!(
                got.bytes_read < want.bytes_read,
                "{case}: read {} vs {}",
                got.bytes_read,
                want.bytes_read
            );
        }
        assert!(remove_compressed(&comp).unwrap());
        assert!(!comp.join("out.neighbors.lz4").exists());
        assert!(!Graph::open(&comp, &OpenOptions::default()).unwrap().manifest().is_compressed());
    }
}

/// A compressed graph of `dir`, its compressed out-lists' path and data length.
fn compressed_graph(dir: &Path) -> (std::path::PathBuf, u64) {
    store(&random_graph(5_000, 40_000, false, false, 3), dir);
    compress_adjacency(dir, 4096, &NoProgress).unwrap();
    let m = Graph::open(dir, &OpenOptions::default()).unwrap().manifest().clone();
    let len = m.file(FileRole::OutNeighborsLz4).unwrap().len;
    (dir.join("out.neighbors.lz4"), len)
}

#[test]
fn corrupted_or_truncated_copies_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let (path, len) = compressed_graph(&dir);
    let original = std::fs::read(&path).unwrap();

    // A byte of the index: refused on open (the file's checksum; of a graph too large to be
    // checked whole on open, the index's own) and by check.
    let mut bad = original.clone();
    bad[64 + 3] ^= 0x10;
    std::fs::write(&path, &bad).unwrap();
    let err = open_pool(&dir, 1 << 20, 4096).unwrap_err().to_string();
    assert!(err.contains("out.neighbors.lz4") && err.contains("checksum mismatch"), "{err}");
    assert!(err.contains("`ocgraph layout remove-compress`"), "{err}");
    let manifest = std::fs::read(dir.join("manifest")).unwrap();
    restamp(&dir, "out.neighbors.lz4");
    let err = open_pool(&dir, 1 << 20, 4096).unwrap_err().to_string();
    assert!(err.contains("out.neighbors.lz4") && err.contains("index checksum"), "{err}");
    assert!(check_graph(&dir).is_err());
    std::fs::write(dir.join("manifest"), &manifest).unwrap();

    // Truncated: refused on open (its size) and by check.
    std::fs::write(&path, &original[..original.len() - 4096]).unwrap();
    let err = open_pool(&dir, 1 << 20, 4096).unwrap_err().to_string();
    assert!(err.contains("out.neighbors.lz4") && err.contains("truncated"), "{err}");
    assert!(check_graph(&dir).is_err());

    // A byte of the last block's data: open and check name the file; of a graph too large to
    // be checked whole on open, a kernel reading it fails with an error naming the file instead
    // of returning wrong results.
    let mut bad = original.clone();
    bad[len as usize - 2] ^= 0x01;
    std::fs::write(&path, &bad).unwrap();
    let err = check_graph(&dir).unwrap_err().to_string();
    assert!(err.contains("out.neighbors.lz4"), "{err}");
    let err = open_pool(&dir, 1 << 20, 4096).unwrap_err().to_string();
    assert!(err.contains("out.neighbors.lz4") && err.contains("checksum mismatch"), "{err}");
    restamp(&dir, "out.neighbors.lz4");
    let g = open_pool(&dir, 1 << 20, 4096).unwrap();
    let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| wcc(&g.out(), &g.in_())));
    let msg = read.expect_err("the corrupted block is read");
    let msg = msg.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("out.neighbors.lz4") && msg.contains("checksum mismatch"), "{msg}");
    // Inside the CLI's and Python's scope it is a format error (the bytes were read; they are
    // corrupted), not an I/O error.
    let err = ocgraph_core::page::catch_read_errors(|| wcc(&g.out(), &g.in_())).expect_err("corrupted");
    assert_eq!(err.kind(), ocgraph_core::error::ErrorKind::Format, "{err}");

    // Restored, it checks again.
    std::fs::write(&path, &original).unwrap();
    std::fs::write(dir.join("manifest"), &manifest).unwrap();
    check_graph(&dir).unwrap();
}

#[test]
fn updates_pending_and_packed_graphs_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    store(&random_graph(100, 300, true, false, 5), &dir);
    let packed = tmp.path().join("p");
    ocgraph_core::ingest::pack(&dir, &packed, false, &NoProgress).unwrap();
    let err = compress_adjacency(&packed, 65536, &NoProgress).unwrap_err().to_string();
    assert!(err.contains("packed"), "{err}");
    let err = compress_adjacency(&dir, 5000, &NoProgress).unwrap_err().to_string();
    assert!(err.contains("multiple of 4096"), "{err}");
    let g = ocgraph_core::update::WritableGraph::open(&dir, &Default::default()).unwrap();
    g.add_edges(&[(1, 2)], None).unwrap();
    drop(g);
    let err = compress_adjacency(&dir, 65536, &NoProgress).unwrap_err().to_string();
    assert!(err.contains("ocgraph compact"), "{err}");
}

#[test]
fn compaction_rebuilds_the_compressed_copies_with_their_block_size() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let t = random_graph(4_000, 30_000, true, false, 11);
    store(&t, &dir);
    compress_adjacency(&dir, 8192, &NoProgress).unwrap();
    let w = ocgraph_core::update::WritableGraph::open(&dir, &Default::default()).unwrap();
    w.add_edges(&[(0, 3_999), (5, 7), (3_998, 1)], None).unwrap();
    w.remove_edges(&[(t.edges[0].0, t.edges[0].1)]).unwrap();
    w.compact().unwrap();
    w.close().unwrap();
    check_graph(&dir).unwrap();
    let g = Graph::open(&dir, &OpenOptions::default()).unwrap();
    let m = g.manifest().clone();
    assert!(m.is_compressed());
    // Directed and unweighted: both lists have copies.
    for (plain, copy) in [FileRole::COMPRESSIBLE[0], FileRole::COMPRESSIBLE[2]] {
        let (p, c) = (m.file(plain).unwrap(), m.file(copy).unwrap());
        let path = m.data_path(&dir).join(copy.file_name());
        let index = ocgraph_core::format::compressed::BlockIndex::read(&path, c.len, p.padded_len()).unwrap();
        assert_eq!(index.block_size, 8192, "{}", copy.file_name());
    }
    // The pool reads the new copies, mmap the new plain files: the same results.
    let want = run_all(&g);
    let got = run_all(&open_pool(&dir, 64 << 10, 4096).unwrap());
    assert_eq!(got.depth, want.depth);
    assert!(close(&got.dist, &want.dist));
    assert_eq!(got.comp, want.comp);
    assert!(close(&got.rank, &want.rank));
    assert_eq!(got.triangles, want.triangles);
    assert!(
        g.out().neighbors(0).contains(&3_999) && !g.out().neighbors(t.edges[0].0).contains(&t.edges[0].1)
    );
}
