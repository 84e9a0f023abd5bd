//! Times each kernel on an on-disk graph, read through the page layer (mmap backend) and, for
//! comparison, from an in-memory copy of the CSR: the difference is the page layer's cost.
//!
//! Usage: `cargo run --release -p ocgraph-algo --example kernel_times -- GRAPH_DIR [TRIALS]
//! [KERNELS] [ACCESS] [POOL]` with KERNELS a comma-separated subset of `bfs,sssp,wcc,pagerank20,tc`
//! (default: all but tc) and ACCESS `paged`, `memory` or `both` (default). `paged` reads through
//! mmap, or through a buffer pool of POOL bytes (e.g. `256MB`, 4 KiB frames, CLOCK; the first
//! trial warms it) when POOL is given. Uses the global
//! rayon pool; set `RAYON_NUM_THREADS` to choose the thread count. Prints a table: kernel,
//! access (paged/memory), best and mean wall seconds, and the mean process CPU seconds per
//! trial (user + system, from `/proc/self/stat`; steadier than wall time on a shared machine).

use std::ops::Range;

use ocgraph_algo::*;
use ocgraph_core::page::BackendKind;
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
        let mut targets = Vec::with_capacity(m as usize);
        d.for_each_in_range(0..n as Vertex, |_, l| targets.extend_from_slice(l));
        MemCsr { targets, weights: d.arc_weights(0, m).map(|w| w.to_vec()), offsets }
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

/// User + system CPU seconds of this process so far (Linux; 0 elsewhere).
fn cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest.split_whitespace().skip(11).take(2).filter_map(|x| x.parse().ok()).collect();
    f.iter().sum::<f64>() / 100.0
}

fn time_all<O: Adjacency, I: Adjacency>(
    access: &str,
    kernels: &[&str],
    out: &O,
    inn: &I,
    source: Vertex,
    trials: usize,
) {
    let pr = PageRankOptions { tol: 0.0, max_iter: 20, ..PageRankOptions::default() };
    for &k in kernels {
        let cpu = cpu_secs();
        let report = match k {
            "bfs" => run_trials(k, trials, false, || bfs(out, inn, source), |_| Ok(())).unwrap().0,
            "sssp" => run_trials(k, trials, false, || sssp(out, source, None), |_| Ok(())).unwrap().0,
            "wcc" => run_trials(k, trials, false, || wcc(out, inn), |_| Ok(())).unwrap().0,
            "pagerank20" => run_trials(k, trials, false, || pagerank(out, inn, &pr), |_| Ok(())).unwrap().0,
            "tc" => run_trials(k, trials, false, || triangle_count(out, inn), |_| Ok(())).unwrap().0,
            other => {
                eprintln!("unknown kernel {other}");
                continue;
            }
        };
        let cpu = (cpu_secs() - cpu) / trials.max(1) as f64;
        println!(
            "{:<12} {:<8} {:>10.4} {:>10.4} {:>10.3}",
            report.name,
            access,
            report.min_secs(),
            report.mean_secs(),
            cpu
        );
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let dir = args.get(1).ok_or("usage: kernel_times GRAPH_DIR [TRIALS]")?;
    let trials: usize = args.get(2).map(|t| t.parse()).transpose()?.unwrap_or(3);
    let kernels: Vec<&str> =
        args.get(3).map_or("bfs,sssp,wcc,pagerank20", |k| k.as_str()).split(',').collect();
    let access = args.get(4).map_or("both", |a| a.as_str());
    let backend = match args.get(5) {
        Some(size) => BackendKind::Pool {
            capacity: ocgraph_core::size::parse_size(size)?,
            page_size: 4096,
            policy: "clock".into(),
        },
        None => BackendKind::default(),
    };
    let g = Graph::open(dir, &OpenOptions { backend })?;
    let n = g.num_vertices();
    let (out, inn) = (g.out(), g.in_());
    // The first vertex with the largest degree among the first 1000: reaches the big component.
    let source = (0..n.min(1000) as Vertex).max_by_key(|&v| (out.degree(v), Vertex::MAX - v)).unwrap_or(0);
    println!(
        "graph {dir}: {n} vertices, {} arcs, source {source}, {} threads",
        g.num_arcs(),
        rayon::current_num_threads()
    );
    println!("{:<12} {:<8} {:>10} {:>10} {:>10}", "kernel", "access", "best_s", "mean_s", "cpu_s");
    if access != "memory" {
        time_all("paged", &kernels, &out, &inn, source, trials);
    }
    if access == "paged" {
        return Ok(());
    }
    let mem_out = MemCsr::copy(&out, n);
    let mem_in = if g.is_directed() { Some(MemCsr::copy(&inn, n)) } else { None };
    time_all("memory", &kernels, &mem_out, mem_in.as_ref().unwrap_or(&mem_out), source, trials);
    Ok(())
}
