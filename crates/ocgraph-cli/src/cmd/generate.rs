//! `ocgraph generate`: build a synthetic graph.

use std::path::PathBuf;

use clap::{ArgGroup, Args, Subcommand};
use ocgraph_core::generate::{self, ErdosRenyiSize, Generator};
use ocgraph_core::ingest::{BuildOptions, GraphBuilder, IdMap, Progress};
use ocgraph_core::{Error, Result};

use super::output_args::BuilderArgs;
use crate::progress::CliProgress;

/// Arguments of `ocgraph generate`.
#[derive(Args)]
pub struct GenerateArgs {
    #[command(subcommand)]
    model: Model,
}

#[derive(Subcommand)]
enum Model {
    /// Graph500 Kronecker (R-MAT a=0.57 b=c=0.19), 2^scale vertices (undirected by default).
    Kronecker(KroneckerArgs),
    /// Erdős–Rényi G(n, m) (--edges) or G(n, p) (--probability).
    ErdosRenyi(ErdosRenyiArgs),
    /// A road-like grid: 4-neighbour, 10% of edges removed, integer weights 1..255 (undirected).
    Road(RoadArgs),
}

/// Options shared by every model. Generated graphs are simple: duplicate edges and self-loops
/// are removed (as GAPBS does for its Kronecker graphs).
#[derive(Args)]
struct Common {
    /// Output graph directory.
    out: PathBuf,
    /// Build a directed graph (default: undirected; kronecker and erdos-renyi only, road grids
    /// are undirected).
    #[arg(long)]
    directed: bool,
    /// Random integer weights 1..255 (the road model is always weighted).
    #[arg(long)]
    weighted: bool,
    #[command(flatten)]
    build: BuilderArgs,
}

#[derive(Args)]
struct KroneckerArgs {
    /// log2 of the number of vertices.
    #[arg(long, allow_negative_numbers = true, default_value_t = 18)]
    scale: u32,
    /// Edges per vertex (before removing duplicates and self-loops).
    #[arg(long, allow_negative_numbers = true, default_value_t = 16)]
    edge_factor: u64,
    /// RNG seed.
    #[arg(long, allow_negative_numbers = true, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    common: Common,
}

#[derive(Args)]
#[command(group(ArgGroup::new("size").required(true).args(["edges", "probability"])))]
struct ErdosRenyiArgs {
    /// Number of vertices.
    #[arg(long, allow_negative_numbers = true)]
    vertices: u64,
    /// Number of random edges to draw (G(n, m); repeats and self-loops drawn are dropped, so a
    /// dense graph holds fewer).
    #[arg(long, allow_negative_numbers = true)]
    edges: Option<u64>,
    /// Edge probability (G(n, p)).
    #[arg(long, allow_negative_numbers = true)]
    probability: Option<f64>,
    /// RNG seed.
    #[arg(long, allow_negative_numbers = true, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    common: Common,
}

#[derive(Args)]
struct RoadArgs {
    /// Grid rows.
    #[arg(long, allow_negative_numbers = true)]
    rows: u64,
    /// Grid columns.
    #[arg(long, allow_negative_numbers = true)]
    cols: u64,
    /// RNG seed.
    #[arg(long, allow_negative_numbers = true, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    common: Common,
}

/// Runs `ocgraph generate`.
pub fn run(args: &GenerateArgs) -> Result<()> {
    match &args.model {
        Model::Kronecker(a) => {
            let g = generate::kronecker(a.scale, a.edge_factor, a.seed)?.weighted(a.common.weighted);
            build(&g, &a.common, a.common.weighted)
        }
        Model::ErdosRenyi(a) => {
            let size = match (a.edges, a.probability) {
                (Some(m), _) => ErdosRenyiSize::Edges(m),
                (None, Some(p)) => ErdosRenyiSize::Probability(p),
                (None, None) => unreachable!("clap requires one of --edges/--probability"),
            };
            let g = generate::erdos_renyi(a.vertices, size, a.seed)?
                .weighted(a.common.weighted)
                .directed(a.common.directed);
            build(&g, &a.common, a.common.weighted)
        }
        Model::Road(a) if a.common.directed => {
            Err(Error::invalid("road grids are undirected (--directed applies to kronecker and erdos-renyi)"))
        }
        Model::Road(a) => build(&generate::road_grid(a.rows, a.cols, a.seed)?, &a.common, true),
    }
}

fn build(gen: &dyn Generator, c: &Common, weighted: bool) -> Result<()> {
    let opts = BuildOptions {
        directed: c.directed,
        weighted,
        dedup: true,
        drop_self_loops: true,
        memory: c.build.memory,
        overwrite: c.build.output.force,
        source: gen.describe(),
    };
    let progress = CliProgress::new(c.build.output.quiet);
    let mut builder = GraphBuilder::new(&c.out, opts)?;
    let drawn = generate::generate_into(&mut builder, gen, &progress)?;
    let report = builder.finish(IdMap::Identity, &progress)?;
    progress.finish();
    progress.summary(
        "generated",
        report.num_edges,
        "edges",
        &format!(
            " ({drawn} drawn, {} vertices, {} arcs) into {}",
            report.num_vertices,
            report.num_arcs,
            c.out.display()
        ),
    );
    Ok(())
}
