//! `ocgraph check`: verify every checksum and the CSR invariants of a graph.

use std::path::PathBuf;

use clap::Args;
use ocgraph_core::format::check_graph;
use ocgraph_core::size::format_size;
use ocgraph_core::Result;

/// Arguments of `ocgraph check`.
#[derive(Args)]
pub struct CheckArgs {
    /// Graph directory.
    graph: PathBuf,
}

/// Runs `ocgraph check`.
pub fn run(args: &CheckArgs) -> Result<()> {
    let report = check_graph(&args.graph)?;
    println!(
        "OK: {}: {} files, {} bytes ({}) verified",
        args.graph.display(),
        report.files,
        report.bytes,
        format_size(report.bytes)
    );
    Ok(())
}
