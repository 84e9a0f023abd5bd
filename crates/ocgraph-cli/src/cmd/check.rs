//! `ocgraph check`: verify every checksum and the CSR invariants of a graph; first remove the
//! temporary directories that killed writers of it left beside it.

use std::path::PathBuf;

use clap::Args;
use ocgraph_core::format::{check_graph, remove_stale_temp_dirs};
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
    for stale in remove_stale_temp_dirs(&args.graph)? {
        eprintln!(
            "removed {} ({}): temporary directory of an interrupted write whose process is gone",
            stale.path.display(),
            format_size(stale.bytes)
        );
    }
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
