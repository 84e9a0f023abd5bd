//! `ocgraph workload`: generate a seeded query workload for a graph and save it as a workload
//! file (format: `ocgraph_core::query::workload`, and docs/design.md).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use ocgraph_core::query::Workload;
use ocgraph_core::{Graph, OpenOptions, Result};

/// The workload kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// Alpha-recency edge queries (neighbour lists; seed 000's generator).
    EdgeQueries,
    /// Friends-of-friends of uniformly random vertices.
    Fof,
    /// Uniformly random (source, target) pairs for shortest paths.
    ShortestPath,
}

/// Arguments of `ocgraph workload`.
#[derive(Args)]
pub struct WorkloadArgs {
    /// The workload kind.
    #[arg(value_enum)]
    kind: Kind,
    /// Graph directory (edge queries read it; the other kinds need its vertex count).
    graph: PathBuf,
    /// Probability of a uniformly random vertex (edge queries); otherwise a recent one.
    #[arg(long, default_value_t = 0.1)]
    alpha: f64,
    /// Capacity of the FIFO of recently seen vertices (edge queries).
    #[arg(long, default_value_t = 1000)]
    queue: usize,
    /// Number of queries.
    #[arg(long, default_value_t = 1000)]
    count: usize,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The workload file to write.
    #[arg(long)]
    out: PathBuf,
}

/// Runs `ocgraph workload`.
pub fn run(args: &WorkloadArgs) -> Result<()> {
    crate::backend_args::refuse_updates(&args.graph, "ocgraph workload")?;
    let g = Graph::open(&args.graph, &OpenOptions::default())?;
    let n = g.num_vertices();
    let w = match args.kind {
        Kind::EdgeQueries => Workload::edge_queries(&g.out(), args.alpha, args.queue, args.count, args.seed)?,
        Kind::Fof => Workload::friends_of_friends(n, args.count, args.seed)?,
        Kind::ShortestPath => Workload::shortest_paths(n, args.count, args.seed)?,
    };
    w.save(&args.out)?;
    let distinct = {
        let mut v = w.vertices.clone();
        v.sort_unstable();
        v.dedup();
        v.len()
    };
    println!(
        "{} workload: {} queries ({distinct} distinct vertices) for a graph of {n} vertices, seed {}, written to {}",
        w.kind.name(),
        w.len(),
        args.seed,
        args.out.display()
    );
    Ok(())
}
