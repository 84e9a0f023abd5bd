//! Every kernel against a brute-force reference on many random small graphs (directed and
//! undirected, isolated vertices, self-loops, duplicate edges), and every verifier against a
//! deliberately corrupted result.

use crate::common::{arb_graph, bfs_distances, pool, random_graph, store, TestGraph};
use ocgraph_algo::*;
use ocgraph_core::{Adjacency, Graph, Vertex};
use proptest::prelude::*;

/// Runs `f` on a rayon pool with `threads` threads.
fn on_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(f)
}

/// Plain O(n²) Dijkstra (select the closest unsettled vertex each step).
fn ref_dijkstra(g: &TestGraph, s: Vertex) -> Vec<f64> {
    let adj = g.adj();
    let mut dist = vec![f64::INFINITY; g.n];
    let mut done = vec![false; g.n];
    dist[s as usize] = 0.0;
    loop {
        let next = (0..g.n)
            .filter(|&v| !done[v] && dist[v].is_finite())
            .min_by(|&a, &b| dist[a].total_cmp(&dist[b]));
        let Some(u) = next else { break };
        done[u] = true;
        for &(v, w) in &adj[u] {
            dist[v as usize] = dist[v as usize].min(dist[u] + w);
        }
    }
    dist
}

/// Component label (smallest id) of every vertex by a plain union-find over the edge list.
fn ref_components(g: &TestGraph) -> Vec<Vertex> {
    let mut parent: Vec<usize> = (0..g.n).collect();
    fn find(p: &mut [usize], x: usize) -> usize {
        if p[x] != x {
            let r = find(p, p[x]);
            p[x] = r;
        }
        p[x]
    }
    for &(u, v, _) in &g.edges {
        let (a, b) = (find(&mut parent, u as usize), find(&mut parent, v as usize));
        parent[a.max(b)] = a.min(b);
    }
    (0..g.n).map(|v| find(&mut parent, v) as Vertex).collect()
}

/// networkx.pagerank written plainly (dangling mass and teleport by the personalization).
fn ref_pagerank(g: &TestGraph, opts: &PageRankOptions) -> (Vec<f64>, bool) {
    let n = g.n;
    let adj: Vec<Vec<(Vertex, f64)>> = g
        .adj()
        .into_iter()
        .map(|l| l.into_iter().map(|(v, w)| (v, if opts.use_weights { w } else { 1.0 })).collect())
        .collect();
    let total: Vec<f64> = adj.iter().map(|l| l.iter().map(|e| e.1).sum()).collect();
    let p: Vec<f64> = match &opts.personalization {
        Some(p) => p.iter().map(|x| x / p.iter().sum::<f64>()).collect(),
        None => vec![1.0 / n as f64; n],
    };
    let d = opts.damping;
    let mut x = vec![1.0 / n as f64; n];
    for _ in 0..opts.max_iter {
        let last = x.clone();
        x = vec![0.0; n];
        let dangle: f64 = d * (0..n).filter(|&u| total[u] == 0.0).map(|u| last[u]).sum::<f64>();
        for u in 0..n {
            for &(v, w) in &adj[u] {
                if total[u] > 0.0 {
                    x[v as usize] += d * last[u] * w / total[u];
                }
            }
        }
        for v in 0..n {
            x[v] += dangle * p[v] + (1.0 - d) * p[v];
        }
        let err: f64 = (0..n).map(|v| (x[v] - last[v]).abs()).sum();
        if err < n as f64 * opts.tol {
            return (x, true);
        }
    }
    (x, false)
}

/// Triangles of the simple undirected graph by a triple loop over an adjacency matrix.
fn ref_triangles(g: &TestGraph) -> u64 {
    let n = g.n;
    let mut m = vec![vec![false; n]; n];
    for &(u, v, _) in &g.edges {
        if u != v {
            m[u as usize][v as usize] = true;
            m[v as usize][u as usize] = true;
        }
    }
    let mut c = 0;
    for a in 0..n {
        for b in a + 1..n {
            for z in b + 1..n {
                c += (m[a][b] && m[b][z] && m[a][z]) as u64;
            }
        }
    }
    c
}

fn cfg() -> ProptestConfig {
    ProptestConfig { cases: 200, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn bfs_matches_queue_bfs(g in arb_graph(), s in any::<prop::sample::Index>(), threads in 1usize..4) {
        let s = s.index(g.n) as Vertex;
        let r = on_pool(threads, || bfs(&g.out, &g.in_, s)).unwrap();
        let want: Vec<i64> = bfs_distances(&g, s).iter().map(|d| d.map_or(-1, |d| d as i64)).collect();
        prop_assert_eq!(&r.depth_i64(), &want);
        prop_assert_eq!(verify_bfs(&g.out, s, &r), Ok(()));
        // Corruptions: a wrong depth, and a parent that is not an in-neighbour one level up.
        if let Some(v) = (0..g.n).find(|&v| v != s as usize && r.depth[v] != BfsResult::UNREACHED && r.depth[v] > 0) {
            let mut bad = r.clone();
            bad.depth[v] += 1;
            prop_assert!(verify_bfs(&g.out, s, &bad).is_err());
            let mut bad = r.clone();
            bad.parent[v] = v as Vertex;
            prop_assert!(verify_bfs(&g.out, s, &bad).is_err());
            // A parent one level up that has no arc to v.
            let up = |w: &usize| r.depth[*w] == r.depth[v] - 1 && !g.out.neighbors(*w as Vertex).contains(&(v as Vertex));
            if let Some(w) = (0..g.n).find(up) {
                let mut bad = r.clone();
                bad.parent[v] = w as Vertex;
                prop_assert!(verify_bfs(&g.out, s, &bad).is_err());
            }
        }
        let mut bad = r.clone();
        bad.depth[s as usize] = 1;
        prop_assert!(verify_bfs(&g.out, s, &bad).is_err());
    }

    #[test]
    fn bfs_matches_queue_bfs_whatever_the_stash_budget(
        g in arb_graph(), s in any::<prop::sample::Index>(), threads in 1usize..4, budget in 0usize..400,
    ) {
        // Budgets from none through partial (the stash is dropped) to every list; an undirected
        // graph passes one adjacency twice, so top-down steps also take lists from the stash.
        let s = s.index(g.n) as Vertex;
        let in_ = if g.directed { &g.in_ } else { &g.out };
        let r = on_pool(threads, || bfs_with_stash(&g.out, in_, s, budget)).unwrap();
        let want: Vec<i64> = bfs_distances(&g, s).iter().map(|d| d.map_or(-1, |d| d as i64)).collect();
        prop_assert_eq!(&r.depth_i64(), &want);
        prop_assert_eq!(verify_bfs(&g.out, s, &r), Ok(()));
    }

    #[test]
    fn sssp_matches_dijkstra(g in arb_graph(), s in any::<prop::sample::Index>(), threads in 1usize..4,
                             delta in prop_oneof![Just(None), (0.1f64..5.0).prop_map(Some)]) {
        let s = s.index(g.n) as Vertex;
        let want = ref_dijkstra(&g, s);
        let got = on_pool(threads, || sssp(&g.out, s, delta)).unwrap();
        prop_assert_eq!(got.len(), g.n);
        for v in 0..g.n {
            prop_assert!(got[v] == want[v] || (got[v] - want[v]).abs() <= 1e-9 * want[v].max(1.0),
                "vertex {}: {} vs {}", v, got[v], want[v]);
        }
        prop_assert_eq!(dijkstra(&g.out, s).unwrap(), want);
        prop_assert_eq!(verify_sssp(&g.out, s, &got), Ok(()));
        if let Some(v) = (0..g.n).find(|&v| got[v].is_finite() && got[v] > 0.0) {
            let mut bad = got.clone();
            bad[v] *= 0.5;
            prop_assert!(verify_sssp(&g.out, s, &bad).is_err());
        }
        if let Some(v) = (0..g.n).find(|&v| got[v].is_infinite()) {
            let mut bad = got.clone();
            bad[v] = 3.0;
            prop_assert!(verify_sssp(&g.out, s, &bad).is_err());
        }
    }

    #[test]
    fn wcc_matches_union_find(g in arb_graph(), threads in 1usize..4) {
        let got = on_pool(threads, || wcc(&g.out, &g.in_)).unwrap();
        let want = ref_components(&g);
        prop_assert_eq!(&got, &want);
        prop_assert_eq!(verify_wcc(&g.out, &got), Ok(()));
        prop_assert_eq!(count_components_serial(&g.out), {
            let mut l = want.clone(); l.sort(); l.dedup(); l.len()
        });
        // Split a vertex off its component, and merge two components.
        if let Some(v) = (0..g.n).find(|&v| got[v] != v as Vertex) {
            let mut bad = got.clone();
            bad[v] = v as Vertex;
            prop_assert!(verify_wcc(&g.out, &bad).is_err());
        }
        if let Some(v) = (1..g.n).find(|&v| got[v] == v as Vertex) {
            let mut bad = got.clone();
            for l in bad.iter_mut() { if *l == v as Vertex { *l = 0; } }
            prop_assert!(verify_wcc(&g.out, &bad).is_err());
        }
    }

    #[test]
    fn pagerank_matches_power_iteration(g in arb_graph(), threads in 1usize..4, damping in 0.5f64..0.95,
                                        personalize in any::<bool>(), use_weights in any::<bool>(), seed in any::<u64>()) {
        let personalization = personalize.then(|| {
            (0..g.n as u64).map(|v| ((v.wrapping_mul(seed | 1) >> 7) % 5) as f64 + if v == 0 { 1.0 } else { 0.0 }).collect()
        });
        let opts = PageRankOptions { damping, max_iter: 1000, tol: 1e-10, personalization, use_weights, ..Default::default() };
        let got = on_pool(threads, || pagerank(&g.out, &g.in_, &opts)).unwrap();
        let (want, conv) = ref_pagerank(&g, &opts);
        prop_assert!(got.converged && conv);
        let l1: f64 = got.scores.iter().zip(&want).map(|(a, b)| (a - b).abs()).sum();
        prop_assert!(l1 < 1e-6, "L1 distance {}", l1);
        prop_assert_eq!(verify_pagerank(&g.out, &opts, &got), Ok(()));
        // Gauss-Seidel sweeps reach the same fixed point, in no more iterations.
        let gs = PageRankOptions { method: PageRankMethod::GaussSeidel, ..opts.clone() };
        let got_gs = on_pool(threads, || pagerank(&g.out, &g.in_, &gs)).unwrap();
        prop_assert!(got_gs.converged);
        let l1: f64 = got_gs.scores.iter().zip(&want).map(|(a, b)| (a - b).abs()).sum();
        prop_assert!(l1 < 1e-6, "Gauss-Seidel L1 distance {}", l1);
        prop_assert_eq!(verify_pagerank(&g.out, &gs, &got_gs), Ok(()));
        // Fixed-iteration mode: exactly max_iter iterations, same values as the reference.
        let fixed = PageRankOptions { tol: 0.0, max_iter: 20, ..opts.clone() };
        let got20 = pagerank(&g.out, &g.in_, &fixed).unwrap();
        let (want20, _) = ref_pagerank(&g, &fixed);
        prop_assert_eq!((got20.iterations, got20.converged), (20, false));
        let l1: f64 = got20.scores.iter().zip(&want20).map(|(a, b)| (a - b).abs()).sum();
        prop_assert!(l1 < 1e-9, "L1 distance {}", l1);
        prop_assert_eq!(verify_pagerank(&g.out, &fixed, &got20), Ok(()));
        // Moving 0.1 of mass between vertices keeps the sum but breaks the fixed point.
        if g.n >= 2 {
            let mut bad = got.clone();
            let (hi, lo) = if bad.scores[0] >= bad.scores[1] { (0, 1) } else { (1, 0) };
            let m = bad.scores[hi].min(0.1);
            bad.scores[hi] -= m;
            bad.scores[lo] += m;
            if m > 1e-3 {
                prop_assert!(verify_pagerank(&g.out, &opts, &bad).is_err());
            }
        }
        let mut bad = got.clone();
        bad.scores[0] += 0.01;
        prop_assert!(verify_pagerank(&g.out, &opts, &bad).is_err());
    }

    #[test]
    fn triangles_match_triple_loop(g in arb_graph(), threads in 1usize..4, spill in any::<bool>()) {
        // A zero budget sends the oriented lists to a scratch file.
        let g = g.with_budget(spill.then_some(0));
        let got = on_pool(threads, || triangle_count(&g.out, &g.in_)).unwrap();
        prop_assert_eq!(got, ref_triangles(&g));
        prop_assert_eq!(verify_triangle_count(&g.out, &g.in_, got), Ok(()));
        prop_assert!(verify_triangle_count(&g.out, &g.in_, got + 1).is_err());
    }

    #[test]
    fn diameter_is_a_realised_lower_bound(g in arb_graph(), s in any::<prop::sample::Index>(), sweeps in 1usize..5) {
        let s = s.index(g.n) as Vertex;
        let est = diameter_estimate(&g.out, &g.in_, s, sweeps).unwrap();
        let diameter = (0..g.n as Vertex).flat_map(|u| bfs_distances(&g, u)).flatten().max().unwrap_or(0);
        let ecc_s = bfs_distances(&g, s).into_iter().flatten().max().unwrap_or(0);
        prop_assert!(est.lower_bound <= diameter && est.lower_bound >= ecc_s);
        prop_assert_eq!(verify_diameter_estimate(&g.out, &est), Ok(()));
        let bad = DiameterEstimate { lower_bound: est.lower_bound + 1, ..est };
        prop_assert!(verify_diameter_estimate(&g.out, &bad).is_err());
    }

    #[test]
    fn k_hop_and_friends_of_friends_match_bfs(g in arb_graph(), s in any::<prop::sample::Index>(), k in 0u32..5) {
        let s = s.index(g.n) as Vertex;
        let dist = bfs_distances(&g, s);
        let band = |lo: u64, hi: u64| -> Vec<Vertex> {
            (0..g.n).filter(|&v| dist[v].is_some_and(|d| d >= lo && d <= hi)).map(|v| v as Vertex).collect()
        };
        let got = k_hop(&g.out, s, k).unwrap();
        let want = if k == 0 { Vec::new() } else { band(1, k as u64) };
        prop_assert_eq!(&got, &want);
        prop_assert_eq!(verify_k_hop(&g.out, s, k, &got), Ok(()));
        let fof = friends_of_friends(&g.out, s).unwrap();
        prop_assert_eq!(&fof, &band(2, 2));
        prop_assert_eq!(verify_friends_of_friends(&g.out, s, &fof), Ok(()));
        let mut bad = got.clone();
        bad.push(s);
        prop_assert!(verify_k_hop(&g.out, s, k, &bad).is_err());
        if let Some(v) = (0..g.n).find(|&v| dist[v] == Some(1)) {
            let mut bad = fof.clone();
            bad.push(v as Vertex);
            bad.sort();
            prop_assert!(verify_friends_of_friends(&g.out, s, &bad).is_err());
        }
    }

    #[test]
    fn shortest_path_is_shortest(g in arb_graph(), s in any::<prop::sample::Index>(), t in any::<prop::sample::Index>()) {
        let (s, t) = (s.index(g.n) as Vertex, t.index(g.n) as Vertex);
        let got = shortest_path(&g.out, &g.in_, s, t).unwrap();
        let dist = bfs_distances(&g, s)[t as usize];
        let adj = g.adj();
        match (&got, dist) {
            (None, None) => {}
            (Some(p), Some(d)) => {
                prop_assert_eq!(p.len() as u64, d + 1);
                prop_assert_eq!((p[0], *p.last().unwrap()), (s, t));
                for w in p.windows(2) {
                    prop_assert!(adj[w[0] as usize].iter().any(|e| e.0 == w[1]));
                }
            }
            _ => prop_assert!(false, "path {:?} but distance {:?}", got, dist),
        }
        prop_assert_eq!(verify_shortest_path(&g.out, s, t, got.as_deref()), Ok(()));
        match &got {
            Some(p) => {
                prop_assert!(verify_shortest_path(&g.out, s, t, None).is_err());
                let mut longer = p.clone();
                longer.insert(1, s);
                prop_assert!(verify_shortest_path(&g.out, s, t, Some(&longer)).is_err());
            }
            None => prop_assert!(verify_shortest_path(&g.out, s, t, Some(&[s, t])).is_err()),
        }
    }
}

/// The weight scan (default delta; negative and NaN weights refused) on lists with zero,
/// negative zero, infinite, negative and NaN weights.
#[test]
fn weight_scan_accepts_zeros_and_refuses_negative_and_nan_weights() {
    // Zero weights (0.0 and -0.0) are allowed; max 4, min positive 0.5, 5 arcs on 4 vertices.
    let g =
        TestGraph::new(4, true, true, vec![(0, 1, -0.0), (0, 2, 0.5), (1, 2, 0.0), (2, 3, 4.0), (3, 0, 2.0)]);
    assert_eq!(default_delta(&g.out).unwrap(), 4.0 / (2.0 * 5.0 / 4.0));
    assert_eq!(sssp(&g.out, 0, None).unwrap(), vec![0.0, 0.0, 0.0, 4.0]);
    // The smallest positive weight (4, not a zero) bounds the delta from below.
    let g =
        TestGraph::new(4, true, true, vec![(0, 1, 4.0), (1, 2, 0.0), (2, 0, 4.0), (0, 2, -0.0), (2, 3, 4.0)]);
    assert_eq!(default_delta(&g.out).unwrap(), 4.0);
    // One huge weight among weights 2 (a chain and its shortcuts, 3 arcs a vertex): the width
    // follows the median weight, 2 / 3, floored at the smallest weight, not 1e30 / 6.
    let mut arcs: Vec<_> = (0..999).flat_map(|v| [(v, v + 1, 2.0), (v, (v * 7 + 3) % 1000, 2.0)]).collect();
    arcs.extend((0..999).map(|v| (v + 1, v, 2.0)));
    arcs.push((999, 0, 1e30));
    let g = TestGraph::new(1000, true, true, arcs);
    assert_eq!(default_delta(&g.out).unwrap(), 2.0);
    assert_eq!(sssp(&g.out, 0, None).unwrap(), ref_dijkstra(&g, 0));
    let inf = TestGraph::new(2, true, true, vec![(0, 1, f32::INFINITY)]);
    assert_eq!(sssp(&inf.out, 0, None).unwrap(), vec![0.0, f64::INFINITY]);
    for bad in [-1.0, -f32::INFINITY, f32::NAN] {
        let g = TestGraph::new(3, true, true, vec![(0, 1, 1.0), (0, 2, 2.0), (1, 2, bad)]);
        let e = sssp(&g.out, 0, None).unwrap_err().to_string();
        assert!(e.contains("arc 1 -> 2"), "{e}");
    }
}

/// A stored graph records its weights' range, and SSSP takes its default delta from it
/// instead of scanning: the same delta and distances as the scan of the same graph in
/// memory; a stored graph with a negative weight records none and is still refused, even
/// where the search would not reach the arc.
#[test]
fn sssp_on_a_stored_graph_reads_the_recorded_weight_range() {
    let tmp = tempfile::tempdir().unwrap();
    for (i, directed) in [false, true].into_iter().enumerate() {
        let mem = random_graph(300, 2000, directed, true, 7 + i as u64);
        let dir = tmp.path().join(format!("g{i}"));
        store(&dir, &mem, false);
        let g = Graph::open(&dir, &Default::default()).unwrap();
        assert!(g.out().weight_range().is_some());
        assert_eq!(default_delta(&g.out()).unwrap(), default_delta(&mem.out).unwrap());
        for s in [0, 17, 299] {
            assert_eq!(sssp(&g.out(), s, None).unwrap(), ref_dijkstra(&mem, s));
        }
    }
    // Through a pool smaller than the adjacency the width is at least half the largest weight
    // (fewer rounds, each reading pages the pool no longer holds), and the distances the same.
    let mem = random_graph(3_000, 40_000, true, true, 9);
    let dir = tmp.path().join("small-pool");
    store(&dir, &mem, false);
    let max = mem.edges.iter().map(|e| e.2).fold(0f32, f32::max) as f64;
    let in_memory = default_delta(&mem.out).unwrap();
    assert!(in_memory < max / 2.0, "{in_memory} against {max}");
    let g = Graph::open(&dir, &pool(8)).unwrap();
    assert_eq!(default_delta(&g.out()).unwrap(), max / 2.0);
    for s in [0, 1234] {
        assert_eq!(sssp(&g.out(), s, None).unwrap(), ref_dijkstra(&mem, s));
    }
    let g = Graph::open(&dir, &pool(1_000)).unwrap();
    assert_eq!(default_delta(&g.out()).unwrap(), in_memory, "a pool holding the graph");
    let mem = TestGraph::new(3, true, true, vec![(0, 1, 1.0), (2, 1, -1.0)]);
    let dir = tmp.path().join("negative");
    store(&dir, &mem, false);
    let g = Graph::open(&dir, &Default::default()).unwrap();
    assert_eq!(g.out().weight_range(), None);
    let e = sssp(&g.out(), 0, None).unwrap_err().to_string();
    assert!(e.contains("arc 2 -> 1"), "{e}");
}

#[test]
fn bad_arguments_are_errors_not_panics() {
    let g = TestGraph::new(3, true, true, vec![(0, 1, 1.0), (1, 2, -2.0)]);
    assert!(bfs(&g.out, &g.in_, 3).is_err());
    assert!(sssp(&g.out, 0, None).is_err(), "negative weight");
    assert!(dijkstra(&g.out, 0).is_err(), "negative weight");
    assert!(sssp(&g.out, 0, Some(0.0)).is_err(), "delta 0");
    assert!(k_hop(&g.out, 7, 1).is_err());
    assert!(shortest_path(&g.out, &g.in_, 0, 9).is_err());
    assert!(diameter_estimate(&g.out, &g.in_, 0, 0).is_err());
    let ok = TestGraph::new(3, true, false, vec![(0, 1, 1.0)]);
    let bad_p = PageRankOptions { personalization: Some(vec![0.0; 3]), ..Default::default() };
    assert!(pagerank(&ok.out, &ok.in_, &bad_p).is_err());
    let short_p = PageRankOptions { personalization: Some(vec![1.0; 2]), ..Default::default() };
    assert!(pagerank(&ok.out, &ok.in_, &short_p).is_err());
    let bad_d = PageRankOptions { damping: 1.5, ..Default::default() };
    assert!(pagerank(&ok.out, &ok.in_, &bad_d).is_err());
    let other = TestGraph::new(4, true, false, vec![]);
    assert!(wcc(&ok.out, &other.in_).is_err());
}

#[test]
fn hand_checked_small_cases() {
    // 0 -> 1 -> 2 -> 3, 0 -> 2; 4 isolated. Undirected triangle 0-1-2 plus pendant 3.
    let d = TestGraph::new(5, true, false, vec![(0, 1, 1.0), (1, 2, 1.0), (2, 3, 1.0), (0, 2, 1.0)]);
    let r = bfs(&d.out, &d.in_, 0).unwrap();
    assert_eq!(r.depth_i64(), vec![0, 1, 1, 2, -1]);
    assert_eq!(r.parent_i64(), vec![0, 0, 0, 2, -1]);
    assert_eq!(shortest_path(&d.out, &d.in_, 0, 3).unwrap(), Some(vec![0, 2, 3]));
    assert_eq!(shortest_path(&d.out, &d.in_, 3, 0).unwrap(), None);
    assert_eq!(k_hop(&d.out, 0, 1).unwrap(), vec![1, 2]);
    assert_eq!(friends_of_friends(&d.out, 0).unwrap(), vec![3]);
    assert_eq!(wcc(&d.out, &d.in_).unwrap(), vec![0, 0, 0, 0, 4]);
    assert_eq!(triangle_count(&d.out, &d.in_).unwrap(), 1);
    let est = diameter_estimate(&d.out, &d.in_, 0, 3).unwrap();
    assert_eq!((est.lower_bound, est.endpoints), (2, (0, 3)));
    // Undirected path 0 - 1 - 2 - 3: the sweeps bounce between 3 and 0, so any number of them
    // stops once a start comes back (a trillion sweeps used to run a trillion BFS).
    let path = TestGraph::new(4, false, false, vec![(0, 1, 1.0), (1, 2, 1.0), (2, 3, 1.0)]);
    let est = diameter_estimate(&path.out, &path.in_, 1, 1 << 40).unwrap();
    assert_eq!((est.lower_bound, est.endpoints), (3, (3, 0)));
    // Directed `0 -> 1 -> 2 -> 0`: starts 0, 2, 1 in turn (each farthest from the one before).
    let c = TestGraph::new(3, true, false, vec![(0, 1, 1.0), (1, 2, 1.0), (2, 0, 1.0)]);
    assert_eq!(diameter_estimate(&c.out, &c.in_, 0, 1 << 40).unwrap().lower_bound, 2);
    // Gauss-Seidel has no teleport term at damping 1: refused, as Jacobi runs it.
    let sink = TestGraph::new(3, true, false, vec![(0, 1, 1.0), (1, 2, 1.0)]);
    let gs = PageRankOptions { damping: 1.0, method: PageRankMethod::GaussSeidel, ..Default::default() };
    assert!(pagerank(&sink.out, &sink.in_, &gs).is_err());
    let jacobi =
        pagerank(&sink.out, &sink.in_, &PageRankOptions { damping: 1.0, ..Default::default() }).unwrap();
    assert!(jacobi.scores.iter().all(|x| x.is_finite()));
    // Two vertices pointing at each other: PageRank 1/2 each.
    let c = TestGraph::new(2, true, false, vec![(0, 1, 1.0), (1, 0, 1.0)]);
    let pr = pagerank(&c.out, &c.in_, &PageRankOptions::default()).unwrap();
    assert_eq!(pr.scores, vec![0.5, 0.5]);
}

#[test]
fn harness_times_trials_and_reports_verification() {
    let mut calls = 0;
    let (rep, last) = run_trials(
        "count",
        3,
        true,
        || {
            calls += 1;
            Ok::<_, String>(calls)
        },
        |&x| {
            if x == 2 {
                Err("two".into())
            } else {
                Ok(())
            }
        },
    )
    .unwrap();
    assert_eq!((rep.trial_secs.len(), last, rep.verified, rep.verdict()), (3, 3, Some(false), "FAIL"));
    assert_eq!(rep.verify_error.as_deref(), Some("two"));
    let (rep, _) = run_trials("ok", 0, false, || Ok::<_, String>(()), |_| Err("never".into())).unwrap();
    assert_eq!((rep.trial_secs.len(), rep.verified, rep.verdict()), (1, None, "-"));
    assert!(run_trials("err", 2, true, || Err::<(), _>("boom"), |_| Ok(())).is_err());
}

/// The power iteration gives the same scores, bit for bit, on every run and with any number of
/// threads: its sums (the dangling mass, the change, the scale to 1) were rayon's, whose
/// grouping of the terms, and so their rounding, followed the split of the work.
#[test]
fn jacobi_pagerank_is_the_same_on_every_run_and_thread_count() {
    for n in [1000, ocgraph_algo::pagerank::F32_CONTRIB_MIN_VERTICES + 1000] {
        let g = random_graph(n, 5 * n, true, false, 4);
        let opts = PageRankOptions { tol: 1e-13, max_iter: 30, ..Default::default() };
        let one = on_pool(1, || pagerank(&g.out, &g.in_, &opts)).unwrap();
        for _ in 0..12 {
            let two = on_pool(2, || pagerank(&g.out, &g.in_, &opts)).unwrap();
            assert_eq!(two.iterations, one.iterations);
            assert!(two.scores.iter().zip(&one.scores).all(|(a, b)| a.to_bits() == b.to_bits()), "n = {n}");
        }
    }
}

#[test]
fn pagerank_with_f32_contributions_matches_reference() {
    // Above F32_CONTRIB_MIN_VERTICES, contributions are rounded to f32: scores stay within the
    // f32 rounding of the f64 reference.
    let n = ocgraph_algo::pagerank::F32_CONTRIB_MIN_VERTICES + 1000;
    for (directed, use_weights) in [(true, true), (false, false)] {
        let g = random_graph(n, 4 * n, directed, true, 5);
        let opts = PageRankOptions { tol: 0.0, max_iter: 20, use_weights, ..Default::default() };
        let got = on_pool(2, || pagerank(&g.out, &g.in_, &opts)).unwrap();
        let (want, _) = ref_pagerank(&g, &opts);
        let l1: f64 = got.scores.iter().zip(&want).map(|(a, b)| (a - b).abs()).sum();
        assert!(l1 < 1e-6, "L1 distance {l1}");
        assert_eq!(verify_pagerank(&g.out, &opts, &got), Ok(()));
        // Gauss-Seidel with f32 contributions, to convergence, against the converged reference
        // (`n * tol` = 7e-8: the reference is accurate to about that).
        let tight = PageRankOptions { tol: 1e-12, max_iter: 1000, use_weights, ..Default::default() };
        let gs = PageRankOptions { method: PageRankMethod::GaussSeidel, ..tight.clone() };
        let got = on_pool(2, || pagerank(&g.out, &g.in_, &gs)).unwrap();
        let (want, _) = ref_pagerank(&g, &tight);
        let l1: f64 = got.scores.iter().zip(&want).map(|(a, b)| (a - b).abs()).sum();
        assert!(l1 < 1e-6, "Gauss-Seidel: L1 distance {l1} after {} sweeps", got.iterations);
        // A tolerance below what f32 contributions can reach is served in f64: the converged
        // result passes the verifier's one more (f64) iteration (it failed, 6.4e-9 over 1.7e-9).
        for method in [PageRankMethod::Jacobi, PageRankMethod::GaussSeidel] {
            let fine =
                PageRankOptions { tol: 1e-14, max_iter: 1000, method, use_weights, ..Default::default() };
            let got = on_pool(2, || pagerank(&g.out, &g.in_, &fine)).unwrap();
            assert!(got.converged);
            if method == PageRankMethod::Jacobi {
                assert_eq!(verify_pagerank(&g.out, &fine, &got), Ok(()));
            }
        }
    }
}

#[test]
fn k_hop_on_a_large_skewed_graph_matches_bfs_with_both_visited_sets() {
    // 6400 vertices (so the visited set becomes a bitmap once a level scans 100 arcs) and skewed
    // degrees: searches from low-degree vertices stay in the hash set, searches through hubs
    // switch to the bitmap, some of them between two levels; the far levels after the switch
    // are small again (sorted by a sort, not by a scan of the bits).
    for directed in [false, true] {
        let g = random_graph(6400, 12_000, directed, false, 71);
        for s in (0..6400).step_by(97) {
            let dist = bfs_distances(&g, s);
            for k in [1, 2, 3, 6, 12, u32::MAX as u64] {
                let want: Vec<Vertex> = (0..g.n as Vertex)
                    .filter(|&w| w != s && dist[w as usize].is_some_and(|d| d <= k))
                    .collect();
                assert_eq!(k_hop(&g.out, s, k as u32).unwrap(), want, "k_hop from {s}, k = {k}");
            }
            let fof: Vec<Vertex> = (0..g.n as Vertex).filter(|&w| dist[w as usize] == Some(2)).collect();
            assert_eq!(friends_of_friends(&g.out, s).unwrap(), fof, "friends of friends of {s}");
        }
    }
}

/// A distance on a bucket's boundary, where division and multiplication round apart (with the
/// default delta 6 / (34 / 18) of this chain, 54 / delta = 17.0 but delta * 17 > 54), is
/// relaxed in its bucket: the chain beyond it is reached. Then every delta `w / k` on a small
/// graph of integer weights, whose distances all fall on such boundaries.
#[test]
fn sssp_relaxes_vertices_on_bucket_boundaries() {
    let mut edges: Vec<(Vertex, Vertex, f32)> = (0..16).map(|v| (v, v + 1, 6.0)).collect();
    edges.push((9, 17, 1.0));
    edges.extend((0..17).map(|_| (0, 0, 1.0)));
    let g = TestGraph::new(18, true, true, edges);
    assert_eq!(sssp(&g.out, 0, None).unwrap(), ref_dijkstra(&g, 0));
    let g = random_graph(60, 240, true, true, 3);
    let want = ref_dijkstra(&g, 0);
    for w in 1..60 {
        for k in 1..30 {
            let delta = w as f64 / k as f64;
            assert_eq!(sssp(&g.out, 0, Some(delta)).unwrap(), want, "delta {w}/{k}");
        }
    }
}

/// Whole weights below 2^23 whose relaxations cannot reach `u32::MAX` (the largest weight
/// times `n`: a tentative distance, at most `max * (n - 1)`, plus one weight) are summed in 32
/// bits, others in `f64`: chains with an arc back to their second vertex and a self-loop at
/// their end (relaxations whose sums pass the longest distance) on both sides of each bound,
/// exact either way, stored (the recorded range) and in memory (the scan).
#[test]
fn sssp_with_whole_weights_is_exact_on_both_sides_of_the_32_bit_bounds() {
    let tmp = tempfile::tempdir().unwrap();
    // 8388607 * 512 = 4294966784 < u32::MAX < 8388607 * 513; 2^23 itself is too large a weight.
    let cases = [(512, 8388607f32), (513, 8388607.0), (3, 8388608.0), (3, 2147483648.0), (5, 255.0)];
    for (i, (n, w)) in cases.into_iter().enumerate() {
        let last = n as Vertex - 1;
        let mut edges: Vec<(Vertex, Vertex, f32)> = (0..last).map(|v| (v, v + 1, w)).collect();
        edges.extend([(last, 1, w), (last, last, w)]);
        let want: Vec<f64> = (0..n).map(|v| v as f64 * w as f64).collect();
        let mem = TestGraph::new(n, true, true, edges);
        assert_eq!(sssp(&mem.out, 0, None).unwrap(), want, "in memory, case {i}");
        let dir = tmp.path().join(format!("g{i}"));
        store(&dir, &mem, false);
        let g = Graph::open(&dir, &Default::default()).unwrap();
        assert!(g.out().weight_range().unwrap().whole);
        assert_eq!(sssp(&g.out(), 0, None).unwrap(), want, "stored, case {i}");
    }
}

proptest! {
    /// Whole weights (0 included, up to a few million, so that sums leave `f32`'s exact
    /// integers) take 32-bit distances: equal to Dijkstra's `f64` sums exactly.
    #[test]
    fn sssp_with_whole_weights_matches_dijkstra_exactly(
        n in 1usize..40,
        raw in proptest::collection::vec((0u32..40, 0u32..40, prop_oneof![0u32..4, 0u32..10_000_000]), 0..150),
        threads in 1usize..4,
    ) {
        let edges: Vec<(Vertex, Vertex, f32)> =
            raw.iter().map(|&(a, b, w)| (a % n as u32, b % n as u32, w as f32)).collect();
        let g = TestGraph::new(n, true, true, edges);
        for s in [0, (n - 1) as Vertex] {
            let got = on_pool(threads, || sssp(&g.out, s, None)).unwrap();
            prop_assert_eq!(got, ref_dijkstra(&g, s));
        }
    }
}
