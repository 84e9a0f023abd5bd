//! Shared helpers of the ingest tests: a brute-force reference CSR and a graph reader.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use ocgraph_core::ingest::BuildOptions;
use ocgraph_core::{Adjacency, Graph, OpenOptions};

/// One neighbour list entry: (neighbour, weight bits).
pub type Lists = Vec<Vec<(u32, u32)>>;

fn sort_list(l: &mut [(u32, f32)]) {
    l.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.partial_cmp(&b.1).unwrap()));
}

/// The out- and in-lists the builder must produce for `edges` over `n` vertices (`in` is empty
/// for undirected graphs). Unweighted lists have weight 1.0.
pub fn reference(n: usize, edges: &[(u32, u32, f32)], o: &BuildOptions) -> (Lists, Lists) {
    let mut arcs: Vec<(u32, u32, f32)> = Vec::new();
    for &(u, v, w) in edges {
        let w = if o.weighted { w } else { 1.0 };
        if u == v && o.drop_self_loops {
            continue;
        }
        arcs.push((u, v, w));
        if !o.directed && u != v {
            arcs.push((v, u, w));
        }
    }
    if o.dedup {
        let mut best: BTreeMap<(u32, u32), f32> = BTreeMap::new();
        for &(u, v, w) in &arcs {
            let e = best.entry((u, v)).or_insert(w);
            if w < *e {
                *e = w;
            }
        }
        arcs = best.into_iter().map(|((u, v), w)| (u, v, w)).collect();
    }
    let mut out = vec![Vec::new(); n];
    let mut inn = vec![Vec::new(); if o.directed { n } else { 0 }];
    for &(u, v, w) in &arcs {
        out[u as usize].push((v, w));
        if o.directed {
            inn[v as usize].push((u, w));
        }
    }
    let fin = |mut ls: Vec<Vec<(u32, f32)>>| -> Lists {
        ls.iter_mut()
            .map(|l| {
                sort_list(l);
                l.iter().map(|&(v, w)| (v, w.to_bits())).collect()
            })
            .collect()
    };
    (fin(out), fin(inn))
}

/// Reads one direction of a graph as lists (weight 1.0 when unweighted).
pub fn read_lists(adj: &impl Adjacency) -> Lists {
    if adj.num_arcs() == 0 {
        // The mmap backend cannot hand out slices of an empty (unmapped) file; check degrees.
        return (0..adj.num_vertices() as u32)
            .map(|v| {
                assert_eq!(adj.degree(v), 0);
                Vec::new()
            })
            .collect();
    }
    (0..adj.num_vertices() as u32)
        .map(|v| {
            let nb = adj.neighbors(v);
            let w: Vec<f32> = match adj.weights(v) {
                Some(w) => w.to_vec(),
                None => vec![1.0; nb.len()],
            };
            nb.iter().zip(w).map(|(&v, w)| (v, w.to_bits())).collect()
        })
        .collect()
}

/// Opens the graph at `dir`, checks it with `check_graph`, and returns its out- and in-lists
/// (in-lists empty for undirected graphs).
pub fn open_lists(dir: &Path) -> (Graph, Lists, Lists) {
    ocgraph_core::format::check_graph(dir).expect("check_graph passes");
    let g = Graph::open(dir, &OpenOptions::default()).expect("graph opens");
    let out = read_lists(&g.out());
    let inn = if g.is_directed() { read_lists(&g.in_()) } else { Vec::new() };
    (g, out, inn)
}

/// A scratch directory, in memory (`/dev/shm`) when available: graph writes fsync every file.
pub fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(t) = tempfile::tempdir_in(shm) {
            return t;
        }
    }
    tempfile::tempdir().unwrap()
}
