//! Kernels on random skewed graphs larger than one scan block (4096 vertices), so that
//! parallel range splitting, bottom-up BFS steps, Afforest's skip of the giant component and
//! several delta-stepping buckets are all exercised; results are checked against the serial
//! verifiers and plain references.

use crate::common::{bfs_distances, random_graph, TestGraph};
use ocgraph_algo::*;
use ocgraph_core::Vertex;

fn graphs() -> Vec<TestGraph> {
    vec![random_graph(20_000, 120_000, true, true, 1), random_graph(9_000, 40_000, false, true, 2)]
}

fn on_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(f)
}

/// A source whose list is long enough to be claimed by all threads in pieces (16384 arcs and
/// more), directed and undirected, with enough random arcs around it for the first step to
/// run top-down.
#[test]
fn bfs_from_a_hub_claims_its_list_in_pieces() {
    use rand::{Rng, SeedableRng};
    let n = 50_000;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
    let mut edges: Vec<(Vertex, Vertex, f32)> = (0..n as Vertex).step_by(2).map(|v| (5, v, 1.0)).collect();
    edges.extend((0..500_000).map(|_| (rng.gen_range(0..n as Vertex), rng.gen_range(0..n as Vertex), 1.0)));
    for directed in [true, false] {
        let g = TestGraph::new(n, directed, false, edges.clone());
        for threads in [1, 2, 3] {
            on_pool(threads, || {
                for s in [5, 6] {
                    let want: Vec<i64> =
                        bfs_distances(&g, s).iter().map(|d| d.map_or(-1, |d| d as i64)).collect();
                    let r = bfs(&g.out, &g.in_, s).unwrap();
                    assert_eq!(r.depth_i64(), want, "source {s}, {threads} threads");
                    verify_bfs(&g.out, s, &r).unwrap();
                }
            });
        }
    }
}

#[test]
fn large_graphs_pass_verifiers_and_references() {
    for g in graphs() {
        for threads in [1, 3] {
            on_pool(threads, || {
                for s in [0, 17] {
                    let want: Vec<i64> =
                        bfs_distances(&g, s).iter().map(|d| d.map_or(-1, |d| d as i64)).collect();
                    // The default stash, none, and (undirected) one shared by both directions.
                    let shared = if g.directed { &g.in_ } else { &g.out };
                    for r in [
                        bfs(&g.out, &g.in_, s).unwrap(),
                        bfs_with_stash(&g.out, &g.in_, s, 0).unwrap(),
                        bfs(&g.out, shared, s).unwrap(),
                    ] {
                        assert_eq!(r.depth_i64(), want);
                        verify_bfs(&g.out, s, &r).unwrap();
                    }
                    let d = sssp(&g.out, s, None).unwrap();
                    verify_sssp(&g.out, s, &d).unwrap();
                    let d = sssp(&g.out, s, Some(0.25)).unwrap();
                    verify_sssp(&g.out, s, &d).unwrap();
                }
                let labels = wcc(&g.out, &g.in_).unwrap();
                verify_wcc(&g.out, &labels).unwrap();
                let opts = PageRankOptions::default();
                let pr = pagerank(&g.out, &g.in_, &opts).unwrap();
                assert!(pr.converged);
                verify_pagerank(&g.out, &opts, &pr).unwrap();
                let tc = triangle_count(&g.out, &g.in_).unwrap();
                verify_triangle_count(&g.out, &g.in_, tc).unwrap();
                assert!(tc > 0);
                let est = diameter_estimate(&g.out, &g.in_, 0, 4).unwrap();
                verify_diameter_estimate(&g.out, &est).unwrap();
                for t in [1, 5000, 8999] {
                    let p = shortest_path(&g.out, &g.in_, 3, t as Vertex).unwrap();
                    verify_shortest_path(&g.out, 3, t, p.as_deref()).unwrap();
                }
            });
        }
    }
}
