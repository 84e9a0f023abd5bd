//! `ocgraph reorder`: a copy of a graph with its vertices renumbered in descending order of
//! degree (faster kernels on skewed graphs; the original ids are kept).

use std::path::PathBuf;

use clap::Args;
use ocgraph_core::ingest::reorder;
use ocgraph_core::Result;

use super::output_args::BuilderArgs;
use crate::progress::CliProgress;

/// Arguments of `ocgraph reorder`.
#[derive(Args)]
pub struct ReorderArgs {
    /// Graph directory to read (no pending updates).
    graph: PathBuf,
    /// Graph directory to write (plain lists, original ids kept; it takes updates like any graph).
    out: PathBuf,
    #[command(flatten)]
    build: BuilderArgs,
}

/// Runs `ocgraph reorder`.
pub fn run(args: &ReorderArgs) -> Result<()> {
    let progress = CliProgress::new(args.build.output.quiet);
    let arcs = reorder(&args.graph, &args.out, args.build.memory, args.build.output.force, &progress)?;
    progress.summary("reordered", arcs, "arcs", &format!(" by degree into {}", args.out.display()));
    Ok(())
}
