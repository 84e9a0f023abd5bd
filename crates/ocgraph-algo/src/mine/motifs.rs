//! Motif censuses: the number of induced occurrences of every connected 3- and 4-vertex
//! undirected pattern, and the 16-class directed triad census.
//!
//! Undirected (on the simple undirected view): instead of enumerating every connected induced
//! subgraph (ESU, as igraph's `motifs_randesu` does), the census counts each pattern's
//! *non-induced* copies from per-edge and per-vertex quantities and converts them to induced
//! counts with the fixed overlap matrix (how many copies of pattern `P` an induced occurrence
//! of `Q` contains), as in the combinatorial 4-vertex counting of ESCAPE (Pinar, Seshadhri and
//! Vishal, WWW 2017) and PGD (Ahmed et al., ICDM 2015):
//!
//! - size 3: wedges `Σ C(d,2)` and triangles `T` (both from the degree-ordered DAG of
//!   [`super::cliques`]); induced open wedges are `Σ C(d,2) − 3T`;
//! - size 4, non-induced: 3-stars `Σ C(d,3)`, 4-paths `Σ_e (d_u−1)(d_v−1) − 3T`, tailed
//!   triangles `½ Σ_e t_e (d_u + d_v − 4)`, diamonds `Σ_e C(t_e,2)` (`t_e`: triangles on edge
//!   `e`, counted while listing triangles on the DAG), 4-cliques (k-clique search on the DAG),
//!   and 4-cycles by wedge counting at each cycle's highest-ranked vertex (Chiba and
//!   Nishizeki's bound: the middle vertex of each wedge is lower-ranked).
//!
//! Directed: Batagelj and Mrvar's subquadratic triad census ("A subquadratic triad census
//! algorithm for large sparse networks with small maximum degree", Social Networks 2001),
//! giving networkx's `triadic_census` classes in [`TRIAD_NAMES`] order.
//!
//! State: the DAG (see [`super::cliques`]), 4 bytes per undirected edge for the triangle counts
//! per edge, and (4-cycles) one 4-byte counter per vertex per worker thread.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Mutex;

use ocgraph_core::{Adjacency, Error, Result, Vertex};
use rayon::prelude::*;

use super::cliques::Dag;
use super::Undirected;
use crate::bfs::check_directions;
use crate::chunks::{degrees, edge_balanced_ranges, pieces_for};

/// Names of the classes [`motif_census`] returns for `size` (3 or 4), in order.
pub fn motif_names(size: usize) -> Result<&'static [&'static str]> {
    match size {
        3 => Ok(&["wedge", "triangle"]),
        4 => Ok(&["3-star", "4-path", "tailed-triangle", "4-cycle", "diamond", "4-clique"]),
        _ => Err(Error::invalid(format!("motif size must be 3 or 4, not {size}"))),
    }
}

/// The directed triad classes (MAN codes) in the order [`triad_census`] returns them.
pub const TRIAD_NAMES: [&str; 16] = [
    "003", "012", "102", "021D", "021U", "021C", "111D", "111U", "030T", "030C", "201", "120D", "120U",
    "120C", "210", "300",
];

/// Induced occurrences of every connected undirected pattern of `size` (3 or 4) vertices in the
/// undirected simple view of `out`/`in_`, in [`motif_names`] order.
///
/// Errors: another size; directions disagreeing on the vertex count.
pub fn motif_census<O: Adjacency, I: Adjacency>(out: &O, in_: &I, size: usize) -> Result<Vec<u64>> {
    motif_names(size)?;
    let dag = Dag::build(out, in_)?;
    let c2 = |x: u64| x * x.saturating_sub(1) / 2;
    let wedges: u64 = dag.degree.iter().map(|&d| c2(d as u64)).sum();
    if size == 3 {
        let triangles = cliques_on(&dag, 3);
        return Ok(vec![wedges - 3 * triangles, triangles]);
    }
    let per_edge = triangles_per_edge(&dag);
    let triangles: u64 = per_edge.iter().map(|&t| t as u64).sum::<u64>() / 3;
    // Sums over edges (rank u → rank v, in the DAG) of degree and triangle terms.
    let deg = |r: Vertex| dag.degree[dag.order[r as usize] as usize] as u64;
    let (paths, tailed2, diamonds) = (0..dag.len() as Vertex)
        .into_par_iter()
        .map(|u| {
            let base = dag.offsets[u as usize] as usize;
            let du = deg(u);
            dag.list(u).iter().enumerate().fold((0u64, 0u64, 0u64), |(p, t, d), (i, &v)| {
                let (dv, te) = (deg(v), per_edge[base + i] as u64);
                (p + (du - 1) * (dv - 1), t + te * (du + dv).saturating_sub(4), d + c2(te))
            })
        })
        .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
    // C(d, 3) in u128: d(d-1)(d-2) passes 2^64 at a degree of about 2.6M.
    let n_star: u128 = dag
        .degree
        .iter()
        .map(|&d| {
            let d = d as u128;
            d * d.saturating_sub(1) * d.saturating_sub(2) / 6
        })
        .sum();
    let n_path = paths - 3 * triangles;
    let n_tailed = tailed2 / 2;
    let n_diamond = diamonds;
    let n_clique = cliques_on(&dag, 4);
    let n_cycle = four_cycles(out, in_, &dag);
    // Induced from non-induced, most edges first (overlap counts in the module docs).
    let clique = n_clique;
    let diamond = n_diamond - 6 * clique;
    let cycle = n_cycle - diamond - 3 * clique;
    let tailed = n_tailed - 4 * diamond - 12 * clique;
    let path = n_path - 2 * tailed - 4 * cycle - 6 * diamond - 12 * clique;
    let star = n_star - (tailed + 2 * diamond + 4 * clique) as u128;
    let star = u64::try_from(star).map_err(|_| {
        Error::invalid(format!("the graph has {star} induced 3-stars, more than a u64 holds"))
    })?;
    Ok(vec![star, path, tailed, cycle, diamond, clique])
}

/// Number of `k`-cliques of the DAG.
fn cliques_on(dag: &Dag, k: usize) -> u64 {
    dag.ranges()
        .into_par_iter()
        .map(|r| {
            let mut bufs = vec![Vec::new(); k];
            r.map(|u| dag.cliques_at(u, k, &mut bufs, &mut None)).sum::<u64>()
        })
        .sum()
}

/// Triangles on each DAG edge, aligned with `dag.targets`.
fn triangles_per_edge(dag: &Dag) -> Vec<u32> {
    let counts: Vec<AtomicU32> = (0..dag.targets.len()).map(|_| AtomicU32::new(0)).collect();
    dag.ranges().into_par_iter().for_each(|r| {
        for u in r {
            let fu = dag.list(u);
            let base_u = dag.offsets[u as usize] as usize;
            for (i, &v) in fu.iter().enumerate() {
                // Merge fu[i+1..] with F(v), noting the positions of each common w.
                let fv = dag.list(v);
                let base_v = dag.offsets[v as usize] as usize;
                let (mut a, mut b) = (i + 1, 0);
                let mut on_uv = 0;
                while a < fu.len() && b < fv.len() {
                    match fu[a].cmp(&fv[b]) {
                        std::cmp::Ordering::Less => a += 1,
                        std::cmp::Ordering::Greater => b += 1,
                        std::cmp::Ordering::Equal => {
                            on_uv += 1;
                            counts[base_u + a].fetch_add(1, Relaxed);
                            counts[base_v + b].fetch_add(1, Relaxed);
                            a += 1;
                            b += 1;
                        }
                    }
                }
                if on_uv > 0 {
                    counts[base_u + i].fetch_add(on_uv, Relaxed);
                }
            }
        }
    });
    counts.into_iter().map(AtomicU32::into_inner).collect()
}

/// Number of 4-cycles (not necessarily induced): each found at its highest-ranked vertex `v`
/// and its opposite vertex `w`, as `C(c, 2)` over the `c` wedges `v − u − w` with `u` and `w`
/// ranked below `v`. Neighbour lists are read through the page layer.
fn four_cycles<O: Adjacency, I: Adjacency>(out: &O, in_: &I, dag: &Dag) -> u64 {
    let g = Undirected::new(out, in_);
    let n = g.num_vertices();
    let counters: Mutex<Vec<Vec<u32>>> = Mutex::new(Vec::new());
    let deg = degrees(out);
    // Work at v is about Σ over lower neighbours of their degrees: balance by degree squared.
    let work: Vec<u32> = deg.iter().map(|&d| (d as u64 * d as u64).min(u32::MAX as u64) as u32).collect();
    edge_balanced_ranges(&work, pieces_for(n))
        .into_par_iter()
        .map(|r| {
            let mut cnt =
                counters.lock().unwrap_or_else(|e| e.into_inner()).pop().unwrap_or_else(|| vec![0; n]);
            let (mut nv, mut nu, mut touched) = (Vec::new(), Vec::new(), Vec::new());
            let mut total = 0u64;
            for v in r {
                let rv = dag.rank[v as usize];
                g.fill(v, &mut nv);
                for &u in &nv {
                    if dag.rank[u as usize] >= rv {
                        continue;
                    }
                    g.fill(u, &mut nu);
                    for &w in &nu {
                        if w != v && dag.rank[w as usize] < rv {
                            if cnt[w as usize] == 0 {
                                touched.push(w);
                            }
                            cnt[w as usize] += 1;
                        }
                    }
                }
                for &w in &touched {
                    let c = cnt[w as usize] as u64;
                    total += c * (c - 1) / 2;
                    cnt[w as usize] = 0;
                }
                touched.clear();
            }
            counters.lock().unwrap_or_else(|e| e.into_inner()).push(cnt);
            total
        })
        .sum()
}

/// Batagelj–Mrvar's table: triad class index (into [`TRIAD_NAMES`]) of each 6-bit code of the
/// arcs among `(v, u, w)`: bit 0 `v→u`, 1 `u→v`, 2 `v→w`, 3 `w→v`, 4 `u→w`, 5 `w→u`.
const TRICODES: [u8; 64] = [
    1, 2, 2, 3, 2, 4, 6, 8, 2, 6, 5, 7, 3, 8, 7, 11, 2, 6, 4, 8, 5, 9, 9, 13, 6, 10, 9, 14, 7, 14, 12, 15, 2,
    5, 6, 7, 6, 9, 10, 14, 4, 9, 9, 12, 8, 13, 14, 15, 3, 7, 8, 11, 7, 12, 14, 15, 8, 14, 13, 15, 11, 15, 15,
    16,
];

/// The directed triad census of `out`/`in_`: the number of vertex triples in each of the 16
/// classes of [`TRIAD_NAMES`] (networkx's `triadic_census`; an undirected graph's edges count
/// as mutual arcs; self-loops and duplicate arcs are ignored).
///
/// Errors: directions disagreeing on the vertex count; more empty triads than a `u64` holds
/// (found before the census when the arcs are too few to bring the count below, else after it);
/// memory for the degrees and work estimates (8 bytes per vertex) not available.
pub fn triad_census<O: Adjacency, I: Adjacency>(out: &O, in_: &I) -> Result<[u64; 16]> {
    check_directions(out, in_)?;
    let n = out.num_vertices() as u64;
    // A non-empty triad holds a pair joined by an arc (at most as many pairs as out-arcs) and a
    // third vertex: if the count cannot fit even with that many, say so before the census.
    empty_triads(n, out.num_arcs() as u128 * n.saturating_sub(2) as u128)?;
    crate::state::check_state("the triad census", out.num_vertices(), 8)?;
    let deg = degrees(out);
    let work: Vec<u32> = deg.iter().map(|&d| (d as u64 * d as u64).min(u32::MAX as u64) as u32).collect();
    let mut census = edge_balanced_ranges(&work, pieces_for(deg.len()))
        .into_par_iter()
        .map(|r| {
            let mut c = [0u64; 16];
            // The pair's lists, read once per pair: every arc among a triad is looked up in
            // them (a third vertex w's arcs to v are in v's in-list), not in the graph's lists,
            // whose pages a small pool would read again for each w.
            let (mut lv, mut lu, mut s) = (PairLists::default(), PairLists::default(), Vec::new());
            for v in r {
                lv.read(out, in_, v);
                for &u in lv.all.iter().filter(|&&u| u > v) {
                    lu.read(out, in_, u);
                    let (nv, nu) = (&lv.all, &lu.all);
                    // S = N(u) ∪ N(v) minus u and v.
                    s.clear();
                    crate::triangles::for_each_union(nv, nu, v, |x| {
                        if x != u {
                            s.push(x)
                        }
                    });
                    let has = |list: &[Vertex], x: Vertex| list.binary_search(&x).is_ok();
                    let (vu, uv) = (has(&lv.out, u), has(&lv.in_, u));
                    let dyad = if vu && uv { 2 } else { 1 };
                    c[dyad] += n - s.len() as u64 - 2;
                    for &w in &s {
                        if u < w || (v < w && w < u && nv.binary_search(&w).is_err()) {
                            let code = vu as usize
                                | (uv as usize) << 1
                                | (has(&lv.out, w) as usize) << 2
                                | (has(&lv.in_, w) as usize) << 3
                                | (has(&lu.out, w) as usize) << 4
                                | (has(&lu.in_, w) as usize) << 5;
                            c[TRICODES[code] as usize - 1] += 1;
                        }
                    }
                }
            }
            c
        })
        .reduce(
            || [0u64; 16],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        );
    census[0] = empty_triads(n, census[1..].iter().map(|&c| c as u128).sum())?;
    Ok(census)
}

/// A vertex's out- and in-lists (sorted) and their union without the vertex (its simple
/// undirected neighbours), copied from the graph.
#[derive(Default)]
struct PairLists {
    out: Vec<Vertex>,
    in_: Vec<Vertex>,
    all: Vec<Vertex>,
}

impl PairLists {
    /// Reads `x`'s lists, replacing those held.
    fn read<O: Adjacency, I: Adjacency>(&mut self, out: &O, in_: &I, x: Vertex) {
        self.out.clear();
        self.out.extend_from_slice(&out.neighbors(x));
        self.in_.clear();
        self.in_.extend_from_slice(&in_.neighbors(x));
        self.all.clear();
        crate::triangles::for_each_union(&self.out, &self.in_, x, |w| self.all.push(w));
    }
}

/// The empty triads (003) of `n` vertices of which `nonempty` (or at most `nonempty`) triads
/// hold an arc: an error when they are (at least) more than a `u64` holds (C(n, 3) reaches 2^64 at
/// n = 4,801,281).
fn empty_triads(n: u64, nonempty: u128) -> Result<u64> {
    let n = n as u128;
    let all = if n < 3 { 0 } else { n * (n - 1) * (n - 2) / 6 };
    let empty = all.saturating_sub(nonempty);
    u64::try_from(empty).map_err(|_| {
        Error::invalid(format!(
            "the triad census of {n} vertices has at least {empty} empty triads (003), more than a u64 \
             holds"
        ))
    })
}
