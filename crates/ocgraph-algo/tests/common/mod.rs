//! In-memory CSR test graphs implementing `Adjacency`, built from edge lists, plus a proptest
//! strategy for small random graphs (isolated vertices, self-loops, duplicate edges).
#![allow(dead_code)]

use ocgraph_core::{Adjacency, Slice, Vertex};
use proptest::prelude::*;

/// One direction of an in-memory CSR.
#[derive(Debug, Clone)]
pub struct Csr {
    offsets: Vec<usize>,
    targets: Vec<Vertex>,
    weights: Option<Vec<f32>>,
    /// What [`Adjacency::memory_budget`] answers (`Some(0)` sends derived data to scratch files).
    budget: Option<u64>,
}

impl Csr {
    /// Arcs `(src, dst, w)` grouped by source, each list sorted by target (weights follow).
    pub fn from_arcs(n: usize, arcs: &[(Vertex, Vertex, f32)], weighted: bool) -> Csr {
        let mut sorted = arcs.to_vec();
        sorted.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(a.2.total_cmp(&b.2)));
        let mut offsets = vec![0usize; n + 1];
        for a in &sorted {
            offsets[a.0 as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        Csr {
            offsets,
            targets: sorted.iter().map(|a| a.1).collect(),
            weights: weighted.then(|| sorted.iter().map(|a| a.2).collect()),
            budget: None,
        }
    }
}

impl Adjacency for Csr {
    fn num_vertices(&self) -> usize {
        self.offsets.len() - 1
    }
    fn num_arcs(&self) -> u64 {
        self.targets.len() as u64
    }
    fn degree(&self, v: Vertex) -> usize {
        self.offsets[v as usize + 1] - self.offsets[v as usize]
    }
    fn neighbors(&self, v: Vertex) -> Slice<'_, Vertex> {
        Slice::from_slice(&self.targets[self.offsets[v as usize]..self.offsets[v as usize + 1]])
    }
    fn weights(&self, v: Vertex) -> Option<Slice<'_, f32>> {
        self.weights
            .as_ref()
            .map(|w| Slice::from_slice(&w[self.offsets[v as usize]..self.offsets[v as usize + 1]]))
    }
    fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }
    fn memory_budget(&self) -> Option<u64> {
        self.budget
    }
    /// This object's identity: an adjacency passed twice serves the same lists.
    fn lists_id(&self) -> Option<(usize, ocgraph_core::page::FileId)> {
        Some((self as *const Csr as usize, 0))
    }
}

/// A test graph: its edge list and both CSR directions (for undirected graphs both directions
/// hold every edge both ways, a self-loop once, as the on-disk format stores them).
#[derive(Debug, Clone)]
pub struct TestGraph {
    pub n: usize,
    pub directed: bool,
    pub weighted: bool,
    pub edges: Vec<(Vertex, Vertex, f32)>,
    pub out: Csr,
    pub in_: Csr,
}

impl TestGraph {
    pub fn new(n: usize, directed: bool, weighted: bool, edges: Vec<(Vertex, Vertex, f32)>) -> TestGraph {
        let arcs = Self::arcs_of(directed, &edges);
        let out = Csr::from_arcs(n, &arcs, weighted);
        let rev: Vec<_> = arcs.iter().map(|&(u, v, w)| (v, u, w)).collect();
        let in_ = if directed { Csr::from_arcs(n, &rev, weighted) } else { out.clone() };
        TestGraph { n, directed, weighted, edges, out, in_ }
    }

    /// The same graph with [`Adjacency::memory_budget`] answering `budget` in both directions.
    pub fn with_budget(mut self, budget: Option<u64>) -> TestGraph {
        self.out.budget = budget;
        self.in_.budget = budget;
        self
    }

    /// The stored arcs (both directions of each undirected non-loop edge).
    pub fn arcs(&self) -> Vec<(Vertex, Vertex, f32)> {
        Self::arcs_of(self.directed, &self.edges)
    }

    fn arcs_of(directed: bool, edges: &[(Vertex, Vertex, f32)]) -> Vec<(Vertex, Vertex, f32)> {
        let mut arcs = edges.to_vec();
        if !directed {
            arcs.extend(edges.iter().filter(|e| e.0 != e.1).map(|&(u, v, w)| (v, u, w)));
        }
        arcs
    }

    /// Plain out-adjacency lists (with duplicates), unit weights when unweighted.
    pub fn adj(&self) -> Vec<Vec<(Vertex, f64)>> {
        let mut adj = vec![Vec::new(); self.n];
        for (u, v, w) in self.arcs() {
            adj[u as usize].push((v, if self.weighted { w as f64 } else { 1.0 }));
        }
        adj
    }
}

/// Random small graphs: up to 30 vertices (some isolated), up to 90 edges with self-loops and
/// duplicates, directed or not, weights in a few small values (so ties occur) when weighted.
pub fn arb_graph() -> impl Strategy<Value = TestGraph> {
    (1usize..30, any::<bool>(), any::<bool>()).prop_flat_map(|(n, directed, weighted)| {
        let edge =
            (0..n as Vertex, 0..n as Vertex, prop_oneof![Just(1.0f32), Just(2.0), Just(0.5), 0.0f32..10.0]);
        proptest::collection::vec(edge, 0..90)
            .prop_map(move |edges| TestGraph::new(n, directed, weighted, edges))
    })
}

/// Hop distances from `s` by a plain queue BFS over out-arcs (`None` = unreachable).
pub fn bfs_distances(g: &TestGraph, s: Vertex) -> Vec<Option<u64>> {
    let adj = g.adj();
    let mut dist = vec![None; g.n];
    dist[s as usize] = Some(0);
    let mut queue = std::collections::VecDeque::from([s]);
    while let Some(u) = queue.pop_front() {
        for &(v, _) in &adj[u as usize] {
            if dist[v as usize].is_none() {
                dist[v as usize] = Some(dist[u as usize].unwrap() + 1);
                queue.push_back(v);
            }
        }
    }
    dist
}

/// A random graph with `n` vertices and `m` edges from a fixed seed (for multi-block tests).
pub fn random_graph(n: usize, m: usize, directed: bool, weighted: bool, seed: u64) -> TestGraph {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let edges = (0..m)
        .map(|_| {
            // Skewed sources/targets so some vertices are hubs.
            let a = (rng.gen::<f64>().powi(3) * n as f64) as Vertex;
            let b = rng.gen_range(0..n as Vertex);
            (a.min(n as Vertex - 1), b, rng.gen_range(1..10) as f32)
        })
        .collect();
    TestGraph::new(n, directed, weighted, edges)
}

/// Stores `g` as a graph directory at `dir`: duplicate edges kept (as the test graph has
/// them) unless `dedup`.
pub fn store(dir: &std::path::Path, g: &TestGraph, dedup: bool) {
    use ocgraph_core::ingest::{BuildOptions, GraphBuilder, IdMap, NoProgress};
    let o = BuildOptions { directed: g.directed, weighted: g.weighted, dedup, ..BuildOptions::default() };
    let mut b = GraphBuilder::new(dir, o).unwrap();
    b.reserve_vertices(g.n as u64);
    let (s, d): (Vec<Vertex>, Vec<Vertex>) = g.edges.iter().map(|e| (e.0, e.1)).unzip();
    let w: Vec<f32> = g.edges.iter().map(|e| e.2).collect();
    b.push(&s, &d, g.weighted.then_some(&w[..])).unwrap();
    b.finish(IdMap::Identity, &NoProgress).unwrap();
}

/// Writes the checksum of the data file `name` of the graph at `dir` into its manifest, as if
/// the file had been written damaged: the damage then passes open's checksum pass, as it does
/// on a graph too large to be checked whole on open, and reaches the checks of the kernels.
pub fn restamp(dir: &std::path::Path, name: &str) {
    let mut m = ocgraph_core::format::Manifest::read(dir).unwrap();
    let bytes = std::fs::read(m.data_path(dir).join(name)).unwrap();
    m.files.get_mut(name).unwrap().crc32c = crc32c::crc32c(&bytes);
    m.write_atomic(dir).unwrap();
}

/// Options opening a graph through a buffer pool of `frames` 4 KiB frames.
pub fn pool(frames: u64) -> ocgraph_core::OpenOptions {
    let backend = ocgraph_core::page::BackendKind::Pool {
        capacity: frames * 4096,
        page_size: 4096,
        policy: "clock".into(),
    };
    ocgraph_core::OpenOptions { backend }
}
