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
//! Directed (networkx's `triadic_census` classes, in [`TRIAD_NAMES`] order): combinatorial as
//! well, with no work per pair of a vertex's neighbours, where Batagelj and Mrvar's census ("A
//! subquadratic triad census algorithm for large sparse networks with small maximum degree",
//! Social Networks 2001) scans `N(u) ∪ N(v)` for every adjacent pair and so costs a hub of
//! degree `d` about `d²` steps. Each vertex's neighbours are counted by dyad (out-only `a`,
//! in-only `b`, mutual `c`); the pairs of neighbours centred there give the two-dyad classes
//! as if the pair were not joined (021D `C(a,2)`, 021U `C(b,2)`, 021C `ab`, 111D/111U `ac` and
//! `bc`, 201 `C(c,2)`; the class of each combination is read from Batagelj and Mrvar's code
//! table). Each triangle of the undirected view is then listed once on the degree-ordered DAG
//! of [`super::cliques`], classed by its three dyads (030T, 030C, 120D, 120U, 120C, 210, 300)
//! and taken out of the open pairs at each of its three centres. The one-dyad classes (012,
//! 102) are each dyad `{x, y}` times the `n − 2` third vertices less the connected triads it
//! is in, `(d_x − 1) + (d_y − 1) − t_xy` (`t_xy` triangles on it), and 003 is `C(n, 3)` less
//! the rest. Counts are summed in `u128`, and a class past a `u64` is an error. Time: one scan of
//! the lists and the triangle listing, `O(m √m)` at worst.
//!
//! State: the DAG (see [`super::cliques`]); the 4-vertex census adds 4 bytes per undirected
//! edge for the triangle counts per edge and (4-cycles) one 4-byte counter per vertex per
//! worker thread; the triad census adds 2 bits per undirected edge (the dyad of each DAG
//! edge, in memory).

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Mutex;

use ocgraph_core::{Adjacency, Error, Result, Vertex};
use rayon::prelude::*;

use super::cliques::Dag;
use super::Undirected;
use crate::bfs::check_directions;
use crate::chunks::{degrees, edge_balanced_ranges, mark_cuts, pieces_for, vertex_blocks};

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

/// Triad class index (into [`TRIAD_NAMES`]) plus one of each 6-bit code of the arcs among
/// `(v, u, w)`: bit 0 `v→u`, 1 `u→v`, 2 `v→w`, 3 `w→v`, 4 `u→w`, 5 `w→u` (networkx's
/// `TRICODES`, after Batagelj and Mrvar).
const TRICODES: [u8; 64] = [
    1, 2, 2, 3, 2, 4, 6, 8, 2, 6, 5, 7, 3, 8, 7, 11, 2, 6, 4, 8, 5, 9, 9, 13, 6, 10, 9, 14, 7, 14, 12, 15, 2,
    5, 6, 7, 6, 9, 10, 14, 4, 9, 9, 12, 8, 13, 14, 15, 3, 7, 8, 11, 7, 12, 14, 15, 8, 14, 13, 15, 11, 15, 15,
    16,
];

/// A dyad seen from one end `x` towards the other `y`: 1 `x→y` only, 2 `y→x` only, 3 both.
type Dyad = u8;

/// The same dyad seen from its other end.
fn flip(d: Dyad) -> Dyad {
    (d >> 1) | (d & 1) << 1
}

/// Class index of the open triad (two dyads) whose centre has dyads `d1` and `d2` with the two
/// other vertices, themselves not joined.
fn open_class(d1: Dyad, d2: Dyad) -> usize {
    TRICODES[(d1 | d2 << 2) as usize] as usize - 1
}

/// Class index of the closed triad (a triangle of the undirected view `u`, `v`, `w`) of dyads
/// `d_uv`, `d_uw` (seen from `u`) and `d_vw` (seen from `v`).
fn closed_class(d_uv: Dyad, d_uw: Dyad, d_vw: Dyad) -> usize {
    TRICODES[(d_uv | d_uw << 2 | d_vw << 4) as usize] as usize - 1
}

/// Calls `f(x, dyad)` for each distinct neighbour `x ≠ v` of `v`, given `v`'s sorted out- and
/// in-lists (duplicates allowed), in increasing `x`.
fn for_each_dyad(out: &[Vertex], in_: &[Vertex], v: Vertex, mut f: impl FnMut(Vertex, Dyad)) {
    let (mut i, mut j) = (0, 0);
    while i < out.len() || j < in_.len() {
        let x = match (out.get(i), in_.get(j)) {
            (Some(&a), Some(&b)) => a.min(b),
            (Some(&a), None) => a,
            (None, Some(&b)) => b,
            (None, None) => break,
        };
        let mut d = 0;
        while i < out.len() && out[i] == x {
            i += 1;
            d |= 1;
        }
        while j < in_.len() && in_[j] == x {
            j += 1;
            d |= 2;
        }
        if x != v {
            f(x, d);
        }
    }
}

/// Calls `f(i, j)` for each common value `a[i] == b[j]` of two sorted, duplicate-free lists:
/// a binary search in `b` per element of `a` when `a` is much the shorter (a low-ranked
/// vertex's few later neighbours against a hub's list), else a merge.
fn for_each_common(a: &[Vertex], b: &[Vertex], mut f: impl FnMut(usize, usize)) {
    if a.len() * 16 < b.len() {
        let mut lo = 0;
        for (i, &x) in a.iter().enumerate() {
            lo += b[lo..].partition_point(|&y| y < x);
            if lo == b.len() {
                return;
            }
            if b[lo] == x {
                f(i, lo);
            }
        }
        return;
    }
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x == y {
            f(i, j);
        }
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
}

/// What the census sums over vertices (pass 1): open pairs by class (connected or not), and
/// the terms of the one-dyad triads.
#[derive(Clone, Copy, Default)]
struct VertexSums {
    /// Pairs of neighbours of a centre by the class they make when not joined to each other.
    open: [u128; 16],
    /// Σ over asymmetric dyads `{x, y}` of `(d_x − 1) + (d_y − 1)` (`d`: undirected degree).
    asym_wedges: u128,
    /// The same over mutual dyads.
    mutual_wedges: u128,
    /// Ends of asymmetric dyads (twice their number).
    asym_ends: u128,
    /// Ends of mutual dyads.
    mutual_ends: u128,
}

impl VertexSums {
    /// Adds a vertex of `a` out-only, `b` in-only and `c` mutual neighbours.
    fn add(&mut self, a: u64, b: u64, c: u64) {
        let (a, b, c) = (a as u128, b as u128, c as u128);
        let c2 = |x: u128| x * x.saturating_sub(1) / 2;
        self.open[open_class(1, 1)] += c2(a);
        self.open[open_class(2, 2)] += c2(b);
        self.open[open_class(3, 3)] += c2(c);
        self.open[open_class(1, 2)] += a * b;
        self.open[open_class(1, 3)] += a * c;
        self.open[open_class(2, 3)] += b * c;
        let others = (a + b + c).saturating_sub(1);
        self.asym_wedges += (a + b) * others;
        self.mutual_wedges += c * others;
        self.asym_ends += a + b;
        self.mutual_ends += c;
    }

    fn merge(mut self, o: VertexSums) -> VertexSums {
        self.open.iter_mut().zip(o.open).for_each(|(x, y)| *x += y);
        self.asym_wedges += o.asym_wedges;
        self.mutual_wedges += o.mutual_wedges;
        self.asym_ends += o.asym_ends;
        self.mutual_ends += o.mutual_ends;
        self
    }
}

/// The directed triad census of `out`/`in_`: the number of vertex triples in each of the 16
/// classes of [`TRIAD_NAMES`] (networkx's `triadic_census`; an undirected graph's edges count
/// as mutual arcs; self-loops and duplicate arcs are ignored). Combinatorial (see the module
/// docs): no work per pair of a hub's neighbours.
///
/// Errors: directions disagreeing on the vertex count; more triads of a class than a `u64`
/// holds (for the empty triads, found before the census when the arcs are too few to bring
/// the count below); memory for the per-vertex state (see [`super::cliques`]) not available.
pub fn triad_census<O: Adjacency, I: Adjacency>(out: &O, in_: &I) -> Result<[u64; 16]> {
    check_directions(out, in_)?;
    let n = out.num_vertices() as u64;
    // A non-empty triad holds a pair joined by an arc (at most as many pairs as out-arcs) and a
    // third vertex: if the count cannot fit even with that many, say so before the census.
    empty_triads(n, out.num_arcs() as u128 * n.saturating_sub(2) as u128)?;
    let dag = Dag::build(out, in_)?;
    // Pass 1, one range scan of the lists: each vertex's neighbours by dyad (the open pairs
    // centred there and the one-dyad terms), and the dyad of each DAG edge seen from its
    // lower-ranked end, 2 bits per edge aligned with `dag.targets`.
    let dyads: Vec<AtomicU32> = (0..dag.targets.len().div_ceil(16)).map(|_| AtomicU32::new(0)).collect();
    let blocks = vertex_blocks(out.num_vertices());
    mark_cuts(out, &blocks);
    if out.lists_id().is_none() || out.lists_id() != in_.lists_id() {
        mark_cuts(in_, &blocks);
    }
    let sums = blocks
        .into_par_iter()
        .map(|b| {
            let mut s = VertexSums::default();
            out.for_each_in_range(b, |v, o| {
                let rv = dag.rank[v as usize];
                let (fv, base) = (dag.list(rv), dag.offsets[rv as usize] as usize);
                let mut count = [0u64; 4];
                for_each_dyad(o, &in_.neighbors(v), v, |x, d| {
                    count[d as usize] += 1;
                    let rx = dag.rank[x as usize];
                    if rx > rv {
                        let e = base + fv.partition_point(|&t| t < rx);
                        dyads[e / 16].fetch_or((d as u32) << (2 * (e % 16)), Relaxed);
                    }
                });
                s.add(count[1], count[2], count[3]);
            });
            s
        })
        .reduce(VertexSums::default, VertexSums::merge);
    let dyad = |e: usize| (dyads[e / 16].load(Relaxed) >> (2 * (e % 16)) & 3) as Dyad;
    // Pass 2, on the DAG: each triangle once, from its lowest rank u (then v, then w), counted
    // by the 6-bit code of its dyads; each code's class, and the open pairs it is not at each
    // of its three centres, are looked up once after.
    let by_code = dag
        .ranges()
        .into_par_iter()
        .map(|r| {
            let mut by_code = [0u64; 64];
            for u in r {
                let (fu, bu) = (dag.list(u), dag.offsets[u as usize] as usize);
                for (i, &v) in fu.iter().enumerate() {
                    let (fv, bv) = (dag.list(v), dag.offsets[v as usize] as usize);
                    let d_uv = dyad(bu + i);
                    for_each_common(&fu[i + 1..], fv, |a, b| {
                        by_code[(d_uv | dyad(bu + i + 1 + a) << 2 | dyad(bv + b) << 4) as usize] += 1;
                    });
                }
            }
            by_code
        })
        .reduce(
            || [0u64; 64],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        );
    let (mut closed, mut joined) = ([0u64; 16], [0u64; 16]);
    for (code, &c) in by_code.iter().enumerate() {
        let (d_uv, d_uw, d_vw) = (code as Dyad & 3, code as Dyad >> 2 & 3, code as Dyad >> 4);
        if c > 0 {
            closed[closed_class(d_uv, d_uw, d_vw)] += c;
            joined[open_class(d_uv, d_uw)] += c;
            joined[open_class(flip(d_uv), d_vw)] += c;
            joined[open_class(flip(d_uw), flip(d_vw))] += c;
        }
    }
    let mut census = [0u128; 16];
    for k in 0..16 {
        census[k] = sums.open[k] - joined[k] as u128 + closed[k] as u128;
    }
    // One-dyad triads: each dyad with each of the n − 2 other vertices, less the connected
    // triads it is in: a wedge at either end, but a triangle's edge is in two wedges and one
    // triad. A class's MAN code starts with its mutual and asymmetric dyad counts.
    let (mut mutual_in_triangles, mut asym_in_triangles) = (0u128, 0u128);
    for (name, &c) in TRIAD_NAMES.iter().zip(&closed) {
        let b = name.as_bytes();
        mutual_in_triangles += (b[0] - b'0') as u128 * c as u128;
        asym_in_triangles += (b[1] - b'0') as u128 * c as u128;
    }
    let others = n.saturating_sub(2) as u128;
    census[1] = sums.asym_ends / 2 * others + asym_in_triangles - sums.asym_wedges;
    census[2] = sums.mutual_ends / 2 * others + mutual_in_triangles - sums.mutual_wedges;
    let mut result = [0u64; 16];
    for k in 1..16 {
        result[k] = u64::try_from(census[k]).map_err(|_| {
            Error::invalid(format!(
                "the triad census has {} triads {}, more than a u64 holds",
                census[k], TRIAD_NAMES[k]
            ))
        })?;
    }
    result[0] = empty_triads(n, census[1..].iter().sum())?;
    Ok(result)
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
