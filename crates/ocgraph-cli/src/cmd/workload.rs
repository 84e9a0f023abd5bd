//! `ocgraph workload`: generate a seeded query workload for a graph and save it as a workload
//! file (format: `ocgraph_core::query::workload`, and docs/design.md), or a stream of updates
//! for `ocgraph stream` (`stream_workload.rs`).

use std::path::{Path, PathBuf};

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
    /// A stream of updates for `ocgraph stream`: additions of edges between random vertices
    /// (ends drawn by `--dist`; an edge may already exist, or be a self-loop) and removals of
    /// existing edges (each update an addition with the probability `--mix` gives, so a
    /// stream's split varies around it), as text lines `+ u v [w]` and `- u v`.
    Updates,
}

/// How `workload updates` picks the ends of added edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Dist {
    /// Uniformly random vertices.
    Uniform,
    /// Vertices with probability proportional to their degree (ends of random arcs; in plus out
    /// on a directed graph).
    PowerLaw,
}

/// Arguments of `ocgraph workload`.
#[derive(Args)]
pub struct WorkloadArgs {
    /// The workload kind.
    #[arg(value_enum)]
    kind: Kind,
    /// Graph directory (edge queries read it; the other kinds need its vertex count).
    pub(crate) graph: PathBuf,
    /// Probability of a uniformly random vertex (edge queries); otherwise a recent one.
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.1)]
    alpha: f64,
    /// Capacity of the FIFO of recently seen vertices (edge queries).
    #[arg(long, allow_negative_numbers = true, default_value_t = 1000)]
    queue: usize,
    /// Number of queries.
    #[arg(long, allow_negative_numbers = true, default_value_t = 1000)]
    count: usize,
    /// Random seed.
    #[arg(long, allow_negative_numbers = true, default_value_t = 1)]
    seed: u64,
    /// Additions/removals percentages (updates), e.g. 100/0, 90/10, 50/50: each update is an
    /// addition with the first's probability.
    #[arg(long, default_value = "100/0")]
    mix: String,
    /// How the ends of added edges are chosen (updates).
    #[arg(long, value_enum, default_value_t = Dist::Uniform)]
    dist: Dist,
    /// Write the updates as a binary update file (the magic "OCUPDAT1", then 13-byte items;
    /// docs/design.md) instead of text lines.
    #[arg(long)]
    binary: bool,
    /// The workload file to write.
    #[arg(long)]
    out: PathBuf,
}

/// Runs `ocgraph workload`.
pub fn run(args: &WorkloadArgs) -> Result<()> {
    ocgraph_core::format::refuse_output_place(&args.graph, &args.out, "--out")?;
    crate::backend_args::refuse_updates(&args.graph, "ocgraph workload")?;
    let g = Graph::open(&args.graph, &OpenOptions::default())?;
    let n = g.num_vertices();
    if args.kind == Kind::Updates {
        return super::stream_workload::write(
            &g,
            &args.mix,
            args.dist,
            args.count,
            args.seed,
            &args.out,
            args.binary,
        );
    }
    let w = match args.kind {
        Kind::EdgeQueries => Workload::edge_queries(&g.out(), args.alpha, args.queue, args.count, args.seed)?,
        Kind::Fof => Workload::friends_of_friends(n, args.count, args.seed)?,
        Kind::ShortestPath => Workload::shortest_paths(n, args.count, args.seed)?,
        Kind::Updates => unreachable!("handled above"),
    };
    w.save(&args.out)?;
    let distinct = {
        let mut v = w.vertices.clone();
        v.sort_unstable();
        v.dedup();
        v.len()
    };
    summary(
        &args.out,
        &format!(
            "{} workload: {} queries ({distinct} distinct vertices) for a graph of {n} vertices, seed {}, written to {}",
            w.kind.name(),
            w.len(),
            args.seed,
            args.out.display()
        ),
    );
    Ok(())
}

/// Prints a workload's summary line: to standard error when the workload itself went to
/// standard output (`--out -`), so that the two do not mix.
pub(super) fn summary(out: &Path, line: &str) {
    super::report(ocgraph_core::format::names_standard_output(out), line);
}
