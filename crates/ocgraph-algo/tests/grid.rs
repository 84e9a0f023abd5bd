//! The grid layout: every grid kernel (PageRank, WCC, SpMV) equals its CSR counterpart on
//! random directed, undirected and weighted graphs, with vertex counts that are not a multiple
//! of the block, through pools far smaller than the graph, compressed and not; compaction
//! rebuilds the grid; corrupted grid files are refused by `check` and on open.

use crate::common::{arb_graph, pool, random_graph, restamp, store, TestGraph};
use ocgraph_algo::{
    pagerank, pagerank_grid, spmv, spmv_grid, verify_pagerank, verify_spmv, wcc, wcc_grid, PageRankMethod,
    PageRankOptions,
};
use ocgraph_core::format::check_graph;
use ocgraph_core::format::grid::Codec;
use ocgraph_core::ingest::{build_grid, GridOptions, NoProgress};
use ocgraph_core::update::{WritableGraph, WriteOptions};
use ocgraph_core::{EdgeGrid, Graph, OpenOptions, Vertex};
use proptest::prelude::*;

fn grid_opts(cells: Option<u32>, codec: Codec) -> GridOptions {
    GridOptions { cells_per_side: cells, codec, memory: 1 << 16 }
}

fn close(a: &[f64], b: &[f64], tol: f64) -> Result<(), String> {
    if a.len() != b.len() {
        return Err(format!("{} values vs {}", a.len(), b.len()));
    }
    match (0..a.len()).find(|&i| (a[i] - b[i]).abs() > tol * (1.0 + b[i].abs())) {
        Some(i) => Err(format!("value {i}: {} vs {}", a[i], b[i])),
        None => Ok(()),
    }
}

/// Runs the three grid kernels on `g` and compares them with the CSR kernels on the same
/// graph and with the in-memory test graph's CSR.
fn compare(g: &Graph, t: &TestGraph) -> Result<(), String> {
    let grid = g.grid().ok_or("no grid")?;
    let (out, inn) = (g.out(), g.in_());
    for method in [PageRankMethod::Jacobi, PageRankMethod::GaussSeidel] {
        let opts = PageRankOptions { method, tol: 1e-10, max_iter: 200, ..PageRankOptions::default() };
        let a = pagerank_grid(&grid, &out, &opts).map_err(|e| e.to_string())?;
        verify_pagerank(&t.out, &opts, &a)?;
        let b = pagerank(&t.out, &t.in_, &opts).map_err(|e| e.to_string())?;
        let tol = if method == PageRankMethod::Jacobi && t.n < 1 << 16 { 1e-12 } else { 1e-6 };
        close(&a.scores, &b.scores, tol).map_err(|e| format!("pagerank {method:?}: {e}"))?;
    }
    let labels = wcc_grid(&grid).map_err(|e| e.to_string())?;
    let want = wcc(&t.out, &t.in_).map_err(|e| e.to_string())?;
    if labels != want {
        return Err("wcc labels differ".into());
    }
    let x: Vec<f64> = (0..t.n).map(|v| 1.0 + (v % 7) as f64).collect();
    let y = spmv_grid(&grid, &x).map_err(|e| e.to_string())?;
    verify_spmv(&t.out, &x, &y)?;
    let y_csr = spmv(&out, &inn, &x).map_err(|e| e.to_string())?;
    close(&y, &y_csr, 1e-12).map_err(|e| format!("spmv: {e}"))
}

#[test]
fn grid_kernels_equal_csr_kernels_across_blocks_pools_and_codecs() {
    let dir = tempfile::tempdir().unwrap();
    // 70,000 vertices: two blocks of 2^16, the second short; and 1,000 vertices cut into 7
    // cells per side (blocks of 256: 4 blocks, the last short).
    let cases = [(70_000, 300_000, None), (1_000, 6_000, Some(7))];
    for (i, &(n, m, cells)) in cases.iter().enumerate() {
        for (j, (directed, weighted)) in
            [(false, false), (true, false), (false, true), (true, true)].into_iter().enumerate()
        {
            let t = random_graph(n, m, directed, weighted, (i * 10 + j) as u64);
            let path = dir.path().join(format!("g{i}{j}"));
            store(&path, &t, false);
            for codec in [Codec::None, Codec::Lz4, Codec::Runs] {
                build_grid(&path, &grid_opts(cells, codec), &NoProgress).unwrap();
                check_graph(&path).unwrap();
                let stored_bytes = {
                    let g = Graph::open(&path, &OpenOptions::default()).unwrap();
                    let grid = g.grid().unwrap();
                    assert_eq!(grid.num_arcs(), t.arcs().len() as u64);
                    if cells == Some(7) {
                        assert_eq!((grid.cells_per_side(), grid.block_bits()), (4, 8));
                    }
                    compare(&g, &t).unwrap_or_else(|e| {
                        panic!("n={n} directed={directed} weighted={weighted} {codec:?} mmap: {e}")
                    });
                    grid.stored_bytes()
                };
                // A pool of 16 frames (64 KiB) against a graph of megabytes.
                assert!(stored_bytes > 16 * 4096 || n < 10_000);
                let g = Graph::open(&path, &pool(16)).unwrap();
                compare(&g, &t).unwrap_or_else(|e| {
                    panic!("n={n} directed={directed} weighted={weighted} {codec:?} pool: {e}")
                });
                assert!(g.io_stats().bytes_read > 0);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Small random graphs (isolated vertices, self-loops, duplicate arcs) cut into 1 to 8
    /// cells per side.
    #[test]
    fn grid_kernels_equal_csr_kernels_on_small_graphs(t in arb_graph(), cells in 1u32..9, codec in 0usize..3) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g");
        store(&path, &t, false);
        let codec = [Codec::None, Codec::Lz4, Codec::Runs][codec];
        build_grid(&path, &grid_opts(Some(cells), codec), &NoProgress).unwrap();
        check_graph(&path).unwrap();
        let g = Graph::open(&path, &pool(4)).unwrap();
        prop_assert_eq!(compare(&g, &t), Ok(()));
    }
}

#[test]
fn compaction_rebuilds_the_grid_of_the_new_base() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let t = random_graph(3_000, 20_000, false, false, 5);
    store(&path, &t, false);
    build_grid(&path, &grid_opts(Some(3), Codec::Lz4), &NoProgress).unwrap();
    let w = WritableGraph::open(&path, &WriteOptions::default()).unwrap();
    w.add_edges(&[(0, 2_999), (1, 2_998)], None).unwrap();
    // The base's grid with a snapshot's out-lists that hold updates it does not: refused.
    let s = w.snapshot();
    let err = pagerank_grid(&s.base().grid().unwrap(), &s.out(), &PageRankOptions::default()).unwrap_err();
    assert!(err.to_string().contains("the grid is not of these lists"), "{err}");
    drop(s);
    w.compact().unwrap();
    w.close().unwrap();
    check_graph(&path).unwrap();
    let mut edges = t.edges.clone();
    edges.extend([(0, 2_999, 1.0), (1, 2_998, 1.0)]);
    // The writable graph sees a simple graph: the base's repeated arcs collapse.
    let mut arcs: Vec<_> =
        TestGraph::new(3_000, false, false, edges).arcs().iter().map(|a| (a.0, a.1)).collect();
    arcs.sort_unstable();
    arcs.dedup();
    let (s, d): (Vec<Vertex>, Vec<Vertex>) = arcs.iter().copied().unzip();
    let simple = crate::common::Csr::from_arcs(
        3_000,
        &s.iter().zip(&d).map(|(&a, &b)| (a, b, 1.0)).collect::<Vec<_>>(),
        false,
    );
    let want = TestGraph {
        n: 3_000,
        directed: false,
        weighted: false,
        edges: Vec::new(),
        out: simple.clone(),
        in_: simple,
    };
    let g = Graph::open(&path, &pool(8)).unwrap();
    assert_eq!(g.manifest().grid.map(|i| (i.cells_per_side, i.codec)), Some((3, Codec::Lz4)));
    compare(&g, &want).unwrap();
}

#[test]
fn corrupted_grid_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = random_graph(5_000, 30_000, true, true, 3);
    for codec in [Codec::None, Codec::Lz4, Codec::Runs] {
        let path = dir.path().join(format!("{codec:?}"));
        store(&path, &t, false);
        build_grid(&path, &grid_opts(Some(2), codec), &NoProgress).unwrap();
        let flip = |name: &str, at: u64| {
            let p = path.join(name);
            let mut bytes = std::fs::read(&p).unwrap();
            bytes[at as usize] ^= 0x5a;
            std::fs::write(&p, bytes).unwrap();
        };
        // A flipped byte in a cell or a weight: `check` names the file, and so does open (a
        // grid of at most CHECKED_ON_OPEN bytes is checked whole there; a cell's bytes
        // were read as edges).
        let weights = std::fs::metadata(path.join("grid.weights")).unwrap().len();
        for (name, at) in [("grid.edges", 100), ("grid.edges", 20_000), ("grid.weights", weights / 2)] {
            flip(name, at);
            let err = check_graph(&path).unwrap_err().to_string();
            assert!(err.contains(name) && err.contains("checksum"), "{err}");
            let err = Graph::open(&path, &OpenOptions::default()).unwrap_err().to_string();
            assert!(err.contains(name) && err.contains("checksum"), "{codec:?} {name}: {err}");
            assert!(err.contains("layout remove-grid"), "{err}");
            flip(name, at);
            check_graph(&path).unwrap();
        }
        // Every refusal names the file and how to remove the grid, after which the graph opens.
        let refused = |name: &str| {
            let err = Graph::open(&path, &OpenOptions::default()).unwrap_err().to_string();
            assert!(err.contains(name) && err.contains("layout remove-grid"), "{codec:?} {name}: {err}");
            let err = check_graph(&path).unwrap_err().to_string();
            assert!(err.contains(name) && err.contains("layout remove-grid"), "{codec:?} {name}: {err}");
        };
        // A flipped byte in the index: refused on open.
        flip("grid.index", 70);
        refused("grid.index");
        flip("grid.index", 70);
        // A truncated cell file, then a deleted index.
        let p = path.join("grid.edges");
        let len = std::fs::metadata(&p).unwrap().len();
        std::fs::OpenOptions::new().write(true).open(&p).unwrap().set_len(len - 4096).unwrap();
        refused("grid.edges");
        std::fs::OpenOptions::new().write(true).open(&p).unwrap().set_len(len).unwrap();
        std::fs::remove_file(path.join("grid.index")).unwrap();
        refused("grid.index");
    }
    // A compressed cell that does not decode (its checksum made to match, as for a grid too
    // large to be checked on open): the kernel returns an error naming the file.
    for codec in [Codec::Lz4, Codec::Runs] {
        let path = dir.path().join(format!("decode-{codec:?}"));
        store(&path, &t, false);
        build_grid(&path, &grid_opts(Some(2), codec), &NoProgress).unwrap();
        let p = path.join("grid.edges");
        let mut bytes = std::fs::read(&p).unwrap();
        bytes[..64].fill(0xff);
        std::fs::write(&p, &bytes).unwrap();
        let err = check_graph(&path).unwrap_err().to_string();
        assert!(err.contains("grid.edges"), "{err}");
        restamp(&path, "grid.edges");
        let g = Graph::open(&path, &OpenOptions::default()).unwrap();
        let err = wcc_grid(&g.grid().unwrap()).unwrap_err().to_string();
        assert!(err.contains("grid.edges") && err.contains("does not decode"), "{codec:?}: {err}");
    }
    // Weights outside the recorded range (a NaN, a negative) with a matching checksum: `check`
    // compares the grid's weights with the manifest's range, as it does the lists'.
    for bad in [f32::NAN, -1.0] {
        let path = dir.path().join(format!("weights-{bad}"));
        store(&path, &t, false);
        build_grid(&path, &grid_opts(Some(2), Codec::None), &NoProgress).unwrap();
        let p = path.join("grid.weights");
        let mut bytes = std::fs::read(&p).unwrap();
        bytes[40..44].copy_from_slice(&bad.to_le_bytes());
        std::fs::write(&p, &bytes).unwrap();
        restamp(&path, "grid.weights");
        let err = check_graph(&path).unwrap_err().to_string();
        assert!(err.contains("grid.weights") && err.contains("weight range"), "{bad}: {err}");
    }
}

#[test]
fn an_offset_past_the_vertex_count_in_a_cell_is_refused() {
    // 5,000 vertices in 2 blocks of 4,096: the second holds 904. An offset of 1,000 in a cell
    // of the second row or column names no vertex; with the file's checksum made to match (as
    // for a grid too large to be checked on open), the kernels read it as the padding of their
    // state and dropped the arc. Now each kernel fails naming the file, as `check` does.
    let dir = tempfile::tempdir().unwrap();
    let t = random_graph(5_000, 40_000, true, false, 4);
    // (row, col, the offset patched: 0 the first arc's source, 1 its destination)
    for (row, col, side) in [(0u32, 1u32, 1usize), (1, 0, 0), (1, 1, 1)] {
        let path = dir.path().join(format!("g{row}{col}"));
        store(&path, &t, false);
        build_grid(&path, &grid_opts(Some(2), Codec::None), &NoProgress).unwrap();
        let (first_arc, m) = {
            let g = Graph::open(&path, &OpenOptions::default()).unwrap();
            let grid = g.grid().unwrap();
            assert_eq!(grid.block(1).len(), 904);
            // Cells are stored by column, each as its sources then its destinations (u16).
            let before: u64 = (0..col * 2 + row).map(|k| grid.cell_len(k % 2, k / 2)).sum();
            (before, grid.cell_len(row, col))
        };
        assert!(m > 0);
        let at = (4 * first_arc + 2 * m * side as u64) as usize;
        let p = path.join("grid.edges");
        let mut bytes = std::fs::read(&p).unwrap();
        assert!(u16::from_le_bytes([bytes[at], bytes[at + 1]]) < 904);
        bytes[at..at + 2].copy_from_slice(&1000u16.to_le_bytes());
        std::fs::write(&p, &bytes).unwrap();
        restamp(&path, "grid.edges");
        let err = check_graph(&path).unwrap_err().to_string();
        assert!(err.contains("grid.edges"), "{err}");
        let g = Graph::open(&path, &OpenOptions::default()).unwrap();
        let grid = g.grid().unwrap();
        let errors = [
            pagerank_grid(&grid, &g.out(), &PageRankOptions::default()).map(|_| ()),
            wcc_grid(&grid).map(|_| ()),
            spmv_grid(&grid, &vec![1.0; 5_000]).map(|_| ()),
        ];
        for e in errors {
            let err = e.unwrap_err().to_string();
            assert!(
                err.contains("grid.edges") && err.contains("past the graph's 5000"),
                "{row} {col}: {err}"
            );
        }
    }
}

#[test]
fn a_graph_with_updates_builds_no_grid() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    store(&path, &random_graph(500, 2_000, false, false, 1), false);
    let w = WritableGraph::open(&path, &WriteOptions::default()).unwrap();
    w.add_edges(&[(0, 1)], None).unwrap();
    w.close().unwrap();
    let err = build_grid(&path, &GridOptions::default(), &NoProgress).unwrap_err().to_string();
    assert!(err.contains("compact"), "{err}");
}

/// A weighted grid read on one thread through a pool of two frames: a piece of a cell pins its
/// sources' and destinations' pages and copies its weights, so the two frames suffice (it
/// pinned the weights' page too, and waited 10 s for a third frame before failing).
#[test]
fn a_weighted_grid_reads_through_a_pool_of_two_frames() {
    let dir = tempfile::tempdir().unwrap();
    let t = random_graph(5_000, 18_000, true, true, 19);
    let path = dir.path().join("g");
    store(&path, &t, false);
    build_grid(&path, &grid_opts(Some(200), Codec::None), &NoProgress).unwrap();
    let x: Vec<f64> = (0..t.n).map(|v| 1.0 + (v % 5) as f64).collect();
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let g = Graph::open(&path, &pool(2)).unwrap();
    let y = one.install(|| spmv_grid(&g.grid().unwrap(), &x)).unwrap();
    verify_spmv(&t.out, &x, &y).unwrap();
    let labels = one.install(|| wcc_grid(&g.grid().unwrap())).unwrap();
    assert_eq!(labels, wcc(&t.out, &t.in_).unwrap());
}

/// A cell is handed to the kernel in pieces of at most 16K arcs with their weights, whatever
/// the codec, so a worker never copies a whole cell's weights; through a pool of two frames on
/// one thread (a piece must not pin a page while its weights are read).
#[test]
fn cells_come_in_pieces_with_their_weights_through_a_pool_of_two_frames() {
    let dir = tempfile::tempdir().unwrap();
    // 2,000 vertices in one block: one cell of 60,000 arcs.
    let t = random_graph(2_000, 60_000, true, true, 23);
    let path = dir.path().join("g");
    store(&path, &t, false);
    let mut want: Vec<(Vertex, Vertex, u32)> =
        t.arcs().iter().map(|&(u, v, w)| (u, v, w.to_bits())).collect();
    want.sort_unstable();
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    for codec in [Codec::None, Codec::Lz4, Codec::Runs] {
        build_grid(&path, &grid_opts(None, codec), &NoProgress).unwrap();
        let g = Graph::open(&path, &pool(2)).unwrap();
        let grid = g.grid().unwrap();
        assert_eq!((grid.cells_per_side(), grid.cell_len(0, 0)), (1, want.len() as u64));
        let (mut got, mut pieces) = (Vec::new(), 0);
        let mut buf = ocgraph_core::CellBuf::default();
        one.install(|| {
            grid.for_each_piece(0, 0, &mut buf, |s, d, w| {
                let w = w.expect("weights");
                assert!(s.len() <= 16 << 10 && s.len() == d.len() && s.len() == w.len(), "{codec:?}");
                pieces += 1;
                got.extend((0..s.len()).map(|i| (s[i] as Vertex, d[i] as Vertex, w[i].to_bits())));
            })
        })
        .unwrap();
        got.sort_unstable();
        assert!(pieces >= 4, "{codec:?}: {pieces} pieces");
        assert_eq!(got, want, "{codec:?}");
        let x: Vec<f64> = (0..t.n).map(|v| 1.0 + (v % 5) as f64).collect();
        let y = one.install(|| spmv_grid(&grid, &x)).unwrap();
        verify_spmv(&t.out, &x, &y).unwrap();
    }
}
