//! Times each kernel on an on-disk graph, read through the page layer (mmap backend) and, for
//! comparison, from an in-memory copy of the CSR: the difference is the page layer's cost.
//!
//! Usage: `cargo run --release -p ocgraph-algo --example kernel_times -- GRAPH_DIR [TRIALS]`
//! (uses the global rayon pool; set `RAYON_NUM_THREADS` to choose the thread count).
//! Prints a table: kernel, access (paged/memory), best and mean seconds.

use std::ops::Range;

use ocgraph_algo::*;
use ocgraph_core::{Adjacency, Direction, Graph, OpenOptions, Slice, Vertex};

/// An in-memory copy of one CSR direction.
struct MemCsr {
    offsets: Vec<u64>,
    targets: Vec<Vertex>,
    weights: Option<Vec<f32>>,
}

impl MemCsr {
    fn copy(d: &Direction<'_>, n: usize) -> MemCsr {
        let offsets = d.offsets(0, n as Vertex).to_vec();
        let m = offsets[n];
        MemCsr { targets: d.arcs(0, m).to_vec(), weights: d.arc_weights(0, m).map(|w| w.to_vec()), offsets }
    }

    fn range(&self, v: Vertex) -> Range<usize> {
        self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize
    }
}

impl Adjacency for MemCsr {
    fn num_vertices(&self) -> usize {
        self.offsets.len() - 1
    }
    fn num_arcs(&self) -> u64 {
        self.targets.len() as u64
    }
    fn degree(&self, v: Vertex) -> usize {
        self.range(v).len()
    }
    fn neighbors(&self, v: Vertex) -> Slice<'_, Vertex> {
        Slice::from_slice(&self.targets[self.range(v)])
    }
    fn weights(&self, v: Vertex) -> Option<Slice<'_, f32>> {
        self.weights.as_ref().map(|w| Slice::from_slice(&w[self.range(v)]))
    }
    fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }
    fn for_each_in_range<F: FnMut(Vertex, &[Vertex])>(&self, vertices: Range<Vertex>, mut f: F) {
        for v in vertices {
            f(v, &self.targets[self.range(v)]);
        }
    }
}

fn time_all<O: Adjacency, I: Adjacency>(access: &str, out: &O, inn: &I, source: Vertex, trials: usize) {
    let pr = PageRankOptions { tol: 0.0, max_iter: 20, ..PageRankOptions::default() };
    let reports = [
        run_trials("bfs", trials, false, || bfs(out, inn, source), |_| Ok(())).unwrap().0,
        run_trials("sssp", trials, false, || sssp(out, source, None), |_| Ok(())).unwrap().0,
        run_trials("wcc", trials, false, || wcc(out, inn), |_| Ok(())).unwrap().0,
        run_trials("pagerank20", trials, false, || pagerank(out, inn, &pr), |_| Ok(())).unwrap().0,
    ];
    for r in reports {
        println!("{:<12} {:<8} {:>10.4} {:>10.4}", r.name, access, r.min_secs(), r.mean_secs());
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let dir = args.get(1).ok_or("usage: kernel_times GRAPH_DIR [TRIALS]")?;
    let trials: usize = args.get(2).map(|t| t.parse()).transpose()?.unwrap_or(3);
    let g = Graph::open(dir, &OpenOptions::default())?;
    let n = g.num_vertices();
    let (out, inn) = (g.out(), g.in_());
    // The first vertex with the largest degree among the first 1000: reaches the big component.
    let source = (0..n.min(1000) as Vertex).max_by_key(|&v| (out.degree(v), Vertex::MAX - v)).unwrap_or(0);
    println!(
        "graph {dir}: {n} vertices, {} arcs, source {source}, {} threads",
        g.num_arcs(),
        rayon::current_num_threads()
    );
    println!("{:<12} {:<8} {:>10} {:>10}", "kernel", "access", "best_s", "mean_s");
    time_all("paged", &out, &inn, source, trials);
    let mem_out = MemCsr::copy(&out, n);
    let mem_in = if g.is_directed() { Some(MemCsr::copy(&inn, n)) } else { None };
    time_all("memory", &mem_out, mem_in.as_ref().unwrap_or(&mem_out), source, trials);
    Ok(())
}
