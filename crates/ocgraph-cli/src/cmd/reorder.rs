//! `ocgraph reorder`: a copy of a graph with its vertices renumbered in descending order of
//! degree (faster kernels on skewed graphs; the original ids are kept).

use std::path::PathBuf;

use clap::Args;
use ocgraph_core::ingest::reorder;
use ocgraph_core::Result;

use super::size_arg;
use crate::progress::CliProgress;

/// Arguments of `ocgraph reorder`.
#[derive(Args)]
pub struct ReorderArgs {
    /// Graph directory to read (no pending updates).
    graph: PathBuf,
    /// Graph directory to write (plain lists, read-only, original ids kept).
    out: PathBuf,
    /// Memory budget of the builder, e.g. 256MB, 1GiB (beyond it, sorted runs go to disk).
    #[arg(long, value_parser = size_arg, default_value = "1GiB")]
    memory: u64,
    /// Replace OUT if it exists.
    #[arg(long)]
    force: bool,
    /// No progress bar (a summary line is still printed).
    #[arg(long)]
    quiet: bool,
}

/// Runs `ocgraph reorder`.
pub fn run(args: &ReorderArgs) -> Result<()> {
    let progress = CliProgress::new(args.quiet);
    let arcs = reorder(&args.graph, &args.out, args.memory, args.force, &progress)?;
    progress.summary("reordered", arcs, &format!(" by degree into {}", args.out.display()));
    Ok(())
}
