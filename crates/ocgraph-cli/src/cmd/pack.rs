//! `ocgraph pack`: a copy of a graph with its neighbour lists packed (about half the bytes to
//! read when the graph does not fit in memory).

use std::path::PathBuf;

use clap::Args;
use ocgraph_core::ingest::pack;
use ocgraph_core::size::format_size;
use ocgraph_core::Result;

use super::output_args::OutputArgs;
use crate::progress::CliProgress;

/// Arguments of `ocgraph pack`.
#[derive(Args)]
pub struct PackArgs {
    /// Graph directory to read (plain lists, no pending updates).
    graph: PathBuf,
    /// Graph directory to write.
    out: PathBuf,
    #[command(flatten)]
    output: OutputArgs,
}

/// Runs `ocgraph pack`.
pub fn run(args: &PackArgs) -> Result<()> {
    let progress = CliProgress::new(args.output.quiet);
    let r = pack(&args.graph, &args.out, args.output.force, &progress)?;
    let detail = format!(
        ": lists with offsets {} -> {} with their index ({:.2}x the size), {}",
        format_size(r.plain_bytes),
        format_size(r.packed_bytes),
        r.packed_bytes as f64 / r.plain_bytes.max(1) as f64,
        args.out.display()
    );
    progress.summary("packed", r.arcs, "arcs", &detail);
    Ok(())
}
