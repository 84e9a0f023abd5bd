//! Query workloads: seeded generators and the binary workload file.
//!
//! Kinds (seed 000):
//! - [`QueryKind::Edge`]: edge queries (a vertex's neighbour list) from the *alpha-recency*
//!   generator: with probability `alpha` a uniformly random vertex, otherwise a uniform pick from
//!   a FIFO of recently seen vertices of capacity `queue`; after each query the vertex and then
//!   its out-neighbours enter the FIFO (the oldest entries leave). The first query, with the FIFO
//!   empty, is uniform.
//! - [`QueryKind::FriendsOfFriends`]: uniformly random vertices.
//! - [`QueryKind::ShortestPath`]: uniformly random `(source, target)` pairs.
//!
//! Random numbers come from `Xoshiro256PlusPlus::seed_from_u64(seed)`: a uniform vertex is
//! `gen_range(0..n)`, the alpha test is `gen::<f64>() < alpha`, a FIFO pick is
//! `gen_range(0..len)`. The same graph, parameters and seed give the same file.
//!
//! File format (little-endian; `docs/design.md` has the same table):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `OCGQRY01` |
//! | 8 | 4 | format version, u32 = 1 |
//! | 12 | 4 | kind, u32: 0 edge queries, 1 friends-of-friends, 2 shortest path |
//! | 16 | 8 | query count `N`, u64 |
//! | 24 | 8 | vertex count of the graph generated from, u64 |
//! | 32 | 8 | seed, u64 |
//! | 40 | 8 | alpha, f64 (edge queries; 0 otherwise) |
//! | 48 | 8 | FIFO capacity `L`, u64 (edge queries; 0 otherwise) |
//! | 56 | 4 | vertices per query `k`, u32 (1, or 2 for shortest path) |
//! | 60 | 4 | CRC-32C of the payload |
//! | 64 | 4·k·N | payload: the queries' vertex ids, u32 each, in query order |

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::error::{Error, Result};
use crate::graph::{Adjacency, Vertex};

/// Magic bytes at the start of a workload file.
pub const MAGIC: &[u8; 8] = b"OCGQRY01";
/// The workload format version written and read.
pub const VERSION: u32 = 1;
/// Header size in bytes.
pub const HEADER_LEN: usize = 64;

/// What the queries of a workload ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryKind {
    /// The out-neighbour list of a vertex.
    Edge,
    /// The vertices at distance exactly 2 from a vertex.
    FriendsOfFriends,
    /// A fewest-hops path between two vertices.
    ShortestPath,
}

impl QueryKind {
    /// The kind's code in the file header.
    pub fn code(self) -> u32 {
        match self {
            QueryKind::Edge => 0,
            QueryKind::FriendsOfFriends => 1,
            QueryKind::ShortestPath => 2,
        }
    }

    /// The kind with header code `code`.
    pub fn from_code(code: u32) -> Option<QueryKind> {
        Some(match code {
            0 => QueryKind::Edge,
            1 => QueryKind::FriendsOfFriends,
            2 => QueryKind::ShortestPath,
            _ => return None,
        })
    }

    /// Vertices per query.
    pub fn arity(self) -> usize {
        if self == QueryKind::ShortestPath {
            2
        } else {
            1
        }
    }

    /// The kind's name on the command line (`edge-queries`, `fof`, `shortest-path`).
    pub fn name(self) -> &'static str {
        match self {
            QueryKind::Edge => "edge-queries",
            QueryKind::FriendsOfFriends => "fof",
            QueryKind::ShortestPath => "shortest-path",
        }
    }
}

/// A stream of queries, with the parameters that generated it.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    /// What every query asks.
    pub kind: QueryKind,
    /// Vertex count of the graph the workload was generated for.
    pub num_vertices: u64,
    /// The generator's seed.
    pub seed: u64,
    /// Probability of a uniform pick (edge queries; 0 otherwise).
    pub alpha: f64,
    /// FIFO capacity (edge queries; 0 otherwise).
    pub queue: u64,
    /// The queries' vertices, `kind.arity()` per query, in order.
    pub vertices: Vec<Vertex>,
    /// The file it was loaded from, named by its errors (`None` when generated in memory).
    pub file: Option<PathBuf>,
}

impl Workload {
    /// Number of queries.
    pub fn len(&self) -> usize {
        self.vertices.len() / self.kind.arity()
    }

    /// Whether there are no queries.
    pub fn is_empty(&self) -> bool {
        self.vertices.is_empty()
    }

    /// The vertices of query `i` (one, or `[source, target]`).
    pub fn query(&self, i: usize) -> &[Vertex] {
        let k = self.kind.arity();
        &self.vertices[i * k..(i + 1) * k]
    }

    /// Alpha-recency edge queries over the out-edges `g` (see the module docs).
    ///
    /// Errors: `alpha` outside `[0, 1]`, `queue == 0`, or an empty graph.
    pub fn edge_queries<A: Adjacency>(
        g: &A,
        alpha: f64,
        queue: usize,
        count: usize,
        seed: u64,
    ) -> Result<Self> {
        if !(0.0..=1.0).contains(&alpha) {
            return Err(Error::invalid(format!("alpha {alpha} must lie in [0, 1]")));
        }
        if queue == 0 {
            return Err(Error::invalid("the recent-vertex queue needs a capacity of at least 1"));
        }
        let n = nonempty(g.num_vertices())?;
        let mut vertices = query_vertices(count, 1)?;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        // Grown as needed: a queue far longer than the workload is never filled.
        let mut fifo: VecDeque<Vertex> = VecDeque::with_capacity(queue.min(count).min(1 << 16));
        for _ in 0..count {
            let v = if fifo.is_empty() || rng.gen::<f64>() < alpha {
                rng.gen_range(0..n) as Vertex
            } else {
                fifo[rng.gen_range(0..fifo.len())]
            };
            vertices.push(v);
            // Push v then its neighbours; only the last `queue` of them can survive, so skip the
            // others (same FIFO content as pushing them all).
            let nbrs = g.neighbors(v);
            let total = nbrs.len() + 1;
            if total >= queue {
                fifo.clear();
                let from = if total == queue {
                    fifo.push_back(v);
                    0
                } else {
                    nbrs.len() - queue
                };
                fifo.extend(nbrs[from..].iter().copied());
            } else {
                for x in std::iter::once(v).chain(nbrs.iter().copied()) {
                    if fifo.len() == queue {
                        fifo.pop_front();
                    }
                    fifo.push_back(x);
                }
            }
        }
        Ok(Workload {
            kind: QueryKind::Edge,
            num_vertices: n,
            seed,
            alpha,
            queue: queue as u64,
            vertices,
            file: None,
        })
    }

    /// `count` uniformly random vertices of a graph of `n` vertices, for friends-of-friends.
    pub fn friends_of_friends(n: usize, count: usize, seed: u64) -> Result<Self> {
        Self::uniform(QueryKind::FriendsOfFriends, n, count, seed)
    }

    /// `count` uniformly random `(source, target)` pairs of a graph of `n` vertices.
    pub fn shortest_paths(n: usize, count: usize, seed: u64) -> Result<Self> {
        Self::uniform(QueryKind::ShortestPath, n, count, seed)
    }

    fn uniform(kind: QueryKind, n: usize, count: usize, seed: u64) -> Result<Self> {
        let n = nonempty(n)?;
        let mut vertices = query_vertices(count, kind.arity())?;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        vertices.extend((0..count * kind.arity()).map(|_| rng.gen_range(0..n) as Vertex));
        Ok(Workload { kind, num_vertices: n, seed, alpha: 0.0, queue: 0, vertices, file: None })
    }

    /// The file's bytes (see the module docs).
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload: &[u8] = bytemuck::cast_slice(&self.vertices);
        let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&self.kind.code().to_le_bytes());
        out.extend_from_slice(&(self.len() as u64).to_le_bytes());
        out.extend_from_slice(&self.num_vertices.to_le_bytes());
        out.extend_from_slice(&self.seed.to_le_bytes());
        out.extend_from_slice(&self.alpha.to_le_bytes());
        out.extend_from_slice(&self.queue.to_le_bytes());
        out.extend_from_slice(&(self.kind.arity() as u32).to_le_bytes());
        out.extend_from_slice(&crc32c::crc32c(payload).to_le_bytes());
        for v in &self.vertices {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// Parses a workload file's bytes; `path` names the file in errors.
    pub fn from_bytes(path: &Path, b: &[u8]) -> Result<Self> {
        let bad = |offset: u64, msg: String| Error::input_offset(path, offset, msg);
        if b.len() < HEADER_LEN {
            return Err(bad(b.len() as u64, format!("{} bytes, shorter than the 64-byte header", b.len())));
        }
        if &b[..8] != MAGIC {
            return Err(bad(0, "not an ocgraph workload file (bad magic)".into()));
        }
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        let version = u32_at(8);
        if version != VERSION {
            return Err(bad(8, format!("workload format version {version}, this build reads {VERSION}")));
        }
        let kind = QueryKind::from_code(u32_at(12))
            .ok_or_else(|| bad(12, format!("unknown kind {}", u32_at(12))))?;
        let count = u64_at(16);
        let arity = u32_at(56);
        if arity as usize != kind.arity() {
            return Err(bad(
                56,
                format!("{arity} vertices per query, kind {} has {}", kind.name(), kind.arity()),
            ));
        }
        let expected = count.checked_mul(4 * arity as u64).and_then(|p| p.checked_add(HEADER_LEN as u64));
        if expected != Some(b.len() as u64) {
            return Err(bad(16, format!("{count} queries do not match the file size of {} bytes", b.len())));
        }
        let payload = &b[HEADER_LEN..];
        if crc32c::crc32c(payload) != u32_at(60) {
            return Err(bad(60, "payload checksum mismatch".into()));
        }
        let num_vertices = u64_at(24);
        let vertices: Vec<Vertex> =
            payload.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))).collect();
        if let Some(i) = vertices.iter().position(|&v| v as u64 >= num_vertices) {
            return Err(bad(
                (HEADER_LEN + 4 * i) as u64,
                format!("vertex {} out of range (the graph has {num_vertices})", vertices[i]),
            ));
        }
        let alpha = f64::from_le_bytes(b[40..48].try_into().expect("8 bytes"));
        Ok(Workload { kind, num_vertices, seed: u64_at(32), alpha, queue: u64_at(48), vertices, file: None })
    }

    /// Writes the workload to `path`.
    pub fn save(&self, path: &Path) -> Result<()> {
        crate::format::OutputFile::write_whole(path, &self.to_bytes())
    }

    /// Reads a workload file.
    pub fn load(path: &Path) -> Result<Self> {
        let b = std::fs::read(path).map_err(|e| Error::io(path, "read", e))?;
        Ok(Workload { file: Some(path.to_path_buf()), ..Self::from_bytes(path, &b)? })
    }

    /// Checks that the workload fits the graph at `graph` of `n` vertices; the error names
    /// both (and the workload's file, when it was loaded from one).
    pub fn check_graph(&self, graph: &Path, n: usize) -> Result<()> {
        if self.num_vertices != n as u64 {
            let file = self.file.as_ref().map(|f| format!("{}: ", f.display())).unwrap_or_default();
            return Err(Error::invalid(format!(
                "{file}the workload was generated for a graph of {} vertices, the graph {} has {n}",
                self.num_vertices,
                graph.display()
            )));
        }
        Ok(())
    }
}

/// Most queries a workload holds (the file's vertices are `u32`s counted by a `u64`).
const MAX_QUERIES: usize = 1 << 32;

/// An empty vector with room for the `arity` vertices of each of `count` queries, which are
/// generated in memory before the file is written: a count beyond [`MAX_QUERIES`], or more
/// than memory holds, is an error rather than an overflow or an aborted allocation.
fn query_vertices(count: usize, arity: usize) -> Result<Vec<Vertex>> {
    if count > MAX_QUERIES / arity {
        return Err(Error::invalid(format!(
            "count {count}: a workload holds at most {} queries of this kind",
            MAX_QUERIES / arity
        )));
    }
    let mut v = Vec::new();
    v.try_reserve_exact(count * arity).map_err(|_| {
        Error::invalid(format!("count {count}: not enough memory for the queries' vertices (4 bytes each)"))
    })?;
    Ok(v)
}

fn nonempty(n: usize) -> Result<u64> {
    if n == 0 {
        return Err(Error::invalid("the graph has no vertices"));
    }
    Ok(n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Slice;

    /// A small in-memory adjacency for the generator tests.
    struct Lists(Vec<Vec<Vertex>>);

    impl Adjacency for Lists {
        fn num_vertices(&self) -> usize {
            self.0.len()
        }
        fn num_arcs(&self) -> u64 {
            self.0.iter().map(|l| l.len() as u64).sum()
        }
        fn degree(&self, v: Vertex) -> usize {
            self.0[v as usize].len()
        }
        fn neighbors(&self, v: Vertex) -> Slice<'_, Vertex> {
            Slice::from_slice(&self.0[v as usize])
        }
        fn weights(&self, _v: Vertex) -> Option<Slice<'_, f32>> {
            None
        }
        fn is_weighted(&self) -> bool {
            false
        }
    }

    /// The alpha-recency generator written the obvious way: push everything into a FIFO.
    fn reference(g: &Lists, alpha: f64, queue: usize, count: usize, seed: u64) -> Vec<Vertex> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut fifo = VecDeque::new();
        let mut out = Vec::new();
        for _ in 0..count {
            let v = if fifo.is_empty() || rng.gen::<f64>() < alpha {
                rng.gen_range(0..g.0.len() as u64) as Vertex
            } else {
                fifo[rng.gen_range(0..fifo.len())]
            };
            out.push(v);
            for &x in std::iter::once(&v).chain(&g.0[v as usize]) {
                fifo.push_back(x);
                if fifo.len() > queue {
                    fifo.pop_front();
                }
            }
        }
        out
    }

    fn star_and_path() -> Lists {
        // 0 is a hub joined to 1..=20; 21-22-23-24 is a path; 25 isolated.
        let mut l = vec![Vec::new(); 26];
        for v in 1..=20 {
            l[0].push(v);
            l[v as usize].push(0);
        }
        for (a, b) in [(21, 22), (22, 23), (23, 24)] {
            l[a].push(b as Vertex);
            l[b].push(a as Vertex);
        }
        Lists(l)
    }

    #[test]
    fn edge_queries_match_reference_fifo() {
        let g = star_and_path();
        for (alpha, queue) in [(0.1, 5), (0.5, 3), (0.0, 50), (1.0, 7), (0.2, 1), (0.3, 21)] {
            let w = Workload::edge_queries(&g, alpha, queue, 500, 9).unwrap();
            assert_eq!(w.vertices, reference(&g, alpha, queue, 500, 9), "alpha {alpha} queue {queue}");
        }
    }

    #[test]
    fn recency_concentrates_queries() {
        // With alpha = 0 every query after the first is a recently seen vertex: a neighbour or
        // the previous vertex itself, so consecutive queries lie within 2 hops on this graph.
        let g = star_and_path();
        let w = Workload::edge_queries(&g, 0.0, 4, 300, 1).unwrap();
        let comp = |v: Vertex| {
            if v <= 20 {
                0
            } else if v <= 24 {
                1
            } else {
                2
            }
        };
        assert!(w.vertices.windows(2).all(|p| comp(p[0]) == comp(p[1])));
        let distinct: std::collections::HashSet<_> = w.vertices.iter().collect();
        assert!(distinct.len() < 26);
    }

    #[test]
    fn file_round_trip_and_errors() {
        let g = star_and_path();
        let p = Path::new("w.bin");
        for w in [
            Workload::edge_queries(&g, 0.5, 10, 100, 3).unwrap(),
            Workload::friends_of_friends(26, 10, 4).unwrap(),
            Workload::shortest_paths(26, 7, 5).unwrap(),
        ] {
            let b = w.to_bytes();
            assert_eq!(b.len(), 64 + 4 * w.vertices.len());
            assert_eq!(&b[12..16], &w.kind.code().to_le_bytes());
            assert_eq!(Workload::from_bytes(p, &b).unwrap(), w);
        }
        let w = Workload::shortest_paths(26, 7, 5).unwrap();
        assert_eq!(w.len(), 7);
        let good = w.to_bytes();
        let mut b = good.clone();
        b[0] = b'X';
        assert!(Workload::from_bytes(p, &b).unwrap_err().to_string().contains("magic"));
        let mut b = good.clone();
        b[70] ^= 1;
        assert!(Workload::from_bytes(p, &b).unwrap_err().to_string().contains("checksum"));
        assert!(Workload::from_bytes(p, &good[..good.len() - 4]).is_err());
        assert!(Workload::from_bytes(p, &good[..10]).is_err());
        assert!(Workload::edge_queries(&g, 1.5, 10, 1, 0).is_err());
        assert!(Workload::edge_queries(&g, 0.5, 0, 1, 0).is_err());
        assert!(Workload::friends_of_friends(0, 1, 0).is_err());
        let e = w.check_graph(Path::new("G"), 27).unwrap_err().to_string();
        assert!(e.contains("generated for a graph of 26 vertices, the graph G has 27"), "{e}");
        assert!(w.check_graph(Path::new("G"), 26).is_ok());
    }
}
