//! k-clique counting and listing on the undirected simple view of a graph.
//!
//! Method: orientation by degree order into a DAG, as in Chiba and Nishizeki ("Arboricity and
//! subgraph listing algorithms", SIAM J. Comput. 1985) and kClist (Danisch, Balalau and Sozio,
//! "Listing k-cliques in sparse real-world graphs", WWW 2018, which uses the degeneracy order;
//! the degree order bounds every out-list by `O(√m)` as well and costs one sort). Vertices are
//! ranked by (degree, id), every edge points from lower to higher rank, and each k-clique is
//! found once, from its lowest-ranked vertex `u`: the candidates start as `u`'s out-list and
//! each chosen vertex `v` cuts them to the later candidates that are also in `v`'s out-list (a
//! merge of sorted lists); the last level is only counted. The DAG is the one
//! [`crate::triangle_count`] builds (4 bytes per undirected edge, in memory or in a scratch file
//! by the graph's memory budget, plus 8 bytes of offsets and 12 of ranks and degrees per
//! vertex); the search runs on the caller's rayon pool, balanced by
//! the square of the out-degrees.

use ocgraph_core::page::scratch::ScratchArray;
use ocgraph_core::{Adjacency, Error, Result, Vertex};
use rayon::prelude::*;

use super::intersect_into;
use super::listing::Listing;
use super::pattern::Emit;
use crate::bfs::check_directions;
use crate::chunks::{edge_balanced_ranges, pieces_for};
use crate::triangles::{intersection_size, oriented, ranks, undirected_degrees};

/// Largest clique size accepted.
pub const MAX_CLIQUE: usize = 16;

/// The degree-ordered DAG of a graph in rank space.
pub(crate) struct Dag {
    /// Offsets of each rank's out-list in `targets`.
    pub offsets: Vec<u64>,
    /// Out-lists (ranks of higher-ranked neighbours, sorted); in memory or mapped from a
    /// scratch file (see [`crate::triangles`]).
    pub targets: ScratchArray,
    /// `order[r]`: the vertex of rank `r`.
    pub order: Vec<Vertex>,
    /// `rank[v]`: the rank of vertex `v`.
    pub rank: Vec<Vertex>,
    /// Simple undirected degree of each vertex (by vertex id).
    pub degree: Vec<u32>,
}

impl Dag {
    /// Builds the DAG of `out`/`in_` (see the module docs).
    pub(crate) fn build<O: Adjacency, I: Adjacency>(out: &O, in_: &I) -> Result<Dag> {
        check_directions(out, in_)?;
        // Degrees, ranks and offsets, and what orienting the lists holds (see docs/mining.md).
        crate::state::check_state("mining", out.num_vertices(), crate::triangles::ORIENTED_STATE)?;
        let degree = undirected_degrees(out, in_);
        let rank = ranks(&degree);
        let (offsets, targets) = oriented(out, in_, &rank, &degree)?;
        let mut order = vec![0; rank.len()];
        for (v, &r) in rank.iter().enumerate() {
            order[r as usize] = v as Vertex;
        }
        Ok(Dag { offsets, targets, order, rank, degree })
    }

    /// The out-list of rank `r`.
    pub(crate) fn list(&self, r: Vertex) -> &[Vertex] {
        &self.targets[self.offsets[r as usize] as usize..self.offsets[r as usize + 1] as usize]
    }

    /// Number of ranks (vertices).
    pub(crate) fn len(&self) -> usize {
        self.order.len()
    }

    /// Ranges of ranks for the parallel search, balanced by squared out-degree.
    pub(crate) fn ranges(&self) -> Vec<std::ops::Range<Vertex>> {
        let work: Vec<u32> = (0..self.len())
            .map(|r| (self.offsets[r + 1] - self.offsets[r]).pow(2).min(u32::MAX as u64) as u32)
            .collect();
        edge_balanced_ranges(&work, pieces_for(self.len()))
    }

    /// Number of `need`-cliques inside the sorted candidate ranks `cand` (all in the out-list
    /// of every clique vertex chosen so far); `bufs` holds one buffer per level. With `emit`,
    /// also calls it with each clique's ranks (`chosen` + the new ones).
    fn cliques_in(
        &self,
        cand: &[Vertex],
        need: usize,
        bufs: &mut [Vec<Vertex>],
        chosen: &mut Vec<Vertex>,
        emit: &mut Emit<'_>,
    ) -> u64 {
        if cand.len() < need {
            return 0;
        }
        if need == 1 {
            if let Some(f) = emit {
                for &c in cand {
                    chosen.push(c);
                    f(chosen);
                    chosen.pop();
                }
            }
            return cand.len() as u64;
        }
        if need == 2 && emit.is_none() {
            return cand
                .iter()
                .enumerate()
                .map(|(i, &v)| intersection_size(&cand[i + 1..], self.list(v)))
                .sum();
        }
        let (buf, rest) = bufs.split_first_mut().expect("one buffer per level");
        let mut total = 0;
        for (i, &v) in cand.iter().enumerate() {
            if cand.len() - i < need {
                break;
            }
            let mut next = std::mem::take(buf);
            intersect_into(&cand[i + 1..], self.list(v), &mut next);
            chosen.push(v);
            total += self.cliques_in(&next, need - 1, rest, chosen, emit);
            chosen.pop();
            *buf = next;
        }
        total
    }

    /// Number of `k`-cliques with lowest rank `u` (k ≥ 2), emitting each as ranks when asked.
    pub(crate) fn cliques_at(
        &self,
        u: Vertex,
        k: usize,
        bufs: &mut [Vec<Vertex>],
        emit: &mut Emit<'_>,
    ) -> u64 {
        let mut chosen = vec![u];
        self.cliques_in(self.list(u), k - 1, bufs, &mut chosen, emit)
    }
}

fn check_k(k: usize) -> Result<()> {
    if !(2..=MAX_CLIQUE).contains(&k) {
        return Err(Error::invalid(format!("clique size k must be from 2 to {MAX_CLIQUE}, not {k}")));
    }
    Ok(())
}

/// Number of `k`-cliques (2 ≤ k ≤ [`MAX_CLIQUE`]) of the undirected simple graph underlying
/// `out`/`in_` (pass the same adjacency twice for an undirected graph).
///
/// Errors: `k` out of range; directions disagreeing on the vertex count.
pub fn count_cliques<O: Adjacency, I: Adjacency>(out: &O, in_: &I, k: usize) -> Result<u64> {
    check_k(k)?;
    let dag = Dag::build(out, in_)?;
    Ok(dag
        .ranges()
        .into_par_iter()
        .map(|r| {
            let mut bufs = vec![Vec::new(); k];
            r.map(|u| dag.cliques_at(u, k, &mut bufs, &mut None)).sum::<u64>()
        })
        .sum())
}

/// Calls `f(clique)` for every `k`-clique (its vertex ids, ascending) from the rayon workers;
/// returns the number of cliques.
///
/// Errors: as [`count_cliques`].
pub fn for_each_clique<O: Adjacency, I: Adjacency>(
    out: &O,
    in_: &I,
    k: usize,
    f: impl Fn(&[Vertex]) + Sync,
) -> Result<u64> {
    check_k(k)?;
    let dag = Dag::build(out, in_)?;
    Ok(dag
        .ranges()
        .into_par_iter()
        .map(|r| {
            let mut bufs = vec![Vec::new(); k];
            let mut ids = Vec::with_capacity(k);
            let mut sink = |ranks: &[Vertex]| {
                ids.clear();
                ids.extend(ranks.iter().map(|&x| dag.order[x as usize]));
                ids.sort_unstable();
                f(&ids);
            };
            r.map(|u| dag.cliques_at(u, k, &mut bufs, &mut Some(&mut sink))).sum::<u64>()
        })
        .sum())
}

/// Every `k`-clique, flattened: `k` vertex ids per clique (ascending within a clique), cliques
/// in the order of their lowest-ranked vertex.
///
/// Errors: as [`count_cliques`].
pub fn list_cliques<O: Adjacency, I: Adjacency>(out: &O, in_: &I, k: usize) -> Result<Vec<Vertex>> {
    check_k(k)?;
    let dag = Dag::build(out, in_)?;
    let listing = Listing::new();
    let parts: Vec<Vec<Vertex>> = dag
        .ranges()
        .into_par_iter()
        .map(|r| {
            let mut bufs = vec![Vec::new(); k];
            let mut found = Vec::new();
            let mut sink = |ranks: &[Vertex]| {
                if listing.make_room(&mut found, ranks.len()) {
                    let start = found.len();
                    found.extend(ranks.iter().map(|&x| dag.order[x as usize]));
                    found[start..].sort_unstable();
                }
            };
            for u in r.take_while(|_| !listing.is_over()) {
                dag.cliques_at(u, k, &mut bufs, &mut Some(&mut sink));
            }
            found
        })
        .collect();
    listing.join(parts, k, &format!("the {k}-cliques"))
}
