//! Pattern mining against brute force on small random graphs (self-loops, duplicate arcs,
//! directed and undirected): k-cliques, the 3-/4-vertex motif census, the directed triad
//! census, user patterns (edge- and vertex-induced, labelled), and watched patterns over random
//! update streams (on snapshots, and on the watch's own store); plus cliques and motifs through a buffer pool of 10% of a stored graph.

use std::collections::BTreeSet;

use crate::common::{random_graph, TestGraph};
use ocgraph_algo::mine::{
    count_cliques, count_matches, list_cliques, list_matches, motif_census, triad_census, MatchOptions,
    Pattern, Watch, WatchStore,
};
use ocgraph_core::Vertex;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Simple undirected adjacency matrix of a test graph.
fn matrix(g: &TestGraph) -> Vec<Vec<bool>> {
    let mut a = vec![vec![false; g.n]; g.n];
    for &(u, v, _) in &g.edges {
        if u != v {
            a[u as usize][v as usize] = true;
            a[v as usize][u as usize] = true;
        }
    }
    a
}

/// Every `k`-subset of `0..n`, ascending.
fn subsets(n: usize, k: usize) -> Vec<Vec<usize>> {
    fn rec(start: usize, n: usize, k: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for x in start..n {
            cur.push(x);
            rec(x + 1, n, k, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    rec(0, n, k, &mut Vec::new(), &mut out);
    out
}

/// Dense-ish random graphs (so cliques up to 6 occur), directed or not, with loops/duplicates.
fn graphs() -> Vec<TestGraph> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    (0..12)
        .map(|i| {
            let n = rng.gen_range(1..16);
            let m = rng.gen_range(0..n * n);
            let directed = i % 2 == 1;
            let edges =
                (0..m).map(|_| (rng.gen_range(0..n as Vertex), rng.gen_range(0..n as Vertex), 1.0)).collect();
            TestGraph::new(n, directed, false, edges)
        })
        .chain([random_graph(40, 300, false, false, 3), random_graph(40, 300, true, false, 4)])
        .collect()
}

#[test]
fn cliques_equal_brute_force() {
    // Every other graph with a zero memory budget: the oriented lists then live in a scratch file.
    for (i, g) in graphs().into_iter().enumerate() {
        let g = g.with_budget((i % 2 == 1).then_some(0));
        let a = matrix(&g);
        for k in 3..=6 {
            let want: BTreeSet<Vec<Vertex>> = subsets(g.n, k)
                .into_iter()
                .filter(|s| s.iter().enumerate().all(|(i, &x)| s[i + 1..].iter().all(|&y| a[x][y])))
                .map(|s| s.into_iter().map(|x| x as Vertex).collect())
                .collect();
            assert_eq!(count_cliques(&g.out, &g.in_, k).unwrap(), want.len() as u64, "k={k}");
            let list = list_cliques(&g.out, &g.in_, k).unwrap();
            let got: BTreeSet<Vec<Vertex>> = list.chunks(k).map(|c| c.to_vec()).collect();
            assert_eq!(list.len(), want.len() * k, "no duplicates");
            assert_eq!(got, want);
        }
    }
    assert!(count_cliques(&graphs()[0].out, &graphs()[0].in_, 1).is_err());
}

/// Class of the induced subgraph on `s` (sizes 3 and 4), as [`motif_names`] orders them;
/// `None` when not connected.
fn motif_class(a: &[Vec<bool>], s: &[usize]) -> Option<usize> {
    let deg: Vec<usize> = s.iter().map(|&x| s.iter().filter(|&&y| a[x][y]).count()).collect();
    let m: usize = deg.iter().sum::<usize>() / 2;
    let mut sorted = deg.clone();
    sorted.sort_unstable();
    match (s.len(), m, sorted.as_slice()) {
        (3, 2, _) => Some(0),
        (3, 3, _) => Some(1),
        (4, 3, [1, 1, 1, 3]) => Some(0),
        (4, 3, [1, 1, 2, 2]) => Some(1),
        (4, 4, [1, 2, 2, 3]) => Some(2),
        (4, 4, [2, 2, 2, 2]) => Some(3),
        (4, 5, _) => Some(4),
        (4, 6, _) => Some(5),
        _ => None,
    }
}

#[test]
fn motif_census_equals_brute_force() {
    for (i, g) in graphs().into_iter().enumerate() {
        let g = g.with_budget((i % 2 == 0).then_some(0));
        let a = matrix(&g);
        for size in [3, 4] {
            let mut want = vec![0u64; if size == 3 { 2 } else { 6 }];
            for s in subsets(g.n, size) {
                if let Some(c) = motif_class(&a, &s) {
                    want[c] += 1;
                }
            }
            assert_eq!(motif_census(&g.out, &g.in_, size).unwrap(), want, "size {size}");
        }
    }
}

/// The triad census of `g` by classifying every triple (by its mutual and asymmetric dyads and
/// the in/out pattern, not by the 6-bit code table the census uses).
fn brute_triad_census(g: &TestGraph) -> [u64; 16] {
    let names = ocgraph_algo::mine::TRIAD_NAMES;
    let mut arc = vec![vec![false; g.n]; g.n];
    for (u, v, _) in g.arcs() {
        if u != v {
            arc[u as usize][v as usize] = true;
        }
    }
    let mut want = [0u64; 16];
    for s in subsets(g.n, 3) {
        // Classify by (mutual, asymmetric, null) dyads and the in/out pattern.
        let (x, y, z) = (s[0], s[1], s[2]);
        let pairs = [(x, y), (x, z), (y, z)];
        let mutual = pairs.iter().filter(|&&(p, q)| arc[p][q] && arc[q][p]).count();
        let asym = pairs.iter().filter(|&&(p, q)| arc[p][q] != arc[q][p]).count();
        let outdeg = |p: usize| s.iter().filter(|&&q| arc[p][q]).count();
        let indeg = |p: usize| s.iter().filter(|&&q| arc[q][p]).count();
        let name = match (mutual, asym) {
            (0, 0) => "003",
            (0, 1) => "012",
            (1, 0) => "102",
            (0, 2) => {
                if s.iter().any(|&p| outdeg(p) == 2) {
                    "021D"
                } else if s.iter().any(|&p| indeg(p) == 2) {
                    "021U"
                } else {
                    "021C"
                }
            }
            (1, 1) => {
                // 111D: the asymmetric arc points into the mutual dyad's shared... decide by
                // whether the vertex outside the mutual dyad sends (111U) or receives.
                let (p, q) = *pairs.iter().find(|&&(p, q)| arc[p][q] && arc[q][p]).unwrap();
                let r = s.iter().copied().find(|&t| t != p && t != q).unwrap();
                if outdeg(r) == 1 {
                    "111D"
                } else {
                    "111U"
                }
            }
            (0, 3) => {
                if s.iter().all(|&p| outdeg(p) == 1) {
                    "030C"
                } else {
                    "030T"
                }
            }
            (2, 0) => "201",
            (1, 2) => {
                let (p, q) = *pairs.iter().find(|&&(p, q)| arc[p][q] && arc[q][p]).unwrap();
                let r = s.iter().copied().find(|&t| t != p && t != q).unwrap();
                match outdeg(r) {
                    2 => "120D",
                    0 => "120U",
                    _ => "120C",
                }
            }
            (2, 1) => "210",
            (3, 0) => "300",
            _ => unreachable!(),
        };
        want[names.iter().position(|&x| x == name).unwrap()] += 1;
    }
    want
}

#[test]
fn triad_census_equals_brute_force() {
    for g in graphs() {
        assert_eq!(triad_census(&g.out, &g.in_).unwrap(), brute_triad_census(&g));
    }
}

/// Hub-shaped graphs (`leaves` leaves, then `isolated` isolated vertices): out-, in- and
/// mutual stars (directed), and K_{2,n} undirected, directed (both hubs sending), with the
/// hubs joined, and with one hub sending and the other receiving.
fn hub_graphs(leaves: usize, isolated: usize) -> Vec<(&'static str, TestGraph)> {
    let l = leaves as Vertex;
    let n = leaves + 2 + isolated;
    let star = |f: &dyn Fn(Vertex) -> Vec<(Vertex, Vertex)>| -> Vec<(Vertex, Vertex, f32)> {
        (1..=l).flat_map(f).map(|(u, v)| (u, v, 1.0)).collect()
    };
    let k2n = |f: &dyn Fn(Vertex) -> Vec<(Vertex, Vertex)>| -> Vec<(Vertex, Vertex, f32)> {
        (2..l + 2).flat_map(f).map(|(u, v)| (u, v, 1.0)).collect()
    };
    let mut hubs_joined = k2n(&|x| vec![(0, x), (1, x)]);
    hubs_joined.push((0, 1, 1.0));
    vec![
        ("out-star", TestGraph::new(n, true, false, star(&|x| vec![(0, x)]))),
        ("in-star", TestGraph::new(n, true, false, star(&|x| vec![(x, 0)]))),
        ("mutual star", TestGraph::new(n, true, false, star(&|x| vec![(0, x), (x, 0)]))),
        ("K2n undirected", TestGraph::new(n, false, false, k2n(&|x| vec![(0, x), (x, 1)]))),
        ("K2n out", TestGraph::new(n, true, false, k2n(&|x| vec![(0, x), (1, x)]))),
        ("K2n hubs joined", TestGraph::new(n, true, false, hubs_joined)),
        ("K2n through", TestGraph::new(n, true, false, k2n(&|x| vec![(0, x), (x, 1), (x, x)]))),
    ]
}

/// Stars and K_{2,n} (hubs whose neighbours the old census visited pairwise) against brute
/// force, small, and against counts by hand, large: each with the hub's C(n, 2) leaf pairs
/// counted from the dyad counts, so 100,000 leaves take milliseconds (Batagelj–Mrvar: minutes).
#[test]
fn triad_census_of_hubs() {
    for (leaves, isolated) in [(0, 0), (1, 0), (2, 1), (5, 3), (30, 4)] {
        for (i, (name, g)) in hub_graphs(leaves, isolated).into_iter().enumerate() {
            let g = g.with_budget((i % 2 == 0).then_some(0));
            assert_eq!(triad_census(&g.out, &g.in_).unwrap(), brute_triad_census(&g), "{name} {leaves}");
        }
    }
    let (leaves, isolated) = (100_000u64, 7u64);
    let n = leaves + 2 + isolated;
    let c2 = |x: u64| x * (x - 1) / 2;
    let c3 = |x: u64| x * (x - 1) * (x - 2) / 6;
    let at = |name: &str| ocgraph_algo::mine::TRIAD_NAMES.iter().position(|&x| x == name).unwrap();
    for (name, g) in hub_graphs(leaves as usize, isolated as usize) {
        let got = triad_census(&g.out, &g.in_).unwrap();
        // The triads of two leaves (and, for K_{2,n}, of the two hubs) with a hub; each arc
        // with a vertex outside the hub's neighbourhood (the isolated ones, in a star the
        // other hub too).
        let mut want = [0u64; 16];
        match name {
            "out-star" | "in-star" | "mutual star" => {
                let (class, one) = match name {
                    "out-star" => ("021D", "012"),
                    "in-star" => ("021U", "012"),
                    _ => ("201", "102"),
                };
                want[at(class)] = c2(leaves);
                want[at(one)] = leaves * (isolated + 1);
            }
            "K2n undirected" => {
                want[at("201")] = 2 * c2(leaves) + leaves;
                want[at("102")] = 2 * leaves * isolated;
            }
            "K2n out" => {
                want[at("021D")] = 2 * c2(leaves);
                want[at("021U")] = leaves;
                want[at("012")] = 2 * leaves * isolated;
            }
            "K2n hubs joined" => {
                want[at("021D")] = 2 * c2(leaves);
                want[at("030T")] = leaves;
                want[at("012")] = 2 * leaves * isolated + isolated;
            }
            _ => {
                want[at("021D")] = c2(leaves);
                want[at("021U")] = c2(leaves);
                want[at("021C")] = leaves;
                want[at("012")] = 2 * leaves * isolated;
            }
        }
        want[0] = c3(n) - want.iter().sum::<u64>();
        assert_eq!(got, want, "{name}");
    }
}

/// Random directed graphs with many mutual pairs, self-loops and repeated arcs (the census
/// reads each arc's dyad from both ends' lists), in memory and with the DAG in a scratch file.
#[test]
fn triad_census_with_mutual_and_repeated_arcs() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    for i in 0..24 {
        let n = rng.gen_range(3..60);
        let m = rng.gen_range(0..4 * n);
        let mut edges = Vec::new();
        for _ in 0..m {
            let (u, v) = (rng.gen_range(0..n as Vertex), rng.gen_range(0..n as Vertex));
            edges.push((u, v, 1.0));
            if rng.gen_bool(0.4) {
                edges.push((v, u, 1.0));
            }
            if rng.gen_bool(0.1) {
                edges.push((u, v, 1.0));
            }
            if rng.gen_bool(0.05) {
                edges.push((u, u, 1.0));
            }
        }
        // A hub in half of them: vertex 0 joined to most others, either way or both.
        if i % 2 == 0 {
            for x in 1..n as Vertex {
                match rng.gen_range(0..4) {
                    0 => edges.push((0, x, 1.0)),
                    1 => edges.push((x, 0, 1.0)),
                    2 => edges.extend([(0, x, 1.0), (x, 0, 1.0)]),
                    _ => {}
                }
            }
        }
        let g = TestGraph::new(n, true, false, edges).with_budget((i % 3 == 0).then_some(0));
        assert_eq!(triad_census(&g.out, &g.in_).unwrap(), brute_triad_census(&g), "graph {i}");
    }
}

/// The empty triads of a directed 3-cycle and 4,801,278 isolated vertices overflow a u64 (about
/// C(n, 3) > 2^64): an error, where the count wrapped silently; one vertex fewer, the exact count.
#[test]
fn a_triad_census_past_u64_is_refused() {
    let cycle = vec![(0, 1, 1.0), (1, 2, 1.0), (2, 0, 1.0)];
    let n = 4_801_281u64;
    let big = TestGraph::new(n as usize, true, false, cycle.clone());
    let e = triad_census(&big.out, &big.in_).unwrap_err().to_string();
    assert!(e.contains("003") && e.contains("u64"), "{e}");
    let n = n - 1;
    let below = TestGraph::new(n as usize, true, false, cycle);
    let c = triad_census(&below.out, &below.in_).unwrap();
    // The cycle's triad (030C), its 3 arcs with each of the other n - 3 vertices (012), the rest empty.
    let all = n as u128 * (n as u128 - 1) * (n as u128 - 2) / 6;
    assert_eq!((c[0] as u128, c[1], c[9]), (all - 3 * (n as u128 - 3) - 1, 3 * (n - 3), 1));
}

/// A match's identity: its sorted vertex set and sorted edge images.
type MatchKey = (Vec<usize>, Vec<(usize, usize)>);

/// What the brute-force matcher matches against.
struct Brute<'a> {
    a: &'a [Vec<bool>],
    p: &'a Pattern,
    induced: bool,
    labels: Option<&'a [u32]>,
}

impl Brute<'_> {
    /// Extends the injective map `m` in every way; inserts each complete match's key.
    fn rec(&self, m: &mut Vec<usize>, out: &mut BTreeSet<MatchKey>) {
        let (k, i) = (self.p.num_vertices(), m.len());
        if i == k {
            out.insert(key(m, self.p));
            return;
        }
        for x in 0..self.a.len() {
            if m.contains(&x) || self.labels.is_some_and(|l| self.p.label(i).is_some_and(|want| l[x] != want))
            {
                continue;
            }
            let ok = (0..i).all(|j| {
                if self.p.has_edge(i, j) {
                    self.a[x][m[j]]
                } else {
                    !self.induced || !self.a[x][m[j]]
                }
            });
            if ok {
                m.push(x);
                self.rec(m, out);
                m.pop();
            }
        }
    }
}

/// The matches of `p` by brute force over injective maps, each counted once.
fn brute_matches(a: &[Vec<bool>], p: &Pattern, induced: bool, labels: Option<&[u32]>) -> BTreeSet<MatchKey> {
    let mut out = BTreeSet::new();
    Brute { a, p, induced, labels }.rec(&mut Vec::new(), &mut out);
    out
}

/// The identity of the match `m` (pattern vertex `i` to data vertex `m[i]`).
fn key(m: &[usize], p: &Pattern) -> MatchKey {
    let mut vs = m.to_vec();
    vs.sort_unstable();
    let mut es: Vec<(usize, usize)> =
        p.edges().iter().map(|&(x, y)| (m[x].min(m[y]), m[x].max(m[y]))).collect();
    es.sort_unstable();
    (vs, es)
}

fn keys(flat: &[Vertex], p: &Pattern) -> Vec<MatchKey> {
    flat.chunks(p.num_vertices())
        .map(|c| key(&c.iter().map(|&x| x as usize).collect::<Vec<_>>(), p))
        .collect()
}

fn patterns() -> Vec<Pattern> {
    let mut ps: Vec<Pattern> = [
        "wedge",
        "triangle",
        "4-path",
        "4-star",
        "4-cycle",
        "tailed-triangle",
        "diamond",
        "4-clique",
        "5-cycle",
    ]
    .iter()
    .map(|n| Pattern::named(n).unwrap())
    .collect();
    // An asymmetric 5-vertex pattern (a house: square plus roof).
    ps.push(Pattern::from_edges(&[(0, 1), (1, 2), (2, 3), (3, 0), (0, 4), (1, 4)], None).unwrap());
    // Twin tails, counted by a binomial: a star, K_{2,3} (its last two leaves are above the
    // first leaf), a triangle with two pendant twins at one corner.
    ps.push(Pattern::named("5-star").unwrap());
    ps.push(Pattern::from_edges(&[(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)], None).unwrap());
    ps.push(Pattern::from_edges(&[(0, 1), (1, 2), (2, 0), (0, 3), (0, 4)], None).unwrap());
    ps
}

/// `g` as an undirected simple graph (no loop, one edge per pair): its lists are lent to a
/// search without a check per read.
fn simple_copy(g: &TestGraph) -> TestGraph {
    let a = matrix(g);
    let edges = (0..g.n).flat_map(|u| (u + 1..g.n).map(move |v| (u, v))).filter(|&(u, v)| a[u][v]);
    TestGraph::new(g.n, false, false, edges.map(|(u, v)| (u as Vertex, v as Vertex, 1.0)).collect())
}

#[test]
fn pattern_matches_equal_brute_force() {
    let small = graphs().into_iter().filter(|g| g.n <= 12);
    for g in small.flat_map(|g| [simple_copy(&g), g]) {
        let a = matrix(&g);
        for p in patterns() {
            for induced in [false, true] {
                let want = brute_matches(&a, &p, induced, None);
                let opts = MatchOptions { induced, labels: None };
                assert_eq!(count_matches(&g.out, &g.in_, &p, opts).unwrap(), want.len() as u64);
                let list = list_matches(&g.out, &g.in_, &p, opts).unwrap();
                let got = keys(&list, &p);
                assert_eq!(got.len(), want.len(), "one report per match");
                assert_eq!(got.into_iter().collect::<BTreeSet<_>>(), want);
            }
        }
    }
}

#[test]
fn labelled_patterns_equal_brute_force() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    for g in graphs().into_iter().filter(|g| g.n <= 12) {
        let a = matrix(&g);
        let labels: Vec<u32> = (0..g.n).map(|_| rng.gen_range(0..2)).collect();
        for (edges, pl) in [
            (vec![(0, 1), (1, 2), (2, 0)], vec![0, 0, 1]),
            (vec![(0, 1), (1, 2), (2, 3)], vec![1, 0, 0, 1]),
            (vec![(0, 1), (1, 2), (2, 3), (3, 0)], vec![0, 1, 0, 1]),
            // Stars whose last leaves are twins (same label): counted by a binomial.
            (vec![(0, 1), (0, 2), (0, 3)], vec![0, 0, 1, 1]),
            (vec![(0, 1), (0, 2), (0, 3)], vec![1, 0, 0, 0]),
        ] {
            let pl: Vec<u32> = pl;
            let p = Pattern::from_edges(&edges, Some(pl.into_iter().map(Some).collect())).unwrap();
            for induced in [false, true] {
                let want = brute_matches(&a, &p, induced, Some(&labels));
                let opts = MatchOptions { induced, labels: Some(&labels) };
                let list = list_matches(&g.out, &g.in_, &p, opts).unwrap();
                assert_eq!(keys(&list, &p).into_iter().collect::<BTreeSet<_>>(), want);
                assert_eq!(count_matches(&g.out, &g.in_, &p, opts).unwrap(), want.len() as u64);
            }
        }
        let p = Pattern::from_edges(&[(0, 1)], Some(vec![Some(0), Some(1)])).unwrap();
        assert!(count_matches(&g.out, &g.in_, &p, MatchOptions::default()).is_err());
    }
}

/// A hub with the highest id is placed second once per neighbour by the symmetry breaking;
/// its list is read once per worker, not once per neighbour. Counts against brute force, on
/// the star alone and with edges among the leaves; with and without repeated arcs.
#[test]
fn patterns_around_a_hub_with_the_highest_id() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let leaves = 11u32;
    let mut edges: Vec<(Vertex, Vertex, f32)> = (0..leaves).map(|x| (leaves, x, 1.0)).collect();
    let star = TestGraph::new(leaves as usize + 1, false, false, edges.clone());
    edges.extend((0..8).map(|_| (rng.gen_range(0..leaves), rng.gen_range(0..leaves), 1.0)));
    edges.push((leaves, 3, 1.0));
    let with_repeats = TestGraph::new(leaves as usize + 1, false, false, edges);
    let tmp = tempfile::tempdir().unwrap();
    for (i, g) in [simple_copy(&star), simple_copy(&with_repeats), with_repeats].into_iter().enumerate() {
        let a = matrix(&g);
        // Stored (one list serving both directions, lent in memory; only a simple graph's
        // lists are lent unchecked) and in memory.
        let dir = tmp.path().join(i.to_string());
        crate::common::store(&dir, &g, false);
        let stored = ocgraph_core::Graph::open(&dir, &ocgraph_core::OpenOptions::default()).unwrap();
        for p in patterns() {
            let want = brute_matches(&a, &p, false, None);
            let opts = MatchOptions::default();
            assert_eq!(count_matches(&g.out, &g.in_, &p, opts).unwrap(), want.len() as u64);
            assert_eq!(count_matches(&stored.out(), &stored.in_(), &p, opts).unwrap(), want.len() as u64);
            for list in
                [list_matches(&g.out, &g.in_, &p, opts), list_matches(&stored.out(), &stored.in_(), &p, opts)]
            {
                assert_eq!(keys(&list.unwrap(), &p).into_iter().collect::<BTreeSet<_>>(), want);
            }
        }
    }
}

/// Stars counted at a hub: the leaves of a star pattern are a twin tail, counted by a binomial
/// (C(d, k - 1) at a hub of degree d) instead of enumerated; past a `u64`, an error. The
/// vertex-induced count (which enumerates) agrees where it can finish.
#[test]
fn star_counts_at_hubs_are_binomials() {
    let binom = |n: u128, r: u128| (0..r).fold(1u128, |c, j| c * (n - j) / (j + 1));
    for (leaves, k, induced) in [(30, 4, true), (1_000, 4, false), (1_000, 8, false), (100_000, 5, false)] {
        let edges = (1..=leaves).map(|x| (0, x as Vertex, 1.0)).collect();
        let g = TestGraph::new(leaves + 1, false, false, edges);
        let p = Pattern::named(&format!("{k}-star")).unwrap();
        let got = count_matches(&g.out, &g.in_, &p, MatchOptions { induced, labels: None }).unwrap();
        assert_eq!(got as u128, binom(leaves as u128, k as u128 - 1), "{leaves} leaves, {k}-star");
    }
    // C(100,000, 7) is about 2e31.
    let edges = (1..=100_000).map(|x| (0, x, 1.0)).collect();
    let g = TestGraph::new(100_001, false, false, edges);
    let e = count_matches(&g.out, &g.in_, &Pattern::named("8-star").unwrap(), MatchOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("u64"), "{e}");
}

/// A random stream of batches (additions and removals) on an undirected graph: after every
/// batch, the emitted changes equal the difference of the static match sets, with no duplicate.
#[test]
fn watch_emits_exactly_the_changed_matches() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    for p in patterns().into_iter().take(9) {
        for induced in [false, true] {
            let n = 14u32;
            let mut edges: BTreeSet<(Vertex, Vertex)> = BTreeSet::new();
            for _ in 0..35 {
                let (u, v) = (rng.gen_range(0..n), rng.gen_range(0..n));
                if u != v {
                    edges.insert((u.min(v), u.max(v)));
                }
            }
            let watch = Watch::new(p.clone(), induced);
            let opts = MatchOptions { induced, labels: None };
            for _ in 0..8 {
                let before = TestGraph::new(
                    n as usize,
                    false,
                    false,
                    edges.iter().map(|&(u, v)| (u, v, 1.0)).collect(),
                );
                let mut batch = Vec::new();
                for _ in 0..rng.gen_range(1..6) {
                    let (u, v) = (rng.gen_range(0..n), rng.gen_range(0..n));
                    batch.push((u, v));
                    if u != v {
                        let e = (u.min(v), u.max(v));
                        if !edges.remove(&e) {
                            edges.insert(e);
                        }
                    }
                }
                let after = TestGraph::new(
                    n as usize,
                    false,
                    false,
                    edges.iter().map(|&(u, v)| (u, v, 1.0)).collect(),
                );
                let ch = watch
                    .apply((&before.out, &before.in_), (&after.out, &after.in_), None, &batch, &[])
                    .unwrap();
                let old: BTreeSet<_> = keys(&list_matches(&before.out, &before.in_, &p, opts).unwrap(), &p)
                    .into_iter()
                    .collect();
                let new: BTreeSet<_> =
                    keys(&list_matches(&after.out, &after.in_, &p, opts).unwrap(), &p).into_iter().collect();
                let (added, removed) = (keys(&ch.added, &p), keys(&ch.removed, &p));
                let added_set: BTreeSet<_> = added.iter().cloned().collect();
                let removed_set: BTreeSet<_> = removed.iter().cloned().collect();
                assert_eq!(added.len(), added_set.len(), "duplicate additions");
                assert_eq!(removed.len(), removed_set.len(), "duplicate removals");
                assert_eq!(added_set, new.difference(&old).cloned().collect::<BTreeSet<_>>());
                assert_eq!(removed_set, old.difference(&new).cloned().collect::<BTreeSet<_>>());
            }
        }
    }
}

/// Cliques and motifs through a buffer pool of 10% of a stored Kronecker graph equal the
/// in-memory results (the same lists read through the page layer).
#[test]
fn mining_through_a_small_pool() {
    use ocgraph_core::generate::{generate_into, kronecker};
    use ocgraph_core::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
    use ocgraph_core::page::BackendKind;
    use ocgraph_core::{Graph, OpenOptions};

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("kron11");
    let dir = dir.as_path();
    let o = BuildOptions { directed: false, dedup: true, drop_self_loops: true, ..BuildOptions::default() };
    let mut b = GraphBuilder::new(dir, o).unwrap();
    generate_into(&mut b, &kronecker(11, 8, 3).unwrap(), &NoProgress).unwrap();
    b.finish(IdMap::Identity, &NoProgress).unwrap();
    let mem = Graph::open(dir, &OpenOptions::default()).unwrap();
    let bytes: u64 = mem.manifest().files.values().map(|f| f.padded_len()).sum();
    let backend =
        BackendKind::Pool { capacity: (bytes / 10).max(16 * 4096), page_size: 4096, policy: "clock".into() };
    let pool = Graph::open(dir, &OpenOptions { backend }).unwrap();
    for k in [3, 4, 5] {
        let want = count_cliques(&mem.out(), &mem.in_(), k).unwrap();
        assert_eq!(count_cliques(&pool.out(), &pool.in_(), k).unwrap(), want);
    }
    assert_eq!(
        motif_census(&pool.out(), &pool.in_(), 4).unwrap(),
        motif_census(&mem.out(), &mem.in_(), 4).unwrap()
    );
    let p = Pattern::named("4-cycle").unwrap();
    let opts = MatchOptions::default();
    let cycles = count_matches(&pool.out(), &pool.in_(), &p, opts).unwrap();
    assert_eq!(cycles, count_matches(&mem.out(), &mem.in_(), &p, opts).unwrap());
    assert!(pool.io_stats().misses > 0);
}

/// A watch on its own store ([`WatchStore`]) over random batches, from start graphs with
/// self-loops and repeated arcs (directed ones too: the store reads their undirected view):
/// batches set pairs several times (the last state wins), set pairs to their current state
/// (no change), and grow the graph with vertices that then get edges. After every batch the
/// emitted changes equal the difference of static recounts, with no duplicate, and the store's
/// lists equal the reference edge set's.
#[test]
fn watch_store_emits_exactly_the_changed_matches() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    for p in patterns().into_iter().take(9) {
        for (induced, directed) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut n = 12u32;
            let start_edges: Vec<(Vertex, Vertex, f32)> =
                (0..40).map(|_| (rng.gen_range(0..n), rng.gen_range(0..n), 1.0)).collect();
            let start = TestGraph::new(n as usize, directed, false, start_edges.clone());
            let mut edges: BTreeSet<(Vertex, Vertex)> =
                start_edges.iter().filter(|e| e.0 != e.1).map(|e| (e.0.min(e.1), e.0.max(e.1))).collect();
            let watch = Watch::new(p.clone(), induced);
            let mut store = WatchStore::new(n as usize);
            let opts = MatchOptions { induced, labels: None };
            let graph = |edges: &BTreeSet<(Vertex, Vertex)>, n: u32| {
                TestGraph::new(n as usize, false, false, edges.iter().map(|&(u, v)| (u, v, 1.0)).collect())
            };
            for b in 0..10 {
                let before = graph(&edges, n);
                if b == 4 {
                    n += 3;
                    store.set_num_vertices(n as usize);
                }
                let mut batch = Vec::new();
                for _ in 0..rng.gen_range(1..7) {
                    let (u, v) = (rng.gen_range(0..n), rng.gen_range(0..n));
                    let on = rng.gen_bool(0.5);
                    batch.push((u, v, on));
                    if rng.gen_bool(0.3) {
                        batch.push((v, u, !on));
                    }
                }
                for &(u, v, on) in &batch {
                    if u != v {
                        let e = (u.min(v), u.max(v));
                        if on {
                            edges.insert(e);
                        } else {
                            edges.remove(&e);
                        }
                    }
                }
                let after = graph(&edges, n);
                let ch = store.apply(&watch, (&start.out, &start.in_), None, &batch, &[]).unwrap();
                let old: BTreeSet<_> = keys(&list_matches(&before.out, &before.in_, &p, opts).unwrap(), &p)
                    .into_iter()
                    .collect();
                let new: BTreeSet<_> =
                    keys(&list_matches(&after.out, &after.in_, &p, opts).unwrap(), &p).into_iter().collect();
                let (added, removed) = (keys(&ch.added, &p), keys(&ch.removed, &p));
                let added_set: BTreeSet<_> = added.iter().cloned().collect();
                let removed_set: BTreeSet<_> = removed.iter().cloned().collect();
                assert_eq!(added.len(), added_set.len(), "duplicate additions");
                assert_eq!(removed.len(), removed_set.len(), "duplicate removals");
                assert_eq!(added_set, new.difference(&old).cloned().collect::<BTreeSet<_>>());
                assert_eq!(removed_set, old.difference(&new).cloned().collect::<BTreeSet<_>>());
                for v in 0..n {
                    let want: Vec<Vertex> =
                        (0..n).filter(|&x| x != v && edges.contains(&(v.min(x), v.max(x)))).collect();
                    assert_eq!(store.neighbors((&start.out, &start.in_), v), want, "list of {v}");
                }
            }
        }
    }
}

/// The identity of a labelled match found as the embedding `m` (pattern vertex `i` to data
/// vertex `m[i]`): the smallest of its images under the pattern's automorphisms, so that two
/// embeddings of one match (same data vertices in the same pattern positions, up to the
/// pattern's symmetry) have one key.
fn position_key(m: &[usize], aut: &[Vec<usize>]) -> Vec<usize> {
    aut.iter().map(|s| s.iter().map(|&i| m[i]).collect::<Vec<usize>>()).min().expect("the identity")
}

/// Every match of the labelled pattern `p` by brute force, as position keys.
fn brute_positions(a: &[Vec<bool>], p: &Pattern, induced: bool, labels: &[u32]) -> BTreeSet<Vec<usize>> {
    struct Rec<'a> {
        a: &'a [Vec<bool>],
        p: &'a Pattern,
        induced: bool,
        labels: &'a [u32],
        aut: Vec<Vec<usize>>,
    }
    impl Rec<'_> {
        fn go(&self, m: &mut Vec<usize>, out: &mut BTreeSet<Vec<usize>>) {
            let i = m.len();
            if i == self.p.num_vertices() {
                out.insert(position_key(m, &self.aut));
                return;
            }
            for x in 0..self.a.len() {
                if m.contains(&x) || self.p.label(i).is_some_and(|want| self.labels[x] != want) {
                    continue;
                }
                let ok = (0..i).all(|j| {
                    if self.p.has_edge(i, j) {
                        self.a[x][m[j]]
                    } else {
                        !self.induced || !self.a[x][m[j]]
                    }
                });
                if ok {
                    m.push(x);
                    self.go(m, out);
                    m.pop();
                }
            }
        }
    }
    let mut out = BTreeSet::new();
    Rec { a, p, induced, labels, aut: p.automorphisms() }.go(&mut Vec::new(), &mut out);
    out
}

/// The position keys of flattened matches, checked free of duplicates.
fn position_keys(flat: &[Vertex], p: &Pattern, what: &str) -> BTreeSet<Vec<usize>> {
    let aut = p.automorphisms();
    let list: Vec<Vec<usize>> = flat
        .chunks(p.num_vertices())
        .map(|c| position_key(&c.iter().map(|&x| x as usize).collect::<Vec<_>>(), &aut))
        .collect();
    let set: BTreeSet<Vec<usize>> = list.iter().cloned().collect();
    assert_eq!(set.len(), list.len(), "duplicate {what} matches");
    set
}

/// Labelled patterns (with wildcard vertices) watched over random streams that mix edge
/// additions and removals with label changes (batches of 1 to 20 operations, some vertices
/// relabelled several times in one batch, labels removed and set back), through `Watch::apply`
/// and through a `WatchStore`: after every batch, `added` and `removed` equal the differences
/// of brute-force match sets before and after, and `modified` equals the matches in both
/// whose data vertices' labels changed; no duplicates.
#[test]
fn labelled_watch_emits_added_removed_and_modified_matches() {
    use ocgraph_core::labels::NO_LABEL;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(23);
    let (x, w) = (Some, None::<u32>);
    // (pattern edges, pattern labels with wildcards)
    type Labelled = (Vec<(usize, usize)>, Vec<Option<u32>>);
    let pats: Vec<Labelled> = vec![
        (vec![(0, 1), (1, 2), (2, 0)], vec![x(0), w, x(1)]),
        (vec![(0, 1), (1, 2), (2, 0)], vec![x(0), x(0), x(1)]),
        (vec![(0, 1), (1, 2)], vec![w, x(2), w]),
        (vec![(0, 1), (1, 2), (2, 3)], vec![x(1), w, w, x(0)]),
        (vec![(0, 1), (1, 2), (2, 3), (3, 0)], vec![x(0), x(1), x(0), x(1)]),
        (vec![(0, 1), (0, 2), (1, 2), (2, 3)], vec![w, w, x(2), w]),
        (vec![(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)], vec![w, w, w, w]),
    ];
    let random_label = |rng: &mut Xoshiro256PlusPlus| match rng.gen_range(0..4) {
        3 => NO_LABEL,
        l => l,
    };
    let (mut total_modified, mut total_other) = (0, 0);
    for (edges_p, pl) in pats {
        let p = Pattern::from_edges(&edges_p, Some(pl)).unwrap();
        for (induced, use_store) in [(false, false), (true, false), (false, true), (true, true)] {
            let n = 11u32;
            let mut labels: Vec<u32> = (0..n).map(|_| random_label(&mut rng)).collect();
            let mut edges: BTreeSet<(Vertex, Vertex)> = BTreeSet::new();
            for _ in 0..30 {
                let (u, v) = (rng.gen_range(0..n), rng.gen_range(0..n));
                if u != v {
                    edges.insert((u.min(v), u.max(v)));
                }
            }
            let graph = |edges: &BTreeSet<(Vertex, Vertex)>| {
                TestGraph::new(n as usize, false, false, edges.iter().map(|&(u, v)| (u, v, 1.0)).collect())
            };
            let start = graph(&edges);
            let watch = Watch::new(p.clone(), induced);
            let mut store = WatchStore::new(n as usize);
            for _ in 0..12 {
                let before = graph(&edges);
                let labels_before = labels.clone();
                let (mut pairs, mut relabels) = (Vec::new(), Vec::new());
                // A few vertices take most label changes, so some change several times.
                let hot: Vec<Vertex> = (0..2).map(|_| rng.gen_range(0..n)).collect();
                for _ in 0..rng.gen_range(1..=20) {
                    if rng.gen_bool(0.5) {
                        let v =
                            if rng.gen_bool(0.5) { hot[rng.gen_range(0..2)] } else { rng.gen_range(0..n) };
                        let l = if rng.gen_bool(0.2) {
                            labels_before[v as usize]
                        } else {
                            random_label(&mut rng)
                        };
                        relabels.push((v, l));
                        labels[v as usize] = l;
                    } else {
                        let (u, v) = (rng.gen_range(0..n), rng.gen_range(0..n));
                        let on = rng.gen_bool(0.5);
                        pairs.push((u, v, on));
                        if u != v {
                            let e = (u.min(v), u.max(v));
                            if on {
                                edges.insert(e);
                            } else {
                                edges.remove(&e);
                            }
                        }
                    }
                }
                let after = graph(&edges);
                let ch = if use_store {
                    store
                        .apply(&watch, (&start.out, &start.in_), Some(&labels_before), &pairs, &relabels)
                        .unwrap()
                } else {
                    // `Watch::apply` takes the pairs a batch touched; their state comes from the graphs.
                    let touched: Vec<(Vertex, Vertex)> = pairs.iter().map(|&(u, v, _)| (u, v)).collect();
                    let (b, a) = ((&before.out, &before.in_), (&after.out, &after.in_));
                    watch.apply(b, a, Some(&labels_before), &touched, &relabels).unwrap()
                };
                let old = brute_positions(&matrix(&before), &p, induced, &labels_before);
                let new = brute_positions(&matrix(&after), &p, induced, &labels);
                let relabelled = |m: &Vec<usize>| m.iter().any(|&v| labels_before[v] != labels[v]);
                let want_modified: BTreeSet<Vec<usize>> =
                    old.intersection(&new).filter(|m| relabelled(m)).cloned().collect();
                assert_eq!(position_keys(&ch.added, &p, "added"), new.difference(&old).cloned().collect());
                assert_eq!(
                    position_keys(&ch.removed, &p, "removed"),
                    old.difference(&new).cloned().collect()
                );
                assert_eq!(position_keys(&ch.modified, &p, "modified"), want_modified);
                total_modified += want_modified.len();
                total_other += ch.added.len() + ch.removed.len();
            }
        }
    }
    // The streams exercise every kind of change.
    assert!(total_modified > 50 && total_other > 50, "{total_modified} modified, {total_other} others");
}
